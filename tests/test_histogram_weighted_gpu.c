/* cuprim_histogram_even_weighted and cuprim_histogram_even_weighted_ex (AUTO, FIXED_ORDER) on a
 * GPU, against a host reference: the bins of test_histogram_ref.h (histogram.h's formula to the
 * letter) and, per bin, the sum of its weights in long double, the sum of their magnitudes, their
 * number m, and whether a NaN, +inf or -inf weight was among them.
 *
 * A bin's sum must be NaN where IEEE addition makes it NaN (a NaN weight, or +inf and -inf), the
 * infinity where one kind of infinity was added, +0.0 bit for bit where no sample fell, and
 * otherwise within histogram.h's bound m * 2^-53 * sum|w| of the reference (plus the reference's
 * own error, 2^-63 of that). Samples that are not counted (out of range, NaN) carry NaN or
 * infinite weights, so one added by mistake shows.
 *
 * Every sample dtype x F32 and F64 weights x bins {1, 7, 256, 4096, 65536, 2^20} (65536 and 2^20
 * past shared memory: AUTO's global atomics, FIXED_ORDER's warp copies in global memory) x sizes x
 * data (uniform, one bin, out of range, NaN samples, on edges; weights random over 2^-20..2^20 or
 * with NaN and infinities among the counted ones); FIXED_ORDER the same bits on every run, also
 * with samples and weights at other alignments; n == 0 (zeros over garbage); misaligned samples,
 * weights and sums; the legacy, per-thread and non-blocking streams and two streams at once; CUDA
 * graph capture and replay; FIXED_ORDER's temporary memory through a counting and a failing
 * allocator; argument errors with a real context; AUTO's fixed-point sums of F32 weights at their
 * window's edges (exact sums bit for bit, sums near the window's limit, zeros, subnormals and the
 * extremes of float, a window that the later weights miss, uncounted samples with finite weights).
 * Quick mode: fewer sizes, no 2^20 bins.
 * Environment and skipping as test_histogram_gpu.c. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostref_histogram.h"
#include "test_fixture_gpu.h"

#define MAX_CALLS 16
#define MAX_BINS (1u << 20)
#define MAX_N ((1u << 22) + 1)
#define IN_CAP_BYTES ((size_t)MAX_N * 8 + 4096) /* samples (and offsets) */
#define W_CAP_BYTES ((size_t)MAX_N * 8 + 4096)  /* weights, in d_in2 */
#define OUT_CAP_BYTES ((size_t)48 << 20)
#define REFS 2

#define SHORTHAND (-1) /* call.alg: cuprim_histogram_even_weighted */
#define AUTO CUPRIM_HISTOGRAM_WEIGHTED_AUTO
#define FIXED CUPRIM_HISTOGRAM_WEIGHTED_FIXED_ORDER

/* A bin's reference. */
enum { HAS_NAN = 1, HAS_PINF = 2, HAS_NINF = 4 };
typedef struct w_ref {
  long double *sum, *abs;
  uint64_t *m;
  unsigned char *special;
} w_ref;

static struct {
  w_ref ref[REFS];
  unsigned char *h_w; /* pinned weights, W_CAP_BYTES */
} g;

static void setup(void) {
  for (int r = 0; r < REFS; ++r) {
    g.ref[r].sum = (long double *)malloc(MAX_BINS * sizeof(long double));
    g.ref[r].abs = (long double *)malloc(MAX_BINS * sizeof(long double));
    g.ref[r].m = (uint64_t *)malloc(MAX_BINS * sizeof(uint64_t));
    g.ref[r].special = (unsigned char *)malloc(MAX_BINS);
    if (!g.ref[r].sum || !g.ref[r].abs || !g.ref[r].m || !g.ref[r].special) {
      tf_cuda_failed(cudaErrorMemoryAllocation, "malloc of the references", __FILE__, __LINE__,
                     &tf.setup);
      return;
    }
  }
  TF_SETUP_CUDA(cudaMallocHost((void **)&g.h_w, W_CAP_BYTES));
}

static void teardown(void) {
  for (int r = 0; r < REFS; ++r) {
    free(g.ref[r].sum);
    free(g.ref[r].abs);
    free(g.ref[r].m);
    free(g.ref[r].special);
  }
  if (g.h_w)
    (void)cudaFreeHost(g.h_w);
}

static const tf_config config = {.in_bytes = IN_CAP_BYTES,
                                 .in2_bytes = W_CAP_BYTES,
                                 .h_in2_bytes = 4096,
                                 .out_bytes = OUT_CAP_BYTES,
                                 .out2_bytes = OUT_CAP_BYTES / 4,
                                 .setup = setup,
                                 .teardown = teardown};

/* ---------------------------------------------------------------- calls */

typedef struct w_call {
  int alg; /* SHORTHAND, AUTO or FIXED */
  const unsigned char *d_samples, *d_weights;
  unsigned in_offset, w_offset, out_offset; /* elements past aligned addresses */
  int garbage;                              /* the byte d_sums holds first (-1: the poison) */
  uint64_t n;
  cuprim_dtype dtype, wdtype;
  uint32_t bins;
  double lower, upper;
  const w_ref *want;
} w_call;

static const char *alg_name(int alg) {
  return alg == SHORTHAND ? "cuprim_histogram_even_weighted"
         : alg == AUTO    ? "weighted_ex AUTO"
         : alg == FIXED   ? "weighted_ex FIXED_ORDER"
                          : "weighted_ex alg(?)";
}

