/* runtime/cache.c — the compiled-artifact cache (PTX, cubins, emulator objects).
 *
 * Main idea: content addressing. An entry is found by the 64-bit hash of
 * (kind, key) and trusted only after its full key and a digest of key + value
 * have been checked, so a collision, a torn write or a flipped bit is a miss,
 * never a wrong answer. Two tiers:
 *   memory — a small FIFO-bounded list, so a process asks the disk once per key;
 *   disk   — <dir>/objects/<kind>-<hash>.kgc, each file
 *              "KGC1" | version u32 | key_len u64 | val_len u64 | digest u64 (LE)
 *              | kind '\0' key | value
 *            written to a temp file in the same folder, fsynced, renamed over the
 *            final name, and the folder fsynced: readers see all of an entry or none.
 * A bad entry (magic, version, length, key or digest mismatch) is unlinked and
 * reported as a miss. A folder that cannot be created or written degrades the
 * cache to memory only with one warning on stderr (the cache is an optimisation:
 * it never fails a compilation). A mutex makes one cache usable from several
 * threads; several processes may share a folder.
 */
#include "rt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum {
  KGC_VERSION = 1,
  KGC_HEADER = 32,                        /* bytes before the key */
  KGC_MEM_CAP = 64 << 20,                 /* memory tier budget, bytes */
  KGC_STALE_TMP_S = 3600,                 /* temp files older than this are debris */
};
#define KGC_MAX_FILE ((size_t)1 << 30) /* larger files are not ours */
#define KGC_DIGEST_SEED 0x4b47433144494745ull

typedef struct kgc_mem {
  uint64_t h;     /* hash of the full key */
  char *key;      /* kind '\0' key */
  size_t key_len;
  void *val;
  size_t val_len;
} kgc_mem;

struct kg_cache {
  char *dir;         /* root folder; NULL when memory-only */
  char *objdir;      /* <dir>/objects */
  pthread_mutex_t mu;
  KG_VEC(kgc_mem) mem; /* oldest first */
  size_t mem_bytes;
  unsigned seq;      /* makes temp names unique within the process */
  int warned;        /* the one warning was printed */
};

