/* check/check.c — the cross-check driver: our kernels against PyTorch.
 *
 * kg_check_module specializes an entry from its signature, gives every symbolic
 * size a value (caller's, else odd defaults 13, 17, 21, …), makes random inputs
 * in PyTorch's make_tensor ranges (inputs that reach an integer divisor are never
 * zero; inputs that reach a shift count lie in [0, 8)), runs our kernels on the
 * device, emits the TorchScript twin from the typed program (float16/bfloat16 in
 * CPU-reference mode: float32 rounded after every op, as PyTorch's CUDA kernels
 * compute them), and asks the long-lived PyTorch oracle to compare every output
 * (tolerances of reliability.md). The `kgen check` command and the test suite
 * both call it; the suite shares one oracle process across all examples.
 * It reads the typed program (input constraints, half precision, the twin) through
 * runtime/check_access.h; everything else goes through the public API.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runtime/check_access.h"
#include "check.h"

enum { IN_PLAIN = 0, IN_NONZERO = 1, IN_SHIFT = 2 };

/* Marks the INPUT nodes that flow into operand `which` of n. */
static void mark_from(const kg_graph *g, uint32_t node, uint8_t *mark, uint8_t flag) {
  const kg_gnode *n = &g->nodes.v[node];
  if (n->op == KG_OP_INPUT) { mark[node] |= flag; return; }
  for (int i = 0; i < n->n_in; i++) mark_from(g, n->in[i], mark, flag);
}

static bool fn_has_int_division(const kg_sfunc *fn) {
  for (uint32_t i = 0; i < fn->body.exprs.n; i++) {
    const kg_kx *x = &fn->body.exprs.v[i];
    if (x->kind != KX_OP) continue;
    kg_op op = (kg_op)x->op;
    if ((op == KG_OP_IDIV || op == KG_OP_FMOD || op == KG_OP_REM || op == KG_OP_FLOORDIV || op == KG_OP_TRUNCDIV) &&
        !kg_dtype_is_float((kg_dtype)x->dtype))
      return true;
  }
  return false;
}

static void input_constraints(const kg_graph *g, uint8_t *mark) {
  for (uint32_t i = 0; i < g->nodes.n; i++) {
    const kg_gnode *n = &g->nodes.v[i];
    bool intdiv = (n->op == KG_OP_IDIV || n->op == KG_OP_TRUNCDIV || n->op == KG_OP_FLOORDIV || n->op == KG_OP_REM ||
                   n->op == KG_OP_FMOD) && !kg_dtype_is_float((kg_dtype)n->cdtype);
    if (intdiv) mark_from(g, n->in[1], mark, IN_NONZERO);
    if (n->op == KG_OP_SHL || n->op == KG_OP_SHR || n->op == KG_OP_NET_SHL || n->op == KG_OP_NET_SHR) mark_from(g, n->in[1], mark, IN_SHIFT);
    if (n->op == KG_OP_MAP && fn_has_int_division(g->fns.v[n->fn]))
      for (int j = 0; j < n->n_in; j++) mark_from(g, n->in[j], mark, IN_NONZERO);
  }
}

static bool graph_has_half(const kg_graph *g) {
  for (uint32_t i = 0; i < g->nodes.n; i++)
    if (g->nodes.v[i].dtype == KG_F16 || g->nodes.v[i].dtype == KG_BF16) return true;
  return false;
}

static int64_t sym_size(const kg_check_opts *o, const char *name, uint32_t idx) {
  for (int i = 0; i < o->n_sizes; i++)
    if (!strcmp(o->size_names[i], name)) return o->size_vals[i];
  return 13 + 4 * (int64_t)idx;
}

/* Elements of a's shape and dtype between contiguous `flat` and strided storage `b` (strides in
 * elements): into b (strided_copy), or back out of it (gather: an input updated in place). */
static void strided_move(const kg_npy *a, void *b, const int64_t *strides, void *flat, bool gather) {
  int R = a->rank;
  size_t el = kg_dtype_get((kg_dtype)a->dtype)->size, numel = 1;
  for (int i = 0; i < R; i++) numel *= (size_t)a->shape[i];
  int64_t idx[8] = {0};
  for (size_t i = 0; i < numel; i++) {
    int64_t off = 0;
    for (int k = 0; k < R; k++) off += idx[k] * strides[k];
    unsigned char *s = (unsigned char *)b + (size_t)off * el, *f = (unsigned char *)flat + i * el;
    if (gather) memcpy(f, s, el);
    else memcpy(s, f, el);
    for (int k = R - 1; k >= 0 && ++idx[k] == a->shape[k]; k--) idx[k] = 0;
  }
}

