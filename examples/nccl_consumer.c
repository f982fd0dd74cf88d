/* The smallest program that links cuprim's NCCL component from outside the project: it needs no
 * GPU, so the install_and_link test (scripts/test_install.sh) runs it on any machine. It checks
 * that cuprim/nccl.h compiles as C, that the archive, the core archive and NCCL link in, and
 * that a call refuses a NULL context before it touches NCCL.
 *
 *   cc -std=c11 nccl_consumer.c $(pkg-config --cflags --libs cuprim-nccl) -o nccl_consumer
 *   or CMake: find_package(cuprim REQUIRED COMPONENTS nccl), target cuprim::nccl.
 *
 * Exit status: 0 pass, 1 fail. */
#include <cuprim/nccl.h>

#include <stdio.h>

int main(void) {
  int version = 0;
  if (ncclGetVersion(&version) != ncclSuccess) {
    fprintf(stderr, "nccl_consumer: ncclGetVersion failed\n");
    return 1;
  }
  printf("cuprim %s, NCCL %d (headers %d)\n", cuprim_version_string(), version, NCCL_VERSION_CODE);
  /* Argument checks come before any CUDA or NCCL call: no device or communicator needed. */
  const cuprim_status s =
      cuprim_nccl_reduce(NULL, NULL, NULL, NULL, 0, CUPRIM_F32, CUPRIM_SUM, (cudaStream_t)0);
  if (s != CUPRIM_ERROR_INVALID_ARGUMENT || cuprim_nccl_last_error() != ncclSuccess) {
    fprintf(stderr, "nccl_consumer: cuprim_nccl_reduce(NULL, ...) returned %s\n",
            cuprim_status_string(s));
    return 1;
  }
  printf("nccl_consumer: ok\n");
  return 0;
}
