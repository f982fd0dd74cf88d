/* tools/cmd_bench.c: `cuprim demo`, `cuprim ladder` and `cuprim info`: generated data, timed on
 * the device.
 *
 * Timing (cli_gpu_time): one warm-up call, then R samples of [flush L2, event, call, event]; the
 * median is reported. GB/s counts the bytes a primitive must move: reduce and histogram read n
 * elements, scan reads and writes n, the segmented reduce reads n elements and num_segments + 1
 * offsets and writes num_segments results (cuprim-bench's byte limit, bench/bench_segmented.cu);
 * the device-to-device copy reads and writes its buffer.
 * Every result is checked against the host references that the tests use (harness/hostref*.h):
 * data is chosen so that the check can be exact wherever the primitive's result is (integers,
 * float MIN/MAX, and float sums and products whose every partial result is exact), and within
 * the references' stated bound otherwise (float reduce SUM). The data are those of cuprim-bench:
 * element i from hr_element_bits(seed, i).
 *
 * `cuprim info` says what the build holds (the CUDA architectures of the library's device code,
 * NCCL), then every device: its attributes, the library's code it runs (its own machine code or
 * older PTX compiled by the driver), and for the chosen one (--device) the copy bandwidth. */
#include "cli_commands.h"

#include "cli_gpu.h"
#include "hostref_histogram.h"
#include "hostref_reduce.h"
#include "hostref_scan.h"
#include "hostref_segmented.h"

#ifdef CUPRIM_CLI_NCCL
#include <cuprim/nccl.h>
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- data */

/* The histogram's range for generated data of each dtype: every value of the 8- and 16-bit
 * types, [0, 2^20) for the wider integers, [0, 1) for floats. */
static void histogram_range(cuprim_dtype t, double *lo, double *hi) {
  switch (t) {
  case CUPRIM_I8:
    *lo = -128.0, *hi = 128.0;
    return;
  case CUPRIM_U8:
    *lo = 0.0, *hi = 256.0;
    return;
  case CUPRIM_I16:
    *lo = -32768.0, *hi = 32768.0;
    return;
  case CUPRIM_U16:
    *lo = 0.0, *hi = 65536.0;
    return;
  case CUPRIM_F32:
  case CUPRIM_F64:
    *lo = 0.0, *hi = 1.0;
    return;
  default:
    *lo = 0.0, *hi = 1048576.0; /* 2^20 */
    return;
  }
}

/* The ladder's data for primitive p, dtype t and op. */
static void fill(cli_primitive p, cuprim_dtype t, cuprim_op op, void *h, uint64_t n,
                 uint64_t seed) {
  const int is_float = hr_is_float(t);
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t r = hr_element_bits(seed, i);
    if (p == CLI_PRIM_HISTOGRAM) {
      if (is_float)
        hr_store_float(t, h, i, hr_unit24(r));
      else /* 8- and 16-bit: every bit pattern, the whole range; wider: [0, 2^20) */
        hr_store_bits(t, h, i, cuprim_dtype_size(t) <= 2 ? r : r >> 44);
    } else if (is_float) {
      if (op == CUPRIM_PROD) /* every product is +-1: exact */
        hr_store_float(t, h, i, (r & 1) ? 1.0 : -1.0);
      else if (p == CLI_PRIM_SCAN && op == CUPRIM_SUM) /* every partial sum exact */
        hr_store_float(t, h, i, hr_prefix16(seed, i) - (i ? hr_prefix16(seed, i - 1) : 0.0));
      else
        hr_store_float(t, h, i, hr_unit24(r));
    } else {
      hr_store_bits(t, h, i, op == CUPRIM_PROD ? r | 1 : r); /* odd: products stay nonzero */
    }
  }
}

static int host_alloc(const char *cmd, void **p, size_t bytes) {
  *p = malloc(bytes ? bytes : 1);
  if (!*p) {
    fprintf(stderr, "cuprim %s: cannot allocate %zu bytes of host memory\n", cmd, bytes);
    return CLI_EXIT_FAILED;
  }
  return CLI_EXIT_OK;
}

/* ---------------------------------------------------------------- timed calls */

typedef struct call {
  const char *cmd;
  cli_primitive primitive;
  int alg; /* the primitive's enum value */
  cuprim_ctx *ctx;
  cuprim_dtype dtype;
  cuprim_op op;
  cuprim_scan_kind kind;
  const void *d_in;
  void *d_out;
  uint64_t n;
  uint32_t bins;
  double lo, hi;
  int plain; /* the plain entry point (AUTO) rather than _ex with alg */
  /* the segmented reduce: segment s is d_in[off[s] .. off[s+1]), off being d_offsets */
  const void *d_offsets;
  cuprim_dtype offset_dtype;
  uint64_t num_segments;
} call;

/* One timed call: the _ex entry point with c->alg (the ladder), or with `plain` the plain entry
 * point (the demo: what a user calls). */
