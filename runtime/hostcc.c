/* runtime/hostcc.c — kernel objects built by the host C compiler: what the emulator device
 * (dev_emu.c) and the CPU device (dev_cpu.c) share.
 *
 * Main idea: the CUDA C text NVRTC would compile is compiled by the host C compiler instead,
 * after embedded headers (codegen-cuda/kg_emu.h; the CPU device adds kg_cpu.h), into a shared
 * object that is dlopen'd. One kg_hostcc per device; each says what it builds (`spec`: the
 * flags, the headers, the ABI string in every key, the cache kind).
 *
 * Files (under the cache folder: cfg->cache_dir, $KGEN_CACHE_DIR, $XDG_CACHE_HOME/kgen or
 * ~/.cache/kgen; a per-device temp folder if none works):
 *   emu/<header>_<hash>.h    each header, written once per header version;
 *   emu/<name>-<key>.c       the translation unit, kept so errors can point at it;
 *   objects/<kind>-so-*.kgc  compiled objects in the kg_cache (cache.c), keyed by the full C
 *                            text, the compiler command line and the compiler binary's
 *                            identity, integrity-checked;
 *   $TMPDIR/kgen-emu-XXXXXX/ private per device: the copy of each object that is dlopen'd
 *                            and compiler logs.
 * The compiler ($KGEN_CC or cfg->cc, else "cc"; words split on blanks, plus the spec's
 * environment flags) runs through posix_spawn with stderr captured to a file.
 *
 * Loaded objects are shared within a device: a second load of the same translation unit (two
 * compiled entries with the same kernel, a function specialized for two size patterns) takes
 * another reference to the loaded object instead of loading a copy, and the object is unloaded
 * when its last reference is released (kg_compiled_free). A device is used by one thread at a
 * time (its context's), so a shared object's static state (__shared__ storage) is never used
 * by two launches at once; the CPU device's worker threads run only kernels that have none.
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

#define HOSTCC_MAX_LOG 16384 /* bytes of compiler output kept in a diagnostic */

typedef KG_VEC(char *) hc_argv;

struct kg_hostobj {
  void *so;       /* dlopen handle */
  char *so_path;  /* the private copy that was loaded; removed at unload */
  char *name;     /* program name (messages) */
  uint64_t key;   /* hash of the key text: objects of equal keys are shared */
  size_t key_len;
  int refs;
};

/* A compiler run: its process and the file its output goes to */
typedef struct hc_run {
  pid_t pid;
  char *log;
} hc_run;

/* A compile kg_hostcc_prefetch started: running, or finished (its object at `so`, in the cache) */
typedef struct hc_pending {
  uint64_t key; /* as kg_hostobj's */
  size_t key_len;
  char *name, *csrc, *so;
  hc_run run;
  char *key_text; /* the cache key while it runs (the object is put under it when built) */
  size_t key_text_len;
  int state; /* 0 running, 1 built, 2 failed (kg_hostcc_load then compiles it again, for its diagnostic) */
} hc_pending;

