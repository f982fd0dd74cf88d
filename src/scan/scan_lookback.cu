/* CUPRIM_SCAN_AUTO and CUPRIM_SCAN_DECOUPLED_LOOKBACK: single-pass scan (Merrill and Garland,
 * "Single-pass Parallel Prefix Scan with Decoupled Look-back", 2016).
 *
 * Each block takes the next tile index from an atomic counter (so a tile's predecessors are
 * always tiles that some running or finished block owns: no reliance on launch order, and no
 * deadlock), loads its tile (16 items per thread for 4-byte types: four 16-byte vectors), scans
 * it, publishes the tile's aggregate (status A), looks back over its predecessors' published
 * values until it meets an inclusive prefix (status P), publishes its own inclusive prefix, and
 * writes its tile. The data is read once and written once. Status and value share one 64-bit
 * word for 4-byte types (one store publishes both); 8-byte types keep the value in separate
 * arrays, written before the status with a fence between.
 *
 * Tile status and the tile counter are zeroed by one cudaMemsetAsync before the launch. Small
 * inputs skip all of it: one block scans them with a running carry (no temporary memory). */
#include "common/check.h"
#include "common/launch.h"
#include "cta/load.cuh"
#include "cta/ops.cuh"
#include "cta/warp_scan.cuh"
#include "scan_internal.h"

namespace cuprim {
namespace scan {
namespace {

enum : unsigned { STATUS_X = 0, STATUS_A = 1, STATUS_P = 2 };

template <class T> struct tile_geometry {
  static constexpr int THREADS = 256;
  static constexpr int VEC = 16 / (int)sizeof(T);
  static constexpr int ITEMS = 4 * VEC; /* per thread, contiguous (blocked) */
  static constexpr int TILE = THREADS * ITEMS;
};

/* ---------------------------------------------------------------- tile status */

/* 4-byte values: status in the high word, value bits in the low word of one 64-bit word. */
template <class T, bool PACKED = (sizeof(T) == 4)> struct tile_status {
  unsigned long long *words;
  __device__ __forceinline__ void publish(uint64_t tile, unsigned status, T value) const {
    unsigned bits;
    memcpy(&bits, &value, 4);
    const unsigned long long w = ((unsigned long long)status << 32) | bits;
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(words + tile), "l"(w) : "memory");
  }
  __device__ __forceinline__ unsigned read(uint64_t tile, T &value) const {
    unsigned long long w;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(words + tile) : "memory");
    const unsigned bits = (unsigned)w;
    memcpy(&value, &bits, 4);
    return (unsigned)(w >> 32);
  }
};

/* 8-byte values: a status word and two value arrays (aggregate, inclusive prefix). The value is
 * stored, then a fence, then the status (release); a reader that sees the status fences before
 * it reads the value (acquire). */
template <class T> struct tile_status<T, false> {
  unsigned *status;
  T *aggregate, *inclusive;
  __device__ __forceinline__ void publish(uint64_t tile, unsigned s, T value) const {
    if (s == STATUS_P)
      __stcg(inclusive + tile, value);
    else
      __stcg(aggregate + tile, value);
    __threadfence();
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(status + tile), "r"(s) : "memory");
  }
  __device__ __forceinline__ unsigned read(uint64_t tile, T &value) const {
    unsigned s;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(s) : "l"(status + tile) : "memory");
    if (s != STATUS_X) {
      __threadfence();
      value = __ldcg(s == STATUS_P ? inclusive + tile : aggregate + tile);
    }
    return s;
  }
};

/* Warp 0 of the tile's block: the exclusive prefix of `tile` (> 0), combining predecessors'
 * published values 32 at a time (lane k looks at tile - 1 - k) until one has status P. */
