/* cuprim_reduce and cuprim_reduce_ex on a GPU, against a plain C reference on the host.
 *
 * Every algorithm x dtype x op x size x data, n == 0, NaN and infinities, misaligned inputs, the
 * legacy, per-thread and non-blocking streams, several streams and threads sharing a context, CUDA
 * graph capture and replay, determinism, user allocators (counting, and one that always fails),
 * argument errors with a real context, and inputs past 2^31 and 2^32 elements.
 *
 * Each output is one element inside a 96-byte slot of device memory whose other bytes are guards:
 * the whole slot is poisoned before each call and the guards must come back untouched, the
 * output written. One call's failure does not stop the test: failures are counted and printed
 * with the algorithm, dtype, op, n, data kind and seed, and the test fails at its end.
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
#include "test_util.h"

/* ---------------------------------------------------------------- fixture */

#define NUM_ALGS 10          /* CUPRIM_REDUCE_AUTO .. CUPRIM_REDUCE_ATOMIC */
#define SWEEP_CALLS 11       /* every alg through cuprim_reduce_ex, then cuprim_reduce */
#define MAX_SLOTS 32         /* output slots per batch */
#define SLOT_BYTES 96        /* one output element and its guards */
#define POISON 0xA5          /* the guard and poison byte */
#define SWEEP_MAX (1u << 21) /* sizes above this run with random data only */
/* Input capacity: the largest sweep size (2^24 + 2*4096 + 3 four-byte elements), the failing
 * allocator's 2^24 elements and the determinism input (2^22 + 3 eight-byte elements), plus room
 * for misaligned offsets. */
#define IN_CAP_BYTES ((size_t)212 << 20) /* 3 * 4096^2 + 7 * 4096 + 1 floats */

/* The output element's offset in its slot: element-aligned but not 16-byte aligned (36 for
 * 4-byte dtypes, 40 for 8-byte ones), with guards on both sides. */
static size_t out_offset(cuprim_dtype t) { return 32 + cuprim_dtype_size(t); }

static struct fixture {
  cudaError_t setup_error; /* the first CUDA failure of the group setup, if any */
  const char *setup_what;
  cuprim_status ctx_status;
  cuprim_ctx *ctx;     /* one context for the whole file (default allocator) */
  cudaStream_t stream; /* non-blocking: where most calls run */
  hr_gpu_shape shape;
  unsigned char *d_in, *d_in2;  /* IN_CAP_BYTES each */
  unsigned char *h_in;          /* pinned, IN_CAP_BYTES */
  unsigned char *d_out, *h_out; /* MAX_SLOTS * SLOT_BYTES (h_out pinned) */
  unsigned char *d_out2, *h_out2;
  uint64_t seed;
  int quick;
  int fails; /* failed checks in the running test */
} g;

#define SETUP_CUDA(call)                                                                           \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      g.setup_error = e_;                                                                          \
      g.setup_what = #call;                                                                        \
      (void)cudaGetLastError();                                                                    \
      return 0;                                                                                    \
    }                                                                                              \
  } while (0)

/* Records what fails; never fails or skips itself (cmocka 1.1.5 counts a skip here as an
 * error): each test decides, in its body, to skip (no device) or fail (setup failed). */
static int group_setup(void **state) {
  (void)state;
  g.seed = tu_seed();
  g.quick = tu_quick();
  g.ctx_status = CUPRIM_ERROR_NO_DEVICE;
  print_message("mode: %s\n", g.quick ? "quick (CUPRIM_TEST_QUICK)" : "full");
  char reason[256];
  if (!tu_device_available(reason, sizeof reason)) {
    print_message("%s: every test will be skipped\n", reason);
    return 0;
  }
  int sms = 0, blocks = 0;
  SETUP_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  SETUP_CUDA(cudaDeviceGetAttribute(&blocks, cudaDevAttrMaxBlocksPerMultiprocessor, 0));
  g.shape.sm_count = (unsigned)sms;
  g.shape.max_blocks_per_sm = (unsigned)blocks;
  struct cudaDeviceProp prop;
  SETUP_CUDA(cudaGetDeviceProperties(&prop, 0));
  print_message("device 0: %s, sm_%d%d, %d SMs\n", prop.name, prop.major, prop.minor, sms);

  g.ctx_status = cuprim_ctx_create(&g.ctx, 0, NULL);
  SETUP_CUDA(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking));
  SETUP_CUDA(cudaMalloc((void **)&g.d_in, IN_CAP_BYTES));
  SETUP_CUDA(cudaMalloc((void **)&g.d_in2, IN_CAP_BYTES));
  SETUP_CUDA(cudaMallocHost((void **)&g.h_in, IN_CAP_BYTES));
  SETUP_CUDA(cudaMalloc((void **)&g.d_out, MAX_SLOTS * SLOT_BYTES));
  SETUP_CUDA(cudaMallocHost((void **)&g.h_out, MAX_SLOTS * SLOT_BYTES));
  SETUP_CUDA(cudaMalloc((void **)&g.d_out2, MAX_SLOTS * SLOT_BYTES));
  SETUP_CUDA(cudaMallocHost((void **)&g.h_out2, MAX_SLOTS * SLOT_BYTES));
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  if (g.stream)
    (void)cudaStreamSynchronize(g.stream);
  if (g.ctx)
    (void)cuprim_ctx_destroy(g.ctx);
  (void)cudaFree(g.d_in);
  (void)cudaFree(g.d_in2);
  (void)cudaFreeHost(g.h_in);
  (void)cudaFree(g.d_out);
  (void)cudaFreeHost(g.h_out);
  (void)cudaFree(g.d_out2);
  (void)cudaFreeHost(g.h_out2);
  if (g.stream)
    (void)cudaStreamDestroy(g.stream);
  return 0;
}

/* The first lines of every GPU test: skip without a device, fail if the setup failed. */
static void begin_gpu_test(void) {
  TU_SKIP_WITHOUT_DEVICE();
  g.fails = 0;
  if (g.setup_error != cudaSuccess)
    fail_msg("group setup failed: %s: %s (%s)", g.setup_what, cudaGetErrorString(g.setup_error),
             cudaGetErrorName(g.setup_error));
  if (g.ctx_status != CUPRIM_SUCCESS)
    fail_msg("cuprim_ctx_create(device 0) failed: %s (%s); last CUDA error %s",
             tu_status_name(g.ctx_status), cuprim_status_string(g.ctx_status),
             cudaGetErrorName(cuprim_last_cuda_error()));
}

/* One failed check: printed (the first 40 of a test), counted. */
#define MAX_PRINTED 40
static void failure(const char *fmt, ...) {
  if (g.fails < MAX_PRINTED) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    print_error("FAILED: %s\n", buf);
  } else if (g.fails == MAX_PRINTED) {
    print_error("FAILED: ... (further failures of this test are counted, not printed)\n");
  }
  ++g.fails;
}

static void end_gpu_test(void) {
  if (g.fails)
    fail_msg("%d check(s) failed (base seed CUPRIM_TEST_SEED=0x%" PRIx64 ")", g.fails, g.seed);
}

/* The seed of one case: a function of the base seed and the case's parameters. */
static uint64_t case_seed(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  return hr_mix(hr_mix(hr_mix(hr_mix(g.seed, a), b), c), d);
}

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
} call;

