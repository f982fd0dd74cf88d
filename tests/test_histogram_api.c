/* Histogram's argument checking and cuprim_histogram_supported, with no GPU
 * (test_fixture_api.h), and a self-check of the histogram test reference.
 *
 * The internal host-only context (bound to no device) makes every call whose arguments are valid
 * return CUPRIM_ERROR_NO_DEVICE at the point where it would first touch CUDA, so each check below
 * sees exactly what validation decided. Unlike scan, a valid histogram call with n == 0 still has
 * work to do (it writes num_bins zeros), so it too stops at NO_DEVICE. Host buffers stand in for
 * device pointers; they are filled with a guard pattern and must come back untouched (a call that
 * fails validation or stops at NO_DEVICE writes nothing). Ranges too large for the host buffer use
 * addresses that no call ever dereferences here. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostref_histogram.h"
#include "test_fixture_api.h"

enum { EVEN = 0, RANGE = 1 };

typedef struct api_case {
  const char *what;
  int fn; /* EVEN: cuprim_histogram_even_ex (and cuprim_histogram_even when alg is AUTO);
             RANGE: cuprim_histogram_range_ex (and cuprim_histogram_range when alg is AUTO;
             lower and upper unused) */
  int ctx;
  int alg; /* int: out-of-range values on purpose */
  int dtype;
  ta_ptr samples, counts, edges;
  uint64_t n;
  uint32_t num_bins;
  double lower, upper;
  cuprim_status expect;
} api_case;

static const char *fn_name(const api_case *c, int shorthand) {
  if (c->fn == RANGE)
    return shorthand ? "cuprim_histogram_range" : "cuprim_histogram_range_ex";
  return shorthand ? "cuprim_histogram_even" : "cuprim_histogram_even_ex";
}

/* Makes one call on the (poisoned) fake memory; on a mismatch returns 0 with a message. */
static int run_case(const void *p, int shorthand, char *why, size_t len) {
  const api_case *c = (const api_case *)p;
  cuprim_ctx *ctx = ta_context(c->ctx);
  const cuprim_dtype t = (cuprim_dtype)c->dtype;
  const ta_shape shape = {cuprim_dtype_size(t), c->n, sizeof(uint64_t), c->num_bins};
  const void *samples = ta_pointer(c->samples, &shape);
  uint64_t *counts = (uint64_t *)ta_pointer(c->counts, &shape);
  const double *edges = (const double *)ta_pointer(c->edges, &shape);
  const cuprim_histogram_alg alg = (cuprim_histogram_alg)c->alg;
  cuprim_status s;
  if (c->fn == RANGE && shorthand)
    s = cuprim_histogram_range(ctx, samples, c->n, t, counts, c->num_bins, edges, 0);
  else if (c->fn == RANGE)
    s = cuprim_histogram_range_ex(ctx, alg, samples, c->n, t, counts, c->num_bins, edges, 0);
  else if (shorthand)
    s = cuprim_histogram_even(ctx, samples, c->n, t, counts, c->num_bins, c->lower, c->upper, 0);
  else
    s = cuprim_histogram_even_ex(ctx, alg, samples, c->n, t, counts, c->num_bins, c->lower,
                                 c->upper, 0);
  return ta_check_callf(fn_name(c, shorthand), c->what, s, c->expect, why, len,
                        "alg %d dtype %s n %llu num_bins %lu range [%.17g, %.17g)", c->alg,
                        hr_dtype_name(t), (unsigned long long)c->n, (unsigned long)c->num_bins,
                        c->lower, c->upper);
}

#define AUTO CUPRIM_HISTOGRAM_AUTO
#define GA CUPRIM_HISTOGRAM_GLOBAL_ATOMIC
#define BP CUPRIM_HISTOGRAM_BLOCK_PRIVATE
#define SR CUPRIM_HISTOGRAM_SORT_REDUCE_BY_KEY
#define INF ((double)INFINITY)
#define QNAN ((double)NAN)

/* even_ex / even: ctx, alg, dtype, samples, counts, n, bins, lower, upper */
#define EV(what, ctx, alg, t, s, c, n, nb, lo, hi, expect)                                         \
  { what, EVEN, ctx, alg, t, s, c, TA_NULL, n, nb, lo, hi, expect }
/* range (AUTO: range_ex and range): ctx, dtype, samples, counts, edges, n, bins */
#define RG(what, ctx, t, s, c, e, n, nb, expect)                                                   \
  { what, RANGE, ctx, AUTO, t, s, c, e, n, nb, 0.0, 0.0, expect }
/* range_ex with an algorithm */
#define RGX(what, alg, t, s, c, e, n, nb, expect)                                                  \
  { what, RANGE, HOST_CTX, alg, t, s, c, e, n, nb, 0.0, 0.0, expect }

