/* runtime/package_read.c — reading an offline kernel package's container (runtime/package.h
 * gives the layout, docs/package.md the format): the header, the manifest and its sections,
 * with located errors for every way a file can be wrong — not a package at all (another
 * file's magic), truncated, corrupted (a hash that does not match), of another format
 * version or kgen ABI — and the module side of the API for a package: its entries, their
 * parameters, the signature a call's tensors fit, and `kgen explain`'s description.
 *
 * Section hashes are checked on first use (kg_pkg_section_bytes), so loading a package and
 * specializing one entry reads and hashes only that entry's sections.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "package.h"

static uint64_t get_le(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

void kg_pkg_abi(char out[17]) {
  /* what a packaged plan and its kernels rely on besides the format: the emulator header the
   * CUDA C is compiled with, the op and dtype tables (ops are stored by name, but their
   * attributes' meanings go with the table), the structures the runtime reads. A constant of
   * the library: computed once (hashing the header was 5 % of loading a package) */
  static _Atomic uint64_t cached; /* 0: not yet (a race computes it twice, the same) */
  uint64_t h = cached;
  if (!h) {
    h = kg_hash64(kg_emu_header_text, strlen(kg_emu_header_text), KG_PKG_FORMAT);
    for (int i = 0; i < KG_OP__COUNT; i++) h = kg_hash64(kg_op_name((kg_op)i), strlen(kg_op_name((kg_op)i)), h);
    for (int i = 0; i < KG_DT__COUNT; i++) h = kg_hash64(kg_dtype_name((kg_dtype)i), strlen(kg_dtype_name((kg_dtype)i)), h);
    uint32_t sizes[] = {(uint32_t)sizeof(kg_gnode), (uint32_t)sizeof(kg_kparam), (uint32_t)sizeof(kg_launch), (uint32_t)sizeof(kg_variant),
                        (uint32_t)sizeof(kg_pop), (uint32_t)KPR_RNG, (uint32_t)KG_MM__COUNT, (uint32_t)KG_MAX_RANK};
    h = kg_hash64(sizes, sizeof sizes, h);
    if (!h) h = 1;
    cached = h;
  }
  kg_hash_hex(h, out);
}

static bool fail(kg_diag *d, const char *path, const char *fmt, ...) KG_PRINTF(3, 4);
static bool fail(kg_diag *d, const char *path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kg_diag_vadd(d, KG_E_FORMAT, path, NULL, fmt, ap);
  va_end(ap);
  return false;
}

static bool read_param(kg_pkr *R, const cJSON *j, kg_pkg_param *p) {
  static const char *const keys[] = {"name", "dtype", "scalar", "dims", "capture"};
  if (!kg_pkr_keys(R, j, keys, (int)KG_COUNTOF(keys))) return false;
  const char *dt = kg_pkr_strv(R, kg_pkr_get(j, "dtype"), "dtype", false);
  if (!dt) return false;
  p->dtype = kg_dtype_from_name(dt);
  if (p->dtype == KG_DT_NONE) return kg_pkr_fail(R, "dtype '%s' is not known", dt);
  p->scalar = kg_pkr_get(j, "scalar") != NULL;
  p->capture = kg_pkr_strv(R, kg_pkr_get(j, "capture"), "capture", true);
  const cJSON *dims = kg_pkr_get(j, "dims");
  if (!cJSON_IsArray(dims) || cJSON_GetArraySize(dims) > KG_MAX_RANK) return kg_pkr_fail(R, "dims: expected at most %d sizes", KG_MAX_RANK);
  int i = 0;
  for (const cJSON *x = dims->child; x; x = x->next, i++) {
    if (cJSON_IsString(x)) {
      p->size[i] = -1, p->sym[i] = kg_arena_strdup(R->arena, x->valuestring);
    } else if (!kg_pkr_int(R, x, "dims", 0, INT64_MAX, &p->size[i])) {
      return false;
    }
  }
  p->rank = i;
  return !R->failed;
}

