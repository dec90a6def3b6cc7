/* runtime/dev_emu.c — the CPU emulator device: runs kgen's CUDA C on the host.
 *
 * Main idea: the kernel text NVRTC would compile is compiled by the host C
 * compiler instead, after codegen-cuda/kg_emu.h (embedded in the library as
 * kg_emu_header_text), into a shared object that is dlopen'd; the object's own
 * kg_emu_launch runs the grid (fibers, barriers, thread orders: see kg_emu.h).
 * "Device memory" is host memory, so pointers pass straight through.
 *
 * Files (under the cache folder: cfg->cache_dir, $KGEN_CACHE_DIR,
 * $XDG_CACHE_HOME/kgen or ~/.cache/kgen; a per-process temp folder if none works):
 *   emu/kg_emu_<hash>.h      the header, written once per header version;
 *   emu/<name>-<key>.c       the translation unit, kept so errors can point at it;
 *   objects/emu-so-*.kgc     compiled objects in the kg_cache (cache.c), keyed by
 *                            the full C text, the compiler command line and the
 *                            compiler binary's identity, integrity-checked;
 *   $TMPDIR/kgen-emu-XXXXXX/ private per device: the copy of each object that is
 *                            dlopen'd (so every load is independent) and compiler logs.
 * The compiler ($KGEN_CC or cfg->cc, else "cc"; words split on blanks, plus
 * $KGEN_EMU_CFLAGS) runs through posix_spawn with stderr captured to a file.
 * A kg_device is used by one thread at a time.
 */
#include "rt.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Part of every cache key: bump when the launcher / trampoline ABI changes. */
#define EMU_ABI "kgen-emu 1"
#define EMU_MAX_LOG 16384          /* bytes of compiler output kept in a diagnostic */
#define EMU_MAX_DYN_SMEM 232448u   /* 227 KiB: the largest opt-in of sm_90 / sm_100 */

typedef int (*emu_launch_fn)(void (*)(void **), void **, const unsigned[3], const unsigned[3],
                             size_t, int, unsigned, char *, size_t);

typedef struct emu_module {
  void *so;            /* dlopen handle */
  char *so_path;       /* the private copy that was loaded; removed at unload */
  char *name;          /* program name (for messages) */
  emu_launch_fn launch; /* kg_emu_launch inside the object */
} emu_module;

typedef KG_VEC(char *) emu_argv;

typedef struct emu_dev {
  kg_device base;
  emu_argv cc;       /* compiler words + fixed flags + $KGEN_EMU_CFLAGS (no -o / input) */
  char *cc_line;     /* cc joined by blanks, for keys and messages */
  char *ccid;        /* identity of the compiler binary: "path size mtime" */
  kg_rt_counts *counts; /* compilations and cache hits (the context's statistics), or NULL */
  char *srcdir;      /* holds kg_emu_<hash>.h and the .c files */
  char *work;        /* private temp folder */
  kg_cache *cache;
  kg_emu_opts opts;
  char hdr_name[40]; /* kg_emu_<hash>.h */
  unsigned seq;      /* unique names in `work` */
} emu_dev;

