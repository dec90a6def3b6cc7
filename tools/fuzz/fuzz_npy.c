/* tools/fuzz/fuzz_npy.c — libFuzzer target for the .npy reader of the check kit
 * (check/npy.c: kg_npy_read, and kg_npy_write on what it read).
 *
 * kg_npy_read takes a path, so each input is written to an in-memory file (memfd_create;
 * a file under $TMPDIR or /tmp where memfd is unavailable), created once per process and
 * read through /proc/self/fd/N. Invariants checked besides "no crash, no leak, no UB":
 * the read returns 0 exactly when it recorded no diagnostic; on success the array is
 * consistent (a kgen dtype, rank 0..8, non-negative sizes, nbytes = elements × element
 * size, data present) and survives a round trip: kg_npy_write then kg_npy_read give the
 * same dtype, shape and bytes. Build and run: README.md, run.sh.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check/check.h"
#include "ir/ir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A file descriptor and a path that names it. */
typedef struct scratch {
  int fd;
  char path[4096];
} scratch;

static char *to_unlink[2];
static void unlink_scratch(void) {
  for (int i = 0; i < 2; i++)
    if (to_unlink[i]) unlink(to_unlink[i]);
}

static void scratch_open(scratch *s, const char *tag, int i) {
  s->fd = memfd_create(tag, 0);
  if (s->fd >= 0) {
    snprintf(s->path, sizeof s->path, "/proc/self/fd/%d", s->fd);
    return;
  }
  const char *tmp = getenv("TMPDIR");
  snprintf(s->path, sizeof s->path, "%s/kgen-fuzz-%s-XXXXXX", tmp && tmp[0] ? tmp : "/tmp", tag);
  s->fd = mkstemp(s->path);
  if (s->fd < 0) {
    perror("fuzz_npy: cannot create a scratch file");
    abort();
  }
  to_unlink[i] = s->path; /* read by name, so it stays until the process exits */
  if (i == 0) atexit(unlink_scratch);
}

static void scratch_set(scratch *s, const uint8_t *data, size_t size) {
  if (ftruncate(s->fd, 0) != 0) abort();
  size_t off = 0;
  while (off < size) {
    ssize_t w = pwrite(s->fd, data + off, size - off, (off_t)off);
    if (w <= 0) abort();
    off += (size_t)w;
  }
}

static void fail(const char *what) {
  fprintf(stderr, "fuzz_npy: invariant broken: %s\n", what);
  abort();
}

static void check_array(const kg_npy *a) {
  if (a->dtype < 0 || a->dtype >= KG_DT__COUNT) fail("dtype out of range");
  if (a->rank < 0 || a->rank > KG_MAX_RANK) fail("rank out of range");
  uint64_t n = 1;
  for (int k = 0; k < a->rank; k++) {
    if (a->shape[k] < 0) fail("negative size");
    n *= (uint64_t)a->shape[k]; /* the reader checked it fits */
  }
  if (n * kg_dtype_get((kg_dtype)a->dtype)->size != a->nbytes) fail("nbytes disagrees with the shape");
  if (!a->data) fail("no data");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static scratch in, out;
  static int ready;
  if (!ready) {
    scratch_open(&in, "in", 0);
    scratch_open(&out, "out", 1);
    ready = 1;
  }
  scratch_set(&in, data, size);

  kg_diag d;
  kg_diag_init(&d);
  kg_npy a;
  int rc = kg_npy_read(in.path, &a, &d);
  if ((rc == 0) == (d.n > 0)) fail("kg_npy_read: return code and diagnostics disagree");
  free(kg_diag_format(&d));
  if (rc == 0) {
    check_array(&a);
    kg_diag_clear(&d);
    if (kg_npy_write(out.path, &a, &d) != 0) fail("kg_npy_write of an array just read failed");
    kg_npy b;
    if (kg_npy_read(out.path, &b, &d) != 0) fail("kg_npy_read of what kg_npy_write wrote failed");
    if (b.dtype != a.dtype || b.rank != a.rank || b.nbytes != a.nbytes ||
        memcmp(b.shape, a.shape, sizeof a.shape[0] * (size_t)a.rank) ||
        memcmp(b.data, a.data, a.nbytes))
      fail("round trip through kg_npy_write changed the array");
    kg_npy_free(&b);
  } else if (a.data) {
    fail("kg_npy_read failed but left data");
  }
  kg_npy_free(&a);
  kg_diag_free(&d);
  return 0;
}