static int run_call(void *user, cudaStream_t stream) {
  const call *c = (const call *)user;
  cuprim_status s = CUPRIM_ERROR_INTERNAL;
  const char *what = "?";
  switch (c->primitive) {
  case CLI_PRIM_REDUCE:
    s = c->plain ? cuprim_reduce(c->ctx, c->d_in, c->d_out, c->n, c->dtype, c->op, stream)
                 : cuprim_reduce_ex(c->ctx, (cuprim_reduce_alg)c->alg, c->d_in, c->d_out, c->n,
                                    c->dtype, c->op, stream);
    what = c->plain ? "cuprim_reduce" : "cuprim_reduce_ex";
    break;
  case CLI_PRIM_SCAN:
    s = c->plain ? cuprim_scan(c->ctx, c->d_in, c->d_out, c->n, c->dtype, c->op, c->kind, stream)
                 : cuprim_scan_ex(c->ctx, (cuprim_scan_alg)c->alg, c->d_in, c->d_out, c->n,
                                  c->dtype, c->op, c->kind, stream);
    what = c->plain ? "cuprim_scan" : "cuprim_scan_ex";
    break;
  case CLI_PRIM_HISTOGRAM: {
    uint64_t *d_counts = (uint64_t *)c->d_out;
    s = c->plain ? cuprim_histogram_even(c->ctx, c->d_in, c->n, c->dtype, d_counts, c->bins, c->lo,
                                         c->hi, stream)
                 : cuprim_histogram_even_ex(c->ctx, (cuprim_histogram_alg)c->alg, c->d_in, c->n,
                                            c->dtype, d_counts, c->bins, c->lo, c->hi, stream);
    what = c->plain ? "cuprim_histogram_even" : "cuprim_histogram_even_ex";
    break;
  }
  case CLI_PRIM_SEGMENTED:
    s = c->plain
            ? cuprim_segmented_reduce(c->ctx, c->d_in, c->d_out, c->n, c->d_offsets,
                                      c->offset_dtype, c->num_segments, c->dtype, c->op, stream)
            : cuprim_segmented_reduce_ex(c->ctx, (cuprim_segmented_alg)c->alg, c->d_in, c->d_out,
                                         c->n, c->d_offsets, c->offset_dtype, c->num_segments,
                                         c->dtype, c->op, stream);
    what = c->plain ? "cuprim_segmented_reduce" : "cuprim_segmented_reduce_ex";
    break;
  }
  return cli_cuprim(s, c->cmd, what);
}

/* A copy between host and device, waited for. */
static int copy_sync(cli_gpu *g, void *dst, const void *src, size_t bytes,
                     enum cudaMemcpyKind kind) {
  int rc =
      cli_cuda(cudaMemcpyAsync(dst, src, bytes, kind, g->stream), g->command, "cudaMemcpyAsync");
  if (!rc)
    rc = cli_cuda(cudaStreamSynchronize(g->stream), g->command, "cudaStreamSynchronize");
  return rc;
}

/* ---------------------------------------------------------------- demo */

enum { DEMO_BINS = 256 }; /* the classic histogram size */

