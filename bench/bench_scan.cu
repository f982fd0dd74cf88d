/* The scan suite: cuprim_scan (AUTO) against cub::DeviceScan::InclusiveSum and ExclusiveSum over
 * sizes 2^10..2^28, and the ladder (every cuprim_scan_alg, Harris's table) at 2^22 and 2^26 for
 * the inclusive scan, for f32 and i32 SUM.
 *
 * The input is built from known prefix sums (see Exact), so that every output has one right
 * answer, f32 included. Every timed result is checked once, on the device: cuprim's output against
 * CUB's, element by element and exactly; CUB's against the exact scan (the harness itself);
 * rel_err gives each one's largest error against the exact scan. */
#include "bench.cuh"
#include "scan/scan_internal.h" /* cuprim__scan_lookback: the kernel-choice sweep */

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace {

const char *primitive_name(cuprim_scan_kind kind) {
  return kind == CUPRIM_INCLUSIVE ? "scan_inclusive_sum" : "scan_exclusive_sum";
}
const char *cub_name(cuprim_scan_kind kind) {
  return kind == CUPRIM_INCLUSIVE ? "DeviceScan::InclusiveSum" : "DeviceScan::ExclusiveSum";
}

/* ---------------------------------------------------------------- data and the exact scan */

/* The data is drawn as its inclusive prefix sums P(i), and d_in[i] = P(i) - P(i-1) (P(-1) = 0):
 * the exact inclusive scan is then P(i) and the exclusive scan P(i-1), recomputed for any element
 * without a reference scan.
 * f32: P(i) is an integer in [0, 2^16). Every element, and every sum of consecutive elements (a
 * difference of two P), is an integer below 2^16 in magnitude. A scan may also add up runs that
 * are not adjacent (a shuffle tree pairs lanes 0 and 16 first; a look-back window reduces 32 tiles
 * by butterfly), but never more than a few dozen of them at once, so every partial result is an
 * integer below 2^24, which f32 holds exactly: every association order gives the exact result,
 * and f32 outputs are compared exactly. (With P below 2^23, sums of two or more runs overflow the
 * 24-bit significand and round differently in cuprim and CUB: the first H100 run showed it.)
 * i32: P(i) is any 32-bit value and the differences wrap, as the primitives' integer sums do.
 * A scan's time does not depend on the values it adds. */
template <class T> struct Exact;
template <> struct Exact<float> {
  __device__ static float prefix(uint64_t seed, uint64_t i) {
    return (float)hr_prefix16(seed, i); /* an integer below 2^16: exact */
  }
  __device__ static float minus(float a, float b) { return a - b; }
};
template <> struct Exact<int32_t> {
  __device__ static int32_t prefix(uint64_t seed, uint64_t i) {
    return (int32_t)(uint32_t)(hr_element_bits(seed, i) >> 32);
  }
  __device__ static int32_t minus(int32_t a, int32_t b) {
    return (int32_t)((uint32_t)a - (uint32_t)b); /* wraps, with no signed overflow */
  }
};

template <class T> __global__ void fill_kernel(T *d, uint64_t n, uint64_t seed) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    d[i] = Exact<T>::minus(Exact<T>::prefix(seed, i), i ? Exact<T>::prefix(seed, i - 1) : T(0));
}

template <class T> void fill(Bench &b, T *d, uint64_t n) {
  fill_kernel<<<helper_blocks(b), 256, 0, b.stream>>>(d, n, kSeed);
  BENCH_CHECK(cudaPeekAtLastError());
  wait_stream(b);
}

/* What output element i must be: the exact scan of the fill, or another output. */
template <class T> struct ExactScan {
  bool exclusive;
  __device__ T operator()(uint64_t i) const {
    if (!exclusive)
      return Exact<T>::prefix(kSeed, i);
    return i ? Exact<T>::prefix(kSeed, i - 1) : T(0);
  }
};
template <class T> struct OtherOutput {
  const T *d_out;
  __device__ T operator()(uint64_t i) const { return d_out[i]; }
};