TU_TEST(test_invalid_arguments_even) {
  (void)state;
  const api_case cases[] = {
      /* valid calls: validation passes, then the host-only context stops them */
      EV("valid baseline", HOST_CTX, AUTO, F32, TA_IN, TA_OUT, 10, 16, 0.0, 1.0, NO_DEVICE),
      EV("valid, GLOBAL_ATOMIC", HOST_CTX, GA, U8, TA_IN, TA_OUT, 10, 64, 0.0, 256.0, NO_DEVICE),
      EV("valid, BLOCK_PRIVATE", HOST_CTX, BP, I16, TA_IN, TA_OUT, 10, 7, -5.5, 3.25, NO_DEVICE),
      EV("valid, SORT_REDUCE_BY_KEY", HOST_CTX, SR, U64, TA_IN, TA_OUT, 10, 1, 0.0, 1e19,
         NO_DEVICE),
      EV("valid, I8", HOST_CTX, AUTO, I8, TA_IN, TA_OUT, 33, 64, -128.0, 128.0, NO_DEVICE),
      EV("valid, I64", HOST_CTX, AUTO, I64, TA_IN, TA_OUT, 10, 3, -1e18, 1e18, NO_DEVICE),
      EV("valid, F64", HOST_CTX, GA, F64, TA_IN, TA_OUT, 10, 2, -1.0, 1.0, NO_DEVICE),
      /* n == 0 still writes num_bins zeros: valid calls reach the device; NULL samples fine */
      EV("n 0, NULL samples", HOST_CTX, AUTO, F32, TA_NULL, TA_OUT, 0, 16, 0.0, 1.0, NO_DEVICE),
      EV("n 0, NULL samples, BLOCK_PRIVATE", HOST_CTX, BP, U16, TA_NULL, TA_OUT, 0, 3, 0.0, 1.0,
         NO_DEVICE),
      EV("n 0, samples given", HOST_CTX, SR, I32, TA_IN, TA_OUT, 0, 16, 0.0, 1.0, NO_DEVICE),
      EV("n 0, samples == counts (empty samples overlap nothing)", HOST_CTX, AUTO, U32, TA_OUT,
         TA_OUT, 0, 16, 0.0, 1.0, NO_DEVICE),
      /* NULL context: always INVALID, whatever else is wrong */
      EV("NULL ctx", NULL_CTX, AUTO, F32, TA_IN, TA_OUT, 10, 16, 0.0, 1.0, INVALID),
      EV("NULL ctx, n 0", NULL_CTX, AUTO, F32, TA_NULL, TA_OUT, 0, 16, 0.0, 1.0, INVALID),
      EV("NULL ctx, everything bad", NULL_CTX, 9, 10, TA_NULL, TA_NULL, 5, 0, QNAN, -INF, INVALID),
      /* NULL counts: INVALID even with n == 0 (zeros must be written) */
      EV("NULL d_counts", HOST_CTX, AUTO, F32, TA_IN, TA_NULL, 10, 16, 0.0, 1.0, INVALID),
      EV("NULL d_counts, n 0", HOST_CTX, AUTO, F32, TA_NULL, TA_NULL, 0, 16, 0.0, 1.0, INVALID),
      EV("NULL d_counts, n 0, samples given", HOST_CTX, GA, U8, TA_IN, TA_NULL, 0, 1, 0.0, 1.0,
         INVALID),
      /* NULL samples with n > 0 */
      EV("NULL d_samples, n 1", HOST_CTX, AUTO, F32, TA_NULL, TA_OUT, 1, 16, 0.0, 1.0, INVALID),
      EV("NULL d_samples, n 10", HOST_CTX, SR, I64, TA_NULL, TA_OUT, 10, 16, 0.0, 1.0, INVALID),
      /* num_bins 0 */
      EV("num_bins 0", HOST_CTX, AUTO, F32, TA_IN, TA_OUT, 10, 0, 0.0, 1.0, INVALID),
      EV("num_bins 0, n 0", HOST_CTX, BP, U8, TA_NULL, TA_OUT, 0, 0, 0.0, 1.0, INVALID),
      /* !(lower < upper) */
      EV("lower == upper", HOST_CTX, AUTO, F32, TA_IN, TA_OUT, 10, 16, 1.0, 1.0, INVALID),
      EV("lower > upper", HOST_CTX, AUTO, F64, TA_IN, TA_OUT, 10, 16, 2.0, 1.0, INVALID),
      EV("lower -0.0, upper +0.0 (equal)", HOST_CTX, GA, F64, TA_IN, TA_OUT, 10, 16, -0.0, 0.0,
         INVALID),
      EV("lower > upper, n 0", HOST_CTX, AUTO, U8, TA_NULL, TA_OUT, 0, 16, 256.0, 0.0, INVALID),
      /* not finite */
      EV("lower -inf", HOST_CTX, AUTO, F32, TA_IN, TA_OUT, 10, 16, -INF, 1.0, INVALID),
      EV("upper +inf", HOST_CTX, AUTO, F32, TA_IN, TA_OUT, 10, 16, 0.0, INF, INVALID),
      EV("lower -inf, upper +inf", HOST_CTX, BP, F64, TA_IN, TA_OUT, 10, 16, -INF, INF, INVALID),
      EV("lower +inf, upper +inf", HOST_CTX, AUTO, F64, TA_IN, TA_OUT, 10, 16, INF, INF, INVALID),
      EV("lower NaN", HOST_CTX, AUTO, F32, TA_IN, TA_OUT, 10, 16, QNAN, 1.0, INVALID),
      EV("upper NaN", HOST_CTX, SR, I32, TA_IN, TA_OUT, 10, 16, 0.0, QNAN, INVALID),
      EV("both NaN, n 0", HOST_CTX, AUTO, U8, TA_NULL, TA_OUT, 0, 16, QNAN, QNAN, INVALID),
      EV("upper -NaN", HOST_CTX, GA, F64, TA_IN, TA_OUT, 10, 16, 0.0, -QNAN, INVALID),
      /* the scale num_bins / (upper - lower) not finite */
      EV("UINT32_MAX bins over 1e-300", HOST_CTX, AUTO, F64, TA_IN, TA_FAR_OUT, 10, UINT32_MAX, 0.0,
         1e-300, INVALID),
      EV("1 bin over the smallest subnormal", HOST_CTX, AUTO, F64, TA_IN, TA_OUT, 10, 1, 0.0,
         4.9406564584124654e-324, INVALID),
      EV("64 bins over 1e-307 (scale 6.4e308)", HOST_CTX, BP, F32, TA_IN, TA_OUT, 10, 64, 0.0,
         1e-307, INVALID),
      EV("2 bins over one ulp (scale 2^53: finite), n 0", HOST_CTX, SR, F64, TA_NULL, TA_OUT, 0, 2,
         1.0, 1.0000000000000002, NO_DEVICE),
      EV("1 bin over 1e-300 (scale 1e300: finite)", HOST_CTX, AUTO, F64, TA_IN, TA_OUT, 10, 1, 0.0,
         1e-300, NO_DEVICE),
      EV("16 bins over 1e-307 (scale 1.6e308: finite)", HOST_CTX, GA, F64, TA_IN, TA_OUT, 10, 16,
         0.0, 1e-307, NO_DEVICE),
      EV("UINT32_MAX bins over [0, 1) (valid)", HOST_CTX, AUTO, F64, TA_IN, TA_FAR_OUT, 10,
         UINT32_MAX, 0.0, 1.0, NO_DEVICE),
      EV("huge finite range", HOST_CTX, AUTO, F64, TA_IN, TA_OUT, 10, 16, -1e300, 1e300, NO_DEVICE),
      /* algorithm out of range */
      EV("alg 4", HOST_CTX, 4, F32, TA_IN, TA_OUT, 10, 16, 0.0, 1.0, INVALID),
      EV("alg -1", HOST_CTX, -1, F32, TA_IN, TA_OUT, 10, 16, 0.0, 1.0, INVALID),
      EV("alg INT_MAX", HOST_CTX, INT_MAX, U8, TA_IN, TA_OUT, 10, 16, 0.0, 1.0, INVALID),
      EV("alg 4, n 0", HOST_CTX, 4, F32, TA_NULL, TA_OUT, 0, 16, 0.0, 1.0, INVALID),
      /* dtype out of range */
      EV("dtype 12", HOST_CTX, AUTO, 12, TA_IN, TA_OUT, 10, 16, 0.0, 1.0, INVALID),
      EV("dtype -1", HOST_CTX, AUTO, -1, TA_IN, TA_OUT, 10, 16, 0.0, 1.0, INVALID),
      EV("dtype INT_MIN", HOST_CTX, BP, INT_MIN, TA_IN, TA_OUT, 10, 16, 0.0, 1.0, INVALID),
      EV("dtype 12, n 0", HOST_CTX, AUTO, 12, TA_NULL, TA_OUT, 0, 16, 0.0, 1.0, INVALID),
      /* alignment: samples need element alignment, counts 8 bytes */
      EV("d_samples + 1 byte, U8 (aligned)", HOST_CTX, AUTO, U8, TA_IN_B1, TA_OUT, 10, 16, 0.0, 1.0,
         NO_DEVICE),
      EV("d_samples + 1 byte, I8 (aligned)", HOST_CTX, SR, I8, TA_IN_B1, TA_OUT, 10, 16, 0.0, 1.0,
         NO_DEVICE),
      EV("d_samples + 1 byte, I16", HOST_CTX, AUTO, I16, TA_IN_B1, TA_OUT, 10, 16, 0.0, 1.0,
         INVALID),
      EV("d_samples + 1 byte, F32", HOST_CTX, GA, F32, TA_IN_B1, TA_OUT, 10, 16, 0.0, 1.0, INVALID),
      EV("d_samples + 4 bytes, U32 (aligned)", HOST_CTX, AUTO, U32, TA_IN_B4, TA_OUT, 10, 16, 0.0,
         1.0, NO_DEVICE),
      EV("d_samples + 4 bytes, F64", HOST_CTX, AUTO, F64, TA_IN_B4, TA_OUT, 10, 16, 0.0, 1.0,
         INVALID),
      EV("d_samples + 4 bytes, I64", HOST_CTX, BP, I64, TA_IN_B4, TA_OUT, 10, 16, 0.0, 1.0,
         INVALID),
      EV("d_counts + 4 bytes", HOST_CTX, AUTO, U8, TA_IN, TA_OUT_B4, 10, 16, 0.0, 1.0, INVALID),
      EV("d_counts + 4 bytes, n 0", HOST_CTX, SR, F32, TA_NULL, TA_OUT_B4, 0, 16, 0.0, 1.0,
         INVALID),
      EV("d_counts + 8 bytes (aligned)", HOST_CTX, AUTO, U8, TA_IN, TA_OUT_B8, 10, 16, 0.0, 1.0,
         NO_DEVICE),
      /* overlap of samples and counts */
      EV("d_counts == d_samples", HOST_CTX, AUTO, U64, TA_IN, TA_IN, 10, 16, 0.0, 1.0, INVALID),
      EV("d_counts inside d_samples", HOST_CTX, AUTO, U8, TA_IN, TA_IN_MID, 32, 2, 0.0, 1.0,
         INVALID),
      EV("d_counts inside d_samples, GLOBAL_ATOMIC", HOST_CTX, GA, F64, TA_IN, TA_IN_MID, 10, 1,
         0.0, 1.0, INVALID),
      EV("d_counts just past d_samples", HOST_CTX, AUTO, U8, TA_IN, TA_IN_END, 32, 16, 0.0, 1.0,
         NO_DEVICE),
      EV("d_counts ending where d_samples begin", HOST_CTX, AUTO, F32, TA_IN, TA_IN_BEFORE, 10, 16,
         0.0, 1.0, NO_DEVICE),
      EV("d_counts' last bin on the first sample", HOST_CTX, BP, F32, TA_IN, TA_IN_TOUCH, 10, 16,
         0.0, 1.0, INVALID),
      EV("d_samples inside d_counts", HOST_CTX, AUTO, U8, TA_OUT_MID, TA_OUT, 4, 16, 0.0, 1.0,
         INVALID),
      EV("d_samples inside d_counts, SORT", HOST_CTX, SR, I16, TA_OUT_MID, TA_OUT, 2, 64, 0.0, 1.0,
         INVALID),
      /* sizes: past 2^32 samples and bins valid; byte counts that overflow or wrap are not */
      EV("n 2^33 (valid)", HOST_CTX, AUTO, U8, TA_FAR_IN, TA_FAR_OUT, 1ull << 33, 256, 0.0, 256.0,
         NO_DEVICE),
      EV("n 2^40 F64 (valid)", HOST_CTX, SR, F64, TA_FAR_IN, TA_FAR_OUT, 1ull << 40, 16, 0.0, 1.0,
         NO_DEVICE),
      EV("n 2^33, d_counts inside d_samples", HOST_CTX, AUTO, U8, TA_FAR_IN, TA_FAR_IN_MID,
         1ull << 33, 256, 0.0, 256.0, INVALID),
      EV("n UINT64_MAX", HOST_CTX, AUTO, U16, TA_FAR_IN, TA_FAR_OUT, UINT64_MAX, 16, 0.0, 1.0,
         INVALID),
      EV("n 2^62 of 8 bytes (byte count overflows)", HOST_CTX, AUTO, F64, TA_FAR_IN, TA_FAR_OUT,
         1ull << 62, 16, 0.0, 1.0, INVALID),
      EV("d_samples + n * size wraps", HOST_CTX, AUTO, F32, TA_TOP, TA_OUT, 2048, 16, 0.0, 1.0,
         INVALID),
      EV("d_samples near the top, no wrap", HOST_CTX, AUTO, F32, TA_TOP, TA_OUT, 1023, 16, 0.0, 1.0,
         NO_DEVICE),
      EV("d_counts + 8 * num_bins wraps", HOST_CTX, AUTO, U8, TA_IN, TA_TOP, 10, 1024, 0.0, 1.0,
         INVALID),
      EV("d_counts near the top, no wrap", HOST_CTX, BP, U8, TA_IN, TA_TOP, 10, 511, 0.0, 1.0,
         NO_DEVICE),
      /* several things wrong: still INVALID */
      EV("NULL counts and lower NaN", HOST_CTX, AUTO, F32, TA_IN, TA_NULL, 10, 16, QNAN, 1.0,
         INVALID),
      EV("alg 7 and num_bins 0", HOST_CTX, 7, F32, TA_IN, TA_OUT, 10, 0, 0.0, 1.0, INVALID),
  };
  TA_RUN_TABLE(cases, api_case, run_case);
}

