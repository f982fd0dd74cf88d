/* The NCCL component's C entry points (include/cuprim/nccl.h): validate everything that needs no
 * device or communicator, make the context's device current, check the communicator against the
 * context, and run the steps of nccl_internal.h around one NCCL collective.
 *
 * The argument checks are those of the local calls (their internal validators), after the
 * communicator's, so that a bad argument is refused before the communicator is touched (a failure
 * after a rank has entered the collective would leave the others waiting in it);
 * tests/test_nccl_api.c checks that each call returns what its local call returns. */
#include <cuprim/histogram.h>
#include <cuprim/nccl.h>

#include "common/check.h"
#include "common/context.h"
#include "common/temp_memory.cuh"
#include "histogram/histogram_internal.h"
#include "nccl_internal.h"
#include "reduce/reduce_internal.h"
#include "scan/scan_internal.h"

namespace {

thread_local ncclResult_t last_nccl_error = ncclSuccess;

/* An NCCL call's result. With a non-blocking communicator, ncclInProgress means that NCCL has
 * not enqueued the work on the stream yet; the kernels that follow on the stream read its
 * result, so wait (on the host; the device is not waited for) until the communicator's state
 * leaves ncclInProgress. */
cuprim_status nccl_result(ncclComm_t comm, ncclResult_t r) {
  while (r == ncclInProgress) {
    ncclResult_t state = ncclSuccess;
    const ncclResult_t q = ncclCommGetAsyncError(comm, &state);
    r = q != ncclSuccess ? q : state;
  }
  return r == ncclSuccess ? CUPRIM_SUCCESS : cuprim__nccl_record_error(r);
}

/* The communicator's rank and size, once it is known to be on the context's device. */
cuprim_status comm_rank(const cuprim_ctx *ctx, ncclComm_t comm, int *rank, int *ranks) {
  int device = -1;
  CUPRIM__FORWARD(nccl_result(comm, ncclCommCuDevice(comm, &device)));
  CUPRIM__CHECK_ARG(device == ctx->device);
  CUPRIM__FORWARD(nccl_result(comm, ncclCommCount(comm, ranks)));
  CUPRIM__FORWARD(nccl_result(comm, ncclCommUserRank(comm, rank)));
  CUPRIM__CHECK(*ranks >= 1 && *rank >= 0 && *rank < *ranks, CUPRIM_ERROR_INTERNAL);
  return CUPRIM_SUCCESS;
}

/* The frame of every call, once its arguments are checked: makes the context's device current,
 * checks the communicator against it (comm_rank), calls f(rank, ranks) if it passes, and makes
 * the previous device current again. Returns the check's error or f's status. */
template <class F> cuprim_status on_comm(const cuprim_ctx *ctx, ncclComm_t comm, F &&f) {
  cuprim__device_scope scope;
  CUPRIM__FORWARD(cuprim__device_enter(ctx, &scope));
  int rank = 0, ranks = 0;
  cuprim_status st = comm_rank(ctx, comm, &rank, &ranks);
  if (st == CUPRIM_SUCCESS)
    st = f(rank, ranks);
  cuprim__device_leave(&scope);
  return st;
}

/* Steps 1 and 2 of reduce and scan (nccl_internal.h): every rank's partial into its slot of
 * d_slots (ranks elements), then all of them to every rank (an in-place all-gather: rank r sends
 * slot r). */
cuprim_status gather_partials(cuprim_ctx *ctx, ncclComm_t comm, int rank, const void *d_in,
                              uint64_t n, cuprim_dtype dtype, cuprim_op op, void *d_slots,
                              cudaStream_t stream) {
  const size_t size = cuprim_dtype_size(dtype);
  char *slot = static_cast<char *>(d_slots) + (size_t)rank * size;
  CUPRIM__FORWARD(cuprim__nccl_partial(ctx, d_in, n, dtype, op, slot, stream));
  /* The elements as bytes: every dtype, 16-bit floats included, crosses unchanged. */
  return nccl_result(comm, ncclAllGather(slot, d_slots, size, ncclUint8, comm, stream));
}

} // namespace

