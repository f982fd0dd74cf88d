/* cuprim_reduce and cuprim_reduce_ex on a GPU, against a plain C reference on the host.
 *
 * Every algorithm x dtype x op x size x data, n == 0, NaN and infinities, misaligned inputs, the
 * legacy, per-thread and non-blocking streams, several streams and threads sharing a context, CUDA
 * graph capture and replay, determinism, user allocators (counting, and one that always fails),
 * argument errors with a real context, and inputs past 2^31 and 2^32 elements.
 *
 * Each output is one element inside a slot of device memory whose other bytes are guards (the
 * fixture's slots, test_fixture_gpu.h): the whole slot is poisoned before each call and the guards
 * must come back untouched, the output written. One call's failure does not stop the test:
 * failures are counted and printed with the algorithm, dtype, op, n, data kind and seed, and the
 * test fails at its end.
 *
 * Environment: CUPRIM_TEST_SEED (the base seed, printed at start), CUPRIM_TEST_QUICK=1 (for
 * compute-sanitizer: sizes up to ~2^17, random data only, no large case). Without a CUDA device
 * every test prints why and skips; the program then exits with 77 (CTest: skipped). */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostref_reduce.h"
#include "reduce/reduce_internal.h" /* cuprim__reduce_auto_tuned: AUTO with a chosen kernel split */
#include "test_device_fill.h"
#include "test_fixture_gpu.h"

/* ---------------------------------------------------------------- buffers */

#define NUM_ALGS 10          /* CUPRIM_REDUCE_AUTO .. CUPRIM_REDUCE_ATOMIC */
#define SWEEP_CALLS 11       /* every alg through cuprim_reduce_ex, then cuprim_reduce */
#define MAX_SLOTS 32         /* output slots per batch */
#define SLOT_BYTES 768       /* the fixture's slot of one element (tf_slot_at) */
#define SWEEP_MAX (1u << 21) /* sizes above this run with random data only */
/* Input capacity: the largest sweep size (2^24 + 2*4096 + 3 four-byte elements), the failing
 * allocator's 2^24 elements and the determinism input (2^22 + 3 eight-byte elements), plus room
 * for misaligned offsets. */
#define IN_CAP_BYTES ((size_t)212 << 20) /* 3 * 4096^2 + 7 * 4096 + 1 floats */

static hr_gpu_shape g_shape; /* what the float tolerances of COARSENED and ATOMIC depend on */

static void setup(void) {
  g_shape.sm_count = (unsigned)tf.prop.multiProcessorCount;
  g_shape.max_blocks_per_sm = (unsigned)tf.prop.maxBlocksPerMultiProcessor;
}

static const tf_config config = {.in_bytes = IN_CAP_BYTES,
                                 .in2_bytes = IN_CAP_BYTES,
                                 .out_bytes = MAX_SLOTS * SLOT_BYTES,
                                 .out2_bytes = MAX_SLOTS * SLOT_BYTES,
                                 .setup = setup};

/* ---------------------------------------------------------------- calls and checks */

#define SHORTHAND (-1) /* call.alg: cuprim_reduce instead of cuprim_reduce_ex */
#define TUNED (-2)     /* call.alg: cuprim__reduce_auto_tuned with call.tune */

typedef struct call {
  int alg; /* a cuprim_reduce_alg, SHORTHAND or TUNED */
  const void *d_in;
  uint64_t n;
  cuprim_dtype dtype;
  cuprim_op op;
  cuprim__reduce_tuning tune; /* TUNED only */
  const hr_reduce_ref *ref;   /* what the result must be (set by run_and_check) */
} call;

static call make_call(int alg, const void *d_in, uint64_t n, cuprim_dtype t, cuprim_op op) {
  return (call){.alg = alg, .d_in = d_in, .n = n, .dtype = t, .op = op};
}

static const char *call_name(const call *c) {
  static char buf[64];
  if (c->alg == SHORTHAND)
    return "cuprim_reduce";
  if (c->alg == TUNED) {
    snprintf(buf, sizeof buf, "AUTO(single_block_max_chunks=%u, grid_sync_min_chunks=%u)",
             c->tune.single_block_max_chunks, c->tune.grid_sync_min_chunks);
    return buf;
  }
  return hr_reduce_alg_name((cuprim_reduce_alg)c->alg);
}

/* The algorithm whose tolerance applies to a call. */
static cuprim_reduce_alg tolerance_alg(const call *c) {
  return c->alg < 0 ? CUPRIM_REDUCE_AUTO : (cuprim_reduce_alg)c->alg;
}

/* One element, element-aligned but not 16-byte aligned (4 or 8 bytes past a 256-byte boundary). */
static void call_output(const void *p, size_t *bytes, size_t *misalign) {
  const call *c = (const call *)p;
  *bytes = cuprim_dtype_size(c->dtype);
  *misalign = *bytes;
}

static cuprim_status issue(cuprim_ctx *ctx, const void *p, void *d_out, cudaStream_t stream) {
  const call *c = (const call *)p;
  switch (c->alg) {
  case SHORTHAND:
    return cuprim_reduce(ctx, c->d_in, d_out, c->n, c->dtype, c->op, stream);
  case TUNED:
    return cuprim__reduce_auto_tuned(ctx, c->d_in, d_out, c->n, c->dtype, c->op, stream, &c->tune);
  default:
    return cuprim_reduce_ex(ctx, (cuprim_reduce_alg)c->alg, c->d_in, d_out, c->n, c->dtype, c->op,
                            stream);
  }
}

static void describe(char *buf, size_t len, const void *p, const char *data, uint64_t seed) {
  const call *c = (const call *)p;
  snprintf(buf, len, "%s %s %s n=%" PRIu64 " data=%s seed=0x%016" PRIx64, call_name(c),
           hr_dtype_name(c->dtype), hr_op_name(c->op), c->n, data, seed);
}

