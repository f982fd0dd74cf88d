/* cuprim_scan_init's argument checking with no GPU (test_fixture_api.h), and a self-check of the
 * references its GPU test builds (test_scan_init_ref.h).
 *
 * The host-only context makes every call whose arguments are valid return CUPRIM_ERROR_NO_DEVICE
 * where it would first touch CUDA; a valid call with n == 0 has nothing to do and returns
 * CUPRIM_SUCCESS before that point. Fake device memory must come back untouched. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "test_fixture_api.h"
#include "test_scan_init_ref.h"

/* Where the initial value is, besides the fixture's pointer kinds. */
typedef enum init_at {
  I_NULL,
  I_OWN,        /* a place of its own (the fixture's "edges" memory, byte 4096) */
  I_OWN_B1,     /* + 1 byte */
  I_OWN_B4,     /* + 4 bytes: aligned for 4-byte dtypes only */
  I_OUT,        /* d_out[0] */
  I_OUT_MID,    /* d_out[n/2] */
  I_OUT_LAST,   /* d_out[n-1] */
  I_OUT_BEFORE, /* d_out[-1]: just before the output */
  I_OUT_END,    /* d_out[n]: just past the output */
  I_IN_MID      /* d_in[n/2] */
} init_at;

typedef struct init_case {
  const char *what;
  int ctx;
  int alg;             /* the table runner's field: never AUTO (0), so each case is one call */
  int dtype, op, kind; /* int: out-of-range values on purpose */
  ta_ptr in, out;
  init_at init;
  uint64_t n;
  cuprim_status expect;
} init_case;

static const void *init_pointer(init_at k, const void *in, void *out, size_t size, uint64_t n) {
  const unsigned char *o = (const unsigned char *)out, *i = (const unsigned char *)in;
  const unsigned char *own = (const unsigned char *)ta_pointer(TA_EDGES, &(ta_shape){0, 0, 0, 0});
  switch (k) {
  case I_OWN:
    return own;
  case I_OWN_B1:
    return own + 1;
  case I_OWN_B4:
    return own + 4;
  case I_OUT:
    return o;
  case I_OUT_MID:
    return o + size * (n / 2);
  case I_OUT_LAST:
    return o + size * (n ? n - 1 : 0);
  case I_OUT_BEFORE:
    return o - size;
  case I_OUT_END:
    return o + size * n;
  case I_IN_MID:
    return i + size * (n / 2);
  default:
    return NULL;
  }
}

/* Makes one call on the (poisoned) fake memory; on a mismatch returns 0 with a message. */
static int run_case(const void *p, int shorthand, char *why, size_t len) {
  (void)shorthand; /* cuprim_scan_init has no algorithm, so no shorthand to run beside it */
  const init_case *c = (const init_case *)p;
  size_t size = cuprim_dtype_size((cuprim_dtype)c->dtype);
  const ta_shape shape = {size, c->n, size, c->n};
  const void *in = ta_pointer(c->in, &shape);
  void *out = ta_pointer(c->out, &shape);
  if (size == 0)
    size = 1; /* invalid dtypes: any placement */
  const void *init = init_pointer(c->init, in, out, size, c->n);
  const cuprim_status s =
      cuprim_scan_init(ta_context(c->ctx), in, out, c->n, (cuprim_dtype)c->dtype, (cuprim_op)c->op,
                       (cuprim_scan_kind)c->kind, init, 0);
  return ta_check_callf("cuprim_scan_init", c->what, s, c->expect, why, len,
                        "dtype %s op %s kind %d n %llu init at %d",
                        hr_dtype_name((cuprim_dtype)c->dtype), hr_op_name((cuprim_op)c->op),
                        c->kind, (unsigned long long)c->n, (int)c->init);
}

/* A row of the table: one call (ONE_CALL as its algorithm). */
#define ONE_CALL (-1)
#define INIT(what, ctx, dtype, op, kind, in, out, init, n, expect)                                 \
  { what, ctx, ONE_CALL, dtype, op, kind, in, out, init, n, expect }

