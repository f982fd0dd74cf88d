/* Two suites for the 0.2 histograms.
 *
 * histogram_multi: cuprim_histogram_even_multi against cub::DeviceHistogram::MultiHistogramEven on
 * RGBA u8 pixels (interleaved, 4 channels), 256 bins a channel over [0, 256), all four channels
 * active (<4, 4>) and the first three (<4, 3>), over 2^10..2^28 bytes, with the read-only kernel
 * over the same bytes; and both on a constant image (every sample of a channel in one bin) at
 * 2^26 bytes. cuprim counts in uint64_t, CUB in unsigned int; every timed result is checked once:
 * cuprim's counts must equal CUB's, channel by channel, and CUB's must add up to the pixels.
 *
 * histogram_weighted: cuprim_histogram_even_weighted_ex, AUTO and FIXED_ORDER, on f32 samples
 * uniform over [0, 1) and f32 weights, in 256 and 4096 bins, at 2^24 and 2^28 (--quick: 2^24),
 * against the read-only kernel over the samples and weights (one allocation, read as one range):
 * GB/s counts 8 bytes a sample, "% read" is the share of that kernel's bandwidth at the same
 * bytes, and FIXED_ORDER's cost is its time over AUTO's. The weights are k * 2^-24 (k < 2^24), so
 * that every partial sum below 2^29 weights is exact in double: both algorithms must equal, bit
 * for bit, a reference summed in 64-bit integers on the device. CUB has no weighted histogram. */
#include "bench.cuh"

#include <cub/device/device_histogram.cuh>
#include <cuda/std/array>

#include <algorithm>

namespace {

/* ---------------------------------------------------------------- data */

/* RGBA bytes: random (constant == false), or the pixel (10, 20, 30, 40) everywhere. */
__global__ void fill_rgba_kernel(uint8_t *d, uint64_t n, uint64_t seed, bool constant) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    d[i] = constant ? (uint8_t)(10 * (i % 4 + 1)) : (uint8_t)(hr_element_bits(seed, i) >> 56);
}

/* Samples k * 2^-24 and weights j * 2^-24, k and j uniform below 2^24. */
__global__ void fill_weighted_kernel(float *x, float *w, uint64_t n, uint64_t seed) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint64_t h = hr_element_bits(seed, i);
    x[i] = (float)(h >> 40) * 0x1p-24f;
    w[i] = (float)((h >> 8) & 0xFFFFFF) * 0x1p-24f;
  }
}

/* ref[bin] += j for each sample (histogram.h's formula over [0, 1)), in 64-bit integers. */
__global__ void weighted_reference_kernel(const float *x, const float *w, uint64_t n, uint32_t bins,
                                          unsigned long long *ref) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const double v = __dmul_rn(__dsub_rn((double)x[i], 0.0), (double)bins);
    uint64_t b = (uint64_t)v;
    b = b < bins ? b : bins - 1;
    atomicAdd(ref + b, (unsigned long long)((double)w[i] * 0x1p24));
  }
}

/* ---------------------------------------------------------------- multi-channel */

constexpr int kChannels = 4;
constexpr uint32_t kBins = 256;

template <class C> std::vector<uint64_t> read_back(Bench &b, const C *d, size_t count) {
  std::vector<C> h(count);
  BENCH_CHECK(cudaMemcpyAsync(h.data(), d, count * sizeof(C), cudaMemcpyDeviceToHost, b.stream));
  wait_stream(b);
  return std::vector<uint64_t>(h.begin(), h.end());
}

/* CUB's MultiHistogramEven<4, A> with its temporary storage allocated outside the timing. */
template <int A>
Timing time_cub_multi(Bench &b, const uint8_t *d, uint64_t pixels, unsigned *const *d_counts) {
  if (pixels > (uint64_t)INT32_MAX)
    bench_fatal(__FILE__, __LINE__, "time_cub_multi: pixels past INT32_MAX");
  ::cuda::std::array<unsigned *, A> hist;
  ::cuda::std::array<int, A> levels, lower, upper;
  for (int c = 0; c < A; ++c) {
    hist[c] = d_counts[c];
    levels[c] = (int)kBins + 1;
    lower[c] = 0;
    upper[c] = 256;
  }
  auto call = [&](void *d_temp, size_t &temp_bytes) {
    return cub::DeviceHistogram::MultiHistogramEven<kChannels, A>(
        d_temp, temp_bytes, d, hist, levels, lower, upper, (int)pixels, b.stream);
  };
  return time_cub_call(b, "cub::DeviceHistogram::MultiHistogramEven", call, [&] {
    for (int c = 0; c < A; ++c)
      BENCH_CHECK(cudaMemsetAsync(hist[c], 0xff, kBins * sizeof(unsigned), b.stream));
  });
}

