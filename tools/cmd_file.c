/* tools/cmd_file.c: `cuprim reduce`, `cuprim scan` and `cuprim histogram`: the primitives on the
 * user's data, on one device or split over several (--devices).
 *
 * Each command checks everything it can without a device first (the command line, the input
 * file, the dtype and op, the edges, the output's directory), so that bad input gets the same
 * exit code on any machine; only then does it look for a device.
 *
 * The input is split into one share per device, in the order of --devices (one device: the
 * whole input). Each device is a rank (cli_team.h): on several devices one host thread and one
 * NCCL communicator each. A rank reads its share from the file through pinned staging buffers,
 * in passes of `chunk` elements (--chunk, or half its device's free memory, leaving the other
 * half to the library's temporary memory):
 *   reduce     each pass is reduced into a running total on the device (dev_total: two more
 *              reduces, nothing waits for the host); on several devices the ranks' totals are
 *              combined in rank order (cuprim_nccl_reduce). A float SUM of an input larger than
 *              one pass, or split over devices, may differ in its last bits from a single pass.
 *              16-bit floats in several pieces are widened to F32 on the host (choose_dtype), so
 *              that the result is rounded to 16 bits once. --op argmin|argmax: each pass's
 *              cuprim_reduce_arg answer is combined on the host, in file order (arg_passes).
 *   scan       a pass after the first starts from the running total of the elements before it
 *              (the carry), which stays on the device: cuprim_scan_init scans the pass from it.
 *              On several devices each rank first reduces its whole share, and an exclusive
 *              cuprim_nccl_scan of those one-element totals gives each rank, on its device, the
 *              total of the shares before it: its first carry. Exact for integers (wrapping) and
 *              for MIN/MAX/AND/OR/XOR; no pass waits for the host beyond the staged transfers.
 *              The ranks write the one output in turn, in rank order. The ladder algorithms (one
 *              device) have no initial value: their passes scan the carry as an extra element in
 *              front of the pass's elements. 16-bit floats as for reduce: each output element
 *              is rounded once, on the host, from the F32 scan.
 *   histogram  each pass's counts are added on the host (exact). Equal-width bins on several
 *              devices: each pass is a cuprim_nccl_histogram_even, with every rank making as
 *              many as the rank with the most passes (the others with no samples), and rank 0
 *              adds up the summed counts; --edges (cuprim_histogram_range, which the NCCL
 *              component lacks): each rank counts its share, and the host adds the ranks' counts;
 *              the same for --channels (cuprim_histogram_even_multi, passes and shares of whole
 *              pixels) and --weights (cuprim_histogram_even_weighted_ex, sums added in double).
 * With segments (--offsets OFF.npy, or --segment-size L), reduce and scan run on one device over
 * the whole input at once (no passes): cuprim_segmented_reduce and _scan, or cuprim_batched_reduce
 * and _scan; reduce writes one result per segment (printed one a line, or a 1-d .npy, or text),
 * scan runs in place on the uploaded input, so that the elements no segment covers keep FILE's
 * values.
 * Outputs are opened before any device work (a name that cannot be written fails first), written
 * to a temporary file beside the final one and renamed into place at the end; on any failure the
 * temporary is removed and nothing is written. "-" (and /dev/stdout) is standard output. The
 * format follows the name: *.npy a .npy file; *.csv text, one value a line (scan) or
 * lower,upper,count (histogram); reduce writes a text line to any other name; scan writes .npy
 * to any other name, "-" included, but not to a terminal. */
#define _POSIX_C_SOURCE 200809L /* fileno, isatty */

#include "cli_commands.h"

#include "cli_gpu.h"
#include "cli_io.h"
#include "cli_team.h"
#include "hostref_histogram.h"
#include "hostref_reduce.h"
#include "npy.h"

#ifdef CUPRIM_CLI_NCCL
#include <cuprim/nccl.h>
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { ALIGN_BYTES = 16 }; /* the scan's pass starts 16-byte aligned: vector loads */

/* The state every file command shares: the command line, the input and output as checked before
 * any device call, and the bins of a histogram. */
typedef struct job {
  const cli_args *a;
  const char *cmd;
  char err[1024];
  cli_input in; /* rank 0 reads its share through it */
  cli_output out;
  size_t esize;      /* of the file's elements */
  size_t work_esize; /* device bytes per element of a pass: 4 for 16-bit floats (room to widen) */
  cli_progress prog; /* of rank 0's uploads, on stderr */
  uint64_t unit;     /* elements per pixel (histogram --channels C: C), shares and passes cut on
                        whole pixels; else 1 */
  uint32_t bins;     /* histogram: the bins of all channels together */
  double *h_edges;   /* histogram --edges: bins + 1 edges; NULL for --bins/--range */
  uint64_t chan_off[CLI_MAX_CHANNELS]; /* histogram --channels: channel c's first bin */
  cli_input win;                       /* histogram --weights: rank 0's handle */
  size_t wsize;                        /* bytes per weight; 0 without --weights */
} job;

static int fail(job *j, int rc) {
  fprintf(stderr, "cuprim %s: %s\n", j->cmd, j->err);
  return rc;
}

static int is_half(cuprim_dtype t) { return t == CUPRIM_F16 || t == CUPRIM_BF16; }

/* histogram --weights: a .npy of F32 or F64 (what cuprim_histogram_even_weighted takes), one
 * weight per sample. */
static int open_weights(job *j) {
  int rc = cli_input_open(&j->win, j->a->weights, 0, CUPRIM_F32, j->err, sizeof j->err);
  if (rc)
    return fail(j, rc);
  if (j->win.dtype != CUPRIM_F32 && j->win.dtype != CUPRIM_F64) {
    snprintf(j->err, sizeof j->err,
             "--weights %s: %s weights; the weighted histogram takes f32 "
             "and f64",
             j->a->weights, cuprim_dtype_name(j->win.dtype));
    return fail(j, CLI_EXIT_UNSUPPORTED);
  }
  if (j->win.count != j->in.count) {
    snprintf(j->err, sizeof j->err, "--weights %s: %llu weights for %llu samples", j->a->weights,
             (unsigned long long)j->win.count, (unsigned long long)j->in.count);
    return fail(j, CLI_EXIT_FORMAT);
  }
  j->wsize = npy_dtype_size(j->win.dtype);
  return CLI_EXIT_OK;
}

/* The input and its checks, before any device call. */
static int open_input(job *j, cli_primitive p) {
  int rc =
      cli_input_open(&j->in, j->a->input, j->a->have_dtype, j->a->dtype, j->err, sizeof j->err);
  if (rc)
    return fail(j, rc);
  j->esize = npy_dtype_size(j->in.dtype);
  j->work_esize = is_half(j->in.dtype) ? sizeof(float) : j->esize;
  j->unit = j->a->channels ? (uint64_t)j->a->channels : 1;
  /* cuprim_reduce_arg takes every dtype the file can hold. */
  rc = j->a->arg ? CLI_EXIT_OK
                 : cli_check_supported(p, j->in.dtype, j->a->op, j->err, sizeof j->err);
  if (rc)
    return fail(j, rc);
  if (j->in.count % j->unit) {
    snprintf(j->err, sizeof j->err,
             "%s: %llu elements are not a whole number of %d-channel pixels (--channels)",
             j->a->input, (unsigned long long)j->in.count, j->a->channels);
    return fail(j, CLI_EXIT_FORMAT);
  }
  return j->a->weights ? open_weights(j) : CLI_EXIT_OK;
}

/* The output's format, from its name: *.npy and *.csv for every command; any other name a text
 * line (reduce), .npy (scan) or CSV (histogram, which takes no other name for a regular file:
 * open_output refuses it). */
