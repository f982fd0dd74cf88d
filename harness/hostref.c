/* harness/hostref.c: dtype facts, names, values as text, and the ops (see hostref.h).
 *
 * The folds (reduce, scan, combine) are written once as macros over an element type and
 * instantiated per dtype, with the switch over the op outside the loop, so that the references
 * run at memory speed: the tests, the demo and the ladder check up to 2^26 elements with them.
 * Signed integers are combined through their unsigned type, so SUM and PROD wrap as the library's
 * do, with no undefined behaviour. */
#include "hostref.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- dtypes */

#define HR_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

const cuprim_dtype hr_all_dtypes[] = {CUPRIM_I8,  CUPRIM_U8,  CUPRIM_I16, CUPRIM_U16,
                                      CUPRIM_I32, CUPRIM_U32, CUPRIM_I64, CUPRIM_U64,
                                      CUPRIM_F32, CUPRIM_F64, CUPRIM_F16, CUPRIM_BF16};
const cuprim_dtype hr_reduce_scan_dtypes[] = {CUPRIM_I32, CUPRIM_U32, CUPRIM_I64, CUPRIM_U64,
                                              CUPRIM_F32, CUPRIM_F64, CUPRIM_F16, CUPRIM_BF16};
const cuprim_dtype hr_dtypes_32_64[] = {CUPRIM_I32, CUPRIM_U32, CUPRIM_I64,
                                        CUPRIM_U64, CUPRIM_F32, CUPRIM_F64};
const cuprim_dtype hr_float_dtypes[] = {CUPRIM_F32, CUPRIM_F64, CUPRIM_F16, CUPRIM_BF16};
_Static_assert(HR_COUNT(hr_all_dtypes) == HR_NUM_DTYPES, "HR_NUM_DTYPES must count hr_all_dtypes");
_Static_assert(HR_COUNT(hr_reduce_scan_dtypes) == HR_NUM_REDUCE_SCAN_DTYPES,
               "HR_NUM_REDUCE_SCAN_DTYPES must count hr_reduce_scan_dtypes");
_Static_assert(HR_COUNT(hr_dtypes_32_64) == HR_NUM_DTYPES_32_64,
               "HR_NUM_DTYPES_32_64 must count hr_dtypes_32_64");
_Static_assert(HR_COUNT(hr_float_dtypes) == HR_NUM_FLOAT_DTYPES,
               "HR_NUM_FLOAT_DTYPES must count hr_float_dtypes");

int hr_is_float(cuprim_dtype t) {
  return t == CUPRIM_F32 || t == CUPRIM_F64 || t == CUPRIM_F16 || t == CUPRIM_BF16;
}

int hr_is_signed(cuprim_dtype t) {
  return t == CUPRIM_I8 || t == CUPRIM_I16 || t == CUPRIM_I32 || t == CUPRIM_I64;
}

/* IEEE binary16: 1 sign, 5 exponent (bias 15), 10 fraction bits. */
static double half_to_double(uint16_t h) {
  const int e = (h >> 10) & 0x1F, m = h & 0x3FF;
  const double v = e == 0    ? ldexp(m, -24)
                   : e == 31 ? (m ? NAN : INFINITY)
                             : ldexp(m + 1024, e - 25);
  return (h & 0x8000) ? -v : v;
}