/* scan.h's rules for cuprim_scan_init: cuprim_scan's, and d_init (with n > 0) not NULL,
 * element-aligned, not inside d_out's n elements; every INVALID_ARGUMENT before UNSUPPORTED. */
TU_TEST(test_invalid_arguments) {
  (void)state;
  const init_case cases[] = {
      INIT("valid", HOST_CTX, F32, SUM, INCL, TA_IN, TA_OUT, I_OWN, 10, NO_DEVICE),
      INIT("valid, exclusive, 8-byte", HOST_CTX, U64, CUPRIM_XOR, EXCL, TA_IN, TA_OUT, I_OWN, 10,
           NO_DEVICE),
      INIT("valid, in place", HOST_CTX, I32, CUPRIM_MIN, INCL, TA_IN, TA_IN, I_OWN, 10, NO_DEVICE),
      INIT("NULL ctx", NULL_CTX, F32, SUM, INCL, TA_IN, TA_OUT, I_OWN, 10, INVALID),
      INIT("NULL ctx, n 0", NULL_CTX, F32, SUM, INCL, TA_NULL, TA_NULL, I_NULL, 0, INVALID),
      INIT("dtype 12", HOST_CTX, 12, SUM, INCL, TA_IN, TA_OUT, I_OWN, 10, INVALID),
      INIT("op 7", HOST_CTX, I32, 7, INCL, TA_IN, TA_OUT, I_OWN, 10, INVALID),
      INIT("kind 2", HOST_CTX, I32, SUM, 2, TA_IN, TA_OUT, I_OWN, 10, INVALID),
      INIT("NULL d_in", HOST_CTX, I32, SUM, INCL, TA_NULL, TA_OUT, I_OWN, 10, INVALID),
      INIT("NULL d_out", HOST_CTX, I32, SUM, INCL, TA_IN, TA_NULL, I_OWN, 10, INVALID),
      INIT("d_out overlapping d_in", HOST_CTX, I32, SUM, INCL, TA_IN, TA_IN_PLUS1, I_OWN, 10,
           INVALID),
      /* the initial value */
      INIT("NULL d_init", HOST_CTX, F32, SUM, INCL, TA_IN, TA_OUT, I_NULL, 10, INVALID),
      INIT("NULL d_init, n 1", HOST_CTX, U64, SUM, EXCL, TA_IN, TA_OUT, I_NULL, 1, INVALID),
      INIT("d_init + 1 byte", HOST_CTX, I32, SUM, INCL, TA_IN, TA_OUT, I_OWN_B1, 10, INVALID),
      INIT("d_init + 4 bytes, F64", HOST_CTX, F64, SUM, INCL, TA_IN, TA_OUT, I_OWN_B4, 10, INVALID),
      INIT("d_init + 4 bytes, U32 (aligned)", HOST_CTX, U32, SUM, INCL, TA_IN, TA_OUT, I_OWN_B4, 10,
           NO_DEVICE),
      INIT("d_init = d_out", HOST_CTX, I32, SUM, INCL, TA_IN, TA_OUT, I_OUT, 10, INVALID),
      INIT("d_init = d_out, n 1", HOST_CTX, I64, SUM, EXCL, TA_IN, TA_OUT, I_OUT, 1, INVALID),
      INIT("d_init in the middle of d_out", HOST_CTX, F64, CUPRIM_MAX, INCL, TA_IN, TA_OUT,
           I_OUT_MID, 10, INVALID),
      INIT("d_init on d_out's last element", HOST_CTX, U32, SUM, EXCL, TA_IN, TA_OUT, I_OUT_LAST,
           10, INVALID),
      INIT("d_init just before d_out", HOST_CTX, U32, SUM, INCL, TA_IN, TA_OUT, I_OUT_BEFORE, 10,
           NO_DEVICE),
      INIT("d_init just past d_out", HOST_CTX, I64, SUM, INCL, TA_IN, TA_OUT, I_OUT_END, 10,
           NO_DEVICE),
      INIT("d_init inside d_in", HOST_CTX, F32, CUPRIM_PROD, EXCL, TA_IN, TA_OUT, I_IN_MID, 10,
           NO_DEVICE),
      INIT("d_init inside d_in scanned in place", HOST_CTX, F32, SUM, INCL, TA_IN, TA_IN, I_IN_MID,
           10, INVALID),
      /* every INVALID_ARGUMENT before UNSUPPORTED */
      INIT("I8", HOST_CTX, CUPRIM_I8, SUM, INCL, TA_IN, TA_OUT, I_OWN, 10, UNSUPPORTED),
      INIT("XOR on F32", HOST_CTX, F32, CUPRIM_XOR, INCL, TA_IN, TA_OUT, I_OWN, 10, UNSUPPORTED),
      INIT("I8 and NULL d_init", HOST_CTX, CUPRIM_I8, SUM, INCL, TA_IN, TA_OUT, I_NULL, 10,
           INVALID),
      INIT("AND on F64 and d_init = d_out", HOST_CTX, F64, CUPRIM_AND, INCL, TA_IN, TA_OUT, I_OUT,
           10, INVALID),
      INIT("U16 and d_init + 1 byte", HOST_CTX, CUPRIM_U16, SUM, EXCL, TA_IN, TA_OUT, I_OWN_B1, 10,
           INVALID),
      /* n == 0: nothing to do, d_init not read (any value) */
      INIT("n 0, everything NULL", HOST_CTX, F32, SUM, INCL, TA_NULL, TA_NULL, I_NULL, 0, OK),
      INIT("n 0, d_init = d_out", HOST_CTX, I32, SUM, EXCL, TA_IN, TA_OUT, I_OUT, 0, OK),
      INIT("n 0, d_init misaligned", HOST_CTX, F64, CUPRIM_MIN, INCL, TA_IN, TA_OUT, I_OWN_B1, 0,
           OK),
      INIT("n 0, I8", HOST_CTX, CUPRIM_I8, SUM, INCL, TA_NULL, TA_NULL, I_NULL, 0, UNSUPPORTED),
  };
  TA_RUN_TABLE(cases, init_case, run_case);
}

