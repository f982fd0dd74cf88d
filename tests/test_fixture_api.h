/* The fixture of the API tests (test_reduce_api.c, test_scan_api.c, test_histogram_api.c): calls
 * checked with no GPU. A host-only context (cuprim__ctx_create_host_only, bound to no device)
 * makes every call whose arguments are valid return CUPRIM_ERROR_NO_DEVICE where it would first
 * touch CUDA, so each case sees exactly what validation decided. Host memory stands in for device
 * memory ("fake device memory"): filled with a guard pattern before each call, it must come back
 * untouched. Pointers into it are named by kind (ta_ptr), placed from the call's shape, so that one
 * table row says "the output just before the input" whatever the dtype and n.
 *
 * A program lists its cases in a table of its own struct, with a function that runs one case
 * (each call it makes checked by ta_check_call and counted by ta_record), and runs the table with
 * ta_run_table. Host code, plain C11. */
#ifndef CUPRIM_TEST_FIXTURE_API_H
#define CUPRIM_TEST_FIXTURE_API_H

#include <stddef.h>

#include "test_util.h"

/* ---------------------------------------------------------------- the host-only context */

/* cmocka group setup and teardown: ta_ctx is a host-only context for the whole program. */
extern cuprim_ctx *ta_ctx;
int ta_setup(void **state);
int ta_teardown(void **state);

/* Which context a case passes. */
enum { TA_NULL_CTX = 0, TA_HOST_CTX = 1 };
cuprim_ctx *ta_context(int which);

/* The words of the case tables, short so that a row stays on a line: contexts, statuses, the
 * dtypes, SUM and the scan kinds. */
#define NULL_CTX TA_NULL_CTX
#define HOST_CTX TA_HOST_CTX
#define OK CUPRIM_SUCCESS
#define INVALID CUPRIM_ERROR_INVALID_ARGUMENT
#define UNSUPPORTED CUPRIM_ERROR_UNSUPPORTED
#define NO_DEVICE CUPRIM_ERROR_NO_DEVICE
#define I8 CUPRIM_I8
#define U8 CUPRIM_U8
#define I16 CUPRIM_I16
#define U16 CUPRIM_U16
#define I32 CUPRIM_I32
#define U32 CUPRIM_U32
#define I64 CUPRIM_I64
#define U64 CUPRIM_U64
#define F32 CUPRIM_F32
#define F64 CUPRIM_F64
#define F16 CUPRIM_F16
#define SUM CUPRIM_SUM
#define INCL CUPRIM_INCLUSIVE
#define EXCL CUPRIM_EXCLUSIVE

/* The host-only context itself: NULL is refused, one is made and destroyed. A program that runs
 * it writes TA_HOST_ONLY_CONTEXT_TEST() where it is to run among its tests, which registers it as
 * test_host_only_context (test_util.h). */
void ta_test_host_only_context(void **state);
#define TA_HOST_ONLY_CONTEXT_TEST()                                                                \
  TU_REGISTER_AS(test_host_only_context, ta_test_host_only_context, 0)

/* ---------------------------------------------------------------- fake device memory */

/* Pointer kinds. "in" is the input (samples), "out" the output (counts), "edges" the histogram's
 * edges; "size" an input element's bytes, n the input's elements; the output is out_count
 * elements of out_size bytes (reduce: one element; scan: n; histogram: num_bins counts of 8). */
typedef enum ta_ptr {
  TA_NULL,
  TA_IN,           /* the input, 64-byte aligned (fake memory byte 2048) */
  TA_IN_B1,        /* in + 1 byte: misaligned for every dtype wider than a byte */
  TA_IN_B4,        /* in + 4 bytes: aligned for dtypes of 4 bytes or less */
  TA_OUT,          /* the output (byte 256) */
  TA_OUT_B1,       /* out + 1 byte */
  TA_OUT_B4,       /* out + 4 bytes */
  TA_OUT_B8,       /* out + 8 bytes: 8-byte aligned, not 16 */
  TA_EDGES,        /* the edges (byte 4096) */
  TA_EDGES_B4,     /* edges + 4 bytes: not 8-byte aligned */
  TA_IN_PLUS1,     /* in + 1 element */
  TA_IN_MID,       /* in + size * (n / 2): inside the input */
  TA_IN_LAST,      /* in + size * (n - 1): the input's last element */
  TA_IN_END,       /* in + size * n: just past the input */
  TA_IN_MINUS1,    /* in - 1 element */
  TA_IN_BEFORE,    /* in - the output's bytes: an output that ends where the input begins */
  TA_IN_TOUCH,     /* TA_IN_BEFORE + out_size: an output whose last element is the input's first */
  TA_OUT_MID,      /* out + out_size * (out_count / 2): inside the output */
  TA_EDGES_MID,    /* edges + 8 * (out_count / 2): inside the out_count + 1 edges */
  TA_EDGES_END,    /* edges + 8 * (out_count + 1): just past the edges */
  TA_EDGES_BEFORE, /* edges - the output's bytes: an output that ends where the edges begin */
  TA_EDGES_TOUCH,  /* TA_EDGES_BEFORE + out_size: an output whose last element is the first edge */
  TA_FAR_IN,       /* 2^45: ranges too large for the fake memory; no call dereferences them */
  TA_FAR_IN_MID,   /* 2^45 + size * (n / 2), rounded down to a multiple of out_size */
  TA_FAR_OUT,      /* 2^46 */
  TA_TOP           /* 4096 bytes below the end of the address space */
} ta_ptr;

