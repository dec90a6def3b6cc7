/* check/check.h — the PyTorch check kit: kgen's kernels checked against PyTorch.
 *
 * Why a folder of its own: the check kit is a client of the library, not part of it.
 * libkgen (which .NET loads and the NuGet package ships) holds what a user links — API,
 * compile driver, plan executor, devices, cache, NVRTC; the kit adds what only testing
 * needs — .npy files, random inputs, host tensors staged through a device, a Python
 * process running PyTorch (check/oracle.py, embedded into this library, not libkgen) —
 * and is built as the static library kgen_check that the `kgen` command (cli/), the
 * tests and the benchmarks link. It calls the public API (runtime/kgen.h) and, for the
 * few things a cross-check needs beyond it (the typed program, device memory, the
 * context's last error), the accessors of runtime/check_access.h — never api_int.h.
 *
 * Sections, one per source file:
 *   npy.c     — NumPy .npy read / write (v1.0/2.0/3.0, little endian, C order) and
 *               random test inputs in PyTorch make_tensor ranges.
 *   oracle.c  — one long-lived /usr/bin/python3 process running check/oracle.py
 *               (embedded as kg_oracle_py_text), fed jobs over a socket.
 *   host.c    — host tensors: .npy arrays as DLTensors, host buffers for an entry's
 *               outputs, and runs with host tensors on any device (CUDA: staged).
 *   check.c   — the cross-check of one entry (kgen check, the example tests).
 */
#ifndef KG_CHECK_H
#define KG_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../runtime/kgen.h"
#include "../support/support.h"

/* ---- npy.c ---- */
typedef struct kg_npy {
  int dtype;        /* kg_dtype (ir.h) */
  int rank;
  int64_t shape[8];
  void *data;       /* malloc'd, C-contiguous */
  size_t nbytes;
} kg_npy;

int kg_npy_read(const char *path, kg_npy *out, kg_diag *d);
int kg_npy_write(const char *path, const kg_npy *a, kg_diag *d);
void kg_npy_free(kg_npy *a);

/* Bytes of a tensor of `rank` dims `shape` and elements of `elsize` bytes; false when the
 * product overflows (sizes given by a user: --size, a document, a .npy header). */
bool kg_tensor_bytes(const int64_t *shape, int rank, size_t elsize, size_t *bytes);
/* Fills `a` (allocating data) with deterministic random values of `dtype` in
 * PyTorch make_tensor ranges: floats in [-9, 9], signed ints in [-9, 10), unsigned
 * in [0, 10), bool {0, 1}. nonzero: never 0 (integer divisors). Returns -1 (a->data NULL)
 * when the tensor is too large to allocate. */
int kg_npy_random(kg_npy *a, int dtype, int rank, const int64_t *shape, uint64_t seed,
                   bool nonzero);
/* The same in [range[0], range[1]) when range is not NULL (a signature's "range":
 * kg_sig_param.has_range): floats uniform, integers from ceil(lo) to ceil(hi) - 1. */
int kg_npy_random_in(kg_npy *a, int dtype, int rank, const int64_t *shape, uint64_t seed, bool nonzero,
                     const double *range);

/* ---- oracle.c ---- */
typedef struct kg_oracle kg_oracle;

typedef struct kg_oracle_job {
  const char *script;        /* path of the TorchScript (or eager Python) source */
  const char *fn;            /* function to call in it */
  bool torchscript;          /* compile with torch.jit.CompilationUnit (else exec as Python) */
  const char **inputs;       /* .npy paths, parameter order */
  int n_inputs;
  const char **capture_names;/* keyword arguments, same order as captures */
  const char **captures;     /* .npy paths */
  int n_captures;
  const char **ours;         /* our outputs, .npy paths, output order */
  int n_outputs;
  const char **expect_dtypes;/* torch dtype names the outputs must have */
  /* parameters the function changes in place (kg_compiled_writeback): their values after the
   * call are compared as outputs n_outputs - n_mutated .. n_outputs - 1, in this order */
  const int *mutated_input;        /* input index, or -1 for a capture */
  const char *const *mutated_capture; /* capture name (mutated_input -1) */
  int n_mutated;
  double tol_scale;          /* multiplies rtol and atol (1 = reliability.md defaults) */
  /* grad: the job is the gradients' check instead (oracle op "grad"): the twin's autograd of
   * Σ_i Σ result_i · weights_i with respect to the wanted parameters, compared with ours (one .npy
   * per wanted parameter, in order; expect_dtypes theirs); weights[i] is NULL for a result that
   * takes no part (integer, bool); fd adds float64 central finite differences of the twin as a
   * further opinion (fd_* of each row) */
  bool grad, fd;
  const char **weights;
  int n_weights;
  const int *grad_input;           /* per wanted parameter: input index, or -1 for a capture */
  const char *const *grad_capture; /* its capture name (grad_input -1) */
} kg_oracle_job;

