#include "test_device_fill.h"

namespace {

__global__ void fill_u32_kernel(uint32_t *d, uint64_t n) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    d[i] = tu_fill_u32_formula(i);
}

__global__ void fill_f32_kernel(float *d, uint64_t n) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    d[i] = tu_fill_f32_formula(i);
}

/* Four bytes a thread per step (one 32-bit store), the tail byte by byte. */
__global__ void fill_u8_kernel(uint8_t *d, uint64_t n) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  const uint64_t head = (4 - (uintptr_t)d % 4) % 4 < n ? (4 - (uintptr_t)d % 4) % 4 : n;
  const uint64_t words = (n - head) / 4;
  const uint64_t gtid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (gtid < head)
    d[gtid] = tu_fill_u8_formula(gtid);
  uint32_t *w = reinterpret_cast<uint32_t *>(d + head);
  for (uint64_t j = gtid; j < words; j += stride) {
    const uint64_t i = head + 4 * j;
    w[j] = (uint32_t)tu_fill_u8_formula(i) | (uint32_t)tu_fill_u8_formula(i + 1) << 8 |
           (uint32_t)tu_fill_u8_formula(i + 2) << 16 | (uint32_t)tu_fill_u8_formula(i + 3) << 24;
  }
  for (uint64_t i = head + 4 * words + gtid; i < n; i += stride)
    d[i] = tu_fill_u8_formula(i);
}

__global__ void check_scan_sum_u32_kernel(const uint32_t *out, uint64_t n, int exclusive,
                                          unsigned long long *counters) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  unsigned long long wrong = 0, first = ~0ull;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const bool ok = i == 0 ? out[0] == (exclusive ? 0u : tu_fill_u32_formula(0))
                           : out[i] - out[i - 1] == tu_fill_u32_formula(exclusive ? i - 1 : i);
    if (!ok) {
      ++wrong;
      first = first < i ? first : i;
    }
  }
  if (wrong) {
    atomicAdd(&counters[0], wrong);
    atomicMin(&counters[1], first);
  }
}

__device__ void segment_of(const tu_segments &seg, uint64_t s, uint64_t &b, uint64_t &e) {
  b = seg.d_off ? seg.d_off[s] : s * seg.len;
  e = seg.d_off ? seg.d_off[s + 1] : b + seg.len;
}

__device__ void count_wrong(unsigned long long wrong, unsigned long long first,
                            unsigned long long *counters) {
  if (wrong) {
    atomicAdd(&counters[0], wrong);
    atomicMin(&counters[1], first);
  }
}

__global__ void check_segmented_sum_u32_kernel(const uint32_t *out, tu_segments seg,
                                               unsigned long long *counters) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  unsigned long long wrong = 0, first = ~0ull;
  for (uint64_t s = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; s < seg.rows; s += stride) {
    uint64_t b, e;
    segment_of(seg, s, b, e);
    uint32_t sum = 0;
    for (uint64_t i = b; i < e; ++i)
      sum += tu_fill_u32_formula(i);
    if (out[s] != sum) {
      ++wrong;
      first = first < s ? first : s;
    }
  }
  count_wrong(wrong, first, counters);
}

__global__ void check_segmented_scan_sum_u32_kernel(const uint32_t *out, tu_segments seg,
                                                    int exclusive, unsigned long long *counters) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  unsigned long long wrong = 0, first = ~0ull;
  for (uint64_t s = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; s < seg.rows; s += stride) {
    uint64_t b, e;
    segment_of(seg, s, b, e);
    for (uint64_t i = b; i < e; ++i) {
      const bool ok = i == b ? out[i] == (exclusive ? 0u : tu_fill_u32_formula(i))
                             : out[i] - out[i - 1] == tu_fill_u32_formula(exclusive ? i - 1 : i);
      if (!ok) {
        ++wrong;
        first = first < i ? first : i;
      }
    }
  }
  count_wrong(wrong, first, counters);
}

