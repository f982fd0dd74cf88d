/* tools/cli_io.h: the cuprim program's files (plain C11 + POSIX, no CUDA calls): opening and
 * checking an input (.npy or raw; regular files only), reading bin edges, and writing an output
 * safely (to a temporary name beside the final file, through symbolic links, renamed into place
 * only when complete; removed on failure and on SIGINT/SIGTERM/SIGHUP), or straight to standard
 * output or a device. Every function reports a failure as one line in err and returns one of the
 * cli_exit codes: CLI_EXIT_INPUT (cannot open or read), CLI_EXIT_FORMAT (the content is
 * invalid), CLI_EXIT_OUTPUT (cannot write). Bytes of a file are escaped in messages. */
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
  uint64_t done;  /* bytes of data read so far by cli_input_read (or skipped by cli_input_seek) */
  uint64_t data_offset; /* where the data starts in the file (past a .npy header) */
} cli_input;

/* Opens `path`, which must be a regular file (a directory, a FIFO or a device is CLI_EXIT_INPUT
 * at once, without reading or waiting). A file that starts with the .npy magic is read as .npy
 * (its dtype must match `dtype` when have_dtype is set); any other file is raw binary of `dtype`
 * and needs have_dtype (its size must be a multiple of the element size). A file named *.npy that
 * does not start with the magic is reported as a bad .npy. */
int cli_input_open(cli_input *in, const char *path, int have_dtype, cuprim_dtype dtype, char *err,
                   size_t len);
/* Reads the next `bytes` bytes of data into buf. */
int cli_input_read(cli_input *in, void *buf, size_t bytes, char *err, size_t len);
/* Positions the input at element `i` (0 .. count) for the next cli_input_read: where a device's
 * share of the input starts, or a second reading of it. */
int cli_input_seek(cli_input *in, uint64_t i, char *err, size_t len);
void cli_input_close(cli_input *in);

/* Bin edges: *edges (malloc'd, bins + 1 doubles, freed by the caller) from a .npy file of any
 * dtype it reads and any shape, or from text: numbers separated by whitespace or commas, '#' to
 * the end of a line a comment, no NUL byte. At least two edges, all finite, strictly increasing,
 * and at most 2^32 bins. The file must be regular, as an input. */
int cli_read_edges(const char *path, double **edges, uint32_t *bins, char *err, size_t len);

typedef struct cli_output {
  FILE *f;
  char *path;     /* the final name: the target of the links of the name given */
  char *tmp_path; /* where it is written: "<dir>/.<name>.tmp-XXXXXX" (NULL if direct) */
  int direct;     /* 1: written straight to f (standard output, or not a regular file) */
  int is_stdout;  /* 1: f is stdout ("-", /dev/stdout, or the file stdout is redirected to) */
  int csv;        /* cli_output_write_elements writes text, one element a line */
  cuprim_dtype csv_dtype;
} cli_output;

/* Opens the output `path`, before any device work, so that a name that cannot be written fails
 * first (CLI_EXIT_OUTPUT):
 *   "-"             standard output;
 *   a directory     refused;
 *   standard output under another name (/dev/stdout, the file stdout is redirected to): stdout;
 *   another file that is not a regular one (/dev/null, a FIFO): opened and written in place;
 *   else            a temporary beside the final target of any symbolic links (the link stays),
 *                   its name cut to fit NAME_MAX, renamed onto the target by cli_output_commit;
 *                   a file replaced keeps its permissions, a new one gets 0666 less the umask. */
int cli_output_open(cli_output *o, const char *path, char *err, size_t len);
/* Writes bytes; a short write is CLI_EXIT_OUTPUT. */
int cli_output_write(cli_output *o, const void *buf, size_t bytes, char *err, size_t len);
/* Writes elements: their bytes, or, with o->csv set, each as a line of text that reads back to
 * the same value (hr_format_value). bytes is a whole number of elements of o->csv_dtype. */
int cli_output_write_elements(cli_output *o, const void *buf, size_t bytes, char *err, size_t len);
/* Flushes, closes and renames the file into place (direct outputs: flushes; stdout stays open).
 * On failure the temporary is removed. */
int cli_output_commit(cli_output *o, char *err, size_t len);
/* Closes and removes the temporary (a no-op on a zeroed or committed struct). */
void cli_output_abort(cli_output *o);

/* 1 if path ends in `suffix`, ignoring case. */
int cli_has_suffix(const char *path, const char *suffix);

#ifdef __cplusplus
}
#endif

#endif /* CUPRIM_TOOLS_CLI_IO_H */