static void describe(char *buf, size_t len, const void *p, const char *data, uint64_t seed) {
  const w_call *c = (const w_call *)p;
  snprintf(buf, len,
           "%s samples %s weights %s n=%" PRIu64 " bins=%" PRIu32 " [%.17g, %.17g) (d_samples+%u "
           "d_weights+%u d_sums+%u) data=%s seed=0x%016" PRIx64,
           alg_name(c->alg), hr_dtype_name(c->dtype), hr_dtype_name(c->wdtype), c->n, c->bins,
           c->lower, c->upper, c->in_offset, c->w_offset, c->out_offset, data, seed);
}

static void call_output(const void *p, size_t *bytes, size_t *misalign) {
  const w_call *c = (const w_call *)p;
  *bytes = (size_t)c->bins * sizeof(double);
  *misalign = (size_t)c->out_offset * sizeof(double);
}

static cuprim_status call_weighted(cuprim_ctx *ctx, const w_call *c, double *d_sums,
                                   cudaStream_t stream) {
  if (c->alg == SHORTHAND)
    return cuprim_histogram_even_weighted(ctx, c->d_samples, c->d_weights, c->n, c->dtype,
                                          c->wdtype, d_sums, c->bins, c->lower, c->upper, stream);
  return cuprim_histogram_even_weighted_ex(ctx, (cuprim_histogram_weighted_alg)c->alg, c->d_samples,
                                           c->d_weights, c->n, c->dtype, c->wdtype, d_sums, c->bins,
                                           c->lower, c->upper, stream);
}

static cuprim_status issue(cuprim_ctx *ctx, const void *p, void *d_out, cudaStream_t stream) {
  const w_call *c = (const w_call *)p;
  tf_fill_garbage(d_out, c->garbage, (size_t)c->bins * sizeof(double), stream);
  return call_weighted(ctx, c, (double *)d_out, stream);
}

static uint64_t fnv1a(const unsigned char *p, size_t bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < bytes; ++i)
    h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/* Is got right for bin b? Writes why not. */
static int bin_ok(const w_ref *r, uint32_t b, double got, char *why, size_t len) {
  const unsigned sp = r->special[b];
  if (r->m[b] == 0) {
    const double zero = 0.0;
    if (memcmp(&got, &zero, sizeof got) != 0) {
      snprintf(why, len, "bin %" PRIu32 ": no sample, expected +0.0, got %.17g", b, got);
      return 0;
    }
    return 1;
  }
  if ((sp & HAS_NAN) || ((sp & HAS_PINF) && (sp & HAS_NINF))) {
    if (!isnan(got)) {
      snprintf(why, len, "bin %" PRIu32 ": expected NaN (flags %u), got %.17g", b, sp, got);
      return 0;
    }
    return 1;
  }
  if (sp & (HAS_PINF | HAS_NINF)) {
    const double want = sp & HAS_PINF ? INFINITY : -INFINITY;
    if (got != want) {
      snprintf(why, len, "bin %" PRIu32 ": expected %g, got %.17g", b, want, got);
      return 0;
    }
    return 1;
  }
  const long double bound = (long double)r->m[b] * 0x1p-53L * r->abs[b] * (1.0L + 0x1p-10L);
  const long double err = fabsl((long double)got - r->sum[b]);
  if (!(err <= bound)) {
    snprintf(why, len,
             "bin %" PRIu32 ": expected %.21Lg (m %" PRIu64 ", sum|w| %.6Lg), got %.17g: error "
             "%.3Lg past the bound %.3Lg",
             b, r->sum[b], r->m[b], r->abs[b], got, err, bound);
    return 0;
  }
  return 1;
}

static int check(const tf_region *rg, const void *p, tf_result *r, const tf_case *cs,
                 const char *what) {
  const w_call *c = (const w_call *)p;
  const unsigned char *out = tf_slot_host(rg, &r->slot);
  uint64_t wrong = 0;
  char why[512];
  for (uint32_t b = 0; b < c->bins; ++b) {
    double got;
    memcpy(&got, out + (size_t)b * sizeof got, sizeof got);
    if (!bin_ok(c->want, b, got, why, sizeof why) && wrong++ < 3)
      tf_failure("%s: %s", what, why);
  }
  if (wrong) {
    tf_failure("%s: %" PRIu64 " of %" PRIu32 " bins wrong", what, wrong, c->bins);
    return 0;
  }
  /* Only FIXED_ORDER promises the same bits every run (determinism.md): AUTO's sums depend on
   * the order of its atomic adds, so two runs over the same input may differ in the last bits.
   * Its hash is a constant, and a "same bytes" comparison says nothing about it. */
  if (cs->want_hash)
    r->hash = c->alg == FIXED ? fnv1a(out, (size_t)c->bins * sizeof(double)) : 0;
  return 1;
}

/* The calls that repeat their bits: FIXED_ORDER's (see check). */
static int same_bits(const void *call) { return ((const w_call *)call)->alg == FIXED; }

static const tf_call_ops ops = {sizeof(w_call), "d_sums", call_output, issue,
                                describe,       check,    same_bits};

/* ---------------------------------------------------------------- data and reference */

enum { W_RANDOM = 0, W_SPECIAL = 1 }; /* weights of counted samples: finite, or some NaN/inf */

/* Weight i as a double: random sign and mantissa, magnitude 2^-20..2^20 (F32: 24 bits; F64: 53);
 * with W_SPECIAL, one counted weight in 97 NaN, +inf or -inf. */
