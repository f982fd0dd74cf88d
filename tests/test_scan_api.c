/* Scan's argument checking, with no GPU, and a self-check of the scan test reference.
 *
 * The internal host-only context (bound to no device) makes every call whose arguments are valid
 * return CUPRIM_ERROR_NO_DEVICE at the point where it would first touch CUDA, so each check below
 * sees exactly what validation decided; a valid call with n == 0 has nothing to do and returns
 * CUPRIM_SUCCESS before that point. Host buffers stand in for device pointers; they are filled
 * with a guard pattern and must come back untouched (a call that fails validation, stops at
 * NO_DEVICE or has nothing to do writes nothing). Ranges too large for the host buffer use
 * addresses that no call ever dereferences here. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/context.h" /* cuprim__ctx_create_host_only */
#include "test_scan_ref.h"
#include "test_util.h"

#define GUARD 0xA5

/* Fake device memory: the output at byte 256, the input at byte 2048 (at most 32 elements of 8
 * bytes are ever named, so each range stays inside its own 256 bytes and the ranges placed just
 * before the input start at byte 1792). */
static _Alignas(64) unsigned char g_mem[4096];
#define OUT_OFFSET 256
#define IN_OFFSET 2048

/* Addresses for ranges past the host buffer: 2^45 and 2^46 (2^43 bytes apart at least), and the
 * top 4096 bytes of the address space. */
#define FAR_IN ((uintptr_t)1 << 45)
#define FAR_OUT ((uintptr_t)1 << 46)
#define TOP ((uintptr_t)0 - 4096)

static cuprim_ctx *g_ctx;

static int setup(void **state) {
  (void)state;
  return cuprim__ctx_create_host_only(&g_ctx) == CUPRIM_SUCCESS ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  return cuprim_ctx_destroy(g_ctx) == CUPRIM_SUCCESS ? 0 : -1;
}

typedef enum ptr_kind {
  P_NULL,
  P_IN,          /* the input, 64-byte aligned */
  P_IN_B1,       /* input + 1 byte: misaligned for every dtype wider than a byte */
  P_IN_B4,       /* input + 4 bytes: aligned for 4-byte dtypes only */
  P_OUT,         /* the output */
  P_OUT_B1,      /* output + 1 byte */
  P_OUT_B4,      /* output + 4 bytes */
  P_IN_PLUS1,    /* input + 1 element: overlaps the input unless n == 1 */
  P_IN_MID,      /* input + size * (n / 2) */
  P_IN_LAST,     /* input + size * (n - 1): starts on the input's last element */
  P_IN_END,      /* input + size * n: just past the input (no overlap) */
  P_IN_MINUS1,   /* input - 1 element: overlaps unless n == 1 */
  P_IN_TOUCH,    /* input - size * (n - 1): ends on the input's first element */
  P_IN_BEFORE,   /* input - size * n: ends just before the input (no overlap) */
  P_FAR_IN,      /* 2^45 */
  P_FAR_IN_MID,  /* 2^45 + size * (n / 2) */
  P_FAR_OUT,     /* 2^46 */
  P_TOP,         /* 4096 bytes below the end of the address space */
} ptr_kind;

static void *pointer(ptr_kind k, cuprim_dtype t, uint64_t n) {
  size_t size = cuprim_dtype_size(t);
  if (size == 0)
    size = 1; /* invalid dtypes: any placement */
  unsigned char *in = g_mem + IN_OFFSET, *out = g_mem + OUT_OFFSET;
  switch (k) {
  case P_NULL:
    return NULL;
  case P_IN:
    return in;
  case P_IN_B1:
    return in + 1;
  case P_IN_B4:
    return in + 4;
  case P_OUT:
    return out;
  case P_OUT_B1:
    return out + 1;
  case P_OUT_B4:
    return out + 4;
  case P_IN_PLUS1:
    return in + size;
  case P_IN_MID:
    return in + size * (n / 2);
  case P_IN_LAST:
    return in + size * (n - 1);
  case P_IN_END:
    return in + size * n;
  case P_IN_MINUS1:
    return in - size;
  case P_IN_TOUCH:
    return in - size * (n - 1);
  case P_IN_BEFORE:
    return in - size * n;
  case P_FAR_IN:
    return (void *)FAR_IN;
  case P_FAR_IN_MID:
    return (void *)(FAR_IN + (uintptr_t)(size * (n / 2)));
  case P_FAR_OUT:
    return (void *)FAR_OUT;
  case P_TOP:
    return (void *)TOP;
  }
  return NULL;
}

enum { NULL_CTX = 0, HOST_CTX = 1 };
#define OK CUPRIM_SUCCESS
#define INVALID CUPRIM_ERROR_INVALID_ARGUMENT
#define UNSUPPORTED CUPRIM_ERROR_UNSUPPORTED
#define NO_DEVICE CUPRIM_ERROR_NO_DEVICE
#define INCL CUPRIM_INCLUSIVE
#define EXCL CUPRIM_EXCLUSIVE

typedef struct api_case {
  const char *what;
  int ctx;
  int alg; /* int: out-of-range values on purpose */
  int dtype;
  int op;
  int kind;
  ptr_kind in, out;
  uint64_t n;
  cuprim_status expect;
} api_case;