/* ---------------------------------------------------------------- comparison on the device */

/* An output compared with what it must be, element by element. */
struct Diff {
  unsigned long long mismatches;
  unsigned long long first; /* the lowest index that differs; ~0 if none */
  unsigned max_rel_bits;    /* the largest |got - want| / max(|want|, 1) as float bits: floats
                               that are not negative order like their bits, so atomicMax works */
  double got, want;         /* at `first` */
};

template <class T, class Want>
__global__ void compare_kernel(const T *got, uint64_t n, Want want, Diff *diff) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  unsigned long long mismatches = 0, first = ~0ull;
  float max_rel = 0.0f;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const T g = got[i], w = want(i);
    if (g == w) /* NaN, the poison of floats, never equals */
      continue;
    ++mismatches;
    first = min(first, (unsigned long long)i);
    const float rel = (float)(fabs((double)g - (double)w) / fmax(fabs((double)w), 1.0));
    max_rel = fmaxf(max_rel, isnan(rel) ? INFINITY : rel);
  }
  if (mismatches) { /* atomics only where something differs: none in a passing check */
    atomicAdd(&diff->mismatches, mismatches);
    atomicMin(&diff->first, first);
    atomicMax(&diff->max_rel_bits, __float_as_uint(max_rel));
  }
}

/* Runs after compare_kernel: the values at the first mismatch, for the check text. */
template <class T, class Want>
__global__ void first_mismatch_kernel(const T *got, Want want, Diff *diff) {
  if (diff->mismatches) {
    diff->got = (double)got[diff->first];
    diff->want = (double)want(diff->first);
  }
}

template <class T, class Want> Diff compare(Bench &b, const T *d_got, uint64_t n, Want want) {
  Diff h{};
  h.first = ~0ull;
  Diff *d_diff = nullptr;
  BENCH_CHECK(cudaMallocAsync(&d_diff, sizeof *d_diff, b.stream));
  BENCH_CHECK(cudaMemcpyAsync(d_diff, &h, sizeof h, cudaMemcpyHostToDevice, b.stream));
  compare_kernel<<<helper_blocks(b), 256, 0, b.stream>>>(d_got, n, want, d_diff);
  BENCH_CHECK(cudaPeekAtLastError());
  first_mismatch_kernel<<<1, 1, 0, b.stream>>>(d_got, want, d_diff);
  BENCH_CHECK(cudaPeekAtLastError());
  BENCH_CHECK(cudaMemcpyAsync(&h, d_diff, sizeof h, cudaMemcpyDeviceToHost, b.stream));
  BENCH_CHECK(cudaFreeAsync(d_diff, b.stream));
  wait_stream(b);
  return h;
}

double max_rel(const Diff &d) {
  float f;
  std::memcpy(&f, &d.max_rel_bits, sizeof f);
  return f;
}

/* ---------------------------------------------------------------- timing */

/* The buffers of the suite: the input (prefixes of one filled array) and one output each. */
template <class T> struct Buffers {
  T *d_in = nullptr;
  T *d_out_cuprim = nullptr;
  T *d_out_cub = nullptr;
};

/* Fills d_out with all-ones bits (NaN, or -1) so that a call that writes nothing cannot pass. */
template <class T> void poison(Bench &b, T *d_out, uint64_t n) {
  BENCH_CHECK(cudaMemsetAsync(d_out, 0xff, n * sizeof(T), b.stream));
}

/* cuprim with `alg`; AUTO goes through the plain entry point cuprim_scan. */
template <class T>
Timing time_cuprim(Bench &b, cuprim_scan_alg alg, cuprim_scan_kind kind, const T *d_in, T *d_out,
                   uint64_t n) {
  poison(b, d_out, n);
  return time_call(b, [&]() -> const char * {
    const cuprim_status s =
        alg == CUPRIM_SCAN_AUTO
            ? cuprim_scan(b.ctx, d_in, d_out, n, DType<T>::id, CUPRIM_SUM, kind, b.stream)
            : cuprim_scan_ex(b.ctx, alg, d_in, d_out, n, DType<T>::id, CUPRIM_SUM, kind, b.stream);
    return s == CUPRIM_SUCCESS ? nullptr : cuprim_error_text(s);
  });
}

