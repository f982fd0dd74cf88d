/* cuprim_scan and cuprim_scan_ex on a GPU, against a plain C reference on the host.
 *
 * Every algorithm x dtype x op x kind x size x data, in place and out of place; n == 0; NaN and
 * infinities; misaligned pointers; the legacy, per-thread and non-blocking streams; two streams
 * sharing a context; CUDA graph capture and replay; determinism; AUTO's two kernels (one block,
 * decoupled look-back) forced through the internal entry point; a stress test of the look-back
 * kernel (many runs of one large input, every element compared each time: a race shows up as a
 * rare wrong element); user allocators (counting, and one that always fails); argument errors
 * with a real context; and an input past 2^31 elements.
 *
 * Each output lies in a slot of device memory with 256 guard bytes on either side (the fixture's
 * slots, test_fixture_gpu.h): the slot is poisoned before each call, the guards must come back
 * untouched and every output element must hold its expected value (one still holding the poison
 * is reported as never written). One call's failure does not stop the test: failures are counted
 * and printed with the algorithm, dtype, op, kind, n, in place or not, data kind and seed, the
 * number of wrong elements and the first one (expected vs got); the test fails at its end.
 *
 * Environment: CUPRIM_TEST_SEED (the base seed, printed at start), CUPRIM_TEST_QUICK=1 (for
 * compute-sanitizer: sizes up to ~2^17, fewer algorithms per op, random and exact data only,
 * a few stress runs, no input past 2^31). Without a CUDA device every test prints why and skips;
 * the program then exits with 77 (CTest: skipped). */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostref_scan.h"
#include "scan/scan_internal.h" /* cuprim__scan_lookback: AUTO with a chosen kernel */
#include "test_device_fill.h"
#include "test_fixture_gpu.h"

/* ---------------------------------------------------------------- buffers */

#define NUM_ALGS 5           /* CUPRIM_SCAN_AUTO .. CUPRIM_SCAN_DECOUPLED_LOOKBACK */
#define MAX_CALLS 64         /* calls per run_and_check */
#define SWEEP_MAX (1u << 21) /* sizes above this: random data only, fewer in-place calls */
/* Input capacity: the largest host-filled input (2^24 + 2*4096 + 3 four-byte elements in the
 * sweep, 2^24 + 5 in the stress test) plus room for offsets. */
#define IN_CAP_BYTES ((size_t)72 << 20)
/* Output regions: slots of calls enqueued together (two of the largest inputs at least). */
#define OUT_CAP_BYTES ((size_t)160 << 20)
#define OUT2_CAP_BYTES ((size_t)80 << 20)

static hr_scan_ref g_ref, g_ref2; /* references, their memory reused from case to case */

static const tf_config config = {.in_bytes = IN_CAP_BYTES,
                                 .in2_bytes = IN_CAP_BYTES,
                                 .out_bytes = OUT_CAP_BYTES,
                                 .out2_bytes = OUT2_CAP_BYTES,
                                 .scan_refs = {&g_ref, &g_ref2}};

/* ---------------------------------------------------------------- calls */

#define SHORTHAND (-1) /* call.alg: cuprim_scan instead of cuprim_scan_ex */
#define TUNED (-2)     /* call.alg: cuprim__scan_lookback with call.tune */

typedef struct scan_call {
  int alg;                   /* a cuprim_scan_alg, SHORTHAND or TUNED */
  cuprim__scan_tuning tune;  /* TUNED only */
  const unsigned char *d_in; /* the input; in place: copied into the output, which is scanned */
  int in_place;
  unsigned in_offset;  /* elements d_in lies past an aligned address (for messages) */
  unsigned out_offset; /* elements d_out lies past its slot's aligned start */
  uint64_t n;
  cuprim_dtype dtype;
  cuprim_op op;
  cuprim_scan_kind kind;
  const hr_scan_ref *ref; /* what the output must be (set by run_and_check) */
} scan_call;

static scan_call make_call(int alg, const void *d_in, uint64_t n, cuprim_dtype t, cuprim_op op,
                           cuprim_scan_kind kind) {
  return (scan_call){
      .alg = alg, .d_in = (const unsigned char *)d_in, .n = n, .dtype = t, .op = op, .kind = kind};
}

static scan_call in_place(scan_call c) {
  c.in_place = 1;
  return c;
}

static scan_call tuned(const void *d_in, uint64_t n, cuprim_dtype t, cuprim_op op,
                       cuprim_scan_kind kind, unsigned single_block_max_tiles) {
  scan_call c = make_call(TUNED, d_in, n, t, op, kind);
  c.tune.single_block_max_tiles = single_block_max_tiles;
  return c;
}

static const char *call_name(const scan_call *c) {
  static char buf[256];
  if (c->alg == SHORTHAND)
    return "cuprim_scan";
  if (c->alg == TUNED) {
    snprintf(buf, sizeof buf,
             "cuprim__scan_lookback(single_block_max_tiles=%u small_tiles_max_n=%" PRIu64
             " pdl_reset=%d prefetch_ahead_quarters=%u evict_first_stores=%d"
             " counter_min_bytes=%" PRIu64 " prefetch_own_max_bytes=%" PRIu64 ")",
             c->tune.single_block_max_tiles, c->tune.small_tiles_max_n, c->tune.pdl_reset,
             c->tune.prefetch_ahead_quarters, c->tune.evict_first_stores, c->tune.counter_min_bytes,
             c->tune.prefetch_own_max_bytes);
    return buf;
  }
  return hr_scan_alg_name((cuprim_scan_alg)c->alg);
}

static void describe(char *buf, size_t len, const void *p, const char *data, uint64_t seed) {
  const scan_call *c = (const scan_call *)p;
  char offs[64] = "";
  if (c->in_offset || c->out_offset)
    snprintf(offs, sizeof offs, " (d_in+%u d_out+%u elements)",
             c->in_place ? c->out_offset : c->in_offset, c->out_offset);
  snprintf(buf, len, "%s %s %s %s n=%" PRIu64 " %s%s data=%s seed=0x%016" PRIx64, call_name(c),
           hr_dtype_name(c->dtype), hr_op_name(c->op), hr_scan_kind_name(c->kind), c->n,
           c->in_place ? "in-place" : "out-of-place", offs, data, seed);
}

static void call_output(const void *p, size_t *bytes, size_t *misalign) {
  const scan_call *c = (const scan_call *)p;
  *bytes = (size_t)c->n * cuprim_dtype_size(c->dtype);
  *misalign = (size_t)c->out_offset * cuprim_dtype_size(c->dtype);
}

