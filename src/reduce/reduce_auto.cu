/* CUPRIM_REDUCE_AUTO: the tuned, deterministic reduction.
 *
 * Both kernels compute the canonical tree of reduce_chunk.cuh, so which one runs never changes
 * the bits of the result:
 *  - small inputs (a few chunks): one block of four 256-thread groups reduces four chunks at a
 *    time, keeps the chunk results in shared memory and reduces them: one launch, no temporary
 *    memory, no atomics.
 *  - larger inputs: one block per chunk writes the chunk's result. Chunks are grouped CHUNK at a
 *    time; the last block to finish a group (an atomic ticket per group) reduces that group's
 *    results, and the last group to finish reduces the group results. One launch after a memset
 *    of the tickets; the tail after the last chunk is one chunk-sized reduction read from L2. */
#include "common/check.h"
#include "common/launch.h"
#include "cta/ops.cuh"
#include "reduce_chunk.cuh"
#include "reduce_internal.h"
#include "reduce_tuning.h"

namespace cuprim {
namespace reduce {
namespace {

constexpr int SMALL_GROUPS = 4;            /* chunk-groups in the single-block kernel */
constexpr unsigned SMALL_MAX_CHUNKS = 64;  /* bound on the tuning value: shared-memory slots */

template <class T> __host__ __device__ constexpr uint64_t chunk_elems() {
  return (uint64_t)chunk_geometry<T>::CHUNK;
}

template <class T, class Op>
__global__ void __launch_bounds__(SMALL_GROUPS * 256)
    single_block_kernel(const T *__restrict__ in, uint64_t n, T *__restrict__ out) {
  typedef chunk_geometry<T> G;
  static_assert(G::THREADS == 256, "one group is 256 threads");
  __shared__ T warp_smem[SMALL_GROUPS][G::THREADS / 32];
  __shared__ T parts[SMALL_MAX_CHUNKS];
  const int g = threadIdx.x / G::THREADS, t = threadIdx.x % G::THREADS;
  const uint64_t C = chunk_elems<T>(), P = (n + C - 1) / C;
  if (P == 0) {
    if (threadIdx.x == 0)
      *out = Op::identity();
    return;
  }
  /* Every group calls chunk_reduce the same number of times (an empty chunk where it has none),
   * because chunk_reduce synchronizes the whole block. */
  for (uint64_t r = 0; r < P; r += SMALL_GROUPS) {
    const uint64_t c = r + g;
    const uint64_t m = c < P ? (n - c * C < C ? n - c * C : C) : 0;
    const T v = chunk_reduce<T, Op, cta::LOAD_LDG>(in + (c < P ? c * C : 0), m, t, warp_smem[g]);
    if (t == 0 && c < P)
      parts[c] = v;
  }
  __syncthreads();
  if (P == 1) {
    if (threadIdx.x == 0)
      *out = parts[0];
    return;
  }
  const T v = chunk_reduce<T, Op, cta::LOAD_PLAIN>(parts, g == 0 ? P : 0, t, warp_smem[g]);
  if (threadIdx.x == 0)
    *out = v;
}

/* Reduces src[0..m) (m >= 1, written by other blocks of this launch) level by level inside one
 * block; `scratch` holds 2 * ceil(m / CHUNK) elements. The result goes to thread 0. */
template <class T, class Op>
__device__ T reduce_levels(const T *src, uint64_t m, T *scratch, T *warp_smem) {
  const uint64_t C = chunk_elems<T>();
  T *dst = scratch, *other = scratch + (m + C - 1) / C;
  for (;;) {
    const uint64_t mm = (m + C - 1) / C;
    if (mm == 1)
      return chunk_reduce<T, Op, cta::LOAD_CG>(src, m, threadIdx.x, warp_smem);
    for (uint64_t i = 0; i < mm; ++i) {
      const T v = chunk_reduce<T, Op, cta::LOAD_CG>(src + i * C, m - i * C < C ? m - i * C : C,
                                                    threadIdx.x, warp_smem);
      if (threadIdx.x == 0)
        dst[i] = v;
    }
    __syncthreads();
    src = dst;
    T *tmp = dst;
    dst = other;
    other = tmp;
    m = mm;
  }
}

template <class T> struct multi_block_args {
  const T *in;
  uint64_t n;
  T *out;
  T *partials;        /* P chunk results */
  T *group_partials;  /* P2 group results */
  T *scratch;         /* for more than CHUNK groups (inputs of over CHUNK^3 elements) */
  unsigned *tickets;  /* P2 group tickets, then one for the whole grid; zeroed before launch */
  uint64_t P, P2;
};

template <class T, class Op>
__global__ void __launch_bounds__(256) multi_block_kernel(const multi_block_args<T> a) {
  typedef chunk_geometry<T> G;
  __shared__ T warp_smem[G::THREADS / 32];
  __shared__ int last;
  const uint64_t C = chunk_elems<T>();
  for (uint64_t c = blockIdx.x; c < a.P; c += gridDim.x) {
    const uint64_t m = a.n - c * C < C ? a.n - c * C : C;
    const T v = chunk_reduce<T, Op, cta::LOAD_LDG>(a.in + c * C, m, threadIdx.x, warp_smem);
    const uint64_t g = c / C, group_size = a.P - g * C < C ? a.P - g * C : C;
    if (threadIdx.x == 0) {
      a.partials[c] = v;
      __threadfence(); /* publish the chunk result before taking the ticket */
      last = atomicAdd(&a.tickets[g], 1u) == (unsigned)(group_size - 1);
      __threadfence();
    }
    __syncthreads();
    if (last) { /* this block finished group g last: reduce the group's chunk results */
      const T w = chunk_reduce<T, Op, cta::LOAD_CG>(a.partials + g * C, group_size, threadIdx.x,
                                                    warp_smem);
      if (a.P2 == 1) {
        if (threadIdx.x == 0)
          *a.out = w;
      } else {
        if (threadIdx.x == 0) {
          a.group_partials[g] = w;
          __threadfence();
          last = atomicAdd(&a.tickets[a.P2], 1u) == (unsigned)(a.P2 - 1);
          __threadfence();
        }
        __syncthreads();
        if (last) {
          const T f = reduce_levels<T, Op>(a.group_partials, a.P2, a.scratch, warp_smem);
          if (threadIdx.x == 0)
            *a.out = f;
        }
      }
    }
    __syncthreads(); /* `last` is rewritten by the next chunk */
  }
}

inline size_t round16(size_t b) { return (b + 15) / 16 * 16; }

template <class T, class Op>
cuprim_status auto_impl(const cuprim_ctx *ctx, const void *d_in, void *d_out, uint64_t n,
                        cudaStream_t stream, unsigned single_block_max_chunks) {
  const T *in = static_cast<const T *>(d_in);
  T *out = static_cast<T *>(d_out);
  const uint64_t C = chunk_elems<T>(), P = (n + C - 1) / C;
  cuprim_status st = CUPRIM_SUCCESS;

  if (P <= single_block_max_chunks && P <= SMALL_MAX_CHUNKS) {
    single_block_kernel<T, Op><<<1, SMALL_GROUPS * 256, 0, stream>>>(in, n, out);
    CUPRIM__LAUNCH_GOTO(st, done);
    return CUPRIM_SUCCESS;
  }

  {
    const uint64_t P2 = (P + C - 1) / C;
    const uint64_t scratch_elems = P2 > 1 ? 2 * ((P2 + C - 1) / C) : 0;
    const size_t tickets_bytes = round16((size_t)(P2 + 1) * sizeof(unsigned));
    const size_t partials_bytes = round16((size_t)P * sizeof(T));
    const size_t groups_bytes = round16((size_t)P2 * sizeof(T));
    const size_t bytes =
        tickets_bytes + partials_bytes + groups_bytes + (size_t)scratch_elems * sizeof(T);
    void *temp = NULL;
    CUPRIM__FORWARD(cuprim__temp_alloc(ctx, bytes, stream, &temp));
    char *base = static_cast<char *>(temp);
    multi_block_args<T> a;
    a.in = in;
    a.n = n;
    a.out = out;
    a.tickets = reinterpret_cast<unsigned *>(base);
    a.partials = reinterpret_cast<T *>(base + tickets_bytes);
    a.group_partials = reinterpret_cast<T *>(base + tickets_bytes + partials_bytes);
    a.scratch = reinterpret_cast<T *>(base + tickets_bytes + partials_bytes + groups_bytes);
    a.P = P;
    a.P2 = P2;
    /* One block per chunk while the grid allows it; past that, blocks loop over chunks. */
    const uint64_t grid = P <= (uint64_t)ctx->attrs.max_grid_x ? P : (uint64_t)ctx->attrs.max_grid_x;
    CUPRIM__CUDA_GOTO(cudaMemsetAsync(a.tickets, 0, (size_t)(P2 + 1) * sizeof(unsigned), stream),
                      st, release);
    multi_block_kernel<T, Op><<<(unsigned)grid, chunk_geometry<T>::THREADS, 0, stream>>>(a);
    CUPRIM__LAUNCH_GOTO(st, release);
  release:
    cuprim__temp_free(ctx, temp, bytes, stream);
  }
done:
  return st;
}

template <class T>
cuprim_status auto_for_type(const cuprim_ctx *ctx, const void *d_in, void *d_out, uint64_t n,
                            cuprim_op op, cudaStream_t stream, unsigned single_max) {
  CUPRIM__DISPATCH_OP(T, auto_impl, op, ctx, d_in, d_out, n, stream, single_max)
}

} // namespace
} // namespace reduce
} // namespace cuprim

extern "C" cuprim_status cuprim__reduce_auto_tuned(const cuprim_ctx *ctx, const void *d_in,
                                                   void *d_out, uint64_t n, cuprim_dtype dtype,
                                                   cuprim_op op, cudaStream_t stream,
                                                   unsigned single_block_max_chunks) {
  using cuprim::reduce::auto_for_type;
  CUPRIM__DISPATCH_TYPE(dtype, auto_for_type, ctx, d_in, d_out, n, op, stream,
                        single_block_max_chunks)
}

extern "C" cuprim_status cuprim__reduce_auto(const cuprim_ctx *ctx, const void *d_in, void *d_out,
                                             uint64_t n, cuprim_dtype dtype, cuprim_op op,
                                             cudaStream_t stream) {
  const cuprim__reduce_tuning tune =
      cuprim__reduce_tuning_for(ctx->attrs.cc_major, ctx->attrs.cc_minor);
  return cuprim__reduce_auto_tuned(ctx, d_in, d_out, n, dtype, op, stream,
                                   tune.single_block_max_chunks);
}
