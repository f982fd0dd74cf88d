/* cuprim_segmented_scan and cuprim_batched_scan: a single-pass scan of (segment-start, value)
 * pairs over the merge of segment ends and elements (segmented_tile.cuh), tiles chained by
 * decoupled look-back (cta/lookback.cuh). Two launches: prepare (the partitions of the merge for
 * offsets, and the tile status zeroed), then one block per tile:
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

template <class T, class Op, class Src>
cuprim_status merge_scan(typed_op<T, Op>, const cuprim_ctx *ctx, const void *d_in, void *d_out,
                         const Src &src, uint64_t n, cuprim_scan_kind kind, cudaStream_t stream) {
  typedef acc_t<T> A;
  typedef merge_geometry<A> G;
  uint64_t tiles = 0;
  CUPRIM__FORWARD(merge_tiles(ctx, src.num_segments, n, G::TILE, &tiles));
  /* [status words | (8-byte values) aggregates | inclusive prefixes | (offsets) partitions]; the
   * status words are zeroed by the prepare kernel. */
  typedef cta::tile_status<A> TS;
  const bool offsets = !Src::rows;
  temp_layout lay;
  const size_t status_at = lay.take((size_t)tiles * TS::STATUS_BYTES);
  const size_t zero_bytes = lay.bytes;
  const size_t aggregate_at = TS::HAS_VALUES ? lay.take((size_t)tiles * sizeof(A)) : 0;
  const size_t inclusive_at = TS::HAS_VALUES ? lay.take((size_t)tiles * sizeof(A)) : 0;
  const size_t part_at = offsets ? lay.take((size_t)(tiles + 1) * sizeof(merge_point)) : 0;
  return with_temp(ctx, lay, stream, [&] {
    scan_args<T> a;
    point_merge_io<Src>(lay, part_at, static_cast<const T *>(d_in), static_cast<T *>(d_out), a);
    a.exclusive = kind == CUPRIM_EXCLUSIVE;
    a.ts.place(lay.at<void>(status_at), lay.at<A>(aggregate_at), lay.at<A>(inclusive_at));
    CUPRIM__FORWARD(prepare(ctx, src, lay.at<merge_point>(part_at), tiles, G::TILE,
                            lay.at<void>(status_at), zero_bytes / 8, stream));
    return cuprim__cuda_status(launch_chained(ctx, (unsigned)tiles, G::THREADS, 0, stream,
                                              merge_scan_kernel<T, Op, Src>, src, a));
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
    return merge_scan(m, ctx, d_in, d_out, src, seg->n, kind, stream);
  });
}