/* bfloat16: the high half of a binary32. */
static double bf16_to_double(uint16_t h) {
  const uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

double hr_to_double(cuprim_dtype t, const void *p, uint64_t i) {
  const size_t size = cuprim_dtype_size(t);
  if (size && !hr_is_float(t)) {
    /* An integer: its bytes as the low bytes of a uint64_t (as hr_store_bits writes them),
     * sign-extended for a signed dtype. */
    uint64_t bits = 0;
    memcpy(&bits, (const unsigned char *)p + i * size, size);
    if (!hr_is_signed(t))
      return (double)bits;
    const uint64_t sign = (uint64_t)1 << (8 * size - 1);
    return (double)(int64_t)((bits ^ sign) - sign);
  }
  switch ((int)t) {
  case CUPRIM_F32:
    return (double)((const float *)p)[i];
  case CUPRIM_F64:
    return ((const double *)p)[i];
  case CUPRIM_F16:
    return half_to_double(((const uint16_t *)p)[i]);
  case CUPRIM_BF16:
    return bf16_to_double(((const uint16_t *)p)[i]);
  }
  return NAN;
}

/* v rounded to a 16-bit format of `man` fraction and `exp` exponent bits: to nearest, ties to
 * the even significand, overflowing to infinity; NaN to a quiet NaN of v's sign. Checked against
 * Python's struct 'e' (binary16) for 200000 doubles around every rounding boundary, and against
 * binary32 bit rounding for bfloat16. */
static uint16_t half_from_double(double v, int exp, int man) {
  const int bias = (1 << (exp - 1)) - 1, emin = 1 - bias;
  const uint16_t sign = signbit(v) ? 0x8000u : 0;
  const uint32_t inf = ((1u << exp) - 1) << man;
  if (isnan(v))
    return (uint16_t)(sign | inf | (1u << (man - 1)));
  const double a = fabs(v);
  if (a == 0.0)
    return sign;
  if (isinf(a))
    return (uint16_t)(sign | inf);
  int e2;
  (void)frexp(a, &e2); /* a = f * 2^e2, f in [0.5, 1): a's exponent is e2 - 1 */
  const int e = e2 - 1 < emin ? emin : e2 - 1;
  /* a in units of the last fraction bit at exponent e (scaling by 2^k is exact), rounded by rint
   * in the default mode: to nearest even. q <= 2^(man + 1): the significand with its leading bit
   * (0 for subnormals), or one past the largest, which carries into the exponent field, as the
   * sum below does by itself. */
  const double q = rint(ldexp(a, man - e));
  const uint32_t code = (uint32_t)q + ((uint32_t)(e - emin) << man);
  return (uint16_t)(sign | (code >= inf ? inf : code));
}

uint16_t hr_half_from_double(cuprim_dtype t, double v) {
  return t == CUPRIM_BF16 ? half_from_double(v, 8, 7) : half_from_double(v, 5, 10);
}

void hr_store_float(cuprim_dtype t, void *h, uint64_t i, double v) {
  if (t == CUPRIM_F32)
    ((float *)h)[i] = (float)v;
  else if (t == CUPRIM_F64)
    ((double *)h)[i] = v;
  else if (t == CUPRIM_F16 || t == CUPRIM_BF16)
    ((uint16_t *)h)[i] = hr_half_from_double(t, v);
}

void hr_store_bits(cuprim_dtype t, void *h, uint64_t i, uint64_t bits) {
  const size_t size = cuprim_dtype_size(t);
  memcpy((unsigned char *)h + i * size, &bits, size);
}

/* ---------------------------------------------------------------- names */

/* `name`, or where it is NULL (a value outside the enum) "<kind>(<value>)" in other[0..len). */
static const char *name_or_value(const char *name, const char *kind, int value, char *other,
                                 size_t len) {
  if (name)
    return name;
  snprintf(other, len, "%s(%d)", kind, value);
  return other;
}

const char *hr_dtype_name(cuprim_dtype t) {
  static char other[32];
  return name_or_value(cuprim_dtype_name(t), "dtype", (int)t, other, sizeof other);
}

const char *hr_op_name(cuprim_op op) {
  static char other[32];
  return name_or_value(cuprim_op_name(op), "op", (int)op, other, sizeof other);
}

/* Algorithm names in enum order (the values are pinned: index == enum value). */
static const char *const reduce_algs[] = {"auto",
                                          "global_tree",
                                          "neighbored_divergent",
                                          "neighbored_strided",
                                          "sequential",
                                          "first_add_on_load",
                                          "unrolled",
                                          "warp_shuffle",
                                          "coarsened",
                                          "atomic"};
static const char *const scan_algs[] = {"auto", "hillis_steele", "blelloch", "warp_shuffle",
                                        "decoupled_lookback"};
static const char *const histogram_algs[] = {"auto", "global_atomic", "block_private",
                                             "sort_reduce_by_key"};
static const char *const segmented_algs[] = {"auto", "thread_per_segment", "warp_per_segment",
                                             "block_per_segment", "merge_path"};
_Static_assert(HR_COUNT(reduce_algs) == CUPRIM_REDUCE_ATOMIC + 1,
               "reduce_algs must name every cuprim_reduce_alg");
_Static_assert(HR_COUNT(scan_algs) == CUPRIM_SCAN_DECOUPLED_LOOKBACK + 1,
               "scan_algs must name every cuprim_scan_alg");
_Static_assert(HR_COUNT(histogram_algs) == CUPRIM_HISTOGRAM_SORT_REDUCE_BY_KEY + 1,
               "histogram_algs must name every cuprim_histogram_alg");
_Static_assert(HR_COUNT(segmented_algs) == CUPRIM_SEGMENTED_MERGE_PATH + 1,
               "segmented_algs must name every cuprim_segmented_alg");

static const struct {
  const char *const *names;
  int count;
} alg_tables[] = {
    [HR_REDUCE] = {reduce_algs, HR_COUNT(reduce_algs)},
    [HR_SCAN] = {scan_algs, HR_COUNT(scan_algs)},
    [HR_HISTOGRAM] = {histogram_algs, HR_COUNT(histogram_algs)},
    [HR_SEGMENTED] = {segmented_algs, HR_COUNT(segmented_algs)},
};

int hr_alg_count(hr_primitive p) { return (unsigned)p <= HR_SEGMENTED ? alg_tables[p].count : 0; }

const char *hr_alg_name(hr_primitive p, int alg) {
  if (alg < 0 || alg >= hr_alg_count(p))
    return NULL;
  return alg_tables[p].names[alg];
}

static const char *alg_or_number(hr_primitive p, int alg, char *buf, size_t len) {
  const char *name = hr_alg_name(p, alg);
  if (name)
    return name;
  snprintf(buf, len, "alg(%d)", alg);
  return buf;
}

const char *hr_reduce_alg_name(cuprim_reduce_alg alg) {
  static char other[32];
  return alg_or_number(HR_REDUCE, (int)alg, other, sizeof other);
}

const char *hr_scan_alg_name(cuprim_scan_alg alg) {
  static char other[32];
  return alg_or_number(HR_SCAN, (int)alg, other, sizeof other);
}

const char *hr_segmented_alg_name(cuprim_segmented_alg alg) {
  static char other[32];
  return alg_or_number(HR_SEGMENTED, (int)alg, other, sizeof other);
}

const char *hr_scan_kind_name(cuprim_scan_kind kind) {
  static char other[32];
  if (kind == CUPRIM_INCLUSIVE || kind == CUPRIM_EXCLUSIVE)
    return kind == CUPRIM_INCLUSIVE ? "inclusive" : "exclusive";
  snprintf(other, sizeof other, "kind(%d)", (int)kind);
  return other;
}

/* ---------------------------------------------------------------- values as text */

void hr_format_value(cuprim_dtype t, const void *p, char *buf, size_t len) {
  const size_t size = cuprim_dtype_size(t);
  if (size == 0) {
    snprintf(buf, len, "?");
    return;
  }
  unsigned char raw[8]; /* aligned copy: p may be anywhere */
  memcpy(raw, p, size);
  if (!hr_is_float(t)) {
    /* Integers widened to 64 bits, two's complement for the signed ones. */
    uint64_t u = 0;
    memcpy(&u, raw, size); /* little-endian host: the low bytes */
    if (hr_is_signed(t) && size < 8 && (u >> (8 * size - 1)) & 1)
      u |= ~0ull << (8 * size); /* sign-extend */
    if (hr_is_signed(t))
      snprintf(buf, len, "%" PRId64, (int64_t)u);
    else
      snprintf(buf, len, "%" PRIu64, u);
    return;
  }
  /* Enough significant digits to read back the same value: FLT_DECIMAL_DIG (9) for F32,
   * DBL_DECIMAL_DIG (17) for F64, 5 for binary16's 11 bits, 4 for bfloat16's 8. */
  const int digits = t == CUPRIM_F64   ? DBL_DECIMAL_DIG
                     : t == CUPRIM_F32 ? FLT_DECIMAL_DIG
                     : t == CUPRIM_F16 ? 5
                                       : 4;
  const double d = hr_to_double(t, raw, 0);
  if (isnan(d))
    snprintf(buf, len, "nan");
  else if (isinf(d))
    snprintf(buf, len, d > 0 ? "inf" : "-inf");
  else
    snprintf(buf, len, "%.*g", digits, d);
}

void hr_format_value_bits(cuprim_dtype t, const void *p, char *buf, size_t len) {
  const size_t size = cuprim_dtype_size(t);
  hr_format_value(t, p, buf, len);
  if (size == 0 || len == 0)
    return;
  uint64_t bits = 0;
  memcpy(&bits, p, size);
  const size_t used = strlen(buf);
  if (used < len)
    snprintf(buf + used, len - used, " (0x%0*" PRIx64 ")", (int)(2 * size), bits);
}

void hr_format_count(uint64_t n, char *buf, size_t len) {
  if (n && (n & (n - 1)) == 0) {
    int k = 0;
    while ((n >> k) != 1)
      ++k;
    snprintf(buf, len, "2^%d", k);
  } else {
    snprintf(buf, len, "%" PRIu64, n);
  }
}

int hr_same_value(cuprim_dtype t, const void *a, const void *b) {
  if (memcmp(a, b, cuprim_dtype_size(t)) == 0)
    return 1;
  unsigned char x[8], y[8];
  memcpy(x, a, cuprim_dtype_size(t));
  memcpy(y, b, cuprim_dtype_size(t));
  return hr_is_float(t) && isnan(hr_to_double(t, x, 0)) && isnan(hr_to_double(t, y, 0));
}

uint64_t hr_hash_bytes(const void *p, size_t bytes) {
  const unsigned char *c = (const unsigned char *)p;
  uint64_t h = 0x6A09E667F3BCC908ull ^ bytes;
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t w;
    memcpy(&w, c + i, 8);
    h = (h ^ w) * 0xFF51AFD7ED558CCDull;
    h ^= h >> 29;
  }
  for (; i < bytes; ++i)
    h = (h ^ c[i]) * 0x100000001B3ull;
  h ^= h >> 31;
  return h * 0x94D049BB133111EBull;
}