Timing time_cuprim_multi(Bench &b, const uint8_t *d, uint64_t pixels, int active,
                         uint64_t *const *d_counts) {
  const uint32_t bins[kChannels] = {kBins, kBins, kBins, kBins};
  const double lower[kChannels] = {0, 0, 0, 0}, upper[kChannels] = {256, 256, 256, 256};
  for (int c = 0; c < active; ++c) /* all ones: a call that writes nothing cannot pass */
    BENCH_CHECK(cudaMemsetAsync(d_counts[c], 0xff, kBins * sizeof(uint64_t), b.stream));
  return time_call(b, [&]() -> const char * {
    const cuprim_status s = cuprim_histogram_even_multi(
        b.ctx, d, pixels, kChannels, active, CUPRIM_U8, d_counts, bins, lower, upper, b.stream);
    return s == CUPRIM_SUCCESS ? nullptr : cuprim_error_text(s);
  });
}

struct MultiBuffers {
  uint8_t *d_samples = nullptr;
  uint64_t *d_cuprim[kChannels] = {};
  unsigned *d_cub[kChannels] = {};
};

/* CUB and cuprim with `active` of 4 channels on the bytes now in the buffer; appends the rows
 * and returns the two timings (cub, cuprim). */
template <int A>
std::pair<Row, Row> multi_pair(Bench &b, const MultiBuffers &buf, uint64_t bytes, const char *suite,
                               const char *suffix) {
  const uint64_t pixels = bytes / kChannels;
  const std::string prim = strprintf("histogram_multi_%dof4_%u", A, kBins);
  const Timing tb = time_cub_multi<A>(b, buf.d_samples, pixels, buf.d_cub);
  std::string cub_problem, problem;
  std::vector<std::vector<uint64_t>> cub(A);
  for (int c = 0; c < A; ++c) {
    cub[c] = read_back(b, buf.d_cub[c], kBins);
    uint64_t total = 0;
    for (uint64_t v : cub[c])
      total += v;
    if (total != pixels && cub_problem.empty())
      cub_problem = strprintf("FAIL channel %d adds up to %llu of %llu", c,
                              (unsigned long long)total, (unsigned long long)pixels);
  }
  const Timing tc = time_cuprim_multi(b, buf.d_samples, pixels, A, buf.d_cuprim);
  if (tc.ok())
    for (int c = 0; c < A && problem.empty(); ++c) {
      const std::vector<uint64_t> got = read_back(b, buf.d_cuprim[c], kBins);
      for (uint32_t k = 0; k < kBins; ++k)
        if (got[k] != cub[c][k]) {
          problem = strprintf("FAIL channel %d bin %u: got %llu, CUB %llu", c, k,
                              (unsigned long long)got[k], (unsigned long long)cub[c][k]);
          break;
        }
    }
  const std::string cub_alg = strprintf("DeviceHistogram::MultiHistogramEven<4,%d>%s", A, suffix);
  const std::string our_alg = strprintf("auto%s", suffix);
  Row rb = timed_row(b, suite, prim, cub_alg.c_str(), "u8", bytes, "cub", tb, (double)bytes);
  rb.ratio_vs_cub = 1.0;
  rb.check = verdict(b, tb, cub_problem);
  Row rc = timed_row(b, suite, prim, our_alg.c_str(), "u8", bytes, "cuprim", tc, (double)bytes);
  rc.ratio_vs_cub = tb.median_us / tc.median_us;
  rc.check = verdict(b, tc, problem);
  b.rows.push_back(rc);
  b.rows.push_back(rb);
  return {rb, rc};
}

void fill_rgba(Bench &b, uint8_t *d, uint64_t n, bool constant) {
  fill_rgba_kernel<<<helper_blocks(b), 256, 0, b.stream>>>(d, n, kSeed, constant);
  BENCH_CHECK(cudaPeekAtLastError());
  wait_stream(b);
}

} // namespace

