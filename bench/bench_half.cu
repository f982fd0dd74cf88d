/* The suites of 0.2's 16-bit floats and arg-reduce, over sizes 2^10..2^28 (--quick: 2^10, 2^20,
 * 2^28), each size with the bench's reference over the same bytes:
 *   half: F16 and BF16 cuprim_reduce SUM against cub::DeviceReduce::Reduce with a float
 *         accumulator (a float result; cuprim rounds its float sum to the dtype once); F16
 *         inclusive cuprim_scan SUM against cub::DeviceScan::InclusiveSum on __half; a 256-bin F16
 *         cuprim_histogram_even over [0, 1) against cub::DeviceHistogram::HistogramEven on
 *         __half (float levels). Reference: the read-only kernel (reduce, histogram), a copy
 *         (scan).
 *   arg:  cuprim_reduce_arg ARGMIN on f32 against cub::DeviceReduce::ArgMin with separate value
 *         and index outputs. Reference: the read-only kernel. Then (not with --quick) the
 *         kernel-choice table of reduce_tuning.h's arg entries.
 *
 * Every timed result is checked once: reduce against CUB's float sum rounded to the dtype (within
 * the 16-bit rounding) and against the exact sum (rel_err); the scan element by element against the
 * exact prefix sums, for cuprim and CUB alike; the histogram bin by bin against CUB's counts; the
 * arg-min's index and value against CUB's. */
#include "bench.cuh"
#include "reduce/reduce_internal.h" /* cuprim__reduce_arg_tuned: the kernel-choice sweep */

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstring>

namespace {

template <class H> struct Half;
template <> struct Half<__half> {
  static constexpr cuprim_dtype id = CUPRIM_F16;
  __device__ static __half from(float x) { return __float2half_rn(x); }
  __device__ static float to(__half x) { return __half2float(x); }
};
template <> struct Half<__nv_bfloat16> {
  static constexpr cuprim_dtype id = CUPRIM_BF16;
  __device__ static __nv_bfloat16 from(float x) { return __float2bfloat16_rn(x); }
  __device__ static float to(__nv_bfloat16 x) { return __bfloat162float(x); }
};

/* ---------------------------------------------------------------- data */

/* What element i of each input is, from hr_element_bits(kSeed, i) (a prefix of a fill is the same
 * data as a shorter fill):
 *   reduce:    k / 256, k its top 8 bits: [0, 1), exact in F16 and BF16, exactly summed in
 *              integers (k) for the exact sum;
 *   scan:      P(i) - P(i-1), P(i) its top 6 bits: every run of consecutive elements sums to a
 *              difference of two P, below 64 in magnitude, and a scan adds at most a few dozen
 *              runs at once: every partial result is an integer below 2^11, exact in F16 itself,
 *              so CUB's F16 accumulator and cuprim's float one both give exactly P(i);
 *   histogram: k / 2048, k its top 11 bits: [0, 1), exact in F16, bin k / 8 of 256 exactly in
 *              CUB's float arithmetic and cuprim's double. */
enum Kind { REDUCE_DATA, SCAN_DATA, HISTOGRAM_DATA };

__device__ float prefix6(uint64_t i) { return (float)(hr_element_bits(kSeed, i) >> 58); }

template <class H> __global__ void fill_kernel(H *d, uint64_t n, Kind kind) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint64_t bits = hr_element_bits(kSeed, i);
    const float v = kind == REDUCE_DATA      ? (float)(bits >> 56) / 256.0f
                    : kind == HISTOGRAM_DATA ? (float)(bits >> 53) / 2048.0f
                                             : prefix6(i) - (i ? prefix6(i - 1) : 0.0f);
    d[i] = Half<H>::from(v);
  }
}

template <class H> void fill(Bench &b, H *d, uint64_t n, Kind kind) {
  fill_kernel<<<helper_blocks(b), 256, 0, b.stream>>>(d, n, kind);
  BENCH_CHECK(cudaPeekAtLastError());
  wait_stream(b);
}

