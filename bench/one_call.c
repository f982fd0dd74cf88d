/* cuprim-one-call: one cuprim call, alone, for a profiler.
 *
 *   cuprim-one-call PRIMITIVE ALG [--n N] [--dtype DTYPE] [--calls K]
 *   cuprim-one-call --list PRIMITIVE
 *
 * PRIMITIVE is reduce, scan or histogram; ALG an algorithm of it, named as in cuprim-bench's
 * tables (--list prints them in enum order). It fills the input with seeded data of the kind
 * cuprim-bench uses, makes one untimed warm-up call (which loads the kernels and fills the
 * context's memory pool), then makes K calls (default 1) between cudaProfilerStart() and
 * cudaProfilerStop(), so that `ncu --profile-from-start off` or
 * `nsys profile --capture-range=cudaProfilerApi` sees those calls and nothing else. Finally it
 * checks the last call's result and prints one line.
 *
 *   reduce     SUM; --dtype f32 (default) or i32
 *   scan       inclusive SUM; --dtype f32 (default) or i32
 *   histogram  --dtype u8 (default): 256 bins over [0, 256); f32: 4096 bins over [0, 1);
 *              --bins B: B bins (1 to 2^24) over the same range
 *   --n        elements: a number or 2^K (default 2^26)
 *
 * scripts/ncu_ladder.sh runs it under Nsight Compute over a whole ladder. Exit status: 0 ok;
 * 1 a call failed or the result is wrong; 2 bad usage; 77 no CUDA device or driver. The data,
 * the algorithm names and the host references are harness/hostref*.h's, as cuprim-bench's. */
#include <cuprim/cuprim.h>

#include "hostref_histogram.h"
#include "hostref_reduce.h"

#include <cuda_profiler_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The primitive named `name`, or -1. */
static int primitive_of(const char *name) {
  return !strcmp(name, "reduce")      ? HR_REDUCE
         : !strcmp(name, "scan")      ? HR_SCAN
         : !strcmp(name, "histogram") ? HR_HISTOGRAM
                                      : -1;
}

static int usage(void) {
  fprintf(stderr, "usage: cuprim-one-call PRIMITIVE ALG [--n N|2^K] [--dtype DTYPE] [--calls K]"
                  " [--bins B]\n"
                  "       cuprim-one-call --list PRIMITIVE\n"
                  "PRIMITIVE: reduce, scan (dtype f32 or i32), histogram (u8 or f32; --bins)\n");
  return 2;
}

static int parse_n(const char *s, uint64_t *n) {
  char *end = NULL;
  if (!strncmp(s, "2^", 2)) {
    const long k = strtol(s + 2, &end, 10);
    if (*end || k < 0 || k > 40)
      return 0;
    *n = (uint64_t)1 << k;
    return 1;
  }
  const unsigned long long v = strtoull(s, &end, 10);
  if (*end || end == s)
    return 0;
  *n = v;
  return 1;
}

/* What to run: parsed from the command line. */
typedef struct job {
  hr_primitive primitive;
  int alg;
  cuprim_dtype dtype;
  uint64_t n;
  long calls;
  uint32_t bins;
  double lower, upper;
} job;

/* Returns 0 with *j filled, or the exit status (2, or 0 after --list). */
static int parse(int argc, char **argv, job *j) {
  if (argc == 3 && !strcmp(argv[1], "--list")) {
    const int p = primitive_of(argv[2]);
    if (p < 0)
      return usage();
    for (int a = 0; a < hr_alg_count((hr_primitive)p); ++a)
      printf("%s\n", hr_alg_name((hr_primitive)p, a));
    exit(0);
  }
  const int p = argc >= 3 ? primitive_of(argv[1]) : -1;
  if (p < 0)
    return usage();
  j->primitive = (hr_primitive)p;
  j->alg = -1;
  for (int a = 0; a < hr_alg_count(j->primitive); ++a)
    if (!strcmp(argv[2], hr_alg_name(j->primitive, a)))
      j->alg = a;
  if (j->alg < 0) {
    fprintf(stderr, "cuprim-one-call: no %s algorithm named '%s' (--list %s)\n", argv[1], argv[2],
            argv[1]);
    return 2;
  }
  const int is_hist = j->primitive == HR_HISTOGRAM;
  j->n = (uint64_t)1 << 26;
  j->calls = 1;
  const char *dtype_text = is_hist ? "u8" : "f32";
  long bins_arg = 0; /* 0: the dtype's default */
  for (int i = 3; i < argc; ++i) {
    const int more = i + 1 < argc;
    if (!strcmp(argv[i], "--n") && more) {
      if (!parse_n(argv[++i], &j->n) || j->n == 0)
        return usage();
    } else if (!strcmp(argv[i], "--dtype") && more) {
      dtype_text = argv[++i];
    } else if (!strcmp(argv[i], "--calls") && more) {
      j->calls = strtol(argv[++i], NULL, 10);
      if (j->calls < 1 || j->calls > 1000)
        return usage();
    } else if (!strcmp(argv[i], "--bins") && more && is_hist) {
      bins_arg = strtol(argv[++i], NULL, 10);
      if (bins_arg < 1 || bins_arg > (1L << 24))
        return usage();
    } else {
      return usage();
    }
  }
  /* reduce and scan: f32 or i32; histogram: u8 or f32. */
  const int f32 = !strcmp(dtype_text, "f32");
  if (!f32 && strcmp(dtype_text, is_hist ? "u8" : "i32"))
    return usage();
  j->dtype = f32 ? CUPRIM_F32 : is_hist ? CUPRIM_U8 : CUPRIM_I32;
  j->bins = bins_arg ? (uint32_t)bins_arg : j->dtype == CUPRIM_U8 ? 256 : 4096;
  j->lower = 0.0;
  j->upper = j->dtype == CUPRIM_U8 ? 256.0 : 1.0;
  return 0;
}

