/* harness/hostref.h: the host side that the tests, cuprim-bench and the cuprim program share, in
 * plain C11 with no CUDA calls: seeded data, dtype facts, names, values as text, the identity and
 * combine of every op, and the element-by-element reduce and scan. The references of each
 * primitive (exact, long double, Kahan, the histogram's bin formula) are in hostref_reduce.h,
 * hostref_scan.h and hostref_histogram.h.
 *
 * These are the programs' own statement of what the headers promise, written independently of
 * the library: a test that checks the library against them can fail. So nothing here asks the
 * library what it computes or takes; only names come from it (cuprim_dtype_name,
 * cuprim_op_name), for messages.
 *
 * Integer SUM and PROD wrap modulo 2^bits (computed in the unsigned type of the same width: no
 * undefined behaviour); float MIN and MAX give NaN when either operand is NaN; AND, OR and XOR
 * take integers only. F16 and BF16 are computed as the library computes them (from 0.2): widened
 * to float, combined in float, each output rounded once to the dtype (to nearest even). */
#ifndef CUPRIM_HARNESS_HOSTREF_H
#define CUPRIM_HARNESS_HOSTREF_H

#include <cuprim/cuprim.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The counter-based generator below is also used by cuprim-bench's fill kernels. */
#ifdef __CUDACC__
#define HR_HOST_DEVICE __host__ __device__
#else
#define HR_HOST_DEVICE
#endif

/* ---------------------------------------------------------------- seeded data */

/* splitmix64 (Steele, Lea, Flood): one 64-bit state word, good statistics, trivially seeded. */
static inline uint64_t hr_splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* A seed for one case, derived from a base seed and the case's parameters, so a failing case can
 * be named by a single number and regenerated alone. */
static inline uint64_t hr_mix(uint64_t seed, uint64_t a) {
  uint64_t s = seed ^ (a * 0xD6E8FEB86659FD93ull);
  return hr_splitmix64(&s);
}

/* Uniform in [0, bound) (bound > 0); the modulo bias is irrelevant for test data. */
static inline uint64_t hr_below(uint64_t *state, uint64_t bound) {
  return hr_splitmix64(state) % bound;
}