/* Runs one call on guarded fake memory; on a mismatch returns 0 with a message. */
static int run_case(const api_case *c, int use_shorthand, char *why, size_t len) {
  memset(g_mem, GUARD, sizeof g_mem);
  cuprim_ctx *ctx = c->ctx == HOST_CTX ? g_ctx : NULL;
  const void *in = pointer(c->in, (cuprim_dtype)c->dtype, c->n);
  void *out = pointer(c->out, (cuprim_dtype)c->dtype, c->n);
  const cuprim_status s =
      use_shorthand ? cuprim_scan(ctx, in, out, c->n, (cuprim_dtype)c->dtype, (cuprim_op)c->op,
                                  (cuprim_scan_kind)c->kind, 0)
                    : cuprim_scan_ex(ctx, (cuprim_scan_alg)c->alg, in, out, c->n,
                                     (cuprim_dtype)c->dtype, (cuprim_op)c->op,
                                     (cuprim_scan_kind)c->kind, 0);
  const char *fn = use_shorthand ? "cuprim_scan" : "cuprim_scan_ex";
  if (s != c->expect) {
    snprintf(why, len, "%s: %s: alg %d dtype %s op %s kind %d n %llu: expected %s, got %s", fn,
             c->what, c->alg, tu_dtype_name((cuprim_dtype)c->dtype), tu_op_name((cuprim_op)c->op),
             c->kind, (unsigned long long)c->n, tu_status_name(c->expect), tu_status_name(s));
    return 0;
  }
  const size_t bad = tu_pattern_mismatch(g_mem, sizeof g_mem, GUARD);
  if (bad != sizeof g_mem) {
    snprintf(why, len, "%s: %s: returned %s but wrote fake device memory at byte %zu", fn, c->what,
             tu_status_name(s), bad);
    return 0;
  }
  return 1;
}

static void run_table(const api_case *cases, size_t count) {
  int failures = 0;
  char why[512];
  for (size_t i = 0; i < count; ++i) {
    if (!run_case(&cases[i], 0, why, sizeof why)) {
      print_error("%s\n", why);
      ++failures;
    }
    if (cases[i].alg == CUPRIM_SCAN_AUTO && !run_case(&cases[i], 1, why, sizeof why)) {
      print_error("%s\n", why);
      ++failures;
    }
  }
  assert_int_equal(cuprim_last_cuda_error(), cudaSuccess); /* nothing reached CUDA */
  if (failures)
    fail_msg("%d argument-checking case(s) failed", failures);
}

#define AUTO CUPRIM_SCAN_AUTO
#define HS CUPRIM_SCAN_HILLIS_STEELE
#define BL CUPRIM_SCAN_BLELLOCH
#define WS CUPRIM_SCAN_WARP_SHUFFLE
#define LB CUPRIM_SCAN_DECOUPLED_LOOKBACK
#define F32 CUPRIM_F32
#define F64 CUPRIM_F64
#define I32 CUPRIM_I32
#define U32 CUPRIM_U32
#define I64 CUPRIM_I64
#define U64 CUPRIM_U64
#define SUM CUPRIM_SUM