/* The input, as cuprim-bench makes it (seed 20261105): f32 k * 2^-24 in [0, 1), i32 in [-8, 8),
 * u8 uniform. */
static void fill(const job *j, void *h) {
  for (uint64_t i = 0; i < j->n; ++i) {
    const uint64_t r = hr_element_bits(20261105, i);
    if (j->dtype == CUPRIM_F32)
      ((float *)h)[i] = (float)hr_unit24(r);
    else if (j->dtype == CUPRIM_I32)
      ((int32_t *)h)[i] = (int32_t)(r >> 60) - 8;
    else
      ((uint8_t *)h)[i] = (uint8_t)(r >> 56);
  }
}

static cuprim_status call_once(const job *j, cuprim_ctx *ctx, const void *d_in, void *d_out,
                               cudaStream_t stream) {
  switch (j->primitive) {
  case HR_REDUCE:
    return cuprim_reduce_ex(ctx, (cuprim_reduce_alg)j->alg, d_in, d_out, j->n, j->dtype, CUPRIM_SUM,
                            stream);
  case HR_SCAN:
    return cuprim_scan_ex(ctx, (cuprim_scan_alg)j->alg, d_in, d_out, j->n, j->dtype, CUPRIM_SUM,
                          CUPRIM_INCLUSIVE, stream);
  case HR_HISTOGRAM:
    return cuprim_histogram_even_ex(ctx, (cuprim_histogram_alg)j->alg, d_in, j->n, j->dtype,
                                    (uint64_t *)d_out, j->bins, j->lower, j->upper, stream);
  case HR_SEGMENTED: /* not one of this program's primitives (primitive_of never names it) */
    break;
  }
  return CUPRIM_ERROR_INTERNAL;
}

