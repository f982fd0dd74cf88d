/* tools/cmd_bench.c: `cuprim demo`, `cuprim ladder` and `cuprim info`: generated data, timed on
 * the device.
 *
 * Timing (cli_gpu_time): one warm-up call, then R samples of [flush L2, event, call, event]; the
 * median is reported. GB/s counts the bytes a primitive must move: reduce and histogram read n
 * elements, scan reads and writes n; the device-to-device copy reads and writes its buffer.
 * Every result is checked against a host reference; data is chosen so that the check can be
 * exact wherever the primitive's result is (integers, float MIN/MAX, and float sums and products
 * whose every partial result is exact), and within a stated tolerance otherwise. */
#include "cli_commands.h"

#include "cli_gpu.h"
#include "cli_ops.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- data */

/* splitmix64 of (seed, i): element i depends on nothing else. */
static uint64_t mix64(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 24 random bits: k * 2^-24, exact in f32; sums of up to 2^29 of them are
 * exact in double, so the double reference of a float sum has no error of its own. */
static double unit24(uint64_t r) { return (double)(r >> 40) * 0x1p-24; }

/* A prefix P(i), an integer below 2^16 (bench/bench_scan.cu's exact data). The element is
 * P(i) - P(i-1): every run of consecutive elements sums to a difference of two P, below 2^16 in
 * magnitude, and a scan combines at most a few dozen runs at once (warp trees, look-back
 * windows), so every partial result stays an integer below 2^24: exact in f32 in any order. */
static double prefix16(uint64_t seed, uint64_t i) { return (double)(mix64(seed, i) >> 48); }

static void store(cuprim_dtype t, void *h, uint64_t i, double f, uint64_t bits) {
  const size_t size = cuprim_dtype_size(t);
  if (t == CUPRIM_F32) {
    const float v = (float)f;
    memcpy((char *)h + i * size, &v, size);
  } else if (t == CUPRIM_F64) {
    memcpy((char *)h + i * size, &f, size);
  } else {
    memcpy((char *)h + i * size, &bits, size); /* little-endian host: the low bytes */
  }
}

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
  const int is_float = t == CUPRIM_F32 || t == CUPRIM_F64;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t r = mix64(seed, i);
    if (p == CLI_PRIM_HISTOGRAM) {
      if (is_float)
        store(t, h, i, unit24(r), 0);
      else if (cuprim_dtype_size(t) <= 2)
        store(t, h, i, 0.0, r); /* every bit pattern: the whole range */
      else
        store(t, h, i, 0.0, r >> 44); /* [0, 2^20) */
    } else if (is_float) {
      if (op == CUPRIM_PROD)
        store(t, h, i, (r & 1) ? 1.0 : -1.0, 0); /* every product is +-1: exact */
      else if (p == CLI_PRIM_SCAN && op == CUPRIM_SUM)
        store(t, h, i, prefix16(seed, i) - (i ? prefix16(seed, i - 1) : 0.0), 0);
      else
        store(t, h, i, unit24(r), 0);
    } else {
      store(t, h, i, 0.0, op == CUPRIM_PROD ? r | 1 : r); /* odd factors: products stay nonzero */
    }
  }
}

