/* The device instructions that only some GPUs have, each in one place with what older GPUs do
 * instead. Kernels call these and never test __CUDA_ARCH__ themselves (thread-block clusters,
 * which change a whole kernel, are the one exception: reduce_auto.cu's cluster kernel); a choice
 * that depends on the architecture without a new instruction (scan_lookback.cu's shifted loads,
 * for the registers they take) reads compiled_arch.
 *
 * Device code is compiled once per architecture of the build (CMAKE_CUDA_ARCHITECTURES), and a
 * device may also run PTX of an older architecture through the driver's compiler. What a kernel
 * can do is therefore a property of the code the device runs, not of the device: the host reads
 * it per context (cuprim__device_attrs.code_arch, from the code's PTX version) and asks
 * launch_config.cuh's cuprim__pdl_supported before it chains a launch, so that a kernel compiled
 * without griddepcontrol is never launched early. */
#ifndef CUPRIM_CTA_ARCH_CUH
#define CUPRIM_CTA_ARCH_CUH

#include <stdint.h>

namespace cuprim::cta {

/* The architecture the code being compiled is for, as __CUDA_ARCH__ spells it (750, 800, 900,
 * ...), and 0 in the host pass. The constants below are read from it. */
#ifdef __CUDA_ARCH__
constexpr int compiled_arch = __CUDA_ARCH__;
#else
constexpr int compiled_arch = 0;
#endif

/* Resident threads per multiprocessor on the architecture being compiled for, for the
 * min-blocks argument of __launch_bounds__ (the host pass sees the largest). */
constexpr int sm_threads =
    compiled_arch == 750 ? 1024
    : compiled_arch == 860 || compiled_arch == 870 || compiled_arch == 890 || compiled_arch >= 1200
        ? 1536
        : 2048;

/* Whether the code being compiled has asynchronous copies from global to shared memory (8.0):
 * kernels that stage their input in shared memory take copy16_async where it is true, and load
 * through registers where it is not. */
constexpr bool has_copy_async = compiled_arch >= 800;

/* Whether the code being compiled has the bulk L2 prefetch (9.0 and later): one thread asks for a
 * whole span; before 9.0 prefetch_l2_block spreads a prefetch per line over the block's threads,
 * so that callers that would prefetch from one thread call it from all of them there. */
constexpr bool has_bulk_prefetch = compiled_arch >= 900;

/* Whether the code being compiled has programmatic dependent launch (9.0 and later; the host's
 * side of the same fact is launch.h's cuprim__pdl_supported): a kernel whose older code needs
 * another way to order itself after a kernel before it (a grid barrier in a cooperative launch)
 * compiles that way only where this is false. */
constexpr bool has_pdl = compiled_arch >= 900;

/* Programmatic dependent launch (compute capability 9.0): the kernel launched after this one on
 * the stream may start now; it must still call pdl_wait before it reads what this grid writes.
 * Older GPUs: nothing (the next kernel then starts when this one has finished). */
__device__ __forceinline__ void pdl_launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* Waits until the grids this one depends on have finished and their writes are visible. A no-op
 * when the kernel was not launched as a programmatic dependent, and on older GPUs, where it was
 * launched in plain stream order. */
__device__ __forceinline__ void pdl_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* Copies the 16 bytes at global `src` to shared `dst` (both 16-byte aligned) with no register in
 * between (cp.async through L2 only, so that the copy takes no room in L1 while in flight); the
 * copy is complete, for this thread, after copy_async_wait. Older GPUs: a load and a store,
 * complete at once (where has_copy_async is false, kernels load through registers instead). */
__device__ __forceinline__ void copy16_async(void *dst, const void *src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(src) : "memory");
#else
  *static_cast<uint4 *>(dst) = *static_cast<const uint4 *>(src);
#endif
}

/* Waits until this thread's copy16_async copies are complete (a barrier then makes them visible
 * to the block). Older GPUs: nothing. */
__device__ __forceinline__ void copy_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

/* Asks L2 to fetch bytes (a multiple of 16) at p (16-byte aligned), with no register result: the
 * bulk copy engine's prefetch (9.0). Older GPUs: nothing (a hint only). */
__device__ __forceinline__ void prefetch_l2_bulk(const void *p, uint32_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(bytes) : "memory");
#else
  (void)p;
  (void)bytes;
#endif
}

/* Called by every thread of a block (thread t of `threads`): asks L2 to fetch `bytes` (a multiple
 * of 16) at p (16-byte aligned). 9.0 and later: one bulk prefetch by thread 0; older GPUs: one
 * prefetch.global.L2 per 128-byte line, spread over the threads. A hint only. */
__device__ __forceinline__ void prefetch_l2_block(const void *p, uint32_t bytes, int t,
                                                  int threads) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  (void)threads;
  if (t == 0 && bytes)
    prefetch_l2_bulk(p, bytes);
#else
  const char *c = static_cast<const char *>(p);
  for (uint32_t off = (uint32_t)t * 128; off < bytes; off += (uint32_t)threads * 128)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(c + off) : "memory");
#endif
}

/* prefetch_l2_block over the 16-byte-aligned interior of [p, p + bytes) (what the bulk prefetch
 * takes; nothing where it is empty). A hint only. */
__device__ __forceinline__ void prefetch_l2_range(const void *p, size_t bytes, int t, int threads) {
  const uintptr_t from = ((uintptr_t)p + 15) & ~(uintptr_t)15;
  const uintptr_t to = ((uintptr_t)p + bytes) & ~(uintptr_t)15;
  if (to > from)
    prefetch_l2_block(reinterpret_cast<const void *>(from), (uint32_t)(to - from), t, threads);
}

/* A read-only 16-byte load that skips L1 and asks L2 to fetch the surrounding 256 bytes (the
 * prefetch-size hint needs 8.0; 7.5 gets the load without the hint). */
__device__ __forceinline__ uint4 load_stream_l2_256(const void *p) {
  uint4 r;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
               : "l"(p));
#else
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
               : "l"(p));
#endif
  return r;
}

} // namespace cuprim::cta

#endif
