#include "hostref_reduce.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hostref.h"

const char *hr_data_name(hr_data_kind k) {
  static const char *const names[HR_DATA_KINDS] = {"random", "constant"};
  return (unsigned)k < HR_DATA_KINDS ? names[k] : "data(?)";
}

int hr_reduce_supported(cuprim_dtype t, cuprim_op op) {
  int dtype_ok = 0;
  for (int d = 0; d < HR_NUM_REDUCE_SCAN_DTYPES; ++d)
    dtype_ok |= t == hr_reduce_scan_dtypes[d];
  const int op_ok = (unsigned)op <= (unsigned)CUPRIM_XOR;
  return dtype_ok && op_ok && !(hr_is_float(t) && op >= CUPRIM_AND);
}

/* ---------------------------------------------------------------- data */

/* One integer element as a 64-bit word; the caller keeps the low 32 bits for 32-bit dtypes (the
 * constants are chosen so that the truncation keeps their purpose). */
static uint64_t int_value(cuprim_op op, hr_data_kind kind, uint64_t *s, uint64_t n, unsigned bits) {
  if (kind == HR_DATA_CONSTANT) {
    switch (op) {
    case CUPRIM_SUM:
      return 0x9E3779B97F4A7C15ull; /* n copies wrap for n >= 2 */
    case CUPRIM_PROD:
      return 3; /* 3^n wraps, and stays odd */
    case CUPRIM_MIN:
    case CUPRIM_MAX:
      return (uint64_t)(int64_t)-123456789; /* negative for the signed dtypes */
    case CUPRIM_AND:
      return 0xF0F0F0F0F0F0F0F0ull;
    case CUPRIM_OR:
      return 0x0F0F0F0F0F0F0F0Full;
    default:
      return 0x5A5A5A5A5A5A5A5Aull; /* XOR: the value for odd n, 0 for even n */
    }
  }
  switch (op) {
  case CUPRIM_PROD:
    /* Odd numbers form a group modulo 2^bits: the product never collapses to 0, so every element
     * still matters at the end. */
    return hr_splitmix64(s) | 1u;
  case CUPRIM_AND:
    /* About 16 cleared bits in the whole array: the result is neither all ones nor 0. */
    return hr_below(s, n) < 16 ? ~(1ull << hr_below(s, bits)) : ~0ull;
  case CUPRIM_OR:
    return hr_below(s, n) < 16 ? 1ull << hr_below(s, bits) : 0;
  default:
    return hr_splitmix64(s);
  }
}

static double float_value(cuprim_op op, hr_data_kind kind, uint64_t *s) {
  if (kind == HR_DATA_CONSTANT) {
    switch (op) {
    case CUPRIM_SUM:
      return 0.1;
    case CUPRIM_PROD:
      return 1.0 + 1.0 / 1048576.0; /* (1 + 2^-20)^(2^21) is about e^2 */
    default:
      return -2.5;
    }
  }
  switch (op) {
  case CUPRIM_SUM:
    return 2.0 * hr_unit(s) - 1.0;
  case CUPRIM_PROD:
    /* 1 + k*2^-11 is exact in float; log|product| is a random walk with steps of ~2^-10, so the
     * product of 2^24 of them stays far from overflow and underflow. */
    return 1.0 + ((double)hr_below(s, 17) - 8.0) / 2048.0;
  default:
    return (2.0 * hr_unit(s) - 1.0) * 1000.0;
  }
}

/* F16 and BF16 (rounded to the dtype when stored). SUM: k * 2^-8 with |k| <= 16, exact in both
 * formats, so that every partial sum is exact in float (the library's arithmetic) while sum|x|
 * stays below 2^16, about n <= 2^21: the result must then be the exact sum rounded once, bit for
 * bit (hr_reduce_reference). PROD: 1 + k * 2^-10 (F16) or 1 + k * 2^-7 (BF16), |k| <= 2 or 1, exact
 * and with products that stay inside the range at n = 2^21; the constant is -1 (a sign that
 * flips with every element). MIN and MAX: as for F32, rounded. */
static double half_value(cuprim_dtype t, cuprim_op op, hr_data_kind kind, uint64_t *s) {
  const int bf16 = t == CUPRIM_BF16;
  if (kind == HR_DATA_CONSTANT)
    return op == CUPRIM_PROD ? -1.0 : float_value(op, kind, s);
  switch (op) {
  case CUPRIM_SUM:
    return ((double)hr_below(s, 33) - 16.0) / 256.0;
  case CUPRIM_PROD:
    return bf16 ? 1.0 + ((double)hr_below(s, 3) - 1.0) / 128.0
                : 1.0 + ((double)hr_below(s, 5) - 2.0) / 1024.0;
  default:
    return float_value(op, kind, s);
  }
}

