/* Reduce's tuning table: plain numbers keyed by compute capability (CUB's policies, moderngpu's
 * launch box). Only *where* the canonical tree of reduce_chunk.cuh is computed may be tuned here;
 * the tree itself (chunk geometry) is fixed so that AUTO gives the same bits on every GPU. */
#ifndef CUPRIM_REDUCE_TUNING_H
#define CUPRIM_REDUCE_TUNING_H

#include <stdint.h>

typedef struct cuprim__reduce_tuning {
  /* Inputs of at most this many chunks are reduced by one block of 4 chunk-groups (1024 threads)
   * in one launch with no temporary memory; larger ones by one block per chunk. */
  unsigned single_block_max_chunks;
  /* Inputs of at most this many chunks (and more than single_block_max_chunks) are reduced by one
   * thread-block cluster (Hopper and later; 0 disables). At most 256. */
  unsigned cluster_max_chunks;
  /* Blocks per cluster at most: 8 (portable) or 16 (non-portable, H100). */
  unsigned cluster_max_blocks;
  /* Inputs of at least this many chunks take the cooperative persistent grid (one launch, a grid
   * barrier); inputs between the two thresholds take two plain launches chained by programmatic
   * dependent launch. */
  unsigned grid_sync_min_chunks;
  /* Aligned inputs of at most this many chunks: the streaming loads carry an L2::256B prefetch
   * hint; larger ones: plain read-only loads. reduce_arg's grid takes the same limit, counted in
   * the same chunks. */
  unsigned l2_prefetch_max_chunks;
  /* cuprim_reduce_arg: inputs of at most this many bytes are done by one block of 1024 threads in
   * one launch; larger ones by a grid and a finishing block. */
  unsigned arg_single_block_max_bytes;
  /* cuprim_reduce_arg: larger inputs of at least this many bytes take one cooperative launch
   * (block 0 combines the blocks' pairs after a grid barrier); smaller ones the grid and a
   * finishing block, chained by programmatic dependent launch where the device has it. */
  uint64_t arg_grid_sync_min_bytes;
} cuprim__reduce_tuning;

/* `arch` is the architecture of the code the device runs (cuprim__device_attrs.code_arch,
 * major*10 + minor). Two classes: 9.0 and later (clusters, programmatic dependent launch), and
 * 7.5 to 8.9 (neither). Only an H100 was at hand to measure; the older class was measured on it
 * running the compute_80 build through the driver's compiler, a stand-in for an A100 (same
 * instructions, but the H100's memory system and SM count). */