/* The scan itself, from `in` into `out`. */
static cuprim_status call_scan(cuprim_ctx *ctx, const scan_call *c, const void *in, void *out,
                               cudaStream_t stream) {
  switch (c->alg) {
  case SHORTHAND:
    return cuprim_scan(ctx, in, out, c->n, c->dtype, c->op, c->kind, stream);
  case TUNED:
    /* Internal: takes validated arguments (n > 0) with the context's device (0) current. */
    if (c->n == 0)
      fail_msg("test bug: cuprim__scan_lookback with n == 0");
    return cuprim__scan_lookback(ctx, in, out, c->n, c->dtype, c->op, c->kind, stream, &c->tune);
  default:
    return cuprim_scan_ex(ctx, (cuprim_scan_alg)c->alg, in, out, c->n, c->dtype, c->op, c->kind,
                          stream);
  }
}

/* In place: the input copied into the output first, which is then scanned. */
static cuprim_status issue(cuprim_ctx *ctx, const void *p, void *d_out, cudaStream_t stream) {
  const scan_call *c = (const scan_call *)p;
  const size_t bytes = (size_t)c->n * cuprim_dtype_size(c->dtype);
  return call_scan(ctx, c, tf_in_place_input(c->in_place, d_out, c->d_in, bytes, stream), d_out,
                   stream);
}

/* Every element (and its hash if asked). */
TF_SCAN_CHECK(check, scan_call)

static const tf_call_ops ops = {sizeof(scan_call), "d_out", call_output, issue,
                                describe,          check,   NULL};

/* What calls[0..count) must give. */
static void expect(scan_call *calls, int count, const hr_scan_ref *ref) {
  for (int i = 0; i < count; ++i)
    calls[i].ref = ref;
}

/* Runs calls[0..count) on `stream` (as many per batch as the region holds) and checks each against
 * `ref`. Returns the number of calls that passed. */
static int run_and_check(scan_call *calls, int count, cudaStream_t stream, const hr_scan_ref *ref,
                         const char *data, uint64_t seed, int want_hash, tf_result *res) {
  expect(calls, count, ref);
  const tf_case cs = {data, seed, want_hash};
  return tf_run_and_check(&ops, tf.ctx, calls, count, stream, &cs, res);
}

/* Out-of-place calls must leave the input as it was. */
static void check_input_intact(const void *d_in, const void *h_in, size_t bytes, const char *what) {
  if (bytes > OUT_CAP_BYTES)
    return;
  TF_CUDA(cudaMemcpyAsync(tf.out.h, d_in, bytes, cudaMemcpyDeviceToHost, tf.stream));
  tf_finish(tf.stream);
  const unsigned char *a = (const unsigned char *)h_in, *b = tf.out.h;
  if (memcmp(a, b, bytes) != 0) {
    size_t i = 0;
    while (a[i] == b[i])
      ++i;
    tf_failure("%s: an out-of-place call changed its input (first changed byte %zu)", what, i);
  }
}

static const cuprim_scan_kind kinds[] = {CUPRIM_INCLUSIVE, CUPRIM_EXCLUSIVE};

static int is_float(cuprim_dtype t) { return hr_is_float(t); }

/* The look-back kernel's full tile, in elements (scan_lookback.cu: 256 threads of eight 16-byte
 * vectors for 4- and 2-byte types, six for 8-byte types; half-size tiles are half of it). */
static uint64_t lookback_tile(cuprim_dtype t) {
  return cuprim_dtype_size(t) == 8 ? 3072 : 32768 / cuprim_dtype_size(t);
}

/* ---------------------------------------------------------------- sizes */

/* Sizes that break things: 0, 1, warp +-1; tile +-1 for the ladder's tiles (256, 512), the
 * look-back tile (8192 four-byte or 3072 eight-byte elements) and twice it; the single-block
 * kernel's step (32768 four-byte elements) +-1; 2^k +-1 (k = 12, 16, 20); primes; a few seeded
 * random sizes; and (full mode, random data only) one size with thousands of look-back tiles. */
static size_t sweep_sizes(cuprim_dtype t, uint64_t *sizes, size_t cap) {
  static const uint64_t full[] = {
      0,      1,      2,      31,     32,      33,      255,     256,    257,   511,   512,
      513,    1023,   1024,   1025,   2047,    2048,    2049,    4095,   4096,  4097,  4099,
      8191,   8192,   8193,   16383,  16384,   16385,   32767,   32769,  65535, 65536, 65537,
      131071, 131073, 262143, 262145, 1000003, 1048575, 1048576, 1048577};
  static const uint64_t quick[] = {0, 1, 33, 257, 2049, 4097, 8193, 16385, 65537, 131071};
  /* Random sizes, log-uniform in [2, 2^21) (quick: [2, 2^17)). */
  const uint64_t large =
      cuprim_dtype_size(t) == 4 ? (1u << 24) + 2 * 4096 + 3 : (1u << 22) + 3 * 2048 + 5;
  return TF_SWEEP_SIZES(full, quick, 0x5CA115E5, 3, large, sizes, cap);
}

/* ---------------------------------------------------------------- errors with a device */

/* A call of test_errors_with_device's table: the fields make_call sets. */
#define CALL(alg_, in_, n_, t_, op_, kind_)                                                        \
  &(scan_call) {                                                                                   \
    .alg = (alg_), .d_in = (in_), .n = (n_), .dtype = (t_), .op = (op_), .kind = (kind_)           \
  }

/* With a real context, invalid and unsupported calls still return before any CUDA work: nothing
 * is written, no CUDA error is recorded. */
TF_TEST(test_errors_with_device) {
  unsigned char *out = tf_poison_inputs(4096, 8192);
  const unsigned char *in = tf.d_in;
  cuprim_ctx *ctx = tf.ctx;
  const cuprim_scan_kind I = CUPRIM_INCLUSIVE, E = CUPRIM_EXCLUSIVE;
  const cuprim_dtype F32 = CUPRIM_F32;
  const cuprim_op SUM = CUPRIM_SUM;
  const cuprim_status INVALID = CUPRIM_ERROR_INVALID_ARGUMENT,
                      UNSUPPORTED = CUPRIM_ERROR_UNSUPPORTED;
  const int BL = CUPRIM_SCAN_BLELLOCH, LB = CUPRIM_SCAN_DECOUPLED_LOOKBACK;
  const tf_error_call cases[] = {
      {"NULL ctx", NULL, CALL(SHORTHAND, in, 10, F32, SUM, I), out, INVALID},
      {"NULL d_out", ctx, CALL(SHORTHAND, in, 10, F32, SUM, I), NULL, INVALID},
      {"NULL d_in, n 10", ctx, CALL(BL, NULL, 10, F32, SUM, E), out, INVALID},
      {"alg 5", ctx, CALL(5, in, 10, F32, SUM, I), out, INVALID},
      {"dtype 12", ctx, CALL(SHORTHAND, in, 10, (cuprim_dtype)12, SUM, I), out, INVALID},
      {"op 7", ctx, CALL(SHORTHAND, in, 10, F32, (cuprim_op)7, I), out, INVALID},
      {"kind 2", ctx, CALL(SHORTHAND, in, 10, F32, SUM, (cuprim_scan_kind)2), out, INVALID},
      {"d_out + 1 byte", ctx, CALL(SHORTHAND, in, 10, F32, SUM, I), out + 1, INVALID},
      {"d_in + 1 byte", ctx, CALL(SHORTHAND, tf.d_in + 1, 10, F32, SUM, E), out, INVALID},
      {"d_out = d_in + 1 element", ctx, CALL(LB, in, 100, F32, SUM, I), tf.d_in + 4, INVALID},
      {"d_out inside d_in", ctx, CALL(CUPRIM_SCAN_WARP_SHUFFLE, in, 100, CUPRIM_U32, SUM, I),
       tf.d_in + 64, INVALID},
      {"I8", ctx, CALL(SHORTHAND, in, 10, CUPRIM_I8, SUM, I), out, UNSUPPORTED},
      {"U16", ctx, CALL(CUPRIM_SCAN_HILLIS_STEELE, in, 10, CUPRIM_U16, CUPRIM_MAX, E), out,
       UNSUPPORTED},
      {"XOR on F32", ctx, CALL(SHORTHAND, in, 10, F32, CUPRIM_XOR, I), out, UNSUPPORTED},
      {"AND on F64", ctx, CALL(LB, in, 10, CUPRIM_F64, CUPRIM_AND, E), out, UNSUPPORTED},
  };
  TF_CHECK_ERROR_CALLS(&ops, cases);
}
#undef CALL

