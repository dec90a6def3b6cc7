/* cli/cli.h — shared pieces of the `kgen` command (cli.c, cli_check.c, cli_fuzz.c, cli_reduce.c).
 *
 * The command is a client of the library, in a folder of its own so that libkgen does not
 * carry it: it uses the public API (runtime/kgen.h), the check kit (check/check.h: .npy
 * files, host tensors, the PyTorch cross-check) and support/ (files, diagnostics). Its one
 * other include is frontend/frontend.h in cli.c, for `kgen ops` (the supported-ops table
 * is generated from the frontend's member table).
 */
#ifndef KG_CLI_H
#define KG_CLI_H

#include "../check/check.h"
#include "../runtime/kgen.h"
#include "../support/support.h"

#define KG_CLI_MAX 64

/* How a check runs besides the defaults (kgen check, fuzz, reduce): the schedule forced on
 * every kernel (kg_options.force_variant, 0-4), the emulator's thread order (0 forward, 1
 * reverse, 2 random), the eager-Python twin instead of TorchScript, non-contiguous inputs. */
typedef struct kg_cli_variant {
  int force, order;
  bool eager, strided;
  const char *size_name[4]; /* --size SYM=N given to the check (kgen reduce; kgen check has its own) */
  long long size_val[4];
  int n_size;
  int emu_arch;             /* --emu-arch 80|90: the GPU the emulator's schedules are chosen for (0: sm_90) */
  int f32;                  /* --f32-matmul: a kg_f32_matmul */
  bool no_replay;           /* --no-replay: kg_options.no_replay (a run binds and plans every program afresh) */
  bool cpu;                 /* --device cpu: the CPU device's schedules and compiled kernels (kgen reduce; kgen
                               check takes --device itself) */
} kg_cli_variant;
/* Parses the value of --size, "SYMBOL=N" (N a whole number 0 .. 2^63-1), splitting it in place:
 * 0, or -1 with the reason printed (the command exits 1). Whether the entry has SYMBOL, and
 * whether the sizes fit memory and the index type, the check decides (kg_check_module). */
int kg_cli_size_arg(char *arg, const char **name, long long *val);
/* Takes argv[*i] if it is --variant N, --order N, --eager, --strided, --size SYM=N or --device cpu (advancing
 * *i past a value): 1 taken, 0 not one of them, -1 a bad value (printed). */
int kg_cli_variant_opt(int argc, char **argv, int *i, kg_cli_variant *v);
/* The options that reproduce v (" --variant 2 --order 1 --eager --size N=16"), "" for the defaults. */
void kg_cli_variant_str(const kg_cli_variant *v, char *buf, size_t cap);
/* Context options and check options of v. */
void kg_cli_variant_apply(const kg_cli_variant *v, kg_options *o, kg_check_opts *co);

typedef struct kg_cli_args {
  const char *file, *entry, *sig, *arch, *emit, *out, *keep;
  unsigned long long seed;
  kg_device_kind device;
  int stats;            /* run: print what the run did (kg_run_stats) */
  bool grad, fd;        /* check / explain: the gradients too (--grad), finite differences (--fd) */
  const char *in[KG_CLI_MAX];
  int n_in;
  const char *cap_name[KG_CLI_MAX], *cap[KG_CLI_MAX];
  int n_cap;
  const char *size_name[KG_CLI_MAX];
  long long size_val[KG_CLI_MAX];
  int n_size;
  kg_cli_variant var;
} kg_cli_args;

int kg_cli_parse(int argc, char **argv, kg_cli_args *a);
int kg_cli_status(kg_context *ctx, kg_status s);
int kg_cli_check(kg_context *ctx, kg_cli_args *a);
/* `kgen fuzz` (cli_fuzz.c): parses its own options, makes its own context. */
int kg_cli_fuzz(int argc, char **argv);
/* `kgen reduce` (cli_reduce.c, its edits in reduce_edits.c): the same. */
int kg_cli_reduce(int argc, char **argv);
/* `kgen package` (cli_package.c): the same. */
int kg_cli_package(int argc, char **argv);

#endif