/* ---- helpers ---- */
static void put_le(unsigned char *p, uint64_t v, int n) {
  for (int i = 0; i < n; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint64_t get_le(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--) v = (v << 8) | p[i];
  return v;
}
static char *full_key(const char *kind, const void *key, size_t key_len, size_t *out_len) {
  size_t kl = strlen(kind);
  char *k = kg_xmalloc(kl + 1 + key_len + 1);
  memcpy(k, kind, kl + 1);
  if (key_len) memcpy(k + kl + 1, key, key_len);
  k[kl + 1 + key_len] = 0;
  *out_len = kl + 1 + key_len;
  return k;
}
static uint64_t digest(const void *key, size_t key_len, const void *val, size_t val_len) {
  return kg_hash64(val, val_len, kg_hash64(key, key_len, KGC_DIGEST_SEED));
}
/* <objdir>/<kind, filename-safe>-<hash>.kgc */
static char *entry_path(const kg_cache *c, const char *kind, uint64_t h) {
  char safe[33], hex[17];
  size_t n = 0;
  for (const char *s = kind; *s && n < sizeof safe - 1; s++) {
    char ch = *s;
    int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
             ch == '_' || ch == '-';
    safe[n++] = ok ? ch : '_';
  }
  safe[n] = 0;
  kg_hash_hex(h, hex);
  size_t len = strlen(c->objdir) + n + 32;
  char *p = kg_xmalloc(len);
  snprintf(p, len, "%s/%s-%s.kgc", c->objdir, safe, hex);
  return p;
}
static void warn_once(kg_cache *c, const char *what, const char *path, int err) {
  if (c->warned) return;
  c->warned = 1;
  /* The one message this library prints: the cache must not fail a compilation. */
  fprintf(stderr, "kgen: warning: cache: %s %s (%s); caching in memory only\n", what, path,
          strerror(err));
}
static void go_memory_only(kg_cache *c) {
  free(c->dir), free(c->objdir);
  c->dir = c->objdir = NULL;
}

/* ---- memory tier ---- */
static kgc_mem *mem_find(kg_cache *c, uint64_t h, const char *key, size_t key_len) {
  for (uint32_t i = 0; i < c->mem.n; i++) {
    kgc_mem *m = &c->mem.v[i];
    if (m->h == h && m->key_len == key_len && !memcmp(m->key, key, key_len)) return m;
  }
  return NULL;
}
static void mem_drop(kg_cache *c, uint32_t i) {
  kgc_mem *m = &c->mem.v[i];
  c->mem_bytes -= m->key_len + m->val_len;
  free(m->key), free(m->val);
  memmove(m, m + 1, (size_t)(c->mem.n - i - 1) * sizeof *m);
  c->mem.n--;
}
static void mem_put(kg_cache *c, uint64_t h, const char *key, size_t key_len, const void *val,
                    size_t val_len) {
  kgc_mem *old = mem_find(c, h, key, key_len);
  if (old) mem_drop(c, (uint32_t)(old - c->mem.v));
  if (key_len + val_len > KGC_MEM_CAP / 4) return; /* too big to keep in memory */
  while (c->mem.n && c->mem_bytes + key_len + val_len > KGC_MEM_CAP) mem_drop(c, 0);
  kgc_mem m = {h, kg_xmalloc(key_len + 1), key_len, kg_xmalloc(val_len ? val_len : 1), val_len};
  memcpy(m.key, key, key_len);
  m.key[key_len] = 0;
  if (val_len) memcpy(m.val, val, val_len);
  c->mem_bytes += key_len + val_len;
  KG_VEC_PUSH(c->mem, m);
}

/* ---- disk tier ---- */
static int write_all(int fd, const void *data, size_t n) {
  const char *p = data;
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    p += w, n -= (size_t)w;
  }
  return 0;
}
static void fsync_dir(const char *dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    (void)fsync(fd); /* best effort: some file systems refuse directory fsync */
    close(fd);
  }
}
/* Writes one entry atomically; 0 on success, else -1 with errno set. */
static int disk_put(kg_cache *c, const char *path, const char *key, size_t key_len,
                    const void *val, size_t val_len) {
  size_t tl = strlen(path) + 64;
  char *tmp = kg_xmalloc(tl);
  const char *base = strrchr(path, '/') + 1;
  snprintf(tmp, tl, "%s/.%s.tmp.%ld.%u", c->objdir, base, (long)getpid(), c->seq++);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0 && errno == EEXIST) { /* debris of a killed process that had our pid */
    unlink(tmp);
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
  }
  if (fd < 0) {
    free(tmp);
    return -1;
  }
  unsigned char hdr[KGC_HEADER];
  memcpy(hdr, "KGC1", 4);
  put_le(hdr + 4, KGC_VERSION, 4);
  put_le(hdr + 8, key_len, 8);
  put_le(hdr + 16, val_len, 8);
  put_le(hdr + 24, digest(key, key_len, val, val_len), 8);
  int rc = write_all(fd, hdr, sizeof hdr) || write_all(fd, key, key_len) ||
           write_all(fd, val, val_len) || fsync(fd) ? -1 : 0;
  int e = errno;
  if (close(fd)) rc = -1, e = errno;
  if (!rc && rename(tmp, path)) rc = -1, e = errno;
  if (rc) unlink(tmp);
  else fsync_dir(c->objdir);
  free(tmp);
  errno = e;
  return rc;
}
/* Reads and checks one entry; returns the malloc'd value, or NULL (a bad entry
 * is unlinked). */
