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

/* One block of temporary memory carved into pieces: take() each piece's size in turn (each is
 * rounded with round16, so every piece is 16-byte aligned), then alloc() takes lay.bytes from the
 * context's allocator at once, at() points into it, and release() gives it back stream-ordered.
 * Every multi-piece call carves its temporary memory this way, so the alignment rule is here. */
struct temp_layout {
  size_t bytes = 0;
  char *base = nullptr;
  /* Reserves `b` bytes (rounded up to 16); returns the piece's offset, for at(). */
  size_t take(size_t b) {
    const size_t at = bytes;
    bytes += round16(b);
    return at;
  }
  cuprim_status alloc(const cuprim_ctx *ctx, cudaStream_t stream) {
    void *p = nullptr;
    const cuprim_status st = cuprim__temp_alloc(ctx, bytes, stream, &p);
    base = static_cast<char *>(p);
    return st;
  }
  void release(const cuprim_ctx *ctx, cudaStream_t stream) {
    cuprim__temp_free(ctx, base, bytes, stream);
  }
  /* The piece at `offset` (a value take returned), as P. */
  template <class P> P *at(size_t offset) const { return reinterpret_cast<P *>(base + offset); }
};

/* with_temp for a layout: allocates `lay`, calls launch() (which points into it with lay.at and
 * enqueues the work), and releases it whatever launch returned. */
template <class F>
cuprim_status with_temp(const cuprim_ctx *ctx, temp_layout &lay, cudaStream_t stream, F &&launch) {
  CUPRIM__FORWARD(lay.alloc(ctx, stream));
  const cuprim_status st = launch();
  lay.release(ctx, stream);
  return st;
}

} // namespace cuprim

#endif