static bool read_sec(kg_pkr *R, const cJSON *j, const char *key, uint32_t nsec, bool nullable, int32_t *out) {
  const cJSON *v = kg_pkr_get(j, key);
  *out = -1;
  if (nullable && (!v || cJSON_IsNull(v))) return true;
  int64_t y;
  if (!kg_pkr_int(R, v, key, 0, (int64_t)nsec - 1, &y)) return false;
  *out = (int32_t)y;
  return true;
}

static bool read_sig(kg_pkr *R, const cJSON *j, uint32_t nsec, kg_pkg_sig *s) {
  static const char *const keys[] = {"sig", "params", "n_inputs", "guards", "plan", "code", "kmeta", "cuda", "twins",
                                     "cubins", "ptx", "kernels", "variants", "stats"};
  if (!kg_pkr_keys(R, j, keys, (int)KG_COUNTOF(keys))) return false;
  s->text = kg_pkr_strv(R, kg_pkr_get(j, "sig"), "sig", false);
  s->stats = kg_pkr_strv(R, kg_pkr_get(j, "stats"), "stats", true);
  const cJSON *ps = kg_pkr_get(j, "params");
  if (!s->text || R->failed || !cJSON_IsArray(ps)) return kg_pkr_fail(R, "a signature needs its text and params");
  s->n_params = (uint32_t)cJSON_GetArraySize(ps);
  s->params = kg_arena_alloc(R->arena, (s->n_params + 1) * sizeof *s->params);
  int i = 0;
  for (const cJSON *x = ps->child; x; x = x->next, i++) {
    kg_pkr_push(R, "params", i);
    bool ok = read_param(R, x, &s->params[i]);
    kg_pkr_pop(R);
    if (!ok) return false;
  }
  int64_t y;
  if (!kg_pkr_int(R, kg_pkr_get(j, "n_inputs"), "n_inputs", 0, s->n_params, &y)) return false;
  s->n_inputs = (uint32_t)y;
  const cJSON *gs = kg_pkr_get(j, "guards");
  if (!cJSON_IsArray(gs)) return kg_pkr_fail(R, "guards: expected an array");
  s->n_guards = (uint32_t)cJSON_GetArraySize(gs);
  s->guards = kg_arena_alloc(R->arena, (s->n_guards + 1) * sizeof *s->guards);
  i = 0;
  for (const cJSON *x = gs->child; x; x = x->next, i++) {
    if (cJSON_GetArraySize(x) != 2 || !cJSON_IsString(x->child) || !cJSON_IsString(x->child->next)) return kg_pkr_fail(R, "guards: expected pairs of symbols");
    s->guards[i][0] = kg_arena_strdup(R->arena, x->child->valuestring), s->guards[i][1] = kg_arena_strdup(R->arena, x->child->next->valuestring);
  }
  if (!read_sec(R, j, "plan", nsec, false, &s->plan) || !read_sec(R, j, "code", nsec, false, &s->code) || !read_sec(R, j, "kmeta", nsec, false, &s->kmeta) ||
      !read_sec(R, j, "cuda", nsec, false, &s->cuda))
    return false;
  const cJSON *tw = kg_pkr_get(j, "twins");
  if (!cJSON_IsArray(tw) || cJSON_GetArraySize(tw) != 4) return kg_pkr_fail(R, "twins: expected 4 sections");
  i = 0;
  for (const cJSON *x = tw->child; x; x = x->next, i++) {
    if (cJSON_IsNull(x) && i >= 2) { s->twin[i] = -1; continue; }
    if (!kg_pkr_int(R, x, "twins", 0, (int64_t)nsec - 1, &y)) return false;
    s->twin[i] = (int32_t)y;
  }
  const cJSON *cb = kg_pkr_get(j, "cubins");
  if (!cJSON_IsArray(cb) || cJSON_GetArraySize(cb) > KG_PKG_MAX_ARCH) return kg_pkr_fail(R, "cubins: expected at most %d", KG_PKG_MAX_ARCH);
  i = 0;
  for (const cJSON *x = cb->child; x; x = x->next, i++) {
    kg_pkr_push(R, "cubins", i);
    bool ok = kg_pkr_int(R, kg_pkr_get(x, "arch"), "arch", 10, 1000, &y) && read_sec(R, x, "section", nsec, false, &s->cubin[i]);
    if (ok && i && y <= s->arch[i - 1]) ok = kg_pkr_fail(R, "archs must ascend");
    kg_pkr_pop(R);
    if (!ok) return false;
    s->arch[i] = (int)y;
  }
  s->n_arch = i;
  const cJSON *px = kg_pkr_get(j, "ptx");
  s->ptx = -1;
  if (px && !cJSON_IsNull(px)) {
    kg_pkr_push(R, "ptx", -1);
    bool ok = kg_pkr_int(R, kg_pkr_get(px, "arch"), "arch", 10, 1000, &y) && read_sec(R, px, "section", nsec, false, &s->ptx);
    kg_pkr_pop(R);
    if (!ok) return false;
    s->ptx_arch = (int)y;
  }
  if (!kg_pkr_int(R, kg_pkr_get(j, "kernels"), "kernels", 0, UINT32_MAX, &y)) return false;
  s->n_kernels = (uint32_t)y;
  if (!kg_pkr_int(R, kg_pkr_get(j, "variants"), "variants", 0, UINT32_MAX, &y)) return false;
  s->n_variants = (uint32_t)y;
  return true;
}

