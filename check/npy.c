/* check/npy.c — NumPy .npy files and random test inputs.
 *
 * The .npy format (numpy/lib/format.py): the magic "\x93NUMPY", a major and a
 * minor version byte, the header length (uint16 LE in v1.0, uint32 LE in v2.0 and
 * v3.0), then the header: a Python dict literal
 *     {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
 * padded with spaces and ending in '\n' so that the data starts at a multiple of
 * 64 bytes, then the raw elements.
 *
 * Writing: always v1.0, C order, little endian, numpy's own spelling of the header.
 * Reading: v1.0, v2.0 and v3.0; C or Fortran order (Fortran data is transposed into
 * C order on the way in); little or big endian (big is byte-swapped); rank ≤ 8;
 * 0-dim arrays (shape ()) are scalars. The header must hold exactly the three keys
 * numpy writes (numpy.load rejects any other key too), and the data must fill the
 * rest of the file exactly.
 *
 * Descriptors, one per kg_dtype:
 *     bool '|b1'   uint8 '|u1'   int8 '|i1'   int16 '<i2'   int32 '<i4'   int64 '<i8'
 *     float16 '<f2'   float32 '<f4'   float64 '<f8'   bfloat16 '<V2' (see below)
 *
 * bfloat16 convention. NumPy has no bfloat16 and numpy.load rejects extra header
 * keys, so a side-channel key ('kgen_dtype') is impossible. We store bfloat16 as
 * the 2-byte void descriptor '<V2' holding the raw bits, little endian — exactly
 * what numpy.save writes for an ml_dtypes.bfloat16 array (the JAX convention).
 * numpy.load returns such a file as dtype 'V2'; to get values:
 *     a = np.load(p).view('<u2').astype(np.uint32) << 16; a.view(np.float32)
 * or torch.from_numpy(np.load(p).view(np.int16)).view(torch.bfloat16).
 * We read '<V2', '|V2' and 'V2' as bfloat16. uint16 ('<u2') is not a kgen dtype
 * and is rejected, so bfloat16 can never be confused with integer data.
 *
 * Random inputs follow torch.testing.make_tensor's default ranges: a splitmix64
 * stream seeded with `seed`; floats uniform in [-9, 9) computed in double and
 * rounded once to the target type (round to nearest even, also for float16 and
 * bfloat16), signed ints uniform in [-9, 10), uint8 in [0, 10), bool {0, 1}.
 */
#include "check.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../ir/ir.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "npy.c assumes a little-endian host"
#endif

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAX_HEADER (1u << 20) /* v2/v3 headers: far above anything numpy writes */

/* Per dtype: the descriptor we write, the kind letter and size we accept, a name. */
typedef struct npy_desc {
  const char *descr; /* written as is */
  char kind;         /* numpy kind letter: b u i f V */
  int size;          /* bytes per element */
  const char *name;  /* torch name, for messages */
} npy_desc;

static const npy_desc k_desc[KG_DT__COUNT] = {
    [KG_BOOL] = {"|b1", 'b', 1, "bool"},      [KG_U8] = {"|u1", 'u', 1, "uint8"},
    [KG_I8] = {"|i1", 'i', 1, "int8"},        [KG_I16] = {"<i2", 'i', 2, "int16"},
    [KG_I32] = {"<i4", 'i', 4, "int32"},      [KG_I64] = {"<i8", 'i', 8, "int64"},
    [KG_F16] = {"<f2", 'f', 2, "float16"},    [KG_BF16] = {"<V2", 'V', 2, "bfloat16"},
    [KG_F32] = {"<f4", 'f', 4, "float32"},    [KG_F64] = {"<f8", 'f', 8, "float64"},
};

static bool dtype_ok(int t) { return t >= 0 && t < KG_DT__COUNT; }

/* ---- header parsing: a tiny reader for the dict literal ---- */

typedef struct hdr_parser {
  const char *s, *end;
  const char *path; /* for messages */
  kg_diag *d;
  const char *start; /* header start, for offsets in messages */
} hdr_parser;

static void hp_skip_ws(hdr_parser *p) {
  while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r'))
    p->s++;
}

static int hp_fail(hdr_parser *p, const char *what) {
  kg_diag_add(p->d, KG_E_IO, NULL, NULL, "%s: bad .npy header at byte %ld of the header: %s",
              p->path, (long)(p->s - p->start), what);
  return -1;
}

