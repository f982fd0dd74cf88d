/* cuprim_reduce_arg on a GPU, against a plain C reference on the host.
 *
 * All twelve dtypes x ARGMIN/ARGMAX x sizes x data (many ties, few ties, constant), ties at the
 * first, the last and a middle position, NaN (the first one wins, whatever else), infinities,
 * signed zeros (equal: the first wins, and d_value gives its sign), n == 0, misaligned inputs,
 * d_value given or not, the one-block and the grid path forced on the same input (the same
 * answer), the legacy and a non-blocking stream, CUDA graph capture and replay, and an input past
 * 2^32 elements whose answer lies past 2^32.
 *
 * The outputs are an index slot and a value slot inside guarded regions of device memory,
 * poisoned before each call; the guards must come back untouched. The reference is independent of
 * the library's key trick: the first NaN if any, else the first element that no later one beats
 * by a strict comparison of the values (as doubles or 64-bit integers).
 *
 * Environment: CUPRIM_TEST_SEED, CUPRIM_TEST_QUICK=1 (sizes up to ~2^17, no large case),
 * CUPRIM_TEST_FILTER. Without a CUDA device every test skips (exit 77). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reduce/reduce_internal.h" /* cuprim__reduce_arg_tuned: force the one-block or grid path */
#include "test_f16.h"
#include "test_util.h"

/* ---------------------------------------------------------------- fixture */

#define MAX_CALLS 16
#define SLOT_BYTES 64 /* a call's outputs: the index at byte 16, the value at 48 - size */
#define INDEX_AT 16
#define POISON 0xA5
#define IN_CAP_BYTES ((size_t)40 << 20) /* the largest sweep input (2^22 + 7 eight-byte elements)  \
                                         */

static struct fixture {
  cudaError_t setup_error;
  const char *setup_what;
  cuprim_status ctx_status;
  cuprim_ctx *ctx;
  cudaStream_t stream;          /* non-blocking */
  unsigned char *d_in, *h_in;   /* IN_CAP_BYTES each (h_in pinned) */
  unsigned char *d_out, *h_out; /* MAX_CALLS slots */
  uint64_t seed;
  int quick;
  int fails;
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

static int group_setup(void **state) {
  (void)state;
  g.seed = tu_seed();
  g.quick = tu_quick();
  g.ctx_status = CUPRIM_ERROR_NO_DEVICE;
  char reason[256];
  if (!tu_device_available(reason, sizeof reason)) {
    print_message("%s: every test will be skipped\n", reason);
    return 0;
  }
  g.ctx_status = cuprim_ctx_create(&g.ctx, 0, NULL);
  SETUP_CUDA(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking));
  SETUP_CUDA(cudaMalloc((void **)&g.d_in, IN_CAP_BYTES));
  SETUP_CUDA(cudaMallocHost((void **)&g.h_in, IN_CAP_BYTES));
  SETUP_CUDA(cudaMalloc((void **)&g.d_out, MAX_CALLS * SLOT_BYTES));
  SETUP_CUDA(cudaMallocHost((void **)&g.h_out, MAX_CALLS * SLOT_BYTES));
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
  (void)cudaFree(g.d_out);
  (void)cudaFreeHost(g.h_out);
  if (g.stream)
    (void)cudaStreamDestroy(g.stream);
  return 0;
}

static void begin_gpu_test(void) {
  TU_SKIP_WITHOUT_DEVICE();
  g.fails = 0;
  if (g.setup_error != cudaSuccess)
    fail_msg("group setup failed: %s: %s", g.setup_what, cudaGetErrorString(g.setup_error));
  if (g.ctx_status != CUPRIM_SUCCESS)
    fail_msg("cuprim_ctx_create(device 0) failed: %s", tu_status_name(g.ctx_status));
}

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

static uint64_t case_seed(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  return tu_mix(tu_mix(tu_mix(tu_mix(g.seed, a), b), c), d);
}

static void finish(cudaStream_t stream) {
  TU_CUDA(cudaStreamSynchronize(stream));
  TU_CUDA(cudaGetLastError());
}

/* ---------------------------------------------------------------- elements on the host */

static const cuprim_dtype all_dtypes[] = {CUPRIM_I8,  CUPRIM_U8,  CUPRIM_I16, CUPRIM_U16,
                                          CUPRIM_I32, CUPRIM_U32, CUPRIM_I64, CUPRIM_U64,
                                          CUPRIM_F32, CUPRIM_F64, CUPRIM_F16, CUPRIM_BF16};
#define NUM_DTYPES (sizeof all_dtypes / sizeof all_dtypes[0])

static int is_float(cuprim_dtype t) { return t >= CUPRIM_F32; }
static int is_signed_int(cuprim_dtype t) {
  return t == CUPRIM_I8 || t == CUPRIM_I16 || t == CUPRIM_I32 || t == CUPRIM_I64;
}

/* Element i of a float array, as a double (exact). */
static double get_float(cuprim_dtype t, const void *h, uint64_t i) {
  switch (t) {
  case CUPRIM_F32:
    return ((const float *)h)[i];
  case CUPRIM_F64:
    return ((const double *)h)[i];
  default:
    return tu_half_to_double(t, ((const uint16_t *)h)[i]);
  }
}