TU_TEST(test_invalid_arguments_range) {
  (void)state;
  const api_case cases[] = {
      RG("valid baseline", HOST_CTX, F32, TA_IN, TA_OUT, TA_EDGES, 10, 16, NO_DEVICE),
      RG("valid, U8", HOST_CTX, U8, TA_IN, TA_OUT, TA_EDGES, 33, 64, NO_DEVICE),
      RG("valid, I64, 1 bin", HOST_CTX, I64, TA_IN, TA_OUT, TA_EDGES, 10, 1, NO_DEVICE),
      RG("n 0, NULL samples", HOST_CTX, F64, TA_NULL, TA_OUT, TA_EDGES, 0, 16, NO_DEVICE),
      RG("NULL ctx", NULL_CTX, F32, TA_IN, TA_OUT, TA_EDGES, 10, 16, INVALID),
      RG("NULL ctx, n 0", NULL_CTX, F32, TA_NULL, TA_OUT, TA_EDGES, 0, 16, INVALID),
      RG("NULL d_edges", HOST_CTX, F32, TA_IN, TA_OUT, TA_NULL, 10, 16, INVALID),
      RG("NULL d_edges, n 0", HOST_CTX, F32, TA_NULL, TA_OUT, TA_NULL, 0, 16, INVALID),
      RG("num_bins 0", HOST_CTX, F32, TA_IN, TA_OUT, TA_EDGES, 10, 0, INVALID),
      RG("num_bins 0, n 0", HOST_CTX, U8, TA_NULL, TA_OUT, TA_EDGES, 0, 0, INVALID),
      RG("NULL d_counts", HOST_CTX, F32, TA_IN, TA_NULL, TA_EDGES, 10, 16, INVALID),
      RG("NULL d_counts, n 0", HOST_CTX, F32, TA_NULL, TA_NULL, TA_EDGES, 0, 16, INVALID),
      RG("NULL d_samples, n 5", HOST_CTX, I32, TA_NULL, TA_OUT, TA_EDGES, 5, 16, INVALID),
      RG("dtype 12", HOST_CTX, 12, TA_IN, TA_OUT, TA_EDGES, 10, 16, INVALID),
      RG("dtype -1, n 0", HOST_CTX, -1, TA_NULL, TA_OUT, TA_EDGES, 0, 16, INVALID),
      RG("d_samples + 1 byte, F64", HOST_CTX, F64, TA_IN_B1, TA_OUT, TA_EDGES, 10, 16, INVALID),
      RG("d_samples + 1 byte, U8 (aligned)", HOST_CTX, U8, TA_IN_B1, TA_OUT, TA_EDGES, 10, 16,
         NO_DEVICE),
      RG("d_counts + 4 bytes", HOST_CTX, U8, TA_IN, TA_OUT_B4, TA_EDGES, 10, 16, INVALID),
      RG("d_edges + 4 bytes", HOST_CTX, U8, TA_IN, TA_OUT, TA_EDGES_B4, 10, 16, INVALID),
      /* overlap: counts with samples or edges; samples and edges are both inputs */
      RG("d_counts inside d_samples", HOST_CTX, U8, TA_IN, TA_IN_MID, TA_EDGES, 32, 2, INVALID),
      RG("d_counts' last bin on the first sample", HOST_CTX, F32, TA_IN, TA_IN_TOUCH, TA_EDGES, 10,
         16, INVALID),
      RG("d_counts ending where d_samples begin", HOST_CTX, F32, TA_IN, TA_IN_BEFORE, TA_EDGES, 10,
         16, NO_DEVICE),
      RG("d_counts == d_edges", HOST_CTX, F32, TA_IN, TA_EDGES, TA_EDGES, 10, 16, INVALID),
      RG("d_counts inside d_edges", HOST_CTX, F32, TA_IN, TA_EDGES_MID, TA_EDGES, 10, 16, INVALID),
      RG("d_counts' last bin on the first edge", HOST_CTX, F32, TA_IN, TA_EDGES_TOUCH, TA_EDGES, 10,
         16, INVALID),
      RG("d_counts ending where d_edges begin", HOST_CTX, F32, TA_IN, TA_EDGES_BEFORE, TA_EDGES, 10,
         16, NO_DEVICE),
      RG("d_counts just past d_edges", HOST_CTX, F32, TA_IN, TA_EDGES_END, TA_EDGES, 10, 16,
         NO_DEVICE),
      RG("d_counts overlap d_edges, n 0", HOST_CTX, F32, TA_NULL, TA_EDGES_MID, TA_EDGES, 0, 16,
         INVALID),
      RG("d_samples == d_edges (both inputs)", HOST_CTX, F64, TA_EDGES, TA_OUT, TA_EDGES, 10, 16,
         NO_DEVICE),
      RG("n 2^33 (valid)", HOST_CTX, U8, TA_FAR_IN, TA_FAR_OUT, TA_EDGES, 1ull << 33, 16,
         NO_DEVICE),
      RG("n UINT64_MAX", HOST_CTX, U8, TA_FAR_IN, TA_FAR_OUT, TA_EDGES, UINT64_MAX, 16, INVALID),
      RG("d_edges + 8 * (num_bins + 1) wraps", HOST_CTX, U8, TA_IN, TA_OUT, TA_TOP, 10, 1024,
         INVALID),
      /* range_ex: every algorithm takes what range takes; alg out of range is INVALID, checked
       * after the edges, the context, the dtype, the bins and the pointers, before UNSUPPORTED */
      RGX("valid, GLOBAL_ATOMIC", GA, F32, TA_IN, TA_OUT, TA_EDGES, 10, 16, NO_DEVICE),
      RGX("valid, BLOCK_PRIVATE", BP, U16, TA_IN, TA_OUT, TA_EDGES, 33, 64, NO_DEVICE),
      RGX("valid, SORT_REDUCE_BY_KEY", SR, I64, TA_IN, TA_OUT, TA_EDGES, 10, 1, NO_DEVICE),
      RGX("valid, SORT_REDUCE_BY_KEY, n 0", SR, F64, TA_NULL, TA_OUT, TA_EDGES, 0, 16, NO_DEVICE),
      RGX("alg 4", 4, F32, TA_IN, TA_OUT, TA_EDGES, 10, 16, INVALID),
      RGX("alg -1", -1, U8, TA_IN, TA_OUT, TA_EDGES, 10, 16, INVALID),
      RGX("alg INT_MAX", INT_MAX, F32, TA_IN, TA_OUT, TA_EDGES, 10, 16, INVALID),
      RGX("alg 4, n 0", 4, F32, TA_NULL, TA_OUT, TA_EDGES, 0, 16, INVALID),
      RGX("alg 4 and NULL d_edges", 4, F32, TA_IN, TA_OUT, TA_NULL, 10, 16, INVALID),
      RGX("alg 4 and num_bins 0", 4, F32, TA_IN, TA_OUT, TA_EDGES, 10, 0, INVALID),
      RGX("alg 4 and d_counts inside d_edges", 4, F32, TA_IN, TA_EDGES_MID, TA_EDGES, 10, 16,
          INVALID),
      RGX("alg 4 with F16", 4, CUPRIM_F16, TA_IN, TA_OUT, TA_EDGES, 10, 16, INVALID),
      RGX("F16, BLOCK_PRIVATE", BP, CUPRIM_F16, TA_IN, TA_OUT, TA_EDGES, 10, 16, NO_DEVICE),
      RGX("BF16, SORT_REDUCE_BY_KEY", SR, CUPRIM_BF16, TA_IN, TA_OUT, TA_EDGES, 10, 16, NO_DEVICE),
      RGX("NULL d_edges, SORT_REDUCE_BY_KEY", SR, F32, TA_IN, TA_OUT, TA_NULL, 10, 16, INVALID),
      RGX("d_counts inside d_samples, GLOBAL_ATOMIC", GA, U8, TA_IN, TA_IN_MID, TA_EDGES, 32, 2,
          INVALID),
  };
  TA_RUN_TABLE(cases, api_case, run_case);
}

/* What the histogram takes, by the test's own table: every dtype (hr_all_dtypes; F16 and BF16
 * from 0.2); nothing outside the enum. */
static int takes(cuprim_dtype t) { return (unsigned)t < HR_NUM_DTYPES; }

/* ---------------------------------------------------------------- cuprim_histogram_even_multi */

/* The arguments of one multi-channel call, valid unless a case changes them: 10 RGBA u8 pixels at
 * the input, four channels' 16 counts laid end to end at the output (128 bytes each, all before
 * the input), [0, 256) each. `null_arrays` bit k passes NULL for host array k (d_counts, num_bins,
 * lower, upper). */