/* ---------------------------------------------------------------- n == 0 */

/* n == 0 succeeds and writes nothing, with d_in and d_out NULL or not, through every algorithm,
 * dtype, op and kind. */
TF_TEST(test_empty_input) {
  unsigned char *out = tf_poison_empty();
  for (tf_dtype_op it = {0};
       tf_next_dtype_op(&it, hr_reduce_scan_dtypes, HR_NUM_REDUCE_SCAN_DTYPES, hr_scan_supported);)
    for (int ki = 0; ki < 2; ++ki)
      for (int a = SHORTHAND; a < NUM_ALGS; ++a)
        for (int ptrs = 0; ptrs < 5; ++ptrs) {
          const cuprim_dtype t = it.t;
          const cuprim_op op = it.op;
          const void *in = ptrs & 1 ? (const void *)tf.d_in : NULL;
          void *o = ptrs & 2 ? (void *)out : NULL;
          if (ptrs == 4)
            in = o = out; /* in place */
          const scan_call c = make_call(a, in, 0, t, (cuprim_op)op, kinds[ki]);
          const cuprim_status st = call_scan(tf.ctx, &c, in, o, tf.stream);
          if (st != CUPRIM_SUCCESS)
            tf_failure("%s %s %s %s n=0 d_in=%s d_out=%s: returned %s", call_name(&c),
                       hr_dtype_name(t), hr_op_name((cuprim_op)op), hr_scan_kind_name(kinds[ki]),
                       in ? "valid" : "NULL", o ? "valid" : "NULL", tu_status_name(st));
        }
  tf_check_empty("a call with n == 0");
  tf_check_no_recorded_error("after calls with n == 0");
}

/* ---------------------------------------------------------------- the sweep */

/* Which calls a sweep case makes. Full mode: every algorithm and cuprim_scan, out of place and in
 * place (sizes past SWEEP_MAX: in place with AUTO only). Quick mode (compute-sanitizer): SUM
 * through every algorithm, the other ops through AUTO and one ladder algorithm that rotates with
 * op, kind and size; in place for every other size. */
static int sweep_calls(scan_call *calls, const void *d_in, uint64_t n, cuprim_dtype t, cuprim_op op,
                       cuprim_scan_kind kind, size_t size_index) {
  int count = 0;
  const int big = n > SWEEP_MAX;
  for (int a = SHORTHAND; a < NUM_ALGS; ++a) {
    int use = 1;
    if (tf.quick && op != CUPRIM_SUM)
      use =
          a == CUPRIM_SCAN_AUTO || a == 1 + (int)(((unsigned)op + (unsigned)kind + size_index) % 4);
    if (!use)
      continue;
    const scan_call c = make_call(a, d_in, n, t, op, kind);
    calls[count++] = c;
    const int place = tf.quick ? size_index % 2 == 0 : !big || a == CUPRIM_SCAN_AUTO;
    if (place)
      calls[count++] = in_place(c);
  }
  return count;
}

/* One sweep case (its input in tf.d_in): both kinds, then the input must be intact. */
static void sweep_case(cuprim_dtype t, cuprim_op op, hr_scan_data d, size_t k, uint64_t n,
                       uint64_t seed, tf_sweep_counts *counts) {
  for (int ki = 0; ki < 2; ++ki) {
    tf_scan_reference(&g_ref, t, op, kinds[ki], tf.h_in, n);
    scan_call calls[MAX_CALLS];
    tf_result res[MAX_CALLS];
    const int count = sweep_calls(calls, tf.d_in, n, t, op, kinds[ki], k);
    run_and_check(calls, count, tf.stream, &g_ref, hr_scan_data_name(d), seed, 0, res);
    counts->calls += (unsigned long)count;
    ++counts->cases;
  }
  char what[128];
  snprintf(what, sizeof what, "%s %s n=%" PRIu64 " seed=0x%016" PRIx64, hr_dtype_name(t),
           hr_op_name(op), n, seed);
  check_input_intact(tf.d_in, tf.h_in, n * cuprim_dtype_size(t), what);
}

/* Every alg (and cuprim_scan) x op x data kind x size x kind for one dtype, in place and out of
 * place. One reference per (op, data, size, kind), shared by the calls. */
static void sweep(cuprim_dtype t) {
  uint64_t sizes[64];
  const size_t nsizes = sweep_sizes(t, sizes, 64);
  tf_scan_sweep(t, sizes, nsizes, SWEEP_MAX, sweep_case);
}

/* F16 and BF16 (0.2): a running value in float, each output rounded once. */
TF_SWEEP_TESTS_REDUCE_SCAN(sweep)

/* ---------------------------------------------------------------- NaN and infinities */

static void nan_fill(cuprim_dtype t, cuprim_op op, uint64_t seed, void *h, uint64_t n) {
  hr_scan_fill(t, op, HR_SCAN_RANDOM, seed, h, n);
}

static void nan_case(cuprim_dtype t, cuprim_op op, uint64_t n, tf_special sp, uint64_t seed) {
  for (int ki = 0; ki < 2; ++ki) {
    tf_scan_reference(&g_ref, t, op, kinds[ki], tf.h_in, n);
    if (sp < TF_INF_WINS && kinds[ki] == CUPRIM_INCLUSIVE && g_ref.nan_from == n)
      fail_msg("test bug: the reference of a NaN case has no NaN");
    scan_call calls[MAX_CALLS];
    tf_result res[MAX_CALLS];
    int count = 0;
    for (int a = SHORTHAND; a < NUM_ALGS; ++a) {
      const scan_call c = make_call(a, tf.d_in, n, t, op, kinds[ki]);
      calls[count++] = c;
      if (a == CUPRIM_SCAN_AUTO)
        calls[count++] = in_place(c);
    }
    run_and_check(calls, count, tf.stream, &g_ref, tf_special_name(sp), seed, 0, res);
  }
}

