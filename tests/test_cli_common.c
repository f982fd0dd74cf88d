/* Helpers of the tests that run the cuprim program (see test_cli_common.h). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, opendir */

#include "test_cli_common.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "test_util.h"

#include "npy.h"

static char scratch[64];

int tc_make_scratch(void) {
  strcpy(scratch, "cli_test_XXXXXX");
  return mkdtemp(scratch) ? 0 : -1;
}

int tc_remove_scratch(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
  return system(cmd) == 0 ? 0 : -1;
}

const char *tc_scratch(void) { return scratch; }

int tc_setup(void **state) {
  tc_run *r = malloc(sizeof *r);
  if (!r || tc_make_scratch() != 0) {
    free(r);
    return -1;
  }
  *state = r;
  return 0;
}

int tc_teardown(void **state) {
  free(*state);
  return tc_remove_scratch();
}

const char *tc_path(const char *name) {
  /* Interned: the same name always gives the same buffer, valid for the whole process, so a test
   * may hold a path across any number of other calls. */
  enum { MAX_PATHS = 256, PATH_LEN = 512 };
  static char names[MAX_PATHS][PATH_LEN], paths[MAX_PATHS][PATH_LEN];
  static int used;
  for (int i = 0; i < used; ++i)
    if (strcmp(names[i], name) == 0)
      return paths[i];
  assert_true(used < MAX_PATHS && strlen(name) < PATH_LEN);
  snprintf(names[used], PATH_LEN, "%s", name);
  snprintf(paths[used], PATH_LEN, "%s/%s", scratch, name);
  return paths[used++];
}

/* Reads a whole small file into buf (NUL-terminated, cut at len - 1 bytes); returns its length. */
static size_t slurp(const char *path, char *buf, size_t len) {
  buf[0] = '\0';
  FILE *f = fopen(path, "rb");
  if (!f)
    return 0;
  const size_t n = fread(buf, 1, len - 1, f);
  buf[n] = '\0';
  fclose(f);
  return n;
}

void tc_cli(tc_run *r, const char *args_fmt, ...) {
  char args[2048], cmd[4096];
  va_list ap;
  va_start(ap, args_fmt);
  vsnprintf(args, sizeof args, args_fmt, ap);
  va_end(ap);
  /* The program's path in single quotes (it may hold spaces; it holds no quote). */
  const int n = snprintf(cmd, sizeof cmd, "'%s' %s </dev/null >'%s' 2>'%s'", CUPRIM_CLI_PATH, args,
                         tc_path(".stdout"), tc_path(".stderr"));
  assert_true(n > 0 && (size_t)n < sizeof cmd);
  const int ws = system(cmd);
  assert_int_not_equal(ws, -1);
  r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
  r->out_len = slurp(tc_path(".stdout"), r->out, sizeof r->out);
  slurp(tc_path(".stderr"), r->err, sizeof r->err);
  print_message("  $ cuprim %s\n    -> %d%s%s", args, r->status, r->err[0] ? ", stderr: " : "\n",
                r->err);
}

void tc_write_file(const char *path, const void *data, size_t bytes) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  if (bytes)
    assert_int_equal(fwrite(data, 1, bytes, f), bytes);
  assert_int_equal(fclose(f), 0);
}

void tc_write_npy(const char *path, cuprim_dtype t, unsigned ndim, const uint64_t *shape,
                  const void *data, size_t bytes) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(npy_write_header(f, t, ndim, shape), NPY_OK);
  if (bytes)
    assert_int_equal(fwrite(data, 1, bytes, f), bytes);
  assert_int_equal(fclose(f), 0);
}

void tc_write_vector(const char *path, cuprim_dtype t, uint64_t n, const void *data) {
  const uint64_t shape[1] = {n};
  tc_write_npy(path, t, 1, shape, data, (size_t)n * cuprim_dtype_size(t));
}

void *tc_read_npy(const char *path, cuprim_dtype *t, uint64_t *count) {
  FILE *f = fopen(path, "rb");
  if (!f)
    fail_msg("%s: cannot open the program's output", path);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  npy_header h;
  char detail[256];
  const npy_status s = npy_read_header(f, (uint64_t)st.st_size, &h, detail, sizeof detail);
  if (s != NPY_OK)
    fail_msg("%s: %s: %s", path, npy_status_string(s), detail);
  const size_t bytes = (size_t)h.count * npy_dtype_size(h.dtype);
  void *data = malloc(bytes ? bytes : 1);
  assert_non_null(data);
  assert_int_equal(fread(data, 1, bytes, f), bytes);
  fclose(f);
  *t = h.dtype;
  *count = h.count;
  return data;
}

int tc_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

int tc_count_entries(const char *needle) {
  DIR *d = opendir(scratch);
  assert_non_null(d);
  int n = 0;
  for (struct dirent *e = readdir(d); e; e = readdir(d))
    n += strstr(e->d_name, needle) != NULL;
  closedir(d);
  return n;
}