typedef struct multi_call {
  int ctx;
  ta_ptr samples;
  uint64_t pixels;
  int channels, active;
  int dtype;
  uint64_t *counts[4];
  uint32_t bins[4];
  double lower[4], upper[4];
  int null_arrays;
} multi_call;

static uint64_t *fake_counts(size_t offset) { return (uint64_t *)ta_address(offset); }

static multi_call multi_valid(void) {
  multi_call m;
  memset(&m, 0, sizeof m);
  m.ctx = HOST_CTX;
  m.samples = TA_IN;
  m.pixels = 10;
  m.channels = m.active = 4;
  m.dtype = U8;
  for (int c = 0; c < 4; ++c) {
    m.counts[c] = fake_counts(256 + 128 * (size_t)c);
    m.bins[c] = 16;
    m.lower[c] = 0.0;
    m.upper[c] = 256.0;
  }
  return m;
}

static void multi_check(ta_tally *t, const char *what, const multi_call *m, cuprim_status expect) {
  const cuprim_dtype dt = (cuprim_dtype)m->dtype;
  const size_t size = cuprim_dtype_size(dt);
  const ta_shape shape = {size, m->pixels * (uint64_t)(m->channels > 0 ? m->channels : 1),
                          sizeof(uint64_t), 16};
  ta_poison();
  const cuprim_status s = cuprim_histogram_even_multi(
      ta_context(m->ctx), ta_pointer(m->samples, &shape), m->pixels, m->channels, m->active, dt,
      m->null_arrays & 1 ? NULL : m->counts, m->null_arrays & 2 ? NULL : m->bins,
      m->null_arrays & 4 ? NULL : m->lower, m->null_arrays & 8 ? NULL : m->upper, 0);
  ta_record_call(t, "cuprim_histogram_even_multi", what, s, expect,
                 "dtype %s pixels %llu channels %d active %d", hr_dtype_name(dt),
                 (unsigned long long)m->pixels, m->channels, m->active);
}

/* One case of a call that starts from valid() and takes one change (a statement, or (void)0 for
 * none): call = valid(); change; then check(&t, what, &call, expect), t the test's tally. */
#define ONE_CHANGE(call, valid, check, what, change, expect)                                       \
  do {                                                                                             \
    call = valid();                                                                                \
    change;                                                                                        \
    check(&t, what, &call, expect);                                                                \
  } while (0)

/* Every check of cuprim_histogram_even_multi (docs/errors.md), each case one change from a
 * valid call; entries past num_active_channels are never read, so garbage there is valid. */
TU_TEST(test_invalid_arguments_multi) {
  (void)state;
  ta_tally t = {0, 0, 20};
  multi_call m = multi_valid();
#define MULTI(what, change, expect) ONE_CHANGE(m, multi_valid, multi_check, what, change, expect)
  MULTI("valid RGBA u8", (void)0, NO_DEVICE);
  MULTI("valid, 3 of 4 active", m.active = 3, NO_DEVICE);
  MULTI("valid, 1 channel", m.channels = m.active = 1, NO_DEVICE);
  MULTI("valid, 3 channels F32", (m.channels = m.active = 3, m.dtype = F32), NO_DEVICE);
  MULTI("valid, 2 channels I64, 1 active", (m.channels = 2, m.active = 1, m.dtype = I64),
        NO_DEVICE);
  MULTI("valid, per-channel bins and ranges",
        (m.bins[1] = 1, m.lower[2] = -5.5, m.upper[2] = 3.25, m.bins[3] = 3), NO_DEVICE);
  MULTI("0 pixels, NULL samples (zeros are written)", (m.pixels = 0, m.samples = TA_NULL),
        NO_DEVICE);
  MULTI("0 pixels, counts over the samples (empty samples overlap nothing)",
        (m.pixels = 0, m.counts[0] = (uint64_t *)ta_address(TA_IN_OFFSET)), NO_DEVICE);
  MULTI("d_samples + 1 byte, U8 (aligned)", m.samples = TA_IN_B1, NO_DEVICE);
  MULTI("inactive channel: NULL counts, 0 bins, NaN range",
        (m.active = 3, m.counts[3] = NULL, m.bins[3] = 0, m.lower[3] = QNAN), NO_DEVICE);
  MULTI("inactive channel: counts overlapping channel 0's",
        (m.active = 2, m.counts[2] = m.counts[0]), NO_DEVICE);
  MULTI("counts of two channels adjacent", m.counts[1] = m.counts[0] + 16, NO_DEVICE);
  MULTI("NULL ctx", m.ctx = NULL_CTX, INVALID);
  MULTI("NULL ctx, 0 pixels", (m.ctx = NULL_CTX, m.pixels = 0), INVALID);
  MULTI("dtype 12", m.dtype = 12, INVALID);
  MULTI("dtype -1", m.dtype = -1, INVALID);
  MULTI("channels 0", m.channels = 0, INVALID);
  MULTI("channels 5", (m.channels = 5, m.active = 4), INVALID);
  MULTI("channels -1", m.channels = -1, INVALID);
  MULTI("active 0", m.active = 0, INVALID);
  MULTI("active -1", m.active = -1, INVALID);
  MULTI("active 3 of 2 channels", (m.channels = 2, m.active = 3), INVALID);
  MULTI("active 5 of 4 channels", m.active = 5, INVALID);
  MULTI("NULL d_counts array", m.null_arrays = 1, INVALID);
  MULTI("NULL num_bins array", m.null_arrays = 2, INVALID);
  MULTI("NULL lower array", m.null_arrays = 4, INVALID);
  MULTI("NULL upper array", m.null_arrays = 8, INVALID);
  MULTI("NULL d_counts array, 0 pixels", (m.null_arrays = 1, m.pixels = 0), INVALID);
  MULTI("NULL d_samples, 10 pixels", m.samples = TA_NULL, INVALID);
  MULTI("d_samples + 1 byte, F32", (m.samples = TA_IN_B1, m.dtype = F32), INVALID);
  MULTI("d_samples + 4 bytes, F64", (m.samples = TA_IN_B4, m.dtype = F64), INVALID);
  MULTI("d_samples + 4 bytes, U32 (aligned)", (m.samples = TA_IN_B4, m.dtype = U32), NO_DEVICE);
  for (int c = 0; c < 4; ++c) {
    char what[96];
    snprintf(what, sizeof what, "channel %d: NULL counts", c);
    MULTI(what, m.counts[c] = NULL, INVALID);
    snprintf(what, sizeof what, "channel %d: NULL counts, 0 pixels", c);
    MULTI(what, (m.counts[c] = NULL, m.pixels = 0), INVALID);
    snprintf(what, sizeof what, "channel %d: counts + 4 bytes", c);
    MULTI(what, m.counts[c] = (uint64_t *)((uintptr_t)m.counts[c] + 4), INVALID);
    snprintf(what, sizeof what, "channel %d: 0 bins", c);
    MULTI(what, m.bins[c] = 0, INVALID);
    snprintf(what, sizeof what, "channel %d: lower NaN", c);
    MULTI(what, m.lower[c] = QNAN, INVALID);
    snprintf(what, sizeof what, "channel %d: lower == upper", c);
    MULTI(what, m.lower[c] = m.upper[c], INVALID);
    snprintf(what, sizeof what, "channel %d: upper inf", c);
    MULTI(what, m.upper[c] = INF, INVALID);
    snprintf(what, sizeof what, "channel %d: scale not finite", c);
    MULTI(what, (m.lower[c] = 0.0, m.upper[c] = 1e-307, m.bins[c] = 64), INVALID);
    snprintf(what, sizeof what, "channel %d: counts inside the samples", c);
    MULTI(what, m.counts[c] = (uint64_t *)ta_address(TA_IN_OFFSET + 8), INVALID);
    snprintf(what, sizeof what, "channel %d: counts overlapping the previous channel's", c);
    if (c > 0)
      MULTI(what, m.counts[c] = m.counts[c - 1] + 15, INVALID);
  }
  MULTI("channel 3 counts == channel 0 counts", m.counts[3] = m.counts[0], INVALID);
  MULTI("counts ending where the samples begin",
        m.counts[3] = (uint64_t *)ta_address(TA_IN_OFFSET - 16 * 8), NO_DEVICE);
  MULTI("counts' last bin on the first sample",
        m.counts[3] = (uint64_t *)ta_address(TA_IN_OFFSET - 15 * 8), INVALID);
  MULTI("2^33 pixels far away (valid)",
        (m.samples = TA_FAR_IN, m.pixels = 1ull << 33,
         m.counts[0] = (uint64_t *)((uintptr_t)1 << 46)),
        NO_DEVICE);
  MULTI("pixels * channels * size overflows",
        (m.samples = TA_FAR_IN, m.pixels = 1ull << 61, m.dtype = F64), INVALID);
  MULTI("pixels UINT64_MAX", (m.samples = TA_FAR_IN, m.pixels = UINT64_MAX), INVALID);
  MULTI("samples near the top wrap", (m.samples = TA_TOP, m.pixels = 1024), INVALID);
  MULTI("counts near the top wrap", m.counts[2] = (uint64_t *)(uintptr_t)(0 - (uintptr_t)64),
        INVALID);
  MULTI("F16 (taken or not by the test's table)", m.dtype = CUPRIM_F16,
        takes(CUPRIM_F16) ? NO_DEVICE : UNSUPPORTED);
  MULTI("F16 and channels 5: INVALID before UNSUPPORTED", (m.dtype = CUPRIM_F16, m.channels = 5),
        INVALID);
  MULTI("F16 and channel 2 NULL counts: INVALID before UNSUPPORTED",
        (m.dtype = CUPRIM_F16, m.counts[2] = NULL), INVALID);
#undef MULTI
  ta_finish(&t, "multi-channel argument checks");
}

