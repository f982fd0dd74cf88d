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

int tu_quick(void) {
  const char *env = getenv("CUPRIM_TEST_QUICK");
  return env && *env && strcmp(env, "0") != 0;
}

void tu_apply_test_filter(void) {
  const char *env = getenv("CUPRIM_TEST_FILTER");
  if (env && *env) {
    print_message("CUPRIM_TEST_FILTER=\"%s\": only the tests that match run\n", env);
    cmocka_set_test_filter(env);
  }
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
