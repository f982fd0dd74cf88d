/* cuprim-bench: times cuprim against NVIDIA CUB on one GPU.
 *
 *   cuprim-bench [--csv FILE] [--quick] [--only SUITE] [--samples N] [--flush read|memset]
 *
 * Measures two ceilings first (device-to-device copy and a plain read-only kernel, both on 2^28
 * f32), then runs the suites, then prints the tables. Exit status: 0 all checks passed, 1 a check
 * or a call failed, 2 bad usage or no CUDA device. */
#include "bench.cuh"

#include <cub/version.cuh>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <unistd.h>

namespace {

Bench *g_bench = nullptr; /* for bench_fatal: what to print before exiting */
FILE *g_csv = nullptr;
std::string g_header; /* GPU, versions, date, ceilings: printed before the tables */

const Suite kSuites[] = {
    {"reduce", "cuprim_reduce vs cub::DeviceReduce::Sum (f32, i32), and the reduce ladder",
     run_reduce_suite},
    {"scan",
     "cuprim_scan vs cub::DeviceScan::InclusiveSum / ExclusiveSum (f32, i32), and the scan ladder",
     run_scan_suite},
    {"histogram",
     "cuprim_histogram_even vs cub::DeviceHistogram::HistogramEven (u8/256, f32/256, f32/4096 "
     "bins), and the histogram ladder",
     run_histogram_suite},
    {"half",
     "16-bit floats: f16 and bf16 reduce vs cub::DeviceReduce::Reduce (float accumulator), f16 "
     "inclusive scan vs cub::DeviceScan::InclusiveSum, f16/256 histogram vs HistogramEven",
     run_half_suite},
    {"arg", "cuprim_reduce_arg ARGMIN f32 vs cub::DeviceReduce::ArgMin", run_arg_suite},
    {"histogram_multi",
     "cuprim_histogram_even_multi vs cub::DeviceHistogram::MultiHistogramEven<4, 4> and <4, 3> "
     "(RGBA u8, 256 bins a channel, 2^10..2^28 bytes; a constant image)",
     run_histogram_multi_suite},
    {"histogram_weighted",
     "cuprim_histogram_even_weighted_ex AUTO and FIXED_ORDER (f32 samples and weights, 256 and "
     "4096 bins, 2^24 and 2^28) against the read-only kernel over samples and weights",
     run_histogram_weighted_suite},
    {"segmented",
     "cuprim_segmented_reduce (every algorithm) vs cub::DeviceSegmentedReduce::Sum, "
     "cuprim_batched_reduce, cuprim_segmented_scan and _batched_scan vs "
     "cub::DeviceScan::InclusiveSumByKey, 2^28 f32 in segments of 1 to 2^20, random and "
     "power-law sizes",
     run_segmented_suite},
#if CUPRIM_BENCH_NCCL
    {"nccl",
     "cuprim_nccl_reduce, _scan, _histogram_even of 2^30 f32 over 1..P GPUs: strong scaling "
     "(P = the visible GPUs, at most 8)",
     run_nccl_suite},
#endif
};

constexpr int kReadThreads = 256;
constexpr uint64_t kCeilingN = uint64_t(1) << 28; /* f32 elements of the ceiling measurements */

/* ---------------------------------------------------------------- kernels */

/* Reads n4 16-byte vectors and adds them up; four independent loads in flight per thread. The
 * store never happens (`never` is -1 and the sums of the data read are not), but the compiler
 * cannot know, so it keeps every load. */
__global__ void __launch_bounds__(kReadThreads)
    read_only_kernel(const float4 *__restrict__ in, uint64_t n4, float never,
                     float *__restrict__ sink) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (; i + 3 * stride < n4; i += 4 * stride) {
    const float4 a = __ldg(in + i), b = __ldg(in + i + stride);
    const float4 c = __ldg(in + i + 2 * stride), d = __ldg(in + i + 3 * stride);
    acc += ((a.x + a.y) + (a.z + a.w)) + ((b.x + b.y) + (b.z + b.w)) + ((c.x + c.y) + (c.z + c.w)) +
           ((d.x + d.y) + (d.z + d.w));
  }
  for (; i < n4; i += stride) {
    const float4 a = __ldg(in + i);
    acc += (a.x + a.y) + (a.z + a.w);
  }
  if (acc == never)
    sink[blockIdx.x] = acc;
}

