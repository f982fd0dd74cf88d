/* The reduce ladder: the classic kernels (Harris, "Optimizing Parallel Reduction in CUDA"; PMPP
 * chapter 10; the seeds), each done right: bounds-checked, any n, any element-aligned pointer,
 * 64-bit indices. Each per-block kernel turns m values into ceil(m / per_block) block results and
 * is applied again to those until one is left (the last pass writes d_out); COARSENED needs two
 * passes, ATOMIC one launch. Every kernel has the textbook block of 256 threads (BLOCK below):
 * the ladder shows the textbook steps at the size they were written for; it is not tuned.
 *
 * Every kernel below says in two lines what it improves over the previous rung and what it still
 * wastes; docs/ladder.md has the measured numbers.
 *
 * Types: a kernel reads TIn and writes TOut and computes in Op's accumulate type A (float for the
 * 16-bit floats, else the element type): the first pass reads the input's T, the block results
 * between passes are A, and only the last pass rounds its one value to T. For the other dtypes
 * TIn = TOut = A = T. */
#include "common/check.h"
#include "common/dispatch.cuh"
#include "common/launch.h"
#include "common/temp_memory.cuh"
#include "cta/atomic.cuh"
#include "cta/ops.cuh"
#include "cta/warp_reduce.cuh"
#include "reduce_internal.h"

namespace cuprim::reduce {
namespace {

constexpr int BLOCK = 256;

/* The pieces every rung shares, so that each kernel below shows only what its step changes. */

/* Two elements per thread, THREADS apart, combined while loading: a block covers 2*THREADS. */
template <int THREADS, class T, class Op>
__device__ __forceinline__ acc_t<T> load_two(const T *in, uint64_t m) {
  const Op op;
  const uint64_t i = (uint64_t)blockIdx.x * (2 * THREADS) + threadIdx.x;
  return op(load_or_identity<T, Op>(in, i, m), load_or_identity<T, Op>(in, i + THREADS, m));
}

/* The block's tile in shared memory, one slot per thread: one element each (PER_THREAD 1) or two
 * combined while loading (2, load_two), the identity past m. Returns the array after a block
 * barrier, so that any thread may read any slot. The array is this function's own: each kernel
 * that calls it once gets THREADS slots of the accumulate type, as if it declared them itself. */
template <int THREADS, int PER_THREAD, class T, class Op>
__device__ __forceinline__ acc_t<T> *tile_in_shared(const T *in, uint64_t m) {
  static_assert(PER_THREAD == 1 || PER_THREAD == 2, "one or two elements per thread");
  __shared__ acc_t<T> sdata[THREADS];
  if constexpr (PER_THREAD == 1)
    sdata[threadIdx.x] =
        load_or_identity<T, Op>(in, (uint64_t)blockIdx.x * THREADS + threadIdx.x, m);
  else
    sdata[threadIdx.x] = load_two<THREADS, T, Op>(in, m);
  __syncthreads();
  return sdata;
}

/* Stride halving in shared memory down to stride LAST (exclusive): thread tid combines tid and
 * tid + s, a block barrier after each step. */
template <int THREADS, int LAST, class A, class Op>
__device__ __forceinline__ void halving_tree(A *sdata, Op op) {
#pragma unroll
  for (unsigned s = THREADS / 2; s > LAST; s >>= 1) {
    if (threadIdx.x < s)
      sdata[threadIdx.x] = op(sdata[threadIdx.x], sdata[threadIdx.x + s]);
    __syncthreads();
  }
}

/* Thread 0 writes the block's result, rounded once to the output type. */
template <class TOut, class A> __device__ __forceinline__ void store_block(TOut *out, A v) {
  if (threadIdx.x == 0)
    out[blockIdx.x] = from_acc<TOut>(v);
}

/* GLOBAL_TREE: stride-halving tree directly in global memory, on a scratch copy of the input.
 * Improves: nothing yet (the baseline). Wastes: every step reads and writes global memory,
 * log2(256) round trips to DRAM/L2 per element, plus the copy. */
template <class T, class TOut, class Op>
__global__ void __launch_bounds__(BLOCK) global_tree_kernel(T *buf, uint64_t m, TOut *out) {
  const Op op;
  const uint64_t base = (uint64_t)blockIdx.x * BLOCK;
  const unsigned len = m - base < (uint64_t)BLOCK ? (unsigned)(m - base) : BLOCK;
  T *seg = buf + base;
  for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s && threadIdx.x + s < len)
      seg[threadIdx.x] = op(seg[threadIdx.x], seg[threadIdx.x + s]);
    __syncthreads(); /* orders the block's global writes before the next step's reads */
  }
  store_block(out, seg[0]);
}

