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
#include <string.h>

#include <type_traits>

#include <cuprim/core.h>

#include "common/dtype_table.h"

namespace cuprim {

/* What the table (common/dtype_table.h) says of a device type: its dtype and whether it is a
 * float. */
template <class T> struct dtype_traits;
#define CUPRIM__DTYPE_TRAITS(NAME, VALUE, SIZE, CLASS, STR, DEVICE_TYPE, ...)                      \
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

/* The type reduce and scan compute in: float for the 16-bit floats (reduce.h, scan.h: arithmetic in
 * float, one rounding per output element), the element type itself otherwise. Kernels load
 * elements, widen them with to_acc (exact), combine with op<acc_t<T>, OP>, and narrow each output
 * once with from_acc (round to nearest even). Each 16-bit float names its accumulate type and its
 * two conversions in one specialization. */
template <class T> struct acc_type {
  typedef T type;
  static __host__ __device__ __forceinline__ T widen(T x) { return x; }
  static __host__ __device__ __forceinline__ T narrow(T a) { return a; }
};
template <> struct acc_type<__half> {
  typedef float type;
  static __host__ __device__ __forceinline__ float widen(__half x) { return __half2float(x); }
  static __host__ __device__ __forceinline__ __half narrow(float a) { return __float2half_rn(a); }
};
template <> struct acc_type<__nv_bfloat16> {
  typedef float type;
  static __host__ __device__ __forceinline__ float widen(__nv_bfloat16 x) {
    return __bfloat162float(x);
  }
  static __host__ __device__ __forceinline__ __nv_bfloat16 narrow(float a) {
    return __float2bfloat16_rn(a);
  }
};
template <class T> using acc_t = typename acc_type<T>::type;

/* True for the element types that are computed in a wider type. */
template <class T>
constexpr bool is_narrow_float =
    std::is_same<T, __half>::value || std::is_same<T, __nv_bfloat16>::value;

template <class T> __host__ __device__ __forceinline__ acc_t<T> to_acc(T x) {
  return acc_type<T>::widen(x);
}

template <class T> __host__ __device__ __forceinline__ T from_acc(acc_t<T> a) {
  return acc_type<T>::narrow(a);
}

/* a[i] = to_acc(x[i]) for N elements; 16-bit floats two at a time (one paired conversion). */
template <class T, int N> __device__ __forceinline__ void to_acc_n(const T *x, acc_t<T> *a) {
  if constexpr (is_narrow_float<T> && N % 2 == 0) {
#pragma unroll
    for (int i = 0; i < N; i += 2) {
      if constexpr (std::is_same<T, __half>::value) {
        __half2 h;
        memcpy(&h, x + i, 4);
        const float2 f = __half22float2(h);
        a[i] = f.x;
        a[i + 1] = f.y;
      } else { /* a bfloat16 is the high half of its float: a shift and a mask */
        uint32_t w;
        memcpy(&w, x + i, 4);
        a[i] = __uint_as_float(w << 16);
        a[i + 1] = __uint_as_float(w & 0xffff0000u);
      }
    }
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i)
      a[i] = to_acc(x[i]);
  }
}

/* x[i] = from_acc<T>(a[i]) for N elements; 16-bit floats two at a time (one paired conversion,
 * each half rounded to nearest even on its own). */
template <class T, int N> __device__ __forceinline__ void from_acc_n(const acc_t<T> *a, T *x) {
  if constexpr (is_narrow_float<T> && N % 2 == 0) {
#pragma unroll
    for (int i = 0; i < N; i += 2) {
      if constexpr (std::is_same<T, __half>::value) {
        const __half2 h = __floats2half2_rn(a[i], a[i + 1]);
        memcpy(x + i, &h, 4);
      } else {
        const __nv_bfloat162 h = __floats2bfloat162_rn(a[i], a[i + 1]);
        memcpy(x + i, &h, 4);
      }
    }
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i)
      x[i] = from_acc<T>(a[i]);
  }
}

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

/* The operator reduce and scan apply to elements of type T: OP in T's accumulate type (the OpOf
 * of dispatch_typed_op, common/dispatch.cuh). */
template <class T, cuprim_op OP> using acc_op = op<acc_t<T>, OP>;

/* Op over v[0 .. N) as a balanced pairwise tree in index order ((v0 op v1) op (v2 op v3), and so
 * on up): the fixed order of a thread's items in the reduce's chunks and the segmented reduce's
 * groups. Overwrites v; returns the result. */
template <class Op, int N, class A> __device__ __forceinline__ A tree_reduce(A (&v)[N]) {
  const Op op;
#pragma unroll
  for (int s = 1; s < N; s *= 2)
#pragma unroll
    for (int i = 0; i + s < N; i += 2 * s)
      v[i] = op(v[i], v[i + s]);
  return v[0];
}

/* p[i] widened to the accumulate type, or Op's identity past the end (i >= m): the load of the
 * textbook kernels, which pad the last block with the identity. */
template <class T, class Op>
__device__ __forceinline__ acc_t<T> load_or_identity(const T *p, uint64_t i, uint64_t m) {
  return i < m ? to_acc(p[i]) : Op::identity();
}

} // namespace cuprim

#endif
