/* core.h without a GPU: version, status strings, dtype sizes and names, op names, the last CUDA
 * error (per thread), and the context's argument checks. On a machine with a device the context
 * is also created for real. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common/check.h" /* cuprim__record_cuda_error: what every failing CUDA call goes through */
#include "test_util.h"

/* Must run first: nothing in this process has called into cuprim yet. */
TU_TEST(test_last_cuda_error_initially_success) {
  (void)state;
  assert_int_equal(cuprim_last_cuda_error(), cudaSuccess);
}

/* The version as three sources give it, which must agree: the header's separate macros, the
 * library (cuprim_version_number computes it, cuprim_version_string stringizes the parts: two
 * paths in status.c), and the CMake project (project(cuprim VERSION ...), which the installed
 * package and cuprim.pc carry). */
TU_TEST(test_version) {
  (void)state;
  /* The number encodes the parts only while the minor and patch versions stay below 100. */
  assert_in_range(CUPRIM_VERSION_MAJOR, 0, 42948);
  assert_in_range(CUPRIM_VERSION_MINOR, 0, 99);
  assert_in_range(CUPRIM_VERSION_PATCH, 0, 99);
  /* The header's number is its parts' encoding (whatever way it comes to be written), and it is a
   * preprocessor constant, for #if comparisons. */
  assert_int_equal(CUPRIM_VERSION_NUMBER, CUPRIM_VERSION_MAJOR * 10000 +
                                              CUPRIM_VERSION_MINOR * 100 + CUPRIM_VERSION_PATCH);
#if !(CUPRIM_VERSION_NUMBER >= 0)
#error "CUPRIM_VERSION_NUMBER is not usable in #if"
#endif
  /* The library linked in is the one these headers describe. */
  assert_int_equal(cuprim_version_number(), CUPRIM_VERSION_NUMBER);
  /* Its string is "MAJOR.MINOR.PATCH", decimal digits only, and parses back to the same parts
   * and the same number. */
  const char *s = cuprim_version_string();
  assert_non_null(s);
  assert_int_equal(strspn(s, "0123456789."), strlen(s));
  unsigned major = 0, minor = 0, patch = 0;
  int end = 0;
  assert_int_equal(sscanf(s, "%u.%u.%u%n", &major, &minor, &patch, &end), 3);
  assert_int_equal((size_t)end, strlen(s));
  assert_int_equal(major, CUPRIM_VERSION_MAJOR);
  assert_int_equal(minor, CUPRIM_VERSION_MINOR);
  assert_int_equal(patch, CUPRIM_VERSION_PATCH);
  assert_int_equal(cuprim_version_number(), major * 10000 + minor * 100 + patch);
  /* The build's project version (tests/CMakeLists.txt passes it) is the same. */
#ifdef CUPRIM_TEST_PROJECT_VERSION
  assert_string_equal(s, CUPRIM_TEST_PROJECT_VERSION);
#else
  print_message("CUPRIM_TEST_PROJECT_VERSION not defined: not compared with the CMake project\n");
#endif
}

TU_TEST(test_status_strings) {
  (void)state;
  const cuprim_status all[] = {CUPRIM_SUCCESS,           CUPRIM_ERROR_INVALID_ARGUMENT,
                               CUPRIM_ERROR_UNSUPPORTED, CUPRIM_ERROR_OUT_OF_MEMORY,
                               CUPRIM_ERROR_NO_DEVICE,   CUPRIM_ERROR_CUDA,
                               CUPRIM_ERROR_INTERNAL,    CUPRIM_ERROR_NCCL};
  const size_t count = sizeof all / sizeof all[0];
  /* Values are pinned (core.h: appended, never renumbered). */
  for (size_t i = 0; i < count; ++i)
    assert_int_equal((int)all[i], (int)i);
  for (size_t i = 0; i < count; ++i) {
    const char *s = cuprim_status_string(all[i]);
    assert_non_null(s);
    assert_true(strlen(s) > 0);
    for (size_t j = 0; j < i; ++j)
      if (strcmp(s, cuprim_status_string(all[j])) == 0)
        fail_msg("%s and %s share the string \"%s\"", tu_status_name(all[i]),
                 tu_status_name(all[j]), s);
  }
  const int unknown[] = {8, 999, -1, INT_MAX, INT_MIN};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; ++i) {
    const char *s = cuprim_status_string((cuprim_status)unknown[i]);
    assert_non_null(s);
    assert_string_equal(s, "unknown cuprim_status value");
  }
}

