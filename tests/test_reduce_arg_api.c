/* cuprim_reduce_arg's argument checking, with no GPU (test_fixture_api.h, as test_reduce_api.c
 * for cuprim_reduce): the host-only context makes a call whose arguments are valid return
 * CUPRIM_ERROR_NO_DEVICE where it would first touch CUDA, and the fake device memory must come
 * back untouched. The arg-reduce takes every dtype, so every failed check is INVALID_ARGUMENT.
 *
 * The value is placed as an output of one element of the dtype, the index as an output of one
 * 8-byte element: TA_OUT and its neighbours name either; the index's usual place is TA_EDGES (the
 * fixture's third region, here just memory apart from the other two). */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "test_fixture_api.h"

typedef struct arg_case {
  const char *what;
  int ctx;
  int alg;       /* the table runner's field: never AUTO (0), so each case is one call */
  int dtype, op; /* int: out-of-range values on purpose */
  ta_ptr in, value, index;
  uint64_t n;
  cuprim_status expect;
} arg_case;
#define ONE_CALL (-1)

/* Makes one call on the (poisoned) fake memory; on a mismatch returns 0 with a message. */
static int run_case(const void *p, int shorthand, char *why, size_t len) {
  (void)shorthand; /* there is no shorthand */
  const arg_case *c = (const arg_case *)p;
  const size_t size = cuprim_dtype_size((cuprim_dtype)c->dtype);
  const ta_shape value_shape = {size, c->n, size, 1}, index_shape = {size, c->n, 8, 1};
  const void *in = ta_pointer(c->in, &value_shape);
  void *value = ta_pointer(c->value, &value_shape);
  uint64_t *index = (uint64_t *)ta_pointer(c->index, &index_shape);
  const cuprim_status s = cuprim_reduce_arg(ta_context(c->ctx), in, value, index, c->n,
                                            (cuprim_dtype)c->dtype, (cuprim_arg_op)c->op, 0);
  return ta_check_callf("cuprim_reduce_arg", c->what, s, c->expect, why, len,
                        "dtype %s op %d n %llu", hr_dtype_name((cuprim_dtype)c->dtype), c->op,
                        (unsigned long long)c->n);
}

/* A row of the tables. */
#define ARG(what, ctx, dtype, op, in, value, index, n, expect)                                     \
  { what, ctx, ONE_CALL, dtype, op, in, value, index, n, expect }
#define ARGMIN CUPRIM_ARGMIN
#define ARGMAX CUPRIM_ARGMAX
#define IDX TA_EDGES /* the index's usual place */

