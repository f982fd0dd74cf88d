/* cuprim_reduce_arg on a GPU, against a plain C reference on the host (test_fixture_gpu.h).
 *
 * All twelve dtypes x ARGMIN/ARGMAX x sizes x data (many ties, few ties, constant), ties at the
 * first, the last and a middle position, NaN (the first one wins, whatever else), infinities,
 * signed zeros (equal: the first wins, and d_value gives its sign), integer limits, n == 0,
 * misaligned inputs, d_value given or not, the one-block and the grid path forced on the same
 * input (the same answer), the default streams besides the fixture's non-blocking one, CUDA graph
 * capture and replay, and inputs past 2^32 elements whose answers lie past 2^32.
 *
 * A call's output is 16 bytes in one of the fixture's guarded slots: the index, then the value at
 * the end (poison between, and where no value was asked for). The reference is independent of the
 * library's keys: the first NaN if any, else the first element that no later one beats by a strict
 * comparison of the values (as doubles or 64-bit integers).
 *
 * Environment: CUPRIM_TEST_SEED, CUPRIM_TEST_QUICK=1 (sizes up to ~2^17, no large case),
 * CUPRIM_TEST_FILTER. Without a CUDA device every test skips (exit 77). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostref.h"
#include "reduce/reduce_internal.h" /* cuprim__reduce_arg_tuned: force the one-block or grid path */
#include "test_fixture_gpu.h"

/* ---------------------------------------------------------------- buffers */

#define MAX_CALLS 16
#define SLOT_BYTES 768 /* the fixture's slot of a 16-byte output (tf_slot_at) */
#define IN_CAP_BYTES                                                                               \
  ((size_t)40 << 20) /* the largest sweep input (2^22 + 7 eight-byte elements)                     \
                      */

static const tf_config config = {.in_bytes = IN_CAP_BYTES, .out_bytes = MAX_CALLS * SLOT_BYTES};

/* ---------------------------------------------------------------- elements on the host */

/* Element i of a float array, as a double (exact). */
static double get_float(cuprim_dtype t, const void *h, uint64_t i) { return hr_to_double(t, h, i); }

/* Element i of an integer array, as a 64-bit unsigned (unsigned dtypes) or signed value: its bits
 * zero-extended, or sign-extended from the dtype's width. */
static uint64_t get_unsigned(cuprim_dtype t, const void *h, uint64_t i) {
  switch (cuprim_dtype_size(t)) {
  case 1:
    return ((const uint8_t *)h)[i];
  case 2:
    return ((const uint16_t *)h)[i];
  case 4:
    return ((const uint32_t *)h)[i];
  default:
    return ((const uint64_t *)h)[i];
  }
}
static int64_t get_signed(cuprim_dtype t, const void *h, uint64_t i) {
  const uint64_t u = get_unsigned(t, h, i), sign = 1ull << (8 * cuprim_dtype_size(t) - 1);
  /* negative: -(magnitude - 1) - 1, without converting an out-of-range unsigned value */
  return u & sign ? -(int64_t)(~u & (sign - 1)) - 1 : (int64_t)u;
}

/* Stores v into element i: floats rounded to the dtype (the values used are exact), integers
 * truncated to the width (two's complement). */
static void put(cuprim_dtype t, void *h, uint64_t i, double v_float, uint64_t v_int) {
  if (hr_is_float(t))
    hr_store_float(t, h, i, v_float);
  else
    hr_store_bits(t, h, i, v_int);
}

/* 1 if element i is strictly greater (max) or less than element j: as doubles for floats (no NaN
 * here), as 64-bit signed or unsigned values for integers. */
