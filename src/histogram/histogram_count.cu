/* Histograms counted with atomics: GLOBAL_ATOMIC, BLOCK_PRIVATE and AUTO (seed 002; PMPP
 * chapter 9).
 *
 *   GLOBAL_ATOMIC  zero the output, then one 64-bit atomic add per sample on it. Every add goes to
 *                  L2, and samples of one bin serialize there.
 *   BLOCK_PRIVATE  each block counts into its own copy of the bins in shared memory (32-bit
 *                  counters: up to ~56K bins in an H100's 227 KB), coarsened (a persistent grid;
 *                  each thread reads 16-byte vectors, several in flight) and with runs of equal
 *                  bins added once (a thread adds a bin's count when its bin changes, and a warp
 *                  whose threads end on one bin adds once). The copies are then summed into the
 *                  output by a second kernel chained by programmatic dependent launch, which
 *                  overwrites it: no zeroing pass. Bins that do not fit in shared memory: private
 *                  64-bit copies in global memory (as many as 64 MiB hold, shared round-robin by
 *                  the blocks), summed the same way.
 *   AUTO           8-bit samples: the 256 byte values counted in lane-private columns of shared
 *                  counters, then folded into bins (bytes_kernel below). Other samples:
 *                  BLOCK_PRIVATE's kernel while the bins fit in shared memory, one block writing
 *                  the output directly (one launch) for small inputs, else each block adding its
 *                  non-zero bins into the output, which a small kernel zeroed first (chained by
 *                  programmatic dependent launch: no copies in memory, no second kernel to sum
 *                  them; code without that launch: one cooperative launch whose block 0 zeroes,
 *                  then a grid barrier); past shared memory, the run-aggregated adds straight
 *                  into the zeroed output.
 * In BLOCK_PRIVATE and GLOBAL_ATOMIC, integer samples in whole-number bins 2^k wide take their
 * bin by a subtraction and a shift, other 8-bit samples from a 256-entry table
 * (histogram_bin.cuh); bins given by edges
 * are found by binary search over the edges in shared memory when they fit beside the counters. */
#include <cooperative_groups.h>

#include "common/check.h"
#include "common/dispatch.cuh"
#include "common/launch_config.cuh"
#include "cta/arch.cuh"
#include "cta/for_each.cuh"
#include "cta/load.cuh"
#include "cta/warp_reduce.cuh"
#include "histogram_bin.cuh"
#include "histogram_fold.cuh"
#include "histogram_internal.h"