int cmd_demo(const cli_args *a) {
  const char *cmd = "demo";
  const uint64_t n = a->n;
  /* Four arrays of n floats on the host (data twice, scan output, scan reference), three on the
   * device; the parser has checked that their sizes fit size_t. */
  int rc = cli_require_device(cmd, a->device);
  if (rc)
    return rc;
  const size_t bytes = (size_t)n * sizeof(float);
  float *h_x = NULL, *h_s = NULL, *h_out = NULL;
  uint64_t h_counts[DEMO_BINS], ref_counts[DEMO_BINS];
  hr_scan_ref scan_ref;
  hr_scan_ref_init(&scan_ref);
  rc = host_alloc(cmd, (void **)&h_x, bytes);
  if (!rc)
    rc = host_alloc(cmd, (void **)&h_s, bytes);
  if (!rc)
    rc = host_alloc(cmd, (void **)&h_out, bytes);
  cli_gpu g;
  memset(&g, 0, sizeof g);
  if (!rc)
    rc = cli_gpu_open(&g, cmd, a->device);
  float *d_x = NULL, *d_s = NULL, *d_out = NULL, *d_sum = NULL;
  uint64_t *d_counts = NULL;
  if (!rc)
    rc = cli_cuda(cudaMalloc((void **)&d_x, bytes), cmd, "cudaMalloc");
  if (!rc)
    rc = cli_cuda(cudaMalloc((void **)&d_s, bytes), cmd, "cudaMalloc");
  if (!rc)
    rc = cli_cuda(cudaMalloc((void **)&d_out, bytes), cmd, "cudaMalloc");
  if (!rc)
    rc = cli_cuda(cudaMalloc((void **)&d_sum, sizeof(float)), cmd, "cudaMalloc");
  if (!rc)
    rc = cli_cuda(cudaMalloc((void **)&d_counts, sizeof h_counts), cmd, "cudaMalloc");

  if (!rc) {
    fill(CLI_PRIM_REDUCE, CUPRIM_F32, CUPRIM_SUM, h_x, n, a->seed); /* [0, 1) */
    fill(CLI_PRIM_SCAN, CUPRIM_F32, CUPRIM_SUM, h_s, n, a->seed);   /* integers, exact sums */
    rc = copy_sync(&g, d_x, h_x, bytes, cudaMemcpyHostToDevice);
  }
  if (!rc)
    rc = copy_sync(&g, d_s, h_s, bytes, cudaMemcpyHostToDevice);

  /* The plain entry points (AUTO), as a user calls them: f32 sums of n elements. */
  const call plain = {.cmd = cmd,
                      .ctx = g.ctx,
                      .dtype = CUPRIM_F32,
                      .op = CUPRIM_SUM,
                      .kind = CUPRIM_INCLUSIVE,
                      .n = n,
                      .plain = 1};
  call c_reduce = plain, c_scan = plain, c_hist = plain;
  c_reduce.primitive = CLI_PRIM_REDUCE;
  c_reduce.d_in = d_x;
  c_reduce.d_out = d_sum;
  c_scan.primitive = CLI_PRIM_SCAN;
  c_scan.d_in = d_s;
  c_scan.d_out = d_out;
  c_hist.primitive = CLI_PRIM_HISTOGRAM;
  c_hist.d_in = d_x;
  c_hist.d_out = d_counts;
  c_hist.bins = DEMO_BINS;
  c_hist.lo = 0.0;
  c_hist.hi = 1.0;
  double us_reduce = 0, us_scan = 0, us_hist = 0, us_copy = 0;
  const unsigned runs = (unsigned)a->runs;
  if (!rc)
    rc = cli_gpu_time(&g, run_call, &c_reduce, runs, &us_reduce);
  if (!rc)
    rc = cli_gpu_time(&g, run_call, &c_hist, runs, &us_hist);
  if (!rc)
    rc = cli_gpu_time_copy(&g, d_out, d_s, bytes, runs, &us_copy);
  if (!rc) /* last: its output is checked */
    rc = cli_gpu_time(&g, run_call, &c_scan, runs, &us_scan);

  float sum = 0.0f;
  if (!rc)
    rc = copy_sync(&g, &sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost);
  if (!rc)
    rc = copy_sync(&g, h_out, d_out, bytes, cudaMemcpyDeviceToHost);
  if (!rc)
    rc = copy_sync(&g, h_counts, d_counts, sizeof h_counts, cudaMemcpyDeviceToHost);
  if (rc)
    goto done;

  /* The references and bounds of the tests (harness/hostref_*.h). Reduce: a compensated long
   * double sum and the bound for AUTO (hostref_reduce.c says why); the inputs are >= 0, so the
   * relative error is the error over the sum. Scan: exact (every partial sum is an integer below
   * 2^16). Histogram: the bin formula of histogram.h, exact counts. */
  const hr_gpu_shape shape = {(unsigned)g.prop.multiProcessorCount,
                              (unsigned)g.prop.maxBlocksPerMultiProcessor};
  hr_reduce_ref reduce_ref;
  char why[512] = "";
  hr_reduce_reference(CUPRIM_F32, CUPRIM_SUM, h_x, n, &reduce_ref);
  const double reference = (double)reduce_ref.value;
  const double scale = reference > 0.0 ? reference : 1.0;
  const double rel_error = fabs((double)sum - reference) / scale;
  const double tolerance =
      (double)hr_reduce_sum_tolerance(&reduce_ref, CUPRIM_REDUCE_AUTO, &shape) / scale;
  const int ok_reduce =
      hr_reduce_check(&reduce_ref, CUPRIM_REDUCE_AUTO, &shape, &sum, why, sizeof why);

  uint64_t first = 0, last = 0, wrong_scan = 0;
  if (hr_scan_reference(&scan_ref, CUPRIM_F32, CUPRIM_SUM, CUPRIM_INCLUSIVE, h_s, n) != 0) {
    fprintf(stderr, "cuprim demo: out of host memory for the scan's reference\n");
    rc = CLI_EXIT_FAILED;
    goto done;
  }
  wrong_scan = hr_scan_check(&scan_ref, h_out, -1, &first, &last, why, sizeof why);

  const hr_hist_bins bins = hr_hist_bins_even(DEMO_BINS, 0.0, 1.0);
  hr_hist_reference(&bins, CUPRIM_F32, h_x, n, ref_counts);
  const uint64_t wrong_bins =
      hr_hist_check(ref_counts, h_counts, DEMO_BINS, n, -1, &first, why, sizeof why);
  uint64_t max_bin = 0, min_bin = UINT64_MAX;
  for (int b = 0; b < DEMO_BINS; ++b) {
    max_bin = h_counts[b] > max_bin ? h_counts[b] : max_bin;
    min_bin = h_counts[b] < min_bin ? h_counts[b] : min_bin;
  }

  char ns[32], text[96], check[640];
  hr_format_count(n, ns, sizeof ns);
  printf("cuprim %s demo: n = %s f32 (seed %llu) on %s (sm_%d%d, %d SMs)\n",
         cuprim_version_string(), ns, (unsigned long long)a->seed, g.prop.name, g.prop.major,
         g.prop.minor, g.prop.multiProcessorCount);
  printf("time: median of %u runs after a warm-up, CUDA events, L2 flushed before each run\n\n",
         runs);
  printf("%-30s %-28s %10s %9s  %s\n", "primitive (AUTO)", "result", "time (us)", "GB/s",
         "check against the host");
  /* bytes / (us * 1e3) is bytes per ns: GB/s */
  snprintf(text, sizeof text, "%.9g", (double)sum);
  snprintf(check, sizeof check, "%s: rel. error %.2g (tolerance %.2g, reference %.9g)",
           ok_reduce ? "ok" : "WRONG", rel_error, tolerance, reference);
  printf("%-30s %-28s %10.2f %9.1f  %s\n", "reduce sum, x in [0,1)", text, us_reduce,
         (double)bytes / (us_reduce * 1e3), check);
  snprintf(text, sizeof text, "last = %.9g", n ? (double)h_out[n - 1] : 0.0);
  if (wrong_scan == 0)
    snprintf(check, sizeof check, "ok: all %llu elements exact", (unsigned long long)n);
  else
    snprintf(check, sizeof check, "WRONG: %llu element(s); %s", (unsigned long long)wrong_scan,
             why);
  printf("%-30s %-28s %10.2f %9.1f  %s\n", "scan inclusive sum, integers", text, us_scan,
         2.0 * (double)bytes / (us_scan * 1e3), check);
  snprintf(text, sizeof text, "bins hold %llu .. %llu", (unsigned long long)min_bin,
           (unsigned long long)max_bin);
  if (wrong_bins == 0)
    snprintf(check, sizeof check, "ok: %d bins exact", DEMO_BINS);
  else
    snprintf(check, sizeof check, "WRONG: %s", why);
  printf("%-30s %-28s %10.2f %9.1f  %s\n", "histogram 256 bins over [0,1)", text, us_hist,
         (double)bytes / (us_hist * 1e3), check);
  printf("%-30s %-28s %10.2f %9.1f  %s\n", "(device copy, for reference)", "cudaMemcpyAsync D2D",
         us_copy, 2.0 * (double)bytes / (us_copy * 1e3), "-");
  rc = ok_reduce && wrong_scan == 0 && wrong_bins == 0 ? CLI_EXIT_OK : CLI_EXIT_FAILED;

done:
  if (g.stream)
    (void)cudaStreamSynchronize(g.stream);
  (void)cudaFree(d_x);
  (void)cudaFree(d_s);
  (void)cudaFree(d_out);
  (void)cudaFree(d_sum);
  (void)cudaFree(d_counts);
  cli_gpu_close(&g);
  free(h_x);
  free(h_s);
  free(h_out);
  hr_scan_ref_free(&scan_ref);
  return rc;
}