/* cub::DeviceScan::InclusiveSum or ExclusiveSum with its temporary storage sized and allocated
 * outside the timing, and an int item count, as CUB's own examples call them. */
template <class T>
Timing time_cub(Bench &b, cuprim_scan_kind kind, const T *d_in, T *d_out, uint64_t n) {
  if (n > (uint64_t)INT32_MAX)
    bench_fatal(__FILE__, __LINE__, "time_cub: n past INT32_MAX needs a 64-bit item count");
  const int num_items = (int)n;
  auto scan = [&](void *d_temp, size_t &temp_bytes) {
    return kind == CUPRIM_INCLUSIVE
               ? cub::DeviceScan::InclusiveSum(d_temp, temp_bytes, d_in, d_out, num_items, b.stream)
               : cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_in, d_out, num_items,
                                               b.stream);
  };
  return time_cub_call(b, std::string("cub::") + cub_name(kind), scan,
                       [&] { poison(b, d_out, n); });
}

/* ---------------------------------------------------------------- rows */

/* A CSV row for one measurement; a scan moves 2 * n elements (each read once, written once). */
template <class T>
Row make_row(const Bench &b, const char *suite, cuprim_scan_kind kind, const char *alg, uint64_t n,
             const char *impl, const Timing &t) {
  return timed_row(b, suite, primitive_name(kind), alg, dtype_name<T>(), n, impl, t,
                   2.0 * (double)n * sizeof(T));
}

/* The row of a timed scan whose output is in d_out, checked once: the check column compares the
 * output with `want` (CUB's output, or for CUB the exact scan), rel_err with the exact scan.
 * Counts failures. */
template <class T, class Want>
Row checked_row(Bench &b, const char *suite, cuprim_scan_kind kind, const char *alg, uint64_t n,
                const char *impl, const Timing &t, const T *d_out, Want want) {
  Row r = make_row<T>(b, suite, kind, alg, n, impl, t);
  if (!t.ok()) {
    ++b.failures;
    r.check = "ERROR: " + t.error;
    return r;
  }
  const ExactScan<T> exact{kind == CUPRIM_EXCLUSIVE};
  const Diff d = compare(b, d_out, n, want);
  const Diff e = std::is_same<Want, ExactScan<T>>::value ? d : compare(b, d_out, n, exact);
  r.rel_err = max_rel(e);
  if (d.mismatches == 0) {
    r.check = "ok";
  } else {
    ++b.failures;
    r.check = strprintf("FAIL %llu of %llu elements differ; first at %llu: got %.9g want %.9g",
                        d.mismatches, (unsigned long long)n, d.first, d.got, d.want);
  }
  return r;
}

/* ---------------------------------------------------------------- the size sweep */