static void test_invalid_arguments(void **state) {
  (void)state;
  const api_case cases[] = {
      /* valid calls: validation passes, then the host-only context stops them */
      {"valid baseline", HOST_CTX, AUTO, F32, SUM, INCL, P_IN, P_OUT, 10, NO_DEVICE},
      {"valid, exclusive", HOST_CTX, AUTO, I64, CUPRIM_MIN, EXCL, P_IN, P_OUT, 10, NO_DEVICE},
      {"valid, HILLIS_STEELE", HOST_CTX, HS, U32, CUPRIM_XOR, INCL, P_IN, P_OUT, 10, NO_DEVICE},
      {"valid, BLELLOCH", HOST_CTX, BL, F64, CUPRIM_PROD, EXCL, P_IN, P_OUT, 10, NO_DEVICE},
      {"valid, WARP_SHUFFLE", HOST_CTX, WS, I32, CUPRIM_AND, INCL, P_IN, P_OUT, 10, NO_DEVICE},
      {"valid, DECOUPLED_LOOKBACK", HOST_CTX, LB, U64, CUPRIM_OR, EXCL, P_IN, P_OUT, 10,
       NO_DEVICE},
      /* NULL context: always INVALID, whatever else is wrong or unsupported */
      {"NULL ctx", NULL_CTX, AUTO, F32, SUM, INCL, P_IN, P_OUT, 10, INVALID},
      {"NULL ctx, n 0", NULL_CTX, AUTO, F32, SUM, INCL, P_NULL, P_NULL, 0, INVALID},
      {"NULL ctx, everything bad", NULL_CTX, 9, 10, 7, 2, P_NULL, P_NULL, 5, INVALID},
      {"NULL ctx, unsupported dtype", NULL_CTX, AUTO, CUPRIM_I8, SUM, INCL, P_IN, P_OUT, 4,
       INVALID},
      {"NULL ctx, XOR on F32", NULL_CTX, LB, F32, CUPRIM_XOR, EXCL, P_IN, P_OUT, 4, INVALID},
      /* algorithm out of range */
      {"alg 5", HOST_CTX, 5, I32, SUM, INCL, P_IN, P_OUT, 10, INVALID},
      {"alg -1", HOST_CTX, -1, I32, SUM, INCL, P_IN, P_OUT, 10, INVALID},
      {"alg INT_MAX", HOST_CTX, INT_MAX, I32, SUM, INCL, P_IN, P_OUT, 10, INVALID},
      {"alg 5, n 0", HOST_CTX, 5, I32, SUM, INCL, P_NULL, P_NULL, 0, INVALID},
      /* dtype out of range */
      {"dtype 12", HOST_CTX, AUTO, 12, SUM, INCL, P_IN, P_OUT, 10, INVALID},
      {"dtype -1", HOST_CTX, AUTO, -1, SUM, INCL, P_IN, P_OUT, 10, INVALID},
      {"dtype INT_MIN", HOST_CTX, BL, INT_MIN, CUPRIM_MAX, INCL, P_IN, P_OUT, 10, INVALID},
      {"dtype 12, n 0", HOST_CTX, AUTO, 12, SUM, INCL, P_NULL, P_NULL, 0, INVALID},
      /* op out of range */
      {"op 7", HOST_CTX, AUTO, U32, 7, INCL, P_IN, P_OUT, 10, INVALID},
      {"op -1", HOST_CTX, AUTO, U32, -1, INCL, P_IN, P_OUT, 10, INVALID},
      {"op 7 on F64", HOST_CTX, LB, F64, 7, INCL, P_IN, P_OUT, 10, INVALID},
      {"op 7, n 0", HOST_CTX, AUTO, U32, 7, EXCL, P_NULL, P_NULL, 0, INVALID},
      /* kind out of range */
      {"kind 2", HOST_CTX, AUTO, I32, SUM, 2, P_IN, P_OUT, 10, INVALID},
      {"kind -1", HOST_CTX, HS, I32, SUM, -1, P_IN, P_OUT, 10, INVALID},
      {"kind INT_MAX", HOST_CTX, LB, F32, SUM, INT_MAX, P_IN, P_OUT, 10, INVALID},
      {"kind 2, n 0", HOST_CTX, AUTO, I32, SUM, 2, P_NULL, P_NULL, 0, INVALID},
      /* NULL pointers: INVALID with n > 0 */
      {"NULL d_out, n 10", HOST_CTX, AUTO, F32, SUM, INCL, P_IN, P_NULL, 10, INVALID},
      {"NULL d_out, n 1, ladder", HOST_CTX, WS, I32, SUM, EXCL, P_IN, P_NULL, 1, INVALID},
      {"NULL d_in, n 1", HOST_CTX, AUTO, F32, SUM, INCL, P_NULL, P_OUT, 1, INVALID},
      {"NULL d_in, n 10", HOST_CTX, LB, U64, CUPRIM_AND, EXCL, P_NULL, P_OUT, 10, INVALID},
      {"NULL d_in and d_out, n 5", HOST_CTX, AUTO, F64, SUM, INCL, P_NULL, P_NULL, 5, INVALID},
      /* n == 0: succeeds, writes nothing; either pointer may be NULL */
      {"n 0, both NULL", HOST_CTX, AUTO, F32, SUM, INCL, P_NULL, P_NULL, 0, OK},
      {"n 0, NULL d_in", HOST_CTX, AUTO, F32, SUM, EXCL, P_NULL, P_OUT, 0, OK},
      {"n 0, NULL d_out", HOST_CTX, AUTO, I64, CUPRIM_PROD, EXCL, P_IN, P_NULL, 0, OK},
      {"n 0, both valid", HOST_CTX, BL, U32, CUPRIM_MIN, INCL, P_IN, P_OUT, 0, OK},
      {"n 0, in place", HOST_CTX, HS, I32, SUM, EXCL, P_IN, P_IN, 0, OK},
      {"n 0, ladder, NULL", HOST_CTX, WS, F64, CUPRIM_MAX, EXCL, P_NULL, P_NULL, 0, OK},
      {"n 0, look-back, NULL", HOST_CTX, LB, U64, CUPRIM_XOR, INCL, P_NULL, P_NULL, 0, OK},
      /* pointers need element alignment, nothing more */
      {"d_out + 1 byte, F32", HOST_CTX, AUTO, F32, SUM, INCL, P_IN, P_OUT_B1, 10, INVALID},
      {"d_out + 4 bytes, F64", HOST_CTX, AUTO, F64, SUM, INCL, P_IN, P_OUT_B4, 10, INVALID},
      {"d_out + 4 bytes, U64, ladder", HOST_CTX, BL, U64, SUM, EXCL, P_IN, P_OUT_B4, 10, INVALID},
      {"d_out + 4 bytes, I32 (aligned)", HOST_CTX, AUTO, I32, SUM, INCL, P_IN, P_OUT_B4, 10,
       NO_DEVICE},
      {"d_in + 1 byte, F32", HOST_CTX, AUTO, F32, SUM, INCL, P_IN_B1, P_OUT, 10, INVALID},
      {"d_in + 1 byte, I32, ladder", HOST_CTX, HS, I32, CUPRIM_MAX, INCL, P_IN_B1, P_OUT, 10,
       INVALID},
      {"d_in + 4 bytes, U64", HOST_CTX, AUTO, U64, SUM, INCL, P_IN_B4, P_OUT, 10, INVALID},
      {"d_in + 4 bytes, F64, look-back", HOST_CTX, LB, F64, SUM, EXCL, P_IN_B4, P_OUT, 10,
       INVALID},
      {"d_in + 4 bytes, U32 (aligned, not 16-byte)", HOST_CTX, AUTO, U32, SUM, INCL, P_IN_B4,
       P_OUT, 10, NO_DEVICE},
      {"d_in + 4 bytes, F32 (aligned, not 16-byte), ladder", HOST_CTX, WS, F32, CUPRIM_MIN, EXCL,
       P_IN_B4, P_OUT_B4, 10, NO_DEVICE},
      {"in place at + 1 byte, F32", HOST_CTX, AUTO, F32, SUM, INCL, P_IN_B1, P_IN_B1, 10, INVALID},
      {"in place at + 4 bytes, I64", HOST_CTX, AUTO, I64, SUM, INCL, P_IN_B4, P_IN_B4, 10,
       INVALID},
      {"in place at + 4 bytes, I32 (aligned)", HOST_CTX, AUTO, I32, SUM, EXCL, P_IN_B4, P_IN_B4,
       10, NO_DEVICE},
      /* overlap: in place (d_out == d_in) is allowed, any other overlap is not */
      {"in place", HOST_CTX, AUTO, F32, SUM, INCL, P_IN, P_IN, 10, NO_DEVICE},
      {"in place, n 1", HOST_CTX, AUTO, I32, SUM, EXCL, P_IN, P_IN, 1, NO_DEVICE},
      {"in place, ladder", HOST_CTX, BL, U64, CUPRIM_PROD, INCL, P_IN, P_IN, 32, NO_DEVICE},
      {"in place, look-back", HOST_CTX, LB, F64, CUPRIM_MAX, EXCL, P_IN, P_IN, 32, NO_DEVICE},
      {"d_out = d_in + 1 element", HOST_CTX, AUTO, F32, SUM, INCL, P_IN, P_IN_PLUS1, 10, INVALID},
      {"d_out = d_in + 1 element, ladder", HOST_CTX, HS, U64, SUM, EXCL, P_IN, P_IN_PLUS1, 2,
       INVALID},
      {"d_out = d_in + 1 element, n 1 (adjacent)", HOST_CTX, AUTO, I32, SUM, INCL, P_IN,
       P_IN_PLUS1, 1, NO_DEVICE},
      {"d_out in the middle of d_in", HOST_CTX, AUTO, F64, CUPRIM_MAX, INCL, P_IN, P_IN_MID, 10,
       INVALID},
      {"d_out on d_in's last element", HOST_CTX, WS, U32, SUM, INCL, P_IN, P_IN_LAST, 10, INVALID},
      {"d_out just past d_in", HOST_CTX, AUTO, U32, SUM, EXCL, P_IN, P_IN_END, 10, NO_DEVICE},
      {"d_out = d_in - 1 element", HOST_CTX, AUTO, I64, SUM, INCL, P_IN, P_IN_MINUS1, 10, INVALID},
      {"d_out = d_in - 1 element, n 1 (adjacent)", HOST_CTX, LB, I64, SUM, INCL, P_IN, P_IN_MINUS1,
       1, NO_DEVICE},
      {"d_out ends on d_in's first element", HOST_CTX, AUTO, F32, SUM, INCL, P_IN, P_IN_TOUCH, 10,
       INVALID},
      {"d_out ends just before d_in", HOST_CTX, AUTO, F32, SUM, INCL, P_IN, P_IN_BEFORE, 10,
       NO_DEVICE},
      {"d_in inside d_out (roles swapped)", HOST_CTX, AUTO, U32, SUM, INCL, P_IN_MID, P_IN, 10,
       INVALID},
      {"d_out = d_in + 1 byte, U32", HOST_CTX, AUTO, U32, SUM, INCL, P_IN, P_IN_B1, 10, INVALID},
      /* unsupported combinations of valid enums */
      {"I8", HOST_CTX, AUTO, CUPRIM_I8, SUM, INCL, P_IN, P_OUT, 10, UNSUPPORTED},
      {"U8", HOST_CTX, AUTO, CUPRIM_U8, CUPRIM_MAX, EXCL, P_IN, P_OUT, 10, UNSUPPORTED},
      {"I16", HOST_CTX, HS, CUPRIM_I16, SUM, INCL, P_IN, P_OUT, 10, UNSUPPORTED},
      {"U16", HOST_CTX, LB, CUPRIM_U16, CUPRIM_XOR, INCL, P_IN, P_OUT, 10, UNSUPPORTED},
      {"I8, n 0", HOST_CTX, AUTO, CUPRIM_I8, SUM, INCL, P_NULL, P_NULL, 0, UNSUPPORTED},
      {"AND on F32", HOST_CTX, AUTO, F32, CUPRIM_AND, INCL, P_IN, P_OUT, 10, UNSUPPORTED},
      {"OR on F32", HOST_CTX, BL, F32, CUPRIM_OR, EXCL, P_IN, P_OUT, 10, UNSUPPORTED},
      {"XOR on F32", HOST_CTX, WS, F32, CUPRIM_XOR, INCL, P_IN, P_OUT, 10, UNSUPPORTED},
      {"AND on F64", HOST_CTX, LB, F64, CUPRIM_AND, INCL, P_IN, P_OUT, 10, UNSUPPORTED},
      {"OR on F64", HOST_CTX, AUTO, F64, CUPRIM_OR, EXCL, P_IN, P_OUT, 10, UNSUPPORTED},
      {"XOR on F64, n 0", HOST_CTX, AUTO, F64, CUPRIM_XOR, EXCL, P_NULL, P_NULL, 0, UNSUPPORTED},
      {"XOR on F32, in place", HOST_CTX, AUTO, F32, CUPRIM_XOR, INCL, P_IN, P_IN, 10, UNSUPPORTED},
      /* INVALID is decided before UNSUPPORTED */
      {"I8 with NULL d_out", HOST_CTX, AUTO, CUPRIM_I8, SUM, INCL, P_IN, P_NULL, 10, INVALID},
      {"I8 with alg 5", HOST_CTX, 5, CUPRIM_I8, SUM, INCL, P_IN, P_OUT, 10, INVALID},
      {"I8 with kind 2", HOST_CTX, AUTO, CUPRIM_I8, SUM, 2, P_IN, P_OUT, 10, INVALID},
      {"I8 with kind -1, n 0", HOST_CTX, AUTO, CUPRIM_I8, SUM, -1, P_NULL, P_NULL, 0, INVALID},
      {"U16 with op 9", HOST_CTX, AUTO, CUPRIM_U16, 9, INCL, P_IN, P_OUT, 10, INVALID},
      {"I16 with d_in + 1 byte", HOST_CTX, AUTO, CUPRIM_I16, SUM, INCL, P_IN_B1, P_OUT, 10,
       INVALID},
      {"U16 with NULL d_in, n 3", HOST_CTX, AUTO, CUPRIM_U16, CUPRIM_MIN, INCL, P_NULL, P_OUT, 3,
       INVALID},
      {"XOR on F32 with d_out + 1 byte", HOST_CTX, AUTO, F32, CUPRIM_XOR, INCL, P_IN, P_OUT_B1, 10,
       INVALID},
      {"XOR on F32 with kind 2", HOST_CTX, AUTO, F32, CUPRIM_XOR, 2, P_IN, P_OUT, 10, INVALID},
      {"AND on F64 with d_out inside d_in", HOST_CTX, BL, F64, CUPRIM_AND, EXCL, P_IN, P_IN_MID, 10,
       INVALID},
      {"I8 with d_out = d_in + 1 element", HOST_CTX, AUTO, CUPRIM_I8, SUM, INCL, P_IN, P_IN_PLUS1,
       10, INVALID},
      /* sizes: past 2^32 elements is valid; sizes whose byte count overflows are not */
      {"n 2^33 (valid)", HOST_CTX, AUTO, F32, SUM, INCL, P_FAR_IN, P_FAR_OUT, 1ull << 33,
       NO_DEVICE},
      {"n 2^33 in place (valid)", HOST_CTX, LB, F32, SUM, EXCL, P_FAR_IN, P_FAR_IN, 1ull << 33,
       NO_DEVICE},
      {"n 2^40, ladder (valid)", HOST_CTX, BL, U64, SUM, INCL, P_FAR_IN, P_FAR_OUT, 1ull << 40,
       NO_DEVICE},
      {"n 2^33, d_out in the middle of d_in", HOST_CTX, AUTO, F32, SUM, INCL, P_FAR_IN,
       P_FAR_IN_MID, 1ull << 33, INVALID},
      {"n UINT64_MAX", HOST_CTX, AUTO, F32, SUM, INCL, P_FAR_IN, P_FAR_OUT, UINT64_MAX, INVALID},
      {"n 2^62 of 8 bytes (byte count overflows)", HOST_CTX, AUTO, F64, SUM, INCL, P_FAR_IN,
       P_FAR_OUT, 1ull << 62, INVALID},
      {"n 2^63 of 4 bytes (byte count overflows)", HOST_CTX, LB, U32, SUM, EXCL, P_FAR_IN,
       P_FAR_OUT, 1ull << 63, INVALID},
      /* ranges that run past the end of the address space */
      {"d_in + n * size wraps", HOST_CTX, AUTO, F32, SUM, INCL, P_TOP, P_OUT, 2048, INVALID},
      {"d_out + n * size wraps", HOST_CTX, AUTO, F32, SUM, INCL, P_IN, P_TOP, 2048, INVALID},
      {"d_out + n * size wraps, ladder", HOST_CTX, HS, U64, SUM, EXCL, P_IN, P_TOP, 1024, INVALID},
      {"d_in near the top, no wrap", HOST_CTX, AUTO, F32, SUM, INCL, P_TOP, P_OUT, 1023,
       NO_DEVICE},
      {"d_out near the top, no wrap", HOST_CTX, AUTO, F32, SUM, INCL, P_IN, P_TOP, 1023,
       NO_DEVICE},
  };
  run_table(cases, sizeof cases / sizeof cases[0]);
}

