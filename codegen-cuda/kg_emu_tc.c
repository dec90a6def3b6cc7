/* codegen-cuda/kg_emu_tc.c — the tensor-core instructions of the CPU emulator: mma.sync,
 * ldmatrix, cp.async, mbarrier, TMA and wgmma as the PTX ISA defines them (kg_emu_tc.h says
 * what each follows and has the fragment tables).
 *
 * Part of the emulator's runtime object: embedded after kg_emu_rt.c (one translation unit,
 * compiled once per compiler and flags by runtime/hostcc.c), so it uses the runtime's fibers
 * and group collectives directly. Warp- and warpgroup-collective instructions park each
 * thread until every thread of its group has arrived, then the last one runs the
 * instruction for the group from every lane's operands.
 */

/* ---- group collectives ---- */
typedef void (*kg_emu_coll_fn)(kg_emu_fiber *group, unsigned size);

/* The calling thread enters `fn` (its operands in `arg`) with the `size` threads of its
 * aligned group (32: a warp, 128: a warpgroup); the last to arrive runs fn for the group. */
static void kg_emu__collective(kg_emu_coll_fn fn, unsigned size, void *arg, const char *name, int line) {
  kg_emu_run *r = kg_emu__run;
  kg_emu_fiber *f = r->cur;
  unsigned base = f->tid & ~(size - 1);
  char t1[40], t2[40];
  if (base + size > r->n) {
    kg_emu__fail("thread %s executes %s at line %d, which needs the %u threads of its %s, but the "
                 "block has %u threads",
                 kg_emu__tname(f->tid, t1), name, line, size, size == 32 ? "warp" : "warpgroup", r->n);
    kg_emu__abandon();
  }
  f->state = KG_EMU_COLL, f->op = KG_EMU_COLLOP, f->coll = fn, f->coll_arg = arg;
  f->coll_name = name, f->line = line, f->width = (int)size;
  kg_emu_fiber *g = r->fibers + base;
  int all = 1;
  for (unsigned l = 0; l < size; l++) {
    kg_emu_fiber *x = &g[l];
    if (x->state == KG_EMU_DONE) {
      kg_emu__fail("thread %s executes %s at line %d after thread %s of its %s exited (.aligned: "
                   "every thread executes it)",
                   kg_emu__tname(f->tid, t1), name, line, kg_emu__tname(x->tid, t2),
                   size == 32 ? "warp" : "warpgroup");
      kg_emu__abandon();
    }
    if (x->state == KG_EMU_COLL && (x->coll != fn || x->line != line)) {
      kg_emu__fail("threads of one %s execute different .aligned instructions: thread %s %s at line "
                   "%d, thread %s %s at line %d",
                   size == 32 ? "warp" : "warpgroup", kg_emu__tname(f->tid, t1), name, line,
                   kg_emu__tname(x->tid, t2), x->coll_name, x->line);
      kg_emu__abandon();
    }
    if (x->state != KG_EMU_COLL) all = 0;
  }
  if (!all) {
    kg_emu__leave(r, f, 0); /* parked until the last thread arrives */
    return;
  }
  fn(g, size);
  for (unsigned l = 0; l < size; l++) g[l].state = KG_EMU_READY;
  if (r->failed) kg_emu__abandon();
}

/* Is [p, p + n) inside the block's shared memory (static __shared__ or dynamic)? */
static int kg_emu__in_smem(const void *p, size_t n) {
  kg_emu_run *r = kg_emu__run;
  const char *c = (const char *)p, *s0 = r->sh0, *s1 = r->sh1;
  if (s0 && s1 > s0 && c >= s0 && c + n <= s1) return 1;
  return r->dyn && c >= r->dyn && c + n <= r->dyn + r->dyn_len;
}

/* ---- mma.sync ---- */
typedef struct kg_emu_mma_lane {
  float *d[4];        /* the accumulator registers: D = A B + C with C = D on entry */
  unsigned a[4], b[2];
} kg_emu_mma_lane;

