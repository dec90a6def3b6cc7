/* cli/fsrender.h — a kgen document rendered as F# source (cli/fs_render.c).
 *
 * Why: a document that `kgen fuzz` saves or `kgen reduce` shrinks is JSON, thousands of
 * characters of witness lambdas and member records for a program a reader wants to see as
 * the three lines of F# that would produce it. The renderer prints every entry as the
 * `[<Kgen.Entry("…")>] let NAME = <@ fun … -> … @>` a user would write (as in examples/NAME.fs):
 * F# operators infix with witnesses dropped, TorchSharp methods and functions with
 * the arguments F# fills in left out (DefaultValue, null, to_type's false flags), dtypes as
 * torch.float32, let-bound nodes as lets. It is for reading and for a regression example
 * to start from (run it through tools/kgen-fsharp to get the serializer's own JSON); a
 * construct it has no F# spelling for is printed as a comment naming the node's kind.
 */
#ifndef KG_FSRENDER_H
#define KG_FSRENDER_H

#include <cjson/cJSON.h>

/* The F# text of `doc` (a parsed kgen-quotation document): `module MODULE`, `open`s, an
 * optional `// COMMENT` line first, then every entry. malloc'd; never NULL for a document
 * (a node it cannot spell is rendered as `(* k *)`). */
char *kg_fs_render(const cJSON *doc, const char *module, const char *comment);

#endif
