/* cuprim_histogram_even_multi on a GPU, against the plain C reference of test_histogram_ref.h run
 * on each channel's samples (taken out of the interleaved input), so counts are compared exactly,
 * bin for bin, channel by channel.
 *
 * Every sample dtype x channel layouts (1 to 4 channels, all or some active, each channel with its
 * own bin count, range kind and data kind: uniform, one bin only, out of range, NaN and
 * infinities, exactly on bin edges) x sizes that cross the kernels' boundaries (a pixel group, the
 * one-block limit of 64 KB of 8-bit samples, tiles); bins past shared memory (65536 a channel,
 * 2^20); no pixels (zeros over garbage); misaligned samples, including offsets where no pixel lies
 * on a 16-byte boundary (every pixel then read element by element), and misaligned counts; the
 * legacy, per-thread and non-blocking streams and two streams at once; CUDA graph capture and
 * replay; argument errors with a real context; and 2^30 + 5 RGBA u8 pixels (past 2^32 bytes,
 * filled on the device by a formula of the index; the host counts one period).
 *
 * The counts of every channel of a call lie end to end in one output slot (inactive channels
 * too), between guards: active channels must hold their exact counts, inactive ones must be left
 * as the poison, guards untouched. Quick mode (CUPRIM_TEST_QUICK=1): fewer sizes and layouts, no
 * input past 2^32. Environment and skipping as test_histogram_gpu.c. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostref_histogram.h"
#include "test_device_fill.h"
#include "test_fixture_gpu.h"

#define MAX_CALLS 16
#define MAX_CH 4
#define MAX_BINS (1u << 20)
#define IN_CAP_BYTES ((size_t)80 << 20) /* interleaved samples (and room for offsets) */
#define OUT_CAP_BYTES ((size_t)48 << 20)
#define OUT2_CAP_BYTES ((size_t)16 << 20)
#define WANT_SETS 2 /* references of two calls at once (two streams) */

static struct {
  uint64_t *want;        /* WANT_SETS x MAX_CH x MAX_BINS counts */
  unsigned char *column; /* one channel's samples, contiguous: IN_CAP_BYTES */
} g;

static void setup(void) {
  g.want = (uint64_t *)malloc((size_t)WANT_SETS * MAX_CH * MAX_BINS * sizeof *g.want);
  g.column = (unsigned char *)malloc(IN_CAP_BYTES);
  if (!g.want || !g.column)
    tf_cuda_failed(cudaErrorMemoryAllocation, "malloc of the host references", __FILE__, __LINE__,
                   &tf.setup);
}

static void teardown(void) {
  free(g.want);
  free(g.column);
}

static const tf_config config = {.in_bytes = IN_CAP_BYTES,
                                 .in2_bytes = IN_CAP_BYTES / 4,
                                 .h_in2_bytes = IN_CAP_BYTES / 4,
                                 .out_bytes = OUT_CAP_BYTES,
                                 .out2_bytes = OUT2_CAP_BYTES,
                                 .setup = setup,
                                 .teardown = teardown};

static uint64_t *want_of(int set, int c) {
  return g.want + ((size_t)set * MAX_CH + (size_t)c) * MAX_BINS;
}

/* ---------------------------------------------------------------- calls */

typedef struct multi_call {
  const unsigned char *d_samples;
  unsigned in_offset;  /* elements past an aligned address (messages) */
  unsigned out_offset; /* counts the output lies past its slot's aligned start */
  int garbage;         /* the byte the counts hold before the call (-1: the poison) */
  uint64_t pixels;
  int channels, active;
  cuprim_dtype dtype;
  uint32_t bins[MAX_CH];
  double lower[MAX_CH], upper[MAX_CH];
  const uint64_t *want[MAX_CH]; /* active channels' references (host) */
} multi_call;

/* Channel c's counts in the output: after the counts of the channels before it. */
static size_t channel_at(const multi_call *m, int c) {
  size_t at = 0;
  for (int k = 0; k < c; ++k)
    at += (size_t)m->bins[k] * sizeof(uint64_t);
  return at;
}

static void describe(char *buf, size_t len, const void *p, const char *data, uint64_t seed) {
  const multi_call *m = (const multi_call *)p;
  char ch[256] = "";
  size_t used = 0;
  for (int c = 0; c < m->channels && used < sizeof ch; ++c)
    used +=
        (size_t)snprintf(ch + used, sizeof ch - used, " [%d: %" PRIu32 " bins [%.17g, %.17g)%s]", c,
                         m->bins[c], m->lower[c], m->upper[c], c < m->active ? "" : " off");
  snprintf(buf, len,
           "cuprim_histogram_even_multi %s pixels=%" PRIu64
           " channels=%d active=%d%s (d_samples+%u "
           "d_counts+%u) data=%s seed=0x%016" PRIx64,
           hr_dtype_name(m->dtype), m->pixels, m->channels, m->active, ch, m->in_offset,
           m->out_offset, data, seed);
}