static double weight_value(uint64_t *state, int special) {
  const uint64_t r = hr_splitmix64(state);
  if (special && r % 97 == 0) {
    const int k = (int)((r >> 8) % 3);
    return k == 0 ? (double)NAN : k == 1 ? (double)INFINITY : -(double)INFINITY;
  }
  const double mant = 1.0 + (double)(r >> 11) * 0x1p-53;
  const int e = (int)((r >> 3) % 41) - 20;
  return ldexp(r & 1 ? -mant : mant, e);
}

static void put_weight(cuprim_dtype wt, unsigned char *h, uint64_t i, double v) {
  if (wt == CUPRIM_F32) {
    const float f = (float)v;
    memcpy(h + i * 4, &f, 4);
  } else {
    memcpy(h + i * 8, &v, 8);
  }
}

static double get_weight(cuprim_dtype wt, const unsigned char *h, uint64_t i) {
  if (wt == CUPRIM_F32) {
    float f;
    memcpy(&f, h + i * 4, 4);
    return (double)f;
  }
  double d;
  memcpy(&d, h + i * 8, 8);
  return d;
}

/* The reference of the samples in tf.h_in and the weights in g.h_w, binned by b. */
static void make_reference(const hr_hist_bins *b, cuprim_dtype t, cuprim_dtype wt, uint64_t n,
                           const w_ref *ref) {
  for (uint32_t k = 0; k < b->num_bins; ++k) {
    ref->sum[k] = ref->abs[k] = 0.0L;
    ref->m[k] = 0;
    ref->special[k] = 0;
  }
  for (uint64_t i = 0; i < n; ++i) {
    const uint32_t bin = hr_hist_bin(b, hr_to_double(t, tf.h_in, i));
    if (bin == HR_HIST_NO_BIN)
      continue;
    const double w = get_weight(wt, g.h_w, i);
    ref->m[bin]++;
    if (isnan(w))
      ref->special[bin] |= HAS_NAN;
    else if (isinf(w))
      ref->special[bin] |= w > 0 ? HAS_PINF : HAS_NINF;
    else {
      ref->sum[bin] += (long double)w;
      ref->abs[bin] += fabsl((long double)w);
    }
  }
}

/* Samples (kind d over bins b) into tf.h_in and weights into g.h_w, whose uncounted samples get
 * NaN or infinite weights; their reference into ref. Bins with b's range count the same samples,
 * so make_reference gives their reference on the same data. */
static void make_data(const hr_hist_bins *b, cuprim_dtype t, cuprim_dtype wt, hr_hist_data d,
                      int wkind, uint64_t seed, uint64_t n, const w_ref *ref) {
  hr_hist_fill(b, t, d, seed, tf.h_in, n);
  uint64_t s = hr_mix(seed, 0x3E16);
  for (uint64_t i = 0; i < n; ++i) {
    const uint32_t bin = hr_hist_bin(b, hr_to_double(t, tf.h_in, i));
    double w = weight_value(&s, wkind == W_SPECIAL);
    if (bin == HR_HIST_NO_BIN)
      w = i % 3 ? (double)NAN : (double)INFINITY; /* must add nothing */
    put_weight(wt, g.h_w, i, w);
  }
  make_reference(b, t, wt, n, ref);
}

static void upload(const unsigned char *d_samples, const unsigned char *d_weights, cuprim_dtype t,
                   cuprim_dtype wt, uint64_t n, cudaStream_t stream) {
  tf_upload((void *)d_samples, tf.h_in, n * cuprim_dtype_size(t), stream);
  TF_CUDA(cudaMemcpyAsync((void *)d_weights, g.h_w, n * cuprim_dtype_size(wt),
                          cudaMemcpyHostToDevice, stream));
}

static w_call make_call(int alg, const unsigned char *d_samples, const unsigned char *d_weights,
                        uint64_t n, cuprim_dtype t, cuprim_dtype wt, const hr_hist_bins *b,
                        const w_ref *ref) {
  return (w_call){.alg = alg,
                  .d_samples = d_samples,
                  .d_weights = d_weights,
                  .garbage = -1,
                  .n = n,
                  .dtype = t,
                  .wdtype = wt,
                  .bins = b->num_bins,
                  .lower = b->lower,
                  .upper = b->upper,
                  .want = ref};
}

/* The three calls of a case: the shorthand, AUTO and FIXED_ORDER through _ex. */
static int all_calls(w_call *calls, const unsigned char *ds, const unsigned char *dw, uint64_t n,
                     cuprim_dtype t, cuprim_dtype wt, const hr_hist_bins *b, const w_ref *ref) {
  calls[0] = make_call(SHORTHAND, ds, dw, n, t, wt, b, ref);
  calls[1] = make_call(AUTO, ds, dw, n, t, wt, b, ref);
  calls[2] = make_call(FIXED, ds, dw, n, t, wt, b, ref);
  return 3;
}

static int run_and_check(const w_call *calls, int count, cudaStream_t stream, const char *data,
                         uint64_t seed, tf_result *res, int want_hash) {
  const tf_case cs = {data, seed, want_hash};
  return tf_run_and_check(&ops, tf.ctx, calls, count, stream, &cs, res);
}

/* ---------------------------------------------------------------- errors with a device */

