/* The per-segment rungs of the segmented reduce ladder: one thread, one warp, or one block per
 * segment, the classic strategies (the "scalar" and "vector" kernels of sparse matrix-vector
 * products, Bell and Garland 2008; CUB's DeviceSegmentedReduce), each done right: offsets read
 * once and clamped, any segment sizes and any offsets (decreasing ones give empty segments),
 * 64-bit indices, grid-stride loops over the segments so that any count fits in a grid, and four
 * loads in flight per thread. MERGE_PATH and AUTO are in segmented_merge.cu.
 *
 * Every kernel below says in two lines what it improves over the previous rung and what it still
 * wastes; docs/ladder.md has the measured numbers. A segment's order of combination depends only
 * on its bounds, so every rung gives the same bits on every run and every GPU. */
#include "common/check.h"
#include "common/dispatch.cuh"
#include "common/launch.h"
#include "segmented_tile.cuh"

namespace cuprim::segmented {
namespace {

constexpr int BLOCK = 256;

/* THREAD_PER_SEGMENT: thread s walks segment s alone.
 * Improves: nothing yet (the baseline; right for segments of a few elements, and the offsets are
 * read coalesced). Wastes: neighbouring threads read far-apart addresses (uncoalesced once
 * segments pass a few elements), and one long segment keeps its thread busy while the rest idle. */
template <class T, class Op>
__global__ void __launch_bounds__(BLOCK)
    thread_per_segment_kernel(const T *in, T *out, const offsets_source src) {
  const uint64_t stride = (uint64_t)gridDim.x * BLOCK;
  for (uint64_t s = (uint64_t)blockIdx.x * BLOCK + threadIdx.x; s < src.num_segments; s += stride) {
    uint64_t b, e;
    segment_bounds(src, s, b, e);
    out[s] = from_acc<T>(range_partial<1, T, Op>(in, b, e, 0));
  }
}

/* WARP_PER_SEGMENT: the 32 lanes of a warp take every 32nd element of the segment, then a shuffle
 * tree joins them.
 * Improves: each load of a warp reads 32 neighbouring elements (coalesced), and a long segment is
 * shared by 32 threads. Wastes: segments shorter than 32 leave lanes idle (31 of 32 at size 1), and
 * one huge segment still runs on one warp. */
template <class T, class Op>
__global__ void __launch_bounds__(BLOCK)
    warp_per_segment_kernel(const T *in, T *out, const offsets_source src) {
  constexpr uint64_t WARPS = BLOCK / 32;
  warp_per_segment<T, Op>(in, out, src, (uint64_t)blockIdx.x * WARPS + threadIdx.x / 32,
                          (uint64_t)gridDim.x * WARPS);
}

/* BLOCK_PER_SEGMENT: 256 threads per segment, a warp tree and then one across the warps (CUB's
 * choice).
 * Improves: long segments are read by 256 threads at once, 8x the loads in flight of a warp.
 * Wastes: a segment of 4 elements keeps 252 threads idle and pays two block barriers; the grid
 * has one block per segment, so millions of tiny segments cost millions of block launches. */
template <class T, class Op>
__global__ void __launch_bounds__(BLOCK)
    block_per_segment_kernel(const T *in, T *out, const offsets_source src) {
  __shared__ acc_t<T> warp_smem[BLOCK / 32];
  for (uint64_t s = blockIdx.x; s < src.num_segments; s += gridDim.x) {
    uint64_t b, e;
    segment_bounds(src, s, b, e);
    const acc_t<T> v = cta::block_reduce<BLOCK>(range_partial<BLOCK, T, Op>(in, b, e, threadIdx.x),
                                                Op(), warp_smem);
    if (threadIdx.x == 0)
      out[s] = from_acc<T>(v);
  }
}

template <class T, class Op>
cuprim_status ladder_impl(typed_op<T, Op>, const cuprim_ctx *ctx, cuprim_segmented_alg alg,
                          const void *d_in, void *d_out, const offsets_source &src,
                          cudaStream_t stream) {
  const T *in = static_cast<const T *>(d_in);
  T *out = static_cast<T *>(d_out);
  const uint64_t rows = src.num_segments;
  switch (alg) {
  case CUPRIM_SEGMENTED_THREAD_PER_SEGMENT:
    thread_per_segment_kernel<T, Op>
        <<<grid_for(ctx, rows, BLOCK), BLOCK, 0, stream>>>(in, out, src);
    break;
  case CUPRIM_SEGMENTED_WARP_PER_SEGMENT:
    warp_per_segment_kernel<T, Op>
        <<<grid_for(ctx, rows, BLOCK / 32), BLOCK, 0, stream>>>(in, out, src);
    break;
  case CUPRIM_SEGMENTED_BLOCK_PER_SEGMENT:
    block_per_segment_kernel<T, Op><<<grid_for(ctx, rows, 1), BLOCK, 0, stream>>>(in, out, src);
    break;
  default:
    return CUPRIM_ERROR_INTERNAL;
  }
  return cuprim__cuda_status(cudaPeekAtLastError());
}

} // namespace
} // namespace cuprim::segmented

extern "C" cuprim_status cuprim__segmented_reduce_ladder(const cuprim_ctx *ctx,
                                                         cuprim_segmented_alg alg, const void *d_in,
                                                         void *d_out, const cuprim__segments *seg,
                                                         cuprim_dtype dtype, cuprim_op op,
                                                         cudaStream_t stream) {
  if (seg->d_offsets == NULL)
    return CUPRIM_ERROR_INTERNAL; /* rows go through the merge (segmented_merge.cu) */
  const cuprim::segmented::offsets_source src = cuprim::segmented::make_offsets_source(*seg);
  return cuprim::dispatch_typed_op<cuprim::REDUCE_SCAN_TYPES, cuprim::acc_op>(
      dtype, op, [&](auto m) {
        return cuprim::segmented::ladder_impl(m, ctx, alg, d_in, d_out, src, stream);
      });
}
