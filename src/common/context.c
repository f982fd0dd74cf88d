/* Context creation: device attributes read once, and the default stream-ordered pool
 * allocator. */
#include "context.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "code_arch.h"

/* ---------------------------------------------------------------- default allocator */

static void *cuprim__pool_alloc(void *user, size_t bytes, cudaStream_t stream) {
  void *p = NULL;
  if (cudaMallocFromPoolAsync(&p, bytes, (cudaMemPool_t)user, stream) != cudaSuccess) {
    (void)cudaGetLastError(); /* an allocation failure is reported as OUT_OF_MEMORY */
    return NULL;
  }
  return p;
}

static void cuprim__pool_free(void *user, void *ptr, size_t bytes, cudaStream_t stream) {
  (void)user;
  (void)bytes;
  if (cudaFreeAsync(ptr, stream) != cudaSuccess)
    (void)cudaGetLastError();
}

/* ---------------------------------------------------------------- device scope */

cuprim_status cuprim__device_enter(const cuprim_ctx *ctx, cuprim__device_scope *scope) {
  scope->switched = 0;
  scope->previous = ctx->device;
  if (ctx->device < 0)
    return CUPRIM_ERROR_NO_DEVICE;
  CUPRIM__CUDA_CHECK(cudaGetDevice(&scope->previous));
  if (scope->previous != ctx->device) {
    CUPRIM__CUDA_CHECK(cudaSetDevice(ctx->device));
    scope->switched = 1;
  }
  return CUPRIM_SUCCESS;
}

void cuprim__device_leave(const cuprim__device_scope *scope) {
  if (scope->switched)
    (void)cudaSetDevice(scope->previous);
}

/* ---------------------------------------------------------------- the cached block */

/* The pair cudaMallocFromPoolAsync + cudaFreeAsync costs the host about a microsecond per call,
 * and at small and mid sizes the GPU waits for it: on the H100, cuprim-bench --prealloc (the
 * temporary memory allocated once, as CUB's is in the comparison) measured 1.0 to 1.5 us less
 * per call from 2^16 to 2^22 elements for the scan, the reduce and the arg-reduce (2026-11-24).
 * So a context with the default allocator keeps one block of pool memory and hands it to the
 * next call that needs at most TEMP_CACHE_MAX bytes, when
 *  - no other call holds it (one holder at a time: `busy`), and
 *  - the call's stream is the one the block was allocated on, by cudaStreamGetId (an id is never
 *    reused, unlike a handle, and each thread's per-thread default stream has its own): stream
 *    order then puts the new call's work after everything the last one enqueued. The block never
 *    moves to another stream (whether that stream's work would come after the block's last use
 *    is not known without an event per call), so calls on other streams, and on any stream once
 *    the block's own stream is destroyed, use the pool as before; and
 *  - the stream is not being captured into a graph (a graph would keep the block's address).
 * Otherwise the call allocates from the pool as before. A block too small for a call on its own
 * stream is freed in that stream's order and replaced. cuprim_ctx_destroy frees the block. */
#define TEMP_CACHE_MAX ((size_t)4 << 20)
#define TEMP_CACHE_MIN ((size_t)4 << 10) /* the smallest block kept */

struct cuprim__temp_cache {
  atomic_int busy;              /* 1 while a call holds the block (or is replacing it) */
  _Atomic(void *) ptr;          /* the block, or NULL; changed only by the call holding `busy` */
  size_t bytes;                 /* its size */
  unsigned long long stream_id; /* the stream it was allocated on */
};

