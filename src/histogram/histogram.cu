/* Histogram's C entry points: validate everything that needs no device (with the scale of the
 * even bins computed here, once, in double), make the context's device current, and forward to
 * the counting kernels (AUTO, GLOBAL_ATOMIC, BLOCK_PRIVATE), the sort path, the multi-channel
 * kernels or the weighted ones. */
#include <cuprim/histogram.h>

#include <math.h>

#include "common/check.h"
#include "common/context.h"
#include "common/dtype.h"
#include "histogram_internal.h"

namespace {

/* 1 if [a, a + abytes) and [b, b + bbytes) share no byte (both known not to wrap). */
bool disjoint(uintptr_t a, uintptr_t abytes, uintptr_t b, uintptr_t bbytes) {
  return a + abytes <= b || b + bbytes <= a;
}

/* The even bins of [lower, upper): the scale, computed once in double, and the integer-shift form
 * where it applies. INVALID_ARGUMENT for a range or scale that histogram.h refuses. */
cuprim_status even_bins(uint32_t num_bins, double lower, double upper, cuprim__bins *bins) {
  CUPRIM__CHECK_ARG(isfinite(lower) && isfinite(upper) && lower < upper);
  *bins = cuprim__bins{};
  bins->num_bins = num_bins;
  bins->lower = lower;
  bins->upper = upper;
  bins->scale = (double)num_bins / (upper - lower); /* upper - lower may overflow to +inf */
  CUPRIM__CHECK_ARG(isfinite(bins->scale) && bins->scale > 0.0);
  /* Integer-friendly bins: a whole-number lower bound and a scale of 2^-shift. Then, for
   * integer samples of up to 32 bits, (double)x - lower is exact (both whole, below 2^41), the
   * product by 2^-shift is exact, and truncating it is the shift. */
  bins->shift = -1;
  int e = 0;
  if (frexp(bins->scale, &e) == 0.5 && e <= 1 && e >= -31 && lower == floor(lower) &&
      fabs(lower) <= 0x1p40 && fabs(upper) <= 0x1p40) {
    bins->shift = 1 - e; /* scale == 2^(e-1) */
    bins->lower_int = (int64_t)lower;
    bins->upper_ceil = (int64_t)ceil(upper);
  }
  return CUPRIM_SUCCESS;
}

/* Pointers and sizes common to both entry points. d_counts must hold num_bins 8-byte counts and
 * overlap neither the samples nor `other` (the edges, other_bytes long). */
cuprim_status validate_common(const cuprim_ctx *ctx, const void *d_samples, uint64_t n,
                              cuprim_dtype dtype, const uint64_t *d_counts, uint32_t num_bins,
                              const void *other, size_t other_bytes) {
  CUPRIM__CHECK_ARG(ctx != NULL);
  CUPRIM__CHECK_ARG(cuprim__dtype_valid(dtype));
  CUPRIM__CHECK_ARG(num_bins >= 1);
  CUPRIM__CHECK_ARG(d_counts != NULL && (uintptr_t)d_counts % sizeof(uint64_t) == 0);
  const uintptr_t c = (uintptr_t)d_counts, cbytes = (uintptr_t)num_bins * sizeof(uint64_t);
  CUPRIM__CHECK_ARG(c <= UINTPTR_MAX - cbytes);
  if (n > 0) {
    const size_t size = cuprim_dtype_size(dtype);
    CUPRIM__CHECK_ARG(d_samples != NULL && (uintptr_t)d_samples % size == 0);
    CUPRIM__CHECK_ARG(n <= (uint64_t)UINTPTR_MAX / size);
    const uintptr_t s = (uintptr_t)d_samples, sbytes = (uintptr_t)(n * size);
    CUPRIM__CHECK_ARG(s <= UINTPTR_MAX - sbytes);
    CUPRIM__CHECK_ARG(c + cbytes <= s || c >= s + sbytes);
  }
  if (other != NULL) {
    const uintptr_t o = (uintptr_t)other;
    CUPRIM__CHECK_ARG(o <= UINTPTR_MAX - other_bytes);
    CUPRIM__CHECK_ARG(c + cbytes <= o || c >= o + other_bytes);
  }
  return CUPRIM_SUCCESS;
}

cuprim_status run(cuprim_ctx *ctx, cuprim_histogram_alg alg, const void *d_samples, uint64_t n,
                  cuprim_dtype dtype, uint64_t *d_counts, const cuprim__bins *bins,
                  cudaStream_t stream) {
  cuprim__device_scope scope;
  CUPRIM__FORWARD(cuprim__device_enter(ctx, &scope));
  cuprim_status st;
  if (n == 0) { /* the counts are overwritten: all zero */
    st = cuprim__cuda_status(
        cudaMemsetAsync(d_counts, 0, (size_t)bins->num_bins * sizeof(uint64_t), stream));
  } else if (alg == CUPRIM_HISTOGRAM_SORT_REDUCE_BY_KEY) {
    st = cuprim__histogram_sort(ctx, d_samples, n, dtype, d_counts, bins, stream);
  } else {
    st = cuprim__histogram_count(ctx, alg, d_samples, n, dtype, d_counts, bins, stream);
  }
  cuprim__device_leave(&scope);
  return st;
}

} // namespace

