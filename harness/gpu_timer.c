/* harness/gpu_timer.c: the timing harness (see gpu_timer.h for the method). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep */

#include "gpu_timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
  READ_FLUSH_MIN = 64 << 20,    /* a floor for devices that report a small (or no) L2 */
  MEMSET_FLUSH_MIN = 200 << 20, /* issue 17's outside harness: 200 MB, 4x an H100's L2 */
  COPY_MIN = 1 << 20            /* below this a copy measures latency, not bandwidth */
};

/* Records a failed CUDA call; returns GT_ERROR_CUDA. */
static int cuda_failed(gt_timer *t, cudaError_t e, const char *what) {
  t->error = e;
  snprintf(t->what, sizeof t->what, "%s", what);
  (void)cudaGetLastError(); /* a non-sticky error must not be reported again by the next call */
  return GT_ERROR_CUDA;
}

#define GT_CUDA(t, call)                                                                           \
  do {                                                                                             \
    const cudaError_t gt_e_ = (call);                                                              \
    if (gt_e_ != cudaSuccess)                                                                      \
      return cuda_failed((t), gt_e_, #call);                                                       \
  } while (0)

size_t gt_flush_bytes(gt_flush_method m, size_t l2_bytes) {
  size_t bytes = m == GT_FLUSH_MEMSET ? 4 * l2_bytes : 2 * l2_bytes;
  const size_t floor = m == GT_FLUSH_MEMSET ? (size_t)MEMSET_FLUSH_MIN : (size_t)READ_FLUSH_MIN;
  bytes = bytes > floor ? bytes : floor;
  return (bytes + 15) / 16 * 16; /* whole 16-byte vectors for a read kernel */
}

static int create(gt_timer *t, int device) {
  if (t->cfg.samples < 1 || t->cfg.warmup < 0 ||
      (t->cfg.flush == GT_FLUSH_READ && !t->cfg.flush_read)) {
    snprintf(t->what, sizeof t->what, "gt_create: bad configuration");
    return GT_ERROR_HOST;
  }
  const size_t n = (size_t)t->cfg.samples;
  t->ev_start = (cudaEvent_t *)calloc(n, sizeof(cudaEvent_t));
  t->ev_stop = (cudaEvent_t *)calloc(n, sizeof(cudaEvent_t));
  if (!t->ev_start || !t->ev_stop) {
    snprintf(t->what, sizeof t->what, "out of host memory");
    return GT_ERROR_HOST;
  }
  for (size_t i = 0; i < n; ++i) {
    GT_CUDA(t, cudaEventCreate(&t->ev_start[i]));
    GT_CUDA(t, cudaEventCreate(&t->ev_stop[i]));
  }
  GT_CUDA(t, cudaEventCreateWithFlags(&t->ev_done, cudaEventDisableTiming));
  int l2 = 0;
  GT_CUDA(t, cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  t->flush_bytes = gt_flush_bytes(t->cfg.flush, l2 > 0 ? (size_t)l2 : 0);
  GT_CUDA(t, cudaMalloc(&t->d_flush, t->flush_bytes));
  /* Zeroed once, so that a read flush reads defined memory (compute-sanitizer initcheck). */
  if (t->cfg.flush == GT_FLUSH_READ)
    GT_CUDA(t, cudaMemsetAsync(t->d_flush, 0, t->flush_bytes, t->cfg.stream));
  return 0;
}

int gt_create(gt_timer *t, int device, const gt_config *cfg) {
  memset(t, 0, sizeof *t);
  t->cfg = *cfg;
  const int rc = create(t, device);
  if (rc) {
    const cudaError_t e = t->error;
    char what[sizeof t->what];
    memcpy(what, t->what, sizeof what);
    gt_destroy(t);
    t->error = e;
    memcpy(t->what, what, sizeof what);
  }
  return rc;
}

void gt_destroy(gt_timer *t) {
  /* Teardown: errors here cannot change any result, so they are not reported. */
  for (int i = 0; i < t->cfg.samples; ++i) {
    if (t->ev_start && t->ev_start[i])
      (void)cudaEventDestroy(t->ev_start[i]);
    if (t->ev_stop && t->ev_stop[i])
      (void)cudaEventDestroy(t->ev_stop[i]);
  }
  if (t->ev_done)
    (void)cudaEventDestroy(t->ev_done);
  free(t->ev_start);
  free(t->ev_stop);
  (void)cudaFree(t->d_flush);
  memset(t, 0, sizeof *t);
}

int gt_flush(gt_timer *t) {
  if (t->cfg.flush == GT_FLUSH_MEMSET) {
    GT_CUDA(t, cudaMemsetAsync(t->d_flush, 0, t->flush_bytes, t->cfg.stream));
    return 0;
  }
  return t->cfg.flush_read(t->cfg.flush_user, t->cfg.stream, t->d_flush, t->flush_bytes);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int gt_wait(gt_timer *t) {
  GT_CUDA(t, cudaEventRecord(t->ev_done, t->cfg.stream));
  if (t->cfg.timeout_s <= 0.0) {
    GT_CUDA(t, cudaEventSynchronize(t->ev_done));
    return 0;
  }
  /* Polling rather than blocking, so that a kernel that never ends is reported, not waited for:
   * tight polls first (short calls), then every half millisecond. */
  const double t0 = now_s();
  for (;;) {
    const cudaError_t e = cudaEventQuery(t->ev_done);
    if (e == cudaSuccess)
      return 0;
    if (e != cudaErrorNotReady)
      return cuda_failed(t, e, "cudaEventQuery (an earlier kernel failed?)");
    const double waited = now_s() - t0;
    if (waited > t->cfg.timeout_s) {
      snprintf(t->what, sizeof t->what, "the GPU did not finish within %.0f s: a hung kernel?",
               waited);
      return GT_ERROR_TIMEOUT;
    }
    const struct timespec nap = {0, waited < 0.01 ? 20000 : 500000};
    nanosleep(&nap, NULL);
  }
}

static int compare_float(const void *a, const void *b) {
  const float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

gt_timing gt_summarize(float *ms, int count) {
  gt_timing r = {count, 0.0, 0.0};
  if (count <= 0)
    return r;
  qsort(ms, (size_t)count, sizeof *ms, compare_float);
  const size_t m = (size_t)count;
  const double med = m % 2 ? ms[m / 2] : 0.5 * ((double)ms[m / 2 - 1] + (double)ms[m / 2]);
  r.median_us = 1e3 * med;
  r.min_us = 1e3 * (double)ms[0];
  return r;
}

int gt_time(gt_timer *t, gt_fn fn, void *user, gt_timing *out) {
  int rc = 0;
  for (int i = 0; i < t->cfg.warmup && rc == 0; ++i) {
    rc = gt_flush(t);
    if (rc == 0)
      rc = fn(user, t->cfg.stream);
  }
  const int waited = gt_wait(t);
  if (rc)
    return rc;
  if (waited)
    return waited;
  /* The samples are enqueued back to back: no host gap lies between a flush and its call, and
   * the only synchronization is the one wait after the last sample. */
  int recorded = 0;
  for (int s = 0; s < t->cfg.samples; ++s) {
    rc = gt_flush(t);
    if (rc)
      break;
    GT_CUDA(t, cudaEventRecord(t->ev_start[s], t->cfg.stream));
    rc = fn(user, t->cfg.stream);
    GT_CUDA(t, cudaEventRecord(t->ev_stop[s], t->cfg.stream));
    if (rc)
      break;
    ++recorded;
  }
  const int w = gt_wait(t);
  if (rc)
    return rc;
  if (w)
    return w;
  float *ms = (float *)malloc((size_t)recorded * sizeof *ms + 1);
  if (!ms) {
    snprintf(t->what, sizeof t->what, "out of host memory");
    return GT_ERROR_HOST;
  }
  for (int s = 0; s < recorded; ++s) {
    const cudaError_t e = cudaEventElapsedTime(&ms[s], t->ev_start[s], t->ev_stop[s]);
    if (e != cudaSuccess) {
      free(ms);
      return cuda_failed(t, e, "cudaEventElapsedTime");
    }
  }
  *out = gt_summarize(ms, recorded);
  free(ms);
  return 0;
}

typedef struct copy_job {
  gt_timer *t;
  void *dst;
  const void *src;
  size_t bytes;
} copy_job;

static int timed_copy(void *user, cudaStream_t stream) {
  const copy_job *c = (const copy_job *)user;
  const cudaError_t e = cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, stream);
  return e == cudaSuccess ? 0 : cuda_failed(c->t, e, "cudaMemcpyAsync (device to device)");
}

int gt_time_copy(gt_timer *t, void *d_dst, const void *d_src, size_t bytes, gt_timing *out) {
  copy_job c = {t, d_dst, d_src, bytes};
  return gt_time(t, timed_copy, &c, out);
}

int gt_copy_bandwidth(gt_timer *t, size_t max_bytes, double *gbps, size_t *bytes_out) {
  size_t free_b = 0, total_b = 0;
  GT_CUDA(t, cudaMemGetInfo(&free_b, &total_b));
  /* Two buffers, leaving half the free memory alone. */
  size_t bytes = free_b / 4 < max_bytes ? free_b / 4 : max_bytes;
  bytes &= ~(size_t)15; /* 16-byte multiple: full-width copies */
  if (bytes < COPY_MIN) {
    snprintf(t->what, sizeof t->what, "not enough free device memory to measure the copy");
    return GT_ERROR_HOST;
  }
  void *d_a = NULL, *d_b = NULL;
  int rc = 0;
  cudaError_t e = cudaMalloc(&d_a, bytes);
  if (e == cudaSuccess)
    e = cudaMalloc(&d_b, bytes);
  if (e == cudaSuccess)
    e = cudaMemsetAsync(d_a, 0, bytes, t->cfg.stream);
  if (e != cudaSuccess)
    rc = cuda_failed(t, e, "cudaMalloc (copy bandwidth)");
  gt_timing tm;
  if (rc == 0)
    rc = gt_time_copy(t, d_b, d_a, bytes, &tm);
  if (rc == 0) {
    *gbps = gt_gbps(2.0 * (double)bytes, tm.median_us); /* read + written */
    *bytes_out = bytes;
  }
  (void)cudaStreamSynchronize(t->cfg.stream);
  (void)cudaFree(d_a);
  (void)cudaFree(d_b);
  return rc;
}
