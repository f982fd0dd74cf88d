/* The NCCL component's calls with no GPU: argument checks, the NCCL error record, the status
 * string.
 *
 * The argument checks of cuprim_nccl_reduce, _scan and _histogram_even repeat those of the local
 * calls (src/nccl/nccl.cu), so they are compared with them over every combination of a set of
 * pointers, sizes, dtypes, ops, kinds, bin counts and ranges: the NCCL call must return what the
 * local call returns, except that a NULL communicator is refused first and that a valid scan of
 * n == 0 still takes part in the collective (the local one returns at once). The internal
 * host-only context makes every call with valid arguments return CUPRIM_ERROR_NO_DEVICE where it
 * would first touch CUDA, before the communicator is touched, so a made-up communicator pointer
 * stands in for one. Host buffers stand in for device memory, filled with a guard pattern that
 * must come back untouched. Needs NCCL's library to run (the component links it), not a GPU. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "nccl/nccl_internal.h" /* cuprim__nccl_record_error */
#include "test_fixture_api.h"

/* Never dereferenced: every call below stops before it touches the communicator. */
static ncclComm_t const g_comm = (ncclComm_t)(uintptr_t)0x1000;

/* Inputs: NULL, aligned, misaligned for wide dtypes, far away, at the top of the address space.
 * Outputs: those, misplaced by 1, 4 and 8 bytes, and placed inside, against and just clear of
 * the input. */
static const ta_ptr inputs[] = {TA_NULL, TA_IN, TA_IN_B1, TA_IN_B4, TA_FAR_IN, TA_TOP};
static const ta_ptr outputs[] = {TA_NULL,     TA_OUT,        TA_OUT_B1,    TA_OUT_B4,
                                 TA_OUT_B8,   TA_IN,         TA_IN_PLUS1,  TA_IN_MID,
                                 TA_IN_LAST,  TA_IN_END,     TA_IN_MINUS1, TA_IN_BEFORE,
                                 TA_IN_TOUCH, TA_FAR_IN_MID, TA_FAR_OUT,   TA_TOP};
#define NUM_INPUTS (sizeof inputs / sizeof inputs[0])
#define NUM_OUTPUTS (sizeof outputs / sizeof outputs[0])

static const uint64_t sizes[] = {0, 1, 16};
#define NUM_SIZES (sizeof sizes / sizeof sizes[0])
/* Dtypes: -1 to HR_NUM_DTYPES, every dtype and one outside the enum on either side. */
static const int ops[] = {0, 1, 2, 3, 4, 5, 6, 7, -1};
#define NUM_OPS (sizeof ops / sizeof ops[0])

/* The NCCL call (got) must return `want`; then the same call with a NULL communicator and with a
 * NULL context must return INVALID_ARGUMENT. Each leaves the fake memory untouched. */
static void record(ta_tally *t, const char *fn, const char *args, cuprim_status got,
                   cuprim_status want, cuprim_status no_comm, cuprim_status no_ctx) {
  ta_record_call(t, fn, "as the local call", got, want, "%s", args);
  ta_record_call(t, fn, "NULL comm", no_comm, CUPRIM_ERROR_INVALID_ARGUMENT, "%s", args);
  ta_record_call(t, fn, "NULL ctx", no_ctx, CUPRIM_ERROR_INVALID_ARGUMENT, "%s", args);
}

/* cuprim_nccl_reduce against cuprim_reduce. */
TU_TEST(test_reduce_checks) {
  (void)state;
  ta_tally t = {0, 0, 20};
  for (size_t pi = 0; pi < NUM_INPUTS; ++pi)
    for (size_t po = 0; po < NUM_OUTPUTS; ++po)
      for (size_t s = 0; s < NUM_SIZES; ++s)
        for (int d = -1; d <= HR_NUM_DTYPES; ++d)
          for (size_t o = 0; o < NUM_OPS; ++o) {
            const uint64_t n = sizes[s];
            const cuprim_dtype dt = (cuprim_dtype)d;
            const cuprim_op op = (cuprim_op)ops[o];
            const size_t size = cuprim_dtype_size(dt);
            const ta_shape shape = {size, n, size, 1};
            const void *in = ta_pointer(inputs[pi], &shape);
            void *out = ta_pointer(outputs[po], &shape);
            char args[128];
            snprintf(args, sizeof args, "in %d, out %d, n %llu, dtype %d, op %d", (int)inputs[pi],
                     (int)outputs[po], (unsigned long long)n, d, ops[o]);
            ta_poison();
            const cuprim_status want = cuprim_reduce(ta_ctx, in, out, n, dt, op, NULL);
            ta_poison();
            const cuprim_status got = cuprim_nccl_reduce(ta_ctx, g_comm, in, out, n, dt, op, NULL);
            const cuprim_status no_comm =
                cuprim_nccl_reduce(ta_ctx, NULL, in, out, n, dt, op, NULL);
            const cuprim_status no_ctx = cuprim_nccl_reduce(NULL, g_comm, in, out, n, dt, op, NULL);
            record(&t, "cuprim_nccl_reduce", args, got, want, no_comm, no_ctx);
          }
  assert_int_equal(cuprim_nccl_last_error(), ncclSuccess); /* nothing reached NCCL */
  ta_finish(&t, "cuprim_nccl_reduce checks");
}

