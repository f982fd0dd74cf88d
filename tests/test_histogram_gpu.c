/* cuprim_histogram_even, cuprim_histogram_even_ex and cuprim_histogram_range on a GPU, against
 * the plain C reference on the host (harness/hostref_histogram.h: histogram.h's formula to the
 * letter, so counts are compared exactly, bin for bin).
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
#include <time.h>

#include "hostref_histogram.h"
#include "test_device_fill.h"
#include "test_util.h"

/* ---------------------------------------------------------------- fixture */

#define NUM_ALGS 4             /* CUPRIM_HISTOGRAM_AUTO .. CUPRIM_HISTOGRAM_SORT_REDUCE_BY_KEY */
#define POISON 0xA5            /* guard bytes and the garbage counts start as */
#define GUARD_BYTES 256        /* guards on each side of an output; slots are 256-byte aligned */
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

static struct fixture {
  cudaError_t setup_error; /* the first CUDA failure of the group setup, if any */
  const char *setup_what;
  cuprim_status ctx_status;
  cuprim_ctx *ctx;                /* one context for the whole file (default allocator) */
  cudaStream_t stream;            /* non-blocking: where most calls run */
  unsigned char *d_in, *h_in;     /* IN_CAP_BYTES (h_in pinned) */
  unsigned char *d_in2, *h_in2;   /* IN2_CAP_BYTES */
  unsigned char *d_out, *h_out;   /* OUT_CAP_BYTES (h_out pinned) */
  unsigned char *d_out2, *h_out2; /* OUT2_CAP_BYTES */
  double *d_edges, *h_edges;      /* MAX_BINS + 1 doubles (h_edges pinned) */
  uint64_t *want;                 /* WANT_SLOTS * MAX_BINS: references */
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
  g.want = (uint64_t *)malloc((size_t)WANT_SLOTS * MAX_BINS * sizeof *g.want);
  if (!g.want) {
    g.setup_error = cudaErrorMemoryAllocation;
    g.setup_what = "malloc of the host references";
    return 0;
  }
  struct cudaDeviceProp prop;
  SETUP_CUDA(cudaGetDeviceProperties(&prop, 0));
  print_message("device 0: %s, sm_%d%d, %d SMs, %zu bytes of shared memory per block (opt-in)\n",
                prop.name, prop.major, prop.minor, prop.multiProcessorCount,
                prop.sharedMemPerBlockOptin);
  g.ctx_status = cuprim_ctx_create(&g.ctx, 0, NULL);
  SETUP_CUDA(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking));
  SETUP_CUDA(cudaMalloc((void **)&g.d_in, IN_CAP_BYTES));
  SETUP_CUDA(cudaMallocHost((void **)&g.h_in, IN_CAP_BYTES));
  SETUP_CUDA(cudaMalloc((void **)&g.d_in2, IN2_CAP_BYTES));
  SETUP_CUDA(cudaMallocHost((void **)&g.h_in2, IN2_CAP_BYTES));
  SETUP_CUDA(cudaMalloc((void **)&g.d_out, OUT_CAP_BYTES));
  SETUP_CUDA(cudaMallocHost((void **)&g.h_out, OUT_CAP_BYTES));
  SETUP_CUDA(cudaMalloc((void **)&g.d_out2, OUT2_CAP_BYTES));
  SETUP_CUDA(cudaMallocHost((void **)&g.h_out2, OUT2_CAP_BYTES));
  SETUP_CUDA(cudaMalloc((void **)&g.d_edges, ((size_t)MAX_BINS + 1) * sizeof(double)));
  SETUP_CUDA(cudaMallocHost((void **)&g.h_edges, ((size_t)MAX_BINS + 1) * sizeof(double)));
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  if (g.stream)
    (void)cudaStreamSynchronize(g.stream);
  if (g.ctx)
    (void)cuprim_ctx_destroy(g.ctx);
  (void)cudaFree(g.d_in);
  (void)cudaFreeHost(g.h_in);
  (void)cudaFree(g.d_in2);
  (void)cudaFreeHost(g.h_in2);
  (void)cudaFree(g.d_out);
  (void)cudaFreeHost(g.h_out);
  (void)cudaFree(g.d_out2);
  (void)cudaFreeHost(g.h_out2);
  (void)cudaFree(g.d_edges);
  (void)cudaFreeHost(g.h_edges);
  if (g.stream)
    (void)cudaStreamDestroy(g.stream);
  free(g.want);
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
    char buf[2048];
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

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The seed of one case: a function of the base seed and the case's parameters. */
static uint64_t case_seed(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  return hr_mix(hr_mix(hr_mix(hr_mix(g.seed, a), b), c), d);
}

static uint64_t *want_slot(int i) { return g.want + (size_t)i * MAX_BINS; }

static void finish(cudaStream_t stream) {
  TU_CUDA(cudaStreamSynchronize(stream)); /* a fault in a kernel shows up here */
  TU_CUDA(cudaGetLastError());
}

static void upload(void *d, const void *h, size_t bytes, cudaStream_t stream) {
  const unsigned char *p = (const unsigned char *)d;
  const int in1 = p >= g.d_in && p <= g.d_in + IN_CAP_BYTES;
  const int in2 = p >= g.d_in2 && p <= g.d_in2 + IN2_CAP_BYTES;
  if ((in1 && (size_t)(p - g.d_in) + bytes > IN_CAP_BYTES) ||
      (in2 && (size_t)(p - g.d_in2) + bytes > IN2_CAP_BYTES) || (!in1 && !in2))
    fail_msg("test bug: %zu bytes do not fit in the input buffers", bytes);
  if (bytes)
    TU_CUDA(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, stream));
}

static void upload_edges(const double *h_edges, uint32_t num_bins, cudaStream_t stream) {
  if (h_edges != g.h_edges)
    memcpy(g.h_edges, h_edges, ((size_t)num_bins + 1) * sizeof(double));
  TU_CUDA(cudaMemcpyAsync(g.d_edges, g.h_edges, ((size_t)num_bins + 1) * sizeof(double),
                          cudaMemcpyHostToDevice, stream));
}

static int is_float(cuprim_dtype t) { return t == CUPRIM_F32 || t == CUPRIM_F64; }

/* ---------------------------------------------------------------- calls */

#define SHORTHAND (-1) /* call.alg: cuprim_histogram_even */
#define RANGE (-2)     /* call.alg: cuprim_histogram_range with call.d_edges */

typedef struct hist_call {
  int alg; /* a cuprim_histogram_alg, SHORTHAND or RANGE */
  const unsigned char *d_samples;
  unsigned in_offset;  /* elements d_samples lies past an aligned address (for messages) */
  unsigned out_offset; /* counts d_counts lies past its slot's aligned start */
  int garbage;         /* the byte d_counts is filled with before the call (-1: POISON) */
  uint64_t n;
  cuprim_dtype dtype;
  uint32_t num_bins;
  double lower, upper;   /* even */
  const double *d_edges; /* RANGE */
  const uint64_t *want;  /* the expected counts (host, num_bins) */
} hist_call;

