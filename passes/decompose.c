/* passes/decompose.c — composite ops into the ops kernels are built from.
 *
 * Runs after the TorchScript twin's program is fixed, on a copy (the lowering
 * program): the twin calls torch.softmax, torch.var, layer_norm… themselves, so
 * a mistake in these expansions cannot hide in both sides of the cross-check.
 * Every expansion is written with reductions over the same rows, so fusion puts
 * each normalization into one persistent row kernel. float16 / bfloat16 inputs
 * are computed in float32 and the result rounded once (as PyTorch's kernels do).
 *
 *   softmax(x, d)   → m = amax(x, d, keep); e = exp(x - m); s = sum(e, d, keep); e / s
 *   log_softmax     → (x - m) - log(s)
 *   std             → sqrt(var)            logsumexp → m' + log(sum(exp(x - m'))), m' = m or 0 if infinite
 *   layer_norm      → (x - mean) * rsqrt(var_biased + eps) [* w] [+ b]
 *   batch_norm      → eval: (x - rm) * rsqrt(rv + eps) [* w] [+ b], pointwise on the running
 *                     statistics viewed as [C, 1, ...]; training (and instance_norm): the same on
 *                     batch statistics over every dim but the channels (and the batch)
 *   group_norm      → G = C or 1: the same over the input's own dims; else over [N, G, C/G, ...]
 *                     (a reshape), reshaped back
 *   adaptive pooling to 1 (× 1) → amax / mean over the pooled dims, keepdim (a row reduction)
 *   mean / var without keepdim over the rows of an earlier keepdim mean / var (batch_norm's
 *                     running statistics) → that one's keepdim form, squeezed (shared_statistic)
 *   norm(p)         → p = 2: sqrt(sum(x²)); 1: sum|x|; inf: amax|x|; else (sum |x|^p)^(1/p)
 *   linear(x, w, b) → MATMUL(x, w; w read transposed) + b
 *   addmm(c, a, b, beta, alpha) → beta * c + alpha * MATMUL(a, b) (a term with beta = 0 is left
 *                     out, as PyTorch ignores c then; addmm's alpha = 0 ignores the product)
 *   attention       → (unfused_attn: force_variant 2 and 5, the gradients' lowering) q @ kᵀ · scale, masked, softmax, [· dropout], @ v (expand_attention)
 *   select_scatter(x, src, d, i) → where(arange(x.shape[d]) viewed along d == i, src unsqueezed at d, x)
 *                     (the whole tensor written; a host-plan loop writes the row in place instead:
 *                     passes/plan_inplace.c)
 *   conv(x, w, b)   → MATMUL(w viewed [G, O/G, K], IM2COL(x); convolution geometry) + b viewed [O, 1...]
 *                     (conv_transpose: the weight regrouped and flipped, the input read dilated)
 * The products' pointwise tails then fuse into the product's epilogue (passes/fuse.c); float16
 * / bfloat16 products with a tail yield float32 and round once at the end.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gbuild.h"
#include "passes.h"

typedef struct dctx {
  kg_graph *out;
  const kg_gnode *src; /* the node being expanded (path / srcloc) */
} dctx;

/* the shape of an op over a and b (already checked by elaboration: kg_shape_broadcast) */
static void bcast(const kg_shape *a, const kg_shape *b, kg_shape *o) {
  kg_shape s;
  if (kg_shape_broadcast(a, b, &s, NULL, NULL, NULL)) *o = s;
}

static uint32_t add(dctx *D, kg_op op, kg_dtype dt, uint32_t a, uint32_t b, const double *fa) {
  kg_gnode n;
  memset(&n, 0, sizeof n);
  n.op = (uint16_t)op, n.dtype = n.cdtype = (uint8_t)dt, n.vkind = KG_V_TENSOR;
  n.in[0] = a, n.n_in = 1;
  n.shape = D->out->nodes.v[a].shape;
  if (D->out->nodes.v[a].vkind == KG_V_SCALAR) n.shape.rank = 0;
  if (b != KG_NONE) {
    n.in[1] = b, n.n_in = 2;
    if (D->out->nodes.v[b].vkind == KG_V_TENSOR) bcast(&n.shape, &D->out->nodes.v[b].shape, &n.shape);
    if (D->out->nodes.v[a].vkind == KG_V_SCALAR) n.shape = D->out->nodes.v[b].shape;
  }
  if (kg_op_get(op)->flags & KG_OPF_CMP) n.dtype = KG_BOOL;
  if (fa) memcpy(n.fa, fa, sizeof n.fa);
  n.path = D->src->path, n.srcloc = D->src->srcloc;
  return kg_graph_add(D->out, &n);
}

static uint32_t cnst(dctx *D, kg_dtype dt, double v) {
  kg_gnode n;
  memset(&n, 0, sizeof n);
  n.op = KG_OP_CONST, n.dtype = n.cdtype = (uint8_t)dt, n.vkind = KG_V_SCALAR;
  n.fa[0] = v;
  n.path = D->src->path;
  return kg_graph_add(D->out, &n);
}

