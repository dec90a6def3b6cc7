/* cli/cli.c — the `kgen` command line: a thin client of kgen.h.
 *
 *   kgen compile FILE [--entry NAME] [--sig SIG] [--arch sm_80,sm_90]
 *                [--emit cuda,ptx,cubin,torchscript,python,ir] -o DIR
 *   kgen run     FILE [--entry NAME] --in A.npy ... [--capture NAME=C.npy] --out DIR
 *                [--device auto|cuda|emu|cpu|null] [--stats]
 *   kgen check   FILE [--entry NAME] [--seed N] [--size SYM=N] [--device ...] [--keep DIR] [--grad [--fd]]
 *   kgen explain FILE [--entry NAME] [--sig SIG] [--grad]
 *   kgen fuzz    [--seed N] [--count N] [--time S] [--ops LIST] [--out DIR] [--keep]
 *   kgen reduce  FILE [--entry NAME] [--seed N] [--out DIR] [--timeout S]
 *   kgen package FILE.json... [--entry NAME]... [--sig SIG]... [--arch sm_80,...|none] -o OUT.kgpkg
 *
 * run, check and explain take an offline kernel package (.kgpkg) as FILE too.
 * Exit status: 0 success, 1 bad input (diagnostics on stderr), 2 internal error
 * (including a result that does not match PyTorch in `check`).
 * `check` lives in cli_check.c, `fuzz` in cli_fuzz.c (its generator in fuzz_gen.c), `reduce`
 * in cli_reduce.c (its edits in reduce_edits.c; the F# rendering in fs_render.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

#include "../frontend/frontend.h" /* kg_member_doc: `kgen ops` */

static void usage(FILE *f) {
  fprintf(f,
          "kgen %s — F# quotations (JSON) to fused CUDA kernels\n\n"
          "usage:\n"
          "  kgen compile FILE [--entry NAME] [--sig SIG] [--arch sm_80,sm_90] [--emit KINDS] -o DIR\n"
          "      KINDS: comma-separated of cuda, ptx, cubin, torchscript, python, ir (default cuda,ptx,torchscript,python,ir)\n"
          "  kgen run FILE [--entry NAME] --in A.npy ... [--capture NAME=C.npy] --out DIR [--device auto|cuda|emu|cpu|null] [--stats]\n"
          "      [--variant 0-7] [--emu-arch 80|90] [--f32-matmul split-tf32|tf32|simt] [--no-replay] as for check\n"
          "  kgen check FILE [--entry NAME] [--seed N] [--size SYM=N] [--device auto|cuda|emu|cpu] [--keep DIR]\n"
          "      [--variant 0-7] [--order 0-2] [--eager] [--strided] [--emu-arch 80|90] [--f32-matmul split-tf32|tf32|simt] [--no-replay]:\n"
          "      a forced schedule (6: tensor cores wherever they apply, 7: none), the emulator's thread order,\n"
          "      the eager-Python twin, non-contiguous inputs; [--grad [--fd]]: the gradients of every floating input and\n"
          "      capture too, against the twin's autograd (and float64 finite differences)\n"
          "  kgen explain FILE [--entry NAME] [--sig SIG] [--grad]: --grad: the forward and backward compiled for gradients,\n"
          "      what the forward saves and what the backward recomputes\n"
          "  kgen fuzz [--seed N] [--count N] [--time S] [--ops LIST] [--out DIR] [--keep] [--variant-every K] [--grad-every K] [--jobs J]\n"
          "      random programs checked against PyTorch (docs/fuzz.md); LIST of families:\n"
          "      arith,unary,cmp,cast,reduce,intops,act,norm,layout,matmul,cf,inplace,\n"
          "      conv,pool,cnorm,resample,random,capture,scalar,nan (default all)\n"
          "  kgen reduce FILE [--entry NAME] [--seed N] [--out DIR] [--timeout S] [--variant N] [--order N] [--eager] [--strided] [--device cpu]\n"
          "      shrinks a failing document while the same failure happens (docs/fuzz.md); exit 3: it does not fail\n"
          "  kgen package FILE.json... [--entry NAME]... [--sig SIG]... [--arch sm_80,sm_86,sm_89,sm_90|none] -o OUT.kgpkg\n"
          "      an offline kernel package (docs/package.md); run, check and explain take it as FILE\n"
          "  kgen ops          (the supported-ops table)\n"
          "  kgen version\n\n"
          "SIG: a JSON signature object or \"float32[B,1024], float32[1024], float32\"\n"
          "exit status: 0 success, 1 bad input (or a finding in fuzz), 2 internal error (or a mismatch in check)\n",
          KGEN_VERSION_STRING);
}

