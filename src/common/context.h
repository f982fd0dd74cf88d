/* The context: the device it is bound to, the attributes launch configuration needs (read once
 * at creation, never per call), and the allocator. Host code; the struct is immutable after
 * creation (what calls fill in, the occupancy answers and the default allocator's cached block,
 * sits behind pointers, thread-safe), so one context serves many threads at once. */
#ifndef CUPRIM_CONTEXT_H
#define CUPRIM_CONTEXT_H

#include <cuprim/core.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuprim__device_attrs {
  int cc_major, cc_minor;   /* compute capability */
  int sm_count;             /* multiprocessors */
  int max_threads_per_sm;   /* resident threads per multiprocessor */
  int max_blocks_per_sm;    /* resident blocks per multiprocessor */
  int smem_per_block_optin; /* bytes a block may opt in to */
  int max_grid_x;           /* largest gridDim.x */
  /* The library's device code this device runs (code_arch.h), major*10 + minor: the PTX version
   * it was compiled from (what the kernels can use: tuning and launch features key on it) and the
   * architecture of the machine code. */
  int code_arch;
  int binary_arch;
} cuprim__device_attrs;

/* The default allocator's one cached block of temporary memory (context.c). */
typedef struct cuprim__temp_cache cuprim__temp_cache;

/* Occupancy answers kept per context (launch.c; cuprim__occupancy in launch.h). */
typedef struct cuprim__occupancy_cache cuprim__occupancy_cache;
cuprim__occupancy_cache *cuprim__occupancy_cache_create(void);
void cuprim__occupancy_cache_destroy(cuprim__occupancy_cache *c);

struct cuprim_ctx {
  int device; /* CUDA ordinal; -1 for a host-only context (tests) */
  cuprim__device_attrs attrs;
  cuprim_allocator alloc; /* the allocator in use (the default one points at `pool`) */
  cudaMemPool_t pool;     /* the default allocator's pool, NULL with a user allocator */
  /* Filled by calls as they ask (thread-safe); the only part of a context that changes after
   * creation, and only by adding answers that do not depend on the caller. */
  cuprim__occupancy_cache *occupancy;
  cuprim__temp_cache *temp; /* with the default allocator only; else NULL */
};

/* Makes the context's device current for the duration of a call. */
typedef struct cuprim__device_scope {
  int previous;
  int switched;
} cuprim__device_scope;
cuprim_status cuprim__device_enter(const cuprim_ctx *ctx, cuprim__device_scope *scope);
void cuprim__device_leave(const cuprim__device_scope *scope);

/* Temporary device memory through the context's allocator, stream-ordered on `stream`.
 * Returns CUPRIM_ERROR_OUT_OF_MEMORY if the allocator returns NULL. bytes == 0 gives NULL.
 * With the default allocator, a call's memory (up to 4 MiB) is the context's cached block when
 * no other call holds it and the stream is the one the block was last used on: no allocation
 * call at all (context.c). */
cuprim_status cuprim__temp_alloc(const cuprim_ctx *ctx, size_t bytes, cudaStream_t stream,
                                 void **ptr);
void cuprim__temp_free(const cuprim_ctx *ctx, void *ptr, size_t bytes, cudaStream_t stream);

/* For tests of argument checking on machines with no GPU: a context bound to no device. Calls
 * whose arguments are valid return CUPRIM_ERROR_NO_DEVICE with it, having touched nothing. */
cuprim_status cuprim__ctx_create_host_only(cuprim_ctx **ctx);

#ifdef __cplusplus
}
#endif

#endif
