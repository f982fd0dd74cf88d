/* tools/cli_args.c: the command line of the cuprim program: a table of options (which commands
 * take each, how many values), the value parsers, the checks that tie options together, and the
 * usage texts. Plain C11, no CUDA calls: the tests run it on machines without a GPU. */
#include "cli_args.h"

#include "hostref_histogram.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- names */

static const char *const command_names[] = {
    [CLI_CMD_NONE] = NULL,       [CLI_CMD_DEMO] = "demo", [CLI_CMD_INFO] = "info",
    [CLI_CMD_REDUCE] = "reduce", [CLI_CMD_SCAN] = "scan", [CLI_CMD_HISTOGRAM] = "histogram",
    [CLI_CMD_LADDER] = "ladder",
};
enum { NUM_COMMANDS = sizeof command_names / sizeof command_names[0] };

const char *cli_command_name(cli_command c) {
  return (unsigned)c < NUM_COMMANDS ? command_names[c] : NULL;
}

/* NumPy's long dtype names, accepted besides the library's short ones ("f32"), by dtype value. */
static const char *const dtype_long[] = {
    [CUPRIM_I8] = "int8",     [CUPRIM_U8] = "uint8",    [CUPRIM_I16] = "int16",
    [CUPRIM_U16] = "uint16",  [CUPRIM_I32] = "int32",   [CUPRIM_U32] = "uint32",
    [CUPRIM_I64] = "int64",   [CUPRIM_U64] = "uint64",  [CUPRIM_F32] = "float32",
    [CUPRIM_F64] = "float64", [CUPRIM_F16] = "float16", [CUPRIM_BF16] = "bfloat16"};
enum {
  NUM_LONG_NAMES = sizeof dtype_long / sizeof dtype_long[0],
  MAX_DTYPES = 64 /* past the last dtype the library names: the scans below stop at NULL */
};

/* The ladder's operands, by value: the one table of the primitives' names. */
static const char *const primitive_names[] = {[CLI_PRIM_REDUCE] = "reduce",
                                              [CLI_PRIM_SCAN] = "scan",
                                              [CLI_PRIM_HISTOGRAM] = "histogram",
                                              [CLI_PRIM_SEGMENTED] = "segmented"};
enum { NUM_PRIMITIVES = sizeof primitive_names / sizeof primitive_names[0] };

const char *cli_primitive_name(cli_primitive p) {
  return (unsigned)p < NUM_PRIMITIVES ? primitive_names[p] : "primitive(?)";
}

/* 1 if primitive p takes (t, op), as the library answers. */
static int takes(cli_primitive p, cuprim_dtype t, cuprim_op op) {
  switch (p) {
  case CLI_PRIM_REDUCE:
    return cuprim_reduce_supported(t, op);
  case CLI_PRIM_SCAN:
    return cuprim_scan_supported(t, op);
  case CLI_PRIM_HISTOGRAM:
    return cuprim_histogram_supported(t);
  case CLI_PRIM_SEGMENTED: /* the pairs are the same for every offset dtype */
    return cuprim_segmented_supported(CUPRIM_I64, t, op);
  }
  return 0;
}

/* " i32 u32 ..." : the dtypes p takes with op, into buf; *any_float: 1 if one is a float. */
static void taken_dtypes(cli_primitive p, cuprim_op op, char *buf, size_t len, int *any_float) {
  size_t used = 0;
  *any_float = 0;
  buf[0] = '\0';
  for (int t = 0; t < MAX_DTYPES && cuprim_dtype_name((cuprim_dtype)t); ++t)
    if (takes(p, (cuprim_dtype)t, op) && used < len) {
      used += (size_t)snprintf(buf + used, len - used, " %s", cuprim_dtype_name((cuprim_dtype)t));
      *any_float |= hr_is_float((cuprim_dtype)t);
    }
}

int cli_check_supported(cli_primitive p, cuprim_dtype t, cuprim_op op, char *err, size_t len) {
  const char *prim = cli_primitive_name(p);
  if (!cuprim_dtype_name(t)) {
    snprintf(err, len, "%s: dtype %d is not a cuprim dtype", prim, (int)t);
    return CLI_EXIT_UNSUPPORTED;
  }
  if (p != CLI_PRIM_HISTOGRAM && !cuprim_op_name(op)) {
    snprintf(err, len, "%s: op %d is not a cuprim op", prim, (int)op);
    return CLI_EXIT_UNSUPPORTED;
  }
  if (takes(p, t, op))
    return CLI_EXIT_OK;
  char with_op[128], with_sum[128];
  int float_with_op, float_with_sum;
  taken_dtypes(p, op, with_op, sizeof with_op, &float_with_op);
  taken_dtypes(p, CUPRIM_SUM, with_sum, sizeof with_sum, &float_with_sum);
  if (p == CLI_PRIM_HISTOGRAM || !takes(p, t, CUPRIM_SUM))
    snprintf(err, len, "%s does not take %s data (it takes%s)", prim, cuprim_dtype_name(t),
             with_sum);
  else if (with_op[0] && !float_with_op)
    snprintf(err, len, "%s --op %s takes integer data only (%s), not %s", prim, cuprim_op_name(op),
             with_op + 1, cuprim_dtype_name(t));
  else
    snprintf(err, len, "%s --op %s does not take %s data (with %s it takes%s)", prim,
             cuprim_op_name(op), cuprim_dtype_name(t), cuprim_op_name(op), with_op);
  return CLI_EXIT_UNSUPPORTED;
}

/* Case-insensitive equality, with '-' and '_' the same. */
static int name_equal(const char *a, const char *b) {
  for (; *a && *b; ++a, ++b) {
    const int ca = *a == '-' ? '_' : tolower((unsigned char)*a);
    const int cb = *b == '-' ? '_' : tolower((unsigned char)*b);
    if (ca != cb)
      return 0;
  }
  return *a == *b;
}

/* ---------------------------------------------------------------- value parsers */

int cli_parse_u64(const char *s, uint64_t *out) {
  if (!s || !isdigit((unsigned char)s[0])) /* no sign, no space: strtoull would take them */
    return CLI_NOT_A_NUMBER;
  char *end = NULL;
  errno = 0;
  if (s[0] == '2' && s[1] == '^') {
    if (!isdigit((unsigned char)s[2]))
      return CLI_NOT_A_NUMBER;
    const unsigned long k = strtoul(s + 2, &end, 10);
    if (*end)
      return CLI_NOT_A_NUMBER;
    if (errno || k > 63) /* 2^63 is the largest power of two in 64 bits */
      return CLI_TOO_LARGE;
    *out = (uint64_t)1 << k;
    return 0;
  }
  const unsigned long long v = strtoull(s, &end, 10);
  if (*end)
    return CLI_NOT_A_NUMBER;
  if (errno) /* ERANGE: all digits, past 2^64 - 1 */
    return CLI_TOO_LARGE;
  *out = (uint64_t)v;
  return 0;
}

