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