struct kg_hostcc {
  kg_hostcc_spec spec;
  hc_argv cc;           /* compiler words + fixed flags + environment flags (no -o / input) */
  char *cc_line;        /* cc joined by blanks, for keys and messages */
  char *ccid;           /* identity of the compiler binary: "path size mtime" */
  kg_rt_counts *counts; /* compilations and cache hits (the context's statistics), or NULL */
  char *srcdir;         /* holds the headers and the .c files */
  char *work;           /* private temp folder */
  kg_cache *cache;
  char *include;        /* the #include lines of the headers */
  char *cache_kind;     /* "<kind>-so" */
  unsigned seq;         /* unique names in `work` */
  char *rt_name;        /* the runtime object's file name and soname "libkg<kind>rt-<key hash>.so", or NULL */
  char *rt_path;        /* its copy in `work`, next to the kernel objects that depend on it */
  int rt_ready;         /* 1 once it is in `work` */
  KG_VEC(kg_hostobj *) loaded;
  KG_VEC(struct hc_pending) pending; /* compiles kg_hostcc_prefetch started, in start order */
  uint32_t jobs;                      /* compilers running at once at most (the machine's cores) */
};

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
static void split_words(hc_argv *v, const char *s) {
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
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
             (c == '.' && n > 0);
    out[n++] = ok ? c : '_';
  }
  if (!n) out[n++] = 'k';
  out[n] = 0;
}
/* "path size mtime" of argv0 (searched in $PATH), so a changed compiler misses. */
static char *compiler_identity(const char *argv0) {
  struct stat st;
  if (strchr(argv0, '/'))
    return stat(argv0, &st) ? kg_xstrdup(argv0) : str_printf("%s %lld %lld", argv0, (long long)st.st_size, (long long)st.st_mtime);
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
/* Writes a private, throw-away file (no fsync: it lives as long as the object). */
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
/* The file name of header i: "<prefix>_<hash of its text>.h". */
static char *header_name(const kg_hostcc_spec *s, size_t i) {
  char hex[17];
  kg_hash_hex(kg_hash_str(s->headers[i].text), hex);
  return str_printf("%s_%s.h", s->headers[i].prefix, hex);
}
/* Makes sure dir holds exactly the embedded headers; 0 on success. */
static int ensure_headers(kg_hostcc *h, const char *dir) {
  int rc = 0;
  for (size_t i = 0; i < h->spec.n_headers && !rc; i++) {
    char *nm = header_name(&h->spec, i), *path = str_printf("%s/%s", dir, nm);
    size_t n = 0, want = strlen(h->spec.headers[i].text);
    char *have = kg_read_file(path, &n);
    if (!have || n != want || memcmp(have, h->spec.headers[i].text, n)) rc = kg_write_file(path, h->spec.headers[i].text, want);
    free(have), free(path), free(nm);
  }
  return rc;
}

/* ---- the compiler ---- */
/* Starts the compiler on `csrc` producing `so` (cc_finish waits for it); 0 on success, else a
 * diagnostic. `extra`: more link words after the libraries (the runtime object, its soname). */
static int cc_spawn(kg_hostcc *h, const char *name, const char *csrc, const char *so, char *const *extra, size_t n_extra, hc_run *r, kg_diag *d) {
  r->log = str_printf("%s.log", so);
  hc_argv argv = {0};
  for (uint32_t i = 0; i < h->cc.n; i++) KG_VEC_PUSH(argv, h->cc.v[i]);
  char *tail[3] = {kg_xstrdup("-o"), kg_xstrdup(so), kg_xstrdup(csrc)};
  for (int i = 0; i < 3; i++) KG_VEC_PUSH(argv, tail[i]);
  for (size_t i = 0; i < h->spec.n_libs; i++) KG_VEC_PUSH(argv, (char *)(uintptr_t)h->spec.libs[i]);
  for (size_t i = 0; i < n_extra; i++) KG_VEC_PUSH(argv, extra[i]);
  KG_VEC_PUSH(argv, (char *)NULL);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, r->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 2, 1);
  int rc = posix_spawnp(&r->pid, argv.v[0], &fa, NULL, argv.v, environ);
  posix_spawn_file_actions_destroy(&fa);
  KG_VEC_FREE(argv);
  for (int i = 0; i < 3; i++) free(tail[i]);
  if (rc) {
    kg_diag_add(d, KG_E_INTERNAL, NULL, NULL, "%s: cannot run the C compiler '%s' for '%s': %s (set $KGEN_CC)", h->spec.kind, h->cc.v[0], name,
                strerror(rc));
    free(r->log);
    r->log = NULL;
    return -1;
  }
  return 0;
}

/* Waits for the compiler cc_spawn started; 0 when it built `so`, else a diagnostic with its output. */
static int cc_finish(kg_hostcc *h, const char *name, const char *csrc, const char *so, char *const *extra, size_t n_extra, hc_run *r, kg_diag *d) {
  int status = 0;
  while (waitpid(r->pid, &status, 0) < 0) {
    if (errno != EINTR) {
      status = -1;
      break;
    }
  }
  char *log = r->log;
  r->log = NULL;
  if (status == 0) {
    unlink(log);
    free(log);
    return 0;
  }
  size_t n = 0;
  char *out = kg_read_file(log, &n);
  if (out && n > HOSTCC_MAX_LOG) strcpy(out + HOSTCC_MAX_LOG - 16, "\n[...cut...]\n");
  char *how = status == -1          ? str_printf("waitpid failed")
              : WIFEXITED(status)   ? str_printf("exit status %d", WEXITSTATUS(status))
              : WIFSIGNALED(status) ? str_printf("killed by signal %d", WTERMSIG(status))
                                    : str_printf("status %d", status);
  kg_strbuf libs;
  kg_sb_init(&libs);
  for (size_t i = 0; i < h->spec.n_libs; i++) kg_sb_printf(&libs, " %s", h->spec.libs[i]);
  for (size_t i = 0; i < n_extra; i++) kg_sb_printf(&libs, " %s", extra[i]);
  kg_diag_add(d, KG_E_INTERNAL, NULL, NULL, "%s: the C compiler failed on '%s' (%s):\n%s\n  source saved at %s\n  command: %s -o %s %s%s", h->spec.kind,
              name, how, out && *out ? out : "(no output)", csrc, h->cc_line, so, csrc, kg_sb_cstr(&libs));
  kg_sb_free(&libs);
  free(how);
  free(out);
  unlink(log);
  free(log);
  return -1;
}

