/* The host references' element ops without a GPU (harness/hostref.c): identities, wrapping and
 * NaN-propagating combines (what joins the cuprim program's chunked passes), the element-by-element
 * reduce and scan, the histogram bin formula and reference as the program uses them, values as
 * text, and F16/BF16 (decoded, printed, rounded once from double, and computed in float); and
 * how the tests read CUPRIM_TEST_SHARD (test_util.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#include "hostref_histogram.h"
#include "hostref_reduce.h"

TU_TEST(test_combine_and_identity) {
  (void)state;
  /* Integer SUM and PROD wrap; MIN and MAX respect the sign. */
  int32_t i = INT32_MAX, j = 1;
  hr_combine(CUPRIM_I32, CUPRIM_SUM, &i, &j);
  assert_int_equal(i, INT32_MIN);
  uint16_t u16 = 65535, v16 = 65535;
  hr_combine(CUPRIM_U16, CUPRIM_PROD, &u16, &v16); /* 65535^2 mod 2^16 = 1 */
  assert_int_equal(u16, 1);
  int8_t a8 = -5, b8 = 3;
  hr_combine(CUPRIM_I8, CUPRIM_MIN, &a8, &b8);
  assert_int_equal(a8, -5);
  hr_combine(CUPRIM_I8, CUPRIM_MAX, &a8, &b8);
  assert_int_equal(a8, 3);
  uint64_t x = 0xF0F0, y = 0x0FF0;
  hr_combine(CUPRIM_U64, CUPRIM_AND, &x, &y);
  assert_int_equal(x, 0x00F0);
  hr_combine(CUPRIM_U64, CUPRIM_OR, &x, &y);
  assert_int_equal(x, 0x0FF0);
  hr_combine(CUPRIM_U64, CUPRIM_XOR, &x, &y);
  assert_int_equal(x, 0);
  int64_t p = INT64_MIN, q = -1;
  hr_combine(CUPRIM_I64, CUPRIM_PROD, &p, &q); /* wraps back to INT64_MIN */
  assert_true(p == INT64_MIN);
  /* Float MIN/MAX give NaN if either operand is NaN; SUM in the dtype's precision. */
  float f = 1.0f, g = NAN;
  hr_combine(CUPRIM_F32, CUPRIM_MIN, &f, &g);
  assert_true(isnan(f));
  f = NAN;
  g = 2.0f;
  hr_combine(CUPRIM_F32, CUPRIM_MAX, &f, &g);
  assert_true(isnan(f));
  f = 16777216.0f; /* 2^24: adding 1 rounds back in f32 */
  g = 1.0f;
  hr_combine(CUPRIM_F32, CUPRIM_SUM, &f, &g);
  assert_true(f == 16777216.0f);
  double dd = 3.0, ee = -4.0;
  hr_combine(CUPRIM_F64, CUPRIM_MIN, &dd, &ee);
  assert_true(dd == -4.0);
  /* Identities: op(identity, x) == x for every dtype, op and a few x. */
  for (int d = 0; d < HR_NUM_DTYPES; ++d) {
    const cuprim_dtype t = hr_all_dtypes[d];
    const size_t size = cuprim_dtype_size(t);
    for (int op = 0; op <= CUPRIM_XOR; ++op) {
      if (hr_is_float(t) && op >= CUPRIM_AND)
        continue;
      uint64_t state_ = 12345;
      for (int k = 0; k < 50; ++k) {
        unsigned char id[8], val[8];
        uint64_t r = hr_splitmix64(&state_);
        if (hr_is_float(t)) {
          /* integers in [-8e6, 8.8e6), over 2^8 for F16 and BF16 (below F16's 65504) */
          const double v = (double)(int64_t)(r >> 40) - 8e6;
          hr_store_float(t, val, 0, size == 2 ? ldexp(v, -8) : v);
        } else {
          memcpy(val, &r, size);
        }
        hr_identity(t, (cuprim_op)op, id);
        hr_combine(t, (cuprim_op)op, id, val);
        if (memcmp(id, val, size) != 0)
          fail_msg("identity of %s on %s is not neutral", hr_op_name((cuprim_op)op),
                   hr_dtype_name(t));
      }
    }
  }
  /* Specific identities. */
  int16_t id16;
  hr_identity(CUPRIM_I16, CUPRIM_MIN, &id16);
  assert_int_equal(id16, INT16_MAX);
  hr_identity(CUPRIM_I16, CUPRIM_MAX, &id16);
  assert_int_equal(id16, INT16_MIN);
  uint32_t id32;
  hr_identity(CUPRIM_U32, CUPRIM_AND, &id32);
  assert_int_equal(id32, UINT32_MAX);
  hr_identity(CUPRIM_U32, CUPRIM_MAX, &id32);
  assert_int_equal(id32, 0);
  float idf;
  hr_identity(CUPRIM_F32, CUPRIM_MIN, &idf);
  assert_true(isinf(idf) && idf > 0);
  hr_identity(CUPRIM_F32, CUPRIM_PROD, &idf);
  assert_true(idf == 1.0f);
}