/* ---------------------------------------------------------------- ladder */

/* What each step changes, from the algorithms' comments in src/ (reduce_ladder.cu,
 * reduce_auto.cu, scan_ladder.cu, scan_lookback.cu, histogram_count.cu, histogram_sort.cu,
 * segmented_ladder.cu, segmented_merge.cu). */
static const char *const reduce_notes[] = {
    "tuned default: vector loads, persistent grid, fixed chunk tree (same bits on every GPU)",
    "baseline: stride-halving tree in global memory on a scratch copy; a round trip per step",
    "tree in shared memory, one global read per element; tid % (2s) == 0 diverges",
    "index = 2*s*tid: active threads contiguous (no divergence), but bank conflicts",
    "stride halving, tid + s: convergent and conflict-free; half the threads idle at once",
    "two elements per thread added while loading: no idle half, half the blocks",
    "block size a template parameter, loop unrolled, last warp without block barriers",
    "warp shuffles instead of shared memory within a warp",
    "many elements per thread, grid sized to the GPU: far fewer blocks and block results",
    "block results combined by atomics: one launch, no second pass",
};
static const char *const scan_notes[] = {
    "tuned default: decoupled look-back (one block with a running carry for small inputs)",
    "step-efficient block scan (n log n work, a barrier per step); tiles by reduce-then-scan",
    "work-efficient upsweep/downsweep, padded shared memory: O(n) work, no bank conflicts",
    "shuffle-up warp scans in registers: two barriers instead of 2 log n",
    "single pass: tiles chained by decoupled look-back; data read once and written once",
};
static const char *const histogram_notes[] = {
    "tuned default: block_private's kernel, one block for small inputs, direct adds past smem",
    "baseline: one 64-bit atomic per sample on the output in global memory",
    "per-block copies in shared memory, runs of one bin added once, copies summed after",
    "no atomics on counts: bin indices radix-sorted (on cuprim's scan), counted by run",
};
static const char *const segmented_notes[] = {
    "tuned default: merge-path tiles, 16-byte loads; a part by a thread, warp or block, or flags",
    "baseline: thread s walks segment s; uncoalesced past a few elements, long segments idle",
    "32 lanes a segment: coalesced loads, shuffle tree; lanes idle on segments shorter than 32",
    "256 threads a segment (CUB's choice): long segments fast, each tiny one a whole block",
    "equal shares of elements and segment ends per thread: none idle; searches, branchy walk",
};

static const char *note(cli_primitive p, int alg) {
  switch (p) {
  case CLI_PRIM_REDUCE:
    return reduce_notes[alg];
  case CLI_PRIM_SCAN:
    return scan_notes[alg];
  case CLI_PRIM_HISTOGRAM:
    return histogram_notes[alg];
  case CLI_PRIM_SEGMENTED:
    return segmented_notes[alg];
  }
  return "";
}