/* The call a pointer is placed for. */
typedef struct ta_shape {
  size_t size;        /* bytes of an input element (0: an invalid dtype; placed as 1) */
  uint64_t n;         /* input elements */
  size_t out_size;    /* bytes of an output element (0: an invalid dtype; placed as size) */
  uint64_t out_count; /* output elements */
} ta_shape;

void *ta_pointer(ta_ptr k, const ta_shape *s);
/* The shape of a call whose input is n elements of dtype and whose output is out_count elements of
 * the same dtype (reduce: 1; scan: n). */
ta_shape ta_shape_of(int dtype, uint64_t n, uint64_t out_count);
/* The address of fake device memory's byte `offset`, for ranges computed by a test. */
uintptr_t ta_address(size_t offset);
#define TA_IN_OFFSET 2048

/* Fills the fake memory with the guard pattern: before each call (ta_run_both does it). */
void ta_poison(void);

/* After a call: 1 if it returned `expect` and left the fake memory untouched. Otherwise 0, with
 * "fn: what: args: expected X, got Y" or "... returned X but wrote fake device memory at byte k"
 * in why[0..len). */
int ta_check_call(const char *fn, const char *what, const char *args, cuprim_status got,
                  cuprim_status expect, char *why, size_t len);
/* ta_check_call with the arguments formatted from args_fmt. */
int ta_check_callf(const char *fn, const char *what, cuprim_status got, cuprim_status expect,
                   char *why, size_t len, const char *args_fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* ---------------------------------------------------------------- tables */

/* Failures of a test: each printed up to print_limit, all counted. */
typedef struct ta_tally {
  int failures;
  long cases;
  int print_limit;
} ta_tally;

/* Counts one checked call; prints `why` if it failed. */
void ta_record(ta_tally *t, int ok, const char *why);
/* ta_check_callf of a call, counted in t by ta_record. */
void ta_record_call(ta_tally *t, const char *fn, const char *what, cuprim_status got,
                    cuprim_status expect, const char *args_fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* The end of a test: nothing reached CUDA (cuprim_last_cuda_error() is cudaSuccess), and the test
 * fails if any call failed ("N of M <what> failed"). */
void ta_finish(const ta_tally *t, const char *what);
/* Runs case c through its _ex call (run(c, 0, ...)), and through the shorthand too (run(c, 1,
 * ...)) when its algorithm is AUTO: every primitive's shorthand is its _ex call with AUTO. The
 * fake memory is poisoned before each; run makes the call and returns what ta_check_call
 * returns. */
void ta_run_both(const void *c, int alg,
                 int (*run)(const void *c, int shorthand, char *why, size_t len), ta_tally *t);
/* Runs every case of a table (count cases of `size` bytes each, each with its algorithm as an int
 * at byte alg_offset) through ta_run_both, and ta_finish. TA_RUN_TABLE(cases, type, run) for an
 * array of `type` with a member `alg`. */
void ta_run_table(const void *cases, size_t count, size_t size, size_t alg_offset,
                  int (*run)(const void *c, int shorthand, char *why, size_t len));
#define TA_RUN_TABLE(cases, type, run)                                                             \
  ta_run_table((cases), sizeof(cases) / sizeof(cases)[0], sizeof(type), offsetof(type, alg), (run))

/* ---------------------------------------------------------------- supported combinations */

/* The library's answer for every (dtype, op) in the enums and around them (negative, past the
 * last, INT_MIN, INT_MAX) must be the test's own expectation: 1 where a call takes the pair, 0
 * elsewhere, also for values outside the enums. `name` names the query for messages. */
void ta_check_supported_pairs(const char *name, int (*library)(cuprim_dtype, cuprim_op),
                              int (*expected)(cuprim_dtype, cuprim_op));
/* The same for a query of one dtype. */
void ta_check_supported_dtypes(const char *name, int (*library)(cuprim_dtype),
                               int (*expected)(cuprim_dtype));

#endif