unsigned grid_for(uint64_t n) {
  const uint64_t blocks = (n + 255) / 256;
  return blocks < 65536 ? (unsigned)(blocks ? blocks : 1) : 65536u; /* grid-stride past that */
}

} // namespace

extern "C" cudaError_t tu_device_fill_u32(uint32_t *d, uint64_t n, cudaStream_t stream) {
  fill_u32_kernel<<<grid_for(n), 256, 0, stream>>>(d, n);
  return cudaPeekAtLastError();
}

extern "C" cudaError_t tu_device_fill_f32(float *d, uint64_t n, cudaStream_t stream) {
  fill_f32_kernel<<<grid_for(n), 256, 0, stream>>>(d, n);
  return cudaPeekAtLastError();
}

extern "C" cudaError_t tu_device_fill_u8(uint8_t *d, uint64_t n, cudaStream_t stream) {
  fill_u8_kernel<<<grid_for(n / 4 + 1), 256, 0, stream>>>(d, n);
  return cudaPeekAtLastError();
}

/* Runs a check kernel, launch(d_counters), over counters {wrong = 0, first = ~0}, and reads them
 * back (first: `none` if nothing was wrong). */
template <class Launch>
cudaError_t run_check(Launch launch, uint64_t none, uint64_t *wrong, uint64_t *first,
                      cudaStream_t stream) {
  unsigned long long *d_counters = nullptr, h_counters[2] = {0, 0};
  cudaError_t e = cudaMallocAsync(&d_counters, sizeof h_counters, stream);
  if (e != cudaSuccess)
    return e;
  e = cudaMemsetAsync(d_counters, 0, sizeof *d_counters, stream); /* wrong = 0 */
  if (e == cudaSuccess)
    e = cudaMemsetAsync(d_counters + 1, 0xff, sizeof *d_counters, stream); /* first = ~0 */
  if (e == cudaSuccess) {
    launch(d_counters);
    e = cudaPeekAtLastError();
  }
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(h_counters, d_counters, sizeof h_counters, cudaMemcpyDeviceToHost, stream);
  const cudaError_t f = cudaFreeAsync(d_counters, stream);
  const cudaError_t s = cudaStreamSynchronize(stream);
  if (e == cudaSuccess)
    e = f != cudaSuccess ? f : s;
  *wrong = h_counters[0];
  *first = h_counters[1] == ~0ull ? none : h_counters[1];
  return e;
}

extern "C" cudaError_t tu_device_check_scan_sum_u32(const uint32_t *d_out, uint64_t n,
                                                    int exclusive, uint64_t *wrong, uint64_t *first,
                                                    cudaStream_t stream) {
  return run_check(
      [&](unsigned long long *c) {
        check_scan_sum_u32_kernel<<<grid_for(n), 256, 0, stream>>>(d_out, n, exclusive, c);
      },
      n, wrong, first, stream);
}

extern "C" cudaError_t tu_device_check_segmented_sum_u32(const uint32_t *d_out, tu_segments seg,
                                                         uint64_t *wrong, uint64_t *first,
                                                         cudaStream_t stream) {
  return run_check(
      [&](unsigned long long *c) {
        check_segmented_sum_u32_kernel<<<grid_for(seg.rows), 256, 0, stream>>>(d_out, seg, c);
      },
      seg.rows, wrong, first, stream);
}

extern "C" cudaError_t tu_device_check_segmented_scan_sum_u32(const uint32_t *d_out,
                                                              tu_segments seg, int exclusive,
                                                              uint64_t *wrong, uint64_t *first,
                                                              cudaStream_t stream) {
  return run_check(
      [&](unsigned long long *c) {
        check_segmented_scan_sum_u32_kernel<<<grid_for(seg.rows), 256, 0, stream>>>(d_out, seg,
                                                                                    exclusive, c);
      },
      UINT64_MAX, wrong, first, stream);
}
