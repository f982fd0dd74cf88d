/**
 * @file segmented.h
 * @brief Segmented and batched reduce and scan: one reduction, or one scan, per segment.
 *
 * @code
 *   // d_in: n floats; d_offsets: num_segments + 1 int64_t (CSR row pointers); d_sums:
 *   // num_segments floats; d_matrix: rows * cols floats (row-major). All in device memory.
 *   cuprim_status s = cuprim_segmented_reduce(ctx, d_in, d_sums, n, d_offsets, CUPRIM_I64,
 *                                             num_segments, CUPRIM_F32, CUPRIM_SUM, stream);
 *   if (s != CUPRIM_SUCCESS) fprintf(stderr, "segmented reduce: %s\n", cuprim_status_string(s));
 *   // The running total along each row of the matrix, in place:
 *   s = cuprim_batched_scan(ctx, d_matrix, d_matrix, rows, cols, CUPRIM_F32, CUPRIM_SUM,
 *                           CUPRIM_INCLUSIVE, stream);
 *   if (s != CUPRIM_SUCCESS) fprintf(stderr, "batched scan: %s\n", cuprim_status_string(s));
 * @endcode
 *
 * Segments come as offsets (cuprim_segmented_reduce(), cuprim_segmented_scan()): segment s is
 * d_in[off[s] .. off[s+1]), off being d_offsets, num_segments + 1 integers of I32, U32, I64 or U64
 * in device memory, as CSR row pointers come. Each offset is clamped to [0, n] on the device before
 * use (a negative one to 0), and a segment whose end is not past its begin is empty: no offsets
 * can make a call read or write outside d_in[0..n), d_out and d_offsets. Or they come as rows of
 * one length (cuprim_batched_reduce(), cuprim_batched_scan()): segment s is
 * d_in[s * segment_size .. (s + 1) * segment_size), and no offsets are read.
 *
 * Every call takes the dtypes and ops of cuprim_reduce() and cuprim_scan(), returns once its work
 * is enqueued on @p stream (it never synchronizes the host: whatever depends on the offsets is
 * decided on the device), takes temporary memory only from the context's allocator on @p stream,
 * and can be captured into a CUDA graph. Indices are 64-bit: n and num_segments may pass 2^32.
 */
#ifndef CUPRIM_SEGMENTED_H
#define CUPRIM_SEGMENTED_H

#include "core.h"
#include "scan.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Segmented reduction algorithms. ::CUPRIM_SEGMENTED_AUTO is the tuned default; the others are
 *  the classic strategies, each done right (docs/ladder.md). Values are pinned. */
typedef enum cuprim_segmented_alg {
  CUPRIM_SEGMENTED_AUTO = 0,               /**< the tuned default; deterministic */
  CUPRIM_SEGMENTED_THREAD_PER_SEGMENT = 1, /**< one thread walks each segment */
  CUPRIM_SEGMENTED_WARP_PER_SEGMENT = 2,   /**< one warp per segment */
  CUPRIM_SEGMENTED_BLOCK_PER_SEGMENT = 3,  /**< one block per segment */
  CUPRIM_SEGMENTED_MERGE_PATH = 4 /**< equal shares of elements + segment ends per thread */
} cuprim_segmented_alg;

