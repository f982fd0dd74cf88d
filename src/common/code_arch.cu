/* Which device code the context's device runs. A build holds machine code for some
 * architectures and PTX for others (CMAKE_CUDA_ARCHITECTURES); the driver picks the machine code
 * of the device's architecture family, or compiles PTX for it. The kernels can use what their
 * code's architecture has (arch.cuh), so launches are configured by that, not by the device:
 * a Hopper running compute_80 PTX gets no programmatic dependent launch and no clusters. Every
 * kernel of the library is compiled with the same flags, so one probe kernel tells for all. */
#include "code_arch.h"

#include <string.h>

#include "check.h"

namespace {
__global__ void probe_kernel() {}
} // namespace

extern "C" cuprim_status cuprim__code_arch(int *ptx_arch, int *binary_arch) {
  cudaFuncAttributes a;
  /* Loads the probe (and, for PTX, compiles it); fails when the build has no code this device
   * can run (cudaErrorNoKernelImageForDevice), which is then reported at context creation. */
  CUPRIM__CUDA_CHECK(cudaFuncGetAttributes(&a, probe_kernel));
  *ptx_arch = a.ptxVersion;
  *binary_arch = a.binaryVersion;
  return CUPRIM_SUCCESS;
}

extern "C" const char *cuprim_build_architectures(void) { return CUPRIM_CUDA_ARCHITECTURES; }

/* 1 if the build list holds machine code for `arch` (an entry "<arch>-real" or a plain "<arch>",
 * which CMake builds as machine code and PTX). */
extern "C" int cuprim__build_has_machine_code(int arch) {
  const char *p = CUPRIM_CUDA_ARCHITECTURES;
  while (*p) {
    int v = 0;
    while (*p >= '0' && *p <= '9')
      v = v * 10 + (*p++ - '0');
    const bool real = *p == ',' || *p == '\0' || strncmp(p, "-real", 5) == 0;
    if (v == arch && real)
      return 1;
    while (*p && *p != ',')
      ++p;
    if (*p == ',')
      ++p;
  }
  return 0;
}