static bool hp_eat(hdr_parser *p, char c) {
  hp_skip_ws(p);
  if (p->s < p->end && *p->s == c) {
    p->s++;
    return true;
  }
  return false;
}

/* A quoted string without escapes (numpy never writes any) into buf. */
static int hp_string(hdr_parser *p, char *buf, size_t cap) {
  hp_skip_ws(p);
  if (p->s >= p->end || (*p->s != '\'' && *p->s != '"')) return hp_fail(p, "expected a quoted string");
  char q = *p->s++;
  size_t n = 0;
  while (p->s < p->end && *p->s != q) {
    if (*p->s == '\\' || (unsigned char)*p->s < 0x20) return hp_fail(p, "unsupported character in string");
    if (n + 1 >= cap) return hp_fail(p, "string too long");
    buf[n++] = *p->s++;
  }
  if (p->s >= p->end) return hp_fail(p, "unterminated string");
  p->s++;
  buf[n] = 0;
  return 0;
}

static int hp_bool(hdr_parser *p, bool *v) {
  hp_skip_ws(p);
  size_t left = (size_t)(p->end - p->s);
  if (left >= 4 && !memcmp(p->s, "True", 4)) {
    p->s += 4, *v = true;
    return 0;
  }
  if (left >= 5 && !memcmp(p->s, "False", 5)) {
    p->s += 5, *v = false;
    return 0;
  }
  return hp_fail(p, "expected True or False for 'fortran_order'");
}

/* "(3, 4)", "(5,)", "()"; Python 2 files may carry an 'L' suffix. */
static int hp_shape(hdr_parser *p, int *rank, int64_t *shape) {
  if (!hp_eat(p, '(')) return hp_fail(p, "expected a tuple '(' for 'shape'");
  *rank = 0;
  for (;;) {
    if (hp_eat(p, ')')) return 0;
    hp_skip_ws(p);
    if (p->s >= p->end || *p->s < '0' || *p->s > '9')
      return hp_fail(p, "expected a non-negative integer dimension");
    int64_t v = 0;
    while (p->s < p->end && *p->s >= '0' && *p->s <= '9') {
      if (v > (INT64_MAX - 9) / 10) return hp_fail(p, "dimension too large");
      v = v * 10 + (*p->s++ - '0');
    }
    if (p->s < p->end && (*p->s == 'L' || *p->s == 'l')) p->s++;
    if (*rank >= KG_MAX_RANK) {
      kg_diag_add(p->d, KG_E_LIMIT, NULL, NULL, "%s: .npy array has rank above %d (not supported)",
                  p->path, KG_MAX_RANK);
      return -1;
    }
    shape[(*rank)++] = v;
    if (hp_eat(p, ',')) continue;
    if (hp_eat(p, ')')) {
      if (*rank == 1) return hp_fail(p, "one-element tuple without trailing comma");
      return 0;
    }
    return hp_fail(p, "expected ',' or ')' in 'shape'");
  }
}

/* Maps a descriptor string to a dtype; *swap when big endian. */
static int descr_to_dtype(hdr_parser *p, const char *descr, int *dtype, bool *swap) {
  const char *s = descr;
  char order = '|';
  if (*s == '<' || *s == '>' || *s == '|' || *s == '=') order = *s++;
  char kind = *s ? *s++ : 0;
  char *endp = NULL;
  long size = (*s >= '0' && *s <= '9') ? strtol(s, &endp, 10) : -1;
  if (size <= 0 || !endp || *endp) {
    kg_diag_add(p->d, KG_E_IO, NULL, NULL, "%s: unrecognised .npy descriptor '%s'", p->path, descr);
    return -1;
  }
  if (kind == '?') kind = 'b';
  for (int t = 0; t < KG_DT__COUNT; t++) {
    if (k_desc[t].kind == kind && k_desc[t].size == size) {
      *dtype = t;
      *swap = order == '>' && size > 1 && kind != 'V';
      if (order == '>' && kind == 'V') break; /* bfloat16 bits are little endian */
      return 0;
    }
  }
  const char *hint = "";
  if (kind == 'u' && size == 2) hint = " (bfloat16 is stored as '<V2'; uint16 is not a kgen dtype)";
  else if (kind == 'c') hint = " (complex numbers are not supported)";
  kg_diag_add(p->d, KG_E_IO, NULL, NULL, "%s: .npy descriptor '%s' is not a supported dtype%s",
              p->path, descr, hint);
  return -1;
}