/* Element i of an integer array, as a 64-bit signed (signed dtypes) or unsigned value. */
static int64_t get_signed(cuprim_dtype t, const void *h, uint64_t i) {
  switch (t) {
  case CUPRIM_I8:
    return ((const int8_t *)h)[i];
  case CUPRIM_I16:
    return ((const int16_t *)h)[i];
  case CUPRIM_I32:
    return ((const int32_t *)h)[i];
  default:
    return ((const int64_t *)h)[i];
  }
}
static uint64_t get_unsigned(cuprim_dtype t, const void *h, uint64_t i) {
  switch (t) {
  case CUPRIM_U8:
    return ((const uint8_t *)h)[i];
  case CUPRIM_U16:
    return ((const uint16_t *)h)[i];
  case CUPRIM_U32:
    return ((const uint32_t *)h)[i];
  default:
    return ((const uint64_t *)h)[i];
  }
}

/* Stores v into element i: floats rounded to the dtype (the values used are exact), integers
 * truncated to the width (two's complement). */
static void put(cuprim_dtype t, void *h, uint64_t i, double v_float, uint64_t v_int) {
  switch (t) {
  case CUPRIM_F32:
    ((float *)h)[i] = (float)v_float;
    return;
  case CUPRIM_F64:
    ((double *)h)[i] = v_float;
    return;
  case CUPRIM_F16:
  case CUPRIM_BF16:
    ((uint16_t *)h)[i] = tu_half_from_double(t, v_float);
    return;
  default:
    break;
  }
  const size_t size = cuprim_dtype_size(t);
  memcpy((unsigned char *)h + i * size, &v_int, size); /* little-endian: the low bytes */
}

/* The index cuprim_reduce_arg must return (UINT64_MAX for n == 0). */
static uint64_t reference(cuprim_dtype t, cuprim_arg_op op, const void *h, uint64_t n) {
  if (n == 0)
    return UINT64_MAX;
  const int max = op == CUPRIM_ARGMAX;
  uint64_t best = 0;
  if (is_float(t)) {
    for (uint64_t i = 0; i < n; ++i)
      if (isnan(get_float(t, h, i)))
        return i; /* the first NaN wins */
    double b = get_float(t, h, 0);
    for (uint64_t i = 1; i < n; ++i) {
      const double v = get_float(t, h, i);
      if (max ? v > b : v < b) { /* -0.0 == +0.0: the first stays */
        b = v;
        best = i;
      }
    }
  } else if (is_signed_int(t)) {
    int64_t b = get_signed(t, h, 0);
    for (uint64_t i = 1; i < n; ++i) {
      const int64_t v = get_signed(t, h, i);
      if (max ? v > b : v < b) {
        b = v;
        best = i;
      }
    }
  } else {
    uint64_t b = get_unsigned(t, h, 0);
    for (uint64_t i = 1; i < n; ++i) {
      const uint64_t v = get_unsigned(t, h, i);
      if (max ? v > b : v < b) {
        b = v;
        best = i;
      }
    }
  }
  return best;
}

/* The identity of MIN (ARGMIN) or MAX (ARGMAX) of t: the value written for n == 0. */
static void identity_bits(cuprim_dtype t, cuprim_arg_op op, unsigned char out[8]) {
  memset(out, 0, 8);
  const int min = op == CUPRIM_ARGMIN;
  const size_t size = cuprim_dtype_size(t);
  if (is_float(t)) {
    put(t, out, 0, min ? (double)INFINITY : -(double)INFINITY, 0);
  } else if (is_signed_int(t)) {
    const uint64_t top = (uint64_t)1 << (8 * size - 1);
    put(t, out, 0, 0, min ? top - 1 : top); /* INTn_MAX or INTn_MIN */
  } else {
    put(t, out, 0, 0, min ? ~(uint64_t)0 : 0);
  }
}

/* ---------------------------------------------------------------- data */

typedef enum data_kind {
  DATA_TIES,     /* values from a set of 401: every extreme value repeats at large n */
  DATA_WIDE,     /* integers: random bits; floats: a wide range of magnitudes and signs */
  DATA_CONSTANT, /* one value: the answer is 0 */
  DATA_KINDS
} data_kind;
static const char *const data_names[] = {"ties (401 values)", "wide", "constant"};

/* A random element value for kind (floats never NaN here). */
static void random_value(cuprim_dtype t, data_kind kind, uint64_t *s, double *f, uint64_t *u) {
  const int64_t k = (int64_t)tu_below(s, 401) - 200; /* [-200, 200] */
  if (kind == DATA_TIES) {
    *f = (double)k * 0.5; /* |v| <= 100 in halves: exact in every float dtype */
    *u = is_signed_int(t) ? (uint64_t)k : (uint64_t)(k + 200);
    return;
  }
  *u = tu_splitmix64(s);
  /* Floats: a random sign, 7 random fraction bits and an exponent in [-14, 14]: normal and exact
   * in every float dtype (BF16 keeps 7 fraction bits, F16 reaches 2^15). */
  const double m = 1.0 + (double)tu_below(s, 128) / 128.0;
  const int e = (int)tu_below(s, 29) - 14;
  *f = ((*u >> 63) ? -1.0 : 1.0) * ldexp(m, e);
}