/* "2^26" for a power of two, else the number. */
static void format_n(uint64_t n, char *buf, size_t len) {
  if (n && (n & (n - 1)) == 0) {
    int k = 0;
    while ((n >> k) != 1)
      ++k;
    snprintf(buf, len, "2^%d", k);
  } else {
    snprintf(buf, len, "%llu", (unsigned long long)n);
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
} call;

static int run_call(void *user, cudaStream_t stream) {
  const call *c = (const call *)user;
  switch (c->primitive) {
  case CLI_PRIM_REDUCE:
    return cli_cuprim(cuprim_reduce_ex(c->ctx, (cuprim_reduce_alg)c->alg, c->d_in, c->d_out, c->n,
                                       c->dtype, c->op, stream),
                      c->cmd, "cuprim_reduce_ex");
  case CLI_PRIM_SCAN:
    return cli_cuprim(cuprim_scan_ex(c->ctx, (cuprim_scan_alg)c->alg, c->d_in, c->d_out, c->n,
                                     c->dtype, c->op, c->kind, stream),
                      c->cmd, "cuprim_scan_ex");
  case CLI_PRIM_HISTOGRAM:
    return cli_cuprim(cuprim_histogram_even_ex(c->ctx, (cuprim_histogram_alg)c->alg, c->d_in, c->n,
                                               c->dtype, (uint64_t *)c->d_out, c->bins, c->lo,
                                               c->hi, stream),
                      c->cmd, "cuprim_histogram_even_ex");
  }
  return CLI_EXIT_FAILED;
}

/* The demo's calls are the plain entry points (the AUTO algorithms). */
static int run_demo_call(void *user, cudaStream_t stream) {
  const call *c = (const call *)user;
  switch (c->primitive) {
  case CLI_PRIM_REDUCE:
    return cli_cuprim(cuprim_reduce(c->ctx, c->d_in, c->d_out, c->n, c->dtype, c->op, stream),
                      c->cmd, "cuprim_reduce");
  case CLI_PRIM_SCAN:
    return cli_cuprim(
        cuprim_scan(c->ctx, c->d_in, c->d_out, c->n, c->dtype, c->op, c->kind, stream), c->cmd,
        "cuprim_scan");
  case CLI_PRIM_HISTOGRAM:
    return cli_cuprim(cuprim_histogram_even(c->ctx, c->d_in, c->n, c->dtype, (uint64_t *)c->d_out,
                                            c->bins, c->lo, c->hi, stream),
                      c->cmd, "cuprim_histogram_even");
  }
  return CLI_EXIT_FAILED;
}

static int download(cli_gpu *g, void *h, const void *d, size_t bytes) {
  int rc = cli_cuda(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, g->stream), g->command,
                    "cudaMemcpyAsync");
  if (!rc)
    rc = cli_cuda(cudaStreamSynchronize(g->stream), g->command, "cudaStreamSynchronize");
  return rc;
}

static int upload(cli_gpu *g, void *d, const void *h, size_t bytes) {
  int rc = cli_cuda(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, g->stream), g->command,
                    "cudaMemcpyAsync");
  if (!rc)
    rc = cli_cuda(cudaStreamSynchronize(g->stream), g->command, "cudaStreamSynchronize");
  return rc;
}

/* The first index where two arrays of n elements of t differ (NaN equals NaN), or n. */
static uint64_t first_difference(cuprim_dtype t, const void *a, const void *b, uint64_t n) {
  const size_t size = cuprim_dtype_size(t);
  if (memcmp(a, b, (size_t)n * size) == 0)
    return n;
  for (uint64_t i = 0; i < n; ++i)
    if (!cli_same_value(t, (const char *)a + i * size, (const char *)b + i * size))
      return i;
  return n;
}

/* ---------------------------------------------------------------- demo */

enum { DEMO_BINS = 256 }; /* the classic histogram size */

