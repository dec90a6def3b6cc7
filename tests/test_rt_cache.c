/* tests/test_rt_cache.c — the artifact cache (runtime/cache.c): round trips,
 * every kind of damaged entry is a miss and is removed, unusable folders degrade
 * to memory only, racing writers and writers killed mid-write never yield a
 * wrong value. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/rt.h"

static char tdir[64];
static char cdir[256];

static void rm_rf(const char *path) {
  DIR *d = opendir(path);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
      char p[512];
      snprintf(p, sizeof p, "%s/%s", path, e->d_name);
      struct stat st;
      if (!lstat(p, &st) && S_ISDIR(st.st_mode)) rm_rf(p);
      else unlink(p);
    }
    closedir(d);
  }
  rmdir(path);
}
static void setup(void) {
  strcpy(tdir, "/tmp/kgen-test-cache-XXXXXX");
  cr_assert_not_null(mkdtemp(tdir));
  snprintf(cdir, sizeof cdir, "%s/c", tdir);
}
static void teardown(void) { rm_rf(tdir); }

/* The single entry file of the cache folder (asserts there is exactly one). */
static void only_entry(char *out, size_t n) {
  char od[300];
  snprintf(od, sizeof od, "%s/objects", cdir);
  DIR *d = opendir(od);
  cr_assert_not_null(d);
  struct dirent *e;
  int found = 0;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    snprintf(out, n, "%s/%s", od, e->d_name);
    found++;
  }
  closedir(d);
  cr_assert_eq(found, 1);
}
static int count_files(void) {
  char od[300];
  snprintf(od, sizeof od, "%s/objects", cdir);
  DIR *d = opendir(od);
  if (!d) return -1;
  struct dirent *e;
  int n = 0;
  while ((e = readdir(d))) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}
static void *get_fresh(const char *kind, const char *key, size_t *len) {
  kg_cache *c = kg_cache_open(cdir); /* a new cache: nothing in its memory tier */
  void *v = kg_cache_get(c, kind, key, strlen(key), len);
  kg_cache_close(c);
  return v;
}

TestSuite(rt_cache, .init = setup, .fini = teardown);

Test(rt_cache, round_trip_memory_and_disk) {
  kg_cache *c = kg_cache_open(cdir);
  cr_assert_str_eq(kg_cache_dir(c), cdir);
  size_t len = 99;
  cr_assert_null(kg_cache_get(c, "ptx", "k1", 2, &len));
  unsigned char val[1000];
  for (int i = 0; i < 1000; i++) val[i] = (unsigned char)(i * 7);
  kg_cache_put(c, "ptx", "k1", 2, val, sizeof val);
  kg_cache_put(c, "cubin", "k1", 2, "other", 5); /* same key, other kind */
  kg_cache_put(c, "ptx", "empty", 5, "", 0);     /* empty values are values */
  void *v = kg_cache_get(c, "ptx", "k1", 2, &len);
  cr_assert_not_null(v);
  cr_assert_eq(len, sizeof val);
  cr_assert_eq(memcmp(v, val, len), 0);
  free(v);
  kg_cache_close(c);
  /* From disk. */
  v = get_fresh("ptx", "k1", &len);
  cr_assert_not_null(v);
  cr_assert_eq(len, sizeof val);
  cr_assert_eq(memcmp(v, val, len), 0);
  free(v);
  v = get_fresh("cubin", "k1", &len);
  cr_assert_not_null(v);
  cr_assert_eq(len, 5);
  cr_assert_eq(memcmp(v, "other", 5), 0);
  free(v);
  v = get_fresh("ptx", "empty", &len);
  cr_assert_not_null(v);
  cr_assert_eq(len, 0);
  free(v);
  cr_assert_null(get_fresh("ptx", "k2", &len));
  cr_assert_eq(count_files(), 3);
}

Test(rt_cache, overwrite_replaces) {
  kg_cache *c = kg_cache_open(cdir);
  kg_cache_put(c, "k", "key", 3, "one", 3);
  kg_cache_put(c, "k", "key", 3, "second", 6);
  size_t len;
  char *v = kg_cache_get(c, "k", "key", 3, &len);
  cr_assert_eq(len, 6);
  cr_assert_eq(memcmp(v, "second", 6), 0);
  free(v);
  kg_cache_close(c);
  v = get_fresh("k", "key", &len);
  cr_assert_eq(len, 6);
  free(v);
  cr_assert_eq(count_files(), 1);
}