static void call_output(const void *p, size_t *bytes, size_t *misalign) {
  const multi_call *m = (const multi_call *)p;
  *bytes = channel_at(m, m->channels);
  *misalign = (size_t)m->out_offset * sizeof(uint64_t);
}

static cuprim_status call_multi(cuprim_ctx *ctx, const multi_call *m, unsigned char *d_out,
                                cudaStream_t stream) {
  uint64_t *counts[MAX_CH] = {NULL, NULL, NULL, NULL};
  for (int c = 0; c < m->channels; ++c)
    counts[c] = (uint64_t *)(void *)(d_out + channel_at(m, c));
  return cuprim_histogram_even_multi(ctx, m->d_samples, m->pixels, m->channels, m->active, m->dtype,
                                     counts, m->bins, m->lower, m->upper, stream);
}

static cuprim_status issue(cuprim_ctx *ctx, const void *p, void *d_out, cudaStream_t stream) {
  const multi_call *m = (const multi_call *)p;
  tf_fill_garbage(d_out, m->garbage, channel_at(m, m->channels), stream);
  return call_multi(ctx, m, (unsigned char *)d_out, stream);
}

/* Active channels: every bin exact. Inactive ones: still the poison (or the call's garbage). */
static int check(const tf_region *rg, const void *p, tf_result *r, const tf_case *cs,
                 const char *what) {
  const multi_call *m = (const multi_call *)p;
  const unsigned char *out = tf_slot_host(rg, &r->slot);
  const int fill = tf_garbage_byte(m->garbage);
  int ok = 1;
  char why[1024];
  (void)cs;
  for (int c = 0; c < m->channels; ++c) {
    const unsigned char *got = out + channel_at(m, c);
    if (c >= m->active) {
      const size_t bytes = (size_t)m->bins[c] * sizeof(uint64_t);
      const size_t k = tu_pattern_mismatch(got, bytes, (unsigned char)fill);
      if (k != bytes) {
        tf_failure("%s: inactive channel %d written (byte %zu)", what, c, k);
        ok = 0;
      }
      continue;
    }
    uint64_t first = 0;
    if (hr_hist_check(m->want[c], (const uint64_t *)(const void *)got, m->bins[c], m->pixels, fill,
                      &first, why, sizeof why)) {
      tf_failure("%s: channel %d: %s", what, c, why);
      ok = 0;
    }
  }
  return ok;
}

static const tf_call_ops ops = {sizeof(multi_call), "d_counts", call_output, issue,
                                describe,           check,      NULL};

/* ---------------------------------------------------------------- data */

/* A layout of channels: `channels` of them, the first `active` counted, each with its bins. */
typedef struct layout {
  int channels, active;
  uint32_t bins[MAX_CH];
} layout;

/* Fills h (interleaved, pixels x channels of t) channel by channel: channel c gets data kind
 * kinds[c] for its bins (even, span spans[c]); the inactive channels get uniform data over their
 * own range. Computes the active channels' references into want_of(set, c) and sets up the call
 * (samples at d_samples). */
static multi_call make_call(const layout *lay, cuprim_dtype t, uint64_t pixels,
                            const hr_hist_span *spans, const hr_hist_data *kinds, uint64_t seed,
                            unsigned char *h, const unsigned char *d_samples, int set) {
  multi_call m;
  memset(&m, 0, sizeof m);
  m.d_samples = d_samples;
  m.garbage = -1;
  m.pixels = pixels;
  m.channels = lay->channels;
  m.active = lay->active;
  m.dtype = t;
  const size_t size = cuprim_dtype_size(t);
  for (int c = 0; c < lay->channels; ++c) {
    m.bins[c] = lay->bins[c];
    hr_hist_span_range(t, m.bins[c], spans[c], &m.lower[c], &m.upper[c]);
    const hr_hist_bins b = hr_hist_bins_even(m.bins[c], m.lower[c], m.upper[c]);
    hr_hist_data d = c < lay->active ? kinds[c] : HR_HIST_UNIFORM;
    if (!hr_hist_data_applies(t, d))
      d = HR_HIST_EDGES;
    hr_hist_fill(&b, t, d, hr_mix(seed, (uint64_t)c), g.column, pixels);
    for (uint64_t p = 0; p < pixels; ++p)
      memcpy(h + (p * (uint64_t)lay->channels + (uint64_t)c) * size, g.column + p * size, size);
    if (c < lay->active) {
      hr_hist_reference(&b, t, g.column, pixels, want_of(set, c));
      m.want[c] = want_of(set, c);
    }
  }
  return m;
}

