/* Histogram's C entry points: validate everything that needs no device (with the scale of the
 * even bins computed here, once, in double), make the context's device current, and forward to
 * the counting kernels (AUTO, GLOBAL_ATOMIC, BLOCK_PRIVATE) or the sort path. */
#include <cuprim/histogram.h>

#include <math.h>

#include "common/check.h"
#include "common/context.h"
#include "common/dtype.h"
#include "histogram_internal.h"

namespace {

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

extern "C" cuprim_status cuprim__histogram_even_validate(const cuprim_ctx *ctx,
                                                        cuprim_histogram_alg alg,
                                                        const void *d_samples, uint64_t n,
                                                        cuprim_dtype sample_dtype,
                                                        const uint64_t *d_counts,
                                                        uint32_t num_bins, double lower,
                                                        double upper, cuprim__bins *bins) {
  CUPRIM__FORWARD(
      validate_common(ctx, d_samples, n, sample_dtype, d_counts, num_bins, NULL, 0));
  CUPRIM__CHECK_ARG((unsigned)alg <= (unsigned)CUPRIM_HISTOGRAM_SORT_REDUCE_BY_KEY);
  CUPRIM__CHECK_ARG(isfinite(lower) && isfinite(upper) && lower < upper);
  cuprim__bins b = {};
  b.num_bins = num_bins;
  b.lower = lower;
  b.upper = upper;
  b.scale = (double)num_bins / (upper - lower); /* upper - lower may overflow to +inf */
  CUPRIM__CHECK_ARG(isfinite(b.scale) && b.scale > 0.0);
  CUPRIM__CHECK(cuprim__histogram_takes(sample_dtype), CUPRIM_ERROR_UNSUPPORTED);
  /* Integer-friendly bins: a whole-number lower bound and a scale of 2^-shift. Then, for
   * integer samples of up to 32 bits, (double)x - lower is exact (both whole, below 2^41), the
   * product by 2^-shift is exact, and truncating it is the shift. */
  b.shift = -1;
  int e = 0;
  if (frexp(b.scale, &e) == 0.5 && e <= 1 && e >= -31 && lower == floor(lower) &&
      fabs(lower) <= 0x1p40 && fabs(upper) <= 0x1p40) {
    b.shift = 1 - e; /* scale == 2^(e-1) */
    b.lower_int = (int64_t)lower;
    b.upper_ceil = (int64_t)ceil(upper);
  }
  *bins = b;
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
  return cuprim_histogram_even_ex(ctx, CUPRIM_HISTOGRAM_AUTO, d_samples, n, sample_dtype,
                                  d_counts, num_bins, lower, upper, stream);
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

extern "C" cuprim_status cuprim_histogram_range(cuprim_ctx *ctx, const void *d_samples,
                                                uint64_t n, cuprim_dtype sample_dtype,
                                                uint64_t *d_counts, uint32_t num_bins,
                                                const double *d_edges, cudaStream_t stream) {
  return cuprim_histogram_range_ex(ctx, CUPRIM_HISTOGRAM_AUTO, d_samples, n, sample_dtype,
                                   d_counts, num_bins, d_edges, stream);
}

extern "C" int cuprim_histogram_supported(cuprim_dtype sample_dtype) {
  return cuprim__histogram_takes(sample_dtype);
}
