/* runtime/tmap.c — TMA tensor maps at launch: a kernel's KPR_TMAP parameter (kg_ktmap: which
 * operand, which of its dims are the box's) made from the operand's tensor of this run, and
 * encoded by the device (cuTensorMapEncodeTiled on CUDA, the emulator's own format on the CPU).
 *
 * The map's dims are the operand's two matrix dims, its contiguous one first, then — for an
 * operand with batch dims — one dim for all of them (the scheduler takes the Hopper tier only
 * where they collapse into one: every batch stride is the next one's times its size). */
#include <string.h>

#include "api_int.h"

bool kg_tmap_request(const kg_ktmap *tm, const DLTensor *t, kg_tmap_req *req, kg_diag *d) {
  memset(req, 0, sizeof *req);
  int r = t->ndim, in = r + tm->inner, out = r + tm->outer;
  if (r < 2 || in < 0 || out < 0 || in >= r || out >= r) {
    kg_diag_add(d, KG_E_INTERNAL, NULL, NULL, "tensor map of a rank-%d operand: bad dims %d, %d", r, tm->inner, tm->outer);
    return false;
  }
  uint32_t es = (uint32_t)((t->dtype.bits + 7) / 8);
  req->base = (const char *)t->data + t->byte_offset;
  req->esz = es;
  req->dims[0] = (uint64_t)t->shape[in], req->dims[1] = (uint64_t)t->shape[out];
  req->strides[1] = (uint64_t)kg_dl_stride(t, out) * es;
  req->rank = 2;
  req->box[0] = tm->box[0], req->box[1] = tm->box[1], req->box[2] = 1;
  req->swizzle = tm->swizzle;
  if (tm->batched && r > 2) {
    uint64_t nb = 1;
    for (int i = 0; i < r - 2; i++) nb *= (uint64_t)t->shape[i];
    req->rank = 3, req->dims[2] = nb, req->strides[2] = (uint64_t)kg_dl_stride(t, r - 3) * es;
  }
  for (uint32_t i = 0; i < req->rank; i++)
    if (!req->dims[i]) req->dims[i] = 1; /* an empty operand: nothing is launched, but keep the map valid */
  if (req->dims[1] == 1) req->strides[1] = (req->dims[0] * es + 15) / 16 * 16; /* any stride reads one row */
  return true;
}
