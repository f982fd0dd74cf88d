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
} cuprim__scan_tuning;

/* `arch` as for cuprim__reduce_tuning_for (reduce_tuning.h), with the same two classes. */
static inline cuprim__scan_tuning cuprim__scan_tuning_for(int arch) {
  cuprim__scan_tuning t;
  t.single_block_max_tiles = 2;   /* H100: one block is faster up to 16384 four-byte elements */
  t.small_tiles_max_n = 1u << 17; /* H100: half-size tiles win from 2^14 to 2^17, then lose */
  /* H100: the reset kernel overlapped by PDL is 0.2-1.5 us faster than a memset from 2^14 to
   * 2^24. Without PDL (before 9.0) it would be one more launch in stream order: the memset. */
  t.pdl_reset = arch >= 90;
  return t;
}

#endif
