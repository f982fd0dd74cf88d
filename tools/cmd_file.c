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
 *   scan       a pass after the first starts from the running total of the elements before it
 *              (the carry), which stays on the device: cuprim_scan_init scans the pass from it.
 *              On several devices each rank first reduces its whole share, and an exclusive
 *              cuprim_nccl_scan of those one-element totals gives each rank, on its device, the
 *              total of the shares before it: its first carry. Exact for integers (wrapping) and
 *              for MIN/MAX/AND/OR/XOR; no pass waits for the host beyond the staged transfers.
 *              The ranks write the one output in turn, in rank order. The ladder algorithms (one
 *              device) have no initial value: their passes scan the carry as an extra element in
 *              front of the pass's elements.
 *   histogram  each pass's counts are added on the host (exact). Equal-width bins on several
 *              devices: each pass is a cuprim_nccl_histogram_even, with every rank making as
 *              many as the rank with the most passes (the others with no samples), and rank 0
 *              adds up the summed counts; --edges (cuprim_histogram_range, which the NCCL
 *              component lacks): each rank counts its share, and the host adds the ranks' counts.
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
  size_t esize;
  cli_progress prog; /* of rank 0's uploads, on stderr */
  uint32_t bins;     /* histogram */
  double *h_edges;   /* histogram --edges: bins + 1 edges; NULL for --bins/--range */
} job;

static int fail(job *j, int rc) {
  fprintf(stderr, "cuprim %s: %s\n", j->cmd, j->err);
  return rc;
}

/* The input and its checks, before any device call. */
static int open_input(job *j, cli_primitive p) {
  int rc =
      cli_input_open(&j->in, j->a->input, j->a->have_dtype, j->a->dtype, j->err, sizeof j->err);
  if (rc)
    return fail(j, rc);
  j->esize = npy_dtype_size(j->in.dtype);
  rc = cli_check_supported(p, j->in.dtype, j->a->op, j->err, sizeof j->err);
  if (rc)
    return fail(j, rc);
  return CLI_EXIT_OK;
}

/* The output's format, from its name: *.npy and *.csv for every command; any other name a text
 * line (reduce), .npy (scan) or CSV (histogram, which takes no other name for a regular file:
 * open_output refuses it). */