static void fill(cuprim_dtype t, data_kind kind, uint64_t seed, void *h, uint64_t n) {
  uint64_t s = seed;
  double f;
  uint64_t u;
  if (kind == DATA_CONSTANT) {
    random_value(t, DATA_TIES, &s, &f, &u);
    for (uint64_t i = 0; i < n; ++i)
      put(t, h, i, f, u);
    return;
  }
  for (uint64_t i = 0; i < n; ++i) {
    random_value(t, kind, &s, &f, &u);
    put(t, h, i, f, u);
  }
}

/* ---------------------------------------------------------------- calls */

typedef enum path { PATH_PUBLIC, PATH_ONE_BLOCK, PATH_GRID } path;
static const char *const path_names[] = {"cuprim_reduce_arg", "one block (forced)",
                                         "grid (forced)"};

typedef struct call {
  path how;
  const void *d_in;
  uint64_t n;
  cuprim_dtype dtype;
  cuprim_arg_op op;
  int with_value;
} call;

static unsigned char *slot(unsigned char *region, int i) { return region + (size_t)i * SLOT_BYTES; }
static size_t value_at(cuprim_dtype t) { return 48 - cuprim_dtype_size(t); }

static cuprim_status issue(cuprim_ctx *ctx, const call *c, unsigned char *d_slot,
                           cudaStream_t stream) {
  void *value = c->with_value ? d_slot + value_at(c->dtype) : NULL;
  uint64_t *index = (uint64_t *)(void *)(d_slot + INDEX_AT);
  if (c->how == PATH_PUBLIC)
    return cuprim_reduce_arg(ctx, c->d_in, value, index, c->n, c->dtype, c->op, stream);
  cuprim__reduce_tuning tune = cuprim__reduce_tuning_for(9, 0);
  tune.arg_single_block_max_bytes = c->how == PATH_ONE_BLOCK ? UINT32_MAX : 0;
  return cuprim__reduce_arg_tuned(ctx, c->d_in, value, index, c->n, c->dtype, c->op, stream, &tune);
}

static void run_calls(const call *calls, int count, cudaStream_t stream, cuprim_status *st) {
  assert_true(count <= MAX_CALLS);
  TU_CUDA(cudaMemsetAsync(g.d_out, POISON, (size_t)count * SLOT_BYTES, stream));
  for (int i = 0; i < count; ++i)
    st[i] = issue(g.ctx, &calls[i], slot(g.d_out, i), stream);
  TU_CUDA(cudaMemcpyAsync(g.h_out, g.d_out, (size_t)count * SLOT_BYTES, cudaMemcpyDeviceToHost,
                          stream));
  finish(stream);
}

static void describe(char *buf, size_t len, const call *c, const char *data, uint64_t seed) {
  snprintf(buf, len, "%s %s %s n=%" PRIu64 "%s data=%s seed=0x%016" PRIx64, path_names[c->how],
           tu_dtype_name(c->dtype), c->op == CUPRIM_ARGMIN ? "ARGMIN" : "ARGMAX", c->n,
           c->with_value ? "" : " (no d_value)", data, seed);
}

/* Checks slot i: status, guards, the index, and (if asked for) the value's bits, which are
 * `expect` (the element at `want`) or, for want == UINT64_MAX, the identity. */
static int check_bits(int i, const call *c, cuprim_status st, uint64_t want,
                      const unsigned char *expect_bits, const char *data, uint64_t seed) {
  char what[320];
  describe(what, sizeof what, c, data, seed);
  if (st != CUPRIM_SUCCESS) {
    failure("%s: returned %s (last CUDA error %s)", what, tu_status_name(st),
            cudaGetErrorName(cuprim_last_cuda_error()));
    return 0;
  }
  const unsigned char *s = slot(g.h_out, i);
  const size_t size = cuprim_dtype_size(c->dtype), vat = value_at(c->dtype);
  /* Guards: everything but the index and (if written) the value. */
  for (size_t b = 0; b < SLOT_BYTES; ++b) {
    const int in_index = b >= INDEX_AT && b < INDEX_AT + 8;
    const int in_value = c->with_value && b >= vat && b < vat + size;
    if (!in_index && !in_value && s[b] != POISON) {
      failure("%s: wrote slot byte %zu (index at %d, value at %zu)", what, b, INDEX_AT, vat);
      return 0;
    }
  }
  uint64_t got;
  memcpy(&got, s + INDEX_AT, 8);
  if (got != want) {
    failure("%s: index %" PRIu64 ", expected %" PRIu64, what, got, want);
    return 0;
  }
  if (c->with_value) {
    unsigned char expect[8];
    if (want == UINT64_MAX)
      identity_bits(c->dtype, c->op, expect);
    else
      memcpy(expect, expect_bits, size);
    if (memcmp(s + vat, expect, size) != 0) {
      char gv[96], ev[96];
      tu_format_value(c->dtype, s + vat, gv, sizeof gv);
      tu_format_value(c->dtype, expect, ev, sizeof ev);
      failure("%s: value %s, expected %s (bit for bit)", what, gv, ev);
      return 0;
    }
  }
  return 1;
}