/* ---- small helpers ---- */
static char *str_printf(const char *fmt, ...) KG_PRINTF(1, 2);
static char *str_printf(const char *fmt, ...) {
  kg_strbuf b;
  kg_sb_init(&b);
  va_list ap;
  va_start(ap, fmt);
  kg_sb_vprintf(&b, fmt, ap);
  va_end(ap);
  return kg_sb_take(&b);
}
static void split_words(emu_argv *v, const char *s) {
  while (s && *s) {
    while (*s == ' ' || *s == '\t') s++;
    const char *e = s;
    while (*e && *e != ' ' && *e != '\t') e++;
    if (e > s) {
      char *w = kg_xmalloc((size_t)(e - s) + 1);
      memcpy(w, s, (size_t)(e - s));
      w[e - s] = 0;
      KG_VEC_PUSH(*v, w);
    }
    s = e;
  }
}
/* Program names become file names: keep [A-Za-z0-9_.-], at most 48 bytes. */
static void safe_name(const char *name, char out[49]) {
  size_t n = 0;
  for (const char *s = name ? name : "kernel"; *s && n < 48; s++) {
    char c = *s;
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '_' || c == '-' || (c == '.' && n > 0);
    out[n++] = ok ? c : '_';
  }
  if (!n) out[n++] = 'k';
  out[n] = 0;
}
/* "path size mtime" of argv0 (searched in $PATH), so a changed compiler misses. */
static char *compiler_identity(const char *argv0) {
  struct stat st;
  if (strchr(argv0, '/'))
    return stat(argv0, &st) ? kg_xstrdup(argv0)
                            : str_printf("%s %lld %lld", argv0, (long long)st.st_size,
                                         (long long)st.st_mtime);
  const char *path = getenv("PATH");
  if (!path) path = "/usr/bin:/bin";
  while (*path) {
    const char *e = strchr(path, ':');
    size_t n = e ? (size_t)(e - path) : strlen(path);
    char *cand = str_printf("%.*s/%s", (int)n, path, argv0);
    if (!stat(cand, &st) && S_ISREG(st.st_mode)) {
      char *id = str_printf("%s %lld %lld", cand, (long long)st.st_size, (long long)st.st_mtime);
      free(cand);
      return id;
    }
    free(cand);
    path += n + (e ? 1 : 0);
  }
  return kg_xstrdup(argv0);
}
/* Removes a private folder we created (files and one level of sub-folders). */
static void rm_tree(const char *path, int depth) {
  DIR *dir = opendir(path);
  if (dir) {
    struct dirent *e;
    while ((e = readdir(dir))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      char *p = str_printf("%s/%s", path, e->d_name);
      struct stat st;
      if (!lstat(p, &st) && S_ISDIR(st.st_mode)) {
        if (depth > 0) rm_tree(p, depth - 1);
      } else {
        unlink(p);
      }
      free(p);
    }
    closedir(dir);
  }
  rmdir(path);
}
static char *cache_root(const kg_rt_config *cfg) {
  if (cfg && cfg->cache_dir && *cfg->cache_dir) return kg_xstrdup(cfg->cache_dir);
  const char *e = getenv("KGEN_CACHE_DIR");
  if (e && *e) return kg_xstrdup(e);
  e = getenv("XDG_CACHE_HOME");
  if (e && *e) return str_printf("%s/kgen", e);
  e = getenv("HOME");
  if (e && *e) return str_printf("%s/.cache/kgen", e);
  return NULL;
}
/* Writes a private, throw-away file (no fsync: it lives as long as the module). */
static int write_private(const char *path, const void *data, size_t n) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return -1;
  const char *p = data;
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      close(fd);
      return -1;
    }
    p += w, n -= (size_t)w;
  }
  return close(fd);
}
/* Makes sure <dir>/<hdr_name> holds exactly the embedded header; 0 on success. */
static int ensure_header(emu_dev *e, const char *dir) {
  char *path = str_printf("%s/%s", dir, e->hdr_name);
  size_t n = 0, want = strlen(kg_emu_header_text);
  char *have = kg_read_file(path, &n);
  int rc = 0;
  if (!have || n != want || memcmp(have, kg_emu_header_text, n))
    rc = kg_write_file(path, kg_emu_header_text, want);
  free(have);
  free(path);
  return rc;
}

/* Checks a launch against CUDA's limits, as a GPU would. */
static int check_launch(const char *kernel, const uint32_t g[3], const uint32_t b[3],
                        uint32_t dyn_smem, kg_diag *d) {
  unsigned long long nt = (unsigned long long)b[0] * b[1] * b[2];
  const char *why = NULL;
  if (!g[0] || !g[1] || !g[2] || !b[0] || !b[1] || !b[2]) why = "a dimension is 0";
  else if (nt > 1024) why = "more than 1024 threads per block";
  else if (b[0] > 1024 || b[1] > 1024) why = "block.x and block.y are at most 1024";
  else if (b[2] > 64) why = "block.z is at most 64";
  else if (g[0] > 2147483647u) why = "grid.x is at most 2^31-1";
  else if (g[1] > 65535 || g[2] > 65535) why = "grid.y and grid.z are at most 65535";
  else if (dyn_smem > EMU_MAX_DYN_SMEM) why = "dynamic shared memory above 227 KiB";
  if (!why) return 0;
  kg_diag_add(d, KG_E_LIMIT, NULL, NULL,
              "invalid launch of kernel '%s': grid (%u,%u,%u), block (%u,%u,%u) = %llu threads, "
              "%u bytes dynamic shared memory: %s",
              kernel, g[0], g[1], g[2], b[0], b[1], b[2], nt, dyn_smem, why);
  return -1;
}

