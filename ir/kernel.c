/* ir/kernel.c — kernel IR: builders, the textual printer and the verifier.
 *
 * Expressions and statements live in per-kernel tables and refer to each other
 * by 32-bit index (style habit 4). Blocks are singly linked statement lists; a
 * kg_kcursor appends to one block. The printer is deterministic (tests diff it);
 * the verifier checks every index, every operand dtype that the C emitter
 * relies on, and that variables are declared before use. Shared arrays (__shared__,
 * declared once per kernel) are read with SLOAD and written with SSTORE; barriers
 * around them are the schedule's business (the emulator checks them). */
#include <stdlib.h>
#include <string.h>

#include "ir.h"

void kg_kernel_init(kg_kernel *k, const char *name) {
  memset(k, 0, sizeof *k);
  k->name = name;
  k->index_dtype = KG_I32;
  k->body = KG_NONE;
  k->vec = 1;
  k->launch.block[0] = 256, k->launch.block[1] = 1, k->launch.block[2] = 1;
  k->launch.elems_per_thread = 1;
}

void kg_kernel_free(kg_kernel *k) {
  KG_VEC_FREE(k->params);
  KG_VEC_FREE(k->vars);
  KG_VEC_FREE(k->exprs);
  KG_VEC_FREE(k->stmts);
  KG_VEC_FREE(k->shared);
  KG_VEC_FREE(k->tmaps);
}

static uint32_t add_x(kg_kernel *k, kg_kx x) {
  KG_VEC_PUSH(k->exprs, x);
  return k->exprs.n - 1;
}

uint32_t kg_kx_const_i(kg_kernel *k, kg_dtype t, int64_t v) {
  kg_kx x = {.kind = KX_CONST, .dtype = (uint8_t)t, .a = KG_NONE, .b = KG_NONE, .c = KG_NONE, .i = v, .f = (double)v};
  return add_x(k, x);
}
uint32_t kg_kx_const_f(kg_kernel *k, kg_dtype t, double v) {
  kg_kx x = {.kind = KX_CONST, .dtype = (uint8_t)t, .a = KG_NONE, .b = KG_NONE, .c = KG_NONE, .f = v};
  return add_x(k, x);
}
uint32_t kg_kx_var(kg_kernel *k, uint32_t var) {
  KG_ASSERT(var < k->vars.n);
  kg_kx x = {.kind = KX_VAR, .dtype = k->vars.v[var].dtype, .a = var, .b = KG_NONE, .c = KG_NONE};
  return add_x(k, x);
}
uint32_t kg_kx_param(kg_kernel *k, uint32_t param) {
  KG_ASSERT(param < k->params.n);
  kg_kx x = {.kind = KX_PARAM, .dtype = k->params.v[param].dtype, .a = param, .b = KG_NONE, .c = KG_NONE};
  return add_x(k, x);
}
uint32_t kg_kx_load(kg_kernel *k, uint32_t buf, uint32_t index) {
  KG_ASSERT(buf < k->params.n && k->params.v[buf].kind == KP_BUFFER);
  kg_kx x = {.kind = KX_LOAD, .dtype = k->params.v[buf].dtype, .a = buf, .b = index, .c = KG_NONE};
  return add_x(k, x);
}
uint32_t kg_kx_op(kg_kernel *k, kg_op op, kg_dtype t, uint32_t a, uint32_t b, uint32_t c) {
  kg_kx x = {.kind = KX_OP, .dtype = (uint8_t)t, .op = (uint16_t)op, .a = a, .b = b, .c = c};
  return add_x(k, x);
}
uint32_t kg_kx_cast(kg_kernel *k, kg_dtype t, uint32_t a) {
  kg_kx x = {.kind = KX_CAST, .dtype = (uint8_t)t, .a = a, .b = KG_NONE, .c = KG_NONE};
  return add_x(k, x);
}
uint32_t kg_kx_select(kg_kernel *k, kg_dtype t, uint32_t c, uint32_t a, uint32_t b) {
  kg_kx x = {.kind = KX_SELECT, .dtype = (uint8_t)t, .a = c, .b = a, .c = b};
  return add_x(k, x);
}
uint32_t kg_kx_sreg(kg_kernel *k, int which, kg_dtype t) {
  kg_kx x = {.kind = KX_SREG, .dtype = (uint8_t)t, .a = (uint32_t)which, .b = KG_NONE, .c = KG_NONE};
  return add_x(k, x);
}
uint32_t kg_kx_sload(kg_kernel *k, uint32_t arr, uint32_t index) {
  KG_ASSERT(arr < k->shared.n);
  kg_kx x = {.kind = KX_SLOAD, .dtype = k->shared.v[arr].dtype, .a = arr, .b = index, .c = KG_NONE};
  return add_x(k, x);
}
uint32_t kg_kx_smem(kg_kernel *k, kg_dtype t, uint32_t byte_offset) {
  KG_ASSERT(t == KG_I32 || t == KG_F32);
  kg_kx x = {.kind = KX_SMEM, .dtype = (uint8_t)t, .a = byte_offset, .b = KG_NONE, .c = KG_NONE};
  return add_x(k, x);
}
uint32_t kg_kshared_add(kg_kernel *k, const char *name, kg_dtype t, uint32_t count) {
  kg_kshared sh = {name ? name : "s", (uint8_t)t, count};
  KG_VEC_PUSH(k->shared, sh);
  return k->shared.n - 1;
}
uint32_t kg_kvar_new(kg_kernel *k, const char *name, kg_dtype t) {
  kg_kvar v = {name ? name : "t", (uint8_t)t};
  KG_VEC_PUSH(k->vars, v);
  return k->vars.n - 1;
}
uint32_t kg_kparam_add(kg_kernel *k, kg_kparam p) {
  KG_VEC_PUSH(k->params, p);
  return k->params.n - 1;
}

