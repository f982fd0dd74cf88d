/**
 * @file reduce.h
 * @brief Device-wide reduction: one value from n elements.
 *
 * @code
 *   // d_in: n floats in device memory; d_sum: one float in device memory.
 *   cuprim_status s = cuprim_reduce(ctx, d_in, d_sum, n, CUPRIM_F32, CUPRIM_SUM, stream);
 *   if (s != CUPRIM_SUCCESS) fprintf(stderr, "reduce: %s\n", cuprim_status_string(s));
 *   cudaMemcpyAsync(&h_sum, d_sum, sizeof h_sum, cudaMemcpyDeviceToHost, stream);
 *   cudaStreamSynchronize(stream);
 * @endcode
 */
#ifndef CUPRIM_REDUCE_H
#define CUPRIM_REDUCE_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Reduction algorithms. ::CUPRIM_REDUCE_AUTO is the tuned default; the others are the classic
 *  textbook kernels (the "ladder", see docs/ladder.md), kept so each step can be measured.
 *  Values are pinned. */
typedef enum cuprim_reduce_alg {
  CUPRIM_REDUCE_AUTO = 0,                 /**< the tuned default; deterministic */
  CUPRIM_REDUCE_GLOBAL_TREE = 1,          /**< tree in global memory on a scratch copy */
  CUPRIM_REDUCE_NEIGHBORED_DIVERGENT = 2, /**< shared memory, tid % (2*s) == 0 */
  CUPRIM_REDUCE_NEIGHBORED_STRIDED = 3,   /**< shared memory, index = 2*s*tid: bank conflicts */
  CUPRIM_REDUCE_SEQUENTIAL = 4,           /**< shared memory, stride halving: conflict-free */
  CUPRIM_REDUCE_FIRST_ADD_ON_LOAD = 5,    /**< each thread adds two elements while loading */
  CUPRIM_REDUCE_UNROLLED = 6,             /**< template block size, loop and last warp unrolled */
  CUPRIM_REDUCE_WARP_SHUFFLE = 7,         /**< warp shuffles instead of shared memory in a warp */
  CUPRIM_REDUCE_COARSENED = 8,            /**< many elements per thread, grid sized to the GPU */
  CUPRIM_REDUCE_ATOMIC = 9                /**< block results combined with atomics, one launch */
} cuprim_reduce_alg;

/** *d_out = op over d_in[0..n).
 *
 * @param ctx    a context from cuprim_ctx_create (NULL: ::CUPRIM_ERROR_INVALID_ARGUMENT).
 * @param d_in   device memory, n elements of @p dtype, element-aligned; may be NULL if n == 0.
 * @param d_out  device memory, one element of @p dtype; always written, also when n == 0, when
 *               it receives the identity of @p op (SUM 0, PROD 1, MIN/MAX the type's largest /
 *               lowest value or +inf/-inf, AND all ones, OR/XOR 0). Must not lie inside d_in.
 * @param n      number of elements; any value (inputs past 2^32 elements are supported).
 * @param dtype  I32, U32, I64, U64, F32, F64, F16 or BF16 (the 8- and 16-bit integer dtypes:
 *               UNSUPPORTED). F16 and BF16 are computed in float and rounded once, to nearest
 *               even, into *d_out; their MIN and MAX are exact.
 * @param op     any ::cuprim_op; AND/OR/XOR on floats: ::CUPRIM_ERROR_UNSUPPORTED.
 * @param stream the CUDA stream the work is enqueued on (0: the legacy default stream).
 *
 * Asynchronous: returns once the work is enqueued; temporary memory is taken from the context's
 * allocator on @p stream. Capturable into a CUDA graph.
 *
 * Deterministic: the same input gives the same bits on every run and on every GPU (a fixed
 * decomposition into chunks that depends on neither the grid nor the device; no float atomics).
 * Float sums are accurate to about log2(n) * eps * sum|x|.
 *
 * @return ::CUPRIM_SUCCESS, or an error, having enqueued and written nothing when the arguments
 *         are invalid (see ::cuprim_status). Equivalent to cuprim_reduce_ex with
 *         ::CUPRIM_REDUCE_AUTO. */
cuprim_status cuprim_reduce(cuprim_ctx *ctx, const void *d_in, void *d_out, uint64_t n,
                            cuprim_dtype dtype, cuprim_op op, cudaStream_t stream);