static bool read_manifest(kg_package *pk, const cJSON *man, bool check_abi, kg_diag *d) {
  kg_pkr R = {.arena = &pk->arena, .d = d, .where = "manifest", .file = pk->path};
  static const char *const keys[] = {"format", "format_version", "kgen_version", "abi", "created_by", "entries", "sections"};
  if (!kg_pkr_keys(&R, man, keys, (int)KG_COUNTOF(keys))) return false;
  const cJSON *fmt = kg_pkr_get(man, "format");
  if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, "kgen-package")) return kg_pkr_fail(&R, "format: expected \"kgen-package\"");
  pk->kgen_version = kg_pkr_strv(&R, kg_pkr_get(man, "kgen_version"), "kgen_version", false);
  pk->abi = kg_pkr_strv(&R, kg_pkr_get(man, "abi"), "abi", false);
  pk->created_by = kg_pkr_strv(&R, kg_pkr_get(man, "created_by"), "created_by", true);
  if (R.failed) return false;
  char abi[17];
  kg_pkg_abi(abi);
  if (check_abi && strcmp(abi, pk->abi)) {
    kg_diag_add(d, KG_E_FORMAT, "$.abi", NULL,
                "%s was written by kgen %s with kernel ABI %s; this library is kgen %s with ABI %s (its emulator header, op table or runtime "
                "structures differ): its kernels and plans may not match this runtime; package the model again with this kgen (kgen package)",
                pk->path, pk->kgen_version, pk->abi, KGEN_VERSION_STRING, abi);
    return false;
  }
  const cJSON *secs = kg_pkr_get(man, "sections");
  if (!cJSON_IsArray(secs)) return kg_pkr_fail(&R, "sections: expected an array");
  pk->n_secs = (uint32_t)cJSON_GetArraySize(secs);
  pk->secs = kg_arena_alloc(&pk->arena, (pk->n_secs + 1) * sizeof *pk->secs);
  uint64_t data = pk->len - pk->data_off;
  int i = 0;
  for (const cJSON *x = secs->child; x; x = x->next, i++) {
    kg_pkg_section *s = &pk->secs[i];
    int64_t off, len;
    kg_pkr_push(&R, "sections", i);
    const cJSON *sh = kg_pkr_get(x, "sha256");
    bool ok = (s->name = kg_pkr_strv(&R, kg_pkr_get(x, "name"), "name", false)) && kg_pkr_int(&R, kg_pkr_get(x, "offset"), "offset", 0, INT64_MAX, &off) &&
              kg_pkr_int(&R, kg_pkr_get(x, "length"), "length", 0, INT64_MAX, &len);
    if (ok && (!cJSON_IsString(sh) || strlen(sh->valuestring) != 64)) ok = kg_pkr_fail(&R, "sha256: expected 64 hex digits");
    if (ok && ((uint64_t)off > data || (uint64_t)len > data - (uint64_t)off))
      ok = kg_pkr_fail(&R, "section '%s' (%lld bytes at %lld) lies past the end of the file (%llu bytes of sections): the package is truncated", s->name,
                       (long long)len, (long long)off, (unsigned long long)data);
    kg_pkr_pop(&R);
    if (!ok) return false;
    s->off = (uint64_t)off, s->len = (uint64_t)len;
    memcpy(s->sha, sh->valuestring, 65);
  }
  const cJSON *ents = kg_pkr_get(man, "entries");
  if (!cJSON_IsArray(ents) || !cJSON_GetArraySize(ents)) return kg_pkr_fail(&R, "entries: expected a non-empty array");
  pk->n_entries = (uint32_t)cJSON_GetArraySize(ents);
  pk->entries = kg_arena_alloc(&pk->arena, (pk->n_entries + 1) * sizeof *pk->entries);
  i = 0;
  for (const cJSON *x = ents->child; x; x = x->next, i++) {
    kg_pkg_entry *e = &pk->entries[i];
    kg_pkr_push(&R, "entries", i);
    const cJSON *sg = kg_pkr_get(x, "signatures");
    e->name = kg_pkr_strv(&R, kg_pkr_get(x, "name"), "name", false);
    bool ok = e->name && cJSON_IsArray(sg) && cJSON_GetArraySize(sg) > 0;
    if (e->name && !ok) kg_pkr_fail(&R, "signatures: expected a non-empty array");
    if (ok) {
      e->n_sigs = (uint32_t)cJSON_GetArraySize(sg);
      e->sigs = kg_arena_alloc(&pk->arena, (e->n_sigs + 1) * sizeof *e->sigs);
      int k = 0;
      for (const cJSON *y = sg->child; y && ok; y = y->next, k++) {
        kg_pkr_push(&R, "signatures", k);
        ok = read_sig(&R, y, pk->n_secs, &e->sigs[k]);
        if (ok && k && e->sigs[k].n_inputs != e->sigs[0].n_inputs) ok = kg_pkr_fail(&R, "signatures of one entry differ in their inputs");
        kg_pkr_pop(&R);
      }
    }
    for (uint32_t q = 0; ok && q < (uint32_t)i; q++)
      if (!strcmp(pk->entries[q].name, e->name)) ok = kg_pkr_fail(&R, "entry '%s' appears twice", e->name);
    kg_pkr_pop(&R);
    if (!ok) return false;
  }
  return true;
}

