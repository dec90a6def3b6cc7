/* runtime/package.h — offline kernel packages (docs/package.md), internal interface.
 *
 * A package (.kgpkg) holds, for each entry and signature it was made for, everything kg_run
 * needs without the JSON frontend or NVRTC: the specialized program's launch plan (typed
 * programs, fusion groups, host plan, temporaries, guards, write-backs, the split-rows and
 * fold plans), every kernel variant the scheduler can pick at run time with its launch
 * metadata, a cubin per arch and PTX of the newest, the CUDA C (the emulator compiles it as
 * it compiles any kernel), and the TorchScript / eager-Python twins.
 *
 *   package_ir.c     the compiler's structures ⇄ JSON (graphs, fusion, kernel launch
 *                    metadata, variants), table-driven where a structure may grow: a field
 *                    the reader does not know is an error naming it
 *   package_plan.c   host plans ⇄ JSON (steps, blocks, regions; kg_plan_verify on reading)
 *   package_write.c  kg_package_write: specialize, enumerate the variants, build them, NVRTC
 *                    per arch, the container (byte-identical for the same inputs)
 *   package_read.c   the container: header, manifest, sections and their hashes; the module
 *                    side of the API (entries, parameters, which signature fits, describe)
 *   package_load.c   a packaged signature → a kg_compiled (the same structures exec.c and
 *                    plan.c run), its variants, its CUDA module (cubin or PTX by the GPU's arch)
 *
 * The container (all integers little-endian):
 *   0   8 bytes  magic "\x89KGPKG\r\n"
 *   8   u32      format version (KG_PKG_FORMAT)
 *   12  u32      header bytes (64)
 *   16  u64      manifest offset (64)
 *   24  u64      manifest length
 *   32  32 bytes SHA-256 of the manifest (which lists every section's SHA-256): the package's
 *                content hash
 *   64  manifest (JSON, UTF-8), then the sections, each at a 16-byte aligned offset
 */
#ifndef KG_PACKAGE_H
#define KG_PACKAGE_H

#include <cjson/cJSON.h>

#include "api_int.h"

#define KG_PKG_MAGIC "\x89KGPKG\r\n"
#define KG_PKG_FORMAT 2
#define KG_PKG_HEADER 64
#define KG_PKG_MAX_ARCH 16

/* ---- package_ir.c ---- */

/* JSON writing: the writer builds text with these (deterministic: fixed field order, exact
 * integers, doubles with 17 digits, non-finite doubles as strings). */
void kg_pkw_str(kg_strbuf *b, const char *s);  /* a JSON string (or null) */
void kg_pkw_i64(kg_strbuf *b, int64_t v);       /* a number, or a string beyond 2^53 */
void kg_pkw_u32s(kg_strbuf *b, const uint32_t *v, uint32_t n); /* [v0,v1,...] */
void kg_pkw_graph(kg_strbuf *b, const kg_graph *g);
void kg_pkw_fusion(kg_strbuf *b, const kg_fusion *f);
void kg_pkw_kernel(kg_strbuf *b, const kg_kernel *k); /* name, parameters, launch: no body */
void kg_pkw_variant(kg_strbuf *b, const kg_variant *v);
void kg_pkw_plan(kg_strbuf *b, const kg_plan *p); /* package_plan.c */

/* JSON reading: errors name the section and the JSON path of the offending value. */
typedef struct kg_pkr {
  kg_arena *arena;        /* where strings and arrays go */
  kg_diag *d;
  const char *where;      /* "plan.0.0" (the section) */
  const char *file;       /* the package's path */
  struct { const char *key; int idx; } fr[24]; /* the path being read */
  int depth;
  bool failed;
  bool tabs;              /* optab/dttab built (on the first node read) */
  uint16_t optab[512];    /* op name -> op + 1, open addressing on the name's hash */
  uint8_t dttab[64];      /* dtype name -> dtype + 1 */
} kg_pkr;
bool kg_pkr_fail(kg_pkr *R, const char *fmt, ...) KG_PRINTF(2, 3);
void kg_pkr_push(kg_pkr *R, const char *key, int idx);
void kg_pkr_pop(kg_pkr *R);
/* object member (NULL when absent), typed readers (false + error when the type is wrong) */
const cJSON *kg_pkr_get(const cJSON *o, const char *key);
bool kg_pkr_int(kg_pkr *R, const cJSON *v, const char *key, int64_t lo, int64_t hi, int64_t *out);
bool kg_pkr_u32s(kg_pkr *R, const cJSON *arr, const char *key, uint32_t hi, uint32_t **out, uint32_t *n);
/* appends the u32 array obj[key] (each < hi) to a KG_VEC; returns false from the caller on error */
#define R_VEC(R, obj, key, hi, vec)                                     \
  do {                                                                \
    uint32_t *v_, n_;                                                 \
    if (!kg_pkr_u32s((R), kg_pkr_get((obj), (key)), (key), (hi), &v_, &n_)) return false; \
    for (uint32_t i_ = 0; i_ < n_; i_++) KG_VEC_PUSH((vec), v_[i_]);  \
  } while (0)
