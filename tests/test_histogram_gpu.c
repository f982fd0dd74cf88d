/* cuprim_histogram_even, cuprim_histogram_even_ex and cuprim_histogram_range on a GPU, against
 * the plain C reference on the host (test_histogram_ref.h: histogram.h's formula to the letter,
 * so counts are compared exactly, bin for bin).
 *
 * Every algorithm (AUTO, GLOBAL_ATOMIC, BLOCK_PRIVATE, SORT_REDUCE_BY_KEY, and the shorthand
 * cuprim_histogram_even) x every sample dtype x bin counts {1, 2, 255, 256, 257, 4096, 65536,
 * 2^20} x sizes x data (uniform, one bin only, out of range, NaN and infinities, exactly on bin
 * edges) over three kinds of range (the dtype's full range, an irregular one with an inexact
 * scale, one with exact power-of-two edges); n == 0 (zeros written over garbage); misaligned
 * samples and counts; the legacy, per-thread and non-blocking streams and two streams at once;
 * CUDA graph capture and replay; cuprim_histogram_range with random edges (narrow and wide bins)
 * and with the even bins as edges, with edge arrays that fit in shared memory and ones that do not;
 * every sample in one bin at 2^24 + 3 samples; argument errors with a real context; and one input
 * of 2^32 + 4099 U8 samples (filled on the device by a formula; the host counts one period of it).
 *
 * Pruning of the cross product (full mode), so that it runs in a couple of minutes on an H100
 * (about 100 s measured: the range test 45 s, each dtype's sweep 2 to 7 s, the one-bin test 6 s,
 * the input past 2^32 4 s; quick mode 5 s, about 5 minutes under racecheck):
 *   - bin counts up to 4096 take every size (0 ... 2^22 + 1, primes, seeded random sizes);
 *     65536 and 2^20 bins take seven sizes (0, 1, 33, 1025, 65537, 1000003, 2^22 + 1) and one
 *     random size;
 *   - sizes above 2^20 + 1 take uniform data only (the other kinds are about values, not sizes);
 *   - each (data kind, size) uses one of the three range kinds, rotating with the size, rather
 *     than all three;
 *   - every call of a case shares one host fill, one upload and one reference.
 * Quick mode (CUPRIM_TEST_QUICK=1, for compute-sanitizer): bins {1, 257, 4096, 65536} with sizes
 * up to ~2^17 and 2^20 bins with two sizes; uniform data plus one other kind per size (rotating);
 * fewer range bin counts and misaligned sizes; the one-bin test at 2^17 + 3; no input past 2^32.
 *
 * Each output lies in a slot of device memory with 256 guard bytes on either side: the slot is
 * poisoned (0xA5) before each call, so the counts start as garbage and must be overwritten, and
 * the guards must come back untouched. One call's failure does not stop the test: failures are
 * counted and printed with the call, dtype, n, bins, range, data kind and seed, and the first
 * wrong bins with expected and got counts and the totals; the test fails at its end.
 *
 * Environment: CUPRIM_TEST_SEED (the base seed, printed at start), CUPRIM_TEST_QUICK=1. Without a
 * CUDA device every test prints why and skips; the program then exits with 77 (CTest: skipped). */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostref_histogram.h"
#include "test_device_fill.h"
#include "test_fixture_gpu.h"

/* ---------------------------------------------------------------- buffers */

#define NUM_ALGS 4             /* CUPRIM_HISTOGRAM_AUTO .. CUPRIM_HISTOGRAM_SORT_REDUCE_BY_KEY */
#define MAX_CALLS 32           /* calls per batch */
#define MAX_BINS (1u << 20)    /* the most bins any test uses */
#define BIG_N ((1u << 24) + 3) /* the one-bin test's size */
#define SWEEP_DATA_MAX ((1u << 20) + 1) /* sizes above this: uniform data only */
/* Input capacity: BIG_N eight-byte samples plus room for offsets. */
#define IN_CAP_BYTES (((size_t)BIG_N + 64) * 8)
#define IN2_CAP_BYTES ((size_t)40 << 20)
/* Output regions: the slots of calls enqueued together (five calls of 2^20 bins at least). */
#define OUT_CAP_BYTES ((size_t)48 << 20)
#define OUT2_CAP_BYTES ((size_t)16 << 20)
/* Host references: WANT_SLOTS arrays of MAX_BINS counts. */
#define WANT_SLOTS 4

static struct {
  double *d_edges, *h_edges; /* MAX_BINS + 1 doubles (h_edges pinned) */
  uint64_t *want;            /* WANT_SLOTS * MAX_BINS: references */
} g;

static void setup(void) {
  g.want = (uint64_t *)malloc((size_t)WANT_SLOTS * MAX_BINS * sizeof *g.want);
  if (!g.want) {
    tf_cuda_failed(cudaErrorMemoryAllocation, "malloc of the host references", __FILE__, __LINE__,
                   &tf.setup);
    return;
  }
  TF_SETUP_CUDA(cudaMalloc((void **)&g.d_edges, ((size_t)MAX_BINS + 1) * sizeof(double)));
  TF_SETUP_CUDA(cudaMallocHost((void **)&g.h_edges, ((size_t)MAX_BINS + 1) * sizeof(double)));
}

static void teardown(void) {
  if (g.d_edges)
    (void)cudaFree(g.d_edges);
  if (g.h_edges)
    (void)cudaFreeHost(g.h_edges);
  free(g.want);
}

static const tf_config config = {.in_bytes = IN_CAP_BYTES,
                                 .in2_bytes = IN2_CAP_BYTES,
                                 .h_in2_bytes = IN2_CAP_BYTES,
                                 .out_bytes = OUT_CAP_BYTES,
                                 .out2_bytes = OUT2_CAP_BYTES,
                                 .setup = setup,
                                 .teardown = teardown};

static uint64_t *want_slot(int i) { return g.want + (size_t)i * MAX_BINS; }

static void upload_edges(const double *h_edges, uint32_t num_bins, cudaStream_t stream) {
  if (h_edges != g.h_edges)
    memcpy(g.h_edges, h_edges, ((size_t)num_bins + 1) * sizeof(double));
  TF_CUDA(cudaMemcpyAsync(g.d_edges, g.h_edges, ((size_t)num_bins + 1) * sizeof(double),
                          cudaMemcpyHostToDevice, stream));
}

static int is_float(cuprim_dtype t) { return hr_is_float(t); }

/* ---------------------------------------------------------------- calls */

#define SHORTHAND (-1) /* call.alg: cuprim_histogram_even, or cuprim_histogram_range by edges */

typedef struct hist_call {
  int alg;      /* a cuprim_histogram_alg (the _ex calls) or SHORTHAND */
  int by_edges; /* 1: cuprim_histogram_range(_ex) with d_edges; 0: even bins */
  const unsigned char *d_samples;
  unsigned in_offset;  /* elements d_samples lies past an aligned address (for messages) */
  unsigned out_offset; /* counts d_counts lies past its slot's aligned start */
  int garbage;         /* the byte d_counts is filled with before the call (-1: TF_POISON) */
  uint64_t n;
  cuprim_dtype dtype;
  uint32_t num_bins;
  double lower, upper;   /* even */
  const double *d_edges; /* by edges */
  const uint64_t *want;  /* the expected counts (host, num_bins) */
} hist_call;

