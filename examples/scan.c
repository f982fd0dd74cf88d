/* Prefix sums of a million integers on the GPU with cuprim, from plain C: an inclusive scan into a
 * second buffer, then an exclusive scan in place.
 *
 * Build against an installed cuprim with either
 *   gcc scan.c $(pkg-config --cflags --libs cuprim) -o scan
 * or CMake: find_package(cuprim) and target_link_libraries(scan PRIVATE cuprim::cuprim)
 * (as examples/CMakeLists.txt does).
 *
 * Exit status: 0 both scans match the host's; 1 they do not, or a call failed;
 * 77 no CUDA device or driver. */
#include <cuprim/cuprim.h>

#include <stdio.h>
#include <stdlib.h>

#define N 1000000

int main(void) {
  /* Every exit goes through `done`, which frees what was made (free, cudaFree and
   * cuprim_ctx_destroy take NULL). */
  int status = 1; /* 0 both scans match; 1 they do not, or a call failed; 77 no device */
  cuprim_ctx *ctx = NULL;
  cudaStream_t stream = NULL;
  int32_t *h_in = NULL, *h_out = NULL, *expected = NULL, *d_in = NULL, *d_out = NULL;

  /* Data in [0, 100) and its inclusive prefix sums on the host. Integer scans are exact (they wrap
   * modulo 2^32 like unsigned arithmetic; these sums stay below 10^8). */
  h_in = malloc(N * sizeof(int32_t));
  h_out = malloc(N * sizeof(int32_t));
  expected = malloc(N * sizeof(int32_t));
  if (!h_in || !h_out || !expected)
    goto done;
  int32_t running = 0;
  for (uint32_t i = 0; i < N; ++i) {
    h_in[i] = (int32_t)(((i * 2654435761u) >> 8) % 100u);
    running += h_in[i];
    expected[i] = running;
  }

  /* A context on device 0, with the default stream-ordered allocator. */
  cuprim_status s = cuprim_ctx_create(&ctx, 0, NULL);
  if (s == CUPRIM_ERROR_NO_DEVICE) {
    const cudaError_t why = cuprim_last_cuda_error(); /* cudaSuccess: zero devices */
    printf("scan: no CUDA device available (%s)\n",
           why != cudaSuccess ? cudaGetErrorString(why) : "no device found");
    status = 77;
    goto done;
  }
  if (s != CUPRIM_SUCCESS) {
    fprintf(stderr, "scan: cuprim_ctx_create: %s\n", cuprim_status_string(s));
    goto done;
  }

  if (cudaStreamCreate(&stream) != cudaSuccess ||
      cudaMalloc((void **)&d_in, N * sizeof(int32_t)) != cudaSuccess ||
      cudaMalloc((void **)&d_out, N * sizeof(int32_t)) != cudaSuccess) {
    fprintf(stderr, "scan: %s\n", cudaGetErrorString(cudaGetLastError()));
    goto done;
  }

  /* Every cuprim call is asynchronous on its stream: copy in, scan, copy out, then wait. */
  if (cudaMemcpyAsync(d_in, h_in, N * sizeof(int32_t), cudaMemcpyHostToDevice, stream) !=
      cudaSuccess) {
    fprintf(stderr, "scan: %s\n", cudaGetErrorString(cudaGetLastError()));
    goto done;
  }
  /* d_out[i] = d_in[0] + ... + d_in[i]. */
  s = cuprim_scan(ctx, d_in, d_out, N, CUPRIM_I32, CUPRIM_SUM, CUPRIM_INCLUSIVE, stream);
  if (s != CUPRIM_SUCCESS) {
    fprintf(stderr, "scan: cuprim_scan (inclusive): %s\n", cuprim_status_string(s));
    goto done;
  }
  /* In place (d_out == d_in is the one overlap allowed): d_in[i] = d_in[0] + ... + d_in[i-1]. It
   * is enqueued after the inclusive scan on the same stream, which has read d_in by then. */
  s = cuprim_scan(ctx, d_in, d_in, N, CUPRIM_I32, CUPRIM_SUM, CUPRIM_EXCLUSIVE, stream);
  if (s != CUPRIM_SUCCESS) {
    fprintf(stderr, "scan: cuprim_scan (exclusive, in place): %s\n", cuprim_status_string(s));
    goto done;
  }
  if (cudaMemcpyAsync(h_out, d_out, N * sizeof(int32_t), cudaMemcpyDeviceToHost, stream) !=
          cudaSuccess ||
      cudaMemcpyAsync(h_in, d_in, N * sizeof(int32_t), cudaMemcpyDeviceToHost, stream) !=
          cudaSuccess ||
      cudaStreamSynchronize(stream) != cudaSuccess) {
    fprintf(stderr, "scan: %s\n", cudaGetErrorString(cudaGetLastError()));
    goto done;
  }

  /* Exact comparison: the exclusive result is the inclusive one shifted right by one. */
  uint32_t wrong_incl = 0, wrong_excl = 0;
  for (uint32_t i = 0; i < N; ++i) {
    wrong_incl += h_out[i] != expected[i];
    wrong_excl += h_in[i] != (i == 0 ? 0 : expected[i - 1]);
  }
  status = wrong_incl == 0 && wrong_excl == 0 ? 0 : 1;
  printf("scan: n = %d, last inclusive sum = %d (host %d), elements wrong: inclusive %u, "
         "exclusive in place %u: %s\n",
         N, (int)h_out[N - 1], (int)expected[N - 1], wrong_incl, wrong_excl,
         status == 0 ? "ok" : "MISMATCH");

done:
  if (stream)
    cudaStreamDestroy(stream);
  cudaFree(d_in);
  cudaFree(d_out);
  cuprim_ctx_destroy(ctx);
  free(h_in);
  free(h_out);
  free(expected);
  return status;
}
