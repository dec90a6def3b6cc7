/* runtime/dev_cpu.c — the CPU device: kgen's kernels at the speed of the host's cores.
 *
 * Main idea: the same CUDA C text as the emulator's, compiled by the host C compiler with
 * optimization for this machine (-O3 -march=native, FMA contraction as NVRTC does, glibc's
 * vector math when present), and run without the emulator's checks. The glue codegen appends
 * (codegen-cuda/cpu.c, kg_cpu.h) decides per kernel from its IR: a kernel whose threads never
 * cooperate — pointwise kernels, the reductions and products under the CPU schedules the
 * scheduler prefers for this target (passes/schedule.c, kg_target_cpu) — runs as a plain loop
 * over its threads, its blocks spread over a pool of worker threads (cpu_pool.c); a kernel
 * whose threads cooperate (barriers, shared memory, warp shuffles) runs on the emulator's
 * fibers, blocks one after another on the calling thread, in forward order, on stacks from the
 * process's pool (emu_stacks.c). The emulator (dev_emu.c) stays the device that checks GPU
 * semantics; this one is the .NET fast path's choice for CPU tensors.
 *
 * How many workers a launch uses comes from the work it has (kg_device.work, set by the
 * executor: elements, or row elements, or multiply-adds): below CPU_PARALLEL_MIN it runs on the
 * calling thread alone (waking a worker costs more than the work), above it the blocks are
 * handed out in ranges of at least CPU_GRAIN_WORK.
 */
#define _GNU_SOURCE 1 /* sched_getaffinity, CPU_COUNT */
#include "rt.h"

#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Part of every cache key: bump when the loop driver's ABI (kg_cpu_range) changes. */
#define CPU_ABI "kgen-cpu 1"
#define CPU_PARALLEL_MIN 65536 /* work below which a launch runs on the calling thread */
#define CPU_GRAIN_WORK 16384   /* work per range handed to a worker, at least */

/* kg_cpu.h's kg_cpu_range (the drivers' ABI) */
typedef struct cpu_range {
  unsigned grid[3], block[3];
  unsigned long long b0, b1;
} cpu_range;
typedef void (*cpu_driver)(void **, const cpu_range *);

typedef struct cpu_dev {
  kg_device base;
  kg_hostcc *hc; /* first two fields as dev_emu.c's emu_dev (kg_dev_loaded_objects) */
  kg_cpu_pool *pool;
  char *extra_key;
  kg_emu_opts fiber_opts; /* forward order */
} cpu_dev;

/* ---- what the compiler builds for this machine ---- */
/* -fno-semantic-interposition: the loop drivers' `flatten` may inline the kernel (in a shared
 * object a global function is otherwise interposable, and never inlined) */
static const char *const cpu_flags[] = {"-std=c11", "-O3", "-march=native", "-fPIC", "-fno-semantic-interposition", "-shared", "-ffp-contract=fast", "-fno-math-errno",
                                        "-fno-strict-aliasing", "-D_GNU_SOURCE", "-w",
#if defined(__x86_64__)
                                        "-fcf-protection=none", /* the fibers switch stacks with their own code */
#endif
};
static const char *const cpu_flags_mvec[] = {"-std=c11", "-O3", "-march=native", "-fPIC", "-fno-semantic-interposition", "-shared", "-ffp-contract=fast", "-fno-math-errno",
                                             "-fno-strict-aliasing", "-D_GNU_SOURCE", "-w", "-DKG_CPU_MVEC",
#if defined(__x86_64__)
                                             "-fcf-protection=none",
#endif
};
static const char *const cpu_libs[] = {"-lm"};
static const char *const cpu_libs_mvec[] = {"-lmvec", "-lm"};

/* glibc's vector math (libmvec) with every function kg_cpu.h declares, in every width the
 * compiler may call (SSE, AVX, AVX2, AVX-512): glibc 2.35 and later on x86-64. */