/* cuprim_nccl_scan against cuprim_scan. A valid local scan of n == 0 returns SUCCESS at once; the
 * NCCL one goes on to take part in the collective (here: NO_DEVICE, from the host-only context). */
TU_TEST(test_scan_checks) {
  (void)state;
  ta_tally t = {0, 0, 20};
  const int kinds[] = {0, 1, 2, -1};
  for (size_t pi = 0; pi < NUM_INPUTS; ++pi)
    for (size_t po = 0; po < NUM_OUTPUTS; ++po)
      for (size_t s = 0; s < NUM_SIZES; ++s)
        for (int d = -1; d <= HR_NUM_DTYPES; ++d)
          for (size_t o = 0; o < NUM_OPS; ++o)
            for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
              const uint64_t n = sizes[s];
              const cuprim_dtype dt = (cuprim_dtype)d;
              const cuprim_op op = (cuprim_op)ops[o];
              const cuprim_scan_kind kind = (cuprim_scan_kind)kinds[k];
              const size_t size = cuprim_dtype_size(dt);
              const ta_shape shape = {size, n, size, n};
              const void *in = ta_pointer(inputs[pi], &shape);
              void *out = ta_pointer(outputs[po], &shape); /* TA_IN: in place */
              char args[128];
              snprintf(args, sizeof args, "in %d, out %d, n %llu, dtype %d, op %d, kind %d",
                       (int)inputs[pi], (int)outputs[po], (unsigned long long)n, d, ops[o],
                       kinds[k]);
              ta_poison();
              cuprim_status want = cuprim_scan(ta_ctx, in, out, n, dt, op, kind, NULL);
              if (want == CUPRIM_SUCCESS)
                want = CUPRIM_ERROR_NO_DEVICE;
              ta_poison();
              const cuprim_status got =
                  cuprim_nccl_scan(ta_ctx, g_comm, in, out, n, dt, op, kind, NULL);
              const cuprim_status no_comm =
                  cuprim_nccl_scan(ta_ctx, NULL, in, out, n, dt, op, kind, NULL);
              const cuprim_status no_ctx =
                  cuprim_nccl_scan(NULL, g_comm, in, out, n, dt, op, kind, NULL);
              record(&t, "cuprim_nccl_scan", args, got, want, no_comm, no_ctx);
            }
  assert_int_equal(cuprim_nccl_last_error(), ncclSuccess);
  ta_finish(&t, "cuprim_nccl_scan checks");
}

/* cuprim_nccl_histogram_even against cuprim_histogram_even, over samples, counts, sizes, dtypes,
 * bin counts and ranges (valid, reversed, empty, NaN, infinite, and scales that overflow to
 * infinity or are not positive). */
