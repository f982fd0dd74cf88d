/* cuprim_reduce_arg: the index (and value) of the smallest or largest element, in one pass.
 *
 * Every element is mapped to an unsigned key such that the element wanted has the smallest key:
 * its bits made order-preserving (the sign bit flipped for signed integers; for floats, negative
 * values' bits inverted and positive values' sign bit set), complemented for ARGMAX, with every
 * NaN mapped to key 0 (for both ops: a NaN wins) and -0.0 to +0.0 first (they tie). The answer is
 * the pair (key, index) that is smallest in lexicographic order: a total order on distinct pairs,
 * so the minimum is one pair whatever the order of the comparisons. That is what makes the result
 * deterministic by construction, without a fixed tree: no race can decide a tie.
 *
 * Two launches, or one for small inputs:
 *  - arg_kernel: a grid sized to the GPU walks the input with 16-byte vector loads
 *    (cta::for_each_vec16: any element-aligned pointer, 64-bit indices; a thread's next tile is
 *    loaded before it compares the current one). A thread visits its
 *    elements in increasing index order, so it keeps its best with a plain `key < best` (the
 *    first of equal keys stays); a vector's best is found first, then compared once. The block
 *    combines its threads' pairs (full lexicographic compare, shuffles, then shared memory), and
 *    writes one pair per block.
 *  - finish_kernel, one block, chained by programmatic dependent launch where the device's code
 *    has it (launch_config.cuh's pdl_config): combines the blocks' pairs and writes *d_index and,
 *    from d_in[index] (so bit for bit), *d_value.
 *  Where the tuning says so (reduce_tuning.h, arg_grid_sync_min_bytes), the grid is launched
 *  cooperatively instead and its block 0 does finish_kernel's work after a grid barrier: one
 *  launch, which is what a device without programmatic dependent launch gains most from.
 *  Inputs of at most arg_single_block_max_bytes (reduce_tuning.h) are done by one block of 1024
 *  threads, which writes the outputs itself. n == 0 takes that path too: no element, so the
 *  sentinel pair (all-ones key, UINT64_MAX) is left, which writes UINT64_MAX and the identity. */
#include <cooperative_groups.h>
#include <type_traits>

#include "common/check.h"
#include "common/dispatch.cuh"
#include "common/launch.h"
#include "common/launch_config.cuh"
#include "common/temp_memory.cuh"
#include "cta/arch.cuh"
#include "cta/for_each.cuh"
#include "cta/ops.cuh"
#include "cta/warp_reduce.cuh"
#include "reduce_chunk.cuh"
#include "reduce_internal.h"
#include "reduce_tuning.h"

