/**
 * @file nccl.h
 * @brief Reduce, scan and histogram over several GPUs through NCCL (the optional component
 *        cuprim::nccl, archive libcuprim_nccl.a, pkg-config cuprim-nccl).
 *
 * @code
 *   // Every rank (one process or thread per GPU `dev`): a communicator over all ranks, made
 *   // with the id that rank 0 got from ncclGetUniqueId and sent to the others (MPI_Bcast, a
 *   // pipe, a file), a context on the same GPU, and its own shard d_in[0..n) (n may differ
 *   // between ranks, or be 0).
 *   ncclComm_t comm;
 *   cuprim_ctx *ctx;
 *   cudaSetDevice(dev);
 *   ncclCommInitRank(&comm, nranks, id, rank);
 *   cuprim_ctx_create(&ctx, dev, NULL);
 *   // *d_sum (one float on this GPU) = the sum over every rank's shard: the same bits on all.
 *   cuprim_status s = cuprim_nccl_reduce(ctx, comm, d_in, d_sum, n, CUPRIM_F32, CUPRIM_SUM,
 *                                        stream);
 *   if (s == CUPRIM_ERROR_NCCL)
 *     fprintf(stderr, "%s: %s\n", cuprim_status_string(s),
 *             ncclGetErrorString(cuprim_nccl_last_error()));
 * @endcode
 * (The build compiles this example; examples/nccl_reduce.c is the whole program.)
 *
 * Each rank of an NCCL communicator holds a shard of the data on its own GPU, and every rank
 * makes the same call with the same dtype, op, kind and bins (shards may differ in length and
 * may be empty). The calls are collective, as NCCL's own: every rank of the communicator must
 * make them, in the same order relative to the other collectives on that communicator. What
 * crosses the interconnect is small and does not grow with the data: reduce and scan exchange
 * one element per rank (each rank's partial result), the histogram its num_bins counts.
 *
 * Rules common to the three calls, besides those of every cuprim call (core.h):
 * - @p ctx must be bound to the communicator's GPU (ncclCommCuDevice), and @p stream must be a
 *   stream of that GPU. Every pointer is device memory of that GPU.
 * - Asynchronous and stream-ordered: a call returns once its kernels and its NCCL collective are
 *   enqueued on @p stream; it never waits for the device, so it can be captured into a CUDA
 *   graph (as NCCL's collectives can). With a non-blocking communicator (ncclConfig_t blocking =
 *   0) an NCCL call may return ncclInProgress before its work is enqueued; the call then waits on
 *   the host, polling ncclCommGetAsyncError, until NCCL has enqueued it, since the kernels that
 *   follow on the stream read its result.
 * - Not inside ncclGroupStart()/ncclGroupEnd(): in a group NCCL enqueues a collective only at the
 *   outermost ncclGroupEnd(), after the kernels that these calls enqueue behind it. A program
 *   that drives several GPUs from one thread gives each its own thread instead (the NCCL rule
 *   for collectives issued without a group).
 * - Temporary memory (one element per rank, and one more for the scan) comes from the context's
 *   allocator, stream-ordered on @p stream.
 * - Errors: the argument checks (the first ::CUPRIM_ERROR_INVALID_ARGUMENT and
 *   ::CUPRIM_ERROR_UNSUPPORTED listed for each call) come before any CUDA or NCCL call, and a
 *   failed one enqueues and writes nothing. A failure after them (::CUPRIM_ERROR_CUDA,
 *   ::CUPRIM_ERROR_OUT_OF_MEMORY, ::CUPRIM_ERROR_NCCL, ...) on one rank may leave the other
 *   ranks waiting in the collective: as with any failed NCCL call, abort the communicator
 *   (ncclCommAbort) on every rank. ::CUPRIM_ERROR_NCCL: cuprim_nccl_last_error() gives the
 *   ncclResult_t, ncclGetErrorString() its text, ncclGetLastError() NCCL's message.
 * - Ranks that disagree on the dtype, op, kind or bins, or a rank that does not make the call,
 *   give undefined results (NCCL cannot see it: a wrong result or a hang).
 *
 * Unlike the other headers, this one also includes NCCL's <nccl.h> (which includes CUDA's
 * cuda_runtime.h); it is not part of cuprim.h. Plain C11, as the others.
 */
