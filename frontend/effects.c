/* frontend/effects.c — members that are about effects, not values, as model code writes
 * them around its math: in-place ops (x.mul_(s): the out-of-place op rebinding x, where that is
 * PyTorch's meaning), memory scopes (NewDisposeScope, MoveToOuterDisposeScope), devices
 * (x.device, x.to(device)), ignore, Debug.Assert, and facts known when kgen compiles (an
 * array's Length, isNull of an optional tensor). Split from elab.c, whose eval_call asks here
 * before the member table (and for in-place members the table lacks, after it). Each was met
 * in a real model transcription (examples/models: GenAI Llama, Phi-3, NasBert, ModestGpt). */
#include <string.h>

#include "frontend.h"
#include "layout_int.h"

#define gnode kg_elab_gnode
#define ev_make kg_ev_make
#define ev_const kg_ev_const

/* Who an in-place op's receiver is: the parameter (entry input or capture) whose tensor it is,
 * and the variable that names it — from the receiver itself, or from the in-place op whose
 * result it is (x.add_(1).mul_(2) changes x twice). */
static void receiver_of(kg_elab *el, const kg_ast *recv, uint32_t id, uint32_t *var, uint32_t *param) {
  *var = recv && recv->k == KG_AST_Var ? recv->var : KG_NONE;
  *param = KG_NONE;
  if (gnode(el, id)->op == KG_OP_INPUT) {
    for (uint32_t p = 0; p < el->g->params.n; p++)
      if (el->g->params.v[p].node == id) *param = p;
    return;
  }
  for (const kg_inplace *q = el->inplace; q; q = q->prev)
    if (q->node == id) {
      if (*param == KG_NONE) *param = q->param;
      if (*var == KG_NONE) *var = q->var;
      return;
    }
}

#define REFUSED_REBIND "it rebinds a variable inside a loop or branch run by the host plan"

/* Whether op makes a PyTorch view of its first operand (shares its storage): reshape / view /
 * squeeze, permute / transpose, expand, slice / narrow / split, select. kgen's other layout ops
 * (flip, roll, repeat, cat, tril, gather, index, pad, pooling, resampling, the random draws, …)
 * read their operand at other coordinates but make new tensors in PyTorch, which an in-place op
 * may change alone (rand_like(x).mul_(s) was refused as a view: kgen fuzz, seed 3,
 * examples/fs_fuzz_inplace_fresh_layout). */
static bool is_view_op(kg_op op) {
  return op == KG_OP_RESHAPE || op == KG_OP_PERMUTE || op == KG_OP_EXPAND || op == KG_OP_SLICE || op == KG_OP_SELECT;
}

/* Why changing the elements of tensor `id` (named by variable var, the caller's tensor of
 * parameter param) in place cannot have PyTorch's meaning in kgen, or NULL: a view (the viewed
 * tensor would change too), a tensor with views (they would see the change), a write inside a
 * host-plan loop or branch (a write-back or a rebinding per iteration). */
static const char *update_refused(kg_elab *el, uint32_t id, uint32_t var, uint32_t param) {
  if (is_view_op((kg_op)gnode(el, id)->op)) return "its receiver is a view (the viewed tensor would change too)";
  if (param != KG_NONE && el->blk != 0) return "it writes the caller's tensor inside a loop or branch run by the host plan";
  if (var != KG_NONE && el->blk != 0) return REFUSED_REBIND;
  for (uint32_t i = id + 1; i < el->g->nodes.n; i++)
    if (is_view_op((kg_op)el->g->nodes.v[i].op) && el->g->nodes.v[i].n_in && el->g->nodes.v[i].in[0] == id)
      return "its receiver has views (they would see the change)";
  return NULL;
}

/* After an in-place update whose new value is node `id`: variable `var` names it, a capture
 * read again gives it, and parameter `param` is written back with it (kg_elab_writebacks). */
