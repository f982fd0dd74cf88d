/* tools/cli_gpu.c: the device side of the cuprim program (see cli_gpu.h). */
#define _POSIX_C_SOURCE 200809L /* isatty, fileno, clock_gettime */

#include "cli_gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum {
  STAGE_MAX = 32 << 20,     /* 32 MiB per staging buffer: large transfers, modest pinned memory */
  COPY_MAX = 1 << 30,       /* copy-bandwidth buffer: 2^28 f32, as bench/ measures it */
  COPY_MIN = 1 << 20,       /* below this the copy measures latency, not bandwidth */
  FLUSH_FALLBACK = 64 << 20 /* flush size when the device reports no L2 size */
};

int cli_require_device(const char *command, int device) {
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
  if (device >= count) {
    fprintf(stderr, "cuprim %s: --device %d: this machine has %d CUDA device(s)\n", command, device,
            count);
    return CLI_EXIT_USAGE;
  }
  return CLI_EXIT_OK;
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
  if (!rc)
    rc = cli_cuda(cudaEventCreate(&g->start), command, "cudaEventCreate");
  if (!rc)
    rc = cli_cuda(cudaEventCreate(&g->stop), command, "cudaEventCreate");
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
  (void)cudaFree(g->d_flush);
  (void)cudaFree(g->d_flush_out);
  for (int i = 0; i < 2; ++i) {
    (void)cudaFreeHost(g->h_stage[i]);
    if (g->stage_done[i])
      (void)cudaEventDestroy(g->stage_done[i]);
  }
  if (g->start)
    (void)cudaEventDestroy(g->start);
  if (g->stop)
    (void)cudaEventDestroy(g->stop);
  if (g->stream)
    (void)cudaStreamDestroy(g->stream);
  (void)cuprim_ctx_destroy(g->ctx);
  memset(g, 0, sizeof *g);
}

/* ---------------------------------------------------------------- timing */

static int compare_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int flush_l2(cli_gpu *g) {
  if (!g->d_flush) {
    size_t bytes = g->prop.l2CacheSize > 0 ? 2 * (size_t)g->prop.l2CacheSize : FLUSH_FALLBACK;
    g->n_flush = (bytes + sizeof(uint64_t) - 1) / sizeof(uint64_t);
    bytes = g->n_flush * sizeof(uint64_t);
    int rc = cli_cuda(cudaMalloc((void **)&g->d_flush, bytes), g->command, "cudaMalloc (L2 flush)");
    if (!rc)
      rc = cli_cuda(cudaMalloc((void **)&g->d_flush_out, sizeof(uint64_t)), g->command,
                    "cudaMalloc");
    /* Initialized once, so that the flush reads defined memory (compute-sanitizer initcheck). */
    if (!rc)
      rc =
          cli_cuda(cudaMemsetAsync(g->d_flush, 0, bytes, g->stream), g->command, "cudaMemsetAsync");
    if (rc)
      return rc;
  }
  return cli_cuprim(cuprim_reduce(g->ctx, g->d_flush, g->d_flush_out, g->n_flush, CUPRIM_U64,
                                  CUPRIM_OR, g->stream),
                    g->command, "L2 flush (cuprim_reduce)");
}

int cli_gpu_time(cli_gpu *g, cli_timed_fn fn, void *user, unsigned runs, double *median_us) {
  double *us = (double *)malloc(runs * sizeof(double));
  if (!us) {
    fprintf(stderr, "cuprim %s: out of host memory\n", g->command);
    return CLI_EXIT_FAILED;
  }
  /* The warm-up loads the module and fills the context's memory pool. */
  int rc = flush_l2(g);
  if (!rc)
    rc = fn(user, g->stream);
  if (!rc)
    rc = cli_cuda(cudaStreamSynchronize(g->stream), g->command, "cudaStreamSynchronize");
  for (unsigned r = 0; r < runs && !rc; ++r) {
    float ms = 0.0f;
    rc = flush_l2(g);
    if (!rc)
      rc = cli_cuda(cudaEventRecord(g->start, g->stream), g->command, "cudaEventRecord");
    if (!rc)
      rc = fn(user, g->stream);
    if (!rc)
      rc = cli_cuda(cudaEventRecord(g->stop, g->stream), g->command, "cudaEventRecord");
    if (!rc)
      rc = cli_cuda(cudaEventSynchronize(g->stop), g->command, "cudaEventSynchronize");
    if (!rc)
      rc = cli_cuda(cudaEventElapsedTime(&ms, g->start, g->stop), g->command,
                    "cudaEventElapsedTime");
    us[r] = 1e3 * (double)ms;
  }
  if (!rc) {
    qsort(us, runs, sizeof(double), compare_double);
    *median_us = runs % 2 ? us[runs / 2] : 0.5 * (us[runs / 2 - 1] + us[runs / 2]);
  }
  free(us);
  return rc;
}