extern "C" cuprim_status
cuprim__histogram_even_validate(const cuprim_ctx *ctx, cuprim_histogram_alg alg,
                                const void *d_samples, uint64_t n, cuprim_dtype sample_dtype,
                                const uint64_t *d_counts, uint32_t num_bins, double lower,
                                double upper, cuprim__bins *bins) {
  CUPRIM__FORWARD(validate_common(ctx, d_samples, n, sample_dtype, d_counts, num_bins, NULL, 0));
  CUPRIM__CHECK_ARG((unsigned)alg <= (unsigned)CUPRIM_HISTOGRAM_SORT_REDUCE_BY_KEY);
  CUPRIM__FORWARD(even_bins(num_bins, lower, upper, bins));
  CUPRIM__CHECK(cuprim__histogram_takes(sample_dtype), CUPRIM_ERROR_UNSUPPORTED);
  return CUPRIM_SUCCESS;
}

extern "C" cuprim_status cuprim_histogram_even_ex(cuprim_ctx *ctx, cuprim_histogram_alg alg,
                                                  const void *d_samples, uint64_t n,
                                                  cuprim_dtype sample_dtype, uint64_t *d_counts,
                                                  uint32_t num_bins, double lower, double upper,
                                                  cudaStream_t stream) {
  cuprim__bins bins;
  CUPRIM__FORWARD(cuprim__histogram_even_validate(ctx, alg, d_samples, n, sample_dtype, d_counts,
                                                  num_bins, lower, upper, &bins));
  return run(ctx, alg, d_samples, n, sample_dtype, d_counts, &bins, stream);
}

extern "C" cuprim_status cuprim_histogram_even(cuprim_ctx *ctx, const void *d_samples, uint64_t n,
                                               cuprim_dtype sample_dtype, uint64_t *d_counts,
                                               uint32_t num_bins, double lower, double upper,
                                               cudaStream_t stream) {
  return cuprim_histogram_even_ex(ctx, CUPRIM_HISTOGRAM_AUTO, d_samples, n, sample_dtype, d_counts,
                                  num_bins, lower, upper, stream);
}