static void rebind(kg_elab *el, uint32_t var, uint32_t param, uint32_t id) {
  if (var != KG_NONE) el->env[var] = kg_ev_node(id); /* x now names the updated value */
  if (param != KG_NONE) {
    const kg_gparam *gp = &el->g->params.v[param];
    const kg_gnode *pin = gnode(el, gp->node);
    if (gp->is_capture && pin->ia[1] == 1) el->capture_node[pin->ia[0]] = id; /* later reads of the capture see the new value */
  }
  if (var != KG_NONE || param != KG_NONE) {
    kg_inplace *q = kg_arena_alloc(el->arena, sizeof *q);
    q->node = id, q->var = var, q->param = param, q->prev = el->inplace;
    el->inplace = q;
  }
}

/* The out-of-place value of the in-place members without an out-of-place twin in TorchSharp:
 * x.copy_(src) (src broadcast to x), x.zero_(), x.fill_(v). Returns false for other members. */
static bool special_value(kg_elab *el, const kg_ast *n, const kg_member *m, const kg_ev *av, int na, kg_ev *out) {
  const kg_gnode *x = gnode(el, av[0].id);
  if (!strcmp(m->name, "copy_") && na >= 2) {
    if (!kg_ev_is_tensor(el, av[1])) return *out = kg_elab_error(el, n, KG_E_TYPE, "copy_ needs a tensor source"), true;
    const kg_member_row *ex = kg_member_lookup_key("TorchSharp.torch+Tensor::expand_as(TorchSharp.torch+Tensor)");
    KG_ASSERT(ex);
    kg_ev ev[2] = {av[1], av[0]};
    *out = kg_elab_call_row(el, n, ex, ev, 2); /* PyTorch's broadcast error when src does not fit */
    return true;
  }
  if ((!strcmp(m->name, "zero_") && na == 1) || (!strcmp(m->name, "fill_") && na == 2)) {
    lay L = {el, n, m->name};
    kg_dim sz[KG_MAX_RANK];
    for (int i = 0; i < x->shape.rank; i++) sz[i] = x->shape.d[i];
    *out = kg_lay_fill(&L, sz, x->shape.rank, na == 2 ? av[1] : ev_const(kg_cval_int(KG_I64, 0)), (kg_dtype)x->dtype);
    return true;
  }
  return false;
}

/* x.add_(y), x.mul_(s), x.relu_(), x.masked_fill_(m, v), x.copy_(s), ...: TorchSharp's in-place
 * members, as the out-of-place member of the same parameters (its exact key without the
 * underscore; copy_ / zero_ / fill_ by special_value) whose result rebinds the variable x — on an
 * intermediate of straight-line code that is exactly PyTorch's meaning. On an entry input or a
 * captured tensor the caller's tensor changes, as in PyTorch: later reads see the new value, and
 * its final value becomes a write-back output that the runtime stores into the caller's tensor
 * after the run (kg_elab_writebacks, kg_gparam.wb); reads before the op still see the old one.
 * Refused with a located error where kgen cannot give PyTorch's meaning: the receiver a view (it
 * would change the viewed tensor) or a tensor with views (they would see the change), a variable
 * rebound or a parameter written inside a loop or branch of the host plan, and a metadata-only op
 * (transpose_, ...: anywhere else allowed) on a parameter, whose caller's tensor would change
 * shape. The result keeps x's dtype and shape, as PyTorch's in-place ops do. */
