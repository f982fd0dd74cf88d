#include "test_fixture_api.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/context.h" /* cuprim__ctx_create_host_only */

/* ---------------------------------------------------------------- the host-only context */

cuprim_ctx *ta_ctx;

int ta_setup(void **state) {
  (void)state;
  return cuprim__ctx_create_host_only(&ta_ctx) == CUPRIM_SUCCESS ? 0 : -1;
}

int ta_teardown(void **state) {
  (void)state;
  return cuprim_ctx_destroy(ta_ctx) == CUPRIM_SUCCESS ? 0 : -1;
}

cuprim_ctx *ta_context(int which) { return which == TA_HOST_CTX ? ta_ctx : NULL; }

void ta_test_host_only_context(void **state) {
  (void)state;
  assert_int_equal(cuprim__ctx_create_host_only(NULL), CUPRIM_ERROR_INVALID_ARGUMENT);
  cuprim_ctx *c = NULL;
  assert_int_equal(cuprim__ctx_create_host_only(&c), CUPRIM_SUCCESS);
  assert_non_null(c);
  assert_int_equal(cuprim_ctx_destroy(c), CUPRIM_SUCCESS);
}

/* ---------------------------------------------------------------- fake device memory */

/* The output at byte 256 (at most 64 elements of 8 bytes are named, so it ends before byte 768),
 * the input at byte 2048 (at most 64 elements of 8 bytes; outputs placed just before it start at
 * byte 1536 at the lowest), the edges at byte 4096 (at most 65 doubles). */
static _Alignas(64) unsigned char g_mem[8192];
#define OUT_OFFSET 256
#define EDGES_OFFSET 4096
#define GUARD 0xA5

#define FAR_IN ((uintptr_t)1 << 45)
#define FAR_OUT ((uintptr_t)1 << 46)
#define TOP ((uintptr_t)0 - 4096)

uintptr_t ta_address(size_t offset) { return (uintptr_t)(g_mem + offset); }

void *ta_pointer(ta_ptr k, const ta_shape *s) {
  const size_t size = s->size ? s->size : 1; /* invalid dtypes: any placement */
  const size_t out_size = s->out_size ? s->out_size : size;
  const size_t out_bytes = out_size * (size_t)s->out_count;
  unsigned char *in = g_mem + TA_IN_OFFSET, *out = g_mem + OUT_OFFSET, *e = g_mem + EDGES_OFFSET;
  switch (k) {
  case TA_NULL:
    return NULL;
  case TA_IN:
    return in;
  case TA_IN_B1:
    return in + 1;
  case TA_IN_B4:
    return in + 4;
  case TA_OUT:
    return out;
  case TA_OUT_B1:
    return out + 1;
  case TA_OUT_B4:
    return out + 4;
  case TA_OUT_B8:
    return out + 8;
  case TA_EDGES:
    return e;
  case TA_EDGES_B4:
    return e + 4;
  case TA_IN_PLUS1:
    return in + size;
  case TA_IN_MID:
    return in + size * (s->n / 2);
  case TA_IN_LAST:
    return in + size * (s->n - 1);
  case TA_IN_END:
    return in + size * s->n;
  case TA_IN_MINUS1:
    return in - size;
  case TA_IN_BEFORE:
    return in - out_bytes;
  case TA_IN_TOUCH:
    return in - out_bytes + out_size;
  case TA_OUT_MID:
    return out + out_size * (s->out_count / 2);
  case TA_EDGES_MID:
    return e + 8 * (s->out_count / 2);
  case TA_EDGES_END:
    return e + 8 * (s->out_count + 1);
  case TA_EDGES_BEFORE:
    return e - out_bytes;
  case TA_EDGES_TOUCH:
    return e - out_bytes + out_size;
  case TA_FAR_IN:
    return (void *)FAR_IN;
  case TA_FAR_IN_MID: {
    const uintptr_t p = FAR_IN + (uintptr_t)(size * (s->n / 2));
    return (void *)(p - p % out_size);
  }
  case TA_FAR_OUT:
    return (void *)FAR_OUT;
  case TA_TOP:
    return (void *)TOP;
  }
  return NULL;
}

ta_shape ta_shape_of(int dtype, uint64_t n, uint64_t out_count) {
  const size_t size = cuprim_dtype_size((cuprim_dtype)dtype);
  const ta_shape s = {size, n, size, out_count};
  return s;
}

void ta_poison(void) { memset(g_mem, GUARD, sizeof g_mem); }

