/* The segmented and batched calls' C entry points: validate everything that needs no device (in
 * the order of docs/errors.md: every INVALID_ARGUMENT check before the UNSUPPORTED ones, all of
 * them before the first CUDA call), make the context's device current, and forward to the
 * dispatch layers (segmented_internal.h). */
#include <cuprim/segmented.h>

#include "common/check.h"
#include "common/context.h"
#include "common/dtype.h"
#include "segmented_internal.h"

namespace {

/* [p, p + count * size) lies in the address space (no wrap). */
bool addressable(const void *p, uint64_t count, size_t size) {
  if (count > (uint64_t)UINTPTR_MAX / size)
    return false;
  return (uintptr_t)p <= UINTPTR_MAX - (uintptr_t)(count * size);
}

/* The two byte ranges share no byte. */
bool disjoint(const void *a, uint64_t a_bytes, const void *b, uint64_t b_bytes) {
  const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
  return x + a_bytes <= y || y + b_bytes <= x;
}

bool aligned(const void *p, size_t size) { return (uintptr_t)p % size == 0; }

/* The offset dtypes segmented.h takes (the others are valid enums, but UNSUPPORTED). */
bool offsets_taken(cuprim_dtype t) {
  return t == CUPRIM_I32 || t == CUPRIM_U32 || t == CUPRIM_I64 || t == CUPRIM_U64;
}

/* What the reduce and scan checks share about the offsets: num_segments + 1 integers at d_offsets
 * (num_segments > 0: not NULL, aligned to their size, addressable), and d_out must not overlap
 * them (out_bytes of it are written). */
bool offsets_ok(const void *d_offsets, size_t osize, uint64_t num_segments, const void *d_out,
                uint64_t out_bytes) {
  if (num_segments == 0)
    return d_offsets == NULL || aligned(d_offsets, osize);
  if (d_offsets == NULL || !aligned(d_offsets, osize) ||
      !addressable(d_offsets, num_segments + 1, osize))
    return false;
  return out_bytes == 0 || disjoint(d_out, out_bytes, d_offsets, (num_segments + 1) * osize);
}

/* The input and output of a scan of n elements: not NULL, aligned, addressable, and the same or
 * disjoint (in place is allowed). */
bool scan_buffers_ok(const void *d_in, const void *d_out, uint64_t n, size_t size) {
  if (d_in == NULL || d_out == NULL || !aligned(d_in, size) || !aligned(d_out, size))
    return false;
  if (!addressable(d_in, n, size) || !addressable(d_out, n, size))
    return false;
  return d_in == d_out || disjoint(d_in, n * size, d_out, n * size);
}

cuprim_status validate_reduce(const cuprim_ctx *ctx, cuprim_segmented_alg alg, const void *d_in,
                              const void *d_out, uint64_t n, const void *d_offsets,
                              cuprim_dtype offset_dtype, uint64_t num_segments, cuprim_dtype dtype,
                              cuprim_op op) {
  CUPRIM__CHECK_ARG(ctx != NULL);
  CUPRIM__CHECK_ARG((unsigned)alg <= (unsigned)CUPRIM_SEGMENTED_MERGE_PATH);
  CUPRIM__CHECK_ARG(cuprim__dtype_valid(dtype) && cuprim__op_valid(op));
  CUPRIM__CHECK_ARG(cuprim__dtype_valid(offset_dtype));
  CUPRIM__CHECK_ARG(num_segments != UINT64_MAX);
  const size_t size = cuprim_dtype_size(dtype), osize = cuprim_dtype_size(offset_dtype);
  /* The input: n elements (NULL only when n == 0). */
  CUPRIM__CHECK_ARG(n == 0 || d_in != NULL);
  CUPRIM__CHECK_ARG(d_in == NULL || aligned(d_in, size));
  CUPRIM__CHECK_ARG(n == 0 || addressable(d_in, n, size));
  /* The output: num_segments elements, not overlapping the input. */
  CUPRIM__CHECK_ARG(num_segments == 0 || d_out != NULL);
  CUPRIM__CHECK_ARG(d_out == NULL || aligned(d_out, size));
  const uint64_t out_bytes = num_segments * size;
  if (num_segments > 0) {
    CUPRIM__CHECK_ARG(addressable(d_out, num_segments, size));
    CUPRIM__CHECK_ARG(n == 0 || disjoint(d_out, out_bytes, d_in, n * size));
  }
  CUPRIM__CHECK_ARG(offsets_ok(d_offsets, osize, num_segments, d_out, out_bytes));
  CUPRIM__CHECK(offsets_taken(offset_dtype), CUPRIM_ERROR_UNSUPPORTED);
  CUPRIM__CHECK(cuprim__reduce_scan_takes(dtype, op), CUPRIM_ERROR_UNSUPPORTED);
  return CUPRIM_SUCCESS;
}

cuprim_status validate_scan(const cuprim_ctx *ctx, const void *d_in, const void *d_out, uint64_t n,
                            const void *d_offsets, cuprim_dtype offset_dtype, uint64_t num_segments,
                            cuprim_dtype dtype, cuprim_op op, cuprim_scan_kind kind) {
  CUPRIM__CHECK_ARG(ctx != NULL);
  CUPRIM__CHECK_ARG(cuprim__dtype_valid(dtype) && cuprim__op_valid(op));
  CUPRIM__CHECK_ARG((unsigned)kind <= (unsigned)CUPRIM_EXCLUSIVE);
  CUPRIM__CHECK_ARG(cuprim__dtype_valid(offset_dtype));
  CUPRIM__CHECK_ARG(num_segments != UINT64_MAX);
  const size_t size = cuprim_dtype_size(dtype), osize = cuprim_dtype_size(offset_dtype);
  const bool work = n > 0 && num_segments > 0; /* otherwise nothing is read or written */
  if (work)
    CUPRIM__CHECK_ARG(scan_buffers_ok(d_in, d_out, n, size));
  CUPRIM__CHECK_ARG(offsets_ok(d_offsets, osize, num_segments, d_out, work ? n * size : 0));
  CUPRIM__CHECK(offsets_taken(offset_dtype), CUPRIM_ERROR_UNSUPPORTED);
  CUPRIM__CHECK(cuprim__reduce_scan_takes(dtype, op), CUPRIM_ERROR_UNSUPPORTED);
  return CUPRIM_SUCCESS;
}

/* num_segments * segment_size, or INVALID_ARGUMENT when it does not fit in uint64_t. */
cuprim_status batched_elements(uint64_t num_segments, uint64_t segment_size, uint64_t *n) {
  CUPRIM__CHECK_ARG(segment_size == 0 || num_segments <= UINT64_MAX / segment_size);
  *n = num_segments * segment_size;
  return CUPRIM_SUCCESS;
}

cuprim__segments offsets_segments(const void *d_offsets, cuprim_dtype offset_dtype,
                                  uint64_t num_segments, uint64_t n) {
  cuprim__segments s;
  s.d_offsets = d_offsets;
  s.offset_bytes = (int)cuprim_dtype_size(offset_dtype);
  s.offset_signed = offset_dtype == CUPRIM_I32 || offset_dtype == CUPRIM_I64;
  s.num_segments = num_segments;
  s.segment_size = 0;
  s.n = n;
  return s;
}

cuprim__segments row_segments(uint64_t num_segments, uint64_t segment_size) {
  cuprim__segments s;
  s.d_offsets = NULL;
  s.offset_bytes = 0;
  s.offset_signed = 0;
  s.num_segments = num_segments;
  s.segment_size = segment_size;
  s.n = num_segments * segment_size;
  return s;
}

cuprim_status run_reduce(cuprim_ctx *ctx, cuprim_segmented_alg alg, const void *d_in, void *d_out,
                         const cuprim__segments &seg, cuprim_dtype dtype, cuprim_op op,
                         cudaStream_t stream) {
  cuprim__device_scope scope;
  CUPRIM__FORWARD(cuprim__device_enter(ctx, &scope));
  const cuprim_status st =
      seg.d_offsets != NULL
          ? cuprim__segmented_reduce(ctx, alg, d_in, d_out, &seg, dtype, op, stream)
          : cuprim__batched_reduce(ctx, d_in, d_out, &seg, dtype, op, stream);
  cuprim__device_leave(&scope);
  return st;
}

cuprim_status run_scan(cuprim_ctx *ctx, const void *d_in, void *d_out, const cuprim__segments &seg,
                       cuprim_dtype dtype, cuprim_op op, cuprim_scan_kind kind,
                       cudaStream_t stream) {
  cuprim__device_scope scope;
  CUPRIM__FORWARD(cuprim__device_enter(ctx, &scope));
  const cuprim_status st = cuprim__segmented_scan(ctx, d_in, d_out, &seg, dtype, op, kind, stream);
  cuprim__device_leave(&scope);
  return st;
}

} // namespace

