/* The segmented suite (issue 15): the segmented and batched reduce and scan over n = 2^28 f32
 * (--quick: 2^24) in segments of 1, 4, 16, 64, 256, 1024, 4096, 65536 and 2^20 elements, and of
 * random sizes 0..2000 and a power law with one giant segment (harness/hostref_segmented.h), with
 * I32 offsets (CSR row pointers, as CUB takes them).
 *
 * For each layout: cuprim_segmented_reduce (AUTO) and every ladder algorithm, against
 * cub::DeviceSegmentedReduce::Sum with the same offsets; cuprim_batched_reduce where the segments
 * are rows of one length; cuprim_segmented_scan (inclusive) and cuprim_batched_scan, against
 * cub::DeviceScan::InclusiveSumByKey with keys = segment ids (CUB has no segmented scan). The
 * byte limit of a call is what it must read and write once (input, offsets, output) at the
 * measured copy bandwidth: a row's pct_copy_bw is its share of that limit. Slow calls (a first
 * call over 20 ms: the per-segment rungs where they fit badly, CUB on tiny segments) take 5
 * samples instead of --samples, which the CSV's samples column shows.
 *
 * CSV: the primitive names the layout after a colon (segmented_reduce_sum:uniform_1024). The
 * reduce rows are the suite segmented_ladder (bench/report.py prints one ladder table per layout:
 * the rungs, AUTO, then CUB); the batched reduce and the scans are the suite segmented, each
 * beside a copy of the CUB row it is compared with.
 *
 * Data: x_i = P(i) - P(i-1) with P(i) an integer below 2^16 (hostref.h's hr_prefix16), so that
 * every scan output is an integer below 2^16 that f32 holds exactly in any order of combination:
 * scans (cuprim's and CUB's) are checked exactly, element by element, on the device; reductions
 * against the exact sum of each segment (64-bit integers), within 4e-6 of its sum of |x| (sums of
 * up to 2^26 terms are not exact in f32). */
#include "bench.cuh"
#include "hostref_segmented.h"

#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>

#include <algorithm>
#include <cstring>
#include <vector>

namespace {

constexpr int NUM_ALGS = CUPRIM_SEGMENTED_MERGE_PATH + 1;

struct Layout {
  const char *name; /* in the CSV's primitive column, after "...:" */
  hr_seg_dist dist;
  uint64_t size;
};

const Layout kLayouts[] = {
    {"uniform_1", HR_SEG_UNIFORM, 1},          {"uniform_4", HR_SEG_UNIFORM, 4},
    {"uniform_16", HR_SEG_UNIFORM, 16},        {"uniform_64", HR_SEG_UNIFORM, 64},
    {"uniform_256", HR_SEG_UNIFORM, 256},      {"uniform_1024", HR_SEG_UNIFORM, 1024},
    {"uniform_4096", HR_SEG_UNIFORM, 4096},    {"uniform_65536", HR_SEG_UNIFORM, 65536},
    {"uniform_2^20", HR_SEG_UNIFORM, 1 << 20}, {"random_0..2000", HR_SEG_RANDOM, 1000},
    {"power_law", HR_SEG_POWER_LAW, 0},
};

/* ---------------------------------------------------------------- kernels */

__global__ void fill_kernel(float *d, uint64_t n) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    d[i] = (float)(hr_prefix16(kSeed, i) - (i ? hr_prefix16(kSeed, i - 1) : 0.0));
}

/* keys[i] = the segment of element i: the last s with off[s] <= i (empty segments have none). */
__global__ void keys_kernel(const int *off, uint64_t segs, uint64_t n, int *keys) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    uint64_t lo = 0, hi = segs; /* off[lo] <= i < off[hi] */
    while (hi - lo > 1) {
      const uint64_t mid = (lo + hi) / 2;
      if ((uint64_t)off[mid] <= i)
        lo = mid;
      else
        hi = mid;
    }
    keys[i] = (int)lo;
  }
}