template <class T, class Op>
__device__ T look_back(const tile_status<T> &ts, uint64_t tile, int lane) {
  const Op op;
  T prefix = Op::identity();
  int64_t window = (int64_t)tile - 1;
  for (;;) {
    const int64_t pred = window - lane;
    T v = Op::identity();
    unsigned s = STATUS_P; /* before tile 0: nothing to add */
    if (pred >= 0) {
      do {
        s = ts.read((uint64_t)pred, v);
      } while (s == STATUS_X);
    }
    const unsigned pmask = __ballot_sync(cta::full_mask, s == STATUS_P);
    /* Lanes up to the nearest P (lowest lane with P) contribute; with no P, all 32 do. */
    const int last = pmask ? __ffs(pmask) - 1 : 31;
    T c = lane <= last ? v : Op::identity();
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) /* butterfly: every lane gets the total */
      c = op(__shfl_xor_sync(cta::full_mask, c, offset), c);
    prefix = op(c, prefix); /* farther tiles come first */
    if (pmask)
      return prefix;
    window -= 32;
  }
}

/* ---------------------------------------------------------------- loads and stores */

/* Thread t of the tile owns elements t*ITEMS .. t*ITEMS + ITEMS - 1 (blocked). */
template <class T, class Op>
__device__ __forceinline__ void load_items(const T *base, uint64_t m, int t,
                                           T (&x)[tile_geometry<T>::ITEMS]) {
  typedef tile_geometry<T> G;
  const T *p = base + (uint64_t)t * G::ITEMS;
  if (m == (uint64_t)G::TILE && cta::aligned16(base)) {
#pragma unroll
    for (int k = 0; k < G::ITEMS / G::VEC; ++k) {
      T v[G::VEC];
      cta::load_vec16<cta::LOAD_PLAIN>(p + k * G::VEC, v);
#pragma unroll
      for (int j = 0; j < G::VEC; ++j)
        x[k * G::VEC + j] = v[j];
    }
  } else {
#pragma unroll
    for (int i = 0; i < G::ITEMS; ++i)
      x[i] = (uint64_t)t * G::ITEMS + i < m ? p[i] : Op::identity();
  }
}

template <class T>
__device__ __forceinline__ void store_items(T *base, uint64_t m, int t,
                                            const T (&y)[tile_geometry<T>::ITEMS]) {
  typedef tile_geometry<T> G;
  T *p = base + (uint64_t)t * G::ITEMS;
  if (m == (uint64_t)G::TILE && cta::aligned16(base)) {
#pragma unroll
    for (int k = 0; k < G::ITEMS / G::VEC; ++k) {
      uint4 raw;
      memcpy(&raw, &y[k * G::VEC], 16);
      *reinterpret_cast<uint4 *>(p + k * G::VEC) = raw;
    }
  } else {
#pragma unroll
    for (int i = 0; i < G::ITEMS; ++i)
      if ((uint64_t)t * G::ITEMS + i < m)
        p[i] = y[i];
  }
}

/* The thread's items scanned in registers; returns the thread's total. */
template <class T, class Op>
__device__ __forceinline__ T thread_scan(T (&x)[tile_geometry<T>::ITEMS]) {
  const Op op;
#pragma unroll
  for (int i = 1; i < tile_geometry<T>::ITEMS; ++i)
    x[i] = op(x[i - 1], x[i]);
  return x[tile_geometry<T>::ITEMS - 1];
}

/* Output of the thread's items, given its exclusive prefix `p` and its inclusive scan `x`. */
template <class T, class Op>
__device__ __forceinline__ void finish_items(T (&x)[tile_geometry<T>::ITEMS], T p,
                                             cuprim_scan_kind kind) {
  const Op op;
  constexpr int I = tile_geometry<T>::ITEMS;
  if (kind == CUPRIM_INCLUSIVE) {
#pragma unroll
    for (int i = 0; i < I; ++i)
      x[i] = op(p, x[i]);
  } else {
#pragma unroll
    for (int i = I - 1; i > 0; --i)
      x[i] = op(p, x[i - 1]);
    x[0] = p;
  }
}

/* ---------------------------------------------------------------- kernels */

template <class T> struct lookback_args {
  const T *in;
  T *out;
  uint64_t n, tiles;
  tile_status<T> ts;
  unsigned *tile_counter;
  cuprim_scan_kind kind;
};