kg_package *kg_pkg_parse(unsigned char *bytes, size_t len, const char *path, unsigned flags, kg_diag *d) {
  kg_package *pk = kg_xcalloc(1, sizeof *pk);
  kg_arena_init(&pk->arena);
  pk->path = kg_xstrdup(path ? path : "package");
  pk->bytes = bytes, pk->len = len, pk->flags = flags;
  const char *P = pk->path;
  bool ok = true;
  if (len < 8 || memcmp(bytes, KG_PKG_MAGIC, 8) != 0) {
    bool json = len && (bytes[0] == '{' || bytes[0] == ' ' || bytes[0] == '\n');
    ok = fail(d, NULL, "%s is not a kgen kernel package (no \\x89KGPKG magic at its start%s)", P,
              json ? "; it looks like JSON: a quotation document is loaded with kg_module_load_file" : "");
  } else if (len < KG_PKG_HEADER) {
    ok = fail(d, NULL, "%s is truncated: %zu bytes, shorter than the package header (%d)", P, len, KG_PKG_HEADER);
  }
  uint64_t moff = 0, mlen = 0;
  if (ok) {
    pk->format = (int)get_le(bytes + 8, 4);
    moff = get_le(bytes + 16, 8), mlen = get_le(bytes + 24, 8);
    if (pk->format != KG_PKG_FORMAT)
      ok = fail(d, NULL, "%s has package format version %d; this kgen (%s) reads version %d: package the model again with this kgen", P, pk->format,
                KGEN_VERSION_STRING, KG_PKG_FORMAT);
    else if (get_le(bytes + 12, 4) != KG_PKG_HEADER || moff != KG_PKG_HEADER)
      ok = fail(d, NULL, "%s: corrupt package header (header size %llu, manifest at %llu)", P, (unsigned long long)get_le(bytes + 12, 4),
                (unsigned long long)moff);
    else if (mlen > len - moff)
      ok = fail(d, NULL, "%s is truncated: its manifest needs %llu bytes at offset %llu, the file has %zu", P, (unsigned long long)mlen,
                (unsigned long long)moff, len);
  }
  if (ok) {
    unsigned char h[32];
    kg_sha256(bytes + moff, (size_t)mlen, h);
    if (memcmp(h, bytes + 32, 32) != 0 && !(flags & KG_PKG_NO_HASH)) ok = fail(d, NULL, "%s is corrupted: its manifest does not match the content hash in its header", P);
    static const char hx[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) pk->hash[2 * i] = hx[bytes[32 + i] >> 4], pk->hash[2 * i + 1] = hx[bytes[32 + i] & 15];
  }
  const cJSON *man = NULL;
  kg_arena ja; /* the manifest's parse tree: what read_manifest keeps is copied to pk->arena */
  kg_arena_init(&ja);
  if (ok) {
    pk->data_off = (moff + mlen + 15) & ~(uint64_t)15;
    if (pk->data_off > len) pk->data_off = len;
    char why[128];
    man = kg_pkj_parse(&ja, (const char *)bytes + moff, (size_t)mlen, why, sizeof why);
    if (!man) ok = fail(d, NULL, "%s: the manifest is not JSON (%s)", P, why);
  }
  if (ok) ok = read_manifest(pk, man, !(flags & KG_PKG_ANY_ABI), d);
  kg_arena_free(&ja);
  if (!ok) {
    kg_pkg_free(pk, NULL);
    return NULL;
  }
  return pk;
}