__global__ void fill_f32_kernel(float *d, uint64_t n, uint64_t seed) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    d[i] = (float)hr_unit24(hr_element_bits(seed, i)); /* k * 2^-24, k < 2^24: exact */
}

__global__ void fill_i32_kernel(int32_t *d, uint64_t n, uint64_t seed) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    d[i] = (int32_t)(hr_element_bits(seed, i) >> 60) - 8; /* [-8, 8) */
}

/* Integer sums are exact and independent of order, so atomics are fine here. */
__device__ inline void add_warp_total(unsigned long long acc, unsigned long long *total) {
  for (int off = 16; off > 0; off /= 2)
    acc += __shfl_down_sync(0xffffffffu, acc, off);
  if ((threadIdx.x & 31) == 0)
    atomicAdd(total, acc);
}

__global__ void exact_sum_f32_kernel(const float *d, uint64_t n, unsigned long long *total) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  unsigned long long acc = 0;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    acc += (unsigned long long)(d[i] * 0x1p24f); /* back to k: exact */
  add_warp_total(acc, total);
}

__global__ void exact_sum_i32_kernel(const int32_t *d, uint64_t n, unsigned long long *total) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  unsigned long long acc = 0;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    acc += (unsigned long long)(long long)d[i]; /* two's complement: wraps like int64 */
  add_warp_total(acc, total);
}

template <class T, class Kernel>
unsigned long long run_exact_sum(Bench &b, Kernel kernel, const T *d, uint64_t n) {
  unsigned long long *d_total = nullptr, h_total = 0;
  BENCH_CHECK(cudaMallocAsync(&d_total, sizeof *d_total, b.stream));
  BENCH_CHECK(cudaMemsetAsync(d_total, 0, sizeof *d_total, b.stream));
  kernel<<<helper_blocks(b), 256, 0, b.stream>>>(d, n, d_total);
  BENCH_CHECK(cudaPeekAtLastError());
  BENCH_CHECK(cudaMemcpyAsync(&h_total, d_total, sizeof h_total, cudaMemcpyDeviceToHost, b.stream));
  BENCH_CHECK(cudaFreeAsync(d_total, b.stream));
  wait_stream(b);
  return h_total;
}

/* The harness's read flush: the read-only kernel over its buffer. Evicts the input of the next
 * call from L2; reading (rather than writing) leaves L2 full of clean lines, so the timed call pays
 * no write-backs of the flush's own data; whatever the previous call left dirty is written back
 * here, untimed. */
int read_flush(void *user, cudaStream_t stream, const void *d_buf, size_t bytes) {
  const Bench &b = *static_cast<const Bench *>(user);
  read_only_kernel<<<b.read_blocks, kReadThreads, 0, stream>>>((const float4 *)d_buf, bytes / 16,
                                                               -1.0f, b.d_sink);
  BENCH_CHECK(cudaPeekAtLastError());
  return 0;
}

/* ---------------------------------------------------------------- output */