static int better(cuprim_dtype t, const void *h, uint64_t i, uint64_t j, int max) {
  if (hr_is_float(t)) {
    const double a = get_float(t, h, i), b = get_float(t, h, j);
    return max ? a > b : a < b;
  }
  if (hr_is_signed(t)) {
    const int64_t a = get_signed(t, h, i), b = get_signed(t, h, j);
    return max ? a > b : a < b;
  }
  const uint64_t a = get_unsigned(t, h, i), b = get_unsigned(t, h, j);
  return max ? a > b : a < b;
}

/* The index cuprim_reduce_arg must return (UINT64_MAX for n == 0). */
static uint64_t reference(cuprim_dtype t, cuprim_arg_op op, const void *h, uint64_t n) {
  if (n == 0)
    return UINT64_MAX;
  const int max = op == CUPRIM_ARGMAX;
  if (hr_is_float(t))
    for (uint64_t i = 0; i < n; ++i)
      if (isnan(get_float(t, h, i)))
        return i; /* the first NaN wins */
  uint64_t best = 0;
  for (uint64_t i = 1; i < n; ++i)
    if (better(t, h, i, best, max)) /* a tie (-0.0 == +0.0 too): the first stays */
      best = i;
  return best;
}

/* The identity of MIN (ARGMIN) or MAX (ARGMAX) of t: the value written for n == 0. */
static void identity_bits(cuprim_dtype t, cuprim_arg_op op, unsigned char out[8]) {
  memset(out, 0, 8);
  const int min = op == CUPRIM_ARGMIN;
  const size_t size = cuprim_dtype_size(t);
  if (hr_is_float(t)) {
    put(t, out, 0, min ? (double)INFINITY : -(double)INFINITY, 0);
  } else if (hr_is_signed(t)) {
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
  const int64_t k = (int64_t)hr_below(s, 401) - 200; /* [-200, 200] */
  if (kind == DATA_TIES) {
    *f = (double)k * 0.5; /* |v| <= 100 in halves: exact in every float dtype */
    *u = hr_is_signed(t) ? (uint64_t)k : (uint64_t)(k + 200);
    return;
  }
  *u = hr_splitmix64(s);
  /* Floats: a random sign, 7 random fraction bits and an exponent in [-14, 14]: normal and exact
   * in every float dtype (BF16 keeps 7 fraction bits, F16 reaches 2^15). */
  const double m = 1.0 + (double)hr_below(s, 128) / 128.0;
  const int e = (int)hr_below(s, 29) - 14;
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

/* The public call (the device's tuning), and each path forced: the one block, the grid and a
 * finishing block, the cooperative grid. */
typedef enum path { PATH_PUBLIC, PATH_ONE_BLOCK, PATH_GRID, PATH_COOP } path;
static const char *const path_names[] = {"cuprim_reduce_arg", "one block (forced)", "grid (forced)",
                                         "cooperative grid (forced)"};

/* A call and what it must give: the index, and the element's bits (the identity's for n == 0).
 * Its output, in the fixture's slot, is 16 bytes: the index at 0, the value ending at 16 (so
 * element-aligned, and for 8- and 16-bit dtypes not even 8-byte aligned), poison between. */
typedef struct call {
  path how;
  const void *d_in;
  uint64_t n;
  cuprim_dtype dtype;
  cuprim_arg_op op;
  int with_value;
  uint64_t want;
  unsigned char want_bits[8];
} call;
#define OUT_BYTES 16

static size_t value_at(cuprim_dtype t) { return OUT_BYTES - cuprim_dtype_size(t); }

static void call_output(const void *p, size_t *bytes, size_t *misalign) {
  (void)p;
  *bytes = OUT_BYTES;
  *misalign = 8; /* the index 8-byte aligned, not 16 */
}

static cuprim_status issue(cuprim_ctx *ctx, const void *p, void *d_out, cudaStream_t stream) {
  const call *c = (const call *)p;
  unsigned char *o = (unsigned char *)d_out;
  void *value = c->with_value ? o + value_at(c->dtype) : NULL;
  uint64_t *index = (uint64_t *)(void *)o;
  if (c->how == PATH_PUBLIC)
    return cuprim_reduce_arg(ctx, c->d_in, value, index, c->n, c->dtype, c->op, stream);
  cuprim__reduce_tuning tune = cuprim__reduce_tuning_for(90);
  tune.arg_single_block_max_bytes = c->how == PATH_ONE_BLOCK ? UINT32_MAX : 0;
  tune.arg_grid_sync_min_bytes = c->how == PATH_COOP ? 0 : UINT64_MAX;
  return cuprim__reduce_arg_tuned(ctx, c->d_in, value, index, c->n, c->dtype, c->op, stream, &tune);
}

static void describe(char *buf, size_t len, const void *p, const char *data, uint64_t seed) {
  const call *c = (const call *)p;
  snprintf(buf, len, "%s %s %s n=%" PRIu64 "%s data=%s seed=0x%016" PRIx64, path_names[c->how],
           hr_dtype_name(c->dtype), c->op == CUPRIM_ARGMIN ? "ARGMIN" : "ARGMAX", c->n,
           c->with_value ? "" : " (no d_value)", data, seed);
}

/* The index, the value's bits, and the poison between them (and where no value was asked for). */
static int check(const tf_region *rg, const void *p, tf_result *r, const tf_case *cs,
                 const char *what) {
  (void)cs;
  const call *c = (const call *)p;
  const unsigned char *o = tf_slot_host(rg, &r->slot);
  const size_t size = cuprim_dtype_size(c->dtype), vat = value_at(c->dtype);
  const size_t untouched = c->with_value ? vat - 8 : OUT_BYTES - 8;
  const size_t bad = tu_pattern_mismatch(o + 8, untouched, TF_POISON);
  if (bad != untouched) {
    tf_failure("%s: wrote byte %zu of the output, which is %s", what, 8 + bad,
               c->with_value ? "between the index and the value" : "no output (d_value NULL)");
    return 0;
  }
  uint64_t got;
  memcpy(&got, o, 8);
  if (got != c->want) {
    tf_failure("%s: index %" PRIu64 ", expected %" PRIu64, what, got, c->want);
    return 0;
  }
  if (c->with_value && memcmp(o + vat, c->want_bits, size) != 0) {
    char gv[96], ev[96];
    hr_format_value_bits(c->dtype, o + vat, gv, sizeof gv);
    hr_format_value_bits(c->dtype, c->want_bits, ev, sizeof ev);
    tf_failure("%s: value %s, expected %s (bit for bit)", what, gv, ev);
    return 0;
  }
  return 1;
}

static const tf_call_ops ops = {sizeof(call), "d_index", call_output, issue, describe, check, NULL};

/* What calls[0..count) must give: the index `want` and the element's bits `bits` (NULL: the
 * identity, for want == UINT64_MAX). */
static void expect(call *calls, int count, uint64_t want, const unsigned char *bits) {
  for (int i = 0; i < count; ++i) {
    calls[i].want = want;
    if (want == UINT64_MAX)
      identity_bits(calls[i].dtype, calls[i].op, calls[i].want_bits);
    else
      memcpy(calls[i].want_bits, bits, cuprim_dtype_size(calls[i].dtype));
  }
}

/* The eight calls of a case: the public call with and without d_value, and each path forced. */
static int make_calls(call *calls, const void *d_in, uint64_t n, cuprim_dtype t, cuprim_arg_op op) {
  int k = 0;
  for (int how = PATH_PUBLIC; how <= PATH_COOP; ++how)
    for (int v = 1; v >= 0; --v) {
      calls[k++] =
          (call){.how = (path)how, .d_in = d_in, .n = n, .dtype = t, .op = op, .with_value = v};
    }
  return k;
}

/* Uploads h[0..n) to d_in (in tf.d_in), runs the eight calls on `stream`, checks them against the
 * reference. */
static void run_case_on(const void *h, void *d_in, uint64_t n, cuprim_dtype t, cuprim_arg_op op,
                        const char *data, uint64_t seed, cudaStream_t stream) {
  const size_t size = cuprim_dtype_size(t);
  if (n)
    tf_upload(d_in, h, n * size, stream);
  const uint64_t want = reference(t, op, h, n);
  call calls[MAX_CALLS];
  const int count = make_calls(calls, d_in, n, t, op);
  expect(calls, count, want, want == UINT64_MAX ? NULL : (const unsigned char *)h + want * size);
  tf_result res[MAX_CALLS];
  const tf_case cs = {data, seed, 0};
  tf_run_and_check(&ops, tf.ctx, calls, count, stream, &cs, res);
}

static void run_case(const void *h, void *d_in, uint64_t n, cuprim_dtype t, cuprim_arg_op op,
                     const char *data, uint64_t seed) {
  run_case_on(h, d_in, n, t, op, data, seed, tf.stream);
}

/* ---------------------------------------------------------------- sizes */

/* 1 and 2 elements, a warp, the grid path's tile (256 threads x 4 vectors: 1024 to 16384
 * elements by dtype) +-1, the one-block limit (64 KB: 2^13 to 2^16 elements by dtype) +-1, 2^k +-1,
 * primes, a few seeded random sizes, and (full mode) a few million. */
static size_t sweep_sizes(uint64_t *sizes, size_t cap) {
  static const uint64_t full[] = {1,     2,     3,     31,     32,     33,     255,     256,
                                  257,   1023,  1024,  1025,   4095,   4096,   4097,    8191,
                                  8192,  8193,  16383, 16384,  16385,  32767,  32768,   32769,
                                  65535, 65536, 65537, 131071, 131072, 131073, 1000003, 4194311};
  static const uint64_t quick[] = {1, 2, 33, 257, 4097, 16385, 32769, 65537, 131071};
  return TF_SWEEP_SIZES(full, quick, 0xA26, 3, 0, sizes, cap);
}

/* ---------------------------------------------------------------- tests */

/* n == 0: UINT64_MAX and the identity, with d_in NULL or not, on every dtype and path. */
TF_TEST(test_empty_input) {
  for (size_t d = 0; d < HR_NUM_DTYPES; ++d)
    for (int op = 0; op <= 1; ++op)
      for (int null_in = 0; null_in <= 1; ++null_in)
        run_case(NULL, null_in ? NULL : tf.d_in, 0, hr_all_dtypes[d], (cuprim_arg_op)op,
                 null_in ? "empty, d_in NULL" : "empty", 0);
}

/* Every dtype x op x size x data kind. */
TF_TEST(test_sweep) {
  uint64_t sizes[48];
  const size_t nsizes = sweep_sizes(sizes, 48);
  unsigned long cases = 0;
  for (size_t d = 0; d < HR_NUM_DTYPES; ++d)
    for (int op = 0; op <= 1; ++op)
      for (int kind = 0; kind < DATA_KINDS; ++kind)
        for (size_t k = 0; k < nsizes; ++k) {
          const cuprim_dtype t = hr_all_dtypes[d];
          const uint64_t n = sizes[k];
          if (tf.quick && kind == DATA_CONSTANT && n > 4097)
            continue;
          const uint64_t seed = tf_case_seed(t, (uint64_t)op, (uint64_t)kind, n);
          fill(t, (data_kind)kind, seed, tf.h_in, n);
          run_case(tf.h_in, tf.d_in, n, t, (cuprim_arg_op)op, data_names[kind], seed);
          ++cases;
        }
  print_message("%lu cases x 8 calls\n", cases);
}

/* Where the extreme value sits: alone at the first, the last or a middle position, or tied
 * between two of them (the first of the two must win), or everywhere. Every dtype and op, sizes
 * on both paths. */
TF_TEST(test_tie_positions) {
  static const uint64_t sizes[] = {2, 33, 4097, 32769, 131073, 1000003};
  const size_t nsizes = tf.quick ? 5 : sizeof sizes / sizeof sizes[0];
  enum { FIRST, LAST, MIDDLE, FIRST_AND_LAST, MIDDLE_AND_LAST, FIRST_AND_MIDDLE, PLACES };
  static const char *const names[] = {"extreme first",         "extreme last",
                                      "extreme in the middle", "tie: first and last",
                                      "tie: middle and last",  "tie: first and middle"};
  for (size_t d = 0; d < HR_NUM_DTYPES; ++d)
    for (int op = 0; op <= 1; ++op)
      for (size_t k = 0; k < nsizes; ++k)
        for (int place = 0; place < PLACES; ++place) {
          const cuprim_dtype t = hr_all_dtypes[d];
          const uint64_t n = sizes[k];
          const uint64_t seed = tf_case_seed(0x71E, t, (uint64_t)op * 8 + (uint64_t)place, n);
          /* Data strictly inside the type's range, and an extreme beyond all of it: floats in
           * [-100, 100] with +-1000; signed integers in [-100, 100] with the type's largest or
           * lowest value; unsigned ones in [1, 200] with the largest value or 0. */
          fill(t, DATA_TIES, seed, tf.h_in, n);
          const int max = op == CUPRIM_ARGMAX;
          const uint64_t top = (uint64_t)1 << (8 * cuprim_dtype_size(t) - 1);
          const double fx = max ? 1000.0 : -1000.0;
          uint64_t ux = 0;
          if (hr_is_signed(t)) {
            ux = max ? top - 1 : top;
            for (uint64_t i = 0; i < n; ++i)
              put(t, tf.h_in, i, 0, (uint64_t)(get_signed(t, tf.h_in, i) % 101));
          } else if (!hr_is_float(t)) {
            ux = max ? ~(uint64_t)0 : 0;
            for (uint64_t i = 0; i < n; ++i)
              put(t, tf.h_in, i, 0, get_unsigned(t, tf.h_in, i) % 200 + 1);
          }
          const uint64_t at[2][PLACES] = {{0, n - 1, n / 2, 0, n / 2, 0},
                                          {0, n - 1, n / 2, n - 1, n - 1, n / 2}};
          put(t, tf.h_in, at[0][place], fx, ux);
          if (place >= FIRST_AND_LAST)
            put(t, tf.h_in, at[1][place], fx, ux);
          run_case(tf.h_in, tf.d_in, n, t, (cuprim_arg_op)op, names[place], seed);
        }
}

/* Floats: any NaN wins, and the first of several (with other payloads and signs after it) is the
 * answer, bit for bit; an infinity is an ordinary extreme; -0.0 and +0.0 tie (the first wins,
 * and the value keeps its sign). */
TF_TEST(test_nan_inf_signed_zero) {
  static const uint64_t sizes[] = {1, 2, 33, 4097, 32769, 65537, 1000003};
  const size_t nsizes = tf.quick ? 6 : sizeof sizes / sizeof sizes[0];
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
  for (size_t d = 0; d < HR_NUM_FLOAT_DTYPES; ++d)
    for (int op = 0; op <= 1; ++op)
      for (size_t k = 0; k < nsizes; ++k)
        for (int sp = 0; sp < CASES; ++sp) {
          const cuprim_dtype t = hr_float_dtypes[d];
          const uint64_t n = sizes[k];
          const size_t size = cuprim_dtype_size(t);
          const uint64_t seed = tf_case_seed(0x4A4, t, (uint64_t)op * 16 + (uint64_t)sp, n);
          uint64_t s = seed;
          fill(t, DATA_TIES, seed, tf.h_in, n);
          const double inf = (double)INFINITY, wins = op == CUPRIM_ARGMAX ? inf : -inf;
          const uint64_t mid = n / 2;
          switch (sp) {
          case NAN_FIRST:
            put(t, tf.h_in, 0, (double)NAN, 0);
            break;
          case NAN_LAST:
            put(t, tf.h_in, n - 1, (double)NAN, 0);
            break;
          case NAN_MIDDLE_THEN_NAN:
            put(t, tf.h_in, mid, (double)NAN, 0);
            for (int r = 0; r < 3; ++r)
              put(t, tf.h_in, mid + hr_below(&s, n - mid), copysign((double)NAN, -1.0), 0);
            break;
          case NEG_NAN_WITH_INF:
            put(t, tf.h_in, hr_below(&s, n), wins, 0);
            put(t, tf.h_in, hr_below(&s, n), copysign((double)NAN, -1.0), 0);
            break;
          case NAN_PAYLOAD: { /* a NaN with a payload, to be copied bit for bit */
            const uint64_t i = hr_below(&s, n);
            unsigned char *e = tf.h_in + i * size;
            memset(e, 0xff, size); /* all ones: a negative NaN in every float format ... */
            e[0] = 0xb5;           /* ... with a distinctive low byte (bit 7 set: still a NaN) */
            if (i + 1 < n)         /* and a plain NaN after it, which must lose */
              put(t, tf.h_in, i + 1 + hr_below(&s, n - i - 1), (double)NAN, 0);
            break;
          }
          case INF_WINS:
            put(t, tf.h_in, hr_below(&s, n), wins, 0);
            break;
          case INF_LOSES:
            put(t, tf.h_in, hr_below(&s, n), -wins, 0);
            break;
          case ZEROS_PLUS_FIRST:
          case ZEROS_MINUS_FIRST: { /* every value on the losing side of 0, two zeros */
            for (uint64_t i = 0; i < n; ++i) {
              const double v = fabs(get_float(t, tf.h_in, i)) + 1.0;
              put(t, tf.h_in, i, op == CUPRIM_ARGMIN ? v : -v, 0);
            }
            const double z1 = sp == ZEROS_PLUS_FIRST ? 0.0 : -0.0;
            const uint64_t a = hr_below(&s, n), b = a + hr_below(&s, n - a);
            put(t, tf.h_in, a, z1, 0);
            if (b != a)
              put(t, tf.h_in, b, -z1, 0);
            break;
          }
          default:
            break;
          }
          run_case(tf.h_in, tf.d_in, n, t, (cuprim_arg_op)op, names[sp], seed);
        }
}

/* The extremes of integer types (the key of INTn_MAX / UINTn_MAX is all ones for ARGMIN's
 * complement, and of INTn_MIN / 0 for ARGMAX): an array of nothing but them, and one of them
 * among others. */
TF_TEST(test_integer_limits) {
  static const uint64_t sizes[] = {1, 33, 4097, 65537};
  for (size_t d = 0; d < HR_NUM_DTYPES; ++d) {
    const cuprim_dtype t = hr_all_dtypes[d];
    if (hr_is_float(t))
      continue;
    const size_t bits = 8 * cuprim_dtype_size(t);
    const uint64_t mask = bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
    const uint64_t top = (uint64_t)1 << (bits - 1);
    const uint64_t hi = hr_is_signed(t) ? top - 1 : mask, lo = hr_is_signed(t) ? top : 0;
    for (int op = 0; op <= 1; ++op)
      for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k)
        for (int v = 0; v < 4; ++v) {
          const uint64_t n = sizes[k];
          const uint64_t seed = tf_case_seed(0x1A1, t, (uint64_t)op * 4 + (uint64_t)v, n);
          uint64_t s = seed;
          /* v: all hi, all lo, random with one hi and one lo, random with hi and lo repeated */
          for (uint64_t i = 0; i < n; ++i)
            put(t, tf.h_in, i, 0, v == 0 ? hi : v == 1 ? lo : hr_splitmix64(&s));
          if (v >= 2)
            for (int r = 0; r < (v == 2 ? 1 : 5); ++r) {
              put(t, tf.h_in, hr_below(&s, n), 0, hi);
              put(t, tf.h_in, hr_below(&s, n), 0, lo);
            }
          static const char *const names[] = {"all the largest value", "all the lowest value",
                                              "one largest, one lowest",
                                              "largest and lowest repeated"};
          run_case(tf.h_in, tf.d_in, n, t, (cuprim_arg_op)op, names[v], seed);
        }
  }
}

/* d_in + 1, + 3 and + 7 elements: element-aligned, not 16-byte aligned. */
TF_TEST(test_misaligned_input) {
  static const uint64_t sizes[] = {1, 5, 33, 1025, 4097, 32769, 131073, 1000003};
  const size_t nsizes = tf.quick ? 7 : sizeof sizes / sizeof sizes[0];
  static const unsigned offsets[] = {1, 3, 7};
  for (size_t d = 0; d < HR_NUM_DTYPES; ++d)
    for (int op = 0; op <= 1; ++op)
      for (size_t k = 0; k < nsizes; ++k)
        for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; ++o) {
          const cuprim_dtype t = hr_all_dtypes[d];
          const uint64_t n = sizes[k];
          const uint64_t seed = tf_case_seed(0x3A1, t, (uint64_t)op * 16 + offsets[o], n);
          fill(t, DATA_TIES, seed, tf.h_in, n);
          char data[64];
          snprintf(data, sizeof data, "ties at d_in+%u elements", offsets[o]);
          run_case(tf.h_in, tf.d_in + offsets[o] * cuprim_dtype_size(t), n, t, (cuprim_arg_op)op,
                   data, seed);
        }
}