/* Every (alg, dtype, op, kind) in range and just outside it, with valid, NULL and (n == 0) absent
 * pointers: the status validation must give. */
static void test_every_combination(void **state) {
  (void)state;
  const uint64_t sizes[] = {0, 1, 33};
  int failures = 0;
  long cases = 0;
  char why[512];
  for (int alg = -1; alg <= 5; ++alg)
    for (int t = -1; t <= 12; ++t)
      for (int op = -1; op <= 7; ++op)
        for (int kind = -1; kind <= 2; ++kind)
          for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k)
            for (int ptrs = 0; ptrs < 4; ++ptrs) /* in/out: valid/valid, NULL/valid, ... */
              for (int ctx = NULL_CTX; ctx <= HOST_CTX; ++ctx) {
                const uint64_t n = sizes[k];
                const int null_in = ptrs & 1, null_out = ptrs >> 1;
                const int enums_ok = alg >= 0 && alg <= 4 && t >= 0 && t <= 11 && op >= 0 &&
                                     op <= 6 && kind >= 0 && kind <= 1;
                const int supported = (t >= CUPRIM_I32 && t <= CUPRIM_U64) ||
                                      (t >= CUPRIM_F32 && op <= CUPRIM_MAX); /* and F16, BF16 */
                cuprim_status expect;
                if (ctx == NULL_CTX || !enums_ok || (n > 0 && (null_in || null_out)))
                  expect = INVALID;
                else if (!supported)
                  expect = UNSUPPORTED;
                else
                  expect = n == 0 ? OK : NO_DEVICE;
                const api_case c = {"every combination",
                                    ctx,
                                    alg,
                                    t,
                                    op,
                                    kind,
                                    null_in ? P_NULL : P_IN,
                                    null_out ? P_NULL : P_OUT,
                                    n,
                                    expect};
                ++cases;
                if (!run_case(&c, 0, why, sizeof why)) {
                  if (failures < 20)
                    print_error("%s\n", why);
                  ++failures;
                }
                if (alg == CUPRIM_SCAN_AUTO && !run_case(&c, 1, why, sizeof why)) {
                  if (failures < 20)
                    print_error("%s\n", why);
                  ++failures;
                }
              }
  assert_int_equal(cuprim_last_cuda_error(), cudaSuccess);
  if (failures)
    fail_msg("%d of %ld combination(s) failed", failures, cases);
}

