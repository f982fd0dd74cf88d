/* The segmented and batched calls' argument checking and cuprim_segmented_supported, with no GPU
 * (test_fixture_api.h), and a self-check of the host references they are tested against.
 *
 * The internal host-only context (bound to no device) makes every call whose arguments are valid
 * return CUPRIM_ERROR_NO_DEVICE at the point where it would first touch CUDA; a valid call with
 * nothing to do (num_segments == 0, or a scan of n == 0) returns CUPRIM_SUCCESS before that point.
 * Host buffers stand in for device pointers: the input at byte 2048 of the fake memory, the
 * output at byte 256, the offsets at byte 4096 (the fixture's "edges"); they are filled with a
 * guard pattern and must come back untouched. Ranges too large for them use addresses that no call
 * dereferences here. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostref_scan.h"
#include "hostref_segmented.h"
#include "test_fixture_api.h"

/* The calls. */
enum { SEG_REDUCE, BATCHED_REDUCE, SEG_SCAN, BATCHED_SCAN };

/* Pointers this test places itself, past the fixture's kinds. */
enum {
  P_OFF_FAR = 100,     /* 2^47: offsets too large for the fake memory */
  P_OUT_IN_OFFSETS,    /* one offset into the offsets */
  P_OUT_TOUCH_OFFSETS, /* an output of n elements whose last one is the first offset */
  P_OUT_BEFORE_OFFSETS /* an output of n elements that ends where the offsets begin */
};

typedef struct api_case {
  const char *what;
  int fn, ctx;
  int alg, dtype, op, kind, odtype; /* int: out-of-range values on purpose */
  int in, out, off;                 /* ta_ptr or one of the P_ kinds above */
  uint64_t n, segs, len;            /* elements (segmented), segments, row length (batched) */
  cuprim_status expect;
} api_case;

static void *place(int k, const ta_shape *shape, size_t osize) {
  const uintptr_t offsets = (uintptr_t)ta_pointer(TA_EDGES, shape);
  const size_t out_bytes = shape->out_size * (size_t)shape->out_count;
  switch (k) {
  case P_OFF_FAR:
    return (void *)((uintptr_t)1 << 47);
  case P_OUT_IN_OFFSETS:
    return (void *)(offsets + osize);
  case P_OUT_TOUCH_OFFSETS:
    return (void *)(offsets - out_bytes + shape->out_size);
  case P_OUT_BEFORE_OFFSETS:
    return (void *)(offsets - out_bytes);
  default:
    return ta_pointer((ta_ptr)k, shape);
  }
}

static const char *fn_name(int fn, int shorthand) {
  switch (fn) {
  case SEG_REDUCE:
    return shorthand ? "cuprim_segmented_reduce" : "cuprim_segmented_reduce_ex";
  case BATCHED_REDUCE:
    return "cuprim_batched_reduce";
  case SEG_SCAN:
    return "cuprim_segmented_scan";
  default:
    return "cuprim_batched_scan";
  }
}

static int run_case(const void *p, int shorthand, char *why, size_t len) {
  const api_case *c = (const api_case *)p;
  cuprim_ctx *ctx = ta_context(c->ctx);
  const size_t size = cuprim_dtype_size((cuprim_dtype)c->dtype);
  const size_t osize = cuprim_dtype_size((cuprim_dtype)c->odtype);
  const int batched = c->fn == BATCHED_REDUCE || c->fn == BATCHED_SCAN;
  const uint64_t n = batched ? c->segs * c->len : c->n; /* the tables keep products in range */
  const int scan = c->fn == SEG_SCAN || c->fn == BATCHED_SCAN;
  const ta_shape shape = {size, n, size, scan ? n : c->segs};
  const void *in = place(c->in, &shape, osize);
  void *out = place(c->out, &shape, osize);
  const void *off = place(c->off, &shape, osize);
  const cuprim_dtype t = (cuprim_dtype)c->dtype, ot = (cuprim_dtype)c->odtype;
  const cuprim_op op = (cuprim_op)c->op;
  const cuprim_scan_kind kind = (cuprim_scan_kind)c->kind;
  cuprim_status s;
  switch (c->fn) {
  case SEG_REDUCE:
    s = shorthand ? cuprim_segmented_reduce(ctx, in, out, n, off, ot, c->segs, t, op, 0)
                  : cuprim_segmented_reduce_ex(ctx, (cuprim_segmented_alg)c->alg, in, out, n, off,
                                               ot, c->segs, t, op, 0);
    break;
  case BATCHED_REDUCE:
    s = cuprim_batched_reduce(ctx, in, out, c->segs, c->len, t, op, 0);
    break;
  case SEG_SCAN:
    s = cuprim_segmented_scan(ctx, in, out, n, off, ot, c->segs, t, op, kind, 0);
    break;
  default:
    s = cuprim_batched_scan(ctx, in, out, c->segs, c->len, t, op, kind, 0);
    break;
  }
  return ta_check_callf(fn_name(c->fn, shorthand), c->what, s, c->expect, why, len,
                        "alg %d dtype %s op %s kind %d offsets %s n %llu segs %llu len %llu",
                        c->alg, hr_dtype_name(t), hr_op_name(op), c->kind, hr_dtype_name(ot),
                        (unsigned long long)c->n, (unsigned long long)c->segs,
                        (unsigned long long)c->len);
}

#define SR SEG_REDUCE
#define BR BATCHED_REDUCE
#define SS SEG_SCAN
#define BS BATCHED_SCAN
#define AUTO CUPRIM_SEGMENTED_AUTO
#define TPS CUPRIM_SEGMENTED_THREAD_PER_SEGMENT
#define WPS CUPRIM_SEGMENTED_WARP_PER_SEGMENT
#define BPS CUPRIM_SEGMENTED_BLOCK_PER_SEGMENT
#define MP CUPRIM_SEGMENTED_MERGE_PATH
#define NA                                                                                         \
  99 /* no algorithm: the batched calls and the scans (run once, not also as shorthand)            \
      */
#define IN TA_IN
#define OUT TA_OUT
#define OFF TA_EDGES
#define NUL TA_NULL