static uint32_t *block_head(kg_kernel *k, uint32_t parent, bool els) {
  if (parent == KG_NONE) return &k->body;
  return els ? &k->stmts.v[parent].els : &k->stmts.v[parent].body;
}

static kg_kcursor cursor_at(kg_kernel *k, uint32_t parent, bool els) {
  kg_kcursor c = {k, parent, els, KG_NONE};
  for (uint32_t s = *block_head(k, parent, els); s != KG_NONE; s = k->stmts.v[s].next) c.last = s;
  return c;
}
kg_kcursor kg_kcursor_top(kg_kernel *k) { return cursor_at(k, KG_NONE, false); }
kg_kcursor kg_kcursor_body(kg_kernel *k, uint32_t stmt, bool els) { return cursor_at(k, stmt, els); }

uint32_t kg_ks_add(kg_kcursor *c, kg_ks s) {
  s.next = KG_NONE;
  KG_VEC_PUSH(c->k->stmts, s);
  uint32_t id = c->k->stmts.n - 1;
  if (c->last == KG_NONE) *block_head(c->k, c->parent, c->els) = id;
  else c->k->stmts.v[c->last].next = id;
  c->last = id;
  return id;
}

/* ---- printer ---- */

static void print_x(const kg_kernel *k, uint32_t e, kg_strbuf *o);

static const char *sreg_name(uint32_t w) {
  static const char *n[] = {"tid.x", "tid.y", "tid.z", "ctaid.x", "ctaid.y", "ctaid.z",
                            "ntid.x", "ntid.y", "ntid.z", "nctaid.x", "nctaid.y", "nctaid.z", "smem.base"};
  return w < KG_COUNTOF(n) ? n[w] : "?";
}

static void print_x(const kg_kernel *k, uint32_t e, kg_strbuf *o) {
  if (e == KG_NONE) { kg_sb_puts(o, "_"); return; }
  const kg_kx *x = &k->exprs.v[e];
  switch ((kg_kx_kind)x->kind) {
  case KX_CONST:
    if (kg_dtype_is_float((kg_dtype)x->dtype)) kg_sb_printf(o, "%.17g:%s", x->f, kg_dtype_name((kg_dtype)x->dtype));
    else kg_sb_printf(o, "%lld:%s", (long long)x->i, kg_dtype_name((kg_dtype)x->dtype));
    break;
  case KX_VAR: kg_sb_printf(o, "%%%s%u", k->vars.v[x->a].name, x->a); break;
  case KX_PARAM: kg_sb_printf(o, "$%s", k->params.v[x->a].name); break;
  case KX_LOAD:
    kg_sb_printf(o, "%s[", k->params.v[x->a].name);
    print_x(k, x->b, o);
    kg_sb_putc(o, ']');
    break;
  case KX_OP: {
    const kg_op_info *oi = kg_op_get((kg_op)x->op);
    kg_sb_printf(o, "%s:%s(", oi->name, kg_dtype_name((kg_dtype)x->dtype));
    uint32_t ops[3] = {x->a, x->b, x->c};
    int n = oi->arity < 0 ? 0 : oi->arity;
    for (int i = 0; i < n; i++) {
      if (i) kg_sb_puts(o, ", ");
      print_x(k, ops[i], o);
    }
    if (x->i || x->f != 0 || x->f2 != 0 || x->f3 != 0)
      kg_sb_printf(o, " | %lld %.9g %.9g %.9g", (long long)x->i, x->f, x->f2, x->f3);
    kg_sb_putc(o, ')');
    break;
  }
  case KX_CAST:
    kg_sb_printf(o, "(%s)", kg_dtype_name((kg_dtype)x->dtype));
    print_x(k, x->a, o);
    break;
  case KX_SELECT:
    kg_sb_puts(o, "select(");
    print_x(k, x->a, o), kg_sb_puts(o, ", ");
    print_x(k, x->b, o), kg_sb_puts(o, ", ");
    print_x(k, x->c, o), kg_sb_putc(o, ')');
    break;
  case KX_SREG: kg_sb_puts(o, sreg_name(x->a)); break;
  case KX_SLOAD:
    kg_sb_printf(o, "@%s%u[", k->shared.v[x->a].name, x->a);
    print_x(k, x->b, o);
    kg_sb_putc(o, ']');
    break;
  case KX_SMEM:
    kg_sb_printf(o, "smem.%s[", kg_dtype_name((kg_dtype)x->dtype));
    print_x(k, x->a, o);
    kg_sb_putc(o, ']');
    break;
  }
}