static float kg_emu__bf2f(unsigned h) {
  unsigned x = h << 16;
  float f;
  memcpy(&f, &x, 4);
  return f;
}
static float kg_emu__tf32_val(unsigned bits) { /* the 19 bits the tensor core reads */
  unsigned x = bits & 0xffffe000u;
  float f;
  if ((bits & 0x7f800000u) == 0x7f800000u) x = bits; /* Inf / NaN stay what they are */
  memcpy(&f, &x, 4);
  return f;
}

/* type: 0 f16, 1 bf16 (m16n8k16), 2 tf32 (m16n8k8) */
static void kg_emu__mma_run(kg_emu_fiber *g, int type) {
  double A[16][16], B[16][8], C[16][8];
  int K = type == 2 ? 8 : 16;
  for (unsigned lane = 0; lane < 32; lane++) {
    const kg_emu_mma_lane *x = (const kg_emu_mma_lane *)g[lane].coll_arg;
    int gid = (int)lane >> 2, t = (int)lane & 3;
    if (type == 2) {
      for (int i = 0; i < 4; i++) A[gid + 8 * (i & 1)][t + 4 * (i >> 1)] = kg_emu__tf32_val(x->a[i]);
      for (int i = 0; i < 2; i++) B[t + 4 * i][gid] = kg_emu__tf32_val(x->b[i]);
    } else {
      for (int i = 0; i < 8; i++) {
        unsigned h = (x->a[i >> 1] >> (16 * (i & 1))) & 0xffffu;
        A[gid + 8 * ((i >> 1) & 1)][2 * t + (i & 1) + 8 * (i >= 4)] = type ? kg_emu__bf2f(h) : kg_emu_h2f((unsigned short)h);
      }
      for (int i = 0; i < 4; i++) {
        unsigned h = (x->b[i >> 1] >> (16 * (i & 1))) & 0xffffu;
        B[2 * t + (i & 1) + 8 * (i >= 2)][gid] = type ? kg_emu__bf2f(h) : kg_emu_h2f((unsigned short)h);
      }
    }
    for (int i = 0; i < 4; i++) C[gid + 8 * (i >> 1)][2 * t + (i & 1)] = *x->d[i];
  }
  for (unsigned lane = 0; lane < 32; lane++) {
    const kg_emu_mma_lane *x = (const kg_emu_mma_lane *)g[lane].coll_arg;
    int gid = (int)lane >> 2, t = (int)lane & 3;
    for (int i = 0; i < 4; i++) {
      int m = gid + 8 * (i >> 1), n = 2 * t + (i & 1);
      double s = C[m][n];
      for (int k = 0; k < K; k++) s += A[m][k] * B[k][n];
      *x->d[i] = (float)s;
    }
  }
}
static void kg_emu__mma_f16(kg_emu_fiber *g, unsigned size) { (void)size, kg_emu__mma_run(g, 0); }
static void kg_emu__mma_bf16(kg_emu_fiber *g, unsigned size) { (void)size, kg_emu__mma_run(g, 1); }
static void kg_emu__mma_tf32(kg_emu_fiber *g, unsigned size) { (void)size, kg_emu__mma_run(g, 2); }

void kg_emu_mma(int type, float *d0, float *d1, float *d2, float *d3, unsigned a0, unsigned a1,
                       unsigned a2, unsigned a3, unsigned b0, unsigned b1, int line) {
  static const char *const names[3] = {"mma.sync.m16n8k16.f16", "mma.sync.m16n8k16.bf16", "mma.sync.m16n8k8.tf32"};
  kg_emu_coll_fn fns[3] = {kg_emu__mma_f16, kg_emu__mma_bf16, kg_emu__mma_tf32};
  kg_emu_mma_lane x = {{d0, d1, d2, d3}, {a0, a1, a2, a3}, {b0, b1}};
  kg_emu__collective(fns[type], 32, &x, names[type], line);
}

/* ---- ldmatrix ---- */
typedef struct kg_emu_ldsm_lane {
  const unsigned char *row; /* this lane's row address */
  unsigned *d[4];
  int num, trans, line;
} kg_emu_ldsm_lane;

