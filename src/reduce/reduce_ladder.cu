#include "reduce_internal.h"
cuprim_status cuprim__reduce_ladder(const cuprim_ctx *, cuprim_reduce_alg, const void *, void *,
                                    uint64_t, cuprim_dtype, cuprim_op, cudaStream_t) {
  return CUPRIM_ERROR_INTERNAL; /* WIP placeholder, replaced before this lands */
}