int cli_parse_double(const char *s, double *out) {
  if (!s || !*s || isspace((unsigned char)s[0]))
    return 1;
  char *end = NULL;
  errno = 0;
  const double v = strtod(s, &end);
  if (end == s || *end || !isfinite(v) || (errno == ERANGE && fabs(v) > 1.0))
    return 1;
  *out = v;
  return 0;
}

int cli_parse_dtype(const char *s, cuprim_dtype *out) {
  for (int t = 0; s && t < MAX_DTYPES && cuprim_dtype_name((cuprim_dtype)t); ++t)
    if (name_equal(s, cuprim_dtype_name((cuprim_dtype)t)) ||
        (t < NUM_LONG_NAMES && dtype_long[t] && name_equal(s, dtype_long[t]))) {
      *out = (cuprim_dtype)t;
      return 0;
    }
  return 1;
}

int cli_parse_op(const char *s, cuprim_op *out) {
  for (int o = 0; s && cuprim_op_name((cuprim_op)o); ++o)
    if (name_equal(s, cuprim_op_name((cuprim_op)o))) {
      *out = (cuprim_op)o;
      return 0;
    }
  return 1;
}

int cli_parse_arg_op(const char *s, cuprim_arg_op *out) {
  if (s && name_equal(s, "argmin"))
    *out = CUPRIM_ARGMIN;
  else if (s && name_equal(s, "argmax"))
    *out = CUPRIM_ARGMAX;
  else
    return 1;
  return 0;
}

int cli_parse_alg(cli_primitive p, const char *s, int *out) {
  for (int a = 0; s && a < hr_alg_count((hr_primitive)p); ++a)
    if (name_equal(s, hr_alg_name((hr_primitive)p, a))) {
      *out = a;
      return 0;
    }
  return 1;
}

/* ---------------------------------------------------------------- usage */

#define EXIT_CODES_TEXT                                                                            \
  "exit status: 0 success; 1 wrong result or failed CUDA/cuprim call; 2 usage error (bad "         \
  "option,\n"                                                                                      \
  "  number, range or bin count); 3 input file cannot be read; 4 invalid input file (malformed,\n" \
  "  big-endian or Fortran-order .npy, unsupported dtype, truncated, bad edges); 5 dtype and op\n" \
  "  (or weights) not supported by the primitive; 6 output cannot be written; 77 no CUDA device\n" \
  "  or driver.\n"

static const char usage_main[] =
    "usage: cuprim <command> [options]\n"
    "       cuprim --version | --help | help <command>\n"
    "\n"
    "commands:\n"
    "  demo       reduce, scan and histogram generated data on the GPU; check, time, print a "
    "table\n"
    "  info       version, build (architectures, NCCL), every device and the code it runs, copy\n"
    "             bandwidth\n"
    "  reduce     reduce a .npy or raw file with an op (sum prod min max and or xor), or find\n"
    "             its smallest or largest element (argmin argmax); or each segment of it\n"
    "             (--offsets, --segment-size)\n"
    "  scan       prefix-scan a .npy or raw file into a .npy file; or each segment of it\n"
    "  histogram  histogram of a .npy or raw file: equal-width bins, or bins given by edges;\n"
    "             of interleaved channels (--channels), or of weights (--weights)\n"
    "  ladder     time every algorithm of reduce, scan, histogram or the segmented reduce on\n"
    "             this GPU (Harris table)\n"
    "\n"
    "'cuprim <command> --help' describes a command's options.\n" EXIT_CODES_TEXT;

#define INPUT_TEXT                                                                                 \
  "  FILE           a NumPy .npy file (format 1.0/2.0/3.0, little-endian, C order, any shape,\n"   \
  "                 flattened; dtype i1 u1 i2 u2 i4 u4 i8 u8 f2 f4 f8), or raw little-endian\n"    \
  "                 binary when --dtype is given\n"                                                \
  "  --dtype T      raw input of type T: i8 u8 i16 u16 i32 u32 i64 u64 f32 f64 f16 bf16\n"         \
  "  --chunk N      elements per pass through the device (default: from the free device\n"         \
  "                 memory); files larger than that are processed in several passes\n"             \
  "  --device D     CUDA device ordinal (default 0)\n"                                             \
  "  --devices L    split the input over the devices of L (D0,D1,...: distinct ordinals) in\n"     \
  "                 shares in that order, one host thread and one NCCL rank each; every share\n"   \
  "                 goes in passes as above. Several devices need the NCCL component and run\n"    \
  "                 the default algorithm (--alg auto); one works as --device.\n"

static const char usage_reduce[] =
    "usage: cuprim reduce [--op OP] [--alg ALG] [--dtype T] [--chunk N]\n"
    "                     [--offsets OFF.npy | --segment-size L]\n"
    "                     [--device D | --devices D0,D1,...] [-o FILE] FILE\n"
    "  Reduces every element of FILE with OP and prints the result (integers exactly, f32 with\n"
    "  9, f64 with 17, f16 with 5 and bf16 with 4 significant digits). Passes are combined on\n"
    "  the device with the same op; f16/bf16 sum and prod in more than one pass run in f32 (each\n"
    "  pass widened on the host) and are rounded to 16 bits once, at the end.\n"
    "  --op OP        sum (default), prod, min, max, and, or, xor (and/or/xor: integers only);\n"
    "                 argmin, argmax (every dtype): prints \"INDEX VALUE\", the first index among\n"
    "                 ties, the first NaN if there is one, -0.0 == +0.0; an empty file gives\n"
    "                 18446744073709551615 and the identity (inf, -inf, the type's limit)\n"
    "  --alg ALG      auto (default), global_tree, neighbored_divergent, neighbored_strided,\n"
    "                 sequential, first_add_on_load, unrolled, warp_shuffle, coarsened, atomic\n"
    "  -o, --output F also write the result to F: a 0-d .npy if F ends in .npy (argmin/argmax:\n"
    "                 the index, as u8; bf16: refused, NumPy has no bfloat16), else a text\n"
    "                 line; -o - (or /dev/stdout) prints it once, on standard output\n"
    "  --offsets OFF  segments: OFF is a .npy of num_segments + 1 offsets (i4 u4 i8 u8, each\n"
    "                 clamped to [0, n]); segment s is [OFF[s], OFF[s+1]) (empty if that is not\n"
    "                 increasing, which gives the op's identity). One result per segment,\n"
    "                 printed one a line, or written to F: a 1-d .npy, or text, one a line\n"
    "  --segment-size L  segments of L elements each (FILE a whole number of them), as --offsets\n"
    "                 (cuprim_batched_reduce). Segments run on one device, the whole input at\n"
    "                 once: no --chunk, --alg, argmin/argmax or several --devices\n" INPUT_TEXT
    "  reduce takes i32 u32 i64 u64 f32 f64 f16 bf16 (argmin/argmax: every "
    "dtype).\n" EXIT_CODES_TEXT;

