/* Scan's argument checking and cuprim_scan_supported, with no GPU (test_fixture_api.h), and a
 * self-check of the scan test reference.
 *
 * The internal host-only context (bound to no device) makes every call whose arguments are valid
 * return CUPRIM_ERROR_NO_DEVICE at the point where it would first touch CUDA, so each check below
 * sees exactly what validation decided; a valid call with n == 0 has nothing to do and returns
 * CUPRIM_SUCCESS before that point. Host buffers stand in for device pointers; they are filled
 * with a guard pattern and must come back untouched (a call that fails validation, stops at
 * NO_DEVICE or has nothing to do writes nothing). Ranges too large for the host buffer use
 * addresses that no call ever dereferences here. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hostref_scan.h"
#include "test_fixture_api.h"

typedef struct api_case {
  const char *what;
  int ctx;
  int alg, dtype, op, kind; /* int: out-of-range values on purpose */
  ta_ptr in, out;
  uint64_t n;
  cuprim_status expect;
} api_case;

/* The algorithms, short for the tables. */
#define AUTO CUPRIM_SCAN_AUTO
#define HS CUPRIM_SCAN_HILLIS_STEELE
#define BL CUPRIM_SCAN_BLELLOCH
#define WS CUPRIM_SCAN_WARP_SHUFFLE
#define LB CUPRIM_SCAN_DECOUPLED_LOOKBACK

/* Makes one call on the (poisoned) fake memory; on a mismatch returns 0 with a message. */
static int run_case(const void *p, int use_shorthand, char *why, size_t len) {
  const api_case *c = (const api_case *)p;
  const ta_shape shape = ta_shape_of(c->dtype, c->n, c->n);
  const void *in = ta_pointer(c->in, &shape);
  void *out = ta_pointer(c->out, &shape);
  cuprim_ctx *ctx = ta_context(c->ctx);
  const cuprim_status s =
      use_shorthand
          ? cuprim_scan(ctx, in, out, c->n, (cuprim_dtype)c->dtype, (cuprim_op)c->op,
                        (cuprim_scan_kind)c->kind, 0)
          : cuprim_scan_ex(ctx, (cuprim_scan_alg)c->alg, in, out, c->n, (cuprim_dtype)c->dtype,
                           (cuprim_op)c->op, (cuprim_scan_kind)c->kind, 0);
  return ta_check_callf(use_shorthand ? "cuprim_scan" : "cuprim_scan_ex", c->what, s, c->expect,
                        why, len, "alg %d dtype %s op %s kind %d n %llu", c->alg,
                        hr_dtype_name((cuprim_dtype)c->dtype), hr_op_name((cuprim_op)c->op),
                        c->kind, (unsigned long long)c->n);
}

