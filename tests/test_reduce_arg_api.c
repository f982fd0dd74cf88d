/* cuprim_reduce_arg's argument checking, with no GPU (as test_reduce_api.c does for
 * cuprim_reduce): the host-only context makes a call whose arguments are valid return
 * CUPRIM_ERROR_NO_DEVICE where it would first touch CUDA. Host buffers stand in for device
 * memory, filled with a guard pattern that must come back untouched. The arg-reduce takes every
 * dtype, so every failed check is INVALID_ARGUMENT. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "common/context.h" /* cuprim__ctx_create_host_only */
#include "test_util.h"

#define GUARD 0x5A

/* Fake device memory: the index slot at byte 32, the value slot at byte 64, the input at byte 256
 * (never more than 32 elements of 8 bytes are placed, so it ends before byte 512). */
static _Alignas(64) unsigned char g_mem[1024];
#define INDEX_OFFSET 32
#define VALUE_OFFSET 64
#define IN_OFFSET 256

static cuprim_ctx *g_ctx;

static int setup(void **state) {
  (void)state;
  return cuprim__ctx_create_host_only(&g_ctx) == CUPRIM_SUCCESS ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  return cuprim_ctx_destroy(g_ctx) == CUPRIM_SUCCESS ? 0 : -1;
}

typedef enum ptr_kind {
  P_NULL,
  P_IN,         /* the input, 64-byte aligned */
  P_IN_B1,      /* input + 1 byte */
  P_IN_B2,      /* input + 2 bytes: aligned for 8- and 16-bit dtypes only */
  P_IN_B4,      /* input + 4 bytes */
  P_IN_MID,     /* input + size * (n / 2): inside the input */
  P_IN_LAST,    /* input + size * (n - 1): the input's last element */
  P_IN_END,     /* input + size * n: just past the input */
  P_IN_BEFORE8, /* input - 8 bytes: an 8-byte slot that ends where the input starts */
  P_VALUE,      /* the value slot */
  P_VALUE_B1,   /* value + 1 byte */
  P_VALUE_B4,   /* value + 4 bytes */
  P_INDEX,      /* the index slot */
  P_INDEX_B1,   /* index + 1 byte */
  P_INDEX_B4,   /* index + 4 bytes: 4-byte aligned, inside the index slot */
  P_INDEX_END,  /* index + 8 bytes: just past the index slot */
  P_INDEX_M2,   /* index - 2 bytes: a 2-byte value there ends where the index starts */
} ptr_kind;

static void *pointer(ptr_kind k, int dtype, uint64_t n) {
  size_t size = cuprim_dtype_size((cuprim_dtype)dtype);
  if (size == 0)
    size = 1; /* invalid dtypes: any placement */
  unsigned char *in = g_mem + IN_OFFSET, *value = g_mem + VALUE_OFFSET,
                *index = g_mem + INDEX_OFFSET;
  switch (k) {
  case P_NULL:
    return NULL;
  case P_IN:
    return in;
  case P_IN_B1:
    return in + 1;
  case P_IN_B2:
    return in + 2;
  case P_IN_B4:
    return in + 4;
  case P_IN_MID:
    return in + size * (n / 2);
  case P_IN_LAST:
    return in + size * (n - 1);
  case P_IN_END:
    return in + size * n;
  case P_IN_BEFORE8:
    return in - 8;
  case P_VALUE:
    return value;
  case P_VALUE_B1:
    return value + 1;
  case P_VALUE_B4:
    return value + 4;
  case P_INDEX:
    return index;
  case P_INDEX_B1:
    return index + 1;
  case P_INDEX_B4:
    return index + 4;
  case P_INDEX_END:
    return index + 8;
  case P_INDEX_M2:
    return index - 2;
  }
  return NULL;
}

enum { NULL_CTX = 0, HOST_CTX = 1 };
#define INVALID CUPRIM_ERROR_INVALID_ARGUMENT
#define NO_DEVICE CUPRIM_ERROR_NO_DEVICE
#define ARGMIN CUPRIM_ARGMIN
#define ARGMAX CUPRIM_ARGMAX

typedef struct arg_case {
  const char *what;
  int ctx;
  int dtype; /* ints: out-of-range values on purpose */
  int op;
  ptr_kind in, value, index;
  uint64_t n;
  cuprim_status expect;
} arg_case;

