/* The steps of the NCCL calls (nccl.cu) that run on one GPU, around the exchange between ranks.
 *
 * cuprim_nccl_reduce and cuprim_nccl_scan are three steps on every rank r of P:
 *   1. cuprim__nccl_partial: op over the rank's shard into slot r of a P-slot device array;
 *   2. ncclAllGather: every rank gets all P slots (the partials, in rank order);
 *   3. reduce: cuprim__nccl_combine over the P partials; scan: cuprim__nccl_scan_shard (the
 *      combination of partials 0 .. r-1, then the rank's shard scanned from it).
 * Steps 1 and 3 need no NCCL, so tests run them for several "virtual ranks" on one GPU (NCCL puts
 * at most one rank on a GPU) with the code the real path runs, and only step 2 is NCCL's.
 *
 * Arguments reaching these functions are validated; each makes the context's device current
 * itself, so tests may call them from any device. */
#ifndef CUPRIM_NCCL_INTERNAL_H
#define CUPRIM_NCCL_INTERNAL_H

#include <cuprim/nccl.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Step 1: *d_partial (device, one element) = op over d_in[0..n) with CUPRIM_REDUCE_AUTO: the
 * identity for n == 0, and bits that do not depend on the GPU. */
cuprim_status cuprim__nccl_partial(cuprim_ctx *ctx, const void *d_in, uint64_t n,
                                   cuprim_dtype dtype, cuprim_op op, void *d_partial,
                                   cudaStream_t stream);

/* Step 3 of reduce (and of scan's prefix): *d_out = (((p[0] op p[1]) op p[2]) ... op p[count-1])
 * over the device array d_partials, combined one after the other in one GPU thread, so that
 * every rank computes the same bits from the same partials. count == 0 writes the identity;
 * count == 1 copies p[0] bit for bit. d_out must not overlap d_partials[0..count). */
cuprim_status cuprim__nccl_combine(const cuprim_ctx *ctx, const void *d_partials, int count,
                                   void *d_out, cuprim_dtype dtype, cuprim_op op,
                                   cudaStream_t stream);

/* Step 3 of scan on rank `rank`: d_out[0..n) = the scan (kind) of d_in[0..n) starting from the
 * combination of d_partials[0..rank) (cuprim__nccl_combine into *d_prefix, device scratch of one
 * element, then cuprim_scan_init). Rank 0 has nothing before it: a plain cuprim_scan, the bits
 * a one-GPU scan gives. n == 0 does nothing. */
cuprim_status cuprim__nccl_scan_shard(cuprim_ctx *ctx, const void *d_partials, int rank,
                                      const void *d_in, void *d_out, uint64_t n, cuprim_dtype dtype,
                                      cuprim_op op, cuprim_scan_kind kind, void *d_prefix,
                                      cudaStream_t stream);

/* Records `r` as this thread's last NCCL error (cuprim_nccl_last_error) and returns
 * CUPRIM_ERROR_NCCL. */
cuprim_status cuprim__nccl_record_error(ncclResult_t r);

#ifdef __cplusplus
}
#endif

#endif