TF_TEST(test_errors_with_device) {
  double *out = (double *)(void *)tf_poison_inputs(4096, 8192);
  const unsigned char *in = tf.d_in;
  const cudaStream_t s = tf.stream;
  const cuprim_status INVALID = CUPRIM_ERROR_INVALID_ARGUMENT;
  const cuprim_dtype F32 = CUPRIM_F32;
  const tf_status_case cases[] = {
      {"NULL ctx",
       cuprim_histogram_even_weighted(NULL, in, in + 512, 10, F32, F32, out, 16, 0.0, 1.0, s),
       INVALID},
      {"NULL weights",
       cuprim_histogram_even_weighted(tf.ctx, in, NULL, 10, F32, F32, out, 16, 0.0, 1.0, s),
       INVALID},
      {"weights U8",
       cuprim_histogram_even_weighted(tf.ctx, in, in + 512, 10, F32, CUPRIM_U8, out, 16, 0.0, 1.0,
                                      s),
       CUPRIM_ERROR_UNSUPPORTED},
      {"sums inside the weights",
       cuprim_histogram_even_weighted(tf.ctx, in, in + 512, 100, F32, F32,
                                      (double *)(void *)(tf.d_in + 520), 16, 0.0, 1.0, s),
       INVALID},
      {"alg 2",
       cuprim_histogram_even_weighted_ex(tf.ctx, (cuprim_histogram_weighted_alg)2, in, in + 512, 10,
                                         F32, F32, out, 16, 0.0, 1.0, s),
       INVALID},
      {"lower NaN, FIXED_ORDER",
       cuprim_histogram_even_weighted_ex(tf.ctx, FIXED, in, in + 512, 10, F32, F32, out, 16, NAN,
                                         1.0, s),
       INVALID},
      {"sums + 4 bytes",
       cuprim_histogram_even_weighted(tf.ctx, in, in + 512, 10, F32, F32,
                                      (double *)(void *)(tf.out.d + 260), 16, 0.0, 1.0, s),
       INVALID},
  };
  TF_CHECK_ARGUMENT_ERRORS(cases);
}

/* ---------------------------------------------------------------- n == 0 */

TF_TEST(test_empty_input) {
  const uint32_t bins[] = {1, 257, 65536};
  w_ref *ref = &g.ref[0];
  for (uint32_t k = 0; k < 65536; ++k) {
    ref->m[k] = 0;
    ref->special[k] = 0;
  }
  for (size_t d = 0; d < HR_NUM_DTYPES; ++d) {
    w_call calls[MAX_CALLS];
    int count = 0;
    for (size_t bi = 0; bi < 3; ++bi) {
      double lo, hi;
      hr_hist_span_range(hr_all_dtypes[d], bins[bi], HR_HIST_ODD, &lo, &hi);
      const hr_hist_bins b = hr_hist_bins_even(bins[bi], lo, hi);
      for (int alg = SHORTHAND; alg <= FIXED; ++alg) {
        w_call c =
            make_call(alg, (bi + d) % 2 ? NULL : tf.d_in, (bi + d) % 2 ? NULL : tf.d_in2, 0,
                      hr_all_dtypes[d], (alg + (int)d) % 2 ? CUPRIM_F64 : CUPRIM_F32, &b, ref);
        c.garbage = alg == AUTO ? 0xFF : -1;
        calls[count++] = c;
      }
    }
    tf_result res[MAX_CALLS];
    run_and_check(calls, count, tf.stream, "n = 0", 0, res, 0);
  }
  tf_check_no_recorded_error("after calls with n == 0");
}

/* ---------------------------------------------------------------- the sweep */

/* Every bin count x size x weight dtype for one sample dtype; data kind, range and weight kind
 * rotate with the size. */
static void sweep(cuprim_dtype t) {
  const double t0 = tf_now_s();
  static const uint64_t full[] = {1,    2,     3,     4,      5,       15,
                                  16,   17,    31,    32,     33,      1000,
                                  4097, 65537, 99991, 262147, 1000003, (1u << 22) + 1};
  static const uint64_t quick[] = {1, 5, 33, 4097, 65537};
  static const uint64_t big_full[] = {33, 65537, 1000003};
  static const uint64_t big_quick[] = {33, 4097};
  static const uint32_t bins_full[] = {1, 7, 256, 4096, 65536, 1u << 20};
  static const uint32_t bins_quick[] = {1, 256, 4096, 65536};
  const uint32_t *bins = tf.quick ? bins_quick : bins_full;
  const size_t nbins = tf.quick ? 4 : 6;
  unsigned long cases = 0;
  for (size_t bi = 0; bi < nbins; ++bi) {
    const int big = bins[bi] > 4096;
    size_t ns = 0;
    const uint64_t *sizes = big ? TF_PICK(big_full, big_quick, &ns) : TF_PICK(full, quick, &ns);
    for (size_t k = 0; k < ns; ++k)
      for (int wi = 0; wi < 2; ++wi) {
        const uint64_t n = sizes[k];
        const cuprim_dtype wt = wi ? CUPRIM_F64 : CUPRIM_F32;
        hr_hist_data d = n > (1u << 20)
                             ? HR_HIST_UNIFORM
                             : (hr_hist_data)((k + bi + (size_t)wi) % HR_HIST_DATA_KINDS);
        if (!hr_hist_data_applies(t, d))
          d = HR_HIST_OUT_OF_RANGE;
        const hr_hist_span span = (hr_hist_span)((k + (size_t)wi) % HR_HIST_SPANS);
        const int wkind = (k + bi) % 3 == 2 ? W_SPECIAL : W_RANDOM;
        double lo, hi;
        hr_hist_span_range(t, bins[bi], span, &lo, &hi);
        const hr_hist_bins b = hr_hist_bins_even(bins[bi], lo, hi);
        const uint64_t seed = tf_case_seed(t, bins[bi], n, (uint64_t)wi * 16 + (uint64_t)d);
        make_data(&b, t, wt, d, wkind, seed, n, &g.ref[0]);
        upload(tf.d_in, tf.d_in2, t, wt, n, tf.stream);
        w_call calls[MAX_CALLS];
        tf_result res[MAX_CALLS];
        const int count = all_calls(calls, tf.d_in, tf.d_in2, n, t, wt, &b, &g.ref[0]);
        char data[96];
        snprintf(data, sizeof data, "%s (%s range), %s weights", hr_hist_data_name(d),
                 hr_hist_span_name(span), wkind == W_SPECIAL ? "NaN/inf" : "random");
        run_and_check(calls, count, tf.stream, data, seed, res, 0);
        ++cases;
      }
  }
  print_message("%s: %lu cases, %.1f s\n", hr_dtype_name(t), cases, tf_now_s() - t0);
}

