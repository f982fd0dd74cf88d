/* Reduce's argument checking, with no GPU. The internal host-only context (bound to no device)
 * makes every call whose arguments are valid return CUPRIM_ERROR_NO_DEVICE at the point where it
 * would first touch CUDA, so each check below sees exactly what validation decided. Host buffers
 * stand in for device pointers; they are filled with a guard pattern and must come back untouched
 * (a call that fails validation, or stops at NO_DEVICE, writes nothing). */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "common/context.h" /* cuprim__ctx_create_host_only */
#include "test_reduce_ref.h"
#include "test_util.h"

#define GUARD 0xA5

/* Fake device memory: the output slot at byte 64, the input at byte 256 (at most 32 elements of
 * 8 bytes are ever "read", so it ends before byte 512). The output lies below the input, so even a
 * huge n keeps the two ranges apart. */
static _Alignas(64) unsigned char g_mem[1024];
#define OUT_OFFSET 64
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
  P_IN,        /* the input, 64-byte aligned */
  P_IN_B1,     /* input + 1 byte: misaligned for every dtype wider than a byte */
  P_IN_B4,     /* input + 4 bytes: aligned for 4-byte dtypes only */
  P_OUT,       /* the output slot */
  P_OUT_B1,    /* output + 1 byte */
  P_OUT_B4,    /* output + 4 bytes */
  P_IN_MID,    /* input + size * (n / 2): inside the input */
  P_IN_LAST,   /* input + size * (n - 1): the input's last element */
  P_IN_END,    /* input + size * n: just past the input (no overlap) */
  P_IN_BEFORE, /* input - size: just before the input (no overlap) */
} ptr_kind;

static void *pointer(ptr_kind k, cuprim_dtype t, uint64_t n) {
  size_t size = cuprim_dtype_size(t);
  if (size == 0)
    size = 1; /* invalid dtypes: any placement */
  unsigned char *in = g_mem + IN_OFFSET, *out = g_mem + OUT_OFFSET;
  switch (k) {
  case P_NULL:
    return NULL;
  case P_IN:
    return in;
  case P_IN_B1:
    return in + 1;
  case P_IN_B4:
    return in + 4;
  case P_OUT:
    return out;
  case P_OUT_B1:
    return out + 1;
  case P_OUT_B4:
    return out + 4;
  case P_IN_MID:
    return in + size * (n / 2);
  case P_IN_LAST:
    return in + size * (n - 1);
  case P_IN_END:
    return in + size * n;
  case P_IN_BEFORE:
    return in - size;
  }
  return NULL;
}

enum { NULL_CTX = 0, HOST_CTX = 1 };
#define INVALID CUPRIM_ERROR_INVALID_ARGUMENT
#define UNSUPPORTED CUPRIM_ERROR_UNSUPPORTED
#define NO_DEVICE CUPRIM_ERROR_NO_DEVICE

typedef struct api_case {
  const char *what;
  int ctx;
  int alg; /* int: out-of-range values on purpose */
  int dtype;
  int op;
  ptr_kind in, out;
  uint64_t n;
  cuprim_status expect;
} api_case;

/* Runs one call on guarded fake memory; on a mismatch returns 0 with a message. */
static int run_case(const api_case *c, int use_shorthand, char *why, size_t len) {
  memset(g_mem, GUARD, sizeof g_mem);
  cuprim_ctx *ctx = c->ctx == HOST_CTX ? g_ctx : NULL;
  const void *in = pointer(c->in, (cuprim_dtype)c->dtype, c->n);
  void *out = pointer(c->out, (cuprim_dtype)c->dtype, c->n);
  const cuprim_status s =
      use_shorthand ? cuprim_reduce(ctx, in, out, c->n, (cuprim_dtype)c->dtype, (cuprim_op)c->op, 0)
                    : cuprim_reduce_ex(ctx, (cuprim_reduce_alg)c->alg, in, out, c->n,
                                       (cuprim_dtype)c->dtype, (cuprim_op)c->op, 0);
  const char *fn = use_shorthand ? "cuprim_reduce" : "cuprim_reduce_ex";
  if (s != c->expect) {
    snprintf(why, len, "%s: %s: alg %d dtype %s op %s n %llu: expected %s, got %s", fn, c->what,
             c->alg, tu_dtype_name((cuprim_dtype)c->dtype), tu_op_name((cuprim_op)c->op),
             (unsigned long long)c->n, tu_status_name(c->expect), tu_status_name(s));
    return 0;
  }
  const size_t bad = tu_pattern_mismatch(g_mem, sizeof g_mem, GUARD);
  if (bad != sizeof g_mem) {
    snprintf(why, len, "%s: %s: returned %s but wrote fake device memory at byte %zu", fn, c->what,
             tu_status_name(s), bad);
    return 0;
  }
  return 1;
}