static call make_call(int alg, const void *d_in, uint64_t n, cuprim_dtype t, cuprim_op op) {
  call c;
  memset(&c, 0, sizeof c);
  c.alg = alg;
  c.d_in = d_in;
  c.n = n;
  c.dtype = t;
  c.op = op;
  return c;
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

static void *slot_out(unsigned char *region, int i, cuprim_dtype t) {
  return region + (size_t)i * SLOT_BYTES + out_offset(t);
}

static cuprim_status issue(cuprim_ctx *ctx, const call *c, void *d_out, cudaStream_t stream) {
  switch (c->alg) {
  case SHORTHAND:
    return cuprim_reduce(ctx, c->d_in, d_out, c->n, c->dtype, c->op, stream);
  case TUNED:
    return cuprim__reduce_auto_tuned(ctx, c->d_in, d_out, c->n, c->dtype, c->op, stream,
                                     &c->tune);
  default:
    return cuprim_reduce_ex(ctx, (cuprim_reduce_alg)c->alg, c->d_in, d_out, c->n, c->dtype, c->op,
                            stream);
  }
}

/* Poisons `count` slots of d_out, enqueues call i into slot i on `stream`, and enqueues the copy
 * of the slots back to h_out. Nothing waits. */
static void enqueue_calls(cuprim_ctx *ctx, const call *calls, int count, cudaStream_t stream,
                          unsigned char *d_out, unsigned char *h_out, cuprim_status *st) {
  assert_true(count <= MAX_SLOTS);
  TU_CUDA(cudaMemsetAsync(d_out, POISON, (size_t)count * SLOT_BYTES, stream));
  for (int i = 0; i < count; ++i)
    st[i] = issue(ctx, &calls[i], slot_out(d_out, i, calls[i].dtype), stream);
  TU_CUDA(
      cudaMemcpyAsync(h_out, d_out, (size_t)count * SLOT_BYTES, cudaMemcpyDeviceToHost, stream));
}

static void finish(cudaStream_t stream) {
  TU_CUDA(cudaStreamSynchronize(stream)); /* a fault in a kernel shows up here */
  TU_CUDA(cudaGetLastError());
}

static void run_calls(const call *calls, int count, cudaStream_t stream, cuprim_status *st) {
  enqueue_calls(g.ctx, calls, count, stream, g.d_out, g.h_out, st);
  finish(stream);
}

static void upload(void *d, const void *h, size_t bytes, cudaStream_t stream) {
  const unsigned char *p = (const unsigned char *)d;
  const int in1 = p >= g.d_in && p <= g.d_in + IN_CAP_BYTES;
  const int in2 = p >= g.d_in2 && p <= g.d_in2 + IN_CAP_BYTES;
  if (bytes > IN_CAP_BYTES || (in1 && (size_t)(p - g.d_in) + bytes > IN_CAP_BYTES) ||
      (in2 && (size_t)(p - g.d_in2) + bytes > IN_CAP_BYTES))
    fail_msg("test bug: %zu bytes do not fit in the input buffers (IN_CAP_BYTES)", bytes);
  TU_CUDA(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, stream));
}

static void describe(char *buf, size_t len, const call *c, const char *data, uint64_t seed) {
  snprintf(buf, len, "%s %s %s n=%" PRIu64 " data=%s seed=0x%016" PRIx64, call_name(c),
           hr_dtype_name(c->dtype), hr_op_name(c->op), c->n, data, seed);
}

/* The guards of slot i must hold the poison. */
static int check_guards(const unsigned char *region, int i, cuprim_dtype t, const char *what) {
  const unsigned char *slot = region + (size_t)i * SLOT_BYTES;
  const size_t at = out_offset(t), size = cuprim_dtype_size(t);
  size_t bad = tu_pattern_mismatch(slot, at, POISON);
  if (bad != at) {
    failure("%s: wrote before d_out (guard byte d_out-%zu is 0x%02x)", what, at - bad, slot[bad]);
    return 0;
  }
  const size_t tail = SLOT_BYTES - at - size;
  bad = tu_pattern_mismatch(slot + at + size, tail, POISON);
  if (bad != tail) {
    failure("%s: wrote past d_out (guard byte d_out+%zu is 0x%02x)", what, size + bad,
            slot[at + size + bad]);
    return 0;
  }
  return 1;
}

/* Slot i must be entirely untouched (a call that failed writes nothing). */
static int check_untouched(const unsigned char *region, int i, const char *what) {
  const size_t bad = tu_pattern_mismatch(region + (size_t)i * SLOT_BYTES, SLOT_BYTES, POISON);
  if (bad != SLOT_BYTES) {
    failure("%s: returned an error but wrote the output slot (byte %zu)", what, bad);
    return 0;
  }
  return 1;
}

/* The full check of a successful call: status, guards, output written, value. */
static int check_slot(const unsigned char *region, int i, const call *c, cuprim_status st,
                      const hr_reduce_ref *ref, const char *data, uint64_t seed) {
  char what[256], why[512];
  describe(what, sizeof what, c, data, seed);
  if (st != CUPRIM_SUCCESS) {
    failure("%s: returned %s (last CUDA error %s)", what, tu_status_name(st),
            cudaGetErrorName(cuprim_last_cuda_error()));
    return 0;
  }
  if (!check_guards(region, i, c->dtype, what))
    return 0;
  const size_t size = cuprim_dtype_size(c->dtype);
  const unsigned char *got = region + (size_t)i * SLOT_BYTES + out_offset(c->dtype);
  const int poison_expected = ref->exact && tu_pattern_mismatch(ref->bits, size, POISON) == size;
  if (tu_pattern_mismatch(got, size, POISON) == size && !poison_expected) {
    failure("%s: d_out was not written (still the poison pattern)", what);
    return 0;
  }
  if (!hr_reduce_check(ref, tolerance_alg(c), &g.shape, got, why, sizeof why)) {
    failure("%s: %s", what, why);
    return 0;
  }
  return 1;
}

/* Calls i and j must have given the same bits. */
static void check_same_bits(const unsigned char *region, int i, int j, const call *ci,
                            const call *cj, const char *why_same, uint64_t seed) {
  const size_t size = cuprim_dtype_size(ci->dtype);
  const unsigned char *a = region + (size_t)i * SLOT_BYTES + out_offset(ci->dtype);
  const unsigned char *b = region + (size_t)j * SLOT_BYTES + out_offset(cj->dtype);
  if (memcmp(a, b, size) != 0) {
    char va[96], vb[96], what[256];
    hr_format_value_bits(ci->dtype, a, va, sizeof va);
    hr_format_value_bits(cj->dtype, b, vb, sizeof vb);
    describe(what, sizeof what, ci, "-", seed);
    failure("%s: %s gave %s but %s gave %s (%s)", what, call_name(ci), va, call_name(cj), vb,
            why_same);
  }
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
  const uint64_t *base = g.quick ? quick : full;
  const size_t nbase = g.quick ? sizeof quick / sizeof quick[0] : sizeof full / sizeof full[0];
  size_t k = 0;
  for (size_t i = 0; i < nbase && k < cap; ++i)
    sizes[k++] = base[i];
  /* Random sizes, log-uniform in [2, 2^21) (quick: [2, 2^17)); the same for every dtype. */
  uint64_t s = hr_mix(g.seed, 0x512E5);
  const int count = g.quick ? 1 : 3;
  const double top = g.quick ? 17.0 : 21.0;
  for (int i = 0; i < count && k < cap; ++i)
    sizes[k++] = (uint64_t)exp2(1.0 + hr_unit(&s) * (top - 1.0));
  if (!g.quick && k < cap)
    sizes[k++] = cuprim_dtype_size(t) == 4 ? (1u << 24) + 2 * 4096 + 3 : (1u << 22) + 3 * 2048 + 5;
  return k;
}

/* ---------------------------------------------------------------- the sweep */

/* Every alg (and cuprim_reduce) x every op x size x data kind for one dtype. One reference per
 * (op, size, data), shared by the eleven calls. */
static void sweep(cuprim_dtype t) {
  begin_gpu_test();
  uint64_t sizes[64];
  const size_t nsizes = sweep_sizes(t, sizes, 64);
  const size_t esize = cuprim_dtype_size(t);
  const int kinds = g.quick ? 1 : HR_DATA_KINDS;
  unsigned long cases = 0;
  for (int op = 0; op <= CUPRIM_XOR; ++op) {
    if (!hr_reduce_supported(t, (cuprim_op)op))
      continue;
    for (int kind = 0; kind < kinds; ++kind)
      for (size_t k = 0; k < nsizes; ++k) {
        const uint64_t n = sizes[k];
        if (kind != HR_DATA_RANDOM && n > SWEEP_MAX)
          continue;
        const uint64_t seed = case_seed(t, (uint64_t)op, (uint64_t)kind, n);
        hr_reduce_fill(t, (cuprim_op)op, (hr_data_kind)kind, seed, g.h_in, n);
        upload(g.d_in, g.h_in, n * esize, g.stream);
        hr_reduce_ref ref;
        hr_reduce_reference(t, (cuprim_op)op, g.h_in, n, &ref);

        call calls[SWEEP_CALLS];
        for (int a = 0; a < NUM_ALGS; ++a)
          calls[a] = make_call(a, g.d_in, n, t, (cuprim_op)op);
        calls[NUM_ALGS] = make_call(SHORTHAND, g.d_in, n, t, (cuprim_op)op);
        cuprim_status st[SWEEP_CALLS];
        run_calls(calls, SWEEP_CALLS, g.stream, st);

        int ok = 1;
        for (int i = 0; i < SWEEP_CALLS; ++i)
          ok &= check_slot(g.h_out, i, &calls[i], st[i], &ref, hr_data_name((hr_data_kind)kind),
                           seed);
        if (ok) /* cuprim_reduce is cuprim_reduce_ex with AUTO, and AUTO is deterministic */
          check_same_bits(g.h_out, 0, NUM_ALGS, &calls[0], &calls[NUM_ALGS],
                          "cuprim_reduce must equal cuprim_reduce_ex(AUTO)", seed);
        ++cases;
      }
  }
  print_message("%s: %lu cases x %d calls\n", hr_dtype_name(t), cases, SWEEP_CALLS);
  end_gpu_test();
}

