/* Between reduce's C entry point (reduce.cu) and its dispatch layers. Arguments reaching these
 * functions are validated; the context's device is current. */
#ifndef CUPRIM_REDUCE_INTERNAL_H
#define CUPRIM_REDUCE_INTERNAL_H

#include <cuprim/reduce.h>

#include "common/context.h"
#include "reduce_tuning.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every check of cuprim_reduce_ex that needs no device, in the order docs/errors.md gives
 * (reduce.cu); also the checks of the calls built on reduce (the NCCL component). */
cuprim_status cuprim__reduce_validate(const cuprim_ctx *ctx, cuprim_reduce_alg alg,
                                      const void *d_in, const void *d_out, uint64_t n,
                                      cuprim_dtype dtype, cuprim_op op);

/* The tuned, deterministic path (reduce_auto.cu). n may be 0. */
cuprim_status cuprim__reduce_auto(const cuprim_ctx *ctx, const void *d_in, void *d_out, uint64_t n,
                                  cuprim_dtype dtype, cuprim_op op, cudaStream_t stream);

/* cuprim__reduce_auto with the tuning given instead of taken from the table (bench/ sweeps it to
 * set the table, tests force each kernel; the result's bits do not depend on it). */
cuprim_status cuprim__reduce_auto_tuned(const cuprim_ctx *ctx, const void *d_in, void *d_out,
                                        uint64_t n, cuprim_dtype dtype, cuprim_op op,
                                        cudaStream_t stream, const cuprim__reduce_tuning *tune);

/* cuprim_reduce_arg after validation (reduce_arg.cu); n may be 0. Every dtype. */
cuprim_status cuprim__reduce_arg(const cuprim_ctx *ctx, const void *d_in, void *d_value,
                                 uint64_t *d_index, uint64_t n, cuprim_dtype dtype,
                                 cuprim_arg_op op, cudaStream_t stream);

/* cuprim__reduce_arg with the tuning given (tests force the one-block and the grid paths). */
cuprim_status cuprim__reduce_arg_tuned(const cuprim_ctx *ctx, const void *d_in, void *d_value,
                                       uint64_t *d_index, uint64_t n, cuprim_dtype dtype,
                                       cuprim_arg_op op, cudaStream_t stream,
                                       const cuprim__reduce_tuning *tune);

/* The ladder kernels (reduce_ladder.cu). alg != AUTO; n > 0. */
cuprim_status cuprim__reduce_ladder(const cuprim_ctx *ctx, cuprim_reduce_alg alg, const void *d_in,
                                    void *d_out, uint64_t n, cuprim_dtype dtype, cuprim_op op,
                                    cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