static void kg_emu__ldsm_run(kg_emu_fiber *g, unsigned size) {
  (void)size;
  const kg_emu_ldsm_lane *x0 = (const kg_emu_ldsm_lane *)g[0].coll_arg;
  int num = x0->num;
  char tn[40];
  for (int l = 0; l < 8 * num; l++) { /* the row addresses that are used */
    const kg_emu_ldsm_lane *x = (const kg_emu_ldsm_lane *)g[l].coll_arg;
    if (((uintptr_t)x->row & 15u) || !kg_emu__in_smem(x->row, 16)) {
      kg_emu__fail("ldmatrix at line %d: thread %s gives row address %p, which is %s", x->line,
                   kg_emu__tname(g[l].tid, tn), (const void *)x->row,
                   ((uintptr_t)x->row & 15u) ? "not 16-byte aligned" : "outside shared memory");
      return;
    }
  }
  for (unsigned l = 0; l < 32; l++) {
    const kg_emu_ldsm_lane *x = (const kg_emu_ldsm_lane *)g[l].coll_arg;
    for (int j = 0; j < num; j++) {
      unsigned v;
      if (!x0->trans) {
        const kg_emu_ldsm_lane *rl = (const kg_emu_ldsm_lane *)g[8 * j + (int)l / 4].coll_arg;
        memcpy(&v, rl->row + 4 * (l % 4), 4);
      } else {
        const kg_emu_ldsm_lane *r0 = (const kg_emu_ldsm_lane *)g[8 * j + 2 * (int)(l % 4)].coll_arg;
        const kg_emu_ldsm_lane *r1 = (const kg_emu_ldsm_lane *)g[8 * j + 2 * (int)(l % 4) + 1].coll_arg;
        unsigned short lo, hi;
        memcpy(&lo, r0->row + 2 * (l / 4), 2);
        memcpy(&hi, r1->row + 2 * (l / 4), 2);
        v = (unsigned)lo | (unsigned)hi << 16;
      }
      *x->d[j] = v;
    }
  }
}
void kg_emu_ldsm(int num, int trans, unsigned *d0, unsigned *d1, unsigned *d2, unsigned *d3,
                        const void *row, int line) {
  kg_emu_ldsm_lane x = {(const unsigned char *)row, {d0, d1, d2, d3}, num, trans, line};
  kg_emu__collective(kg_emu__ldsm_run, 32, &x, trans ? "ldmatrix.trans" : "ldmatrix", line);
}

/* ---- cp.async: per-thread queues of deferred copies ---- */
typedef struct kg_emu_cp {
  unsigned char *dst;
  const unsigned char *src;
  unsigned n, src_n;
  int group; /* -1 until committed */
} kg_emu_cp;
typedef struct kg_emu_cpq {
  kg_emu_cp *v;
  unsigned len, cap;
  int groups; /* committed so far */
} kg_emu_cpq;
typedef struct kg_emu_tc_state {
  kg_emu_cpq *q; /* one per thread of the block */
  unsigned n;
} kg_emu_tc_state;

