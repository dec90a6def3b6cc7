/* cli/fuzz_shape.c — the families of the `kgen fuzz` generator that change shapes (issue 13):
 *   reduce  sum / mean / amax / amin / prod / argmax over one dim, several dims or all, keepdim
 *           or not (dims sometimes negative);
 *   norm    softmax, log_softmax, layer_norm (with or without weight and bias), logsumexp, var,
 *           std;
 *   layout  views and layout ops: t, transpose, permute, flip, unsqueeze, squeeze, reshape /
 *           view / flatten, narrow, select, slice (with a step), cat, stack, expand, repeat,
 *           roll, index_select and gather (indices made in range with % size), masked_fill,
 *           tril / triu, contiguous;
 *   matmul  matmul, mm, bmm, linear (weight as a transposed view, bias or none), addmm.
 * Shapes with the symbols N and M are followed where the op allows it (a symbolic size is at
 * least 13 at check time); sizes an op must know (a narrow's length, a reshape's target) are
 * static. Empty dims are never reduced by an op that has no value for them (amax, mean, …).
 */
#include <math.h>
#include <string.h>

#include "fuzz_int.h"

#define SYM_MIN 13 /* the smallest size the check gives a symbol */

static int norm_dim(fz_rng *r, int d, int rank) { return fz_chance(r, 35) ? d - rank : d; }
static bool dim_nonempty(int d) { return d != 0; }

static fz_shp drop_dims(const fz_shp *s, unsigned mask, bool keepdim) {
  fz_shp o = {0, {0}};
  for (int i = 0; i < s->rank; i++) {
    if (mask >> i & 1) {
      if (keepdim) o.d[o.rank++] = 1;
    } else o.d[o.rank++] = s->d[i];
  }
  return o;
}

/* ---- reduce ---- */
enum { R_SUM, R_MEAN, R_AMAX, R_AMIN, R_PROD, R_ARGMAX, R_ARGMIN, R_SUMN, R_MEANN, R_AMAXN, R_SUMALL, R_MEANALL, R_MAXALL, R_N };

bool fz_gen_reduce(fz_prog *p) {
  fz_rng *r = &p->r;
  fz_node x;
  fz_node_init(&x, N_RED);
  x.op = fz_rnd(r, R_N), x.in[0] = fz_pick(p), x.nin = 1, x.keepdim = fz_chance(r, 50), x.contig = true;
  const fz_node *a = &p->n[x.in[0]];
  int R = a->shape.rank;
  unsigned mask = 0;
  if (x.op >= R_SUMALL) mask = (1u << R) - 1, x.keepdim = false;
  else if (x.op >= R_SUMN) { /* two dims (or one) */
    if (R < 1) return false;
    int d0 = fz_rnd(r, R), d1 = fz_rnd(r, R);
    mask = 1u << d0 | 1u << d1;
    x.ip[0] = norm_dim(r, d0, R), x.ip[1] = norm_dim(r, d1, R), x.ip[2] = d0 == d1 ? 1 : 2;
  } else {
    if (R < 1) return false;
    int d = fz_rnd(r, R);
    mask = 1u << d, x.dim = norm_dim(r, d, R);
  }
  double n = 1;
  bool empty = false;
  for (int i = 0; i < R; i++)
    if (mask >> i & 1) n *= fz_size_bound(a->shape.d[i]), empty |= !dim_nonempty(a->shape.d[i]);
  bool mean = x.op == R_MEAN || x.op == R_MEANN || x.op == R_MEANALL;
  bool ext = x.op == R_AMAX || x.op == R_AMIN || x.op == R_AMAXN || x.op == R_MAXALL || x.op == R_ARGMAX || x.op == R_ARGMIN;
  if (mean && (!is_float(a->dtype) || empty)) return false;         /* mean of ints: error; of nothing: NaN */
  if (ext && (a->dtype == BOOL || empty)) return false;              /* amax over nothing: an error */
  if ((x.op == R_ARGMAX || x.op == R_ARGMIN) && a->inexact) return false; /* ties decided by an ulp */
  if (x.op == R_MAXALL && fz_numel_bound(&a->shape) == 0) return false;
  bool sum = x.op == R_SUM || x.op == R_SUMN || x.op == R_SUMALL;
  if (x.op == R_ARGMAX || x.op == R_ARGMIN) x.dtype = I64, x.mag = n;
  else if (sum || x.op == R_PROD) x.dtype = is_float(a->dtype) ? a->dtype : I64;
  else x.dtype = a->dtype;
  if (sum) x.mag = a->mag * n;
  else if (x.op == R_PROD) {
    if (n > 16) return false;
    x.mag = pow(fmax(a->mag, 1), n);
  } else if (x.op != R_ARGMAX && x.op != R_ARGMIN) x.mag = a->mag;
  if (!fz_mag_ok(x.dtype, x.mag) || (is_float(x.dtype) && x.mag > 1e20)) return false;
  x.inexact = is_float(x.dtype) && (sum || mean || x.op == R_PROD);
  x.shape = drop_dims(&a->shape, mask, x.keepdim);
  if (x.op >= R_SUMALL) x.shape.rank = 0;
  return fz_add_node(p, &x) >= 0;
}