/* ---------------------------------------------------------------- the reference itself */

/* The scan reference on small hand-computed inputs, and its comparison: the GPU tests rely on
 * both, so they are checked here where no GPU is needed. */
static tu_scan_ref g_ref;

static void expect_scan(cuprim_dtype t, cuprim_op op, cuprim_scan_kind kind, const void *in,
                        uint64_t n, const void *want, int exact, uint64_t nan_from) {
  assert_int_equal(tu_scan_reference(&g_ref, t, op, kind, in, n), 0);
  const size_t size = cuprim_dtype_size(t);
  if (g_ref.exact != exact || g_ref.nan_from != nan_from)
    fail_msg("%s %s %s: reference exact=%d nan_from=%llu, expected exact=%d nan_from=%llu",
             tu_dtype_name(t), tu_op_name(op), tu_scan_kind_name(kind), g_ref.exact,
             (unsigned long long)g_ref.nan_from, exact, (unsigned long long)nan_from);
  for (uint64_t i = 0; i < n; ++i) {
    const unsigned char *a = g_ref.bits + i * size, *b = (const unsigned char *)want + i * size;
    if (i < nan_from && memcmp(a, b, size) != 0) {
      char ga[96], gb[96];
      tu_format_value(t, a, ga, sizeof ga);
      tu_format_value(t, b, gb, sizeof gb);
      fail_msg("%s %s %s: reference element %llu is %s, expected %s", tu_dtype_name(t),
               tu_op_name(op), tu_scan_kind_name(kind), (unsigned long long)i, ga, gb);
    }
  }
  /* The expected values pass the check; one changed element fails it at that index. */
  uint64_t first = 0, last = 0;
  char why[512];
  assert_int_equal(tu_scan_check(&g_ref, want, -1, &first, &last, why, sizeof why), 0);
  if (n > 0 && nan_from > 0) {
    unsigned char bad[64 * 8];
    assert_true(n * size <= sizeof bad);
    memcpy(bad, want, n * size);
    const uint64_t at = (nan_from - 1) / 2;
    bad[at * size + size - 1] ^= 0x40; /* the top byte: a large change for every dtype */
    assert_int_equal(tu_scan_check(&g_ref, bad, -1, &first, &last, why, sizeof why), 1);
    assert_int_equal(first, at);
    assert_int_equal(last, at);
  }
}

