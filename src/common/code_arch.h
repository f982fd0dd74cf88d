/* The architecture of the device code a device runs (code_arch.cu). Host code. */
#ifndef CUPRIM_COMMON_CODE_ARCH_H
#define CUPRIM_COMMON_CODE_ARCH_H

#include <cuprim/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* For the current device: the PTX version the library's kernels were compiled from
 * (major*10 + minor: 75, 80, 90, ...; what the kernels can use) and the architecture of the
 * machine code that runs (the device's own when the driver compiled PTX for it). */
cuprim_status cuprim__code_arch(int *ptx_arch, int *binary_arch);

/* 1 if the build holds machine code for `arch` (major*10 + minor). */
int cuprim__build_has_machine_code(int arch);

#ifdef __cplusplus
}
#endif

#endif