typedef struct npy_header {
  int dtype;
  bool swap, fortran;
  int rank;
  int64_t shape[KG_MAX_RANK];
} npy_header;

static int parse_header(hdr_parser *p, npy_header *h) {
  bool have_descr = false, have_fortran = false, have_shape = false;
  if (!hp_eat(p, '{')) return hp_fail(p, "expected '{'");
  for (;;) {
    if (hp_eat(p, '}')) break;
    char key[32], descr[32];
    if (hp_string(p, key, sizeof key)) return -1;
    if (!hp_eat(p, ':')) return hp_fail(p, "expected ':' after a key");
    if (!strcmp(key, "descr")) {
      hp_skip_ws(p);
      if (p->s < p->end && *p->s == '[')
        return hp_fail(p, "structured dtypes (a list 'descr') are not supported");
      if (hp_string(p, descr, sizeof descr)) return -1;
      if (descr_to_dtype(p, descr, &h->dtype, &h->swap)) return -1;
      have_descr = true;
    } else if (!strcmp(key, "fortran_order")) {
      if (hp_bool(p, &h->fortran)) return -1;
      have_fortran = true;
    } else if (!strcmp(key, "shape")) {
      if (hp_shape(p, &h->rank, h->shape)) return -1;
      have_shape = true;
    } else {
      kg_diag_add(p->d, KG_E_IO, NULL, NULL,
                  "%s: .npy header has the unexpected key '%s' (numpy writes only 'descr', "
                  "'fortran_order' and 'shape')",
                  p->path, key);
      return -1;
    }
    if (hp_eat(p, ',')) continue;
    if (hp_eat(p, '}')) break;
    return hp_fail(p, "expected ',' or '}'");
  }
  hp_skip_ws(p);
  if (p->s != p->end) return hp_fail(p, "trailing characters after the dict");
  if (!have_descr || !have_fortran || !have_shape) {
    kg_diag_add(p->d, KG_E_IO, NULL, NULL, "%s: .npy header lacks the key '%s'", p->path,
                !have_descr ? "descr" : !have_fortran ? "fortran_order" : "shape");
    return -1;
  }
  return 0;
}

static void byteswap(unsigned char *b, size_t n, int size) {
  for (size_t i = 0; i < n; i++, b += size)
    for (int j = 0; j < size / 2; j++) {
      unsigned char t = b[j];
      b[j] = b[size - 1 - j];
      b[size - 1 - j] = t;
    }
}