TU_TEST(test_invalid_arguments) {
  (void)state;
  const api_case cases[] = {
      /* valid calls: validation passes, then the host-only context stops them */
      {"valid baseline", HOST_CTX, AUTO, F32, SUM, INCL, TA_IN, TA_OUT, 10, NO_DEVICE},
      {"valid, exclusive", HOST_CTX, AUTO, I64, CUPRIM_MIN, EXCL, TA_IN, TA_OUT, 10, NO_DEVICE},
      {"valid, HILLIS_STEELE", HOST_CTX, HS, U32, CUPRIM_XOR, INCL, TA_IN, TA_OUT, 10, NO_DEVICE},
      {"valid, BLELLOCH", HOST_CTX, BL, F64, CUPRIM_PROD, EXCL, TA_IN, TA_OUT, 10, NO_DEVICE},
      {"valid, WARP_SHUFFLE", HOST_CTX, WS, I32, CUPRIM_AND, INCL, TA_IN, TA_OUT, 10, NO_DEVICE},
      {"valid, DECOUPLED_LOOKBACK", HOST_CTX, LB, U64, CUPRIM_OR, EXCL, TA_IN, TA_OUT, 10,
       NO_DEVICE},
      /* NULL context: always INVALID, whatever else is wrong or unsupported */
      {"NULL ctx", NULL_CTX, AUTO, F32, SUM, INCL, TA_IN, TA_OUT, 10, INVALID},
      {"NULL ctx, n 0", NULL_CTX, AUTO, F32, SUM, INCL, TA_NULL, TA_NULL, 0, INVALID},
      {"NULL ctx, everything bad", NULL_CTX, 9, 10, 7, 2, TA_NULL, TA_NULL, 5, INVALID},
      {"NULL ctx, unsupported dtype", NULL_CTX, AUTO, CUPRIM_I8, SUM, INCL, TA_IN, TA_OUT, 4,
       INVALID},
      {"NULL ctx, XOR on F32", NULL_CTX, LB, F32, CUPRIM_XOR, EXCL, TA_IN, TA_OUT, 4, INVALID},
      /* algorithm out of range */
      {"alg 5", HOST_CTX, 5, I32, SUM, INCL, TA_IN, TA_OUT, 10, INVALID},
      {"alg -1", HOST_CTX, -1, I32, SUM, INCL, TA_IN, TA_OUT, 10, INVALID},
      {"alg INT_MAX", HOST_CTX, INT_MAX, I32, SUM, INCL, TA_IN, TA_OUT, 10, INVALID},
      {"alg 5, n 0", HOST_CTX, 5, I32, SUM, INCL, TA_NULL, TA_NULL, 0, INVALID},
      /* dtype out of range */
      {"dtype 12", HOST_CTX, AUTO, 12, SUM, INCL, TA_IN, TA_OUT, 10, INVALID},
      {"dtype -1", HOST_CTX, AUTO, -1, SUM, INCL, TA_IN, TA_OUT, 10, INVALID},
      {"dtype INT_MIN", HOST_CTX, BL, INT_MIN, CUPRIM_MAX, INCL, TA_IN, TA_OUT, 10, INVALID},
      {"dtype 12, n 0", HOST_CTX, AUTO, 12, SUM, INCL, TA_NULL, TA_NULL, 0, INVALID},
      /* op out of range */
      {"op 7", HOST_CTX, AUTO, U32, 7, INCL, TA_IN, TA_OUT, 10, INVALID},
      {"op -1", HOST_CTX, AUTO, U32, -1, INCL, TA_IN, TA_OUT, 10, INVALID},
      {"op 7 on F64", HOST_CTX, LB, F64, 7, INCL, TA_IN, TA_OUT, 10, INVALID},
      {"op 7, n 0", HOST_CTX, AUTO, U32, 7, EXCL, TA_NULL, TA_NULL, 0, INVALID},
      /* kind out of range */
      {"kind 2", HOST_CTX, AUTO, I32, SUM, 2, TA_IN, TA_OUT, 10, INVALID},
      {"kind -1", HOST_CTX, HS, I32, SUM, -1, TA_IN, TA_OUT, 10, INVALID},
      {"kind INT_MAX", HOST_CTX, LB, F32, SUM, INT_MAX, TA_IN, TA_OUT, 10, INVALID},
      {"kind 2, n 0", HOST_CTX, AUTO, I32, SUM, 2, TA_NULL, TA_NULL, 0, INVALID},
      /* NULL pointers: INVALID with n > 0 */
      {"NULL d_out, n 10", HOST_CTX, AUTO, F32, SUM, INCL, TA_IN, TA_NULL, 10, INVALID},
      {"NULL d_out, n 1, ladder", HOST_CTX, WS, I32, SUM, EXCL, TA_IN, TA_NULL, 1, INVALID},
      {"NULL d_in, n 1", HOST_CTX, AUTO, F32, SUM, INCL, TA_NULL, TA_OUT, 1, INVALID},
      {"NULL d_in, n 10", HOST_CTX, LB, U64, CUPRIM_AND, EXCL, TA_NULL, TA_OUT, 10, INVALID},
      {"NULL d_in and d_out, n 5", HOST_CTX, AUTO, F64, SUM, INCL, TA_NULL, TA_NULL, 5, INVALID},
      /* n == 0: succeeds, writes nothing; either pointer may be NULL */
      {"n 0, both NULL", HOST_CTX, AUTO, F32, SUM, INCL, TA_NULL, TA_NULL, 0, OK},
      {"n 0, NULL d_in", HOST_CTX, AUTO, F32, SUM, EXCL, TA_NULL, TA_OUT, 0, OK},
      {"n 0, NULL d_out", HOST_CTX, AUTO, I64, CUPRIM_PROD, EXCL, TA_IN, TA_NULL, 0, OK},
      {"n 0, both valid", HOST_CTX, BL, U32, CUPRIM_MIN, INCL, TA_IN, TA_OUT, 0, OK},
      {"n 0, in place", HOST_CTX, HS, I32, SUM, EXCL, TA_IN, TA_IN, 0, OK},
      {"n 0, ladder, NULL", HOST_CTX, WS, F64, CUPRIM_MAX, EXCL, TA_NULL, TA_NULL, 0, OK},
      {"n 0, look-back, NULL", HOST_CTX, LB, U64, CUPRIM_XOR, INCL, TA_NULL, TA_NULL, 0, OK},
      /* pointers need element alignment, nothing more */
      {"d_out + 1 byte, F32", HOST_CTX, AUTO, F32, SUM, INCL, TA_IN, TA_OUT_B1, 10, INVALID},
      {"d_out + 4 bytes, F64", HOST_CTX, AUTO, F64, SUM, INCL, TA_IN, TA_OUT_B4, 10, INVALID},
      {"d_out + 4 bytes, U64, ladder", HOST_CTX, BL, U64, SUM, EXCL, TA_IN, TA_OUT_B4, 10, INVALID},
      {"d_out + 4 bytes, I32 (aligned)", HOST_CTX, AUTO, I32, SUM, INCL, TA_IN, TA_OUT_B4, 10,
       NO_DEVICE},
      {"d_in + 1 byte, F32", HOST_CTX, AUTO, F32, SUM, INCL, TA_IN_B1, TA_OUT, 10, INVALID},
      {"d_in + 1 byte, I32, ladder", HOST_CTX, HS, I32, CUPRIM_MAX, INCL, TA_IN_B1, TA_OUT, 10,
       INVALID},
      {"d_in + 4 bytes, U64", HOST_CTX, AUTO, U64, SUM, INCL, TA_IN_B4, TA_OUT, 10, INVALID},
      {"d_in + 4 bytes, F64, look-back", HOST_CTX, LB, F64, SUM, EXCL, TA_IN_B4, TA_OUT, 10,
       INVALID},
      {"d_in + 4 bytes, U32 (aligned, not 16-byte)", HOST_CTX, AUTO, U32, SUM, INCL, TA_IN_B4,
       TA_OUT, 10, NO_DEVICE},
      {"d_in + 4 bytes, F32 (aligned, not 16-byte), ladder", HOST_CTX, WS, F32, CUPRIM_MIN, EXCL,
       TA_IN_B4, TA_OUT_B4, 10, NO_DEVICE},
      {"in place at + 1 byte, F32", HOST_CTX, AUTO, F32, SUM, INCL, TA_IN_B1, TA_IN_B1, 10,
       INVALID},
      {"in place at + 4 bytes, I64", HOST_CTX, AUTO, I64, SUM, INCL, TA_IN_B4, TA_IN_B4, 10,
       INVALID},
      {"in place at + 4 bytes, I32 (aligned)", HOST_CTX, AUTO, I32, SUM, EXCL, TA_IN_B4, TA_IN_B4,
       10, NO_DEVICE},
      /* overlap: in place (d_out == d_in) is allowed, any other overlap is not */
      {"in place", HOST_CTX, AUTO, F32, SUM, INCL, TA_IN, TA_IN, 10, NO_DEVICE},
      {"in place, n 1", HOST_CTX, AUTO, I32, SUM, EXCL, TA_IN, TA_IN, 1, NO_DEVICE},
      {"in place, ladder", HOST_CTX, BL, U64, CUPRIM_PROD, INCL, TA_IN, TA_IN, 32, NO_DEVICE},
      {"in place, look-back", HOST_CTX, LB, F64, CUPRIM_MAX, EXCL, TA_IN, TA_IN, 32, NO_DEVICE},
      {"d_out = d_in + 1 element", HOST_CTX, AUTO, F32, SUM, INCL, TA_IN, TA_IN_PLUS1, 10, INVALID},
      {"d_out = d_in + 1 element, ladder", HOST_CTX, HS, U64, SUM, EXCL, TA_IN, TA_IN_PLUS1, 2,
       INVALID},
      {"d_out = d_in + 1 element, n 1 (adjacent)", HOST_CTX, AUTO, I32, SUM, INCL, TA_IN,
       TA_IN_PLUS1, 1, NO_DEVICE},
      {"d_out in the middle of d_in", HOST_CTX, AUTO, F64, CUPRIM_MAX, INCL, TA_IN, TA_IN_MID, 10,
       INVALID},
      {"d_out on d_in's last element", HOST_CTX, WS, U32, SUM, INCL, TA_IN, TA_IN_LAST, 10,
       INVALID},
      {"d_out just past d_in", HOST_CTX, AUTO, U32, SUM, EXCL, TA_IN, TA_IN_END, 10, NO_DEVICE},
      {"d_out = d_in - 1 element", HOST_CTX, AUTO, I64, SUM, INCL, TA_IN, TA_IN_MINUS1, 10,
       INVALID},
      {"d_out = d_in - 1 element, n 1 (adjacent)", HOST_CTX, LB, I64, SUM, INCL, TA_IN,
       TA_IN_MINUS1, 1, NO_DEVICE},
      {"d_out ends on d_in's first element", HOST_CTX, AUTO, F32, SUM, INCL, TA_IN, TA_IN_TOUCH, 10,
       INVALID},
      {"d_out ends just before d_in", HOST_CTX, AUTO, F32, SUM, INCL, TA_IN, TA_IN_BEFORE, 10,
       NO_DEVICE},
      {"d_in inside d_out (roles swapped)", HOST_CTX, AUTO, U32, SUM, INCL, TA_IN_MID, TA_IN, 10,
       INVALID},
      {"d_out = d_in + 1 byte, U32", HOST_CTX, AUTO, U32, SUM, INCL, TA_IN, TA_IN_B1, 10, INVALID},
      /* unsupported combinations of valid enums */
      {"I8", HOST_CTX, AUTO, CUPRIM_I8, SUM, INCL, TA_IN, TA_OUT, 10, UNSUPPORTED},
      {"U8", HOST_CTX, AUTO, CUPRIM_U8, CUPRIM_MAX, EXCL, TA_IN, TA_OUT, 10, UNSUPPORTED},
      {"I16", HOST_CTX, HS, CUPRIM_I16, SUM, INCL, TA_IN, TA_OUT, 10, UNSUPPORTED},
      {"U16", HOST_CTX, LB, CUPRIM_U16, CUPRIM_XOR, INCL, TA_IN, TA_OUT, 10, UNSUPPORTED},
      {"I8, n 0", HOST_CTX, AUTO, CUPRIM_I8, SUM, INCL, TA_NULL, TA_NULL, 0, UNSUPPORTED},
      {"AND on F32", HOST_CTX, AUTO, F32, CUPRIM_AND, INCL, TA_IN, TA_OUT, 10, UNSUPPORTED},
      {"OR on F32", HOST_CTX, BL, F32, CUPRIM_OR, EXCL, TA_IN, TA_OUT, 10, UNSUPPORTED},
      {"XOR on F32", HOST_CTX, WS, F32, CUPRIM_XOR, INCL, TA_IN, TA_OUT, 10, UNSUPPORTED},
      {"AND on F64", HOST_CTX, LB, F64, CUPRIM_AND, INCL, TA_IN, TA_OUT, 10, UNSUPPORTED},
      {"OR on F64", HOST_CTX, AUTO, F64, CUPRIM_OR, EXCL, TA_IN, TA_OUT, 10, UNSUPPORTED},
      {"XOR on F64, n 0", HOST_CTX, AUTO, F64, CUPRIM_XOR, EXCL, TA_NULL, TA_NULL, 0, UNSUPPORTED},
      {"XOR on F32, in place", HOST_CTX, AUTO, F32, CUPRIM_XOR, INCL, TA_IN, TA_IN, 10,
       UNSUPPORTED},
      /* INVALID is decided before UNSUPPORTED */
      {"I8 with NULL d_out", HOST_CTX, AUTO, CUPRIM_I8, SUM, INCL, TA_IN, TA_NULL, 10, INVALID},
      {"I8 with alg 5", HOST_CTX, 5, CUPRIM_I8, SUM, INCL, TA_IN, TA_OUT, 10, INVALID},
      {"I8 with kind 2", HOST_CTX, AUTO, CUPRIM_I8, SUM, 2, TA_IN, TA_OUT, 10, INVALID},
      {"I8 with kind -1, n 0", HOST_CTX, AUTO, CUPRIM_I8, SUM, -1, TA_NULL, TA_NULL, 0, INVALID},
      {"U16 with op 9", HOST_CTX, AUTO, CUPRIM_U16, 9, INCL, TA_IN, TA_OUT, 10, INVALID},
      {"I16 with d_in + 1 byte", HOST_CTX, AUTO, CUPRIM_I16, SUM, INCL, TA_IN_B1, TA_OUT, 10,
       INVALID},
      {"U16 with NULL d_in, n 3", HOST_CTX, AUTO, CUPRIM_U16, CUPRIM_MIN, INCL, TA_NULL, TA_OUT, 3,
       INVALID},
      {"XOR on F32 with d_out + 1 byte", HOST_CTX, AUTO, F32, CUPRIM_XOR, INCL, TA_IN, TA_OUT_B1,
       10, INVALID},
      {"XOR on F32 with kind 2", HOST_CTX, AUTO, F32, CUPRIM_XOR, 2, TA_IN, TA_OUT, 10, INVALID},
      {"AND on F64 with d_out inside d_in", HOST_CTX, BL, F64, CUPRIM_AND, EXCL, TA_IN, TA_IN_MID,
       10, INVALID},
      {"I8 with d_out = d_in + 1 element", HOST_CTX, AUTO, CUPRIM_I8, SUM, INCL, TA_IN, TA_IN_PLUS1,
       10, INVALID},
      /* sizes: past 2^32 elements is valid; sizes whose byte count overflows are not */
      {"n 2^33 (valid)", HOST_CTX, AUTO, F32, SUM, INCL, TA_FAR_IN, TA_FAR_OUT, 1ull << 33,
       NO_DEVICE},
      {"n 2^33 in place (valid)", HOST_CTX, LB, F32, SUM, EXCL, TA_FAR_IN, TA_FAR_IN, 1ull << 33,
       NO_DEVICE},
      {"n 2^40, ladder (valid)", HOST_CTX, BL, U64, SUM, INCL, TA_FAR_IN, TA_FAR_OUT, 1ull << 40,
       NO_DEVICE},
      {"n 2^33, d_out in the middle of d_in", HOST_CTX, AUTO, F32, SUM, INCL, TA_FAR_IN,
       TA_FAR_IN_MID, 1ull << 33, INVALID},
      {"n UINT64_MAX", HOST_CTX, AUTO, F32, SUM, INCL, TA_FAR_IN, TA_FAR_OUT, UINT64_MAX, INVALID},
      {"n 2^62 of 8 bytes (byte count overflows)", HOST_CTX, AUTO, F64, SUM, INCL, TA_FAR_IN,
       TA_FAR_OUT, 1ull << 62, INVALID},
      {"n 2^63 of 4 bytes (byte count overflows)", HOST_CTX, LB, U32, SUM, EXCL, TA_FAR_IN,
       TA_FAR_OUT, 1ull << 63, INVALID},
      /* ranges that run past the end of the address space */
      {"d_in + n * size wraps", HOST_CTX, AUTO, F32, SUM, INCL, TA_TOP, TA_OUT, 2048, INVALID},
      {"d_out + n * size wraps", HOST_CTX, AUTO, F32, SUM, INCL, TA_IN, TA_TOP, 2048, INVALID},
      {"d_out + n * size wraps, ladder", HOST_CTX, HS, U64, SUM, EXCL, TA_IN, TA_TOP, 1024,
       INVALID},
      {"d_in near the top, no wrap", HOST_CTX, AUTO, F32, SUM, INCL, TA_TOP, TA_OUT, 1023,
       NO_DEVICE},
      {"d_out near the top, no wrap", HOST_CTX, AUTO, F32, SUM, INCL, TA_IN, TA_TOP, 1023,
       NO_DEVICE},
  };
  TA_RUN_TABLE(cases, api_case, run_case);
}

