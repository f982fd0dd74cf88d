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

/** @name Version
 *  The version of the headers a program is compiled with; cuprim_version_number() and
 *  cuprim_version_string() give the version of the library it is linked with. */
/**@{*/
/** Major version. */
#define CUPRIM_VERSION_MAJOR 0
/** Minor version. */
#define CUPRIM_VERSION_MINOR 2
/** Patch version. */
#define CUPRIM_VERSION_PATCH 0
/** MAJOR*10000 + MINOR*100 + PATCH, for compile-time comparisons. */
#define CUPRIM_VERSION_NUMBER                                                                      \
  (CUPRIM_VERSION_MAJOR * 10000 + CUPRIM_VERSION_MINOR * 100 + CUPRIM_VERSION_PATCH)
/**@}*/

/** The version of the library linked in. Needs no device.
 *  @return MAJOR*10000 + MINOR*100 + PATCH, as ::CUPRIM_VERSION_NUMBER computes it. */
unsigned cuprim_version_number(void);
/** The version of the library linked in. Needs no device.
 *  @return "MAJOR.MINOR.PATCH", in static storage; never NULL. */
const char *cuprim_version_string(void);

/** Every cuprim call returns one of these (docs/errors.md: when, and what was done). Values are
 *  pinned: new ones are appended. cuprim_status_string() gives a description of each. */
typedef enum cuprim_status {
  /** The work is enqueued on the stream (it may not have run yet). */
  CUPRIM_SUCCESS = 0,
  /** NULL pointer with n > 0, enum out of range, misaligned pointer, overlapping ranges, bad
   *  range or bin count. Nothing was enqueued or written. */
  CUPRIM_ERROR_INVALID_ARGUMENT = 1,
  /** Valid enums, unsupported combination (XOR on float, an 8-bit dtype for reduce, ...).
   *  Nothing was enqueued or written. */
  CUPRIM_ERROR_UNSUPPORTED = 2,
  /** The context's allocator returned NULL. Nothing was launched. */
  CUPRIM_ERROR_OUT_OF_MEMORY = 3,
  /** No usable CUDA device or driver. */
  CUPRIM_ERROR_NO_DEVICE = 4,
  /** A CUDA runtime call or a kernel launch failed: cuprim_last_cuda_error() tells which error. */
  CUPRIM_ERROR_CUDA = 5,
  /** A bug in cuprim: please report it. */
  CUPRIM_ERROR_INTERNAL = 6,
  /** An NCCL call failed (the optional component, cuprim/nccl.h): cuprim_nccl_last_error()
   *  tells which error. */
  CUPRIM_ERROR_NCCL = 7
} cuprim_status;

/** A short English description of a status. Needs no device.
 *  @param s any value, also one outside the enum.
 *  @return a string in static storage; never NULL ("unknown cuprim_status value" for a value
 *          outside the enum). */
const char *cuprim_status_string(cuprim_status s);

/** The CUDA error behind the last ::CUPRIM_ERROR_CUDA returned on the calling thread (or behind
 *  a ::CUPRIM_ERROR_NO_DEVICE that CUDA reported: no driver, no device). Later calls that succeed
 *  or fail for other reasons leave it unchanged. The library clears CUDA's non-sticky last error
 *  when it records one, so cudaGetLastError() after a failed cuprim call does not report it
 *  twice. Needs no device.
 *  @return that error, or cudaSuccess if no cuprim call on this thread has recorded one. */
cudaError_t cuprim_last_cuda_error(void);

/** Element types. Values are pinned. */
typedef enum cuprim_dtype {
  CUPRIM_I8 = 0,   /**< int8_t */
  CUPRIM_U8 = 1,   /**< uint8_t */
  CUPRIM_I16 = 2,  /**< int16_t */
  CUPRIM_U16 = 3,  /**< uint16_t */
  CUPRIM_I32 = 4,  /**< int32_t */
  CUPRIM_U32 = 5,  /**< uint32_t */
  CUPRIM_I64 = 6,  /**< int64_t */
  CUPRIM_U64 = 7,  /**< uint64_t */
  CUPRIM_F32 = 8,  /**< float (IEEE 754 binary32) */
  CUPRIM_F64 = 9,  /**< double (IEEE 754 binary64) */
  CUPRIM_F16 = 10, /**< IEEE 754 binary16 (CUDA's __half); host code holds it as uint16_t bits */
  CUPRIM_BF16 = 11 /**< bfloat16 (CUDA's __nv_bfloat16); host code holds it as uint16_t bits */
} cuprim_dtype;

/** Size in bytes of one element of a dtype. Needs no device.
 *  @param t any value, also one outside the enum.
 *  @return 1, 2, 4 or 8; 0 for a value outside the enum. */
size_t cuprim_dtype_size(cuprim_dtype t);

/** The short name of a dtype, as NumPy-minded tools write it: "i8", "u8", "i16", "u16", "i32",
 *  "u32", "i64", "u64", "f32", "f64", "f16", "bf16". Needs no device.
 *  @param t any value, also one outside the enum.
 *  @return a string in static storage, or NULL for a value outside the enum. */
const char *cuprim_dtype_name(cuprim_dtype t);