/* Joining passes with hr_combine gives the single-pass result, for every split: what a chunked
 * reduce relies on (exact for integers). */
TU_TEST(test_chunked_reduce_join) {
  (void)state;
  enum { N = 1000 };
  uint32_t data[N];
  uint64_t s = 99;
  for (int i = 0; i < N; ++i)
    data[i] = (uint32_t)hr_splitmix64(&s);
  for (int op = 0; op <= CUPRIM_XOR; ++op) {
    uint32_t whole;
    hr_reduce_seq(CUPRIM_U32, (cuprim_op)op, data, N, &whole);
    for (int chunk = 1; chunk <= N; chunk = chunk * 3 + 1) {
      uint32_t acc = 0, part;
      for (int off = 0; off < N; off += chunk) {
        const int m = N - off < chunk ? N - off : chunk;
        hr_reduce_seq(CUPRIM_U32, (cuprim_op)op, data + off, (uint64_t)m, &part);
        if (off == 0)
          acc = part;
        else
          hr_combine(CUPRIM_U32, (cuprim_op)op, &acc, &part);
      }
      assert_int_equal(acc, whole);
    }
  }
  /* n == 0: the identity. */
  int64_t r = 5;
  hr_reduce_seq(CUPRIM_I64, CUPRIM_PROD, NULL, 0, &r);
  assert_int_equal(r, 1);
}

/* The scan's carry scheme on the host: an inclusive scan of [carry, x...] gives the pass's
 * inclusive results after the carry and its exclusive ones from the carry on. */
TU_TEST(test_scan_carry_scheme) {
  (void)state;
  enum { N = 500 };
  int32_t in[N], want_incl[N], want_excl[N], got[N];
  uint64_t s = 7;
  for (int i = 0; i < N; ++i)
    in[i] = (int32_t)(hr_splitmix64(&s) % 2001) - 1000;
  for (int op = 0; op <= CUPRIM_XOR; ++op) {
    hr_scan_seq(CUPRIM_I32, (cuprim_op)op, CUPRIM_INCLUSIVE, in, want_incl, N);
    hr_scan_seq(CUPRIM_I32, (cuprim_op)op, CUPRIM_EXCLUSIVE, in, want_excl, N);
    for (int kind = 0; kind < 2; ++kind) {
      for (int chunk = 1; chunk <= N; chunk = chunk * 2 + 3) {
        int32_t buf[N + 1], carry;
        hr_identity(CUPRIM_I32, (cuprim_op)op, &carry);
        for (int off = 0; off < N; off += chunk) {
          const int m = N - off < chunk ? N - off : chunk;
          buf[0] = carry;
          memcpy(buf + 1, in + off, (size_t)m * sizeof(int32_t));
          hr_scan_seq(CUPRIM_I32, (cuprim_op)op, CUPRIM_INCLUSIVE, buf, buf, (uint64_t)m + 1);
          memcpy(got + off, kind == CUPRIM_EXCLUSIVE ? buf : buf + 1, (size_t)m * sizeof(int32_t));
          carry = buf[m];
        }
        assert_memory_equal(got, kind == CUPRIM_EXCLUSIVE ? want_excl : want_incl, sizeof got);
      }
    }
  }
  /* The reference itself, on a small case: exclusive starts from the identity. */
  const int32_t small[4] = {3, -1, 4, 1};
  int32_t out[4];
  hr_scan_seq(CUPRIM_I32, CUPRIM_SUM, CUPRIM_INCLUSIVE, small, out, 4);
  assert_true(out[0] == 3 && out[1] == 2 && out[2] == 6 && out[3] == 7);
  hr_scan_seq(CUPRIM_I32, CUPRIM_MAX, CUPRIM_EXCLUSIVE, small, out, 4);
  assert_true(out[0] == INT32_MIN && out[1] == 3 && out[2] == 3 && out[3] == 4);
}