#ifndef CUPRIM_NCCL_H
#define CUPRIM_NCCL_H

#include <nccl.h>

#include "core.h"
#include "scan.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The NCCL result behind the last ::CUPRIM_ERROR_NCCL returned on the calling thread (per
 *  thread, as cuprim_last_cuda_error() is for CUDA). Later calls that succeed or fail for other
 *  reasons leave it unchanged. Needs no device.
 *  @return that result, or ncclSuccess if no call on this thread has returned
 *          ::CUPRIM_ERROR_NCCL. */
ncclResult_t cuprim_nccl_last_error(void);

/** Every rank's *d_out = op over the concatenation of all ranks' shards, in rank order.
 *
 * Each rank reduces its shard with ::CUPRIM_REDUCE_AUTO into a device slot (an empty shard gives
 * the identity of @p op), the P partials are all-gathered (ncclAllGather of one element per
 * rank), and every rank combines them in rank order, one after the other, in one GPU thread:
 * (((p0 op p1) op p2) ... op p(P-1)).
 *
 * @param ctx    a context on the communicator's GPU (NULL: ::CUPRIM_ERROR_INVALID_ARGUMENT).
 * @param comm   an NCCL communicator, blocking or not (NULL: ::CUPRIM_ERROR_INVALID_ARGUMENT).
 * @param d_in   this rank's shard: device memory, n elements of @p dtype, element-aligned; may
 *               be NULL if n == 0.
 * @param d_out  device memory, one element of @p dtype, element-aligned; written on every rank,
 *               also when n == 0 (NULL: ::CUPRIM_ERROR_INVALID_ARGUMENT); must not lie inside
 *               the input.
 * @param n      the length of this rank's shard (it may differ between ranks; 0: the shard adds
 *               the identity).
 * @param dtype  as for cuprim_reduce(): I32, U32, I64, U64, F32, F64 (others:
 *               ::CUPRIM_ERROR_UNSUPPORTED). The same on every rank.
 * @param op     any ::cuprim_op, AND/OR/XOR on integers only (which NCCL's own all-reduce does
 *               not offer). The same on every rank.
 * @param stream a CUDA stream of the communicator's GPU.
 *
 * Determinism: every rank gets the same bits, and so does every run, whatever the GPUs and the
 * interconnect: AUTO's result for a shard does not depend on the GPU (reduce.h), and the
 * partials are combined in a fixed order. The bits do depend on how the data is split into
 * shards (a float SUM of the same data split otherwise may differ in its last bits). Integer
 * results are exact (wrapping); float SUM and PROD are within the bound of AUTO over each shard
 * plus P - 1 roundings.
 *
 * @return ::CUPRIM_SUCCESS; ::CUPRIM_ERROR_INVALID_ARGUMENT, having enqueued and written
 *         nothing, for: ctx or comm NULL, dtype or op out of range, d_out NULL, d_in NULL with
 *         n > 0, a pointer not element-aligned, n * size past the address space, d_out inside the
 *         input; then ::CUPRIM_ERROR_UNSUPPORTED for a (dtype, op) pair cuprim_reduce() does not
 *         take. After those: ::CUPRIM_ERROR_NO_DEVICE or ::CUPRIM_ERROR_CUDA;
 *         ::CUPRIM_ERROR_INVALID_ARGUMENT if the communicator is on another GPU than @p ctx;
 *         ::CUPRIM_ERROR_OUT_OF_MEMORY; ::CUPRIM_ERROR_NCCL (cuprim_nccl_last_error()). */
cuprim_status cuprim_nccl_reduce(cuprim_ctx *ctx, ncclComm_t comm, const void *d_in, void *d_out,
                                 uint64_t n, cuprim_dtype dtype, cuprim_op op, cudaStream_t stream);