static inline cuprim__reduce_tuning cuprim__reduce_tuning_for(int arch) {
  /* Both classes: the L2::256B hint on aligned inputs of at most this many chunks (16 KiB each);
   * the measurements are in each class's comment. */
  enum { L2_PREFETCH_MAX_CHUNKS = 8191 };
  cuprim__reduce_tuning t;
  if (arch >= 90) {
    /* H100, f32, bench/ kernel-choice table 2026-11-21: one block 5.31 us at 2^14 (4 chunks) vs
     * 5.98 us for a cluster; a cluster 5.98 us at 2^15 vs 6.46 for one block, 6.11 vs 7.33 us
     * (two launches) at 2^16; at 2^18 (64 chunks) 16 blocks 6.69 us, 8 blocks 7.46, two launches
     * 7.71; at 2^19 two launches win (7.90 vs 8.22). */
    t.single_block_max_chunks = 4;
    t.cluster_max_chunks = 64;
    t.cluster_max_blocks = 16;
    /* H100, f32: two launches (PDL) 93.6 vs 94.7 us cooperative at 2^26 (16384 chunks);
     * cooperative 350.4 vs 352.3 us at 2^28 (65536 chunks). */
    t.grid_sync_min_chunks = 32768;
    /* H100, the L2::256B hint on the streaming loads. L2 flushed by a read: 348.3 vs 350.6 us
     * (cooperative, f32 2^28), 93.0 vs 93.4 us (two launches, 2^26); no change below. L2 flushed
     * by a 200 MiB memset on the stream (cuprim-bench --flush memset, 2026-11-24 01:59 UTC,
     * kernel-choice table, f32): cooperative 372.32 us with it against 360.03 without at 2^28
     * (CUB 359.74, the read-only kernel 359.87), 31.62 against 36.32 at 2^24. So the hint up
     * to the two-launch path's largest inputs, and not in the cooperative grid: 0.7% lost after
     * a read flush, 3.4% won after a memset.
     * H200 (two-H200 machine, 2026-11-28, kernel-choice table, f32, two launches with the hint /
     * without it): after a read flush 22.18 / 21.44 us at 2^24, 70.85 / 67.10 at 2^26 (CUB
     * 22.53, 65.63; the cooperative grid at 2^28 268.0 / 240.3, CUB 238.5); after a memset
     * 24.93 / 27.46 at 2^24, 77.82 / 75.36 at 2^26 (CUB 28.35, 75.81). So the hint up to 8191
     * chunks (2^25 f32, 128 MiB, about twice the L2 of either GPU); 2^25 itself not measured. */
    t.l2_prefetch_max_chunks = L2_PREFETCH_MAX_CHUNKS;
    /* H100, cuprim-bench's arg-min f32 kernel-choice table (2026-11-25, 00:54 and 01:23 UTC
     * runs): the one block 7.20 us at 2^14 (64 KB) against 7.42-7.46 for the grid and its
     * finishing block; 8.51-8.58 against 8.03-8.10 at 23170 elements, 8.80-8.90 against
     * 7.07-7.23 at 2^15. The cooperative grid against the two launches chained by PDL: within
     * 0.5 us either way from 2^14 to 2^24 (2^15 7.58-7.68 / 7.07-7.23, 2^16 7.42-7.46 /
     * 7.23-7.30, 2^20 8.93-8.99 / 9.06-9.22, 2^22 13.92-14.08 / 13.82-14.14) but for 0.9 us
     * more at 2965821 and 11863283 elements (12.99-13.02 / 12.10-12.13, 24.45-24.58 /
     * 23.55-23.65), and slower at 2^26 and 2^28 (94.40-94.62 / 93.70-94.34, 352.0-352.1 /
     * 351.0-351.8): the two launches stay. */
    t.arg_single_block_max_bytes = 64 * 1024;
    t.arg_grid_sync_min_bytes = UINT64_MAX;
  } else {
    /* The 80-virtual build on the H100, bench/ kernel-choice table 2026-11-24 00:03 UTC (f32;
     * i32 within 0.3 us): one block 6.66 us at 2^15 (8 chunks) against 7.97 for the cooperative
     * grid, 8.67 against 7.84 at 2^16. Without clusters and PDL the cooperative grid beats the
     * two launches at every larger size: 7.84 vs 9.18 us at 2^16, 7.97 vs 9.31 at 2^18, 8.86 vs
     * 10.14 at 2^20, 12.64 vs 14.21 at 2^22, 94.02 vs 94.75 at 2^26, 348.96 vs 351.42 at 2^28
     * (CUB built the same way: 7.78, 8.19, 8.90, 13.50, 93.44, 349.89). */
    t.single_block_max_chunks = 8;
    t.cluster_max_chunks = 0; /* clusters need compute capability 9.0 */
    t.cluster_max_blocks = 8;
    t.grid_sync_min_chunks = 0;
    /* The hint exists from 8.0 (cta/arch.cuh; 7.5 loads without it). The 80-virtual build on
     * the H100 was measured after a read flush only, with it. On an H200 (2026-11-28, read
     * flush, kernel-choice table, f32) the cooperative grid with it against without it: 2^22
     * 11.39 / 11.20 us, 2^24 22.88 / 22.34, 2^26 72.99 / 68.29, 2^28 266.40 / 244.64 (CUB built
     * the same way: 12.38, 23.17, 67.58, 243.10): the same limit as the 9.0 class. */
    t.l2_prefetch_max_chunks = L2_PREFETCH_MAX_CHUNKS;
    /* The 80-virtual build on the H100, the arg-min kernel-choice table (2026-11-25 01:02 UTC run):
     * the one block 7.14 us at 2^14 against 7.71 for the cooperative grid, 8.54 against 8.32 at
     * 23170 elements. Without PDL one cooperative launch beats the grid and a finishing block in
     * stream order at every larger size but one (2965821 elements: 13.38 / 13.31 us): 2^16 7.52
     * / 8.51 us, 2^18 7.49 / 8.70, 2^20 9.06 / 10.11, 2^22 13.98 / 14.72, 2^24 29.98 / 31.30, 2^28
     * 352.35 / 352.86 (CUB built the same way: 7.81, 8.26, 9.57, 13.47, 30.69, 358.46). */
    t.arg_single_block_max_bytes = 64 * 1024;
    t.arg_grid_sync_min_bytes = 0;
  }
  return t;
}

#endif
