/* Sum a million floats on the GPU with cuprim, from plain C.
 *
 * Build against an installed cuprim with either
 *   gcc reduce.c $(pkg-config --cflags --libs cuprim) -o reduce
 * or CMake: find_package(cuprim) and target_link_libraries(reduce PRIVATE cuprim::cuprim)
 * (as examples/CMakeLists.txt does).
 *
 * Exit status: 0 the GPU sum matches the host sum; 1 it does not, or a call failed;
 * 77 no CUDA device or driver. */
#include <cuprim/cuprim.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1000000

int main(void) {
  /* Every exit goes through `done`, which frees what was made (free, cudaFree and
   * cuprim_ctx_destroy take NULL). */
  int status = 1; /* 0 the sums match; 1 they do not, or a call failed; 77 no device */
  cuprim_ctx *ctx = NULL;
  cudaStream_t stream = NULL;
  float *h_in = NULL, *d_in = NULL, *d_sum = NULL, sum = 0.0f;

  /* Data in [0,1) and its sum on the host, in double precision. */
  h_in = malloc(N * sizeof(float));
  if (!h_in)
    goto done;
  double expected = 0.0;
  for (uint32_t i = 0; i < N; ++i) {
    h_in[i] = (float)((i * 2654435761u) >> 8) / 16777216.0f;
    expected += h_in[i];
  }

  /* A context on device 0, with the default stream-ordered allocator. */
  cuprim_status s = cuprim_ctx_create(&ctx, 0, NULL);
  if (s == CUPRIM_ERROR_NO_DEVICE) {
    const cudaError_t why = cuprim_last_cuda_error(); /* cudaSuccess: zero devices */
    printf("reduce: no CUDA device available (%s)\n",
           why != cudaSuccess ? cudaGetErrorString(why) : "no device found");
    status = 77;
    goto done;
  }
  if (s != CUPRIM_SUCCESS) {
    fprintf(stderr, "reduce: cuprim_ctx_create: %s\n", cuprim_status_string(s));
    goto done;
  }

  if (cudaStreamCreate(&stream) != cudaSuccess ||
      cudaMalloc((void **)&d_in, N * sizeof(float)) != cudaSuccess ||
      cudaMalloc((void **)&d_sum, sizeof(float)) != cudaSuccess) {
    fprintf(stderr, "reduce: %s\n", cudaGetErrorString(cudaGetLastError()));
    goto done;
  }

  /* Every cuprim call is asynchronous on its stream: copy in, reduce, copy out, then wait. */
  cudaMemcpyAsync(d_in, h_in, N * sizeof(float), cudaMemcpyHostToDevice, stream);
  s = cuprim_reduce(ctx, d_in, d_sum, N, CUPRIM_F32, CUPRIM_SUM, stream);
  if (s != CUPRIM_SUCCESS) {
    fprintf(stderr, "reduce: cuprim_reduce: %s\n", cuprim_status_string(s));
    goto done;
  }
  cudaMemcpyAsync(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost, stream);
  if (cudaStreamSynchronize(stream) != cudaSuccess) {
    fprintf(stderr, "reduce: %s\n", cudaGetErrorString(cudaGetLastError()));
    goto done;
  }

  /* Float sums are accurate to about log2(n) * eps * sum|x| (reduce.h). */
  const double rel_error = fabs(sum - expected) / expected;
  status = rel_error < 1e-5 ? 0 : 1;
  printf("reduce: n = %d, GPU sum = %.7g, host sum = %.7g, relative error %.2g: %s\n", N,
         (double)sum, expected, rel_error, status == 0 ? "ok" : "MISMATCH");

done:
  if (stream)
    cudaStreamDestroy(stream);
  cudaFree(d_in);
  cudaFree(d_sum);
  cuprim_ctx_destroy(ctx);
  free(h_in);
  return status;
}
