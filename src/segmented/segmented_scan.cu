/* cuprim_segmented_scan and cuprim_batched_scan: single-pass scans of (segment-start, value)
 * pairs over tiles of elements alone, chained by decoupled look-back (cta/lookback.cuh). Both
 * run one kernel (tiles_scan_kernel, below): the tiles of cuprim_scan's look-back kernel
 * (warp-striped, cta/warp_striped.cuh), with each element's segment-start flag found one of two
 * ways (the kernel's Starts):
 *
 *  - rows of one length (cuprim_batched_scan, row_starts): from the element's index, by
 *    arithmetic; nothing is read but the elements;
 *  - offsets (cuprim_segmented_scan, bit_starts): from a bitmask of n bits, bit i set where a
 *    non-empty segment starts at element i. Before the tiles, a memset clears the bitmask (and the
 *    tile status) and starts_kernel reads every offset once and sets the bit of each segment that
 *    is not empty (below). Empty segments set nothing, so however many there are, a tile's flags
 *    are one 4-byte word per 32 elements, read coalesced: no tile ever walks a run of offsets.
 *    Where segments average four tiles or more (sparse_bit_starts), only the words of tiles that
 *    hold a start are written and read, and a mark a tile says which (below).
 *
 * Until 0.2's twenty-first run (rows) and twenty-second (offsets) both scanned the merge of
 * segment ends and elements (segmented_tile.cuh's merge path, one block per merge tile, the tile
 * staged in shared memory): at segments of 1 half of a tile's items were ends, and the offsets
 * scan reached 46-69% of its byte limit on an H200 (2^28 f32, I32 offsets: 1547 us at segments
 * of 1, 695-815 us from 4 up); the batched scan 43-77%. */
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

/* The tiles: warp-striped as cuprim_scan's look-back tiles (cta/warp_striped.cuh), 256 threads,
 * four blocks an SM (64 registers); 24 items a thread for 4-byte elements (32 in WIDE tiles,
 * below), 10 for 8-byte ones, and 24 (three vectors) for 16-bit floats, which the thread holds
 * as floats. HEAD_MAX: a tile whose first segment began at most this many elements before it
 * reads that segment's head itself (below), at most HEAD_MAX / THREADS elements a thread.
 *
 * WIDE (4-byte elements only): 32 items a thread, the look-back kernel's 32 KB tiles. Where tiles
 * wait on the look-back (segments longer than a tile, or scans in place) a tile's time is mostly
 * that wait, whatever its size, so larger tiles move more bytes a wait; where they read their
 * heads instead (rows of at most HEAD_MAX, not in place) they do not wait, and 24 items are
 * faster. Measured (H200, 2^28 f32 inclusive SUM, I32 offsets, a timing program of 0.2's
 * thirty-first run, us, 24 -> 32 items): offsets, segments of 4096 597.8 -> 528.2, 65536 664.4
 * -> 604.1, 2^20 689.4 -> 638.0, and 1 to 1024 the same (824, 555, 531); rows of 4096 555.0 ->
 * 528.5, 65536 615.7 -> 588.7, 2^20 640.7 -> 621.4, but rows of 1 to 1024 with head reads 503.5 ->
 * 516.0; exclusive, offsets 4096 608.1 -> 560.9, 65536 667.7 -> 627.9, 2^20 691.4 -> 655.8,
 * rows 575.2 -> 532.5, 628.6 -> 586.6, 654.1 -> 612.0; in place alike. So offsets always take WIDE
 * tiles, rows where they do not read heads. With 32 items ptxas (CUDA 13.0, 9.0) spills in most
 * 4-byte kernels, up to 52 bytes in the inclusive ones (none in the f32 ones with offsets) and
 * 36-168 in the f32 exclusive ones, which are faster all the same. Until 0.2's thirty-first run
 * every tile had 24 items: the twenty-first run had found 32 items slower for rows of 1 to 1024
 * (559-580 us against 506-537, head reads) and, at three blocks an SM, 2-3% slower than at four
 * for rows of 65536 and 2^20. */
template <class T> constexpr bool has_wide_tiles = sizeof(T) == 4;
template <class T, bool WIDE = false>
struct tiles_geometry
    : cta::geometry<T, sizeof(T) == 8 ? 5 : (sizeof(T) == 2 ? 3 : (WIDE ? 8 : 6))> {
  static_assert(!WIDE || has_wide_tiles<T>, "WIDE: 4-byte elements");
  static constexpr int THREADS = 256;
  static constexpr int TILE = THREADS * tiles_geometry::ITEMS;
  static constexpr int HEAD_MAX = 1024;
  /* a warp segment's flags are ITEMS words of a bitmask, one a lane (bit_cursor) */
  static_assert(tiles_geometry::ITEMS <= 32 && 32 % tiles_geometry::VEC == 0, "flag words");
};

/* Division by a 64-bit divisor fixed for a launch, as a multiplication (Granlund and Montgomery,
 * "Division by Invariant Integers using Multiplication", 1994, figure 4.1): exact for every
 * 64-bit dividend. The compiler's 64-bit division is a call, around which ptxas (CUDA 13.0) saved
 * 28-80 bytes of a tiles_scan_kernel's live tile to local memory in every 4-byte kernel for 9.0. */
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

