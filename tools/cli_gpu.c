/* tools/cli_gpu.c: the device side of the cuprim program (see cli_gpu.h). */
#define _POSIX_C_SOURCE 200809L /* isatty, fileno, clock_gettime */

#include "cli_gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum {
  STAGE_MAX = 32 << 20, /* 32 MiB per staging buffer: large transfers, modest pinned memory */
  COPY_MAX = 1 << 30    /* copy-bandwidth buffer: 2^28 f32, as bench/ measures it */
};

/* devices[0..n) must be usable; `option` names them in the message ("--device 3", "--devices
 * 0,3"). */
static int require(const char *command, const int *devices, int n, const char *option) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    fprintf(stderr, "cuprim %s: no CUDA device available (cudaGetDeviceCount: %s)\n", command,
            cudaGetErrorString(e));
    return CLI_EXIT_NO_DEVICE;
  }
  if (count == 0) {
    fprintf(stderr, "cuprim %s: no CUDA device available (cudaGetDeviceCount: 0 devices)\n",
            command);
    return CLI_EXIT_NO_DEVICE;
  }
  for (int i = 0; i < n; ++i)
    if (devices[i] >= count) {
      if (n == 1)
        fprintf(stderr, "cuprim %s: %s: this machine has %d CUDA device(s)\n", command, option,
                count);
      else
        fprintf(stderr, "cuprim %s: %s: no device %d: this machine has %d CUDA device(s)\n",
                command, option, devices[i], count);
      return CLI_EXIT_USAGE;
    }
  return CLI_EXIT_OK;
}

int cli_require_device(const char *command, int device) {
  char option[32];
  snprintf(option, sizeof option, "--device %d", device);
  return require(command, &device, 1, option);
}

int cli_require_devices(const char *command, const cli_args *a) {
  if (!a->devices_arg)
    return cli_require_device(command, a->devices[0]);
  char option[256];
  snprintf(option, sizeof option, "--devices %s", a->devices_arg);
  return require(command, a->devices, a->num_devices, option);
}

int cli_cuda(cudaError_t e, const char *command, const char *what) {
  if (e == cudaSuccess)
    return CLI_EXIT_OK;
  fprintf(stderr, "cuprim %s: %s: %s (%s)\n", command, what, cudaGetErrorString(e),
          cudaGetErrorName(e));
  return CLI_EXIT_FAILED;
}

int cli_cuprim(cuprim_status s, const char *command, const char *what) {
  if (s == CUPRIM_SUCCESS)
    return CLI_EXIT_OK;
  if (s == CUPRIM_ERROR_CUDA)
    fprintf(stderr, "cuprim %s: %s: %s (%s)\n", command, what, cuprim_status_string(s),
            cudaGetErrorString(cuprim_last_cuda_error()));
  else
    fprintf(stderr, "cuprim %s: %s: %s\n", command, what, cuprim_status_string(s));
  switch (s) {
  case CUPRIM_ERROR_UNSUPPORTED:
    return CLI_EXIT_UNSUPPORTED;
  case CUPRIM_ERROR_INVALID_ARGUMENT:
    return CLI_EXIT_USAGE;
  case CUPRIM_ERROR_NO_DEVICE:
    return CLI_EXIT_NO_DEVICE;
  default:
    return CLI_EXIT_FAILED;
  }
}

int cli_gpu_open(cli_gpu *g, const char *command, int device) {
  memset(g, 0, sizeof *g);
  g->command = command;
  g->device = device;
  int rc = cli_cuprim(cuprim_ctx_create(&g->ctx, device, NULL), command, "cuprim_ctx_create");
  if (!rc)
    rc = cli_cuda(cudaSetDevice(device), command, "cudaSetDevice");
  if (!rc)
    rc = cli_cuda(cudaGetDeviceProperties(&g->prop, device), command, "cudaGetDeviceProperties");
  if (!rc)
    rc = cli_cuda(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking), command,
                  "cudaStreamCreateWithFlags");
  for (int i = 0; i < 2 && !rc; ++i)
    rc = cli_cuda(cudaEventCreateWithFlags(&g->stage_done[i], cudaEventDisableTiming), command,
                  "cudaEventCreate");
  if (rc)
    cli_gpu_close(g);
  return rc;
}

