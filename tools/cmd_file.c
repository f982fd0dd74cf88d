/* tools/cmd_file.c: `cuprim reduce`, `cuprim scan` and `cuprim histogram`: the primitives on the
 * user's data.
 *
 * Each command checks everything it can without a device first (the command line, the input
 * file, the dtype and op, the edges, the output's directory), so that bad input gets the same
 * exit code on any machine; only then does it look for a device. The data goes through the
 * device in passes of `chunk` elements (--chunk, or half the free device memory, leaving the
 * other half to the library's temporary memory), read from the file through pinned staging
 * buffers:
 *   reduce     each pass is reduced on the device; the pass results are combined on the host
 *              with the same op (so a float SUM of a file larger than one pass may differ in
 *              the last bits from a single pass);
 *   histogram  each pass's counts are added on the host (exact);
 *   scan       a pass after the first is scanned together with the running total (the carry),
 *              placed on the device just before the pass's elements: an inclusive scan of
 *              [carry, x0, ..., x(m-1)] holds carry op x0 op ... op xi. So the carry is applied
 *              by the library's own scan, exact for integers (wrapping) and for MIN/MAX/AND/OR/XOR,
 *              and no pass needs a host pass over the data. scan.h has no initial value, hence the
 *              extra element. A single pass calls the library with the requested kind directly.
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
#include "hostref_histogram.h"
#include "npy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { ALIGN_BYTES = 16 }; /* the scan's pass starts 16-byte aligned: vector loads */

