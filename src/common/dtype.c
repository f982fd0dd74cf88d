/* Dtype and op facts from the tables (dtype_table.h), and the public names and sizes. */
#include "dtype.h"

#include "dtype_table.h"

/* The public enums are written out in core.h (the public contract pins them); check them against
 * the tables. */
#define CUPRIM__DTYPE_ASSERT(NAME, VALUE, ...)                                                     \
  _Static_assert(CUPRIM_##NAME == (VALUE), "cuprim_dtype value of " #NAME " drifted");
CUPRIM__DTYPE_TABLE(CUPRIM__DTYPE_ASSERT)
#undef CUPRIM__DTYPE_ASSERT
#define CUPRIM__OP_ASSERT(NAME, VALUE, ...)                                                        \
  _Static_assert(CUPRIM_##NAME == (VALUE), "cuprim_op value of " #NAME " drifted");
CUPRIM__OP_TABLE(CUPRIM__OP_ASSERT)
#undef CUPRIM__OP_ASSERT

/* The tables as arrays indexed by value (values are dense from 0: the asserts above and the
 * designated initializers keep each row at its value). */
static const struct {
  unsigned char size, is_float, reduce_scan, histogram;
  const char *name;
} cuprim__dtypes[CUPRIM__NUM_DTYPES] = {
#define CUPRIM__DTYPE_ROW(NAME, VALUE, SIZE, CLASS, STR, DEVICE_TYPE, REDUCE_SCAN, HISTOGRAM)      \
  [VALUE] = {SIZE, CUPRIM__IS_FLOAT(CLASS), REDUCE_SCAN, HISTOGRAM, STR},
    CUPRIM__DTYPE_TABLE(CUPRIM__DTYPE_ROW)
#undef CUPRIM__DTYPE_ROW
};

static const struct {
  unsigned char integer_only;
  const char *name;
} cuprim__ops[CUPRIM__NUM_OPS] = {
#define CUPRIM__OP_ROW(NAME, VALUE, STR, INTEGER_ONLY) [VALUE] = {INTEGER_ONLY, STR},
    CUPRIM__OP_TABLE(CUPRIM__OP_ROW)
#undef CUPRIM__OP_ROW
};

int cuprim__dtype_valid(cuprim_dtype t) { return (unsigned)t < (unsigned)CUPRIM__NUM_DTYPES; }

int cuprim__op_valid(cuprim_op op) { return (unsigned)op < (unsigned)CUPRIM__NUM_OPS; }

size_t cuprim_dtype_size(cuprim_dtype t) {
  return cuprim__dtype_valid(t) ? cuprim__dtypes[t].size : 0;
}

const char *cuprim_dtype_name(cuprim_dtype t) {
  return cuprim__dtype_valid(t) ? cuprim__dtypes[t].name : NULL;
}

const char *cuprim_op_name(cuprim_op op) {
  return cuprim__op_valid(op) ? cuprim__ops[op].name : NULL;
}

int cuprim__dtype_is_float(cuprim_dtype t) {
  return cuprim__dtype_valid(t) && cuprim__dtypes[t].is_float;
}

int cuprim__reduce_scan_takes(cuprim_dtype t, cuprim_op op) {
  return cuprim__dtype_valid(t) && cuprim__op_valid(op) && cuprim__dtypes[t].reduce_scan &&
         !(cuprim__ops[op].integer_only && cuprim__dtypes[t].is_float);
}

int cuprim__histogram_takes(cuprim_dtype t) {
  return cuprim__dtype_valid(t) && cuprim__dtypes[t].histogram;
}