/* ---------------------------------------------------------------- cuprim_histogram_even_weighted
 */

/* One weighted call, valid unless a case changes it: 10 F32 samples at the input, 10 F32 weights
 * 1024 bytes past it, 16 sums at the output, [0, 1). */
typedef struct weighted_call {
  int ctx, alg;
  const void *samples, *weights;
  double *sums;
  uint64_t n;
  int dtype, wdtype;
  uint32_t bins;
  double lower, upper;
} weighted_call;

static weighted_call weighted_valid(void) {
  weighted_call w;
  memset(&w, 0, sizeof w);
  w.ctx = HOST_CTX;
  w.alg = CUPRIM_HISTOGRAM_WEIGHTED_AUTO;
  w.samples = (const void *)ta_address(TA_IN_OFFSET);
  w.weights = (const void *)ta_address(TA_IN_OFFSET + 1024);
  w.sums = (double *)ta_address(256);
  w.n = 10;
  w.dtype = w.wdtype = F32;
  w.bins = 16;
  w.lower = 0.0;
  w.upper = 1.0;
  return w;
}

/* The call through _ex, and through the shorthand when alg is AUTO. */
static void weighted_check(ta_tally *t, const char *what, const weighted_call *w,
                           cuprim_status expect) {
  for (int shorthand = 0; shorthand < 2; ++shorthand) {
    if (shorthand && w->alg != CUPRIM_HISTOGRAM_WEIGHTED_AUTO)
      break;
    ta_poison();
    const cuprim_dtype dt = (cuprim_dtype)w->dtype, wt = (cuprim_dtype)w->wdtype;
    const cuprim_status s =
        shorthand ? cuprim_histogram_even_weighted(ta_context(w->ctx), w->samples, w->weights, w->n,
                                                   dt, wt, w->sums, w->bins, w->lower, w->upper, 0)
                  : cuprim_histogram_even_weighted_ex(
                        ta_context(w->ctx), (cuprim_histogram_weighted_alg)w->alg, w->samples,
                        w->weights, w->n, dt, wt, w->sums, w->bins, w->lower, w->upper, 0);
    ta_record_call(
        t, shorthand ? "cuprim_histogram_even_weighted" : "cuprim_histogram_even_weighted_ex", what,
        s, expect, "alg %d dtype %s weights %s n %llu bins %lu [%.17g, %.17g)", w->alg,
        hr_dtype_name(dt), hr_dtype_name(wt), (unsigned long long)w->n, (unsigned long)w->bins,
        w->lower, w->upper);
  }
}

TU_TEST(test_invalid_arguments_weighted) {
  (void)state;
  ta_tally t = {0, 0, 20};
  const unsigned char *in = (const unsigned char *)ta_address(TA_IN_OFFSET);
  const uintptr_t far = (uintptr_t)1 << 44;
  weighted_call w = weighted_valid();
#define WEIGHTED(what, change, expect)                                                             \
  ONE_CHANGE(w, weighted_valid, weighted_check, what, change, expect)
  WEIGHTED("valid, f32 samples and weights", (void)0, NO_DEVICE);
  WEIGHTED("valid, F64 weights", w.wdtype = F64, NO_DEVICE);
  WEIGHTED("valid, FIXED_ORDER", w.alg = CUPRIM_HISTOGRAM_WEIGHTED_FIXED_ORDER, NO_DEVICE);
  WEIGHTED("valid, U8 samples, 256 bins",
           (w.dtype = U8, w.bins = 256, w.upper = 256.0, w.sums = (double *)ta_address(4096)),
           NO_DEVICE);
  WEIGHTED("valid, I64 samples, F64 weights", (w.dtype = I64, w.wdtype = F64), NO_DEVICE);
  WEIGHTED("n 0, NULL samples and weights (zeros are written)",
           (w.n = 0, w.samples = NULL, w.weights = NULL), NO_DEVICE);
  WEIGHTED("n 0, sums over the samples", (w.n = 0, w.sums = (double *)ta_address(TA_IN_OFFSET)),
           NO_DEVICE);
  WEIGHTED("samples == weights (both inputs)", w.weights = w.samples, NO_DEVICE);
  WEIGHTED("weights + 4 bytes, F32 (aligned)", w.weights = in + 1028, NO_DEVICE);
  WEIGHTED("NULL ctx", w.ctx = NULL_CTX, INVALID);
  WEIGHTED("NULL ctx, n 0", (w.ctx = NULL_CTX, w.n = 0), INVALID);
  WEIGHTED("sample dtype 12", w.dtype = 12, INVALID);
  WEIGHTED("sample dtype -1", w.dtype = -1, INVALID);
  WEIGHTED("weight dtype 12", w.wdtype = 12, INVALID);
  WEIGHTED("weight dtype -1, n 0", (w.wdtype = -1, w.n = 0), INVALID);
  WEIGHTED("num_bins 0", w.bins = 0, INVALID);
  WEIGHTED("num_bins 0, n 0", (w.bins = 0, w.n = 0), INVALID);
  WEIGHTED("NULL d_sums", w.sums = NULL, INVALID);
  WEIGHTED("NULL d_sums, n 0", (w.sums = NULL, w.n = 0), INVALID);
  WEIGHTED("d_sums + 4 bytes", w.sums = (double *)ta_address(260), INVALID);
  WEIGHTED("NULL d_samples, n 10", w.samples = NULL, INVALID);
  WEIGHTED("NULL d_weights, n 10", w.weights = NULL, INVALID);
  WEIGHTED("d_samples + 1 byte, F32", w.samples = in + 1, INVALID);
  WEIGHTED("d_samples + 1 byte, U8 (aligned)", (w.samples = in + 1, w.dtype = U8), NO_DEVICE);
  WEIGHTED("d_weights + 2 bytes, F32", w.weights = in + 1026, INVALID);
  WEIGHTED("d_weights + 4 bytes, F64", (w.weights = in + 1028, w.wdtype = F64), INVALID);
  WEIGHTED("d_sums inside the samples", w.sums = (double *)ta_address(TA_IN_OFFSET + 8), INVALID);
  WEIGHTED("d_sums inside the weights", w.sums = (double *)ta_address(TA_IN_OFFSET + 1032),
           INVALID);
  WEIGHTED("d_sums' last bin on the first weight",
           w.sums = (double *)ta_address(TA_IN_OFFSET + 1024 - 15 * 8), INVALID);
  WEIGHTED("d_sums ending where the weights begin",
           w.sums = (double *)ta_address(TA_IN_OFFSET + 1024 - 16 * 8), NO_DEVICE);
  WEIGHTED("d_sums just past the weights", w.sums = (double *)ta_address(TA_IN_OFFSET + 1064),
           NO_DEVICE);
  WEIGHTED("alg 2", w.alg = 2, INVALID);
  WEIGHTED("alg -1", w.alg = -1, INVALID);
  WEIGHTED("alg 2, n 0", (w.alg = 2, w.n = 0), INVALID);
  WEIGHTED("lower NaN", w.lower = QNAN, INVALID);
  WEIGHTED("lower == upper", w.lower = w.upper, INVALID);
  WEIGHTED("upper inf", w.upper = INF, INVALID);
  WEIGHTED("scale not finite", (w.bins = 64, w.upper = 1e-307), INVALID);
  WEIGHTED("bad range, n 0", (w.lower = 2.0, w.n = 0), INVALID);
  WEIGHTED("n 2^33 far away (valid)",
           (w.samples = (const void *)far, w.weights = (const void *)(far << 1),
            w.sums = (double *)(far << 2), w.n = 1ull << 33),
           NO_DEVICE);
  WEIGHTED("n 2^62 F64 weights: bytes overflow",
           (w.samples = (const void *)far, w.weights = (const void *)(far << 1),
            w.sums = (double *)(far << 2), w.n = 1ull << 62, w.wdtype = F64),
           INVALID);
  WEIGHTED("n UINT64_MAX", (w.samples = (const void *)far, w.n = UINT64_MAX), INVALID);
  WEIGHTED("weights near the top wrap", w.weights = (const void *)(uintptr_t)(0 - (uintptr_t)16),
           INVALID);
  WEIGHTED("d_sums + 8 * num_bins wraps", w.sums = (double *)(uintptr_t)(0 - (uintptr_t)64),
           INVALID);
  WEIGHTED("weight dtype U8: UNSUPPORTED", w.wdtype = U8, UNSUPPORTED);
  WEIGHTED("weight dtype I32, n 0: UNSUPPORTED", (w.wdtype = I32, w.n = 0), UNSUPPORTED);
  WEIGHTED("weight dtype F16: UNSUPPORTED", w.wdtype = CUPRIM_F16, UNSUPPORTED);
  WEIGHTED("weight dtype I32, FIXED_ORDER: UNSUPPORTED",
           (w.wdtype = I32, w.alg = CUPRIM_HISTOGRAM_WEIGHTED_FIXED_ORDER), UNSUPPORTED);
  WEIGHTED("weight dtype U8 and num_bins 0: INVALID before UNSUPPORTED",
           (w.wdtype = U8, w.bins = 0), INVALID);
  WEIGHTED("weight dtype U8 and alg 2: INVALID before UNSUPPORTED", (w.wdtype = U8, w.alg = 2),
           INVALID);
  WEIGHTED("weight dtype U8 and lower NaN: INVALID before UNSUPPORTED",
           (w.wdtype = U8, w.lower = QNAN), INVALID);
  WEIGHTED("F16 samples (taken or not by the test's table)", w.dtype = CUPRIM_F16,
           takes(CUPRIM_F16) ? NO_DEVICE : UNSUPPORTED);
  WEIGHTED("F16 samples, U8 weights", (w.dtype = CUPRIM_F16, w.wdtype = U8), UNSUPPORTED);
#undef WEIGHTED
  ta_finish(&t, "weighted argument checks");
}