const char *kg_pkr_strv(kg_pkr *R, const cJSON *v, const char *key, bool nullable);
/* Every key of object o must be one of keys[] (a newer format's field is a clear error). */
bool kg_pkr_keys(kg_pkr *R, const cJSON *o, const char *const *keys, int n);
bool kg_pkr_graph(kg_pkr *R, const cJSON *j, kg_graph *g);
bool kg_pkr_fusion(kg_pkr *R, const cJSON *j, const kg_graph *g, kg_fusion *f);
bool kg_pkr_kernel(kg_pkr *R, const cJSON *j, kg_kernel *k);
bool kg_pkr_variant(kg_pkr *R, const cJSON *j, kg_variant *v);
bool kg_pkr_plan(kg_pkr *R, const cJSON *j, const kg_graph *g, kg_plan *p); /* package_plan.c */
/* package_json.c: strict JSON into cJSON-shaped nodes in arena a (freed with it; never
 * cJSON_Delete them); NULL and err ("… at byte N") when the text is not JSON */
const cJSON *kg_pkj_parse(kg_arena *a, const char *s, size_t n, char *err, size_t errcap);

/* ---- package_read.c ---- */
typedef struct kg_pkg_section {
  const char *name;
  uint64_t off, len;
  char sha[65];
  bool verified;          /* its SHA-256 was checked (on first use) */
} kg_pkg_section;

typedef struct kg_pkg_param {
  bool scalar;
  kg_dtype dtype;
  int rank;
  int64_t size[KG_MAX_RANK];   /* static size, or -1 for a symbol */
  const char *sym[KG_MAX_RANK];/* the symbol of a symbolic dim */
  const char *capture;         /* a capture's name (NULL: an input) */
} kg_pkg_param;

typedef struct kg_pkg_sig {
  const char *text;            /* the signature in the compact form */
  kg_pkg_param *params;
  uint32_t n_params, n_inputs; /* inputs first, then captures */
  const char *(*guards)[2];    /* symbol pairs that must be equal */
  uint32_t n_guards;
  int32_t plan, code, cuda;    /* sections (-1: none) */
  int32_t kmeta;               /* the variants' launch metadata, a JSON object each (format 2) */
  int32_t twin[4];             /* TorchScript, eager Python; [2], [3] the same in half reference mode */
  int n_arch;
  int arch[KG_PKG_MAX_ARCH];   /* cubins, ascending */
  int32_t cubin[KG_PKG_MAX_ARCH];
  int ptx_arch;                /* 0: none */
  int32_t ptx;
  uint32_t n_kernels, n_variants;
  const char *stats;           /* ptxas statistics per arch and kernel (text, explain) */
  kg_rt_module *cuda_mod;      /* the module loaded on the context's CUDA device (first use) */
  int cuda_mod_arch;           /* what it was built from: an arch (cubin) or -arch (PTX) */
} kg_pkg_sig;

typedef struct kg_pkg_entry {
  const char *name;
  kg_pkg_sig *sigs;
  uint32_t n_sigs;
} kg_pkg_entry;

typedef struct kg_package {
  kg_arena arena;
  char *path;
  unsigned char *bytes;        /* the whole file */
  size_t len;
  uint64_t data_off;           /* where section offsets count from */
  char hash[65];               /* the content hash (SHA-256 of the manifest, hex) */
  const char *kgen_version, *abi, *created_by;
  int format;
  kg_pkg_entry *entries;
  uint32_t n_entries;
  kg_pkg_section *secs;
  uint32_t n_secs;
  unsigned flags;              /* kg_pkg_parse's */
} kg_package;

