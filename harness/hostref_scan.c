#include "hostref_scan.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostref.h"
#include "hostref_reduce.h"

const char *hr_scan_data_name(hr_scan_data d) {
  static const char *const names[HR_SCAN_DATA_KINDS] = {"random", "constant", "exact"};
  return (unsigned)d < HR_SCAN_DATA_KINDS ? names[d] : "data(?)";
}

int hr_scan_data_applies(cuprim_dtype t, cuprim_op op, hr_scan_data d) {
  if (d == HR_SCAN_EXACT)
    return hr_is_float(t) && (op == CUPRIM_SUM || op == CUPRIM_PROD);
  return d == HR_SCAN_RANDOM || d == HR_SCAN_CONSTANT;
}

int hr_scan_supported(cuprim_dtype t, cuprim_op op) { return hr_reduce_supported(t, op); }

/* ---------------------------------------------------------------- data */

/* MIN/MAX integers: a trend of 3 per element with noise in [0, 16), the new extreme every few
 * elements. 64-bit values put the trend in the high word (so comparisons are decided there, and
 * the sign bit is part of it) and random bits in the low word. */
static void fill_trend_int(cuprim_dtype t, cuprim_op op, uint64_t seed, void *h, uint64_t n) {
  uint64_t s = seed;
  const int is_min = op == CUPRIM_MIN;
  const int64_t half = INT64_C(1) << 31;
  const int64_t base =
      hr_is_signed(t) ? (is_min ? 100 : -100) : (is_min ? half + 1000 : half - 1000);
  for (uint64_t i = 0; i < n; ++i) {
    const int64_t noise = (int64_t)hr_below(&s, 16), step = 3 * (int64_t)i;
    const int64_t v = is_min ? base - step + noise : base + step - noise;
    if (cuprim_dtype_size(t) == 4)
      ((uint32_t *)h)[i] = (uint32_t)(uint64_t)v;
    else
      ((uint64_t *)h)[i] = ((uint64_t)v << 32) | (hr_splitmix64(&s) >> 32);
  }
}

/* MIN/MAX floats: the same idea, crossing zero after about 670 elements. */
static void fill_trend_float(cuprim_dtype t, cuprim_op op, uint64_t seed, void *h, uint64_t n) {
  uint64_t s = seed;
  for (uint64_t i = 0; i < n; ++i) {
    const double noise = 8.0 * hr_unit(&s), step = 0.75 * (double)i;
    hr_store_float(t, h, i, op == CUPRIM_MIN ? 500.0 - step + noise : -500.0 + step - noise);
  }
}

/* Float SUM and PROD whose partial results are all exact whatever the combining order.
 * PROD: a parallel scan may multiply products of non-adjacent ranges together (commutative ops
 * allow it: a shuffle tree pairs lanes 0 and 16 first), so bounding the prefix products is not
 * enough: every subset's product must be representable. So at most PROD_EXACT_SCALES elements
 * are +-2 or +-1/2 and the rest are +-1 (negative one time in four, so that a lost or doubled
 * element flips the sign of every later output); any subset's product is then +-2^d with
 * |d| <= PROD_EXACT_SCALES, a normal number in F32 and F64. */
#define PROD_EXACT_SCALES 100
static void fill_exact_float(cuprim_dtype t, cuprim_op op, uint64_t seed, void *h, uint64_t n) {
  uint64_t s = seed;
  unsigned scales = 0;
  for (uint64_t i = 0; i < n; ++i) {
    double v;
    if (op == CUPRIM_SUM) {
      v = ((double)hr_below(&s, 127) - 63.0) / 8.0;
    } else {
      v = 1.0;
      /* about 64 scales spread over the array (every element while n <= 64) */
      if (scales < PROD_EXACT_SCALES && hr_below(&s, n > 64 ? n : 64) < 64) {
        v = hr_below(&s, 2) ? 2.0 : 0.5;
        ++scales;
      }
      if (hr_below(&s, 4) == 0)
        v = -v;
    }
    hr_store_float(t, h, i, v);
  }
}

void hr_scan_fill(cuprim_dtype t, cuprim_op op, hr_scan_data d, uint64_t seed, void *h,
                  uint64_t n) {
  if (d == HR_SCAN_CONSTANT) {
    hr_reduce_fill(t, op, HR_DATA_CONSTANT, seed, h, n);
    return;
  }
  if (d == HR_SCAN_EXACT && hr_scan_data_applies(t, op, d)) {
    fill_exact_float(t, op, seed, h, n);
    return;
  }
  if (op == CUPRIM_MIN || op == CUPRIM_MAX) {
    if (hr_is_float(t))
      fill_trend_float(t, op, seed, h, n);
    else
      fill_trend_int(t, op, seed, h, n);
    return;
  }
  hr_reduce_fill(t, op, HR_DATA_RANDOM, seed, h, n);
}