static void kg_emu__tc_block_start(kg_emu_run *r) {
  kg_emu_tc_state *s = (kg_emu_tc_state *)r->tc;
  if (!s) return;
  for (unsigned t = 0; t < s->n; t++) s->q[t].len = 0, s->q[t].groups = 0;
}
static void kg_emu__tc_free(kg_emu_run *r) {
  kg_emu_tc_state *s = (kg_emu_tc_state *)r->tc;
  if (!s) return;
  for (unsigned t = 0; t < s->n; t++) free(s->q[t].v);
  free(s->q);
  free(s);
  r->tc = NULL;
}
static kg_emu_cpq *kg_emu__cpq(void) {
  kg_emu_run *r = kg_emu__run;
  kg_emu_tc_state *s = (kg_emu_tc_state *)r->tc;
  if (!s) {
    s = (kg_emu_tc_state *)calloc(1, sizeof *s);
    if (s) s->q = (kg_emu_cpq *)calloc(r->n, sizeof *s->q), s->n = r->n;
    if (!s || !s->q) {
      free(s);
      kg_emu__fail("cp.async: out of memory");
      kg_emu__abandon();
    }
    r->tc = s;
  }
  return &s->q[r->cur->tid];
}
void kg_emu_cp_async(void *dst, const void *src, unsigned cp_size, unsigned src_size, int cg,
                            int line) {
  char tn[40];
  const char *why = NULL;
  if (cp_size != 4 && cp_size != 8 && cp_size != 16) why = "cp-size is not 4, 8 or 16";
  else if (cg && cp_size != 16) why = ".cg needs cp-size 16";
  else if (src_size > cp_size) why = "src-size exceeds cp-size";
  else if ((uintptr_t)dst % cp_size) why = "the shared address is not aligned to cp-size";
  else if (src_size && (uintptr_t)src % cp_size) why = "the global address is not aligned to cp-size";
  else if (!kg_emu__in_smem(dst, cp_size)) why = "the destination is outside shared memory";
  if (why) {
    kg_emu__fail("cp.async at line %d in thread %s (dst %p, src %p, cp-size %u, src-size %u): %s", line,
                 kg_emu__tname(kg_emu__run->cur->tid, tn), dst, src, cp_size, src_size, why);
    kg_emu__abandon();
  }
  kg_emu_cpq *q = kg_emu__cpq();
  if (q->len == q->cap) {
    unsigned cap = q->cap ? 2 * q->cap : 16;
    kg_emu_cp *v = (kg_emu_cp *)realloc(q->v, cap * sizeof *v);
    if (!v) {
      kg_emu__fail("cp.async: out of memory");
      kg_emu__abandon();
    }
    q->v = v, q->cap = cap;
  }
  kg_emu_cp c = {(unsigned char *)dst, (const unsigned char *)src, cp_size, src_size, -1};
  q->v[q->len++] = c;
}
void kg_emu_cp_async_commit(void) {
  kg_emu_cpq *q = kg_emu__cpq();
  q->groups++;
  for (unsigned i = 0; i < q->len; i++)
    if (q->v[i].group < 0) q->v[i].group = q->groups;
}
/* Completes (in issue order) the copies of every committed group but the n most recent;
 * n < 0: every copy, committed or not (wait_all). */
void kg_emu_cp_async_wait(int n) {
  kg_emu_cpq *q = kg_emu__cpq();
  unsigned keep = 0;
  for (unsigned i = 0; i < q->len; i++) {
    kg_emu_cp *c = &q->v[i];
    int done = n < 0 || (c->group >= 0 && c->group <= q->groups - n);
    if (!done) {
      q->v[keep++] = *c;
      continue;
    }
    if (c->src_n) memcpy(c->dst, c->src, c->src_n);
    memset(c->dst + c->src_n, 0, c->n - c->src_n);
  }
  q->len = keep;
  if (n < 0) q->groups++; /* wait_all = commit_group + wait_group 0 */
}

/* ---- cvt.rna.tf32.f32 ---- */
float kg_emu_tf32(float f) {
  unsigned x;
  memcpy(&x, &f, 4);
  if ((x & 0x7f800000u) != 0x7f800000u) x = (x + 0x1000u) & 0xffffe000u; /* ties away: magnitude */
  else if (x & 0x007fffffu) x = 0x7fffffffu;                            /* NaN: canonical */
  memcpy(&f, &x, 4);
  return f;
}


