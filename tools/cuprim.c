/* cuprim: the command-line program. It links the library like any user program (plain C, no
 * CUDA compiler) and dispatches on a table of subcommands; a new subcommand is a function and a
 * row in `commands` below.
 *
 * Exit status: 0 success; 1 a wrong result or a failed CUDA or cuprim call; 2 a usage error;
 * 77 no CUDA device or driver (the usual "skipped" code of test harnesses). */
#include <cuprim/cuprim.h>

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EXIT_WRONG = 1, EXIT_USAGE = 2, EXIT_NO_DEVICE = 77 };

/* ---------------------------------------------------------------- helpers */

/* Reports a failed CUDA runtime call made by the tool itself; evaluates to nonzero on failure. */
static int cuda_failed(cudaError_t err, const char *what) {
  if (err == cudaSuccess)
    return 0;
  fprintf(stderr, "cuprim: %s: %s\n", what, cudaGetErrorString(err));
  return 1;
}

/* Reports a failed cuprim call, with the CUDA error behind it when there is one. */
static int cuprim_failed(cuprim_status s, const char *what) {
  if (s == CUPRIM_SUCCESS)
    return 0;
  if (s == CUPRIM_ERROR_CUDA)
    fprintf(stderr, "cuprim: %s: %s (%s)\n", what, cuprim_status_string(s),
            cudaGetErrorString(cuprim_last_cuda_error()));
  else
    fprintf(stderr, "cuprim: %s: %s\n", what, cuprim_status_string(s));
  return 1;
}

/* Checks that a device is there before any other CUDA call, so that a machine without one gets
 * one clear line. Returns 0 or EXIT_NO_DEVICE. */
static int require_device(void) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    fprintf(stderr, "cuprim: no CUDA device available (cudaGetDeviceCount: %s)\n",
            cudaGetErrorString(err));
    return EXIT_NO_DEVICE;
  }
  if (count == 0) {
    fprintf(stderr, "cuprim: no CUDA device available (cudaGetDeviceCount: 0 devices)\n");
    return EXIT_NO_DEVICE;
  }
  return 0;
}

/* Parses a non-negative integer: decimal, or 2^K. Returns 0 on success. */
static int parse_u64(const char *s, uint64_t *out) {
  char *end = NULL;
  if (!s || !*s || *s == '-')
    return 1;
  errno = 0;
  if (s[0] == '2' && s[1] == '^') {
    unsigned long k = strtoul(s + 2, &end, 10);
    if (errno || end == s + 2 || *end || k > 63)
      return 1;
    *out = (uint64_t)1 << k;
    return 0;
  }
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s || *end)
    return 1;
  *out = (uint64_t)v;
  return 0;
}

/* Matches "--name VALUE" and "--name=VALUE" at argv[*i] and returns VALUE, advancing *i past
 * it; NULL if argv[*i] is another option or the value is missing. */
static const char *option_value(int argc, char **argv, int *i, const char *name) {
  size_t len = strlen(name);
  const char *a = argv[*i];
  if (strncmp(a, name, len) != 0)
    return NULL;
  if (a[len] == '=')
    return a + len + 1;
  if (a[len] != '\0' || *i + 1 >= argc)
    return NULL;
  return argv[++*i];
}

/* splitmix64: a small, good, seedable generator; floats in [0,1) from its top 24 bits. */
static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static int compare_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* ---------------------------------------------------------------- demo */

static const char demo_usage[] =
    "usage: cuprim demo [--n N] [--seed S] [--runs R]\n"
    "  Reduces N random floats in [0,1) (F32 SUM, CUPRIM_REDUCE_AUTO) on device 0 and checks\n"
    "  the result against a host sum in double precision.\n"
    "  --n N      number of elements, decimal or 2^K (default 2^26)\n"
    "  --seed S   seed of the generator (default 1)\n"
    "  --runs R   timed runs after one warm-up call; the median is reported (default 5)\n";