/* With every valid (dtype, op, kind) and an initial value of its own, cuprim_scan_init accepts
 * what cuprim_scan accepts (NO_DEVICE with the host-only context) and refuses what it refuses. */
TU_TEST(test_same_as_scan) {
  (void)state;
  ta_tally t = {0, 0, 20};
  for (int d = -1; d <= HR_NUM_DTYPES; ++d)
    for (int op = -1; op <= 7; ++op)
      for (int kind = -1; kind <= 2; ++kind)
        for (int pin = 0; pin < 3; ++pin) {
          const ta_ptr ins[] = {TA_IN, TA_NULL, TA_IN_B1};
          size_t size = cuprim_dtype_size((cuprim_dtype)d);
          const ta_shape shape = {size, 10, size, 10};
          const void *in = ta_pointer(ins[pin], &shape);
          void *out = ta_pointer(TA_OUT, &shape);
          ta_poison();
          const cuprim_status want = cuprim_scan(ta_ctx, in, out, 10, (cuprim_dtype)d,
                                                 (cuprim_op)op, (cuprim_scan_kind)kind, 0);
          ta_poison();
          const cuprim_status got =
              cuprim_scan_init(ta_ctx, in, out, 10, (cuprim_dtype)d, (cuprim_op)op,
                               (cuprim_scan_kind)kind, init_pointer(I_OWN, in, out, 8, 10), 0);
          ta_record_call(&t, "cuprim_scan_init", "as cuprim_scan", got, want,
                         "dtype %d op %d kind %d input %d", d, op, kind, pin);
        }
  ta_finish(&t, "calls compared with cuprim_scan");
}

/* The reference of a scan from init, built from the inclusive reference of [init, x...]
 * (test_scan_init_ref.h), against a reference computed here element by element. */
