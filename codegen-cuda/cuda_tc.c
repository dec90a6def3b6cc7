/* codegen-cuda/cuda_tc.c — the tensor-core statements of the kernel IR in CUDA C: the macros of
 * prelude_tc.h (mma.sync, ldmatrix, cp.async, mbarriers, TMA, wgmma's fence / commit / wait), and
 * wgmma.mma_async itself, whose operand list grows with N (up to 128 accumulator registers), so
 * it is printed here in full: the PTX for NVRTC when it compiles for sm_90a (a trap on other
 * GPUs, which the scheduler never gives this kernel), a call of the emulator's kg_emu_wgmma with
 * the accumulators' addresses otherwise. */
#include <stdio.h>

#include "cuda_int.h"

/* wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}: accumulators %0 .. %(N/2 - 1), then the
 * descriptors, scale-d 1, imm-scale-a/b 1, imm-trans-a/b */
static void wgmma(const kg_cu_emit *E, const kg_ks *st, int ind) {
  kg_strbuf *o = E->o;
  uint32_t n = st->imm & 0x1ff, nr = n / 2;
  const char *ty = st->imm & 0x200 ? "bf16" : "f16";
  int ta = (st->imm & 0x400) != 0, tb = (st->imm & 0x800) != 0;
  kg_sb_puts(o, "\n#if defined(__CUDACC__)\n#if defined(__CUDA_ARCH_FEAT_SM90_ALL)\n");
  kg_sb_indent(o, ind);
  kg_sb_printf(o, "asm volatile(\"wgmma.mma_async.sync.aligned.m64n%uk16.f32.%s.%s {", n, ty, ty);
  for (uint32_t i = 0; i < nr; i++) kg_sb_printf(o, "%s%%%u", i ? ", " : "", i);
  kg_sb_printf(o, "}, %%%u, %%%u, 1, 1, 1, %d, %d;\"\n", nr, nr + 1, ta, tb);
  kg_sb_indent(o, ind + 1);
  kg_sb_puts(o, ": ");
  for (uint32_t i = 0; i < nr; i++) {
    kg_sb_puts(o, i ? ", \"+f\"(" : "\"+f\"(");
    kg_cu_var(E, st->a + i, o);
    kg_sb_putc(o, ')');
  }
  kg_sb_puts(o, "\n");
  kg_sb_indent(o, ind + 1);
  kg_sb_puts(o, ": \"l\"("), kg_cu_ex(E, st->b), kg_sb_puts(o, "), \"l\"("), kg_cu_ex(E, st->c), kg_sb_puts(o, "));\n");
  kg_sb_puts(o, "#else\n");
  kg_sb_indent(o, ind);
  kg_sb_puts(o, "__trap();\n#endif\n#else\n");
  kg_sb_indent(o, ind);
  kg_sb_printf(o, "{ float *kg_d_[%u] = {", nr);
  for (uint32_t i = 0; i < nr; i++) {
    kg_sb_puts(o, i ? ", &" : "&");
    kg_cu_var(E, st->a + i, o);
  }
  kg_sb_printf(o, "}; kg_emu_wgmma(%d, %u, (unsigned long long)(", (st->imm & 0x200) != 0, n);
  kg_cu_ex(E, st->b), kg_sb_puts(o, "), (unsigned long long)("), kg_cu_ex(E, st->c);
  kg_sb_printf(o, "), 1, %d, %d, kg_d_, __LINE__); }\n#endif\n", ta, tb);
}

