/* tools/cli_ops.c: host-side element operations (see cli_ops.h). The typed loops are written
 * once as macros and instantiated per dtype, so that the references run at memory speed (they
 * check 2^26 elements in the demo and the ladder). Signed integers are combined through their
 * unsigned type: SUM and PROD then wrap as the library's do, with no undefined behaviour. */
#include "cli_ops.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int cli_check_supported(cli_primitive p, cuprim_dtype t, cuprim_op op, char *err, size_t len) {
  const int is_float = t == CUPRIM_F32 || t == CUPRIM_F64;
  const char *prim = p == CLI_PRIM_REDUCE ? "reduce" : p == CLI_PRIM_SCAN ? "scan" : "histogram";
  if ((unsigned)t > CUPRIM_F64) {
    snprintf(err, len, "%s: dtype %d is not a cuprim dtype", prim, (int)t);
    return CLI_EXIT_UNSUPPORTED;
  }
  if (p == CLI_PRIM_HISTOGRAM)
    return CLI_EXIT_OK;
  if (cuprim_dtype_size(t) < 4) { /* reduce.h, scan.h: 8- and 16-bit dtypes are unsupported */
    snprintf(err, len, "%s does not take %s data (it takes i32 u32 i64 u64 f32 f64)", prim,
             cli_dtype_name(t));
    return CLI_EXIT_UNSUPPORTED;
  }
  if (is_float && (op == CUPRIM_AND || op == CUPRIM_OR || op == CUPRIM_XOR)) {
    snprintf(err, len, "%s --op %s takes integer data only, not %s", prim, cli_op_name(op),
             cli_dtype_name(t));
    return CLI_EXIT_UNSUPPORTED;
  }
  if ((unsigned)op > CUPRIM_XOR) {
    snprintf(err, len, "%s: op %d is not a cuprim op", prim, (int)op);
    return CLI_EXIT_UNSUPPORTED;
  }
  return CLI_EXIT_OK;
}

/* ---------------------------------------------------------------- typed operations */

/* Integer op on unsigned U (the signed types' values go through U). "0u +" and "1u *" make the
 * arithmetic unsigned: 16-bit operands would otherwise be promoted to int, whose product can
 * overflow. */
#define INT_COMBINE(U, S, is_signed, op, a, b)                                                     \
  ((op) == CUPRIM_SUM    ? (U)(0u + (a) + (b))                                                     \
   : (op) == CUPRIM_PROD ? (U)(1u * (a) * (b))                                                     \
   : (op) == CUPRIM_MIN  ? ((is_signed) ? ((S)(a) < (S)(b) ? (a) : (b)) : ((a) < (b) ? (a) : (b))) \
   : (op) == CUPRIM_MAX  ? ((is_signed) ? ((S)(a) > (S)(b) ? (a) : (b)) : ((a) > (b) ? (a) : (b))) \
   : (op) == CUPRIM_AND  ? (U)((a) & (b))                                                          \
   : (op) == CUPRIM_OR   ? (U)((a) | (b))                                                          \
                         : (U)((a) ^ (b)))

/* Float op: MIN and MAX give NaN when either operand is NaN; bitwise ops leave a. */
#define FLOAT_COMBINE(F, op, a, b)                                                                 \
  ((op) == CUPRIM_SUM    ? (F)((a) + (b))                                                          \
   : (op) == CUPRIM_PROD ? (F)((a) * (b))                                                          \
   : (op) == CUPRIM_MIN  ? ((a) != (a) || (b) != (b) ? (F)NAN : ((b) < (a) ? (b) : (a)))           \
   : (op) == CUPRIM_MAX  ? ((a) != (a) || (b) != (b) ? (F)NAN : ((b) > (a) ? (b) : (a)))           \
                         : (a))

