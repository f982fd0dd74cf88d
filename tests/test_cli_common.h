/* Helpers of the tests that run the cuprim program (test_cli_run.c, test_cli_gpu.c): a scratch
 * directory, running the program with captured stdout, stderr and exit status, and writing and
 * reading .npy files. Host code, plain C11 + POSIX. */
#ifndef CUPRIM_TEST_CLI_COMMON_H
#define CUPRIM_TEST_CLI_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include <cuprim/cuprim.h>

/* Creates a fresh scratch directory under the current one (tc_scratch() names it); 0 on success. */
int tc_make_scratch(void);
/* Removes it and everything in it; 0 on success. */
int tc_remove_scratch(void);
const char *tc_scratch(void);
/* "<scratch>/<name>": static storage, the same for the same name, valid until the process ends. */
const char *tc_path(const char *name);

/* The result of one run of the program. */
typedef struct tc_run {
  int status;      /* the exit status, or -1 if it did not exit normally */
  char out[65536]; /* stdout, cut at the buffer's size */
  size_t out_len;  /* its length (it may hold NUL bytes: a .npy written to "-") */
  char err[8192];  /* stderr */
} tc_run;

/* cmocka group setup and teardown: the scratch directory, and one tc_run for the whole program
 * (too large for the stack), which each test finds in *state. */
int tc_setup(void **state);
int tc_teardown(void **state);

/* Runs CUPRIM_CLI_PATH with `args` (a shell word list, formatted like printf), with stdin from
 * /dev/null; prints the command, its status and stderr as cmocka messages. */
void tc_cli(tc_run *r, const char *args_fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes a C-order .npy file of `count` elements of `t` (shape (count,), or () when ndim is 0)
 * with cuprim's writer; fails the test on error. */
void tc_write_npy(const char *path, cuprim_dtype t, unsigned ndim, const uint64_t *shape,
                  const void *data, size_t bytes);
/* tc_write_npy of a vector: shape (n,), n elements of t. */
void tc_write_vector(const char *path, cuprim_dtype t, uint64_t n, const void *data);
/* Writes raw bytes; fails the test on error. */
void tc_write_file(const char *path, const void *data, size_t bytes);
/* Reads a .npy file written by the program: its dtype, element count and data (malloc'd). Fails
 * the test if it is not a valid .npy. */
void *tc_read_npy(const char *path, cuprim_dtype *t, uint64_t *count);
/* 1 if the path exists. */
int tc_exists(const char *path);
/* The number of entries of the scratch directory whose names contain `needle`. */
int tc_count_entries(const char *needle);

#endif