void write_csv(const Bench &b) {
  if (!g_csv)
    return;
  std::fprintf(g_csv, "%s", g_header.c_str()); /* every line starts with "# " */
  std::fprintf(g_csv, "suite,primitive,alg,dtype,n,impl,samples,median_us,min_us,gbps,"
                      "pct_read_bw,pct_copy_bw,ratio_vs_cub,rel_err,check\n");
  auto num = [](double x, const char *f) {
    return std::isnan(x) ? std::string() : strprintf(f, x);
  };
  /* A text field as RFC 4180 has it: quoted (its quotes doubled) where it holds a comma, a quote
   * or a line break (CUB's "MultiHistogramEven<4,4>", a check's message). */
  auto text = [](const std::string &s) {
    if (s.find_first_of(",\"\n") == std::string::npos)
      return s;
    std::string q = "\"";
    for (char c : s)
      q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  for (const Row &r : b.rows)
    std::fprintf(g_csv, "%s,%s,%s,%s,%llu,%s,%d,%s,%s,%s,%s,%s,%s,%s,%s\n", text(r.suite).c_str(),
                 text(r.primitive).c_str(), text(r.alg).c_str(), text(r.dtype).c_str(),
                 (unsigned long long)r.n, text(r.impl).c_str(), r.samples,
                 num(r.median_us, "%.3f").c_str(), num(r.min_us, "%.3f").c_str(),
                 num(r.gbps, "%.2f").c_str(), num(r.pct_read_bw, "%.2f").c_str(),
                 num(r.pct_copy_bw, "%.2f").c_str(), num(r.ratio_vs_cub, "%.4f").c_str(),
                 num(r.rel_err, "%.3e").c_str(), text(r.check).c_str());
  std::fclose(g_csv);
  g_csv = nullptr;
}

/* The header, every table finished so far, and a last line with the verdict. */
void print_summary(const Bench &b, const char *verdict) {
  std::fflush(stderr);
  std::printf("\n%s%s", g_header.c_str(), b.report.c_str());
  if (!b.pending.empty())
    std::printf("%s(incomplete: the run stopped here)\n", b.pending.c_str());
  std::printf("\n%s\n", verdict);
  std::fflush(stdout);
}

/* ---------------------------------------------------------------- setup */

void usage(FILE *f) {
  std::fprintf(f, "usage: cuprim-bench [--csv FILE] [--quick] [--only SUITE] [--samples N]"
                  " [--flush read|memset] [--offset K]\n"
                  "  --csv FILE   write every measurement as a CSV row to FILE\n"
                  "  --quick      a reduced set of sizes (smoke test)\n"
                  "  --only SUITE run one suite:");
  for (const Suite &s : kSuites)
    std::fprintf(f, " %s", s.name);
  std::fprintf(f,
               "\n  --samples N  timed samples per measurement, median reported (default 51)\n"
               "  --flush M    how L2 is flushed before each sample: read (default: a read-only\n"
               "               kernel over 2x the L2) or memset (cudaMemsetAsync of 4x the L2,\n"
               "               at least 200 MiB, on the timed stream)\n"
               "  --offset K   the reduce, scan and histogram inputs start K elements (0..63)\n"
               "               past an aligned address: 1 times a misaligned input\n"
               "  --prealloc   cuprim's context takes its temporary memory from one buffer\n"
               "               allocated before the timing (as CUB's is), not from the default\n"
               "               stream-ordered pool: what the allocation calls cost\n");
}

/* *out = the integer `text` of option `name` if it lies in lo..hi (returns true); else says so
 * and returns false. An empty text is not a number. */
bool int_option(const char *name, const char *text, long lo, long hi, int *out) {
  char *end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < lo || v > hi) {
    std::fprintf(stderr, "cuprim-bench: %s wants an integer in %ld..%ld\n", name, lo, hi);
    return false;
  }
  *out = (int)v;
  return true;
}