/** cuprim_reduce() with a chosen algorithm. All algorithms take the same dtypes, ops and sizes
 *  and give exact integer results. For floats, only ::CUPRIM_REDUCE_AUTO is guaranteed to give
 *  the same bits on every GPU; the ladder kernels are deterministic on one GPU except
 *  ::CUPRIM_REDUCE_ATOMIC, whose float SUM and PROD depend on the order in which blocks finish
 *  (docs/determinism.md). n == 0 writes the identity whatever the algorithm.
 *
 * @param alg any ::cuprim_reduce_alg (out of range: ::CUPRIM_ERROR_INVALID_ARGUMENT).
 * @param ctx,d_in,d_out,n,dtype,op,stream as for cuprim_reduce().
 * @return as for cuprim_reduce(); besides, a ladder algorithm that would need more than
 *         2^31 - 1 blocks (beyond any current GPU's memory) returns ::CUPRIM_ERROR_UNSUPPORTED
 *         having launched nothing. */
cuprim_status cuprim_reduce_ex(cuprim_ctx *ctx, cuprim_reduce_alg alg, const void *d_in,
                               void *d_out, uint64_t n, cuprim_dtype dtype, cuprim_op op,
                               cudaStream_t stream);

/** Which element cuprim_reduce_arg() looks for. Values are pinned. */
typedef enum cuprim_arg_op {
  CUPRIM_ARGMIN = 0, /**< the smallest element */
  CUPRIM_ARGMAX = 1  /**< the largest element */
} cuprim_arg_op;

/** *d_index = the index of the smallest (::CUPRIM_ARGMIN) or largest (::CUPRIM_ARGMAX) element
 *  of d_in[0..n), and optionally *d_value = that element.
 *
 * The element chosen is unique: ties go to the smallest index. Floats: if any element is NaN,
 * the first NaN wins (as NumPy's argmin and argmax); -0.0 and +0.0 are equal (the first of them
 * wins a tie between them).
 *
 * @code
 *   // d_in: n floats; d_index: one uint64_t; d_min: one float (all device memory).
 *   cuprim_reduce_arg(ctx, d_in, d_min, d_index, n, CUPRIM_F32, CUPRIM_ARGMIN, stream);
 * @endcode
 *
 * @param ctx     a context (NULL: ::CUPRIM_ERROR_INVALID_ARGUMENT).
 * @param d_in    device memory, n elements of @p dtype, element-aligned; may be NULL if n == 0.
 * @param d_value device memory, one element of @p dtype, element-aligned, or NULL (not wanted).
 *                Receives the chosen element bit for bit (a NaN's payload, a zero's sign). With
 *                n == 0 it receives the identity of MIN (::CUPRIM_ARGMIN: the type's largest
 *                value, +inf for floats) or of MAX (::CUPRIM_ARGMAX: the lowest value, -inf).
 * @param d_index device memory, one uint64_t, 8-byte aligned (NULL:
 *                ::CUPRIM_ERROR_INVALID_ARGUMENT); always written: UINT64_MAX when n == 0.
 * @param n       number of elements; any value (inputs past 2^32 elements are supported).
 * @param dtype   every ::cuprim_dtype.
 * @param op      ::CUPRIM_ARGMIN or ::CUPRIM_ARGMAX (else ::CUPRIM_ERROR_INVALID_ARGUMENT).
 * @param stream  the CUDA stream the work is enqueued on.
 *
 * Neither output may overlap the input or the other output (::CUPRIM_ERROR_INVALID_ARGUMENT).
 * Asynchronous; one pass over the data; temporary memory from the context's allocator on
 * @p stream; capturable into a CUDA graph. Always deterministic: the answer is defined by a total
 * order on (element, index), so it does not depend on the order in which parts are combined.
 *
 * @return ::CUPRIM_SUCCESS, or an error, having enqueued and written nothing when the arguments
 *         are invalid (see ::cuprim_status). */
cuprim_status cuprim_reduce_arg(cuprim_ctx *ctx, const void *d_in, void *d_value, uint64_t *d_index,
                                uint64_t n, cuprim_dtype dtype, cuprim_arg_op op,
                                cudaStream_t stream);

/** Whether cuprim_reduce() and cuprim_reduce_ex() take @p dtype with @p op, as this library
 *  build does: a program can ask before it prepares the data, with no device.
 *  @param dtype,op any values, also ones outside the enums.
 *  @return 1 if the pair is taken; 0 if a call would return ::CUPRIM_ERROR_UNSUPPORTED (or, for
 *          values outside the enums, ::CUPRIM_ERROR_INVALID_ARGUMENT). */
int cuprim_reduce_supported(cuprim_dtype dtype, cuprim_op op);

#ifdef __cplusplus
}
#endif

#endif /* CUPRIM_REDUCE_H */