bool kg_elab_in_place(kg_elab *el, const kg_ast *n, const kg_member *m, const kg_ev *av, int na, kg_ev *out) {
  size_t ln = strlen(m->name);
  if (strcmp(m->decl, "TorchSharp.torch+Tensor") || m->is_static || ln < 2 || m->name[ln - 1] != '_' || na < 1) return false;
  kg_strbuf k;
  const kg_member_row *row = kg_member_tensor_row(m->name, ln - 1, m, &k); /* x.add_(y): Tensor::add(...) */
  kg_sb_free(&k);
  bool special = !row && (!strcmp(m->name, "copy_") || !strcmp(m->name, "zero_") || !strcmp(m->name, "fill_"));
  if (!row && !special) return false;
  if (!kg_ev_is_tensor(el, av[0])) {
    *out = kg_elab_error(el, n, KG_E_TYPE, "%s needs a tensor", m->key);
    return true;
  }
  const kg_gnode *x = gnode(el, av[0].id);
  /* metadata-only in-place ops (x.view(...).transpose_(0, 1)) change no element */
  static const char *const meta[] = {"transpose_", "t_", "squeeze_", "unsqueeze_", "swapaxes_", "swapdims_"};
  bool md = false;
  for (size_t i = 0; i < sizeof meta / sizeof *meta; i++) md |= !strcmp(m->name, meta[i]);
  uint32_t var, param;
  receiver_of(el, n->a, av[0].id, &var, &param);
  const char *why = !md                                ? update_refused(el, av[0].id, var, param)
                    : param != KG_NONE                   ? "its receiver is an entry parameter or a captured tensor, whose shape would change for the caller"
                    : var != KG_NONE && el->blk != 0     ? REFUSED_REBIND
                                                         : NULL;
  if (why) {
    *out = kg_elab_error(el, n, KG_E_UNSUPPORTED, "in-place %s is not supported here: %s; write the out-of-place form", m->name, why);
    return true;
  }
  kg_ev r;
  if (!special || !special_value(el, n, m, av, na, &r)) r = kg_elab_call_row(el, n, row, av, na);
  if (r.kind == EV_ERR) return *out = r, true;
  if (!kg_ev_is_tensor(el, r)) {
    *out = kg_elab_error(el, n, KG_E_TYPE, "%s did not give a tensor", m->key);
    return true;
  }
  const kg_gnode *rn = gnode(el, r.id);
  x = gnode(el, av[0].id);
  if (md) {
    if (var != KG_NONE) el->env[var] = r;
    *out = r;
    return true;
  }
  if (!kg_shape_equal(&rn->shape, &x->shape)) {
    *out = kg_elab_error(el, n, KG_E_SHAPE, "output with the shape of the receiver doesn't match the broadcast shape (in-place %s)", m->name);
    return true;
  }
  if (rn->dtype != x->dtype) {
    if (!special && kg_dtype_is_float((kg_dtype)rn->dtype) && !kg_dtype_is_float((kg_dtype)x->dtype)) {
      *out = kg_elab_error(el, n, KG_E_TYPE, "result type %s can't be cast to the desired output type %s", kg_dtype_name((kg_dtype)rn->dtype),
                           kg_dtype_name((kg_dtype)x->dtype));
      return true;
    }
    r = kg_elab_tensor_op(el, n, KG_OP_CAST, &r.id, 1, NULL, NULL, (kg_dtype)x->dtype);
    if (r.kind == EV_ERR) return *out = r, true;
  }
  rebind(el, var, param, r.id);
  *out = r;
  return true;
}

kg_ev kg_elab_write_in_place(kg_elab *el, const kg_ast *at, const kg_ast *recv, uint32_t target, kg_ev value, const char *what) {
  uint32_t var, param;
  receiver_of(el, recv, target, &var, &param);
  const kg_gnode *x = gnode(el, target);
  const char *why = update_refused(el, target, var, param);
  if (why) return kg_elab_error(el, at, KG_E_UNSUPPORTED, "%s is updated in place, which kgen cannot do here: %s", what, why);
  kg_ev r = value;
  if (value.kind == EV_ERR || !kg_ev_is_tensor(el, value)) return kg_elab_error(el, at, KG_E_INTERNAL, "%s: no tensor to write", what);
  if (!kg_shape_equal(&gnode(el, value.id)->shape, &x->shape)) return kg_elab_error(el, at, KG_E_SHAPE, "%s: the updated value has another shape", what);
  if (gnode(el, value.id)->dtype != x->dtype) r = kg_elab_tensor_op(el, at, KG_OP_CAST, &value.id, 1, NULL, NULL, (kg_dtype)x->dtype);
  if (r.kind == EV_ERR) return r;
  rebind(el, var, param, r.id);
  return r;
}

