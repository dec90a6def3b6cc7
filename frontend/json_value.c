/* frontend/json_value.c — constants of a quotation document (spec "Values"): the JSON
 * of a Value node decoded by its .NET type into a kg_value.
 *
 * Each primitive type has one accepted form and range: System.Boolean true / false;
 * the small integers JSON integers within their range; Int64 / UInt64 (and enum numbers)
 * a JSON integer below 2^53 in magnitude or a string of digits, exact to the last bit;
 * Single / Double a number or "NaN" / "Infinity" / "-Infinity" (Single rounded once,
 * a value that would round to infinity refused); Unit null; String a string or null.
 * Other types take null or one of the object forms {"enum": n, "name": s},
 * {"array": [...]} (items decoded by the element type) and {"opaque": true}.
 * A value outside its type is a located format error, never a silent conversion.
 * Split from json.c (the document and node reader), whose second idea this was; it
 * reads with json.c's reader state and message helpers (json_int.h).
 *
 * Example:  {"k": "Value", "ty": "System.Int64", "value": "9007199254740993"}
 *   → KG_VAL_INT 9007199254740993 (a JSON number could not hold it exactly)
 */
#include "json_int.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

typedef enum kg_ty_class {
  KG_TY_OTHER,  /* null, {"enum"}, {"array"}, {"opaque"} */
  KG_TY_BOOL,   /* true / false */
  KG_TY_INT,    /* JSON integer within [lo, hi] */
  KG_TY_INT64,  /* JSON integer below 2^53 or a digit string */
  KG_TY_UINT64, /* the same, unsigned */
  KG_TY_SINGLE, /* number or "NaN" / "Infinity" / "-Infinity", rounded to float */
  KG_TY_DOUBLE, /* the same */
  KG_TY_UNIT,   /* null */
  KG_TY_STRING, /* string or null */
} kg_ty_class;

static const struct kg_prim_type {
  const char *name;
  kg_ty_class cls;
  int64_t lo, hi;
} kg_prim_types[] = {
    {"System.Boolean", KG_TY_BOOL, 0, 0},
    {"System.SByte", KG_TY_INT, INT8_MIN, INT8_MAX},
    {"System.Byte", KG_TY_INT, 0, UINT8_MAX},
    {"System.Int16", KG_TY_INT, INT16_MIN, INT16_MAX},
    {"System.UInt16", KG_TY_INT, 0, UINT16_MAX},
    {"System.Char", KG_TY_INT, 0, UINT16_MAX},
    {"System.Int32", KG_TY_INT, INT32_MIN, INT32_MAX},
    {"System.UInt32", KG_TY_INT, 0, UINT32_MAX},
    {"System.Int64", KG_TY_INT64, INT64_MIN, INT64_MAX},
    {"System.UInt64", KG_TY_UINT64, 0, 0},
    {"System.Single", KG_TY_SINGLE, 0, 0},
    {"System.Double", KG_TY_DOUBLE, 0, 0},
    {"System.Half", KG_TY_DOUBLE, 0, 0}, /* not in the spec; rounded to half by its users */
    {"Microsoft.FSharp.Core.Unit", KG_TY_UNIT, 0, 0},
    {"System.String", KG_TY_STRING, 0, 0},
};

static const struct kg_prim_type *kg_prim_type(const char *ty) {
  for (size_t i = 0; i < KG_COUNTOF(kg_prim_types); i++)
    if (strcmp(kg_prim_types[i].name, ty) == 0) return &kg_prim_types[i];
  return NULL;
}

/* A digit string, exactly: optional '-' then 1+ digits; false on syntax or overflow. */
static bool kg_parse_digits(const char *s, bool *neg, uint64_t *mag) {
  *neg = *s == '-';
  if (*neg) s++;
  if (!*s) return false;
  uint64_t m = 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return false;
    unsigned dg = (unsigned)(*s - '0');
    if (m > (UINT64_MAX - dg) / 10) return false;
    m = m * 10 + dg;
  }
  *mag = m;
  return true;
}

/* Stores a 64-bit integer (negative `neg` magnitude or unsigned `mag`) into v;
 * false when it does not fit (signed: Int64; else UInt64). */
static bool kg_set_int64(kg_value *v, bool neg, uint64_t mag, bool is_signed) {
  v->kind = KG_VAL_INT;
  if (neg) {
    if (!is_signed || mag > (uint64_t)INT64_MAX + 1) return mag == 0;
    v->i = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
    return true;
  }
  if (is_signed && mag > (uint64_t)INT64_MAX) return false;
  v->u = mag;
  if (mag > (uint64_t)INT64_MAX) {
    v->is_unsigned = true;
    v->i = (int64_t)(mag - (uint64_t)INT64_MAX - 1) + INT64_MIN; /* two's complement view */
  } else {
    v->i = (int64_t)mag;
  }
  return true;
}

