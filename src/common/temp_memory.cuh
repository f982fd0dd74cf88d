/* Temporary device memory held for the launches of one call (host code, for the CUDA sources):
 * taken from the context's allocator on the call's stream and given back stream-ordered, on every
 * path out of the launches. */
#ifndef CUPRIM_COMMON_TEMP_MEMORY_CUH
#define CUPRIM_COMMON_TEMP_MEMORY_CUH

#include "check.h"
#include "context.h"

namespace cuprim {

/* Takes `bytes` of temporary memory (cuprim__temp_alloc), calls launch(temp), which enqueues the
 * work that uses it on `stream` and returns a cuprim_status, then gives the memory back on
 * `stream` (cuprim__temp_free) whatever launch returned. Returns the allocation's error, or
 * launch's status. */
template <class F>
cuprim_status with_temp(const cuprim_ctx *ctx, size_t bytes, cudaStream_t stream, F &&launch) {
  void *temp = NULL;
  CUPRIM__FORWARD(cuprim__temp_alloc(ctx, bytes, stream, &temp));
  const cuprim_status st = launch(temp);
  cuprim__temp_free(ctx, temp, bytes, stream);
  return st;
}

} // namespace cuprim

#endif
