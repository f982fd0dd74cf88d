/* cuprim_histogram_even_multi: the histograms of 1 to 4 interleaved channels (RGBA pixels, say) in
 * one pass over the samples, each active channel with its own even bins.
 *
 * The samples are read in *pixel groups*: the fewest whole pixels whose bytes are a multiple of 16
 * (4 RGBA u8 pixels in one 16-byte vector, 16 RGB u8 pixels in three, 1 RGBA f64 pixel in two),
 * so that element e of a group is always channel e % C, known when the kernel is compiled: no
 * per-sample channel arithmetic, and each channel's bins come straight from the kernel's
 * parameters. Groups start at the first pixel that lies on a 16-byte boundary; the pixels before
 * it and after the last whole group are loaded one by one. Where no pixel lies on a boundary
 * (RGBA u8 at d_samples + 1) every pixel is loaded element by element: correct, slower.
 *
 *   8-bit samples (u8, i8): multi_bytes_kernel counts the 256 byte values of each active channel
 *     in lane-private columns of shared counters (channel c, value v, lane l: counter
 *     (c * 256 + v) * COLS + l % COLS), one shared atomic per sample whatever the bins, then folds
 *     each channel's 256 values into its bins: the single-channel AUTO path of histogram_count.cu
 *     (bytes_kernel), with a column block per channel. Channels past num_active are not counted
 *     and take no counters.
 *   Wider samples: multi_private_kernel counts each sample into its channel's bins in shared
 *     memory (interleaved copies, as BLOCK_PRIVATE's), and each block adds its non-zero bins into
 *     the output; past shared memory, one global atomic per sample into the zeroed output.
 * Blocks that add into the output are chained by programmatic dependent launch to one kernel that
 * zeroes every channel's counts (8-bit samples in code without that launch: one cooperative launch
 * whose block 0 zeroes them, then a grid barrier); a one-block grid writes the counts itself (one
 * launch). The grid walks the pixel groups in cta::for_each_round's rounds: whole tiles dealt to
 * the blocks in turn, then what is left in even shares, over at most one block per SM where the
 * input is fewer tiles than that (cap_grid). */
#include <cooperative_groups.h>

#include "common/check.h"
#include "common/dispatch.cuh"
#include "common/launch_config.cuh"
#include "cta/arch.cuh"
#include "cta/for_each.cuh"
#include "cta/load.cuh"
#include "histogram_bin.cuh"
#include "histogram_fold.cuh"
#include "histogram_internal.h"