/* ---- the compiler ---- */
/* Runs the compiler on `csrc` producing `so`; 0 on success, else a diagnostic. */
static int run_cc(emu_dev *e, const char *name, const char *csrc, const char *so, kg_diag *d) {
  char *log = str_printf("%s.log", so);
  emu_argv argv = {0};
  for (uint32_t i = 0; i < e->cc.n; i++) KG_VEC_PUSH(argv, e->cc.v[i]);
  char *tail[4] = {kg_xstrdup("-o"), kg_xstrdup(so), kg_xstrdup(csrc), kg_xstrdup("-lm")};
  for (int i = 0; i < 4; i++) KG_VEC_PUSH(argv, tail[i]);
  KG_VEC_PUSH(argv, (char *)NULL);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 2, 1);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv.v[0], &fa, NULL, argv.v, environ);
  posix_spawn_file_actions_destroy(&fa);
  KG_VEC_FREE(argv);
  for (int i = 0; i < 4; i++) free(tail[i]);
  if (rc) {
    kg_diag_add(d, KG_E_INTERNAL, NULL, NULL,
                "emulator: cannot run the C compiler '%s' for '%s': %s (set $KGEN_CC)",
                e->cc.v[0], name, strerror(rc));
    free(log);
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      status = -1;
      break;
    }
  }
  if (status == 0) {
    unlink(log);
    free(log);
    return 0;
  }
  size_t n = 0;
  char *out = kg_read_file(log, &n);
  if (out && n > EMU_MAX_LOG) strcpy(out + EMU_MAX_LOG - 16, "\n[...cut...]\n");
  char *how = status == -1             ? str_printf("waitpid failed")
              : WIFEXITED(status)      ? str_printf("exit status %d", WEXITSTATUS(status))
              : WIFSIGNALED(status)    ? str_printf("killed by signal %d", WTERMSIG(status))
                                       : str_printf("status %d", status);
  kg_diag_add(d, KG_E_INTERNAL, NULL, NULL,
              "emulator: the C compiler failed on '%s' (%s):\n%s\n  source saved at %s\n"
              "  command: %s -o %s %s -lm",
              name, how, out && *out ? out : "(no output)", csrc, e->cc_line, so, csrc);
  free(how);
  free(out);
  unlink(log);
  free(log);
  return -1;
}

/* dlopens `so` and finds kg_emu_launch; returns the module or NULL. */
static emu_module *open_so(const char *name, char *so, kg_diag *d, int quiet) {
  void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    if (!quiet)
      kg_diag_add(d, KG_E_INTERNAL, NULL, NULL, "emulator: cannot load the object for '%s': %s",
                  name, dlerror());
    return NULL;
  }
  void *sym = dlsym(h, "kg_emu_launch");
  if (!sym) {
    if (!quiet)
      kg_diag_add(d, KG_E_INTERNAL, NULL, NULL,
                  "emulator: the object for '%s' has no kg_emu_launch (kg_emu.h not included?)",
                  name);
    dlclose(h);
    return NULL;
  }
  emu_module *m = kg_xcalloc(1, sizeof *m);
  m->so = h;
  m->so_path = so;
  m->name = kg_xstrdup(name);
  memcpy(&m->launch, &sym, sizeof m->launch); /* ISO C: no object -> function cast */
  return m;
}