/* What every call has in common: its output poisoned before it runs, no pointer offsets. */
static hist_call base_call(int alg, int by_edges, const void *d_samples, uint64_t n, cuprim_dtype t,
                           uint32_t num_bins, const uint64_t *want) {
  return (hist_call){.alg = alg,
                     .by_edges = by_edges,
                     .d_samples = (const unsigned char *)d_samples,
                     .garbage = -1,
                     .n = n,
                     .dtype = t,
                     .num_bins = num_bins,
                     .want = want};
}

static hist_call even_call(int alg, const void *d_samples, uint64_t n, cuprim_dtype t,
                           const hr_hist_bins *b, const uint64_t *want) {
  hist_call c = base_call(alg, 0, d_samples, n, t, b->num_bins, want);
  c.lower = b->lower;
  c.upper = b->upper;
  return c;
}

static hist_call range_call(int alg, const void *d_samples, uint64_t n, cuprim_dtype t,
                            uint32_t num_bins, const double *d_edges, const uint64_t *want) {
  hist_call c = base_call(alg, 1, d_samples, n, t, num_bins, want);
  c.d_edges = d_edges;
  return c;
}

static const char *call_name(const hist_call *c) {
  static const char *const names[] = {"AUTO", "GLOBAL_ATOMIC", "BLOCK_PRIVATE",
                                      "SORT_REDUCE_BY_KEY"};
  static char buf[64];
  if (c->alg == SHORTHAND)
    return c->by_edges ? "cuprim_histogram_range" : "cuprim_histogram_even";
  if (c->alg >= 0 && c->alg < NUM_ALGS)
    snprintf(buf, sizeof buf, "%s%s", c->by_edges ? "range_ex " : "", names[c->alg]);
  else
    snprintf(buf, sizeof buf, "alg(%d)", c->alg);
  return buf;
}

static void describe(char *buf, size_t len, const void *p, const char *data, uint64_t seed) {
  const hist_call *c = (const hist_call *)p;
  char offs[64] = "", range[96];
  if (c->in_offset || c->out_offset)
    snprintf(offs, sizeof offs, " (d_samples+%u d_counts+%u elements)", c->in_offset,
             c->out_offset);
  if (c->by_edges)
    snprintf(range, sizeof range, "edges");
  else
    snprintf(range, sizeof range, "[%.17g, %.17g)", c->lower, c->upper);
  snprintf(buf, len, "%s %s n=%" PRIu64 " bins=%" PRIu32 " %s%s data=%s seed=0x%016" PRIx64,
           call_name(c), hr_dtype_name(c->dtype), c->n, c->num_bins, range, offs, data, seed);
}

static void call_output(const void *p, size_t *bytes, size_t *misalign) {
  const hist_call *c = (const hist_call *)p;
  *bytes = (size_t)c->num_bins * sizeof(uint64_t);
  *misalign = (size_t)c->out_offset * sizeof(uint64_t);
}

/* The call itself, counts into d_counts. */
static cuprim_status call_histogram(cuprim_ctx *ctx, const hist_call *c, uint64_t *d_counts,
                                    cudaStream_t stream) {
  if (c->by_edges && c->alg == SHORTHAND)
    return cuprim_histogram_range(ctx, c->d_samples, c->n, c->dtype, d_counts, c->num_bins,
                                  c->d_edges, stream);
  if (c->by_edges)
    return cuprim_histogram_range_ex(ctx, (cuprim_histogram_alg)c->alg, c->d_samples, c->n,
                                     c->dtype, d_counts, c->num_bins, c->d_edges, stream);
  if (c->alg == SHORTHAND)
    return cuprim_histogram_even(ctx, c->d_samples, c->n, c->dtype, d_counts, c->num_bins, c->lower,
                                 c->upper, stream);
  return cuprim_histogram_even_ex(ctx, (cuprim_histogram_alg)c->alg, c->d_samples, c->n, c->dtype,
                                  d_counts, c->num_bins, c->lower, c->upper, stream);
}

/* The counts start as garbage: the poison, or the call's own garbage byte. */
static cuprim_status issue(cuprim_ctx *ctx, const void *p, void *d_out, cudaStream_t stream) {
  const hist_call *c = (const hist_call *)p;
  tf_fill_garbage(d_out, c->garbage, (size_t)c->num_bins * sizeof(uint64_t), stream);
  return call_histogram(ctx, c, (uint64_t *)d_out, stream);
}

/* Every bin. */
static int check(const tf_region *rg, const void *p, tf_result *r, const tf_case *cs,
                 const char *what) {
  const hist_call *c = (const hist_call *)p;
  char why[1024];
  (void)cs;
  uint64_t first = 0;
  const uint64_t wrong =
      hr_hist_check(c->want, (const uint64_t *)(const void *)tf_slot_host(rg, &r->slot),
                    c->num_bins, c->n, tf_garbage_byte(c->garbage), &first, why, sizeof why);
  if (wrong) {
    tf_failure("%s: %s", what, why);
    return 0;
  }
  return 1;
}

static const tf_call_ops ops = {sizeof(hist_call), "d_counts", call_output, issue,
                                describe,          check,      NULL};

/* Runs calls[0..count) on `stream` (as many per batch as the region holds) and checks each against
 * its reference. Returns the number of calls that passed. */
static int run_and_check(const hist_call *calls, int count, cudaStream_t stream, const char *data,
                         uint64_t seed, tf_result *res) {
  const tf_case cs = {data, seed, 0};
  return tf_run_and_check(&ops, tf.ctx, calls, count, stream, &cs, res);
}

/* The even calls of one case: cuprim_histogram_even and cuprim_histogram_even_ex with every
 * algorithm. Returns the number of calls written. */
static int all_even_calls(hist_call *calls, const void *d_samples, uint64_t n, cuprim_dtype t,
                          const hr_hist_bins *b, const uint64_t *want) {
  int count = 0;
  for (int a = SHORTHAND; a < NUM_ALGS; ++a)
    calls[count++] = even_call(a, d_samples, n, t, b, want);
  return count;
}

/* The calls by edges of one case: cuprim_histogram_range and cuprim_histogram_range_ex with every
 * algorithm. Returns the number of calls written. */
static int all_range_calls(hist_call *calls, const void *d_samples, uint64_t n, cuprim_dtype t,
                           uint32_t num_bins, const double *d_edges, const uint64_t *want) {
  int count = 0;
  for (int a = SHORTHAND; a < NUM_ALGS; ++a)
    calls[count++] = range_call(a, d_samples, n, t, num_bins, d_edges, want);
  return count;
}

static uint64_t reference(const hr_hist_bins *b, cuprim_dtype t, const void *h, uint64_t n,
                          uint64_t *want) {
  return hr_hist_reference(b, t, h, n, want);
}

/* ---------------------------------------------------------------- errors with a device */

/* With a real context, invalid calls still return before any CUDA work: nothing is written, no
 * CUDA error is recorded. */