/* ---- norm ---- */
enum { NM_SOFTMAX, NM_LOGSOFTMAX, NM_LAYERNORM, NM_LOGSUMEXP, NM_VAR, NM_STD, NM_N };

bool fz_gen_norm(fz_prog *p) {
  fz_rng *r = &p->r;
  fz_node x;
  fz_node_init(&x, N_NORM);
  x.op = fz_rnd(r, NM_N);
  int a0 = fz_float_operand(p, fz_pick(p));
  if (a0 < 0) return false;
  x.in[0] = a0, x.nin = 1, x.contig = true, x.inexact = true;
  const fz_node *a = &p->n[a0];
  int R = a->shape.rank;
  if (R < 1) return false;
  int d = fz_rnd(r, R), size = a->shape.d[d];
  x.dim = norm_dim(r, d, R), x.keepdim = fz_chance(r, 50), x.dtype = a->dtype, x.shape = a->shape;
  double n = fz_size_bound(size);
  switch (x.op) {
  case NM_SOFTMAX: x.mag = 1; break;
  case NM_LOGSOFTMAX: x.mag = 2 * a->mag + log(n + 1) + 1; break;
  case NM_LAYERNORM: { /* over the last 1 or 2 dims, static, of 2 or more elements */
    /* a row of equal values has variance 0: the output is the rounding of x - mean times
     * 1 / sqrt(eps) = 316, 0 in kgen and 1e-5 in PyTorch (seeds 10483, 20318): only of
     * continuous values, over rows of 2 or more */
    if (a->discrete) return false;
    int k = R >= 2 && fz_chance(r, 30) ? 2 : 1;
    double m = 1;
    for (int i = R - k; i < R; i++) {
      if (a->shape.d[i] <= 0) return false;
      x.ip[i - (R - k)] = a->shape.d[i], m *= a->shape.d[i];
    }
    if (m < 2) return false;
    x.ip[2] = k, x.mag = sqrt(m) + 1;
    /* weight and bias: nodes of the normalized shape and x's dtype, when there are */
    fz_shp ns = {k, {0}};
    for (int i = 0; i < k; i++) ns.d[i] = x.ip[i];
    for (int slot = 1; slot <= 2; slot++)
      for (int t = 0; t < 6; t++) {
        int c = fz_pick(p);
        if (fz_shape_eq(&p->n[c].shape, &ns) && p->n[c].dtype == a->dtype && fz_chance(r, 70)) {
          x.in[slot] = c;
          break;
        }
      }
    double wm = x.in[1] >= 0 ? p->n[x.in[1]].mag : 1, bm = x.in[2] >= 0 ? p->n[x.in[2]].mag : 0;
    x.mag = x.mag * wm + bm;
    /* operands in order with the absent ones left out, as `nin` counts */
    x.ip[3] = x.in[1] >= 0, x.ip[4] = x.in[2] >= 0;
    int ins[3] = {x.in[0], x.in[1], x.in[2]}, k2 = 1;
    for (int i = 1; i < 3; i++)
      if (ins[i] >= 0) x.in[k2++] = ins[i];
    for (int i = k2; i < 3; i++) x.in[i] = -1;
    x.nin = k2;
    break;
  }
  case NM_LOGSUMEXP:
    if (size == 0) return false;
    x.mag = a->mag + log(n) + 1;
    break;
  default: /* var, std: unbiased or not; one element unbiased is NaN in both */
    if (size == 0) return false;
    x.ip[0] = fz_chance(r, 70);
    x.mag = x.op == NM_VAR ? 4 * a->mag * a->mag * (n / (n > 1 ? n - 1 : 1)) : 2 * a->mag * sqrt(n);
    break;
  }
  if (x.op == NM_LOGSUMEXP || x.op >= NM_VAR) x.shape = drop_dims(&a->shape, 1u << d, x.keepdim);
  if (!fz_mag_ok(x.dtype, x.mag)) return false;
  return fz_add_node(p, &x) >= 0;
}

/* ---- layout ---- */
enum { L_T, L_TRANSPOSE, L_PERMUTE, L_FLIP, L_UNSQUEEZE, L_SQUEEZE, L_RESHAPE, L_VIEW, L_FLATTEN, L_NARROW, L_SELECT, L_SLICE,
       L_CAT, L_STACK, L_EXPAND, L_REPEAT, L_ROLL, L_INDEX_SELECT, L_GATHER, L_MASKED_FILL, L_TRIL, L_TRIU, L_CONTIGUOUS, L_N };

