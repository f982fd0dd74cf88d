/* What the histogram's counting kernels (histogram_count.cu), its multi-channel ones
 * (histogram_multi.cu) and its weighted ones (histogram_weighted.cu) share to get per-block
 * results into the output: the kernel that zeroes outputs for blocks that add into them (chained
 * by programmatic dependent launch), the kernel that sums per-block copies in a fixed order, and
 * the host pieces that size their grids and shared memory.
 *
 * Header-only and in an unnamed namespace: each .cu that includes it gets its own kernels (the
 * library uses no relocatable device code, so a kernel cannot be shared across files); the host
 * functions are inline so that a file that uses only some of them compiles without warnings. */
#ifndef CUPRIM_HISTOGRAM_FOLD_CUH
#define CUPRIM_HISTOGRAM_FOLD_CUH

#include <stdint.h>

#include "common/check.h"
#include "common/launch_config.cuh"
#include "cta/arch.cuh"
#include "histogram_bin.cuh"
#include "histogram_internal.h"

namespace cuprim::histogram {
namespace {

/* Up to CUPRIM__MAX_CHANNELS outputs of 8-byte words (counts, or sums whose zero is +0.0). */
struct zero_targets {
  uint64_t *ptr[CUPRIM__MAX_CHANNELS];
  uint64_t words[CUPRIM__MAX_CHANNELS];
  int count;
};

/* Zeroes the outputs, letting the counting kernel launch at once (it waits for this kernel's
 * completion, griddepcontrol.wait, only before its adds). */
__global__ void __launch_bounds__(256) zero_counts_kernel(const __grid_constant__ zero_targets z) {
  cta::pdl_launch_dependents();
  const uint64_t stride = (uint64_t)gridDim.x * 256;
  for (int k = 0; k < z.count; ++k) {
    uint64_t *const out = z.ptr[k];
    for (uint64_t i = (uint64_t)blockIdx.x * 256 + threadIdx.x; i < z.words[k]; i += stride)
      out[i] = 0;
  }
}

/* out[b] = the sum over `copies` copies of partials[k * num_bins + b], in S (uint64_t counts, or
 * double sums). A block takes 32 bins; its 8 warps take every 8th copy (a warp reads 32
 * consecutive counters of a copy: coalesced), then one warp adds the 8 sums. The order of the
 * additions depends on `copies` and nothing else, so double sums repeat bit for bit. Waits for
 * the counting kernel (programmatic dependent launch) before reading. */
template <class P, class S>
__global__ void __launch_bounds__(256)
    sum_copies_kernel(const P *partials, uint32_t copies, uint32_t num_bins, S *out) {
  __shared__ S part[8][32];
  cta::pdl_wait();
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const uint64_t b = (uint64_t)blockIdx.x * 32 + lane;
  S s = 0;
  if (b < num_bins) {
    uint32_t k = warp;
    for (; k + 24 < copies; k += 32) { /* four loads in flight */
      const P a0 = __ldcg(partials + (size_t)k * num_bins + b);
      const P a1 = __ldcg(partials + (size_t)(k + 8) * num_bins + b);
      const P a2 = __ldcg(partials + (size_t)(k + 16) * num_bins + b);
      const P a3 = __ldcg(partials + (size_t)(k + 24) * num_bins + b);
      s += (S)a0 + (S)a1 + (S)a2 + (S)a3;
    }
    for (; k < copies; k += 8)
      s += (S)__ldcg(partials + (size_t)k * num_bins + b);
  }
  part[warp][lane] = s;
  __syncthreads();
  if (warp == 0 && b < num_bins) {
    S t = 0;
#pragma unroll
    for (int w = 0; w < 8; ++w)
      t += part[w][lane];
    out[b] = t;
  }
}

/* The sum, in S, of the `copies` interleaved counters of one bin (of_i: its copy 0; copies a
 * power of two), read from copy i % copies on: the threads of a warp, taking consecutive bins i,
 * read different banks. */
template <class S, class P>
__device__ __forceinline__ S sum_interleaved(const P *of_i, uint32_t copies, uint32_t i) {
  S s = 0;
#pragma unroll 8
  for (uint32_t k = 0; k < copies; ++k)
    s += of_i[(k + i) & (copies - 1)];
  return s;
}

/* In a kernel whose block adds into interleaved copies of its counters in shared memory, before
 * the block reads them back to add into the output: every thread's adds are done, and, in a grid
 * of several blocks, the output that the blocks add into is zeroed (by the kernel this one is
 * chained to; a one-block grid writes the output instead). */
__device__ __forceinline__ void wait_copies_done() {
  __syncthreads();
  if (gridDim.x > 1)
    cta::pdl_wait(); /* the zeroed outputs */
}

/* The end of a byte-value counting kernel (THREADS threads): this thread's count c of a byte
 * value, whose bin is b (NO_BIN: not counted) of the output `out`. A grid of several blocks adds
 * it into `out`, zeroed by the kernel this one is chained to (programmatic dependent launch). A
 * one-block grid folds the values into `total` bins in shared memory (`counts`, which every
 * thread has finished reading; this thread's bins start at `first`), then calls write(i, count)
 * for every bin i < total. */
template <int THREADS, class W>
__device__ __forceinline__ void fold_byte_values(uint32_t *counts, uint64_t c, uint32_t b,
                                                 uint64_t *out, uint32_t first, uint32_t total,
                                                 W write) {
  if (gridDim.x > 1) {
    cta::pdl_wait(); /* the zeroed output */
    if (c != 0 && b != NO_BIN)
      atomicAdd(reinterpret_cast<unsigned long long *>(out + b), (unsigned long long)c);
    return;
  }
  __syncthreads(); /* every column read before the counters are reused */
  for (uint32_t i = threadIdx.x; i < total; i += THREADS)
    counts[i] = 0;
  __syncthreads();
  if (c != 0 && b != NO_BIN)
    atomicAdd(counts + first + b, (uint32_t)c); /* a one-block grid counts fewer than 2^32 */
  __syncthreads();
  for (uint32_t i = threadIdx.x; i < total; i += THREADS)
    write(i, counts[i]);
}

/* Launches sum_copies_kernel after the counting kernel on `stream`, overlapping its launch. */
template <class P, class S>
cuprim_status launch_sum(const cuprim_ctx *ctx, const P *partials, uint32_t copies,
                         uint32_t num_bins, S *out, cudaStream_t stream) {
  CUPRIM__CUDA_CHECK(launch_chained(ctx, (unsigned)(((uint64_t)num_bins + 31) / 32), 256, 0, stream,
                                    sum_copies_kernel<P, S>, partials, copies, num_bins, out));
  return CUPRIM_SUCCESS;
}

/* Bins up to which a grid-synchronized counting kernel (a cooperative launch in place of the
 * zeroing kernel and the counting kernel, in code without programmatic dependent launch) zeroes its
 * outputs itself, in block 0, all channels' bins together. */
constexpr uint32_t SYNC_ZERO_MAX_BINS = 65536;

/* Launches zero_counts_kernel over the targets, for a kernel chained after it by programmatic
 * dependent launch (or for nothing after it: the zeros are then the result). */
inline cuprim_status launch_zero(const cuprim_ctx *ctx, const zero_targets &z,
                                 cudaStream_t stream) {
  uint64_t most = 0;
  for (int k = 0; k < z.count; ++k)
    most = z.words[k] > most ? z.words[k] : most;
  const uint64_t blocks = (most + 255) / 256;
  const uint64_t cap = 4 * (uint64_t)ctx->attrs.sm_count;
  zero_counts_kernel<<<(unsigned)(blocks < cap ? (blocks ? blocks : 1) : cap), 256, 0, stream>>>(z);
  CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
  return CUPRIM_SUCCESS;
}

/* One output of `words` 8-byte words to zero. */
inline zero_targets one_target(void *out, uint64_t words) {
  zero_targets z = {};
  z.ptr[0] = static_cast<uint64_t *>(out);
  z.words[0] = words;
  z.count = 1;
  return z;
}

/* Dynamic shared memory past the default 48 KB must be asked for, per kernel. */
template <class K> cuprim_status allow_smem(K *kernel, size_t bytes) {
  if (bytes > 48 * 1024)
    CUPRIM__CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
  return CUPRIM_SUCCESS;
}

/* The blocks of `kernel` (`threads` threads, `smem` bytes of dynamic shared memory) that fit on the
 * GPU at once, by its registers as well as its shared memory (asked once per context: launch.h):
 * a grid of exactly that many runs in one wave (one more block per SM would make a second,
 * mostly idle one). */
template <class K>
cuprim_status resident_blocks(const cuprim_ctx *ctx, K *kernel, size_t smem, uint64_t *blocks,
                              unsigned threads) {
  unsigned per_sm = 0;
  CUPRIM__FORWARD(
      cuprim__occupancy(ctx, reinterpret_cast<const void *>(kernel), threads, smem, &per_sm));
  *blocks = (uint64_t)per_sm * (uint64_t)ctx->attrs.sm_count;
  return CUPRIM_SUCCESS;
}

/* The grid of a counting kernel: enough blocks that each has at least `min_per_block` samples
 * (so that summing the copies stays small beside the counting), at most what is resident at
 * once, and at least enough that no block counts 2^31 samples (32-bit counters). */
inline uint64_t count_grid(uint64_t n, uint64_t resident, uint64_t min_per_block) {
  uint64_t g = (n + min_per_block - 1) / min_per_block;
  if (g > resident)
    g = resident;
  const uint64_t floor32 = (n >> 31) + 1;
  if (g < floor32)
    g = floor32;
  return g ? g : 1;
}

/* The rows of a block's shared-memory counters (or sums) with a spare row before bin 0 for the
 * samples of no bin (SPARE_ROWS): the bins' and the spare ones. */
inline uint64_t private_rows(const cuprim__bins &bins) {
  return (uint64_t)bins.num_bins + SPARE_ROWS;
}

/* The interleaved copies of a block's shared-memory counters (`counters` of `counter_bytes`
 * each, after `table` bytes of the binner's): the most (a power of two, up to one per lane) that
 * keep a block within `most` bytes (by default 48 KB, so that four blocks of 512 threads still
 * fit on an SM); at least one. */
inline uint32_t smem_copies(size_t table, uint64_t counters, size_t counter_bytes,
                            size_t most = 48 * 1024) {
  uint32_t c = 32;
  while (c > 1 && table + counters * c * counter_bytes > most)
    c /= 2;
  return c;
}

} // namespace
} // namespace cuprim::histogram

#endif
