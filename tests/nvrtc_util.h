/* tests/nvrtc_util.h — the zero-spill check of run-time kernels: their CUDA C as one translation
 * unit, compiled by NVRTC for sm_80 and sm_90 (a cubin each: ptxas's statistics), every kernel
 * expected to spill nothing. Header-only (static inline). */
#ifndef KG_TESTS_NVRTC_UTIL_H
#define KG_TESTS_NVRTC_UTIL_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "runtime/api_int.h"

/* Returns how many (kernel, arch) pairs were checked; a failed compilation fails the test. */
static inline int nvrtc_expect_no_spills(kg_nvrtc *nv, const kg_kernel *const *kps, uint32_t nk, const char *name) {
  kg_strbuf tu;
  kg_sb_init(&tu);
  kg_cuda_emit(kps, nk, name, &tu);
  kg_diag d;
  kg_diag_init(&d);
  int archs[2] = {80, 90}, checked = 0;
  char file[128];
  snprintf(file, sizeof file, "%s.cu", name);
  for (int a = 0; a < 2; a++) {
    kg_nvrtc_out o;
    memset(&o, 0, sizeof o);
    int rc = kg_nvrtc_compile(nv, file, kg_sb_cstr(&tu), archs[a], true, NULL, &o, &d);
    char *t = rc ? kg_diag_format(&d) : NULL;
    cr_assert_eq(rc, 0, "sm_%d: %s", archs[a], t ? t : "");
    for (uint32_t q = 0; q < o.n_stats; q++, checked++) {
      cr_log_info("sm_%d %s: %d registers", archs[a], o.stats[q].name, o.stats[q].regs);
      cr_expect(o.stats[q].spill_stores == 0 && o.stats[q].spill_loads == 0, "sm_%d %s: %d/%d bytes spilled (%d registers)", archs[a],
                o.stats[q].name, o.stats[q].spill_stores, o.stats[q].spill_loads, o.stats[q].regs);
    }
    kg_nvrtc_out_free(&o);
  }
  kg_sb_free(&tu);
  kg_diag_free(&d);
  return checked;
}

#endif