/* The exact sum of the reduce data's first n elements: the integers k summed on the device. */
__global__ void sum_k_kernel(uint64_t n, unsigned long long *total) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  unsigned long long s = 0;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    s += hr_element_bits(kSeed, i) >> 56;
  atomicAdd(total, s);
}

double exact_reduce_sum(Bench &b, uint64_t n) {
  unsigned long long *d = nullptr, h = 0;
  BENCH_CHECK(cudaMallocAsync(&d, sizeof *d, b.stream));
  BENCH_CHECK(cudaMemsetAsync(d, 0, sizeof *d, b.stream));
  sum_k_kernel<<<helper_blocks(b), 256, 0, b.stream>>>(n, d);
  BENCH_CHECK(cudaPeekAtLastError());
  BENCH_CHECK(cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, b.stream));
  BENCH_CHECK(cudaFreeAsync(d, b.stream));
  wait_stream(b);
  return (double)h / 256.0;
}

/* The elements of a scan output that are not P(i), and the first of them. */
__global__ void check_scan_kernel(const __half *out, uint64_t n, unsigned long long *wrong) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  unsigned long long bad = 0, first = ~0ull;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    if (__half2float(out[i]) != prefix6(i)) { /* NaN (the poison) never equals */
      ++bad;
      first = min(first, (unsigned long long)i);
    }
  if (bad) {
    atomicAdd(&wrong[0], bad);
    atomicMin(&wrong[1], first);
  }
}

std::string scan_check(Bench &b, const __half *d_out, uint64_t n) {
  unsigned long long *d = nullptr, h[2] = {0, ~0ull};
  BENCH_CHECK(cudaMallocAsync(&d, sizeof h, b.stream));
  BENCH_CHECK(cudaMemcpyAsync(d, h, sizeof h, cudaMemcpyHostToDevice, b.stream));
  check_scan_kernel<<<helper_blocks(b), 256, 0, b.stream>>>(d_out, n, d);
  BENCH_CHECK(cudaPeekAtLastError());
  BENCH_CHECK(cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, b.stream));
  BENCH_CHECK(cudaFreeAsync(d, b.stream));
  wait_stream(b);
  if (h[0] == 0)
    return "ok";
  ++b.failures;
  return strprintf("FAIL %llu of %llu elements are not the exact prefix; first at %llu", h[0],
                   (unsigned long long)n, h[1]);
}

/* ---------------------------------------------------------------- CUB, timed */

/* Times `cub(d_temp, temp_bytes)` (which returns a cudaError_t): sized, allocated, then timed. */
template <class Cub> Timing time_cub(Bench &b, const char *name, Cub &&cub) {
  return time_cub_call(b, name, cub, [] {});
}

/* The accumulator CUB's reduce is given: float, whatever the 16-bit input. */
struct FloatSum {
  __host__ __device__ float operator()(float a, float b) const { return a + b; }
};

/* A cuprim call through time_call. */
template <class Call> Timing time_cuprim(Bench &b, Call &&call) {
  return time_call(b, [&]() -> const char * {
    const cuprim_status s = call();
    return s == CUPRIM_SUCCESS ? nullptr : cuprim_error_text(s);
  });
}

template <class T> T read_one(Bench &b, const void *d) {
  T h;
  BENCH_CHECK(cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, b.stream));
  wait_stream(b);
  return h;
}

double rel_err(double got, double exact) {
  return std::fabs(got - exact) / std::max(std::fabs(exact), 1.0);
}

/* ---------------------------------------------------------------- tables */

