#include "hostref_segmented.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostref.h"

/* ---------------------------------------------------------------- offsets */

const char *hr_seg_dist_name(hr_seg_dist d) {
  static const char *const names[HR_SEG_DISTS] = {"empty", "uniform", "random", "power_law"};
  return (unsigned)d < HR_SEG_DISTS ? names[d] : "dist(?)";
}

/* A power-law size: 1 + floor(u^(-1/alpha) - 1) with alpha = 1.5 (a Pareto tail: mean 3, and
 * one segment in a thousand past 100), capped. */
static uint64_t pareto_size(uint64_t *s, uint64_t cap) {
  const double u = 1.0 - hr_unit(s); /* (0, 1] */
  const double x = pow(u, -1.0 / 1.5);
  const uint64_t v = x >= (double)cap ? cap : (uint64_t)x;
  return v ? v : 1;
}

uint64_t hr_seg_layout(hr_seg_dist d, uint64_t size, uint64_t n, uint64_t seed, uint64_t *off,
                       uint64_t cap) {
  uint64_t s = hr_mix(seed, 0x5E6);
  if (d == HR_SEG_EMPTY) {
    const uint64_t count = size < cap ? size : cap;
    for (uint64_t k = 0; k <= count; ++k)
      off[k] = n / 2;
    return size <= cap ? size : UINT64_MAX;
  }
  /* The giant segment of POWER_LAW starts near a random point of the elements. */
  const uint64_t giant = d == HR_SEG_POWER_LAW ? n / 4 : 0;
  uint64_t giant_at = giant ? hr_below(&s, n - giant + 1) : UINT64_MAX;
  const uint64_t tail_cap = n / 64 > 1 ? n / 64 : 1;
  uint64_t k = 0, at = 0;
  off[0] = 0;
  while (at < n) {
    if (k == cap)
      return UINT64_MAX;
    uint64_t len;
    if (at >= giant_at && giant) {
      len = giant;
      giant_at = UINT64_MAX; /* once */
    } else if (d == HR_SEG_UNIFORM) {
      len = size;
    } else if (d == HR_SEG_RANDOM) {
      len = hr_below(&s, 2 * size + 1);
    } else {
      len = pareto_size(&s, tail_cap);
    }
    at = len < n - at ? at + len : n;
    off[++k] = at;
  }
  return k;
}

uint64_t hr_seg_offset(cuprim_dtype offset_dtype, const void *off, uint64_t k, uint64_t n) {
  uint64_t v = 0;
  switch (offset_dtype) {
  case CUPRIM_I32: {
    int32_t x;
    memcpy(&x, (const unsigned char *)off + 4 * k, 4);
    v = x < 0 ? 0 : (uint64_t)x;
    break;
  }
  case CUPRIM_U32: {
    uint32_t x;
    memcpy(&x, (const unsigned char *)off + 4 * k, 4);
    v = x;
    break;
  }
  case CUPRIM_I64: {
    int64_t x;
    memcpy(&x, (const unsigned char *)off + 8 * k, 8);
    v = x < 0 ? 0 : (uint64_t)x;
    break;
  }
  case CUPRIM_U64:
    memcpy(&v, (const unsigned char *)off + 8 * k, 8);
    break;
  default:
    break;
  }
  return v < n ? v : n;
}

void hr_seg_store_offset(cuprim_dtype offset_dtype, void *off, uint64_t k, int64_t v) {
  hr_store_bits(offset_dtype, off, k, (uint64_t)v);
}

/* ---------------------------------------------------------------- reduce */

void hr_seg_reduce_ref_init(hr_seg_reduce_ref *r) { memset(r, 0, sizeof *r); }

void hr_seg_reduce_ref_free(hr_seg_reduce_ref *r) {
  free(r->seg);
  memset(r, 0, sizeof *r);
}

/* Float data of one segment that every order of combination sums (SUM) or multiplies (PROD)
 * exactly: the partial result of any subset is then the exact value of that subset. */
static int float_segment_exact(cuprim_dtype t, cuprim_op op, const void *h, uint64_t b, uint64_t e,
                               long double abs_sum) {
  if (op == CUPRIM_SUM) {
    /* F16 and BF16 are summed in float */
    const long double limit = t == CUPRIM_F64 ? 9007199254740992.0L : 16777216.0L;
    if (!(8.0L * abs_sum < limit))
      return 0;
    for (uint64_t i = b; i < e; ++i) {
      const double k = hr_to_double(t, h, i) * 8.0;
      if (k != nearbyint(k))
        return 0;
    }
    return 1;
  }
  uint64_t scales = 0;
  for (uint64_t i = b; i < e; ++i) {
    const double a = fabs(hr_to_double(t, h, i));
    if (a == 2.0 || a == 0.5)
      ++scales;
    else if (a != 1.0)
      return 0;
  }
  return scales <= 120;
}