TU_TEST(test_invalid_arguments) {
  (void)state;
  const arg_case cases[] = {
      ARG("valid baseline", HOST_CTX, F32, ARGMIN, TA_IN, TA_OUT, IDX, 10, NO_DEVICE),
      ARG("valid, no value", HOST_CTX, F32, ARGMAX, TA_IN, TA_NULL, IDX, 10, NO_DEVICE),
      ARG("valid, n 0, NULL input", HOST_CTX, I8, ARGMIN, TA_NULL, TA_OUT, IDX, 0, NO_DEVICE),
      ARG("valid, n 0, NULL input and value", HOST_CTX, CUPRIM_BF16, ARGMAX, TA_NULL, TA_NULL, IDX,
          0, NO_DEVICE),
      /* NULL context: always INVALID */
      ARG("NULL ctx", NULL_CTX, F32, ARGMIN, TA_IN, TA_OUT, IDX, 10, INVALID),
      ARG("NULL ctx, n 0", NULL_CTX, F32, ARGMIN, TA_NULL, TA_NULL, IDX, 0, INVALID),
      ARG("NULL ctx, everything bad", NULL_CTX, 12, 2, TA_NULL, TA_OUT_B1, TA_NULL, 5, INVALID),
      /* dtype and op out of range */
      ARG("dtype 12", HOST_CTX, 12, ARGMIN, TA_IN, TA_OUT, IDX, 10, INVALID),
      ARG("dtype -1", HOST_CTX, -1, ARGMIN, TA_IN, TA_OUT, IDX, 10, INVALID),
      ARG("dtype INT_MIN, n 0", HOST_CTX, INT_MIN, ARGMAX, TA_NULL, TA_NULL, IDX, 0, INVALID),
      ARG("op 2", HOST_CTX, F32, 2, TA_IN, TA_OUT, IDX, 10, INVALID),
      ARG("op -1", HOST_CTX, F32, -1, TA_IN, TA_OUT, IDX, 10, INVALID),
      ARG("op INT_MAX, n 0", HOST_CTX, U8, INT_MAX, TA_NULL, TA_NULL, IDX, 0, INVALID),
      /* the index: never NULL (always written), 8-byte aligned */
      ARG("NULL d_index", HOST_CTX, F32, ARGMIN, TA_IN, TA_OUT, TA_NULL, 10, INVALID),
      ARG("NULL d_index, n 0", HOST_CTX, F32, ARGMIN, TA_NULL, TA_NULL, TA_NULL, 0, INVALID),
      ARG("d_index + 1 byte", HOST_CTX, U8, ARGMIN, TA_IN, TA_NULL, TA_OUT_B1, 10, INVALID),
      ARG("d_index + 4 bytes", HOST_CTX, F32, ARGMAX, TA_IN, TA_OUT, TA_EDGES_B4, 10, INVALID),
      /* the input: NULL only with n == 0; element alignment, nothing more */
      ARG("NULL d_in, n 1", HOST_CTX, F32, ARGMIN, TA_NULL, TA_OUT, IDX, 1, INVALID),
      ARG("NULL d_in, n 10", HOST_CTX, U64, ARGMAX, TA_NULL, TA_NULL, IDX, 10, INVALID),
      ARG("d_in + 1 byte, F32", HOST_CTX, F32, ARGMIN, TA_IN_B1, TA_OUT, IDX, 10, INVALID),
      ARG("d_in + 1 byte, F16", HOST_CTX, F16, ARGMIN, TA_IN_B1, TA_OUT, IDX, 10, INVALID),
      ARG("d_in + 1 byte, BF16, n 0", HOST_CTX, CUPRIM_BF16, ARGMIN, TA_IN_B1, TA_OUT, IDX, 0,
          INVALID),
      ARG("d_in + 1 byte, U8 (aligned)", HOST_CTX, U8, ARGMIN, TA_IN_B1, TA_OUT, IDX, 10,
          NO_DEVICE),
      ARG("d_in + 1 byte, I8 (aligned)", HOST_CTX, I8, ARGMAX, TA_IN_B1, TA_OUT, IDX, 10,
          NO_DEVICE),
      ARG("d_in + 1 element, F16 (aligned)", HOST_CTX, F16, ARGMAX, TA_IN_PLUS1, TA_OUT, IDX, 10,
          NO_DEVICE),
      ARG("d_in + 1 element, I16 (aligned)", HOST_CTX, I16, ARGMIN, TA_IN_PLUS1, TA_OUT, IDX, 10,
          NO_DEVICE),
      ARG("d_in + 4 bytes, F32 (aligned)", HOST_CTX, F32, ARGMIN, TA_IN_B4, TA_OUT, IDX, 10,
          NO_DEVICE),
      ARG("d_in + 4 bytes, F64", HOST_CTX, F64, ARGMIN, TA_IN_B4, TA_OUT, IDX, 10, INVALID),
      /* the value: optional, element-aligned */
      ARG("d_value + 1 byte, F32", HOST_CTX, F32, ARGMIN, TA_IN, TA_OUT_B1, IDX, 10, INVALID),
      ARG("d_value + 1 byte, F16, n 0", HOST_CTX, F16, ARGMIN, TA_NULL, TA_OUT_B1, IDX, 0, INVALID),
      ARG("d_value + 1 byte, U8 (aligned)", HOST_CTX, U8, ARGMAX, TA_IN, TA_OUT_B1, IDX, 10,
          NO_DEVICE),
      ARG("d_value + 4 bytes, F64", HOST_CTX, F64, ARGMAX, TA_IN, TA_OUT_B4, IDX, 10, INVALID),
      ARG("d_value + 4 bytes, I32 (aligned)", HOST_CTX, I32, ARGMAX, TA_IN, TA_OUT_B4, IDX, 10,
          NO_DEVICE),
      /* no output may overlap the input */
      ARG("d_index == d_in", HOST_CTX, F32, ARGMIN, TA_IN, TA_OUT, TA_IN, 10, INVALID),
      ARG("d_index inside d_in", HOST_CTX, U64, ARGMIN, TA_IN, TA_OUT, TA_IN_MID, 10, INVALID),
      ARG("d_index on d_in's last element", HOST_CTX, U64, ARGMIN, TA_IN, TA_OUT, TA_IN_LAST, 10,
          INVALID),
      ARG("d_index just past d_in", HOST_CTX, U64, ARGMIN, TA_IN, TA_OUT, TA_IN_END, 10, NO_DEVICE),
      ARG("d_index ends where d_in starts", HOST_CTX, F32, ARGMIN, TA_IN, TA_OUT, TA_IN_BEFORE, 10,
          NO_DEVICE),
      ARG("d_index covers d_in's first bytes", HOST_CTX, U8, ARGMIN, TA_IN_B4, TA_NULL, TA_IN, 10,
          INVALID),
      ARG("d_index == d_in, n 0 (no range)", HOST_CTX, F32, ARGMIN, TA_IN, TA_OUT, TA_IN, 0,
          NO_DEVICE),
      ARG("d_value == d_in", HOST_CTX, F32, ARGMAX, TA_IN, TA_IN, IDX, 10, INVALID),
      ARG("d_value == d_in, n 1", HOST_CTX, F16, ARGMAX, TA_IN, TA_IN, IDX, 1, INVALID),
      ARG("d_value inside d_in", HOST_CTX, F64, ARGMAX, TA_IN, TA_IN_MID, IDX, 10, INVALID),
      ARG("d_value on d_in's last element", HOST_CTX, U8, ARGMAX, TA_IN, TA_IN_LAST, IDX, 10,
          INVALID),
      ARG("d_value just past d_in", HOST_CTX, U8, ARGMAX, TA_IN, TA_IN_END, IDX, 10, NO_DEVICE),
      ARG("d_value ends where d_in starts", HOST_CTX, F16, ARGMAX, TA_IN, TA_IN_BEFORE, IDX, 10,
          NO_DEVICE),
      ARG("d_value == d_in, n 0 (no range)", HOST_CTX, F32, ARGMAX, TA_IN, TA_IN, IDX, 0,
          NO_DEVICE),
      /* nor each other (also when n == 0: both are written) */
      ARG("d_value == d_index", HOST_CTX, F32, ARGMIN, TA_IN, TA_OUT, TA_OUT, 10, INVALID),
      ARG("d_value == d_index, n 0", HOST_CTX, F64, ARGMIN, TA_NULL, TA_OUT, TA_OUT, 0, INVALID),
      ARG("d_value inside d_index", HOST_CTX, F32, ARGMIN, TA_IN, TA_OUT_B4, TA_OUT, 10, INVALID),
      ARG("d_value just past d_index", HOST_CTX, F64, ARGMIN, TA_IN, TA_OUT_B8, TA_OUT, 10,
          NO_DEVICE),
      ARG("d_value ends where d_index starts", HOST_CTX, F64, ARGMIN, TA_IN, TA_OUT, TA_OUT_B8, 10,
          NO_DEVICE),
      /* sizes: past 2^32 elements is valid; byte counts that overflow, or an input that runs past
       * the end of the address space, are not */
      ARG("n 2^33 (valid)", HOST_CTX, F32, ARGMIN, TA_FAR_IN, TA_OUT, IDX, 1ull << 33, NO_DEVICE),
      ARG("n 2^40 of U8 (valid)", HOST_CTX, U8, ARGMAX, TA_FAR_IN, TA_NULL, IDX, 1ull << 40,
          NO_DEVICE),
      ARG("n UINT64_MAX", HOST_CTX, F32, ARGMIN, TA_IN, TA_OUT, IDX, UINT64_MAX, INVALID),
      ARG("n 2^62 of 8 bytes", HOST_CTX, F64, ARGMIN, TA_IN, TA_OUT, IDX, 1ull << 62, INVALID),
      ARG("n 2^63 of 2 bytes", HOST_CTX, F16, ARGMIN, TA_IN, TA_OUT, IDX, 1ull << 63, INVALID),
      ARG("input ends at the top of the address space", HOST_CTX, F16, ARGMIN, TA_TOP, TA_OUT, IDX,
          2047, NO_DEVICE),
      ARG("input runs past the top of the address space", HOST_CTX, F16, ARGMIN, TA_TOP, TA_OUT,
          IDX, 2049, INVALID),
  };
  TA_RUN_TABLE(cases, arg_case, run_case);
}

