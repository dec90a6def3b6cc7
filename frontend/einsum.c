/* frontend/einsum.c — torch.einsum, and outer / ger, as the ops kgen already has: a diagonal
 * (a letter repeated in one operand) is a GATHER at arange, a letter no later operand nor the
 * output uses is summed out (RSUM), and two operands contract as ONE matrix product: each is
 * permuted to [batch..., kept..., contracted...] (views: index arithmetic in the product's tile
 * loads), its kept and contracted letters merged to one dim each, MATMUL (batch dims broadcast),
 * and the result viewed back and permuted to the output's order. Operands contract left to
 * right. PyTorch's equation errors are reproduced, located at the F# call.
 *
 *   einsum("bhqd,bhkd->bhqk", q, k)  →  MATMUL(q, PERMUTE(k) [b,h,d,k])            one kernel
 *   einsum("ij->ji", x)              →  PERMUTE(x)
 *   einsum("ii->i", x)               →  GATHER(x, arange(n)[:, None]) viewed as [n]
 *   outer(a, b)                      →  a[:, None] * b[None, :]      (PyTorch's own definition)
 *
 * '...' (PyTorch's ellipsis): the dims an operand's '...' covers (its rank minus its letters,
 * possibly none) are right-aligned across the operands and broadcast (size 1 against n, as
 * letters). Each such dim gets an internal subscript '0' + k (k counting the widest '...' from
 * the left), so from then on it is a letter like any other: shared dims are batch dims of the
 * products, an output without '...' sums them out, the implicit output puts them first.
 *
 *   einsum("...qd,...kd->...qk", q, k)  →  as "01qd,01kd->01qk"
 *   einsum("b...,b...->b", x, y)        →  x [2,3], y [2,1,3]: as "b1,b01->b" (y's '...' covers
 *                                          two dims, x's one: right-aligned)
 *
 * Several symbolic dims merged into one are a derived size (a view to a product of sizes,
 * ir.h kg_symdef).
 */
#include <string.h>

#include "layout_int.h"

#define MAXL 52

typedef struct term {
  uint32_t id;
  char l[KG_MAX_RANK + 1]; /* one letter per dim */
  int r;
} term;

