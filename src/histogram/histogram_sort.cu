/* SORT_REDUCE_BY_KEY: a histogram with no atomics on the counts (PMPP chapter 9's alternative).
 *
 *   1. keys: each sample's bin, or num_bins for a sample that is not counted (it sorts last);
 *   2. an LSD radix sort of the keys, 4 bits a pass over only the bits that num_bins needs
 *      (9 bits, 3 passes, for 256 bins). Each pass: every tile of 4096 keys counts its 16 digits;
 *      the digit counts, laid out digit-major ([digit][tile]), are exclusive-scanned by cuprim's
 *      own scan (cuprim__scan_lookback): entry [d][t] is then where tile t's keys of digit d
 *      start; each tile scatters its keys there, stably (ranks from warp match and ballots);
 *   3. counted by run: bin b's run in the sorted keys is [lower_bound(b), lower_bound(b + 1)),
 *      two binary searches per bin.
 * Samples go through in chunks of at most 2^25 (256 MiB of keys), each chunk's counts added to
 * the last's (the first chunk writes them). Wastes: the keys are written and read back once per
 * pass, and the counting kernel's binary searches are latency-bound; it is here to be measured. */
#include "common/check.h"
#include "common/dispatch.cuh"
#include "cta/warp_reduce.cuh"
#include "histogram_bin.cuh"
#include "histogram_internal.h"
#include "scan/scan_internal.h"