struct Sweep {
  Bench &b;
  std::string &table;
  const char *ref_name; /* "read_us" or "copy_us" */
  /* Prints "  <label>: sizes" to stderr, the start of the sweep's progress line. */
  Sweep(Bench &bench, const std::string &label, const std::string &title, const char *ref)
      : b(bench), table(bench.pending), ref_name(ref) {
    std::fprintf(stderr, "  %s: sizes", label.c_str());
    table = "\n" + title +
            ". ratio = cub_us / cuprim_us (> 1: cuprim faster); %read, %copy: of the 2^28 "
            "ceilings; " +
            ref + ": the reference over the same bytes\n";
    table +=
        strprintf("%6s %10s %10s %7s %12s %10s %14s %14s %9s  %s\n", "n", "cuprim_us", "cub_us",
                  "ratio", "cuprim_GB/s", "cub_GB/s", "%read cp/cub", "%copy cp/cub", ref, "check");
  }
  /* The size 2^k, printed on the progress line. */
  uint64_t size(int k) const {
    std::fprintf(stderr, " 2^%d", k);
    return uint64_t(1) << k;
  }
  /* Adds the three rows of one size and its line. */
  void add(Row cp, Row cub, const Row &ref, const char *cub_against) {
    cp.ratio_vs_cub = cub.median_us / cp.median_us;
    cub.ratio_vs_cub = 1.0;
    const std::string check = add_sweep_rows(b, cp, cub, ref, cub_against);
    table += strprintf(
        "%6s %10s %10.2f %7s %12s %10.1f %6s / %5.1f %6s / %5.1f %9.2f  %s\n", fmt_n(cp.n).c_str(),
        fmt_num(cp.median_us, 2).c_str(), cub.median_us, fmt_num(cp.ratio_vs_cub, 3).c_str(),
        fmt_num(cp.gbps, 1).c_str(), cub.gbps, fmt_num(cp.pct_read_bw, 1).c_str(), cub.pct_read_bw,
        fmt_num(cp.pct_copy_bw, 1).c_str(), cub.pct_copy_bw, ref.median_us, check.c_str());
  }
};

/* ---------------------------------------------------------------- reduce */

/* cuprim's result is the float sum rounded once to the dtype (relative error 2^-11 for F16,
 * 2^-8 for BF16, at most); CUB's is the float sum. Both add in trees: log2(n) * 2^-24 apart at
 * most, far below the rounding. */
template <class H> void reduce_sweep(Bench &b, H *d_in, void *d_out, const std::vector<int> &ks) {
  const cuprim_dtype t = Half<H>::id;
  const char *dt = hr_dtype_name(t);
  const double tolerance = t == CUPRIM_F16 ? 0x1p-10 : 0x1p-7;
  Sweep s(b, strprintf("reduce %s", dt),
          strprintf("reduce SUM %s: cuprim_reduce (AUTO, float sum rounded once) vs "
                    "cub::DeviceReduce::Reduce (float accumulator, float result)",
                    dt),
          "read_us");
  H *d_cp = static_cast<H *>(d_out);
  float *d_cub = reinterpret_cast<float *>(static_cast<char *>(d_out) + 256);
  for (const int k : ks) {
    const uint64_t n = s.size(k);
    const double bytes = (double)n * sizeof(H);
    const double exact = exact_reduce_sum(b, n);
    BENCH_CHECK(cudaMemsetAsync(d_out, 0xff, 512, b.stream));
    const Timing cp = time_cuprim(
        b, [&] { return cuprim_reduce(b.ctx, d_in, d_cp, n, t, CUPRIM_SUM, b.stream); });
    const Timing cub = time_cub(b, "cub::DeviceReduce::Reduce", [&](void *tmp, size_t &tb) {
      return cub::DeviceReduce::Reduce(tmp, tb, d_in, d_cub, (int64_t)n, FloatSum{}, 0.0f,
                                       b.stream);
    });
    const Timing rd = time_read_only(b, d_in, (size_t)bytes);
    uint16_t cp_bits = read_one<uint16_t>(b, d_cp);
    const double cp_value = hr_to_double(t, &cp_bits, 0), cub_value = read_one<float>(b, d_cub);

    Row rc = timed_row(b, "half", "reduce_sum", "auto", dt, n, "cuprim", cp, bytes);
    rc.rel_err = rel_err(cp_value, exact);
    /* cuprim's result is a 16-bit float: CUB's float sum rounded to the dtype is what it must
     * be near (F16 sums past 65504 round to inf: from 2^18 elements of this data). */
    const uint16_t want_bits = hr_half_from_double(t, cub_value);
    const double want = hr_to_double(t, &want_bits, 0);
    rc.check = !cp.ok() ? "ERROR: " + cp.error
               : (std::isinf(want) && cp_value == want) ||
                       std::fabs(cp_value - want) <= tolerance * std::fabs(want)
                   ? "ok"
                   : strprintf("FAIL got %.9g want %.9g (CUB's float sum, rounded to %s)", cp_value,
                               want, dt);
    Row rb =
        timed_row(b, "half", "reduce_sum", "DeviceReduce::Reduce(float)", dt, n, "cub", cub, bytes);
    rb.rel_err = rel_err(cub_value, exact);
    rb.check = rb.rel_err <= 1e-5 ? "ok" : strprintf("FAIL %.9g, exact %.9g", cub_value, exact);
    b.failures += (rc.check != "ok") + (rb.check != "ok");
    s.add(rc, rb, timed_row(b, "half", "reduce_sum", "read_only_kernel", dt, n, "bench", rd, bytes),
          "cub vs exact");
  }
  finish_table(b);
}