namespace cuprim::histogram {
namespace {

constexpr int MAXC = CUPRIM__MAX_CHANNELS;

/* The kernels' view of a call, passed by value (__grid_constant__: read from the parameter bank,
 * also where a channel is picked at run time, never copied per thread): channel c < active has bins
 * bins[c], counts out[c], and, in the shared counters of the wider samples' kernel, the bins from
 * first[c] (the channels' bins laid end to end). `head` is the first pixel that starts a group,
 * or NO_HEAD. */
constexpr uint64_t NO_HEAD = ~(uint64_t)0;
struct multi_args {
  cuprim__bins bins[MAXC];
  uint64_t *out[MAXC];
  uint32_t first[MAXC];
  uint32_t total_bins; /* of the active channels */
  int active;
  uint64_t head;
  cta::round_walk walk; /* of the pixel groups over the launch's grid (walked) */
};

/* The channel of bin i of the active channels' bins laid end to end. */
__device__ __forceinline__ int channel_of(const multi_args &a, uint32_t i) {
  int ch = 0;
  while (ch + 1 < a.active && a.first[ch + 1] <= i)
    ++ch;
  return ch;
}

/* The pixel groups of C channels of T. */
constexpr int gcd16(int x) {
  return x % 16 == 0 ? 16 : x % 8 == 0 ? 8 : x % 4 == 0 ? 4 : x % 2 == 0 ? 2 : 1;
}
template <class T, int C> struct pixel_group {
  static constexpr int PIXEL_BYTES = C * (int)sizeof(T);
  static constexpr int PIXELS = 16 / gcd16(PIXEL_BYTES); /* whole pixels in a multiple of 16 B */
  static constexpr int ELEMS = PIXELS * C;
  static constexpr int WORDS = ELEMS * (int)sizeof(T) / 4;
  static constexpr int VECS = WORDS / 4; /* 16-byte loads per group: 1, 2 or 3 */
  /* Groups in flight per thread: about four 16-byte loads. */
  static constexpr int IN_FLIGHT = VECS == 1 ? 4 : VECS == 2 ? 2 : 1;
};

/* The first pixel of in[] that starts on a 16-byte boundary (its alignment repeats every
 * PIXELS pixels), or NO_HEAD if none does. */
template <class T, int C> uint64_t first_group_pixel(const T *in) {
  for (int h = 0; h < pixel_group<T, C>::PIXELS; ++h)
    if (((uintptr_t)in + (uintptr_t)h * C * sizeof(T)) % 16 == 0)
      return (uint64_t)h;
  return NO_HEAD;
}

/* Calls f.group(w) for each pixel group from `head` on (w: its WORDS 32-bit words, the raw bytes
 * of its elements; VECS loads each, IN_FLIGHT groups in flight per thread, in
 * cta::for_each_round's rounds), and f.pixel(in, p) for each pixel p before `head` and after the
 * last whole group; with head == NO_HEAD, f.pixel for every pixel. Spread over the whole grid. */
template <class T, int C, class F>
__device__ __forceinline__ void for_each_pixel(const T *in, uint64_t num_pixels, uint64_t head,
                                               const cta::round_walk &walk, F &f) {
  using G = pixel_group<T, C>;
  const uint64_t threads = (uint64_t)gridDim.x * blockDim.x;
  const uint64_t gtid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (head == NO_HEAD) {
    for (uint64_t p = gtid; p < num_pixels; p += threads)
      f.pixel(in, p);
    return;
  }
  head = head < num_pixels ? head : num_pixels;
  const uint64_t groups = (num_pixels - head) / G::PIXELS;
  const uint64_t tail_at = head + groups * G::PIXELS;
  if (gtid < head)
    f.pixel(in, gtid);
  if (gtid < num_pixels - tail_at)
    f.pixel(in, tail_at + gtid);

  const uint4 *v = reinterpret_cast<const uint4 *>(in + head * C);
  cta::for_each_round<G::IN_FLIGHT>(
      groups, walk, [=, &f](uint64_t first, uint64_t stride, uint64_t limit, auto whole) {
        uint32_t w[G::IN_FLIGHT][G::WORDS];
#pragma unroll
        for (int i = 0; i < G::IN_FLIGHT; ++i) {
          if (decltype(whole)::value || first + i * stride < limit) {
            const uint4 *at = v + (first + i * stride) * G::VECS;
#pragma unroll
            for (int j = 0; j < G::VECS; ++j) {
              uint32_t q[4];
              cta::load_vec16<cta::LOAD_STREAM_PF>(reinterpret_cast<const uint32_t *>(at + j), q);
#pragma unroll
              for (int e = 0; e < 4; ++e)
                w[i][4 * j + e] = q[e];
            }
          }
        }
#pragma unroll
        for (int i = 0; i < G::IN_FLIGHT; ++i)
          if (decltype(whole)::value || first + i * stride < limit)
            f.group(w[i]);
      });
}

/* Element e (of type T) of a group's words. */
template <class T, int WORDS>
__device__ __forceinline__ T element(const uint32_t (&w)[WORDS], int e) {
  T x;
  memcpy(&x, reinterpret_cast<const unsigned char *>(w) + (size_t)e * sizeof(T), sizeof(T));
  return x;
}

/* ---------------------------------------------------------------- 8-bit samples */

constexpr int BYTE_THREADS = 1024;
/* Bytes up to which the bytes kernel, in code without programmatic dependent launch, zeroes the
 * outputs itself in one cooperative launch rather than after a zeroing kernel. Past it the grid
 * barrier costs more than the launch it saves, every block then adding its bins into the outputs
 * at the same moment (as the wider samples' GRID_ZERO_MAX_N in histogram_count.cu). 80-virtual
 * build on an H200, RGBA bytes, four and three of four channels active, against two launches and
 * the walk before cta::for_each_round (0.2's twenty-sixth run): with the cooperative launch at
 * every size, 2^18 bytes 10.53 -> 8.19 and 9.82 -> 7.68 us, 2^22 12.06 -> 10.37 and 11.01 ->
 * 9.89, but 2^24 15.17 -> 16.00 and 14.30 -> 16.29; with it up to this limit, 2^24 three of four
 * 14.35 -> 14.16. */
constexpr uint64_t SYNC_MAX_BYTES = (uint64_t)1 << 22;
/* Four active channels of bytes: 32 counter columns from this many bytes on, 16 below
 * (count_bytes_cols). */
constexpr uint64_t COLS32_MIN_BYTES = (uint64_t)1 << 23;

/* Counts channel c's byte v in this lane's column: counts[(c * 256 + v) * COLS + lane % COLS].
 * With COLS == 32 no two lanes of a warp share a counter or a bank; with 16 (GPUs whose blocks
 * cannot hold 32 columns for every channel) lanes l and l + 16 share one. */
template <class T, int C, int COLS> struct byte_counter {
  uint32_t *col; /* this lane's column of channel 0, value 0 */
  int active;

  /* ch is a constant wherever the loops below are unrolled. */
  __device__ __forceinline__ void add(int ch, uint32_t v) const {
    if (ch < active)
      atomicAdd(col + ((uint32_t)ch * 256 + v) * COLS, 1u);
  }
  template <int WORDS> __device__ __forceinline__ void group(const uint32_t (&w)[WORDS]) const {
#pragma unroll
    for (int e = 0; e < WORDS * 4; ++e)
      add(e % C, (w[e / 4] >> (8 * (e % 4))) & 255u);
  }
  __device__ __forceinline__ void pixel(const T *in, uint64_t p) const {
    const uint8_t *px = reinterpret_cast<const uint8_t *>(in) + p * C;
#pragma unroll
    for (int ch = 0; ch < C; ++ch)
      add(ch, px[ch]);
  }
};

/* 8-bit samples of C channels, `active` of them counted into active * 256 * COLS shared counters
 * (dynamic shared memory), then folded into each channel's bins: added into the zeroed outputs
 * (programmatic dependent launch; GRID_SYNC, launched cooperatively: block 0 zeroes them while
 * every block counts, and a grid barrier orders the zeros before the adds), or for a one-block
 * grid written directly. */
template <class T, int C, int COLS, bool GRID_SYNC>
__global__ void __launch_bounds__(BYTE_THREADS, cta::sm_threads / BYTE_THREADS)
    multi_bytes_kernel(const T *in, uint64_t num_pixels, const __grid_constant__ multi_args a) {
  static_assert(sizeof(T) == 1, "8-bit samples");
  extern __shared__ __align__(16) unsigned char smem[];
  uint32_t *counts = reinterpret_cast<uint32_t *>(smem);
  if (GRID_SYNC && blockIdx.x == 0)
    for (int ch = 0; ch < a.active; ++ch)
      for (uint32_t i = threadIdx.x; i < a.bins[ch].num_bins; i += BYTE_THREADS)
        a.out[ch][i] = 0;
  const uint32_t slots = (uint32_t)a.active * 256 * COLS;
  for (uint32_t i = threadIdx.x; i < slots; i += BYTE_THREADS)
    counts[i] = 0;
  __syncthreads();
  const byte_counter<T, C, COLS> f{counts + threadIdx.x % COLS, a.active};
  for_each_pixel<T, C>(in, num_pixels, a.head, a.walk, f);
  __syncthreads();
  /* Thread (r, v) = (threadIdx.x / 256, threadIdx.x % 256): channel r's count of value v in this
   * block, its columns summed (rotated: consecutive values read different banks). */
  const int r = (int)(threadIdx.x / 256);
  const uint32_t v = threadIdx.x % 256;
  uint64_t c = 0;
  uint32_t b = NO_BIN;
  if (r < a.active) {
    c = sum_interleaved<uint64_t>(counts + ((uint32_t)r * 256 + v) * COLS, COLS, v);
    b = byte_bin<T>(v, a.bins[r]);
  }
  if constexpr (GRID_SYNC)
    cooperative_groups::this_grid().sync(); /* block 0's zeros written and visible */
  /* Into the zeroed outputs, or for one block (a.total_bins <= slots) through the channels' bins
   * laid end to end in shared memory, every bin written. */
  fold_byte_values<BYTE_THREADS>(counts, c, b, a.out[r], a.first[r], a.total_bins,
                                 [&a](uint32_t i, uint32_t v) {
                                   const int ch = channel_of(a, i);
                                   a.out[ch][i - a.first[ch]] = v;
                                 });
}

/* ---------------------------------------------------------------- wider samples */

constexpr int THREADS = 512;

/* Adds each sample of channel CH < active to its bin: in shared memory, bin i (of the channels'
 * bins laid end to end) has `copies` interleaved counters, this lane adding into copy
 * lane % copies (at0: its counter of bin 0); or (SMEM false) one atomic into a.out[CH]. */
template <class T, int KIND, int C, bool SMEM> struct wide_counter {
  const multi_args &a;
  uint32_t at0, stride;

  /* ch is a constant wherever the loops below are unrolled: its bins are read from the
   * parameter bank at a fixed offset. */
  __device__ __forceinline__ void add(int ch, T x) const {
    if (ch >= a.active)
      return;
    const uint32_t b = binner<T, KIND>(a.bins[ch], nullptr)(x);
    if constexpr (SMEM)
      shared_add_one_unless_no_bin(at0 + (a.first[ch] + b) * stride, b);
    else if (b != NO_BIN)
      atomicAdd(reinterpret_cast<unsigned long long *>(a.out[ch] + b), 1ull);
  }
  template <int WORDS> __device__ __forceinline__ void group(const uint32_t (&w)[WORDS]) const {
#pragma unroll
    for (int e = 0; e < WORDS * 4 / (int)sizeof(T); ++e)
      add(e % C, element<T>(w, e));
  }
  __device__ __forceinline__ void pixel(const T *in, uint64_t p) const {
    const T *px = in + p * C;
#pragma unroll
    for (int ch = 0; ch < C; ++ch)
      add(ch, px[ch]);
  }
};

/* Samples wider than 8 bits. SMEM: counts into `copies` interleaved copies of every active
 * channel's bins in shared memory, then each block adds its non-zero bins into the zeroed outputs
 * (programmatic dependent launch), or a one-block grid writes them. Else: atomics straight into
 * the zeroed outputs. */
template <class T, int KIND, int C, bool SMEM>
__global__ void __launch_bounds__(THREADS)
    multi_private_kernel(const T *in, uint64_t num_pixels, const __grid_constant__ multi_args a,
                         uint32_t copies) {
  extern __shared__ __align__(16) unsigned char smem[];
  uint32_t *counts = reinterpret_cast<uint32_t *>(smem);
  if constexpr (SMEM) {
    const uint32_t slots = a.total_bins * copies;
    for (uint32_t i = threadIdx.x; i < slots; i += THREADS)
      counts[i] = 0;
    __syncthreads();
  } else {
    cta::pdl_wait(); /* every add goes to the zeroed outputs */
  }
  const wide_counter<T, KIND, C, SMEM> f{
      a, (uint32_t)__cvta_generic_to_shared(counts + (threadIdx.x % 32) % copies), 4 * copies};
  for_each_pixel<T, C>(in, num_pixels, a.head, a.walk, f);
  if constexpr (SMEM) {
    wait_copies_done();
    /* Thread i sums bin i's copies from copy i % copies on (different banks across a warp);
     * consecutive threads add into consecutive bins of a channel. */
    for (uint32_t i = threadIdx.x; i < a.total_bins; i += THREADS) {
      const uint32_t c = sum_interleaved<uint32_t>(counts + (size_t)i * copies, copies, i);
      const int ch = channel_of(a, i);
      uint64_t *const out = a.out[ch] + (i - a.first[ch]);
      if (gridDim.x == 1)
        *out = c;
      else if (c != 0)
        atomicAdd(reinterpret_cast<unsigned long long *>(out), (unsigned long long)c);
    }
  }
}

/* ---------------------------------------------------------------- dispatch */

/* a, with the walk of its pixel groups (for_each_pixel's, which starts them at a.head) over `grid`
 * blocks of `threads`. */
template <class T, int C>
multi_args walked(const multi_args &a, uint64_t num_pixels, uint64_t grid, unsigned threads) {
  using G = pixel_group<T, C>;
  multi_args w = a;
  const uint64_t head = a.head < num_pixels ? a.head : num_pixels;
  w.walk = cta::walk_of<G::IN_FLIGHT>((num_pixels - head) / G::PIXELS, grid, threads);
  return w;
}

/* A counting grid of `grid` blocks of `threads` (count_grid's) held to at most the larger of the
 * SM count and the input's whole tiles (for_each_round's, in pixel groups): below a tile a block,
 * one block per SM at most, since more blocks on an SM count no faster and add their bins into
 * the outputs, where the adds to one counter queue one after another. H200, four channels of
 * RGBA bytes at 2^22 bytes (64 tiles, all of them in the walk's last round): 256 blocks 10.62
 * us, 132 blocks 10.14, and the tiles dealt whole to 64 of 256 blocks (until 0.2's twenty-sixth
 * run) 10.53. */
template <class T, int C>
uint64_t cap_grid(const cuprim_ctx *ctx, uint64_t grid, uint64_t num_pixels, unsigned threads) {
  using G = pixel_group<T, C>;
  const uint64_t tiles = num_pixels / G::PIXELS / ((uint64_t)threads * G::IN_FLIGHT);
  const uint64_t most =
      tiles > (uint64_t)ctx->attrs.sm_count ? tiles : (uint64_t)ctx->attrs.sm_count;
  return grid < most ? grid : most;
}

/* Zeroes every active channel's counts (one launch). */
cuprim_status zero_all(const cuprim_ctx *ctx, const multi_args &a, cudaStream_t stream) {
  zero_targets z = {};
  for (int c = 0; c < a.active; ++c) {
    z.ptr[c] = a.out[c];
    z.words[c] = a.bins[c].num_bins;
  }
  z.count = a.active;
  return launch_zero(ctx, z, stream);
}

/* Launches `kernel` on `grid` blocks after zero_all, chained by programmatic dependent launch. */
template <class K, class... Args>
cuprim_status launch_after_zero(const cuprim_ctx *ctx, const multi_args &a, K *kernel,
                                uint64_t grid, unsigned threads, size_t smem, cudaStream_t stream,
                                Args... args) {
  CUPRIM__FORWARD(zero_all(ctx, a, stream));
  CUPRIM__CUDA_CHECK(launch_chained(ctx, (unsigned)grid, threads, smem, stream, kernel, args...));
  return CUPRIM_SUCCESS;
}

template <class T, int C, int COLS>
cuprim_status count_bytes(const cuprim_ctx *ctx, const T *in, uint64_t num_pixels,
                          const multi_args &a, cudaStream_t stream) {
  /* Without programmatic dependent launch (code before 9.0) the zeroing kernel and the counting
   * kernel run one after the other: one cooperative launch instead, as single-channel AUTO's
   * bytes_kernel (histogram_count.cu). */
  const uint64_t bytes = num_pixels * C;
  const bool sync =
      !cuprim__pdl_supported(ctx) && a.total_bins <= SYNC_ZERO_MAX_BINS && bytes <= SYNC_MAX_BYTES;
  auto *kernel = multi_bytes_kernel<T, C, COLS, false>;
  auto *sync_kernel = multi_bytes_kernel<T, C, COLS, true>;
  const size_t smem = (size_t)a.active * 256 * COLS * sizeof(uint32_t);
  CUPRIM__FORWARD(allow_smem(kernel, smem));
  if (sync)
    CUPRIM__FORWARD(allow_smem(sync_kernel, smem));
  uint64_t resident = 0;
  CUPRIM__FORWARD(resident_blocks(ctx, sync ? sync_kernel : kernel, smem, &resident, BYTE_THREADS));
  /* A vector per thread at least: each block's fold stays small beside its counting. One block (one
   * launch, no zeroing kernel) only where that is the whole grid: until 0.2's twenty-sixth run one
   * block counted up to 65536 bytes (as single-channel AUTO's BYTE_ONE_BLOCK_MAX_N), which on an
   * H200 took 9.25 us for four channels against 7.10 for four blocks. */
  uint64_t grid = cap_grid<T, C>(ctx, count_grid(bytes, resident, (uint64_t)BYTE_THREADS * 16),
                                 num_pixels, BYTE_THREADS);
  if (grid == 1 && (size_t)a.total_bins * sizeof(uint32_t) <= smem) {
    kernel<<<1, BYTE_THREADS, smem, stream>>>(in, num_pixels,
                                              walked<T, C>(a, num_pixels, 1, BYTE_THREADS));
    CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
    return CUPRIM_SUCCESS;
  }
  if (grid == 1)
    grid = 2;                     /* the fold through the zeroed outputs */
  if (sync && grid <= resident) { /* the grid barrier needs every block resident at once */
    multi_args args_a = walked<T, C>(a, num_pixels, grid, BYTE_THREADS);
    void *args[] = {&in, &num_pixels, &args_a};
    CUPRIM__CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(sync_kernel),
                                                   dim3((unsigned)grid), dim3(BYTE_THREADS), args,
                                                   smem, stream));
    return CUPRIM_SUCCESS;
  }
  return launch_after_zero(ctx, a, kernel, grid, BYTE_THREADS, smem, stream, in, num_pixels,
                           walked<T, C>(a, num_pixels, grid, BYTE_THREADS));
}