/* The output written, and its value. */
static int check(const tf_region *rg, const void *p, tf_result *r, const tf_case *cs,
                 const char *what) {
  const call *c = (const call *)p;
  char why[512];
  (void)cs;
  const size_t size = cuprim_dtype_size(c->dtype);
  const unsigned char *got = tf_slot_host(rg, &r->slot);
  const int poison_expected =
      c->ref->exact && tu_pattern_mismatch(c->ref->bits, size, TF_POISON) == size;
  if (tu_pattern_mismatch(got, size, TF_POISON) == size && !poison_expected) {
    tf_failure("%s: d_out was not written (still the poison pattern)", what);
    return 0;
  }
  if (!hr_reduce_check(c->ref, tolerance_alg(c), &g_shape, got, why, sizeof why)) {
    tf_failure("%s: %s", what, why);
    return 0;
  }
  return 1;
}

static const tf_call_ops ops = {sizeof(call), "d_out", call_output, issue, describe, check, NULL};

/* What calls[0..count) must give. */
static void expect(call *calls, int count, const hr_reduce_ref *ref) {
  for (int i = 0; i < count; ++i)
    calls[i].ref = ref;
}

/* Runs calls[0..count) on `stream` through the program's context and checks each against ref. */
static int run_and_check(call *calls, int count, cudaStream_t stream, const hr_reduce_ref *ref,
                         const char *data, uint64_t seed, tf_result *res) {
  expect(calls, count, ref);
  const tf_case cs = {data, seed, 0};
  return tf_run_and_check(&ops, tf.ctx, calls, count, stream, &cs, res);
}

/* Calls i and j must have given the same bits. */
static void check_same_bits(const tf_region *rg, const tf_result *res, int i, int j, const call *ci,
                            const call *cj, const char *why_same, uint64_t seed) {
  const size_t size = cuprim_dtype_size(ci->dtype);
  const unsigned char *a = tf_slot_host(rg, &res[i].slot);
  const unsigned char *b = tf_slot_host(rg, &res[j].slot);
  if (memcmp(a, b, size) != 0) {
    char va[96], vb[96], what[256];
    hr_format_value_bits(ci->dtype, a, va, sizeof va);
    hr_format_value_bits(cj->dtype, b, vb, sizeof vb);
    describe(what, sizeof what, ci, "-", seed);
    tf_failure("%s: %s gave %s but %s gave %s (%s)", what, call_name(ci), va, call_name(cj), vb,
               why_same);
  }
}

/* Every algorithm, then cuprim_reduce, on the same input: SWEEP_CALLS calls. */
static void all_calls(call *calls, const void *d_in, uint64_t n, cuprim_dtype t, cuprim_op op) {
  for (int a = 0; a < NUM_ALGS; ++a)
    calls[a] = make_call(a, d_in, n, t, op);
  calls[NUM_ALGS] = make_call(SHORTHAND, d_in, n, t, op);
}

/* Every algorithm and cuprim_reduce on d_in[0..n) through ctx on `stream`, checked against ref. */
static void run_all(cuprim_ctx *ctx, const void *d_in, uint64_t n, cuprim_dtype t, cuprim_op op,
                    cudaStream_t stream, const hr_reduce_ref *ref, const char *data,
                    uint64_t seed) {
  call calls[SWEEP_CALLS];
  all_calls(calls, d_in, n, t, op);
  expect(calls, SWEEP_CALLS, ref);
  tf_result res[SWEEP_CALLS];
  const tf_case cs = {data, seed, 0};
  tf_run_and_check(&ops, ctx, calls, SWEEP_CALLS, stream, &cs, res);
}

/* ---------------------------------------------------------------- sizes */

/* Sizes that break things: 0, 1, warp +-1, block (256, 512) +-1, AUTO's chunk (4096 four-byte or
 * 2048 eight-byte elements) +-1 and its single-block limits (4 and 64 chunks), 2^k +-1, primes,
 * and a few seeded random sizes; in full mode one size per element width that needs more than one
 * group of chunks in AUTO (random data only). */
static size_t sweep_sizes(cuprim_dtype t, uint64_t *sizes, size_t cap) {
  static const uint64_t full[] = {
      0,      1,      2,      3,      31,     32,      33,      255,     256,    257,   511,
      512,    513,    1023,   1024,   1025,   2047,    2048,    2049,    4095,   4096,  4097,
      4099,   8191,   8192,   8193,   16383,  16384,   16385,   65535,   65536,  65537, 131071,
      131072, 131073, 262143, 262144, 262145, 1000003, 1048575, 1048576, 1048577};
  static const uint64_t quick[] = {0, 1, 33, 257, 1025, 4097, 8193, 16385, 65537, 131071};
  /* Random sizes, log-uniform in [2, 2^21) (quick: [2, 2^17)). */
  const uint64_t large =
      cuprim_dtype_size(t) == 4 ? (1u << 24) + 2 * 4096 + 3 : (1u << 22) + 3 * 2048 + 5;
  return TF_SWEEP_SIZES(full, quick, 0x512E5, 3, large, sizes, cap);
}

/* ---------------------------------------------------------------- errors with a device */

/* A call of test_errors_with_device's table: the fields make_call sets. */
#define CALL(alg_, in_, n_, t_, op_)                                                               \
  &(call) { .alg = (alg_), .d_in = (in_), .n = (n_), .dtype = (t_), .op = (op_) }

/* With a real context, invalid and unsupported calls still return before any CUDA work: nothing
 * is written, no CUDA error is recorded. */