/* ==== Hopper: mbarrier, TMA (cp.async.bulk.tensor), wgmma ====
 *
 *   mbarrier.init / arrive / arrive.expect_tx / try_wait.parity       kg_emu_mbar_*
 *       The 8-byte object in shared memory holds the emulator's state: the current phase's
 *       parity, the pending and expected arrival counts, the pending transaction bytes. A phase
 *       completes when its arrivals are in and its transaction count is back to 0; a thread
 *       waiting on the phase of parity P (try_wait.parity P: true once the current parity
 *       differs from P) is parked until then. Every thread parked with nobody left to arrive
 *       fails the launch.
 *   cp.async.bulk.tensor.{2d,3d}.shared::cluster.global.tile.mbarrier::complete_tx::bytes
 *                                                                        kg_emu_tma_load
 *       the tensor map's box at the given coordinates, written row after row (innermost
 *       dimension fastest) from the destination, each 16-byte chunk placed by the map's swizzle
 *       (the same Swizzle<B,4,3> on shared addresses as wgmma's); elements outside the tensor
 *       read as 0; then the box's bytes complete on the mbarrier. Done at issue (an
 *       asynchronous copy may complete at once). The tensor map is the emulator's own
 *       (kg_emu_tmap, filled by kg_emu_tmap_encode with cuTensorMapEncodeTiled's checks).
 *   wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}.{f16,bf16}    kg_emu_wgmma
 *       warpgroup-collective (128 threads); A (64 x 16) and B (N x 16) read through their
 *       shared-memory matrix descriptors (start, leading and stride byte offsets, swizzle mode)
 *       in the canonical K-major or MN-major layouts (imm-trans), D = A B + (scale-d ? D : 0)
 *       into the accumulator fragment: register i of thread t holds row 16 (t / 32) + g +
 *       8 ((i >> 1) & 1), column 8 (i >> 2) + 2 q + (i & 1) (g = lane / 4, q = lane % 4).
 *       Computed when issued (completing early is allowed); wgmma.fence / commit_group /
 *       wait_group are then ordering only.
 * Shared addresses (descriptors, kg_saddr) are offsets into the block's dynamic shared memory. */

unsigned kg_emu_saddr(const void *p) {
  kg_emu_run *r = kg_emu__run;
  const char *c = (const char *)p;
  if (!r->dyn || c < r->dyn || c > r->dyn + r->dyn_len) {
    char tn[40];
    kg_emu__fail("thread %s takes the shared address of %p, outside the dynamic shared memory", kg_emu__tname(r->cur->tid, tn), p);
    kg_emu__abandon();
  }
  return (unsigned)(c - r->dyn);
}
static char *kg_emu__sptr(unsigned a) { return kg_emu__run->dyn + a; }

/* -- mbarrier -- */
typedef struct kg_emu_mbar {
  unsigned word; /* bit 31: the current phase's parity; bits 16..30 expected arrivals; 0..15 pending */
  int tx;        /* transaction bytes still to come in this phase */
} kg_emu_mbar;

static kg_emu_mbar *kg_emu__mbar(void *bar, const char *what, int line) {
  char tn[40];
  if (((uintptr_t)bar & 7u) || !kg_emu__in_smem(bar, 8)) {
    kg_emu__fail("%s at line %d in thread %s: the mbarrier at %p is %s", what, line, kg_emu__tname(kg_emu__run->cur->tid, tn), bar,
                 ((uintptr_t)bar & 7u) ? "not 8-byte aligned" : "outside shared memory");
    kg_emu__abandon();
  }
  return (kg_emu_mbar *)bar;
}
/* the phase completes when nothing is pending: flip, re-arm, release its waiters */
static void kg_emu__mbar_check(kg_emu_mbar *b) {
  if ((b->word & 0xffffu) || b->tx) return;
  unsigned parity = b->word >> 31, expected = (b->word >> 16) & 0x7fffu;
  b->word = ((parity ^ 1u) << 31) | (expected << 16) | expected;
  kg_emu_run *r = kg_emu__run;
  for (unsigned t = 0; t < r->n; t++) {
    kg_emu_fiber *f = &r->fibers[t];
    if (f->state == KG_EMU_MBAR && f->coll_arg == (void *)b && (unsigned)f->b == parity) f->state = KG_EMU_READY;
  }
}
void kg_emu_mbar_init(void *bar, unsigned count, int line) {
  kg_emu_mbar *b = kg_emu__mbar(bar, "mbarrier.init", line);
  if (count < 1 || count > 0x7fffu) {
    kg_emu__fail("mbarrier.init at line %d: count %u (1 to 32767)", line, count);
    kg_emu__abandon();
  }
  b->word = (count << 16) | count, b->tx = 0;
}
void kg_emu_mbar_arrive_tx(void *bar, unsigned bytes, int line) {
  kg_emu_mbar *b = kg_emu__mbar(bar, "mbarrier.arrive", line);
  if (!(b->word & 0xffffu)) {
    kg_emu__fail("mbarrier.arrive at line %d: the barrier at %p has no pending arrival (uninitialized, or more arrivals than its count)", line, bar);
    kg_emu__abandon();
  }
  b->tx += (int)bytes;
  b->word--;
  kg_emu__mbar_check(b);
}
void kg_emu_mbar_wait(void *bar, unsigned parity, int line) {
  kg_emu_mbar *b = kg_emu__mbar(bar, "mbarrier.try_wait", line);
  if ((b->word >> 31) != (parity & 1u)) return; /* that phase has completed */
  kg_emu_run *r = kg_emu__run;
  kg_emu_fiber *f = r->cur;
  f->state = KG_EMU_MBAR, f->coll_arg = bar, f->b = (int)(parity & 1u), f->line = line;
  kg_emu__leave(r, f, 0);
}