typedef enum out_format { OUT_NPY, OUT_CSV, OUT_TEXT, OUT_RAW } out_format;
static out_format format_of(const job *j) {
  const char *path = j->a->output;
  if (cli_has_suffix(path, ".npy"))
    return OUT_NPY;
  if (cli_has_suffix(path, ".csv") || j->a->command == CLI_CMD_HISTOGRAM)
    return OUT_CSV;
  if (j->a->command == CLI_CMD_REDUCE)
    return OUT_TEXT;
  /* NumPy has no bfloat16: a bf16 scan goes out as its raw little-endian bits. */
  return j->in.dtype == CUPRIM_BF16 ? OUT_RAW : OUT_NPY;
}

/* The .npy outputs the data cannot have, refused before any device call: bf16 values (NumPy
 * has no descr for them; a <u2 file would read back as integers), and one 2-d array of channels
 * whose bin counts differ. */
static int check_npy_output(job *j) {
  const cli_args *a = j->a;
  if (format_of(j) != OUT_NPY)
    return CLI_EXIT_OK;
  if (j->in.dtype == CUPRIM_BF16 && !a->arg && a->command != CLI_CMD_HISTOGRAM) {
    snprintf(j->err, sizeof j->err,
             "-o %s: NumPy has no bfloat16 dtype: write text (-o FILE.csv%s)", a->output,
             a->command == CLI_CMD_SCAN ? ", or any other name for the raw little-endian bits"
                                        : ", or any other name");
    return fail(j, CLI_EXIT_USAGE);
  }
  for (int c = 1; c < a->active; ++c)
    if (a->chan_bins[c] != a->chan_bins[0]) {
      snprintf(j->err, sizeof j->err,
               "-o %s: the channels' bin counts differ, so they make no 2-d .npy: write "
               "-o FILE.csv (a channel column)",
               a->output);
      return fail(j, CLI_EXIT_USAGE);
    }
  return CLI_EXIT_OK;
}

static int open_output(job *j) {
  const char *path = j->a->output;
  if (!path)
    return CLI_EXIT_OK;
  const int rc = cli_output_open(&j->out, path, j->err, sizeof j->err);
  if (rc)
    return fail(j, rc);
  /* A histogram file must say its format; standard output and devices get CSV. (A name such as
   * counts.np is likely a typo: refused, as a usage error, rather than written as CSV.) */
  if (j->a->command == CLI_CMD_HISTOGRAM && !j->out.direct && !cli_has_suffix(path, ".npy") &&
      !cli_has_suffix(path, ".csv")) {
    cli_output_abort(&j->out);
    snprintf(j->err, sizeof j->err,
             "-o %s: the histogram output must end in .npy or .csv (-o - writes CSV to standard "
             "output)",
             path);
    return fail(j, CLI_EXIT_USAGE);
  }
  if (check_npy_output(j)) {
    cli_output_abort(&j->out);
    return CLI_EXIT_USAGE;
  }
  /* .npy (or raw) bytes on a terminal would be garbage on the screen (and may drive it):
   * refused, as compressors refuse to write to one. */
  const out_format fmt = format_of(j);
  if ((fmt == OUT_NPY || fmt == OUT_RAW) && j->out.is_stdout && isatty(fileno(stdout))) {
    snprintf(j->err, sizeof j->err,
             "-o %s: standard output is a terminal: redirect it to write .npy there, or write "
             "text with -o FILE.csv",
             j->a->output);
    return fail(j, CLI_EXIT_OUTPUT);
  }
  j->out.csv = format_of(j) == OUT_CSV;
  j->out.csv_dtype = j->in.dtype;
  return CLI_EXIT_OK;
}

/* A command's start: the input and the output, checked and opened before any device call. */
static int start_job(job *j, const cli_args *a, const char *cmd, cli_primitive p) {
  memset(j, 0, sizeof *j);
  j->a = a;
  j->cmd = cmd;
  const int rc = open_input(j, p);
  return rc ? rc : open_output(j);
}

static int commit(job *j) {
  if (!j->a->output)
    return CLI_EXIT_OK;
  const int rc = cli_output_commit(&j->out, j->err, sizeof j->err);
  return rc ? fail(j, rc) : CLI_EXIT_OK;
}

/* ---------------------------------------------------------------- ranks */

/* A running total of op kept on the device. Four slots: the total is slot c (0 or 2), slot c + 1
 * takes a new value, and the pair [total, value] is reduced into slot c ^ 2, the first slot of
 * the other pair, which becomes the total. The total that was current before an addition stays
 * in place until the addition after next, so a call enqueued with it before an addition still
 * reads it (stream order). */
typedef struct dev_total {
  char *d_slots;
  int c;
  int have; /* 0 until the first value */
} dev_total;

/* One device's part of a command: its share of the input, elements [lo, lo + n), read through
 * its own handle of the input (rank 0: the job's) in passes of `chunk` elements through d_buf. */
typedef struct rank {
  job *j;
  cli_team *team; /* NULL on one device */
  int index;
  cli_gpu g;
  cli_input own_in;
  cli_input *in;
  cli_progress *prog; /* rank 0's: the job's progress line; NULL for the others */
  uint64_t lo, n, chunk;
  void *d_buf;
  /* reduce and scan: the dtype on the device, the file's, or F32 when 16-bit floats are widened
   * (see choose_dtype) */
  int widen;
  cuprim_dtype dtype;
  size_t dsize;
  dev_total total;
  unsigned char result[8]; /* reduce: the result, on rank 0 */
  /* reduce --op argmin|argmax: the rank's answer so far (index in the whole file) */
  uint64_t arg_index;
  unsigned char arg_value[8];
  uint64_t *d_counts; /* histogram: one pass's counts (or sums), on the device and the host;
                         reduce --op argmin|argmax: the pass's index */
  uint64_t *h_counts;
  uint64_t *h_total; /* the counts (or sums, as doubles) this rank collected (zeros if none) */
  double *d_edges;
  cli_input own_win; /* histogram --weights: the rank's handle of the weights (rank 0: the job's) */
  cli_input *win;
  void *d_wbuf; /* one pass's weights */
} rank;

/* Slots of the device dtype (a pair of them is reduced as one array); room for 8 bytes each. */
static void *total_slot(const rank *r, int k) { return r->total.d_slots + (size_t)k * r->dsize; }
static void *total_now(const rank *r) { return total_slot(r, r->total.c); }

/* The total becomes total op (op over d_in[0..m)), or op over d_in[0..m) the first time; the
 * pass is reduced with `alg`, the pair with AUTO. */
static int total_add(rank *r, const void *d_in, uint64_t m, cuprim_reduce_alg alg) {
  const job *j = r->j;
  dev_total *t = &r->total;
  int rc =
      cli_cuprim(cuprim_reduce_ex(r->g.ctx, alg, d_in, total_slot(r, t->have ? t->c + 1 : t->c), m,
                                  r->dtype, j->a->op, r->g.stream),
                 j->cmd, "cuprim_reduce_ex (pass total)");
  if (!rc && t->have) {
    rc = cli_cuprim(cuprim_reduce(r->g.ctx, total_slot(r, t->c), total_slot(r, t->c ^ 2), 2,
                                  r->dtype, j->a->op, r->g.stream),
                    j->cmd, "cuprim_reduce (total op pass total)");
    t->c ^= 2;
  }
  t->have = 1;
  return rc;
}

/* The total becomes d_src[0] (a device-to-device copy of one element). */
static int total_set(rank *r, const void *d_src) {
  r->total.have = 1;
  return cli_cuda(
      cudaMemcpyAsync(total_now(r), d_src, r->dsize, cudaMemcpyDeviceToDevice, r->g.stream),
      r->j->cmd, "cudaMemcpyAsync (carry)");
}

/* The pass size from --chunk, or from the free memory of the rank's device, in whole pixels
 * (at least one). `reserve`: device bytes the command allocates besides the data; `pad`: bytes
 * before the data in the buffer. */