TF_TEST(test_errors_with_device) {
  unsigned char *out = tf_poison_inputs(4096, 2 * TF_GUARD_BYTES);
  const void *in = tf.d_in;
  cuprim_ctx *ctx = tf.ctx;
  const cuprim_dtype F32 = CUPRIM_F32;
  const cuprim_op SUM = CUPRIM_SUM;
  const cuprim_status INVALID = CUPRIM_ERROR_INVALID_ARGUMENT,
                      UNSUPPORTED = CUPRIM_ERROR_UNSUPPORTED;
  const tf_error_call cases[] = {
      {"NULL ctx", NULL, CALL(SHORTHAND, in, 10, F32, SUM), out, INVALID},
      {"NULL d_out", ctx, CALL(CUPRIM_REDUCE_AUTO, in, 10, F32, SUM), NULL, INVALID},
      {"NULL d_in, n 10", ctx, CALL(SHORTHAND, NULL, 10, F32, SUM), out, INVALID},
      {"alg 10", ctx, CALL(10, in, 10, F32, SUM), out, INVALID},
      {"dtype 12", ctx, CALL(SHORTHAND, in, 10, (cuprim_dtype)12, SUM), out, INVALID},
      {"op 7", ctx, CALL(SHORTHAND, in, 10, F32, (cuprim_op)7), out, INVALID},
      {"d_out + 1 byte", ctx, CALL(SHORTHAND, in, 10, F32, SUM), out + 1, INVALID},
      {"d_in + 1 byte", ctx, CALL(SHORTHAND, tf.d_in + 1, 10, F32, SUM), out, INVALID},
      {"d_out inside d_in", ctx, CALL(CUPRIM_REDUCE_ATOMIC, in, 100, F32, SUM), tf.d_in + 64,
       INVALID},
      {"I8", ctx, CALL(SHORTHAND, in, 10, CUPRIM_I8, SUM), out, UNSUPPORTED},
      {"U16", ctx, CALL(CUPRIM_REDUCE_ATOMIC, in, 10, CUPRIM_U16, CUPRIM_MAX), out, UNSUPPORTED},
      {"XOR on F32", ctx, CALL(SHORTHAND, in, 10, F32, CUPRIM_XOR), out, UNSUPPORTED},
      {"AND on F64", ctx, CALL(CUPRIM_REDUCE_GLOBAL_TREE, in, 10, CUPRIM_F64, CUPRIM_AND), out,
       UNSUPPORTED},
  };
  TF_CHECK_ERROR_CALLS(&ops, cases);
}
#undef CALL

/* ---------------------------------------------------------------- n == 0 */

/* n == 0 writes the identity, exactly, with d_in NULL or not, through every algorithm. */
TF_TEST(test_empty_input) {
  for (size_t d = 0; d < HR_NUM_REDUCE_SCAN_DTYPES; ++d)
    for (int op = 0; op <= CUPRIM_XOR; ++op) {
      const cuprim_dtype t = hr_reduce_scan_dtypes[d];
      if (!hr_reduce_supported(t, (cuprim_op)op))
        continue;
      hr_reduce_ref ref;
      hr_reduce_reference(t, (cuprim_op)op, NULL, 0, &ref);
      for (int null_in = 0; null_in < 2; ++null_in) {
        call calls[SWEEP_CALLS];
        all_calls(calls, null_in ? NULL : tf.d_in, 0, t, (cuprim_op)op);
        tf_result res[SWEEP_CALLS];
        run_and_check(calls, SWEEP_CALLS, tf.stream, &ref, null_in ? "empty, d_in NULL" : "empty",
                      0, res);
      }
    }
}

/* ---------------------------------------------------------------- the sweep */

/* Every alg (and cuprim_reduce) x every op x size x data kind for one dtype. One reference per
 * (op, size, data), shared by the eleven calls. */
static void sweep(cuprim_dtype t) {
  uint64_t sizes[64];
  const size_t nsizes = sweep_sizes(t, sizes, 64);
  const int kinds = tf.quick ? 1 : HR_DATA_KINDS;
  unsigned long cases = 0;
  for (int op = 0; op <= CUPRIM_XOR; ++op) {
    if (!hr_reduce_supported(t, (cuprim_op)op))
      continue;
    for (int kind = 0; kind < kinds; ++kind)
      for (size_t k = 0; k < nsizes; ++k) {
        const uint64_t n = sizes[k];
        if ((kind != HR_DATA_RANDOM && n > SWEEP_MAX) || !tf_shard_case())
          continue;
        const uint64_t seed = tf_case_seed(t, (uint64_t)op, (uint64_t)kind, n);
        tf_reduce_input(t, (cuprim_op)op, (hr_data_kind)kind, seed, n, tf.stream);
        hr_reduce_ref ref;
        hr_reduce_reference(t, (cuprim_op)op, tf.h_in, n, &ref);

        call calls[SWEEP_CALLS];
        all_calls(calls, tf.d_in, n, t, (cuprim_op)op);
        tf_result res[SWEEP_CALLS];
        const int passed = run_and_check(calls, SWEEP_CALLS, tf.stream, &ref,
                                         hr_data_name((hr_data_kind)kind), seed, res);
        if (passed == SWEEP_CALLS) /* cuprim_reduce is cuprim_reduce_ex(AUTO): deterministic */
          check_same_bits(&tf.out, res, 0, NUM_ALGS, &calls[0], &calls[NUM_ALGS],
                          "cuprim_reduce must equal cuprim_reduce_ex(AUTO)", seed);
        ++cases;
      }
  }
  print_message("%s: %lu cases x %d calls\n", hr_dtype_name(t), cases, SWEEP_CALLS);
}

/* F16 and BF16 (0.2): computed in float, rounded once. */
TF_SWEEP_TESTS_REDUCE_SCAN(sweep)

/* ---------------------------------------------------------------- NaN and infinities */

static void nan_fill(cuprim_dtype t, cuprim_op op, uint64_t seed, void *h, uint64_t n) {
  hr_reduce_fill(t, op, HR_DATA_RANDOM, seed, h, n);
}

static void nan_case(cuprim_dtype t, cuprim_op op, uint64_t n, tf_special sp, uint64_t seed) {
  hr_reduce_ref ref;
  hr_reduce_reference(t, op, tf.h_in, n, &ref);
  if (sp < TF_INF_WINS && !ref.nan)
    fail_msg("test bug: the reference of a NaN case is not NaN");
  run_all(tf.ctx, tf.d_in, n, t, op, tf.stream, &ref, tf_special_name(sp), seed);
}

