/* Helpers shared by the cmocka tests: the environment (seed, quick mode), whether a CUDA device
 * is usable and why not, status names and guard patterns. The seeded generator, dtype and op
 * names, values as text and the references are the host references that the bench and the
 * cuprim program share (harness/hostref*.h; hostref.h is included here). Host code, plain C11.
 * Include it instead of <cmocka.h>: it includes cmocka's prerequisites in the order cmocka.h
 * needs them. */
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

#include "hostref.h"

/* ---------------------------------------------------------------- environment */

/* CUPRIM_TEST_SEED (decimal or 0x-hex) or a fixed default. Printed the first time it is asked. */
uint64_t tu_seed(void);
/* 1 if CUPRIM_TEST_QUICK is set to anything but "" or "0" (runs under compute-sanitizer: fewer
 * sizes, no size past 2^17, no large case, fewer data kinds). */
int tu_quick(void);
/* CUPRIM_TEST_SHARD="K/N" (decimal, 0 <= K < N <= 4096): the tests that count their cases
 * (tf_shard_case, test_fixture_gpu.h) run only the cases whose index is K modulo N, so that a
 * long test can run as N processes, e.g. under compute-sanitizer racecheck (scripts/gpu_suite.sh
 * --sanitize-shards). Unset or "": *k = 0, *n = 1. Returns 0, and leaves *k = 0, *n = 1, if the
 * value is not of that form. */
int tu_shard(unsigned *k, unsigned *n);
/* CUPRIM_TEST_PART="J/M", of the same form: the tests whose cases have parts (tf_shard_part,
 * test_fixture_gpu.h) run, of each case that runs, only the parts whose index is J modulo M, so
 * that a case too long for one process runs as M. Unset, "" and malformed as tu_shard. */
int tu_part(unsigned *j, unsigned *m);

/* ---------------------------------------------------------------- the tests of a program */

/* A test registers itself where it is defined, as GoogleTest's and Catch's do: TU_TEST(test_x)
 * { body } defines test_x(void **state) and a constructor that adds it to the program's registry
 * before main() runs, so that no list in main() names the tests a second time. The fixtures'
 * macros that define tests (TF_TEST, TF_SWEEP_TESTS_32_64, ...) register the same way. cmocka
 * names a test by the words written in the macro: what CUPRIM_TEST_FILTER and
 * scripts/gpu_suite.sh go by.
 *
 * A program runs its tests in the order they are defined in its source file: by line, then, for
 * the tests one macro defines on one line, by `order`. Constructors run in no order C promises,
 * hence the sort; and a line number orders nothing across files, hence every test of a program is
 * defined in one file (the runner refuses otherwise). */
typedef struct tu_test {
  const char *name;
  CMUnitTestFunction fn;
  const char *file;
  int line, order;
  struct tu_test *next; /* the registry's list, in the order the constructors ran */
} tu_test;
void tu_register(tu_test *t);

/* Registers fn as the test named `name`, the order-th test defined on its line. */
#define TU_REGISTER_AS(name, fn, order)                                                            \
  static tu_test tu_test_##name = {#name, fn, __FILE__, __LINE__, order, NULL};                    \
  static void tu_register_##name(void) __attribute__((constructor));                               \
  static void tu_register_##name(void) { tu_register(&tu_test_##name); }

/* A test: TU_TEST(test_x) { body } defines and registers test_x(void **state). */
#define TU_TEST(name)                                                                              \
  static void name(void **state);                                                                  \
  TU_REGISTER_AS(name, name, 0)                                                                    \
  static void name(void **state)

/* A program's main(): tu_main(setup, teardown, NULL, 0). TU_MAIN_GPU: the same with needs_device
 * 1, for a program whose tests skip without a device. */
#define TU_MAIN(setup, teardown)                                                                   \
  int main(void) { return tu_main(setup, teardown, NULL, 0); }
#define TU_MAIN_GPU(setup, teardown)                                                               \
  int main(void) { return tu_main(setup, teardown, NULL, 1); }

/* Runs the registered tests in order, then `last` if not NULL, as one cmocka group with the group
 * setup and teardown given (NULL: none). CUPRIM_TEST_FILTER, if set, runs only the tests whose
 * names match it (cmocka's pattern: `*` and `?` wildcards), e.g. to run one slow test under
 * compute-sanitizer. Returns cmocka's count of failed tests; with needs_device, 77 (CTest's
 * SKIP_RETURN_CODE) instead of 0 when no device is usable (every test skipped).
 *
 * CUPRIM_TEST_LIST set to anything but "" or "0": prints the names of the tests, in the order they
 * would run, one a line, and returns 0, before anything else: no device is touched, the group
 * setup does not run, CUPRIM_TEST_FILTER is not applied. */
int tu_main(CMFixtureFunction setup, CMFixtureFunction teardown, const struct CMUnitTest *last,
            int needs_device);

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

/* ---------------------------------------------------------------- names */

const char *tu_status_name(cuprim_status s); /* "CUPRIM_SUCCESS", ... */

/* ---------------------------------------------------------------- guard patterns */

void tu_fill_pattern(void *p, size_t bytes, unsigned char pattern);
/* The offset of the first byte of p[0..bytes) that is not `pattern`, or bytes if all are. */
size_t tu_pattern_mismatch(const void *p, size_t bytes, unsigned char pattern);

#endif