void run_histogram_multi_suite(Bench &b) {
  std::vector<int> sizes;
  if (b.opt.quick)
    sizes = {10, 20, 28};
  else
    for (int k = 10; k <= 28; k += 2)
      sizes.push_back(k);
  const uint64_t max_bytes = uint64_t(1) << 28;
  MultiBuffers buf;
  BENCH_CHECK(cudaMalloc(&buf.d_samples, max_bytes));
  for (int c = 0; c < kChannels; ++c) {
    BENCH_CHECK(cudaMalloc(&buf.d_cuprim[c], kBins * sizeof(uint64_t)));
    BENCH_CHECK(cudaMalloc(&buf.d_cub[c], kBins * sizeof(unsigned)));
  }
  fill_rgba(b, buf.d_samples, max_bytes, false);
  std::string &table = b.pending;
  table =
      strprintf("\nhistogram_multi: RGBA u8, %u bins a channel over [0, 256), uniform bytes: "
                "cuprim_histogram_even_multi vs cub::DeviceHistogram::MultiHistogramEven<4, A>. "
                "n = bytes; ratio = cub_us / cuprim_us; GB/s: bytes read; read_us: the "
                "read-only kernel over the same bytes\n",
                kBins);
  table += strprintf("%6s %3s %10s %10s %7s %12s %10s %9s  %s\n", "bytes", "A", "cuprim_us",
                     "cub_us", "ratio", "cuprim_GB/s", "cub_GB/s", "read_us", "check");
  std::fprintf(stderr, "  histogram_multi RGBA u8: sizes");
  for (const int k : sizes) {
    const uint64_t bytes = uint64_t(1) << k;
    std::fprintf(stderr, " 2^%d", k);
    const Timing rd = time_read_only(b, buf.d_samples, bytes);
    Row rr = timed_row(b, "histogram_multi", "histogram_multi_4of4_256", "read_only_kernel", "u8",
                       bytes, "bench", rd, (double)bytes);
    rr.check = "-";
    b.rows.push_back(rr);
    Row r3 = rr;
    r3.primitive = "histogram_multi_3of4_256";
    b.rows.push_back(r3);
    const std::pair<Row, Row> pairs[2] = {multi_pair<4>(b, buf, bytes, "histogram_multi", ""),
                                          multi_pair<3>(b, buf, bytes, "histogram_multi", "")};
    for (int i = 0; i < 2; ++i) {
      const std::pair<Row, Row> &p = pairs[i];
      std::string check = p.second.check;
      if (p.first.check != "ok")
        check += " | cub: " + p.first.check;
      table +=
          strprintf("%6s %3s %10s %10.2f %7s %12s %10.1f %9.2f  %s\n", fmt_n(bytes).c_str(),
                    i == 0 ? "4" : "3", fmt_num(p.second.median_us, 2).c_str(), p.first.median_us,
                    fmt_num(p.second.ratio_vs_cub, 3).c_str(), fmt_num(p.second.gbps, 1).c_str(),
                    p.first.gbps, rd.median_us, check.c_str());
    }
  }
  /* A constant image: every sample of a channel in one bin. */
  std::fprintf(stderr, " constant");
  const uint64_t cbytes = uint64_t(1) << (b.opt.quick ? 24 : 26);
  fill_rgba(b, buf.d_samples, cbytes, true);
  /* a suite of its own (report.py: a table beside the sweep, not a row of it) */
  const auto c4 = multi_pair<4>(b, buf, cbytes, "histogram_multi_ladder", "_one_bin");
  table +=
      strprintf("constant image (%s bytes, pixel (10, 20, 30, 40)): cuprim %s us, CUB %.2f "
                "us, ratio %s  %s\n",
                fmt_n(cbytes).c_str(), fmt_num(c4.second.median_us, 2).c_str(), c4.first.median_us,
                fmt_num(c4.second.ratio_vs_cub, 3).c_str(), c4.second.check.c_str());
  std::fprintf(stderr, "\n");
  b.report += table;
  table.clear();
  BENCH_CHECK(cudaFree(buf.d_samples));
  for (int c = 0; c < kChannels; ++c) {
    BENCH_CHECK(cudaFree(buf.d_cuprim[c]));
    BENCH_CHECK(cudaFree(buf.d_cub[c]));
  }
}

/* ---------------------------------------------------------------- weighted */