bool fz_layout_reads_index(int op) { return op == L_INDEX_SELECT || op == L_GATHER; }

/* x.ip: the op's integers; x.shape the result. Returns false when it does not fit. */
bool fz_gen_layout(fz_prog *p) {
  fz_rng *r = &p->r;
  fz_node x;
  fz_node_init(&x, N_LAYOUT);
  x.op = fz_rnd(r, L_N), x.in[0] = fz_pick(p), x.nin = 1;
  const fz_node *a = &p->n[x.in[0]];
  const fz_shp *s = &a->shape;
  int R = s->rank;
  x.dtype = a->dtype, x.mag = a->mag, x.shape = *s, x.contig = false;
  switch (x.op) {
  case L_T:
    if (R != 2) return false;
    x.shape.d[0] = s->d[1], x.shape.d[1] = s->d[0];
    break;
  case L_TRANSPOSE: {
    if (R < 2) return false;
    int d0 = fz_rnd(r, R), d1 = fz_rnd(r, R);
    x.ip[0] = norm_dim(r, d0, R), x.ip[1] = norm_dim(r, d1, R);
    x.shape.d[d0] = s->d[d1], x.shape.d[d1] = s->d[d0];
    break;
  }
  case L_PERMUTE: {
    if (R < 2) return false;
    int perm[MAXR];
    for (int i = 0; i < R; i++) perm[i] = i;
    for (int i = R - 1; i > 0; i--) {
      int j = fz_rnd(r, i + 1), t = perm[i];
      perm[i] = perm[j], perm[j] = t;
    }
    for (int i = 0; i < R; i++) x.ip[i] = norm_dim(r, perm[i], R), x.shape.d[i] = s->d[perm[i]];
    break;
  }
  case L_FLIP: case L_ROLL: {
    if (R < 1) return false;
    int d = fz_rnd(r, R);
    x.ip[0] = norm_dim(r, d, R), x.ip[1] = fz_rnd(r, 7) - 3; /* roll: the shift */
    if (x.op == L_ROLL && s->d[d] < 0) return false;    /* kgen: roll() over a symbolic size is refused */
    if (x.op == L_ROLL) x.contig = true;
    break;
  }
  case L_UNSQUEEZE: {
    if (R >= MAXR) return false;
    int d = fz_rnd(r, R + 1);
    x.ip[0] = fz_chance(r, 30) ? d - (R + 1) : d;
    x.shape.rank = R + 1;
    for (int i = 0, j = 0; i <= R; i++) x.shape.d[i] = i == d ? 1 : s->d[j++];
    x.contig = a->contig;
    break;
  }
  case L_SQUEEZE: {
    int ones[MAXR], k = 0;
    for (int i = 0; i < R; i++)
      if (s->d[i] == 1) ones[k++] = i;
    if (!k) return false;
    int d = ones[fz_rnd(r, k)];
    x.ip[0] = norm_dim(r, d, R);
    x.shape = drop_dims(s, 1u << d, false);
    x.contig = a->contig;
    break;
  }
  case L_RESHAPE: case L_VIEW: { /* static shapes: split a dim, merge two, or flatten */
    if (!fz_all_static(s) || R < 1 || (x.op == L_VIEW && !a->contig)) return false;
    int k = fz_rnd(r, 3);
    if (k == 0 && R < MAXR) { /* split d into (2, d/2) */
      int d = fz_rnd(r, R);
      if (s->d[d] % 2 || s->d[d] == 0) return false;
      x.shape.rank = R + 1;
      for (int i = 0, j = 0; i < R; i++, j++) {
        if (i == d) x.shape.d[j++] = 2, x.shape.d[j] = s->d[i] / 2;
        else x.shape.d[j] = s->d[i];
      }
    } else if (k == 1 && R >= 2) { /* merge d, d + 1 */
      int d = fz_rnd(r, R - 1);
      x.shape.rank = R - 1;
      for (int i = 0, j = 0; i < R; i++, j++) {
        if (i == d) x.shape.d[j] = s->d[i] * s->d[i + 1], i++;
        else x.shape.d[j] = s->d[i];
      }
    } else {
      int n = 1;
      for (int i = 0; i < R; i++) n *= s->d[i];
      x.shape.rank = 1, x.shape.d[0] = n;
    }
    for (int i = 0; i < x.shape.rank; i++) x.ip[i] = x.shape.d[i];
    if (x.shape.rank > 1 && fz_chance(r, 30)) { /* one size inferred, unless the others' product is 0 (ambiguous: PyTorch's error) */
      int q = fz_rnd(r, x.shape.rank), rest = 1;
      for (int i = 0; i < x.shape.rank; i++) rest *= i == q ? 1 : x.shape.d[i];
      if (rest) x.ip[q] = -1;
    }
    x.ip[7] = x.shape.rank;
    x.contig = a->contig;
    break;
  }
  case L_FLATTEN: { /* flatten(start, end) of static dims */
    if (R < 2) return false;
    int d0 = fz_rnd(r, R - 1), d1 = d0 + 1 + fz_rnd(r, R - 1 - d0);
    int n = 1;
    for (int i = d0; i <= d1; i++) {
      if (s->d[i] < 0) return false;
      n *= s->d[i];
    }
    x.ip[0] = d0, x.ip[1] = fz_chance(r, 30) ? d1 - R : d1;
    x.shape.rank = R - (d1 - d0);
    for (int i = 0, j = 0; i < R; i++) {
      if (i == d0) x.shape.d[j++] = n, i = d1;
      else x.shape.d[j++] = s->d[i];
    }
    break;
  }
  case L_NARROW: case L_SLICE: case L_SELECT: {
    if (R < 1) return false;
    int d = fz_rnd(r, R), n = s->d[d];
    int len = n < 0 ? SYM_MIN : n;
    if (len == 0 || (x.op == L_SLICE && n < 0)) return false; /* kgen: slice() of a symbolic size is refused */
    x.ip[0] = norm_dim(r, d, R);
    if (x.op == L_SELECT) {
      int i = fz_rnd(r, n < 0 ? 2 : len);
      x.ip[1] = fz_chance(r, 30) ? i - len : i;
      if (n < 0) x.ip[1] = i ? -1 : 0;
      x.shape = drop_dims(s, 1u << d, false);
    } else if (x.op == L_NARROW) {
      int st = fz_rnd(r, len), l = fz_rnd(r, len - st + 1);
      x.ip[1] = st, x.ip[2] = l, x.shape.d[d] = l;
    } else {
      int st = fz_rnd(r, len), en = st + fz_rnd(r, len - st + 1), step = 1 + fz_rnd(r, 3);
      x.ip[1] = st, x.ip[2] = en, x.ip[3] = step, x.shape.d[d] = (en - st + step - 1) / step;
    }
    break;
  }
  case L_CAT: case L_STACK: { /* with a node of the same rank and sizes (cat: but along d) */
    if (R < 1 && x.op == L_CAT) return false;
    int d = fz_rnd(r, x.op == L_STACK ? R + 1 : R), b = -1;
    for (int t = 0; t < 10 && b < 0; t++) {
      int c = fz_pick(p);
      const fz_shp *cs = &p->n[c].shape;
      if (cs->rank != R) continue;
      bool ok = true;
      for (int i = 0; i < R; i++) /* cat: static sizes along d (kgen needs the result's size there) */
        ok &= x.op == L_CAT && i == d ? cs->d[i] >= 0 && s->d[i] >= 0 : cs->d[i] == s->d[i];
      if (ok) b = c;
    }
    if (b < 0) return false;
    x.in[1] = b, x.nin = 2;
    x.dtype = fz_promote(a->dtype, p->n[b].dtype);
    x.mag = fmax(a->mag, p->n[b].mag);
    if (x.dtype == U8 && (is_int(a->dtype) || is_int(p->n[b].dtype)) && a->dtype != p->n[b].dtype) x.mag = 255;
    if (x.op == L_CAT) x.shape.d[d] = s->d[d] + p->n[b].shape.d[d], x.ip[0] = norm_dim(r, d, R);
    else {
      if (R >= MAXR) return false;
      x.shape.rank = R + 1;
      for (int i = 0, j = 0; i <= R; i++) x.shape.d[i] = i == d ? 2 : s->d[j++];
      x.ip[0] = fz_chance(r, 30) ? d - (R + 1) : d;
    }
    x.contig = true;
    break;
  }
  case L_EXPAND: { /* size-1 dims to 2 or 3, sometimes a new leading dim */
    bool lead = R < MAXR && fz_chance(r, 40);
    x.shape.rank = R + lead;
    if (lead) x.shape.d[0] = 2 + fz_rnd(r, 2);
    for (int i = 0; i < R; i++) x.shape.d[i + lead] = s->d[i] == 1 && fz_chance(r, 70) ? 2 + fz_rnd(r, 3) : s->d[i];
    for (int i = 0; i < x.shape.rank; i++) {
      int sd = i < lead ? -99 : s->d[i - lead];
      x.ip[i] = x.shape.d[i] == sd && (sd < 0 || fz_chance(r, 50)) ? -1 : x.shape.d[i];
    }
    x.ip[7] = x.shape.rank;
    if (fz_shape_eq(&x.shape, s)) return false;
    break;
  }
  case L_REPEAT: { /* static dims repeated 1-3 times, symbolic ones once; sometimes a new dim */
    bool lead = R < MAXR && fz_chance(r, 30);
    x.shape.rank = R + lead;
    if (lead) x.shape.d[0] = x.ip[0] = 2;
    for (int i = 0; i < R; i++) {
      int rep = s->d[i] < 0 ? 1 : 1 + fz_rnd(r, 3);
      x.ip[i + lead] = rep, x.shape.d[i + lead] = s->d[i] < 0 ? s->d[i] : s->d[i] * rep;
    }
    if (fz_numel_bound(&x.shape) > 20000) return false;
    x.ip[7] = x.shape.rank, x.contig = true;
    break;
  }
  case L_INDEX_SELECT: case L_GATHER: { /* indices: (j.long() % size), j exact */
    if (R < 1) return false;
    int d = fz_rnd(r, R), n = s->d[d];
    if (n == 0) return false;
    x.ip[1] = n < 0 ? SYM_MIN : n, x.ip[0] = norm_dim(r, d, R);
    int j = -1;
    for (int t = 0; t < 10 && j < 0; t++) {
      int c = fz_pick(p);
      const fz_node *cn = &p->n[c];
      if (cn->inexact || cn->mag > 1e15) continue;
      if (x.op == L_INDEX_SELECT) {
        if (cn->shape.rank == 1) j = c;
        continue;
      }
      if (cn->shape.rank != R) continue;
      bool ok = true;
      for (int i = 0; i < R; i++)
        if (i != d) ok &= cn->shape.d[i] == s->d[i] || (cn->shape.d[i] >= 0 && (s->d[i] < 0 ? cn->shape.d[i] <= SYM_MIN : cn->shape.d[i] <= s->d[i]));
      if (ok) j = c;
    }
    if (j < 0) return false;
    x.in[1] = j, x.nin = 2;
    if (x.op == L_INDEX_SELECT) x.shape.d[d] = p->n[j].shape.d[0];
    else x.shape = p->n[j].shape;
    x.contig = true;
    break;
  }
  case L_MASKED_FILL: { /* with a bool node broadcasting into x's shape */
    if (a->dtype == BOOL) return false;
    int m = -1;
    for (int t = 0; t < 8 && m < 0; t++) m = fz_mask_operand(p, t == 7 ? x.in[0] : fz_pick(p), s);
    if (m < 0) return false;
    a = &p->n[x.in[0]], s = &a->shape;
    x.in[1] = m, x.nin = 2;
    x.sc_int = !is_float(a->dtype);
    x.sc = x.sc_int ? (a->dtype == U8 ? 7 : -5) : fz_fconst(r);
    x.mag = fmax(a->mag, fabs(x.sc)), x.contig = true;
    break;
  }
  case L_TRIL: case L_TRIU:
    if (R < 2) return false;
    x.ip[0] = fz_rnd(r, 5) - 2, x.contig = true;
    break;
  default: /* L_CONTIGUOUS */
    x.contig = true;
    break;
  }
  if (fz_numel_bound(&x.shape) > 40000) return false;
  if (!fz_mag_ok(x.dtype, x.mag)) return false;
  return fz_add_node(p, &x) >= 0;
}