/* Float MIN and MAX return NaN when any input is NaN, through every algorithm; an infinity is an
 * ordinary value. */
TF_TEST(test_nan_and_inf) { tf_special_cases(nan_fill, nan_case); }

/* ---------------------------------------------------------------- misaligned input */

/* d_in + 1 and d_in + 3 elements: element-aligned, not 16-byte aligned. */
TF_TEST(test_misaligned_input) {
  static const uint64_t full[] = {1, 33, 2048, 2049, 4096, 4097, 8192, 16385, 65537, 1000003};
  static const uint64_t quick[] = {1, 33, 2049, 4096, 4097, 16385};
  size_t nsizes = 0;
  const uint64_t *sizes = TF_PICK(full, quick, &nsizes);
  static const unsigned offsets[] = {1, 3};
  for (size_t d = 0; d < HR_NUM_REDUCE_SCAN_DTYPES; ++d) {
    const cuprim_dtype t = hr_reduce_scan_dtypes[d];
    const size_t esize = cuprim_dtype_size(t);
    const int is_int = !hr_is_float(t);
    const cuprim_op ops[] = {CUPRIM_SUM, CUPRIM_MAX, is_int ? CUPRIM_XOR : CUPRIM_PROD};
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; ++o)
      for (size_t k = 0; k < nsizes; ++k)
        for (size_t f = 0; f < sizeof offsets / sizeof offsets[0]; ++f) {
          const uint64_t n = sizes[k];
          const uint64_t seed = tf_case_seed(0x3A1, t, ops[o] * 16u + offsets[f], n);
          hr_reduce_fill(t, ops[o], HR_DATA_RANDOM, seed, tf.h_in, n);
          unsigned char *in = tf.d_in + offsets[f] * esize;
          tf_upload(in, tf.h_in, n * esize, tf.stream);
          hr_reduce_ref ref;
          hr_reduce_reference(t, ops[o], tf.h_in, n, &ref);
          char data[64];
          snprintf(data, sizeof data, "random at d_in+%u elements", offsets[f]);
          run_all(tf.ctx, in, n, t, ops[o], tf.stream, &ref, data, seed);
        }
  }
}

/* ---------------------------------------------------------------- streams */

/* The legacy default stream (0) and the per-thread default stream, besides the non-blocking
 * stream every other test uses. */
TF_TEST(test_default_streams) {
  const cuprim_op ops[] = {CUPRIM_SUM, CUPRIM_MIN};
  for (tf_stream_case c = {0}; tf_next_stream_case(&c);)
    for (int o = 0; o < 2; ++o) {
      const cuprim_op op = ops[o];
      const uint64_t seed = tf_case_seed(0x57E, c.t, (uint64_t)op, c.n);
      tf_reduce_input(c.t, op, HR_DATA_RANDOM, seed, c.n, c.stream);
      hr_reduce_ref ref;
      hr_reduce_reference(c.t, op, tf.h_in, c.n, &ref);
      run_all(tf.ctx, tf.d_in, c.n, c.t, op, c.stream, &ref, c.name, seed);
    }
}

/* Random SUM data (tf_concurrent_streams' fill). */
static void random_sum_data(cuprim_dtype t, uint64_t seed, void *h, uint64_t n) {
  hr_reduce_fill(t, CUPRIM_SUM, HR_DATA_RANDOM, seed, h, n);
}

/* The calls of one stream of a concurrent-streams round (tf_concurrent_streams): every algorithm
 * on SUM. */
static int concurrent_calls(int round, int side, cuprim_dtype t, const void *h,
                            const unsigned char *d, uint64_t n, void *calls) {
  static hr_reduce_ref refs[2]; /* read by the checks, after both streams' calls are made */
  (void)round;
  hr_reduce_reference(t, CUPRIM_SUM, h, n, &refs[side]);
  all_calls((call *)calls, d, n, t, CUPRIM_SUM);
  expect((call *)calls, SWEEP_CALLS, &refs[side]);
  return SWEEP_CALLS;
}

/* Two non-blocking streams in flight at once on one context, each with calls that take temporary
 * memory from the context's pool, enqueued alternately before either is waited for. */
TF_TEST(test_concurrent_streams) {
  tf_concurrent_streams(&ops, CUPRIM_U64, tf.quick ? 65537 : (1u << 22) + 3, tf.quick ? 2 : 4,
                        "random", random_sum_data, concurrent_calls);
}

/* ---------------------------------------------------------------- threads */

/* Several host threads share the context, each on its own stream: every algorithm on U64 SUM
 * (exact), and AUTO on F32 SUM, which must give the bits the main thread got for the same data. */
typedef struct thread_job {
  uint64_t n;
  const uint64_t *h_u64;
  uint64_t want_u64;
  const float *h_f32;
  unsigned char want_f32[4];
  int iterations;
  int failures;
  char first_failure[256];
} thread_job;

static void job_fail(thread_job *j, const char *fmt, ...) {
  if (j->failures++ == 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->first_failure, sizeof j->first_failure, fmt, ap);
    va_end(ap);
  }
}

/* A thread's CUDA call: on failure the job fails with the error and stops. */
#define JOB_CUDA(call)                                                                             \
  do {                                                                                             \
    tf_cuda_error e_ = {cudaSuccess, ""};                                                          \
    if (TF_CUDA_NOTE(call, &e_)) {                                                                 \
      job_fail(j, "%s", e_.what);                                                                  \
      goto done;                                                                                   \
    }                                                                                              \
  } while (0)