namespace cuprim::histogram {
namespace {

constexpr int THREADS = 512;
constexpr int VPT = 4; /* 16-byte vectors in flight per thread */
/* AUTO's folding grid (count_private): four blocks per SM from this many samples, two below. */
constexpr uint64_t FOLD_WIDE_MIN_N = (uint64_t)1 << 26;
/* Samples up to which AUTO's folding grid, in code without programmatic dependent launch, zeroes
 * the output itself in one cooperative launch (private_kernel's grid_zeroes) rather than after a
 * zeroing kernel. 80-virtual build on an H200, two runs a side (ABBA), two launches -> one at
 * every size (19:37 UTC, 2026-11-28): f16/256 2^14 9.41 -> 8.42 us, 2^16 9.57 -> 8.62, 2^18
 * 9.70 -> 8.74, 2^20 10.22 -> 10.50, 2^22 12.96 -> 13.87; f32/256 2^12 8.24 -> 7.38, 2^18 9.25
 * -> 8.45, 2^20 10.69 -> 10.42, 2^22 13.62 -> 14.21; f32/4096 2^18 10.18 -> 9.68, 2^20 12.78 ->
 * 14.03, 2^22 17.98 -> 21.63. Past 2^18 the barrier costs more than the launch it saves: every
 * block then adds its bins into the output at the same moment (likely; not profiled), where
 * after the zeroing kernel each adds as it ends. With this limit (19:49 UTC run): f16/256 2^14
 * 9.36 -> 8.45, 2^18 9.60 -> 8.70, 2^20 10.27 -> 10.32; f32/4096 2^18 10.45 -> 9.71, 2^20 13.02
 * -> 12.98. */
constexpr uint64_t GRID_ZERO_MAX_N = (uint64_t)1 << 18;

/* How a kernel adds counts. */
enum count_mode {
  COUNT_SMEM,       /* runs into the block's shared-memory copy (32-bit) */
  COUNT_GLOBAL_RUN, /* runs into a 64-bit copy in global memory */
  COUNT_GLOBAL_ONE  /* one add of 1 per sample into global memory (GLOBAL_ATOMIC) */
};

/* Counts samples into `base`: bin b's counter is base[b * copies + slot] (copies > 1: several
 * interleaved copies in shared memory, lane l of a warp using copy l % copies, so that the lanes'
 * adds fall in different banks; with 32 copies no two lanes of a warp ever touch one counter or
 * one bank). In shared memory base has SPARE_ROWS rows of copies before it, where the samples of
 * no bin are added (shared_add_one). A vector whose samples all fall in one bin is not added at
 * once: it extends the thread's pending run, added when the run's bin changes (and at the end, once
 * per warp when the whole warp ends on one bin). Other vectors add each sample. GLOBAL_ONE adds
 * every sample. */
template <class T, int KIND, int MODE> struct counter {
  static constexpr int VEC = 16 / (int)sizeof(T);
  const binner<T, KIND> &bin;
  void *base;
  /* COUNT_SMEM: the shared-memory address of this thread's counter of bin 0 (copy `slot`) and
   * the bytes from one bin's counters to the next (4 * copies). */
  uint32_t at0 = 0, stride = 0;
  bin_run<uint32_t> run;

  __device__ counter(const binner<T, KIND> &bn, void *b, uint32_t copies, uint32_t slot)
      : bin(bn), base(b) {
    if constexpr (MODE == COUNT_SMEM) {
      at0 = (uint32_t)__cvta_generic_to_shared(static_cast<uint32_t *>(b) + slot);
      stride = 4 * copies;
    }
  }
  __device__ __forceinline__ void add(uint32_t b, uint32_t c) const {
    if constexpr (MODE == COUNT_SMEM)
      asm volatile("red.shared.add.u32 [%0], %1;" ::"r"(at0 + b * stride), "r"(c) : "memory");
    else
      atomicAdd(reinterpret_cast<unsigned long long *>(base) + b, (unsigned long long)c);
  }
  /* Adds 1 to bin b unless b is NO_BIN (in shared memory: to the spare row, without a test). */
  __device__ __forceinline__ void add_one(uint32_t b) const {
    if constexpr (MODE == COUNT_SMEM)
      shared_add_one(at0 + b * stride);
    else if (b != NO_BIN)
      add(b, 1);
  }
  __device__ __forceinline__ void one(T x, uint64_t /* index */) { add_one(bin(x)); }
  /* 1 if the vector's samples are all the same bits: a cheap test on the raw words (for 8- and
   * 16-bit samples, cheaper than comparing their 16 or 8 bins). */
  static __device__ __forceinline__ bool same_bits(const T (&x)[VEC]) {
    uint4 w;
    memcpy(&w, x, 16);
    uint32_t first = w.x;
    if constexpr (sizeof(T) == 1)
      first = __byte_perm(w.x, 0, 0x0000);
    else if constexpr (sizeof(T) == 2)
      first = __byte_perm(w.x, 0, 0x1010);
    if constexpr (sizeof(T) == 8)
      return w.x == w.z && w.y == w.w;
    return w.x == first && w.y == first && w.z == first && w.w == first;
  }
  __device__ __forceinline__ void vec(const T (&x)[VEC], uint64_t /* index */) {
    if constexpr (MODE == COUNT_GLOBAL_ONE) {
#pragma unroll
      for (int j = 0; j < VEC; ++j)
        add_one(bin(x[j]));
      return;
    }
    uint32_t b[VEC];
    bool same;
    if constexpr (sizeof(T) <= 2) { /* many samples a vector: test the bits, bin once if equal */
      same = same_bits(x);
      if (same) {
        b[0] = bin(x[0]);
      } else {
#pragma unroll
        for (int j = 0; j < VEC; ++j)
          b[j] = bin(x[j]);
      }
    } else { /* few samples a vector, costly bins: compare the bins */
      same = true;
#pragma unroll
      for (int j = 0; j < VEC; ++j) {
        b[j] = bin(x[j]);
        same = same && b[j] == b[0];
      }
    }
    if (same) {
      run.extend(b[0], VEC, *this);
      return;
    }
#pragma unroll
    for (int j = 0; j < VEC; ++j)
      add_one(b[j]);
  }
  /* The pending runs, with the whole warp present. */
  __device__ __forceinline__ void flush() {
    if constexpr (MODE != COUNT_GLOBAL_ONE) {
      const uint32_t b0 = __shfl_sync(cta::full_mask, run.bin, 0);
      if (__all_sync(cta::full_mask, run.bin == b0)) {
        uint32_t c = run.value;
#pragma unroll
        for (int o = 16; o > 0; o >>= 1)
          c += __shfl_xor_sync(cta::full_mask, c, o);
        if (threadIdx.x % 32 == 0 && b0 != NO_BIN)
          add(b0, c);
      } else {
        run.finish(*this);
      }
    }
  }
};

/* BLOCK_PRIVATE (and AUTO): counts into `copies` interleaved copies in shared memory, then the
 * block's counts (summed over the copies) go to partials[blockIdx.x] (32-bit, BLOCK_PRIVATE), or
 * straight to `out` when the grid is one block, or (AUTO: partials == nullptr) are added into
 * `out`, which a kernel chained before this one by programmatic dependent launch has zeroed.
 * grid_zeroes (AUTO, code without programmatic dependent launch, launched cooperatively): block 0
 * zeroes `out` while every block counts, and a grid barrier orders the zeros before the adds, as
 * in bytes_kernel<T, true>; code with it compiles none of this. */
template <class T, int KIND>
__global__ void __launch_bounds__(THREADS)
    private_kernel(const T *in, uint64_t n, const cuprim__bins bins, uint32_t copies,
                   uint32_t *partials, uint64_t *out, bool grid_zeroes) {
  extern __shared__ __align__(16) unsigned char smem[];
  const size_t table = round16(binner<T, KIND>::smem_bytes(bins));
  /* The spare row (the samples of no bin), then the bins' counters. */
  uint32_t *const spare = reinterpret_cast<uint32_t *>(smem + table);
  uint32_t *const counts = spare + SPARE_ROWS * copies;
  const uint32_t slots = bins.num_bins * copies;
  const bool zero_in_grid = !cta::has_pdl && grid_zeroes;
  if (zero_in_grid && blockIdx.x == 0)
    for (uint32_t b = threadIdx.x; b < bins.num_bins; b += THREADS)
      out[b] = 0;
  for (uint32_t i = threadIdx.x; i < slots + SPARE_ROWS * copies; i += THREADS)
    spare[i] = 0;
  const binner<T, KIND> bin(bins, smem);
  __syncthreads();
  counter<T, KIND, COUNT_SMEM> f(bin, counts, copies, (threadIdx.x % 32) % copies);
  cta::for_each_vec16<T, VPT>(in, n, f);
  f.flush();
  __syncthreads();
  const bool fold = gridDim.x > 1 && partials == nullptr;
  if (fold) { /* the zeroed output */
    if (zero_in_grid)
      cooperative_groups::this_grid().sync();
    else
      cta::pdl_wait();
  }
  /* Thread b sums bin b's copies, starting at copy b % copies (a power of two): the lanes of a
   * warp read different banks. Consecutive threads write (or add into) consecutive bins, so a
   * warp's adds into the output reach L2 as a few wide requests, not one request per bin (one
   * lane per bin made f32/256 at 2^24 take 50 us instead of 31). */
  uint32_t *mine = partials + (size_t)blockIdx.x * bins.num_bins;
  for (uint32_t b = threadIdx.x; b < bins.num_bins; b += THREADS) {
    const uint32_t c = sum_interleaved<uint32_t>(counts + (size_t)b * copies, copies, b);
    if (gridDim.x == 1)
      out[b] = c;
    else if (fold) {
      if (c != 0)
        atomicAdd(reinterpret_cast<unsigned long long *>(out + b), (unsigned long long)c);
    } else {
      mine[b] = c;
    }
  }
  if (gridDim.x > 1 && !fold)
    cta::pdl_launch_dependents();
}

/* GLOBAL_ATOMIC, and past shared memory: adds into 64-bit counters in global memory, copy
 * blockIdx.x % copies of `base` (the output itself when copies == 1). */
template <class T, int KIND, int MODE>
__global__ void __launch_bounds__(THREADS)
    global_kernel(const T *in, uint64_t n, const cuprim__bins bins, uint64_t *base,
                  uint32_t copies) {
  extern __shared__ __align__(16) unsigned char smem[];
  const binner<T, KIND> bin(bins, smem);
  __syncthreads();
  counter<T, KIND, MODE> f(bin, base + (size_t)(blockIdx.x % copies) * bins.num_bins, 1, 0);
  cta::for_each_vec16<T, VPT>(in, n, f);
  f.flush();
  cta::pdl_launch_dependents();
}

/* ---------------------------------------------------------------- AUTO, 8-bit samples */

/* AUTO for 8-bit samples counts the 256 raw byte values, not bins: a sample costs one byte
 * extraction, one address and one shared atomic add, whatever the bins. Each lane of a warp has
 * its own column of counters (value v, lane l: counts[v * 32 + l]), so the 32 adds of a warp fall
 * in 32 different banks and never on one counter, random or constant data alike. At the end each
 * block sums its columns and adds every value's count to that value's bin (the bin formula, or
 * the search over the edges, evaluated for the 256 values): into `out`, which a small kernel has
 * zeroed, chained by programmatic dependent launch; or, for a one-block grid, through shared
 * memory into `out` directly. The bins are those of every other path (the formula and the search
 * are the same functions). */
constexpr int BYTE_THREADS = 1024;
constexpr int BYTE_VPT = 4;              /* 16-byte vectors in flight per thread */
constexpr uint32_t BYTE_FOLD_MAX = 8192; /* bins a one-block grid folds in shared memory */
/* Samples up to which one block counts them all, in one launch (bins permitting), rather than a
 * grid adding into an output zeroed by a kernel before it. H100, u8/256: one block 6.66-6.72 us
 * at 2^16 against 7.46-7.81 for the grid; 11.4 against 7.5-7.8 at 2^18. */
constexpr uint64_t BYTE_ONE_BLOCK_MAX_N = 65536;

__device__ __forceinline__ void count_byte(uint32_t *lane_col, uint32_t v) {
  atomicAdd(lane_col + (v << 5), 1u);
}
__device__ __forceinline__ void count_word(uint32_t *lane_col, uint32_t w) {
  count_byte(lane_col, w & 255u);
  count_byte(lane_col, (w >> 8) & 255u);
  count_byte(lane_col, (w >> 16) & 255u);
  count_byte(lane_col, w >> 24);
}

/* GRID_SYNC: launched cooperatively; block 0 zeroes the output while every block counts, and a
 * grid barrier orders the zeros before the fold's adds: one launch in place of the zeroing
 * kernel and the counting kernel where programmatic dependent launch cannot overlap them. */
template <class T, bool GRID_SYNC>
__global__ void __launch_bounds__(BYTE_THREADS, cta::sm_threads / BYTE_THREADS)
    bytes_kernel(const T *in, uint64_t n, const cuprim__bins bins, uint64_t *out) {
  static_assert(sizeof(T) == 1, "8-bit samples");
  __shared__ uint32_t counts[256 * 32];
  if (GRID_SYNC && blockIdx.x == 0)
    for (uint32_t i = threadIdx.x; i < bins.num_bins; i += BYTE_THREADS)
      out[i] = 0;
  for (uint32_t i = threadIdx.x; i < 256 * 32; i += BYTE_THREADS)
    counts[i] = 0;
  __syncthreads();
  uint32_t *lane_col = counts + threadIdx.x % 32;
  const uint8_t *p = reinterpret_cast<const uint8_t *>(in);
  const uint64_t gtid = (uint64_t)blockIdx.x * BYTE_THREADS + threadIdx.x;
  const uint64_t threads = (uint64_t)gridDim.x * BYTE_THREADS;
  const uint64_t mis = (uintptr_t)p % 16;
  const uint64_t head = mis == 0 ? 0 : (16 - mis < n ? 16 - mis : n);
  const uint64_t nvec = (n - head) / 16;
  const uint64_t tail_at = head + nvec * 16;
  if (gtid < head)
    count_byte(lane_col, p[gtid]);
  if (gtid < n - tail_at)
    count_byte(lane_col, p[tail_at + gtid]);
  const uint4 *v = reinterpret_cast<const uint4 *>(p + head);
  constexpr uint64_t tile = (uint64_t)BYTE_THREADS * BYTE_VPT;
  const uint64_t full_tiles = nvec / tile;
  for (uint64_t t = blockIdx.x; t < full_tiles; t += gridDim.x) {
    uint32_t w[BYTE_VPT][4];
#pragma unroll
    for (int k = 0; k < BYTE_VPT; ++k)
      cta::load_vec16<cta::LOAD_STREAM_PF>(
          reinterpret_cast<const uint32_t *>(v + t * tile + (uint64_t)k * BYTE_THREADS +
                                             threadIdx.x),
          w[k]);
#pragma unroll
    for (int k = 0; k < BYTE_VPT; ++k)
#pragma unroll
      for (int j = 0; j < 4; ++j)
        count_word(lane_col, w[k][j]);
  }
  for (uint64_t i = full_tiles * tile + gtid; i < nvec; i += threads) {
    uint32_t w[4];
    cta::load_vec16<cta::LOAD_LDG>(reinterpret_cast<const uint32_t *>(v + i), w);
#pragma unroll
    for (int j = 0; j < 4; ++j)
      count_word(lane_col, w[j]);
  }
  __syncthreads();
  /* Value threadIdx.x's count in this block, its 32 columns summed (rotated: no bank conflicts). */
  uint64_t c = 0;
  uint32_t b = NO_BIN;
  if (threadIdx.x < 256) {
    c = sum_interleaved<uint64_t>(counts + threadIdx.x * 32, 32, threadIdx.x);
    b = byte_bin<T>(threadIdx.x, bins);
  }
  if constexpr (GRID_SYNC)
    cooperative_groups::this_grid().sync(); /* block 0's zeros written and visible */
  /* Into the zeroed output, or for one block (bins.num_bins <= BYTE_FOLD_MAX) through shared
   * memory, every bin written. */
  fold_byte_values<BYTE_THREADS>(counts, c, b, out, 0, bins.num_bins,
                                 [out](uint32_t i, uint32_t v) { out[i] = v; });
}

/* ---------------------------------------------------------------- dispatch */

template <class T, int KIND>
cuprim_status count_private(const cuprim_ctx *ctx, const T *in, uint64_t n, uint64_t *out,
                            const cuprim__bins &bins, size_t table, bool fold,
                            cudaStream_t stream) {
  const uint32_t copies = smem_copies(table, private_rows(bins), sizeof(uint32_t));
  const size_t smem = table + (size_t)private_rows(bins) * copies * sizeof(uint32_t);
  /* At least a vector per thread, and 8 samples per bin where the copies go through memory
   * (8 bytes a bin to write and read back), 1 where the blocks add into the output (a block adds
   * only its non-zero bins, but zeroes and reads all of its shared counters): mid sizes get
   * enough blocks to use the GPU. */
  const uint64_t tile = (uint64_t)THREADS * (16 / sizeof(T));
  const uint64_t per_bin = (fold ? 1 : 8) * (uint64_t)bins.num_bins;
  const uint64_t min_per_block = tile > per_bin ? tile : per_bin;
  CUPRIM__FORWARD(allow_smem(private_kernel<T, KIND>, smem));
  uint64_t resident = 0;
  CUPRIM__FORWARD(resident_blocks(ctx, private_kernel<T, KIND>, smem, &resident, THREADS));
  /* Folding blocks: at most two per SM (1024 threads) below 2^26 samples, which keep the loads
   * in flight (more blocks only add more bins into the output at the end), four from 2^26 on,
   * where the output's adds are few beside the samples. H100, f32 (same run), two per SM against
   * four: 256 bins 13.12 against 14.37 us at 2^22, 29.22 against 29.76 at 2^24, 93.38 against
   * 93.28 at 2^26, 349.82 against 347.10 at 2^28; 4096 bins 17.12 against 22.66 at 2^22, 32.90
   * against 37.60 at 2^24, 95.49 against 99.42 at 2^26. After a 200 MiB memset on the stream
   * (cuprim-bench --flush memset, 2026-11-24 03:59 UTC, medians of 4 runs): 256 bins 14.43
   * against 14.88 at 2^22, 104.78 against 103.47 at 2^26, 391.01 against 374.10 at 2^28 (CUB
   * 370.91); 4096 bins 17.82 against 19.65 at 2^22, 108.74 against 107.44 at 2^26, 390.90
   * against 376.62 at 2^28. Measured on the sm_90 code only; the older class keeps the rule. */
  const uint64_t fold_per_sm = n >= FOLD_WIDE_MIN_N ? 4 : 2;
  if (fold && resident > fold_per_sm * (uint64_t)ctx->attrs.sm_count)
    resident = fold_per_sm * (uint64_t)ctx->attrs.sm_count;
  const uint64_t grid = count_grid(n, resident, min_per_block);
  if (grid == 1) {
    private_kernel<T, KIND><<<1, THREADS, smem, stream>>>(in, n, bins, copies, nullptr, out, false);
    CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
    return CUPRIM_SUCCESS;
  }
  if (fold) { /* AUTO: the blocks add into the zeroed output; no copies in memory, no sum */
    /* Without programmatic dependent launch (code before 9.0) the zeroing kernel and this one
     * run one after the other; up to GRID_ZERO_MAX_N samples one cooperative launch instead,
     * whose block 0 zeroes (the barrier needs every block resident at once). */
    if (!cuprim__pdl_supported(ctx) && n <= GRID_ZERO_MAX_N && grid <= resident) {
      cuprim__bins b = bins;
      uint32_t c = copies;
      uint32_t *no_partials = nullptr;
      bool grid_zeroes = true;
      void *args[] = {&in, &n, &b, &c, &no_partials, &out, &grid_zeroes};
      CUPRIM__CUDA_CHECK(
          cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(private_kernel<T, KIND>),
                                      dim3((unsigned)grid), dim3(THREADS), args, smem, stream));
      return CUPRIM_SUCCESS;
    }
    CUPRIM__FORWARD(launch_zero(ctx, one_target(out, bins.num_bins), stream));
    CUPRIM__CUDA_CHECK(launch_chained(ctx, (unsigned)grid, THREADS, smem, stream,
                                      private_kernel<T, KIND>, in, n, bins, copies,
                                      (uint32_t *)nullptr, out, false));
    return CUPRIM_SUCCESS;
  }
  const size_t bytes = (size_t)grid * bins.num_bins * sizeof(uint32_t);
  return with_temp(ctx, bytes, stream, [&](void *temp) {
    uint32_t *partials = static_cast<uint32_t *>(temp);
    private_kernel<T, KIND>
        <<<(unsigned)grid, THREADS, smem, stream>>>(in, n, bins, copies, partials, out, false);
    CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
    return launch_sum<uint32_t, uint64_t>(ctx, partials, (uint32_t)grid, bins.num_bins, out,
                                          stream);
  });
}

/* Counts into `copies` 64-bit copies in global memory (copies == 1 and base == out: the output
 * itself), zeroed first; copies > 1 are then summed into out. */
template <class T, int KIND, int MODE>
cuprim_status count_global(const cuprim_ctx *ctx, const T *in, uint64_t n, uint64_t *out,
                           const cuprim__bins &bins, uint32_t copies, cudaStream_t stream) {
  const size_t smem = round16(binner<T, KIND>::smem_bytes(bins));
  auto *kernel = global_kernel<T, KIND, MODE>;
  CUPRIM__FORWARD(allow_smem(kernel, smem));
  uint64_t resident = 0;
  CUPRIM__FORWARD(resident_blocks(ctx, kernel, smem, &resident, THREADS));
  const uint64_t grid = count_grid(n, resident, (uint64_t)THREADS * VPT * (16 / sizeof(T)));
  if (copies > grid)
    copies = (uint32_t)grid;
  const size_t bytes = copies > 1 ? (size_t)copies * bins.num_bins * sizeof(uint64_t) : 0;
  return with_temp(ctx, bytes, stream, [&](void *temp) {
    uint64_t *base = bytes ? static_cast<uint64_t *>(temp) : out;
    CUPRIM__CUDA_CHECK(
        cudaMemsetAsync(base, 0, (size_t)copies * bins.num_bins * sizeof(uint64_t), stream));
    kernel<<<(unsigned)grid, THREADS, smem, stream>>>(in, n, bins, base, copies);
    CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
    return bytes ? launch_sum<uint64_t, uint64_t>(ctx, base, copies, bins.num_bins, out, stream)
                 : CUPRIM_SUCCESS;
  });
}

/* AUTO for 8-bit samples (bytes_kernel). */
template <class T>
cuprim_status count_bytes(const cuprim_ctx *ctx, const T *in, uint64_t n, uint64_t *out,
                          const cuprim__bins &bins, cudaStream_t stream) {
  /* Without programmatic dependent launch (before 9.0) the zeroing kernel and the counting
   * kernel would be two launches in stream order: one cooperative launch instead. (The
   * 80-virtual build on an H100, u8/256: two launches 9.06 us at 2^18 and 9.50 at 2^20 against
   * CUB's 8.10 and 8.83; the reduce's cooperative grid there was 1.3 us faster than its two
   * launches. One cooperative launch, 2026-11-24 01:59 UTC: 7.97 and 8.19 us.) */
  const bool sync = !cuprim__pdl_supported(ctx) && bins.num_bins <= SYNC_ZERO_MAX_BINS;
  auto *kernel = sync ? bytes_kernel<T, true> : bytes_kernel<T, false>;
  uint64_t resident = 0;
  CUPRIM__FORWARD(resident_blocks(ctx, kernel, 0, &resident, BYTE_THREADS));
  /* A vector per thread at least: each block's fold (256 adds into the output) stays small
   * beside its counting. */
  uint64_t grid = count_grid(n, resident, (uint64_t)BYTE_THREADS * 16);
  if (n <= BYTE_ONE_BLOCK_MAX_N)
    grid = 1;
  if (grid == 1 && bins.num_bins <= BYTE_FOLD_MAX) {
    bytes_kernel<T, false><<<1, BYTE_THREADS, 0, stream>>>(in, n, bins, out);
    CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
    return CUPRIM_SUCCESS;
  }
  if (grid == 1)
    grid = 2; /* the fold through the zeroed output */
  /* The grid barrier needs every block resident at once. */
  if (sync && grid <= resident) {
    cuprim__bins b = bins;
    void *args[] = {&in, &n, &b, &out};
    CUPRIM__CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(kernel),
                                                   dim3((unsigned)grid), dim3(BYTE_THREADS), args,
                                                   0, stream));
    return CUPRIM_SUCCESS;
  }
  CUPRIM__FORWARD(launch_zero(ctx, one_target(out, bins.num_bins), stream));
  CUPRIM__CUDA_CHECK(launch_chained(ctx, (unsigned)grid, BYTE_THREADS, 0, stream,
                                    bytes_kernel<T, false>, in, n, bins, out));
  return CUPRIM_SUCCESS;
}