TU_TEST(test_histogram_reference) {
  (void)state;
  /* histogram.h's formula: clamped to the last bin, upper edge and NaN not counted. */
  const hr_hist_bins even = hr_hist_bins_even(4, 0.0, 1.0);
  const double edges[4] = {-1.0, 0.0, 0.5, 10.0};
  const hr_hist_bins given = hr_hist_bins_edges(3, edges);
  const uint32_t none = HR_HIST_NO_BIN;
  /* the bins, a sample, the bin it must fall in */
  const struct {
    const hr_hist_bins *b;
    double x;
    uint32_t want;
  } bins[] = {{&even, 0.0, 0},    {&even, 0.25, 1},     {&even, 0.9999999999, 3},
              {&even, 1.0, none}, {&even, -0.1, none},  {&even, NAN, none},
              {&given, -1.0, 0},  {&given, 0.0, 1},     {&given, 0.49, 1},
              {&given, 9.99, 2},  {&given, 10.0, none}, {&given, -2.0, none},
              {&given, NAN, none}};
  for (size_t i = 0; i < sizeof bins / sizeof bins[0]; ++i) {
    const uint32_t got = hr_hist_bin(bins[i].b, bins[i].x);
    if (got != bins[i].want)
      fail_msg("hr_hist_bin(%s bins, %.17g) = %u, expected %u",
               bins[i].b == &even ? "even" : "edge", bins[i].x, (unsigned)got,
               (unsigned)bins[i].want);
  }
  const uint8_t samples[6] = {0, 1, 2, 255, 128, 1};
  uint64_t counts[2] = {9, 9}; /* overwritten */
  const hr_hist_bins halves = hr_hist_bins_even(2, 0.0, 256.0);
  assert_int_equal(hr_hist_reference(&halves, CUPRIM_U8, samples, 6, counts), 6);
  assert_int_equal(counts[0], 4);
  assert_int_equal(counts[1], 2);
  const double e2[3] = {0.5, 1.5, 200.0};
  const hr_hist_bins two = hr_hist_bins_edges(2, e2);
  uint64_t c2[2];
  assert_int_equal(hr_hist_reference(&two, CUPRIM_U8, samples, 6, c2), 4);
  assert_int_equal(c2[0], 2); /* the two 1s */
  assert_int_equal(c2[1], 2); /* 2 and 128 */
  /* The edges the program prints for even bins: exact ends, lower + k * width / bins between. */
  assert_true(hr_hist_edge(&even, 0) == 0.0 && hr_hist_edge(&even, 1) == 0.25);
  assert_true(hr_hist_edge(&even, 4) == 1.0);
  /* The ranges the library refuses: the program checks them with hr_hist_even_valid. */
  assert_true(hr_hist_even_valid(256, 0.0, 1.0));
  assert_false(hr_hist_even_valid(256, -1e308, 1e308)); /* upper - lower overflows: scale 0 */
  assert_false(hr_hist_even_valid(4, 0.0, 1e-320));     /* the scale overflows */
  assert_false(hr_hist_even_valid(0, 0.0, 1.0));
  assert_false(hr_hist_even_valid(4, 1.0, 1.0));
}

TU_TEST(test_format_value) {
  (void)state;
  char buf[64];
  const int8_t i8 = -128;
  hr_format_value(CUPRIM_I8, &i8, buf, sizeof buf);
  assert_string_equal(buf, "-128");
  const uint64_t u64 = UINT64_MAX;
  hr_format_value(CUPRIM_U64, &u64, buf, sizeof buf);
  assert_string_equal(buf, "18446744073709551615");
  const int64_t i64 = INT64_MIN;
  hr_format_value(CUPRIM_I64, &i64, buf, sizeof buf);
  assert_string_equal(buf, "-9223372036854775808");
  const float f = 0.1f;
  hr_format_value(CUPRIM_F32, &f, buf, sizeof buf);
  assert_string_equal(buf, "0.100000001");
  const double d = 0.1;
  hr_format_value(CUPRIM_F64, &d, buf, sizeof buf);
  assert_string_equal(buf, "0.10000000000000001");
  const double specials[3] = {NAN, INFINITY, -INFINITY};
  hr_format_value(CUPRIM_F64, &specials[0], buf, sizeof buf);
  assert_string_equal(buf, "nan");
  hr_format_value(CUPRIM_F64, &specials[1], buf, sizeof buf);
  assert_string_equal(buf, "inf");
  hr_format_value(CUPRIM_F64, &specials[2], buf, sizeof buf);
  assert_string_equal(buf, "-inf");
  const float fn = NAN, fn2 = -NAN;
  assert_true(hr_same_value(CUPRIM_F32, &fn, &fn2));
  const float zero = 0.0f, negzero = -0.0f;
  assert_false(hr_same_value(CUPRIM_F32, &zero, &negzero));
}

