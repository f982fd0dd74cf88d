/* Reduce's argument checking and cuprim_reduce_supported, with no GPU (test_fixture_api.h). The
 * internal host-only context (bound to no device) makes every call whose arguments are valid
 * return CUPRIM_ERROR_NO_DEVICE at the point where it would first touch CUDA, so each check below
 * sees exactly what validation decided. Host buffers stand in for device pointers; they are filled
 * with a guard pattern and must come back untouched (a call that fails validation, or stops at
 * NO_DEVICE, writes nothing). */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "hostref_reduce.h"
#include "test_fixture_api.h"

typedef struct api_case {
  const char *what;
  int ctx, alg, dtype, op; /* int: alg, dtype and op out of range on purpose */
  ta_ptr in, out;
  uint64_t n;
  cuprim_status expect;
} api_case;

/* The algorithms, short for the tables. */
#define AUTO CUPRIM_REDUCE_AUTO
#define TREE CUPRIM_REDUCE_GLOBAL_TREE
#define ATOMIC CUPRIM_REDUCE_ATOMIC

/* Makes one call on the (poisoned) fake memory; on a mismatch returns 0 with a message. */
static int run_case(const void *p, int use_shorthand, char *why, size_t len) {
  const api_case *c = (const api_case *)p;
  const ta_shape shape = ta_shape_of(c->dtype, c->n, 1);
  const void *in = ta_pointer(c->in, &shape);
  void *out = ta_pointer(c->out, &shape);
  cuprim_ctx *ctx = ta_context(c->ctx);
  const cuprim_status s =
      use_shorthand ? cuprim_reduce(ctx, in, out, c->n, (cuprim_dtype)c->dtype, (cuprim_op)c->op, 0)
                    : cuprim_reduce_ex(ctx, (cuprim_reduce_alg)c->alg, in, out, c->n,
                                       (cuprim_dtype)c->dtype, (cuprim_op)c->op, 0);
  return ta_check_callf(use_shorthand ? "cuprim_reduce" : "cuprim_reduce_ex", c->what, s, c->expect,
                        why, len, "alg %d dtype %s op %s n %llu", c->alg,
                        hr_dtype_name((cuprim_dtype)c->dtype), hr_op_name((cuprim_op)c->op),
                        (unsigned long long)c->n);
}