/* ---------------------------------------------------------------- scan */

void scan_sweep(Bench &b, __half *d_in, __half *d_out_cp, __half *d_out_cub,
                const std::vector<int> &ks) {
  Sweep s(b, "scan inclusive f16",
          "scan inclusive SUM f16: cuprim_scan (AUTO, a float running value, each output rounded "
          "once) vs cub::DeviceScan::InclusiveSum on __half; GB/s: bytes read + written",
          "copy_us");
  for (const int k : ks) {
    const uint64_t n = s.size(k);
    const double bytes = 2.0 * (double)n * sizeof(__half);
    const Timing copy = time_copy(b, d_out_cp, d_in, n * sizeof(__half));
    BENCH_CHECK(cudaMemsetAsync(d_out_cp, 0xff, n * sizeof(__half), b.stream));
    const Timing cp = time_cuprim(b, [&] {
      return cuprim_scan(b.ctx, d_in, d_out_cp, n, CUPRIM_F16, CUPRIM_SUM, CUPRIM_INCLUSIVE,
                         b.stream);
    });
    BENCH_CHECK(cudaMemsetAsync(d_out_cub, 0xff, n * sizeof(__half), b.stream));
    const Timing cub = time_cub(b, "cub::DeviceScan::InclusiveSum", [&](void *tmp, size_t &tb) {
      return cub::DeviceScan::InclusiveSum(tmp, tb, d_in, d_out_cub, (int64_t)n, b.stream);
    });
    Row rc = timed_row(b, "half", "scan_inclusive_sum", "auto", "f16", n, "cuprim", cp, bytes);
    rc.check = cp.ok() ? scan_check(b, d_out_cp, n) : "ERROR: " + cp.error;
    Row rb = timed_row(b, "half", "scan_inclusive_sum", "DeviceScan::InclusiveSum", "f16", n, "cub",
                       cub, bytes);
    rb.check = scan_check(b, d_out_cub, n);
    s.add(rc, rb,
          timed_row(b, "half", "scan_inclusive_sum", "memcpy_d2d", "f16", n, "cuda", copy, bytes),
          "cub vs exact");
  }
  finish_table(b);
}

/* ---------------------------------------------------------------- histogram */