TU_TEST(test_dtype_size) {
  (void)state;
  const struct {
    cuprim_dtype t;
    size_t size;
  } want[] = {{CUPRIM_I8, 1},  {CUPRIM_U8, 1},  {CUPRIM_I16, 2}, {CUPRIM_U16, 2},
              {CUPRIM_I32, 4}, {CUPRIM_U32, 4}, {CUPRIM_I64, 8}, {CUPRIM_U64, 8},
              {CUPRIM_F32, 4}, {CUPRIM_F64, 8}, {CUPRIM_F16, 2}, {CUPRIM_BF16, 2}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i) {
    assert_int_equal((int)want[i].t, (int)i); /* values are pinned */
    assert_int_equal(cuprim_dtype_size(want[i].t), want[i].size);
  }
  const int invalid[] = {12, 13, 255, -1, INT_MAX, INT_MIN};
  for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; ++i)
    assert_int_equal(cuprim_dtype_size((cuprim_dtype)invalid[i]), 0);
}

/* The names against the test's own table (core.h documents them); NULL outside the enums. */
TU_TEST(test_names) {
  (void)state;
  static const char *const dtype_names[] = {"i8",  "u8",  "i16", "u16", "i32", "u32",
                                            "i64", "u64", "f32", "f64", "f16", "bf16"};
  static const char *const op_names[] = {"sum", "prod", "min", "max", "and", "or", "xor"};
  for (int t = 0; t < (int)(sizeof dtype_names / sizeof dtype_names[0]); ++t) {
    const char *got = cuprim_dtype_name((cuprim_dtype)t);
    if (!got || strcmp(got, dtype_names[t]) != 0)
      fail_msg("cuprim_dtype_name(%d) is %s, expected \"%s\"", t, got ? got : "NULL",
               dtype_names[t]);
  }
  for (int op = 0; op < (int)(sizeof op_names / sizeof op_names[0]); ++op) {
    const char *got = cuprim_op_name((cuprim_op)op);
    if (!got || strcmp(got, op_names[op]) != 0)
      fail_msg("cuprim_op_name(%d) is %s, expected \"%s\"", op, got ? got : "NULL", op_names[op]);
  }
  const int outside_dtypes[] = {12, 13, 255, -1, INT_MAX, INT_MIN};
  for (size_t i = 0; i < sizeof outside_dtypes / sizeof outside_dtypes[0]; ++i)
    assert_null(cuprim_dtype_name((cuprim_dtype)outside_dtypes[i]));
  const int outside_ops[] = {7, 8, 255, -1, INT_MAX, INT_MIN};
  for (size_t i = 0; i < sizeof outside_ops / sizeof outside_ops[0]; ++i)
    assert_null(cuprim_op_name((cuprim_op)outside_ops[i]));
}

TU_TEST(test_pinned_enums) {
  (void)state;
  assert_int_equal(CUPRIM_SUM, 0);
  assert_int_equal(CUPRIM_PROD, 1);
  assert_int_equal(CUPRIM_MIN, 2);
  assert_int_equal(CUPRIM_MAX, 3);
  assert_int_equal(CUPRIM_AND, 4);
  assert_int_equal(CUPRIM_OR, 5);
  assert_int_equal(CUPRIM_XOR, 6);
  assert_int_equal(CUPRIM_REDUCE_AUTO, 0);
  assert_int_equal(CUPRIM_REDUCE_GLOBAL_TREE, 1);
  assert_int_equal(CUPRIM_REDUCE_NEIGHBORED_DIVERGENT, 2);
  assert_int_equal(CUPRIM_REDUCE_NEIGHBORED_STRIDED, 3);
  assert_int_equal(CUPRIM_REDUCE_SEQUENTIAL, 4);
  assert_int_equal(CUPRIM_REDUCE_FIRST_ADD_ON_LOAD, 5);
  assert_int_equal(CUPRIM_REDUCE_UNROLLED, 6);
  assert_int_equal(CUPRIM_REDUCE_WARP_SHUFFLE, 7);
  assert_int_equal(CUPRIM_REDUCE_COARSENED, 8);
  assert_int_equal(CUPRIM_REDUCE_ATOMIC, 9);
}

static void *dummy_alloc(void *user, size_t bytes, cudaStream_t stream) {
  (void)user;
  (void)bytes;
  (void)stream;
  return NULL;
}
static void dummy_free(void *user, void *ptr, size_t bytes, cudaStream_t stream) {
  (void)user;
  (void)ptr;
  (void)bytes;
  (void)stream;
}

