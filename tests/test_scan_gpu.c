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
 * Each output lies in a slot of device memory with 256 guard bytes on either side: the slot is
 * poisoned before each call, the guards must come back untouched and every output element must
 * hold its expected value (one still holding the poison is reported as never written). One
 * call's failure does not stop the test: failures are counted and printed with the algorithm,
 * dtype, op, kind, n, in place or not, data kind and seed, the number of wrong elements and the
 * first one (expected vs got); the test fails at its end.
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
#include "test_util.h"

/* ---------------------------------------------------------------- fixture */

#define NUM_ALGS 5           /* CUPRIM_SCAN_AUTO .. CUPRIM_SCAN_DECOUPLED_LOOKBACK */
#define POISON 0xA5          /* the guard and poison byte */
#define GUARD_BYTES 256      /* guards on each side of an output; slots are 256-byte aligned */
#define MAX_CALLS 64         /* calls per run_and_check */
#define SWEEP_MAX (1u << 21) /* sizes above this: random data only, fewer in-place calls */
/* Input capacity: the largest host-filled input (2^24 + 2*4096 + 3 four-byte elements in the
 * sweep, 2^24 + 5 in the stress test) plus room for offsets. */
#define IN_CAP_BYTES ((size_t)72 << 20)
/* Output regions: slots of calls enqueued together (two of the largest inputs at least). */
#define OUT_CAP_BYTES ((size_t)160 << 20)
#define OUT2_CAP_BYTES ((size_t)80 << 20)

static struct fixture {
  cudaError_t setup_error; /* the first CUDA failure of the group setup, if any */
  const char *setup_what;
  cuprim_status ctx_status;
  cuprim_ctx *ctx;                /* one context for the whole file (default allocator) */
  cudaStream_t stream;            /* non-blocking: where most calls run */
  unsigned char *d_in, *d_in2;    /* IN_CAP_BYTES each */
  unsigned char *h_in;            /* pinned, IN_CAP_BYTES */
  unsigned char *d_out, *h_out;   /* OUT_CAP_BYTES (h_out pinned) */
  unsigned char *d_out2, *h_out2; /* OUT2_CAP_BYTES */
  hr_scan_ref ref, ref2;
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
  hr_scan_ref_init(&g.ref);
  hr_scan_ref_init(&g.ref2);
  print_message("mode: %s\n", g.quick ? "quick (CUPRIM_TEST_QUICK)" : "full");
  char reason[256];
  if (!tu_device_available(reason, sizeof reason)) {
    print_message("%s: every test will be skipped\n", reason);
    return 0;
  }
  struct cudaDeviceProp prop;
  SETUP_CUDA(cudaGetDeviceProperties(&prop, 0));
  print_message("device 0: %s, sm_%d%d, %d SMs\n", prop.name, prop.major, prop.minor,
                prop.multiProcessorCount);
  g.ctx_status = cuprim_ctx_create(&g.ctx, 0, NULL);
  SETUP_CUDA(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking));
  SETUP_CUDA(cudaMalloc((void **)&g.d_in, IN_CAP_BYTES));
  SETUP_CUDA(cudaMalloc((void **)&g.d_in2, IN_CAP_BYTES));
  SETUP_CUDA(cudaMallocHost((void **)&g.h_in, IN_CAP_BYTES));
  SETUP_CUDA(cudaMalloc((void **)&g.d_out, OUT_CAP_BYTES));
  SETUP_CUDA(cudaMallocHost((void **)&g.h_out, OUT_CAP_BYTES));
  SETUP_CUDA(cudaMalloc((void **)&g.d_out2, OUT2_CAP_BYTES));
  SETUP_CUDA(cudaMallocHost((void **)&g.h_out2, OUT2_CAP_BYTES));
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
  hr_scan_ref_free(&g.ref);
  hr_scan_ref_free(&g.ref2);
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
    char buf[1536];
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

static void make_reference(hr_scan_ref *r, cuprim_dtype t, cuprim_op op, cuprim_scan_kind kind,
                           const void *h, uint64_t n) {
  if (hr_scan_reference(r, t, op, kind, h, n) != 0)
    fail_msg("out of host memory for the reference of %" PRIu64 " elements", n);
}

static void finish(cudaStream_t stream) {
  TU_CUDA(cudaStreamSynchronize(stream)); /* a fault in a kernel shows up here */
  TU_CUDA(cudaGetLastError());
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
} scan_call;

typedef struct call_result {
  cuprim_status st;
  size_t slot, slot_bytes; /* the call's slot in its output region */
  int ok;                  /* passed every check */
  uint64_t hash;           /* of the output elements, when ok */
} call_result;

/* An output region: device memory, its pinned host copy, capacity. */
typedef struct region {
  unsigned char *d, *h;
  size_t cap;
} region;

static region main_region(void) {
  const region r = {g.d_out, g.h_out, OUT_CAP_BYTES};
  return r;
}

static scan_call make_call(int alg, const void *d_in, uint64_t n, cuprim_dtype t, cuprim_op op,
                           cuprim_scan_kind kind) {
  scan_call c;
  memset(&c, 0, sizeof c);
  c.alg = alg;
  c.d_in = (const unsigned char *)d_in;
  c.n = n;
  c.dtype = t;
  c.op = op;
  c.kind = kind;
  return c;
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
  static char buf[128];
  if (c->alg == SHORTHAND)
    return "cuprim_scan";
  if (c->alg == TUNED) {
    snprintf(buf, sizeof buf,
             "cuprim__scan_lookback(single_block_max_tiles=%u small_tiles_max_n=%" PRIu64
             " pdl_reset=%d)",
             c->tune.single_block_max_tiles, c->tune.small_tiles_max_n, c->tune.pdl_reset);
    return buf;
  }
  return hr_scan_alg_name((cuprim_scan_alg)c->alg);
}

static void describe(char *buf, size_t len, const scan_call *c, const char *data, uint64_t seed) {
  char offs[64] = "";
  if (c->in_offset || c->out_offset)
    snprintf(offs, sizeof offs, " (d_in+%u d_out+%u elements)",
             c->in_place ? c->out_offset : c->in_offset, c->out_offset);
  snprintf(buf, len, "%s %s %s %s n=%" PRIu64 " %s%s data=%s seed=0x%016" PRIx64, call_name(c),
           hr_dtype_name(c->dtype), hr_op_name(c->op), hr_scan_kind_name(c->kind), c->n,
           c->in_place ? "in-place" : "out-of-place", offs, data, seed);
}

static size_t round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }

static size_t slot_span(const scan_call *c) {
  return round_up(
      2 * GUARD_BYTES + ((size_t)c->out_offset + (size_t)c->n) * cuprim_dtype_size(c->dtype), 256);
}

static size_t out_at(const scan_call *c) {
  return GUARD_BYTES + (size_t)c->out_offset * cuprim_dtype_size(c->dtype);
}

