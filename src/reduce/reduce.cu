/* Reduce's C entry points: validate everything that needs no device, make the context's device
 * current, and forward to the AUTO path, the ladder or the arg-reduce. */
#include <cuprim/reduce.h>

#include "common/check.h"
#include "common/context.h"
#include "common/dtype.h"
#include "reduce_internal.h"

namespace {

/* The byte ranges [a, a + a_bytes) and [b, b + b_bytes) do not overlap (neither wraps). */
bool disjoint(uintptr_t a, size_t a_bytes, uintptr_t b, size_t b_bytes) {
  return a + a_bytes <= b || b + b_bytes <= a;
}

/* cuprim_reduce_arg takes every dtype, so every failed check is INVALID_ARGUMENT. */
cuprim_status validate_arg(const cuprim_ctx *ctx, const void *d_in, const void *d_value,
                           const uint64_t *d_index, uint64_t n, cuprim_dtype dtype,
                           cuprim_arg_op op) {
  CUPRIM__CHECK_ARG(ctx != NULL);
  CUPRIM__CHECK_ARG(cuprim__dtype_valid(dtype));
  CUPRIM__CHECK_ARG((unsigned)op <= (unsigned)CUPRIM_ARGMAX);
  CUPRIM__CHECK_ARG(d_index != NULL && (uintptr_t)d_index % sizeof(uint64_t) == 0);
  CUPRIM__CHECK_ARG(n == 0 || d_in != NULL);
  const size_t size = cuprim_dtype_size(dtype);
  CUPRIM__CHECK_ARG(d_in == NULL || (uintptr_t)d_in % size == 0);
  CUPRIM__CHECK_ARG(d_value == NULL || (uintptr_t)d_value % size == 0);
  CUPRIM__CHECK_ARG(n <= (uint64_t)UINTPTR_MAX / size);
  /* The outputs and the input are three ranges that must not overlap. */
  const uintptr_t idx = (uintptr_t)d_index, val = (uintptr_t)d_value, lo = (uintptr_t)d_in;
  CUPRIM__CHECK_ARG(idx <= UINTPTR_MAX - sizeof(uint64_t));
  CUPRIM__CHECK_ARG(d_value == NULL || val <= UINTPTR_MAX - size);
  CUPRIM__CHECK_ARG(d_value == NULL || disjoint(idx, sizeof(uint64_t), val, size));
  if (n > 0) {
    CUPRIM__CHECK_ARG(lo <= UINTPTR_MAX - n * size);
    CUPRIM__CHECK_ARG(disjoint(idx, sizeof(uint64_t), lo, n * size));
    CUPRIM__CHECK_ARG(d_value == NULL || disjoint(val, size, lo, n * size));
  }
  return CUPRIM_SUCCESS;
}

} // namespace

extern "C" cuprim_status cuprim__reduce_validate(const cuprim_ctx *ctx, cuprim_reduce_alg alg,
                                                 const void *d_in, const void *d_out, uint64_t n,
                                                 cuprim_dtype dtype, cuprim_op op) {
  CUPRIM__CHECK_ARG(ctx != NULL);
  CUPRIM__CHECK_ARG((unsigned)alg <= (unsigned)CUPRIM_REDUCE_ATOMIC);
  CUPRIM__CHECK_ARG(cuprim__dtype_valid(dtype));
  CUPRIM__CHECK_ARG(cuprim__op_valid(op));
  CUPRIM__CHECK_ARG(d_out != NULL);
  CUPRIM__CHECK_ARG(n == 0 || d_in != NULL);
  const size_t size = cuprim_dtype_size(dtype);
  CUPRIM__CHECK_ARG((uintptr_t)d_out % size == 0);
  CUPRIM__CHECK_ARG(d_in == NULL || (uintptr_t)d_in % size == 0);
  /* n * size must be addressable, and d_out must not lie inside the input. */
  CUPRIM__CHECK_ARG(n <= (uint64_t)UINTPTR_MAX / size);
  if (n > 0) {
    const uintptr_t lo = (uintptr_t)d_in, out = (uintptr_t)d_out;
    CUPRIM__CHECK_ARG(lo <= UINTPTR_MAX - n * size);
    CUPRIM__CHECK_ARG(disjoint(out, size, lo, n * size));
  }
  CUPRIM__CHECK(cuprim__reduce_scan_takes(dtype, op), CUPRIM_ERROR_UNSUPPORTED);
  return CUPRIM_SUCCESS;
}

extern "C" cuprim_status cuprim_reduce_ex(cuprim_ctx *ctx, cuprim_reduce_alg alg, const void *d_in,
                                          void *d_out, uint64_t n, cuprim_dtype dtype, cuprim_op op,
                                          cudaStream_t stream) {
  CUPRIM__FORWARD(cuprim__reduce_validate(ctx, alg, d_in, d_out, n, dtype, op));
  cuprim__device_scope scope;
  CUPRIM__FORWARD(cuprim__device_enter(ctx, &scope));
  cuprim_status st;
  if (alg == CUPRIM_REDUCE_AUTO || n == 0)
    st = cuprim__reduce_auto(ctx, d_in, d_out, n, dtype, op, stream);
  else
    st = cuprim__reduce_ladder(ctx, alg, d_in, d_out, n, dtype, op, stream);
  cuprim__device_leave(&scope);
  return st;
}

extern "C" cuprim_status cuprim_reduce(cuprim_ctx *ctx, const void *d_in, void *d_out, uint64_t n,
                                       cuprim_dtype dtype, cuprim_op op, cudaStream_t stream) {
  return cuprim_reduce_ex(ctx, CUPRIM_REDUCE_AUTO, d_in, d_out, n, dtype, op, stream);
}

extern "C" int cuprim_reduce_supported(cuprim_dtype dtype, cuprim_op op) {
  return cuprim__reduce_scan_takes(dtype, op);
}

extern "C" cuprim_status cuprim_reduce_arg(cuprim_ctx *ctx, const void *d_in, void *d_value,
                                           uint64_t *d_index, uint64_t n, cuprim_dtype dtype,
                                           cuprim_arg_op op, cudaStream_t stream) {
  CUPRIM__FORWARD(validate_arg(ctx, d_in, d_value, d_index, n, dtype, op));
  cuprim__device_scope scope;
  CUPRIM__FORWARD(cuprim__device_enter(ctx, &scope));
  const cuprim_status st = cuprim__reduce_arg(ctx, d_in, d_value, d_index, n, dtype, op, stream);
  cuprim__device_leave(&scope);
  return st;
}
