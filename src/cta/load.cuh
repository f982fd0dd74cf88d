/* Loads of 16-byte vectors, reinterpreted as VEC elements of T. */
#ifndef CUPRIM_CTA_LOAD_CUH
#define CUPRIM_CTA_LOAD_CUH

#include <stdint.h>
#include <string.h>

#include "arch.cuh"

namespace cuprim::cta {

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

/* A warp's VECS x 32 warp-striped vectors from an address `p` that is aligned to sizeof(T) (4 or
 * 8 bytes) but not to 16: x[k] of lane l gets the 16 bytes at p + 16 * (32k + l), as load_vec16
 * would give them were p aligned. Each lane loads the aligned vectors that cover the start of
 * its own (every warp instruction still reads 512 contiguous bytes), takes the words past its
 * vector's end from the next lane's vector by shuffles (lane 31 from lane 0's next vector), and
 * selects. Reads from p rounded down to 16 bytes up to 16 bytes past the span's end: the caller
 * makes sure that all of it lies in the buffer. */
template <load_mode M, class T, int VECS, int VEC>
__device__ __forceinline__ void load_warp_vecs_shifted(const T *p, int lane, T (&x)[VECS][VEC]) {
  static_assert(sizeof(T) * VEC == 16 && sizeof(T) >= 4, "4- and 8-byte elements");
  /* Words to skip: 1, 2 or 3 (8-byte elements: 2); the next lane's first NW words are needed. */
  const unsigned q = sizeof(T) == 8 ? 2 : (unsigned)((uintptr_t)p % 16) / 4;
  constexpr int NW = sizeof(T) == 8 ? 2 : 3;
  const T *al = reinterpret_cast<const T *>(reinterpret_cast<const char *>(p) - 4 * q);
#pragma unroll
  for (int k = 0; k < VECS; ++k)
    load_vec16<M>(al + (32 * k + lane) * VEC, x[k]);
  uint32_t extra[NW]; /* lane 31's neighbour of its last vector */
  {
    T e[VEC] = {};
    if (lane == 31)
      load_vec16<M>(al + 32 * VECS * VEC, e);
    memcpy(extra, e, 4 * NW);
  }
  const int next = (lane + 1) % 32;
  uint32_t nb[NW]; /* the next lane's vector k (lane 31: lane 0's, wrong until replaced) */
  {
    uint32_t w[4];
    memcpy(w, x[0], 16);
#pragma unroll
    for (int i = 0; i < NW; ++i)
      nb[i] = __shfl_sync(0xffffffffu, w[i], next);
  }
#pragma unroll
  for (int k = 0; k < VECS; ++k) {
    uint32_t after[NW]; /* the next lane's vector k + 1 */
    if (k + 1 < VECS) {
      uint32_t w[4];
      memcpy(w, x[k + 1], 16);
#pragma unroll
      for (int i = 0; i < NW; ++i)
        after[i] = __shfl_sync(0xffffffffu, w[i], next);
    }
    uint32_t c[4 + NW];
    memcpy(c, x[k], 16);
#pragma unroll
    for (int i = 0; i < NW; ++i)
      c[4 + i] = lane != 31 ? nb[i] : k + 1 < VECS ? after[i] : extra[i];
    uint32_t o[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      if constexpr (sizeof(T) == 8)
        o[i] = c[i + 2];
      else
        o[i] = q == 1 ? c[i + 1] : q == 2 ? c[i + 2] : c[i + 3];
    }
    memcpy(x[k], o, 16);
    if (k + 1 < VECS)
#pragma unroll
      for (int i = 0; i < NW; ++i)
        nb[i] = after[i];
  }
}

} // namespace cuprim::cta

#endif