static void *thread_main(void *arg) {
  thread_job *j = (thread_job *)arg;
  cudaStream_t s = NULL;
  uint64_t *d_u64 = NULL;
  float *d_f32 = NULL;
  unsigned char *d_out = NULL;
  unsigned char h_out[16];
  JOB_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  JOB_CUDA(cudaMalloc((void **)&d_u64, j->n * sizeof *d_u64));
  JOB_CUDA(cudaMalloc((void **)&d_f32, j->n * sizeof *d_f32));
  JOB_CUDA(cudaMalloc((void **)&d_out, 16));
  JOB_CUDA(cudaMemcpyAsync(d_u64, j->h_u64, j->n * sizeof *d_u64, cudaMemcpyHostToDevice, s));
  JOB_CUDA(cudaMemcpyAsync(d_f32, j->h_f32, j->n * sizeof *d_f32, cudaMemcpyHostToDevice, s));
  for (int it = 0; it < j->iterations; ++it)
    for (int a = 0; a <= NUM_ALGS; ++a) {
      const int f32 = a == NUM_ALGS; /* the last round: AUTO on F32 */
      const cuprim_reduce_alg alg = f32 ? CUPRIM_REDUCE_AUTO : (cuprim_reduce_alg)a;
      JOB_CUDA(cudaMemsetAsync(d_out, TF_POISON, 16, s));
      const cuprim_status st =
          f32 ? cuprim_reduce_ex(tf.ctx, alg, d_f32, d_out + 8, j->n, CUPRIM_F32, CUPRIM_SUM, s)
              : cuprim_reduce_ex(tf.ctx, alg, d_u64, d_out + 8, j->n, CUPRIM_U64, CUPRIM_SUM, s);
      if (st != CUPRIM_SUCCESS) {
        job_fail(j, "%s %s SUM: %s", hr_reduce_alg_name(alg), f32 ? "F32" : "U64",
                 tu_status_name(st));
        continue;
      }
      JOB_CUDA(cudaMemcpyAsync(h_out, d_out, 16, cudaMemcpyDeviceToHost, s));
      JOB_CUDA(cudaStreamSynchronize(s));
      if (f32 ? memcmp(h_out + 8, j->want_f32, 4) != 0 : memcmp(h_out + 8, &j->want_u64, 8) != 0) {
        char got[96], want[96];
        hr_format_value_bits(f32 ? CUPRIM_F32 : CUPRIM_U64, h_out + 8, got, sizeof got);
        hr_format_value_bits(f32 ? CUPRIM_F32 : CUPRIM_U64,
                             f32 ? (const void *)j->want_f32 : (const void *)&j->want_u64, want,
                             sizeof want);
        job_fail(j, "%s %s SUM n=%" PRIu64 " iteration %d: expected %s, got %s",
                 hr_reduce_alg_name(alg), f32 ? "F32" : "U64", j->n, it, want, got);
      }
    }
done:
  if (s)
    (void)cudaStreamSynchronize(s);
  (void)cudaFree(d_u64);
  (void)cudaFree(d_f32);
  (void)cudaFree(d_out);
  if (s)
    (void)cudaStreamDestroy(s);
  return NULL;
}

TF_TEST(test_threads_share_context) {
  enum { THREADS = 4 };
  const uint64_t n = tf.quick ? 20001 : (1u << 20) + 7;
  const uint64_t seed = tf_case_seed(0x7E4D, 0, 0, n);
  uint64_t *h_u64 = (uint64_t *)malloc(n * sizeof *h_u64);
  float *h_f32 = (float *)malloc(n * sizeof *h_f32);
  assert_non_null(h_u64);
  assert_non_null(h_f32);
  hr_reduce_fill(CUPRIM_U64, CUPRIM_SUM, HR_DATA_RANDOM, seed, h_u64, n);
  hr_reduce_fill(CUPRIM_F32, CUPRIM_SUM, HR_DATA_RANDOM, seed + 1, h_f32, n);
  hr_reduce_ref ref_u64, ref_f32;
  hr_reduce_reference(CUPRIM_U64, CUPRIM_SUM, h_u64, n, &ref_u64);
  hr_reduce_reference(CUPRIM_F32, CUPRIM_SUM, h_f32, n, &ref_f32);

  /* The main thread's AUTO F32 result, checked against the reference, is what every thread must
   * reproduce bit for bit. */
  memcpy(tf.h_in, h_f32, n * sizeof *h_f32);
  tf_upload(tf.d_in, tf.h_in, n * sizeof *h_f32, tf.stream);
  call c = make_call(CUPRIM_REDUCE_AUTO, tf.d_in, n, CUPRIM_F32, CUPRIM_SUM);
  tf_result main_result;
  if (!run_and_check(&c, 1, tf.stream, &ref_f32, "random (main thread)", seed + 1, &main_result)) {
    free(h_u64);
    free(h_f32);
    return;
  }

  thread_job jobs[THREADS];
  pthread_t threads[THREADS];
  for (int i = 0; i < THREADS; ++i) {
    memset(&jobs[i], 0, sizeof jobs[i]);
    jobs[i].n = n;
    jobs[i].h_u64 = h_u64;
    memcpy(&jobs[i].want_u64, ref_u64.bits, 8);
    jobs[i].h_f32 = h_f32;
    memcpy(jobs[i].want_f32, tf_slot_host(&tf.out, &main_result.slot), 4);
    jobs[i].iterations = tf.quick ? 2 : 8;
  }
  for (int i = 0; i < THREADS; ++i)
    assert_int_equal(pthread_create(&threads[i], NULL, thread_main, &jobs[i]), 0);
  for (int i = 0; i < THREADS; ++i)
    assert_int_equal(pthread_join(threads[i], NULL), 0);
  for (int i = 0; i < THREADS; ++i)
    if (jobs[i].failures)
      tf_failure("thread %d: %d failure(s), the first: %s (seed 0x%016" PRIx64 ")", i,
                 jobs[i].failures, jobs[i].first_failure, seed);
  free(h_u64);
  free(h_f32);
}

/* ---------------------------------------------------------------- CUDA graphs */

/* The input of a graph round, and what each call must give. */
static hr_reduce_ref g_graph_refs[3]; /* n, n_small, the cluster's input */