/* A pointer value the context must not be written over with on error. */
#define SENTINEL ((cuprim_ctx *)(uintptr_t)0x5E47111E)

TU_TEST(test_ctx_invalid_arguments) {
  (void)state;
  assert_int_equal(cuprim_ctx_create(NULL, 0, NULL), CUPRIM_ERROR_INVALID_ARGUMENT);
  assert_int_equal(cuprim_ctx_create(NULL, -1, NULL), CUPRIM_ERROR_INVALID_ARGUMENT);

  cuprim_ctx *ctx = SENTINEL;
  assert_int_equal(cuprim_ctx_create(&ctx, -1, NULL), CUPRIM_ERROR_INVALID_ARGUMENT);
  assert_ptr_equal(ctx, SENTINEL);
  assert_int_equal(cuprim_ctx_create(&ctx, INT_MIN, NULL), CUPRIM_ERROR_INVALID_ARGUMENT);
  assert_ptr_equal(ctx, SENTINEL);

  const cuprim_allocator no_alloc = {NULL, dummy_free, NULL};
  const cuprim_allocator no_free = {dummy_alloc, NULL, NULL};
  const cuprim_allocator neither = {NULL, NULL, NULL};
  assert_int_equal(cuprim_ctx_create(&ctx, 0, &no_alloc), CUPRIM_ERROR_INVALID_ARGUMENT);
  assert_int_equal(cuprim_ctx_create(&ctx, 0, &no_free), CUPRIM_ERROR_INVALID_ARGUMENT);
  assert_int_equal(cuprim_ctx_create(&ctx, 0, &neither), CUPRIM_ERROR_INVALID_ARGUMENT);
  assert_ptr_equal(ctx, SENTINEL);

  assert_int_equal(cuprim_ctx_destroy(NULL), CUPRIM_SUCCESS);
  /* None of these needed CUDA. */
  assert_int_equal(cuprim_last_cuda_error(), cudaSuccess);
}

/* Whether cuprim_ctx_create should find a device, as cudaGetDeviceCount says: 1 yes, 0 no (the
 * driver or device is missing: NO_DEVICE), -1 CUDA fails otherwise (NO_DEVICE or CUDA). */
