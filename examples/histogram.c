/* A histogram of a million floats on the GPU with cuprim, from plain C: 100 equal-width bins over
 * [0, 1), with some samples below, above and NaN, which are not counted.
 *
 * Build against an installed cuprim with either
 *   gcc histogram.c $(pkg-config --cflags --libs cuprim) -lm -o histogram
 * or CMake: find_package(cuprim) and target_link_libraries(histogram PRIVATE cuprim::cuprim m)
 * (as examples/CMakeLists.txt does).
 *
 * Exit status: 0 every count matches the host's; 1 one does not, or a call failed;
 * 77 no CUDA device or driver. */
#include <cuprim/cuprim.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1000000
#define BINS 100
#define LOWER 0.0
#define UPPER 1.0

int main(void) {
  /* Every exit goes through `done`, which frees what was made (free, cudaFree and
   * cuprim_ctx_destroy take NULL). */
  int status = 1; /* 0 every count matches; 1 one does not, or a call failed; 77 no device */
  cuprim_ctx *ctx = NULL;
  cudaStream_t stream = NULL;
  float *h_samples = NULL, *d_samples = NULL;
  uint64_t expected[BINS] = {0}, h_counts[BINS] = {0}, not_counted = 0, *d_counts = NULL;

  /* Samples k / 1024 for k in [-100, 1100): about 8% below 0 and 6% at or above 1; every 9973rd
   * is NaN. Such samples make (x - LOWER) * (BINS / (UPPER - LOWER)) exact, so the host's bins
   * below are the GPU's whatever the compiler does with the arithmetic (histogram.h gives the
   * formula; docs/determinism.md how the GPU rounds it). */
  h_samples = malloc(N * sizeof(float));
  if (!h_samples)
    goto done;
  const double scale = (double)BINS / (UPPER - LOWER);
  for (uint32_t i = 0; i < N; ++i) {
    const int k = (int)(((i * 2654435761u) >> 8) % 1200u) - 100;
    const float x = i % 9973 == 0 ? NAN : (float)k / 1024.0f;
    h_samples[i] = x;
    if (!((double)x >= LOWER && (double)x < UPPER)) { /* below, at or above the top, or NaN */
      ++not_counted;
      continue;
    }
    uint64_t bin = (uint64_t)(((double)x - LOWER) * scale);
    if (bin > BINS - 1)
      bin = BINS - 1;
    ++expected[bin];
  }

  /* A context on device 0, with the default stream-ordered allocator. */
  cuprim_status s = cuprim_ctx_create(&ctx, 0, NULL);
  if (s == CUPRIM_ERROR_NO_DEVICE) {
    const cudaError_t why = cuprim_last_cuda_error(); /* cudaSuccess: zero devices */
    printf("histogram: no CUDA device available (%s)\n",
           why != cudaSuccess ? cudaGetErrorString(why) : "no device found");
    status = 77;
    goto done;
  }
  if (s != CUPRIM_SUCCESS) {
    fprintf(stderr, "histogram: cuprim_ctx_create: %s\n", cuprim_status_string(s));
    goto done;
  }

  if (cudaStreamCreate(&stream) != cudaSuccess ||
      cudaMalloc((void **)&d_samples, N * sizeof(float)) != cudaSuccess ||
      cudaMalloc((void **)&d_counts, BINS * sizeof(uint64_t)) != cudaSuccess) {
    fprintf(stderr, "histogram: %s\n", cudaGetErrorString(cudaGetLastError()));
    goto done;
  }

  /* Every cuprim call is asynchronous on its stream: copy in, count, copy out, then wait. The
   * counts are overwritten, so d_counts needs no zeroing first. */
  if (cudaMemcpyAsync(d_samples, h_samples, N * sizeof(float), cudaMemcpyHostToDevice, stream) !=
      cudaSuccess) {
    fprintf(stderr, "histogram: %s\n", cudaGetErrorString(cudaGetLastError()));
    goto done;
  }
  s = cuprim_histogram_even(ctx, d_samples, N, CUPRIM_F32, d_counts, BINS, LOWER, UPPER, stream);
  if (s != CUPRIM_SUCCESS) {
    fprintf(stderr, "histogram: cuprim_histogram_even: %s\n", cuprim_status_string(s));
    goto done;
  }
  if (cudaMemcpyAsync(h_counts, d_counts, sizeof h_counts, cudaMemcpyDeviceToHost, stream) !=
          cudaSuccess ||
      cudaStreamSynchronize(stream) != cudaSuccess) {
    fprintf(stderr, "histogram: %s\n", cudaGetErrorString(cudaGetLastError()));
    goto done;
  }

  /* Counts are exact: compare every bin. */
  uint64_t counted = 0;
  unsigned wrong = 0;
  for (int b = 0; b < BINS; ++b) {
    counted += h_counts[b];
    wrong += h_counts[b] != expected[b];
  }
  status = wrong == 0 ? 0 : 1;
  printf("histogram: n = %d, %d bins over [%g, %g): %llu counted (bin 0: %llu, bin %d: %llu), "
         "%llu outside or NaN, bins wrong: %u: %s\n",
         N, BINS, LOWER, UPPER, (unsigned long long)counted, (unsigned long long)h_counts[0],
         BINS - 1, (unsigned long long)h_counts[BINS - 1], (unsigned long long)not_counted, wrong,
         status == 0 ? "ok" : "MISMATCH");

done:
  if (stream)
    cudaStreamDestroy(stream);
  cudaFree(d_samples);
  cudaFree(d_counts);
  cuprim_ctx_destroy(ctx);
  free(h_samples);
  return status;
}