/* ---------------------------------------------------------------- buffers */

void hr_scan_ref_init(hr_scan_ref *r) { memset(r, 0, sizeof *r); }

void hr_scan_ref_free(hr_scan_ref *r) {
  free(r->bits);
  free(r->value);
  free(r->tol);
  memset(r, 0, sizeof *r);
}

static int grow_bits(hr_scan_ref *r, size_t bytes) {
  if (bytes <= r->cap_bytes)
    return 0;
  unsigned char *p = (unsigned char *)realloc(r->bits, bytes);
  if (!p)
    return -1;
  r->bits = p;
  r->cap_bytes = bytes;
  return 0;
}

static int grow_elems(hr_scan_ref *r, size_t n) {
  if (n <= r->cap_elems)
    return 0;
  double *v = (double *)realloc(r->value, n * sizeof *v);
  if (!v)
    return -1;
  r->value = v;
  double *t = (double *)realloc(r->tol, n * sizeof *t);
  if (!t)
    return -1;
  r->tol = t;
  r->cap_elems = n;
  return 0;
}

/* ---------------------------------------------------------------- float references */

/* Exactness of float SUM data: every value is m/8 with m an integer, and every contiguous range
 * of the data sums to m/8 with |m| < 2^p (p = 24 for F32, 53 for F64): the difference of the
 * largest and the smallest prefix sum (the empty prefix included) bounds every range sum. The
 * scans here (block scans, tile totals, look-back windows, inclusive prefixes) only ever add up
 * contiguous ranges, so each of their partial results is exact and every order gives the same
 * value. */
static int sum_data_exact(cuprim_dtype t, const void *h, uint64_t n) {
  /* F16 and BF16 add in float: float's limit (their outputs are then the exact values rounded
   * once, which exact_float's stores do too) */
  const double limit = t == CUPRIM_F64 ? 9007199254740992.0 : 16777216.0;
  int64_t p = 0, lo = 0, hi = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const double v = hr_to_double(t, h, i);
    const double k = v * 8.0;
    if (!(fabs(k) <= 1048576.0) || k != nearbyint(k))
      return 0; /* NaN, huge, or not a multiple of 1/8 */
    p += (int64_t)k;
    lo = p < lo ? p : lo;
    hi = p > hi ? p : hi;
  }
  return (double)(hi - lo) < limit;
}

/* Exactness of float PROD data: every value is +-1/2, +-1 or +-2, and at most 120 are not +-1, so
 * that every subset's product (not only every range's: see fill_exact_float) is +-2^d with
 * |d| <= 120, a normal number in F32 and F64. */
static int prod_data_exact(cuprim_dtype t, const void *h, uint64_t n) {
  uint64_t scales = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const double v = hr_to_double(t, h, i);
    const double a = fabs(v);
    if (a == 2.0 || a == 0.5)
      ++scales;
    else if (a != 1.0)
      return 0;
  }
  return scales <= 120;
}

/* Exact float SUM/PROD: prefix sums in integers (units of 1/8), products as sign and exponent. */
static void exact_float(cuprim_dtype t, cuprim_op op, int excl, const void *h, uint64_t n,
                        unsigned char *o) {
  int64_t p = 0; /* SUM: the prefix in units of 1/8; PROD: the exponent */
  int neg = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const double v = hr_to_double(t, h, i);
    double out = 0.0;
    if (excl)
      out = op == CUPRIM_SUM ? (double)p / 8.0 : (neg ? -1.0 : 1.0) * ldexp(1.0, (int)p);
    if (op == CUPRIM_SUM) {
      p += (int64_t)(v * 8.0);
    } else {
      const double a = fabs(v);
      p += a == 2.0 ? 1 : a == 0.5 ? -1 : 0;
      neg ^= v < 0;
    }
    if (!excl)
      out = op == CUPRIM_SUM ? (double)p / 8.0 : (neg ? -1.0 : 1.0) * ldexp(1.0, (int)p);
    hr_store_float(t, o, i, out);
  }
}

