/* Operators as functors over element types: the identity and the combine step of each
 * cuprim_op. Integer SUM and PROD wrap modulo 2^bits (computed in unsigned arithmetic, so signed
 * overflow is never undefined); float MIN and MAX propagate NaN. Device and host code. */
#ifndef CUPRIM_CTA_OPS_CUH
#define CUPRIM_CTA_OPS_CUH

#include <cuprim/core.h>
#include <math.h>
#include <stdint.h>

namespace cuprim {

template <class T> struct traits;
#define CUPRIM__TRAITS(T, U, IS_FLOAT, MAXV, LOWV, DT)                                             \
  template <> struct traits<T> {                                                                   \
    typedef U unsigned_type;                                                                       \
    static constexpr bool is_float = IS_FLOAT;                                                     \
    static constexpr cuprim_dtype dtype = DT;                                                      \
    static __host__ __device__ T max_value() { return MAXV; }                                      \
    static __host__ __device__ T lowest_value() { return LOWV; }                                   \
  };
CUPRIM__TRAITS(int32_t, uint32_t, false, INT32_MAX, INT32_MIN, CUPRIM_I32)
CUPRIM__TRAITS(uint32_t, uint32_t, false, UINT32_MAX, 0u, CUPRIM_U32)
CUPRIM__TRAITS(int64_t, uint64_t, false, INT64_MAX, INT64_MIN, CUPRIM_I64)
CUPRIM__TRAITS(uint64_t, uint64_t, false, UINT64_MAX, 0ull, CUPRIM_U64)
CUPRIM__TRAITS(float, uint32_t, true, INFINITY, -INFINITY, CUPRIM_F32)
CUPRIM__TRAITS(double, uint64_t, true, (double)INFINITY, -(double)INFINITY, CUPRIM_F64)
#undef CUPRIM__TRAITS

template <class T, cuprim_op OP> struct op;

template <class T> struct op<T, CUPRIM_SUM> {
  static constexpr cuprim_op id = CUPRIM_SUM;
  static __host__ __device__ T identity() { return T(0); }
  __host__ __device__ T operator()(T a, T b) const {
    if constexpr (traits<T>::is_float)
      return a + b;
    else
      return T(typename traits<T>::unsigned_type(a) + typename traits<T>::unsigned_type(b));
  }
};

template <class T> struct op<T, CUPRIM_PROD> {
  static constexpr cuprim_op id = CUPRIM_PROD;
  static __host__ __device__ T identity() { return T(1); }
  __host__ __device__ T operator()(T a, T b) const {
    if constexpr (traits<T>::is_float)
      return a * b;
    else
      return T(typename traits<T>::unsigned_type(a) * typename traits<T>::unsigned_type(b));
  }
};

/* a != a is true only for NaN: a NaN on either side wins, so MIN and MAX propagate NaN. */
template <class T> struct op<T, CUPRIM_MIN> {
  static constexpr cuprim_op id = CUPRIM_MIN;
  static __host__ __device__ T identity() { return traits<T>::max_value(); }
  __host__ __device__ T operator()(T a, T b) const { return (a != a || a < b) ? a : b; }
};

template <class T> struct op<T, CUPRIM_MAX> {
  static constexpr cuprim_op id = CUPRIM_MAX;
  static __host__ __device__ T identity() { return traits<T>::lowest_value(); }
  __host__ __device__ T operator()(T a, T b) const { return (a != a || a > b) ? a : b; }
};

template <class T> struct op<T, CUPRIM_AND> {
  static constexpr cuprim_op id = CUPRIM_AND;
  static __host__ __device__ T identity() { return T(~typename traits<T>::unsigned_type(0)); }
  __host__ __device__ T operator()(T a, T b) const { return a & b; }
};

template <class T> struct op<T, CUPRIM_OR> {
  static constexpr cuprim_op id = CUPRIM_OR;
  static __host__ __device__ T identity() { return T(0); }
  __host__ __device__ T operator()(T a, T b) const { return a | b; }
};

template <class T> struct op<T, CUPRIM_XOR> {
  static constexpr cuprim_op id = CUPRIM_XOR;
  static __host__ __device__ T identity() { return T(0); }
  __host__ __device__ T operator()(T a, T b) const { return a ^ b; }
};

} // namespace cuprim