/* The layouts of the sweep: every channel count, all and some active, equal and unequal bins
 * (1, 2, 255, 256, 257, 4096, 4097), and one channel of 65536 bins among small ones. */
static const layout layouts_full[] = {{1, 1, {256}},
                                      {1, 1, {4097}},
                                      {2, 2, {257, 3}},
                                      {2, 1, {256, 16}},
                                      {3, 3, {256, 256, 256}},
                                      {3, 2, {7, 4096, 5}},
                                      {3, 1, {1, 9, 9}},
                                      {4, 4, {256, 256, 256, 256}},
                                      {4, 3, {256, 256, 256, 256}},
                                      {4, 4, {1, 2, 255, 4097}},
                                      {4, 2, {65536, 100, 3, 3}},
                                      {4, 1, {256, 1, 1, 1}}};
static const layout layouts_quick[] = {{1, 1, {256}},
                                       {2, 1, {256, 16}},
                                       {3, 3, {7, 4096, 5}},
                                       {4, 4, {256, 256, 256, 256}},
                                       {4, 3, {1, 2, 65536, 3}}};

/* Pixel counts that cross the kernels' boundaries: a few pixels (head and tail only), a pixel
 * group and one past it, the one-block limit of 8-bit samples (65536 bytes: 16384 RGBA pixels,
 * 65536 one-channel ones), tiles, primes, 2^22 + 1. */
static const uint64_t sizes_full[] = {1,     2,     3,     5,      15,     16,      17,
                                      33,    255,   1000,  4097,   16383,  16384,   16385,
                                      21846, 65536, 65537, 100003, 262147, 1000003, (1u << 22) + 1};
static const uint64_t sizes_quick[] = {1, 5, 17, 1000, 16385, 65537};

/* Runs calls[0..count) and checks them. */
static void run_calls(multi_call *calls, int count, cudaStream_t stream, const char *data,
                      uint64_t seed) {
  tf_result res[MAX_CALLS];
  const tf_case cs = {data, seed, 0};
  tf_run_and_check(&ops, tf.ctx, calls, count, stream, &cs, res);
}

/* ---------------------------------------------------------------- errors with a device */

/* A call of test_errors_with_device's table: the arguments of cuprim_histogram_even_multi that
 * its cases vary (the lower bounds are always 0), and the status it must return. */
typedef struct error_case {
  const char *what;
  cuprim_ctx *ctx;
  const void *samples;
  uint64_t pixels;
  int channels, active;
  cuprim_dtype dtype;
  uint64_t *const *counts;
  const uint32_t *bins;
  const double *upper;
  cuprim_status want;
} error_case;

/* Invalid calls return before any CUDA work with a real context: nothing written. */
TF_TEST(test_errors_with_device) {
  uint64_t *out = (uint64_t *)(void *)tf_poison_inputs(4096, 8192);
  uint64_t *counts[4] = {out, out + 16, out + 32, out + 48};
  uint64_t *overlap[4] = {out, out + 8, out + 32, out + 48};
  uint64_t *in_samples[4] = {out, out + 16, (uint64_t *)(void *)(tf.d_in + 64), out + 48};
  const uint32_t bins[4] = {16, 16, 16, 16}, zero_bins[4] = {16, 0, 16, 16};
  const double lo[4] = {0, 0, 0, 0}, hi[4] = {256, 256, 256, 256}, nan_hi[4] = {256, NAN, 256, 256};
  cuprim_ctx *ctx = tf.ctx;
  const unsigned char *in = tf.d_in;
  const cuprim_dtype U8 = CUPRIM_U8, F32 = CUPRIM_F32;
  const cuprim_status INVALID = CUPRIM_ERROR_INVALID_ARGUMENT;
  const error_case cases[] = {
      {"NULL ctx", NULL, in, 10, 4, 4, U8, counts, bins, hi, INVALID},
      {"channels 5", ctx, in, 10, 5, 4, U8, counts, bins, hi, INVALID},
      {"active 0", ctx, in, 10, 4, 0, U8, counts, bins, hi, INVALID},
      {"channel 1: 0 bins", ctx, in, 10, 4, 4, U8, counts, zero_bins, hi, INVALID},
      {"channel 1: upper NaN", ctx, in, 10, 4, 4, F32, counts, bins, nan_hi, INVALID},
      {"channels 0 and 1 overlap", ctx, in, 10, 4, 4, U8, overlap, bins, hi, INVALID},
      {"channel 2 inside the samples", ctx, in, 100, 4, 4, U8, in_samples, bins, hi, INVALID},
      {"F32 samples + 1 byte", ctx, tf.d_in + 1, 10, 4, 4, F32, counts, bins, hi, INVALID},
      {"NULL samples, 10 pixels", ctx, NULL, 10, 4, 4, U8, counts, bins, hi, INVALID},
  };
  tf_status_case got[sizeof cases / sizeof cases[0]];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    const error_case *c = &cases[i];
    got[i] = (tf_status_case){
        c->what,
        cuprim_histogram_even_multi(c->ctx, c->samples, c->pixels, c->channels, c->active, c->dtype,
                                    c->counts, c->bins, lo, c->upper, tf.stream),
        c->want};
  }
  TF_CHECK_ARGUMENT_ERRORS(got);
}

