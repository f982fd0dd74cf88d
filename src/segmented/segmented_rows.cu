/* cuprim_batched_reduce: rows of one length L, known on the host. No offset is read, no partition
 * searched, and no tile shares a row with another (the merge's join), so each length gets the
 * kernel that suits it:
 *  - rows of at most about 680 bytes (small_rows_kernel): a block stages a tile of whole rows in
 * shared memory with 16-byte copies, and each row is combined by one thread (part_value);
 *  - longer rows (row_pieces_kernel): a team of 8, 16 or 32 lanes takes a piece of one row, at
 *    most 8192 four-byte elements, with 16-byte loads straight into registers; a row of several
 *    pieces leaves one value per piece, and the same kernel then reduces those values as rows of
 *    their own, in one more pass per factor of 1024 (four-byte values) in the number of pieces.
 * Until 0.2's twenty-third run the batched reduce was AUTO's merge with computed ends
 * (segmented_merge.cu): 51% of the byte limit at rows of 1 (a tile held as many ends as elements)
 * and 0.89-0.92 of CUB from rows of 4096 up (the staging round trip, the join's launches).
 *
 * Determinism (docs/determinism.md): a row's order follows from L, the dtype and the row's index:
 * small rows by the thread order of part_value, whose lane is the row's rank in its tile mod 32
 * (tiles of CAP / L rows); pieces by element index (groups of 16 / sizeof(T) elements at
 * multiples of that index, each a pairwise tree; the lane of rank r in a team of G (G from L)
 * takes groups r, r + G, ... of the piece, the k-th into accumulator k mod 8, after the partial
 * groups at the piece's ends; then a pairwise tree over the accumulators and a shuffle tree over
 * the team), and a row's piece values by the same rule. Loads of 16 bytes where the input is
 * aligned, of one element otherwise: the same groups in the same order, so the same bits. */
#include "common/check.h"
#include "common/dispatch.cuh"
#include "common/launch.h"
#include "common/launch_config.cuh"
#include "cta/arch.cuh"
#include "segmented_tile.cuh"

