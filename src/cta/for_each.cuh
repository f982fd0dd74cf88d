/* The grid-wide walk over an array with 16-byte vector loads that histogram's counting kernels
 * and reduce's arg-reduce share. */
#ifndef CUPRIM_CTA_FOR_EACH_CUH
#define CUPRIM_CTA_FOR_EACH_CUH

#include <stdint.h>

#include "load.cuh"

namespace cuprim::cta {

/* Calls f.one(x, i) or f.vec(v, i) for every element of in[0..n), spread over the grid: 16-byte
 * vector loads (VPT of them in flight per thread, warp-striped: coalesced) over the
 * 16-byte-aligned body, each handed over whole (f.vec: the 16 / sizeof(T) contiguous elements
 * from index i on, which is what lets a histogram count a vector of one bin with one add), and
 * single elements (f.one) for the unaligned head and the tail (fewer than 16 bytes each). The
 * indices are 64-bit, any n. Each thread visits its elements in increasing index order (head,
 * body, tail), so a caller that keeps the first of equal candidates may compare with < alone.
 * BODY: the load of the body's whole tiles (the streaming load with the L2::256B hint, or
 * LOAD_LDG where the caller's tuning leaves the hint out). */
template <class T, int VPT, load_mode BODY = LOAD_STREAM_PF, class F>
__device__ __forceinline__ void for_each_vec16(const T *in, uint64_t n, F &f) {
  constexpr int VEC = 16 / (int)sizeof(T);
  const uint64_t threads = (uint64_t)gridDim.x * blockDim.x;
  const uint64_t gtid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const uint64_t mis = ((uintptr_t)in % 16) / sizeof(T);
  const uint64_t head = mis == 0 ? 0 : ((uint64_t)VEC - mis < n ? (uint64_t)VEC - mis : n);
  const uint64_t nvec = (n - head) / VEC;
  const uint64_t tail_at = head + nvec * VEC;
  if (gtid < head)
    f.one(in[gtid], gtid);

  const uint4 *v = reinterpret_cast<const uint4 *>(in + head);
  const uint64_t tile = (uint64_t)blockDim.x * VPT;
  const uint64_t full_tiles = nvec / tile;
  for (uint64_t t = blockIdx.x; t < full_tiles; t += gridDim.x) {
    T x[VPT][VEC];
#pragma unroll
    for (int k = 0; k < VPT; ++k)
      load_vec16<BODY>(
          reinterpret_cast<const T *>(v + t * tile + (uint64_t)k * blockDim.x + threadIdx.x), x[k]);
#pragma unroll
    for (int k = 0; k < VPT; ++k)
      f.vec(x[k], head + (t * tile + (uint64_t)k * blockDim.x + threadIdx.x) * VEC);
  }
  for (uint64_t i = full_tiles * tile + gtid; i < nvec; i += threads) {
    T x[VEC];
    load_vec16<LOAD_LDG>(reinterpret_cast<const T *>(v + i), x);
    f.vec(x, head + i * VEC);
  }

  if (gtid < n - tail_at)
    f.one(in[tail_at + gtid], tail_at + gtid);
}

} // namespace cuprim::cta

#endif