int kg_cli_size_arg(char *arg, const char **name, long long *val) {
  char *eq = strchr(arg, '=');
  if (!eq || eq == arg) return fprintf(stderr, "kgen: --size wants SYMBOL=N, not '%s'\n", arg), -1;
  char *end;
  errno = 0;
  long long n = strtoll(eq + 1, &end, 10);
  if (end == eq + 1 || *end)
    return fprintf(stderr, "kgen: --size %s: '%s' is not a whole number\n", arg, eq + 1), -1;
  if (errno == ERANGE)
    return fprintf(stderr, "kgen: --size %s: the size does not fit 64 bits (a size is at most %lld)\n", arg, (long long)INT64_MAX), -1;
  if (n < 0) return fprintf(stderr, "kgen: --size %s: a size is 0 or more\n", arg), -1;
  *eq = 0;
  *name = arg, *val = n;
  return 0;
}

int kg_cli_variant_opt(int argc, char **argv, int *i, kg_cli_variant *v) {
  const char *s = argv[*i];
  if (!strcmp(s, "--eager")) return v->eager = true, 1;
  if (!strcmp(s, "--strided")) return v->strided = true, 1;
  if (!strcmp(s, "--size")) {
    if (*i + 1 >= argc) return fprintf(stderr, "kgen: --size needs a value\n"), -1;
    if (v->n_size == 4) return fprintf(stderr, "kgen: --size given more than 4 times\n"), -1;
    if (kg_cli_size_arg(argv[++*i], &v->size_name[v->n_size], &v->size_val[v->n_size]) != 0) return -1;
    v->n_size++;
    return 1;
  }
  if (!strcmp(s, "--no-replay")) return v->no_replay = true, 1;
  if (!strcmp(s, "--device")) { /* kgen reduce's (kgen check reads --device itself) */
    if (*i + 1 >= argc || strcmp(argv[*i + 1], "cpu"))
      return fprintf(stderr, "kgen: --device here takes cpu (the CPU device; the emulator is the default), not '%s'\n", *i + 1 < argc ? argv[*i + 1] : ""), -1;
    return ++*i, v->cpu = true, 1;
  }
  if (!strcmp(s, "--emu-arch")) {
    if (*i + 1 >= argc) return fprintf(stderr, "kgen: --emu-arch needs a value\n"), -1;
    const char *a = argv[++*i];
    if (strcmp(a, "80") && strcmp(a, "90")) return fprintf(stderr, "kgen: --emu-arch wants 80 or 90, not '%s'\n", a), -1;
    v->emu_arch = atoi(a);
    return 1;
  }
  if (!strcmp(s, "--f32-matmul")) {
    if (*i + 1 >= argc) return fprintf(stderr, "kgen: --f32-matmul needs a value\n"), -1;
    const char *a = argv[++*i];
    static const char *const modes[3] = {"split-tf32", "tf32", "simt"};
    for (int m = 0; m < 3; m++)
      if (!strcmp(a, modes[m])) return v->f32 = m, 1;
    return fprintf(stderr, "kgen: --f32-matmul wants split-tf32, tf32 or simt, not '%s'\n", a), -1;
  }
  bool force = !strcmp(s, "--variant");
  if (!force && strcmp(s, "--order")) return 0;
  if (*i + 1 >= argc) return fprintf(stderr, "kgen: %s needs a value\n", s), -1;
  char *end;
  long n = strtol(argv[++*i], &end, 10);
  if (*end || n < 0 || n > (force ? 7 : 2))
    return fprintf(stderr, "kgen: %s wants %s, not '%s'\n", s, force ? "0-7" : "0 (forward), 1 (reverse) or 2 (random)", argv[*i]), -1;
  if (force) v->force = (int)n;
  else v->order = (int)n;
  return 1;
}