TU_TEST(test_segmented_reduce_arguments) {
  (void)state;
  const api_case cases[] = {
      /* valid calls: validation passes, then the host-only context stops them */
      {"valid baseline", SR, HOST_CTX, AUTO, F32, SUM, 0, I64, IN, OUT, OFF, 10, 4, 0, NO_DEVICE},
      {"valid, THREAD_PER_SEGMENT", SR, HOST_CTX, TPS, I32, CUPRIM_XOR, 0, I32, IN, OUT, OFF, 10, 4,
       0, NO_DEVICE},
      {"valid, WARP_PER_SEGMENT", SR, HOST_CTX, WPS, U64, CUPRIM_MIN, 0, U32, IN, OUT, OFF, 10, 4,
       0, NO_DEVICE},
      {"valid, BLOCK_PER_SEGMENT", SR, HOST_CTX, BPS, F64, CUPRIM_PROD, 0, U64, IN, OUT, OFF, 10, 4,
       0, NO_DEVICE},
      {"valid, MERGE_PATH", SR, HOST_CTX, MP, U32, CUPRIM_AND, 0, I64, IN, OUT, OFF, 10, 4, 0,
       NO_DEVICE},
      {"valid, one segment", SR, HOST_CTX, AUTO, F32, SUM, 0, I32, IN, OUT, OFF, 10, 1, 0,
       NO_DEVICE},
      /* NULL context: always INVALID */
      {"NULL ctx", SR, NULL_CTX, AUTO, F32, SUM, 0, I64, IN, OUT, OFF, 10, 4, 0, INVALID},
      {"NULL ctx, no segments", SR, NULL_CTX, AUTO, F32, SUM, 0, I64, NUL, NUL, NUL, 0, 0, 0,
       INVALID},
      {"NULL ctx, everything bad", SR, NULL_CTX, 7, 12, 7, 0, 12, NUL, NUL, NUL, 5, 5, 0, INVALID},
      {"NULL ctx, unsupported offsets", SR, NULL_CTX, AUTO, F32, SUM, 0, F32, IN, OUT, OFF, 10, 4,
       0, INVALID},
      /* enums out of range */
      {"alg 5", SR, HOST_CTX, 5, F32, SUM, 0, I64, IN, OUT, OFF, 10, 4, 0, INVALID},
      {"alg -1", SR, HOST_CTX, -1, F32, SUM, 0, I64, IN, OUT, OFF, 10, 4, 0, INVALID},
      {"alg INT_MAX, no segments", SR, HOST_CTX, INT_MAX, F32, SUM, 0, I64, NUL, NUL, NUL, 0, 0, 0,
       INVALID},
      {"dtype 12", SR, HOST_CTX, AUTO, 12, SUM, 0, I64, IN, OUT, OFF, 10, 4, 0, INVALID},
      {"dtype -1", SR, HOST_CTX, AUTO, -1, SUM, 0, I64, IN, OUT, OFF, 10, 4, 0, INVALID},
      {"op 7", SR, HOST_CTX, AUTO, I32, 7, 0, I64, IN, OUT, OFF, 10, 4, 0, INVALID},
      {"op -1", SR, HOST_CTX, MP, I32, -1, 0, I64, IN, OUT, OFF, 10, 4, 0, INVALID},
      {"offset dtype 12", SR, HOST_CTX, AUTO, F32, SUM, 0, 12, IN, OUT, OFF, 10, 4, 0, INVALID},
      {"offset dtype -1", SR, HOST_CTX, AUTO, F32, SUM, 0, -1, IN, OUT, OFF, 10, 4, 0, INVALID},
      {"offset dtype INT_MIN, no segments", SR, HOST_CTX, AUTO, F32, SUM, 0, INT_MIN, NUL, NUL, NUL,
       0, 0, 0, INVALID},
      /* num_segments == UINT64_MAX: there cannot be num_segments + 1 offsets */
      {"num_segments UINT64_MAX", SR, HOST_CTX, AUTO, F32, SUM, 0, I64, IN, TA_FAR_OUT, P_OFF_FAR,
       10, UINT64_MAX, 0, INVALID},
      {"num_segments UINT64_MAX - 1 (offsets past the address space)", SR, HOST_CTX, AUTO, F32, SUM,
       0, I64, IN, TA_FAR_OUT, P_OFF_FAR, 10, UINT64_MAX - 1, 0, INVALID},
      /* num_segments == 0: nothing to write; d_out and d_offsets may be NULL */
      {"no segments, NULL d_out and d_offsets", SR, HOST_CTX, AUTO, F32, SUM, 0, I64, IN, NUL, NUL,
       10, 0, 0, OK},
      {"no segments, n 0, everything NULL", SR, HOST_CTX, MP, I64, CUPRIM_MAX, 0, U32, NUL, NUL,
       NUL, 0, 0, 0, OK},
      {"no segments, valid pointers", SR, HOST_CTX, TPS, F64, SUM, 0, I64, IN, OUT, OFF, 10, 0, 0,
       OK},
      {"no segments, NULL d_in with n 10", SR, HOST_CTX, AUTO, F32, SUM, 0, I64, NUL, NUL, NUL, 10,
       0, 0, INVALID},
      {"no segments, misaligned offsets", SR, HOST_CTX, AUTO, F32, SUM, 0, I64, IN, NUL,
       TA_EDGES_B4, 10, 0, 0, INVALID},
      {"no segments, unsupported dtype", SR, HOST_CTX, AUTO, CUPRIM_I8, SUM, 0, I64, NUL, NUL, NUL,
       0, 0, 0, UNSUPPORTED},
      {"no segments, unsupported offsets", SR, HOST_CTX, AUTO, F32, SUM, 0, CUPRIM_F64, NUL, NUL,
       NUL, 0, 0, 0, UNSUPPORTED},
      /* n == 0 with segments: every segment empty, d_in may be NULL */
      {"n 0, NULL d_in", SR, HOST_CTX, AUTO, F32, SUM, 0, I64, NUL, OUT, OFF, 0, 4, 0, NO_DEVICE},
      {"n 0, NULL d_in, ladder", SR, HOST_CTX, BPS, U32, CUPRIM_OR, 0, I32, NUL, OUT, OFF, 0, 4, 0,
       NO_DEVICE},
      /* NULL pointers with work to do */
      {"NULL d_in, n 10", SR, HOST_CTX, AUTO, F32, SUM, 0, I64, NUL, OUT, OFF, 10, 4, 0, INVALID},
      {"NULL d_out", SR, HOST_CTX, AUTO, F32, SUM, 0, I64, IN, NUL, OFF, 10, 4, 0, INVALID},
      {"NULL d_out, n 0", SR, HOST_CTX, WPS, F32, SUM, 0, I64, NUL, NUL, OFF, 0, 4, 0, INVALID},
      {"NULL d_offsets", SR, HOST_CTX, AUTO, F32, SUM, 0, I64, IN, OUT, NUL, 10, 4, 0, INVALID},
      {"NULL d_offsets, n 0", SR, HOST_CTX, MP, F32, SUM, 0, U64, NUL, OUT, NUL, 0, 4, 0, INVALID},
      /* alignment: element alignment for the data, the offset's size for the offsets */
      {"d_in + 1 byte", SR, HOST_CTX, AUTO, F32, SUM, 0, I64, TA_IN_B1, OUT, OFF, 10, 4, 0,
       INVALID},
      {"d_in + 4 bytes, F64", SR, HOST_CTX, AUTO, F64, SUM, 0, I64, TA_IN_B4, OUT, OFF, 10, 4, 0,
       INVALID},
      {"d_in + 4 bytes, F32 (aligned)", SR, HOST_CTX, AUTO, F32, SUM, 0, I64, TA_IN_B4, OUT, OFF,
       10, 4, 0, NO_DEVICE},
      {"d_out + 1 byte", SR, HOST_CTX, TPS, I32, SUM, 0, I64, IN, TA_OUT_B1, OFF, 10, 4, 0,
       INVALID},
      {"d_out + 4 bytes, U64", SR, HOST_CTX, AUTO, U64, SUM, 0, I64, IN, TA_OUT_B4, OFF, 10, 4, 0,
       INVALID},
      {"d_out + 4 bytes, U32 (aligned)", SR, HOST_CTX, AUTO, U32, SUM, 0, I64, IN, TA_OUT_B4, OFF,
       10, 4, 0, NO_DEVICE},
      {"d_offsets + 4 bytes, I64", SR, HOST_CTX, AUTO, F32, SUM, 0, I64, IN, OUT, TA_EDGES_B4, 10,
       4, 0, INVALID},
      {"d_offsets + 4 bytes, U64", SR, HOST_CTX, MP, F32, SUM, 0, U64, IN, OUT, TA_EDGES_B4, 10, 4,
       0, INVALID},
      {"d_offsets + 4 bytes, I32 (aligned)", SR, HOST_CTX, AUTO, F32, SUM, 0, I32, IN, OUT,
       TA_EDGES_B4, 10, 4, 0, NO_DEVICE},
      {"d_offsets + 4 bytes, U32 (aligned)", SR, HOST_CTX, BPS, F32, SUM, 0, U32, IN, OUT,
       TA_EDGES_B4, 10, 4, 0, NO_DEVICE},
      /* overlaps: the output may touch neither the input nor the offsets; those two may overlap */
      {"d_out == d_in", SR, HOST_CTX, AUTO, F32, SUM, 0, I64, IN, IN, OFF, 10, 4, 0, INVALID},
      {"d_out in the middle of d_in", SR, HOST_CTX, AUTO, F32, SUM, 0, I64, IN, TA_IN_MID, OFF, 10,
       4, 0, INVALID},
      {"d_out ends on d_in's first element", SR, HOST_CTX, AUTO, F32, SUM, 0, I64, IN, TA_IN_TOUCH,
       OFF, 10, 4, 0, INVALID},
      {"d_out ends just before d_in", SR, HOST_CTX, AUTO, F32, SUM, 0, I64, IN, TA_IN_BEFORE, OFF,
       10, 4, 0, NO_DEVICE},
      {"d_out just past d_in", SR, HOST_CTX, WPS, F32, SUM, 0, I64, IN, TA_IN_END, OFF, 10, 4, 0,
       NO_DEVICE},
      {"d_out on the offsets", SR, HOST_CTX, AUTO, F32, SUM, 0, I64, IN, OFF, OFF, 10, 4, 0,
       INVALID},
      {"d_out in the middle of the offsets", SR, HOST_CTX, AUTO, F32, SUM, 0, I64, IN, TA_EDGES_MID,
       OFF, 10, 4, 0, INVALID},
      {"d_out ends on the first offset", SR, HOST_CTX, MP, F32, SUM, 0, I64, IN, TA_EDGES_TOUCH,
       OFF, 10, 4, 0, INVALID},
      {"d_out ends just before the offsets", SR, HOST_CTX, AUTO, F32, SUM, 0, I64, IN,
       TA_EDGES_BEFORE, OFF, 10, 4, 0, NO_DEVICE},
      {"d_out just past the offsets", SR, HOST_CTX, AUTO, F32, SUM, 0, I64, IN, TA_EDGES_END, OFF,
       10, 4, 0, NO_DEVICE},
      {"d_in on the offsets (both read)", SR, HOST_CTX, AUTO, I32, SUM, 0, I32, OFF, OUT, OFF, 10,
       4, 0, NO_DEVICE},
      /* unsupported combinations of valid enums */
      {"offsets F32", SR, HOST_CTX, AUTO, F32, SUM, 0, F32, IN, OUT, OFF, 10, 4, 0, UNSUPPORTED},
      {"offsets F64", SR, HOST_CTX, TPS, F32, SUM, 0, F64, IN, OUT, OFF, 10, 4, 0, UNSUPPORTED},
      {"offsets I8", SR, HOST_CTX, AUTO, F32, SUM, 0, CUPRIM_I8, IN, OUT, OFF, 10, 4, 0,
       UNSUPPORTED},
      {"offsets U16", SR, HOST_CTX, MP, F32, SUM, 0, CUPRIM_U16, IN, OUT, OFF, 10, 4, 0,
       UNSUPPORTED},
      {"offsets F16", SR, HOST_CTX, AUTO, F32, SUM, 0, CUPRIM_F16, IN, OUT, OFF, 10, 4, 0,
       UNSUPPORTED},
      {"dtype I8", SR, HOST_CTX, AUTO, CUPRIM_I8, SUM, 0, I64, IN, OUT, OFF, 10, 4, 0, UNSUPPORTED},
      {"dtype U16", SR, HOST_CTX, WPS, CUPRIM_U16, CUPRIM_MAX, 0, I64, IN, OUT, OFF, 10, 4, 0,
       UNSUPPORTED},
      {"XOR on F32", SR, HOST_CTX, AUTO, F32, CUPRIM_XOR, 0, I64, IN, OUT, OFF, 10, 4, 0,
       UNSUPPORTED},
      {"AND on F64", SR, HOST_CTX, BPS, F64, CUPRIM_AND, 0, I32, IN, OUT, OFF, 10, 4, 0,
       UNSUPPORTED},
      /* INVALID before UNSUPPORTED */
      {"offsets F32 with NULL d_offsets", SR, HOST_CTX, AUTO, F32, SUM, 0, F32, IN, OUT, NUL, 10, 4,
       0, INVALID},
      {"offsets F64 misaligned", SR, HOST_CTX, AUTO, F32, SUM, 0, F64, IN, OUT, TA_EDGES_B4, 10, 4,
       0, INVALID},
      {"offsets I8 with d_out on the offsets", SR, HOST_CTX, AUTO, F32, SUM, 0, CUPRIM_I8, IN, OFF,
       OFF, 10, 4, 0, INVALID},
      {"dtype I8 with NULL d_out", SR, HOST_CTX, AUTO, CUPRIM_I8, SUM, 0, I64, IN, NUL, OFF, 10, 4,
       0, INVALID},
      {"XOR on F32 with alg 9", SR, HOST_CTX, 9, F32, CUPRIM_XOR, 0, I64, IN, OUT, OFF, 10, 4, 0,
       INVALID},
      {"U16 offsets with UINT64_MAX segments", SR, HOST_CTX, AUTO, F32, SUM, 0, CUPRIM_U16, IN,
       TA_FAR_OUT, P_OFF_FAR, 10, UINT64_MAX, 0, INVALID},
      /* sizes past 2^32: valid; byte counts past the address space: not */
      {"n 2^33", SR, HOST_CTX, AUTO, F32, SUM, 0, I64, TA_FAR_IN, OUT, OFF, 1ull << 33, 4, 0,
       NO_DEVICE},
      {"n 2^33, 2^33 segments", SR, HOST_CTX, AUTO, F32, SUM, 0, U64, TA_FAR_IN, TA_FAR_OUT,
       P_OFF_FAR, 1ull << 33, 1ull << 33, 0, NO_DEVICE},
      {"n UINT64_MAX", SR, HOST_CTX, AUTO, F32, SUM, 0, I64, TA_FAR_IN, OUT, OFF, UINT64_MAX, 4, 0,
       INVALID},
      {"n 2^62 of 8 bytes", SR, HOST_CTX, AUTO, F64, SUM, 0, I64, TA_FAR_IN, OUT, OFF, 1ull << 62,
       4, 0, INVALID},
      {"2^62 segments of 8 bytes", SR, HOST_CTX, AUTO, F64, SUM, 0, I32, IN, TA_FAR_OUT, P_OFF_FAR,
       10, 1ull << 62, 0, INVALID},
      {"2^62 segments of 8-byte offsets", SR, HOST_CTX, AUTO, I32, SUM, 0, I64, IN, TA_FAR_OUT,
       P_OFF_FAR, 10, 1ull << 62, 0, INVALID},
  };
  TA_RUN_TABLE(cases, api_case, run_case);
}

