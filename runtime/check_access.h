/* runtime/check_access.h — internal: what the PyTorch check kit (check/) may read of the
 * library beyond the public API (kgen.h). Nothing else outside runtime/ should include it.
 *
 * The check kit is a client of kgen.h — it loads, specializes and runs entries through the
 * public calls — but a cross-check needs three things the public API does not give, and
 * should not give to .NET or other users:
 *   - the typed program of a compiled entry: random inputs are constrained by what reads
 *     them (integer divisors never 0, shift counts in [0, 8)), a program with half
 *     precision gets its TorchScript twin in CPU-reference mode, and the twin is emitted
 *     with options kg_emit does not take;
 *   - device memory, to stage host tensors through a CUDA device (`kgen run`/`check` on a
 *     GPU with .npy files);
 *   - the context's last error, so that its own failures (a temp folder, a .npy file, the
 *     oracle) read like any other kgen error.
 * These are functions rather than the structures of api_int.h so that the kit does not
 * depend on the layout of kg_compiled and kg_context. Implemented in check_access.c, except
 * where a section says otherwise (they are also used inside the library).
 */
#ifndef KG_CHECK_ACCESS_H
#define KG_CHECK_ACCESS_H

#include "../codegen-cuda/codegen.h"
#include "../ir/ir.h"
#include "kgen.h"
#include "rt.h"

/* ---- check_access.c ---- */
/* The typed program of a compiled entry (the TorchScript twin's source; with a host plan,
 * the program of the whole entry). Valid while c lives. */
const kg_graph *kg_compiled_graph(const kg_compiled *c);
/* The context a compiled entry belongs to. */
kg_context *kg_compiled_context(const kg_compiled *c);
/* The TorchScript (or eager-Python) twin of a compiled entry, with its loops and branches
 * when it has a host plan, appended to `out`; false with a diagnostic in d. */
bool kg_compiled_twin(const kg_compiled *c, const kg_ts_opts *o, kg_strbuf *out, kg_diag *d);
/* Makes `d` the context's last error (as a failing API call would) and returns the status
 * it means: KG_ERR_INTERNAL when it holds an internal or device error, else KG_ERR_INPUT. */
kg_status kg_ctx_report(kg_context *ctx, const kg_diag *d);

/* ---- exec.c ---- */
/* The context's device of `kind` (created on first use); NULL with a diagnostic in d when
 * it cannot be had (no driver, no GPU). */
kg_device *kg_ctx_device(kg_context *ctx, kg_device_kind kind, kg_diag *d);

/* ---- api.c ---- */
/* DLPack dtypes (KG_DT_NONE when kgen has no such dtype) */
kg_dtype kg_dtype_from_dl(DLDataType t);
DLDataType kg_dtype_to_dl(kg_dtype t);
/* C-identifier form of an entry name (file names of the kit's artifacts) */
const char *kg_entry_cname(kg_arena *a, const char *entry);

#endif
