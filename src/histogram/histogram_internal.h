/* Between histogram's C entry points (histogram.cu) and its dispatch layers. Arguments reaching
 * these functions are validated (n > 0, num_bins > 0, a finite scale); the context's device is
 * current. */
#ifndef CUPRIM_HISTOGRAM_INTERNAL_H
#define CUPRIM_HISTOGRAM_INTERNAL_H

#include <cuprim/histogram.h>

#include "common/context.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How samples map to bins: equal-width bins (the formula of histogram.h, with the scale computed
 * on the host), or a binary search over num_bins + 1 edges in device memory. */
typedef struct cuprim__bins {
  uint32_t num_bins;
  int by_edges;          /* 0: even; 1: d_edges */
  double lower, upper;   /* even */
  double scale;          /* even: (double)num_bins / (upper - lower) */
  const double *d_edges; /* by_edges */
  /* Even bins that are whole numbers 2^shift wide starting at a whole number (shift >= 0, else
   * -1): for 8- to 32-bit integer samples the formula is then exactly
   * x in [lower_int, upper_ceil) ? (x - lower_int) >> shift : not counted (clamped as usual). */
  int shift;
  int64_t lower_int, upper_ceil;
} cuprim__bins;

/* Every check of cuprim_histogram_even_ex that needs no device, in the order docs/errors.md gives
 * (histogram.cu), and on success the even bins in *bins (the scale and the integer-shift form
 * computed once, on the host); also the checks of the calls built on it (the NCCL component). */
cuprim_status cuprim__histogram_even_validate(const cuprim_ctx *ctx, cuprim_histogram_alg alg,
                                              const void *d_samples, uint64_t n,
                                              cuprim_dtype sample_dtype, const uint64_t *d_counts,
                                              uint32_t num_bins, double lower, double upper,
                                              cuprim__bins *bins);

/* AUTO, GLOBAL_ATOMIC and BLOCK_PRIVATE (histogram_count.cu). */
cuprim_status cuprim__histogram_count(const cuprim_ctx *ctx, cuprim_histogram_alg alg,
                                      const void *d_samples, uint64_t n, cuprim_dtype dtype,
                                      uint64_t *d_counts, const cuprim__bins *bins,
                                      cudaStream_t stream);

/* SORT_REDUCE_BY_KEY (histogram_sort.cu): bin indices, an LSD radix sort built on cuprim's scan
 * (only the bits num_bins needs), then each bin's run found by binary search. */
cuprim_status cuprim__histogram_sort(const cuprim_ctx *ctx, const void *d_samples, uint64_t n,
                                     cuprim_dtype dtype, uint64_t *d_counts,
                                     const cuprim__bins *bins, cudaStream_t stream);

/* The most interleaved channels cuprim_histogram_even_multi takes. */
#define CUPRIM__MAX_CHANNELS 4

/* cuprim_histogram_even_multi (histogram_multi.cu): the active channels' counts in one pass over
 * the interleaved samples; bins[c] (even) for c < num_active. num_pixels == 0 zeroes the counts. */
cuprim_status cuprim__histogram_multi(const cuprim_ctx *ctx, const void *d_samples,
                                      uint64_t num_pixels, int num_channels, int num_active,
                                      cuprim_dtype dtype, uint64_t *const d_counts[],
                                      const cuprim__bins bins[], cudaStream_t stream);

/* cuprim_histogram_even_weighted_ex (histogram_weighted.cu), n > 0, weight_dtype F32 or F64. */
cuprim_status cuprim__histogram_weighted(const cuprim_ctx *ctx, cuprim_histogram_weighted_alg alg,
                                         const void *d_samples, const void *d_weights, uint64_t n,
                                         cuprim_dtype dtype, cuprim_dtype weight_dtype,
                                         double *d_sums, const cuprim__bins *bins,
                                         cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