void kg_pkg_free(kg_package *pk, kg_context *ctx) {
  if (!pk) return;
  for (uint32_t e = 0; e < pk->n_entries; e++)
    for (uint32_t s = 0; s < pk->entries[e].n_sigs; s++)
      if (pk->entries[e].sigs[s].cuda_mod && ctx && ctx->cuda) ctx->cuda->vt->unload(ctx->cuda, pk->entries[e].sigs[s].cuda_mod);
  kg_arena_free(&pk->arena);
  if (pk->flags & KG_PKG_MAPPED) {
    if (pk->len) munmap(pk->bytes, pk->len);
  } else {
    free(pk->bytes);
  }
  free(pk->path);
  free(pk);
}

const unsigned char *kg_pkg_section_bytes(kg_package *pk, int32_t sec, size_t *len, kg_diag *d) {
  if (sec < 0 || (uint32_t)sec >= pk->n_secs) {
    kg_diag_add(d, KG_E_FORMAT, NULL, NULL, "%s: a section the package does not have", pk->path);
    return NULL;
  }
  kg_pkg_section *s = &pk->secs[sec];
  const unsigned char *p = pk->bytes + pk->data_off + s->off;
  if (!s->verified && !(pk->flags & KG_PKG_NO_HASH)) {
    char h[65];
    kg_sha256_hex(p, (size_t)s->len, h);
    if (strcmp(h, s->sha)) {
      kg_diag_add(d, KG_E_FORMAT, NULL, NULL, "%s is corrupted: section '%s' (%llu bytes at %llu) does not match its SHA-256", pk->path, s->name,
                  (unsigned long long)s->len, (unsigned long long)(pk->data_off + s->off));
      return NULL;
    }
    s->verified = true;
  }
  *len = (size_t)s->len;
  return p;
}

