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

/* ---------------------------------------------------------------- names and values */

const char *tu_dtype_name(cuprim_dtype t) {
  static const char *const names[] = {"I8",  "U8",  "I16", "U16", "I32",
                                      "U32", "I64", "U64", "F32", "F64"};
  static char other[32];
  if ((unsigned)t < sizeof names / sizeof names[0])
    return names[t];
  snprintf(other, sizeof other, "dtype(%d)", (int)t);
  return other;
}

const char *tu_op_name(cuprim_op op) {
  static const char *const names[] = {"SUM", "PROD", "MIN", "MAX", "AND", "OR", "XOR"};
  static char other[32];
  if ((unsigned)op < sizeof names / sizeof names[0])
    return names[op];
  snprintf(other, sizeof other, "op(%d)", (int)op);
  return other;
}

const char *tu_alg_name(cuprim_reduce_alg alg) {
  static const char *const names[] = {"AUTO",
                                      "GLOBAL_TREE",
                                      "NEIGHBORED_DIVERGENT",
                                      "NEIGHBORED_STRIDED",
                                      "SEQUENTIAL",
                                      "FIRST_ADD_ON_LOAD",
                                      "UNROLLED",
                                      "WARP_SHUFFLE",
                                      "COARSENED",
                                      "ATOMIC"};
  static char other[32];
  if ((unsigned)alg < sizeof names / sizeof names[0])
    return names[alg];
  snprintf(other, sizeof other, "alg(%d)", (int)alg);
  return other;
}

const char *tu_scan_alg_name(cuprim_scan_alg alg) {
  static const char *const names[] = {"AUTO", "HILLIS_STEELE", "BLELLOCH", "WARP_SHUFFLE",
                                      "DECOUPLED_LOOKBACK"};
  static char other[32];
  if ((unsigned)alg < sizeof names / sizeof names[0])
    return names[alg];
  snprintf(other, sizeof other, "scan_alg(%d)", (int)alg);
  return other;
}

const char *tu_scan_kind_name(cuprim_scan_kind k) {
  static char other[32];
  if (k == CUPRIM_INCLUSIVE)
    return "INCLUSIVE";
  if (k == CUPRIM_EXCLUSIVE)
    return "EXCLUSIVE";
  snprintf(other, sizeof other, "kind(%d)", (int)k);
  return other;
}

const char *tu_status_name(cuprim_status s) {
  static const char *const names[] = {"CUPRIM_SUCCESS",           "CUPRIM_ERROR_INVALID_ARGUMENT",
                                      "CUPRIM_ERROR_UNSUPPORTED", "CUPRIM_ERROR_OUT_OF_MEMORY",
                                      "CUPRIM_ERROR_NO_DEVICE",   "CUPRIM_ERROR_CUDA",
                                      "CUPRIM_ERROR_INTERNAL",   "CUPRIM_ERROR_NCCL"};
  static char other[32];
  if ((unsigned)s < sizeof names / sizeof names[0])
    return names[s];
  snprintf(other, sizeof other, "status(%d)", (int)s);
  return other;
}

void tu_format_value(cuprim_dtype t, const void *p, char *buf, size_t len) {
  switch (t) {
  case CUPRIM_I32: {
    int32_t v;
    memcpy(&v, p, sizeof v);
    snprintf(buf, len, "%" PRId32 " (0x%08" PRIx32 ")", v, (uint32_t)v);
    break;
  }
  case CUPRIM_U32: {
    uint32_t v;
    memcpy(&v, p, sizeof v);
    snprintf(buf, len, "%" PRIu32 " (0x%08" PRIx32 ")", v, v);
    break;
  }
  case CUPRIM_I64: {
    int64_t v;
    memcpy(&v, p, sizeof v);
    snprintf(buf, len, "%" PRId64 " (0x%016" PRIx64 ")", v, (uint64_t)v);
    break;
  }
  case CUPRIM_U64: {
    uint64_t v;
    memcpy(&v, p, sizeof v);
    snprintf(buf, len, "%" PRIu64 " (0x%016" PRIx64 ")", v, v);
    break;
  }
  case CUPRIM_F32: {
    float v;
    uint32_t b;
    memcpy(&v, p, sizeof v);
    memcpy(&b, p, sizeof b);
    snprintf(buf, len, "%.9g (0x%08" PRIx32 ")", (double)v, b);
    break;
  }
  case CUPRIM_F64: {
    double v;
    uint64_t b;
    memcpy(&v, p, sizeof v);
    memcpy(&b, p, sizeof b);
    snprintf(buf, len, "%.17g (0x%016" PRIx64 ")", v, b);
    break;
  }
  default: {
    const unsigned char *c = (const unsigned char *)p;
    size_t size = cuprim_dtype_size(t);
    size_t used = (size_t)snprintf(buf, len, "bytes");
    for (size_t i = 0; i < size && used < len; ++i)
      used += (size_t)snprintf(buf + used, len - used, " %02x", c[i]);
    break;
  }
  }
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