/* Fortran (column-major) → C (row-major) order. */
static void *fortran_to_c(const unsigned char *src, int rank, const int64_t *shape, size_t n,
                          int size) {
  unsigned char *dst = kg_xmalloc(n * (size_t)size + 1);
  int64_t fstride[KG_MAX_RANK], idx[KG_MAX_RANK] = {0};
  int64_t s = 1;
  for (int k = 0; k < rank; k++) fstride[k] = s, s *= shape[k];
  for (size_t i = 0; i < n; i++) {
    int64_t off = 0;
    for (int k = 0; k < rank; k++) off += idx[k] * fstride[k];
    memcpy(dst + i * (size_t)size, src + (size_t)off * (size_t)size, (size_t)size);
    for (int k = rank - 1; k >= 0; k--) { /* C-order increment */
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
  }
  return dst;
}

int kg_npy_read(const char *path, kg_npy *out, kg_diag *d) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) {
    kg_diag_add(d, KG_E_IO, NULL, NULL, "%s: cannot open .npy file: %s", path, strerror(errno));
    return -1;
  }
  char *hdr = NULL;
  unsigned char *data = NULL;
  int rc = -1;
  struct stat st;
  unsigned char pre[12];
  if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
    kg_diag_add(d, KG_E_IO, NULL, NULL, "%s: not a regular file", path);
    goto done;
  }
  size_t got = fread(pre, 1, 10, f);
  if (got < 8 || memcmp(pre, NPY_MAGIC, 6)) {
    kg_diag_add(d, KG_E_IO, NULL, NULL, "%s: not a .npy file (bad magic)", path);
    goto done;
  }
  int major = pre[6], minor = pre[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    kg_diag_add(d, KG_E_IO, NULL, NULL, "%s: unsupported .npy format version %d.%d", path, major,
                minor);
    goto done;
  }
  size_t pre_len = major == 1 ? 10 : 12;
  if (pre_len == 12 && got == 10) got += fread(pre + 10, 1, 2, f);
  if (got < pre_len) {
    kg_diag_add(d, KG_E_IO, NULL, NULL, "%s: truncated .npy preamble", path);
    goto done;
  }
  uint32_t hlen = major == 1 ? (uint32_t)(pre[8] | pre[9] << 8)
                             : (uint32_t)pre[8] | (uint32_t)pre[9] << 8 |
                                   (uint32_t)pre[10] << 16 | (uint32_t)pre[11] << 24;
  if (hlen > NPY_MAX_HEADER) {
    kg_diag_add(d, KG_E_LIMIT, NULL, NULL, "%s: .npy header length %u is above the limit of %u",
                path, hlen, NPY_MAX_HEADER);
    goto done;
  }
  hdr = kg_xmalloc(hlen + 1);
  if (fread(hdr, 1, hlen, f) != hlen) {
    kg_diag_add(d, KG_E_IO, NULL, NULL, "%s: truncated .npy header (%u bytes announced)", path,
                hlen);
    goto done;
  }
  hdr[hlen] = 0;
  if (memchr(hdr, 0, hlen)) {
    kg_diag_add(d, KG_E_IO, NULL, NULL, "%s: .npy header contains a NUL byte", path);
    goto done;
  }
  hdr_parser p = {hdr, hdr + hlen, path, d, hdr};
  npy_header h = {0};
  if (parse_header(&p, &h)) goto done;

  /* Element count and byte size, overflow-checked. */
  const int size = k_desc[h.dtype].size;
  uint64_t n = 1;
  for (int k = 0; k < h.rank; k++) {
    if (h.shape[k] != 0 && n > (UINT64_MAX / 16) / (uint64_t)h.shape[k]) {
      kg_diag_add(d, KG_E_LIMIT, NULL, NULL, "%s: .npy shape has too many elements", path);
      goto done;
    }
    n *= (uint64_t)h.shape[k];
  }
  uint64_t nbytes = n * (uint64_t)size;
  uint64_t data_off = pre_len + hlen;
  uint64_t have = (uint64_t)st.st_size > data_off ? (uint64_t)st.st_size - data_off : 0;
  if (have != nbytes) {
    kg_diag_add(d, KG_E_IO, NULL, NULL,
                "%s: .npy data is %llu bytes but the header (%s, %llu elements) needs %llu%s",
                path, (unsigned long long)have, k_desc[h.dtype].descr, (unsigned long long)n,
                (unsigned long long)nbytes, have < nbytes ? " (truncated file)" : " (trailing bytes)");
    goto done;
  }
  data = nbytes < SIZE_MAX ? malloc((size_t)nbytes + 1) : NULL; /* +1: never malloc(0) */
  if (!data) {
    kg_diag_add(d, KG_E_LIMIT, NULL, NULL, "%s: cannot allocate the %llu bytes of its data", path, (unsigned long long)nbytes);
    goto done;
  }
  if (fread(data, 1, (size_t)nbytes, f) != nbytes) {
    kg_diag_add(d, KG_E_IO, NULL, NULL, "%s: read error in .npy data", path);
    goto done;
  }
  if (h.swap) byteswap(data, (size_t)n, size);
  if (h.fortran && h.rank > 1) {
    unsigned char *c = fortran_to_c(data, h.rank, h.shape, (size_t)n, size);
    free(data);
    data = c;
  }
  out->dtype = h.dtype;
  out->rank = h.rank;
  memcpy(out->shape, h.shape, sizeof h.shape);
  out->data = data;
  out->nbytes = (size_t)nbytes;
  data = NULL;
  rc = 0;
done:
  free(data);
  free(hdr);
  fclose(f);
  return rc;
}