typedef struct call_result {
  cuprim_status st;
  size_t slot, slot_bytes; /* the call's slot in its output region */
  int ok;                  /* passed every check */
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

static hist_call even_call(int alg, const void *d_samples, uint64_t n, cuprim_dtype t,
                           const hr_hist_bins *b, const uint64_t *want) {
  hist_call c;
  memset(&c, 0, sizeof c);
  c.alg = alg;
  c.d_samples = (const unsigned char *)d_samples;
  c.garbage = -1;
  c.n = n;
  c.dtype = t;
  c.num_bins = b->num_bins;
  c.lower = b->lower;
  c.upper = b->upper;
  c.want = want;
  return c;
}

static hist_call range_call(const void *d_samples, uint64_t n, cuprim_dtype t, uint32_t num_bins,
                            const double *d_edges, const uint64_t *want) {
  hist_call c;
  memset(&c, 0, sizeof c);
  c.alg = RANGE;
  c.d_samples = (const unsigned char *)d_samples;
  c.garbage = -1;
  c.n = n;
  c.dtype = t;
  c.num_bins = num_bins;
  c.d_edges = d_edges;
  c.want = want;
  return c;
}

static const char *alg_name(int alg) {
  static const char *const names[] = {"AUTO", "GLOBAL_ATOMIC", "BLOCK_PRIVATE",
                                      "SORT_REDUCE_BY_KEY"};
  static char other[32];
  if (alg == SHORTHAND)
    return "cuprim_histogram_even";
  if (alg == RANGE)
    return "cuprim_histogram_range";
  if (alg >= 0 && alg < NUM_ALGS)
    return names[alg];
  snprintf(other, sizeof other, "alg(%d)", alg);
  return other;
}

static void describe(char *buf, size_t len, const hist_call *c, const char *data, uint64_t seed) {
  char offs[64] = "", range[96];
  if (c->in_offset || c->out_offset)
    snprintf(offs, sizeof offs, " (d_samples+%u d_counts+%u elements)", c->in_offset,
             c->out_offset);
  if (c->alg == RANGE)
    snprintf(range, sizeof range, "edges");
  else
    snprintf(range, sizeof range, "[%.17g, %.17g)", c->lower, c->upper);
  snprintf(buf, len, "%s %s n=%" PRIu64 " bins=%" PRIu32 " %s%s data=%s seed=0x%016" PRIx64,
           alg_name(c->alg), hr_dtype_name(c->dtype), c->n, c->num_bins, range, offs, data, seed);
}

static size_t round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }

static size_t slot_span(const hist_call *c) {
  return round_up(2 * GUARD_BYTES + ((size_t)c->out_offset + c->num_bins) * sizeof(uint64_t), 256);
}

static size_t out_at(const hist_call *c) {
  return GUARD_BYTES + (size_t)c->out_offset * sizeof(uint64_t);
}

static cuprim_status issue(cuprim_ctx *ctx, const hist_call *c, uint64_t *d_counts,
                           cudaStream_t stream) {
  switch (c->alg) {
  case SHORTHAND:
    return cuprim_histogram_even(ctx, c->d_samples, c->n, c->dtype, d_counts, c->num_bins, c->lower,
                                 c->upper, stream);
  case RANGE:
    return cuprim_histogram_range(ctx, c->d_samples, c->n, c->dtype, d_counts, c->num_bins,
                                  c->d_edges, stream);
  default:
    return cuprim_histogram_even_ex(ctx, (cuprim_histogram_alg)c->alg, c->d_samples, c->n, c->dtype,
                                    d_counts, c->num_bins, c->lower, c->upper, stream);
  }
}

static size_t layout(const hist_call *calls, int count, const region *rg, call_result *res) {
  size_t used = 0;
  for (int i = 0; i < count; ++i) {
    res[i].slot = used;
    res[i].slot_bytes = slot_span(&calls[i]);
    res[i].ok = 0;
    used += res[i].slot_bytes;
  }
  if (used > rg->cap)
    fail_msg("test bug: %d calls need %zu bytes of output slots, the region has %zu", count, used,
             rg->cap);
  return used;
}

/* Poisons the slots (and fills counts with each call's garbage byte), enqueues on `stream`. */
static void poison_slots(const hist_call *calls, int count, const region *rg,
                         const call_result *res, size_t used, cudaStream_t stream) {
  TU_CUDA(cudaMemsetAsync(rg->d, POISON, used, stream));
  for (int i = 0; i < count; ++i)
    if (calls[i].garbage >= 0 && calls[i].garbage != POISON)
      TU_CUDA(cudaMemsetAsync(rg->d + res[i].slot + out_at(&calls[i]), calls[i].garbage,
                              (size_t)calls[i].num_bins * sizeof(uint64_t), stream));
}

/* Lays out slots for calls[0..count) in the region, poisons them, enqueues the calls and the copy
 * of the slots back to the host. Nothing waits. */
static void enqueue_calls(cuprim_ctx *ctx, const hist_call *calls, int count, cudaStream_t stream,
                          const region *rg, call_result *res) {
  const size_t used = layout(calls, count, rg, res);
  poison_slots(calls, count, rg, res, used, stream);
  for (int i = 0; i < count; ++i)
    res[i].st = issue(ctx, &calls[i], (uint64_t *)(void *)(rg->d + res[i].slot + out_at(&calls[i])),
                      stream);
  TU_CUDA(cudaMemcpyAsync(rg->h, rg->d, used, cudaMemcpyDeviceToHost, stream));
}

/* The full check of one call: status, guards, every bin. */
static int check_call(const region *rg, const hist_call *c, call_result *r, const char *data,
                      uint64_t seed) {
  char what[512], why[1024];
  describe(what, sizeof what, c, data, seed);
  r->ok = 0;
  if (r->st != CUPRIM_SUCCESS) {
    failure("%s: returned %s (last CUDA error %s)", what, tu_status_name(r->st),
            cudaGetErrorName(cuprim_last_cuda_error()));
    return 0;
  }
  const unsigned char *slot = rg->h + r->slot;
  const size_t at = out_at(c), bytes = (size_t)c->num_bins * sizeof(uint64_t);
  size_t bad = tu_pattern_mismatch(slot, at, POISON);
  if (bad != at) {
    failure("%s: wrote before d_counts (guard byte d_counts-%zu is 0x%02x)", what, at - bad,
            slot[bad]);
    return 0;
  }
  const size_t tail = r->slot_bytes - at - bytes;
  bad = tu_pattern_mismatch(slot + at + bytes, tail, POISON);
  if (bad != tail) {
    failure("%s: wrote past d_counts + num_bins (guard byte d_counts+%zu+%zu is 0x%02x)", what,
            bytes, bad, slot[at + bytes + bad]);
    return 0;
  }
  uint64_t first = 0;
  const uint64_t wrong =
      hr_hist_check(c->want, (const uint64_t *)(const void *)(slot + at), c->num_bins, c->n,
                    c->garbage >= 0 ? c->garbage : POISON, &first, why, sizeof why);
  if (wrong) {
    failure("%s: %s", what, why);
    return 0;
  }
  r->ok = 1;
  return 1;
}