/* Every (alg, dtype, op, kind) in range and just outside it, with valid, NULL and (n == 0) absent
 * pointers: the status validation must give (supported pairs: the test's own table,
 * hr_scan_supported). */
TU_TEST(test_every_combination) {
  (void)state;
  const uint64_t sizes[] = {0, 1, 33};
  ta_tally tally = {0, 0, 20};
  for (int alg = -1; alg <= 5; ++alg)
    for (int t = -1; t <= HR_NUM_DTYPES; ++t)
      for (int op = -1; op <= 7; ++op)
        for (int kind = -1; kind <= 2; ++kind)
          for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k)
            for (int ptrs = 0; ptrs < 4; ++ptrs) /* in/out: valid/valid, NULL/valid, ... */
              for (int ctx = NULL_CTX; ctx <= HOST_CTX; ++ctx) {
                const uint64_t n = sizes[k];
                const int null_in = ptrs & 1, null_out = ptrs >> 1;
                const int enums_ok = alg >= 0 && alg <= 4 && t >= 0 && t < HR_NUM_DTYPES &&
                                     op >= 0 && op <= 6 && kind >= 0 && kind <= 1;
                cuprim_status expect;
                if (ctx == NULL_CTX || !enums_ok || (n > 0 && (null_in || null_out)))
                  expect = INVALID;
                else if (!hr_scan_supported((cuprim_dtype)t, (cuprim_op)op))
                  expect = UNSUPPORTED;
                else
                  expect = n == 0 ? OK : NO_DEVICE;
                const api_case c = {
                    "every combination",         ctx, alg,   t, op, kind, null_in ? TA_NULL : TA_IN,
                    null_out ? TA_NULL : TA_OUT, n,   expect};
                ta_run_both(&c, c.alg, run_case, &tally);
              }
  ta_finish(&tally, "combinations");
}