/* Float MIN and MAX scans: every output from the first NaN input on (inclusive) or after it
 * (exclusive) is NaN, every output before it exact; an infinity is an ordinary value. Through
 * every algorithm and both kinds. */
TF_TEST(test_nan_and_inf) { tf_special_cases(nan_fill, nan_case); }

/* ---------------------------------------------------------------- misaligned pointers */

/* Pointers need only element alignment: d_in + 1 element, d_in + 2, d_out + 1 element, both, and
 * in place at + 1 and + 3 elements (not 16-byte aligned for any dtype but d_in + 2 of 8-byte
 * ones). AUTO with every placement; every
 * other algorithm with both pointers misaligned. */
TF_TEST(test_misaligned) {
  static const uint64_t full[] = {1, 33, 2049, 4096, 4097, 16385, 65537, 1000003};
  static const uint64_t quick[] = {1, 33, 2049, 4097, 16385};
  size_t nsizes = 0;
  const uint64_t *sizes = TF_PICK(full, quick, &nsizes);
  for (size_t d = 0; d < HR_NUM_REDUCE_SCAN_DTYPES; ++d) {
    const cuprim_dtype t = hr_reduce_scan_dtypes[d];
    const size_t esize = cuprim_dtype_size(t);
    const cuprim_op ops[] = {CUPRIM_SUM, CUPRIM_MAX, is_float(t) ? CUPRIM_PROD : CUPRIM_XOR};
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; ++o)
      for (size_t k = 0; k < nsizes; ++k) {
        const uint64_t n = sizes[k];
        const uint64_t seed = tf_case_seed(0x3A1, t, ops[o], n);
        /* floats: exact data, so every placement must give the very same values */
        hr_scan_fill(t, ops[o], is_float(t) ? HR_SCAN_EXACT : HR_SCAN_RANDOM, seed, tf.h_in, n);
        unsigned char *in0 = tf.d_in, *in1 = tf.d_in2 + esize;
        unsigned char *in2 = tf.d_in + IN_CAP_BYTES / 2 + 2 * esize; /* the upper half of d_in */
        tf_upload(in0, tf.h_in, n * esize, tf.stream);
        tf_upload(in1, tf.h_in, n * esize, tf.stream);
        tf_upload(in2, tf.h_in, n * esize, tf.stream);
        for (int ki = 0; ki < 2; ++ki) {
          tf_scan_reference(&g_ref, t, ops[o], kinds[ki], tf.h_in, n);
          scan_call calls[MAX_CALLS];
          tf_result res[MAX_CALLS];
          int count = 0;
          for (int a = SHORTHAND; a < NUM_ALGS; ++a) {
            if (tf.quick && a != CUPRIM_SCAN_AUTO && a != CUPRIM_SCAN_DECOUPLED_LOOKBACK &&
                a != 1 + (int)((k + o) % 3))
              continue;
            scan_call c = make_call(a, in1, n, t, ops[o], kinds[ki]);
            c.in_offset = 1;
            c.out_offset = 1;
            calls[count++] = c;
          }
          scan_call c = make_call(CUPRIM_SCAN_AUTO, in1, n, t, ops[o], kinds[ki]);
          c.in_offset = 1; /* d_out aligned */
          calls[count++] = c;
          c = make_call(CUPRIM_SCAN_AUTO, in2, n, t, ops[o], kinds[ki]);
          c.in_offset = 2; /* 4-byte elements: 8 bytes past a 16-byte boundary */
          calls[count++] = c;
          c = make_call(CUPRIM_SCAN_AUTO, in0, n, t, ops[o], kinds[ki]);
          c.out_offset = 1; /* d_in aligned */
          calls[count++] = c;
          c = in_place(make_call(CUPRIM_SCAN_AUTO, in0, n, t, ops[o], kinds[ki]));
          c.out_offset = 1;
          calls[count++] = c;
          c.out_offset = 3;
          calls[count++] = c;
          c.alg = CUPRIM_SCAN_DECOUPLED_LOOKBACK;
          calls[count++] = c;
          run_and_check(calls, count, tf.stream, &g_ref, is_float(t) ? "exact" : "random", seed, 0,
                        res);
        }
      }
  }
}

/* ---------------------------------------------------------------- streams */

/* The legacy default stream (0) and the per-thread default stream, besides the non-blocking
 * stream every other test uses. */
TF_TEST(test_default_streams) {
  const cuprim_op ops[] = {CUPRIM_SUM, CUPRIM_MIN}; /* F32 SUM, I64 MIN */
  for (tf_stream_case c = {0}; tf_next_stream_case(&c);) {
    const cuprim_op op = ops[c.d];
    const uint64_t seed = tf_case_seed(0x57E, c.t, (uint64_t)c.si, c.n);
    tf_scan_input(c.t, op, HR_SCAN_EXACT, seed, c.n, c.stream);
    for (int ki = 0; ki < 2; ++ki) {
      tf_scan_reference(&g_ref, c.t, op, kinds[ki], tf.h_in, c.n);
      scan_call calls[MAX_CALLS];
      tf_result res[MAX_CALLS];
      int count = 0;
      for (int a = SHORTHAND; a < NUM_ALGS; ++a)
        calls[count++] = make_call(a, tf.d_in, c.n, c.t, op, kinds[ki]);
      calls[count++] = in_place(calls[1]);
      run_and_check(calls, count, c.stream, &g_ref, c.name, seed, 0, res);
    }
  }
}

/* Random SUM data (tf_concurrent_streams' fill). */
static void random_sum_data(cuprim_dtype t, uint64_t seed, void *h, uint64_t n) {
  hr_scan_fill(t, CUPRIM_SUM, HR_SCAN_RANDOM, seed, h, n);
}

/* The calls of one stream of a concurrent-streams round (tf_concurrent_streams): four algorithms
 * on SUM, inclusive in even rounds and exclusive in odd ones. */
static int concurrent_calls(int round, int side, cuprim_dtype t, const void *h,
                            const unsigned char *d, uint64_t n, void *p) {
  static const int algs[] = {CUPRIM_SCAN_AUTO, CUPRIM_SCAN_DECOUPLED_LOOKBACK, CUPRIM_SCAN_BLELLOCH,
                             CUPRIM_SCAN_HILLIS_STEELE};
  enum { CALLS = sizeof algs / sizeof algs[0] };
  const cuprim_scan_kind kind = kinds[round % 2];
  hr_scan_ref *ref = side ? &g_ref2 : &g_ref;
  scan_call *calls = (scan_call *)p;
  tf_scan_reference(ref, t, CUPRIM_SUM, kind, h, n);
  for (int i = 0; i < CALLS; ++i)
    calls[i] = make_call(algs[i], d, n, t, CUPRIM_SUM, kind);
  expect(calls, CALLS, ref);
  return CALLS;
}

