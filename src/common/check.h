/* Argument-check and error-forwarding macros shared by every entry point (NCCL's CUDACHECK
 * pattern). Host code only. The library never prints and never exits: every failure becomes a
 * cuprim_status. */
#ifndef CUPRIM_CHECK_H
#define CUPRIM_CHECK_H

#include <cuprim/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Records `err` as this thread's last CUDA error, clears CUDA's (non-sticky) last error so it is
 * not reported twice, and returns the status to hand back: CUPRIM_ERROR_NO_DEVICE for a missing
 * driver or device, CUPRIM_ERROR_CUDA for anything else. */
cuprim_status cuprim__record_cuda_error(cudaError_t err);

#ifdef __cplusplus
}
#endif

/* Return INVALID_ARGUMENT unless `cond` holds. */
#define CUPRIM__CHECK_ARG(cond)                                                                    \
  do {                                                                                             \
    if (!(cond))                                                                                   \
      return CUPRIM_ERROR_INVALID_ARGUMENT;                                                        \
  } while (0)

/* Return `status` unless `cond` holds. */
#define CUPRIM__CHECK(cond, status)                                                                \
  do {                                                                                             \
    if (!(cond))                                                                                   \
      return (status);                                                                             \
  } while (0)

/* Evaluate a cuprim_status expression and return it if it is not success. */
#define CUPRIM__FORWARD(expr)                                                                      \
  do {                                                                                             \
    cuprim_status cuprim__s = (expr);                                                              \
    if (cuprim__s != CUPRIM_SUCCESS)                                                               \
      return cuprim__s;                                                                            \
  } while (0)

/* Evaluate a CUDA runtime call; on failure record it and return its status. */
#define CUPRIM__CUDA_CHECK(call)                                                                   \
  do {                                                                                             \
    cudaError_t cuprim__e = (call);                                                                \
    if (cuprim__e != cudaSuccess)                                                                  \
      return cuprim__record_cuda_error(cuprim__e);                                                 \
  } while (0)

/* The status of a CUDA runtime call's result: CUPRIM_SUCCESS, or the error recorded as
 * CUPRIM__CUDA_CHECK records it (for a call whose status is the caller's result). */
static inline cuprim_status cuprim__cuda_status(cudaError_t e) {
  return e == cudaSuccess ? CUPRIM_SUCCESS : cuprim__record_cuda_error(e);
}

#endif