namespace cuprim::reduce {
namespace {

constexpr int GRID_THREADS = 256;     /* blocks of the grid path, ... */
constexpr int GRID_BLOCKS_PER_SM = 4; /* ... four a SM: 64 KB of loads in flight per SM, as AUTO */
constexpr int SINGLE_THREADS = 1024;  /* the one block of small inputs */
constexpr int VPT = 4;                /* 16-byte vectors in flight per thread */
constexpr uint64_t NONE = ~(uint64_t)0;

/* Bits of an element type, and its key type (32-bit keys for up to 4-byte elements). */
template <size_t SIZE> struct uint_of;
template <> struct uint_of<1> { typedef uint8_t type; };
template <> struct uint_of<2> { typedef uint16_t type; };
template <> struct uint_of<4> { typedef uint32_t type; };
template <> struct uint_of<8> { typedef uint64_t type; };

/* The bits of +infinity of each float type: larger magnitudes are NaN. */
template <class T> struct inf_bits;
template <> struct inf_bits<__half> { static constexpr uint16_t value = 0x7c00u; };
template <> struct inf_bits<__nv_bfloat16> { static constexpr uint16_t value = 0x7f80u; };
template <> struct inf_bits<float> { static constexpr uint32_t value = 0x7f800000u; };
template <> struct inf_bits<double> { static constexpr uint64_t value = 0x7ff0000000000000ull; };

template <class T, cuprim_arg_op OP> struct arg_key {
  typedef typename uint_of<sizeof(T)>::type U;
  typedef typename std::conditional<sizeof(T) == 8, uint64_t, uint32_t>::type K;
  static constexpr bool is_float = dtype_traits<T>::is_float;
  static constexpr U sign = (U)((U)1 << (8 * sizeof(T) - 1));
  static constexpr K none = ~(K)0; /* the sentinel's key */
  /* Keys of floats never reach `none` (its bits would be a NaN, whose key is 0), nor do those of
   * 8- and 16-bit integers (their keys have 16 bits at most); those of 32- and 64-bit integers
   * do (the largest value for ARGMIN), and then a thread must also take such a key when it holds
   * nothing yet. */
  static constexpr bool reaches_none = !is_float && sizeof(T) >= 4;

  static __device__ __forceinline__ K of(T x) {
    U b;
    memcpy(&b, &x, sizeof b);
    if constexpr (is_float) {
      const U mag = (U)(b & (U)~sign);
      const bool nan = mag > inf_bits<T>::value;
      if (mag == 0)
        b = 0; /* -0.0 ties with +0.0 */
      U ord = (b & sign) ? (U)~b : (U)(b | sign);
      if constexpr (OP == CUPRIM_ARGMAX)
        ord = (U)~ord;
      return nan ? (K)0 : (K)ord;
    } else {
      U ord = std::is_signed<T>::value ? (U)(b ^ sign) : b;
      if constexpr (OP == CUPRIM_ARGMAX)
        ord = (U)~ord;
      return (K)ord;
    }
  }

  /* Whether a is the better of a and b (a's key is smaller), compared as floats: smaller
   * (ARGMIN) or larger (ARGMAX), or a NaN where b is not. -0.0 == +0.0 and two NaNs are equal,
   * as their keys are. For 4- and 8-byte floats, where the compare is one instruction. */
  static __device__ __forceinline__ bool better(T a, T b) {
    return (OP == CUPRIM_ARGMIN ? a < b : a > b) || (a != a && b == b);
  }

  /* The identity of MIN (ARGMIN) or MAX (ARGMAX), written as the value when n == 0: the element
   * whose key is the largest that is not a NaN's (+inf for ARGMIN on floats, the largest integer,
   * ...), which is the key order turned around. */
  static __device__ __forceinline__ T identity() {
    U b;
    if constexpr (is_float)
      b = OP == CUPRIM_ARGMIN ? inf_bits<T>::value : (U)(inf_bits<T>::value | sign);
    else if constexpr (std::is_signed<T>::value)
      b = OP == CUPRIM_ARGMIN ? (U)(sign - 1) : sign;
    else
      b = OP == CUPRIM_ARGMIN ? (U) ~(U)0 : (U)0;
    T x;
    memcpy(&x, &b, sizeof x);
    return x;
  }
};

/* A thread's (or block's) best pair so far; the sentinel (none, NONE) loses to every element. */
template <class T, cuprim_arg_op OP> struct arg_best {
  typedef arg_key<T, OP> Key;
  typedef typename Key::K K;
  static constexpr int VEC = 16 / (int)sizeof(T);
  K key = Key::none;
  uint64_t index = NONE;

  /* For elements met in increasing index order: a strictly smaller key wins. */
  __device__ __forceinline__ void take(K k, uint64_t i) {
    if (k < key || (Key::reaches_none && k == key && index == NONE)) {
      key = k;
      index = i;
    }
  }
  /* For pairs met in any order: the lexicographic minimum. */
  __device__ __forceinline__ void merge(K k, uint64_t i) {
    if (k < key || (k == key && i < index)) {
      key = k;
      index = i;
    }
  }
  __device__ __forceinline__ void one(T x, uint64_t i) { take(Key::of(x), i); }
  /* A vector's first smallest key, then one comparison with the running best. 4- and 8-byte
   * floats compare as floats and only the vector's best becomes a key (Key::better picks the
   * element the keys would): the grid kernel's registers 61-62 -> 48 (f32) and 48-56 -> 38-40
   * (f64), 0.25-0.54 us faster from 2^20 to 2^23 on the H100 (docs/benchmarks.md, "0.2's ninth
   * runs"). */
  __device__ __forceinline__ void vec(const T (&x)[VEC], uint64_t i0) {
    int jv = 0;
    if constexpr (Key::is_float && sizeof(T) >= 4) {
      T v = x[0];
#pragma unroll
      for (int j = 1; j < VEC; ++j)
        if (Key::better(x[j], v)) {
          v = x[j];
          jv = j;
        }
      take(Key::of(v), i0 + (uint64_t)jv);
    } else {
      K kv = Key::of(x[0]);
#pragma unroll
      for (int j = 1; j < VEC; ++j) {
        const K k = Key::of(x[j]);
        if (k < kv) {
          kv = k;
          jv = j;
        }
      }
      take(kv, i0 + (uint64_t)jv);
    }
  }
  /* The lexicographic minimum over the block's THREADS threads, in thread 0. Every thread must
   * call it. */
  template <int THREADS> __device__ __forceinline__ void block_merge() {
    constexpr int WARPS = THREADS / 32;
    __shared__ K s_key[WARPS];
    __shared__ uint64_t s_index[WARPS];
    warp_merge();
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) {
      s_key[warp] = key;
      s_index[warp] = index;
    }
    __syncthreads();
    if (warp == 0) {
      key = lane < WARPS ? s_key[lane] : Key::none;
      index = lane < WARPS ? s_index[lane] : NONE;
      warp_merge();
    }
  }
  __device__ __forceinline__ void warp_merge() {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
      const K k = __shfl_down_sync(cta::full_mask, key, offset);
      const uint64_t i = __shfl_down_sync(cta::full_mask, index, offset);
      merge(k, i);
    }
  }
};

