/* Host-side facts about dtypes and ops, all read off the tables of dtype_table.h: validity, class,
 * and which combinations each primitive takes. The entry points validate with these, so that
 * adding a dtype changes the table, not the validators. */
#ifndef CUPRIM_COMMON_DTYPE_H
#define CUPRIM_COMMON_DTYPE_H

#include <cuprim/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if the value is one of the enum's (any value may be passed). */
int cuprim__dtype_valid(cuprim_dtype t);
int cuprim__op_valid(cuprim_op op);
/* 1 for F16, BF16, F32, F64; 0 for integers and invalid values. */
int cuprim__dtype_is_float(cuprim_dtype t);
/* 1 if reduce and scan (and their segmented and batched forms) take (t, op): the dtype's
 * REDUCE_SCAN column, and a bitwise op only on integers. 0 for invalid values. */
int cuprim__reduce_scan_takes(cuprim_dtype t, cuprim_op op);
/* 1 if histogram takes t as a sample type. 0 for invalid values. */
int cuprim__histogram_takes(cuprim_dtype t);

#ifdef __cplusplus
}
#endif

#endif
