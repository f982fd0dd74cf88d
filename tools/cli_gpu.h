/* tools/cli_gpu.h: the cuprim program's device side, in plain C over the CUDA runtime API: the
 * device check, a context with its stream, error reporting mapped to exit codes, timing (through
 * the harness that cuprim-bench uses too, harness/gpu_timer.h), the measured copy bandwidth, and
 * staged transfers between files and device memory with progress on stderr. */
#ifndef CUPRIM_TOOLS_CLI_GPU_H
#define CUPRIM_TOOLS_CLI_GPU_H

#include "cli_args.h"
#include "cli_io.h"
#include "gpu_timer.h"

#include <cuda_runtime_api.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Returns 0 when `device` is a usable CUDA device; otherwise prints one line and returns
 * CLI_EXIT_NO_DEVICE (no driver or no device) or CLI_EXIT_USAGE (no such ordinal). Called after
 * every check that needs no device, so that bad input is reported the same with or without one. */
int cli_require_device(const char *command, int device);
/* The same for every device of the command line (a->devices: --device D, or --devices L, named
 * in the message). */
int cli_require_devices(const char *command, const cli_args *a);

/* A failed CUDA call: prints "cuprim <command>: <what>: <error>" and returns CLI_EXIT_FAILED;
 * returns 0 for cudaSuccess. */
int cli_cuda(cudaError_t e, const char *command, const char *what);
/* A failed cuprim call: prints the status (with the CUDA error behind CUPRIM_ERROR_CUDA) and
 * returns its exit code: UNSUPPORTED 5, INVALID_ARGUMENT 2, NO_DEVICE 77, others 1. 0 on success.
 */
int cli_cuprim(cuprim_status s, const char *command, const char *what);

typedef struct cli_gpu {
  const char *command; /* for messages */
  int device;
  struct cudaDeviceProp prop;
  cuprim_ctx *ctx;
  cudaStream_t stream; /* non-blocking: everything runs here */
  /* The timer, made for `timer_runs` samples by the first timing call; its L2 flush reads the
   * harness's buffer with cuprim's own reduce (the program has no kernels), into d_flush_out. */
  gt_timer timer;
  unsigned timer_runs;
  uint64_t *d_flush_out;
  /* Staging for file transfers: two pinned host buffers used in turn, each with an event that
   * marks when its last copy is done. */
  void *h_stage[2];
  size_t stage_bytes;
  cudaEvent_t stage_done[2];
} cli_gpu;

/* Creates the context, stream and events on `device`. On failure everything is released. */
int cli_gpu_open(cli_gpu *g, const char *command, int device);
void cli_gpu_close(cli_gpu *g); /* a zeroed struct is fine */

/* One call to time: enqueues its work on `stream`; returns an exit code, having printed what
 * failed (cli_cuda, cli_cuprim). */
typedef int (*cli_timed_fn)(void *user, cudaStream_t stream);

/* One warm-up call, then `runs` samples of [flush L2, event, call, event], by the harness
 * (gpu_timer.h); *median_us is the median of the samples. The flush reads a buffer of at least
 * twice the L2 size (with a cuprim reduce), so the input of the timed call is not in L2 and L2
 * holds no dirty lines for the call to write back. Returns an exit code (printing the error). */
int cli_gpu_time(cli_gpu *g, cli_timed_fn fn, void *user, unsigned runs, double *median_us);
/* A device-to-device copy of `bytes` from d_src to d_dst, timed the same way. */
int cli_gpu_time_copy(cli_gpu *g, void *d_dst, const void *d_src, size_t bytes, unsigned runs,
                      double *median_us);

/* The device-to-device copy bandwidth: cudaMemcpyAsync of *bytes (1 GiB, less if free memory is
 * short) timed like cli_gpu_time, counting bytes read plus bytes written. */
int cli_gpu_copy_bandwidth(cli_gpu *g, unsigned runs, double *gbps, size_t *bytes);

/* Allocates the staging buffers: each min(limit, 32 MiB), at least 1 byte. */
int cli_gpu_stage(cli_gpu *g, size_t limit);

/* Progress of a long transfer, on stderr, only when stderr is a terminal, and only once a run
 * has taken more than a second. */
typedef struct cli_progress {
  int tty;
  const char *what;
  uint64_t total, done;
  double start_s;
  int shown;
  int last_pct;
} cli_progress;
void cli_progress_start(cli_progress *p, const char *what, uint64_t total);
void cli_progress_add(cli_progress *p, uint64_t bytes);
void cli_progress_end(cli_progress *p);

/* Reads `bytes` bytes of `in` and copies them to d_dst on g->stream, through the staging buffers
 * (reading the next block while the last one is copied). The copies may still be running on
 * return; work enqueued after them on g->stream sees the data. */
int cli_gpu_upload(cli_gpu *g, cli_input *in, void *d_dst, size_t bytes, cli_progress *p);
/* The same for `count` F16 or BF16 elements of `in`, widened on the host to floats (exactly):
 * d_dst receives count floats. For runs that keep 16-bit data in float across passes. */
int cli_gpu_upload_widened(cli_gpu *g, cli_input *in, void *d_dst, uint64_t count, cli_progress *p);
/* Copies `bytes` bytes from d_src (after the work enqueued on g->stream) and writes them to out
 * (cli_output_write_elements: the bytes, or CSV). */
int cli_gpu_download(cli_gpu *g, const void *d_src, size_t bytes, cli_output *out);
/* The same for `count` floats at d_src, written as elements of t (F16 or BF16), each rounded
 * once to nearest even (hr_half_from_double: the library's rounding). */
int cli_gpu_download_narrowed(cli_gpu *g, const float *d_src, uint64_t count, cuprim_dtype t,
                              cli_output *out);

#ifdef __cplusplus
}
#endif

#endif /* CUPRIM_TOOLS_CLI_GPU_H */
