/* Host dispatch from the runtime (dtype, op) of a call into a template instance, generated from
 * the tables of dtype_table.h (host code, for the CUDA sources). A dispatch calls a generic
 * lambda with a type tag (and an op tag) for the combinations a primitive takes, and returns its
 * cuprim_status; any other value gives CUPRIM_ERROR_INTERNAL (the entry points validated it).
 *
 *   return cuprim::dispatch_dtype_op<cuprim::REDUCE_SCAN_TYPES>(dtype, op, [&](auto t, auto o) {
 *     using T = typename decltype(t)::type;
 *     return impl<T, cuprim::op<T, decltype(o)::value>>(args...);
 *   });
 *
 * The reduce and scan entry points name the operator the same way each time, so they take the
 * pair already made, and their impl deduces T and Op from its first parameter:
 *
 *   template <class T, class Op> cuprim_status impl(cuprim::typed_op<T, Op>, args...);
 *   return cuprim::dispatch_typed_op<cuprim::REDUCE_SCAN_TYPES, cuprim::acc_op>(
 *       dtype, op, [&](auto m) { return impl(m, args...); });
 *
 * Only the combinations the table allows are instantiated (no bitwise op on a float type). */
#ifndef CUPRIM_COMMON_DISPATCH_CUH
#define CUPRIM_COMMON_DISPATCH_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include <cuprim/core.h>

#include "dtype_table.h"

namespace cuprim {

template <class T, bool IS_FLOAT> struct type_tag {
  typedef T type;
  static constexpr bool is_float = IS_FLOAT;
};
template <cuprim_op OP> struct op_tag { static constexpr cuprim_op value = OP; };

/* Which of the table's dtypes a dispatch instantiates (ALL_TYPES: every row, for calls that take
 * every dtype, as the arg-reduce does). */
enum dtype_set { REDUCE_SCAN_TYPES, HISTOGRAM_TYPES, ALL_TYPES };

/* f(type_tag<T, is_float>{}) for the device type T of `dtype`, if the set takes it. */
template <dtype_set SET, class F> cuprim_status dispatch_dtype(cuprim_dtype dtype, F &&f) {
  switch (dtype) {
#define CUPRIM__DISPATCH_CASE(NAME, VALUE, SIZE, CLASS, STR, DEVICE_TYPE, REDUCE_SCAN, HISTOGRAM)  \
  case CUPRIM_##NAME:                                                                              \
    if constexpr (SET == ALL_TYPES || (SET == REDUCE_SCAN_TYPES ? REDUCE_SCAN : HISTOGRAM) != 0)   \
      return f(type_tag<DEVICE_TYPE, CUPRIM__IS_FLOAT(CLASS) != 0>{});                             \
    break;
    CUPRIM__DTYPE_TABLE(CUPRIM__DISPATCH_CASE)
#undef CUPRIM__DISPATCH_CASE
  default:
    break;
  }
  return CUPRIM_ERROR_INTERNAL;
}

/* f(op_tag<OP>{}) for `op`, if the table allows it on the type (bitwise ops: integers only). */
template <bool IS_FLOAT, class F> cuprim_status dispatch_op(cuprim_op op, F &&f) {
  switch (op) {
#define CUPRIM__DISPATCH_CASE(NAME, VALUE, STR, INTEGER_ONLY)                                      \
  case CUPRIM_##NAME:                                                                              \
    if constexpr (!(INTEGER_ONLY && IS_FLOAT))                                                     \
      return f(op_tag<CUPRIM_##NAME>{});                                                           \
    break;
    CUPRIM__OP_TABLE(CUPRIM__DISPATCH_CASE)
#undef CUPRIM__DISPATCH_CASE
  default:
    break;
  }
  return CUPRIM_ERROR_INTERNAL;
}

/* f(type_tag<T>{}, op_tag<OP>{}) for the pair, over the dtypes of SET. */
template <dtype_set SET, class F>
cuprim_status dispatch_dtype_op(cuprim_dtype dtype, cuprim_op op, F &&f) {
  return dispatch_dtype<SET>(dtype, [&](auto t) {
    return dispatch_op<decltype(t)::is_float>(op, [&](auto o) { return f(t, o); });
  });
}

/* A template instance's element type and operator, as dispatch_typed_op passes them. */
template <class T, class Op> struct typed_op {
  typedef T type;
  typedef Op op;
};

/* f(typed_op<T, OpOf<T, OP>>{}) for the pair, over the dtypes of SET. OpOf makes the operator's
 * type from the element type and the op: cta/ops.cuh's acc_op for reduce and scan (this host
 * header does not include the device headers, so the caller names it). */
template <dtype_set SET, template <class, cuprim_op> class OpOf, class F>
cuprim_status dispatch_typed_op(cuprim_dtype dtype, cuprim_op op, F &&f) {
  return dispatch_dtype_op<SET>(dtype, op, [&](auto t, auto o) {
    typedef typename decltype(t)::type T;
    return f(typed_op<T, OpOf<T, decltype(o)::value>>{});
  });
}

} // namespace cuprim

#endif
