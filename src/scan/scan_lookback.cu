/* CUPRIM_SCAN_AUTO and CUPRIM_SCAN_DECOUPLED_LOOKBACK: single-pass scan (Merrill and Garland,
 * "Single-pass Parallel Prefix Scan with Decoupled Look-back", 2016).
 *
 * Block b scans tile b (or, for large inputs before 9.0, the next tile index an atomic counter
 * hands out: below), loads it (eight 16-byte vectors per thread, six for 8-byte types), scans it,
 * publishes the tile's aggregate (status A), looks back over its predecessors' published values
 * until it meets an inclusive prefix (status P), publishes its own inclusive prefix, and writes
 * its tile.
 * The data is read once and written once. Status and value share one 64-bit word for 4-byte
 * types (one store publishes both); 8-byte types keep the value in separate arrays, written
 * before the status with a fence between.
 *
 * What makes it fast on an H100 (measured against variants in the bench log, docs/benchmarks.md):
 * - Warp-striped vectors: vector k of lane l of warp w holds elements w*32*ITEMS + (32k + l)*VEC
 *   .. + VEC - 1, so each load and store instruction of a warp covers 512 contiguous bytes
 *   (a thread-contiguous layout touches 2 KB per instruction, half of each sector).
 * - Large tiles (8192 four-byte elements): the per-tile costs (the look-back's round trips to
 *   L2, block barriers, the counter's atomic where it is used) are paid once per 32 KB.
 * - Tile order. Block b scans tile b, so its loads start at once. A block spinning on its
 *   predecessors therefore needs every lower-numbered block to have been dispatched before it:
 *   CUDA does not promise that in words, but GPUs dispatch the blocks of a grid in index order,
 *   and CUB's decoupled look-back relies on the same. The alternative, each block taking its
 *   tile from an atomic counter (tiles in the order blocks start, no reliance on dispatch order),
 *   costs an atomic's round trip before the loads: 3.7% at 2^28 on the H100 (775.7 against
 *   747.3 us) and about 1 us at 2^22. Before 9.0 it is still faster for large inputs (794 against
 *   823 us at 2^28 for 8.0 code on the H100), so there the counter is used from 128 MiB
 *   (scan_tuning.h). While thread 0 waits for the counter, it asks L2 to prefetch tile
 *   blockIdx.x (the index the counter hands out is usually close), which hides the counter's
 *   latency behind the DRAM latency; in block order the block asks for its own tile just before
 *   loading it, where that measured faster (up to 16 MiB on 9.0, always before). Hints only:
 *   every tile order gives the same result. (Before 9.0, which has no bulk prefetch, every thread
 *   asks for a line of the tile.)
 * - From 9.0 on, it also asks for the tile one block per SM ahead (a tile that a block starting
 *   later will claim, so its data waits in L2 instead of arriving after the claim). On every
 *   GPU the tile's stores are evict-first (st.global.cs), so that the output streaming through
 *   L2 does not push that input out: 802 -> 778 us at 2^28 on the H100 with both, 806 -> 795 us
 *   with the stores alone for 8.0 code (scan_tuning.h).
 * - The tile status and the tile counter are zeroed by a small kernel that the look-back kernel
 *   overlaps by programmatic dependent launch: its blocks start, prefetch, and wait at
 *   griddepcontrol.wait only before they touch the counter or, in block order, the status (a
 *   cudaMemsetAsync before the launch cost 0.2-1.5 us more from 2^14 to 2^24 elements). Up to
 *   2^17 elements the tiles are half size.
 * Small inputs skip all of it: one block scans them with a running carry (no temporary memory).
 * cuprim_scan_init starts from a value in device memory: tile 0 takes it as its prefix (in place of
 * nothing to look back at), the single block as its first carry; without one (the pointer NULL)
 * both kernels do what they did, at the cost of a test of the pointer.
 * (One thread-block cluster of 8 or 16 such blocks, measured for mid sizes, was slower than the
 * look-back kernel at every size from 2^10 to 2^20 on the H100: 7.2 us at 2^10, 9.4 at 2^16.)
 * The choices are in scan_tuning.h; cuprim-bench's kernel-choice table measures each.
 *
 * 16-bit floats (scan.h: arithmetic in float, each d_out[i] rounded once) run the same kernels
 * with float tile aggregates and prefixes (so packed status words), but a thread keeps its
 * elements as loaded, two to a register: 64 per thread, 32 KB tiles as for 4-byte types, in the
 * 64 registers of four blocks per SM (as floats, 64 would need twice the registers, and half-size
 * tiles pay the per-tile costs twice as often). The segment is then scanned in two passes over
 * the registers: each vector's total in float before the look-back (warp_segment_totals), and
 * the scan itself, seeded with the prefix, once the prefix is known (warp_segment_finish). */