void hr_reduce_fill(cuprim_dtype t, cuprim_op op, hr_data_kind kind, uint64_t seed, void *h,
                    uint64_t n) {
  uint64_t s = seed;
  switch (t) {
  case CUPRIM_I32:
  case CUPRIM_U32: {
    uint32_t *p = (uint32_t *)h;
    for (uint64_t i = 0; i < n; ++i)
      p[i] = (uint32_t)int_value(op, kind, &s, n, 32);
    break;
  }
  case CUPRIM_I64:
  case CUPRIM_U64: {
    uint64_t *p = (uint64_t *)h;
    for (uint64_t i = 0; i < n; ++i)
      p[i] = int_value(op, kind, &s, n, 64);
    break;
  }
  case CUPRIM_F32: {
    float *p = (float *)h;
    for (uint64_t i = 0; i < n; ++i)
      p[i] = (float)float_value(op, kind, &s);
    break;
  }
  case CUPRIM_F64: {
    double *p = (double *)h;
    for (uint64_t i = 0; i < n; ++i)
      p[i] = float_value(op, kind, &s);
    break;
  }
  case CUPRIM_F16:
  case CUPRIM_BF16:
    for (uint64_t i = 0; i < n; ++i)
      hr_store_float(t, h, i, half_value(t, op, kind, &s));
    break;
  default:
    break;
  }
}

/* ---------------------------------------------------------------- reference */

/* Float SUM and PROD. SUM: Neumaier's compensated summation in long double, whose error (about
 * 2^-63 |sum| plus n * 2^-126 * sum|x|) is far below any tolerance used here; sum|x| alongside.
 * PROD: a plain long double product, relative error below n * 2^-64. */
#define HR_FLOAT_REFERENCE(NAME, T)                                                                \
  static void NAME(cuprim_op op, const T *x, uint64_t n, hr_reduce_ref *r) {                       \
    long double s = op == CUPRIM_SUM ? 0.0L : 1.0L, c = 0.0L, a = 0.0L;                            \
    for (uint64_t i = 0; i < n; ++i) {                                                             \
      const long double v = (long double)x[i];                                                     \
      if (op == CUPRIM_PROD) {                                                                     \
        s *= v;                                                                                    \
        continue;                                                                                  \
      }                                                                                            \
      const long double t = s + v;                                                                 \
      c += fabsl(s) >= fabsl(v) ? (s - t) + v : (v - t) + s;                                       \
      s = t;                                                                                       \
      a += fabsl(v);                                                                               \
    }                                                                                              \
    r->value = s + c;                                                                              \
    r->abs_sum = a;                                                                                \
    const T rounded = (T)r->value;                                                                 \
    memcpy(r->bits, &rounded, sizeof rounded);                                                     \
  }
HR_FLOAT_REFERENCE(ref_f32, float)
HR_FLOAT_REFERENCE(ref_f64, double)
#undef HR_FLOAT_REFERENCE

/* F16 and BF16 SUM and PROD, which the library computes in float and rounds once: the same long
 * double references, rounded once to the dtype. A SUM whose inputs are all multiples of 2^-q with
 * sum|x| * 2^q < 2^24 has every partial sum exact in float, whatever the tree (each is such a
 * multiple, below sum|x|): the result is then exactly the exact sum rounded once (ref->exact). */
static void ref_half(cuprim_dtype t, cuprim_op op, const void *x, uint64_t n, hr_reduce_ref *r) {
  long double s = op == CUPRIM_SUM ? 0.0L : 1.0L, c = 0.0L, a = 0.0L;
  int q = 0, exact = op == CUPRIM_SUM;
  for (uint64_t i = 0; i < n; ++i) {
    const double d = hr_to_double(t, x, i);
    const long double v = d;
    if (op == CUPRIM_PROD) {
      s *= v;
      continue;
    }
    const long double u = s + v;
    c += fabsl(s) >= fabsl(v) ? (s - u) + v : (v - u) + s;
    s = u;
    a += fabsl(v);
    if (!isfinite(d))
      exact = 0;
    while (exact && q < 60 && ldexp(d, q) != nearbyint(ldexp(d, q)))
      ++q; /* the fraction bits of d: the least q with d * 2^q whole */
  }
  r->value = s + c;
  r->abs_sum = a;
  r->exact = exact && q < 60 && ldexpl(a, q) < 16777216.0L;
  hr_store_float(t, r->bits, 0, (double)r->value);
}