/* ---------------------------------------------------------------- identities */

void hr_identity(cuprim_dtype t, cuprim_op op, void *out) {
  const size_t size = cuprim_dtype_size(t);
  unsigned char b[8] = {0}; /* little-endian: b[size - 1] holds the sign bit */
  if (hr_is_float(t)) {
    /* The bits of 1, +inf, -inf (0 is all zeros) in each format. */
    static const uint64_t one[] = {[CUPRIM_F32] = 0x3F800000u,
                                   [CUPRIM_F64] = 0x3FF0000000000000u,
                                   [CUPRIM_F16] = 0x3C00u,
                                   [CUPRIM_BF16] = 0x3F80u};
    static const uint64_t inf[] = {[CUPRIM_F32] = 0x7F800000u,
                                   [CUPRIM_F64] = 0x7FF0000000000000u,
                                   [CUPRIM_F16] = 0x7C00u,
                                   [CUPRIM_BF16] = 0x7F80u};
    const uint64_t sign = 1ull << (8 * size - 1);
    const uint64_t v = op == CUPRIM_PROD  ? one[t]
                       : op == CUPRIM_MIN ? inf[t]
                       : op == CUPRIM_MAX ? inf[t] | sign
                                          : 0;
    memcpy(b, &v, size);
  } else if (size) {
    switch (op) {
    case CUPRIM_PROD:
      b[0] = 1;
      break;
    case CUPRIM_MIN: /* the largest value: all ones, without the sign bit if signed */
      memset(b, 0xFF, size);
      if (hr_is_signed(t))
        b[size - 1] = 0x7F;
      break;
    case CUPRIM_MAX: /* the lowest value: 0, or only the sign bit if signed */
      if (hr_is_signed(t))
        b[size - 1] = 0x80;
      break;
    case CUPRIM_AND:
      memset(b, 0xFF, size);
      break;
    default: /* SUM, OR, XOR */
      break;
    }
  }
  memcpy(out, b, size);
}