/* Runs the compiler on `csrc` producing `so`; 0 on success, else a diagnostic. */
static int run_cc(kg_hostcc *h, const char *name, const char *csrc, const char *so, char *const *extra, size_t n_extra, kg_diag *d) {
  hc_run r;
  if (cc_spawn(h, name, csrc, so, extra, n_extra, &r, d)) return -1;
  return cc_finish(h, name, csrc, so, extra, n_extra, &r, d);
}

/* dlopens `so`; returns the object (one reference) or NULL. */
static kg_hostobj *open_so(kg_hostcc *h, const char *name, char *so, kg_diag *d, int quiet) {
  void *dl = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!dl) {
    if (!quiet) kg_diag_add(d, KG_E_INTERNAL, NULL, NULL, "%s: cannot load the object for '%s': %s", h->spec.kind, name, dlerror());
    return NULL;
  }
  kg_hostobj *o = kg_xcalloc(1, sizeof *o);
  o->so = dl, o->so_path = so, o->name = kg_xstrdup(name), o->refs = 1;
  return o;
}

/* ---- the runtime object ---- */
/* Makes sure the runtime object (spec.runtime: the emulator's fibers, scheduler and tensor-core
 * instructions) is in `work`, from the kernel cache or compiled once; 0 on success. Kernel
 * objects are linked against it: their DT_NEEDED is its soname, found through their
 * RUNPATH $ORIGIN (the private copies of both live in `work`). The soname holds the hash of
 * its key, so equal names are equal objects, and the dynamic loader's sharing of an
 * already-loaded object of that name (another device's) is harmless. */
static int ensure_runtime(kg_hostcc *h, kg_diag *d) {
  if (!h->spec.runtime || h->rt_ready) return 0;
  kg_strbuf c;
  kg_sb_init(&c);
  kg_sb_puts(&c, "#define KG_EMU_RT 1\n");
  kg_sb_puts(&c, h->include);
  kg_sb_puts(&c, h->spec.runtime);
  kg_strbuf key;
  kg_sb_init(&key);
  kg_sb_printf(&key, "runtime\n%s\ncc: %s\nccid: %s\n%s\n", h->spec.abi, h->cc_line, h->ccid, h->spec.extra_key ? h->spec.extra_key : "");
  kg_sb_putn(&key, c.s, c.len);
  char hex[17], kind[40];
  kg_hash_hex(kg_hash64(key.s, key.len, 0), hex);
  snprintf(kind, sizeof kind, "%s-rt", h->spec.kind);
  free(h->rt_name), free(h->rt_path); /* a failed attempt's */
  h->rt_name = str_printf("libkg%srt-%s.so", h->spec.kind, hex);
  h->rt_path = str_printf("%s/%s", h->work, h->rt_name);
  size_t n = 0;
  void *bytes = kg_cache_get(h->cache, kind, key.s, key.len, &n);
  int ok = bytes && !write_private(h->rt_path, bytes, n);
  free(bytes);
  if (!ok) {
    char *csrc = str_printf("%s/%srt-%s.c", h->srcdir, h->spec.kind, hex);
    char *soname = str_printf("-Wl,-soname,%s", h->rt_name);
    if (ensure_headers(h, h->srcdir) || kg_write_file(csrc, c.s, c.len)) {
      kg_diag_add(d, KG_E_IO, NULL, NULL, "%s: cannot write %s: %s", h->spec.kind, csrc, strerror(errno));
    } else if (!run_cc(h, "the emulator runtime", csrc, h->rt_path, &soname, 1, d)) {
      size_t sn = 0;
      char *sb = kg_read_file(h->rt_path, &sn);
      if (sb) kg_cache_put(h->cache, kind, key.s, key.len, sb, sn);
      free(sb);
      ok = 1;
    }
    free(soname), free(csrc);
  }
  kg_sb_free(&key), kg_sb_free(&c);
  h->rt_ready = ok; /* a failure is tried again at the next load (its diagnostic is in d) */
  return ok ? 0 : -1;
}