static uint32_t where(dctx *D, kg_dtype dt, uint32_t c, uint32_t a, uint32_t b) {
  kg_gnode n;
  memset(&n, 0, sizeof n);
  n.op = KG_OP_WHERE, n.dtype = n.cdtype = (uint8_t)dt, n.vkind = KG_V_TENSOR, n.n_in = 3;
  n.in[0] = c, n.in[1] = a, n.in[2] = b;
  n.shape = D->out->nodes.v[c].shape;
  bcast(&n.shape, &D->out->nodes.v[a].shape, &n.shape);
  if (D->out->nodes.v[b].vkind == KG_V_TENSOR) bcast(&n.shape, &D->out->nodes.v[b].shape, &n.shape);
  n.path = D->src->path;
  return kg_graph_add(D->out, &n);
}

/* A reduction of x over mask (keepdim or not), accumulating in acc. */
static uint32_t reduce(dctx *D, kg_op op, kg_dtype dt, kg_dtype acc, uint32_t x, int64_t mask, bool keep, double fa0) {
  const kg_gnode *xn = &D->out->nodes.v[x];
  kg_gnode n;
  memset(&n, 0, sizeof n);
  n.op = (uint16_t)op, n.dtype = (uint8_t)dt, n.cdtype = (uint8_t)acc, n.vkind = KG_V_TENSOR, n.n_in = 1;
  n.in[0] = x;
  n.ia[0] = mask, n.ia[1] = keep;
  n.fa[0] = fa0;
  for (int d = 0; d < xn->shape.rank; d++) {
    if (!((mask >> d) & 1)) n.shape.d[n.shape.rank++] = xn->shape.d[d];
    else if (keep) n.shape.d[n.shape.rank++] = (kg_dim){KG_DIM_STATIC, 1};
  }
  n.path = D->src->path, n.srcloc = D->src->srcloc;
  return kg_graph_add(D->out, &n);
}

/* Marks reduction r as a decomposed op's own (ia[2] = 1): a max over an empty dim is no error
 * there (softmax and log_softmax of an empty dim are empty, logsumexp's is -inf: the identity
 * -inf stands), unlike the user's amax (runtime/exec.c). */
static uint32_t internal(dctx *D, uint32_t r) {
  D->out->nodes.v[r].ia[2] = 1;
  return r;
}

static uint32_t cast(dctx *D, uint32_t x, kg_dtype t) {
  if (D->out->nodes.v[x].dtype == t) return x;
  return add(D, KG_OP_CAST, t, x, KG_NONE, NULL);
}

/* a constant of dtype dt (integers in ia[0], floats in fa[0]) */
static uint32_t cnst_t(dctx *D, kg_dtype dt, double v) {
  if (kg_dtype_is_float(dt)) return cnst(D, dt, v);
  kg_gnode n;
  memset(&n, 0, sizeof n);
  n.op = KG_OP_CONST, n.dtype = n.cdtype = (uint8_t)dt, n.vkind = KG_V_SCALAR;
  n.ia[0] = (int64_t)v;
  n.path = D->src->path;
  return kg_graph_add(D->out, &n);
}

static uint32_t matmul(dctx *D, kg_dtype dt, kg_dtype acc, uint32_t a, uint32_t b, int64_t flags) {
  kg_gnode n;
  memset(&n, 0, sizeof n);
  n.op = KG_OP_MATMUL, n.dtype = (uint8_t)dt, n.cdtype = (uint8_t)acc, n.vkind = KG_V_TENSOR, n.n_in = 2;
  n.in[0] = a, n.in[1] = b;
  n.ia[0] = flags;
  n.shape = D->src->shape;
  n.path = D->src->path, n.srcloc = D->src->srcloc;
  return kg_graph_add(D->out, &n);
}

