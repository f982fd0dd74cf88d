/**
 * @file scan.h
 * @brief Device-wide prefix scan (prefix sum and friends), inclusive or exclusive.
 *
 * @code
 *   // d_in, d_out: n floats in device memory (d_out == d_in scans in place).
 *   cuprim_status s = cuprim_scan(ctx, d_in, d_out, n, CUPRIM_F32, CUPRIM_SUM, CUPRIM_INCLUSIVE,
 *                                 stream);
 *   if (s != CUPRIM_SUCCESS) fprintf(stderr, "scan: %s\n", cuprim_status_string(s));
 * @endcode
 */
#ifndef CUPRIM_SCAN_H
#define CUPRIM_SCAN_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Inclusive: d_out[i] = d_in[0] op ... op d_in[i]. Exclusive: d_out[0] = identity,
 *  d_out[i] = d_in[0] op ... op d_in[i-1]. Values are pinned. */
typedef enum cuprim_scan_kind {
  CUPRIM_INCLUSIVE = 0, /**< d_out[i] includes d_in[i] */
  CUPRIM_EXCLUSIVE = 1  /**< d_out[i] stops before d_in[i]; d_out[0] is the identity */
} cuprim_scan_kind;

/** Scan algorithms. ::CUPRIM_SCAN_AUTO is the tuned default; the others are the classic block
 *  scans (docs/ladder.md). Values are pinned. */
typedef enum cuprim_scan_alg {
  CUPRIM_SCAN_AUTO = 0,          /**< the tuned default: single-pass decoupled look-back */
  CUPRIM_SCAN_HILLIS_STEELE = 1, /**< step-efficient block scan; tiles joined by reduce-then-scan */
  CUPRIM_SCAN_BLELLOCH =
      2, /**< work-efficient upsweep/downsweep, conflict-free; reduce-then-scan */
  CUPRIM_SCAN_WARP_SHUFFLE = 3, /**< shuffle-up warp scans inside the block; reduce-then-scan */
  CUPRIM_SCAN_DECOUPLED_LOOKBACK = 4 /**< single pass, tiles chained by decoupled look-back */
} cuprim_scan_alg;

/** Prefix scan of d_in[0..n) into d_out[0..n): d_out[i] = d_in[0] op ... op d_in[i] (inclusive),
 *  or the identity of @p op combined with d_in[0] ... d_in[i-1] (exclusive). The running prefix is
 *  always the left operand (op(earlier, later)).
 *
 * @param ctx    a context (NULL: ::CUPRIM_ERROR_INVALID_ARGUMENT).
 * @param d_in   device memory, n elements of @p dtype, element-aligned; may be NULL if n == 0.
 * @param d_out  device memory, n elements; may be NULL if n == 0. d_out == d_in scans in place;
 *               any other overlap of the two ranges: ::CUPRIM_ERROR_INVALID_ARGUMENT.
 * @param n      number of elements; n == 0 does nothing and succeeds.
 * @param dtype  I32, U32, I64, U64, F32, F64, F16 or BF16 (others: ::CUPRIM_ERROR_UNSUPPORTED).
 *               F16 and BF16 keep the running value in float and round each d_out[i] once, to
 *               nearest even; their MIN and MAX are exact.
 * @param op     any ::cuprim_op; AND/OR/XOR on floats: ::CUPRIM_ERROR_UNSUPPORTED.
 * @param kind   ::CUPRIM_INCLUSIVE or ::CUPRIM_EXCLUSIVE.
 * @param stream the CUDA stream the work is enqueued on.
 *
 * Asynchronous; temporary memory comes from the context's allocator on @p stream; capturable
 * into a CUDA graph. Integer results are exact (wrapping); for integer dtypes and for MIN/MAX
 * every algorithm gives the same bits on every run. Float SUM/PROD are accurate to about
 * n * eps * sum|x|; their bits can vary between runs for the look-back algorithms
 * (docs/determinism.md). Equivalent to cuprim_scan_ex() with ::CUPRIM_SCAN_AUTO.
 *
 * @return ::CUPRIM_SUCCESS, or an error, having enqueued and written nothing when the arguments
 *         are invalid (see ::cuprim_status); also ::CUPRIM_ERROR_UNSUPPORTED, with nothing
 *         launched, for an input that would need more than 2^31 - 1 blocks (beyond any current
 *         GPU's memory). */