/* Returns 0 to go on, or the exit status. */
int parse_args(int argc, char **argv, Options *opt) {
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(a, "--quick")) {
      opt->quick = true;
    } else if (!std::strcmp(a, "--csv") && has_value) {
      opt->csv_path = argv[++i];
    } else if (!std::strcmp(a, "--only") && has_value) {
      opt->only = argv[++i];
      bool known = false;
      for (const Suite &s : kSuites)
        known = known || !std::strcmp(s.name, opt->only);
      if (!known) {
        std::fprintf(stderr, "cuprim-bench: unknown suite '%s'\n", opt->only);
        usage(stderr);
        return 2;
      }
    } else if (!std::strcmp(a, "--samples") && has_value) {
      if (!int_option(a, argv[++i], 1, 10000, &opt->samples))
        return 2;
    } else if (!std::strcmp(a, "--flush") && has_value) {
      const char *m = argv[++i];
      if (!std::strcmp(m, "read")) {
        opt->flush = GT_FLUSH_READ;
      } else if (!std::strcmp(m, "memset")) {
        opt->flush = GT_FLUSH_MEMSET;
      } else {
        std::fprintf(stderr, "cuprim-bench: --flush wants read or memset, not '%s'\n", m);
        return 2;
      }
    } else if (!std::strcmp(a, "--offset") && has_value) {
      if (!int_option(a, argv[++i], 0, 63, &opt->offset))
        return 2;
    } else if (!std::strcmp(a, "--prealloc")) {
      opt->prealloc = true;
    } else if (!std::strcmp(a, "--help") || !std::strcmp(a, "-h")) {
      usage(stdout);
      std::exit(0);
    } else {
      std::fprintf(stderr, "cuprim-bench: bad argument '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }
  return 0;
}

std::string version_text(int v) { return strprintf("%d.%d", v / 1000, (v % 1000) / 10); }

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char s[32];
  std::strftime(s, sizeof s, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return s;
}

/* --prealloc: an allocator over one device buffer allocated up front. The bench enqueues every
 * call on one stream, so a call's temporary memory is free again when the next call starts:
 * the buffer is handed out from its start whenever nothing of it is held (a bump pointer while
 * a call holds several pieces); what does not fit goes to cudaMallocAsync. */
struct Prealloc {
  char *base = nullptr;
  size_t cap = 0, used = 0;
  int held = 0;
};
Prealloc g_prealloc;

void *prealloc_alloc(void *user, size_t bytes, cudaStream_t stream) {
  Prealloc &p = *static_cast<Prealloc *>(user);
  if (p.held == 0)
    p.used = 0;
  const size_t at = (p.used + 255) / 256 * 256;
  if (at + bytes <= p.cap) {
    p.used = at + bytes;
    ++p.held;
    return p.base + at;
  }
  void *d = nullptr;
  return cudaMallocAsync(&d, bytes, stream) == cudaSuccess ? d : nullptr;
}

void prealloc_free(void *user, void *ptr, size_t bytes, cudaStream_t stream) {
  (void)bytes;
  Prealloc &p = *static_cast<Prealloc *>(user);
  char *c = static_cast<char *>(ptr);
  if (c >= p.base && c < p.base + p.cap)
    --p.held;
  else
    (void)cudaFreeAsync(ptr, stream);
}

void setup(Bench &b) {
  BENCH_CHECK(cudaSetDevice(b.device));
  BENCH_CHECK(cudaGetDeviceProperties(&b.prop, b.device));
  BENCH_CHECK(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking));
  cuprim_allocator pre{prealloc_alloc, prealloc_free, &g_prealloc};
  if (b.opt.prealloc) {
    g_prealloc.cap = (size_t)512 << 20;
    BENCH_CHECK(cudaMalloc(&g_prealloc.base, g_prealloc.cap));
  }
  const cuprim_status s = cuprim_ctx_create(&b.ctx, b.device, b.opt.prealloc ? &pre : nullptr);
  if (s != CUPRIM_SUCCESS)
    bench_fatal(__FILE__, __LINE__, std::string("cuprim_ctx_create: ") + cuprim_error_text(s));

  int per_sm = 0;
  BENCH_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_only_kernel, kReadThreads, 0));
  b.read_blocks = std::max(1, per_sm) * b.prop.multiProcessorCount;
  BENCH_CHECK(cudaMalloc(&b.d_sink, sizeof(float) * (size_t)b.read_blocks));

  gt_config cfg{};
  cfg.stream = b.stream;
  cfg.warmup = b.opt.warmup;
  cfg.samples = b.opt.samples;
  cfg.timeout_s = b.opt.timeout_s;
  cfg.flush = b.opt.flush;
  cfg.flush_read = read_flush;
  cfg.flush_user = &b;
  if (const int rc = gt_create(&b.timer, b.device, &cfg))
    timer_fatal(b, __FILE__, __LINE__, rc);
  BENCH_CHECK(cudaDeviceSynchronize());
}

