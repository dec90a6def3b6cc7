/* runtime/nvrtc.c — CUDA C → PTX / cubin through NVRTC, loaded with dlopen.
 *
 * Main idea: NVRTC needs no GPU, so kgen compiles for any architecture offline
 * (sm_75 … sm_121 with NVRTC 13) and reads ptxas's own report of registers,
 * spills, stack and shared memory. The library is opened at run time, so kgen
 * builds and runs without the CUDA toolkit; every entry point is called through
 * a function pointer and every nvrtcResult goes through one checker that names
 * the call, the error and the program. With -arch=sm_XX, NVRTC 13 returns both
 * the PTX and the cubin of one compilation (older ones get a second, PTX-only
 * compilation). Measured here: ~20-40 ms for a small kernel (see tests).
 */
#include "rt.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef KG_HAVE_CUDA_HEADERS
#include <nvrtc.h>
#else
typedef int nvrtcResult; /* an enum in nvrtc.h: same ABI */
typedef struct _nvrtcProgram *nvrtcProgram;
#define NVRTC_SUCCESS 0
#endif

struct kg_nvrtc {
  void *lib;
  char *path;        /* what dlopen accepted */
  char version[16];  /* "13.0" */
  int archs[64];     /* supported sm_XX (empty when NVRTC cannot list them) */
  int n_archs;
  nvrtcResult (*Version)(int *, int *);
  nvrtcResult (*CreateProgram)(nvrtcProgram *, const char *, const char *, int,
                               const char *const *, const char *const *);
  nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char *const *);
  nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t *);
  nvrtcResult (*GetProgramLog)(nvrtcProgram, char *);
  nvrtcResult (*GetPTXSize)(nvrtcProgram, size_t *);
  nvrtcResult (*GetPTX)(nvrtcProgram, char *);
  nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t *); /* optional (NVRTC >= 11.1) */
  nvrtcResult (*GetCUBIN)(nvrtcProgram, char *);       /* optional */
  nvrtcResult (*DestroyProgram)(nvrtcProgram *);
  const char *(*GetErrorString)(nvrtcResult);
  nvrtcResult (*GetNumSupportedArchs)(int *); /* optional (NVRTC >= 11.2) */
  nvrtcResult (*GetSupportedArchs)(int *);    /* optional */
};

/* Checks one NVRTC call: records the call, the error name and the program. */
#define NV_CALL(n, d, prog, fn, args) nv_check((n), (d), (prog), "nvrtc" #fn, (n)->fn args)

