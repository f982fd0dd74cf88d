/* The one table of element types and the one table of operators (X-macros, as zstd and libuv
 * keep theirs). Everything the library knows about a dtype or an op comes from here: the enum
 * values (checked against the public enums at compile time, status.c), the sizes and names
 * (cuprim_dtype_size, cuprim_dtype_name, cuprim_op_name), which combinations each primitive
 * takes (dtype.c), and the host dispatch into template instances (dispatch.cuh), whose device
 * type is the sixth column. Adding a dtype means a row here and, for reduce and scan, the
 * device-side traits of its device type (cta/ops.cuh). Plain C; the device-type column is read
 * only by the CUDA sources. */
#ifndef CUPRIM_COMMON_DTYPE_TABLE_H
#define CUPRIM_COMMON_DTYPE_TABLE_H

/* X(NAME, VALUE, SIZE, CLASS, "name", DEVICE_TYPE, REDUCE_SCAN, HISTOGRAM)
 *   CLASS        SINT, UINT or FLOAT
 *   DEVICE_TYPE  the element type the kernels are instantiated for
 *   REDUCE_SCAN  1 if reduce and scan take it (with the ops its class allows)
 *   HISTOGRAM    1 if histogram takes it as a sample type */
#define CUPRIM__DTYPE_TABLE(X)                                                                     \
  X(I8, 0, 1, SINT, "i8", int8_t, 0, 1)                                                            \
  X(U8, 1, 1, UINT, "u8", uint8_t, 0, 1)                                                           \
  X(I16, 2, 2, SINT, "i16", int16_t, 0, 1)                                                         \
  X(U16, 3, 2, UINT, "u16", uint16_t, 0, 1)                                                        \
  X(I32, 4, 4, SINT, "i32", int32_t, 1, 1)                                                         \
  X(U32, 5, 4, UINT, "u32", uint32_t, 1, 1)                                                        \
  X(I64, 6, 8, SINT, "i64", int64_t, 1, 1)                                                         \
  X(U64, 7, 8, UINT, "u64", uint64_t, 1, 1)                                                        \
  X(F32, 8, 4, FLOAT, "f32", float, 1, 1)                                                          \
  X(F64, 9, 8, FLOAT, "f64", double, 1, 1)                                                         \
  X(F16, 10, 2, FLOAT, "f16", __half, 1, 1)                                                        \
  X(BF16, 11, 2, FLOAT, "bf16", __nv_bfloat16, 1, 1)

/* X(NAME, VALUE, "name", INTEGER_ONLY)
 *   INTEGER_ONLY  1: integer dtypes only (the bitwise ops) */
#define CUPRIM__OP_TABLE(X)                                                                        \
  X(SUM, 0, "sum", 0)                                                                              \
  X(PROD, 1, "prod", 0)                                                                            \
  X(MIN, 2, "min", 0)                                                                              \
  X(MAX, 3, "max", 0)                                                                              \
  X(AND, 4, "and", 1)                                                                              \
  X(OR, 5, "or", 1)                                                                                \
  X(XOR, 6, "xor", 1)

/* CUPRIM__IS_FLOAT_SINT etc.: the class column as a number. */
#define CUPRIM__IS_FLOAT_SINT 0
#define CUPRIM__IS_FLOAT_UINT 0
#define CUPRIM__IS_FLOAT_FLOAT 1
#define CUPRIM__IS_FLOAT(CLASS) CUPRIM__IS_FLOAT_##CLASS

/* The number of rows (one past the largest value: values are dense from 0). */
#define CUPRIM__COUNT_ROW(...) +1
#define CUPRIM__NUM_DTYPES (0 CUPRIM__DTYPE_TABLE(CUPRIM__COUNT_ROW))
#define CUPRIM__NUM_OPS (0 CUPRIM__OP_TABLE(CUPRIM__COUNT_ROW))

#endif