typedef enum out_format { OUT_NPY, OUT_CSV, OUT_TEXT } out_format;
static out_format format_of(const job *j) {
  const char *path = j->a->output;
  if (cli_has_suffix(path, ".npy"))
    return OUT_NPY;
  if (cli_has_suffix(path, ".csv") || j->a->command == CLI_CMD_HISTOGRAM)
    return OUT_CSV;
  return j->a->command == CLI_CMD_REDUCE ? OUT_TEXT : OUT_NPY;
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
  /* .npy bytes on a terminal would be garbage on the screen (and may drive it): refused, as
   * compressors refuse to write to one. */
  if (format_of(j) == OUT_NPY && j->out.is_stdout && isatty(fileno(stdout))) {
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
  dev_total total;
  unsigned char result[8]; /* reduce: the result, on rank 0 */
  uint64_t *d_counts;      /* histogram: one pass's counts, on the device and the host */
  uint64_t *h_counts;
  uint64_t *h_total; /* the counts this rank collected (zeros if it collects none) */
  double *d_edges;
} rank;

static void *total_slot(const rank *r, int k) { return r->total.d_slots + (size_t)k * r->j->esize; }
static void *total_now(const rank *r) { return total_slot(r, r->total.c); }

/* The total becomes total op (op over d_in[0..m)), or op over d_in[0..m) the first time; the
 * pass is reduced with `alg`, the pair with AUTO. */
static int total_add(rank *r, const void *d_in, uint64_t m, cuprim_reduce_alg alg) {
  const job *j = r->j;
  dev_total *t = &r->total;
  int rc =
      cli_cuprim(cuprim_reduce_ex(r->g.ctx, alg, d_in, total_slot(r, t->have ? t->c + 1 : t->c), m,
                                  j->in.dtype, j->a->op, r->g.stream),
                 j->cmd, "cuprim_reduce_ex (pass total)");
  if (!rc && t->have) {
    rc = cli_cuprim(cuprim_reduce(r->g.ctx, total_slot(r, t->c), total_slot(r, t->c ^ 2), 2,
                                  j->in.dtype, j->a->op, r->g.stream),
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
      cudaMemcpyAsync(total_now(r), d_src, r->j->esize, cudaMemcpyDeviceToDevice, r->g.stream),
      r->j->cmd, "cudaMemcpyAsync (carry)");
}

/* The pass size from --chunk, or from the free memory of the rank's device. `reserve`: device
 * bytes the command allocates besides the data; `pad`: elements before the data in the buffer. */
static int pass_size(rank *r, size_t reserve, uint64_t pad) {
  const job *j = r->j;
  if (j->a->chunk) {
    r->chunk = j->a->chunk < r->n ? j->a->chunk : r->n;
    return CLI_EXIT_OK;
  }
  size_t free_b = 0, total_b = 0;
  const int rc = cli_cuda(cudaMemGetInfo(&free_b, &total_b), j->cmd, "cudaMemGetInfo");
  if (rc)
    return rc;
  /* Half the free memory for the data, the other half for the library's temporary memory
   * (the histogram sort path's keys, private copies, the scan's tile status) and its pool. */
  size_t budget = free_b / 2;
  budget = budget > reserve ? budget - reserve : 0;
  uint64_t c = budget / j->esize;
  c = c > pad ? c - pad : 0;
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

/* Everything a rank needs before its first pass: its input at the start of its share, the
 * device's context and stream, the pass size, the pass buffer (`pad` elements before the data),
 * the staging buffers and the total's slots. `reserve`: device bytes the command allocates
 * besides. */
static int rank_open(rank *r, size_t reserve, uint64_t pad) {
  job *j = r->j;
  char err[512];
  int rc = CLI_EXIT_OK;
  r->in = &j->in; /* at element 0, rank 0's share */
  if (r->index > 0) {
    /* Its own handle, so that the ranks read their shares at once. */
    rc = cli_input_open(&r->own_in, j->a->input, j->a->have_dtype, j->a->dtype, err, sizeof err);
    if (!rc && r->own_in.count != j->in.count)
      rc = cli_error(CLI_EXIT_INPUT, err, sizeof err, "%s: the file changed while it was read",
                     j->a->input);
    if (!rc) {
      r->in = &r->own_in;
      rc = cli_input_seek(r->in, r->lo, err, sizeof err);
    }
    if (rc)
      fprintf(stderr, "cuprim %s: %s\n", j->cmd, err);
  }
  if (!rc)
    rc = cli_gpu_open(&r->g, j->cmd, j->a->devices[r->index]);
  if (!rc)
    rc = pass_size(r, reserve + 4 * j->esize, pad);
  const size_t bytes = (size_t)(r->chunk + pad) * j->esize;
  if (!rc)
    rc = cli_cuda(cudaMalloc(&r->d_buf, bytes ? bytes : 1), j->cmd,
                  "cudaMalloc (data; try a smaller --chunk)");
  if (!rc)
    rc = cli_gpu_stage(&r->g, (size_t)r->chunk * j->esize);
  if (!rc)
    rc = cli_cuda(cudaMalloc((void **)&r->total.d_slots, 4 * j->esize), j->cmd,
                  "cudaMalloc (total)");
  return rc;
}

static void rank_close(rank *r) {
  if (r->g.stream)
    (void)cudaStreamSynchronize(r->g.stream);
  (void)cudaFree(r->d_buf);
  (void)cudaFree(r->total.d_slots);
  (void)cudaFree(r->d_counts);
  (void)cudaFree(r->d_edges);
  free(r->h_counts);
  cli_gpu_close(&r->g);
  cli_input_close(&r->own_in);
}

/* Uploads the share's next pass, its elements from `done` on (at most chunk of them), to dst;
 * *m: how many (0 once the share is done). Rank 0's first upload starts the progress line. */
static int upload_pass(rank *r, void *dst, uint64_t done, uint64_t *m) {
  if (done == 0 && r->prog)
    cli_progress_start(r->prog, r->j->cmd, r->n * r->j->esize);
  const uint64_t left = r->n - done;
  *m = left < r->chunk ? left : r->chunk;
  return cli_gpu_upload(&r->g, r->in, dst, (size_t)*m * r->j->esize, r->prog);
}

static int team_open(const job *j, struct ncclComm **comms);
static void team_close(int n, struct ncclComm **comms);

/* Splits the input into one share per device, in the order of --devices, sizes differing by at
 * most one element, and runs fn on each (cli_team_run). *out: the ranks, for their results
 * (malloc'd; NULL if it could not be), freed by the caller. */
static int run_ranks(job *j, rank **out, cli_rank_fn fn) {
  const int p = j->a->num_devices;
  const uint64_t base = j->in.count / (uint64_t)p, extra = j->in.count % (uint64_t)p;
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
    ranks[r].lo = ur * base + (ur < extra ? ur : extra);
    ranks[r].n = base + (ur < extra);
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
                                        j->in.dtype, j->a->op, r->g.stream),
                     j->cmd, "cuprim_nccl_reduce");
}

/* d_total[0] (n: 1, or 0 for a rank with nothing) becomes op over the totals of the ranks before
 * this one (the identity on rank 0): their exclusive scan, in place. */
static int team_prefix(rank *r, void *d_total, uint64_t n) {
  const job *j = r->j;
  return nccl_status(cuprim_nccl_scan(r->g.ctx, cli_team_comm(r->team, r->index), d_total, d_total,
                                      n, j->in.dtype, j->a->op, CUPRIM_EXCLUSIVE, r->g.stream),
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

/* ---------------------------------------------------------------- reduce */

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
        cudaMemcpyAsync(r->result, d_result, j->esize, cudaMemcpyDeviceToHost, r->g.stream), j->cmd,
        "cudaMemcpyAsync (result)");
  if (!rc && index == 0)
    rc = cli_cuda(cudaStreamSynchronize(r->g.stream), j->cmd, "cudaStreamSynchronize");
  rank_close(r);
  return rc;
}

int cmd_reduce(const cli_args *a) {
  job j;
  int rc = start_job(&j, a, "reduce", CLI_PRIM_REDUCE);
  rank *ranks = NULL;
  if (!rc)
    rc = run_ranks(&j, &ranks, reduce_rank);
  const unsigned char *acc = ranks ? ranks[0].result : NULL;
  if (!rc) {
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
      rc = cli_cuprim(cuprim_scan_init(r->g.ctx, r->d_buf, r->d_buf, m, j->in.dtype, a->op, a->kind,
                                       d_init, r->g.stream),
                      j->cmd, "cuprim_scan_init");
    else if (!rc)
      rc = cli_cuprim(cuprim_scan_ex(r->g.ctx, (cuprim_scan_alg)a->alg, r->d_buf, r->d_buf, m,
                                     j->in.dtype, a->op, a->kind, r->g.stream),
                      j->cmd, "cuprim_scan_ex");
    if (!rc)
      rc = write_pass(r, r->d_buf, m, &stop);
    if (!rc && !last && a->kind == CUPRIM_INCLUSIVE)
      rc = total_set(r, (const char *)r->d_buf + (m - 1) * j->esize);
  }
  return rc;
}

/* Passes with a ladder algorithm (one device), which has no initial value: a pass after the first
 * is scanned together with the carry, placed on the device just before the pass's elements. An
 * inclusive scan of [carry, x0, ..., x(m-1)] holds carry op x0 op ... op xi at i + 1 (the
 * inclusive result) and the exclusive one at i. `pad` elements precede the pass in r->d_buf, so
 * that the pass starts 16-byte aligned (the ladder kernels' vector loads). */
static int scan_passes_ladder(rank *r, uint64_t pad) {
  const job *j = r->j;
  const cli_args *a = j->a;
  char *d_pass = (char *)r->d_buf + pad * j->esize;
  char *d_carry = d_pass - j->esize;
  int rc = CLI_EXIT_OK, stop = 0;
  uint64_t done = 0;
  for (int first = 1; !rc && !stop && (first || done < r->n); first = 0) {
    uint64_t m = 0;
    const char *d_result = d_pass;
    rc = upload_pass(r, d_pass, done, &m);
    if (!rc && first && a->kind == CUPRIM_EXCLUSIVE) {
      /* The first exclusive pass starts from the identity; later passes from the carry. */
      unsigned char identity[8]; /* one element of any dtype */
      hr_identity(j->in.dtype, a->op, identity);
      rc = cli_cuda(
          cudaMemcpyAsync(d_carry, identity, j->esize, cudaMemcpyHostToDevice, r->g.stream), j->cmd,
          "cudaMemcpyAsync (identity)");
    }
    if (rc)
      break;
    if (first && a->kind == CUPRIM_INCLUSIVE) {
      rc = cli_cuprim(cuprim_scan_ex(r->g.ctx, (cuprim_scan_alg)a->alg, d_pass, d_pass, m,
                                     j->in.dtype, a->op, CUPRIM_INCLUSIVE, r->g.stream),
                      j->cmd, "cuprim_scan_ex");
    } else {
      rc = cli_cuprim(cuprim_scan_ex(r->g.ctx, (cuprim_scan_alg)a->alg, d_carry, d_carry, m + 1,
                                     j->in.dtype, a->op, CUPRIM_INCLUSIVE, r->g.stream),
                      j->cmd, "cuprim_scan_ex");
      d_result = a->kind == CUPRIM_EXCLUSIVE ? d_carry : d_pass;
    }
    if (!rc)
      rc = write_pass(r, d_result, m, &stop);
    /* The next pass's carry: the total so far, the last element of the scanned range. */
    if (!rc && m > 0)
      rc = cli_cuda(cudaMemcpyAsync(d_carry, d_pass + (m - 1) * j->esize, j->esize,
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
  const size_t esize = r->j->esize;
  /* A ladder algorithm's carry slot sits just before a 16-byte aligned pass (cuprim_scan_init
   * runs the single-pass path: the ladder has no initial value). Several devices take AUTO only
   * (cli_parse). */
  const int ladder = a->alg != CUPRIM_SCAN_AUTO && a->alg != CUPRIM_SCAN_DECOUPLED_LOOKBACK;
  const uint64_t pad = !ladder ? 0 : esize < ALIGN_BYTES ? ALIGN_BYTES / esize : 1;
  int rc = rank_open(r, 0, pad);
  uint64_t passes = 0;
  if (!cli_team_vote(team, rc == 0, 0, &passes)) {
    rank_close(r);
    return rc;
  }
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
  if (!rc && !j.out.csv) {
    const uint64_t shape[1] = {j.in.count}; /* flattened, as np.cumsum(a) without an axis */
    if (npy_write_header(j.out.f, j.in.dtype, 1, shape) != NPY_OK) {
      snprintf(j.err, sizeof j.err, "%s: write error", a->output);
      rc = fail(&j, CLI_EXIT_OUTPUT);
    }
  }
  rank *ranks = NULL;
  if (!rc)
    rc = run_ranks(&j, &ranks, scan_rank);
  if (!rc)
    rc = commit(&j);
  free(ranks);
  close_job(&j);
  return rc;
}

/* ---------------------------------------------------------------- histogram */

static int write_histogram(job *j, const uint64_t *counts, uint32_t bins, const double *edges) {
  const cli_args *a = j->a;
  /* Bin i's edges: given, or lower + i * (upper - lower) / bins, the last one exactly `upper`. */
  const hr_hist_bins b =
      edges ? hr_hist_bins_edges(bins, edges) : hr_hist_bins_even(bins, a->lower, a->upper);
  if (!a->output) {
    printf("%24s %24s %20s\n", "lower", "upper", "count");
    for (uint32_t i = 0; i < bins; ++i)
      printf("%24.10g %24.10g %20llu\n", hr_hist_edge(&b, i), hr_hist_edge(&b, (uint64_t)i + 1),
             (unsigned long long)counts[i]);
    return CLI_EXIT_OK;
  }
  int ok = 1;
  if (format_of(j) == OUT_NPY) {
    const uint64_t shape[1] = {bins};
    ok = npy_write_header(j->out.f, CUPRIM_U64, 1, shape) == NPY_OK &&
         cli_output_write(&j->out, counts, (size_t)bins * sizeof(uint64_t), j->err,
                          sizeof j->err) == CLI_EXIT_OK;
  } else {
    ok = fprintf(j->out.f, "lower,upper,count\n") > 0;
    for (uint32_t i = 0; ok && i < bins; ++i)
      ok = fprintf(j->out.f, "%.17g,%.17g,%llu\n", hr_hist_edge(&b, i),
                   hr_hist_edge(&b, (uint64_t)i + 1), (unsigned long long)counts[i]) > 0;
  }
  if (!ok) {
    snprintf(j->err, sizeof j->err, "%s: write error", a->output);
    return fail(j, CLI_EXIT_OUTPUT);
  }
  return commit(j);
}

/* Rank 0, or every rank with --edges, collects counts in h_total; with equal-width bins on a
 * team the passes go in lock step, each a collective whose counts every rank holds, and rank 0
 * alone collects them. */
static int histogram_rank(void *user, cli_team *team, int index) {
  rank *r = (rank *)user;
  r->team = team;
  const job *j = r->j;
  const cli_args *a = j->a;
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
  const int lock_step = team && !j->h_edges;
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
    if (lock_step) {
      /* Every rank, every pass, failed or done (then with no samples). */
      const int trc = team_histogram(r, r->d_buf, m);
      rc = rc ? rc : trc;
    } else if (j->h_edges) {
      rc = cli_cuprim(cuprim_histogram_range(r->g.ctx, r->d_buf, m, j->in.dtype, r->d_counts,
                                             j->bins, r->d_edges, r->g.stream),
                      j->cmd, "cuprim_histogram_range");
    } else {
      rc = cli_cuprim(cuprim_histogram_even_ex(r->g.ctx, (cuprim_histogram_alg)a->alg, r->d_buf, m,
                                               j->in.dtype, r->d_counts, j->bins, a->lower,
                                               a->upper, r->g.stream),
                      j->cmd, "cuprim_histogram_even_ex");
    }
    if (!rc && collect)
      rc = cli_cuda(cudaMemcpyAsync(r->h_counts, r->d_counts, counts_bytes, cudaMemcpyDeviceToHost,
                                    r->g.stream),
                    j->cmd, "cudaMemcpyAsync (counts)");
    if (!rc && collect)
      rc = cli_cuda(cudaStreamSynchronize(r->g.stream), j->cmd, "cudaStreamSynchronize");
    for (uint32_t i = 0; !rc && collect && i < j->bins; ++i)
      r->h_total[i] += r->h_counts[i];
  }
  rank_close(r);
  return rc;
}

int cmd_histogram(const cli_args *a) {
  job j;
  int rc = start_job(&j, a, "histogram", CLI_PRIM_HISTOGRAM);
  j.bins = a->bins;
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
    for (uint32_t i = 0; i < j.bins; ++i)
      ranks[0].h_total[i] += ranks[r].h_total[i];
  if (!rc)
    rc = write_histogram(&j, ranks[0].h_total, j.bins, j.h_edges);
  for (int r = 0; ranks && r < a->num_devices; ++r)
    free(ranks[r].h_total);
  free(ranks);
  close_job(&j);
  return rc;
}