/* An Int64 / UInt64 / enum number: a JSON integer below 2^53 in magnitude, or a digit string. */
static void kg_rd_int64(kg_rd *r, const cJSON *f, const char *tyname, bool is_signed,
                        const char *path, const kg_ast *at, kg_value *out) {
  if (cJSON_IsNumber(f)) {
    double v = f->valuedouble;
    if (v != floor(v) || !isfinite(v)) {
      kg_rd_err(r, KG_E_FORMAT, path, at, "value %s is not an integer (%s)", kg_rd_found(r, f),
                tyname);
    } else if (!(fabs(v) < KG_TWO_53)) {
      kg_rd_err(
          r, KG_E_FORMAT, path, at,
          "%s value %s is a JSON number of magnitude 2^53 or more, which a double cannot hold "
          "exactly: write it as a string of digits",
          tyname, kg_rd_found(r, f));
    } else if (!kg_set_int64(out, v < 0, (uint64_t)fabs(v), is_signed)) {
      kg_rd_err(r, KG_E_FORMAT, path, at, "value %s does not fit %s", kg_rd_valtext(r, f), tyname);
    }
    return;
  }
  bool neg;
  uint64_t mag;
  if (!cJSON_IsString(f)) {
    kg_rd_err(r, KG_E_FORMAT, path, at,
              "a %s value must be a JSON integer or a string of digits, found %s", tyname,
              kg_rd_found(r, f));
  } else if (!kg_parse_digits(f->valuestring, &neg, &mag)) {
    bool digits = f->valuestring[0] != 0;
    for (const char *s = f->valuestring + (f->valuestring[0] == '-'); *s; s++)
      digits &= *s >= '0' && *s <= '9';
    if (digits)
      kg_rd_err(r, KG_E_FORMAT, path, at, "value %s does not fit %s", kg_rd_valtext(r, f), tyname);
    else
      kg_rd_err(r, KG_E_FORMAT, path, at,
                "a %s value given as a string must be a string of digits, found %s", tyname,
                kg_rd_found(r, f));
  } else if (!kg_set_int64(out, neg, mag, is_signed)) {
    kg_rd_err(r, KG_E_FORMAT, path, at, "value %s does not fit %s", kg_rd_valtext(r, f), tyname);
  }
}

/* Single and Double: a number or one of the three special strings. */
static void kg_rd_float(kg_rd *r, const cJSON *f, const char *tyname, bool single, const char *path,
                        const kg_ast *at, kg_value *out) {
  out->kind = KG_VAL_FLOAT;
  if (cJSON_IsString(f)) {
    if (strcmp(f->valuestring, "NaN") == 0)
      out->f = NAN;
    else if (strcmp(f->valuestring, "Infinity") == 0)
      out->f = INFINITY;
    else if (strcmp(f->valuestring, "-Infinity") == 0)
      out->f = -INFINITY;
    else
      kg_rd_err(
          r, KG_E_FORMAT, path, at,
          "a %s value given as a string must be \"NaN\", \"Infinity\" or \"-Infinity\", found %s",
          tyname, kg_rd_found(r, f));
    return;
  }
  if (!cJSON_IsNumber(f) || !isfinite(f->valuedouble)) {
    kg_rd_err(r, KG_E_FORMAT, path, at,
              "a %s value must be a JSON number or \"NaN\", \"Infinity\", \"-Infinity\", found %s",
              tyname, kg_rd_found(r, f));
    return;
  }
  double v = f->valuedouble;
  /* Values at or beyond FLT_MAX + half an ulp round to infinity: not a float literal. */
  if (single && fabs(v) >= 0x1.ffffffp127) {
    kg_rd_err(r, KG_E_FORMAT, path, at, "value %s does not fit System.Single", kg_rd_found(r, f));
    return;
  }
  out->f = single ? (double)(float)v : v;
}

