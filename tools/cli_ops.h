/* tools/cli_ops.h: host-side element operations of the cuprim program (plain C11, no CUDA calls):
 * which dtypes and ops each primitive takes, identities, combining two elements as the library
 * does (wrapping integers, NaN-propagating float MIN/MAX), the host references the demo and the
 * ladder check against, histogram binning exactly as histogram.h defines it, and printing values.
 * These are what join the passes of a chunked run, so they are unit-tested without a GPU. */
#ifndef CUPRIM_TOOLS_CLI_OPS_H
#define CUPRIM_TOOLS_CLI_OPS_H

#include "cli_args.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CLI_EXIT_OK if primitive p takes dtype t with op (histogram: any dtype, op ignored), else
 * CLI_EXIT_UNSUPPORTED with one line in err. The table is the headers' contract: reduce and scan
 * take I32 U32 I64 U64 F32 F64, and AND/OR/XOR integers only. It is checked before the device,
 * so that the answer does not depend on having one; a library that takes more would still be
 * refused here, and the table must grow with it. */
int cli_check_supported(cli_primitive p, cuprim_dtype t, cuprim_op op, char *err, size_t len);

/* *out = the identity of op for t (SUM 0, PROD 1, MIN the largest value or +inf, MAX the lowest
 * or -inf, AND all ones, OR and XOR 0). out holds one element of t. */
void cli_identity(cuprim_dtype t, cuprim_op op, void *out);

/* *acc = *acc op *x for one element of t (unaligned pointers are fine). Integer SUM and PROD wrap
 * modulo 2^bits; float MIN and MAX give NaN when either is NaN; AND/OR/XOR on floats leave *acc
 * unchanged (callers check cli_check_supported first). */
void cli_combine(cuprim_dtype t, cuprim_op op, void *acc, const void *x);

/* Host references, element by element in index order (integers exact). out: one element. */
void cli_reduce_host(cuprim_dtype t, cuprim_op op, const void *in, uint64_t n, void *out);
/* out[0..n): the scan of in[0..n) (out == in allowed). */
void cli_scan_host(cuprim_dtype t, cuprim_op op, cuprim_scan_kind kind, const void *in, void *out,
                   uint64_t n);

/* Element i of in (of dtype t) converted to double. */
double cli_to_double(cuprim_dtype t, const void *in, uint64_t i);

/* The bin of sample x as histogram.h defines it for even bins (scale = bins / (upper - lower),
 * computed once by the caller), or -1 when x is not counted (below lower, at or above upper,
 * NaN). This file is compiled without floating-point contraction so that the product rounds
 * exactly as the formula says. */
int64_t cli_bin_even(double x, uint32_t bins, double lower, double upper, double scale);
/* The bin of x for edges[0..bins] (strictly increasing), or -1 when x is not counted. */
int64_t cli_bin_range(double x, const double *edges, uint32_t bins);
/* counts[0..bins) += the histogram of in[0..n) (of dtype t); edges NULL: even bins. */
void cli_histogram_host(cuprim_dtype t, const void *in, uint64_t n, uint32_t bins, double lower,
                        double upper, const double *edges, uint64_t *counts);

/* One element as text: integers exactly, F32 with 9 and F64 with 17 significant digits (each
 * reads back to the same bits), "nan", "inf", "-inf". */
void cli_format_value(cuprim_dtype t, const void *p, char *buf, size_t len);

/* 1 if the two elements of t have the same bits, or are both NaN. */
int cli_same_value(cuprim_dtype t, const void *a, const void *b);

#ifdef __cplusplus
}
#endif

#endif /* CUPRIM_TOOLS_CLI_OPS_H */