TU_TEST(test_histogram_checks) {
  (void)state;
  ta_tally t = {0, 0, 20};
  const uint32_t bins[] = {0, 1, 7, 64};
  const struct {
    double lower, upper;
  } ranges[] = {{0.0, 1.0},      {-5.5, 1e9},   {1.0, 0.0},     {2.0, 2.0},
                {NAN, 1.0},      {0.0, NAN},    {-INFINITY, 0}, {0.0, INFINITY},
                {-1e308, 1e308}, {0.0, 1e-320}, {-1.0, -0.5},   {1e15, 1e15 + 1}};
  for (size_t pi = 0; pi < NUM_INPUTS; ++pi)
    for (size_t po = 0; po < NUM_OUTPUTS; ++po)
      for (size_t s = 0; s < NUM_SIZES; ++s)
        for (int d = -1; d <= HR_NUM_DTYPES; ++d)
          for (size_t b = 0; b < sizeof bins / sizeof bins[0]; ++b)
            for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; ++r) {
              const uint64_t n = sizes[s];
              const cuprim_dtype dt = (cuprim_dtype)d;
              const ta_shape shape = {cuprim_dtype_size(dt), n, 8, bins[b] ? bins[b] : 1};
              const void *samples = ta_pointer(inputs[pi], &shape);
              uint64_t *counts = (uint64_t *)ta_pointer(outputs[po], &shape);
              const double lo = ranges[r].lower, hi = ranges[r].upper;
              char args[160];
              snprintf(
                  args, sizeof args, "samples %d, counts %d, n %llu, dtype %d, bins %u, [%g, %g)",
                  (int)inputs[pi], (int)outputs[po], (unsigned long long)n, d, bins[b], lo, hi);
              ta_poison();
              const cuprim_status want =
                  cuprim_histogram_even(ta_ctx, samples, n, dt, counts, bins[b], lo, hi, NULL);
              ta_poison();
              const cuprim_status got = cuprim_nccl_histogram_even(ta_ctx, g_comm, samples, n, dt,
                                                                   counts, bins[b], lo, hi, NULL);
              const cuprim_status no_comm = cuprim_nccl_histogram_even(
                  ta_ctx, NULL, samples, n, dt, counts, bins[b], lo, hi, NULL);
              const cuprim_status no_ctx = cuprim_nccl_histogram_even(
                  NULL, g_comm, samples, n, dt, counts, bins[b], lo, hi, NULL);
              record(&t, "cuprim_nccl_histogram_even", args, got, want, no_comm, no_ctx);
            }
  assert_int_equal(cuprim_nccl_last_error(), ncclSuccess);
  ta_finish(&t, "cuprim_nccl_histogram_even checks");
}

/* A few cases spelled out, so that the cross-check above cannot agree with the local calls on a
 * wrong answer: what nccl.h says, case by case. */
