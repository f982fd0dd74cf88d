/**
 * @file core.h
 * @brief cuprim core: version, status codes, dtypes, ops and the context.
 *
 * Every cuprim call takes a ::cuprim_ctx first. A context binds one CUDA device, caches the
 * device attributes that launch configuration needs, and owns a stream-ordered device
 * allocator through which all temporary memory is taken.
 *
 * @code
 *   cuprim_ctx *ctx;
 *   if (cuprim_ctx_create(&ctx, 0, NULL) != CUPRIM_SUCCESS) return 1;
 *   cuprim_status s = cuprim_reduce(ctx, d_in, d_out, n, CUPRIM_F32, CUPRIM_SUM, stream);
 *   if (s == CUPRIM_ERROR_CUDA)
 *     fprintf(stderr, "%s: %s\n", cuprim_status_string(s),
 *             cudaGetErrorString(cuprim_last_cuda_error()));
 *   cuprim_ctx_destroy(ctx);
 * @endcode
 *
 * The header is plain C11 and includes only <stddef.h>, <stdint.h> and <cuda_runtime_api.h>.
 */
#ifndef CUPRIM_CORE_H
#define CUPRIM_CORE_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @name Version */
/**@{*/
#define CUPRIM_VERSION_MAJOR 0
#define CUPRIM_VERSION_MINOR 1
#define CUPRIM_VERSION_PATCH 0
/** MAJOR*10000 + MINOR*100 + PATCH, for compile-time comparisons. */
#define CUPRIM_VERSION_NUMBER                                                                      \
  (CUPRIM_VERSION_MAJOR * 10000 + CUPRIM_VERSION_MINOR * 100 + CUPRIM_VERSION_PATCH)
/**@}*/

/** The version of the library linked in, as CUPRIM_VERSION_NUMBER computes it. Needs no device. */
unsigned cuprim_version_number(void);
/** The version of the library linked in as "MAJOR.MINOR.PATCH". Static storage; never NULL. */
const char *cuprim_version_string(void);

/** Every cuprim call returns one of these. Values are pinned: new ones are appended. */
typedef enum cuprim_status {
  CUPRIM_SUCCESS = 0,
  /** NULL pointer with n > 0, enum out of range, misaligned pointer, overlapping ranges, bad
   *  range or bin count. Nothing was enqueued or written. */
  CUPRIM_ERROR_INVALID_ARGUMENT = 1,
  /** Valid enums, unsupported combination (XOR on float, an 8-bit dtype for reduce, ...). */
  CUPRIM_ERROR_UNSUPPORTED = 2,
  /** The context's allocator returned NULL. Nothing was launched. */
  CUPRIM_ERROR_OUT_OF_MEMORY = 3,
  /** No usable CUDA device or driver. */
  CUPRIM_ERROR_NO_DEVICE = 4,
  /** A CUDA runtime call failed: cuprim_last_cuda_error() tells which error. */
  CUPRIM_ERROR_CUDA = 5,
  /** A bug in cuprim: please report it. */
  CUPRIM_ERROR_INTERNAL = 6
} cuprim_status;

/** A short English description of @p s. Never NULL, also for values outside the enum. */
const char *cuprim_status_string(cuprim_status s);

/** The CUDA error behind the last ::CUPRIM_ERROR_CUDA returned on the calling thread, or
 *  cudaSuccess if there was none. The library clears CUDA's sticky last error when it records
 *  one, so cudaGetLastError() after a failed cuprim call does not report it twice. */
cudaError_t cuprim_last_cuda_error(void);

/** Element types. Values are pinned. */
typedef enum cuprim_dtype {
  CUPRIM_I8 = 0,
  CUPRIM_U8 = 1,
  CUPRIM_I16 = 2,
  CUPRIM_U16 = 3,
  CUPRIM_I32 = 4,
  CUPRIM_U32 = 5,
  CUPRIM_I64 = 6,
  CUPRIM_U64 = 7,
  CUPRIM_F32 = 8,
  CUPRIM_F64 = 9
} cuprim_dtype;

/** Size in bytes of one element of @p t; 0 for a value outside the enum. */
size_t cuprim_dtype_size(cuprim_dtype t);

/** Binary operators for reduce and scan. Values are pinned.
 *  Integer SUM and PROD wrap modulo 2^bits. Float MIN and MAX return NaN when any input is NaN.
 *  AND, OR and XOR take integer dtypes only (CUPRIM_ERROR_UNSUPPORTED otherwise). */
typedef enum cuprim_op {
  CUPRIM_SUM = 0,
  CUPRIM_PROD = 1,
  CUPRIM_MIN = 2,
  CUPRIM_MAX = 3,
  CUPRIM_AND = 4,
  CUPRIM_OR = 5,
  CUPRIM_XOR = 6
} cuprim_op;

/** A stream-ordered device allocator.
 *
 * cuprim calls @c alloc for temporary device memory that it uses on @c stream, and @c free
 * with the same pointer, size and stream once the work that uses it is enqueued (so @c free
 * must be stream-ordered too, as cudaFreeAsync is). @c alloc returns NULL on failure, which
 * cuprim reports as ::CUPRIM_ERROR_OUT_OF_MEMORY. Both may be called from several threads at
 * once if the context is shared between threads. */
typedef struct cuprim_allocator {
  void *(*alloc)(void *user, size_t bytes, cudaStream_t stream);
  void (*free)(void *user, void *ptr, size_t bytes, cudaStream_t stream);
  void *user; /**< passed back to alloc and free unchanged */
} cuprim_allocator;

/** Opaque context: a device, its cached attributes and an allocator. */
typedef struct cuprim_ctx cuprim_ctx;

/** Creates a context bound to CUDA device @p device.
 *
 * @param ctx    receives the new context (host memory); untouched on error.
 * @param device a CUDA device ordinal. Calls made with the context run on this device, whatever
 *               device is current on the calling thread; the current device is left unchanged.
 * @param alloc  the allocator to use (copied; both functions must be non-NULL), or NULL for the
 *               default: cudaMallocAsync/cudaFreeAsync on a memory pool owned by the context
 *               whose release threshold keeps freed memory for reuse, so that repeated calls do
 *               not pay for fresh device allocations.
 * @return ::CUPRIM_ERROR_INVALID_ARGUMENT for a NULL @p ctx, a negative or too large @p device or
 *         an allocator with a NULL function; ::CUPRIM_ERROR_NO_DEVICE with no driver or device;
 *         ::CUPRIM_ERROR_CUDA if a CUDA call fails; ::CUPRIM_ERROR_OUT_OF_MEMORY.
 *
 * A context is immutable after creation: it may be used from several threads and streams at
 * once. This call synchronizes with the device once (to upload a small constant table). */
cuprim_status cuprim_ctx_create(cuprim_ctx **ctx, int device, const cuprim_allocator *alloc);

/** Destroys @p ctx. NULL is a no-op. Work already enqueued with the context must have been
 *  completed or must not need the context's default memory pool after this call returns
 *  (the pool's destruction is deferred by CUDA until its outstanding allocations are freed). */
cuprim_status cuprim_ctx_destroy(cuprim_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif /* CUPRIM_CORE_H */