/* ---- the module side ---- */

int kg_pkg_entry_index(kg_module *m, const char *entry) {
  kg_package *pk = m->pkg;
  if (!entry) return 0;
  for (uint32_t i = 0; i < pk->n_entries; i++)
    if (!strcmp(pk->entries[i].name, entry)) return (int)i;
  kg_strbuf b;
  kg_sb_init(&b);
  for (uint32_t i = 0; i < pk->n_entries; i++) kg_sb_printf(&b, "%s%s", i ? ", " : "", pk->entries[i].name);
  kg_diag_add(&m->ctx->diag, KG_E_ARG, "$.entries", NULL, "package %s has no entry named '%s' (entries: %s)", pk->path, entry, kg_sb_cstr(&b));
  kg_sb_free(&b);
  return -1;
}

int kg_pkg_entry_n_params(kg_module *m, int ei) { return (int)m->pkg->entries[ei].sigs[0].n_inputs; }

int kg_pkg_entry_param(kg_module *m, int ei, int i, DLDataType *scalar_dtype) {
  const kg_pkg_sig *s = &m->pkg->entries[ei].sigs[0];
  if (i < 0 || (uint32_t)i >= s->n_inputs) return -1;
  if (!s->params[i].scalar) return 0;
  if (scalar_dtype) *scalar_dtype = kg_dtype_to_dl(s->params[i].dtype);
  return 1;
}

/* why t does not fit p (NULL: it fits), binding symbols by name in syms/vals */
static const char *misfit(const kg_pkg_param *p, const DLTensor *t, const char **syms, int64_t *vals, int *nsym, char *buf, size_t cap) {
  if (!t) return "missing";
  kg_dtype dt = kg_dtype_from_dl(t->dtype);
  if (dt != p->dtype) return snprintf(buf, cap, "is %s, the signature %s", dt == KG_DT_NONE ? "of an unsupported dtype" : kg_dtype_name(dt), kg_dtype_name(p->dtype)), buf;
  if (t->ndim != p->rank) return snprintf(buf, cap, "has rank %d, the signature %d", t->ndim, p->rank), buf;
  for (int i = 0; i < p->rank; i++) {
    if (p->size[i] >= 0) {
      if (t->shape[i] != p->size[i]) return snprintf(buf, cap, "has size %lld at dim %d, the signature %lld", (long long)t->shape[i], i, (long long)p->size[i]), buf;
      continue;
    }
    int k = 0;
    while (k < *nsym && strcmp(syms[k], p->sym[i])) k++;
    if (k == *nsym) {
      if (*nsym >= KG_MAX_RANK * 64) return "has too many symbols";
      syms[k] = p->sym[i], vals[k] = t->shape[i], (*nsym)++;
    } else if (vals[k] != t->shape[i]) {
      return snprintf(buf, cap, "has size %lld at dim %d, but %s is already %lld", (long long)t->shape[i], i, p->sym[i], (long long)vals[k]), buf;
    }
  }
  return NULL;
}