static void test_reference(void **state) {
  (void)state;
  tu_scan_ref_init(&g_ref);
  {
    const int32_t in[] = {1, 2, 3, -4};
    const int32_t incl[] = {1, 3, 6, 2}, excl[] = {0, 1, 3, 6};
    expect_scan(I32, SUM, INCL, in, 4, incl, 1, 4);
    expect_scan(I32, SUM, EXCL, in, 4, excl, 1, 4);
    const int32_t mn_excl[] = {INT32_MAX, 1, 1, 1}, mx_incl[] = {1, 2, 3, 3};
    expect_scan(I32, CUPRIM_MIN, EXCL, in, 4, mn_excl, 1, 4);
    expect_scan(I32, CUPRIM_MAX, INCL, in, 4, mx_incl, 1, 4);
    const int32_t prod_excl[] = {1, 1, 2, 6};
    expect_scan(I32, CUPRIM_PROD, EXCL, in, 4, prod_excl, 1, 4);
  }
  {
    const uint32_t in[] = {0xFFFFFFFFu, 2u, 0x80000000u};
    const uint32_t sum[] = {0xFFFFFFFFu, 1u, 0x80000001u}; /* wraps */
    const uint32_t mn[] = {0xFFFFFFFFu, 2u, 2u}, mx_excl[] = {0u, 0xFFFFFFFFu, 0xFFFFFFFFu};
    expect_scan(U32, SUM, INCL, in, 3, sum, 1, 3);
    expect_scan(U32, CUPRIM_MIN, INCL, in, 3, mn, 1, 3); /* unsigned order */
    expect_scan(U32, CUPRIM_MAX, EXCL, in, 3, mx_excl, 1, 3);
    const int32_t sin[] = {-1, 2, INT32_MIN};
    const int32_t smn[] = {-1, -1, INT32_MIN}; /* signed order, the same bits */
    expect_scan(I32, CUPRIM_MIN, INCL, sin, 3, smn, 1, 3);
  }
  {
    const int64_t in[] = {3, -5, 7, INT64_MAX};
    const int64_t prod[] = {3, -15, -105, (int64_t)((uint64_t)-105 * (uint64_t)INT64_MAX)};
    expect_scan(I64, CUPRIM_PROD, INCL, in, 4, prod, 1, 4);
    const uint64_t uin[] = {~1ull, ~2ull, 5ull};
    const uint64_t and_excl[] = {~0ull, ~1ull, ~3ull}, or_incl[] = {~1ull, ~0ull, ~0ull};
    const uint64_t xor_incl[] = {~1ull, 3ull, 6ull};
    expect_scan(U64, CUPRIM_AND, EXCL, uin, 3, and_excl, 1, 3);
    expect_scan(U64, CUPRIM_OR, INCL, uin, 3, or_incl, 1, 3);
    expect_scan(U64, CUPRIM_XOR, INCL, uin, 3, xor_incl, 1, 3);
    const int64_t mx_excl[] = {INT64_MIN, 3, 3, 7};
    expect_scan(I64, CUPRIM_MAX, EXCL, in, 4, mx_excl, 1, 4);
  }
  {
    const float in[] = {0.5f, 0.25f, -1.0f, 0.125f};
    const float incl[] = {0.5f, 0.75f, -0.25f, -0.125f}, excl[] = {0.0f, 0.5f, 0.75f, -0.25f};
    expect_scan(F32, SUM, INCL, in, 4, incl, 1, 4); /* multiples of 1/8: exact */
    expect_scan(F32, SUM, EXCL, in, 4, excl, 1, 4);
    const float pin[] = {2.0f, -0.5f, 2.0f, 1.0f};
    const float pincl[] = {2.0f, -1.0f, -2.0f, -2.0f}, pexcl[] = {1.0f, 2.0f, -1.0f, -2.0f};
    expect_scan(F32, CUPRIM_PROD, INCL, pin, 4, pincl, 1, 4); /* powers of two: exact */
    expect_scan(F32, CUPRIM_PROD, EXCL, pin, 4, pexcl, 1, 4);
    const float x[] = {0.1f, 0.2f, 0.3f};
    const float xincl[] = {0.1f, (float)((double)0.1f + (double)0.2f),
                           (float)((double)0.1f + (double)0.2f + (double)0.3f)};
    expect_scan(F32, SUM, INCL, x, 3, xincl, 0, 3); /* not exact: checked within a bound */
    /* within the bound passes, past it fails */
    float near[3], far[3];
    memcpy(near, xincl, sizeof near);
    memcpy(far, xincl, sizeof far);
    near[2] = nextafterf(near[2], 1.0f);
    far[2] = near[2] + 1e-5f;
    uint64_t first = 0, last = 0;
    char why[512];
    assert_int_equal(tu_scan_check(&g_ref, near, -1, &first, &last, why, sizeof why), 0);
    assert_int_equal(tu_scan_check(&g_ref, far, -1, &first, &last, why, sizeof why), 1);
    assert_int_equal(first, 2);
  }
  {
    const double in[] = {3.0, NAN, 1.0, -INFINITY};
    const double incl[] = {3.0, NAN, NAN, NAN}, excl[] = {INFINITY, 3.0, NAN, NAN};
    expect_scan(F64, CUPRIM_MIN, INCL, in, 4, incl, 1, 1);
    expect_scan(F64, CUPRIM_MIN, EXCL, in, 4, excl, 1, 2);
    const double fin[] = {3.0, -INFINITY, 1.0};
    const double fmx[] = {-INFINITY, 3.0, 3.0}, fmn[] = {3.0, -INFINITY, -INFINITY};
    expect_scan(F64, CUPRIM_MAX, EXCL, fin, 3, fmx, 1, 3);
    expect_scan(F64, CUPRIM_MIN, INCL, fin, 3, fmn, 1, 3);
    /* A number where a NaN must be fails. */
    uint64_t first = 0, last = 0;
    char why[512];
    assert_int_equal(tu_scan_reference(&g_ref, F64, CUPRIM_MIN, INCL, in, 4), 0);
    const double got[] = {3.0, NAN, 1.0, NAN};
    assert_int_equal(tu_scan_check(&g_ref, got, -1, &first, &last, why, sizeof why), 1);
    assert_int_equal(first, 2);
  }
  {
    /* An element left with the poison pattern is named as never written. */
    const uint32_t in[] = {1, 2, 3};
    assert_int_equal(tu_scan_reference(&g_ref, U32, SUM, INCL, in, 3), 0);
    const uint32_t got[] = {1, 3, 0xA5A5A5A5u};
    uint64_t first = 0, last = 0;
    char why[512];
    assert_int_equal(tu_scan_check(&g_ref, got, 0xA5, &first, &last, why, sizeof why), 1);
    assert_non_null(strstr(why, "never written"));
  }
  tu_scan_ref_free(&g_ref);
}