static int pass_size(rank *r, size_t reserve, size_t pad) {
  const job *j = r->j;
  if (j->a->chunk) {
    const uint64_t c = j->a->chunk > j->unit ? j->a->chunk / j->unit * j->unit : j->unit;
    r->chunk = c < r->n ? c : r->n;
    return CLI_EXIT_OK;
  }
  size_t free_b = 0, total_b = 0;
  const int rc = cli_cuda(cudaMemGetInfo(&free_b, &total_b), j->cmd, "cudaMemGetInfo");
  if (rc)
    return rc;
  /* Half the free memory for the data, the other half for the library's temporary memory
   * (the histogram sort path's keys, private copies, the scan's tile status) and its pool. */
  size_t budget = free_b / 2;
  budget = budget > reserve + pad ? budget - reserve - pad : 0;
  const uint64_t c = budget / (j->work_esize + j->wsize) / j->unit * j->unit;
  r->chunk = c < r->n ? c : r->n;
  if (r->chunk == 0 && r->n > 0) {
    fprintf(stderr, "cuprim %s: device %d: not enough free device memory (%zu bytes free)\n",
            j->cmd, r->g.device, free_b);
    return CLI_EXIT_FAILED;
  }
  return CLI_EXIT_OK;
}

/* The passes of the rank's share: at least one (an empty share makes one empty pass). */
static uint64_t pass_count(const rank *r) {
  return r->n == 0 ? 1 : (r->n + r->chunk - 1) / r->chunk;
}

/* A rank's own handle of a file (rank 0 reads the job's), at element `lo`, so that the ranks
 * read their shares at once. `count`: what the job's handle found, which must not have changed. */
static int open_share(const rank *r, cli_input *in, const char *path, int have_dtype,
                      cuprim_dtype dtype, uint64_t count) {
  char err[512];
  int rc = cli_input_open(in, path, have_dtype, dtype, err, sizeof err);
  if (!rc && in->count != count)
    rc = cli_error(CLI_EXIT_INPUT, err, sizeof err, "%s: the file changed while it was read", path);
  if (!rc)
    rc = cli_input_seek(in, r->lo, err, sizeof err);
  if (rc)
    fprintf(stderr, "cuprim %s: %s\n", r->j->cmd, err);
  return rc;
}

/* Everything a rank needs before its first pass: its input at the start of its share, the
 * device's context and stream, the pass size, the pass buffer (`pad` bytes before the data),
 * the staging buffers and the total's slots; with --weights, the weights' handle and buffer.
 * `reserve`: device bytes the command allocates besides. */
static int rank_open(rank *r, size_t reserve, size_t pad) {
  job *j = r->j;
  int rc = CLI_EXIT_OK;
  r->in = &j->in; /* at element 0, rank 0's share */
  r->win = &j->win;
  r->dtype = j->in.dtype;
  r->dsize = j->esize;
  if (r->index > 0) {
    r->in = &r->own_in;
    rc = open_share(r, r->in, j->a->input, j->a->have_dtype, j->a->dtype, j->in.count);
    if (!rc && j->wsize) {
      r->win = &r->own_win;
      rc = open_share(r, r->win, j->a->weights, 0, CUPRIM_F32, j->in.count);
    }
  }
  if (!rc)
    rc = cli_gpu_open(&r->g, j->cmd, j->a->devices[r->index]);
  if (!rc)
    rc = pass_size(r, reserve + 4 * 8, pad);
  const size_t bytes = (size_t)r->chunk * j->work_esize + pad;
  if (!rc)
    rc = cli_cuda(cudaMalloc(&r->d_buf, bytes ? bytes : 1), j->cmd,
                  "cudaMalloc (data; try a smaller --chunk)");
  if (!rc && j->wsize)
    rc = cli_cuda(cudaMalloc(&r->d_wbuf, r->chunk ? (size_t)r->chunk * j->wsize : 1), j->cmd,
                  "cudaMalloc (weights; try a smaller --chunk)");
  if (!rc)
    rc = cli_gpu_stage(&r->g,
                       (size_t)r->chunk * (j->work_esize > j->wsize ? j->work_esize : j->wsize));
  if (!rc)
    rc = cli_cuda(cudaMalloc((void **)&r->total.d_slots, 4 * 8), j->cmd, "cudaMalloc (total)");
  return rc;
}

/* reduce and scan: whether the rank's passes keep 16-bit floats as F32 on the device. The
 * library computes F16 and BF16 in float and rounds each result once; a run in several pieces
 * that combined 16-bit partial results would round each of them too. So a SUM or PROD in more
 * than one pass, and any op on several devices (whose NCCL calls take no 16-bit dtype), widens
 * every pass on the host, reduces or scans in F32, and rounds each result once on the host. A
 * single pass gives the library's own 16-bit result; MIN and MAX in passes stay 16-bit (exact). */
static void choose_dtype(rank *r) {
  const job *j = r->j;
  const int sum_prod = j->a->op == CUPRIM_SUM || j->a->op == CUPRIM_PROD;
  r->widen = is_half(j->in.dtype) && !j->a->arg && (r->team || (sum_prod && pass_count(r) > 1));
  r->dtype = r->widen ? CUPRIM_F32 : j->in.dtype;
  r->dsize = cuprim_dtype_size(r->dtype);
}

static void rank_close(rank *r) {
  if (r->g.stream)
    (void)cudaStreamSynchronize(r->g.stream);
  (void)cudaFree(r->d_buf);
  (void)cudaFree(r->total.d_slots);
  (void)cudaFree(r->d_counts);
  (void)cudaFree(r->d_edges);
  (void)cudaFree(r->d_wbuf);
  free(r->h_counts);
  cli_gpu_close(&r->g);
  cli_input_close(&r->own_in);
  cli_input_close(&r->own_win);
}

/* Uploads the share's next pass, its elements from `done` on (at most chunk of them), to dst;
 * *m: how many (0 once the share is done). Rank 0's first upload starts the progress line. */
static int upload_pass(rank *r, void *dst, uint64_t done, uint64_t *m) {
  if (done == 0 && r->prog)
    cli_progress_start(r->prog, r->j->cmd, r->n * r->j->esize);
  const uint64_t left = r->n - done;
  *m = left < r->chunk ? left : r->chunk;
  if (r->widen)
    return cli_gpu_upload_widened(&r->g, r->in, dst, *m, r->prog);
  const int rc = cli_gpu_upload(&r->g, r->in, dst, (size_t)*m * r->j->esize, r->prog);
  /* The pass's weights, through the same staging buffers after the samples. */
  return rc || !r->j->wsize
             ? rc
             : cli_gpu_upload(&r->g, r->win, r->d_wbuf, (size_t)*m * r->j->wsize, NULL);
}

static int team_open(const job *j, struct ncclComm **comms);
static void team_close(int n, struct ncclComm **comms);

/* Splits the input into one share per device, in the order of --devices, sizes differing by at
 * most one element, and runs fn on each (cli_team_run). *out: the ranks, for their results
 * (malloc'd; NULL if it could not be), freed by the caller. */
static int run_ranks(job *j, rank **out, cli_rank_fn fn) {
  const int p = j->a->num_devices;
  const uint64_t pixels = j->in.count / j->unit; /* shares of whole pixels */
  const uint64_t base = pixels / (uint64_t)p, extra = pixels % (uint64_t)p;
  rank *ranks = *out = (rank *)calloc((size_t)p, sizeof *ranks);
  if (!ranks) {
    fprintf(stderr, "cuprim %s: out of host memory\n", j->cmd);
    return CLI_EXIT_FAILED;
  }
  void *users[CLI_MAX_DEVICES];
  for (int r = 0; r < p; ++r) {
    const uint64_t ur = (uint64_t)r;
    ranks[r].j = j;
    ranks[r].index = r;
    ranks[r].lo = (ur * base + (ur < extra ? ur : extra)) * j->unit;
    ranks[r].n = (base + (ur < extra)) * j->unit;
    ranks[r].prog = r == 0 ? &j->prog : NULL;
    users[r] = &ranks[r];
  }
  struct ncclComm *comms[CLI_MAX_DEVICES] = {NULL};
  int rc = cli_require_devices(j->cmd, j->a);
  if (!rc && p > 1)
    rc = team_open(j, comms);
  if (!rc)
    rc = cli_team_run(j->cmd, p, comms, fn, users);
  if (p > 1)
    team_close(p, comms);
  cli_progress_end(&j->prog);
  return rc;
}