/* ---------------------------------------------------------------- folds */

/* One loop over x[0..n) with the accumulator a: each element is read before anything is written
 * (so that out may be the input), then written before (exclusive) or after (inclusive) it is
 * combined; o == NULL: a reduce. */
#define HR_FOLD(STEP)                                                                              \
  for (uint64_t i = 0; i < n; ++i) {                                                               \
    const T v = x[i];                                                                              \
    if (o && excl)                                                                                 \
      o[i] = a;                                                                                    \
    a = STEP(a, v);                                                                                \
    if (o && !excl)                                                                                \
      o[i] = a;                                                                                    \
  }

/* Integers: the accumulator in the unsigned type U. "0u +" and "1u *" keep the arithmetic
 * unsigned: 8- and 16-bit operands would otherwise be promoted to int, whose product can overflow.
 * MIN and MAX compare in the dtype's own type T. */
#define HR_ADD(a, v) ((U)(0u + (a) + (U)(v)))
#define HR_MUL(a, v) ((U)(1u * (a) * (U)(v)))
#define HR_IMIN(a, v) ((v) < (T)(a) ? (U)(v) : (a))
#define HR_IMAX(a, v) ((v) > (T)(a) ? (U)(v) : (a))
#define HR_AND(a, v) ((U)((a) & (U)(v)))
#define HR_OR(a, v) ((U)((a) | (U)(v)))
#define HR_XOR(a, v) ((U)((a) ^ (U)(v)))

