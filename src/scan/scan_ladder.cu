/* The scan ladder: three classic block scans (seed 002; PMPP chapter 11; GPU Gems 3 ch. 39), each
 * joined across tiles by reduce-then-scan:
 *   1. reduce: each block reduces its tile to one total, with cta::block_reduce (the block-level
 *      piece reduce is built on);
 *   2. the tile totals are scanned (exclusive) by the same rung, recursively, in place;
 *   3. each block scans its tile again, seeded with its tile's exclusive prefix.
 * Two reads and one write of the data, plus the totals. In place (d_out == d_in) works: each block
 * reads its whole tile before writing it. For floats every rung here is deterministic: the tree
 * depends only on n.
 * 16-bit floats are computed in float (Op's accumulate type A): a kernel reads TIn and writes TOut,
 * the tile totals and prefixes of every level are A, and each output element is rounded once. */
#include "common/check.h"
#include "common/dispatch.cuh"
#include "common/temp_memory.cuh"
#include "cta/ops.cuh"
#include "cta/warp_reduce.cuh"
#include "cta/warp_scan.cuh"
#include "scan_internal.h"

namespace cuprim::scan {
namespace {

constexpr int BLOCK = 256;

/* What pass 3 of every rung reads and writes, one kernel argument: the input and the output of
 * m elements, the exclusive prefix of each tile (NULL when the input is one tile: pass 3 alone),
 * and the kind of scan. */
template <class T, class TOut, class Op> struct tile_io {
  typedef acc_t<T> A;
  const T *in;
  TOut *out;
  uint64_t m;
  const A *prefix;
  cuprim_scan_kind kind;

  /* Element i in the accumulate type, the identity past m. */
  __device__ __forceinline__ A load(uint64_t i) const { return load_or_identity<T, Op>(in, i, m); }
  /* The exclusive prefix of this block's tile, which its scan starts from. */
  __device__ __forceinline__ A seed() const { return prefix ? prefix[blockIdx.x] : Op::identity(); }
  /* Writes element i's result: `incl` is its inclusive scan within the whole input; exclusive
   * results are the inclusive ones shifted by one, computed by the caller as `excl`. */
  __device__ __forceinline__ void put(uint64_t i, A incl, A excl) const {
    if (i < m)
      out[i] = from_acc<TOut>(kind == CUPRIM_INCLUSIVE ? incl : excl);
  }
};

/* Pass 1: tile totals. TILE elements per block, TILE/BLOCK per thread, combined in registers,
 * then cta::block_reduce. */
template <int TILE, class T, class Op>
__global__ void __launch_bounds__(BLOCK)
    tile_reduce_kernel(const T *__restrict__ in, uint64_t m, acc_t<T> *totals) {
  typedef acc_t<T> A;
  const Op op;
  __shared__ A warp_smem[BLOCK / 32];
  const uint64_t base = (uint64_t)blockIdx.x * TILE;
  A v = Op::identity();
#pragma unroll
  for (int k = 0; k < TILE / BLOCK; ++k)
    v = op(v, load_or_identity<T, Op>(in, base + k * BLOCK + threadIdx.x, m));
  v = cta::block_reduce<BLOCK>(v, op, warp_smem);
  if (threadIdx.x == 0)
    totals[blockIdx.x] = v;
}

/* HILLIS_STEELE: log2(256) steps over a double buffer; at step d every element adds the one
 * 2^d to its left. Improves: the fewest steps (step-efficient). Wastes: n log n work, a barrier
 * per step, and one element per thread. */
template <class T, class TOut, class Op>
__global__ void __launch_bounds__(BLOCK) hillis_steele_kernel(const tile_io<T, TOut, Op> io) {
  typedef acc_t<T> A;
  const Op op;
  __shared__ A buf[2][BLOCK];
  const int t = threadIdx.x;
  const uint64_t i = (uint64_t)blockIdx.x * BLOCK + t;
  int cur = 0;
  buf[cur][t] = io.load(i);
  __syncthreads();
  for (int offset = 1; offset < BLOCK; offset <<= 1) {
    const int nxt = cur ^ 1;
    buf[nxt][t] = t >= offset ? op(buf[cur][t - offset], buf[cur][t]) : buf[cur][t];
    cur = nxt;
    __syncthreads();
  }
  const A p = io.seed();
  const A incl = op(p, buf[cur][t]);
  const A excl = t == 0 ? p : op(p, buf[cur][t - 1]);
  io.put(i, incl, excl);
}

/* BLELLOCH: the work-efficient scan: an upsweep (a reduction tree) and a downsweep that pushes
 * prefixes back down, 2 elements per thread, shared memory padded by one slot per 32 so that the
 * tree's strided accesses fall in different banks. Improves: O(n) work and no bank conflicts.
 * Wastes: 2 log n barrier steps with ever fewer active threads. */
constexpr int LOG_BANKS = 5;
__device__ __forceinline__ int padded(int i) { return i + (i >> LOG_BANKS); }

template <class T, class TOut, class Op>
__global__ void __launch_bounds__(BLOCK) blelloch_kernel(const tile_io<T, TOut, Op> io) {
  typedef acc_t<T> A;
  const Op op;
  constexpr int N = 2 * BLOCK;
  __shared__ A temp[N + N / 32];
  const int t = threadIdx.x;
  const uint64_t base = (uint64_t)blockIdx.x * N;
  const int a = t, b = t + BLOCK;
  const A xa = io.load(base + a), xb = io.load(base + b);
  temp[padded(a)] = xa;
  temp[padded(b)] = xb;
  int offset = 1;
  for (int d = N >> 1; d > 0; d >>= 1) { /* upsweep */
    __syncthreads();
    if (t < d) {
      const int ai = padded(offset * (2 * t + 1) - 1), bi = padded(offset * (2 * t + 2) - 1);
      temp[bi] = op(temp[ai], temp[bi]);
    }
    offset <<= 1;
  }
  if (t == 0)
    temp[padded(N - 1)] = Op::identity(); /* the root's prefix */
  for (int d = 1; d < N; d <<= 1) {       /* downsweep */
    offset >>= 1;
    __syncthreads();
    if (t < d) {
      const int ai = padded(offset * (2 * t + 1) - 1), bi = padded(offset * (2 * t + 2) - 1);
      const A left = temp[ai];
      temp[ai] = temp[bi];
      temp[bi] = op(temp[bi], left);
    }
  }
  __syncthreads();
  const A p = io.seed();
  const A ea = op(p, temp[padded(a)]), eb = op(p, temp[padded(b)]);
  io.put(base + a, op(ea, xa), ea);
  io.put(base + b, op(eb, xb), eb);
}

/* WARP_SHUFFLE: each warp scans its 32 elements with __shfl_up_sync in registers; one warp scans
 * the eight warp totals. Improves: no shared-memory tree and two barriers instead of 2 log n.
 * Wastes: still one element per thread and two passes over the data (reduce-then-scan). */
template <class T, class TOut, class Op>
__global__ void __launch_bounds__(BLOCK) warp_shuffle_kernel(const tile_io<T, TOut, Op> io) {
  typedef acc_t<T> A;
  const Op op;
  __shared__ A warp_smem[BLOCK / 32 + 1];
  const uint64_t i = (uint64_t)blockIdx.x * BLOCK + threadIdx.x;
  const A x = io.load(i);
  A aggregate;
  const A e = cta::block_exclusive_scan<BLOCK>(x, op, warp_smem, (int)threadIdx.x,
                                               cta::block_barrier(), aggregate);
  const A excl = op(io.seed(), e);
  io.put(i, op(excl, x), excl);
}

/* ---------------------------------------------------------------- dispatch */

uint64_t tile_of(cuprim_scan_alg alg) { return alg == CUPRIM_SCAN_BLELLOCH ? 2 * BLOCK : BLOCK; }

template <class T, class TOut, class Op>
cuprim_status launch_scan(cuprim_scan_alg alg, const T *in, TOut *out, uint64_t m,
                          const acc_t<T> *prefix, cuprim_scan_kind kind, cudaStream_t stream) {
  const unsigned grid = (unsigned)((m + tile_of(alg) - 1) / tile_of(alg));
  const tile_io<T, TOut, Op> io = {in, out, m, prefix, kind};
  switch (alg) {
  case CUPRIM_SCAN_HILLIS_STEELE:
    hillis_steele_kernel<T, TOut, Op><<<grid, BLOCK, 0, stream>>>(io);
    break;
  case CUPRIM_SCAN_BLELLOCH:
    blelloch_kernel<T, TOut, Op><<<grid, BLOCK, 0, stream>>>(io);
    break;
  case CUPRIM_SCAN_WARP_SHUFFLE:
    warp_shuffle_kernel<T, TOut, Op><<<grid, BLOCK, 0, stream>>>(io);
    break;
  default:
    return CUPRIM_ERROR_INTERNAL;
  }
  return cuprim__cuda_status(cudaPeekAtLastError());
}

template <class T, class Op>
cuprim_status launch_reduce(cuprim_scan_alg alg, const T *in, uint64_t m, acc_t<T> *totals,
                            cudaStream_t stream) {
  const uint64_t tile = tile_of(alg);
  const unsigned grid = (unsigned)((m + tile - 1) / tile);
  if (tile == 2 * BLOCK)
    tile_reduce_kernel<2 * BLOCK, T, Op><<<grid, BLOCK, 0, stream>>>(in, m, totals);
  else
    tile_reduce_kernel<BLOCK, T, Op><<<grid, BLOCK, 0, stream>>>(in, m, totals);
  return cuprim__cuda_status(cudaPeekAtLastError());
}

/* Reduce-then-scan of in[0..m) into out, with `levels` holding the totals of every level below
 * (in the accumulate type: the levels below the input's are scanned A to A, in place). */
template <class T, class TOut, class Op>
cuprim_status reduce_then_scan(cuprim_scan_alg alg, const T *in, TOut *out, uint64_t m,
                               cuprim_scan_kind kind, acc_t<T> *levels, cudaStream_t stream) {
  typedef acc_t<T> A;
  const uint64_t tile = tile_of(alg);
  if (m <= tile)
    return launch_scan<T, TOut, Op>(alg, in, out, m, nullptr, kind, stream);
  const uint64_t tiles = (m + tile - 1) / tile;
  A *totals = levels;
  CUPRIM__FORWARD((launch_reduce<T, Op>(alg, in, m, totals, stream)));
  CUPRIM__FORWARD((reduce_then_scan<A, A, Op>(alg, totals, totals, tiles, CUPRIM_EXCLUSIVE,
                                              levels + tiles, stream)));
  return launch_scan<T, TOut, Op>(alg, in, out, m, totals, kind, stream);
}

template <class T, class Op>
cuprim_status ladder_impl(typed_op<T, Op>, const cuprim_ctx *ctx, cuprim_scan_alg alg,
                          const void *d_in, void *d_out, uint64_t n, cuprim_scan_kind kind,
                          cudaStream_t stream) {
  const uint64_t tile = tile_of(alg);
  if ((n + tile - 1) / tile > (uint64_t)ctx->attrs.max_grid_x)
    return CUPRIM_ERROR_UNSUPPORTED; /* past 2^31 blocks: beyond any current GPU's memory */
  uint64_t level_elems = 0;          /* the totals of every level, summed */
  for (uint64_t m = n; m > tile; m = (m + tile - 1) / tile)
    level_elems += (m + tile - 1) / tile;
  const size_t bytes = (size_t)level_elems * sizeof(acc_t<T>);
  return with_temp(ctx, bytes, stream, [&](void *levels) {
    return reduce_then_scan<T, T, Op>(alg, static_cast<const T *>(d_in), static_cast<T *>(d_out), n,
                                      kind, static_cast<acc_t<T> *>(levels), stream);
  });
}

} // namespace
} // namespace cuprim::scan

extern "C" cuprim_status cuprim__scan_ladder(const cuprim_ctx *ctx, cuprim_scan_alg alg,
                                             const void *d_in, void *d_out, uint64_t n,
                                             cuprim_dtype dtype, cuprim_op op,
                                             cuprim_scan_kind kind, cudaStream_t stream) {
  return cuprim::dispatch_typed_op<cuprim::REDUCE_SCAN_TYPES, cuprim::acc_op>(
      dtype, op,
      [&](auto m) { return cuprim::scan::ladder_impl(m, ctx, alg, d_in, d_out, n, kind, stream); });
}