/* Damages the only entry with `how` and checks it is a miss and is removed. */
static void damaged_is_miss(void (*how)(const char *path)) {
  kg_cache *c = kg_cache_open(cdir);
  char val[300];
  memset(val, 'v', sizeof val);
  kg_cache_put(c, "obj", "the key", 7, val, sizeof val);
  kg_cache_close(c);
  char path[600];
  only_entry(path, sizeof path);
  how(path);
  size_t len;
  cr_assert_null(get_fresh("obj", "the key", &len));
  cr_assert_eq(access(path, F_OK), -1, "the bad entry is removed");
  /* And the cache heals: the next put/get works. */
  c = kg_cache_open(cdir);
  kg_cache_put(c, "obj", "the key", 7, val, sizeof val);
  kg_cache_close(c);
  void *v = get_fresh("obj", "the key", &len);
  cr_assert_not_null(v);
  free(v);
}
static void truncate_it(const char *p) { cr_assert_eq(truncate(p, 100), 0); }
static void truncate_to_header(const char *p) { cr_assert_eq(truncate(p, 20), 0); }
static void flip(const char *p, long off) {
  FILE *f = fopen(p, "r+b");
  cr_assert_not_null(f);
  fseek(f, off, off < 0 ? SEEK_END : SEEK_SET);
  int ch = fgetc(f);
  fseek(f, off, off < 0 ? SEEK_END : SEEK_SET);
  fputc(ch ^ 0x04, f);
  fclose(f);
}
static void flip_value(const char *p) { flip(p, -10); }
static void flip_magic(const char *p) { flip(p, 1); }
static void flip_length(const char *p) { flip(p, 16); }
static void flip_key(const char *p) { flip(p, 32 + 5); }
static void extend_it(const char *p) {
  FILE *f = fopen(p, "ab");
  fputs("junk", f);
  fclose(f);
}

Test(rt_cache, truncated_entry_is_miss) { damaged_is_miss(truncate_it); }
Test(rt_cache, header_only_entry_is_miss) { damaged_is_miss(truncate_to_header); }
Test(rt_cache, bit_flipped_value_is_miss) { damaged_is_miss(flip_value); }
Test(rt_cache, bit_flipped_magic_is_miss) { damaged_is_miss(flip_magic); }
Test(rt_cache, bit_flipped_length_is_miss) { damaged_is_miss(flip_length); }
Test(rt_cache, bit_flipped_key_is_miss) { damaged_is_miss(flip_key); }
Test(rt_cache, extended_entry_is_miss) { damaged_is_miss(extend_it); }

/* An intact entry stored under another key's name (a hash collision or a
 * misplaced file) is not returned for that key. */
Test(rt_cache, wrong_key_entry_is_miss) {
  kg_cache *c = kg_cache_open(cdir);
  kg_cache_put(c, "obj", "key A", 5, "value A", 7);
  kg_cache_put(c, "obj", "key B", 5, "value B", 7);
  kg_cache_close(c);
  char od[300], pa[600] = "", pb[600] = "";
  snprintf(od, sizeof od, "%s/objects", cdir);
  /* Which file is which: read A's through a fresh cache, then delete B's and see. */
  DIR *d = opendir(od);
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char p[600];
    snprintf(p, sizeof p, "%s/%s", od, e->d_name);
    size_t n;
    char *t = kg_read_file(p, &n);
    int is_a = 0;
    for (size_t i = 0; i + 5 <= n; i++) is_a |= !memcmp(t + i, "key A", 5);
    if (is_a) strcpy(pa, p);
    else strcpy(pb, p);
    free(t);
  }
  closedir(d);
  cr_assert(pa[0] && pb[0]);
  cr_assert_eq(rename(pa, pb), 0); /* A's entry now sits where B's belongs */
  size_t len;
  cr_assert_null(get_fresh("obj", "key B", &len));
  cr_assert_eq(access(pb, F_OK), -1);
  cr_assert_null(get_fresh("obj", "key A", &len));
}

Test(rt_cache, uncreatable_dir_is_memory_only) {
  cr_redirect_stderr();
  char file[128], dir[160];
  snprintf(file, sizeof file, "%s/plainfile", tdir);
  FILE *f = fopen(file, "w");
  fputs("x", f);
  fclose(f);
  snprintf(dir, sizeof dir, "%s/sub", file); /* under a regular file: ENOTDIR even for root */
  kg_cache *c = kg_cache_open(dir);
  cr_assert_null(kg_cache_dir(c));
  kg_cache_put(c, "k", "key", 3, "val", 3);
  kg_cache_put(c, "k", "key2", 4, "val2", 4);
  size_t len;
  char *v = kg_cache_get(c, "k", "key", 3, &len);
  cr_assert_not_null(v);
  cr_assert_eq(len, 3);
  free(v);
  kg_cache_close(c);
  fflush(stderr);
  FILE *err = cr_get_redirected_stderr();
  char buf[1024] = "";
  size_t n = fread(buf, 1, sizeof buf - 1, err);
  buf[n] = 0;
  cr_assert_not_null(strstr(buf, "memory only"), "%s", buf);
  cr_assert_null(strstr(strstr(buf, "memory only") + 1, "memory only"), "one warning: %s", buf);
}