int hr_seg_reduce_reference(hr_seg_reduce_ref *r, cuprim_dtype t, cuprim_op op, const void *h_in,
                            uint64_t n, cuprim_dtype offset_dtype, const void *h_off,
                            uint64_t num_segments, uint64_t segment_size) {
  if (num_segments > r->cap) {
    hr_reduce_ref *p = (hr_reduce_ref *)realloc(r->seg, (size_t)num_segments * sizeof *p);
    if (!p)
      return -1;
    r->seg = p;
    r->cap = (size_t)num_segments;
  }
  r->dtype = t;
  r->op = op;
  r->num_segments = num_segments;
  const size_t size = cuprim_dtype_size(t);
  for (uint64_t s = 0; s < num_segments; ++s) {
    uint64_t b, e;
    if (h_off) {
      b = hr_seg_offset(offset_dtype, h_off, s, n);
      e = hr_seg_offset(offset_dtype, h_off, s + 1, n);
      e = e < b ? b : e;
    } else {
      b = s * segment_size;
      e = b + segment_size;
    }
    hr_reduce_ref *ref = &r->seg[s];
    hr_reduce_reference(t, op, (const unsigned char *)h_in + b * size, e - b, ref);
    if (!ref->exact && !ref->nan &&
        float_segment_exact(t, op, h_in, b, e, op == CUPRIM_SUM ? ref->abs_sum : 0.0L))
      ref->exact = 1; /* bits: the reference rounded, which is the exact value */
  }
  return 0;
}

int hr_seg_reduce_check_one(const hr_seg_reduce_ref *r, uint64_t s, const void *got, char *why,
                            size_t len) {
  const hr_reduce_ref *ref = &r->seg[s];
  const cuprim_dtype t = r->dtype;
  char want_s[96], got_s[96];
  hr_format_value_bits(t, got, got_s, sizeof got_s);
  hr_format_value_bits(t, ref->bits, want_s, sizeof want_s);
  const double g = hr_is_float(t) ? hr_to_double(t, got, 0) : 0.0;
  if (ref->nan) {
    if (isnan(g))
      return 1;
    snprintf(why, len, "expected NaN (an input is NaN), got %s", got_s);
    return 0;
  }
  if (ref->exact) {
    /* Floats: the same value (+0 and -0 alike); integers: the same bits. */
    if (hr_is_float(t) ? g == hr_to_double(t, ref->bits, 0)
                       : memcmp(got, ref->bits, cuprim_dtype_size(t)) == 0)
      return 1;
    snprintf(why, len, "expected %s, got %s", want_s, got_s);
    return 0;
  }
  /* F16 and BF16 are combined in float and rounded once at the end. */
  const long double eps = t == CUPRIM_F64 ? DBL_EPSILON : FLT_EPSILON;
  const long double tiny = t == CUPRIM_F64 ? DBL_MIN : FLT_MIN;
  const long double m = (long double)ref->n;
  const long double tol = r->op == CUPRIM_SUM ? 2.0L * m * eps * ref->abs_sum + tiny
                                              : m * eps * fabsl(ref->value) + tiny;
  const long double diff = fabsl((long double)g - ref->value);
  if (t == CUPRIM_F16 || t == CUPRIM_BF16) {
    /* a float within tol of the reference, rounded once: between the roundings of the ends */
    uint16_t lo, hi;
    hr_store_float(t, &lo, 0, (double)(ref->value - tol));
    hr_store_float(t, &hi, 0, (double)(ref->value + tol));
    if (g >= hr_to_double(t, &lo, 0) && g <= hr_to_double(t, &hi, 0))
      return 1;
  } else if (isfinite(g) && diff <= tol) {
    return 1;
  }
  snprintf(why, len, "expected %.21Lg (as %s: %s), got %s: |diff| %.3Lg > tolerance %.3Lg",
           ref->value, hr_dtype_name(t), want_s, got_s, diff, tol);
  return 0;
}

uint64_t hr_seg_reduce_check(const hr_seg_reduce_ref *r, const void *got, int poison,
                             uint64_t *first, char *why, size_t len) {
  const size_t size = cuprim_dtype_size(r->dtype);
  uint64_t wrong = 0;
  char one[384];
  for (uint64_t s = 0; s < r->num_segments; ++s) {
    const unsigned char *g = (const unsigned char *)got + s * size;
    if (hr_seg_reduce_check_one(r, s, g, one, sizeof one))
      continue;
    if (wrong++ == 0) {
      int unwritten = poison >= 0;
      for (size_t k = 0; k < size && unwritten; ++k)
        unwritten = g[k] == (unsigned char)poison;
      *first = s;
      snprintf(why, len, "segment %llu (%llu elements): %s%s", (unsigned long long)s,
               (unsigned long long)r->seg[s].n, one,
               unwritten ? " (the poison pattern: never written)" : "");
    }
  }
  return wrong;
}