/* A non-contiguous copy of host array `a` for --strided: rank >= 2 stores the last two dims
 * transposed with 3 elements of padding after each stored row, rank 1 every other element;
 * rank 0 and empty arrays stay as they are (*buf NULL). Fills strides (elements). */
static int strided_copy(const kg_npy *a, void **buf, int64_t *strides) {
  int R = a->rank;
  size_t el = kg_dtype_get((kg_dtype)a->dtype)->size, numel = 1;
  for (int i = 0; i < R; i++) numel *= (size_t)a->shape[i];
  *buf = NULL;
  if (R == 0 || numel == 0) return 0;
  int perm[8];
  int64_t phys[8], pstride[8];
  for (int i = 0; i < R; i++) perm[i] = i;
  if (R >= 2) perm[R - 1] = R - 2, perm[R - 2] = R - 1;
  for (int j = 0; j < R; j++) phys[j] = a->shape[perm[j]];
  phys[R - 1] = R == 1 ? 2 * phys[R - 1] : phys[R - 1] + 3;
  size_t total = 1;
  for (int j = R - 1; j >= 0; j--) pstride[j] = (int64_t)total, total *= (size_t)phys[j];
  for (int j = 0; j < R; j++) strides[perm[j]] = pstride[j];
  if (R == 1) strides[0] = 2;
  unsigned char *b = calloc(total, el);
  if (!b) return -1;
  strided_move(a, b, strides, a->data, false);
  *buf = b;
  return 0;
}

void kg_check_result_free(kg_check_result *r) {
  free(r->rows);
  for (int i = 0; r->grad_names && i < r->n_grads; i++) free((void *)(uintptr_t)r->grad_names[i]);
  free(r->grad_names), free(r->grad_rows);
  for (int i = 0; r->row_names && i < r->n_outputs; i++) free((void *)(uintptr_t)r->row_names[i]);
  free(r->row_names);
  free(r->warnings);
  memset(r, 0, sizeof *r);
}

/* One --size SYM=N of a check: SYM must be a size of the entry bound by its inputs (not a
 * product of sizes, which the inputs determine) and N a size (0 or more: the CLI parses it, an
 * API caller may not). A located input error, never an assertion further on. */
static bool entry_has_size(const kg_graph *g, const char *name) {
  for (uint32_t s = 0; s < g->syms.n && name; s++)
    if (!kg_graph_symdef(g, s) && !strcmp(g->syms.v[s], name)) return true;
  return false;
}
static kg_status check_size_opt(kg_context *ctx, const kg_graph *g, const char *name, long long val, bool found, bool if_present) {
  kg_diag d;
  kg_diag_init(&d);
  char where[160];
  snprintf(where, sizeof where, "--size %s=%lld", name ? name : "(null)", val);
  if (!found && if_present && name) {
    /* passed over: the entry has no such size */
  } else if (!found) {
    kg_strbuf b;
    kg_sb_init(&b);
    for (uint32_t s = 0; s < g->syms.n; s++)
      if (!kg_graph_symdef(g, s)) kg_sb_printf(&b, "%s%s", b.len ? ", " : "", g->syms.v[s]);
    kg_diag_add(&d, KG_E_ARG, where, NULL, "entry '%s' has no size '%s' (%s%s)", g->entry, name ? name : "(null)",
                b.len ? "its sizes: " : "its sizes are all static", kg_sb_cstr(&b));
    kg_sb_free(&b);
  } else if (val < 0) {
    kg_diag_add(&d, KG_E_ARG, where, NULL, "a size is 0 or more");
  }
  kg_status st = d.n ? kg_ctx_report(ctx, &d) : KG_OK;
  kg_diag_free(&d);
  return st;
}

