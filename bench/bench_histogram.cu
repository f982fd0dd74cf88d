/* The histogram suite: cuprim_histogram_even (AUTO) against cub::DeviceHistogram::HistogramEven
 * over sizes 2^10..2^28, for u8 samples in 256 bins over [0, 256) and f32 samples in 256 and in
 * 4096 bins over [0, 1); and the ladder (every cuprim_histogram_alg, Harris's table) at 2^26 for
 * u8/256 and f32/4096, where AUTO and CUB are also timed on data that falls into one bin only.
 *
 * cuprim counts in uint64_t and CUB here in unsigned int (every n here is below 2^32); both
 * overwrite their output. Every timed result is checked once, on the host (at most 4096 counters
 * come back): cuprim's counts must equal CUB's bin by bin; CUB's (the harness itself) must add up
 * to n and lie only in the bins that the samples were drawn from. */
#include "bench.cuh"

#include <cub/device/device_histogram.cuh>

#include <algorithm>

namespace {

/* A sample type's range of bins, as cuprim takes it (double) and as CUB does (Level). CUB computes
 * a bin in the common type of the sample and the levels: u8 samples get int levels (256 is no
 * u8), so CUB bins them in integers, exactly; f32 samples get float levels, so CUB bins them in
 * f32 arithmetic where cuprim uses double (see in_bin for why the counts still agree). */
template <class T> struct Range;
template <> struct Range<uint8_t> {
  using Level = int;
  static constexpr double lower = 0.0, upper = 256.0;
};
template <> struct Range<float> {
  using Level = float;
  static constexpr double lower = 0.0, upper = 1.0;
};

/* ---------------------------------------------------------------- data */

/* Which bins the samples are drawn from, uniformly: all of them, or a single one. */
struct Spread {
  uint32_t first, count;
};

/* A sample of bin k (of `bins` over Range<T>); `bits` are random. u8: the value k itself (256 bins
 * over [0, 256)). f32: a point in the middle half of bin k, (k + 1/4 + u/2) / bins with u in
 * [0, 1): a quarter of a bin from either edge, far more than any rounding of the bin formula (f32
 * in CUB, double in cuprim) can move it, so both must put it in bin k. */
template <class T> __device__ T in_bin(uint32_t k, uint32_t bins, uint64_t bits);
template <> __device__ inline uint8_t in_bin<uint8_t>(uint32_t k, uint32_t, uint64_t) {
  return (uint8_t)k;
}
template <> __device__ inline float in_bin<float>(uint32_t k, uint32_t bins, uint64_t bits) {
  const double u = (double)(bits & 0xFFFFF) * 0x1p-20;
  return (float)(((double)k + 0.25 + 0.5 * u) / bins);
}

template <class T>
__global__ void fill_kernel(T *d, uint64_t n, uint64_t seed, uint32_t bins, Spread s) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint64_t h = hr_element_bits(seed, i);
    d[i] = in_bin<T>(s.first + (uint32_t)((h >> 32) % s.count), bins, h);
  }
}

template <class T> void fill(Bench &b, T *d, uint64_t n, uint32_t bins, Spread s) {
  fill_kernel<<<helper_blocks(b), 256, 0, b.stream>>>(d, n, kSeed, bins, s);
  BENCH_CHECK(cudaPeekAtLastError());
  wait_stream(b);
}

/* ---------------------------------------------------------------- timing */

/* The buffers of the suite: the samples (prefixes of one filled array) and one output each. */
template <class T> struct Buffers {
  T *d_samples = nullptr;
  uint64_t *d_counts_cuprim = nullptr;
  unsigned *d_counts_cub = nullptr;
};

/* cuprim with `alg`; AUTO goes through the plain entry point cuprim_histogram_even. */
template <class T>
Timing time_cuprim(Bench &b, cuprim_histogram_alg alg, const Buffers<T> &buf, uint64_t n,
                   uint32_t bins) {
  /* All-ones counts, so that a call that writes nothing cannot pass. */
  BENCH_CHECK(cudaMemsetAsync(buf.d_counts_cuprim, 0xff, bins * sizeof(uint64_t), b.stream));
  return time_call(b, [&]() -> const char * {
    const cuprim_status s =
        alg == CUPRIM_HISTOGRAM_AUTO
            ? cuprim_histogram_even(b.ctx, buf.d_samples, n, DType<T>::id, buf.d_counts_cuprim,
                                    bins, Range<T>::lower, Range<T>::upper, b.stream)
            : cuprim_histogram_even_ex(b.ctx, alg, buf.d_samples, n, DType<T>::id,
                                       buf.d_counts_cuprim, bins, Range<T>::lower, Range<T>::upper,
                                       b.stream);
    return s == CUPRIM_SUCCESS ? nullptr : cuprim_error_text(s);
  });
}

