/* Between the segmented calls' C entry points (segmented.cu) and their dispatch layers.
 * Arguments reaching these functions are validated (num_segments > 0; for scans n > 0); the
 * context's device is current. */
#ifndef CUPRIM_SEGMENTED_INTERNAL_H
#define CUPRIM_SEGMENTED_INTERNAL_H

#include <cuprim/segmented.h>

#include "common/context.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the segments come from: offsets in device memory (d_offsets not NULL: num_segments + 1
 * integers, 4 or 8 bytes wide, signed or not, each clamped to [0, n] on the device), or rows of
 * one length (d_offsets NULL: segment s is [s * segment_size, (s + 1) * segment_size), and
 * n == num_segments * segment_size). */
typedef struct cuprim__segments {
  const void *d_offsets;
  int offset_bytes;  /* 4 or 8 */
  int offset_signed; /* 1 for I32 and I64 */
  uint64_t num_segments;
  uint64_t segment_size; /* rows only */
  uint64_t n;            /* the elements of d_in */
} cuprim__segments;

/* The segmented reduce of every algorithm (offsets only): AUTO and MERGE_PATH in
 * segmented_merge.cu, the per-segment rungs in segmented_ladder.cu. */
cuprim_status cuprim__segmented_reduce(const cuprim_ctx *ctx, cuprim_segmented_alg alg,
                                       const void *d_in, void *d_out, const cuprim__segments *seg,
                                       cuprim_dtype dtype, cuprim_op op, cudaStream_t stream);

/* The batched reduce (segmented_rows.cu): seg holds rows (d_offsets NULL); the kernel follows
 * from the row length. */
cuprim_status cuprim__batched_reduce(const cuprim_ctx *ctx, const void *d_in, void *d_out,
                                     const cuprim__segments *seg, cuprim_dtype dtype, cuprim_op op,
                                     cudaStream_t stream);

/* THREAD_PER_SEGMENT, WARP_PER_SEGMENT, BLOCK_PER_SEGMENT (segmented_ladder.cu); offsets only. */
cuprim_status cuprim__segmented_reduce_ladder(const cuprim_ctx *ctx, cuprim_segmented_alg alg,
                                              const void *d_in, void *d_out,
                                              const cuprim__segments *seg, cuprim_dtype dtype,
                                              cuprim_op op, cudaStream_t stream);

/* The segmented and batched scan (segmented_scan.cu); n > 0. */
cuprim_status cuprim__segmented_scan(const cuprim_ctx *ctx, const void *d_in, void *d_out,
                                     const cuprim__segments *seg, cuprim_dtype dtype, cuprim_op op,
                                     cuprim_scan_kind kind, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