static cuprim_status issue(cuprim_ctx *ctx, const scan_call *c, const void *in, void *out,
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

/* Lays out slots for calls[0..count) in the region, poisons them, enqueues the calls (in place:
 * the input copied into the output first) and the copy of the slots back to the host. Nothing
 * waits. */
static void enqueue_calls(cuprim_ctx *ctx, const scan_call *calls, int count, cudaStream_t stream,
                          const region *rg, call_result *res) {
  size_t used = 0;
  for (int i = 0; i < count; ++i) {
    res[i].slot = used;
    res[i].slot_bytes = slot_span(&calls[i]);
    res[i].ok = 0;
    res[i].hash = 0;
    used += res[i].slot_bytes;
  }
  if (used > rg->cap)
    fail_msg("test bug: %d calls need %zu bytes of output slots, the region has %zu", count, used,
             rg->cap);
  TU_CUDA(cudaMemsetAsync(rg->d, POISON, used, stream));
  for (int i = 0; i < count; ++i) {
    const scan_call *c = &calls[i];
    unsigned char *out = rg->d + res[i].slot + out_at(c);
    if (c->in_place && c->n)
      TU_CUDA(cudaMemcpyAsync(out, c->d_in, (size_t)c->n * cuprim_dtype_size(c->dtype),
                              cudaMemcpyDeviceToDevice, stream));
    res[i].st = issue(ctx, c, c->in_place ? out : (const void *)c->d_in, out, stream);
  }
  TU_CUDA(cudaMemcpyAsync(rg->h, rg->d, used, cudaMemcpyDeviceToHost, stream));
}

/* The full check of one call: status, guards, every element (and its hash if asked). */
static int check_call(const region *rg, const scan_call *c, call_result *r, const hr_scan_ref *ref,
                      const char *data, uint64_t seed, int want_hash) {
  char what[384], why[512];
  describe(what, sizeof what, c, data, seed);
  r->ok = 0;
  if (r->st != CUPRIM_SUCCESS) {
    failure("%s: returned %s (last CUDA error %s)", what, tu_status_name(r->st),
            cudaGetErrorName(cuprim_last_cuda_error()));
    return 0;
  }
  const unsigned char *slot = rg->h + r->slot;
  const size_t at = out_at(c), bytes = (size_t)c->n * cuprim_dtype_size(c->dtype);
  size_t bad = tu_pattern_mismatch(slot, at, POISON);
  if (bad != at) {
    failure("%s: wrote before d_out (guard byte d_out-%zu is 0x%02x)", what, at - bad, slot[bad]);
    return 0;
  }
  const size_t tail = r->slot_bytes - at - bytes;
  bad = tu_pattern_mismatch(slot + at + bytes, tail, POISON);
  if (bad != tail) {
    failure("%s: wrote past d_out + n (guard byte d_out+n*size+%zu is 0x%02x)", what, bad,
            slot[at + bytes + bad]);
    return 0;
  }
  if (ref->n != c->n || ref->dtype != c->dtype || ref->op != c->op || ref->kind != c->kind)
    fail_msg("test bug: the reference does not match the call %s", what);
  uint64_t first = 0, last = 0;
  const uint64_t wrong = hr_scan_check(ref, slot + at, POISON, &first, &last, why, sizeof why);
  if (wrong) {
    failure("%s: %" PRIu64 " wrong element(s) (indices %" PRIu64 "..%" PRIu64 "), the first %s",
            what, wrong, first, last, why);
    return 0;
  }
  if (want_hash)
    r->hash = hr_hash_bytes(slot + at, bytes);
  r->ok = 1;
  return 1;
}

/* Runs calls[0..count) on `stream` (as many per batch as the region holds) and checks each against
 * `ref`. Returns the number of calls that passed. */
static int run_and_check(const scan_call *calls, int count, cudaStream_t stream,
                         const hr_scan_ref *ref, const char *data, uint64_t seed, int want_hash,
                         call_result *res) {
  const region rg = main_region();
  int passed = 0;
  for (int i = 0; i < count;) {
    size_t used = 0;
    int j = i;
    while (j < count && (j == i || used + slot_span(&calls[j]) <= rg.cap))
      used += slot_span(&calls[j++]);
    enqueue_calls(g.ctx, calls + i, j - i, stream, &rg, res + i);
    finish(stream);
    for (int k = i; k < j; ++k)
      passed += check_call(&rg, &calls[k], &res[k], ref, data, seed, want_hash);
    i = j;
  }
  return passed;
}

/* Out-of-place calls must leave the input as it was. */
static void check_input_intact(const void *d_in, const void *h_in, size_t bytes, const char *what) {
  if (bytes > OUT_CAP_BYTES)
    return;
  TU_CUDA(cudaMemcpyAsync(g.h_out, d_in, bytes, cudaMemcpyDeviceToHost, g.stream));
  finish(g.stream);
  const unsigned char *a = (const unsigned char *)h_in, *b = g.h_out;
  if (memcmp(a, b, bytes) != 0) {
    size_t i = 0;
    while (a[i] == b[i])
      ++i;
    failure("%s: an out-of-place call changed its input (first changed byte %zu)", what, i);
  }
}

static const cuprim_dtype scan_dtypes[] = {CUPRIM_I32, CUPRIM_U32, CUPRIM_I64,
                                           CUPRIM_U64, CUPRIM_F32, CUPRIM_F64};
#define NUM_SCAN_DTYPES (sizeof scan_dtypes / sizeof scan_dtypes[0])
static const cuprim_scan_kind kinds[] = {CUPRIM_INCLUSIVE, CUPRIM_EXCLUSIVE};

static int is_float(cuprim_dtype t) { return t == CUPRIM_F32 || t == CUPRIM_F64; }

/* The look-back kernel's full tile, in elements (scan_lookback.cu: 256 threads of eight 16-byte
 * vectors for 4-byte types, six for 8-byte types; half-size tiles are half of it). */
static uint64_t lookback_tile(cuprim_dtype t) { return cuprim_dtype_size(t) == 4 ? 8192 : 3072; }

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
  const uint64_t *base = g.quick ? quick : full;
  const size_t nbase = g.quick ? sizeof quick / sizeof quick[0] : sizeof full / sizeof full[0];
  size_t k = 0;
  for (size_t i = 0; i < nbase && k < cap; ++i)
    sizes[k++] = base[i];
  /* Random sizes, log-uniform in [2, 2^21) (quick: [2, 2^17)); the same for every dtype. */
  uint64_t s = hr_mix(g.seed, 0x5CA115E5);
  const int count = g.quick ? 1 : 3;
  const double top = g.quick ? 17.0 : 21.0;
  for (int i = 0; i < count && k < cap; ++i)
    sizes[k++] = (uint64_t)exp2(1.0 + hr_unit(&s) * (top - 1.0));
  if (!g.quick && k < cap)
    sizes[k++] = cuprim_dtype_size(t) == 4 ? (1u << 24) + 2 * 4096 + 3 : (1u << 22) + 3 * 2048 + 5;
  return k;
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
    if (g.quick && op != CUPRIM_SUM)
      use =
          a == CUPRIM_SCAN_AUTO || a == 1 + (int)(((unsigned)op + (unsigned)kind + size_index) % 4);
    if (!use)
      continue;
    const scan_call c = make_call(a, d_in, n, t, op, kind);
    calls[count++] = c;
    const int place = g.quick ? size_index % 2 == 0 : !big || a == CUPRIM_SCAN_AUTO;
    if (place)
      calls[count++] = in_place(c);
  }
  return count;
}