static void test_sweep_i32(void **state) {
  (void)state;
  sweep(CUPRIM_I32);
}
static void test_sweep_u32(void **state) {
  (void)state;
  sweep(CUPRIM_U32);
}
static void test_sweep_i64(void **state) {
  (void)state;
  sweep(CUPRIM_I64);
}
static void test_sweep_u64(void **state) {
  (void)state;
  sweep(CUPRIM_U64);
}
static void test_sweep_f32(void **state) {
  (void)state;
  sweep(CUPRIM_F32);
}
static void test_sweep_f64(void **state) {
  (void)state;
  sweep(CUPRIM_F64);
}

static const cuprim_dtype reduce_dtypes[] = {CUPRIM_I32, CUPRIM_U32, CUPRIM_I64,
                                             CUPRIM_U64, CUPRIM_F32, CUPRIM_F64};
#define NUM_REDUCE_DTYPES (sizeof reduce_dtypes / sizeof reduce_dtypes[0])

/* ---------------------------------------------------------------- n == 0 */

/* n == 0 writes the identity, exactly, with d_in NULL or not, through every algorithm. */
static void test_empty_input(void **state) {
  (void)state;
  begin_gpu_test();
  for (size_t d = 0; d < NUM_REDUCE_DTYPES; ++d)
    for (int op = 0; op <= CUPRIM_XOR; ++op) {
      const cuprim_dtype t = reduce_dtypes[d];
      if (!hr_reduce_supported(t, (cuprim_op)op))
        continue;
      hr_reduce_ref ref;
      hr_reduce_reference(t, (cuprim_op)op, NULL, 0, &ref);
      call calls[2 * SWEEP_CALLS];
      for (int null_in = 0; null_in < 2; ++null_in) {
        const void *in = null_in ? NULL : g.d_in;
        for (int a = 0; a < NUM_ALGS; ++a)
          calls[null_in * SWEEP_CALLS + a] = make_call(a, in, 0, t, (cuprim_op)op);
        calls[null_in * SWEEP_CALLS + NUM_ALGS] = make_call(SHORTHAND, in, 0, t, (cuprim_op)op);
      }
      cuprim_status st[2 * SWEEP_CALLS];
      run_calls(calls, 2 * SWEEP_CALLS, g.stream, st);
      for (int i = 0; i < 2 * SWEEP_CALLS; ++i)
        check_slot(g.h_out, i, &calls[i], st[i], &ref,
                   i < SWEEP_CALLS ? "empty" : "empty, d_in NULL", 0);
    }
  end_gpu_test();
}

/* ---------------------------------------------------------------- NaN and infinities */

typedef enum special {
  NAN_FIRST,
  NAN_LAST,
  NAN_MIDDLE,
  NAN_RANDOM,
  NAN_TWO,
  NAN_NEGATIVE,
  NAN_ALL,
  INF_WINS,
  INF_LOSES,
  SPECIALS
} special;
static const char *const special_names[] = {"NaN first",  "NaN last",      "NaN middle",
                                            "NaN random", "two NaNs",      "-NaN",
                                            "all NaN",    "inf that wins", "inf that loses"};

static void put_float(cuprim_dtype t, void *h, uint64_t i, double v) {
  if (t == CUPRIM_F32)
    ((float *)h)[i] = (float)v;
  else
    ((double *)h)[i] = v;
}

/* Float MIN and MAX return NaN when any input is NaN, through every algorithm; an infinity is an
 * ordinary value. */
static void test_nan_and_inf(void **state) {
  (void)state;
  begin_gpu_test();
  static const uint64_t full[] = {1, 2, 33, 256, 257, 4097, 65537, 1000003};
  static const uint64_t quick[] = {1, 2, 33, 257, 4097, 65537};
  const uint64_t *sizes = g.quick ? quick : full;
  const size_t nsizes = g.quick ? sizeof quick / sizeof quick[0] : sizeof full / sizeof full[0];
  const double qnan = (double)NAN, inf = (double)INFINITY;
  for (int ti = 0; ti < 2; ++ti)
    for (int op = CUPRIM_MIN; op <= CUPRIM_MAX; ++op)
      for (size_t k = 0; k < nsizes; ++k)
        for (int sp = 0; sp < SPECIALS; ++sp) {
          const cuprim_dtype t = ti ? CUPRIM_F64 : CUPRIM_F32;
          const uint64_t n = sizes[k];
          const uint64_t seed = case_seed(0x4A4, t, (uint64_t)op * 16 + (uint64_t)sp, n);
          uint64_t s = seed;
          hr_reduce_fill(t, (cuprim_op)op, HR_DATA_RANDOM, seed, g.h_in, n);
          const double wins = op == CUPRIM_MIN ? -inf : inf;
          switch ((special)sp) {
          case NAN_FIRST:
            put_float(t, g.h_in, 0, qnan);
            break;
          case NAN_LAST:
            put_float(t, g.h_in, n - 1, qnan);
            break;
          case NAN_MIDDLE:
            put_float(t, g.h_in, n / 2, qnan);
            break;
          case NAN_RANDOM:
            put_float(t, g.h_in, hr_below(&s, n), qnan);
            break;
          case NAN_TWO:
            put_float(t, g.h_in, hr_below(&s, n), qnan);
            put_float(t, g.h_in, hr_below(&s, n), qnan);
            break;
          case NAN_NEGATIVE:
            put_float(t, g.h_in, hr_below(&s, n), copysign(qnan, -1.0));
            break;
          case NAN_ALL:
            for (uint64_t i = 0; i < n; ++i)
              put_float(t, g.h_in, i, qnan);
            break;
          case INF_WINS:
            put_float(t, g.h_in, hr_below(&s, n), wins);
            break;
          case INF_LOSES:
            put_float(t, g.h_in, hr_below(&s, n), -wins);
            break;
          default:
            break;
          }
          upload(g.d_in, g.h_in, n * cuprim_dtype_size(t), g.stream);
          hr_reduce_ref ref;
          hr_reduce_reference(t, (cuprim_op)op, g.h_in, n, &ref);
          if (sp < INF_WINS && !ref.nan)
            fail_msg("test bug: the reference of a NaN case is not NaN");
          call calls[SWEEP_CALLS];
          for (int a = 0; a < NUM_ALGS; ++a)
            calls[a] = make_call(a, g.d_in, n, t, (cuprim_op)op);
          calls[NUM_ALGS] = make_call(SHORTHAND, g.d_in, n, t, (cuprim_op)op);
          cuprim_status st[SWEEP_CALLS];
          run_calls(calls, SWEEP_CALLS, g.stream, st);
          for (int i = 0; i < SWEEP_CALLS; ++i)
            check_slot(g.h_out, i, &calls[i], st[i], &ref, special_names[sp], seed);
        }
  end_gpu_test();
}

/* ---------------------------------------------------------------- misaligned input */