static int run_case(const arg_case *c, char *why, size_t len) {
  memset(g_mem, GUARD, sizeof g_mem);
  cuprim_ctx *ctx = c->ctx == HOST_CTX ? g_ctx : NULL;
  const void *in = pointer(c->in, c->dtype, c->n);
  void *value = pointer(c->value, c->dtype, c->n);
  uint64_t *index = (uint64_t *)pointer(c->index, c->dtype, c->n);
  const cuprim_status s = cuprim_reduce_arg(ctx, in, value, index, c->n, (cuprim_dtype)c->dtype,
                                            (cuprim_arg_op)c->op, 0);
  if (s != c->expect) {
    snprintf(why, len, "%s: dtype %s op %d n %llu: expected %s, got %s", c->what,
             tu_dtype_name((cuprim_dtype)c->dtype), c->op, (unsigned long long)c->n,
             tu_status_name(c->expect), tu_status_name(s));
    return 0;
  }
  const size_t bad = tu_pattern_mismatch(g_mem, sizeof g_mem, GUARD);
  if (bad != sizeof g_mem) {
    snprintf(why, len, "%s: returned %s but wrote fake device memory at byte %zu", c->what,
             tu_status_name(s), bad);
    return 0;
  }
  return 1;
}

static void run_table(const arg_case *cases, size_t count) {
  int failures = 0;
  char why[512];
  for (size_t i = 0; i < count; ++i)
    if (!run_case(&cases[i], why, sizeof why)) {
      print_error("%s\n", why);
      ++failures;
    }
  assert_int_equal(cuprim_last_cuda_error(), cudaSuccess); /* nothing reached CUDA */
  if (failures)
    fail_msg("%d argument-checking case(s) failed", failures);
}

#define F16 CUPRIM_F16
#define F32 CUPRIM_F32
#define F64 CUPRIM_F64

