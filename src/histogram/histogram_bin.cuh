/* The bin of a sample, on the device: the binners every histogram kernel is templated on, and
 * the traversal of the samples that they share.
 *
 * Binners (KIND):
 *   BIN_EVEN          the formula of histogram.h in double, per sample
 *   BIN_SHIFT         8- to 32-bit integer samples and whole bins 2^shift wide from a whole
 *                     number (cuprim__bins.shift): a subtraction and a shift, the same bins
 *   BIN_LUT8          8-bit samples: the formula evaluated once for each of the 256 values into
 *                     a table in shared memory, then one table read per sample (same bins)
 *   BIN_EDGES_SMEM    binary search over the edges, copied to shared memory
 *   BIN_EDGES_GLOBAL  binary search over the edges in global memory (too many for shared)
 * Each takes `smem_bytes` of the kernel's dynamic shared memory, filled by `setup` (the caller
 * synchronizes the block before the first lookup). The traversal of the samples is
 * cta::for_each_vec16 (cta/for_each.cuh), which reduce's arg-reduce shares. */
#ifndef CUPRIM_HISTOGRAM_BIN_CUH
#define CUPRIM_HISTOGRAM_BIN_CUH

#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "common/temp_memory.cuh"
#include "cta/ops.cuh"
#include "histogram_internal.h"

namespace cuprim::histogram {

constexpr uint32_t NO_BIN = 0xffffffffu; /* not counted; num_bins - 1 is at most 0xfffffffe */

enum bin_kind { BIN_EVEN, BIN_LUT8, BIN_EDGES_SMEM, BIN_EDGES_GLOBAL, BIN_SHIFT };

/* min((uint64_t)v, last) for the v of the bin formula, 0 <= v < 2^32 (x in [lower, upper): v is
 * at most num_bins and a few ulps). The truncation is one double add instead of a conversion to
 * a 64-bit integer and a 64-bit compare (fewer instructions in a kernel bound by issue slots):
 * 2^52 + v, rounded toward zero, is exactly 2^52 + trunc(v) for 0 <= v < 2^52, so its low
 * mantissa word is trunc(v) below 2^32. */
__device__ __forceinline__ uint32_t bin_of(double v, uint32_t last) {
  return min((uint32_t)__double2loint(__dadd_rz(v, 0x1p52)), last);
}

/* histogram.h's formula: (uint64_t)((x - lower) * scale), clamped to num_bins - 1; x outside
 * [lower, upper) or NaN (both comparisons false) is not counted. __dsub_rn and __dmul_rn are
 * never contracted into an fma, so the device rounds exactly as the formula (and the host) does. */
__device__ __forceinline__ uint32_t even_bin(double x, const cuprim__bins &b) {
  /* Computed for every x and then selected: no branch (x out of range gives some i, unused). */
  const uint32_t i = bin_of(__dmul_rn(__dsub_rn(x, b.lower), b.scale), b.num_bins - 1);
  return x >= b.lower && x < b.upper ? i : NO_BIN;
}

/* Bin i holds [e[i], e[i+1]). Edges out of order give some bin in [0, num_bins) (the search
 * always ends there), never a read outside e[0..num_bins]. */
template <bool GLOBAL>
__device__ __forceinline__ uint32_t edges_bin(double x, const double *e, uint32_t num_bins) {
  auto at = [e](uint32_t i) { return GLOBAL ? __ldg(e + i) : e[i]; };
  if (!(x >= at(0) && x < at(num_bins)))
    return NO_BIN;
  uint32_t lo = 0, hi = num_bins; /* e[lo] <= x < e[hi] */
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (at(mid) <= x)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* The bin of the 8-bit sample (of type T) whose bits are the byte v: the formula or the search
 * over the edges, the same functions as every other path (the byte-value kernels fold their 256
 * value counts into bins with it). */
template <class T> __device__ __forceinline__ uint32_t byte_bin(uint32_t v, const cuprim__bins &b) {
  static_assert(sizeof(T) == 1, "8-bit samples");
  const uint8_t bits = (uint8_t)v;
  T x;
  memcpy(&x, &bits, 1);
  return b.by_edges ? edges_bin<true>((double)x, b.d_edges, b.num_bins) : even_bin((double)x, b);
}

/* Adds 1 to the shared-memory counter at `addr` (a shared-window address) unless b is NO_BIN. The
 * add is predicated in PTX, but ptxas (CUDA 13.0, sm_90) compiles it into a branch around the
 * add with its convergence barrier (see shared_add_one, which the single-channel counting kernel
 * takes instead); the multi-channel kernel of wider samples still uses this one. */
__device__ __forceinline__ void shared_add_one_unless_no_bin(uint32_t addr, uint32_t b) {
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %0, %1;\n\t"
               "@p red.shared.add.u32 [%2], 1;\n\t}" ::"r"(b),
               "r"(NO_BIN), "r"(addr)
               : "memory");
}

/* Adds 1 to the shared-memory counter at `addr` (a shared-window address), unconditionally. For
 * counters laid out with a spare row before bin 0 (SPARE_ROWS), `at0 + b * stride` with b ==
 * NO_BIN wraps (32-bit shared addresses) to at0 - stride, the spare row: an uncounted sample adds
 * there, and no test or branch is needed. ptxas compiles the predicated add above into a branch
 * around the add with its convergence barrier (BSSY, BRA, BSYNC: on an H200's F16 histogram,
 * 7 of the 16.4 instructions a sample went to the test and the add), where this is two (the
 * address and the add). */
__device__ __forceinline__ void shared_add_one(uint32_t addr) {
  asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(addr) : "memory");
}