namespace cuprim::segmented {
namespace {

constexpr int ROWS_THREADS = 256, ROWS_WARPS = ROWS_THREADS / 32;

/* small_rows_kernel's tile: CAP elements staged (four 16-byte vectors a thread, 16 KiB), that is
 * CAP / L whole rows (CAP where L is 0). AUTO takes it for rows of at most MAX_LEN = CAP / 24
 * elements (170 four-byte ones, 85 eight-byte, 341 two-byte): 24 rows a tile or more. Measured on
 * the H200 (2^28 f32, 0.2's twenty-third run, against row_pieces_kernel as kept): rows of 129 in
 * 270 us this way and 296 as pieces, 160 in 262 and 271, 192 in 273 and 264, 256 in 327 (16 threads
 * of 256 busy) and 257. */
template <class T> struct small_rows {
  static constexpr int VEC = 16 / (int)sizeof(T);
  static constexpr uint32_t CAP = (uint32_t)ROWS_THREADS * 4 * VEC;
  static constexpr uint64_t MAX_LEN = CAP / 24;
  __host__ __device__ static uint32_t per_tile(uint32_t len) { return len ? CAP / len : CAP; }
  /* Blocks a multiprocessor should hold: eight (the whole SM on 9.0), fewer where it holds fewer
   * threads (cta::sm_threads). */
  static constexpr int MIN_BLOCKS =
      8 * ROWS_THREADS <= cta::sm_threads ? 8 : cta::sm_threads / ROWS_THREADS;
};

/* Rows of len <= CAP, a tile of per_tile(len) rows a block (grid-stride over the tiles): the tile's
 * elements staged in shared memory (16-byte copies where the input is aligned; elements at either
 * end of the tile one by one), then row x of the tile combined by thread x mod 256 (part_value,
 * lane x mod 32) and written out, coalesced.
 * Improves on the merge (AUTO's short tiles): a tile is whole rows, so it holds CAP elements where
 * the merge's held half as many elements as items (an end per row), no ends are staged, and
 * nothing is left for a join. Wastes: the round trip through shared memory (the elements are read
 * in one order and combined in another), and from rows of 17 up (four-byte elements) idle threads:
 * a tile has CAP / L rows for 256 threads. */
template <class T, class Op>
__global__ void __launch_bounds__(ROWS_THREADS, small_rows<T>::MIN_BLOCKS)
    small_rows_kernel(const T *in, T *out, uint64_t rows, uint32_t len, uint64_t tiles) {
  typedef small_rows<T> G;
  /* the tile, from `line` bytes and `shift` elements on */
  __shared__ alignas(128) T sh[G::CAP + G::VEC + 128 / sizeof(T)];
  const int t = threadIdx.x;
  const uint32_t per = G::per_tile(len);
  const bool vec = cta::aligned16(in);
  for (uint64_t b = blockIdx.x; b < tiles; b += gridDim.x) {
    const uint64_t r0 = b * per, left = rows - r0;
    const uint32_t nr = left < per ? (uint32_t)left : per;
    const uint64_t lo = r0 * len;
    const uint32_t shift = (uint32_t)(lo % G::VEC);
    /* Element lo + k at el[k]: aligned input vectors on aligned words, as far into a 128-byte
     * line of shared memory as into one of the input, so that each 16-byte copy lands at the
     * same place of a line as it comes from (tile_smem's comment in segmented_tile.cuh says why;
     * here rows of 1 at 2^28 f32 took 525.8 -> 520.4 us, H200, and every other length within
     * 0.3%). */
    const uint32_t line = line_of(in + lo);
    T *el = sh + line / sizeof(T) + shift;
    stage_elements<ROWS_THREADS, cta::LOAD_LDG>(in, lo, nr * len, shift, vec, el, t);
    __syncthreads();
    for (uint32_t x = (uint32_t)t; x < nr; x += ROWS_THREADS)
      out[r0 + x] = from_acc<T>(part_value<Op>(el, x * len, x * len + len, x % 32));
    __syncthreads(); /* every row is read before the next tile is staged */
  }
}

/* row_pieces_kernel's pieces: at most 64 groups of 16 bytes a lane (PIECE: 8192 four-byte
 * elements) in the pass over the input, one round of LOADS groups a lane (ROUND: 1024 four-byte
 * values) in the passes over pieces' values, whose rows are few: a single row of 2^28 floats
 * leaves 32768 values, which 32 warps then take in a round each instead of 4 warps in 8 rounds
 * each (about 1.5 us a round on the H200). A row of more is cut into per_row = ceil(L / most)
 * pieces of one length, piece_len: ceil(L / per_row) rounded up to whole groups of the warp, so
 * that no piece is a sliver (rows of 8193: two pieces of 4224 and 3969 elements, not 8192 and 1).
 * A piece is reduced by a team of lanes, team(L) of them: the smallest of 8, 16 and 32 that leaves
 * each lane at most LOADS groups of a row of one piece, all its loads issued together (rows of 33
 * to 64 groups four a warp, 65 to 128 two; as a warp a row, with four loads a lane, rows of 129
 * four-byte elements took 501 us against 258 for rows of 128 as small rows, on the H200 in 0.2's
 * twenty-third run). Eight groups in flight a lane at five blocks an SM (48 registers) against
 * four at eight (32 registers): 1-9% faster at every length from 160 to 2^28 in the same run,
 * 4096 252.7 against 256.3 us. */
template <class TI> struct row_pieces {
  static constexpr int VEC = 16 / (int)sizeof(TI);
  static constexpr int LOADS = 8;
  static constexpr uint64_t WARP_GROUPS = 32ull * VEC; /* elements of a group a lane */
  static constexpr uint64_t PIECE = WARP_GROUPS * 64, ROUND = WARP_GROUPS * LOADS;
  /* `first`: the pass over the input. */
  __host__ static uint64_t piece_len(uint64_t len, bool first) {
    const uint64_t most = first ? PIECE : ROUND;
    const uint64_t per_row = (len + most - 1) / most;
    const uint64_t even = (len + per_row - 1) / per_row;
    return (even + WARP_GROUPS - 1) / WARP_GROUPS * WARP_GROUPS;
  }
  static constexpr int MIN_BLOCKS = small_rows<TI>::MIN_BLOCKS > 5 ? 5 : small_rows<TI>::MIN_BLOCKS;
  __host__ static uint32_t team(uint64_t len) {
    const uint64_t groups = (len + VEC - 1) / VEC; /* of a piece, at most (rows of one piece) */
    uint32_t t = 32;
    while (t > 8 && (uint64_t)(t / 2) * LOADS >= groups)
      t /= 2;
    return t;
  }
};

/* One group of VEC elements (16 bytes, at an index that is a multiple of VEC), pairwise. */
template <class Op, bool VECTOR, class TI>
__device__ __forceinline__ acc_t<TI> group_value(const TI *p) {
  constexpr int VEC = 16 / (int)sizeof(TI);
  TI x[VEC];
  if constexpr (VECTOR) {
    cta::load_vec16<cta::LOAD_LDG>(p, x);
  } else {
#pragma unroll
    for (int j = 0; j < VEC; ++j)
      x[j] = cta::load<cta::LOAD_LDG>(p + j);
  }
  acc_t<TI> v[VEC];
  to_acc_n<TI, VEC>(x, v);
  return tree_reduce<Op>(v);
}

/* The whole groups [gs, ge) of a piece: the lane of rank r in a team of `team` takes groups
 * gs + r + team k, the k-th into acc[k mod LOADS], LOADS of them a round (all of a round's loads
 * issued before any is used). */
template <class Op, bool VECTOR, class TI>
__device__ __forceinline__ void piece_groups(const TI *in, uint64_t gs, uint64_t ge, uint32_t rank,
                                             uint32_t team,
                                             acc_t<TI> (&acc)[row_pieces<TI>::LOADS]) {
  typedef row_pieces<TI> G;
  constexpr int U = G::LOADS;
  const Op op;
  for (uint64_t g = gs + rank; g < ge; g += (uint64_t)U * team) {
    acc_t<TI> v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const uint64_t gu = g + (uint64_t)u * team;
      v[u] = gu < ge ? group_value<Op, VECTOR>(in + gu * G::VEC) : Op::identity();
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
      acc[u] = op(acc[u], v[u]);
  }
}

/* Rows of len elements of TI (len > 0), cut into per_row pieces of `piece` elements (the last one
 * shorter; row_pieces::piece_len), each reduced by a team of `team` lanes (8, 16 or 32;
 * row_pieces::team): team j of warp w of the grid (grid-stride) takes piece w * (32 / team) + j
 * (row piece / per_row), and writes its value to out[piece] as TO: the row's result where per_row
 * is 1, else the piece's value, for another pass over rows of per_row values. Groups of VEC
 * elements at multiples of VEC by index; the elements before the piece's first whole group go to
 * ranks 0.. as acc[0]'s first value, those after its last whole group to ranks 0.. as acc[1]'s;
 * then piece_groups, a pairwise tree over the accumulators (tree_reduce), and a shuffle tree over
 * the team; 16-byte loads where the input is aligned.
 * Improves on the merge (AUTO's tiles of few ends, and the batched reduce until the twenty-third
 * run): the loads go straight into registers, eight 16-byte groups in flight a lane, with no
 * staging, no partition and no join beyond the pieces' pass; and on WARP_PER_SEGMENT: 16-byte
 * loads, no offsets, a long row shared by many warps, a short one by a part of a warp. Wastes: a
 * pass more for rows of several pieces (a launch, chained by programmatic dependent launch, and 4
 * of every 8192 bytes written and read again), and the slots of a round that a row does not fill
 * (rows of 65 groups: a team of 16, each lane 4 or 5 groups of its 8; 287 us at rows of 257
 * four-byte elements against 257 at 256, on the H200 in the twenty-third run). */
template <class TI, class TO, class Op>
__global__ void __launch_bounds__(ROWS_THREADS, row_pieces<TI>::MIN_BLOCKS)
    row_pieces_kernel(const TI *in, TO *out, uint64_t rows, uint64_t len, uint64_t piece,
                      uint64_t per_row, uint32_t team) {
  typedef acc_t<TI> A;
  typedef row_pieces<TI> G;
  constexpr int VEC = G::VEC;
  const Op op;
  const uint32_t lane = threadIdx.x % 32, rank = lane % team, teams = 32 / team;
  const bool vec = cta::aligned16(in);
  cta::pdl_launch_dependents(); /* the next pass, if any, waits for this grid in pdl_wait */
  cta::pdl_wait();              /* a later pass: the previous pass's values are written */
  const uint64_t pieces = rows * per_row, tasks = (pieces + teams - 1) / teams;
  const uint64_t stride = (uint64_t)gridDim.x * ROWS_WARPS;
  for (uint64_t wt = (uint64_t)blockIdx.x * ROWS_WARPS + threadIdx.x / 32; wt < tasks;
       wt += stride) { /* uniform over the warp: every lane reaches the shuffles */
    const uint64_t w = wt * teams + lane / team;
    A v = Op::identity();
    if (w < pieces) {
      const uint64_t r = per_row == 1 ? w : w / per_row, p = w - r * per_row;
      const uint64_t s = r * len + p * piece, row_end = (r + 1) * len;
      const uint64_t e = row_end - s > piece ? s + piece : row_end;
      /* whole groups [gs, ge); the partial ones before and after them */
      const uint64_t gs = (s + VEC - 1) / VEC, ge = e / VEC;
      const bool body = gs < ge;
      const uint64_t head_end = body ? gs * VEC : e, tail_lo = body ? ge * VEC : e;
      A acc[G::LOADS];
#pragma unroll
      for (int u = 0; u < G::LOADS; ++u)
        acc[u] = Op::identity();
      if (rank < head_end - s)
        acc[0] = to_acc(cta::load<cta::LOAD_LDG>(in + s + rank));
      if (rank < e - tail_lo)
        acc[1] = to_acc(cta::load<cta::LOAD_LDG>(in + tail_lo + rank));
      if (vec)
        piece_groups<Op, true>(in, gs, ge, rank, team, acc);
      else
        piece_groups<Op, false>(in, gs, ge, rank, team, acc);
      v = tree_reduce<Op>(acc);
    }
    for (uint32_t d = team / 2; d > 0; d /= 2)
      v = op(v, __shfl_down_sync(0xffffffffu, v, d, team));
    if (rank == 0 && w < pieces)
      out[w] = from_acc<TO>(v);
  }
}

template <class T, class Op>
cuprim_status small_rows_reduce(const cuprim_ctx *ctx, const T *in, T *out, uint64_t rows,
                                uint64_t len, cudaStream_t stream) {
  const uint64_t per = small_rows<T>::per_tile((uint32_t)len);
  const uint64_t tiles = (rows + per - 1) / per;
  small_rows_kernel<T, Op>
      <<<grid_for(ctx, tiles, 1), ROWS_THREADS, 0, stream>>>(in, out, rows, (uint32_t)len, tiles);
  return cuprim__cuda_status(cudaPeekAtLastError());
}

/* row_pieces_kernel's grid holds at most this many waves of the blocks that fit the GPU at once,
 * its warps looping over the pieces beyond: one block a piece of work would spend more on
 * starting blocks than on short rows (the H200, 2^28 f32 in rows of 256, 0.2's twenty-third run:
 * 265 us with 131072 blocks of 8 rows, where the bytes take about 240). */
constexpr uint64_t PIECES_WAVES = 4;

/* One pass of row_pieces_kernel over rows of len (pieces of row_pieces<TI>::piece_len); `first`:
 * the pass over the input, in plain stream order after the caller's work; the later ones chained
 * to the pass before by programmatic dependent launch. */
template <class TI, class TO, class Op>
cuprim_status pieces_pass(const cuprim_ctx *ctx, const TI *in, TO *out, uint64_t rows, uint64_t len,
                          bool first, cudaStream_t stream) {
  void (*kernel)(const TI *, TO *, uint64_t, uint64_t, uint64_t, uint64_t, uint32_t) =
      row_pieces_kernel<TI, TO, Op>;
  unsigned per_sm = 1;
  CUPRIM__FORWARD(cuprim__occupancy(ctx, (const void *)kernel, ROWS_THREADS, 0, &per_sm));
  const uint64_t piece = row_pieces<TI>::piece_len(len, first), per_row = (len + piece - 1) / piece;
  const uint32_t team = per_row == 1 ? row_pieces<TI>::team(len) : 32u;
  const uint64_t warps = (rows * per_row + 32 / team - 1) / (32 / team);
  const uint64_t waves = (uint64_t)ctx->attrs.sm_count * per_sm * PIECES_WAVES;
  unsigned grid = grid_for(ctx, warps, ROWS_WARPS);
  if (grid > waves)
    grid = (unsigned)waves;
  cudaLaunchAttribute attr;
  cudaLaunchConfig_t cfg = pdl_config(ctx, grid, ROWS_THREADS, stream, &attr);
  if (first)
    cfg.numAttrs = 0;
  return cuprim__cuda_status(
      cudaLaunchKernelEx(&cfg, kernel, in, out, rows, len, piece, per_row, team));
}

/* Rows of any length > 0 by pieces: pass 0 over the input; while a row has several pieces, its
 * pieces' values (acc_t<T>, in temporary memory) become the next pass's rows. */
template <class T, class Op>
cuprim_status pieces_reduce(const cuprim_ctx *ctx, const T *in, T *out, uint64_t rows, uint64_t len,
                            cudaStream_t stream) {
  typedef acc_t<T> A;
  constexpr int MAX_PASSES = 8; /* 64-bit lengths need at most 7 */
  uint64_t lens[MAX_PASSES];    /* the row length of each pass */
  int passes = 0;
  for (uint64_t l = len;;) {
    const uint64_t piece =
        passes == 0 ? row_pieces<T>::piece_len(l, true) : row_pieces<A>::piece_len(l, false);
    lens[passes++] = l;
    if (l <= piece)
      break;
    l = (l + piece - 1) / piece;
  }
  if (passes == 1)
    return pieces_pass<T, T, Op>(ctx, in, out, rows, len, true, stream);
  temp_layout lay;
  size_t at[MAX_PASSES];
  for (int k = 1; k < passes; ++k)
    at[k] = lay.take((size_t)(rows * lens[k]) * sizeof(A));
  return with_temp(ctx, lay, stream, [&] {
    CUPRIM__FORWARD((pieces_pass<T, A, Op>(ctx, in, lay.at<A>(at[1]), rows, len, true, stream)));
    for (int k = 1; k + 1 < passes; ++k)
      CUPRIM__FORWARD((pieces_pass<A, A, Op>(ctx, lay.at<A>(at[k]), lay.at<A>(at[k + 1]), rows,
                                             lens[k], false, stream)));
    return pieces_pass<A, T, Op>(ctx, lay.at<A>(at[passes - 1]), out, rows, lens[passes - 1], false,
                                 stream);
  });
}

template <class T, class Op>
cuprim_status rows_reduce(typed_op<T, Op>, const cuprim_ctx *ctx, const void *d_in, void *d_out,
                          uint64_t rows, uint64_t len, cudaStream_t stream) {
  const T *in = static_cast<const T *>(d_in);
  T *out = static_cast<T *>(d_out);
  if (len <= small_rows<T>::MAX_LEN) /* empty rows too: the identity each */
    return small_rows_reduce<T, Op>(ctx, in, out, rows, len, stream);
  return pieces_reduce<T, Op>(ctx, in, out, rows, len, stream);
}

} // namespace
} // namespace cuprim::segmented

extern "C" cuprim_status cuprim__batched_reduce(const cuprim_ctx *ctx, const void *d_in,
                                                void *d_out, const cuprim__segments *seg,
                                                cuprim_dtype dtype, cuprim_op op,
                                                cudaStream_t stream) {
  if (seg->d_offsets != NULL)
    return CUPRIM_ERROR_INTERNAL;
  return cuprim::dispatch_typed_op<cuprim::REDUCE_SCAN_TYPES, cuprim::acc_op>(
      dtype, op, [&](auto m) {
        return cuprim::segmented::rows_reduce(m, ctx, d_in, d_out, seg->num_segments,
                                              seg->segment_size, stream);
      });
}