/* ladder segmented: the offsets, laid out on the host as the tests and cuprim-bench lay them out
 * (hr_seg_layout), as I32 where n fits, else I64. */
typedef struct segments {
  void *h_off;        /* count + 1 offsets of dtype */
  cuprim_dtype dtype; /* CUPRIM_I32 or CUPRIM_I64 */
  uint64_t count;
} segments;

/* The offsets of a->segments (parameter a->segment_size) over a->n elements into sg; returns an
 * exit code. */
static int make_segments(segments *sg, const cli_args *a) {
  const uint64_t n = a->n, len = a->segment_size;
  /* Uniform: ceil(n / len) segments, which the first guess holds; random (mean len) and power law
   * (mean about 2.5): the guess is doubled until the layout fits. */
  uint64_t cap = a->segments == HR_SEG_POWER_LAW ? n / 2 + 1 : n / len + 1;
  uint64_t *off = NULL;
  for (;;) {
    if (cap >= SIZE_MAX / sizeof *off) {
      fprintf(stderr, "cuprim ladder: too many segments for this host\n");
      return CLI_EXIT_FAILED;
    }
    uint64_t *grown = (uint64_t *)realloc(off, (size_t)(cap + 1) * sizeof *off);
    if (!grown) {
      fprintf(stderr, "cuprim ladder: cannot allocate %llu offsets in host memory\n",
              (unsigned long long)cap + 1);
      free(off);
      return CLI_EXIT_FAILED;
    }
    off = grown;
    sg->count = hr_seg_layout(a->segments, len, n, a->seed, off, cap);
    if (sg->count != UINT64_MAX)
      break;
    cap *= 2;
  }
  /* Narrowed in place: offset k is read before its bytes are written, at or below where it was. */
  sg->dtype = n <= INT32_MAX ? CUPRIM_I32 : CUPRIM_I64;
  for (uint64_t k = 0; k <= sg->count; ++k)
    hr_seg_store_offset(sg->dtype, off, k, (int64_t)off[k]);
  sg->h_off = off;
  return CLI_EXIT_OK;
}

/* The ladder's references, the tests' own (harness/hostref_*.h), computed once for all rungs. */
typedef struct ladder_ref {
  cli_primitive p;
  int have; /* 0: the host references have none for this dtype and op (the check shows "-") */
  hr_reduce_ref reduce;
  hr_scan_ref scan;
  hr_seg_reduce_ref seg;
  uint64_t *counts; /* histogram: one per bin */
  uint32_t bins;
  uint64_t n;
  hr_gpu_shape shape; /* for the float SUM bound of COARSENED and ATOMIC */
} ladder_ref;

/* Builds the reference of h_in[0..n) (segmented: of each of its segments, by sg); returns
 * an exit code. */
static int ladder_reference(ladder_ref *r, const cli_args *a, const void *h_in, double lo,
                            double hi, const segments *sg) {
  const cuprim_dtype t = a->dtype;
  if (r->p == CLI_PRIM_SEGMENTED) {
    r->have = hr_reduce_supported(t, a->op);
    if (r->have && hr_seg_reduce_reference(&r->seg, t, a->op, h_in, r->n, sg->dtype, sg->h_off,
                                           sg->count, 0) != 0) {
      fprintf(stderr, "cuprim ladder: out of host memory for the segments' references\n");
      return CLI_EXIT_FAILED;
    }
  } else if (r->p == CLI_PRIM_REDUCE) {
    r->have = hr_reduce_supported(t, a->op);
    if (r->have)
      hr_reduce_reference(t, a->op, h_in, r->n, &r->reduce);
  } else if (r->p == CLI_PRIM_SCAN) {
    r->have = hr_scan_supported(t, a->op);
    if (r->have && hr_scan_reference(&r->scan, t, a->op, a->kind, h_in, r->n) != 0) {
      fprintf(stderr, "cuprim ladder: out of host memory for the scan's reference\n");
      return CLI_EXIT_FAILED;
    }
  } else {
    /* Every sample dtype: the reference decodes F16 and BF16 to double exactly, as the library. */
    r->have = 1;
    const hr_hist_bins b = hr_hist_bins_even(r->bins, lo, hi);
    hr_hist_reference(&b, t, h_in, r->n, r->counts);
  }
  return CLI_EXIT_OK;
}

/* What the output holds before each rung runs, so that a rung that leaves part of it unwritten is
 * not judged by the previous rung's result (the checks that know it say "never written"). */
enum { LADDER_POISON = 0xA5 };

/* "ok", "WRONG" (with why), or "-" (no reference) for the result of `alg` in h_out. */
static const char *ladder_check(const ladder_ref *r, int alg, const void *h_out, char *why,
                                size_t len) {
  uint64_t first = 0, last = 0;
  int ok;
  if (!r->have)
    return "-";
  if (r->p == CLI_PRIM_REDUCE)
    ok = hr_reduce_check(&r->reduce, (cuprim_reduce_alg)alg, &r->shape, h_out, why, len);
  else if (r->p == CLI_PRIM_SEGMENTED)
    ok = hr_seg_reduce_check(&r->seg, h_out, LADDER_POISON, &first, why, len) == 0;
  else if (r->p == CLI_PRIM_SCAN)
    ok = hr_scan_check(&r->scan, h_out, LADDER_POISON, &first, &last, why, len) == 0;
  else
    ok = hr_hist_check(r->counts, (const uint64_t *)h_out, r->bins, r->n, LADDER_POISON, &first,
                       why, len) == 0;
  return ok ? "ok" : "WRONG";
}