/* ---------------------------------------------------------------- every function */

/* Every (function, alg, dtype) in range and just outside it, with valid, NULL and (n == 0) absent
 * pointers, zero and non-zero bin counts, and good and bad ranges: the status validation must
 * give. */
TU_TEST(test_every_combination) {
  (void)state;
  const uint64_t sizes[] = {0, 1, 33};
  const uint32_t bins[] = {0, 1, 64};
  const struct {
    double lo, hi;
  } ranges[] = {{0.0, 1.0}, {1.0, 1.0},  {1.0, -1.0},   {QNAN, 1.0},
                {0.0, INF}, {-INF, 0.0}, {0.0, 1e-307}, {-1e300, 1e300}};
  ta_tally tally = {0, 0, 20};
  for (int fn = EVEN; fn <= RANGE; ++fn)
    for (int alg = -1; alg <= 4; ++alg)
      for (int t = -1; t <= HR_NUM_DTYPES; ++t)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k)
          for (size_t bi = 0; bi < sizeof bins / sizeof bins[0]; ++bi)
            for (size_t ri = 0; ri < sizeof ranges / sizeof ranges[0]; ++ri)
              for (int ptrs = 0; ptrs < 8; ++ptrs) /* samples, counts, edges: valid or NULL */
                for (int ctx = NULL_CTX; ctx <= HOST_CTX; ++ctx) {
                  if (fn == RANGE && ri != 0)
                    continue; /* range has no lower and upper */
                  const uint64_t n = sizes[k];
                  const uint32_t nb = bins[bi];
                  const int null_s = ptrs & 1, null_c = (ptrs >> 1) & 1, null_e = ptrs >> 2;
                  if (fn == EVEN && null_e)
                    continue;
                  const int dtype_ok = t >= 0 && t < HR_NUM_DTYPES;
                  int invalid = ctx == NULL_CTX || !dtype_ok || null_c || (n > 0 && null_s) ||
                                alg < 0 || alg > 3;
                  if (fn == EVEN)
                    invalid |= !hr_hist_even_valid(nb, ranges[ri].lo, ranges[ri].hi);
                  else
                    invalid |= null_e || nb == 0;
                  const api_case c = {"every combination",
                                      fn,
                                      ctx,
                                      alg,
                                      t,
                                      null_s ? TA_NULL : TA_IN,
                                      null_c ? TA_NULL : TA_OUT,
                                      fn == RANGE && !null_e ? TA_EDGES : TA_NULL,
                                      n,
                                      nb,
                                      ranges[ri].lo,
                                      ranges[ri].hi,
                                      invalid                   ? INVALID
                                      : !takes((cuprim_dtype)t) ? UNSUPPORTED
                                                                : NO_DEVICE};
                  ta_run_both(&c, c.alg, run_case, &tally);
                }
  ta_finish(&tally, "combinations");
}

/* cuprim_histogram_supported against the test's own table, also for values outside the enum. */
TU_TEST(test_supported) {
  (void)state;
  ta_check_supported_dtypes("cuprim_histogram_supported", cuprim_histogram_supported, takes);
}

/* ---------------------------------------------------------------- the reference itself */

#define NB HR_HIST_NO_BIN

static void expect_bin(const hr_hist_bins *b, double x, uint32_t want, const char *what) {
  const uint32_t got = hr_hist_bin(b, x);
  if (got != want)
    fail_msg("%s: x = %.17g in %s bins (%lu over [%.17g, %.17g)): bin %ld, expected %ld", what, x,
             b->edges ? "edge" : "even", (unsigned long)b->num_bins, b->lower, b->upper,
             got == NB ? -1L : (long)got, want == NB ? -1L : (long)want);
}

/* The formula on hand-picked values where it and exact arithmetic disagree (the reference must
 * follow the formula: (x - lower) * scale in double, truncated), and the clamp. */
TU_TEST(test_reference_formula) {
  (void)state;
  {
    const hr_hist_bins b = hr_hist_bins_even(10, 0.0, 1.0);
    assert_true(b.scale == 10.0);
    /* 0.3 is 0.29999999999999998890 (below the edge 3/10), but 0.3 * 10 rounds to 3.0 */
    expect_bin(&b, 0.3, 3, "formula, not exact arithmetic");
    expect_bin(&b, 0.6, 6, "formula, not exact arithmetic");
    expect_bin(&b, 0.7, 7, "formula, not exact arithmetic");
    expect_bin(&b, 0.29999999999999993, 2, "just below 0.3");
    expect_bin(&b, 0.0, 0, "lower is in bin 0");
    expect_bin(&b, -0.0, 0, "-0.0 == lower");
    expect_bin(&b, nextafter(0.0, -1.0), NB, "just below lower");
    expect_bin(&b, 1.0, NB, "upper is not counted");
    expect_bin(&b, nextafter(1.0, 0.0), 9, "upper - 1 ulp");
    expect_bin(&b, (double)NAN, NB, "NaN");
    expect_bin(&b, -(double)NAN, NB, "-NaN");
    expect_bin(&b, (double)INFINITY, NB, "+inf");
    expect_bin(&b, -(double)INFINITY, NB, "-inf");
    expect_bin(&b, 4.9406564584124654e-324, 0, "subnormal");
    expect_bin(&b, (double)0.3f, 3, "F32 0.3f");
  }
  {
    /* scale 6 / 0.6 = 10.000000000000002; 0.3 is in bin 2 by exact arithmetic, 1 by the
     * formula ((0.3 - 0.1) = 0.19999999999999998 times the scale is 1.9999999999999998) */
    const hr_hist_bins b = hr_hist_bins_even(6, 0.1, 0.7);
    expect_bin(&b, 0.3, 1, "formula, not exact arithmetic");
    expect_bin(&b, 0.1, 0, "lower");
    expect_bin(&b, 0.7, NB, "upper");
  }
  {
    /* 3/7 and 6/7 as doubles land in bins 1 and 2 by the formula, 0 and 1 exactly */
    const hr_hist_bins b = hr_hist_bins_even(7, 0.0, 3.0);
    expect_bin(&b, 0.42857142857142855, 1, "formula, not exact arithmetic");
    expect_bin(&b, 0.8571428571428571, 2, "formula, not exact arithmetic");
  }
  {
    /* The clamp: the largest double below 0.9 times 9 / 0.9 rounds to 9.0, one past the last
     * bin; it is counted in bin 8. */
    const hr_hist_bins b = hr_hist_bins_even(9, 0.0, 0.9);
    const double x = nextafter(0.9, 0.0);
    assert_true((x - 0.0) * b.scale >= 9.0); /* the case really needs the clamp */
    expect_bin(&b, x, 8, "clamped at upper - 1 ulp");
    expect_bin(&b, 0.9, NB, "upper");
  }
  {
    /* One bin: everything in range in bin 0. */
    const hr_hist_bins b = hr_hist_bins_even(1, -5.0, 5.0);
    expect_bin(&b, -5.0, 0, "one bin, lower");
    expect_bin(&b, nextafter(5.0, 0.0), 0, "one bin, upper - 1 ulp");
    expect_bin(&b, 5.0, NB, "one bin, upper");
  }
  {
    /* Edges: bin i is [e[i], e[i+1]). */
    const double e[] = {-1.0, 0.0, 0.5, 2.0, 10.0};
    const hr_hist_bins b = hr_hist_bins_edges(4, e);
    expect_bin(&b, -1.0, 0, "first edge");
    expect_bin(&b, nextafter(-1.0, -2.0), NB, "below the first edge");
    expect_bin(&b, -0.0, 1, "-0.0 on the edge 0.0");
    expect_bin(&b, nextafter(0.0, -1.0), 0, "just below an edge");
    expect_bin(&b, 0.5, 2, "on an edge");
    expect_bin(&b, nextafter(2.0, 0.0), 2, "just below an edge");
    expect_bin(&b, 2.0, 3, "on an edge");
    expect_bin(&b, nextafter(10.0, 0.0), 3, "just below the last edge");
    expect_bin(&b, 10.0, NB, "the last edge");
    expect_bin(&b, (double)NAN, NB, "NaN");
    expect_bin(&b, (double)INFINITY, NB, "+inf");
    const double one[] = {3.0, 4.0};
    const hr_hist_bins b1 = hr_hist_bins_edges(1, one);
    expect_bin(&b1, 3.5, 0, "one edge bin");
    expect_bin(&b1, 4.0, NB, "one edge bin, upper");
  }
  assert_true(hr_hist_even_valid(1, 0.0, 1e-300));
  assert_false(hr_hist_even_valid(UINT32_MAX, 0.0, 1e-300));
  assert_false(hr_hist_even_valid(0, 0.0, 1.0));
  assert_false(hr_hist_even_valid(1, 1.0, 1.0));
  assert_false(hr_hist_even_valid(1, (double)NAN, 1.0));
  assert_false(hr_hist_even_valid(1, 0.0, (double)INFINITY));
}