/* check_bits with the expected element taken from the host copy h of the input. */
static int check(int i, const call *c, cuprim_status st, const void *h, uint64_t want,
                 const char *data, uint64_t seed) {
  const unsigned char *e =
      want == UINT64_MAX ? NULL : (const unsigned char *)h + want * cuprim_dtype_size(c->dtype);
  return check_bits(i, c, st, want, e, data, seed);
}

/* The six calls of a case: the public call with and without d_value, and each path forced. */
static int make_calls(call *calls, const void *d_in, uint64_t n, cuprim_dtype t, cuprim_arg_op op) {
  int k = 0;
  for (int how = PATH_PUBLIC; how <= PATH_GRID; ++how)
    for (int v = 1; v >= 0; --v) {
      const call c = {(path)how, d_in, n, t, op, v};
      calls[k++] = c;
    }
  return k;
}

/* Uploads h[0..n) to d_in, runs the six calls, checks them against the reference. */
static void run_case(const void *h, void *d_in, uint64_t n, cuprim_dtype t, cuprim_arg_op op,
                     const char *data, uint64_t seed) {
  const size_t bytes = n * cuprim_dtype_size(t);
  if ((unsigned char *)d_in - g.d_in + bytes > IN_CAP_BYTES)
    fail_msg("test bug: %zu bytes do not fit the input buffer", bytes);
  if (bytes)
    TU_CUDA(cudaMemcpyAsync(d_in, h, bytes, cudaMemcpyHostToDevice, g.stream));
  const uint64_t want = reference(t, op, h, n);
  call calls[MAX_CALLS];
  const int count = make_calls(calls, d_in, n, t, op);
  cuprim_status st[MAX_CALLS];
  run_calls(calls, count, g.stream, st);
  for (int i = 0; i < count; ++i)
    check(i, &calls[i], st[i], h, want, data, seed);
}

/* ---------------------------------------------------------------- sizes */

/* 1 and 2 elements, a warp, the grid path's tile (256 threads x 4 vectors: 1024 to 16384
 * elements by dtype) +-1, the one-block limit (128 KB: 2^15 four-byte elements) +-1, 2^k +-1,
 * primes, a few seeded random sizes, and (full mode) a few million. */
static size_t sweep_sizes(uint64_t *sizes, size_t cap) {
  static const uint64_t full[] = {1,      2,      3,      31,      32,     33,    255,   256,
                                  257,    1023,   1024,   1025,    4095,   4096,  4097,  16383,
                                  16384,  16385,  32767,  32768,   32769,  65535, 65536, 65537,
                                  131071, 131072, 131073, 1000003, 4194311};
  static const uint64_t quick[] = {1, 2, 33, 257, 4097, 16385, 32769, 65537, 131071};
  const uint64_t *base = g.quick ? quick : full;
  const size_t nbase = g.quick ? sizeof quick / sizeof quick[0] : sizeof full / sizeof full[0];
  size_t k = 0;
  for (size_t i = 0; i < nbase && k < cap; ++i)
    sizes[k++] = base[i];
  uint64_t s = tu_mix(g.seed, 0xA26);
  for (int i = 0; i < (g.quick ? 1 : 3) && k < cap; ++i)
    sizes[k++] = (uint64_t)exp2(1.0 + tu_unit(&s) * ((g.quick ? 17.0 : 21.0) - 1.0));
  return k;
}

/* ---------------------------------------------------------------- tests */

/* Every dtype x op x size x data kind. */
static void test_sweep(void **state) {
  (void)state;
  begin_gpu_test();
  uint64_t sizes[48];
  const size_t nsizes = sweep_sizes(sizes, 48);
  unsigned long cases = 0;
  for (size_t d = 0; d < NUM_DTYPES; ++d)
    for (int op = 0; op <= 1; ++op)
      for (int kind = 0; kind < DATA_KINDS; ++kind)
        for (size_t k = 0; k < nsizes; ++k) {
          const cuprim_dtype t = all_dtypes[d];
          const uint64_t n = sizes[k];
          if (g.quick && kind == DATA_CONSTANT && n > 4097)
            continue;
          const uint64_t seed = case_seed(t, (uint64_t)op, (uint64_t)kind, n);
          fill(t, (data_kind)kind, seed, g.h_in, n);
          run_case(g.h_in, g.d_in, n, t, (cuprim_arg_op)op, data_names[kind], seed);
          ++cases;
        }
  print_message("%lu cases x 6 calls\n", cases);
  end_gpu_test();
}

/* Where the extreme value sits: alone at the first, the last or a middle position, or tied
 * between two of them (the first of the two must win), or everywhere. Every dtype and op, sizes
 * on both paths. */