void hr_reduce_reference(cuprim_dtype t, cuprim_op op, const void *h, uint64_t n,
                         hr_reduce_ref *ref) {
  memset(ref, 0, sizeof *ref);
  ref->dtype = t;
  ref->op = op;
  ref->n = n;
  ref->exact = 1;
  if (n == 0 || !hr_is_float(t) || op == CUPRIM_MIN || op == CUPRIM_MAX) {
    /* n == 0: the identity, exactly, for every dtype and op. Integers (wrapping) and float
     * MIN/MAX are exact in any order: the sequential fold is the answer. A float MIN/MAX with a
     * NaN input must give a NaN (any NaN). */
    hr_reduce_seq(t, op, h, n, ref->bits);
    ref->nan = hr_is_float(t) && isnan(hr_to_double(t, ref->bits, 0));
    ref->exact = !ref->nan;
    return;
  }
  ref->exact = 0;
  if (t == CUPRIM_F32)
    ref_f32(op, (const float *)h, n, ref);
  else if (t == CUPRIM_F64)
    ref_f64(op, (const double *)h, n, ref);
  else
    ref_half(t, op, h, n, ref);
}

/* ---------------------------------------------------------------- tolerances */

/* Float SUM. A sum in which every input reaches the result through at most d roundings is off by
 * at most gamma_d * sum|x|, gamma_d = d*u / (1 - d*u), u = eps/2 (Higham, "Accuracy and Stability
 * of Numerical Algorithms", 4.2). The tolerance is
 *
 *     C * (log2(n+2) + seq) * eps * sum|x|  +  the smallest normal number,   C = 4,
 *
 * so it allows d = 8 * (log2(n+2) + seq) roundings, with the factor 1/(1 - d*u) and the reference's
 * own error (below u * sum|x|) inside the margin:
 *  - AUTO and the per-block rungs are balanced trees: at most log2(CHUNK) = 12 roundings per AUTO
 *    level of 4096 (11 of 2048) and 9 per ladder pass of 256 or 512, which is at most
 *    8 * log2(n+2) for every n >= 1 (a tree over n elements in the canonical order is as deep as
 *    log2(n) rounded up to whole levels; the padding with 0 adds no rounding). seq = 0.
 *  - COARSENED and ATOMIC also add in sequence: each thread adds 2 elements per grid-stride step
 *    (2 * ceil(n / (grid * 512)) roundings with at least one block per SM), and ATOMIC then adds
 *    the block results one after the other into *d_out (as many as there are blocks, at most
 *    max_blocks_per_sm per SM), COARSENED in a second pass (2 * ceil(grid / 512)). seq counts
 * those. ATOMIC's bound is loose by design: the order of the atomics is not fixed, so only the
 *    worst case is a bound; its indexing is checked exactly by the integer dtypes.
 * The absolute slack only matters for results that underflow, which the data here never makes. */
static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* F16 and BF16 are summed and multiplied in float: float's epsilon bounds their arithmetic (their
 * one final rounding is allowed for by hr_reduce_check). */
static long double arith_eps(cuprim_dtype t) { return t == CUPRIM_F64 ? DBL_EPSILON : FLT_EPSILON; }
static long double arith_tiny(cuprim_dtype t) { return t == CUPRIM_F64 ? DBL_MIN : FLT_MIN; }

long double hr_reduce_sum_tolerance(const hr_reduce_ref *ref, cuprim_reduce_alg alg,
                                    const hr_gpu_shape *shape) {
  const uint64_t n = ref->n;
  const long double eps = arith_eps(ref->dtype), tiny = arith_tiny(ref->dtype);
  double seq = 0.0;
  if ((alg == CUPRIM_REDUCE_COARSENED || alg == CUPRIM_REDUCE_ATOMIC) && n > 0) {
    const uint64_t per_step = 512; /* 256 threads x 2 elements per grid-stride step */
    const uint64_t tiles = (n + per_step - 1) / per_step;
    const uint64_t sms = shape && shape->sm_count ? shape->sm_count : 1;
    const uint64_t per_sm = shape && shape->max_blocks_per_sm ? shape->max_blocks_per_sm : 32;
    const uint64_t grid_lo = min_u64(tiles, sms), grid_hi = min_u64(tiles, sms * per_sm);
    seq = 2.0 * (double)((n + grid_lo * per_step - 1) / (grid_lo * per_step));
    if (alg == CUPRIM_REDUCE_ATOMIC)
      seq += (double)grid_hi;
    else
      seq += 2.0 * (double)((grid_hi + per_step - 1) / per_step);
  }
  const long double depth = (long double)log2((double)n + 2.0) + (long double)seq;
  return 4.0L * depth * eps * ref->abs_sum + tiny;
}