static void expect_counts(const hr_hist_bins *b, cuprim_dtype t, const void *h, uint64_t n,
                          const uint64_t *want, uint64_t want_counted) {
  uint64_t got[256];
  assert_true(b->num_bins <= 256);
  const uint64_t counted = hr_hist_reference(b, t, h, n, got);
  uint64_t first = 0;
  char why[512];
  if (hr_hist_check(want, got, b->num_bins, n, -1, &first, why, sizeof why) != 0)
    fail_msg("%s reference: %s", hr_dtype_name(t), why);
  assert_int_equal(counted, want_counted);
}

/* Samples are converted as their dtype says: signed 8- and 16-bit bytes are negative, 64-bit
 * integers round to the nearest double (so 2^64 - 1 is 2^64, at upper: not counted). */
TU_TEST(test_reference_dtypes) {
  (void)state;
  {
    const int8_t s[] = {-128, -1, 0, 127, -128};
    const hr_hist_bins b = hr_hist_bins_even(256, -128.0, 128.0);
    uint64_t want[256] = {0};
    want[0] = 2;
    want[127] = 1;
    want[128] = 1;
    want[255] = 1;
    expect_counts(&b, CUPRIM_I8, s, 5, want, 5);
    /* the same bytes as U8 are 128, 255, 0, 127: with [0, 256) they are bins 128, 255, 0, 127 */
    const hr_hist_bins bu = hr_hist_bins_even(256, 0.0, 256.0);
    uint64_t wu[256] = {0};
    wu[128] = 2;
    wu[255] = 1;
    wu[0] = 1;
    wu[127] = 1;
    expect_counts(&bu, CUPRIM_U8, s, 5, wu, 5);
    /* two bins over [-128, 128): negatives in bin 0 */
    const hr_hist_bins b2 = hr_hist_bins_even(2, -128.0, 128.0);
    const uint64_t w2[2] = {3, 2};
    expect_counts(&b2, CUPRIM_I8, s, 5, w2, 5);
    /* only the negatives are in [-200, 0): scale 0.02, -128 -> 1.44, -1 -> 3.98 */
    const hr_hist_bins bn = hr_hist_bins_even(4, -200.0, 0.0);
    const uint64_t wn[4] = {0, 2, 0, 1};
    expect_counts(&bn, CUPRIM_I8, s, 5, wn, 3);
  }
  {
    const int16_t s[] = {-32768, -1, 32767, -300};
    const hr_hist_bins b = hr_hist_bins_even(4, -32768.0, 32768.0);
    const uint64_t want[4] = {1, 2, 0, 1};
    expect_counts(&b, CUPRIM_I16, s, 4, want, 4);
    const uint16_t u[] = {65535, 0, 32768};
    const uint64_t wu[4] = {0, 0, 0, 0};
    const hr_hist_bins bu = hr_hist_bins_even(4, -4.0, 0.0);
    expect_counts(&bu, CUPRIM_U16, u, 3, wu, 0); /* nothing negative */
  }
  {
    /* 2^64 - 1 converts to 2^64 (upper: not counted); 2^64 - 1101 to 2^64 - 2048 (last bin) */
    const uint64_t s[] = {UINT64_MAX, UINT64_MAX - 1100, 0, 1ull << 63};
    const hr_hist_bins b = hr_hist_bins_even(4, 0.0, 18446744073709551616.0);
    const uint64_t want[4] = {1, 0, 1, 1};
    expect_counts(&b, CUPRIM_U64, s, 4, want, 3);
    /* INT64_MAX is 2^63: upper, not counted. -1 is in bin 1 by the formula, not 0: -1 - lower
     * = 2^63 - 1 rounds to 2^63, times the scale 2^-63 is 1.0. (The edges -2^63, 0, 2^63 put it
     * in bin 0: for 64-bit samples even bins and their edges differ next to an edge.) */
    const int64_t i[] = {INT64_MAX, INT64_MIN, -1, 0};
    const hr_hist_bins bi = hr_hist_bins_even(2, -9223372036854775808.0, 9223372036854775808.0);
    const uint64_t wi[2] = {1, 2};
    expect_counts(&bi, CUPRIM_I64, i, 4, wi, 3);
    const double e[] = {-9223372036854775808.0, 0.0, 9223372036854775808.0};
    const hr_hist_bins be = hr_hist_bins_edges(2, e);
    const uint64_t we[2] = {2, 1};
    expect_counts(&be, CUPRIM_I64, i, 4, we, 3);
  }
  {
    const float f[] = {0.3f, -0.0f, NAN, INFINITY, 0.99999994f, 1.0f, -1e-30f};
    const hr_hist_bins b = hr_hist_bins_even(10, 0.0, 1.0);
    uint64_t want[10] = {0};
    want[3] = 1;
    want[0] = 1;
    want[9] = 1;
    expect_counts(&b, CUPRIM_F32, f, 7, want, 3);
    const double d[] = {0.3, 0.0, -(double)NAN, -(double)INFINITY};
    uint64_t wd[10] = {0};
    wd[3] = 1;
    wd[0] = 1;
    expect_counts(&b, CUPRIM_F64, d, 4, wd, 2);
  }
  {
    const uint32_t u[] = {7, 8, 9, 100, 4294967295u};
    const int32_t s[] = {-7, 8, INT32_MIN};
    /* scale 3 / 2.25 = 1.3333333333333333: 8 -> 0.666 (bin 0); 9 -> 1.5 * scale, which rounds
     * (a tie, to even) to 2.0 (bin 2) */
    const hr_hist_bins b = hr_hist_bins_even(3, 7.5, 9.75);
    const uint64_t wu[3] = {1, 0, 1};
    expect_counts(&b, CUPRIM_U32, u, 5, wu, 2);
    const uint64_t ws[3] = {1, 0, 0};
    expect_counts(&b, CUPRIM_I32, s, 3, ws, 1);
  }
}

/* The large-n path for 8- and 16-bit samples (values counted first) gives the per-sample
 * answer. */
TU_TEST(test_reference_paths_agree) {
  (void)state;
  enum { N = 100003 };
  static int16_t h[N];
  static uint64_t a[4096], b2[4096];
  const cuprim_dtype types[] = {CUPRIM_I8, CUPRIM_U8, CUPRIM_I16, CUPRIM_U16};
  for (size_t ti = 0; ti < 4; ++ti)
    for (int s = 0; s < HR_HIST_SPANS; ++s) {
      const cuprim_dtype t = types[ti];
      double lo, hi;
      hr_hist_span_range(t, 4000, (hr_hist_span)s, &lo, &hi);
      const hr_hist_bins b = hr_hist_bins_even(4000, lo, hi);
      hr_hist_fill(&b, t, HR_HIST_OUT_OF_RANGE, 77 + ti, h, N);
      const uint64_t c1 = hr_hist_reference(&b, t, h, N, a); /* n > 4096: the value path */
      uint64_t c2 = 0;
      memset(b2, 0, sizeof b2);
      for (uint64_t i = 0; i < N; i += 4096) { /* pieces of <= 4096: the per-sample path */
        static uint64_t part[4096];
        const uint64_t m = N - i < 4096 ? N - i : 4096;
        c2 +=
            hr_hist_reference(&b, t, (const unsigned char *)h + i * cuprim_dtype_size(t), m, part);
        for (int k = 0; k < 4000; ++k)
          b2[k] += part[k];
      }
      assert_int_equal(c1, c2);
      assert_memory_equal(a, b2, 4000 * sizeof a[0]);
    }
}

/* The comparison: the first wrong bin, expected and got, the totals, and the poison. */
TU_TEST(test_reference_check) {
  (void)state;
  const uint64_t want[5] = {1, 2, 3, 4, 5};
  uint64_t got[5] = {1, 2, 3, 4, 5};
  uint64_t first = 99;
  char why[512];
  assert_int_equal(hr_hist_check(want, got, 5, 20, 0xA5, &first, why, sizeof why), 0);
  got[2] = 7;
  got[4] = 0xA5A5A5A5A5A5A5A5ull;
  assert_int_equal(hr_hist_check(want, got, 5, 20, 0xA5, &first, why, sizeof why), 2);
  assert_int_equal(first, 2);
  assert_non_null(strstr(why, "bin 2: expected 3, got 7"));
  assert_non_null(strstr(why, "bin 4: expected 5"));
  assert_non_null(strstr(why, "never written"));
  assert_non_null(strstr(why, "total: expected 15 of 20"));
  /* one sample moved to the next bin (totals equal) is still caught */
  uint64_t moved[5] = {1, 2, 2, 5, 5};
  assert_int_equal(hr_hist_check(want, moved, 5, 15, -1, &first, why, sizeof why), 2);
  assert_int_equal(first, 2);
}

/* ---------------------------------------------------------------- fills and ranges */

static const uint32_t g_bins[] = {1, 2, 255, 256, 257, 4096, 65536, 1u << 20};
#define NUM_BINS (sizeof g_bins / sizeof g_bins[0])