/* The two ceilings at 2^28 f32: D2D copy (bytes read + written) and the read-only kernel. */
void measure_ceilings(Bench &b) {
  const size_t bytes = kCeilingN * sizeof(float);
  float *d_a = nullptr, *d_b = nullptr;
  BENCH_CHECK(cudaMalloc(&d_a, bytes));
  BENCH_CHECK(cudaMalloc(&d_b, bytes));
  fill_random(b, d_a, kCeilingN, kSeed);

  const Timing copy = time_copy(b, d_b, d_a, bytes);
  const Timing read = time_read_only(b, d_a, bytes);
  b.copy_gbps = gbps_of(2.0 * (double)bytes, copy.median_us);
  b.read_gbps = gbps_of((double)bytes, read.median_us);

  /* Each ceiling is 100% of itself by definition (not by a division that may round). */
  Row r = timed_row(b, "ceiling", "copy", "memcpy_d2d_read+write", "f32", kCeilingN, "cuda", copy,
                    2.0 * (double)bytes);
  r.check = "-";
  r.pct_copy_bw = 100.0;
  b.rows.push_back(r);
  r = timed_row(b, "ceiling", "read", "read_only_kernel", "f32", kCeilingN, "bench", read,
                (double)bytes);
  r.check = "-";
  r.pct_read_bw = 100.0;
  b.rows.push_back(r);

  BENCH_CHECK(cudaFree(d_a));
  BENCH_CHECK(cudaFree(d_b));
}

void build_header(const Bench &b) {
  int driver = 0, runtime = 0, mem_khz = 0, bus_bits = 0;
  BENCH_CHECK(cudaDriverGetVersion(&driver));
  BENCH_CHECK(cudaRuntimeGetVersion(&runtime));
  /* Not every device reports these; the theoretical bandwidth is then left out. */
  if (cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, b.device) != cudaSuccess ||
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, b.device) != cudaSuccess)
    mem_khz = bus_bits = 0;
  (void)cudaGetLastError();
  const double peak_gbps = 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  g_header = strprintf(
      "# cuprim-bench | cuprim %s | %s | sm_%d%d, %d SMs, L2 %.1f MiB, %.1f GiB | driver %s, "
      "runtime %s, CUB %d.%d.%d | %s\n",
      cuprim_version_string(), b.prop.name, b.prop.major, b.prop.minor, b.prop.multiProcessorCount,
      b.prop.l2CacheSize / 1048576.0, (double)b.prop.totalGlobalMem / 1073741824.0,
      version_text(driver).c_str(), version_text(runtime).c_str(), CUB_MAJOR_VERSION,
      CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION, utc_now().c_str());
  g_header +=
      strprintf("# ceilings at 2^28 f32: read-only kernel %.0f GB/s, D2D copy %.0f GB/s "
                "(read + write)%s\n",
                b.read_gbps, b.copy_gbps,
                peak_gbps > 0 ? strprintf("; DRAM theoretical %.0f GB/s", peak_gbps).c_str() : "");
  const std::string flush = b.opt.flush == GT_FLUSH_MEMSET
                                ? strprintf("cudaMemsetAsync of %.0f MiB on the timed stream",
                                            b.timer.flush_bytes / 1048576.0)
                                : strprintf("read %.0f MiB", b.timer.flush_bytes / 1048576.0);
  g_header += strprintf(
      "# method: L2 flushed before every sample (%s), CUDA events on "
      "a non-blocking stream around the call only, %d warm-up calls, median of "
      "%d samples, seed %llu%s%s%s\n",
      flush.c_str(), b.opt.warmup, b.opt.samples, (unsigned long long)kSeed,
      b.opt.quick ? ", --quick" : "",
      b.opt.offset ? strprintf(", inputs at element offset %d (--offset)", b.opt.offset).c_str()
                   : "",
      b.opt.prealloc ? ", cuprim's temporary memory preallocated (--prealloc)" : "");
}

} // namespace

/* ---------------------------------------------------------------- harness (bench.cuh) */

volatile std::sig_atomic_t g_bench_stop = 0;

void bench_fatal(const char *file, int line, const std::string &what) {
  std::fprintf(stderr, "cuprim-bench: %s:%d: %s\n", file, line, what.c_str());
  if (g_bench) {
    write_csv(*g_bench);
    print_summary(*g_bench, strprintf("cuprim-bench: STOPPED at %s:%d: %s (tables above are "
                                      "the complete ones; the CSV holds every row so far)",
                                      file, line, what.c_str())
                                .c_str());
  }
  std::fflush(stdout);
  std::fflush(stderr);
  /* _exit: with a faulted or hung context, the runtime's teardown must not run. */
  _exit(1);
}