/* U is the unsigned storage type of the integer types; for floats U == F. */
#define ONE_COMBINE_INT(U, S, sgn)                                                                 \
  {                                                                                                \
    U a_, b_;                                                                                      \
    memcpy(&a_, acc, sizeof a_);                                                                   \
    memcpy(&b_, x, sizeof b_);                                                                     \
    a_ = INT_COMBINE(U, S, sgn, op, a_, b_);                                                       \
    memcpy(acc, &a_, sizeof a_);                                                                   \
    return;                                                                                        \
  }
#define ONE_COMBINE_FLOAT(F)                                                                       \
  {                                                                                                \
    F a_, b_;                                                                                      \
    memcpy(&a_, acc, sizeof a_);                                                                   \
    memcpy(&b_, x, sizeof b_);                                                                     \
    a_ = FLOAT_COMBINE(F, op, a_, b_);                                                             \
    memcpy(acc, &a_, sizeof a_);                                                                   \
    return;                                                                                        \
  }

void cli_combine(cuprim_dtype t, cuprim_op op, void *acc, const void *x) {
  switch ((int)t) {
  case CUPRIM_I8:
    ONE_COMBINE_INT(uint8_t, int8_t, 1)
  case CUPRIM_U8:
    ONE_COMBINE_INT(uint8_t, uint8_t, 0)
  case CUPRIM_I16:
    ONE_COMBINE_INT(uint16_t, int16_t, 1)
  case CUPRIM_U16:
    ONE_COMBINE_INT(uint16_t, uint16_t, 0)
  case CUPRIM_I32:
    ONE_COMBINE_INT(uint32_t, int32_t, 1)
  case CUPRIM_U32:
    ONE_COMBINE_INT(uint32_t, uint32_t, 0)
  case CUPRIM_I64:
    ONE_COMBINE_INT(uint64_t, int64_t, 1)
  case CUPRIM_U64:
    ONE_COMBINE_INT(uint64_t, uint64_t, 0)
  case CUPRIM_F32:
    ONE_COMBINE_FLOAT(float)
  case CUPRIM_F64:
    ONE_COMBINE_FLOAT(double)
  }
}

void cli_identity(cuprim_dtype t, cuprim_op op, void *out) {
  const size_t size = cuprim_dtype_size(t);
  const int is_signed = t == CUPRIM_I8 || t == CUPRIM_I16 || t == CUPRIM_I32 || t == CUPRIM_I64;
  if (t == CUPRIM_F32 || t == CUPRIM_F64) {
    const double v = op == CUPRIM_PROD  ? 1.0
                     : op == CUPRIM_MIN ? INFINITY
                     : op == CUPRIM_MAX ? -INFINITY
                                        : 0.0;
    if (t == CUPRIM_F32) {
      const float f = (float)v;
      memcpy(out, &f, sizeof f);
    } else {
      memcpy(out, &v, sizeof v);
    }
    return;
  }
  /* Integers, little-endian, built byte by byte. */
  unsigned char *b = (unsigned char *)out;
  switch (op) {
  case CUPRIM_PROD:
    memset(b, 0, size);
    b[0] = 1;
    break;
  case CUPRIM_MIN: /* the largest value: all ones, without the sign bit if signed */
    memset(b, 0xFF, size);
    if (is_signed)
      b[size - 1] = 0x7F;
    break;
  case CUPRIM_MAX: /* the lowest value: 0, or only the sign bit if signed */
    memset(b, 0, size);
    if (is_signed)
      b[size - 1] = 0x80;
    break;
  case CUPRIM_AND:
    memset(b, 0xFF, size);
    break;
  default: /* SUM, OR, XOR */
    memset(b, 0, size);
    break;
  }
}

/* The typed reduce and scan loops. */
#define REDUCE_LOOP(U, COMBINE)                                                                    \
  {                                                                                                \
    const U *in_ = (const U *)in;                                                                  \
    U acc_;                                                                                        \
    cli_identity(t, op, &acc_);                                                                    \
    for (uint64_t i = 0; i < n; ++i)                                                               \
      acc_ = COMBINE(acc_, in_[i]);                                                                \
    memcpy(out, &acc_, sizeof acc_);                                                               \
    return;                                                                                        \
  }