static void test_tie_positions(void **state) {
  (void)state;
  begin_gpu_test();
  static const uint64_t sizes[] = {2, 33, 4097, 32769, 131073, 1000003};
  const size_t nsizes = g.quick ? 5 : sizeof sizes / sizeof sizes[0];
  enum { FIRST, LAST, MIDDLE, FIRST_AND_LAST, MIDDLE_AND_LAST, FIRST_AND_MIDDLE, PLACES };
  static const char *const names[] = {"extreme first",         "extreme last",
                                      "extreme in the middle", "tie: first and last",
                                      "tie: middle and last",  "tie: first and middle"};
  for (size_t d = 0; d < NUM_DTYPES; ++d)
    for (int op = 0; op <= 1; ++op)
      for (size_t k = 0; k < nsizes; ++k)
        for (int place = 0; place < PLACES; ++place) {
          const cuprim_dtype t = all_dtypes[d];
          const uint64_t n = sizes[k];
          const uint64_t seed = case_seed(0x71E, t, (uint64_t)op * 8 + (uint64_t)place, n);
          /* Data strictly inside the type's range, and an extreme beyond all of it: floats in
           * [-100, 100] with +-1000; signed integers in [-100, 100] with the type's largest or
           * lowest value; unsigned ones in [1, 200] with the largest value or 0. */
          fill(t, DATA_TIES, seed, g.h_in, n);
          const int max = op == CUPRIM_ARGMAX;
          const uint64_t top = (uint64_t)1 << (8 * cuprim_dtype_size(t) - 1);
          const double fx = max ? 1000.0 : -1000.0;
          uint64_t ux = 0;
          if (is_signed_int(t)) {
            ux = max ? top - 1 : top;
            for (uint64_t i = 0; i < n; ++i)
              put(t, g.h_in, i, 0, (uint64_t)(get_signed(t, g.h_in, i) % 101));
          } else if (!is_float(t)) {
            ux = max ? ~(uint64_t)0 : 0;
            for (uint64_t i = 0; i < n; ++i)
              put(t, g.h_in, i, 0, get_unsigned(t, g.h_in, i) % 200 + 1);
          }
          const uint64_t at[2][PLACES] = {{0, n - 1, n / 2, 0, n / 2, 0},
                                          {0, n - 1, n / 2, n - 1, n - 1, n / 2}};
          put(t, g.h_in, at[0][place], fx, ux);
          if (place >= FIRST_AND_LAST)
            put(t, g.h_in, at[1][place], fx, ux);
          run_case(g.h_in, g.d_in, n, t, (cuprim_arg_op)op, names[place], seed);
        }
  end_gpu_test();
}

/* Floats: any NaN wins, and the first of several (with other payloads and signs after it) is the
 * answer, bit for bit; an infinity is an ordinary extreme; -0.0 and +0.0 tie (the first wins,
 * and the value keeps its sign). */
static void test_nan_inf_signed_zero(void **state) {
  (void)state;
  begin_gpu_test();
  static const uint64_t sizes[] = {1, 2, 33, 4097, 32769, 65537, 1000003};
  const size_t nsizes = g.quick ? 6 : sizeof sizes / sizeof sizes[0];
  const cuprim_dtype floats[] = {CUPRIM_F32, CUPRIM_F64, CUPRIM_F16, CUPRIM_BF16};
  enum {
    NAN_FIRST,
    NAN_LAST,
    NAN_MIDDLE_THEN_NAN,
    NEG_NAN_WITH_INF,
    NAN_PAYLOAD,
    INF_WINS,
    INF_LOSES,
    ZEROS_PLUS_FIRST,
    ZEROS_MINUS_FIRST,
    CASES
  };
  static const char *const names[] = {"NaN first",
                                      "NaN last",
                                      "NaN, later NaNs",
                                      "-NaN and an inf that would win",
                                      "NaN with a payload",
                                      "inf that wins",
                                      "inf that loses",
                                      "+0 then -0 as the extreme",
                                      "-0 then +0 as the extreme"};
  for (size_t d = 0; d < 4; ++d)
    for (int op = 0; op <= 1; ++op)
      for (size_t k = 0; k < nsizes; ++k)
        for (int sp = 0; sp < CASES; ++sp) {
          const cuprim_dtype t = floats[d];
          const uint64_t n = sizes[k];
          const size_t size = cuprim_dtype_size(t);
          const uint64_t seed = case_seed(0x4A4, t, (uint64_t)op * 16 + (uint64_t)sp, n);
          uint64_t s = seed;
          fill(t, DATA_TIES, seed, g.h_in, n);
          const double inf = (double)INFINITY, wins = op == CUPRIM_ARGMAX ? inf : -inf;
          const uint64_t mid = n / 2;
          switch (sp) {
          case NAN_FIRST:
            put(t, g.h_in, 0, (double)NAN, 0);
            break;
          case NAN_LAST:
            put(t, g.h_in, n - 1, (double)NAN, 0);
            break;
          case NAN_MIDDLE_THEN_NAN:
            put(t, g.h_in, mid, (double)NAN, 0);
            for (int r = 0; r < 3; ++r)
              put(t, g.h_in, mid + tu_below(&s, n - mid), copysign((double)NAN, -1.0), 0);
            break;
          case NEG_NAN_WITH_INF:
            put(t, g.h_in, tu_below(&s, n), wins, 0);
            put(t, g.h_in, tu_below(&s, n), copysign((double)NAN, -1.0), 0);
            break;
          case NAN_PAYLOAD: { /* a NaN with a payload, to be copied bit for bit */
            const uint64_t i = tu_below(&s, n);
            unsigned char *e = g.h_in + i * size;
            memset(e, 0xff, size); /* all ones: a negative NaN in every float format ... */
            e[0] = 0xb5;           /* ... with a distinctive low byte (bit 7 set: still a NaN) */
            if (i + 1 < n)         /* and a plain NaN after it, which must lose */
              put(t, g.h_in, i + 1 + tu_below(&s, n - i - 1), (double)NAN, 0);
            break;
          }
          case INF_WINS:
            put(t, g.h_in, tu_below(&s, n), wins, 0);
            break;
          case INF_LOSES:
            put(t, g.h_in, tu_below(&s, n), -wins, 0);
            break;
          case ZEROS_PLUS_FIRST:
          case ZEROS_MINUS_FIRST: { /* every value on the losing side of 0, two zeros */
            for (uint64_t i = 0; i < n; ++i) {
              const double v = fabs(get_float(t, g.h_in, i)) + 1.0;
              put(t, g.h_in, i, op == CUPRIM_ARGMIN ? v : -v, 0);
            }
            const double z1 = sp == ZEROS_PLUS_FIRST ? 0.0 : -0.0;
            const uint64_t a = tu_below(&s, n), b = a + tu_below(&s, n - a);
            put(t, g.h_in, a, z1, 0);
            if (b != a)
              put(t, g.h_in, b, -z1, 0);
            break;
          }
          default:
            break;
          }
          run_case(g.h_in, g.d_in, n, t, (cuprim_arg_op)op, names[sp], seed);
        }
  end_gpu_test();
}