kg_status kg_check_module(kg_context *ctx, kg_oracle *orc, kg_module *m, const kg_check_opts *opt, kg_check_result *res) {
  memset(res, 0, sizeof *res);
  kg_compiled *c0;
  kg_status s = kg_specialize(m, opt->entry, opt->sig, &c0);
  if (s) return s;
  res->warnings = kg_xstrdup(kg_compiled_warnings(c0));
  const kg_graph *g0 = kg_compiled_graph(c0);
  uint32_t np = g0->params.n;
  /* every --size names a size the entry has, and fits what a size can be */
  for (int i = 0; i < opt->n_sizes; i++) {
    bool present = entry_has_size(g0, opt->size_names[i]);
    if (!present && i < 32) res->sizes_absent |= 1u << i;
    kg_status sz = check_size_opt(ctx, g0, opt->size_names[i], opt->size_vals[i], present, opt->sizes_if_present);
    if (sz != KG_OK) {
      kg_compiled_free(c0);
      return sz;
    }
  }
  uint8_t *mark = kg_xcalloc(g0->nodes.n + 1, 1);
  input_constraints(g0, mark);
  char dir[4096];
  if (opt->keep_dir) {
    snprintf(dir, sizeof dir, "%s", opt->keep_dir);
    kg_mkdirs(dir);
  } else {
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/kgen-check-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
      kg_compiled_free(c0), free(mark);
      kg_diag dt;
      kg_diag_init(&dt);
      kg_diag_add(&dt, KG_E_IO, NULL, NULL, "cannot create a temporary directory under %s", tmp && *tmp ? tmp : "/tmp");
      kg_status sd = kg_ctx_report(ctx, &dt);
      kg_diag_free(&dt);
      return sd;
    }
  }
  snprintf(res->dir, sizeof res->dir, "%s", dir);
  kg_diag d;
  kg_diag_init(&d);
  kg_npy *arr = kg_xcalloc(np + 1, sizeof *arr);
  void **sbuf = kg_xcalloc(np + 1, sizeof *sbuf);           /* --strided: the inputs' storage */
  int64_t *sstr = kg_xcalloc((size_t)np * 8 + 1, sizeof *sstr);
  DLTensor *views = kg_xcalloc(np + 1, sizeof *views);
  const DLTensor **ins = kg_xcalloc(np + 1, sizeof *ins);
  kg_named_tensor *caps = kg_xcalloc(np + 1, sizeof *caps);
  const char **in_paths = kg_xcalloc(np + 1, sizeof *in_paths);
  const char **cap_paths = kg_xcalloc(np + 1, sizeof *cap_paths);
  const char **cap_names = kg_xcalloc(np + 1, sizeof *cap_names);
  int n_in = 0, n_cap = 0;
  kg_status st = KG_OK;
  kg_arena A;
  kg_arena_init(&A);
  for (uint32_t p = 0; p < np; p++) {
    const kg_gparam *gp = &g0->params.v[p];
    const kg_gnode *n = &g0->nodes.v[gp->node];
    int64_t shape[KG_MAX_RANK];
    int rank = n->vkind == KG_V_SCALAR ? 0 : n->shape.rank;
    for (int i = 0; i < rank; i++)
      shape[i] = n->shape.d[i].kind == KG_DIM_STATIC ? n->shape.d[i].v : sym_size(opt, g0->syms.v[n->shape.d[i].v], (uint32_t)n->shape.d[i].v);
    if (kg_npy_random_in(&arr[p], n->dtype, rank, shape, opt->seed * 1000003u + p + 1, (mark[gp->node] & IN_NONZERO) != 0, gp->range) != 0) {
      kg_strbuf b;
      kg_sb_init(&b);
      for (int i = 0; i < rank; i++) kg_sb_printf(&b, "%s%lld", i ? ", " : "", (long long)shape[i]);
      kg_diag_add(&d, KG_E_LIMIT, NULL, NULL, "%s '%s' of shape [%s] (%s) is too large to allocate in host memory (--size?)",
                  gp->is_capture ? "capture" : "input", gp->name, kg_sb_cstr(&b), kg_dtype_name((kg_dtype)n->dtype));
      kg_sb_free(&b);
      st = KG_ERR_INPUT;
      break;
    }
    if (mark[gp->node] & IN_SHIFT) { /* shift counts in [0, 8): defined in every dtype */
      size_t cnt = arr[p].nbytes / kg_dtype_get((kg_dtype)n->dtype)->size;
      for (size_t i = 0; i < cnt; i++) {
        switch ((kg_dtype)n->dtype) {
        case KG_I8: case KG_U8: { uint8_t *q = (uint8_t *)arr[p].data + i; *q = (uint8_t)((*q & 0x7f) % 8); break; }
        case KG_I16: { int16_t *q = (int16_t *)arr[p].data + i; *q = (int16_t)((*q < 0 ? -*q : *q) % 8); break; }
        case KG_I32: { int32_t *q = (int32_t *)arr[p].data + i; *q = (*q < 0 ? -*q : *q) % 8; break; }
        case KG_I64: { int64_t *q = (int64_t *)arr[p].data + i; *q = (*q < 0 ? -*q : *q) % 8; break; }
        default: break;
        }
      }
    }
    kg_npy_dlview(&arr[p], &views[p]);
    if (opt->strided_inputs && !gp->is_capture && n->vkind != KG_V_SCALAR) {
      if (strided_copy(&arr[p], &sbuf[p], sstr + 8 * p) != 0) {
        kg_diag_add(&d, KG_E_LIMIT, NULL, NULL, "input '%s' is too large to allocate in host memory (strided copy)", gp->name);
        st = KG_ERR_INPUT;
        break;
      }
      if (sbuf[p]) views[p].data = sbuf[p], views[p].strides = sstr + 8 * p;
    }
    const char *path = kg_arena_printf(&A, "%s/%s%u.npy", dir, gp->is_capture ? "cap" : "in", p);
    if (kg_npy_write(path, &arr[p], &d) != 0) st = KG_ERR_INTERNAL;
    if (!gp->is_capture) ins[n_in] = &views[p], in_paths[n_in++] = path;
    else caps[n_cap].name = gp->name, caps[n_cap].t = &views[p], cap_paths[n_cap] = path, cap_names[n_cap++] = gp->name;
  }
  kg_compiled *c = NULL;
  if (st == KG_OK) st = kg_specialize_for(m, opt->entry, ins, n_in, caps, n_cap, &c);
  int nres = c ? kg_compiled_n_outputs(c) : 0, nwb = c ? kg_compiled_n_writebacks(c) : 0;
  int no = nres + nwb; /* rows: the results, then the parameters updated in place */
  res->n_outputs = no, res->n_results = nres;
  res->row_names = kg_xcalloc((size_t)no + 1, sizeof *res->row_names);
  int *mut_in = kg_xcalloc((size_t)nwb + 1, sizeof *mut_in);
  const char **mut_cap = kg_xcalloc((size_t)nwb + 1, sizeof *mut_cap);
  uint32_t *mut_param = kg_xcalloc((size_t)nwb + 1, sizeof *mut_param);
  for (int i = 0; i < no; i++) res->row_names[i] = kg_xstrdup(kg_arena_printf(&A, "out%d", i));
  for (int i = 0; i < nwb; i++) {
    int pi, cap;
    const char *nm;
    kg_compiled_writeback(c, i, &pi, &cap, &nm);
    mut_in[i] = cap ? -1 : pi, mut_cap[i] = cap ? nm : NULL;
    mut_param[i] = cap ? g0->n_entry_params + (uint32_t)pi : (uint32_t)pi;
    free((void *)(uintptr_t)res->row_names[nres + i]);
    res->row_names[nres + i] = kg_xstrdup(kg_arena_printf(&A, "%s (in place)", nm));
  }
  res->n_kernels = c ? kg_compiled_n_kernels(c) : 0;
  kg_npy *outs = kg_xcalloc((size_t)no + 1, sizeof *outs);
  DLTensor *ov = kg_xcalloc((size_t)no + 1, sizeof *ov);
  DLTensor **op = kg_xcalloc((size_t)no + 1, sizeof *op);
  const char **out_paths = kg_xcalloc((size_t)no + 1, sizeof *out_paths);
  const char **dtypes = kg_xcalloc((size_t)no + 1, sizeof *dtypes);
  /* an entry that draws: the twin draws the same bits from the generator state this run uses,
   * passed as its last argument kg_rng = [seed, offset] (docs/design.md "The random generator") */
  uint64_t rng[2] = {0, 0};
  kg_npy rng_arr;
  memset(&rng_arr, 0, sizeof rng_arr);
  bool draws = c && kg_compiled_rng_streams(c) > 0;
  if (draws) {
    kg_context_rng_state(ctx, &rng[0], &rng[1]);
    rng_arr.dtype = KG_I64, rng_arr.rank = 1, rng_arr.shape[0] = 2, rng_arr.nbytes = sizeof rng;
    rng_arr.data = kg_xmalloc(sizeof rng);
    memcpy(rng_arr.data, rng, sizeof rng);
    const char *path = kg_arena_printf(&A, "%s/rng.npy", dir);
    if (kg_npy_write(path, &rng_arr, &d) != 0) st = KG_ERR_INTERNAL;
    cap_names[n_cap] = "kg_rng", cap_paths[n_cap] = path;
  }
  if (st == KG_OK) {
    st = kg_alloc_host_outputs(c, outs, ov, op);
    if (st == KG_OK) st = kg_run_host(c, opt->device, ins, n_in, caps, n_cap, op, nres);
  }
  for (int i = 0; i < nwb && st == KG_OK; i++) { /* the inputs our run changed */
    const kg_npy *a = &arr[mut_param[i]];
    outs[nres + i] = *a;
    outs[nres + i].data = kg_xmalloc(a->nbytes ? a->nbytes : 1);
    if (sbuf[mut_param[i]]) /* --strided: the run wrote the strided storage it was given */
      strided_move(a, sbuf[mut_param[i]], sstr + 8 * mut_param[i], outs[nres + i].data, true);
    else
      memcpy(outs[nres + i].data, a->data, a->nbytes);
  }
  for (int i = 0; i < no && st == KG_OK; i++) {
    out_paths[i] = kg_arena_printf(&A, "%s/out%d.npy", dir, i);
    dtypes[i] = kg_dtype_name((kg_dtype)outs[i].dtype);
    if (kg_npy_write(out_paths[i], &outs[i], &d) != 0) st = KG_ERR_INTERNAL;
  }
  const char *script = kg_arena_printf(&A, "%s/%s.ts.py", dir, kg_entry_cname(&A, g0->entry));
  if (st == KG_OK) {
    kg_strbuf ts;
    kg_sb_init(&ts);
    kg_ts_opts o = {opt->eager_python, graph_has_half(kg_compiled_graph(c))};
    if (!kg_compiled_twin(c, &o, &ts, &d) || kg_write_file(script, ts.s ? ts.s : "", ts.len) != 0) st = KG_ERR_INTERNAL;
    kg_sb_free(&ts);
  }
  if (st == KG_OK) {
    kg_oracle_job job;
    memset(&job, 0, sizeof job);
    job.script = script;
    job.fn = kg_ts_entry_name(kg_compiled_graph(c), &A);
    job.torchscript = !opt->eager_python;
    job.inputs = in_paths, job.n_inputs = n_in;
    job.capture_names = cap_names, job.captures = cap_paths, job.n_captures = n_cap + (draws ? 1 : 0);
    job.ours = out_paths, job.n_outputs = no;
    job.expect_dtypes = dtypes;
    job.mutated_input = mut_in, job.mutated_capture = mut_cap, job.n_mutated = nwb;
    job.tol_scale = opt->tol_scale > 0 ? opt->tol_scale : 1;
    res->rows = kg_xcalloc((size_t)no + 1, sizeof *res->rows);
    if (kg_oracle_check(orc, &job, res->rows, &d) != 0) st = KG_ERR_INTERNAL;
    else {
      res->all_ok = true;
      for (int i = 0; i < no; i++) res->all_ok &= res->rows[i].ok;
    }
  }
  if (st == KG_OK && opt->grad) { /* the gradients (check_grad.c), on the same inputs and twin */
    uint8_t *mutated = kg_xcalloc((size_t)np + 1, 1);
    for (int i = 0; i < nwb; i++) mutated[mut_param[i]] = 1;
    kg_grad_check_in gi = {opt->entry, in_paths, cap_paths, cap_names, n_in, n_cap, script, kg_ts_entry_name(kg_compiled_graph(c), &A), dir, &A, mutated};
    kg_status gs = kg_check_grad(ctx, orc, m, opt, &gi, res, &d);
    free(mutated);
    if (gs != KG_OK) st = gs;
  }
  if (st == KG_OK && res->all_ok && !opt->keep_dir) {
    for (int i = 0; i < n_in; i++) unlink(in_paths[i]);
    for (int i = 0; i < n_cap + (draws ? 1 : 0); i++) unlink(cap_paths[i]);
    for (int i = 0; i < no; i++) unlink(out_paths[i]);
    unlink(script);
    rmdir(dir);
    res->dir[0] = 0;
  }
  for (uint32_t p = 0; p < np; p++) kg_npy_free(&arr[p]), free(sbuf[p]);
  free(sbuf), free(sstr);
  for (int i = 0; i < no; i++) kg_npy_free(&outs[i]);
  kg_npy_free(&rng_arr);
  free(outs), free(ov), free(op), free(out_paths), free(dtypes), free(mut_in), free(mut_cap), free(mut_param);
  free(arr), free(views), free(ins), free(caps), free(in_paths), free(cap_paths), free(cap_names), free(mark);
  kg_arena_free(&A);
  kg_compiled_free(c);
  kg_compiled_free(c0);
  if (d.n) {
    /* diagnostics of the oracle / npy layer become the context's last error */
    kg_status sd = kg_ctx_report(ctx, &d);
    kg_diag_free(&d);
    return sd;
  }
  kg_diag_free(&d);
  if (st != KG_OK) return st;
  return KG_OK;
}
