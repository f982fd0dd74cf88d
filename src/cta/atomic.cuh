/* atomic_combine(addr, v): *addr = op(*addr, v) atomically, for every (T, op) reduce takes.
 * Native atomics where the hardware has them (integer SUM/MIN/MAX/AND/OR/XOR, float and double
 * SUM); a compare-and-swap loop on the bits otherwise (PROD, float MIN/MAX with NaN propagation).
 * Float results then depend on the order in which blocks arrive. */
#ifndef CUPRIM_CTA_ATOMIC_CUH
#define CUPRIM_CTA_ATOMIC_CUH

#include <string.h>

#include "ops.cuh"

namespace cuprim::cta {

template <class T> struct atomic_word;
template <> struct atomic_word<int32_t> { typedef unsigned int type; };
template <> struct atomic_word<uint32_t> { typedef unsigned int type; };
template <> struct atomic_word<float> { typedef unsigned int type; };
template <> struct atomic_word<int64_t> { typedef unsigned long long type; };
template <> struct atomic_word<uint64_t> { typedef unsigned long long type; };
template <> struct atomic_word<double> { typedef unsigned long long type; };

template <class T, class Op> __device__ void atomic_combine_cas(T *addr, T v) {
  typedef typename atomic_word<T>::type W;
  W *w = reinterpret_cast<W *>(addr);
  W old = *reinterpret_cast<volatile W *>(w), assumed;
  do {
    assumed = old;
    T cur;
    memcpy(&cur, &assumed, sizeof cur);
    const T next = Op()(cur, v);
    W nw;
    memcpy(&nw, &next, sizeof nw);
    if (nw == assumed)
      return; /* nothing changes (also: a NaN already there stays) */
    old = atomicCAS(w, assumed, nw);
  } while (old != assumed);
}

template <class T, class Op> __device__ void atomic_combine(T *addr, T v) {
  constexpr cuprim_op id = Op::id;
  constexpr bool is32 = sizeof(T) == 4;
  if constexpr (id == CUPRIM_SUM) {
    if constexpr (traits<T>::is_float)
      atomicAdd(addr, v);
    else if constexpr (is32)
      atomicAdd(reinterpret_cast<unsigned int *>(addr), (unsigned int)v);
    else
      atomicAdd(reinterpret_cast<unsigned long long *>(addr), (unsigned long long)v);
  } else if constexpr ((id == CUPRIM_MIN || id == CUPRIM_MAX) && !traits<T>::is_float) {
    /* Signedness matters: use the signed or unsigned overload of the same width. */
    if constexpr (is32 && (T)-1 < (T)0) {
      if constexpr (id == CUPRIM_MIN)
        atomicMin(reinterpret_cast<int *>(addr), (int)v);
      else
        atomicMax(reinterpret_cast<int *>(addr), (int)v);
    } else if constexpr (is32) {
      if constexpr (id == CUPRIM_MIN)
        atomicMin(reinterpret_cast<unsigned int *>(addr), (unsigned int)v);
      else
        atomicMax(reinterpret_cast<unsigned int *>(addr), (unsigned int)v);
    } else if constexpr ((T)-1 < (T)0) {
      if constexpr (id == CUPRIM_MIN)
        atomicMin(reinterpret_cast<long long *>(addr), (long long)v);
      else
        atomicMax(reinterpret_cast<long long *>(addr), (long long)v);
    } else {
      if constexpr (id == CUPRIM_MIN)
        atomicMin(reinterpret_cast<unsigned long long *>(addr), (unsigned long long)v);
      else
        atomicMax(reinterpret_cast<unsigned long long *>(addr), (unsigned long long)v);
    }
  } else if constexpr (id == CUPRIM_AND || id == CUPRIM_OR || id == CUPRIM_XOR) {
    typedef typename atomic_word<T>::type W;
    W *w = reinterpret_cast<W *>(addr);
    if constexpr (id == CUPRIM_AND)
      atomicAnd(w, (W)v);
    else if constexpr (id == CUPRIM_OR)
      atomicOr(w, (W)v);
    else
      atomicXor(w, (W)v);
  } else {
    atomic_combine_cas<T, Op>(addr, v);
  }
}

} // namespace cuprim::cta

#endif
