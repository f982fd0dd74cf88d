/* Context creation: device attributes read once, and the default stream-ordered pool
 * allocator. */
#include "context.h"

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

cuprim_status cuprim__temp_alloc(const cuprim_ctx *ctx, size_t bytes, cudaStream_t stream,
                                 void **ptr) {
  *ptr = NULL;
  if (bytes == 0)
    return CUPRIM_SUCCESS;
  *ptr = ctx->alloc.alloc(ctx->alloc.user, bytes, stream);
  return *ptr ? CUPRIM_SUCCESS : CUPRIM_ERROR_OUT_OF_MEMORY;
}

void cuprim__temp_free(const cuprim_ctx *ctx, void *ptr, size_t bytes, cudaStream_t stream) {
  if (ptr)
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
  }
  return CUPRIM_SUCCESS;
}

static void cuprim__ctx_release(cuprim_ctx *c) {
  cuprim__occupancy_cache_destroy(c->occupancy);
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
