/* The status table: one line per cuprim_status. status.c expands it into the strings and into
 * compile-time checks that the public enum in core.h matches it (core.h pins the values). */
#ifndef CUPRIM_STATUS_TABLE_H
#define CUPRIM_STATUS_TABLE_H

#define CUPRIM__STATUS_TABLE(X)                                                                    \
  X(SUCCESS, 0, "success")                                                                         \
  X(ERROR_INVALID_ARGUMENT, 1, "invalid argument")                                                 \
  X(ERROR_UNSUPPORTED, 2, "unsupported dtype, operator or algorithm combination")                  \
  X(ERROR_OUT_OF_MEMORY, 3, "out of device memory: the allocator returned NULL")                   \
  X(ERROR_NO_DEVICE, 4, "no usable CUDA device or driver")                                         \
  X(ERROR_CUDA, 5, "CUDA runtime error (see cuprim_last_cuda_error)")                              \
  X(ERROR_INTERNAL, 6, "internal error in cuprim")                                                 \
  X(ERROR_NCCL, 7, "NCCL error (see cuprim_nccl_last_error)")

#endif
