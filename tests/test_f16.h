/* 16-bit floats on the host, for the tests: host code holds F16 (IEEE binary16) and BF16
 * (bfloat16) as uint16_t bits (core.h). Exact conversions to double, and conversions from double
 * rounded once to nearest even (what the library's single rounding of each output does to the
 * exact value). Plain C11, no CUDA headers. */
#ifndef CUPRIM_TEST_F16_H
#define CUPRIM_TEST_F16_H

#include <stdint.h>

#include <cuprim/core.h>

/* The value of the bits (exact: every F16 and BF16 value is a double). */
double tu_f16_to_double(uint16_t bits);
double tu_bf16_to_double(uint16_t bits);

/* v rounded to nearest even (ties to the even significand), overflowing to infinity as IEEE
 * does; a NaN gives a quiet NaN of v's sign. */
uint16_t tu_f16_from_double(double v);
uint16_t tu_bf16_from_double(double v);

/* The same through the dtype: t is CUPRIM_F16 or CUPRIM_BF16. */
double tu_half_to_double(cuprim_dtype t, uint16_t bits);
uint16_t tu_half_from_double(cuprim_dtype t, double v);

/* The largest finite value of t (65504 for F16, about 3.39e38 for BF16). */
double tu_half_max(cuprim_dtype t);

#endif
