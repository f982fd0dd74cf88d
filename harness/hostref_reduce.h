/* harness/hostref_reduce.h: reduce's test data, its host reference, and the comparison of a
 * device result with it (the tests, and `cuprim ladder reduce`). Plain C on the host (hostref.h
 * says what these promise): integers exact (SUM and PROD wrap, computed in unsigned arithmetic),
 * float MIN/MAX exact (NaN if any input is NaN), float SUM and PROD against a long double reference
 * with a bound derived below (hostref_reduce.c says why each bound is what it is). */
#ifndef CUPRIM_HARNESS_HOSTREF_REDUCE_H
#define CUPRIM_HARNESS_HOSTREF_REDUCE_H

#include <stdint.h>

#include <cuprim/cuprim.h>

#include "hostref.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hr_data_kind {
  HR_DATA_RANDOM = 0,   /* seeded random values suited to the op (see hr_reduce_fill) */
  HR_DATA_CONSTANT = 1, /* one value repeated */
  HR_DATA_KINDS = 2
} hr_data_kind;
const char *hr_data_name(hr_data_kind k);

/* 1 for the (dtype, op) pairs reduce takes: the integers of hr_reduce_scan_dtypes (I32 U32 I64
 * U64) with every op; its floats (F32 F64, and from 0.2 F16 BF16) with SUM PROD MIN MAX. */
int hr_reduce_supported(cuprim_dtype t, cuprim_op op);

/* h[0..n) = test data for (dtype, op) from `seed`. Random data is chosen so that the result stays
 * meaningful: PROD uses odd integers (never 0 modulo 2^bits) and floats 1 + k*2^-11, |k| <= 8
 * (finite products); AND uses all-ones words with about 16 random bits cleared in the whole array,
 * OR the complement; SUM, MIN, MAX, XOR use full-range integers and floats in [-1, 1) (SUM) or
 * [-1000, 1000) (MIN, MAX). F16 and BF16: SUM k * 2^-8 (|k| <= 16, every partial sum exact in
 * float), PROD 1 + k * 2^-10 or 2^-7, constant PROD -1 (hostref_reduce.c says why). */
void hr_reduce_fill(cuprim_dtype t, cuprim_op op, hr_data_kind kind, uint64_t seed, void *h,
                    uint64_t n);

typedef struct hr_reduce_ref {
  cuprim_dtype dtype;
  cuprim_op op;
  uint64_t n;
  int exact;             /* 1: the result must have exactly these bits (also F16/BF16 SUM of data
                            whose partial sums are exact in float: the exact sum rounded once) */
  int nan;               /* float MIN/MAX with a NaN input: the result must be a NaN */
  unsigned char bits[8]; /* the expected value (exact), else the reference rounded to dtype */
  long double value;     /* float SUM / PROD: the reference */
  long double abs_sum;   /* float SUM: sum of |x| */
} hr_reduce_ref;

/* The reference for op over h[0..n). O(n). */
void hr_reduce_reference(cuprim_dtype t, cuprim_op op, const void *h, uint64_t n,
                         hr_reduce_ref *ref);

/* What the float tolerances of COARSENED and ATOMIC need to know of the GPU: how many blocks a
 * grid "sized to fill the GPU once" can have at least (one per SM) and at most. */
typedef struct hr_gpu_shape {
  unsigned sm_count;
  unsigned max_blocks_per_sm;
} hr_gpu_shape;

/* The float SUM tolerance for `alg`: |got - ref| may not exceed it. */
long double hr_reduce_sum_tolerance(const hr_reduce_ref *ref, cuprim_reduce_alg alg,
                                    const hr_gpu_shape *shape);

/* 1 if `got` (one element of ref->dtype) is an acceptable result of `alg`; otherwise 0 with
 * "expected ..., got ..." (and the difference and tolerance for floats) in why[0..len). */
int hr_reduce_check(const hr_reduce_ref *ref, cuprim_reduce_alg alg, const hr_gpu_shape *shape,
                    const void *got, char *why, size_t len);

/* ---------------------------------------------------------------- arg-reduce */

/* cuprim_reduce_arg's order (reduce.h) on two elements of t (any dtype; unaligned is fine): 1 if
 * x, at a later index than cur, is chosen over cur. Integers compare exactly; floats: a NaN cur
 * stays (the first NaN wins), a NaN x replaces a number, -0.0 equals +0.0, and a tie stays with
 * cur (the first index wins). Combining results of consecutive parts in index order with it
 * gives the answer of one call over the whole. */
int hr_arg_later_wins(cuprim_dtype t, cuprim_arg_op op, const void *x, const void *cur);
/* The index cuprim_reduce_arg gives for h[0..n) (UINT64_MAX for n == 0). */
uint64_t hr_reduce_arg_reference(cuprim_dtype t, cuprim_arg_op op, const void *h, uint64_t n);

#ifdef __cplusplus
}
#endif

#endif /* CUPRIM_HARNESS_HOSTREF_REDUCE_H */