int kg_pkg_fit(kg_module *m, int ei, const DLTensor *const *inputs, int n_inputs, const kg_named_tensor *captures, int n_captures) {
  const kg_pkg_entry *e = &m->pkg->entries[ei];
  kg_strbuf why;
  kg_sb_init(&why);
  const char **syms = kg_xcalloc(KG_MAX_RANK * 64 + 1, sizeof *syms);
  int64_t *vals = kg_xcalloc(KG_MAX_RANK * 64 + 1, sizeof *vals);
  int found = -1;
  for (uint32_t s = 0; s < e->n_sigs && found < 0; s++) {
    const kg_pkg_sig *S = &e->sigs[s];
    int nsym = 0;
    char buf[200];
    const char *bad = NULL;
    uint32_t bad_p = 0;
    if ((uint32_t)n_inputs != S->n_inputs) {
      snprintf(buf, sizeof buf, "%d input(s) given, it takes %u", n_inputs, S->n_inputs);
      bad = buf, bad_p = KG_NONE;
    }
    for (uint32_t p = 0; p < S->n_params && !bad; p++) {
      const DLTensor *t = NULL;
      if (p < S->n_inputs) t = inputs[p];
      else
        for (int j = 0; j < n_captures; j++)
          if (captures[j].name && !strcmp(captures[j].name, S->params[p].capture)) t = captures[j].t;
      bad = misfit(&S->params[p], t, syms, vals, &nsym, buf, sizeof buf), bad_p = p;
    }
    for (uint32_t q = 0; q < S->n_guards && !bad; q++) {
      int a = -1, b = -1;
      for (int k = 0; k < nsym; k++) a = strcmp(syms[k], S->guards[q][0]) ? a : k, b = strcmp(syms[k], S->guards[q][1]) ? b : k;
      if (a >= 0 && b >= 0 && vals[a] != vals[b]) {
        snprintf(buf, sizeof buf, "%s is %lld but %s is %lld (broadcast needs them equal)", S->guards[q][0], (long long)vals[a], S->guards[q][1], (long long)vals[b]);
        bad = buf, bad_p = KG_NONE;
      }
    }
    if (!bad) {
      found = (int)s;
      break;
    }
    if (bad_p == KG_NONE) kg_sb_printf(&why, "\n  %s: %s", S->text, bad);
    else if (bad_p < S->n_inputs) kg_sb_printf(&why, "\n  %s: input %u %s", S->text, bad_p + 1, bad);
    else kg_sb_printf(&why, "\n  %s: capture '%s' %s", S->text, S->params[bad_p].capture, bad);
  }
  if (found < 0)
    kg_diag_add(&m->ctx->diag, KG_E_SHAPE, NULL, NULL, "these tensors fit no signature entry '%s' of package %s was made for:%s", e->name, m->pkg->path,
                kg_sb_cstr(&why));
  kg_sb_free(&why);
  free(syms), free(vals);
  return found;
}

/* "float32[N, 768]" and "float32[N,768]" are one signature: compare without blanks */
static bool same_sig(const char *a, const char *b) {
  for (;;) {
    while (*a == ' ') a++;
    while (*b == ' ') b++;
    if (*a != *b) return false;
    if (!*a) return true;
    a++, b++;
  }
}

int kg_pkg_sig_named(kg_module *m, int ei, const char *sig) {
  const kg_pkg_entry *e = &m->pkg->entries[ei];
  if (!sig) return 0;
  for (uint32_t s = 0; s < e->n_sigs; s++)
    if (same_sig(e->sigs[s].text, sig)) return (int)s;
  kg_strbuf b;
  kg_sb_init(&b);
  for (uint32_t s = 0; s < e->n_sigs; s++) kg_sb_printf(&b, "\n  %s", e->sigs[s].text);
  kg_diag_add(&m->ctx->diag, KG_E_ARG, NULL, NULL, "entry '%s' of package %s was not made for signature '%s'; it has:%s", e->name, m->pkg->path, sig,
              kg_sb_cstr(&b));
  kg_sb_free(&b);
  return -1;
}

void kg_pkg_describe_sig(kg_package *pk, const kg_pkg_sig *s, kg_strbuf *b) {
  kg_sb_printf(b, "  signature %s\n    %u kernel(s) compiled, %u variant(s) packaged (every schedule the run-time scheduler can pick)\n", s->text,
               s->n_kernels, s->n_variants);
  kg_sb_puts(b, "    cubin:");
  if (!s->n_arch) kg_sb_puts(b, " none (emulator and PTX only)");
  for (int i = 0; i < s->n_arch; i++) kg_sb_printf(b, " sm_%d (%llu bytes)", s->arch[i], (unsigned long long)pk->secs[s->cubin[i]].len);
  if (s->ptx >= 0) kg_sb_printf(b, "; PTX sm_%d (%llu bytes, JIT by the driver on newer GPUs)", s->ptx_arch, (unsigned long long)pk->secs[s->ptx].len);
  kg_sb_printf(b, "\n    CUDA C %llu bytes, emulator translation units %llu bytes, plan %llu bytes\n", (unsigned long long)pk->secs[s->cuda].len,
               (unsigned long long)pk->secs[s->code].len, (unsigned long long)pk->secs[s->plan].len);
  if (s->stats && *s->stats) kg_sb_puts(b, s->stats);
}