/* One warp per segment: the exact sum of the integers x over it and of |x|; a reduce output is
 * right within 4e-6 of that sum of |x| (plus 1). Counts the wrong ones. */
__global__ void check_reduce_kernel(const float *in, const int *off, uint64_t segs, uint64_t len,
                                    const float *out, unsigned long long *bad) {
  const uint64_t warps = (uint64_t)gridDim.x * blockDim.x / 32;
  const int lane = threadIdx.x % 32;
  for (uint64_t s = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; s < segs; s += warps) {
    const uint64_t b = off ? (uint64_t)off[s] : s * len, e = off ? (uint64_t)off[s + 1] : b + len;
    long long sum = 0, abs_sum = 0;
    for (uint64_t i = b + lane; i < e; i += 32) {
      const long long v = (long long)in[i];
      sum += v;
      abs_sum += v < 0 ? -v : v;
    }
    for (int d = 16; d > 0; d /= 2) {
      sum += __shfl_down_sync(0xffffffffu, sum, d);
      abs_sum += __shfl_down_sync(0xffffffffu, abs_sum, d);
    }
    if (lane == 0 && !(fabs((double)out[s] - (double)sum) <= 4e-6 * (double)abs_sum + 1.0))
      atomicAdd(bad, 1ull);
  }
}

/* A scan output, exactly: element i of segment s = keys[i] is P(i) - P(off[s] - 1). */
__global__ void check_scan_kernel(const float *out, const int *keys, const int *off, uint64_t n,
                                  unsigned long long *bad) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  unsigned long long wrong = 0;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint64_t b = (uint64_t)off[keys[i]];
    const double want = hr_prefix16(kSeed, i) - (b ? hr_prefix16(kSeed, b - 1) : 0.0);
    wrong += (double)out[i] != want;
  }
  if (wrong)
    atomicAdd(bad, wrong);
}

unsigned long long count_bad(Bench &b, void (*launch)(Bench &, unsigned long long *, const void *),
                             const void *args) {
  unsigned long long *d_bad = nullptr, h_bad = 0;
  BENCH_CHECK(cudaMallocAsync(&d_bad, sizeof h_bad, b.stream));
  BENCH_CHECK(cudaMemsetAsync(d_bad, 0, sizeof h_bad, b.stream));
  launch(b, d_bad, args);
  BENCH_CHECK(cudaPeekAtLastError());
  BENCH_CHECK(cudaMemcpyAsync(&h_bad, d_bad, sizeof h_bad, cudaMemcpyDeviceToHost, b.stream));
  BENCH_CHECK(cudaFreeAsync(d_bad, b.stream));
  wait_stream(b);
  return h_bad;
}

/* ---------------------------------------------------------------- the suite's state */

struct Buffers {
  uint64_t n = 0;
  float *d_in = nullptr, *d_out = nullptr, *d_out_cub = nullptr;
  int *d_off = nullptr, *d_keys = nullptr;
  void *d_temp = nullptr; /* CUB's temporary storage */
  size_t temp_bytes = 0;
  uint64_t segs = 0, len = 0; /* len: the row length of a uniform layout (0: not rows) */
};

struct CheckArgs {
  const Buffers *buf;
  const float *out;
  bool rows;
};

std::string check_reduce(Bench &b, const Buffers &buf, const float *out, bool rows) {
  const CheckArgs args{&buf, out, rows};
  const unsigned long long bad = count_bad(
      b,
      [](Bench &bb, unsigned long long *d_bad, const void *p) {
        const CheckArgs &a = *static_cast<const CheckArgs *>(p);
        check_reduce_kernel<<<helper_blocks(bb), 256, 0, bb.stream>>>(
            a.buf->d_in, a.rows ? nullptr : a.buf->d_off, a.buf->segs, a.buf->len, a.out, d_bad);
      },
      &args);
  if (bad)
    ++b.failures;
  return bad ? strprintf("FAIL (%llu wrong segments)", bad) : std::string("ok");
}