int kg_npy_write(const char *path, const kg_npy *a, kg_diag *d) {
  if (!dtype_ok(a->dtype) || a->rank < 0 || a->rank > KG_MAX_RANK) {
    kg_diag_add(d, KG_E_ARG, NULL, NULL, "%s: cannot write .npy: bad dtype %d or rank %d", path,
                a->dtype, a->rank);
    return -1;
  }
  uint64_t n = 1;
  for (int k = 0; k < a->rank; k++) {
    if (a->shape[k] < 0) {
      kg_diag_add(d, KG_E_ARG, NULL, NULL, "%s: cannot write .npy: negative dimension", path);
      return -1;
    }
    n *= (uint64_t)a->shape[k];
  }
  if (n * (uint64_t)k_desc[a->dtype].size != a->nbytes || (a->nbytes && !a->data)) {
    kg_diag_add(d, KG_E_ARG, NULL, NULL,
                "%s: cannot write .npy: %zu data bytes do not match the shape (%llu elements of %s)",
                path, a->nbytes, (unsigned long long)n, k_desc[a->dtype].name);
    return -1;
  }
  kg_strbuf h;
  kg_sb_init(&h);
  kg_sb_printf(&h, "{'descr': '%s', 'fortran_order': False, 'shape': (", k_desc[a->dtype].descr);
  for (int k = 0; k < a->rank; k++)
    kg_sb_printf(&h, "%s%lld", k ? ", " : "", (long long)a->shape[k]);
  kg_sb_puts(&h, a->rank == 1 ? ",), }" : "), }");
  while ((10 + h.len + 1) % 64) kg_sb_putc(&h, ' ');
  kg_sb_putc(&h, '\n');
  unsigned char pre[10];
  memcpy(pre, NPY_MAGIC, 6);
  pre[6] = 1, pre[7] = 0, pre[8] = (unsigned char)(h.len & 0xff), pre[9] = (unsigned char)(h.len >> 8);

  FILE *f = fopen(path, "wb");
  if (!f) {
    kg_diag_add(d, KG_E_IO, NULL, NULL, "%s: cannot create .npy file: %s", path, strerror(errno));
    kg_sb_free(&h);
    return -1;
  }
  bool ok = fwrite(pre, 1, 10, f) == 10 && fwrite(h.s, 1, h.len, f) == h.len &&
            (a->nbytes == 0 || fwrite(a->data, 1, a->nbytes, f) == a->nbytes);
  int saved = errno;
  if (fclose(f)) ok = false, saved = errno;
  kg_sb_free(&h);
  if (!ok) {
    kg_diag_add(d, KG_E_IO, NULL, NULL, "%s: error writing .npy file: %s", path, strerror(saved));
    remove(path);
    return -1;
  }
  return 0;
}

void kg_npy_free(kg_npy *a) {
  if (!a) return;
  free(a->data);
  a->data = NULL;
  a->nbytes = 0;
}

/* ---- random inputs ---- */

static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Rounds a double to a binary float with `mbits` stored mantissa bits and
 * `ebits` exponent bits (float16: 10/5, bfloat16: 7/8), round to nearest even,
 * with subnormals and overflow to infinity. Returns the bit pattern. One
 * rounding step from double, so no double-rounding error through float. */
static uint16_t round_small_float(double x, int mbits, int ebits) {
  const int bias = (1 << (ebits - 1)) - 1;
  const uint16_t inf = (uint16_t)(((1u << ebits) - 1) << mbits);
  uint16_t sign = signbit(x) ? (uint16_t)(1u << (mbits + ebits)) : 0;
  if (isnan(x)) return (uint16_t)(inf | (1u << (mbits - 1))); /* quiet NaN */
  x = fabs(x);
  if (isinf(x)) return sign | inf;
  if (x == 0) return sign;
  int e;
  double m = frexp(x, &e); /* x = m·2^e, m in [0.5, 1) */
  int E = e - 1;           /* x = (2m)·2^E, 2m in [1, 2) */
  if (E < 1 - bias) {      /* subnormal: units of 2^(1-bias-mbits); 2^mbits units is the min normal */
    double q = rint(ldexp(x, bias - 1 + mbits));
    return sign | (uint16_t)q;
  }
  double q = rint(ldexp(m, mbits + 1)); /* in [2^mbits, 2^(mbits+1)] */
  if (q >= ldexp(1, mbits + 1)) q = ldexp(1, mbits), E++;
  if (E + bias >= (1 << ebits) - 1) return sign | inf;
  return sign | (uint16_t)((unsigned)(E + bias) << mbits) | (uint16_t)((uint32_t)q - (1u << mbits));
}