static bool have_mvec(void) {
#if defined(__x86_64__)
  void *h = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) return false;
  static const char *const fns[] = {"expf", "exp2f", "expm1f", "logf", "log2f", "log10f", "log1pf", "sinf", "cosf", "tanf", "asinf", "acosf",
                                    "atanf", "sinhf", "coshf", "tanhf", "asinhf", "acoshf", "atanhf", "erff", "erfcf", "cbrtf", "exp",
                                    "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
                                    "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc", "cbrt"};
  static const char *const two[] = {"powf", "atan2f", "pow", "atan2"};
  static const char isa[] = {'b', 'c', 'd', 'e'};
  bool ok = true;
  char sym[64];
  for (size_t i = 0; i < KG_COUNTOF(fns) + KG_COUNTOF(two) && ok; i++) {
    bool binary = i >= KG_COUNTOF(fns);
    const char *f = binary ? two[i - KG_COUNTOF(fns)] : fns[i];
    bool single = f[strlen(f) - 1] == 'f' && strcmp(f, "erf") && strcmp(f, "erfc");
    for (size_t j = 0; j < sizeof isa && ok; j++) {
      int lanes = (isa[j] == 'b' ? 4 : isa[j] == 'e' ? 16 : 8) / (single ? 1 : 2);
      snprintf(sym, sizeof sym, "_ZGV%cN%d%s_%s", isa[j], lanes, binary ? "vv" : "v", f);
      ok = dlsym(h, sym) != NULL;
    }
  }
  dlclose(h);
  return ok;
#else
  return false;
#endif
}

/* What the object's bytes depend on beyond the text and the compiler: the host CPU
 * (-march=native), read from /proc/cpuinfo (model and flags). */
static char *host_cpu_identity(void) {
  kg_strbuf b;
  kg_sb_init(&b);
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[4096];
  int got = 0;
  while (f && got < 3 && fgets(line, sizeof line, f)) {
    if (!strncmp(line, "vendor_id", 9) || !strncmp(line, "model name", 10) || !strncmp(line, "flags", 5)) {
      kg_sb_puts(&b, line);
      got++;
    }
  }
  if (f) fclose(f);
  char hex[17];
  kg_hash_hex(kg_hash64(b.s ? b.s : "", b.len, 0), hex);
  kg_sb_free(&b);
  kg_strbuf k;
  kg_sb_init(&k);
  kg_sb_printf(&k, "host cpu: %s", hex);
  return kg_sb_take(&k);
}