/* NEIGHBORED_DIVERGENT: the tree in shared memory, neighbours paired by tid % (2*s) == 0.
 * Improves: one global read per element; the tree runs in shared memory. Wastes: the modulo and
 * the branch pick scattered threads, so every warp stays busy with few active lanes (divergence).
 *
 * NEIGHBORED_STRIDED (STRIDED): the same pairs, computed by the first threads: index = 2*s*tid.
 * Improves: active threads are contiguous, so whole warps retire (no divergence). Wastes: the
 * strided index makes lanes of a warp hit the same shared-memory bank (2-way and worse). */
template <bool STRIDED, class T, class TOut, class Op>
__global__ void __launch_bounds__(BLOCK)
    neighbored_kernel(const T *__restrict__ in, uint64_t m, TOut *out) {
  const Op op;
  const unsigned tid = threadIdx.x;
  acc_t<T> *sdata = tile_in_shared<BLOCK, 1, T, Op>(in, m);
  for (unsigned s = 1; s < BLOCK; s *= 2) {
    if constexpr (STRIDED) {
      const unsigned index = 2 * s * tid;
      if (index < BLOCK)
        sdata[index] = op(sdata[index], sdata[index + s]);
    } else if (tid % (2 * s) == 0) {
      sdata[tid] = op(sdata[tid], sdata[tid + s]);
    }
    __syncthreads();
  }
  store_block(out, sdata[0]);
}

/* SEQUENTIAL (PER_THREAD 1): stride halving, thread tid combines tid and tid + s.
 * Improves: contiguous threads read contiguous words: convergent and bank-conflict free. Wastes:
 * half the threads are idle from the first step on, and each thread loads only one element.
 *
 * FIRST_ADD_ON_LOAD (PER_THREAD 2): the same tree; each block covers 2*BLOCK elements, each thread
 * combining two while loading. Improves: no idle half at the first step; half the blocks. Wastes:
 * a barrier per step even when only one warp is left working, and loop overhead. */
template <int PER_THREAD, class T, class TOut, class Op>
__global__ void __launch_bounds__(BLOCK)
    sequential_kernel(const T *__restrict__ in, uint64_t m, TOut *out) {
  acc_t<T> *sdata = tile_in_shared<BLOCK, PER_THREAD, T, Op>(in, m);
  halving_tree<BLOCK, 0>(sdata, Op());
  store_block(out, sdata[0]);
}

/* UNROLLED: the block size is a template parameter, the loop is unrolled, and the last warp
 * finishes warp-synchronously. Done right for Volta and later (independent thread scheduling):
 * __syncwarp between a step's reads and writes instead of Harris's bare volatile.
 * Improves: no loop counter and no block barrier for the last six steps. Wastes: the last warp
 * still goes through shared memory, with a warp barrier per step. */
template <int THREADS, class T, class TOut, class Op>
__global__ void __launch_bounds__(THREADS)
    unrolled_kernel(const T *__restrict__ in, uint64_t m, TOut *out) {
  typedef acc_t<T> A;
  const Op op;
  const unsigned tid = threadIdx.x;
  A *sdata = tile_in_shared<THREADS, 2, T, Op>(in, m);
  halving_tree<THREADS, 32>(sdata, op);
  if (tid < 32) {
    A v = sdata[tid];
#pragma unroll
    for (unsigned s = 32; s > 0; s >>= 1) {
      if (THREADS >= 2 * s) {
        v = op(v, sdata[tid + s]);
        __syncwarp();
        sdata[tid] = v;
        __syncwarp();
      }
    }
    store_block(out, v);
  }
}

