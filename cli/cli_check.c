/* cli/cli_check.c — `kgen check`: prints the cross-check's verdicts
 * (check/check.c does the work). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int kg_cli_check(kg_context *ctx, kg_cli_args *a) {
  kg_module *m;
  kg_status s = kg_module_load_file(ctx, a->file, &m);
  if (s) return kg_cli_status(ctx, s);
  kg_diag d;
  kg_diag_init(&d);
  kg_oracle *orc = kg_oracle_start(&d);
  if (!orc) {
    char *t = kg_diag_format(&d);
    fputs(t, stderr);
    free(t);
    kg_diag_free(&d);
    kg_module_free(m);
    return 2;
  }
  kg_check_opts o;
  memset(&o, 0, sizeof o);
  o.entry = a->entry, o.sig = a->sig, o.seed = a->seed, o.device = a->device, o.keep_dir = a->keep;
  o.size_names = a->size_name, o.size_vals = a->size_val, o.n_sizes = a->n_size;
  o.grad = a->grad, o.fd = a->fd;
  kg_cli_variant_apply(&a->var, NULL, &o);
  kg_device_kind dk = a->device == KG_DEVICE_AUTO ? kg_default_device(ctx) : a->device;
  char vs[128];
  kg_cli_variant_str(&a->var, vs, sizeof vs);
  printf("kgen check %s: entry %s, seed %llu, device %s%s%s\n", a->file, a->entry ? a->entry : kg_module_entry_name(m, 0), a->seed,
         dk == KG_DEVICE_CUDA ? "cuda" : dk == KG_DEVICE_CPU ? "cpu" : "emu", *vs ? "," : "", vs);
  kg_check_result r;
  s = kg_check_module(ctx, orc, m, &o, &r);
  int rc = 0;
  if (s) rc = kg_cli_status(ctx, s);
  else {
    if (r.warnings) fputs(r.warnings, stderr);
    for (int i = 0; i < r.n_outputs; i++)
      printf("  %-5s %-8s %-16s max_abs %-10.3g max_rel %-10.3g %s\n", r.row_names[i], r.rows[i].dtype, r.rows[i].shape, r.rows[i].max_abs,
             r.rows[i].max_rel, r.rows[i].verdict);
    for (int i = 0; i < r.n_grads; i++)
      printf("  %-12s %-8s %-16s max_abs %-10.3g max_rel %-10.3g %s%s%s\n", r.grad_names[i], r.grad_rows[i].dtype, r.grad_rows[i].shape,
             r.grad_rows[i].max_abs, r.grad_rows[i].max_rel, r.grad_rows[i].verdict, r.grad_rows[i].fd_verdict[0] ? " | " : "", r.grad_rows[i].fd_verdict);
    if (a->grad)
      printf("gradients: %d checked against the twin's autograd%s (forward %d kernel%s saving %d value%s, backward %d kernel%s)\n", r.n_grads,
             a->fd ? " and finite differences" : "", r.n_kernels_fwd, r.n_kernels_fwd == 1 ? "" : "s", r.n_saved, r.n_saved == 1 ? "" : "s",
             r.n_kernels_bwd, r.n_kernels_bwd == 1 ? "" : "s");
    if (r.all_ok && r.n_outputs > r.n_results)
      printf("%d output(s) and %d tensor(s) updated in place match PyTorch (%d kernel%s)\n", r.n_results, r.n_outputs - r.n_results, r.n_kernels,
             r.n_kernels == 1 ? "" : "s");
    else if (r.all_ok) printf("%d output(s) match PyTorch (%d kernel%s)\n", r.n_outputs, r.n_kernels, r.n_kernels == 1 ? "" : "s");
    else {
      printf("MISMATCH: some outputs differ from PyTorch; inputs, outputs and the %s twin are kept in %s\n", a->var.eager ? "eager-Python" : "TorchScript", r.dir);
      rc = 2;
    }
  }
  kg_check_result_free(&r);
  kg_oracle_stop(orc);
  kg_diag_free(&d);
  kg_module_free(m);
  return rc;
}
