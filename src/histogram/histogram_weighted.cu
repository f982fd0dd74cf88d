/* cuprim_histogram_even_weighted(_ex): each counted sample adds its weight (F32 or F64, summed in
 * double) to its bin.
 *
 * Samples and weights are read in *groups*: group g is elements [g * VEC, g * VEC + VEC) of both
 * arrays, VEC = 16 / sizeof(sample) (one 16-byte vector of samples, and as many bytes of weights
 * as that takes), counted from the first element whatever the alignment: a 16-byte aligned array
 * is read with vector loads, any other one element by element, the same elements in the same
 * groups. Every sample's bin is the formula of cuprim_histogram_even (histogram_bin.cuh's binners:
 * a 256-entry table for 8-bit samples, the formula itself for the others).
 *
 *   AUTO (weighted_private_kernel) each block adds the weights into its own copy of the sums in
 *        shared memory (up to 16 interleaved copies, lane l adding into copy l % copies, so that a
 *        half-warp's 64-bit adds fall in different banks), with runs of groups whose samples all
 *        fall in one bin summed in registers first; then it adds its sums into the output, zeroed
 *        by a kernel it is chained to by programmatic dependent launch, or, as a one-block grid,
 *        writes them. F32 weights are added as 64-bit fixed-point integers, exactly, those of a
 *        window of exponents that the block picks from a sample of its weights (fixed_window:
 *        two native 32-bit adds a weight), the others as doubles; F64 weights, or F32 weights
 *        whose two kinds of sums do not fit, as doubles (a compare-and-swap loop a weight on an
 *        H100). Past shared memory: one double atomic per sample into the zeroed output. The
 *        order of the atomics varies, so the last bits of a sum can vary between runs.
 *   FIXED_ORDER (weighted_ordered_kernel) each warp adds into a copy of the sums that only it
 *        touches (in shared memory, or in temporary global memory when even one warp's copy does
 *        not fit), one sample per lane at a time: the lanes whose samples share a bin are found
 *        (__match_any_sync), the lowest of them adds their weights in lane order and then adds
 *        that into the warp's copy (a plain load, add and store: no other lane or warp writes it
 *        meanwhile). A block then sums its warps' copies in warp order into its partial sums, and
 *        sum_copies_kernel sums the blocks' partials in a fixed order. Which samples a warp sees,
 *        and in which order, depends on the grid, which follows the GPU's SM count and the
 *        kernel's occupancy: the same bits on every run on one GPU (docs/determinism.md). */
#include <type_traits>

#include "common/check.h"
#include "common/dispatch.cuh"
#include "common/launch_config.cuh"
#include "cta/arch.cuh"
#include "cta/load.cuh"
#include "cta/ops.cuh"
#include "cta/warp_reduce.cuh"
#include "histogram_bin.cuh"
#include "histogram_fold.cuh"
#include "histogram_internal.h"