TF_TEST(test_errors_with_device) {
  const size_t edge_bytes = 4096;
  TF_CUDA(cudaMemsetAsync(g.d_edges, TF_POISON, edge_bytes, tf.stream));
  uint64_t *out = (uint64_t *)(void *)tf_poison_inputs(4096, 8192);
  const unsigned char *in = tf.d_in;
  const double *e = g.d_edges;
  const cuprim_histogram_alg A = CUPRIM_HISTOGRAM_AUTO;
  const cudaStream_t s = tf.stream;
  const cuprim_status INVALID = CUPRIM_ERROR_INVALID_ARGUMENT;
  const tf_status_case cases[] = {
      {"NULL ctx", cuprim_histogram_even(NULL, in, 10, CUPRIM_F32, out, 16, 0.0, 1.0, s), INVALID},
      {"NULL d_counts", cuprim_histogram_even(tf.ctx, in, 10, CUPRIM_F32, NULL, 16, 0.0, 1.0, s),
       INVALID},
      {"NULL d_counts, n 0",
       cuprim_histogram_even(tf.ctx, NULL, 0, CUPRIM_F32, NULL, 16, 0.0, 1.0, s), INVALID},
      {"NULL d_samples, n 10",
       cuprim_histogram_even_ex(tf.ctx, CUPRIM_HISTOGRAM_BLOCK_PRIVATE, NULL, 10, CUPRIM_F32, out,
                                16, 0.0, 1.0, s),
       INVALID},
      {"num_bins 0", cuprim_histogram_even(tf.ctx, in, 10, CUPRIM_U8, out, 0, 0.0, 1.0, s),
       INVALID},
      {"lower NaN", cuprim_histogram_even(tf.ctx, in, 10, CUPRIM_F32, out, 16, NAN, 1.0, s),
       INVALID},
      {"upper inf", cuprim_histogram_even(tf.ctx, in, 10, CUPRIM_F32, out, 16, 0.0, INFINITY, s),
       INVALID},
      {"lower == upper", cuprim_histogram_even(tf.ctx, in, 10, CUPRIM_F32, out, 16, 1.0, 1.0, s),
       INVALID},
      {"UINT32_MAX bins over 1e-300",
       cuprim_histogram_even(tf.ctx, in, 10, CUPRIM_F64, out, UINT32_MAX, 0.0, 1e-300, s), INVALID},
      {"alg 4",
       cuprim_histogram_even_ex(tf.ctx, (cuprim_histogram_alg)4, in, 10, CUPRIM_F32, out, 16, 0.0,
                                1.0, s),
       INVALID},
      {"dtype 12",
       cuprim_histogram_even_ex(tf.ctx, A, in, 10, (cuprim_dtype)12, out, 16, 0.0, 1.0, s),
       INVALID},
      {"d_counts + 4 bytes",
       cuprim_histogram_even(tf.ctx, in, 10, CUPRIM_U8,
                             (uint64_t *)(void *)((unsigned char *)out + 4), 16, 0.0, 1.0, s),
       INVALID},
      {"d_counts inside d_samples",
       cuprim_histogram_even_ex(tf.ctx, CUPRIM_HISTOGRAM_SORT_REDUCE_BY_KEY, in, 4096, CUPRIM_U8,
                                (uint64_t *)(void *)(tf.d_in + 1024), 16, 0.0, 256.0, s),
       INVALID},
      {"d_samples + 1 byte, F32",
       cuprim_histogram_even(tf.ctx, in + 1, 10, CUPRIM_F32, out, 16, 0.0, 1.0, s), INVALID},
      {"range: NULL d_edges", cuprim_histogram_range(tf.ctx, in, 10, CUPRIM_F32, out, 16, NULL, s),
       INVALID},
      {"range: num_bins 0", cuprim_histogram_range(tf.ctx, in, 10, CUPRIM_F32, out, 0, e, s),
       INVALID},
      {"range_ex: alg 4",
       cuprim_histogram_range_ex(tf.ctx, (cuprim_histogram_alg)4, in, 10, CUPRIM_F32, out, 16, e,
                                 s),
       INVALID},
      {"range_ex: alg -1, n 0",
       cuprim_histogram_range_ex(tf.ctx, (cuprim_histogram_alg)-1, NULL, 0, CUPRIM_U8, out, 16, e,
                                 s),
       INVALID},
      {"range_ex: NULL d_edges, SORT_REDUCE_BY_KEY",
       cuprim_histogram_range_ex(tf.ctx, CUPRIM_HISTOGRAM_SORT_REDUCE_BY_KEY, in, 10, CUPRIM_F32,
                                 out, 16, NULL, s),
       INVALID},
      {"range: d_counts inside d_edges",
       cuprim_histogram_range(tf.ctx, in, 10, CUPRIM_F32, (uint64_t *)(void *)(g.d_edges + 8), 16,
                              e, s),
       INVALID},
  };
  TF_CHECK_ARGUMENT_ERRORS(cases);
  tf_check_poisoned(g.d_edges, tf.h_in2, edge_bytes, tf.stream, "a call with invalid arguments",
                    "into d_edges");
}

/* ---------------------------------------------------------------- n == 0 */

/* n == 0 writes num_bins zeros over whatever d_counts held (the poison or all-ones garbage), with
 * d_samples NULL or not, through every algorithm, dtype and a few bin counts, even and by edges. */
TF_TEST(test_empty_input) {
  const uint32_t bins[] = {1, 257, 65536};
  static uint64_t zeros[65536]; /* the reference: all zero */
  hist_call calls[MAX_CALLS];
  tf_result res[MAX_CALLS];
  double lo, hi;
  for (size_t d = 0; d < HR_NUM_DTYPES; ++d)
    for (size_t bi = 0; bi < sizeof bins / sizeof bins[0]; ++bi) {
      const cuprim_dtype t = hr_all_dtypes[d];
      hr_hist_span_range(t, bins[bi], HR_HIST_ODD, &lo, &hi);
      const hr_hist_bins b = hr_hist_bins_even(bins[bi], lo, hi);
      int count = 0;
      for (int nul = 0; nul < 2; ++nul)
        for (int a = SHORTHAND; a < NUM_ALGS; ++a) {
          hist_call c = even_call(a, nul ? NULL : tf.d_in, 0, t, &b, zeros);
          c.garbage = (a + nul) % 2 ? 0xFF : -1;
          calls[count++] = c;
        }
      run_and_check(calls, count, tf.stream, "n = 0", 0, res);
    }
  /* by edges, every call: the edges uploaded once; NULL samples and not */
  hr_hist_even_edges(g.h_edges, 4096, 0.0, 4096.0);
  upload_edges(g.h_edges, 4096, tf.stream);
  for (size_t d = 0; d < HR_NUM_DTYPES; ++d) {
    const int count = all_range_calls(calls, d % 2 ? NULL : tf.d_in, 0, hr_all_dtypes[d],
                                      d % 3 ? 4096 : 1, g.d_edges, zeros);
    for (int i = 0; i < count; ++i)
      calls[i].garbage = d % 2 ? 0xFF : -1;
    run_and_check(calls, count, tf.stream, "n = 0", 0, res);
  }
  tf_check_no_recorded_error("after calls with n == 0");
}

/* ---------------------------------------------------------------- the sweep */

/* Sizes that break things: 0, 1, 2, warp +-1, 2^k +-1 (k = 8, 10, 12, 16, 22), primes, a few
 * seeded random sizes (log-uniform), and 1000003. Bin counts of 65536 and more take fewer. */