/* The sizes of test_every_combination: none (the input may be NULL), one element, and more. */
static const uint64_t sizes[] = {0, 1, 33};

/* Every (dtype, op) in range and out, with valid pointers: NO_DEVICE for each of the twelve
 * dtypes with either op (the arg-reduce takes every dtype), INVALID otherwise. */
TU_TEST(test_every_combination) {
  (void)state;
  ta_tally tally = {0, 0, 20};
  for (int t = -1; t <= HR_NUM_DTYPES; ++t)
    for (int op = -1; op <= 2; ++op)
      for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k)
        for (int with_value = 0; with_value <= 1; ++with_value)
          for (int null_in = 0; null_in <= (sizes[k] == 0); ++null_in)
            for (int ctx = NULL_CTX; ctx <= HOST_CTX; ++ctx) {
              const int valid =
                  ctx == HOST_CTX && t >= 0 && t < HR_NUM_DTYPES && op >= 0 && op <= 1;
              const arg_case c =
                  ARG("every combination", ctx, t, op, null_in ? TA_NULL : TA_IN,
                      with_value ? TA_OUT : TA_NULL, IDX, sizes[k], valid ? NO_DEVICE : INVALID);
              ta_run_both(&c, c.alg, run_case, &tally);
            }
  ta_finish(&tally, "combinations");
}

/* The enum values reduce.h pins. */
TU_TEST(test_enum_values) {
  (void)state;
  assert_int_equal(CUPRIM_ARGMIN, 0);
  assert_int_equal(CUPRIM_ARGMAX, 1);
}

TA_HOST_ONLY_CONTEXT_TEST()

TU_MAIN(ta_setup, ta_teardown)