void histogram_sweep(Bench &b, const __half *d_in, uint64_t *d_counts, unsigned *d_counts_cub,
                     const std::vector<int> &ks) {
  Sweep s(b, "histogram f16/256",
          "histogram f16, 256 bins over [0, 1): cuprim_histogram_even (AUTO) vs "
          "cub::DeviceHistogram::HistogramEven on __half (float levels)",
          "read_us");
  constexpr uint32_t kBins = 256;
  for (const int k : ks) {
    const uint64_t n = s.size(k);
    const double bytes = (double)n * sizeof(__half);
    BENCH_CHECK(cudaMemsetAsync(d_counts, 0xff, kBins * sizeof *d_counts, b.stream));
    const Timing cp = time_cuprim(b, [&] {
      return cuprim_histogram_even(b.ctx, d_in, n, CUPRIM_F16, d_counts, kBins, 0.0, 1.0, b.stream);
    });
    BENCH_CHECK(cudaMemsetAsync(d_counts_cub, 0xff, kBins * sizeof *d_counts_cub, b.stream));
    const Timing cub =
        time_cub(b, "cub::DeviceHistogram::HistogramEven", [&](void *tmp, size_t &tb) {
          return cub::DeviceHistogram::HistogramEven(tmp, tb, d_in, d_counts_cub, (int)kBins + 1,
                                                     0.0f, 1.0f, (int64_t)n, b.stream);
        });
    const Timing rd = time_read_only(b, d_in, (size_t)bytes);
    std::vector<uint64_t> got(kBins);
    std::vector<unsigned> want(kBins);
    BENCH_CHECK(cudaMemcpyAsync(got.data(), d_counts, kBins * sizeof(uint64_t),
                                cudaMemcpyDeviceToHost, b.stream));
    BENCH_CHECK(cudaMemcpyAsync(want.data(), d_counts_cub, kBins * sizeof(unsigned),
                                cudaMemcpyDeviceToHost, b.stream));
    wait_stream(b);
    uint64_t total = 0, differ = 0;
    for (uint32_t i = 0; i < kBins; ++i) {
      total += want[i];
      differ += got[i] != want[i];
    }
    Row rc = timed_row(b, "half", "histogram_even_256", "auto", "f16", n, "cuprim", cp, bytes);
    rc.check = !cp.ok()      ? "ERROR: " + cp.error
               : differ == 0 ? "ok"
                             : strprintf("FAIL %llu of 256 bins differ from CUB's",
                                         (unsigned long long)differ);
    Row rb = timed_row(b, "half", "histogram_even_256", "DeviceHistogram::HistogramEven", "f16", n,
                       "cub", cub, bytes);
    rb.check =
        total == n ? "ok" : strprintf("FAIL counts add up to %llu", (unsigned long long)total);
    b.failures += (rc.check != "ok") + (rb.check != "ok");
    s.add(rc, rb,
          timed_row(b, "half", "histogram_even_256", "read_only_kernel", "f16", n, "bench", rd,
                    bytes),
          "cub total");
  }
  finish_table(b);
}

/* ---------------------------------------------------------------- arg-min */

/* The arg-min calls' outputs, in the suite's 512-byte output buffer: cuprim's index and value,
 * then CUB's. */
struct ArgOutputs {
  uint64_t *index;
  float *value;
  int64_t *cub_index;
  float *cub_value;
  explicit ArgOutputs(void *d_out) {
    unsigned char *o = static_cast<unsigned char *>(d_out);
    index = reinterpret_cast<uint64_t *>(o);
    value = reinterpret_cast<float *>(o + 64);
    cub_index = reinterpret_cast<int64_t *>(o + 256);
    cub_value = reinterpret_cast<float *>(o + 320);
  }
};

/* cub::DeviceReduce::ArgMin over in[0..n) into out's CUB outputs, timed. */
Timing time_cub_argmin(Bench &b, const float *d_in, const ArgOutputs &out, uint64_t n) {
  return time_cub(b, "cub::DeviceReduce::ArgMin", [&](void *tmp, size_t &tb) {
    return cub::DeviceReduce::ArgMin(tmp, tb, d_in, out.cub_value, out.cub_index, (int64_t)n,
                                     b.stream);
  });
}