/** Scan over the concatenation of all ranks' shards in rank order: d_out[i] on rank r is the
 * scan (@p kind) of that concatenation at the position of rank r's element i. Inclusive:
 * d_out[i] = T op x[0] op ... op x[i]; exclusive: d_out[0] = T, d_out[i] = T op x[0] ... x[i-1];
 * where T is op over the shards of ranks 0 .. r-1 (on rank 0 there is none: rank 0 scans its
 * shard as cuprim_scan() does).
 *
 * Each rank reduces its shard with ::CUPRIM_REDUCE_AUTO, the P totals are all-gathered (one
 * element per rank), each rank combines its predecessors' totals in rank order in one GPU thread
 * (T), and scans its shard starting from T (cuprim_scan_init()).
 *
 * @param ctx,comm,stream as for cuprim_nccl_reduce().
 * @param d_in   this rank's shard: device memory, n elements of @p dtype, element-aligned; may
 *               be NULL if n == 0.
 * @param d_out  device memory, n elements; may be NULL if n == 0. d_out == d_in scans in place;
 *               any other overlap: ::CUPRIM_ERROR_INVALID_ARGUMENT.
 * @param n      the length of this rank's shard (it may differ between ranks; 0: this rank
 *               writes nothing but still takes part, adding nothing to the ranks after it).
 * @param dtype,op as for cuprim_scan() (the pairs cuprim_scan_supported() accepts); the same on
 *               every rank.
 * @param kind   ::CUPRIM_INCLUSIVE or ::CUPRIM_EXCLUSIVE; the same on every rank.
 *
 * Determinism: T is the same on every run (AUTO's totals, combined in a fixed order); the scan
 * of the shard from T gives what cuprim_scan() gives: integer and MIN/MAX results exact, float
 * SUM and PROD within about N * eps * sum|x| for N elements before the position (over all
 * ranks), their last bits possibly varying between runs (docs/determinism.md).
 *
 * @return ::CUPRIM_SUCCESS; ::CUPRIM_ERROR_INVALID_ARGUMENT, having enqueued and written
 *         nothing, for: ctx or comm NULL, dtype, op or kind out of range, and with n > 0 d_in or
 *         d_out NULL, not element-aligned, n * size past the address space, or the two ranges
 *         overlapping other than exactly; then ::CUPRIM_ERROR_UNSUPPORTED as for cuprim_scan().
 *         After those: as for cuprim_nccl_reduce(). */
cuprim_status cuprim_nccl_scan(cuprim_ctx *ctx, ncclComm_t comm, const void *d_in, void *d_out,
                               uint64_t n, cuprim_dtype dtype, cuprim_op op, cuprim_scan_kind kind,
                               cudaStream_t stream);

/** Every rank's d_counts = the even histogram (cuprim_histogram_even()) of all ranks' samples.
 *
 * Each rank counts its own samples with cuprim_histogram_even() into d_counts, then the counts
 * are summed over the ranks in place (ncclAllReduce, ncclSum over ncclUint64).
 *
 * @param ctx,comm,stream as for cuprim_nccl_reduce().
 * @param d_samples    this rank's samples: device memory, n elements of @p sample_dtype,
 *                     element-aligned; may be NULL if n == 0.
 * @param n            the number of this rank's samples (it may differ between ranks; 0: the
 *                     rank counts nothing but still takes part).
 * @param sample_dtype any ::cuprim_dtype; the same on every rank.
 * @param d_counts     device memory, num_bins uint64_t, 8-byte aligned, not overlapping the
 *                     samples; overwritten on every rank with the counts over all ranks.
 * @param num_bins,lower,upper as for cuprim_histogram_even(); the same on every rank.
 *
 * Counts are exact on every rank and every run.
 *
 * @return ::CUPRIM_SUCCESS; ::CUPRIM_ERROR_INVALID_ARGUMENT, having enqueued and written
 *         nothing, for comm NULL and for every argument cuprim_histogram_even() refuses (ctx
 *         NULL, sample_dtype out of range, num_bins 0, d_counts NULL or misaligned, d_samples
 *         NULL with n > 0 or misaligned, counts overlapping the samples, lower or upper not
 *         finite, lower >= upper, a scale that is not finite). After those: as for
 *         cuprim_nccl_reduce(). */
cuprim_status cuprim_nccl_histogram_even(cuprim_ctx *ctx, ncclComm_t comm, const void *d_samples,
                                         uint64_t n, cuprim_dtype sample_dtype, uint64_t *d_counts,
                                         uint32_t num_bins, double lower, double upper,
                                         cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* CUPRIM_NCCL_H */