TU_TEST(test_batched_reduce_arguments) {
  (void)state;
  const api_case cases[] = {
      {"valid baseline", BR, HOST_CTX, NA, F32, SUM, 0, 0, IN, OUT, NUL, 0, 4, 3, NO_DEVICE},
      {"valid, one row", BR, HOST_CTX, NA, U64, CUPRIM_XOR, 0, 0, IN, OUT, NUL, 0, 1, 10,
       NO_DEVICE},
      {"NULL ctx", BR, NULL_CTX, NA, F32, SUM, 0, 0, IN, OUT, NUL, 0, 4, 3, INVALID},
      {"NULL ctx, no rows", BR, NULL_CTX, NA, F32, SUM, 0, 0, NUL, NUL, NUL, 0, 0, 3, INVALID},
      {"dtype 12", BR, HOST_CTX, NA, 12, SUM, 0, 0, IN, OUT, NUL, 0, 4, 3, INVALID},
      {"op 7", BR, HOST_CTX, NA, I32, 7, 0, 0, IN, OUT, NUL, 0, 4, 3, INVALID},
      /* no rows: nothing to write */
      {"no rows, NULL pointers", BR, HOST_CTX, NA, F32, SUM, 0, 0, NUL, NUL, NUL, 0, 0, 3, OK},
      {"no rows, empty rows", BR, HOST_CTX, NA, F32, SUM, 0, 0, NUL, NUL, NUL, 0, 0, 0, OK},
      {"no rows, unsupported dtype", BR, HOST_CTX, NA, CUPRIM_U8, SUM, 0, 0, NUL, NUL, NUL, 0, 0, 3,
       UNSUPPORTED},
      /* rows of 0 elements: every output the identity, d_in may be NULL */
      {"empty rows, NULL d_in", BR, HOST_CTX, NA, F32, CUPRIM_MIN, 0, 0, NUL, OUT, NUL, 0, 4, 0,
       NO_DEVICE},
      {"empty rows, NULL d_out", BR, HOST_CTX, NA, F32, CUPRIM_MIN, 0, 0, NUL, NUL, NUL, 0, 4, 0,
       INVALID},
      /* NULL pointers with work */
      {"NULL d_in", BR, HOST_CTX, NA, F32, SUM, 0, 0, NUL, OUT, NUL, 0, 4, 3, INVALID},
      {"NULL d_out", BR, HOST_CTX, NA, F32, SUM, 0, 0, IN, NUL, NUL, 0, 4, 3, INVALID},
      /* the product must fit in uint64_t */
      {"2^32 rows of 2^32", BR, HOST_CTX, NA, F32, SUM, 0, 0, TA_FAR_IN, TA_FAR_OUT, NUL, 0,
       1ull << 32, 1ull << 32, INVALID},
      {"UINT64_MAX rows of 2", BR, HOST_CTX, NA, F32, SUM, 0, 0, TA_FAR_IN, TA_FAR_OUT, NUL, 0,
       UINT64_MAX, 2, INVALID},
      {"2^33 rows of 4 (n 2^35)", BR, HOST_CTX, NA, F32, SUM, 0, 0, TA_FAR_IN, TA_FAR_OUT, NUL, 0,
       1ull << 33, 4, NO_DEVICE},
      {"2^31 rows of 2^31 (n 2^62 floats: past the address space)", BR, HOST_CTX, NA, F32, SUM, 0,
       0, TA_FAR_IN, TA_FAR_OUT, NUL, 0, 1ull << 31, 1ull << 31, INVALID},
      /* alignment and overlap */
      {"d_in + 1 byte", BR, HOST_CTX, NA, F32, SUM, 0, 0, TA_IN_B1, OUT, NUL, 0, 4, 3, INVALID},
      {"d_out + 4 bytes, F64", BR, HOST_CTX, NA, F64, SUM, 0, 0, IN, TA_OUT_B4, NUL, 0, 4, 3,
       INVALID},
      {"d_out == d_in", BR, HOST_CTX, NA, F32, SUM, 0, 0, IN, IN, NUL, 0, 4, 3, INVALID},
      {"d_out in the middle of d_in", BR, HOST_CTX, NA, F32, SUM, 0, 0, IN, TA_IN_MID, NUL, 0, 4, 3,
       INVALID},
      {"d_out just past d_in", BR, HOST_CTX, NA, F32, SUM, 0, 0, IN, TA_IN_END, NUL, 0, 4, 3,
       NO_DEVICE},
      {"d_out == d_in, empty rows", BR, HOST_CTX, NA, F32, SUM, 0, 0, IN, IN, NUL, 0, 4, 0,
       NO_DEVICE},
      /* unsupported, and INVALID first */
      {"dtype I16", BR, HOST_CTX, NA, CUPRIM_I16, SUM, 0, 0, IN, OUT, NUL, 0, 4, 3, UNSUPPORTED},
      {"OR on F32", BR, HOST_CTX, NA, F32, CUPRIM_OR, 0, 0, IN, OUT, NUL, 0, 4, 3, UNSUPPORTED},
      {"OR on F32 with NULL d_in", BR, HOST_CTX, NA, F32, CUPRIM_OR, 0, 0, NUL, OUT, NUL, 0, 4, 3,
       INVALID},
      {"I16 with an overflowing product", BR, HOST_CTX, NA, CUPRIM_I16, SUM, 0, 0, TA_FAR_IN,
       TA_FAR_OUT, NUL, 0, 1ull << 32, 1ull << 32, INVALID},
  };
  TA_RUN_TABLE(cases, api_case, run_case);
}