/* -- tensor maps and TMA (kg_emu_tmap: kg_emu_tc.h) -- */

/* cuTensorMapEncodeTiled's contract for what kgen uses (tiled, no interleave, zero fill): 0, or a
 * negative code with a reason in why */
__attribute__((visibility("default"))) int kg_emu_tmap_encode(void *out, const void *base, unsigned rank, unsigned esz,
                                                              const unsigned long long *dims, const unsigned long long *strides,
                                                              const unsigned *box, unsigned swizzle, char *why, size_t whylen);
__attribute__((visibility("default"))) int kg_emu_tmap_encode(void *out, const void *base, unsigned rank, unsigned esz,
                                                              const unsigned long long *dims, const unsigned long long *strides,
                                                              const unsigned *box, unsigned swizzle, char *why, size_t whylen) {
  const char *bad = NULL;
  if (rank < 1 || rank > 3) bad = "rank is not 1 to 3";
  else if ((uintptr_t)base % 16) bad = "the global address is not 16-byte aligned";
  else if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128) bad = "bad swizzle";
  else if ((uintptr_t)out % 64) bad = "the map is not 64-byte aligned";
  for (unsigned d = 0; d < rank && !bad; d++) {
    if (!dims[d] || dims[d] > (1ull << 32)) bad = "a global dimension is 0 or above 2^32";
    else if (box[d] < 1 || box[d] > 256) bad = "a box dimension is not 1 to 256";
    else if (d && (strides[d] % 16 || strides[d] >= (1ull << 40))) bad = "a global stride is not a multiple of 16 bytes below 2^40";
  }
  if (!bad && (box[0] * esz) % 16) bad = "the box's inner dimension is not a multiple of 16 bytes";
  if (!bad && swizzle && box[0] * esz > swizzle) bad = "the box's inner dimension is wider than the swizzle span";
  if (bad) {
    if (whylen) snprintf(why, whylen, "%s", bad);
    return -1;
  }
  kg_emu_tmap m;
  memset(&m, 0, sizeof m);
  m.magic = KG_EMU_TMAP_MAGIC, m.rank = rank, m.esz = esz, m.swizzle = swizzle, m.base = (const char *)base;
  for (unsigned d = 0; d < rank; d++) m.dims[d] = dims[d], m.strides[d] = d ? strides[d] : esz, m.box[d] = box[d];
  memset(out, 0, 128);
  memcpy(out, &m, sizeof m);
  return 0;
}

/* Swizzle<log2(span/16), 4, 3> of a shared address */
static unsigned kg_emu__swz(unsigned a, unsigned span) {
  if (span < 32) return a;
  return a ^ ((a >> 3) & ((span / 16 - 1) << 4));
}