void cli_gpu_close(cli_gpu *g) {
  /* Teardown: errors here cannot change the outcome, so they are not reported. */
  if (g->stream)
    (void)cudaStreamSynchronize(g->stream);
  gt_destroy(&g->timer);
  (void)cudaFree(g->d_flush_out);
  for (int i = 0; i < 2; ++i) {
    (void)cudaFreeHost(g->h_stage[i]);
    if (g->stage_done[i])
      (void)cudaEventDestroy(g->stage_done[i]);
  }
  if (g->stream)
    (void)cudaStreamDestroy(g->stream);
  (void)cuprim_ctx_destroy(g->ctx);
  memset(g, 0, sizeof *g);
}

/* ---------------------------------------------------------------- timing */

/* The harness's read flush: cuprim's reduce over the flush buffer. */
static int read_flush(void *user, cudaStream_t stream, const void *d_buf, size_t bytes) {
  cli_gpu *g = (cli_gpu *)user;
  return cli_cuprim(cuprim_reduce(g->ctx, d_buf, g->d_flush_out, bytes / sizeof(uint64_t),
                                  CUPRIM_U64, CUPRIM_OR, stream),
                    g->command, "L2 flush (cuprim_reduce)");
}

/* A failure of the harness (rc < 0) printed; success (0) and a timed function's own code (rc > 0,
 * printed by it) passed on. */
static int timer_failed(cli_gpu *g, int rc) {
  if (rc >= 0)
    return rc;
  if (rc == GT_ERROR_CUDA)
    return cli_cuda(g->timer.error, g->command, g->timer.what);
  fprintf(stderr, "cuprim %s: %s\n", g->command, g->timer.what);
  return CLI_EXIT_FAILED;
}

/* The timer for `runs` samples (made anew when the count changes). */
static int timer_for(cli_gpu *g, unsigned runs) {
  if (g->timer_runs == runs)
    return CLI_EXIT_OK;
  gt_destroy(&g->timer);
  g->timer_runs = 0;
  if (!g->d_flush_out) {
    const int rc =
        cli_cuda(cudaMalloc((void **)&g->d_flush_out, sizeof(uint64_t)), g->command, "cudaMalloc");
    if (rc)
      return rc;
  }
  gt_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.stream = g->stream;
  cfg.warmup = 1; /* loads the module and fills the context's memory pool */
  cfg.samples = (int)runs;
  cfg.timeout_s = 0.0; /* a large --n with many --runs may take long: no limit */
  cfg.flush = GT_FLUSH_READ;
  cfg.flush_read = read_flush;
  cfg.flush_user = g;
  const int rc = gt_create(&g->timer, g->device, &cfg);
  if (rc)
    return timer_failed(g, rc);
  g->timer_runs = runs;
  return CLI_EXIT_OK;
}

int cli_gpu_time(cli_gpu *g, cli_timed_fn fn, void *user, unsigned runs, double *median_us) {
  int rc = timer_for(g, runs);
  gt_timing t;
  if (!rc)
    rc = timer_failed(g, gt_time(&g->timer, fn, user, &t));
  if (!rc)
    *median_us = t.median_us;
  return rc;
}

int cli_gpu_time_copy(cli_gpu *g, void *d_dst, const void *d_src, size_t bytes, unsigned runs,
                      double *median_us) {
  int rc = timer_for(g, runs);
  gt_timing t;
  if (!rc)
    rc = timer_failed(g, gt_time_copy(&g->timer, d_dst, d_src, bytes, &t));
  if (!rc)
    *median_us = t.median_us;
  return rc;
}