/** d_out[s] = op over segment s of d_in, for every s < num_segments, where segment s is
 *  d_in[off[s] .. off[s+1]) with each offset clamped to [0, n] (a negative one to 0); a segment
 *  whose end is not past its begin is empty and gives the identity of @p op (as cuprim_reduce()
 *  writes for n == 0). Segments may overlap, leave gaps, or come in any order: each is reduced
 *  on its own.
 *
 * @param ctx          a context (NULL: ::CUPRIM_ERROR_INVALID_ARGUMENT).
 * @param d_in         device memory, n elements of @p dtype, element-aligned; may be NULL if
 *                     n == 0.
 * @param d_out        device memory, num_segments elements of @p dtype, element-aligned; must not
 *                     overlap d_in's n elements or the offsets. May be NULL if num_segments == 0.
 * @param n            the elements of d_in: every offset is clamped to it. Any value (past 2^32 is
 *                     supported); n == 0 makes every segment empty.
 * @param d_offsets    device memory, num_segments + 1 integers of @p offset_dtype, aligned to
 *                     their size, read and never written; may be NULL if num_segments == 0.
 * @param offset_dtype ::CUPRIM_I32, ::CUPRIM_U32, ::CUPRIM_I64 or ::CUPRIM_U64 (another valid
 *                     dtype: ::CUPRIM_ERROR_UNSUPPORTED).
 * @param num_segments the number of segments; 0 writes nothing and succeeds; UINT64_MAX:
 *                     ::CUPRIM_ERROR_INVALID_ARGUMENT (num_segments + 1 offsets could not exist).
 * @param dtype        as cuprim_reduce(): I32, U32, I64, U64, F32, F64, F16 or BF16 (others:
 *                     ::CUPRIM_ERROR_UNSUPPORTED). F16 and BF16 are computed in float and each
 *                     d_out[s] rounded once, to nearest even; their MIN and MAX are exact.
 * @param op           any ::cuprim_op; AND/OR/XOR on floats: ::CUPRIM_ERROR_UNSUPPORTED.
 * @param stream       the CUDA stream the work is enqueued on.
 *
 * Asynchronous; temporary memory from the context's allocator on @p stream; capturable into a
 * CUDA graph. Integer results are exact (SUM and PROD wrap). Deterministic as
 * ::CUPRIM_REDUCE_AUTO is: the same input (data and offsets) gives the same bits on every run and
 * every GPU. Float sums of a segment of m elements are accurate to about m * eps * sum|x|, and
 * far better in practice (docs/determinism.md). Equivalent to cuprim_segmented_reduce_ex() with
 * ::CUPRIM_SEGMENTED_AUTO.
 *
 * @return ::CUPRIM_SUCCESS, or an error, having enqueued and written nothing when the arguments
 *         are invalid (see ::cuprim_status and docs/errors.md for the order of the checks); also
 *         ::CUPRIM_ERROR_UNSUPPORTED, with nothing launched, for a size that would need more than
 *         2^31 - 1 blocks (beyond any current GPU's memory). */
cuprim_status cuprim_segmented_reduce(cuprim_ctx *ctx, const void *d_in, void *d_out, uint64_t n,
                                      const void *d_offsets, cuprim_dtype offset_dtype,
                                      uint64_t num_segments, cuprim_dtype dtype, cuprim_op op,
                                      cudaStream_t stream);

/** cuprim_segmented_reduce() with a chosen algorithm. Every algorithm takes the same dtypes,
 *  ops, offsets and sizes and gives exact integer results. Every algorithm combines each
 *  segment in an order fixed by the input alone, so float results are the same on every run and
 *  every GPU, but can differ between algorithms (docs/determinism.md).
 *
 * @param alg any ::cuprim_segmented_alg (out of range: ::CUPRIM_ERROR_INVALID_ARGUMENT).
 * @param ctx,d_in,d_out,n,d_offsets,offset_dtype,num_segments,dtype,op,stream as for
 *            cuprim_segmented_reduce().
 * @return as for cuprim_segmented_reduce(). */
cuprim_status cuprim_segmented_reduce_ex(cuprim_ctx *ctx, cuprim_segmented_alg alg,
                                         const void *d_in, void *d_out, uint64_t n,
                                         const void *d_offsets, cuprim_dtype offset_dtype,
                                         uint64_t num_segments, cuprim_dtype dtype, cuprim_op op,
                                         cudaStream_t stream);

/** The reduction of each row of a row-major matrix: d_out[s] = op over
 *  d_in[s * segment_size .. (s + 1) * segment_size) for every s < num_segments. No offsets are
 *  read.
 *
 * @param ctx          a context (NULL: ::CUPRIM_ERROR_INVALID_ARGUMENT).
 * @param d_in         device memory, num_segments * segment_size elements of @p dtype,
 *                     element-aligned; may be NULL if that product is 0.
 * @param d_out        device memory, num_segments elements, element-aligned; must not overlap the
 *                     input. May be NULL if num_segments == 0.
 * @param num_segments the rows; 0 writes nothing and succeeds.
 * @param segment_size the elements of a row; 0 writes the identity of @p op into every d_out[s].
 *                     num_segments * segment_size must fit in uint64_t (else
 *                     ::CUPRIM_ERROR_INVALID_ARGUMENT).
 * @param dtype,op,stream as for cuprim_segmented_reduce().
 *
 * Asynchronous, capturable, and deterministic as cuprim_segmented_reduce(): the same bits on
 * every run and every GPU.
 *
 * @return as for cuprim_segmented_reduce(). */
cuprim_status cuprim_batched_reduce(cuprim_ctx *ctx, const void *d_in, void *d_out,
                                    uint64_t num_segments, uint64_t segment_size,
                                    cuprim_dtype dtype, cuprim_op op, cudaStream_t stream);