template <class T, int C>
cuprim_status count_bytes_cols(const cuprim_ctx *ctx, const T *in, uint64_t num_pixels,
                               const multi_args &a, cudaStream_t stream) {
  /* Lane-private columns: 32 (no two lanes of a warp share a counter) for one or two active
   * channels (32 or 64 KB), and for four from COLS32_MIN_BYTES on (128 KB: one block of 1024
   * threads per SM), where a block can hold them; else 16 (lanes l and l + 16 share one; 48 KB
   * for three channels, 64 for four, which every GPU from 7.5 on holds). Each block zeroes and
   * folds all of its counters, a cost that only large inputs repay. H100 (2026-11-24 04:26
   * UTC, two runs each, RGBA bytes, 32 columns against 16): four channels 9.66 against 9.25 us
   * at 2^16 bytes, 9.82 against 9.30 at 2^20, 10.98 against 10.90 at 2^22, 14.54 against 14.88
   * at 2^24, 96.88 against 99.34 at 2^28; three channels 8.83 against 8.40 at 2^16, 14.70
   * against 13.57 at 2^24, 96.10 against 95.86 at 2^28. One and two channels: not measured. */
  const size_t col32 = (size_t)a.active * 256 * 32 * sizeof(uint32_t);
  const bool wide = a.active <= 2 || (a.active == 4 && num_pixels * C >= COLS32_MIN_BYTES);
  if (wide && col32 <= (size_t)ctx->attrs.smem_per_block_optin)
    return count_bytes<T, C, 32>(ctx, in, num_pixels, a, stream);
  return count_bytes<T, C, 16>(ctx, in, num_pixels, a, stream);
}

