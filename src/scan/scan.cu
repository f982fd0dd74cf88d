/* Scan's C entry points: validate everything that needs no device, make the context's device
 * current, and forward to the look-back path (AUTO, DECOUPLED_LOOKBACK, and cuprim_scan_init) or
 * the ladder. */
#include <cuprim/scan.h>

#include "common/check.h"
#include "common/context.h"
#include "common/dtype.h"
#include "scan_internal.h"

extern "C" cuprim_status cuprim__scan_validate(const cuprim_ctx *ctx, cuprim_scan_alg alg,
                                               const void *d_in, const void *d_out, uint64_t n,
                                               cuprim_dtype dtype, cuprim_op op,
                                               cuprim_scan_kind kind, int with_init,
                                               const void *d_init) {
  CUPRIM__CHECK_ARG(ctx != NULL);
  CUPRIM__CHECK_ARG((unsigned)alg <= (unsigned)CUPRIM_SCAN_DECOUPLED_LOOKBACK);
  CUPRIM__CHECK_ARG(cuprim__dtype_valid(dtype));
  CUPRIM__CHECK_ARG(cuprim__op_valid(op));
  CUPRIM__CHECK_ARG((unsigned)kind <= (unsigned)CUPRIM_EXCLUSIVE);
  if (n > 0) {
    CUPRIM__CHECK_ARG(d_in != NULL && d_out != NULL);
    const size_t size = cuprim_dtype_size(dtype);
    CUPRIM__CHECK_ARG((uintptr_t)d_in % size == 0 && (uintptr_t)d_out % size == 0);
    CUPRIM__CHECK_ARG(n <= (uint64_t)UINTPTR_MAX / size);
    const uintptr_t in = (uintptr_t)d_in, out = (uintptr_t)d_out, bytes = (uintptr_t)(n * size);
    CUPRIM__CHECK_ARG(in <= UINTPTR_MAX - bytes && out <= UINTPTR_MAX - bytes);
    /* In place is allowed; any other overlap is not. */
    CUPRIM__CHECK_ARG(in == out || out + bytes <= in || out >= in + bytes);
    if (with_init) {
      /* The initial value is read while the output is written: not inside d_out. */
      const uintptr_t init = (uintptr_t)d_init;
      CUPRIM__CHECK_ARG(d_init != NULL && init % size == 0 && init <= UINTPTR_MAX - size);
      CUPRIM__CHECK_ARG(init + size <= out || init >= out + bytes);
    }
  }
  CUPRIM__CHECK(cuprim__reduce_scan_takes(dtype, op), CUPRIM_ERROR_UNSUPPORTED);
  return CUPRIM_SUCCESS;
}

extern "C" cuprim_status cuprim_scan_ex(cuprim_ctx *ctx, cuprim_scan_alg alg, const void *d_in,
                                        void *d_out, uint64_t n, cuprim_dtype dtype, cuprim_op op,
                                        cuprim_scan_kind kind, cudaStream_t stream) {
  CUPRIM__FORWARD(cuprim__scan_validate(ctx, alg, d_in, d_out, n, dtype, op, kind, 0, NULL));
  if (n == 0)
    return CUPRIM_SUCCESS; /* nothing to write */
  cuprim__device_scope scope;
  CUPRIM__FORWARD(cuprim__device_enter(ctx, &scope));
  cuprim_status st;
  if (alg == CUPRIM_SCAN_AUTO || alg == CUPRIM_SCAN_DECOUPLED_LOOKBACK) {
    cuprim__scan_tuning tune = cuprim__scan_tuning_for(ctx->attrs.code_arch);
    if (alg == CUPRIM_SCAN_DECOUPLED_LOOKBACK)
      tune.single_block_max_tiles = 0; /* the look-back kernel at every size */
    st = cuprim__scan_lookback(ctx, d_in, d_out, n, dtype, op, kind, stream, &tune);
  } else {
    st = cuprim__scan_ladder(ctx, alg, d_in, d_out, n, dtype, op, kind, stream);
  }
  cuprim__device_leave(&scope);
  return st;
}

extern "C" cuprim_status cuprim_scan(cuprim_ctx *ctx, const void *d_in, void *d_out, uint64_t n,
                                     cuprim_dtype dtype, cuprim_op op, cuprim_scan_kind kind,
                                     cudaStream_t stream) {
  return cuprim_scan_ex(ctx, CUPRIM_SCAN_AUTO, d_in, d_out, n, dtype, op, kind, stream);
}

extern "C" cuprim_status cuprim_scan_init(cuprim_ctx *ctx, const void *d_in, void *d_out,
                                          uint64_t n, cuprim_dtype dtype, cuprim_op op,
                                          cuprim_scan_kind kind, const void *d_init,
                                          cudaStream_t stream) {
  CUPRIM__FORWARD(
      cuprim__scan_validate(ctx, CUPRIM_SCAN_AUTO, d_in, d_out, n, dtype, op, kind, 1, d_init));
  if (n == 0)
    return CUPRIM_SUCCESS; /* nothing to write; *d_init is not read */
  cuprim__device_scope scope;
  CUPRIM__FORWARD(cuprim__device_enter(ctx, &scope));
  const cuprim__scan_tuning tune = cuprim__scan_tuning_for(ctx->attrs.code_arch);
  const cuprim_status st =
      cuprim__scan_lookback_init(ctx, d_in, d_out, n, dtype, op, kind, d_init, stream, &tune);
  cuprim__device_leave(&scope);
  return st;
}

extern "C" int cuprim_scan_supported(cuprim_dtype dtype, cuprim_op op) {
  return cuprim__reduce_scan_takes(dtype, op);
}