/* ---- matmul ---- */
enum { M_MATMUL, M_MATMUL_T, M_MM, M_BMM, M_LINEAR, M_ADDMM, M_N };

/* x.ip[0]: how the second operand is written: 0 as is, 1 b.t(), 2 b.transpose(1, 2) */
bool fz_gen_matmul(fz_prog *p) {
  fz_rng *r = &p->r;
  fz_node x;
  fz_node_init(&x, N_MM);
  x.op = fz_rnd(r, M_N), x.in[0] = fz_pick(p), x.nin = 2, x.contig = true;
  const fz_node *a = &p->n[x.in[0]];
  const fz_shp *s = &a->shape;
  int R = s->rank;
  if (R < 1 || a->dtype == BOOL) return false;
  if ((x.op == M_MM || x.op == M_ADDMM) && R != 2) return false;
  if (x.op == M_BMM && R != 3) return false;
  int k = s->d[R - 1];
  if (x.op == M_ADDMM && !is_float(a->dtype) && k == 0) return false; /* PyTorch's error (tests/bad/addmm_int_no_columns) */
  /* the second operand: a node of a's dtype whose rows (or columns, transposed) are k */
  int b = -1, how = 0;
  for (int t = 0; t < 12 && b < 0; t++) {
    int c = t == 11 ? x.in[0] : fz_pick(p);
    const fz_node *cn = &p->n[c];
    if (cn->dtype != a->dtype) continue;
    const fz_shp *cs = &cn->shape;
    if (x.op == M_BMM) {
      if (cs->rank != 3 || cs->d[0] != s->d[0]) continue;
      if (cs->d[1] == k) b = c, how = 0;
      else if (cs->d[2] == k) b = c, how = 2;
      continue;
    }
    if (cs->rank != 2) continue;
    if (x.op == M_LINEAR) { /* linear(a, W): W is [n, k]; as b.t() of a [k, n] node */
      if (cs->d[1] == k) b = c, how = 0;
      else if (cs->d[0] == k) b = c, how = 1;
      continue;
    }
    if (cs->d[0] == k) b = c, how = 0;
    else if (cs->d[1] == k) b = c, how = 1;
  }
  if (b < 0) return false;
  x.in[1] = b, x.ip[0] = how;
  const fz_shp *bs = &p->n[b].shape;
  int n = x.op == M_BMM ? (how ? bs->d[1] : bs->d[2]) : x.op == M_LINEAR ? (how ? bs->d[1] : bs->d[0]) : (how ? bs->d[0] : bs->d[1]);
  x.shape = *s, x.shape.d[R - 1] = n;
  x.dtype = a->dtype;
  x.mag = a->mag * p->n[b].mag * fz_size_bound(k);
  if (x.op == M_LINEAR || x.op == M_ADDMM) { /* a bias: a node broadcasting into the result, of the same dtype */
    int c = -1;
    for (int t = 0; t < 8 && c < 0; t++) {
      int q = fz_pick(p);
      fz_shp o;
      const fz_node *qn = &p->n[q];
      if (qn->dtype != a->dtype || !fz_bcast(&qn->shape, &x.shape, &o) || !fz_shape_eq(&o, &x.shape)) continue;
      if (x.op == M_LINEAR && !(qn->shape.rank == 1 && qn->shape.d[0] == n)) continue;
      c = q;
    }
    if (x.op == M_ADDMM && c < 0) return false;
    if (c >= 0) x.in[2] = c, x.nin = 3, x.mag += p->n[c].mag * (x.op == M_ADDMM ? 2 : 1);
    if (x.op == M_ADDMM) {
      x.ip[1] = is_float(a->dtype) && fz_chance(r, 50); /* beta 0.5, alpha 2 on floats */
      if (x.ip[1]) x.mag = x.mag * 2 + 1;
    }
  }
  if (x.op == M_MATMUL_T && !is_float(a->dtype)) x.op = M_MATMUL;
  x.inexact = is_float(x.dtype);
  if (!fz_mag_ok(x.dtype, x.mag) || fz_numel_bound(&x.shape) > 40000) return false;
  return fz_add_node(p, &x) >= 0;
}

