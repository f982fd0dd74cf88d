/* CUPRIM_SEGMENTED_AUTO and CUPRIM_SEGMENTED_MERGE_PATH: the segmented reduction over the merge
 * of segment ends and elements (segmented_tile.cuh), and the kernel that runs before the tiles of
 * it and of the segmented scan. (cuprim_batched_reduce ran these tiles with computed ends until
 * 0.2's twenty-third run; it has kernels of its own now, segmented_rows.cu.)
 *
 * Three launches:
 *  1. prepare: the merge's partition at every tile boundary, one search over the
 *     offsets each (from where segments of one length would put it: merge_search_near), and the
 *     flag for decreasing offsets and the join's status words zeroed;
 *  2. one block per tile of 23 four-byte (15 eight-byte) merge items per thread: the tile's ends
 *     and elements staged in shared memory; AUTO (flag_reduce_kernel) adds each segment with one
 *     thread where no part of the tile is longer than SHORT_PART elements, each part with the
 *     whole block where the tile holds at most FEW_ENDS ends, each part with a warp where it
 *     holds at most WARP_PARTS_ENDS, and otherwise marks each end's position with a flag and lets
 *     every thread scan ITEMS consecutive elements, restarting at the flags, then every end reads
 *     its segment's value (each tile decides from its offsets alone, on the device); MERGE_PATH
 *     (merge_reduce_kernel) lets each thread
 *     walk its ITEMS merge items in order, writing a segment's value into the slot of its end, and
 *     joins the threads' open segments by a block scan of (segment-start, value) pairs. The
 *     tile's segments are written out coalesced. A tile leaves three things for the segments that
 *     cross its edges: its trailing value C (what follows its last end), its head value H (what
 *     precedes its first end, whose segment may have started in earlier tiles), and whether it
 *     holds an end at all;
 *  3. the join, spread over the GPU: the tiles' (has-end, C) pairs are taken in runs of 1024
 *     tiles (512 for 8-byte values); block g sums its run in a fixed tree and publishes the sum,
 *     looks back over the sums of the runs before it for the value since the last end
 *     (decoupled look-back over published sums only), and writes each of its tiles' first
 *     segment: op(the C's since the last tile with an end, H). Where a tile found the offsets
 *     decreasing, it instead recomputes every segment, one warp each. (Until 0.2's fifth run one
 *     block did the whole join: 100 to 110 us of the H100's time at segments of 16 to 256, 2^28
 *     floats, with one SM busy; until the twenty-ninth the sums were a launch of their own.)
 *
 * Determinism (AUTO's promise, docs/determinism.md): which items a thread combines and in which
 * order follows from the tile size, the thread's rank and the offsets alone; threads are joined by
 * a fixed shuffle tree, tiles by fixed trees over tile indices and runs; which way a tile goes
 * (the short path, the few-ends path, the warp-parts path or the flag tile), and the order in which
 * the first three add a part, follow from the offsets, the tile and the elements' indices alone.
 * Nothing depends on the grid, the GPU, the input's alignment (vector loads and asynchronous copies
 * only fill shared memory), or timing (the atomics are ORs, of a flag or of the tile's
 * has-a-long-part bit, whose order cannot show; the join's look-back combines each run's own sum,
 * never a prefix that another run may or may not have published yet): the same input gives the
 * same bits everywhere.
 * AUTO and MERGE_PATH combine in different orders: each has its own bits.
 *
 * MERGE_PATH is the decomposition done the classic way (moderngpu's segreduce): every thread an
 * equal share of merge items, elements loaded one by one, launches in plain stream order. AUTO
 * keeps the tiles and changes how a tile is worked (the flag tile: no search and no branch per
 * item), with 16-byte loads of the input and launches chained by programmatic dependent launch,
 * so that each kernel's launch overlaps the previous kernel's tail. */
#include "common/check.h"
#include "common/dispatch.cuh"
#include "common/launch.h"
#include "common/launch_config.cuh"
#include "cta/arch.cuh"
#include "segmented_tile.cuh"