/* cuprim_scan_supported against the test's own table, also for values outside the enums. */
TU_TEST(test_supported) {
  (void)state;
  ta_check_supported_pairs("cuprim_scan_supported", cuprim_scan_supported, hr_scan_supported);
}

/* ---------------------------------------------------------------- the reference itself */

/* The scan reference on small hand-computed inputs, and its comparison: the GPU tests rely on
 * both, so they are checked here where no GPU is needed. */
static hr_scan_ref g_ref;

static void expect_scan(cuprim_dtype t, cuprim_op op, cuprim_scan_kind kind, const void *in,
                        uint64_t n, const void *want, int exact, uint64_t nan_from) {
  assert_int_equal(hr_scan_reference(&g_ref, t, op, kind, in, n), 0);
  const size_t size = cuprim_dtype_size(t);
  if (g_ref.exact != exact || g_ref.nan_from != nan_from)
    fail_msg("%s %s %s: reference exact=%d nan_from=%llu, expected exact=%d nan_from=%llu",
             hr_dtype_name(t), hr_op_name(op), hr_scan_kind_name(kind), g_ref.exact,
             (unsigned long long)g_ref.nan_from, exact, (unsigned long long)nan_from);
  for (uint64_t i = 0; i < n; ++i) {
    const unsigned char *a = g_ref.bits + i * size, *b = (const unsigned char *)want + i * size;
    if (i < nan_from && memcmp(a, b, size) != 0) {
      char ga[96], gb[96];
      hr_format_value_bits(t, a, ga, sizeof ga);
      hr_format_value_bits(t, b, gb, sizeof gb);
      fail_msg("%s %s %s: reference element %llu is %s, expected %s", hr_dtype_name(t),
               hr_op_name(op), hr_scan_kind_name(kind), (unsigned long long)i, ga, gb);
    }
  }
  /* The expected values pass the check; one changed element fails it at that index. */
  uint64_t first = 0, last = 0;
  char why[512];
  assert_int_equal(hr_scan_check(&g_ref, want, -1, &first, &last, why, sizeof why), 0);
  if (n > 0 && nan_from > 0) {
    unsigned char bad[64 * 8];
    assert_true(n * size <= sizeof bad);
    memcpy(bad, want, n * size);
    const uint64_t at = (nan_from - 1) / 2;
    bad[at * size + size - 1] ^= 0x40; /* the top byte: a large change for every dtype */
    assert_int_equal(hr_scan_check(&g_ref, bad, -1, &first, &last, why, sizeof why), 1);
    assert_int_equal(first, at);
    assert_int_equal(last, at);
  }
}