/* The extremes of integer types (the key of INTn_MAX / UINTn_MAX is all ones for ARGMIN's
 * complement, and of INTn_MIN / 0 for ARGMAX): an array of nothing but them, and one of them
 * among others. */
static void test_integer_limits(void **state) {
  (void)state;
  begin_gpu_test();
  static const uint64_t sizes[] = {1, 33, 4097, 65537};
  for (size_t d = 0; d < NUM_DTYPES; ++d) {
    const cuprim_dtype t = all_dtypes[d];
    if (is_float(t))
      continue;
    const size_t bits = 8 * cuprim_dtype_size(t);
    const uint64_t mask = bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
    const uint64_t top = (uint64_t)1 << (bits - 1);
    const uint64_t hi = is_signed_int(t) ? top - 1 : mask, lo = is_signed_int(t) ? top : 0;
    for (int op = 0; op <= 1; ++op)
      for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k)
        for (int v = 0; v < 4; ++v) {
          const uint64_t n = sizes[k];
          const uint64_t seed = case_seed(0x1A1, t, (uint64_t)op * 4 + (uint64_t)v, n);
          uint64_t s = seed;
          /* v: all hi, all lo, random with one hi and one lo, random with hi and lo repeated */
          for (uint64_t i = 0; i < n; ++i)
            put(t, g.h_in, i, 0, v == 0 ? hi : v == 1 ? lo : tu_splitmix64(&s));
          if (v >= 2)
            for (int r = 0; r < (v == 2 ? 1 : 5); ++r) {
              put(t, g.h_in, tu_below(&s, n), 0, hi);
              put(t, g.h_in, tu_below(&s, n), 0, lo);
            }
          static const char *const names[] = {"all the largest value", "all the lowest value",
                                              "one largest, one lowest",
                                              "largest and lowest repeated"};
          run_case(g.h_in, g.d_in, n, t, (cuprim_arg_op)op, names[v], seed);
        }
  }
  end_gpu_test();
}

/* n == 0: UINT64_MAX and the identity, with d_in NULL or not, on every dtype and path. */
static void test_empty_input(void **state) {
  (void)state;
  begin_gpu_test();
  for (size_t d = 0; d < NUM_DTYPES; ++d)
    for (int op = 0; op <= 1; ++op)
      for (int null_in = 0; null_in <= 1; ++null_in) {
        const cuprim_dtype t = all_dtypes[d];
        call calls[MAX_CALLS];
        const int count = make_calls(calls, null_in ? NULL : g.d_in, 0, t, (cuprim_arg_op)op);
        cuprim_status st[MAX_CALLS];
        run_calls(calls, count, g.stream, st);
        for (int i = 0; i < count; ++i)
          check(i, &calls[i], st[i], NULL, UINT64_MAX, null_in ? "empty, d_in NULL" : "empty", 0);
      }
  end_gpu_test();
}