/* ---------------------------------------------------------------- no pixels */

/* num_pixels == 0 writes zeros into every active channel over garbage (poison or 0xFF), with
 * d_samples NULL or not, and leaves inactive channels alone: every channel count with every
 * number of active channels, a dtype each (hr_all_dtypes in turn). */
TF_TEST(test_empty_input) {
  static uint64_t zeros[65536];
  multi_call calls[MAX_CALLS];
  int count = 0;
  for (int ch = 1; ch <= MAX_CH; ++ch)
    for (int act = 1; act <= ch; ++act) {
      multi_call m;
      memset(&m, 0, sizeof m);
      m.d_samples = (ch + act) % 2 ? NULL : tf.d_in;
      m.garbage = act == 1 ? 0xFF : -1;
      m.channels = ch;
      m.active = act;
      m.dtype = hr_all_dtypes[count % HR_NUM_DTYPES];
      for (int c = 0; c < ch; ++c) {
        m.bins[c] = c == 1 ? 65536 : 257;
        hr_hist_span_range(m.dtype, m.bins[c], HR_HIST_ODD, &m.lower[c], &m.upper[c]);
        m.want[c] = zeros;
      }
      calls[count++] = m;
    }
  run_calls(calls, count, tf.stream, "no pixels", 0);
  tf_check_no_recorded_error("after calls with no pixels");
}

/* ---------------------------------------------------------------- the sweep */

/* Every layout x size for one dtype; per channel a rotating span and data kind. */
static void sweep(cuprim_dtype t) {
  const double t0 = tf_now_s();
  const size_t size = cuprim_dtype_size(t);
  size_t nl = 0, ns = 0;
  const layout *lays = tf.quick ? layouts_quick : layouts_full;
  nl = tf.quick ? sizeof layouts_quick / sizeof layouts_quick[0]
                : sizeof layouts_full / sizeof layouts_full[0];
  const uint64_t *sizes = TF_PICK(sizes_full, sizes_quick, &ns);
  unsigned long cases = 0;
  for (size_t li = 0; li < nl; ++li)
    for (size_t k = 0; k < ns; ++k) {
      const layout *lay = &lays[li];
      const uint64_t pixels = sizes[k];
      if (pixels * (uint64_t)lay->channels * size > IN_CAP_BYTES / 2)
        continue;
      int big = 0;
      for (int c = 0; c < lay->channels; ++c)
        big |= lay->bins[c] > 4097;
      if (big && pixels > 65537 && pixels != 1000003)
        continue; /* layouts with a large channel: fewer sizes */
      hr_hist_span spans[MAX_CH];
      hr_hist_data kinds[MAX_CH];
      for (int c = 0; c < MAX_CH; ++c) {
        spans[c] = (hr_hist_span)((c + k + li) % HR_HIST_SPANS);
        /* sizes above 2^20: uniform data only (the other kinds are about values) */
        kinds[c] = pixels > (1u << 20) ? HR_HIST_UNIFORM
                                       : (hr_hist_data)((c + k + 2 * li) % HR_HIST_DATA_KINDS);
      }
      const uint64_t seed = tf_case_seed(t, li, pixels, 0x3C);
      multi_call calls[1];
      calls[0] = make_call(lay, t, pixels, spans, kinds, seed, tf.h_in, tf.d_in, 0);
      tf_upload(tf.d_in, tf.h_in, pixels * (uint64_t)lay->channels * size, tf.stream);
      char data[128];
      snprintf(data, sizeof data, "per channel: %s %s, %s %s, ...", hr_hist_data_name(kinds[0]),
               hr_hist_span_name(spans[0]), hr_hist_data_name(kinds[1]),
               hr_hist_span_name(spans[1]));
      run_calls(calls, 1, tf.stream, data, seed);
      ++cases;
    }
  print_message("%s: %lu cases, %.1f s\n", hr_dtype_name(t), cases, tf_now_s() - t0);
}