static void *disk_get(const char *path, const char *key, size_t key_len, size_t *len) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return NULL;
  struct stat st;
  if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (size_t)st.st_size > KGC_MAX_FILE) {
    close(fd);
    return NULL;
  }
  size_t size = (size_t)st.st_size, got = 0;
  unsigned char *buf = kg_xmalloc(size ? size : 1);
  while (got < size) {
    ssize_t r = read(fd, buf + got, size - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  close(fd);
  int ok = got == size && size >= KGC_HEADER && !memcmp(buf, "KGC1", 4) &&
           get_le(buf + 4, 4) == KGC_VERSION;
  uint64_t kl = ok ? get_le(buf + 8, 8) : 0, vl = ok ? get_le(buf + 16, 8) : 0;
  ok = ok && kl == key_len && vl <= size && KGC_HEADER + kl + vl == size &&
       !memcmp(buf + KGC_HEADER, key, key_len) &&
       get_le(buf + 24, 8) == digest(key, key_len, buf + KGC_HEADER + kl, vl);
  if (!ok) {
    free(buf);
    unlink(path); /* torn, corrupt or someone else's key: recompute and rewrite */
    return NULL;
  }
  void *val = kg_xmalloc(vl ? vl : 1);
  memcpy(val, buf + KGC_HEADER + kl, vl);
  free(buf);
  *len = vl;
  return val;
}
/* Removes temp files left by writers that were killed mid-write. */
static void sweep_debris(const char *objdir) {
  DIR *dir = opendir(objdir);
  if (!dir) return;
  time_t now = time(NULL);
  struct dirent *e;
  while ((e = readdir(dir))) {
    if (e->d_name[0] != '.' || !strstr(e->d_name, ".tmp.")) continue;
    size_t n = strlen(objdir) + strlen(e->d_name) + 2;
    char *p = kg_xmalloc(n);
    snprintf(p, n, "%s/%s", objdir, e->d_name);
    struct stat st;
    if (!stat(p, &st) && S_ISREG(st.st_mode) && now - st.st_mtime > KGC_STALE_TMP_S) unlink(p);
    free(p);
  }
  closedir(dir);
}

/* ---- API ---- */
static char *default_dir(void) {
  const char *e = getenv("KGEN_CACHE_DIR");
  if (e && *e) return kg_xstrdup(e);
  const char *base = getenv("XDG_CACHE_HOME");
  const char *suffix = "/kgen";
  if (!base || !*base) base = getenv("HOME"), suffix = "/.cache/kgen";
  if (!base || !*base) return NULL;
  size_t n = strlen(base) + strlen(suffix) + 1;
  char *p = kg_xmalloc(n);
  snprintf(p, n, "%s%s", base, suffix);
  return p;
}

kg_cache *kg_cache_open(const char *dir) {
  kg_cache *c = kg_xcalloc(1, sizeof *c);
  pthread_mutex_init(&c->mu, NULL);
  c->dir = dir ? kg_xstrdup(dir) : default_dir();
  if (!c->dir) {
    fprintf(stderr, "kgen: warning: cache: no cache folder ($HOME unset); caching in memory only\n");
    c->warned = 1;
    return c;
  }
  size_t n = strlen(c->dir) + 16;
  c->objdir = kg_xmalloc(n);
  snprintf(c->objdir, n, "%s/objects", c->dir);
  if (kg_mkdirs(c->objdir)) {
    warn_once(c, "cannot create", c->objdir, errno);
    go_memory_only(c);
    return c;
  }
  /* Probe writability now (mkdir succeeds on an existing read-only folder). */
  size_t pl = strlen(c->objdir) + 48;
  char *probe = kg_xmalloc(pl);
  snprintf(probe, pl, "%s/.probe.tmp.%ld", c->objdir, (long)getpid());
  int fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    warn_once(c, "cannot write to", c->objdir, errno);
    go_memory_only(c);
  } else {
    close(fd);
    unlink(probe);
    sweep_debris(c->objdir);
  }
  free(probe);
  return c;
}

void kg_cache_close(kg_cache *c) {
  if (!c) return;
  while (c->mem.n) mem_drop(c, c->mem.n - 1);
  KG_VEC_FREE(c->mem);
  free(c->dir), free(c->objdir);
  pthread_mutex_destroy(&c->mu);
  free(c);
}

const char *kg_cache_dir(kg_cache *c) { return c->dir; }

void *kg_cache_get(kg_cache *c, const char *kind, const void *key, size_t key_len, size_t *len) {
  size_t fl;
  char *fk = full_key(kind, key, key_len, &fl);
  uint64_t h = kg_hash64(fk, fl, 0);
  void *out = NULL;
  size_t n = 0;
  pthread_mutex_lock(&c->mu);
  kgc_mem *m = mem_find(c, h, fk, fl);
  if (m) {
    n = m->val_len;
    out = kg_xmalloc(n ? n : 1);
    if (n) memcpy(out, m->val, n);
  } else if (c->objdir) {
    char *path = entry_path(c, kind, h);
    out = disk_get(path, fk, fl, &n);
    if (out) mem_put(c, h, fk, fl, out, n);
    free(path);
  }
  pthread_mutex_unlock(&c->mu);
  free(fk);
  if (out && len) *len = n;
  return out;
}

void kg_cache_put(kg_cache *c, const char *kind, const void *key, size_t key_len, const void *val,
                  size_t len) {
  size_t fl;
  char *fk = full_key(kind, key, key_len, &fl);
  uint64_t h = kg_hash64(fk, fl, 0);
  pthread_mutex_lock(&c->mu);
  mem_put(c, h, fk, fl, val, len);
  if (c->objdir) {
    char *path = entry_path(c, kind, h);
    if (disk_put(c, path, fk, fl, val, len)) {
      warn_once(c, "cannot write to", c->objdir, errno); /* read-only or full disk */
      go_memory_only(c);
    }
    free(path);
  }
  pthread_mutex_unlock(&c->mu);
  free(fk);
}