static size_t sweep_sizes(uint32_t num_bins, uint64_t *sizes, size_t cap) {
  static const uint64_t full[] = {0,
                                  1,
                                  2,
                                  31,
                                  32,
                                  33,
                                  255,
                                  256,
                                  257,
                                  1023,
                                  1024,
                                  1025,
                                  4095,
                                  4096,
                                  4097,
                                  7919,
                                  65535,
                                  65536,
                                  65537,
                                  104729,
                                  1000003,
                                  (1u << 22) - 1,
                                  (1u << 22) + 1};
  static const uint64_t full_big[] = {0, 1, 33, 1025, 65537, 1000003, (1u << 22) + 1};
  static const uint64_t quick[] = {0, 1, 33, 1025, 4097, 65537, 131071};
  static const uint64_t quick_huge[] = {0, 1025};
  const uint64_t *base;
  size_t nbase;
  int randoms;
  double top;
  if (tf.quick) {
    const int huge = num_bins > 65536;
    base = huge ? quick_huge : quick;
    nbase = huge ? 2 : sizeof quick / sizeof quick[0];
    randoms = huge ? 0 : 1;
    top = 17.0;
  } else {
    const int big = num_bins >= 65536;
    base = big ? full_big : full;
    nbase = big ? sizeof full_big / sizeof full_big[0] : sizeof full / sizeof full[0];
    randoms = big ? 1 : 3;
    top = 22.0;
  }
  return tf_sizes(base, nbase, 0x5A5E5 + num_bins, randoms, top, sizes, cap);
}

static const uint32_t sweep_bins_full[] = {1, 2, 255, 256, 257, 4096, 65536, 1u << 20};
static const uint32_t sweep_bins_quick[] = {1, 257, 4096, 65536, 1u << 20};

/* Which range a (data kind, size index) uses: rotating, so that each kind meets each range. */
static hr_hist_span span_for(hr_hist_data d, size_t k) {
  switch (d) {
  case HR_HIST_UNIFORM:
    return (hr_hist_span)(k % 3);
  case HR_HIST_ONE_BIN:
    return k % 2 ? HR_HIST_ODD : HR_HIST_FULL;
  case HR_HIST_OUT_OF_RANGE:
    return k % 2 ? HR_HIST_EXACT : HR_HIST_ODD;
  case HR_HIST_NAN:
    return (hr_hist_span)((k + 1) % 3);
  case HR_HIST_EDGES:
  default:
    return k % 3 == 1 ? HR_HIST_ODD : k % 3 == 2 ? HR_HIST_FULL : HR_HIST_EXACT;
  }
}

/* Every call x bin count x data kind x size for one dtype. */
static void sweep(cuprim_dtype t) {
  const double t0 = tf_now_s();
  const uint32_t *bins = tf.quick ? sweep_bins_quick : sweep_bins_full;
  const size_t nbins = tf.quick ? sizeof sweep_bins_quick / sizeof sweep_bins_quick[0]
                                : sizeof sweep_bins_full / sizeof sweep_bins_full[0];
  unsigned long cases = 0, ncalls = 0;
  for (size_t bi = 0; bi < nbins; ++bi) {
    const uint32_t nb = bins[bi];
    uint64_t sizes[64];
    const size_t nsizes = sweep_sizes(nb, sizes, 64);
    for (int d = 0; d < HR_HIST_DATA_KINDS; ++d) {
      if (!hr_hist_data_applies(t, (hr_hist_data)d))
        continue;
      for (size_t k = 0; k < nsizes; ++k) {
        const uint64_t n = sizes[k];
        if (d != HR_HIST_UNIFORM && (n > SWEEP_DATA_MAX || n == 0))
          continue;
        /* quick: uniform data, and one other kind per size, rotating */
        if (tf.quick && d != HR_HIST_UNIFORM && (size_t)d != 1 + (k + bi) % 4)
          continue;
        const hr_hist_span span = span_for((hr_hist_data)d, k);
        double lo, hi;
        hr_hist_span_range(t, nb, span, &lo, &hi);
        const hr_hist_bins b = hr_hist_bins_even(nb, lo, hi);
        const uint64_t seed = tf_case_seed(t, nb, (uint64_t)d * 8 + span, n);
        tf_hist_input(&b, t, (hr_hist_data)d, seed, n, tf.stream);
        uint64_t *want = want_slot(0);
        reference(&b, t, tf.h_in, n, want);
        hist_call calls[MAX_CALLS];
        tf_result res[MAX_CALLS];
        const int count = all_even_calls(calls, tf.d_in, n, t, &b, want);
        char data[96];
        snprintf(data, sizeof data, "%s (%s range)", hr_hist_data_name((hr_hist_data)d),
                 hr_hist_span_name(span));
        run_and_check(calls, count, tf.stream, data, seed, res);
        ++cases;
        ncalls += (unsigned long)count;
      }
    }
  }
  print_message("%s: %lu cases, %lu calls, %.1f s\n", hr_dtype_name(t), cases, ncalls,
                tf_now_s() - t0);
}

/* F16 and BF16 (0.2): samples converted to double exactly, through float. */
TF_SWEEP_TESTS_ALL(sweep)

/* ---------------------------------------------------------------- misaligned pointers */

/* Samples need only element alignment: d_samples + k elements (k = 1, 3 for every dtype; also 7
 * and 15 for 8- and 16-bit samples, whose 16-byte vectors hold 16 or 8 of them, so that heads of
 * many lengths are met) through every call, even and by edges, with sizes below and above a
 * vector's length; and d_counts + 1 element (8-byte aligned, not 16) for AUTO, BLOCK_PRIVATE and
 * cuprim_histogram_range. */
TF_TEST(test_misaligned) {
  static const uint64_t full[] = {1, 2, 7, 15, 17, 33, 1025, 65537, 1000003};
  static const uint64_t quick[] = {1, 15, 33, 1025, 65537};
  size_t nsizes = 0;
  const uint64_t *sizes = TF_PICK(full, quick, &nsizes);
  for (size_t d = 0; d < HR_NUM_DTYPES; ++d) {
    const cuprim_dtype t = hr_all_dtypes[d];
    const size_t esize = cuprim_dtype_size(t);
    const unsigned offsets[] = {1, 3, 7, 15};
    const size_t noffsets = esize <= 2 ? 4 : 2;
    for (size_t k = 0; k < nsizes; ++k) {
      /* A case a (dtype, size): racecheck in shards (CUPRIM_TEST_SHARD) splits this test, whose
       * whole quick run under racecheck took more than 260 s on an H200. */
      if (!tf_shard_case())
        continue;
      const uint64_t n = sizes[k];
      const uint32_t nb = k % 3 == 0 ? 256 : k % 3 == 1 ? 257 : 4096;
      double lo, hi;
      hr_hist_span_range(t, nb, HR_HIST_ODD, &lo, &hi);
      const hr_hist_bins b = hr_hist_bins_even(nb, lo, hi);
      const hr_hist_data data = k % 2 ? HR_HIST_OUT_OF_RANGE : HR_HIST_UNIFORM;
      const uint64_t seed = tf_case_seed(0x3A1, t, nb, n);
      hr_hist_fill(&b, t, data, seed, tf.h_in, n);
      uint64_t *want = want_slot(0), *want_e = want_slot(1);
      reference(&b, t, tf.h_in, n, want);
      hr_hist_even_edges(g.h_edges, nb, lo, hi);
      const hr_hist_bins be = hr_hist_bins_edges(nb, g.h_edges);
      reference(&be, t, tf.h_in, n, want_e);
      upload_edges(g.h_edges, nb, tf.stream);
      for (size_t o = 0; o < noffsets; ++o) {
        const unsigned off = offsets[o];
        unsigned char *din = tf.d_in + off * esize;
        tf_upload(din, tf.h_in, n * esize, tf.stream);
        hist_call calls[MAX_CALLS];
        tf_result res[MAX_CALLS];
        int count = all_even_calls(calls, din, n, t, &b, want);
        for (int i = 0; i < count; ++i)
          calls[i].in_offset = off;
        hist_call c = even_call(CUPRIM_HISTOGRAM_AUTO, din, n, t, &b, want);
        c.in_offset = off;
        c.out_offset = 1;
        calls[count++] = c;
        c.alg = CUPRIM_HISTOGRAM_BLOCK_PRIVATE;
        calls[count++] = c;
        const int first_range = count;
        count += all_range_calls(calls + count, din, n, t, nb, g.d_edges, want_e);
        for (int i = first_range; i < count; ++i)
          calls[i].in_offset = off;
        c = calls[first_range];
        c.out_offset = 1;
        calls[count++] = c;
        run_and_check(calls, count, tf.stream, hr_hist_data_name(data), seed, res);
      }
    }
  }
}