void kg_cli_variant_str(const kg_cli_variant *v, char *buf, size_t cap) {
  int n = snprintf(buf, cap, "%s%.0d%s%.0d%s%s", v->force ? " --variant " : "", v->force, v->order ? " --order " : "", v->order,
                   v->eager ? " --eager" : "", v->strided ? " --strided" : "");
  static const char *const modes[3] = {"split-tf32", "tf32", "simt"};
  if (v->emu_arch && n > 0 && (size_t)n < cap) n += snprintf(buf + n, cap - (size_t)n, " --emu-arch %d", v->emu_arch);
  if (v->f32 && n > 0 && (size_t)n < cap) n += snprintf(buf + n, cap - (size_t)n, " --f32-matmul %s", modes[v->f32 % 3]);
  if (v->no_replay && n > 0 && (size_t)n < cap) n += snprintf(buf + n, cap - (size_t)n, " --no-replay");
  if (v->cpu && n > 0 && (size_t)n < cap) n += snprintf(buf + n, cap - (size_t)n, " --device cpu");
  for (int i = 0; i < v->n_size && n > 0 && (size_t)n < cap; i++) n += snprintf(buf + n, cap - (size_t)n, " --size %s=%lld", v->size_name[i], v->size_val[i]);
}

void kg_cli_variant_apply(const kg_cli_variant *v, kg_options *o, kg_check_opts *co) {
  if (o) o->force_variant = v->force, o->emu_thread_order = v->order, o->emu_seed = 12345, o->emu_arch = v->emu_arch, o->f32_matmul = v->f32, o->no_replay = v->no_replay;
  if (co) co->eager_python = v->eager, co->strided_inputs = v->strided;
  if (co && v->cpu) co->device = KG_DEVICE_CPU;
  if (co && v->n_size) co->size_names = v->size_name, co->size_vals = v->size_val, co->n_sizes = v->n_size;
}

int kg_cli_status(kg_context *ctx, kg_status s) {
  if (s == KG_OK) return 0;
  fputs(kg_last_error(ctx), stderr);
  return s == KG_ERR_INPUT ? 1 : 2;
}

int kg_cli_parse(int argc, char **argv, kg_cli_args *a) {
  memset(a, 0, sizeof *a);
  a->device = KG_DEVICE_AUTO;
  int vr;
  for (int i = 2; i < argc; i++) {
    const char *s = argv[i];
#define NEXT()                                                            \
  do {                                                                    \
    if (i + 1 >= argc) {                                                  \
      fprintf(stderr, "kgen: %s needs a value\n", s);                     \
      return -1;                                                          \
    }                                                                     \
  } while (0)
    if (!strcmp(s, "--entry")) { NEXT(); a->entry = argv[++i]; }
    else if (!strcmp(s, "--grad")) a->grad = true;
    else if (!strcmp(s, "--fd")) a->grad = a->fd = true;
    else if (!strcmp(s, "--sig")) { NEXT(); a->sig = argv[++i]; }
    else if (!strcmp(s, "--arch")) { NEXT(); a->arch = argv[++i]; }
    else if (!strcmp(s, "--emit")) { NEXT(); a->emit = argv[++i]; }
    else if (!strcmp(s, "-o") || !strcmp(s, "--out")) { NEXT(); a->out = argv[++i]; }
    else if (!strcmp(s, "--keep")) { NEXT(); a->keep = argv[++i]; }
    else if (!strcmp(s, "--seed")) { NEXT(); a->seed = strtoull(argv[++i], NULL, 10); }
    else if (!strcmp(s, "--in")) {
      NEXT();
      if (a->n_in == KG_CLI_MAX) return fprintf(stderr, "kgen: too many --in\n"), -1;
      a->in[a->n_in++] = argv[++i];
    } else if (!strcmp(s, "--capture")) {
      NEXT();
      if (a->n_cap == KG_CLI_MAX) return fprintf(stderr, "kgen: too many --capture\n"), -1;
      char *eq = strchr(argv[++i], '=');
      if (!eq) return fprintf(stderr, "kgen: --capture wants NAME=FILE.npy\n"), -1;
      *eq = 0;
      a->cap_name[a->n_cap] = argv[i];
      a->cap[a->n_cap++] = eq + 1;
    } else if (!strcmp(s, "--size")) {
      NEXT();
      if (a->n_size == KG_CLI_MAX) return fprintf(stderr, "kgen: too many --size\n"), -1;
      if (kg_cli_size_arg(argv[++i], &a->size_name[a->n_size], &a->size_val[a->n_size]) != 0) return -1;
      a->n_size++;
    } else if (!strcmp(s, "--device")) {
      NEXT();
      const char *d = argv[++i];
      if (!strcmp(d, "auto")) a->device = KG_DEVICE_AUTO;
      else if (!strcmp(d, "cuda")) a->device = KG_DEVICE_CUDA;
      else if (!strcmp(d, "emu")) a->device = KG_DEVICE_EMU;
      else if (!strcmp(d, "null")) a->device = KG_DEVICE_NULL;
      else if (!strcmp(d, "cpu")) a->device = KG_DEVICE_CPU;
      else return fprintf(stderr, "kgen: unknown device '%s' (auto, cuda, emu, cpu, null)\n", d), -1;
    } else if (!strcmp(s, "--stats")) {
      a->stats = 1;
    } else if (s[0] == '-' && (vr = kg_cli_variant_opt(argc, argv, &i, &a->var)) != 0) {
      if (vr < 0) return -1;
    } else if (s[0] == '-') {
      fprintf(stderr, "kgen: unknown option %s\n", s);
      return -1;
    } else if (!a->file) {
      a->file = s;
    } else {
      fprintf(stderr, "kgen: unexpected argument %s\n", s);
      return -1;
    }
#undef NEXT
  }
  if (!a->file) {
    fprintf(stderr, "kgen: missing FILE\n");
    return -1;
  }
  return 0;
}