/* Two non-blocking streams in flight at once on one context, each with calls that take temporary
 * memory from the context's pool, enqueued alternately before either is waited for. */
TF_TEST(test_concurrent_streams) {
  tf_concurrent_streams(&ops, CUPRIM_U64, tf.quick ? 65537 : (1u << 21) + 3, tf.quick ? 2 : 4,
                        "random", random_sum_data, concurrent_calls);
}

/* The block of temporary memory that a context with the default allocator keeps for its calls
 * (src/common/context.c), on a context of the test's own: handed from call to call on one
 * stream; after that stream is destroyed and another made (which may get the same handle, never
 * the same id) the block must not go to the new stream while the old one's work may still run;
 * calls on two streams alternately, before either is waited for; a too small block replaced; the
 * context destroyed while it holds the block. */
TF_TEST(test_temp_block_streams) {
  cuprim_ctx *ctx = NULL;
  assert_int_equal(cuprim_ctx_create(&ctx, 0, NULL), CUPRIM_SUCCESS);
  const cuprim_dtype t = CUPRIM_U32;
  /* 2^20 + 5: 129 look-back tiles, about 1 KB of tile status (the first block: 4 KB); 2^23 + 7:
   * 1025 tiles, more than 8 KB (the block replaced). */
  const uint64_t sizes[] = {(1u << 20) + 5, (1u << 23) + 7};
  const uint64_t most = IN_CAP_BYTES / cuprim_dtype_size(t) / 2;
  assert_true(sizes[1] <= most);
  for (int round = 0; round < 3; ++round) {
    cudaStream_t a = tf_new_stream(), b = tf_new_stream();
    for (int k = 0; k < 2; ++k) {
      const uint64_t n = sizes[k];
      const uint64_t seed_a = tf_case_seed(0x7EB, (uint64_t)round, (uint64_t)k, n);
      const uint64_t seed_b = seed_a ^ 0x5EED;
      const size_t bytes = n * cuprim_dtype_size(t);
      hr_scan_fill(t, CUPRIM_SUM, HR_SCAN_RANDOM, seed_a, tf.h_in, n);
      hr_scan_fill(t, CUPRIM_SUM, HR_SCAN_RANDOM, seed_b, tf.h_in + bytes, n);
      tf_scan_reference(&g_ref, t, CUPRIM_SUM, CUPRIM_INCLUSIVE, tf.h_in, n);
      tf_scan_reference(&g_ref2, t, CUPRIM_SUM, CUPRIM_INCLUSIVE, tf.h_in + bytes, n);
      tf_upload(tf.d_in, tf.h_in, bytes, a);
      tf_upload(tf.d_in2, tf.h_in + bytes, bytes, b);
      scan_call ca[2], cb[2];
      for (int i = 0; i < 2; ++i) {
        ca[i] = make_call(CUPRIM_SCAN_AUTO, tf.d_in, n, t, CUPRIM_SUM, CUPRIM_INCLUSIVE);
        cb[i] = make_call(CUPRIM_SCAN_AUTO, tf.d_in2, n, t, CUPRIM_SUM, CUPRIM_INCLUSIVE);
      }
      expect(ca, 2, &g_ref);
      expect(cb, 2, &g_ref2);
      const tf_case cs_a = {"temporary block, stream A", seed_a, 0};
      const tf_case cs_b = {"temporary block, stream B", seed_b, 0};
      /* Stream A alone (it takes the block), then A and B at once. */
      tf_result res[2];
      tf_run_and_check(&ops, ctx, ca, 2, a, &cs_a, res);
      tf_run_two_streams(&ops, ctx, 2, ca, &cs_a, a, cb, &cs_b, b);
    }
    /* Destroyed with work in flight on neither: the next round's streams are new ids. */
    TF_CUDA(cudaStreamDestroy(a));
    TF_CUDA(cudaStreamDestroy(b));
  }
  /* Work in flight when the context is destroyed would break cuprim_ctx_destroy's contract:
   * wait first, as it asks. */
  TF_CUDA(cudaDeviceSynchronize());
  assert_int_equal(cuprim_ctx_destroy(ctx), CUPRIM_SUCCESS);
}

/* ---------------------------------------------------------------- CUDA graphs */

/* The input of a graph round (U32 SUM data, as many elements as calls[0] scans) and each call's
 * reference. */
#define GRAPH_CALLS 16
static hr_scan_ref g_graph_refs[GRAPH_CALLS];

static void graph_round(void *p, int count, int round, uint64_t seed, char *data, size_t len) {
  scan_call *calls = (scan_call *)p;
  const uint64_t n = calls[0].n;
  tf_scan_input(CUPRIM_U32, CUPRIM_SUM, HR_SCAN_RANDOM, seed, n, tf.stream);
  for (int i = 0; i < count; ++i) {
    tf_scan_reference(&g_graph_refs[i], CUPRIM_U32, CUPRIM_SUM, calls[i].kind, tf.h_in, calls[i].n);
    calls[i].ref = &g_graph_refs[i];
  }
  snprintf(data, len, "random, graph replay %d", round);
}

/* AUTO (through cuprim_scan, on a large and a small input, in place, exclusive), every other
 * algorithm, and both of AUTO's kernels forced, captured into one graph: capture enqueues and runs
 * nothing; each replay reads whatever the input buffer holds then. */
TF_TEST(test_graph_capture) {
  const uint64_t n = tf.quick ? 65537 : (1u << 20) + 1, n_small = 1000;
  const cuprim_dtype t = CUPRIM_U32; /* graph_round fills U32 SUM data */
  const cuprim_op op = CUPRIM_SUM;
  const uint64_t tile = lookback_tile(t);

  scan_call calls[GRAPH_CALLS]; /* calls[0]: n elements (graph_round reads n from it) */
  int count = 0;
  calls[count++] = make_call(SHORTHAND, tf.d_in, n, t, op, CUPRIM_INCLUSIVE);
  for (int a = 1; a < NUM_ALGS; ++a)
    calls[count++] = make_call(a, tf.d_in, n, t, op, CUPRIM_INCLUSIVE);
  calls[count++] = make_call(CUPRIM_SCAN_AUTO, tf.d_in, n, t, op, CUPRIM_EXCLUSIVE);
  calls[count++] = in_place(make_call(CUPRIM_SCAN_AUTO, tf.d_in, n, t, op, CUPRIM_EXCLUSIVE));
  calls[count++] = make_call(SHORTHAND, tf.d_in, n_small, t, op, CUPRIM_INCLUSIVE);
  calls[count++] = make_call(CUPRIM_SCAN_HILLIS_STEELE, tf.d_in, n_small, t, op, CUPRIM_EXCLUSIVE);
  calls[count++] = tuned(tf.d_in, n_small, t, op, CUPRIM_INCLUSIVE, 0); /* look-back, small */
  /* one block: 60 tiles (quick mode: all n elements, which is fewer; only n are uploaded) */
  const uint64_t n_one = 60 * tile + 7 < n ? 60 * tile + 7 : n;
  calls[count++] = tuned(tf.d_in, n_one, t, op, CUPRIM_EXCLUSIVE, 64);

  tf_graph_rounds(&ops, calls, count, n, graph_round);
  for (int i = 0; i < count; ++i)
    hr_scan_ref_free(&g_graph_refs[i]);
}

