/* The canonical reduction order of CUPRIM_REDUCE_AUTO.
 *
 * The input is cut into chunks of CHUNK elements (CHUNK = 256 threads x ITEMS, ITEMS = four
 * 16-byte vectors per thread: 4096 four-byte or 2048 eight-byte elements). Each chunk is reduced
 * in one fixed order (below); the chunk results form a new array that is reduced the same way,
 * level after level, until one value is left. Nothing in this order depends on the grid, the
 * number of SMs or the pointer's alignment, so the bits of a float result are the same on every
 * run and every GPU. Which kernel computes which part of the tree is free (reduce_auto.cu picks
 * by size); what each part computes is not.
 *
 * Order inside a chunk of m <= CHUNK valid elements (missing ones are the identity, which every
 * operator leaves exact): thread t holds items i = k*VEC + j, the element at
 * (k*THREADS + t)*VEC + j, for k < LOADS, j < VEC; it reduces them pairwise (a balanced tree over
 * i); then a shuffle tree over the warp's lanes, then one over the warps (cta::block_reduce).
 *
 * 16-bit floats: the chunk geometry is that of the element (eight per 16-byte vector, 8192 per
 * chunk); the items are widened to float (exactly) in the thread tree and everything after it is
 * float, so the chunk results, and every level above them, are float arrays reduced with float's
 * geometry. Only the final value is rounded, once. The tree is still a function of the dtype. */
#ifndef CUPRIM_REDUCE_CHUNK_CUH
#define CUPRIM_REDUCE_CHUNK_CUH

#include "cta/load.cuh"
#include "cta/ops.cuh"
#include "cta/warp_reduce.cuh"

namespace cuprim::reduce {

template <class T> struct chunk_geometry {
  static constexpr int THREADS = 256;
  static constexpr int VEC = 16 / (int)sizeof(T);
  static constexpr int LOADS = 4;
  static constexpr int ITEMS = VEC * LOADS;
  static constexpr int CHUNK = THREADS * ITEMS;
};

/* Loads a whole chunk at `base` (16-byte aligned, CHUNK valid elements) into this thread's items,
 * in the canonical positions, with 16-byte vector loads. `t` is the thread's rank in its group of
 * THREADS threads. */
template <class T, cta::load_mode M>
__device__ __forceinline__ void chunk_load_vec(const T *base, int t,
                                               T (&items)[chunk_geometry<T>::ITEMS]) {
  typedef chunk_geometry<T> G;
#pragma unroll
  for (int k = 0; k < G::LOADS; ++k) {
    T v[G::VEC];
    cta::load_vec16<M>(base + ((uint64_t)k * G::THREADS + t) * G::VEC, v);
#pragma unroll
    for (int j = 0; j < G::VEC; ++j)
      items[k * G::VEC + j] = v[j];
  }
}

/* The same elements as chunk_load_vec, with scalar loads, for any alignment and `m` <= CHUNK valid
 * elements (missing ones are the identity, which is exact in every element type): same values in
 * the same positions. */
template <class T, class Op, cta::load_mode M>
__device__ __forceinline__ void chunk_load_scalar(const T *base, uint64_t m, int t,
                                                  T (&items)[chunk_geometry<T>::ITEMS]) {
  typedef chunk_geometry<T> G;
  const T identity = from_acc<T>(Op::identity());
#pragma unroll
  for (int k = 0; k < G::LOADS; ++k)
#pragma unroll
    for (int j = 0; j < G::VEC; ++j) {
      const uint64_t i = ((uint64_t)k * G::THREADS + t) * G::VEC + j;
      items[k * G::VEC + j] = i < m ? cta::load<M>(base + i) : identity;
    }
}

/* The same elements as chunk_load_scalar, for a 16-byte aligned `base` and `m` <= CHUNK valid
 * elements: a 16-byte load for each whole vector, bounds-checked scalar loads for the one partial
 * vector, the identity past the end (no load). Same values in the same positions. */
template <class T, class Op, cta::load_mode M>
__device__ __forceinline__ void chunk_load_vec_partial(const T *base, uint64_t m, int t,
                                                       T (&items)[chunk_geometry<T>::ITEMS]) {
  typedef chunk_geometry<T> G;
  const T identity = from_acc<T>(Op::identity());
#pragma unroll
  for (int k = 0; k < G::LOADS; ++k) {
    const uint64_t first = ((uint64_t)k * G::THREADS + t) * G::VEC;
    T v[G::VEC];
    if (first + G::VEC <= m) {
      cta::load_vec16<M>(base + first, v);
    } else {
#pragma unroll
      for (int j = 0; j < G::VEC; ++j)
        v[j] = first + j < m ? cta::load<M>(base + first + j) : identity;
    }
#pragma unroll
    for (int j = 0; j < G::VEC; ++j)
      items[k * G::VEC + j] = v[j];
  }
}

/* Loads the chunk at `base` holding `m` <= CHUNK valid elements: vector loads when the whole chunk
 * is present and 16-byte aligned, else scalar loads. */
template <class T, class Op, cta::load_mode M>
__device__ __forceinline__ void chunk_load(const T *base, uint64_t m, int t,
                                           T (&items)[chunk_geometry<T>::ITEMS]) {
  if (m == (uint64_t)chunk_geometry<T>::CHUNK && cta::aligned16(base))
    chunk_load_vec<T, M>(base, t, items);
  else
    chunk_load_scalar<T, Op, M>(base, m, t, items);
}

/* The thread's part of the canonical order: its items pairwise, in index order, in the
 * accumulate type (the items stay as loaded until here, so that the loads of the next chunk can
 * be in flight while the previous one is reduced, whatever their type). */
template <class T, class Op>
__device__ __forceinline__ acc_t<T> chunk_thread_tree(const T (&items)[chunk_geometry<T>::ITEMS]) {
  typedef chunk_geometry<T> G;
  acc_t<T> v[G::ITEMS];
  to_acc_n<T, G::ITEMS>(items, v);
  return tree_reduce<Op>(v);
}

/* The group's part: the shuffle tree over the threads' values (cta::block_reduce with the group's
 * barrier `sync`). Rank 0 gets the result; `warp_smem` holds THREADS/32 elements private to the
 * group. A is the accumulate type. */
template <class Op, class A, class Sync>
__device__ __forceinline__ A chunk_group_tree(A v, int t, A *warp_smem, Sync sync) {
  return cta::block_reduce<chunk_geometry<A>::THREADS>(v, Op(), warp_smem, t, sync);
}

/* The whole canonical reduction of one chunk: load, thread tree, group tree. */
template <class T, class Op, cta::load_mode M, class Sync>
__device__ __forceinline__ acc_t<T> chunk_reduce(const T *base, uint64_t m, int t,
                                                 acc_t<T> *warp_smem, Sync sync) {
  T items[chunk_geometry<T>::ITEMS];
  chunk_load<T, Op, M>(base, m, t, items);
  return chunk_group_tree<Op>(chunk_thread_tree<T, Op>(items), t, warp_smem, sync);
}

} // namespace cuprim::reduce

#endif