TU_TEST(test_invalid_arguments) {
  (void)state;
  const api_case cases[] = {
      {"valid baseline", HOST_CTX, AUTO, F32, SUM, TA_IN, TA_OUT, 10, NO_DEVICE},
      {"valid baseline, ladder", HOST_CTX, ATOMIC, I64, CUPRIM_XOR, TA_IN, TA_OUT, 10, NO_DEVICE},
      /* NULL context: always INVALID, whatever else is wrong or unsupported */
      {"NULL ctx", NULL_CTX, AUTO, F32, SUM, TA_IN, TA_OUT, 10, INVALID},
      {"NULL ctx, n 0", NULL_CTX, AUTO, F32, SUM, TA_NULL, TA_OUT, 0, INVALID},
      {"NULL ctx, everything bad", NULL_CTX, 10, 10, 7, TA_NULL, TA_NULL, 5, INVALID},
      {"NULL ctx, unsupported dtype", NULL_CTX, AUTO, I8, SUM, TA_IN, TA_OUT, 4, INVALID},
      {"NULL ctx, XOR on F32", NULL_CTX, TREE, F32, CUPRIM_XOR, TA_IN, TA_OUT, 4, INVALID},
      /* algorithm out of range */
      {"alg 10", HOST_CTX, 10, I32, SUM, TA_IN, TA_OUT, 10, INVALID},
      {"alg -1", HOST_CTX, -1, I32, SUM, TA_IN, TA_OUT, 10, INVALID},
      {"alg INT_MAX", HOST_CTX, INT_MAX, I32, SUM, TA_IN, TA_OUT, 10, INVALID},
      {"alg 10, n 0", HOST_CTX, 10, I32, SUM, TA_NULL, TA_OUT, 0, INVALID},
      /* dtype out of range */
      {"dtype 12", HOST_CTX, AUTO, 12, SUM, TA_IN, TA_OUT, 10, INVALID},
      {"dtype -1", HOST_CTX, AUTO, -1, SUM, TA_IN, TA_OUT, 10, INVALID},
      {"dtype INT_MIN", HOST_CTX, TREE, INT_MIN, CUPRIM_MAX, TA_IN, TA_OUT, 10, INVALID},
      {"dtype 12, n 0", HOST_CTX, AUTO, 12, SUM, TA_NULL, TA_OUT, 0, INVALID},
      /* op out of range */
      {"op 7", HOST_CTX, AUTO, U32, 7, TA_IN, TA_OUT, 10, INVALID},
      {"op -1", HOST_CTX, AUTO, U32, -1, TA_IN, TA_OUT, 10, INVALID},
      {"op 7 on F64", HOST_CTX, ATOMIC, F64, 7, TA_IN, TA_OUT, 10, INVALID},
      /* NULL output: INVALID even when n == 0 (the identity must be written) */
      {"NULL d_out", HOST_CTX, AUTO, F32, SUM, TA_IN, TA_NULL, 10, INVALID},
      {"NULL d_out, n 0", HOST_CTX, AUTO, F32, SUM, TA_IN, TA_NULL, 0, INVALID},
      {"NULL d_out and d_in, n 0", HOST_CTX, TREE, I32, CUPRIM_MIN, TA_NULL, TA_NULL, 0, INVALID},
      /* NULL input: INVALID with n > 0, allowed with n == 0 */
      {"NULL d_in, n 1", HOST_CTX, AUTO, F32, SUM, TA_NULL, TA_OUT, 1, INVALID},
      {"NULL d_in, n 10", HOST_CTX, ATOMIC, U64, CUPRIM_AND, TA_NULL, TA_OUT, 10, INVALID},
      {"NULL d_in, n 0", HOST_CTX, AUTO, F32, SUM, TA_NULL, TA_OUT, 0, NO_DEVICE},
      {"NULL d_in, n 0, ladder", HOST_CTX, TREE, I64, CUPRIM_PROD, TA_NULL, TA_OUT, 0, NO_DEVICE},
      /* pointers need element alignment, nothing more */
      {"d_out + 1 byte, F32", HOST_CTX, AUTO, F32, SUM, TA_IN, TA_OUT_B1, 10, INVALID},
      {"d_out + 4 bytes, F64", HOST_CTX, AUTO, F64, SUM, TA_IN, TA_OUT_B4, 10, INVALID},
      {"d_out + 4 bytes, U64, n 0", HOST_CTX, AUTO, U64, CUPRIM_OR, TA_NULL, TA_OUT_B4, 0, INVALID},
      {"d_out + 4 bytes, I32 (aligned)", HOST_CTX, AUTO, I32, SUM, TA_IN, TA_OUT_B4, 10, NO_DEVICE},
      {"d_in + 1 byte, F32", HOST_CTX, AUTO, F32, SUM, TA_IN_B1, TA_OUT, 10, INVALID},
      {"d_in + 1 byte, I32, ladder", HOST_CTX, ATOMIC, I32, CUPRIM_MAX, TA_IN_B1, TA_OUT, 10,
       INVALID},
      {"d_in + 4 bytes, U64", HOST_CTX, AUTO, U64, SUM, TA_IN_B4, TA_OUT, 10, INVALID},
      {"d_in + 4 bytes, U32 (aligned, not 16-byte)", HOST_CTX, AUTO, U32, SUM, TA_IN_B4, TA_OUT, 10,
       NO_DEVICE},
      {"d_in + 4 bytes, F32 (aligned, not 16-byte), ladder", HOST_CTX, TREE, F32, CUPRIM_MIN,
       TA_IN_B4, TA_OUT, 10, NO_DEVICE},
      /* d_out must not lie inside [d_in, d_in + n) */
      {"d_out == d_in", HOST_CTX, AUTO, F32, SUM, TA_IN, TA_IN, 10, INVALID},
      {"d_out == d_in, n 1", HOST_CTX, AUTO, I32, SUM, TA_IN, TA_IN, 1, INVALID},
      {"d_out in the middle of d_in", HOST_CTX, AUTO, F64, CUPRIM_MAX, TA_IN, TA_IN_MID, 10,
       INVALID},
      {"d_out on d_in's last element", HOST_CTX, TREE, U32, SUM, TA_IN, TA_IN_LAST, 10, INVALID},
      {"d_out just past d_in", HOST_CTX, AUTO, U32, SUM, TA_IN, TA_IN_END, 10, NO_DEVICE},
      {"d_out just before d_in", HOST_CTX, AUTO, I64, SUM, TA_IN, TA_IN_BEFORE, 10, NO_DEVICE},
      {"d_out == d_in, n 0 (no range)", HOST_CTX, AUTO, I64, SUM, TA_IN, TA_IN, 0, NO_DEVICE},
      /* unsupported combinations of valid enums */
      {"I8", HOST_CTX, AUTO, I8, SUM, TA_IN, TA_OUT, 10, UNSUPPORTED},
      {"U8", HOST_CTX, AUTO, U8, CUPRIM_MAX, TA_IN, TA_OUT, 10, UNSUPPORTED},
      {"I16", HOST_CTX, TREE, I16, SUM, TA_IN, TA_OUT, 10, UNSUPPORTED},
      {"U16", HOST_CTX, ATOMIC, U16, CUPRIM_XOR, TA_IN, TA_OUT, 10, UNSUPPORTED},
      {"I8, n 0", HOST_CTX, AUTO, I8, SUM, TA_NULL, TA_OUT, 0, UNSUPPORTED},
      {"AND on F32", HOST_CTX, AUTO, F32, CUPRIM_AND, TA_IN, TA_OUT, 10, UNSUPPORTED},
      {"OR on F32", HOST_CTX, AUTO, F32, CUPRIM_OR, TA_IN, TA_OUT, 10, UNSUPPORTED},
      {"XOR on F32", HOST_CTX, TREE, F32, CUPRIM_XOR, TA_IN, TA_OUT, 10, UNSUPPORTED},
      {"AND on F64", HOST_CTX, ATOMIC, F64, CUPRIM_AND, TA_IN, TA_OUT, 10, UNSUPPORTED},
      {"OR on F64", HOST_CTX, AUTO, F64, CUPRIM_OR, TA_IN, TA_OUT, 10, UNSUPPORTED},
      {"XOR on F64, n 0", HOST_CTX, AUTO, F64, CUPRIM_XOR, TA_NULL, TA_OUT, 0, UNSUPPORTED},
      /* INVALID is decided before UNSUPPORTED */
      {"I8 with NULL d_out", HOST_CTX, AUTO, I8, SUM, TA_IN, TA_NULL, 10, INVALID},
      {"I8 with alg 10", HOST_CTX, 10, I8, SUM, TA_IN, TA_OUT, 10, INVALID},
      {"U16 with op 9", HOST_CTX, AUTO, U16, 9, TA_IN, TA_OUT, 10, INVALID},
      {"I16 with d_in + 1 byte", HOST_CTX, AUTO, I16, SUM, TA_IN_B1, TA_OUT, 10, INVALID},
      {"U16 with NULL d_in, n 3", HOST_CTX, AUTO, U16, CUPRIM_MIN, TA_NULL, TA_OUT, 3, INVALID},
      {"XOR on F32 with d_out + 1 byte", HOST_CTX, AUTO, F32, CUPRIM_XOR, TA_IN, TA_OUT_B1, 10,
       INVALID},
      {"AND on F64 with d_out inside d_in", HOST_CTX, TREE, F64, CUPRIM_AND, TA_IN, TA_IN_MID, 10,
       INVALID},
      {"I8 with d_out inside d_in", HOST_CTX, AUTO, I8, SUM, TA_IN, TA_IN_MID, 10, INVALID},
      /* sizes: past 2^32 elements is valid; sizes whose byte count overflows are not */
      {"n 2^33 (valid)", HOST_CTX, AUTO, F32, SUM, TA_IN, TA_OUT, 1ull << 33, NO_DEVICE},
      {"n 2^40, ladder (valid)", HOST_CTX, CUPRIM_REDUCE_COARSENED, U64, SUM, TA_IN, TA_OUT,
       1ull << 40, NO_DEVICE},
      {"n UINT64_MAX", HOST_CTX, AUTO, F32, SUM, TA_IN, TA_OUT, UINT64_MAX, INVALID},
      {"n 2^62 of 8 bytes (byte count overflows)", HOST_CTX, AUTO, F64, SUM, TA_IN, TA_OUT,
       1ull << 62, INVALID},
      {"n 2^63 of 4 bytes (byte count overflows)", HOST_CTX, ATOMIC, U32, SUM, TA_IN, TA_OUT,
       1ull << 63, INVALID},
  };
  TA_RUN_TABLE(cases, api_case, run_case);
}