TF_SWEEP_TESTS_ALL(sweep)

/* ---------------------------------------------------------------- every sample in one bin */

/* Every sample of every channel equal (the worst case for atomics on one counter), and all
 * different inside one bin, at 2^20 + 3 RGBA pixels (quick: 2^15 + 3): 8-bit samples (the byte
 * columns), u16 in 65536 bins a channel (global atomics), f32 in 256. */
TF_TEST(test_one_bin) {
  const uint64_t pixels = tf.quick ? (1u << 15) + 3 : (1u << 20) + 3;
  const struct {
    cuprim_dtype t;
    uint32_t bins;
  } cases[] = {{CUPRIM_U8, 256}, {CUPRIM_I8, 3}, {CUPRIM_U16, 65536}, {CUPRIM_F32, 256}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    for (int equal = 0; equal < 2; ++equal) {
      const cuprim_dtype t = cases[i].t;
      const size_t size = cuprim_dtype_size(t);
      const layout lay = {4, 4, {cases[i].bins, cases[i].bins, cases[i].bins, cases[i].bins}};
      const hr_hist_span spans[MAX_CH] = {HR_HIST_FULL, HR_HIST_ODD, HR_HIST_EXACT, HR_HIST_ODD};
      const hr_hist_data kinds[MAX_CH] = {HR_HIST_ONE_BIN, HR_HIST_ONE_BIN, HR_HIST_ONE_BIN,
                                          HR_HIST_ONE_BIN};
      const uint64_t seed = tf_case_seed(0x0B1, t, (uint64_t)equal, pixels);
      multi_call calls[1];
      calls[0] = make_call(&lay, t, equal ? 1 : pixels, spans, kinds, seed, tf.h_in, tf.d_in, 0);
      if (equal) { /* pixel 0 repeated, and the references scaled */
        for (uint64_t p = 1; p < pixels; ++p)
          memcpy(tf.h_in + p * 4 * size, tf.h_in, 4 * size);
        for (int c = 0; c < 4; ++c)
          for (uint32_t b = 0; b < lay.bins[c]; ++b)
            want_of(0, c)[b] *= pixels;
        calls[0].pixels = pixels;
      }
      tf_upload(tf.d_in, tf.h_in, pixels * 4 * size, tf.stream);
      run_calls(calls, 1, tf.stream, equal ? "one bin, all equal" : "one bin, varied", seed);
    }
}

/* ---------------------------------------------------------------- bins past shared memory */

/* Channels whose bins together do not fit in shared memory: 4 x 65536 (1 MB of counters) for
 * 8-bit samples (folded by a grid through the zeroed outputs), u16 (global atomics) and f64; and
 * one channel of 2^20 bins beside a small one. */
TF_TEST(test_large_bins) {
  const uint64_t sizes[] = {33, 4097, 65537, 1000003};
  const size_t ns = tf.quick ? 3 : 4;
  const struct {
    cuprim_dtype t;
    layout lay;
  } cases[] = {{CUPRIM_U8, {4, 4, {65536, 65536, 65536, 65536}}},
               {CUPRIM_U16, {4, 4, {65536, 65536, 65536, 65536}}},
               {CUPRIM_F64, {4, 3, {65536, 65536, 65536, 1}}},
               {CUPRIM_F32, {2, 2, {1u << 20, 16}}},
               {CUPRIM_I8, {3, 2, {1u << 20, 7, 7}}}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    for (size_t k = 0; k < ns; ++k) {
      const cuprim_dtype t = cases[i].t;
      const layout *lay = &cases[i].lay;
      const hr_hist_span spans[MAX_CH] = {HR_HIST_EXACT, HR_HIST_ODD, HR_HIST_FULL, HR_HIST_EXACT};
      const hr_hist_data kinds[MAX_CH] = {HR_HIST_UNIFORM, HR_HIST_EDGES, HR_HIST_OUT_OF_RANGE,
                                          HR_HIST_UNIFORM};
      const uint64_t seed = tf_case_seed(0xB16, t, i, sizes[k]);
      multi_call calls[1];
      calls[0] = make_call(lay, t, sizes[k], spans, kinds, seed, tf.h_in, tf.d_in, 0);
      tf_upload(tf.d_in, tf.h_in, sizes[k] * (uint64_t)lay->channels * cuprim_dtype_size(t),
                tf.stream);
      run_calls(calls, 1, tf.stream, "large bins", seed);
    }
}

/* ---------------------------------------------------------------- misaligned */

/* Samples element-aligned only: d_samples + k elements, k = 1, 2, 3, 5 (for RGBA u8 every odd k
 * leaves no pixel on a 16-byte boundary: the element-by-element path; for RGB f64 k = 1 starts
 * the groups at pixel 1), with 3 and 4 channels, sizes below and above a group; and the counts
 * one element past their slot's aligned start (8-byte aligned, not 16). */
TF_TEST(test_misaligned) {
  const cuprim_dtype dtypes[] = {CUPRIM_U8, CUPRIM_I16, CUPRIM_F32, CUPRIM_F64};
  const uint64_t sizes_f[] = {1, 7, 33, 16385, 100003};
  const uint64_t sizes_q[] = {1, 33, 16385};
  size_t ns = 0;
  const uint64_t *sizes = TF_PICK(sizes_f, sizes_q, &ns);
  const unsigned offsets[] = {1, 2, 3, 5};
  for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; ++d)
    for (int ch = 3; ch <= 4; ++ch)
      for (size_t k = 0; k < ns; ++k) {
        const cuprim_dtype t = dtypes[d];
        const size_t size = cuprim_dtype_size(t);
        const layout lay = {ch, 3, {256, 257, 4096, 16}}; /* RGBA: 3 of 4 active */
        const hr_hist_span spans[MAX_CH] = {HR_HIST_FULL, HR_HIST_ODD, HR_HIST_EXACT, HR_HIST_ODD};
        const hr_hist_data kinds[MAX_CH] = {HR_HIST_UNIFORM, HR_HIST_OUT_OF_RANGE, HR_HIST_EDGES,
                                            HR_HIST_UNIFORM};
        const uint64_t seed = tf_case_seed(0x3A1, t, (uint64_t)ch, sizes[k]);
        const multi_call base =
            make_call(&lay, t, sizes[k], spans, kinds, seed, tf.h_in, tf.d_in, 0);
        multi_call calls[MAX_CALLS];
        int count = 0;
        for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; ++o) {
          unsigned char *din = tf.d_in + (size_t)o * (IN_CAP_BYTES / 8) + offsets[o] * size;
          tf_upload(din, tf.h_in, sizes[k] * (uint64_t)ch * size, tf.stream);
          multi_call m = base;
          m.d_samples = din;
          m.in_offset = offsets[o];
          m.out_offset = (unsigned)(o % 2);
          calls[count++] = m;
        }
        run_calls(calls, count, tf.stream, "misaligned", seed);
      }
}