static int nv_check(kg_nvrtc *n, kg_diag *d, const char *prog, const char *call, nvrtcResult r) {
  if (r == NVRTC_SUCCESS) return 0;
  kg_diag_add(d, KG_E_INTERNAL, NULL, NULL, "%s failed: %s (%d) [program %s]", call,
              n->GetErrorString ? n->GetErrorString(r) : "?", (int)r, prog ? prog : "-");
  return -1;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* ---- loading ---- */
static void *sym(void *lib, const char *name) { return dlsym(lib, name); }
#define NV_SYM(n, field, required)                                               \
  do {                                                                           \
    void *s_ = sym((n)->lib, "nvrtc" #field);                                    \
    if (!s_ && (required)) missing = "nvrtc" #field;                             \
    memcpy(&(n)->field, &s_, sizeof(n)->field); /* ISO C: object -> function */ \
  } while (0)

/* NVRTC opens its builtins library (libnvrtc-builtins.so.MAJ.MIN) by name; a copy outside the
 * loader's path (tools/setup.sh's .deps/nvrtc) has it beside itself. Loading that file first by
 * its path makes NVRTC's own dlopen find it already loaded (matched by soname). */
static void preload_builtins(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return; /* found through the loader's path: so is its builtins library */
  char dir[512];
  size_t n = (size_t)(slash - path);
  if (n >= sizeof dir) return;
  memcpy(dir, path, n);
  dir[n] = 0;
  DIR *dp = opendir(dir);
  if (!dp) return;
  struct dirent *e;
  while ((e = readdir(dp))) {
    /* libnvrtc-builtins.so.12.4 (the soname), not the versioned file name it links to */
    const char *v = !strncmp(e->d_name, "libnvrtc-builtins.so.", 21) ? e->d_name + 21 : NULL;
    if (!v || !strchr(v, '.') || strchr(v, '.') != strrchr(v, '.')) continue;
    char full[1024];
    snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
    (void)dlopen(full, RTLD_NOW | RTLD_GLOBAL); /* kept for the process, as libnvrtc is */
  }
  closedir(dp);
}

kg_nvrtc *kg_nvrtc_open(kg_diag *d) {
  const char *env = getenv("KGEN_NVRTC_LIB");
  const char *home = getenv("CUDA_HOME");
  char home_lib[512] = "";
  if (home && *home) snprintf(home_lib, sizeof home_lib, "%s/lib64/libnvrtc.so", home);
  /* the system's NVRTC first (the GPU machines' CUDA 13), then the copy tools/setup.sh unpacks
   * into the source tree (.deps/nvrtc: Debian's NVRTC 12.4) */
  const char *cands[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", home_lib,
                         "/usr/local/cuda/lib64/libnvrtc.so",
#ifdef KGEN_SOURCE_DIR
                         KGEN_SOURCE_DIR "/.deps/nvrtc/usr/lib/x86_64-linux-gnu/libnvrtc.so.12",
#endif
  };
  void *lib = NULL;
  const char *path = NULL;
  kg_strbuf errs;
  kg_sb_init(&errs);
  if (env && *env) { /* an explicit choice is not second-guessed */
    preload_builtins(env);
    lib = dlopen(env, RTLD_NOW | RTLD_LOCAL);
    path = env;
    if (!lib) kg_sb_printf(&errs, "\n  %s", dlerror());
  } else {
    for (size_t i = 0; i < KG_COUNTOF(cands) && !lib; i++) {
      if (!*cands[i]) continue;
      if (cands[i][0] == '/' && access(cands[i], R_OK)) {
        kg_sb_printf(&errs, "\n  %s: not there", cands[i]);
        continue;
      }
      preload_builtins(cands[i]);
      lib = dlopen(cands[i], RTLD_NOW | RTLD_LOCAL);
      path = cands[i];
      if (!lib) kg_sb_printf(&errs, "\n  %s", dlerror());
    }
  }
  if (!lib) {
    kg_diag_add(d, KG_E_DEVICE, NULL, NULL,
                "NVRTC not found (set $KGEN_NVRTC_LIB to libnvrtc.so):%s", kg_sb_cstr(&errs));
    kg_sb_free(&errs);
    return NULL;
  }
  kg_sb_free(&errs);
  kg_nvrtc *n = kg_xcalloc(1, sizeof *n);
  n->lib = lib;
  n->path = kg_xstrdup(path);
  const char *missing = NULL;
  NV_SYM(n, Version, 1);
  NV_SYM(n, CreateProgram, 1);
  NV_SYM(n, CompileProgram, 1);
  NV_SYM(n, GetProgramLogSize, 1);
  NV_SYM(n, GetProgramLog, 1);
  NV_SYM(n, GetPTXSize, 1);
  NV_SYM(n, GetPTX, 1);
  NV_SYM(n, GetCUBINSize, 0);
  NV_SYM(n, GetCUBIN, 0);
  NV_SYM(n, DestroyProgram, 1);
  NV_SYM(n, GetErrorString, 1);
  NV_SYM(n, GetNumSupportedArchs, 0);
  NV_SYM(n, GetSupportedArchs, 0);
  if (missing) {
    kg_diag_add(d, KG_E_DEVICE, NULL, NULL, "%s lacks %s (too old an NVRTC?)", n->path, missing);
    kg_nvrtc_close(n);
    return NULL;
  }
  int maj = 0, min = 0;
  if (NV_CALL(n, d, NULL, Version, (&maj, &min))) {
    kg_nvrtc_close(n);
    return NULL;
  }
  snprintf(n->version, sizeof n->version, "%d.%d", maj, min);
  int na = 0;
  if (n->GetNumSupportedArchs && n->GetSupportedArchs && !n->GetNumSupportedArchs(&na) &&
      na > 0 && na <= (int)KG_COUNTOF(n->archs) && !n->GetSupportedArchs(n->archs))
    n->n_archs = na;
  return n;
}

void kg_nvrtc_close(kg_nvrtc *n) {
  if (!n) return;
  /* libnvrtc stays mapped (no dlclose): unmapping its C++ runtime orphans the
   * runtime's own allocations (LeakSanitizer reports 72704 bytes), and a later
   * kg_nvrtc_open then costs a dlopen of the same, already mapped, library. */
  free(n->path);
  free(n);
}

const char *kg_nvrtc_version(kg_nvrtc *n) { return n ? n->version : "none"; }

/* ---- ptxas -v report ---- */
typedef struct nv_fn {
  kg_kstats s;
  int entry; /* seen in "Compiling entry function" */
} nv_fn;

typedef KG_VEC(nv_fn) nv_fns;

/* Index of `name` in fns, added when new (indices survive the vector growing). */
static uint32_t fn_get(nv_fns *fns, const char *name, size_t len) {
  if (len >= sizeof fns->v[0].s.name) len = sizeof fns->v[0].s.name - 1;
  for (uint32_t i = 0; i < fns->n; i++)
    if (!strncmp(fns->v[i].s.name, name, len) && !fns->v[i].s.name[len]) return i;
  nv_fn f;
  memset(&f, 0, sizeof f);
  memcpy(f.s.name, name, len);
  KG_VEC_PUSH(*fns, f);
  return fns->n - 1;
}
/* The number just before `unit` in `line` (e.g. "1024 bytes smem"), or 0. */
static int num_before(const char *line, const char *unit) {
  const char *u = strstr(line, unit);
  if (!u) return 0;
  const char *p = u;
  while (p > line && p[-1] == ' ') p--;
  while (p > line && p[-1] >= '0' && p[-1] <= '9') p--;
  return atoi(p);
}
/* Parses lines such as
 *   ptxas info    : Compiling entry function 'add1' for 'sm_80'
 *   ptxas info    : Function properties for add1
 *   ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
 *   ptxas info    : Used 10 registers, used 0 barriers, 1024 bytes smem, 372 bytes cmem[0]
 * into one kg_kstats per entry function (device functions are dropped). */
static void parse_ptxas(const char *log, kg_nvrtc_out *out) {
  nv_fns fns = {0};
  const uint32_t none = UINT32_MAX;
  uint32_t cur = none;   /* entry being compiled: "Used ..." belongs to it */
  uint32_t props = none; /* function whose stack/spill line comes next */
  for (const char *line = log; line && *line;) {
    const char *eol = strchr(line, '\n');
    size_t len = eol ? (size_t)(eol - line) : strlen(line);
    char buf[512];
    if (len >= sizeof buf) len = sizeof buf - 1;
    memcpy(buf, line, len);
    buf[len] = 0;
    const char *p;
    if ((p = strstr(buf, "Compiling entry function '"))) {
      p += strlen("Compiling entry function '");
      const char *q = strchr(p, '\'');
      cur = fn_get(&fns, p, q ? (size_t)(q - p) : strlen(p));
      fns.v[cur].entry = 1;
      props = none;
    } else if ((p = strstr(buf, "Function properties for "))) {
      p += strlen("Function properties for ");
      size_t n = strlen(p);
      while (n && (p[n - 1] == ' ' || p[n - 1] == '\r')) n--;
      props = fn_get(&fns, p, n);
    } else if (strstr(buf, "bytes stack frame")) {
      if (props != none) {
        kg_kstats *s = &fns.v[props].s;
        s->stack = num_before(buf, " bytes stack frame");
        s->spill_stores = num_before(buf, " bytes spill stores");
        s->spill_loads = num_before(buf, " bytes spill loads");
      }
      props = none;
    } else if ((p = strstr(buf, "Used ")) && strstr(buf, " registers") && cur != none) {
      fns.v[cur].s.regs = atoi(p + 5);
      fns.v[cur].s.smem = num_before(buf, " bytes smem");
    }
    line = eol ? eol + 1 : NULL;
  }
  uint32_t ne = 0;
  for (uint32_t i = 0; i < fns.n; i++) ne += fns.v[i].entry != 0;
  out->stats = ne ? kg_xcalloc(ne, sizeof *out->stats) : NULL;
  out->n_stats = 0;
  for (uint32_t i = 0; i < fns.n; i++)
    if (fns.v[i].entry) out->stats[out->n_stats++] = fns.v[i].s;
  KG_VEC_FREE(fns);
}

/* ---- compiling ---- */
/* Saves the source for the error report; returns a malloc'd path or reason. */
static char *dump_source(const char *src, const char *dump_dir) {
  const char *dir = dump_dir;
  if (!dir || !*dir) dir = getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  char hex[17];
  kg_hash_hex(kg_hash_str(src), hex);
  kg_strbuf b;
  kg_sb_init(&b);
  kg_sb_printf(&b, "%s/kgen-%s.cu", dir, hex);
  if ((dump_dir && kg_mkdirs(dir)) || kg_write_file(b.s, src, strlen(src))) {
    int e = errno;
    kg_sb_free(&b);
    kg_sb_printf(&b, "(nowhere: cannot write to %s: %s)", dir, strerror(e));
  }
  return kg_sb_take(&b);
}

static char *program_log(kg_nvrtc *n, nvrtcProgram p) {
  size_t len = 0;
  if (n->GetProgramLogSize(p, &len) || len == 0) return kg_xstrdup("");
  char *log = kg_xcalloc(1, len + 1);
  if (n->GetProgramLog(p, log)) log[0] = 0;
  size_t l = strlen(log); /* NVRTC ends logs with a newline: trim it */
  while (l && (log[l - 1] == '\n' || log[l - 1] == '\r')) log[--l] = 0;
  return log;
}

/* One NVRTC compilation; on success p is left for the caller to read and destroy. */
static int compile_once(kg_nvrtc *n, const char *prog, const char *src, int arch, bool real,
                        const char *dump_dir, nvrtcProgram *pp, char **log, double *ms,
                        kg_diag *d) {
  char arch_opt[32];
  snprintf(arch_opt, sizeof arch_opt, "-arch=%s_%d%s", real ? "sm" : "compute", arch & 0xffff, (arch & KG_ARCH_FEAT) ? "a" : "");
  const char *opts[] = {arch_opt, "--fmad=true", "-default-device", "--ptxas-options=-v"};
  int nopts = real ? 4 : 3;
  nvrtcProgram p = NULL;
  if (NV_CALL(n, d, prog, CreateProgram, (&p, src, prog, 0, NULL, NULL))) return -1;
  double t0 = now_ms();
  nvrtcResult r = n->CompileProgram(p, nopts, opts);
  *ms += now_ms() - t0;
  *log = program_log(n, p);
  if (r != NVRTC_SUCCESS) {
    char *saved = dump_source(src, dump_dir);
    kg_diag_add(d, KG_E_INTERNAL, NULL, NULL,
                "NVRTC %s failed to compile '%s' for %s_%d%s: nvrtcCompileProgram: %s (%d)\n%s\n"
                "  source saved at %s",
                n->version, prog, real ? "sm" : "compute", arch & 0xffff, (arch & KG_ARCH_FEAT) ? "a" : "", n->GetErrorString(r), (int)r,
                **log ? *log : "(empty log)", saved);
    free(saved);
    n->DestroyProgram(&p);
    return -1;
  }
  *pp = p;
  return 0;
}

static int get_ptx(kg_nvrtc *n, nvrtcProgram p, const char *prog, kg_nvrtc_out *out, kg_diag *d) {
  size_t len = 0;
  if (NV_CALL(n, d, prog, GetPTXSize, (p, &len))) return -1;
  if (len <= 1) return 1; /* none: compiled for a real architecture by an older NVRTC */
  out->ptx = kg_xcalloc(1, len + 1);
  if (NV_CALL(n, d, prog, GetPTX, (p, out->ptx))) return -1;
  out->ptx_len = strlen(out->ptx);
  return 0;
}

int kg_nvrtc_compile(kg_nvrtc *n, const char *prog_name, const char *src, int arch,
                     bool want_cubin, const char *dump_dir, kg_nvrtc_out *out, kg_diag *d) {
  memset(out, 0, sizeof *out);
  const char *prog = prog_name && *prog_name ? prog_name : "kernel.cu";
  if (!n || !src) {
    kg_diag_add(d, KG_E_ARG, NULL, NULL, "kg_nvrtc_compile(%s): no NVRTC or no source", prog);
    return -1;
  }
  if (n->n_archs) {
    int ok = 0;
    for (int i = 0; i < n->n_archs; i++) ok |= n->archs[i] == (arch & 0xffff);
    if (!ok) {
      kg_strbuf b;
      kg_sb_init(&b);
      for (int i = 0; i < n->n_archs; i++) kg_sb_printf(&b, " sm_%d", n->archs[i]);
      kg_diag_add(d, KG_E_ARG, NULL, NULL, "NVRTC %s cannot compile '%s' for sm_%d (it supports%s)",
                  n->version, prog, arch, kg_sb_cstr(&b));
      kg_sb_free(&b);
      return -1;
    }
  }
  if (want_cubin && (!n->GetCUBINSize || !n->GetCUBIN)) {
    kg_diag_add(d, KG_E_DEVICE, NULL, NULL, "NVRTC %s (%s) cannot produce cubins", n->version,
                n->path);
    return -1;
  }
  nvrtcProgram p = NULL;
  int rc;
  if (compile_once(n, prog, src, arch, want_cubin, dump_dir, &p, &out->log, &out->compile_ms, d))
    goto fail;
  rc = get_ptx(n, p, prog, out, d);
  if (rc < 0) goto fail;
  if (want_cubin) {
    size_t len = 0;
    if (NV_CALL(n, d, prog, GetCUBINSize, (p, &len))) goto fail;
    if (!len) {
      kg_diag_add(d, KG_E_INTERNAL, NULL, NULL, "NVRTC returned an empty cubin for '%s'", prog);
      goto fail;
    }
    out->cubin = kg_xmalloc(len);
    out->cubin_len = len;
    if (NV_CALL(n, d, prog, GetCUBIN, (p, out->cubin))) goto fail;
    parse_ptxas(out->log, out);
  }
  n->DestroyProgram(&p);
  if (rc == 1) { /* no PTX alongside the cubin: a second, virtual-arch compilation */
    char *log2 = NULL;
    if (compile_once(n, prog, src, arch, false, dump_dir, &p, &log2, &out->compile_ms, d)) {
      free(log2);
      goto fail;
    }
    free(log2);
    rc = get_ptx(n, p, prog, out, d);
    n->DestroyProgram(&p);
    if (rc) {
      if (rc > 0)
        kg_diag_add(d, KG_E_INTERNAL, NULL, NULL, "NVRTC returned no PTX for '%s'", prog);
      goto fail;
    }
  }
  return 0;
fail:
  if (p) n->DestroyProgram(&p);
  kg_nvrtc_out_free(out);
  return -1;
}

void kg_nvrtc_out_free(kg_nvrtc_out *o) {
  if (!o) return;
  free(o->ptx), free(o->cubin), free(o->log), free(o->stats);
  memset(o, 0, sizeof *o);
}