/* LINEAR and ADDMM: a MATMUL and its pointwise tail */
static uint32_t expand_product(dctx *D, const kg_gnode *n, const uint32_t *in) {
  kg_dtype dt = (kg_dtype)n->dtype, acc = (kg_dtype)n->cdtype;
  kg_dtype ct = (dt == KG_F16 || dt == KG_BF16) ? KG_F32 : dt; /* the tail's dtype */
  if (n->op == KG_OP_LINEAR) {
    if (n->n_in == 2) return matmul(D, dt, acc, in[0], in[1], n->ia[0]);
    uint32_t mm = matmul(D, ct, acc, in[0], in[1], n->ia[0]);
    return cast(D, add(D, KG_OP_ADD, ct, mm, cast(D, in[2], ct), NULL), dt);
  }
  bool batched = n->ia[0] != 0;
  double beta = n->fa[0], alpha = n->fa[1];
  uint32_t mm = matmul(D, ct, acc, in[1], in[2], 0);
  D->out->nodes.v[mm].ia[2] = n->ia[1]; /* K = 0 raises at run time (integers, frontend/products.c) */
  uint32_t prod = KG_NONE, inp = KG_NONE;
  if (batched || alpha != 0) prod = alpha == 1 ? mm : add(D, KG_OP_MUL, ct, mm, cnst_t(D, ct, alpha), NULL);
  if (beta != 0) {
    inp = cast(D, in[0], ct);
    if (beta != 1) inp = add(D, KG_OP_MUL, ct, inp, cnst_t(D, ct, beta), NULL);
  }
  if (prod == KG_NONE) { /* addmm's alpha = 0: zeros of the product's shape (its values are never read) */
    kg_gnode z;
    memset(&z, 0, sizeof z);
    z.op = KG_OP_FULL, z.dtype = z.cdtype = (uint8_t)ct, z.vkind = KG_V_TENSOR, z.n_in = 2;
    z.in[0] = cnst_t(D, ct, 0), z.in[1] = mm, z.ia[0] = 1;
    z.shape = n->shape;
    z.path = n->path, z.srcloc = n->srcloc;
    prod = kg_graph_add(D->out, &z);
  }
  uint32_t r = inp != KG_NONE ? add(D, KG_OP_ADD, ct, inp, prod, NULL) : prod;
  return cast(D, r, dt);
}

/* ---- normalization over channels and global pooling (issue 12) ---- */

/* a layout node over x */
static uint32_t layout(dctx *D, kg_op op, uint32_t x, const kg_shape *sh, const int64_t *ia, const double *fa) {
  kg_gnode n;
  memset(&n, 0, sizeof n);
  n.op = (uint16_t)op, n.vkind = KG_V_TENSOR, n.n_in = 1, n.in[0] = x;
  n.dtype = n.cdtype = D->out->nodes.v[x].dtype;
  n.shape = *sh;
  if (ia) memcpy(n.ia, ia, sizeof n.ia);
  if (fa) memcpy(n.fa, fa, sizeof n.fa);
  n.path = D->src->path, n.srcloc = D->src->srcloc;
  return kg_graph_add(D->out, &n);
}

static uint32_t reshape(dctx *D, uint32_t x, const kg_shape *sh) { return layout(D, KG_OP_RESHAPE, x, sh, NULL, NULL); }

/* x through which no gradient flows (a CAST with ia[1] = 1: batch_norm's running statistics, which
 * PyTorch does not differentiate; passes/autodiff.c) */
static uint32_t detach(dctx *D, uint32_t x) {
  uint32_t c = add(D, KG_OP_CAST, (kg_dtype)D->out->nodes.v[x].dtype, x, KG_NONE, NULL);
  D->out->nodes.v[c].ia[1] = 1;
  return c;
}

/* a per-channel vector [C] as [C, 1, ...] against an input of rank r (channels at dim 1),
 * converted to ct */
static uint32_t per_channel(dctx *D, uint32_t v, int r, kg_dtype ct) {
  kg_shape sh = D->out->nodes.v[v].shape;
  for (int i = 2; i < r; i++) sh.d[sh.rank++] = (kg_dim){KG_DIM_STATIC, 1};
  return cast(D, sh.rank == 1 ? v : reshape(D, v, &sh), ct);
}

/* (x - mean) * rsqrt(var + eps) over the dims in mask (biased variance), in ct */
static uint32_t standardize(dctx *D, uint32_t x, int64_t mask, kg_dtype ct, double eps) {
  uint32_t mu = reduce(D, KG_OP_RMEAN, ct, KG_F64, x, mask, true, 0);
  uint32_t var = reduce(D, KG_OP_RVAR, ct, KG_F64, x, mask, true, 0);
  uint32_t inv = add(D, KG_OP_RSQRT, ct, add(D, KG_OP_ADD, ct, var, cnst(D, ct, eps), NULL), KG_NONE, NULL);
  return add(D, KG_OP_MUL, ct, add(D, KG_OP_SUB, ct, x, mu, NULL), inv, NULL);
}