void kg_emu_tma_load(void *dst, const void *map, int c0, int c1, int c2, void *bar, int line) {
  const kg_emu_tmap *m = (const kg_emu_tmap *)map;
  kg_emu_mbar *b = kg_emu__mbar(bar, "cp.async.bulk.tensor", line);
  char tn[40];
  if (m->magic != KG_EMU_TMAP_MAGIC) {
    kg_emu__fail("cp.async.bulk.tensor at line %d: not a tensor map", line);
    kg_emu__abandon();
  }
  unsigned box = m->box[0] * m->esz * (m->rank > 1 ? m->box[1] : 1) * (m->rank > 2 ? m->box[2] : 1);
  if (((uintptr_t)dst & 127u) || !kg_emu__in_smem(dst, box)) {
    kg_emu__fail("cp.async.bulk.tensor at line %d in thread %s: the destination %p is %s", line, kg_emu__tname(kg_emu__run->cur->tid, tn), dst,
                 ((uintptr_t)dst & 127u) ? "not 128-byte aligned" : "not inside shared memory");
    kg_emu__abandon();
  }
  unsigned base = kg_emu_saddr(dst), row = m->box[0] * m->esz;
  long long c[3] = {c0, c1, c2};
  unsigned n1 = m->rank > 1 ? m->box[1] : 1, n2 = m->rank > 2 ? m->box[2] : 1;
  for (unsigned i2 = 0; i2 < n2; i2++)
    for (unsigned i1 = 0; i1 < n1; i1++)
      for (unsigned i0 = 0; i0 < m->box[0]; i0++) {
        long long g[3] = {c[0] + i0, c[1] + i1, c[2] + i2};
        int in = 1;
        const char *src = m->base;
        for (unsigned d = 0; d < m->rank; d++) {
          if (g[d] < 0 || (unsigned long long)g[d] >= m->dims[d]) in = 0;
          else src += (unsigned long long)g[d] * m->strides[d];
        }
        unsigned lin = (i2 * n1 + i1) * row + i0 * m->esz;
        char *p = kg_emu__sptr(kg_emu__swz(base + lin, m->swizzle));
        if (in) memcpy(p, src, m->esz);
        else memset(p, 0, m->esz);
      }
  b->tx -= (int)box;
  kg_emu__mbar_check(b);
}

/* -- wgmma -- */
typedef struct kg_emu_wgmma_lane {
  float **d;                /* N / 2 accumulator registers */
  unsigned long long da, db;
  int type, n, scale_d, ta, tb, line;
} kg_emu_wgmma_lane;

/* the shared address of element (row, k) of a 16-deep operand by its descriptor */
static unsigned kg_emu__desc_addr(unsigned long long desc, int trans, unsigned row, unsigned k, unsigned esz) {
  unsigned start = (unsigned)(desc & 0x3fffu) << 4, lbo = (unsigned)((desc >> 16) & 0x3fffu) << 4;
  unsigned sbo = (unsigned)((desc >> 32) & 0x3fffu) << 4, mode = (unsigned)(desc >> 62);
  unsigned span = mode == 1 ? 128 : mode == 2 ? 64 : mode == 3 ? 32 : 16, w = span / 16, t = 16 / esz, off;
  if (!trans) off = mode ? (row % 8) * span + (row / 8) * sbo + k * esz
                         : (row % 8) * 16 + (row / 8) * sbo + (k % t) * esz + (k / t) * lbo;
  else off = mode ? (row % (w * t)) * esz + (row / (w * t)) * lbo + (k % 8) * span + (k / 8) * sbo
                  : (row % t) * esz + (row / t) * sbo + (k % 8) * 16 + (k / 8) * lbo;
  return kg_emu__swz(start + off, mode ? span : 0);
}