static const char *tc_name(uint16_t op) {
  static const char *n[] = {"mma.m16n8k16.f16", "mma.m16n8k16.bf16", "mma.m16n8k8.tf32", "ldmatrix", "cp.async", "cp.async.commit",
                            "cp.async.wait", "wgmma", "wgmma.fence", "wgmma.commit", "wgmma.wait", "mbarrier.init",
                            "mbarrier.arrive", "mbarrier.wait", "tma.load", "fence.mbarrier_init", "setmaxnreg"};
  return op < KG_COUNTOF(n) ? n[op] : "?";
}

/* the vars a KS_TC statement writes (first, count) and reads (first, count) x2 */
static void tc_vars(const kg_ks *st, uint32_t *w, uint32_t *nw, uint32_t r[2], uint32_t nr[2]) {
  *w = KG_NONE, *nw = 0, r[0] = r[1] = KG_NONE, nr[0] = nr[1] = 0;
  switch ((kg_tc_op)st->sub) {
  case KG_TC_MMA_F16:
  case KG_TC_MMA_BF16:
  case KG_TC_MMA_TF32: *w = st->a, *nw = 4, r[0] = st->b, nr[0] = 4, r[1] = st->c, nr[1] = 2; break;
  case KG_TC_LDSM: *w = st->a, *nw = st->imm & 7; break;
  case KG_TC_WGMMA: *w = st->a, *nw = (st->imm & 0x1ff) / 2; break;
  case KG_TC_TMA: r[0] = st->c, nr[0] = st->imm; break;
  default: break;
  }
}

static void print_tc(const kg_kernel *k, const kg_ks *st, kg_strbuf *o) {
  uint32_t w, nw, r[2], nr[2];
  tc_vars(st, &w, &nw, r, nr);
  kg_sb_printf(o, "%s", tc_name(st->sub));
  if (st->sub == KG_TC_LDSM) kg_sb_printf(o, ".x%u%s", st->imm & 7, st->imm & 8 ? ".trans" : "");
  if (st->sub == KG_TC_WAIT || st->sub == KG_TC_WG_WAIT || st->sub == KG_TC_MBAR_INIT) kg_sb_printf(o, " %u", st->imm);
  if (st->sub == KG_TC_SETMAXNREG) kg_sb_printf(o, ".%s %u", st->imm & 0x1000 ? "inc" : "dec", st->imm & 0xfff);
  if (st->sub == KG_TC_WGMMA)
    kg_sb_printf(o, ".m64n%uk16.%s%s%s", st->imm & 0x1ff, st->imm & 0x200 ? "bf16" : "f16", st->imm & 0x400 ? ".ta" : "", st->imm & 0x800 ? ".tb" : "");
  if (st->sub == KG_TC_TMA) kg_sb_printf(o, ".%ud %s", st->imm, k->params.v[st->a].name);
  if (nw) kg_sb_printf(o, " %%%s%u..+%u", k->vars.v[w].name, w, nw);
  for (int i = 0; i < 2; i++)
    if (nr[i]) kg_sb_printf(o, ", %%%s%u..+%u", k->vars.v[r[i]].name, r[i], nr[i]);
  if (st->sub == KG_TC_LDSM) kg_sb_puts(o, ", smem["), print_x(k, st->b, o), kg_sb_putc(o, ']');
  if (st->sub == KG_TC_CPASYNC) {
    kg_sb_puts(o, " smem["), print_x(k, st->c, o);
    kg_sb_printf(o, "] <- %s[", k->params.v[st->a].name), print_x(k, st->b, o);
    kg_sb_puts(o, "] bytes "), print_x(k, st->d, o);
  }
  if (st->sub == KG_TC_WGMMA) kg_sb_puts(o, ", desc "), print_x(k, st->b, o), kg_sb_puts(o, ", desc "), print_x(k, st->c, o);
  if (st->sub >= KG_TC_MBAR_INIT && st->sub <= KG_TC_TMA) {
    kg_sb_puts(o, st->sub == KG_TC_TMA ? " -> smem[" : " smem["), print_x(k, st->b, o), kg_sb_putc(o, ']');
    if (st->sub == KG_TC_TMA) kg_sb_puts(o, " bar smem["), print_x(k, st->d, o), kg_sb_putc(o, ']');
    if (st->c != KG_NONE && st->sub != KG_TC_TMA) kg_sb_puts(o, st->sub == KG_TC_MBAR_WAIT ? " parity " : " tx "), print_x(k, st->c, o);
  }
  kg_sb_putc(o, '\n');
}

