/* support/strbuf.c — growable strings and whole-file I/O.
 * Emitters build all their text through kg_strbuf; files are written
 * atomically (temp + fsync + rename) so a crash never leaves half a file. */
#include "support.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void kg_sb_init(kg_strbuf *b) { b->s = NULL, b->len = b->cap = 0; }
void kg_sb_free(kg_strbuf *b) { free(b->s), kg_sb_init(b); }

static void reserve(kg_strbuf *b, size_t extra) {
  if (b->len + extra + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1) cap *= 2;
  b->s = kg_xrealloc(b->s, cap);
  b->cap = cap;
}

void kg_sb_putn(kg_strbuf *b, const char *s, size_t n) {
  reserve(b, n);
  memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = 0;
}
void kg_sb_puts(kg_strbuf *b, const char *s) { kg_sb_putn(b, s, strlen(s)); }
void kg_sb_putc(kg_strbuf *b, char c) { kg_sb_putn(b, &c, 1); }

void kg_sb_vprintf(kg_strbuf *b, const char *fmt, va_list ap) {
  va_list aq;
  va_copy(aq, ap);
  int n = vsnprintf(NULL, 0, fmt, aq);
  va_end(aq);
  if (n < 0) return;
  reserve(b, (size_t)n);
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
}
void kg_sb_printf(kg_strbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kg_sb_vprintf(b, fmt, ap);
  va_end(ap);
}
void kg_sb_indent(kg_strbuf *b, int level) {
  for (int i = 0; i < level; i++) kg_sb_puts(b, "  ");
}
char *kg_sb_take(kg_strbuf *b) {
  char *s = b->s ? b->s : kg_xstrdup("");
  kg_sb_init(b);
  return s;
}
const char *kg_sb_cstr(kg_strbuf *b) { return b->s ? b->s : ""; }

char *kg_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  kg_strbuf b;
  kg_sb_init(&b);
  char tmp[65536];
  size_t n;
  while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) kg_sb_putn(&b, tmp, n);
  int err = ferror(f);
  fclose(f);
  if (err) {
    kg_sb_free(&b);
    errno = EIO;
    return NULL;
  }
  if (len) *len = b.len;
  return kg_sb_take(&b);
}

int kg_mkdirs(const char *path) {
  char *p = kg_xstrdup(path);
  for (char *s = p + 1; *s; s++) {
    if (*s != '/') continue;
    *s = 0;
    if (mkdir(p, 0777) && errno != EEXIST) { free(p); return -1; }
    *s = '/';
  }
  int r = (mkdir(p, 0777) && errno != EEXIST) ? -1 : 0;
  free(p);
  return r;
}

int kg_write_file(const char *path, const void *data, size_t len) {
  /* a unique temp name beside the target (mkstemp: safe across threads and
   * processes writing the same file), then rename over it */
  size_t n = strlen(path) + 16;
  char *tmp = kg_xmalloc(n);
  snprintf(tmp, n, "%s.tmp.XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) { free(tmp); return -1; }
  if (fchmod(fd, 0644) != 0) { close(fd), unlink(tmp), free(tmp); return -1; }
  const char *p = data;
  size_t left = len;
  while (left) {
    ssize_t w = write(fd, p, left);
    if (w < 0) {
      if (errno == EINTR) continue;
      close(fd), unlink(tmp), free(tmp);
      return -1;
    }
    p += w, left -= (size_t)w;
  }
  if (fsync(fd) || close(fd) || rename(tmp, path)) { unlink(tmp), free(tmp); return -1; }
  free(tmp);
  return 0;
}
