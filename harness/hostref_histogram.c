#include "hostref_histogram.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostref.h"

/* The reference rounds every double operation once, to nearest, as the device does: no excess
 * precision (x87), and (CMakeLists.txt) no contraction into fused multiply-adds. */
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "the histogram reference needs FLT_EVAL_METHOD == 0 (double arithmetic rounded to double)"
#endif

/* ---------------------------------------------------------------- dtypes */

static int int_bits(cuprim_dtype t) { return 8 * (int)cuprim_dtype_size(t); }

/* Integer dtypes: every value lies in [t_min, t_lim), both exact powers of two (or 0). */
static double t_min(cuprim_dtype t) { return hr_is_signed(t) ? -ldexp(1.0, int_bits(t) - 1) : 0.0; }
static double t_lim(cuprim_dtype t) {
  return ldexp(1.0, hr_is_signed(t) ? int_bits(t) - 1 : int_bits(t));
}

/* Integer values as ordinals: unsigned 64-bit numbers in the dtype's order (signed values offset
 * by 2^63), so that intervals and steps are plain unsigned arithmetic for every integer dtype. */
#define SIGN_BIT 0x8000000000000000ull

static uint64_t ord_min(cuprim_dtype t) {
  return hr_is_signed(t) ? SIGN_BIT - (1ull << (int_bits(t) - 1)) : 0;
}

static uint64_t ord_max(cuprim_dtype t) {
  if (hr_is_signed(t))
    return SIGN_BIT + ((1ull << (int_bits(t) - 1)) - 1);
  return int_bits(t) == 64 ? UINT64_MAX : (1ull << int_bits(t)) - 1;
}

/* c integral, t_min <= c < t_lim. */
static uint64_t ord_of(cuprim_dtype t, double c) {
  return hr_is_signed(t) ? (uint64_t)(int64_t)c ^ SIGN_BIT : (uint64_t)c;
}

/* The ordinal of the smallest value of t that is >= v; 0 if there is none (v above the largest
 * value, or NaN). */
static int ord_ceil(cuprim_dtype t, double v, uint64_t *o) {
  if (isnan(v))
    return 0;
  const double c = ceil(v);
  if (c >= t_lim(t))
    return 0;
  *o = c <= t_min(t) ? ord_min(t) : ord_of(t, c);
  return 1;
}

static void put_ord(cuprim_dtype t, void *h, uint64_t i, uint64_t o) {
  hr_store_bits(t, h, i, hr_is_signed(t) ? o ^ SIGN_BIT : o); /* two's complement bits */
}

/* F16 and BF16 take the given 32-bit pattern's counterpart: its sign, an all-ones exponent if it
 * has one, and its lowest fraction bit (a NaN stays a NaN, a subnormal the smallest one). */
static void put_float_bits(cuprim_dtype t, void *h, uint64_t i, uint32_t bits32, uint64_t bits64) {
  if (t == CUPRIM_F32) {
    memcpy((unsigned char *)h + 4 * i, &bits32, 4);
  } else if (t == CUPRIM_F64) {
    memcpy((unsigned char *)h + 8 * i, &bits64, 8);
  } else {
    const uint16_t inf = t == CUPRIM_F16 ? 0x7C00u : 0x7F80u;
    const uint16_t b =
        (uint16_t)((bits32 >> 31 ? 0x8000u : 0) |
                   ((bits32 & 0x7F800000u) == 0x7F800000u ? inf : 0) | (bits32 & 1u));
    ((uint16_t *)h)[i] = b;
  }
}

/* F16 and BF16: the value next to bits b in value order, up or down (the order of sign and
 * magnitude: up from a positive value is the next bits, from a negative one the previous). */
static uint16_t half_step(uint16_t b, int up) {
  if ((b & 0x7FFFu) == 0)
    return up ? 0x0001u : 0x8001u; /* from a zero: the smallest subnormal */
  return (uint16_t)((up != (b >> 15)) ? b + 1 : b - 1);
}

/* F16 and BF16 around v: at or above (dir 0), strictly below (-1) or strictly above (+1). */
static void put_half_near(cuprim_dtype t, void *h, uint64_t i, double v, int dir) {
  uint16_t b = hr_half_from_double(t, v);
  const double x = hr_to_double(t, &b, 0);
  if ((dir == 0 && x < v) || (dir > 0 && x <= v))
    b = half_step(b, 1);
  else if (dir < 0 && x >= v)
    b = half_step(b, 0);
  ((uint16_t *)h)[i] = b;
}