/* Reads and checks a package held in memory (takes `bytes`, malloc'd). The fuzzer's flags:
 * KG_PKG_ANY_ABI accepts a package of another ABI (seeds outlive header changes),
 * KG_PKG_NO_HASH skips the content hashes (so mutations reach the readers behind them). */
enum { KG_PKG_ANY_ABI = 1, KG_PKG_NO_HASH = 2, KG_PKG_MAPPED = 4 /* bytes are mmap'd (munmap'd when freed) */ };
kg_package *kg_pkg_parse(unsigned char *bytes, size_t len, const char *path, unsigned flags, kg_diag *d);
void kg_pkg_free(kg_package *pk, kg_context *ctx);
/* A section's bytes after checking its hash (NULL + error when it does not match). */
const unsigned char *kg_pkg_section_bytes(kg_package *pk, int32_t sec, size_t *len, kg_diag *d);
/* The ABI this library writes and reads (a hash of what packaged kernels and plans rely on). */
void kg_pkg_abi(char out[17]);
/* module-level API (api.c calls these for a module that is a package) */
int kg_pkg_entry_index(kg_module *m, const char *entry); /* -1 + error naming the entries */
int kg_pkg_entry_n_params(kg_module *m, int ei);
int kg_pkg_entry_param(kg_module *m, int ei, int i, DLDataType *scalar_dtype);
/* the signature of entry ei that these tensors fit (-1 + an error naming the signatures) */
int kg_pkg_fit(kg_module *m, int ei, const DLTensor *const *inputs, int n_inputs, const kg_named_tensor *captures, int n_captures);
int kg_pkg_sig_named(kg_module *m, int ei, const char *sig); /* NULL: the first */

/* ---- package_load.c ---- */
/* One reconstructed program's packaged variants (kg_compiled.pkg). */
typedef struct kg_pkg_variant {
  uint32_t group;
  kg_variant v;
  uint64_t k_off, k_len;       /* its launch metadata: a slice of the kmeta section (parsed on first use) */
  uint64_t pre_off, pre_len, code_off, code_len, tramp_off, tramp_len; /* its CUDA C: a prefix its program's
                                     variants share, then its own text; its emulator trampolines */
} kg_pkg_variant;
typedef struct kg_pkg_prog {
  kg_package *pk;
  kg_pkg_sig *sig;
  kg_pkg_variant *vars;
  uint32_t n_vars;
  int64_t *sym;                /* kg_specialize_for: the sizes its tensors bound (per symbol of g), */
  uint8_t *bound;              /* so that kg_compiled_output reports concrete shapes */
} kg_pkg_prog;

/* inputs / captures (may be NULL): the tensors of kg_specialize_for, whose sizes the output shapes take */
kg_compiled *kg_pkg_specialize(kg_module *m, int ei, int si, const DLTensor *const *inputs, int n_inputs, const kg_named_tensor *captures,
                               int n_captures);
/* exec.c's hooks: the packaged variant (NULL + error when the package lacks it) and its module
 * on a device (CUDA: the signature's cubin or PTX; the emulator: its CUDA C, compiled as any) */
kg_kvariant *kg_pkg_variant_get(kg_compiled *c, uint32_t group, const kg_variant *v, kg_diag *d);
int kg_pkg_variant_load(kg_compiled *c, kg_kvariant *kv, kg_device *dev, kg_diag *d);
bool kg_pkg_twin(const kg_compiled *c, const kg_ts_opts *o, kg_strbuf *out, kg_diag *d);
kg_status kg_pkg_emit(kg_compiled *c, kg_artifact kind, int arch, char **data, size_t *len);
/* The arch a CUDA device of compute capability `dev` loads from the signature: a cubin's arch,
 * -arch for PTX, 0 when neither fits (the error names the package's archs). */
int kg_pkg_pick_arch(const kg_pkg_sig *s, int dev);
void kg_pkg_describe_sig(kg_package *pk, const kg_pkg_sig *s, kg_strbuf *b);

#endif