TU_TEST(test_half_floats) {
  (void)state;
  char buf[64];
  /* binary16: 1.0 is 0x3c00, the smallest subnormal 2^-24, 65504 the largest finite value. */
  const uint16_t h[5] = {0x3C00, 0x0001, 0x7BFF, 0xFC00, 0x7E00};
  assert_true(hr_to_double(CUPRIM_F16, h, 0) == 1.0);
  assert_true(hr_to_double(CUPRIM_F16, h, 1) == ldexp(1.0, -24));
  assert_true(hr_to_double(CUPRIM_F16, h, 2) == 65504.0);
  assert_true(isinf(hr_to_double(CUPRIM_F16, h, 3)) && hr_to_double(CUPRIM_F16, h, 3) < 0);
  assert_true(isnan(hr_to_double(CUPRIM_F16, h, 4)));
  hr_format_value(CUPRIM_F16, &h[2], buf, sizeof buf);
  assert_string_equal(buf, "65504");
  /* bfloat16: the high half of a binary32. */
  const uint16_t b = 0x3FC0; /* 1.5 */
  assert_true(hr_to_double(CUPRIM_BF16, &b, 0) == 1.5);
  hr_format_value_bits(CUPRIM_BF16, &b, buf, sizeof buf);
  assert_string_equal(buf, "1.5 (0x3fc0)");
  /* Identities; combine computes in float and rounds once. */
  uint16_t id, x = 0x4000;
  hr_identity(CUPRIM_F16, CUPRIM_MIN, &id);
  assert_int_equal(id, 0x7C00);
  hr_identity(CUPRIM_BF16, CUPRIM_PROD, &id);
  assert_int_equal(id, 0x3F80);
  hr_combine(CUPRIM_BF16, CUPRIM_PROD, &id, &x); /* 1 * 2 */
  assert_int_equal(id, 0x4000);
  /* Rounding from double: to nearest, ties to even; overflow to infinity; subnormals. */
  assert_int_equal(hr_half_from_double(CUPRIM_F16, 2049.0), 0x6800);  /* tie: down to 2048 */
  assert_int_equal(hr_half_from_double(CUPRIM_F16, 2051.0), 0x6802);  /* tie: up to 2052 */
  assert_int_equal(hr_half_from_double(CUPRIM_F16, 65519.0), 0x7BFF); /* below the halfway */
  assert_int_equal(hr_half_from_double(CUPRIM_F16, 65520.0), 0x7C00); /* halfway: infinity */
  assert_int_equal(hr_half_from_double(CUPRIM_F16, -ldexp(1.0, -25)), 0x8000); /* tie to -0 */
  assert_int_equal(hr_half_from_double(CUPRIM_F16, ldexp(3.0, -26)), 0x0001);
  assert_int_equal(hr_half_from_double(CUPRIM_BF16, 1.0 + ldexp(1.0, -8)), 0x3F80); /* tie */
  assert_int_equal(hr_half_from_double(CUPRIM_BF16, 1.0 + ldexp(3.0, -8)), 0x3F82);
  assert_true(
      isnan(hr_to_double(CUPRIM_BF16, (uint16_t[]){hr_half_from_double(CUPRIM_BF16, NAN)}, 0)));
  /* A scan keeps its running value in float and rounds each output once: 2048 + 1 + 1 is 2050,
   * where rounding the running value at every step would stay at 2048. */
  const uint16_t in[3] = {0x6800, 0x3C00, 0x3C00}; /* 2048, 1, 1 */
  uint16_t out[3];
  hr_scan_seq(CUPRIM_F16, CUPRIM_SUM, CUPRIM_INCLUSIVE, in, out, 3);
  assert_int_equal(out[0], 0x6800);
  assert_int_equal(out[1], 0x6800); /* 2049 rounds to 2048 */
  assert_int_equal(out[2], 0x6801); /* 2050 */
  hr_reduce_seq(CUPRIM_F16, CUPRIM_SUM, in, 3, &id);
  assert_int_equal(id, 0x6801);
  assert_string_equal(hr_dtype_name(CUPRIM_BF16), "bf16");
  assert_string_equal(hr_dtype_name((cuprim_dtype)12), "dtype(12)");
  hr_format_value((cuprim_dtype)12, &x, buf, sizeof buf);
  assert_string_equal(buf, "?");
}

