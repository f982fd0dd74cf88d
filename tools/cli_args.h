/* tools/cli_args.h: the cuprim program's command line, parsed into one struct (plain C11, no
 * CUDA calls), its exit codes, and which dtypes and ops each primitive takes. Names of dtypes,
 * ops and algorithms are the library's and the host references' (cuprim_dtype_name,
 * cuprim_op_name, harness/hostref.h's hr_alg_name).
 *
 * Everything that can be checked without a file or a device is checked here (option names,
 * numbers, ranges, bin counts, which options a command takes), so that a bad command line gets
 * exit code 2 and one line on stderr before anything is opened. */
#ifndef CUPRIM_TOOLS_CLI_ARGS_H
#define CUPRIM_TOOLS_CLI_ARGS_H

#include <cuprim/cuprim.h>

#include "hostref.h"
#include "hostref_segmented.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit status of the program. 0..2 and 77 are the original scheme; 3..6 name the classes of
 * bad input, so that scripts can tell them apart. */
enum cli_exit {
  CLI_EXIT_OK = 0,
  CLI_EXIT_FAILED = 1,      /* a wrong result, or a failed CUDA or cuprim call */
  CLI_EXIT_USAGE = 2,       /* bad command line: unknown option, bad number, bad range or bins */
  CLI_EXIT_INPUT = 3,       /* an input file cannot be opened or read (missing, unreadable) */
  CLI_EXIT_FORMAT = 4,      /* an input file is invalid: malformed, big-endian or Fortran-order
                               .npy, unsupported dtype, truncated, size not matching, bad edges */
  CLI_EXIT_UNSUPPORTED = 5, /* the primitive does not take this dtype and op (AND on floats,
                               8- and 16-bit integer reduce or scan, weights not F32/F64) */
  CLI_EXIT_OUTPUT = 6,      /* the output file cannot be written */
  CLI_EXIT_NO_DEVICE = 77   /* no CUDA device or driver (the usual "skipped" of test harnesses) */
};

typedef enum cli_command {
  CLI_CMD_NONE = 0, /* only --help or --version */
  CLI_CMD_DEMO,
  CLI_CMD_INFO,
  CLI_CMD_REDUCE,
  CLI_CMD_SCAN,
  CLI_CMD_HISTOGRAM,
  CLI_CMD_LADDER
} cli_command;

/* The same values as hostref.h's hr_primitive, so that one converts to the other. */
typedef enum cli_primitive {
  CLI_PRIM_REDUCE = HR_REDUCE,
  CLI_PRIM_SCAN = HR_SCAN,
  CLI_PRIM_HISTOGRAM = HR_HISTOGRAM,
  CLI_PRIM_SEGMENTED = HR_SEGMENTED /* the segmented reduce (ladder only) */
} cli_primitive;

/* Devices --devices takes at most: more than one host holds. Channels of --channels: as
 * cuprim_histogram_even_multi takes them. */
enum { CLI_MAX_DEVICES = 64, CLI_MAX_CHANNELS = 4 };

