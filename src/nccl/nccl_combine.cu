/* The steps of cuprim_nccl_reduce and cuprim_nccl_scan that run on one GPU (nccl_internal.h):
 * the partial of a shard, the combination of the all-gathered partials, and the scan of a shard
 * from its predecessors' combination.
 *
 * The combination runs in one thread, partial after partial in rank order. NCCL's all-reduce
 * would be faster for large P, but its order of combination depends on the algorithm and the
 * topology NCCL picks, so float results could differ between ranks and between runs; it also
 * lacks AND, OR and XOR. P values are few (one per GPU), so a sequential fold is short; the
 * threads of the block only stage the partials in shared memory, so that the fold's loads are not
 * one dependent global load after another (not measured apart: cuprim-bench --only nccl's one-GPU
 * row against the local call includes it). */
#include <cuprim/reduce.h>
#include <cuprim/scan.h>

#include "common/check.h"
#include "common/context.h"
#include "common/dispatch.cuh"
#include "cta/ops.cuh"
#include "nccl_internal.h"

namespace cuprim::nccl {
namespace {

constexpr int COMBINE_THREADS = 128;

/* *out = (((p[0] op p[1]) op p[2]) ... op p[count-1]), the identity for count == 0. Starting
 * from p[0] rather than from the identity keeps one partial's bits as they are (0.0 + -0.0 would
 * be +0.0). Computed in Op's accumulate type (cta/ops.cuh): for 16-bit floats the partials, each
 * already rounded to 16 bits by its rank, are combined in float and rounded once more. */
template <class T, class Op>
__global__ void __launch_bounds__(COMBINE_THREADS)
    combine_kernel(const T *partials, int count, T *out) {
  __shared__ T stage[COMBINE_THREADS];
  const Op op;
  acc_t<T> acc = Op::identity();
  for (int base = 0; base < count; base += COMBINE_THREADS) {
    const int m = count - base < COMBINE_THREADS ? count - base : COMBINE_THREADS;
    if ((int)threadIdx.x < m)
      stage[threadIdx.x] = partials[base + threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0)
      for (int k = 0; k < m; ++k)
        acc = base + k == 0 ? to_acc(stage[0]) : op(acc, to_acc(stage[k]));
    __syncthreads(); /* the stage is refilled only after the fold has read it */
  }
  if (threadIdx.x == 0)
    *out = from_acc<T>(acc);
}

} // namespace
} // namespace cuprim::nccl

extern "C" cuprim_status cuprim__nccl_partial(cuprim_ctx *ctx, const void *d_in, uint64_t n,
                                              cuprim_dtype dtype, cuprim_op op, void *d_partial,
                                              cudaStream_t stream) {
  /* AUTO: its bits depend on the shard only, not on the GPU (reduce.h), so every rank's partial
   * is what any GPU would compute from that shard. */
  return cuprim_reduce(ctx, d_in, d_partial, n, dtype, op, stream);
}

extern "C" cuprim_status cuprim__nccl_combine(const cuprim_ctx *ctx, const void *d_partials,
                                              int count, void *d_out, cuprim_dtype dtype,
                                              cuprim_op op, cudaStream_t stream) {
  cuprim__device_scope scope;
  CUPRIM__FORWARD(cuprim__device_enter(ctx, &scope));
  const cuprim_status st =
      cuprim::dispatch_typed_op<cuprim::REDUCE_SCAN_TYPES, cuprim::acc_op>(dtype, op, [&](auto m) {
        using T = typename decltype(m)::type;
        cuprim::nccl::combine_kernel<T, typename decltype(m)::op>
            <<<1, cuprim::nccl::COMBINE_THREADS, 0, stream>>>(static_cast<const T *>(d_partials),
                                                              count, static_cast<T *>(d_out));
        CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
        return CUPRIM_SUCCESS;
      });
  cuprim__device_leave(&scope);
  return st;
}

extern "C" cuprim_status cuprim__nccl_scan_shard(cuprim_ctx *ctx, const void *d_partials, int rank,
                                                 const void *d_in, void *d_out, uint64_t n,
                                                 cuprim_dtype dtype, cuprim_op op,
                                                 cuprim_scan_kind kind, void *d_prefix,
                                                 cudaStream_t stream) {
  if (n == 0)
    return CUPRIM_SUCCESS; /* nothing to write, and no rank waits for this prefix */
  if (rank == 0)
    return cuprim_scan(ctx, d_in, d_out, n, dtype, op, kind, stream);
  CUPRIM__FORWARD(cuprim__nccl_combine(ctx, d_partials, rank, d_prefix, dtype, op, stream));
  return cuprim_scan_init(ctx, d_in, d_out, n, dtype, op, kind, d_prefix, stream);
}