/* Inside a function template on T: `return FN<T, cuprim::op<T, OP>>(args...)` for the runtime
 * op. Bitwise ops are instantiated for integer T only (the branch is discarded for floats, which
 * is why this must expand inside a template). The caller validated the (dtype, op) pair. */
#define CUPRIM__DISPATCH_OP(T, FN, op_, ...)                                                       \
  switch (op_) {                                                                                   \
  case CUPRIM_SUM:                                                                                 \
    return FN<T, ::cuprim::op<T, CUPRIM_SUM>>(__VA_ARGS__);                                        \
  case CUPRIM_PROD:                                                                                \
    return FN<T, ::cuprim::op<T, CUPRIM_PROD>>(__VA_ARGS__);                                       \
  case CUPRIM_MIN:                                                                                 \
    return FN<T, ::cuprim::op<T, CUPRIM_MIN>>(__VA_ARGS__);                                        \
  case CUPRIM_MAX:                                                                                 \
    return FN<T, ::cuprim::op<T, CUPRIM_MAX>>(__VA_ARGS__);                                        \
  default:                                                                                         \
    if constexpr (!::cuprim::traits<T>::is_float) {                                                \
      switch (op_) {                                                                               \
      case CUPRIM_AND:                                                                             \
        return FN<T, ::cuprim::op<T, CUPRIM_AND>>(__VA_ARGS__);                                    \
      case CUPRIM_OR:                                                                              \
        return FN<T, ::cuprim::op<T, CUPRIM_OR>>(__VA_ARGS__);                                     \
      case CUPRIM_XOR:                                                                             \
        return FN<T, ::cuprim::op<T, CUPRIM_XOR>>(__VA_ARGS__);                                    \
      default:                                                                                     \
        break;                                                                                     \
      }                                                                                            \
    }                                                                                              \
    return CUPRIM_ERROR_INTERNAL;                                                                  \
  }

/* `return FN<T>(args...)` for the runtime dtype, over the dtypes reduce and scan take. */
#define CUPRIM__DISPATCH_TYPE(dtype_, FN, ...)                                                     \
  switch (dtype_) {                                                                                \
  case CUPRIM_I32:                                                                                 \
    return FN<int32_t>(__VA_ARGS__);                                                               \
  case CUPRIM_U32:                                                                                 \
    return FN<uint32_t>(__VA_ARGS__);                                                              \
  case CUPRIM_I64:                                                                                 \
    return FN<int64_t>(__VA_ARGS__);                                                               \
  case CUPRIM_U64:                                                                                 \
    return FN<uint64_t>(__VA_ARGS__);                                                              \
  case CUPRIM_F32:                                                                                 \
    return FN<float>(__VA_ARGS__);                                                                 \
  case CUPRIM_F64:                                                                                 \
    return FN<double>(__VA_ARGS__);                                                                \
  default:                                                                                         \
    return CUPRIM_ERROR_INTERNAL;                                                                  \
  }

/* The same over the ten sample dtypes histogram takes: the 8- and 16-bit ones, then the above. */
#define CUPRIM__DISPATCH_SAMPLE_TYPE(dtype_, FN, ...)                                              \
  switch (dtype_) {                                                                                \
  case CUPRIM_I8:                                                                                  \
    return FN<int8_t>(__VA_ARGS__);                                                                \
  case CUPRIM_U8:                                                                                  \
    return FN<uint8_t>(__VA_ARGS__);                                                               \
  case CUPRIM_I16:                                                                                 \
    return FN<int16_t>(__VA_ARGS__);                                                               \
  case CUPRIM_U16:                                                                                 \
    return FN<uint16_t>(__VA_ARGS__);                                                              \
  default:                                                                                         \
    break;                                                                                         \
  }                                                                                                \
  CUPRIM__DISPATCH_TYPE(dtype_, FN, __VA_ARGS__)

#endif