/* ---------------------------------------------------------------- streams */

/* The legacy default stream (0) and the per-thread default stream, besides the non-blocking
 * stream every other test uses; then two non-blocking streams in flight at once on one context,
 * enqueued alternately before either is waited for. */
TF_TEST(test_streams) {
  const cuprim_dtype dtypes[] = {CUPRIM_U8, CUPRIM_F32, CUPRIM_I64};
  const uint64_t sizes[] = {1000, tf.quick ? 65537u : (1u << 20) + 1};
  for (int si = 0; si < TF_DEFAULT_STREAMS; ++si)
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; ++d)
      for (int k = 0; k < 2; ++k) {
        const cudaStream_t stream = tf_default_stream[si];
        const cuprim_dtype t = dtypes[d];
        const uint64_t n = sizes[k];
        const uint32_t nb = d == 0 ? 256 : 4096;
        double lo, hi;
        hr_hist_span_range(t, nb, HR_HIST_FULL, &lo, &hi);
        const hr_hist_bins b = hr_hist_bins_even(nb, lo, hi);
        const uint64_t seed = tf_case_seed(0x57E, t, (uint64_t)si, n);
        tf_hist_input(&b, t, HR_HIST_UNIFORM, seed, n, stream);
        uint64_t *want = want_slot(0), *want_e = want_slot(1);
        reference(&b, t, tf.h_in, n, want);
        hr_hist_random_edges(g.h_edges, nb, lo, hi, !is_float(t), seed);
        const hr_hist_bins be = hr_hist_bins_edges(nb, g.h_edges);
        reference(&be, t, tf.h_in, n, want_e);
        upload_edges(g.h_edges, nb, stream);
        hist_call calls[MAX_CALLS];
        tf_result res[MAX_CALLS];
        int count = all_even_calls(calls, tf.d_in, n, t, &b, want);
        count += all_range_calls(calls + count, tf.d_in, n, t, nb, g.d_edges, want_e);
        run_and_check(calls, count, stream, tf_default_stream_name[si], seed, res);
      }

  cudaStream_t other = tf_new_stream();
  const uint64_t n = tf.quick ? 65537 : (1u << 21) + 3;
  const cuprim_dtype ta = CUPRIM_U16, tb = CUPRIM_F64;
  assert_true(n * cuprim_dtype_size(tb) <= IN2_CAP_BYTES);
  for (int round = 0; round < (tf.quick ? 1 : 3); ++round) {
    double lo, hi;
    hr_hist_span_range(ta, 4096, HR_HIST_ODD, &lo, &hi);
    const hr_hist_bins ba = hr_hist_bins_even(4096, lo, hi);
    hr_hist_span_range(tb, 257, HR_HIST_ODD, &lo, &hi);
    const hr_hist_bins bb = hr_hist_bins_even(257, lo, hi);
    const uint64_t seed_a = tf_case_seed(0xC0C, 1, (uint64_t)round, n);
    const uint64_t seed_b = tf_case_seed(0xC0C, 2, (uint64_t)round, n);
    hr_hist_fill(&ba, ta, HR_HIST_UNIFORM, seed_a, tf.h_in, n);
    hr_hist_fill(&bb, tb, HR_HIST_NAN, seed_b, tf.h_in2, n);
    uint64_t *want_a = want_slot(0), *want_b = want_slot(1);
    reference(&ba, ta, tf.h_in, n, want_a);
    reference(&bb, tb, tf.h_in2, n, want_b);
    tf_upload(tf.d_in, tf.h_in, n * cuprim_dtype_size(ta), tf.stream);
    tf_upload(tf.d_in2, tf.h_in2, n * cuprim_dtype_size(tb), other);
    hist_call ca[NUM_ALGS + 1], cb[NUM_ALGS + 1];
    const int count = all_even_calls(ca, tf.d_in, n, ta, &ba, want_a);
    all_even_calls(cb, tf.d_in2, n, tb, &bb, want_b);
    tf_run_stream_pair(&ops, count, ca, "uniform", seed_a, cb, "NaN and inf", seed_b, other);
  }
  TF_CUDA(cudaStreamDestroy(other));
}

/* ---------------------------------------------------------------- CUDA graphs */

/* What a graph round needs: the bins of the calls, and where their references go. */
static struct {
  hr_hist_bins b, be, b2, b3;
  uint64_t n_small;
  uint64_t *w_b, *w_e, *w_small, *w_b2, *w_b3;
} g_graph;

/* F32 samples with NaN and infinities (round 0), or on the edges of b's bins (rounds 1 and 2). */
static void graph_round(void *p, int count, int round, uint64_t seed, char *data, size_t len) {
  const hist_call *calls = (const hist_call *)p;
  const uint64_t n = calls[0].n;
  const cuprim_dtype t = CUPRIM_F32;
  (void)count; /* each call's reference is one of g_graph's */
  tf_hist_input(&g_graph.b, t, round ? HR_HIST_EDGES : HR_HIST_NAN, seed, n, tf.stream);
  reference(&g_graph.b, t, tf.h_in, n, g_graph.w_b);
  reference(&g_graph.be, t, tf.h_in, n, g_graph.w_e);
  reference(&g_graph.b, t, tf.h_in, g_graph.n_small, g_graph.w_small);
  reference(&g_graph.b2, t, tf.h_in, n, g_graph.w_b2);
  reference(&g_graph.b3, t, tf.h_in, g_graph.n_small, g_graph.w_b3);
  snprintf(data, len, "%s, graph replay %d", round ? "on edges" : "NaN and inf", round);
}

/* Every algorithm, even and by edges, and the shorthands on a large input, a call with n == 0,
 * small inputs, 65536 bins, captured into one graph: capture runs nothing; each replay reads
 * whatever the input buffer holds then and overwrites the counts; replaying twice on the same input
 * gives the same counts. */