/* BATCH_NORM (batch_norm, instance_norm) and GROUP_NORM; a global POOL */
static uint32_t expand_cnn(dctx *D, const kg_gnode *n, const uint32_t *in) {
  kg_dtype dt = (kg_dtype)n->dtype;
  kg_dtype ct = (dt == KG_F16 || dt == KG_BF16) ? KG_F32 : dt;
  const kg_shape xshape = D->out->nodes.v[in[0]].shape; /* a copy: adding nodes may move the array */
  const kg_shape *xs = &xshape;
  int r = xs->rank;
  if (n->op == KG_OP_POOL) { /* adaptive to 1 (x 1): a row reduction over the pooled dims */
    int nd = (int)(n->ia[2] & 3);
    int64_t mask = (((int64_t)1 << nd) - 1) << (r - nd);
    if (((n->ia[2] >> 2) & 3) == 3) return reduce(D, KG_OP_RAMAX, dt, dt, in[0], mask, true, 0);
    return cast(D, reduce(D, KG_OP_RMEAN, ct, KG_F64, cast(D, in[0], ct), mask, true, 0), dt);
  }
  uint32_t x = cast(D, in[0], ct), y;
  int j = 1;
  if (n->op == KG_OP_BATCH_NORM) {
    bool stats = n->ia[0] != 0, instance = n->ia[2] != 0;
    if (!stats) { /* evaluation: pointwise on the running statistics */
      uint32_t rm = per_channel(D, detach(D, in[1]), r, ct), rv = per_channel(D, detach(D, in[2]), r, ct);
      j = 3;
      uint32_t inv = add(D, KG_OP_RSQRT, ct, add(D, KG_OP_ADD, ct, rv, cnst(D, ct, n->fa[0]), NULL), KG_NONE, NULL);
      y = add(D, KG_OP_MUL, ct, add(D, KG_OP_SUB, ct, x, rm, NULL), inv, NULL);
    } else { /* batch statistics: over every dim but the channels' (instance: per sample too) */
      int64_t mask = (((int64_t)1 << r) - 1) & ~(int64_t)2;
      if (instance) mask &= ~(int64_t)1;
      if (n->ia[1] & 4) j = 3;
      y = standardize(D, x, mask, ct, n->fa[0]);
    }
    if (n->ia[1] & 1) y = add(D, KG_OP_MUL, ct, y, per_channel(D, in[j++], r, ct), NULL);
    if (n->ia[1] & 2) y = add(D, KG_OP_ADD, ct, y, per_channel(D, in[j++], r, ct), NULL);
    return cast(D, y, dt);
  }
  /* GROUP_NORM: G = C (instance) or 1 reduce the input's own dims; else [N, G, C/G, ...] */
  int64_t g = n->ia[0], c = xs->d[1].v;
  int64_t all = ((int64_t)1 << r) - 1;
  if (g == c || g == 1) {
    y = standardize(D, x, g == c ? all & ~(int64_t)3 : all & ~(int64_t)1, ct, n->fa[0]);
    if (n->ia[1] & 1) y = add(D, KG_OP_MUL, ct, y, per_channel(D, in[j++], r, ct), NULL);
    if (n->ia[1] & 2) y = add(D, KG_OP_ADD, ct, y, per_channel(D, in[j++], r, ct), NULL);
    return cast(D, y, dt);
  }
  kg_shape gs, ws;
  memset(&gs, 0, sizeof gs), memset(&ws, 0, sizeof ws);
  gs.d[gs.rank++] = xs->d[0], gs.d[gs.rank++] = (kg_dim){KG_DIM_STATIC, g}, gs.d[gs.rank++] = (kg_dim){KG_DIM_STATIC, c / g};
  ws.d[ws.rank++] = (kg_dim){KG_DIM_STATIC, g}, ws.d[ws.rank++] = (kg_dim){KG_DIM_STATIC, c / g};
  for (int i = 2; i < r; i++) gs.d[gs.rank++] = xs->d[i], ws.d[ws.rank++] = (kg_dim){KG_DIM_STATIC, 1};
  uint32_t xg = reshape(D, x, &gs);
  y = standardize(D, xg, ((int64_t)1 << gs.rank) - 1 - 3, ct, n->fa[0]);
  if (n->ia[1] & 1) y = add(D, KG_OP_MUL, ct, y, cast(D, reshape(D, in[j++], &ws), ct), NULL);
  if (n->ia[1] & 2) y = add(D, KG_OP_ADD, ct, y, cast(D, reshape(D, in[j++], &ws), ct), NULL);
  return cast(D, reshape(D, y, xs), dt);
}

/* a POOL that decompose.c turns into a row reduction: adaptive to an output of 1 per pooled dim */
static bool global_pool(const kg_gnode *n) {
  if (n->op != KG_OP_POOL || ((n->ia[2] >> 2) & 3) < 2) return false;
  int nd = (int)(n->ia[2] & 3), r = n->shape.rank;
  for (int i = r - nd; i < r; i++)
    if (n->shape.d[i].kind != KG_DIM_STATIC || n->shape.d[i].v != 1) return false;
  return true;
}

static kg_shape shape_of(int rank, const int64_t *d) {
  kg_shape s;
  memset(&s, 0, sizeof s);
  s.rank = (uint8_t)rank;
  for (int i = 0; i < rank; i++) s.d[i] = (kg_dim){KG_DIM_STATIC, d[i]};
  return s;
}

/* CONV: the implicit GEMM. A = the weight viewed [G, O/G, K] ([O, K] for one group) (a transposed convolution's weight
 * [C, O/G, k...] regrouped, its window flipped: the adjoint), B = IM2COL of the input [N, G, K,
 * S...] (a transposed convolution reads its input dilated by the stride, padded by d(k-1) - p),
 * their product in convolution geometry (MATMUL ia[0] = 8 | G << 8) is the output [N, O, S...];
 * + bias viewed [O, 1...]. Half precision accumulates in float32, adds the bias in float32 and
 * rounds once. */