static void kg_emu__wgmma_run(kg_emu_fiber *g, unsigned size) {
  (void)size;
  const kg_emu_wgmma_lane *x0 = (const kg_emu_wgmma_lane *)g[0].coll_arg;
  int n = x0->n, bf = x0->type;
  kg_emu_run *r = kg_emu__run;
  for (unsigned l = 1; l < 128; l++) {
    const kg_emu_wgmma_lane *x = (const kg_emu_wgmma_lane *)g[l].coll_arg;
    if (x->da != x0->da || x->db != x0->db || x->scale_d != x0->scale_d) {
      char t1[40], t2[40];
      kg_emu__fail("wgmma.mma_async at line %d: threads %s and %s of one warpgroup give different descriptors or scale-d",
                   x0->line, kg_emu__tname(g[0].tid, t1), kg_emu__tname(g[l].tid, t2));
      return;
    }
  }
  if (((x0->da >> 49) & 7u) || ((x0->db >> 49) & 7u)) {
    kg_emu__fail("wgmma.mma_async at line %d: a descriptor with a non-zero base offset (not emulated)", x0->line);
    return;
  }
  static _Thread_local double A[64][16], B[256][16]; /* the last thread to arrive runs this: its fiber stack is small */
  for (unsigned m = 0; m < 64; m++)
    for (unsigned k = 0; k < 16; k++) {
      unsigned a = kg_emu__desc_addr(x0->da, x0->ta, m, k, 2);
      if (a + 2 > r->dyn_len) {
        kg_emu__fail("wgmma.mma_async at line %d: A's element (%u, %u) lies at shared address %u, past the %zu bytes of shared memory", x0->line, m, k, a, r->dyn_len);
        return;
      }
      unsigned short h;
      memcpy(&h, r->dyn + a, 2);
      A[m][k] = bf ? kg_emu__bf2f(h) : kg_emu_h2f(h);
    }
  for (int nn = 0; nn < n; nn++)
    for (unsigned k = 0; k < 16; k++) {
      unsigned a = kg_emu__desc_addr(x0->db, x0->tb, (unsigned)nn, k, 2);
      if (a + 2 > r->dyn_len) {
        kg_emu__fail("wgmma.mma_async at line %d: B's element (%d, %u) lies at shared address %u, past the %zu bytes of shared memory", x0->line, nn, k, a, r->dyn_len);
        return;
      }
      unsigned short h;
      memcpy(&h, r->dyn + a, 2);
      B[nn][k] = bf ? kg_emu__bf2f(h) : kg_emu_h2f(h);
    }
  for (unsigned t = 0; t < 128; t++) {
    const kg_emu_wgmma_lane *x = (const kg_emu_wgmma_lane *)g[t].coll_arg;
    unsigned w = t / 32, lane = t % 32, gid = lane / 4, q = lane % 4;
    for (int i = 0; i < n / 2; i++) {
      unsigned row = 16 * w + gid + 8 * ((i >> 1) & 1), col = 8 * (unsigned)(i >> 2) + 2 * q + (unsigned)(i & 1);
      double s = x0->scale_d ? *x->d[i] : 0.0;
      for (unsigned k = 0; k < 16; k++) s += A[row][k] * B[col][k];
      *x->d[i] = (float)s;
    }
  }
}
void kg_emu_wgmma(int type, int n, unsigned long long da, unsigned long long db, int scale_d, int ta, int tb, float **d,
                         int line) {
  if (n < 8 || n > 256 || n % 8) {
    kg_emu__fail("wgmma.mma_async at line %d: N = %d (8 to 256, a multiple of 8)", line, n);
    kg_emu__abandon();
  }
  kg_emu_wgmma_lane x = {d, da, db, type, n, scale_d != 0, ta, tb, line};
  kg_emu__collective(kg_emu__wgmma_run, 128, &x, type ? "wgmma.mma_async.bf16" : "wgmma.mma_async.f16", line);
}
/* wgmma.fence / commit_group / wait_group: warpgroup-aligned; ordering only here */
static void kg_emu__wg_nop(kg_emu_fiber *g, unsigned size) { (void)g, (void)size; }
void kg_emu_wgmma_sync(const char *what, int line) { kg_emu__collective(kg_emu__wg_nop, 128, NULL, what, line); }