std::string check_scan(Bench &b, const Buffers &buf, const float *out) {
  const CheckArgs args{&buf, out, false};
  const unsigned long long bad = count_bad(
      b,
      [](Bench &bb, unsigned long long *d_bad, const void *p) {
        const CheckArgs &a = *static_cast<const CheckArgs *>(p);
        check_scan_kernel<<<helper_blocks(bb), 256, 0, bb.stream>>>(a.out, a.buf->d_keys,
                                                                    a.buf->d_off, a.buf->n, d_bad);
      },
      &args);
  if (bad)
    ++b.failures;
  return bad ? strprintf("FAIL (%llu wrong elements)", bad) : std::string("ok");
}

/* time_call, with 5 samples and one warm-up for a call whose first run takes more than 20 ms. */
template <class Call> Timing time_adaptive(Bench &b, Call &&call) {
  cudaEvent_t e0, e1;
  BENCH_CHECK(cudaEventCreate(&e0));
  BENCH_CHECK(cudaEventCreate(&e1));
  BENCH_CHECK(cudaEventRecord(e0, b.stream));
  const char *err = call();
  BENCH_CHECK(cudaEventRecord(e1, b.stream));
  wait_stream(b);
  float ms = 0.0f;
  BENCH_CHECK(cudaEventElapsedTime(&ms, e0, e1));
  BENCH_CHECK(cudaEventDestroy(e0));
  BENCH_CHECK(cudaEventDestroy(e1));
  if (err) {
    Timing t;
    t.error = err;
    return t;
  }
  const int samples = b.timer.cfg.samples, warmup = b.timer.cfg.warmup;
  if (ms > 20.0f) {
    b.timer.cfg.samples = std::min(samples, 5);
    b.timer.cfg.warmup = 1;
  }
  const Timing t = time_call(b, call);
  b.timer.cfg.samples = samples;
  b.timer.cfg.warmup = warmup;
  return t;
}

const char *cuprim_text(cuprim_status s) {
  return s == CUPRIM_SUCCESS ? nullptr : cuprim_error_text(s);
}

/* ---------------------------------------------------------------- one layout */

/* Times `call` (returning the text of an error or nullptr) into a checked row. */
template <class Call, class Check>
Row measure(Bench &b, const std::string &primitive, const char *alg, const char *impl, double bytes,
            Call &&call, Check &&check) {
  const Timing t = time_adaptive(b, call);
  Row r = timed_row(b, "segmented", primitive, alg, "f32", 0, impl, t, bytes);
  if (!t.ok()) {
    ++b.failures;
    r.check = "ERROR: " + t.error;
  } else {
    r.check = check();
  }
  return r;
}

std::string pct_cell(const Row &r) {
  return strprintf("%s (%s%%)", fmt_num(r.median_us, 1).c_str(), fmt_num(r.pct_copy_bw, 0).c_str());
}