static uint32_t expand_conv(dctx *D, const kg_gnode *n, const uint32_t *in) {
  kg_dtype dt = (kg_dtype)n->dtype, acc = (kg_dtype)n->cdtype;
  kg_dtype ct = (dt == KG_F16 || dt == KG_BF16) ? KG_F32 : dt;
  /* read before any node is added: the node array may move */
  const kg_gnode *wn = &D->out->nodes.v[in[1]];
  kg_dim batch = D->out->nodes.v[in[0]].shape.d[0];
  int nd = kg_conv_dims(n->ia[3]);
  bool tr = kg_conv_transposed(n->ia[3]);
  int64_t G = kg_conv_groups(n->ia[3]), w0 = wn->shape.d[0].v, w1 = wn->shape.d[1].v;
  int64_t ks[KG_CONV_MAX_DIMS], win = 1;
  for (int i = 0; i < nd; i++) ks[i] = wn->shape.d[2 + i].v, win *= ks[i];
  int64_t O = tr ? w1 * G : w0, Og = O / G, Cg = tr ? w0 / G : w1, K = Cg * win;
  /* A: [G, Og, K] */
  uint32_t a;
  int64_t ad[3] = {G, Og, K};
  kg_shape as = shape_of(3, ad);
  if (G == 1) as = shape_of(2, ad + 1); /* [O, K]: the reshape then keeps O's dim as it is */
  if (!tr) {
    a = layout(D, KG_OP_RESHAPE, in[1], &as, NULL, NULL);
  } else {
    int64_t d5[KG_MAX_RANK] = {G, Cg, Og}, dp[KG_MAX_RANK] = {G, Og, Cg};
    for (int i = 0; i < nd; i++) d5[3 + i] = dp[3 + i] = ks[i];
    kg_shape s5 = shape_of(3 + nd, d5), sp = shape_of(3 + nd, dp);
    uint32_t v = layout(D, KG_OP_RESHAPE, in[1], &s5, NULL, NULL);
    int64_t perm = 0 | 2 << 4 | 1 << 8, flip = 0;
    for (int i = 0; i < nd; i++) perm |= (int64_t)(3 + i) << (4 * (3 + i)), flip |= (int64_t)1 << (3 + i);
    int64_t pia[4] = {perm, 0, 0, 0}, fia[4] = {flip, 0, 0, 0};
    v = layout(D, KG_OP_PERMUTE, v, &sp, pia, NULL);
    v = layout(D, KG_OP_FLIP, v, &sp, fia, NULL);
    a = layout(D, KG_OP_RESHAPE, v, &as, NULL, NULL);
  }
  /* B: IM2COL [N, G, K, S...] */
  kg_shape bs;
  memset(&bs, 0, sizeof bs);
  bs.rank = (uint8_t)(3 + nd);
  bs.d[0] = batch, bs.d[1] = (kg_dim){KG_DIM_STATIC, G}, bs.d[2] = (kg_dim){KG_DIM_STATIC, K};
  for (int i = 0; i < nd; i++) bs.d[3 + i] = n->shape.d[2 + i];
  int64_t st[KG_CONV_MAX_DIMS], pd[KG_CONV_MAX_DIMS], dl[KG_CONV_MAX_DIMS];
  double fa[4] = {1, 1, 1, 0};
  for (int i = 0; i < nd; i++) {
    st[i] = kg_conv_get(n->ia[0], i), pd[i] = kg_conv_get(n->ia[1], i), dl[i] = kg_conv_get(n->ia[2], i);
    if (tr) fa[i] = (double)st[i], pd[i] = dl[i] * (ks[i] - 1) - pd[i], st[i] = 1;
  }
  int64_t bia[4] = {kg_conv_pack(st, nd), kg_conv_pack(pd, nd), kg_conv_pack(dl, nd), kg_conv_pack(ks, nd)};
  uint32_t b = layout(D, KG_OP_IM2COL, in[0], &bs, bia, fa);
  bool tail = n->n_in == 3;
  uint32_t mm = matmul(D, tail ? ct : dt, acc, a, b, 8 | G << 8);
  if (!tail) return mm;
  int64_t bd[KG_MAX_RANK] = {O, 1, 1, 1};
  kg_shape bsh = shape_of(1 + nd, bd);
  uint32_t bias = layout(D, KG_OP_RESHAPE, cast(D, in[2], ct), &bsh, NULL, NULL);
  return cast(D, add(D, KG_OP_ADD, ct, mm, bias, NULL), dt);
}