int cmd_demo(const cli_args *a) {
  const char *cmd = "demo";
  const uint64_t n = a->n;
  /* Four arrays of n floats on the host (data twice, scan output, reference) and on the device. */
  if (n > SIZE_MAX / (4 * sizeof(float))) {
    fprintf(stderr, "cuprim demo: --n %llu is too large for this host\n", (unsigned long long)n);
    return CLI_EXIT_USAGE;
  }
  int rc = cli_require_device(cmd, a->device);
  if (rc)
    return rc;
  const size_t bytes = (size_t)n * sizeof(float);
  float *h_x = NULL, *h_s = NULL, *h_out = NULL, *h_ref = NULL;
  uint64_t h_counts[DEMO_BINS], ref_counts[DEMO_BINS];
  rc = host_alloc(cmd, (void **)&h_x, bytes);
  if (!rc)
    rc = host_alloc(cmd, (void **)&h_s, bytes);
  if (!rc)
    rc = host_alloc(cmd, (void **)&h_out, bytes);
  if (!rc)
    rc = host_alloc(cmd, (void **)&h_ref, bytes);
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

  double reference = 0.0;
  if (!rc) {
    for (uint64_t i = 0; i < n; ++i) {
      h_x[i] = (float)unit24(mix64(a->seed, i));
      reference += h_x[i];
      h_s[i] = (float)(prefix16(a->seed, i) - (i ? prefix16(a->seed, i - 1) : 0.0));
    }
    rc = upload(&g, d_x, h_x, bytes);
  }
  if (!rc)
    rc = upload(&g, d_s, h_s, bytes);

  call c_reduce = {cmd, CLI_PRIM_REDUCE, 0, g.ctx, CUPRIM_F32, CUPRIM_SUM, CUPRIM_INCLUSIVE,
                   d_x, d_sum,           n, 0,     0.0,        0.0};
  call c_scan = {cmd, CLI_PRIM_SCAN, 0, g.ctx, CUPRIM_F32, CUPRIM_SUM, CUPRIM_INCLUSIVE,
                 d_s, d_out,         n, 0,     0.0,        0.0};
  call c_hist = {cmd, CLI_PRIM_HISTOGRAM, 0, g.ctx,     CUPRIM_F32, CUPRIM_SUM, CUPRIM_INCLUSIVE,
                 d_x, d_counts,           n, DEMO_BINS, 0.0,        1.0};
  double us_reduce = 0, us_scan = 0, us_hist = 0, us_copy = 0;
  const unsigned runs = (unsigned)a->runs;
  if (!rc)
    rc = cli_gpu_time(&g, run_demo_call, &c_reduce, runs, &us_reduce);
  if (!rc)
    rc = cli_gpu_time(&g, run_demo_call, &c_hist, runs, &us_hist);
  if (!rc)
    rc = cli_gpu_time_copy(&g, d_out, d_s, bytes, runs, &us_copy);
  if (!rc) /* last: its output is checked */
    rc = cli_gpu_time(&g, run_demo_call, &c_scan, runs, &us_scan);

  float sum = 0.0f;
  if (!rc)
    rc = download(&g, &sum, d_sum, sizeof sum);
  if (!rc)
    rc = download(&g, h_out, d_out, bytes);
  if (!rc)
    rc = download(&g, h_counts, d_counts, sizeof h_counts);
  if (rc)
    goto done;

  /* reduce.h: float sums are accurate to about log2(n) * eps * sum|x|; all inputs are >= 0, so
   * sum|x| is the reference itself. Twice that bound, and at least 2 eps. */
  const double abs_error = fabs((double)sum - reference);
  const double rel_error = reference != 0.0 ? abs_error / reference : abs_error;
  const double tolerance = 2.0 * fmax(1.0, ceil(log2((double)n))) * FLT_EPSILON;
  const int ok_reduce = rel_error <= tolerance;

  cli_scan_host(CUPRIM_F32, CUPRIM_SUM, CUPRIM_INCLUSIVE, h_s, h_ref, n);
  const uint64_t bad = first_difference(CUPRIM_F32, h_out, h_ref, n);
  const int ok_scan = bad == n;

  memset(ref_counts, 0, sizeof ref_counts);
  cli_histogram_host(CUPRIM_F32, h_x, n, DEMO_BINS, 0.0, 1.0, NULL, ref_counts);
  uint64_t max_bin = 0, min_bin = UINT64_MAX;
  int ok_hist = 1;
  for (int b = 0; b < DEMO_BINS; ++b) {
    ok_hist &= h_counts[b] == ref_counts[b];
    max_bin = h_counts[b] > max_bin ? h_counts[b] : max_bin;
    min_bin = h_counts[b] < min_bin ? h_counts[b] : min_bin;
  }

  char ns[32], text[96], check[160];
  format_n(n, ns, sizeof ns);
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
  if (ok_scan)
    snprintf(check, sizeof check, "ok: all %llu elements exact", (unsigned long long)n);
  else
    snprintf(check, sizeof check, "WRONG: element %llu is %.9g, expected %.9g",
             (unsigned long long)bad, (double)h_out[bad], (double)h_ref[bad]);
  printf("%-30s %-28s %10.2f %9.1f  %s\n", "scan inclusive sum, integers", text, us_scan,
         2.0 * (double)bytes / (us_scan * 1e3), check);
  snprintf(text, sizeof text, "bins hold %llu .. %llu", (unsigned long long)min_bin,
           (unsigned long long)max_bin);
  snprintf(check, sizeof check, "%s: %d bins exact", ok_hist ? "ok" : "WRONG", DEMO_BINS);
  if (!ok_hist)
    snprintf(check, sizeof check, "WRONG: counts differ from the host's");
  printf("%-30s %-28s %10.2f %9.1f  %s\n", "histogram 256 bins over [0,1)", text, us_hist,
         (double)bytes / (us_hist * 1e3), check);
  printf("%-30s %-28s %10.2f %9.1f  %s\n", "(device copy, for reference)", "cudaMemcpyAsync D2D",
         us_copy, 2.0 * (double)bytes / (us_copy * 1e3), "-");
  rc = ok_reduce && ok_scan && ok_hist ? CLI_EXIT_OK : CLI_EXIT_FAILED;

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
  free(h_ref);
  return rc;
}