TF_SWEEP_TESTS_ALL(sweep)

/* ---------------------------------------------------------------- FIXED_ORDER repeats */

/* FIXED_ORDER gives the same bits on every run: four calls on the same data in one batch, two
 * more batches, and the same samples and weights copied to other alignments (groups are counted
 * from the first element, so alignment changes the loads, not the order). Data whose sums round
 * differently in different orders (magnitudes 2^-20..2^20) and one-bin data (every lane of a warp
 * on one bin). AUTO is checked against the bound on the same data. */
TF_TEST(test_fixed_order_repeats) {
  const struct {
    cuprim_dtype t, wt;
    uint32_t bins;
    uint64_t n;
    hr_hist_data d;
  } cases[] = {{CUPRIM_F32, CUPRIM_F32, 256, (1u << 22) + 1, HR_HIST_UNIFORM},
               {CUPRIM_F32, CUPRIM_F32, 4096, 1000003, HR_HIST_UNIFORM},
               {CUPRIM_U8, CUPRIM_F64, 256, 1000003, HR_HIST_ONE_BIN},
               {CUPRIM_F64, CUPRIM_F32, 7, 65537, HR_HIST_UNIFORM},
               {CUPRIM_I16, CUPRIM_F64, 65536, 262147, HR_HIST_UNIFORM}};
  const size_t ncases = sizeof cases / sizeof cases[0];
  for (size_t i = 0; i < ncases; ++i) {
    const cuprim_dtype t = cases[i].t, wt = cases[i].wt;
    const uint64_t n = tf.quick ? 65537 : cases[i].n;
    const size_t ss = cuprim_dtype_size(t), ws = cuprim_dtype_size(wt);
    double lo, hi;
    hr_hist_span_range(t, cases[i].bins, HR_HIST_ODD, &lo, &hi);
    const hr_hist_bins b = hr_hist_bins_even(cases[i].bins, lo, hi);
    const uint64_t seed = tf_case_seed(0xF1ED, t, cases[i].bins, n);
    make_data(&b, t, wt, cases[i].d, W_RANDOM, seed, n, &g.ref[0]);
    /* at offset 0, then samples at +1 and +3 elements and weights at +2 and +1 */
    const unsigned so[3] = {0, 1, 3}, wo[3] = {0, 2, 1};
    uint64_t first = 0;
    for (int a = 0; a < 3; ++a) {
      const unsigned char *ds = tf.d_in + so[a] * ss, *dw = tf.d_in2 + wo[a] * ws;
      upload(ds, dw, t, wt, n, tf.stream); /* the previous alignment's calls have finished */
      w_call calls[MAX_CALLS];
      int count = 0;
      for (int k = 0; k < 4; ++k) {
        calls[count] = make_call(FIXED, ds, dw, n, t, wt, &b, &g.ref[0]);
        calls[count].in_offset = so[a];
        calls[count].w_offset = wo[a];
        calls[count].out_offset = (unsigned)(k % 2);
        ++count;
      }
      calls[count++] = make_call(AUTO, ds, dw, n, t, wt, &b, &g.ref[0]);
      for (int batch = 0; batch < (a == 0 ? 3 : 1); ++batch) {
        tf_result res[MAX_CALLS];
        char data[96];
        snprintf(data, sizeof data, "%s, alignment %d, batch %d", hr_hist_data_name(cases[i].d), a,
                 batch);
        if (run_and_check(calls, count, tf.stream, data, seed, res, 1) != count)
          continue;
        if (a == 0 && batch == 0)
          first = res[0].hash;
        for (int k = 0; k < 4; ++k)
          if (res[k].hash != first)
            tf_failure("FIXED_ORDER %s/%s %u bins n=%" PRIu64 ": call %d of %s differs from the "
                       "first run (hash %016" PRIx64 " against %016" PRIx64 ")",
                       hr_dtype_name(t), hr_dtype_name(wt), cases[i].bins, n, k, data, res[k].hash,
                       first);
      }
    }
  }
}

/* ---------------------------------------------------------------- misaligned */

/* Samples, weights and sums need only element alignment: every combination of samples at +0, +1
 * and +3 elements and weights at +0, +1 and +2, through AUTO and FIXED_ORDER, sums at +1 element
 * for some; sizes below and above a group and a tile. */