/* Float PROD: n - 1 multiplications, each with one rounding, whatever the tree or the order
 * (multiplying by the identity 1 is exact), so the relative error is at most
 * (1 + u)^(n-1) - 1 <= (n-1)u / (1 - (n-1)u), which n * eps = 2n * u bounds while n*u <= 1/2 (the
 * data keeps n * eps far below 1 for F64; for F32 at n = 2^21 it allows 25%, a loose but honest
 * bound; exact integer PROD checks the indexing of the same kernels). */
static long double prod_tolerance(const hr_reduce_ref *ref) {
  const long double eps = arith_eps(ref->dtype), tiny = arith_tiny(ref->dtype);
  return (long double)ref->n * eps * fabsl(ref->value) + tiny;
}

int hr_reduce_check(const hr_reduce_ref *ref, cuprim_reduce_alg alg, const hr_gpu_shape *shape,
                    const void *got, char *why, size_t len) {
  const size_t size = cuprim_dtype_size(ref->dtype);
  char want_s[96], got_s[96];
  hr_format_value_bits(ref->dtype, got, got_s, sizeof got_s);
  hr_format_value_bits(ref->dtype, ref->bits, want_s, sizeof want_s);

  if (ref->nan) {
    if (isnan(hr_to_double(ref->dtype, got, 0)))
      return 1;
    snprintf(why, len, "expected NaN (an input is NaN), got %s", got_s);
    return 0;
  }
  if (ref->exact) {
    if (memcmp(got, ref->bits, size) == 0)
      return 1;
    snprintf(why, len, "expected %s, got %s", want_s, got_s);
    return 0;
  }
  /* float SUM or PROD */
  const long double g = hr_to_double(ref->dtype, got, 0);
  const long double tol =
      ref->op == CUPRIM_SUM ? hr_reduce_sum_tolerance(ref, alg, shape) : prod_tolerance(ref);
  const long double diff = fabsl(g - ref->value);
  if (ref->dtype == CUPRIM_F16 || ref->dtype == CUPRIM_BF16) {
    /* A float within tol of the reference, rounded once: between the roundings of the ends
     * (rounding is monotonic; infinity where the range overflows the dtype). */
    uint16_t lo, hi;
    hr_store_float(ref->dtype, &lo, 0, (double)(ref->value - tol));
    hr_store_float(ref->dtype, &hi, 0, (double)(ref->value + tol));
    if (g >= hr_to_double(ref->dtype, &lo, 0) && g <= hr_to_double(ref->dtype, &hi, 0))
      return 1;
  } else if (isfinite(g) && diff <= tol) {
    return 1;
  }
  snprintf(why, len, "expected %.21Lg (as %s: %s), got %s: |diff| %.3Lg > tolerance %.3Lg",
           ref->value, hr_dtype_name(ref->dtype), want_s, got_s, diff, tol);
  return 0;
}

/* ---------------------------------------------------------------- arg-reduce */

int hr_arg_later_wins(cuprim_dtype t, cuprim_arg_op op, const void *x, const void *cur) {
  int order; /* x < cur: -1, equal: 0, x > cur: 1 */
  if (hr_is_float(t)) {
    const double vx = hr_to_double(t, x, 0), vc = hr_to_double(t, cur, 0); /* exact */
    if (isnan(vc) || isnan(vx))
      return !isnan(vc);
    order = vx < vc ? -1 : vx > vc;
  } else {
    /* 64-bit integers do not fit a double: compared as integers of their own width. */
    const size_t size = cuprim_dtype_size(t);
    uint64_t ux = 0, uc = 0;
    memcpy(&ux, x, size);
    memcpy(&uc, cur, size);
    const unsigned shift = (unsigned)(64 - 8 * size);
    if (hr_is_signed(t)) {
      /* Sign-extended by moving the sign bit to bit 63: the order of the shifted values. */
      const int64_t sx = (int64_t)(ux << shift), sc = (int64_t)(uc << shift);
      order = sx < sc ? -1 : sx > sc;
    } else {
      order = ux < uc ? -1 : ux > uc;
    }
  }
  return op == CUPRIM_ARGMIN ? order < 0 : order > 0;
}

uint64_t hr_reduce_arg_reference(cuprim_dtype t, cuprim_arg_op op, const void *h, uint64_t n) {
  const size_t size = cuprim_dtype_size(t);
  const unsigned char *p = (const unsigned char *)h;
  uint64_t best = n ? 0 : UINT64_MAX;
  for (uint64_t i = 1; i < n; ++i)
    if (hr_arg_later_wins(t, op, p + i * size, p + best * size))
      best = i;
  return best;
}