Test(rt_cache, read_only_dir_is_memory_only) {
  if (geteuid() == 0) {
    teardown(); /* a skipped test does not run .fini */
    cr_skip_test("running as root: permissions are not enforced");
  }
  cr_redirect_stderr();
  char ro[128];
  snprintf(ro, sizeof ro, "%s/ro", tdir);
  cr_assert_eq(mkdir(ro, 0555), 0);
  snprintf(cdir, sizeof cdir, "%s/c", ro);
  kg_cache *c = kg_cache_open(cdir);
  cr_assert_null(kg_cache_dir(c));
  kg_cache_put(c, "k", "key", 3, "val", 3);
  size_t len;
  void *v = kg_cache_get(c, "k", "key", 3, &len);
  cr_assert_not_null(v);
  free(v);
  kg_cache_close(c);
  chmod(ro, 0755);
}

/* Temp files of killed writers are swept once old; fresh ones are left alone. */
Test(rt_cache, stale_temp_files_are_swept) {
  kg_cache *c = kg_cache_open(cdir);
  kg_cache_close(c);
  char old[400], fresh[400];
  snprintf(old, sizeof old, "%s/objects/.x-1.kgc.tmp.1.0", cdir);
  snprintf(fresh, sizeof fresh, "%s/objects/.x-2.kgc.tmp.1.1", cdir);
  FILE *f = fopen(old, "w");
  fclose(f);
  f = fopen(fresh, "w");
  fclose(f);
  struct timeval tv[2] = {{time(NULL) - 7200, 0}, {time(NULL) - 7200, 0}};
  cr_assert_eq(utimes(old, tv), 0);
  c = kg_cache_open(cdir);
  kg_cache_close(c);
  cr_assert_eq(access(old, F_OK), -1);
  cr_assert_eq(access(fresh, F_OK), 0);
}

/* Writers racing on one key, and a reader: every read is a miss or a whole value. */
static void fill(unsigned char *v, size_t n, int who) {
  for (size_t i = 0; i < n; i++) v[i] = (unsigned char)(who * 31 + i * 13);
}
static int valid(const unsigned char *v, size_t n) {
  if (n != 20000) return 0;
  for (int who = 0; who < 4; who++) {
    unsigned char w[20000];
    fill(w, n, who);
    if (!memcmp(v, w, n)) return 1;
  }
  return 0;
}
Test(rt_cache, racing_writers) {
  kg_cache_close(kg_cache_open(cdir));
  pid_t kids[4];
  for (int k = 0; k < 4; k++) {
    kids[k] = fork();
    cr_assert_neq(kids[k], -1);
    if (!kids[k]) {
      unsigned char v[20000];
      fill(v, sizeof v, k);
      for (int i = 0; i < 60; i++) {
        kg_cache *c = kg_cache_open(cdir);
        kg_cache_put(c, "race", "same key", 8, v, sizeof v);
        kg_cache_close(c);
      }
      _exit(0);
    }
  }
  int hits = 0;
  for (int i = 0; i < 200; i++) {
    size_t len = 0;
    unsigned char *v = get_fresh("race", "same key", &len);
    if (v) {
      cr_assert(valid(v, len), "read %d returned a torn value", i);
      hits++;
    }
    free(v);
  }
  for (int k = 0; k < 4; k++) {
    int st;
    waitpid(kids[k], &st, 0);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  size_t len = 0;
  unsigned char *v = get_fresh("race", "same key", &len);
  cr_assert_not_null(v);
  cr_assert(valid(v, len));
  free(v);
  cr_assert_eq(count_files(), 1);
  cr_log_info("racing reads that hit: %d / 200", hits);
}

/* Writers killed with SIGKILL at arbitrary points leave only misses or whole values. */
Test(rt_cache, writers_killed_mid_write) {
  kg_cache_close(kg_cache_open(cdir));
  for (int round = 0; round < 6; round++) {
    pid_t kid = fork();
    cr_assert_neq(kid, -1);
    if (!kid) {
      unsigned char v[20000];
      fill(v, sizeof v, round % 4);
      kg_cache *c = kg_cache_open(cdir);
      for (int i = 0;; i++) {
        char key[32];
        snprintf(key, sizeof key, "key %d", i % 8);
        kg_cache_put(c, "kill", key, strlen(key), v, sizeof v);
      }
    }
    struct timespec ts = {0, (round + 1) * 3000000L};
    nanosleep(&ts, NULL);
    kill(kid, SIGKILL);
    int st;
    waitpid(kid, &st, 0);
    for (int i = 0; i < 8; i++) {
      char key[32];
      snprintf(key, sizeof key, "key %d", i);
      size_t len = 0;
      unsigned char *v = get_fresh("kill", key, &len);
      if (v) cr_assert(valid(v, len), "round %d key %d", round, i);
      free(v);
    }
  }
}
