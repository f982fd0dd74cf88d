/* harness/hostref_histogram.h: histogram's test data, the bin formula, the host reference (the
 * count of every bin), and the comparison of a device result with it (the tests, and the cuprim
 * program: its ladder, demo and output edges). Plain C on the host (hostref.h says what these
 * promise), compiled without floating-point contraction.
 *
 * The reference follows histogram.h to the letter, so that it and a correct device agree bit for
 * bit on every sample, also on the ones that lie on or next to a bin edge:
 *   even bins: x converted to double; not counted if !(x >= lower && x < upper) (NaN included);
 *     else bin = (uint64_t)((x - lower) * scale), scale = (double)num_bins / (upper - lower)
 *     computed once, clamped to num_bins - 1 (each operation rounded once, to nearest: never a
 *     fused multiply-add, and never a division in place of the multiplication);
 *   edges: bin i is [edges[i], edges[i+1]) found by binary search; not counted outside
 *     [edges[0], edges[num_bins]) or NaN.
 * Counts are exact (uint64_t), so the comparison is exact too. */
#ifndef CUPRIM_HARNESS_HOSTREF_HISTOGRAM_H
#define CUPRIM_HARNESS_HOSTREF_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

#include <cuprim/cuprim.h>

#include "hostref.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- bins */

#define HR_HIST_NO_BIN UINT32_MAX /* hr_hist_bin: the sample is not counted */

/* A binning: equal-width bins over [lower, upper), or bins given by num_bins + 1 edges. */
typedef struct hr_hist_bins {
  uint32_t num_bins;
  double lower, upper; /* even: the range; edges: edges[0] and edges[num_bins] */
  double scale;        /* even: (double)num_bins / (upper - lower) */
  const double *edges; /* NULL: even bins; else num_bins + 1 host doubles (not copied) */
} hr_hist_bins;

/* 1 if cuprim_histogram_even accepts (num_bins, lower, upper) per histogram.h: num_bins > 0,
 * lower and upper finite, lower < upper, and the scale (double)num_bins / (upper - lower) finite
 * and above 0 (upper - lower overflows to +inf for a range as wide as [-1e308, 1e308], and the
 * scale is then 0: no bin formula). */
int hr_hist_even_valid(uint32_t num_bins, double lower, double upper);

/* Equal-width bins (the arguments must be valid: hr_hist_even_valid). */
hr_hist_bins hr_hist_bins_even(uint32_t num_bins, double lower, double upper);
/* Bins given by edges[0..num_bins] (host memory, strictly increasing, finite; kept by pointer). */
hr_hist_bins hr_hist_bins_edges(uint32_t num_bins, const double *edges);

/* The bin of a sample value (already converted to double), or HR_HIST_NO_BIN. */
uint32_t hr_hist_bin(const hr_hist_bins *b, double x);

/* Edge k of the bins (0 <= k <= num_bins): even bins lower + k * (upper - lower) / num_bins
 * (exact when the width is a power of two and the range integer-friendly), else edges[k]. */
double hr_hist_edge(const hr_hist_bins *b, uint64_t k);

/* counts[0..num_bins) = the histogram of h[0..n). Returns the number of samples counted (n minus
 * those outside the range or NaN). */
uint64_t hr_hist_reference(const hr_hist_bins *b, cuprim_dtype t, const void *h, uint64_t n,
                           uint64_t *counts);

/* ---------------------------------------------------------------- ranges and edges */

/* The ranges the tests use for (dtype, num_bins):
 *   FULL   integers: every value of the dtype, [min, max + 1) (I64: [-2^63, 2^63), U64:
 *          [0, 2^64)); floats [-1000, 1000).
 *   ODD    an irregular part of the dtype's range (integers: about [-0.3, 0.6) * 2^(bits-1) for
 *          signed, [0.1, 0.8) * 2^bits for unsigned, non-integer ends; floats [-e, pi)): the
 *          scale is not exact, values on edges round either way, and every dtype has values
 *          below and above the range.
 *   EXACT  bins of a power-of-two width w, lower a multiple of w, about as wide as the dtype
 *          (integers: num_bins * w <= 2^bits, centred on 0 for signed, from 0 for unsigned) or
 *          about [-1, 1] (floats): the scale 1/w and every edge are exact, so samples exactly on
 *          an edge have a known bin (and for integers with num_bins > 2^bits every integer is
 *          an edge). */
typedef enum hr_hist_span { HR_HIST_FULL, HR_HIST_ODD, HR_HIST_EXACT, HR_HIST_SPANS } hr_hist_span;
const char *hr_hist_span_name(hr_hist_span s);
void hr_hist_span_range(cuprim_dtype t, uint32_t num_bins, hr_hist_span s, double *lower,
                        double *upper);

/* edges[0..num_bins] strictly increasing from lower to upper (both kept exactly), with seeded
 * random widths: about a quarter of the bins narrow (a thousandth of the mean width), an eighth
 * wide (4 to 12 times the mean), the rest around the mean. With `integral`, edges are rounded to
 * integers where that keeps them strictly increasing, so integer samples land exactly on them. */
void hr_hist_random_edges(double *edges, uint32_t num_bins, double lower, double upper,
                          int integral, uint64_t seed);
/* edges[k] = hr_hist_edge of the even bins (num_bins, lower, upper): the even bins as edges. */
void hr_hist_even_edges(double *edges, uint32_t num_bins, double lower, double upper);

/* ---------------------------------------------------------------- data */

typedef enum hr_hist_data {
  HR_HIST_UNIFORM = 0,      /* uniform over [lower, upper); with edges, half of the samples
                               uniform over the bins instead (narrow bins get samples too) */
  HR_HIST_ONE_BIN = 1,      /* every sample in one seeded bin (sometimes bin 0, sometimes the last
                               one with the largest value below upper), varied inside it */
  HR_HIST_OUT_OF_RANGE = 2, /* half in range; the rest below lower (the largest value below it,
                               random ones, the dtype's lowest) or at and above upper (upper
                               itself where representable, random ones, the dtype's largest) */
  HR_HIST_NAN = 3,          /* floats: in-range samples with NaNs (quiet, negative, signalling
                               bits), infinities, -0.0, +0.0 and subnormals among them */
  HR_HIST_EDGES = 4,        /* samples on bin edges (the dtype value nearest above edge k,
                               which is the edge itself when representable) and the dtype values
                               just below and just above them */
  HR_HIST_DATA_KINDS = 5
} hr_hist_data;
const char *hr_hist_data_name(hr_hist_data d);
/* 1 if the data kind means something for the dtype (NAN: floats only). */
int hr_hist_data_applies(cuprim_dtype t, hr_hist_data d);

/* h[0..n) = samples of dtype t for the bins b (even or edges) from `seed`. */
void hr_hist_fill(const hr_hist_bins *b, cuprim_dtype t, hr_hist_data d, uint64_t seed, void *h,
                  uint64_t n);

/* ---------------------------------------------------------------- comparison */

/* Compares got[0..num_bins) with want. Returns the number of wrong bins; if any, *first is the
 * first and why[0..len) says "bin i: expected X, got Y" (naming a value that still holds the
 * `poison` byte in all 8 bytes as never written; pass -1 for none), followed by the totals of
 * both ("total: expected T of N samples, got U") and the next few wrong bins. */
uint64_t hr_hist_check(const uint64_t *want, const uint64_t *got, uint32_t num_bins, uint64_t n,
                       int poison, uint64_t *first, char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* CUPRIM_HARNESS_HOSTREF_HISTOGRAM_H */
