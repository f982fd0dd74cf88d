/* Dtype and op facts from the tables (dtype_table.h), and the public names and sizes. */
#include "dtype.h"

#include "dtype_table.h"

/* core.h writes out the public enums and pins their values; check them against the tables. */
#define CUPRIM__DTYPE_ASSERT(NAME, VALUE, ...)                                                     \
  _Static_assert(CUPRIM_##NAME == (VALUE), "cuprim_dtype value of " #NAME " drifted");
CUPRIM__DTYPE_TABLE(CUPRIM__DTYPE_ASSERT)
#undef CUPRIM__DTYPE_ASSERT
#define CUPRIM__OP_ASSERT(NAME, VALUE, ...)                                                        \
  _Static_assert(CUPRIM_##NAME == (VALUE), "cuprim_op value of " #NAME " drifted");
CUPRIM__OP_TABLE(CUPRIM__OP_ASSERT)
#undef CUPRIM__OP_ASSERT

int cuprim__dtype_valid(cuprim_dtype t) { return (unsigned)t < (unsigned)CUPRIM__NUM_DTYPES; }

int cuprim__op_valid(cuprim_op op) { return (unsigned)op < (unsigned)CUPRIM__NUM_OPS; }

size_t cuprim_dtype_size(cuprim_dtype t) {
  switch ((int)t) {
#define CUPRIM__SIZE_CASE(NAME, VALUE, SIZE, ...)                                                  \
  case VALUE:                                                                                      \
    return SIZE;
    CUPRIM__DTYPE_TABLE(CUPRIM__SIZE_CASE)
#undef CUPRIM__SIZE_CASE
  }
  return 0;
}

const char *cuprim_dtype_name(cuprim_dtype t) {
  switch ((int)t) {
#define CUPRIM__NAME_CASE(NAME, VALUE, SIZE, CLASS, STR, ...)                                      \
  case VALUE:                                                                                      \
    return STR;
    CUPRIM__DTYPE_TABLE(CUPRIM__NAME_CASE)
#undef CUPRIM__NAME_CASE
  }
  return NULL;
}

const char *cuprim_op_name(cuprim_op op) {
  switch ((int)op) {
#define CUPRIM__NAME_CASE(NAME, VALUE, STR, ...)                                                   \
  case VALUE:                                                                                      \
    return STR;
    CUPRIM__OP_TABLE(CUPRIM__NAME_CASE)
#undef CUPRIM__NAME_CASE
  }
  return NULL;
}

int cuprim__dtype_is_float(cuprim_dtype t) {
  switch ((int)t) {
#define CUPRIM__FLOAT_CASE(NAME, VALUE, SIZE, CLASS, ...)                                          \
  case VALUE:                                                                                      \
    return CUPRIM__IS_FLOAT(CLASS);
    CUPRIM__DTYPE_TABLE(CUPRIM__FLOAT_CASE)
#undef CUPRIM__FLOAT_CASE
  }
  return 0;
}

static int cuprim__op_integer_only(cuprim_op op) {
  switch ((int)op) {
#define CUPRIM__INT_CASE(NAME, VALUE, STR, INTEGER_ONLY)                                           \
  case VALUE:                                                                                      \
    return INTEGER_ONLY;
    CUPRIM__OP_TABLE(CUPRIM__INT_CASE)
#undef CUPRIM__INT_CASE
  }
  return 1;
}

int cuprim__reduce_scan_takes(cuprim_dtype t, cuprim_op op) {
  int takes = 0;
  switch ((int)t) {
#define CUPRIM__RS_CASE(NAME, VALUE, SIZE, CLASS, STR, DEVICE_TYPE, REDUCE_SCAN, HISTOGRAM)        \
  case VALUE:                                                                                      \
    takes = REDUCE_SCAN;                                                                           \
    break;
    CUPRIM__DTYPE_TABLE(CUPRIM__RS_CASE)
#undef CUPRIM__RS_CASE
  }
  return takes && cuprim__op_valid(op) &&
         !(cuprim__op_integer_only(op) && cuprim__dtype_is_float(t));
}

int cuprim__histogram_takes(cuprim_dtype t) {
  switch ((int)t) {
#define CUPRIM__HIST_CASE(NAME, VALUE, SIZE, CLASS, STR, DEVICE_TYPE, REDUCE_SCAN, HISTOGRAM)      \
  case VALUE:                                                                                      \
    return HISTOGRAM;
    CUPRIM__DTYPE_TABLE(CUPRIM__HIST_CASE)
#undef CUPRIM__HIST_CASE
  }
  return 0;
}