/* ---- emission ---- */
static cJSON *i64(long long v) { return fz_value_num(T_INT64, (double)v); }

static cJSON *expr_reduce(fz_em *e, const fz_node *x) {
  cJSON *a = fz_ref(e, x->in[0]);
  const char *p3[3] = {T_INT64, T_BOOL, T_NULLABLE_ST}, *pa3[3] = {T_I64ARR, T_BOOL, T_NULLABLE_ST}, *pm3[3] = {T_I64ARR, T_BOOL, T_TENSOR};
  int dims[2] = {x->ip[0], x->ip[1]};
  switch (x->op) {
  case R_SUM: case R_PROD: {
    cJSON *args[3] = {i64(x->dim), fz_value_bool(x->keepdim), fz_default(T_NULLABLE_ST)};
    return fz_method(x->op == R_SUM ? "sum" : "prod", a, p3, args, 3);
  }
  case R_MEAN: case R_MEANN: case R_SUMN: {
    cJSON *args[3] = {x->op == R_MEAN ? fz_dims_array(&x->dim, 1) : fz_dims_array(dims, x->ip[2]), fz_value_bool(x->keepdim), fz_default(T_NULLABLE_ST)};
    return fz_method(x->op == R_SUMN ? "sum" : "mean", a, pa3, args, 3);
  }
  case R_AMAX: case R_AMIN: case R_AMAXN: {
    cJSON *args[3] = {x->op == R_AMAXN ? fz_dims_array(dims, x->ip[2]) : fz_dims_array(&x->dim, 1), fz_value_bool(x->keepdim), fz_value_null(T_TENSOR)};
    return fz_method(x->op == R_AMIN ? "amin" : "amax", a, pm3, args, 3);
  }
  case R_ARGMAX: case R_ARGMIN: {
    const char *pr[2] = {T_INT64, T_BOOL};
    cJSON *args[2] = {i64(x->dim), fz_value_bool(x->keepdim)};
    return fz_method(x->op == R_ARGMAX ? "argmax" : "argmin", a, pr, args, 2);
  }
  case R_SUMALL: {
    const char *pr[1] = {T_NULLABLE_ST};
    cJSON *d = fz_default(T_NULLABLE_ST);
    return fz_method("sum", a, pr, &d, 1);
  }
  case R_MEANALL: return fz_method("mean", a, NULL, NULL, 0);
  default: return fz_method("max", a, NULL, NULL, 0);
  }
}