/* ---------------------------------------------------------------- determinism */

/* Integer dtypes and MIN/MAX: every algorithm gives the same bits on three runs (and the right
 * ones). Float SUM with inexact data may differ between runs of the look-back algorithms
 * (scan.h); how often it does is printed, not checked. */
TF_TEST(test_determinism) {
  const uint64_t n = tf.quick ? (1u << 16) + 3 : (1u << 20) + 3;
  const struct {
    cuprim_dtype t;
    cuprim_op op;
  } cases[] = {{CUPRIM_I32, CUPRIM_SUM}, {CUPRIM_I32, CUPRIM_XOR},  {CUPRIM_I32, CUPRIM_MIN},
               {CUPRIM_U64, CUPRIM_SUM}, {CUPRIM_U64, CUPRIM_PROD}, {CUPRIM_U64, CUPRIM_MAX},
               {CUPRIM_F32, CUPRIM_MIN}, {CUPRIM_F32, CUPRIM_MAX},  {CUPRIM_F64, CUPRIM_MIN},
               {CUPRIM_F32, CUPRIM_SUM}};
  enum { RUNS = 3 };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    const cuprim_dtype t = cases[k].t;
    const cuprim_op op = cases[k].op;
    const int promised = !(is_float(t) && (op == CUPRIM_SUM || op == CUPRIM_PROD));
    const uint64_t seed = tf_case_seed(0xDE7, t, op, n);
    tf_scan_input(t, op, HR_SCAN_RANDOM, seed, n, tf.stream);
    for (int ki = 0; ki < 2; ++ki) {
      tf_scan_reference(&g_ref, t, op, kinds[ki], tf.h_in, n);
      scan_call calls[MAX_CALLS];
      tf_result res[MAX_CALLS];
      int count = 0;
      for (int a = SHORTHAND; a < NUM_ALGS; ++a)
        for (int r = 0; r < RUNS; ++r)
          calls[count++] = make_call(a, tf.d_in, n, t, op, kinds[ki]);
      run_and_check(calls, count, tf.stream, &g_ref, "random", seed, 1, res);
      for (int i = 0; i < count; i += RUNS) {
        int differ = 0, all_ok = 1;
        for (int r = 0; r < RUNS; ++r)
          all_ok &= res[i + r].ok;
        for (int r = 1; r < RUNS; ++r)
          differ += res[i + r].hash != res[i].hash;
        if (!all_ok)
          continue; /* already reported */
        if (promised && differ)
          tf_failure("%s %s %s %s n=%" PRIu64 " seed=0x%016" PRIx64
                     ": %d of %d runs gave other bits than the first",
                     call_name(&calls[i]), hr_dtype_name(t), hr_op_name(op),
                     hr_scan_kind_name(kinds[ki]), n, seed, differ, RUNS - 1);
        else if (!promised)
          print_message("determinism (not promised): %s %s %s %s: %s over %d runs\n",
                        call_name(&calls[i]), hr_dtype_name(t), hr_op_name(op),
                        hr_scan_kind_name(kinds[ki]), differ ? "bits varied" : "same bits", RUNS);
      }
    }
  }
}

/* ---------------------------------------------------------------- AUTO's kernels */

/* The single-block kernel (single_block_max_tiles = 64) and the look-back kernel (0), forced
 * through the internal entry point for the same input, and AUTO: all correct, and for integers,
 * MIN/MAX and exact float data the same bits. Sizes around the tile up to 64 tiles. */
TF_TEST(test_kernel_choice_same_bits) {
  const cuprim_dtype dtypes[] = {CUPRIM_I32, CUPRIM_U64, CUPRIM_F32, CUPRIM_F64, CUPRIM_F16};
  for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; ++d) {
    const cuprim_dtype t = dtypes[d];
    const cuprim_op ops[] = {CUPRIM_SUM, CUPRIM_MAX, is_float(t) ? CUPRIM_PROD : CUPRIM_XOR};
    const uint64_t T = lookback_tile(t);
    const uint64_t sizes[] = {1,     31,        T - 1,      T,      T + 1,      2 * T + 3,
                              4 * T, 4 * T + 1, 17 * T + 5, 32 * T, 63 * T + 7, 64 * T};
    const size_t nsizes = tf.quick ? 10 : sizeof sizes / sizeof sizes[0];
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; ++o) {
      const uint64_t max_n = sizes[nsizes - 1];
      const uint64_t seed = tf_case_seed(0xA07, t, ops[o], 0);
      const hr_scan_data data = is_float(t) ? HR_SCAN_EXACT : HR_SCAN_RANDOM;
      tf_scan_input(t, ops[o], data, seed, max_n, tf.stream);
      for (size_t k = 0; k < nsizes; ++k)
        for (int ki = 0; ki < 2; ++ki) {
          if (!tf_shard_case())
            continue;
          const uint64_t n = sizes[k];
          tf_scan_reference(&g_ref, t, ops[o], kinds[ki], tf.h_in, n);
          enum { NCALLS = 10 };
          scan_call calls[NCALLS];
          tf_result res[NCALLS];
          calls[0] = tuned(tf.d_in, n, t, ops[o], kinds[ki], 64); /* one block */
          calls[1] = tuned(tf.d_in, n, t, ops[o], kinds[ki], 0);  /* look-back by a warp */
          calls[2] = make_call(SHORTHAND, tf.d_in, n, t, ops[o], kinds[ki]);
          calls[3] = in_place(calls[0]);
          calls[4] = in_place(calls[1]);
          calls[5] = make_call(CUPRIM_SCAN_DECOUPLED_LOOKBACK, tf.d_in, n, t, ops[o], kinds[ki]);
          /* Half-size tiles, status reset by a PDL kernel, the tile a quarter block per SM ahead
           * prefetched (33 tiles on an H100: within the sizes from 17T + 5 on), evict-first
           * stores. */
          calls[6] = calls[1];
          calls[6].tune.small_tiles_max_n = UINT64_MAX;
          calls[6].tune.pdl_reset = 1;
          calls[6].tune.prefetch_ahead_quarters = 1;
          calls[6].tune.evict_first_stores = 1;
          calls[7] = calls[1]; /* half-size tiles, memset reset, in place */
          calls[7].tune.small_tiles_max_n = UINT64_MAX;
          calls[7] = in_place(calls[7]);
          /* Tiles claimed from the atomic counter (the own tile prefetched while it answers),
           * and in block order without the own tile's prefetch, with the PDL reset: both tile
           * orders whatever the GPU's tuning picks. */
          calls[8] = calls[1];
          calls[8].tune.counter_min_bytes = 0;
          calls[8].tune.pdl_reset = 1;
          calls[9] = calls[1];
          calls[9].tune.counter_min_bytes = UINT64_MAX;
          calls[9].tune.prefetch_own_max_bytes = 0;
          calls[9].tune.pdl_reset = 1;
          const int ok = run_and_check(calls, NCALLS, tf.stream, &g_ref, hr_scan_data_name(data),
                                       seed, 1, res);
          if (ok == NCALLS && g_ref.exact)
            for (int i = 1; i < NCALLS; ++i)
              if (res[i].hash != res[0].hash)
                tf_failure("%s %s %s n=%" PRIu64 ": %s and %s gave different bits",
                           hr_dtype_name(t), hr_op_name(ops[o]), hr_scan_kind_name(kinds[ki]), n,
                           call_name(&calls[0]), call_name(&calls[i]));
        }
    }
  }
}