/* Runs calls[0..count) on `stream` (as many per batch as the region holds) and checks each against
 * its reference. Returns the number of calls that passed. */
static int run_and_check(const hist_call *calls, int count, cudaStream_t stream, const char *data,
                         uint64_t seed, call_result *res) {
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
      passed += check_call(&rg, &calls[k], &res[k], data, seed);
    i = j;
  }
  return passed;
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

static uint64_t reference(const hr_hist_bins *b, cuprim_dtype t, const void *h, uint64_t n,
                          uint64_t *want) {
  return hr_hist_reference(b, t, h, n, want);
}

/* ---------------------------------------------------------------- the sweep */

static const cuprim_dtype all_dtypes[] = {CUPRIM_I8,  CUPRIM_U8,  CUPRIM_I16, CUPRIM_U16,
                                          CUPRIM_I32, CUPRIM_U32, CUPRIM_I64, CUPRIM_U64,
                                          CUPRIM_F32, CUPRIM_F64};
#define NUM_DTYPES (sizeof all_dtypes / sizeof all_dtypes[0])

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
  if (g.quick) {
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
  size_t k = 0;
  for (size_t i = 0; i < nbase && k < cap; ++i)
    sizes[k++] = base[i];
  uint64_t s = hr_mix(g.seed, 0x5A5E5 + num_bins);
  for (int i = 0; i < randoms && k < cap; ++i)
    sizes[k++] = (uint64_t)exp2(1.0 + hr_unit(&s) * (top - 1.0));
  return k;
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
  begin_gpu_test();
  const double t0 = now_s();
  const uint32_t *bins = g.quick ? sweep_bins_quick : sweep_bins_full;
  const size_t nbins = g.quick ? sizeof sweep_bins_quick / sizeof sweep_bins_quick[0]
                               : sizeof sweep_bins_full / sizeof sweep_bins_full[0];
  const size_t esize = cuprim_dtype_size(t);
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
        if (g.quick && d != HR_HIST_UNIFORM && (size_t)d != 1 + (k + bi) % 4)
          continue;
        const hr_hist_span span = span_for((hr_hist_data)d, k);
        double lo, hi;
        hr_hist_span_range(t, nb, span, &lo, &hi);
        const hr_hist_bins b = hr_hist_bins_even(nb, lo, hi);
        const uint64_t seed = case_seed(t, nb, (uint64_t)d * 8 + span, n);
        hr_hist_fill(&b, t, (hr_hist_data)d, seed, g.h_in, n);
        upload(g.d_in, g.h_in, n * esize, g.stream);
        uint64_t *want = want_slot(0);
        reference(&b, t, g.h_in, n, want);
        hist_call calls[MAX_CALLS];
        call_result res[MAX_CALLS];
        const int count = all_even_calls(calls, g.d_in, n, t, &b, want);
        char data[96];
        snprintf(data, sizeof data, "%s (%s range)", hr_hist_data_name((hr_hist_data)d),
                 hr_hist_span_name(span));
        run_and_check(calls, count, g.stream, data, seed, res);
        ++cases;
        ncalls += (unsigned long)count;
      }
    }
  }
  print_message("%s: %lu cases, %lu calls, %.1f s\n", hr_dtype_name(t), cases, ncalls,
                now_s() - t0);
  end_gpu_test();
}