int ta_check_call(const char *fn, const char *what, const char *args, cuprim_status got,
                  cuprim_status expect, char *why, size_t len) {
  if (got != expect) {
    snprintf(why, len, "%s: %s: %s: expected %s, got %s", fn, what, args, tu_status_name(expect),
             tu_status_name(got));
    return 0;
  }
  const size_t bad = tu_pattern_mismatch(g_mem, sizeof g_mem, GUARD);
  if (bad != sizeof g_mem) {
    snprintf(why, len, "%s: %s: returned %s but wrote fake device memory at byte %zu", fn, what,
             tu_status_name(got), bad);
    return 0;
  }
  return 1;
}

int ta_check_callf(const char *fn, const char *what, cuprim_status got, cuprim_status expect,
                   char *why, size_t len, const char *args_fmt, ...) {
  char args[256];
  va_list ap;
  va_start(ap, args_fmt);
  vsnprintf(args, sizeof args, args_fmt, ap);
  va_end(ap);
  return ta_check_call(fn, what, args, got, expect, why, len);
}

/* ---------------------------------------------------------------- tables */

void ta_record(ta_tally *t, int ok, const char *why) {
  ++t->cases;
  if (ok)
    return;
  if (t->failures < t->print_limit)
    print_error("%s\n", why);
  ++t->failures;
}

void ta_record_call(ta_tally *t, const char *fn, const char *what, cuprim_status got,
                    cuprim_status expect, const char *args_fmt, ...) {
  char args[256], why[512];
  va_list ap;
  va_start(ap, args_fmt);
  vsnprintf(args, sizeof args, args_fmt, ap);
  va_end(ap);
  ta_record(t, ta_check_call(fn, what, args, got, expect, why, sizeof why), why);
}

void ta_finish(const ta_tally *t, const char *what) {
  assert_int_equal(cuprim_last_cuda_error(), cudaSuccess); /* nothing reached CUDA */
  if (t->failures)
    fail_msg("%d of %ld %s failed", t->failures, t->cases, what);
}

void ta_run_both(const void *c, int alg,
                 int (*run)(const void *c, int shorthand, char *why, size_t len), ta_tally *t) {
  char why[512];
  ta_poison();
  ta_record(t, run(c, 0, why, sizeof why), why);
  if (alg == 0) {
    ta_poison();
    ta_record(t, run(c, 1, why, sizeof why), why);
  }
}

void ta_run_table(const void *cases, size_t count, size_t size, size_t alg_offset,
                  int (*run)(const void *c, int shorthand, char *why, size_t len)) {
  ta_tally t = {0, 0, INT_MAX};
  for (size_t i = 0; i < count; ++i) {
    const unsigned char *c = (const unsigned char *)cases + i * size;
    int alg;
    memcpy(&alg, c + alg_offset, sizeof alg);
    ta_run_both(c, alg, run, &t);
  }
  ta_finish(&t, "argument-checking calls");
}

/* ---------------------------------------------------------------- supported combinations */

/* Values of a dtype or an op to ask about: the enums and around them. */
static const int probes[] = {INT_MIN, -2, -1, 0,  1,  2,  3,  4,  5,   6,
                             7,       8,  9,  10, 11, 12, 13, 14, 255, INT_MAX};
#define NUM_PROBES (sizeof probes / sizeof probes[0])

void ta_check_supported_pairs(const char *name, int (*library)(cuprim_dtype, cuprim_op),
                              int (*expected)(cuprim_dtype, cuprim_op)) {
  ta_tally t = {0, 0, 20};
  char why[256];
  for (size_t i = 0; i < NUM_PROBES; ++i)
    for (size_t j = 0; j < NUM_PROBES; ++j) {
      const cuprim_dtype d = (cuprim_dtype)probes[i];
      const cuprim_op op = (cuprim_op)probes[j];
      const int got = library(d, op), want = expected(d, op);
      snprintf(why, sizeof why, "%s(%s, %s) is %d, expected %d", name, hr_dtype_name(d),
               hr_op_name(op), got, want);
      ta_record(&t, got == want, why);
    }
  ta_finish(&t, "supported-pair queries");
}

void ta_check_supported_dtypes(const char *name, int (*library)(cuprim_dtype),
                               int (*expected)(cuprim_dtype)) {
  ta_tally t = {0, 0, 20};
  char why[256];
  for (size_t i = 0; i < NUM_PROBES; ++i) {
    const cuprim_dtype d = (cuprim_dtype)probes[i];
    const int got = library(d), want = expected(d);
    snprintf(why, sizeof why, "%s(%s) is %d, expected %d", name, hr_dtype_name(d), got, want);
    ta_record(&t, got == want, why);
  }
  ta_finish(&t, "supported-dtype queries");
}