/* The fills: EXACT data is recognized as exact at the sizes the GPU tests use it, RANDOM float
 * data is not; MIN/MAX trends cross zero (signed) and 2^(bits-1) (unsigned); a seed gives the same
 * data every time. */
static void test_fills(void **state) {
  (void)state;
  enum { N = (1 << 21) + 17 };
  static float f[N], f2[N];
  static double d[N];
  tu_scan_ref r;
  tu_scan_ref_init(&r);
  tu_scan_fill(F32, SUM, TU_SCAN_EXACT, 42, f, N);
  assert_int_equal(tu_scan_reference(&r, F32, SUM, INCL, f, N), 0);
  assert_int_equal(r.exact, 1);
  tu_scan_fill(F32, SUM, TU_SCAN_EXACT, 42, f2, N);
  assert_memory_equal(f, f2, sizeof f);
  tu_scan_fill(F64, CUPRIM_PROD, TU_SCAN_EXACT, 43, d, N);
  assert_int_equal(tu_scan_reference(&r, F64, CUPRIM_PROD, EXCL, d, N), 0);
  assert_int_equal(r.exact, 1);
  tu_scan_fill(F32, CUPRIM_PROD, TU_SCAN_EXACT, 44, f, N);
  assert_int_equal(tu_scan_reference(&r, F32, CUPRIM_PROD, INCL, f, N), 0);
  assert_int_equal(r.exact, 1);
  { /* the data exercises the kernels: many scales (+-2, +-1/2) and many negatives */
    unsigned scales = 0, negatives = 0;
    for (int i = 0; i < N; ++i) {
      scales += f[i] == 2.0f || f[i] == -2.0f || f[i] == 0.5f || f[i] == -0.5f;
      negatives += f[i] < 0.0f;
    }
    assert_in_range(scales, 32, 100);
    assert_true(negatives > N / 8);
  }
  tu_scan_fill(F32, SUM, TU_SCAN_RANDOM, 45, f, 1000);
  assert_int_equal(tu_scan_reference(&r, F32, SUM, INCL, f, 1000), 0);
  assert_int_equal(r.exact, 0);
  tu_scan_fill(F32, CUPRIM_PROD, TU_SCAN_RANDOM, 46, f, 1000);
  assert_int_equal(tu_scan_reference(&r, F32, CUPRIM_PROD, INCL, f, 1000), 0);
  assert_int_equal(r.exact, 0);
  tu_scan_ref_free(&r);

  static int32_t s32[4096];
  static uint32_t u32[4096];
  tu_scan_fill(I32, CUPRIM_MIN, TU_SCAN_RANDOM, 47, s32, 4096);
  assert_true(s32[0] > 0 && s32[4095] < 0);
  tu_scan_fill(U32, CUPRIM_MIN, TU_SCAN_RANDOM, 48, u32, 4096);
  assert_true(u32[0] > 0x80000000u && u32[4095] < 0x80000000u);
  tu_scan_fill(U32, CUPRIM_MAX, TU_SCAN_RANDOM, 49, u32, 4096);
  assert_true(u32[0] < 0x80000000u && u32[4095] > 0x80000000u);
  tu_scan_fill(F32, CUPRIM_MAX, TU_SCAN_RANDOM, 50, f, 4096);
  assert_true(f[0] < 0.0f && f[4095] > 0.0f);
  /* the running minimum keeps changing: at least 1000 new minima in 4096 elements */
  tu_scan_fill(I32, CUPRIM_MIN, TU_SCAN_RANDOM, 51, s32, 4096);
  int changes = 0;
  int32_t m = INT32_MAX;
  for (int i = 0; i < 4096; ++i)
    if (s32[i] < m) {
      m = s32[i];
      ++changes;
    }
  assert_true(changes >= 1000);
}

/* The host-only context itself. */
static void test_host_only_context(void **state) {
  (void)state;
  assert_int_equal(cuprim__ctx_create_host_only(NULL), CUPRIM_ERROR_INVALID_ARGUMENT);
  cuprim_ctx *c = NULL;
  assert_int_equal(cuprim__ctx_create_host_only(&c), CUPRIM_SUCCESS);
  assert_non_null(c);
  assert_int_equal(cuprim_ctx_destroy(c), CUPRIM_SUCCESS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_invalid_arguments), cmocka_unit_test(test_every_combination),
      cmocka_unit_test(test_reference),         cmocka_unit_test(test_fills),
      cmocka_unit_test(test_host_only_context),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