template <class T, int KIND, int C>
cuprim_status count_wide(const cuprim_ctx *ctx, const T *in, uint64_t num_pixels,
                         const multi_args &a, cudaStream_t stream) {
  const uint64_t elems = num_pixels * C;
  if ((size_t)a.total_bins * sizeof(uint32_t) > (size_t)ctx->attrs.smem_per_block_optin) {
    /* Past shared memory: an atomic per sample into the zeroed outputs. */
    auto *kernel = multi_private_kernel<T, KIND, C, false>;
    uint64_t resident = 0;
    CUPRIM__FORWARD(resident_blocks(ctx, kernel, 0, &resident, THREADS));
    const uint64_t grid = count_grid(elems, resident, (uint64_t)THREADS * 16);
    return launch_after_zero(ctx, a, kernel, grid, THREADS, 0, stream, in, num_pixels,
                             walked<T, C>(a, num_pixels, grid, THREADS), 1u);
  }
  auto *kernel = multi_private_kernel<T, KIND, C, true>;
  const uint32_t copies = smem_copies(0, a.total_bins, sizeof(uint32_t));
  const size_t smem = (size_t)a.total_bins * copies * sizeof(uint32_t);
  CUPRIM__FORWARD(allow_smem(kernel, smem));
  uint64_t resident = 0;
  CUPRIM__FORWARD(resident_blocks(ctx, kernel, smem, &resident, THREADS));
  /* As AUTO's folding blocks in histogram_count.cu below 2^26 samples: at most two per SM, each
   * with at least a vector per thread and a sample per bin (four per SM, which AUTO takes from
   * 2^26 on, not measured here). */
  if (resident > 2 * (uint64_t)ctx->attrs.sm_count)
    resident = 2 * (uint64_t)ctx->attrs.sm_count;
  const uint64_t tile = (uint64_t)THREADS * (16 / sizeof(T));
  const uint64_t grid =
      cap_grid<T, C>(ctx, count_grid(elems, resident, tile > a.total_bins ? tile : a.total_bins),
                     num_pixels, THREADS);
  if (grid == 1) {
    kernel<<<1, THREADS, smem, stream>>>(in, num_pixels, walked<T, C>(a, num_pixels, 1, THREADS),
                                         copies);
    CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
    return CUPRIM_SUCCESS;
  }
  return launch_after_zero(ctx, a, kernel, grid, THREADS, smem, stream, in, num_pixels,
                           walked<T, C>(a, num_pixels, grid, THREADS), copies);
}