/* cub::DeviceHistogram::HistogramEven (num_levels = bins + 1) with its temporary storage sized and
 * allocated outside the timing, and an int sample count, as CUB's own examples call it. */
template <class T> Timing time_cub(Bench &b, const Buffers<T> &buf, uint64_t n, uint32_t bins) {
  if (n > (uint64_t)INT32_MAX)
    bench_fatal(__FILE__, __LINE__, "time_cub: n past INT32_MAX needs a 64-bit sample count");
  using Level = typename Range<T>::Level;
  const Level lower = (Level)Range<T>::lower, upper = (Level)Range<T>::upper;
  const int num_levels = (int)bins + 1, num_samples = (int)n;
  auto histogram = [&](void *d_temp, size_t &temp_bytes) {
    return cub::DeviceHistogram::HistogramEven(d_temp, temp_bytes, buf.d_samples, buf.d_counts_cub,
                                               num_levels, lower, upper, num_samples, b.stream);
  };
  return time_cub_call(b, "cub::DeviceHistogram::HistogramEven", histogram, [&] {
    BENCH_CHECK(cudaMemsetAsync(buf.d_counts_cub, 0xff, bins * sizeof(unsigned), b.stream));
  });
}

/* ---------------------------------------------------------------- checks */

template <class C> std::vector<uint64_t> read_counts(Bench &b, const C *d_counts, uint32_t bins) {
  std::vector<C> h(bins);
  BENCH_CHECK(
      cudaMemcpyAsync(h.data(), d_counts, bins * sizeof(C), cudaMemcpyDeviceToHost, b.stream));
  wait_stream(b);
  return std::vector<uint64_t>(h.begin(), h.end());
}

/* What differs between two histograms; empty if nothing. */
std::string differences(const std::vector<uint64_t> &got, const std::vector<uint64_t> &want) {
  size_t differ = 0, first = 0;
  for (size_t i = got.size(); i-- > 0;)
    if (got[i] != want[i]) {
      ++differ;
      first = i;
    }
  if (!differ)
    return "";
  return strprintf("FAIL %zu of %zu bins differ; first bin %zu: got %llu want %llu", differ,
                   got.size(), first, (unsigned long long)got[first],
                   (unsigned long long)want[first]);
}

/* What is wrong with a histogram of n samples drawn from the bins of `s`; empty if nothing. */
std::string misplaced(const std::vector<uint64_t> &counts, uint64_t n, Spread s) {
  uint64_t total = 0, outside = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    total += counts[i];
    if (i < s.first || i >= (size_t)s.first + s.count)
      outside += counts[i];
  }
  if (total == n && outside == 0)
    return "";
  return strprintf("FAIL counts add up to %llu for n = %llu; %llu outside the bins drawn from",
                   (unsigned long long)total, (unsigned long long)n, (unsigned long long)outside);
}

/* ---------------------------------------------------------------- rows */

/* A CSV row for one measurement; a histogram reads n samples (its counters are negligible). */
template <class T>
Row make_row(const Bench &b, const char *suite, uint32_t bins, const char *alg, uint64_t n,
             const char *impl, const Timing &t) {
  return timed_row(b, suite, strprintf("histogram_even_%u", bins), alg, dtype_name<T>(), n, impl, t,
                   (double)n * sizeof(T));
}

/* Times CUB on the samples now in the buffer and checks its counts against the spread they were
 * drawn from; returns the row, and the counts in `cub_counts` for checking cuprim against. */
template <class T>
Row cub_row(Bench &b, const Buffers<T> &buf, const char *suite, const char *alg, uint64_t n,
            uint32_t bins, Spread s, std::vector<uint64_t> *cub_counts) {
  const Timing t = time_cub(b, buf, n, bins);
  *cub_counts = read_counts(b, buf.d_counts_cub, bins);
  Row r = make_row<T>(b, suite, bins, alg, n, "cub", t);
  r.ratio_vs_cub = 1.0;
  r.check = verdict(b, t, misplaced(*cub_counts, n, s));
  return r;
}