static const char usage_scan[] =
    "usage: cuprim scan [--op OP] [--exclusive] [--alg ALG] [--dtype T] [--chunk N]\n"
    "                   [--offsets OFF.npy | --segment-size L]\n"
    "                   [--device D | --devices D0,D1,...] -o OUT FILE\n"
    "  Prefix-scans the elements of FILE (flattened) with OP and writes them to OUT as a 1-d .npy\n"
    "  of the input's dtype, or as text, one value a line, if OUT ends in .csv; bf16, which\n"
    "  NumPy lacks, as raw little-endian bits to any name but .csv (.npy refused). Passes after "
    "the\n"
    "  first start from the running total of the passes before them, kept on the device\n"
    "  (cuprim_scan_init; a ladder --alg scans it as an extra element before the pass), so\n"
    "  integer results are exact. f16/bf16 sum and prod in more than one pass run in f32 (widened\n"
    "  on the host) and each output is rounded to 16 bits once, on the host.\n"
    "  --op OP        sum (default), prod, min, max, and, or, xor (and/or/xor: integers only)\n"
    "  --exclusive    exclusive scan (out[0] = the op's identity); --inclusive is the default\n"
    "  --alg ALG      auto (default), hillis_steele, blelloch, warp_shuffle, decoupled_lookback\n"
    "  -o, --output F the file to write (required): .npy, or .csv; written under a temporary\n"
    "                 name beside it and renamed when complete (through a symbolic link to its\n"
    "                 target); - is standard output (.npy, unless it is a terminal)\n"
    "  --offsets OFF  segments, as for reduce: the scan restarts at each segment's start;\n"
    "                 elements that no segment covers are written as FILE has them\n"
    "  --segment-size L  segments of L elements each (FILE a whole number of them); one device,\n"
    "                 the whole input at once: no --chunk, --alg or several --devices\n" INPUT_TEXT
    "  scan takes i32 u32 i64 u64 f32 f64 f16 bf16.\n" EXIT_CODES_TEXT;

static const char usage_histogram[] =
    "usage: cuprim histogram (--bins N --range LO HI | --edges EDGES) [--alg ALG] [--dtype T]\n"
    "                        [--channels C [--active A] | --weights W.npy]\n"
    "                        [--chunk N] [--device D | --devices D0,D1,...]\n"
    "                        [-o OUT.npy|OUT.csv|-] FILE\n"
    "  Counts the elements of FILE in bins and prints a table (lower, upper, count), or writes "
    "the\n"
    "  counts to OUT: .npy (u64 counts) or .csv (lower,upper,count); -o - writes the CSV to\n"
    "  standard output. Samples outside the bins and NaN are not counted.\n"
    "  --channels C   FILE holds pixels of C interleaved channels (1..4; element p*C+c is channel\n"
    "                 c of pixel p); one table per channel, a CSV with a channel column, or a\n"
    "                 2-d .npy (channels x bins) when every channel has the same bin count\n"
    "  --active A     count the first A channels (default C)\n"
    "                 --bins and --range take one value for every channel or one per active\n"
    "                 channel: --bins 256,256,64 --range 0,0,-1 256,256,1\n"
    "  --weights W    a .npy of f4 or f8 weights, one per sample: each bin holds the sum of its\n"
    "                 samples' weights, in f8 (table and CSV column sum, .npy <f8); passes and\n"
    "                 devices are added in double on the host, so a run in several passes may\n"
    "                 differ in the last bits from one pass\n"
    "  --bins N       N equal-width bins (1 .. 4294967295) over [LO, HI)\n"
    "  --range LO HI  finite, LO < HI, HI - LO and N / (HI - LO) finite (also --range=LO,HI)\n"
    "  --edges EDGES  bins [e[i], e[i+1]) from N+1 strictly increasing, finite edges: a .npy file\n"
    "                 of any supported dtype, or text (numbers separated by spaces, commas or\n"
    "                 newlines; '#' starts a comment)\n"
    "  --alg ALG      auto (default), global_atomic, block_private, sort_reduce_by_key "
    "(equal-width\n"
    "                 bins only); with --weights: auto (default) or fixed_order (the same bits\n"
    "                 on every run)\n" INPUT_TEXT
    "  histogram takes i8 u8 i16 u16 i32 u32 i64 u64 f32 f64 f16 bf16.\n" EXIT_CODES_TEXT;

static const char usage_demo[] =
    "usage: cuprim demo [--n N] [--seed S] [--runs R] [--device D]\n"
    "  Runs reduce (sum of random floats in [0,1)), inclusive scan (sum of integer-valued floats\n"
    "  whose every partial sum is exact) and histogram (256 bins over [0,1)), all AUTO, on N\n"
    "  generated F32 values, checks each against a host reference, and prints the result, the\n"
    "  median time and the bandwidth of each (cold L2).\n"
    "  --n N      number of elements, decimal or 2^K (default 2^26)\n"
    "  --seed S   seed of the generator (default 1)\n"
    "  --runs R   timed runs after one warm-up call; the median is reported (default 5)\n"
    "  --device D CUDA device ordinal (default 0)\n" EXIT_CODES_TEXT;

static const char usage_ladder[] =
    "usage: cuprim ladder reduce|scan|histogram|segmented [--n N] [--dtype T] [--op OP]\n"
    "                     [--exclusive] [--bins B] [--segments D] [--segment-size L]\n"
    "                     [--runs R] [--seed S] [--device D]\n"
    "  Times every algorithm of the primitive on N generated elements (each one's *_ex entry "
    "point)\n"
    "  and prints a table: median microseconds (CUDA events, cold L2), GB/s, % of the measured\n"
    "  device-to-device copy bandwidth, speedup over the previous step and over the first, "
    "whether\n"
    "  the result is right, and what each step changes. Exit status 1 if any result is wrong.\n"
    "  segmented is the segmented reduce (cuprim_segmented_reduce_ex) over generated offsets, I32\n"
    "  where N fits, else I64; its GB/s counts input + offsets + output, each moved once.\n"
    "  --n N      elements, decimal or 2^K (default 2^26)\n"
    "  --dtype T  element type (default f32)\n"
    "  --op OP    reduce, scan and segmented: the op (default sum)\n"
    "  --exclusive  scan: exclusive instead of inclusive\n"
    "  --bins B   histogram: equal-width bins over the data's range (default 256)\n"
    "  --segments D  segmented: the segments' sizes: uniform (default: all L), random (uniform\n"
    "             in 0 .. 2L) or power_law (1 + a Pareto tail, and one segment of N/4; no L)\n"
    "  --segment-size L  segmented: L above, 1 .. N (default 32)\n"
    "  --runs R   timed runs per algorithm, after one warm-up call (default 20)\n"
    "  --seed S   seed of the generator (default 1)\n"
    "  --device D CUDA device ordinal (default 0)\n" EXIT_CODES_TEXT;

