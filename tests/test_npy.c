/* tests/test_npy.c — .npy read / write (check/npy.c): round trips for every dtype,
 * 0-dim, empty and rank-8 arrays, files exchanged with numpy (from /usr/bin/python3,
 * skipped when it has no numpy), malformed and fuzzed files, random inputs. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir/ir.h"
#include "check/check.h"

static const int k_dtypes[] = {KG_BOOL, KG_U8,   KG_I8,   KG_I16, KG_I32,
                               KG_I64,  KG_F16, KG_BF16, KG_F32, KG_F64};
static const char *k_names[] = {"bool",  "uint8",   "int8",    "int16",   "int32",
                                "int64", "float16", "bfloat16", "float32", "float64"};
static const int k_sizes[] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};

/* ---- helpers ---- */

static char *make_tmpdir(void) {
  char tmpl[] = "/tmp/kgen_npy_XXXXXX";
  char *d = mkdtemp(tmpl);
  cr_assert_not_null(d);
  return strdup(d);
}

static void rm_tree(const char *dir) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_assert_eq(system(cmd), 0);
}

static char *path_in(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *p = malloc(n);
  snprintf(p, n, "%s/%s", dir, name);
  return p;
}

static bool have_numpy(void) {
  return system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0;
}

static void write_bytes(const char *path, const void *b, size_t n) {
  FILE *f = fopen(path, "wb");
  cr_assert_not_null(f);
  cr_assert_eq(fwrite(b, 1, n, f), n);
  fclose(f);
}

/* A v1.0 file with a hand-written header (padded) and `data_len` zero bytes. */
static void write_with_header(const char *path, const char *header, size_t data_len) {
  size_t hl = strlen(header);
  size_t total = 10 + hl + 1;
  size_t pad = (64 - total % 64) % 64;
  size_t n = total + pad + data_len;
  unsigned char *b = calloc(1, n);
  memcpy(b, "\x93NUMPY\x01\x00", 8);
  size_t hlen = hl + pad + 1;
  b[8] = (unsigned char)(hlen & 0xff), b[9] = (unsigned char)(hlen >> 8);
  memcpy(b + 10, header, hl);
  memset(b + 10 + hl, ' ', pad);
  b[10 + hl + pad] = '\n';
  write_bytes(path, b, n);
  free(b);
}

static double half_to_double(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
  return (h & 0x8000) ? -v : v;
}