/* Every span is a valid range for every dtype and bin count; EXACT spans have an exact power-of-
 * two scale (so its edges are exact). */
TU_TEST(test_spans) {
  (void)state;
  for (int t = 0; t < HR_NUM_DTYPES; ++t)
    for (size_t bi = 0; bi < NUM_BINS; ++bi)
      for (int s = 0; s < HR_HIST_SPANS; ++s) {
        double lo, hi;
        hr_hist_span_range((cuprim_dtype)t, g_bins[bi], (hr_hist_span)s, &lo, &hi);
        if (!hr_hist_even_valid(g_bins[bi], lo, hi))
          fail_msg("%s %s span for %u bins: [%.17g, %.17g) is not valid",
                   hr_dtype_name((cuprim_dtype)t), hr_hist_span_name((hr_hist_span)s), g_bins[bi],
                   lo, hi);
        if (s == HR_HIST_EXACT) {
          const hr_hist_bins b = hr_hist_bins_even(g_bins[bi], lo, hi);
          int e;
          assert_true(frexp(b.scale, &e) == 0.5); /* a power of two */
          assert_true(b.scale * (hi - lo) == (double)g_bins[bi]);
          for (uint32_t k = 0; k < g_bins[bi]; k += 1 + g_bins[bi] / 64)
            assert_int_equal(hr_hist_bin(&b, hr_hist_edge(&b, k)), k);
        }
      }
}

/* Random edges: strictly increasing, from lower to upper exactly, with narrow and wide bins. */
TU_TEST(test_random_edges) {
  (void)state;
  static double e[(1u << 16) + 1];
  const uint32_t nbs[] = {1, 2, 7, 1000, 1u << 16};
  for (size_t i = 0; i < sizeof nbs / sizeof nbs[0]; ++i)
    for (int integral = 0; integral < 2; ++integral) {
      const uint32_t nb = nbs[i];
      const double lo = integral ? -30000.5 : -2.5, hi = integral ? 40000.0 : 3.75;
      hr_hist_random_edges(e, nb, lo, hi, integral, 1234 + i);
      assert_true(e[0] == lo && e[nb] == hi);
      double wmin = INFINITY, wmax = 0.0;
      int integers = 0;
      for (uint32_t k = 1; k <= nb; ++k) {
        if (!(e[k] > e[k - 1]))
          fail_msg("edges %u and %u not increasing: %.17g, %.17g", k - 1, k, e[k - 1], e[k]);
        const double w = e[k] - e[k - 1];
        wmin = w < wmin ? w : wmin;
        wmax = w > wmax ? w : wmax;
        integers += e[k] == floor(e[k]);
      }
      if (nb >= 1000) {
        assert_true(wmax / wmin > 1000.0);
        if (integral)
          assert_true(integers > (int)nb / 2);
      }
    }
}

/* What each data kind promises, checked through the reference. */
TU_TEST(test_fills) {
  (void)state;
  enum { N = 20000 };
  static unsigned char h[N * 8], h2[N * 8];
  static uint64_t counts[4096];
  const uint32_t nbs[] = {1, 16, 257, 4096};
  for (int t = 0; t < HR_NUM_DTYPES; ++t)
    for (size_t bi = 0; bi < sizeof nbs / sizeof nbs[0]; ++bi)
      for (int s = 0; s < HR_HIST_SPANS; ++s)
        for (int d = 0; d < HR_HIST_DATA_KINDS; ++d) {
          const cuprim_dtype dt = (cuprim_dtype)t;
          const uint32_t nb = nbs[bi];
          double lo, hi;
          hr_hist_span_range(dt, nb, (hr_hist_span)s, &lo, &hi);
          const hr_hist_bins b = hr_hist_bins_even(nb, lo, hi);
          const uint64_t seed =
              1000u * (unsigned)t + 100u * (unsigned)bi + 10u * (unsigned)s + (unsigned)d;
          hr_hist_fill(&b, dt, (hr_hist_data)d, seed, h, N);
          hr_hist_fill(&b, dt, (hr_hist_data)d, seed, h2, N);
          const size_t bytes = N * cuprim_dtype_size(dt);
          assert_memory_equal(h, h2, bytes); /* a seed gives the same data */
          const uint64_t counted = hr_hist_reference(&b, dt, h, N, counts);
          uint64_t nonzero = 0, below = 0, above = 0, nans = 0, infs = 0, on_edge = 0;
          for (uint32_t k = 0; k < nb; ++k)
            nonzero += counts[k] != 0;
          for (uint64_t i = 0; i < N; ++i) {
            const double x = hr_to_double(dt, h, i);
            below += x < lo;
            above += x >= hi;
            nans += isnan(x) != 0;
            infs += isinf(x) != 0;
            const uint32_t k = hr_hist_bin(&b, x);
            on_edge += (k != NB && x == hr_hist_edge(&b, k)) || x == hi;
          }
          char what[160];
          snprintf(what, sizeof what,
                   "%s %u bins %s span, %s data: counted %lu nonzero %lu "
                   "below %lu above %lu NaN %lu on an edge %lu",
                   hr_dtype_name(dt), nb, hr_hist_span_name((hr_hist_span)s),
                   hr_hist_data_name((hr_hist_data)d), (unsigned long)counted,
                   (unsigned long)nonzero, (unsigned long)below, (unsigned long)above,
                   (unsigned long)nans, (unsigned long)on_edge);
          int ok = 1;
          switch ((hr_hist_data)d) {
          case HR_HIST_UNIFORM:
            ok = counted >= N * 99 / 100 && nans == 0;
            /* bins at least one value wide, far fewer than samples: (nearly) all hit */
            if (nb <= 257 && (cuprim_dtype_size(dt) > 1 || nb <= 16) && s != HR_HIST_EXACT)
              ok &= nonzero >= nb * 9 / 10;
            break;
          case HR_HIST_ONE_BIN:
            ok = nonzero == 1 && counted == N;
            break;
          case HR_HIST_OUT_OF_RANGE:
            if (s == HR_HIST_ODD) /* every dtype has values on both sides of the odd span */
              ok = below > N / 8 && above > N / 8 && counted > N / 3 && counted < N * 2 / 3;
            break;
          case HR_HIST_NAN:
            if (hr_is_float(dt))
              ok = nans > N / 32 && infs > N / 64 && counted > N / 2;
            else
              ok = counted >= N * 99 / 100;
            break;
          case HR_HIST_EDGES:
            /* exact edges: most samples on one (fewer with 1 bin, whose upper edge may be past
             * the dtype's largest value) */
            if (s == HR_HIST_EXACT)
              ok = on_edge >= (nb >= 16 ? N / 3 : N / 8);
            break;
          default:
            break;
          }
          if (!ok)
            fail_msg("fill does not do what it says: %s", what);
        }
}

/* Exact spans: the even bins and the same bins given as edges bin every sample of an 8- to 32-bit
 * integer dtype alike (x - lower and the product are exact there). For 64-bit integers and floats
 * x - lower may round, onto an edge: the formula then puts a sample just below an edge in the bin
 * above it, where the edges do not. The data on edges shows it for F64, so the range tests (which
 * check cuprim_histogram_range and cuprim_histogram_even_ex on the same exact bins, each against
 * its own reference) tell the binary search and the formula apart. */
TU_TEST(test_even_as_edges) {
  (void)state;
  enum { N = 50000 };
  static unsigned char h[N * 8];
  static uint64_t a[4097], c[4097];
  static double e[4097];
  const uint32_t nbs[] = {1, 2, 255, 256, 257, 4096};
  for (int t = 0; t < HR_NUM_DTYPES; ++t)
    for (size_t bi = 0; bi < sizeof nbs / sizeof nbs[0]; ++bi)
      for (int d = 0; d < HR_HIST_DATA_KINDS; ++d) {
        const cuprim_dtype dt = (cuprim_dtype)t;
        const int must_agree = dt <= CUPRIM_U32;
        const int must_differ = dt == CUPRIM_F64 && d == HR_HIST_EDGES && nbs[bi] >= 255;
        if (!must_agree && !must_differ)
          continue;
        double lo, hi;
        hr_hist_span_range(dt, nbs[bi], HR_HIST_EXACT, &lo, &hi);
        const hr_hist_bins b = hr_hist_bins_even(nbs[bi], lo, hi);
        hr_hist_even_edges(e, nbs[bi], lo, hi);
        const hr_hist_bins be = hr_hist_bins_edges(nbs[bi], e);
        hr_hist_fill(&b, dt, (hr_hist_data)d, 5 + bi, h, N);
        const uint64_t ca = hr_hist_reference(&b, dt, h, N, a);
        assert_int_equal(ca, hr_hist_reference(&be, dt, h, N, c));
        uint64_t first = 0;
        char why[512];
        const uint64_t wrong = hr_hist_check(a, c, nbs[bi], N, -1, &first, why, sizeof why);
        if (must_agree && wrong)
          fail_msg("%s %u bins: even and edge bins differ: %s", hr_dtype_name(dt), nbs[bi], why);
        if (must_differ && !wrong)
          fail_msg("%s %u bins, data on edges: even and edge bins agree; the data no longer tells "
                   "the formula from the binary search",
                   hr_dtype_name(dt), nbs[bi]);
      }
}

TA_HOST_ONLY_CONTEXT_TEST()

TU_MAIN(ta_setup, ta_teardown)