static const char usage_info[] =
    "usage: cuprim info [--runs R] [--device D]\n"
    "  Prints cuprim's version, the CUDA architectures its device code was built for, NCCL's\n"
    "  version (or that the program was built without it), the CUDA driver and runtime versions,\n"
    "  then every device: name, compute capability, SMs, memory, L2, and the code it runs (sm_XY\n"
    "  machine code, or compute_XY PTX compiled by the driver); and the chosen device's measured\n"
    "  device-to-device copy bandwidth.\n"
    "  --runs R   timed copies; the median is reported (default 20)\n"
    "  --device D the device whose copy bandwidth is measured (default 0)\n" EXIT_CODES_TEXT;

const char *cli_usage(cli_command c) {
  switch (c) {
  case CLI_CMD_DEMO:
    return usage_demo;
  case CLI_CMD_INFO:
    return usage_info;
  case CLI_CMD_REDUCE:
    return usage_reduce;
  case CLI_CMD_SCAN:
    return usage_scan;
  case CLI_CMD_HISTOGRAM:
    return usage_histogram;
  case CLI_CMD_LADDER:
    return usage_ladder;
  case CLI_CMD_NONE:
    break;
  }
  return usage_main;
}

/* ---------------------------------------------------------------- options */

#define CMD(c) (1u << (c))
enum {
  ON_FILE = CMD(CLI_CMD_REDUCE) | CMD(CLI_CMD_SCAN) | CMD(CLI_CMD_HISTOGRAM),
  ON_DEVICE = ON_FILE | CMD(CLI_CMD_DEMO) | CMD(CLI_CMD_INFO) | CMD(CLI_CMD_LADDER),
  MAX_DEVICE = 1023, /* far more devices than one host holds; keeps the value an int */
  MAX_RUNS = 1000,   /* timed runs: enough for any median, bounded so a typo does not hang */
  DEFAULT_DEMO_RUNS = 5,
  DEFAULT_LADDER_RUNS = 20,
  DEFAULT_LADDER_BINS = 256,
  DEFAULT_LADDER_SEGMENT_SIZE = 32 /* ladder segmented: segments of a warp's width */
};

typedef enum opt_id {
  OPT_HELP,
  OPT_OUTPUT,
  OPT_DTYPE,
  OPT_OP,
  OPT_ALG,
  OPT_EXCLUSIVE,
  OPT_INCLUSIVE,
  OPT_BINS,
  OPT_RANGE,
  OPT_EDGES,
  OPT_CHUNK,
  OPT_OFFSETS,
  OPT_SEGMENT_SIZE,
  OPT_SEGMENTS,
  OPT_N,
  OPT_RUNS,
  OPT_SEED,
  OPT_DEVICE,
  OPT_DEVICES,
  OPT_CHANNELS,
  OPT_ACTIVE,
  OPT_WEIGHTS
} opt_id;

static const struct option_def {
  opt_id id;
  const char *name;  /* "--name" */
  const char *alias; /* "-o", or NULL */
  int values;        /* 0, 1 or 2 */
  unsigned commands; /* CMD() bits of the commands that take it */
  uint64_t lo, hi;   /* a whole number in [lo, hi] (hi 0: not a number option) */
} options[] = {
    {OPT_HELP, "--help", "-h", 0, ~0u, 0, 0},
    {OPT_OUTPUT, "--output", "-o", 1, ON_FILE, 0, 0},
    {OPT_DTYPE, "--dtype", NULL, 1, ON_FILE | CMD(CLI_CMD_LADDER), 0, 0},
    {OPT_OP, "--op", NULL, 1, CMD(CLI_CMD_REDUCE) | CMD(CLI_CMD_SCAN) | CMD(CLI_CMD_LADDER), 0, 0},
    {OPT_ALG, "--alg", NULL, 1, ON_FILE, 0, 0},
    {OPT_EXCLUSIVE, "--exclusive", NULL, 0, CMD(CLI_CMD_SCAN) | CMD(CLI_CMD_LADDER), 0, 0},
    {OPT_INCLUSIVE, "--inclusive", NULL, 0, CMD(CLI_CMD_SCAN) | CMD(CLI_CMD_LADDER), 0, 0},
    {OPT_BINS, "--bins", NULL, 1, CMD(CLI_CMD_HISTOGRAM) | CMD(CLI_CMD_LADDER), 1, UINT32_MAX},
    {OPT_CHANNELS, "--channels", NULL, 1, CMD(CLI_CMD_HISTOGRAM), 1, CLI_MAX_CHANNELS},
    {OPT_ACTIVE, "--active", NULL, 1, CMD(CLI_CMD_HISTOGRAM), 1, CLI_MAX_CHANNELS},
    {OPT_WEIGHTS, "--weights", NULL, 1, CMD(CLI_CMD_HISTOGRAM), 0, 0},
    {OPT_RANGE, "--range", NULL, 2, CMD(CLI_CMD_HISTOGRAM), 0, 0},
    {OPT_EDGES, "--edges", NULL, 1, CMD(CLI_CMD_HISTOGRAM), 0, 0},
    {OPT_CHUNK, "--chunk", NULL, 1, ON_FILE, 1, UINT64_MAX},
    {OPT_OFFSETS, "--offsets", NULL, 1, CMD(CLI_CMD_REDUCE) | CMD(CLI_CMD_SCAN), 0, 0},
    {OPT_SEGMENT_SIZE, "--segment-size", NULL, 1,
     CMD(CLI_CMD_REDUCE) | CMD(CLI_CMD_SCAN) | CMD(CLI_CMD_LADDER), 1, UINT64_MAX},
    {OPT_SEGMENTS, "--segments", NULL, 1, CMD(CLI_CMD_LADDER), 0, 0},
    {OPT_N, "--n", NULL, 1, CMD(CLI_CMD_DEMO) | CMD(CLI_CMD_LADDER), 1, UINT64_MAX},
    {OPT_RUNS, "--runs", NULL, 1, CMD(CLI_CMD_DEMO) | CMD(CLI_CMD_LADDER) | CMD(CLI_CMD_INFO), 1,
     MAX_RUNS},
    {OPT_SEED, "--seed", NULL, 1, CMD(CLI_CMD_DEMO) | CMD(CLI_CMD_LADDER), 0, UINT64_MAX},
    {OPT_DEVICE, "--device", NULL, 1, ON_DEVICE, 0, MAX_DEVICE},
    {OPT_DEVICES, "--devices", NULL, 1, ON_FILE, 0, 0},
};
enum { NUM_OPTIONS = sizeof options / sizeof options[0] };