/* ---------------------------------------------------------------- streams and graphs */

/* The legacy and per-thread default streams; then two non-blocking streams in flight at once on
 * one context (u8 RGBA on one, f32 RGB on the other). */
TF_TEST(test_streams) {
  const layout lay = {4, 4, {256, 256, 256, 256}};
  const hr_hist_span spans[MAX_CH] = {HR_HIST_FULL, HR_HIST_ODD, HR_HIST_EXACT, HR_HIST_FULL};
  const hr_hist_data kinds[MAX_CH] = {HR_HIST_UNIFORM, HR_HIST_UNIFORM, HR_HIST_EDGES,
                                      HR_HIST_OUT_OF_RANGE};
  const uint64_t pixels = tf.quick ? 65537 : (1u << 20) + 1;
  for (int si = 0; si < TF_DEFAULT_STREAMS; ++si) {
    const uint64_t seed = tf_case_seed(0x57E, (uint64_t)si, pixels, 0);
    multi_call calls[1];
    calls[0] = make_call(&lay, CUPRIM_U8, pixels, spans, kinds, seed, tf.h_in, tf.d_in, 0);
    tf_upload(tf.d_in, tf.h_in, pixels * 4, tf_default_stream[si]);
    run_calls(calls, 1, tf_default_stream[si], tf_default_stream_name[si], seed);
  }
  cudaStream_t other = tf_new_stream();
  const layout lay_b = {3, 3, {4096, 7, 256}};
  for (int round = 0; round < (tf.quick ? 1 : 3); ++round) {
    const uint64_t seed_a = tf_case_seed(0xC0C, 1, (uint64_t)round, pixels);
    const uint64_t seed_b = tf_case_seed(0xC0C, 2, (uint64_t)round, pixels);
    const uint64_t pixels_b = pixels / 4;
    multi_call a[1], b[1];
    a[0] = make_call(&lay, CUPRIM_U8, pixels, spans, kinds, seed_a, tf.h_in, tf.d_in, 0);
    b[0] = make_call(&lay_b, CUPRIM_F32, pixels_b, spans, kinds, seed_b, tf.h_in2, tf.d_in2, 1);
    tf_upload(tf.d_in, tf.h_in, pixels * 4, tf.stream);
    tf_upload(tf.d_in2, tf.h_in2, pixels_b * 3 * 4, other);
    tf_run_stream_pair(&ops, 1, a, "u8 RGBA", seed_a, b, "f32 RGB", seed_b, other);
  }
  TF_CUDA(cudaStreamDestroy(other));
}