static void close_job(job *j) {
  cli_input_close(&j->in);
  cli_input_close(&j->win);
  cli_output_abort(&j->out); /* a no-op once committed */
  free(j->h_edges);
}

/* ---------------------------------------------------------------- collectives */

/* The three collective calls of a team. Every rank of the team makes each of them the same
 * number of times, also after a failure of its own (with no elements), so that no rank waits
 * for one that does not come. */
#ifdef CUPRIM_CLI_NCCL
/* The communicators of the devices, rank r on --devices' r-th: made together in this thread
 * (ncclCommInitAll), so that no id has to be handed between processes. */
static int team_open(const job *j, struct ncclComm **comms) {
  const ncclResult_t nr = ncclCommInitAll(comms, j->a->num_devices, j->a->devices);
  if (nr == ncclSuccess)
    return CLI_EXIT_OK;
  fprintf(stderr, "cuprim %s: ncclCommInitAll (--devices %s): %s (%s)\n", j->cmd, j->a->devices_arg,
          ncclGetErrorString(nr), ncclGetLastError(NULL));
  for (int r = 0; r < j->a->num_devices; ++r)
    comms[r] = NULL;
  return CLI_EXIT_FAILED;
}

/* After the ranks, which have synchronized their streams: no collective is in flight. */
static void team_close(int n, struct ncclComm **comms) {
  for (int r = 0; r < n; ++r)
    if (comms[r])
      (void)ncclCommDestroy(comms[r]);
}

/* A failed call of the NCCL component: as cli_cuprim, with NCCL's error behind
 * CUPRIM_ERROR_NCCL. */
static int nccl_status(cuprim_status s, const char *cmd, const char *what) {
  if (s != CUPRIM_ERROR_NCCL)
    return cli_cuprim(s, cmd, what);
  fprintf(stderr, "cuprim %s: %s: %s (%s: %s)\n", cmd, what, cuprim_status_string(s),
          ncclGetErrorString(cuprim_nccl_last_error()), ncclGetLastError(NULL));
  return CLI_EXIT_FAILED;
}

/* *d_out = op over the ranks' d_in[0..n) (n: 1, or 0 to add nothing), in rank order. */
static int team_reduce(rank *r, const void *d_in, void *d_out, uint64_t n) {
  const job *j = r->j;
  return nccl_status(cuprim_nccl_reduce(r->g.ctx, cli_team_comm(r->team, r->index), d_in, d_out, n,
                                        r->dtype, j->a->op, r->g.stream),
                     j->cmd, "cuprim_nccl_reduce");
}

/* d_total[0] (n: 1, or 0 for a rank with nothing) becomes op over the totals of the ranks before
 * this one (the identity on rank 0): their exclusive scan, in place. */
static int team_prefix(rank *r, void *d_total, uint64_t n) {
  const job *j = r->j;
  return nccl_status(cuprim_nccl_scan(r->g.ctx, cli_team_comm(r->team, r->index), d_total, d_total,
                                      n, r->dtype, j->a->op, CUPRIM_EXCLUSIVE, r->g.stream),
                     j->cmd, "cuprim_nccl_scan (the ranks' prefixes)");
}

/* r->d_counts = the even histogram of every rank's d_samples[0..m). */
static int team_histogram(rank *r, const void *d_samples, uint64_t m) {
  const job *j = r->j;
  return nccl_status(cuprim_nccl_histogram_even(r->g.ctx, cli_team_comm(r->team, r->index),
                                                d_samples, m, j->in.dtype, r->d_counts, j->bins,
                                                j->a->lower, j->a->upper, r->g.stream),
                     j->cmd, "cuprim_nccl_histogram_even");
}
#else
/* Without the NCCL component there is no team: main refuses several devices (cli_check_devices),
 * and these are never called. */
static int team_open(const job *j, struct ncclComm **comms) {
  (void)comms;
  fprintf(stderr, "cuprim %s: --devices %s: built without NCCL\n", j->cmd, j->a->devices_arg);
  return CLI_EXIT_USAGE;
}
static void team_close(int n, struct ncclComm **comms) { (void)n, (void)comms; }
static int no_team(const rank *r) {
  fprintf(stderr, "cuprim %s: internal error: a collective call without NCCL\n", r->j->cmd);
  return CLI_EXIT_FAILED;
}
static int team_reduce(rank *r, const void *d_in, void *d_out, uint64_t n) {
  (void)d_in, (void)d_out, (void)n;
  return no_team(r);
}
static int team_prefix(rank *r, void *d_total, uint64_t n) {
  (void)d_total, (void)n;
  return no_team(r);
}
static int team_histogram(rank *r, const void *d_samples, uint64_t m) {
  (void)d_samples, (void)m;
  return no_team(r);
}
#endif

/* ---------------------------------------------------------------- segments */

/* reduce and scan --offsets OFF or --segment-size L, before any device call: the offsets (a .npy
 * of i32 u32 i64 or u64, at least one offset: num_segments + 1 of them), or an input that is a
 * whole number of rows of L. *segs: the number of segments. */
static int open_segments(job *j, cli_input *off, uint64_t *segs) {
  const cli_args *a = j->a;
  if (!a->offsets) {
    if (j->in.count % a->segment_size) {
      snprintf(j->err, sizeof j->err,
               "%s: %llu elements are not a whole number of segments of %llu (--segment-size)",
               a->input, (unsigned long long)j->in.count, (unsigned long long)a->segment_size);
      return fail(j, CLI_EXIT_FORMAT);
    }
    *segs = j->in.count / a->segment_size;
    return CLI_EXIT_OK;
  }
  const int rc = cli_input_open(off, a->offsets, 0, CUPRIM_U64, j->err, sizeof j->err);
  if (rc == CLI_EXIT_FORMAT && strstr(j->err, "NUMPY magic"))
    snprintf(j->err, sizeof j->err,
             "--offsets %s: not a .npy file (the offsets are a .npy of i4, u4, i8 or u8)",
             a->offsets);
  if (rc)
    return fail(j, rc);
  const cuprim_dtype t = off->dtype;
  if (t != CUPRIM_I32 && t != CUPRIM_U32 && t != CUPRIM_I64 && t != CUPRIM_U64) {
    snprintf(j->err, sizeof j->err, "--offsets %s: %s offsets; segments take i32 u32 i64 u64",
             a->offsets, cuprim_dtype_name(t));
    return fail(j, CLI_EXIT_UNSUPPORTED);
  }
  if (off->count == 0) {
    snprintf(j->err, sizeof j->err,
             "--offsets %s: no offsets (num_segments + 1 of them, at least one)", a->offsets);
    return fail(j, CLI_EXIT_FORMAT);
  }
  *segs = off->count - 1;
  return CLI_EXIT_OK;
}

/* The segmented call on one device: the whole input (and the offsets) uploaded at once, then
 * cuprim_segmented_reduce or _scan (offsets), cuprim_batched_reduce or _scan (rows). The scan runs
 * in place, so that the elements no segment covers keep FILE's values. */
static int segment_call(const job *j, const cli_gpu *g, const cli_input *off, uint64_t segs,
                        void *d_in, void *d_out, const void *d_off) {
  const cli_args *a = j->a;
  const cuprim_dtype t = j->in.dtype;
  const uint64_t n = j->in.count, len = a->segment_size;
  if (a->command == CLI_CMD_REDUCE && a->offsets)
    return cli_cuprim(cuprim_segmented_reduce(g->ctx, d_in, d_out, n, d_off, off->dtype, segs, t,
                                              a->op, g->stream),
                      j->cmd, "cuprim_segmented_reduce");
  if (a->command == CLI_CMD_REDUCE)
    return cli_cuprim(cuprim_batched_reduce(g->ctx, d_in, d_out, segs, len, t, a->op, g->stream),
                      j->cmd, "cuprim_batched_reduce");
  if (a->offsets)
    return cli_cuprim(cuprim_segmented_scan(g->ctx, d_in, d_in, n, d_off, off->dtype, segs, t,
                                            a->op, a->kind, g->stream),
                      j->cmd, "cuprim_segmented_scan");
  return cli_cuprim(
      cuprim_batched_scan(g->ctx, d_in, d_in, segs, len, t, a->op, a->kind, g->stream), j->cmd,
      "cuprim_batched_scan");
}