/* The state every file command shares. */
typedef struct job {
  const cli_args *a;
  const char *cmd;
  char err[1024];
  cli_input in;
  cli_output out;
  cli_gpu g;
  size_t esize;
  uint64_t chunk; /* elements per pass */
  void *d_buf;
  cli_progress prog; /* of the uploads, on stderr */
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

/* The device, the context and the pass size. `reserve`: device bytes the command allocates
 * besides the data; `pad`: elements before the data in the buffer. */
static int open_device(job *j, size_t reserve, uint64_t pad) {
  int rc = cli_require_device(j->cmd, j->a->device);
  if (!rc)
    rc = cli_gpu_open(&j->g, j->cmd, j->a->device);
  if (rc)
    return rc;
  const uint64_t count = j->in.count;
  if (j->a->chunk) {
    j->chunk = j->a->chunk < count ? j->a->chunk : count;
  } else {
    size_t free_b = 0, total_b = 0;
    rc = cli_cuda(cudaMemGetInfo(&free_b, &total_b), j->cmd, "cudaMemGetInfo");
    if (rc)
      return rc;
    /* Half the free memory for the data, the other half for the library's temporary memory
     * (the histogram sort path's keys, private copies, the scan's tile status) and its pool. */
    size_t budget = free_b / 2;
    budget = budget > reserve ? budget - reserve : 0;
    uint64_t c = budget / j->esize;
    c = c > pad ? c - pad : 0;
    j->chunk = c < count ? c : count;
    if (j->chunk == 0 && count > 0) {
      fprintf(stderr, "cuprim %s: not enough free device memory (%zu bytes free)\n", j->cmd,
              free_b);
      return CLI_EXIT_FAILED;
    }
  }
  const size_t bytes = (size_t)(j->chunk + pad) * j->esize;
  rc = cli_cuda(cudaMalloc(&j->d_buf, bytes ? bytes : 1), j->cmd,
                "cudaMalloc (data; try a smaller --chunk)");
  if (!rc)
    rc = cli_gpu_stage(&j->g, (size_t)j->chunk * j->esize);
  return rc;
}

static void close_job(job *j) {
  if (j->g.stream)
    (void)cudaStreamSynchronize(j->g.stream);
  (void)cudaFree(j->d_buf);
  cli_gpu_close(&j->g);
  cli_input_close(&j->in);
  cli_output_abort(&j->out); /* a no-op once committed */
}

static int commit(job *j) {
  if (!j->a->output)
    return CLI_EXIT_OK;
  const int rc = cli_output_commit(&j->out, j->err, sizeof j->err);
  return rc ? fail(j, rc) : CLI_EXIT_OK;
}

/* Uploads the next pass, the elements from `done` on (at most chunk of them), to dst; *m: how
 * many. The first upload starts the progress line. */
static int upload_pass(job *j, void *dst, uint64_t done, uint64_t *m) {
  if (done == 0)
    cli_progress_start(&j->prog, j->cmd, j->in.bytes);
  const uint64_t left = j->in.count - done;
  *m = left < j->chunk ? left : j->chunk;
  return cli_gpu_upload(&j->g, &j->in, dst, (size_t)*m * j->esize, &j->prog);
}

/* ---------------------------------------------------------------- reduce */

int cmd_reduce(const cli_args *a) {
  job j;
  int rc = start_job(&j, a, "reduce", CLI_PRIM_REDUCE);
  if (!rc)
    rc = open_device(&j, j.esize, 0);
  void *d_out = NULL;
  if (!rc)
    rc = cli_cuda(cudaMalloc(&d_out, j.esize), j.cmd, "cudaMalloc");

  /* One pass at least: n == 0 gives the identity. */
  unsigned char acc[8], val[8]; /* one element of any dtype */
  uint64_t done = 0;
  for (int first = 1; !rc && (first || done < j.in.count); first = 0) {
    uint64_t m = 0;
    rc = upload_pass(&j, j.d_buf, done, &m);
    if (!rc)
      rc = cli_cuprim(cuprim_reduce_ex(j.g.ctx, (cuprim_reduce_alg)a->alg, j.d_buf, d_out, m,
                                       j.in.dtype, a->op, j.g.stream),
                      j.cmd, "cuprim_reduce_ex");
    if (!rc)
      rc = cli_cuda(cudaMemcpyAsync(val, d_out, j.esize, cudaMemcpyDeviceToHost, j.g.stream), j.cmd,
                    "cudaMemcpyAsync");
    if (!rc)
      rc = cli_cuda(cudaStreamSynchronize(j.g.stream), j.cmd, "cudaStreamSynchronize");
    if (rc)
      break;
    if (first)
      memcpy(acc, val, j.esize);
    else
      hr_combine(j.in.dtype, a->op, acc, val);
    done += m;
  }
  cli_progress_end(&j.prog);

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
  if (j.g.stream)
    (void)cudaStreamSynchronize(j.g.stream);
  (void)cudaFree(d_out);
  close_job(&j);
  return rc;
}

/* ---------------------------------------------------------------- scan */

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
  /* The carry slot sits just before a 16-byte aligned pass. */
  const uint64_t pad = j.esize ? (j.esize < ALIGN_BYTES ? ALIGN_BYTES / j.esize : 1) : 1;
  if (!rc)
    rc = open_device(&j, 0, pad);

  char *d_pass = NULL, *d_carry = NULL;
  if (!rc) {
    d_pass = (char *)j.d_buf + pad * j.esize; /* the pass's elements */
    d_carry = d_pass - j.esize;               /* the carry, just before them */
  }
  const int single = j.in.count <= j.chunk;
  uint64_t done = 0;
  for (int first = 1; !rc && (first || done < j.in.count); first = 0) {
    uint64_t m = 0;
    const char *d_result = d_pass;
    rc = upload_pass(&j, d_pass, done, &m);
    if (!rc && first && !single && a->kind == CUPRIM_EXCLUSIVE) {
      /* The first exclusive pass starts from the identity; later passes from the carry. */
      unsigned char identity[8]; /* one element of any dtype */
      hr_identity(j.in.dtype, a->op, identity);
      rc = cli_cuda(cudaMemcpyAsync(d_carry, identity, j.esize, cudaMemcpyHostToDevice, j.g.stream),
                    j.cmd, "cudaMemcpyAsync (identity)");
    }
    if (rc)
      break;
    if (single) {
      rc = cli_cuprim(cuprim_scan_ex(j.g.ctx, (cuprim_scan_alg)a->alg, d_pass, d_pass, m,
                                     j.in.dtype, a->op, a->kind, j.g.stream),
                      j.cmd, "cuprim_scan_ex");
    } else if (first && a->kind == CUPRIM_INCLUSIVE) {
      rc = cli_cuprim(cuprim_scan_ex(j.g.ctx, (cuprim_scan_alg)a->alg, d_pass, d_pass, m,
                                     j.in.dtype, a->op, CUPRIM_INCLUSIVE, j.g.stream),
                      j.cmd, "cuprim_scan_ex");
    } else {
      /* [carry, x0 .. x(m-1)] scanned inclusively: element i+1 is carry op x0 .. op xi (the
       * inclusive result), element i is the exclusive one. */
      rc = cli_cuprim(cuprim_scan_ex(j.g.ctx, (cuprim_scan_alg)a->alg, d_carry, d_carry, m + 1,
                                     j.in.dtype, a->op, CUPRIM_INCLUSIVE, j.g.stream),
                      j.cmd, "cuprim_scan_ex");
      d_result = a->kind == CUPRIM_EXCLUSIVE ? d_carry : d_pass;
    }
    if (!rc)
      rc = cli_gpu_download(&j.g, d_result, (size_t)m * j.esize, &j.out);
    /* The next pass's carry: the total so far, the last element of the scanned range. */
    if (!rc && !single && m > 0)
      rc = cli_cuda(cudaMemcpyAsync(d_carry, d_pass + (m - 1) * j.esize, j.esize,
                                    cudaMemcpyDeviceToDevice, j.g.stream),
                    j.cmd, "cudaMemcpyAsync (carry)");
    done += m;
  }
  cli_progress_end(&j.prog);
  if (!rc)
    rc = cli_cuda(cudaStreamSynchronize(j.g.stream), j.cmd, "cudaStreamSynchronize");
  if (!rc)
    rc = commit(&j);
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

int cmd_histogram(const cli_args *a) {
  job j;
  double *h_edges = NULL;
  uint32_t bins = a->bins;
  int rc = start_job(&j, a, "histogram", CLI_PRIM_HISTOGRAM);
  if (!rc && a->edges) {
    rc = cli_read_edges(a->edges, &h_edges, &bins, j.err, sizeof j.err);
    if (rc)
      rc = fail(&j, rc);
  }
  const size_t counts_bytes = (size_t)bins * sizeof(uint64_t);
  const size_t edges_bytes = h_edges ? ((size_t)bins + 1) * sizeof(double) : 0;
  if (!rc)
    rc = open_device(&j, counts_bytes + edges_bytes, 0);
  uint64_t *h_total = NULL, *h_counts = NULL;
  if (!rc) {
    h_total = (uint64_t *)calloc(bins, sizeof(uint64_t));
    h_counts = (uint64_t *)malloc(counts_bytes);
    if (!h_total || !h_counts) {
      snprintf(j.err, sizeof j.err, "cannot allocate host memory for %lu bins",
               (unsigned long)bins);
      rc = fail(&j, CLI_EXIT_FAILED);
    }
  }
  uint64_t *d_counts = NULL;
  double *d_edges = NULL;
  if (!rc)
    rc = cli_cuda(cudaMalloc((void **)&d_counts, counts_bytes), j.cmd, "cudaMalloc (counts)");
  if (!rc && h_edges) {
    rc = cli_cuda(cudaMalloc((void **)&d_edges, edges_bytes), j.cmd, "cudaMalloc (edges)");
    if (!rc)
      rc = cli_cuda(
          cudaMemcpyAsync(d_edges, h_edges, edges_bytes, cudaMemcpyHostToDevice, j.g.stream), j.cmd,
          "cudaMemcpyAsync (edges)");
  }

  uint64_t done = 0;
  for (int first = 1; !rc && (first || done < j.in.count); first = 0) {
    uint64_t m = 0;
    rc = upload_pass(&j, j.d_buf, done, &m);
    if (!rc && d_edges)
      rc = cli_cuprim(cuprim_histogram_range(j.g.ctx, j.d_buf, m, j.in.dtype, d_counts, bins,
                                             d_edges, j.g.stream),
                      j.cmd, "cuprim_histogram_range");
    else if (!rc)
      rc = cli_cuprim(cuprim_histogram_even_ex(j.g.ctx, (cuprim_histogram_alg)a->alg, j.d_buf, m,
                                               j.in.dtype, d_counts, bins, a->lower, a->upper,
                                               j.g.stream),
                      j.cmd, "cuprim_histogram_even_ex");
    if (!rc)
      rc = cli_cuda(
          cudaMemcpyAsync(h_counts, d_counts, counts_bytes, cudaMemcpyDeviceToHost, j.g.stream),
          j.cmd, "cudaMemcpyAsync (counts)");
    if (!rc)
      rc = cli_cuda(cudaStreamSynchronize(j.g.stream), j.cmd, "cudaStreamSynchronize");
    for (uint32_t i = 0; !rc && i < bins; ++i)
      h_total[i] += h_counts[i];
    done += m;
  }
  cli_progress_end(&j.prog);
  if (!rc)
    rc = write_histogram(&j, h_total, bins, h_edges);
  if (j.g.stream)
    (void)cudaStreamSynchronize(j.g.stream);
  (void)cudaFree(d_counts);
  (void)cudaFree(d_edges);
  free(h_total);
  free(h_counts);
  free(h_edges);
  close_job(&j);
  return rc;
}
