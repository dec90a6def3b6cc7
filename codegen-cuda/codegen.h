/* codegen-cuda/codegen.h — the printers: the only code that builds program text.
 *
 * Sections, one per source file:
 *   cuda.c        — kernel IR → CUDA C in the common subset of C11 and CUDA C++
 *                   (one translation unit for all kernels of an entry), plus the
 *                   emulator trampolines.
 *   torchscript.c — typed tensor program → TorchScript and the plain eager-Python
 *                   twin, one torch call per op; map lambdas vectorized by ts_map.c
 *                   (branches become torch.where, loops become masked loops), the
 *                   host plan's control flow written by ts_plan.c (shared: ts_int.h).
 *   kg_emu.h      — the emulation header that lets the host C compiler build the
 *                   very same CUDA C text (embedded into the library at build time).
 *   cpu.c, kg_cpu.h — the CPU device's glue: loop drivers for kernels whose threads never
 *                   cooperate (the header embedded like kg_emu.h).
 */
#ifndef KG_CODEGEN_H
#define KG_CODEGEN_H

#include <stdbool.h>

#include "../ir/ir.h"
#include "../support/support.h"

/* ---- cuda.c ---- */
/* Emits all kernels of one entry as one CUDA C translation unit. `program` names
 * it in the header comment. */
void kg_cuda_emit(const kg_kernel *const *kernels, uint32_t n, const char *program, kg_strbuf *out);
/* Emulator glue: one `void K__kg_thread(void **p)` per kernel. */
void kg_cuda_emit_trampolines(const kg_kernel *const *kernels, uint32_t n, kg_strbuf *out);

/* ---- cpu.c ---- */
/* The CPU device's glue: a loop driver `void K__kg_cpu(void **p, const kg_cpu_range *r)` per
 * kernel whose threads never cooperate (kg_kernel_cooperates), the emulator's trampoline per
 * other kernel (codegen-cuda/kg_cpu.h). False, and nothing emitted, when a kernel uses
 * tensor-core instructions (kg_kernel_tensor_cores): the CPU device does not run those. */
bool kg_cuda_emit_cpu_glue(const kg_kernel *const *kernels, uint32_t n, kg_strbuf *out);
/* What the CPU device's translation unit has before the kernel text: compiler pragmas the
 * kernels' CPU schedules need ("" for most). */
void kg_cuda_emit_cpu_prologue(const kg_kernel *const *kernels, uint32_t n, kg_strbuf *out);

/* ---- torchscript.c ---- */
typedef struct kg_ts_opts {
  bool eager_python; /* emit the plain eager-Python twin (module with imports) instead of TorchScript */
  bool upcast_half;  /* reference mode for CPU PyTorch: float16/bfloat16 values are carried in
                        float32 and rounded to their dtype after every op that yields them */
} kg_ts_opts;

/* Emits `def <entry>(params..., captures...)` (plus helpers it needs). Parameters
 * are tensors; a scalar parameter arrives as a 0-dim tensor and is converted to
 * a Python number first. Returns false (with a diagnostic) for a program it cannot
 * express. */
bool kg_ts_emit(const kg_graph *g, const kg_ts_opts *opts, kg_strbuf *out, kg_diag *d);
/* The same for an entry with a host plan (plan NULL: kg_ts_emit): its loops, whiles,
 * ifs, item() reads, views and sizes become Python control flow over the program's
 * nodes. The plan must be the elaborated one (NODES steps, not yet partitioned). */
bool kg_ts_emit_plan(const kg_graph *g, const kg_plan *plan, const kg_ts_opts *opts, kg_strbuf *out, kg_diag *d);
/* The Python function name kg_ts_emit gives the entry. */
const char *kg_ts_entry_name(const kg_graph *g, kg_arena *a);
/* The Python identifier used for parameter i of g (sanitized, unique). */
const char *kg_ts_param_name(const kg_graph *g, uint32_t i, kg_arena *a);

#endif
