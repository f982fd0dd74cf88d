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
 * 1 a call failed or the result is wrong; 2 bad usage; 77 no CUDA device or driver. */
#include <cuprim/cuprim.h>

#include <cuda_profiler_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *name;
  int alg; /* the cuprim_*_alg value */
} alg_name;

static const alg_name reduce_algs[] = {{"auto", CUPRIM_REDUCE_AUTO},
                                       {"global_tree", CUPRIM_REDUCE_GLOBAL_TREE},
                                       {"neighbored_divergent", CUPRIM_REDUCE_NEIGHBORED_DIVERGENT},
                                       {"neighbored_strided", CUPRIM_REDUCE_NEIGHBORED_STRIDED},
                                       {"sequential", CUPRIM_REDUCE_SEQUENTIAL},
                                       {"first_add_on_load", CUPRIM_REDUCE_FIRST_ADD_ON_LOAD},
                                       {"unrolled", CUPRIM_REDUCE_UNROLLED},
                                       {"warp_shuffle", CUPRIM_REDUCE_WARP_SHUFFLE},
                                       {"coarsened", CUPRIM_REDUCE_COARSENED},
                                       {"atomic", CUPRIM_REDUCE_ATOMIC},
                                       {NULL, 0}};
static const alg_name scan_algs[] = {{"auto", CUPRIM_SCAN_AUTO},
                                     {"hillis_steele", CUPRIM_SCAN_HILLIS_STEELE},
                                     {"blelloch", CUPRIM_SCAN_BLELLOCH},
                                     {"warp_shuffle", CUPRIM_SCAN_WARP_SHUFFLE},
                                     {"decoupled_lookback", CUPRIM_SCAN_DECOUPLED_LOOKBACK},
                                     {NULL, 0}};
static const alg_name histogram_algs[] = {
    {"auto", CUPRIM_HISTOGRAM_AUTO},
    {"global_atomic", CUPRIM_HISTOGRAM_GLOBAL_ATOMIC},
    {"block_private", CUPRIM_HISTOGRAM_BLOCK_PRIVATE},
    {"sort_reduce_by_key", CUPRIM_HISTOGRAM_SORT_REDUCE_BY_KEY},
    {NULL, 0}};

static const alg_name *algs_of(const char *primitive) {
  if (!strcmp(primitive, "reduce"))
    return reduce_algs;
  if (!strcmp(primitive, "scan"))
    return scan_algs;
  if (!strcmp(primitive, "histogram"))
    return histogram_algs;
  return NULL;
}

static int usage(void) {
  fprintf(stderr, "usage: cuprim-one-call PRIMITIVE ALG [--n N|2^K] [--dtype DTYPE] [--calls K]"
                  " [--bins B]\n"
                  "       cuprim-one-call --list PRIMITIVE\n"
                  "PRIMITIVE: reduce, scan (dtype f32 or i32), histogram (u8 or f32; --bins)\n");
  return 2;
}