/* d_in + 1, + 3 and + 7 elements: element-aligned, not 16-byte aligned. */
static void test_misaligned_input(void **state) {
  (void)state;
  begin_gpu_test();
  static const uint64_t sizes[] = {1, 5, 33, 1025, 4097, 32769, 131073, 1000003};
  const size_t nsizes = g.quick ? 7 : sizeof sizes / sizeof sizes[0];
  static const unsigned offsets[] = {1, 3, 7};
  for (size_t d = 0; d < NUM_DTYPES; ++d)
    for (int op = 0; op <= 1; ++op)
      for (size_t k = 0; k < nsizes; ++k)
        for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; ++o) {
          const cuprim_dtype t = all_dtypes[d];
          const uint64_t n = sizes[k];
          const uint64_t seed = case_seed(0x3A1, t, (uint64_t)op * 16 + offsets[o], n);
          fill(t, DATA_TIES, seed, g.h_in, n);
          char data[64];
          snprintf(data, sizeof data, "ties at d_in+%u elements", offsets[o]);
          run_case(g.h_in, g.d_in + offsets[o] * cuprim_dtype_size(t), n, t, (cuprim_arg_op)op,
                   data, seed);
        }
  end_gpu_test();
}

/* The legacy default stream, besides the non-blocking stream of every other test. */
static void test_legacy_stream(void **state) {
  (void)state;
  begin_gpu_test();
  const uint64_t sizes[] = {1000, g.quick ? 65537u : (1u << 20) + 1};
  for (int k = 0; k < 2; ++k)
    for (int op = 0; op <= 1; ++op) {
      const cuprim_dtype t = k ? CUPRIM_F16 : CUPRIM_I64;
      const uint64_t n = sizes[k];
      const uint64_t seed = case_seed(0x57E, t, (uint64_t)op, n);
      fill(t, DATA_TIES, seed, g.h_in, n);
      TU_CUDA(cudaMemcpy(g.d_in, g.h_in, n * cuprim_dtype_size(t), cudaMemcpyHostToDevice));
      const uint64_t want = reference(t, (cuprim_arg_op)op, g.h_in, n);
      call calls[MAX_CALLS];
      const int count = make_calls(calls, g.d_in, n, t, (cuprim_arg_op)op);
      cuprim_status st[MAX_CALLS];
      run_calls(calls, count, 0, st);
      for (int i = 0; i < count; ++i)
        check(i, &calls[i], st[i], g.h_in, want, "ties, legacy default stream", seed);
    }
  end_gpu_test();
}

/* Calls on both paths captured into one graph: capture runs nothing; each replay reads what the
 * input holds then. */
static void test_graph_capture(void **state) {
  (void)state;
  begin_gpu_test();
  const uint64_t n = g.quick ? 65537 : (1u << 20) + 1, n_small = 1000;
  const cuprim_dtype t = CUPRIM_BF16;
  call calls[MAX_CALLS];
  int count = 0;
  for (int op = 0; op <= 1; ++op) {
    const call big = {PATH_PUBLIC, g.d_in, n, t, (cuprim_arg_op)op, 1};
    const call small = {PATH_PUBLIC, g.d_in, n_small, t, (cuprim_arg_op)op, 1};
    const call forced = {PATH_ONE_BLOCK, g.d_in, n, t, (cuprim_arg_op)op, 0};
    const call grid = {PATH_GRID, g.d_in, n_small, t, (cuprim_arg_op)op, 1};
    calls[count++] = big;
    calls[count++] = small;
    calls[count++] = forced;
    calls[count++] = grid;
  }
  TU_CUDA(cudaMemsetAsync(g.d_out, POISON, (size_t)count * SLOT_BYTES, g.stream));
  finish(g.stream);
  cudaGraph_t graph = NULL;
  cuprim_status st[MAX_CALLS];
  TU_CUDA(cudaStreamBeginCapture(g.stream, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < count; ++i)
    st[i] = issue(g.ctx, &calls[i], slot(g.d_out, i), g.stream);
  const cudaError_t end = cudaStreamEndCapture(g.stream, &graph);
  for (int i = 0; i < count; ++i)
    if (st[i] != CUPRIM_SUCCESS)
      failure("%s under stream capture: %s", path_names[calls[i].how], tu_status_name(st[i]));
  if (end != cudaSuccess)
    failure("cudaStreamEndCapture: %s", cudaGetErrorString(end));
  if (g.fails) {
    (void)cudaGetLastError();
    if (graph)
      (void)cudaGraphDestroy(graph);
    end_gpu_test();
    return;
  }
  TU_CUDA(cudaMemcpy(g.h_out, g.d_out, (size_t)count * SLOT_BYTES, cudaMemcpyDeviceToHost));
  for (int i = 0; i < count; ++i)
    if (tu_pattern_mismatch(slot(g.h_out, i), SLOT_BYTES, POISON) != SLOT_BYTES)
      failure("stream capture wrote output slot %d before any replay", i);
  cudaGraphExec_t exec = NULL;
  TU_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int round = 0; round < 3; ++round) {
    const uint64_t seed = case_seed(0x6A9, (uint64_t)(round < 2 ? round : 1), 0, n);
    fill(t, DATA_TIES, seed, g.h_in, n);
    TU_CUDA(cudaMemcpyAsync(g.d_in, g.h_in, n * cuprim_dtype_size(t), cudaMemcpyHostToDevice,
                            g.stream));
    TU_CUDA(cudaMemsetAsync(g.d_out, POISON, (size_t)count * SLOT_BYTES, g.stream));
    TU_CUDA(cudaGraphLaunch(exec, g.stream));
    TU_CUDA(cudaMemcpyAsync(g.h_out, g.d_out, (size_t)count * SLOT_BYTES, cudaMemcpyDeviceToHost,
                            g.stream));
    finish(g.stream);
    for (int i = 0; i < count; ++i)
      check(i, &calls[i], CUPRIM_SUCCESS, g.h_in, reference(t, calls[i].op, g.h_in, calls[i].n),
            "ties, graph replay", seed);
  }
  TU_CUDA(cudaGraphExecDestroy(exec));
  TU_CUDA(cudaGraphDestroy(graph));
  end_gpu_test();
}