/* Every alg (and cuprim_scan) x op x data kind x size x kind for one dtype, in place and out of
 * place. One reference per (op, data, size, kind), shared by the calls. */
static void sweep(cuprim_dtype t) {
  begin_gpu_test();
  uint64_t sizes[64];
  const size_t nsizes = sweep_sizes(t, sizes, 64);
  const size_t esize = cuprim_dtype_size(t);
  unsigned long cases = 0, ncalls = 0;
  for (int op = 0; op <= CUPRIM_XOR; ++op) {
    if (!hr_scan_supported(t, (cuprim_op)op))
      continue;
    for (int d = 0; d < HR_SCAN_DATA_KINDS; ++d) {
      if (!hr_scan_data_applies(t, (cuprim_op)op, (hr_scan_data)d))
        continue;
      if (g.quick && d == HR_SCAN_CONSTANT)
        continue;
      for (size_t k = 0; k < nsizes; ++k) {
        const uint64_t n = sizes[k];
        if (d != HR_SCAN_RANDOM && n > SWEEP_MAX)
          continue;
        const uint64_t seed = case_seed(t, (uint64_t)op, (uint64_t)d, n);
        hr_scan_fill(t, (cuprim_op)op, (hr_scan_data)d, seed, g.h_in, n);
        upload(g.d_in, g.h_in, n * esize, g.stream);
        for (int ki = 0; ki < 2; ++ki) {
          make_reference(&g.ref, t, (cuprim_op)op, kinds[ki], g.h_in, n);
          scan_call calls[MAX_CALLS];
          call_result res[MAX_CALLS];
          const int count = sweep_calls(calls, g.d_in, n, t, (cuprim_op)op, kinds[ki], k);
          run_and_check(calls, count, g.stream, &g.ref, hr_scan_data_name((hr_scan_data)d), seed, 0,
                        res);
          ncalls += (unsigned long)count;
          ++cases;
        }
        char what[128];
        snprintf(what, sizeof what, "%s %s n=%" PRIu64 " seed=0x%016" PRIx64, hr_dtype_name(t),
                 hr_op_name((cuprim_op)op), n, seed);
        check_input_intact(g.d_in, g.h_in, n * esize, what);
      }
    }
  }
  print_message("%s: %lu cases, %lu calls\n", hr_dtype_name(t), cases, ncalls);
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

/* ---------------------------------------------------------------- n == 0 */

/* n == 0 succeeds and writes nothing, with d_in and d_out NULL or not, through every algorithm,
 * dtype, op and kind. */
static void test_empty_input(void **state) {
  (void)state;
  begin_gpu_test();
  const size_t bytes = 4 * GUARD_BYTES;
  unsigned char *out = g.d_out + GUARD_BYTES;
  TU_CUDA(cudaMemsetAsync(g.d_out, POISON, bytes, g.stream));
  finish(g.stream);
  for (size_t d = 0; d < NUM_SCAN_DTYPES; ++d)
    for (int op = 0; op <= CUPRIM_XOR; ++op)
      for (int ki = 0; ki < 2; ++ki)
        for (int a = SHORTHAND; a < NUM_ALGS; ++a)
          for (int ptrs = 0; ptrs < 5; ++ptrs) {
            const cuprim_dtype t = scan_dtypes[d];
            if (!hr_scan_supported(t, (cuprim_op)op))
              continue;
            const void *in = ptrs & 1 ? (const void *)g.d_in : NULL;
            void *o = ptrs & 2 ? (void *)out : NULL;
            if (ptrs == 4)
              in = o = out; /* in place */
            const scan_call c = make_call(a, in, 0, t, (cuprim_op)op, kinds[ki]);
            const cuprim_status st = issue(g.ctx, &c, in, o, g.stream);
            if (st != CUPRIM_SUCCESS)
              failure("%s %s %s %s n=0 d_in=%s d_out=%s: returned %s", call_name(&c),
                      hr_dtype_name(t), hr_op_name((cuprim_op)op), hr_scan_kind_name(kinds[ki]),
                      in ? "valid" : "NULL", o ? "valid" : "NULL", tu_status_name(st));
          }
  TU_CUDA(cudaMemcpyAsync(g.h_out, g.d_out, bytes, cudaMemcpyDeviceToHost, g.stream));
  finish(g.stream);
  const size_t bad = tu_pattern_mismatch(g.h_out, bytes, POISON);
  if (bad != bytes)
    failure("a call with n == 0 wrote device memory (byte d_out%+ld)", (long)bad - GUARD_BYTES);
  if (cuprim_last_cuda_error() != cudaSuccess)
    failure("cuprim_last_cuda_error() is %s after calls with n == 0",
            cudaGetErrorName(cuprim_last_cuda_error()));
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

/* Float MIN and MAX scans: every output from the first NaN input on (inclusive) or after it
 * (exclusive) is NaN, every output before it exact; an infinity is an ordinary value. Through
 * every algorithm and both kinds. */
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
          hr_scan_fill(t, (cuprim_op)op, HR_SCAN_RANDOM, seed, g.h_in, n);
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
          for (int ki = 0; ki < 2; ++ki) {
            make_reference(&g.ref, t, (cuprim_op)op, kinds[ki], g.h_in, n);
            if (sp < INF_WINS && kinds[ki] == CUPRIM_INCLUSIVE && g.ref.nan_from == n)
              fail_msg("test bug: the reference of a NaN case has no NaN");
            scan_call calls[MAX_CALLS];
            call_result res[MAX_CALLS];
            int count = 0;
            for (int a = SHORTHAND; a < NUM_ALGS; ++a) {
              const scan_call c = make_call(a, g.d_in, n, t, (cuprim_op)op, kinds[ki]);
              calls[count++] = c;
              if (a == CUPRIM_SCAN_AUTO)
                calls[count++] = in_place(c);
            }
            run_and_check(calls, count, g.stream, &g.ref, special_names[sp], seed, 0, res);
          }
        }
  end_gpu_test();
}

/* ---------------------------------------------------------------- misaligned pointers */

/* Pointers need only element alignment: d_in + 1 element, d_out + 1 element, both, and in place
 * at + 1 and + 3 elements (not 16-byte aligned for any dtype). AUTO with every placement; every
 * other algorithm with both pointers misaligned. */
