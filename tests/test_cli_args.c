/* The cuprim program's command line without a GPU (tools/cli_args.c): every option of every
 * command, both value spellings, defaults, bad numbers, bad ranges and bin counts, unknown and
 * misplaced options, missing operands; the support table. (The host element ops that join a
 * chunked run's passes are harness/'s, tested by test_hostref.c.) */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hostref_reduce.h"
#include "test_util.h"

#include "cli_args.h"

/* ---------------------------------------------------------------- helpers */

/* Parses a command line given as one string of space-separated words (no quoting needed here). */
static int parse_line(const char *line, cli_args *a, char *err, size_t len) {
  static char buf[1024];
  char *argv[64];
  int argc = 0;
  snprintf(buf, sizeof buf, "%s", line);
  argv[argc++] = "cuprim";
  for (char *tok = strtok(buf, " "); tok && argc < 63; tok = strtok(NULL, " "))
    argv[argc++] = tok;
  argv[argc] = NULL;
  return cli_parse(argc, argv, a, err, len);
}

static void ok(const char *line, cli_args *a) {
  char err[512];
  const int rc = parse_line(line, a, err, sizeof err);
  if (rc != CLI_EXIT_OK)
    fail_msg("\"%s\": expected success, got %d: %s", line, rc, err);
}

/* The arguments of a line that ok() parses. */
static cli_args parsed(const char *line) {
  cli_args a;
  ok(line, &a);
  return a;
}

/* parsed(line), which must name `command`. */
static cli_args command_of(const char *line, cli_command command) {
  const cli_args a = parsed(line);
  if (a.command != command)
    fail_msg("\"%s\": command %d, expected %d", line, (int)a.command, (int)command);
  return a;
}