template <class T> struct arg_args {
  const T *in;
  uint64_t n;
  T *value;          /* may be NULL */
  uint64_t *index;   /* the output */
  void *keys;        /* grid path: one key per block (K) */
  uint64_t *indices; /* grid path: one index per block */
  int grid_sync;     /* grid path, launched cooperatively: block 0 finishes */
};

/* Writes the outputs from the final pair. */
template <class T, cuprim_arg_op OP>
__device__ __forceinline__ void write_result(const arg_args<T> &a, uint64_t index) {
  *a.index = index;
  if (a.value)
    *a.value = index == NONE ? arg_key<T, OP>::identity() : a.in[index];
}

/* One block of GRID_THREADS threads, once every block's pair is written: the lexicographic
 * minimum of the `blocks` pairs, then the outputs. */
template <class T, cuprim_arg_op OP>
__device__ __forceinline__ void finish_block(const arg_args<T> &a, unsigned blocks) {
  typedef arg_best<T, OP> Best;
  Best b;
  const typename Best::K *keys = static_cast<const typename Best::K *>(a.keys);
  for (unsigned i = threadIdx.x; i < blocks; i += GRID_THREADS)
    b.merge(__ldcg(keys + i), __ldcg(a.indices + i));
  b.template block_merge<GRID_THREADS>();
  if (threadIdx.x == 0)
    write_result<T, OP>(a, b.index);
}

/* Each block walks its share of the input; a grid of one block writes the outputs, a larger one
 * one pair per block, for finish_kernel or (a.grid_sync: launched cooperatively) for its own
 * block 0 after the grid barrier. */
