/* cli/cli_package.c — `kgen package`: quotation documents → one offline kernel package
 * (docs/package.md), through kg_package_write.
 *
 *   kgen package FILE.json... [--entry NAME]... [--sig SIG]... [--arch sm_80,sm_86,...|none] -o OUT.kgpkg
 *
 * Without --entry every entry of every document is packaged; --entry NAME picks an entry by
 * name from whichever document has it. A --sig belongs to the --entry before it (each one a
 * signature of that entry); a --sig before any --entry applies to every entry; an entry with
 * none is packaged for its document signature. --arch none packages for the emulator only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int usage_err(const char *msg, const char *arg) {
  fprintf(stderr, "kgen package: %s%s%s\nusage: kgen package FILE.json... [--entry NAME]... [--sig SIG]... [--arch sm_80,sm_86,sm_89,sm_90|none] -o OUT.kgpkg\n",
          msg, arg ? " " : "", arg ? arg : "");
  return 1;
}

int kg_cli_package(int argc, char **argv) {
  const char *files[KG_CLI_MAX], *entries[KG_CLI_MAX], *gsigs[KG_CLI_MAX], *out = NULL, *arch = "sm_80,sm_86,sm_89,sm_90";
  const char *esig[KG_CLI_MAX][16];
  int nf = 0, ne = 0, ng = 0, nes[KG_CLI_MAX] = {0};
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    bool val = i + 1 < argc;
    if (!strcmp(a, "-o") || !strcmp(a, "--out")) {
      if (!val) return usage_err("-o needs a file", NULL);
      out = argv[++i];
    } else if (!strcmp(a, "--arch")) {
      if (!val) return usage_err("--arch needs a list", NULL);
      arch = argv[++i];
    } else if (!strcmp(a, "--entry")) {
      if (!val || ne >= KG_CLI_MAX) return usage_err("--entry needs a name (at most 64)", NULL);
      entries[ne++] = argv[++i];
    } else if (!strcmp(a, "--sig")) {
      if (!val) return usage_err("--sig needs a signature", NULL);
      if (ne == 0 && ng < KG_CLI_MAX) gsigs[ng++] = argv[++i];
      else if (ne > 0 && nes[ne - 1] < 16) esig[ne - 1][nes[ne - 1]++] = argv[++i];
      else return usage_err("too many --sig", NULL);
    } else if (a[0] == '-') {
      return usage_err("unknown option", a);
    } else if (nf < KG_CLI_MAX) {
      files[nf++] = a;
    }
  }
  if (!nf) return usage_err("no documents given", NULL);
  if (!out) return usage_err("-o OUT.kgpkg is required", NULL);
  int archs[16], na = 0;
  if (strcmp(arch, "none") != 0)
    for (const char *p = arch; p && *p;) {
      int v;
      if ((sscanf(p, "sm_%d", &v) != 1 && sscanf(p, "%d", &v) != 1) || na >= 16) return usage_err("bad --arch", p);
      archs[na++] = v;
      const char *e = strchr(p, ',');
      p = e ? e + 1 : NULL;
    }
  for (int i = 1; i < na; i++) /* ascending, each once */
    for (int j = i; j > 0 && archs[j] < archs[j - 1]; j--) {
      int t = archs[j];
      archs[j] = archs[j - 1], archs[j - 1] = t;
    }
  kg_options o;
  memset(&o, 0, sizeof o);
  o.verify_ir = 1;
  kg_context *ctx = kg_context_new(&o);
  kg_module *mods[KG_CLI_MAX];
  int rc = 0, nm = 0;
  for (int i = 0; i < nf && !rc; i++, nm++) {
    kg_status s = kg_module_load_file(ctx, files[i], &mods[i]);
    if (s) rc = kg_cli_status(ctx, s);
  }
  kg_package_item *items = kg_xcalloc((size_t)(nf + ne) * (KG_CLI_MAX + 16) + 1, sizeof *items);
  int ni = 0;
  for (int e = 0; e < ne && !rc; e++) { /* the document that has each named entry */
    kg_module *m = NULL;
    for (int i = 0; i < nf && !m; i++)
      for (int k = 0; k < kg_module_n_entries(mods[i]) && !m; k++)
        if (!strcmp(kg_module_entry_name(mods[i], k), entries[e])) m = mods[i];
    if (!m) {
      fprintf(stderr, "kgen package: no document given has an entry named '%s'\n", entries[e]);
      rc = 1;
      break;
    }
    int n = nes[e] ? nes[e] : ng ? ng : 1;
    for (int s = 0; s < n; s++) items[ni].module = m, items[ni].entry = entries[e], items[ni++].sig = nes[e] ? esig[e][s] : ng ? gsigs[s] : NULL;
  }
  for (int i = 0; i < nf && !ne && !rc; i++)
    for (int k = 0; k < kg_module_n_entries(mods[i]); k++)
      for (int s = 0; s < (ng ? ng : 1); s++) items[ni].module = mods[i], items[ni].entry = kg_module_entry_name(mods[i], k), items[ni++].sig = ng ? gsigs[s] : NULL;
  if (!rc) {
    kg_status s = kg_package_write(ctx, items, ni, archs, na, out);
    if (s) rc = kg_cli_status(ctx, s);
  }
  if (!rc) {
    kg_module *p;
    kg_status s = kg_package_load(ctx, out, &p);
    char *t = NULL;
    if (!s) s = kg_package_describe(p, NULL, &t);
    if (s) rc = kg_cli_status(ctx, s);
    else fputs(t, stdout);
    free(t);
    if (!s) kg_module_free(p);
  }
  free(items);
  for (int i = 0; i < nm; i++) kg_module_free(mods[i]);
  kg_context_free(ctx);
  return rc;
}
