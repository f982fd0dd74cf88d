/* harness/hostref_scan.h: scan's test data, its host reference (one expected value per output
 * element), and the element-wise comparison of a device result with it (the tests, and `cuprim
 * ladder scan`). Plain C on the host (hostref.h says what these promise).
 *
 * Integers are exact (SUM and PROD wrap: computed in unsigned arithmetic of the same width).
 * Float MIN/MAX are exact, and NaN from the first NaN on. Float SUM and PROD are exact when the
 * data makes every partial result representable (hr_scan_fill's HR_SCAN_EXACT data: any summation
 * order then gives the same value, so the check is bit for bit and catches a wrong or missing
 * element even in the float kernels); otherwise they are checked against a long double running
 * reference with a bound per element (hostref_scan.c says why the bound is what it is). */
#ifndef CUPRIM_HARNESS_HOSTREF_SCAN_H
#define CUPRIM_HARNESS_HOSTREF_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include <cuprim/cuprim.h>

#include "hostref.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The data kinds of the scan tests. */
typedef enum hr_scan_data {
  HR_SCAN_RANDOM = 0,   /* seeded random values suited to the op (see hr_scan_fill) */
  HR_SCAN_CONSTANT = 1, /* one value repeated (hr_reduce_fill's constants) */
  HR_SCAN_EXACT = 2,    /* float SUM and PROD: random values whose partial results are exact */
  HR_SCAN_DATA_KINDS = 3
} hr_scan_data;
const char *hr_scan_data_name(hr_scan_data d);
/* 1 if the data kind means something for (dtype, op): EXACT only for float SUM and PROD (for the
 * others RANDOM is already checked exactly). */
int hr_scan_data_applies(cuprim_dtype t, cuprim_op op, hr_scan_data d);

/* 1 for the (dtype, op) pairs scan takes: those reduce takes (hr_reduce_supported). */
int hr_scan_supported(cuprim_dtype t, cuprim_op op);

/* h[0..n) = test data for (dtype, op) from `seed`.
 *   RANDOM: hr_reduce_fill's random data (full-range integers for SUM and XOR, odd integers for
 *     PROD, mostly-set bits for AND, mostly-clear for OR, floats in [-1, 1) for SUM and
 *     1 + k*2^-11 (|k| <= 8) for PROD), except MIN and MAX: a trend with noise
 *     (base - 3i + [0, 16) for MIN, base + 3i - [0, 16) for MAX), so the running minimum keeps
 *     changing all along the array instead of settling after a few elements; the signed trends
 *     cross zero and the unsigned ones cross 2^(bits-1), so a signed/unsigned mix-up shows.
 *   CONSTANT: hr_reduce_fill's constants.
 *   EXACT (float SUM/PROD; same as RANDOM elsewhere): SUM k/8 with k uniform in [-63, 63];
 *     PROD +-1 with at most 100 elements +-2 or +-1/2 (so that every subset's product, the
 *     partial result of any combining order, is exact). */
void hr_scan_fill(cuprim_dtype t, cuprim_op op, hr_scan_data d, uint64_t seed, void *h, uint64_t n);

typedef struct hr_scan_ref {
  cuprim_dtype dtype;
  cuprim_op op;
  cuprim_scan_kind kind;
  uint64_t n;
  /* 1: out[i] must be bits[i] for every i < nan_from (floats: the same value, +0 and -0 alike).
   * 0 (float SUM/PROD with inexact data): |out[i] - value[i]| <= tol[i], out[i] finite. */
  int exact;
  uint64_t nan_from;   /* float MIN/MAX: out[i] must be a NaN for i >= nan_from (n: none) */
  unsigned char *bits; /* n elements of dtype: expected values (rounded reference if inexact) */
  double *value, *tol; /* inexact float SUM/PROD only: per element */
  size_t cap_bytes, cap_elems; /* allocated sizes, reused by the next reference */
} hr_scan_ref;

void hr_scan_ref_init(hr_scan_ref *r);
void hr_scan_ref_free(hr_scan_ref *r);

/* The reference of the scan of h[0..n) into r (its buffers grow as needed). O(n). Returns 0, or
 * -1 if memory ran out. */
int hr_scan_reference(hr_scan_ref *r, cuprim_dtype t, cuprim_op op, cuprim_scan_kind kind,
                      const void *h, uint64_t n);

/* Compares got[0..n) with the reference. Returns the number of wrong elements; if any, *first
 * and *last are the first and last wrong index and why[0..len) says "at index i: expected X, got
 * Y" for the first (with the difference and the tolerance for inexact floats). An element still
 * holding `poison` in every byte is reported as never written (pass a poison byte, or -1). */
uint64_t hr_scan_check(const hr_scan_ref *r, const void *got, int poison, uint64_t *first,
                       uint64_t *last, char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* CUPRIM_HARNESS_HOSTREF_SCAN_H */
