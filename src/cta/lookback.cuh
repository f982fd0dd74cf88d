/* Decoupled look-back (Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled
 * Look-back", 2016): the tile status words through which the tiles of a single-pass scan publish
 * their aggregate (status A) and then their inclusive prefix (status P), and the look-back of a
 * tile's warp over its predecessors. Shared by scan's look-back kernel (scan/scan_lookback.cu) and
 * the segmented scan (segmented/segmented_scan.cu), whose tiles that contain a segment start
 * publish P at once. The status words start zeroed (STATUS_X: nothing published yet). */
#ifndef CUPRIM_CTA_LOOKBACK_CUH
#define CUPRIM_CTA_LOOKBACK_CUH

#include <stdint.h>
#include <string.h>

#include "warp_reduce.cuh"

namespace cuprim::cta {

enum : unsigned { STATUS_X = 0, STATUS_A = 1, STATUS_P = 2 };

/* 4-byte values: status in the high word, value bits in the low word of one 64-bit word. */
template <class T, bool PACKED = (sizeof(T) == 4)> struct tile_status {
  unsigned long long *words;
  /* What the memory of `tiles` statuses is: STATUS_BYTES per tile of status words, zeroed before
   * the first tile runs, and here no value arrays. */
  static constexpr size_t STATUS_BYTES = 8;
  static constexpr bool HAS_VALUES = false;
  /* Host: points the status at that memory (the value arrays are unused). */
  void place(void *status_words, T *, T *) {
    words = static_cast<unsigned long long *>(status_words);
  }
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
  static constexpr size_t STATUS_BYTES = 4;
  static constexpr bool HAS_VALUES = true; /* two arrays of `tiles` values, uninitialized */
  void place(void *status_words, T *aggregates, T *inclusives) {
    status = static_cast<unsigned *>(status_words);
    aggregate = aggregates;
    inclusive = inclusives;
  }
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
} // namespace cuprim::cta

#endif