/* A 64-bit add, modulo 2^64, into the 8-byte aligned word at the shared-memory address `addr`, as
 * two native 32-bit adds: shared_add_low adds v's low word and returns the word it found there,
 * shared_add_high then adds v's high word plus the carry out of that add. Each add's carry is
 * counted once whatever the order of the threads' adds, so the word holds the sum once all adds
 * are done (nothing may read it meanwhile). In two calls so that a thread can have several low
 * adds in flight before it awaits their returns. sm_90 has no one-instruction 64-bit add in
 * shared memory: red.shared.add.u64, like .f64, is a compare-and-swap loop (ATOMS.CAST.SPIN.64).
 * H200, 512 threads a block, random bins, 2026-11-29 (`docs/data/h200-2026-11-29-s28-mb64.txt`):
 * 3.3 to 4.0 of these adds a clock an SM, against 0.9 to 2.8 for red.shared.add.u64 and .f64. */
__device__ __forceinline__ uint32_t shared_add_low(uint32_t addr, uint64_t v) {
  uint32_t old;
  asm volatile("atom.shared.add.u32 %0, [%1], %2;"
               : "=r"(old)
               : "r"(addr), "r"((uint32_t)v)
               : "memory");
  return old;
}
__device__ __forceinline__ void shared_add_high(uint32_t addr, uint32_t old, uint64_t v) {
  uint32_t hi;
  asm("{\n\t.reg .u32 t;\n\tadd.cc.u32 t, %1, %2;\n\taddc.u32 %0, %3, 0;\n\t}"
      : "=r"(hi)
      : "r"(old), "r"((uint32_t)v), "r"((uint32_t)(v >> 32)));
  asm volatile("red.shared.add.u32 [%0], %1;" ::"r"(addr + 4), "r"(hi) : "memory");
}

/* Rows of counters before bin 0 that take the adds of NO_BIN (shared_add_one). */
constexpr uint32_t SPARE_ROWS = 1;

/* A thread's pending run of samples that fell in one bin (NO_BIN: none yet) and what they add
 * to it (V: a count, or a sum of weights). A group of samples that all fall in one bin extends
 * the run, or hands the finished run to its adder and starts the next: a run of one bin costs one
 * add, not one per sample. */
template <class V> struct bin_run {
  uint32_t bin = NO_BIN;
  V value = 0;
  /* Adds v in bin b to the run; a run of another bin goes first to to.add(bin, value). */
  template <class To> __device__ __forceinline__ void extend(uint32_t b, V v, const To &to) {
    if (b == bin) {
      value += v;
    } else {
      if (bin != NO_BIN)
        to.add(bin, value);
      bin = b;
      value = v;
    }
  }
  /* The pending run, if any, to to.add(bin, value). */
  template <class To> __device__ __forceinline__ void finish(const To &to) const {
    if (bin != NO_BIN)
      to.add(bin, value);
  }
};

/* 8-, 16- and 32-bit integers: the sample types BIN_SHIFT takes. */
template <class T> struct traits_int_upto32 {
  static constexpr bool value = std::is_integral<T>::value && sizeof(T) <= 4;
};

/* A sample as the formula sees it, converted to double: exactly for every sample type but the
 * 64-bit integers (which round to a neighbouring double past 2^53). F16 in one conversion
 * (cvt.f64.f16; through float it would take two, and the double conversions are the slow ones:
 * 16 per clock per SM on an H100); BF16 is the high half of a float, so a shift and one. */