/* ---- compile ---- */

static int write_artifact(kg_context *ctx, kg_compiled *c, kg_artifact kind, int arch, const char *path) {
  char *data;
  size_t len;
  kg_status s = kg_emit(c, kind, arch, &data, &len);
  if (s != KG_OK) return kg_cli_status(ctx, s);
  if (kg_write_file(path, data, len) != 0) {
    fprintf(stderr, "kgen: cannot write %s: %s\n", path, strerror(errno));
    free(data);
    return 1;
  }
  printf("  wrote %s (%zu bytes)\n", path, len);
  free(data);
  return 0;
}

static bool has_kind(const char *list, const char *k) {
  size_t n = strlen(k);
  for (const char *p = list; p && *p;) {
    const char *e = strchr(p, ',');
    size_t l = e ? (size_t)(e - p) : strlen(p);
    if (l == n && strncmp(p, k, n) == 0) return true;
    p = e ? e + 1 : NULL;
  }
  return false;
}

static int cmd_compile(kg_context *ctx, kg_cli_args *a) {
  if (!a->out) return fprintf(stderr, "kgen compile: -o DIR is required\n"), 1;
  const char *emit = a->emit ? a->emit : "cuda,ptx,torchscript,python,ir";
  static const char *known[] = {"cuda", "ptx", "cubin", "torchscript", "python", "ir"};
  for (const char *p = emit; p && *p;) {
    const char *e = strchr(p, ',');
    size_t l = e ? (size_t)(e - p) : strlen(p);
    bool ok = false;
    for (size_t i = 0; i < KG_COUNTOF(known); i++) ok |= strlen(known[i]) == l && !strncmp(known[i], p, l);
    if (!ok) return fprintf(stderr, "kgen compile: unknown --emit kind '%.*s'\n", (int)l, p), 1;
    p = e ? e + 1 : NULL;
  }
  int archs[16], n_arch = 0;
  const char *al = a->arch ? a->arch : "sm_80";
  for (const char *p = al; p && *p && n_arch < 16;) {
    int v;
    if (sscanf(p, "sm_%d", &v) != 1 && sscanf(p, "%d", &v) != 1) return fprintf(stderr, "kgen compile: bad --arch '%s'\n", p), 1;
    if (v < 75 || v > 121) return fprintf(stderr, "kgen compile: arch sm_%d outside sm_75 … sm_121\n", v), 1;
    archs[n_arch++] = v;
    const char *e = strchr(p, ',');
    p = e ? e + 1 : NULL;
  }
  kg_module *m;
  kg_status s = kg_module_load_file(ctx, a->file, &m);
  if (s) return kg_cli_status(ctx, s);
  kg_compiled *c;
  s = kg_specialize(m, a->entry, a->sig, &c);
  if (s) {
    int r = kg_cli_status(ctx, s);
    kg_module_free(m);
    return r;
  }
  fputs(kg_compiled_warnings(c), stderr);
  if (kg_mkdirs(a->out) != 0) {
    fprintf(stderr, "kgen compile: cannot create %s: %s\n", a->out, strerror(errno));
    kg_compiled_free(c), kg_module_free(m);
    return 1;
  }
  const char *entry = a->entry ? a->entry : kg_module_entry_name(m, 0);
  char path[4096];
  int rc = 0;
  printf("kgen compile %s: entry %s, %d kernel(s)\n", a->file, entry, kg_compiled_n_kernels(c));
  if (!rc && has_kind(emit, "cuda")) snprintf(path, sizeof path, "%s/%s.cu", a->out, entry), rc = write_artifact(ctx, c, KG_ART_CUDA, 0, path);
  if (!rc && has_kind(emit, "torchscript")) snprintf(path, sizeof path, "%s/%s.ts.py", a->out, entry), rc = write_artifact(ctx, c, KG_ART_TORCHSCRIPT, 0, path);
  if (!rc && has_kind(emit, "python")) snprintf(path, sizeof path, "%s/%s.eager.py", a->out, entry), rc = write_artifact(ctx, c, KG_ART_PYTHON, 0, path);
  if (!rc && has_kind(emit, "ir")) snprintf(path, sizeof path, "%s/%s.ir", a->out, entry), rc = write_artifact(ctx, c, KG_ART_IR, 0, path);
  for (int i = 0; i < n_arch && !rc; i++) {
    if (has_kind(emit, "ptx")) snprintf(path, sizeof path, "%s/%s.sm_%d.ptx", a->out, entry, archs[i]), rc = write_artifact(ctx, c, KG_ART_PTX, archs[i], path);
    if (!rc && has_kind(emit, "cubin")) {
      snprintf(path, sizeof path, "%s/%s.sm_%d.cubin", a->out, entry, archs[i]);
      rc = write_artifact(ctx, c, KG_ART_CUBIN, archs[i], path);
      for (int k = 0; k < kg_compiled_n_kernels(c) && !rc; k++) {
        kg_kernel_stats ks;
        if (kg_kernel_stats_get(c, archs[i], k, &ks) == KG_OK)
          printf("  sm_%d %s: %d registers, %d bytes spill stores, %d bytes spill loads, %d bytes smem\n", archs[i], ks.name, ks.regs,
                 ks.spill_stores, ks.spill_loads, ks.smem);
      }
    }
  }
  kg_compiled_free(c);
  kg_module_free(m);
  return rc;
}