/** Scan restarted at every segment: for i in segment s, d_out[i] = the scan (@p kind) of d_in over
 *  segment s up to i, as cuprim_scan() computes it (inclusive: d_in[off[s]] op ... op d_in[i];
 *  exclusive: the identity at the segment's first element). Offsets as for
 *  cuprim_segmented_reduce(), clamped to [0, n]; they must be non-decreasing: then every element
 *  of d_out that no segment covers (before off[0], past off[num_segments]) is left unchanged.
 *  Decreasing offsets give unspecified values in d_out[0..n), but never a fault or a write outside
 *  it.
 *
 * @param ctx          a context (NULL: ::CUPRIM_ERROR_INVALID_ARGUMENT).
 * @param d_in         device memory, n elements of @p dtype, element-aligned.
 * @param d_out        device memory, n elements, element-aligned. d_out == d_in scans in place;
 *                     any other overlap with d_in, and any overlap with the offsets:
 *                     ::CUPRIM_ERROR_INVALID_ARGUMENT.
 * @param n            the elements; n == 0 writes nothing and succeeds (then d_in and d_out may be
 *                     NULL).
 * @param d_offsets    device memory, num_segments + 1 integers of @p offset_dtype, aligned to
 *                     their size, read and never written.
 * @param offset_dtype ::CUPRIM_I32, ::CUPRIM_U32, ::CUPRIM_I64 or ::CUPRIM_U64 (another valid
 *                     dtype: ::CUPRIM_ERROR_UNSUPPORTED).
 * @param num_segments the number of segments; 0 writes nothing and succeeds (then d_in, d_out and
 *                     d_offsets may be NULL); UINT64_MAX: ::CUPRIM_ERROR_INVALID_ARGUMENT.
 * @param dtype,op,kind as cuprim_scan() (F16 and BF16: a running value in float, each d_out[i]
 *                     rounded once).
 * @param stream       the CUDA stream the work is enqueued on.
 *
 * One pass over the data. Asynchronous; temporary memory from the context's allocator on
 * @p stream; capturable into a CUDA graph. Integer and MIN/MAX results are exact and repeat bit
 * for bit; float SUM and PROD are accurate as cuprim_scan()'s over each segment, and their last
 * bits can vary between runs, as cuprim_scan()'s do (docs/determinism.md).
 *
 * @return ::CUPRIM_SUCCESS, or an error, having enqueued and written nothing when the arguments
 *         are invalid (see ::cuprim_status and docs/errors.md); also ::CUPRIM_ERROR_UNSUPPORTED,
 *         with nothing launched, for a size that would need more than 2^31 - 1 blocks. */
cuprim_status cuprim_segmented_scan(cuprim_ctx *ctx, const void *d_in, void *d_out, uint64_t n,
                                    const void *d_offsets, cuprim_dtype offset_dtype,
                                    uint64_t num_segments, cuprim_dtype dtype, cuprim_op op,
                                    cuprim_scan_kind kind, cudaStream_t stream);

/** The scan of each row of a row-major matrix: cuprim_segmented_scan() over segments
 *  [s * segment_size, (s + 1) * segment_size), s < num_segments, with no offsets read.
 *
 * @param ctx,dtype,op,kind,stream as for cuprim_segmented_scan().
 * @param d_in,d_out   device memory, num_segments * segment_size elements each, element-aligned;
 *                     d_out == d_in scans in place, any other overlap is
 *                     ::CUPRIM_ERROR_INVALID_ARGUMENT. May be NULL if that product is 0.
 * @param num_segments,segment_size the rows and their length; a product of 0 writes nothing and
 *                     succeeds; a product past uint64_t: ::CUPRIM_ERROR_INVALID_ARGUMENT.
 * @return as for cuprim_segmented_scan(). */
cuprim_status cuprim_batched_scan(cuprim_ctx *ctx, const void *d_in, void *d_out,
                                  uint64_t num_segments, uint64_t segment_size, cuprim_dtype dtype,
                                  cuprim_op op, cuprim_scan_kind kind, cudaStream_t stream);

/** Whether the segmented and batched calls take @p dtype with @p op (those cuprim_reduce() and
 *  cuprim_scan() take), and @p offset_dtype as offsets (I32, U32, I64, U64), as this library
 *  build does. Needs no device.
 *  @param offset_dtype,dtype,op any values, also ones outside the enums.
 *  @return 1 if a call with offsets of @p offset_dtype would take the pair; 0 if it would return
 *          ::CUPRIM_ERROR_UNSUPPORTED (or, for values outside the enums,
 *          ::CUPRIM_ERROR_INVALID_ARGUMENT). */
int cuprim_segmented_supported(cuprim_dtype offset_dtype, cuprim_dtype dtype, cuprim_op op);

#ifdef __cplusplus
}
#endif

#endif /* CUPRIM_SEGMENTED_H */