/* splitmix64 of (seed, i), as cuprim-bench fills its buffers. */
static uint64_t mix64(uint64_t seed, uint64_t i) {
  uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
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

static const char *cuda_text(void) { return cudaGetErrorString(cuprim_last_cuda_error()); }

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--list")) {
    const alg_name *a = algs_of(argv[2]);
    if (!a)
      return usage();
    for (; a->name; ++a)
      printf("%s\n", a->name);
    return 0;
  }
  if (argc < 3)
    return usage();
  const char *primitive = argv[1], *alg_text = argv[2];
  const alg_name *a = algs_of(primitive);
  if (!a)
    return usage();
  for (; a->name && strcmp(a->name, alg_text); ++a) {
  }
  if (!a->name) {
    fprintf(stderr, "cuprim-one-call: no %s algorithm named '%s' (--list %s)\n", primitive,
            alg_text, primitive);
    return 2;
  }
  const int is_hist = !strcmp(primitive, "histogram");
  uint64_t n = (uint64_t)1 << 26;
  const char *dtype_text = is_hist ? "u8" : "f32";
  long calls = 1;
  long bins_arg = 0; /* 0: the dtype's default */
  for (int i = 3; i < argc; ++i) {
    if (!strcmp(argv[i], "--n") && i + 1 < argc) {
      if (!parse_n(argv[++i], &n) || n == 0)
        return usage();
    } else if (!strcmp(argv[i], "--dtype") && i + 1 < argc) {
      dtype_text = argv[++i];
    } else if (!strcmp(argv[i], "--calls") && i + 1 < argc) {
      calls = strtol(argv[++i], NULL, 10);
      if (calls < 1 || calls > 1000)
        return usage();
    } else if (!strcmp(argv[i], "--bins") && i + 1 < argc && is_hist) {
      bins_arg = strtol(argv[++i], NULL, 10);
      if (bins_arg < 1 || bins_arg > (1L << 24))
        return usage();
    } else {
      return usage();
    }
  }
  cuprim_dtype dtype;
  if (!strcmp(dtype_text, "f32"))
    dtype = CUPRIM_F32;
  else if (!strcmp(dtype_text, "i32") && !is_hist)
    dtype = CUPRIM_I32;
  else if (!strcmp(dtype_text, "u8") && is_hist)
    dtype = CUPRIM_U8;
  else
    return usage();
  const size_t size = cuprim_dtype_size(dtype);
  const uint32_t bins = bins_arg ? (uint32_t)bins_arg : dtype == CUPRIM_U8 ? 256 : 4096;
  const double lower = 0.0, upper = dtype == CUPRIM_U8 ? 256.0 : 1.0;

  /* The input, as cuprim-bench makes it: f32 k * 2^-24 in [0, 1), i32 in [-8, 8), u8 uniform. */
  void *h_in = malloc((size_t)n * size);
  if (!h_in) {
    fprintf(stderr, "cuprim-one-call: out of host memory for n = %llu\n", (unsigned long long)n);
    return 1;
  }
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t r = mix64(20261105, i);
    if (dtype == CUPRIM_F32)
      ((float *)h_in)[i] = (float)(r >> 40) * 0x1p-24f;
    else if (dtype == CUPRIM_I32)
      ((int32_t *)h_in)[i] = (int32_t)(r >> 60) - 8;
    else
      ((uint8_t *)h_in)[i] = (uint8_t)(r >> 56);
  }

  cuprim_ctx *ctx = NULL;
  cuprim_status s = cuprim_ctx_create(&ctx, 0, NULL);
  if (s == CUPRIM_ERROR_NO_DEVICE) {
    printf("cuprim-one-call: no CUDA device available\n");
    free(h_in);
    return 77;
  }
  if (s != CUPRIM_SUCCESS) {
    fprintf(stderr, "cuprim-one-call: cuprim_ctx_create: %s\n", cuprim_status_string(s));
    free(h_in);
    return 1;
  }
  int ok = 0;
  cudaStream_t stream = NULL;
  void *d_in = NULL, *d_out = NULL;
  const size_t out_bytes = is_hist                      ? bins * sizeof(uint64_t)
                           : !strcmp(primitive, "scan") ? (size_t)n * size
                                                        : size;
  void *h_out = malloc(out_bytes);
  if (!h_out || cudaStreamCreate(&stream) != cudaSuccess ||
      cudaMalloc(&d_in, (size_t)n * size) != cudaSuccess ||
      cudaMalloc(&d_out, out_bytes) != cudaSuccess ||
      cudaMemcpy(d_in, h_in, (size_t)n * size, cudaMemcpyHostToDevice) != cudaSuccess) {
    fprintf(stderr, "cuprim-one-call: setup: %s\n", cudaGetErrorString(cudaGetLastError()));
    goto done;
  }

  /* Call 0 is the warm-up; calls 1..K are profiled. */
  for (long c = 0; c <= calls; ++c) {
    if (c == 1 &&
        (cudaStreamSynchronize(stream) != cudaSuccess || cudaProfilerStart() != cudaSuccess)) {
      fprintf(stderr, "cuprim-one-call: %s\n", cudaGetErrorString(cudaGetLastError()));
      goto done;
    }
    if (!strcmp(primitive, "reduce"))
      s = cuprim_reduce_ex(ctx, (cuprim_reduce_alg)a->alg, d_in, d_out, n, dtype, CUPRIM_SUM,
                           stream);
    else if (!strcmp(primitive, "scan"))
      s = cuprim_scan_ex(ctx, (cuprim_scan_alg)a->alg, d_in, d_out, n, dtype, CUPRIM_SUM,
                         CUPRIM_INCLUSIVE, stream);
    else
      s = cuprim_histogram_even_ex(ctx, (cuprim_histogram_alg)a->alg, d_in, n, dtype,
                                   (uint64_t *)d_out, bins, lower, upper, stream);
    if (s != CUPRIM_SUCCESS) {
      fprintf(stderr, "cuprim-one-call: %s %s: %s%s%s\n", primitive, a->name,
              cuprim_status_string(s), s == CUPRIM_ERROR_CUDA ? ": " : "",
              s == CUPRIM_ERROR_CUDA ? cuda_text() : "");
      goto done;
    }
  }
  if (cudaStreamSynchronize(stream) != cudaSuccess || cudaProfilerStop() != cudaSuccess ||
      cudaMemcpy(h_out, d_out, out_bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
    fprintf(stderr, "cuprim-one-call: %s\n", cudaGetErrorString(cudaGetLastError()));
    goto done;
  }

  /* A sanity check of the last call (the tests are the real check). */
  char what[160];
  if (is_hist) {
    uint64_t *want = calloc(bins, sizeof(uint64_t)), wrong = 0;
    if (!want)
      goto done;
    for (uint64_t i = 0; i < n; ++i) {
      const double x =
          dtype == CUPRIM_U8 ? (double)((uint8_t *)h_in)[i] : (double)((float *)h_in)[i];
      uint64_t b = (uint64_t)((x - lower) * ((double)bins / (upper - lower)));
      ++want[b < bins ? b : bins - 1];
    }
    for (uint32_t b = 0; b < bins; ++b)
      wrong += ((uint64_t *)h_out)[b] != want[b];
    free(want);
    ok = wrong == 0;
    snprintf(what, sizeof what, "%llu of %u bins wrong", (unsigned long long)wrong, bins);
  } else if (dtype == CUPRIM_I32) {
    /* Integer sums wrap modulo 2^32: add in uint32_t. */
    uint32_t run = 0;
    uint64_t wrong = 0;
    const int is_scan = !strcmp(primitive, "scan");
    for (uint64_t i = 0; i < n; ++i) {
      run += (uint32_t)((int32_t *)h_in)[i];
      if (is_scan)
        wrong += (uint32_t)((int32_t *)h_out)[i] != run;
    }
    if (!is_scan)
      wrong = (uint32_t)((int32_t *)h_out)[0] != run;
    ok = wrong == 0;
    snprintf(what, sizeof what, "%llu element(s) wrong, exact", (unsigned long long)wrong);
  } else {
    /* Floats: the total (reduce) or the last prefix (scan) against a double sum, loosely. */
    double want = 0.0;
    for (uint64_t i = 0; i < n; ++i)
      want += ((float *)h_in)[i];
    const double got = !strcmp(primitive, "scan") ? ((float *)h_out)[n - 1] : ((float *)h_out)[0];
    const double rel = fabs(got - want) / (want > 1.0 ? want : 1.0);
    ok = rel < 1e-3;
    snprintf(what, sizeof what, "total %.9g, host %.9g, relative error %.1e", got, want, rel);
  }
  printf("cuprim-one-call: %s %s %s n = %llu: %ld call(s) profiled; %s: %s\n", primitive, a->name,
         dtype_text, (unsigned long long)n, calls, what, ok ? "ok" : "WRONG");

done:
  if (stream)
    cudaStreamDestroy(stream);
  cudaFree(d_in);
  cudaFree(d_out);
  cuprim_ctx_destroy(ctx);
  free(h_in);
  free(h_out);
  return ok ? 0 : 1;
}
