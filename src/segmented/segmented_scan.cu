/* cuprim_segmented_scan and cuprim_batched_scan: single-pass scans of (segment-start, value)
 * pairs, tiles chained by decoupled look-back (cta/lookback.cuh). Two launches each: prepare (the
 * tile status zeroed, and for offsets the partitions of the merge), then one block per tile.
 * Rows of one length (cuprim_batched_scan) need no merge: their tiles are cuprim_scan's, each
 * element's flag computed from its index (rows_scan_kernel, at the end of this file). Offsets
 * (cuprim_segmented_scan) are scanned over the merge of segment ends and elements
 * (segmented_tile.cuh), one block per tile of it:
 *
 *  - block b scans tile b (as cuprim_scan's look-back does: GPUs dispatch a grid's blocks in
 *    index order, so a tile's predecessors always belong to blocks that run or have run; until
 *    0.2's fourteenth runs the tiles came from an atomic counter, 0.6-2.1% slower at 2^28 on the
 *    H100); first it asks L2 for the offsets and elements of its tile (prefetch_tile; 0.2's
 *    seventh run: 9-11% faster from segments of 4 up, when it hid the counter's latency);
 *  - the tile's ends and elements are staged in shared memory (16-byte copies), as for the reduce,
 *    and each end sets its flag: the element where the next segment starts;
 *  - each thread scans its ITEMS consecutive elements, restarting at each flag: an element gets
 *    the scan (inclusive or exclusive) of its segment so far (the flag tile, segmented_tile.cuh;
 *    until 0.2's fourth run each thread walked ITEMS items of the merge, ends and elements, with a
 *    branch per item: 33-63% of the byte limit, bound by the instructions);
 *  - a block scan of the threads' (has-flag, running value) pairs gives each thread what precedes
 *    its first flag in the tile (the carry), and the tile's own pair;
 *  - a tile with a flag publishes its running value as its inclusive prefix (status P) at once:
 *    the segment it leaves open started inside it, so nothing before it matters to its
 *    successors, and their look-back stops there (so does a tile whose last end follows its last
 *    element: it passes on the identity). Another tile publishes its total as an aggregate (A),
 *    looks back, then publishes P. The look-back is only needed by a tile whose
 *    first elements continue a segment from earlier tiles;
 *  - the carry (and the tile's prefix) is added to each thread's elements before its first flag,
 *    and the tile's elements are stored, 16 bytes at a time: the data is read once and written
 *    once, the offsets read once.
 *
 * Elements no segment covers are outside the merge and never touched. Decreasing offsets make a
 * tile find its share invalid (segmented_tile.cuh); it then publishes P with nothing and writes
 * nothing, so every write stays inside [0, n) and the look-back always ends. Float SUM and PROD
 * results can vary in their last bits between runs, as cuprim_scan's look-back does: a tile
 * combines whichever predecessors have published when it looks. */
#include "common/check.h"
#include "common/dispatch.cuh"
#include "common/launch.h"
#include "common/launch_config.cuh"
#include "cta/arch.cuh"
#include "cta/lookback.cuh"
#include "cta/warp_striped.cuh"
#include "scan/scan_internal.h"
#include "segmented_tile.cuh"