template <class T, cuprim_arg_op OP, int THREADS, cta::load_mode M = cta::LOAD_STREAM_PF>
__global__ void __launch_bounds__(THREADS, THREADS == GRID_THREADS ? GRID_BLOCKS_PER_SM : 1)
    arg_kernel(const arg_args<T> a) {
  cta::pdl_launch_dependents(); /* finish_kernel may launch now; it waits in pdl_wait */
  typedef arg_best<T, OP> Best;
  Best b;
  /* The grid's blocks load their next tile before they compare the current one (two tiles of
   * loads in flight a thread where it has two or more); the one block of small inputs has one
   * tile at most. Measured on the H200 (cuprim-bench's arg sweep, f32, two runs a side, 0.2's
   * twenty-ninth run): 2^22 12.05 -> 11.58 us (CUB 11.6), every other size from 2^10 to 2^28
   * within 2.3% (2^20 7.81 -> 7.98, 2^28 244.6 -> 243.7); f32 keeps its 48 registers. Eight
   * vectors a thread instead of four (VPT 8, not kept): 2^22 11.95 -> 11.60, but 2^14 6.29 ->
   * 7.04 (the one block's threads then hold half a tile each) and 2^24 23.1 -> 24.2. */
  cta::for_each_vec16<T, VPT, M, THREADS == GRID_THREADS>(a.in, a.n, b);
  b.template block_merge<THREADS>();
  if (gridDim.x == 1) {
    if (threadIdx.x == 0)
      write_result<T, OP>(a, b.index);
    return;
  }
  if (threadIdx.x == 0) {
    static_cast<typename Best::K *>(a.keys)[blockIdx.x] = b.key;
    a.indices[blockIdx.x] = b.index;
  }
  if constexpr (THREADS == GRID_THREADS) {
    if (!a.grid_sync)
      return;
    /* The barrier also ends warp 0's reads of block_merge's shared arrays, which finish_block
     * reuses. */
    cooperative_groups::this_grid().sync();
    if (blockIdx.x == 0)
      finish_block<T, OP>(a, gridDim.x);
  }
}

template <class T, cuprim_arg_op OP>
__global__ void __launch_bounds__(GRID_THREADS)
    finish_kernel(const arg_args<T> a, unsigned blocks) {
  cta::pdl_wait(); /* arg_kernel's pairs are complete */
  finish_block<T, OP>(a, blocks);
}

