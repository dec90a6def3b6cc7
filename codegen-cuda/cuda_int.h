/* codegen-cuda/cuda_int.h — what cuda.c (kernel IR → CUDA C) shares with cuda_tc.c (the
 * tensor-core statements). Internal to codegen-cuda/. */
#ifndef KG_CUDA_INT_H
#define KG_CUDA_INT_H

#include "codegen.h"

typedef struct kg_cu_emit {
  const kg_kernel *k;
  kg_strbuf *o;
  unsigned plant; /* planted faults (cuda.c's file-top comment): 0 outside tests */
} kg_cu_emit;

/* cuda.c: an expression; a variable's C name */
void kg_cu_ex(const kg_cu_emit *E, uint32_t e);
void kg_cu_var(const kg_cu_emit *E, uint32_t v, kg_strbuf *o);
/* cuda_tc.c: a KS_TC or KS_SMEM_ST statement at indentation ind (the first line already indented) */
void kg_cu_tc_stmt(const kg_cu_emit *E, const kg_ks *st, int ind);

#endif