namespace cuprim::segmented {
namespace {

template <class T> struct scan_args : merge_io<T> {
  cta::tile_status<acc_t<T>> ts;
  int exclusive;
};

/* The tile kernel: block b scans tile b, through the steps of the file comment. */
template <class T, class Op, class Src>
__global__ void __launch_bounds__(flag_tile<T>::G::THREADS, flag_tile<T>::MIN_BLOCKS)
    merge_scan_kernel(const Src src, const scan_args<T> a) {
  using K = flag_tile<T>;
  using A = typename K::A;
  const Op op;
  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  __shared__ A s_prefix;
  __shared__ typename K::Shared sh;
  sh.clear_flags(t);
  /* The partitions and the zeroed status come from the prepare kernel. */
  cta::pdl_wait();
  /* Tile b is fetched into L2 first (prefetch_tile). On 9.0 thread 0 issues the bulk prefetches;
   * before 9.0 every thread takes its share of the lines (from thread 0 alone, the JIT-compiled
   * 8.0 code was 2.5% slower at segments of 4 and 64 on the H100; every thread on 9.0, 0.1-0.5%
   * slower). */
  const uint64_t b = blockIdx.x;
  if (!cta::has_bulk_prefetch || t == 0)
    prefetch_tile(src, a.part, b, (uint64_t)K::G::TILE, a.in, cta::has_bulk_prefetch ? 0 : t,
                  cta::has_bulk_prefetch ? 1 : K::G::THREADS);
  __syncthreads(); /* the flags are zero before any end sets one */
  const bool vec = cta::aligned16(a.in);
  tile_share s;
  typename K::Smem sm;
  /* Thread t's elements k0 .. k0 + ITEMS - 1 are scanned within their segments, restarting at
   * each flag (each thread touches only its own elements). r.lead counts the elements before its
   * first flag: they continue a segment that may have begun in earlier threads or tiles. Plain
   * loads: in place, other tiles write the same buffer (never this tile's elements). */
  flag_scan<A> r;
  if (!flag_tile_scan<T, Op, true, cta::LOAD_PLAIN>(src, a, b, vec, sh, sm, s, a.exclusive != 0, r,
                                                    t) ||
      s.n_ends + s.n_elems == 0) {
    /* Decreasing offsets, or a tile past the end of the merge (s is the same in every thread):
     * nothing to write, and nothing for the tiles after it to add. */
    if (t == 0)
      a.ts.publish(b, cta::STATUS_P, Op::identity());
    return;
  }
  A *el = sm.elems();
  const uint32_t k0 = (uint32_t)t * K::G::ITEMS, lead = r.lead;
  const flagged<A> ex = r.ex, agg = r.agg;
  /* A tile with a flagged element (or tile 0) knows its inclusive prefix now; so does one whose
   * last end lies after its last element (that end is no element's flag): its successor starts a
   * segment, and what the tile passes on is the identity. */
  const bool closed = s.n_ends > 0 && sm.end(s.n_ends - 1) == s.n_elems;
  const bool known = b == 0 || agg.f || closed;
  if (t == 0)
    a.ts.publish(b, known ? cta::STATUS_P : cta::STATUS_A, closed ? Op::identity() : agg.v);
  const bool open = !ex.f && lead > 0; /* this thread's first elements continue an earlier tile */
  if (__syncthreads_or(open) && b > 0 && warp == 0) {
    const A prefix = cta::look_back<A, Op>(a.ts, b, lane);
    if (lane == 0) {
      if (!known)
        a.ts.publish(b, cta::STATUS_P, op(prefix, agg.v));
      s_prefix = prefix;
    }
  }
  __syncthreads();
  if (lead > 0 && (b > 0 || ex.f || t > 0)) { /* something precedes these elements */
    const A carry = ex.f || b == 0 ? ex.v : (t == 0 ? s_prefix : op(s_prefix, ex.v));
    for (uint32_t k = 0; k < lead; ++k)
      el[k0 + k] = op(carry, el[k0 + k]);
  }
  __syncthreads();
  store_tile<K::G::THREADS, T>(a.out, s.lo, s.n_elems, sm.shift, vec && cta::aligned16(a.out),
                               sm.elems(), t);
}

/* The look-back tiles' status in temporary memory, taken first from `lay`: [status words |
 * (8-byte values) aggregates | inclusive prefixes]; the status words (zero_words of 8 bytes) are
 * what the prepare kernel zeroes. */
template <class A> struct status_pieces {
  typedef cta::tile_status<A> TS;
  size_t status_at, zero_words, aggregate_at, inclusive_at;
  status_pieces(temp_layout &lay, uint64_t tiles) {
    status_at = lay.take((size_t)tiles * TS::STATUS_BYTES);
    zero_words = lay.bytes / 8;
    aggregate_at = TS::HAS_VALUES ? lay.take((size_t)tiles * sizeof(A)) : 0;
    inclusive_at = TS::HAS_VALUES ? lay.take((size_t)tiles * sizeof(A)) : 0;
  }
  void *words(const temp_layout &lay) const { return lay.at<void>(status_at); }
  void place(const temp_layout &lay, TS &ts) const {
    ts.place(words(lay), lay.at<A>(aggregate_at), lay.at<A>(inclusive_at));
  }
};

template <class T, class Op, class Src>
cuprim_status merge_scan(typed_op<T, Op>, const cuprim_ctx *ctx, const void *d_in, void *d_out,
                         const Src &src, uint64_t n, cuprim_scan_kind kind, cudaStream_t stream) {
  typedef acc_t<T> A;
  typedef merge_geometry<A> G;
  uint64_t tiles = 0;
  CUPRIM__FORWARD(merge_tiles(ctx, src.num_segments, n, G::TILE, &tiles));
  /* [the tile status | (offsets) partitions] */
  const bool offsets = !Src::rows;
  temp_layout lay;
  const status_pieces<A> status(lay, tiles);
  const size_t part_at = offsets ? lay.take((size_t)(tiles + 1) * sizeof(merge_point)) : 0;
  return with_temp(ctx, lay, stream, [&] {
    scan_args<T> a;
    point_merge_io<Src>(lay, part_at, static_cast<const T *>(d_in), static_cast<T *>(d_out), a);
    a.exclusive = kind == CUPRIM_EXCLUSIVE;
    status.place(lay, a.ts);
    CUPRIM__FORWARD(prepare(ctx, src, lay.at<merge_point>(part_at), tiles, G::TILE,
                            status.words(lay), status.zero_words, stream));
    return cuprim__cuda_status(launch_chained(ctx, (unsigned)tiles, G::THREADS, 0, stream,
                                              merge_scan_kernel<T, Op, Src>, src, a));
  });
}

/* ---------------------------------------------------------------- rows of one length */

/* cuprim_batched_scan's tiles: warp-striped as cuprim_scan's look-back tiles
 * (cta/warp_striped.cuh), 256 threads, four blocks an SM (64 registers); 24 items a thread for
 * 4-byte elements, 10 for 8-byte ones, and 24 (three vectors) for 16-bit floats, which the thread
 * holds as floats. With 32 items (the look-back kernel's), ptxas (CUDA 13.0, 9.0) spilled 16-80
 * bytes in most 4-byte kernels, and rows of 1 to 1024 took 559-580 us at 2^28 f32 on an H200,
 * where 24 items (and 3 blocks an SM with 32) took 506-537, the copy's time (0.2's twenty-first
 * run; with 3 blocks an SM, rows of 65536 and 2^20 were 2-3% slower than with 4).
 * HEAD_MAX: rows of at most this many elements take the head reads below, at most HEAD_MAX /
 * THREADS a thread. */
template <class T>
struct rows_geometry : cta::geometry<T, sizeof(T) == 8 ? 5 : (sizeof(T) == 2 ? 3 : 6)> {
  static constexpr int THREADS = 256;
  static constexpr int TILE = THREADS * rows_geometry::ITEMS;
  static constexpr int HEAD_MAX = 1024;
};

/* Division by a 64-bit divisor fixed for a launch, as a multiplication (Granlund and Montgomery,
 * "Division by Invariant Integers using Multiplication", 1994, figure 4.1): exact for every
 * 64-bit dividend. The compiler's 64-bit division is a call, around which ptxas (CUDA 13.0) saved
 * 28-80 bytes of a rows_scan_kernel's live tile to local memory in every 4-byte kernel for 9.0. */
struct divisor64 {
  uint64_t d, m;
  int s1, s2;
  static divisor64 of(uint64_t d) { /* d >= 1 */
    divisor64 r;
    int l = 0; /* ceil(log2(d)) */
    while (l < 64 && ((unsigned __int128)1 << l) < d)
      ++l;
    r.d = d;
    r.m = (uint64_t)(((((unsigned __int128)1 << l) - d) << 64) / d + 1);
    r.s1 = l < 1 ? l : 1;
    r.s2 = l > 0 ? l - 1 : 0;
    return r;
  }
  __device__ __forceinline__ uint64_t mod(uint64_t x) const {
    const uint64_t t = __umul64hi(m, x);
    return x - ((t + ((x - t) >> s1)) >> s2) * d;
  }
};

/* The elements from a row position r (an element index mod len) to the next row start: 0 at a
 * start. */
__device__ __forceinline__ uint64_t until_start(uint64_t r, uint64_t len) {
  return r == 0 ? 0 : len - r;
}

template <class T> struct rows_scan_args {
  const T *in;
  T *out;
  uint64_t n, len;
  divisor64 row;           /* len */
  uint64_t lane_step;      /* (32 * VEC) % len: from a thread's vector k to its vector k + 1 */
  unsigned pattern;        /* bits j < VEC at the multiples of min(len, VEC): a vector's row
                              starts, counted from its first one */
  uint64_t prefetch_ahead; /* blocks (scan_tuning.h); 0: none */
  bool prefetch_own, evict_first_stores;
  bool heads; /* rows of at most HEAD_MAX, not in place: head reads, no tile status */
  cta::tile_status<acc_t<T>> ts;
};

/* cuprim_batched_scan: block b scans elements [b * TILE, (b + 1) * TILE) of the rows, the
 * look-back kernel of cuprim_scan (scan_lookback.cu) with its (segment-start, value) pairs made by
 * arithmetic: element i starts a row where i % len == 0, so a tile reads nothing but its
 * elements (and, for short rows, the head of its first row), however short the rows.
 *  - Each thread knows where its first vector stands in its row (one division, by a
 *    multiplication: divisor64) and steps from vector to vector by lane_step; a vector's row
 *    starts are `pattern` shifted to its first one.
 *  - A warp segment without a row start (most of them in rows longer than a tile) is scanned as
 *    the look-back kernel scans (cta::warp_segment_scan). In another, each vector is scanned in
 *    place, restarting at its row starts; the warp's segmented scan of the vectors'
 *    (has-a-start, last value) pairs gives what precedes each vector within the warp segment,
 *    added to its elements before its first start. The exclusive scan (a kernel of its own, as
 *    the look-back kernel's) gives each element its predecessor's inclusive value there, the
 *    identity at a row start. The warps' pairs give each warp what precedes it in the tile.
 *  - Rows of at most HEAD_MAX elements, not in place: the tile reads the head of the row open at
 *    its start itself (below), and no tile waits for another. Otherwise a tile holding a row
 *    start publishes its inclusive prefix (status P) at once: the value of the row it leaves
 *    open. Only a tile whose first element continues a row of earlier tiles looks back (and it
 *    publishes its total as an aggregate first if it holds no start).
 * Improves on the merge-path tiles of the segmented scan (merge_scan_kernel, which the batched
 * scan ran until 0.2's twenty-first run): no ends in the tile, so a tile of rows of 1 holds TILE
 * elements instead of TILE / 2 merge items' worth; no round trip through shared memory; no
 * prepare kernel's partitions (and no prepare kernel for short rows). Measured (H200, 2^28 f32,
 * the copy 505 us; merge tiles before): rows of 1 to 1024 in 504-510 us inclusive, 524-541
 * exclusive (657-1190); 1025 to 4096 556-657 (654-658); 65536 and 2^20 617-654 (657-674).
 * Wastes: a tile whose first row began in an earlier tile and is longer than HEAD_MAX waits for
 * its predecessor's prefix (rows of 1000 with head reads 510 us, without 634: a block that waits
 * holds its slot of the SM), the flags' selects (a few instructions an element; the exclusive
 * kernels for 9.0 spill 16-48 bytes). In place allowed: a tile reads its own elements before it
 * writes them, and nothing of other tiles' (in place, no head reads). */
template <class T, class Op, cuprim_scan_kind KIND>
__global__ void __launch_bounds__(rows_geometry<T>::THREADS, 4)
    rows_scan_kernel(const rows_scan_args<T> a) {
  typedef rows_geometry<T> G;
  typedef acc_t<T> A;
  typedef flagged<A> F;
  constexpr int WARPS = G::THREADS / 32, VEC = G::VEC;
  constexpr unsigned VEC_BITS = (1u << VEC) - 1;
  const Op op;
  __shared__ F warp_totals[WARPS];
  __shared__ A head_parts[WARPS];
  __shared__ A s_prefix;
  __shared__ unsigned s_open;
  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  const uint64_t b = blockIdx.x, base = b * G::TILE;
  /* L2 hints, as the look-back kernel's: the own tile where a.prefetch_own, the tile
   * a.prefetch_ahead blocks later where set. */
  for (int ahead = a.prefetch_own ? 0 : 1; ahead < (a.prefetch_ahead ? 2 : 1); ++ahead) {
    const uint64_t pbase = base + (ahead ? a.prefetch_ahead * G::TILE : 0);
    if (pbase < a.n) {
      const uint64_t pm = a.n - pbase < (uint64_t)G::TILE ? a.n - pbase : (uint64_t)G::TILE;
      cta::prefetch_l2_range(a.in + pbase, (size_t)pm * sizeof(T), t, G::THREADS);
    }
  }
  const uint64_t m = a.n - base < (uint64_t)G::TILE ? a.n - base : (uint64_t)G::TILE;
  const uint64_t seg_base = base + (uint64_t)warp * G::WARP_ITEMS;
  const uint64_t sm = cta::segment_count<G>(m, warp);
  T raw[G::VECS][VEC];
  cta::load_segment<G, T, Op>(a.in, a.n, seg_base, sm, cta::aligned16(a.in), lane, raw);
  /* Head reads (a.heads): the row open at the tile's start began `before_tile` elements earlier
   * (fewer than HEAD_MAX); the block reads those elements itself, HEAD_MAX / THREADS a thread
   * beside its tile's loads, and their combination is the tile's prefix: no tile waits for
   * another. Not in place: the tile before writes those elements. */
  A head = Op::identity();
  if (a.heads) {
    const uint64_t before_tile = a.row.mod(base), from = base - before_tile;
#pragma unroll
    for (int k = 0; k < G::HEAD_MAX / G::THREADS; ++k) {
      const uint64_t i = (uint64_t)t + (uint64_t)k * G::THREADS;
      if (i < before_tile)
        head = op(head, to_acc(cta::load<cta::LOAD_LDG>(a.in + from + i)));
    }
    /* at once, so that nothing of it stays live through the scan (spills otherwise) */
    head = cta::warp_reduce(head, op);
    if (lane == 0)
      head_parts[warp] = head;
  }
  A x[G::VECS][VEC];
#pragma unroll
  for (int k = 0; k < G::VECS; ++k)
    to_acc_n<T, VEC>(raw[k], x[k]);
  /* r: where the thread's vector k stands in its row (element index mod len). */
  uint64_t r = a.row.mod(seg_base + (uint64_t)lane * VEC);
  const uint64_t r_warp = __shfl_sync(cta::full_mask, r, 0); /* the warp segment's first */
  /* The warp segment's elements before its first row start (lim of them) continue the row open
   * before it. */
  const uint64_t dw = until_start(r_warp, a.len);
  const uint32_t lim = dw < (uint64_t)G::WARP_ITEMS ? (uint32_t)dw : (uint32_t)G::WARP_ITEMS;
  F run = seg_identity<Op, A>(); /* the warp segment so far, vectors 0 .. k - 1 of every lane */
  if (lim == (uint32_t)G::WARP_ITEMS) {
    /* No row start in the warp segment (most of them, in rows longer than a tile): the plain
     * scan of cuprim_scan's look-back kernel, without the flags' work. */
    run.v = cta::warp_segment_scan<G, A, Op>(x, lane, cta::fixed_kind<KIND>());
  } else {
#pragma unroll
    for (int k = 0; k < G::VECS; ++k) {
      const uint64_t d = until_start(r, a.len); /* the vector's first row start */
      const unsigned mask = d < (uint64_t)VEC ? (a.pattern << d) & VEC_BITS : 0u;
#pragma unroll
      for (int j = 1; j < VEC; ++j)
        if (!((mask >> j) & 1u))
          x[k][j] = op(x[k][j - 1], x[k][j]);
      F mine;
      mine.v = x[k][VEC - 1];
      mine.f = mask != 0;
      const F inc = warp_seg_scan<Op>(mine, lane);
      const F ex = shfl_up(inc, 1);
      F total;
      total.v = __shfl_sync(cta::full_mask, inc.v, 31);
      total.f = __shfl_sync(cta::full_mask, inc.f, 31);
      /* pre: what precedes the vector in the warp segment since the last row start (nothing for
       * the segment's first vector), added to the vector's elements before its first start */
      const bool has_pre = k > 0 || lane > 0;
      const A pre = lane == 0 ? run.v : seg_combine<Op>(run, ex).v;
      const int lead = mask ? __ffs(mask) - 1 : VEC;
      if constexpr (KIND == CUPRIM_INCLUSIVE) {
#pragma unroll
        for (int j = 0; j < VEC; ++j)
          if (has_pre && j < lead)
            x[k][j] = op(pre, x[k][j]);
      } else { /* each element takes its predecessor's inclusive value; a row start the identity */
#pragma unroll
        for (int j = VEC - 1; j > 0; --j) {
          const A v = has_pre && j - 1 < lead ? op(pre, x[k][j - 1]) : x[k][j - 1];
          x[k][j] = (mask >> j) & 1u ? Op::identity() : v;
        }
        x[k][0] = has_pre && !(mask & 1u) ? pre : Op::identity();
      }
      run = seg_combine<Op>(run, total);
      r += a.lane_step;
      if (r >= a.len)
        r -= a.len;
    }
  }
  if (lane == 0)
    warp_totals[warp] = run;
  if (t == 0)
    s_open = r_warp != 0; /* the tile's first element continues a row of earlier tiles */
  __syncthreads();
  F before = seg_identity<Op, A>(), all = warp_totals[0];
#pragma unroll
  for (int w = 1; w < WARPS; ++w) {
    if (w == warp)
      before = all;
    all = seg_combine<Op>(all, warp_totals[w]);
  }
  const bool open = s_open != 0; /* never for tile 0 */
  if (a.heads) {
    if (open && t == 0) {
      A p = head_parts[0];
#pragma unroll
      for (int w = 1; w < WARPS; ++w)
        p = op(p, head_parts[w]);
      s_prefix = p;
    }
  } else if (warp == 0) {
    cta::pdl_wait(); /* warp 0 alone touches the tile status, which the prepare kernel zeroes */
    if (lane == 0)
      a.ts.publish(b, all.f ? cta::STATUS_P : cta::STATUS_A, all.v);
    if (open) {
      const A p = cta::look_back<A, Op>(a.ts, b, lane);
      if (lane == 0) {
        if (!all.f)
          a.ts.publish(b, cta::STATUS_P, op(p, all.v));
        s_prefix = p;
      }
    }
  }
  if (open)
    __syncthreads();
  /* The warp segment's first lim elements: what precedes them in the tile, after the tile's
   * prefix where their row began in earlier tiles (then the tile is open: warp 0's lim > 0 only
   * if so, another warp's lim > 0 and no start before it in the tile only if so). */
  if (lim > 0) {
    const A carry = warp == 0 ? s_prefix : (before.f ? before.v : op(s_prefix, before.v));
#pragma unroll
    for (int k = 0; k < G::VECS; ++k)
      if ((uint32_t)(k * 32 * VEC) < lim)
#pragma unroll
        for (int j = 0; j < VEC; ++j)
          if (cta::item_offset<G>(k, j, lane) < lim)
            x[k][j] = op(carry, x[k][j]);
  }
#pragma unroll
  for (int k = 0; k < G::VECS; ++k)
    from_acc_n<T, VEC>(x[k], raw[k]);
  cta::store_items<G, T>(a.out + seg_base, sm,
                         sm == (uint64_t)G::WARP_ITEMS && cta::aligned16(a.out), lane, raw,
                         a.evict_first_stores);
}

template <class T, class Op>
cuprim_status rows_scan(typed_op<T, Op>, const cuprim_ctx *ctx, const void *d_in, void *d_out,
                        const rows_source &src, uint64_t n, cuprim_scan_kind kind,
                        cudaStream_t stream) {
  typedef acc_t<T> A;
  typedef rows_geometry<T> G;
  if (n == 0)
    return CUPRIM_SUCCESS;
  uint64_t tiles = 0;
  CUPRIM__FORWARD(merge_tiles(ctx, 0, n, G::TILE, &tiles)); /* a merge of elements alone */
  const cuprim__scan_tuning tune = cuprim__scan_tuning_for(ctx->attrs.code_arch);
  rows_scan_args<T> a;
  a.in = static_cast<const T *>(d_in);
  a.out = static_cast<T *>(d_out);
  a.n = n;
  a.len = src.len;
  a.row = divisor64::of(src.len);
  a.lane_step = (uint64_t)(32 * G::VEC) % src.len;
  const uint64_t period = src.len < (uint64_t)G::VEC ? src.len : (uint64_t)G::VEC;
  a.pattern = 0;
  for (uint64_t j = 0; j < (uint64_t)G::VEC; j += period)
    a.pattern |= 1u << j;
  a.prefetch_ahead = (uint64_t)tune.prefetch_ahead_quarters * (uint64_t)ctx->attrs.sm_count / 4;
  a.prefetch_own = n * sizeof(T) <= tune.prefetch_own_max_bytes;
  a.evict_first_stores = tune.evict_first_stores != 0;
  a.heads = src.len <= (uint64_t)G::HEAD_MAX && d_in != d_out;
  void (*kernel)(const rows_scan_args<T>) = kind == CUPRIM_EXCLUSIVE
                                                ? rows_scan_kernel<T, Op, CUPRIM_EXCLUSIVE>
                                                : rows_scan_kernel<T, Op, CUPRIM_INCLUSIVE>;
  if (a.heads) { /* one launch: no tile status */
    a.ts.place(NULL, NULL, NULL);
    kernel<<<(unsigned)tiles, G::THREADS, 0, stream>>>(a);
    return cuprim__cuda_status(cudaPeekAtLastError());
  }
  temp_layout lay;
  const status_pieces<A> status(lay, tiles);
  return with_temp(ctx, lay, stream, [&] {
    status.place(lay, a.ts);
    CUPRIM__FORWARD(
        prepare(ctx, src, NULL, tiles, G::TILE, status.words(lay), status.zero_words, stream));
    return cuprim__cuda_status(
        launch_chained(ctx, (unsigned)tiles, G::THREADS, 0, stream, kernel, a));
  });
}

} // namespace
} // namespace cuprim::segmented

extern "C" cuprim_status cuprim__segmented_scan(const cuprim_ctx *ctx, const void *d_in,
                                                void *d_out, const cuprim__segments *seg,
                                                cuprim_dtype dtype, cuprim_op op,
                                                cuprim_scan_kind kind, cudaStream_t stream) {
  using namespace cuprim::segmented;
  return dispatch_merge(dtype, op, *seg, [&](auto m, const auto &src) {
    if constexpr (std::decay_t<decltype(src)>::rows)
      return rows_scan(m, ctx, d_in, d_out, src, seg->n, kind, stream);
    else
      return merge_scan(m, ctx, d_in, d_out, src, seg->n, kind, stream);
  });
}