/* select_scatter: x where the coordinate along d differs from the index, src (unsqueezed) where it equals it */
static uint32_t expand_select_scatter(dctx *D, const kg_gnode *n, const uint32_t *in) {
  kg_gb b = {D->out, n->path, n->srcloc};
  int d = (int)n->ia[0];
  kg_shape col = n->shape, su = n->shape;
  for (int i = 0; i < col.rank; i++)
    if (i != d) col.d[i] = (kg_dim){KG_DIM_STATIC, 1};
  su.d[d] = (kg_dim){KG_DIM_STATIC, 1};
  uint32_t rows = kg_gb_reshape(&b, kg_gb_arange(&b, KG_I64, n->shape.d[d]), &col);
  uint32_t hit = kg_gb_2(&b, KG_OP_EQ, KG_I64, rows, kg_gb_cast(&b, in[2], KG_I64));
  uint32_t src = kg_gb_reshape(&b, in[1], &su);
  return kg_gb_where(&b, (kg_dtype)n->dtype, hit, src, in[0]);
}

static uint32_t expand(dctx *D, const kg_gnode *n, const uint32_t *in) {
  if (n->op == KG_OP_SELECT_SCATTER) return expand_select_scatter(D, n, in);
  if (n->op == KG_OP_LINEAR || n->op == KG_OP_ADDMM) return expand_product(D, n, in);
  if (n->op == KG_OP_BATCH_NORM || n->op == KG_OP_GROUP_NORM || n->op == KG_OP_POOL) return expand_cnn(D, n, in);
  if (n->op == KG_OP_CONV) return expand_conv(D, n, in);
  if (kg_op_is_loss(n->op)) return kg_decompose_loss(D->out, n, in); /* decompose_loss.c */
  kg_dtype dt = (kg_dtype)n->dtype;
  kg_dtype ct = (dt == KG_F16 || dt == KG_BF16) ? KG_F32 : dt; /* compute dtype */
  uint32_t x = cast(D, in[0], ct);
  int64_t mask = n->ia[0];
  bool keep = n->ia[1] != 0;
  uint32_t r;
  switch (n->op) {
  case KG_OP_SOFTMAX:
  case KG_OP_LOG_SOFTMAX: {
    uint32_t m = internal(D, reduce(D, KG_OP_RAMAX, ct, ct, x, mask, true, 0));
    uint32_t xm = add(D, KG_OP_SUB, ct, x, m, NULL);
    uint32_t e = add(D, KG_OP_EXP, ct, xm, KG_NONE, NULL);
    uint32_t s = reduce(D, KG_OP_RSUM, ct, KG_F64, e, mask, true, 0);
    if (n->op == KG_OP_SOFTMAX) r = add(D, KG_OP_DIV, ct, e, s, NULL);
    else r = add(D, KG_OP_SUB, ct, xm, add(D, KG_OP_LOG, ct, s, KG_NONE, NULL), NULL);
    break;
  }
  case KG_OP_RSTD:
    r = add(D, KG_OP_SQRT, ct, reduce(D, KG_OP_RVAR, ct, KG_F64, x, mask, keep, n->fa[0]), KG_NONE, NULL);
    break;
  case KG_OP_RLOGSUMEXP: {
    uint32_t m = internal(D, reduce(D, KG_OP_RAMAX, ct, ct, x, mask, true, 0));
    uint32_t zero = cnst(D, ct, 0);
    uint32_t ms = where(D, ct, add(D, KG_OP_ISINF, KG_BOOL, m, KG_NONE, NULL), zero, m);
    uint32_t s = reduce(D, KG_OP_RSUM, ct, KG_F64, add(D, KG_OP_EXP, ct, add(D, KG_OP_SUB, ct, x, ms, NULL), KG_NONE, NULL), mask, keep, 0);
    uint32_t m2 = keep ? ms : internal(D, reduce(D, KG_OP_RAMAX, ct, ct, x, mask, false, 0));
    if (!keep) m2 = where(D, ct, add(D, KG_OP_ISINF, KG_BOOL, m2, KG_NONE, NULL), zero, m2);
    r = add(D, KG_OP_ADD, ct, add(D, KG_OP_LOG, ct, s, KG_NONE, NULL), m2, NULL);
    break;
  }
  case KG_OP_RNORM: {
    double p = n->fa[0];
    uint32_t ax = add(D, KG_OP_ABS, ct, x, KG_NONE, NULL);
    if (isinf(p) && p > 0) r = reduce(D, KG_OP_RAMAX, ct, ct, ax, mask, keep, 0);
    else if (isinf(p)) r = reduce(D, KG_OP_RAMIN, ct, ct, ax, mask, keep, 0);
    else if (p == 1) r = reduce(D, KG_OP_RSUM, ct, KG_F64, ax, mask, keep, 0);
    else if (p == 2) r = add(D, KG_OP_SQRT, ct, reduce(D, KG_OP_RSUM, ct, KG_F64, add(D, KG_OP_MUL, ct, x, x, NULL), mask, keep, 0), KG_NONE, NULL);
    else if (p == 0) r = reduce(D, KG_OP_RSUM, ct, KG_F64, cast(D, add(D, KG_OP_NE, KG_BOOL, x, cnst(D, ct, 0), NULL), ct), mask, keep, 0);
    else {
      uint32_t pw = add(D, KG_OP_POW, ct, ax, cnst(D, ct, p), NULL);
      r = add(D, KG_OP_POW, ct, reduce(D, KG_OP_RSUM, ct, KG_F64, pw, mask, keep, 0), cnst(D, ct, 1.0 / p), NULL);
    }
    break;
  }
  case KG_OP_LAYER_NORM: {
    uint32_t mu = reduce(D, KG_OP_RMEAN, ct, KG_F64, x, mask, true, 0);
    uint32_t var = reduce(D, KG_OP_RVAR, ct, KG_F64, x, mask, true, 0);
    uint32_t inv = add(D, KG_OP_RSQRT, ct, add(D, KG_OP_ADD, ct, var, cnst(D, ct, n->fa[0]), NULL), KG_NONE, NULL);
    r = add(D, KG_OP_MUL, ct, add(D, KG_OP_SUB, ct, x, mu, NULL), inv, NULL);
    int j = 1;
    if (n->ia[1] & 1) r = add(D, KG_OP_MUL, ct, r, cast(D, in[j++], ct), NULL);
    if (n->ia[1] & 2) r = add(D, KG_OP_ADD, ct, r, cast(D, in[j++], ct), NULL);
    break;
  }
  default: KG_UNREACHABLE();
  }
  return cast(D, r, dt);
}