extern "C" cuprim_status cuprim_histogram_range_ex(cuprim_ctx *ctx, cuprim_histogram_alg alg,
                                                   const void *d_samples, uint64_t n,
                                                   cuprim_dtype sample_dtype, uint64_t *d_counts,
                                                   uint32_t num_bins, const double *d_edges,
                                                   cudaStream_t stream) {
  CUPRIM__CHECK_ARG(d_edges != NULL && (uintptr_t)d_edges % sizeof(double) == 0);
  CUPRIM__FORWARD(validate_common(ctx, d_samples, n, sample_dtype, d_counts, num_bins, d_edges,
                                  ((size_t)num_bins + 1) * sizeof(double)));
  CUPRIM__CHECK_ARG((unsigned)alg <= (unsigned)CUPRIM_HISTOGRAM_SORT_REDUCE_BY_KEY);
  CUPRIM__CHECK(cuprim__histogram_takes(sample_dtype), CUPRIM_ERROR_UNSUPPORTED);
  cuprim__bins bins = {};
  bins.num_bins = num_bins;
  bins.by_edges = 1;
  bins.d_edges = d_edges;
  return run(ctx, alg, d_samples, n, sample_dtype, d_counts, &bins, stream);
}

extern "C" cuprim_status cuprim_histogram_range(cuprim_ctx *ctx, const void *d_samples, uint64_t n,
                                                cuprim_dtype sample_dtype, uint64_t *d_counts,
                                                uint32_t num_bins, const double *d_edges,
                                                cudaStream_t stream) {
  return cuprim_histogram_range_ex(ctx, CUPRIM_HISTOGRAM_AUTO, d_samples, n, sample_dtype, d_counts,
                                   num_bins, d_edges, stream);
}

extern "C" int cuprim_histogram_supported(cuprim_dtype sample_dtype) {
  return cuprim__histogram_takes(sample_dtype);
}

extern "C" cuprim_status
cuprim_histogram_even_multi(cuprim_ctx *ctx, const void *d_samples, uint64_t num_pixels,
                            int num_channels, int num_active_channels, cuprim_dtype sample_dtype,
                            uint64_t *const d_counts[], const uint32_t num_bins[],
                            const double lower[], const double upper[], cudaStream_t stream) {
  CUPRIM__CHECK_ARG(ctx != NULL);
  CUPRIM__CHECK_ARG(cuprim__dtype_valid(sample_dtype));
  CUPRIM__CHECK_ARG(num_channels >= 1 && num_channels <= CUPRIM__MAX_CHANNELS);
  CUPRIM__CHECK_ARG(num_active_channels >= 1 && num_active_channels <= num_channels);
  CUPRIM__CHECK_ARG(d_counts != NULL && num_bins != NULL && lower != NULL && upper != NULL);
  const size_t size = cuprim_dtype_size(sample_dtype);
  uintptr_t s = 0, sbytes = 0;
  if (num_pixels > 0) {
    CUPRIM__CHECK_ARG(d_samples != NULL && (uintptr_t)d_samples % size == 0);
    CUPRIM__CHECK_ARG(num_pixels <= (uint64_t)UINTPTR_MAX / size / (uint64_t)num_channels);
    s = (uintptr_t)d_samples;
    sbytes = (uintptr_t)(num_pixels * (uint64_t)num_channels * size);
    CUPRIM__CHECK_ARG(s <= UINTPTR_MAX - sbytes);
  }
  cuprim__bins bins[CUPRIM__MAX_CHANNELS];
  for (int c = 0; c < num_active_channels; ++c) {
    const uintptr_t o = (uintptr_t)d_counts[c];
    CUPRIM__CHECK_ARG(o != 0 && o % sizeof(uint64_t) == 0);
    CUPRIM__CHECK_ARG(num_bins[c] >= 1);
    const uintptr_t obytes = (uintptr_t)num_bins[c] * sizeof(uint64_t);
    CUPRIM__CHECK_ARG(o <= UINTPTR_MAX - obytes);
    CUPRIM__CHECK_ARG(num_pixels == 0 || disjoint(o, obytes, s, sbytes));
    for (int k = 0; k < c; ++k)
      CUPRIM__CHECK_ARG(
          disjoint(o, obytes, (uintptr_t)d_counts[k], (uintptr_t)num_bins[k] * sizeof(uint64_t)));
    CUPRIM__FORWARD(even_bins(num_bins[c], lower[c], upper[c], &bins[c]));
  }
  CUPRIM__CHECK(cuprim__histogram_takes(sample_dtype), CUPRIM_ERROR_UNSUPPORTED);
  cuprim__device_scope scope;
  CUPRIM__FORWARD(cuprim__device_enter(ctx, &scope));
  const cuprim_status st =
      cuprim__histogram_multi(ctx, d_samples, num_pixels, num_channels, num_active_channels,
                              sample_dtype, d_counts, bins, stream);
  cuprim__device_leave(&scope);
  return st;
}