/* reduce: the segments' results to -o (a 1-d .npy, or text, one a line), or, without -o, printed
 * one a line. */
static int write_segment_results(job *j, cli_gpu *g, const void *d_out, uint64_t segs) {
  const size_t bytes = (size_t)segs * j->esize;
  if (j->a->output) {
    if (format_of(j) == OUT_NPY) {
      const uint64_t shape[1] = {segs};
      if (npy_write_header(j->out.f, j->in.dtype, 1, shape) != NPY_OK) {
        snprintf(j->err, sizeof j->err, "%s: write error", j->a->output);
        return fail(j, CLI_EXIT_OUTPUT);
      }
    } else {
      j->out.csv = 1; /* text, one value a line */
      j->out.csv_dtype = j->in.dtype;
    }
    return cli_gpu_download(g, d_out, bytes, &j->out);
  }
  unsigned char *h = (unsigned char *)malloc(bytes ? bytes : 1);
  if (!h) {
    fprintf(stderr, "cuprim %s: out of host memory for %llu results\n", j->cmd,
            (unsigned long long)segs);
    return CLI_EXIT_FAILED;
  }
  int rc = cli_cuda(cudaMemcpyAsync(h, d_out, bytes, cudaMemcpyDeviceToHost, g->stream), j->cmd,
                    "cudaMemcpyAsync (results)");
  if (!rc)
    rc = cli_cuda(cudaStreamSynchronize(g->stream), j->cmd, "cudaStreamSynchronize");
  for (uint64_t s = 0; !rc && s < segs; ++s) {
    char text[64];
    hr_format_value(j->in.dtype, h + s * j->esize, text, sizeof text);
    printf("%s\n", text);
  }
  free(h);
  return rc;
}

/* reduce and scan with segments, after start_job (and, for scan, the .npy header); the caller
 * commits the output. */
static int run_segments(job *j) {
  const cli_args *a = j->a;
  cli_input off;
  memset(&off, 0, sizeof off);
  uint64_t segs = 0;
  int rc = open_segments(j, &off, &segs);
  if (!rc)
    rc = cli_require_device(j->cmd, a->device);
  cli_gpu g;
  memset(&g, 0, sizeof g);
  void *d_in = NULL, *d_out = NULL, *d_off = NULL;
  const int reduce = a->command == CLI_CMD_REDUCE;
  const size_t in_bytes = (size_t)j->in.bytes, off_bytes = a->offsets ? (size_t)off.bytes : 0;
  const size_t out_bytes = reduce ? (size_t)segs * j->esize : 0;
  if (!rc)
    rc = cli_gpu_open(&g, j->cmd, a->device);
  if (!rc)
    rc = cli_cuda(cudaMalloc(&d_in, in_bytes ? in_bytes : 1), j->cmd, "cudaMalloc (input)");
  if (!rc && reduce)
    rc = cli_cuda(cudaMalloc(&d_out, out_bytes ? out_bytes : 1), j->cmd, "cudaMalloc (results)");
  if (!rc && off_bytes)
    rc = cli_cuda(cudaMalloc(&d_off, off_bytes), j->cmd, "cudaMalloc (offsets)");
  if (!rc)
    rc = cli_gpu_stage(&g, in_bytes > off_bytes ? in_bytes : off_bytes);
  if (!rc) {
    cli_progress_start(&j->prog, j->cmd, in_bytes);
    rc = cli_gpu_upload(&g, &j->in, d_in, in_bytes, &j->prog);
    cli_progress_end(&j->prog);
  }
  if (!rc && off_bytes)
    rc = cli_gpu_upload(&g, &off, d_off, off_bytes, NULL);
  if (!rc)
    rc = segment_call(j, &g, &off, segs, d_in, d_out, d_off);
  if (!rc)
    rc = reduce ? write_segment_results(j, &g, d_out, segs)
                : cli_gpu_download(&g, d_in, in_bytes, &j->out);
  if (!rc)
    rc = cli_cuda(cudaStreamSynchronize(g.stream), j->cmd, "cudaStreamSynchronize");
  if (g.stream)
    (void)cudaStreamSynchronize(g.stream);
  (void)cudaFree(d_in);
  (void)cudaFree(d_out);
  (void)cudaFree(d_off);
  cli_gpu_close(&g);
  cli_input_close(&off);
  return rc;
}

/* ---------------------------------------------------------------- reduce */

/* reduce --op argmin|argmax: each pass's answer (cuprim_reduce_arg) is combined on the host
 * with the answer so far, its index moved by the pass's place in the file; as the passes come in
 * index order, hr_arg_later_wins (the library's order) gives the answer of one call. No
 * collective: cmd_reduce combines the ranks' answers the same way, in rank order. */
static int arg_passes(rank *r) {
  const job *j = r->j;
  const cuprim_op ident = j->a->arg_op == CUPRIM_ARGMIN ? CUPRIM_MIN : CUPRIM_MAX;
  r->arg_index = UINT64_MAX; /* and the identity: what an empty share answers */
  hr_identity(j->in.dtype, ident, r->arg_value);
  int rc =
      cli_cuda(cudaMalloc((void **)&r->d_counts, sizeof(uint64_t)), j->cmd, "cudaMalloc (index)");
  uint64_t done = 0;
  for (int first = 1; !rc && (first || done < r->n); first = 0) {
    uint64_t m = 0, index = 0;
    unsigned char value[8];
    rc = upload_pass(r, r->d_buf, done, &m);
    if (!rc)
      rc = cli_cuprim(cuprim_reduce_arg(r->g.ctx, r->d_buf, total_slot(r, 0), r->d_counts, m,
                                        j->in.dtype, j->a->arg_op, r->g.stream),
                      j->cmd, "cuprim_reduce_arg");
    if (!rc)
      rc = cli_cuda(
          cudaMemcpyAsync(&index, r->d_counts, sizeof index, cudaMemcpyDeviceToHost, r->g.stream),
          j->cmd, "cudaMemcpyAsync (index)");
    if (!rc)
      rc = cli_cuda(
          cudaMemcpyAsync(value, total_slot(r, 0), j->esize, cudaMemcpyDeviceToHost, r->g.stream),
          j->cmd, "cudaMemcpyAsync (value)");
    if (!rc)
      rc = cli_cuda(cudaStreamSynchronize(r->g.stream), j->cmd, "cudaStreamSynchronize");
    if (!rc && m > 0 &&
        (r->arg_index == UINT64_MAX ||
         hr_arg_later_wins(j->in.dtype, j->a->arg_op, value, r->arg_value))) {
      r->arg_index = r->lo + done + index;
      memcpy(r->arg_value, value, j->esize);
    }
    done += m;
  }
  return rc;
}