void kg_elab_writebacks(kg_elab *el) {
  kg_graph *g = el->g;
  for (uint32_t p = 0; p < g->params.n; p++)
    for (const kg_inplace *q = el->inplace; q; q = q->prev) {
      if (q->param != p) continue;
      if (q->node != g->params.v[p].node) { /* the newest value of p */
        KG_VEC_PUSH(g->outputs, q->node);
        g->params.v[p].wb = g->outputs.n;
      }
      break;
    }
}

/* Members about memory and placement, not values, as model code writes them around its math
 * (dotnet/machinelearning's GenAI, the Phi port): `use _ = torch.NewDisposeScope()` (a scope
 * object whose `use` disposes it), x.MoveToOuterDisposeScope() and DetachFromDisposeScope()
 * (x itself), x.device (an opaque device value) and x.to(device) / x.to(device, dtype) (x, or
 * its cast): kgen's kernels run on the device of their inputs. And static facts below. */
bool kg_elab_effect_member(kg_elab *el, const kg_ast *n, const kg_member *m, const kg_ev *av, int na, kg_ev *out) {
  bool tm = strcmp(m->decl, "TorchSharp.torch+Tensor") == 0;
  if (!strcmp(m->decl, "TorchSharp.torch") && !strcmp(m->name, "NewDisposeScope") && na == 0) {
    *out = ev_make(EV_UNIT);
    return true;
  }
  if (tm && na == 1 && (!strcmp(m->name, "MoveToOuterDisposeScope") || !strcmp(m->name, "DetachFromDisposeScope"))) {
    *out = av[0];
    return true;
  }
  /* the scope object's own members, as TorchVision's forwards write them (ResNet:
   * `scope.MoveToOuter(res); return res;`): scope.MoveToOuter(t) / Detach(t) give t back, the two-
   * and three-tensor forms the tuple, the params / IEnumerable forms nothing */
  if (!strcmp(m->decl, "TorchSharp.DisposeScope") && (!strcmp(m->name, "MoveToOuter") || !strcmp(m->name, "Detach")) &&
      na >= 2) {
    for (int i = 1; i < na; i++)
      if (!kg_ev_is_tensor(el, av[i]) && av[i].kind != EV_ARRAY && av[i].kind != EV_NULL)
        return false;
    if (na == 2 && kg_ev_is_tensor(el, av[1])) {
      *out = av[1];
    } else if (na <= 4 && kg_ev_is_tensor(el, av[1])) {
      kg_ev t = ev_make(EV_TUPLE);
      t.n = (uint32_t)(na - 1);
      t.items = kg_arena_alloc(el->arena, (size_t)t.n * sizeof *t.items);
      memcpy(t.items, av + 1, (size_t)t.n * sizeof *av);
      *out = t;
    } else {
      *out = ev_make(EV_UNIT);
    }
    return true;
  }
  if (tm && na == 1 && (!strcmp(m->name, "get_device") || !strcmp(m->name, "device"))) {
    *out = ev_make(EV_UNIT); /* the device: only ever passed to to() */
    return true;
  }
  /* facts kgen knows when it compiles: an F# array's length (x.shape.Length), whether an
   * optional tensor argument is null (isNull mask in NasBert's attention) */
  if (!strcmp(m->decl, "System.Array") && (!strcmp(m->name, "get_Length") || !strcmp(m->name, "Length")) && na == 1 && av[0].kind == EV_ARRAY) {
    *out = ev_const(kg_cval_int(KG_I32, av[0].n));
    return true;
  }
  if (!strcmp(m->decl, "Microsoft.FSharp.Core.Operators") && !strcmp(m->name, "IsNull") && na == 1 &&
      (av[0].kind == EV_NULL || kg_ev_is_tensor(el, av[0]))) {
    *out = ev_const(kg_cval_int(KG_BOOL, av[0].kind == EV_NULL));
    return true;
  }
  /* Debug.Assert(c): checked when kgen compiles where c is known then; otherwise dropped, as a
   * Release build drops it ([Conditional("DEBUG")]) */
  if (!strcmp(m->decl, "System.Diagnostics.Debug") && !strcmp(m->name, "Assert") && na >= 1) {
    if (av[0].kind == EV_CONST && !kg_cval_truthy(av[0].c)) {
      *out = kg_elab_error(el, n, KG_E_SHAPE, "Debug.Assert failed (its condition is false for this signature)");
      return true;
    }
    *out = ev_make(EV_UNIT);
    return true;
  }
  /* F#'s comprehensions over arrays, as model code collects branch outputs (TextCNN:
   * `[| for i in xs -> f i |]` = Seq.toArray (seq (Seq.delay (fun () -> Seq.map f xs))); over a
   * live ModuleList the serializer has made xs the array of the per-module bodies): on an array
   * known when kgen compiles, Seq.map / Array.map apply f to each item, Seq.delay applies its
   * function, seq / Seq.toArray / Array.ofSeq are the array itself */
  bool seqm = !strcmp(m->decl, "Microsoft.FSharp.Collections.SeqModule"), arrm = !strcmp(m->decl, "Microsoft.FSharp.Collections.ArrayModule");
  if ((seqm || arrm) && !strcmp(m->name, "Map") && na == 2 && av[1].kind == EV_ARRAY) {
    kg_ev r = ev_make(EV_ARRAY);
    r.n = av[1].n;
    r.items = kg_arena_alloc(el->arena, (size_t)(r.n ? r.n : 1) * sizeof *r.items);
    for (uint32_t i = 0; i < r.n; i++) {
      r.items[i] = kg_elab_apply(el, n, av[0], av[1].items[i]);
      if (r.items[i].kind == EV_ERR) {
        *out = r.items[i];
        return true;
      }
    }
    *out = r;
    return true;
  }
  if (seqm && !strcmp(m->name, "Delay") && na == 1) {
    *out = kg_elab_apply(el, n, av[0], ev_make(EV_UNIT));
    return true;
  }
  if (((seqm && !strcmp(m->name, "ToArray")) || (arrm && !strcmp(m->name, "OfSeq")) ||
       ((!strcmp(m->decl, "Microsoft.FSharp.Core.ExtraTopLevelOperators") || !strcmp(m->decl, "Microsoft.FSharp.Core.Operators")) && !strcmp(m->name, "CreateSequence"))) &&
      na == 1 && av[0].kind == EV_ARRAY) {
    *out = av[0];
    return true;
  }
  if (!strcmp(m->decl, "Microsoft.FSharp.Core.Operators") && !strcmp(m->name, "Ignore") && na == 1) {
    *out = kg_ev_make(EV_UNIT); /* x.add_(y) |> ignore: the in-place call already rebound x */
    return true;
  }
  if (tm && !strcmp(m->name, "to") && na >= 2) {
    bool dev = false;
    kg_dtype dt = KG_DT_NONE;
    for (uint32_t i = 0; i < m->n_params; i++) {
      if (!strcmp(m->params[i], "TorchSharp.torch+Device") || !strcmp(m->params[i], "System.String")) dev = true;
      if ((int)i + 1 < na && av[i + 1].kind == EV_DTYPE) dt = av[i + 1].dt;
    }
    if (!dev) return false;
    if (!kg_ev_is_tensor(el, av[0])) {
      *out = kg_elab_error(el, n, KG_E_TYPE, "to(device) needs a tensor");
      return true;
    }
    *out = dt == KG_DT_NONE || dt == (kg_dtype)gnode(el, av[0].id)->dtype ? av[0] : kg_elab_tensor_op(el, n, KG_OP_CAST, &av[0].id, 1, NULL, NULL, dt);
    return true;
  }
  return false;
}

