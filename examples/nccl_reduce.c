/* Sum ten million floats spread over every GPU, one process per GPU, with cuprim's NCCL
 * component (cuprim/nccl.h).
 *
 * The program starts its processes itself: rank 0 (the first process) forks one process for each
 * other GPU, makes the communicator's id with ncclGetUniqueId and hands it to each of them through
 * a pipe, as an MPI program hands it over with MPI_Bcast:
 *
 *   ncclUniqueId id;
 *   if (rank == 0) ncclGetUniqueId(&id);
 *   MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
 *
 * Then every rank does the same: a communicator (ncclCommInitRank) and a cuprim context on its
 * GPU, its shard of the data on its GPU (shards of unequal lengths: rank r holds elements
 * [r*N/P, (r+1)*N/P)), and one call of cuprim_nccl_reduce, after which every rank holds the same
 * sum, bit for bit.
 *
 * Build against an installed cuprim with either
 *   gcc -std=c11 nccl_reduce.c $(pkg-config --cflags --libs cuprim-nccl) -o nccl_reduce
 * or CMake: find_package(cuprim REQUIRED COMPONENTS nccl), target_link_libraries(... cuprim::nccl).
 *
 * usage: nccl_reduce [GPUS]   (default: every visible GPU)
 * Exit status: 0 every rank's sum matches the host's; 1 it does not, or a call failed; 77 no CUDA
 * device. */
#define _POSIX_C_SOURCE 200809L

#include <cuprim/nccl.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 10000000ull
#define MAX_RANKS 64

/* Element i of the data, the same on every rank: a value in [0, 1). */
static float element(uint64_t i) {
  return (float)((i * 2654435761u) >> 8 & 0xffffff) / 16777216.0f;
}

/* The number of GPUs, asked in a child process: CUDA must not be initialised in a process that
 * forks afterwards (the children could not use it), and rank 0 forks the others. */
static int count_gpus(void) {
  const pid_t pid = fork();
  if (pid < 0)
    return 0;
  if (pid == 0) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess)
      count = 0;
    _exit(count < MAX_RANKS ? count : MAX_RANKS);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
    return 0;
  return WEXITSTATUS(status);
}

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "nccl_reduce: rank %d: ", rank);                                             \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      goto done;                                                                                   \
    }                                                                                              \
  } while (0)