/* WARP_SHUFFLE: two elements per thread on load, then shuffles inside each warp; only the eight
 * warp results go through shared memory.
 * Improves: no shared-memory round trips or warp barriers within a warp. Wastes: each thread
 * still loads only two elements, so blocks are short-lived and the launch is huge. */
template <class T, class TOut, class Op>
__global__ void __launch_bounds__(BLOCK)
    warp_shuffle_kernel(const T *__restrict__ in, uint64_t m, TOut *out) {
  typedef acc_t<T> A;
  const Op op;
  __shared__ A warp_smem[BLOCK / 32];
  store_block(out, cta::block_reduce<BLOCK>(load_two<BLOCK, T, Op>(in, m), op, warp_smem));
}

/* COARSENED: a grid sized to fill the GPU once; each thread walks the input with a grid-wide
 * stride, combining many elements in registers before the block shuffle reduction.
 * Improves: far fewer blocks and block results; the per-block overhead is paid once per SM slot.
 * Wastes: scalar loads (4 or 8 bytes) and a second launch for the block results. */
template <class T, class Op>
__device__ __forceinline__ acc_t<T> coarsened_block(const T *__restrict__ in, uint64_t m) {
  typedef acc_t<T> A;
  const Op op;
  __shared__ A warp_smem[BLOCK / 32];
  const uint64_t stride = (uint64_t)gridDim.x * (2 * BLOCK);
  A v = Op::identity();
  for (uint64_t i = (uint64_t)blockIdx.x * (2 * BLOCK) + threadIdx.x; i < m; i += stride)
    v = op(v, op(to_acc(in[i]), load_or_identity<T, Op>(in, i + BLOCK, m)));
  return cta::block_reduce<BLOCK>(v, op, warp_smem);
}

template <class T, class TOut, class Op>
__global__ void __launch_bounds__(BLOCK)
    coarsened_kernel(const T *__restrict__ in, uint64_t m, TOut *out) {
  store_block(out, coarsened_block<T, Op>(in, m));
}

/* ATOMIC: the coarsened kernel, with block results combined into d_out by one atomic per block
 * (d_out starts as the identity, written by identity_kernel). One launch.
 * Improves: no second pass and no temporary memory. Wastes: float SUM and PROD results depend on
 * the order blocks finish (not deterministic), and PROD and float MIN/MAX need CAS loops. */
template <class T, class Op>
__global__ void __launch_bounds__(BLOCK)
    atomic_kernel(const T *__restrict__ in, uint64_t m, acc_t<T> *out) {
  const acc_t<T> v = coarsened_block<T, Op>(in, m);
  if (threadIdx.x == 0)
    cta::atomic_combine<acc_t<T>, Op>(out, v);
}

/* The start value that ATOMIC's blocks combine into. */
template <class A, class Op> __global__ void identity_kernel(A *out) { *out = Op::identity(); }

/* 16-bit floats: ATOMIC's blocks combine into a float cell (an atomic on the 16-bit output would
 * round at every block), which this rounds once into the output; it also widens the input into
 * the float scratch copy that GLOBAL_TREE works on. */
template <class TIn, class TOut>
__global__ void __launch_bounds__(BLOCK) convert_kernel(const TIn *in, uint64_t m, TOut *out) {
  const uint64_t stride = (uint64_t)gridDim.x * BLOCK;
  for (uint64_t i = (uint64_t)blockIdx.x * BLOCK + threadIdx.x; i < m; i += stride)
    out[i] = from_acc<TOut>(to_acc(in[i]));
}

/* ---------------------------------------------------------------- dispatch */