/* Times cuprim with `alg` and checks its counts against CUB's. */
template <class T>
Row cuprim_row(Bench &b, const Buffers<T> &buf, const char *suite, cuprim_histogram_alg alg,
               const char *name, uint64_t n, uint32_t bins, const Row &cub,
               const std::vector<uint64_t> &cub_counts) {
  const Timing t = time_cuprim(b, alg, buf, n, bins);
  Row r = make_row<T>(b, suite, bins, name, n, "cuprim", t);
  r.ratio_vs_cub = cub.median_us / t.median_us;
  std::string problem;
  if (t.ok())
    problem = differences(read_counts(b, buf.d_counts_cuprim, bins), cub_counts);
  r.check = verdict(b, t, problem);
  return r;
}

/* ---------------------------------------------------------------- the size sweep */

template <class T>
void sweep(Bench &b, const Buffers<T> &buf, uint32_t bins, const std::vector<int> &log2_sizes,
           uint64_t max_n) {
  const char *dt = dtype_name<T>();
  const Spread all{0, bins};
  fill(b, buf.d_samples, max_n, bins, all);
  std::fprintf(stderr, "  histogram %s %u bins: sizes", dt, bins);
  std::string &table = b.pending;
  table = strprintf("\nhistogram %s, %u bins over [%g, %g), uniform: cuprim_histogram_even (AUTO) "
                    "vs cub::DeviceHistogram::HistogramEven. ratio = cub_us / cuprim_us (> 1: "
                    "cuprim faster); GB/s: sample bytes read; %%read: of the 2^28 read-only "
                    "ceiling; read_us: the read-only kernel over the same bytes\n",
                    dt, bins, Range<T>::lower, Range<T>::upper);
  table += strprintf("%6s %10s %10s %7s %12s %10s %14s %9s  %s\n", "n", "cuprim_us", "cub_us",
                     "ratio", "cuprim_GB/s", "cub_GB/s", "%read cp/cub", "read_us", "check");
  for (const int k : log2_sizes) {
    const uint64_t n = uint64_t(1) << k;
    std::fprintf(stderr, " 2^%d", k);
    std::vector<uint64_t> cub_counts;
    const Row rb =
        cub_row(b, buf, "histogram", "DeviceHistogram::HistogramEven", n, bins, all, &cub_counts);
    const Row rc =
        cuprim_row(b, buf, "histogram", CUPRIM_HISTOGRAM_AUTO, "auto", n, bins, rb, cub_counts);
    const Timing rd = time_read_only(b, buf.d_samples, n * sizeof(T));
    const std::string check = add_sweep_rows(
        b, rc, rb, make_row<T>(b, "histogram", bins, "read_only_kernel", n, "bench", rd), "cub");
    table +=
        strprintf("%6s %10s %10.2f %7s %12s %10.1f %6s / %5.1f %9.2f  %s\n", fmt_n(n).c_str(),
                  fmt_num(rc.median_us, 2).c_str(), rb.median_us,
                  fmt_num(rc.ratio_vs_cub, 3).c_str(), fmt_num(rc.gbps, 1).c_str(), rb.gbps,
                  fmt_num(rc.pct_read_bw, 1).c_str(), rb.pct_read_bw, rd.median_us, check.c_str());
  }
  finish_table(b);
}

/* ---------------------------------------------------------------- the ladder */

/* Every algorithm on uniform data, then AUTO and CUB on data that falls into one bin only: all
 * samples contend for one counter, the worst case for atomics, which AUTO must survive. */
