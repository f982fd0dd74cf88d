/* harness/gpu_timer.h: the one timing harness of cuprim's programs (cuprim-bench and the cuprim
 * program's demo, ladder and info), in plain C over the CUDA runtime API.
 *
 * The method (docs/benchmarks.md): every sample is preceded by an L2 flush, so that the timed call
 * finds neither its input in L2 nor dirty lines of earlier work to write back; CUDA events are
 * recorded on the caller's stream around the call alone; `warmup` untimed calls (each after a
 * flush) come first, so that modules are loaded and memory pools are filled; then `samples`
 * samples are enqueued back to back, each with its own pair of events, and waited for once; the
 * result is the median (and the minimum) of the samples.
 *
 * The flush is one of two methods:
 *   GT_FLUSH_READ    the caller's function reads a buffer of max(2 x L2, 64 MiB) that the
 *                    harness owns (zeroed once). Reading leaves L2 full of clean lines, so the
 *                    timed call pays for no write-back of the flush's own data. cuprim-bench reads
 *                    it with its read-only kernel; the cuprim program, which has no kernels of
 *                    its own, with a cuprim_reduce.
 *   GT_FLUSH_MEMSET  cudaMemsetAsync of max(4 x L2, 200 MiB) on the timed stream, as an outside
 *                    harness may do it (issue 17's condition): L2 is left full of dirty lines.
 *
 * Errors: every function returns 0 on success. A timed function's own failure (a positive value
 * it returns) stops the measurement and is returned as it is; the harness's own failures are
 * negative (GT_ERROR_*), with the failing call and the CUDA error kept in the timer for the
 * caller's message. Nothing here prints or exits. */
#ifndef CUPRIM_HARNESS_GPU_TIMER_H
#define CUPRIM_HARNESS_GPU_TIMER_H

#include <cuda_runtime_api.h>

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  GT_ERROR_CUDA = -1,    /* a CUDA call failed: timer.error, timer.what */
  GT_ERROR_TIMEOUT = -2, /* the stream did not finish within timeout_s: a hung kernel? */
  GT_ERROR_HOST = -3     /* host memory ran out, or a bad argument: timer.what */
};

typedef enum gt_flush_method { GT_FLUSH_READ = 0, GT_FLUSH_MEMSET = 1 } gt_flush_method;

/* Enqueues the work to time on `stream`. Returns 0, or a positive code of the caller's choosing
 * (the caller keeps its own message). */
typedef int (*gt_fn)(void *user, cudaStream_t stream);
/* GT_FLUSH_READ: enqueues a read of d_buf[0..bytes) on `stream`; returns as gt_fn does. */
typedef int (*gt_flush_fn)(void *user, cudaStream_t stream, const void *d_buf, size_t bytes);

typedef struct gt_config {
  cudaStream_t stream; /* the caller's stream (non-blocking): flushes, events and calls */
  int warmup;          /* untimed calls before the samples, each after a flush (>= 0) */
  int samples;         /* timed samples (>= 1) */
  double timeout_s;    /* > 0: waiting longer for the stream is GT_ERROR_TIMEOUT; 0: no limit */
  gt_flush_method flush;
  gt_flush_fn flush_read; /* GT_FLUSH_READ: the read (required) */
  void *flush_user;
} gt_config;

typedef struct gt_timer {
  gt_config cfg;
  void *d_flush; /* the flush buffer, owned */
  size_t flush_bytes;
  cudaEvent_t *ev_start, *ev_stop; /* one pair per sample */
  cudaEvent_t ev_done;             /* what gt_wait waits for */
  cudaError_t error;               /* GT_ERROR_CUDA: the error */
  char what[96];                   /* GT_ERROR_*: the call or condition that failed */
} gt_timer;

typedef struct gt_timing {
  int samples;      /* samples taken */
  double median_us; /* the median of the samples, in microseconds */
  double min_us;    /* the fastest sample */
} gt_timing;

/* Creates the events and the flush buffer for `device` (the current device; its L2 size sizes the
 * buffer). On failure everything is released and *t is zeroed but for error and what. */
int gt_create(gt_timer *t, int device, const gt_config *cfg);
/* Releases everything (a zeroed timer is fine). Does not wait for the stream. */
void gt_destroy(gt_timer *t);

/* One flush, enqueued on the stream. */
int gt_flush(gt_timer *t);
/* Waits for everything enqueued on the stream so far (polling, within timeout_s if set); also
 * reports an asynchronous error of earlier work. */
int gt_wait(gt_timer *t);

/* Times fn: cfg.warmup untimed calls, then cfg.samples samples of [flush, event, call, event],
 * then one wait. *out is filled on success. */
int gt_time(gt_timer *t, gt_fn fn, void *user, gt_timing *out);
/* Times cudaMemcpyAsync(d_dst, d_src, bytes, device to device) the same way. */
int gt_time_copy(gt_timer *t, void *d_dst, const void *d_src, size_t bytes, gt_timing *out);

/* The device's copy bandwidth: a device-to-device copy of min(max_bytes, a quarter of the free
 * memory) bytes, rounded down to 16, in two buffers allocated here, timed by gt_time_copy;
 * *gbps counts bytes read plus bytes written. *bytes receives the size copied. GT_ERROR_HOST
 * (what: "not enough free device memory") below 1 MiB. */
int gt_copy_bandwidth(gt_timer *t, size_t max_bytes, double *gbps, size_t *bytes);

/* The median and minimum of ms[0..count) (milliseconds; sorted in place), in microseconds. */
gt_timing gt_summarize(float *ms, int count);

/* Bytes per microsecond * 1e-3: GB/s. */
static inline double gt_gbps(double bytes, double us) { return bytes / (us * 1e3); }

/* The flush buffer's size for a method on a device with l2_bytes of L2. */
size_t gt_flush_bytes(gt_flush_method m, size_t l2_bytes);

#ifdef __cplusplus
}
#endif

#endif /* CUPRIM_HARNESS_GPU_TIMER_H */