int cli_gpu_copy_bandwidth(cli_gpu *g, unsigned runs, double *gbps, size_t *bytes) {
  int rc = timer_for(g, runs);
  if (!rc)
    rc = timer_failed(g, gt_copy_bandwidth(&g->timer, COPY_MAX, gbps, bytes));
  return rc;
}

/* ---------------------------------------------------------------- transfers */

int cli_gpu_stage(cli_gpu *g, size_t limit) {
  g->stage_bytes = limit < STAGE_MAX ? (limit ? limit : 1) : STAGE_MAX;
  for (int i = 0; i < 2; ++i) {
    const int rc = cli_cuda(cudaMallocHost(&g->h_stage[i], g->stage_bytes), g->command,
                            "cudaMallocHost (staging buffer)");
    if (rc)
      return rc;
  }
  return CLI_EXIT_OK;
}

static double now_s(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
    return 0.0;
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { PROGRESS_AFTER_MS = 1000 }; /* quiet for runs shorter than this */

void cli_progress_start(cli_progress *p, const char *what, uint64_t total) {
  memset(p, 0, sizeof *p);
  p->tty = isatty(fileno(stderr));
  p->what = what;
  p->total = total;
  p->start_s = now_s();
  p->last_pct = -1;
}

void cli_progress_add(cli_progress *p, uint64_t bytes) {
  p->done += bytes;
  if (!p->tty || p->total == 0 || (now_s() - p->start_s) * 1e3 < PROGRESS_AFTER_MS)
    return;
  const int pct = (int)(100.0 * (double)p->done / (double)p->total);
  if (pct == p->last_pct)
    return;
  p->last_pct = pct;
  p->shown = 1;
  fprintf(stderr, "\rcuprim %s: %3d%% (%.2f of %.2f GB)", p->what, pct, (double)p->done * 1e-9,
          (double)p->total * 1e-9);
  fflush(stderr);
}

void cli_progress_end(cli_progress *p) {
  if (p->shown)
    fprintf(stderr, "\r%*s\r", 60, ""); /* clear the line: 60 columns cover the message */
  p->shown = 0;
}

/* Staging buffer k: waits until its last copy is done (so that it may be refilled or read). */
static int stage_wait(cli_gpu *g, int k) {
  return cli_cuda(cudaEventSynchronize(g->stage_done[k]), g->command, "cudaEventSynchronize");
}

/* Enqueues a copy into or out of staging buffer k, and marks when it is done. */
static int stage_copy(cli_gpu *g, int k, void *dst, const void *src, size_t bytes,
                      enum cudaMemcpyKind kind, const char *what) {
  int rc = cli_cuda(cudaMemcpyAsync(dst, src, bytes, kind, g->stream), g->command, what);
  if (!rc)
    rc = cli_cuda(cudaEventRecord(g->stage_done[k], g->stream), g->command, "cudaEventRecord");
  return rc;
}

/* Staging buffer bytes that hold whole floats: a widened or narrowed block. */
static size_t stage_floats_bytes(const cli_gpu *g) {
  return g->stage_bytes >= sizeof(float) ? g->stage_bytes / sizeof(float) * sizeof(float)
                                         : sizeof(float);
}

/* `bytes` of the file to d_dst; widen: the file's 16-bit floats (in->dtype) go to the device as
 * floats, twice the bytes. A widened block is read into the upper half of its floats' room and
 * converted forward in place: float i ends at byte 4i + 4, at or before where 16-bit value i + 1
 * starts (2m + 2i + 2 for m values), so no value is overwritten before it is read. */
static int upload(cli_gpu *g, cli_input *in, void *d_dst, size_t bytes, int widen,
                  cli_progress *p) {
  char err[512];
  size_t off = 0;
  const size_t room = widen ? stage_floats_bytes(g) / 2 : g->stage_bytes;
  for (int k = 0; off < bytes; k ^= 1) {
    const size_t blk = bytes - off < room ? bytes - off : room;
    /* The buffer's previous copy must be done before it is refilled. */
    int rc = stage_wait(g, k);
    if (rc)
      return rc;
    unsigned char *h = (unsigned char *)g->h_stage[k];
    rc = cli_input_read(in, widen ? h + blk : h, blk, err, sizeof err);
    if (rc) {
      fprintf(stderr, "cuprim %s: %s\n", g->command, err);
      return rc;
    }
    for (size_t i = 0; widen && i < blk / 2; ++i) {
      const float f = (float)hr_to_double(in->dtype, h + blk, i); /* exact */
      memcpy(h + i * sizeof f, &f, sizeof f);
    }
    rc = stage_copy(g, k, (char *)d_dst + (widen ? 2 * off : off), h, widen ? 2 * blk : blk,
                    cudaMemcpyHostToDevice, "cudaMemcpyAsync (upload)");
    if (rc)
      return rc;
    off += blk;
    if (p)
      cli_progress_add(p, blk);
  }
  return CLI_EXIT_OK;
}

int cli_gpu_upload(cli_gpu *g, cli_input *in, void *d_dst, size_t bytes, cli_progress *p) {
  return upload(g, in, d_dst, bytes, 0, p);
}

int cli_gpu_upload_widened(cli_gpu *g, cli_input *in, void *d_dst, uint64_t count,
                           cli_progress *p) {
  return upload(g, in, d_dst, (size_t)count * 2, 1, p);
}

/* `bytes` from d_src to out; narrow >= 0: d_src holds floats, written as that 16-bit dtype,
 * each rounded once (converted forward in place: value i's two bytes lie below float i + 1). */
static int download(cli_gpu *g, const void *d_src, size_t bytes, int narrow, cli_output *out) {
  char err[512];
  size_t off = 0, pending = 0;
  int pending_k = -1;
  const size_t room = narrow >= 0 ? stage_floats_bytes(g) : g->stage_bytes;
  for (int k = 0; off < bytes || pending_k >= 0; k ^= 1) {
    int rc = CLI_EXIT_OK;
    /* Enqueue the next block into buffer k, then write the previous one while it copies. */
    size_t blk = 0;
    if (off < bytes) {
      blk = bytes - off < room ? bytes - off : room;
      rc = stage_wait(g, k);
      if (!rc)
        rc = stage_copy(g, k, g->h_stage[k], (const char *)d_src + off, blk, cudaMemcpyDeviceToHost,
                        "cudaMemcpyAsync (download)");
      if (rc)
        return rc;
      off += blk;
    }
    if (pending_k >= 0) {
      rc = stage_wait(g, pending_k);
      unsigned char *h = (unsigned char *)g->h_stage[pending_k];
      for (size_t i = 0; !rc && narrow >= 0 && i < pending / sizeof(float); ++i) {
        float f;
        memcpy(&f, h + i * sizeof f, sizeof f);
        const uint16_t v = hr_half_from_double((cuprim_dtype)narrow, (double)f);
        memcpy(h + i * sizeof v, &v, sizeof v);
      }
      if (!rc)
        rc =
            cli_output_write_elements(out, h, narrow >= 0 ? pending / 2 : pending, err, sizeof err);
      if (rc) {
        if (rc == CLI_EXIT_OUTPUT)
          fprintf(stderr, "cuprim %s: %s\n", g->command, err);
        return rc;
      }
    }
    pending_k = blk ? k : -1;
    pending = blk;
  }
  return CLI_EXIT_OK;
}

int cli_gpu_download(cli_gpu *g, const void *d_src, size_t bytes, cli_output *out) {
  return download(g, d_src, bytes, -1, out);
}

int cli_gpu_download_narrowed(cli_gpu *g, const float *d_src, uint64_t count, cuprim_dtype t,
                              cli_output *out) {
  return download(g, d_src, (size_t)count * sizeof(float), (int)t, out);
}
