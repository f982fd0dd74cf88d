/* Element traits and operators as functors over element types: the identity and the combine
 * step of each cuprim_op. Integer SUM and PROD wrap modulo 2^bits (computed in unsigned
 * arithmetic, so signed overflow is never undefined); float MIN and MAX propagate NaN. Device
 * and host code. The host dispatch into these templates is common/dispatch.cuh. */
#ifndef CUPRIM_CTA_OPS_CUH
#define CUPRIM_CTA_OPS_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math.h>
#include <stdint.h>

#include <cuprim/core.h>

#include "common/dtype_table.h"

namespace cuprim {

/* What the table (common/dtype_table.h) says of a device type: its dtype and whether it is a
 * float. */
template <class T> struct dtype_traits;
#define CUPRIM__DTYPE_TRAITS(NAME, VALUE, SIZE, CLASS, STR, DEVICE_TYPE, ...)                     \
  template <> struct dtype_traits<DEVICE_TYPE> {                                                   \
    static constexpr cuprim_dtype dtype = CUPRIM_##NAME;                                           \
    static constexpr bool is_float = CUPRIM__IS_FLOAT(CLASS) != 0;                                 \
  };                                                                                               \
  static_assert(sizeof(DEVICE_TYPE) == (SIZE), "the size column of " #NAME);
CUPRIM__DTYPE_TABLE(CUPRIM__DTYPE_TRAITS)
#undef CUPRIM__DTYPE_TRAITS

/* The device-side rest, for the types reduce and scan compute in: the unsigned type integer
 * arithmetic wraps in, and the largest and lowest values (MIN's and MAX's identities). */
template <class T> struct traits;
#define CUPRIM__TRAITS(T, U, MAXV, LOWV)                                                           \
  template <> struct traits<T> : dtype_traits<T> {                                                 \
    typedef U unsigned_type;                                                                       \
    static __host__ __device__ T max_value() { return MAXV; }                                      \
    static __host__ __device__ T lowest_value() { return LOWV; }                                   \
  };
CUPRIM__TRAITS(int32_t, uint32_t, INT32_MAX, INT32_MIN)
CUPRIM__TRAITS(uint32_t, uint32_t, UINT32_MAX, 0u)
CUPRIM__TRAITS(int64_t, uint64_t, INT64_MAX, INT64_MIN)
CUPRIM__TRAITS(uint64_t, uint64_t, UINT64_MAX, 0ull)
CUPRIM__TRAITS(float, uint32_t, INFINITY, -INFINITY)
CUPRIM__TRAITS(double, uint64_t, (double)INFINITY, -(double)INFINITY)
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

#endif