template <class T, class Op>
__global__ void __launch_bounds__(256) lookback_kernel(const lookback_args<T> a) {
  typedef tile_geometry<T> G;
  const Op op;
  __shared__ T warp_smem[G::THREADS / 32 + 1];
  __shared__ unsigned s_tile;
  __shared__ T s_prefix;
  const int t = threadIdx.x;
  if (t == 0)
    s_tile = atomicAdd(a.tile_counter, 1u);
  __syncthreads();
  const uint64_t tile = s_tile;
  const uint64_t base = tile * G::TILE;
  const uint64_t m = a.n - base < (uint64_t)G::TILE ? a.n - base : G::TILE;

  T x[G::ITEMS];
  load_items<T, Op>(a.in + base, m, t, x);
  const T total = thread_scan<T, Op>(x);
  T aggregate;
  const T texcl = cta::block_exclusive_scan<G::THREADS>(total, op, warp_smem, t,
                                                        cta::block_barrier(), aggregate);
  T prefix = Op::identity();
  if (tile == 0) {
    if (t == 0)
      a.ts.publish(0, STATUS_P, aggregate);
  } else {
    if (t == 0)
      a.ts.publish(tile, STATUS_A, aggregate);
    if (t < 32) {
      const T p = look_back<T, Op>(a.ts, tile, t);
      if (t == 0) {
        a.ts.publish(tile, STATUS_P, op(p, aggregate));
        s_prefix = p;
      }
    }
    __syncthreads();
    prefix = s_prefix;
  }
  finish_items<T, Op>(x, op(prefix, texcl), a.kind);
  store_items<T>(a.out + base, m, t, x);
}

/* Small inputs: one block of 1024 threads scans 4 tiles' worth per step, carrying the running
 * total from step to step. */
template <class T, class Op>
__global__ void __launch_bounds__(1024)
    single_block_kernel(const T *in, T *out, uint64_t n, cuprim_scan_kind kind) {
  typedef tile_geometry<T> G;
  const Op op;
  constexpr int THREADS = 1024;
  constexpr uint64_t STEP = (uint64_t)THREADS * G::ITEMS;
  __shared__ T warp_smem[THREADS / 32 + 1];
  const int t = threadIdx.x;
  T carry = Op::identity();
  for (uint64_t base = 0; base < n; base += STEP) {
    const uint64_t m = n - base < STEP ? n - base : STEP;
    T x[G::ITEMS];
    const T *p = in + base + (uint64_t)t * G::ITEMS;
    const bool full = m == STEP && cta::aligned16(in + base) && cta::aligned16(out + base);
    if (full) {
#pragma unroll
      for (int k = 0; k < G::ITEMS / G::VEC; ++k) {
        T v[G::VEC];
        cta::load_vec16<cta::LOAD_PLAIN>(p + k * G::VEC, v);
#pragma unroll
        for (int j = 0; j < G::VEC; ++j)
          x[k * G::VEC + j] = v[j];
      }
    } else {
#pragma unroll
      for (int i = 0; i < G::ITEMS; ++i)
        x[i] = (uint64_t)t * G::ITEMS + i < m ? p[i] : Op::identity();
    }
    const T total = thread_scan<T, Op>(x);
    T aggregate;
    const T texcl = cta::block_exclusive_scan<THREADS>(total, op, warp_smem, t,
                                                       cta::block_barrier(), aggregate);
    finish_items<T, Op>(x, op(carry, texcl), kind);
    carry = op(carry, aggregate);
    T *q = out + base + (uint64_t)t * G::ITEMS;
    if (full) {
#pragma unroll
      for (int k = 0; k < G::ITEMS / G::VEC; ++k) {
        uint4 raw;
        memcpy(&raw, &x[k * G::VEC], 16);
        *reinterpret_cast<uint4 *>(q + k * G::VEC) = raw;
      }
    } else {
#pragma unroll
      for (int i = 0; i < G::ITEMS; ++i)
        if ((uint64_t)t * G::ITEMS + i < m)
          q[i] = x[i];
    }
  }
}