static int letter_ok(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

static bool has(const char *s, int n, char c) {
  for (int i = 0; i < n; i++)
    if (s[i] == c) return true;
  return false;
}

static const kg_dim *dim_of(lay *L, const term *t, int i) { return &gnode(L->el, t->id)->shape.d[i]; }

static bool same_size(const kg_dim *a, const kg_dim *b) { return a->kind == b->kind && a->v == b->v; }

/* t permuted to the letters of `order` (a permutation of t's) */
static bool reorder(lay *L, term *t, const char *order) {
  int perm[KG_MAX_RANK];
  bool id = true;
  for (int i = 0; i < t->r; i++) {
    perm[i] = (int)(strchr(t->l, order[i]) - t->l);
    id &= perm[i] == i;
  }
  if (!id) {
    kg_ev p = permute(L, t->id, perm);
    if (p.kind == EV_ERR) return false;
    t->id = p.id;
  }
  memcpy(t->l, order, (size_t)t->r);
  return true;
}

/* the diagonal of t over the two dims of letter c: [..., n, n] → [..., n] (c kept once, last) */
static bool diagonal(lay *L, term *t, char c, int j) {
  int a = -1, b = -1;
  for (int i = 0; i < t->r; i++)
    if (t->l[i] == c) {
      if (a < 0) a = i;
      else b = i;
    }
  const kg_dim *da = dim_of(L, t, a), *db = dim_of(L, t, b);
  if (!same_size(da, db)) {
    fail(L, KG_E_SHAPE, "subscript %c is repeated for operand %d but the sizes don't match, %lld != %lld", c, j, (long long)db->v, (long long)da->v);
    return false;
  }
  if (da->kind != KG_DIM_STATIC) {
    fail(L, KG_E_UNSUPPORTED, "the diagonal of subscript %c over a symbolic size", c);
    return false;
  }
  /* move the pair last, then gather along the last dim at arange(n) */
  char order[KG_MAX_RANK + 1];
  int k = 0;
  for (int i = 0; i < t->r; i++)
    if (i != a && i != b) order[k++] = t->l[i];
  order[k++] = c, order[k++] = c;
  int perm[KG_MAX_RANK];
  for (int i = 0, q = 0; i < t->r; i++)
    if (i != a && i != b) perm[q++] = i;
  perm[t->r - 2] = a, perm[t->r - 1] = b;
  int64_t nn = da->v; /* read before permute adds a node (the node array may move: da points into it) */
  kg_ev p = permute(L, t->id, perm);
  if (p.kind == EV_ERR) return false;
  const kg_gnode pcopy = *gnode(L->el, p.id); /* a copy: adding a node may move the node array */
  const kg_gnode *pn = &pcopy;
  kg_shape is = pn->shape; /* [..., n, 1] */
  kg_gnode g;
  memset(&g, 0, sizeof g);
  g.op = KG_OP_ARANGE, g.dtype = g.cdtype = KG_I64, g.vkind = KG_V_TENSOR;
  g.shape.rank = 1, g.shape.d[0] = (kg_dim){KG_DIM_STATIC, nn};
  g.fa[0] = 0, g.fa[1] = 1, g.fa[2] = (double)nn;
  uint32_t ar = kg_elab_add_node(L->el, L->at, &g);
  is.d[is.rank - 1] = (kg_dim){KG_DIM_STATIC, 1};
  kg_ev ix = reshape_to(L, ar, (kg_dim[]){{KG_DIM_STATIC, nn}, {KG_DIM_STATIC, 1}}, 2, false);
  if (ix.kind == EV_ERR) return false;
  uint32_t idx = ix.id;
  if (is.rank > 2) idx = add(L, KG_OP_EXPAND, KG_I64, &idx, 1, &is, 0, 0, 0);
  uint32_t ops[2] = {p.id, idx};
  uint32_t gth = add(L, KG_OP_GATHER, (kg_dtype)pn->dtype, ops, 2, &is, is.rank - 1, 0, 0);
  kg_ev s = reshape_to(L, gth, pn->shape.d, pn->shape.rank - 1, false);
  if (s.kind == EV_ERR) return false;
  t->id = s.id, t->r--;
  memcpy(t->l, order, (size_t)t->r);
  t->l[t->r] = 0;
  return true;
}

/* t with the letters not in keep summed out (einsum's sum: integers give int64, as torch.sum) */
static bool sum_out(lay *L, term *t, const char *keep) {
  int64_t mask = 0;
  char nl[KG_MAX_RANK + 1];
  int k = 0;
  for (int i = 0; i < t->r; i++) {
    if (strchr(keep, t->l[i])) nl[k++] = t->l[i];
    else mask |= (int64_t)1 << i;
  }
  if (!mask) return true;
  const kg_gnode *x = gnode(L->el, t->id);
  kg_dtype in = (kg_dtype)x->dtype, out = kg_dtype_is_float(in) ? in : KG_I64;
  kg_gnode g;
  memset(&g, 0, sizeof g);
  g.op = KG_OP_RSUM, g.dtype = (uint8_t)out, g.cdtype = (uint8_t)(kg_dtype_is_float(out) ? KG_F64 : KG_I64), g.vkind = KG_V_TENSOR, g.n_in = 1;
  g.in[0] = t->id;
  g.ia[0] = mask, g.ia[1] = 0;
  for (int i = 0; i < t->r; i++)
    if (!((mask >> i) & 1)) g.shape.d[g.shape.rank++] = x->shape.d[i];
  t->id = kg_elab_add_node(L->el, L->at, &g);
  t->r = k;
  memcpy(t->l, nl, (size_t)k);
  t->l[k] = 0;
  return true;
}

/* t viewed with its dims [lo, hi) merged into one (hi == lo: a new dim of size 1) */
static bool merge(lay *L, term *t, int lo, int hi) {
  if (hi - lo == 1) return true;
  const kg_gnode *x = gnode(L->el, t->id);
  kg_dim nd[KG_MAX_RANK];
  int k = 0;
  for (int i = 0; i < lo; i++) nd[k++] = x->shape.d[i];
  /* the merged size: a constant, a symbol, or a product of sizes (ir.h kg_symdef) */
  int64_t coeff = 1;
  uint32_t f[KG_MAX_RANK];
  int nf = 0;
  for (int i = lo; i < hi; i++) {
    const kg_dim *d = &x->shape.d[i];
    if (d->kind == KG_DIM_STATIC) coeff *= d->v;
    else f[nf++] = (uint32_t)d->v;
  }
  nd[k++] = kg_graph_sym_product(L->el->g, coeff, f, nf);
  for (int i = hi; i < t->r; i++) nd[k++] = x->shape.d[i];
  kg_ev v = reshape_to(L, t->id, nd, k, false);
  if (v.kind == EV_ERR) return false;
  t->id = v.id, t->r = k; /* (its letters no longer name its dims: contract reads sizes only) */
  return true;
}

/* a ⊙ b contracted over their shared letters not in keep; the result keeps batch (shared and
 * kept), then a's own, then b's own letters */
static bool contract(lay *L, term *a, term *b, const char *keep, term *out) {
  char bat[MAXL], la[MAXL], lb[MAXL], con[MAXL];
  int nb = 0, na = 0, nbb = 0, nc = 0;
  for (int i = 0; i < a->r; i++) {
    char c = a->l[i];
    if (has(b->l, b->r, c)) {
      if (strchr(keep, c)) bat[nb++] = c;
      else con[nc++] = c;
    } else la[na++] = c;
  }
  for (int i = 0; i < b->r; i++)
    if (!has(a->l, a->r, b->l[i])) lb[nbb++] = b->l[i];
  char oa[KG_MAX_RANK + 1], ob[KG_MAX_RANK + 1];
  memcpy(oa, bat, (size_t)nb), memcpy(oa + nb, la, (size_t)na), memcpy(oa + nb + na, con, (size_t)nc);
  memcpy(ob, bat, (size_t)nb), memcpy(ob + nb, con, (size_t)nc), memcpy(ob + nb + nc, lb, (size_t)nbb);
  if (!reorder(L, a, oa) || !reorder(L, b, ob)) return false;
  /* kept sizes before merging (to view the product back) */
  kg_dim ka[KG_MAX_RANK], kb[KG_MAX_RANK], kbat[KG_MAX_RANK];
  for (int i = 0; i < nb; i++) {
    const kg_dim *da = dim_of(L, a, i), *db = dim_of(L, b, i);
    kbat[i] = da->kind == KG_DIM_STATIC && da->v == 1 ? *db : *da;
  }
  for (int i = 0; i < na; i++) ka[i] = *dim_of(L, a, nb + i);
  for (int i = 0; i < nbb; i++) kb[i] = *dim_of(L, b, nb + nc + i);
  /* a: [bat, la, con] → [bat, LA, C]; b: [bat, con, lb] → [bat, C, LB] (merge from the back) */
  if (!merge(L, a, nb + na, nb + na + nc) || !merge(L, a, nb, nb + na)) return false;
  if (!merge(L, b, nb + nc, nb + nc + nbb) || !merge(L, b, nb, nb + nc)) return false;
  kg_ev ops[2] = {kg_ev_node(a->id), kg_ev_node(b->id)};
  bool present[3] = {true, true, false};
  kg_ev p = kg_elab_product(L->el, L->at, KG_OP_MATMUL, 0, ops, present, 2, NULL, 0);
  if (p.kind == EV_ERR) return false;
  /* [bat, LA, LB] → [bat, la..., lb...] */
  kg_dim nd[KG_MAX_RANK];
  int k = 0;
  for (int i = 0; i < nb; i++) nd[k++] = kbat[i];
  for (int i = 0; i < na; i++) nd[k++] = ka[i];
  for (int i = 0; i < nbb; i++) nd[k++] = kb[i];
  out->id = p.id;
  if (na != 1 || nbb != 1) {
    kg_ev v = reshape_to(L, p.id, nd, k, false);
    if (v.kind == EV_ERR) return false;
    out->id = v.id;
  }
  out->r = k;
  memcpy(out->l, bat, (size_t)nb), memcpy(out->l + nb, la, (size_t)na), memcpy(out->l + nb + na, lb, (size_t)nbb);
  out->l[k] = 0;
  return true;
}

/* the internal subscript of the k-th dim (from the left) of the widest '...' */
static char ell_sub(int k) { return (char)('0' + k); }
static int is_ell_sub(char c) { return c >= '0' && c < '0' + KG_MAX_RANK; }

static kg_ev einsum(lay *L, const char *eq, const uint32_t *in, int n) {
  term t[16];
  char outl[MAXL + KG_MAX_RANK + 1];
  int no = -1, cur = 0, nt = 0, out_ell = -1; /* out_ell: where '...' stands in the output */
  int ell_at[16];                             /* where '...' stands in an operand's letters (-1: none) */
  bool arrow = false;
  memset(t, 0, sizeof t);
  for (int j = 0; j < 16; j++) ell_at[j] = -1;
  for (int i = 0; eq[i]; i++) {
    char c = eq[i];
    if (c == ' ') continue;
    if (c == '.') { /* PyTorch's checks, in its order */
      bool three = eq[i + 1] == '.' && eq[i + 2] == '.';
      if (arrow) {
        if (out_ell >= 0) return fail(L, KG_E_ARG, "found '.' for output but an ellipsis (...) was already found");
        if (!three) return fail(L, KG_E_ARG, "found '.' for output that is not part of any ellipsis (...)");
        out_ell = no;
      } else {
        if (ell_at[cur] >= 0) return fail(L, KG_E_ARG, "found '.' for operand %d for which an ellipsis was already found", cur);
        if (!three) return fail(L, KG_E_ARG, "found '.' for operand %d that is not part of any ellipsis", cur);
        ell_at[cur] = t[cur].r;
      }
      i += 2;
      continue;
    }
    if (c == '-' && eq[i + 1] == '>' && !arrow) {
      arrow = true, i++, no = 0;
      continue;
    }
    if (c == ',' && !arrow) {
      if (++cur >= 16) return fail(L, KG_E_LIMIT, "more than 16 operands");
      continue;
    }
    if (!letter_ok(c)) return fail(L, KG_E_ARG, "invalid subscript given at index %d in the equation string, subscripts must be in [a-zA-Z]", i);
    if (arrow) {
      if (has(outl, no, c)) return fail(L, KG_E_ARG, "output subscript %c appears more than once in the output", c);
      if (no >= MAXL) return fail(L, KG_E_LIMIT, "too many output subscripts");
      outl[no++] = c;
    } else {
      if (t[cur].r >= KG_MAX_RANK) return fail(L, KG_E_LIMIT, "an operand of rank above %d", KG_MAX_RANK);
      t[cur].l[t[cur].r++] = c;
    }
  }
  nt = cur + 1;
  if (nt > n) return fail(L, KG_E_ARG, "fewer operands were provided than specified in the equation");
  if (nt < n) return fail(L, KG_E_ARG, "more operands were provided than specified in the equation");
  int ne[16], ell = 0; /* dims each operand's '...' covers; the widest */
  for (int j = 0; j < nt; j++) {
    t[j].id = in[j];
    int r = gnode(L->el, in[j])->shape.rank;
    ne[j] = r - t[j].r;
    if (ell_at[j] < 0 && r != t[j].r)
      return fail(L, KG_E_SHAPE, "the number of subscripts in the equation (%d) does not match the number of dimensions (%d) for operand %d and no ellipsis was given", t[j].r, r, j);
    if (ell_at[j] >= 0 && r < t[j].r)
      return fail(L, KG_E_SHAPE, "the number of subscripts in the equation (%d) is more than the number of dimensions (%d) for operand %d", t[j].r, r, j);
    if (ne[j] > ell) ell = ne[j];
  }
  /* '...' becomes internal subscripts, right-aligned: operand j's k-th covered dim is ell_sub(ell - ne[j] + k) */
  for (int j = 0; j < nt; j++) {
    if (ell_at[j] < 0 || ne[j] == 0) continue;
    char l[KG_MAX_RANK + 1];
    int k = 0;
    for (int i = 0; i < ell_at[j]; i++) l[k++] = t[j].l[i];
    for (int e = 0; e < ne[j]; e++) l[k++] = ell_sub(ell - ne[j] + e);
    for (int i = ell_at[j]; i < t[j].r; i++) l[k++] = t[j].l[i];
    memcpy(t[j].l, l, (size_t)k);
    t[j].r = k, t[j].l[k] = 0;
  }
  if (out_ell >= 0) { /* the output's '...': every covered dim, in order */
    memmove(outl + out_ell + ell, outl + out_ell, (size_t)(no - out_ell));
    for (int e = 0; e < ell; e++) outl[out_ell + e] = ell_sub(e);
    no += ell;
  }
  /* every letter's size: equal, or 1 (broadcast, as PyTorch) */
  kg_dim size[128];
  bool seen[128] = {false};
  for (int j = 0; j < nt; j++)
    for (int i = 0; i < t[j].r; i++) {
      unsigned char c = (unsigned char)t[j].l[i];
      const kg_dim *d = dim_of(L, &t[j], i);
      if (!seen[c]) seen[c] = true, size[c] = *d;
      else if (!same_size(&size[c], d)) {
        if (d->kind == KG_DIM_STATIC && d->v == 1) continue;
        if (size[c].kind == KG_DIM_STATIC && size[c].v == 1) { size[c] = *d; continue; }
        if (size[c].kind == KG_DIM_STATIC && d->kind == KG_DIM_STATIC && is_ell_sub((char)c))
          return fail(L, KG_E_SHAPE, "dimension %d covered by ellipsis in operand %d has size %lld which does not broadcast with previously seen ellipsis with size %lld for the respective dimension",
                      c - '0' - (ell - ne[j]), j, (long long)d->v, (long long)size[c].v);
        if (size[c].kind == KG_DIM_STATIC && d->kind == KG_DIM_STATIC)
          return fail(L, KG_E_SHAPE, "subscript %c has size %lld for operand %d which does not broadcast with previously seen size %lld", c,
                      (long long)d->v, j, (long long)size[c].v);
      }
    }
  if (!arrow) { /* implicit output: the dims '...' covers, then the letters used once, in alphabetical order */
    no = 0;
    for (int e = 0; e < ell; e++) outl[no++] = ell_sub(e);
    for (int c = 'A'; c <= 'z'; c++) {
      if (!letter_ok((char)c)) continue;
      int cnt = 0;
      for (int j = 0; j < nt; j++)
        for (int i = 0; i < t[j].r; i++) cnt += t[j].l[i] == c;
      if (cnt == 1) outl[no++] = (char)c;
    }
  }
  outl[no] = 0;
  for (int i = 0; i < no; i++)
    if (!seen[(unsigned char)outl[i]]) return fail(L, KG_E_ARG, "output subscript %c does not appear in the equation for any input operand", outl[i]);
  /* size-1 dims of a letter another operand has larger: expanded */
  for (int j = 0; j < nt; j++) {
    const kg_gnode *x = gnode(L->el, t[j].id);
    kg_shape sh = x->shape;
    for (int i = 0; i < t[j].r; i++) sh.d[i] = size[(unsigned char)t[j].l[i]];
    if (!kg_shape_equal(&sh, &x->shape)) t[j].id = add(L, KG_OP_EXPAND, (kg_dtype)x->dtype, &t[j].id, 1, &sh, 0, 0, 0);
  }
  /* diagonals, then contract left to right, summing out what nothing later needs */
  for (int j = 0; j < nt; j++)
    for (int i = 0; i < t[j].r; i++)
      while (memchr(t[j].l + i + 1, t[j].l[i], (size_t)(t[j].r - i - 1)))
        if (!diagonal(L, &t[j], t[j].l[i], j)) return kg_ev_err();
  term acc = t[0];
  for (int j = 0; j < nt; j++) {
    /* the letters needed after this step: the output's and those of later operands */
    char keep[MAXL * 17 + 1];
    int nk = 0;
    memcpy(keep, outl, (size_t)no), nk = no;
    for (int q = j + 1; q < nt; q++) memcpy(keep + nk, t[q].l, (size_t)t[q].r), nk += t[q].r;
    keep[nk] = 0;
    if (j == 0) {
      /* letters of operand 0 that operand 1 shares stay for the contraction */
      if (!sum_out(L, &acc, keep)) return kg_ev_err();
      continue;
    }
    term b = t[j];
    char keepb[MAXL * 17 + 1];
    memcpy(keepb, keep, (size_t)nk);
    memcpy(keepb + nk, acc.l, (size_t)acc.r);
    keepb[nk + acc.r] = 0;
    if (!sum_out(L, &b, keepb)) return kg_ev_err();
    memcpy(keepb + nk, b.l, (size_t)b.r);
    keepb[nk + b.r] = 0;
    if (!sum_out(L, &acc, keepb)) return kg_ev_err();
    term r;
    if (!contract(L, &acc, &b, keep, &r)) return kg_ev_err();
    acc = r;
  }
  if (!sum_out(L, &acc, outl)) return kg_ev_err();
  if (!reorder(L, &acc, outl)) return kg_ev_err();
  return kg_ev_node(acc.id);
}

kg_ev kg_lay_einsum(lay *L, const char *nm, const kg_ev *av, int n, uint32_t x) {
  if (!strcmp(nm, "einsum")) {
    if (av[0].kind != EV_STR) return fail(L, KG_E_UNSUPPORTED, "einsum's equation must be a string constant written in the code");
    uint32_t in[16];
    int k = tensor_list(L, av[1], in, 16);
    if (k < 0) return kg_ev_err();
    return einsum(L, av[0].s, in, k);
  }
  /* outer / ger(input, vec2) = input[:, None] * vec2[None, :] */
  uint32_t b;
  if (!tensor_arg(L, av[1], &b)) return kg_ev_err();
  (void)n;
  int ra = gnode(L->el, x)->shape.rank, rb = gnode(L->el, b)->shape.rank;
  if (ra != 1) return fail(L, KG_E_SHAPE, "Expected 1-D argument self, but got %d-D", ra);
  if (rb != 1) return fail(L, KG_E_SHAPE, "Expected 1-D argument vec2, but got %d-D", rb);
  kg_ev ua = unsqueeze(L, x, 1), ub = unsqueeze(L, b, 0);
  if (ua.kind == EV_ERR || ub.kind == EV_ERR) return kg_ev_err();
  uint32_t ops[2] = {ua.id, ub.id};
  return kg_elab_tensor_op(L->el, L->at, KG_OP_MUL, ops, 2, NULL, NULL, KG_DT_NONE);
}
