/**
 * @file histogram.h
 * @brief Device-wide histograms: equal-width bins over [lower, upper), or bins given by edges.
 *
 * @code
 *   // d_samples: n bytes in device memory; d_counts: 256 uint64_t in device memory.
 *   cuprim_status s = cuprim_histogram_even(ctx, d_samples, n, CUPRIM_U8, d_counts, 256,
 *                                           0.0, 256.0, stream);
 *   if (s != CUPRIM_SUCCESS) fprintf(stderr, "histogram: %s\n", cuprim_status_string(s));
 * @endcode
 *
 * Counts are exact (64-bit, every algorithm, every run) and overwrite @p d_counts: nothing needs
 * zeroing first, and n == 0 writes zeros.
 */
#ifndef CUPRIM_HISTOGRAM_H
#define CUPRIM_HISTOGRAM_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Histogram algorithms. ::CUPRIM_HISTOGRAM_AUTO is the tuned default; the others are the
 *  classic kernels (docs/ladder.md). Values are pinned. */
typedef enum cuprim_histogram_alg {
  CUPRIM_HISTOGRAM_AUTO = 0,          /**< the tuned default: picks by bin count and dtype */
  CUPRIM_HISTOGRAM_GLOBAL_ATOMIC = 1, /**< one atomic add per sample on the output */
  CUPRIM_HISTOGRAM_BLOCK_PRIVATE = 2, /**< per-block private copies (shared memory while the bins
                                           fit), then reduced into the output */
  CUPRIM_HISTOGRAM_SORT_REDUCE_BY_KEY = 3 /**< bin indices radix-sorted (a sort built on
                                               cuprim's scan), then counted by run; no atomics */
} cuprim_histogram_alg;

/** Histogram of d_samples[0..n) in @p num_bins equal-width bins over [lower, upper).
 *
 * For a sample x (converted to double), its bin is
 * `(uint64_t)(((double)x - lower) * ((double)num_bins / (upper - lower)))`, clamped to
 * num_bins - 1; samples below @p lower, at or above @p upper, and NaN are not counted. The scale
 * `num_bins / (upper - lower)` is computed once, on the host, in double.
 *
 * @param ctx          a context (NULL: ::CUPRIM_ERROR_INVALID_ARGUMENT).
 * @param d_samples    device memory, n elements of @p sample_dtype, element-aligned; may be NULL
 *                     if n == 0.
 * @param n            the number of samples; n == 0 writes num_bins zeros.
 * @param sample_dtype any ::cuprim_dtype (8- to 64-bit integers, F32, F64, F16, BF16; 16-bit
 *                     floats convert to double exactly).
 * @param d_counts     device memory, num_bins uint64_t, 8-byte aligned; must not overlap the
 *                     samples. Overwritten with the counts.
 * @param num_bins     at least 1 (0: ::CUPRIM_ERROR_INVALID_ARGUMENT); any count whose output and
 *                     temporary memory fit on the device.
 * @param lower,upper  finite, lower < upper, and num_bins / (upper - lower) finite; otherwise
 *                     ::CUPRIM_ERROR_INVALID_ARGUMENT.
 * @param stream       the CUDA stream the work is enqueued on.
 *
 * Asynchronous; temporary memory comes from the context's allocator on @p stream; capturable
 * into a CUDA graph. Equivalent to cuprim_histogram_even_ex() with ::CUPRIM_HISTOGRAM_AUTO.
 *
 * @return ::CUPRIM_SUCCESS, or an error, having enqueued and written nothing when the arguments
 *         are invalid (see ::cuprim_status). */
cuprim_status cuprim_histogram_even(cuprim_ctx *ctx, const void *d_samples, uint64_t n,
                                    cuprim_dtype sample_dtype, uint64_t *d_counts,
                                    uint32_t num_bins, double lower, double upper,
                                    cudaStream_t stream);

/** cuprim_histogram_even() with a chosen algorithm. Every algorithm takes the same dtypes, bin
 *  counts and ranges, and gives the same counts.
 *
 * @param alg any ::cuprim_histogram_alg (out of range: ::CUPRIM_ERROR_INVALID_ARGUMENT).
 * @param ctx,d_samples,n,sample_dtype,d_counts,num_bins,lower,upper,stream as for
 *        cuprim_histogram_even().
 * @return as for cuprim_histogram_even(). */
cuprim_status cuprim_histogram_even_ex(cuprim_ctx *ctx, cuprim_histogram_alg alg,
                                       const void *d_samples, uint64_t n, cuprim_dtype sample_dtype,
                                       uint64_t *d_counts, uint32_t num_bins, double lower,
                                       double upper, cudaStream_t stream);

/** Histogram of d_samples[0..n) in bins given by num_bins + 1 edges: bin i is
 * [d_edges[i], d_edges[i+1]), found by binary search (over a copy of the edges in shared memory
 * when they fit). Samples (converted to double) outside [d_edges[0], d_edges[num_bins]) and NaN
 * are not counted. Counts are exact and overwrite d_counts; n == 0 writes num_bins zeros.
 * Asynchronous; temporary memory comes from the context's allocator on @p stream; capturable
 * into a CUDA graph.
 *
 * @param d_edges  device memory, num_bins + 1 doubles, 8-byte aligned, strictly increasing and
 *                 finite; NULL: ::CUPRIM_ERROR_INVALID_ARGUMENT. Edges that are not strictly
 *                 increasing or not finite give unspecified counts, but never a fault or a write
 *                 outside d_counts.
 * @param d_counts device memory, num_bins uint64_t, 8-byte aligned; must overlap neither the
 *                 samples nor the edges. Overwritten with the counts.
 * @param num_bins at least 1 (0: ::CUPRIM_ERROR_INVALID_ARGUMENT).
 * @param ctx,d_samples,n,sample_dtype,stream as for cuprim_histogram_even().
 * @return ::CUPRIM_SUCCESS, or an error, having enqueued and written nothing when the arguments
 *         are invalid (see ::cuprim_status). */
cuprim_status cuprim_histogram_range(cuprim_ctx *ctx, const void *d_samples, uint64_t n,
                                     cuprim_dtype sample_dtype, uint64_t *d_counts,
                                     uint32_t num_bins, const double *d_edges, cudaStream_t stream);

/** cuprim_histogram_range() with a chosen algorithm. Every algorithm takes the same dtypes, bin
 *  counts and edges, and gives the same counts.
 *
 * @param alg any ::cuprim_histogram_alg (out of range: ::CUPRIM_ERROR_INVALID_ARGUMENT).
 * @param ctx,d_samples,n,sample_dtype,d_counts,num_bins,d_edges,stream as for
 *        cuprim_histogram_range().
 * @return as for cuprim_histogram_range(). */
cuprim_status cuprim_histogram_range_ex(cuprim_ctx *ctx, cuprim_histogram_alg alg,
                                        const void *d_samples, uint64_t n,
                                        cuprim_dtype sample_dtype, uint64_t *d_counts,
                                        uint32_t num_bins, const double *d_edges,
                                        cudaStream_t stream);

/** Whether the histogram calls take samples of @p sample_dtype, as this library build does.
 *  Needs no device.
 *  @param sample_dtype any value, also one outside the enum.
 *  @return 1 if taken; 0 if a call would return ::CUPRIM_ERROR_UNSUPPORTED (or, for a value
 *          outside the enum, ::CUPRIM_ERROR_INVALID_ARGUMENT). */
int cuprim_histogram_supported(cuprim_dtype sample_dtype);

#ifdef __cplusplus
}
#endif

#endif /* CUPRIM_HISTOGRAM_H */