int cli_error(int code, char *err, size_t len, const char *fmt, ...) {
  if (err && len) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
  }
  return code;
}

#define usage_error(err, len, ...) cli_error(CLI_EXIT_USAGE, (err), (len), __VA_ARGS__)

/* A whole-number option's value into *u, within the option's [lo, hi]; else a usage error saying
 * why: not a number, too large for 64 bits or for the option, or too small. */
static int u64_value(const struct option_def *o, const char *v, uint64_t *u, char *err,
                     size_t len) {
  const int why = cli_parse_u64(v, u);
  if (why == CLI_NOT_A_NUMBER)
    return usage_error(err, len, "%s %s: not a whole number (decimal, or 2^K)", o->name, v);
  if (why == CLI_TOO_LARGE || *u > o->hi)
    return usage_error(err, len, "%s %s: too large (at most %llu)", o->name, v,
                       (unsigned long long)o->hi);
  if (*u < o->lo)
    return usage_error(err, len, "%s %s: too small (at least %llu)", o->name, v,
                       (unsigned long long)o->lo);
  return CLI_EXIT_OK;
}

/* --devices D0,D1,...: distinct ordinals, each as --device takes it. */
static int parse_devices(cli_args *a, const char *v, char *err, size_t len) {
  if (!*v)
    return usage_error(err, len, "--devices: an empty list (give D0,D1,...)");
  a->num_devices = 0;
  for (const char *p = v;;) {
    const char *comma = strchr(p, ',');
    const size_t item_len = comma ? (size_t)(comma - p) : strlen(p);
    char item[32];
    uint64_t d = 0;
    if (item_len == 0 || item_len >= sizeof item)
      return usage_error(err, len, "--devices %s: expected device ordinals separated by commas", v);
    memcpy(item, p, item_len);
    item[item_len] = '\0';
    const int why = cli_parse_u64(item, &d);
    if (why == CLI_NOT_A_NUMBER)
      return usage_error(err, len, "--devices %s: '%s' is not a device ordinal", v, item);
    if (why == CLI_TOO_LARGE || d > MAX_DEVICE)
      return usage_error(err, len, "--devices %s: device %s is too large (at most %d)", v, item,
                         MAX_DEVICE);
    for (int k = 0; k < a->num_devices; ++k)
      if (a->devices[k] == (int)d)
        return usage_error(err, len, "--devices %s: device %d is listed twice", v, (int)d);
    if (a->num_devices == CLI_MAX_DEVICES)
      return usage_error(err, len, "--devices %s: more than %d devices", v, CLI_MAX_DEVICES);
    a->devices[a->num_devices++] = (int)d;
    if (!comma)
      break;
    p = comma + 1;
  }
  a->devices_arg = v;
  return CLI_EXIT_OK;
}

/* A per-channel list, "V" or "V0,V1,...", split at the commas into items[0..CLI_MAX_CHANNELS).
 * Returns the number of items, or 0 with a usage error for an empty item or too many. */
enum { ITEM_LEN = 64 };
static int split_list(const struct option_def *o, const char *v, char items[][ITEM_LEN], char *err,
                      size_t len) {
  int k = 0;
  for (const char *p = v;; ++k) {
    const char *comma = strchr(p, ',');
    const size_t item_len = comma ? (size_t)(comma - p) : strlen(p);
    if (k == CLI_MAX_CHANNELS)
      return usage_error(err, len, "%s %s: at most %d values, one per channel", o->name, v,
                         CLI_MAX_CHANNELS),
             0;
    if (item_len == 0 || item_len >= ITEM_LEN)
      return usage_error(err, len,
                         "%s %s: expected a value, or one per channel separated by "
                         "commas",
                         o->name, v),
             0;
    memcpy(items[k], p, item_len);
    items[k][item_len] = '\0';
    if (!comma)
      return k + 1;
    p = comma + 1;
  }
}

