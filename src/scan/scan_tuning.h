/* Scan's tuning table (see reduce_tuning.h for the conventions). */
#ifndef CUPRIM_SCAN_TUNING_H
#define CUPRIM_SCAN_TUNING_H

#include <stdint.h>

typedef struct cuprim__scan_tuning {
  /* Inputs of at most this many tiles (8192 four-byte or 3072 eight-byte elements) are scanned
   * by one block in one launch with no temporary memory; larger ones by the look-back kernel. */
  unsigned single_block_max_tiles;
  /* Inputs of at most this many elements use half-size look-back tiles (4096 four-byte or 1536
   * eight-byte elements). */
  uint64_t small_tiles_max_n;
  /* Reset the tile status with a small kernel that the look-back kernel overlaps through
   * programmatic dependent launch, instead of a cudaMemsetAsync before it. */
  int pdl_reset;
  /* Besides its own tile, each look-back block asks L2 for the tile this many quarters of a
   * block per SM ahead of it (blockIdx.x + prefetch_ahead_quarters * SMs / 4), so that the tiles
   * of the blocks that start after it are in L2 before they claim them. 0: its own tile only. */
  unsigned prefetch_ahead_quarters;
  /* The look-back kernel's full-tile stores are marked evict-first in L2 (st.global.cs), so that
   * the output streaming through L2 does not push out prefetched input. */
  int evict_first_stores;
  /* Inputs of at least this many bytes: each look-back block takes its tile index from an atomic
   * counter (tiles in the order blocks start; the block waits one atomic's round trip before it
   * loads). Smaller ones: block b scans tile b, and its loads start at once (this relies on
   * blocks being dispatched in index order, as CUB's decoupled look-back does). */
  uint64_t counter_min_bytes;
  /* Without the counter, each block asks L2 for its own tile just before loading it when the
   * input has at most this many bytes (with the counter it always does, while the atomic
   * answers). */
  uint64_t prefetch_own_max_bytes;
} cuprim__scan_tuning;

/* `arch` as for cuprim__reduce_tuning_for (reduce_tuning.h), with the same two classes. */
static inline cuprim__scan_tuning cuprim__scan_tuning_for(int arch) {
  cuprim__scan_tuning t;
  t.single_block_max_tiles = 2;   /* H100: one block is faster up to 16384 four-byte elements */
  t.small_tiles_max_n = 1u << 17; /* H100: half-size tiles win from 2^14 to 2^17, then lose */
  /* H100: the reset kernel overlapped by PDL is 0.2-1.5 us faster than a memset from 2^14 to
   * 2^24. Without PDL (before 9.0) it would be one more launch in stream order: the memset. */
  t.pdl_reset = arch >= 90;
  /* H100, cuprim-bench's L2-traffic table (2026-11-24 23:46 UTC, inclusive SUM, 2^28 f32 / i32):
   * neither 802.3 / 804.9 us, the prefetch one block per SM ahead 794.1 / 799.3, evict-first
   * stores 789.1 / 794.3, both 777.5 / 777.6 (CUB 866.9 / 866.2, the copy 708.5); 2^26: 205.8
   * -> 199.3 us; the same after a memset flush. Further ahead loses (two blocks per SM 819.6 us
   * with the stores, 864.3 without in the 23:39 run; four 1042-1048), presumably as prefetched
   * tiles are pushed out of L2 before they are read (not profiled). Evict-first loads as well:
   * slower (787.2). 80-virtual on the H100 (2026-11-25 04:58 UTC; before 9.0 the prefetch is a
   * line per thread), f32 / i32: neither 806.5 / 813.4 us at 2^28, 21.82 / 21.79 at 2^22; the
   * stores alone 794.8 / 797.8, 21.34 / 21.44 (faster at every size from 2^20); the prefetch one
   * block per SM ahead slower from 2^22 on (814.2 / 822.7, 22.37 / 22.46), with the stores
   * within 2 us of the stores alone at 2^28 and slower at 2^22 (792.7 / 797.3, 22.02 / 21.73):
   * prefetch off there. */
  t.prefetch_ahead_quarters = arch >= 90 ? 4 : 0;
  t.evict_first_stores = 1;
  /* H100, A/B builds of the tree of 4237f7a with each choice fixed at every size (2026-11-25
   * 09:30-09:42 UTC, cuprim-bench --only scan, two to four runs each; docs/benchmarks.md
   * "twelfth runs"), 4-byte elements, inclusive SUM, f32 / i32 us. 9.0: the counter 775.7 / 777.6
   * at 2^28, 19.07 / 19.49 at 2^22; block order without the own-tile prefetch 747.3 / 748.6 and
   * 18.29 / 18.80 (faster from 2^22 up, up to 0.6 us slower at 2^16-2^20); with it 765.9 / 767.4
   * and 18.02 / 18.54 (faster than the counter, or within 0.3 us, at every size). Before 9.0
   * (80-virtual): the counter 794.2 / 797.9 at 2^28, 20.54 / 21.09 at 2^22; block order with the
   * own-tile prefetch 823.0 / 825.1 and 18.86 / 19.46 (faster up to 2^24, 2% slower at 2^26, 3.5%
   * at 2^28); without it 880.5 / 881.7 at 2^28. So: 9.0 in block order everywhere, the own tile
   * prefetched up to 16 MiB; before 9.0 the counter from 128 MiB (between 2^24 and 2^26 four-byte
   * elements), the own tile always. Measured for 4-byte elements only; the thresholds are in
   * bytes so that other element sizes switch at about the same tile counts. AUTO with these
   * (09:56 UTC): 9.0 749.0 / 749.7 us at 2^28, 18.02 / 18.05 at 2^22; 80-virtual 797.0 / 801.1
   * and 18.94 / 18.91. */
  t.counter_min_bytes = arch >= 90 ? UINT64_MAX : (uint64_t)1 << 27;
  t.prefetch_own_max_bytes = arch >= 90 ? (uint64_t)1 << 24 : UINT64_MAX;
  return t;
}

#endif
