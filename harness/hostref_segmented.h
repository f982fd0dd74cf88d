/* harness/hostref_segmented.h: the segmented and batched calls' offsets and references on the
 * host (the tests, cuprim-bench, and the cuprim program when it takes segments). Plain C; it
 * states what include/cuprim/segmented.h promises, independently of the library:
 *  - the segment-size distributions the tests and the bench use, laid out as offsets;
 *  - offsets of I32, U32, I64 or U64 read back clamped to [0, n] (a negative one to 0), and a
 *    segment whose end is not past its begin empty;
 *  - one reduce reference per segment (hostref_reduce.h's), with a float bound that holds for any
 *    order of combination (every algorithm has its own), and exact bits where the data makes any
 *    order exact. */
#ifndef CUPRIM_HARNESS_HOSTREF_SEGMENTED_H
#define CUPRIM_HARNESS_HOSTREF_SEGMENTED_H

#include <stddef.h>
#include <stdint.h>

#include <cuprim/cuprim.h>

#include "hostref_reduce.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- offsets */

/* Segment-size distributions. */
typedef enum hr_seg_dist {
  HR_SEG_EMPTY = 0,     /* `size` segments, all empty: every offset n / 2 */
  HR_SEG_UNIFORM = 1,   /* every segment `size` elements */
  HR_SEG_RANDOM = 2,    /* sizes uniform in [0, 2 * size] */
  HR_SEG_POWER_LAW = 3, /* sizes 1 + a Pareto tail (alpha 1.5, capped at n / 64), and one giant
                           segment of n / 4 elements somewhere among them */
  HR_SEG_DISTS = 4
} hr_seg_dist;
const char *hr_seg_dist_name(hr_seg_dist d); /* "empty", "uniform", "random", "power_law" */

/* The offsets of distribution d (parameter `size`) over n elements: segments laid end to end from
 * 0 until they cover exactly n (the last one cut to fit); EMPTY: `size` empty segments. Writes
 * count + 1 offsets into off and returns count, the number of segments, or UINT64_MAX when more
 * than `cap` segments would be needed (off then holds cap + 1 of them). Seeded: the same
 * arguments give the same offsets. */
uint64_t hr_seg_layout(hr_seg_dist d, uint64_t size, uint64_t n, uint64_t seed, uint64_t *off,
                       uint64_t cap);

/* Offset k of `off` (count + 1 values of offset_dtype: I32, U32, I64 or U64) clamped to [0, n], a
 * negative one to 0, as the library reads it. */
uint64_t hr_seg_offset(cuprim_dtype offset_dtype, const void *off, uint64_t k, uint64_t n);

/* Stores v as offset k of `off` (of offset_dtype), wrapped to its width. */
void hr_seg_store_offset(cuprim_dtype offset_dtype, void *off, uint64_t k, int64_t v);

/* ---------------------------------------------------------------- reduce */

typedef struct hr_seg_reduce_ref {
  cuprim_dtype dtype;
  cuprim_op op;
  uint64_t num_segments;
  hr_reduce_ref *seg; /* one per segment; ->n is the segment's length */
  size_t cap;         /* allocated entries, reused by the next reference */
} hr_seg_reduce_ref;

void hr_seg_reduce_ref_init(hr_seg_reduce_ref *r);
void hr_seg_reduce_ref_free(hr_seg_reduce_ref *r);

/* The reference of every segment of h_in[0..n): from the offsets h_off (num_segments + 1 of
 * offset_dtype, clamped) or, with h_off NULL, rows of `segment_size` (n = num_segments *
 * segment_size). Float SUM and PROD segments whose data makes every order exact (SUM: every
 * element a multiple of 1/8 with 8 * sum|x| below 2^24 (F32) or 2^53 (F64); PROD: every element
 * +-1, +-2 or +-1/2, at most 120 of them not +-1) are marked exact. Returns 0, or -1 if memory ran
 * out. F16 and BF16 follow hostref_reduce.h (computed in float, rounded once). */
int hr_seg_reduce_reference(hr_seg_reduce_ref *r, cuprim_dtype t, cuprim_op op, const void *h_in,
                            uint64_t n, cuprim_dtype offset_dtype, const void *h_off,
                            uint64_t num_segments, uint64_t segment_size);

/* 1 if `got` (one element) is acceptable for segment s: its bits where exact, a NaN where a NaN
 * is due, else (float SUM and PROD) within a bound that holds for any order: 2 * m * eps * sum|x|
 * for SUM over m elements (gamma_{m-1} with margin, Higham 4.2), m * eps * |product| for PROD
 * (F16 and BF16: float's eps, and the output may be either rounding of the ends of that range).
 * Otherwise 0 with "expected ..., got ..." in why[0..len). */
int hr_seg_reduce_check_one(const hr_seg_reduce_ref *r, uint64_t s, const void *got, char *why,
                            size_t len);

/* Compares got[0..num_segments) with the reference. Returns the number of wrong segments; if any,
 * *first is the first and why[0..len) says what is wrong with it. An output still holding `poison`
 * in every byte (pass a poison byte, or -1) is said to be never written. */
uint64_t hr_seg_reduce_check(const hr_seg_reduce_ref *r, const void *got, int poison,
                             uint64_t *first, char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* CUPRIM_HARNESS_HOSTREF_SEGMENTED_H */