template <class T>
void sweep(Bench &b, const Buffers<T> &buf, cuprim_scan_kind kind,
           const std::vector<int> &log2_sizes) {
  const char *dt = dtype_name<T>();
  std::fprintf(stderr, "  scan %s %s: sizes", hr_scan_kind_name(kind), dt);
  std::string &table = b.pending;
  table = strprintf("\nscan %s SUM %s: cuprim_scan (AUTO) vs cub::%s. ratio = cub_us / cuprim_us "
                    "(> 1: cuprim faster); GB/s: bytes read + written; %%copy: of the 2^28 D2D "
                    "copy ceiling; copy_us: a D2D copy of the same n elements\n",
                    hr_scan_kind_name(kind), dt, cub_name(kind));
  table += strprintf("%6s %10s %10s %7s %12s %10s %14s %9s  %s\n", "n", "cuprim_us", "cub_us",
                     "ratio", "cuprim_GB/s", "cub_GB/s", "%copy cp/cub", "copy_us", "check");
  for (const int k : log2_sizes) {
    const uint64_t n = uint64_t(1) << k;
    std::fprintf(stderr, " 2^%d", k);
    /* The copy first (what a scan, which reads and writes each element once, can at best
     * approach at this size); the cuprim call then overwrites its output. */
    const Timing copy = time_copy(b, buf.d_out_cuprim, buf.d_in, n * sizeof(T));
    const Timing cp = time_cuprim(b, CUPRIM_SCAN_AUTO, kind, buf.d_in, buf.d_out_cuprim, n);
    const Timing cub = time_cub(b, kind, buf.d_in, buf.d_out_cub, n);

    Row rc = checked_row(b, "scan", kind, "auto", n, "cuprim", cp, buf.d_out_cuprim,
                         OtherOutput<T>{buf.d_out_cub});
    rc.ratio_vs_cub = cub.median_us / cp.median_us;
    Row rb = checked_row(b, "scan", kind, cub_name(kind), n, "cub", cub, buf.d_out_cub,
                         ExactScan<T>{kind == CUPRIM_EXCLUSIVE});
    rb.ratio_vs_cub = 1.0;
    const std::string check = add_sweep_rows(
        b, rc, rb, make_row<T>(b, "scan", kind, "memcpy_d2d", n, "cuda", copy), "cub vs exact");
    table += strprintf("%6s %10s %10.2f %7s %12s %10.1f %6s / %5.1f %9.2f  %s\n", fmt_n(n).c_str(),
                       fmt_num(cp.median_us, 2).c_str(), cub.median_us,
                       fmt_num(rc.ratio_vs_cub, 3).c_str(), fmt_num(rc.gbps, 1).c_str(), rb.gbps,
                       fmt_num(rc.pct_copy_bw, 1).c_str(), rb.pct_copy_bw, copy.median_us,
                       check.c_str());
  }
  finish_table(b);
}

/* ---------------------------------------------------------------- the ladder */

template <class T> void ladder(Bench &b, const Buffers<T> &buf, int log2_n) {
  const cuprim_scan_kind kind = CUPRIM_INCLUSIVE;
  const char *dt = dtype_name<T>();
  const uint64_t n = uint64_t(1) << log2_n;
  std::fprintf(stderr, "  scan ladder %s 2^%d:", dt, log2_n);
  /* CUB's output stays in d_out_cub while every algorithm is checked against it. */
  const Timing cub = time_cub(b, kind, buf.d_in, buf.d_out_cub, n);

  std::string &table = b.pending;
  table = strprintf("\nscan ladder inclusive SUM %s, n = 2^%d (%.1f MB read + written). step = "
                    "previous row's us / this row's; cumul = hillis_steele's us / this row's; "
                    "vs_cub = cub_us / this row's; %%copy: of the 2^28 D2D copy ceiling\n",
                    dt, log2_n, 2.0 * (double)n * sizeof(T) / 1e6);
  LadderTable lt{&table, 24, true};
  lt.header();
  /* The ladder in the order of docs/ladder.md (enum order from 1), then the tuned default (0). */
  for_each_rung(HR_SCAN, [&](int a, const char *name) {
    const auto alg = (cuprim_scan_alg)a;
    const Timing t = time_cuprim(b, alg, kind, buf.d_in, buf.d_out_cuprim, n);
    Row r = checked_row(b, "scan_ladder", kind, name, n, "cuprim", t, buf.d_out_cuprim,
                        OtherOutput<T>{buf.d_out_cub});
    r.ratio_vs_cub = cub.median_us / t.median_us;
    b.rows.push_back(r);
    lt.line(strprintf("%d", (int)alg).c_str(), name, r, alg == CUPRIM_SCAN_HILLIS_STEELE);
  });
  Row rb = checked_row(b, "scan_ladder", kind, cub_name(kind), n, "cub", cub, buf.d_out_cub,
                       ExactScan<T>{false});
  rb.ratio_vs_cub = 1.0;
  b.rows.push_back(rb);
  lt.line("-", "cub DeviceScan::InclusiveSum", rb);
  finish_table(b);
}

