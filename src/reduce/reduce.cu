/* Reduce's C entry points: validate everything that needs no device, make the context's device
 * current, and forward to the AUTO path or the ladder. */
#include <cuprim/reduce.h>

#include "common/check.h"
#include "common/context.h"
#include "common/dtype.h"
#include "reduce_internal.h"

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
    CUPRIM__CHECK_ARG(out + size <= lo || out >= lo + n * size);
  }
  CUPRIM__CHECK(cuprim__reduce_scan_takes(dtype, op), CUPRIM_ERROR_UNSUPPORTED);
  return CUPRIM_SUCCESS;
}

extern "C" cuprim_status cuprim_reduce_ex(cuprim_ctx *ctx, cuprim_reduce_alg alg,
                                          const void *d_in, void *d_out, uint64_t n,
                                          cuprim_dtype dtype, cuprim_op op, cudaStream_t stream) {
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