/* ---- the vtable ---- */
static int emu_alloc(kg_device *dv, size_t bytes, void **ptr, kg_diag *d) {
  size_t n = (bytes + 63) & ~(size_t)63;
  if (!n || n < bytes) n = 64;
  void *p = NULL;
  if (n < bytes || posix_memalign(&p, 64, n)) {
    kg_diag_add(d, KG_E_DEVICE, NULL, NULL, "emulator: out of memory allocating %zu bytes", bytes);
    return -1;
  }
  memset(p, 0xff, n); /* like cuMemAlloc, never zeroed: 0xff bytes read as NaN / -1 */
  *ptr = p;
  return 0;
}
static void emu_free(kg_device *dv, void *ptr) { free(ptr); }
static int emu_copy(void *dst, const void *src, size_t n, kg_diag *d) {
  if (n && (!dst || !src)) {
    kg_diag_add(d, KG_E_ARG, NULL, NULL, "emulator: copy of %zu bytes with a NULL pointer", n);
    return -1;
  }
  if (n) memmove(dst, src, n);
  return 0;
}
static int emu_h2d(kg_device *dv, void *dst, const void *src, size_t n, kg_diag *d) {
  return emu_copy(dst, src, n, d);
}
static int emu_d2h(kg_device *dv, void *dst, const void *src, size_t n, kg_diag *d) {
  return emu_copy(dst, src, n, d);
}

static int emu_load(kg_device *dv, const kg_rt_source *src, kg_rt_module **mod, kg_diag *d) {
  emu_dev *e = (emu_dev *)dv;
  *mod = NULL;
  if (!src || !src->cuda) {
    kg_diag_add(d, KG_E_ARG, NULL, NULL, "emulator: load without CUDA source");
    return -1;
  }
  char name[49];
  safe_name(src->name, name);
  /* The translation unit; #line makes compiler messages point into the CUDA text. */
  kg_strbuf c;
  kg_sb_init(&c);
  kg_sb_printf(&c, "#include \"%s\"\n#line 1 \"%s.cu\"\n%s\n#line 1 \"%s.trampolines.c\"\n%s\n",
               e->hdr_name, name, src->cuda, name, src->trampolines ? src->trampolines : "");
  /* The key: everything that determines the object's bytes. */
  kg_strbuf key;
  kg_sb_init(&key);
  kg_sb_printf(&key, "%s\ncc: %s\nccid: %s\nheader: %s\n", EMU_ABI, e->cc_line, e->ccid,
               e->hdr_name);
  kg_sb_putn(&key, c.s, c.len);
  char hex[17];
  kg_hash_hex(kg_hash64(key.s, key.len, 0), hex);
  emu_module *m = NULL;

  size_t n = 0;
  void *bytes = kg_cache_get(e->cache, "emu-so", key.s, key.len, &n);
  if (bytes) { /* hit: load a private copy of the checked bytes */
    char *so = str_printf("%s/%s-%s-%u.so", e->work, name, hex, e->seq++);
    if (!write_private(so, bytes, n)) m = open_so(name, so, d, 1);
    if (!m) unlink(so), free(so); /* fall through to a fresh compile */
    else if (e->counts) e->counts->emu_cache_hits++;
    free(bytes);
  }
  if (!m) {
    char *csrc = str_printf("%s/%s-%s.c", e->srcdir, name, hex);
    char *so = str_printf("%s/%s-%s-%u.so", e->work, name, hex, e->seq++);
    if (ensure_header(e, e->srcdir) || kg_write_file(csrc, c.s, c.len)) {
      kg_diag_add(d, KG_E_IO, NULL, NULL, "emulator: cannot write %s: %s", csrc, strerror(errno));
    } else if (!run_cc(e, name, csrc, so, d)) {
      if (e->counts) e->counts->emu_compiles++;
      size_t sn = 0;
      char *sb = kg_read_file(so, &sn);
      if (sb) kg_cache_put(e->cache, "emu-so", key.s, key.len, sb, sn);
      free(sb);
      m = open_so(name, so, d, 0);
    }
    if (!m) unlink(so), free(so);
    free(csrc);
  }
  kg_sb_free(&key);
  kg_sb_free(&c);
  if (!m) return -1;
  *mod = (kg_rt_module *)m;
  return 0;
}

static void emu_unload(kg_device *dv, kg_rt_module *mod) {
  emu_module *m = (emu_module *)mod;
  if (!m) return;
  dlclose(m->so);
  unlink(m->so_path);
  free(m->so_path), free(m->name), free(m);
}