static void print_block(const kg_kernel *k, uint32_t s, int ind, kg_strbuf *o) {
  for (; s != KG_NONE; s = k->stmts.v[s].next) {
    const kg_ks *st = &k->stmts.v[s];
    kg_sb_indent(o, ind);
    switch ((kg_ks_kind)st->kind) {
    case KS_DECL:
      kg_sb_printf(o, "var %%%s%u: %s = ", k->vars.v[st->a].name, st->a,
                   kg_dtype_name((kg_dtype)k->vars.v[st->a].dtype));
      print_x(k, st->b, o);
      kg_sb_putc(o, '\n');
      break;
    case KS_ASSIGN:
      kg_sb_printf(o, "%%%s%u = ", k->vars.v[st->a].name, st->a);
      print_x(k, st->b, o);
      kg_sb_putc(o, '\n');
      break;
    case KS_STORE:
      kg_sb_printf(o, "%s[", k->params.v[st->a].name);
      print_x(k, st->b, o);
      kg_sb_puts(o, "] = ");
      print_x(k, st->c, o);
      kg_sb_putc(o, '\n');
      break;
    case KS_IF:
      kg_sb_puts(o, "if ");
      print_x(k, st->a, o);
      kg_sb_puts(o, " {\n");
      print_block(k, st->body, ind + 1, o);
      if (st->els != KG_NONE) {
        kg_sb_indent(o, ind);
        kg_sb_puts(o, "} else {\n");
        print_block(k, st->els, ind + 1, o);
      }
      kg_sb_indent(o, ind);
      kg_sb_puts(o, "}\n");
      break;
    case KS_FOR:
      kg_sb_printf(o, "%sfor %%%s%u = ", st->imm & 1 ? "independent " : "", k->vars.v[st->a].name, st->a);
      print_x(k, st->b, o);
      kg_sb_puts(o, st->incl ? " to " : " until ");
      print_x(k, st->c, o);
      kg_sb_puts(o, " step ");
      print_x(k, st->d, o);
      kg_sb_puts(o, " {\n");
      print_block(k, st->body, ind + 1, o);
      kg_sb_indent(o, ind);
      kg_sb_puts(o, "}\n");
      break;
    case KS_WHILE:
      kg_sb_puts(o, "while ");
      print_x(k, st->a, o);
      kg_sb_puts(o, " {\n");
      print_block(k, st->body, ind + 1, o);
      kg_sb_indent(o, ind);
      kg_sb_puts(o, "}\n");
      break;
    case KS_VLOAD:
      kg_sb_printf(o, "%%%s%u..+%u = vload %s[", k->vars.v[st->c].name, st->c, k->vec, k->params.v[st->a].name);
      print_x(k, st->b, o);
      kg_sb_puts(o, "]\n");
      break;
    case KS_VSTORE:
      kg_sb_printf(o, "vstore %s[", k->params.v[st->a].name);
      print_x(k, st->b, o);
      kg_sb_printf(o, "] = %%%s%u..+%u\n", k->vars.v[st->c].name, st->c, k->vec);
      break;
    case KS_SSTORE:
      kg_sb_printf(o, "@%s%u[", k->shared.v[st->a].name, st->a);
      print_x(k, st->b, o);
      kg_sb_puts(o, "] = ");
      print_x(k, st->c, o);
      kg_sb_putc(o, '\n');
      break;
    case KS_BREAK: kg_sb_puts(o, "break\n"); break;
    case KS_BARRIER: kg_sb_puts(o, "barrier\n"); break;
    case KS_COMMENT: kg_sb_printf(o, "// %s\n", st->text ? st->text : ""); break;
    case KS_SMEM_ST:
      kg_sb_puts(o, "smem[");
      print_x(k, st->b, o);
      kg_sb_printf(o, "] = %%%s%u..+%u\n", k->vars.v[st->c].name, st->c, st->imm);
      break;
    case KS_TC: print_tc(k, st, o); break;
    case KS_DOT:
    case KS_TPACK:
      if (st->kind == KS_DOT) kg_sb_printf(o, "dot16 %ux%u ", st->imm & 0xff, st->imm >> 8);
      else kg_sb_printf(o, "tpack16 /%u ", st->imm ? st->imm : 16);
      kg_sb_printf(o, "%s, %s, %%%s%u..+%u, ", k->params.v[st->a].name, k->params.v[st->b].name, k->vars.v[st->c].name, st->c,
                   st->kind == KS_DOT ? 1 + (st->imm & 0xff) + (st->imm >> 8) : 17);
      print_x(k, st->d, o);
      kg_sb_putc(o, '\n');
      break;
    }
  }
}