/* Applies one option with its values v[0..values). */
static int apply(cli_args *a, const struct option_def *o, char **v, char *err, size_t len) {
  uint64_t u = 0;
  if (o->hi && o->id != OPT_BINS && u64_value(o, v[0], &u, err, len))
    return CLI_EXIT_USAGE;
  switch (o->id) {
  case OPT_HELP: /* found by the scan in cli_parse before any option is applied */
    a->help = 1;
    return 0;
  case OPT_OUTPUT:
    if (!*v[0])
      return usage_error(err, len, "%s: empty file name", o->name);
    a->output = v[0];
    return 0;
  case OPT_DTYPE:
    if (cli_parse_dtype(v[0], &a->dtype)) {
      char names[160] = "";
      for (int t = 0; t < MAX_DTYPES && cuprim_dtype_name((cuprim_dtype)t); ++t) {
        strncat(names, " ", sizeof names - strlen(names) - 1);
        strncat(names, cuprim_dtype_name((cuprim_dtype)t), sizeof names - strlen(names) - 1);
      }
      return usage_error(err, len, "--dtype %s: not a dtype (%s )", v[0], names + 1);
    }
    a->have_dtype = 1;
    return 0;
  case OPT_OP:
    a->arg = cli_parse_arg_op(v[0], &a->arg_op) == 0;
    if (!a->arg && cli_parse_op(v[0], &a->op))
      return usage_error(err, len, "--op %s: not an op (sum prod min max and or xor%s)", v[0],
                         a->command == CLI_CMD_REDUCE ? " argmin argmax" : "");
    a->have_op = 1;
    return 0;
  case OPT_ALG: /* resolved by check_combination: --weights changes the names it takes */
    a->alg_name = v[0];
    a->have_alg = 1;
    return 0;
  case OPT_EXCLUSIVE:
  case OPT_INCLUSIVE:
    a->kind = o->id == OPT_EXCLUSIVE ? CUPRIM_EXCLUSIVE : CUPRIM_INCLUSIVE;
    a->have_kind = 1;
    return 0;
  case OPT_BINS: {
    char items[CLI_MAX_CHANNELS][ITEM_LEN];
    const int k = split_list(o, v[0], items, err, len);
    for (int c = 0; c < k; ++c) {
      if (u64_value(o, items[c], &u, err, len))
        return CLI_EXIT_USAGE;
      a->chan_bins[c] = (uint32_t)u;
    }
    a->bins = a->chan_bins[0];
    a->num_bins_given = k;
    a->have_bins = 1;
    return k > 0 ? 0 : CLI_EXIT_USAGE;
  }
  case OPT_RANGE: {
    char lo[CLI_MAX_CHANNELS][ITEM_LEN], hi[CLI_MAX_CHANNELS][ITEM_LEN];
    const int nlo = split_list(o, v[0], lo, err, len);
    const int nhi = nlo > 0 ? split_list(o, v[1], hi, err, len) : 0;
    if (nlo <= 0 || nhi <= 0)
      return CLI_EXIT_USAGE;
    for (int c = 0; c < nlo || c < nhi; ++c) {
      if ((c < nlo && cli_parse_double(lo[c], &a->chan_lower[c])) ||
          (c < nhi && cli_parse_double(hi[c], &a->chan_upper[c])))
        return usage_error(err, len, "--range %s %s: LO and HI must be finite numbers", v[0], v[1]);
      if (c < nlo && c < nhi && !(a->chan_lower[c] < a->chan_upper[c]))
        return usage_error(err, len, "--range %s %s: LO must be less than HI", v[0], v[1]);
    }
    a->lower = a->chan_lower[0];
    a->upper = a->chan_upper[0];
    a->num_lower_given = nlo;
    a->num_upper_given = nhi;
    a->have_range = 1;
    return 0;
  }
  case OPT_CHANNELS:
    a->channels = (int)u;
    return 0;
  case OPT_ACTIVE:
    a->active = (int)u;
    return 0;
  case OPT_WEIGHTS:
    if (!*v[0])
      return usage_error(err, len, "--weights: empty file name");
    a->weights = v[0];
    return 0;
  case OPT_EDGES:
    if (!*v[0])
      return usage_error(err, len, "--edges: empty file name");
    a->edges = v[0];
    return 0;
  case OPT_CHUNK:
    a->chunk = u;
    return 0;
  case OPT_OFFSETS:
    if (!*v[0])
      return usage_error(err, len, "--offsets: empty file name");
    a->offsets = v[0];
    return 0;
  case OPT_SEGMENT_SIZE:
    a->segment_size = u;
    a->have_segment_size = 1;
    return 0;
  case OPT_SEGMENTS: /* the distributions of hostref_segmented.h but EMPTY */
    for (int d = HR_SEG_UNIFORM; d < HR_SEG_DISTS; ++d)
      if (name_equal(v[0], hr_seg_dist_name((hr_seg_dist)d))) {
        a->segments = (hr_seg_dist)d;
        a->have_segments = 1;
        return 0;
      }
    return usage_error(err, len, "--segments %s: not a distribution (%s %s %s)", v[0],
                       hr_seg_dist_name(HR_SEG_UNIFORM), hr_seg_dist_name(HR_SEG_RANDOM),
                       hr_seg_dist_name(HR_SEG_POWER_LAW));
  case OPT_N:
    a->n = u;
    return 0;
  case OPT_RUNS:
    a->runs = u;
    a->have_runs = 1;
    return 0;
  case OPT_SEED:
    a->seed = u;
    return 0;
  case OPT_DEVICE:
    a->device = (int)u;
    a->have_device = 1;
    return 0;
  case OPT_DEVICES:
    return parse_devices(a, v[0], err, len);
  }
  return usage_error(err, len, "internal error: unhandled option %s", o->name);
}

/* --alg's name, once the whole line is read: with --weights the weighted histogram's algorithms
 * (auto, fixed_order), else the primitive's. */
static int resolve_alg(cli_args *a, char *err, size_t len) {
  if (!a->alg_name)
    return CLI_EXIT_OK;
  if (a->weights) {
    if (name_equal(a->alg_name, "auto") || name_equal(a->alg_name, "fixed_order")) {
      a->alg = name_equal(a->alg_name, "auto") ? CUPRIM_HISTOGRAM_WEIGHTED_AUTO
                                               : CUPRIM_HISTOGRAM_WEIGHTED_FIXED_ORDER;
      return CLI_EXIT_OK;
    }
    return usage_error(err, len,
                       "--alg %s: not an algorithm of a weighted histogram (auto "
                       "fixed_order)",
                       a->alg_name);
  }
  const cli_primitive p = a->command == CLI_CMD_REDUCE ? CLI_PRIM_REDUCE
                          : a->command == CLI_CMD_SCAN ? CLI_PRIM_SCAN
                                                       : CLI_PRIM_HISTOGRAM;
  if (cli_parse_alg(p, a->alg_name, &a->alg) == 0)
    return CLI_EXIT_OK;
  char names[256] = "";
  for (int i = 0; i < hr_alg_count((hr_primitive)p); ++i) {
    strncat(names, " ", sizeof names - strlen(names) - 1);
    strncat(names, hr_alg_name((hr_primitive)p, i), sizeof names - strlen(names) - 1);
  }
  return usage_error(err, len, "--alg %s: not an algorithm of %s (%s )", a->alg_name,
                     cli_command_name(a->command), names);
}

/* Equal-width bins (histogram): every channel's bins and range (one channel without --channels),
 * each list one value for all channels or one per active channel, checked as
 * cuprim_histogram_even checks them (hr_hist_even_valid is histogram.h's rule as the tests state
 * it): HI - LO may overflow (-1e308 1e308), and the scale N / (HI - LO) may overflow (a range
 * narrower than N times the smallest double). --channels excludes --edges and --weights (the
 * library has no multi-channel form of either). */
static int check_channels(cli_args *a, char *err, size_t len) {
  if (a->active && !a->channels)
    return usage_error(err, len, "--active needs --channels");
  if (a->channels && (a->edges || a->weights))
    return usage_error(err, len, "--channels excludes %s (equal-width bins, counts only)",
                       a->edges ? "--edges" : "--weights");
  if (a->weights && a->edges)
    return usage_error(err, len, "--weights takes equal-width bins (--bins/--range), not --edges");
  if (a->edges)
    return CLI_EXIT_OK;
  if (!a->active)
    a->active = a->channels;
  if (a->active > a->channels && a->channels)
    return usage_error(err, len, "--active %d: more than --channels %d", a->active, a->channels);
  const int want = a->channels ? a->active : 1;
  const int given[3] = {a->num_bins_given, a->num_lower_given, a->num_upper_given};
  const char *what[3] = {"--bins", "--range LO", "--range HI"};
  for (int k = 0; k < 3; ++k)
    if (given[k] != 1 && given[k] != want)
      return usage_error(err, len,
                         a->channels ? "%s: one value for all channels, or %d (one per active "
                                       "channel), not %d"
                                     : "%s: one value (%d), not a list of %d; lists need "
                                       "--channels",
                         what[k], want, given[k]);
  for (int c = 0; c < want; ++c) {
    /* A list of one stands for every channel. */
    a->chan_bins[c] = a->chan_bins[given[0] == 1 ? 0 : c];
    a->chan_lower[c] = a->chan_lower[given[1] == 1 ? 0 : c];
    a->chan_upper[c] = a->chan_upper[given[2] == 1 ? 0 : c];
    const double lo = a->chan_lower[c], hi = a->chan_upper[c];
    if (!(lo < hi))
      return usage_error(err, len, "--range: channel %d: LO must be less than HI", c);
    if (!hr_hist_even_valid(a->chan_bins[c], lo, hi)) {
      if (!isfinite(hi - lo))
        return usage_error(err, len, "--range %.17g %.17g: too wide (HI - LO overflows a double)",
                           lo, hi);
      return usage_error(err, len, "--range %.17g %.17g: too narrow for %lu bins", lo, hi,
                         (unsigned long)a->chan_bins[c]);
    }
  }
  return CLI_EXIT_OK;
}

