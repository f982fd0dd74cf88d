/* Loads of 16-byte vectors, reinterpreted as VEC elements of T. */
#ifndef CUPRIM_CTA_LOAD_CUH
#define CUPRIM_CTA_LOAD_CUH

#include <stdint.h>
#include <string.h>

#include "arch.cuh"

namespace cuprim {
namespace cta {

/* LDG: through the read-only path (inputs that no block of the launch writes).
 * CG: cached in L2 only (data written earlier in the same launch by other blocks, read after a
 * fence and an atomic that ordered it).
 * PLAIN: an ordinary load (shared memory, or data this block wrote).
 * STREAM_PF: read-only, not kept in L1, with a hint to fetch the surrounding 256 bytes into L2
 * (vector loads only; scalar loads fall back to LDG; arch.cuh says which GPUs take the hint). */
enum load_mode { LOAD_LDG, LOAD_CG, LOAD_PLAIN, LOAD_STREAM_PF };

template <load_mode M, class T> __device__ __forceinline__ T load(const T *p) {
  if constexpr (M == LOAD_CG)
    return __ldcg(p);
  else if constexpr (M == LOAD_LDG || M == LOAD_STREAM_PF)
    return __ldg(p);
  else
    return *p;
}

/* Loads 16 bytes at `p` (16-byte aligned) into v[0..VEC). */
template <load_mode M, class T, int VEC>
__device__ __forceinline__ void load_vec16(const T *p, T (&v)[VEC]) {
  static_assert(sizeof(T) * VEC == 16, "a vector is 16 bytes");
  uint4 raw;
  if constexpr (M == LOAD_CG)
    raw = __ldcg(reinterpret_cast<const uint4 *>(p));
  else if constexpr (M == LOAD_LDG)
    raw = __ldg(reinterpret_cast<const uint4 *>(p));
  else if constexpr (M == LOAD_STREAM_PF)
    raw = load_stream_l2_256(p);
  else
    raw = *reinterpret_cast<const uint4 *>(p);
  memcpy(v, &raw, 16);
}

__device__ __forceinline__ bool aligned16(const void *p) { return (uintptr_t)p % 16 == 0; }

} // namespace cta
} // namespace cuprim

#endif