/* Hands the block to this call (returns 1), or returns 0: the call then uses the pool. */
static int cuprim__temp_cache_take(const cuprim_ctx *ctx, cuprim__temp_cache *c, size_t bytes,
                                   cudaStream_t stream, void **ptr) {
  /* Capture first: cudaStreamGetId on a stream being captured invalidates the capture. */
  enum cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
    (void)cudaGetLastError(); /* the pool path meets the same stream and reports it */
    return 0;
  }
  if (capture != cudaStreamCaptureStatusNone)
    return 0;
  unsigned long long id = 0;
  if (cudaStreamGetId(stream, &id) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  if (atomic_exchange(&c->busy, 1))
    return 0;
  void *p = atomic_load(&c->ptr);
  if (p && c->stream_id != id) {
    atomic_store(&c->busy, 0);
    return 0;
  }
  if (p && c->bytes < bytes) { /* the same stream: replace it, in that stream's order */
    ctx->alloc.free(ctx->alloc.user, p, c->bytes, stream);
    atomic_store(&c->ptr, NULL);
    p = NULL;
  }
  if (!p) {
    const size_t want = bytes > TEMP_CACHE_MIN ? bytes : TEMP_CACHE_MIN;
    p = ctx->alloc.alloc(ctx->alloc.user, want, stream);
    if (!p) {
      atomic_store(&c->busy, 0);
      return 0;
    }
    c->bytes = want;
    c->stream_id = id;
    atomic_store(&c->ptr, p);
  }
  *ptr = p; /* held until cuprim__temp_free */
  return 1;
}

cuprim_status cuprim__temp_alloc(const cuprim_ctx *ctx, size_t bytes, cudaStream_t stream,
                                 void **ptr) {
  *ptr = NULL;
  if (bytes == 0)
    return CUPRIM_SUCCESS;
  if (ctx->temp && bytes <= TEMP_CACHE_MAX &&
      cuprim__temp_cache_take(ctx, ctx->temp, bytes, stream, ptr))
    return CUPRIM_SUCCESS;
  *ptr = ctx->alloc.alloc(ctx->alloc.user, bytes, stream);
  return *ptr ? CUPRIM_SUCCESS : CUPRIM_ERROR_OUT_OF_MEMORY;
}

void cuprim__temp_free(const cuprim_ctx *ctx, void *ptr, size_t bytes, cudaStream_t stream) {
  if (!ptr)
    return;
  /* Only the call holding the block has it: a pool allocation is never the block. */
  if (ctx->temp && ptr == atomic_load(&ctx->temp->ptr)) {
    atomic_store(&ctx->temp->busy, 0);
    return;
  }
  ctx->alloc.free(ctx->alloc.user, ptr, bytes, stream);
}

/* ---------------------------------------------------------------- create / destroy */

static cuprim_status cuprim__read_attrs(int device, cuprim__device_attrs *a) {
  struct {
    enum cudaDeviceAttr attr;
    int *out;
  } const want[] = {
      {cudaDevAttrComputeCapabilityMajor, &a->cc_major},
      {cudaDevAttrComputeCapabilityMinor, &a->cc_minor},
      {cudaDevAttrMultiProcessorCount, &a->sm_count},
      {cudaDevAttrMaxThreadsPerMultiProcessor, &a->max_threads_per_sm},
      {cudaDevAttrMaxBlocksPerMultiprocessor, &a->max_blocks_per_sm},
      {cudaDevAttrMaxSharedMemoryPerBlockOptin, &a->smem_per_block_optin},
      {cudaDevAttrMaxGridDimX, &a->max_grid_x},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i)
    CUPRIM__CUDA_CHECK(cudaDeviceGetAttribute(want[i].out, want[i].attr, device));
  return cuprim__code_arch(&a->code_arch, &a->binary_arch);
}

static cuprim_status cuprim__ctx_init(cuprim_ctx *c, const cuprim_allocator *alloc) {
  cuprim_status st = cuprim__read_attrs(c->device, &c->attrs);
  if (st != CUPRIM_SUCCESS)
    return st;
  c->occupancy = cuprim__occupancy_cache_create();
  if (!c->occupancy)
    return CUPRIM_ERROR_OUT_OF_MEMORY;
  if (alloc) {
    c->alloc = *alloc;
  } else {
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = c->device;
    CUPRIM__CUDA_CHECK(cudaMemPoolCreate(&c->pool, &props));
    /* Keep freed memory in the pool: repeated calls then reuse it instead of paying for fresh
     * device allocations at every stream synchronization. */
    uint64_t keep = UINT64_MAX;
    CUPRIM__CUDA_CHECK(cudaMemPoolSetAttribute(c->pool, cudaMemPoolAttrReleaseThreshold, &keep));
    c->alloc.alloc = cuprim__pool_alloc;
    c->alloc.free = cuprim__pool_free;
    c->alloc.user = c->pool;
    c->temp = (cuprim__temp_cache *)calloc(1, sizeof *c->temp);
    if (!c->temp)
      return CUPRIM_ERROR_OUT_OF_MEMORY;
    atomic_init(&c->temp->busy, 0);
    atomic_init(&c->temp->ptr, NULL);
  }
  return CUPRIM_SUCCESS;
}

