/* Warp- and block-level scans built on __shfl_up_sync. The running prefix is always the left
 * operand of op (op(earlier, later)), and the combining order depends only on thread indices. */
#ifndef CUPRIM_CTA_WARP_SCAN_CUH
#define CUPRIM_CTA_WARP_SCAN_CUH

#include "warp_reduce.cuh"

namespace cuprim::cta {

/* Inclusive scan over the 32 lanes (Kogge-Stone: log2(32) shuffle steps). Every lane must take
 * part. */
template <class T, class Op>
__device__ __forceinline__ T warp_inclusive_scan(T v, Op op, int lane) {
#pragma unroll
  for (int offset = 1; offset < 32; offset <<= 1) {
    const T y = __shfl_up_sync(full_mask, v, offset);
    if (lane >= offset)
      v = op(y, v);
  }
  return v;
}

/* Exclusive scan over a group of THREADS threads (a whole number of warps, at most 1024): warp
 * scans by shuffles, the warp totals scanned by one warp, then each warp adds its warp's prefix.
 * Returns the thread's exclusive prefix (the identity for rank 0) and sets `aggregate`, the
 * group's total, in every thread. `warp_smem` holds THREADS/32 + 1 elements private to the group;
 * `sync` is the group's barrier. Ends with a barrier, so it can be called again. */
template <int THREADS, class T, class Op, class Sync>
__device__ __forceinline__ T block_exclusive_scan(T v, Op op, T *warp_smem, int t, Sync sync,
                                                  T &aggregate) {
  static_assert(THREADS % 32 == 0 && THREADS <= 1024, "block size must be whole warps");
  constexpr int WARPS = THREADS / 32;
  const int lane = t % 32, warp = t / 32;
  const T incl = warp_inclusive_scan(v, op, lane);
  T excl = __shfl_up_sync(full_mask, incl, 1);
  if (lane == 0)
    excl = Op::identity();
  if constexpr (WARPS == 1) {
    aggregate = __shfl_sync(full_mask, incl, 31);
    return excl;
  } else {
    if (lane == 31)
      warp_smem[warp] = incl;
    sync();
    if (warp == 0) { /* one warp scans the warp totals and writes back their exclusive prefixes */
      const T total = lane < WARPS ? warp_smem[lane] : Op::identity();
      const T scanned = warp_inclusive_scan(total, op, lane);
      T prev = __shfl_up_sync(full_mask, scanned, 1);
      if (lane == 0)
        prev = Op::identity();
      if (lane < WARPS)
        warp_smem[lane] = prev;
      if (lane == WARPS - 1)
        warp_smem[WARPS] = scanned; /* the group's total */
    }
    sync();
    const T warp_prefix = warp_smem[warp];
    aggregate = warp_smem[WARPS];
    sync();
    return warp == 0 ? excl : (lane == 0 ? warp_prefix : op(warp_prefix, excl));
  }
}

} // namespace cuprim::cta

#endif
