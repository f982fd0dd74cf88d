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
 * i); then a shuffle tree over the warp's lanes, then one over the warps (cta::block_reduce). */
#ifndef CUPRIM_REDUCE_CHUNK_CUH
#define CUPRIM_REDUCE_CHUNK_CUH

#include "cta/load.cuh"
#include "cta/ops.cuh"
#include "cta/warp_reduce.cuh"

namespace cuprim {
namespace reduce {

template <class T> struct chunk_geometry {
  static constexpr int THREADS = 256;
  static constexpr int VEC = 16 / (int)sizeof(T);
  static constexpr int LOADS = 4;
  static constexpr int ITEMS = VEC * LOADS;
  static constexpr int CHUNK = THREADS * ITEMS;
};

/* Reduces the chunk at `base` holding `m` valid elements (m <= CHUNK; m == 0
 * gives the identity) in the canonical order.
 * Called by a group of chunk_geometry<T>::THREADS threads whose rank in the group is `t` (see
 * cta::block_reduce for blocks holding several groups). The result is returned to the thread with t == 0. `warp_smem` holds
 * THREADS/32 elements, private to the group. Vector loads are used when the whole chunk is present
 * and 16-byte aligned, else scalar loads of the same elements: same values, same order. */
template <class T, class Op, cta::load_mode M>
__device__ __forceinline__ T chunk_reduce(const T *base, uint64_t m, int t, T *warp_smem) {
  typedef chunk_geometry<T> G;
  const Op op;
  T items[G::ITEMS];
  if (m == (uint64_t)G::CHUNK && cta::aligned16(base)) {
#pragma unroll
    for (int k = 0; k < G::LOADS; ++k) {
      T v[G::VEC];
      cta::load_vec16<M>(base + ((uint64_t)k * G::THREADS + t) * G::VEC, v);
#pragma unroll
      for (int j = 0; j < G::VEC; ++j)
        items[k * G::VEC + j] = v[j];
    }
  } else {
#pragma unroll
    for (int k = 0; k < G::LOADS; ++k)
#pragma unroll
      for (int j = 0; j < G::VEC; ++j) {
        const uint64_t i = ((uint64_t)k * G::THREADS + t) * G::VEC + j;
        items[k * G::VEC + j] = i < m ? cta::load<M>(base + i) : Op::identity();
      }
  }
#pragma unroll
  for (int s = 1; s < G::ITEMS; s *= 2)
#pragma unroll
    for (int i = 0; i + s < G::ITEMS; i += 2 * s)
      items[i] = op(items[i], items[i + s]);
  return cta::block_reduce<G::THREADS>(items[0], op, warp_smem, t);
}

} // namespace reduce
} // namespace cuprim

#endif
