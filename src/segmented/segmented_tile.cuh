/* The device pieces of the segmented and batched calls: where segments come from (offsets in
 * memory, clamped, or rows of one length), the merge-path decomposition that gives every tile and
 * every thread an equal share of elements plus segment ends (Merrill and Garland, "Merge-based
 * Parallel Sparse Matrix-Vector Multiplication", SC 2016; moderngpu's segreduce), a tile's
 * elements staged in shared memory with 16-byte loads, the block-wide scan of (segment-start
 * flag, value) pairs, and a group's reduction of one segment (the per-segment rungs).
 *
 * The merge. Segment s is [A(s-1), A(s)) with A(x) = off[x + 1] clamped and A(-1) = off[0]
 * clamped (the base); the list of segment ends A(0..rows) is merged with the element indices
 * base .. base + nnz - 1 (nnz = A(rows - 1) - base, or 0), an end x coming before element j
 * when A(x) <= j. The merged list has total = rows + nnz items; tile b takes items
 * [b * TILE, (b + 1) * TILE), thread t of it ITEMS of those. Where the offsets do not increase,
 * the merge does not exist: a tile that meets a decreasing pair, or a partition that is not
 * where a merge would put it, says so (segmented_merge.cu then recomputes every segment another
 * way). Every index below stays in bounds whatever the offsets: the elements a tile touches lie
 * in [base, base + nnz), inside [0, n). */
#ifndef CUPRIM_SEGMENTED_TILE_CUH
#define CUPRIM_SEGMENTED_TILE_CUH

#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "common/check.h"
#include "common/dispatch.cuh"
#include "common/temp_memory.cuh"
#include "cta/arch.cuh"
#include "cta/load.cuh"
#include "cta/lookback.cuh"
#include "cta/ops.cuh"
#include "cta/warp_reduce.cuh"
#include "segmented_internal.h"