#include <type_traits>

#include "common/check.h"
#include "common/dispatch.cuh"
#include "common/launch.h"
#include "common/launch_config.cuh"
#include "common/temp_memory.cuh"
#include "cta/arch.cuh"
#include "cta/load.cuh"
#include "cta/lookback.cuh"
#include "cta/ops.cuh"
#include "cta/warp_scan.cuh"
#include "cta/warp_striped.cuh"
#include "scan_internal.h"

namespace cuprim::scan {
namespace {

using cta::fixed_kind;
using cta::geometry;
using cta::load_items;
using cta::load_segment;
using cta::look_back;
using cta::segment_count;
using cta::shift_to_exclusive;
using cta::STATUS_A;
using cta::STATUS_P;
using cta::store_items;
using cta::tile_status;
using cta::warp_segment_scan;

/* Tiles are warp-striped (cta/warp_striped.cuh); a tile is THREADS/32 warp segments. The look-back
 * kernel's threads hold 128 bytes (8 vectors) for 4- and 2-byte types; 8-byte types hold 6 (every
 * value takes two registers, and 8 vectors would not fit in the 64 registers that 4 blocks per SM
 * allow). The single-block kernel (1024 threads) holds 4. */
template <class T, bool SMALL = false>
struct tile_geometry : geometry<T, (sizeof(T) == 8 ? 6 : 8) / (SMALL ? 2 : 1)> {
  typedef T value_type;
  static constexpr int THREADS = 256;
  static constexpr int TILE = THREADS * tile_geometry::ITEMS;
};
template <class T> struct single_geometry : geometry<T, 4> {
  typedef T value_type;
  static constexpr int THREADS = 1024;
  static constexpr int STEP = THREADS * single_geometry::ITEMS;
};

/* Adds the exclusive prefix `p` of the warp's segment to its items. */
template <class G, class T, class Op>
__device__ __forceinline__ void add_prefix(T (&x)[G::VECS][G::VEC], T p) {
  const Op op;
#pragma unroll
  for (int k = 0; k < G::VECS; ++k)
#pragma unroll
    for (int j = 0; j < G::VEC; ++j)
      x[k][j] = op(p, x[k][j]);
}

/* 16-bit floats, pass 1: the items stay as loaded. Each vector's total in float, the vector totals
 * scanned across the lanes; pre[k] = the combination of everything in the warp's segment before
 * this thread's vector k. Returns the segment's total. */
template <class G, class T, class Op>
__device__ __forceinline__ acc_t<T> warp_segment_totals(const T (&x)[G::VECS][G::VEC], int lane,
                                                        acc_t<T> (&pre)[G::VECS]) {
  typedef acc_t<T> A;
  const Op op;
  A run = Op::identity();
#pragma unroll
  for (int k = 0; k < G::VECS; ++k) {
    A v[G::VEC];
    to_acc_n<T, G::VEC>(x[k], v);
#pragma unroll
    for (int s = 1; s < G::VEC; s *= 2) /* pairwise: a short dependency chain */
#pragma unroll
      for (int j = 0; j + s < G::VEC; j += 2 * s)
        v[j] = op(v[j], v[j + s]);
    const A incl = cta::warp_inclusive_scan(v[0], op, lane);
    const A excl = __shfl_up_sync(cta::full_mask, incl, 1);
    const A total = __shfl_sync(cta::full_mask, incl, 31);
    pre[k] = lane == 0 ? run : op(run, excl);
    run = op(run, total);
  }
  return run;
}

/* 16-bit floats, pass 2: the scan (kind) of the thread's items, vector k started from pre[k]
 * preceded by the segment's exclusive prefix `p` (if has_p), each result rounded once, into x. */
template <class G, class T, class Op, class Kind>
__device__ __forceinline__ void warp_segment_finish(T (&x)[G::VECS][G::VEC],
                                                    const acc_t<T> (&pre)[G::VECS], acc_t<T> p,
                                                    bool has_p, Kind kind) {
  typedef acc_t<T> A;
  const Op op;
#pragma unroll
  for (int k = 0; k < G::VECS; ++k) {
    A v[G::VEC];
    to_acc_n<T, G::VEC>(x[k], v);
    A r = has_p ? op(p, pre[k]) : pre[k];
    if ((int)kind == (int)CUPRIM_INCLUSIVE) {
#pragma unroll
      for (int j = 0; j < G::VEC; ++j)
        v[j] = r = op(r, v[j]);
    } else {
#pragma unroll
      for (int j = 0; j < G::VEC; ++j) {
        const A e = r;
        r = op(r, v[j]);
        v[j] = e;
      }
    }
    from_acc_n<T, G::VEC>(v, x[k]);
  }
}

/* Every thread: the exclusive prefix of warp `warp` among the block's warps (the identity for
 * warp 0), and the block's total, from the warp totals in shared memory (read in warp order). */
template <class T, class Op, int WARPS>
__device__ __forceinline__ T warp_prefix(const T *warp_totals, int warp, T &aggregate) {
  const Op op;
  T before = Op::identity(), all = warp_totals[0];
#pragma unroll
  for (int w = 1; w < WARPS; ++w) {
    const T v = warp_totals[w];
    if (w == warp)
      before = all;
    all = op(all, v);
  }
  aggregate = all;
  return before;
}

/* ---------------------------------------------------------------- kernels */

template <class T> struct lookback_args {
  const T *in;
  T *out;
  uint64_t n;
  const T *init; /* cuprim_scan_init's initial value (device); NULL: start from the identity */
  tile_status<acc_t<T>> ts;
  unsigned *tile_counter;  /* NULL: block b scans tile b */
  bool prefetch_own;       /* without the counter: prefetch the block's own tile first */
  uint64_t prefetch_ahead; /* blocks; 0: none (scan_tuning.h) */
  bool evict_first_stores;
};

/* How the look-back kernel makes an exclusive scan of 4-byte elements before 9.0: as its inclusive
 * scan, shifted by one item just before the store (shift_to_exclusive), so that both kinds hold the
 * same registers through the look-back. Scanning exclusively in place, ptxas (CUDA 13.0) spills
 * 76-96 bytes in every such kernel at 64 registers (4 blocks per SM) for sm_75, sm_80, sm_86 and
 * from compute_80 PTX for sm_90; with the shift none spills (62-64 registers). On the H100,
 * 80-virtual (cuprim-bench, 2026-11-25 04:58 UTC), against 3 blocks per SM in place: exclusive
 * f32 2^28 867.07 -> 812.93 us, 2^22 22.21 -> 21.47 (i32 874.82 -> 813.50, 22.59 -> 21.98), as
 * fast as the inclusive scan (806.02, 813.44). On 9.0 the in-place scan fits and the shift would
 * cost 16-24 bytes of spills; 8-byte elements fit in place before 9.0 (56-64 registers). */
template <class T> constexpr bool exclusive_by_shift = cta::compiled_arch < 900 && sizeof(T) == 4;

/* KIND is a template argument here (not in the single-block kernel): with one path per kernel
 * the 4-byte kernels fit in 64 registers on 9.0 (before 9.0: exclusive_by_shift). SMALL:
 * half-size tiles. */
template <class T, class Op, cuprim_scan_kind KIND, bool SMALL>
__global__ void __launch_bounds__(256, 4) lookback_kernel(const lookback_args<T> a) {
  typedef tile_geometry<T, SMALL> G;
  typedef acc_t<T> A;
  constexpr int WARPS = G::THREADS / 32;
  /* the scan kind held through the look-back (exclusive_by_shift) */
  constexpr cuprim_scan_kind IN_REGISTERS = exclusive_by_shift<T> ? CUPRIM_INCLUSIVE : KIND;
  const Op op;
  __shared__ A warp_totals[WARPS];
  __shared__ unsigned s_tile;
  __shared__ A s_prefix;
  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  const bool in_aligned = cta::aligned16(a.in);
  /* Tile blockIdx.x, or the next one the counter hands out (a.tile_counter set). */
  const bool by_counter = a.tile_counter != NULL;
  /* Hints (see the file comment): fetch tile blockIdx.x into L2 (while the counter answers, or
   * just before the loads: a.prefetch_own), and the tile a.prefetch_ahead blocks later, their
   * 16-byte-aligned interiors (what the bulk prefetch takes: cta::prefetch_l2_range). */
  for (int ahead = by_counter || a.prefetch_own ? 0 : 1; ahead < (a.prefetch_ahead ? 2 : 1);
       ++ahead) {
    const uint64_t pbase = ((uint64_t)blockIdx.x + (ahead ? a.prefetch_ahead : 0)) * G::TILE;
    if (pbase < a.n) {
      const uint64_t pm = a.n - pbase < (uint64_t)G::TILE ? a.n - pbase : (uint64_t)G::TILE;
      cta::prefetch_l2_range(a.in + pbase, (size_t)pm * sizeof(T), t, G::THREADS);
    }
  }
  uint64_t tile = blockIdx.x;
  if (by_counter) {
    if (t == 0) {
      /* With a programmatic dependent launch, wait here for the kernel that resets the tile
       * status and the counter (a no-op otherwise). */
      cta::pdl_wait();
      s_tile = atomicAdd(a.tile_counter, 1u);
    }
    __syncthreads();
    tile = s_tile;
  }
  const uint64_t base = tile * G::TILE;
  const uint64_t m = a.n - base < (uint64_t)G::TILE ? a.n - base : G::TILE;
  const uint64_t seg_base = base + (uint64_t)warp * G::WARP_ITEMS;
  const uint64_t sm = segment_count<G>(m, warp);
  const bool full = sm == (uint64_t)G::WARP_ITEMS;

  T x[G::VECS][G::VEC];
  load_segment<G, T, Op>(a.in, a.n, seg_base, sm, in_aligned, lane, x);
  A pre[is_narrow_float<T> ? G::VECS : 1];
  A wtotal;
  if constexpr (is_narrow_float<T>)
    wtotal = warp_segment_totals<G, T, Op>(x, lane, pre);
  else
    wtotal = warp_segment_scan<G, T, Op>(x, lane, fixed_kind<IN_REGISTERS>());
  if (lane == 0)
    warp_totals[warp] = wtotal;
  __syncthreads();
  A aggregate;
  const A wprefix = warp_prefix<A, Op, WARPS>(warp_totals, warp, aggregate);
  A p = wprefix; /* the exclusive prefix of this warp's segment */
  if (!by_counter && warp == 0)
    cta::pdl_wait(); /* warp 0 alone touches the tile status, from here on */
  if (tile == 0 && a.init == NULL) {
    if (t == 0)
      a.ts.publish(0, STATUS_P, aggregate);
  } else {
    /* Tile 0 of cuprim_scan_init has no predecessor to look back at: its prefix is *init. */
    if (t == 0 && tile > 0)
      a.ts.publish(tile, STATUS_A, aggregate);
    if (warp == 0) {
      const A tp = tile > 0 ? look_back<A, Op>(a.ts, tile, lane) : to_acc(*a.init);
      if (lane == 0) {
        a.ts.publish(tile, STATUS_P, op(tp, aggregate));
        s_prefix = tp;
      }
    }
    __syncthreads();
    p = warp == 0 ? s_prefix : op(s_prefix, wprefix);
  }
  const bool has_p = tile > 0 || warp > 0 || a.init != NULL; /* the first segment: nothing before */
  if constexpr (is_narrow_float<T>) {
    warp_segment_finish<G, T, Op>(x, pre, p, has_p, fixed_kind<KIND>());
  } else {
    if (has_p)
      add_prefix<G, T, Op>(x, p);
    if constexpr (exclusive_by_shift<T> && KIND == CUPRIM_EXCLUSIVE)
      shift_to_exclusive<G, T>(x, lane, has_p ? p : Op::identity());
  }
  store_items<G, T>(a.out + seg_base, sm, full && cta::aligned16(a.out), lane, x,
                    a.evict_first_stores);
}

/* Small inputs: one block of 1024 threads scans 32 warp segments per step, carrying the running
 * total from step to step. With `init` (cuprim_scan_init), the carry starts as *init instead of
 * nothing. */
template <class T, class Op>
__global__ void __launch_bounds__(1024)
    single_block_kernel(const T *in, T *out, uint64_t n, cuprim_scan_kind kind, const T *init) {
  typedef single_geometry<T> G;
  typedef acc_t<T> A;
  const Op op;
  constexpr int WARPS = G::THREADS / 32;
  __shared__ A warp_totals[2][WARPS]; /* alternate steps: one barrier per step */
  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  const bool in_aligned = cta::aligned16(in), out_aligned = cta::aligned16(out);
  A carry = init != NULL ? to_acc(*init) : Op::identity();
  int parity = 0;
  for (uint64_t base = 0; base < n; base += G::STEP, parity ^= 1) {
    const bool carried = base > 0 || init != NULL; /* something comes before this step */
    const uint64_t m = n - base < (uint64_t)G::STEP ? n - base : G::STEP;
    const uint64_t seg_base = base + (uint64_t)warp * G::WARP_ITEMS;
    const uint64_t sm = segment_count<G>(m, warp);
    const bool full = sm == (uint64_t)G::WARP_ITEMS;
    T x[G::VECS][G::VEC];
    load_items<G, T, Op>(in + seg_base, sm, full && in_aligned, lane, x);
    A pre[is_narrow_float<T> ? G::VECS : 1];
    A wtotal;
    if constexpr (is_narrow_float<T>)
      wtotal = warp_segment_totals<G, T, Op>(x, lane, pre);
    else
      wtotal = warp_segment_scan<G, T, Op>(x, lane, (int)kind);
    if (lane == 0)
      warp_totals[parity][warp] = wtotal;
    __syncthreads();
    A aggregate;
    const A wprefix = warp_prefix<A, Op, WARPS>(warp_totals[parity], warp, aggregate);
    if (sm) {
      const A p = !carried ? wprefix : (warp == 0 ? carry : op(carry, wprefix));
      if constexpr (is_narrow_float<T>)
        warp_segment_finish<G, T, Op>(x, pre, p, carried || warp > 0, (int)kind);
      else if (carried || warp > 0)
        add_prefix<G, T, Op>(x, p);
      store_items<G, T>(out + seg_base, sm, full && out_aligned, lane, x);
    }
    carry = !carried ? aggregate : op(carry, aggregate);
  }
}

/* Zeroes the tile counter and status words; lets the look-back kernel launch at once (it waits
 * for this grid's completion in griddepcontrol.wait before it touches them). */
constexpr unsigned RESET_THREADS = 256, RESET_MAX_BLOCKS = 264;
__global__ void __launch_bounds__(RESET_THREADS) reset_kernel(unsigned long long *w, size_t words) {
  cta::pdl_launch_dependents();
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride)
    w[i] = 0;
}

template <class T, class Op>
cuprim_status lookback_impl(typed_op<T, Op>, const cuprim_ctx *ctx, const void *d_in, void *d_out,
                            uint64_t n, cuprim_scan_kind kind, const void *d_init,
                            cudaStream_t stream, const cuprim__scan_tuning *tune) {
  typedef tile_geometry<T> G;
  const T *in = static_cast<const T *>(d_in);
  T *out = static_cast<T *>(d_out);
  const T *init = static_cast<const T *>(d_init);
  const uint64_t big_tiles = (n + G::TILE - 1) / G::TILE;
  if (big_tiles <= tune->single_block_max_tiles) {
    static_assert(single_geometry<T>::THREADS == 1024, "the launch below");
    single_block_kernel<T, Op><<<1, 1024, 0, stream>>>(in, out, n, kind, init);
    CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
    return CUPRIM_SUCCESS;
  }
  const bool small = n <= tune->small_tiles_max_n;
  const uint64_t tile_elems = small ? tile_geometry<T, true>::TILE : G::TILE;
  const uint64_t tiles = (n + tile_elems - 1) / tile_elems;
  if (tiles > (uint64_t)ctx->attrs.max_grid_x || tiles >= UINT32_MAX)
    return CUPRIM_ERROR_UNSUPPORTED; /* past 2^31 tiles: beyond any current GPU's memory */

  /* [tile counter | status words | (8-byte types) aggregates | inclusive prefixes]; the counter
   * and status words are zeroed, the value arrays need no initialisation. The status holds the
   * accumulate type A (float for 16-bit floats: packed). */
  typedef acc_t<T> A;
  typedef cta::tile_status<A> TS;
  temp_layout lay;
  const size_t counter_at = lay.take(16);
  const size_t status_at = lay.take((size_t)tiles * TS::STATUS_BYTES);
  const size_t reset_words = lay.bytes / 8; /* the counter and the status words */
  const size_t aggregate_at = TS::HAS_VALUES ? lay.take((size_t)tiles * sizeof(A)) : 0;
  const size_t inclusive_at = TS::HAS_VALUES ? lay.take((size_t)tiles * sizeof(A)) : 0;
  return with_temp(ctx, lay, stream, [&] {
    lookback_args<T> a;
    a.in = in;
    a.out = out;
    a.n = n;
    a.init = init;
    const uint64_t bytes = n * sizeof(T);
    a.tile_counter = bytes >= tune->counter_min_bytes ? lay.at<unsigned>(counter_at) : NULL;
    a.prefetch_own = bytes <= tune->prefetch_own_max_bytes;
    a.prefetch_ahead = (uint64_t)tune->prefetch_ahead_quarters * (uint64_t)ctx->attrs.sm_count / 4;
    a.evict_first_stores = tune->evict_first_stores != 0;
    a.ts.place(lay.at<void>(status_at), lay.at<A>(aggregate_at), lay.at<A>(inclusive_at));
    void (*kernel)(const lookback_args<T>) =
        kind == CUPRIM_INCLUSIVE ? (small ? lookback_kernel<T, Op, CUPRIM_INCLUSIVE, true>
                                          : lookback_kernel<T, Op, CUPRIM_INCLUSIVE, false>)
                                 : (small ? lookback_kernel<T, Op, CUPRIM_EXCLUSIVE, true>
                                          : lookback_kernel<T, Op, CUPRIM_EXCLUSIVE, false>);
    if (tune->pdl_reset) {
      const unsigned reset_blocks =
          (unsigned)((reset_words + RESET_THREADS - 1) / RESET_THREADS < RESET_MAX_BLOCKS
                         ? (reset_words + RESET_THREADS - 1) / RESET_THREADS
                         : RESET_MAX_BLOCKS);
      reset_kernel<<<reset_blocks, RESET_THREADS, 0, stream>>>(
          lay.at<unsigned long long>(counter_at), reset_words);
      CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
      cudaLaunchAttribute attr;
      /* G::THREADS is the same for both tile sizes */
      const cudaLaunchConfig_t cfg = pdl_config(ctx, (unsigned)tiles, G::THREADS, stream, &attr);
      CUPRIM__CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, a));
    } else {
      CUPRIM__CUDA_CHECK(cudaMemsetAsync(lay.at<void>(counter_at), 0, reset_words * 8, stream));
      kernel<<<(unsigned)tiles, G::THREADS, 0, stream>>>(a);
    }
    return cuprim__cuda_status(cudaPeekAtLastError());
  });
}

} // namespace
} // namespace cuprim::scan

extern "C" cuprim_status cuprim__scan_lookback_init(const cuprim_ctx *ctx, const void *d_in,
                                                    void *d_out, uint64_t n, cuprim_dtype dtype,
                                                    cuprim_op op, cuprim_scan_kind kind,
                                                    const void *d_init, cudaStream_t stream,
                                                    const cuprim__scan_tuning *tune) {
  return cuprim::dispatch_typed_op<cuprim::REDUCE_SCAN_TYPES, cuprim::acc_op>(
      dtype, op, [&](auto m) {
        return cuprim::scan::lookback_impl(m, ctx, d_in, d_out, n, kind, d_init, stream, tune);
      });
}

extern "C" cuprim_status cuprim__scan_lookback(const cuprim_ctx *ctx, const void *d_in, void *d_out,
                                               uint64_t n, cuprim_dtype dtype, cuprim_op op,
                                               cuprim_scan_kind kind, cudaStream_t stream,
                                               const cuprim__scan_tuning *tune) {
  return cuprim__scan_lookback_init(ctx, d_in, d_out, n, dtype, op, kind, NULL, stream, tune);
}