template <class T> void ladder(Bench &b, const Buffers<T> &buf, uint32_t bins, int log2_n) {
  const char *dt = dtype_name<T>();
  const uint64_t n = uint64_t(1) << log2_n;
  const Spread all{0, bins}, one{bins / 3, 1};
  std::fprintf(stderr, "  histogram ladder %s %u bins 2^%d:", dt, bins, log2_n);
  fill(b, buf.d_samples, n, bins, all);
  std::vector<uint64_t> cub_counts;
  const Row rb = cub_row(b, buf, "histogram_ladder", "DeviceHistogram::HistogramEven", n, bins, all,
                         &cub_counts);

  std::string &table = b.pending;
  table = strprintf("\nhistogram ladder %s, %u bins, n = 2^%d (%.1f MB read), uniform data. step "
                    "= previous row's us / this row's; cumul = global_atomic's us / this row's; "
                    "vs_cub = cub_us / this row's (on the same data); %%read: of the 2^28 "
                    "read-only ceiling\n",
                    dt, bins, log2_n, (double)n * sizeof(T) / 1e6);
  LadderTable lt{&table, 24, false};
  lt.header();
  /* The ladder in the order of docs/ladder.md (enum order from 1), then the tuned default (0). */
  for_each_rung(HR_HISTOGRAM, [&](int a, const char *name) {
    const auto alg = (cuprim_histogram_alg)a;
    const Row r = cuprim_row(b, buf, "histogram_ladder", alg, name, n, bins, rb, cub_counts);
    b.rows.push_back(r);
    lt.line(strprintf("%d", (int)alg).c_str(), name, r, alg == CUPRIM_HISTOGRAM_GLOBAL_ATOMIC);
  });
  b.rows.push_back(rb);
  lt.line("-", "cub HistogramEven", rb);

  /* One bin only: not a rung of the ladder, so no step or cumulative speedup. */
  std::fprintf(stderr, " one-bin");
  fill(b, buf.d_samples, n, bins, one);
  const Row ob = cub_row(b, buf, "histogram_ladder", "DeviceHistogram::HistogramEven_one_bin", n,
                         bins, one, &cub_counts);
  const Row oc = cuprim_row(b, buf, "histogram_ladder", CUPRIM_HISTOGRAM_AUTO, "auto_one_bin", n,
                            bins, ob, cub_counts);
  b.rows.push_back(oc);
  b.rows.push_back(ob);
  table += strprintf("one-bin data (every sample in bin %u):\n", one.first);
  lt.restart();
  lt.line("-", "auto, one bin", oc);
  lt.line("-", "cub HistogramEven, one bin", ob);
  finish_table(b);
}

/* ---------------------------------------------------------------- the suite */

template <class T>
void run_bins(Bench &b, const Buffers<T> &buf, uint32_t bins, uint64_t max_n,
              const std::vector<int> &sizes, const std::vector<int> &ladder_sizes) {
  sweep(b, buf, bins, sizes, max_n);
  for (const int k : ladder_sizes)
    ladder(b, buf, bins, k);
}

} // namespace

void run_histogram_suite(Bench &b) {
  const SuiteSizes z = suite_sizes(b, {26});
  const std::vector<int> &sizes = z.sweep, &ladder_sizes = z.ladders;
  const uint64_t max_n = z.max_n;
  constexpr uint32_t kMaxBins = 4096;

  /* One sample allocation, sized for f32, serves both sample types, filled anew for each. */
  void *d_samples = nullptr;
  uint64_t *d_counts_cuprim = nullptr;
  unsigned *d_counts_cub = nullptr;
  BENCH_CHECK(cudaMalloc(&d_samples, (max_n + b.opt.offset) * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&d_counts_cuprim, kMaxBins * sizeof *d_counts_cuprim));
  BENCH_CHECK(cudaMalloc(&d_counts_cub, kMaxBins * sizeof *d_counts_cub));

  Buffers<uint8_t> u8;
  u8.d_samples = (uint8_t *)d_samples + b.opt.offset;
  u8.d_counts_cuprim = d_counts_cuprim;
  u8.d_counts_cub = d_counts_cub;
  run_bins(b, u8, 256, max_n, sizes, ladder_sizes);

  Buffers<float> f32;
  f32.d_samples = (float *)d_samples + b.opt.offset;
  f32.d_counts_cuprim = d_counts_cuprim;
  f32.d_counts_cub = d_counts_cub;
  run_bins(b, f32, 256, max_n, sizes, {});
  run_bins(b, f32, kMaxBins, max_n, sizes, ladder_sizes);

  BENCH_CHECK(cudaFree(d_samples));
  BENCH_CHECK(cudaFree(d_counts_cuprim));
  BENCH_CHECK(cudaFree(d_counts_cub));
}