#define GRAPH_N_SMALL 1000

static void graph_round(void *p, int count, int round, uint64_t seed, char *data, size_t len) {
  call *calls = (call *)p;
  const uint64_t n = calls[0].n, n_small = GRAPH_N_SMALL;
  hr_reduce_fill(CUPRIM_U32, CUPRIM_SUM, HR_DATA_RANDOM, seed, tf.h_in, n);
  hr_reduce_reference(CUPRIM_U32, CUPRIM_SUM, tf.h_in, n, &g_graph_refs[0]);
  hr_reduce_reference(CUPRIM_U32, CUPRIM_SUM, tf.h_in, n_small, &g_graph_refs[1]);
  hr_reduce_reference(CUPRIM_U32, CUPRIM_SUM, tf.h_in, n_small * 60, &g_graph_refs[2]);
  tf_upload(tf.d_in, tf.h_in, n * sizeof(uint32_t), tf.stream);
  for (int i = 0; i < count; ++i)
    calls[i].ref = &g_graph_refs[calls[i].n == n ? 0 : calls[i].n == n_small ? 1 : 2];
  snprintf(data, len, "random, graph replay %d", round);
}

/* Every algorithm (and cuprim_reduce, on a large and a small input) captured into one graph:
 * capture enqueues and runs nothing; each replay reads whatever the input buffer holds then. */
TF_TEST(test_graph_capture) {
  const uint64_t n = tf.quick ? 65537 : (1u << 20) + 1, n_small = GRAPH_N_SMALL;
  const cuprim_dtype t = CUPRIM_U32; /* graph_round fills U32 SUM data */
  const cuprim_op op = CUPRIM_SUM;

  call calls[NUM_ALGS + 4]; /* calls[0]: n elements (graph_round reads n from it) */
  calls[0] = make_call(SHORTHAND, tf.d_in, n, t, op);
  for (int a = 1; a < NUM_ALGS; ++a)
    calls[a] = make_call(a, tf.d_in, n, t, op);
  calls[NUM_ALGS] = make_call(SHORTHAND, tf.d_in, n_small, t, op);
  calls[NUM_ALGS + 1] = make_call(CUPRIM_REDUCE_AUTO, tf.d_in, n_small, t, op);
  /* AUTO's cooperative grid (a grid barrier) under capture too: the table picks it only for
   * larger inputs. */
  calls[NUM_ALGS + 2] = make_call(TUNED, tf.d_in, n, t, op);
  calls[NUM_ALGS + 2].tune.single_block_max_chunks = 0;
  calls[NUM_ALGS + 2].tune.grid_sync_min_chunks = 0;
  /* And the cluster kernel (a cluster launch) on an input it takes (up to 64 chunks). */
  calls[NUM_ALGS + 3] = make_call(TUNED, tf.d_in, n_small * 60, t, op);
  calls[NUM_ALGS + 3].tune.cluster_max_chunks = 64;
  calls[NUM_ALGS + 3].tune.grid_sync_min_chunks = UINT32_MAX;
  const int count = NUM_ALGS + 4;

  tf_graph_rounds(&ops, calls, count, n, graph_round);
}

/* ---------------------------------------------------------------- determinism */

/* AUTO float SUM: the same bits on every run, and for the same values at a misaligned address
 * (d_in2 + 1 element); cuprim_reduce gives the same bits. The ladder kernels other than ATOMIC
 * are deterministic on one GPU (reduce.h): the same bits on two runs. */
TF_TEST(test_determinism) {
  const uint64_t n = tf.quick ? (1u << 17) + 3 : (1u << 22) + 3;
  for (int ti = 0; ti < HR_NUM_FLOAT_DTYPES; ++ti) {
    const cuprim_dtype t = hr_float_dtypes[ti];
    const size_t esize = cuprim_dtype_size(t);
    const uint64_t seed = tf_case_seed(0xDE7, t, 0, n);
    hr_reduce_fill(t, CUPRIM_SUM, HR_DATA_RANDOM, seed, tf.h_in, n);
    unsigned char *moved = tf.d_in2 + esize;
    tf_upload(tf.d_in, tf.h_in, n * esize, tf.stream);
    tf_upload(moved, tf.h_in, n * esize, tf.stream);
    hr_reduce_ref ref;
    hr_reduce_reference(t, CUPRIM_SUM, tf.h_in, n, &ref);

    call calls[MAX_SLOTS];
    int count = 0;
    for (int r = 0; r < 3; ++r)
      calls[count++] = make_call(CUPRIM_REDUCE_AUTO, tf.d_in, n, t, CUPRIM_SUM);
    calls[count++] = make_call(CUPRIM_REDUCE_AUTO, moved, n, t, CUPRIM_SUM);
    calls[count++] = make_call(SHORTHAND, moved, n, t, CUPRIM_SUM);
    const int ladder_first = count;
    for (int a = CUPRIM_REDUCE_GLOBAL_TREE; a < CUPRIM_REDUCE_ATOMIC; ++a)
      for (int r = 0; r < 2; ++r)
        calls[count++] = make_call(a, tf.d_in, n, t, CUPRIM_SUM);
    tf_result res[MAX_SLOTS];
    if (run_and_check(calls, count, tf.stream, &ref, "random", seed, res) != count)
      continue;
    for (int i = 1; i < ladder_first; ++i)
      check_same_bits(&tf.out, res, 0, i, &calls[0], &calls[i],
                      i < 3 ? "AUTO: same input, same bits"
                            : "AUTO: same values at d_in2+1 element, same bits",
                      seed);
    for (int i = ladder_first; i < count; i += 2)
      check_same_bits(&tf.out, res, i, i + 1, &calls[i], &calls[i + 1],
                      "a ladder kernel other than ATOMIC: same bits on one GPU", seed);
  }
}