/* d_in + 1 and d_in + 3 elements: element-aligned, not 16-byte aligned. */
static void test_misaligned_input(void **state) {
  (void)state;
  begin_gpu_test();
  static const uint64_t full[] = {1, 33, 2048, 2049, 4096, 4097, 8192, 16385, 65537, 1000003};
  static const uint64_t quick[] = {1, 33, 2049, 4096, 4097, 16385};
  const uint64_t *sizes = g.quick ? quick : full;
  const size_t nsizes = g.quick ? sizeof quick / sizeof quick[0] : sizeof full / sizeof full[0];
  static const unsigned offsets[] = {1, 3};
  for (size_t d = 0; d < NUM_REDUCE_DTYPES; ++d) {
    const cuprim_dtype t = reduce_dtypes[d];
    const size_t esize = cuprim_dtype_size(t);
    const int is_int = t != CUPRIM_F32 && t != CUPRIM_F64;
    const cuprim_op ops[] = {CUPRIM_SUM, CUPRIM_MAX, is_int ? CUPRIM_XOR : CUPRIM_PROD};
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; ++o)
      for (size_t k = 0; k < nsizes; ++k)
        for (size_t f = 0; f < sizeof offsets / sizeof offsets[0]; ++f) {
          const uint64_t n = sizes[k];
          const uint64_t seed = case_seed(0x3A1, t, ops[o] * 16u + offsets[f], n);
          hr_reduce_fill(t, ops[o], HR_DATA_RANDOM, seed, g.h_in, n);
          unsigned char *in = g.d_in + offsets[f] * esize;
          upload(in, g.h_in, n * esize, g.stream);
          hr_reduce_ref ref;
          hr_reduce_reference(t, ops[o], g.h_in, n, &ref);
          call calls[SWEEP_CALLS];
          for (int a = 0; a < NUM_ALGS; ++a)
            calls[a] = make_call(a, in, n, t, ops[o]);
          calls[NUM_ALGS] = make_call(SHORTHAND, in, n, t, ops[o]);
          cuprim_status st[SWEEP_CALLS];
          run_calls(calls, SWEEP_CALLS, g.stream, st);
          char data[64];
          snprintf(data, sizeof data, "random at d_in+%u elements", offsets[f]);
          for (int i = 0; i < SWEEP_CALLS; ++i)
            check_slot(g.h_out, i, &calls[i], st[i], &ref, data, seed);
        }
  }
  end_gpu_test();
}

/* ---------------------------------------------------------------- streams */

/* The legacy default stream (0) and the per-thread default stream, besides the non-blocking
 * stream every other test uses. */
static void test_default_streams(void **state) {
  (void)state;
  begin_gpu_test();
  const cudaStream_t streams[] = {0, cudaStreamPerThread};
  const char *const names[] = {"legacy default stream", "per-thread default stream"};
  const cuprim_dtype dtypes[] = {CUPRIM_F32, CUPRIM_I64};
  const uint64_t sizes[] = {1000, g.quick ? 65537u : (1u << 20) + 1};
  const cuprim_op ops[] = {CUPRIM_SUM, CUPRIM_MIN};
  for (int si = 0; si < 2; ++si)
    for (int d = 0; d < 2; ++d)
      for (int k = 0; k < 2; ++k)
        for (int o = 0; o < 2; ++o) {
          const cuprim_op op = ops[o];
          const cuprim_dtype t = dtypes[d];
          const uint64_t n = sizes[k];
          const uint64_t seed = case_seed(0x57E, t, (uint64_t)op, n);
          hr_reduce_fill(t, op, HR_DATA_RANDOM, seed, g.h_in, n);
          upload(g.d_in, g.h_in, n * cuprim_dtype_size(t), streams[si]);
          hr_reduce_ref ref;
          hr_reduce_reference(t, op, g.h_in, n, &ref);
          call calls[SWEEP_CALLS];
          for (int a = 0; a < NUM_ALGS; ++a)
            calls[a] = make_call(a, g.d_in, n, t, op);
          calls[NUM_ALGS] = make_call(SHORTHAND, g.d_in, n, t, op);
          cuprim_status st[SWEEP_CALLS];
          run_calls(calls, SWEEP_CALLS, streams[si], st);
          for (int i = 0; i < SWEEP_CALLS; ++i)
            check_slot(g.h_out, i, &calls[i], st[i], &ref, names[si], seed);
        }
  end_gpu_test();
}

/* Two non-blocking streams in flight at once on one context, each with calls that take temporary
 * memory from the context's pool, enqueued alternately before either is waited for. */