/* One fold function of elements T, the accumulator in U: SUM, PROD, MIN and MAX through the steps
 * given, then MORE (the switch's other cases). */
#define HR_FOLD_FUNCTION(NAME, T_, U_, ADD, MUL, MIN, MAX, MORE)                                   \
  static void NAME(cuprim_op op, int excl, const void *in, uint64_t n, void *acc, void *out) {     \
    typedef T_ T;                                                                                  \
    typedef U_ U;                                                                                  \
    const T *x = (const T *)in;                                                                    \
    U *o = (U *)out, a;                                                                            \
    memcpy(&a, acc, sizeof a);                                                                     \
    switch (op) {                                                                                  \
    case CUPRIM_SUM:                                                                               \
      HR_FOLD(ADD) break;                                                                          \
    case CUPRIM_PROD:                                                                              \
      HR_FOLD(MUL) break;                                                                          \
    case CUPRIM_MIN:                                                                               \
      HR_FOLD(MIN) break;                                                                          \
    case CUPRIM_MAX:                                                                               \
      HR_FOLD(MAX) break;                                                                          \
      MORE                                                                                         \
    }                                                                                              \
    memcpy(acc, &a, sizeof a);                                                                     \
  }
#define HR_INT_BITWISE_CASES                                                                       \
  case CUPRIM_AND:                                                                                 \
    HR_FOLD(HR_AND) break;                                                                         \
  case CUPRIM_OR:                                                                                  \
    HR_FOLD(HR_OR) break;                                                                          \
  case CUPRIM_XOR:                                                                                 \
    HR_FOLD(HR_XOR) break;
#define HR_INT_FOLD(NAME, T_, U_)                                                                  \
  HR_FOLD_FUNCTION(NAME, T_, U_, HR_ADD, HR_MUL, HR_IMIN, HR_IMAX, HR_INT_BITWISE_CASES)
HR_INT_FOLD(fold_i8, int8_t, uint8_t)
HR_INT_FOLD(fold_u8, uint8_t, uint8_t)
HR_INT_FOLD(fold_i16, int16_t, uint16_t)
HR_INT_FOLD(fold_u16, uint16_t, uint16_t)
HR_INT_FOLD(fold_i32, int32_t, uint32_t)
HR_INT_FOLD(fold_u32, uint32_t, uint32_t)
HR_INT_FOLD(fold_i64, int64_t, uint64_t)
HR_INT_FOLD(fold_u64, uint64_t, uint64_t)

/* Floats: MIN and MAX give NaN when either operand is NaN (and stay NaN); the bitwise ops are
 * not defined on floats, and leave the accumulator (and out) alone. */
#define HR_FADD(a, v) ((a) + (v))
#define HR_FMUL(a, v) ((a) * (v))
#define HR_FMIN(a, v) ((a) != (a) || (v) != (v) ? (T)NAN : (v) < (a) ? (v) : (a))
#define HR_FMAX(a, v) ((a) != (a) || (v) != (v) ? (T)NAN : (v) > (a) ? (v) : (a))
#define HR_FLOAT_NO_MORE_CASES                                                                     \
  default:                                                                                         \
    break;