static void cuprim__ctx_release(cuprim_ctx *c) {
  cuprim__occupancy_cache_destroy(c->occupancy);
  if (c->temp) {
    /* Its last user's work is done (cuprim_ctx_destroy's contract), so any stream will do. */
    void *p = atomic_load(&c->temp->ptr);
    if (p && cudaFreeAsync(p, cudaStreamLegacy) != cudaSuccess)
      (void)cudaGetLastError();
    free(c->temp);
  }
  if (c->pool)
    (void)cudaMemPoolDestroy(c->pool);
  free(c);
}

cuprim_status cuprim_ctx_create(cuprim_ctx **ctx, int device, const cuprim_allocator *alloc) {
  CUPRIM__CHECK_ARG(ctx != NULL);
  CUPRIM__CHECK_ARG(device >= 0);
  CUPRIM__CHECK_ARG(alloc == NULL || (alloc->alloc != NULL && alloc->free != NULL));

  int count = 0;
  CUPRIM__CUDA_CHECK(cudaGetDeviceCount(&count));
  if (count == 0)
    return CUPRIM_ERROR_NO_DEVICE;
  CUPRIM__CHECK_ARG(device < count);

  cuprim_ctx *c = (cuprim_ctx *)calloc(1, sizeof *c);
  if (!c)
    return CUPRIM_ERROR_OUT_OF_MEMORY;
  c->device = device;
  cuprim__device_scope scope;
  cuprim_status st = cuprim__device_enter(c, &scope);
  if (st == CUPRIM_SUCCESS) {
    st = cuprim__ctx_init(c, alloc);
    cuprim__device_leave(&scope);
  }
  if (st != CUPRIM_SUCCESS) {
    cuprim__ctx_release(c);
    return st;
  }
  *ctx = c;
  return CUPRIM_SUCCESS;
}

cuprim_status cuprim_ctx_destroy(cuprim_ctx *ctx) {
  if (!ctx)
    return CUPRIM_SUCCESS;
  if (ctx->device < 0) {
    free(ctx);
    return CUPRIM_SUCCESS;
  }
  cuprim__device_scope scope;
  cuprim_status st = cuprim__device_enter(ctx, &scope);
  cuprim__ctx_release(ctx);
  if (st == CUPRIM_SUCCESS)
    cuprim__device_leave(&scope);
  return st;
}

cuprim_status cuprim_ctx_code_arch(const cuprim_ctx *ctx, int *code_arch, int *from_ptx) {
  CUPRIM__CHECK_ARG(ctx != NULL);
  if (ctx->device < 0)
    return CUPRIM_ERROR_NO_DEVICE;
  if (code_arch)
    *code_arch = ctx->attrs.code_arch;
  if (from_ptx)
    *from_ptx = !cuprim__build_has_machine_code(ctx->attrs.binary_arch);
  return CUPRIM_SUCCESS;
}

cuprim_status cuprim__ctx_create_host_only(cuprim_ctx **ctx) {
  CUPRIM__CHECK_ARG(ctx != NULL);
  cuprim_ctx *c = (cuprim_ctx *)calloc(1, sizeof *c);
  if (!c)
    return CUPRIM_ERROR_OUT_OF_MEMORY;
  c->device = -1;
  *ctx = c;
  return CUPRIM_SUCCESS;
}
