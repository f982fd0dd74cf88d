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

/* ---------------------------------------------------------------- names */

const char *tu_status_name(cuprim_status s); /* "CUPRIM_SUCCESS", ... */

/* ---------------------------------------------------------------- guard patterns */

void tu_fill_pattern(void *p, size_t bytes, unsigned char pattern);
/* The offset of the first byte of p[0..bytes) that is not `pattern`, or bytes if all are. */
size_t tu_pattern_mismatch(const void *p, size_t bytes, unsigned char pattern);

#endif
