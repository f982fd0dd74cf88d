/* Warp-striped tiles: a thread holds VECS 16-byte vectors of VEC elements, vector k of lane l
 * of a warp holding the VEC elements that start at (32k + l) * VEC of the warp's segment, so
 * that each load and store instruction of a warp covers 512 contiguous bytes and a warp's
 * 32 * VECS * VEC elements are contiguous (a warp segment). The loads and stores of such
 * segments (whole or partial, aligned or not), a warp segment's scan in registers and the shift
 * of a segment's items by one; the look-back scan (scan/scan_lookback.cu) and the batched scan
 * (segmented/segmented_scan.cu) keep their tiles this way. */
#ifndef CUPRIM_CTA_WARP_STRIPED_CUH
#define CUPRIM_CTA_WARP_STRIPED_CUH

#include <stdint.h>
#include <string.h>

#include <type_traits>

#include <cuprim/scan.h>

#include "arch.cuh"
#include "load.cuh"
#include "ops.cuh"
#include "warp_scan.cuh"

namespace cuprim::cta {

/* VECS 16-byte vectors of VEC elements of T a thread; ITEMS a thread, WARP_ITEMS a warp. */
template <class T, int VECS_> struct geometry {
  static constexpr int VEC = 16 / (int)sizeof(T);
  static constexpr int VECS = VECS_;
  static constexpr int ITEMS = VEC * VECS; /* per thread */
  static constexpr int WARP_ITEMS = 32 * ITEMS;
};

/* A thread's items: x[k][j] is element (32k + lane)*VEC + j of its warp's segment. */
template <class G> __device__ __forceinline__ uint64_t item_offset(int k, int j, int lane) {
  return ((uint64_t)k * 32 + lane) * G::VEC + j;
}

/* The element-by-element path of load_items (LOAD) and store_items (!LOAD), for a segment that
 * is not full or not aligned: item (k, j) of the thread and element item_offset(k, j) of `seg`,
 * for the valid elements [from, m); loading fills the other items with `fill` (storing ignores
 * it). */
template <class G, bool LOAD, class S, class X>
__device__ __forceinline__ void
move_items_by_element(S *seg, uint64_t m, int lane, X (&x)[G::VECS][G::VEC],
                      typename std::remove_const<S>::type fill, uint64_t from = 0) {
#pragma unroll
  for (int k = 0; k < G::VECS; ++k)
#pragma unroll
    for (int j = 0; j < G::VEC; ++j) {
      const uint64_t i = item_offset<G>(k, j, lane);
      const bool valid = i >= from && i < m;
      if constexpr (LOAD)
        x[k][j] = valid ? seg[i] : fill;
      else if (valid)
        seg[i] = x[k][j];
    }
}

/* Loads the warp segment at `seg` (m valid elements; the rest are the identity). `vec`: the
 * segment is full and 16-byte aligned. */
template <class G, class T, class Op>
__device__ __forceinline__ void load_items(const T *seg, uint64_t m, bool vec, int lane,
                                           T (&x)[G::VECS][G::VEC]) {
  const T identity = from_acc<T>(Op::identity()); /* exact in every element type */
  if (vec) {
#pragma unroll
    for (int k = 0; k < G::VECS; ++k)
      load_vec16<LOAD_PLAIN>(seg + item_offset<G>(k, 0, lane), x[k]);
  } else {
    move_items_by_element<G, true>(seg, m, lane, x, identity);
  }
}

/* Loads warp segment `seg_base` of the input (sm valid elements) as load_items does, except that
 * a full segment of 4- or 8-byte elements of a misaligned input takes aligned vector loads,
 * shifted (load_warp_vecs_shifted), where the 16 bytes before it and after it lie in the
 * input too (all but the first segment and the last). The shifted loads take registers that the
 * 7.5-8.9 compilations of the look-back kernel do not have: with them, ptxas (CUDA 13.0) spills
 * 40-72 bytes in every 4-byte kernel for 8.0 and 7.5 (0-36 without), and none for 9.0. Only 9.0
 * and later take them. */
template <class G, class T, class Op>
__device__ __forceinline__ void load_segment(const T *in, uint64_t n, uint64_t seg_base,
                                             uint64_t sm, bool in_aligned, int lane,
                                             T (&x)[G::VECS][G::VEC]) {
  const bool full = sm == (uint64_t)G::WARP_ITEMS;
  if constexpr (compiled_arch >= 900 && sizeof(T) >= 4) {
    if (full && !in_aligned && seg_base >= (uint64_t)G::VEC &&
        seg_base + G::WARP_ITEMS + G::VEC <= n) {
      load_warp_vecs_shifted<LOAD_PLAIN>(in + seg_base, lane, x);
      return;
    }
  }
  load_items<G, T, Op>(in + seg_base, sm, full && in_aligned, lane, x);
}

/* A full, 16-byte aligned warp segment's vector stores: st.global.cs (evict first in L2) where
 * EVICT_FIRST. */
template <class G, class T, bool EVICT_FIRST>
__device__ __forceinline__ void store_vecs(T *seg, int lane, const T (&y)[G::VECS][G::VEC]) {
#pragma unroll
  for (int k = 0; k < G::VECS; ++k) {
    uint4 raw;
    memcpy(&raw, y[k], 16);
    uint4 *p = reinterpret_cast<uint4 *>(seg + item_offset<G>(k, 0, lane));
    if constexpr (EVICT_FIRST)
      __stcs(p, raw);
    else
      *p = raw;
  }
}

/* Stores the warp segment at `seg` (m valid elements). `vec`: the segment is full and 16-byte
 * aligned; `evict_first`: its vector stores are st.global.cs. */
template <class G, class T>
__device__ __forceinline__ void store_items(T *seg, uint64_t m, bool vec, int lane,
                                            const T (&y)[G::VECS][G::VEC],
                                            bool evict_first = false) {
  if (vec && evict_first)
    store_vecs<G, T, true>(seg, lane, y);
  else if (vec)
    store_vecs<G, T, false>(seg, lane, y);
  else
    move_items_by_element<G, false>(seg, m, lane, y, T());
}

/* Number of valid elements of warp segment `w` of a block's span of m valid elements. */
template <class G> __device__ __forceinline__ uint64_t segment_count(uint64_t m, int w) {
  const uint64_t start = (uint64_t)w * G::WARP_ITEMS;
  if (m <= start)
    return 0;
  return m - start < (uint64_t)G::WARP_ITEMS ? m - start : (uint64_t)G::WARP_ITEMS;
}

/* The scan kind as a compile-time constant (a kernel's template argument) or at run time (an
 * int): warp_segment_scan takes either. */
template <int K> struct fixed_kind {
  __device__ __forceinline__ operator int() const { return K; }
};

/* Scans the warp's segment in registers, one vector index k at a time: the vector's elements in
 * place, the vector totals across lanes (a shuffle scan), and the vector's prefix within the
 * segment folded in at once (so no per-vector prefix stays live). Leaves in x the segment's
 * inclusive or exclusive scan (the identity first) and returns the segment's total. */
template <class G, class T, class Op, class Kind>
__device__ __forceinline__ T warp_segment_scan(T (&x)[G::VECS][G::VEC], int lane, Kind kind) {
  const Op op;
  T run = Op::identity();
#pragma unroll
  for (int k = 0; k < G::VECS; ++k) {
#pragma unroll
    for (int j = 1; j < G::VEC; ++j)
      x[k][j] = op(x[k][j - 1], x[k][j]);
    const T incl = warp_inclusive_scan(x[k][G::VEC - 1], op, lane);
    const T excl = __shfl_up_sync(full_mask, incl, 1);
    const T total = __shfl_sync(full_mask, incl, 31);
    const T pre = lane == 0 ? run : op(run, excl); /* everything before this vector */
    if ((int)kind == (int)CUPRIM_INCLUSIVE) {
#pragma unroll
      for (int j = 0; j < G::VEC; ++j)
        x[k][j] = op(pre, x[k][j]);
    } else {
#pragma unroll
      for (int j = G::VEC - 1; j > 0; --j)
        x[k][j] = op(pre, x[k][j - 1]);
      x[k][0] = pre;
    }
    run = op(run, total);
  }
  return run;
}

/* Turns the warp segment's inclusive scan in x into its exclusive scan, `first` (what comes before
 * the segment) first: each item takes its predecessor's value, across lanes and vectors by
 * shuffles (lane 0 of vector k takes lane 31's last item of vector k - 1). */
template <class G, class T>
__device__ __forceinline__ void shift_to_exclusive(T (&x)[G::VECS][G::VEC], int lane, T first) {
  T carry = first;
#pragma unroll
  for (int k = 0; k < G::VECS; ++k) {
    const T last = x[k][G::VEC - 1];
    const T up = __shfl_up_sync(full_mask, last, 1);
    const T next = __shfl_sync(full_mask, last, 31);
#pragma unroll
    for (int j = G::VEC - 1; j > 0; --j)
      x[k][j] = x[k][j - 1];
    x[k][0] = lane == 0 ? carry : up;
    carry = next;
  }
}

} // namespace cuprim::cta

#endif