static void test_concurrent_streams(void **state) {
  (void)state;
  begin_gpu_test();
  cudaStream_t other;
  TU_CUDA(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  const uint64_t n = g.quick ? 65537 : (1u << 22) + 3;
  const cuprim_dtype t = CUPRIM_U64;
  const size_t bytes = n * cuprim_dtype_size(t);
  unsigned char *h_a = g.h_in, *h_b = g.h_in + bytes; /* both fit in the pinned buffer */
  assert_true(2 * bytes <= IN_CAP_BYTES);
  for (int round = 0; round < (g.quick ? 2 : 4); ++round) {
    const uint64_t seed_a = case_seed(0xC0C, 1, (uint64_t)round, n);
    const uint64_t seed_b = case_seed(0xC0C, 2, (uint64_t)round, n);
    hr_reduce_fill(t, CUPRIM_SUM, HR_DATA_RANDOM, seed_a, h_a, n);
    hr_reduce_fill(t, CUPRIM_SUM, HR_DATA_RANDOM, seed_b, h_b, n);
    hr_reduce_ref ref_a, ref_b;
    hr_reduce_reference(t, CUPRIM_SUM, h_a, n, &ref_a);
    hr_reduce_reference(t, CUPRIM_SUM, h_b, n, &ref_b);
    upload(g.d_in, h_a, bytes, g.stream);
    upload(g.d_in2, h_b, bytes, other);
    call ca[SWEEP_CALLS], cb[SWEEP_CALLS];
    for (int a = 0; a < NUM_ALGS; ++a) {
      ca[a] = make_call(a, g.d_in, n, t, CUPRIM_SUM);
      cb[a] = make_call(a, g.d_in2, n, t, CUPRIM_SUM);
    }
    ca[NUM_ALGS] = make_call(SHORTHAND, g.d_in, n, t, CUPRIM_SUM);
    cb[NUM_ALGS] = make_call(SHORTHAND, g.d_in2, n, t, CUPRIM_SUM);
    cuprim_status sa[SWEEP_CALLS], sb[SWEEP_CALLS];
    TU_CUDA(cudaMemsetAsync(g.d_out, POISON, SWEEP_CALLS * SLOT_BYTES, g.stream));
    TU_CUDA(cudaMemsetAsync(g.d_out2, POISON, SWEEP_CALLS * SLOT_BYTES, other));
    for (int i = 0; i < SWEEP_CALLS; ++i) {
      sa[i] = issue(g.ctx, &ca[i], slot_out(g.d_out, i, t), g.stream);
      sb[i] = issue(g.ctx, &cb[i], slot_out(g.d_out2, i, t), other);
    }
    TU_CUDA(cudaMemcpyAsync(g.h_out, g.d_out, SWEEP_CALLS * SLOT_BYTES, cudaMemcpyDeviceToHost,
                            g.stream));
    TU_CUDA(cudaMemcpyAsync(g.h_out2, g.d_out2, SWEEP_CALLS * SLOT_BYTES, cudaMemcpyDeviceToHost,
                            other));
    finish(g.stream);
    finish(other);
    for (int i = 0; i < SWEEP_CALLS; ++i) {
      check_slot(g.h_out, i, &ca[i], sa[i], &ref_a, "random, stream A of two", seed_a);
      check_slot(g.h_out2, i, &cb[i], sb[i], &ref_b, "random, stream B of two", seed_b);
    }
  }
  TU_CUDA(cudaStreamDestroy(other));
  end_gpu_test();
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

#define JOB_CUDA(call)                                                                             \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      job_fail(j, "%s: %s", #call, cudaGetErrorString(e_));                                        \
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
      JOB_CUDA(cudaMemsetAsync(d_out, POISON, 16, s));
      const cuprim_status st =
          f32 ? cuprim_reduce_ex(g.ctx, alg, d_f32, d_out + 8, j->n, CUPRIM_F32, CUPRIM_SUM, s)
              : cuprim_reduce_ex(g.ctx, alg, d_u64, d_out + 8, j->n, CUPRIM_U64, CUPRIM_SUM, s);
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

static void test_threads_share_context(void **state) {
  (void)state;
  begin_gpu_test();
  enum { THREADS = 4 };
  const uint64_t n = g.quick ? 20001 : (1u << 20) + 7;
  const uint64_t seed = case_seed(0x7E4D, 0, 0, n);
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
  memcpy(g.h_in, h_f32, n * sizeof *h_f32);
  upload(g.d_in, g.h_in, n * sizeof *h_f32, g.stream);
  const call c = make_call(CUPRIM_REDUCE_AUTO, g.d_in, n, CUPRIM_F32, CUPRIM_SUM);
  cuprim_status st;
  run_calls(&c, 1, g.stream, &st);
  if (!check_slot(g.h_out, 0, &c, st, &ref_f32, "random (main thread)", seed + 1)) {
    free(h_u64);
    free(h_f32);
    end_gpu_test();
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
    memcpy(jobs[i].want_f32, slot_out(g.h_out, 0, CUPRIM_F32), 4);
    jobs[i].iterations = g.quick ? 2 : 8;
  }
  for (int i = 0; i < THREADS; ++i)
    assert_int_equal(pthread_create(&threads[i], NULL, thread_main, &jobs[i]), 0);
  for (int i = 0; i < THREADS; ++i)
    assert_int_equal(pthread_join(threads[i], NULL), 0);
  for (int i = 0; i < THREADS; ++i)
    if (jobs[i].failures)
      failure("thread %d: %d failure(s), the first: %s (seed 0x%016" PRIx64 ")", i,
              jobs[i].failures, jobs[i].first_failure, seed);
  free(h_u64);
  free(h_f32);
  end_gpu_test();
}

/* ---------------------------------------------------------------- CUDA graphs */

/* Every algorithm (and cuprim_reduce, on a large and a small input) captured into one graph:
 * capture enqueues and runs nothing; each replay reads whatever the input buffer holds then. */
static void test_graph_capture(void **state) {
  (void)state;
  begin_gpu_test();
  const uint64_t n = g.quick ? 65537 : (1u << 20) + 1, n_small = 1000;
  const cuprim_dtype t = CUPRIM_U32;
  const cuprim_op op = CUPRIM_SUM;
  const size_t bytes = n * cuprim_dtype_size(t);

  call calls[NUM_ALGS + 4];
  calls[0] = make_call(SHORTHAND, g.d_in, n, t, op);
  for (int a = 1; a < NUM_ALGS; ++a)
    calls[a] = make_call(a, g.d_in, n, t, op);
  calls[NUM_ALGS] = make_call(SHORTHAND, g.d_in, n_small, t, op);
  calls[NUM_ALGS + 1] = make_call(CUPRIM_REDUCE_AUTO, g.d_in, n_small, t, op);
  /* AUTO's cooperative grid (a grid barrier) under capture too: the table picks it only for
   * larger inputs. */
  calls[NUM_ALGS + 2] = make_call(TUNED, g.d_in, n, t, op);
  calls[NUM_ALGS + 2].tune.single_block_max_chunks = 0;
  calls[NUM_ALGS + 2].tune.grid_sync_min_chunks = 0;
  /* And the cluster kernel (a cluster launch) on an input it takes (up to 64 chunks). */
  calls[NUM_ALGS + 3] = make_call(TUNED, g.d_in, n_small * 60, t, op);
  calls[NUM_ALGS + 3].tune.cluster_max_chunks = 64;
  calls[NUM_ALGS + 3].tune.grid_sync_min_chunks = UINT32_MAX;
  const int count = NUM_ALGS + 4;

  TU_CUDA(cudaMemsetAsync(g.d_out, POISON, (size_t)count * SLOT_BYTES, g.stream));
  finish(g.stream);
  cudaGraph_t graph = NULL;
  cuprim_status st[NUM_ALGS + 4];
  TU_CUDA(cudaStreamBeginCapture(g.stream, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < count; ++i)
    st[i] = issue(g.ctx, &calls[i], slot_out(g.d_out, i, t), g.stream);
  const cudaError_t end = cudaStreamEndCapture(g.stream, &graph); /* always end the capture */
  for (int i = 0; i < count; ++i)
    if (st[i] != CUPRIM_SUCCESS)
      failure("%s under stream capture: %s (last CUDA error %s)", call_name(&calls[i]),
              tu_status_name(st[i]), cudaGetErrorName(cuprim_last_cuda_error()));
  if (end != cudaSuccess)
    failure("cudaStreamEndCapture: %s (%s)", cudaGetErrorString(end), cudaGetErrorName(end));
  if (g.fails) {
    (void)cudaGetLastError();
    if (graph)
      (void)cudaGraphDestroy(graph);
    end_gpu_test();
    return;
  }

  /* Capturing ran nothing: the outputs still hold the poison. */
  TU_CUDA(cudaMemcpy(g.h_out, g.d_out, (size_t)count * SLOT_BYTES, cudaMemcpyDeviceToHost));
  for (int i = 0; i < count; ++i)
    check_untouched(g.h_out, i, "stream capture (before any replay)");

  cudaGraphExec_t exec = NULL;
  TU_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int round = 0; round < 3; ++round) {
    /* New data in the same buffer before rounds 0 and 1; round 2 replays on round 1's data. */
    const uint64_t seed = case_seed(0x6A9, (uint64_t)(round < 2 ? round : 1), 0, n);
    hr_reduce_fill(t, op, HR_DATA_RANDOM, seed, g.h_in, n);
    hr_reduce_ref ref, ref_small, ref_cluster;
    hr_reduce_reference(t, op, g.h_in, n, &ref);
    hr_reduce_reference(t, op, g.h_in, n_small, &ref_small);
    hr_reduce_reference(t, op, g.h_in, n_small * 60, &ref_cluster);
    upload(g.d_in, g.h_in, bytes, g.stream);
    TU_CUDA(cudaMemsetAsync(g.d_out, POISON, (size_t)count * SLOT_BYTES, g.stream));
    TU_CUDA(cudaGraphLaunch(exec, g.stream));
    TU_CUDA(cudaMemcpyAsync(g.h_out, g.d_out, (size_t)count * SLOT_BYTES, cudaMemcpyDeviceToHost,
                            g.stream));
    finish(g.stream);
    char data[64];
    snprintf(data, sizeof data, "random, graph replay %d", round);
    for (int i = 0; i < count; ++i)
      check_slot(g.h_out, i, &calls[i], CUPRIM_SUCCESS,
                 calls[i].n == n ? &ref : calls[i].n == n_small ? &ref_small : &ref_cluster, data,
                 seed);
  }
  TU_CUDA(cudaGraphExecDestroy(exec));
  TU_CUDA(cudaGraphDestroy(graph));
  end_gpu_test();
}

/* ---------------------------------------------------------------- determinism */

/* AUTO float SUM: the same bits on every run, and for the same values at a misaligned address
 * (d_in2 + 1 element); cuprim_reduce gives the same bits. The ladder kernels other than ATOMIC
 * are deterministic on one GPU (reduce.h): the same bits on two runs. */
static void test_determinism(void **state) {
  (void)state;
  begin_gpu_test();
  const uint64_t n = g.quick ? (1u << 17) + 3 : (1u << 22) + 3;
  for (int ti = 0; ti < 2; ++ti) {
    const cuprim_dtype t = ti ? CUPRIM_F64 : CUPRIM_F32;
    const size_t esize = cuprim_dtype_size(t);
    const uint64_t seed = case_seed(0xDE7, t, 0, n);
    hr_reduce_fill(t, CUPRIM_SUM, HR_DATA_RANDOM, seed, g.h_in, n);
    unsigned char *moved = g.d_in2 + esize;
    upload(g.d_in, g.h_in, n * esize, g.stream);
    upload(moved, g.h_in, n * esize, g.stream);
    hr_reduce_ref ref;
    hr_reduce_reference(t, CUPRIM_SUM, g.h_in, n, &ref);

    call calls[MAX_SLOTS];
    int count = 0;
    for (int r = 0; r < 3; ++r)
      calls[count++] = make_call(CUPRIM_REDUCE_AUTO, g.d_in, n, t, CUPRIM_SUM);
    calls[count++] = make_call(CUPRIM_REDUCE_AUTO, moved, n, t, CUPRIM_SUM);
    calls[count++] = make_call(SHORTHAND, moved, n, t, CUPRIM_SUM);
    const int ladder_first = count;
    for (int a = CUPRIM_REDUCE_GLOBAL_TREE; a < CUPRIM_REDUCE_ATOMIC; ++a)
      for (int r = 0; r < 2; ++r)
        calls[count++] = make_call(a, g.d_in, n, t, CUPRIM_SUM);
    cuprim_status st[MAX_SLOTS];
    run_calls(calls, count, g.stream, st);
    int ok = 1;
    for (int i = 0; i < count; ++i)
      ok &= check_slot(g.h_out, i, &calls[i], st[i], &ref, "random", seed);
    if (!ok)
      continue;
    for (int i = 1; i < ladder_first; ++i)
      check_same_bits(g.h_out, 0, i, &calls[0], &calls[i],
                      i < 3 ? "AUTO: same input, same bits"
                            : "AUTO: same values at d_in2+1 element, same bits",
                      seed);
    for (int i = ladder_first; i < count; i += 2)
      check_same_bits(g.h_out, i, i + 1, &calls[i], &calls[i + 1],
                      "a ladder kernel other than ATOMIC: same bits on one GPU", seed);
  }
  end_gpu_test();
}

/* Which AUTO kernel runs (one block for small inputs; a plain grid chained to a finishing block by
 * programmatic dependent launch; a cooperative grid with a grid barrier) never changes the bits:
 * the internal entry point forces each for the same input. Sizes around AUTO's chunk (4096
 * four-byte or 2048 eight-byte elements) up to 64 chunks, the single-block kernel's limit, and
 * (not in quick mode) past CHUNK chunks, where the chunk results take a second level. */
static void test_auto_kernel_choice_same_bits(void **state) {
  (void)state;
  begin_gpu_test();
  const cuprim_dtype dtypes[] = {CUPRIM_F32, CUPRIM_F64, CUPRIM_I32};
  const cuprim_op ops[] = {CUPRIM_SUM, CUPRIM_PROD, CUPRIM_MAX};
  for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; ++d)
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; ++o) {
      const cuprim_dtype t = dtypes[d];
      const uint64_t C = cuprim_dtype_size(t) == 4 ? 4096 : 2048;
      const uint64_t sizes[] = {1,          C - 1,      C,          C + 1,         2 * C + 3,
                                4 * C,      4 * C + 1,  17 * C + 5, 63 * C + 7,    64 * C,
                                200 * C + 3, C * C - 1, C * C + 5, 3 * C * C + 7 * C + 1};
      const size_t nsizes = g.quick ? 10 : sizeof sizes / sizeof sizes[0];
      const uint64_t max_n = g.quick ? 64 * C : 3 * C * C + 7 * C + 1;
      const uint64_t seed = case_seed(0xA07, t, ops[o], 0);
      hr_reduce_fill(t, ops[o], HR_DATA_RANDOM, seed, g.h_in, max_n);
      upload(g.d_in, g.h_in, max_n * cuprim_dtype_size(t), g.stream);
      for (size_t k = 0; k < nsizes; ++k) {
        const uint64_t n = sizes[k];
        hr_reduce_ref ref;
        hr_reduce_reference(t, ops[o], g.h_in, n, &ref);
        call calls[7];
        calls[0] = make_call(TUNED, g.d_in, n, t, ops[o]);
        calls[0].tune.single_block_max_chunks = 64; /* one block up to 64 chunks */
        calls[0].tune.grid_sync_min_chunks = UINT32_MAX;
        calls[1] = make_call(TUNED, g.d_in, n, t, ops[o]);
        calls[1].tune.single_block_max_chunks = 0; /* plain grid + finishing block (PDL) */
        calls[1].tune.grid_sync_min_chunks = UINT32_MAX;
        calls[2] = make_call(TUNED, g.d_in, n, t, ops[o]);
        calls[2].tune.single_block_max_chunks = 0; /* cooperative grid */
        calls[2].tune.grid_sync_min_chunks = 0;
        calls[3] = make_call(SHORTHAND, g.d_in, n, t, ops[o]);
        calls[4] = calls[1]; /* the same two kernels with prefetching loads */
        calls[4].tune.l2_prefetch = 1;
        calls[5] = calls[2];
        calls[5].tune.l2_prefetch = 1;
        calls[6] = make_call(TUNED, g.d_in, n, t, ops[o]); /* one thread-block cluster */
        calls[6].tune.single_block_max_chunks = 0;
        calls[6].tune.cluster_max_chunks = 256;
        calls[6].tune.cluster_max_blocks = 16;
        calls[6].tune.grid_sync_min_chunks = UINT32_MAX;
        const int count = n <= 256 * C ? 7 : 6; /* the cluster kernel takes up to 256 chunks */
        cuprim_status st[7];
        run_calls(calls, count, g.stream, st);
        int ok = 1;
        for (int i = 0; i < count; ++i)
          ok &= check_slot(g.h_out, i, &calls[i], st[i], &ref, "random", seed);
        if (ok)
          for (int i = 1; i < count; ++i)
            check_same_bits(g.h_out, 0, i, &calls[0], &calls[i], "AUTO's kernel choice", seed);
      }
    }
  end_gpu_test();
}