/* The legacy and the per-thread default streams, besides the non-blocking stream of every other
 * test. */
TF_TEST(test_default_streams) {
  const uint64_t sizes[] = {1000, tf.quick ? 65537u : (1u << 20) + 1};
  for (int si = 0; si < TF_DEFAULT_STREAMS; ++si)
    for (int k = 0; k < 2; ++k)
      for (int op = 0; op <= 1; ++op) {
        const cuprim_dtype t = k ? CUPRIM_F16 : CUPRIM_I64;
        const uint64_t n = sizes[k];
        const uint64_t seed = tf_case_seed(0x57E, t, (uint64_t)op, n);
        fill(t, DATA_TIES, seed, tf.h_in, n);
        run_case_on(tf.h_in, tf.d_in, n, t, (cuprim_arg_op)op, tf_default_stream_name[si], seed,
                    tf_default_stream[si]);
      }
}

/* Calls on both paths captured into one graph (tf_graph_rounds): capture runs nothing; each
 * replay reads what the input holds then. */
#define GRAPH_DTYPE CUPRIM_BF16
static void graph_round(void *p, int count, int round, uint64_t seed, char *data, size_t len) {
  call *calls = (call *)p;
  const uint64_t n = calls[0].n; /* the largest */
  fill(GRAPH_DTYPE, DATA_TIES, seed, tf.h_in, n);
  tf_upload(tf.d_in, tf.h_in, n * cuprim_dtype_size(GRAPH_DTYPE), tf.stream);
  for (int i = 0; i < count; ++i) {
    const uint64_t want = reference(GRAPH_DTYPE, calls[i].op, tf.h_in, calls[i].n);
    expect(&calls[i], 1, want, tf.h_in + want * cuprim_dtype_size(GRAPH_DTYPE));
  }
  snprintf(data, len, "ties, graph replay %d", round);
}