void argmin_sweep(Bench &b, const float *d_in, void *d_out, const std::vector<int> &ks) {
  Sweep s(b, "arg-min f32",
          "arg-min f32: cuprim_reduce_arg (ARGMIN, value and index) vs cub::DeviceReduce::ArgMin "
          "(separate value and index outputs)",
          "read_us");
  const ArgOutputs out(d_out);
  for (const int k : ks) {
    const uint64_t n = s.size(k);
    const double bytes = (double)n * sizeof(float);
    BENCH_CHECK(cudaMemsetAsync(d_out, 0xff, 512, b.stream));
    const Timing cp = time_cuprim(b, [&] {
      return cuprim_reduce_arg(b.ctx, d_in, out.value, out.index, n, CUPRIM_F32, CUPRIM_ARGMIN,
                               b.stream);
    });
    const Timing cub = time_cub_argmin(b, d_in, out, n);
    const Timing rd = time_read_only(b, d_in, (size_t)bytes);
    const uint64_t index = read_one<uint64_t>(b, out.index);
    const int64_t cub_index = read_one<int64_t>(b, out.cub_index);
    const float value = read_one<float>(b, out.value),
                cub_value = read_one<float>(b, out.cub_value);
    /* Both return the first minimum: the same index and value. */
    Row rc = timed_row(b, "arg", "reduce_argmin", "auto", "f32", n, "cuprim", cp, bytes);
    rc.check = !cp.ok() ? "ERROR: " + cp.error
               : index == (uint64_t)cub_index && std::memcmp(&value, &cub_value, 4) == 0
                   ? "ok"
                   : strprintf("FAIL index %llu value %.9g, CUB: index %lld value %.9g",
                               (unsigned long long)index, value, (long long)cub_index, cub_value);
    Row rb =
        timed_row(b, "arg", "reduce_argmin", "DeviceReduce::ArgMin", "f32", n, "cub", cub, bytes);
    rb.check = cub_index >= 0 && (uint64_t)cub_index < n ? "ok" : "FAIL index out of range";
    b.failures += (rc.check != "ok") + (rb.check != "ok");
    s.add(rc, rb,
          timed_row(b, "arg", "reduce_argmin", "read_only_kernel", "f32", n, "bench", rd, bytes),
          "cub index");
  }
  finish_table(b);
}

/* The arg-reduce's kernel choice (reduce_tuning.h's arg_ entries): the one block of 1024 threads
 * (single, up to 2^18 elements), the grid and a finishing block chained by programmatic dependent
 * launch where the device has it (pdl), or one cooperative launch (coop); against CUB and the
 * read-only kernel. Each result is checked against CUB's index and value. */