int cmd_ladder(const cli_args *a) {
  const char *cmd = "ladder";
  const cli_primitive p = a->primitive;
  const cuprim_dtype t = a->dtype;
  char err[256];
  int rc = cli_check_supported(p, t, a->op, err, sizeof err);
  if (rc) {
    fprintf(stderr, "cuprim ladder: %s\n", err);
    return rc;
  }
  const size_t esize = cuprim_dtype_size(t);
  /* Three arrays of n elements fit size_t, and for segmented as many segments as elements (with
   * their offsets and references): checked by the parser. */
  const uint64_t n = a->n;
  rc = cli_require_device(cmd, a->device);
  if (rc)
    return rc;
  segments sg;
  memset(&sg, 0, sizeof sg);
  if (p == CLI_PRIM_SEGMENTED) {
    rc = make_segments(&sg, a);
    if (rc)
      return rc;
  }
  const size_t off_bytes =
      p == CLI_PRIM_SEGMENTED ? (size_t)(sg.count + 1) * cuprim_dtype_size(sg.dtype) : 0;

  const size_t bytes = (size_t)n * esize;
  const uint32_t bins = a->bins;
  double lo = 0.0, hi = 0.0;
  histogram_range(t, &lo, &hi);
  /* Host: the data, the result (scan: n elements; reduce: one; histogram: bins; segmented: one a
   * segment), the reference. */
  const size_t out_bytes = p == CLI_PRIM_SCAN        ? bytes
                           : p == CLI_PRIM_HISTOGRAM ? (size_t)bins * sizeof(uint64_t)
                           : p == CLI_PRIM_SEGMENTED ? (size_t)sg.count * esize
                                                     : esize;
  void *h_in = NULL, *h_out = NULL;
  ladder_ref ref;
  memset(&ref, 0, sizeof ref);
  ref.p = p;
  ref.bins = bins;
  ref.n = n;
  hr_scan_ref_init(&ref.scan);
  hr_seg_reduce_ref_init(&ref.seg);
  rc = host_alloc(cmd, &h_in, bytes);
  if (!rc)
    rc = host_alloc(cmd, &h_out, out_bytes);
  if (!rc && p == CLI_PRIM_HISTOGRAM)
    rc = host_alloc(cmd, (void **)&ref.counts, out_bytes);
  cli_gpu g;
  memset(&g, 0, sizeof g);
  if (!rc)
    rc = cli_gpu_open(&g, cmd, a->device);
  double copy_gbps = 0.0;
  size_t copy_bytes = 0;
  if (!rc)
    rc = cli_gpu_copy_bandwidth(&g, (unsigned)a->runs, &copy_gbps, &copy_bytes);
  void *d_in = NULL, *d_out = NULL, *d_off = NULL;
  if (!rc)
    rc = cli_cuda(cudaMalloc(&d_in, bytes ? bytes : 1), cmd, "cudaMalloc");
  if (!rc)
    rc = cli_cuda(cudaMalloc(&d_out, out_bytes), cmd, "cudaMalloc");
  if (!rc && p == CLI_PRIM_SEGMENTED)
    rc = cli_cuda(cudaMalloc(&d_off, off_bytes), cmd, "cudaMalloc");
  if (rc)
    goto done;

  fill(p, t, a->op, h_in, n, a->seed);
  rc = copy_sync(&g, d_in, h_in, bytes, cudaMemcpyHostToDevice);
  if (!rc && p == CLI_PRIM_SEGMENTED)
    rc = copy_sync(&g, d_off, sg.h_off, off_bytes, cudaMemcpyHostToDevice);
  if (rc)
    goto done;
  ref.shape.sm_count = (unsigned)g.prop.multiProcessorCount;
  ref.shape.max_blocks_per_sm = (unsigned)g.prop.maxBlocksPerMultiProcessor;
  rc = ladder_reference(&ref, a, h_in, lo, hi, &sg);
  if (rc)
    goto done;

  char ns[32];
  hr_format_count(n, ns, sizeof ns);
  /* The bytes each call must move once (the file's opening comment). */
  const double moved = p == CLI_PRIM_SCAN ? 2.0 * (double)bytes
                       : p == CLI_PRIM_SEGMENTED
                           ? (double)bytes + (double)off_bytes + (double)out_bytes
                           : (double)bytes;
  if (p == CLI_PRIM_SEGMENTED) {
    char sizes[96];
    const unsigned long long len = (unsigned long long)a->segment_size;
    if (a->segments == HR_SEG_UNIFORM)
      snprintf(sizes, sizeof sizes, "uniform segments of %llu", len);
    else if (a->segments == HR_SEG_RANDOM)
      snprintf(sizes, sizeof sizes, "random segments of 0..%llu (mean %llu)", 2 * len, len);
    else
      snprintf(sizes, sizeof sizes, "power_law segments (1 + a Pareto tail, one of n/4)");
    printf("cuprim ladder segmented: %s %s, n = %s in %llu %s, %s offsets (%.1f MB: input + "
           "offsets + output, each moved once)\n",
           hr_op_name(a->op), hr_dtype_name(t), ns, (unsigned long long)sg.count, sizes,
           hr_dtype_name(sg.dtype), moved * 1e-6);
  } else if (p == CLI_PRIM_HISTOGRAM)
    printf("cuprim ladder histogram: %u bins over [%g, %g), %s, n = %s (%.1f MB read)\n", bins, lo,
           hi, hr_dtype_name(t), ns, moved * 1e-6);
  else
    printf("cuprim ladder %s: %s%s %s, n = %s (%.1f MB %s)\n", cli_primitive_name(p),
           p == CLI_PRIM_SCAN ? (a->kind == CUPRIM_EXCLUSIVE ? "exclusive " : "inclusive ") : "",
           hr_op_name(a->op), hr_dtype_name(t), ns, moved * 1e-6,
           p == CLI_PRIM_SCAN ? "read + written" : "read");
  printf("%s (sm_%d%d, %d SMs); median of %llu runs after a warm-up, CUDA events, L2 flushed "
         "before each run;\ndevice copy bandwidth %.0f GB/s (cudaMemcpyAsync D2D of %.0f MB, bytes "
         "read + written, timed the same way)\n\n",
         g.prop.name, g.prop.major, g.prop.minor, g.prop.multiProcessorCount,
         (unsigned long long)a->runs, copy_gbps, (double)copy_bytes * 1e-6);
  printf("%2s  %-21s %10s %8s %7s %6s %7s  %-6s %s\n", "#", "algorithm", "time (us)", "GB/s",
         "% copy", "step", "cumul.", "check", "what the step changes");

  const int count = hr_alg_count((hr_primitive)p);
  double first_us = 0.0, prev_us = 0.0;
  int failures = 0;
  char first_why[512] = "";
  /* The ladder in enum order (1, 2, ...), then the tuned default (0). */
  for (int k = 1; k <= count; ++k) {
    const int alg = k % count;
    call c = {.cmd = cmd,
              .primitive = p,
              .alg = alg,
              .ctx = g.ctx,
              .dtype = t,
              .op = a->op,
              .kind = a->kind,
              .d_in = d_in,
              .d_out = d_out,
              .n = n,
              .bins = bins,
              .lo = lo,
              .hi = hi,
              .d_offsets = d_off,
              .offset_dtype = sg.dtype,
              .num_segments = sg.count};
    double us = 0.0;
    rc = cli_cuda(cudaMemsetAsync(d_out, LADDER_POISON, out_bytes, g.stream), cmd,
                  "cudaMemsetAsync");
    if (rc)
      break;
    rc = cli_gpu_time(&g, run_call, &c, (unsigned)a->runs, &us);
    char label[16];
    snprintf(label, sizeof label, "%d", alg);
    if (rc) {
      ++failures;
      printf("%2s  %-21s %10s %8s %7s %6s %7s  %-6s %s\n", alg ? label : "-",
             hr_alg_name((hr_primitive)p, alg), "-", "-", "-", "-", "-", "FAILED", note(p, alg));
      if (rc == CLI_EXIT_FAILED) /* a CUDA error: the context may be unusable */
        break;
      continue;
    }
    rc = copy_sync(&g, h_out, d_out, out_bytes, cudaMemcpyDeviceToHost);
    if (rc)
      break;
    char why[512] = "";
    const char *check = ladder_check(&ref, alg, h_out, why, sizeof why);
    if (check[0] == 'W' && failures++ == 0)
      snprintf(first_why, sizeof first_why, "%s: %s", hr_alg_name((hr_primitive)p, alg), why);
    if (first_us == 0.0)
      first_us = us;
    char step[16] = "-", cumul[16];
    if (prev_us > 0.0)
      snprintf(step, sizeof step, "%.2fx", prev_us / us);
    snprintf(cumul, sizeof cumul, "%.2fx", first_us / us);
    const double gbps = moved / (us * 1e3);
    printf("%2s  %-21s %10.2f %8.0f %7.1f %6s %7s  %-6s %s\n", alg ? label : "-",
           hr_alg_name((hr_primitive)p, alg), us, gbps, 100.0 * gbps / copy_gbps, step, cumul,
           check, note(p, alg));
    prev_us = us;
  }
  if (!rc || rc == CLI_EXIT_UNSUPPORTED || rc == CLI_EXIT_USAGE)
    rc = failures ? CLI_EXIT_FAILED : CLI_EXIT_OK;
  printf("\nstep: speedup over the row above; cumul.: over the first row; check: against the "
         "tests' host references (%s)\n",
         !ref.have ? "none for this dtype and op: not checked"
         : p == CLI_PRIM_REDUCE && a->op == CUPRIM_SUM && hr_is_float(t)
             ? "float sum within harness/hostref_reduce.c's bound for each algorithm"
         : p == CLI_PRIM_SEGMENTED && a->op == CUPRIM_SUM && hr_is_float(t)
             ? "every segment's float sum within harness/hostref_segmented.h's bound for any order"
             : "exact");
  if (first_why[0])
    printf("first wrong result: %s\n", first_why);

done:
  if (g.stream)
    (void)cudaStreamSynchronize(g.stream);
  (void)cudaFree(d_in);
  (void)cudaFree(d_out);
  (void)cudaFree(d_off);
  cli_gpu_close(&g);
  free(h_in);
  free(ref.counts);
  hr_scan_ref_free(&ref.scan);
  hr_seg_reduce_ref_free(&ref.seg);
  free(sg.h_off);
  free(h_out);
  return rc;
}