/* ---- run ---- */

static int cmd_run(kg_context *ctx, kg_cli_args *a) {
  if (!a->out) return fprintf(stderr, "kgen run: --out DIR is required\n"), 1;
  kg_module *m;
  kg_status s = kg_module_load_file(ctx, a->file, &m);
  if (s) return kg_cli_status(ctx, s);
  kg_diag d;
  kg_diag_init(&d);
  int n = a->n_in + a->n_cap, rc = 0;
  kg_npy *arr = kg_xcalloc((size_t)n + 1, sizeof *arr);
  DLTensor *views = kg_xcalloc((size_t)n + 1, sizeof *views);
  const DLTensor **ins = kg_xcalloc((size_t)a->n_in + 1, sizeof *ins);
  kg_named_tensor *caps = kg_xcalloc((size_t)a->n_cap + 1, sizeof *caps);
  int loaded = 0;
  for (int i = 0; i < n && !rc; i++, loaded++) {
    const char *path = i < a->n_in ? a->in[i] : a->cap[i - a->n_in];
    if (kg_npy_read(path, &arr[i], &d) != 0) {
      char *t = kg_diag_format(&d);
      fputs(t, stderr);
      free(t);
      rc = 1;
      break;
    }
    kg_npy_dlview(&arr[i], &views[i]);
    if (i < a->n_in) ins[i] = &views[i];
    else caps[i - a->n_in].name = a->cap_name[i - a->n_in], caps[i - a->n_in].t = &views[i];
  }
  kg_compiled *c = NULL;
  if (!rc) {
    s = kg_specialize_for(m, a->entry, ins, a->n_in, caps, a->n_cap, &c);
    if (s) rc = kg_cli_status(ctx, s);
  }
  if (!rc) {
    int no = kg_compiled_n_outputs(c);
    kg_npy *outs = kg_xcalloc((size_t)no + 1, sizeof *outs);
    DLTensor *ov = kg_xcalloc((size_t)no + 1, sizeof *ov);
    DLTensor **op = kg_xcalloc((size_t)no + 1, sizeof *op);
    s = kg_alloc_host_outputs(c, outs, ov, op);
    if (!s) s = kg_run_host(c, a->device, ins, a->n_in, caps, a->n_cap, op, no);
    if (s) rc = kg_cli_status(ctx, s);
    if (!rc && a->stats) {
      kg_run_stats st;
      kg_run_stats_get(c, &st);
      printf("run: %llu kernel launch(es), %llu device allocation(s), %llu device-to-host read(s), %llu plan step(s), %llu loop iteration(s), %llu replayed program(s), %llu slice(s) written in place\n",
             (unsigned long long)st.launches, (unsigned long long)st.device_allocs, (unsigned long long)st.reads,
             (unsigned long long)st.plan_steps, (unsigned long long)st.iterations, (unsigned long long)st.replays,
             (unsigned long long)st.inplace_writes);
    }
    if (!rc && kg_mkdirs(a->out) != 0) rc = (fprintf(stderr, "kgen run: cannot create %s\n", a->out), 1);
    for (int i = 0; i < no && !rc; i++) {
      char path[4096];
      snprintf(path, sizeof path, "%s/out%d.npy", a->out, i);
      if (kg_npy_write(path, &outs[i], &d) != 0) {
        char *t = kg_diag_format(&d);
        fputs(t, stderr);
        free(t);
        rc = 1;
      }
    }
    for (int i = 0; i < no; i++) kg_npy_free(&outs[i]);
    free(outs), free(ov), free(op);
  }
  for (int i = 0; i < loaded; i++) kg_npy_free(&arr[i]);
  free(arr), free(views), free(ins), free(caps);
  kg_compiled_free(c);
  kg_module_free(m);
  kg_diag_free(&d);
  return rc;
}

