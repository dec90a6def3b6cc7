/* ir/ops.c — accessors for the op table (ops.def). The table is the single
 * source of truth for op names, arity, typing class and TorchScript spelling. */
#include "ir.h"

static const kg_op_info op_table[KG_OP__COUNT] = {
#define KG_OP(name, ar, fl, ts, sem) {#name, ar, fl, ts, sem},
#include "ops.def"
#undef KG_OP
};

const kg_op_info *kg_op_get(kg_op op) {
  KG_ASSERT((unsigned)op < KG_OP__COUNT);
  return &op_table[op];
}
const char *kg_op_name(kg_op op) { return kg_op_get(op)->name; }