extern "C" ncclResult_t cuprim_nccl_last_error(void) { return last_nccl_error; }

extern "C" cuprim_status cuprim__nccl_record_error(ncclResult_t r) {
  last_nccl_error = r;
  return CUPRIM_ERROR_NCCL;
}

extern "C" cuprim_status cuprim_nccl_reduce(cuprim_ctx *ctx, ncclComm_t comm, const void *d_in,
                                            void *d_out, uint64_t n, cuprim_dtype dtype,
                                            cuprim_op op, cudaStream_t stream) {
  CUPRIM__CHECK_ARG(comm != NULL);
  CUPRIM__FORWARD(cuprim__reduce_validate(ctx, CUPRIM_REDUCE_AUTO, d_in, d_out, n, dtype, op));
  return on_comm(ctx, comm, [&](int rank, int ranks) {
    const size_t bytes = (size_t)ranks * cuprim_dtype_size(dtype);
    return cuprim::with_temp(ctx, bytes, stream, [&](void *d_slots) {
      CUPRIM__FORWARD(gather_partials(ctx, comm, rank, d_in, n, dtype, op, d_slots, stream));
      return cuprim__nccl_combine(ctx, d_slots, ranks, d_out, dtype, op, stream);
    });
  });
}

extern "C" cuprim_status cuprim_nccl_scan(cuprim_ctx *ctx, ncclComm_t comm, const void *d_in,
                                          void *d_out, uint64_t n, cuprim_dtype dtype, cuprim_op op,
                                          cuprim_scan_kind kind, cudaStream_t stream) {
  CUPRIM__CHECK_ARG(comm != NULL);
  CUPRIM__FORWARD(
      cuprim__scan_validate(ctx, CUPRIM_SCAN_AUTO, d_in, d_out, n, dtype, op, kind, 0, NULL));
  return on_comm(ctx, comm, [&](int rank, int ranks) {
    /* [ranks slots | the rank's prefix] */
    const size_t size = cuprim_dtype_size(dtype), bytes = ((size_t)ranks + 1) * size;
    return cuprim::with_temp(ctx, bytes, stream, [&](void *d_temp) {
      /* An empty shard still takes part: the ranks after it wait for its (identity) total. */
      CUPRIM__FORWARD(gather_partials(ctx, comm, rank, d_in, n, dtype, op, d_temp, stream));
      return cuprim__nccl_scan_shard(ctx, d_temp, rank, d_in, d_out, n, dtype, op, kind,
                                     static_cast<char *>(d_temp) + (size_t)ranks * size, stream);
    });
  });
}

extern "C" cuprim_status cuprim_nccl_histogram_even(cuprim_ctx *ctx, ncclComm_t comm,
                                                    const void *d_samples, uint64_t n,
                                                    cuprim_dtype sample_dtype, uint64_t *d_counts,
                                                    uint32_t num_bins, double lower, double upper,
                                                    cudaStream_t stream) {
  CUPRIM__CHECK_ARG(comm != NULL);
  cuprim__bins bins;
  CUPRIM__FORWARD(cuprim__histogram_even_validate(ctx, CUPRIM_HISTOGRAM_AUTO, d_samples, n,
                                                  sample_dtype, d_counts, num_bins, lower, upper,
                                                  &bins));
  return on_comm(ctx, comm, [&](int /* rank */, int /* ranks */) {
    CUPRIM__FORWARD(cuprim_histogram_even(ctx, d_samples, n, sample_dtype, d_counts, num_bins,
                                          lower, upper, stream));
    /* Counts add exactly in any order: NCCL's own sum is deterministic here. */
    return nccl_result(
        comm, ncclAllReduce(d_counts, d_counts, num_bins, ncclUint64, ncclSum, comm, stream));
  });
}
