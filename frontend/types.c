/* frontend/types.c — small queries on CLR type strings ("Type.ToString()" form).
 * Types stay strings in the AST; the elaborator only needs to know whether a
 * type is a tensor, unit, a tuple or a function, and the generic arguments of
 * FSharpFunc / Tuple / Nullable instantiations. */
#include <string.h>

#include "frontend.h"

/* a module's parameters (TorchSharp.Modules.Parameter) are tensors */
bool kg_clr_is_tensor(const char *ty) {
  return ty && (strcmp(ty, "TorchSharp.torch+Tensor") == 0 || strcmp(ty, "TorchSharp.Modules.Parameter") == 0);
}
bool kg_clr_is_unit(const char *ty) {
  return ty && (strcmp(ty, "Microsoft.FSharp.Core.Unit") == 0 || strcmp(ty, "System.Void") == 0);
}
bool kg_clr_is_tuple(const char *ty) {
  return ty && (strncmp(ty, "System.Tuple`", 13) == 0 || strncmp(ty, "System.ValueTuple`", 18) == 0);
}

int kg_clr_generic_args(kg_arena *a, const char *ty, const char **out, int max) {
  const char *lb = ty ? strchr(ty, '[') : NULL;
  if (!lb || !strchr(ty, '`')) return 0;
  int n = 0, depth = 0;
  const char *start = lb + 1;
  for (const char *p = lb + 1; *p; p++) {
    if (*p == '[') depth++;
    else if (*p == ']') {
      if (depth == 0) {
        if (n < max && p > start) out[n++] = kg_arena_strndup(a, start, (size_t)(p - start));
        return n;
      }
      depth--;
    } else if (*p == ',' && depth == 0) {
      if (n < max) out[n++] = kg_arena_strndup(a, start, (size_t)(p - start));
      start = p + 1;
    }
  }
  return n;
}
