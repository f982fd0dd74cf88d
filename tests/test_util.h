/* Helpers shared by the cmocka tests: the environment (seed, quick mode), whether a CUDA device
 * is usable and why not, a seeded generator, names for failure messages, and guard patterns.
 * Host code, plain C11. Include it instead of <cmocka.h>: it includes cmocka's prerequisites in
 * the order cmocka.h needs them. */
#ifndef CUPRIM_TEST_UTIL_H
#define CUPRIM_TEST_UTIL_H

/* cmocka.h needs these before it. */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <cuprim/cuprim.h>

/* ---------------------------------------------------------------- environment */

/* CUPRIM_TEST_SEED (decimal or 0x-hex) or a fixed default. Printed the first time it is asked. */
uint64_t tu_seed(void);
/* 1 if CUPRIM_TEST_QUICK is set to anything but "" or "0" (runs under compute-sanitizer: fewer
 * sizes, no size past 2^17, no large case, fewer data kinds). */
int tu_quick(void);

/* CUPRIM_TEST_FILTER, if set: run only the tests whose names match it (cmocka's pattern: `*` and
 * `?` wildcards), e.g. to run one slow test under compute-sanitizer. Call before the group runs. */
void tu_apply_test_filter(void);

/* ---------------------------------------------------------------- device */

/* 1 if cudaGetDeviceCount reports at least one device. Otherwise 0, with a one-line reason
 * ("no CUDA device: cudaGetDeviceCount: <error string>") in reason[0..len). The answer is
 * computed once per process; CUDA's sticky last error is cleared. */
int tu_device_available(char *reason, size_t len);

/* Inside a cmocka test body: print the reason and skip() when no device is usable. (cmocka 1.1.5
 * counts a skip in a setup function as an error, so this must run in the test itself.) */
#define TU_SKIP_WITHOUT_DEVICE()                                                                   \
  do {                                                                                             \
    char tu_reason_[256];                                                                          \
    if (!tu_device_available(tu_reason_, sizeof tu_reason_)) {                                     \
      print_message("[  SKIP    ] %s\n", tu_reason_);                                              \
      skip();                                                                                      \
    }                                                                                              \
  } while (0)

/* ---------------------------------------------------------------- seeded generator */

/* splitmix64 (Steele, Lea, Flood): one 64-bit state word, good statistics, trivially seeded. */
static inline uint64_t tu_splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* A seed for one case, derived from a base seed and the case's parameters, so a failing case can
 * be named by a single number and regenerated alone. */
static inline uint64_t tu_mix(uint64_t seed, uint64_t a) {
  uint64_t s = seed ^ (a * 0xD6E8FEB86659FD93ull);
  return tu_splitmix64(&s);
}

/* Uniform in [0, bound) (bound > 0); the modulo bias is irrelevant for test data. */
static inline uint64_t tu_below(uint64_t *state, uint64_t bound) {
  return tu_splitmix64(state) % bound;
}

/* Uniform in [0, 1), 53 random bits. */
static inline double tu_unit(uint64_t *state) {
  return (double)(tu_splitmix64(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* ---------------------------------------------------------------- names and values */

const char *tu_dtype_name(cuprim_dtype t);      /* "I32", ...; "dtype(<n>)" if out of range */
const char *tu_op_name(cuprim_op op);           /* "SUM", ... */
const char *tu_alg_name(cuprim_reduce_alg alg); /* "AUTO", "GLOBAL_TREE", ... */
const char *tu_scan_alg_name(cuprim_scan_alg alg); /* "AUTO", "HILLIS_STEELE", ... */
const char *tu_scan_kind_name(cuprim_scan_kind k); /* "INCLUSIVE", "EXCLUSIVE" */
const char *tu_status_name(cuprim_status s);    /* "CUPRIM_SUCCESS", ... */

/* The value of one element of dtype t at p, for messages: "-5 (0xfffffffb)", "0.1 (0x3dcccccd)". */
void tu_format_value(cuprim_dtype t, const void *p, char *buf, size_t len);

/* ---------------------------------------------------------------- guard patterns */

void tu_fill_pattern(void *p, size_t bytes, unsigned char pattern);
/* The offset of the first byte of p[0..bytes) that is not `pattern`, or bytes if all are. */
size_t tu_pattern_mismatch(const void *p, size_t bytes, unsigned char pattern);

#endif