/* ATTN (scaled_dot_product_attention) as the three kernels of PyTorch's math path, where the
 * fused attention kernel is not wanted (unfused_attn: force_variant 2 and 5, the checks of the
 * unfused kernels, perf/bench_attention's baseline; the program autodiff differentiates): s = q @ kᵀ · scale, masked (a bool mask
 * or the causal triangle fill -inf, a float mask adds), p = softmax(s) [· dropout], p @ v; in the
 * accumulator dtype (float32 for half precision) and rounded once at the end, as the fused kernel
 * and the twin compute it. The recognized form (ia[0] & 16) never reaches here. */
static uint32_t expand_attention(dctx *D, const kg_gnode *n, const uint32_t *in) {
  kg_dtype dt = (kg_dtype)n->dtype, ct = (kg_dtype)n->cdtype;
  int64_t fl = n->ia[0];
  int r = n->shape.rank;
  const kg_gnode *kn = &D->out->nodes.v[in[1]];
  kg_gnode m;
  memset(&m, 0, sizeof m);
  m.op = KG_OP_MATMUL, m.dtype = (uint8_t)ct, m.cdtype = (uint8_t)ct, m.vkind = KG_V_TENSOR, m.n_in = 2;
  m.in[0] = cast(D, in[0], ct), m.in[1] = cast(D, in[1], ct);
  m.ia[0] = 4; /* k [.., S, E] read transposed */
  m.shape = n->shape;
  m.shape.d[r - 1] = kn->shape.d[kn->shape.rank - 2];
  m.path = n->path, m.srcloc = n->srcloc;
  uint32_t s = kg_graph_add(D->out, &m);
  s = add(D, KG_OP_MUL, ct, s, cnst(D, ct, n->fa[0]), NULL);
  uint32_t ninf = cnst(D, ct, -INFINITY);
  int j = 3;
  if (fl & 2) {
    uint32_t mk = in[j++];
    s = (fl & 4) ? where(D, ct, mk, s, ninf) : add(D, KG_OP_ADD, ct, s, cast(D, mk, ct), NULL);
  }
  if (fl & 1) { /* tril(ones(L, S)): query i attends keys j <= i */
    kg_shape ls = {2, {m.shape.d[r - 2], m.shape.d[r - 1]}};
    kg_gnode one;
    memset(&one, 0, sizeof one);
    one.op = KG_OP_CONST, one.dtype = one.cdtype = KG_BOOL, one.vkind = KG_V_SCALAR, one.ia[0] = 1;
    one.path = n->path;
    uint32_t ones = layout(D, KG_OP_FILL, kg_graph_add(D->out, &one), &ls, NULL, NULL);
    D->out->nodes.v[ones].dtype = D->out->nodes.v[ones].cdtype = KG_BOOL;
    int64_t tia[4] = {0, 0, 0, 0};
    s = where(D, ct, layout(D, KG_OP_TRIL, ones, &ls, tia, NULL), s, ninf);
  }
  kg_gnode sm;
  memset(&sm, 0, sizeof sm);
  sm.op = KG_OP_SOFTMAX, sm.dtype = sm.cdtype = (uint8_t)ct, sm.vkind = KG_V_TENSOR, sm.n_in = 1, sm.in[0] = s;
  sm.ia[0] = (int64_t)1 << (r - 1);
  sm.shape = m.shape;
  sm.path = n->path, sm.srcloc = n->srcloc;
  const kg_gnode *saved = D->src;
  D->src = &sm;
  uint32_t p = expand(D, &sm, &s);
  D->src = saved;
  if (fl & 8) p = add(D, KG_OP_MUL, ct, p, cast(D, in[j], ct), NULL);
  kg_gnode o;
  memset(&o, 0, sizeof o);
  o.op = KG_OP_MATMUL, o.dtype = (uint8_t)ct, o.cdtype = (uint8_t)ct, o.vkind = KG_V_TENSOR, o.n_in = 2;
  o.in[0] = p, o.in[1] = cast(D, in[2], ct);
  o.shape = n->shape;
  o.path = n->path, o.srcloc = n->srcloc;
  return cast(D, kg_graph_add(D->out, &o), dt);
}