/* ---------------------------------------------------------------- tuning sweep */

/* AUTO's kernel choice (scan_tuning.h): the single-block kernel and the look-back kernel's
 * variants forced through the internal entry point, against CUB, to set the table from data:
 * full or half-size tiles (small), status reset by cudaMemsetAsync or by a kernel overlapped
 * through programmatic dependent launch (-pdl). Each output is checked against CUB's. */
template <class T> void tune_kernel_choice(Bench &b, const Buffers<T> &buf) {
  const cuprim_scan_kind kind = CUPRIM_INCLUSIVE;
  const char *names[] = {"single", "full", "small", "full-pdl", "small-pdl"};
  constexpr int CHOICES = 5;
  std::string &table = b.pending;
  table = strprintf("\nscan AUTO inclusive SUM %s kernel choice (us): one block of 1024 threads "
                    "(up to 2^18), or the look-back kernel: full or half-size (small) tiles, "
                    "status reset by memset or by a PDL-overlapped kernel (pdl)\n%9s",
                    dtype_name<T>(), "n");
  for (const char *nm : names)
    table += strprintf(" %9s", nm);
  table += strprintf(" %9s\n", "cub");
  for (int k2 = 20; k2 <= 48; ++k2) { /* n = 2^(k2/2): half-octave steps from 2^10 to 2^24 */
    const uint64_t n = (uint64_t)std::llround(std::exp2(k2 / 2.0));
    const Timing cub = time_cub(b, kind, buf.d_in, buf.d_out_cub, n);
    table += strprintf("%9llu", (unsigned long long)n);
    for (int choice = 0; choice < CHOICES; ++choice) {
      if (choice == 0 && n > (1u << 18)) {
        table += strprintf(" %9s", "-");
        continue;
      }
      cuprim__scan_tuning tune = cuprim__scan_tuning_for(b.ctx->attrs.code_arch);
      tune.single_block_max_tiles = choice == 0 ? UINT32_MAX : 0;
      tune.small_tiles_max_n = choice == 2 || choice == 4 ? UINT64_MAX : 0;
      tune.pdl_reset = choice >= 3;
      poison(b, buf.d_out_cuprim, n);
      const Timing t = time_call(b, [&]() -> const char * {
        const cuprim_status s = cuprim__scan_lookback(
            b.ctx, buf.d_in, buf.d_out_cuprim, n, DType<T>::id, CUPRIM_SUM, kind, b.stream, &tune);
        return s == CUPRIM_SUCCESS ? nullptr : cuprim_error_text(s);
      });
      const Row r = checked_row(b, "scan_tune", kind, names[choice], n, "cuprim", t,
                                buf.d_out_cuprim, OtherOutput<T>{buf.d_out_cub});
      table += strprintf(" %9s", r.check == "ok" ? fmt_num(t.median_us, 2).c_str() : "FAIL");
    }
    table += strprintf(" %9.2f\n", cub.median_us);
  }
  b.report += table;
  table.clear();
}

/* The look-back kernel's L2 traffic at large n (scan_tuning.h): the prefetch of the tile q
 * quarters of a block per SM ahead, and evict-first stores (s); AUTO's kernel
 * with those entries changed, against CUB and a D2D copy of the same bytes (%copy: copy time
 * over the best column's time). Each output is checked against CUB's. */
