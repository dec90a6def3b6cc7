/* runtime/cli.h — shared pieces of the `kgen` command (cli.c, cli_check.c). */
#ifndef KG_CLI_H
#define KG_CLI_H

#include "api_int.h"

#define KG_CLI_MAX 64

typedef struct kg_cli_args {
  const char *file, *entry, *sig, *arch, *emit, *out, *keep;
  unsigned long long seed;
  kg_device_kind device;
  int stats;            /* run: print what the run did (kg_run_stats) */
  const char *in[KG_CLI_MAX];
  int n_in;
  const char *cap_name[KG_CLI_MAX], *cap[KG_CLI_MAX];
  int n_cap;
  const char *size_name[KG_CLI_MAX];
  long long size_val[KG_CLI_MAX];
  int n_size;
} kg_cli_args;

int kg_cli_parse(int argc, char **argv, kg_cli_args *a);
int kg_cli_status(kg_context *ctx, kg_status s);
int kg_cli_check(kg_context *ctx, kg_cli_args *a);

#endif