/* Which AUTO kernel runs (one group for one chunk; one block for a few; a plain grid chained to a
 * finishing block by programmatic dependent launch; a cooperative grid with a grid barrier) never
 * changes the bits: the internal entry point forces each for the same input. Sizes around AUTO's
 * chunk (4096 four-byte or 2048 eight-byte elements) up to 64 chunks, the single-block kernel's
 * limit, and (not in quick mode) past CHUNK chunks, where the chunk results take a second level. */
TF_TEST(test_auto_kernel_choice_same_bits) {
  const cuprim_dtype dtypes[] = {CUPRIM_F32, CUPRIM_F64, CUPRIM_I32, CUPRIM_F16, CUPRIM_BF16};
  const cuprim_op ops[] = {CUPRIM_SUM, CUPRIM_PROD, CUPRIM_MAX};
  for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; ++d)
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; ++o) {
      const cuprim_dtype t = dtypes[d];
      /* A chunk is 1024 vectors of 16 bytes; the chunk results, and every level above them, are of
       * the accumulate type (float for F16 and BF16), whose chunks are CA elements. */
      const uint64_t C = 16 / cuprim_dtype_size(t) * 1024, CA = t == CUPRIM_F64 ? 2048 : 4096;
      const uint64_t sizes[] = {1,           5,          C / 2 + 3,  C - 1,
                                C,           C + 1,      2 * C + 3,  4 * C,
                                4 * C + 1,   17 * C + 5, 63 * C + 7, 64 * C,
                                200 * C + 3, C * CA - 1, C * CA + 5, 3 * C * CA + 7 * C + 1};
      const size_t nsizes = tf.quick ? 12 : sizeof sizes / sizeof sizes[0];
      const uint64_t max_n = tf.quick ? 64 * C : 3 * C * CA + 7 * C + 1;
      const uint64_t seed = tf_case_seed(0xA07, t, ops[o], 0);
      tf_reduce_input(t, ops[o], HR_DATA_RANDOM, seed, max_n, tf.stream);
      for (size_t k = 0; k < nsizes; ++k) {
        if (!tf_shard_case())
          continue;
        const uint64_t n = sizes[k];
        hr_reduce_ref ref;
        hr_reduce_reference(t, ops[o], tf.h_in, n, &ref);
        call calls[7];
        calls[0] = make_call(TUNED, tf.d_in, n, t, ops[o]);
        calls[0].tune.single_block_max_chunks = 64; /* one block up to 64 chunks */
        calls[0].tune.grid_sync_min_chunks = UINT32_MAX;
        calls[1] = make_call(TUNED, tf.d_in, n, t, ops[o]);
        calls[1].tune.single_block_max_chunks = 0; /* plain grid + finishing block (PDL) */
        calls[1].tune.grid_sync_min_chunks = UINT32_MAX;
        calls[2] = make_call(TUNED, tf.d_in, n, t, ops[o]);
        calls[2].tune.single_block_max_chunks = 0; /* cooperative grid */
        calls[2].tune.grid_sync_min_chunks = 0;
        calls[3] = make_call(SHORTHAND, tf.d_in, n, t, ops[o]);
        calls[4] = calls[1]; /* the same two kernels with prefetching loads */
        calls[4].tune.l2_prefetch_max_chunks = UINT32_MAX;
        calls[5] = calls[2];
        calls[5].tune.l2_prefetch_max_chunks = UINT32_MAX;
        calls[6] = make_call(TUNED, tf.d_in, n, t, ops[o]); /* one thread-block cluster */
        calls[6].tune.single_block_max_chunks = 0;
        calls[6].tune.cluster_max_chunks = 256;
        calls[6].tune.cluster_max_blocks = 16;
        calls[6].tune.grid_sync_min_chunks = UINT32_MAX;
        const int count = n <= 256 * C ? 7 : 6; /* the cluster kernel takes up to 256 chunks */
        tf_result res[7];
        if (run_and_check(calls, count, tf.stream, &ref, "random", seed, res) == count)
          for (int i = 1; i < count; ++i)
            check_same_bits(&tf.out, res, 0, i, &calls[0], &calls[i], "AUTO's kernel choice", seed);
      }
    }
}

/* ---------------------------------------------------------------- allocators */

static void counting_case(cuprim_ctx *ctx, const tf_alloc_case *c, uint64_t seed) {
  tf_reduce_input(c->t, c->op, HR_DATA_RANDOM, seed, c->n, tf.stream);
  hr_reduce_ref ref;
  hr_reduce_reference(c->t, c->op, tf.h_in, c->n, &ref);
  run_all(ctx, tf.d_in, c->n, c->t, c->op, tf.stream, &ref, "random, counting allocator", seed);
}

static const tf_alloc_case counting_cases[] = {
    /* dtype, op, n, quick_n */
    {CUPRIM_U64, CUPRIM_SUM, 1000, 1000},
    {CUPRIM_U64, CUPRIM_SUM, (1u << 20) + 1, 65537},
    {CUPRIM_F32, CUPRIM_SUM, (1u << 22) + 3, (1u << 17) + 3},
    {CUPRIM_I32, CUPRIM_MAX, (1u << 24) + 5, 100003}};

TF_COUNTING_ALLOCATOR_CASES(counting_cases, counting_case, "GLOBAL_TREE needs a scratch copy")

/* Calls that need temporary memory return OUT_OF_MEMORY having launched nothing (their output
 * untouched); calls that need none (small inputs, ATOMIC) may succeed, but never with a wrong
 * result. */
