/* frontend/layout_members.c — the H_LAYOUT member handler: a TorchSharp layout, joining,
 * indexing or factory member (view, transpose, cat, chunk, index_select, x.[TensorIndex...],
 * zeros, arange, dropout, ...) with its arguments bound to layout.c's ops — which dims, sizes
 * and indices each spelling passes, PyTorch's argument errors, and TensorIndex values. Split
 * from layout.c, which keeps the shape rules the ops share.
 *
 *   x.flatten(1L, 2L) on [N,3,4]   → reshape_to(x, [N, 12])
 *   torch.stack([| a; b |], 0L)   → cat of a, b unsqueezed at 0
 */
#include <stdio.h>
#include <string.h>

#include "layout_int.h"

/* TorchSharp's x.split(3L, 2L) binds to split(params int64[] sizes) — sizes [3; 2] along dim 0 —
 * not to split(int64 size, int dim), which takes an int dim (x.split(3L, 2)). F# compiles both
 * silently. When the call wrote two int64 arguments (the params array has the call's own source
 * range; an array literal [| 3L; 2L |] has its own) and the second could be a dim of x: the
 * text to add to the sizes' error (sum != size), or, with warn, a warning when they sum to the
 * size anyway (by accident, or meant: the warning says how to say which). "" otherwise. */
static const char *split_params_hint(lay *L, kg_ev sizes, int rank, bool warn) {
  const kg_ast *at = L->at, *arr = at->n_kids == 1 ? at->kids[0] : NULL;
  if (!at->member || strcmp(at->member->key, "TorchSharp.torch+Tensor::split(System.Int64[])") != 0 || sizes.n != 2 || !arr ||
      arr->k != KG_AST_NewArray || !arr->has_loc || !at->has_loc || memcmp(arr->loc, at->loc, sizeof at->loc) != 0)
    return "";
  int64_t a, b;
  if (!kg_lay_const_i(sizes.items[0], &a) || !kg_lay_const_i(sizes.items[1], &b) || b < -rank || b >= rank) return "";
  const char *says = kg_arena_printf(L->el->arena,
                                     "x.split(%lldL, %lldL) is TorchSharp's split(params int64[] sizes): pieces of %lld and %lld along dim 0; "
                                     "for pieces of %lld along dim %lld write x.split(%lldL, %lld) (the dim an int), for the sizes write x.split([| %lldL; %lldL |])",
                                     (long long)a, (long long)b, (long long)a, (long long)b, (long long)a, (long long)b, (long long)a, (long long)b,
                                     (long long)a, (long long)b);
  if (warn) kg_elab_warn(L->el, at, "%s", says);
  return kg_arena_printf(L->el->arena, " (%s)", says);
}

/* ---- the handler ---- */