TU_TEST(test_segmented_scan_arguments) {
  (void)state;
  const api_case cases[] = {
      {"valid baseline", SS, HOST_CTX, NA, F32, SUM, INCL, I64, IN, OUT, OFF, 10, 4, 0, NO_DEVICE},
      {"valid, exclusive, U32 offsets", SS, HOST_CTX, NA, I64, CUPRIM_MAX, EXCL, U32, IN, OUT, OFF,
       10, 4, 0, NO_DEVICE},
      {"valid, in place", SS, HOST_CTX, NA, F64, CUPRIM_PROD, INCL, I32, IN, IN, OFF, 10, 4, 0,
       NO_DEVICE},
      {"NULL ctx", SS, NULL_CTX, NA, F32, SUM, INCL, I64, IN, OUT, OFF, 10, 4, 0, INVALID},
      {"NULL ctx, n 0", SS, NULL_CTX, NA, F32, SUM, INCL, I64, NUL, NUL, NUL, 0, 0, 0, INVALID},
      {"dtype 12", SS, HOST_CTX, NA, 12, SUM, INCL, I64, IN, OUT, OFF, 10, 4, 0, INVALID},
      {"op 7", SS, HOST_CTX, NA, U32, 7, INCL, I64, IN, OUT, OFF, 10, 4, 0, INVALID},
      {"kind 2", SS, HOST_CTX, NA, F32, SUM, 2, I64, IN, OUT, OFF, 10, 4, 0, INVALID},
      {"kind -1, n 0", SS, HOST_CTX, NA, F32, SUM, -1, I64, NUL, NUL, NUL, 0, 0, 0, INVALID},
      {"offset dtype 12", SS, HOST_CTX, NA, F32, SUM, INCL, 12, IN, OUT, OFF, 10, 4, 0, INVALID},
      {"num_segments UINT64_MAX", SS, HOST_CTX, NA, F32, SUM, INCL, I64, IN, OUT, P_OFF_FAR, 10,
       UINT64_MAX, 0, INVALID},
      /* n == 0 or no segments: nothing to write */
      {"n 0, NULL d_in and d_out", SS, HOST_CTX, NA, F32, SUM, INCL, I64, NUL, NUL, OFF, 0, 4, 0,
       OK},
      {"n 0, NULL d_offsets", SS, HOST_CTX, NA, F32, SUM, INCL, I64, NUL, NUL, NUL, 0, 4, 0,
       INVALID},
      {"no segments, NULL everything", SS, HOST_CTX, NA, F32, SUM, EXCL, I64, NUL, NUL, NUL, 10, 0,
       0, OK},
      {"no segments, n 0", SS, HOST_CTX, NA, F32, SUM, EXCL, I64, NUL, NUL, NUL, 0, 0, 0, OK},
      {"no segments, unsupported offsets", SS, HOST_CTX, NA, F32, SUM, INCL, F32, NUL, NUL, NUL, 10,
       0, 0, UNSUPPORTED},
      {"n 0, unsupported dtype", SS, HOST_CTX, NA, CUPRIM_I8, SUM, INCL, I64, NUL, NUL, OFF, 0, 4,
       0, UNSUPPORTED},
      /* NULL pointers with work */
      {"NULL d_in", SS, HOST_CTX, NA, F32, SUM, INCL, I64, NUL, OUT, OFF, 10, 4, 0, INVALID},
      {"NULL d_out", SS, HOST_CTX, NA, F32, SUM, INCL, I64, IN, NUL, OFF, 10, 4, 0, INVALID},
      {"NULL d_offsets", SS, HOST_CTX, NA, F32, SUM, INCL, I64, IN, OUT, NUL, 10, 4, 0, INVALID},
      /* alignment */
      {"d_in + 1 byte", SS, HOST_CTX, NA, F32, SUM, INCL, I64, TA_IN_B1, OUT, OFF, 10, 4, 0,
       INVALID},
      {"d_out + 4 bytes, I64", SS, HOST_CTX, NA, I64, SUM, INCL, I64, IN, TA_OUT_B4, OFF, 10, 4, 0,
       INVALID},
      {"in place at + 4 bytes, I32 (aligned)", SS, HOST_CTX, NA, I32, SUM, INCL, I64, TA_IN_B4,
       TA_IN_B4, OFF, 10, 4, 0, NO_DEVICE},
      {"d_offsets + 4 bytes, I64", SS, HOST_CTX, NA, F32, SUM, INCL, I64, IN, OUT, TA_EDGES_B4, 10,
       4, 0, INVALID},
      {"d_offsets + 4 bytes, I32 (aligned)", SS, HOST_CTX, NA, F32, SUM, INCL, I32, IN, OUT,
       TA_EDGES_B4, 10, 4, 0, NO_DEVICE},
      /* overlaps: in place or disjoint; the output must not touch the offsets */
      {"d_out = d_in + 1 element", SS, HOST_CTX, NA, F32, SUM, INCL, I64, IN, TA_IN_PLUS1, OFF, 10,
       4, 0, INVALID},
      {"d_out = d_in - 1 element", SS, HOST_CTX, NA, F32, SUM, INCL, I64, IN, TA_IN_MINUS1, OFF, 10,
       4, 0, INVALID},
      {"d_out just past d_in", SS, HOST_CTX, NA, F32, SUM, INCL, I64, IN, TA_IN_END, OFF, 10, 4, 0,
       NO_DEVICE},
      {"d_out on the offsets", SS, HOST_CTX, NA, F32, SUM, INCL, I64, IN, P_OUT_IN_OFFSETS, OFF, 10,
       4, 0, INVALID},
      {"d_out ends on the first offset", SS, HOST_CTX, NA, F32, SUM, INCL, I64, IN,
       P_OUT_TOUCH_OFFSETS, OFF, 10, 4, 0, INVALID},
      {"d_out ends just before the offsets", SS, HOST_CTX, NA, F32, SUM, INCL, I64, IN,
       P_OUT_BEFORE_OFFSETS, OFF, 10, 4, 0, NO_DEVICE},
      {"in place on the offsets", SS, HOST_CTX, NA, I32, SUM, INCL, I32, OFF, OFF, OFF, 10, 4, 0,
       INVALID},
      {"d_in on the offsets (both read)", SS, HOST_CTX, NA, I32, SUM, INCL, I32, OFF, OUT, OFF, 10,
       4, 0, NO_DEVICE},
      /* unsupported, and INVALID first */
      {"offsets F32", SS, HOST_CTX, NA, F32, SUM, INCL, F32, IN, OUT, OFF, 10, 4, 0, UNSUPPORTED},
      {"dtype U8", SS, HOST_CTX, NA, CUPRIM_U8, SUM, INCL, I64, IN, OUT, OFF, 10, 4, 0,
       UNSUPPORTED},
      {"AND on F64", SS, HOST_CTX, NA, F64, CUPRIM_AND, EXCL, I64, IN, OUT, OFF, 10, 4, 0,
       UNSUPPORTED},
      {"offsets F32 with kind 2", SS, HOST_CTX, NA, F32, SUM, 2, F32, IN, OUT, OFF, 10, 4, 0,
       INVALID},
      {"dtype U8 with d_out = d_in + 1 element", SS, HOST_CTX, NA, CUPRIM_U8, SUM, INCL, I64, IN,
       TA_IN_PLUS1, OFF, 10, 4, 0, INVALID},
      /* sizes */
      {"n 2^33 in place", SS, HOST_CTX, NA, F32, SUM, INCL, U64, TA_FAR_IN, TA_FAR_IN, OFF,
       1ull << 33, 4, 0, NO_DEVICE},
      {"n 2^63 of 4 bytes", SS, HOST_CTX, NA, U32, SUM, INCL, U64, TA_FAR_IN, TA_FAR_OUT, OFF,
       1ull << 63, 4, 0, INVALID},
  };
  TA_RUN_TABLE(cases, api_case, run_case);
}