static int reduce_rank(void *user, cli_team *team, int index) {
  rank *r = (rank *)user;
  r->team = team;
  const job *j = r->j;
  int rc = rank_open(r, 0, 0);
  uint64_t passes = 0;
  if (!cli_team_vote(team, rc == 0, 0, &passes)) {
    rank_close(r);
    return rc;
  }
  if (j->a->arg) {
    rc = arg_passes(r);
    rank_close(r);
    return rc;
  }
  choose_dtype(r);
  /* Every pass reduced into the total (an empty share: one empty pass, the identity). */
  uint64_t done = 0;
  for (int first = 1; !rc && (first || done < r->n); first = 0) {
    uint64_t m = 0;
    rc = upload_pass(r, r->d_buf, done, &m);
    if (!rc)
      rc = total_add(r, r->d_buf, m, (cuprim_reduce_alg)j->a->alg);
    done += m;
  }
  const void *d_result = total_now(r);
  if (team) {
    /* The ranks' totals combined into the other pair's slot; a failed rank adds nothing. */
    void *d_all = total_slot(r, r->total.c ^ 2);
    const int trc = team_reduce(r, d_result, d_all, rc ? 0 : 1);
    rc = rc ? rc : trc;
    d_result = d_all;
  }
  if (!rc && index == 0)
    rc = cli_cuda(
        cudaMemcpyAsync(r->result, d_result, r->dsize, cudaMemcpyDeviceToHost, r->g.stream), j->cmd,
        "cudaMemcpyAsync (result)");
  if (!rc && index == 0)
    rc = cli_cuda(cudaStreamSynchronize(r->g.stream), j->cmd, "cudaStreamSynchronize");
  if (!rc && index == 0 && r->widen) {
    /* The float total rounded once to the file's 16-bit dtype. */
    float f;
    memcpy(&f, r->result, sizeof f);
    const uint16_t h = hr_half_from_double(j->in.dtype, (double)f);
    memcpy(r->result, &h, sizeof h);
  }
  rank_close(r);
  return rc;
}

/* reduce --op argmin|argmax: the ranks' answers combined in rank order (the shares' order in the
 * file) into ranks[0]; prints "INDEX VALUE" and writes it (text), or the index as a 0-d u8 .npy
 * (as np.argmin returns it). */
static int arg_result(job *j, rank *ranks) {
  rank *best = &ranks[0];
  for (int r = 1; r < j->a->num_devices; ++r)
    if (ranks[r].arg_index != UINT64_MAX &&
        (best->arg_index == UINT64_MAX ||
         hr_arg_later_wins(j->in.dtype, j->a->arg_op, ranks[r].arg_value, best->arg_value)))
      best = &ranks[r];
  char value[64], text[96];
  hr_format_value(j->in.dtype, best->arg_value, value, sizeof value);
  snprintf(text, sizeof text, "%llu %s", (unsigned long long)best->arg_index, value);
  if (!j->out.is_stdout)
    printf("%s\n", text);
  if (!j->a->output)
    return CLI_EXIT_OK;
  const int ok = format_of(j) == OUT_NPY
                     ? npy_write_header(j->out.f, CUPRIM_U64, 0, NULL) == NPY_OK &&
                           fwrite(&best->arg_index, sizeof best->arg_index, 1, j->out.f) == 1
                     : fprintf(j->out.f, "%s\n", text) > 0;
  if (!ok) {
    snprintf(j->err, sizeof j->err, "%s: write error", j->a->output);
    return fail(j, CLI_EXIT_OUTPUT);
  }
  return commit(j);
}

int cmd_reduce(const cli_args *a) {
  job j;
  int rc = start_job(&j, a, "reduce", CLI_PRIM_REDUCE);
  if (!rc && (a->offsets || a->have_segment_size)) {
    rc = run_segments(&j);
    if (!rc)
      rc = commit(&j);
    close_job(&j);
    return rc;
  }
  rank *ranks = NULL;
  if (!rc)
    rc = run_ranks(&j, &ranks, reduce_rank);
  const unsigned char *acc = ranks ? ranks[0].result : NULL;
  if (!rc && a->arg) {
    rc = arg_result(&j, ranks);
  } else if (!rc) {
    char text[64];
    hr_format_value(j.in.dtype, acc, text, sizeof text);
    if (!j.out.is_stdout) /* else printed once, as the output */
      printf("%s\n", text);
    if (a->output) {
      if (format_of(&j) == OUT_NPY) {
        rc = npy_write_header(j.out.f, j.in.dtype, 0, NULL) == NPY_OK
                 ? cli_output_write(&j.out, acc, j.esize, j.err, sizeof j.err)
                 : CLI_EXIT_OUTPUT;
      } else {
        rc = fprintf(j.out.f, "%s\n", text) > 0 ? CLI_EXIT_OK : CLI_EXIT_OUTPUT;
      }
      if (rc) {
        snprintf(j.err, sizeof j.err, "%s: write error", a->output);
        rc = fail(&j, rc);
      } else {
        rc = commit(&j);
      }
    }
  }
  free(ranks);
  close_job(&j);
  return rc;
}

/* ---------------------------------------------------------------- scan */

/* Writes m scanned elements of the rank's share at d_src to the output, in the rank's turn.
 * *stop: another rank failed, nothing more is worth writing. */
static int write_pass(rank *r, const void *d_src, uint64_t m, int *stop) {
  *stop = !cli_team_turn(r->team, r->index);
  if (*stop)
    return CLI_EXIT_OK;
  if (r->widen)
    return cli_gpu_download_narrowed(&r->g, (const float *)d_src, m, r->j->in.dtype, &r->j->out);
  return cli_gpu_download(&r->g, d_src, (size_t)m * r->j->esize, &r->j->out);
}

/* On a team, before the passes: the rank's first carry, op over the shares of the ranks before
 * it. The share is reduced pass by pass into the total (AUTO), and the ranks' totals scanned
 * exclusively in place (team_prefix: one element each), which every rank does, also after a
 * failure (with nothing). Then the share is read again for the scan, unless it took one pass,
 * which stays in the buffer (*kept). Rank 0 has no carry: its first pass is a plain scan, as on
 * one device. */
static int scan_prefix(rank *r, int *kept) {
  int rc = CLI_EXIT_OK;
  uint64_t done = 0;
  while (!rc && done < r->n) {
    uint64_t m = 0;
    rc = upload_pass(r, r->d_buf, done, &m);
    if (!rc)
      rc = total_add(r, r->d_buf, m, CUPRIM_REDUCE_AUTO);
    done += m;
  }
  const int trc = team_prefix(r, total_now(r), !rc && r->total.have ? 1 : 0);
  rc = rc ? rc : trc;
  r->total.have = r->total.have && r->index > 0;
  *kept = r->n > 0 && r->n <= r->chunk;
  if (!rc && r->n > 0 && !*kept) {
    char err[512];
    rc = cli_input_seek(r->in, r->lo, err, sizeof err);
    if (rc)
      fprintf(stderr, "cuprim %s: %s\n", r->j->cmd, err);
  }
  return rc;
}

/* Passes with the single-pass algorithm (AUTO, decoupled_lookback): a pass with no carry (the
 * first on rank 0) is a plain scan, every other one cuprim_scan_init from the carry, the total
 * of the elements before it, on the device. Inclusive: after a pass the carry is its last output
 * element. Exclusive: the last output element lacks the pass's last input, so the pass is
 * reduced before the scan overwrites it, and the carry becomes carry op that total. `kept`: the
 * first pass is in the buffer already. */
static int scan_passes(rank *r, int kept) {
  const job *j = r->j;
  const cli_args *a = j->a;
  int rc = CLI_EXIT_OK, stop = 0;
  uint64_t done = 0;
  for (int first = 1; !rc && !stop && (first || done < r->n); first = 0) {
    uint64_t m = r->n;
    if (!(first && kept))
      rc = upload_pass(r, r->d_buf, done, &m);
    done += m;
    const int last = done >= r->n;
    const void *d_init = r->total.have ? total_now(r) : NULL;
    if (!rc && !last && a->kind == CUPRIM_EXCLUSIVE)
      rc = total_add(r, r->d_buf, m, CUPRIM_REDUCE_AUTO);
    if (!rc && d_init)
      rc = cli_cuprim(cuprim_scan_init(r->g.ctx, r->d_buf, r->d_buf, m, r->dtype, a->op, a->kind,
                                       d_init, r->g.stream),
                      j->cmd, "cuprim_scan_init");
    else if (!rc)
      rc = cli_cuprim(cuprim_scan_ex(r->g.ctx, (cuprim_scan_alg)a->alg, r->d_buf, r->d_buf, m,
                                     r->dtype, a->op, a->kind, r->g.stream),
                      j->cmd, "cuprim_scan_ex");
    if (!rc)
      rc = write_pass(r, r->d_buf, m, &stop);
    if (!rc && !last && a->kind == CUPRIM_INCLUSIVE)
      rc = total_set(r, (const char *)r->d_buf + (m - 1) * r->dsize);
  }
  return rc;
}