namespace cuprim::histogram {
namespace {

constexpr int SORT_THREADS = 256;
constexpr int ROUNDS = 16; /* keys per thread per tile, one per round */
constexpr int SORT_TILE = SORT_THREADS * ROUNDS;
constexpr int DIGIT_BITS = 4;
constexpr int DIGITS = 1 << DIGIT_BITS;
constexpr int WARPS = SORT_THREADS / 32;
constexpr uint64_t CHUNK = uint64_t(1) << 25;

template <class T, int KIND>
__global__ void __launch_bounds__(SORT_THREADS)
    keys_kernel(const T *in, uint64_t m, const cuprim__bins bins, uint32_t *keys) {
  extern __shared__ __align__(16) unsigned char smem[];
  const binner<T, KIND> bin(bins, smem);
  __syncthreads();
  const uint64_t stride = (uint64_t)gridDim.x * SORT_THREADS;
  for (uint64_t i = (uint64_t)blockIdx.x * SORT_THREADS + threadIdx.x; i < m; i += stride) {
    const uint32_t b = bin(in[i]);
    keys[i] = b == NO_BIN ? bins.num_bins : b;
  }
}

/* counts[d * tiles + tile] = the keys of the tile whose digit (at `shift`) is d. */
__global__ void __launch_bounds__(SORT_THREADS)
    digit_count_kernel(const uint32_t *keys, uint64_t m, int shift, uint32_t *counts,
                       uint32_t tiles) {
  __shared__ uint32_t hist[DIGITS];
  if (threadIdx.x < DIGITS)
    hist[threadIdx.x] = 0;
  __syncthreads();
  const uint64_t base = (uint64_t)blockIdx.x * SORT_TILE;
  for (int r = 0; r < ROUNDS; ++r) {
    const uint64_t i = base + (uint64_t)r * SORT_THREADS + threadIdx.x;
    if (i < m)
      atomicAdd(&hist[(keys[i] >> shift) & (DIGITS - 1)], 1u);
  }
  __syncthreads();
  if (threadIdx.x < DIGITS)
    counts[(size_t)threadIdx.x * tiles + blockIdx.x] = hist[threadIdx.x];
}

/* Scatters the tile's keys to out[offsets[d * tiles + tile] + (rank among the tile's keys of
 * digit d)], the rank in input order (stable): round by round (one key per thread, keys in thread
 * order), a key's rank is the keys of its digit in earlier rounds, in earlier warps of this round
 * and in lower lanes of its warp (__match_any_sync). */
__global__ void __launch_bounds__(SORT_THREADS)
    scatter_kernel(const uint32_t *in, uint32_t *out, uint64_t m, int shift,
                   const uint32_t *offsets, uint32_t tiles) {
  __shared__ uint32_t start[DIGITS], seen[DIGITS];
  __shared__ uint32_t warp_count[WARPS][DIGITS], warp_start[WARPS][DIGITS];
  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  if (t < DIGITS) {
    start[t] = offsets[(size_t)t * tiles + blockIdx.x];
    seen[t] = 0;
  }
  if (t < WARPS * DIGITS)
    warp_count[t / DIGITS][t % DIGITS] = 0;
  __syncthreads();
  const uint64_t base = (uint64_t)blockIdx.x * SORT_TILE;
  const unsigned lower_lanes = (1u << lane) - 1;
  for (int r = 0; r < ROUNDS; ++r) {
    const uint64_t i = base + (uint64_t)r * SORT_THREADS + t;
    const bool valid = i < m;
    const uint32_t key = valid ? in[i] : 0;
    const unsigned d = valid ? (key >> shift) & (DIGITS - 1) : DIGITS; /* DIGITS: no key */
    const unsigned peers = __match_any_sync(cta::full_mask, d);
    const unsigned rank = __popc(peers & lower_lanes);
    if (valid && rank == 0)
      warp_count[warp][d] = __popc(peers);
    __syncthreads();
    if (t < DIGITS) { /* prefix over the warps, for digit t */
      uint32_t s = seen[t];
      for (int w = 0; w < WARPS; ++w) {
        warp_start[w][t] = s;
        s += warp_count[w][t];
        warp_count[w][t] = 0;
      }
      seen[t] = s;
    }
    __syncthreads();
    if (valid)
      out[start[d] + warp_start[warp][d] + rank] = key;
  }
}

/* Runs of the sorted keys: out[b] (+)= lower_bound(b + 1) - lower_bound(b). */
__device__ __forceinline__ uint64_t lower_bound(const uint32_t *k, uint64_t m, uint64_t v) {
  uint64_t lo = 0, hi = m;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if ((uint64_t)k[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

__global__ void __launch_bounds__(256)
    run_count_kernel(const uint32_t *sorted, uint64_t m, uint32_t num_bins, uint64_t *out,
                     int accumulate) {
  const uint64_t b = (uint64_t)blockIdx.x * 256 + threadIdx.x;
  if (b >= num_bins)
    return;
  const uint64_t c = lower_bound(sorted, m, b + 1) - lower_bound(sorted, m, b);
  out[b] = accumulate ? out[b] + c : c;
}

/* ---------------------------------------------------------------- dispatch */

template <class T, int KIND>
cuprim_status sort_with(const cuprim_ctx *ctx, const T *in, uint64_t n, uint64_t *out,
                        const cuprim__bins &bins, cudaStream_t stream) {
  const uint64_t chunk = n < CHUNK ? n : CHUNK;
  const uint32_t max_tiles = (uint32_t)((chunk + SORT_TILE - 1) / SORT_TILE);
  temp_layout lay; /* [keys | keys | per-tile digit counts] */
  const size_t keys_at[2] = {lay.take((size_t)chunk * sizeof(uint32_t)),
                             lay.take((size_t)chunk * sizeof(uint32_t))};
  const size_t counts_at = lay.take((size_t)DIGITS * max_tiles * sizeof(uint32_t));
  /* Keys take values 0..num_bins: that many bits, a pass per DIGIT_BITS of them. */
  int bits = 0;
  while (bits < 32 && ((uint64_t)bins.num_bins >> bits) != 0)
    ++bits;
  const int passes = (bits + DIGIT_BITS - 1) / DIGIT_BITS;
  const size_t smem = round16(binner<T, KIND>::smem_bytes(bins));
  if (smem > 48 * 1024)
    CUPRIM__CUDA_CHECK(cudaFuncSetAttribute(
        keys_kernel<T, KIND>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  const cuprim__scan_tuning tune = cuprim__scan_tuning_for(ctx->attrs.code_arch);

  return with_temp(ctx, lay, stream, [&] {
    uint32_t *keys[2] = {lay.at<uint32_t>(keys_at[0]), lay.at<uint32_t>(keys_at[1])};
    uint32_t *counts = lay.at<uint32_t>(counts_at);
    for (uint64_t at = 0; at < n; at += chunk) {
      const uint64_t m = n - at < chunk ? n - at : chunk;
      const uint32_t tiles = (uint32_t)((m + SORT_TILE - 1) / SORT_TILE);
      const unsigned key_grid = (unsigned)((m + SORT_THREADS - 1) / SORT_THREADS < 65536
                                               ? (m + SORT_THREADS - 1) / SORT_THREADS
                                               : 65536);
      keys_kernel<T, KIND><<<key_grid, SORT_THREADS, smem, stream>>>(in + at, m, bins, keys[0]);
      CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
      int cur = 0;
      for (int pass = 0; pass < passes; ++pass) {
        const int shift = pass * DIGIT_BITS;
        digit_count_kernel<<<tiles, SORT_THREADS, 0, stream>>>(keys[cur], m, shift, counts, tiles);
        CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
        CUPRIM__FORWARD(cuprim__scan_lookback(ctx, counts, counts, (uint64_t)DIGITS * tiles,
                                              CUPRIM_U32, CUPRIM_SUM, CUPRIM_EXCLUSIVE, stream,
                                              &tune));
        scatter_kernel<<<tiles, SORT_THREADS, 0, stream>>>(keys[cur], keys[cur ^ 1], m, shift,
                                                           counts, tiles);
        CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
        cur ^= 1;
      }
      run_count_kernel<<<(unsigned)(((uint64_t)bins.num_bins + 255) / 256), 256, 0, stream>>>(
          keys[cur], m, bins.num_bins, out, at != 0);
      CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
    }
    return CUPRIM_SUCCESS;
  });
}

template <class T>
cuprim_status sort_for_type(const cuprim_ctx *ctx, const void *d_in, uint64_t n, uint64_t *out,
                            const cuprim__bins &bins, cudaStream_t stream) {
  const T *in = static_cast<const T *>(d_in);
  if (!bins.by_edges) {
    if constexpr (traits_int_upto32<T>::value)
      if (bins.shift >= 0 && (sizeof(T) == 4 || (bins.lower_int >= -(INT64_C(1) << 30) &&
                                                 bins.upper_ceil <= (INT64_C(1) << 30))))
        return sort_with<T, BIN_SHIFT>(ctx, in, n, out, bins, stream);
    if constexpr (sizeof(T) == 1)
      return sort_with<T, BIN_LUT8>(ctx, in, n, out, bins, stream);
    else
      return sort_with<T, BIN_EVEN>(ctx, in, n, out, bins, stream);
  }
  if (binner<T, BIN_EDGES_SMEM>::smem_bytes(bins) <= (size_t)ctx->attrs.smem_per_block_optin)
    return sort_with<T, BIN_EDGES_SMEM>(ctx, in, n, out, bins, stream);
  return sort_with<T, BIN_EDGES_GLOBAL>(ctx, in, n, out, bins, stream);
}

} // namespace
} // namespace cuprim::histogram

extern "C" cuprim_status cuprim__histogram_sort(const cuprim_ctx *ctx, const void *d_samples,
                                                uint64_t n, cuprim_dtype dtype, uint64_t *d_counts,
                                                const cuprim__bins *bins, cudaStream_t stream) {
  return cuprim::dispatch_dtype<cuprim::HISTOGRAM_TYPES>(dtype, [&](auto t) {
    using T = typename decltype(t)::type;
    return cuprim::histogram::sort_for_type<T>(ctx, d_samples, n, d_counts, *bins, stream);
  });
}