template <class T> __device__ __forceinline__ double sample_to_double(T x) {
  if constexpr (std::is_same<T, __half>::value) {
    double d;
    asm("cvt.f64.f16 %0, %1;" : "=d"(d) : "h"(__half_as_ushort(x)));
    return d;
  } else if constexpr (is_narrow_float<T>) {
    return (double)to_acc(x);
  } else {
    return (double)x;
  }
}

template <class T, int KIND> struct binner;

template <class T> struct binner<T, BIN_EVEN> {
  cuprim__bins b;
  static __host__ __device__ size_t smem_bytes(const cuprim__bins &) { return 0; }
  __device__ binner(const cuprim__bins &bins, void *) : b(bins) {}
  __device__ __forceinline__ uint32_t operator()(T x) const {
    return even_bin(sample_to_double(x), b);
  }
};

template <class T> struct binner<T, BIN_SHIFT> {
  static_assert(sizeof(T) <= 4, "64-bit integers do not convert to double exactly");
  /* 8- and 16-bit samples: 32-bit arithmetic (the dispatch ensures |lower|, |upper| <= 2^30, so
   * x - lower fits); 32-bit samples: 64-bit. */
  typedef typename std::conditional<sizeof(T) <= 2, int32_t, int64_t>::type S;
  typedef typename std::conditional<sizeof(T) <= 2, uint32_t, uint64_t>::type U;
  S lo;
  U width;       /* upper_ceil - lower_int */
  uint32_t last; /* num_bins - 1 */
  int shift;
  static __host__ __device__ size_t smem_bytes(const cuprim__bins &) { return 0; }
  __device__ binner(const cuprim__bins &b, void *)
      : lo((S)b.lower_int), width((U)(b.upper_ceil - b.lower_int)), last(b.num_bins - 1),
        shift(b.shift) {}
  __device__ __forceinline__ uint32_t operator()(T x) const {
    const U d = (U)((S)x - lo); /* x < lo wraps past width */
    const U i = d >> shift;
    const uint32_t k = i < (U)last ? (uint32_t)i : last;
    return d < width ? k : NO_BIN;
  }
};

template <class T> struct binner<T, BIN_LUT8> {
  static_assert(sizeof(T) == 1, "the table covers 8-bit samples");
  const uint32_t *lut;
  static __host__ __device__ size_t smem_bytes(const cuprim__bins &) { return 256 * 4; }
  __device__ binner(const cuprim__bins &bins, void *smem) : lut(static_cast<uint32_t *>(smem)) {
    uint32_t *t = static_cast<uint32_t *>(smem);
    for (unsigned v = threadIdx.x; v < 256; v += blockDim.x) {
      const uint8_t bits = (uint8_t)v;
      T x;
      memcpy(&x, &bits, 1);
      t[v] = even_bin((double)x, bins);
    }
  }
  __device__ __forceinline__ uint32_t operator()(T x) const {
    uint8_t bits;
    memcpy(&bits, &x, 1);
    return lut[bits];
  }
};

template <class T> struct binner<T, BIN_EDGES_SMEM> {
  const double *e;
  uint32_t num_bins;
  static __host__ __device__ size_t smem_bytes(const cuprim__bins &b) {
    return round16(((size_t)b.num_bins + 1) * sizeof(double));
  }
  __device__ binner(const cuprim__bins &bins, void *smem)
      : e(static_cast<const double *>(smem)), num_bins(bins.num_bins) {
    double *s = static_cast<double *>(smem);
    for (uint32_t i = threadIdx.x; i <= bins.num_bins; i += blockDim.x)
      s[i] = __ldg(bins.d_edges + i);
  }
  __device__ __forceinline__ uint32_t operator()(T x) const {
    return edges_bin<false>(sample_to_double(x), e, num_bins);
  }
};

template <class T> struct binner<T, BIN_EDGES_GLOBAL> {
  const double *e;
  uint32_t num_bins;
  static __host__ __device__ size_t smem_bytes(const cuprim__bins &) { return 0; }
  __device__ binner(const cuprim__bins &bins, void *) : e(bins.d_edges), num_bins(bins.num_bins) {}
  __device__ __forceinline__ uint32_t operator()(T x) const {
    return edges_bin<true>(sample_to_double(x), e, num_bins);
  }
};

} // namespace cuprim::histogram

#endif
