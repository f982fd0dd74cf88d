/* Version, status strings and the per-thread last CUDA error. */
#include <cuprim/core.h>

#include "check.h"
#include "status_table.h"

/* core.h writes out the public enum and pins its values; check it against the table. */
#define CUPRIM__STATUS_ASSERT(name, value, text)                                                   \
  _Static_assert(CUPRIM_##name == (value), "cuprim_status value of " #name " drifted");
CUPRIM__STATUS_TABLE(CUPRIM__STATUS_ASSERT)
#undef CUPRIM__STATUS_ASSERT

#define CUPRIM__STR2(x) #x
#define CUPRIM__STR(x) CUPRIM__STR2(x)

unsigned cuprim_version_number(void) { return CUPRIM_VERSION_NUMBER; }

const char *cuprim_version_string(void) {
  return CUPRIM__STR(CUPRIM_VERSION_MAJOR) "." CUPRIM__STR(CUPRIM_VERSION_MINOR) "." CUPRIM__STR(
      CUPRIM_VERSION_PATCH);
}

const char *cuprim_status_string(cuprim_status s) {
  switch ((int)s) {
#define CUPRIM__STATUS_CASE(name, value, text)                                                     \
  case value:                                                                                      \
    return text;
    CUPRIM__STATUS_TABLE(CUPRIM__STATUS_CASE)
#undef CUPRIM__STATUS_CASE
  default:
    return "unknown cuprim_status value";
  }
}

static _Thread_local cudaError_t cuprim__last_cuda_error = cudaSuccess;

cudaError_t cuprim_last_cuda_error(void) { return cuprim__last_cuda_error; }

cuprim_status cuprim__record_cuda_error(cudaError_t err) {
  cuprim__last_cuda_error = err;
  (void)cudaGetLastError(); /* clear the non-sticky last error so the caller sees it once */
  if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver)
    return CUPRIM_ERROR_NO_DEVICE;
  return CUPRIM_ERROR_CUDA;
}