#define SCAN_LOOP(U, COMBINE)                                                                      \
  {                                                                                                \
    const U *in_ = (const U *)in;                                                                  \
    U *out_ = (U *)out;                                                                            \
    U acc_;                                                                                        \
    cli_identity(t, op, &acc_);                                                                    \
    for (uint64_t i = 0; i < n; ++i) {                                                             \
      const U x_ = in_[i];                                                                         \
      if (kind == CUPRIM_EXCLUSIVE) {                                                              \
        out_[i] = acc_;                                                                            \
        acc_ = COMBINE(acc_, x_);                                                                  \
      } else {                                                                                     \
        acc_ = COMBINE(acc_, x_);                                                                  \
        out_[i] = acc_;                                                                            \
      }                                                                                            \
    }                                                                                              \
    return;                                                                                        \
  }
#define C_I8(a, b) INT_COMBINE(uint8_t, int8_t, 1, op, a, b)
#define C_U8(a, b) INT_COMBINE(uint8_t, uint8_t, 0, op, a, b)
#define C_I16(a, b) INT_COMBINE(uint16_t, int16_t, 1, op, a, b)
#define C_U16(a, b) INT_COMBINE(uint16_t, uint16_t, 0, op, a, b)
#define C_I32(a, b) INT_COMBINE(uint32_t, int32_t, 1, op, a, b)
#define C_U32(a, b) INT_COMBINE(uint32_t, uint32_t, 0, op, a, b)
#define C_I64(a, b) INT_COMBINE(uint64_t, int64_t, 1, op, a, b)
#define C_U64(a, b) INT_COMBINE(uint64_t, uint64_t, 0, op, a, b)
#define C_F32(a, b) FLOAT_COMBINE(float, op, a, b)
#define C_F64(a, b) FLOAT_COMBINE(double, op, a, b)

#define DISPATCH(LOOP)                                                                             \
  switch ((int)t) {                                                                                     \
  case CUPRIM_I8:                                                                                  \
    LOOP(uint8_t, C_I8)                                                                            \
  case CUPRIM_U8:                                                                                  \
    LOOP(uint8_t, C_U8)                                                                            \
  case CUPRIM_I16:                                                                                 \
    LOOP(uint16_t, C_I16)                                                                          \
  case CUPRIM_U16:                                                                                 \
    LOOP(uint16_t, C_U16)                                                                          \
  case CUPRIM_I32:                                                                                 \
    LOOP(uint32_t, C_I32)                                                                          \
  case CUPRIM_U32:                                                                                 \
    LOOP(uint32_t, C_U32)                                                                          \
  case CUPRIM_I64:                                                                                 \
    LOOP(uint64_t, C_I64)                                                                          \
  case CUPRIM_U64:                                                                                 \
    LOOP(uint64_t, C_U64)                                                                          \
  case CUPRIM_F32:                                                                                 \
    LOOP(float, C_F32)                                                                             \
  case CUPRIM_F64:                                                                                 \
    LOOP(double, C_F64)                                                                            \
  }

void cli_reduce_host(cuprim_dtype t, cuprim_op op, const void *in, uint64_t n, void *out) {
  DISPATCH(REDUCE_LOOP)
}

void cli_scan_host(cuprim_dtype t, cuprim_op op, cuprim_scan_kind kind, const void *in, void *out,
                   uint64_t n) {
  DISPATCH(SCAN_LOOP)
}