/* Rows of one length: element i starts a row where i % len == 0. */
struct row_starts {
  uint64_t len;
  divisor64 row;      /* len */
  uint64_t lane_step; /* (32 * VEC) % len: from a thread's vector k to its vector k + 1 */
  unsigned pattern;   /* bits j < VEC at the multiples of min(len, VEC): a vector's row starts,
                         counted from its first one */
};

/* A warp segment's row starts: each thread knows where its first vector stands in its row (one
 * division, by a multiplication: divisor64) and steps from vector to vector by lane_step; a
 * vector's starts are `pattern` shifted to its first one. */
template <class G> struct row_cursor {
  static constexpr unsigned VEC_BITS = (1u << G::VEC) - 1;
  const row_starts &s;
  uint64_t r; /* where the thread's next vector stands in its row (element index mod len) */
  uint64_t r_warp;
  __device__ __forceinline__ row_cursor(const row_starts &s_, uint64_t seg_base, int lane)
      : s(s_), r(s_.row.mod(seg_base + (uint64_t)lane * G::VEC)),
        r_warp(__shfl_sync(cta::full_mask, r, 0)) {}
  /* The warp segment's elements before its first start (WARP_ITEMS: none starts there). */
  __device__ __forceinline__ uint32_t lead() const {
    const uint64_t dw = until_start(r_warp, s.len);
    return dw < (uint64_t)G::WARP_ITEMS ? (uint32_t)dw : (uint32_t)G::WARP_ITEMS;
  }
  /* The starts of the thread's vector k (bit j: its element j), for k = 0, 1, ... in turn. */
  __device__ __forceinline__ unsigned mask(int) {
    const uint64_t d = until_start(r, s.len);
    const unsigned m = d < (uint64_t)G::VEC ? (s.pattern << d) & VEC_BITS : 0u;
    r += s.lane_step;
    if (r >= s.len)
      r -= s.len;
    return m;
  }
  /* Whether the warp segment's first element starts a segment. */
  __device__ __forceinline__ bool first_starts() const { return r_warp == 0; }
};

/* Offsets: bit i of `bits` (words = ceil(n / 32) of them) set where a non-empty segment starts
 * at element i; range[0] and range[1] the first offset and the last, clamped. With
 * non-decreasing offsets the segments cover [range[0], range[1]). Every word written (the memset
 * and starts_kernel), so every tile's words hold its starts. */
struct bit_starts {
  static constexpr bool HEAD_READS = true; /* tiles may read heads (tiles_scan_kernel) */
  const unsigned *bits;
  uint64_t words;
  const uint64_t *range;
  /* Whether tile b's words hold its starts (sparse_bit_starts: where not, it has none). */
  __device__ __forceinline__ bool holds(uint64_t) const { return true; }
};

/* Sparse starts (below): only the words of the tiles that marked[b] marks are written; the others
 * are never read. A kind of its own, so that the kernels of every other layout test no mark. No
 * head reads: a tile whose segment began in the tile before looks back to it (one tile, which
 * holds a start and so publishes its prefix at once). Reading tile b - 1's mark for them made
 * ptxas (CUDA 13.0, 9.0) spill 24 bytes in the f32 inclusive kernel, which then took 14-19 us
 * more at 2^28 in segments of 16384 to 2^20 (H200, 0.2's thirty-second run). */
struct sparse_bit_starts : bit_starts {
  static constexpr bool HEAD_READS = false;
  const unsigned char *marked;
  __device__ __forceinline__ bool holds(uint64_t b) const { return marked[b] != 0; }
};

/* A warp segment's starts from the bitmask: its WARP_ITEMS bits are ITEMS words (warp segments
 * begin at multiples of 32 elements), lane l holding word l; a vector's VEC bits lie in one
 * word, which a shuffle brings to the lane. */
template <class G> struct bit_cursor {
  static constexpr unsigned VEC_BITS = (1u << G::VEC) - 1;
  unsigned word;
  int lane;
  template <class B>
  __device__ __forceinline__ bit_cursor(const B &s, uint64_t seg_base, int lane_) : lane(lane_) {
    const uint64_t w = seg_base / 32 + (uint64_t)lane;
    word = lane < G::ITEMS && w < s.words && s.holds(seg_base / G::TILE) ? s.bits[w] : 0u;
  }
  __device__ __forceinline__ uint32_t lead() const {
    const unsigned any = __ballot_sync(cta::full_mask, word != 0);
    const int f = any ? __ffs(any) - 1 : 0;
    const unsigned first = __shfl_sync(cta::full_mask, word, f);
    return any ? (uint32_t)f * 32 + (uint32_t)(__ffs(first) - 1) : (uint32_t)G::WARP_ITEMS;
  }
  __device__ __forceinline__ unsigned mask(int k) const {
    const unsigned w = __shfl_sync(cta::full_mask, word, k * G::VEC + lane * G::VEC / 32);
    return (w >> (lane * G::VEC % 32)) & VEC_BITS;
  }
  __device__ __forceinline__ bool first_starts() const {
    return __shfl_sync(cta::full_mask, word, 0) & 1u;
  }
};