/* BIN_SHIFT where every active channel's bins allow it (histogram_count.cu's rule), else the
 * formula. */
template <class T, int C>
cuprim_status count_wide_kind(const cuprim_ctx *ctx, const T *in, uint64_t num_pixels,
                              const multi_args &a, cudaStream_t stream) {
  if constexpr (traits_int_upto32<T>::value) {
    bool shift = true;
    for (int c = 0; c < a.active; ++c) {
      const cuprim__bins &b = a.bins[c];
      shift = shift && b.shift >= 0 &&
              (sizeof(T) == 4 ||
               (b.lower_int >= -(INT64_C(1) << 30) && b.upper_ceil <= (INT64_C(1) << 30)));
    }
    if (shift)
      return count_wide<T, BIN_SHIFT, C>(ctx, in, num_pixels, a, stream);
  }
  return count_wide<T, BIN_EVEN, C>(ctx, in, num_pixels, a, stream);
}

template <class T, int C>
cuprim_status count_channels(const cuprim_ctx *ctx, const void *d_in, uint64_t num_pixels,
                             multi_args &a, cudaStream_t stream) {
  const T *in = static_cast<const T *>(d_in);
  a.head = first_group_pixel<T, C>(in);
  if constexpr (sizeof(T) == 1)
    return count_bytes_cols<T, C>(ctx, in, num_pixels, a, stream);
  else
    return count_wide_kind<T, C>(ctx, in, num_pixels, a, stream);
}

