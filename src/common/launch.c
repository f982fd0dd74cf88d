#include "launch.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "check.h"

/* The context's occupancy answers: a fixed table filled as keys are first asked for, read
 * without locks. An entry is written once, by the thread that claimed its slot, and published by
 * its `ready` flag; a full table just stops remembering. */
#define CUPRIM__OCCUPANCY_SLOTS 128

typedef struct cuprim__occupancy_entry {
  const void *kernel;
  unsigned block_threads;
  size_t dynamic_smem;
  unsigned blocks_per_sm;
  atomic_int ready;
} cuprim__occupancy_entry;

struct cuprim__occupancy_cache {
  atomic_uint used; /* slots claimed, at most CUPRIM__OCCUPANCY_SLOTS */
  cuprim__occupancy_entry entries[CUPRIM__OCCUPANCY_SLOTS];
};

cuprim__occupancy_cache *cuprim__occupancy_cache_create(void) {
  cuprim__occupancy_cache *c = (cuprim__occupancy_cache *)malloc(sizeof *c);
  if (!c)
    return NULL;
  atomic_init(&c->used, 0u);
  for (unsigned i = 0; i < CUPRIM__OCCUPANCY_SLOTS; ++i)
    atomic_init(&c->entries[i].ready, 0);
  return c;
}

void cuprim__occupancy_cache_destroy(cuprim__occupancy_cache *c) { free(c); }

unsigned cuprim__blocks_per_sm(const cuprim_ctx *ctx, unsigned block_threads) {
  unsigned by_threads =
      (unsigned)ctx->attrs.max_threads_per_sm / (block_threads ? block_threads : 1);
  unsigned by_blocks = (unsigned)ctx->attrs.max_blocks_per_sm;
  unsigned b = by_threads < by_blocks ? by_threads : by_blocks;
  return b ? b : 1;
}

uint64_t cuprim__grid_persistent(const cuprim_ctx *ctx, uint64_t tiles, unsigned block_threads,
                                 unsigned blocks_per_sm) {
  if (tiles == 0)
    return 0;
  unsigned per_sm = cuprim__blocks_per_sm(ctx, block_threads);
  if (blocks_per_sm && blocks_per_sm < per_sm)
    per_sm = blocks_per_sm;
  uint64_t full = (uint64_t)per_sm * (uint64_t)ctx->attrs.sm_count;
  if (full == 0)
    full = 1;
  return tiles < full ? tiles : full;
}

cuprim_status cuprim__occupancy(const cuprim_ctx *ctx, const void *kernel, unsigned block_threads,
                                size_t dynamic_smem, unsigned *blocks_per_sm) {
  cuprim__occupancy_cache *c = ctx->occupancy;
  /* Look the key up among the published entries; entries are never changed once published. */
  const unsigned used = atomic_load_explicit(&c->used, memory_order_acquire);
  for (unsigned i = 0; i < used && i < CUPRIM__OCCUPANCY_SLOTS; ++i) {
    const cuprim__occupancy_entry *e = &c->entries[i];
    if (atomic_load_explicit(&e->ready, memory_order_acquire) && e->kernel == kernel &&
        e->block_threads == block_threads && e->dynamic_smem == dynamic_smem) {
      *blocks_per_sm = e->blocks_per_sm;
      return CUPRIM_SUCCESS;
    }
  }
  int per_sm = 0;
  CUPRIM__CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, kernel, (int)block_threads, dynamic_smem));
  *blocks_per_sm = per_sm > 0 ? (unsigned)per_sm : 1u;
  /* Publish it in a fresh slot (when the table is full, later calls just ask again). Two threads
   * that miss the same key at once may both publish it: the entries agree. */
  unsigned slot = atomic_load_explicit(&c->used, memory_order_relaxed);
  while (slot < CUPRIM__OCCUPANCY_SLOTS &&
         !atomic_compare_exchange_weak_explicit(&c->used, &slot, slot + 1, memory_order_acq_rel,
                                                memory_order_relaxed)) {
  }
  if (slot < CUPRIM__OCCUPANCY_SLOTS) {
    cuprim__occupancy_entry *e = &c->entries[slot];
    e->kernel = kernel;
    e->block_threads = block_threads;
    e->dynamic_smem = dynamic_smem;
    e->blocks_per_sm = *blocks_per_sm;
    atomic_store_explicit(&e->ready, 1, memory_order_release);
  }
  return CUPRIM_SUCCESS;
}