/* The translation unit of `text` (the headers, then the text with its own #line directives)
 * into c, and its key — everything that determines the object's bytes — into key */
static void tu_text(const kg_hostcc *h, const char *text, kg_strbuf *c, kg_strbuf *key) {
  kg_sb_init(c);
  kg_sb_puts(c, h->include);
  kg_sb_puts(c, text);
  kg_sb_init(key);
  kg_sb_printf(key, "%s\ncc: %s\nccid: %s\n%s\nruntime: %s\n", h->spec.abi, h->cc_line, h->ccid, h->spec.extra_key ? h->spec.extra_key : "",
               h->rt_name ? h->rt_name : "none");
  kg_sb_putn(key, c->s, c->len);
}

static kg_hostobj *loaded_with(kg_hostcc *h, uint64_t kh, size_t key_len) {
  for (uint32_t i = 0; i < h->loaded.n; i++)
    if (h->loaded.v[i]->key == kh && h->loaded.v[i]->key_len == key_len) return h->loaded.v[i];
  return NULL;
}
static int pending_with(const kg_hostcc *h, uint64_t kh, size_t key_len) {
  for (uint32_t i = 0; i < h->pending.n; i++)
    if (h->pending.v[i].key == kh && h->pending.v[i].key_len == key_len) return (int)i;
  return -1;
}

/* Waits for a prefetched compile if it runs; a built object goes into the kernel cache. Its
 * diagnostic is dropped: kg_hostcc_load compiles a failed one again and reports that. */
static void pending_finish(kg_hostcc *h, hc_pending *p) {
  if (p->state) return;
  kg_diag sd;
  kg_diag_init(&sd);
  if (!cc_finish(h, p->name, p->csrc, p->so, NULL, 0, &p->run, &sd)) {
    p->state = 1;
    if (h->counts) h->counts->emu_compiles++;
    size_t sn = 0;
    char *sb = kg_read_file(p->so, &sn);
    if (sb) kg_cache_put(h->cache, h->cache_kind, p->key_text, p->key_text_len, sb, sn);
    free(sb);
  } else {
    p->state = 2;
    unlink(p->so);
  }
  kg_diag_free(&sd);
  free(p->key_text);
  p->key_text = NULL;
}
static void pending_drop(kg_hostcc *h, uint32_t i) {
  hc_pending *p = &h->pending.v[i];
  pending_finish(h, p);
  if (p->state == 1 && p->so) unlink(p->so);
  free(p->name), free(p->csrc), free(p->so);
  memmove(p, p + 1, (h->pending.n - i - 1) * sizeof *p);
  h->pending.n--;
}

/* The files one compile of a text writes (its .c in the source folder, named by the key's hash;
 * its object in `work`, a unique name) and its link words: the runtime object, found next to the
 * kernel object when that is loaded ($ORIGIN) */
static const char rpath_origin[] = "-Wl,-rpath,$ORIGIN";
static size_t tu_files(kg_hostcc *h, const char *name, const char *hex, char **csrc, char **so, char *link[2]) {
  *csrc = str_printf("%s/%s-%s.c", h->srcdir, name, hex);
  *so = str_printf("%s/%s-%s-%u.so", h->work, name, hex, h->seq++);
  link[0] = h->rt_path, link[1] = (char *)(uintptr_t)rpath_origin;
  return h->rt_path ? 2 : 0;
}