/* A tensor-core instruction or a shared-memory word store (prelude_tc.h's macros). */
void kg_cu_tc_stmt(const kg_cu_emit *E, const kg_ks *st, int ind) {
  kg_strbuf *o = E->o;
  const kg_kernel *k = E->k;
  if (st->kind == KS_SMEM_ST) {
    static const char *vt[5] = {"", "unsigned", "uint2", "", "uint4"};
    kg_sb_printf(o, "*(%s *)(kg_smem + ", vt[st->imm]);
    kg_cu_ex(E, st->b);
    kg_sb_printf(o, ") = %s(", st->imm == 1 ? "(unsigned)" : st->imm == 2 ? "make_uint2" : "make_uint4");
    for (uint32_t j = 0; j < st->imm; j++) {
      if (j) kg_sb_puts(o, ", ");
      kg_sb_puts(o, k->vars.v[st->c + j].dtype == KG_F32 ? "__float_as_uint(" : "(unsigned)(");
      kg_cu_var(E, st->c + j, o);
      kg_sb_putc(o, ')');
    }
    kg_sb_puts(o, ");\n");
    return;
  }
  switch ((kg_tc_op)st->sub) {
  case KG_TC_MMA_F16:
  case KG_TC_MMA_BF16:
  case KG_TC_MMA_TF32: {
    static const char *m[3] = {"KG_MMA_F16", "KG_MMA_BF16", "KG_MMA_TF32"};
    kg_sb_printf(o, "%s(", m[st->sub]);
    uint32_t first[3] = {st->a, st->b, st->c}, cnt[3] = {4, 4, 2};
    for (int g = 0; g < 3; g++)
      for (uint32_t j = 0; j < cnt[g]; j++) {
        if (g || j) kg_sb_puts(o, ", ");
        kg_cu_var(E, first[g] + j, o);
      }
    kg_sb_puts(o, ");\n");
    return;
  }
  case KG_TC_LDSM:
    kg_sb_printf(o, "KG_LDSM%u%s(", st->imm & 7, st->imm & 8 ? "T" : "");
    for (uint32_t j = 0; j < (st->imm & 7); j++) kg_cu_var(E, st->a + j, o), kg_sb_puts(o, ", ");
    kg_sb_puts(o, "kg_smem + ");
    kg_cu_ex(E, st->b);
    kg_sb_puts(o, ");\n");
    return;
  case KG_TC_CPASYNC:
    kg_sb_puts(o, "KG_CP_ASYNC16(kg_smem + ");
    kg_cu_ex(E, st->c);
    kg_sb_printf(o, ", %s + ", k->params.v[st->a].name);
    kg_cu_ex(E, st->b);
    kg_sb_puts(o, ", ");
    kg_cu_ex(E, st->d);
    kg_sb_puts(o, ");\n");
    return;
  case KG_TC_COMMIT: kg_sb_puts(o, "KG_CP_COMMIT();\n"); return;
  case KG_TC_WAIT: kg_sb_printf(o, "KG_CP_WAIT(%u);\n", st->imm); return;
  case KG_TC_WGMMA: wgmma(E, st, ind); return;
  case KG_TC_WG_FENCE: kg_sb_puts(o, "KG_WG_FENCE();\n"); return;
  case KG_TC_WG_COMMIT: kg_sb_puts(o, "KG_WG_COMMIT();\n"); return;
  case KG_TC_WG_WAIT: kg_sb_printf(o, "KG_WG_WAIT(%u);\n", st->imm); return;
  case KG_TC_MBAR_INIT:
    kg_sb_puts(o, "KG_MBAR_INIT(kg_smem + "), kg_cu_ex(E, st->b), kg_sb_printf(o, ", %u);\n", st->imm);
    return;
  case KG_TC_MBAR_ARRIVE:
    kg_sb_puts(o, "KG_MBAR_ARRIVE_TX(kg_smem + "), kg_cu_ex(E, st->b), kg_sb_puts(o, ", ");
    if (st->c != KG_NONE) kg_cu_ex(E, st->c);
    else kg_sb_putc(o, '0');
    kg_sb_puts(o, ");\n");
    return;
  case KG_TC_MBAR_WAIT:
    kg_sb_puts(o, "KG_MBAR_WAIT(kg_smem + "), kg_cu_ex(E, st->b), kg_sb_puts(o, ", "), kg_cu_ex(E, st->c), kg_sb_puts(o, ");\n");
    return;
  case KG_TC_TMA:
    kg_sb_printf(o, "KG_TMA_LOAD_%uD(kg_smem + ", st->imm), kg_cu_ex(E, st->b), kg_sb_printf(o, ", &%s", k->params.v[st->a].name);
    for (uint32_t i = 0; i < 3; i++) {
      kg_sb_puts(o, ", ");
      if (i < st->imm) kg_cu_var(E, st->c + i, o);
      else kg_sb_putc(o, '0');
    }
    kg_sb_puts(o, ", kg_smem + "), kg_cu_ex(E, st->d), kg_sb_puts(o, ");\n");
    return;
  case KG_TC_FENCE_INIT: kg_sb_puts(o, "KG_FENCE_INIT();\n"); return;
  case KG_TC_SETMAXNREG: kg_sb_printf(o, "KG_SETMAXNREG_%s(%u);\n", st->imm & 0x1000 ? "INC" : "DEC", st->imm & 0xfff); return;
  }
}