void run_histogram_weighted_suite(Bench &b) {
  std::vector<int> sizes = b.opt.quick ? std::vector<int>{24} : std::vector<int>{24, 28};
  const uint64_t max_n = uint64_t(1) << sizes.back();
  constexpr uint32_t kMaxBins = 4096;
  float *d_data = nullptr; /* samples, then weights: one range for the read-only kernel */
  double *d_sums = nullptr;
  unsigned long long *d_ref = nullptr;
  BENCH_CHECK(cudaMalloc(&d_data, 2 * max_n * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&d_sums, kMaxBins * sizeof(double)));
  BENCH_CHECK(cudaMalloc(&d_ref, kMaxBins * sizeof(unsigned long long)));
  std::string &table = b.pending;
  table = "\nhistogram_weighted: f32 samples uniform over [0, 1), f32 weights; "
          "cuprim_histogram_even_weighted_ex. GB/s: 8 bytes a sample; %read: of the read-only "
          "kernel over the same samples and weights (read_us); fixed/auto: FIXED_ORDER's time "
          "over AUTO's\n";
  table += strprintf("%6s %5s %12s %10s %8s %7s  %s\n", "n", "bins", "algorithm", "time_us", "GB/s",
                     "%read", "check");
  std::fprintf(stderr, "  histogram_weighted f32/f32:");
  for (const int k : sizes) {
    const uint64_t n = uint64_t(1) << k;
    float *d_x = d_data, *d_w = d_data + n; /* samples and weights adjacent: 8n bytes */
    fill_weighted_kernel<<<helper_blocks(b), 256, 0, b.stream>>>(d_x, d_w, n, kSeed);
    BENCH_CHECK(cudaPeekAtLastError());
    wait_stream(b);
    const double bytes = 8.0 * (double)n;
    const Timing rd = time_read_only(b, d_data, (size_t)(8 * n));
    for (const uint32_t bins : {256u, kMaxBins}) {
      std::fprintf(stderr, " 2^%d/%u", k, bins);
      BENCH_CHECK(cudaMemsetAsync(d_ref, 0, bins * sizeof(unsigned long long), b.stream));
      weighted_reference_kernel<<<helper_blocks(b), 256, 0, b.stream>>>(d_x, d_w, n, bins, d_ref);
      BENCH_CHECK(cudaPeekAtLastError());
      const std::vector<uint64_t> ref = read_back(b, d_ref, bins);
      const std::string prim = strprintf("histogram_weighted_%u", bins);
      Row rr = timed_row(b, "histogram_weighted_ladder", prim, "read_only_kernel", "f32", n,
                         "bench", rd, bytes);
      rr.check = "-";
      b.rows.push_back(rr);
      table += strprintf("%6s %5u %12s %10.2f %8.1f %7.1f  %s\n", fmt_n(n).c_str(), bins,
                         "read-only", rd.median_us, rr.gbps, 100.0, "-");
      double auto_us = NAN;
      for (const cuprim_histogram_weighted_alg alg :
           {CUPRIM_HISTOGRAM_WEIGHTED_AUTO, CUPRIM_HISTOGRAM_WEIGHTED_FIXED_ORDER}) {
        const char *name = alg == CUPRIM_HISTOGRAM_WEIGHTED_AUTO ? "auto" : "fixed_order";
        BENCH_CHECK(cudaMemsetAsync(d_sums, 0xff, bins * sizeof(double), b.stream));
        const Timing t = time_call(b, [&]() -> const char * {
          const cuprim_status s = cuprim_histogram_even_weighted_ex(
              b.ctx, alg, d_x, d_w, n, CUPRIM_F32, CUPRIM_F32, d_sums, bins, 0.0, 1.0, b.stream);
          return s == CUPRIM_SUCCESS ? nullptr : cuprim_error_text(s);
        });
        std::string problem;
        if (t.ok()) {
          std::vector<double> got(bins);
          BENCH_CHECK(cudaMemcpyAsync(got.data(), d_sums, bins * sizeof(double),
                                      cudaMemcpyDeviceToHost, b.stream));
          wait_stream(b);
          for (uint32_t i = 0; i < bins && problem.empty(); ++i)
            if (got[i] != std::ldexp((double)ref[i], -24))
              problem = strprintf("FAIL bin %u: got %.17g, exact %.17g", i, got[i],
                                  std::ldexp((double)ref[i], -24));
        }
        Row r = timed_row(b, "histogram_weighted_ladder", prim, name, "f32", n, "cuprim", t, bytes);
        r.check = verdict(b, t, problem);
        b.rows.push_back(r);
        if (alg == CUPRIM_HISTOGRAM_WEIGHTED_AUTO)
          auto_us = t.median_us;
        std::string cost;
        if (alg != CUPRIM_HISTOGRAM_WEIGHTED_AUTO)
          cost = strprintf(" (fixed/auto %.2fx)", t.median_us / auto_us);
        table += strprintf("%6s %5u %12s %10s %8s %7s  %s%s\n", fmt_n(n).c_str(), bins, name,
                           fmt_num(t.median_us, 2).c_str(), fmt_num(r.gbps, 1).c_str(),
                           fmt_num(100.0 * rd.median_us / t.median_us, 1).c_str(), r.check.c_str(),
                           cost.c_str());
      }
    }
  }
  std::fprintf(stderr, "\n");
  b.report += table;
  table.clear();
  BENCH_CHECK(cudaFree(d_data));
  BENCH_CHECK(cudaFree(d_sums));
  BENCH_CHECK(cudaFree(d_ref));
}