TU_TEST(test_batched_scan_arguments) {
  (void)state;
  const api_case cases[] = {
      {"valid baseline", BS, HOST_CTX, NA, F32, SUM, INCL, 0, IN, OUT, NUL, 0, 4, 3, NO_DEVICE},
      {"valid, in place, exclusive", BS, HOST_CTX, NA, U64, CUPRIM_AND, EXCL, 0, IN, IN, NUL, 0, 4,
       3, NO_DEVICE},
      {"NULL ctx", BS, NULL_CTX, NA, F32, SUM, INCL, 0, IN, OUT, NUL, 0, 4, 3, INVALID},
      {"kind 2", BS, HOST_CTX, NA, F32, SUM, 2, 0, IN, OUT, NUL, 0, 4, 3, INVALID},
      {"dtype -1", BS, HOST_CTX, NA, -1, SUM, INCL, 0, IN, OUT, NUL, 0, 4, 3, INVALID},
      {"no rows", BS, HOST_CTX, NA, F32, SUM, INCL, 0, NUL, NUL, NUL, 0, 0, 3, OK},
      {"empty rows", BS, HOST_CTX, NA, F32, SUM, INCL, 0, NUL, NUL, NUL, 0, 4, 0, OK},
      {"empty rows, unsupported", BS, HOST_CTX, NA, F32, CUPRIM_XOR, INCL, 0, NUL, NUL, NUL, 0, 4,
       0, UNSUPPORTED},
      {"NULL d_in", BS, HOST_CTX, NA, F32, SUM, INCL, 0, NUL, OUT, NUL, 0, 4, 3, INVALID},
      {"NULL d_out", BS, HOST_CTX, NA, F32, SUM, INCL, 0, IN, NUL, NUL, 0, 4, 3, INVALID},
      {"product overflows", BS, HOST_CTX, NA, F32, SUM, INCL, 0, TA_FAR_IN, TA_FAR_OUT, NUL, 0,
       1ull << 40, 1ull << 40, INVALID},
      {"d_out = d_in + 1 element", BS, HOST_CTX, NA, F32, SUM, INCL, 0, IN, TA_IN_PLUS1, NUL, 0, 4,
       3, INVALID},
      {"d_in + 1 byte", BS, HOST_CTX, NA, I32, SUM, INCL, 0, TA_IN_B1, OUT, NUL, 0, 4, 3, INVALID},
      {"dtype I16", BS, HOST_CTX, NA, CUPRIM_I16, SUM, INCL, 0, IN, OUT, NUL, 0, 4, 3, UNSUPPORTED},
      {"dtype I16 with NULL d_out", BS, HOST_CTX, NA, CUPRIM_I16, SUM, INCL, 0, IN, NUL, NUL, 0, 4,
       3, INVALID},
      {"2^33 rows of 4", BS, HOST_CTX, NA, F32, SUM, INCL, 0, TA_FAR_IN, TA_FAR_OUT, NUL, 0,
       1ull << 33, 4, NO_DEVICE},
  };
  TA_RUN_TABLE(cases, api_case, run_case);
}