/* An input range that runs past the end of the address space. */
TU_TEST(test_input_range_wraps) {
  (void)state;
  const uintptr_t in = ta_address(TA_IN_OFFSET);
  const uint64_t n = (uint64_t)((UINTPTR_MAX - in) / 4 + 1); /* in + 4n > UINTPTR_MAX */
  const api_case cases[] = {
      {"d_in + n * size wraps", HOST_CTX, AUTO, F32, SUM, TA_IN, TA_OUT, n, INVALID},
      {"d_in + (n - 1) * size does not", HOST_CTX, AUTO, F32, SUM, TA_IN, TA_OUT, n - 1, NO_DEVICE},
  };
  TA_RUN_TABLE(cases, api_case, run_case);
}

/* Every (alg, dtype, op) in range, with valid pointers: NO_DEVICE where reduce takes the pair
 * (the test's own table, hr_reduce_supported), UNSUPPORTED where it does not; INVALID with a NULL
 * context or an out-of-range algorithm. */
TU_TEST(test_every_combination) {
  (void)state;
  const uint64_t sizes[] = {0, 1, 33, 5000};
  ta_tally tally = {0, 0, 20};
  for (int alg = -1; alg <= 10; ++alg)
    for (int t = 0; t < HR_NUM_DTYPES; ++t)
      for (int op = 0; op < 7; ++op)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k)
          for (int null_in = 0; null_in <= (sizes[k] == 0); ++null_in)
            for (int ctx = NULL_CTX; ctx <= HOST_CTX; ++ctx) {
              cuprim_status expect =
                  hr_reduce_supported((cuprim_dtype)t, (cuprim_op)op) ? NO_DEVICE : UNSUPPORTED;
              if (ctx == NULL_CTX || alg < 0 || alg > 9)
                expect = INVALID;
              const api_case c = {"every combination",       ctx,    alg,      t,     op,
                                  null_in ? TA_NULL : TA_IN, TA_OUT, sizes[k], expect};
              ta_run_both(&c, c.alg, run_case, &tally);
            }
  ta_finish(&tally, "combinations");
}

/* cuprim_reduce_supported against the test's own table, also for values outside the enums. */
TU_TEST(test_supported) {
  (void)state;
  ta_check_supported_pairs("cuprim_reduce_supported", cuprim_reduce_supported, hr_reduce_supported);
}

TA_HOST_ONLY_CONTEXT_TEST()

TU_MAIN(ta_setup, ta_teardown)