void kg_hostcc_prefetch(kg_hostcc *h, const char *pname, const char *text) {
  if (!h || h->jobs < 2) return; /* one core: nothing would run beside the caller */
  kg_diag sd;
  kg_diag_init(&sd);
  kg_strbuf c, key;
  if (ensure_runtime(h, &sd)) {
    kg_diag_free(&sd);
    return;
  }
  tu_text(h, text, &c, &key);
  uint64_t kh = kg_hash64(key.s, key.len, 0);
  size_t n = 0;
  void *bytes = NULL;
  if (!loaded_with(h, kh, key.len) && pending_with(h, kh, key.len) < 0 && !(bytes = kg_cache_get(h->cache, h->cache_kind, key.s, key.len, &n))) {
    uint32_t running = 0;
    for (uint32_t i = 0; i < h->pending.n; i++) running += h->pending.v[i].state == 0;
    for (uint32_t i = 0; i < h->pending.n && running >= h->jobs; i++) /* the oldest first */
      if (h->pending.v[i].state == 0) pending_finish(h, &h->pending.v[i]), running--;
    char name[49], hex[17];
    safe_name(pname, name);
    kg_hash_hex(kh, hex);
    hc_pending p;
    memset(&p, 0, sizeof p);
    p.key = kh, p.key_len = key.len, p.name = kg_xstrdup(name);
    char *link[2];
    size_t nl = tu_files(h, name, hex, &p.csrc, &p.so, link);
    if (!ensure_headers(h, h->srcdir) && !kg_write_file(p.csrc, c.s, c.len) && !cc_spawn(h, name, p.csrc, p.so, link, nl, &p.run, &sd)) {
      p.key_text_len = key.len, p.key_text = kg_sb_take(&key);
      KG_VEC_PUSH(h->pending, p);
    } else {
      free(p.name), free(p.csrc), free(p.so);
    }
  }
  free(bytes);
  kg_sb_free(&key), kg_sb_free(&c);
  kg_diag_free(&sd);
}

kg_hostobj *kg_hostcc_load(kg_hostcc *h, const char *pname, const char *text, kg_diag *d) {
  char name[49];
  safe_name(pname, name);
  if (ensure_runtime(h, d)) return NULL;
  kg_strbuf c, key;
  tu_text(h, text, &c, &key);
  uint64_t kh = kg_hash64(key.s, key.len, 0);
  kg_hostobj *m = loaded_with(h, kh, key.len);
  if (m) { /* already loaded by this device: share it (a memory hit) */
    m->refs++;
    if (h->counts) h->counts->emu_cache_hits++;
    kg_sb_free(&key), kg_sb_free(&c);
    return m;
  }
  int pi = pending_with(h, kh, key.len);
  if (pi >= 0) { /* prefetched: wait for its compiler, then load what it built */
    hc_pending *p = &h->pending.v[pi];
    pending_finish(h, p);
    if (p->state == 1) {
      m = open_so(h, name, p->so, d, 0);
      if (m) p->so = NULL; /* the object owns its path now */
    }
    pending_drop(h, (uint32_t)pi);
  }
  char hex[17];
  kg_hash_hex(kh, hex);
  size_t n = 0;
  void *bytes = m ? NULL : kg_cache_get(h->cache, h->cache_kind, key.s, key.len, &n);
  if (bytes) { /* hit: load a private copy of the checked bytes */
    char *so = str_printf("%s/%s-%s-%u.so", h->work, name, hex, h->seq++);
    if (!write_private(so, bytes, n)) m = open_so(h, name, so, d, 1);
    if (!m) unlink(so), free(so); /* fall through to a fresh compile */
    else if (h->counts) h->counts->emu_cache_hits++;
    free(bytes);
  }
  if (!m) {
    char *csrc, *so, *link[2];
    size_t nl = tu_files(h, name, hex, &csrc, &so, link);
    if (ensure_headers(h, h->srcdir) || kg_write_file(csrc, c.s, c.len)) {
      kg_diag_add(d, KG_E_IO, NULL, NULL, "%s: cannot write %s: %s", h->spec.kind, csrc, strerror(errno));
    } else if (!run_cc(h, name, csrc, so, link, nl, d)) {
      if (h->counts) h->counts->emu_compiles++;
      size_t sn = 0;
      char *sb = kg_read_file(so, &sn);
      if (sb) kg_cache_put(h->cache, h->cache_kind, key.s, key.len, sb, sn);
      free(sb);
      m = open_so(h, name, so, d, 0);
    }
    if (!m) unlink(so), free(so);
    free(csrc);
  }
  if (m) {
    m->key = kh, m->key_len = key.len;
    KG_VEC_PUSH(h->loaded, m);
  }
  kg_sb_free(&key);
  kg_sb_free(&c);
  return m;
}

void *kg_hostobj_sym(const kg_hostobj *o, const char *sym) { return o ? dlsym(o->so, sym) : NULL; }
const char *kg_hostobj_name(const kg_hostobj *o) { return o ? o->name : "?"; }

static void obj_unload(kg_hostobj *o) {
  dlclose(o->so);
  unlink(o->so_path);
  free(o->so_path), free(o->name), free(o);
}