/* Membership of the subsets of test_dtype_lists, stated otherwise than by the lists: what the
 * library's reduce and scan take, the size, hr_is_float. */
static int reduce_scan_takes(cuprim_dtype t) {
  return cuprim_reduce_supported(t, CUPRIM_SUM) && cuprim_scan_supported(t, CUPRIM_SUM);
}
static int is_32_64(cuprim_dtype t) { return cuprim_dtype_size(t) >= 4; }

/* The lists of dtypes (hostref.h): hr_all_dtypes is every dtype the library names, in enum order
 * (a dtype the library adds fails here until it is added to the list); the others are the
 * subsets they say, in the same order. */
TU_TEST(test_dtype_lists) {
  (void)state;
  for (int d = 0; d < HR_NUM_DTYPES; ++d) {
    assert_int_equal(hr_all_dtypes[d], d);
    assert_non_null(cuprim_dtype_name(hr_all_dtypes[d]));
  }
  assert_null(cuprim_dtype_name((cuprim_dtype)HR_NUM_DTYPES));
  const struct {
    const char *name;
    const cuprim_dtype *list;
    int count;
    int (*in)(cuprim_dtype t);
  } subsets[] = {{"hr_reduce_scan_dtypes", hr_reduce_scan_dtypes, HR_NUM_REDUCE_SCAN_DTYPES,
                  reduce_scan_takes},
                 {"hr_dtypes_32_64", hr_dtypes_32_64, HR_NUM_DTYPES_32_64, is_32_64},
                 {"hr_float_dtypes", hr_float_dtypes, HR_NUM_FLOAT_DTYPES, hr_is_float}};
  for (size_t s = 0; s < sizeof subsets / sizeof subsets[0]; ++s) {
    int k = 0; /* the next entry of the subset */
    for (int d = 0; d < HR_NUM_DTYPES; ++d) {
      const cuprim_dtype t = hr_all_dtypes[d];
      if (!subsets[s].in(t))
        continue;
      if (k >= subsets[s].count || subsets[s].list[k] != t)
        fail_msg("%s: entry %d is not %s", subsets[s].name, k, hr_dtype_name(t));
      ++k;
    }
    assert_int_equal(k, subsets[s].count);
  }
}

TU_TEST(test_names_and_counts) {
  (void)state;
  char buf[32];
  assert_string_equal(hr_alg_name(HR_SCAN, CUPRIM_SCAN_DECOUPLED_LOOKBACK), "decoupled_lookback");
  assert_null(hr_alg_name(HR_HISTOGRAM, hr_alg_count(HR_HISTOGRAM)));
  assert_string_equal(hr_reduce_alg_name((cuprim_reduce_alg)99), "alg(99)");
  assert_string_equal(hr_scan_kind_name(CUPRIM_EXCLUSIVE), "exclusive");
  hr_format_count((uint64_t)1 << 26, buf, sizeof buf);
  assert_string_equal(buf, "2^26");
  hr_format_count(100003, buf, sizeof buf);
  assert_string_equal(buf, "100003");
  /* The counter-based generator: element i alone, the same as splitmix64's (i+1)-th output. */
  uint64_t state_ = 42;
  for (uint64_t i = 0; i < 5; ++i)
    assert_true(hr_element_bits(42, i) == hr_splitmix64(&state_));
}

/* cuprim_reduce_arg's order, which the program uses to join the passes of `reduce --op argmin`:
 * integers exactly (64-bit values a double cannot tell apart, sign by width), ties to the first,
 * the first NaN, -0.0 equal to +0.0. */