TU_TEST(test_spelled_out) {
  (void)state;
  const ta_shape shape = {8, 16, 8, 16};
  unsigned char *in = (unsigned char *)ta_pointer(TA_IN, &shape);
  unsigned char *out = (unsigned char *)ta_pointer(TA_OUT, &shape);
  const cuprim_status N = CUPRIM_ERROR_NO_DEVICE, I = CUPRIM_ERROR_INVALID_ARGUMENT,
                      U = CUPRIM_ERROR_UNSUPPORTED;
  ta_poison();
  /* reduce */
  assert_int_equal(cuprim_nccl_reduce(ta_ctx, g_comm, in, out, 16, CUPRIM_F32, CUPRIM_SUM, 0), N);
  assert_int_equal(cuprim_nccl_reduce(ta_ctx, g_comm, NULL, out, 0, CUPRIM_I64, CUPRIM_XOR, 0), N);
  assert_int_equal(cuprim_nccl_reduce(ta_ctx, g_comm, in, NULL, 0, CUPRIM_I64, CUPRIM_XOR, 0), I);
  assert_int_equal(cuprim_nccl_reduce(ta_ctx, g_comm, NULL, out, 1, CUPRIM_I32, CUPRIM_SUM, 0), I);
  assert_int_equal(cuprim_nccl_reduce(ta_ctx, g_comm, in, in + 8, 16, CUPRIM_I32, CUPRIM_SUM, 0),
                   I); /* d_out inside the input */
  assert_int_equal(cuprim_nccl_reduce(ta_ctx, g_comm, in, out, 16, CUPRIM_F64, CUPRIM_AND, 0), U);
  assert_int_equal(cuprim_nccl_reduce(ta_ctx, g_comm, in, out, 16, CUPRIM_U8, CUPRIM_SUM, 0), U);
  assert_int_equal(cuprim_nccl_reduce(ta_ctx, NULL, in, out, 16, CUPRIM_U8, CUPRIM_SUM, 0), I);
  /* scan */
  assert_int_equal(
      cuprim_nccl_scan(ta_ctx, g_comm, in, in, 16, CUPRIM_U64, CUPRIM_MAX, CUPRIM_EXCLUSIVE, 0),
      N); /* in place */
  assert_int_equal(
      cuprim_nccl_scan(ta_ctx, g_comm, NULL, NULL, 0, CUPRIM_F32, CUPRIM_SUM, CUPRIM_INCLUSIVE, 0),
      N); /* an empty shard takes part */
  assert_int_equal(
      cuprim_nccl_scan(ta_ctx, g_comm, in, in + 4, 16, CUPRIM_U32, CUPRIM_SUM, CUPRIM_INCLUSIVE, 0),
      I);
  assert_int_equal(
      cuprim_nccl_scan(ta_ctx, g_comm, in, out, 16, CUPRIM_F32, CUPRIM_SUM, (cuprim_scan_kind)2, 0),
      I);
  assert_int_equal(
      cuprim_nccl_scan(ta_ctx, g_comm, in, out, 16, CUPRIM_F32, CUPRIM_OR, CUPRIM_INCLUSIVE, 0), U);
  /* histogram */
  uint64_t *counts = (uint64_t *)(void *)out;
  assert_int_equal(
      cuprim_nccl_histogram_even(ta_ctx, g_comm, in, 16, CUPRIM_U8, counts, 64, 0.0, 256.0, 0),
      N); /* the 64 counts end before the samples */
  assert_int_equal(
      cuprim_nccl_histogram_even(ta_ctx, g_comm, in, 16, CUPRIM_U8, counts, 256, 0.0, 256.0, 0),
      I); /* the 256 counts run into the samples */
  assert_int_equal(
      cuprim_nccl_histogram_even(ta_ctx, g_comm, NULL, 0, CUPRIM_F64, counts, 10, -1.0, 1.0, 0), N);
  assert_int_equal(
      cuprim_nccl_histogram_even(ta_ctx, g_comm, in, 16, CUPRIM_U8, counts, 0, 0.0, 256.0, 0), I);
  assert_int_equal(
      cuprim_nccl_histogram_even(ta_ctx, g_comm, in, 16, CUPRIM_U8, NULL, 4, 0.0, 256.0, 0), I);
  assert_int_equal(
      cuprim_nccl_histogram_even(ta_ctx, g_comm, in, 16, CUPRIM_U8, counts, 4, 1.0, 1.0, 0), I);
  assert_int_equal(
      cuprim_nccl_histogram_even(ta_ctx, g_comm, in, 16, (cuprim_dtype)12, counts, 4, 0.0, 1.0, 0),
      I);
  char why[256];
  if (!ta_check_call("the NCCL calls", "spelled out", "-", N, N, why, sizeof why))
    fail_msg("%s", why);
}

/* ---------------------------------------------------------------- the NCCL error record */

static void *other_thread(void *arg) {
  *(ncclResult_t *)arg = cuprim_nccl_last_error();
  return NULL;
}

/* CUPRIM_ERROR_NCCL comes with the ncclResult_t, kept per thread: recorded on one thread, another
 * thread still sees ncclSuccess; a later success leaves it. */
TU_TEST(test_last_error) {
  (void)state;
  assert_int_equal(cuprim_nccl_last_error(), ncclSuccess);
  assert_int_equal(cuprim__nccl_record_error(ncclUnhandledCudaError), CUPRIM_ERROR_NCCL);
  assert_int_equal(cuprim_nccl_last_error(), ncclUnhandledCudaError);
  ncclResult_t seen = ncclInternalError;
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, other_thread, &seen), 0);
  assert_int_equal(pthread_join(th, NULL), 0);
  assert_int_equal(seen, ncclSuccess);
  /* Calls that fail for other reasons leave it. */
  assert_int_equal(cuprim_nccl_reduce(NULL, g_comm, NULL, NULL, 0, CUPRIM_F32, CUPRIM_SUM, 0),
                   CUPRIM_ERROR_INVALID_ARGUMENT);
  assert_int_equal(cuprim_nccl_last_error(), ncclUnhandledCudaError);
  assert_int_equal(cuprim__nccl_record_error(ncclRemoteError), CUPRIM_ERROR_NCCL);
  assert_int_equal(cuprim_nccl_last_error(), ncclRemoteError);
  /* The status's string points at this function. */
  const char *s = cuprim_status_string(CUPRIM_ERROR_NCCL);
  assert_non_null(s);
  assert_non_null(strstr(s, "NCCL"));
  assert_non_null(strstr(s, "cuprim_nccl_last_error"));
}

TU_MAIN(ta_setup, ta_teardown)
