/* Device-side fills for inputs too large to build on the host (the cases past 2^31 elements and
 * 2^32 samples), and a device-side check of a scan of them.
 * Each fill is a formula of the index, so the host computes the reference from the same formula
 * without an 8 GB copy. Enqueued on `stream`; returns the launch's error. */
#ifndef CUPRIM_TEST_DEVICE_FILL_H
#define CUPRIM_TEST_DEVICE_FILL_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __CUDACC__
#define TU_HOST_DEVICE __host__ __device__
#else
#define TU_HOST_DEVICE
#endif

/* The formulas, shared by the kernels and the host references (both exact: no rounding). */
static inline TU_HOST_DEVICE uint32_t tu_fill_u32_formula(uint64_t i) {
  return ((uint32_t)i * 2654435761u) >> 7; /* Knuth's multiplicative hash, 25 bits */
}
static inline TU_HOST_DEVICE float tu_fill_f32_formula(uint64_t i) {
  return (float)(uint32_t)(i % 1000u) * 0.25f; /* 0, 0.25, ..., 249.75: exact in float */
}

/* Bytes for the histogram input past 2^32 samples: a function of i mod 65537 only, so the host
 * counts one period and multiplies. 2^32 mod 65537 == 1, so sample 2^32 + j differs from sample
 * j: an index cut to 32 bits reads other values and moves counts between bins. */
#define TU_FILL_U8_PERIOD 65537u
static inline TU_HOST_DEVICE uint8_t tu_fill_u8_formula(uint64_t i) {
  return (uint8_t)(((uint32_t)(i % TU_FILL_U8_PERIOD) * 2654435761u) >> 24);
}

/* d[i] = tu_fill_u32_formula(i) for i < n. */
cudaError_t tu_device_fill_u32(uint32_t *d, uint64_t n, cudaStream_t stream);
/* d[i] = tu_fill_f32_formula(i) for i < n. */
cudaError_t tu_device_fill_f32(float *d, uint64_t n, cudaStream_t stream);
/* d[i] = tu_fill_u8_formula(i) for i < n. */
cudaError_t tu_device_fill_u8(uint8_t *d, uint64_t n, cudaStream_t stream);

/* Checks d_out[0..n) as the wrapping SUM scan of tu_fill_u32_formula (inclusive, or exclusive if
 * `exclusive`) without a reference array: d_out[0] must be f(0) (inclusive) or 0 (exclusive), and
 * d_out[i] - d_out[i-1] must be f(i) (inclusive) or f(i-1) (exclusive) for every i > 0, which by
 * induction is the same as every element being right. *wrong = the number of indices failing
 * that, *first = the lowest (n if none): a wrong element at j fails at j (and usually j + 1).
 * Enqueued on `stream` and waited for; returns the first CUDA error. */
cudaError_t tu_device_check_scan_sum_u32(const uint32_t *d_out, uint64_t n, int exclusive,
                                         uint64_t *wrong, uint64_t *first, cudaStream_t stream);

/* The segments of the two checks below: sorted offsets d_off[0..rows] (device, u64), or, with
 * d_off NULL, rows of `len` elements. */
typedef struct tu_segments {
  const uint64_t *d_off;
  uint64_t rows, len;
} tu_segments;

/* Checks d_out[0..rows) as the wrapping SUM of tu_fill_u32_formula over each segment (computed
 * from the formula: the input is not read). *wrong = the number of wrong segments, *first = the
 * lowest (rows if none). One thread per segment. Enqueued on `stream` and waited for; returns the
 * first CUDA error. */
cudaError_t tu_device_check_segmented_sum_u32(const uint32_t *d_out, tu_segments seg,
                                              uint64_t *wrong, uint64_t *first,
                                              cudaStream_t stream);

/* Checks the elements of d_out that the segments cover as the SUM scan of tu_fill_u32_formula
 * restarted at every segment (inclusive, or exclusive if `exclusive`): at a segment's first element
 * the formula's element (inclusive) or 0 (exclusive), and after it d_out[i] - d_out[i-1] the
 * formula's element i (inclusive) or i - 1 (exclusive). *wrong = the number of wrong elements,
 * *first = the lowest (UINT64_MAX if none). One thread per segment. Waited for as above. */
cudaError_t tu_device_check_segmented_scan_sum_u32(const uint32_t *d_out, tu_segments seg,
                                                   int exclusive, uint64_t *wrong, uint64_t *first,
                                                   cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