inline size_t round16(size_t b) { return (b + 15) / 16 * 16; }

template <class T, class Op>
cuprim_status lookback_impl(const cuprim_ctx *ctx, const void *d_in, void *d_out, uint64_t n,
                            cuprim_scan_kind kind, cudaStream_t stream,
                            const cuprim__scan_tuning *tune) {
  typedef tile_geometry<T> G;
  const T *in = static_cast<const T *>(d_in);
  T *out = static_cast<T *>(d_out);
  const uint64_t tiles = (n + G::TILE - 1) / G::TILE;
  if (tiles <= tune->single_block_max_tiles) {
    single_block_kernel<T, Op><<<1, 1024, 0, stream>>>(in, out, n, kind);
    CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
    return CUPRIM_SUCCESS;
  }
  if (tiles > (uint64_t)ctx->attrs.max_grid_x || tiles >= UINT32_MAX)
    return CUPRIM_ERROR_UNSUPPORTED; /* past 2^31 tiles: beyond any current GPU's memory */

  /* [tile counter | status words | (8-byte types) aggregates | inclusive prefixes]; the counter
   * and status words are zeroed, the value arrays need no initialisation. */
  const bool packed = sizeof(T) == 4;
  const size_t counter_bytes = 16;
  const size_t status_bytes = round16((size_t)tiles * (packed ? 8 : 4));
  const size_t values_bytes = packed ? 0 : 2 * round16((size_t)tiles * sizeof(T));
  const size_t bytes = counter_bytes + status_bytes + values_bytes;
  void *temp = NULL;
  CUPRIM__FORWARD(cuprim__temp_alloc(ctx, bytes, stream, &temp));
  char *b = static_cast<char *>(temp);
  lookback_args<T> a;
  a.in = in;
  a.out = out;
  a.n = n;
  a.tiles = tiles;
  a.tile_counter = reinterpret_cast<unsigned *>(b);
  if constexpr (sizeof(T) == 4) {
    a.ts.words = reinterpret_cast<unsigned long long *>(b + counter_bytes);
  } else {
    a.ts.status = reinterpret_cast<unsigned *>(b + counter_bytes);
    a.ts.aggregate = reinterpret_cast<T *>(b + counter_bytes + status_bytes);
    a.ts.inclusive = reinterpret_cast<T *>(b + counter_bytes + status_bytes + values_bytes / 2);
  }
  a.kind = kind;
  cuprim_status st = CUPRIM_SUCCESS;
  CUPRIM__CUDA_GOTO(cudaMemsetAsync(temp, 0, counter_bytes + status_bytes, stream), st, release);
  lookback_kernel<T, Op><<<(unsigned)tiles, G::THREADS, 0, stream>>>(a);
  CUPRIM__LAUNCH_GOTO(st, release);
release:
  cuprim__temp_free(ctx, temp, bytes, stream);
  return st;
}

template <class T>
cuprim_status lookback_for_type(const cuprim_ctx *ctx, const void *d_in, void *d_out, uint64_t n,
                                cuprim_op op, cuprim_scan_kind kind, cudaStream_t stream,
                                const cuprim__scan_tuning *tune) {
  CUPRIM__DISPATCH_OP(T, lookback_impl, op, ctx, d_in, d_out, n, kind, stream, tune)
}

} // namespace
} // namespace scan
} // namespace cuprim

extern "C" cuprim_status cuprim__scan_lookback(const cuprim_ctx *ctx, const void *d_in, void *d_out,
                                               uint64_t n, cuprim_dtype dtype, cuprim_op op,
                                               cuprim_scan_kind kind, cudaStream_t stream,
                                               const cuprim__scan_tuning *tune) {
  using cuprim::scan::lookback_for_type;
  CUPRIM__DISPATCH_TYPE(dtype, lookback_for_type, ctx, d_in, d_out, n, op, kind, stream, tune)
}
