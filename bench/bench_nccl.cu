/* The nccl suite (built with the NCCL component): strong scaling of cuprim_nccl_reduce (SUM),
 * cuprim_nccl_scan (inclusive SUM, out of place) and cuprim_nccl_histogram_even (256 bins over
 * [0, 1)) over 1..P GPUs, P the visible GPUs (at most 8): 2^26 and 2^30 f32 elements (2^26: where
 * the launches and the communication show beside the bytes; --quick: 2^24 alone) in
 * even shards, one rank per GPU (a communicator over the first P GPUs, ncclCommInitAll), one
 * thread per rank. With one GPU it measures what the component costs over the local call. Run
 * only when asked for (cuprim-bench --only nccl).
 *
 * Timing: each rank times its calls with the shared harness (harness/gpu_timer.h) on its own GPU
 * and stream: warm-ups, then samples of [flush, event, call, event], the median. The flush is a
 * cudaMemsetAsync on the rank's stream on every GPU (the read-only kernel of the other suites is
 * device 0's), whatever --flush says. The ranks' collectives keep them in step; a row's time is
 * the slowest rank's median. With P = 1 the local calls (cuprim_reduce, cuprim_scan,
 * cuprim_histogram_even) are timed the same way beside them.
 *
 * Checks, once per P after the timed calls: every rank's reduce has the same bits, and those of
 * the ranks' local cuprim_reduce partials combined on the host in rank order (what the component
 * computes); the last element of each rank's scan is within 1e-4 (relative) of the host's prefix
 * through its shard; every rank's histogram is the same and counts all n samples. */
#include "bench.cuh"

#include <cuprim/nccl.h>

#include <algorithm>
#include <cstring>
#include <thread>

