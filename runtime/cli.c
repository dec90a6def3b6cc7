/* runtime/cli.c — the `kgen` command line (placeholder while the library lands). */
#include <stdio.h>
int main(void) { return 0; }