void run_layout(Bench &b, Buffers &buf, const Layout &L, std::vector<uint64_t> &off64,
                std::vector<int> &off32, std::string &rtable, std::string &stable) {
  const uint64_t n = buf.n;
  std::fprintf(stderr, "  segmented %s:", L.name);
  const uint64_t segs = hr_seg_layout(L.dist, L.size, n, kSeed, off64.data(), off64.size() - 1);
  if (segs == UINT64_MAX || segs > (uint64_t)INT32_MAX)
    bench_fatal(__FILE__, __LINE__, std::string("layout ") + L.name + ": too many segments");
  for (uint64_t k = 0; k <= segs; ++k)
    off32[k] = (int)off64[k];
  BENCH_CHECK(cudaMemcpyAsync(buf.d_off, off32.data(), (segs + 1) * sizeof(int),
                              cudaMemcpyHostToDevice, b.stream));
  buf.segs = segs;
  buf.len = L.dist == HR_SEG_UNIFORM && n % L.size == 0 ? L.size : 0;
  keys_kernel<<<helper_blocks(b), 256, 0, b.stream>>>(buf.d_off, segs, n, buf.d_keys);
  BENCH_CHECK(cudaPeekAtLastError());

  /* CUB's temporary storage, sized for both of its calls and allocated outside the timing. */
  size_t t_reduce = 0, t_scan = 0;
  BENCH_CHECK(cub::DeviceSegmentedReduce::Sum(nullptr, t_reduce, buf.d_in, buf.d_out_cub,
                                              (int64_t)segs, buf.d_off, buf.d_off + 1, b.stream));
  BENCH_CHECK(cub::DeviceScan::InclusiveSumByKey(nullptr, t_scan, buf.d_keys, buf.d_in,
                                                 buf.d_out_cub, (int)n, ::cuda::std::equal_to<>{},
                                                 b.stream));
  const size_t need = std::max<size_t>(std::max(t_reduce, t_scan), 16);
  if (need > buf.temp_bytes) {
    BENCH_CHECK(cudaFree(buf.d_temp));
    BENCH_CHECK(cudaMalloc(&buf.d_temp, need));
    buf.temp_bytes = need;
  }
  wait_stream(b);

  const double reduce_bytes = 4.0 * (double)n + 4.0 * (double)(segs + 1) + 4.0 * (double)segs;
  const double rows_bytes = 4.0 * (double)n + 4.0 * (double)segs;
  const double scan_bytes = 8.0 * (double)n + 4.0 * (double)(segs + 1);
  const std::string pr = std::string("segmented_reduce_sum:") + L.name;
  const std::string pbr = std::string("batched_reduce_sum:") + L.name;
  const std::string ps = std::string("segmented_scan_inclusive_sum:") + L.name;
  const std::string pbs = std::string("batched_scan_inclusive_sum:") + L.name;
  auto poison = [&](float *d, uint64_t count) {
    BENCH_CHECK(cudaMemsetAsync(d, 0xff, count * sizeof(float), b.stream));
  };
  /* Reduce rows go to the suite segmented_ladder (one table per layout, the rungs then CUB, as
   * bench/report.py prints ladders), the batched reduce and the scans to segmented. */
  auto keep = [&](Row r, const char *suite = "segmented") {
    r.n = n;
    r.suite = suite;
    b.rows.push_back(r);
    return r;
  };

  /* The reductions: CUB, then the ladder and AUTO, then the batched call. */
  std::fprintf(stderr, " cub");
  poison(buf.d_out_cub, segs);
  size_t tb = buf.temp_bytes;
  Row cub_r = measure(
      b, pr, "DeviceSegmentedReduce::Sum", "cub", reduce_bytes,
      [&]() -> const char * {
        const cudaError_t e =
            cub::DeviceSegmentedReduce::Sum(buf.d_temp, tb, buf.d_in, buf.d_out_cub, (int64_t)segs,
                                            buf.d_off, buf.d_off + 1, b.stream);
        return e == cudaSuccess ? nullptr : cudaGetErrorString(e);
      },
      [&] { return check_reduce(b, buf, buf.d_out_cub, false); });
  cub_r.ratio_vs_cub = 1.0;
  Row ladder[NUM_ALGS];
  for_each_rung(HR_SEGMENTED, [&](int alg, const char *name) {
    poison(buf.d_out, segs);
    Row r = measure(
        b, pr, name, "cuprim", reduce_bytes,
        [&]() -> const char * {
          return cuprim_text(
              alg == CUPRIM_SEGMENTED_AUTO
                  ? cuprim_segmented_reduce(b.ctx, buf.d_in, buf.d_out, n, buf.d_off, CUPRIM_I32,
                                            segs, CUPRIM_F32, CUPRIM_SUM, b.stream)
                  : cuprim_segmented_reduce_ex(b.ctx, (cuprim_segmented_alg)alg, buf.d_in,
                                               buf.d_out, n, buf.d_off, CUPRIM_I32, segs,
                                               CUPRIM_F32, CUPRIM_SUM, b.stream));
        },
        [&] { return check_reduce(b, buf, buf.d_out, false); });
    r.ratio_vs_cub = cub_r.median_us / r.median_us;
    ladder[alg] = keep(r, "segmented_ladder");
  });
  keep(cub_r, "segmented_ladder");
  Row rows_r;
  if (buf.len) {
    std::fprintf(stderr, " batched");
    poison(buf.d_out, segs);
    rows_r = measure(
        b, pbr, "auto", "cuprim", rows_bytes,
        [&]() -> const char * {
          return cuprim_text(cuprim_batched_reduce(b.ctx, buf.d_in, buf.d_out, segs, buf.len,
                                                   CUPRIM_F32, CUPRIM_SUM, b.stream));
        },
        [&] { return check_reduce(b, buf, buf.d_out, true); });
    rows_r.ratio_vs_cub = cub_r.median_us / rows_r.median_us;
    rows_r = keep(rows_r);
    Row c = cub_r; /* the same CUB measurement, beside the batched call in the CSV's tables */
    c.primitive = pbr;
    keep(c);
  }

  /* The scans: cuprim's segmented and batched scans, CUB's scan by key. */
  std::fprintf(stderr, " scans");
  poison(buf.d_out_cub, n);
  Row cub_s = measure(
      b, ps, "DeviceScan::InclusiveSumByKey", "cub", scan_bytes,
      [&]() -> const char * {
        const cudaError_t e =
            cub::DeviceScan::InclusiveSumByKey(buf.d_temp, tb, buf.d_keys, buf.d_in, buf.d_out_cub,
                                               (int)n, ::cuda::std::equal_to<>{}, b.stream);
        return e == cudaSuccess ? nullptr : cudaGetErrorString(e);
      },
      [&] { return check_scan(b, buf, buf.d_out_cub); });
  cub_s.ratio_vs_cub = 1.0;
  keep(cub_s);
  poison(buf.d_out, n);
  Row scan_r = measure(
      b, ps, "auto", "cuprim", scan_bytes,
      [&]() -> const char * {
        return cuprim_text(cuprim_segmented_scan(b.ctx, buf.d_in, buf.d_out, n, buf.d_off,
                                                 CUPRIM_I32, segs, CUPRIM_F32, CUPRIM_SUM,
                                                 CUPRIM_INCLUSIVE, b.stream));
      },
      [&] { return check_scan(b, buf, buf.d_out); });
  scan_r.ratio_vs_cub = cub_s.median_us / scan_r.median_us;
  scan_r = keep(scan_r);
  Row rows_s;
  if (buf.len) {
    poison(buf.d_out, n);
    rows_s = measure(
        b, pbs, "auto", "cuprim", 8.0 * (double)n,
        [&]() -> const char * {
          return cuprim_text(cuprim_batched_scan(b.ctx, buf.d_in, buf.d_out, segs, buf.len,
                                                 CUPRIM_F32, CUPRIM_SUM, CUPRIM_INCLUSIVE,
                                                 b.stream));
        },
        [&] { return check_scan(b, buf, buf.d_out); });
    rows_s.ratio_vs_cub = cub_s.median_us / rows_s.median_us;
    rows_s = keep(rows_s);
    Row c = cub_s;
    c.primitive = pbs;
    keep(c);
  }
  std::fprintf(stderr, "\n");

  /* The byte limits (what must be read and written once, at the copy bandwidth). */
  const double limit_r = reduce_bytes / (b.copy_gbps * 1e3),
               limit_s = scan_bytes / (b.copy_gbps * 1e3);
  std::string checks;
  for (const Row *r : {&cub_r, &ladder[0], &ladder[1], &ladder[2], &ladder[3], &ladder[4]})
    if (r->check != "ok")
      checks += " " + r->alg + ": " + r->check;
  if (buf.len && rows_r.check != "ok")
    checks += " batched: " + rows_r.check;
  rtable +=
      strprintf("%-15s %10llu %9.1f %16s %10s %10s %10s %10s %10s %8s %16s %s\n", L.name,
                (unsigned long long)segs, limit_r, pct_cell(ladder[0]).c_str(),
                fmt_num(ladder[1].median_us, 1).c_str(), fmt_num(ladder[2].median_us, 1).c_str(),
                fmt_num(ladder[3].median_us, 1).c_str(), fmt_num(ladder[4].median_us, 1).c_str(),
                fmt_num(cub_r.median_us, 1).c_str(), fmt_num(ladder[0].ratio_vs_cub, 2).c_str(),
                buf.len ? pct_cell(rows_r).c_str() : "-", checks.empty() ? "ok" : checks.c_str());
  std::string schecks;
  for (const Row *r : {&cub_s, &scan_r})
    if (r->check != "ok")
      schecks += " " + r->alg + ": " + r->check;
  if (buf.len && rows_s.check != "ok")
    schecks += " batched: " + rows_s.check;
  stable +=
      strprintf("%-15s %10llu %9.1f %16s %16s %12s %8s %s\n", L.name, (unsigned long long)segs,
                limit_s, pct_cell(scan_r).c_str(), buf.len ? pct_cell(rows_s).c_str() : "-",
                fmt_num(cub_s.median_us, 1).c_str(), fmt_num(scan_r.ratio_vs_cub, 2).c_str(),
                schecks.empty() ? "ok" : schecks.c_str());
}

} // namespace

