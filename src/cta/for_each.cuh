/* The grid-wide walk over an array with 16-byte vector loads that histogram's counting kernels
 * and reduce's arg-reduce share. */
#ifndef CUPRIM_CTA_FOR_EACH_CUH
#define CUPRIM_CTA_FOR_EACH_CUH

#include <stdint.h>

#include <type_traits>

#include "load.cuh"

namespace cuprim::cta {

/* A grid-wide walk over `count` units (16-byte vectors, or groups of them), VPT units a thread in
 * flight together (for_each_round, below): round(first, stride, limit, whole) for each of this
 * thread's rounds, whose units are first, first + stride, ... (VPT of them, stride = blockDim.x: a
 * warp's lanes on consecutive units, coalesced), those below `limit` only. Whole rounds of the grid
 * take tiles of blockDim.x * VPT units, tile t by block t mod gridDim.x (the blocks sweep the input
 * together), with `whole` a std::true_type: every unit is there, the body needs no test; the units
 * after them, fewer than gridDim.x tiles, go in one last round (`whole` a std::false_type) to every
 * block in even shares, a multiple of blockDim.x each and at most a tile. Each thread visits its
 * units in increasing order.
 * Dealing those last units as whole tiles to the first blocks, as the other walks here do, leaves
 * the rest of the grid idle through them: at mid sizes, where the input is a few tiles, most of
 * the grid (a four-channel histogram of 2^18 bytes counted in 4 of its 16 blocks). Two things
 * measured on the way, on an H200 (four channels of RGBA bytes, 2^28 bytes, 77.7 us before):
 * even shares of the whole input (block b its own contiguous part) took 108.3 us, and one body
 * for both kinds of round, every unit tested against `limit`, 109.9 (not profiled; the byte
 * kernel's per-sample adds are the kernel's bottleneck, and the test made each group's adds
 * conditional). With this walk: 77.98 us; at 2^24 and 2^26 bytes 0.7 and 1.0 us slower than
 * before (14.34 against 13.63, 28.00 against 27.04; not found: the last round's whole tiles
 * take the body without tests, and dealing them as before changed nothing). */
struct round_walk {
  uint64_t tiled; /* tiles of the whole rounds: a multiple of the grid's blocks */
  uint64_t share; /* units of each block's share of the last round */
};

/* for_each_round's division of `count` units over `blocks` blocks of `threads`, computed once on
 * the host: 64-bit divisions are a long sequence of instructions on the device, and four of them
 * at the top of a one-block histogram cost it about 0.9 us on an H200 (0.2's twenty-sixth run). */
template <int VPT> inline round_walk walk_of(uint64_t count, uint64_t blocks, uint64_t threads) {
  const uint64_t tile = threads * VPT;
  round_walk w;
  w.tiled = count / tile / blocks * blocks;
  const uint64_t per = (count - w.tiled * tile + blocks - 1) / blocks;
  w.share = (per + threads - 1) / threads * threads; /* at most a tile */
  return w;
}

/* w: walk_of<VPT>(count, gridDim.x, blockDim.x). */
template <int VPT, class F>
__device__ __forceinline__ void for_each_round(uint64_t count, const round_walk &w, F &&round) {
  const uint64_t tile = (uint64_t)blockDim.x * VPT;
  for (uint64_t t = blockIdx.x; t < w.tiled; t += gridDim.x)
    round(t * tile + threadIdx.x, (uint64_t)blockDim.x, t * tile + tile, std::true_type());
  const uint64_t r0 = w.tiled * tile + (uint64_t)blockIdx.x * w.share;
  if (w.share == tile && r0 + tile <= count) /* a whole tile after all: the body without tests */
    round(r0 + threadIdx.x, (uint64_t)blockDim.x, r0 + tile, std::true_type());
  else if (r0 < count)
    round(r0 + threadIdx.x, (uint64_t)blockDim.x, r0 + w.share < count ? r0 + w.share : count,
          std::false_type());
}

/* Calls f.one(x, i) or f.vec(v, i) for every element of in[0..n), spread over the grid: 16-byte
 * vector loads (VPT of them in flight per thread, warp-striped: coalesced) over the
 * 16-byte-aligned body, each handed over whole (f.vec: the 16 / sizeof(T) contiguous elements
 * from index i on, which is what lets a histogram count a vector of one bin with one add), and
 * single elements (f.one) for the unaligned head and the tail (fewer than 16 bytes each). The
 * indices are 64-bit, any n. Each thread visits its elements in increasing index order (head,
 * body, tail), so a caller that keeps the first of equal candidates may compare with < alone.
 * BODY: the load of the body's whole tiles (the streaming load with the L2::256B hint, or
 * LOAD_LDG where the caller's tuning leaves the hint out). AHEAD: a thread's next tile is loaded
 * before it hands over the current one, so that two tiles' loads are in flight where it has two
 * or more (twice the registers for the tiles). */
template <class T, int VPT, load_mode BODY = LOAD_STREAM_PF, bool AHEAD = false, class F>
__device__ __forceinline__ void for_each_vec16(const T *in, uint64_t n, F &f) {
  constexpr int VEC = 16 / (int)sizeof(T);
  const uint64_t threads = (uint64_t)gridDim.x * blockDim.x;
  const uint64_t gtid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const uint64_t mis = ((uintptr_t)in % 16) / sizeof(T);
  const uint64_t head = mis == 0 ? 0 : ((uint64_t)VEC - mis < n ? (uint64_t)VEC - mis : n);
  const uint64_t nvec = (n - head) / VEC;
  const uint64_t tail_at = head + nvec * VEC;
  if (gtid < head)
    f.one(in[gtid], gtid);

  const uint4 *v = reinterpret_cast<const uint4 *>(in + head);
  const uint64_t tile = (uint64_t)blockDim.x * VPT;
  const uint64_t full_tiles = nvec / tile;
  /* Tile t's vectors: the thread's k-th at v[t * tile + k * blockDim.x + threadIdx.x]. */
  auto load_tile = [&](uint64_t t, T(&x)[VPT][VEC]) {
#pragma unroll
    for (int k = 0; k < VPT; ++k)
      load_vec16<BODY>(
          reinterpret_cast<const T *>(v + t * tile + (uint64_t)k * blockDim.x + threadIdx.x), x[k]);
  };
  auto hand_over = [&](uint64_t t, const T(&x)[VPT][VEC]) {
#pragma unroll
    for (int k = 0; k < VPT; ++k)
      f.vec(x[k], head + (t * tile + (uint64_t)k * blockDim.x + threadIdx.x) * VEC);
  };
  if constexpr (AHEAD) {
    uint64_t t = blockIdx.x;
    if (t < full_tiles) {
      T x[VPT][VEC];
      load_tile(t, x);
      for (;;) {
        const uint64_t next = t + gridDim.x;
        T y[VPT][VEC];
        if (next < full_tiles)
          load_tile(next, y);
        hand_over(t, x);
        if (next >= full_tiles)
          break;
#pragma unroll
        for (int k = 0; k < VPT; ++k)
#pragma unroll
          for (int j = 0; j < VEC; ++j)
            x[k][j] = y[k][j];
        t = next;
      }
    }
  } else {
    for (uint64_t t = blockIdx.x; t < full_tiles; t += gridDim.x) {
      T x[VPT][VEC];
      load_tile(t, x);
      hand_over(t, x);
    }
  }
  for (uint64_t i = full_tiles * tile + gtid; i < nvec; i += threads) {
    T x[VEC];
    load_vec16<LOAD_LDG>(reinterpret_cast<const T *>(v + i), x);
    f.vec(x, head + i * VEC);
  }

  if (gtid < n - tail_at)
    f.one(in[tail_at + gtid], tail_at + gtid);
}

} // namespace cuprim::cta

#endif
