/* Temporary device memory held for the launches of one call (host code, for the CUDA sources):
 * taken from the context's allocator on the call's stream and given back stream-ordered, on every
 * path out of the launches; and round16, the alignment of the pieces that a call carves out of one
 * block of memory, temporary or shared. */
#ifndef CUPRIM_COMMON_TEMP_MEMORY_CUH
#define CUPRIM_COMMON_TEMP_MEMORY_CUH

#include <type_traits>

#include "check.h"
#include "context.h"

namespace cuprim {

/* `bytes` rounded up to a whole number of 16-byte units: a piece of that size, carved after others
 * of such sizes from one allocation (temporary memory, or a kernel's dynamic shared memory), leaves
 * the next piece 16-byte aligned, as the 16-byte vector loads and stores need. Computed in the
 * caller's unsigned type, so that device code keeps its 32-bit arithmetic where it has it. */
template <class U> __host__ __device__ constexpr U round16(U bytes) {
  static_assert(std::is_unsigned<U>::value, "a size in bytes");
  return (bytes + 15) / 16 * 16;
}

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