TF_TEST(test_graph_capture) {
  const uint64_t n = tf.quick ? 65537 : (1u << 20) + 1, n_small = 1000;
  const cuprim_dtype t = CUPRIM_F32; /* graph_round fills F32 samples */
  static uint64_t zeros[4096];
  double lo, hi;
  hr_hist_span_range(t, 4096, HR_HIST_ODD, &lo, &hi);
  const hr_hist_bins b = g_graph.b = hr_hist_bins_even(4096, lo, hi);
  hr_hist_span_range(t, 65536, HR_HIST_EXACT, &lo, &hi);
  const hr_hist_bins b2 = g_graph.b2 = hr_hist_bins_even(65536, lo, hi);
  hr_hist_span_range(t, 257, HR_HIST_FULL, &lo, &hi);
  const hr_hist_bins b3 = g_graph.b3 = hr_hist_bins_even(257, lo, hi);
  /* Random edges over b's range, uploaded once: the graph reads them at each replay. */
  const uint32_t nbe = 1000;
  hr_hist_random_edges(g.h_edges, nbe, b.lower, b.upper, 0, tf_case_seed(0x6A9, 0xED, 0, 0));
  g_graph.be = hr_hist_bins_edges(nbe, g.h_edges);
  upload_edges(g.h_edges, nbe, tf.stream);
  /* The references: slot 0 (b, n), 1 (edges, n), 2 (b, n_small), 3 (b2, n) and 3 + 65536 (b3,
   * n_small). */
  g_graph.n_small = n_small;
  uint64_t *w_b = g_graph.w_b = want_slot(0), *w_e = g_graph.w_e = want_slot(1),
           *w_small = g_graph.w_small = want_slot(2), *w_b2 = g_graph.w_b2 = want_slot(3),
           *w_b3 = g_graph.w_b3 = want_slot(3) + 65536;

  hist_call calls[16]; /* calls[0]: n samples (graph_round reads n from it) */
  int count = all_even_calls(calls, tf.d_in, n, t, &b, w_b);
  count += all_range_calls(calls + count, tf.d_in, n, t, nbe, g.d_edges, w_e);
  calls[count++] = even_call(CUPRIM_HISTOGRAM_AUTO, tf.d_in, 0, t, &b, zeros);
  calls[count++] = even_call(CUPRIM_HISTOGRAM_GLOBAL_ATOMIC, tf.d_in, n_small, t, &b, w_small);
  calls[count++] = even_call(CUPRIM_HISTOGRAM_BLOCK_PRIVATE, tf.d_in, n, t, &b2, w_b2);
  calls[count++] = even_call(CUPRIM_HISTOGRAM_SORT_REDUCE_BY_KEY, tf.d_in, n_small, t, &b3, w_b3);
  calls[count++] = even_call(CUPRIM_HISTOGRAM_AUTO, tf.d_in, n, t, &b2, w_b2);
  tf_graph_rounds(&ops, calls, count, n, graph_round);
}

/* ---------------------------------------------------------------- cuprim_histogram_range */

/* cuprim_histogram_range and cuprim_histogram_range_ex with every algorithm (the edge binning of
 * GLOBAL_ATOMIC, BLOCK_PRIVATE and SORT_REDUCE_BY_KEY is reachable only through range_ex). Random
 * strictly increasing edges (narrow and wide bins; for integer samples mostly integral, so
 * samples land on them) over the full or the irregular range, and the even bins of an exact range
 * given as edges (then also run through cuprim_histogram_even_ex against the formula's reference:
 * for 64-bit and float samples next to an edge the two differ, so a range call that used the
 * formula, or an even call that searched edges, fails).
 * Bin counts around what fits in shared memory: 6143/6144 edges-worth around 48 KiB, 29055/29056
 * around 227 KiB (H100's opt-in limit: 29056 edges fit, 29057 do not), 65536 and 2^20 that never
 * fit. Data: uniform (half of it uniform over the bins), and per size one other kind, rotating. */
TF_TEST(test_range) {
  const double t0 = tf_now_s();
  static const uint32_t full_bins[] = {1,    2,    7,     255,   256,   1000,    4096,
                                       6143, 6144, 29055, 29056, 65536, 1u << 20};
  static const uint32_t quick_bins[] = {1, 7, 256, 4096, 29056, 65536};
  const uint32_t *bins = tf.quick ? quick_bins : full_bins;
  const size_t nbins =
      tf.quick ? sizeof quick_bins / sizeof quick_bins[0] : sizeof full_bins / sizeof full_bins[0];
  static const uint64_t sizes_small[] = {0, 1, 33, 1025, 65537, 1000003};
  static const uint64_t sizes_big[] = {0, 33, 65537, 1000003};
  static const uint64_t sizes_quick[] = {0, 33, 4097};
  unsigned long cases = 0;
  for (size_t d = 0; d < HR_NUM_DTYPES; ++d)
    for (size_t bi = 0; bi < nbins; ++bi)
      for (int ek = 0; ek < 2; ++ek) {
        const cuprim_dtype t = hr_all_dtypes[d];
        const uint32_t nb = bins[bi];
        const hr_hist_span span = ek ? HR_HIST_EXACT : bi % 2 ? HR_HIST_ODD : HR_HIST_FULL;
        double lo, hi;
        hr_hist_span_range(t, nb, span, &lo, &hi);
        const uint64_t seed_e = tf_case_seed(0xED6E, t, nb, (uint64_t)ek);
        if (ek)
          hr_hist_even_edges(g.h_edges, nb, lo, hi);
        else
          hr_hist_random_edges(g.h_edges, nb, lo, hi, !is_float(t), seed_e);
        upload_edges(g.h_edges, nb, tf.stream);
        const hr_hist_bins be = hr_hist_bins_edges(nb, g.h_edges);
        const hr_hist_bins bev = hr_hist_bins_even(nb, lo, hi);
        const uint64_t *sizes = tf.quick ? sizes_quick : nb <= 4096 ? sizes_small : sizes_big;
        const size_t nsizes = tf.quick     ? sizeof sizes_quick / sizeof sizes_quick[0]
                              : nb <= 4096 ? sizeof sizes_small / sizeof sizes_small[0]
                                           : sizeof sizes_big / sizeof sizes_big[0];
        for (size_t k = 0; k < nsizes; ++k) {
          const uint64_t n = sizes[k];
          hr_hist_data kinds[2] = {HR_HIST_UNIFORM, (hr_hist_data)(1 + (k + bi + (size_t)ek) % 4)};
          if (!hr_hist_data_applies(t, kinds[1]))
            kinds[1] = HR_HIST_EDGES;
          const int nkinds = n == 0 || n > SWEEP_DATA_MAX ? 1 : 2;
          for (int ki = 0; ki < nkinds; ++ki) {
            if (!tf_shard_case())
              continue;
            const uint64_t seed = tf_case_seed(seed_e, kinds[ki], n, 0);
            tf_hist_input(&be, t, kinds[ki], seed, n, tf.stream);
            uint64_t *want = want_slot(0), *want_even = want_slot(1);
            reference(&be, t, tf.h_in, n, want);
            hist_call calls[MAX_CALLS];
            tf_result res[MAX_CALLS];
            int count = all_range_calls(calls, tf.d_in, n, t, nb, g.d_edges, want);
            if (ek) {
              /* The same bins, even: the formula's reference, which for 64-bit and float samples
               * next to an edge differs from the edges' (test_histogram_api: even_as_edges). */
              reference(&bev, t, tf.h_in, n, want_even);
              calls[count++] = even_call(CUPRIM_HISTOGRAM_AUTO, tf.d_in, n, t, &bev, want_even);
            }
            char data[96];
            snprintf(data, sizeof data, "%s (%s edges, %s range)", hr_hist_data_name(kinds[ki]),
                     ek ? "even" : "random", hr_hist_span_name(span));
            run_and_check(calls, count, tf.stream, data, seed, res);
            ++cases;
          }
        }
      }
  print_message("range: %lu cases, %.1f s\n", cases, tf_now_s() - t0);
}