TU_TEST(test_reference_views) {
  (void)state;
  int32_t x[5] = {3, -1, 4, 1, -5};
  const int32_t init = 10;
  hr_scan_init_ref r;
  hr_scan_init_ref_init(&r);
  for (int k = 0; k < 2; ++k) {
    const cuprim_scan_kind kind = k ? CUPRIM_EXCLUSIVE : CUPRIM_INCLUSIVE;
    assert_int_equal(hr_scan_init_reference(&r, CUPRIM_I32, CUPRIM_SUM, kind, &init, x, 5), 0);
    const hr_scan_ref *v = &r.view;
    assert_int_equal(v->n, 5);
    assert_int_equal(v->kind, kind);
    int32_t acc = init, want[5];
    for (int i = 0; i < 5; ++i) {
      if (kind == CUPRIM_EXCLUSIVE)
        want[i] = acc;
      acc += x[i];
      if (kind == CUPRIM_INCLUSIVE)
        want[i] = acc;
    }
    assert_memory_equal(v->bits, want, sizeof want);
    uint64_t first = 0, last = 0;
    char why[256];
    assert_int_equal(hr_scan_check(v, want, -1, &first, &last, why, sizeof why), 0);
    want[2] += 1;
    assert_int_equal(hr_scan_check(v, want, -1, &first, &last, why, sizeof why), 1);
    assert_int_equal(first, 2);
  }
  /* Inexact float data: the tolerances move with the values (each element's counts init). */
  float fx[4] = {0.1f, 0.2f, 0.3f, 0.4f};
  const float finit = 0.7f;
  assert_int_equal(
      hr_scan_init_reference(&r, CUPRIM_F32, CUPRIM_SUM, CUPRIM_INCLUSIVE, &finit, fx, 4), 0);
  assert_false(r.view.exact);
  assert_true(fabs(r.view.value[3] - (0.7 + 0.1 + 0.2 + 0.3 + 0.4)) < 1e-6);
  assert_int_equal(
      hr_scan_init_reference(&r, CUPRIM_F32, CUPRIM_SUM, CUPRIM_EXCLUSIVE, &finit, fx, 4), 0);
  assert_true(fabs(r.view.value[0] - 0.7) < 1e-7);
  assert_true(fabs(r.view.value[3] - (0.7 + 0.1 + 0.2 + 0.3)) < 1e-6);
  /* A NaN initial value makes every output NaN (MIN), in both kinds. */
  float gx[3] = {1.0f, -2.0f, 3.0f};
  const float nan_init = NAN;
  for (int k = 0; k < 2; ++k) {
    const cuprim_scan_kind kind = k ? CUPRIM_EXCLUSIVE : CUPRIM_INCLUSIVE;
    assert_int_equal(hr_scan_init_reference(&r, CUPRIM_F32, CUPRIM_MIN, kind, &nan_init, gx, 3), 0);
    assert_int_equal(r.view.nan_from, 0);
  }
  /* A NaN at x[1]: inclusive NaN from 1, exclusive from 2; none: n. */
  const float one = 1.0f;
  assert_int_equal(
      hr_scan_init_reference(&r, CUPRIM_F32, CUPRIM_MAX, CUPRIM_INCLUSIVE, &one, gx, 3), 0);
  assert_int_equal(r.view.nan_from, 3);
  gx[1] = NAN;
  assert_int_equal(
      hr_scan_init_reference(&r, CUPRIM_F32, CUPRIM_MAX, CUPRIM_INCLUSIVE, &one, gx, 3), 0);
  assert_int_equal(r.view.nan_from, 1);
  assert_int_equal(
      hr_scan_init_reference(&r, CUPRIM_F32, CUPRIM_MAX, CUPRIM_EXCLUSIVE, &one, gx, 3), 0);
  assert_int_equal(r.view.nan_from, 2);
  /* n == 0: an empty view. */
  const uint64_t init64 = 5;
  assert_int_equal(
      hr_scan_init_reference(&r, CUPRIM_U64, CUPRIM_XOR, CUPRIM_INCLUSIVE, &init64, NULL, 0), 0);
  assert_int_equal(r.view.n, 0);
  hr_scan_init_ref_free(&r);
}

TU_MAIN(ta_setup, ta_teardown)
