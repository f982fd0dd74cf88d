/* cuprim-bench's frame, shared by its suites: run state, the timer (harness/gpu_timer.h, the
 * timing harness the cuprim program uses too), result rows, ladder tables and the reference
 * helpers (seeded fills and exact sums). The seeded data, dtype and algorithm names are the host
 * references' (harness/hostref.h), shared with the tests and the cuprim program.
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
#include "hostref.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <csignal>
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

/* Set by SIGTERM or SIGINT (`timeout S cuprim-bench ...`): the next timed call stops the run the
 * way bench_fatal does, so that the tables and the CSV rows measured so far are kept. */
extern volatile std::sig_atomic_t g_bench_stop;

/* ---------------------------------------------------------------- run state */

struct Options {
  const char *csv_path = nullptr; /* --csv FILE */
  bool quick = false;             /* --quick: a reduced set, for a smoke test */
  const char *only = nullptr;     /* --only SUITE */
  int samples = 51;               /* --samples N: timed samples per measurement */
  int warmup = 3;                 /* untimed calls before the samples */
  double timeout_s = 60.0;        /* one batch of samples longer than this is treated as a hang */
  gt_flush_method flush = GT_FLUSH_READ; /* --flush read|memset: how L2 is flushed */
  int offset = 0;        /* --offset K: the reduce, scan and histogram inputs start K elements past
                            their allocation's (aligned) start, e.g. 1 for a 4-byte misalignment */
  bool prealloc = false; /* --prealloc: cuprim's temporary memory from a buffer allocated once */
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
void run_half_suite(Bench &b);               /* bench_half.cu: 0.2's 16-bit floats */
void run_arg_suite(Bench &b);                /* bench_half.cu: 0.2's arg-reduce */
void run_histogram_multi_suite(Bench &b);    /* bench_histogram_multi.cu */
void run_histogram_weighted_suite(Bench &b); /* bench_histogram_multi.cu */
void run_segmented_suite(Bench &b);
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

/* The check column of a timed call: the call's error, or the problem found (`problem`, empty if
 * none), or "ok". Counts failures. */
inline std::string verdict(Bench &b, const Timing &t, const std::string &problem) {
  if (!t.ok()) {
    ++b.failures;
    return "ERROR: " + t.error;
  }
  if (!problem.empty()) {
    ++b.failures;
    return problem;
  }
  return "ok";
}

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
  if (g_bench_stop)
    bench_fatal(__FILE__, __LINE__, "stopped by a signal (TERM or INT)");
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

/* Times `cub(d_temp, temp_bytes)` (a CUB call, which returns a cudaError_t) through time_call,
 * its temporary storage sized and allocated outside the timing; `before()` runs after the
 * allocation, just before the timing (all-ones outputs, say). A failed call is fatal, `name` in
 * the message. */
template <class Cub, class Before>
Timing time_cub_call(Bench &b, const std::string &name, Cub &&cub, Before &&before) {
  size_t temp_bytes = 0;
  BENCH_CHECK(cub(nullptr, temp_bytes));
  void *d_temp = nullptr;
  BENCH_CHECK(cudaMalloc(&d_temp, std::max<size_t>(temp_bytes, 16)));
  before();
  const Timing t = time_call(b, [&]() -> const char * {
    const cudaError_t e = cub(d_temp, temp_bytes);
    return e == cudaSuccess ? nullptr : cudaGetErrorString(e);
  });
  if (!t.ok())
    bench_fatal(__FILE__, __LINE__, name + ": " + t.error);
  BENCH_CHECK(cudaFree(d_temp));
  return t;
}

/* A device-to-device copy of `bytes` from d_src to d_dst, timed like everything else. */
Timing time_copy(Bench &b, void *d_dst, const void *d_src, size_t bytes);

/* The plain read-only kernel (16-byte loads, grid-stride, a never-taken store) over `bytes`
 * bytes at d, timed like everything else: from the 16-byte boundary at or below d, whole
 * 16-byte words only. */
Timing time_read_only(Bench &b, const void *d, size_t bytes);

/* ---------------------------------------------------------------- data and references */

/* The element types the suites time; name() is the library's ("f32"). */
template <class T> struct DType;
template <> struct DType<float> {
  static constexpr cuprim_dtype id = CUPRIM_F32;
  static constexpr bool is_float = true;
};
template <> struct DType<int32_t> {
  static constexpr cuprim_dtype id = CUPRIM_I32;
  static constexpr bool is_float = false;
};
template <> struct DType<uint8_t> {
  static constexpr cuprim_dtype id = CUPRIM_U8;
  static constexpr bool is_float = false;
};
template <class T> const char *dtype_name() { return hr_dtype_name(DType<T>::id); }

/* Every fill draws element i from hr_element_bits(seed, i) (hostref.h): element i depends on
 * nothing else, so a prefix of a filled buffer is the same data as a shorter fill, and a
 * reference can recompute any element. */

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

/* The sizes of a suite: its sweep (2^10 .. 2^28 in steps of 4x; --quick: 2^10, 2^20, 2^28) and
 * its ladders (`ladders`; --quick: 2^22), as log2 n, and the largest n of either. */
struct SuiteSizes {
  std::vector<int> sweep, ladders;
  uint64_t max_n;
};
SuiteSizes suite_sizes(const Bench &b, std::vector<int> ladders);

/* A CSV row for one measurement of `bytes` bytes moved: the timing, GB/s and the share of each
 * ceiling. The ratio to CUB, the error and the check are the suite's to fill. */
Row timed_row(const Bench &b, const char *suite, const std::string &primitive, const char *alg,
              const char *dtype, uint64_t n, const char *impl, const Timing &t, double bytes);

/* The table of a ladder, one line per rung: time, GB/s, the share of one ceiling, the speedup
 * over the rung above (step) and over the first rung (cumul), the ratio to CUB, the check. */
struct LadderTable {
  std::string *table; /* appended to */
  int name_width;     /* of the algorithm column */
  bool of_copy;       /* the % column: of the copy ceiling ("%copy"), else of the read one */
  double first_us = NAN, prev_us = NAN;
  void header();
  /* `first`: the rung that cumul counts from. */
  void line(const char *num, const char *name, const Row &r, bool first = false);
  /* Rows after this one compare with nothing above them. */
  void restart() { first_us = prev_us = NAN; }
};

/* One size of a sweep: cuprim's row, CUB's, and the row of the reference at the same size (the
 * read-only kernel or a copy: its ratio to CUB is filled here, its check is "-"), added to b.rows
 * in that order. Returns the table's check column: cuprim's check, then CUB's when it is not ok
 * (`cub_against`: what CUB was checked against). */
std::string add_sweep_rows(Bench &b, const Row &cuprim, const Row &cub, Row ref,
                           const char *cub_against);

/* A suite's parts for one dtype, in the order of every suite: the sweep(s), the ladders at each
 * of z.ladders, then (not with --quick) the table of AUTO's kernel choices. */
template <class Sweep, class Ladder, class Tune>
void run_parts(const Bench &b, const SuiteSizes &z, Sweep &&sweep, Ladder &&ladder, Tune &&tune) {
  sweep();
  for (const int k : z.ladders)
    ladder(k);
  if (!b.opt.quick)
    tune();
}

/* Calls rung(alg, name) for every algorithm of primitive p in the ladders' order: the textbook
 * rungs in enum order (1, 2, ...), then the tuned default (0); each name goes to the progress
 * line on stderr first. */
template <class Rung> void for_each_rung(hr_primitive p, Rung &&rung) {
  const int count = hr_alg_count(p);
  for (int k = 1; k <= count; ++k) {
    const int alg = k % count;
    std::fprintf(stderr, " %s", hr_alg_name(p, alg));
    rung(alg, hr_alg_name(p, alg));
  }
}

/* Ends the table being filled (b.pending): appends it to the report, ends the progress line. */
void finish_table(Bench &b);

/* "2^22" for a power of two, else the number. */
std::string fmt_n(uint64_t n);
/* "%.*f" of x, or "-" for NaN. */
std::string fmt_num(double x, int decimals);
/* printf into a std::string. */
std::string strprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* CUPRIM_BENCH_CUH */