TU_TEST(test_reference) {
  (void)state;
  hr_scan_ref_init(&g_ref);
  {
    const int32_t in[] = {1, 2, 3, -4};
    const int32_t incl[] = {1, 3, 6, 2}, excl[] = {0, 1, 3, 6};
    expect_scan(I32, SUM, INCL, in, 4, incl, 1, 4);
    expect_scan(I32, SUM, EXCL, in, 4, excl, 1, 4);
    const int32_t mn_excl[] = {INT32_MAX, 1, 1, 1}, mx_incl[] = {1, 2, 3, 3};
    expect_scan(I32, CUPRIM_MIN, EXCL, in, 4, mn_excl, 1, 4);
    expect_scan(I32, CUPRIM_MAX, INCL, in, 4, mx_incl, 1, 4);
    const int32_t prod_excl[] = {1, 1, 2, 6};
    expect_scan(I32, CUPRIM_PROD, EXCL, in, 4, prod_excl, 1, 4);
  }
  {
    const uint32_t in[] = {0xFFFFFFFFu, 2u, 0x80000000u};
    const uint32_t sum[] = {0xFFFFFFFFu, 1u, 0x80000001u}; /* wraps */
    const uint32_t mn[] = {0xFFFFFFFFu, 2u, 2u}, mx_excl[] = {0u, 0xFFFFFFFFu, 0xFFFFFFFFu};
    expect_scan(U32, SUM, INCL, in, 3, sum, 1, 3);
    expect_scan(U32, CUPRIM_MIN, INCL, in, 3, mn, 1, 3); /* unsigned order */
    expect_scan(U32, CUPRIM_MAX, EXCL, in, 3, mx_excl, 1, 3);
    const int32_t sin[] = {-1, 2, INT32_MIN};
    const int32_t smn[] = {-1, -1, INT32_MIN}; /* signed order, the same bits */
    expect_scan(I32, CUPRIM_MIN, INCL, sin, 3, smn, 1, 3);
  }
  {
    const int64_t in[] = {3, -5, 7, INT64_MAX};
    const int64_t prod[] = {3, -15, -105, (int64_t)((uint64_t)-105 * (uint64_t)INT64_MAX)};
    expect_scan(I64, CUPRIM_PROD, INCL, in, 4, prod, 1, 4);
    const uint64_t uin[] = {~1ull, ~2ull, 5ull};
    const uint64_t and_excl[] = {~0ull, ~1ull, ~3ull}, or_incl[] = {~1ull, ~0ull, ~0ull};
    const uint64_t xor_incl[] = {~1ull, 3ull, 6ull};
    expect_scan(U64, CUPRIM_AND, EXCL, uin, 3, and_excl, 1, 3);
    expect_scan(U64, CUPRIM_OR, INCL, uin, 3, or_incl, 1, 3);
    expect_scan(U64, CUPRIM_XOR, INCL, uin, 3, xor_incl, 1, 3);
    const int64_t mx_excl[] = {INT64_MIN, 3, 3, 7};
    expect_scan(I64, CUPRIM_MAX, EXCL, in, 4, mx_excl, 1, 4);
  }
  {
    const float in[] = {0.5f, 0.25f, -1.0f, 0.125f};
    const float incl[] = {0.5f, 0.75f, -0.25f, -0.125f}, excl[] = {0.0f, 0.5f, 0.75f, -0.25f};
    expect_scan(F32, SUM, INCL, in, 4, incl, 1, 4); /* multiples of 1/8: exact */
    expect_scan(F32, SUM, EXCL, in, 4, excl, 1, 4);
    const float pin[] = {2.0f, -0.5f, 2.0f, 1.0f};
    const float pincl[] = {2.0f, -1.0f, -2.0f, -2.0f}, pexcl[] = {1.0f, 2.0f, -1.0f, -2.0f};
    expect_scan(F32, CUPRIM_PROD, INCL, pin, 4, pincl, 1, 4); /* powers of two: exact */
    expect_scan(F32, CUPRIM_PROD, EXCL, pin, 4, pexcl, 1, 4);
    const float x[] = {0.1f, 0.2f, 0.3f};
    const float xincl[] = {0.1f, (float)((double)0.1f + (double)0.2f),
                           (float)((double)0.1f + (double)0.2f + (double)0.3f)};
    expect_scan(F32, SUM, INCL, x, 3, xincl, 0, 3); /* not exact: checked within a bound */
    /* within the bound passes, past it fails */
    float near[3], far[3];
    memcpy(near, xincl, sizeof near);
    memcpy(far, xincl, sizeof far);
    near[2] = nextafterf(near[2], 1.0f);
    far[2] = near[2] + 1e-5f;
    uint64_t first = 0, last = 0;
    char why[512];
    assert_int_equal(hr_scan_check(&g_ref, near, -1, &first, &last, why, sizeof why), 0);
    assert_int_equal(hr_scan_check(&g_ref, far, -1, &first, &last, why, sizeof why), 1);
    assert_int_equal(first, 2);
  }
  {
    const double in[] = {3.0, NAN, 1.0, -INFINITY};
    const double incl[] = {3.0, NAN, NAN, NAN}, excl[] = {INFINITY, 3.0, NAN, NAN};
    expect_scan(F64, CUPRIM_MIN, INCL, in, 4, incl, 1, 1);
    expect_scan(F64, CUPRIM_MIN, EXCL, in, 4, excl, 1, 2);
    const double fin[] = {3.0, -INFINITY, 1.0};
    const double fmx[] = {-INFINITY, 3.0, 3.0}, fmn[] = {3.0, -INFINITY, -INFINITY};
    expect_scan(F64, CUPRIM_MAX, EXCL, fin, 3, fmx, 1, 3);
    expect_scan(F64, CUPRIM_MIN, INCL, fin, 3, fmn, 1, 3);
    /* A number where a NaN must be fails. */
    uint64_t first = 0, last = 0;
    char why[512];
    assert_int_equal(hr_scan_reference(&g_ref, F64, CUPRIM_MIN, INCL, in, 4), 0);
    const double got[] = {3.0, NAN, 1.0, NAN};
    assert_int_equal(hr_scan_check(&g_ref, got, -1, &first, &last, why, sizeof why), 1);
    assert_int_equal(first, 2);
  }
  {
    /* An element left with the poison pattern is named as never written. */
    const uint32_t in[] = {1, 2, 3};
    assert_int_equal(hr_scan_reference(&g_ref, U32, SUM, INCL, in, 3), 0);
    const uint32_t got[] = {1, 3, 0xA5A5A5A5u};
    uint64_t first = 0, last = 0;
    char why[512];
    assert_int_equal(hr_scan_check(&g_ref, got, 0xA5, &first, &last, why, sizeof why), 1);
    assert_non_null(strstr(why, "never written"));
  }
  hr_scan_ref_free(&g_ref);
}