TF_TEST(test_misaligned) {
  const cuprim_dtype dtypes[] = {CUPRIM_U8, CUPRIM_I16, CUPRIM_F32, CUPRIM_F64};
  static const uint64_t full[] = {1, 7, 33, 1025, 65537, 1000003};
  static const uint64_t quick[] = {7, 1025, 65537};
  size_t ns = 0;
  const uint64_t *sizes = TF_PICK(full, quick, &ns);
  const unsigned so[3] = {0, 1, 3}, wo[3] = {0, 1, 2};
  for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; ++d)
    for (size_t k = 0; k < ns; ++k)
      for (int wi = 0; wi < 2; ++wi) {
        /* A case a (dtype, size, weight dtype): racecheck in shards (CUPRIM_TEST_SHARD) splits
         * this test, whose whole run under racecheck was cut at its time limit on an H100. */
        if (!tf_shard_case())
          continue;
        const cuprim_dtype t = dtypes[d], wt = wi ? CUPRIM_F64 : CUPRIM_F32;
        const uint64_t n = sizes[k];
        const uint32_t nb = k % 2 ? 256 : 4096;
        double lo, hi;
        hr_hist_span_range(t, nb, HR_HIST_ODD, &lo, &hi);
        const hr_hist_bins b = hr_hist_bins_even(nb, lo, hi);
        const uint64_t seed = tf_case_seed(0x3A1, t, nb, n * 2 + (uint64_t)wi);
        make_data(&b, t, wt, k % 3 ? HR_HIST_UNIFORM : HR_HIST_OUT_OF_RANGE, W_RANDOM, seed, n,
                  &g.ref[0]);
        for (int si = 0; si < 3; ++si) {
          w_call calls[MAX_CALLS];
          int count = 0;
          for (int wj = 0; wj < 3; ++wj) {
            /* three copies of the weights, one per offset, far enough apart */
            const unsigned char *ds = tf.d_in + so[si] * cuprim_dtype_size(t);
            const unsigned char *dw = tf.d_in2 + (size_t)wj * (W_CAP_BYTES / 3 / 256 * 256) +
                                      wo[wj] * cuprim_dtype_size(wt);
            if (wj == 0)
              tf_upload((void *)ds, tf.h_in, n * cuprim_dtype_size(t), tf.stream);
            TF_CUDA(cudaMemcpyAsync((void *)dw, g.h_w, n * cuprim_dtype_size(wt),
                                    cudaMemcpyHostToDevice, tf.stream));
            for (int alg = AUTO; alg <= FIXED; ++alg) {
              w_call c = make_call(alg, ds, dw, n, t, wt, &b, &g.ref[0]);
              c.in_offset = so[si];
              c.w_offset = wo[wj];
              c.out_offset = (unsigned)((si + wj + alg) % 2);
              calls[count++] = c;
            }
          }
          tf_result res[MAX_CALLS];
          run_and_check(calls, count, tf.stream, "misaligned", seed, res, 0);
        }
      }
}

/* ---------------------------------------------------------------- AUTO's fixed-point sums */

/* Weight i of test_fixed_point_window's kinds of data (f32). */
enum { WIN_GRID, WIN_TOP, WIN_EXTREMES, WIN_RISING, WIN_KINDS };

static float window_weight(int kind, uint64_t i, uint64_t *state) {
  const uint64_t r = hr_splitmix64(state);
  switch (kind) {
  case WIN_GRID: /* k * 2^-24, k < 2^24, either sign: every partial sum exact in double */
    return (r & 1 ? -1.0f : 1.0f) * (float)((r >> 8) & 0xFFFFFF) * 0x1p-24f;
  case WIN_TOP: /* 1.0 where a block samples its weights (i % 4 == 0), else the largest float
                 * below 8: 2^2 times the sample's exponent, the top of the window */
    return i % 4 == 0 ? 1.0f : 0x1.fffffep2f;
  case WIN_EXTREMES: { /* zeros of both signs, subnormals, the smallest and largest floats, and
                        * magnitudes over the whole range, either sign */
    static const float special[] = {0.0f,      -0.0f,           0x1p-149f,      -0x1.8p-140f,
                                    0x1p-126f, 0x1.fffffep127f, -0x1.5p100f,    0x1p-60f,
                                    1.0f,      -3.0f,           0x1.234566p20f, 0x1.fffffep-1f};
    if (r % 3 == 0)
      return special[(r >> 8) % (sizeof special / sizeof special[0])];
    const float mant = 1.0f + (float)((r >> 11) & 0x7FFFFF) * 0x1p-23f;
    return ldexpf(r & 1 ? -mant : mant, (int)((r >> 40) % 250) - 125);
  }
  default: /* WIN_RISING: tiny first, large later (the first blocks' samples see only tiny ones) */
    return i < 65536 ? 0x1p-100f : (float)(1 + r % 1000);
  }
}

/* AUTO adds F32 weights as 64-bit integers of a unit each block picks from a sample of its
 * weights, those outside its window as doubles (histogram_weighted.cu, fixed_window). Samples f32
 * (4096 or 256 bins over [0, 1)) or u8 (256 bins); the kinds of weights: a grid of 2^-24 whose
 * every order of addition is exact (AUTO must match the exact sums bit for bit), weights at the
 * top of a window whose sums come nearest to its 2^63 limit (three samples of every four in one
 * bin, the fourth out of range, with a finite weight that must not be added), weights over every
 * exponent with zeros and subnormals, and a window picked from tiny weights that the later, large
 * ones all miss. The shorthand and FIXED_ORDER on the same data, against the bound. */