kg_ev kg_elab_layout(kg_elab *el, const kg_ast *at, const kg_member_row *row, const kg_ev *av, int n) {
  const kg_member *m = at->member;
  /* the row's member name (an in-place call, effects.c, arrives here with its out-of-place row) */
  char nbuf[64];
  const char *k0 = strstr(row->key, "::");
  size_t nl = k0 ? strcspn(k0 + 2, "(") : 0;
  snprintf(nbuf, sizeof nbuf, "%.*s", (int)(nl < sizeof nbuf ? nl : sizeof nbuf - 1), k0 ? k0 + 2 : m->name);
  const char *nm = nbuf;
  if (!strncmp(nm, "get_", 4)) nm += 4;
  char what[80];
  snprintf(what, sizeof what, "%s()", nm);
  lay Ls = {el, at, what}, *L = &Ls;
  const char *spec = row->argspec;
  if ((int)strlen(spec) != n) return err(el, at, KG_E_FORMAT, "%s takes %d arguments, got %d", row->key, (int)strlen(spec), n);
  for (int i = 0; i < n; i++) {
    if (av[i].kind == EV_ERR) return av[i];
    if (spec[i] == 'X' && !(av[i].kind == EV_CONST && !av[i].c.i)) return fail(L, KG_E_UNSUPPORTED, "argument %d must be false", i + 1);
    if (spec[i] == 'G' && av[i].kind != EV_NULL)
      return fail(L, KG_E_UNSUPPORTED, "a TorchSharp Generator: kgen draws from its own generator, which the caller seeds (Kgen.manualSeed, kg_context_manual_seed); pass null");
  }
  if (!strncmp(row->key, "TorchSharp.torch+TensorIndex::", 30)) {
    if (!strcmp(nm, "Slice")) return tindex(L, KG_TI_SLICE, av, 3);
    if (!strcmp(nm, "Single") || !strcmp(nm, "op_Implicit")) {
      if (av[0].kind == EV_NULL) return fail(L, KG_E_ARG, "TensorIndex.Single(null)");
      return tindex(L, KG_TI_SINGLE, av, 1);
    }
    if (!strcmp(nm, "Tensor")) {
      uint32_t t;
      if (!tensor_arg(L, av[0], &t)) return kg_ev_err();
      return tindex(L, KG_TI_TENSOR, av, 1);
    }
    if (!strcmp(nm, "Bool")) return tindex(L, KG_TI_BOOL, av, 1);
    if (!strcmp(nm, "Ellipsis")) return tindex(L, KG_TI_ELLIPSIS, NULL, 0);
    if (!strcmp(nm, "None") || !strcmp(nm, "Null")) return tindex(L, KG_TI_NONE, NULL, 0);
    if (!strcmp(nm, "Colon")) return tindex(L, KG_TI_COLON, NULL, 0);
    return err(el, at, KG_E_INTERNAL, "unhandled TensorIndex member %s", row->key);
  }
  uint32_t x = KG_NONE;
  if (n > 0 && spec[0] == 't' && !tensor_arg(L, av[0], &x)) return kg_ev_err();
  if (row->op == KG_OP_INDEX && (!strcmp(nm, "index") || !strcmp(nm, "TensorItems"))) {
    snprintf(what, sizeof what, "indexing");
    if (n == 2 && av[1].kind == EV_ARRAY) return getitem(L, x, av[1].items, (int)av[1].n);
    return getitem(L, x, av + 1, n - 1);
  }
  if (kg_op_is_random(row->op) || !strcmp(nm, "dropout")) return kg_lay_random(L, nm, row, av, n, x);
  if (!strcmp(nm, "einsum") || !strcmp(nm, "outer") || !strcmp(nm, "ger")) return kg_lay_einsum(L, nm, av, n, x);
  /* a copy: every node added below may move the graph's node array (a pointer into it read
   * after masked_fill's where() was freed memory: found by kgen fuzz under ASan, seed 40006) */
  kg_gnode xcopy;
  const kg_gnode *xn = NULL;
  if (x != KG_NONE) xcopy = *gnode(el, x), xn = &xcopy;
  int r = xn ? xn->shape.rank : 0;
  kg_dim dims[KG_MAX_RANK + 1];
  int64_t a = 0, b = 0, c = 0;
  int d, d2;
  switch (row->op) {
  case KG_OP_RESHAPE: {
    if (!strcmp(nm, "contiguous")) {
      /* the values themselves; a node only where a view chain ends, so that a view() after it
       * sees a contiguous tensor as PyTorch does */
      if (!(kg_op_get((kg_op)xn->op)->flags & KG_OPF_LAYOUT)) return kg_ev_node(x);
      return kg_ev_node(add(L, KG_OP_RESHAPE, (kg_dtype)xn->dtype, &x, 1, &xn->shape, 2, 0, 0));
    }
    if (!strcmp(nm, "view") || !strcmp(nm, "reshape")) {
      int k = sizes_arg(L, av[1], dims, KG_MAX_RANK);
      if (k < 0) return kg_ev_err();
      return reshape_to(L, x, dims, k, !strcmp(nm, "view"));
    }
    if (!strcmp(nm, "view_as") || !strcmp(nm, "reshape_as")) {
      uint32_t y;
      if (!tensor_arg(L, av[1], &y)) return kg_ev_err();
      const kg_gnode *yn = gnode(el, y);
      return reshape_to(L, x, yn->shape.d, yn->shape.rank, !strcmp(nm, "view_as"));
    }
    if (!strcmp(nm, "unsqueeze")) return int_arg(L, av[1], &a, "the dim") ? unsqueeze(L, x, a) : kg_ev_err();
    if (!strcmp(nm, "squeeze")) {
      int k = 0;
      bool all = av[1].kind == EV_NULL;
      if (!all && !int_arg(L, av[1], &a, "the dim")) return kg_ev_err();
      if (!all && r == 0 && (a == 0 || a == -1)) return kg_ev_node(x);
      if (!all && !norm_dim(L, a, r, &d)) return kg_ev_err();
      for (int i = 0; i < r; i++)
        if (!(is_one(&xn->shape.d[i]) && (all || i == d))) dims[k++] = xn->shape.d[i];
      return reshape_to(L, x, dims, k, false);
    }
    if (!strcmp(nm, "flatten")) {
      if (!int_arg(L, av[1], &a, "start_dim") || !int_arg(L, av[2], &b, "end_dim")) return kg_ev_err();
      if (r == 0) return reshape_to(L, x, (kg_dim[]){{KG_DIM_STATIC, 1}}, 1, false);
      if (!norm_dim(L, a, r, &d) || !norm_dim(L, b, r, &d2)) return kg_ev_err();
      if (d > d2) return fail(L, KG_E_ARG, "flatten() has invalid args: start_dim cannot come after end_dim");
      int k = 0;
      for (int i = 0; i < d; i++) dims[k++] = xn->shape.d[i];
      /* the flattened size: the product when static (0 elements included), the one symbol
       * among size-1 dims, else inferred */
      kg_dim fl = {KG_DIM_STATIC, 1};
      int nsym = 0;
      for (int i = d; i <= d2; i++) {
        if (xn->shape.d[i].kind == KG_DIM_STATIC) fl.v *= xn->shape.d[i].v;
        else nsym++;
      }
      if (nsym == 1 && fl.v == 1)
        for (int i = d; i <= d2; i++)
          if (xn->shape.d[i].kind != KG_DIM_STATIC) fl = xn->shape.d[i];
      if (nsym && !(nsym == 1 && fl.kind == KG_DIM_SYM)) fl = (kg_dim){KG_DIM_STATIC, -1};
      dims[k++] = fl;
      for (int i = d2 + 1; i < r; i++) dims[k++] = xn->shape.d[i];
      if (d == d2) return kg_ev_node(x);
      return reshape_to(L, x, dims, k, false);
    }
    if (!strcmp(nm, "unflatten")) {
      kg_dim parts[KG_MAX_RANK];
      if (!int_arg(L, av[1], &a, "the dim") || !norm_dim(L, a, r, &d)) return kg_ev_err();
      int np = sizes_arg(L, av[2], parts, KG_MAX_RANK);
      if (np < 0) return kg_ev_err();
      if (r - 1 + np > KG_MAX_RANK) return fail(L, KG_E_LIMIT, "the result's rank %d exceeds kgen's %d", r - 1 + np, KG_MAX_RANK);
      int k = 0;
      for (int i = 0; i < d; i++) dims[k++] = xn->shape.d[i];
      for (int i = 0; i < np; i++) dims[k++] = parts[i];
      for (int i = d + 1; i < r; i++) dims[k++] = xn->shape.d[i];
      return reshape_to(L, x, dims, k, true);
    }
    break;
  }
  case KG_OP_PERMUTE: {
    if (!strcmp(nm, "transpose") || !strcmp(nm, "swapaxes") || !strcmp(nm, "swapdims")) {
      if (!int_arg(L, av[1], &a, "dim0") || !int_arg(L, av[2], &b, "dim1")) return kg_ev_err();
      return transpose(L, x, a, b);
    }
    if (!strcmp(nm, "t")) {
      if (r > 2) return fail(L, KG_E_SHAPE, "t() expects a tensor with <= 2 dimensions, but self is %dD", r);
      return r < 2 ? kg_ev_node(x) : transpose(L, x, 0, 1);
    }
    if (!strcmp(nm, "T")) {
      int perm[KG_MAX_RANK];
      for (int i = 0; i < r; i++) perm[i] = r - 1 - i;
      return permute(L, x, perm);
    }
    if (!strcmp(nm, "mT")) {
      if (r < 2) return fail(L, KG_E_SHAPE, "tensor.mT is only supported on matrices or batches of matrices. Got %dD tensor.", r);
      return transpose(L, x, -2, -1);
    }
    if (!strcmp(nm, "permute") || !strcmp(nm, "movedim")) {
      int perm[KG_MAX_RANK], seen[KG_MAX_RANK] = {0};
      if (!strcmp(nm, "permute")) {
        if (av[1].kind != EV_ARRAY || (int)av[1].n != r)
          return fail(L, KG_E_SHAPE, "number of dims don't match in permute (the input has %d)", r);
        for (int i = 0; i < r; i++) {
          if (!int_arg(L, av[1].items[i], &a, "a dim") || !norm_dim(L, a, r, &perm[i])) return kg_ev_err();
          if (seen[perm[i]]++) return fail(L, KG_E_SHAPE, "repeated dim in permute");
        }
        return permute(L, x, perm);
      }
      /* movedim(src, dst): the moved dims at their destinations, the rest in order */
      int64_t src[KG_MAX_RANK], dst[KG_MAX_RANK];
      int ns = 0;
      if (av[1].kind == EV_ARRAY) {
        if (av[2].kind != EV_ARRAY || av[1].n != av[2].n || (int)av[1].n > r) return fail(L, KG_E_SHAPE, "Invalid source or destination dims");
        ns = (int)av[1].n;
        for (int i = 0; i < ns; i++)
          if (!int_arg(L, av[1].items[i], &src[i], "a dim") || !int_arg(L, av[2].items[i], &dst[i], "a dim")) return kg_ev_err();
      } else {
        ns = 1;
        if (!int_arg(L, av[1], &src[0], "source") || !int_arg(L, av[2], &dst[0], "destination")) return kg_ev_err();
      }
      int at_dst[KG_MAX_RANK], used[KG_MAX_RANK] = {0};
      for (int i = 0; i < r; i++) at_dst[i] = -1;
      for (int i = 0; i < ns; i++) {
        int s, t;
        if (!norm_dim(L, src[i], r, &s) || !norm_dim(L, dst[i], r, &t)) return kg_ev_err();
        if (at_dst[t] >= 0 || used[s]) return fail(L, KG_E_SHAPE, "repeated dim in movedim");
        at_dst[t] = s, used[s] = 1;
      }
      for (int i = 0, j = 0; i < r; i++) {
        if (at_dst[i] >= 0) { perm[i] = at_dst[i]; continue; }
        while (used[j]) j++;
        perm[i] = j++;
      }
      return permute(L, x, perm);
    }
    break;
  }
  case KG_OP_EXPAND: {
    kg_shape sh;
    memset(&sh, 0, sizeof sh);
    int k;
    if (!strcmp(nm, "expand_as")) {
      uint32_t y;
      if (!tensor_arg(L, av[1], &y)) return kg_ev_err();
      sh = gnode(el, y)->shape;
      k = sh.rank;
    } else {
      k = sizes_arg(L, av[1], dims, KG_MAX_RANK);
      if (k < 0) return kg_ev_err();
      sh.rank = (uint8_t)k;
      for (int i = 0; i < k; i++) sh.d[i] = dims[i];
    }
    if (k < r) return fail(L, KG_E_SHAPE, "the number of sizes provided (%d) must be greater or equal to the number of dimensions in the tensor (%d)", k, r);
    for (int i = 0; i < k; i++) {
      int j = i - (k - r);
      bool neg = sh.d[i].kind == KG_DIM_STATIC && sh.d[i].v == -1;
      if (neg && j < 0) return fail(L, KG_E_SHAPE, "-1 is not allowed in a leading, non-existing dimension %d", i);
      if (neg) { sh.d[i] = xn->shape.d[j]; continue; }
      if (j >= 0 && !is_one(&xn->shape.d[j]) && !dim_eq(&xn->shape.d[j], &sh.d[i]))
        return fail(L, KG_E_SHAPE, "The expanded size of the tensor (%lld) must match the existing size (%lld) at non-singleton dimension %d", (long long)sh.d[i].v,
                    (long long)xn->shape.d[j].v, i);
    }
    if (kg_shape_equal(&sh, &xn->shape)) return kg_ev_node(x);
    return kg_ev_node(add(L, KG_OP_EXPAND, (kg_dtype)xn->dtype, &x, 1, &sh, 0, 0, 0));
  }
  case KG_OP_REPEAT: {
    int k = sizes_arg(L, av[1], dims, KG_MAX_RANK);
    if (k < 0) return kg_ev_err();
    if (k < r) return fail(L, KG_E_SHAPE, "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
    kg_shape sh;
    memset(&sh, 0, sizeof sh);
    sh.rank = (uint8_t)k;
    for (int i = 0; i < k; i++) {
      int j = i - (k - r);
      if (dims[i].kind != KG_DIM_STATIC || dims[i].v < 0) return fail(L, KG_E_ARG, "repeats must be non-negative constants");
      kg_dim s = j >= 0 ? xn->shape.d[j] : (kg_dim){KG_DIM_STATIC, 1};
      if (dims[i].v == 1) sh.d[i] = s;
      else if (s.kind == KG_DIM_STATIC) sh.d[i] = (kg_dim){KG_DIM_STATIC, s.v * dims[i].v};
      else return fail(L, KG_E_UNSUPPORTED, "repeating a dim of symbolic size");
    }
    if (kg_shape_equal(&sh, &xn->shape)) return kg_ev_node(x);
    return kg_ev_node(add(L, KG_OP_REPEAT, (kg_dtype)xn->dtype, &x, 1, &sh, 0, 0, 0));
  }
  case KG_OP_FLIP: {
    int64_t mask = 0;
    int k = av[1].kind == EV_ARRAY ? (int)av[1].n : 1;
    for (int i = 0; i < k; i++) {
      if (!int_arg(L, av[1].kind == EV_ARRAY ? av[1].items[i] : av[1], &a, "a dim") || !norm_dim(L, a, r, &d)) return kg_ev_err();
      if ((mask >> d) & 1) return fail(L, KG_E_SHAPE, "dim %d appears multiple times in the list of dims", d);
      mask |= (int64_t)1 << d;
    }
    if (r == 0 || !mask) return kg_ev_node(x);
    return kg_ev_node(add(L, KG_OP_FLIP, (kg_dtype)xn->dtype, &x, 1, &xn->shape, mask, 0, 0));
  }
  case KG_OP_ROLL: {
    /* roll(shift, dims = null): the flattened tensor when dims is null; roll(shifts[]): dim 0;
     * roll(shifts[], dims[]) */
    int64_t sh[KG_MAX_RANK], dm[KG_MAX_RANK];
    int k = av[1].kind == EV_ARRAY ? (int)av[1].n : 1, kd = k;
    if (k > KG_MAX_RANK) return fail(L, KG_E_LIMIT, "more than %d shifts", KG_MAX_RANK);
    for (int i = 0; i < k; i++)
      if (!int_arg(L, av[1].kind == EV_ARRAY ? av[1].items[i] : av[1], &sh[i], "a shift")) return kg_ev_err();
    bool flat = n == 3 && av[2].kind == EV_NULL;
    if (n == 2) kd = 1, dm[0] = 0;
    else if (!flat) {
      kd = av[2].kind == EV_ARRAY ? (int)av[2].n : 1;
      for (int i = 0; i < kd && i < KG_MAX_RANK; i++)
        if (!int_arg(L, av[2].kind == EV_ARRAY ? av[2].items[i] : av[2], &dm[i], "a dim")) return kg_ev_err();
    }
    if (!flat && kd != k) return fail(L, KG_E_SHAPE, "shifts and dimensions must align. shifts: %d, dims:%d", k, kd);
    uint32_t cur = x;
    if (flat) {
      kg_dim all = {KG_DIM_STATIC, -1};
      kg_ev f = reshape_to(L, x, &all, 1, false);
      if (f.kind == EV_ERR) return f;
      cur = f.id, dm[0] = 0;
    }
    for (int i = 0; i < k; i++) {
      int rr = gnode(el, cur)->shape.rank;
      if (!norm_dim(L, dm[i], rr, &d)) return kg_ev_err();
      int64_t size = static_size(L, cur, d, what);
      if (size < 0) return kg_ev_err();
      int64_t s = size ? ((sh[i] % size) + size) % size : 0;
      if (s) cur = add(L, KG_OP_ROLL, (kg_dtype)xn->dtype, &cur, 1, &gnode(el, cur)->shape, d, s, 0);
    }
    return flat ? reshape_to(L, cur, xn->shape.d, r, false) : kg_ev_node(cur);
  }
  case KG_OP_SLICE: {
    if (!strcmp(nm, "narrow") || !strcmp(nm, "slice")) {
      bool sl = !strcmp(nm, "slice");
      if (!int_arg(L, av[1], &a, "the dim") || !norm_dim(L, a, r, &d)) return kg_ev_err();
      if (!int_arg(L, av[2], &b, "start") || !int_arg(L, av[3], &c, sl ? "end" : "length")) return kg_ev_err();
      int64_t step = 1;
      if (sl && !int_arg(L, av[4], &step, "step")) return kg_ev_err();
      int64_t size = static_size(L, x, d, what);
      if (size < 0) return kg_ev_err();
      if (sl) { /* Python slice semantics: clamped */
        if (step <= 0) return fail(L, KG_E_ARG, "slice step must be positive");
        int64_t s = b < 0 ? b + size : b, e = c < 0 ? c + size : c;
        s = s < 0 ? 0 : s > size ? size : s, e = e < s ? s : e > size ? size : e;
        return slice(L, x, d, s, (e - s + step - 1) / step, step);
      }
      if (b < -size || b > size) return fail(L, KG_E_SHAPE, "start out of range (expected to be in range of [%lld, %lld], but got %lld)", (long long)-size, (long long)size, (long long)b);
      int64_t s = b < 0 ? b + size : b;
      if (c < 0 || s + c > size) return fail(L, KG_E_SHAPE, "start (%lld) + length (%lld) exceeds dimension size (%lld).", (long long)s, (long long)c, (long long)size);
      return slice(L, x, d, s, c, 1);
    }
    /* chunk(chunks, dim), split(size | sizes, dim), tensor_split(sections | indices, dim) */
    int64_t len[64];
    int k = 0;
    int64_t dim = 0;
    if (n >= 3 && !int_arg(L, av[2], &dim, "the dim")) return kg_ev_err();
    if (!norm_dim(L, dim, r, &d)) return kg_ev_err();
    int64_t size = static_size(L, x, d, what);
    if (size < 0) return kg_ev_err();
    if (!strcmp(nm, "chunk")) {
      if (!int_arg(L, av[1], &a, "chunks")) return kg_ev_err();
      if (a <= 0) return fail(L, KG_E_ARG, "chunk expects `chunks` to be greater than 0, got: %lld", (long long)a);
      int64_t each = (size + a - 1) / a;
      if (each == 0) each = 1, size = size ? size : 0;
      for (int64_t s = 0; s < size && k < 64; s += each) len[k++] = s + each > size ? size - s : each;
      if (size == 0) len[k++] = 0;
    } else if (!strcmp(nm, "split")) {
      if (av[1].kind == EV_ARRAY) {
        int64_t sum = 0;
        for (uint32_t i = 0; i < av[1].n && k < 64; i++) {
          if (!int_arg(L, av[1].items[i], &len[k], "a split size")) return kg_ev_err();
          sum += len[k++];
        }
        if (sum != size) {
          const char *hint = split_params_hint(L, av[1], r, false);
          return fail(L, KG_E_SHAPE, "split_with_sizes expects split_sizes to sum exactly to %lld (input tensor's size at dimension %d), but got split_sizes with sum %lld%s",
                      (long long)size, d, (long long)sum, hint);
        }
        split_params_hint(L, av[1], r, true);
      } else {
        if (!int_arg(L, av[1], &a, "split_size")) return kg_ev_err();
        if (a <= 0) return fail(L, KG_E_ARG, "split expects split_size be non-negative, but got split_size=%lld", (long long)a);
        for (int64_t s = 0; s < size && k < 64; s += a) len[k++] = s + a > size ? size - s : a;
        if (size == 0) len[k++] = 0;
      }
    } else { /* tensor_split */
      if (av[1].kind == EV_ARRAY) {
        int64_t prev = 0;
        for (uint32_t i = 0; i <= av[1].n && k < 64; i++) {
          int64_t idx = size;
          if (i < av[1].n && !int_arg(L, av[1].items[i], &idx, "an index")) return kg_ev_err();
          if (idx < 0) idx += size;
          idx = idx < prev ? prev : idx > size ? size : idx;
          len[k++] = idx - prev, prev = idx;
        }
      } else {
        if (!int_arg(L, av[1], &a, "sections")) return kg_ev_err();
        if (a <= 0) return fail(L, KG_E_ARG, "number of sections must be larger than 0, got %lld", (long long)a);
        for (int64_t i = 0; i < a && k < 64; i++) len[k++] = size / a + (i < size % a ? 1 : 0);
      }
    }
    if (k >= 64) return fail(L, KG_E_LIMIT, "more than 64 pieces");
    return split_at(L, x, d, len, k);
  }
  case KG_OP_SELECT: {
    int64_t dim = 0;
    if (!strcmp(nm, "unbind")) {
      if (n >= 2 && !int_arg(L, av[1], &dim, "the dim")) return kg_ev_err();
      if (!norm_dim(L, dim, r, &d)) return kg_ev_err();
      int64_t size = static_size(L, x, d, what);
      if (size < 0) return kg_ev_err();
      if (size > 64) return fail(L, KG_E_LIMIT, "unbind() into %lld tensors: kgen unbinds at most 64", (long long)size);
      kg_ev items[64];
      for (int64_t i = 0; i < size; i++) items[i] = select_at(L, x, d, i);
      return array_of(L, items, (int)size);
    }
    if (!int_arg(L, av[1], &dim, "the dim") || !norm_dim(L, dim, r, &d)) return kg_ev_err();
    if (!int_arg(L, av[2], &a, "the index")) return kg_ev_err();
    int64_t size = static_size(L, x, d, what);
    if (size < 0) return kg_ev_err();
    if (a < -size || a >= size) {
      char sz[160];
      shape_text(L, &xn->shape, sz, sizeof sz);
      return fail(L, KG_E_SHAPE, "index %lld out of range for tensor of size %s at dimension %d", (long long)a, sz, d);
    }
    return select_at(L, x, d, a < 0 ? a + size : a);
  }
  case KG_OP_SELECT_SCATTER: { /* select_scatter(input, src, dim, index): input with its slice at index replaced */
    uint32_t src, ix;
    int64_t dim = 0, ci;
    if (!tensor_arg(L, av[1], &src) || !int_arg(L, av[2], &dim, "the dim") || !norm_dim(L, dim, r, &d)) return kg_ev_err();
    kg_gnode sn = *gnode(el, src);
    kg_shape want = xn->shape;
    for (int i = d; i + 1 < r; i++) want.d[i] = want.d[i + 1];
    want.rank--;
    if (!kg_shape_equal(&sn.shape, &want)) {
      char ss[160], ws[160];
      shape_text(L, &sn.shape, ss, sizeof ss);
      shape_text(L, &want, ws, sizeof ws);
      return fail(L, KG_E_SHAPE, "expected src to have a size equal to the slice of self. src size = %s, slice size = %s", ss, ws);
    }
    if (av[3].kind != EV_CONST && !(av[3].kind == EV_NODE && gnode(el, av[3].id)->vkind == KG_V_SCALAR))
      return fail(L, KG_E_TYPE, "the index must be a number");
    if (const_i(av[3], &ci) && xn->shape.d[d].kind == KG_DIM_STATIC && (ci < -xn->shape.d[d].v || ci >= xn->shape.d[d].v)) {
      char sz[160];
      shape_text(L, &xn->shape, sz, sizeof sz);
      return fail(L, KG_E_SHAPE, "select(): index %lld out of range for tensor of size %s at dimension %d", (long long)ci, sz, d);
    }
    if (av[3].kind == EV_CONST && ci < 0 && xn->shape.d[d].kind == KG_DIM_STATIC) ci += xn->shape.d[d].v;
    kg_ev iv = av[3].kind == EV_CONST ? kg_ev_const(kg_cval_int(KG_I64, ci)) : av[3];
    if (!kg_elab_as_node(el, at, iv, &ix)) return kg_ev_err();
    if (kg_dtype_is_float((kg_dtype)gnode(el, ix)->dtype) || gnode(el, ix)->dtype == KG_BOOL) return fail(L, KG_E_TYPE, "the index must be an integer");
    if (sn.dtype != xn->dtype) { /* the slice's copy_(src) converts */
      kg_ev cv = kg_elab_tensor_op_ev(el, at, KG_OP_CAST, &av[1], 1, NULL, NULL, (kg_dtype)xn->dtype);
      if (cv.kind == EV_ERR) return cv;
      src = cv.id;
    }
    uint32_t ops[3] = {x, src, ix};
    return kg_ev_node(add(L, KG_OP_SELECT_SCATTER, (kg_dtype)xn->dtype, ops, 3, &xn->shape, d, 0, 0));
  }
  case KG_OP_CAT: {
    uint32_t in[64];
    int k = tensor_list(L, av[0], in, 64);
    if (k < 0) return kg_ev_err();
    int64_t dim = 0;
    if (n >= 2 && !int_arg(L, av[1], &dim, "the dim")) return kg_ev_err();
    if (!strcmp(nm, "stack")) {
      if (k == 0) return fail(L, KG_E_ARG, "stack expects a non-empty TensorList");
      kg_shape first = gnode(el, in[0])->shape;
      int dd;
      if (!norm_dim(L, dim, first.rank + 1, &dd)) return kg_ev_err();
      for (int i = 0; i < k; i++) {
        if (!kg_shape_equal(&gnode(el, in[i])->shape, &first))
          return fail(L, KG_E_SHAPE, "stack expects each tensor to be equal size (tensor %d differs from tensor 0)", i);
        kg_ev u = unsqueeze(L, in[i], dd);
        if (u.kind == EV_ERR) return u;
        in[i] = u.id;
      }
      return cat(L, in, k, dd);
    }
    if (!strcmp(nm, "hstack") || !strcmp(nm, "vstack")) {
      bool h = !strcmp(nm, "hstack");
      for (int i = 0; i < k; i++) { /* vstack: atleast_2d; hstack: 1-D tensors join along 0 */
        const kg_gnode *o = gnode(el, in[i]);
        if (!h && o->shape.rank < 2) {
          kg_dim nd[2] = {{KG_DIM_STATIC, 1}, o->shape.rank ? o->shape.d[0] : (kg_dim){KG_DIM_STATIC, 1}};
          kg_ev u = reshape_to(L, in[i], nd, 2, false);
          if (u.kind == EV_ERR) return u;
          in[i] = u.id;
        } else if (h && o->shape.rank == 0) {
          kg_ev u = unsqueeze(L, in[i], 0);
          if (u.kind == EV_ERR) return u;
          in[i] = u.id;
        }
      }
      return cat(L, in, k, h && gnode(el, in[0])->shape.rank == 1 ? 0 : h ? 1 : 0);
    }
    return cat(L, in, k, dim);
  }
  case KG_OP_INDEX: {
    uint32_t idx;
    if (!int_arg(L, av[1], &a, "the dim") || !norm_dim(L, a, r, &d) || !tensor_arg(L, av[2], &idx)) return kg_ev_err();
    const kg_gnode *in = gnode(el, idx);
    if (kg_dtype_is_float((kg_dtype)in->dtype) || in->dtype == KG_BOOL)
      return fail(L, KG_E_TYPE, "index_select(): Expected dtype int32/int64 for index, got %s", kg_dtype_name((kg_dtype)in->dtype));
    if (in->shape.rank > 1) return fail(L, KG_E_SHAPE, "Index is supposed to be a vector");
    kg_shape sh = xn->shape;
    if (r == 0) return fail(L, KG_E_SHAPE, "index_select() of a 0-dim tensor is not supported");
    sh.d[d] = in->shape.rank ? in->shape.d[0] : (kg_dim){KG_DIM_STATIC, 1};
    uint32_t ops[2] = {x, idx};
    return kg_ev_node(add(L, KG_OP_INDEX, (kg_dtype)xn->dtype, ops, 2, &sh, d, 0, 0));
  }
  case KG_OP_GATHER: {
    uint32_t idx;
    int64_t dim = 0;
    if (!strcmp(nm, "gather")) {
      if (!int_arg(L, av[1], &dim, "the dim") || !tensor_arg(L, av[2], &idx)) return kg_ev_err();
    } else {
      if (!tensor_arg(L, av[1], &idx)) return kg_ev_err();
      if (n < 3) return fail(L, KG_E_UNSUPPORTED, "take_along_dim without a dim (over the flattened input) is not supported yet");
      if (!int_arg(L, av[2], &dim, "the dim")) return kg_ev_err();
    }
    if (!norm_dim(L, dim, r, &d)) return kg_ev_err();
    const kg_gnode *in = gnode(el, idx);
    if (in->dtype != KG_I64) return fail(L, KG_E_TYPE, "gather(): Expected dtype int64 for index, got %s", kg_dtype_name((kg_dtype)in->dtype));
    if (in->shape.rank != r) return fail(L, KG_E_SHAPE, "Index tensor must have the same number of dimensions as input tensor");
    kg_shape sh = in->shape;
    if (!strcmp(nm, "take_along_dim")) { /* broadcast the other dims */
      for (int j = 0; j < r; j++)
        if (j != d && is_one(&sh.d[j])) sh.d[j] = xn->shape.d[j];
    }
    for (int j = 0; j < r; j++)
      if (j != d && sh.d[j].kind == KG_DIM_STATIC && xn->shape.d[j].kind == KG_DIM_STATIC && sh.d[j].v > xn->shape.d[j].v)
        return fail(L, KG_E_SHAPE, "Size does not match at dimension %d expected index %s to be smaller than self apart from dimension %d", j, "shape", d);
    uint32_t ops[2] = {x, idx};
    if (!kg_shape_equal(&sh, &in->shape)) {
      ops[1] = add(L, KG_OP_EXPAND, KG_I64, &idx, 1, &sh, 0, 0, 0);
      kg_shape xs = xn->shape;
      for (int j = 0; j < r; j++)
        if (j != d && is_one(&xs.d[j])) xs.d[j] = sh.d[j];
      if (!kg_shape_equal(&xs, &xn->shape)) ops[0] = add(L, KG_OP_EXPAND, (kg_dtype)xn->dtype, &x, 1, &xs, 0, 0, 0);
    }
    return kg_ev_node(add(L, KG_OP_GATHER, (kg_dtype)xn->dtype, ops, 2, &sh, d, 0, 0));
  }
  case KG_OP_WHERE: { /* masked_fill(mask, value) = where(mask, value, x), in x's dtype */
    uint32_t mk;
    if (!tensor_arg(L, av[1], &mk)) return kg_ev_err();
    if (gnode(el, mk)->dtype != KG_BOOL) return fail(L, KG_E_TYPE, "masked_fill_ only supports boolean masks, but got mask with dtype %s", kg_dtype_name((kg_dtype)gnode(el, mk)->dtype));
    kg_ev v = kg_elab_tensor_op_ev(el, at, KG_OP_CAST, &av[2], 1, NULL, NULL, (kg_dtype)xn->dtype);
    if (v.kind == EV_ERR) return v;
    kg_ev q[3] = {kg_ev_node(mk), kg_ev_node(v.id), kg_ev_node(x)};
    kg_ev w = kg_elab_tensor_op_ev(el, at, KG_OP_WHERE, q, 3, NULL, NULL, KG_DT_NONE);
    if (w.kind == EV_ERR) return w;
    if (!kg_shape_equal(&gnode(el, w.id)->shape, &xn->shape))
      return fail(L, KG_E_SHAPE, "the mask must broadcast to the input's shape (masked_fill does not change the shape)");
    return w;
  }
  case KG_OP_TRIL: {
    if (r < 2) return fail(L, KG_E_SHAPE, "input tensor must have at least 2 dimensions");
    a = 0;
    if (n >= 2 && !int_arg(L, av[1], &a, "diagonal")) return kg_ev_err();
    return kg_ev_node(add(L, KG_OP_TRIL, (kg_dtype)xn->dtype, &x, 1, &xn->shape, a, !strcmp(nm, "triu"), 0));
  }
  case KG_OP_FILL: {
    /* zeros / ones / empty (sizes..., dtype, device, requires_grad, names), full (sizes..., value, ...) */
    int k = 0, i = 0;
    for (; i < n && (spec[i] == 'a' || spec[i] == 'i'); i++) {
      if (spec[i] == 'a') {
        int q = sizes_arg(L, av[i], dims + k, KG_MAX_RANK - k);
        if (q < 0) return kg_ev_err();
        k += q;
      } else {
        if (k >= KG_MAX_RANK) return fail(L, KG_E_LIMIT, "rank above %d", KG_MAX_RANK);
        if (!size_arg(L, av[i], &dims[k++])) return kg_ev_err();
      }
    }
    bool full = !strcmp(nm, "full");
    kg_ev value = full ? av[i++] : kg_ev_const(kg_cval_int(KG_I64, !strcmp(nm, "ones")));
    kg_dtype dt = KG_F32;
    if (full) { /* PyTorch: the value's kind gives the dtype (bool, int64, float32) */
      kg_dtype vt = kg_ev_dtype(el, value);
      dt = vt == KG_BOOL ? KG_BOOL : kg_dtype_is_float(vt) ? KG_F32 : KG_I64;
    }
    if (i < n && av[i].kind == EV_DTYPE) dt = av[i].dt;
    else if (i < n && av[i].kind != EV_NULL) return fail(L, KG_E_UNSUPPORTED, "the dtype must be a torch dtype written in the code");
    return fill(L, dims, k, value, dt);
  }
  case KG_OP_EYE: {
    if (!size_arg(L, av[0], &dims[0]) || !size_arg(L, av[1], &dims[1])) return kg_ev_err();
    if (dims[1].kind == KG_DIM_STATIC && dims[1].v == -1) dims[1] = dims[0];
    kg_dtype dt = av[2].kind == EV_DTYPE ? av[2].dt : KG_F32;
    kg_shape sh = {2, {dims[0], dims[1]}};
    return kg_ev_node(add(L, KG_OP_EYE, dt, NULL, 0, &sh, 0, 0, 0));
  }
  case KG_OP_LINSPACE: {
    /* linspace(start, end, steps, dtype, ...): steps static or a symbolic size */
    if (av[0].kind != EV_CONST || av[1].kind != EV_CONST) return fail(L, KG_E_UNSUPPORTED, "start and end must be constants when kgen compiles");
    if (!size_arg(L, av[2], &dims[0])) return kg_ev_err();
    if (dims[0].kind == KG_DIM_STATIC && dims[0].v < 0) return fail(L, KG_E_ARG, "number of steps must be non-negative");
    kg_dtype dt = n > 3 && av[3].kind == EV_DTYPE ? av[3].dt : KG_F32;
    if (dt == KG_BOOL) return fail(L, KG_E_TYPE, "\"linspace_cpu\" not implemented for 'Bool'");
    kg_gnode g;
    memset(&g, 0, sizeof g);
    g.op = KG_OP_LINSPACE, g.dtype = (uint8_t)dt, g.cdtype = (uint8_t)dt, g.vkind = KG_V_TENSOR;
    g.shape.rank = 1, g.shape.d[0] = dims[0];
    /* PyTorch converts start and end to the dtype first (integers truncate) */
    g.fa[0] = kg_cval_as_double(kg_cval_cast(kg_cval_float(KG_F64, kg_cval_as_double(av[0].c)), dt));
    g.fa[1] = kg_cval_as_double(kg_cval_cast(kg_cval_float(KG_F64, kg_cval_as_double(av[1].c)), dt));
    return kg_ev_node(kg_elab_add_node(el, at, &g));
  }
  case KG_OP_ARANGE: {
    /* arange(stop) / arange(start, stop) / arange(start, stop, step), then dtype */
    int ns = 0;
    while (ns < n && spec[ns] == 's') ns++;
    double v[3] = {0, 0, 1};
    bool fl = false;
    for (int j = 0; j < ns; j++) {
      if (av[j].kind != EV_CONST) return fail(L, KG_E_UNSUPPORTED, "start, end and step must be constants when kgen compiles");
      fl |= kg_dtype_is_float(av[j].c.dt);
      v[ns == 1 ? 1 : j] = kg_cval_as_double(av[j].c);
    }
    if (v[2] == 0) return fail(L, KG_E_ARG, "step must be nonzero");
    if ((v[2] > 0 && v[1] < v[0]) || (v[2] < 0 && v[1] > v[0])) return fail(L, KG_E_ARG, "upper bound and larger bound inconsistent with step sign");
    kg_dtype dt = fl ? KG_F32 : KG_I64;
    if (ns < n && av[ns].kind == EV_DTYPE) dt = av[ns].dt;
    double cnt = (v[1] - v[0]) / v[2];
    int64_t len = (int64_t)cnt;
    if ((double)len < cnt) len++;
    kg_shape sh = {1, {{KG_DIM_STATIC, len}}};
    kg_gnode g;
    memset(&g, 0, sizeof g);
    g.op = KG_OP_ARANGE, g.dtype = (uint8_t)dt, g.cdtype = (uint8_t)dt, g.vkind = KG_V_TENSOR, g.shape = sh;
    g.fa[0] = v[0], g.fa[1] = v[2], g.fa[2] = v[1];
    return kg_ev_node(kg_elab_add_node(el, at, &g));
  }
  default: break;
  }
  return err(el, at, KG_E_INTERNAL, "unhandled layout member %s", row->key);
}