void kg_kernel_print(const kg_kernel *k, kg_strbuf *o) {
  kg_sb_printf(o, "kernel %s(", k->name);
  for (uint32_t i = 0; i < k->params.n; i++) {
    const kg_kparam *p = &k->params.v[i];
    if (i) kg_sb_puts(o, ", ");
    if (p->kind == KP_BUFFER) kg_sb_printf(o, "%s%s: %s*", p->is_output ? "out " : "", p->name, kg_dtype_name((kg_dtype)p->dtype));
    else kg_sb_printf(o, "%s: %s", p->name, kg_dtype_name((kg_dtype)p->dtype));
  }
  kg_sb_printf(o, ") index=%s vec=%u block=%ux%ux%u elems/thread=%u",
               kg_dtype_name((kg_dtype)k->index_dtype), k->vec, k->launch.block[0],
               k->launch.block[1], k->launch.block[2], k->launch.elems_per_thread);
  if (k->schedule) kg_sb_printf(o, " schedule=%s", k->schedule);
  kg_sb_puts(o, " {\n");
  for (uint32_t i = 0; i < k->shared.n; i++)
    kg_sb_printf(o, "  shared @%s%u: %s[%u]\n", k->shared.v[i].name, i, kg_dtype_name((kg_dtype)k->shared.v[i].dtype), k->shared.v[i].count);
  print_block(k, k->body, 1, o);
  kg_sb_puts(o, "}\n");
}

/* ---- verifier ---- */

typedef struct vctx {
  const kg_kernel *k;
  kg_diag *d;
  bool ok;
  uint8_t *declared; /* per var */
  uint32_t steps;    /* guards against cycles in statement lists */
} vctx;

static void vfail(vctx *v, const char *what, uint32_t id) {
  if (v->ok) kg_diag_add(v->d, KG_E_INTERNAL, NULL, NULL, "kernel IR verifier (%s): %s (#%u)", v->k->name, what, id);
  v->ok = false;
}

static void vx(vctx *v, uint32_t e, int depth) {
  const kg_kernel *k = v->k;
  if (!v->ok) return;
  if (e >= k->exprs.n) { vfail(v, "expression index out of range", e); return; }
  if (depth > 10000) { vfail(v, "expression too deep (cycle?)", e); return; }
  const kg_kx *x = &k->exprs.v[e];
  if (x->dtype >= KG_DT__COUNT) { vfail(v, "bad dtype", e); return; }
  switch ((kg_kx_kind)x->kind) {
  case KX_CONST: break;
  case KX_SREG: if (x->a > KG_SREG_SMEM) vfail(v, "bad special register", e); break;
  case KX_VAR:
    if (x->a >= k->vars.n) vfail(v, "variable out of range", e);
    else if (!v->declared[x->a]) vfail(v, "variable used before its declaration", e);
    break;
  case KX_PARAM:
    if (x->a >= k->params.n || k->params.v[x->a].kind != KP_SCALAR) vfail(v, "PARAM is not a scalar parameter", e);
    break;
  case KX_LOAD:
    if (x->a >= k->params.n || k->params.v[x->a].kind != KP_BUFFER) { vfail(v, "LOAD from a non-buffer", e); break; }
    vx(v, x->b, depth + 1);
    if (v->ok && !kg_dtype_is_int((kg_dtype)k->exprs.v[x->b].dtype)) vfail(v, "LOAD index is not an integer", e);
    break;
  case KX_OP: {
    if (x->op >= KG_OP__COUNT) { vfail(v, "bad op", e); break; }
    if (x->op == KG_OP_WHERE) { vfail(v, "WHERE as an op (a select is KX_SELECT: the C emitter has no WHERE)", e); break; }
    int n = kg_op_get((kg_op)x->op)->arity;
    if (n < 0 || n > 3) { vfail(v, "op with variable arity in a kernel", e); break; }
    uint32_t ops[3] = {x->a, x->b, x->c};
    for (int i = 0; i < n; i++) vx(v, ops[i], depth + 1);
    break;
  }
  case KX_SLOAD:
    if (x->a >= k->shared.n) { vfail(v, "SLOAD from an unknown shared array", e); break; }
    vx(v, x->b, depth + 1);
    if (v->ok && !kg_dtype_is_int((kg_dtype)k->exprs.v[x->b].dtype)) vfail(v, "SLOAD index is not an integer", e);
    break;
  case KX_SMEM:
    if (x->dtype != KG_I32 && x->dtype != KG_F32) { vfail(v, "SMEM word is not int32 or float32", e); break; }
    vx(v, x->a, depth + 1);
    if (v->ok && k->exprs.v[x->a].dtype != KG_I32) vfail(v, "SMEM offset is not int32", e);
    break;
  case KX_CAST: vx(v, x->a, depth + 1); break;
  case KX_SELECT:
    vx(v, x->a, depth + 1), vx(v, x->b, depth + 1), vx(v, x->c, depth + 1);
    if (v->ok && k->exprs.v[x->a].dtype != KG_BOOL) vfail(v, "SELECT condition is not bool", e);
    break;
  default: vfail(v, "bad expression kind", e);
  }
}