static double bf16_to_double(uint16_t b) {
  uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* Element i of an array as a double. */
static double elem(const kg_npy *a, size_t i) {
  const unsigned char *p = a->data;
  switch (a->dtype) {
  case KG_BOOL: case KG_U8: return p[i];
  case KG_I8: return (signed char)p[i];
  case KG_I16: { int16_t v; memcpy(&v, p + 2 * i, 2); return v; }
  case KG_I32: { int32_t v; memcpy(&v, p + 4 * i, 4); return v; }
  case KG_I64: { int64_t v; memcpy(&v, p + 8 * i, 8); return (double)v; }
  case KG_F16: { uint16_t v; memcpy(&v, p + 2 * i, 2); return half_to_double(v); }
  case KG_BF16: { uint16_t v; memcpy(&v, p + 2 * i, 2); return bf16_to_double(v); }
  case KG_F32: { float v; memcpy(&v, p + 4 * i, 4); return v; }
  case KG_F64: { double v; memcpy(&v, p + 8 * i, 8); return v; }
  }
  cr_assert_fail("bad dtype");
  return 0;
}

static size_t numel(const kg_npy *a) {
  size_t n = 1;
  for (int k = 0; k < a->rank; k++) n *= (size_t)a->shape[k];
  return n;
}

static bool diag_mentions(const kg_diag *d, const char *s) {
  for (uint32_t i = 0; i < d->n; i++)
    if (strstr(d->items[i].msg, s)) return true;
  return false;
}

/* ---- round trips ---- */

Test(npy, roundtrip_every_dtype) {
  char *dir = make_tmpdir();
  for (size_t t = 0; t < KG_COUNTOF(k_dtypes); t++) {
    int64_t shape[] = {3, 5};
    kg_npy a, b;
    kg_npy_random(&a, k_dtypes[t], 2, shape, 42 + t, false);
    cr_assert_eq(a.nbytes, 15u * (size_t)k_sizes[t]);
    char *p = path_in(dir, k_names[t]);
    kg_diag d;
    kg_diag_init(&d);
    cr_assert_eq(kg_npy_write(p, &a, &d), 0);
    cr_assert_eq(kg_npy_read(p, &b, &d), 0, "%s", d.n ? d.items[0].msg : "");
    cr_assert_eq(b.dtype, k_dtypes[t]);
    cr_assert_eq(b.rank, 2);
    cr_assert_eq(b.shape[0], 3);
    cr_assert_eq(b.shape[1], 5);
    cr_assert_eq(b.nbytes, a.nbytes);
    cr_assert_eq(memcmp(a.data, b.data, a.nbytes), 0, "%s", k_names[t]);
    struct stat st;
    cr_assert_eq(stat(p, &st), 0);
    cr_assert_eq(((size_t)st.st_size - a.nbytes) % 64, 0, "data must start at a multiple of 64");
    kg_npy_free(&a), kg_npy_free(&b), kg_diag_free(&d), free(p);
  }
  rm_tree(dir);
  free(dir);
}

Test(npy, zero_dim_empty_and_rank8) {
  char *dir = make_tmpdir();
  char *p = path_in(dir, "a.npy");
  kg_diag d;
  kg_diag_init(&d);
  struct { int rank; int64_t shape[8]; size_t n; } cases[] = {
      {0, {0}, 1}, {1, {0}, 0}, {3, {2, 0, 3}, 0}, {1, {1}, 1},
      {8, {1, 2, 1, 2, 1, 2, 1, 3}, 24},
  };
  for (size_t c = 0; c < KG_COUNTOF(cases); c++) {
    kg_npy a, b;
    kg_npy_random(&a, KG_F64, cases[c].rank, cases[c].shape, 7, false);
    cr_assert_eq(a.nbytes, cases[c].n * 8);
    cr_assert_not_null(a.data);
    cr_assert_eq(kg_npy_write(p, &a, &d), 0);
    cr_assert_eq(kg_npy_read(p, &b, &d), 0, "%s", d.n ? d.items[0].msg : "");
    cr_assert_eq(b.rank, cases[c].rank);
    for (int k = 0; k < b.rank; k++) cr_assert_eq(b.shape[k], cases[c].shape[k]);
    cr_assert_eq(b.nbytes, a.nbytes);
    cr_assert_not_null(b.data);
    cr_assert_eq(memcmp(a.data, b.data, a.nbytes), 0);
    kg_npy_free(&a), kg_npy_free(&b);
  }
  /* The header spells shapes as numpy does. */
  kg_npy s;
  int64_t none[1] = {0};
  kg_npy_random(&s, KG_F32, 0, none, 1, false);
  cr_assert_eq(kg_npy_write(p, &s, &d), 0);
  size_t len;
  char *text = kg_read_file(p, &len);
  cr_assert(strstr(text + 10, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }"));
  free(text);
  int64_t one[1] = {5};
  kg_npy_free(&s);
  kg_npy_random(&s, KG_BF16, 1, one, 1, false);
  cr_assert_eq(kg_npy_write(p, &s, &d), 0);
  text = kg_read_file(p, &len);
  cr_assert(strstr(text + 10, "{'descr': '<V2', 'fortran_order': False, 'shape': (5,), }"));
  free(text);
  kg_npy_free(&s);
  cr_assert_eq(d.n, 0);

  /* Bad arrays are refused on writing. */
  kg_npy bad = {.dtype = KG_F32, .rank = 9};
  cr_assert_eq(kg_npy_write(p, &bad, &d), -1);
  float f[3] = {0};
  kg_npy mism = {.dtype = KG_F32, .rank = 1, .shape = {4}, .data = f, .nbytes = sizeof f};
  cr_assert_eq(kg_npy_write(p, &mism, &d), -1);
  cr_assert_eq(d.n, 2);
  cr_assert(diag_mentions(&d, "do not match the shape"));
  cr_assert_eq(d.items[0].code, KG_E_ARG);
  kg_npy ok = mism;
  ok.shape[0] = 3;
  char *nodir = path_in(dir, "no/such/dir.npy");
  cr_assert_eq(kg_npy_write(nodir, &ok, &d), -1);
  cr_assert_eq(d.items[2].code, KG_E_IO);
  free(nodir);
  kg_diag_free(&d);
  free(p);
  rm_tree(dir);
  free(dir);
}

/* ---- exchanging files with numpy ---- */

Test(npy, numpy_loads_what_we_write) {
  if (!have_numpy()) cr_skip_test("/usr/bin/python3 has no numpy");
  char *dir = make_tmpdir();
  kg_diag d;
  kg_diag_init(&d);
  kg_npy a[KG_COUNTOF(k_dtypes)];
  for (size_t t = 0; t < KG_COUNTOF(k_dtypes); t++) {
    int64_t shape[] = {4, 3, 2};
    kg_npy_random(&a[t], k_dtypes[t], 3, shape, 100 + t, false);
    char name[64];
    snprintf(name, sizeof name, "%s.npy", k_names[t]);
    char *p = path_in(dir, name);
    cr_assert_eq(kg_npy_write(p, &a[t], &d), 0);
    free(p);
  }
  /* numpy loads each, checks the dtype, and saves the values as float64. */
  static const char script[] =
      "import sys, numpy as np\n"
      "d = sys.argv[1]\n"
      "want = {'bool': 'bool', 'uint8': 'uint8', 'int8': 'int8', 'int16': 'int16',\n"
      "        'int32': 'int32', 'int64': 'int64', 'float16': 'float16',\n"
      "        'bfloat16': '|V2', 'float32': 'float32', 'float64': 'float64'}\n"
      "for n, dt in want.items():\n"
      "    a = np.load('%s/%s.npy' % (d, n))\n"
      "    assert str(a.dtype) == dt, (n, a.dtype)\n"
      "    assert a.shape == (4, 3, 2), (n, a.shape)\n"
      "    if n == 'bfloat16':\n"
      "        a = (a.view('<u2').astype(np.uint32) << 16).view(np.float32)\n"
      "    np.save('%s/%s.f64.npy' % (d, n), a.astype(np.float64))\n";
  char *sp = path_in(dir, "check.py");
  write_bytes(sp, script, strlen(script));
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s %s", sp, dir);
  cr_assert_eq(system(cmd), 0, "numpy could not load our files");
  for (size_t t = 0; t < KG_COUNTOF(k_dtypes); t++) {
    char name[64];
    snprintf(name, sizeof name, "%s.f64.npy", k_names[t]);
    char *p = path_in(dir, name);
    kg_npy b;
    cr_assert_eq(kg_npy_read(p, &b, &d), 0);
    cr_assert_eq(b.dtype, KG_F64);
    for (size_t i = 0; i < 24; i++)
      cr_assert_eq(elem(&b, i), elem(&a[t], i), "%s[%zu]", k_names[t], i);
    kg_npy_free(&b), kg_npy_free(&a[t]), free(p);
  }
  kg_diag_free(&d);
  free(sp);
  rm_tree(dir);
  free(dir);
}

Test(npy, we_load_what_numpy_writes) {
  if (!have_numpy()) cr_skip_test("/usr/bin/python3 has no numpy");
  char *dir = make_tmpdir();
  /* Value of element i: (i % 7) - 3, in every dtype (bool: i % 2). */
  static const char script[] =
      "import sys, numpy as np\n"
      "from numpy.lib import format as fmt\n"
      "d = sys.argv[1]\n"
      "v = (np.arange(24) % 7 - 3).reshape(2, 3, 4)\n"
      "for n in ['uint8', 'int8', 'int16', 'int32', 'int64', 'float16', 'float32', 'float64']:\n"
      "    np.save('%s/%s.npy' % (d, n), (np.abs(v) if n == 'uint8' else v).astype(n))\n"
      "np.save(d + '/bool.npy', (np.arange(24) % 2 == 1).reshape(2, 3, 4))\n"
      "bf = (v.astype(np.float32).view(np.uint32) >> 16).astype('<u2').view('V2')\n"
      "np.save(d + '/bfloat16.npy', bf)\n"
      "np.save(d + '/fortran.npy', np.asfortranarray(v.astype(np.float64)))\n"
      "np.save(d + '/big_i4.npy', v.astype('>i4'))\n"
      "np.save(d + '/big_f8.npy', v.astype('>f8'))\n"
      "with open(d + '/v2.npy', 'wb') as f:\n"
      "    fmt.write_array(f, v.astype(np.int32), version=(2, 0))\n"
      "with open(d + '/v3.npy', 'wb') as f:\n"
      "    fmt.write_array(f, v.astype(np.int32), version=(3, 0))\n"
      "np.save(d + '/scalar.npy', np.float64(2.5))\n"
      "np.save(d + '/empty.npy', np.zeros((0, 3), np.float32))\n"
      "np.save(d + '/u16.npy', np.zeros(3, np.uint16))\n";
  char *sp = path_in(dir, "make.py");
  write_bytes(sp, script, strlen(script));
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s %s", sp, dir);
  cr_assert_eq(system(cmd), 0);
  kg_diag d;
  kg_diag_init(&d);
  struct { const char *file; int dtype; } cases[] = {
      {"bool", KG_BOOL},   {"uint8", KG_U8},       {"int8", KG_I8},        {"int16", KG_I16},
      {"int32", KG_I32},   {"int64", KG_I64},      {"float16", KG_F16},    {"bfloat16", KG_BF16},
      {"float32", KG_F32}, {"float64", KG_F64},    {"fortran", KG_F64},    {"big_i4", KG_I32},
      {"big_f8", KG_F64},  {"v2", KG_I32},         {"v3", KG_I32},
  };
  for (size_t c = 0; c < KG_COUNTOF(cases); c++) {
    char name[64];
    snprintf(name, sizeof name, "%s.npy", cases[c].file);
    char *p = path_in(dir, name);
    kg_npy a;
    cr_assert_eq(kg_npy_read(p, &a, &d), 0, "%s: %s", name, d.n ? d.items[d.n - 1].msg : "");
    cr_assert_eq(a.dtype, cases[c].dtype, "%s", name);
    cr_assert_eq(a.rank, 3);
    cr_assert(a.shape[0] == 2 && a.shape[1] == 3 && a.shape[2] == 4);
    for (size_t i = 0; i < 24; i++) {
      double want = a.dtype == KG_BOOL ? (double)(i % 2)
                    : a.dtype == KG_U8 ? fabs((double)(i % 7) - 3)
                                       : (double)(i % 7) - 3;
      cr_assert_eq(elem(&a, i), want, "%s[%zu]: %g", name, i, elem(&a, i));
    }
    kg_npy_free(&a), free(p);
  }
  kg_npy a;
  char *p = path_in(dir, "scalar.npy");
  cr_assert_eq(kg_npy_read(p, &a, &d), 0);
  cr_assert_eq(a.rank, 0);
  cr_assert_eq(a.nbytes, 8);
  cr_assert_eq(elem(&a, 0), 2.5);
  kg_npy_free(&a), free(p);
  p = path_in(dir, "empty.npy");
  cr_assert_eq(kg_npy_read(p, &a, &d), 0);
  cr_assert(a.rank == 2 && a.shape[0] == 0 && a.shape[1] == 3 && a.nbytes == 0);
  kg_npy_free(&a), free(p);
  cr_assert_eq(d.n, 0);
  p = path_in(dir, "u16.npy");
  cr_assert_eq(kg_npy_read(p, &a, &d), -1);
  cr_assert(diag_mentions(&d, "uint16 is not a kgen dtype"));
  free(p);
  kg_diag_free(&d);
  free(sp);
  rm_tree(dir);
  free(dir);
}

/* ---- malformed files ---- */

Test(npy, bad_files_are_diagnosed) {
  char *dir = make_tmpdir();
  char *p = path_in(dir, "bad.npy");
  struct { const char *header; size_t data; const char *msg; } cases[] = {
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 20, "truncated file"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 28, "trailing bytes"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", 4, "rank above 8"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", 8, "unexpected key 'x'"},
      {"{'descr': '<f4', 'shape': (2,), }", 8, "lacks the key 'fortran_order'"},
      {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", 8, "structured"},
      {"{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }", 4, "uint16"},
      {"{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16, "complex"},
      {"{'descr': 'O', 'fortran_order': False, 'shape': (2,), }", 16, "unrecognised"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", 0, "non-negative"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2), }", 8, "trailing comma"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }", 0, "too many elements"},
      {"{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,), }", 8, "True or False"},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': (2,), }", 8, "unrecognised"},
      {"{'descr' '<f4', 'fortran_order': False, 'shape': (2,), }", 8, "expected ':'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } extra", 8, "trailing characters"},
      {"", 0, "expected '{'"},
      {"{'descr': '>V2', 'fortran_order': False, 'shape': (2,), }", 4, "not a supported dtype"},
  };
  for (size_t c = 0; c < KG_COUNTOF(cases); c++) {
    write_with_header(p, cases[c].header, cases[c].data);
    kg_diag d;
    kg_diag_init(&d);
    kg_npy a;
    cr_assert_eq(kg_npy_read(p, &a, &d), -1, "case %zu accepted", c);
    cr_assert_eq(d.n, 1);
    cr_assert(d.items[0].code == KG_E_IO || d.items[0].code == KG_E_LIMIT);
    cr_assert(strstr(d.items[0].msg, p), "the message names the file: %s", d.items[0].msg);
    cr_assert(diag_mentions(&d, cases[c].msg), "case %zu: %s", c, d.items[0].msg);
    cr_assert_null(a.data);
    kg_diag_free(&d);
  }
  /* Preamble problems. */
  struct { const char *bytes; size_t n; const char *msg; } pre[] = {
      {"", 0, "bad magic"},
      {"\x93NUMP", 5, "bad magic"},
      {"PK\x03\x04 not npy at all", 20, "bad magic"},
      {"\x93NUMPY\x04\x00\x10\x00", 10, "version 4.0"},
      {"\x93NUMPY\x01\x00\xff\x00{", 11, "truncated .npy header"},
      {"\x93NUMPY\x02\x00\x10\x00", 10, "truncated .npy preamble"},
      {"\x93NUMPY\x02\x00\x00\x00\x00\x01", 12, "above the limit"},
      {"\x93NUMPY\x01\x00\x04\x00{\0}\n", 14, "NUL"},
  };
  for (size_t c = 0; c < KG_COUNTOF(pre); c++) {
    write_bytes(p, pre[c].bytes, pre[c].n);
    kg_diag d;
    kg_diag_init(&d);
    kg_npy a;
    cr_assert_eq(kg_npy_read(p, &a, &d), -1);
    cr_assert(diag_mentions(&d, pre[c].msg), "preamble case %zu: %s", c, d.items[0].msg);
    kg_diag_free(&d);
  }
  kg_diag d;
  kg_diag_init(&d);
  kg_npy a;
  char *missing = path_in(dir, "missing.npy");
  cr_assert_eq(kg_npy_read(missing, &a, &d), -1);
  cr_assert(diag_mentions(&d, "No such file"));
  cr_assert_eq(kg_npy_read(dir, &a, &d), -1); /* a directory */
  cr_assert(diag_mentions(&d, "not a regular file"));
  kg_diag_free(&d);
  free(missing);
  free(p);
  rm_tree(dir);
  free(dir);
}

static uint64_t lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 33;
}

/* Truncations at every length and random byte mutations: never a crash, and every
 * failure comes with a diagnostic; what succeeds is self-consistent. */
Test(npy, fuzz_truncated_and_mutated) {
  char *dir = make_tmpdir();
  char *good = path_in(dir, "good.npy"), *p = path_in(dir, "fuzz.npy");
  kg_npy a;
  int64_t shape[] = {2, 3, 4};
  kg_npy_random(&a, KG_I16, 3, shape, 9, false);
  kg_diag d;
  kg_diag_init(&d);
  cr_assert_eq(kg_npy_write(good, &a, &d), 0);
  kg_npy_free(&a);
  size_t len;
  unsigned char *orig = (unsigned char *)kg_read_file(good, &len);
  for (size_t n = 0; n < len; n++) {
    write_bytes(p, orig, n);
    kg_diag_clear(&d);
    cr_assert_eq(kg_npy_read(p, &a, &d), -1, "truncated to %zu bytes but accepted", n);
    cr_assert_eq(d.n, 1);
  }
  unsigned char *m = malloc(len + 64);
  uint64_t s = 12345;
  int accepted = 0;
  for (int it = 0; it < 4000; it++) {
    memcpy(m, orig, len);
    size_t n = len;
    int edits = 1 + (int)(lcg(&s) % 4);
    for (int e = 0; e < edits; e++) {
      size_t at = lcg(&s) % 128; /* the preamble and header */
      switch (lcg(&s) % 3) {
      case 0: m[at] = (unsigned char)lcg(&s); break;
      case 1: m[at] = "{}(),:' 0123456789<>|fiubV\n\"TrueFals"[lcg(&s) % 36]; break;
      default: m[at] ^= (unsigned char)(1u << (lcg(&s) % 8)); break;
      }
    }
    if (lcg(&s) % 8 == 0) n = lcg(&s) % (len + 64);
    write_bytes(p, m, n);
    kg_diag_clear(&d);
    if (kg_npy_read(p, &a, &d) == 0) {
      accepted++;
      cr_assert_eq(d.n, 0);
      size_t want = 1;
      for (int k = 0; k < a.rank; k++) want *= (size_t)a.shape[k];
      cr_assert_eq(a.nbytes, want * (size_t)k_sizes[a.dtype]);
      kg_npy_free(&a);
    } else {
      cr_assert_geq(d.n, 1);
    }
  }
  cr_log_info("npy fuzz: %d of 4000 mutants accepted", accepted);
  free(m);
  free(orig);
  kg_diag_free(&d);
  free(good), free(p);
  rm_tree(dir);
  free(dir);
}

/* ---- random inputs ---- */

static uint16_t bits16(const kg_npy *a, size_t i) {
  uint16_t v;
  memcpy(&v, (const unsigned char *)a->data + 2 * i, 2);
  return v;
}

Test(npy, random_ranges_and_determinism) {
  int64_t shape[] = {50, 40};
  for (size_t t = 0; t < KG_COUNTOF(k_dtypes); t++) {
    int dt = k_dtypes[t];
    kg_npy a, b, c, z;
    kg_npy_random(&a, dt, 2, shape, 1, false);
    kg_npy_random(&b, dt, 2, shape, 1, false);
    kg_npy_random(&c, dt, 2, shape, 2, false);
    kg_npy_random(&z, dt, 2, shape, 1, true);
    cr_assert_eq(memcmp(a.data, b.data, a.nbytes), 0, "same seed, same values");
    cr_assert_neq(memcmp(a.data, c.data, a.nbytes), 0, "another seed, other values");
    double lo = 1e9, hi = -1e9;
    bool saw_zero = false;
    for (size_t i = 0; i < numel(&a); i++) {
      double v = elem(&a, i);
      lo = fmin(lo, v), hi = fmax(hi, v);
      if (v == 0) saw_zero = true;
      cr_assert_neq(elem(&z, i), 0, "%s: nonzero produced a zero", k_names[t]);
    }
    if (dt == KG_BOOL) cr_assert(lo == 0 && hi == 1);
    else if (dt == KG_U8) cr_assert(lo == 0 && hi == 9 && saw_zero);
    else if (kg_dtype_is_int((kg_dtype)dt)) cr_assert(lo == -9 && hi == 9 && saw_zero, "%s", k_names[t]);
    else cr_assert(lo >= -9 && lo < -8.9 && hi <= 9 && hi > 8.9, "%s: [%g, %g]", k_names[t], lo, hi);
    /* float16 / bfloat16 values are finite and well spread */
    if (dt == KG_F16 || dt == KG_BF16) {
      int distinct = 0;
      for (size_t i = 1; i < numel(&a); i++) distinct += bits16(&a, i) != bits16(&a, 0);
      cr_assert_gt(distinct, 1900);
    }
    kg_npy_free(&a), kg_npy_free(&b), kg_npy_free(&c), kg_npy_free(&z);
  }
}

/* The documented stream: splitmix64 from seed ^ (dtype << 56), u = top 53 bits,
 * value = -9 + 18·u, rounded once to the dtype with round-to-nearest-even. Checks
 * that each float16 / bfloat16 value is the nearest (ties to even) to its double. */
static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

Test(npy, random_half_rounding_is_nearest_even) {
  int64_t shape[] = {20000};
  for (int w = 0; w < 2; w++) {
    int dt = w ? KG_BF16 : KG_F16;
    double (*dec)(uint16_t) = w ? bf16_to_double : half_to_double;
    kg_npy a;
    kg_npy_random(&a, dt, 1, shape, 77, false);
    uint64_t s = 77 ^ ((uint64_t)dt << 56);
    for (size_t i = 0; i < 20000; i++) {
      double v = -9.0 + 18.0 * (double)(splitmix64(&s) >> 11) * 0x1.0p-53;
      uint16_t h = bits16(&a, i);
      double got = dec(h);
      /* neighbours one unit in the last place away, same sign side */
      double up = dec((uint16_t)(h + 1)), down = (h & 0x7fff) ? dec((uint16_t)(h - 1)) : -got;
      double e = fabs(v - got);
      cr_assert(e <= fabs(v - up) && e <= fabs(v - down), "%s: %.17g -> %.17g", k_names[dt], v, got);
      if (e == fabs(v - up) || e == fabs(v - down)) cr_assert_eq(h & 1, 0, "tie not to even");
    }
    kg_npy_free(&a);
  }
}