template <class TIn, class TOut, class Op>
cuprim_status launch_pass(cuprim_reduce_alg alg, unsigned grid, const TIn *src, uint64_t m,
                          TOut *dst, cudaStream_t stream) {
  switch (alg) {
  case CUPRIM_REDUCE_GLOBAL_TREE:
    /* src is a writable scratch buffer of the accumulate type for this rung (per_block_passes). */
    if constexpr (std::is_same<TIn, acc_t<TIn>>::value)
      global_tree_kernel<TIn, TOut, Op><<<grid, BLOCK, 0, stream>>>(const_cast<TIn *>(src), m, dst);
    else
      return CUPRIM_ERROR_INTERNAL;
    break;
  case CUPRIM_REDUCE_NEIGHBORED_DIVERGENT:
    neighbored_kernel<false, TIn, TOut, Op><<<grid, BLOCK, 0, stream>>>(src, m, dst);
    break;
  case CUPRIM_REDUCE_NEIGHBORED_STRIDED:
    neighbored_kernel<true, TIn, TOut, Op><<<grid, BLOCK, 0, stream>>>(src, m, dst);
    break;
  case CUPRIM_REDUCE_SEQUENTIAL:
    sequential_kernel<1, TIn, TOut, Op><<<grid, BLOCK, 0, stream>>>(src, m, dst);
    break;
  case CUPRIM_REDUCE_FIRST_ADD_ON_LOAD:
    sequential_kernel<2, TIn, TOut, Op><<<grid, BLOCK, 0, stream>>>(src, m, dst);
    break;
  case CUPRIM_REDUCE_UNROLLED:
    unrolled_kernel<BLOCK, TIn, TOut, Op><<<grid, BLOCK, 0, stream>>>(src, m, dst);
    break;
  case CUPRIM_REDUCE_WARP_SHUFFLE:
    warp_shuffle_kernel<TIn, TOut, Op><<<grid, BLOCK, 0, stream>>>(src, m, dst);
    break;
  case CUPRIM_REDUCE_COARSENED:
    coarsened_kernel<TIn, TOut, Op><<<grid, BLOCK, 0, stream>>>(src, m, dst);
    break;
  default:
    return CUPRIM_ERROR_INTERNAL;
  }
  return cuprim__cuda_status(cudaPeekAtLastError());
}

/* One pass over src[0..m) into `blocks` results: into `out` (rounded to T) when one is left, else
 * into the buffer `buf` of the accumulate type. */
template <class TIn, class T, class Op>
cuprim_status pass_to(cuprim_reduce_alg alg, uint64_t blocks, const TIn *src, uint64_t m,
                      acc_t<T> *buf, T *out, cudaStream_t stream) {
  if (blocks == 1)
    return launch_pass<TIn, T, Op>(alg, 1, src, m, out, stream);
  return launch_pass<TIn, acc_t<T>, Op>(alg, (unsigned)blocks, src, m, buf, stream);
}

/* A grid for convert_kernel over m elements. */
unsigned convert_grid(uint64_t m) {
  const uint64_t blocks = (m + BLOCK - 1) / BLOCK;
  return blocks < 65535 ? (unsigned)(blocks ? blocks : 1) : 65535u;
}

uint64_t per_block_elems(cuprim_reduce_alg alg) {
  return alg >= CUPRIM_REDUCE_FIRST_ADD_ON_LOAD ? 2 * BLOCK : BLOCK;
}

/* The per-block rungs: passes over block results until one value is left. Temporary memory: two
 * ping-pong buffers of block results (and, for GLOBAL_TREE, the scratch copy of the input, in the
 * accumulate type). */