template <class T> void tune_l2_traffic(Bench &b, const Buffers<T> &buf) {
  const cuprim_scan_kind kind = CUPRIM_INCLUSIVE;
  struct choice {
    unsigned quarters;
    int stores;
  };
  const choice choices[] = {{0, 0}, {4, 0}, {0, 1}, {2, 1}, {4, 1}, {6, 1}, {8, 1}};
  const cuprim__scan_tuning auto_tune = cuprim__scan_tuning_for(b.ctx->attrs.code_arch);
  std::string &table = b.pending;
  const auto name_of = [](unsigned quarters, int stores) {
    return strprintf("q%u%s", quarters, stores ? "s" : "");
  };
  table = strprintf(
      "\nscan AUTO inclusive SUM %s, L2 traffic (us): prefetch q quarter blocks per SM "
      "ahead, evict-first stores (s); AUTO: %s\n%6s",
      dtype_name<T>(),
      name_of(auto_tune.prefetch_ahead_quarters, auto_tune.evict_first_stores).c_str(), "n");
  for (const choice &c : choices)
    table += strprintf(" %8s", name_of(c.quarters, c.stores).c_str());
  table += strprintf(" %8s %8s %6s\n", "cub", "copy", "%copy");
  for (int lg = 20; lg <= 28; lg += 2) {
    const uint64_t n = (uint64_t)1 << lg;
    const Timing cub = time_cub(b, kind, buf.d_in, buf.d_out_cub, n);
    const Timing copy = time_copy(b, buf.d_out_cuprim, buf.d_in, n * sizeof(T));
    table += strprintf("  2^%-2d", lg);
    double best = INFINITY;
    for (const choice &c : choices) {
      cuprim__scan_tuning tune = auto_tune;
      tune.prefetch_ahead_quarters = c.quarters;
      tune.evict_first_stores = c.stores;
      poison(b, buf.d_out_cuprim, n);
      const Timing t = time_call(b, [&]() -> const char * {
        const cuprim_status s = cuprim__scan_lookback(
            b.ctx, buf.d_in, buf.d_out_cuprim, n, DType<T>::id, CUPRIM_SUM, kind, b.stream, &tune);
        return s == CUPRIM_SUCCESS ? nullptr : cuprim_error_text(s);
      });
      const Row r = checked_row(b, "scan_l2", kind, name_of(c.quarters, c.stores).c_str(), n,
                                "cuprim", t, buf.d_out_cuprim, OtherOutput<T>{buf.d_out_cub});
      table += strprintf(" %8s", r.check == "ok" ? fmt_num(t.median_us, 2).c_str() : "FAIL");
      if (r.check == "ok")
        best = std::min(best, t.median_us);
    }
    table += strprintf(" %8.2f %8.2f %6.1f\n", cub.median_us, copy.median_us,
                       100.0 * copy.median_us / best);
  }
  b.report += table;
  table.clear();
}

/* ---------------------------------------------------------------- the suite */

template <class T> void run_dtype(Bench &b, const Buffers<T> &buf, const SuiteSizes &z) {
  fill(b, buf.d_in, z.max_n);
  run_parts(
      b, z,
      [&] {
        sweep(b, buf, CUPRIM_INCLUSIVE, z.sweep);
        sweep(b, buf, CUPRIM_EXCLUSIVE, z.sweep);
      },
      [&](int k) { ladder(b, buf, k); },
      [&] {
        tune_kernel_choice(b, buf);
        tune_l2_traffic(b, buf);
      });
}

} // namespace

void run_scan_suite(Bench &b) {
  const SuiteSizes z = suite_sizes(b, {22, 26});

  /* One allocation of 4-byte elements per buffer serves both dtypes, filled anew for each. */
  static_assert(sizeof(float) == sizeof(int32_t), "f32 and i32 share the buffers");
  void *d_in = nullptr, *d_out_cuprim = nullptr, *d_out_cub = nullptr;
  /* --offset moves the input only; the outputs stay aligned. */
  const int k = b.opt.offset;
  BENCH_CHECK(cudaMalloc(&d_in, (z.max_n + k) * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&d_out_cuprim, z.max_n * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&d_out_cub, z.max_n * sizeof(float)));
  run_dtype(b, Buffers<float>{(float *)d_in + k, (float *)d_out_cuprim, (float *)d_out_cub}, z);
  run_dtype(b, Buffers<int32_t>{(int32_t *)d_in + k, (int32_t *)d_out_cuprim, (int32_t *)d_out_cub},
            z);

  BENCH_CHECK(cudaFree(d_in));
  BENCH_CHECK(cudaFree(d_out_cuprim));
  BENCH_CHECK(cudaFree(d_out_cub));
}