TF_TEST(test_fixed_point_window) {
  const uint64_t n = tf.quick ? 65537 * 4 : MAX_N;
  for (int kind = 0; kind < WIN_KINDS; ++kind)
    for (int u8 = 0; u8 < 2; ++u8) {
      if (!tf_shard_case())
        continue;
      const cuprim_dtype t = u8 ? CUPRIM_U8 : CUPRIM_F32;
      const uint32_t nb = u8 || kind == WIN_TOP ? 256 : 4096;
      const hr_hist_bins b =
          u8 ? hr_hist_bins_even(nb, 0.0, 256.0) : hr_hist_bins_even(nb, 0.0, 1.0);
      const uint64_t seed = tf_case_seed(0xF1C5, (uint64_t)kind, (uint64_t)u8, n);
      uint64_t st = seed;
      for (uint64_t i = 0; i < n; ++i) {
        const uint64_t r = hr_splitmix64(&st);
        int out = 0;
        if (u8) {
          uint8_t v = (uint8_t)(r >> 56);
          if (kind == WIN_TOP)
            v = i % 4 == 3 ? 7 : 200;
          tf.h_in[i] = v;
        } else {
          float v = (float)(r >> 40) * 0x1p-24f;
          if (kind == WIN_TOP) {
            v = 0.5f;
            out = i % 4 == 3;
          }
          if (out)
            v = -1.0f;
          memcpy(tf.h_in + i * 4, &v, 4);
        }
        float w = window_weight(kind, i, &st);
        /* An uncounted sample must add nothing: a NaN, or (at the window's top) a finite weight
         * that AUTO adds as an integer into a spare word. */
        if (hr_hist_bin(&b, hr_to_double(t, tf.h_in, i)) == HR_HIST_NO_BIN && kind != WIN_TOP)
          w = (float)NAN;
        memcpy(g.h_w + i * 4, &w, 4);
      }
      make_reference(&b, t, CUPRIM_F32, n, &g.ref[0]);
      upload(tf.d_in, tf.d_in2, t, CUPRIM_F32, n, tf.stream);
      w_call calls[MAX_CALLS];
      tf_result res[MAX_CALLS];
      const int count = all_calls(calls, tf.d_in, tf.d_in2, n, t, CUPRIM_F32, &b, &g.ref[0]);
      static const char *names[] = {"grid of 2^-24", "at the window's top", "extremes",
                                    "tiny, then large"};
      char data[96];
      snprintf(data, sizeof data, "%s samples, weights %s", hr_dtype_name(t), names[kind]);
      if (run_and_check(calls, count, tf.stream, data, seed, res, 0) != count || kind != WIN_GRID)
        continue;
      /* The grid's sums are exact: AUTO's (and every order's) must be the reference itself. */
      double *got = (double *)malloc(nb * sizeof(double));
      TF_CUDA(cudaMemsetAsync(tf.out.d, 0xff, nb * sizeof(double), tf.stream));
      TF_CUDA(cudaStreamSynchronize(tf.stream));
      const cuprim_status st2 = cuprim_histogram_even_weighted_ex(
          tf.ctx, AUTO, tf.d_in, tf.d_in2, n, t, CUPRIM_F32, (double *)(void *)tf.out.d, nb,
          b.lower, b.upper, tf.stream);
      TF_CUDA(
          cudaMemcpyAsync(got, tf.out.d, nb * sizeof(double), cudaMemcpyDeviceToHost, tf.stream));
      TF_CUDA(cudaStreamSynchronize(tf.stream));
      if (st2 != CUPRIM_SUCCESS)
        tf_failure("%s: AUTO returned %s", data, cuprim_status_string(st2));
      uint32_t wrong = 0;
      for (uint32_t k = 0; k < nb && st2 == CUPRIM_SUCCESS; ++k)
        if (got[k] != (double)g.ref[0].sum[k] && wrong++ < 3)
          tf_failure("%s: AUTO bin %" PRIu32 " %.17g, exact %.17Lg", data, k, got[k],
                     g.ref[0].sum[k]);
      free(got);
    }
}

/* ---------------------------------------------------------------- streams and graphs */

TF_TEST(test_streams) {
  const uint64_t n = tf.quick ? 65537 : (1u << 20) + 1;
  for (int si = 0; si < TF_DEFAULT_STREAMS; ++si) {
    double lo, hi;
    hr_hist_span_range(CUPRIM_F32, 4096, HR_HIST_ODD, &lo, &hi);
    const hr_hist_bins b = hr_hist_bins_even(4096, lo, hi);
    const uint64_t seed = tf_case_seed(0x57E, (uint64_t)si, n, 0);
    make_data(&b, CUPRIM_F32, CUPRIM_F32, HR_HIST_UNIFORM, W_RANDOM, seed, n, &g.ref[0]);
    upload(tf.d_in, tf.d_in2, CUPRIM_F32, CUPRIM_F32, n, tf_default_stream[si]);
    w_call calls[MAX_CALLS];
    tf_result res[MAX_CALLS];
    const int count = all_calls(calls, tf.d_in, tf.d_in2, n, CUPRIM_F32, CUPRIM_F32, &b, &g.ref[0]);
    run_and_check(calls, count, tf_default_stream[si], tf_default_stream_name[si], seed, res, 0);
  }
  /* Two streams: the same inputs, 256 bins on one and 4096 on the other (two references). */
  cudaStream_t other = tf_new_stream();
  double lo, hi;
  hr_hist_span_range(CUPRIM_F32, 256, HR_HIST_FULL, &lo, &hi);
  const hr_hist_bins ba = hr_hist_bins_even(256, lo, hi);
  const hr_hist_bins bb = hr_hist_bins_even(4096, lo, hi);
  const uint64_t seed = tf_case_seed(0xC0C, 1, n, 0);
  make_data(&ba, CUPRIM_F32, CUPRIM_F64, HR_HIST_UNIFORM, W_RANDOM, seed, n, &g.ref[0]);
  make_reference(&bb, CUPRIM_F32, CUPRIM_F64, n, &g.ref[1]); /* the same data, 4096 bins */
  upload(tf.d_in, tf.d_in2, CUPRIM_F32, CUPRIM_F64, n, tf.stream);
  TF_CUDA(cudaStreamSynchronize(tf.stream));
  w_call ca[3], cb[3];
  all_calls(ca, tf.d_in, tf.d_in2, n, CUPRIM_F32, CUPRIM_F64, &ba, &g.ref[0]);
  all_calls(cb, tf.d_in, tf.d_in2, n, CUPRIM_F32, CUPRIM_F64, &bb, &g.ref[1]);
  tf_run_stream_pair(&ops, 3, ca, "256 bins", seed, cb, "4096 bins", seed, other);
  TF_CUDA(cudaStreamDestroy(other));
}