/* The checks that need the whole command line. */
static int check_combination(cli_args *a, int positionals, char **positional, char *err,
                             size_t len) {
  switch (a->command) {
  case CLI_CMD_REDUCE:
  case CLI_CMD_SCAN:
  case CLI_CMD_HISTOGRAM:
    if (positionals == 0)
      return usage_error(err, len, "missing the input FILE");
    if (positionals > 1)
      return usage_error(err, len, "one input FILE, not '%s' and '%s'", positional[0],
                         positional[1]);
    a->input = positional[0];
    break;
  case CLI_CMD_LADDER: {
    char names[96] = "";
    int found = 0;
    for (int p = 0; p < NUM_PRIMITIVES; ++p) {
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
               p == 0                    ? ""
               : p == NUM_PRIMITIVES - 1 ? " or "
                                         : ", ",
               primitive_names[p]);
      if (positionals && strcmp(positional[0], primitive_names[p]) == 0) {
        a->primitive = (cli_primitive)p;
        found = 1;
      }
    }
    if (positionals == 0)
      return usage_error(err, len, "missing the primitive: %s", names);
    if (!found)
      return usage_error(err, len, "'%s' is not a primitive (%s)", positional[0], names);
    if (positionals > 1)
      return usage_error(err, len, "unexpected argument '%s'", positional[1]);
    break;
  }
  case CLI_CMD_DEMO:
  case CLI_CMD_INFO:
  case CLI_CMD_NONE:
    if (positionals > 0)
      return usage_error(err, len, "unexpected argument '%s'", positional[0]);
    break;
  }

  int rc = resolve_alg(a, err, len);
  if (rc)
    return rc;
  if (a->arg && a->command != CLI_CMD_REDUCE)
    return usage_error(err, len, "--op %s: only reduce takes it",
                       a->arg_op == CUPRIM_ARGMIN ? "argmin" : "argmax");
  if (a->arg && a->alg != 0)
    return usage_error(err, len,
                       "--op argmin/argmax has one algorithm (cuprim_reduce_arg): no --alg");

  /* One device (--device D, or --devices with one ordinal) or several (--devices D0,D1,...),
   * which share the work through NCCL with the library's default algorithms: a ladder algorithm
   * is a one-device study (cuprim_scan_init, which carries a scan across devices, and the NCCL
   * calls run AUTO). */
  if (a->devices_arg && a->have_device)
    return usage_error(err, len, "--device and --devices exclude each other");
  if (a->devices_arg) {
    a->device = a->devices[0];
    if (a->num_devices > 1 && a->alg != 0)
      return usage_error(err, len,
                         "--devices %s: several devices run the default algorithm (--alg auto); "
                         "a ladder --alg runs on one device",
                         a->devices_arg);
  } else {
    a->devices[0] = a->device;
    a->num_devices = 1;
  }

  if (a->command == CLI_CMD_SCAN && !a->output)
    return usage_error(err, len, "scan needs -o OUT.npy, the file to write");

  /* Segments of a file: one call of the library over the whole input on one device. */
  if (a->command != CLI_CMD_LADDER && (a->offsets || a->have_segment_size)) {
    const char *seg = a->offsets ? "--offsets" : "--segment-size";
    if (a->offsets && a->have_segment_size)
      return usage_error(err, len, "--offsets and --segment-size exclude each other");
    if (a->arg)
      return usage_error(err, len, "%s: --op argmin/argmax takes no segments", seg);
    if (a->have_alg)
      return usage_error(err, len, "%s: the segmented calls take no --alg (their default)", seg);
    if (a->chunk)
      return usage_error(err, len, "%s: the segments take the whole input at once, no --chunk",
                         seg);
    if (a->num_devices > 1)
      return usage_error(err, len, "%s: segments run on one device, not --devices %s", seg,
                         a->devices_arg);
  }

  if (a->command == CLI_CMD_HISTOGRAM) {
    if (a->edges && (a->have_bins || a->have_range))
      return usage_error(err, len, "--edges and --bins/--range exclude each other");
    if (!a->edges && !a->have_bins && !a->have_range)
      return usage_error(err, len, "histogram needs --bins N --range LO HI, or --edges FILE");
    if (!a->edges && !a->have_range)
      return usage_error(err, len, "--bins needs --range LO HI");
    if (!a->edges && !a->have_bins)
      return usage_error(err, len, "--range needs --bins N");
    if (a->edges && a->have_alg && a->alg != CUPRIM_HISTOGRAM_AUTO)
      return usage_error(err, len,
                         "--alg applies to equal-width bins only (cuprim_histogram_range has one "
                         "algorithm)");
    rc = check_channels(a, err, len);
    if (rc)
      return rc;
  } else if (a->num_bins_given > 1) {
    return usage_error(err, len, "--bins takes one number here (a list is for --channels)");
  }

  if (a->command == CLI_CMD_LADDER) {
    const char *p = cli_primitive_name(a->primitive);
    if (a->primitive == CLI_PRIM_HISTOGRAM && a->have_op)
      return usage_error(err, len, "ladder histogram takes no --op");
    if (a->primitive != CLI_PRIM_SCAN && a->have_kind)
      return usage_error(err, len, "ladder %s takes no --exclusive or --inclusive", p);
    if (a->primitive != CLI_PRIM_HISTOGRAM && a->have_bins)
      return usage_error(err, len, "ladder %s takes no --bins", p);
    if (a->primitive != CLI_PRIM_SEGMENTED && (a->have_segments || a->have_segment_size))
      return usage_error(err, len, "ladder %s takes no %s (ladder segmented does)", p,
                         a->have_segments ? "--segments" : "--segment-size");
    if (a->segments == HR_SEG_POWER_LAW && a->have_segment_size)
      return usage_error(err, len,
                         "--segments power_law takes no --segment-size (its sizes are 1 + a "
                         "Pareto tail, and one segment of n/4)");
    if (a->have_segment_size && a->segment_size > a->n)
      return usage_error(err, len, "--segment-size %llu: more than the --n %llu elements",
                         (unsigned long long)a->segment_size, (unsigned long long)a->n);
    if (!a->have_segment_size)
      a->segment_size = DEFAULT_LADDER_SEGMENT_SIZE;
    if (!a->have_bins)
      a->bins = DEFAULT_LADDER_BINS;
    if (!a->have_runs)
      a->runs = DEFAULT_LADDER_RUNS;
  }
  /* The host holds a few arrays of n elements (demo: four of f32; ladder: three of the dtype;
   * ladder segmented: the data, and for as many segments as elements the result, the offsets (as
   * generated and as uploaded) and the reference); an n whose bytes do not fit size_t is a usage
   * error here, with the hint, not a failure later. */
  if (a->command == CLI_CMD_DEMO || a->command == CLI_CMD_LADDER) {
    const size_t esize = a->command == CLI_CMD_DEMO ? sizeof(float) : cuprim_dtype_size(a->dtype);
    const size_t per = a->command == CLI_CMD_DEMO ? 4 * esize
                       : a->primitive == CLI_PRIM_SEGMENTED
                           ? 2 * esize + 2 * sizeof(uint64_t) + sizeof(hr_reduce_ref)
                           : 3 * esize;
    if (esize && a->n > SIZE_MAX / per)
      return usage_error(err, len, "--n %llu: too large for this host (%zu bytes an element)",
                         (unsigned long long)a->n, per);
  }
  if (a->command == CLI_CMD_DEMO && !a->have_runs)
    a->runs = DEFAULT_DEMO_RUNS;
  if (a->command == CLI_CMD_INFO && !a->have_runs)
    a->runs = DEFAULT_LADDER_RUNS;
  return CLI_EXIT_OK;
}