/* ---------------------------------------------------------------- info */

/* The NCCL the program was built with (the version of the library loaded), or that it was built
 * without one. */
static void print_nccl(void) {
#ifdef CUPRIM_CLI_NCCL
  int v = 0;
  if (ncclGetVersion(&v) == ncclSuccess) /* NCCL_VERSION(X, Y, Z) = X * 10000 + Y * 100 + Z */
    printf("NCCL %d.%d.%d (the cuprim::nccl component: --devices splits reduce, scan and "
           "histogram over GPUs)\n",
           v / 10000, v / 100 % 100, v % 100);
  else
    printf("NCCL: linked, but ncclGetVersion failed\n");
#else
  printf("NCCL: none (this cuprim program was built without the cuprim::nccl component: "
         "--devices takes one device)\n");
#endif
}

/* One device's block of `cuprim info`; with runs > 0 also its measured copy bandwidth. */
static int print_device(cli_gpu *g, unsigned runs) {
  size_t free_b = 0, total_b = 0;
  int code_arch = 0, from_ptx = 0;
  int rc = cli_cuda(cudaMemGetInfo(&free_b, &total_b), g->command, "cudaMemGetInfo");
  if (!rc)
    rc = cli_cuprim(cuprim_ctx_code_arch(g->ctx, &code_arch, &from_ptx), g->command,
                    "cuprim_ctx_code_arch");
  if (rc)
    return rc;
  const double gib = 1024.0 * 1024.0 * 1024.0, mib = 1024.0 * 1024.0;
  printf("device %d: %s\n", g->device, g->prop.name);
  printf("  compute capability  %d.%d (sm_%d%d)\n", g->prop.major, g->prop.minor, g->prop.major,
         g->prop.minor);
  printf("  SMs                 %d\n", g->prop.multiProcessorCount);
  printf("  memory              %.1f GiB (%.1f GiB free)\n", (double)total_b / gib,
         (double)free_b / gib);
  printf("  L2 cache            %.1f MiB\n", (double)g->prop.l2CacheSize / mib);
  /* The library's code this device runs: its own machine code, or the PTX of an older
   * architecture that the driver compiles when the module is loaded (slower to start, and
   * without the newer architectures' features). */
  if (from_ptx)
    printf("  runs                compute_%d PTX, compiled by the driver\n", code_arch);
  else
    printf("  runs                sm_%d machine code\n", code_arch);
  if (runs == 0)
    return CLI_EXIT_OK;
  double gbps = 0.0;
  size_t copy_bytes = 0;
  rc = cli_gpu_copy_bandwidth(g, runs, &gbps, &copy_bytes);
  if (!rc)
    printf("  copy bandwidth      %.0f GB/s (cudaMemcpyAsync device to device, %.0f MB read + "
           "written, median of %u, cold L2)\n",
           gbps, 2.0 * (double)copy_bytes * 1e-6, runs);
  return rc;
}