template <class T, cuprim_arg_op OP>
cuprim_status arg_impl(const cuprim_ctx *ctx, const void *d_in, void *d_value, uint64_t *d_index,
                       uint64_t n, cudaStream_t stream, const cuprim__reduce_tuning *tune) {
  typedef typename arg_best<T, OP>::K K;
  arg_args<T> a;
  a.in = static_cast<const T *>(d_in);
  a.n = n;
  a.value = static_cast<T *>(d_value);
  a.index = d_index;
  a.keys = NULL;
  a.indices = NULL;
  a.grid_sync = 0;
  if ((uint64_t)n * sizeof(T) <= tune->arg_single_block_max_bytes) {
    arg_kernel<T, OP, SINGLE_THREADS><<<1, SINGLE_THREADS, 0, stream>>>(a);
    CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
    return CUPRIM_SUCCESS;
  }
  /* A block per tile of VPT vectors a thread, at most GRID_BLOCKS_PER_SM per SM (the kernel's
   * launch bounds make them fit): one wave. */
  const uint64_t tile_elems = (uint64_t)GRID_THREADS * VPT * (16 / sizeof(T));
  const uint64_t tiles = (n + tile_elems - 1) / tile_elems;
  unsigned per_sm = GRID_BLOCKS_PER_SM;
  /* The streaming loads' L2::256B hint up to the reduce's limit (reduce_tuning.h,
   * l2_prefetch_max_chunks, in its chunks), plain read-only loads past it. Predicted from the
   * reduce's grid on the H200 (268.0 us with the hint, 240.3 without, at 2^28 f32): arg-min f32
   * at 2^28, 268.6 us in the 80-virtual build (CUB 246.8), to about 241-247. Measured there
   * (2026-11-28 19:51 UTC, ABBA): 268.06 -> 245.98 us at 2^28, 71.81 -> 67.55 at 2^26. */
  typedef chunk_geometry<T> CG;
  const bool pf = (n + CG::CHUNK - 1) / CG::CHUNK <= tune->l2_prefetch_max_chunks;
  auto *grid_kernel = pf ? arg_kernel<T, OP, GRID_THREADS, cta::LOAD_STREAM_PF>
                         : arg_kernel<T, OP, GRID_THREADS, cta::LOAD_LDG>;
  if ((uint64_t)n * sizeof(T) >= tune->arg_grid_sync_min_bytes) {
    /* Every block of a cooperative grid must be resident at once: as many per SM as fit. */
    unsigned fit = 0;
    CUPRIM__FORWARD(
        cuprim__occupancy(ctx, reinterpret_cast<const void *>(grid_kernel), GRID_THREADS, 0, &fit));
    if (fit > 0) {
      a.grid_sync = 1;
      per_sm = fit < per_sm ? fit : per_sm;
    }
  }
  const unsigned blocks = (unsigned)cuprim__grid_persistent(ctx, tiles, GRID_THREADS, per_sm);
  if (blocks == 1) { /* a grid of one block writes the outputs itself */
    grid_kernel<<<1, GRID_THREADS, 0, stream>>>(a);
    CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
    return CUPRIM_SUCCESS;
  }
  const size_t keys_bytes = round16((size_t)blocks * sizeof(K));
  const size_t bytes = keys_bytes + (size_t)blocks * sizeof(uint64_t);
  return with_temp(ctx, bytes, stream, [&](void *temp) {
    a.keys = temp;
    a.indices = reinterpret_cast<uint64_t *>(static_cast<char *>(temp) + keys_bytes);
    if (a.grid_sync) {
      void *args[] = {&a};
      CUPRIM__CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(grid_kernel),
                                                     dim3(blocks), dim3(GRID_THREADS), args, 0,
                                                     stream));
      return CUPRIM_SUCCESS;
    }
    grid_kernel<<<blocks, GRID_THREADS, 0, stream>>>(a);
    CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
    /* chained by programmatic dependent launch where the device's code has it */
    return cuprim__cuda_status(
        launch_chained(ctx, 1, GRID_THREADS, 0, stream, finish_kernel<T, OP>, a, blocks));
  });
}

} // namespace
} // namespace cuprim::reduce

extern "C" cuprim_status cuprim__reduce_arg_tuned(const cuprim_ctx *ctx, const void *d_in,
                                                  void *d_value, uint64_t *d_index, uint64_t n,
                                                  cuprim_dtype dtype, cuprim_arg_op op,
                                                  cudaStream_t stream,
                                                  const cuprim__reduce_tuning *tune) {
  return cuprim::dispatch_dtype<cuprim::ALL_TYPES>(dtype, [&](auto t) {
    using T = typename decltype(t)::type;
    if (op == CUPRIM_ARGMIN)
      return cuprim::reduce::arg_impl<T, CUPRIM_ARGMIN>(ctx, d_in, d_value, d_index, n, stream,
                                                        tune);
    return cuprim::reduce::arg_impl<T, CUPRIM_ARGMAX>(ctx, d_in, d_value, d_index, n, stream, tune);
  });
}

extern "C" cuprim_status cuprim__reduce_arg(const cuprim_ctx *ctx, const void *d_in, void *d_value,
                                            uint64_t *d_index, uint64_t n, cuprim_dtype dtype,
                                            cuprim_arg_op op, cudaStream_t stream) {
  const cuprim__reduce_tuning tune = cuprim__reduce_tuning_for(ctx->attrs.code_arch);
  return cuprim__reduce_arg_tuned(ctx, d_in, d_value, d_index, n, dtype, op, stream, &tune);
}
