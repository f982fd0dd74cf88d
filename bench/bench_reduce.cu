/* The reduce suite: cuprim_reduce (AUTO) against cub::DeviceReduce::Sum over sizes 2^10..2^28,
 * and the ladder (every cuprim_reduce_alg, Harris's table) at 2^22 and 2^26, for f32 and i32 SUM.
 *
 * Every timed result is checked once: cuprim against CUB (integers equal, floats within a
 * relative tolerance), CUB against the exact sum; rel_err gives each one's error against it. */
#include "bench.cuh"
#include "reduce/reduce_internal.h" /* cuprim__reduce_auto_tuned: the kernel-choice sweep */

#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cstring>

namespace {

/* Relative tolerances for f32 results (values in [0,1), so sum|x| = |sum|). AUTO and CUB add in
 * trees of partial sums: error of order log2(n) * 2^-24 (2e-6 at 2^28, typically far less). A
 * ladder kernel may chain up to n/512 block results one after another (atomics): rounding then
 * grows like sqrt(n/512) * 2^-24 / 3, about 7e-6 at 2^26, hence the looser bound. Elements
 * dropped or added twice show exactly in the i32 rows; rel_err shows each result's real error. */
constexpr double kF32Tolerance = 1e-5;
constexpr double kF32LadderTolerance = 1e-4;

/* One timed implementation: its timing and the result its last call left in d_out. */
struct Measured {
  Timing t;
  double value = NAN;
};

/* The buffers of the suite: the input (prefixes of one filled array) and one output each. */
template <class T> struct Buffers {
  T *d_in = nullptr;
  T *d_out_cuprim = nullptr;
  T *d_out_cub = nullptr;
};

/* Fills d_out with all-ones bits (NaN, or -1) so that a call that writes nothing cannot pass. */
template <class T> void poison(Bench &b, T *d_out) {
  BENCH_CHECK(cudaMemsetAsync(d_out, 0xff, sizeof(T), b.stream));
}

template <class T> double read_back(Bench &b, const T *d_out) {
  T h = T();
  BENCH_CHECK(cudaMemcpyAsync(&h, d_out, sizeof h, cudaMemcpyDeviceToHost, b.stream));
  wait_stream(b);
  return (double)h;
}

/* cuprim with `alg`; AUTO goes through the plain entry point cuprim_reduce. */
template <class T>
Measured time_cuprim(Bench &b, cuprim_reduce_alg alg, const T *d_in, T *d_out, uint64_t n) {
  Measured m;
  poison(b, d_out);
  m.t = time_call(b, [&]() -> const char * {
    const cuprim_status s =
        alg == CUPRIM_REDUCE_AUTO
            ? cuprim_reduce(b.ctx, d_in, d_out, n, DType<T>::id, CUPRIM_SUM, b.stream)
            : cuprim_reduce_ex(b.ctx, alg, d_in, d_out, n, DType<T>::id, CUPRIM_SUM, b.stream);
    return s == CUPRIM_SUCCESS ? nullptr : cuprim_error_text(s);
  });
  if (m.t.ok())
    m.value = read_back(b, d_out);
  return m;
}

/* cub::DeviceReduce::Sum with its temporary storage sized and allocated outside the timing, and
 * an int item count, as CUB's own examples call it. */
template <class T> Measured time_cub(Bench &b, const T *d_in, T *d_out, uint64_t n) {
  if (n > (uint64_t)INT32_MAX)
    bench_fatal(__FILE__, __LINE__, "time_cub: n past INT32_MAX needs a 64-bit item count");
  const int num_items = (int)n;
  Measured m;
  m.t = time_cub_call(
      b, "cub::DeviceReduce::Sum",
      [&](void *d_temp, size_t &temp_bytes) {
        return cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, num_items, b.stream);
      },
      [&] { poison(b, d_out); });
  m.value = read_back(b, d_out);
  return m;
}

template <class T> bool agrees(double got, double want, double f32_tolerance) {
  if (std::isnan(got) || std::isnan(want))
    return false;
  if (!DType<T>::is_float)
    return got == want;
  return std::fabs(got - want) <= f32_tolerance * std::fabs(want);
}

double rel_err(double got, double exact) {
  return std::fabs(got - exact) / std::max(std::fabs(exact), 1.0);
}

/* The check text of a measured result against `want`, counting failures. */
template <class T>
std::string check_text(Bench &b, const Measured &m, double want,
                       double f32_tolerance = kF32Tolerance) {
  if (!m.t.ok()) {
    ++b.failures;
    return "ERROR: " + m.t.error;
  }
  if (agrees<T>(m.value, want, f32_tolerance))
    return "ok";
  ++b.failures;
  return strprintf("FAIL got %.9g want %.9g", m.value, want);
}

/* A CSV row for one measurement of `bytes` bytes. */
Row make_row(const Bench &b, const char *suite, const char *alg, const char *dtype, uint64_t n,
             const char *impl, const Timing &t, double bytes) {
  return timed_row(b, suite, "reduce_sum", alg, dtype, n, impl, t, bytes);
}