/* ---- the public calls (kgen.h) ---- */

static kg_status package_load_locked(kg_context *ctx, const char *path, kg_module **out);
kg_status kg_package_load(kg_context *ctx, const char *path, kg_module **out) {
  kg_context *lk = ctx;
  kg_ctx_lock(lk);
  kg_status s = package_load_locked(ctx, path, out);
  kg_ctx_unlock(lk);
  return s;
}
static kg_status package_load_locked(kg_context *ctx, const char *path, kg_module **out) {
  kg_call_begin(ctx);
  *out = NULL;
  /* mapped, not read: a package of many entries pages in only what one entry uses */
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  const char *why = NULL;
  void *bytes = NULL;
  size_t len = 0;
  if (fd < 0) why = strerror(errno);
  else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) why = "not a regular file";
  else if ((len = (size_t)st.st_size) && (bytes = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) why = strerror(errno);
  if (fd >= 0) close(fd);
  if (why) {
    kg_diag_add(&ctx->diag, KG_E_IO, NULL, NULL, "cannot read %s: %s", path, why);
    return kg_fail(ctx);
  }
  kg_package *pk = kg_pkg_parse((unsigned char *)bytes, len, path, KG_PKG_MAPPED, &ctx->diag);
  if (!pk) return kg_fail(ctx);
  kg_module *m = kg_xcalloc(1, sizeof *m);
  m->ctx = ctx, m->pkg = pk;
  kg_arena_init(&m->arena);
  *out = m;
  return KG_OK;
}

int kg_module_is_package(const kg_module *m) { return m && m->pkg ? 1 : 0; }

static kg_status package_describe_locked(kg_module *m, const char *entry, char **text);
kg_status kg_package_describe(kg_module *m, const char *entry, char **text) {
  kg_context *lk = m->ctx;
  kg_ctx_lock(lk);
  kg_status s = package_describe_locked(m, entry, text);
  kg_ctx_unlock(lk);
  return s;
}
static kg_status package_describe_locked(kg_module *m, const char *entry, char **text) {
  kg_call_begin(m->ctx);
  *text = NULL;
  kg_package *pk = m->pkg;
  if (!pk) {
    kg_diag_add(&m->ctx->diag, KG_E_ARG, NULL, NULL, "kg_package_describe: the module is a document, not a package");
    return kg_fail(m->ctx);
  }
  int only = entry ? kg_pkg_entry_index(m, entry) : -1;
  if (entry && only < 0) return kg_fail(m->ctx);
  kg_strbuf b;
  kg_sb_init(&b);
  kg_sb_printf(&b, "package %s: %zu bytes, format %d, written by %s (ABI %s)\ncontent hash (SHA-256) %s\n", pk->path, pk->len, pk->format,
               pk->created_by ? pk->created_by : pk->kgen_version, pk->abi, pk->hash);
  for (uint32_t e = 0; e < pk->n_entries; e++) {
    if (only >= 0 && (uint32_t)only != e) continue;
    kg_sb_printf(&b, "entry %s: %u signature(s)\n", pk->entries[e].name, pk->entries[e].n_sigs);
    for (uint32_t s = 0; s < pk->entries[e].n_sigs; s++) kg_pkg_describe_sig(pk, &pk->entries[e].sigs[s], &b);
  }
  *text = kg_sb_take(&b);
  return KG_OK;
}