/* Uniform in [0, 1), 53 random bits. */
static inline double hr_unit(uint64_t *state) {
  return (double)(hr_splitmix64(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* 64 random bits for element i of a seeded fill: splitmix64's output for the (i+1)-th step from
 * `seed`. Element i depends on nothing else, so a prefix of a fill is the same data as a shorter
 * fill, any element can be recomputed alone, and a kernel can fill in any order. */
static inline HR_HOST_DEVICE uint64_t hr_element_bits(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* k * 2^-24 from the top 24 bits of `bits`: uniform in [0, 1) and exact in f32; sums of up to
 * 2^29 of them are exact in double. */
static inline HR_HOST_DEVICE double hr_unit24(uint64_t bits) {
  return (double)(bits >> 40) * (1.0 / 16777216.0);
}

/* A prefix P(i), an integer below 2^16, for scans whose every partial result is exact: element i
 * is P(i) - P(i-1) (P(-1) = 0), so every run of consecutive elements sums to a difference of two
 * P, below 2^16 in magnitude, and a scan that combines at most a few dozen runs at once (warp
 * trees, look-back windows) keeps every partial result an integer below 2^24: exact in f32 in
 * any order. The exact inclusive scan is P(i) itself. */
static inline HR_HOST_DEVICE double hr_prefix16(uint64_t seed, uint64_t i) {
  return (double)(hr_element_bits(seed, i) >> 48);
}

/* ---------------------------------------------------------------- dtypes and names */

/* The programs' lists of dtypes, each in enum order: the one place that names them, so that a
 * dtype the library adds is added here once (test_hostref checks that hr_all_dtypes holds every
 * dtype the library names). Each count is its list's length (hostref.c asserts it at compile
 * time).
 *   hr_all_dtypes          every dtype: I8 U8 I16 U16 I32 U32 I64 U64 F32 F64 F16 BF16 (the
 *                          values are dense from 0: hr_all_dtypes[i] == i); what histogram and
 *                          arg-reduce take.
 *   hr_reduce_scan_dtypes  what reduce and scan take (reduce.h, scan.h; the segmented calls
 *                          too): I32 U32 I64 U64 F32 F64 F16 BF16.
 *   hr_dtypes_32_64        every dtype of 32 or 64 bits: I32 U32 I64 U64 F32 F64 (what reduce
 *                          and scan took before 0.2), for cuprim_nccl_reduce, which takes no
 *                          more, and the tests whose data is not written for 16-bit floats.
 *   hr_float_dtypes        the dtypes hr_is_float takes: F32 F64 F16 BF16. */
#define HR_NUM_DTYPES 12
#define HR_NUM_REDUCE_SCAN_DTYPES 8
#define HR_NUM_DTYPES_32_64 6
#define HR_NUM_FLOAT_DTYPES 4
extern const cuprim_dtype hr_all_dtypes[];
extern const cuprim_dtype hr_reduce_scan_dtypes[];
extern const cuprim_dtype hr_dtypes_32_64[];
extern const cuprim_dtype hr_float_dtypes[];

/* 1 for F32, F64, F16, BF16. */
int hr_is_float(cuprim_dtype t);
/* 1 for I8, I16, I32, I64. */
int hr_is_signed(cuprim_dtype t);

/* Element i of p (of dtype t) as a double: integers converted (64-bit ones rounded to nearest),
 * F16 and BF16 decoded; NaN for a value outside the enum. */
double hr_to_double(cuprim_dtype t, const void *p, uint64_t i);

/* h[i] = v for a float dtype: rounded to nearest (even) for F32, F16 and BF16; other dtypes are
 * left alone. */
void hr_store_float(cuprim_dtype t, void *h, uint64_t i, double v);
/* The F16 (t == CUPRIM_F16) or BF16 (any other t) bits of v rounded to nearest even, as the
 * library rounds each 16-bit result once: overflow gives infinity, NaN a quiet NaN. */
uint16_t hr_half_from_double(cuprim_dtype t, double v);
/* h[i] = the low cuprim_dtype_size(t) bytes of `bits` (little-endian: the value modulo 2^bits for
 * an integer dtype, the bit pattern for a float one). */
void hr_store_bits(cuprim_dtype t, void *h, uint64_t i, uint64_t bits);

/* "i32", "sum" (the library's names), or "dtype(12)", "op(9)" for a value outside the enum. The
 * fallback is kept in one static buffer per function (messages on one thread). */
const char *hr_dtype_name(cuprim_dtype t);
const char *hr_op_name(cuprim_op op);

/* The primitives, for the algorithm names. */
typedef enum hr_primitive {
  HR_REDUCE = 0,
  HR_SCAN = 1,
  HR_HISTOGRAM = 2,
  HR_SEGMENTED = 3 /* the segmented reduce's algorithms (cuprim_segmented_alg) */
} hr_primitive;
/* The name of algorithm `alg` (a cuprim_*_alg value) of p, lower case as the cuprim program and
 * cuprim-bench spell it ("auto", "global_tree", "decoupled_lookback"); NULL if out of range. */
const char *hr_alg_name(hr_primitive p, int alg);
/* The number of algorithms of p: the enum's values are 0 .. count-1. */
int hr_alg_count(hr_primitive p);
/* Shorthands, with "alg(N)" for a value out of range. */
const char *hr_reduce_alg_name(cuprim_reduce_alg alg);
const char *hr_scan_alg_name(cuprim_scan_alg alg);
const char *hr_scan_kind_name(cuprim_scan_kind kind); /* "inclusive", "exclusive" */
const char *hr_segmented_alg_name(cuprim_segmented_alg alg);

/* ---------------------------------------------------------------- values as text */

/* One element as text that reads back to the same value: integers exactly, F32 with 9, F64 with
 * 17, F16 with 5 and BF16 with 4 significant digits; "nan", "inf", "-inf". "?" outside the enum. */
void hr_format_value(cuprim_dtype t, const void *p, char *buf, size_t len);
/* The same followed by the element's bits, for failure messages: "-5 (0xfffffffb)",
 * "0.100000001 (0x3dcccccd)". */
void hr_format_value_bits(cuprim_dtype t, const void *p, char *buf, size_t len);
/* "2^26" for a power of two, else the decimal number. */
void hr_format_count(uint64_t n, char *buf, size_t len);

/* 1 if the two elements of t have the same bits, or are both NaN. */
int hr_same_value(cuprim_dtype t, const void *a, const void *b);

/* A 64-bit hash of bytes (for "same bits" comparisons of outputs that are not kept). */
uint64_t hr_hash_bytes(const void *p, size_t bytes);

/* ---------------------------------------------------------------- ops */

/* The identity of op for t in out (cuprim_dtype_size(t) bytes; unaligned is fine): SUM 0, PROD 1,
 * MIN the largest value or +inf, MAX the lowest value or -inf, AND all ones, OR and XOR 0. */
void hr_identity(cuprim_dtype t, cuprim_op op, void *out);

/* *acc = *acc op *x for one element of t (unaligned pointers are fine). AND/OR/XOR on floats,
 * F16, BF16 and values outside the enums leave *acc unchanged. */
void hr_combine(cuprim_dtype t, cuprim_op op, void *acc, const void *x);

/* The reduce of in[0..n) element by element in index order, in t's own arithmetic (floats
 * rounded at every step): out (one element) = identity op in[0] op ... op in[n-1]. Exact for
 * integers and float MIN/MAX; for float SUM and PROD one order among many (hostref_reduce.h has
 * the references with error bounds). */
void hr_reduce_seq(cuprim_dtype t, cuprim_op op, const void *in, uint64_t n, void *out);
/* The scan of in[0..n) into out[0..n) the same way (out == in allowed): inclusive out[i] =
 * in[0] op ... op in[i]; exclusive out[0] = the identity, out[i] = in[0] op ... op in[i-1]. */
void hr_scan_seq(cuprim_dtype t, cuprim_op op, cuprim_scan_kind kind, const void *in, void *out,
                 uint64_t n);

#ifdef __cplusplus
}
#endif

#endif /* CUPRIM_HARNESS_HOSTREF_H */