/* ---------------------------------------------------------------- allocators */

/* Wraps cudaMallocAsync/cudaFreeAsync; counts calls and bytes and checks that every free returns
 * a live allocation with the size and stream it was taken with. */
#define MAX_LIVE 256
typedef struct counting_allocator {
  unsigned long allocs, frees, failed_allocs, unmatched_frees, mismatched_frees;
  unsigned long long bytes_allocated, bytes_freed;
  struct {
    void *ptr;
    size_t bytes;
    cudaStream_t stream;
  } live[MAX_LIVE];
  int nlive, max_live;
} counting_allocator;

static void *counting_alloc(void *user, size_t bytes, cudaStream_t stream) {
  counting_allocator *c = (counting_allocator *)user;
  void *p = NULL;
  ++c->allocs;
  if (c->nlive == MAX_LIVE || cudaMallocAsync(&p, bytes, stream) != cudaSuccess) {
    (void)cudaGetLastError();
    ++c->failed_allocs;
    return NULL;
  }
  c->bytes_allocated += bytes;
  c->live[c->nlive].ptr = p;
  c->live[c->nlive].bytes = bytes;
  c->live[c->nlive].stream = stream;
  if (++c->nlive > c->max_live)
    c->max_live = c->nlive;
  return p;
}

static void counting_free(void *user, void *ptr, size_t bytes, cudaStream_t stream) {
  counting_allocator *c = (counting_allocator *)user;
  ++c->frees;
  c->bytes_freed += bytes;
  int found = -1;
  for (int i = 0; i < c->nlive; ++i)
    if (c->live[i].ptr == ptr)
      found = i;
  if (found < 0) {
    ++c->unmatched_frees; /* never allocated here, or freed twice: do not pass it on */
    return;
  }
  if (c->live[found].bytes != bytes || c->live[found].stream != stream)
    ++c->mismatched_frees;
  c->live[found] = c->live[--c->nlive];
  (void)cudaFreeAsync(ptr, stream);
}