static void run_table(const api_case *cases, size_t count) {
  int failures = 0;
  char why[512];
  for (size_t i = 0; i < count; ++i) {
    if (!run_case(&cases[i], 0, why, sizeof why)) {
      print_error("%s\n", why);
      ++failures;
    }
    if (cases[i].alg == CUPRIM_REDUCE_AUTO && !run_case(&cases[i], 1, why, sizeof why)) {
      print_error("%s\n", why);
      ++failures;
    }
  }
  assert_int_equal(cuprim_last_cuda_error(), cudaSuccess); /* nothing reached CUDA */
  if (failures)
    fail_msg("%d argument-checking case(s) failed", failures);
}

#define AUTO CUPRIM_REDUCE_AUTO
#define TREE CUPRIM_REDUCE_GLOBAL_TREE
#define ATOMIC CUPRIM_REDUCE_ATOMIC

static void test_invalid_arguments(void **state) {
  (void)state;
  const api_case cases[] = {
      {"valid baseline", HOST_CTX, AUTO, CUPRIM_F32, CUPRIM_SUM, P_IN, P_OUT, 10, NO_DEVICE},
      {"valid baseline, ladder", HOST_CTX, ATOMIC, CUPRIM_I64, CUPRIM_XOR, P_IN, P_OUT, 10,
       NO_DEVICE},
      /* NULL context: always INVALID, whatever else is wrong or unsupported */
      {"NULL ctx", NULL_CTX, AUTO, CUPRIM_F32, CUPRIM_SUM, P_IN, P_OUT, 10, INVALID},
      {"NULL ctx, n 0", NULL_CTX, AUTO, CUPRIM_F32, CUPRIM_SUM, P_NULL, P_OUT, 0, INVALID},
      {"NULL ctx, everything bad", NULL_CTX, 10, 10, 7, P_NULL, P_NULL, 5, INVALID},
      {"NULL ctx, unsupported dtype", NULL_CTX, AUTO, CUPRIM_I8, CUPRIM_SUM, P_IN, P_OUT, 4,
       INVALID},
      {"NULL ctx, XOR on F32", NULL_CTX, TREE, CUPRIM_F32, CUPRIM_XOR, P_IN, P_OUT, 4, INVALID},
      /* algorithm out of range */
      {"alg 10", HOST_CTX, 10, CUPRIM_I32, CUPRIM_SUM, P_IN, P_OUT, 10, INVALID},
      {"alg -1", HOST_CTX, -1, CUPRIM_I32, CUPRIM_SUM, P_IN, P_OUT, 10, INVALID},
      {"alg INT_MAX", HOST_CTX, INT_MAX, CUPRIM_I32, CUPRIM_SUM, P_IN, P_OUT, 10, INVALID},
      {"alg 10, n 0", HOST_CTX, 10, CUPRIM_I32, CUPRIM_SUM, P_NULL, P_OUT, 0, INVALID},
      /* dtype out of range */
      {"dtype 12", HOST_CTX, AUTO, 12, CUPRIM_SUM, P_IN, P_OUT, 10, INVALID},
      {"dtype -1", HOST_CTX, AUTO, -1, CUPRIM_SUM, P_IN, P_OUT, 10, INVALID},
      {"dtype INT_MIN", HOST_CTX, TREE, INT_MIN, CUPRIM_MAX, P_IN, P_OUT, 10, INVALID},
      {"dtype 12, n 0", HOST_CTX, AUTO, 12, CUPRIM_SUM, P_NULL, P_OUT, 0, INVALID},
      /* op out of range */
      {"op 7", HOST_CTX, AUTO, CUPRIM_U32, 7, P_IN, P_OUT, 10, INVALID},
      {"op -1", HOST_CTX, AUTO, CUPRIM_U32, -1, P_IN, P_OUT, 10, INVALID},
      {"op 7 on F64", HOST_CTX, ATOMIC, CUPRIM_F64, 7, P_IN, P_OUT, 10, INVALID},
      /* NULL output: INVALID even when n == 0 (the identity must be written) */
      {"NULL d_out", HOST_CTX, AUTO, CUPRIM_F32, CUPRIM_SUM, P_IN, P_NULL, 10, INVALID},
      {"NULL d_out, n 0", HOST_CTX, AUTO, CUPRIM_F32, CUPRIM_SUM, P_IN, P_NULL, 0, INVALID},
      {"NULL d_out and d_in, n 0", HOST_CTX, TREE, CUPRIM_I32, CUPRIM_MIN, P_NULL, P_NULL, 0,
       INVALID},
      /* NULL input: INVALID with n > 0, allowed with n == 0 */
      {"NULL d_in, n 1", HOST_CTX, AUTO, CUPRIM_F32, CUPRIM_SUM, P_NULL, P_OUT, 1, INVALID},
      {"NULL d_in, n 10", HOST_CTX, ATOMIC, CUPRIM_U64, CUPRIM_AND, P_NULL, P_OUT, 10, INVALID},
      {"NULL d_in, n 0", HOST_CTX, AUTO, CUPRIM_F32, CUPRIM_SUM, P_NULL, P_OUT, 0, NO_DEVICE},
      {"NULL d_in, n 0, ladder", HOST_CTX, TREE, CUPRIM_I64, CUPRIM_PROD, P_NULL, P_OUT, 0,
       NO_DEVICE},
      /* pointers need element alignment, nothing more */
      {"d_out + 1 byte, F32", HOST_CTX, AUTO, CUPRIM_F32, CUPRIM_SUM, P_IN, P_OUT_B1, 10, INVALID},
      {"d_out + 4 bytes, F64", HOST_CTX, AUTO, CUPRIM_F64, CUPRIM_SUM, P_IN, P_OUT_B4, 10, INVALID},
      {"d_out + 4 bytes, U64, n 0", HOST_CTX, AUTO, CUPRIM_U64, CUPRIM_OR, P_NULL, P_OUT_B4, 0,
       INVALID},
      {"d_out + 4 bytes, I32 (aligned)", HOST_CTX, AUTO, CUPRIM_I32, CUPRIM_SUM, P_IN, P_OUT_B4, 10,
       NO_DEVICE},
      {"d_in + 1 byte, F32", HOST_CTX, AUTO, CUPRIM_F32, CUPRIM_SUM, P_IN_B1, P_OUT, 10, INVALID},
      {"d_in + 1 byte, I32, ladder", HOST_CTX, ATOMIC, CUPRIM_I32, CUPRIM_MAX, P_IN_B1, P_OUT, 10,
       INVALID},
      {"d_in + 4 bytes, U64", HOST_CTX, AUTO, CUPRIM_U64, CUPRIM_SUM, P_IN_B4, P_OUT, 10, INVALID},
      {"d_in + 4 bytes, U32 (aligned, not 16-byte)", HOST_CTX, AUTO, CUPRIM_U32, CUPRIM_SUM,
       P_IN_B4, P_OUT, 10, NO_DEVICE},
      {"d_in + 4 bytes, F32 (aligned, not 16-byte), ladder", HOST_CTX, TREE, CUPRIM_F32, CUPRIM_MIN,
       P_IN_B4, P_OUT, 10, NO_DEVICE},
      /* d_out must not lie inside [d_in, d_in + n) */
      {"d_out == d_in", HOST_CTX, AUTO, CUPRIM_F32, CUPRIM_SUM, P_IN, P_IN, 10, INVALID},
      {"d_out == d_in, n 1", HOST_CTX, AUTO, CUPRIM_I32, CUPRIM_SUM, P_IN, P_IN, 1, INVALID},
      {"d_out in the middle of d_in", HOST_CTX, AUTO, CUPRIM_F64, CUPRIM_MAX, P_IN, P_IN_MID, 10,
       INVALID},
      {"d_out on d_in's last element", HOST_CTX, TREE, CUPRIM_U32, CUPRIM_SUM, P_IN, P_IN_LAST, 10,
       INVALID},
      {"d_out just past d_in", HOST_CTX, AUTO, CUPRIM_U32, CUPRIM_SUM, P_IN, P_IN_END, 10,
       NO_DEVICE},
      {"d_out just before d_in", HOST_CTX, AUTO, CUPRIM_I64, CUPRIM_SUM, P_IN, P_IN_BEFORE, 10,
       NO_DEVICE},
      {"d_out == d_in, n 0 (no range)", HOST_CTX, AUTO, CUPRIM_I64, CUPRIM_SUM, P_IN, P_IN, 0,
       NO_DEVICE},
      /* unsupported combinations of valid enums */
      {"I8", HOST_CTX, AUTO, CUPRIM_I8, CUPRIM_SUM, P_IN, P_OUT, 10, UNSUPPORTED},
      {"U8", HOST_CTX, AUTO, CUPRIM_U8, CUPRIM_MAX, P_IN, P_OUT, 10, UNSUPPORTED},
      {"I16", HOST_CTX, TREE, CUPRIM_I16, CUPRIM_SUM, P_IN, P_OUT, 10, UNSUPPORTED},
      {"U16", HOST_CTX, ATOMIC, CUPRIM_U16, CUPRIM_XOR, P_IN, P_OUT, 10, UNSUPPORTED},
      {"I8, n 0", HOST_CTX, AUTO, CUPRIM_I8, CUPRIM_SUM, P_NULL, P_OUT, 0, UNSUPPORTED},
      {"AND on F32", HOST_CTX, AUTO, CUPRIM_F32, CUPRIM_AND, P_IN, P_OUT, 10, UNSUPPORTED},
      {"OR on F32", HOST_CTX, AUTO, CUPRIM_F32, CUPRIM_OR, P_IN, P_OUT, 10, UNSUPPORTED},
      {"XOR on F32", HOST_CTX, TREE, CUPRIM_F32, CUPRIM_XOR, P_IN, P_OUT, 10, UNSUPPORTED},
      {"AND on F64", HOST_CTX, ATOMIC, CUPRIM_F64, CUPRIM_AND, P_IN, P_OUT, 10, UNSUPPORTED},
      {"OR on F64", HOST_CTX, AUTO, CUPRIM_F64, CUPRIM_OR, P_IN, P_OUT, 10, UNSUPPORTED},
      {"XOR on F64, n 0", HOST_CTX, AUTO, CUPRIM_F64, CUPRIM_XOR, P_NULL, P_OUT, 0, UNSUPPORTED},
      /* INVALID is decided before UNSUPPORTED */
      {"I8 with NULL d_out", HOST_CTX, AUTO, CUPRIM_I8, CUPRIM_SUM, P_IN, P_NULL, 10, INVALID},
      {"I8 with alg 10", HOST_CTX, 10, CUPRIM_I8, CUPRIM_SUM, P_IN, P_OUT, 10, INVALID},
      {"U16 with op 9", HOST_CTX, AUTO, CUPRIM_U16, 9, P_IN, P_OUT, 10, INVALID},
      {"I16 with d_in + 1 byte", HOST_CTX, AUTO, CUPRIM_I16, CUPRIM_SUM, P_IN_B1, P_OUT, 10,
       INVALID},
      {"U16 with NULL d_in, n 3", HOST_CTX, AUTO, CUPRIM_U16, CUPRIM_MIN, P_NULL, P_OUT, 3,
       INVALID},
      {"XOR on F32 with d_out + 1 byte", HOST_CTX, AUTO, CUPRIM_F32, CUPRIM_XOR, P_IN, P_OUT_B1, 10,
       INVALID},
      {"AND on F64 with d_out inside d_in", HOST_CTX, TREE, CUPRIM_F64, CUPRIM_AND, P_IN, P_IN_MID,
       10, INVALID},
      {"I8 with d_out inside d_in", HOST_CTX, AUTO, CUPRIM_I8, CUPRIM_SUM, P_IN, P_IN_MID, 10,
       INVALID},
      /* sizes: past 2^32 elements is valid; sizes whose byte count overflows are not */
      {"n 2^33 (valid)", HOST_CTX, AUTO, CUPRIM_F32, CUPRIM_SUM, P_IN, P_OUT, 1ull << 33,
       NO_DEVICE},
      {"n 2^40, ladder (valid)", HOST_CTX, CUPRIM_REDUCE_COARSENED, CUPRIM_U64, CUPRIM_SUM, P_IN,
       P_OUT, 1ull << 40, NO_DEVICE},
      {"n UINT64_MAX", HOST_CTX, AUTO, CUPRIM_F32, CUPRIM_SUM, P_IN, P_OUT, UINT64_MAX, INVALID},
      {"n 2^62 of 8 bytes (byte count overflows)", HOST_CTX, AUTO, CUPRIM_F64, CUPRIM_SUM, P_IN,
       P_OUT, 1ull << 62, INVALID},
      {"n 2^63 of 4 bytes (byte count overflows)", HOST_CTX, ATOMIC, CUPRIM_U32, CUPRIM_SUM, P_IN,
       P_OUT, 1ull << 63, INVALID},
  };
  run_table(cases, sizeof cases / sizeof cases[0]);
}