/* Past 2^32 elements, with the answers past 2^32: U8 (4 GiB) and, with room, F16 (8 GiB), filled
 * on the device by memsets: every element one value, a few set apart at known indices. An index
 * cut to 32 bits, or a grid that stops at 2^32, finds another. */
static void test_large_input(void **state) {
  (void)state;
  begin_gpu_test();
  if (g.quick) {
    print_message("[  SKIP    ] large inputs: skipped in quick mode (CUPRIM_TEST_QUICK)\n");
    skip();
  }
  const uint64_t n = (1ull << 32) + 4099;
  size_t free_bytes = 0, total_bytes = 0;
  TU_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const size_t margin = (size_t)1 << 30;
  for (int ti = 0; ti < 2; ++ti) {
    const cuprim_dtype t = ti ? CUPRIM_F16 : CUPRIM_U8;
    const size_t size = cuprim_dtype_size(t);
    if (free_bytes < n * size + margin) {
      print_message("large input %s: %.1f GiB free, not enough; skipped\n", tu_dtype_name(t),
                    free_bytes / 1073741824.0);
      continue;
    }
    unsigned char *d_big = NULL;
    TU_CUDA(cudaMalloc((void **)&d_big, n * size));
    /* Every byte 0x3c (U8 60, F16 0x3c3c, about 1.06); then the smallest value twice past
     * 2^32 (the first must win) and the largest once before 2^32 and once past it (the one
     * before wins): U8 1 and 240, F16 -1.0 and 8192.0. */
    TU_CUDA(cudaMemsetAsync(d_big, 0x3c, n * size, g.stream));
    const uint64_t min_at[2] = {(1ull << 32) + 77, (1ull << 32) + 4000};
    const uint64_t max_at[2] = {(1ull << 31) + 5, (1ull << 32) + 3};
    const uint16_t lo = t == CUPRIM_U8 ? 1 : 0xbc00, hi = t == CUPRIM_U8 ? 240 : 0x7000;
    for (int r = 0; r < 2; ++r) { /* little-endian: U8 takes the low byte */
      TU_CUDA(
          cudaMemcpyAsync(d_big + min_at[r] * size, &lo, size, cudaMemcpyHostToDevice, g.stream));
      TU_CUDA(
          cudaMemcpyAsync(d_big + max_at[r] * size, &hi, size, cudaMemcpyHostToDevice, g.stream));
    }
    finish(g.stream);
    for (int op = 0; op <= 1; ++op) {
      const uint64_t want = op == CUPRIM_ARGMIN ? min_at[0] : max_at[0];
      unsigned char h_want[2];
      TU_CUDA(cudaMemcpy(h_want, d_big + want * size, size, cudaMemcpyDeviceToHost));
      /* The public call and the forced grid path, with and without the value (one block over
       * 4-8 GiB would take minutes). */
      call calls[MAX_CALLS];
      const int all = make_calls(calls, d_big, n, t, (cuprim_arg_op)op);
      int count = 0;
      for (int i = 0; i < all; ++i)
        if (calls[i].how != PATH_ONE_BLOCK)
          calls[count++] = calls[i];
      cuprim_status st[MAX_CALLS];
      run_calls(calls, count, g.stream, st);
      for (int i = 0; i < count; ++i)
        check_bits(i, &calls[i], st[i], want, h_want, "memset data, extremes past 2^32", 0);
    }
    TU_CUDA(cudaFree(d_big));
  }
  end_gpu_test();
}

static void test_no_cuda_error_left(void **state) {
  (void)state;
  begin_gpu_test();
  TU_CUDA(cudaDeviceSynchronize());
  TU_CUDA(cudaGetLastError());
  if (cuprim_last_cuda_error() != cudaSuccess)
    failure("cuprim_last_cuda_error() is %s", cudaGetErrorName(cuprim_last_cuda_error()));
  end_gpu_test();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_empty_input),    cmocka_unit_test(test_sweep),
      cmocka_unit_test(test_tie_positions),  cmocka_unit_test(test_nan_inf_signed_zero),
      cmocka_unit_test(test_integer_limits), cmocka_unit_test(test_misaligned_input),
      cmocka_unit_test(test_legacy_stream),  cmocka_unit_test(test_graph_capture),
      cmocka_unit_test(test_large_input),    cmocka_unit_test(test_no_cuda_error_left),
  };
  tu_apply_test_filter();
  const int failed = cmocka_run_group_tests(tests, group_setup, group_teardown);
  if (failed == 0 && !tu_device_available(NULL, 0))
    return 77;
  return failed;
}