TF_TEST(test_graph_capture) {
  const uint64_t n = tf.quick ? 65537 : (1u << 20) + 1, n_small = 1000;
  call calls[MAX_CALLS];
  int count = 0;
  for (int op = 0; op <= 1; ++op) { /* calls[0] has n elements: graph_round reads it */
    call all[MAX_CALLS];
    make_calls(all, tf.d_in, n, GRAPH_DTYPE, (cuprim_arg_op)op);
    calls[count++] = all[0]; /* public, n */
    calls[count++] = all[3]; /* one block forced, no value, n */
    calls[count++] = all[6]; /* cooperative grid forced, n */
    make_calls(all, tf.d_in, n_small, GRAPH_DTYPE, (cuprim_arg_op)op);
    calls[count++] = all[0]; /* public, n_small: one block */
    calls[count++] = all[4]; /* grid forced, n_small */
  }
  tf_graph_rounds(&ops, calls, count, n, graph_round);
}

/* Past 2^32 elements, with the answers past 2^32: U8 (4 GiB) and, with room, F16 (8 GiB), filled
 * on the device by memsets: every element one value, a few set apart at known indices. An index
 * cut to 32 bits, or a grid that stops at 2^32, finds another. */
TU_TEST(test_large_input) {
  (void)state;
  const uint64_t n = (1ull << 32) + 4099;
  const size_t margin = (size_t)1 << 30;
  const size_t free_bytes = tf_begin_large("large inputs", n + margin);
  for (int ti = 0; ti < 2; ++ti) {
    const cuprim_dtype t = ti ? CUPRIM_F16 : CUPRIM_U8;
    const size_t size = cuprim_dtype_size(t);
    if (free_bytes < n * size + margin) {
      print_message("large input %s: %.1f GiB free, not enough; skipped\n", hr_dtype_name(t),
                    free_bytes / TF_GIB);
      continue;
    }
    unsigned char *d_big = NULL;
    TF_CUDA(cudaMalloc((void **)&d_big, n * size));
    /* Every byte 0x3c (U8 60, F16 0x3c3c, about 1.06); then the smallest value twice past
     * 2^32 (the first must win) and the largest once before 2^32 and once past it (the one
     * before wins): U8 1 and 240, F16 -1.0 and 8192.0. */
    TF_CUDA(cudaMemsetAsync(d_big, 0x3c, n * size, tf.stream));
    const uint64_t min_at[2] = {(1ull << 32) + 77, (1ull << 32) + 4000};
    const uint64_t max_at[2] = {(1ull << 31) + 5, (1ull << 32) + 3};
    const uint16_t lo = t == CUPRIM_U8 ? 1 : 0xbc00, hi = t == CUPRIM_U8 ? 240 : 0x7000;
    for (int r = 0; r < 2; ++r) { /* little-endian: U8 takes the low byte */
      TF_CUDA(
          cudaMemcpyAsync(d_big + min_at[r] * size, &lo, size, cudaMemcpyHostToDevice, tf.stream));
      TF_CUDA(
          cudaMemcpyAsync(d_big + max_at[r] * size, &hi, size, cudaMemcpyHostToDevice, tf.stream));
    }
    tf_finish(tf.stream);
    for (int op = 0; op <= 1; ++op) {
      const uint64_t want = op == CUPRIM_ARGMIN ? min_at[0] : max_at[0];
      const uint16_t bits = op == CUPRIM_ARGMIN ? lo : hi;
      /* The public call and the forced grid path, with and without the value (one block over
       * 4-8 GiB would take minutes). */
      call calls[MAX_CALLS];
      const int all = make_calls(calls, d_big, n, t, (cuprim_arg_op)op);
      int count = 0;
      for (int i = 0; i < all; ++i)
        if (calls[i].how != PATH_ONE_BLOCK)
          calls[count++] = calls[i];
      expect(calls, count, want, (const unsigned char *)&bits);
      tf_result res[MAX_CALLS];
      const tf_case cs = {"memset data, extremes past 2^32", 0, 0};
      tf_run_and_check(&ops, tf.ctx, calls, count, tf.stream, &cs, res);
    }
    TF_CUDA(cudaFree(d_big));
  }
  tf_end();
}

TF_MAIN(&config)
