/* 16-bit floats on the host (test_f16.h): one routine for both formats, parameterized by the
 * exponent and significand widths. */
#include "test_f16.h"

#include <math.h>

typedef struct half_format {
  int exp_bits, man_bits; /* F16: 5, 10; BF16: 8, 7 */
} half_format;

static const half_format F16_FORMAT = {5, 10}, BF16_FORMAT = {8, 7};

static double to_double(half_format f, uint16_t bits) {
  const int bias = (1 << (f.exp_bits - 1)) - 1;
  const unsigned e = (bits >> f.man_bits) & ((1u << f.exp_bits) - 1);
  const unsigned m = bits & ((1u << f.man_bits) - 1);
  const double sign = (bits & 0x8000u) ? -1.0 : 1.0;
  if (e == (1u << f.exp_bits) - 1)
    return m ? copysign((double)NAN, sign) : sign * (double)INFINITY;
  if (e == 0) /* zero or subnormal: m * 2^(1 - bias - man_bits) */
    return sign * ldexp((double)m, 1 - bias - f.man_bits);
  return sign * ldexp((double)(m | (1u << f.man_bits)), (int)e - bias - f.man_bits);
}

static uint16_t from_double(half_format f, double v) {
  const int bias = (1 << (f.exp_bits - 1)) - 1;
  const uint16_t sign = signbit(v) ? 0x8000u : 0;
  const uint16_t inf = (uint16_t)(((1u << f.exp_bits) - 1) << f.man_bits);
  if (isnan(v))
    return (uint16_t)(sign | inf | (1u << (f.man_bits - 1)));
  const double a = fabs(v);
  if (a == 0.0)
    return sign;
  if (isinf(a))
    return (uint16_t)(sign | inf);
  int e2;
  (void)frexp(a, &e2); /* a = m * 2^e2, m in [0.5, 1): a's exponent is e2 - 1 */
  const int emin = 1 - bias;
  const int exp = e2 - 1 < emin ? emin : e2 - 1;
  /* a in units of the last significand bit at that exponent; scaling by a power of two is exact,
   * and rint rounds to nearest even (the default rounding mode). */
  const double q = rint(ldexp(a, f.man_bits - exp));
  /* q <= 2^(man_bits + 1): the significand with its leading bit (0 for subnormals), or one past
   * the largest, which carries into the exponent. Encoding q + (exp - emin) << man_bits works
   * for both: the leading bit is the exponent field's lowest bit. */
  const uint32_t code = (uint32_t)q + ((uint32_t)(exp - emin) << f.man_bits);
  if (code >= inf)
    return (uint16_t)(sign | inf); /* overflow */
  return (uint16_t)(sign | code);
}

double tu_f16_to_double(uint16_t bits) { return to_double(F16_FORMAT, bits); }
double tu_bf16_to_double(uint16_t bits) { return to_double(BF16_FORMAT, bits); }
uint16_t tu_f16_from_double(double v) { return from_double(F16_FORMAT, v); }
uint16_t tu_bf16_from_double(double v) { return from_double(BF16_FORMAT, v); }

double tu_half_to_double(cuprim_dtype t, uint16_t bits) {
  return t == CUPRIM_BF16 ? tu_bf16_to_double(bits) : tu_f16_to_double(bits);
}

uint16_t tu_half_from_double(cuprim_dtype t, double v) {
  return t == CUPRIM_BF16 ? tu_bf16_from_double(v) : tu_f16_from_double(v);
}

double tu_half_max(cuprim_dtype t) {
  return t == CUPRIM_BF16 ? tu_bf16_to_double(0x7f7fu) : tu_f16_to_double(0x7bffu);
}