/* ---------------------------------------------------------------- look-back stress */

/* The look-back kernel (DECOUPLED_LOOKBACK, and AUTO through cuprim_scan) run `runs` times on one
 * large input, inclusive and exclusive by turns, every element compared each time. A missing
 * fence or a misread tile status shows up as a rare wrong element, so the count of bad runs is
 * what to look at. */
static void stress(cuprim_dtype t, cuprim_op op, hr_scan_data data, uint64_t n, int runs) {
  const uint64_t seed = tf_case_seed(0x57E55, t, op, n);
  tf_scan_input(t, op, data, seed, n, tf.stream);
  hr_scan_ref *refs[2] = {&g_ref, &g_ref2};
  for (int ki = 0; ki < 2; ++ki)
    tf_scan_reference(refs[ki], t, op, kinds[ki], tf.h_in, n);
  if (!g_ref.exact || !g_ref2.exact)
    fail_msg("test bug: the stress data must give an exact reference");
  int bad_runs[2] = {0, 0};
  const int algs[2] = {CUPRIM_SCAN_DECOUPLED_LOOKBACK, SHORTHAND};
  for (int r = 0; r < runs; ++r) {
    const int ki = r % 2;
    scan_call calls[2];
    tf_result res[2];
    for (int a = 0; a < 2; ++a)
      calls[a] = make_call(algs[a], tf.d_in, n, t, op, kinds[ki]);
    char label[64];
    snprintf(label, sizeof label, "%s, stress run %d of %d", hr_scan_data_name(data), r + 1, runs);
    run_and_check(calls, 2, tf.stream, refs[ki], label, seed, 0, res);
    for (int a = 0; a < 2; ++a)
      bad_runs[a] += !res[a].ok;
  }
  for (int a = 0; a < 2; ++a) {
    const scan_call c = make_call(algs[a], tf.d_in, n, t, op, CUPRIM_INCLUSIVE);
    print_message("look-back stress: %s %s %s n=%" PRIu64 ": %d of %d runs wrong\n", call_name(&c),
                  hr_dtype_name(t), hr_op_name(op), n, bad_runs[a], runs);
  }
}

TF_TEST(test_lookback_stress) {
  const int runs = tf.quick ? 5 : 50;
  /* 4-byte values: status and value packed in one word; 8-byte: separate arrays and a fence. */
  stress(CUPRIM_I32, CUPRIM_SUM, HR_SCAN_RANDOM, tf.quick ? (1u << 17) + 5 : (1u << 24) + 5, runs);
  stress(CUPRIM_U64, CUPRIM_SUM, HR_SCAN_RANDOM, tf.quick ? (1u << 16) + 5 : (1u << 23) + 5, runs);
  /* Float SUM on exact data: the same bits every run, so a race in the float path shows too. */
  stress(CUPRIM_F32, CUPRIM_SUM, HR_SCAN_EXACT, tf.quick ? (1u << 17) + 5 : (1u << 24) + 5,
         tf.quick ? 3 : 20);
  /* F16: float tile values (packed) from two passes over 16-bit registers. */
  stress(CUPRIM_F16, CUPRIM_SUM, HR_SCAN_EXACT, tf.quick ? (1u << 17) + 5 : (1u << 24) + 5,
         tf.quick ? 3 : 20);
}

/* ---------------------------------------------------------------- allocators */

/* Every algorithm and cuprim_scan on tf.d_in[0..n) through ctx, checked against g_ref. */
static void run_all_on(cuprim_ctx *ctx, uint64_t n, cuprim_dtype t, cuprim_op op,
                       cuprim_scan_kind kind, scan_call *calls, tf_result *res, const tf_case *cs) {
  int count = 0;
  for (int al = SHORTHAND; al < NUM_ALGS; ++al)
    calls[count++] = make_call(al, tf.d_in, n, t, op, kind);
  expect(calls, count, &g_ref);
  tf_run_and_check(&ops, ctx, calls, count, tf.stream, cs, res);
}

/* Both kinds, each on data of its own drawn from the same seed. */
static void counting_case(cuprim_ctx *ctx, const tf_alloc_case *c, uint64_t seed) {
  for (int ki = 0; ki < 2; ++ki) {
    tf_scan_input(c->t, c->op, HR_SCAN_RANDOM, seed, c->n, tf.stream);
    tf_scan_reference(&g_ref, c->t, c->op, kinds[ki], tf.h_in, c->n);
    scan_call calls[NUM_ALGS + 1];
    tf_result res[NUM_ALGS + 1];
    const tf_case cs = {"random, counting allocator", seed, 0};
    run_all_on(ctx, c->n, c->t, c->op, kinds[ki], calls, res, &cs);
  }
}

static const tf_alloc_case counting_cases[] = {
    /* dtype, op, n, quick_n */
    {CUPRIM_U64, CUPRIM_SUM, 1000, 1000},
    {CUPRIM_U64, CUPRIM_SUM, (1u << 20) + 1, 65537},
    {CUPRIM_I32, CUPRIM_MAX, (1u << 22) + 5, 100003}};

TF_COUNTING_ALLOCATOR_CASES(counting_cases, counting_case, "the look-back tile status needs memory")

/* Calls that need temporary memory (the look-back kernel's tile status, the ladder's tile totals
 * past one tile) return OUT_OF_MEMORY having launched nothing (their output untouched); calls that
 * need none (AUTO's single block) may succeed, but never with a wrong result. */