/** Binary operators for reduce and scan. Values are pinned.
 *  Integer SUM and PROD wrap modulo 2^bits. Float MIN and MAX return NaN when any input is NaN.
 *  AND, OR and XOR take integer dtypes only (CUPRIM_ERROR_UNSUPPORTED otherwise). */
typedef enum cuprim_op {
  CUPRIM_SUM = 0,  /**< a + b; identity 0 */
  CUPRIM_PROD = 1, /**< a * b; identity 1 */
  CUPRIM_MIN = 2,  /**< the smaller; identity the type's largest value (floats: +inf) */
  CUPRIM_MAX = 3,  /**< the larger; identity the type's lowest value (floats: -inf) */
  CUPRIM_AND = 4,  /**< a & b (integers only); identity all ones */
  CUPRIM_OR = 5,   /**< a | b (integers only); identity 0 */
  CUPRIM_XOR = 6   /**< a ^ b (integers only); identity 0 */
} cuprim_op;

/** The lower-case name of an op: "sum", "prod", "min", "max", "and", "or", "xor". Needs no
 *  device.
 *  @param op any value, also one outside the enum.
 *  @return a string in static storage, or NULL for a value outside the enum. */
const char *cuprim_op_name(cuprim_op op);

/** A stream-ordered device allocator.
 *
 * cuprim calls @c alloc for temporary device memory that it uses on @c stream, and @c free
 * with the same pointer, size and stream once the work that uses it is enqueued (so @c free
 * must be stream-ordered too, as cudaFreeAsync is). @c alloc returns NULL on failure, which
 * cuprim reports as ::CUPRIM_ERROR_OUT_OF_MEMORY. Both may be called from several threads at
 * once if the context is shared between threads. */
typedef struct cuprim_allocator {
  /** Returns @c bytes (> 0) of device memory usable by work enqueued on @c stream, or NULL. */
  void *(*alloc)(void *user, size_t bytes, cudaStream_t stream);
  /** Gives back @c ptr, which @c alloc returned for @c bytes, once the work enqueued on
   *  @c stream so far is done with it (stream-ordered, as cudaFreeAsync). */
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
 *               not pay for fresh device allocations; the context also keeps one block of that
 *               pool (up to 4 MiB), tied to the stream it was first taken on, for the calls on
 *               that stream that need no more: such a call makes no allocation call at all (not
 *               while the stream is being captured into a graph).
 * @return ::CUPRIM_ERROR_INVALID_ARGUMENT for a NULL @p ctx, a negative or too large @p device or
 *         an allocator with a NULL function; ::CUPRIM_ERROR_NO_DEVICE with no driver or device;
 *         ::CUPRIM_ERROR_CUDA if a CUDA call fails; ::CUPRIM_ERROR_OUT_OF_MEMORY.
 *
 * A context is immutable after creation: it may be used from several threads and streams at
 * once. This call reads the device's attributes and enqueues nothing; it does not synchronize
 * with the device. */
cuprim_status cuprim_ctx_create(cuprim_ctx **ctx, int device, const cuprim_allocator *alloc);

/** The CUDA architectures this library was compiled for, as CMake's CUDA_ARCHITECTURES list with
 *  commas, e.g. "75-real,80-real,90-real,100-real,120" (machine code for 7.5, 8.0, 9.0 and 10.0;
 *  machine code and PTX for 12.0). Needs no device.
 *  @return a string in static storage; never NULL. */
const char *cuprim_build_architectures(void);

/** Which of the library's device code the context's device runs.
 *
 * A device runs the machine code built for its architecture (or for an earlier minor version of
 * its major one: 8.0 code runs on 8.6 and 8.9), or else PTX of an older architecture that the
 * driver compiles when the code is first loaded. The kernels use what that code's architecture
 * has (thread-block clusters and programmatic dependent launch from 9.0 on), and the tuning
 * tables key on it.
 *
 * @param ctx       a context (NULL: ::CUPRIM_ERROR_INVALID_ARGUMENT).
 * @param code_arch receives the architecture of the code the device runs, major*10 + minor (75,
 *                  80, 90, ...). May be NULL.
 * @param from_ptx  receives 1 if the device runs it through the driver's PTX compiler (the build
 *                  has no machine code for it), else 0. May be NULL.
 * @return ::CUPRIM_SUCCESS; ::CUPRIM_ERROR_NO_DEVICE for a context made without a device. Needs
 *         no call to the device: the context read this when it was created. */
cuprim_status cuprim_ctx_code_arch(const cuprim_ctx *ctx, int *code_arch, int *from_ptx);

/** Destroys a context and frees what it holds (its default memory pool, and the block of it that
 *  the context keeps for its calls). Work already enqueued with the context must have been
 *  completed, or, with a user allocator, must not need the context after this call returns
 *  (the default pool's destruction is deferred by CUDA until its outstanding allocations are
 *  freed, but the kept block is freed in the order of the legacy default stream).
 *  @param ctx a context from cuprim_ctx_create(), or NULL (a no-op). It is freed in every case,
 *             also when an error is returned, and must not be used again.
 *  @return ::CUPRIM_SUCCESS; ::CUPRIM_ERROR_CUDA or ::CUPRIM_ERROR_NO_DEVICE if the context's
 *          device could not be made current. */
cuprim_status cuprim_ctx_destroy(cuprim_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif /* CUPRIM_CORE_H */