double cli_to_double(cuprim_dtype t, const void *in, uint64_t i) {
  switch ((int)t) {
  case CUPRIM_I8:
    return (double)((const int8_t *)in)[i];
  case CUPRIM_U8:
    return (double)((const uint8_t *)in)[i];
  case CUPRIM_I16:
    return (double)((const int16_t *)in)[i];
  case CUPRIM_U16:
    return (double)((const uint16_t *)in)[i];
  case CUPRIM_I32:
    return (double)((const int32_t *)in)[i];
  case CUPRIM_U32:
    return (double)((const uint32_t *)in)[i];
  case CUPRIM_I64:
    return (double)((const int64_t *)in)[i];
  case CUPRIM_U64:
    return (double)((const uint64_t *)in)[i];
  case CUPRIM_F32:
    return (double)((const float *)in)[i];
  case CUPRIM_F64:
    return ((const double *)in)[i];
  }
  return NAN;
}

/* ---------------------------------------------------------------- histogram */

int64_t cli_bin_even(double x, uint32_t bins, double lower, double upper, double scale) {
  if (!(x >= lower && x < upper)) /* also NaN */
    return -1;
  uint64_t b = (uint64_t)((x - lower) * scale);
  if (b > bins - 1u)
    b = bins - 1u;
  return (int64_t)b;
}

int64_t cli_bin_range(double x, const double *edges, uint32_t bins) {
  if (!(x >= edges[0] && x < edges[bins]))
    return -1;
  /* The last edge <= x: binary search over [0, bins). */
  uint32_t lo = 0, hi = bins;
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (edges[mid] <= x)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

void cli_histogram_host(cuprim_dtype t, const void *in, uint64_t n, uint32_t bins, double lower,
                        double upper, const double *edges, uint64_t *counts) {
  const double scale = (double)bins / (upper - lower);
  for (uint64_t i = 0; i < n; ++i) {
    const double x = cli_to_double(t, in, i);
    const int64_t b =
        edges ? cli_bin_range(x, edges, bins) : cli_bin_even(x, bins, lower, upper, scale);
    if (b >= 0)
      ++counts[b];
  }
}

/* ---------------------------------------------------------------- values */

void cli_format_value(cuprim_dtype t, const void *p, char *buf, size_t len) {
  union {
    int8_t i8;
    uint8_t u8;
    int16_t i16;
    uint16_t u16;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
  } v;
  const size_t size = cuprim_dtype_size(t);
  if (size == 0) {
    snprintf(buf, len, "?");
    return;
  }
  memcpy(&v, p, size);
  double d = 0.0;
  int digits = 0;
  switch ((int)t) {
  case CUPRIM_I8:
    snprintf(buf, len, "%d", (int)v.i8);
    return;
  case CUPRIM_U8:
    snprintf(buf, len, "%u", (unsigned)v.u8);
    return;
  case CUPRIM_I16:
    snprintf(buf, len, "%d", (int)v.i16);
    return;
  case CUPRIM_U16:
    snprintf(buf, len, "%u", (unsigned)v.u16);
    return;
  case CUPRIM_I32:
    snprintf(buf, len, "%" PRId32, v.i32);
    return;
  case CUPRIM_U32:
    snprintf(buf, len, "%" PRIu32, v.u32);
    return;
  case CUPRIM_I64:
    snprintf(buf, len, "%" PRId64, v.i64);
    return;
  case CUPRIM_U64:
    snprintf(buf, len, "%" PRIu64, v.u64);
    return;
  case CUPRIM_F32:
    d = (double)v.f32;
    digits = FLT_DECIMAL_DIG; /* 9: enough to read back the same float */
    break;
  case CUPRIM_F64:
    d = v.f64;
    digits = DBL_DECIMAL_DIG; /* 17 */
    break;
  }
  if (isnan(d))
    snprintf(buf, len, "nan");
  else if (isinf(d))
    snprintf(buf, len, d > 0 ? "inf" : "-inf");
  else
    snprintf(buf, len, "%.*g", digits, d);
}

int cli_same_value(cuprim_dtype t, const void *a, const void *b) {
  const size_t size = cuprim_dtype_size(t);
  if (memcmp(a, b, size) == 0)
    return 1;
  if (t == CUPRIM_F32 || t == CUPRIM_F64)
    return isnan(cli_to_double(t, a, 0)) && isnan(cli_to_double(t, b, 0));
  return 0;
}