void argmin_kernel_choice(Bench &b, const float *d_in, void *d_out) {
  const char *names[] = {"single", "pdl", "coop"};
  constexpr int CHOICES = 3;
  const ArgOutputs out(d_out);
  std::string &table = b.pending;
  table = strprintf("\narg-min f32 kernel choice (us): one block of 1024 threads (single, up to "
                    "2^18), or the grid and a finishing block (pdl, chained by programmatic "
                    "dependent launch where the device has it) or one cooperative launch "
                    "(coop)\n%6s",
                    "n");
  for (const char *nm : names)
    table += strprintf(" %9s", nm);
  table += strprintf(" %9s %9s\n", "cub", "read");
  for (int k2 = 28; k2 <= 56; ++k2) { /* half-octave steps from 2^14 to 2^24, then 2^26, 2^28 */
    if (k2 > 48 && k2 % 4 != 0)
      continue;
    const uint64_t n = (uint64_t)std::llround(std::exp2(k2 / 2.0));
    const Timing cub = time_cub_argmin(b, d_in, out, n);
    const Timing rd = time_read_only(b, d_in, (size_t)n * sizeof(float));
    const int64_t cub_index = read_one<int64_t>(b, out.cub_index);
    const float cub_value = read_one<float>(b, out.cub_value);
    table += strprintf("%6s", k2 % 2 ? fmt_n(n).c_str() : strprintf("2^%d", k2 / 2).c_str());
    for (int choice = 0; choice < CHOICES; ++choice) {
      if (choice == 0 && n > (1u << 18)) {
        table += strprintf(" %9s", "-");
        continue;
      }
      cuprim__reduce_tuning tune = cuprim__reduce_tuning_for(b.ctx->attrs.code_arch);
      tune.arg_single_block_max_bytes = choice == 0 ? UINT32_MAX : 0;
      tune.arg_grid_sync_min_bytes = choice == 2 ? 0 : UINT64_MAX;
      BENCH_CHECK(cudaMemsetAsync(d_out, 0xff, 256, b.stream)); /* cuprim's outputs only */
      const Timing t = time_call(b, [&]() -> const char * {
        const cuprim_status s = cuprim__reduce_arg_tuned(
            b.ctx, d_in, out.value, out.index, n, CUPRIM_F32, CUPRIM_ARGMIN, b.stream, &tune);
        return s == CUPRIM_SUCCESS ? nullptr : cuprim_error_text(s);
      });
      const uint64_t index = read_one<uint64_t>(b, out.index);
      const float value = read_one<float>(b, out.value);
      const bool ok = t.ok() && index == (uint64_t)cub_index &&
                      std::memcmp(&value, &cub_value, sizeof value) == 0;
      b.failures += !ok;
      table += strprintf(" %9s", ok ? fmt_num(t.median_us, 2).c_str() : "FAIL");
    }
    table += strprintf(" %9.2f %9.2f\n", cub.median_us, rd.median_us);
  }
  b.report += table;
  table.clear();
}

} // namespace

void run_half_suite(Bench &b) {
  const SuiteSizes z = suite_sizes(b, {22});
  const uint64_t n = uint64_t(1) << z.sweep.back();
  /* One input of n 16-bit elements at a time, two outputs of as many for the scans. */
  void *d_in = nullptr, *d_a = nullptr, *d_b = nullptr, *d_small = nullptr;
  BENCH_CHECK(cudaMalloc(&d_in, n * 2));
  BENCH_CHECK(cudaMalloc(&d_a, n * 2));
  BENCH_CHECK(cudaMalloc(&d_b, n * 2));
  BENCH_CHECK(cudaMalloc(&d_small, 4096));
  fill(b, static_cast<__half *>(d_in), n, REDUCE_DATA);
  reduce_sweep(b, static_cast<__half *>(d_in), d_small, z.sweep);
  fill(b, static_cast<__nv_bfloat16 *>(d_in), n, REDUCE_DATA);
  reduce_sweep(b, static_cast<__nv_bfloat16 *>(d_in), d_small, z.sweep);
  fill(b, static_cast<__half *>(d_in), n, SCAN_DATA);
  scan_sweep(b, static_cast<__half *>(d_in), static_cast<__half *>(d_a), static_cast<__half *>(d_b),
             z.sweep);
  fill(b, static_cast<__half *>(d_in), n, HISTOGRAM_DATA);
  histogram_sweep(b, static_cast<const __half *>(d_in), static_cast<uint64_t *>(d_a),
                  static_cast<unsigned *>(d_b), z.sweep);
  BENCH_CHECK(cudaFree(d_in));
  BENCH_CHECK(cudaFree(d_a));
  BENCH_CHECK(cudaFree(d_b));
  BENCH_CHECK(cudaFree(d_small));
}

void run_arg_suite(Bench &b) {
  const SuiteSizes z = suite_sizes(b, {22});
  const uint64_t n = uint64_t(1) << z.sweep.back();
  float *d_in = nullptr;
  void *d_out = nullptr;
  BENCH_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&d_out, 512));
  fill_random(b, d_in, n, kSeed); /* k * 2^-24 in [0, 1): the minimum repeats at large n */
  argmin_sweep(b, d_in, d_out, z.sweep);
  if (!b.opt.quick)
    argmin_kernel_choice(b, d_in, d_out);
  BENCH_CHECK(cudaFree(d_in));
  BENCH_CHECK(cudaFree(d_out));
}