static void test_sweep_i8(void **state) {
  (void)state;
  sweep(CUPRIM_I8);
}
static void test_sweep_u8(void **state) {
  (void)state;
  sweep(CUPRIM_U8);
}
static void test_sweep_i16(void **state) {
  (void)state;
  sweep(CUPRIM_I16);
}
static void test_sweep_u16(void **state) {
  (void)state;
  sweep(CUPRIM_U16);
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

/* n == 0 writes num_bins zeros over whatever d_counts held (POISON or all-ones garbage), with
 * d_samples NULL or not, through every algorithm, dtype and a few bin counts, and through
 * cuprim_histogram_range. */
static void test_empty_input(void **state) {
  (void)state;
  begin_gpu_test();
  const uint32_t bins[] = {1, 257, 65536};
  static uint64_t zeros[65536]; /* the reference: all zero */
  hist_call calls[MAX_CALLS];
  call_result res[MAX_CALLS];
  double lo, hi;
  for (size_t d = 0; d < NUM_DTYPES; ++d)
    for (size_t bi = 0; bi < sizeof bins / sizeof bins[0]; ++bi) {
      const cuprim_dtype t = all_dtypes[d];
      hr_hist_span_range(t, bins[bi], HR_HIST_ODD, &lo, &hi);
      const hr_hist_bins b = hr_hist_bins_even(bins[bi], lo, hi);
      int count = 0;
      for (int nul = 0; nul < 2; ++nul)
        for (int a = SHORTHAND; a < NUM_ALGS; ++a) {
          hist_call c = even_call(a, nul ? NULL : g.d_in, 0, t, &b, zeros);
          c.garbage = (a + nul) % 2 ? 0xFF : -1;
          calls[count++] = c;
        }
      run_and_check(calls, count, g.stream, "n = 0", 0, res);
    }
  /* range: the edges uploaded once; NULL samples and not */
  hr_hist_even_edges(g.h_edges, 4096, 0.0, 4096.0);
  upload_edges(g.h_edges, 4096, g.stream);
  int count = 0;
  for (size_t d = 0; d < NUM_DTYPES; ++d) {
    hist_call c =
        range_call(d % 2 ? NULL : g.d_in, 0, all_dtypes[d], d % 3 ? 4096 : 1, g.d_edges, zeros);
    c.garbage = d % 2 ? 0xFF : -1;
    calls[count++] = c;
  }
  run_and_check(calls, count, g.stream, "n = 0", 0, res);
  if (cuprim_last_cuda_error() != cudaSuccess)
    failure("cuprim_last_cuda_error() is %s after calls with n == 0",
            cudaGetErrorName(cuprim_last_cuda_error()));
  end_gpu_test();
}

/* ---------------------------------------------------------------- misaligned pointers */

/* Samples need only element alignment: d_samples + k elements (k = 1, 3 for every dtype; also 7
 * and 15 for 8- and 16-bit samples, whose 16-byte vectors hold 16 or 8 of them, so that heads of
 * many lengths are met) through every call, with sizes below and above a vector's length; and
 * d_counts + 1 element (8-byte aligned, not 16) for AUTO, BLOCK_PRIVATE and the range call. */
static void test_misaligned(void **state) {
  (void)state;
  begin_gpu_test();
  static const uint64_t full[] = {1, 2, 7, 15, 17, 33, 1025, 65537, 1000003};
  static const uint64_t quick[] = {1, 15, 33, 1025, 65537};
  const uint64_t *sizes = g.quick ? quick : full;
  const size_t nsizes = g.quick ? sizeof quick / sizeof quick[0] : sizeof full / sizeof full[0];
  for (size_t d = 0; d < NUM_DTYPES; ++d) {
    const cuprim_dtype t = all_dtypes[d];
    const size_t esize = cuprim_dtype_size(t);
    const unsigned offsets[] = {1, 3, 7, 15};
    const size_t noffsets = esize <= 2 ? 4 : 2;
    for (size_t k = 0; k < nsizes; ++k) {
      const uint64_t n = sizes[k];
      const uint32_t nb = k % 3 == 0 ? 256 : k % 3 == 1 ? 257 : 4096;
      double lo, hi;
      hr_hist_span_range(t, nb, HR_HIST_ODD, &lo, &hi);
      const hr_hist_bins b = hr_hist_bins_even(nb, lo, hi);
      const hr_hist_data data = k % 2 ? HR_HIST_OUT_OF_RANGE : HR_HIST_UNIFORM;
      const uint64_t seed = case_seed(0x3A1, t, nb, n);
      hr_hist_fill(&b, t, data, seed, g.h_in, n);
      uint64_t *want = want_slot(0), *want_e = want_slot(1);
      reference(&b, t, g.h_in, n, want);
      hr_hist_even_edges(g.h_edges, nb, lo, hi);
      const hr_hist_bins be = hr_hist_bins_edges(nb, g.h_edges);
      reference(&be, t, g.h_in, n, want_e);
      upload_edges(g.h_edges, nb, g.stream);
      for (size_t o = 0; o < noffsets; ++o) {
        const unsigned off = offsets[o];
        unsigned char *din = g.d_in + off * esize;
        upload(din, g.h_in, n * esize, g.stream);
        hist_call calls[MAX_CALLS];
        call_result res[MAX_CALLS];
        int count = all_even_calls(calls, din, n, t, &b, want);
        for (int i = 0; i < count; ++i)
          calls[i].in_offset = off;
        hist_call c = even_call(CUPRIM_HISTOGRAM_AUTO, din, n, t, &b, want);
        c.in_offset = off;
        c.out_offset = 1;
        calls[count++] = c;
        c.alg = CUPRIM_HISTOGRAM_BLOCK_PRIVATE;
        calls[count++] = c;
        c = range_call(din, n, t, nb, g.d_edges, want_e);
        c.in_offset = off;
        calls[count++] = c;
        c.out_offset = 1;
        calls[count++] = c;
        run_and_check(calls, count, g.stream, hr_hist_data_name(data), seed, res);
      }
    }
  }
  end_gpu_test();
}

/* ---------------------------------------------------------------- streams */

/* The legacy default stream (0) and the per-thread default stream, besides the non-blocking
 * stream every other test uses; then two non-blocking streams in flight at once on one context,
 * enqueued alternately before either is waited for. */
static void test_streams(void **state) {
  (void)state;
  begin_gpu_test();
  const cudaStream_t streams[] = {0, cudaStreamPerThread};
  const char *const names[] = {"legacy default stream", "per-thread default stream"};
  const cuprim_dtype dtypes[] = {CUPRIM_U8, CUPRIM_F32, CUPRIM_I64};
  const uint64_t sizes[] = {1000, g.quick ? 65537u : (1u << 20) + 1};
  for (int si = 0; si < 2; ++si)
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; ++d)
      for (int k = 0; k < 2; ++k) {
        const cuprim_dtype t = dtypes[d];
        const uint64_t n = sizes[k];
        const uint32_t nb = d == 0 ? 256 : 4096;
        double lo, hi;
        hr_hist_span_range(t, nb, HR_HIST_FULL, &lo, &hi);
        const hr_hist_bins b = hr_hist_bins_even(nb, lo, hi);
        const uint64_t seed = case_seed(0x57E, t, (uint64_t)si, n);
        hr_hist_fill(&b, t, HR_HIST_UNIFORM, seed, g.h_in, n);
        upload(g.d_in, g.h_in, n * cuprim_dtype_size(t), streams[si]);
        uint64_t *want = want_slot(0), *want_e = want_slot(1);
        reference(&b, t, g.h_in, n, want);
        hr_hist_random_edges(g.h_edges, nb, lo, hi, !is_float(t), seed);
        const hr_hist_bins be = hr_hist_bins_edges(nb, g.h_edges);
        reference(&be, t, g.h_in, n, want_e);
        upload_edges(g.h_edges, nb, streams[si]);
        hist_call calls[MAX_CALLS];
        call_result res[MAX_CALLS];
        int count = all_even_calls(calls, g.d_in, n, t, &b, want);
        calls[count++] = range_call(g.d_in, n, t, nb, g.d_edges, want_e);
        run_and_check(calls, count, streams[si], names[si], seed, res);
      }

  cudaStream_t other;
  TU_CUDA(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  const uint64_t n = g.quick ? 65537 : (1u << 21) + 3;
  const cuprim_dtype ta = CUPRIM_U16, tb = CUPRIM_F64;
  const region ra = main_region(), rb = {g.d_out2, g.h_out2, OUT2_CAP_BYTES};
  assert_true(n * cuprim_dtype_size(tb) <= IN2_CAP_BYTES);
  for (int round = 0; round < (g.quick ? 1 : 3); ++round) {
    double lo, hi;
    hr_hist_span_range(ta, 4096, HR_HIST_ODD, &lo, &hi);
    const hr_hist_bins ba = hr_hist_bins_even(4096, lo, hi);
    hr_hist_span_range(tb, 257, HR_HIST_ODD, &lo, &hi);
    const hr_hist_bins bb = hr_hist_bins_even(257, lo, hi);
    const uint64_t seed_a = case_seed(0xC0C, 1, (uint64_t)round, n);
    const uint64_t seed_b = case_seed(0xC0C, 2, (uint64_t)round, n);
    hr_hist_fill(&ba, ta, HR_HIST_UNIFORM, seed_a, g.h_in, n);
    hr_hist_fill(&bb, tb, HR_HIST_NAN, seed_b, g.h_in2, n);
    uint64_t *want_a = want_slot(0), *want_b = want_slot(1);
    reference(&ba, ta, g.h_in, n, want_a);
    reference(&bb, tb, g.h_in2, n, want_b);
    upload(g.d_in, g.h_in, n * cuprim_dtype_size(ta), g.stream);
    upload(g.d_in2, g.h_in2, n * cuprim_dtype_size(tb), other);
    hist_call ca[NUM_ALGS + 1], cb[NUM_ALGS + 1];
    call_result sa[NUM_ALGS + 1], sb[NUM_ALGS + 1];
    const int count = all_even_calls(ca, g.d_in, n, ta, &ba, want_a);
    all_even_calls(cb, g.d_in2, n, tb, &bb, want_b);
    const size_t used_a = layout(ca, count, &ra, sa), used_b = layout(cb, count, &rb, sb);
    poison_slots(ca, count, &ra, sa, used_a, g.stream);
    poison_slots(cb, count, &rb, sb, used_b, other);
    for (int i = 0; i < count; ++i) {
      sa[i].st =
          issue(g.ctx, &ca[i], (uint64_t *)(void *)(ra.d + sa[i].slot + out_at(&ca[i])), g.stream);
      sb[i].st =
          issue(g.ctx, &cb[i], (uint64_t *)(void *)(rb.d + sb[i].slot + out_at(&cb[i])), other);
    }
    TU_CUDA(cudaMemcpyAsync(ra.h, ra.d, used_a, cudaMemcpyDeviceToHost, g.stream));
    TU_CUDA(cudaMemcpyAsync(rb.h, rb.d, used_b, cudaMemcpyDeviceToHost, other));
    finish(g.stream);
    finish(other);
    for (int i = 0; i < count; ++i) {
      check_call(&ra, &ca[i], &sa[i], "uniform, stream A of two", seed_a);
      check_call(&rb, &cb[i], &sb[i], "NaN and inf, stream B of two", seed_b);
    }
  }
  TU_CUDA(cudaStreamDestroy(other));
  end_gpu_test();
}

/* ---------------------------------------------------------------- CUDA graphs */

/* Every algorithm, the shorthand and the range call on a large input, a call with n == 0, small
 * inputs, 65536 bins, captured into one graph: capture runs nothing; each replay reads whatever
 * the input buffer holds then and overwrites the counts; replaying twice on the same input gives
 * the same counts. */
static void test_graph_capture(void **state) {
  (void)state;
  begin_gpu_test();
  const uint64_t n = g.quick ? 65537 : (1u << 20) + 1, n_small = 1000;
  const cuprim_dtype t = CUPRIM_F32;
  const size_t esize = cuprim_dtype_size(t);
  static uint64_t zeros[4096];
  double lo, hi;
  hr_hist_span_range(t, 4096, HR_HIST_ODD, &lo, &hi);
  const hr_hist_bins b = hr_hist_bins_even(4096, lo, hi);
  hr_hist_span_range(t, 65536, HR_HIST_EXACT, &lo, &hi);
  const hr_hist_bins b2 = hr_hist_bins_even(65536, lo, hi);
  hr_hist_span_range(t, 257, HR_HIST_FULL, &lo, &hi);
  const hr_hist_bins b3 = hr_hist_bins_even(257, lo, hi);
  /* Random edges over b's range, uploaded once: the graph reads them at each replay. */
  const uint32_t nbe = 1000;
  hr_hist_random_edges(g.h_edges, nbe, b.lower, b.upper, 0, case_seed(0x6A9, 0xED, 0, 0));
  const hr_hist_bins be = hr_hist_bins_edges(nbe, g.h_edges);
  upload_edges(g.h_edges, nbe, g.stream);
  /* The references: slot 0 (b, n), 1 (edges, n), 2 (b, n_small), 3 (b2, n) and 3 + 65536 (b3,
   * n_small). */
  uint64_t *w_b = want_slot(0), *w_e = want_slot(1), *w_small = want_slot(2), *w_b2 = want_slot(3),
           *w_b3 = want_slot(3) + 65536;

  hist_call calls[16];
  int count = all_even_calls(calls, g.d_in, n, t, &b, w_b);
  calls[count++] = range_call(g.d_in, n, t, nbe, g.d_edges, w_e);
  calls[count++] = even_call(CUPRIM_HISTOGRAM_AUTO, g.d_in, 0, t, &b, zeros);
  calls[count++] = even_call(CUPRIM_HISTOGRAM_GLOBAL_ATOMIC, g.d_in, n_small, t, &b, w_small);
  calls[count++] = even_call(CUPRIM_HISTOGRAM_BLOCK_PRIVATE, g.d_in, n, t, &b2, w_b2);
  calls[count++] = even_call(CUPRIM_HISTOGRAM_SORT_REDUCE_BY_KEY, g.d_in, n_small, t, &b3, w_b3);
  calls[count++] = even_call(CUPRIM_HISTOGRAM_AUTO, g.d_in, n, t, &b2, w_b2);

  const region rg = main_region();
  call_result res[16];
  const size_t used = layout(calls, count, &rg, res);
  TU_CUDA(cudaMemsetAsync(rg.d, POISON, used, g.stream));
  finish(g.stream);

  cudaGraph_t graph = NULL;
  TU_CUDA(cudaStreamBeginCapture(g.stream, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < count; ++i)
    res[i].st = issue(g.ctx, &calls[i],
                      (uint64_t *)(void *)(rg.d + res[i].slot + out_at(&calls[i])), g.stream);
  const cudaError_t end = cudaStreamEndCapture(g.stream, &graph); /* always end the capture */
  for (int i = 0; i < count; ++i)
    if (res[i].st != CUPRIM_SUCCESS)
      failure("%s n=%" PRIu64 " bins=%" PRIu32 " under stream capture: %s (last CUDA error %s)",
              alg_name(calls[i].alg), calls[i].n, calls[i].num_bins, tu_status_name(res[i].st),
              cudaGetErrorName(cuprim_last_cuda_error()));
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

  unsigned char *saved = (unsigned char *)malloc(used);
  assert_non_null(saved);
  cudaGraphExec_t exec = NULL;
  TU_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int round = 0; round < 3; ++round) {
    /* New data before rounds 0 and 1; round 2 replays on round 1's data. */
    const uint64_t seed = case_seed(0x6A9, (uint64_t)(round < 2 ? round : 1), 0, n);
    if (round < 2) {
      hr_hist_fill(&b, t, round ? HR_HIST_EDGES : HR_HIST_NAN, seed, g.h_in, n);
      upload(g.d_in, g.h_in, n * esize, g.stream);
      reference(&b, t, g.h_in, n, w_b);
      reference(&be, t, g.h_in, n, w_e);
      reference(&b, t, g.h_in, n_small, w_small);
      reference(&b2, t, g.h_in, n, w_b2);
      reference(&b3, t, g.h_in, n_small, w_b3);
    }
    TU_CUDA(cudaMemsetAsync(rg.d, POISON, used, g.stream));
    TU_CUDA(cudaGraphLaunch(exec, g.stream));
    TU_CUDA(cudaMemcpyAsync(rg.h, rg.d, used, cudaMemcpyDeviceToHost, g.stream));
    finish(g.stream);
    char data[64];
    snprintf(data, sizeof data, "%s, graph replay %d", round ? "on edges" : "NaN and inf", round);
    for (int i = 0; i < count; ++i) {
      res[i].st = CUPRIM_SUCCESS;
      check_call(&rg, &calls[i], &res[i], data, seed);
    }
    if (round == 1)
      memcpy(saved, rg.h, used);
    else if (round == 2 && memcmp(saved, rg.h, used) != 0)
      failure("replaying the graph twice on the same input gave different output bytes");
  }
  free(saved);
  TU_CUDA(cudaGraphExecDestroy(exec));
  TU_CUDA(cudaGraphDestroy(graph));
  end_gpu_test();
}

/* ---------------------------------------------------------------- cuprim_histogram_range */

/* Random strictly increasing edges (narrow and wide bins; for integer samples mostly integral, so
 * samples land on them) over the full or the irregular range, and the even bins of an exact range
 * given as edges (then also run through cuprim_histogram_even_ex against the formula's reference:
 * for 64-bit and float samples next to an edge the two differ, so a range call that used the
 * formula, or an even call that searched edges, fails).
 * Bin counts around what fits in shared memory: 6143/6144 edges-worth around 48 KiB, 29055/29056
 * around 227 KiB (H100's opt-in limit: 29056 edges fit, 29057 do not), 65536 and 2^20 that never
 * fit. Data: uniform (half of it uniform over the bins), and per size one other kind, rotating. */
static void test_range(void **state) {
  (void)state;
  begin_gpu_test();
  const double t0 = now_s();
  static const uint32_t full_bins[] = {1,    2,    7,     255,   256,   1000,    4096,
                                       6143, 6144, 29055, 29056, 65536, 1u << 20};
  static const uint32_t quick_bins[] = {1, 7, 256, 4096, 29056, 65536};
  const uint32_t *bins = g.quick ? quick_bins : full_bins;
  const size_t nbins =
      g.quick ? sizeof quick_bins / sizeof quick_bins[0] : sizeof full_bins / sizeof full_bins[0];
  static const uint64_t sizes_small[] = {0, 1, 33, 1025, 65537, 1000003};
  static const uint64_t sizes_big[] = {0, 33, 65537, 1000003};
  static const uint64_t sizes_quick[] = {0, 33, 4097};
  unsigned long cases = 0;
  for (size_t d = 0; d < NUM_DTYPES; ++d)
    for (size_t bi = 0; bi < nbins; ++bi)
      for (int ek = 0; ek < 2; ++ek) {
        const cuprim_dtype t = all_dtypes[d];
        const uint32_t nb = bins[bi];
        const hr_hist_span span = ek ? HR_HIST_EXACT : bi % 2 ? HR_HIST_ODD : HR_HIST_FULL;
        double lo, hi;
        hr_hist_span_range(t, nb, span, &lo, &hi);
        const uint64_t seed_e = case_seed(0xED6E, t, nb, (uint64_t)ek);
        if (ek)
          hr_hist_even_edges(g.h_edges, nb, lo, hi);
        else
          hr_hist_random_edges(g.h_edges, nb, lo, hi, !is_float(t), seed_e);
        upload_edges(g.h_edges, nb, g.stream);
        const hr_hist_bins be = hr_hist_bins_edges(nb, g.h_edges);
        const hr_hist_bins bev = hr_hist_bins_even(nb, lo, hi);
        const uint64_t *sizes = g.quick ? sizes_quick : nb <= 4096 ? sizes_small : sizes_big;
        const size_t nsizes = g.quick      ? sizeof sizes_quick / sizeof sizes_quick[0]
                              : nb <= 4096 ? sizeof sizes_small / sizeof sizes_small[0]
                                           : sizeof sizes_big / sizeof sizes_big[0];
        for (size_t k = 0; k < nsizes; ++k) {
          const uint64_t n = sizes[k];
          hr_hist_data kinds[2] = {HR_HIST_UNIFORM, (hr_hist_data)(1 + (k + bi + (size_t)ek) % 4)};
          if (!hr_hist_data_applies(t, kinds[1]))
            kinds[1] = HR_HIST_EDGES;
          const int nkinds = n == 0 || n > SWEEP_DATA_MAX ? 1 : 2;
          for (int ki = 0; ki < nkinds; ++ki) {
            const uint64_t seed = case_seed(seed_e, kinds[ki], n, 0);
            hr_hist_fill(&be, t, kinds[ki], seed, g.h_in, n);
            upload(g.d_in, g.h_in, n * cuprim_dtype_size(t), g.stream);
            uint64_t *want = want_slot(0), *want_even = want_slot(1);
            reference(&be, t, g.h_in, n, want);
            hist_call calls[4];
            call_result res[4];
            int count = 0;
            calls[count++] = range_call(g.d_in, n, t, nb, g.d_edges, want);
            if (ek) {
              /* The same bins, even: the formula's reference, which for 64-bit and float samples
               * next to an edge differs from the edges' (test_histogram_api: even_as_edges). */
              reference(&bev, t, g.h_in, n, want_even);
              calls[count++] = even_call(CUPRIM_HISTOGRAM_AUTO, g.d_in, n, t, &bev, want_even);
            }
            char data[96];
            snprintf(data, sizeof data, "%s (%s edges, %s range)", hr_hist_data_name(kinds[ki]),
                     ek ? "even" : "random", hr_hist_span_name(span));
            run_and_check(calls, count, g.stream, data, seed, res);
            ++cases;
          }
        }
      }
  print_message("range: %lu cases, %.1f s\n", cases, now_s() - t0);
  end_gpu_test();
}

/* ---------------------------------------------------------------- one bin, many samples */

/* Every sample in one bin at 2^24 + 3 samples, through every call: all samples equal (the worst
 * case for atomics on one address), and all samples different but inside one bin. A count past
 * 2^24 also shows counts kept in 32-bit floats. */
static void test_one_bin_large(void **state) {
  (void)state;
  begin_gpu_test();
  const double t0 = now_s();
  const uint64_t n = g.quick ? (1u << 17) + 3 : BIG_N;
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
      const uint64_t seed = case_seed(0x0B1, t, nb, (uint64_t)varied);
      if (varied) {
        hr_hist_fill(&b, t, HR_HIST_ONE_BIN, seed, g.h_in, n);
      } else {
        hr_hist_fill(&b, t, HR_HIST_ONE_BIN, seed, g.h_in, 1);
        for (uint64_t i = 1; i < n; ++i)
          memcpy(g.h_in + i * esize, g.h_in, esize);
      }
      upload(g.d_in, g.h_in, n * esize, g.stream);
      uint64_t *want = want_slot(0), *want_e = want_slot(1);
      const uint64_t counted = reference(&b, t, g.h_in, n, want);
      uint32_t nonzero = 0;
      for (uint32_t k = 0; k < nb; ++k)
        nonzero += want[k] != 0;
      if (nonzero != 1 || counted != n)
        fail_msg("test bug: one-bin data for %s %u bins fills %u bins (%" PRIu64 " of %" PRIu64
                 " counted)",
                 hr_dtype_name(t), nb, nonzero, counted, n);
      hr_hist_even_edges(g.h_edges, nb, lo, hi);
      const hr_hist_bins be = hr_hist_bins_edges(nb, g.h_edges);
      reference(&be, t, g.h_in, n, want_e);
      upload_edges(g.h_edges, nb, g.stream);
      hist_call calls[MAX_CALLS];
      call_result res[MAX_CALLS];
      int count = all_even_calls(calls, g.d_in, n, t, &b, want);
      calls[count++] = range_call(g.d_in, n, t, nb, g.d_edges, want_e);
      char data[64];
      snprintf(data, sizeof data, "one bin, %s (%s range)", varied ? "varied" : "all equal",
               hr_hist_span_name(cases[c].span));
      run_and_check(calls, count, g.stream, data, seed, res);
    }
  print_message("one bin, n=%" PRIu64 ": %.1f s\n", n, now_s() - t0);
  end_gpu_test();
}