/* ---------------------------------------------------------------- the size sweep */

template <class T> void sweep(Bench &b, const Buffers<T> &buf, const std::vector<int> &log2_sizes) {
  const char *dt = dtype_name<T>();
  std::fprintf(stderr, "  reduce %s: sizes", dt);
  std::string &table = b.pending;
  table = strprintf(
      "\nreduce SUM %s: cuprim_reduce (AUTO) vs cub::DeviceReduce::Sum. ratio = cub_us / "
      "cuprim_us (> 1: cuprim faster); %%read, %%copy: of the 2^28 ceilings; read_us: the "
      "read-only kernel over the same bytes\n",
      dt);
  table += strprintf("%6s %10s %10s %7s %12s %10s %14s %14s %9s  %s\n", "n", "cuprim_us", "cub_us",
                     "ratio", "cuprim_GB/s", "cub_GB/s", "%read cp/cub", "%copy cp/cub", "read_us",
                     "check");
  for (const int k : log2_sizes) {
    const uint64_t n = uint64_t(1) << k;
    const double bytes = (double)n * sizeof(T);
    std::fprintf(stderr, " 2^%d", k);
    const double exact = exact_sum(b, buf.d_in, n);
    const Measured cp = time_cuprim(b, CUPRIM_REDUCE_AUTO, buf.d_in, buf.d_out_cuprim, n);
    const Measured cub = time_cub(b, buf.d_in, buf.d_out_cub, n);
    const Timing rd = time_read_only(b, buf.d_in, (size_t)bytes);

    Row rc = make_row(b, "reduce", "auto", dt, n, "cuprim", cp.t, bytes);
    rc.ratio_vs_cub = cub.t.median_us / cp.t.median_us;
    rc.rel_err = rel_err(cp.value, exact);
    rc.check = check_text<T>(b, cp, cub.value); /* cuprim against CUB */
    Row rb = make_row(b, "reduce", "DeviceReduce::Sum", dt, n, "cub", cub.t, bytes);
    rb.ratio_vs_cub = 1.0;
    rb.rel_err = rel_err(cub.value, exact);
    rb.check = check_text<T>(b, cub, exact); /* CUB against the exact sum: the harness itself */
    const std::string check = add_sweep_rows(
        b, rc, rb, make_row(b, "reduce", "read_only_kernel", dt, n, "bench", rd, bytes),
        "cub vs exact");
    table += strprintf(
        "%6s %10s %10.2f %7s %12s %10.1f %6s / %5.1f %6s / %5.1f %9.2f  %s\n", fmt_n(n).c_str(),
        fmt_num(cp.t.median_us, 2).c_str(), cub.t.median_us, fmt_num(rc.ratio_vs_cub, 3).c_str(),
        fmt_num(rc.gbps, 1).c_str(), rb.gbps, fmt_num(rc.pct_read_bw, 1).c_str(), rb.pct_read_bw,
        fmt_num(rc.pct_copy_bw, 1).c_str(), rb.pct_copy_bw, rd.median_us, check.c_str());
  }
  finish_table(b);
}

/* ---------------------------------------------------------------- the ladder */

template <class T> void ladder(Bench &b, const Buffers<T> &buf, int log2_n) {
  const char *dt = dtype_name<T>();
  const uint64_t n = uint64_t(1) << log2_n;
  const double bytes = (double)n * sizeof(T);
  std::fprintf(stderr, "  reduce ladder %s 2^%d:", dt, log2_n);
  const double exact = exact_sum(b, buf.d_in, n);
  const Measured cub = time_cub(b, buf.d_in, buf.d_out_cub, n);

  std::string &table = b.pending;
  table = strprintf(
      "\nreduce ladder SUM %s, n = 2^%d (%.1f MB). step = previous row's us / this row's; cumul = "
      "global_tree's us / this row's; vs_cub = cub_us / this row's\n",
      dt, log2_n, bytes / 1e6);
  LadderTable lt{&table, 21, false};
  lt.header();
  /* The ladder in Harris's order (enum order from 1), then the tuned default (0). */
  for_each_rung(HR_REDUCE, [&](int a, const char *name) {
    const auto alg = (cuprim_reduce_alg)a;
    const Measured m = time_cuprim(b, alg, buf.d_in, buf.d_out_cuprim, n);
    Row r = make_row(b, "reduce_ladder", name, dt, n, "cuprim", m.t, bytes);
    r.ratio_vs_cub = cub.t.median_us / m.t.median_us;
    r.rel_err = rel_err(m.value, exact);
    r.check = check_text<T>(b, m, cub.value,
                            alg == CUPRIM_REDUCE_AUTO ? kF32Tolerance : kF32LadderTolerance);
    b.rows.push_back(r);
    lt.line(strprintf("%d", (int)alg).c_str(), name, r, alg == CUPRIM_REDUCE_GLOBAL_TREE);
  });
  Row rb = make_row(b, "reduce_ladder", "DeviceReduce::Sum", dt, n, "cub", cub.t, bytes);
  rb.ratio_vs_cub = 1.0;
  rb.rel_err = rel_err(cub.value, exact);
  rb.check = check_text<T>(b, cub, exact);
  b.rows.push_back(rb);
  lt.line("-", "cub DeviceReduce::Sum", rb);
  finish_table(b);
}