void run_segmented_suite(Bench &b) {
  Buffers buf;
  buf.n = uint64_t(1) << (b.opt.quick ? 24 : 28);
  const uint64_t n = buf.n;
  BENCH_CHECK(cudaMalloc(&buf.d_in, n * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&buf.d_out, n * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&buf.d_out_cub, n * sizeof(float)));
  BENCH_CHECK(cudaMalloc(&buf.d_off, (n + 1) * sizeof(int)));
  BENCH_CHECK(cudaMalloc(&buf.d_keys, n * sizeof(int)));
  fill_kernel<<<helper_blocks(b), 256, 0, b.stream>>>(buf.d_in, n);
  BENCH_CHECK(cudaPeekAtLastError());
  std::vector<uint64_t> off64(n + 1);
  std::vector<int> off32(n + 1);

  std::string rtable = strprintf(
      "\nsegmented reduce SUM f32, n = %s, I32 offsets: us (%% of the byte limit: input + offsets "
      "+ output once at the copy bandwidth); the ladder's us; CUB DeviceSegmentedReduce::Sum; "
      "auto/cub = CUB's us / AUTO's; batched: cuprim_batched_reduce (rows of one length)\n",
      fmt_n(n).c_str());
  rtable += strprintf("%-15s %10s %9s %16s %10s %10s %10s %10s %10s %8s %16s %s\n", "layout",
                      "segments", "limit_us", "auto", "thread", "warp", "block", "merge_path",
                      "cub", "auto/cub", "batched", "check");
  std::string stable = strprintf(
      "\nsegmented scan inclusive SUM f32, n = %s, I32 offsets: us (%% of the byte limit: input "
      "and output + offsets once at the copy bandwidth); CUB DeviceScan::InclusiveSumByKey with "
      "keys = segment ids; ratio = CUB's us / cuprim's\n",
      fmt_n(n).c_str());
  stable += strprintf("%-15s %10s %9s %16s %16s %12s %8s %s\n", "layout", "segments", "limit_us",
                      "segmented_scan", "batched_scan", "cub_by_key", "ratio", "check");
  for (const Layout &L : kLayouts) {
    if (b.opt.quick && L.size > (uint64_t)1 << 16)
      continue;
    b.pending = rtable + "(incomplete)\n" + stable;
    run_layout(b, buf, L, off64, off32, rtable, stable);
  }
  b.pending.clear();
  b.report += rtable + stable;

  BENCH_CHECK(cudaFree(buf.d_temp));
  BENCH_CHECK(cudaFree(buf.d_in));
  BENCH_CHECK(cudaFree(buf.d_out));
  BENCH_CHECK(cudaFree(buf.d_out_cub));
  BENCH_CHECK(cudaFree(buf.d_off));
  BENCH_CHECK(cudaFree(buf.d_keys));
}