void kg_hostcc_release(kg_hostcc *h, kg_hostobj *o) {
  if (!o || --o->refs > 0) return;
  for (uint32_t i = 0; i < h->loaded.n; i++)
    if (h->loaded.v[i] == o) {
      h->loaded.v[i] = h->loaded.v[--h->loaded.n];
      break;
    }
  obj_unload(o);
}

uint32_t kg_hostcc_n_loaded(const kg_hostcc *h) { return h ? h->loaded.n : 0; }

void kg_hostcc_free(kg_hostcc *h) {
  if (!h) return;
  while (h->pending.n) pending_drop(h, h->pending.n - 1); /* prefetched, never loaded: waited for (no zombie) */
  KG_VEC_FREE(h->pending);
  for (uint32_t i = 0; i < h->loaded.n; i++) obj_unload(h->loaded.v[i]); /* objects of entries still alive: unusable now */
  KG_VEC_FREE(h->loaded);
  kg_cache_close(h->cache);
  if (h->work) rm_tree(h->work, 2);
  for (uint32_t i = 0; i < h->cc.n; i++) free(h->cc.v[i]);
  KG_VEC_FREE(h->cc);
  free(h->cc_line), free(h->ccid), free(h->srcdir), free(h->work), free(h->include), free(h->cache_kind);
  free(h->rt_name), free(h->rt_path);
  free(h);
}

kg_hostcc *kg_hostcc_new(const kg_rt_config *cfg, const kg_hostcc_spec *spec, kg_diag *d) {
  kg_hostcc *h = kg_xcalloc(1, sizeof *h);
  h->spec = *spec;
  h->counts = cfg ? cfg->counts : NULL;
  h->cache_kind = str_printf("%s-so", spec->kind);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  h->jobs = cores > 1 ? (uint32_t)(cores < 64 ? cores : 64) : 1;
  /* The compiler command. */
  const char *cc = cfg && cfg->cc && *cfg->cc ? cfg->cc : getenv("KGEN_CC");
  split_words(&h->cc, cc && *cc ? cc : "cc");
  if (!h->cc.n) split_words(&h->cc, "cc");
  for (size_t i = 0; i < spec->n_flags; i++) KG_VEC_PUSH(h->cc, kg_xstrdup(spec->flags[i]));
  if (spec->env_flags) split_words(&h->cc, getenv(spec->env_flags));
  kg_strbuf line;
  kg_sb_init(&line);
  for (uint32_t i = 0; i < h->cc.n; i++) kg_sb_printf(&line, "%s%s", i ? " " : "", h->cc.v[i]);
  h->cc_line = kg_sb_take(&line);
  h->ccid = compiler_identity(h->cc.v[0]);
  kg_strbuf inc;
  kg_sb_init(&inc);
  for (size_t i = 0; i < spec->n_headers; i++) {
    char *nm = header_name(spec, i);
    kg_sb_printf(&inc, "#include \"%s\"\n", nm);
    free(nm);
  }
  h->include = kg_sb_take(&inc);
  /* The private folder. */
  const char *tmp = getenv("TMPDIR");
  const char *bases[] = {tmp && *tmp ? tmp : "/tmp", "/tmp", "/var/tmp"};
  for (size_t i = 0; i < KG_COUNTOF(bases) && !h->work; i++) {
    char *t = str_printf("%s/kgen-%s-XXXXXX", bases[i], spec->kind);
    if (mkdtemp(t)) h->work = t;
    else free(t);
  }
  if (!h->work) {
    kg_diag_add(d, KG_E_IO, NULL, NULL, "%s: cannot create a temp folder in %s: %s", spec->kind, bases[0], strerror(errno));
    kg_hostcc_free(h);
    return NULL;
  }
  /* The cache folder, or the private folder when it cannot be used. */
  char *root = cache_root(cfg);
  if (root) {
    h->srcdir = str_printf("%s/emu", root);
    if (kg_mkdirs(h->srcdir) || ensure_headers(h, h->srcdir)) {
      free(h->srcdir), free(root);
      h->srcdir = NULL, root = NULL;
    }
  }
  if (!root) {
    root = kg_xstrdup(h->work);
    h->srcdir = str_printf("%s/emu", h->work);
    if (kg_mkdirs(h->srcdir) || ensure_headers(h, h->srcdir)) {
      kg_diag_add(d, KG_E_IO, NULL, NULL, "%s: cannot write to %s: %s", spec->kind, h->srcdir, strerror(errno));
      free(root);
      kg_hostcc_free(h);
      return NULL;
    }
  }
  h->cache = kg_cache_open(root);
  free(root);
  return h;
}