/* Every (alg, dtype, op, offset dtype) in and just outside the enums, for the segmented reduce
 * and scan, against the test's own table of what they take. */
static int offsets_taken(int ot) {
  return ot == CUPRIM_I32 || ot == CUPRIM_U32 || ot == CUPRIM_I64 || ot == CUPRIM_U64;
}

TU_TEST(test_every_combination) {
  (void)state;
  ta_tally tally = {0, 0, 20};
  for (int fn = SEG_REDUCE; fn <= SEG_SCAN; fn += SEG_SCAN - SEG_REDUCE)
    for (int alg = -1; alg <= (fn == SEG_REDUCE ? 5 : -1); ++alg)
      for (int t = -1; t <= HR_NUM_DTYPES; ++t)
        for (int op = -1; op <= 7; ++op)
          for (int ot = -1; ot <= HR_NUM_DTYPES; ++ot)
            for (int ctx = NULL_CTX; ctx <= HOST_CTX; ++ctx) {
              const int enums_ok = (fn != SEG_REDUCE || (alg >= 0 && alg <= 4)) && t >= 0 &&
                                   t < HR_NUM_DTYPES && op >= 0 && op <= 6 && ot >= 0 &&
                                   ot < HR_NUM_DTYPES;
              cuprim_status expect = NO_DEVICE;
              if (ctx == NULL_CTX || !enums_ok)
                expect = INVALID;
              else if (!offsets_taken(ot) || !hr_reduce_supported((cuprim_dtype)t, (cuprim_op)op))
                expect = UNSUPPORTED;
              /* 8-byte aligned pointers whatever the dtypes; n and segs small. */
              const api_case c = {"every combination",
                                  fn,
                                  ctx,
                                  fn == SEG_REDUCE ? alg : NA,
                                  t,
                                  op,
                                  0,
                                  ot,
                                  IN,
                                  OUT,
                                  OFF,
                                  4,
                                  2,
                                  0,
                                  expect};
              ta_run_both(&c, c.alg, run_case, &tally);
            }
  ta_finish(&tally, "combinations");
}