/* the same value: one node, or casts of one node to one dtype (CSE merges them) */
static bool same_value(const kg_graph *g, uint32_t a, uint32_t b) {
  const kg_gnode *x = &g->nodes.v[a], *y = &g->nodes.v[b];
  return a == b || (x->op == KG_OP_CAST && y->op == KG_OP_CAST && x->dtype == y->dtype && x->in[0] == y->in[0]);
}

/* A mean or variance without keepdim over the rows of a keepdim mean or variance already in
 * the program (a normalization's statistics: batch_norm's in training mode, which its running
 * statistics' update reads again), computed as that one is — keepdim, in its accumulator,
 * at least as wide — and squeezed: CSE then merges the means, the variances share the
 * mean's walk (Welford, each over its own count − correction: passes/lower_reduce.c), and
 * the squeeze view reads them in the row kernel (passes/fuse.c). KG_NONE: none to share. */
static uint32_t shared_statistic(dctx *D, const kg_gnode *n, const uint32_t *in) {
  const kg_graph *o = D->out;
  if ((n->op != KG_OP_RMEAN && n->op != KG_OP_RVAR) || n->ia[1] || !kg_dtype_is_float((kg_dtype)n->cdtype)) return KG_NONE;
  for (uint32_t i = o->nodes.n; i-- > 0;) {
    const kg_gnode *q = &o->nodes.v[i];
    if ((q->op != KG_OP_RMEAN && q->op != KG_OP_RVAR) || !q->ia[1] || q->ia[0] != n->ia[0] || q->dtype != n->dtype) continue;
    if (!kg_dtype_is_float((kg_dtype)q->cdtype) || kg_dtype_get((kg_dtype)q->cdtype)->size < kg_dtype_get((kg_dtype)n->cdtype)->size) continue;
    if (!same_value(o, q->in[0], in[0])) continue;
    uint32_t x = q->in[0];
    kg_dtype acc = (kg_dtype)q->cdtype;
    D->src = n;
    uint32_t r = reduce(D, (kg_op)n->op, (kg_dtype)n->dtype, acc, x, n->ia[0], true, n->fa[0]);
    return reshape(D, r, &n->shape);
  }
  return KG_NONE;
}

bool kg_pass_decompose(const kg_graph *g, kg_graph *out, kg_pass_ctx *c) {
  uint32_t *map = kg_xmalloc((g->nodes.n + 1) * sizeof *map);
  dctx D = {out, NULL};
  bool changed = false;
  for (uint32_t i = 0; i < g->nodes.n; i++) {
    const kg_gnode *n = &g->nodes.v[i];
    uint32_t in[8];
    for (int j = 0; j < n->n_in && j < 8; j++) in[j] = map[n->in[j]];
    if ((kg_op_get((kg_op)n->op)->flags & KG_OPF_COMPOSITE) || global_pool(n)) {
      D.src = n;
      map[i] = expand(&D, n, in);
      changed = true;
      continue;
    }
    if (n->op == KG_OP_ATTN && c->unfused_attn && !(n->ia[0] & 16)) { /* the unfused attention */
      D.src = n;
      map[i] = expand_attention(&D, n, in);
      changed = true;
      continue;
    }
    uint32_t sh = shared_statistic(&D, n, in);
    if (sh != KG_NONE) {
      map[i] = sh;
      changed = true;
      continue;
    }
    kg_gnode m = *n;
    for (int j = 0; j < n->n_in && j < 8; j++) m.in[j] = in[j];
    map[i] = kg_graph_add(out, &m);
  }
  for (uint32_t i = 0; i < g->params.n; i++) {
    kg_gparam p = g->params.v[i];
    p.node = map[p.node];
    KG_VEC_PUSH(out->params, p);
  }
  for (uint32_t i = 0; i < g->outputs.n; i++) KG_VEC_PUSH(out->outputs, map[g->outputs.v[i]]);
  kg_graph_copy_syms(out, g);
  for (uint32_t i = 0; i < g->guards.n; i++) KG_VEC_PUSH(out->guards, g->guards.v[i]);
  for (uint32_t i = 0; i < g->fns.n; i++) KG_VEC_PUSH(out->fns, g->fns.v[i]); /* shared: owned by g */
  out->n_entry_params = g->n_entry_params;
  out->fns_borrowed = true;
  free(map);
  return changed;
}