static int emu_launch(kg_device *dv, kg_rt_module *mod, const char *kernel, const uint32_t grid[3],
                      const uint32_t block[3], uint32_t dyn_smem, void **params, void *stream,
                      kg_diag *d) {
  emu_dev *e = (emu_dev *)dv;
  emu_module *m = (emu_module *)mod;
  if (!m || !kernel) {
    kg_diag_add(d, KG_E_ARG, NULL, NULL, "emulator: launch without a module or kernel name");
    return -1;
  }
  if (check_launch(kernel, grid, block, dyn_smem, d)) return -1;
  char *sym_name = str_printf("%s__kg_thread", kernel);
  void *sym = dlsym(m->so, sym_name);
  free(sym_name);
  if (!sym) {
    kg_diag_add(d, KG_E_INTERNAL, NULL, NULL,
                "emulator: module '%s' has no kernel '%s' (no trampoline %s__kg_thread)", m->name,
                kernel, kernel);
    return -1;
  }
  void (*fn)(void **);
  memcpy(&fn, &sym, sizeof fn);
  char err[1024];
  unsigned g[3] = {grid[0], grid[1], grid[2]}, b[3] = {block[0], block[1], block[2]};
  if (m->launch(fn, params, g, b, dyn_smem, e->opts.order, e->opts.seed, err, sizeof err)) {
    kg_diag_add(d, KG_E_INTERNAL, NULL, NULL,
                "emulator: kernel '%s' of '%s' (grid (%u,%u,%u), block (%u,%u,%u), %s order) "
                "failed: %s",
                kernel, m->name, g[0], g[1], g[2], b[0], b[1], b[2],
                e->opts.order == 0 ? "forward" : e->opts.order == 1 ? "reverse" : "random",
                err[0] ? err : "(no message)");
    return -1;
  }
  return 0;
}

static int emu_sync(kg_device *dv, void *stream, kg_diag *d) { return 0; }

static void emu_destroy(kg_device *dv) {
  emu_dev *e = (emu_dev *)dv;
  if (!e) return;
  kg_cache_close(e->cache);
  if (e->work) rm_tree(e->work, 2);
  for (uint32_t i = 0; i < e->cc.n; i++) free(e->cc.v[i]);
  KG_VEC_FREE(e->cc);
  free(e->cc_line), free(e->ccid), free(e->srcdir), free(e->work);
  free(e);
}

/* A tensor map in the emulator's own format, by the module's kg_emu_tmap_encode (kg_emu_tc.h),
 * which checks what cuTensorMapEncodeTiled checks. */
static int emu_tmap(kg_device *dv, kg_rt_module *mod, const kg_tmap_req *q, void *out, kg_diag *d) {
  (void)dv;
  emu_module *m = (emu_module *)mod;
  void *sym = m ? dlsym(m->so, "kg_emu_tmap_encode") : NULL;
  if (!sym) {
    kg_diag_add(d, KG_E_INTERNAL, NULL, NULL, "emulator: module '%s' has no kg_emu_tmap_encode", m ? m->name : "?");
    return -1;
  }
  int (*enc)(void *, const void *, unsigned, unsigned, const unsigned long long *, const unsigned long long *, const unsigned *, unsigned,
             char *, size_t);
  memcpy(&enc, &sym, sizeof enc);
  unsigned long long dims[3] = {q->dims[0], q->dims[1], q->dims[2]}, strides[3] = {q->strides[0], q->strides[1], q->strides[2]};
  unsigned box[3] = {q->box[0], q->box[1], q->box[2]};
  char why[200] = "";
  if (enc(out, q->base, q->rank, q->esz, dims, strides, box, q->swizzle, why, sizeof why)) {
    kg_diag_add(d, KG_E_INTERNAL, NULL, NULL, "emulator: tensor map of a [%llu, %llu, %llu] operand (box %u x %u): %s", dims[0], dims[1],
                q->rank > 2 ? dims[2] : 1ull, box[0], box[1], why);
    return -1;
  }
  return 0;
}

static const kg_device_vt emu_vt = {
    .name = "emu",
    .kind = KG_DEVICE_EMU,
    .alloc = emu_alloc,
    .free = emu_free,
    .h2d = emu_h2d,
    .d2h = emu_d2h,
    .load = emu_load,
    .unload = emu_unload,
    .launch = emu_launch,
    .sync = emu_sync,
    .destroy = emu_destroy,
    .tmap = emu_tmap,
};

/* Thread order: cfg->emu, or $KGEN_EMU_ORDER (forward|reverse|random|0|1|2) and
 * $KGEN_EMU_SEED when cfg leaves the default, so a whole suite can be rerun in
 * another order. */