/* cuprim_segmented_supported against the test's own table, for values in and outside the
 * enums. */
static int expected_supported(cuprim_dtype ot, cuprim_dtype t, cuprim_op op) {
  return offsets_taken((int)ot) && hr_reduce_supported(t, op);
}

TU_TEST(test_supported) {
  (void)state;
  const int probes[] = {INT_MIN, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 255, INT_MAX};
  const size_t np = sizeof probes / sizeof probes[0];
  ta_tally t = {0, 0, 20};
  char why[256];
  for (size_t a = 0; a < np; ++a)
    for (size_t b = 0; b < np; ++b)
      for (size_t c = 0; c < np; ++c) {
        const cuprim_dtype ot = (cuprim_dtype)probes[a], d = (cuprim_dtype)probes[b];
        const cuprim_op op = (cuprim_op)probes[c];
        const int got = cuprim_segmented_supported(ot, d, op), want = expected_supported(ot, d, op);
        snprintf(why, sizeof why, "cuprim_segmented_supported(%s, %s, %s) is %d, expected %d",
                 hr_dtype_name(ot), hr_dtype_name(d), hr_op_name(op), got, want);
        ta_record(&t, got == want, why);
      }
  ta_finish(&t, "supported queries");
}

/* ---------------------------------------------------------------- the host references */