extern "C" cuprim_status cuprim_histogram_even_weighted_ex(
    cuprim_ctx *ctx, cuprim_histogram_weighted_alg alg, const void *d_samples,
    const void *d_weights, uint64_t n, cuprim_dtype sample_dtype, cuprim_dtype weight_dtype,
    double *d_sums, uint32_t num_bins, double lower, double upper, cudaStream_t stream) {
  CUPRIM__CHECK_ARG(ctx != NULL);
  CUPRIM__CHECK_ARG(cuprim__dtype_valid(sample_dtype) && cuprim__dtype_valid(weight_dtype));
  CUPRIM__CHECK_ARG(num_bins >= 1);
  const uintptr_t o = (uintptr_t)d_sums, obytes = (uintptr_t)num_bins * sizeof(double);
  CUPRIM__CHECK_ARG(o != 0 && o % sizeof(double) == 0 && o <= UINTPTR_MAX - obytes);
  if (n > 0) {
    const void *const in[2] = {d_samples, d_weights};
    const size_t sizes[2] = {cuprim_dtype_size(sample_dtype), cuprim_dtype_size(weight_dtype)};
    for (int k = 0; k < 2; ++k) {
      const uintptr_t p = (uintptr_t)in[k];
      CUPRIM__CHECK_ARG(p != 0 && p % sizes[k] == 0 && n <= (uint64_t)UINTPTR_MAX / sizes[k]);
      const uintptr_t bytes = (uintptr_t)(n * sizes[k]);
      CUPRIM__CHECK_ARG(p <= UINTPTR_MAX - bytes && disjoint(o, obytes, p, bytes));
    }
  }
  CUPRIM__CHECK_ARG((unsigned)alg <= (unsigned)CUPRIM_HISTOGRAM_WEIGHTED_FIXED_ORDER);
  cuprim__bins bins;
  CUPRIM__FORWARD(even_bins(num_bins, lower, upper, &bins));
  CUPRIM__CHECK(weight_dtype == CUPRIM_F32 || weight_dtype == CUPRIM_F64, CUPRIM_ERROR_UNSUPPORTED);
  CUPRIM__CHECK(cuprim__histogram_takes(sample_dtype), CUPRIM_ERROR_UNSUPPORTED);
  cuprim__device_scope scope;
  CUPRIM__FORWARD(cuprim__device_enter(ctx, &scope));
  cuprim_status st;
  if (n == 0) /* the sums are overwritten: all +0.0 */
    st = cuprim__cuda_status(cudaMemsetAsync(d_sums, 0, (size_t)obytes, stream));
  else
    st = cuprim__histogram_weighted(ctx, alg, d_samples, d_weights, n, sample_dtype, weight_dtype,
                                    d_sums, &bins, stream);
  cuprim__device_leave(&scope);
  return st;
}

extern "C" cuprim_status cuprim_histogram_even_weighted(cuprim_ctx *ctx, const void *d_samples,
                                                        const void *d_weights, uint64_t n,
                                                        cuprim_dtype sample_dtype,
                                                        cuprim_dtype weight_dtype, double *d_sums,
                                                        uint32_t num_bins, double lower,
                                                        double upper, cudaStream_t stream) {
  return cuprim_histogram_even_weighted_ex(ctx, CUPRIM_HISTOGRAM_WEIGHTED_AUTO, d_samples,
                                           d_weights, n, sample_dtype, weight_dtype, d_sums,
                                           num_bins, lower, upper, stream);
}