template <class S, class G> struct cursor_of;
template <class G> struct cursor_of<row_starts, G> { typedef row_cursor<G> type; };
template <class G> struct cursor_of<bit_starts, G> { typedef bit_cursor<G> type; };
template <class G> struct cursor_of<sparse_bit_starts, G> { typedef bit_cursor<G> type; };

template <class T, class S> struct tiles_scan_args {
  const T *in;
  T *out;
  uint64_t n;
  S starts;
  uint64_t prefetch_ahead; /* blocks (scan_tuning.h); 0: none */
  bool prefetch_own, evict_first_stores;
  bool heads; /* not in place: tiles may read their first segment's head (rows: every tile, and
                 there is no tile status) */
  cta::tile_status<acc_t<T>> ts;
};

/* Block b scans elements [b * TILE, (b + 1) * TILE), the look-back kernel of cuprim_scan
 * (scan_lookback.cu) with (segment-start, value) pairs, the starts from S (the file comment).
 *  - A warp segment without a start (most of them, in segments longer than a tile) is scanned as
 *    the look-back kernel scans (cta::warp_segment_scan). In another, each vector is scanned in
 *    place, restarting at its starts; the warp's segmented scan of the vectors' (has-a-start,
 *    last value) pairs gives what precedes each vector within the warp segment, added to its
 *    elements before its first start. The exclusive scan (a kernel of its own, as the look-back
 *    kernel's) gives each element its predecessor's inclusive value there, the identity at a
 *    start. The warps' pairs give each warp what precedes it in the tile.
 *  - Head reads (not in place): where the segment open at the tile's first element began at most
 *    HEAD_MAX elements earlier, the tile reads those elements itself, beside its own loads, and
 *    waits for no other tile. Rows: every tile (rows of at most HEAD_MAX), and there is no tile
 *    status. Offsets: the tile finds that start in the HEAD_MAX bits before it (one word a lane);
 *    sparse starts read no heads (sparse_bit_starts).
 *  - Otherwise a tile holding a start publishes its inclusive prefix (status P) at once: the
 *    value of the segment it leaves open. Only a tile whose first element continues a segment of
 *    earlier tiles looks back (and it publishes its total as an aggregate first if it holds no
 *    start).
 *  - Offsets: a tile with no element in [range[0], range[1]) publishes P of the identity and
 *    stops; the others store only their elements in that range, so elements no segment covers
 *    are never written. Decreasing offsets give flags and a range that mean nothing, but every
 *    bit read lies in the bitmask, every element read or written in [0, n), and every tile
 *    publishes P, so the look-back ends.
 * Improves on the merge-path tiles (merge_scan_kernel until 0.2's twenty-second run): no ends in
 * the tile, so a tile of segments of 1 holds TILE elements instead of TILE / 2 merge items'
 * worth; no round trip through shared memory. Measured (H200, 2^28 f32, the copy 505 us; merge
 * tiles before): rows of 1 to 1024 in 504-510 us inclusive, 524-541 exclusive (657-1190);
 * 1025 to 4096 556-657 (654-658); 65536 and 2^20 617-654 (657-674). Offsets (I32; cuprim-bench,
 * 0.2's twenty-second run): segments of 1 917 us (1547), 4 to 1024 536-635 (704-815), 4096 607
 * (700), 65536 and 2^20 670-699 (695-713). Wastes: a tile whose first segment began more than
 * HEAD_MAX elements earlier, in an earlier tile, waits for its predecessor's prefix (rows of 1000
 * with head reads 510 us, without 634: a block that waits holds its slot of the SM), the flags'
 * selects (a few instructions an element; the exclusive kernels for 9.0 spill 16-48 bytes, the
 * f32 ones in WIDE tiles 36-168); offsets: a pass over them before the tiles, and the bitmask (a
 * memset of n / 8 bytes, as much written and read again; with sparse starts a mark a tile, and the
 * words of the marked tiles). In place allowed: a tile reads its own elements before it writes
 * them, and nothing of other tiles' (in place, no head reads). */