/* KS_TC: fragment vars in range, typed (float32 accumulators, int32 fragments) and declared
 * before they are read; operand expressions well formed */
static void vtc(vctx *v, const kg_ks *st, uint32_t s) {
  const kg_kernel *k = v->k;
  if (st->sub > KG_TC_SETMAXNREG) { vfail(v, "bad tensor-core instruction", s); return; }
  if (st->sub == KG_TC_SETMAXNREG && ((st->imm & 0xfff) < 24 || (st->imm & 0xfff) > 256 || (st->imm & 7))) { vfail(v, "setmaxnreg count not 24 to 256 in steps of 8", s); return; }
  uint32_t w, nw, r[2], nr[2];
  tc_vars(st, &w, &nw, r, nr);
  if (st->sub == KG_TC_LDSM && nw != 1 && nw != 2 && nw != 4) { vfail(v, "ldmatrix of other than 1, 2 or 4 matrices", s); return; }
  for (int i = 0; i < 2; i++) {
    if (!nr[i]) continue;
    if (r[i] + nr[i] > k->vars.n) { vfail(v, "fragment past the last variable", s); return; }
    for (uint32_t j = 0; j < nr[i]; j++) {
      if (k->vars.v[r[i] + j].dtype != KG_I32) { vfail(v, "an A or B fragment register is not int32", s); return; }
      if (!v->declared[r[i] + j]) { vfail(v, "fragment read before its declaration", s); return; }
    }
  }
  if (st->sub == KG_TC_WGMMA && (nw < 4 || nw > 128 || (st->imm & 0x1ff) % 8)) { vfail(v, "wgmma N is not 8 to 256 in steps of 8", s); return; }
  if (nw) {
    if (w + nw > k->vars.n) { vfail(v, "fragment past the last variable", s); return; }
    bool mma = st->sub <= KG_TC_MMA_TF32 || st->sub == KG_TC_WGMMA;
    for (uint32_t j = 0; j < nw; j++) {
      if (k->vars.v[w + j].dtype != (mma ? KG_F32 : KG_I32)) { vfail(v, mma ? "an accumulator is not float32" : "an ldmatrix register is not int32", s); return; }
      if (mma && !v->declared[w + j]) { vfail(v, "accumulator read before its declaration", s); return; }
      v->declared[w + j] = 1;
    }
  }
  if (st->sub == KG_TC_LDSM) vx(v, st->b, 0);
  if (st->sub == KG_TC_WGMMA) {
    vx(v, st->b, 0), vx(v, st->c, 0);
    if (v->ok && (k->exprs.v[st->b].dtype != KG_I64 || k->exprs.v[st->c].dtype != KG_I64)) vfail(v, "a wgmma descriptor is not int64", s);
    if (v->ok && !k->sm90a) vfail(v, "wgmma in a kernel not marked sm90a", s);
  }
  if (st->sub >= KG_TC_MBAR_INIT && st->sub <= KG_TC_TMA) {
    vx(v, st->b, 0);
    if (st->c != KG_NONE && st->sub != KG_TC_TMA) vx(v, st->c, 0);
    if (st->sub == KG_TC_TMA) {
      if (st->a >= k->params.n || k->params.v[st->a].kind != KP_TMAP) { vfail(v, "TMA from a parameter that is not a tensor map", s); return; }
      if (st->imm < 1 || st->imm > 3) { vfail(v, "TMA of other than 1 to 3 dims", s); return; }
      vx(v, st->d, 0);
    }
    if (v->ok && !k->launch.smem_dyn) vfail(v, "an mbarrier or TMA in a kernel without dynamic shared memory", s);
  }
  if (st->sub == KG_TC_CPASYNC) {
    if (st->a >= k->params.n || k->params.v[st->a].kind != KP_BUFFER) { vfail(v, "cp.async from a non-buffer", s); return; }
    vx(v, st->b, 0), vx(v, st->c, 0), vx(v, st->d, 0);
  }
  if (v->ok && (st->sub == KG_TC_LDSM || st->sub == KG_TC_CPASYNC) && !k->launch.smem_dyn) vfail(v, "shared-memory instruction in a kernel without dynamic shared memory", s);
}