namespace cuprim::histogram {
namespace {

constexpr int THREADS = 512;         /* AUTO's blocks */
constexpr int ORDERED_MAX_WARPS = 8; /* FIXED_ORDER's blocks: up to 8 warps, one copy each */
/* AUTO's copies of the sums in shared memory: at most this many bytes of them (see below). */
constexpr size_t WEIGHTED_SMEM_MAX = 100 * 1024;
/* FIXED_ORDER's warp copies in global memory (sums too many for one copy in shared memory): at
 * most this many bytes of them, so at most this / (8 * num_bins) warps. */
constexpr uint64_t ORDERED_GLOBAL_BYTES = (uint64_t)256 << 20;

template <class T, class W> struct weighted_group {
  static constexpr int VEC = 16 / (int)sizeof(T);
  static constexpr int WEIGHT_BYTES = VEC * (int)sizeof(W); /* 8 to 128 */
  /* Groups in flight per thread: about 128 bytes of samples and weights. */
  static constexpr int BY_BYTES = 128 / (16 + WEIGHT_BYTES);
  static constexpr int IN_FLIGHT = BY_BYTES < 1 ? 1 : BY_BYTES > 4 ? 4 : BY_BYTES;
};

/* Group g of the samples and weights into x and w: `count` valid elements (VEC for a whole
 * group, fewer for the last one, 0 past it; the others are left as zeros). Vector loads where the
 * array is 16-byte aligned (vx, vw), else one element at a time. */
template <cta::load_mode M, class T, class W, int VEC>
__device__ __forceinline__ int load_group(const T *in, const W *wt, uint64_t n, uint64_t g, bool vx,
                                          bool vw, T (&x)[VEC], W (&w)[VEC]) {
  const uint64_t at = g * VEC;
  if (at >= n)
    return 0;
  if (n - at < (uint64_t)VEC) {
    const int count = (int)(n - at);
#pragma unroll
    for (int j = 0; j < VEC; ++j)
      if (j < count) {
        x[j] = in[at + j];
        w[j] = wt[at + j];
      }
    return count;
  }
  if (vx) {
    cta::load_vec16<M>(in + at, x);
  } else {
#pragma unroll
    for (int j = 0; j < VEC; ++j)
      x[j] = in[at + j];
  }
  constexpr int WV = VEC * (int)sizeof(W) / 16; /* 16-byte vectors of weights (0: 8 bytes) */
  if (WV > 0 && vw) {
#pragma unroll
    for (int k = 0; k < (WV > 0 ? WV : 1); ++k) {
      W part[16 / sizeof(W)];
      cta::load_vec16<M>(wt + at + (uint64_t)k * (16 / sizeof(W)), part);
#pragma unroll
      for (int j = 0; j < (int)(16 / sizeof(W)); ++j)
        w[k * (16 / sizeof(W)) + j] = part[j];
    }
  } else {
#pragma unroll
    for (int j = 0; j < VEC; ++j)
      w[j] = wt[at + j];
  }
  return VEC;
}

/* Group g, whole, of 16-byte aligned samples and weights (WEIGHT_BYTES a multiple of 16). */
template <cta::load_mode M, class T, class W, int VEC>
__device__ __forceinline__ void load_whole_group(const T *in, const W *wt, uint64_t g, T (&x)[VEC],
                                                 W (&w)[VEC]) {
  constexpr int PER = 16 / (int)sizeof(W); /* weights a vector */
  cta::load_vec16<M>(in + g * VEC, x);
#pragma unroll
  for (int k = 0; k < VEC / PER; ++k) {
    W part[PER];
    cta::load_vec16<M>(wt + g * VEC + (uint64_t)k * PER, part);
#pragma unroll
    for (int j = 0; j < PER; ++j)
      w[k * PER + j] = part[j];
  }
}

/* Calls f.group(x, w, count) for every group of the samples and weights, IN_FLIGHT groups in
 * flight per thread (warp-striped: coalesced). Every thread of a block makes the same number of
 * calls (count 0 for groups past the end), so the warps are converged in f.group. A tile of whole
 * groups of aligned arrays is read without the tests of load_group (about 10 instructions a
 * sample of the f32 weighted kernels, whose issue slots bound them). */
template <class T, class W, class F>
__device__ __forceinline__ void for_each_weighted(const T *in, const W *wt, uint64_t n, F &f) {
  using G = weighted_group<T, W>;
  const bool vx = cta::aligned16(in);
  const bool vw = G::WEIGHT_BYTES % 16 == 0 && cta::aligned16(wt);
  const uint64_t groups = (n + G::VEC - 1) / G::VEC;
  const uint64_t tile = (uint64_t)blockDim.x * G::IN_FLIGHT;
  /* Tiles below this group are whole (every group in them has VEC elements). */
  const uint64_t whole_end = vx && vw ? n / G::VEC : 0;
  for (uint64_t base = (uint64_t)blockIdx.x * tile; base < groups;
       base += (uint64_t)gridDim.x * tile) {
    T x[G::IN_FLIGHT][G::VEC] = {};
    W w[G::IN_FLIGHT][G::VEC] = {};
    int count[G::IN_FLIGHT];
    if (G::WEIGHT_BYTES % 16 == 0 && base + tile <= whole_end) {
#pragma unroll
      for (int k = 0; k < G::IN_FLIGHT; ++k) {
        load_whole_group<cta::LOAD_STREAM_PF>(in, wt, base + (uint64_t)k * blockDim.x + threadIdx.x,
                                              x[k], w[k]);
        count[k] = G::VEC;
      }
    } else {
#pragma unroll
      for (int k = 0; k < G::IN_FLIGHT; ++k)
        count[k] = load_group<cta::LOAD_STREAM_PF>(
            in, wt, n, base + (uint64_t)k * blockDim.x + threadIdx.x, vx, vw, x[k], w[k]);
    }
#pragma unroll
    for (int k = 0; k < G::IN_FLIGHT; ++k)
      f.group(x[k], w[k], count[k]);
  }
}

/* ---------------------------------------------------------------- AUTO */

/* Where AUTO's blocks add the weights: into the zeroed output, one double atomic a sample
 * (SUMS_GLOBAL: sums too many for shared memory); into copies of the sums in shared memory, as
 * doubles (SUMS_DOUBLE); or, for F32 weights, as 64-bit fixed-point integers, with copies of double
 * sums beside them for the weights outside the block's window (SUMS_FIXED, below). */
enum sums_at { SUMS_GLOBAL, SUMS_DOUBLE, SUMS_FIXED };

/* SUMS_FIXED's window. A block adds each F32 weight w that is an integer number t of units 2^U
 * with |t| < 2^(24 + span) as that integer, exactly, into 64-bit words (shared_add_low and
 * shared_add_high: two native 32-bit adds, where a double add in shared memory is a
 * compare-and-swap loop); every weight whose exponent lies in [U + 23, U + 23 + span] is one (a
 * float is its 24-bit significand times a power of two), and so is zero. t = w * 2^-U is exact
 * (U <= 0: a scaling up, never rounded to zero; an overflow gives infinity, outside), the test two
 * compares of t with its truncation and the limit, and t's integer one conversion. span keeps a
 * block's sum below 2^63 units whatever its weights: at most N of them (N <= 2^h), each below
 * 2^(24 + span), so span = 39 - h (no window past h = 39). The window's top is 2^WINDOW_HEADROOM
 * times the largest of a sample of the block's weights (one a thread, the first of its first
 * group, before the block starts); U is kept in [-127, 0] (2^-U a float). The weights outside the
 * window, infinities and NaNs are added as doubles. At the end a bin's integer sum is converted to
 * double (exact below 2^53 units, else one rounding) and added to its double sum, so every sum
 * keeps histogram.h's bound (docs/determinism.md). */
constexpr uint32_t WINDOW_HEADROOM = 2;

struct fixed_window {
  float scale = 1.0f, limit = 0.0f; /* 2^-U and 2^(24 + span); limit 0: no window */
  int unit = 0;                     /* U */