static cJSON *expr_norm(fz_em *e, const fz_node *x) {
  cJSON *a = fz_ref(e, x->in[0]);
  switch (x->op) {
  case NM_SOFTMAX: case NM_LOGSOFTMAX: {
    const char *pr[2] = {T_INT64, T_NULLABLE_ST};
    cJSON *args[2] = {i64(x->dim), fz_default(T_NULLABLE_ST)};
    return fz_method(x->op == NM_SOFTMAX ? "softmax" : "log_softmax", a, pr, args, 2);
  }
  case NM_LAYERNORM: {
    const char *pr[5] = {T_TENSOR, T_I64ARR, T_TENSOR, T_TENSOR, T_DOUBLE};
    int k = 1;
    cJSON *w = x->ip[3] ? fz_ref(e, x->in[k++]) : fz_value_null(T_TENSOR);
    cJSON *b = x->ip[4] ? fz_ref(e, x->in[k++]) : fz_value_null(T_TENSOR);
    cJSON *args[5] = {a, fz_dims_array(x->ip, x->ip[2]), w, b, fz_value_num(T_DOUBLE, 1e-5)};
    return fz_static(D_FUNC, "layer_norm", pr, args, 5);
  }
  case NM_LOGSUMEXP: {
    const char *pr[2] = {T_INT64, T_BOOL};
    cJSON *args[2] = {i64(x->dim), fz_value_bool(x->keepdim)};
    return fz_method("logsumexp", a, pr, args, 2);
  }
  default: {
    const char *pr[4] = {T_INT64, T_BOOL, T_BOOL, T_NULLABLE_ST};
    cJSON *args[4] = {i64(x->dim), fz_value_bool(x->ip[0]), fz_value_bool(x->keepdim), fz_default(T_NULLABLE_ST)};
    return fz_method(x->op == NM_VAR ? "var" : "std", a, pr, args, 4);
  }
  }
}