template <class T, class Op, cuprim_scan_kind KIND, class S, bool WIDE>
__global__ void __launch_bounds__(tiles_geometry<T, WIDE>::THREADS, 4)
    tiles_scan_kernel(const tiles_scan_args<T, S> a) {
  typedef tiles_geometry<T, WIDE> G;
  typedef acc_t<T> A;
  typedef flagged<A> F;
  constexpr bool BITS = std::is_base_of<bit_starts, S>::value;
  constexpr int WARPS = G::THREADS / 32, VEC = G::VEC;
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
  /* Offsets: the bitmask, the range and the tile status come from the memset and starts_kernel;
   * once they are there, every load the tile begins with is issued at once (its elements, the
   * range, its flags and the HEAD_MAX flags before it, which only open tiles use): one latency
   * before the scan, where loads that wait for others' results took three (8% slower at segments
   * of 1 and 16, 26% at 1000 in ncu: 0.2's twenty-second run). */
  if constexpr (BITS)
    cta::pdl_wait();
  T raw[G::VECS][VEC];
  cta::load_segment<G, T, Op>(a.in, a.n, seg_base, sm, cta::aligned16(a.in), lane, raw);
  typename cursor_of<S, G>::type starts(a.starts, seg_base, lane);
  uint64_t lo = 0, hi = a.n;
  bool open = false, by_head = a.heads;
  uint64_t before_tile = 0; /* by_head: where the open segment began, counted back from base */
  if constexpr (BITS) {
    static_assert(G::HEAD_MAX == 32 * 32, "one bitmask word a lane");
    const uint64_t wb = base / 32;
    lo = a.starts.range[0];
    hi = a.starts.range[1];
    const unsigned first = a.starts.holds(b) ? a.starts.bits[wb] : 0u;
    const unsigned near =
        S::HEAD_READS && a.heads && wb + (uint64_t)lane >= 32 ? a.starts.bits[wb + lane - 32] : 0u;
    if (base >= hi || base + m <= lo) {
      if (t == 0)
        a.ts.publish(b, cta::STATUS_P, Op::identity());
      return;
    }
    open = b > 0 && base > lo && !(first & 1u);
    /* the last start in the HEAD_MAX elements before the tile */
    const unsigned hits = __ballot_sync(cta::full_mask, near != 0);
    const int h = 31 - __clz(hits);
    const unsigned wh = __shfl_sync(cta::full_mask, near, h < 0 ? 0 : h);
    by_head = open && hits != 0;
    before_tile = by_head ? 32 * (uint64_t)(32 - h) - (uint64_t)(31 - __clz(wh)) : 0;
  } else if (a.heads) {
    before_tile = a.starts.row.mod(base);
  }
  /* Head reads: the segment open at the tile's start began `before_tile` elements earlier (at
   * most HEAD_MAX); the block reads those elements itself, HEAD_MAX / THREADS a thread beside its
   * tile's loads, and their combination is the tile's prefix. Not in place: the tile before
   * writes those elements. */
  A head = Op::identity();
  if (by_head) {
    const uint64_t from = base - before_tile;
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
  /* The warp segment's elements before its first start (lim of them) continue the segment open
   * before it. */
  const uint32_t lim = starts.lead();
  F run = seg_identity<Op, A>(); /* the warp segment so far, vectors 0 .. k - 1 of every lane */
  if (lim == (uint32_t)G::WARP_ITEMS) {
    /* No start in the warp segment: the plain scan of cuprim_scan's look-back kernel, without
     * the flags' work. */
    run.v = cta::warp_segment_scan<G, A, Op>(x, lane, cta::fixed_kind<KIND>());
  } else {
#pragma unroll
    for (int k = 0; k < G::VECS; ++k) {
      const unsigned mask = starts.mask(k);
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
      /* pre: what precedes the vector in the warp segment since the last start (nothing for the
       * segment's first vector), added to the vector's elements before its first start */
      const bool has_pre = k > 0 || lane > 0;
      const A pre = lane == 0 ? run.v : seg_combine<Op>(run, ex).v;
      const int lead = mask ? __ffs(mask) - 1 : VEC;
      if constexpr (KIND == CUPRIM_INCLUSIVE) {
#pragma unroll
        for (int j = 0; j < VEC; ++j)
          if (has_pre && j < lead)
            x[k][j] = op(pre, x[k][j]);
      } else { /* each element takes its predecessor's inclusive value; a start the identity */
#pragma unroll
        for (int j = VEC - 1; j > 0; --j) {
          const A v = has_pre && j - 1 < lead ? op(pre, x[k][j - 1]) : x[k][j - 1];
          x[k][j] = (mask >> j) & 1u ? Op::identity() : v;
        }
        x[k][0] = has_pre && !(mask & 1u) ? pre : Op::identity();
      }
      run = seg_combine<Op>(run, total);
    }
  }
  if (lane == 0)
    warp_totals[warp] = run;
  if constexpr (!BITS) {
    if (t == 0)
      s_open = !starts.first_starts(); /* the tile's first element continues an earlier row */
  }
  __syncthreads();
  F before = seg_identity<Op, A>(), all = warp_totals[0];
#pragma unroll
  for (int w = 1; w < WARPS; ++w) {
    if (w == warp)
      before = all;
    all = seg_combine<Op>(all, warp_totals[w]);
  }
  if constexpr (!BITS)
    open = s_open != 0; /* never for tile 0 */
  if (by_head) {
    if (open && t == 0) {
      A p = head_parts[0];
#pragma unroll
      for (int w = 1; w < WARPS; ++w)
        p = op(p, head_parts[w]);
      s_prefix = p;
      if constexpr (BITS) /* for the tiles after it that look back */
        a.ts.publish(b, cta::STATUS_P, all.f ? all.v : op(p, all.v));
    }
  } else if (warp == 0) {
    if constexpr (!BITS)
      cta::pdl_wait(); /* warp 0 alone touches the tile status, which the prepare kernel zeroes */
    /* a tile that is not open has nothing before it: its prefix is known now */
    if (lane == 0)
      a.ts.publish(b, all.f || !open ? cta::STATUS_P : cta::STATUS_A, all.v);
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
   * prefix where their segment began in earlier tiles (where the tile is open). Elements before
   * the tile's first start in a tile that is not open (offsets: before range[0]) are stored by
   * no one. */
  if (lim > 0) {
    const A tile_prefix = open ? s_prefix : Op::identity();
    const A carry = warp == 0 ? tile_prefix : (before.f ? before.v : op(tile_prefix, before.v));
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
  if constexpr (BITS) { /* only [lo, hi): elements no segment covers are left as they are */
    const uint64_t from = lo > seg_base ? (lo - seg_base < sm ? lo - seg_base : sm) : 0;
    const uint64_t to = hi < seg_base + sm ? (hi > seg_base ? hi - seg_base : 0) : sm;
    if (from > 0 || to < sm) {
      cta::move_items_by_element<G, false>(a.out + seg_base, to, lane, raw, T(), from);
      return;
    }
  }
  cta::store_items<G, T>(a.out + seg_base, sm,
                         sm == (uint64_t)G::WARP_ITEMS && cta::aligned16(a.out), lane, raw,
                         a.evict_first_stores);
}

/* The arguments every tiles_scan_kernel launch shares: the buffers and the L2 hints
 * (scan_tuning.h, as cuprim_scan's look-back kernel takes them). */
template <class T, class S>
void tiles_common(const cuprim_ctx *ctx, const void *d_in, void *d_out, uint64_t n,
                  tiles_scan_args<T, S> &a) {
  const cuprim__scan_tuning tune = cuprim__scan_tuning_for(ctx->attrs.code_arch);
  a.in = static_cast<const T *>(d_in);
  a.out = static_cast<T *>(d_out);
  a.n = n;
  a.prefetch_ahead = (uint64_t)tune.prefetch_ahead_quarters * (uint64_t)ctx->attrs.sm_count / 4;
  a.prefetch_own = n * sizeof(T) <= tune.prefetch_own_max_bytes;
  a.evict_first_stores = tune.evict_first_stores != 0;
}

template <class T, class Op, class S, bool WIDE> auto tiles_kernel(cuprim_scan_kind kind) {
  return kind == CUPRIM_EXCLUSIVE ? tiles_scan_kernel<T, Op, CUPRIM_EXCLUSIVE, S, WIDE>
                                  : tiles_scan_kernel<T, Op, CUPRIM_INCLUSIVE, S, WIDE>;
}

/* cuprim_batched_scan: rows of at most HEAD_MAX, not in place, take one launch (head reads, no
 * tile status); others the prepare kernel (the status zeroed) and the tiles chained to it, in WIDE
 * tiles where the elements take them (tiles_geometry). */
template <class T, class Op, bool WIDE>
cuprim_status rows_tiles(const cuprim_ctx *ctx, const void *d_in, void *d_out,
                         const rows_source &src, uint64_t n, bool heads, cuprim_scan_kind kind,
                         cudaStream_t stream) {
  typedef acc_t<T> A;
  typedef tiles_geometry<T, WIDE> G;
  uint64_t tiles = 0;
  CUPRIM__FORWARD(merge_tiles(ctx, 0, n, G::TILE, &tiles)); /* a merge of elements alone */
  tiles_scan_args<T, row_starts> a;
  tiles_common(ctx, d_in, d_out, n, a);
  a.starts.len = src.len;
  a.starts.row = divisor64::of(src.len);
  a.starts.lane_step = (uint64_t)(32 * G::VEC) % src.len;
  const uint64_t period = src.len < (uint64_t)G::VEC ? src.len : (uint64_t)G::VEC;
  a.starts.pattern = 0;
  for (uint64_t j = 0; j < (uint64_t)G::VEC; j += period)
    a.starts.pattern |= 1u << j;
  a.heads = heads;
  void (*kernel)(const tiles_scan_args<T, row_starts>) =
      tiles_kernel<T, Op, row_starts, WIDE>(kind);
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

template <class T, class Op>
cuprim_status rows_scan(typed_op<T, Op>, const cuprim_ctx *ctx, const void *d_in, void *d_out,
                        const rows_source &src, uint64_t n, cuprim_scan_kind kind,
                        cudaStream_t stream) {
  if (n == 0)
    return CUPRIM_SUCCESS;
  const bool heads = src.len <= (uint64_t)tiles_geometry<T>::HEAD_MAX && d_in != d_out;
  if constexpr (has_wide_tiles<T>) {
    if (!heads)
      return rows_tiles<T, Op, true>(ctx, d_in, d_out, src, n, heads, kind, stream);
  }
  return rows_tiles<T, Op, false>(ctx, d_in, d_out, src, n, heads, kind, stream);
}

/* ---------------------------------------------------------------- offsets */

constexpr int STARTS_THREADS = 256, STARTS_PER_THREAD = 16, STARTS_WINDOW = 512;

/* bit_starts::range: the first offset and the last, clamped (one thread of starts_kernel or
 * mark_tiles_kernel). */
template <class Src> __device__ __forceinline__ void put_range(const Src &src, uint64_t *range) {
  range[0] = src.at(0);
  range[1] = src.at(src.num_segments);
}

/* The bitmask of segment starts (bit_starts). Thread t of a block takes STARTS_PER_THREAD
 * consecutive segments of its block's chunk, grid-stride over chunks (by whole blocks: a warp's
 * lanes take consecutive runs), reads their offsets (16-byte loads where the offsets are aligned;
 * one more, the last one's end) and gathers the starts of its non-empty segments word by word in
 * a register, ORing each word in when the next start leaves it: into the warp's window of
 * STARTS_WINDOW words in shared memory where the word is among the first STARTS_WINDOW of the
 * warp's (all of them for segments of up to about 32 elements: a warp's 512 segments in 16384
 * bits), else into the bitmask with an atomic. The warp then writes its window's non-zero words
 * with coalesced stores: the words between its first and last belong to it alone (non-decreasing
 * offsets put no other warp's starts there), and those two, which a neighbouring warp may share,
 * take an atomic. Positions are held in the offsets' own width (every clamped offset fits it):
 * 4-byte offsets take 32-bit arithmetic. Block 0 also writes the range. The bitmask must be zero
 * before. Decreasing offsets may set wrong bits, never one past the bitmask: every bit set is a
 * start below n. Until 0.2's twenty-second run each thread took one segment and the lanes of a word
 * found each other by match.any: 1153 us at 2^28 segments of 1 on an H200 (1 GB of I32 offsets; 73
 * instructions a warp per 32 segments), 319 us at 2^24 (16 runs of peers a warp, reduced one
 * after another); 16 segments a thread with every word a global atomic: 292 and 98 us, 61.5 at
 * 2^22 (the atomics' sectors, 12.6 and 6.3 million, scattered a lane apart); 8 a thread with the
 * window: 418, 40 and 34 us (286 million instructions at 2^28: bound by them). A window of 1024
 * words (32 KB a block: six blocks an SM on 9.0) until 0.2's twenty-fourth run; 512 (16 KB: eight)
 * took the segmented scan at segments of 1 from 917.5 to 822.3 us (H200, 2^28 f32, I32 offsets;
 * 635 -> 609 at 4, 565.6 -> 556.9 at 16). */
template <class Src>
__global__ void __launch_bounds__(STARTS_THREADS)
    starts_kernel(const Src src, unsigned *bits, uint64_t *range) {
  typedef typename Src::raw_t O;
  constexpr int K = STARTS_PER_THREAD, PER_VEC = 16 / (int)sizeof(O);
  static_assert(K % PER_VEC == 0, "whole vectors");
  __shared__ unsigned window[STARTS_THREADS / 32][STARTS_WINDOW];
  cta::pdl_launch_dependents(); /* the tiles wait for this grid in pdl_wait */
  const int t = threadIdx.x, lane = t % 32;
  unsigned *win = window[t / 32];
  for (int i = lane; i < STARTS_WINDOW; i += 32)
    win[i] = 0;
  __syncwarp();
  const uint64_t segs = src.num_segments, chunk = (uint64_t)STARTS_THREADS * K;
  if (blockIdx.x == 0 && t == 0)
    put_range(src, range);
  const O *offsets = static_cast<const O *>(src.offsets);
  const O n_o = src.narrow_n();
  const bool vec = cta::aligned16(offsets); /* then so is every thread's first (K * 4 bytes on) */
  for (uint64_t c = (uint64_t)blockIdx.x * chunk; c < segs; c += (uint64_t)gridDim.x * chunk) {
    const uint64_t s0 = c + (uint64_t)t * K;
    O p[K + 1]; /* offsets s0 .. s0 + K, clamped; past the last one 0 */
    if (s0 + K <= segs) {
      O raw[K / PER_VEC][PER_VEC];
#pragma unroll
      for (int q = 0; q < K / PER_VEC; ++q) {
        if (vec) {
          cta::load_vec16<cta::LOAD_LDG>(offsets + s0 + q * PER_VEC, raw[q]);
        } else {
#pragma unroll
          for (int j = 0; j < PER_VEC; ++j)
            raw[q][j] = src.raw(s0 + q * PER_VEC + j);
        }
      }
#pragma unroll
      for (int j = 0; j < K; ++j)
        p[j] = src.clamp_narrow(raw[j / PER_VEC][j % PER_VEC], n_o);
      p[K] = (O)src.at(s0 + K);
    } else {
#pragma unroll
      for (int j = 0; j <= K; ++j)
        p[j] = s0 + j <= segs ? (O)src.at(s0 + j) : (O)0;
    }
    /* The warp's words: from its first offset's to its last one's (its last segment's end: lane
     * 31's p[K], or where the warp reaches past the last segment, the last offset). */
    const uint64_t warp_end = c + (uint64_t)(t / 32 + 1) * 32 * K;
    O last = __shfl_sync(cta::full_mask, p[K], 31);
    if (warp_end > segs)
      last = (O)src.at(segs);
    const O first = __shfl_sync(cta::full_mask, p[0], 0) / 32, span = last / 32 - first;
    /* The window holds words first .. first + top; the others take global atomics. */
    const int top = span < (O)STARTS_WINDOW ? (int)span : STARTS_WINDOW - 1; /* (wrapped: huge) */
    const auto put = [&](O w, unsigned b) {
      if (w - first <= (O)top) /* (decreasing offsets: not always) */
        atomicOr(win + (w - first), b);
      else
        atomicOr(bits + w, b);
    };
    O w = 0; /* the word being gathered, b its bits */
    unsigned b = 0;
#pragma unroll
    for (int j = 0; j < K; ++j)
      if (p[j] < p[j + 1]) { /* segment s0 + j is not empty (and exists) */
        if (p[j] / 32 != w) {
          if (b != 0)
            put(w, b);
          w = p[j] / 32;
          b = 0;
        }
        b |= 1u << (p[j] % 32);
      }
    if (b != 0)
      put(w, b);
    __syncwarp();
    for (int i = lane; i <= top; i += 32) {
      const unsigned v = win[i];
      if (v != 0) { /* a start below n was set: a word of the bitmask */
        if (i == 0 || (O)i == span)
          atomicOr(bits + first + i, v);
        else
          bits[first + i] = v;
        win[i] = 0;
      }
    }
    __syncwarp();
  }
}

/* Sparse starts: where segments average at least SPARSE_MIN_TILES tiles (num_segments * TILE *
 * SPARSE_MIN_TILES <= n: the host knows both), most tiles hold no start, and the memset of the
 * whole bitmask (n / 8 bytes), the tiles' reads of it and starts_kernel are what the starts cost
 * (at 2^28 f32 in segments of 2^20 on an H200, 22 us of the call's 642). Then only the words of
 * tiles that hold a segment start are written: a memset of one mark a tile (with the tile
 * status), mark_tiles_kernel, in which the first segment starting in each tile (by index: the
 * offset before it lies in an earlier tile) marks the tile and has its block zero the tile's
 * words, and sparse_starts_kernel, chained to it, which sets the bit of each non-empty segment
 * whose tile is marked (all of them where the offsets do not decrease). A tile reads its words
 * only where its mark is set (bit_starts::holds). The work is a thread a segment and a tile's
 * words a marked tile, however the starts cluster. Decreasing offsets may leave a start's tile
 * unmarked (its bit is then not set) or mark a tile twice (the same zeros): every word written or
 * read is in the bitmask. Measured (H200, 2^28 f32 inclusive SUM, I32 offsets, uniform segments,
 * a timing program, two runs a side, us, the bitmask of every word -> sparse starts for every
 * layout): 2^20 642 -> 620, 65536 605 -> 596, 32768 594 -> 589, 16384 575 -> 577 (so
 * SPARSE_MIN_TILES is 4: at an average of two tiles half of the tiles are marked); exclusive 653
 * -> 632, 626 -> 614, 617 -> 610, 600 -> 599; in place 637 -> 617, 602 -> 593, 589 -> 586, 571
 * -> 573. The first mark_tiles_kernel, a warp zeroing its first segments' tiles one after
 * another, took 9.9 us under ncu at segments of 65536 (now 5.3; sparse_starts_kernel 2.9 and
 * starts_kernel 5.4). */
constexpr int SPARSE_THREADS = 256, MARK_SEGMENTS = 64;
constexpr uint64_t SPARSE_MIN_TILES = 4;

/* Block c looks at segments [c * MARK_SEGMENTS, (c + 1) * MARK_SEGMENTS) (grid-stride), one a
 * thread, and its SPARSE_THREADS threads zero the tiles of the first ones among them with 16-byte
 * stores (a tile's words are a whole number of 16-byte vectors, 16-byte aligned). */
template <class Src>
__global__ void __launch_bounds__(SPARSE_THREADS)
    mark_tiles_kernel(const Src src, uint64_t tile, unsigned *bits, uint64_t words,
                      unsigned char *marked, uint64_t *range) {
  __shared__ uint64_t firsts[MARK_SEGMENTS]; /* the tiles to zero */
  __shared__ int count;
  cta::pdl_launch_dependents(); /* sparse_starts_kernel waits for this grid in pdl_wait */
  const uint64_t segs = src.num_segments, n = src.n, tile_words = tile / 32;
  const int t = threadIdx.x, tile_vecs = (int)(tile_words / 4);
  if (blockIdx.x == 0 && t == 0)
    put_range(src, range);
  for (uint64_t k0 = (uint64_t)blockIdx.x * MARK_SEGMENTS; k0 < segs;
       k0 += (uint64_t)gridDim.x * MARK_SEGMENTS) {
    if (t == 0)
      count = 0;
    __syncthreads();
    const uint64_t k = k0 + (uint64_t)t;
    if (t < MARK_SEGMENTS && k < segs) {
      const uint64_t o = src.at(k), b = o / tile;
      if (o < n && (k == 0 || src.at(k - 1) / tile < b)) {
        firsts[atomicAdd(&count, 1)] = b;
        marked[b] = 1;
      }
    }
    __syncthreads();
    const int vecs = count * tile_vecs;
    for (int i = t; i < vecs; i += SPARSE_THREADS) {
      const uint64_t w = firsts[i / tile_vecs] * tile_words + (uint64_t)(i % tile_vecs) * 4;
      if (w + 4 <= words) {
        *reinterpret_cast<uint4 *>(bits + w) = make_uint4(0u, 0u, 0u, 0u);
      } else {
        for (uint64_t j = w; j < words; ++j)
          bits[j] = 0u;
      }
    }
    __syncthreads(); /* before count is reset */
  }
}

template <class Src>
__global__ void __launch_bounds__(SPARSE_THREADS)
    sparse_starts_kernel(const Src src, uint64_t tile, unsigned *bits,
                         const unsigned char *marked) {
  cta::pdl_launch_dependents(); /* the tiles wait for this grid in pdl_wait */
  cta::pdl_wait();              /* the marks and the zeroed words */
  for (uint64_t k = (uint64_t)blockIdx.x * SPARSE_THREADS + threadIdx.x; k < src.num_segments;
       k += (uint64_t)gridDim.x * SPARSE_THREADS) {
    const uint64_t o = src.at(k);
    if (o < src.at(k + 1) && marked[o / tile]) /* not empty: o < n */
      atomicOr(bits + o / 32, 1u << (o % 32));
  }
}

/* cuprim_segmented_scan: [bitmask | tile status] zeroed by one memset and starts_kernel, or for
 * sparse starts [marks | tile status] zeroed, mark_tiles_kernel and sparse_starts_kernel; then the
 * tiles chained to the last (WIDE tiles where the elements take them: tiles_geometry). */
template <class T, class Op, class Src>
cuprim_status offsets_scan(typed_op<T, Op>, const cuprim_ctx *ctx, const void *d_in, void *d_out,
                           const Src &src, uint64_t n, cuprim_scan_kind kind, cudaStream_t stream) {
  typedef acc_t<T> A;
  constexpr bool WIDE = has_wide_tiles<T>; /* WIDE tiles where the elements take them */
  typedef tiles_geometry<T, WIDE> G;
  static_assert(G::TILE % 128 == 0, "a tile's words: whole 16-byte vectors (mark_tiles_kernel)");
  uint64_t tiles = 0;
  CUPRIM__FORWARD(merge_tiles(ctx, 0, n, G::TILE, &tiles)); /* a merge of elements alone */
  const uint64_t words = n / 32 + (n % 32 != 0);
  const bool sparse = src.num_segments <= n / (SPARSE_MIN_TILES * G::TILE);
  temp_layout lay; /* what the memset zeroes first, then the rest */
  const size_t zeroed_at = lay.take(sparse ? (size_t)tiles : (size_t)words * sizeof(unsigned));
  const status_pieces<A> status(lay, tiles); /* zero_words: the above and the status words */
  const size_t bits_at = sparse ? lay.take((size_t)words * sizeof(unsigned)) : zeroed_at;
  const size_t range_at = lay.take(2 * sizeof(uint64_t));
  return with_temp(ctx, lay, stream, [&] {
    bit_starts starts;
    unsigned *bits = lay.at<unsigned>(bits_at);
    uint64_t *range = lay.at<uint64_t>(range_at);
    starts.bits = bits;
    starts.words = words;
    starts.range = range;
    /* the tiles, chained to the last launch */
    const auto launch_tiles = [&](const auto &s) {
      typedef std::decay_t<decltype(s)> S;
      tiles_scan_args<T, S> a;
      tiles_common(ctx, d_in, d_out, n, a);
      a.starts = s;
      a.heads = S::HEAD_READS && d_in != d_out;
      status.place(lay, a.ts);
      return cuprim__cuda_status(launch_chained(ctx, (unsigned)tiles, G::THREADS, 0, stream,
                                                tiles_kernel<T, Op, S, WIDE>(kind), a));
    };
    CUPRIM__FORWARD(
        cuprim__cuda_status(cudaMemsetAsync(lay.at<void>(0), 0, status.zero_words * 8, stream)));
    if (sparse) {
      unsigned char *marked = lay.at<unsigned char>(zeroed_at);
      mark_tiles_kernel<Src>
          <<<grid_for(ctx, src.num_segments + 1, MARK_SEGMENTS), SPARSE_THREADS, 0, stream>>>(
              src, (uint64_t)G::TILE, bits, words, marked, range);
      CUPRIM__FORWARD(cuprim__cuda_status(cudaPeekAtLastError()));
      const unsigned grid = grid_for(ctx, src.num_segments + 1, SPARSE_THREADS);
      CUPRIM__FORWARD(cuprim__cuda_status(
          launch_chained(ctx, grid, SPARSE_THREADS, 0, stream, sparse_starts_kernel<Src>, src,
                         (uint64_t)G::TILE, bits, (const unsigned char *)marked)));
      sparse_bit_starts ss;
      static_cast<bit_starts &>(ss) = starts;
      ss.marked = marked;
      return launch_tiles(ss);
    }
    unsigned fit = 1; /* blocks an SM holds (the windows take 16 KB a block) */
    CUPRIM__FORWARD(cuprim__occupancy(ctx, reinterpret_cast<const void *>(starts_kernel<Src>),
                                      STARTS_THREADS, 0, &fit));
    const uint64_t want = src.num_segments / (STARTS_THREADS * STARTS_PER_THREAD) + 1,
                   most = (uint64_t)ctx->attrs.sm_count * fit;
    starts_kernel<<<(unsigned)(want < most ? want : most), STARTS_THREADS, 0, stream>>>(src, bits,
                                                                                        range);
    CUPRIM__FORWARD(cuprim__cuda_status(cudaPeekAtLastError()));
    return launch_tiles(starts);
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
      return offsets_scan(m, ctx, d_in, d_out, src, seg->n, kind, stream);
  });
}