/* ---------------------------------------------------------------- tuning sweep */

/* AUTO's kernel choice (reduce_tuning.h): time AUTO with each kernel forced through the internal
 * entry point, to set the thresholds from data. The result's bits do not depend on the choice;
 * each result is still checked against CUB. Columns: one block (up to 64 chunks), a cluster of 8
 * or 16 blocks (up to 256 chunks), a plain grid chained to a finishing block by programmatic
 * dependent launch, the cooperative grid; the last two with and without (-pf) the L2::256B
 * prefetch hint on the loads. */
template <class T> void tune_kernel_choice(Bench &b, const Buffers<T> &buf) {
  const int log2s[] = {12, 13, 14, 15, 16, 17, 18, 19, 20, 22, 24, 26, 28};
  const char *names[] = {"single", "cluster8", "cluster16", "pdl", "coop", "coop-pf", "pdl-pf"};
  std::string &table = b.pending;
  const uint64_t chunk = 16 / sizeof(T) * 4 * 256;
  table = strprintf("\nreduce AUTO %s kernel choice (us; chunk = %llu elements; single only up to "
                    "64 chunks, clusters up to 256; -pf: without the L2::256B prefetch hint)\n%6s "
                    "%9s %9s %9s %9s %9s %9s %9s %9s\n",
                    dtype_name<T>(), (unsigned long long)chunk, "n", names[0], names[1], names[2],
                    names[3], names[4], names[5], names[6], "cub");
  for (int k : log2s) {
    const uint64_t n = uint64_t(1) << k;
    const Measured cub = time_cub(b, buf.d_in, buf.d_out_cub, n);
    table += strprintf("%6s", fmt_n(n).c_str());
    for (int choice = 0; choice < 7; ++choice) {
      if ((choice == 0 && n > 64 * chunk) || (choice <= 2 && n > 256 * chunk)) {
        table += strprintf(" %9s", "-");
        continue;
      }
      cuprim__reduce_tuning tune;
      tune.single_block_max_chunks = choice == 0 ? 64 : 0;
      tune.cluster_max_chunks = choice == 1 || choice == 2 ? 256 : 0;
      tune.cluster_max_blocks = choice == 2 ? 16 : 8;
      tune.grid_sync_min_chunks = choice == 4 || choice == 5 ? 0 : UINT32_MAX;
      tune.l2_prefetch_max_chunks = choice == 5 || choice == 6 ? 0 : UINT32_MAX;
      Measured m;
      poison(b, buf.d_out_cuprim);
      m.t = time_call(b, [&]() -> const char * {
        const cuprim_status s = cuprim__reduce_auto_tuned(
            b.ctx, buf.d_in, buf.d_out_cuprim, n, DType<T>::id, CUPRIM_SUM, b.stream, &tune);
        return s == CUPRIM_SUCCESS ? nullptr : cuprim_error_text(s);
      });
      if (m.t.ok())
        m.value = read_back(b, buf.d_out_cuprim);
      const std::string c = check_text<T>(b, m, cub.value);
      table += strprintf(" %9s", c == "ok" ? fmt_num(m.t.median_us, 2).c_str() : "FAIL");
    }
    table += strprintf(" %9.2f\n", cub.t.median_us);
  }
  b.report += table;
  table.clear();
}

/* ---------------------------------------------------------------- the suite */

template <class T> void run_dtype(Bench &b, const Buffers<T> &buf, const SuiteSizes &z) {
  fill_random(b, buf.d_in, z.max_n, kSeed);
  run_parts(
      b, z, [&] { sweep(b, buf, z.sweep); }, [&](int k) { ladder(b, buf, k); },
      [&] { tune_kernel_choice(b, buf); });
}

} // namespace

void run_reduce_suite(Bench &b) {
  const SuiteSizes z = suite_sizes(b, {22, 26});

  /* One allocation of 4-byte elements serves both dtypes, filled anew for each. */
  static_assert(sizeof(float) == sizeof(int32_t), "f32 and i32 share the input buffer");
  void *d_in = nullptr, *d_out = nullptr;
  BENCH_CHECK(cudaMalloc(&d_in, (z.max_n + b.opt.offset) * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&d_out, 2 * 256)); /* two outputs, 256 bytes apart */
  const Buffers<float> f{(float *)d_in + b.opt.offset, (float *)d_out,
                         (float *)((char *)d_out + 256)};
  run_dtype(b, f, z);
  const Buffers<int32_t> i{(int32_t *)d_in + b.opt.offset, (int32_t *)d_out,
                           (int32_t *)((char *)d_out + 256)};
  run_dtype(b, i, z);

  BENCH_CHECK(cudaFree(d_in));
  BENCH_CHECK(cudaFree(d_out));
}