/* ---------------------------------------------------------------- ladder */

/* What each step changes, from the algorithms' comments in src/ (reduce_ladder.cu,
 * reduce_auto.cu, scan_ladder.cu, scan_lookback.cu, histogram_count.cu, histogram_sort.cu). */
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

static const char *note(cli_primitive p, int alg) {
  switch (p) {
  case CLI_PRIM_REDUCE:
    return reduce_notes[alg];
  case CLI_PRIM_SCAN:
    return scan_notes[alg];
  case CLI_PRIM_HISTOGRAM:
    return histogram_notes[alg];
  }
  return "";
}

/* Float SUM in the reduce ladder: a ladder kernel may chain up to n/512 block results one after
 * another (atomics), so rounding grows like sqrt(n/512) * eps; 2^10 eps (1.2e-4 for f32, as
 * bench/bench_reduce.cu allows) bounds it with room to spare for [0,1) data up to 2^30. */
#define LADDER_SUM_TOLERANCE_EPS 1024.0

int cmd_ladder(const cli_args *a) {
  static const char *const primitive_names[] = {"reduce", "scan", "histogram"};
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
  const uint64_t n = a->n;
  if (n > SIZE_MAX / (3 * esize)) {
    fprintf(stderr, "cuprim ladder: --n %llu is too large for this host\n", (unsigned long long)n);
    return CLI_EXIT_USAGE;
  }
  rc = cli_require_device(cmd, a->device);
  if (rc)
    return rc;

  const size_t bytes = (size_t)n * esize;
  const uint32_t bins = a->bins;
  double lo = 0.0, hi = 0.0;
  histogram_range(t, &lo, &hi);
  /* Host: the data, the reference, the result (scan: n elements; reduce: one; histogram: bins). */
  const size_t out_bytes = p == CLI_PRIM_SCAN        ? bytes
                           : p == CLI_PRIM_HISTOGRAM ? (size_t)bins * sizeof(uint64_t)
                                                     : esize;
  void *h_in = NULL, *h_ref = NULL, *h_out = NULL;
  rc = host_alloc(cmd, &h_in, bytes);
  if (!rc)
    rc = host_alloc(cmd, &h_ref, out_bytes);
  if (!rc)
    rc = host_alloc(cmd, &h_out, out_bytes);
  cli_gpu g;
  memset(&g, 0, sizeof g);
  if (!rc)
    rc = cli_gpu_open(&g, cmd, a->device);
  double copy_gbps = 0.0;
  size_t copy_bytes = 0;
  if (!rc)
    rc = cli_gpu_copy_bandwidth(&g, (unsigned)a->runs, &copy_gbps, &copy_bytes);
  void *d_in = NULL, *d_out = NULL;
  if (!rc)
    rc = cli_cuda(cudaMalloc(&d_in, bytes ? bytes : 1), cmd, "cudaMalloc");
  if (!rc)
    rc = cli_cuda(cudaMalloc(&d_out, out_bytes), cmd, "cudaMalloc");
  if (rc)
    goto done;

  fill(p, t, a->op, h_in, n, a->seed);
  rc = upload(&g, d_in, h_in, bytes);
  if (rc)
    goto done;
  double ref_sum = 0.0; /* reduce float SUM: the double reference */
  if (p == CLI_PRIM_REDUCE) {
    cli_reduce_host(t, a->op, h_in, n, h_ref);
    for (uint64_t i = 0; i < n && a->op == CUPRIM_SUM; ++i)
      ref_sum += cli_to_double(t, h_in, i);
  } else if (p == CLI_PRIM_SCAN) {
    cli_scan_host(t, a->op, a->kind, h_in, h_ref, n);
  } else {
    memset(h_ref, 0, out_bytes);
    cli_histogram_host(t, h_in, n, bins, lo, hi, NULL, (uint64_t *)h_ref);
  }

  char ns[32];
  format_n(n, ns, sizeof ns);
  const double moved = (p == CLI_PRIM_SCAN ? 2.0 : 1.0) * (double)bytes;
  if (p == CLI_PRIM_HISTOGRAM)
    printf("cuprim ladder histogram: %u bins over [%g, %g), %s, n = %s (%.1f MB read)\n", bins, lo,
           hi, cli_dtype_name(t), ns, moved * 1e-6);
  else
    printf("cuprim ladder %s: %s%s %s, n = %s (%.1f MB %s)\n", primitive_names[p],
           p == CLI_PRIM_SCAN ? (a->kind == CUPRIM_EXCLUSIVE ? "exclusive " : "inclusive ") : "",
           cli_op_name(a->op), cli_dtype_name(t), ns, moved * 1e-6,
           p == CLI_PRIM_SCAN ? "read + written" : "read");
  printf("%s (sm_%d%d, %d SMs); median of %llu runs after a warm-up, CUDA events, L2 flushed "
         "before each run;\ndevice copy bandwidth %.0f GB/s (cudaMemcpyAsync D2D of %.0f MB, bytes "
         "read + written, timed the same way)\n\n",
         g.prop.name, g.prop.major, g.prop.minor, g.prop.multiProcessorCount,
         (unsigned long long)a->runs, copy_gbps, (double)copy_bytes * 1e-6);
  printf("%2s  %-21s %10s %8s %7s %6s %7s  %-6s %s\n", "#", "algorithm", "time (us)", "GB/s",
         "% copy", "step", "cumul.", "check", "what the step changes");

  const int count = cli_alg_count(p);
  double first_us = 0.0, prev_us = 0.0;
  int failures = 0;
  /* The ladder in enum order (1, 2, ...), then the tuned default (0). */
  for (int k = 1; k <= count; ++k) {
    const int alg = k % count;
    call c = {cmd, p, alg, g.ctx, t, a->op, a->kind, d_in, d_out, n, bins, lo, hi};
    double us = 0.0;
    rc = cli_gpu_time(&g, run_call, &c, (unsigned)a->runs, &us);
    char label[16];
    snprintf(label, sizeof label, "%d", alg);
    if (rc) {
      ++failures;
      printf("%2s  %-21s %10s %8s %7s %6s %7s  %-6s %s\n", alg ? label : "-", cli_alg_name(p, alg),
             "-", "-", "-", "-", "-", "FAILED", note(p, alg));
      if (rc == CLI_EXIT_FAILED) /* a CUDA error: the context may be unusable */
        break;
      continue;
    }
    rc = download(&g, h_out, d_out, out_bytes);
    if (rc)
      break;
    int ok = 1;
    if (p == CLI_PRIM_REDUCE && a->op == CUPRIM_SUM && (t == CUPRIM_F32 || t == CUPRIM_F64)) {
      const double eps = t == CUPRIM_F32 ? FLT_EPSILON : DBL_EPSILON;
      const double got = cli_to_double(t, h_out, 0);
      ok = fabs(got - ref_sum) <= LADDER_SUM_TOLERANCE_EPS * eps * fabs(ref_sum);
    } else if (p == CLI_PRIM_HISTOGRAM) {
      ok = memcmp(h_out, h_ref, out_bytes) == 0;
    } else {
      ok = first_difference(t, h_out, h_ref, out_bytes / esize) == out_bytes / esize;
    }
    failures += !ok;
    if (first_us == 0.0)
      first_us = us;
    char step[16] = "-", cumul[16];
    if (prev_us > 0.0)
      snprintf(step, sizeof step, "%.2fx", prev_us / us);
    snprintf(cumul, sizeof cumul, "%.2fx", first_us / us);
    const double gbps = moved / (us * 1e3);
    printf("%2s  %-21s %10.2f %8.0f %7.1f %6s %7s  %-6s %s\n", alg ? label : "-",
           cli_alg_name(p, alg), us, gbps, 100.0 * gbps / copy_gbps, step, cumul,
           ok ? "ok" : "WRONG", note(p, alg));
    prev_us = us;
  }
  if (!rc || rc == CLI_EXIT_UNSUPPORTED || rc == CLI_EXIT_USAGE)
    rc = failures ? CLI_EXIT_FAILED : CLI_EXIT_OK;
  printf("\nstep: speedup over the row above; cumul.: over the first row; check: against the "
         "host (%s)\n",
         p == CLI_PRIM_REDUCE && a->op == CUPRIM_SUM && (t == CUPRIM_F32 || t == CUPRIM_F64)
             ? "float sum within 2^10 eps relative"
             : "exact");

done:
  if (g.stream)
    (void)cudaStreamSynchronize(g.stream);
  (void)cudaFree(d_in);
  (void)cudaFree(d_out);
  cli_gpu_close(&g);
  free(h_in);
  free(h_ref);
  free(h_out);
  return rc;
}