/* Passes with a ladder algorithm (one device), which has no initial value: a pass after the first
 * is scanned together with the carry, placed on the device just before the pass's elements. An
 * inclusive scan of [carry, x0, ..., x(m-1)] holds carry op x0 op ... op xi at i + 1 (the
 * inclusive result) and the exclusive one at i. `pad` bytes precede the pass in r->d_buf, so
 * that the pass starts 16-byte aligned (the ladder kernels' vector loads). */
static int scan_passes_ladder(rank *r, size_t pad) {
  const job *j = r->j;
  const cli_args *a = j->a;
  char *d_pass = (char *)r->d_buf + pad;
  char *d_carry = d_pass - r->dsize;
  int rc = CLI_EXIT_OK, stop = 0;
  uint64_t done = 0;
  for (int first = 1; !rc && !stop && (first || done < r->n); first = 0) {
    uint64_t m = 0;
    const char *d_result = d_pass;
    rc = upload_pass(r, d_pass, done, &m);
    if (!rc && first && a->kind == CUPRIM_EXCLUSIVE) {
      /* The first exclusive pass starts from the identity; later passes from the carry. */
      unsigned char identity[8]; /* one element of any dtype */
      hr_identity(r->dtype, a->op, identity);
      rc = cli_cuda(
          cudaMemcpyAsync(d_carry, identity, r->dsize, cudaMemcpyHostToDevice, r->g.stream), j->cmd,
          "cudaMemcpyAsync (identity)");
    }
    if (rc)
      break;
    if (first && a->kind == CUPRIM_INCLUSIVE) {
      rc = cli_cuprim(cuprim_scan_ex(r->g.ctx, (cuprim_scan_alg)a->alg, d_pass, d_pass, m, r->dtype,
                                     a->op, CUPRIM_INCLUSIVE, r->g.stream),
                      j->cmd, "cuprim_scan_ex");
    } else {
      rc = cli_cuprim(cuprim_scan_ex(r->g.ctx, (cuprim_scan_alg)a->alg, d_carry, d_carry, m + 1,
                                     r->dtype, a->op, CUPRIM_INCLUSIVE, r->g.stream),
                      j->cmd, "cuprim_scan_ex");
      d_result = a->kind == CUPRIM_EXCLUSIVE ? d_carry : d_pass;
    }
    if (!rc)
      rc = write_pass(r, d_result, m, &stop);
    /* The next pass's carry: the total so far, the last element of the scanned range. */
    if (!rc && m > 0)
      rc = cli_cuda(cudaMemcpyAsync(d_carry, d_pass + (m - 1) * r->dsize, r->dsize,
                                    cudaMemcpyDeviceToDevice, r->g.stream),
                    j->cmd, "cudaMemcpyAsync (carry)");
    done += m;
  }
  return rc;
}

static int scan_rank(void *user, cli_team *team, int index) {
  rank *r = (rank *)user;
  r->team = team;
  const cli_args *a = r->j->a;
  /* A ladder algorithm's carry slot sits just before a 16-byte aligned pass (cuprim_scan_init
   * runs the single-pass path: the ladder has no initial value); 16 bytes hold the slot of any
   * dtype. Several devices take AUTO only (cli_parse). */
  const int ladder = a->alg != CUPRIM_SCAN_AUTO && a->alg != CUPRIM_SCAN_DECOUPLED_LOOKBACK;
  const size_t pad = ladder ? ALIGN_BYTES : 0;
  int rc = rank_open(r, 0, pad);
  uint64_t passes = 0;
  if (!cli_team_vote(team, rc == 0, 0, &passes)) {
    rank_close(r);
    return rc;
  }
  choose_dtype(r);
  int kept = 0;
  if (team)
    rc = scan_prefix(r, &kept);
  if (!rc)
    rc = ladder && r->n > r->chunk ? scan_passes_ladder(r, pad) : scan_passes(r, kept);
  if (!rc)
    rc = cli_cuda(cudaStreamSynchronize(r->g.stream), r->j->cmd, "cudaStreamSynchronize");
  cli_team_turn_end(team, index, rc == 0);
  rank_close(r);
  return rc;
}

int cmd_scan(const cli_args *a) {
  job j;
  int rc = start_job(&j, a, "scan", CLI_PRIM_SCAN);
  if (!rc && format_of(&j) == OUT_NPY) {
    const uint64_t shape[1] = {j.in.count}; /* flattened, as np.cumsum(a) without an axis */
    if (npy_write_header(j.out.f, j.in.dtype, 1, shape) != NPY_OK) {
      snprintf(j.err, sizeof j.err, "%s: write error", a->output);
      rc = fail(&j, CLI_EXIT_OUTPUT);
    }
  }
  rank *ranks = NULL;
  if (!rc && (a->offsets || a->have_segment_size))
    rc = run_segments(&j);
  else if (!rc)
    rc = run_ranks(&j, &ranks, scan_rank);
  if (!rc)
    rc = commit(&j);
  free(ranks);
  close_job(&j);
  return rc;
}

/* ---------------------------------------------------------------- histogram */

/* The bins of channel c (0 without --channels): given edges, or equal-width bins. */
static hr_hist_bins channel_bins(const job *j, int c) {
  const cli_args *a = j->a;
  return j->h_edges ? hr_hist_bins_edges(j->bins, j->h_edges)
                    : hr_hist_bins_even(a->chan_bins[c], a->chan_lower[c], a->chan_upper[c]);
}

/* One bin's value as text: a count, or a sum of weights (17 digits: reads back to the same
 * double). */
static void bin_text(const job *j, const uint64_t *values, uint64_t i, char *buf, size_t len) {
  if (j->wsize) {
    double v;
    memcpy(&v, &values[i], sizeof v);
    snprintf(buf, len, "%.17g", v);
  } else {
    snprintf(buf, len, "%llu", (unsigned long long)values[i]);
  }
}

/* The counts (or sums) of every channel: tables on standard output, one per channel under a
 * "channel C" line; or OUT: .npy of u64 counts or f8 sums (1-d, or channels x bins with
 * --channels), or CSV with a channel column when there are channels. */
static int write_histogram(job *j, const uint64_t *values) {
  const cli_args *a = j->a;
  const int channels = a->channels ? a->active : 1;
  const char *what = j->wsize ? "sum" : "count";
  char v[64];
  if (!a->output) {
    for (int c = 0; c < channels; ++c) {
      const hr_hist_bins b = channel_bins(j, c);
      if (a->channels)
        printf("%schannel %d\n", c ? "\n" : "", c);
      printf("%24s %24s %24s\n", "lower", "upper", what);
      for (uint32_t i = 0; i < b.num_bins; ++i) {
        bin_text(j, values, j->chan_off[c] + i, v, sizeof v);
        printf("%24.10g %24.10g %24s\n", hr_hist_edge(&b, i), hr_hist_edge(&b, (uint64_t)i + 1), v);
      }
    }
    return CLI_EXIT_OK;
  }
  int ok = 1;
  if (format_of(j) == OUT_NPY) {
    /* Every channel has the same bin count here (check_npy_output). */
    const uint64_t shape[2] = {(uint64_t)channels, j->bins / (uint64_t)channels};
    const unsigned ndim = a->channels ? 2 : 1;
    ok = npy_write_header(j->out.f, j->wsize ? CUPRIM_F64 : CUPRIM_U64, ndim,
                          ndim == 2 ? shape : shape + 1) == NPY_OK &&
         cli_output_write(&j->out, values, (size_t)j->bins * sizeof(uint64_t), j->err,
                          sizeof j->err) == CLI_EXIT_OK;
  } else {
    ok = fprintf(j->out.f, "%slower,upper,%s\n", a->channels ? "channel," : "", what) > 0;
    for (int c = 0; ok && c < channels; ++c) {
      const hr_hist_bins b = channel_bins(j, c);
      char prefix[16] = "";
      if (a->channels)
        snprintf(prefix, sizeof prefix, "%d,", c);
      for (uint32_t i = 0; ok && i < b.num_bins; ++i) {
        bin_text(j, values, j->chan_off[c] + i, v, sizeof v);
        ok = fprintf(j->out.f, "%s%.17g,%.17g,%s\n", prefix, hr_hist_edge(&b, i),
                     hr_hist_edge(&b, (uint64_t)i + 1), v) > 0;
      }
    }
  }
  if (!ok) {
    snprintf(j->err, sizeof j->err, "%s: write error", a->output);
    return fail(j, CLI_EXIT_OUTPUT);
  }
  return commit(j);
}