static struct {
  hr_hist_bins b, b2;
  uint64_t n;
} g_graph;

static void graph_round(void *p, int count, int round, uint64_t seed, char *data, size_t len) {
  (void)p;
  (void)count;
  make_data(&g_graph.b, CUPRIM_F32, CUPRIM_F32, round ? HR_HIST_EDGES : HR_HIST_NAN, W_SPECIAL,
            seed, g_graph.n, &g.ref[0]);
  make_reference(&g_graph.b2, CUPRIM_F32, CUPRIM_F32, g_graph.n, &g.ref[1]);
  upload(tf.d_in, tf.d_in2, CUPRIM_F32, CUPRIM_F32, g_graph.n, tf.stream);
  snprintf(data, len, "graph replay %d", round);
}

/* Every call captured into one graph, replayed on new data and on the same data again. b2 has
 * the range of b (so the same samples are counted and the same weights are NaN) and 65536 bins. */
TF_TEST(test_graph_capture) {
  g_graph.n = tf.quick ? 65537 : (1u << 20) + 1;
  double lo, hi;
  hr_hist_span_range(CUPRIM_F32, 4096, HR_HIST_ODD, &lo, &hi);
  g_graph.b = hr_hist_bins_even(4096, lo, hi);
  g_graph.b2 = hr_hist_bins_even(65536, lo, hi);
  w_call calls[MAX_CALLS];
  int count =
      all_calls(calls, tf.d_in, tf.d_in2, g_graph.n, CUPRIM_F32, CUPRIM_F32, &g_graph.b, &g.ref[0]);
  count += all_calls(calls + count, tf.d_in, tf.d_in2, g_graph.n, CUPRIM_F32, CUPRIM_F32,
                     &g_graph.b2, &g.ref[1]);
  tf_graph_rounds(&ops, calls, count, g_graph.n, graph_round);
}

/* ---------------------------------------------------------------- allocators */

/* FIXED_ORDER takes temporary memory (the blocks' partial sums; warp copies past shared memory),
 * AUTO none: through a counting allocator every allocation is given back with its size and
 * stream; through a failing one FIXED_ORDER returns OUT_OF_MEMORY having written nothing. */
static int allocator_case(w_call *calls, uint32_t nb, uint64_t n, uint64_t seed) {
  double lo, hi;
  hr_hist_span_range(CUPRIM_F32, nb, HR_HIST_ODD, &lo, &hi);
  const hr_hist_bins b = hr_hist_bins_even(nb, lo, hi);
  make_data(&b, CUPRIM_F32, CUPRIM_F32, HR_HIST_UNIFORM, W_RANDOM, seed, n, &g.ref[0]);
  upload(tf.d_in, tf.d_in2, CUPRIM_F32, CUPRIM_F32, n, tf.stream);
  return all_calls(calls, tf.d_in, tf.d_in2, n, CUPRIM_F32, CUPRIM_F32, &b, &g.ref[0]);
}

static void counting_cases(cuprim_ctx *ctx) {
  const struct {
    uint32_t nb;
    uint64_t n;
  } cases[] = {{256, 1000003}, {65536, 65537}};
  for (size_t k = 0; k < 2; ++k) {
    w_call calls[MAX_CALLS];
    tf_result res[MAX_CALLS];
    const uint64_t seed = tf_case_seed(0xA11C, cases[k].nb, cases[k].n, 0);
    const int count = allocator_case(calls, cases[k].nb, tf.quick ? 65537 : cases[k].n, seed);
    const tf_case cs = {"uniform, counting allocator", seed, 0};
    tf_run_and_check(&ops, ctx, calls, count, tf.stream, &cs, res);
  }
}

TF_COUNTING_ALLOCATOR_TEST(counting_cases, "FIXED_ORDER sums blocks' partials in temporary memory")

static void failing_cases(cuprim_ctx *ctx) {
  w_call calls[MAX_CALLS];
  tf_result res[MAX_CALLS];
  int must_fail[MAX_CALLS];
  const uint64_t seed = tf_case_seed(0xFA11, 256, 1000003, 0);
  const int count = allocator_case(calls, 256, tf.quick ? 65537 : 1000003, seed);
  for (int i = 0; i < count; ++i)
    must_fail[i] = calls[i].alg == FIXED; /* more than one block: partials in memory */
  const tf_case cs = {"uniform, failing allocator", seed, 0};
  tf_run_out_of_memory(&ops, ctx, calls, count, res, must_fail, &cs);
}

TF_FAILING_ALLOCATOR_TEST(failing_cases)

TF_MAIN(&config)