  /* The window of a block that adds at most per_block weights, the largest exponent field of its
   * sample being top_e (0: none finite and nonzero). */
  __device__ __forceinline__ static fixed_window choose(uint32_t top_e, uint64_t per_block) {
    const int h = per_block <= 1 ? 0 : 64 - __clzll((long long)(per_block - 1));
    fixed_window f;
    if (h > 39)
      return f;
    const int span = 39 - h;
    /* The exponent field of the window's lowest weight of 24 significant bits: U + 150. */
    int e0 = (int)(top_e < 1 ? 1 : top_e) + (int)WINDOW_HEADROOM - span;
    e0 = e0 < 23 ? 23 : e0 > 150 ? 150 : e0;
    f.unit = e0 - 150;
    f.scale = __int_as_float((127 - f.unit) << 23);
    f.limit = __int_as_float((127 + 24 + span) << 23);
    return f;
  }
  /* w as an integer of units (two's complement) into v, if it is one below the limit; else
   * v = 0. */
  __device__ __forceinline__ bool to_fixed(float w, uint64_t &v) const {
    const float t = w * scale;
    const bool in = truncf(t) == t && fabsf(t) < limit;
    v = in ? (uint64_t)__float2ll_rz(t) : 0;
    return in;
  }
  /* A sum of integers of units, as a double. */
  __device__ __forceinline__ double to_double(uint64_t sum) const {
    return __ll2double_rn((long long)sum) * __longlong_as_double((long long)(unit + 1023) << 52);
  }
};

/* Adds weights into the block's shared copies (SUMS_DOUBLE: sums[b * copies + slot], at0 the
 * shared address of this lane's sum of bin 0; SUMS_FIXED: at0 that of its integer sum of bin 0,
 * and its double sum `doubles` bytes after it, after a spare row where the double adds of samples
 * of no bin go, without a test; the integer sums keep a spare row too, unused, so that both arrays
 * index alike) or into the output (SUMS_GLOBAL). SUMS_FIXED's integer adds of samples of no bin go
 * to a word of the lane's own (lane_spare): into a spare row shared by the lanes of a copy, the
 * adds of one warp's uncounted samples queued on one word (4096 bins, one copy, f32 samples at
 * 2^28 of which 30% and 70% are out of range: 781 and 1073 us, against 536 with none; with a word
 * a lane 535 and 537; H200, 2026-11-29). A group whose samples all fall in one bin extends the
 * thread's pending run instead (a double sum), added when the run's bin changes and at the end. */
template <class T, class W, int KIND, int AT> struct atomic_adder {
  static constexpr int VEC = weighted_group<T, W>::VEC;
  const binner<T, KIND> &bin;
  double *out;
  uint32_t at0, stride, doubles;
  fixed_window win;
  uint32_t lane_spare; /* SUMS_FIXED: this lane's own word for the integer adds of no bin */
  bin_run<double> run;

  /* A double into bin b (never NO_BIN for SUMS_DOUBLE and SUMS_GLOBAL). */
  __device__ __forceinline__ void add(uint32_t b, double s) const {
    if constexpr (AT == SUMS_GLOBAL)
      atomicAdd(out + b, s);
    else
      asm volatile("red.shared.add.f64 [%0], %1;" ::"r"(at0 + doubles + b * stride), "d"(s)
                   : "memory");
  }
  /* One sample's weight into bin b (NO_BIN: nothing), SUMS_DOUBLE or SUMS_GLOBAL. The shared
   * adds are predicated, as histogram_bin.cuh's counting add, for the same reason. */
  __device__ __forceinline__ void add_weight(uint32_t b, W w) const {
    if constexpr (AT == SUMS_DOUBLE) {
      asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %0, %1;\n\t"
                   "@p red.shared.add.f64 [%2], %3;\n\t}" ::"r"(b),
                   "r"(NO_BIN), "r"(at0 + b * stride), "d"((double)w)
                   : "memory");
    } else if (b != NO_BIN) {
      atomicAdd(out + b, (double)w);
    }
  }
  __device__ __forceinline__ void group(const T (&x)[VEC], const W (&w)[VEC], int count) {
    uint32_t b[VEC];
    bool same = true;
#pragma unroll
    for (int j = 0; j < VEC; ++j) {
      const uint32_t bj = bin(x[j]); /* past count: of a zero, then not counted (no branch) */
      b[j] = j < count ? bj : NO_BIN;
      same = same && b[j] == b[0];
    }
    if (same) {
      if (b[0] == NO_BIN)
        return;
      double s = (double)w[0];
#pragma unroll
      for (int j = 1; j < VEC; ++j)
        s += (double)w[j];
      run.extend(b[0], s, *this);
      return;
    }
    if constexpr (AT == SUMS_FIXED) {
      /* Every sample's integer add (zero for a weight outside the window; NO_BIN: into
       * lane_spare), the VEC low words first, so that their returns are awaited together; then
       * the weights outside the window as doubles. */
      uint64_t v[VEC];
      uint32_t old[VEC];
      bool outside = false;
#pragma unroll
      for (int j = 0; j < VEC; ++j) {
        outside = !win.to_fixed(w[j], v[j]) || outside;
        old[j] = shared_add_low(b[j] == NO_BIN ? lane_spare : at0 + b[j] * stride, v[j]);
      }
#pragma unroll
      for (int j = 0; j < VEC; ++j)
        shared_add_high(b[j] == NO_BIN ? lane_spare : at0 + b[j] * stride, old[j], v[j]);
      if (outside) {
#pragma unroll
        for (int j = 0; j < VEC; ++j) {
          uint64_t unused;
          if (!win.to_fixed(w[j], unused))
            add(b[j], (double)w[j]);
        }
      }
    } else {
#pragma unroll
      for (int j = 0; j < VEC; ++j)
        add_weight(b[j], w[j]);
    }
  }
  __device__ __forceinline__ void flush() const { run.finish(*this); }
};

/* The samples and weights a block of the weighted kernels takes at most (for_each_weighted). */
template <class T, class W> __device__ __forceinline__ uint64_t per_block_bound(uint64_t n) {
  using G = weighted_group<T, W>;
  const uint64_t groups = (n + G::VEC - 1) / G::VEC;
  const uint64_t tile = (uint64_t)blockDim.x * G::IN_FLIGHT, step = (uint64_t)gridDim.x * tile;
  return (groups + step - 1) / step * tile * G::VEC;
}

/* AUTO. SUMS_DOUBLE and SUMS_FIXED: sums into `copies` interleaved copies in shared memory (after
 * a spare row of copies), then each block adds its non-zero sums into `out` (zeroed by the kernel
 * this one is chained to), or a one-block grid writes them. SUMS_GLOBAL: double atomics straight
 * into the zeroed output. */
template <class T, class W, int KIND, int AT>
__global__ void __launch_bounds__(THREADS)
    weighted_private_kernel(const T *in, const W *wt, uint64_t n, const cuprim__bins bins,
                            uint32_t copies, double *out) {
  extern __shared__ __align__(16) unsigned char smem[];
  const size_t table = round16(binner<T, KIND>::smem_bytes(bins));
  const uint32_t spare = SPARE_ROWS * copies, slots = (bins.num_bins + SPARE_ROWS) * copies;
  /* SUMS_DOUBLE: the double sums; SUMS_FIXED: the integer sums, the double ones after them, the
   * warps' largest exponent fields and the lanes' spare words (FIXED_EXTRA). */
  uint64_t *const sums = reinterpret_cast<uint64_t *>(smem + table);
  double *const dsums = reinterpret_cast<double *>(sums + (AT == SUMS_FIXED ? slots : 0));
  uint32_t *const warp_top = reinterpret_cast<uint32_t *>(dsums + slots);
  if constexpr (AT == SUMS_FIXED) {
    using G = weighted_group<T, W>;
    const uint64_t first = ((uint64_t)blockIdx.x * THREADS * G::IN_FLIGHT + threadIdx.x) * G::VEC;
    uint32_t e = 0;
    if (first < n) {
      e = (__float_as_uint((float)wt[first]) >> 23) & 0xffu;
      e = e == 0xffu ? 0u : e;
    }
    e = cta::warp_reduce(e, op<uint32_t, CUPRIM_MAX>());
    if (threadIdx.x % 32 == 0)
      warp_top[threadIdx.x / 32] = e;
  }
  if constexpr (AT != SUMS_GLOBAL) {
    const uint32_t words = AT == SUMS_FIXED ? 2 * slots : slots;
    for (uint32_t i = threadIdx.x; i < words; i += THREADS)
      sums[i] = 0; /* also +0.0 */
  }
  const binner<T, KIND> bin(bins, smem);
  __syncthreads();
  if constexpr (AT == SUMS_GLOBAL)
    cta::pdl_wait(); /* every add goes to the zeroed output */
  fixed_window win;
  if constexpr (AT == SUMS_FIXED) {
    uint32_t top = 0;
#pragma unroll
    for (int k = 0; k < THREADS / 32; ++k)
      top = warp_top[k] > top ? warp_top[k] : top;
    win = fixed_window::choose(top, per_block_bound<T, W>(n));
  }
  const uint32_t slot = (threadIdx.x % 32) % copies;
  atomic_adder<T, W, KIND, AT> f{bin,
                                 out,
                                 (uint32_t)__cvta_generic_to_shared(sums + spare + slot),
                                 (uint32_t)(sizeof(uint64_t) * copies),
                                 AT == SUMS_FIXED ? (uint32_t)(sizeof(uint64_t) * slots) : 0u,
                                 win,
                                 (uint32_t)__cvta_generic_to_shared(warp_top + THREADS / 32) +
                                     (threadIdx.x % 32) * (uint32_t)sizeof(uint64_t)};
  for_each_weighted(in, wt, n, f);
  f.flush();
  if constexpr (AT != SUMS_GLOBAL) {
    wait_copies_done();
    /* Thread b sums bin b's copies from copy b % copies on; a sum of +0.0 (no weight, or weights
     * that cancel) adds nothing, a NaN is added. */
    for (uint32_t b = threadIdx.x; b < bins.num_bins; b += THREADS) {
      double s = sum_interleaved<double>(dsums + spare + (size_t)b * copies, copies, b);
      if constexpr (AT == SUMS_FIXED)
        s += win.to_double(sum_interleaved<uint64_t>(sums + spare + (size_t)b * copies, copies, b));
      if (gridDim.x == 1)
        out[b] = s;
      else if (s != 0.0 || s != s)
        atomicAdd(out + b, s);
    }
  }
}

/* ---------------------------------------------------------------- FIXED_ORDER */

/* Adds weights into this warp's own copy of the sums, `mine`, one sample per lane at a time and
 * in a fixed order: for each step, the lanes whose samples share a bin are found, the lowest of
 * them sums their weights in lane order, and adds the sum into mine[bin] with a plain load, add
 * and store. Every lane of the warp must call group() together. */
template <class T, class W, int KIND> struct ordered_adder {
  static constexpr int VEC = weighted_group<T, W>::VEC;
  const binner<T, KIND> &bin;
  double *mine;

  __device__ __forceinline__ void add(uint32_t b, double v) const {
    const unsigned lane = threadIdx.x % 32;
    const unsigned peers = __match_any_sync(cta::full_mask, b);
    const bool leader = (peers & ((1u << lane) - 1u)) == 0u;
    /* The leader of a group of counted samples takes its peers' weights, lowest lane first. */
    unsigned rest = leader && b != NO_BIN ? peers & (peers - 1u) : 0u;
    double s = v;
    while (__any_sync(cta::full_mask, rest != 0u)) {
      const int src = rest != 0u ? __ffs(rest) - 1 : (int)lane;
      const double o = __shfl_sync(cta::full_mask, v, src);
      if (rest != 0u) {
        s += o;
        rest &= rest - 1u;
      }
    }
    if (leader && b != NO_BIN)
      mine[b] += s; /* the leaders' bins differ: no two lanes touch one sum */
    __syncwarp();   /* this step's sums written before the next step's lanes read them */
  }
  __device__ __forceinline__ void group(const T (&x)[VEC], const W (&w)[VEC], int count) const {
#pragma unroll
    for (int j = 0; j < VEC; ++j)
      add(j < count ? bin(x[j]) : NO_BIN, (double)w[j]);
  }
};

/* FIXED_ORDER. Each warp sums into its own copy: in shared memory after the binner's table
 * (global_copies == nullptr), or global_copies + warp * num_bins (one warp a block). Then the
 * block sums its warps' copies in warp order: into out for a one-block grid, else into
 * partials[blockIdx.x * num_bins + b] (which may be the block's own global copy). */
template <class T, class W, int KIND>
__global__ void __launch_bounds__(ORDERED_MAX_WARPS * 32)
    weighted_ordered_kernel(const T *in, const W *wt, uint64_t n, const cuprim__bins bins,
                            double *global_copies, double *partials, double *out) {
  extern __shared__ __align__(16) unsigned char smem[];
  const size_t table = round16(binner<T, KIND>::smem_bytes(bins));
  const uint32_t warps = blockDim.x / 32, warp = threadIdx.x / 32;
  const uint32_t nb = bins.num_bins;
  double *const copies = global_copies ? global_copies + (size_t)blockIdx.x * warps * nb
                                       : reinterpret_cast<double *>(smem + table);
  double *const mine = copies + (size_t)warp * nb;
  for (uint32_t b = threadIdx.x % 32; b < nb; b += 32)
    mine[b] = 0.0;
  const binner<T, KIND> bin(bins, smem);
  __syncthreads();
  const ordered_adder<T, W, KIND> f{bin, mine};
  for_each_weighted(in, wt, n, f);
  __syncthreads();
  for (uint32_t b = threadIdx.x; b < nb; b += blockDim.x) {
    double s = copies[b];
    for (uint32_t k = 1; k < warps; ++k)
      s += copies[(size_t)k * nb + b];
    if (gridDim.x == 1)
      out[b] = s;
    else
      partials[(size_t)blockIdx.x * nb + b] = s;
  }
}

/* ---------------------------------------------------------------- dispatch */

/* Launches weighted_private_kernel<AT> with `copies` copies of the sums in `smem` bytes: after the
 * zeroing kernel, or alone as a one-block grid, which writes the output. */
template <class T, class W, int KIND, int AT>
cuprim_status launch_private(const cuprim_ctx *ctx, const T *in, const W *wt, uint64_t n,
                             double *out, const cuprim__bins &bins, uint32_t copies, size_t smem,
                             cudaStream_t stream) {
  auto *kernel = weighted_private_kernel<T, W, KIND, AT>;
  CUPRIM__FORWARD(allow_smem(kernel, smem));
  uint64_t resident = 0;
  CUPRIM__FORWARD(resident_blocks(ctx, kernel, smem, &resident, THREADS));
  const uint64_t tile = (uint64_t)THREADS * weighted_group<T, W>::VEC;
  if constexpr (AT == SUMS_GLOBAL) {
    const uint64_t grid = count_grid(n, resident, tile);
    CUPRIM__FORWARD(launch_zero(ctx, one_target(out, bins.num_bins), stream));
    CUPRIM__CUDA_CHECK(launch_chained(ctx, (unsigned)grid, THREADS, smem, stream, kernel, in, wt, n,
                                      bins, 1u, out));
    return CUPRIM_SUCCESS;
  }
  /* As the counting kernels' folding blocks (histogram_count.cu) below 2^26 samples: at most two
   * per SM, each with a vector of samples per thread and a sample per bin at least. Provisional
   * for weights (four per SM, which AUTO takes from 2^26 on, not measured here). */
  if (resident > 2 * (uint64_t)ctx->attrs.sm_count)
    resident = 2 * (uint64_t)ctx->attrs.sm_count;
  const uint64_t grid = count_grid(n, resident, tile > bins.num_bins ? tile : bins.num_bins);
  if (grid == 1) {
    kernel<<<1, THREADS, smem, stream>>>(in, wt, n, bins, copies, out);
    CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
    return CUPRIM_SUCCESS;
  }
  CUPRIM__FORWARD(launch_zero(ctx, one_target(out, bins.num_bins), stream));
  CUPRIM__CUDA_CHECK(launch_chained(ctx, (unsigned)grid, THREADS, smem, stream, kernel, in, wt, n,
                                    bins, copies, out));
  return CUPRIM_SUCCESS;
}

/* SUMS_FIXED's shared memory after its copies of the integer and the double sums: the warps'
 * largest exponent fields and a spare word for each lane. */
constexpr size_t FIXED_EXTRA = THREADS / 32 * sizeof(uint32_t) + 32 * sizeof(uint64_t);

template <class T, class W, int KIND>
cuprim_status weighted_auto(const cuprim_ctx *ctx, const T *in, const W *wt, uint64_t n,
                            double *out, const cuprim__bins &bins, cudaStream_t stream) {
  const size_t table = round16(binner<T, KIND>::smem_bytes(bins));
  const size_t optin = (size_t)ctx->attrs.smem_per_block_optin;
  /* Up to 16 copies: a 64-bit shared access is served a half-warp at a time, and 16 copies keep
   * each half-warp's adds in different banks (more would only take more memory). And up to
   * WEIGHTED_SMEM_MAX bytes of them (and what the device allows), more than the 48 KB that
   * smem_copies gives the counting kernels: more copies, fewer lanes on one sum.
   *
   * F32 weights: SUMS_FIXED, where its sums fit. The double adds of SUMS_DOUBLE are its
   * bottleneck (the sm_90 SASS of red.shared.add.f64 is a compare-and-swap loop,
   * ATOMS.CAST.SPIN.64): H100, f32 samples and weights, 4096 bins at 2^28 (2026-11-24 04:20 UTC,
   * two runs each), 998.0 and 1000.2 us with one copy (48 KB), 949.2 and 949.6 with two (64 KB),
   * where the read takes 697 us. */
  const size_t most = optin < WEIGHTED_SMEM_MAX ? optin : WEIGHTED_SMEM_MAX;
  const uint64_t rows = private_rows(bins);
  /* The copies of rows of `bytes` each after `before` bytes: as many as fit in `most`, up to 16. */
  const auto copies_of = [&](size_t before, size_t bytes) {
    const uint32_t c = smem_copies(before, rows, bytes, most);
    return c > 16 ? 16u : c;
  };
  if constexpr (std::is_same<W, float>::value) {
    const size_t bytes = 2 * sizeof(uint64_t); /* an integer and a double sum */
    const uint32_t copies = copies_of(table + FIXED_EXTRA, bytes);
    const size_t smem = table + FIXED_EXTRA + (size_t)rows * copies * bytes;
    if (smem <= optin)
      return launch_private<T, W, KIND, SUMS_FIXED>(ctx, in, wt, n, out, bins, copies, smem,
                                                    stream);
  }
  if (table + (size_t)rows * sizeof(double) > optin) /* past shared memory */
    return launch_private<T, W, KIND, SUMS_GLOBAL>(ctx, in, wt, n, out, bins, 1u, table, stream);
  const uint32_t copies = copies_of(table, sizeof(double));
  return launch_private<T, W, KIND, SUMS_DOUBLE>(
      ctx, in, wt, n, out, bins, copies, table + (size_t)rows * copies * sizeof(double), stream);
}

template <class T, class W, int KIND>
cuprim_status weighted_fixed_order(const cuprim_ctx *ctx, const T *in, const W *wt, uint64_t n,
                                   double *out, const cuprim__bins &bins, cudaStream_t stream) {
  using G = weighted_group<T, W>;
  auto *kernel = weighted_ordered_kernel<T, W, KIND>;
  const size_t table = round16(binner<T, KIND>::smem_bytes(bins));
  const size_t optin = (size_t)ctx->attrs.smem_per_block_optin;
  const size_t copy_bytes = (size_t)bins.num_bins * sizeof(double);
  /* As many warps a block as copies fit in shared memory (up to 8); none: one warp a block, its
   * copy in global memory. */
  const uint64_t fit = table + copy_bytes <= optin ? (optin - table) / copy_bytes : 0;
  const bool in_smem = fit > 0;
  const unsigned warps =
      in_smem ? (unsigned)(fit < ORDERED_MAX_WARPS ? fit : ORDERED_MAX_WARPS) : 1;
  const unsigned threads = 32 * warps;
  const size_t smem = table + (in_smem ? copy_bytes * warps : 0);
  CUPRIM__FORWARD(allow_smem(kernel, smem));
  uint64_t resident = 0;
  CUPRIM__FORWARD(resident_blocks(ctx, kernel, smem, &resident, threads));
  const uint64_t per_bin = bins.num_bins, tile = (uint64_t)threads * G::VEC;
  uint64_t grid = count_grid(n, resident, tile > per_bin ? tile : per_bin);
  if (!in_smem) {
    const uint64_t most = ORDERED_GLOBAL_BYTES / copy_bytes;
    grid = grid < most ? grid : most > 0 ? most : 1;
  }
  const size_t partial_bytes = grid > 1 || !in_smem ? (size_t)grid * copy_bytes : 0;
  return with_temp(ctx, partial_bytes, stream, [&](void *temp) {
    double *partials = static_cast<double *>(temp);
    kernel<<<(unsigned)grid, threads, smem, stream>>>(in, wt, n, bins, in_smem ? nullptr : partials,
                                                      partials, out);
    CUPRIM__CUDA_CHECK(cudaPeekAtLastError());
    return grid > 1 ? launch_sum<double, double>(ctx, partials, (uint32_t)grid, bins.num_bins, out,
                                                 stream)
                    : CUPRIM_SUCCESS;
  });
}

template <class T, class W>
cuprim_status weighted_for_types(const cuprim_ctx *ctx, cuprim_histogram_weighted_alg alg,
                                 const void *d_in, const void *d_weights, uint64_t n, double *out,
                                 const cuprim__bins &bins, cudaStream_t stream) {
  const T *in = static_cast<const T *>(d_in);
  const W *wt = static_cast<const W *>(d_weights);
  /* 8-bit samples look their bin up in a 256-entry table; the others compute the formula (the
   * integer shift of the counting kernels is left out: fewer kernels, and weights are mostly
   * given with float samples). */
  constexpr int KIND = sizeof(T) == 1 ? BIN_LUT8 : BIN_EVEN;
  if (alg == CUPRIM_HISTOGRAM_WEIGHTED_FIXED_ORDER)
    return weighted_fixed_order<T, W, KIND>(ctx, in, wt, n, out, bins, stream);
  return weighted_auto<T, W, KIND>(ctx, in, wt, n, out, bins, stream);
}

} // namespace
} // namespace cuprim::histogram

extern "C" cuprim_status cuprim__histogram_weighted(const cuprim_ctx *ctx,
                                                    cuprim_histogram_weighted_alg alg,
                                                    const void *d_samples, const void *d_weights,
                                                    uint64_t n, cuprim_dtype dtype,
                                                    cuprim_dtype weight_dtype, double *d_sums,
                                                    const cuprim__bins *bins, cudaStream_t stream) {
  return cuprim::dispatch_dtype<cuprim::HISTOGRAM_TYPES>(dtype, [&](auto t) {
    using T = typename decltype(t)::type;
    if (weight_dtype == CUPRIM_F64)
      return cuprim::histogram::weighted_for_types<T, double>(ctx, alg, d_samples, d_weights, n,
                                                              d_sums, *bins, stream);
    return cuprim::histogram::weighted_for_types<T, float>(ctx, alg, d_samples, d_weights, n,
                                                           d_sums, *bins, stream);
  });
}