/* Call 0 is the warm-up; calls 1..K are profiled. Returns 0, or prints what failed. */
static int profile(const job *j, cuprim_ctx *ctx, const void *d_in, void *d_out,
                   cudaStream_t stream) {
  for (long c = 0; c <= j->calls; ++c) {
    if (c == 1 &&
        (cudaStreamSynchronize(stream) != cudaSuccess || cudaProfilerStart() != cudaSuccess)) {
      fprintf(stderr, "cuprim-one-call: %s\n", cudaGetErrorString(cudaGetLastError()));
      return 1;
    }
    const cuprim_status s = call_once(j, ctx, d_in, d_out, stream);
    if (s != CUPRIM_SUCCESS) {
      fprintf(stderr, "cuprim-one-call: %s: %s%s%s\n", hr_alg_name(j->primitive, j->alg),
              cuprim_status_string(s), s == CUPRIM_ERROR_CUDA ? ": " : "",
              s == CUPRIM_ERROR_CUDA ? cudaGetErrorString(cuprim_last_cuda_error()) : "");
      return 1;
    }
  }
  if (cudaStreamSynchronize(stream) != cudaSuccess || cudaProfilerStop() != cudaSuccess) {
    fprintf(stderr, "cuprim-one-call: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  return 0;
}

/* A sanity check of the last call against the host references (the tests are the real check):
 * histogram and i32 exactly, f32 loosely (the total, or the last prefix, within 1e-3). */
static int check(const job *j, const void *h_in, const void *h_out, char *what, size_t len) {
  if (j->primitive == HR_HISTOGRAM) {
    uint64_t *want = calloc(j->bins, sizeof(uint64_t)), first = 0;
    if (!want)
      return 0;
    const hr_hist_bins b = hr_hist_bins_even(j->bins, j->lower, j->upper);
    hr_hist_reference(&b, j->dtype, h_in, j->n, want);
    const uint64_t wrong = hr_hist_check(want, h_out, j->bins, j->n, -1, &first, NULL, 0);
    free(want);
    snprintf(what, len, "%llu of %u bins wrong", (unsigned long long)wrong, j->bins);
    return wrong == 0;
  }
  const int is_scan = j->primitive == HR_SCAN;
  if (j->dtype == CUPRIM_I32) {
    /* Integer sums wrap modulo 2^32, in any order: the sequential scan is the answer. */
    int32_t *want = malloc(j->n * sizeof(int32_t));
    if (!want)
      return 0;
    hr_scan_seq(CUPRIM_I32, CUPRIM_SUM, CUPRIM_INCLUSIVE, h_in, want, j->n);
    const int32_t *got = (const int32_t *)h_out;
    uint64_t wrong = 0;
    for (uint64_t i = is_scan ? 0 : j->n - 1; i < j->n; ++i)
      wrong += got[is_scan ? i : 0] != want[i];
    free(want);
    snprintf(what, len, "%llu element(s) wrong, exact", (unsigned long long)wrong);
    return wrong == 0;
  }
  hr_reduce_ref ref;
  hr_reduce_reference(CUPRIM_F32, CUPRIM_SUM, h_in, j->n, &ref);
  const double want = (double)ref.value;
  const double got = ((const float *)h_out)[is_scan ? j->n - 1 : 0];
  const double rel = fabs(got - want) / (want > 1.0 ? want : 1.0);
  snprintf(what, len, "total %.9g, host %.9g, relative error %.1e", got, want, rel);
  return rel < 1e-3;
}

int main(int argc, char **argv) {
  job j;
  const int bad = parse(argc, argv, &j);
  if (bad)
    return bad;
  const size_t in_bytes = (size_t)j.n * cuprim_dtype_size(j.dtype);
  const size_t out_bytes = j.primitive == HR_HISTOGRAM ? j.bins * sizeof(uint64_t)
                           : j.primitive == HR_SCAN    ? in_bytes
                                                       : cuprim_dtype_size(j.dtype);
  void *h_in = malloc(in_bytes), *h_out = malloc(out_bytes);
  cuprim_ctx *ctx = NULL;
  const cuprim_status s = h_in && h_out ? cuprim_ctx_create(&ctx, 0, NULL) : CUPRIM_SUCCESS;
  int rc = !h_in || !h_out ? 1 : s == CUPRIM_ERROR_NO_DEVICE ? 77 : s != CUPRIM_SUCCESS;
  if (rc) {
    fprintf(stderr, "cuprim-one-call: %s\n",
            !h_in || !h_out ? "out of host memory" : cuprim_status_string(s));
    free(h_in);
    free(h_out);
    return rc;
  }
  fill(&j, h_in);
  cudaStream_t stream = NULL;
  void *d_in = NULL, *d_out = NULL;
  rc = 1;
  if (cudaStreamCreate(&stream) != cudaSuccess || cudaMalloc(&d_in, in_bytes) != cudaSuccess ||
      cudaMalloc(&d_out, out_bytes) != cudaSuccess ||
      cudaMemcpy(d_in, h_in, in_bytes, cudaMemcpyHostToDevice) != cudaSuccess)
    fprintf(stderr, "cuprim-one-call: setup: %s\n", cudaGetErrorString(cudaGetLastError()));
  else if (profile(&j, ctx, d_in, d_out, stream) == 0) {
    if (cudaMemcpy(h_out, d_out, out_bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
      fprintf(stderr, "cuprim-one-call: %s\n", cudaGetErrorString(cudaGetLastError()));
    } else {
      char what[160];
      const int ok = check(&j, h_in, h_out, what, sizeof what);
      printf("cuprim-one-call: %s %s %s n = %llu: %ld call(s) profiled; %s: %s\n", argv[1], argv[2],
             hr_dtype_name(j.dtype), (unsigned long long)j.n, j.calls, what, ok ? "ok" : "WRONG");
      rc = !ok;
    }
  }
  /* Teardown: nothing here can change the verdict. */
  if (stream)
    (void)cudaStreamDestroy(stream);
  (void)cudaFree(d_in);
  (void)cudaFree(d_out);
  (void)cuprim_ctx_destroy(ctx);
  free(h_in);
  free(h_out);
  return rc;
}
