/**
 * @file histogram.h
 * @brief Device-wide histograms: equal-width bins over [lower, upper), or bins given by edges;
 *        of interleaved channels; of weights.
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

/** Histograms of interleaved channels (RGBA pixels, say), all in one pass over the samples:
 * channel c of pixel p is d_samples[p * num_channels + c]. For each c < num_active_channels, the
 * device array d_counts[c] (num_bins[c] uint64_t) is overwritten with the even histogram of
 * channel c over [lower[c], upper[c]), by the formula and rules of cuprim_histogram_even() (each
 * channel with its own bins and range; NaN and samples outside the range are not counted).
 * Channels at or past num_active_channels are read over but not counted. Counts are exact.
 *
 * @code
 *   // d_rgba: 4 * num_pixels bytes; d_r, d_g, d_b, d_a: 256 uint64_t each, in device memory.
 *   uint64_t *const d_counts[4] = {d_r, d_g, d_b, d_a};
 *   const uint32_t bins[4] = {256, 256, 256, 256};
 *   const double lower[4] = {0, 0, 0, 0}, upper[4] = {256, 256, 256, 256};
 *   cuprim_histogram_even_multi(ctx, d_rgba, num_pixels, 4, 4, CUPRIM_U8, d_counts, bins, lower,
 *                               upper, stream);
 * @endcode
 *
 * @param ctx                 a context (NULL: ::CUPRIM_ERROR_INVALID_ARGUMENT).
 * @param d_samples           device memory, num_pixels * num_channels elements of @p sample_dtype,
 *                            element-aligned; may be NULL if num_pixels == 0.
 * @param num_pixels          the number of pixels; 0 writes zeros into every active channel's
 *                            counts.
 * @param num_channels        1 to 4 (else ::CUPRIM_ERROR_INVALID_ARGUMENT).
 * @param num_active_channels 1 to num_channels (else ::CUPRIM_ERROR_INVALID_ARGUMENT): the first
 *                            ones are counted.
 * @param sample_dtype        any ::cuprim_dtype that cuprim_histogram_supported() takes.
 * @param d_counts            host array of num_active_channels pointers (NULL:
 *                            ::CUPRIM_ERROR_INVALID_ARGUMENT); d_counts[c] is device memory,
 *                            num_bins[c] uint64_t, 8-byte aligned, overlapping neither the samples
 *                            nor another channel's counts. Overwritten.
 * @param num_bins            host array, num_active_channels entries, each at least 1.
 * @param lower,upper         host arrays, num_active_channels entries: per channel as for
 *                            cuprim_histogram_even() (finite, lower < upper, a finite scale).
 * @param stream              the CUDA stream the work is enqueued on.
 *
 * Only the first num_active_channels entries of the four host arrays are read, and only during
 * the call. Asynchronous; capturable into a CUDA graph; takes no temporary memory.
 *
 * @return ::CUPRIM_SUCCESS, or an error, having enqueued and written nothing when the arguments
 *         are invalid (docs/errors.md lists the checks in order). */
cuprim_status cuprim_histogram_even_multi(cuprim_ctx *ctx, const void *d_samples,
                                          uint64_t num_pixels, int num_channels,
                                          int num_active_channels, cuprim_dtype sample_dtype,
                                          uint64_t *const d_counts[], const uint32_t num_bins[],
                                          const double lower[], const double upper[],
                                          cudaStream_t stream);

/** Algorithms of the weighted histogram. Values are pinned. */
typedef enum cuprim_histogram_weighted_alg {
  /** The tuned default: per-block sums in shared memory (global atomics past it) added into the
   *  output with double atomics, whose order varies: the last bits of a sum can differ between
   *  runs. A block adds F32 weights exactly, as 64-bit fixed-point integers, where they fall in a
   *  window of magnitudes it picks from a sample of them (the others in double), and converts
   *  each sum to double once (docs/determinism.md). */
  CUPRIM_HISTOGRAM_WEIGHTED_AUTO = 0,
  /** The same bits on every run on one GPU: each warp adds into its own copy of the sums in a
   *  fixed order, the copies and blocks are summed in a fixed order (docs/determinism.md says
   *  exactly what is fixed, and docs/ladder.md what it costs). Takes temporary memory. */
  CUPRIM_HISTOGRAM_WEIGHTED_FIXED_ORDER = 1
} cuprim_histogram_weighted_alg;

