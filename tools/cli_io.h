/* tools/cli_io.h: the cuprim program's files (plain C11 + POSIX, no CUDA calls): opening and
 * checking an input (.npy or raw), reading bin edges, and writing an output safely (to a
 * temporary name in the same directory, renamed into place only when complete; removed on
 * failure and on SIGINT/SIGTERM/SIGHUP). Every function reports a failure as one line in err and
 * returns one of the cli_exit codes: CLI_EXIT_INPUT (cannot open or read), CLI_EXIT_FORMAT (the
 * content is invalid), CLI_EXIT_OUTPUT (cannot write). */
#ifndef CUPRIM_TOOLS_CLI_IO_H
#define CUPRIM_TOOLS_CLI_IO_H

#include "cli_args.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cli_input {
  FILE *f; /* positioned at the first element after cli_input_open */
  const char *path;
  int is_npy; /* 0: raw binary */
  cuprim_dtype dtype;
  uint64_t count; /* elements (the shape flattened) */
  uint64_t bytes; /* count * element size */
  uint64_t done;  /* bytes read so far by cli_input_read */
} cli_input;

/* Opens `path`. A file that starts with the .npy magic is read as .npy (its dtype must match
 * `dtype` when have_dtype is set); any other file is raw binary of `dtype` and needs have_dtype
 * (its size must be a multiple of the element size). A file named *.npy that does not start
 * with the magic is reported as a bad .npy. */
int cli_input_open(cli_input *in, const char *path, int have_dtype, cuprim_dtype dtype, char *err,
                   size_t len);
/* Reads the next `bytes` bytes of data into buf. */
int cli_input_read(cli_input *in, void *buf, size_t bytes, char *err, size_t len);
void cli_input_close(cli_input *in);

/* Bin edges: *edges (malloc'd, bins + 1 doubles, freed by the caller) from a .npy file of any
 * of the ten dtypes and any shape, or from text: numbers separated by whitespace or commas,
 * '#' to the end of a line a comment. At least two edges, all finite, strictly increasing, and
 * at most 2^32 bins. */
int cli_read_edges(const char *path, double **edges, uint32_t *bins, char *err, size_t len);

typedef struct cli_output {
  FILE *f;
  char *path;     /* the final name */
  char *tmp_path; /* where it is written: "<dir>/.<name>.tmp-XXXXXX" */
} cli_output;

/* Creates the temporary file next to `path`, with the permissions a new file would get. */
int cli_output_open(cli_output *o, const char *path, char *err, size_t len);
/* Writes bytes; a short write is CLI_EXIT_OUTPUT. */
int cli_output_write(cli_output *o, const void *buf, size_t bytes, char *err, size_t len);
/* Flushes, closes and renames the file into place. On failure the temporary is removed. */
int cli_output_commit(cli_output *o, char *err, size_t len);
/* Closes and removes the temporary (a no-op on a zeroed or committed struct). */
void cli_output_abort(cli_output *o);

/* 1 if path ends in `suffix`, ignoring case. */
int cli_has_suffix(const char *path, const char *suffix);

#ifdef __cplusplus
}
#endif

#endif /* CUPRIM_TOOLS_CLI_IO_H */