/* One rank: GPU `rank`, its shard, the collective sum. Returns the exit status. */
static int run_rank(int rank, int nranks, ncclUniqueId id) {
  int ok = 0;
  ncclComm_t comm = NULL;
  cuprim_ctx *ctx = NULL;
  cudaStream_t stream = NULL;
  float *h_in = NULL, *d_in = NULL, *d_sum = NULL, sum = 0.0f;
  const uint64_t first = N * (uint64_t)rank / (uint64_t)nranks;
  const uint64_t n = N * (uint64_t)(rank + 1) / (uint64_t)nranks - first;

  /* A rank that fails before it joins leaves the others waiting in ncclCommInitRank or in the
   * collective (NCCL cannot know it is gone): end every rank after five minutes whatever happens.
   * A real program aborts the communicator (ncclCommAbort) on every rank instead. */
  alarm(300);
  CHECK(cudaSetDevice(rank) == cudaSuccess, "cudaSetDevice(%d) failed", rank);
  ncclResult_t nr = ncclCommInitRank(&comm, nranks, id, rank);
  CHECK(nr == ncclSuccess, "ncclCommInitRank: %s", ncclGetErrorString(nr));
  cuprim_status s = cuprim_ctx_create(&ctx, rank, NULL);
  CHECK(s == CUPRIM_SUCCESS, "cuprim_ctx_create: %s", cuprim_status_string(s));
  CHECK(cudaStreamCreate(&stream) == cudaSuccess, "cudaStreamCreate failed");

  /* This rank's shard, on its GPU. */
  h_in = (float *)malloc((n ? n : 1) * sizeof(float));
  CHECK(h_in != NULL, "out of host memory");
  for (uint64_t i = 0; i < n; ++i)
    h_in[i] = element(first + i);
  CHECK(cudaMalloc((void **)&d_in, (n ? n : 1) * sizeof(float)) == cudaSuccess &&
            cudaMalloc((void **)&d_sum, sizeof(float)) == cudaSuccess,
        "cudaMalloc failed");
  CHECK(cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess,
        "cudaMemcpy failed");

  /* The collective: every rank calls it with its own shard; every rank gets the whole sum. */
  s = cuprim_nccl_reduce(ctx, comm, d_in, d_sum, n, CUPRIM_F32, CUPRIM_SUM, stream);
  CHECK(s == CUPRIM_SUCCESS, "cuprim_nccl_reduce: %s%s%s", cuprim_status_string(s),
        s == CUPRIM_ERROR_NCCL ? ": " : "",
        s == CUPRIM_ERROR_NCCL ? ncclGetErrorString(cuprim_nccl_last_error()) : "");
  CHECK(cudaMemcpyAsync(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost, stream) == cudaSuccess &&
            cudaStreamSynchronize(stream) == cudaSuccess,
        "the copy back failed");

  /* The whole sum on the host, in double, for the check. */
  double expected = 0.0;
  for (uint64_t i = 0; i < N; ++i)
    expected += element(i);
  const double rel = fabs((double)sum - expected) / expected;
  printf("rank %d of %d (GPU %d, elements %llu..%llu): sum %.9g, host %.9g, relative error %.1e\n",
         rank, nranks, rank, (unsigned long long)first, (unsigned long long)(first + n), sum,
         expected, rel);
  ok = rel < 1e-5;
done:
  if (d_in)
    cudaFree(d_in);
  if (d_sum)
    cudaFree(d_sum);
  free(h_in);
  if (stream)
    cudaStreamDestroy(stream);
  cuprim_ctx_destroy(ctx);
  if (comm)
    ncclCommDestroy(comm);
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  const int gpus = count_gpus();
  if (gpus == 0) {
    printf("nccl_reduce: no CUDA device available\n");
    return 77;
  }
  int nranks = argc > 1 ? atoi(argv[1]) : gpus;
  if (nranks < 1 || nranks > gpus) {
    fprintf(stderr, "nccl_reduce: asked for %s GPUs, %d visible\n", argv[1], gpus);
    return 1;
  }

  /* Rank 0 forks ranks 1..P-1 before it touches CUDA, each with a pipe to read the id from. */
  pid_t pids[MAX_RANKS];
  int pipes[MAX_RANKS][2];
  for (int r = 1; r < nranks; ++r) {
    if (pipe(pipes[r]) != 0) {
      perror("nccl_reduce: pipe");
      return 1;
    }
    pids[r] = fork();
    if (pids[r] < 0) {
      perror("nccl_reduce: fork");
      return 1;
    }
    if (pids[r] == 0) {
      ncclUniqueId id;
      close(pipes[r][1]);
      const ssize_t got = read(pipes[r][0], &id, sizeof id);
      close(pipes[r][0]);
      _exit(got == (ssize_t)sizeof id ? run_rank(r, nranks, id) : 1);
    }
    close(pipes[r][0]);
  }

  /* Rank 0: the id, to every other rank (MPI_Bcast's part), then its own shard. */
  ncclUniqueId id;
  const ncclResult_t nr = ncclGetUniqueId(&id);
  if (nr != ncclSuccess)
    fprintf(stderr, "nccl_reduce: ncclGetUniqueId: %s\n", ncclGetErrorString(nr));
  for (int r = 1; r < nranks; ++r) {
    /* On failure the ranks get no id, read nothing and exit: none is left waiting. */
    if (nr == ncclSuccess && write(pipes[r][1], &id, sizeof id) != (ssize_t)sizeof id)
      perror("nccl_reduce: write");
    close(pipes[r][1]);
  }
  int status = nr == ncclSuccess ? run_rank(0, nranks, id) : 1;

  for (int r = 1; r < nranks; ++r) {
    int st = 0;
    if (waitpid(pids[r], &st, 0) != pids[r] || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
      status = 1;
  }
  printf("nccl_reduce: %s\n", status == 0 ? "every rank has the sum" : "FAILED");
  return status;
}