extern "C" cuprim_status cuprim_segmented_reduce_ex(cuprim_ctx *ctx, cuprim_segmented_alg alg,
                                                    const void *d_in, void *d_out, uint64_t n,
                                                    const void *d_offsets,
                                                    cuprim_dtype offset_dtype,
                                                    uint64_t num_segments, cuprim_dtype dtype,
                                                    cuprim_op op, cudaStream_t stream) {
  CUPRIM__FORWARD(
      validate_reduce(ctx, alg, d_in, d_out, n, d_offsets, offset_dtype, num_segments, dtype, op));
  if (num_segments == 0)
    return CUPRIM_SUCCESS; /* nothing to write */
  return run_reduce(ctx, alg, d_in, d_out,
                    offsets_segments(d_offsets, offset_dtype, num_segments, n), dtype, op, stream);
}

extern "C" cuprim_status cuprim_segmented_reduce(cuprim_ctx *ctx, const void *d_in, void *d_out,
                                                 uint64_t n, const void *d_offsets,
                                                 cuprim_dtype offset_dtype, uint64_t num_segments,
                                                 cuprim_dtype dtype, cuprim_op op,
                                                 cudaStream_t stream) {
  return cuprim_segmented_reduce_ex(ctx, CUPRIM_SEGMENTED_AUTO, d_in, d_out, n, d_offsets,
                                    offset_dtype, num_segments, dtype, op, stream);
}