/* ok() of the line formatted from fmt. */
static void okf(cli_args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void okf(cli_args *a, const char *fmt, ...) {
  char line[128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  ok(line, a);
}

/* ok() of a line that asks for the help of `command` (CLI_CMD_NONE: the program's own). */
static void help_of(const char *line, cli_command command) {
  cli_args a;
  ok(line, &a);
  if (!a.help || a.command != command)
    fail_msg("\"%s\": help %d, command %d; expected the help of command %d", line, (int)a.help,
             (int)a.command, (int)command);
}

/* Every algorithm name of p, put into `fmt` (a command line with one %s), parses to its enum value;
 * the names are as many as the enum's values, `last` the last of them. */
static void check_alg_names(hr_primitive p, const char *fmt, int last) {
  for (int k = 0; k < hr_alg_count(p); ++k) {
    char line[128];
    cli_args a;
    snprintf(line, sizeof line, fmt, hr_alg_name(p, k));
    ok(line, &a);
    if (a.alg != k)
      fail_msg("\"%s\": alg %d, expected %d", line, a.alg, k);
  }
  assert_int_equal(hr_alg_count(p), last + 1);
}

/* Must be a usage error whose message contains `needle`. */
static void bad(const char *line, const char *needle) {
  cli_args a;
  char err[512];
  const int rc = parse_line(line, &a, err, sizeof err);
  if (rc != CLI_EXIT_USAGE)
    fail_msg("\"%s\": expected a usage error, got %d", line, rc);
  if (!strstr(err, needle))
    fail_msg("\"%s\": message \"%s\" lacks \"%s\"", line, err, needle);
  print_message("    %-55s -> %s\n", line, err);
}

/* ---------------------------------------------------------------- commands */

TU_TEST(test_commands_and_help) {
  (void)state;
  cli_args a;
  char err[256];
  char *argv1[] = {"cuprim", NULL};
  assert_int_equal(cli_parse(1, argv1, &a, err, sizeof err), CLI_EXIT_USAGE);
  help_of("--help", CLI_CMD_NONE);
  ok("-h", &a);
  assert_true(a.help);
  help_of("help", CLI_CMD_NONE);
  help_of("help scan", CLI_CMD_SCAN);
  ok("--version", &a);
  assert_true(a.version);
  bad("--version extra", "--version");
  bad("frobnicate", "unknown command 'frobnicate'");
  bad("help frobnicate", "unknown command");
  /* --help wins over anything else after the command, even a bad option. */
  help_of("reduce --bogus --help", CLI_CMD_REDUCE);
  help_of("histogram -h", CLI_CMD_HISTOGRAM);
  /* Every command has a name and a usage text that lists the exit codes. */
  const cli_command all[] = {CLI_CMD_NONE, CLI_CMD_DEMO,      CLI_CMD_INFO,  CLI_CMD_REDUCE,
                             CLI_CMD_SCAN, CLI_CMD_HISTOGRAM, CLI_CMD_LADDER};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) {
    assert_non_null(strstr(cli_usage(all[i]), "usage: cuprim"));
    assert_non_null(strstr(cli_usage(all[i]), "77 no CUDA device"));
    assert_non_null(strstr(cli_usage(all[i]), "4 invalid input file"));
    if (all[i] != CLI_CMD_NONE)
      assert_non_null(cli_command_name(all[i]));
  }
  assert_null(cli_command_name(CLI_CMD_NONE));
}

TU_TEST(test_demo_and_info) {
  (void)state;
  cli_args a = command_of("demo", CLI_CMD_DEMO);
  assert_int_equal(a.n, (uint64_t)1 << 26);
  assert_int_equal(a.runs, 5);
  assert_int_equal(a.seed, 1);
  assert_int_equal(a.device, 0);
  /* The ctest line, and "=" spellings. */
  ok("demo --n 2^22 --runs 3", &a);
  assert_int_equal(a.n, (uint64_t)1 << 22);
  assert_int_equal(a.runs, 3);
  ok("demo --n=1000 --seed=42 --runs=1000 --device=1", &a);
  assert_int_equal(a.n, 1000);
  assert_int_equal(a.seed, 42);
  assert_int_equal(a.runs, 1000);
  assert_int_equal(a.device, 1);
  bad("demo --n 0", "--n 0");
  bad("demo --n -5", "--n -5");
  bad("demo --n 12abc", "--n 12abc");
  bad("demo --n 2^64", "--n 2^64: too large");
  bad("demo --n 99999999999999999999999", "--n 99999999999999999999999: too large");
  bad("demo --n 12abc", "not a whole number");
  /* Sizes that fit 64 bits but not the host's arrays: usage errors too (with the hint, which
   * main adds to every usage error: test_cli_run). */
  bad("demo --n 2^63", "too large for this host");
  bad("ladder scan --dtype f64 --n 2^62", "too large for this host");
  bad("demo --n", "--n needs a value");
  bad("demo --runs 0", "--runs 0");
  bad("demo --runs 1001", "--runs 1001: too large (at most 1000)");
  bad("demo --device 5000", "--device 5000: too large (at most 1023)");
  bad("demo --seed x", "--seed x");
  bad("demo --seed 18446744073709551616", "--seed 18446744073709551616: too large");
  bad("demo extra", "unexpected argument 'extra'");
  bad("demo --bins 4", "demo does not take --bins");
  bad("demo --op sum", "demo does not take --op");
  bad("demo --unknown", "unknown option '--unknown'");
  bad("demo --n=", "--n");
  a = command_of("info", CLI_CMD_INFO);
  assert_int_equal(a.runs, 20);
  ok("info --runs 3 --device 0", &a);
  assert_int_equal(a.runs, 3);
  bad("info --n 5", "info does not take --n");
  bad("info x", "unexpected argument");
}

/* --devices: a list of distinct ordinals for the file commands; one device works as --device;
 * several need the NCCL component (cli_check_devices, asked by main with the build's answer) and
 * the default algorithm. */
TU_TEST(test_devices) {
  (void)state;
  cli_args a;
  char err[512];
  ok("reduce f", &a); /* no option: device 0 */
  assert_int_equal(a.num_devices, 1);
  assert_int_equal(a.devices[0], 0);
  assert_null(a.devices_arg);
  ok("scan --device 3 -o o.npy f", &a); /* --device D: the one device */
  assert_int_equal(a.num_devices, 1);
  assert_int_equal(a.devices[0], 3);
  ok("histogram --bins 2 --range 0 1 --devices 2 f", &a);
  assert_int_equal(a.num_devices, 1);
  assert_int_equal(a.devices[0], 2);
  assert_int_equal(a.device, 2);
  ok("reduce --devices 1,0,3 f", &a); /* the order given is the order of the shares */
  assert_int_equal(a.num_devices, 3);
  assert_true(a.devices[0] == 1 && a.devices[1] == 0 && a.devices[2] == 3);
  assert_int_equal(a.device, 1);
  assert_string_equal(a.devices_arg, "1,0,3");
  ok("scan --devices=0,1 --exclusive -o o.npy f", &a);
  assert_int_equal(a.num_devices, 2);
  ok("reduce --devices 1023 --alg warp_shuffle f", &a); /* one device: any algorithm */
  assert_int_equal(a.devices[0], 1023);
  /* 64 devices, the most; 65 is refused. */
  char line[512] = "reduce --devices 0";
  for (int d = 1; d < CLI_MAX_DEVICES; ++d)
    snprintf(line + strlen(line), sizeof line - strlen(line), ",%d", d);
  strcat(line, " f");
  ok(line, &a);
  assert_int_equal(a.num_devices, CLI_MAX_DEVICES);
  line[strlen(line) - 2] = '\0';
  strcat(line, ",64 f");
  bad(line, "more than 64 devices");
  bad("reduce --devices 0,0 f", "device 0 is listed twice");
  bad("reduce --devices 1,2,1 f", "device 1 is listed twice");
  bad("reduce --devices 0,1024 f", "device 1024 is too large (at most 1023)");
  bad("reduce --devices 99999999999999999999 f", "too large");
  bad("reduce --devices 0,x f", "'x' is not a device ordinal");
  bad("reduce --devices -1 f", "'-1' is not a device ordinal");
  bad("reduce --devices 0,,1 f", "separated by commas");
  bad("reduce --devices 0, f", "separated by commas");
  bad("reduce --devices= f", "an empty list");
  bad("reduce --devices f", "'f' is not a device ordinal"); /* "f" is taken as the list */
  bad("reduce --device 0 --devices 0,1 f", "--device and --devices exclude each other");
  bad("scan --devices 0,1 --alg blelloch -o o.npy f", "a ladder --alg runs on one device");
  bad("histogram --devices 0,1 --alg global_atomic --bins 2 --range 0 1 f", "--alg auto");
  bad("demo --devices 0,1", "demo does not take --devices");
  bad("ladder scan --devices 0", "ladder does not take --devices");
  bad("info --devices 0,1", "info does not take --devices");
  /* Several devices need NCCL; one does not. */
  ok("reduce --devices 0,1 f", &a);
  assert_int_equal(cli_check_devices(&a, 1, err, sizeof err), CLI_EXIT_OK);
  assert_int_equal(cli_check_devices(&a, 0, err, sizeof err), CLI_EXIT_USAGE);
  assert_non_null(strstr(err, "--devices 0,1: this cuprim program was built without NCCL"));
  ok("reduce --devices 1 f", &a);
  assert_int_equal(cli_check_devices(&a, 0, err, sizeof err), CLI_EXIT_OK);
  ok("reduce f", &a);
  assert_int_equal(cli_check_devices(&a, 0, err, sizeof err), CLI_EXIT_OK);
}

TU_TEST(test_reduce_and_scan) {
  (void)state;
  cli_args a = command_of("reduce data.npy", CLI_CMD_REDUCE);
  assert_string_equal(a.input, "data.npy");
  assert_null(a.output);
  assert_int_equal(a.op, CUPRIM_SUM);
  assert_int_equal(a.alg, CUPRIM_REDUCE_AUTO);
  assert_int_equal(a.have_dtype, 0);
  assert_int_equal(a.chunk, 0);
  ok("reduce --op max --alg warp-shuffle --dtype uint64 --chunk 2^20 -o r.npy --device 2 x.bin",
     &a);
  assert_int_equal(a.op, CUPRIM_MAX);
  assert_int_equal(a.alg, CUPRIM_REDUCE_WARP_SHUFFLE);
  assert_true(a.have_dtype && a.dtype == CUPRIM_U64);
  assert_int_equal(a.chunk, (uint64_t)1 << 20);
  assert_string_equal(a.output, "r.npy");
  assert_string_equal(a.input, "x.bin");
  assert_int_equal(a.device, 2);
  /* Every op, every reduce algorithm, every dtype by both names, in any case. */
  static const char *const ops[] = {"sum", "prod", "min", "max", "and", "or", "xor"};
  for (int o = 0; o < 7; ++o) {
    okf(&a, "reduce --op %s f", ops[o]);
    assert_int_equal(a.op, o);
    assert_string_equal(hr_op_name((cuprim_op)o), ops[o]);
  }
  ok("reduce --op XOR f", &a);
  assert_int_equal(a.op, CUPRIM_XOR);
  check_alg_names(HR_REDUCE, "reduce --alg=%s f", CUPRIM_REDUCE_ATOMIC);
  assert_null(hr_alg_name(HR_REDUCE, CUPRIM_REDUCE_ATOMIC + 1));
  static const char *const short_names[] = {"i8",  "u8",  "i16", "u16", "i32", "u32",
                                            "i64", "u64", "f32", "f64", "f16", "bf16"};
  static const char *const long_names[] = {"int8",    "uint8",   "int16",   "uint16",
                                           "int32",   "uint32",  "int64",   "uint64",
                                           "float32", "float64", "float16", "bfloat16"};
  _Static_assert(sizeof short_names / sizeof short_names[0] == HR_NUM_DTYPES, "a name a dtype");
  _Static_assert(sizeof long_names / sizeof long_names[0] == HR_NUM_DTYPES, "a name a dtype");
  for (int d = 0; d < HR_NUM_DTYPES; ++d) {
    const cuprim_dtype t = hr_all_dtypes[d];
    okf(&a, "reduce --dtype %s f", short_names[t]);
    assert_int_equal(a.dtype, t);
    okf(&a, "reduce --dtype %s f", long_names[t]);
    assert_int_equal(a.dtype, t);
  }
  ok("reduce --dtype F32 f", &a);
  assert_int_equal(a.dtype, CUPRIM_F32);
  bad("reduce", "missing the input FILE");
  bad("reduce a b", "one input FILE");
  bad("reduce --op mean f", "--op mean");
  bad("reduce --alg decoupled_lookback f", "not an algorithm of reduce");
  bad("reduce --dtype f128 f", "--dtype f128");
  bad("reduce --dtype complex64 f", "--dtype complex64");
  bad("reduce --chunk 0 f", "--chunk 0");
  bad("reduce --chunk -1 f", "--chunk -1");
  bad("reduce --exclusive f", "reduce does not take --exclusive");
  bad("reduce --range 0 1 f", "reduce does not take --range");
  bad("reduce --edges e f", "reduce does not take --edges");
  bad("reduce -o", "-o");
  bad("reduce --output= f", "empty file name");
  bad("reduce -x f", "unknown option '-x'");
  bad("reduce --n 5 f", "reduce does not take --n");
  /* A file named like an option, after "--"; a lone "-" is a file name too. */
  assert_string_equal(parsed("reduce -- --weird").input, "--weird");
  assert_string_equal(parsed("reduce -").input, "-");

  a = command_of("scan -o out.npy in.npy", CLI_CMD_SCAN);
  assert_int_equal(a.kind, CUPRIM_INCLUSIVE);
  assert_string_equal(a.output, "out.npy");
  ok("scan --exclusive --op prod --alg BLELLOCH --output=o.npy --chunk 1000 in.npy", &a);
  assert_int_equal(a.kind, CUPRIM_EXCLUSIVE);
  assert_int_equal(a.op, CUPRIM_PROD);
  assert_int_equal(a.alg, CUPRIM_SCAN_BLELLOCH);
  assert_int_equal(a.chunk, 1000);
  ok("scan --exclusive --inclusive -o o.npy in.npy", &a); /* the last one wins */
  assert_int_equal(a.kind, CUPRIM_INCLUSIVE);
  check_alg_names(HR_SCAN, "scan --alg %s -o o.npy f", CUPRIM_SCAN_DECOUPLED_LOOKBACK);
  bad("scan in.npy", "scan needs -o");
  bad("scan -o o.npy", "missing the input FILE");
  bad("scan --alg atomic -o o.npy in.npy", "not an algorithm of scan");
  bad("scan --bins 3 -o o.npy in.npy", "scan does not take --bins");
  bad("scan --exclusive=yes -o o.npy in.npy", "takes no value");
}

/* reduce and scan over segments: --offsets FILE or --segment-size L, one device and the whole
 * input at once, so none of the options that split the work. */
TU_TEST(test_segments) {
  (void)state;
  cli_args a = command_of("reduce --offsets off.npy data.npy", CLI_CMD_REDUCE);
  assert_string_equal(a.offsets, "off.npy");
  assert_int_equal(a.have_segment_size, 0);
  assert_string_equal(a.input, "data.npy");
  a = command_of("scan --exclusive --segment-size 2^10 -o o.npy --device 1 data.npy", CLI_CMD_SCAN);
  assert_null(a.offsets);
  assert_true(a.have_segment_size && a.segment_size == 1024);
  assert_int_equal(a.kind, CUPRIM_EXCLUSIVE);
  assert_int_equal(a.device, 1);
  ok("reduce --segment-size 1 --op max --devices 3 f", &a); /* --devices of one: --device 3 */
  assert_int_equal(a.segment_size, 1);
  assert_int_equal(a.device, 3);
  bad("reduce --offsets o.npy --segment-size 4 f", "exclude each other");
  bad("reduce --segment-size 0 f", "--segment-size 0: too small");
  bad("reduce --segment-size four f", "not a whole number");
  bad("reduce --offsets= f", "--offsets: empty file name");
  bad("reduce --offsets o.npy --op argmax f", "argmin/argmax takes no segments");
  bad("reduce --segment-size 4 --alg atomic f", "take no --alg");
  bad("scan --offsets o.npy --alg blelloch -o s.npy f", "take no --alg");
  bad("reduce --offsets o.npy --chunk 100 f", "no --chunk");
  bad("scan --segment-size 4 --devices 0,1 -o s.npy f", "one device, not --devices 0,1");
  bad("histogram --offsets o.npy --bins 4 --range 0 1 f", "histogram does not take --offsets");
  bad("histogram --segment-size 4 --bins 4 --range 0 1 f",
      "histogram does not take --segment-size");
  bad("ladder reduce --offsets o.npy", "ladder does not take --offsets");
}

TU_TEST(test_histogram) {
  (void)state;
  cli_args a = command_of("histogram --bins 10 --range 0 1 data.npy", CLI_CMD_HISTOGRAM);
  assert_int_equal(a.bins, 10);
  assert_true(a.lower == 0.0 && a.upper == 1.0);
  assert_null(a.edges);
  assert_int_equal(a.alg, CUPRIM_HISTOGRAM_AUTO);
  /* Negative bounds are values, not options; the "=" form takes a comma. */
  ok("histogram --range -8.5 -1e-3 --bins=4294967295 -o h.csv d", &a);
  assert_true(a.lower == -8.5 && a.upper == -1e-3);
  assert_int_equal(a.bins, UINT32_MAX);
  assert_string_equal(a.output, "h.csv");
  ok("histogram --range=-2,2 --bins 2^8 --alg sort-reduce-by-key -o H.NPY d", &a);
  assert_true(a.lower == -2.0 && a.upper == 2.0);
  assert_int_equal(a.bins, 256);
  assert_int_equal(a.alg, CUPRIM_HISTOGRAM_SORT_REDUCE_BY_KEY);
  ok("histogram --edges e.txt --dtype u8 --chunk 7 d", &a);
  assert_string_equal(a.edges, "e.txt");
  assert_true(a.have_dtype && a.dtype == CUPRIM_U8);
  ok("histogram --edges e.txt --alg auto d", &a);
  check_alg_names(HR_HISTOGRAM, "histogram --alg %s --bins 1 --range 0 1 f",
                  CUPRIM_HISTOGRAM_SORT_REDUCE_BY_KEY);
  /* Bin counts. */
  bad("histogram --bins 0 --range 0 1 d", "at least 1");
  bad("histogram --bins 4294967296 --range 0 1 d", "too large (at most 4294967295)");
  bad("histogram --bins 2^70 --range 0 1 d", "--bins 2^70: too large");
  bad("histogram --bins -3 --range 0 1 d", "--bins -3");
  bad("histogram --bins 1.5 --range 0 1 d", "--bins 1.5");
  bad("histogram --bins ten --range 0 1 d", "--bins ten");
  /* Ranges. */
  bad("histogram --bins 4 --range 1 0 d", "LO must be less than HI");
  bad("histogram --bins 4 --range 1 1 d", "LO must be less than HI");
  bad("histogram --bins 4 --range nan 1 d", "finite");
  bad("histogram --bins 4 --range 0 NaN d", "finite");
  bad("histogram --bins 4 --range -inf 0 d", "finite");
  bad("histogram --bins 4 --range 0 inf d", "finite");
  bad("histogram --bins 4 --range 0 1e999 d", "finite");
  bad("histogram --bins 4 --range 0 1x d", "finite");
  bad("histogram --bins 4 d --range 0", "--range needs two values");
  bad("histogram --bins 4 --range 0 d", "finite"); /* "d" is taken as HI */
  bad("histogram --bins 4 --range=0 d", "two values separated by a comma");
  bad("histogram --bins 4294967295 --range 0 1e-320 d", "too narrow");
  /* Combinations. */
  bad("histogram d", "needs --bins N --range LO HI, or --edges");
  bad("histogram --bins 4 d", "--bins needs --range");
  bad("histogram --range 0 1 d", "--range needs --bins");
  bad("histogram --edges e --bins 4 --range 0 1 d", "exclude each other");
  bad("histogram --edges e --alg block_private d", "equal-width bins only");
  /* The output's name is checked when it is opened (test_cli_run): -o - and devices are fine. */
  assert_string_equal(parsed("histogram --bins 4 --range 0 1 -o - d").output, "-");
  bad("histogram --bins 4 --range -1e308 1e308 d", "too wide");
  bad("histogram --bins 4 --range 0 1e-320 d", "too narrow for 4 bins");
  bad("histogram --bins 4 --range 0 1 --op sum d", "histogram does not take --op");
  bad("histogram --bins 4 --range 0 1 --alg atomic d", "not an algorithm of histogram");
  bad("histogram --edges= d", "empty file name");
}

TU_TEST(test_ladder) {
  (void)state;
  cli_args a = command_of("ladder reduce", CLI_CMD_LADDER);
  assert_int_equal(a.primitive, CLI_PRIM_REDUCE);
  assert_int_equal(a.dtype, CUPRIM_F32);
  assert_int_equal(a.n, (uint64_t)1 << 26);
  assert_int_equal(a.runs, 20);
  ok("ladder scan --n 2^20 --dtype i32 --op max --exclusive --runs 3 --seed 9", &a);
  assert_int_equal(a.primitive, CLI_PRIM_SCAN);
  assert_int_equal(a.n, (uint64_t)1 << 20);
  assert_int_equal(a.dtype, CUPRIM_I32);
  assert_int_equal(a.op, CUPRIM_MAX);
  assert_int_equal(a.kind, CUPRIM_EXCLUSIVE);
  assert_int_equal(a.runs, 3);
  assert_int_equal(a.seed, 9);
  ok("ladder histogram --dtype u8", &a);
  assert_int_equal(a.primitive, CLI_PRIM_HISTOGRAM);
  assert_int_equal(a.bins, 256);
  ok("ladder histogram --bins 4096", &a);
  assert_int_equal(a.bins, 4096);
  bad("ladder", "missing the primitive");
  bad("ladder sort", "'sort' is not a primitive");
  bad("ladder reduce scan", "unexpected argument 'scan'");
  bad("ladder histogram --op max", "ladder histogram takes no --op");
  bad("ladder reduce --exclusive", "ladder reduce takes no --exclusive");
  bad("ladder reduce --bins 5", "ladder reduce takes no --bins");
  bad("ladder scan --alg auto", "ladder does not take --alg");
  bad("ladder reduce --range 0 1", "ladder does not take --range");
  bad("ladder reduce -o x", "ladder does not take --output");
  bad("ladder reduce --n 0", "--n 0");
}

/* ladder segmented: the segmented reduce over generated offsets (--segments, --segment-size),
 * which only it takes; the other primitives' options refused. */
TU_TEST(test_ladder_segmented) {
  (void)state;
  cli_args a = command_of("ladder segmented", CLI_CMD_LADDER);
  assert_int_equal(a.primitive, CLI_PRIM_SEGMENTED);
  assert_int_equal(a.segments, HR_SEG_UNIFORM);
  assert_int_equal(a.segment_size, 32);
  assert_int_equal(a.dtype, CUPRIM_F32);
  assert_int_equal(a.op, CUPRIM_SUM);
  assert_int_equal(a.n, (uint64_t)1 << 26);
  assert_int_equal(a.runs, 20);
  ok("ladder segmented --n 2^16 --segment-size 7 --dtype i64 --op max --runs 2 --seed 5", &a);
  assert_int_equal(a.n, (uint64_t)1 << 16);
  assert_int_equal(a.segment_size, 7);
  assert_int_equal(a.dtype, CUPRIM_I64);
  assert_int_equal(a.op, CUPRIM_MAX);
  assert_int_equal(a.runs, 2);
  assert_int_equal(a.seed, 5);
  ok("ladder segmented --segments random --segment-size=1000", &a);
  assert_int_equal(a.segments, HR_SEG_RANDOM);
  assert_int_equal(a.segment_size, 1000);
  ok("ladder segmented --segments=Power-Law --dtype bf16 --n 100", &a);
  assert_int_equal(a.segments, HR_SEG_POWER_LAW);
  ok("ladder segmented --n 100 --segment-size 100", &a); /* one segment */
  assert_int_equal(a.segment_size, 100);
  bad("ladder segmented --n 100 --segment-size 101", "--segment-size 101: more than the --n 100");
  bad("ladder segmented --segment-size 0", "--segment-size 0: too small (at least 1)");
  bad("ladder segmented --segment-size", "--segment-size needs a value");
  bad("ladder segmented --segments power_law --segment-size 4",
      "--segments power_law takes no --segment-size");
  bad("ladder segmented --segments empty", "--segments empty: not a distribution (uniform random "
                                           "power_law)");
  bad("ladder segmented --segments", "--segments needs a value");
  bad("ladder segmented --bins 4", "ladder segmented takes no --bins");
  bad("ladder segmented --exclusive", "ladder segmented takes no --exclusive");
  bad("ladder segmented --op argmax", "only reduce takes it");
  bad("ladder segmented --alg merge_path", "ladder does not take --alg");
  bad("ladder segmented --offsets o.npy", "ladder does not take --offsets");
  bad("ladder reduce --segment-size 4", "ladder reduce takes no --segment-size");
  bad("ladder scan --segments random", "ladder scan takes no --segments");
  bad("ladder histogram --segment-size 4 --segments uniform",
      "ladder histogram takes no --segments");
  bad("reduce --segments uniform f", "reduce does not take --segments");
  /* The host holds a segment's offsets and reference beside each element: a size that the other
   * ladders take may be too large here. */
  ok("ladder reduce --dtype f64 --n 2^59", &a);
  bad("ladder segmented --dtype f64 --n 2^59", "too large for this host");
  bad("ladder sort", "(reduce, scan, histogram or segmented)");
}

TU_TEST(test_value_parsers) {
  (void)state;
  uint64_t u = 77;
  assert_int_equal(cli_parse_u64("0", &u), 0);
  assert_int_equal(u, 0);
  assert_int_equal(cli_parse_u64("18446744073709551615", &u), 0);
  assert_int_equal(u, UINT64_MAX);
  assert_int_equal(cli_parse_u64("2^0", &u), 0);
  assert_int_equal(u, 1);
  assert_int_equal(cli_parse_u64("2^63", &u), 0);
  assert_int_equal(u, (uint64_t)1 << 63);
  u = 77;
  static const char *const bad_u[] = {"",   "-1",  "+1",   " 1",   "1 ",  "18446744073709551616",
                                      "2^", "2^x", "2^-1", "0x10", "1e3", "2^64",
                                      NULL};
  for (int i = 0; bad_u[i]; ++i) {
    if (!cli_parse_u64(bad_u[i], &u))
      fail_msg("cli_parse_u64(\"%s\") accepted", bad_u[i]);
    assert_int_equal(u, 77); /* untouched */
  }
  /* Numbers too large are told apart from text that is no number. */
  assert_int_equal(cli_parse_u64("18446744073709551616", &u), CLI_TOO_LARGE);
  assert_int_equal(cli_parse_u64("2^64", &u), CLI_TOO_LARGE);
  assert_int_equal(cli_parse_u64("2^99999999999999999999", &u), CLI_TOO_LARGE);
  assert_int_equal(cli_parse_u64("1e3", &u), CLI_NOT_A_NUMBER);
  assert_int_equal(cli_parse_u64("2^x", &u), CLI_NOT_A_NUMBER);
  assert_int_equal(cli_parse_u64(NULL, &u), 1);
  double d = 5.0;
  assert_int_equal(cli_parse_double("-1.25e2", &d), 0);
  assert_true(d == -125.0);
  assert_int_equal(cli_parse_double("0x1p-3", &d), 0);
  assert_true(d == 0.125);
  d = 5.0;
  static const char *const bad_d[] = {"",          " 1",    "1 ",  "nan", "-nan", "inf",
                                      "-infinity", "1e400", "abc", "1,5", NULL};
  for (int i = 0; bad_d[i]; ++i) {
    if (!cli_parse_double(bad_d[i], &d))
      fail_msg("cli_parse_double(\"%s\") accepted", bad_d[i]);
    assert_true(d == 5.0);
  }
  cuprim_dtype t = CUPRIM_F32;
  assert_int_equal(cli_parse_dtype("f64", &t), 0);
  assert_int_equal(t, CUPRIM_F64);
  assert_int_equal(cli_parse_dtype("i128", &t), 1);
  assert_int_equal(cli_parse_dtype("", &t), 1);
  cuprim_op op = CUPRIM_SUM;
  assert_int_equal(cli_parse_op("Or", &op), 0);
  assert_int_equal(op, CUPRIM_OR);
  assert_int_equal(cli_parse_op("nand", &op), 1);
  int alg = 0;
  assert_int_equal(cli_parse_alg(CLI_PRIM_SCAN, "Decoupled-Lookback", &alg), 0);
  assert_int_equal(alg, CUPRIM_SCAN_DECOUPLED_LOOKBACK);
  assert_int_equal(cli_parse_alg(CLI_PRIM_SCAN, "decoupled", &alg), 1);
  assert_int_equal(cli_parse_alg(CLI_PRIM_SEGMENTED, "Merge-Path", &alg), 0);
  assert_int_equal(alg, CUPRIM_SEGMENTED_MERGE_PATH);
}

/* ---------------------------------------------------------------- support */

TU_TEST(test_supported) {
  (void)state;
  char err[256];
  /* The headers' contract, as the host references state it independently of the library that
   * the program asks (hr_reduce_supported: I32 U32 I64 U64 F32 F64 F16 BF16, AND/OR/XOR
   * integers only; the segmented reduce the same), and histogram all the dtypes. */
  for (int d = 0; d < HR_NUM_DTYPES; ++d) {
    const cuprim_dtype t = hr_all_dtypes[d];
    for (int op = 0; op <= CUPRIM_XOR; ++op) {
      const int want = hr_reduce_supported(t, (cuprim_op)op) ? CLI_EXIT_OK : CLI_EXIT_UNSUPPORTED;
      assert_int_equal(cli_check_supported(CLI_PRIM_REDUCE, t, (cuprim_op)op, err, sizeof err),
                       want);
      assert_int_equal(cli_check_supported(CLI_PRIM_SCAN, t, (cuprim_op)op, err, sizeof err), want);
      assert_int_equal(cli_check_supported(CLI_PRIM_SEGMENTED, t, (cuprim_op)op, err, sizeof err),
                       want);
      assert_int_equal(cli_check_supported(CLI_PRIM_HISTOGRAM, t, (cuprim_op)op, err, sizeof err),
                       CLI_EXIT_OK);
    }
  }
  assert_int_equal(cli_check_supported(CLI_PRIM_REDUCE, CUPRIM_F32, CUPRIM_AND, err, sizeof err),
                   CLI_EXIT_UNSUPPORTED);
  assert_non_null(strstr(err, "integer"));
  assert_int_equal(cli_check_supported(CLI_PRIM_SCAN, CUPRIM_I8, CUPRIM_SUM, err, sizeof err),
                   CLI_EXIT_UNSUPPORTED);
  assert_non_null(strstr(err, "i8"));
  assert_int_equal(cli_check_supported(CLI_PRIM_SEGMENTED, CUPRIM_F64, CUPRIM_OR, err, sizeof err),
                   CLI_EXIT_UNSUPPORTED);
  assert_non_null(strstr(err, "segmented --op or takes integer data only"));
  assert_int_equal(cli_check_supported(CLI_PRIM_REDUCE, CUPRIM_BF16, CUPRIM_XOR, err, sizeof err),
                   CLI_EXIT_UNSUPPORTED);
  assert_non_null(strstr(err, "integer"));
  assert_int_equal(
      cli_check_supported(CLI_PRIM_REDUCE, (cuprim_dtype)12, CUPRIM_SUM, err, sizeof err),
      CLI_EXIT_UNSUPPORTED);
  assert_non_null(strstr(err, "not a cuprim dtype"));
}

/* reduce --op argmin|argmax (reduce only, no --alg); histogram --channels/--active with
 * per-channel lists, and --weights with its two algorithms; what excludes what. */
TU_TEST(test_arg_channels_weights) {
  (void)state;
  cli_args a;
  ok("reduce --op argmin f", &a);
  assert_true(a.arg && a.arg_op == CUPRIM_ARGMIN);
  ok("reduce --op=ArgMax --chunk 7 --devices 0,1 f", &a);
  assert_true(a.arg && a.arg_op == CUPRIM_ARGMAX);
  ok("reduce --op max f", &a);
  assert_false(a.arg);
  bad("scan --op argmin -o o.npy f", "only reduce takes it");
  bad("ladder reduce --op argmax", "only reduce takes it");
  bad("reduce --op argmin --alg warp_shuffle f", "no --alg");
  bad("reduce --op argmean f", "argmin argmax");

  ok("histogram --channels 4 --bins 256 --range 0 256 f", &a);
  assert_int_equal(a.channels, 4);
  assert_int_equal(a.active, 4);
  for (int c = 0; c < 4; ++c)
    assert_true(a.chan_bins[c] == 256 && a.chan_lower[c] == 0 && a.chan_upper[c] == 256);
  ok("histogram --channels 4 --active 3 --bins 256,256,64 --range 0,0,-1 256,256,1 f", &a);
  assert_int_equal(a.active, 3);
  assert_true(a.chan_bins[0] == 256 && a.chan_bins[1] == 256 && a.chan_bins[2] == 64);
  assert_true(a.chan_lower[2] == -1 && a.chan_upper[2] == 1 && a.chan_upper[0] == 256);
  ok("histogram --channels 2 --bins 8 --range 0,-5 1 f", &a); /* lists of one and of A */
  assert_true(a.chan_lower[1] == -5 && a.chan_upper[1] == 1 && a.chan_bins[1] == 8);
  ok("histogram --bins 8 --range 0 1 f", &a); /* no channels: the one-channel arrays */
  assert_true(a.channels == 0 && a.chan_bins[0] == 8 && a.chan_upper[0] == 1);
  bad("histogram --active 2 --bins 4 --range 0 1 f", "--active needs --channels");
  bad("histogram --channels 5 --bins 4 --range 0 1 f", "too large (at most 4)");
  bad("histogram --channels 0 --bins 4 --range 0 1 f", "too small");
  bad("histogram --channels 2 --active 3 --bins 4 --range 0 1 f", "more than --channels 2");
  bad("histogram --channels 4 --active 3 --bins 4,4 --range 0 1 f", "or 3 (one per active");
  bad("histogram --channels 2 --bins 4 --range 0,0,0 1 f", "--range LO");
  bad("histogram --bins 4,4 --range 0 1 f", "lists need --channels");
  bad("histogram --channels 2 --bins 4,4,4,4,4 --range 0 1 f", "at most 4 values");
  bad("histogram --channels 2 --bins 4,,4 --range 0 1 f", "separated by commas");
  bad("histogram --channels 2 --bins 4,0 --range 0 1 f", "at least 1");
  bad("histogram --channels 2 --bins 4 --range 0,1 1,1 f", "LO must be less than HI");
  bad("histogram --channels 2 --bins 4 --range 0,x 1 f", "finite");
  bad("histogram --channels 2 --bins 4,4294967295 --range 0,0 1,1e-320 f", "too narrow");
  bad("histogram --channels 2 --edges e f", "--channels excludes --edges");
  bad("ladder histogram --bins 4,4", "--bins takes one number here");

  ok("histogram --bins 4 --range 0 1 --weights w.npy f", &a);
  assert_string_equal(a.weights, "w.npy");
  assert_int_equal(a.alg, CUPRIM_HISTOGRAM_WEIGHTED_AUTO);
  ok("histogram --alg fixed-order --bins 4 --range 0 1 --weights w.npy f", &a);
  assert_int_equal(a.alg, CUPRIM_HISTOGRAM_WEIGHTED_FIXED_ORDER);
  bad("histogram --bins 4 --range 0 1 --alg fixed_order f", "not an algorithm of histogram");
  bad("histogram --bins 4 --range 0 1 --weights w.npy --alg block_private f",
      "not an algorithm of a weighted histogram");
  bad("histogram --edges e --weights w.npy f", "not --edges");
  bad("histogram --channels 2 --bins 4 --range 0 1 --weights w.npy f",
      "--channels excludes --weights");
  bad("histogram --bins 4 --range 0 1 --weights= f", "empty file name");
  bad("reduce --weights w.npy f", "reduce does not take --weights");
}

TU_MAIN(NULL, NULL)