namespace {

constexpr int kMaxGpus = 8;
constexpr uint32_t kBins = 256;
constexpr double kScanTolerance = 1e-4;

/* The data of element i of the whole input: k * 2^-24 from (seed, i), as fill_random. */
__global__ void fill_shard_kernel(float *d, uint64_t n, uint64_t first, uint64_t seed) {
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
  for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    d[i] = (float)hr_unit24(hr_element_bits(seed, first + i)); /* k * 2^-24, k < 2^24 */
}

enum Prim { NCCL_REDUCE, NCCL_SCAN, NCCL_HIST, LOCAL_REDUCE, LOCAL_SCAN, LOCAL_HIST, PRIMS };
const char *const kPrimName[PRIMS] = {"reduce_sum", "scan_inclusive_sum", "histogram_even_256",
                                      "reduce_sum", "scan_inclusive_sum", "histogram_even_256"};

struct Rank {
  int device = 0;
  cudaStream_t stream = nullptr;
  cuprim_ctx *ctx = nullptr;
  ncclComm_t comm = nullptr;
  uint64_t first = 0, n = 0; /* its shard of the whole input */
  float *d_in = nullptr, *d_out = nullptr;
  float *d_red = nullptr; /* [0]: the NCCL reduce, [1]: the local reduce (the partial) */
  uint64_t *d_counts = nullptr;
  gt_timer timer{};
  gt_timing t{};
  std::string error; /* non-empty: the timing failed */
};

/* One call of `prim` on rank r. Returns nullptr or the text of the error. */
const char *issue(Rank &r, int prim) {
  cuprim_status s = CUPRIM_SUCCESS;
  switch (prim) {
  case NCCL_REDUCE:
    s = cuprim_nccl_reduce(r.ctx, r.comm, r.d_in, r.d_red, r.n, CUPRIM_F32, CUPRIM_SUM, r.stream);
    break;
  case NCCL_SCAN:
    s = cuprim_nccl_scan(r.ctx, r.comm, r.d_in, r.d_out, r.n, CUPRIM_F32, CUPRIM_SUM,
                         CUPRIM_INCLUSIVE, r.stream);
    break;
  case NCCL_HIST:
    s = cuprim_nccl_histogram_even(r.ctx, r.comm, r.d_in, r.n, CUPRIM_F32, r.d_counts, kBins, 0.0,
                                   1.0, r.stream);
    break;
  case LOCAL_REDUCE:
    s = cuprim_reduce(r.ctx, r.d_in, r.d_red + 1, r.n, CUPRIM_F32, CUPRIM_SUM, r.stream);
    break;
  case LOCAL_SCAN:
    s = cuprim_scan(r.ctx, r.d_in, r.d_out, r.n, CUPRIM_F32, CUPRIM_SUM, CUPRIM_INCLUSIVE,
                    r.stream);
    break;
  default:
    s = cuprim_histogram_even(r.ctx, r.d_in, r.n, CUPRIM_F32, r.d_counts, kBins, 0.0, 1.0,
                              r.stream);
    break;
  }
  if (s == CUPRIM_SUCCESS)
    return nullptr;
  static thread_local std::string text;
  text = cuprim_status_string(s);
  if (s == CUPRIM_ERROR_CUDA)
    text += std::string(" (") + cudaGetErrorName(cuprim_last_cuda_error()) + ")";
  if (s == CUPRIM_ERROR_NCCL)
    text += std::string(" (") + ncclGetErrorString(cuprim_nccl_last_error()) + ")";
  return text.c_str();
}

/* Times `prim` on rank r with the harness (on the rank's own thread). */
void time_rank(Rank &r, int prim) {
  struct Job {
    Rank *r;
    int prim;
    std::string error;
  } job{&r, prim, {}};
  r.error.clear();
  if (cudaSetDevice(r.device) != cudaSuccess) {
    r.error = "cudaSetDevice failed";
    return;
  }
  const gt_fn fn = [](void *user, cudaStream_t) -> int {
    Job &j = *static_cast<Job *>(user);
    if (const char *e = issue(*j.r, j.prim)) {
      j.error = e;
      return 1;
    }
    return 0;
  };
  const int rc = gt_time(&r.timer, fn, &job, &r.t);
  if (rc > 0)
    r.error = job.error;
  else if (rc < 0)
    r.error = strprintf("%s: %s", r.timer.what, cudaGetErrorName(r.timer.error));
}

/* Times `prim` on every rank at once; the slowest rank's median. */
Timing time_ranks(Rank *ranks, int p, int prim) {
  std::vector<std::thread> threads;
  for (int r = 0; r < p; ++r)
    threads.emplace_back(time_rank, std::ref(ranks[r]), prim);
  for (std::thread &t : threads)
    t.join();
  Timing t;
  for (int r = 0; r < p; ++r) {
    if (!ranks[r].error.empty()) {
      t.error = strprintf("rank %d: %s", r, ranks[r].error.c_str());
      return t;
    }
    t.samples = ranks[r].t.samples;
    t.median_us = r == 0 ? ranks[r].t.median_us : std::max(t.median_us, ranks[r].t.median_us);
    t.min_us = r == 0 ? ranks[r].t.min_us : std::max(t.min_us, ranks[r].t.min_us);
  }
  return t;
}

void setup_ranks(Bench &b, Rank *ranks, int p, uint64_t n) {
  ncclComm_t comms[kMaxGpus];
  const int devs[kMaxGpus] = {0, 1, 2, 3, 4, 5, 6, 7}; /* the first p */
  const ncclResult_t nr = ncclCommInitAll(comms, p, devs);
  if (nr != ncclSuccess)
    bench_fatal(__FILE__, __LINE__,
                strprintf("ncclCommInitAll(%d GPUs): %s", p, ncclGetErrorString(nr)));
  for (int r = 0; r < p; ++r) {
    Rank &k = ranks[r];
    k.device = r;
    k.comm = comms[r];
    k.first = n * (uint64_t)r / (uint64_t)p;
    k.n = n * (uint64_t)(r + 1) / (uint64_t)p - k.first;
    BENCH_CHECK(cudaSetDevice(r));
    BENCH_CHECK(cudaStreamCreateWithFlags(&k.stream, cudaStreamNonBlocking));
    const cuprim_status s = cuprim_ctx_create(&k.ctx, r, nullptr);
    if (s != CUPRIM_SUCCESS)
      bench_fatal(__FILE__, __LINE__,
                  strprintf("cuprim_ctx_create(%d): %s", r, cuprim_status_string(s)));
    BENCH_CHECK(cudaMalloc(&k.d_in, k.n * sizeof(float)));
    BENCH_CHECK(cudaMalloc(&k.d_out, k.n * sizeof(float)));
    BENCH_CHECK(cudaMalloc(&k.d_red, 2 * sizeof(float)));
    BENCH_CHECK(cudaMalloc(&k.d_counts, kBins * sizeof(uint64_t)));
    fill_shard_kernel<<<1024, 256, 0, k.stream>>>(k.d_in, k.n, k.first, kSeed);
    BENCH_CHECK(cudaPeekAtLastError());
    gt_config cfg{};
    cfg.stream = k.stream;
    cfg.warmup = b.opt.warmup;
    cfg.samples = b.opt.samples;
    cfg.timeout_s = b.opt.timeout_s;
    cfg.flush = GT_FLUSH_MEMSET;
    if (const int rc = gt_create(&k.timer, r, &cfg))
      bench_fatal(__FILE__, __LINE__,
                  strprintf("gt_create on GPU %d: %s (%s)", r, k.timer.what,
                            cudaGetErrorName(k.timer.error)));
    BENCH_CHECK(cudaStreamSynchronize(k.stream));
  }
  BENCH_CHECK(cudaSetDevice(b.device));
}

void teardown_ranks(Bench &b, Rank *ranks, int p) {
  for (int r = 0; r < p; ++r) {
    Rank &k = ranks[r];
    BENCH_CHECK(cudaSetDevice(k.device));
    BENCH_CHECK(cudaStreamSynchronize(k.stream));
    gt_destroy(&k.timer);
    (void)ncclCommDestroy(k.comm);
    (void)cuprim_ctx_destroy(k.ctx);
    BENCH_CHECK(cudaFree(k.d_in));
    BENCH_CHECK(cudaFree(k.d_out));
    BENCH_CHECK(cudaFree(k.d_red));
    BENCH_CHECK(cudaFree(k.d_counts));
    BENCH_CHECK(cudaStreamDestroy(k.stream));
    k = Rank();
  }
  BENCH_CHECK(cudaSetDevice(b.device));
}

/* The checks of nccl.h's promises on what the timed calls left (see the file comment). Returns
 * "ok" or what failed; counts failures. */
std::string check_results(Bench &b, Rank *ranks, int p, uint64_t n) {
  std::string bad;
  float red[kMaxGpus][2], last[kMaxGpus];
  uint64_t counts[kMaxGpus][kBins];
  for (int r = 0; r < p; ++r) {
    Rank &k = ranks[r];
    BENCH_CHECK(cudaSetDevice(k.device));
    /* The rank's local partial, the NCCL reduce's first step, for the host's combination. */
    if (const char *e = issue(k, LOCAL_REDUCE))
      bad += strprintf(" rank %d: cuprim_reduce: %s;", r, e);
    BENCH_CHECK(cudaMemcpyAsync(red[r], k.d_red, sizeof red[r], cudaMemcpyDeviceToHost, k.stream));
    BENCH_CHECK(cudaMemcpyAsync(&last[r], k.d_out + k.n - 1, sizeof(float), cudaMemcpyDeviceToHost,
                                k.stream));
    BENCH_CHECK(
        cudaMemcpyAsync(counts[r], k.d_counts, sizeof counts[r], cudaMemcpyDeviceToHost, k.stream));
    BENCH_CHECK(cudaStreamSynchronize(k.stream));
  }
  BENCH_CHECK(cudaSetDevice(b.device));
  float combined = 0.0f, prefix = 0.0f;
  uint64_t total = 0;
  for (uint32_t i = 0; i < kBins; ++i)
    total += counts[0][i];
  for (int r = 0; r < p; ++r) {
    combined = r == 0 ? red[0][1] : combined + red[r][1];
    if (std::memcmp(&red[r][0], &red[0][0], sizeof(float)) != 0)
      bad += strprintf(" reduce: rank %d's bits differ from rank 0's;", r);
    if (std::memcmp(counts[r], counts[0], sizeof counts[r]) != 0)
      bad += strprintf(" histogram: rank %d's counts differ from rank 0's;", r);
    /* The scan's last element of rank r: the partials of ranks 0..r, within the tolerance. */
    prefix = r == 0 ? red[0][1] : prefix + red[r][1];
    if (!(std::fabs((double)last[r] - (double)prefix) <=
          kScanTolerance * std::max(1.0, std::fabs((double)prefix))))
      bad += strprintf(" scan: rank %d's last element %.9g, its prefix %.9g;", r, (double)last[r],
                       (double)prefix);
  }
  if (std::memcmp(&red[0][0], &combined, sizeof(float)) != 0)
    bad += strprintf(" reduce: %.9g, the partials combined in rank order %.9g;", (double)red[0][0],
                     (double)combined);
  if (total != n)
    bad += strprintf(" histogram: %llu samples counted of %llu;", (unsigned long long)total,
                     (unsigned long long)n);
  if (bad.empty())
    return "ok";
  ++b.failures;
  return "FAIL" + bad;
}

Row make_row(const Bench &b, int prim, int p, uint64_t n, const Timing &t, double bytes,
             const std::string &check) {
  Row r;
  r.suite = "nccl";
  r.primitive = kPrimName[prim];
  r.alg = prim >= LOCAL_REDUCE ? "local" : strprintf("gpus=%d", p);
  r.dtype = "f32";
  r.n = n;
  r.impl = "cuprim";
  r.samples = t.samples;
  r.median_us = t.median_us;
  r.min_us = t.min_us;
  r.gbps = gbps_of(bytes, t.median_us);
  /* of P times one GPU's ceilings (device 0's, measured before the suites) */
  r.pct_read_bw = pct_of(r.gbps, p * b.read_gbps);
  r.pct_copy_bw = pct_of(r.gbps, p * b.copy_gbps);
  r.check = t.ok() ? check : "ERROR: " + t.error;
  return r;
}

/* One table: n f32 elements over 1..max_p GPUs (and, with one, the local calls). */
void run_nccl_size(Bench &b, int max_p, uint64_t n) {
  const double in_bytes = (double)n * sizeof(float);
  /* bytes moved: reduce and histogram read the input, the scan reads and writes it */
  const double bytes[3] = {in_bytes, 2.0 * in_bytes, in_bytes};
  std::string &table = b.pending;
  table = strprintf(
      "\nnccl: strong scaling of %s f32 over 1..%d GPU(s), even shards, one rank per GPU. us: the "
      "slowest rank's median (L2 flushed by a cudaMemsetAsync on every GPU); GB/s: the whole "
      "input (scan: read + written) over that time; speedup: the 1-GPU time over this one; "
      "eff: speedup / P\n",
      fmt_n(n).c_str(), max_p);
  table += strprintf("%3s %10s %8s %7s %5s %10s %8s %7s %5s %10s %8s %7s %5s  %s\n", "P",
                     "reduce_us", "GB/s", "speedup", "eff", "scan_us", "GB/s", "speedup", "eff",
                     "hist_us", "GB/s", "speedup", "eff", "check");
  double t1[3] = {NAN, NAN, NAN};
  std::string local_line;
  std::fprintf(stderr, "  nccl %s: GPUs", fmt_n(n).c_str());
  for (int p = 1; p <= max_p; ++p) {
    std::fprintf(stderr, " %d", p);
    Rank ranks[kMaxGpus];
    setup_ranks(b, ranks, p, n);
    Timing t[3];
    for (int prim = NCCL_REDUCE; prim <= NCCL_HIST; ++prim)
      t[prim] = time_ranks(ranks, p, prim);
    const std::string check = check_results(b, ranks, p, n);
    std::string line = strprintf("%3d", p);
    for (int prim = NCCL_REDUCE; prim <= NCCL_HIST; ++prim) {
      Row row = make_row(b, prim, p, n, t[prim], bytes[prim], check);
      if (!t[prim].ok())
        ++b.failures;
      if (p == 1)
        t1[prim] = t[prim].median_us;
      const double speedup = t1[prim] / t[prim].median_us;
      b.rows.push_back(row);
      line += strprintf(" %10s %8s %7s %5s", fmt_num(t[prim].median_us, 1).c_str(),
                        fmt_num(row.gbps, 1).c_str(), fmt_num(speedup, 2).c_str(),
                        fmt_num(speedup / p, 2).c_str());
    }
    table += line + "  " + (t[0].ok() && t[1].ok() && t[2].ok() ? check : "ERROR") + "\n";
    if (p == 1) {
      /* the local calls on the same GPU and data: what the component adds on one GPU */
      Timing l[3];
      for (int prim = LOCAL_REDUCE; prim <= LOCAL_HIST; ++prim) {
        l[prim - LOCAL_REDUCE] = time_ranks(ranks, 1, prim);
        const Row row =
            make_row(b, prim, 1, n, l[prim - LOCAL_REDUCE], bytes[prim - LOCAL_REDUCE], "-");
        if (!l[prim - LOCAL_REDUCE].ok())
          ++b.failures;
        b.rows.push_back(row);
      }
      local_line = strprintf("  (1 GPU, the local calls on the same data: cuprim_reduce %s us, "
                             "cuprim_scan %s us, cuprim_histogram_even %s us)\n",
                             fmt_num(l[0].median_us, 1).c_str(), fmt_num(l[1].median_us, 1).c_str(),
                             fmt_num(l[2].median_us, 1).c_str());
    }
    teardown_ranks(b, ranks, p);
  }
  std::fprintf(stderr, "\n");
  table += local_line;
  b.report += table;
  table.clear();
}

} // namespace

void run_nccl_suite(Bench &b) {
  if (!b.opt.only) {
    /* Opt-in: it sets up NCCL over every GPU and takes 8 GiB on one; the default run stays what
     * it was. */
    std::fprintf(stderr, "  nccl: not part of the default run: cuprim-bench --only nccl\n");
    return;
  }
  int count = 0;
  BENCH_CHECK(cudaGetDeviceCount(&count));
  const int max_p = std::min(count, kMaxGpus);
  if (b.opt.quick) {
    run_nccl_size(b, max_p, uint64_t(1) << 24);
    return;
  }
  for (const int log2n : {26, 30})
    run_nccl_size(b, max_p, uint64_t(1) << log2n);
}