template <class T>
cuprim_status count_for_type(const cuprim_ctx *ctx, const void *d_in, uint64_t num_pixels,
                             int num_channels, multi_args &a, cudaStream_t stream) {
  switch (num_channels) {
  case 1:
    return count_channels<T, 1>(ctx, d_in, num_pixels, a, stream);
  case 2:
    return count_channels<T, 2>(ctx, d_in, num_pixels, a, stream);
  case 3:
    return count_channels<T, 3>(ctx, d_in, num_pixels, a, stream);
  case 4:
    return count_channels<T, 4>(ctx, d_in, num_pixels, a, stream);
  default:
    return CUPRIM_ERROR_INTERNAL;
  }
}

} // namespace
} // namespace cuprim::histogram

extern "C" cuprim_status cuprim__histogram_multi(const cuprim_ctx *ctx, const void *d_samples,
                                                 uint64_t num_pixels, int num_channels,
                                                 int num_active, cuprim_dtype dtype,
                                                 uint64_t *const d_counts[],
                                                 const cuprim__bins bins[], cudaStream_t stream) {
  using namespace cuprim::histogram;
  multi_args a = {};
  a.active = num_active;
  uint64_t first = 0;
  for (int c = 0; c < num_active; ++c) {
    a.bins[c] = bins[c];
    a.out[c] = d_counts[c];
    a.first[c] = (uint32_t)(first < UINT32_MAX ? first : UINT32_MAX);
    first += bins[c].num_bins;
  }
  /* Past 2^32 - 1 bins in all the counters cannot be in shared memory anyway: the kernels then
   * never read first[] or total_bins. */
  a.total_bins = (uint32_t)(first < UINT32_MAX ? first : UINT32_MAX);
  if (num_pixels == 0) /* the counts are overwritten: all zero */
    return zero_all(ctx, a, stream);
  return cuprim::dispatch_dtype<cuprim::HISTOGRAM_TYPES>(dtype, [&](auto t) {
    using T = typename decltype(t)::type;
    return count_for_type<T>(ctx, d_samples, num_pixels, num_channels, a, stream);
  });
}