static void test_counting_allocator(void **state) {
  (void)state;
  begin_gpu_test();
  static counting_allocator counts; /* static: large, and zero-initialized */
  memset(&counts, 0, sizeof counts);
  const cuprim_allocator a = {counting_alloc, counting_free, &counts};
  cuprim_ctx *ctx = NULL;
  const cuprim_status cs = cuprim_ctx_create(&ctx, 0, &a);
  if (cs != CUPRIM_SUCCESS)
    fail_msg("cuprim_ctx_create with a user allocator: %s", tu_status_name(cs));

  const struct {
    cuprim_dtype t;
    cuprim_op op;
    uint64_t n;
  } cases[] = {{CUPRIM_U64, CUPRIM_SUM, 1000},
               {CUPRIM_U64, CUPRIM_SUM, g.quick ? 65537 : (1u << 20) + 1},
               {CUPRIM_F32, CUPRIM_SUM, g.quick ? (1u << 17) + 3 : (1u << 22) + 3},
               {CUPRIM_I32, CUPRIM_MAX, g.quick ? 100003 : (1u << 24) + 5}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    const cuprim_dtype t = cases[k].t;
    const uint64_t n = cases[k].n;
    const uint64_t seed = case_seed(0xA11C, t, cases[k].op, n);
    hr_reduce_fill(t, cases[k].op, HR_DATA_RANDOM, seed, g.h_in, n);
    upload(g.d_in, g.h_in, n * cuprim_dtype_size(t), g.stream);
    hr_reduce_ref ref;
    hr_reduce_reference(t, cases[k].op, g.h_in, n, &ref);
    call calls[SWEEP_CALLS];
    for (int i = 0; i < NUM_ALGS; ++i)
      calls[i] = make_call(i, g.d_in, n, t, cases[k].op);
    calls[NUM_ALGS] = make_call(SHORTHAND, g.d_in, n, t, cases[k].op);
    cuprim_status st[SWEEP_CALLS];
    enqueue_calls(ctx, calls, SWEEP_CALLS, g.stream, g.d_out, g.h_out, st);
    finish(g.stream);
    for (int i = 0; i < SWEEP_CALLS; ++i)
      check_slot(g.h_out, i, &calls[i], st[i], &ref, "random, counting allocator", seed);
  }
  assert_int_equal(cuprim_ctx_destroy(ctx), CUPRIM_SUCCESS);
  print_message("counting allocator: %lu allocs, %lu frees, %llu bytes, at most %d live\n",
                counts.allocs, counts.frees, counts.bytes_allocated, counts.max_live);
  if (counts.allocs == 0)
    failure("the context's allocator was never called (GLOBAL_TREE needs a scratch copy)");
  if (counts.failed_allocs)
    failure("%lu allocation(s) failed in cudaMallocAsync", counts.failed_allocs);
  if (counts.allocs - counts.failed_allocs != counts.frees)
    failure("%lu successful allocs but %lu frees", counts.allocs - counts.failed_allocs,
            counts.frees);
  if (counts.nlive != 0)
    failure("%d allocation(s) never freed", counts.nlive);
  if (counts.unmatched_frees)
    failure("%lu free(s) of pointers the allocator did not hand out (or freed twice)",
            counts.unmatched_frees);
  if (counts.mismatched_frees)
    failure("%lu free(s) with another size or stream than the allocation", counts.mismatched_frees);
  if (counts.bytes_allocated != counts.bytes_freed)
    failure("%llu bytes allocated but %llu freed", counts.bytes_allocated, counts.bytes_freed);
  end_gpu_test();
}

/* An allocator that always fails. */
typedef struct failing_allocator {
  unsigned long allocs, frees;
} failing_allocator;

static void *failing_alloc(void *user, size_t bytes, cudaStream_t stream) {
  (void)bytes;
  (void)stream;
  ++((failing_allocator *)user)->allocs;
  return NULL;
}

static void failing_free(void *user, void *ptr, size_t bytes, cudaStream_t stream) {
  (void)ptr;
  (void)bytes;
  (void)stream;
  ++((failing_allocator *)user)->frees;
}

/* Calls that need temporary memory return OUT_OF_MEMORY having launched nothing (their output
 * untouched); calls that need none (small inputs, ATOMIC) may succeed, but never with a wrong
 * result. */
