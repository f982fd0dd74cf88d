#include "launch.h"

unsigned cuprim__blocks_per_sm(const cuprim_ctx *ctx, unsigned block_threads) {
  unsigned by_threads = (unsigned)ctx->attrs.max_threads_per_sm / (block_threads ? block_threads : 1);
  unsigned by_blocks = (unsigned)ctx->attrs.max_blocks_per_sm;
  unsigned b = by_threads < by_blocks ? by_threads : by_blocks;
  return b ? b : 1;
}

uint64_t cuprim__grid_1d(const cuprim_ctx *ctx, uint64_t tiles, unsigned block_threads,
                         int persistent, unsigned blocks_per_sm) {
  if (tiles == 0)
    return 0;
  if (!persistent)
    return tiles <= (uint64_t)ctx->attrs.max_grid_x ? tiles : 0;
  unsigned per_sm = cuprim__blocks_per_sm(ctx, block_threads);
  if (blocks_per_sm && blocks_per_sm < per_sm)
    per_sm = blocks_per_sm;
  uint64_t full = (uint64_t)per_sm * (uint64_t)ctx->attrs.sm_count;
  if (full == 0)
    full = 1;
  return tiles < full ? tiles : full;
}