cuprim_status cuprim_scan(cuprim_ctx *ctx, const void *d_in, void *d_out, uint64_t n,
                          cuprim_dtype dtype, cuprim_op op, cuprim_scan_kind kind,
                          cudaStream_t stream);

/** cuprim_scan() with a chosen algorithm. Every algorithm takes the same dtypes, ops, kinds and
 *  sizes, and scans in place when d_out == d_in. What each guarantees bit for bit:
 *  docs/determinism.md.
 *
 * @param alg any ::cuprim_scan_alg (out of range: ::CUPRIM_ERROR_INVALID_ARGUMENT).
 * @param ctx,d_in,d_out,n,dtype,op,kind,stream as for cuprim_scan().
 * @return as for cuprim_scan(). */
cuprim_status cuprim_scan_ex(cuprim_ctx *ctx, cuprim_scan_alg alg, const void *d_in, void *d_out,
                             uint64_t n, cuprim_dtype dtype, cuprim_op op, cuprim_scan_kind kind,
                             cudaStream_t stream);

/** cuprim_scan() starting from an initial value held in device memory. Inclusive:
 *  d_out[i] = init op d_in[0] op ... op d_in[i]; exclusive: d_out[0] = init,
 *  d_out[i] = init op d_in[0] op ... op d_in[i-1], where init = *d_init. So a scan can go on
 *  where another stopped without its running total coming to the host: the passes of a scan of
 *  data larger than the device's memory (the total so far carried from pass to pass), or the
 *  shards of a scan over several GPUs (cuprim_nccl_scan(), cuprim/nccl.h).
 *
 * @param ctx,d_in,d_out,n,dtype,op,kind,stream as for cuprim_scan(); d_out == d_in scans in
 *               place; n == 0 does nothing and succeeds (and does not read *d_init).
 * @param d_init device memory, one element of @p dtype, element-aligned; may be NULL if n == 0.
 *               Read by the device after the work enqueued before the call on @p stream (so it
 *               may be the result of a previous call on that stream), and not written. It must
 *               not lie inside d_out's n elements (::CUPRIM_ERROR_INVALID_ARGUMENT); it may lie
 *               inside d_in's when the scan is not in place.
 *
 * Runs the single-pass path of ::CUPRIM_SCAN_AUTO, with the same guarantees: integer and MIN/MAX
 * results exact; float SUM and PROD within about (n + 1) * eps * (|init| + sum|x|), their last
 * bits possibly varying between runs (docs/determinism.md). Asynchronous; temporary memory from
 * the context's allocator on @p stream; capturable into a CUDA graph.
 *
 * @return as for cuprim_scan(), and ::CUPRIM_ERROR_INVALID_ARGUMENT, having enqueued and written
 *         nothing, when n > 0 and d_init is NULL, not element-aligned or inside d_out's range
 *         (checked before the dtype and op pair: ::CUPRIM_ERROR_UNSUPPORTED). */
cuprim_status cuprim_scan_init(cuprim_ctx *ctx, const void *d_in, void *d_out, uint64_t n,
                               cuprim_dtype dtype, cuprim_op op, cuprim_scan_kind kind,
                               const void *d_init, cudaStream_t stream);

/** Whether cuprim_scan() and cuprim_scan_ex() take @p dtype with @p op, as this library build
 *  does. Needs no device.
 *  @param dtype,op any values, also ones outside the enums.
 *  @return 1 if the pair is taken; 0 if a call would return ::CUPRIM_ERROR_UNSUPPORTED (or, for
 *          values outside the enums, ::CUPRIM_ERROR_INVALID_ARGUMENT). */
int cuprim_scan_supported(cuprim_dtype dtype, cuprim_op op);

#ifdef __cplusplus
}
#endif

#endif /* CUPRIM_SCAN_H */
