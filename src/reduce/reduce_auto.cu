/* CUPRIM_REDUCE_AUTO: the tuned, deterministic reduction.
 *
 * Every kernel computes the canonical tree of reduce_chunk.cuh, so which one runs never changes
 * the bits of the result. A block holds four groups of 256 threads; each group reduces whole
 * chunks on its own, synchronizing on its own named barrier.
 *  - one chunk at most: one group; an aligned input loads only the vectors that hold elements.
 *  - small inputs (a few chunks): one block; the chunk results stay in shared memory and one
 *    group reduces them. One launch, no temporary memory.
 *  - larger inputs: a persistent grid of one block per SM, launched cooperatively. Each group
 *    walks its share of the chunks (loading the next chunk while it reduces the current one) and
 *    writes each chunk's result to its own slot; a grid-wide barrier; then the chunk results are
 *    reduced (by all groups, a chunk of results each, then one more barrier, when there are more
 *    than CHUNK of them). One launch and no initialised memory: the grid barrier, whose state
 *    CUDA keeps per launch, replaces the atomic tickets (and their memset, ~3 us on an H100)
 *    of a "last block" scheme.
 * 16-bit floats are read as 16-bit vectors and reduced in float (reduce_chunk.cuh): the chunk
 * results and every buffer and shared array below hold the accumulate type A, and the one value
 * written to d_out is rounded once. */
#include <cooperative_groups.h>

#include "common/check.h"
#include "common/dispatch.cuh"
#include "common/launch.h"
#include "common/launch_config.cuh"
#include "common/temp_memory.cuh"
#include "cta/arch.cuh"
#include "cta/ops.cuh"
#include "reduce_chunk.cuh"
#include "reduce_internal.h"
#include "reduce_tuning.h"