const char *cuprim_error_text(cuprim_status s) {
  static std::string text;
  text = cuprim_status_string(s);
  if (s == CUPRIM_ERROR_CUDA)
    text += std::string(" (") + cudaGetErrorName(cuprim_last_cuda_error()) + ")";
  return text.c_str();
}

void timer_fatal(Bench &b, const char *file, int line, int rc) {
  if (rc == GT_ERROR_CUDA)
    bench_fatal(file, line,
                std::string(b.timer.what) + ": " + cudaGetErrorName(b.timer.error) + ": " +
                    cudaGetErrorString(b.timer.error));
  bench_fatal(file, line, b.timer.what);
}

void wait_stream(Bench &b) {
  if (const int rc = gt_wait(&b.timer))
    timer_fatal(b, __FILE__, __LINE__, rc);
}

Timing time_copy(Bench &b, void *d_dst, const void *d_src, size_t bytes) {
  gt_timing g{};
  const int rc = gt_time_copy(&b.timer, d_dst, d_src, bytes, &g);
  if (rc)
    timer_fatal(b, __FILE__, __LINE__, rc);
  Timing t;
  t.samples = g.samples;
  t.median_us = g.median_us;
  t.min_us = g.min_us;
  return t;
}

Timing time_read_only(Bench &b, const void *d, size_t bytes) {
  /* float4 loads: from the 16-byte boundary at or below d (an --offset input), over its bytes. */
  const uintptr_t down = (uintptr_t)d % 16;
  d = (const char *)d - down;
  const uint64_t n4 = (bytes + down) / 16;
  const unsigned blocks =
      (unsigned)std::min<uint64_t>((uint64_t)b.read_blocks, (n4 + kReadThreads - 1) / kReadThreads);
  return time_call(b, [&]() -> const char * {
    read_only_kernel<<<std::max(1u, blocks), kReadThreads, 0, b.stream>>>((const float4 *)d, n4,
                                                                          -1.0f, b.d_sink);
    const cudaError_t e = cudaPeekAtLastError();
    return e == cudaSuccess ? nullptr : cudaGetErrorString(e);
  });
}

void fill_random(Bench &b, float *d, uint64_t n, uint64_t seed) {
  fill_f32_kernel<<<helper_blocks(b), 256, 0, b.stream>>>(d, n, seed);
  BENCH_CHECK(cudaPeekAtLastError());
  wait_stream(b);
}

void fill_random(Bench &b, int32_t *d, uint64_t n, uint64_t seed) {
  fill_i32_kernel<<<helper_blocks(b), 256, 0, b.stream>>>(d, n, seed);
  BENCH_CHECK(cudaPeekAtLastError());
  wait_stream(b);
}

double exact_sum(Bench &b, const float *d, uint64_t n) {
  return std::ldexp((double)run_exact_sum(b, exact_sum_f32_kernel, d, n), -24);
}

double exact_sum(Bench &b, const int32_t *d, uint64_t n) {
  return (double)(int32_t)(uint32_t)run_exact_sum(b, exact_sum_i32_kernel, d, n);
}

unsigned helper_blocks(const Bench &b) { return (unsigned)b.prop.multiProcessorCount * 8; }

std::string fmt_n(uint64_t n) {
  char buf[32];
  hr_format_count(n, buf, sizeof buf);
  return buf;
}

SuiteSizes suite_sizes(const Bench &b, std::vector<int> ladders) {
  SuiteSizes z;
  if (b.opt.quick) {
    z.sweep = {10, 20, 28};
    z.ladders = {22};
  } else {
    for (int k = 10; k <= 28; k += 2)
      z.sweep.push_back(k);
    z.ladders = std::move(ladders);
  }
  z.max_n = uint64_t(1) << std::max(z.sweep.back(), z.ladders.back());
  return z;
}

Row timed_row(const Bench &b, const char *suite, const std::string &primitive, const char *alg,
              const char *dtype, uint64_t n, const char *impl, const Timing &t, double bytes) {
  Row r{suite, primitive, alg, dtype, n, impl, t.samples, t.median_us, t.min_us};
  r.gbps = gbps_of(bytes, t.median_us);
  r.pct_read_bw = pct_of(r.gbps, b.read_gbps);
  r.pct_copy_bw = pct_of(r.gbps, b.copy_gbps);
  return r;
}