int cli_check_devices(const cli_args *a, int have_nccl, char *err, size_t len) {
  if (a->num_devices > 1 && !have_nccl)
    return usage_error(err, len,
                       "--devices %s: this cuprim program was built without NCCL (the "
                       "cuprim::nccl component), so it runs on one device",
                       a->devices_arg ? a->devices_arg : "");
  return CLI_EXIT_OK;
}

int cli_parse(int argc, char **argv, cli_args *a, char *err, size_t len) {
  memset(a, 0, sizeof *a);
  a->dtype = CUPRIM_F32;
  a->op = CUPRIM_SUM;
  a->kind = CUPRIM_INCLUSIVE;
  a->n = (uint64_t)1 << 26; /* the default size of demo and ladder: 256 MB of f32 */
  a->segments = HR_SEG_UNIFORM;
  a->seed = 1;
  if (err && len)
    err[0] = '\0';
  if (argc < 2)
    return usage_error(err, len, "no command given");

  const char *first = argv[1];
  int i = 2;
  if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
    a->help = 1;
    return CLI_EXIT_OK;
  }
  if (strcmp(first, "--version") == 0) {
    a->version = 1;
    return argc == 2 ? CLI_EXIT_OK : usage_error(err, len, "--version takes no arguments");
  }
  if (strcmp(first, "help") == 0) {
    /* "cuprim help" and "cuprim help CMD" */
    a->help = 1;
    if (argc == 2)
      return CLI_EXIT_OK;
    first = argv[2];
    i = argc; /* nothing else is looked at */
  }
  for (int c = 1; c < NUM_COMMANDS; ++c)
    if (strcmp(first, command_names[c]) == 0)
      a->command = (cli_command)c;
  if (a->command == CLI_CMD_NONE)
    return usage_error(err, len, "unknown command '%s'", first);
  if (a->help)
    return CLI_EXIT_OK;

  /* --help anywhere before "--" wins over anything else on the line, even a bad option. */
  for (int k = i; k < argc && strcmp(argv[k], "--") != 0; ++k)
    if (strcmp(argv[k], "--help") == 0 || strcmp(argv[k], "-h") == 0) {
      a->help = 1;
      return CLI_EXIT_OK;
    }

  const char *name = command_names[a->command];
  char *positional[2] = {NULL, NULL};
  int positionals = 0, only_positional = 0;
  for (; i < argc; ++i) {
    char *arg = argv[i];
    if (only_positional || arg[0] != '-' || arg[1] == '\0') {
      if (positionals < 2)
        positional[positionals] = arg;
      ++positionals;
      continue;
    }
    if (strcmp(arg, "--") == 0) {
      only_positional = 1;
      continue;
    }
    /* "--name", "--name=VALUE" (two values: "--range=LO,HI"), or the short alias "-o". */
    const char *eq = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
    const size_t key_len = eq ? (size_t)(eq - arg) : strlen(arg);
    const struct option_def *o = NULL;
    for (int k = 0; k < NUM_OPTIONS && !o; ++k)
      if ((strlen(options[k].name) == key_len && strncmp(arg, options[k].name, key_len) == 0) ||
          (options[k].alias && !eq && strcmp(arg, options[k].alias) == 0))
        o = &options[k];
    if (!o)
      return usage_error(err, len, "unknown option '%s'", arg);
    if (!(o->commands & CMD(a->command)))
      return usage_error(err, len, "%s does not take %s", name, o->name);
    char *values[2] = {NULL, NULL};
    char split[512];
    if (eq) {
      if (o->values == 0)
        return usage_error(err, len, "%s takes no value", o->name);
      if (o->values == 1) {
        values[0] = (char *)eq + 1;
      } else {
        /* --range=LO,HI */
        const char *comma = strchr(eq + 1, ',');
        if (!comma || strlen(eq + 1) >= sizeof split)
          return usage_error(err, len, "%s=LO,HI: expected two values separated by a comma",
                             o->name);
        memcpy(split, eq + 1, strlen(eq + 1) + 1);
        split[comma - (eq + 1)] = '\0';
        values[0] = split;
        values[1] = split + (comma - (eq + 1)) + 1;
      }
    } else {
      if (i + o->values >= argc)
        return usage_error(err, len, "%s needs %s", o->name,
                           o->values == 1 ? "a value" : "two values");
      for (int k = 0; k < o->values; ++k)
        values[k] = argv[++i]; /* values may start with '-': "--range -8 8" */
    }
    const int rc = apply(a, o, values, err, len);
    if (rc)
      return rc;
  }
  return check_combination(a, positionals, positional, err, len);
}