TU_TEST(test_arg_order) {
  (void)state;
  const int64_t big[3] = {INT64_MAX - 1, INT64_MAX, INT64_MAX - 1};
  assert_int_equal(hr_reduce_arg_reference(CUPRIM_I64, CUPRIM_ARGMAX, big, 3), 1);
  assert_int_equal(hr_reduce_arg_reference(CUPRIM_I64, CUPRIM_ARGMIN, big, 3), 0);
  const int8_t i8[4] = {5, -128, 127, -128};
  assert_int_equal(hr_reduce_arg_reference(CUPRIM_I8, CUPRIM_ARGMIN, i8, 4), 1);
  assert_int_equal(hr_reduce_arg_reference(CUPRIM_I8, CUPRIM_ARGMAX, i8, 4), 2);
  const uint8_t u8[3] = {5, 255, 0};
  assert_int_equal(hr_reduce_arg_reference(CUPRIM_U8, CUPRIM_ARGMAX, u8, 3), 1);
  const float f[6] = {1.0f, -0.0f, 0.0f, NAN, -INFINITY, NAN};
  assert_int_equal(hr_reduce_arg_reference(CUPRIM_F32, CUPRIM_ARGMIN, f, 3), 1);
  assert_int_equal(hr_reduce_arg_reference(CUPRIM_F32, CUPRIM_ARGMAX, f + 1, 2), 0);
  assert_int_equal(hr_reduce_arg_reference(CUPRIM_F32, CUPRIM_ARGMIN, f, 6), 3);
  assert_int_equal(hr_reduce_arg_reference(CUPRIM_F32, CUPRIM_ARGMAX, f, 6), 3);
  assert_int_equal(hr_reduce_arg_reference(CUPRIM_F32, CUPRIM_ARGMIN, f, 0), UINT64_MAX);
  const uint16_t h[3] = {0x3C00, 0xBC00, 0xBC00}; /* f16: 1, -1, -1 */
  assert_int_equal(hr_reduce_arg_reference(CUPRIM_F16, CUPRIM_ARGMIN, h, 3), 1);
}

/* CUPRIM_TEST_SHARD and CUPRIM_TEST_PART: K/N with 0 <= K < N <= 4096, nothing else; unset or ""
 * is 0/1. */
TU_TEST(test_shard_spec) {
  (void)state;
  static const struct {
    const char *value; /* NULL: unset */
    int ok;
    unsigned k, n;
  } cases[] = {{NULL, 1, 0, 1},
               {"", 1, 0, 1},
               {"0/1", 1, 0, 1},
               {"3/8", 1, 3, 8},
               {"4095/4096", 1, 4095, 4096},
               {"8/8", 0, 0, 1},
               {"0/0", 0, 0, 1},
               {"1/4097", 0, 0, 1},
               {"-1/4", 0, 0, 1},
               {" 1/4", 0, 0, 1},
               {"1/ 4", 0, 0, 1},
               {"1/4 ", 0, 0, 1},
               {"1", 0, 0, 1},
               {"1/", 0, 0, 1},
               {"/4", 0, 0, 1},
               {"1/4/2", 0, 0, 1},
               {"00001/4", 0, 0, 1},
               {"x/4", 0, 0, 1}};
  /* CUPRIM_TEST_PART has the same form; each variable is read alone (the other set to a valid
   * value that must not leak into it). */
  static const struct {
    const char *name, *other;
    int (*read)(unsigned *, unsigned *);
  } vars[] = {{"CUPRIM_TEST_SHARD", "CUPRIM_TEST_PART", tu_shard},
              {"CUPRIM_TEST_PART", "CUPRIM_TEST_SHARD", tu_part}};
  for (size_t v = 0; v < sizeof vars / sizeof vars[0]; ++v) {
    const char *saved = getenv(vars[v].name), *saved_other = getenv(vars[v].other);
    char *keep = saved ? strdup(saved) : NULL,
         *keep_other = saved_other ? strdup(saved_other) : NULL;
    assert_int_equal(setenv(vars[v].other, "5/6", 1), 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
      if (cases[i].value)
        assert_int_equal(setenv(vars[v].name, cases[i].value, 1), 0);
      else
        assert_int_equal(unsetenv(vars[v].name), 0);
      unsigned k = 77, n = 77;
      const int ok = vars[v].read(&k, &n);
      if (ok != cases[i].ok || k != cases[i].k || n != cases[i].n)
        fail_msg("%s=%s%s%s: got ok %d, %u/%u; expected ok %d, %u/%u", vars[v].name,
                 cases[i].value ? "\"" : "", cases[i].value ? cases[i].value : "(unset)",
                 cases[i].value ? "\"" : "", ok, k, n, cases[i].ok, cases[i].k, cases[i].n);
    }
    const char *names[] = {vars[v].name, vars[v].other};
    char *keeps[] = {keep, keep_other};
    for (int q = 0; q < 2; ++q) {
      if (keeps[q])
        setenv(names[q], keeps[q], 1);
      else
        unsetenv(names[q]);
      free(keeps[q]);
    }
  }
}

TU_MAIN(NULL, NULL)