static void test_invalid_arguments(void **state) {
  (void)state;
  const arg_case cases[] = {
      {"valid baseline", HOST_CTX, F32, ARGMIN, P_IN, P_VALUE, P_INDEX, 10, NO_DEVICE},
      {"valid, no value", HOST_CTX, F32, ARGMAX, P_IN, P_NULL, P_INDEX, 10, NO_DEVICE},
      {"valid, n 0, NULL input", HOST_CTX, CUPRIM_I8, ARGMIN, P_NULL, P_VALUE, P_INDEX, 0,
       NO_DEVICE},
      {"valid, n 0, NULL input and value", HOST_CTX, CUPRIM_BF16, ARGMAX, P_NULL, P_NULL, P_INDEX,
       0, NO_DEVICE},
      /* NULL context: always INVALID */
      {"NULL ctx", NULL_CTX, F32, ARGMIN, P_IN, P_VALUE, P_INDEX, 10, INVALID},
      {"NULL ctx, n 0", NULL_CTX, F32, ARGMIN, P_NULL, P_NULL, P_INDEX, 0, INVALID},
      {"NULL ctx, everything bad", NULL_CTX, 12, 2, P_NULL, P_VALUE_B1, P_NULL, 5, INVALID},
      /* dtype and op out of range */
      {"dtype 12", HOST_CTX, 12, ARGMIN, P_IN, P_VALUE, P_INDEX, 10, INVALID},
      {"dtype -1", HOST_CTX, -1, ARGMIN, P_IN, P_VALUE, P_INDEX, 10, INVALID},
      {"dtype INT_MIN, n 0", HOST_CTX, INT_MIN, ARGMAX, P_NULL, P_NULL, P_INDEX, 0, INVALID},
      {"op 2", HOST_CTX, F32, 2, P_IN, P_VALUE, P_INDEX, 10, INVALID},
      {"op -1", HOST_CTX, F32, -1, P_IN, P_VALUE, P_INDEX, 10, INVALID},
      {"op INT_MAX, n 0", HOST_CTX, CUPRIM_U8, INT_MAX, P_NULL, P_NULL, P_INDEX, 0, INVALID},
      /* the index: never NULL (always written), 8-byte aligned */
      {"NULL d_index", HOST_CTX, F32, ARGMIN, P_IN, P_VALUE, P_NULL, 10, INVALID},
      {"NULL d_index, n 0", HOST_CTX, F32, ARGMIN, P_NULL, P_NULL, P_NULL, 0, INVALID},
      {"d_index + 1 byte", HOST_CTX, CUPRIM_U8, ARGMIN, P_IN, P_VALUE, P_INDEX_B1, 10, INVALID},
      {"d_index + 4 bytes", HOST_CTX, F32, ARGMAX, P_IN, P_NULL, P_INDEX_B4, 10, INVALID},
      /* the input: NULL only with n == 0; element alignment, nothing more */
      {"NULL d_in, n 1", HOST_CTX, F32, ARGMIN, P_NULL, P_VALUE, P_INDEX, 1, INVALID},
      {"NULL d_in, n 10", HOST_CTX, CUPRIM_U64, ARGMAX, P_NULL, P_NULL, P_INDEX, 10, INVALID},
      {"d_in + 1 byte, F32", HOST_CTX, F32, ARGMIN, P_IN_B1, P_VALUE, P_INDEX, 10, INVALID},
      {"d_in + 1 byte, F16", HOST_CTX, F16, ARGMIN, P_IN_B1, P_VALUE, P_INDEX, 10, INVALID},
      {"d_in + 1 byte, BF16, n 0", HOST_CTX, CUPRIM_BF16, ARGMIN, P_IN_B1, P_VALUE, P_INDEX, 0,
       INVALID},
      {"d_in + 1 byte, U8 (aligned)", HOST_CTX, CUPRIM_U8, ARGMIN, P_IN_B1, P_VALUE, P_INDEX, 10,
       NO_DEVICE},
      {"d_in + 1 byte, I8 (aligned)", HOST_CTX, CUPRIM_I8, ARGMAX, P_IN_B1, P_VALUE, P_INDEX, 10,
       NO_DEVICE},
      {"d_in + 2 bytes, F16 (aligned)", HOST_CTX, F16, ARGMAX, P_IN_B2, P_VALUE, P_INDEX, 10,
       NO_DEVICE},
      {"d_in + 2 bytes, I16 (aligned)", HOST_CTX, CUPRIM_I16, ARGMIN, P_IN_B2, P_VALUE, P_INDEX, 10,
       NO_DEVICE},
      {"d_in + 2 bytes, F32", HOST_CTX, F32, ARGMIN, P_IN_B2, P_VALUE, P_INDEX, 10, INVALID},
      {"d_in + 4 bytes, F32 (aligned)", HOST_CTX, F32, ARGMIN, P_IN_B4, P_VALUE, P_INDEX, 10,
       NO_DEVICE},
      {"d_in + 4 bytes, F64", HOST_CTX, F64, ARGMIN, P_IN_B4, P_VALUE, P_INDEX, 10, INVALID},
      /* the value: optional, element-aligned */
      {"d_value + 1 byte, F32", HOST_CTX, F32, ARGMIN, P_IN, P_VALUE_B1, P_INDEX, 10, INVALID},
      {"d_value + 1 byte, F16, n 0", HOST_CTX, F16, ARGMIN, P_NULL, P_VALUE_B1, P_INDEX, 0,
       INVALID},
      {"d_value + 1 byte, U8 (aligned)", HOST_CTX, CUPRIM_U8, ARGMAX, P_IN, P_VALUE_B1, P_INDEX, 10,
       NO_DEVICE},
      {"d_value + 4 bytes, F64", HOST_CTX, F64, ARGMAX, P_IN, P_VALUE_B4, P_INDEX, 10, INVALID},
      {"d_value + 4 bytes, I32 (aligned)", HOST_CTX, CUPRIM_I32, ARGMAX, P_IN, P_VALUE_B4, P_INDEX,
       10, NO_DEVICE},
      /* no output may overlap the input */
      {"d_index == d_in", HOST_CTX, F32, ARGMIN, P_IN, P_VALUE, P_IN, 10, INVALID},
      {"d_index inside d_in", HOST_CTX, CUPRIM_U64, ARGMIN, P_IN, P_VALUE, P_IN_MID, 10, INVALID},
      {"d_index on d_in's last element", HOST_CTX, CUPRIM_U64, ARGMIN, P_IN, P_VALUE, P_IN_LAST, 10,
       INVALID},
      {"d_index just past d_in", HOST_CTX, CUPRIM_U64, ARGMIN, P_IN, P_VALUE, P_IN_END, 10,
       NO_DEVICE},
      {"d_index ends where d_in starts", HOST_CTX, F32, ARGMIN, P_IN, P_VALUE, P_IN_BEFORE8, 10,
       NO_DEVICE},
      {"d_index covers d_in's first bytes", HOST_CTX, CUPRIM_U8, ARGMIN, P_IN_B4, P_NULL, P_IN, 10,
       INVALID},
      {"d_index == d_in, n 0 (no range)", HOST_CTX, F32, ARGMIN, P_IN, P_VALUE, P_IN, 0, NO_DEVICE},
      {"d_value == d_in", HOST_CTX, F32, ARGMAX, P_IN, P_IN, P_INDEX, 10, INVALID},
      {"d_value == d_in, n 1", HOST_CTX, F16, ARGMAX, P_IN, P_IN, P_INDEX, 1, INVALID},
      {"d_value inside d_in", HOST_CTX, F64, ARGMAX, P_IN, P_IN_MID, P_INDEX, 10, INVALID},
      {"d_value on d_in's last element", HOST_CTX, CUPRIM_U8, ARGMAX, P_IN, P_IN_LAST, P_INDEX, 10,
       INVALID},
      {"d_value just past d_in", HOST_CTX, CUPRIM_U8, ARGMAX, P_IN, P_IN_END, P_INDEX, 10,
       NO_DEVICE},
      {"d_value == d_in, n 0 (no range)", HOST_CTX, F32, ARGMAX, P_IN, P_IN, P_INDEX, 0, NO_DEVICE},
      /* nor each other (also when n == 0: both are written) */
      {"d_value == d_index", HOST_CTX, F32, ARGMIN, P_IN, P_INDEX, P_INDEX, 10, INVALID},
      {"d_value == d_index, n 0", HOST_CTX, F64, ARGMIN, P_NULL, P_INDEX, P_INDEX, 0, INVALID},
      {"d_value inside d_index", HOST_CTX, F32, ARGMIN, P_IN, P_INDEX_B4, P_INDEX, 10, INVALID},
      {"d_value just past d_index", HOST_CTX, F64, ARGMIN, P_IN, P_INDEX_END, P_INDEX, 10,
       NO_DEVICE},
      {"d_value ends where d_index starts", HOST_CTX, F16, ARGMIN, P_IN, P_INDEX_M2, P_INDEX, 10,
       NO_DEVICE},
      /* sizes: past 2^32 elements is valid; byte counts that overflow are not */
      {"n 2^33 (valid)", HOST_CTX, F32, ARGMIN, P_IN, P_VALUE, P_INDEX, 1ull << 33, NO_DEVICE},
      {"n 2^40 of U8 (valid)", HOST_CTX, CUPRIM_U8, ARGMAX, P_IN, P_NULL, P_INDEX, 1ull << 40,
       NO_DEVICE},
      {"n UINT64_MAX", HOST_CTX, F32, ARGMIN, P_IN, P_VALUE, P_INDEX, UINT64_MAX, INVALID},
      {"n 2^62 of 8 bytes", HOST_CTX, F64, ARGMIN, P_IN, P_VALUE, P_INDEX, 1ull << 62, INVALID},
      {"n 2^63 of 2 bytes", HOST_CTX, F16, ARGMIN, P_IN, P_VALUE, P_INDEX, 1ull << 63, INVALID},
  };
  run_table(cases, sizeof cases / sizeof cases[0]);
}

