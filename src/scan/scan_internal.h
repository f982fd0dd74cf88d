/* Between scan's C entry point (scan.cu) and its dispatch layers. Arguments reaching these
 * functions are validated (n > 0); the context's device is current. */
#ifndef CUPRIM_SCAN_INTERNAL_H
#define CUPRIM_SCAN_INTERNAL_H

#include <cuprim/scan.h>

#include "common/context.h"
#include "scan_tuning.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every check of cuprim_scan_ex (with_init: and of cuprim_scan_init's d_init) that needs no
 * device, in the order docs/errors.md gives (scan.cu); also the checks of the calls built on scan
 * (the NCCL component). */
cuprim_status cuprim__scan_validate(const cuprim_ctx *ctx, cuprim_scan_alg alg, const void *d_in,
                                    const void *d_out, uint64_t n, cuprim_dtype dtype, cuprim_op op,
                                    cuprim_scan_kind kind, int with_init, const void *d_init);

/* AUTO and DECOUPLED_LOOKBACK (scan_lookback.cu). `tune` chooses between the single-block kernel
 * and the look-back kernel: AUTO passes the table's values, the DECOUPLED_LOOKBACK rung passes
 * single_block_max_tiles = 0 (always the look-back kernel). Tests and bench/ force either. */
cuprim_status cuprim__scan_lookback(const cuprim_ctx *ctx, const void *d_in, void *d_out,
                                    uint64_t n, cuprim_dtype dtype, cuprim_op op,
                                    cuprim_scan_kind kind, cudaStream_t stream,
                                    const cuprim__scan_tuning *tune);

/* cuprim__scan_lookback starting from *d_init (device, one element of dtype) in place of the
 * identity: cuprim_scan_init's path, and the NCCL component's (src/nccl/). d_init == NULL is
 * cuprim__scan_lookback. */
cuprim_status cuprim__scan_lookback_init(const cuprim_ctx *ctx, const void *d_in, void *d_out,
                                         uint64_t n, cuprim_dtype dtype, cuprim_op op,
                                         cuprim_scan_kind kind, const void *d_init,
                                         cudaStream_t stream, const cuprim__scan_tuning *tune);

/* HILLIS_STEELE, BLELLOCH, WARP_SHUFFLE: block scans joined by reduce-then-scan
 * (scan_ladder.cu). */
cuprim_status cuprim__scan_ladder(const cuprim_ctx *ctx, cuprim_scan_alg alg, const void *d_in,
                                  void *d_out, uint64_t n, cuprim_dtype dtype, cuprim_op op,
                                  cuprim_scan_kind kind, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