typedef struct cli_args {
  cli_command command;
  int help;    /* --help: print the command's usage and exit 0 */
  int version; /* --version (no command) */

  /* reduce, scan, histogram */
  const char *input;  /* FILE: .npy, or raw binary with --dtype */
  const char *output; /* -o/--output FILE, or NULL */
  int have_dtype;     /* --dtype given (raw input; the ladder's data type) */
  cuprim_dtype dtype; /* default F32 */
  cuprim_op op;       /* --op, default SUM */
  int have_op;
  int arg; /* reduce --op argmin|argmax: 1, with arg_op (op is left SUM) */
  cuprim_arg_op arg_op;
  int alg; /* --alg, as the primitive's enum value (with --weights:
              cuprim_histogram_weighted_alg's); default 0 (AUTO) */
  int have_alg;
  const char *alg_name;  /* the --alg value, resolved once the whole line is read */
  cuprim_scan_kind kind; /* --exclusive / --inclusive, default inclusive */
  int have_kind;
  uint32_t bins; /* --bins N, 1..2^32-1 (the first of a list) */
  int have_bins;
  double lower, upper; /* --range LO HI: finite, lower < upper, bins / (upper - lower) finite */
  int have_range;
  /* histogram --channels C [--active A]: interleaved pixels of C channels (1..4), the first A
   * counted (default all). --bins and --range take one value for every channel or a comma list
   * of A (--bins 256,256,64 --range 0,0,-1 256,256,1); after parsing, channel c's bins are
   * [chan_lower[c], chan_upper[c]) in chan_bins[c] bins. Without --channels, one value each. */
  int channels; /* 0: plain samples */
  int active;
  uint32_t chan_bins[CLI_MAX_CHANNELS];
  double chan_lower[CLI_MAX_CHANNELS], chan_upper[CLI_MAX_CHANNELS];
  int num_bins_given, num_lower_given, num_upper_given; /* list lengths as given (1..4) */
  const char *weights; /* histogram --weights W.npy: F32 or F64, one weight per sample */
  const char *edges; /* --edges FILE: .npy, or text (numbers separated by space, comma, newline) */
  uint64_t chunk;    /* --chunk N elements per device pass; 0: sized from cudaMemGetInfo */
  /* reduce, scan: one result (reduce) or one scan per segment, the segments given by --offsets
   * FILE (a .npy of num_segments + 1 offsets, i32 u32 i64 or u64: cuprim_segmented_reduce and
   * _scan) or by --segment-size L (rows of L elements: cuprim_batched_reduce and _scan). One
   * device, the whole input at once: no --chunk, --devices of several, --alg or argmin/argmax. */
  const char *offsets;
  uint64_t segment_size; /* 1 .. 2^64 - 1; also ladder segmented's (1 .. --n, default 32) */
  int have_segment_size;

  /* demo, ladder, info */
  cli_primitive primitive; /* ladder's first operand */
  /* ladder segmented: generated offsets of a distribution of harness/hostref_segmented.h
   * (--segments uniform|random|power_law, default uniform) with parameter segment_size
   * (--segment-size L: uniform segments of L, random ones of 0 .. 2L; power_law takes none) */
  hr_seg_dist segments;
  int have_segments;
  uint64_t n;    /* --n N, default 2^26 */
  uint64_t runs; /* --runs R, 1..1000 timed runs; default 5 (demo), 20 (ladder), 20 (info) */
  int have_runs;
  uint64_t seed; /* --seed S, default 1 */
  int device;    /* --device D, default 0; with --devices, the first one listed */
  int have_device;

  /* reduce, scan, histogram: the devices to run on, in the order of the shares of the input
   * (--devices D0,D1,...: distinct ordinals), or the one of --device. */
  int devices[CLI_MAX_DEVICES];
  int num_devices;         /* 1 .. CLI_MAX_DEVICES */
  const char *devices_arg; /* the --devices value as given, for messages; NULL without it */
} cli_args;

/* Formats one line (printf-style) into err[0..len) and returns `code`: how every check of the
 * program reports a failure. err may be NULL. */
int cli_error(int code, char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Parses argv[1..argc) (argv[0] is the program). Returns CLI_EXIT_OK with *a filled, or
 * CLI_EXIT_USAGE with one line (no trailing newline) in err[0..err_len). */
int cli_parse(int argc, char **argv, cli_args *a, char *err, size_t err_len);

/* Whether this program can run the command line's devices: more than one device needs the NCCL
 * component (have_nccl: the program was built with it). CLI_EXIT_OK, or CLI_EXIT_USAGE with one
 * line in err. Apart from cli_parse so that both answers are testable in one build. */
int cli_check_devices(const cli_args *a, int have_nccl, char *err, size_t err_len);

/* The usage text of a command (CLI_CMD_NONE: the program's), with its options and exit codes. */
const char *cli_usage(cli_command c);
/* "demo", "reduce", ...; NULL for CLI_CMD_NONE. */
const char *cli_command_name(cli_command c);

/* "reduce", "scan", "histogram", "segmented". */
const char *cli_primitive_name(cli_primitive p);

/* CLI_EXIT_OK if primitive p takes dtype t with op (histogram: op ignored), else
 * CLI_EXIT_UNSUPPORTED with one line in err naming what it takes. The answer is the library's
 * (cuprim_reduce_supported, cuprim_scan_supported, cuprim_histogram_supported,
 * cuprim_segmented_supported), asked before any device, so that it does not depend on having one
 * and grows with the library. */
int cli_check_supported(cli_primitive p, cuprim_dtype t, cuprim_op op, char *err, size_t len);

/* Parsers of single values, for the options and for files (exposed for the tests).
 * Each returns 0 on success and leaves *out untouched on failure. */
enum { CLI_NOT_A_NUMBER = 1, CLI_TOO_LARGE = 2 };      /* cli_parse_u64's failures */
int cli_parse_u64(const char *s, uint64_t *out);       /* decimal or 2^K, no sign; past 2^64 - 1 (or
                                                           K > 63): CLI_TOO_LARGE */
int cli_parse_double(const char *s, double *out);      /* strtod, the whole string, finite */
int cli_parse_dtype(const char *s, cuprim_dtype *out); /* f32, float32, i8, int8, bf16, ... */
int cli_parse_op(const char *s, cuprim_op *out);
int cli_parse_arg_op(const char *s, cuprim_arg_op *out);     /* argmin, argmax */
int cli_parse_alg(cli_primitive p, const char *s, int *out); /* case and - vs _ ignored */

#ifdef __cplusplus
}
#endif

#endif /* CUPRIM_TOOLS_CLI_ARGS_H */