static int cmd_demo(int argc, char **argv) {
  uint64_t n = (uint64_t)1 << 26, seed = 1, runs = 5;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(demo_usage, stdout);
      return 0;
    }
    const char *arg = argv[i], *v;
    uint64_t *dst = NULL;
    if ((v = option_value(argc, argv, &i, "--n")))
      dst = &n;
    else if ((v = option_value(argc, argv, &i, "--seed")))
      dst = &seed;
    else if ((v = option_value(argc, argv, &i, "--runs")))
      dst = &runs;
    if (!dst || parse_u64(v, dst) || runs == 0 || runs > 1000) {
      fprintf(stderr, "cuprim demo: unknown option, or bad or missing value: %s\n%s", arg,
              demo_usage);
      return EXIT_USAGE;
    }
  }
  if (n > SIZE_MAX / sizeof(float)) {
    fprintf(stderr, "cuprim demo: --n %llu is too large for this host\n", (unsigned long long)n);
    return EXIT_USAGE;
  }

  int rc = require_device();
  if (rc)
    return rc;

  /* Host data and the reference. */
  const size_t bytes = (size_t)n * sizeof(float);
  float *h_in = (float *)malloc(bytes ? bytes : 1);
  float *times_ms = (float *)malloc((size_t)runs * sizeof(float));
  if (!h_in || !times_ms) {
    fprintf(stderr, "cuprim demo: cannot allocate %zu bytes of host memory\n", bytes);
    free(h_in);
    free(times_ms);
    return EXIT_WRONG;
  }
  uint64_t state = seed;
  double reference = 0.0;
  for (uint64_t i = 0; i < n; ++i) {
    h_in[i] = (float)(splitmix64(&state) >> 40) * 0x1p-24f;
    reference += h_in[i];
  }

  cuprim_ctx *ctx = NULL;
  cudaStream_t stream = NULL;
  cudaEvent_t start = NULL, stop = NULL;
  float *d_in = NULL, *d_out = NULL;
  float result = 0.0f;
  struct cudaDeviceProp prop;
  rc = EXIT_WRONG;
  if (cuprim_failed(cuprim_ctx_create(&ctx, 0, NULL), "cuprim_ctx_create") ||
      cuda_failed(cudaSetDevice(0), "cudaSetDevice") ||
      cuda_failed(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties") ||
      cuda_failed(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate") ||
      cuda_failed(cudaEventCreate(&start), "cudaEventCreate") ||
      cuda_failed(cudaEventCreate(&stop), "cudaEventCreate") ||
      cuda_failed(cudaMalloc((void **)&d_in, bytes ? bytes : 1), "cudaMalloc") ||
      cuda_failed(cudaMalloc((void **)&d_out, sizeof(float)), "cudaMalloc") ||
      cuda_failed(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice), "cudaMemcpy"))
    goto done;

  /* One warm-up call (loads the module, fills the memory pool), then timed runs. */
  if (cuprim_failed(cuprim_reduce(ctx, d_in, d_out, n, CUPRIM_F32, CUPRIM_SUM, stream),
                    "cuprim_reduce"))
    goto done;
  for (uint64_t r = 0; r < runs; ++r) {
    if (cuda_failed(cudaEventRecord(start, stream), "cudaEventRecord") ||
        cuprim_failed(cuprim_reduce(ctx, d_in, d_out, n, CUPRIM_F32, CUPRIM_SUM, stream),
                      "cuprim_reduce") ||
        cuda_failed(cudaEventRecord(stop, stream), "cudaEventRecord") ||
        cuda_failed(cudaEventSynchronize(stop), "cudaEventSynchronize") ||
        cuda_failed(cudaEventElapsedTime(&times_ms[r], start, stop), "cudaEventElapsedTime"))
      goto done;
  }
  if (cuda_failed(cudaMemcpy(&result, d_out, sizeof result, cudaMemcpyDeviceToHost), "cudaMemcpy"))
    goto done;
  qsort(times_ms, (size_t)runs, sizeof(float), compare_float);
  const double median_ms =
      runs % 2 ? times_ms[runs / 2] : 0.5 * (times_ms[runs / 2 - 1] + times_ms[runs / 2]);

  /* reduce.h: float sums are accurate to about log2(n) * eps * sum|x|; all inputs are >= 0, so
   * sum|x| is the reference itself. Twice that bound, and at least 2 eps. */
  const double abs_error = fabs((double)result - reference);
  const double rel_error = reference != 0.0 ? abs_error / reference : abs_error;
  const double tolerance = 2.0 * fmax(1.0, ceil(log2((double)(n ? n : 1)))) * FLT_EPSILON;
  const int ok = rel_error <= tolerance;

  printf("cuprim %s demo: reduce F32 SUM of n = %llu random floats in [0,1) (seed %llu)\n",
         cuprim_version_string(), (unsigned long long)n, (unsigned long long)seed);
  printf("  device      %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);
  printf("  result      %.9g\n", (double)result);
  printf("  reference   %.9g (host, double accumulation)\n", reference);
  printf("  rel. error  %.3g (tolerance %.3g): %s\n", rel_error, tolerance, ok ? "ok" : "WRONG");
  printf("  time        %.3f us (median of %llu runs after a warm-up)\n", median_ms * 1e3,
         (unsigned long long)runs);
  printf("  bandwidth   %.1f GB/s\n", median_ms > 0 ? (double)bytes / (median_ms * 1e6) : 0.0);
  rc = ok ? 0 : EXIT_WRONG;

done:
  cudaFree(d_in);
  cudaFree(d_out);
  if (start)
    cudaEventDestroy(start);
  if (stop)
    cudaEventDestroy(stop);
  if (stream)
    cudaStreamDestroy(stream);
  cuprim_ctx_destroy(ctx);
  free(h_in);
  free(times_ms);
  return rc;
}

/* ---------------------------------------------------------------- dispatch */

typedef struct command {
  const char *name;
  const char *summary;
  int (*run)(int argc, char **argv); /* argv[0] is the subcommand's name */
} command;

static const command commands[] = {
    {"demo", "reduce generated data on the GPU, check it and time it", cmd_demo},
};
enum { NUM_COMMANDS = sizeof commands / sizeof commands[0] };

static void print_help(FILE *f) {
  fprintf(f,
          "usage: cuprim <command> [options]\n"
          "       cuprim --version | --help\n"
          "\n"
          "cuprim %s: GPU parallel primitives behind a plain C API.\n"
          "\n"
          "commands:\n",
          cuprim_version_string());
  for (int i = 0; i < NUM_COMMANDS; ++i)
    fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(f, "\n'cuprim <command> --help' describes a command's options.\n"
             "exit status: 0 success, 1 wrong result or failed call, 2 usage error,\n"
             "             77 no CUDA device or driver\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    print_help(stderr);
    return EXIT_USAGE;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "help") == 0) {
    print_help(stdout);
    return 0;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("cuprim %s\n", cuprim_version_string());
    return 0;
  }
  for (int i = 0; i < NUM_COMMANDS; ++i)
    if (strcmp(argv[1], commands[i].name) == 0)
      return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "cuprim: unknown command '%s'\n\n", argv[1]);
  print_help(stderr);
  return EXIT_USAGE;
}