/* Inexact float SUM and PROD against a long double running reference.
 *
 * SUM: Neumaier's compensated sum in long double (its error is far below any tolerance here).
 * Whatever tree a scan uses, out[i] is a sum of the k = i+1 (inclusive) or i (exclusive) inputs
 * in which each input passes through at most k-1 roundings (a binary tree over k leaves is at most
 * k-1 deep, and adding the identity 0 is exact). So |out[i] - exact| <= gamma_{k-1} * S, where S is
 * the sum of |x| over those inputs and gamma_m = m*u / (1 - m*u), u = eps/2 (Higham, "Accuracy
 * and Stability of Numerical Algorithms", 4.2). The tolerance is
 *
 *     C * k * eps * S + tiny,   C = 2,
 *
 * which is 4 * k * u * S: it covers gamma_{k-1} while k*u <= 3/4 (for F32 up to about 1.2e7
 * elements, every size tested on the host but the largest, whose real errors are orders of
 * magnitude below the bound anyway), and the reference's own error (below u * |sum|) and its
 * rounding to double (below u * |sum| for F64) inside the factor 2 margin. This is the
 * API's promise (n * eps * sum|x|) per element; bugs that drop or repeat an element are caught
 * bit for bit by the EXACT data of the same kernels. tiny (the smallest normal) only matters
 * for out[0] of an exclusive scan, which must be the identity.
 *
 * PROD: k-1 multiplications whatever the tree, each one rounding: relative error at most
 * (1+u)^(k-1) - 1 <= gamma_{k-1}; the same tolerance with |product| in place of S. */