static void failing_cases(cuprim_ctx *ctx) {
  const cuprim_dtype t = CUPRIM_U32;
  const cuprim_op op = CUPRIM_SUM;
  /* Past AUTO's single-block limit (64 chunks of 4096): AUTO must take temporary memory. */
  const uint64_t n_big = tf.quick ? 64 * 4096 + 1 : 1u << 24;
  const uint64_t n_mid = tf.quick ? 65537 : (1u << 20) + 1;
  const uint64_t seed = tf_case_seed(0xFA11, t, op, n_big);
  tf_reduce_input(t, op, HR_DATA_RANDOM, seed, n_big, tf.stream);
  hr_reduce_ref ref_big, ref_mid, ref_small, ref_two;
  hr_reduce_reference(t, op, tf.h_in, n_big, &ref_big);
  hr_reduce_reference(t, op, tf.h_in, n_mid, &ref_mid);
  hr_reduce_reference(t, op, tf.h_in, 1000, &ref_small);
  hr_reduce_reference(t, op, tf.h_in, 2, &ref_two);

  call calls[MAX_SLOTS];
  int must_fail[MAX_SLOTS];
  int count = 0;
#define ADD(alg_, n_, ref_, must_)                                                                 \
  do {                                                                                             \
    calls[count] = make_call((alg_), tf.d_in, (n_), t, op);                                        \
    calls[count].ref = (ref_);                                                                     \
    must_fail[count++] = (must_);                                                                  \
  } while (0)
  ADD(CUPRIM_REDUCE_AUTO, n_big, &ref_big, 1);
  ADD(SHORTHAND, n_big, &ref_big, 1);
  ADD(CUPRIM_REDUCE_GLOBAL_TREE, 2, &ref_two, 1); /* the scratch copy */
  ADD(CUPRIM_REDUCE_GLOBAL_TREE, 1000, &ref_small, 1);
  ADD(CUPRIM_REDUCE_GLOBAL_TREE, n_mid, &ref_mid, 1);
  for (int alg = 0; alg < NUM_ALGS; ++alg) {
    ADD(alg, 1000, &ref_small, 0);
    ADD(alg, n_mid, &ref_mid, 0);
  }
#undef ADD
  tf_result res[MAX_SLOTS];
  const tf_case cs = {"random, failing allocator", seed, 0};
  tf_run_out_of_memory(&ops, ctx, calls, count, res, must_fail, &cs);
}

TF_FAILING_ALLOCATOR_TEST(failing_cases)

/* ---------------------------------------------------------------- past 2^31 and 2^32 elements */

/* U32 SUM of formula data (test_device_fill.h) through every algorithm at 2^31 + 17 elements, and
 * at 2^32 + 17 when the GPU has room; F32 SUM at 2^31 + 17. The data is generated on the device
 * and the reference computed from the same formula on the host: no 8 GB copies. A context of its
 * own, destroyed at the end, so that the scratch copies its pool keeps are given back. */
TU_TEST(test_large_input) {
  (void)state;
  const uint64_t n31 = (1ull << 31) + 17, n32 = (1ull << 32) + 17;
  /* The input, plus GLOBAL_TREE's scratch copy of it from the context's pool, which keeps freed
   * memory: at 2^32 + 17 the pool still holds the 2^31 + 17 copy when it takes the larger one. */
  const size_t margin = (size_t)1 << 30;
  const size_t need31 = 2 * n31 * sizeof(uint32_t) + margin;
  const size_t need32 = (2 * n32 + n31) * sizeof(uint32_t) + margin;
  const size_t free_bytes = tf_begin_large("large inputs", need31);
  const uint64_t n_max = free_bytes >= need32 ? n32 : n31;
  if (n_max == n31)
    print_message("large inputs: %.1f GiB free, %.1f GiB needed for 2^32+17: 2^31+17 only\n",
                  free_bytes / TF_GIB, need32 / TF_GIB);

  cuprim_ctx *ctx = tf_context(NULL);
  uint32_t *d_big = NULL;
  TF_CUDA(cudaMalloc((void **)&d_big, n_max * sizeof(uint32_t)));
  TF_CUDA(tu_device_fill_u32(d_big, n_max, tf.stream));

  /* The host reference runs while the device fills. */
  uint32_t sum31 = 0, sum_max;
  for (uint64_t i = 0; i < n31; ++i)
    sum31 += tu_fill_u32_formula(i);
  sum_max = sum31;
  for (uint64_t i = n31; i < n_max; ++i)
    sum_max += tu_fill_u32_formula(i);

  const uint64_t ns[] = {n31, n_max};
  const int nn = n_max == n31 ? 1 : 2;
  for (int k = 0; k < nn; ++k) {
    hr_reduce_ref ref;
    memset(&ref, 0, sizeof ref);
    ref.dtype = CUPRIM_U32;
    ref.op = CUPRIM_SUM;
    ref.n = ns[k];
    ref.exact = 1;
    const uint32_t want = k == 0 ? sum31 : sum_max;
    memcpy(ref.bits, &want, sizeof want);
    run_all(ctx, d_big, ns[k], CUPRIM_U32, CUPRIM_SUM, tf.stream, &ref,
            "(u32)(i * 2654435761) >> 7", 0);
  }

  /* F32: (i % 1000) / 4, every value exact in float; the exact sum in integers. */
  float *d_f32 = (float *)(void *)d_big;
  TF_CUDA(tu_device_fill_f32(d_f32, n31, tf.stream));
  const uint64_t q = n31 / 1000, r = n31 % 1000;
  const uint64_t quarters = q * (999 * 1000 / 2) + r * (r - 1) / 2; /* the sum of i % 1000 */
  hr_reduce_ref ref;
  memset(&ref, 0, sizeof ref);
  ref.dtype = CUPRIM_F32;
  ref.op = CUPRIM_SUM;
  ref.n = n31;
  ref.value = (long double)quarters * 0.25L;
  ref.abs_sum = ref.value;
  const float rounded = (float)ref.value;
  memcpy(ref.bits, &rounded, sizeof rounded);
  run_all(ctx, d_f32, n31, CUPRIM_F32, CUPRIM_SUM, tf.stream, &ref, "(i % 1000) * 0.25f", 0);
  TF_CUDA(cudaFree(d_big));
  assert_int_equal(cuprim_ctx_destroy(ctx), CUPRIM_SUCCESS);
  tf_end();
}

TF_MAIN(&config)