static void failing_cases(cuprim_ctx *ctx) {
  const cuprim_dtype t = CUPRIM_U32;
  const cuprim_op op = CUPRIM_SUM;
  const uint64_t sizes[] = {1000, tf.quick ? (1u << 17) + 1 : (1u << 20) + 1};
  for (int k = 0; k < 2; ++k) {
    const uint64_t n = sizes[k];
    const uint64_t seed = tf_case_seed(0xFA11, t, op, n);
    tf_scan_input(t, op, HR_SCAN_RANDOM, seed, n, tf.stream);
    tf_scan_reference(&g_ref, t, op, CUPRIM_INCLUSIVE, tf.h_in, n);
    scan_call calls[NUM_ALGS + 1];
    tf_result res[NUM_ALGS + 1];
    int must_fail[NUM_ALGS + 1];
    int count = 0;
    for (int al = SHORTHAND; al < NUM_ALGS; ++al) {
      /* Past 64 tiles the look-back kernel and the ladder's tile totals need memory. */
      must_fail[count] = k == 1 && al != SHORTHAND && al != CUPRIM_SCAN_AUTO;
      calls[count++] = make_call(al, tf.d_in, n, t, op, CUPRIM_INCLUSIVE);
    }
    expect(calls, count, &g_ref);
    const tf_case cs = {"random, failing allocator", seed, 0};
    tf_run_out_of_memory(&ops, ctx, calls, count, res, must_fail, &cs);
  }
}

TF_FAILING_ALLOCATOR_TEST(failing_cases)

/* ---------------------------------------------------------------- past 2^31 elements */

/* U32 SUM of formula data (test_device_fill.h) at 2^31 + 17 elements: AUTO (also in place) and
 * DECOUPLED_LOOKBACK, inclusive and exclusive, and each ladder algorithm inclusive. The data is
 * generated on the device; the output is checked on the device (d_out[i] - d_out[i-1] must be
 * the formula's element: for a wrapping sum that is the same as every element being right), its
 * guards and a few elements around 2^31 and at the end against a prefix streamed on the host.
 * A context of its own, destroyed at the end, so that its pool gives back what it took. */
TU_TEST(test_large_input) {
  (void)state;
  const uint64_t n = (1ull << 31) + 17;
  const size_t bytes = n * sizeof(uint32_t);
  const tf_large_u32 L =
      tf_begin_large_u32("past 2^31", 2 * bytes + 2 * TF_GUARD_BYTES + ((size_t)1 << 30), n);
  TF_CUDA(tu_device_fill_u32(L.d_in, n, tf.stream));

  /* The inclusive prefix at a few indices, streamed on the host while the device fills. */
  const uint64_t spots[] = {0,     1,    4095, 4096, (1ull << 31) - 1, 1ull << 31, (1ull << 31) + 1,
                            n - 2, n - 1};
  enum { NSPOTS = sizeof spots / sizeof spots[0] };
  uint32_t prefix[NSPOTS];
  {
    uint32_t acc = 0;
    size_t s = 0;
    for (uint64_t i = 0; i < n && s < NSPOTS; ++i) {
      acc += tu_fill_u32_formula(i);
      while (s < NSPOTS && spots[s] == i)
        prefix[s++] = acc;
    }
  }

  struct {
    int alg;
    cuprim_scan_kind kind;
    int in_place;
  } runs[] = {{SHORTHAND, CUPRIM_INCLUSIVE, 0},
              {CUPRIM_SCAN_AUTO, CUPRIM_EXCLUSIVE, 0},
              {CUPRIM_SCAN_DECOUPLED_LOOKBACK, CUPRIM_INCLUSIVE, 0},
              {CUPRIM_SCAN_DECOUPLED_LOOKBACK, CUPRIM_EXCLUSIVE, 0},
              {CUPRIM_SCAN_AUTO, CUPRIM_INCLUSIVE, 1},
              {CUPRIM_SCAN_AUTO, CUPRIM_EXCLUSIVE, 1},
              {CUPRIM_SCAN_HILLIS_STEELE, CUPRIM_INCLUSIVE, 0},
              {CUPRIM_SCAN_BLELLOCH, CUPRIM_INCLUSIVE, 0},
              {CUPRIM_SCAN_WARP_SHUFFLE, CUPRIM_INCLUSIVE, 0}};
  for (size_t r = 0; r < sizeof runs / sizeof runs[0]; ++r) {
    scan_call c = make_call(runs[r].alg, L.d_in, n, CUPRIM_U32, CUPRIM_SUM, runs[r].kind);
    c.in_place = runs[r].in_place;
    char what[384];
    describe(what, sizeof what, &c, "(u32)(i * 2654435761) >> 7", 0);
    TF_CUDA(cudaMemsetAsync(L.d_slot, TF_POISON, bytes + 2 * TF_GUARD_BYTES, tf.stream));
    if (c.in_place)
      TF_CUDA(cudaMemcpyAsync(L.d_out, L.d_in, bytes, cudaMemcpyDeviceToDevice, tf.stream));
    const cuprim_status st =
        call_scan(L.ctx, &c, c.in_place ? (const void *)L.d_out : L.d_in, L.d_out, tf.stream);
    tf_finish(tf.stream);
    if (st != CUPRIM_SUCCESS) {
      tf_failure("%s: returned %s (last CUDA error %s)", what, tu_status_name(st),
                 cudaGetErrorName(cuprim_last_cuda_error()));
      continue;
    }
    const int excl = c.kind == CUPRIM_EXCLUSIVE;
    uint64_t wrong = 0, first = 0;
    TF_CUDA(tu_device_check_scan_sum_u32(L.d_out, n, excl, &wrong, &first, tf.stream));
    if (wrong && first == 0) {
      uint32_t got = 0;
      TF_CUDA(cudaMemcpy(&got, L.d_out, 4, cudaMemcpyDeviceToHost));
      tf_failure("%s: at index 0: expected %" PRIu32 ", got %" PRIu32 " (%" PRIu64
                 " element(s) wrong relative to their predecessor)",
                 what, excl ? 0u : tu_fill_u32_formula(0), got, wrong);
    } else if (wrong) {
      uint32_t got[2] = {0, 0};
      TF_CUDA(cudaMemcpy(got, L.d_out + first - 1, 8, cudaMemcpyDeviceToHost));
      tf_failure("%s: %" PRIu64
                 " element(s) differ from their predecessor by the wrong amount; the "
                 "first at index %" PRIu64 ": d_out[i-1] = %" PRIu32 ", d_out[i] = %" PRIu32
                 ", difference %" PRIu32 ", expected %" PRIu32,
                 what, wrong, first, got[0], got[1], got[1] - got[0],
                 tu_fill_u32_formula(excl ? first - 1 : first));
    }
    tf_check_large_guards(L.d_slot, bytes, what);
    for (size_t s = 0; s < NSPOTS; ++s) {
      uint32_t got = 0;
      TF_CUDA(cudaMemcpy(&got, L.d_out + spots[s], 4, cudaMemcpyDeviceToHost));
      const uint32_t want = excl ? prefix[s] - tu_fill_u32_formula(spots[s]) : prefix[s];
      if (got != want)
        tf_failure("%s: at index %" PRIu64 ": expected %" PRIu32 ", got %" PRIu32, what, spots[s],
                   want, got);
    }
  }
  tf_end_large_u32(&L);
}

TF_MAIN(&config)