/* (j.long() % n): indices in [0, n) */
static cJSON *index_of(fz_em *e, int j, int n) {
  cJSON *l = fz_method("long", fz_ref(e, j), NULL, NULL, 0);
  return fz_op2(e, "op_Modulus", T_TENSOR, T_INT64, l, i64(n));
}

static cJSON *expr_layout(fz_em *e, const fz_node *x) {
  cJSON *a = fz_ref(e, x->in[0]);
  const char *pI[1] = {T_INT64}, *pII[2] = {T_INT64, T_INT64}, *pA[1] = {T_I64ARR};
  switch (x->op) {
  case L_T: return fz_method("t", a, NULL, NULL, 0);
  case L_TRANSPOSE: {
    cJSON *args[2] = {i64(x->ip[0]), i64(x->ip[1])};
    return fz_method("transpose", a, pII, args, 2);
  }
  case L_PERMUTE: case L_FLIP: {
    cJSON *d = fz_dims_array(x->ip, x->op == L_FLIP ? 1 : x->shape.rank);
    return fz_method(x->op == L_FLIP ? "flip" : "permute", a, pA, &d, 1);
  }
  case L_ROLL: {
    const char *pr[2] = {T_INT64, "System.Nullable`1[System.Int64]"};
    cJSON *args[2] = {i64(x->ip[1]), fz_nullable_i64(x->ip[0])};
    return fz_method("roll", a, pr, args, 2);
  }
  case L_UNSQUEEZE: {
    cJSON *d = i64(x->ip[0]);
    return fz_method("unsqueeze", a, pI, &d, 1);
  }
  case L_SQUEEZE: {
    const char *pr[1] = {"System.Nullable`1[System.Int64]"};
    cJSON *d = fz_nullable_i64(x->ip[0]);
    return fz_method("squeeze", a, pr, &d, 1);
  }
  case L_RESHAPE: case L_VIEW: case L_EXPAND: case L_REPEAT: {
    static const char *const nm[] = {"reshape", "view", "expand", "repeat"};
    int k = x->op == L_RESHAPE ? 0 : x->op == L_VIEW ? 1 : x->op == L_EXPAND ? 2 : 3;
    cJSON *d = fz_dims_array(x->ip, x->ip[7]);
    return fz_method(nm[k], a, pA, &d, 1);
  }
  case L_FLATTEN: {
    cJSON *args[2] = {i64(x->ip[0]), i64(x->ip[1])};
    return fz_method("flatten", a, pII, args, 2);
  }
  case L_NARROW: {
    const char *pr[3] = {T_INT64, T_INT64, T_INT64};
    cJSON *args[3] = {i64(x->ip[0]), i64(x->ip[1]), i64(x->ip[2])};
    return fz_method("narrow", a, pr, args, 3);
  }
  case L_SLICE: {
    const char *pr[4] = {T_INT64, T_INT64, T_INT64, T_INT64};
    cJSON *args[4] = {i64(x->ip[0]), i64(x->ip[1]), i64(x->ip[2]), i64(x->ip[3])};
    return fz_method("slice", a, pr, args, 4);
  }
  case L_SELECT: {
    cJSON *args[2] = {i64(x->ip[0]), i64(x->ip[1])};
    return fz_method("select", a, pII, args, 2);
  }
  case L_CAT: case L_STACK: {
    cJSON *arr = fz_knode("NewArray", "TorchSharp.torch+Tensor[]");
    cJSON_AddStringToObject(arr, "elemType", T_TENSOR);
    cJSON *items = cJSON_CreateArray();
    cJSON_AddItemToArray(items, a);
    cJSON_AddItemToArray(items, fz_ref(e, x->in[1]));
    cJSON_AddItemToObject(arr, "items", items);
    if (x->op == L_CAT) {
      const char *pr[2] = {"TorchSharp.torch+Tensor[]", T_INT64};
      cJSON *args[2] = {arr, i64(x->ip[0])};
      return fz_static(D_TORCH, "cat", pr, args, 2);
    }
    const char *ty = "System.Collections.Generic.IEnumerable`1[TorchSharp.torch+Tensor]", *pr[2] = {ty, T_INT64};
    cJSON *co = fz_knode("Coerce", ty);
    cJSON_AddItemToObject(co, "expr", arr);
    cJSON *args[2] = {co, i64(x->ip[0])};
    return fz_static(D_TORCH, "stack", pr, args, 2);
  }
  case L_INDEX_SELECT: case L_GATHER: {
    const char *pr[2] = {T_INT64, T_TENSOR};
    cJSON *args[2] = {i64(x->ip[0]), index_of(e, x->in[1], x->ip[1])};
    return fz_method(x->op == L_GATHER ? "gather" : "index_select", a, pr, args, 2);
  }
  case L_MASKED_FILL: {
    const char *pr[2] = {T_TENSOR, T_SCALAR};
    cJSON *args[2] = {fz_ref(e, x->in[1]), fz_to_scalar(x->sc_int ? T_INT32 : T_SINGLE, x->sc)};
    return fz_method("masked_fill", a, pr, args, 2);
  }
  case L_TRIL: case L_TRIU: {
    cJSON *d = i64(x->ip[0]);
    return fz_method(x->op == L_TRIL ? "tril" : "triu", a, pI, &d, 1);
  }
  default: return fz_method("contiguous", a, NULL, NULL, 0);
  }
}