namespace cuprim::segmented {
namespace {

constexpr int PREPARE_THREADS = 256, JOIN_THREADS = 128;

__global__ void __launch_bounds__(PREPARE_THREADS) prepare_kernel(const prepare_args a) {
  cta::pdl_launch_dependents(); /* the tiles' kernel waits for this grid in pdl_wait */
  const uint64_t stride = (uint64_t)gridDim.x * PREPARE_THREADS;
  const uint64_t gid = (uint64_t)blockIdx.x * PREPARE_THREADS + threadIdx.x;
  for (uint64_t w = gid; w < a.zero_words; w += stride)
    a.zero[w] = 0;
  if (a.part == NULL)
    return;
  const merge_span m = span_of(a.src);
  for (uint64_t b = gid; b <= a.tiles; b += stride)
    a.part[b] = point_at(a.src, m, b, a.tile);
}

template <class T> struct reduce_args : merge_io<T> {
  acc_t<T> *carry, *head; /* per tile: C and H (see the file comment) */
  unsigned char *has_end; /* per tile: 1 if it holds a segment end */
  unsigned *bad;          /* set by a tile that finds the offsets decreasing */
  /* per run of the join (join_geometry): its records' sum, published with status P where the run
   * holds an end (the value since its last end), A where it does not (zeroed by prepare_kernel) */
  cta::tile_status<acc_t<T>> runs;
  uint64_t tiles;
};

/* MERGE_PATH: one tile of the merge, each thread walking its ITEMS merge items in order.
 * Improves on BLOCK_PER_SEGMENT: every thread has ITEMS items, elements and segment ends alike,
 * whatever the sizes: no idle threads on tiny segments, no lone block on a huge one; offsets and
 * results go through shared memory, so they are read and written coalesced. Wastes: the binary
 * searches of the partitions (a launch, and about log2(num_segments) scattered reads per tile),
 * two more searches per thread in shared memory, and a walk that branches on every item (an end
 * or an element?) with the lanes of a warp taking different sides: on the H100 it issues about 90
 * instructions per item and is bound by them (ncu: 82% of the SM's issue slots, 2.4-way bank
 * conflicts on the ends; 40% of the byte limit at segments of 4). */
template <class T, class Op, class Src>
__global__ void __launch_bounds__(merge_geometry<acc_t<T>>::THREADS)
    merge_reduce_kernel(const Src src, const reduce_args<T> a) {
  typedef acc_t<T> A;
  typedef merge_geometry<A> G;
  typedef tile_smem<sizeof(A), T> Smem;
  __shared__ tile_block_smem<A, sizeof(A), T, 16 / (int)sizeof(T)> sh;
  const Op op;
  const int t = threadIdx.x;
  const uint64_t b = blockIdx.x;
  /* The joining kernel may launch once every tile has started (it waits for this grid to finish
   * before it reads anything); the partitions and the zeroed flag come from prepare_kernel. */
  cta::pdl_launch_dependents();
  cta::pdl_wait();
  tile_share s;
  Smem sm;
  const bool bad = stage_tile<G::THREADS, cta::LOAD_LDG>(src, a.part, b, (uint64_t)G::TILE, a.in,
                                                         false, sh.raw, sm, s, t);
  if (__syncthreads_or(bad || !s.valid)) {
    if (t == 0)
      *a.bad = 1; /* the joining kernel recomputes every segment */
    return;
  }
  const thread_share r = thread_share_of<G::ITEMS>(s, sm, t);
  __syncthreads(); /* every search has read the ends before their slots take values */

  /* The thread's items in merge order: an element joins the open segment; an end closes it. The
   * first end's segment may have begun in earlier threads: its value waits for the block scan.
   * Every other closes a segment that began in this thread: its value goes into the end's slot
   * (only this thread reads that slot from here on). */
  const T *el = sm.elems();
  A acc = Op::identity(), head = acc;
  bool has_end = false;
  uint32_t first = 0;
  thread_share c = r;
  while (c.it < c.it_end || c.jt < c.jt_end) {
    if (next_is_end(c, sm)) {
      if (has_end) {
        sm.template set_value<A>(c.it, acc);
      } else {
        head = acc;
        first = c.it;
        has_end = true;
      }
      acc = Op::identity();
      ++c.it;
    } else {
      acc = op(acc, to_acc(el[c.jt]));
      ++c.jt;
    }
  }
  flagged<A> mine, agg;
  mine.v = acc;
  mine.f = has_end;
  const flagged<A> ex = block_seg_exclusive<G::THREADS, Op>(mine, sh.scan, agg);
  if (has_end) {
    const A v = t == 0 ? head : op(ex.v, head);
    if (ex.f)
      sm.template set_value<A>(first, v);
    else
      a.head[b] = v; /* the tile's first end (slot 0): joined with earlier tiles by the join */
  }
  if (t == 0) {
    a.carry[b] = agg.v;
    a.has_end[b] = s.n_ends > 0 ? 1 : 0;
  }
  __syncthreads();
  for (uint32_t x = t + 1; x < s.n_ends; x += G::THREADS)
    a.out[s.i0 + x] = from_acc<T>(sm.template value<A>(x));
}

/* The longest part of a tile (a segment, or the piece of one at either edge of the tile) for which
 * AUTO's tile takes the short path: one thread per segment. */
constexpr uint32_t SHORT_PART = 64;

/* The most ends a tile may hold for AUTO's tile to take the few-ends path (few_ends_tile).
 * Measured on the H200 (2^28 f32, 0.2's eighteenth run, before the staging was made cheaper): 8
 * made segments of 700 and 1024 6% and 2% slower than as flag tiles (a shuffle tree per part);
 * 4 and 2 were alike at 700, 1024 and from 3072 up, 4 3-4% faster at 1536 and 2048. Since the
 * warp-parts path (0.2's twenty-fourth run, I32 offsets): 2 instead of 4 took segments of 1500
 * from 296.8 to 279.8 us and of 2048 from 286.6 to 280.0 (the warps take those tiles' 4-5 parts),
 * the same elsewhere from 100 to 2^20; 0 made every length from 256 up 6-14% slower (at 256 and
 * 1024 too, where no tile takes either path: not profiled). */
constexpr uint32_t FEW_ENDS = 2;

/* Part p's value v where it goes: p == n_ends is what follows the tile's last end (the identity
 * if that end closes the tile), p == 0 end 0's part, which the join completes (the tile's head),
 * any other p end p's segment. */
template <class T, class A>
__device__ __forceinline__ void put_part(const reduce_args<T> &a, uint64_t b, const tile_share &s,
                                         uint32_t p, A v) {
  if (p == s.n_ends) {
    a.carry[b] = v;
    a.has_end[b] = s.n_ends > 0 ? 1 : 0;
  } else if (p == 0) {
    a.head[b] = v;
  } else {
    a.out[s.i0 + p] = from_acc<T>(v);
  }
}

/* The VEC staged values of a group (at gp, whole 16-byte words of shared memory) into x. */
template <int VEC, class A>
__device__ __forceinline__ void load_group(const uint4 *gp, A (&x)[VEC]) {
  constexpr int PER_WORD = 16 / (int)sizeof(A);
  static_assert(VEC % PER_WORD == 0, "a group is whole 16-byte words of shared memory");
#pragma unroll
  for (int q = 0; q < VEC / PER_WORD; ++q) {
    const uint4 w = gp[q];
    memcpy(x + q * PER_WORD, &w, 16);
  }
}

/* op over the elements of group g (at gp) whose positions lie in [lo, hi), one by one in index
 * order, into acc: a group at the edge of a part. */
template <class Op, int VEC, class A>
__device__ __forceinline__ void few_ends_edge(const uint4 *gp, uint32_t g, uint32_t lo, uint32_t hi,
                                              A &acc) {
  const Op op;
  A x[VEC];
  load_group(gp, x);
#pragma unroll
  for (int j = 0; j < VEC; ++j)
    if (g * VEC + j >= lo && g * VEC + j < hi)
      acc = op(acc, x[j]);
}

/* The partial of rank `me` of RANKS threads (a block, or a warp) over the part [from, to) of a
 * staged tile (tile-relative positions; g0: the tile's groups, as few_ends_tile says): the groups
 * g = me (mod RANKS) that meet the part, in index order, a group wholly in the part as a pairwise
 * tree (tree_reduce), one at the part's edge element by element in index order. The order
 * depends on the part's bounds, the shift and RANKS only. */
template <int RANKS, class Op, int VEC, int WORDS, class A>
__device__ __forceinline__ A part_partial(const uint4 *g0, uint32_t shift, uint32_t from,
                                          uint32_t to, uint32_t me) {
  const Op op;
  A acc = Op::identity();
  if (to <= from)
    return acc;
  const uint32_t lo = from + shift, hi = to + shift; /* the part, from g0 */
  /* The groups that meet it: [g_lo, g_hi); those wholly in it: [in_lo, in_hi). A partial group at
   * its start (g_lo < in_lo) has the smallest index, one at its end (in_hi < g_hi, another group
   * where in_hi >= in_lo) the largest: taken in that order, a thread's groups go in index order. */
  const uint32_t g_lo = lo / VEC, g_hi = (hi + VEC - 1) / VEC;
  const uint32_t in_lo = (lo + VEC - 1) / VEC, in_hi = hi / VEC;
  if (g_lo < in_lo && g_lo % RANKS == me)
    few_ends_edge<Op, VEC>(g0 + (size_t)g_lo * WORDS, g_lo, lo, hi, acc);
  uint32_t g = in_lo + ((me - in_lo) % RANKS);
  const uint4 *gp = g0 + (size_t)g * WORDS;
#pragma unroll 2
  for (; g < in_hi; g += RANKS, gp += RANKS * WORDS) {
    A x[VEC];
    load_group(gp, x);
    acc = op(acc, tree_reduce<Op>(x));
  }
  if (in_hi < g_hi && in_hi >= in_lo && in_hi % RANKS == me)
    few_ends_edge<Op, VEC>(g0 + (size_t)in_hi * WORDS, in_hi, lo, hi, acc);
  return acc;
}

/* AUTO's few-ends path: a staged tile of at most FEW_ENDS ends, whose parts (end x's segment, and
 * what follows the last end) are therefore long, added part by part by the whole block. The tile's
 * elements fall into groups of VEC = 16 / sizeof(T): group g holds the input's elements whose index
 * divided by VEC is g, one 16-byte vector of the input wherever it is aligned (stage_tile puts
 * them at aligned places of shared memory, 16 or 32 bytes a group). Thread t takes the groups
 * g = t (mod THREADS) that meet the part, in order, each in one read of shared memory: a group
 * wholly in the part as a pairwise tree (tree_reduce), one at the part's edge element by element
 * in index order; then a shuffle tree over the lanes, and the warps' values combined in warp order
 * by the thread of the part. The order follows from the elements' indices and the offsets alone,
 * not from the input's alignment. Improves on the flag tile, where segments are long (more than
 * about 1200 elements a segment on average): no flags, no select per element, no block scan and
 * no pass of the ends over the carries; a whole group costs one read of shared memory and VEC
 * ops. Wastes: the staging round trip through shared memory, as the flag tile, and a shuffle tree
 * per part, which is why tiles of more ends go to the warps or stay flag tiles; the setup of each
 * part (about 90 SASS instructions a warp with its shuffle tree, ncu at segments of 4096 on the
 * H200). Measured there (2^28 f32, I32 offsets, a timing program of the session's): segments of
 * 4096 330 -> 302 us with the flag tile's staging, 286 with the cheaper staging of the same run
 * (CUB 242-247), 65536 287 -> 276, 2^20 303 -> 279. Slower, not kept (0.2's nineteenth run, at
 * 4096): the groups loaded straight into registers instead of staged (285 -> 304 us, branch
 * exp/seg-direct; likely because 32 registers a thread cannot hold a tile's six 16-byte loads in
 * flight, where the asynchronous copies hold none: the SASS was not read), and warp-contiguous
 * chunks of groups instead of the striped order (no gain, branch exp/seg-chunked2). */
template <class T, class Op, class A>
__device__ __forceinline__ void few_ends_tile(const A *el, const tile_smem<4, A> &sm,
                                              const tile_share &s, A *warp_part,
                                              const reduce_args<T> &a, uint64_t b, int t) {
  typedef merge_geometry<A> G;
  constexpr int VEC = 16 / (int)sizeof(T), WARPS = G::THREADS / 32;
  constexpr int WORDS = VEC * (int)sizeof(A) / 16; /* 16-byte words a group */
  const Op op;
  const int lane = t % 32, warp = t / 32;
  /* group g: words g0[g * WORDS ..], 16-byte aligned (stage_tile's shift) */
  const uint4 *g0 = reinterpret_cast<const uint4 *>(el - sm.shift);
  const uint32_t me = (uint32_t)t;
  uint32_t from = 0;
  for (uint32_t p = 0; p <= s.n_ends; ++p) { /* uniform over the block */
    const uint32_t to = p < s.n_ends ? sm.end(p) : s.n_elems;
    A acc = part_partial<G::THREADS, Op, VEC, WORDS, A>(g0, sm.shift, from, to, me);
    acc = cta::warp_reduce(acc, op);
    if (lane == 0)
      warp_part[p * WARPS + warp] = acc;
    from = to;
  }
  __syncthreads();
  for (uint32_t p = me; p <= s.n_ends; p += G::THREADS) {
    A v = warp_part[p * WARPS];
#pragma unroll
    for (int w = 1; w < WARPS; ++w)
      v = op(v, warp_part[p * WARPS + w]);
    put_part<T>(a, b, s, p, v);
  }
}

/* The most ends a tile may hold for AUTO's tile to take the warp-parts path (warp_parts_tile),
 * where some part is longer than SHORT_PART and it holds more than FEW_ENDS. Measured on the H200
 * (2^28 f32, I32 offsets, 0.2's twenty-fourth run): with 64, segments of 100 (about 58 ends a
 * tile, 7 parts a warp) took 380 us where the flag tile took 362, and of 128 (46 ends) 342 where
 * it took 363; so 48. */
constexpr uint32_t WARP_PARTS_ENDS = 48;

/* AUTO's warp-parts path: a staged tile of FEW_ENDS + 1 to WARP_PARTS_ENDS ends, some part of which
 * is longer than SHORT_PART. Its parts (end p's segment within the tile, p < n_ends, and what
 * follows the last end, p = n_ends) go to the warps in turn: warp w takes parts w, w + WARPS, ...,
 * each with its 32 lanes in part_partial's order of groups, then a shuffle tree; lane 0 writes it.
 * Improves on the flag tile, for tiles of a few dozen parts: a group of VEC elements costs one read
 * of shared memory and VEC ops instead of about twenty instructions an element, no flags and no
 * block scan; and on the few-ends path, the setup and the shuffle tree of a part are one warp's,
 * not the block's, and no barrier. Wastes: a warp with a long part keeps its lanes on it while
 * the others may idle (at most a tile's worth), and a short part leaves lanes idle, which is why
 * tiles of more ends stay flag tiles. Measured on the H200 (2^28 f32, I32 offsets, 0.2's
 * twenty-fourth run, against the flag tile and the few-ends path of four ends): segments of 128
 * 363 -> 342 us, 256 345 -> 295, 512 316 -> 290, 1024 304 -> 284, 1500 299 -> 280, 2048 288 ->
 * 280; 2048's tiles (2-3 ends) went the few-ends way before. */
template <class T, class Op, class A>
__device__ __forceinline__ void warp_parts_tile(const A *el, const tile_smem<4, A> &sm,
                                                const tile_share &s, const reduce_args<T> &a,
                                                uint64_t b, int t) {
  typedef merge_geometry<A> G;
  constexpr int VEC = 16 / (int)sizeof(T), WARPS = G::THREADS / 32;
  constexpr int WORDS = VEC * (int)sizeof(A) / 16; /* 16-byte words a group */
  const Op op;
  const uint32_t lane = (uint32_t)t % 32;
  /* group g: words g0[g * WORDS ..], 16-byte aligned (stage_tile's shift) */
  const uint4 *g0 = reinterpret_cast<const uint4 *>(el - sm.shift);
  for (uint32_t p = (uint32_t)t / 32; p <= s.n_ends; p += WARPS) {
    const uint32_t from = p == 0 ? 0u : sm.end(p - 1), to = p < s.n_ends ? sm.end(p) : s.n_elems;
    A v = part_partial<32, Op, VEC, WORDS, A>(g0, sm.shift, from, to, lane);
    v = cta::warp_reduce(v, op);
    if (lane == 0)
      put_part<T>(a, b, s, p, v);
  }
}

/* AUTO: the same tiles of the merge, staged in shared memory as MERGE_PATH's, then worked one of
 * four ways, chosen per tile from its offsets alone: where every part of the tile is at most
 * SHORT_PART elements, one thread per segment (the short path); where it holds at most FEW_ENDS
 * ends, part by part with the whole block (the few-ends path, few_ends_tile); where it holds at
 * most WARP_PARTS_ENDS, each part with one warp (warp_parts_tile); otherwise element by element
 * with the segment ends as flags (the flag tile, segmented_tile.cuh, flag_words).
 * Improves on MERGE_PATH: no search and no branch per item. The flag tile: the tile's ends set
 * their flags in shared memory (a thread's run of consecutive ends gathers its bits word by word,
 * one atomic per word it touches: set_flags_of_ends); thread t then scans its ITEMS
 * consecutive elements, restarting at each flag, with a select instead of a branch, and leaves the
 * value of each segment that ends in its range where that segment's last element was; the block's
 * segmented scan of the threads' (flag, value) pairs gives each thread what came before it, and
 * the ends, taken by the threads in turn (end x by thread x mod THREADS), read their segments'
 * values (plus that carry where a segment began in an earlier thread) and write them out
 * coalesced. The short path (0.2's sixth run): thread x mod THREADS adds end x's segment from
 * shared memory (part_value), a few instructions per element where the flag tile spends about
 * twenty, and none per end for flags. Also 16-byte loads of the input (asynchronous copies into
 * shared memory on 8.0 and later, which hold no registers and no L1, so that eight blocks fit an
 * H100 SM), and launches chained by programmatic dependent launch.
 * Measured (H100, 2^28 f32, I32 offsets): the fourth run's flag tile took segments of 4 in 947 us
 * instead of MERGE_PATH's 1313 (56% of the byte limit instead of 40%), of 1024 in 517 instead of
 * 634, of 65536 in 401 instead of 471; the sixth run's short path and eight blocks per SM
 * (docs/ladder.md, "The sixth run") took them to about 85%, 88% and 92%. On the H200 the flag tile
 * was bound by its instructions (ncu: 91% of the issue slots at segments of 4096, about 600 SASS
 * instructions a warp per tile); the eighteenth run's few-ends path and cheaper staging took 4096
 * from 330 to 286 us (0.75 to 0.85 of CUB) and 463 instructions a warp. The twenty-fourth run's
 * ends in the offsets' width (load_ends) took segments of 1 from 1357 to 963 us (1.105e9 -> 0.812e9
 * warp instructions) and 4 from 508 to 433, and its warp-parts path 256 from 345 to 295; the
 * twenty-fifth run's flags without match.any took the power law from 681.5 to 623.8 us and
 * segments of 65 from 371.2 to 317.7 (all H200). Wastes: segments of one or two elements (the ends
 * cost more than the elements), the elements' round trip through shared memory, a chain of
 * dependent phases per tile (partitions, ends, elements, the work, the results: ncu's samples at
 * the power law put a fifth of the stalls on the partition's load at the block's start, and a
 * twelfth on the barrier after the staging), and the partitions' and the join's launches, as
 * MERGE_PATH. */
template <class T, class Op, class Src>
__global__ void __launch_bounds__(flag_tile<T>::G::THREADS, flag_tile<T>::MIN_BLOCKS)
    flag_reduce_kernel(const Src src, const reduce_args<T> a) {
  typedef flag_tile<T> K;
  typedef typename K::A A;
  typedef typename K::G G;
  __shared__ typename K::Shared sh;
  __shared__ A carry[G::THREADS];
  __shared__ unsigned has_long; /* some part of the tile is longer than SHORT_PART */
  const Op op;
  const int t = threadIdx.x;
  const uint64_t b = blockIdx.x;
  if (t == 0)
    has_long = 0;
  /* As merge_reduce_kernel: the join may launch now, the partitions come from prepare_kernel. */
  cta::pdl_launch_dependents();
  cta::pdl_wait();
  /* No L2 prefetch of the tile (the merge scan's prefetch_tile, until 0.2's twenty-second run;
   * measured with the batched reduce's rows, which ran these tiles then): before 9.0 the prefetch
   * of every line by the block's threads made it 3-10% slower (80-virtual on an H200, 2026-11-28
   * 19:51 UTC), and on 9.0 the bulk prefetch 10-18% slower at every row length from 64 to 2^20
   * (H200, 0.2's eighteenth run: 321.0 against 269.2 us at 4096). */
  __syncthreads(); /* has_long is zero before any thread sets it */
  tile_share s;
  typename K::Smem sm;
  uint32_t longest = 0;
  const bool bad = stage_tile<G::THREADS, cta::LOAD_LDG>(
      src, a.part, b, (uint64_t)G::TILE, a.in, cta::aligned16(a.in), sh.raw, sm, s, t, &longest);
  if (s.n_ends > FEW_ENDS) /* a flag tile, perhaps: its flags zeroed before the barrier below */
    sh.clear_flags(t);
  if (t == 0 && s.n_ends == 0)
    longest = s.n_elems; /* the whole tile is one part */
  if (longest > SHORT_PART)
    atomicOr(&has_long, 1u);
  if (__syncthreads_or(bad || !s.valid)) {
    if (t == 0)
      *a.bad = 1; /* the joining kernel recomputes every segment */
    return;
  }
  const A *el = sm.elems();
  T *const out = a.out + s.i0; /* end x's segment's result: out[x] */
  if (!has_long) {             /* the short path */
    for (uint32_t x = t; x < s.n_ends; x += G::THREADS) {
      const uint32_t e = sm.end(x), from = x == 0 ? 0u : sm.end(x - 1);
      const A v = part_value<Op>(el, from, e, (uint32_t)t % 32);
      if (x == 0)
        a.head[b] = v; /* end 0's part; the join completes it */
      else
        out[x] = from_acc<T>(v);
    }
    if (t == G::THREADS - 1) { /* what follows the last end: the identity if it closes the tile */
      const uint32_t from = s.n_ends > 0 ? sm.end(s.n_ends - 1) : 0u;
      a.carry[b] = part_value<Op>(el, from, s.n_elems, 0u);
      a.has_end[b] = s.n_ends > 0 ? 1 : 0;
    }
    return;
  }
  if (s.n_ends <= FEW_ENDS) {
    static_assert((FEW_ENDS + 1) * (G::THREADS / 32) <= G::THREADS, "the parts' warp values fit");
    few_ends_tile<T, Op>(el, sm, s, carry, a, b, t);
    return;
  }
  if (s.n_ends <= WARP_PARTS_ENDS) {
    warp_parts_tile<T, Op>(el, sm, s, a, b, t);
    return;
  }
  set_flags_of_ends<G::THREADS>(sm, s.n_ends, sh.bits, t);
  __syncthreads();
  flag_scan<A> r;
  flag_tile_pass<T, Op>(sh, sm, s, r, t);
  carry[t] = r.ex.v; /* what precedes thread t since the last flag before it */
  __syncthreads();
  /* End x closes the segment [end x - 1, end x) of the tile's elements; end 0's segment may have
   * begun in earlier tiles: its part here is the tile's head, which the join completes. A
   * segment's last element p holds its value from where the segment or p's thread began,
   * whichever is later; the thread's carry adds the rest. */
  for (uint32_t x = t; x < s.n_ends; x += G::THREADS) {
    const uint32_t r = sm.end(x), from = x == 0 ? 0u : sm.end(x - 1);
    A v = Op::identity();
    if (r > from) {
      const uint32_t p = r - 1, tt = p / G::ITEMS;
      v = el[p];
      if (from < tt * G::ITEMS)
        v = op(carry[tt], v);
    }
    if (x == 0)
      a.head[b] = v;
    else
      out[x] = from_acc<T>(v);
  }
  if (t == 0) { /* what follows the tile's last end: nothing if that end closes the tile */
    const bool closed = s.n_ends > 0 && sm.end(s.n_ends - 1) == s.n_elems;
    a.carry[b] = closed ? Op::identity() : r.agg.v;
    a.has_end[b] = s.n_ends > 0 ? 1 : 0;
  }
}

/* The join's records, spread over the GPU: a block takes a run of RUN consecutive tiles, RECORDS a
 * thread, so that its loads are 16-byte vectors (the values, 32 bytes a thread; the flags, 8 or 4
 * bytes): 1024 tiles a run for 4-byte values, 512 for 8-byte ones. */
template <class A> struct join_geometry {
  static constexpr int RECORDS = 32 / (int)sizeof(A);
  static constexpr int RUN = JOIN_THREADS * RECORDS;
};

/* Tile records e0 .. e0 + RECORDS - 1 (those below `tiles`; the rest the identity, no end). */
template <class A, class Op>
__device__ __forceinline__ void load_records(const A *carry, const unsigned char *has_end,
                                             uint64_t e0, uint64_t tiles,
                                             flagged<A> (&rec)[join_geometry<A>::RECORDS]) {
  constexpr int R = join_geometry<A>::RECORDS, VEC = 16 / (int)sizeof(A);
  if (e0 + R <= tiles) {
    A v[R];
    unsigned char f[R];
#pragma unroll
    for (int k = 0; k < R; k += VEC) {
      A x[VEC];
      cta::load_vec16<cta::LOAD_PLAIN>(carry + e0 + k, x);
#pragma unroll
      for (int j = 0; j < VEC; ++j)
        v[k + j] = x[j];
    }
    if constexpr (R == 8) { /* R bytes at a multiple of R: one vector load */
      const uint2 w = *reinterpret_cast<const uint2 *>(has_end + e0);
      memcpy(f, &w, 8);
    } else {
      static_assert(R == 4, "8 or 4 records a thread");
      const unsigned w = *reinterpret_cast<const unsigned *>(has_end + e0);
      memcpy(f, &w, 4);
    }
#pragma unroll
    for (int k = 0; k < R; ++k) {
      rec[k].v = v[k];
      rec[k].f = f[k];
    }
  } else {
#pragma unroll
    for (int k = 0; k < R; ++k) {
      rec[k] = seg_identity<Op, A>();
      if (e0 + k < tiles) {
        rec[k].v = carry[e0 + k];
        rec[k].f = has_end[e0 + k];
      }
    }
  }
}

/* Thread t's records of run g, combined in order (rec keeps them); the caller scans the block's. */
template <class T, class Op, class A = acc_t<T>>
__device__ __forceinline__ flagged<A> thread_records(const reduce_args<T> &a, uint64_t g,
                                                     flagged<A> (&rec)[join_geometry<A>::RECORDS]) {
  typedef join_geometry<A> J;
  load_records<A, Op>(a.carry, a.has_end, g * J::RUN + (uint64_t)threadIdx.x * J::RECORDS, a.tiles,
                      rec);
  flagged<A> mine = rec[0];
#pragma unroll
  for (int k = 1; k < J::RECORDS; ++k)
    mine = seg_combine<Op>(mine, rec[k]);
  return mine;
}

/* The join, one launch chained to the tiles' kernel: block g takes run g of the tiles'
 * (has-end, C) records, sums them in a fixed tree (block_seg_exclusive) and publishes the sum at
 * once (cta::tile_status: status P where the run holds an end, A where it does not), then warp 0
 * looks back over the runs before it (cta::look_back, 32 runs a step from g - 1 down, until a run
 * with an end) for the value since the last end before the run, and the block writes the first
 * segment of each of its tiles that holds an end: op(the C's of the tiles since the last one with
 * an end, H). Only published sums are combined, never a prefix, so the order follows from the
 * offsets alone; a run waits only for runs before it, whose blocks were dispatched first (the
 * scans' look-back rests on the same), and at most a few hundred runs at 2^28 elements are all
 * resident at once. With offsets that a tile found decreasing, every block instead recomputes
 * every segment, one warp each (grid-stride).
 * Until 0.2's twenty-ninth run the sums came from a launch of their own (join_sums_kernel) and
 * block g combined runs 0 .. g-1 in a fixed tree; its loop over the tiles read each head and end
 * after the previous tile's write, eight dependent trips a thread (H200, 2^28 f32 in segments of
 * 4096, ncu: 3.3-3.5 and 7.2-7.6 us one after the other; this kernel 6.8-7.5). A call of AUTO
 * took 4.3-6.9 us less from 1 to 65536 elements a segment (4096: 281.1 -> 274.4 us), the same
 * bits. A join in the tiles' kernel itself, by the last tile of each run to finish (a counter per
 * run), made that kernel 283 -> 384 us at segments of 4096 (0.2's twentieth run): each tile's
 * block then ended with a fence and an atomic round trip, holding its slot of the SM about 2 us
 * longer with nothing to load. */
template <class T, class Op, class Src>
__global__ void __launch_bounds__(JOIN_THREADS) join_kernel(const Src src, const reduce_args<T> a) {
  typedef acc_t<T> A;
  typedef join_geometry<A> J;
  __shared__ flagged<A> scan_smem[JOIN_THREADS / 32 + 1];
  __shared__ A s_prefix;
  const Op op;
  const int t = threadIdx.x;
  cta::pdl_wait(); /* the tiles have finished and their writes are visible */
  if (*a.bad) {
    const uint64_t warps = (uint64_t)gridDim.x * (JOIN_THREADS / 32);
    warp_per_segment<T, Op>(a.in, a.out, src, (uint64_t)blockIdx.x * (JOIN_THREADS / 32) + t / 32,
                            warps);
    return;
  }
  const uint64_t g = blockIdx.x;
  if (g * J::RUN >= a.tiles)
    return; /* a block of the fallback's grid past the runs */
  flagged<A> rec[J::RECORDS], agg;
  const flagged<A> ex =
      block_seg_exclusive<JOIN_THREADS, Op>(thread_records<T, Op>(a, g, rec), scan_smem, agg);
  if (t == 0)
    a.runs.publish(g, agg.f ? cta::STATUS_P : cta::STATUS_A, agg.v);
  /* The heads and ends of the thread's tiles with an end, all loads in flight together. */
  const uint64_t e0 = g * J::RUN + (uint64_t)t * J::RECORDS;
  A h[J::RECORDS];
  uint64_t at[J::RECORDS];
#pragma unroll
  for (int k = 0; k < J::RECORDS; ++k) {
    const bool mine = e0 + k < a.tiles && rec[k].f;
    h[k] = mine ? a.head[e0 + k] : A();
    at[k] = mine ? a.part[e0 + k].ends : 0; /* the end of tile e's first segment */
  }
  if (t < 32) {
    const A p = g == 0 ? Op::identity() : cta::look_back<A, Op>(a.runs, g, t);
    if (t == 0)
      s_prefix = p;
  }
  __syncthreads();
  flagged<A> pre; /* everything before the thread's first tile */
  pre.v = s_prefix;
  pre.f = false;
  pre = seg_combine<Op>(pre, ex);
#pragma unroll
  for (int k = 0; k < J::RECORDS; ++k) {
    const uint64_t e = e0 + k;
    if (e < a.tiles && rec[k].f)
      a.out[at[k]] = from_acc<T>(e == 0 ? h[k] : op(pre.v, h[k]));
    pre = seg_combine<Op>(pre, rec[k]);
  }
}

template <class T, class Op, class Src>
cuprim_status merge_reduce(typed_op<T, Op>, const cuprim_ctx *ctx, bool tuned, const void *d_in,
                           void *d_out, const Src &src, uint64_t n, cudaStream_t stream) {
  typedef acc_t<T> A;
  typedef merge_geometry<A> G;
  /* n: the elements any offset can reach (the merge may have fewer). */
  uint64_t tiles = 0;
  CUPRIM__FORWARD(merge_tiles(ctx, src.num_segments, n, G::TILE, &tiles));
  temp_layout lay;
  /* First the words prepare_kernel zeroes: the flag for decreasing offsets and the runs' status
   * words (status.zero_words counts both). */
  const size_t bad_at = lay.take(16);
  const uint64_t runs = (tiles + join_geometry<A>::RUN - 1) / join_geometry<A>::RUN;
  const status_pieces<A> status(lay, runs);
  const size_t part_at = lay.take((size_t)(tiles + 1) * sizeof(merge_point));
  const size_t carry_at = lay.take((size_t)tiles * sizeof(A));
  const size_t head_at = lay.take((size_t)tiles * sizeof(A));
  const size_t flags_at = lay.take((size_t)tiles);
  return with_temp(ctx, lay, stream, [&] {
    reduce_args<T> a;
    point_merge_io(lay, part_at, static_cast<const T *>(d_in), static_cast<T *>(d_out), a);
    a.carry = lay.at<A>(carry_at);
    a.head = lay.at<A>(head_at);
    a.has_end = lay.at<unsigned char>(flags_at);
    a.bad = lay.at<unsigned>(bad_at);
    status.place(lay, a.runs);
    a.tiles = tiles;
    /* the partitions, and the flag and the runs' statuses zeroed */
    CUPRIM__FORWARD(prepare(ctx, src, lay.at<merge_point>(part_at), tiles, G::TILE,
                            lay.at<void>(bad_at), status.zero_words, stream));
    void (*tile_kernel)(const Src, const reduce_args<T>) =
        tuned ? flag_reduce_kernel<T, Op, Src> : merge_reduce_kernel<T, Op, Src>;
    cudaLaunchAttribute attr;
    cudaLaunchConfig_t cfg = pdl_config(ctx, (unsigned)tiles, G::THREADS, stream, &attr);
    if (!tuned)
      cfg.numAttrs = 0;
    CUPRIM__CUDA_CHECK(cudaLaunchKernelEx(&cfg, tile_kernel, src, a));
    /* The join: a block per run; the fallback for decreasing offsets wants the whole GPU. */
    const unsigned join_grid =
        runs < (uint64_t)ctx->attrs.sm_count ? (unsigned)ctx->attrs.sm_count : (unsigned)runs;
    cudaLaunchAttribute attr2;
    cudaLaunchConfig_t cfg2 = pdl_config(ctx, join_grid, JOIN_THREADS, stream, &attr2);
    if (!tuned)
      cfg2.numAttrs = 0;
    return cuprim__cuda_status(cudaLaunchKernelEx(&cfg2, join_kernel<T, Op, Src>, src, a));
  });
}

} // namespace

cuprim_status launch_prepare(const cuprim_ctx *ctx, const prepare_args &a, cudaStream_t stream) {
  const uint64_t work =
      a.part ? (a.tiles + 1 > a.zero_words ? a.tiles + 1 : a.zero_words) : a.zero_words;
  const uint64_t blocks = (work + PREPARE_THREADS - 1) / PREPARE_THREADS;
  const unsigned grid = (unsigned)cuprim__grid_persistent(ctx, blocks, PREPARE_THREADS, 0);
  prepare_kernel<<<grid, PREPARE_THREADS, 0, stream>>>(a);
  return cuprim__cuda_status(cudaPeekAtLastError());
}

} // namespace cuprim::segmented

extern "C" cuprim_status cuprim__segmented_reduce(const cuprim_ctx *ctx, cuprim_segmented_alg alg,
                                                  const void *d_in, void *d_out,
                                                  const cuprim__segments *seg, cuprim_dtype dtype,
                                                  cuprim_op op, cudaStream_t stream) {
  using namespace cuprim::segmented;
  if (alg != CUPRIM_SEGMENTED_AUTO && alg != CUPRIM_SEGMENTED_MERGE_PATH)
    return cuprim__segmented_reduce_ladder(ctx, alg, d_in, d_out, seg, dtype, op, stream);
  if (seg->d_offsets == NULL)
    return CUPRIM_ERROR_INTERNAL; /* rows: cuprim__batched_reduce (segmented_rows.cu) */
  const bool tuned = alg == CUPRIM_SEGMENTED_AUTO;
  return dispatch_offsets(dtype, op, *seg, [&](auto m, const auto &src) {
    return merge_reduce(m, ctx, tuned, d_in, d_out, src, seg->n, stream);
  });
}