bool kg_tensor_bytes(const int64_t *shape, int rank, size_t elsize, size_t *bytes) {
  size_t n = elsize;
  for (int k = 0; k < rank; k++) {
    if (shape[k] < 0) return false;
    if (shape[k] == 0) n = 0;
    else if (n > SIZE_MAX / (size_t)shape[k]) return false;
    else n *= (size_t)shape[k];
  }
  if (n > SIZE_MAX - 64) return false;
  *bytes = n;
  return true;
}

int kg_npy_random(kg_npy *a, int dtype, int rank, const int64_t *shape, uint64_t seed,
                   bool nonzero) {
  return kg_npy_random_in(a, dtype, rank, shape, seed, nonzero, NULL);
}

int kg_npy_random_in(kg_npy *a, int dtype, int rank, const int64_t *shape, uint64_t seed, bool nonzero,
                     const double *range) {
  KG_ASSERT(dtype_ok(dtype) && rank >= 0 && rank <= KG_MAX_RANK);
  memset(a, 0, sizeof *a);
  a->dtype = dtype;
  a->rank = rank;
  for (int k = 0; k < rank; k++) a->shape[k] = shape[k]; /* a negative size: kg_tensor_bytes refuses it (-1) */
  const int size = k_desc[dtype].size;
  unsigned char *p = NULL;
  if (!kg_tensor_bytes(shape, rank, (size_t)size, &a->nbytes) || !(p = malloc(a->nbytes + 1))) {
    a->data = NULL;
    return -1;
  }
  a->data = p;
  size_t n = a->nbytes / (size_t)size;
  uint64_t s = seed ^ ((uint64_t)dtype << 56); /* different dtypes, different streams */
  for (size_t i = 0; i < n; i++) {
    if (kg_dtype_is_float((kg_dtype)dtype)) {
      double v;
      uint16_t bits = 0;
      double flo = range ? range[0] : -9.0, fw = range ? range[1] - range[0] : 18.0;
      for (int tries = 0;; tries++) {
        v = flo + fw * (double)(splitmix64(&s) >> 11) * 0x1.0p-53;
        if (dtype == KG_F16) bits = round_small_float(v, 10, 5);
        else if (dtype == KG_BF16) bits = round_small_float(v, 7, 8);
        bool zero = dtype == KG_F16 || dtype == KG_BF16 ? (bits & 0x7fff) == 0
                    : dtype == KG_F32                   ? (float)v == 0.0f
                                                        : v == 0.0;
        if (!nonzero || !zero || tries >= 64) break;
      }
      if (dtype == KG_F32) {
        float f = (float)v;
        memcpy(p + i * 4, &f, 4);
      } else if (dtype == KG_F64) {
        memcpy(p + i * 8, &v, 8);
      } else {
        memcpy(p + i * 2, &bits, 2);
      }
    } else {
      int64_t lo = -9, hi = 10; /* [lo, hi) */
      if (dtype == KG_BOOL) lo = 0, hi = 2;
      if (dtype == KG_U8) lo = 0;
      if (range) lo = (int64_t)ceil(range[0]), hi = (int64_t)ceil(range[1]);
      if (hi <= lo) hi = lo + 1; /* an empty range [lo, lo): every element lo */
      if (nonzero && lo == 0 && hi > 1) lo = 1;
      int64_t v;
      int tries = 0;
      do {
        v = lo + (int64_t)(((splitmix64(&s) >> 32) * (uint64_t)(hi - lo)) >> 32);
      } while (nonzero && v == 0 && ++tries < 64);
      switch (size) {
      case 1: { int8_t x = (int8_t)v; memcpy(p + i, &x, 1); break; }
      case 2: { int16_t x = (int16_t)v; memcpy(p + i * 2, &x, 2); break; }
      case 4: { int32_t x = (int32_t)v; memcpy(p + i * 4, &x, 4); break; }
      default: memcpy(p + i * 8, &v, 8); break;
      }
    }
  }
  return 0;
}
