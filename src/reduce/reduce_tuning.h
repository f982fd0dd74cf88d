/* Reduce's tuning table: plain numbers keyed by compute capability (CUB's policies, moderngpu's
 * launch box). Only *where* the canonical tree of reduce_chunk.cuh is computed may be tuned here;
 * the tree itself (chunk geometry) is fixed so that AUTO gives the same bits on every GPU. */
#ifndef CUPRIM_REDUCE_TUNING_H
#define CUPRIM_REDUCE_TUNING_H

typedef struct cuprim__reduce_tuning {
  /* Inputs of at most this many chunks are reduced by one block of 4 chunk-groups (1024 threads)
   * in one launch with no temporary memory; larger ones by one block per chunk. */
  unsigned single_block_max_chunks;
  /* Threads per block of the per-block ladder kernels. */
  unsigned ladder_threads;
} cuprim__reduce_tuning;

static inline cuprim__reduce_tuning cuprim__reduce_tuning_for(int cc_major, int cc_minor) {
  (void)cc_minor;
  cuprim__reduce_tuning t;
  t.single_block_max_chunks = 4; /* provisional: to be set from bench/ on the H100 */
  t.ladder_threads = 256;        /* the textbook size (Harris); kept for the ladder's tables */
  if (cc_major >= 9) {
    t.single_block_max_chunks = 4;
  }
  return t;
}

#endif
