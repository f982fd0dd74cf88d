/* Launch configurations for cudaLaunchKernelEx (host code, for the CUDA sources): a kernel
 * chained to the previous one on its stream by programmatic dependent launch where the code
 * takes it; a kernel launched as one thread-block cluster (Hopper and later), and the
 * once-per-device check that clusters of 16 (past the portable 8) are allowed. */
#ifndef CUPRIM_COMMON_LAUNCH_CONFIG_CUH
#define CUPRIM_COMMON_LAUNCH_CONFIG_CUH

#include <cuda_runtime.h>

#include "launch.h"

namespace cuprim {

/* A launch of `grid` blocks of `threads` threads on `stream` that may start before the previous
 * kernel on the stream has finished (programmatic dependent launch): the kernel must wait in
 * cta::pdl_wait before it reads what that kernel writes. Where the device's code has no
 * griddepcontrol (cuprim__pdl_supported), the same launch in plain stream order. `attr` is the
 * caller's storage for the attribute (it must outlive the launch call). */
inline cudaLaunchConfig_t pdl_config(const cuprim_ctx *ctx, unsigned grid, unsigned threads,
                                     cudaStream_t stream, cudaLaunchAttribute *attr) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(threads);
  cfg.stream = stream;
  attr->id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr->val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = cuprim__pdl_supported(ctx) ? 1 : 0;
  return cfg;
}

/* Launches kernel<<<grid, threads, smem, stream>>>(args...) chained to the previous kernel on the
 * stream by programmatic dependent launch where the device's code takes it (pdl_config), else in
 * plain stream order. Returns the launch's error. */
template <class... Params, class... Args>
cudaError_t launch_chained(const cuprim_ctx *ctx, unsigned grid, unsigned threads, size_t smem,
                           cudaStream_t stream, void (*kernel)(Params...), Args... args) {
  cudaLaunchAttribute attr;
  cudaLaunchConfig_t cfg = pdl_config(ctx, grid, threads, stream, &attr);
  cfg.dynamicSmemBytes = smem;
  return cudaLaunchKernelEx(&cfg, kernel, args...);
}

/* A launch configuration of one cluster of `blocks` blocks of `threads` threads on `stream`.
 * `attr` is the caller's storage for the attribute (it must outlive the launch call). */
inline cudaLaunchConfig_t one_cluster_config(unsigned blocks, unsigned threads, cudaStream_t stream,
                                             cudaLaunchAttribute *attr) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(blocks);
  cfg.blockDim = dim3(threads);
  cfg.stream = stream;
  attr->id = cudaLaunchAttributeClusterDimension;
  attr->val.clusterDim.x = blocks;
  attr->val.clusterDim.y = 1;
  attr->val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cfg;
}

/* Whether `kernel` may run as a cluster of 16 blocks of `threads` threads on `device`: sets
 * cudaFuncAttributeNonPortableClusterSizeAllowed (a property of the module loaded on that
 * device) and checks that such a cluster fits (MIG slices may be smaller). `state` is the
 * caller's per-kernel cache of 64 devices (0 unknown, 1 allowed, 2 refused; racing writers store
 * the same value). */
template <class Kernel>
bool allow_cluster16(Kernel kernel, unsigned threads, int device, int (&state)[64]) {
  if (device < 0 || device >= 64)
    return false;
  if (state[device] == 0) {
    bool ok = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) ==
              cudaSuccess;
    if (ok) {
      cudaLaunchAttribute attr;
      const cudaLaunchConfig_t cfg = one_cluster_config(16, threads, 0, &attr);
      int clusters = 0;
      ok = cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg) == cudaSuccess && clusters >= 1;
    }
    (void)cudaGetLastError(); /* a refusal is an answer, not an error to report later */
    state[device] = ok ? 1 : 2;
  }
  return state[device] == 1;
}

} // namespace cuprim

#endif