template <class T, int KIND>
cuprim_status count_with(const cuprim_ctx *ctx, cuprim_histogram_alg alg, const T *in, uint64_t n,
                         uint64_t *out, const cuprim__bins &bins, cudaStream_t stream) {
  if (alg == CUPRIM_HISTOGRAM_GLOBAL_ATOMIC)
    return count_global<T, KIND, COUNT_GLOBAL_ONE>(ctx, in, n, out, bins, 1, stream);
  if constexpr (sizeof(T) == 1)
    if (alg == CUPRIM_HISTOGRAM_AUTO)
      return count_bytes<T>(ctx, in, n, out, bins, stream);
  const size_t table = round16(binner<T, KIND>::smem_bytes(bins));
  if (table + (size_t)private_rows(bins) * sizeof(uint32_t) <=
      (size_t)ctx->attrs.smem_per_block_optin)
    return count_private<T, KIND>(ctx, in, n, out, bins, table, alg == CUPRIM_HISTOGRAM_AUTO,
                                  stream);
  if (alg == CUPRIM_HISTOGRAM_AUTO)
    return count_global<T, KIND, COUNT_GLOBAL_RUN>(ctx, in, n, out, bins, 1, stream);
  /* BLOCK_PRIVATE past shared memory: private copies in global memory, up to 64 MiB of them. */
  const uint64_t fit = ((uint64_t)64 << 20) / ((uint64_t)bins.num_bins * sizeof(uint64_t));
  const uint32_t copies = fit > 1024 ? 1024u : fit < 2 ? 2u : (uint32_t)fit;
  return count_global<T, KIND, COUNT_GLOBAL_RUN>(ctx, in, n, out, bins, copies, stream);
}