namespace cuprim::segmented {

/* ---------------------------------------------------------------- where segments come from */

/* An offset as read from an array of O (4 or 8 bytes, signed or not), at least 0: a negative one
 * is 0. */
template <class O> __device__ __forceinline__ O offset_at_least_0(O raw, int is_signed) {
  static_assert(sizeof(O) == 4 || sizeof(O) == 8, "offsets of 4 or 8 bytes");
  typedef typename std::make_signed<O>::type S;
  return is_signed && (S)raw < 0 ? (O)0 : raw;
}

/* An offset as read from an array of O, clamped to [0, n], a negative one to 0: the one rule
 * every segmented kernel reads offsets by. */
template <class O>
__device__ __forceinline__ uint64_t clamp_offset(O raw, int is_signed, uint64_t n) {
  const uint64_t v = offset_at_least_0(raw, is_signed);
  return v < n ? v : n;
}

/* clamp_offset in the offsets' own width (every clamped offset fits it), n_o = min(n, the largest
 * O): 32-bit arithmetic for 4-byte offsets. */
template <class O> __device__ __forceinline__ O clamp_offset_narrow(O raw, int is_signed, O n_o) {
  const O v = offset_at_least_0(raw, is_signed);
  return v < n_o ? v : n_o;
}

/* Offset k of an array of O, as it is in memory (4 or 8 bytes; clamp_offset makes it an offset). */
template <class O> __device__ __forceinline__ O raw_offset(const void *offsets, uint64_t k) {
  if constexpr (sizeof(O) == 8)
    return (O)__ldg(static_cast<const unsigned long long *>(offsets) + k);
  else
    return (O)__ldg(static_cast<const unsigned *>(offsets) + k);
}

/* Offset k of an array of O, clamped. */
template <class O>
__device__ __forceinline__ uint64_t read_offset(const void *offsets, uint64_t k, int is_signed,
                                                uint64_t n) {
  return clamp_offset<O>(raw_offset<O>(offsets, k), is_signed, n);
}

/* Offsets in device memory, num_segments + 1 integers of 4 or 8 bytes, signed or not, the width
 * read at run time (a uniform branch per offset): the per-segment rungs and the partition search,
 * instantiated once instead of twice per (dtype, op). at(k) is read_offset's offset k. */
struct offsets_source {
  static constexpr bool rows = false;
  const void *offsets;
  uint64_t n, num_segments;
  int wide, is_signed;
  __device__ __forceinline__ uint64_t at(uint64_t k) const {
    return wide ? read_offset<uint64_t>(offsets, k, is_signed, n)
                : read_offset<uint32_t>(offsets, k, is_signed, n);
  }
};

/* Offsets of one width, known at compile time: the merge's tiles, where every instruction per end
 * counts (the width read at run time cost about 14 of the 21 instructions of an offset's read on
 * the H100). */
template <class O> struct offsets_of : offsets_source {
  typedef O raw_t;
  __device__ __forceinline__ uint64_t at(uint64_t k) const {
    return read_offset<O>(offsets, k, is_signed, n);
  }
  /* at(k) in two steps, so that a load can be in flight in half the registers: the load ... */
  __device__ __forceinline__ O raw(uint64_t k) const { return raw_offset<O>(offsets, k); }
  /* ... and the clamp. */
  __device__ __forceinline__ uint64_t clamp(O v) const { return clamp_offset<O>(v, is_signed, n); }
  /* The clamp in O itself (clamp_offset_narrow), with n_o = narrow_n(). */
  __device__ __forceinline__ O narrow_n() const { return n < (uint64_t)(O)~O(0) ? (O)n : (O)~O(0); }
  __device__ __forceinline__ O clamp_narrow(O v, O n_o) const {
    return clamp_offset_narrow<O>(v, is_signed, n_o);
  }
  /* Offset k's address, and the raw offset `d` past such an address (d known at compile time
   * where it can be: one address for a thread's loads instead of one each). */
  __device__ __forceinline__ const O *raw_ptr(uint64_t k) const {
    return static_cast<const O *>(offsets) + k;
  }
  __device__ __forceinline__ O raw_from(const O *p, int d) const { return raw_offset<O>(p, d); }
};

/* Rows of one length: offset k is k * len (never past n = num_segments * len). The batched scan's
 * (the batched reduce has kernels of its own, segmented_rows.cu). */
struct rows_source {
  static constexpr bool rows = true;
  uint64_t len, num_segments;
  __device__ __forceinline__ uint64_t at(uint64_t k) const { return k * len; }
};

inline offsets_source make_offsets_source(const cuprim__segments &s) {
  offsets_source o;
  o.offsets = s.d_offsets;
  o.n = s.n;
  o.num_segments = s.num_segments;
  o.wide = s.offset_bytes == 8;
  o.is_signed = s.offset_signed;
  return o;
}

inline rows_source make_rows_source(const cuprim__segments &s) {
  rows_source r;
  r.len = s.segment_size;
  r.num_segments = s.num_segments;
  return r;
}

/* The host dispatch of the merge-path reduce: f(typed_op<T, Op>{}, src) for the device type T of
 * `dtype`, Op = op<acc_t<T>, op> (over the dtypes and ops that reduce and scan take), and the
 * offsets of `seg` (which has them) as offsets_of their width. Returns f's status. */
template <class F>
cuprim_status dispatch_offsets(cuprim_dtype dtype, cuprim_op op, const cuprim__segments &seg,
                               F &&f) {
  return dispatch_typed_op<REDUCE_SCAN_TYPES, acc_op>(dtype, op, [&](auto m) {
    const offsets_source off = make_offsets_source(seg);
    if (off.wide)
      return f(m, offsets_of<uint64_t>{off});
    return f(m, offsets_of<uint32_t>{off});
  });
}

/* dispatch_offsets, or, for `seg` without offsets, f(typed_op<T, Op>{}, rows_source): the
 * segmented and batched scans'. */
template <class F>
cuprim_status dispatch_merge(cuprim_dtype dtype, cuprim_op op, const cuprim__segments &seg, F &&f) {
  if (seg.d_offsets != NULL)
    return dispatch_offsets(dtype, op, seg, f);
  return dispatch_typed_op<REDUCE_SCAN_TYPES, acc_op>(
      dtype, op, [&](auto m) { return f(m, make_rows_source(seg)); });
}

/* ---------------------------------------------------------------- the merge */

/* The merged list: elements [base, base + nnz), rows segment ends, total items. */
struct merge_span {
  uint64_t base, nnz, total;
};

template <class Src> __device__ __forceinline__ merge_span span_of(const Src &src) {
  merge_span m;
  const uint64_t rows = src.num_segments;
  const uint64_t last = src.at(rows);
  m.base = src.at(0);
  m.nnz = last > m.base ? last - m.base : 0;
  m.total = rows + m.nnz;
  return m;
}

/* The first x in [lo, hi) where end x does not come before element diag - 1 - x of the merge
 * (end_le, as below), or hi: the binary search of merge_search and merge_search_near. */
template <class EndLE>
__device__ __forceinline__ uint64_t merge_bisect(uint64_t diag, uint64_t lo, uint64_t hi,
                                                 EndLE end_le) {
  while (lo < hi) {
    const uint64_t mid = (lo + hi) / 2;
    if (end_le(mid, diag - 1 - mid))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The number of ends among the first `diag` items of the merge of `ends` ends with `elems`
 * elements, where end_le(x, j) says whether end x comes before element j (a merge-path binary
 * search along the diagonal). With sorted ends the answer is the merge's; with unsorted ones it
 * is still in [diag - elems, diag] and [0, ends]. A warp's 33-ary search in the prepare kernel
 * instead (one dependent load a round, 32 of them scattered, a warp per boundary) made AUTO
 * slower: at 2^28 f32 286.7 -> 309.1 us at segments of 4096, 1415 -> 1614 at 1 (H200, branch
 * exp/seg-kary-prepare, 0.2's nineteenth run; 8 times the sectors, and 5 waves of warps where
 * the binary search runs in one); so did a search by groups of up to 16 lanes sized to one wave
 * (the prepare kernel 9.6 -> 19.1 us at 4096, branch exp/seg-group-prepare, the twentieth run).
 * The offsets' prepare kernel uses merge_search_near. */
template <class EndLE>
__device__ __forceinline__ uint64_t merge_search(uint64_t diag, uint64_t ends, uint64_t elems,
                                                 EndLE end_le) {
  return merge_bisect(diag, diag > elems ? diag - elems : 0, diag < ends ? diag : ends, end_le);
}

/* merge_search's answer, found from a guess: probes at the guess and its neighbours, in steps that
 * double (at most GALLOP of them each way), close in on the answer from wherever the guess lies,
 * and a binary search finishes between the last two probes (or, where the guess was far off,
 * between the last probe and the end of the range). The answer is merge_search's wherever the
 * ends are sorted (end_le then changes once along the diagonal: the answer is where); with
 * unsorted ends it is still in merge_search's range. Where the guess is within a few ends of the
 * answer (segments of about one length) it takes two or three dependent reads instead of
 * log2(ends); where it is far off, at most 2 + GALLOP more than merge_search. Measured (H200,
 * 2^28 f32, I32 offsets, 0.2's twentieth run): the prepare kernel 9.6 -> 4.5 us at segments of
 * 4096 (ncu); AUTO's segmented reduce 0.6-3.8% and scan 0.3-3.2% faster at uniform sizes (279.9
 * -> 275.9 us at 4096), 1% and 0.3% at random sizes 0..2000, 1% slower at the power law, whose
 * giant segment puts the guess far off for every boundary after it (GALLOP 6: 1.5% slower there,
 * the same elsewhere; a host emulation: 2.0 reads instead of 13.5 at uniform sizes, 13.0 and 16.0
 * instead of 13.4 at random sizes and at a power law). */
template <class EndLE>
__device__ __forceinline__ uint64_t merge_search_near(uint64_t diag, uint64_t ends, uint64_t elems,
                                                      uint64_t guess, EndLE end_le) {
  constexpr int GALLOP = 3;
  uint64_t lo = diag > elems ? diag - elems : 0, hi = diag < ends ? diag : ends;
  const uint64_t g = guess < lo ? lo : (guess > hi ? hi : guess);
  uint64_t step = 1;
  if (g < hi && end_le(g, diag - 1 - g)) { /* the answer is past g */
    lo = g + 1;
    for (int k = 0; k < GALLOP && lo < hi; ++k, step *= 2) {
      const uint64_t x = hi - lo > step - 1 ? lo + (step - 1) : hi - 1;
      if (!end_le(x, diag - 1 - x)) {
        hi = x;
        break;
      }
      lo = x + 1;
    }
  } else { /* the answer is g or before */
    hi = g;
    for (int k = 0; k < GALLOP && lo < hi; ++k, step *= 2) {
      const uint64_t x = hi - lo > step ? hi - step : lo;
      if (end_le(x, diag - 1 - x)) {
        lo = x + 1;
        break;
      }
      hi = x;
    }
  }
  return merge_bisect(diag, lo, hi, end_le);
}

/* The ends among the first `diag` items of the whole merge: the search over the offsets, from the
 * answer that segments of one length would give (diag * ends / (ends + elements)). */
template <class Src>
__device__ __forceinline__ uint64_t ends_before(const Src &src, const merge_span &m,
                                                uint64_t diag) {
  const uint64_t ends = src.num_segments;
  const double share = ends == 0 ? 0.0 : (double)ends / ((double)ends + (double)m.nnz);
  return merge_search_near(diag, ends, m.nnz, (uint64_t)((double)diag * share),
                           [&](uint64_t x, uint64_t j) { return src.at(x + 1) <= m.base + j; });
}

/* Tiles of the merge: 256 threads of ITEMS items each. ITEMS is odd, so that threads reading
 * their items from shared memory at a stride of about ITEMS words fall into different banks; it
 * is fixed per accumulate size, and with it which items each thread combines in which order, so
 * that float results do not depend on the GPU (docs/determinism.md). Provisional: 23 four-byte
 * items (a 23 KB tile) or 15 eight-byte ones (30 KB), not yet measured against other sizes. */
template <class A> struct merge_geometry {
  static constexpr int THREADS = 256;
  static constexpr int ITEMS = sizeof(A) <= 4 ? 23 : 15;
  static constexpr int TILE = THREADS * ITEMS;
};

/* A point of the merge at a tile boundary: the ends before it, and the (absolute) index of the
 * first element after it. */
struct merge_point {
  uint64_t ends, lo;
};

/* The point at tile boundary b, b * tile clamped to the merge's end. */
template <class Src>
__device__ __forceinline__ merge_point point_at(const Src &src, const merge_span &m, uint64_t b,
                                                uint64_t tile) {
  const uint64_t d = b * tile < m.total ? b * tile : m.total;
  merge_point p;
  p.ends = ends_before(src, m, d);
  p.lo = m.base + (d - p.ends);
  return p;
}

/* A tile's share of the merge: the ends [i0, i0 + n_ends) and the elements [lo, lo + n_elems).
 * `valid` is false when the partition is not one a merge of sorted ends could give (decreasing
 * offsets); the tile then has nothing. */
struct tile_share {
  uint64_t i0, lo;
  uint32_t n_ends, n_elems;
  bool valid;
};

/* Tile b's share, between the points at its boundaries: part[b] and part[b + 1] (written by the
 * prepare kernel; one 32-byte read). */
__device__ __forceinline__ tile_share share_of(const merge_point *part, uint64_t b, uint64_t tile) {
  const merge_point p0 = part[b], p1 = part[b + 1];
  tile_share s;
  /* Both coordinates advance, by at most a tile together (the sums cannot wrap: each is below
   * 2^63). */
  s.valid = p1.ends >= p0.ends && p1.lo >= p0.lo && (p1.ends - p0.ends) + (p1.lo - p0.lo) <= tile;
  s.i0 = p0.ends;
  s.lo = p0.lo;
  s.n_ends = s.valid ? (uint32_t)(p1.ends - p0.ends) : 0;
  s.n_elems = s.valid ? (uint32_t)(p1.lo - p0.lo) : 0;
  return s;
}

/* ---------------------------------------------------------------- before the tiles */

/* What runs before a merge's tiles (segmented_merge.cu): a kernel that zeroes `zero_words` 8-byte
 * words at `zero` (the batched scan's tile status, the reduce's flag for decreasing offsets) and,
 * for offsets (`part` not NULL), writes part[b] = the merge's point at tile boundary b for
 * b = 0..tiles, one binary search over the offsets each. It lets the tiles' kernel launch at once
 * (programmatic dependent launch); that kernel waits for it in cta::pdl_wait. */
struct prepare_args {
  offsets_source src;
  merge_point *part;
  uint64_t tiles, tile;
  unsigned long long *zero;
  uint64_t zero_words;
};
cuprim_status launch_prepare(const cuprim_ctx *ctx, const prepare_args &a, cudaStream_t stream);

/* The prepare kernel for a merge of `src` in `tiles` tiles of `tile` items: the partitions into
 * `part` (offsets; rows have their closed form and need none), `zero_words` words zeroed at
 * `zero`. */
template <class Src>
cuprim_status prepare(const cuprim_ctx *ctx, const Src &src, merge_point *part, uint64_t tiles,
                      int tile, void *zero, uint64_t zero_words, cudaStream_t stream) {
  prepare_args p;
  p.src = offsets_source();
  p.part = NULL;
  if constexpr (!Src::rows) {
    p.src = src;
    p.part = part;
  }
  p.tiles = tiles;
  p.tile = (uint64_t)tile;
  p.zero = static_cast<unsigned long long *>(zero);
  p.zero_words = zero_words;
  return launch_prepare(ctx, p, stream);
}

/* Look-back statuses in temporary memory (the segmented scan's tiles, the merge reduce's join
 * runs), taken next from `lay`: [status words | (8-byte values) aggregates | inclusive
 * prefixes]. zero_words: the 8-byte words from the start of `lay` through the status words, what
 * must be zero before the tiles run. */
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

/* *tiles: the tiles of `tile` items that a merge of num_segments ends with at most n elements
 * needs. Returns UNSUPPORTED when a grid could not launch them (past 2^31 - 1 tiles: beyond any
 * current GPU's memory). */
inline cuprim_status merge_tiles(const cuprim_ctx *ctx, uint64_t num_segments, uint64_t n, int tile,
                                 uint64_t *tiles) {
  const uint64_t items = num_segments + n;
  *tiles = items / (uint64_t)tile + (items % (uint64_t)tile != 0);
  return *tiles <= (uint64_t)ctx->attrs.max_grid_x && *tiles < UINT32_MAX
             ? CUPRIM_SUCCESS
             : CUPRIM_ERROR_UNSUPPORTED;
}

/* Blocks for `units` independent pieces of work of `per_block` each: one launch covers them, up
 * to the grid limit (the kernels loop beyond it). The per-segment rungs' grids and the batched
 * reduce's. */
inline unsigned grid_for(const cuprim_ctx *ctx, uint64_t units, uint64_t per_block) {
  const uint64_t blocks = (units + per_block - 1) / per_block;
  const uint64_t cap = (uint64_t)ctx->attrs.max_grid_x;
  return (unsigned)(blocks < cap ? blocks : cap);
}

/* What the arguments of every merge kernel begin with: the input, the output, and the partitions
 * (tiles + 1 merge points in temporary memory, found by prepare). */
template <class T> struct merge_io {
  const T *in;
  T *out;
  const merge_point *part;
};

/* Points `io` at the input, the output and the partitions that lay.take placed at part_at (lay
 * allocated: inside with_temp). */
template <class T>
void point_merge_io(const temp_layout &lay, size_t part_at, const T *in, T *out, merge_io<T> &io) {
  io.in = in;
  io.out = out;
  io.part = lay.at<const merge_point>(part_at);
}

/* ---------------------------------------------------------------- a tile in shared memory */

/* A tile's ends and elements in shared memory (base: 128-byte aligned): first the ends, one
 * SLOT-byte slot each (their positions relative to the tile's first element, as uint32; the
 * reduce overwrites a slot with the value of its segment once the end is consumed), then, 16-byte
 * aligned, the elements as S. Element lo + k sits at elems()[k], shift = lo mod VEC places past
 * the 16-byte word at base + elem_off, so that aligned vectors of the input land on aligned
 * vectors of shared memory; and that word lies `line` bytes into a 128-byte line of shared
 * memory, as far as the input's vector lies into its own line (stage_tile), so that every
 * 16-byte copy of copy_tile_async lands at the same place of a line as it comes from.
 * Until 0.2's thirtieth run the elements began at the first 16-byte word after the ends, wherever
 * the input's vector lay in its line. With the copies congruent, at 2^28 f32 in segments of 4096
 * (H200, ncu, the tile kernel) the sectors read from L2 went from 50.8e6 to 34.9e6 (the bytes
 * need 33.5e6; one segment over everything, whose tiles are congruent by their size, read
 * 35.1e6) and the excess shared-memory wavefronts from 16.1e6 of 35.1e6 to 3.6e6 of 22.6e6; the
 * call took 4-9% less from segments of 16 to 2^20 and in random ones (cuprim-bench, two runs a
 * side: 4096 270.3 -> 253.4 us, 65536 261.8 -> 246.2, 2^20 269.9 -> 245.5), with the same bits.
 * Segments of 1 and 4 and the power law, whose tiles are bound by other things, within 0.8%
 * (segments of 1 955.2 -> 955.8 us). place_elements comes after the ends' loads: computed before
 * them, the place made ptxas spill in 78 of the 88 AUTO tile kernels (1320 bytes of spill stores
 * in all, against 856 in 34 kernels before the congruence; after them 888 in 46, none for f32),
 * and segments of 1 took 0.3% longer. Not kept (0.2's thirtieth run, a timing program): each warp's
 * copies started on a 128-byte line of the input as well (excess sectors and wavefronts near 0, no
 * faster, and 1.5% slower at segments of 1); started on a line without the congruence (1-2% faster
 * than before from 64 to 2^20, 1% slower at segments of 1). */
/* Where the 16-byte word that holds *p lies in its 128-byte line: a multiple of 16 below 128 (the
 * `line` of tile_smem::place_elements and of the batched reduce's small rows). */
template <class T> __device__ __forceinline__ uint32_t line_of(const T *p) {
  return (uint32_t) reinterpret_cast<uintptr_t>(p) & 0x70u;
}

template <int SLOT, class S> struct tile_smem {
  unsigned char *base;
  uint32_t elem_off, shift;
  /* The ends' place and the shift; elems() needs place_elements too. */
  __device__ __forceinline__ void init(unsigned char *b, uint32_t sh) {
    base = b;
    shift = sh;
  }
  /* The elements after n_ends ends, `line` (a multiple of 16 below 128) into a 128-byte line. */
  __device__ __forceinline__ void place_elements(uint32_t n_ends, uint32_t line) {
    const uint32_t after_ends = round16(n_ends * SLOT);
    elem_off = after_ends + ((line - after_ends) & 127u);
  }
  __device__ __forceinline__ uint32_t end(uint32_t x) const {
    return *reinterpret_cast<const uint32_t *>(base + (size_t)x * SLOT);
  }
  __device__ __forceinline__ void set_end(uint32_t x, uint32_t v) const {
    *reinterpret_cast<uint32_t *>(base + (size_t)x * SLOT) = v;
  }
  template <class A> __device__ __forceinline__ A value(uint32_t x) const {
    static_assert(sizeof(A) == SLOT, "a value fills its slot");
    return *reinterpret_cast<const A *>(base + (size_t)x * SLOT);
  }
  template <class A> __device__ __forceinline__ void set_value(uint32_t x, A v) const {
    static_assert(sizeof(A) == SLOT, "a value fills its slot");
    *reinterpret_cast<A *>(base + (size_t)x * SLOT) = v;
  }
  /* Element lo + k is elems()[k]. */
  __device__ __forceinline__ S *elems() const {
    return reinterpret_cast<S *>(base + elem_off) + shift;
  }
  /* The bytes a tile of `tile` items needs, with 128 bytes of slack for the line (and the round
   * to 16 after the ends), VEC elements for the shift and VEC more for a pass that reads the last
   * vector's worth whole (AUTO's few-ends path). */
  __host__ __device__ static constexpr size_t bytes(int tile, int vec) {
    return (size_t)tile * ((size_t)SLOT > sizeof(S) ? (size_t)SLOT : sizeof(S)) + 128 +
           2 * (size_t)vec * sizeof(S);
  }
};

/* S from an element: the element itself, or its accumulate value (to_acc) when S is wider. */
template <class S, class T> __device__ __forceinline__ S stage(T x) {
  if constexpr (std::is_same<S, T>::value)
    return x;
  else
    return to_acc(x);
}

template <class T, class S> __device__ __forceinline__ T unstage(S v) {
  if constexpr (std::is_same<S, T>::value)
    return v;
  else
    return from_acc<T>(v);
}

/* Element lo + k of `in` into dst[k] (dst = tile_smem::elems()), k < n_elems, by THREADS threads.
 * `vec` (the input 16-byte aligned, and shift = lo mod VEC): 16-byte loads of the vectors wholly
 * inside the range, and 16-byte stores of them into shared memory; the vectors at either end
 * element by element (nothing outside the range is read: it may be another tile's, being
 * written). Otherwise element by element, coalesced. Four vectors (eight elements) in flight per
 * thread. */
template <int THREADS, cta::load_mode M, class T, class S>
__device__ __forceinline__ void load_tile(const T *in, uint64_t lo, uint32_t n_elems,
                                          uint32_t shift, bool vec, S *dst, int t) {
  constexpr int VEC = 16 / (int)sizeof(T), BATCH = 4;
  if (vec) {
    const T *src = in + (lo - shift);
    S *d = dst - shift; /* 16-byte aligned */
    const uint32_t end = shift + n_elems, nv = (end + VEC - 1) / VEC;
    for (uint32_t v0 = 0; v0 < nv; v0 += THREADS * BATCH) {
      T x[BATCH][VEC];
#pragma unroll
      for (int u = 0; u < BATCH; ++u) {
        const uint32_t v = v0 + u * THREADS + t, first = v * VEC;
        if (v >= nv)
          continue;
        if (first >= shift && first + VEC <= end) {
          cta::load_vec16<M>(src + first, x[u]);
        } else {
#pragma unroll
          for (int j = 0; j < VEC; ++j)
            x[u][j] = first + j >= shift && first + j < end ? cta::load<M>(src + first + j) : T();
        }
      }
#pragma unroll
      for (int u = 0; u < BATCH; ++u) {
        const uint32_t v = v0 + u * THREADS + t, first = v * VEC;
        if (v >= nv)
          continue;
        if (std::is_same<S, T>::value && first >= shift && first + VEC <= end) {
          uint4 raw;
          memcpy(&raw, x[u], 16);
          *reinterpret_cast<uint4 *>(d + first) = raw;
        } else {
#pragma unroll
          for (int j = 0; j < VEC; ++j)
            if (first + j >= shift && first + j < end)
              d[first + j] = stage<S>(x[u][j]);
        }
      }
    }
  } else {
    constexpr int SCALARS = 2 * BATCH;
    for (uint32_t k0 = 0; k0 < n_elems; k0 += THREADS * SCALARS) {
      T x[SCALARS];
#pragma unroll
      for (int u = 0; u < SCALARS; ++u) {
        const uint32_t k = k0 + u * THREADS + t;
        x[u] = k < n_elems ? cta::load<M>(in + lo + k) : T();
      }
#pragma unroll
      for (int u = 0; u < SCALARS; ++u) {
        const uint32_t k = k0 + u * THREADS + t;
        if (k < n_elems)
          dst[k] = stage<S>(x[u]);
      }
    }
  }
}

/* load_tile's `vec` path for S = T, without registers: the vectors wholly inside the range
 * copied asynchronously (cta::copy16_async, complete after cta::copy_async_wait), the elements of
 * the vectors at either end loaded with M and stored at once (threads 0 .. VEC - 1 the first's,
 * VEC .. 2 VEC - 1 the last's). All of a thread's copies are in flight together, and none takes
 * room in L1 while it is. The copies' loop does nothing else: its pointers advance by a stride
 * (until 0.2's eighteenth run every vector was tested for the range's ends: about 20 SASS
 * instructions a copy). */
template <int THREADS, cta::load_mode M, class T>
__device__ __forceinline__ void copy_tile_async(const T *in, uint64_t lo, uint32_t n_elems,
                                                uint32_t shift, T *dst, int t) {
  constexpr int VEC = 16 / (int)sizeof(T);
  static_assert(THREADS >= 2 * VEC, "a thread for each element of the partial vectors");
  const T *src = in + (lo - shift);
  T *d = dst - shift; /* 16-byte aligned */
  const uint32_t end = shift + n_elems;
  /* The vectors wholly inside [shift, end): [v_lo, v_hi) (empty where v_hi <= v_lo). */
  const uint32_t v_lo = shift != 0 ? 1u : 0u, v_hi = end / VEC;
  const T *s = src + (size_t)(v_lo + (uint32_t)t) * VEC;
  T *dd = d + (size_t)(v_lo + (uint32_t)t) * VEC;
  for (uint32_t v = v_lo + (uint32_t)t; v < v_hi;
       v += THREADS, s += THREADS * VEC, dd += THREADS * VEC)
    cta::copy16_async(dd, s);
  /* The partial vectors: elements [shift, min(VEC, end)) where shift is not 0, and
   * [max(v_hi, v_lo) * VEC, end). */
  const uint32_t head_end = end < (uint32_t)VEC ? end : (uint32_t)VEC;
  const uint32_t tail = (v_hi > v_lo ? v_hi : v_lo) * VEC;
  uint32_t k = 0xffffffffu;
  if (t < VEC && shift != 0 && shift + (uint32_t)t < head_end)
    k = shift + (uint32_t)t;
  else if (t >= VEC && t < 2 * VEC && tail + (uint32_t)(t - VEC) < end)
    k = tail + (uint32_t)(t - VEC);
  if (k != 0xffffffffu)
    d[k] = cta::load<M>(src + k);
}

/* Element lo + k of `in` into dst[k], k < n_elems, as load_tile (shift = lo mod VEC, `vec`: the
 * input 16-byte aligned), with asynchronous copies where the architecture has them and S is T
 * (copy_tile_async); complete for this thread on return (a barrier then makes it the block's). */
template <int THREADS, cta::load_mode M, class T, class S>
__device__ __forceinline__ void stage_elements(const T *in, uint64_t lo, uint32_t n_elems,
                                               uint32_t shift, bool vec, S *dst, int t) {
  if constexpr (cta::has_copy_async && std::is_same<S, T>::value) {
    if (vec) {
      copy_tile_async<THREADS, M>(in, lo, n_elems, shift, dst, t);
      cta::copy_async_wait();
      return;
    }
  }
  load_tile<THREADS, M>(in, lo, n_elems, shift, vec, dst, t);
}

/* ---------------------------------------------------------------- segment starts as flags */

/* The flag tile (AUTO's reduce) marks where segments start among a tile's elements:
 * bit k of a bitmask in shared memory is set where an end of the tile lies at element k (the next
 * segment starts there), for k in [0, n_elems]; bit n_elems stands for an end after the tile's
 * last element. The words a tile of `tile` items needs, with one to spare for a thread that reads
 * the word after its last. */
__host__ __device__ constexpr int flag_words(int tile) { return tile / 32 + 2; }

/* The flags of elements k0 .. k0 + 31 (bit j: element k0 + j): two words of the bitmask. */
__device__ __forceinline__ uint32_t flags_at(const unsigned *bits, uint32_t k0) {
  const uint64_t two = (uint64_t)bits[k0 / 32] | (uint64_t)bits[k0 / 32 + 1] << 32;
  return (uint32_t)(two >> (k0 % 32));
}

/* The tile's ends into shared memory, as positions relative to its first element, with the
 * checks that make a tile of decreasing offsets known: every end it consumes must not come before
 * the previous one (A(x - 1) <= A(x), where A(-1) is the base) and must lie within its elements.
 * Over all tiles these pairs are every consecutive pair of offsets, so a merge that no tile finds
 * wrong is the merge of sorted ends. Returns true where this thread found one wrong. Rows have
 * nothing to check. Each warp takes up to BATCH runs of 32 consecutive ends at a time, 32 bytes of
 * offsets in flight per lane (the loads issued first, clamped where they are used), the ends
 * spread evenly over the warps; A(x - 1) comes from the previous lane (a shuffle), or the previous
 * run's last lane, or, for the warp's first end, a load of lane 0's issued with the others. With
 * `longest`, *longest becomes at least the length of every part of the tile this thread's ends
 * close (the part of end x's segment inside the tile) and, for the thread of the last end, of the
 * part after it. */
template <int THREADS, int SLOT, class S, class Src>
__device__ __forceinline__ bool load_ends(const Src &src, const tile_share &s,
                                          const tile_smem<SLOT, S> &sm, uint32_t *longest, int t) {
  /* Positions in the offsets' own width R: every clamped offset fits it, and so do the tile's
   * first element and its last (points of the merge lie between the first and the last offset),
   * so that 4-byte offsets take 32-bit arithmetic and one shuffle a step. */
  typedef typename Src::raw_t R;
  constexpr int BATCH = 32 / (int)sizeof(R); /* 32 bytes in flight a lane */
  const int lane = t % 32, warp = t / 32;
  const R n_r = src.narrow_n(), lo = (R)s.lo, ne = (R)s.n_elems;
  bool bad = false;
  for (uint32_t x0 = 0; x0 < s.n_ends;) {
    /* This round: up to BATCH runs of 32 ends per warp, as few as cover the ends left when every
     * warp takes the same number (so that a tile of a few hundred ends keeps every warp busy). */
    const uint32_t left = s.n_ends - x0, need = (left + THREADS - 1) / THREADS,
                   runs = need < (uint32_t)BATCH ? need : (uint32_t)BATCH;
    /* The warp's ends of this round: [xw, xend). */
    const uint32_t xw = x0 + (uint32_t)warp * runs * 32, xw_end = xw + runs * 32,
                   xend = xw_end < s.n_ends ? xw_end : s.n_ends;
    x0 += runs * THREADS;
    if (xw >= xend)
      continue; /* none for this warp (uniform over it): no loads to set up */
    /* End x is offset i0 + x + 1; the lane's first of this round, one address for all its loads. */
    const R *mine = src.raw_ptr(s.i0 + xw + 1 + (uint32_t)lane);
    R raw[BATCH], raw_before = 0;
#pragma unroll
    for (int u = 0; u < BATCH; ++u)
      raw[u] = xw + u * 32 + lane < xend ? src.raw_from(mine, u * 32) : R();
    if (lane == 0 && xw < s.n_ends)
      raw_before = src.raw(s.i0 + xw); /* A(xw - 1) */
    R before = src.clamp_narrow(raw_before, n_r);
#pragma unroll
    for (int u = 0; u < BATCH; ++u) {
      if (xw + u * 32 >= xend)
        break; /* uniform over the warp */
      const uint32_t x = xw + u * 32 + lane;
      const bool in = x < xend;
      const R a = in ? src.clamp_narrow(raw[u], n_r) : R(); /* A(x) */
      R prev = __shfl_up_sync(cta::full_mask, a, 1);        /* A(x - 1) */
      if (lane == 0)
        prev = before;
      before = __shfl_sync(cta::full_mask, a, 31);
      bad |= in && (prev > a || a < lo || a - lo > ne);
      const R rel = a < lo ? R() : a - lo;
      const uint32_t r = (uint32_t)(rel < ne ? rel : ne);
      if (in)
        sm.set_end(x, r);
      if (longest != nullptr && in) {
        const R prel = prev < lo ? R() : prev - lo;
        const uint32_t from = (uint32_t)(prel < r ? prel : r);
        uint32_t part = r - from;
        if (x == s.n_ends - 1 && s.n_elems - r > part)
          part = s.n_elems - r;
        if (part > *longest)
          *longest = part;
      }
    }
  }
  return bad;
}

/* The flags of a valid tile's ends (sorted: end x <= end x + 1) from their slots in sm. Thread t
 * takes `per` consecutive ends, t * per on (per: the fewest that cover the ends, made odd, so
 * that the lanes of a warp read slots in different banks), and gathers their bits word by word in
 * a register, ORing each word into the bitmask (a shared atomic: a neighbouring thread may share
 * it) when the next end leaves it: as many atomics as words its ends touch, and nothing across
 * lanes. Until 0.2's twenty-fifth run thread t took ends t, t + THREADS, ..., and the lanes of a
 * word found each other by match.any and ORed their bits with a reduction over each group of
 * peers, which the compiler made a loop of one warp-synchronous reduction per group: ncu's
 * samples put 14% of the tile kernel's stalls there at 2^28 f32 in power-law segments (H200),
 * where the tiles hold about 1600 ends, and without the flags it took 572.5 us instead of 684.0
 * (segments of 65: 312.8 instead of 372.1). Runs of lanes found by a ballot and ORed by a scan of
 * five shuffles instead took segments of 65 to 318.3 us but the power law to 712.9 (not kept).
 * Unsorted ends (decreasing offsets) would set wrong bits, never one outside the bitmask; the
 * tiles that hold them never get here. A barrier must come before the flags are read. */
template <int THREADS, int SLOT, class S>
__device__ __forceinline__ void set_flags_of_ends(const tile_smem<SLOT, S> &sm, uint32_t n_ends,
                                                  unsigned *bits, int t) {
  const uint32_t per = (n_ends + THREADS - 1) / THREADS | 1u;
  const uint32_t x0 = (uint32_t)t * per, x1 = x0 + per < n_ends ? x0 + per : n_ends;
  uint32_t w = 0;
  unsigned v = 0; /* the bits of word w gathered so far */
  for (uint32_t x = x0; x < x1; ++x) {
    const uint32_t r = sm.end(x);
    if (r / 32 != w) {
      if (v != 0)
        atomicOr(bits + w, v);
      w = r / 32;
      v = 0;
    }
    v |= 1u << (r % 32);
  }
  if (v != 0)
    atomicOr(bits + w, v);
}

/* Tile b into shared memory: its share of the merge (s), its ends (with `longest`, the longest
 * part as load_ends finds it) and its elements (16-byte loads where `vec`; in every case the
 * 16-byte boundary below the first element at sm.shift, shift = lo mod VEC, VEC = 16 /
 * sizeof(T), and that boundary as far into a 128-byte line of shared memory as the input's is
 * into its line, to a multiple of 16 bytes: tile_smem). Returns true where this thread found the
 * offsets decreasing; the caller joins the answer with a barrier. The ends' loads are issued before
 * the copies: the other order was slower on the H100 for tiles of many ends (12-25%, 0.2's sixth
 * run) and on the H200 for tiles of at most FEW_ENDS ends too (segments of 4096, 2^28 f32: 285 ->
 * 294.5 us; branch exp/seg-copies-first, 0.2's nineteenth run). So was issuing the ends' first
 * loads, then the copies, then using the loads (282.6 -> 289.3 us at 4096, 329 -> 401 at 16; branch
 * exp/seg-ends-in-flight, 0.2's twentieth run: the held loads made the f32 kernel spill). */
template <int THREADS, cta::load_mode M, int SLOT, class S, class Src, class T>
__device__ __forceinline__ bool stage_tile(const Src &src, const merge_point *part, uint64_t b,
                                           uint64_t tile, const T *in, bool vec, unsigned char *raw,
                                           tile_smem<SLOT, S> &sm, tile_share &s, int t,
                                           uint32_t *longest = nullptr) {
  constexpr int VEC = 16 / (int)sizeof(T);
  s = share_of(part, b, tile);
  /* The shift whatever `vec`: a 16-byte vector's worth of elements of the input (VEC of them, from
   * an index that is a multiple of VEC) lies at an aligned place in sm, 16 or 32 bytes, so that a
   * pass over the staged tile can read it as such however the input pointer is aligned. */
  const uint32_t shift = (uint32_t)(s.lo % VEC);
  sm.init(raw, shift);
  const bool bad = load_ends<THREADS>(src, s, sm, longest, t);
  /* placed after the ends' loads, so that nothing of it is live through them */
  sm.place_elements(s.n_ends, line_of(in + s.lo));
  stage_elements<THREADS, M>(in, s.lo, s.n_elems, sm.shift, vec, sm.elems(), t);
  return bad;
}

/* A thread's items of a valid tile: the ends [it, it_end) and the elements [jt, jt_end) of the
 * tile's merge (tile-relative), from its diagonals t * ITEMS and the next thread's. */
struct thread_share {
  uint32_t it, it_end, jt, jt_end;
};

template <int ITEMS, int SLOT, class S>
__device__ __forceinline__ thread_share thread_share_of(const tile_share &s,
                                                        const tile_smem<SLOT, S> &sm, int t) {
  const uint32_t total = s.n_ends + s.n_elems;
  const uint32_t d0 = (uint32_t)t * ITEMS < total ? (uint32_t)t * ITEMS : total;
  const uint32_t d1 = d0 + ITEMS < total ? d0 + ITEMS : total;
  const auto end_le = [&](uint64_t x, uint64_t j) { return sm.end((uint32_t)x) <= j; };
  thread_share r;
  r.it = (uint32_t)merge_search(d0, s.n_ends, s.n_elems, end_le);
  r.it_end = (uint32_t)merge_search(d1, s.n_ends, s.n_elems, end_le);
  r.jt = d0 - r.it;
  r.jt_end = d1 - r.it_end;
  return r;
}

/* Whether the next item of a thread's share is an end (else an element). Reads only ends of the
 * thread's own share. */
template <int SLOT, class S>
__device__ __forceinline__ bool next_is_end(const thread_share &r, const tile_smem<SLOT, S> &sm) {
  return r.it < r.it_end && (r.jt >= r.jt_end || sm.end(r.it) <= r.jt);
}

/* Thread t's pass over its elements k0 .. k0 + ITEMS - 1 of the flag tile (those below n_elems;
 * f: their flags, flags_at(k0)), in order, restarting at every flag. Leaves `acc`, the value since
 * the thread's last flag (since its first element if none), `any`, whether one of its elements
 * is flagged, and `lead`, how many come before the first flag. It writes back into el only el[k]
 * where element k + 1 is flagged: the value of the segment that ends at k, as far as this thread
 * has seen it (bit ITEMS of f is the next thread's first element). The order of combination
 * follows from k0 and the flags alone. */
template <int ITEMS, class Op, class A>
__device__ __forceinline__ void flag_pass(A *el, uint32_t k0, uint32_t n_elems, uint32_t f, A &acc,
                                          bool &any, uint32_t &lead) {
  static_assert(ITEMS < 32, "a thread's flags and the next one's first fit in a word");
  const Op op;
  const uint32_t count = k0 < n_elems ? (n_elems - k0 < ITEMS ? n_elems - k0 : ITEMS) : 0;
  const uint32_t mine = count ? f & (0xffffffffu >> (32 - count)) : 0u;
  any = mine != 0;
  lead = mine ? (uint32_t)(__ffs(mine) - 1) : count;
  acc = Op::identity();
#pragma unroll
  for (int j = 0; j < ITEMS; ++j) {
    if ((uint32_t)j < count) {
      const A x = el[k0 + j];
      const bool start = (f >> j) & 1u;
      acc = start ? x : op(acc, x);
      if ((f >> (j + 1)) & 1u)
        el[k0 + j] = acc;
    }
  }
}

/* ---------------------------------------------------------------- (flag, value) scans */

/* A value with a flag saying that a segment starts inside it: combining a later flagged value
 * keeps only the later one (the segment restarted there). The operator is associative, so any
 * fixed tree gives the segmented scan. */
template <class A> struct flagged {
  A v;
  unsigned f;
};

template <class Op, class A>
__device__ __forceinline__ flagged<A> seg_combine(const flagged<A> &a, const flagged<A> &b) {
  const Op op;
  flagged<A> r;
  r.v = b.f ? b.v : op(a.v, b.v);
  r.f = a.f | b.f;
  return r;
}

template <class Op, class A> __device__ __forceinline__ flagged<A> seg_identity() {
  flagged<A> r;
  r.v = Op::identity();
  r.f = 0;
  return r;
}

template <class A> __device__ __forceinline__ flagged<A> shfl_up(const flagged<A> &x, int d) {
  flagged<A> y;
  y.v = __shfl_up_sync(cta::full_mask, x.v, d);
  y.f = __shfl_up_sync(cta::full_mask, x.f, d);
  return y;
}

/* Inclusive segmented scan over the 32 lanes (Kogge-Stone). */
template <class Op, class A>
__device__ __forceinline__ flagged<A> warp_seg_scan(flagged<A> x, int lane) {
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const flagged<A> y = shfl_up(x, d);
    if (lane >= d)
      x = seg_combine<Op>(y, x);
  }
  return x;
}

/* Exclusive segmented scan over the block's THREADS threads (one value each), in a fixed tree:
 * lanes, then the warps' totals in warp 0. Returns the thread's exclusive prefix (flag 0 and the
 * identity for thread 0) and sets `aggregate`, the block's total, in every thread. `smem` holds
 * THREADS/32 + 1 values. Starts and ends with block barriers' worth of ordering: it can be called
 * again with the same `smem`. */
template <int THREADS, class Op, class A>
__device__ __forceinline__ flagged<A> block_seg_exclusive(flagged<A> x, flagged<A> *smem,
                                                          flagged<A> &aggregate) {
  constexpr int WARPS = THREADS / 32;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const flagged<A> inc = warp_seg_scan<Op>(x, lane);
  flagged<A> ex = shfl_up(inc, 1);
  if (lane == 0)
    ex = seg_identity<Op, A>();
  if (lane == 31)
    smem[warp] = inc;
  __syncthreads();
  if (warp == 0) {
    const flagged<A> w = lane < WARPS ? smem[lane] : seg_identity<Op, A>();
    const flagged<A> winc = warp_seg_scan<Op>(w, lane);
    flagged<A> wex = shfl_up(winc, 1);
    if (lane == 0)
      wex = seg_identity<Op, A>();
    if (lane < WARPS)
      smem[lane] = wex;
    if (lane == WARPS - 1)
      smem[WARPS] = winc;
  }
  __syncthreads();
  const flagged<A> wp = smem[warp];
  aggregate = smem[WARPS];
  __syncthreads();
  return warp == 0 ? ex : (lane == 0 ? wp : seg_combine<Op>(wp, ex));
}

/* The shared memory of a tile's block: the tile (its ends and elements, as tile_smem<SLOT, S>
 * lays them out in `raw`), the flag tile's bitmask, and the block scan's words. */
template <class A, int SLOT, class S, int VEC> struct tile_block_smem {
  typedef merge_geometry<A> G;
  alignas(128) unsigned char raw[tile_smem<SLOT, S>::bytes(G::TILE, VEC)];
  unsigned bits[flag_words(G::TILE)];
  flagged<A> scan[G::THREADS / 32 + 1];
  /* Thread t's part of zeroing the flags; a barrier must come before any end sets one. */
  __device__ __forceinline__ void clear_flags(int t) {
    for (int w = t; w < flag_words(G::TILE); w += G::THREADS)
      bits[w] = 0;
  }
};

/* ---------------------------------------------------------------- the flag tile */

/* The types of the flag tiles (AUTO and the batched reduce in segmented_merge.cu): the ends in
 * 4-byte slots, the elements staged in the accumulate type A. */
template <class T> struct flag_tile {
  typedef acc_t<T> A;
  typedef merge_geometry<A> G;
  typedef tile_smem<4, A> Smem;
  typedef tile_block_smem<A, 4, A, 16 / (int)sizeof(T)> Shared;
  /* Blocks a multiprocessor should hold (__launch_bounds__): eight (a whole H100 SM, 32 registers)
   * where the elements are staged as they are, with no registers in between (copy_tile_async),
   * six where they are widened (F16, BF16); never more than the architecture being compiled for
   * holds (cta::sm_threads: four on 7.5, six on 8.6, 8.9 and 12.x). */
  static constexpr int WANT_BLOCKS = std::is_same<A, T>::value ? 8 : 6;
  static constexpr int MIN_BLOCKS =
      WANT_BLOCKS * G::THREADS <= cta::sm_threads ? WANT_BLOCKS : cta::sm_threads / G::THREADS;
};

/* What the flag tile's scans leave in thread t (flag_tile_pass). */
template <class A> struct flag_scan {
  flagged<A> ex;  /* what precedes t's elements since the last flag before them (f: there is one) */
  flagged<A> agg; /* the whole tile: the value since its last flag, and whether it has a flag */
  uint32_t lead;  /* how many of t's elements come before its first flag */
};

/* The flag tile's scans of a staged tile whose flags are set: thread t's ITEMS elements within
 * their segments (flag_pass), then the threads' (flag, value) pairs across the block
 * (block_seg_exclusive), into r. */
template <class T, class Op>
__device__ __forceinline__ void flag_tile_pass(typename flag_tile<T>::Shared &sh,
                                               const typename flag_tile<T>::Smem &sm,
                                               const tile_share &s, flag_scan<acc_t<T>> &r, int t) {
  typedef typename flag_tile<T>::G G;
  const uint32_t k0 = (uint32_t)t * G::ITEMS;
  flagged<acc_t<T>> mine;
  bool any;
  flag_pass<G::ITEMS, Op>(sm.elems(), k0, s.n_elems, flags_at(sh.bits, k0), mine.v, any, r.lead);
  mine.f = any;
  r.ex = block_seg_exclusive<G::THREADS, Op>(mine, sh.scan, r.agg);
}

/* ---------------------------------------------------------------- a short part, one thread */

/* op over el[from .. to) (the identity if empty; a short part: AUTO's tiles take it up to
 * SHORT_PART elements, the batched reduce's rows up to about 680 bytes), widened with to_acc
 * (the staged elements may be T or already acc_t<T>), in a fixed order: from el[from + k] on,
 * wrapping around, k = lane * (to - from) / 32. Lanes of a warp reading parts of one length thus
 * start in different banks (conflict-free for lengths that divide 32; k = lane mod length would
 * put every 32 / length-th lane in one bank). The order depends on the bounds and the lane
 * alone. */
template <class Op, class S>
__device__ __forceinline__ acc_t<S> part_value(const S *el, uint32_t from, uint32_t to,
                                               uint32_t lane) {
  const Op op;
  if (to <= from)
    return Op::identity();
  const uint32_t len = to - from;
  uint32_t k = (lane * len) >> 5;
  acc_t<S> v = to_acc(el[from + k]);
  for (uint32_t j = 1; j < len; ++j) {
    k = k + 1 == len ? 0u : k + 1;
    v = op(v, to_acc(el[from + k]));
  }
  return v;
}

/* ---------------------------------------------------------------- one segment, one group */

/* A group of G threads (rank r) reduces in[b..e): rank r takes elements b + r, b + r + G, ...,
 * into four accumulators in turn (four loads in flight), combined (a0 op a1) op (a2 op a3). The
 * order depends on b, e and G only. Returns the rank's partial; the caller combines the group's
 * (a warp or block reduction). */
template <int G, class T, class Op>
__device__ __forceinline__ acc_t<T> range_partial(const T *in, uint64_t b, uint64_t e, int r) {
  typedef acc_t<T> A;
  const Op op;
  A a0 = Op::identity(), a1 = a0, a2 = a0, a3 = a0;
  uint64_t i = b + (uint64_t)r;
  for (; i + 3 * (uint64_t)G < e; i += 4 * (uint64_t)G) {
    const T x0 = __ldg(in + i), x1 = __ldg(in + i + G), x2 = __ldg(in + i + 2 * G),
            x3 = __ldg(in + i + 3 * G);
    a0 = op(a0, to_acc(x0));
    a1 = op(a1, to_acc(x1));
    a2 = op(a2, to_acc(x2));
    a3 = op(a3, to_acc(x3));
  }
  for (; i < e; i += G)
    a0 = op(a0, to_acc(__ldg(in + i)));
  return op(op(a0, a1), op(a2, a3));
}

/* Segment s of `src`: [begin, end), empty when the clamped end is not past the begin. */
template <class Src>
__device__ __forceinline__ void segment_bounds(const Src &src, uint64_t s, uint64_t &b,
                                               uint64_t &e) {
  b = src.at(s);
  e = src.at(s + 1);
  if (e < b)
    e = b;
}

/* Warp-per-segment over segments [first, num_segments) with a stride of `stride` warps: the
 * WARP_PER_SEGMENT rung, and the merge path's fallback for offsets that do not increase. */
template <class T, class Op, class Src>
__device__ __forceinline__ void warp_per_segment(const T *in, T *out, const Src &src,
                                                 uint64_t first, uint64_t stride) {
  const int lane = threadIdx.x % 32;
  for (uint64_t s = first; s < src.num_segments; s += stride) {
    uint64_t b, e;
    segment_bounds(src, s, b, e);
    const acc_t<T> v = cta::warp_reduce(range_partial<32, T, Op>(in, b, e, lane), Op());
    if (lane == 0)
      out[s] = from_acc<T>(v);
  }
}

} // namespace cuprim::segmented

#endif