/* The graph rounds' data: new samples each round into the calls' input (read at replay). */
static struct {
  layout lay_u8, lay_f32;
  uint64_t pixels_u8, pixels_f32;
  unsigned char *d_f32;
} g_graph;

static void graph_round(void *p, int count, int round, uint64_t seed, char *data, size_t len) {
  multi_call *calls = (multi_call *)p;
  (void)count;
  const hr_hist_span spans[MAX_CH] = {HR_HIST_ODD, HR_HIST_FULL, HR_HIST_EXACT, HR_HIST_ODD};
  const hr_hist_data kinds[MAX_CH] = {round ? HR_HIST_EDGES : HR_HIST_UNIFORM, HR_HIST_UNIFORM,
                                      HR_HIST_OUT_OF_RANGE, HR_HIST_UNIFORM};
  const hr_hist_data kinds_f[MAX_CH] = {HR_HIST_NAN, HR_HIST_UNIFORM, HR_HIST_ONE_BIN,
                                        HR_HIST_UNIFORM};
  /* calls 0 and 1: u8 RGBA (4 and 3 active) on the same samples; call 2: f32 RGB */
  const multi_call a = make_call(&g_graph.lay_u8, CUPRIM_U8, g_graph.pixels_u8, spans, kinds, seed,
                                 tf.h_in, tf.d_in, 0);
  tf_upload(tf.d_in, tf.h_in, g_graph.pixels_u8 * 4, tf.stream);
  const multi_call c = make_call(&g_graph.lay_f32, CUPRIM_F32, g_graph.pixels_f32, spans, kinds_f,
                                 hr_mix(seed, 7), tf.h_in2, g_graph.d_f32, 1);
  tf_upload(g_graph.d_f32, tf.h_in2, g_graph.pixels_f32 * 3 * 4, tf.stream);
  /* The calls keep what was captured (pointers, sizes, bins); only the references change. */
  for (int k = 0; k < 4; ++k) {
    calls[0].want[k] = a.want[k];
    calls[1].want[k] = k < 3 ? a.want[k] : NULL;
    calls[2].want[k] = c.want[k];
  }
  snprintf(data, len, "graph replay %d", round);
}

/* Three calls captured into one graph (capture runs nothing), replayed on new data twice and on
 * the same data once more: the same counts. */
TF_TEST(test_graph_capture) {
  g_graph.lay_u8 = (layout){4, 4, {256, 256, 7, 4096}};
  g_graph.lay_f32 = (layout){3, 3, {4096, 1, 300}};
  g_graph.pixels_u8 = tf.quick ? 65537 : (1u << 20) + 7;
  g_graph.pixels_f32 = tf.quick ? 4097 : 100003;
  g_graph.d_f32 = tf.d_in2;
  const hr_hist_span spans[MAX_CH] = {HR_HIST_ODD, HR_HIST_FULL, HR_HIST_EXACT, HR_HIST_ODD};
  const hr_hist_data kinds[MAX_CH] = {HR_HIST_UNIFORM, HR_HIST_UNIFORM, HR_HIST_UNIFORM,
                                      HR_HIST_UNIFORM};
  multi_call calls[3];
  calls[0] = make_call(&g_graph.lay_u8, CUPRIM_U8, g_graph.pixels_u8, spans, kinds, 1, tf.h_in,
                       tf.d_in, 0);
  calls[1] = calls[0];
  calls[1].active = 3;
  calls[2] = make_call(&g_graph.lay_f32, CUPRIM_F32, g_graph.pixels_f32, spans, kinds, 2, tf.h_in2,
                       g_graph.d_f32, 1);
  tf_graph_rounds(&ops, calls, 3, g_graph.pixels_u8, graph_round);
}

