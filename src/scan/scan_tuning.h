/* Scan's tuning table (see reduce_tuning.h for the conventions). */
#ifndef CUPRIM_SCAN_TUNING_H
#define CUPRIM_SCAN_TUNING_H

typedef struct cuprim__scan_tuning {
  /* Inputs of at most this many tiles (4096 four-byte or 2048 eight-byte elements) are scanned
   * by one block in one launch with no temporary memory; larger ones by the look-back kernel. */
  unsigned single_block_max_tiles;
} cuprim__scan_tuning;

static inline cuprim__scan_tuning cuprim__scan_tuning_for(int cc_major, int cc_minor) {
  (void)cc_major;
  (void)cc_minor;
  cuprim__scan_tuning t;
  t.single_block_max_tiles = 4; /* provisional: to be set from bench/ on the H100 */
  return t;
}

#endif
