/* ir/kernel_coop.c — does a kernel need its threads to cooperate? The one predicate that says.
 *
 * A kernel whose threads never depend on one another (no barrier, no shared memory, no block
 * or warp collective) computes the same whatever order its threads run in, one after another
 * or interleaved. The CPU device runs such kernels as plain loops over their threads, with no
 * fibers and no context switches (codegen-cuda/cpu.c emits the loop driver), and every other
 * kernel on the emulator's fibers. Pointwise kernels, the column and split reduction schedules
 * (a thread owns its output), scans and the CPU product schedule are independent; block- and
 * warp-per-row reductions (their collectives) and the shared-memory product tiles are not.
 *
 * The answer is read from the kernel IR, never from the text. A statement or expression kind
 * that is not listed as independent below counts as cooperation, so a new kind (tensor-core
 * instructions: warp-collective by nature) runs on fibers until it is added here.
 *
 * kg_kernel_tensor_cores says whether a kernel uses the tensor-core tier's instructions (mma,
 * wgmma, TMA, their dynamic shared memory): the CPU device has none and refuses such a kernel
 * (its scheduler, kg_target_cpu, never picks the tier). */
#include "ir.h"

static bool stmt_cooperates(const kg_ks *s) {
  switch ((kg_ks_kind)s->kind) {
  case KS_DECL: case KS_ASSIGN: case KS_STORE: case KS_IF: case KS_FOR: case KS_WHILE: case KS_BREAK:
  case KS_VLOAD: case KS_VSTORE: case KS_COMMENT: case KS_DOT: case KS_TPACK:
    return false;
  case KS_BARRIER: /* __syncthreads */
  case KS_SSTORE:  /* shared memory */
  default:
    return true;
  }
}

static bool expr_cooperates(const kg_kx *x) {
  switch ((kg_kx_kind)x->kind) {
  case KX_CONST: case KX_VAR: case KX_PARAM: case KX_LOAD: case KX_CAST: case KX_SELECT: case KX_SREG:
    return false;
  case KX_OP: /* a reduction op inside a kernel is a block or warp collective (shuffles, shared memory) */
    return (kg_op_get((kg_op)x->op)->flags & KG_OPF_REDUCE) != 0;
  case KX_SLOAD: /* shared memory */
  default:
    return true;
  }
}

bool kg_kernel_cooperates(const kg_kernel *k) {
  if (k->shared.n) return true;
  for (uint32_t i = 0; i < k->stmts.n; i++)
    if (stmt_cooperates(&k->stmts.v[i])) return true;
  for (uint32_t i = 0; i < k->exprs.n; i++)
    if (expr_cooperates(&k->exprs.v[i])) return true;
  return false;
}

bool kg_kernel_tensor_cores(const kg_kernel *k) {
  if (k->launch.smem_dyn) return true;
  for (uint32_t i = 0; i < k->params.n; i++)
    if (k->params.v[i].kind == KP_TMAP) return true;
  for (uint32_t i = 0; i < k->stmts.n; i++)
    if (k->stmts.v[i].kind == KS_TC || k->stmts.v[i].kind == KS_SMEM_ST) return true;
  for (uint32_t i = 0; i < k->exprs.n; i++)
    if (k->exprs.v[i].kind == KX_SMEM) return true;
  return false;
}