typedef struct kg_oracle_row {
  char dtype[16];     /* our output dtype */
  char shape[96];     /* "[4, 7]" */
  double max_abs;     /* max |ours - ref| over finite elements */
  double max_rel;     /* max |ours - ref| / |ref| */
  char verdict[96];   /* "ok (allclose)", "ok (rmse vs fp64)", "MISMATCH ...", "dtype ..." */
  bool ok;
  /* a gradient's row: the finite differences' opinion ("" when not computed) */
  char fd_verdict[64];
  double fd_max_abs;
  bool fd_ok;
} kg_oracle_row;

/* Starts the oracle ($KGEN_PYTHON, else /usr/bin/python3). Records KG_E_DEVICE when
 * Python or torch is missing. */
kg_oracle *kg_oracle_start(kg_diag *d);
void kg_oracle_stop(kg_oracle *o);
/* Runs one job; rows[n_outputs] receive the verdicts. Returns 0 when the job ran
 * (whatever the verdicts), -1 when the reference itself failed (diagnostic has the
 * Python error). */
int kg_oracle_check(kg_oracle *o, const kg_oracle_job *job, kg_oracle_row *rows, kg_diag *d);
extern const char kg_oracle_py_text[];

/* ---- host.c ---- */
/* A DLTensor view of a host array (kDLCPU, C-contiguous: strides NULL). */
void kg_npy_dlview(kg_npy *a, DLTensor *t);
/* Host buffers for an entry's outputs (64 bytes of slack each); a size too large to allocate
 * is an input error (kg_last_error says which output), not an abort. */
kg_status kg_alloc_host_outputs(kg_compiled *c, kg_npy *outs, DLTensor *views, DLTensor **ptrs);
/* Runs with host tensors on any device: the emulator uses them in place; for CUDA
 * they are staged through device memory (scalar parameters stay on the host). */
kg_status kg_run_host(kg_compiled *c, kg_device_kind dev, const DLTensor **ins, int n_in, const kg_named_tensor *caps,
                      int n_cap, DLTensor **outs, int n_out);

/* ---- check.c ---- */
typedef struct kg_check_opts {
  const char *entry, *sig;
  unsigned long long seed;
  kg_device_kind device;
  const char *keep_dir;        /* keep inputs / outputs / twin here (else a temp dir, removed on success) */
  const char *const *size_names;
  const long long *size_vals;
  int n_sizes;
  bool sizes_if_present;       /* a --size naming a size the entry lacks is passed over, not an error
                                  (the fuzzer's schedule variants, one size set for every program) */
  double tol_scale;            /* 0 = 1 */
  bool eager_python;           /* check the eager-Python twin instead of TorchScript */
  bool strided_inputs;         /* pass non-contiguous inputs: the last two dims stored transposed with
                                  the rows padded, a vector every other element (PyTorch gets the
                                  same values, contiguous) */
  bool grad;                   /* also the gradients (check_grad.c): of every floating tensor input and
                                  capture, kgen's backward against the twin's autograd */
  bool fd;                     /* with grad: float64 finite differences too (small sizes) */
} kg_check_opts;

typedef struct kg_check_result {
  int n_outputs, n_kernels;    /* rows: the entry's outputs, then the inputs / captures it updates in place */
  int n_results;               /* the entry's outputs among them */
  const char **row_names;      /* per row: "out0", ..., then "x (in place)" */
  kg_oracle_row *rows;
  bool all_ok;
  char dir[4096];              /* where the files were kept ("" when removed) */
  char *warnings;              /* kg_compiled_warnings of the entry (malloc'd; "" when none) */
  unsigned sizes_absent;       /* bit i: size_names[i] named no size of the entry and was passed over
                                  (sizes_if_present) */
  /* grad: one row per gradient (grad_names: "x", "w (capture)"); all_ok covers them */
  int n_grads, n_kernels_fwd, n_kernels_bwd, n_saved;
  const char **grad_names;
  kg_oracle_row *grad_rows;
} kg_check_result;

kg_status kg_check_module(kg_context *ctx, kg_oracle *orc, kg_module *m, const kg_check_opts *o, kg_check_result *r);

/* ---- check_grad.c ---- */
/* What kg_check_module hands the gradients' check: the inputs it made (their .npy files, which the
 * backward's run reads afresh: a forward that updates an input in place changed the arrays), the
 * twin it wrote, the folder. */
typedef struct kg_grad_check_in {
  const char *entry;
  const char **in_paths, **cap_paths, **cap_names; /* cap_names: the captures' names, n_cap of them */
  int n_in, n_cap;
  const char *script, *fn;     /* the twin (TorchScript or eager) */
  const char *dir;
  kg_arena *A;
  const uint8_t *mutated;      /* per input, then capture: updated in place (a running statistic) */
} kg_grad_check_in;
kg_status kg_check_grad(kg_context *ctx, kg_oracle *orc, kg_module *m, const kg_check_opts *o, const kg_grad_check_in *in, kg_check_result *r,
                        kg_diag *d);
void kg_check_result_free(kg_check_result *r);

#endif