/* The object forms: {"enum": n, "name": s}, {"array": [...]}, {"opaque": true}. */
static void kg_rd_value_object(kg_rd *r, const cJSON *f, const char *ty, const char *path,
                               const kg_ast *at, kg_value *out) {
  const cJSON *en = cJSON_GetObjectItemCaseSensitive(f, "enum");
  const cJSON *ar = cJSON_GetObjectItemCaseSensitive(f, "array");
  const cJSON *op = cJSON_GetObjectItemCaseSensitive(f, "opaque");
  if ((en != NULL) + (ar != NULL) + (op != NULL) != 1) {
    kg_rd_err(
        r, KG_E_FORMAT, path, at,
        "a value object must have exactly one of the fields \"enum\", \"array\" or \"opaque\"");
    return;
  }
  if (op) {
    if (!cJSON_IsTrue(op)) kg_bad_field(r, op, "opaque", "true", path, at);
    out->kind = KG_VAL_OPAQUE;
  } else if (en) {
    kg_rd_int64(r, en, "enum", true, kg_rd_path(r, path, "enum", -1), at, out);
    out->kind = KG_VAL_ENUM;
    out->s = kg_req_str(r, f, "name", "an enum value", path, at, true);
  } else {
    size_t n = strlen(ty);
    if (!cJSON_IsArray(ar)) {
      kg_bad_field(r, ar, "array", "an array", path, at);
      return;
    }
    if (n < 3 || strcmp(ty + n - 2, "[]") != 0) {
      kg_rd_err(r, KG_E_FORMAT, path, at,
                "an {\"array\": [...]} value needs an array type (\"T[]\"), not '%s'",
                kg_fe_quote(r->arena, ty));
      return;
    }
    const char *elem = kg_arena_strndup(r->arena, ty, n - 2);
    out->kind = KG_VAL_ARRAY;
    out->n_items = (uint32_t)cJSON_GetArraySize(ar);
    out->items = kg_arena_alloc(r->arena, (out->n_items ? out->n_items : 1) * sizeof *out->items);
    uint32_t i = 0;
    for (const cJSON *e = ar->child; e; e = e->next, i++)
      kg_rd_value(r, e, elem, kg_rd_path(r, path, "array", (long)i), at, &out->items[i]);
  }
}

void kg_rd_value(kg_rd *r, const cJSON *f, const char *ty, const char *path,
                 const kg_ast *at, kg_value *out) {
  const struct kg_prim_type *p = kg_prim_type(ty);
  memset(out, 0, sizeof *out);
  switch (p ? p->cls : KG_TY_OTHER) {
  case KG_TY_BOOL:
    if (!cJSON_IsBool(f))
      kg_rd_err(r, KG_E_FORMAT, path, at, "a System.Boolean value must be true or false, found %s",
                kg_rd_found(r, f));
    out->kind = KG_VAL_BOOL, out->b = cJSON_IsTrue(f);
    return;
  case KG_TY_INT:
    out->kind = KG_VAL_INT;
    if (!cJSON_IsNumber(f))
      kg_rd_err(r, KG_E_FORMAT, path, at, "a %s value must be a JSON integer, found %s", ty,
                kg_rd_found(r, f));
    else if (f->valuedouble != floor(f->valuedouble) || !isfinite(f->valuedouble))
      kg_rd_err(r, KG_E_FORMAT, path, at, "value %s is not an integer (%s)", kg_rd_found(r, f), ty);
    else if (!(f->valuedouble >= (double)p->lo && f->valuedouble <= (double)p->hi))
      kg_rd_err(r, KG_E_FORMAT, path, at, "value %s does not fit %s (%lld to %lld)",
                kg_rd_found(r, f), ty, (long long)p->lo, (long long)p->hi);
    else
      out->i = (int64_t)f->valuedouble, out->u = (uint64_t)out->i;
    return;
  case KG_TY_INT64:
  case KG_TY_UINT64: kg_rd_int64(r, f, ty, p->cls == KG_TY_INT64, path, at, out); return;
  case KG_TY_SINGLE:
  case KG_TY_DOUBLE: kg_rd_float(r, f, ty, p->cls == KG_TY_SINGLE, path, at, out); return;
  case KG_TY_UNIT:
    if (!cJSON_IsNull(f))
      kg_rd_err(r, KG_E_FORMAT, path, at, "a %s value must be null, found %s", ty,
                kg_rd_found(r, f));
    out->kind = KG_VAL_NULL;
    return;
  case KG_TY_STRING:
    if (cJSON_IsString(f))
      out->kind = KG_VAL_STRING, out->s = kg_arena_strdup(r->arena, f->valuestring);
    else if (cJSON_IsNull(f))
      out->kind = KG_VAL_NULL;
    else
      kg_rd_err(r, KG_E_FORMAT, path, at,
                "a System.String value must be a string or null, found %s", kg_rd_found(r, f));
    return;
  case KG_TY_OTHER:
    if (cJSON_IsNull(f))
      out->kind = KG_VAL_NULL;
    else if (cJSON_IsObject(f))
      kg_rd_value_object(r, f, ty, path, at, out);
    else
      kg_rd_err(
          r, KG_E_FORMAT, path, at,
          "a value of type '%s' must be null, {\"enum\": n, \"name\": s}, {\"array\": [...]} or "
          "{\"opaque\": true}, found %s",
          kg_fe_quote(r->arena, ty), kg_rd_found(r, f));
    return;
  }
}