template <class T>
cuprim_status count_for_type(const cuprim_ctx *ctx, cuprim_histogram_alg alg, const void *d_in,
                             uint64_t n, uint64_t *out, const cuprim__bins &bins,
                             cudaStream_t stream) {
  const T *in = static_cast<const T *>(d_in);
  if (!bins.by_edges) {
    if constexpr (traits_int_upto32<T>::value)
      if (bins.shift >= 0 && (sizeof(T) == 4 || (bins.lower_int >= -(INT64_C(1) << 30) &&
                                                 bins.upper_ceil <= (INT64_C(1) << 30))))
        return count_with<T, BIN_SHIFT>(ctx, alg, in, n, out, bins, stream);
    if constexpr (sizeof(T) == 1)
      return count_with<T, BIN_LUT8>(ctx, alg, in, n, out, bins, stream);
    else
      return count_with<T, BIN_EVEN>(ctx, alg, in, n, out, bins, stream);
  }
  /* Edges in shared memory when they fit beside the counters (or, past the counters' room, on
   * their own); otherwise searched in global memory (through L1). */
  const size_t edges = binner<T, BIN_EDGES_SMEM>::smem_bytes(bins);
  const size_t counters = (size_t)bins.num_bins * sizeof(uint32_t);
  const size_t optin = (size_t)ctx->attrs.smem_per_block_optin;
  const bool counters_fit = counters <= optin;
  if ((counters_fit && edges + counters <= optin) || (!counters_fit && edges <= optin / 2))
    return count_with<T, BIN_EDGES_SMEM>(ctx, alg, in, n, out, bins, stream);
  return count_with<T, BIN_EDGES_GLOBAL>(ctx, alg, in, n, out, bins, stream);
}

} // namespace
} // namespace cuprim::histogram

extern "C" cuprim_status cuprim__histogram_count(const cuprim_ctx *ctx, cuprim_histogram_alg alg,
                                                 const void *d_samples, uint64_t n,
                                                 cuprim_dtype dtype, uint64_t *d_counts,
                                                 const cuprim__bins *bins, cudaStream_t stream) {
  return cuprim::dispatch_dtype<cuprim::HISTOGRAM_TYPES>(dtype, [&](auto t) {
    using T = typename decltype(t)::type;
    return cuprim::histogram::count_for_type<T>(ctx, alg, d_samples, n, d_counts, *bins, stream);
  });
}