/* The fills: EXACT data is recognized as exact at the sizes the GPU tests use it, RANDOM float
 * data is not; MIN/MAX trends cross zero (signed) and 2^(bits-1) (unsigned); a seed gives the same
 * data every time. */
TU_TEST(test_fills) {
  (void)state;
  enum { N = (1 << 21) + 17 };
  static float f[N], f2[N];
  static double d[N];
  hr_scan_ref r;
  hr_scan_ref_init(&r);
  hr_scan_fill(F32, SUM, HR_SCAN_EXACT, 42, f, N);
  assert_int_equal(hr_scan_reference(&r, F32, SUM, INCL, f, N), 0);
  assert_int_equal(r.exact, 1);
  hr_scan_fill(F32, SUM, HR_SCAN_EXACT, 42, f2, N);
  assert_memory_equal(f, f2, sizeof f);
  hr_scan_fill(F64, CUPRIM_PROD, HR_SCAN_EXACT, 43, d, N);
  assert_int_equal(hr_scan_reference(&r, F64, CUPRIM_PROD, EXCL, d, N), 0);
  assert_int_equal(r.exact, 1);
  hr_scan_fill(F32, CUPRIM_PROD, HR_SCAN_EXACT, 44, f, N);
  assert_int_equal(hr_scan_reference(&r, F32, CUPRIM_PROD, INCL, f, N), 0);
  assert_int_equal(r.exact, 1);
  { /* the data exercises the kernels: many scales (+-2, +-1/2) and many negatives */
    unsigned scales = 0, negatives = 0;
    for (int i = 0; i < N; ++i) {
      scales += f[i] == 2.0f || f[i] == -2.0f || f[i] == 0.5f || f[i] == -0.5f;
      negatives += f[i] < 0.0f;
    }
    assert_in_range(scales, 32, 100);
    assert_true(negatives > N / 8);
  }
  hr_scan_fill(F32, SUM, HR_SCAN_RANDOM, 45, f, 1000);
  assert_int_equal(hr_scan_reference(&r, F32, SUM, INCL, f, 1000), 0);
  assert_int_equal(r.exact, 0);
  hr_scan_fill(F32, CUPRIM_PROD, HR_SCAN_RANDOM, 46, f, 1000);
  assert_int_equal(hr_scan_reference(&r, F32, CUPRIM_PROD, INCL, f, 1000), 0);
  assert_int_equal(r.exact, 0);
  hr_scan_ref_free(&r);

  static int32_t s32[4096];
  static uint32_t u32[4096];
  hr_scan_fill(I32, CUPRIM_MIN, HR_SCAN_RANDOM, 47, s32, 4096);
  assert_true(s32[0] > 0 && s32[4095] < 0);
  hr_scan_fill(U32, CUPRIM_MIN, HR_SCAN_RANDOM, 48, u32, 4096);
  assert_true(u32[0] > 0x80000000u && u32[4095] < 0x80000000u);
  hr_scan_fill(U32, CUPRIM_MAX, HR_SCAN_RANDOM, 49, u32, 4096);
  assert_true(u32[0] < 0x80000000u && u32[4095] > 0x80000000u);
  hr_scan_fill(F32, CUPRIM_MAX, HR_SCAN_RANDOM, 50, f, 4096);
  assert_true(f[0] < 0.0f && f[4095] > 0.0f);
  /* the running minimum keeps changing: at least 1000 new minima in 4096 elements */
  hr_scan_fill(I32, CUPRIM_MIN, HR_SCAN_RANDOM, 51, s32, 4096);
  int changes = 0;
  int32_t m = INT32_MAX;
  for (int i = 0; i < 4096; ++i)
    if (s32[i] < m) {
      m = s32[i];
      ++changes;
    }
  assert_true(changes >= 1000);
}

TA_HOST_ONLY_CONTEXT_TEST()

TU_MAIN(ta_setup, ta_teardown)
