/* Launch configuration: every kernel's grid comes from here, computed from the attributes the
 * context read at creation. Two answers need the kernel itself (its registers and shared
 * memory): the occupancy of a kernel is asked of CUDA once per context, kernel, block size and
 * shared-memory size, and kept in the context (cuprim__occupancy); no call asks the device for
 * anything else. */
#ifndef CUPRIM_LAUNCH_H
#define CUPRIM_LAUNCH_H

#include <stdint.h>

#include "context.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Blocks of `block_threads` threads that fit on one multiprocessor at once, by thread count and
 * the block-count limit (a kernel's registers or shared memory may lower it further). */
unsigned cuprim__blocks_per_sm(const cuprim_ctx *ctx, unsigned block_threads);

/* A grid of blocks that each loop over their share of `tiles` tiles of work: min(tiles, the
 * blocks that fit on the whole GPU at once, capped by `blocks_per_sm` per SM if that is
 * non-zero). tiles == 0 gives 0. */
uint64_t cuprim__grid_persistent(const cuprim_ctx *ctx, uint64_t tiles, unsigned block_threads,
                                 unsigned blocks_per_sm);

/* Blocks of `kernel` (a __global__ function's address) with `block_threads` threads and
 * `dynamic_smem` bytes of dynamic shared memory that fit on one multiprocessor, by its registers
 * and shared memory as well (cudaOccupancyMaxActiveBlocksPerMultiprocessor), at least 1. Asked
 * once per context and (kernel, block_threads, dynamic_smem), then kept in the context; safe to
 * call from several threads at once. The context's device must be current. */
cuprim_status cuprim__occupancy(const cuprim_ctx *ctx, const void *kernel, unsigned block_threads,
                                size_t dynamic_smem, unsigned *blocks_per_sm);

/* Launch features by the code the device runs (cta/arch.cuh): a kernel may be chained by
 * programmatic dependent launch, or launched as a thread-block cluster, only when its code was
 * compiled for compute capability 9.0 or later. */
static inline int cuprim__pdl_supported(const cuprim_ctx *ctx) {
  return ctx->attrs.code_arch >= 90;
}
static inline int cuprim__clusters_supported(const cuprim_ctx *ctx) {
  return ctx->attrs.code_arch >= 90;
}

#ifdef __cplusplus
}
#endif

#endif