namespace cuprim::reduce {
namespace {

constexpr int GROUPS = 4; /* chunk-groups of 256 threads per block */
constexpr int BLOCK_THREADS = GROUPS * 256;
constexpr unsigned SMALL_MAX_CHUNKS = 64;    /* single-block kernel: shared-memory slots */
constexpr unsigned CLUSTER_MAX_CHUNKS = 256; /* cluster kernel: slots in block 0 */

template <class T> __host__ __device__ constexpr uint64_t chunk_elems() {
  return (uint64_t)chunk_geometry<T>::CHUNK;
}

template <class T> __device__ __forceinline__ uint64_t chunk_len(uint64_t n, uint64_t c) {
  const uint64_t C = chunk_elems<T>();
  return n - c * C < C ? n - c * C : C;
}

typedef cta::group_barrier<256> group_sync;

/* Inputs of one chunk at most (n <= CHUNK, the smallest): one group of 256 threads, one launch,
 * chunk_reduce's tree. An aligned input loads only the vectors that hold an element, each with one
 * 16-byte load but the last, partial one (chunk_load_vec_partial); chunk_reduce's partial chunk
 * instead loads all ITEMS elements one by one with a bounds check each. */
template <class T, class Op>
__global__ void __launch_bounds__(256)
    one_chunk_kernel(const T *__restrict__ in, uint64_t n, T *__restrict__ out) {
  typedef chunk_geometry<T> G;
  typedef acc_t<T> A;
  static_assert(G::THREADS == 256, "one group is 256 threads");
  __shared__ A warp_smem[G::THREADS / 32];
  const int t = threadIdx.x;
  T items[G::ITEMS];
  if (cta::aligned16(in))
    chunk_load_vec_partial<T, Op, cta::LOAD_LDG>(in, n, t, items);
  else
    chunk_load_scalar<T, Op, cta::LOAD_LDG>(in, n, t, items);
  const A v = chunk_group_tree<Op>(chunk_thread_tree<T, Op>(items), t, warp_smem, group_sync{1});
  if (t == 0)
    *out = from_acc<T>(v);
}

/* Up to SMALL_MAX_CHUNKS chunks. AUTO sends it two or more since one_chunk_kernel takes the
 * single chunk; its code is kept as measured before (see benchmarks.md, fifteenth runs). */
template <class T, class Op>
__global__ void __launch_bounds__(BLOCK_THREADS)
    single_block_kernel(const T *__restrict__ in, uint64_t n, T *__restrict__ out) {
  typedef chunk_geometry<T> G;
  typedef acc_t<T> A;
  static_assert(G::THREADS == 256, "one group is 256 threads");
  __shared__ A warp_smem[GROUPS][G::THREADS / 32];
  __shared__ A parts[SMALL_MAX_CHUNKS];
  const int g = threadIdx.x / G::THREADS, t = threadIdx.x % G::THREADS;
  const group_sync sync{1 + g};
  const uint64_t C = chunk_elems<T>(), P = (n + C - 1) / C;
  if (P == 0) {
    if (threadIdx.x == 0)
      *out = from_acc<T>(Op::identity());
    return;
  }
  for (uint64_t c = g; c < P; c += GROUPS) {
    const A v =
        chunk_reduce<T, Op, cta::LOAD_LDG>(in + c * C, chunk_len<T>(n, c), t, warp_smem[g], sync);
    if (t == 0)
      parts[c] = v;
  }
  __syncthreads();
  if (g != 0)
    return;
  const A v =
      P == 1 ? parts[0] : chunk_reduce<A, Op, cta::LOAD_PLAIN>(parts, P, t, warp_smem[0], sync);
  if (t == 0)
    *out = from_acc<T>(v);
}

/* Mid-small inputs (up to 256 chunks): one thread-block cluster of up to 16 blocks (Hopper).
 * Every group reduces its chunks into its own block's shared memory, then copies the results
 * into block 0's shared memory (distributed shared memory); after one cluster barrier, a group of
 * block 0 reduces them. A block may write another block's shared memory only once that block is
 * known to run: every thread arrives (relaxed) at a cluster barrier on entry and waits on it just
 * before the copies, by which time the whole cluster has long started, so the wait costs
 * nothing (compute-sanitizer racecheck reports remote stores made without it). One plain
 * launch, no temporary memory, no initialised memory, no atomics. */
template <class T, class Op>
__global__ void __launch_bounds__(BLOCK_THREADS)
    cluster_kernel(const T *__restrict__ in, uint64_t n, T *__restrict__ out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 /* clusters: compute capability 9.0 */
  typedef chunk_geometry<T> G;
  typedef acc_t<T> A;
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  __shared__ A warp_smem[GROUPS][G::THREADS / 32];
  __shared__ A parts[CLUSTER_MAX_CHUNKS]; /* chunk c's result: first in the block that reduced
                                             it, then in block 0 */
  cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  const int g = threadIdx.x / G::THREADS, t = threadIdx.x % G::THREADS;
  const group_sync sync{1 + g};
  const uint64_t C = chunk_elems<T>(), P = (n + C - 1) / C;
  const uint64_t groups = (uint64_t)gridDim.x * GROUPS, gid = (uint64_t)blockIdx.x * GROUPS + g;
  for (uint64_t c = gid; c < P; c += groups) {
    const A v =
        chunk_reduce<T, Op, cta::LOAD_LDG>(in + c * C, chunk_len<T>(n, c), t, warp_smem[g], sync);
    if (t == 0)
      parts[c] = v;
  }
  sync(); /* the group's results are in place for all its threads */
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory"); /* every block has started */
  if (blockIdx.x != 0) { /* thread t of the group copies the group's t-th result to block 0 */
    A *parts0 = cluster.map_shared_rank(parts, 0);
    const uint64_t c = gid + (uint64_t)t * groups;
    if (c < P)
      parts0[c] = parts[c];
  }
  cluster.sync(); /* orders the remote stores before block 0 reads them */
  if (blockIdx.x != 0 || g != 0)
    return;
  const A v = chunk_reduce<A, Op, cta::LOAD_PLAIN>(parts, P, t, warp_smem[0], sync);
  if (t == 0)
    *out = from_acc<T>(v);
#else
  /* Never launched for code older than 9.0: the tuning table sets cluster_max_chunks to 0. */
  (void)in;
  (void)n;
  (void)out;
  __trap();
#endif
}

/* Reduces src[0..m) (m >= 1, written before a grid barrier) level by level within one group;
 * `scratch` holds 2 * ceil(m / CHUNK) elements. The result goes to rank 0. T here is the
 * accumulate type (the arrays of chunk results). */
template <class T, class Op>
__device__ T reduce_levels(const T *src, uint64_t m, T *scratch, int t, T *warp_smem,
                           group_sync sync) {
  const uint64_t C = chunk_elems<T>();
  T *dst = scratch, *other = scratch + (m + C - 1) / C;
  for (;;) {
    const uint64_t mm = (m + C - 1) / C;
    if (mm == 1)
      return chunk_reduce<T, Op, cta::LOAD_CG>(src, m, t, warp_smem, sync);
    for (uint64_t i = 0; i < mm; ++i) {
      const T v =
          chunk_reduce<T, Op, cta::LOAD_CG>(src + i * C, chunk_len<T>(m, i), t, warp_smem, sync);
      if (t == 0)
        dst[i] = v;
    }
    sync(); /* bar.sync orders rank 0's stores before the group's next loads */
    src = dst;
    T *tmp = dst;
    dst = other;
    other = tmp;
    m = mm;
  }
}

/* Chunk results are of the accumulate type A, whose chunks (CHUNK_A elements) may differ from
 * the input's. */
template <class T> struct grid_args {
  typedef acc_t<T> A;
  const T *in;
  uint64_t n;
  T *out;
  A *partials; /* P chunk results */
  A *level2;   /* P2 = ceil(P / CHUNK_A) results of chunks of chunk results (when P > CHUNK_A) */
  A *scratch;  /* for more than CHUNK_A level-2 results (inputs of over CHUNK * CHUNK_A^2) */
  uint64_t P, P2;
};

/* Level 1 of the tree: the results of the chunks gid, gid + groups, ... into a.partials.
 * Whole chunks of an aligned input take the vector-load loop; the last, partial chunk and every
 * chunk of a misaligned input take scalar loads (same elements, same order). In the vector loop
 * the thread's items are folded to one value first; then the next chunk's loads are issued into
 * the same registers and are in flight while the group's shuffle tree (barriers, shuffles)
 * finishes the current chunk. */
template <class T, class Op, bool ALIGNED, cta::load_mode LM>
__device__ __forceinline__ void level1(const grid_args<T> &a, uint64_t gid, uint64_t groups, int t,
                                       acc_t<T> *warp_smem, group_sync sync) {
  typedef chunk_geometry<T> G;
  const uint64_t C = chunk_elems<T>();
  uint64_t c = gid;
  if constexpr (ALIGNED) {
    const uint64_t full = a.n / C;
    if (c < full) {
      T items[G::ITEMS];
      chunk_load_vec<T, LM>(a.in + c * C, t, items);
      for (;;) {
        const uint64_t next = c + groups;
        acc_t<T> v = chunk_thread_tree<T, Op>(items);
        if (next < full)
          chunk_load_vec<T, LM>(a.in + next * C, t, items);
        v = chunk_group_tree<Op>(v, t, warp_smem, sync);
        if (t == 0)
          a.partials[c] = v;
        c = next;
        if (c >= full)
          break;
      }
    }
  }
  for (; c < a.P; c += groups) {
    T items[G::ITEMS];
    chunk_load_scalar<T, Op, cta::LOAD_LDG>(a.in + c * C, chunk_len<T>(a.n, c), t, items);
    const acc_t<T> v = chunk_group_tree<Op>(chunk_thread_tree<T, Op>(items), t, warp_smem, sync);
    if (t == 0)
      a.partials[c] = v;
  }
}

template <class T, class Op, bool ALIGNED, cta::load_mode LM>
__global__ void __launch_bounds__(BLOCK_THREADS, 1) grid_kernel(const grid_args<T> a) {
  typedef chunk_geometry<T> G;
  typedef acc_t<T> A;
  __shared__ A warp_smem[GROUPS][G::THREADS / 32];
  const int g = threadIdx.x / G::THREADS, t = threadIdx.x % G::THREADS;
  const group_sync sync{1 + g};
  const uint64_t C = chunk_elems<A>(); /* level 2 and up reduce chunks of chunk results */
  const uint64_t groups = (uint64_t)gridDim.x * GROUPS, gid = (uint64_t)blockIdx.x * GROUPS + g;

  level1<T, Op, ALIGNED, LM>(a, gid, groups, t, warp_smem[g], sync);
  cooperative_groups::this_grid().sync();

  if (a.P2 == 1) { /* one chunk of chunk results: one group finishes */
    if (gid == 0) {
      const A v = chunk_reduce<A, Op, cta::LOAD_CG>(a.partials, a.P, t, warp_smem[g], sync);
      if (t == 0)
        *a.out = from_acc<T>(v);
    }
    return;
  }
  for (uint64_t j = gid; j < a.P2; j += groups) {
    const A v = chunk_reduce<A, Op, cta::LOAD_CG>(a.partials + j * C, chunk_len<A>(a.P, j), t,
                                                  warp_smem[g], sync);
    if (t == 0)
      a.level2[j] = v;
  }
  cooperative_groups::this_grid().sync();
  if (gid == 0) {
    const A v = reduce_levels<A, Op>(a.level2, a.P2, a.scratch, t, warp_smem[g], sync);
    if (t == 0)
      *a.out = from_acc<T>(v);
  }
}

/* The mid-size path, two plain launches chained by programmatic dependent launch (Hopper):
 * chunks_kernel writes the chunk results and at once lets finish_kernel launch; finish_kernel's
 * launch then overlaps the chunks' loads, and it waits (griddepcontrol.wait) until chunks_kernel
 * has finished and its writes are visible. A cooperative launch costs ~3 us more than a plain one
 * on an H100, which is the whole budget at these sizes. */
template <class T, class Op, bool ALIGNED, cta::load_mode LM>
__global__ void __launch_bounds__(BLOCK_THREADS, 1) chunks_kernel(const grid_args<T> a) {
  typedef chunk_geometry<T> G;
  __shared__ acc_t<T> warp_smem[GROUPS][G::THREADS / 32];
  cta::pdl_launch_dependents();
  const int g = threadIdx.x / G::THREADS, t = threadIdx.x % G::THREADS;
  const uint64_t groups = (uint64_t)gridDim.x * GROUPS, gid = (uint64_t)blockIdx.x * GROUPS + g;
  level1<T, Op, ALIGNED, LM>(a, gid, groups, t, warp_smem[g], group_sync{1 + g});
}

template <class T, class Op>
__global__ void __launch_bounds__(BLOCK_THREADS, 1) finish_kernel(const grid_args<T> a) {
  typedef chunk_geometry<T> G;
  typedef acc_t<T> A;
  __shared__ A warp_smem[GROUPS][G::THREADS / 32];
  cta::pdl_wait();
  const int g = threadIdx.x / G::THREADS, t = threadIdx.x % G::THREADS;
  const group_sync sync{1 + g};
  const uint64_t C = chunk_elems<A>();
  if (a.P2 > 1) { /* level 2 by the four groups, then level 3 and up by group 0 */
    for (uint64_t j = g; j < a.P2; j += GROUPS) {
      const A v = chunk_reduce<A, Op, cta::LOAD_CG>(a.partials + j * C, chunk_len<A>(a.P, j), t,
                                                    warp_smem[g], sync);
      if (t == 0)
        a.level2[j] = v;
    }
    __syncthreads();
  }
  if (g != 0)
    return;
  const A v = a.P2 > 1 ? reduce_levels<A, Op>(a.level2, a.P2, a.scratch, t, warp_smem[0], sync)
                       : chunk_reduce<A, Op, cta::LOAD_CG>(a.partials, a.P, t, warp_smem[0], sync);
  if (t == 0)
    *a.out = from_acc<T>(v);
}

/* Clusters of more than 8 blocks need cudaFuncAttributeNonPortableClusterSizeAllowed on the
 * kernel; set once per device. */
template <class T, class Op> bool allow_cluster16(int device) {
  static int state[64];
  return cuprim::allow_cluster16(cluster_kernel<T, Op>, BLOCK_THREADS, device, state);
}

template <class T, class Op>
cuprim_status auto_impl(typed_op<T, Op>, const cuprim_ctx *ctx, const void *d_in, void *d_out,
                        uint64_t n, cudaStream_t stream, const cuprim__reduce_tuning *tune) {
  const unsigned single_block_max_chunks = tune->single_block_max_chunks;
  const T *in = static_cast<const T *>(d_in);
  T *out = static_cast<T *>(d_out);
  const uint64_t C = chunk_elems<T>(), P = (n + C - 1) / C;

  if (P == 0 || (P == 1 && single_block_max_chunks >= 1)) { /* n = 0: a tree of identities */
    one_chunk_kernel<T, Op><<<1, chunk_geometry<T>::THREADS, 0, stream>>>(in, n, out);
    CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
    return CUPRIM_SUCCESS;
  }
  if (P <= single_block_max_chunks && P <= SMALL_MAX_CHUNKS) {
    /* As many 256-thread groups as there are chunks, up to four. */
    const unsigned groups = P < (uint64_t)GROUPS ? (P ? (unsigned)P : 1u) : (unsigned)GROUPS;
    single_block_kernel<T, Op><<<1, groups * 256, 0, stream>>>(in, n, out);
    CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
    return CUPRIM_SUCCESS;
  }
  if (P <= tune->cluster_max_chunks && P <= CLUSTER_MAX_CHUNKS && cuprim__clusters_supported(ctx)) {
    /* Enough blocks that each group has about one chunk, at most the tuned cluster size (8 is
     * portable; 16 needs the non-portable attribute, set once per device). */
    uint64_t want = (P + GROUPS - 1) / GROUPS;
    const unsigned max_blocks = tune->cluster_max_blocks > 8 && allow_cluster16<T, Op>(ctx->device)
                                    ? tune->cluster_max_blocks
                                    : 8;
    const unsigned blocks = (unsigned)(want < max_blocks ? want : max_blocks);
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg = one_cluster_config(blocks, BLOCK_THREADS, stream, &attr);
    CUPRIM__CUDA_CHECK(cudaLaunchKernelEx(&cfg, cluster_kernel<T, Op>, in, n, out));
    return CUPRIM_SUCCESS;
  }

  typedef acc_t<T> A;
  const uint64_t CA = chunk_elems<A>(), P2 = (P + CA - 1) / CA;
  const uint64_t scratch_elems = P2 > CA ? 2 * ((P2 + CA - 1) / CA) : 0; /* past C * CA^2 */
  temp_layout lay;
  const size_t partials_at = lay.take((size_t)P * sizeof(A));
  const size_t level2_at = lay.take(P2 > 1 ? (size_t)P2 * sizeof(A) : 0);
  const size_t scratch_at = lay.take((size_t)scratch_elems * sizeof(A));
  return with_temp(ctx, lay, stream, [&] {
    grid_args<T> a;
    a.in = in;
    a.n = n;
    a.out = out;
    a.partials = lay.at<A>(partials_at);
    a.level2 = lay.at<A>(level2_at);
    a.scratch = lay.at<A>(scratch_at);
    a.P = P;
    a.P2 = P2;
    /* One block per SM (the kernel's launch bounds guarantee that one fits), never more groups
     * than chunks: all blocks are co-resident, as the grid barrier requires. */
    const uint64_t grid = cuprim__grid_persistent(ctx, (P + GROUPS - 1) / GROUPS, BLOCK_THREADS, 1);
    void *args[] = {&a};
    /* 16-byte aligned inputs take vector loads; others the scalar-load instantiation. */
    const bool aligned = (uintptr_t)in % 16 == 0, pf = P <= tune->l2_prefetch_max_chunks;
    if (P >= tune->grid_sync_min_chunks) {
      const void *kernel = aligned
                               ? (pf ? (const void *)grid_kernel<T, Op, true, cta::LOAD_STREAM_PF>
                                     : (const void *)grid_kernel<T, Op, true, cta::LOAD_LDG>)
                               : (const void *)grid_kernel<T, Op, false, cta::LOAD_LDG>;
      CUPRIM__CUDA_CHECK(cudaLaunchCooperativeKernel(kernel, dim3((unsigned)grid),
                                                     dim3(BLOCK_THREADS), args, 0, stream));
    } else {
      const unsigned gr = (unsigned)grid;
      if (!aligned)
        chunks_kernel<T, Op, false, cta::LOAD_LDG><<<gr, BLOCK_THREADS, 0, stream>>>(a);
      else if (pf)
        chunks_kernel<T, Op, true, cta::LOAD_STREAM_PF><<<gr, BLOCK_THREADS, 0, stream>>>(a);
      else
        chunks_kernel<T, Op, true, cta::LOAD_LDG><<<gr, BLOCK_THREADS, 0, stream>>>(a);
      CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
      CUPRIM__CUDA_CHECK(launch_chained(ctx, 1, BLOCK_THREADS, 0, stream, finish_kernel<T, Op>, a));
    }
    return CUPRIM_SUCCESS;
  });
}

} // namespace
} // namespace cuprim::reduce

extern "C" cuprim_status cuprim__reduce_auto_tuned(const cuprim_ctx *ctx, const void *d_in,
                                                   void *d_out, uint64_t n, cuprim_dtype dtype,
                                                   cuprim_op op, cudaStream_t stream,
                                                   const cuprim__reduce_tuning *tune) {
  return cuprim::dispatch_typed_op<cuprim::REDUCE_SCAN_TYPES, cuprim::acc_op>(
      dtype, op,
      [&](auto m) { return cuprim::reduce::auto_impl(m, ctx, d_in, d_out, n, stream, tune); });
}

extern "C" cuprim_status cuprim__reduce_auto(const cuprim_ctx *ctx, const void *d_in, void *d_out,
                                             uint64_t n, cuprim_dtype dtype, cuprim_op op,
                                             cudaStream_t stream) {
  const cuprim__reduce_tuning tune = cuprim__reduce_tuning_for(ctx->attrs.code_arch);
  return cuprim__reduce_auto_tuned(ctx, d_in, d_out, n, dtype, op, stream, &tune);
}