int cmd_info(const cli_args *a) {
  const char *cmd = "info";
  /* What the build holds first: it needs no device. */
  printf("cuprim %s\n", cuprim_version_string());
  printf("built for CUDA architectures %s\n", cuprim_build_architectures());
  print_nccl();
  int rc = cli_require_device(cmd, a->device);
  if (rc)
    return rc;
  int driver = 0, runtime = 0, count = 0;
  rc = cli_cuda(cudaDriverGetVersion(&driver), cmd, "cudaDriverGetVersion");
  if (!rc)
    rc = cli_cuda(cudaRuntimeGetVersion(&runtime), cmd, "cudaRuntimeGetVersion");
  if (!rc)
    rc = cli_cuda(cudaGetDeviceCount(&count), cmd, "cudaGetDeviceCount");
  if (rc)
    return rc;
  /* CUDA encodes versions as 1000 * major + 10 * minor. */
  printf("CUDA driver %d.%d, runtime %d.%d; %d device(s)\n", driver / 1000, driver % 1000 / 10,
         runtime / 1000, runtime % 1000 / 10, count);
  /* Every device, the copy bandwidth of the one chosen (--device): a device that fails is
   * reported and the others still listed; the first failure is the exit status. */
  for (int d = 0; d < count; ++d) {
    cli_gpu g;
    int drc = cli_gpu_open(&g, cmd, d);
    if (!drc)
      drc = print_device(&g, d == a->device ? (unsigned)a->runs : 0);
    cli_gpu_close(&g);
    if (!rc)
      rc = drc;
  }
  return rc;
}