extern "C" cuprim_status cuprim_batched_reduce(cuprim_ctx *ctx, const void *d_in, void *d_out,
                                               uint64_t num_segments, uint64_t segment_size,
                                               cuprim_dtype dtype, cuprim_op op,
                                               cudaStream_t stream) {
  CUPRIM__CHECK_ARG(ctx != NULL);
  CUPRIM__CHECK_ARG(cuprim__dtype_valid(dtype) && cuprim__op_valid(op));
  uint64_t n = 0;
  CUPRIM__FORWARD(batched_elements(num_segments, segment_size, &n));
  const size_t size = cuprim_dtype_size(dtype);
  CUPRIM__CHECK_ARG(n == 0 || d_in != NULL);
  CUPRIM__CHECK_ARG(d_in == NULL || aligned(d_in, size));
  CUPRIM__CHECK_ARG(n == 0 || addressable(d_in, n, size));
  CUPRIM__CHECK_ARG(num_segments == 0 || d_out != NULL);
  CUPRIM__CHECK_ARG(d_out == NULL || aligned(d_out, size));
  if (num_segments > 0) {
    CUPRIM__CHECK_ARG(addressable(d_out, num_segments, size));
    CUPRIM__CHECK_ARG(n == 0 || disjoint(d_out, num_segments * size, d_in, n * size));
  }
  CUPRIM__CHECK(cuprim__reduce_scan_takes(dtype, op), CUPRIM_ERROR_UNSUPPORTED);
  if (num_segments == 0)
    return CUPRIM_SUCCESS;
  return run_reduce(ctx, CUPRIM_SEGMENTED_AUTO, d_in, d_out,
                    row_segments(num_segments, segment_size), dtype, op, stream);
}

extern "C" cuprim_status cuprim_segmented_scan(cuprim_ctx *ctx, const void *d_in, void *d_out,
                                               uint64_t n, const void *d_offsets,
                                               cuprim_dtype offset_dtype, uint64_t num_segments,
                                               cuprim_dtype dtype, cuprim_op op,
                                               cuprim_scan_kind kind, cudaStream_t stream) {
  CUPRIM__FORWARD(
      validate_scan(ctx, d_in, d_out, n, d_offsets, offset_dtype, num_segments, dtype, op, kind));
  if (n == 0 || num_segments == 0)
    return CUPRIM_SUCCESS; /* nothing to write */
  return run_scan(ctx, d_in, d_out, offsets_segments(d_offsets, offset_dtype, num_segments, n),
                  dtype, op, kind, stream);
}

extern "C" cuprim_status cuprim_batched_scan(cuprim_ctx *ctx, const void *d_in, void *d_out,
                                             uint64_t num_segments, uint64_t segment_size,
                                             cuprim_dtype dtype, cuprim_op op,
                                             cuprim_scan_kind kind, cudaStream_t stream) {
  CUPRIM__CHECK_ARG(ctx != NULL);
  CUPRIM__CHECK_ARG(cuprim__dtype_valid(dtype) && cuprim__op_valid(op));
  CUPRIM__CHECK_ARG((unsigned)kind <= (unsigned)CUPRIM_EXCLUSIVE);
  uint64_t n = 0;
  CUPRIM__FORWARD(batched_elements(num_segments, segment_size, &n));
  if (n > 0)
    CUPRIM__CHECK_ARG(scan_buffers_ok(d_in, d_out, n, cuprim_dtype_size(dtype)));
  CUPRIM__CHECK(cuprim__reduce_scan_takes(dtype, op), CUPRIM_ERROR_UNSUPPORTED);
  if (n == 0)
    return CUPRIM_SUCCESS;
  return run_scan(ctx, d_in, d_out, row_segments(num_segments, segment_size), dtype, op, kind,
                  stream);
}

extern "C" int cuprim_segmented_supported(cuprim_dtype offset_dtype, cuprim_dtype dtype,
                                          cuprim_op op) {
  return cuprim__dtype_valid(offset_dtype) && offsets_taken(offset_dtype) &&
         cuprim__reduce_scan_takes(dtype, op);
}