typedef struct copy_job {
  const char *command;
  void *dst;
  const void *src;
  size_t bytes;
} copy_job;

static int timed_copy(void *user, cudaStream_t stream) {
  const copy_job *c = (const copy_job *)user;
  return cli_cuda(cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, stream),
                  c->command, "cudaMemcpyAsync (device to device)");
}

int cli_gpu_copy_bandwidth(cli_gpu *g, unsigned runs, double *gbps, size_t *bytes_out) {
  size_t free_b = 0, total_b = 0;
  int rc = cli_cuda(cudaMemGetInfo(&free_b, &total_b), g->command, "cudaMemGetInfo");
  if (rc)
    return rc;
  /* Two buffers, leaving half the free memory alone. */
  size_t bytes = free_b / 4 < COPY_MAX ? free_b / 4 : COPY_MAX;
  bytes &= ~(size_t)15; /* 16-byte multiple: full-width copies */
  if (bytes < COPY_MIN) {
    fprintf(stderr, "cuprim %s: not enough free device memory to measure the copy bandwidth\n",
            g->command);
    return CLI_EXIT_FAILED;
  }
  copy_job c = {g->command, NULL, NULL, bytes};
  rc = cli_cuda(cudaMalloc(&c.dst, bytes), g->command, "cudaMalloc");
  if (!rc)
    rc = cli_cuda(cudaMalloc((void **)&c.src, bytes), g->command, "cudaMalloc");
  if (!rc)
    rc = cli_cuda(cudaMemsetAsync((void *)c.src, 0, bytes, g->stream), g->command,
                  "cudaMemsetAsync");
  double us = 0.0;
  if (!rc)
    rc = cli_gpu_time(g, timed_copy, &c, runs, &us);
  if (!rc) {
    *gbps = 2.0 * (double)bytes / (us * 1e3); /* read + written, bytes per ns = GB/s */
    *bytes_out = bytes;
  }
  (void)cudaStreamSynchronize(g->stream);
  (void)cudaFree(c.dst);
  (void)cudaFree((void *)c.src);
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

int cli_gpu_upload(cli_gpu *g, cli_input *in, void *d_dst, size_t bytes, cli_progress *p) {
  char err[512];
  size_t off = 0;
  for (int k = 0; off < bytes; k ^= 1) {
    const size_t blk = bytes - off < g->stage_bytes ? bytes - off : g->stage_bytes;
    /* The buffer's previous copy must be done before it is refilled. */
    int rc = cli_cuda(cudaEventSynchronize(g->stage_done[k]), g->command, "cudaEventSynchronize");
    if (rc)
      return rc;
    rc = cli_input_read(in, g->h_stage[k], blk, err, sizeof err);
    if (rc) {
      fprintf(stderr, "cuprim %s: %s\n", g->command, err);
      return rc;
    }
    rc = cli_cuda(
        cudaMemcpyAsync((char *)d_dst + off, g->h_stage[k], blk, cudaMemcpyHostToDevice, g->stream),
        g->command, "cudaMemcpyAsync (upload)");
    if (!rc)
      rc = cli_cuda(cudaEventRecord(g->stage_done[k], g->stream), g->command, "cudaEventRecord");
    if (rc)
      return rc;
    off += blk;
    if (p)
      cli_progress_add(p, blk);
  }
  return CLI_EXIT_OK;
}

int cli_gpu_download(cli_gpu *g, const void *d_src, size_t bytes, cli_output *out) {
  char err[512];
  size_t off = 0, pending = 0;
  int pending_k = -1;
  for (int k = 0; off < bytes || pending_k >= 0; k ^= 1) {
    int rc = CLI_EXIT_OK;
    /* Enqueue the next block into buffer k, then write the previous one while it copies. */
    size_t blk = 0;
    if (off < bytes) {
      blk = bytes - off < g->stage_bytes ? bytes - off : g->stage_bytes;
      rc = cli_cuda(cudaEventSynchronize(g->stage_done[k]), g->command, "cudaEventSynchronize");
      if (!rc)
        rc = cli_cuda(cudaMemcpyAsync(g->h_stage[k], (const char *)d_src + off, blk,
                                      cudaMemcpyDeviceToHost, g->stream),
                      g->command, "cudaMemcpyAsync (download)");
      if (!rc)
        rc = cli_cuda(cudaEventRecord(g->stage_done[k], g->stream), g->command, "cudaEventRecord");
      if (rc)
        return rc;
      off += blk;
    }
    if (pending_k >= 0) {
      rc = cli_cuda(cudaEventSynchronize(g->stage_done[pending_k]), g->command,
                    "cudaEventSynchronize");
      if (!rc)
        rc = cli_output_write(out, g->h_stage[pending_k], pending, err, sizeof err);
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