/* ---- explain ---- */

static int cmd_explain(kg_context *ctx, kg_cli_args *a) {
  kg_module *m;
  kg_status s = kg_module_load_file(ctx, a->file, &m);
  if (s) return kg_cli_status(ctx, s);
  if (kg_module_is_package(m)) { /* what the package holds, per entry, signature and arch */
    char *t = NULL;
    s = kg_package_describe(m, a->entry, &t);
    int rc = s ? kg_cli_status(ctx, s) : (fputs(t, stdout), 0);
    free(t);
    kg_module_free(m);
    return rc;
  }
  kg_compiled *c;
  s = a->grad ? kg_specialize_grad_sig(m, a->entry, a->sig, &c) : kg_specialize(m, a->entry, a->sig, &c);
  int rc = 0;
  if (s) rc = kg_cli_status(ctx, s);
  else {
    char *t;
    size_t len;
    fputs(kg_compiled_warnings(c), stderr);
    if (kg_emit(c, KG_ART_EXPLAIN, 0, &t, &len) == KG_OK) {
      fputs(t, stdout);
      free(t);
    }
    kg_compiled_free(c);
  }
  kg_module_free(m);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 1 : 0;
  }
  if (!strcmp(argv[1], "ops")) { /* the supported-ops table (docs/ops.md) */
    kg_strbuf b;
    kg_sb_init(&b);
    kg_member_doc(&b);
    fputs(kg_sb_cstr(&b), stdout);
    kg_sb_free(&b);
    return 0;
  }
  if (!strcmp(argv[1], "version") || !strcmp(argv[1], "--version")) {
    printf("kgen %s\n", KGEN_VERSION_STRING);
    return 0;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "fuzz")) return kg_cli_fuzz(argc, argv);
  if (!strcmp(cmd, "reduce")) return kg_cli_reduce(argc, argv);
  if (!strcmp(cmd, "package")) return kg_cli_package(argc, argv);
  kg_cli_args a;
  if (kg_cli_parse(argc, argv, &a) != 0) return 1;
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  kg_cli_variant_apply(&a.var, &o, NULL);
  const char *ord = getenv("KGEN_EMU_ORDER");
  if (ord && !a.var.order) o.emu_thread_order = atoi(ord);
  kg_context *ctx = kg_context_new(&o);
  int rc;
  if (!strcmp(cmd, "compile")) rc = cmd_compile(ctx, &a);
  else if (!strcmp(cmd, "run")) rc = cmd_run(ctx, &a);
  else if (!strcmp(cmd, "check")) rc = kg_cli_check(ctx, &a);
  else if (!strcmp(cmd, "explain")) rc = cmd_explain(ctx, &a);
  else {
    fprintf(stderr, "kgen: unknown command '%s'\n\n", cmd);
    usage(stderr);
    rc = 1;
  }
  kg_context_free(ctx);
  return rc;
}