/* Offsets read back clamped, and the layouts of the distributions. */
TU_TEST(test_offsets_reference) {
  (void)state;
  int32_t i32[4];
  hr_seg_store_offset(CUPRIM_I32, i32, 0, -5);
  hr_seg_store_offset(CUPRIM_I32, i32, 1, 3);
  hr_seg_store_offset(CUPRIM_I32, i32, 2, 100);
  hr_seg_store_offset(CUPRIM_I32, i32, 3, INT32_MIN);
  assert_int_equal(hr_seg_offset(CUPRIM_I32, i32, 0, 50), 0); /* negative: 0 */
  assert_int_equal(hr_seg_offset(CUPRIM_I32, i32, 1, 50), 3);
  assert_int_equal(hr_seg_offset(CUPRIM_I32, i32, 2, 50), 50); /* past n: n */
  assert_int_equal(hr_seg_offset(CUPRIM_I32, i32, 3, 50), 0);
  /* The same bits as U32: 2^32 - 5 is past n, not negative. */
  assert_int_equal(hr_seg_offset(CUPRIM_U32, i32, 0, 50), 50);
  uint64_t u64[2] = {UINT64_MAX, 7};
  assert_int_equal(hr_seg_offset(CUPRIM_U64, u64, 0, 1ull << 40), 1ull << 40);
  assert_int_equal(hr_seg_offset(CUPRIM_I64, u64, 0, 1ull << 40), 0); /* -1 */
  assert_int_equal(hr_seg_offset(CUPRIM_I64, u64, 1, 1ull << 40), 7);

  enum { N = 100000, CAP = 200000 };
  uint64_t *off = (uint64_t *)malloc((CAP + 1) * sizeof *off);
  assert_non_null(off);
  for (int d = 0; d < HR_SEG_DISTS; ++d)
    for (uint64_t size = 1; size <= 1000; size *= 10) {
      const uint64_t segs = hr_seg_layout((hr_seg_dist)d, size, N, 42, off, CAP);
      assert_true(segs != UINT64_MAX);
      for (uint64_t k = 0; k < segs; ++k)
        assert_true(off[k] <= off[k + 1]);
      if (d == HR_SEG_EMPTY) {
        assert_int_equal(segs, size);
        assert_int_equal(off[0], off[segs]);
      } else {
        assert_int_equal(off[0], 0);
        assert_int_equal(off[segs], N);
      }
      if (d == HR_SEG_UNIFORM)
        assert_int_equal(segs, (N + size - 1) / size);
      if (d == HR_SEG_POWER_LAW) { /* one segment of a quarter of the elements */
        uint64_t longest = 0;
        for (uint64_t k = 0; k < segs; ++k)
          longest = off[k + 1] - off[k] > longest ? off[k + 1] - off[k] : longest;
        assert_true(longest >= N / 4 - N / 64);
      }
    }
  assert_int_equal(hr_seg_layout(HR_SEG_UNIFORM, 1, N, 42, off, 10), UINT64_MAX); /* cap */
  free(off);
}

/* The per-segment reduce reference: clamping, empty and overlapping segments, exactness. */
TU_TEST(test_reduce_reference) {
  (void)state;
  hr_seg_reduce_ref r;
  hr_seg_reduce_ref_init(&r);
  const int32_t in[] = {1, 2, 3, 4, 5, 6};
  /* offsets -3 (clamped to 0) and 9 (clamped to 6) */
  const int64_t off[] = {-3, 2, 2, 4, 1, 9};
  assert_int_equal(
      hr_seg_reduce_reference(&r, CUPRIM_I32, CUPRIM_SUM, in, 6, CUPRIM_I64, off, 5, 0), 0);
  /* [0, 2), [2, 2) empty, [2, 4), [4, 1) empty, [1, 6): they may overlap */
  const int32_t want[] = {3, 0, 7, 0, 20};
  int32_t got[5];
  memcpy(got, want, sizeof got);
  uint64_t first = 0;
  char why[512];
  assert_int_equal(hr_seg_reduce_check(&r, got, -1, &first, why, sizeof why), 0);
  got[4] = 19;
  assert_int_equal(hr_seg_reduce_check(&r, got, -1, &first, why, sizeof why), 1);
  assert_int_equal(first, 4);
  /* rows */
  assert_int_equal(hr_seg_reduce_reference(&r, CUPRIM_I32, CUPRIM_MAX, in, 6, 0, NULL, 3, 2), 0);
  const int32_t rows[] = {2, 4, 6};
  assert_int_equal(hr_seg_reduce_check(&r, rows, -1, &first, why, sizeof why), 0);
  /* float SUM of multiples of 1/8: exact, so one ulp off fails */
  const float f[] = {0.125f, 1.5f, -0.25f, 2.0f};
  const uint32_t foff[] = {0, 4};
  assert_int_equal(
      hr_seg_reduce_reference(&r, CUPRIM_F32, CUPRIM_SUM, f, 4, CUPRIM_U32, foff, 1, 0), 0);
  assert_int_equal(r.seg[0].exact, 1);
  float fs = 3.375f;
  assert_int_equal(hr_seg_reduce_check(&r, &fs, -1, &first, why, sizeof why), 0);
  fs = nextafterf(fs, 4.0f);
  assert_int_equal(hr_seg_reduce_check(&r, &fs, -1, &first, why, sizeof why), 1);
  /* an inexact float SUM is checked within a bound */
  const float g[] = {0.1f, 0.2f, 0.3f};
  const uint32_t goff[] = {0, 3};
  assert_int_equal(
      hr_seg_reduce_reference(&r, CUPRIM_F32, CUPRIM_SUM, g, 3, CUPRIM_U32, goff, 1, 0), 0);
  assert_int_equal(r.seg[0].exact, 0);
  float gs = (0.1f + 0.2f) + 0.3f;
  assert_int_equal(hr_seg_reduce_check(&r, &gs, -1, &first, why, sizeof why), 0);
  gs += 1e-4f;
  assert_int_equal(hr_seg_reduce_check(&r, &gs, -1, &first, why, sizeof why), 1);
  /* an output left as the poison is named */
  uint32_t poisoned = 0xA5A5A5A5u;
  assert_int_equal(hr_seg_reduce_reference(&r, CUPRIM_U32, CUPRIM_SUM, in, 6, 0, NULL, 1, 6), 0);
  assert_int_equal(hr_seg_reduce_check(&r, &poisoned, 0xA5, &first, why, sizeof why), 1);
  assert_non_null(strstr(why, "never written"));
  hr_seg_reduce_ref_free(&r);
}

TA_HOST_ONLY_CONTEXT_TEST()

TU_MAIN(ta_setup, ta_teardown)
