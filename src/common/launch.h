/* Launch configuration: every kernel's grid comes from here, computed from the attributes the
 * context cached at creation, so no call queries the device. */
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

/* The grid for `tiles` independent tiles of work.
 *  - persistent == 0: one block per tile. Returns 0 if that exceeds gridDim.x's limit (the
 *    caller then loops); tiles == 0 gives 0.
 *  - persistent != 0: min(tiles, the blocks that fit on the whole GPU at once, capped by
 *    `blocks_per_sm` per SM if that is non-zero); each block loops over tiles. */
uint64_t cuprim__grid_1d(const cuprim_ctx *ctx, uint64_t tiles, unsigned block_threads,
                         int persistent, unsigned blocks_per_sm);

#ifdef __cplusplus
}
#endif

#endif