#define HR_FLOAT_INEXACT(NAME, T, EPS, TINY)                                                       \
  static void NAME(cuprim_op op, int excl, const T *x, uint64_t n, T *o, double *value,            \
                   double *tol) {                                                                  \
    long double s = op == CUPRIM_SUM ? 0.0L : 1.0L, c = 0.0L, a = 0.0L;                            \
    for (uint64_t i = 0; i < n; ++i) {                                                             \
      for (int pass = 0; pass < 2; ++pass) {                                                       \
        if (pass == (excl ? 0 : 1)) {                                                              \
          const long double r = s + c;                                                             \
          const double k = (double)(excl ? i : i + 1);                                             \
          o[i] = (T)r;                                                                             \
          value[i] = (double)r;                                                                    \
          tol[i] = 2.0 * k * (EPS) * (double)(op == CUPRIM_SUM ? a : fabsl(r)) + (TINY);           \
        }                                                                                          \
        if (pass == 0) {                                                                           \
          const long double v = (long double)x[i];                                                 \
          if (op == CUPRIM_SUM) {                                                                  \
            const long double t = s + v;                                                           \
            c += fabsl(s) >= fabsl(v) ? (s - t) + v : (v - t) + s;                                 \
            s = t;                                                                                 \
            a += fabsl(v);                                                                         \
          } else {                                                                                 \
            s *= v;                                                                                \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
  }
HR_FLOAT_INEXACT(inexact_f32, float, (double)FLT_EPSILON, (double)FLT_MIN)
HR_FLOAT_INEXACT(inexact_f64, double, DBL_EPSILON, DBL_MIN)
#undef HR_FLOAT_INEXACT

/* F16 and BF16: the float reference and tolerance (they are summed and multiplied in float); the
 * output, that float rounded once to the dtype, is checked against the roundings of value - tol
 * and value + tol (element_ok). */
static void inexact_half(cuprim_dtype t, cuprim_op op, int excl, const void *h, uint64_t n,
                         unsigned char *o, double *value, double *tol) {
  if (n == 0)
    return;
  float *x = (float *)malloc((size_t)n * sizeof *x), *f = NULL;
  if (x && (f = (float *)malloc((size_t)n * sizeof *f)) != NULL) {
    for (uint64_t i = 0; i < n; ++i)
      x[i] = (float)hr_to_double(t, h, i);
    inexact_f32(op, excl, x, n, f, value, tol);
  }
  for (uint64_t i = 0; i < n; ++i) {
    if (!f) { /* out of memory: every element fails its check, loudly */
      value[i] = NAN;
      tol[i] = 0.0;
    }
    hr_store_float(t, o, i, value[i]);
  }
  free(x);
  free(f);
}

int hr_scan_reference(hr_scan_ref *r, cuprim_dtype t, cuprim_op op, cuprim_scan_kind kind,
                      const void *h, uint64_t n) {
  const size_t size = cuprim_dtype_size(t);
  r->dtype = t;
  r->op = op;
  r->kind = kind;
  r->n = n;
  r->exact = 1;
  r->nan_from = n;
  if (size == 0 || grow_bits(r, (size_t)n * size + 8) != 0)
    return -1;
  const int excl = kind == CUPRIM_EXCLUSIVE;
  if (!hr_is_float(t) || op == CUPRIM_MIN || op == CUPRIM_MAX) {
    /* Integers (wrapping) and float MIN/MAX are exact in any order: the sequential scan is the
     * answer. Float MIN/MAX are NaN from the first NaN input on (inclusive) or after it
     * (exclusive): from the first NaN output. */
    hr_scan_seq(t, op, kind, h, r->bits, n);
    while (hr_is_float(t) && r->nan_from > 0 && isnan(hr_to_double(t, r->bits, r->nan_from - 1)))
      --r->nan_from;
    return 0;
  }
  if (op == CUPRIM_SUM ? sum_data_exact(t, h, n) : prod_data_exact(t, h, n)) {
    exact_float(t, op, excl, h, n, r->bits);
    return 0;
  }
  r->exact = 0;
  if (grow_elems(r, (size_t)n + 1) != 0)
    return -1;
  if (t == CUPRIM_F32)
    inexact_f32(op, excl, (const float *)h, n, (float *)(void *)r->bits, r->value, r->tol);
  else if (t == CUPRIM_F64)
    inexact_f64(op, excl, (const double *)h, n, (double *)(void *)r->bits, r->value, r->tol);
  else
    inexact_half(t, op, excl, h, n, r->bits, r->value, r->tol);
  return 0;
}

/* ---------------------------------------------------------------- comparison */

static int element_ok(const hr_scan_ref *r, const unsigned char *got, uint64_t i, size_t size) {
  const unsigned char *g = got + i * size;
  if (i >= r->nan_from)
    return hr_is_float(r->dtype) && isnan(hr_to_double(r->dtype, g, 0));
  if (r->exact) {
    if (memcmp(g, r->bits + i * size, size) == 0)
      return 1;
    /* floats: the same value (+0 and -0 alike) */
    return hr_is_float(r->dtype) &&
           hr_to_double(r->dtype, g, 0) == hr_to_double(r->dtype, r->bits, i);
  }
  const double v = hr_to_double(r->dtype, g, 0);
  if (r->dtype == CUPRIM_F16 || r->dtype == CUPRIM_BF16) {
    /* a float within tol of the value, rounded once: between the roundings of the ends (rounding
     * is monotonic; infinity where the range overflows the dtype) */
    uint16_t lo, hi;
    hr_store_float(r->dtype, &lo, 0, r->value[i] - r->tol[i]);
    hr_store_float(r->dtype, &hi, 0, r->value[i] + r->tol[i]);
    return v >= hr_to_double(r->dtype, &lo, 0) && v <= hr_to_double(r->dtype, &hi, 0);
  }
  return isfinite(v) && fabs(v - r->value[i]) <= r->tol[i];
}

/* 1 if every byte of p[0..bytes) is `value`. */
static int all_bytes_are(const unsigned char *p, size_t bytes, unsigned char value) {
  for (size_t i = 0; i < bytes; ++i)
    if (p[i] != value)
      return 0;
  return 1;
}

static void describe_mismatch(const hr_scan_ref *r, const unsigned char *got, uint64_t i,
                              int poison, char *why, size_t len) {
  const size_t size = cuprim_dtype_size(r->dtype);
  const unsigned char *g = got + i * size;
  char want_s[96], got_s[96];
  hr_format_value_bits(r->dtype, g, got_s, sizeof got_s);
  hr_format_value_bits(r->dtype, r->bits + i * size, want_s, sizeof want_s);
  const char *unwritten = poison >= 0 && all_bytes_are(g, size, (unsigned char)poison)
                              ? " (the poison pattern: never written)"
                              : "";
  if (i >= r->nan_from) {
    snprintf(why, len, "at index %" PRIu64 ": expected NaN (a NaN input precedes it), got %s%s", i,
             got_s, unwritten);
  } else if (r->exact) {
    snprintf(why, len, "at index %" PRIu64 ": expected %s, got %s%s", i, want_s, got_s, unwritten);
  } else {
    const double v = hr_to_double(r->dtype, g, 0);
    snprintf(why, len,
             "at index %" PRIu64 ": expected %.17g (as %s: %s), got %s: |diff| %.3g > tolerance "
             "%.3g%s",
             i, r->value[i], hr_dtype_name(r->dtype), want_s, got_s, fabs(v - r->value[i]),
             r->tol[i], unwritten);
  }
}

uint64_t hr_scan_check(const hr_scan_ref *r, const void *got, int poison, uint64_t *first,
                       uint64_t *last, char *why, size_t len) {
  const size_t size = cuprim_dtype_size(r->dtype);
  const unsigned char *g = (const unsigned char *)got;
  const uint64_t n = r->n;
  uint64_t start = 0;
  /* The fast path: the exact part bit for bit. */
  if (r->exact && memcmp(g, r->bits, (size_t)r->nan_from * size) == 0)
    start = r->nan_from;
  uint64_t count = 0;
  for (uint64_t i = start; i < n; ++i) {
    if (element_ok(r, g, i, size))
      continue;
    if (count == 0) {
      *first = i;
      describe_mismatch(r, g, i, poison, why, len);
    }
    *last = i;
    ++count;
  }
  return count;
}