/* An input range that runs past the end of the address space. */
static void test_input_range_wraps(void **state) {
  (void)state;
  const uintptr_t in = (uintptr_t)(g_mem + IN_OFFSET);
  const uint64_t n = (uint64_t)((UINTPTR_MAX - in) / 2 + 1); /* in + 2n > UINTPTR_MAX */
  const arg_case cases[] = {
      {"d_in + n * size wraps", HOST_CTX, F16, ARGMIN, P_IN, P_VALUE, P_INDEX, n, INVALID},
      {"d_in + (n - 1) * size does not", HOST_CTX, F16, ARGMIN, P_IN, P_VALUE, P_INDEX, n - 1,
       NO_DEVICE},
  };
  run_table(cases, sizeof cases / sizeof cases[0]);
}

/* Every (dtype, op) in range and out, with valid pointers: NO_DEVICE for each of the twelve
 * dtypes with either op (the arg-reduce takes every dtype), INVALID otherwise. */
static void test_every_combination(void **state) {
  (void)state;
  const uint64_t sizes[] = {0, 1, 33};
  int failures = 0;
  long cases = 0;
  char why[512];
  for (int t = -1; t <= 12; ++t)
    for (int op = -1; op <= 2; ++op)
      for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k)
        for (int with_value = 0; with_value <= 1; ++with_value)
          for (int null_in = 0; null_in <= (sizes[k] == 0); ++null_in)
            for (int ctx = NULL_CTX; ctx <= HOST_CTX; ++ctx) {
              const int valid = ctx == HOST_CTX && t >= 0 && t <= 11 && op >= 0 && op <= 1;
              const arg_case c = {"every combination",
                                  ctx,
                                  t,
                                  op,
                                  null_in ? P_NULL : P_IN,
                                  with_value ? P_VALUE : P_NULL,
                                  P_INDEX,
                                  sizes[k],
                                  valid ? NO_DEVICE : INVALID};
              ++cases;
              if (!run_case(&c, why, sizeof why)) {
                if (failures < 20)
                  print_error("%s\n", why);
                ++failures;
              }
            }
  assert_int_equal(cuprim_last_cuda_error(), cudaSuccess);
  if (failures)
    fail_msg("%d of %ld combination(s) failed", failures, cases);
}

/* The enum values API.md pins. */
static void test_enum_values(void **state) {
  (void)state;
  assert_int_equal(CUPRIM_ARGMIN, 0);
  assert_int_equal(CUPRIM_ARGMAX, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_invalid_arguments),
      cmocka_unit_test(test_input_range_wraps),
      cmocka_unit_test(test_every_combination),
      cmocka_unit_test(test_enum_values),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
