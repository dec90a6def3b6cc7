/* frontend/layout_int.h — what layout.c (the layout ops' shape rules: reshape and view()'s
 * stride check, permutes, slices, cat, factories, __getitem__) shares with layout_members.c (the
 * H_LAYOUT member handler, which binds TorchSharp's arguments to them). Internal to frontend/;
 * both files call the functions by the short names below. */
#ifndef KG_LAYOUT_INT_H
#define KG_LAYOUT_INT_H

#include "frontend.h"

typedef struct lay {
  kg_elab *el;
  const kg_ast *at;
  const char *what; /* "view()", for messages */
} lay;

static inline bool is_one(const kg_dim *d) { return d->kind == KG_DIM_STATIC && d->v == 1; }
static inline bool dim_eq(const kg_dim *a, const kg_dim *b) { return a->kind == b->kind && a->v == b->v; }

/* TensorIndex kinds (EV_TINDEX values' c.i) */
enum { KG_TI_SINGLE, KG_TI_SLICE, KG_TI_TENSOR, KG_TI_ELLIPSIS, KG_TI_NONE, KG_TI_COLON, KG_TI_BOOL };

kg_ev kg_lay_fail(lay *L, kg_diag_code code, const char *fmt, ...) KG_PRINTF(3, 4);
bool kg_lay_const_i(kg_ev v, int64_t *out);
bool kg_lay_int_arg(lay *L, kg_ev v, int64_t *out, const char *name);
bool kg_lay_size_arg(lay *L, kg_ev v, kg_dim *out);
int kg_lay_sizes_arg(lay *L, kg_ev v, kg_dim *out, int max);
bool kg_lay_norm_dim(lay *L, int64_t d, int rank, int *out);
bool kg_lay_tensor_arg(lay *L, kg_ev v, uint32_t *id);
uint32_t kg_lay_add(lay *L, kg_op op, kg_dtype dt, const uint32_t *in, int n, const kg_shape *sh, int64_t a0, int64_t a1, int64_t a2);
void kg_lay_shape_text(lay *L, const kg_shape *s, char *buf, size_t cap);
kg_ev kg_lay_reshape_to(lay *L, uint32_t x, const kg_dim *want, int n, bool viewing);
kg_ev kg_lay_permute(lay *L, uint32_t x, const int *perm);
kg_ev kg_lay_transpose(lay *L, uint32_t x, int64_t d0, int64_t d1);
kg_ev kg_lay_slice(lay *L, uint32_t x, int d, int64_t start, int64_t len, int64_t step);
kg_ev kg_lay_select_at(lay *L, uint32_t x, int d, int64_t i);
int64_t kg_lay_static_size(lay *L, uint32_t x, int d, const char *why);
kg_ev kg_lay_array_of(lay *L, const kg_ev *items, int n);
kg_ev kg_lay_split_at(lay *L, uint32_t x, int d, const int64_t *len, int n);
kg_ev kg_lay_cat(lay *L, const uint32_t *in, int n, int64_t dim);
int kg_lay_tensor_list(lay *L, kg_ev v, uint32_t *out, int max);
kg_ev kg_lay_unsqueeze(lay *L, uint32_t x, int64_t dim);
kg_ev kg_lay_fill(lay *L, const kg_dim *sz, int n, kg_ev value, kg_dtype dt);
kg_ev kg_lay_tindex(lay *L, int kind, const kg_ev *ops, int n);
kg_ev kg_lay_getitem(lay *L, uint32_t x, const kg_ev *ix, int ni);
/* random.c: dropout (training), rand / randn (_like), bernoulli; x = the tensor argument or KG_NONE */
kg_ev kg_lay_random(lay *L, const char *nm, const kg_member_row *row, const kg_ev *av, int n, uint32_t x);
/* random.c: dropout's mask of probability p (1/(1-p) where the draw keeps, else 0) over sh */
kg_ev kg_lay_dropout_mask(lay *L, kg_dtype dt, const kg_shape *sh, double p);
/* einsum.c: einsum (equation, tensors) and outer / ger (x, vec2) */
kg_ev kg_lay_einsum(lay *L, const char *nm, const kg_ev *av, int n, uint32_t x);

#define fail(...) kg_lay_fail(__VA_ARGS__)
#define const_i(...) kg_lay_const_i(__VA_ARGS__)
#define int_arg(...) kg_lay_int_arg(__VA_ARGS__)
#define size_arg(...) kg_lay_size_arg(__VA_ARGS__)
#define sizes_arg(...) kg_lay_sizes_arg(__VA_ARGS__)
#define norm_dim(...) kg_lay_norm_dim(__VA_ARGS__)
#define tensor_arg(...) kg_lay_tensor_arg(__VA_ARGS__)
#define add(...) kg_lay_add(__VA_ARGS__)
#define shape_text(...) kg_lay_shape_text(__VA_ARGS__)
#define reshape_to(...) kg_lay_reshape_to(__VA_ARGS__)
#define permute(...) kg_lay_permute(__VA_ARGS__)
#define transpose(...) kg_lay_transpose(__VA_ARGS__)
#define slice(...) kg_lay_slice(__VA_ARGS__)
#define select_at(...) kg_lay_select_at(__VA_ARGS__)
#define static_size(...) kg_lay_static_size(__VA_ARGS__)
#define array_of(...) kg_lay_array_of(__VA_ARGS__)
#define split_at(...) kg_lay_split_at(__VA_ARGS__)
#define cat(...) kg_lay_cat(__VA_ARGS__)
#define tensor_list(...) kg_lay_tensor_list(__VA_ARGS__)
#define unsqueeze(...) kg_lay_unsqueeze(__VA_ARGS__)
#define fill(...) kg_lay_fill(__VA_ARGS__)
#define tindex(...) kg_lay_tindex(__VA_ARGS__)
#define getitem(...) kg_lay_getitem(__VA_ARGS__)
#define gnode kg_elab_gnode
#define err kg_elab_error

#endif