template <class T, class Op>
cuprim_status per_block_passes(const cuprim_ctx *ctx, cuprim_reduce_alg alg, const T *in, T *out,
                               uint64_t n, cudaStream_t stream) {
  typedef acc_t<T> A;
  const uint64_t pb = per_block_elems(alg);
  const uint64_t p1 = (n + pb - 1) / pb, p2 = (p1 + pb - 1) / pb;
  if (p1 > (uint64_t)ctx->attrs.max_grid_x)
    return CUPRIM_ERROR_UNSUPPORTED; /* past 2^31 blocks: beyond any current GPU's memory */
  const bool copy = alg == CUPRIM_REDUCE_GLOBAL_TREE;
  temp_layout lay; /* [ping | pong | (GLOBAL_TREE) the copy] */
  const size_t ping_at = lay.take(p1 > 1 ? (size_t)p1 * sizeof(A) : 0);
  const size_t pong_at = lay.take(p2 > 1 ? (size_t)p2 * sizeof(A) : 0);
  const size_t copy_at = lay.take(copy ? (size_t)n * sizeof(A) : 0);
  return with_temp(ctx, lay, stream, [&] {
    A *bufs[2] = {lay.at<A>(ping_at), lay.at<A>(pong_at)};
    uint64_t m = n, blocks = p1;
    cuprim_status st;
    if (copy) {
      A *scratch = lay.at<A>(copy_at);
      if constexpr (std::is_same<T, A>::value) {
        CUPRIM__CUDA_CHECK(
            cudaMemcpyAsync(scratch, in, (size_t)n * sizeof(A), cudaMemcpyDeviceToDevice, stream));
      } else {
        convert_kernel<T, A><<<convert_grid(n), BLOCK, 0, stream>>>(in, n, scratch);
        CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
      }
      st = pass_to<A, T, Op>(alg, blocks, scratch, m, bufs[0], out, stream);
    } else {
      st = pass_to<T, T, Op>(alg, blocks, in, m, bufs[0], out, stream);
    }
    for (int pass = 1; st == CUPRIM_SUCCESS && blocks > 1; ++pass) {
      m = blocks;
      blocks = (m + pb - 1) / pb;
      st = pass_to<A, T, Op>(alg, blocks, bufs[(pass - 1) % 2], m, bufs[pass % 2], out, stream);
    }
    return st;
  });
}

template <class T, class Op>
cuprim_status ladder_impl(typed_op<T, Op>, const cuprim_ctx *ctx, cuprim_reduce_alg alg,
                          const void *d_in, void *d_out, uint64_t n, cudaStream_t stream) {
  typedef acc_t<T> A;
  const T *in = static_cast<const T *>(d_in);
  T *out = static_cast<T *>(d_out);
  if (alg != CUPRIM_REDUCE_COARSENED && alg != CUPRIM_REDUCE_ATOMIC)
    return per_block_passes<T, Op>(ctx, alg, in, out, n, stream);

  /* Grid sized to fill the GPU once (the context's cached attributes), never more blocks than
   * there are 2*BLOCK-element tiles. */
  const uint64_t tiles = (n + 2 * BLOCK - 1) / (2 * BLOCK);
  const unsigned grid = (unsigned)cuprim__grid_persistent(ctx, tiles, BLOCK, 0);
  if (alg == CUPRIM_REDUCE_ATOMIC) {
    if constexpr (std::is_same<T, A>::value) {
      identity_kernel<A, Op><<<1, 1, 0, stream>>>(out);
      CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
      atomic_kernel<T, Op><<<grid, BLOCK, 0, stream>>>(in, n, out);
      CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
      return CUPRIM_SUCCESS;
    } else { /* the blocks combine into a float cell, rounded once into d_out */
      return with_temp(ctx, sizeof(A), stream, [&](void *cell) {
        A *acc = static_cast<A *>(cell);
        identity_kernel<A, Op><<<1, 1, 0, stream>>>(acc);
        CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
        atomic_kernel<T, Op><<<grid, BLOCK, 0, stream>>>(in, n, acc);
        CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
        convert_kernel<A, T><<<1, BLOCK, 0, stream>>>(acc, 1, out);
        return cuprim__cuda_status(cudaPeekAtLastError());
      });
    }
  }
  if (grid == 1)
    return launch_pass<T, T, Op>(alg, 1, in, n, out, stream);
  return with_temp(ctx, (size_t)grid * sizeof(A), stream, [&](void *partials) {
    CUPRIM__FORWARD((launch_pass<T, A, Op>(alg, grid, in, n, static_cast<A *>(partials), stream)));
    return launch_pass<A, T, Op>(alg, 1, static_cast<const A *>(partials), grid, out, stream);
  });
}

} // namespace
} // namespace cuprim::reduce

extern "C" cuprim_status cuprim__reduce_ladder(const cuprim_ctx *ctx, cuprim_reduce_alg alg,
                                               const void *d_in, void *d_out, uint64_t n,
                                               cuprim_dtype dtype, cuprim_op op,
                                               cudaStream_t stream) {
  return cuprim::dispatch_typed_op<cuprim::REDUCE_SCAN_TYPES, cuprim::acc_op>(
      dtype, op,
      [&](auto m) { return cuprim::reduce::ladder_impl(m, ctx, alg, d_in, d_out, n, stream); });
}