/* One pass's counts (or sums) into r->d_counts, by the call the command line asks for. */
static int histogram_pass(rank *r, uint64_t m, int lock_step) {
  const job *j = r->j;
  const cli_args *a = j->a;
  if (lock_step)
    return team_histogram(r, r->d_buf, m);
  if (j->h_edges)
    return cli_cuprim(cuprim_histogram_range(r->g.ctx, r->d_buf, m, j->in.dtype, r->d_counts,
                                             j->bins, r->d_edges, r->g.stream),
                      j->cmd, "cuprim_histogram_range");
  if (a->channels) {
    uint64_t *d_counts[CLI_MAX_CHANNELS];
    for (int c = 0; c < a->active; ++c)
      d_counts[c] = r->d_counts + j->chan_off[c];
    return cli_cuprim(cuprim_histogram_even_multi(r->g.ctx, r->d_buf, m / j->unit, a->channels,
                                                  a->active, j->in.dtype, d_counts, a->chan_bins,
                                                  a->chan_lower, a->chan_upper, r->g.stream),
                      j->cmd, "cuprim_histogram_even_multi");
  }
  if (j->wsize)
    return cli_cuprim(cuprim_histogram_even_weighted_ex(
                          r->g.ctx, (cuprim_histogram_weighted_alg)a->alg, r->d_buf, r->d_wbuf, m,
                          j->in.dtype, j->win.dtype, (double *)r->d_counts, j->bins, a->lower,
                          a->upper, r->g.stream),
                      j->cmd, "cuprim_histogram_even_weighted_ex");
  return cli_cuprim(cuprim_histogram_even_ex(r->g.ctx, (cuprim_histogram_alg)a->alg, r->d_buf, m,
                                             j->in.dtype, r->d_counts, j->bins, a->lower, a->upper,
                                             r->g.stream),
                    j->cmd, "cuprim_histogram_even_ex");
}

/* h_total[i] += h_counts[i]: counts exactly; sums of weights in double, in pass order. */
static void add_bins(const job *j, uint64_t *total, const uint64_t *add) {
  for (uint32_t i = 0; i < j->bins; ++i) {
    if (j->wsize) {
      double t, x;
      memcpy(&t, &total[i], sizeof t);
      memcpy(&x, &add[i], sizeof x);
      t += x;
      memcpy(&total[i], &t, sizeof t);
    } else {
      total[i] += add[i];
    }
  }
}

/* Rank 0, or every rank with --edges, --channels or --weights, collects counts in h_total; with
 * plain equal-width bins on a team the passes go in lock step, each a collective whose counts
 * every rank holds, and rank 0 alone collects them. (The NCCL component has no range, channel or
 * weighted histogram: those ranks count their shares apart, and the host adds them.) */
static int histogram_rank(void *user, cli_team *team, int index) {
  rank *r = (rank *)user;
  r->team = team;
  const job *j = r->j;
  const cli_args *a = j->a;
  /* 8 bytes a bin: a u64 count or an f8 sum; +0.0 and 0 have the same bits (calloc). */
  const size_t counts_bytes = (size_t)j->bins * sizeof(uint64_t);
  const size_t edges_bytes = j->h_edges ? ((size_t)j->bins + 1) * sizeof(double) : 0;
  int rc = rank_open(r, counts_bytes + edges_bytes, 0);
  if (!rc) {
    r->h_counts = (uint64_t *)malloc(counts_bytes);
    r->h_total = (uint64_t *)calloc(j->bins, sizeof(uint64_t));
    if (!r->h_counts || !r->h_total) {
      fprintf(stderr, "cuprim %s: cannot allocate host memory for %lu bins\n", j->cmd,
              (unsigned long)j->bins);
      rc = CLI_EXIT_FAILED;
    }
  }
  if (!rc)
    rc = cli_cuda(cudaMalloc((void **)&r->d_counts, counts_bytes), j->cmd, "cudaMalloc (counts)");
  if (!rc && j->h_edges) {
    rc = cli_cuda(cudaMalloc((void **)&r->d_edges, edges_bytes), j->cmd, "cudaMalloc (edges)");
    if (!rc)
      rc = cli_cuda(
          cudaMemcpyAsync(r->d_edges, j->h_edges, edges_bytes, cudaMemcpyHostToDevice, r->g.stream),
          j->cmd, "cudaMemcpyAsync (edges)");
  }
  const uint64_t own = rc ? 0 : pass_count(r);
  uint64_t passes = 0;
  if (!cli_team_vote(team, rc == 0, own, &passes)) {
    rank_close(r);
    return rc;
  }
  const int lock_step = team && !j->h_edges && !a->channels && !j->wsize;
  if (!lock_step)
    passes = own;
  const int collect = !lock_step || index == 0;
  uint64_t done = 0;
  for (uint64_t p = 0; p < passes && (lock_step || !rc); ++p) {
    uint64_t m = 0;
    if (!rc)
      rc = upload_pass(r, r->d_buf, done, &m); /* 0 elements once the share is done */
    m = rc ? 0 : m;
    done += m;
    /* On a team in lock step: every rank, every pass, failed or done (then with no samples). */
    if (lock_step || !rc) {
      const int trc = histogram_pass(r, m, lock_step);
      rc = rc ? rc : trc;
    }
    if (!rc && collect)
      rc = cli_cuda(cudaMemcpyAsync(r->h_counts, r->d_counts, counts_bytes, cudaMemcpyDeviceToHost,
                                    r->g.stream),
                    j->cmd, "cudaMemcpyAsync (counts)");
    if (!rc && collect)
      rc = cli_cuda(cudaStreamSynchronize(r->g.stream), j->cmd, "cudaStreamSynchronize");
    if (!rc && collect)
      add_bins(j, r->h_total, r->h_counts);
  }
  rank_close(r);
  return rc;
}

int cmd_histogram(const cli_args *a) {
  job j;
  int rc = start_job(&j, a, "histogram", CLI_PRIM_HISTOGRAM);
  /* Channel c's bins follow those of the channels before it, in one array of every bin. */
  uint64_t all = 0;
  for (int c = 0; c < (a->channels ? a->active : 1); ++c) {
    j.chan_off[c] = all;
    all += a->chan_bins[c];
  }
  j.bins = (uint32_t)all;
  if (!rc && all > UINT32_MAX) {
    snprintf(j.err, sizeof j.err, "--bins: more than 2^32 - 1 bins in all channels together");
    rc = fail(&j, CLI_EXIT_USAGE);
  }
  if (!rc && a->edges) {
    rc = cli_read_edges(a->edges, &j.h_edges, &j.bins, j.err, sizeof j.err);
    if (rc)
      rc = fail(&j, rc);
  }
  rank *ranks = NULL;
  if (!rc)
    rc = run_ranks(&j, &ranks, histogram_rank);
  /* The ranks' collected counts added up (those that collected none hold zeros). */
  for (int r = 1; !rc && r < a->num_devices; ++r)
    add_bins(&j, ranks[0].h_total, ranks[r].h_total);
  if (!rc)
    rc = write_histogram(&j, ranks[0].h_total);
  for (int r = 0; ranks && r < a->num_devices; ++r)
    free(ranks[r].h_total);
  free(ranks);
  close_job(&j);
  return rc;
}