/* An input range that runs past the end of the address space. */
static void test_input_range_wraps(void **state) {
  (void)state;
  const uintptr_t in = (uintptr_t)(g_mem + IN_OFFSET);
  const uint64_t n = (uint64_t)((UINTPTR_MAX - in) / 4 + 1); /* in + 4n > UINTPTR_MAX */
  const api_case cases[] = {
      {"d_in + n * size wraps", HOST_CTX, AUTO, CUPRIM_F32, CUPRIM_SUM, P_IN, P_OUT, n, INVALID},
      {"d_in + (n - 1) * size does not", HOST_CTX, AUTO, CUPRIM_F32, CUPRIM_SUM, P_IN, P_OUT, n - 1,
       NO_DEVICE},
  };
  run_table(cases, sizeof cases / sizeof cases[0]);
}

/* Every (alg, dtype, op) in range, with valid pointers: NO_DEVICE where reduce takes the pair,
 * UNSUPPORTED where it does not; INVALID with a NULL context or an out-of-range algorithm. */
static void test_every_combination(void **state) {
  (void)state;
  const uint64_t sizes[] = {0, 1, 33, 5000};
  int failures = 0;
  char why[512];
  for (int alg = -1; alg <= 10; ++alg)
    for (int t = 0; t < 12; ++t)
      for (int op = 0; op < 7; ++op)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k)
          for (int null_in = 0; null_in <= (sizes[k] == 0); ++null_in)
            for (int ctx = NULL_CTX; ctx <= HOST_CTX; ++ctx) {
              const int supported = (t >= CUPRIM_I32 && t <= CUPRIM_U64) ||
                                    (t >= CUPRIM_F32 && op <= CUPRIM_MAX); /* F32 F64 F16 BF16 */
              cuprim_status expect = supported ? NO_DEVICE : UNSUPPORTED;
              if (ctx == NULL_CTX || alg < 0 || alg > 9)
                expect = INVALID;
              const api_case c = {"every combination",     ctx,   alg,      t,     op,
                                  null_in ? P_NULL : P_IN, P_OUT, sizes[k], expect};
              if (!run_case(&c, 0, why, sizeof why)) {
                if (failures < 20)
                  print_error("%s\n", why);
                ++failures;
              }
              if (alg == CUPRIM_REDUCE_AUTO && !run_case(&c, 1, why, sizeof why)) {
                if (failures < 20)
                  print_error("%s\n", why);
                ++failures;
              }
            }
  assert_int_equal(cuprim_last_cuda_error(), cudaSuccess);
  if (failures)
    fail_msg("%d combination(s) failed", failures);
}

/* The host-only context itself. */
static void test_host_only_context(void **state) {
  (void)state;
  assert_int_equal(cuprim__ctx_create_host_only(NULL), CUPRIM_ERROR_INVALID_ARGUMENT);
  cuprim_ctx *c = NULL;
  assert_int_equal(cuprim__ctx_create_host_only(&c), CUPRIM_SUCCESS);
  assert_non_null(c);
  assert_int_equal(cuprim_ctx_destroy(c), CUPRIM_SUCCESS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_invalid_arguments), cmocka_unit_test(test_input_range_wraps),
      cmocka_unit_test(test_every_combination),
      cmocka_unit_test(test_host_only_context),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
