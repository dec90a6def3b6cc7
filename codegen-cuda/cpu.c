/* codegen-cuda/cpu.c — the CPU device's glue: how each kernel of a translation unit is run.
 *
 * For a kernel whose threads never cooperate (kg_kernel_cooperates, ir/kernel_coop.c) a loop
 * driver,
 *
 *     __attribute__((flatten)) void K__kg_cpu(void **p, const kg_cpu_range *r) {
 *       const float *a0 = *(const float **)p[0]; ...          // the parameters, once
 *       KG_CPU_LOOP(r, K(a0, ...));                           // every thread of blocks [b0, b1)
 *     }
 *
 * (codegen-cuda/kg_cpu.h has the loop); for the others the emulator's fiber trampoline
 * (kg_cuda_emit_trampolines). The kernel text itself is exactly what NVRTC compiles.
 */
#include "codegen.h"

/* The C type a parameter of the kernel's signature has (cuda.c's `signature`): a pointer to
 * the storage type for buffers; the register type for scalars (bool as unsigned char, half
 * precision carried in float). */
static void param_type(const kg_kparam *p, kg_strbuf *o) {
  kg_dtype t = (kg_dtype)p->dtype;
  if (p->kind == KP_BUFFER) {
    kg_sb_printf(o, "%s%s *", p->is_output ? "" : "const ", kg_dtype_get(t)->ctype);
    return;
  }
  const char *r = t == KG_BOOL ? "unsigned char" : t == KG_F16 || t == KG_BF16 ? "float" : kg_dtype_get(t)->ctype;
  kg_sb_printf(o, "%s", r);
}

void kg_cuda_emit_cpu_prologue(const kg_kernel *const *ks, uint32_t n, kg_strbuf *o) {
  /* A product kernel under the CPU schedule (lower_matmul_cpu.c) relies on GCC's basic-block SLP
   * for its register block; GCC 12's loop vectorizer, at its default cost model, takes the k loop
   * instead (in-order reductions) and runs it 4x slower (18 vs 4.5 GFLOP/s for a 256^3 linear on
   * one core here). Its cheapest cost model vectorizes only loops whose vector code replaces the
   * scalar loop whole (a known trip count, no versioning, no peeling): not the k loop, but a
   * convolution's row epilogue (NR columns, marked independent), whose selects SLP cannot take.
   * The pragma reaches the functions of this translation unit that follow: the kernel. */
  for (uint32_t i = 0; i < n; i++)
    if (ks[i]->launch.per_output == KG_LAUNCH_TILES && !kg_kernel_cooperates(ks[i])) {
      kg_sb_puts(o, "#if defined(__GNUC__) && !defined(__clang__)\n#pragma GCC optimize (\"vect-cost-model=very-cheap\")\n#endif\n");
      return;
    }
}

bool kg_cuda_emit_cpu_glue(const kg_kernel *const *ks, uint32_t n, kg_strbuf *o) {
  for (uint32_t i = 0; i < n; i++)
    if (kg_kernel_tensor_cores(ks[i])) return false; /* no tensor cores on the CPU device */
  kg_sb_puts(o, "\n/* CPU device: a loop driver per kernel whose threads never cooperate, fibers for the others */\n");
  for (uint32_t i = 0; i < n; i++) {
    const kg_kernel *k = ks[i];
    if (kg_kernel_cooperates(k)) {
      kg_cuda_emit_trampolines(&ks[i], 1, o);
      continue;
    }
    kg_sb_printf(o, "void %s__kg_cpu(void **p, const kg_cpu_range *r) __attribute__((flatten));\n", k->name);
    kg_sb_printf(o, "void %s__kg_cpu(void **p, const kg_cpu_range *r) {\n", k->name);
    for (uint32_t j = 0; j < k->params.n; j++) {
      const kg_kparam *p = &k->params.v[j];
      kg_sb_puts(o, "  ");
      param_type(p, o);
      kg_sb_printf(o, " a%u = *(", j);
      param_type(p, o);
      kg_sb_printf(o, "%s)p[%u];\n", p->kind == KP_BUFFER ? "*" : " *", j);
    }
    kg_sb_printf(o, "  KG_CPU_LOOP(r, %s(", k->name);
    for (uint32_t j = 0; j < k->params.n; j++) kg_sb_printf(o, "%sa%u", j ? ", " : "", j);
    kg_sb_puts(o, "));\n}\n");
  }
  return true;
}
