#include "test_util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- environment */

#define TU_DEFAULT_SEED 0x00C0FFEE2026ull

uint64_t tu_seed(void) {
  static int done;
  static uint64_t seed;
  if (!done) {
    const char *env = getenv("CUPRIM_TEST_SEED");
    seed = TU_DEFAULT_SEED;
    if (env && *env) {
      char *end = NULL;
      unsigned long long v = strtoull(env, &end, 0);
      if (end && *end == '\0')
        seed = (uint64_t)v;
      else
        print_message("CUPRIM_TEST_SEED=\"%s\" is not a number; using the default\n", env);
    }
    print_message("seed: CUPRIM_TEST_SEED=0x%" PRIx64 "%s\n", seed,
                  seed == TU_DEFAULT_SEED ? " (default)" : "");
    done = 1;
  }
  return seed;
}

/* 1 if the variable is set to anything but "" or "0". */
static int env_flag(const char *name) {
  const char *env = getenv(name);
  return env && *env && strcmp(env, "0") != 0;
}

int tu_quick(void) { return env_flag("CUPRIM_TEST_QUICK"); }

/* Reads a decimal number at *p, advancing *p; -1 if there is none or it has more than 4 digits. */
static long small_number(const char **p) {
  long v = 0;
  int digits = 0;
  for (; **p >= '0' && **p <= '9' && digits < 5; ++*p, ++digits)
    v = v * 10 + (**p - '0');
  return digits == 0 || digits > 4 ? -1 : v;
}

/* "K/N" (decimal, 0 <= K < N <= 4096) from the variable `name`: tu_shard and tu_part. */
static int k_of_n(const char *name, unsigned *k, unsigned *n) {
  const char *env = getenv(name);
  *k = 0;
  *n = 1;
  if (!env || !*env)
    return 1;
  const char *p = env;
  const long a = small_number(&p);
  if (*p++ != '/')
    return 0;
  const long b = small_number(&p);
  if (*p != '\0' || a < 0 || b < 1 || b > 4096 || a >= b)
    return 0;
  *k = (unsigned)a;
  *n = (unsigned)b;
  return 1;
}

int tu_shard(unsigned *k, unsigned *n) { return k_of_n("CUPRIM_TEST_SHARD", k, n); }

int tu_part(unsigned *j, unsigned *m) { return k_of_n("CUPRIM_TEST_PART", j, m); }

static void apply_test_filter(void) {
  const char *env = getenv("CUPRIM_TEST_FILTER");
  if (env && *env) {
    print_message("CUPRIM_TEST_FILTER=\"%s\": only the tests that match run\n", env);
    cmocka_set_test_filter(env);
  }
}

/* ---------------------------------------------------------------- the tests of a program */

static tu_test *registry;
static size_t registered;

void tu_register(tu_test *t) {
  t->next = registry;
  registry = t;
  ++registered;
}

static int by_place(const void *a, const void *b) {
  const tu_test *x = *(const tu_test *const *)a, *y = *(const tu_test *const *)b;
  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  return (x->order > y->order) - (x->order < y->order);
}

/* The registered tests in definition order, then `last`, into tests[0..registered + 1); 0 if the
 * registry cannot give an order (tests from two files, two tests at one place), said on stderr. */
static int ordered_tests(struct CMUnitTest *tests, const struct CMUnitTest *last, size_t *count) {
  tu_test **sorted = malloc((registered ? registered : 1) * sizeof *sorted);
  if (!sorted) {
    fprintf(stderr, "out of memory for the list of %zu tests\n", registered);
    return 0;
  }
  size_t n = 0;
  for (tu_test *t = registry; t; t = t->next)
    sorted[n++] = t;
  qsort(sorted, n, sizeof *sorted, by_place);
  int ok = 1;
  for (size_t i = 0; i < n && ok; ++i) {
    if (strcmp(sorted[i]->file, sorted[0]->file) != 0) {
      fprintf(stderr,
              "%s is defined in %s, %s in %s: the tests of a program are ordered by line, "
              "so they must be defined in one file\n",
              sorted[0]->name, sorted[0]->file, sorted[i]->name, sorted[i]->file);
      ok = 0;
    } else if (i > 0 && by_place(&sorted[i - 1], &sorted[i]) == 0) {
      fprintf(stderr, "%s and %s are both registered at %s:%d, order %d\n", sorted[i - 1]->name,
              sorted[i]->name, sorted[i]->file, sorted[i]->line, sorted[i]->order);
      ok = 0;
    }
    tests[i] = (struct CMUnitTest){sorted[i]->name, sorted[i]->fn, NULL, NULL, NULL};
  }
  free(sorted);
  if (last)
    tests[n++] = *last;
  *count = n;
  return ok;
}

int tu_main(CMFixtureFunction setup, CMFixtureFunction teardown, const struct CMUnitTest *last,
            int needs_device) {
  struct CMUnitTest *tests = malloc((registered + 1) * sizeof *tests);
  size_t count = 0;
  if (!tests || !ordered_tests(tests, last, &count)) {
    free(tests);
    return 1;
  }
  int result = 0;
  if (env_flag("CUPRIM_TEST_LIST")) {
    for (size_t i = 0; i < count; ++i)
      printf("%s\n", tests[i].name);
  } else {
    apply_test_filter();
    /* "tests": the group's name in cmocka's output, as when main() named its array `tests`. */
    result = _cmocka_run_group_tests("tests", tests, count, setup, teardown);
    if (needs_device && result == 0 && !tu_device_available(NULL, 0))
      result = 77; /* every test skipped: no device (CTest SKIP_RETURN_CODE) */
  }
  free(tests);
  return result;
}

/* ---------------------------------------------------------------- device */

int tu_device_available(char *reason, size_t len) {
  static int known, available;
  static char why[256];
  if (!known) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
      snprintf(why, sizeof why, "no CUDA device: cudaGetDeviceCount: %s (%s)",
               cudaGetErrorString(e), cudaGetErrorName(e));
      (void)cudaGetLastError();
    } else if (count <= 0) {
      snprintf(why, sizeof why, "no CUDA device: cudaGetDeviceCount reports %d devices", count);
    } else {
      available = 1;
      snprintf(why, sizeof why, "%d CUDA device(s)", count);
    }
    known = 1;
  }
  if (reason && len)
    snprintf(reason, len, "%s", why);
  return available;
}

/* ---------------------------------------------------------------- names */

const char *tu_status_name(cuprim_status s) {
  static const char *const names[] = {"CUPRIM_SUCCESS",           "CUPRIM_ERROR_INVALID_ARGUMENT",
                                      "CUPRIM_ERROR_UNSUPPORTED", "CUPRIM_ERROR_OUT_OF_MEMORY",
                                      "CUPRIM_ERROR_NO_DEVICE",   "CUPRIM_ERROR_CUDA",
                                      "CUPRIM_ERROR_INTERNAL",    "CUPRIM_ERROR_NCCL"};
  static char other[32];
  if ((unsigned)s < sizeof names / sizeof names[0])
    return names[s];
  snprintf(other, sizeof other, "status(%d)", (int)s);
  return other;
}

/* ---------------------------------------------------------------- guard patterns */

void tu_fill_pattern(void *p, size_t bytes, unsigned char pattern) { memset(p, pattern, bytes); }

size_t tu_pattern_mismatch(const void *p, size_t bytes, unsigned char pattern) {
  const unsigned char *c = (const unsigned char *)p;
  for (size_t i = 0; i < bytes; ++i)
    if (c[i] != pattern)
      return i;
  return bytes;
}