/* ---------------------------------------------------------------- errors with a device */

/* With a real context, invalid calls still return before any CUDA work: nothing is written, no
 * CUDA error is recorded. */
static void test_errors_with_device(void **state) {
  (void)state;
  begin_gpu_test();
  const size_t in_bytes = 4096, out_bytes = 8192, edge_bytes = 4096;
  TU_CUDA(cudaMemsetAsync(g.d_in, POISON, in_bytes, g.stream));
  TU_CUDA(cudaMemsetAsync(g.d_out, POISON, out_bytes, g.stream));
  TU_CUDA(cudaMemsetAsync(g.d_edges, POISON, edge_bytes, g.stream));
  finish(g.stream);
  const unsigned char *in = g.d_in;
  uint64_t *out = (uint64_t *)(void *)(g.d_out + GUARD_BYTES);
  const double *e = g.d_edges;
  const cuprim_histogram_alg A = CUPRIM_HISTOGRAM_AUTO;
  const cudaStream_t s = g.stream;
  const cuprim_status INVALID = CUPRIM_ERROR_INVALID_ARGUMENT;
  const struct {
    const char *what;
    cuprim_status got, want;
  } cases[] = {
      {"NULL ctx", cuprim_histogram_even(NULL, in, 10, CUPRIM_F32, out, 16, 0.0, 1.0, s), INVALID},
      {"NULL d_counts", cuprim_histogram_even(g.ctx, in, 10, CUPRIM_F32, NULL, 16, 0.0, 1.0, s),
       INVALID},
      {"NULL d_counts, n 0",
       cuprim_histogram_even(g.ctx, NULL, 0, CUPRIM_F32, NULL, 16, 0.0, 1.0, s), INVALID},
      {"NULL d_samples, n 10",
       cuprim_histogram_even_ex(g.ctx, CUPRIM_HISTOGRAM_BLOCK_PRIVATE, NULL, 10, CUPRIM_F32, out,
                                16, 0.0, 1.0, s),
       INVALID},
      {"num_bins 0", cuprim_histogram_even(g.ctx, in, 10, CUPRIM_U8, out, 0, 0.0, 1.0, s), INVALID},
      {"lower NaN", cuprim_histogram_even(g.ctx, in, 10, CUPRIM_F32, out, 16, NAN, 1.0, s),
       INVALID},
      {"upper inf", cuprim_histogram_even(g.ctx, in, 10, CUPRIM_F32, out, 16, 0.0, INFINITY, s),
       INVALID},
      {"lower == upper", cuprim_histogram_even(g.ctx, in, 10, CUPRIM_F32, out, 16, 1.0, 1.0, s),
       INVALID},
      {"UINT32_MAX bins over 1e-300",
       cuprim_histogram_even(g.ctx, in, 10, CUPRIM_F64, out, UINT32_MAX, 0.0, 1e-300, s), INVALID},
      {"alg 4",
       cuprim_histogram_even_ex(g.ctx, (cuprim_histogram_alg)4, in, 10, CUPRIM_F32, out, 16, 0.0,
                                1.0, s),
       INVALID},
      {"dtype 12",
       cuprim_histogram_even_ex(g.ctx, A, in, 10, (cuprim_dtype)12, out, 16, 0.0, 1.0, s), INVALID},
      {"d_counts + 4 bytes",
       cuprim_histogram_even(g.ctx, in, 10, CUPRIM_U8,
                             (uint64_t *)(void *)((unsigned char *)out + 4), 16, 0.0, 1.0, s),
       INVALID},
      {"d_counts inside d_samples",
       cuprim_histogram_even_ex(g.ctx, CUPRIM_HISTOGRAM_SORT_REDUCE_BY_KEY, in, 4096, CUPRIM_U8,
                                (uint64_t *)(void *)(g.d_in + 1024), 16, 0.0, 256.0, s),
       INVALID},
      {"d_samples + 1 byte, F32",
       cuprim_histogram_even(g.ctx, in + 1, 10, CUPRIM_F32, out, 16, 0.0, 1.0, s), INVALID},
      {"range: NULL d_edges", cuprim_histogram_range(g.ctx, in, 10, CUPRIM_F32, out, 16, NULL, s),
       INVALID},
      {"range: num_bins 0", cuprim_histogram_range(g.ctx, in, 10, CUPRIM_F32, out, 0, e, s),
       INVALID},
      {"range: d_counts inside d_edges",
       cuprim_histogram_range(g.ctx, in, 10, CUPRIM_F32, (uint64_t *)(void *)(g.d_edges + 8), 16, e,
                              s),
       INVALID},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    if (cases[i].got != cases[i].want)
      failure("%s: expected %s, got %s", cases[i].what, tu_status_name(cases[i].want),
              tu_status_name(cases[i].got));
  TU_CUDA(cudaMemcpyAsync(g.h_out, g.d_out, out_bytes, cudaMemcpyDeviceToHost, g.stream));
  TU_CUDA(cudaMemcpyAsync(g.h_in, g.d_in, in_bytes, cudaMemcpyDeviceToHost, g.stream));
  TU_CUDA(cudaMemcpyAsync(g.h_in2, g.d_edges, edge_bytes, cudaMemcpyDeviceToHost, g.stream));
  finish(g.stream);
  if (tu_pattern_mismatch(g.h_out, out_bytes, POISON) != out_bytes)
    failure("a call with invalid arguments wrote its counts");
  if (tu_pattern_mismatch(g.h_in, in_bytes, POISON) != in_bytes)
    failure("a call with invalid arguments wrote into d_samples");
  if (tu_pattern_mismatch(g.h_in2, edge_bytes, POISON) != edge_bytes)
    failure("a call with invalid arguments wrote into d_edges");
  if (cuprim_last_cuda_error() != cudaSuccess)
    failure("cuprim_last_cuda_error() is %s after argument errors",
            cudaGetErrorName(cuprim_last_cuda_error()));
  end_gpu_test();
}

/* ---------------------------------------------------------------- past 2^32 samples */

/* 2^32 + 4099 U8 samples starting 3 bytes past an allocation (an unaligned head), filled on the
 * device by tu_fill_u8_formula, which depends on i mod 65537 only: the host bins one period and
 * the leftover, and multiplies, with no host copy of the input. 256 bins through every call; one
 * bin (a count past 2^32: 32-bit counters wrap) through every algorithm; 7 bins over an irregular
 * range; and cuprim_histogram_range with 4 uneven bins. A context of its own, destroyed at the end,
 * so that its pool gives back what it took. */
static void test_large_input(void **state) {
  (void)state;
  begin_gpu_test();
  if (g.quick) {
    print_message("[  SKIP    ] past 2^32: skipped in quick mode (CUPRIM_TEST_QUICK)\n");
    skip();
  }
  const uint64_t n = (1ull << 32) + 4099;
  const double GiB = 1073741824.0;
  size_t free_bytes = 0, total_bytes = 0;
  TU_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const size_t need = (size_t)6 << 30;
  if (free_bytes < need) {
    print_message("[  SKIP    ] past 2^32: %.1f GiB free on the device, %.1f GiB needed\n",
                  free_bytes / GiB, need / GiB);
    skip();
  }
  const double t0 = now_s();
  cuprim_ctx *ctx = NULL;
  const cuprim_status cs = cuprim_ctx_create(&ctx, 0, NULL);
  if (cs != CUPRIM_SUCCESS)
    fail_msg("cuprim_ctx_create: %s", tu_status_name(cs));
  unsigned char *d_buf = NULL, *d_slot = NULL;
  TU_CUDA(cudaMalloc((void **)&d_buf, n + 16));
  const size_t slot_bytes = 2 * GUARD_BYTES + 256 * sizeof(uint64_t);
  TU_CUDA(cudaMalloc((void **)&d_slot, slot_bytes));
  unsigned char *d_samples = d_buf + 3;
  uint64_t *d_counts = (uint64_t *)(void *)(d_slot + GUARD_BYTES);
  const double edges[] = {0.0, 3.0, 100.0, 101.0, 255.5};
  double *d_edges = NULL;
  TU_CUDA(cudaMalloc((void **)&d_edges, sizeof edges));
  TU_CUDA(cudaMemcpyAsync(d_edges, edges, sizeof edges, cudaMemcpyHostToDevice, g.stream));
  TU_CUDA(tu_device_fill_u8(d_samples, n, g.stream));

  /* One period of the formula, binned, times the number of whole periods, plus the leftover. */
  static uint8_t period[TU_FILL_U8_PERIOD];
  for (uint32_t i = 0; i < TU_FILL_U8_PERIOD; ++i)
    period[i] = tu_fill_u8_formula(i);
  const uint64_t q = n / TU_FILL_U8_PERIOD, r = n % TU_FILL_U8_PERIOD;
  const struct {
    int by_edges;
    uint32_t num_bins;
    double lower, upper;
    int algs_mask; /* bit a + 2: call a (RANGE = bit 0, SHORTHAND = bit 1, AUTO = bit 2, ...) */
  } specs[] = {{0, 256, 0.0, 256.0, 0x3E},
               {0, 1, 0.0, 256.0, 0x3C},
               {0, 7, 10.5, 200.25, 0x24},
               {1, 4, 0.0, 0.0, 0x01}};
  uint64_t want[256], part[256];
  unsigned char h_slot[2 * GUARD_BYTES + 256 * sizeof(uint64_t)];
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
    for (int a = RANGE; a < NUM_ALGS; ++a) {
      if (!(specs[sp].algs_mask >> (a + 2) & 1))
        continue;
      hist_call c = specs[sp].by_edges ? range_call(d_samples, n, CUPRIM_U8, nb, d_edges, want)
                                       : even_call(a, d_samples, n, CUPRIM_U8, &b, want);
      c.in_offset = 3;
      char what[512], why[1024];
      describe(what, sizeof what, &c, "tu_fill_u8_formula", 0);
      size_t free_before = 0;
      TU_CUDA(cudaMemGetInfo(&free_before, &total_bytes));
      TU_CUDA(cudaMemsetAsync(d_slot, POISON, slot_bytes, g.stream));
      const double c0 = now_s();
      const cuprim_status st = issue(ctx, &c, d_counts, g.stream);
      finish(g.stream);
      const double secs = now_s() - c0;
      if (st == CUPRIM_ERROR_OUT_OF_MEMORY && free_before < 8 * n) {
        print_message("[  NOTE    ] %s: OUT_OF_MEMORY with %.1f GiB free (not counted as a "
                      "failure below 8 bytes a sample)\n",
                      what, free_before / GiB);
        continue;
      }
      if (st != CUPRIM_SUCCESS) {
        failure("%s: returned %s (last CUDA error %s; %.1f GiB were free)", what,
                tu_status_name(st), cudaGetErrorName(cuprim_last_cuda_error()), free_before / GiB);
        continue;
      }
      print_message("past 2^32: %s: %.3f s\n", alg_name(c.alg), secs);
      const size_t used = 2 * GUARD_BYTES + (size_t)nb * sizeof(uint64_t);
      TU_CUDA(cudaMemcpy(h_slot, d_slot, used, cudaMemcpyDeviceToHost));
      const size_t bad_head = tu_pattern_mismatch(h_slot, GUARD_BYTES, POISON);
      const size_t bad_tail =
          tu_pattern_mismatch(h_slot + GUARD_BYTES + nb * sizeof(uint64_t), GUARD_BYTES, POISON);
      if (bad_head != GUARD_BYTES || bad_tail != GUARD_BYTES)
        failure("%s: wrote %s d_counts", what, bad_head != GUARD_BYTES ? "before" : "past");
      uint64_t first = 0, got[256];
      memcpy(got, h_slot + GUARD_BYTES, (size_t)nb * sizeof(uint64_t));
      if (hr_hist_check(want, got, nb, n, POISON, &first, why, sizeof why))
        failure("%s: %s", what, why);
    }
  }
  TU_CUDA(cudaFree(d_buf));
  TU_CUDA(cudaFree(d_slot));
  TU_CUDA(cudaFree(d_edges));
  assert_int_equal(cuprim_ctx_destroy(ctx), CUPRIM_SUCCESS);
  print_message("past 2^32: %.1f s in all\n", now_s() - t0);
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
      cmocka_unit_test(test_errors_with_device), cmocka_unit_test(test_empty_input),
      cmocka_unit_test(test_sweep_i8),           cmocka_unit_test(test_sweep_u8),
      cmocka_unit_test(test_sweep_i16),          cmocka_unit_test(test_sweep_u16),
      cmocka_unit_test(test_sweep_i32),          cmocka_unit_test(test_sweep_u32),
      cmocka_unit_test(test_sweep_i64),          cmocka_unit_test(test_sweep_u64),
      cmocka_unit_test(test_sweep_f32),          cmocka_unit_test(test_sweep_f64),
      cmocka_unit_test(test_misaligned),         cmocka_unit_test(test_streams),
      cmocka_unit_test(test_graph_capture),      cmocka_unit_test(test_range),
      cmocka_unit_test(test_one_bin_large),      cmocka_unit_test(test_large_input),
      cmocka_unit_test(test_no_cuda_error_left),
  };
  tu_apply_test_filter();
  const int failed = cmocka_run_group_tests(tests, group_setup, group_teardown);
  if (failed == 0 && !tu_device_available(NULL, 0))
    return 77; /* every test skipped: no device (CTest SKIP_RETURN_CODE) */
  return failed;
}