static cJSON *expr_matmul(fz_em *e, const fz_node *x) {
  cJSON *a = fz_ref(e, x->in[0]), *b = fz_ref(e, x->in[1]);
  const char *pT[1] = {T_TENSOR}, *pII[2] = {T_INT64, T_INT64};
  if (x->ip[0] == 1) b = fz_method("t", b, NULL, NULL, 0);
  else if (x->ip[0] == 2) {
    cJSON *args[2] = {i64(1), i64(2)};
    b = fz_method("transpose", b, pII, args, 2);
  }
  switch (x->op) {
  case M_MATMUL: return fz_method("matmul", a, pT, &b, 1);
  case M_MATMUL_T: {
    cJSON *args[2] = {a, b};
    return fz_torch("matmul", args, 2);
  }
  case M_MM: {
    cJSON *args[2] = {a, b};
    return fz_torch("mm", args, 2);
  }
  case M_BMM: return fz_method("bmm", a, pT, &b, 1);
  case M_LINEAR: {
    const char *pr[3] = {T_TENSOR, T_TENSOR, T_TENSOR};
    cJSON *args[3] = {a, b, x->nin == 3 ? fz_ref(e, x->in[2]) : fz_value_null(T_TENSOR)};
    return fz_static(D_FUNC, "linear", pr, args, 3);
  }
  default: { /* torch.addmm(bias, a, b, beta, alpha) */
    const char *pr[5] = {T_TENSOR, T_TENSOR, T_TENSOR, T_SINGLE, T_SINGLE};
    cJSON *args[5] = {fz_ref(e, x->in[2]), a, b, fz_value_num(T_SINGLE, x->ip[1] ? 0.5 : 1), fz_value_num(T_SINGLE, x->ip[1] ? 2 : 1)};
    return fz_static(D_TORCH, "addmm", pr, args, 5);
  }
  }
}

cJSON *fz_expr_shape(fz_em *e, const fz_node *x) {
  switch (x->kind) {
  case N_RED: return expr_reduce(e, x);
  case N_NORM: return expr_norm(e, x);
  case N_LAYOUT: return expr_layout(e, x);
  default: return expr_matmul(e, x);
  }
}