/* Any float dtype around v, as put_half_near: F64 is v itself or the next double, F32 v rounded
 * and stepped as the halves are. */
static void put_float_near(cuprim_dtype t, void *h, uint64_t i, double v, int dir) {
  if (cuprim_dtype_size(t) == 2) {
    put_half_near(t, h, i, v, dir);
  } else if (t == CUPRIM_F64) {
    hr_store_float(t, h, i, dir == 0 ? v : nextafter(v, dir > 0 ? INFINITY : -INFINITY));
  } else {
    float f = (float)v;
    if ((dir == 0 && (double)f < v) || (dir > 0 && (double)f <= v))
      f = nextafterf(f, INFINITY);
    else if (dir < 0 && (double)f >= v)
      f = nextafterf(f, -INFINITY);
    ((float *)h)[i] = f;
  }
}

/* Values of t around v, by dir: 0 the smallest value >= v (v itself when representable), -1 the
 * largest value < v, 1 the smallest value > v. Each writes h[i] and returns 1, or returns 0 (h[i]
 * untouched) if no value of t qualifies. Floats are rounded to t's precision first. */
static int put_near(cuprim_dtype t, void *h, uint64_t i, double v, int dir) {
  if (hr_is_float(t)) {
    put_float_near(t, h, i, v, dir);
    return 1;
  }
  uint64_t o;
  if (!ord_ceil(t, v, &o)) {
    if (dir >= 0 || isnan(v))
      return 0;
    put_ord(t, h, i, ord_max(t)); /* below: v above every value */
    return 1;
  }
  if (dir < 0) {
    if (o == ord_min(t))
      return 0; /* ceil(v) <= the lowest value: nothing below v */
    --o;
  } else if (dir > 0 && ceil(v) == v && v >= t_min(t)) { /* v is a value of t: the next one */
    if (o == ord_max(t))
      return 0;
    ++o;
  }
  put_ord(t, h, i, o);
  return 1;
}

static int put_at_or_above(cuprim_dtype t, void *h, uint64_t i, double v) {
  return put_near(t, h, i, v, 0);
}
static int put_below(cuprim_dtype t, void *h, uint64_t i, double v) {
  return put_near(t, h, i, v, -1);
}
static int put_above(cuprim_dtype t, void *h, uint64_t i, double v) {
  return put_near(t, h, i, v, 1);
}

/* Uniform over the values of t in [lo, hi) (floats: lo + u * (hi - lo), which may round to hi). */
static int put_uniform(cuprim_dtype t, void *h, uint64_t i, double lo, double hi, uint64_t *s) {
  if (hr_is_float(t)) {
    if (!(lo < hi))
      return 0;
    const double u = hr_unit(s);
    double v = lo + u * (hi - lo);
    if (!isfinite(hi - lo))
      v = lo * (1.0 - u) + hi * u;
    hr_store_float(t, h, i, v < hi ? v : lo);
    return 1;
  }
  uint64_t a, bx, top;
  if (!ord_ceil(t, lo, &a))
    return 0;
  if (ord_ceil(t, hi, &bx)) {
    if (bx <= a)
      return 0;
    top = bx - 1;
  } else if (isnan(hi)) {
    return 0;
  } else {
    top = ord_max(t);
  }
  const uint64_t span = top - a + 1; /* 0: all 2^64 values */
  put_ord(t, h, i, a + (span ? hr_below(s, span) : hr_splitmix64(s)));
  return 1;
}

/* Any value of t: integers uniform over all values, floats uniform in [-1, 1). */
static void put_any(cuprim_dtype t, void *h, uint64_t i, uint64_t *s) {
  if (hr_is_float(t)) {
    hr_store_float(t, h, i, 2.0 * hr_unit(s) - 1.0);
  } else {
    const uint64_t span = ord_max(t) - ord_min(t) + 1;
    put_ord(t, h, i, ord_min(t) + (span ? hr_below(s, span) : hr_splitmix64(s)));
  }
}

/* ---------------------------------------------------------------- bins */

int hr_hist_even_valid(uint32_t num_bins, double lower, double upper) {
  const double scale = (double)num_bins / (upper - lower);
  return num_bins > 0 && isfinite(lower) && isfinite(upper) && lower < upper && isfinite(scale) &&
         scale > 0.0;
}