static int expect_device(int *count, char *why, size_t len) {
  *count = 0;
  const cudaError_t e = cudaGetDeviceCount(count);
  (void)cudaGetLastError();
  if (e == cudaSuccess && *count > 0) {
    snprintf(why, len, "%d CUDA device(s)", *count);
    return 1;
  }
  if (e == cudaSuccess) {
    *count = 0;
    snprintf(why, len, "cudaGetDeviceCount reports no device");
    return 0;
  }
  *count = 0;
  snprintf(why, len, "cudaGetDeviceCount: %s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
  return (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) ? 0 : -1;
}

TU_TEST(test_ctx_create) {
  (void)state;
  int count;
  char why[256];
  const int expect = expect_device(&count, why, sizeof why);
  print_message("cuprim_ctx_create: %s\n", why);

  cuprim_ctx *ctx = SENTINEL;
  const cuprim_status s = cuprim_ctx_create(&ctx, 0, NULL);
  if (expect == 1) {
    if (s != CUPRIM_SUCCESS)
      fail_msg("cuprim_ctx_create(device 0): %s (%s), last CUDA error %s", tu_status_name(s),
               cuprim_status_string(s), cudaGetErrorName(cuprim_last_cuda_error()));
    assert_non_null(ctx);
    assert_ptr_not_equal(ctx, SENTINEL);
    assert_int_equal(cuprim_ctx_destroy(ctx), CUPRIM_SUCCESS);

    /* A user allocator is accepted (and not called by creation alone). */
    const cuprim_allocator a = {dummy_alloc, dummy_free, NULL};
    ctx = SENTINEL;
    assert_int_equal(cuprim_ctx_create(&ctx, 0, &a), CUPRIM_SUCCESS);
    assert_int_equal(cuprim_ctx_destroy(ctx), CUPRIM_SUCCESS);

    /* A device ordinal past the last one. */
    ctx = SENTINEL;
    assert_int_equal(cuprim_ctx_create(&ctx, count, NULL), CUPRIM_ERROR_INVALID_ARGUMENT);
    assert_ptr_equal(ctx, SENTINEL);
    assert_int_equal(cuprim_ctx_create(&ctx, INT_MAX, NULL), CUPRIM_ERROR_INVALID_ARGUMENT);
    assert_ptr_equal(ctx, SENTINEL);
    /* No CUDA error is left behind for the caller's next cudaGetLastError(). (Without a driver
     * the runtime reports its initialization error on every call, so this is checked here only.) */
    assert_int_equal(cudaGetLastError(), cudaSuccess);
  } else {
    if (expect == 0 && s != CUPRIM_ERROR_NO_DEVICE)
      fail_msg("without a device (%s): expected CUPRIM_ERROR_NO_DEVICE, got %s", why,
               tu_status_name(s));
    if (expect == -1 && s != CUPRIM_ERROR_NO_DEVICE && s != CUPRIM_ERROR_CUDA)
      fail_msg("with CUDA failing (%s): expected NO_DEVICE or CUDA, got %s", why,
               tu_status_name(s));
    assert_ptr_equal(ctx, SENTINEL);
    /* Out-of-range ordinals: either error, never success. */
    assert_int_not_equal(cuprim_ctx_create(&ctx, INT_MAX, NULL), CUPRIM_SUCCESS);
    assert_ptr_equal(ctx, SENTINEL);
  }
}

/* cuprim_last_cuda_error() is per thread. Thread A records an error; thread B, started after
 * that, must still read cudaSuccess, then records another error and reads its own; A must still
 * read the error it recorded, and the main thread what it read before. A global (or a slot shared
 * by the threads) fails each of these. Without a device, A's error comes as a user meets it:
 * cuprim_ctx_create records cudaGetDeviceCount's error. With one, A records through
 * cuprim__record_cuda_error, which every failing CUDA call in the library goes through. B always
 * does: without a GPU every CUDA call fails alike, and B's error must differ from A's. */
typedef struct last_errors {
  cudaError_t a_before, a_recorded, a_after;
  cudaError_t b_error, b_before, b_after;
  int b_started;
} last_errors;

static void *thread_b(void *arg) {
  last_errors *e = (last_errors *)arg;
  e->b_before = cuprim_last_cuda_error();
  (void)cuprim__record_cuda_error(e->b_error);
  e->b_after = cuprim_last_cuda_error();
  return NULL;
}

static void *thread_a(void *arg) {
  last_errors *e = (last_errors *)arg;
  e->a_before = cuprim_last_cuda_error();
  cuprim_ctx *ctx = NULL;
  if (cuprim_ctx_create(&ctx, 0, NULL) == CUPRIM_SUCCESS) {
    (void)cuprim_ctx_destroy(ctx);
    (void)cuprim__record_cuda_error(cudaErrorInvalidValue);
  }
  e->a_recorded = cuprim_last_cuda_error();
  e->b_error = e->a_recorded == cudaErrorMemoryAllocation ? cudaErrorInvalidValue
                                                          : cudaErrorMemoryAllocation;
  pthread_t b;
  e->b_started = pthread_create(&b, NULL, thread_b, e) == 0 && pthread_join(b, NULL) == 0;
  e->a_after = cuprim_last_cuda_error();
  return NULL;
}

TU_TEST(test_last_cuda_error_per_thread) {
  (void)state;
  const cudaError_t main_before = cuprim_last_cuda_error();
  last_errors e;
  memset(&e, 0, sizeof e);
  pthread_t a;
  assert_int_equal(pthread_create(&a, NULL, thread_a, &e), 0);
  assert_int_equal(pthread_join(a, NULL), 0);
  assert_true(e.b_started);
  print_message("thread A recorded %s, thread B %s; the main thread reads %s\n",
                cudaGetErrorName(e.a_recorded), cudaGetErrorName(e.b_after),
                cudaGetErrorName(cuprim_last_cuda_error()));
  assert_int_equal(e.a_before, cudaSuccess);       /* a new thread starts clean */
  assert_int_not_equal(e.a_recorded, cudaSuccess); /* A recorded an error */
  assert_int_equal(e.b_before, cudaSuccess);       /* B does not see A's */
  assert_int_equal(e.b_after, e.b_error);          /* B reads its own */
  assert_int_not_equal(e.b_error, e.a_recorded);
  assert_int_equal(e.a_after, e.a_recorded);               /* B's did not replace A's */
  assert_int_equal(cuprim_last_cuda_error(), main_before); /* nor did either touch main's */
}

TU_MAIN(NULL, NULL)