static kg_emu_opts emu_opts(const kg_rt_config *cfg) {
  kg_emu_opts o = cfg ? cfg->emu : (kg_emu_opts){0, 0};
  if (o.order == 0 && o.seed == 0) {
    const char *s = getenv("KGEN_EMU_ORDER");
    if (s && (!strcmp(s, "reverse") || !strcmp(s, "1"))) o.order = 1;
    if (s && (!strcmp(s, "random") || !strcmp(s, "2"))) o.order = 2;
    const char *seed = getenv("KGEN_EMU_SEED");
    if (seed) o.seed = (unsigned)strtoul(seed, NULL, 0);
  }
  if (o.order < 0 || o.order > 2) o.order = 0;
  return o;
}

kg_device *kg_dev_emu_new(const kg_rt_config *cfg, kg_diag *d) {
  emu_dev *e = kg_xcalloc(1, sizeof *e);
  e->base.vt = &emu_vt;
  e->opts = emu_opts(cfg);
  e->counts = cfg ? cfg->counts : NULL;
  /* The compiler command. */
  const char *cc = cfg && cfg->cc && *cfg->cc ? cfg->cc : getenv("KGEN_CC");
  split_words(&e->cc, cc && *cc ? cc : "cc");
  if (!e->cc.n) split_words(&e->cc, "cc");
  static const char *const fixed[] = {"-std=c11", "-O1", "-fPIC", "-shared", "-ffp-contract=off",
                                      "-fno-fast-math", "-fno-strict-aliasing", "-D_GNU_SOURCE",
                                      "-w"};
  for (size_t i = 0; i < KG_COUNTOF(fixed); i++) KG_VEC_PUSH(e->cc, kg_xstrdup(fixed[i]));
#if defined(__x86_64__)
  /* kg_emu.h switches fibers with its own code, which a CET shadow stack would refuse. */
  KG_VEC_PUSH(e->cc, kg_xstrdup("-fcf-protection=none"));
#endif
  split_words(&e->cc, getenv("KGEN_EMU_CFLAGS"));
  kg_strbuf line;
  kg_sb_init(&line);
  for (uint32_t i = 0; i < e->cc.n; i++) kg_sb_printf(&line, "%s%s", i ? " " : "", e->cc.v[i]);
  e->cc_line = kg_sb_take(&line);
  e->ccid = compiler_identity(e->cc.v[0]);
  char hex[17];
  kg_hash_hex(kg_hash_str(kg_emu_header_text), hex);
  snprintf(e->hdr_name, sizeof e->hdr_name, "kg_emu_%s.h", hex);
  /* The private folder. */
  const char *tmp = getenv("TMPDIR");
  const char *bases[] = {tmp && *tmp ? tmp : "/tmp", "/tmp", "/var/tmp"};
  for (size_t i = 0; i < KG_COUNTOF(bases) && !e->work; i++) {
    char *t = str_printf("%s/kgen-emu-XXXXXX", bases[i]);
    if (mkdtemp(t)) e->work = t;
    else free(t);
  }
  if (!e->work) {
    kg_diag_add(d, KG_E_IO, NULL, NULL, "emulator: cannot create a temp folder in %s: %s",
                bases[0], strerror(errno));
    emu_destroy(&e->base);
    return NULL;
  }
  /* The cache folder, or the private folder when it cannot be used. */
  char *root = cache_root(cfg);
  if (root) {
    e->srcdir = str_printf("%s/emu", root);
    if (kg_mkdirs(e->srcdir) || ensure_header(e, e->srcdir)) {
      free(e->srcdir), free(root);
      e->srcdir = NULL, root = NULL;
    }
  }
  if (!root) {
    root = kg_xstrdup(e->work);
    e->srcdir = str_printf("%s/emu", e->work);
    if (kg_mkdirs(e->srcdir) || ensure_header(e, e->srcdir)) {
      kg_diag_add(d, KG_E_IO, NULL, NULL, "emulator: cannot write to %s: %s", e->srcdir,
                  strerror(errno));
      free(root);
      emu_destroy(&e->base);
      return NULL;
    }
  }
  e->cache = kg_cache_open(root);
  free(root);
  return &e->base;
}