/** As cuprim_histogram_even(), but sample i adds the weight d_weights[i] to its bin: d_sums is
 * overwritten with the sum of the weights of each bin's samples (NumPy's
 * `histogram(x, bins, range, weights=w)`).
 *
 * Samples that are not counted (NaN, outside [lower, upper)) add nothing, whatever their weight.
 * A counted sample's NaN or infinite weight makes its bin's sum what IEEE addition makes it (NaN,
 * or an infinity). Weights are converted to double and summed in double, starting from +0.0: each
 * sum is within m * 2^-53 * sum|w| of the exact sum of its m weights. The order of the additions
 * is not fixed (see ::CUPRIM_HISTOGRAM_WEIGHTED_AUTO); cuprim_histogram_even_weighted_ex() with
 * ::CUPRIM_HISTOGRAM_WEIGHTED_FIXED_ORDER repeats its bits.
 *
 * @param ctx          a context (NULL: ::CUPRIM_ERROR_INVALID_ARGUMENT).
 * @param d_samples    device memory, n elements of @p sample_dtype, element-aligned; may be NULL
 *                     if n == 0.
 * @param d_weights    device memory, n elements of @p weight_dtype, element-aligned; may be NULL
 *                     if n == 0. May overlap the samples (both are only read).
 * @param n            the number of samples and weights; n == 0 writes num_bins zeros.
 * @param sample_dtype any ::cuprim_dtype that cuprim_histogram_supported() takes.
 * @param weight_dtype ::CUPRIM_F32 or ::CUPRIM_F64 (another valid dtype:
 *                     ::CUPRIM_ERROR_UNSUPPORTED; a value outside the enum:
 *                     ::CUPRIM_ERROR_INVALID_ARGUMENT).
 * @param d_sums       device memory, num_bins doubles, 8-byte aligned; must overlap neither the
 *                     samples nor the weights. Overwritten with the sums.
 * @param num_bins     at least 1; any count whose output (and, for sums that do not fit in shared
 *                     memory with FIXED_ORDER, temporary memory) fits on the device.
 * @param lower,upper  as for cuprim_histogram_even().
 * @param stream       the CUDA stream the work is enqueued on.
 *
 * Asynchronous; capturable into a CUDA graph. Equivalent to cuprim_histogram_even_weighted_ex()
 * with ::CUPRIM_HISTOGRAM_WEIGHTED_AUTO.
 *
 * @return ::CUPRIM_SUCCESS, or an error, having enqueued and written nothing when the arguments
 *         are invalid (docs/errors.md lists the checks in order). */
cuprim_status cuprim_histogram_even_weighted(cuprim_ctx *ctx, const void *d_samples,
                                             const void *d_weights, uint64_t n,
                                             cuprim_dtype sample_dtype, cuprim_dtype weight_dtype,
                                             double *d_sums, uint32_t num_bins, double lower,
                                             double upper, cudaStream_t stream);

/** cuprim_histogram_even_weighted() with a chosen algorithm.
 *
 * @param alg any ::cuprim_histogram_weighted_alg (out of range:
 *        ::CUPRIM_ERROR_INVALID_ARGUMENT). ::CUPRIM_HISTOGRAM_WEIGHTED_FIXED_ORDER takes temporary
 *        memory from the context's allocator on @p stream (::CUPRIM_ERROR_OUT_OF_MEMORY if it
 *        returns NULL).
 * @param ctx,d_samples,d_weights,n,sample_dtype,weight_dtype,d_sums,num_bins,lower,upper,stream
 *        as for cuprim_histogram_even_weighted().
 * @return as for cuprim_histogram_even_weighted(). */
cuprim_status cuprim_histogram_even_weighted_ex(cuprim_ctx *ctx, cuprim_histogram_weighted_alg alg,
                                                const void *d_samples, const void *d_weights,
                                                uint64_t n, cuprim_dtype sample_dtype,
                                                cuprim_dtype weight_dtype, double *d_sums,
                                                uint32_t num_bins, double lower, double upper,
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
