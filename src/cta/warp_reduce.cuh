/* Warp- and block-level reductions built on shuffles. The combining order is fixed by the lane
 * and warp indices alone, so results are reproducible bit for bit. */
#ifndef CUPRIM_CTA_WARP_REDUCE_CUH
#define CUPRIM_CTA_WARP_REDUCE_CUH

namespace cuprim::cta {

constexpr unsigned full_mask = 0xffffffffu;

/* Barriers for block_reduce: the whole block, or a named barrier shared by the THREADS threads of
 * one group (several groups in a block then synchronize independently of each other). */
struct block_barrier {
  __device__ __forceinline__ void operator()() const { __syncthreads(); }
};
template <int THREADS> struct group_barrier {
  int id; /* 1..15; 0 is __syncthreads' */
  __device__ __forceinline__ void operator()() const {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "n"(THREADS) : "memory");
  }
};

/* Tree reduction over the 32 lanes with __shfl_down_sync; lane 0 receives the result (other lanes
 * hold partial values). Every lane must take part. */
template <class T, class Op> __device__ __forceinline__ T warp_reduce(T v, Op op) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v = op(v, __shfl_down_sync(full_mask, v, offset));
  return v;
}

/* Reduction over a group of THREADS threads (a power-of-two number of warps, at most 1024):
 * shuffles inside each warp, warp results through shared memory (`warp_smem`, THREADS/32
 * elements, private to the group), then one warp reduces those. `t` is the thread's rank in the
 * group (threadIdx.x when the group is the block); rank 0 receives the result. `sync` is the
 * group's barrier (block_barrier or group_barrier). Ends with a barrier, so it can be called again
 * with the same `warp_smem`. */
template <int THREADS, class T, class Op, class Sync>
__device__ __forceinline__ T block_reduce(T v, Op op, T *warp_smem, int t, Sync sync) {
  static_assert(THREADS % 32 == 0 && THREADS <= 1024 && ((THREADS / 32) & (THREADS / 32 - 1)) == 0,
                "block size must be a power-of-two number of warps");
  constexpr int WARPS = THREADS / 32;
  const int lane = t % 32, warp = t / 32;
  v = warp_reduce(v, op);
  if constexpr (WARPS > 1) {
    if (lane == 0)
      warp_smem[warp] = v;
    sync();
    if (warp == 0) {
      v = lane < WARPS ? warp_smem[lane] : Op::identity();
#pragma unroll
      for (int offset = WARPS / 2; offset > 0; offset >>= 1)
        v = op(v, __shfl_down_sync(full_mask, v, offset));
    }
    sync();
  }
  return v;
}

template <int THREADS, class T, class Op>
__device__ __forceinline__ T block_reduce(T v, Op op, T *warp_smem) {
  return block_reduce<THREADS>(v, op, warp_smem, (int)threadIdx.x, block_barrier());
}

} // namespace cuprim::cta

#endif