hr_hist_bins hr_hist_bins_even(uint32_t num_bins, double lower, double upper) {
  hr_hist_bins b;
  b.num_bins = num_bins;
  b.lower = lower;
  b.upper = upper;
  b.scale = (double)num_bins / (upper - lower);
  b.edges = NULL;
  return b;
}

hr_hist_bins hr_hist_bins_edges(uint32_t num_bins, const double *edges) {
  hr_hist_bins b;
  b.num_bins = num_bins;
  b.lower = edges[0];
  b.upper = edges[num_bins];
  b.scale = 0.0;
  b.edges = edges;
  return b;
}

/* histogram.h's formula. The product is >= 0 (x >= lower); (uint64_t)p >= num_bins exactly when
 * p >= num_bins, so the clamp is decided on p itself (which also sends a NaN product, possible only
 * when upper - lower overflows and the scale is 0, to the last bin rather than to an undefined
 * conversion). */
static inline uint32_t even_bin(const hr_hist_bins *b, double x) {
  if (!(x >= b->lower && x < b->upper))
    return HR_HIST_NO_BIN;
  const double p = (x - b->lower) * b->scale;
  if (!(p < (double)b->num_bins))
    return b->num_bins - 1;
  return (uint32_t)(uint64_t)p;
}

/* Bin i is [e[i], e[i+1]): the largest i with e[i] <= x. */
static inline uint32_t edges_bin(const hr_hist_bins *b, double x) {
  const double *e = b->edges;
  if (!(x >= e[0] && x < e[b->num_bins]))
    return HR_HIST_NO_BIN;
  uint32_t lo = 0, hi = b->num_bins; /* e[lo] <= x < e[hi] */
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (e[mid] <= x)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

uint32_t hr_hist_bin(const hr_hist_bins *b, double x) {
  return b->edges ? edges_bin(b, x) : even_bin(b, x);
}

double hr_hist_edge(const hr_hist_bins *b, uint64_t k) {
  if (b->edges)
    return b->edges[k];
  if (k >= b->num_bins)
    return b->upper;
  return b->lower + (double)k * (b->upper - b->lower) / (double)b->num_bins;
}

/* Counts x_[0..n) through BIN (edges_bin or even_bin): the test of the bins' kind stays outside
 * the loop. */
#define HR_HIST_COUNT_ALL(BIN)                                                                     \
  for (uint64_t i = 0; i < n; ++i) {                                                               \
    const uint32_t k = BIN(b, (double)x_[i]);                                                      \
    if (k != HR_HIST_NO_BIN) {                                                                     \
      ++counts[k];                                                                                 \
      ++counted;                                                                                   \
    }                                                                                              \
  }
#define HR_HIST_LOOP(T)                                                                            \
  do {                                                                                             \
    const T *x_ = (const T *)h;                                                                    \
    if (b->edges) {                                                                                \
      HR_HIST_COUNT_ALL(edges_bin)                                                                 \
    } else {                                                                                       \
      HR_HIST_COUNT_ALL(even_bin)                                                                  \
    }                                                                                              \
  } while (0)

uint64_t hr_hist_reference(const hr_hist_bins *b, cuprim_dtype t, const void *h, uint64_t n,
                           uint64_t *counts) {
  memset(counts, 0, (size_t)b->num_bins * sizeof *counts);
  uint64_t counted = 0;
  const size_t size = cuprim_dtype_size(t);
  if (size <= 2 && n > 4096) {
    /* 8- and 16-bit samples: count each value once, then bin each value once (the same bins as
     * binning every sample, far faster for large n). */
    const size_t values = (size_t)1 << (8 * size);
    uint64_t *per_value = (uint64_t *)calloc(values, sizeof *per_value);
    if (per_value) {
      if (size == 1)
        for (uint64_t i = 0; i < n; ++i)
          ++per_value[((const uint8_t *)h)[i]];
      else
        for (uint64_t i = 0; i < n; ++i)
          ++per_value[((const uint16_t *)h)[i]];
      for (size_t v = 0; v < values; ++v) {
        if (!per_value[v])
          continue;
        /* v is the sample's bits read as uint8_t / uint16_t: the same bits read as the dtype */
        const uint8_t v8 = (uint8_t)v;
        const uint16_t v16 = (uint16_t)v;
        const double x = size == 1 ? hr_to_double(t, &v8, 0) : hr_to_double(t, &v16, 0);
        const uint32_t k = hr_hist_bin(b, x);
        if (k != HR_HIST_NO_BIN) {
          counts[k] += per_value[v];
          counted += per_value[v];
        }
      }
      free(per_value);
      return counted;
    }
  }
  switch ((int)t) {
  case CUPRIM_I8:
    HR_HIST_LOOP(int8_t);
    break;
  case CUPRIM_U8:
    HR_HIST_LOOP(uint8_t);
    break;
  case CUPRIM_I16:
    HR_HIST_LOOP(int16_t);
    break;
  case CUPRIM_U16:
    HR_HIST_LOOP(uint16_t);
    break;
  case CUPRIM_I32:
    HR_HIST_LOOP(int32_t);
    break;
  case CUPRIM_U32:
    HR_HIST_LOOP(uint32_t);
    break;
  case CUPRIM_I64:
    HR_HIST_LOOP(int64_t);
    break;
  case CUPRIM_U64:
    HR_HIST_LOOP(uint64_t);
    break;
  case CUPRIM_F32:
    HR_HIST_LOOP(float);
    break;
  case CUPRIM_F64:
    HR_HIST_LOOP(double);
    break;
  case CUPRIM_F16:
  case CUPRIM_BF16: /* decoded to double (exact) */
    for (uint64_t i = 0; i < n; ++i) {
      const uint32_t k = hr_hist_bin(b, hr_to_double(t, h, i));
      if (k != HR_HIST_NO_BIN) {
        ++counts[k];
        ++counted;
      }
    }
    break;
  }
  return counted;
}
#undef HR_HIST_LOOP

/* ---------------------------------------------------------------- ranges and edges */

const char *hr_hist_span_name(hr_hist_span s) {
  static const char *const names[] = {"full", "odd", "exact"};
  return (unsigned)s < HR_HIST_SPANS ? names[s] : "span(?)";
}

/* The largest power of two <= x (x > 0). */
static double pow2_floor(double x) {
  int e;
  (void)frexp(x, &e); /* x = m * 2^e, m in [0.5, 1) */
  return ldexp(1.0, e - 1);
}

void hr_hist_span_range(cuprim_dtype t, uint32_t num_bins, hr_hist_span s, double *lower,
                        double *upper) {
  const int fl = hr_is_float(t);
  switch (s) {
  case HR_HIST_FULL:
    *lower = fl ? -1000.0 : t_min(t);
    *upper = fl ? 1000.0 : t_lim(t);
    return;
  case HR_HIST_ODD:
    if (fl) {
      *lower = -2.718281828459045;
      *upper = 3.141592653589793;
    } else if (hr_is_signed(t)) {
      const double h = ldexp(1.0, int_bits(t) - 1);
      *lower = -0.3 * h - 0.37;
      *upper = 0.6 * h + 0.71;
    } else {
      const double w = ldexp(1.0, int_bits(t));
      *lower = 0.1 * w + 0.37;
      *upper = 0.8 * w + 0.29;
    }
    return;
  case HR_HIST_EXACT:
  default: {
    /* Width w a power of two with num_bins * w <= the target span; lower a multiple of w. */
    const double target = fl ? 2.0 : ldexp(1.0, int_bits(t));
    const double w = pow2_floor(target / (double)num_bins);
    const double below = (fl || hr_is_signed(t)) ? floor((double)num_bins / 2.0) : 0.0;
    *lower = -below * w;
    *upper = *lower + (double)num_bins * w;
    return;
  }
  }
}

void hr_hist_even_edges(double *edges, uint32_t num_bins, double lower, double upper) {
  const hr_hist_bins b = hr_hist_bins_even(num_bins, lower, upper);
  for (uint32_t k = 0; k <= num_bins; ++k)
    edges[k] = hr_hist_edge(&b, k);
}

void hr_hist_random_edges(double *edges, uint32_t num_bins, double lower, double upper,
                          int integral, uint64_t seed) {
  uint64_t s = seed;
  /* Cumulative random widths in edges[], then mapped onto [lower, upper]. */
  edges[0] = 0.0;
  for (uint32_t i = 1; i <= num_bins; ++i) {
    const uint64_t r = hr_below(&s, 8);
    const double u = hr_unit(&s);
    const double w = r < 2 ? 1e-3 * (0.5 + u) : r == 2 ? 4.0 + 8.0 * u : 0.5 + u;
    edges[i] = edges[i - 1] + w;
  }
  const double total = edges[num_bins];
  for (uint32_t i = 1; i < num_bins; ++i)
    edges[i] = lower + (upper - lower) * (edges[i] / total);
  edges[0] = lower;
  edges[num_bins] = upper;
  if (integral)
    for (uint32_t i = 1; i < num_bins; ++i) {
      const double r = nearbyint(edges[i]);
      if (r > edges[i - 1] && r < edges[i + 1])
        edges[i] = r;
    }
  /* Strictly increasing whatever the rounding did, ending at upper. */
  int ok = 1;
  for (uint32_t i = 1; i < num_bins; ++i)
    if (!(edges[i] > edges[i - 1]))
      edges[i] = nextafter(edges[i - 1], INFINITY);
  for (uint32_t i = 1; i <= num_bins; ++i)
    ok &= edges[i] > edges[i - 1];
  if (!ok)
    hr_hist_even_edges(edges, num_bins, lower, upper); /* never with the tests' ranges */
}

/* ---------------------------------------------------------------- data */

const char *hr_hist_data_name(hr_hist_data d) {
  static const char *const names[] = {"uniform", "one bin", "out of range", "NaN and inf",
                                      "on edges"};
  return (unsigned)d < HR_HIST_DATA_KINDS ? names[d] : "data(?)";
}

int hr_hist_data_applies(cuprim_dtype t, hr_hist_data d) {
  return d != HR_HIST_NAN || hr_is_float(t);
}

static void put_in_range(const hr_hist_bins *b, cuprim_dtype t, void *h, uint64_t i, uint64_t *s) {
  if (!put_uniform(t, h, i, b->lower, b->upper, s))
    put_any(t, h, i, s); /* no value of t in the range: any value (never counted) */
}

static void fill_one_bin(const hr_hist_bins *b, cuprim_dtype t, void *h, uint64_t n, uint64_t *s) {
  const size_t size = cuprim_dtype_size(t);
  unsigned char x0[8];
  /* The sample all others fall back to: the lowest value in range (bin 0), the largest below
   * upper (the last bin, through the clamp when the product rounds up to num_bins), or random. */
  const uint64_t r = hr_below(s, 4);
  int ok = 0;
  if (r == 0)
    ok = put_at_or_above(t, x0, 0, b->lower);
  else if (r == 1) {
    ok = put_below(t, x0, 0, b->upper);
    /* 64-bit integers just below upper may convert to upper itself: then the largest value
     * below the next double down */
    if (ok && !(hr_to_double(t, x0, 0) < b->upper))
      ok = put_below(t, x0, 0, nextafter(b->upper, -INFINITY));
  }
  for (int tries = 0;
       tries < 8 && (!ok || hr_hist_bin(b, hr_to_double(t, x0, 0)) == HR_HIST_NO_BIN); ++tries) {
    put_in_range(b, t, x0, 0, s);
    ok = 1;
  }
  const uint32_t k = hr_hist_bin(b, hr_to_double(t, x0, 0));
  const double e0 = k == HR_HIST_NO_BIN ? 0.0 : hr_hist_edge(b, k);
  const double e1 = k == HR_HIST_NO_BIN ? 0.0 : hr_hist_edge(b, (uint64_t)k + 1);
  for (uint64_t i = 0; i < n; ++i) {
    unsigned char *p = (unsigned char *)h + i * size;
    /* Three in four samples drawn inside the bin (kept if they land in it), the rest x0. */
    if (k != HR_HIST_NO_BIN && hr_below(s, 4) != 0 && put_uniform(t, h, i, e0, e1, s) &&
        hr_hist_bin(b, hr_to_double(t, h, i)) == k)
      continue;
    memcpy(p, x0, size);
  }
}

void hr_hist_fill(const hr_hist_bins *b, cuprim_dtype t, hr_hist_data d, uint64_t seed, void *h,
                  uint64_t n) {
  uint64_t st = seed, *s = &st;
  const double lo = b->lower, hi = b->upper;
  const int fl = hr_is_float(t);
  switch (d) {
  case HR_HIST_ONE_BIN:
    fill_one_bin(b, t, h, n, s);
    return;
  case HR_HIST_OUT_OF_RANGE: {
    const double far_lo = fl ? lo - 4.0 * (hi - lo) : -INFINITY;
    const double far_hi = fl ? hi + 4.0 * (hi - lo) : INFINITY;
    for (uint64_t i = 0; i < n; ++i) {
      int ok = 0;
      switch (hr_below(s, 16)) {
      case 0:
      case 1:
        ok = put_below(t, h, i, lo); /* lower - 1 ulp (or - 1) */
        break;
      case 2:
      case 3:
        ok = put_uniform(t, h, i, far_lo, lo, s);
        break;
      case 4:
        if (fl)
          hr_store_float(t, h, i, t == CUPRIM_F32 ? -(double)FLT_MAX : -DBL_MAX);
        else
          put_ord(t, h, i, ord_min(t));
        ok = 1;
        break;
      case 5:
      case 6:
        ok = put_at_or_above(t, h, i, hi); /* upper itself where representable */
        break;
      case 7:
        ok = put_uniform(t, h, i, hi, far_hi, s);
        break;
      case 8:
        if (fl)
          hr_store_float(t, h, i, t == CUPRIM_F32 ? (double)FLT_MAX : DBL_MAX);
        else
          put_ord(t, h, i, ord_max(t));
        ok = 1;
        break;
      default:
        break;
      }
      if (!ok)
        put_in_range(b, t, h, i, s);
    }
    return;
  }
  case HR_HIST_NAN:
    if (fl) {
      for (uint64_t i = 0; i < n; ++i) {
        /* Specials for r < 9 of 32 (r == 3 and r == 8 as bits), the rest in the range. */
        static const double specials[8] = {
            (double)NAN,      (double)NAN,       -(double)NAN, 0.0 /* r == 3 */,
            (double)INFINITY, -(double)INFINITY, -0.0,         0.0};
        const uint64_t r = hr_below(s, 32);
        if (r == 3) /* signalling-NaN bits, with a payload */
          put_float_bits(t, h, i, 0x7fa00001u, 0x7ff4000000000001ull);
        else if (r == 8) /* the smallest subnormals of the dtype, either sign */
          put_float_bits(t, h, i, hr_below(s, 2) ? 0x80000001u : 0x00000001u,
                         hr_below(s, 2) ? 0x8000000000000001ull : 0x0000000000000001ull);
        else if (r < 8)
          hr_store_float(t, h, i, specials[r]);
        else
          put_in_range(b, t, h, i, s);
      }
      return;
    }
    break; /* integers: uniform */
  case HR_HIST_EDGES:
    for (uint64_t i = 0; i < n; ++i) {
      const double e = hr_hist_edge(b, hr_below(s, (uint64_t)b->num_bins + 1));
      const uint64_t r = hr_below(s, 4);
      const int ok = r < 2    ? put_at_or_above(t, h, i, e)
                     : r == 2 ? put_below(t, h, i, e)
                              : put_above(t, h, i, e);
      if (!ok)
        put_in_range(b, t, h, i, s);
    }
    return;
  case HR_HIST_UNIFORM:
  default:
    break;
  }
  /* Uniform; with edges every other sample uniform over the bins instead. */
  for (uint64_t i = 0; i < n; ++i) {
    if (b->edges && (i & 1)) {
      const uint64_t k = hr_below(s, b->num_bins);
      if (put_uniform(t, h, i, b->edges[k], b->edges[k + 1], s))
        continue;
    }
    put_in_range(b, t, h, i, s);
  }
}

/* ---------------------------------------------------------------- comparison */

uint64_t hr_hist_check(const uint64_t *want, const uint64_t *got, uint32_t num_bins, uint64_t n,
                       int poison, uint64_t *first, char *why, size_t len) {
  uint64_t wrong = 0, total_want = 0, total_got = 0;
  size_t used = 0;
  uint64_t poison_word = 0;
  if (poison >= 0)
    memset(&poison_word, poison, sizeof poison_word);
  if (len)
    why[0] = '\0';
  for (uint32_t k = 0; k < num_bins; ++k) {
    total_want += want[k];
    total_got += got[k];
    if (got[k] == want[k])
      continue;
    if (wrong == 0)
      *first = k;
    if (wrong < 4 && used < len) {
      const int unwritten = poison >= 0 && got[k] == poison_word;
      used += (size_t)snprintf(why + used, len - used,
                               "%sbin %" PRIu32 ": expected %" PRIu64 ", got %" PRIu64 "%s",
                               wrong ? "; " : "", k, want[k], got[k],
                               unwritten ? " (the poison pattern: never written)" : "");
    } else if (wrong == 4 && used < len) {
      used += (size_t)snprintf(why + used, len - used, "; ...");
    }
    ++wrong;
  }
  if (wrong && used < len)
    snprintf(why + used, len - used,
             " (%" PRIu64 " wrong bin(s) of %" PRIu32 "; total: expected %" PRIu64 " of %" PRIu64
             " samples counted, got %" PRIu64 ")",
             wrong, num_bins, total_want, n, total_got);
  return wrong;
}