/* The CPUs this process may run on. */
static int cpus_available(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

/* ---- the vtable ---- */
/* The translation unit of src: the CUDA text, then the glue */
static void cpu_text(const kg_rt_source *src, kg_strbuf *t) {
  const char *nm = src->name ? src->name : "kernel";
  kg_sb_init(t);
  kg_sb_printf(t, "%s#line 1 \"%s.cu\"\n%s\n#line 1 \"%s.cpu.c\"\n%s\n", src->cpu_pre ? src->cpu_pre : "", nm, src->cuda, nm, src->cpu);
}

static void cpu_prefetch(kg_device *dv, const kg_rt_source *src) {
  if (!src || !src->cuda || !src->cpu) return;
  kg_strbuf t;
  cpu_text(src, &t);
  kg_hostcc_prefetch(((cpu_dev *)dv)->hc, src->name ? src->name : "kernel", kg_sb_cstr(&t));
  kg_sb_free(&t);
}

static int cpu_load(kg_device *dv, const kg_rt_source *src, kg_rt_module **mod, kg_diag *d) {
  cpu_dev *c = (cpu_dev *)dv;
  *mod = NULL;
  if (!src || !src->cuda) {
    kg_diag_add(d, KG_E_ARG, NULL, NULL, "cpu: load without CUDA source");
    return -1;
  }
  if (!src->cpu) { /* kg_cuda_emit_cpu_glue refused it */
    kg_diag_add(d, KG_E_ARG, NULL, NULL, "cpu: '%s' has kernels with tensor-core instructions (mma, wgmma, TMA), which the CPU device does not run; its scheduler (kg_target_cpu) never picks them, the emulator runs them",
                src->name ? src->name : "kernel");
    return -1;
  }
  const char *nm = src->name ? src->name : "kernel";
  kg_strbuf t;
  cpu_text(src, &t);
  kg_hostobj *o = kg_hostcc_load(c->hc, nm, kg_sb_cstr(&t), d);
  kg_sb_free(&t);
  if (!o) return -1;
  *mod = (kg_rt_module *)o;
  return 0;
}

static void cpu_unload(kg_device *dv, kg_rt_module *mod) { kg_hostcc_release(((cpu_dev *)dv)->hc, (kg_hostobj *)mod); }

typedef struct cpu_job {
  cpu_driver fn;
  void **params;
  cpu_range r;
} cpu_job;

static void run_range(void *arg, uint64_t b0, uint64_t b1) {
  cpu_job *j = arg;
  cpu_range r = j->r;
  r.b0 = b0, r.b1 = b1;
  j->fn(j->params, &r);
}

static int cpu_launch(kg_device *dv, kg_rt_module *mod, const char *kernel, const uint32_t grid[3], const uint32_t block[3], uint32_t dyn_smem,
                      void **params, void *stream, kg_diag *d) {
  cpu_dev *c = (cpu_dev *)dv;
  kg_hostobj *o = (kg_hostobj *)mod;
  if (!o || !kernel) {
    kg_diag_add(d, KG_E_ARG, NULL, NULL, "cpu: launch without a module or kernel name");
    return -1;
  }
  if (kg_check_launch_limits(kernel, grid, block, dyn_smem, d)) return -1;
  char sym_name[300];
  snprintf(sym_name, sizeof sym_name, "%s__kg_cpu", kernel);
  void *sym = kg_hostobj_sym(o, sym_name);
  if (!sym) /* its threads cooperate: fibers */
    return kg_emu_run_fibers(o, kernel, grid, block, dyn_smem, params, &c->fiber_opts, "cpu", d);
  cpu_job j;
  memcpy(&j.fn, &sym, sizeof j.fn); /* ISO C: no object -> function cast */
  j.params = params;
  for (int i = 0; i < 3; i++) j.r.grid[i] = grid[i], j.r.block[i] = block[i];
  uint64_t blocks = (uint64_t)grid[0] * grid[1] * grid[2];
  uint64_t work = dv->work ? dv->work : blocks * block[0] * block[1] * block[2];
  uint64_t grain = blocks;
  if (work >= CPU_PARALLEL_MIN && blocks > 1) {
    uint64_t per_block = work / blocks ? work / blocks : 1;
    uint64_t by_work = (CPU_GRAIN_WORK + per_block - 1) / per_block;         /* enough work per range */
    uint64_t by_balance = blocks / (4 * (uint64_t)kg_cpu_pool_threads(c->pool)); /* a few ranges per thread */
    grain = by_work > by_balance ? by_work : by_balance;
    if (grain < 1) grain = 1;
  }
  kg_cpu_pool_for(c->pool, blocks, grain, run_range, &j);
  return 0;
}

static int cpu_sync(kg_device *dv, void *stream, kg_diag *d) { return 0; }

static void cpu_destroy(kg_device *dv) {
  cpu_dev *c = (cpu_dev *)dv;
  if (!c) return;
  kg_cpu_pool_free(c->pool);
  kg_hostcc_free(c->hc);
  free(c->extra_key);
  free(c);
}

static const kg_device_vt cpu_vt = {
    .name = "cpu",
    .kind = KG_DEVICE_CPU,
    .prefetch = cpu_prefetch,
    .alloc = kg_host_dev_alloc,
    .free = kg_host_dev_free,
    .h2d = kg_host_dev_copy,
    .d2h = kg_host_dev_copy,
    .load = cpu_load,
    .unload = cpu_unload,
    .launch = cpu_launch,
    .sync = cpu_sync,
    .destroy = cpu_destroy,
};

int kg_dev_cpu_threads(const kg_device *dv) {
  return dv && dv->vt->kind == KG_DEVICE_CPU ? kg_cpu_pool_threads(((const cpu_dev *)dv)->pool) : 0;
}

kg_device *kg_dev_cpu_new(const kg_rt_config *cfg, int threads, kg_diag *d) {
  cpu_dev *c = kg_xcalloc(1, sizeof *c);
  c->base.vt = &cpu_vt;
  if (threads <= 0) {
    const char *e = getenv("KGEN_CPU_THREADS");
    threads = e && atoi(e) > 0 ? atoi(e) : cpus_available();
  }
  c->pool = kg_cpu_pool_new(threads);
  c->extra_key = host_cpu_identity();
  bool mvec = have_mvec();
  static const kg_hostcc_header hdrs[] = {{"kg_emu", kg_emu_header_text}, {"kg_cpu", kg_cpu_header_text}};
  kg_hostcc_spec spec = {"cpu", CPU_ABI, mvec ? cpu_flags_mvec : cpu_flags, mvec ? KG_COUNTOF(cpu_flags_mvec) : KG_COUNTOF(cpu_flags),
                         "KGEN_CPU_CFLAGS", mvec ? cpu_libs_mvec : cpu_libs, mvec ? KG_COUNTOF(cpu_libs_mvec) : KG_COUNTOF(cpu_libs), hdrs, 2,
                         c->extra_key, kg_emu_runtime_text};
  c->hc = kg_hostcc_new(cfg, &spec, d);
  if (!c->hc) {
    kg_cpu_pool_free(c->pool);
    free(c->extra_key);
    free(c);
    return NULL;
  }
  return &c->base;
}