static void test_failing_allocator(void **state) {
  (void)state;
  begin_gpu_test();
  failing_allocator counts = {0, 0};
  const cuprim_allocator a = {failing_alloc, failing_free, &counts};
  cuprim_ctx *ctx = NULL;
  const cuprim_status cs = cuprim_ctx_create(&ctx, 0, &a);
  if (cs != CUPRIM_SUCCESS)
    fail_msg("cuprim_ctx_create with a user allocator: %s", tu_status_name(cs));

  const cuprim_dtype t = CUPRIM_U32;
  const cuprim_op op = CUPRIM_SUM;
  /* Past AUTO's single-block limit (64 chunks of 4096): AUTO must take temporary memory. */
  const uint64_t n_big = g.quick ? 64 * 4096 + 1 : 1u << 24;
  const uint64_t n_mid = g.quick ? 65537 : (1u << 20) + 1;
  const uint64_t seed = case_seed(0xFA11, t, op, n_big);
  hr_reduce_fill(t, op, HR_DATA_RANDOM, seed, g.h_in, n_big);
  upload(g.d_in, g.h_in, n_big * cuprim_dtype_size(t), g.stream);
  hr_reduce_ref ref_big, ref_mid, ref_small, ref_two;
  hr_reduce_reference(t, op, g.h_in, n_big, &ref_big);
  hr_reduce_reference(t, op, g.h_in, n_mid, &ref_mid);
  hr_reduce_reference(t, op, g.h_in, 1000, &ref_small);
  hr_reduce_reference(t, op, g.h_in, 2, &ref_two);

  call calls[MAX_SLOTS];
  const hr_reduce_ref *refs[MAX_SLOTS];
  int must_fail[MAX_SLOTS];
  int count = 0;
#define ADD(alg_, n_, ref_, must_)                                                                 \
  do {                                                                                             \
    calls[count] = make_call((alg_), g.d_in, (n_), t, op);                                         \
    refs[count] = (ref_);                                                                          \
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
  cuprim_status st[MAX_SLOTS];
  enqueue_calls(ctx, calls, count, g.stream, g.d_out, g.h_out, st);
  finish(g.stream);
  for (int i = 0; i < count; ++i) {
    char what[256];
    describe(what, sizeof what, &calls[i], "random, failing allocator", seed);
    if (st[i] == CUPRIM_ERROR_OUT_OF_MEMORY)
      check_untouched(g.h_out, i, what);
    else if (must_fail[i])
      failure("%s: expected CUPRIM_ERROR_OUT_OF_MEMORY, got %s", what, tu_status_name(st[i]));
    else
      check_slot(g.h_out, i, &calls[i], st[i], refs[i], "random, failing allocator", seed);
  }
  if (counts.allocs == 0)
    failure("the failing allocator was never called");
  if (counts.frees != 0)
    failure("free called %lu time(s) although every alloc returned NULL", counts.frees);
  TU_CUDA(cudaGetLastError());
  assert_int_equal(cuprim_ctx_destroy(ctx), CUPRIM_SUCCESS);
  end_gpu_test();
}

/* ---------------------------------------------------------------- errors with a device */

/* With a real context, invalid and unsupported calls still return before any CUDA work: nothing
 * is written, no CUDA error is recorded. */
static void test_errors_with_device(void **state) {
  (void)state;
  begin_gpu_test();
  const size_t in_bytes = 4096;
  TU_CUDA(cudaMemsetAsync(g.d_in, POISON, in_bytes, g.stream));
  TU_CUDA(cudaMemsetAsync(g.d_out, POISON, 8 * SLOT_BYTES, g.stream));
  finish(g.stream);
  const void *in = g.d_in;
  unsigned char *out = g.d_out + out_offset(CUPRIM_F64);
  const struct {
    const char *what;
    cuprim_status got, want;
  } cases[] = {
      {"NULL ctx", cuprim_reduce(NULL, in, out, 10, CUPRIM_F32, CUPRIM_SUM, g.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"NULL d_out",
       cuprim_reduce_ex(g.ctx, CUPRIM_REDUCE_AUTO, in, NULL, 10, CUPRIM_F32, CUPRIM_SUM, g.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"NULL d_in, n 10", cuprim_reduce(g.ctx, NULL, out, 10, CUPRIM_F32, CUPRIM_SUM, g.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"alg 10",
       cuprim_reduce_ex(g.ctx, (cuprim_reduce_alg)10, in, out, 10, CUPRIM_F32, CUPRIM_SUM,
                        g.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"dtype 12", cuprim_reduce(g.ctx, in, out, 10, (cuprim_dtype)12, CUPRIM_SUM, g.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"op 7", cuprim_reduce(g.ctx, in, out, 10, CUPRIM_F32, (cuprim_op)7, g.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"d_out + 1 byte", cuprim_reduce(g.ctx, in, out + 1, 10, CUPRIM_F32, CUPRIM_SUM, g.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"d_in + 1 byte", cuprim_reduce(g.ctx, g.d_in + 1, out, 10, CUPRIM_F32, CUPRIM_SUM, g.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"d_out inside d_in",
       cuprim_reduce_ex(g.ctx, CUPRIM_REDUCE_ATOMIC, in, g.d_in + 64, 100, CUPRIM_F32, CUPRIM_SUM,
                        g.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"I8", cuprim_reduce(g.ctx, in, out, 10, CUPRIM_I8, CUPRIM_SUM, g.stream),
       CUPRIM_ERROR_UNSUPPORTED},
      {"U16",
       cuprim_reduce_ex(g.ctx, CUPRIM_REDUCE_ATOMIC, in, out, 10, CUPRIM_U16, CUPRIM_MAX, g.stream),
       CUPRIM_ERROR_UNSUPPORTED},
      {"XOR on F32", cuprim_reduce(g.ctx, in, out, 10, CUPRIM_F32, CUPRIM_XOR, g.stream),
       CUPRIM_ERROR_UNSUPPORTED},
      {"AND on F64",
       cuprim_reduce_ex(g.ctx, CUPRIM_REDUCE_GLOBAL_TREE, in, out, 10, CUPRIM_F64, CUPRIM_AND,
                        g.stream),
       CUPRIM_ERROR_UNSUPPORTED},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    if (cases[i].got != cases[i].want)
      failure("%s: expected %s, got %s", cases[i].what, tu_status_name(cases[i].want),
              tu_status_name(cases[i].got));
  TU_CUDA(cudaMemcpyAsync(g.h_out, g.d_out, 8 * SLOT_BYTES, cudaMemcpyDeviceToHost, g.stream));
  TU_CUDA(cudaMemcpyAsync(g.h_in, g.d_in, in_bytes, cudaMemcpyDeviceToHost, g.stream));
  finish(g.stream);
  for (int i = 0; i < 8; ++i)
    check_untouched(g.h_out, i, "a call with invalid or unsupported arguments");
  if (tu_pattern_mismatch(g.h_in, in_bytes, POISON) != in_bytes)
    failure("a call with invalid or unsupported arguments wrote into d_in");
  if (cuprim_last_cuda_error() != cudaSuccess)
    failure("cuprim_last_cuda_error() is %s after argument errors and successful calls",
            cudaGetErrorName(cuprim_last_cuda_error()));
  end_gpu_test();
}

/* ---------------------------------------------------------------- past 2^31 and 2^32 elements */

/* U32 SUM of formula data (test_device_fill.h) through every algorithm at 2^31 + 17 elements, and
 * at 2^32 + 17 when the GPU has room; F32 SUM at 2^31 + 17. The data is generated on the device
 * and the reference computed from the same formula on the host: no 8 GB copies. A context of its
 * own, destroyed at the end, so that the scratch copies its pool keeps are given back. */
static void test_large_input(void **state) {
  (void)state;
  begin_gpu_test();
  if (g.quick) {
    print_message("[  SKIP    ] large inputs: skipped in quick mode (CUPRIM_TEST_QUICK)\n");
    skip();
  }
  const uint64_t n31 = (1ull << 31) + 17, n32 = (1ull << 32) + 17;
  size_t free_bytes = 0, total_bytes = 0;
  TU_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  /* The input, plus GLOBAL_TREE's scratch copy of it from the context's pool, which keeps freed
   * memory: at 2^32 + 17 the pool still holds the 2^31 + 17 copy when it takes the larger one. */
  const double GiB = 1073741824.0;
  const size_t margin = (size_t)1 << 30;
  const size_t need31 = 2 * n31 * sizeof(uint32_t) + margin;
  const size_t need32 = (2 * n32 + n31) * sizeof(uint32_t) + margin;
  if (free_bytes < need31) {
    print_message("[  SKIP    ] large inputs: %.1f GiB free on the device, %.1f GiB needed\n",
                  free_bytes / GiB, need31 / GiB);
    skip();
  }
  const uint64_t n_max = free_bytes >= need32 ? n32 : n31;
  if (n_max == n31)
    print_message("large inputs: %.1f GiB free, %.1f GiB needed for 2^32+17: 2^31+17 only\n",
                  free_bytes / GiB, need32 / GiB);

  cuprim_ctx *ctx = NULL;
  const cuprim_status cs = cuprim_ctx_create(&ctx, 0, NULL);
  if (cs != CUPRIM_SUCCESS)
    fail_msg("cuprim_ctx_create: %s", tu_status_name(cs));
  uint32_t *d_big = NULL;
  TU_CUDA(cudaMalloc((void **)&d_big, n_max * sizeof(uint32_t)));
  TU_CUDA(tu_device_fill_u32(d_big, n_max, g.stream));

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
    call calls[SWEEP_CALLS];
    for (int a = 0; a < NUM_ALGS; ++a)
      calls[a] = make_call(a, d_big, ns[k], CUPRIM_U32, CUPRIM_SUM);
    calls[NUM_ALGS] = make_call(SHORTHAND, d_big, ns[k], CUPRIM_U32, CUPRIM_SUM);
    cuprim_status st[SWEEP_CALLS];
    enqueue_calls(ctx, calls, SWEEP_CALLS, g.stream, g.d_out, g.h_out, st);
    finish(g.stream);
    for (int i = 0; i < SWEEP_CALLS; ++i)
      check_slot(g.h_out, i, &calls[i], st[i], &ref, "(u32)(i * 2654435761) >> 7", 0);
  }

  /* F32: (i % 1000) / 4, every value exact in float; the exact sum in integers. */
  float *d_f32 = (float *)(void *)d_big;
  TU_CUDA(tu_device_fill_f32(d_f32, n31, g.stream));
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
  call calls[SWEEP_CALLS];
  for (int a = 0; a < NUM_ALGS; ++a)
    calls[a] = make_call(a, d_f32, n31, CUPRIM_F32, CUPRIM_SUM);
  calls[NUM_ALGS] = make_call(SHORTHAND, d_f32, n31, CUPRIM_F32, CUPRIM_SUM);
  cuprim_status st[SWEEP_CALLS];
  enqueue_calls(ctx, calls, SWEEP_CALLS, g.stream, g.d_out, g.h_out, st);
  finish(g.stream);
  for (int i = 0; i < SWEEP_CALLS; ++i)
    check_slot(g.h_out, i, &calls[i], st[i], &ref, "(i % 1000) * 0.25f", 0);
  TU_CUDA(cudaFree(d_big));
  assert_int_equal(cuprim_ctx_destroy(ctx), CUPRIM_SUCCESS);
  end_gpu_test();
}

/* ---------------------------------------------------------------- last */

static void test_no_cuda_error_left(void **state) {
  (void)state;
  begin_gpu_test();
  TU_CUDA(cudaDeviceSynchronize());
  TU_CUDA(cudaGetLastError());
  if (cuprim_last_cuda_error() != cudaSuccess)
    failure("cuprim_last_cuda_error() is %s on the main thread",
            cudaGetErrorName(cuprim_last_cuda_error()));
  end_gpu_test();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_errors_with_device),
      cmocka_unit_test(test_empty_input),
      cmocka_unit_test(test_sweep_i32),
      cmocka_unit_test(test_sweep_u32),
      cmocka_unit_test(test_sweep_i64),
      cmocka_unit_test(test_sweep_u64),
      cmocka_unit_test(test_sweep_f32),
      cmocka_unit_test(test_sweep_f64),
      cmocka_unit_test(test_nan_and_inf),
      cmocka_unit_test(test_misaligned_input),
      cmocka_unit_test(test_default_streams),
      cmocka_unit_test(test_concurrent_streams),
      cmocka_unit_test(test_threads_share_context),
      cmocka_unit_test(test_graph_capture),
      cmocka_unit_test(test_determinism),
      cmocka_unit_test(test_auto_kernel_choice_same_bits),
      cmocka_unit_test(test_counting_allocator),
      cmocka_unit_test(test_failing_allocator),
      cmocka_unit_test(test_large_input),
      cmocka_unit_test(test_no_cuda_error_left),
  };
  tu_apply_test_filter();
  const int failed = cmocka_run_group_tests(tests, group_setup, group_teardown);
  if (failed == 0 && !tu_device_available(NULL, 0))
    return 77; /* every test skipped: no device (CTest SKIP_RETURN_CODE) */
  return failed;
}