static void vblock(vctx *v, uint32_t s, int loop_depth) {
  const kg_kernel *k = v->k;
  for (; s != KG_NONE && v->ok; s = k->stmts.v[s].next) {
    if (s >= k->stmts.n) { vfail(v, "statement index out of range", s); return; }
    if (++v->steps > 4u * k->stmts.n + 16) { vfail(v, "statement list has a cycle", s); return; }
    const kg_ks *st = &k->stmts.v[s];
    switch ((kg_ks_kind)st->kind) {
    case KS_DECL:
      if (st->a >= k->vars.n) { vfail(v, "DECL of unknown var", s); return; }
      if (st->b != KG_NONE) vx(v, st->b, 0);
      v->declared[st->a] = 1;
      break;
    case KS_ASSIGN:
      if (st->a >= k->vars.n || !v->declared[st->a]) { vfail(v, "ASSIGN to undeclared var", s); return; }
      vx(v, st->b, 0);
      break;
    case KS_STORE:
      if (st->a >= k->params.n || k->params.v[st->a].kind != KP_BUFFER || !k->params.v[st->a].is_output) {
        vfail(v, "STORE to a buffer that is not an output", s);
        return;
      }
      vx(v, st->b, 0), vx(v, st->c, 0);
      break;
    case KS_SSTORE:
      if (st->a >= k->shared.n) { vfail(v, "SSTORE to an unknown shared array", s); return; }
      vx(v, st->b, 0), vx(v, st->c, 0);
      if (v->ok && !kg_dtype_is_int((kg_dtype)k->exprs.v[st->b].dtype)) vfail(v, "SSTORE index is not an integer", s);
      break;
    case KS_IF:
      vx(v, st->a, 0);
      if (v->ok && k->exprs.v[st->a].dtype != KG_BOOL) vfail(v, "IF condition is not bool", s);
      vblock(v, st->body, loop_depth);
      vblock(v, st->els, loop_depth);
      break;
    case KS_FOR:
      if (st->a >= k->vars.n) { vfail(v, "FOR over unknown var", s); return; }
      if (st->imm > 1 || (st->imm && st->incl)) { vfail(v, "FOR marked other than 0 or 1 (independent iterations, an exclusive end)", s); return; }
      vx(v, st->b, 0), vx(v, st->c, 0), vx(v, st->d, 0);
      v->declared[st->a] = 1;
      vblock(v, st->body, loop_depth + 1);
      break;
    case KS_WHILE:
      vx(v, st->a, 0);
      if (v->ok && k->exprs.v[st->a].dtype != KG_BOOL) vfail(v, "WHILE condition is not bool", s);
      vblock(v, st->body, loop_depth + 1);
      break;
    case KS_VLOAD:
    case KS_VSTORE:
      if (st->a >= k->params.n || k->params.v[st->a].kind != KP_BUFFER) { vfail(v, "vector access to a non-buffer", s); return; }
      if (st->c + k->vec > k->vars.n) { vfail(v, "vector access past the last variable", s); return; }
      if (st->kind == KS_VSTORE && !k->params.v[st->a].is_output) { vfail(v, "VSTORE to an input", s); return; }
      vx(v, st->b, 0);
      for (uint32_t j = 0; j < k->vec && v->ok; j++) {
        if (k->vars.v[st->c + j].dtype != k->params.v[st->a].dtype) vfail(v, "vector lane dtype differs from the buffer's", s);
        if (st->kind == KS_VLOAD) v->declared[st->c + j] = 1;
        else if (!v->declared[st->c + j]) vfail(v, "VSTORE of an undeclared variable", s);
      }
      break;
    case KS_BREAK:
      if (!loop_depth) vfail(v, "BREAK outside a loop", s);
      break;
    case KS_SMEM_ST:
      if (st->imm != 1 && st->imm != 2 && st->imm != 4) { vfail(v, "SMEM_ST of other than 1, 2 or 4 words", s); return; }
      if (st->c + st->imm > k->vars.n) { vfail(v, "SMEM_ST past the last variable", s); return; }
      vx(v, st->b, 0);
      if (v->ok && k->exprs.v[st->b].dtype != KG_I32) vfail(v, "SMEM_ST offset is not int32", s);
      for (uint32_t j = 0; j < st->imm && v->ok; j++) {
        kg_dtype t = (kg_dtype)k->vars.v[st->c + j].dtype;
        if (t != KG_I32 && t != KG_F32) vfail(v, "SMEM_ST of a variable that is not a 32-bit word", s);
        else if (!v->declared[st->c + j]) vfail(v, "SMEM_ST of an undeclared variable", s);
      }
      if (v->ok && !k->launch.smem_dyn) vfail(v, "SMEM_ST in a kernel without dynamic shared memory", s);
      break;
    case KS_TC: vtc(v, st, s); break;
    case KS_DOT:
    case KS_TPACK: {
      uint32_t ni = st->kind == KS_DOT ? st->imm & 0xff : 0, nj = st->kind == KS_DOT ? st->imm >> 8 : 16;
      if (st->kind == KS_DOT && (ni != 2 || (nj != 2 && nj != 4))) { vfail(v, "DOT block other than 2 x 2 or 2 x 4", s); return; }
      if (st->kind == KS_TPACK && st->imm != 0 && st->imm != 16 && st->imm != 32) { vfail(v, "TPACK row stride other than 16 or 32", s); return; }
      if (st->a >= k->params.n || st->b >= k->params.n || k->params.v[st->a].kind != KP_BUFFER || k->params.v[st->b].kind != KP_BUFFER ||
          !k->params.v[st->a].is_output || k->params.v[st->a].dtype != KG_F32 || k->params.v[st->b].dtype != KG_F32) {
        vfail(v, "DOT / TPACK operands are not float32 buffers (the first an output)", s);
        return;
      }
      if (st->c + 1 + ni + nj > k->vars.n) { vfail(v, "DOT / TPACK offsets past the last variable", s); return; }
      for (uint32_t j = 0; j < 1 + ni + nj; j++)
        if (!v->declared[st->c + j] || k->vars.v[st->c + j].dtype != KG_I64) { vfail(v, "DOT / TPACK offset is not a declared int64 variable", s); return; }
      vx(v, st->d, 0);
      if (v->ok && k->exprs.v[st->d].dtype != KG_I32) vfail(v, "DOT / TPACK count is not int32", s);
      break;
    }
    case KS_BARRIER:
    case KS_COMMENT: break;
    default: vfail(v, "bad statement kind", s);
    }
  }
}