/* ---------------------------------------------------------------- one bin, many samples */

/* Every sample in one bin at 2^24 + 3 samples, through every call: all samples equal (the worst
 * case for atomics on one address), and all samples different but inside one bin. A count past
 * 2^24 also shows counts kept in 32-bit floats. */
TF_TEST(test_one_bin_large) {
  const double t0 = tf_now_s();
  const uint64_t n = tf.quick ? (1u << 17) + 3 : BIG_N;
  const struct {
    cuprim_dtype t;
    uint32_t num_bins;
    hr_hist_span span;
  } cases[] = {{CUPRIM_U8, 256, HR_HIST_FULL},  {CUPRIM_I16, 65536, HR_HIST_EXACT},
               {CUPRIM_F32, 1, HR_HIST_ODD},    {CUPRIM_F64, 4096, HR_HIST_ODD},
               {CUPRIM_U64, 257, HR_HIST_FULL}, {CUPRIM_I8, 1u << 20, HR_HIST_EXACT},
               {CUPRIM_I32, 2, HR_HIST_ODD}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
    for (int varied = 0; varied < 2; ++varied) {
      const cuprim_dtype t = cases[c].t;
      const size_t esize = cuprim_dtype_size(t);
      const uint32_t nb = cases[c].num_bins;
      double lo, hi;
      hr_hist_span_range(t, nb, cases[c].span, &lo, &hi);
      const hr_hist_bins b = hr_hist_bins_even(nb, lo, hi);
      const uint64_t seed = tf_case_seed(0x0B1, t, nb, (uint64_t)varied);
      if (varied) {
        hr_hist_fill(&b, t, HR_HIST_ONE_BIN, seed, tf.h_in, n);
      } else {
        hr_hist_fill(&b, t, HR_HIST_ONE_BIN, seed, tf.h_in, 1);
        for (uint64_t i = 1; i < n; ++i)
          memcpy(tf.h_in + i * esize, tf.h_in, esize);
      }
      tf_upload(tf.d_in, tf.h_in, n * esize, tf.stream);
      uint64_t *want = want_slot(0), *want_e = want_slot(1);
      const uint64_t counted = reference(&b, t, tf.h_in, n, want);
      uint32_t nonzero = 0;
      for (uint32_t k = 0; k < nb; ++k)
        nonzero += want[k] != 0;
      if (nonzero != 1 || counted != n)
        fail_msg("test bug: one-bin data for %s %u bins fills %u bins (%" PRIu64 " of %" PRIu64
                 " counted)",
                 hr_dtype_name(t), nb, nonzero, counted, n);
      hr_hist_even_edges(g.h_edges, nb, lo, hi);
      const hr_hist_bins be = hr_hist_bins_edges(nb, g.h_edges);
      reference(&be, t, tf.h_in, n, want_e);
      upload_edges(g.h_edges, nb, tf.stream);
      hist_call calls[MAX_CALLS];
      tf_result res[MAX_CALLS];
      int count = all_even_calls(calls, tf.d_in, n, t, &b, want);
      count += all_range_calls(calls + count, tf.d_in, n, t, nb, g.d_edges, want_e);
      char data[64];
      snprintf(data, sizeof data, "one bin, %s (%s range)", varied ? "varied" : "all equal",
               hr_hist_span_name(cases[c].span));
      run_and_check(calls, count, tf.stream, data, seed, res);
    }
  print_message("one bin, n=%" PRIu64 ": %.1f s\n", n, tf_now_s() - t0);
}

/* ---------------------------------------------------------------- allocators */

/* A case of the allocator tests: uniform samples of dtype t in num_bins bins over the `span`
 * range, even (want_slot(0)) and by random edges of that range (want_slot(1), in d_edges).
 * Writes every call, even and by edges, into calls; returns how many. */
static int allocator_case(hist_call *calls, cuprim_dtype t, uint32_t num_bins, hr_hist_span span,
                          uint64_t n, uint64_t seed) {
  double lo, hi;
  hr_hist_span_range(t, num_bins, span, &lo, &hi);
  const hr_hist_bins b = hr_hist_bins_even(num_bins, lo, hi);
  tf_hist_input(&b, t, HR_HIST_UNIFORM, seed, n, tf.stream);
  uint64_t *want = want_slot(0), *want_e = want_slot(1);
  reference(&b, t, tf.h_in, n, want);
  hr_hist_random_edges(g.h_edges, num_bins, lo, hi, !is_float(t), seed);
  const hr_hist_bins be = hr_hist_bins_edges(num_bins, g.h_edges);
  reference(&be, t, tf.h_in, n, want_e);
  upload_edges(g.h_edges, num_bins, tf.stream);
  const int count = all_even_calls(calls, tf.d_in, n, t, &b, want);
  return count + all_range_calls(calls + count, tf.d_in, n, t, num_bins, g.d_edges, want_e);
}

/* Every call, even and by edges, through a context with a counting allocator, on the paths that
 * take temporary memory (BLOCK_PRIVATE's copies in shared memory summed through memory, its copies
 * in global memory past shared memory, SORT_REDUCE_BY_KEY's keys and digit counts, and the scan it
 * calls) and on those that take none (AUTO, GLOBAL_ATOMIC, BLOCK_PRIVATE in one block): right
 * counts, and every allocation freed with the size and stream it was taken with. */
static void counting_cases(cuprim_ctx *ctx) {
  const struct {
    cuprim_dtype t;
    uint32_t num_bins;
    hr_hist_span span;
    uint64_t n;
  } cases[] = {{CUPRIM_U8, 256, HR_HIST_FULL, 1000},
               {CUPRIM_F32, 256, HR_HIST_ODD, tf.quick ? 65537 : (1u << 20) + 1},
               {CUPRIM_I16, 4096, HR_HIST_EXACT, tf.quick ? 100003 : (1u << 22) + 1},
               {CUPRIM_F64, MAX_BINS, HR_HIST_ODD, tf.quick ? 65537 : (1u << 20) + 1}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    const uint64_t seed = tf_case_seed(0xA11C, cases[k].t, cases[k].num_bins, cases[k].n);
    hist_call calls[MAX_CALLS];
    tf_result res[MAX_CALLS];
    const int count =
        allocator_case(calls, cases[k].t, cases[k].num_bins, cases[k].span, cases[k].n, seed);
    const tf_case cs = {"uniform, counting allocator", seed, 0};
    tf_run_and_check(&ops, ctx, calls, count, tf.stream, &cs, res);
  }
}

TF_COUNTING_ALLOCATOR_TEST(counting_cases, "SORT_REDUCE_BY_KEY sorts in temporary memory")

/* Calls that need temporary memory return OUT_OF_MEMORY having launched nothing and written
 * nothing: SORT_REDUCE_BY_KEY whenever n > 0, BLOCK_PRIVATE when its grid has more than one block
 * (its copies are summed through memory: here 256 bins in shared memory and 2^20 bins in global
 * memory, at 2^20 + 1 samples, 65537 in quick mode). Calls that need none (AUTO, GLOBAL_ATOMIC,
 * the small BLOCK_PRIVATE) may succeed, but never with wrong counts. */
static void failing_cases(cuprim_ctx *ctx) {
  const uint64_t n_big = tf.quick ? 65537 : (1u << 20) + 1;
  const struct {
    uint32_t num_bins;
    uint64_t n;
  } cases[] = {{256, 1000}, {256, n_big}, {MAX_BINS, n_big}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    const cuprim_dtype t = CUPRIM_F32;
    const uint64_t seed = tf_case_seed(0xFA11, t, cases[k].num_bins, cases[k].n);
    hist_call calls[MAX_CALLS];
    tf_result res[MAX_CALLS];
    int must_fail[MAX_CALLS];
    const int count = allocator_case(calls, t, cases[k].num_bins, HR_HIST_ODD, cases[k].n, seed);
    for (int i = 0; i < count; ++i)
      must_fail[i] = calls[i].alg == CUPRIM_HISTOGRAM_SORT_REDUCE_BY_KEY ||
                     (calls[i].alg == CUPRIM_HISTOGRAM_BLOCK_PRIVATE && cases[k].n == n_big);
    /* The even calls, then those by edges: five outputs of 2^20 bins fit in the region. */
    const tf_case cs = {"uniform, failing allocator", seed, 0};
    for (int half = 0; half < count; half += NUM_ALGS + 1) {
      tf_run_out_of_memory(&ops, ctx, calls + half, NUM_ALGS + 1, res + half, must_fail + half,
                           &cs);
    }
  }
}

TF_FAILING_ALLOCATOR_TEST(failing_cases)

/* ---------------------------------------------------------------- past 2^32 samples */

/* 2^32 + 4099 U8 samples starting 3 bytes past an allocation (an unaligned head), filled on the
 * device by tu_fill_u8_formula, which depends on i mod 65537 only: the host bins one period and
 * the leftover, and multiplies, with no host copy of the input. 256 bins through every call; one
 * bin (a count past 2^32: 32-bit counters wrap) through every algorithm; 7 bins over an irregular
 * range; and 4 uneven bins by edges through every call (cuprim_histogram_range and _range_ex). A
 * context of its own, destroyed at the end, so that its pool gives back what it took. */
TU_TEST(test_large_input) {
  (void)state;
  const uint64_t n = (1ull << 32) + 4099;
  tf_begin_large("past 2^32", (size_t)6 << 30);
  const double t0 = tf_now_s();
  cuprim_ctx *ctx = tf_context(NULL);
  unsigned char *d_buf = NULL;
  TF_CUDA(cudaMalloc((void **)&d_buf, n + 16));
  /* One slot for up to 256 bins, poisoned before each call. */
  static unsigned char h_slot[2 * TF_GUARD_BYTES + 256 * sizeof(uint64_t)];
  tf_region rg = {NULL, h_slot, sizeof h_slot};
  TF_CUDA(cudaMalloc((void **)&rg.d, rg.cap));
  unsigned char *d_samples = d_buf + 3;
  const double edges[] = {0.0, 3.0, 100.0, 101.0, 255.5};
  double *d_edges = NULL;
  TF_CUDA(cudaMalloc((void **)&d_edges, sizeof edges));
  TF_CUDA(cudaMemcpyAsync(d_edges, edges, sizeof edges, cudaMemcpyHostToDevice, tf.stream));
  TF_CUDA(tu_device_fill_u8(d_samples, n, tf.stream));

  /* One period of the formula, binned, times the number of whole periods, plus the leftover. */
  static uint8_t period[TU_FILL_U8_PERIOD];
  for (uint32_t i = 0; i < TU_FILL_U8_PERIOD; ++i)
    period[i] = tu_fill_u8_formula(i);
  const uint64_t q = n / TU_FILL_U8_PERIOD, r = n % TU_FILL_U8_PERIOD;
  const struct {
    int by_edges;
    uint32_t num_bins;
    double lower, upper;
    int algs_mask; /* bit a + 1: call a (SHORTHAND = bit 0, AUTO = bit 1, ...) */
  } specs[] = {{0, 256, 0.0, 256.0, 0x1F},
               {0, 1, 0.0, 256.0, 0x1E},
               {0, 7, 10.5, 200.25, 0x12},
               {1, 4, 0.0, 0.0, 0x1F}};
  uint64_t want[256], part[256];
  for (size_t sp = 0; sp < sizeof specs / sizeof specs[0]; ++sp) {
    const uint32_t nb = specs[sp].num_bins;
    const hr_hist_bins b = specs[sp].by_edges
                               ? hr_hist_bins_edges(nb, edges)
                               : hr_hist_bins_even(nb, specs[sp].lower, specs[sp].upper);
    hr_hist_reference(&b, CUPRIM_U8, period, TU_FILL_U8_PERIOD, want);
    for (uint32_t k = 0; k < nb; ++k)
      want[k] *= q;
    hr_hist_reference(&b, CUPRIM_U8, period, r, part);
    for (uint32_t k = 0; k < nb; ++k)
      want[k] += part[k];
    for (int a = SHORTHAND; a < NUM_ALGS; ++a) {
      if (!(specs[sp].algs_mask >> (a + 1) & 1))
        continue;
      hist_call c = specs[sp].by_edges ? range_call(a, d_samples, n, CUPRIM_U8, nb, d_edges, want)
                                       : even_call(a, d_samples, n, CUPRIM_U8, &b, want);
      c.in_offset = 3;
      char what[512];
      describe(what, sizeof what, &c, "tu_fill_u8_formula", 0);
      size_t free_before = 0, total_bytes = 0;
      TF_CUDA(cudaMemGetInfo(&free_before, &total_bytes));
      tf_result r;
      r.slot = tf_slot_at(0, (size_t)nb * sizeof(uint64_t), 0);
      tf_poison(&rg, r.slot.span, tf.stream);
      const double c0 = tf_now_s();
      r.st = call_histogram(ctx, &c, (uint64_t *)tf_slot_device(&rg, &r.slot), tf.stream);
      tf_finish(tf.stream);
      const double secs = tf_now_s() - c0;
      if (r.st == CUPRIM_ERROR_OUT_OF_MEMORY && free_before < 8 * n) {
        print_message("[  NOTE    ] %s: OUT_OF_MEMORY with %.1f GiB free (not counted as a "
                      "failure below 8 bytes a sample)\n",
                      what, free_before / TF_GIB);
        continue;
      }
      if (r.st == CUPRIM_SUCCESS)
        print_message("past 2^32: %s: %.3f s\n", call_name(&c), secs);
      else
        print_message("past 2^32: %s: %.1f GiB were free\n", call_name(&c), free_before / TF_GIB);
      TF_CUDA(cudaMemcpy(rg.h, rg.d, r.slot.span, cudaMemcpyDeviceToHost));
      const tf_case cs = {"tu_fill_u8_formula", 0, 0};
      tf_check(&ops, &rg, &c, &r, &cs);
    }
  }
  TF_CUDA(cudaFree(d_buf));
  TF_CUDA(cudaFree(rg.d));
  TF_CUDA(cudaFree(d_edges));
  assert_int_equal(cuprim_ctx_destroy(ctx), CUPRIM_SUCCESS);
  print_message("past 2^32: %.1f s in all\n", tf_now_s() - t0);
  tf_end();
}

TF_MAIN(&config)