#define HR_FLOAT_FOLD(NAME, T_)                                                                    \
  HR_FOLD_FUNCTION(NAME, T_, T_, HR_FADD, HR_FMUL, HR_FMIN, HR_FMAX, HR_FLOAT_NO_MORE_CASES)
HR_FLOAT_FOLD(fold_f32, float)
HR_FLOAT_FOLD(fold_f64, double)

/* F16 and BF16 as the library computes them: every element widened to float (exactly), the
 * accumulator kept in float, and each output (every step of a scan, a reduce's one result, the
 * accumulator handed back) rounded once to the dtype, to nearest even. */
static void fold_half(cuprim_dtype t, cuprim_op op, int excl, const void *in, uint64_t n, void *acc,
                      void *out) {
  const uint16_t *x = (const uint16_t *)in;
  uint16_t *o = (uint16_t *)out;
  typedef float T; /* for HR_FMIN and HR_FMAX */
  uint16_t a16;
  memcpy(&a16, acc, sizeof a16);
  T a = (T)hr_to_double(t, &a16, 0);
  if (op > CUPRIM_MAX)
    return; /* the bitwise ops: not on floats */
  for (uint64_t i = 0; i < n; ++i) {
    const T v = (T)hr_to_double(t, x, i);
    if (o && excl)
      o[i] = hr_half_from_double(t, a);
    a = op == CUPRIM_SUM    ? HR_FADD(a, v)
        : op == CUPRIM_PROD ? HR_FMUL(a, v)
        : op == CUPRIM_MIN  ? HR_FMIN(a, v)
                            : HR_FMAX(a, v);
    if (o && !excl)
      o[i] = hr_half_from_double(t, a);
  }
  a16 = hr_half_from_double(t, a);
  memcpy(acc, &a16, sizeof a16);
}
static void fold_f16(cuprim_op op, int excl, const void *in, uint64_t n, void *acc, void *out) {
  fold_half(CUPRIM_F16, op, excl, in, n, acc, out);
}
static void fold_bf16(cuprim_op op, int excl, const void *in, uint64_t n, void *acc, void *out) {
  fold_half(CUPRIM_BF16, op, excl, in, n, acc, out);
}

typedef void (*fold_fn)(cuprim_op op, int excl, const void *in, uint64_t n, void *acc, void *out);

static fold_fn fold_of(cuprim_dtype t) {
  static const fold_fn folds[] = {
      [CUPRIM_I8] = fold_i8,   [CUPRIM_U8] = fold_u8,   [CUPRIM_I16] = fold_i16,
      [CUPRIM_U16] = fold_u16, [CUPRIM_I32] = fold_i32, [CUPRIM_U32] = fold_u32,
      [CUPRIM_I64] = fold_i64, [CUPRIM_U64] = fold_u64, [CUPRIM_F32] = fold_f32,
      [CUPRIM_F64] = fold_f64, [CUPRIM_F16] = fold_f16, [CUPRIM_BF16] = fold_bf16};
  /* NULL for values outside the enum */
  return (unsigned)t < sizeof folds / sizeof folds[0] ? folds[t] : NULL;
}

void hr_combine(cuprim_dtype t, cuprim_op op, void *acc, const void *x) {
  const fold_fn f = fold_of(t);
  const size_t size = cuprim_dtype_size(t);
  uint64_t a, v; /* aligned copies */
  if (!f)
    return;
  memcpy(&a, acc, size);
  memcpy(&v, x, size);
  f(op, 0, &v, 1, &a, NULL);
  memcpy(acc, &a, size);
}

void hr_reduce_seq(cuprim_dtype t, cuprim_op op, const void *in, uint64_t n, void *out) {
  const fold_fn f = fold_of(t);
  uint64_t a;
  hr_identity(t, op, &a);
  if (f)
    f(op, 0, in, n, &a, NULL);
  memcpy(out, &a, cuprim_dtype_size(t));
}

void hr_scan_seq(cuprim_dtype t, cuprim_op op, cuprim_scan_kind kind, const void *in, void *out,
                 uint64_t n) {
  const fold_fn f = fold_of(t);
  uint64_t a;
  hr_identity(t, op, &a);
  if (f)
    f(op, kind == CUPRIM_EXCLUSIVE, in, n, &a, out);
}
