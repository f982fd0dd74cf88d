/* cuprim-bench's frame, shared by its suites: run state, the timer (harness/gpu_timer.h, the
 * timing harness the cuprim program uses too), result rows and the reference helpers (seeded fills
 * and exact sums).
 *
 * Method (docs and STYLE.md "Benchmarks"): every sample is preceded by an L2 flush; CUDA events
 * are recorded on a non-blocking stream around only the call being timed; warm-up calls come
 * first; the reported time is the median of the samples (gpu_timer.h says how). A suite owns its
 * buffers, times cuprim and CUB on the same input in the same process, checks every timed result
 * once, appends rows (CSV) and a human-readable table (printed at the end, so that it survives
 * output truncation).
 *
 * The bench is a program, not the library: a failing CUDA call prints file:line and exits. */
#ifndef CUPRIM_BENCH_CUH
#define CUPRIM_BENCH_CUH

#include <cuprim/cuprim.h>

#include "gpu_timer.h"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

/* ---------------------------------------------------------------- errors */

/* Prints "file:line: what", the tables and rows gathered so far, and exits with status 1. */
[[noreturn]] void bench_fatal(const char *file, int line, const std::string &what);

#define BENCH_CHECK(call)                                                                          \
  do {                                                                                             \
    const cudaError_t bench_err_ = (call);                                                         \
    if (bench_err_ != cudaSuccess)                                                                 \
      bench_fatal(__FILE__, __LINE__,                                                              \
                  std::string(#call) + ": " + cudaGetErrorName(bench_err_) + ": " +                \
                      cudaGetErrorString(bench_err_));                                             \
  } while (0)

/* "CUPRIM_ERROR_CUDA (cudaErrorX: ...)" and the like: the text of a failed cuprim call. Static
 * storage, valid until the next call (the bench runs on one thread). */
const char *cuprim_error_text(cuprim_status s);

/* ---------------------------------------------------------------- run state */

struct Options {
  const char *csv_path = nullptr; /* --csv FILE */
  bool quick = false;             /* --quick: a reduced set, for a smoke test */
  const char *only = nullptr;     /* --only SUITE */
  int samples = 51;               /* --samples N: timed samples per measurement */
  int warmup = 3;                 /* untimed calls before the samples */
  double timeout_s = 60.0;        /* one batch of samples longer than this is treated as a hang */
  gt_flush_method flush = GT_FLUSH_READ; /* --flush read|memset: how L2 is flushed */
};

/* One result: a CSV row. NaN in a number means "not applicable" (an empty CSV field). */
struct Row {
  std::string suite;     /* "ceiling", "reduce", "reduce_ladder", "scan", "histogram", ... */
  std::string primitive; /* "reduce_sum", "scan_inclusive_sum", "histogram_even_256", "copy" */
  std::string alg;       /* cuprim algorithm name, or what the reference is */
  std::string dtype;     /* "f32", "i32", "u8" */
  uint64_t n = 0;
  std::string impl; /* "cuprim", "cub", "cuda", "bench" */
  int samples = 0;
  double median_us = NAN, min_us = NAN;
  double gbps = NAN;         /* bytes moved / median time */
  double pct_read_bw = NAN;  /* gbps / measured read-only-kernel bandwidth (2^28 f32) */
  double pct_copy_bw = NAN;  /* gbps / measured D2D copy bandwidth (2^28 f32, read + write) */
  double ratio_vs_cub = NAN; /* cub_us / this row's us: > 1 means faster than CUB */
  double rel_err = NAN;      /* |result - exact| / max(|exact|, 1) against an exact reference
                                (reduce: the sum; scan: the largest over the elements;
                                histogram: none, counts are checked exactly) */
  std::string check;         /* "ok", "FAIL", "ERROR: ...", or "-" */
};

struct Bench {
  Options opt;
  int device = 0;
  cudaDeviceProp prop{};
  cudaStream_t stream = nullptr; /* non-blocking: every timed call runs here */
  cuprim_ctx *ctx = nullptr;     /* created once; its pool stays warm between calls */

  gt_timer timer{};        /* flush buffer, events, warm-up and samples (opt's) */
  float *d_sink = nullptr; /* the never-taken store of the read-only kernel */
  int read_blocks = 0;     /* resident blocks of the read-only kernel on the whole GPU */

  double read_gbps = NAN; /* the ceilings, measured before the suites */
  double copy_gbps = NAN;

  std::vector<Row> rows;
  std::string report;  /* finished tables, printed last */
  std::string pending; /* the table being filled; printed as incomplete if the run stops */
  int failures = 0;    /* failed checks and failed cuprim calls */
};

/* The suites: a name for --only and a function that runs it (kSuites in bench_main.cu). */
struct Suite {
  const char *name;
  const char *what;
  void (*run)(Bench &b);
};
void run_reduce_suite(Bench &b);
void run_scan_suite(Bench &b);
void run_histogram_suite(Bench &b);
void run_histogram_multi_suite(Bench &b);    /* bench_histogram_multi.cu */
void run_histogram_weighted_suite(Bench &b); /* bench_histogram_multi.cu */
#if CUPRIM_BENCH_NCCL
void run_nccl_suite(Bench &b); /* bench_nccl.cu, where the NCCL component is built */
#endif

/* ---------------------------------------------------------------- timing */

struct Timing {
  int samples = 0;
  double median_us = NAN, min_us = NAN;
  std::string error; /* non-empty: a call failed and nothing was timed */
  bool ok() const { return error.empty() && samples > 0; }
};

/* A failure of the timer itself (rc < 0 from gpu_timer.h): prints what failed and exits. */
[[noreturn]] void timer_fatal(Bench &b, const char *file, int line, int rc);

/* Waits for everything enqueued on b.stream, polling, and treats more than opt.timeout_s as a
 * hang (bench_fatal). Reports asynchronous errors. */
void wait_stream(Bench &b);

/* Times `call` (a callable returning nullptr on success or the text of an error) with the
 * harness: opt.warmup untimed calls, then opt.samples samples of [flush L2, record start, call,
 * record stop], all on b.stream. Only the call lies between the events. The flush is opt.flush:
 * the read-only kernel over max(2 x L2, 64 MiB) (the default), or a cudaMemsetAsync of
 * max(4 x L2, 200 MiB) on the same stream. */
template <class Call> Timing time_call(Bench &b, Call &&call) {
  struct Job {
    std::remove_reference_t<Call> *call;
    std::string error;
  } job{&call, {}};
  const gt_fn fn = [](void *user, cudaStream_t) -> int {
    Job &j = *static_cast<Job *>(user);
    if (const char *e = (*j.call)()) {
      j.error = e;
      return 1;
    }
    return 0;
  };
  gt_timing g{};
  const int rc = gt_time(&b.timer, fn, &job, &g);
  Timing t;
  if (rc > 0) {
    t.error = job.error;
    return t;
  }
  if (rc < 0)
    timer_fatal(b, __FILE__, __LINE__, rc);
  t.samples = g.samples;
  t.median_us = g.median_us;
  t.min_us = g.min_us;
  return t;
}

/* A device-to-device copy of `bytes` from d_src to d_dst, timed like everything else. */
Timing time_copy(Bench &b, void *d_dst, const void *d_src, size_t bytes);

/* The plain read-only kernel (16-byte loads, grid-stride, a never-taken store) over `bytes`
 * bytes at d (16-byte aligned, bytes a multiple of 16), timed like everything else. */
Timing time_read_only(Bench &b, const void *d, size_t bytes);

/* ---------------------------------------------------------------- data and references */

/* The element types the suites time, with cuprim's name for each. */
template <class T> struct DType;
template <> struct DType<float> {
  static constexpr cuprim_dtype id = CUPRIM_F32;
  static constexpr const char *name = "f32";
  static constexpr bool is_float = true;
};
template <> struct DType<int32_t> {
  static constexpr cuprim_dtype id = CUPRIM_I32;
  static constexpr const char *name = "i32";
  static constexpr bool is_float = false;
};
template <> struct DType<uint8_t> {
  static constexpr cuprim_dtype id = CUPRIM_U8;
  static constexpr const char *name = "u8";
  static constexpr bool is_float = false;
};

/* splitmix64 of (seed, i): element i of every fill depends on nothing else, so a prefix of a
 * filled buffer is the same data as a shorter fill, and a reference can recompute any element. */
__host__ __device__ inline uint64_t mix64(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* A grid for the bench's own helper kernels (fills, checks): enough to fill the GPU. */
unsigned helper_blocks(const Bench &b);

/* Seeded random fills on b.stream: f32 uniform in [0, 1) with 24 random bits (k * 2^-24), i32
 * uniform in [-8, 8). Element i depends only on (seed, i), so a prefix is the same data. */
void fill_random(Bench &b, float *d, uint64_t n, uint64_t seed);
void fill_random(Bench &b, int32_t *d, uint64_t n, uint64_t seed);

/* The exact sum of d[0..n), computed in 64-bit integers on the device (order cannot matter), as
 * a double. Exact for fill_random's data: f32 values are k * 2^-24, so every partial sum below
 * 2^29 elements fits a double's 53 bits; i32 sums are returned wrapped to 32 bits, as the
 * primitives compute them. */
double exact_sum(Bench &b, const float *d, uint64_t n);
double exact_sum(Bench &b, const int32_t *d, uint64_t n);

/* ---------------------------------------------------------------- rows and formatting */

constexpr uint64_t kSeed = 20261105;

inline double gbps_of(double bytes, double us) { return gt_gbps(bytes, us); }
inline double pct_of(double x, double ceiling) { return 100.0 * x / ceiling; }

/* "2^22" for a power of two, else the number. */
std::string fmt_n(uint64_t n);
/* "%.*f" of x, or "-" for NaN. */
std::string fmt_num(double x, int decimals);
/* printf into a std::string. */
std::string strprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* CUPRIM_BENCH_CUH */