std::string add_sweep_rows(Bench &b, const Row &cuprim, const Row &cub, Row ref,
                           const char *cub_against) {
  ref.ratio_vs_cub = cub.median_us / ref.median_us;
  ref.check = "-";
  b.rows.push_back(cuprim);
  b.rows.push_back(cub);
  b.rows.push_back(ref);
  std::string check = cuprim.check;
  if (cub.check != "ok")
    check += strprintf(" | %s: %s", cub_against, cub.check.c_str());
  return check;
}

void finish_table(Bench &b) {
  std::fprintf(stderr, "\n");
  b.report += b.pending;
  b.pending.clear();
}

void LadderTable::header() {
  *table +=
      strprintf("%2s  %-*s %10s %9s %6s %7s %8s %7s  %s\n", "#", name_width, "algorithm", "time_us",
                "GB/s", of_copy ? "%copy" : "%read", "step", "cumul", "vs_cub", "check");
}

void LadderTable::line(const char *num, const char *name, const Row &r, bool first) {
  if (first)
    first_us = r.median_us;
  const double step = prev_us / r.median_us, cumul = first_us / r.median_us;
  *table += strprintf("%2s  %-*s %10s %9s %6s %7s %8s %7s  %s\n", num, name_width, name,
                      fmt_num(r.median_us, 2).c_str(), fmt_num(r.gbps, 1).c_str(),
                      fmt_num(of_copy ? r.pct_copy_bw : r.pct_read_bw, 1).c_str(),
                      std::isnan(step) ? "-" : strprintf("%.2fx", step).c_str(),
                      std::isnan(cumul) ? "-" : strprintf("%.2fx", cumul).c_str(),
                      fmt_num(r.ratio_vs_cub, 3).c_str(), r.check.c_str());
  if (!std::isnan(r.median_us))
    prev_us = r.median_us;
}

std::string fmt_num(double x, int decimals) {
  return std::isnan(x) ? std::string("-") : strprintf("%.*f", decimals, x);
}

std::string strprintf(const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  const int len = std::vsnprintf(nullptr, 0, fmt, ap);
  va_end(ap);
  std::string s(len > 0 ? (size_t)len : 0, '\0');
  if (len > 0)
    std::vsnprintf(&s[0], (size_t)len + 1, fmt, ap2);
  va_end(ap2);
  return s;
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv) {
  Bench b;
  if (const int rc = parse_args(argc, argv, &b.opt))
    return rc;

  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::fprintf(stderr, "cuprim-bench: no CUDA device available (%s)\n",
                 e != cudaSuccess ? cudaGetErrorString(e) : "device count is 0");
    return 2;
  }
  if (b.opt.csv_path && !(g_csv = std::fopen(b.opt.csv_path, "w"))) {
    std::fprintf(stderr, "cuprim-bench: cannot write %s: %s\n", b.opt.csv_path,
                 std::strerror(errno));
    return 2;
  }

  g_bench = &b;
  std::signal(SIGTERM, [](int) { g_bench_stop = 1; });
  std::signal(SIGINT, [](int) { g_bench_stop = 1; });
  setup(b);
  std::fprintf(stderr, "cuprim-bench: %s, measuring ceilings...\n", b.prop.name);
  measure_ceilings(b);
  build_header(b);
  std::fprintf(stderr, "%s", g_header.c_str());

  for (const Suite &s : kSuites) {
    if (b.opt.only && std::strcmp(b.opt.only, s.name))
      continue;
    std::fprintf(stderr, "cuprim-bench: suite %s: %s\n", s.name, s.what);
    s.run(b);
  }

  write_csv(b);
  const std::string verdict =
      b.failures ? strprintf("cuprim-bench: %d FAILED check(s) or call(s): see the check column",
                             b.failures)
                 : std::string("cuprim-bench: all checks ok");
  print_summary(b, verdict.c_str());
  g_bench = nullptr;
  gt_destroy(&b.timer);
  cuprim_ctx_destroy(b.ctx);
  if (g_prealloc.base)
    (void)cudaFree(g_prealloc.base);
  return b.failures ? 1 : 0;
}