/* ---------------------------------------------------------------- past 2^32 bytes */

/* 2^30 + 5 RGBA u8 pixels (2^32 + 20 bytes) starting 4 bytes past an allocation, filled on the
 * device by tu_fill_u8_formula (a function of the element index mod 65537): channel c of pixel p
 * is f((4p + c) mod 65537), which repeats every 65537 pixels, so the host counts one period per
 * channel and multiplies. 4 of 4 active (256 bins) and 3 of 4 (7 bins over an irregular range,
 * 256, 1). An index cut to 32 bits reads other values and moves counts between bins. */
TU_TEST(test_large_input) {
  (void)state;
  const uint64_t pixels = (1ull << 30) + 5, bytes = pixels * 4;
  tf_begin_large("past 2^32 bytes", (size_t)5 << 30);
  const double t0 = tf_now_s();
  cuprim_ctx *ctx = tf_context(NULL);
  unsigned char *d_buf = NULL;
  TF_CUDA(cudaMalloc((void **)&d_buf, bytes + 16));
  TF_CUDA(tu_device_fill_u8(d_buf, bytes + 4, tf.stream));
  static unsigned char h_slot[2 * TF_GUARD_BYTES + 4 * 256 * sizeof(uint64_t)];
  tf_region rg = {NULL, h_slot, sizeof h_slot};
  TF_CUDA(cudaMalloc((void **)&rg.d, rg.cap));
  const layout lays[2] = {{4, 4, {256, 256, 256, 256}}, {4, 3, {7, 256, 1, 256}}};
  static uint8_t column[TU_FILL_U8_PERIOD];
  static uint64_t want[4][256], part[256];
  const uint64_t q = pixels / TU_FILL_U8_PERIOD, r = pixels % TU_FILL_U8_PERIOD;
  for (int li = 0; li < 2; ++li) {
    multi_call m;
    memset(&m, 0, sizeof m);
    m.d_samples = d_buf + 4;
    m.in_offset = 4;
    m.garbage = -1;
    m.pixels = pixels;
    m.channels = 4;
    m.active = lays[li].active;
    m.dtype = CUPRIM_U8;
    for (int c = 0; c < 4; ++c) {
      m.bins[c] = lays[li].bins[c];
      m.lower[c] = li && c == 0 ? 10.5 : 0.0;
      m.upper[c] = li && c == 0 ? 200.25 : 256.0;
      /* the samples start at element 4 of the fill: channel c of pixel p is element 4 + 4p + c */
      for (uint32_t p = 0; p < TU_FILL_U8_PERIOD; ++p)
        column[p] = tu_fill_u8_formula(4 + 4 * (uint64_t)p + (uint64_t)c);
      const hr_hist_bins b = hr_hist_bins_even(m.bins[c], m.lower[c], m.upper[c]);
      hr_hist_reference(&b, CUPRIM_U8, column, TU_FILL_U8_PERIOD, want[c]);
      hr_hist_reference(&b, CUPRIM_U8, column, r, part);
      for (uint32_t k = 0; k < m.bins[c]; ++k)
        want[c][k] = want[c][k] * q + part[k];
      m.want[c] = want[c];
    }
    char what[768];
    describe(what, sizeof what, &m, "tu_fill_u8_formula", 0);
    tf_result res;
    res.slot = tf_slot_at(0, channel_at(&m, 4), 0);
    tf_poison(&rg, res.slot.span, tf.stream);
    const double c0 = tf_now_s();
    res.st = call_multi(ctx, &m, (unsigned char *)tf_slot_device(&rg, &res.slot), tf.stream);
    tf_finish(tf.stream);
    print_message("past 2^32 bytes: %d of 4 active: %.3f s\n", m.active, tf_now_s() - c0);
    TF_CUDA(cudaMemcpy(rg.h, rg.d, res.slot.span, cudaMemcpyDeviceToHost));
    const tf_case cs = {"tu_fill_u8_formula", 0, 0};
    tf_check(&ops, &rg, &m, &res, &cs);
  }
  TF_CUDA(cudaFree(d_buf));
  TF_CUDA(cudaFree(rg.d));
  assert_int_equal(cuprim_ctx_destroy(ctx), CUPRIM_SUCCESS);
  print_message("past 2^32 bytes: %.1f s in all\n", tf_now_s() - t0);
  tf_end();
}

TF_MAIN(&config)