static void test_misaligned(void **state) {
  (void)state;
  begin_gpu_test();
  static const uint64_t full[] = {1, 33, 2049, 4096, 4097, 16385, 65537, 1000003};
  static const uint64_t quick[] = {1, 33, 2049, 4097, 16385};
  const uint64_t *sizes = g.quick ? quick : full;
  const size_t nsizes = g.quick ? sizeof quick / sizeof quick[0] : sizeof full / sizeof full[0];
  for (size_t d = 0; d < NUM_SCAN_DTYPES; ++d) {
    const cuprim_dtype t = scan_dtypes[d];
    const size_t esize = cuprim_dtype_size(t);
    const cuprim_op ops[] = {CUPRIM_SUM, CUPRIM_MAX, is_float(t) ? CUPRIM_PROD : CUPRIM_XOR};
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; ++o)
      for (size_t k = 0; k < nsizes; ++k) {
        const uint64_t n = sizes[k];
        const uint64_t seed = case_seed(0x3A1, t, ops[o], n);
        /* floats: exact data, so every placement must give the very same values */
        hr_scan_fill(t, ops[o], is_float(t) ? HR_SCAN_EXACT : HR_SCAN_RANDOM, seed, g.h_in, n);
        unsigned char *in0 = g.d_in, *in1 = g.d_in2 + esize;
        upload(in0, g.h_in, n * esize, g.stream);
        upload(in1, g.h_in, n * esize, g.stream);
        for (int ki = 0; ki < 2; ++ki) {
          make_reference(&g.ref, t, ops[o], kinds[ki], g.h_in, n);
          scan_call calls[MAX_CALLS];
          call_result res[MAX_CALLS];
          int count = 0;
          for (int a = SHORTHAND; a < NUM_ALGS; ++a) {
            if (g.quick && a != CUPRIM_SCAN_AUTO && a != CUPRIM_SCAN_DECOUPLED_LOOKBACK &&
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
          run_and_check(calls, count, g.stream, &g.ref, is_float(t) ? "exact" : "random", seed, 0,
                        res);
        }
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
  const cuprim_op ops[] = {CUPRIM_SUM, CUPRIM_MIN};
  const uint64_t sizes[] = {1000, g.quick ? 65537u : (1u << 20) + 1};
  for (int si = 0; si < 2; ++si)
    for (int d = 0; d < 2; ++d)
      for (int k = 0; k < 2; ++k) {
        const cuprim_dtype t = dtypes[d];
        const cuprim_op op = ops[d];
        const uint64_t n = sizes[k];
        const uint64_t seed = case_seed(0x57E, t, (uint64_t)si, n);
        hr_scan_fill(t, op, HR_SCAN_EXACT, seed, g.h_in, n);
        upload(g.d_in, g.h_in, n * cuprim_dtype_size(t), streams[si]);
        for (int ki = 0; ki < 2; ++ki) {
          make_reference(&g.ref, t, op, kinds[ki], g.h_in, n);
          scan_call calls[MAX_CALLS];
          call_result res[MAX_CALLS];
          int count = 0;
          for (int a = SHORTHAND; a < NUM_ALGS; ++a)
            calls[count++] = make_call(a, g.d_in, n, t, op, kinds[ki]);
          calls[count++] = in_place(calls[1]);
          run_and_check(calls, count, streams[si], &g.ref, names[si], seed, 0, res);
        }
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
  const uint64_t n = g.quick ? 65537 : (1u << 21) + 3;
  const cuprim_dtype t = CUPRIM_U64;
  const size_t bytes = n * cuprim_dtype_size(t);
  unsigned char *h_a = g.h_in, *h_b = g.h_in + bytes; /* both fit in the pinned buffer */
  assert_true(2 * bytes <= IN_CAP_BYTES);
  const int algs[] = {CUPRIM_SCAN_AUTO, CUPRIM_SCAN_DECOUPLED_LOOKBACK, CUPRIM_SCAN_BLELLOCH,
                      CUPRIM_SCAN_HILLIS_STEELE};
  enum { CALLS = 4 };
  const region ra = main_region(), rb = {g.d_out2, g.h_out2, OUT2_CAP_BYTES};
  for (int round = 0; round < (g.quick ? 2 : 4); ++round) {
    const cuprim_scan_kind kind = kinds[round % 2];
    const uint64_t seed_a = case_seed(0xC0C, 1, (uint64_t)round, n);
    const uint64_t seed_b = case_seed(0xC0C, 2, (uint64_t)round, n);
    hr_scan_fill(t, CUPRIM_SUM, HR_SCAN_RANDOM, seed_a, h_a, n);
    hr_scan_fill(t, CUPRIM_SUM, HR_SCAN_RANDOM, seed_b, h_b, n);
    make_reference(&g.ref, t, CUPRIM_SUM, kind, h_a, n);
    make_reference(&g.ref2, t, CUPRIM_SUM, kind, h_b, n);
    upload(g.d_in, h_a, bytes, g.stream);
    upload(g.d_in2, h_b, bytes, other);
    scan_call ca[CALLS], cb[CALLS];
    call_result sa[CALLS], sb[CALLS];
    for (int i = 0; i < CALLS; ++i) {
      ca[i] = make_call(algs[i], g.d_in, n, t, CUPRIM_SUM, kind);
      cb[i] = make_call(algs[i], g.d_in2, n, t, CUPRIM_SUM, kind);
    }
    size_t used_a = 0, used_b = 0;
    for (int i = 0; i < CALLS; ++i) {
      sa[i].slot = used_a;
      sa[i].slot_bytes = slot_span(&ca[i]);
      used_a += sa[i].slot_bytes;
      sb[i].slot = used_b;
      sb[i].slot_bytes = slot_span(&cb[i]);
      used_b += sb[i].slot_bytes;
    }
    assert_true(used_a <= ra.cap && used_b <= rb.cap);
    TU_CUDA(cudaMemsetAsync(ra.d, POISON, used_a, g.stream));
    TU_CUDA(cudaMemsetAsync(rb.d, POISON, used_b, other));
    for (int i = 0; i < CALLS; ++i) {
      sa[i].st = issue(g.ctx, &ca[i], ca[i].d_in, ra.d + sa[i].slot + out_at(&ca[i]), g.stream);
      sb[i].st = issue(g.ctx, &cb[i], cb[i].d_in, rb.d + sb[i].slot + out_at(&cb[i]), other);
    }
    TU_CUDA(cudaMemcpyAsync(ra.h, ra.d, used_a, cudaMemcpyDeviceToHost, g.stream));
    TU_CUDA(cudaMemcpyAsync(rb.h, rb.d, used_b, cudaMemcpyDeviceToHost, other));
    finish(g.stream);
    finish(other);
    for (int i = 0; i < CALLS; ++i) {
      check_call(&ra, &ca[i], &sa[i], &g.ref, "random, stream A of two", seed_a, 0);
      check_call(&rb, &cb[i], &sb[i], &g.ref2, "random, stream B of two", seed_b, 0);
    }
  }
  TU_CUDA(cudaStreamDestroy(other));
  end_gpu_test();
}

/* ---------------------------------------------------------------- CUDA graphs */

/* AUTO (through cuprim_scan, on a large and a small input, in place, exclusive), every other
 * algorithm, and both of AUTO's kernels forced, captured into one graph: capture enqueues and runs
 * nothing; each replay reads whatever the input buffer holds then. */
static void test_graph_capture(void **state) {
  (void)state;
  begin_gpu_test();
  const uint64_t n = g.quick ? 65537 : (1u << 20) + 1, n_small = 1000;
  const cuprim_dtype t = CUPRIM_U32;
  const cuprim_op op = CUPRIM_SUM;
  const size_t bytes = n * cuprim_dtype_size(t);
  const uint64_t tile = lookback_tile(t);

  scan_call calls[16];
  int count = 0;
  calls[count++] = make_call(SHORTHAND, g.d_in, n, t, op, CUPRIM_INCLUSIVE);
  for (int a = 1; a < NUM_ALGS; ++a)
    calls[count++] = make_call(a, g.d_in, n, t, op, CUPRIM_INCLUSIVE);
  calls[count++] = make_call(CUPRIM_SCAN_AUTO, g.d_in, n, t, op, CUPRIM_EXCLUSIVE);
  calls[count++] = in_place(make_call(CUPRIM_SCAN_AUTO, g.d_in, n, t, op, CUPRIM_EXCLUSIVE));
  calls[count++] = make_call(SHORTHAND, g.d_in, n_small, t, op, CUPRIM_INCLUSIVE);
  calls[count++] = make_call(CUPRIM_SCAN_HILLIS_STEELE, g.d_in, n_small, t, op, CUPRIM_EXCLUSIVE);
  calls[count++] = tuned(g.d_in, n_small, t, op, CUPRIM_INCLUSIVE, 0); /* look-back, small */
  /* one block: 60 tiles (quick mode: all n elements, which is fewer; only n are uploaded) */
  const uint64_t n_one = 60 * tile + 7 < n ? 60 * tile + 7 : n;
  calls[count++] = tuned(g.d_in, n_one, t, op, CUPRIM_EXCLUSIVE, 64);

  const region rg = main_region();
  call_result res[16];
  size_t used = 0;
  for (int i = 0; i < count; ++i) {
    res[i].slot = used;
    res[i].slot_bytes = slot_span(&calls[i]);
    used += res[i].slot_bytes;
  }
  assert_true(used <= rg.cap);
  TU_CUDA(cudaMemsetAsync(rg.d, POISON, used, g.stream));
  finish(g.stream);

  cudaGraph_t graph = NULL;
  TU_CUDA(cudaStreamBeginCapture(g.stream, cudaStreamCaptureModeGlobal));
  cudaError_t copy_error = cudaSuccess;
  for (int i = 0; i < count; ++i) {
    unsigned char *out = rg.d + res[i].slot + out_at(&calls[i]);
    if (calls[i].in_place) {
      const cudaError_t e = cudaMemcpyAsync(out, calls[i].d_in, calls[i].n * cuprim_dtype_size(t),
                                            cudaMemcpyDeviceToDevice, g.stream);
      if (e != cudaSuccess && copy_error == cudaSuccess)
        copy_error = e;
    }
    res[i].st = issue(g.ctx, &calls[i], calls[i].in_place ? out : (const void *)calls[i].d_in, out,
                      g.stream);
  }
  const cudaError_t end = cudaStreamEndCapture(g.stream, &graph); /* always end the capture */
  for (int i = 0; i < count; ++i)
    if (res[i].st != CUPRIM_SUCCESS)
      failure("%s %s n=%" PRIu64 " under stream capture: %s (last CUDA error %s)",
              call_name(&calls[i]), hr_scan_kind_name(calls[i].kind), calls[i].n,
              tu_status_name(res[i].st), cudaGetErrorName(cuprim_last_cuda_error()));
  if (copy_error != cudaSuccess)
    failure("cudaMemcpyAsync under capture: %s", cudaGetErrorName(copy_error));
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
  TU_CUDA(cudaMemcpy(rg.h, rg.d, used, cudaMemcpyDeviceToHost));
  const size_t bad = tu_pattern_mismatch(rg.h, used, POISON);
  if (bad != used)
    failure("stream capture wrote output memory before any replay (byte %zu)", bad);

  cudaGraphExec_t exec = NULL;
  TU_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int round = 0; round < 3; ++round) {
    /* New data in the same buffer before rounds 0 and 1; round 2 replays on round 1's data. */
    const uint64_t seed = case_seed(0x6A9, (uint64_t)(round < 2 ? round : 1), 0, n);
    hr_scan_fill(t, op, HR_SCAN_RANDOM, seed, g.h_in, n);
    upload(g.d_in, g.h_in, bytes, g.stream);
    TU_CUDA(cudaMemsetAsync(rg.d, POISON, used, g.stream));
    TU_CUDA(cudaGraphLaunch(exec, g.stream));
    TU_CUDA(cudaMemcpyAsync(rg.h, rg.d, used, cudaMemcpyDeviceToHost, g.stream));
    finish(g.stream);
    char data[64];
    snprintf(data, sizeof data, "random, graph replay %d", round);
    for (int i = 0; i < count; ++i) {
      make_reference(&g.ref, t, op, calls[i].kind, g.h_in, calls[i].n);
      res[i].st = CUPRIM_SUCCESS;
      check_call(&rg, &calls[i], &res[i], &g.ref, data, seed, 0);
    }
  }
  TU_CUDA(cudaGraphExecDestroy(exec));
  TU_CUDA(cudaGraphDestroy(graph));
  end_gpu_test();
}

/* ---------------------------------------------------------------- determinism */

/* Integer dtypes and MIN/MAX: every algorithm gives the same bits on three runs (and the right
 * ones). Float SUM with inexact data may differ between runs of the look-back algorithms
 * (scan.h); how often it does is printed, not checked. */
static void test_determinism(void **state) {
  (void)state;
  begin_gpu_test();
  const uint64_t n = g.quick ? (1u << 16) + 3 : (1u << 20) + 3;
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
    const uint64_t seed = case_seed(0xDE7, t, op, n);
    hr_scan_fill(t, op, HR_SCAN_RANDOM, seed, g.h_in, n);
    upload(g.d_in, g.h_in, n * cuprim_dtype_size(t), g.stream);
    for (int ki = 0; ki < 2; ++ki) {
      make_reference(&g.ref, t, op, kinds[ki], g.h_in, n);
      scan_call calls[MAX_CALLS];
      call_result res[MAX_CALLS];
      int count = 0;
      for (int a = SHORTHAND; a < NUM_ALGS; ++a)
        for (int r = 0; r < RUNS; ++r)
          calls[count++] = make_call(a, g.d_in, n, t, op, kinds[ki]);
      run_and_check(calls, count, g.stream, &g.ref, "random", seed, 1, res);
      for (int i = 0; i < count; i += RUNS) {
        int differ = 0, all_ok = 1;
        for (int r = 0; r < RUNS; ++r)
          all_ok &= res[i + r].ok;
        for (int r = 1; r < RUNS; ++r)
          differ += res[i + r].hash != res[i].hash;
        if (!all_ok)
          continue; /* already reported */
        if (promised && differ)
          failure("%s %s %s %s n=%" PRIu64 " seed=0x%016" PRIx64
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
  end_gpu_test();
}

/* ---------------------------------------------------------------- AUTO's kernels */

/* The single-block kernel (single_block_max_tiles = 64) and the look-back kernel (0), forced
 * through the internal entry point for the same input, and AUTO: all correct, and for integers,
 * MIN/MAX and exact float data the same bits. Sizes around the tile up to 64 tiles. */
static void test_kernel_choice_same_bits(void **state) {
  (void)state;
  begin_gpu_test();
  const cuprim_dtype dtypes[] = {CUPRIM_I32, CUPRIM_U64, CUPRIM_F32, CUPRIM_F64};
  for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; ++d) {
    const cuprim_dtype t = dtypes[d];
    const cuprim_op ops[] = {CUPRIM_SUM, CUPRIM_MAX, is_float(t) ? CUPRIM_PROD : CUPRIM_XOR};
    const uint64_t T = lookback_tile(t);
    const uint64_t sizes[] = {1,     31,        T - 1,      T,      T + 1,      2 * T + 3,
                              4 * T, 4 * T + 1, 17 * T + 5, 32 * T, 63 * T + 7, 64 * T};
    const size_t nsizes = g.quick ? 10 : sizeof sizes / sizeof sizes[0];
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; ++o) {
      const uint64_t max_n = sizes[nsizes - 1];
      const uint64_t seed = case_seed(0xA07, t, ops[o], 0);
      const hr_scan_data data = is_float(t) ? HR_SCAN_EXACT : HR_SCAN_RANDOM;
      hr_scan_fill(t, ops[o], data, seed, g.h_in, max_n);
      upload(g.d_in, g.h_in, max_n * cuprim_dtype_size(t), g.stream);
      for (size_t k = 0; k < nsizes; ++k)
        for (int ki = 0; ki < 2; ++ki) {
          const uint64_t n = sizes[k];
          make_reference(&g.ref, t, ops[o], kinds[ki], g.h_in, n);
          enum { NCALLS = 8 };
          scan_call calls[NCALLS];
          call_result res[NCALLS];
          calls[0] = tuned(g.d_in, n, t, ops[o], kinds[ki], 64); /* one block */
          calls[1] = tuned(g.d_in, n, t, ops[o], kinds[ki], 0);  /* look-back by a warp */
          calls[2] = make_call(SHORTHAND, g.d_in, n, t, ops[o], kinds[ki]);
          calls[3] = in_place(calls[0]);
          calls[4] = in_place(calls[1]);
          calls[5] = make_call(CUPRIM_SCAN_DECOUPLED_LOOKBACK, g.d_in, n, t, ops[o], kinds[ki]);
          calls[6] = calls[1]; /* half-size tiles, status reset by a PDL kernel */
          calls[6].tune.small_tiles_max_n = UINT64_MAX;
          calls[6].tune.pdl_reset = 1;
          calls[7] = calls[1]; /* half-size tiles, memset reset, in place */
          calls[7].tune.small_tiles_max_n = UINT64_MAX;
          calls[7] = in_place(calls[7]);
          const int ok =
              run_and_check(calls, NCALLS, g.stream, &g.ref, hr_scan_data_name(data), seed, 1, res);
          if (ok == NCALLS && g.ref.exact)
            for (int i = 1; i < NCALLS; ++i)
              if (res[i].hash != res[0].hash)
                failure("%s %s %s n=%" PRIu64 ": %s and %s gave different bits", hr_dtype_name(t),
                        hr_op_name(ops[o]), hr_scan_kind_name(kinds[ki]), n, call_name(&calls[0]),
                        call_name(&calls[i]));
        }
    }
  }
  end_gpu_test();
}

/* ---------------------------------------------------------------- look-back stress */

/* The look-back kernel (DECOUPLED_LOOKBACK, and AUTO through cuprim_scan) run `runs` times on one
 * large input, inclusive and exclusive by turns, every element compared each time. A missing
 * fence or a misread tile status shows up as a rare wrong element, so the count of bad runs is
 * what to look at. */
static void stress(cuprim_dtype t, cuprim_op op, hr_scan_data data, uint64_t n, int runs) {
  const uint64_t seed = case_seed(0x57E55, t, op, n);
  hr_scan_fill(t, op, data, seed, g.h_in, n);
  upload(g.d_in, g.h_in, n * cuprim_dtype_size(t), g.stream);
  hr_scan_ref *refs[2] = {&g.ref, &g.ref2};
  for (int ki = 0; ki < 2; ++ki)
    make_reference(refs[ki], t, op, kinds[ki], g.h_in, n);
  if (!g.ref.exact || !g.ref2.exact)
    fail_msg("test bug: the stress data must give an exact reference");
  int bad_runs[2] = {0, 0};
  const int algs[2] = {CUPRIM_SCAN_DECOUPLED_LOOKBACK, SHORTHAND};
  for (int r = 0; r < runs; ++r) {
    const int ki = r % 2;
    scan_call calls[2];
    call_result res[2];
    for (int a = 0; a < 2; ++a)
      calls[a] = make_call(algs[a], g.d_in, n, t, op, kinds[ki]);
    char label[64];
    snprintf(label, sizeof label, "%s, stress run %d of %d", hr_scan_data_name(data), r + 1, runs);
    run_and_check(calls, 2, g.stream, refs[ki], label, seed, 0, res);
    for (int a = 0; a < 2; ++a)
      bad_runs[a] += !res[a].ok;
  }
  for (int a = 0; a < 2; ++a) {
    const scan_call c = make_call(algs[a], g.d_in, n, t, op, CUPRIM_INCLUSIVE);
    print_message("look-back stress: %s %s %s n=%" PRIu64 ": %d of %d runs wrong\n", call_name(&c),
                  hr_dtype_name(t), hr_op_name(op), n, bad_runs[a], runs);
  }
}

static void test_lookback_stress(void **state) {
  (void)state;
  begin_gpu_test();
  const int runs = g.quick ? 5 : 50;
  /* 4-byte values: status and value packed in one word; 8-byte: separate arrays and a fence. */
  stress(CUPRIM_I32, CUPRIM_SUM, HR_SCAN_RANDOM, g.quick ? (1u << 17) + 5 : (1u << 24) + 5, runs);
  stress(CUPRIM_U64, CUPRIM_SUM, HR_SCAN_RANDOM, g.quick ? (1u << 16) + 5 : (1u << 23) + 5, runs);
  /* Float SUM on exact data: the same bits every run, so a race in the float path shows too. */
  stress(CUPRIM_F32, CUPRIM_SUM, HR_SCAN_EXACT, g.quick ? (1u << 17) + 5 : (1u << 24) + 5,
         g.quick ? 3 : 20);
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

/* Runs calls through `ctx` (not g.ctx) on g.stream; checks against g.ref. */
static void run_on_context(cuprim_ctx *ctx, const scan_call *calls, int count, call_result *res,
                           const char *data, uint64_t seed) {
  const region rg = main_region();
  enqueue_calls(ctx, calls, count, g.stream, &rg, res);
  finish(g.stream);
  for (int i = 0; i < count; ++i)
    check_call(&rg, &calls[i], &res[i], &g.ref, data, seed, 0);
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
               {CUPRIM_I32, CUPRIM_MAX, g.quick ? 100003 : (1u << 22) + 5}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k)
    for (int ki = 0; ki < 2; ++ki) {
      const cuprim_dtype t = cases[k].t;
      const uint64_t n = cases[k].n;
      const uint64_t seed = case_seed(0xA11C, t, cases[k].op, n);
      hr_scan_fill(t, cases[k].op, HR_SCAN_RANDOM, seed, g.h_in, n);
      upload(g.d_in, g.h_in, n * cuprim_dtype_size(t), g.stream);
      make_reference(&g.ref, t, cases[k].op, kinds[ki], g.h_in, n);
      scan_call calls[NUM_ALGS + 1];
      call_result res[NUM_ALGS + 1];
      int count = 0;
      for (int al = SHORTHAND; al < NUM_ALGS; ++al)
        calls[count++] = make_call(al, g.d_in, n, t, cases[k].op, kinds[ki]);
      run_on_context(ctx, calls, count, res, "random, counting allocator", seed);
    }
  assert_int_equal(cuprim_ctx_destroy(ctx), CUPRIM_SUCCESS);
  print_message("counting allocator: %lu allocs, %lu frees, %llu bytes, at most %d live\n",
                counts.allocs, counts.frees, counts.bytes_allocated, counts.max_live);
  if (counts.allocs == 0)
    failure("the context's allocator was never called (the look-back tile status needs memory)");
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

/* Calls that need temporary memory (the look-back kernel's tile status, the ladder's tile totals
 * past one tile) return OUT_OF_MEMORY having launched nothing (their output untouched); calls that
 * need none (AUTO's single block) may succeed, but never with a wrong result. */
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
  const uint64_t sizes[] = {1000, g.quick ? (1u << 17) + 1 : (1u << 20) + 1};
  for (int k = 0; k < 2; ++k) {
    const uint64_t n = sizes[k];
    const uint64_t seed = case_seed(0xFA11, t, op, n);
    hr_scan_fill(t, op, HR_SCAN_RANDOM, seed, g.h_in, n);
    upload(g.d_in, g.h_in, n * cuprim_dtype_size(t), g.stream);
    make_reference(&g.ref, t, op, CUPRIM_INCLUSIVE, g.h_in, n);
    scan_call calls[NUM_ALGS + 1];
    call_result res[NUM_ALGS + 1];
    int count = 0;
    for (int al = SHORTHAND; al < NUM_ALGS; ++al)
      calls[count++] = make_call(al, g.d_in, n, t, op, CUPRIM_INCLUSIVE);
    const region rg = main_region();
    enqueue_calls(ctx, calls, count, g.stream, &rg, res);
    finish(g.stream);
    for (int i = 0; i < count; ++i) {
      char what[384];
      describe(what, sizeof what, &calls[i], "random, failing allocator", seed);
      /* Past 64 tiles the look-back kernel and the ladder's tile totals need memory. */
      const int must_fail = k == 1 && calls[i].alg != SHORTHAND && calls[i].alg != CUPRIM_SCAN_AUTO;
      if (res[i].st == CUPRIM_ERROR_OUT_OF_MEMORY) {
        const size_t bad = tu_pattern_mismatch(rg.h + res[i].slot, res[i].slot_bytes, POISON);
        if (bad != res[i].slot_bytes)
          failure("%s: returned OUT_OF_MEMORY but wrote its output slot (byte %zu)", what, bad);
      } else if (must_fail) {
        failure("%s: expected CUPRIM_ERROR_OUT_OF_MEMORY, got %s", what, tu_status_name(res[i].st));
      } else {
        check_call(&rg, &calls[i], &res[i], &g.ref, "random, failing allocator", seed, 0);
      }
    }
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
  const size_t in_bytes = 4096, out_bytes = 8192;
  TU_CUDA(cudaMemsetAsync(g.d_in, POISON, in_bytes, g.stream));
  TU_CUDA(cudaMemsetAsync(g.d_out, POISON, out_bytes, g.stream));
  finish(g.stream);
  const unsigned char *in = g.d_in;
  unsigned char *out = g.d_out + GUARD_BYTES;
  const cuprim_scan_kind I = CUPRIM_INCLUSIVE, E = CUPRIM_EXCLUSIVE;
  const struct {
    const char *what;
    cuprim_status got, want;
  } cases[] = {
      {"NULL ctx", cuprim_scan(NULL, in, out, 10, CUPRIM_F32, CUPRIM_SUM, I, g.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"NULL d_out", cuprim_scan(g.ctx, in, NULL, 10, CUPRIM_F32, CUPRIM_SUM, I, g.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"NULL d_in, n 10",
       cuprim_scan_ex(g.ctx, CUPRIM_SCAN_BLELLOCH, NULL, out, 10, CUPRIM_F32, CUPRIM_SUM, E,
                      g.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"alg 5",
       cuprim_scan_ex(g.ctx, (cuprim_scan_alg)5, in, out, 10, CUPRIM_F32, CUPRIM_SUM, I, g.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"dtype 12", cuprim_scan(g.ctx, in, out, 10, (cuprim_dtype)12, CUPRIM_SUM, I, g.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"op 7", cuprim_scan(g.ctx, in, out, 10, CUPRIM_F32, (cuprim_op)7, I, g.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"kind 2",
       cuprim_scan(g.ctx, in, out, 10, CUPRIM_F32, CUPRIM_SUM, (cuprim_scan_kind)2, g.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"d_out + 1 byte", cuprim_scan(g.ctx, in, out + 1, 10, CUPRIM_F32, CUPRIM_SUM, I, g.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"d_in + 1 byte",
       cuprim_scan(g.ctx, g.d_in + 1, out, 10, CUPRIM_F32, CUPRIM_SUM, E, g.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"d_out = d_in + 1 element",
       cuprim_scan_ex(g.ctx, CUPRIM_SCAN_DECOUPLED_LOOKBACK, in, g.d_in + 4, 100, CUPRIM_F32,
                      CUPRIM_SUM, I, g.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"d_out inside d_in",
       cuprim_scan_ex(g.ctx, CUPRIM_SCAN_WARP_SHUFFLE, in, g.d_in + 64, 100, CUPRIM_U32, CUPRIM_SUM,
                      I, g.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"I8", cuprim_scan(g.ctx, in, out, 10, CUPRIM_I8, CUPRIM_SUM, I, g.stream),
       CUPRIM_ERROR_UNSUPPORTED},
      {"U16",
       cuprim_scan_ex(g.ctx, CUPRIM_SCAN_HILLIS_STEELE, in, out, 10, CUPRIM_U16, CUPRIM_MAX, E,
                      g.stream),
       CUPRIM_ERROR_UNSUPPORTED},
      {"XOR on F32", cuprim_scan(g.ctx, in, out, 10, CUPRIM_F32, CUPRIM_XOR, I, g.stream),
       CUPRIM_ERROR_UNSUPPORTED},
      {"AND on F64",
       cuprim_scan_ex(g.ctx, CUPRIM_SCAN_DECOUPLED_LOOKBACK, in, out, 10, CUPRIM_F64, CUPRIM_AND, E,
                      g.stream),
       CUPRIM_ERROR_UNSUPPORTED},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    if (cases[i].got != cases[i].want)
      failure("%s: expected %s, got %s", cases[i].what, tu_status_name(cases[i].want),
              tu_status_name(cases[i].got));
  TU_CUDA(cudaMemcpyAsync(g.h_out, g.d_out, out_bytes, cudaMemcpyDeviceToHost, g.stream));
  TU_CUDA(cudaMemcpyAsync(g.h_in, g.d_in, in_bytes, cudaMemcpyDeviceToHost, g.stream));
  finish(g.stream);
  if (tu_pattern_mismatch(g.h_out, out_bytes, POISON) != out_bytes)
    failure("a call with invalid or unsupported arguments wrote its output");
  if (tu_pattern_mismatch(g.h_in, in_bytes, POISON) != in_bytes)
    failure("a call with invalid or unsupported arguments wrote into d_in");
  if (cuprim_last_cuda_error() != cudaSuccess)
    failure("cuprim_last_cuda_error() is %s after argument errors",
            cudaGetErrorName(cuprim_last_cuda_error()));
  end_gpu_test();
}

/* ---------------------------------------------------------------- past 2^31 elements */

/* U32 SUM of formula data (test_device_fill.h) at 2^31 + 17 elements: AUTO (also in place) and
 * DECOUPLED_LOOKBACK, inclusive and exclusive, and each ladder algorithm inclusive. The data is
 * generated on the device; the output is checked on the device (d_out[i] - d_out[i-1] must be
 * the formula's element: for a wrapping sum that is the same as every element being right), its
 * guards and a few elements around 2^31 and at the end against a prefix streamed on the host.
 * A context of its own, destroyed at the end, so that its pool gives back what it took. */
static void test_large_input(void **state) {
  (void)state;
  begin_gpu_test();
  if (g.quick) {
    print_message("[  SKIP    ] past 2^31: skipped in quick mode (CUPRIM_TEST_QUICK)\n");
    skip();
  }
  const uint64_t n = (1ull << 31) + 17;
  const size_t bytes = n * sizeof(uint32_t);
  size_t free_bytes = 0, total_bytes = 0;
  TU_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const double GiB = 1073741824.0;
  const size_t need = 2 * bytes + 2 * GUARD_BYTES + ((size_t)1 << 30);
  if (free_bytes < need) {
    print_message("[  SKIP    ] past 2^31: %.1f GiB free on the device, %.1f GiB needed\n",
                  free_bytes / GiB, need / GiB);
    skip();
  }
  cuprim_ctx *ctx = NULL;
  const cuprim_status cs = cuprim_ctx_create(&ctx, 0, NULL);
  if (cs != CUPRIM_SUCCESS)
    fail_msg("cuprim_ctx_create: %s", tu_status_name(cs));
  uint32_t *d_in = NULL;
  unsigned char *d_slot = NULL;
  TU_CUDA(cudaMalloc((void **)&d_in, bytes));
  TU_CUDA(cudaMalloc((void **)&d_slot, bytes + 2 * GUARD_BYTES));
  uint32_t *d_out = (uint32_t *)(void *)(d_slot + GUARD_BYTES);
  TU_CUDA(tu_device_fill_u32(d_in, n, g.stream));

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
    scan_call c = make_call(runs[r].alg, d_in, n, CUPRIM_U32, CUPRIM_SUM, runs[r].kind);
    c.in_place = runs[r].in_place;
    char what[384];
    describe(what, sizeof what, &c, "(u32)(i * 2654435761) >> 7", 0);
    TU_CUDA(cudaMemsetAsync(d_slot, POISON, bytes + 2 * GUARD_BYTES, g.stream));
    if (c.in_place)
      TU_CUDA(cudaMemcpyAsync(d_out, d_in, bytes, cudaMemcpyDeviceToDevice, g.stream));
    const cuprim_status st =
        issue(ctx, &c, c.in_place ? (const void *)d_out : d_in, d_out, g.stream);
    finish(g.stream);
    if (st != CUPRIM_SUCCESS) {
      failure("%s: returned %s (last CUDA error %s)", what, tu_status_name(st),
              cudaGetErrorName(cuprim_last_cuda_error()));
      continue;
    }
    const int excl = c.kind == CUPRIM_EXCLUSIVE;
    uint64_t wrong = 0, first = 0;
    TU_CUDA(tu_device_check_scan_sum_u32(d_out, n, excl, &wrong, &first, g.stream));
    if (wrong && first == 0) {
      uint32_t got = 0;
      TU_CUDA(cudaMemcpy(&got, d_out, 4, cudaMemcpyDeviceToHost));
      failure("%s: at index 0: expected %" PRIu32 ", got %" PRIu32 " (%" PRIu64
              " element(s) wrong relative to their predecessor)",
              what, excl ? 0u : tu_fill_u32_formula(0), got, wrong);
    } else if (wrong) {
      uint32_t got[2] = {0, 0};
      TU_CUDA(cudaMemcpy(got, d_out + first - 1, 8, cudaMemcpyDeviceToHost));
      failure("%s: %" PRIu64 " element(s) differ from their predecessor by the wrong amount; the "
              "first at index %" PRIu64 ": d_out[i-1] = %" PRIu32 ", d_out[i] = %" PRIu32
              ", difference %" PRIu32 ", expected %" PRIu32,
              what, wrong, first, got[0], got[1], got[1] - got[0],
              tu_fill_u32_formula(excl ? first - 1 : first));
    }
    unsigned char guards[2 * GUARD_BYTES];
    TU_CUDA(cudaMemcpy(guards, d_slot, GUARD_BYTES, cudaMemcpyDeviceToHost));
    TU_CUDA(cudaMemcpy(guards + GUARD_BYTES, d_slot + GUARD_BYTES + bytes, GUARD_BYTES,
                       cudaMemcpyDeviceToHost));
    const size_t bad = tu_pattern_mismatch(guards, sizeof guards, POISON);
    if (bad != sizeof guards)
      failure("%s: wrote %s d_out (guard byte %zu)", what, bad < GUARD_BYTES ? "before" : "past",
              bad);
    for (size_t s = 0; s < NSPOTS; ++s) {
      uint32_t got = 0;
      TU_CUDA(cudaMemcpy(&got, d_out + spots[s], 4, cudaMemcpyDeviceToHost));
      const uint32_t want = excl ? prefix[s] - tu_fill_u32_formula(spots[s]) : prefix[s];
      if (got != want)
        failure("%s: at index %" PRIu64 ": expected %" PRIu32 ", got %" PRIu32, what, spots[s],
                want, got);
    }
  }
  TU_CUDA(cudaFree(d_in));
  TU_CUDA(cudaFree(d_slot));
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
      cmocka_unit_test(test_misaligned),
      cmocka_unit_test(test_default_streams),
      cmocka_unit_test(test_concurrent_streams),
      cmocka_unit_test(test_graph_capture),
      cmocka_unit_test(test_determinism),
      cmocka_unit_test(test_kernel_choice_same_bits),
      cmocka_unit_test(test_lookback_stress),
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