bool kg_kernel_verify(const kg_kernel *k, kg_diag *d) {
  vctx v = {k, d, true, kg_xcalloc(k->vars.n + 1, 1), 0};
  if (k->index_dtype != KG_I32 && k->index_dtype != KG_I64) vfail(&v, "index dtype must be int32 or int64", 0);
  for (uint32_t i = 0; i < k->params.n && v.ok; i++)
    if (k->params.v[i].dtype >= KG_DT__COUNT) vfail(&v, "parameter with a bad dtype", i);
  for (uint32_t i = 0; i < k->shared.n && v.ok; i++)
    if (k->shared.v[i].dtype >= KG_DT__COUNT || k->shared.v[i].count == 0) vfail(&v, "shared array with a bad dtype or no elements", i);
  vblock(&v, k->body, 0);
  free(v.declared);
  return v.ok;
}

uint64_t kg_launch_column_blocks(const kg_launch *l, uint64_t nout) {
  uint64_t per = (uint64_t)l->block[0] * (l->elems_per_thread ? l->elems_per_thread : 1);
  return per ? (nout + per - 1) / per : 0;
}

uint64_t kg_launch_blocks_x(const kg_launch *l, uint64_t nout, uint64_t numel, uint64_t mm_n) {
  switch (l->per_output) {
  case KG_LAUNCH_BLOCK_PER_OUTPUT: return nout;
  case KG_LAUNCH_THREAD_PER_OUTPUT: return kg_launch_column_blocks(l, nout);
  case KG_LAUNCH_WARP_PER_OUTPUT: return l->tile_m ? (nout + l->tile_m - 1) / l->tile_m : 0; /* rows a block */
  case KG_LAUNCH_TILES: return l->tile_n ? (mm_n + l->tile_n - 1) / l->tile_n : 0;
  default: return kg_launch_column_blocks(l, numel); /* block.x · elems_per_thread elements a block */
  }
}