/* ---------------------------------------------------------------- info */

int cmd_info(const cli_args *a) {
  const char *cmd = "info";
  printf("cuprim %s\n", cuprim_version_string());
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
  cli_gpu g;
  rc = cli_gpu_open(&g, cmd, a->device);
  if (rc)
    return rc;
  size_t free_b = 0, total_b = 0;
  rc = cli_cuda(cudaMemGetInfo(&free_b, &total_b), cmd, "cudaMemGetInfo");
  double gbps = 0.0;
  size_t copy_bytes = 0;
  if (!rc)
    rc = cli_gpu_copy_bandwidth(&g, (unsigned)a->runs, &gbps, &copy_bytes);
  if (!rc) {
    const double gib = 1024.0 * 1024.0 * 1024.0, mib = 1024.0 * 1024.0;
    printf("device %d: %s\n", a->device, g.prop.name);
    printf("  compute capability  %d.%d (sm_%d%d)\n", g.prop.major, g.prop.minor, g.prop.major,
           g.prop.minor);
    printf("  SMs                 %d\n", g.prop.multiProcessorCount);
    printf("  memory              %.1f GiB (%.1f GiB free)\n", (double)total_b / gib,
           (double)free_b / gib);
    printf("  L2 cache            %.1f MiB\n", (double)g.prop.l2CacheSize / mib);
    printf("  copy bandwidth      %.0f GB/s (cudaMemcpyAsync device to device, %.0f MB read + "
           "written, median of %llu, cold L2)\n",
           gbps, 2.0 * (double)copy_bytes * 1e-6, (unsigned long long)a->runs);
  }
  cli_gpu_close(&g);
  return rc;
}
