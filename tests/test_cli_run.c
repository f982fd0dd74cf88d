/* The cuprim program on bad input, run as a user runs it (label nogpu). Every case must fail
 * with its documented exit code and a one-line message on stderr, before the program looks for a
 * device (so the result is the same on machines with and without one), and must leave no output
 * and no temporary file behind; an existing output file must be left untouched. */
#define _POSIX_C_SOURCE 200809L /* mkfifo, symlink */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

#include "cli_args.h"
#include "test_cli_common.h"

/* A .npy built from a header dict and data bytes (the header padded to 64 bytes). */
static void write_raw_npy(const char *name, const char *dict, const void *data, size_t len,
                          unsigned major) {
  unsigned char buf[512];
  const size_t pre = major == 1 ? 10 : 12;
  const size_t hlen = (pre + strlen(dict) + 1 + 63) / 64 * 64 - pre;
  memcpy(buf, "\x93NUMPY", 6);
  buf[6] = (unsigned char)major;
  buf[7] = 0;
  buf[8] = (unsigned char)(hlen & 0xFF);
  buf[9] = (unsigned char)(hlen >> 8);
  if (pre == 12)
    buf[10] = buf[11] = 0;
  memset(buf + pre, ' ', hlen);
  memcpy(buf + pre, dict, strlen(dict));
  buf[pre + hlen - 1] = '\n';
  assert_true(pre + hlen + len <= sizeof buf);
  memcpy(buf + pre + hlen, data, len);
  tc_write_file(tc_path(name), buf, pre + hlen + len);
}

/* Expects `status`, a single line on stderr containing `needle`, nothing on stdout, and no
 * temporary file in the scratch directory. */
static void expect(const tc_run *r, int status, const char *needle) {
  if (r->status != status)
    fail_msg("exit status %d, expected %d (stderr: %s)", r->status, status, r->err);
  if (!strstr(r->err, needle))
    fail_msg("stderr \"%s\" lacks \"%s\"", r->err, needle);
  const char *nl = strchr(r->err, '\n');
  if (!nl || nl[1] != '\0')
    fail_msg("stderr is not exactly one line: \"%s\"", r->err);
  assert_string_equal(r->out, "");
  assert_int_equal(tc_count_entries(".tmp-"), 0);
}

/* Runs the program with `args_fmt` (as tc_cli) and expects what expect() does. */
static void fails(tc_run *r, int status, const char *needle, const char *args_fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void fails(tc_run *r, int status, const char *needle, const char *args_fmt, ...) {
  char args[2048];
  va_list ap;
  va_start(ap, args_fmt);
  vsnprintf(args, sizeof args, args_fmt, ap);
  va_end(ap);
  tc_cli(r, "%s", args);
  expect(r, status, needle);
}

/* The inputs every test uses (rewritten by each test, so that each runs alone). */
static void make_inputs(void) {
  const float four[4] = {1, 2, 3, 4};
  write_raw_npy("trunc.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", four,
                sizeof four, 1);
  write_raw_npy("be.npy", "{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }", four,
                sizeof four, 1);
  tc_write_file(tc_path("data.bin"), "123456", 6);
  const float f32[4] = {1.0f, 2.0f, 3.0f, 4.5f};
  const double f64[2] = {1.0, 2.0};
  const int32_t i32[3] = {1, 2, 3};
  const int8_t i8[3] = {1, 2, 3};
  const uint64_t s4[1] = {4}, s2[1] = {2}, s3[1] = {3};
  tc_write_npy(tc_path("f32.npy"), CUPRIM_F32, 1, s4, f32, sizeof f32);
  tc_write_npy(tc_path("f64.npy"), CUPRIM_F64, 1, s2, f64, sizeof f64);
  tc_write_npy(tc_path("i32.npy"), CUPRIM_I32, 1, s3, i32, sizeof i32);
  tc_write_npy(tc_path("i8.npy"), CUPRIM_I8, 1, s3, i8, sizeof i8);
}

/* make_inputs(), and the group's tc_run (tc_setup). */
static tc_run *with_inputs(void **state) {
  make_inputs();
  return *state;
}

TU_TEST(test_input_files) {
  tc_run *r = with_inputs(state);
  const float four[4] = {1, 2, 3, 4};

  fails(r, CLI_EXIT_INPUT, "missing.npy: No such file or directory", "reduce %s",
        tc_path("missing.npy"));
  fails(r, CLI_EXIT_INPUT, "not a regular file", "reduce %s", tc_scratch());
  fails(r, CLI_EXIT_INPUT, "No such file", "histogram --bins 4 --range 0 1 %s",
        tc_path("missing.npy"));

  fails(r, CLI_EXIT_FORMAT, "truncated data", "reduce %s", tc_path("trunc.npy"));
  write_raw_npy("long.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", four,
                sizeof four, 2);
  fails(r, CLI_EXIT_FORMAT, "does not match the shape", "reduce %s", tc_path("long.npy"));
  fails(r, CLI_EXIT_FORMAT, "big-endian", "reduce %s", tc_path("be.npy"));
  write_raw_npy("fortran.npy", "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", four,
                sizeof four, 1);
  fails(r, CLI_EXIT_FORMAT, "Fortran", "scan -o %s %s", tc_path("out.npy"), tc_path("fortran.npy"));
  write_raw_npy("c8.npy", "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", four,
                sizeof four, 3);
  fails(r, CLI_EXIT_FORMAT, "unsupported dtype", "histogram --bins 2 --range 0 1 %s",
        tc_path("c8.npy"));
  write_raw_npy("obj.npy", "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", four, 16, 1);
  fails(r, CLI_EXIT_FORMAT, "unsupported dtype", "reduce %s", tc_path("obj.npy"));
  write_raw_npy("nokey.npy", "{'descr': '<f4', 'shape': (4,), }", four, sizeof four, 1);
  fails(r, CLI_EXIT_FORMAT, "fortran_order", "reduce %s", tc_path("nokey.npy"));
  write_raw_npy("v7.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", four,
                sizeof four, 7);
  fails(r, CLI_EXIT_FORMAT, "version 7.0", "reduce %s", tc_path("v7.npy"));
  tc_write_file(tc_path("magic.npy"), "\x93NUMPX\x01\x00", 8);
  fails(r, CLI_EXIT_FORMAT, "magic", "reduce %s", tc_path("magic.npy"));
  tc_write_file(tc_path("hlen.npy"), "\x93NUMPY\x01\x00\xff\x00{'descr'", 17);
  fails(r, CLI_EXIT_FORMAT, "past the end of the file", "reduce %s", tc_path("hlen.npy"));
  /* Raw data without --dtype, and raw data of the wrong size. */
  fails(r, CLI_EXIT_FORMAT, "--dtype", "reduce %s", tc_path("data.bin"));
  fails(r, CLI_EXIT_FORMAT, "whole number of f32 elements", "reduce --dtype f32 %s",
        tc_path("data.bin"));
  /* A .npy whose dtype is not the --dtype given. */
  fails(r, CLI_EXIT_FORMAT, "holds i32, not --dtype i64", "reduce --dtype i64 %s",
        tc_path("i32.npy"));
}

TU_TEST(test_unsupported) {
  tc_run *r = with_inputs(state);
  fails(r, CLI_EXIT_UNSUPPORTED, "integer data only", "reduce --op and %s", tc_path("f32.npy"));
  fails(r, CLI_EXIT_UNSUPPORTED, "integer data only", "scan --op xor -o %s %s", tc_path("x.npy"),
        tc_path("f64.npy"));
  assert_false(tc_exists(tc_path("x.npy")));
  fails(r, CLI_EXIT_UNSUPPORTED, "does not take i8", "reduce %s", tc_path("i8.npy"));
  fails(r, CLI_EXIT_UNSUPPORTED, "does not take u16", "scan -o %s --dtype u16 %s", tc_path("x.npy"),
        tc_path("data.bin"));
  fails(r, CLI_EXIT_UNSUPPORTED, "does not take i16", "ladder scan --dtype i16");
  fails(r, CLI_EXIT_UNSUPPORTED, "integer data only", "ladder reduce --op or --dtype f64");
  fails(r, CLI_EXIT_UNSUPPORTED, "segmented does not take u8", "ladder segmented --dtype u8");
  fails(r, CLI_EXIT_UNSUPPORTED, "integer data only", "ladder segmented --op xor --dtype f16");
  /* F16 and BF16 are read (a .npy of '<f2', raw bytes with --dtype) and taken by reduce, scan
   * and histogram from 0.2, but not with the bitwise ops: the library's answer, asked before any
   * device. */
  const uint16_t halves[3] = {0x3C00, 0x4000, 0x4200};
  const uint64_t s3[1] = {3};
  tc_write_npy(tc_path("f16.npy"), CUPRIM_F16, 1, s3, halves, sizeof halves);
  fails(r, CLI_EXIT_UNSUPPORTED, "integer data only", "reduce --op xor %s", tc_path("f16.npy"));
  fails(r, CLI_EXIT_UNSUPPORTED, "integer data only", "scan --op and --dtype bf16 -o %s %s",
        tc_path("x.npy"), tc_path("data.bin"));
}

TU_TEST(test_outputs_and_edges) {
  tc_run *r = with_inputs(state);
  /* An output in a directory that does not exist. */
  fails(r, CLI_EXIT_OUTPUT, "cannot create a file there", "scan -o %s %s",
        tc_path("no/such/dir/out.npy"), tc_path("i32.npy"));
  fails(r, CLI_EXIT_OUTPUT, "nodir/h.csv", "histogram --bins 2 --range 0 4 -o %s %s",
        tc_path("nodir/h.csv"), tc_path("i32.npy"));
  /* An existing output survives a failed run unchanged. */
  tc_write_file(tc_path("keep.npy"), "old", 3);
  fails(r, CLI_EXIT_UNSUPPORTED, "integer", "scan --op and -o %s %s", tc_path("keep.npy"),
        tc_path("f32.npy"));
  fails(r, CLI_EXIT_FORMAT, "truncated", "scan -o %s %s", tc_path("keep.npy"),
        tc_path("trunc.npy"));
  FILE *f = fopen(tc_path("keep.npy"), "rb");
  assert_non_null(f);
  char back[8] = "";
  assert_int_equal(fread(back, 1, sizeof back, f), 3);
  fclose(f);
  assert_memory_equal(back, "old", 3);
  /* Bad edges files. */
  tc_write_file(tc_path("dec.txt"), "0 2 1\n", 6);
  fails(r, CLI_EXIT_FORMAT, "strictly increasing", "histogram --edges %s %s", tc_path("dec.txt"),
        tc_path("f32.npy"));
  tc_write_file(tc_path("nan.txt"), "0, nan, 1", 9);
  fails(r, CLI_EXIT_FORMAT, "not a finite number", "histogram --edges %s %s", tc_path("nan.txt"),
        tc_path("f32.npy"));
  tc_write_file(tc_path("one.txt"), "5\n", 2);
  fails(r, CLI_EXIT_FORMAT, "at least 2", "histogram --edges %s %s", tc_path("one.txt"),
        tc_path("f32.npy"));
  fails(r, CLI_EXIT_INPUT, "none.txt", "histogram --edges %s %s", tc_path("none.txt"),
        tc_path("f32.npy"));
  fails(r, CLI_EXIT_FORMAT, "big-endian", "histogram --edges %s %s", tc_path("be.npy"),
        tc_path("f32.npy"));
}

TU_TEST(test_usage) {
  tc_run *r = with_inputs(state);
  const char *f = tc_path("f32.npy");
  fails(r, CLI_EXIT_USAGE, "at least 1", "histogram --bins 0 --range 0 1 %s", f);
  fails(r, CLI_EXIT_USAGE, "LO must be less than HI", "histogram --bins 4 --range 1 0 %s", f);
  fails(r, CLI_EXIT_USAGE, "finite", "histogram --bins 4 --range nan 1 %s", f);
  fails(r, CLI_EXIT_USAGE, ".npy or .csv", "histogram --bins 4 --range 0 1 -o %s %s",
        tc_path("h.txt"), f);
  fails(r, CLI_EXIT_USAGE, "unknown option '--frobnicate'", "reduce --frobnicate %s", f);
  fails(r, CLI_EXIT_USAGE, "--op mean", "reduce --op mean %s", f);
  fails(r, CLI_EXIT_USAGE, "needs -o", "scan %s", f);
  fails(r, CLI_EXIT_USAGE, "missing the input FILE", "reduce");
  fails(r, CLI_EXIT_USAGE, "--n 0", "demo --n 0");
  fails(r, CLI_EXIT_USAGE, "unknown command", "frobnicate");
  /* No command: the usage on stderr. */
  tc_cli(r, "%s", "");
  assert_int_equal(r->status, CLI_EXIT_USAGE);
  assert_non_null(strstr(r->err, "usage: cuprim"));
  /* Help on stdout, exit 0, with the exit codes. */
  tc_cli(r, "--help");
  assert_int_equal(r->status, 0);
  assert_non_null(strstr(r->out, "ladder"));
  assert_non_null(strstr(r->out, "segmented reduce"));
  assert_non_null(strstr(r->out, "77 no CUDA device"));
  static const char *const cmds[] = {"demo", "info", "reduce", "scan", "histogram", "ladder"};
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; ++i) {
    tc_cli(r, "%s --help", cmds[i]);
    assert_int_equal(r->status, 0);
    char want[64];
    snprintf(want, sizeof want, "usage: cuprim %s", cmds[i]);
    assert_non_null(strstr(r->out, want));
    assert_string_equal(r->err, "");
  }
  tc_cli(r, "help histogram");
  assert_int_equal(r->status, 0);
  assert_non_null(strstr(r->out, "--edges"));
  tc_cli(r, "help ladder");
  assert_int_equal(r->status, 0);
  assert_non_null(strstr(r->out, "reduce|scan|histogram|segmented"));
  assert_non_null(strstr(r->out, "--segment-size L"));
}

/* What a new user ran into (issue 12), each refused at once with its exit code, or written where
 * it should be. */
TU_TEST(test_new_user_cases) {
  tc_run *r = with_inputs(state);
  /* A FIFO as input or edges: exit 3 at once, not a read that waits for a writer forever. */
  assert_int_equal(mkfifo(tc_path("fifo"), 0666), 0);
  fails(r, CLI_EXIT_INPUT, "not a regular file (a FIFO)", "reduce %s", tc_path("fifo"));
  fails(r, CLI_EXIT_INPUT, "not a regular file (a FIFO)", "reduce --dtype f32 %s", tc_path("fifo"));
  fails(r, CLI_EXIT_INPUT, "not a regular file (a FIFO)", "histogram --edges %s %s",
        tc_path("fifo"), tc_path("f32.npy"));
  /* An output that is a directory: exit 6 before any device work (77 would mean it got past). */
  fails(r, CLI_EXIT_OUTPUT, "is a directory", "reduce -o %s %s", tc_scratch(), tc_path("i32.npy"));
  fails(r, CLI_EXIT_OUTPUT, "is a directory", "scan -o %s %s", tc_scratch(), tc_path("i32.npy"));
  /* A range the library would refuse (its width overflows): refused by the program first. */
  fails(r, CLI_EXIT_USAGE, "too wide", "histogram --bins 4 --range -1e308 1e308 %s",
        tc_path("f32.npy"));
  /* A text edges file with a NUL byte: an error, not the edges before it. */
  tc_write_file(tc_path("nul.txt"), "0 1\0 2 3\n", 9);
  fails(r, CLI_EXIT_FORMAT, "NUL byte at offset 3", "histogram --edges %s %s", tc_path("nul.txt"),
        tc_path("f32.npy"));
  /* A .npy header's bytes are escaped in the message, not sent to the terminal. */
  const float one[1] = {1.0f};
  write_raw_npy("esc.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), '\x1b[2J': 1}",
                one, sizeof one, 1);
  fails(r, CLI_EXIT_FORMAT, "unexpected key '\\x1b[2J'", "reduce %s", tc_path("esc.npy"));
  assert_null(strchr(r->err, '\x1b'));
  /* Numbers too large, and a size too large for the host: usage errors with the help hint. */
  fails(r, CLI_EXIT_USAGE, "too large", "demo --seed 99999999999999999999");
  fails(r, CLI_EXIT_USAGE, "too large for this host", "demo --n 2^63");
  assert_non_null(strstr(r->err, "'cuprim demo --help' lists the options"));
  /* A histogram output must name its format; '-' is CSV on standard output. */
  fails(r, CLI_EXIT_USAGE, "must end in .npy or .csv", "histogram --bins 2 --range 0 4 -o %s %s",
        tc_path("counts.np"), tc_path("i32.npy"));
}

/* Outputs that used to fail or to replace a link: each runs (0 with a device, 77 without), no
 * temporary is left, and links stay links. The written contents are checked on a GPU
 * (test_cli_gpu.c). */
TU_TEST(test_output_names) {
  tc_run *r = with_inputs(state);
  char name[251]; /* 250 bytes: the temporary's name must still fit NAME_MAX */
  memset(name, 'n', 246);
  memcpy(name + 246, ".npy", 5);
  assert_int_equal(symlink("i32_copy.npy", tc_path("link.npy")), 0);
  tc_write_file(tc_path("i32_copy.npy"), "old", 3);
  const char *const cases[] = {"scan -o %s %s",
                               "scan -o - %s",
                               "scan -o /dev/stdout %s",
                               "scan -o /dev/null %s",
                               "scan -o %s %s",
                               "scan -o %s %s",
                               "histogram --bins 2 --range 0 4 -o - %s",
                               "reduce -o /dev/stdout %s"};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    const char *out = k == 0 ? tc_path(name) : k == 4 ? tc_path("link.npy") : tc_path("s.csv");
    if (k == 0 || k == 4 || k == 5)
      tc_cli(r, cases[k], out, tc_path("i32.npy"));
    else
      tc_cli(r, cases[k], tc_path("i32.npy"));
    assert_int_equal(tc_count_entries(".tmp-"), 0);
    if (r->status == CLI_EXIT_NO_DEVICE) {
      assert_non_null(strstr(r->err, "no CUDA device"));
      continue;
    }
    assert_int_equal(r->status, 0);
    assert_true(k != 0 || tc_exists(tc_path(name)));
  }
  struct stat st;
  assert_int_equal(lstat(tc_path("link.npy"), &st), 0);
  assert_true(S_ISLNK(st.st_mode));
}

/* `reduce [extra] i32.npy` prints the sum where there is a device and nothing where there is
 * none (77). */
static void expect_sum_of_i32(tc_run *r, const char *extra) {
  tc_cli(r, "reduce %s %s", extra, tc_path("i32.npy"));
  if (r->status == CLI_EXIT_NO_DEVICE)
    assert_string_equal(r->out, "");
  else
    assert_string_equal(r->out, "6\n");
}

/* Valid input: 0 where there is a device, 77 (one line) where there is none; either way no
 * temporary file is left, and an output exists only after success. */
TU_TEST(test_valid_input_device_or_skip) {
  tc_run *r = with_inputs(state);
  tc_cli(r, "scan -o %s %s", tc_path("ok.npy"), tc_path("i32.npy"));
  assert_int_equal(tc_count_entries(".tmp-"), 0);
  if (r->status == CLI_EXIT_NO_DEVICE) {
    assert_non_null(strstr(r->err, "no CUDA device"));
    assert_false(tc_exists(tc_path("ok.npy")));
  } else {
    assert_int_equal(r->status, 0);
    assert_true(tc_exists(tc_path("ok.npy")));
  }
  expect_sum_of_i32(r, "");
}

/* --devices: a bad list is a usage error before the input is opened (the file here does not
 * exist); several devices need the NCCL component (else a usage error, before the input too),
 * and with it look for the devices after the input's checks, as one device does. */
TU_TEST(test_devices) {
  tc_run *r = with_inputs(state);
  const char *missing = tc_path("missing.npy");
  fails(r, CLI_EXIT_USAGE, "device 0 is listed twice", "reduce --devices 0,0 %s", missing);
  fails(r, CLI_EXIT_USAGE, "device 2000 is too large (at most 1023)",
        "scan --devices 0,2000 -o %s %s", tc_path("x.npy"), missing);
  fails(r, CLI_EXIT_USAGE, "'one' is not a device ordinal",
        "histogram --bins 2 --range 0 1 --devices 0,one %s", missing);
  fails(r, CLI_EXIT_USAGE, "--device and --devices exclude each other",
        "reduce --device 1 --devices 0 %s", missing);
  fails(r, CLI_EXIT_USAGE, "a ladder --alg runs on one device",
        "reduce --devices 0,1 --alg warp_shuffle %s", missing);
  tc_cli(r, "reduce --devices 0,1 %s", missing);
#if CUPRIM_CLI_HAS_NCCL
  expect(r, CLI_EXIT_INPUT, "missing.npy");
  tc_cli(r, "reduce --devices 0,1 %s", tc_path("i32.npy"));
  assert_int_equal(tc_count_entries(".tmp-"), 0);
  if (r->status == CLI_EXIT_NO_DEVICE)
    assert_non_null(strstr(r->err, "no CUDA device"));
  else /* 0 with two GPUs, 2 with one (test_cli_gpu checks both) */
    assert_true(r->status == 0 || r->status == CLI_EXIT_USAGE);
#else
  expect(r, CLI_EXIT_USAGE, "--devices 0,1: this cuprim program was built without NCCL");
#endif
  expect_sum_of_i32(r, "--devices 0"); /* one device in the list: as --device */
}

/* `cuprim info` says what the build holds (the CUDA architectures, NCCL or not) before it looks
 * for a device: on a machine without one too. */
TU_TEST(test_info_build_lines) {
  tc_run *r = *state;
  tc_cli(r, "info --runs 1");
  char want[256];
  snprintf(want, sizeof want, "cuprim %s\nbuilt for CUDA architectures %s\nNCCL",
           cuprim_version_string(), cuprim_build_architectures());
  assert_true(strncmp(r->out, want, strlen(want)) == 0);
#if CUPRIM_CLI_HAS_NCCL
  assert_non_null(strstr(r->out, "\nNCCL 2."));
#else
  assert_non_null(strstr(r->out, "\nNCCL: none"));
#endif
  if (r->status == CLI_EXIT_NO_DEVICE)
    assert_non_null(strstr(r->err, "no CUDA device"));
  else
    assert_int_equal(r->status, 0);
}

/* The outputs and inputs of 16-bit floats, arg-reduce, channels and weights that are refused
 * before any device: a bf16 .npy (NumPy has no bfloat16), a file that is not whole pixels, a 2-d
 * .npy of channels with differing bin counts, weights of another dtype or length. */
TU_TEST(test_half_channels_weights) {
  tc_run *r = with_inputs(state);
  const uint16_t bf[4] = {0x3F80, 0x4000, 0x4040, 0x4080};
  tc_write_file(tc_path("bf16.bin"), bf, sizeof bf);
  fails(r, CLI_EXIT_USAGE, "NumPy has no bfloat16", "scan --dtype bf16 -o %s %s", tc_path("x.npy"),
        tc_path("bf16.bin"));
  assert_false(tc_exists(tc_path("x.npy")));
  fails(r, CLI_EXIT_USAGE, "NumPy has no bfloat16", "reduce --dtype bf16 -o %s %s",
        tc_path("x.npy"), tc_path("bf16.bin"));
  fails(r, CLI_EXIT_FORMAT, "not a whole number of 3-channel pixels",
        "histogram --channels 3 --bins 4 --range 0 1 %s", tc_path("f32.npy"));
  fails(r, CLI_EXIT_USAGE, "bin counts differ",
        "histogram --channels 2 --bins 4,8 --range 0 1 -o %s %s", tc_path("x.npy"),
        tc_path("f32.npy"));
  assert_false(tc_exists(tc_path("x.npy")));
  fails(r, CLI_EXIT_UNSUPPORTED, "takes f32 and f64",
        "histogram --bins 4 --range 0 1 --weights %s %s", tc_path("i32.npy"), tc_path("f32.npy"));
  fails(r, CLI_EXIT_FORMAT, "2 weights for 4 samples",
        "histogram --bins 4 --range 0 1 --weights %s %s", tc_path("f64.npy"), tc_path("f32.npy"));
  fails(r, CLI_EXIT_INPUT, "none.npy", "histogram --bins 4 --range 0 1 --weights %s %s",
        tc_path("none.npy"), tc_path("f32.npy"));
  fails(r, CLI_EXIT_FORMAT, "data.bin", "histogram --bins 4 --range 0 1 --weights %s -o %s %s",
        tc_path("data.bin"), tc_path("x.csv"), tc_path("f32.npy"));
  /* Valid: 77 without a device, else success (the GPU test checks the values). */
  const char *const valid[] = {"reduce --op argmin --dtype bf16", "reduce --dtype bf16 --chunk 3",
                               "histogram --bins 4 --range 0 8 --dtype bf16"};
  for (size_t k = 0; k < sizeof valid / sizeof valid[0]; ++k) {
    tc_cli(r, "%s %s", valid[k], tc_path("bf16.bin"));
    assert_true(r->status == CLI_EXIT_NO_DEVICE || r->status == 0);
  }
}

/* reduce and scan over segments, refused before any device: offsets that are not a .npy, of a
 * dtype the segmented calls do not take, or none at all (num_segments + 1 offsets: at least one),
 * a missing offsets file, an input that is not a whole number of --segment-size rows; nothing
 * written. Valid lines: 77 without a device, else success (the GPU test checks the values). */
TU_TEST(test_segments) {
  tc_run *r = with_inputs(state);
  const int64_t off[3] = {0, 1, 4};
  const float foff[2] = {0, 4};
  const int16_t hoff[2] = {0, 4};
  const uint64_t s3[1] = {3}, s2[1] = {2}, s0[1] = {0};
  tc_write_npy(tc_path("off.npy"), CUPRIM_I64, 1, s3, off, sizeof off);
  tc_write_npy(tc_path("foff.npy"), CUPRIM_F32, 1, s2, foff, sizeof foff);
  tc_write_npy(tc_path("hoff.npy"), CUPRIM_I16, 1, s2, hoff, sizeof hoff);
  tc_write_npy(tc_path("none_off.npy"), CUPRIM_I64, 1, s0, off, 0);
  fails(r, CLI_EXIT_FORMAT, "not a .npy file (the offsets are a .npy", "reduce --offsets %s %s",
        tc_path("data.bin"), tc_path("f32.npy"));
  fails(r, CLI_EXIT_UNSUPPORTED, "f32 offsets; segments take i32 u32 i64 u64",
        "reduce --offsets %s %s", tc_path("foff.npy"), tc_path("f32.npy"));
  fails(r, CLI_EXIT_UNSUPPORTED, "i16 offsets", "scan --offsets %s -o %s %s", tc_path("hoff.npy"),
        tc_path("x.npy"), tc_path("f32.npy"));
  assert_false(tc_exists(tc_path("x.npy")));
  fails(r, CLI_EXIT_FORMAT, "no offsets (num_segments + 1 of them, at least one)",
        "reduce --offsets %s %s", tc_path("none_off.npy"), tc_path("f32.npy"));
  fails(r, CLI_EXIT_INPUT, "missing.npy", "reduce --offsets %s %s", tc_path("missing.npy"),
        tc_path("f32.npy"));
  fails(r, CLI_EXIT_FORMAT, "4 elements are not a whole number of segments of 3",
        "scan --segment-size 3 -o %s %s", tc_path("x.npy"), tc_path("f32.npy"));
  assert_false(tc_exists(tc_path("x.npy")));
  fails(r, CLI_EXIT_UNSUPPORTED, "", "reduce --segment-size 1 %s", tc_path("i8.npy"));
  tc_cli(r, "reduce --segment-size 2 %s", tc_path("f32.npy"));
  assert_true(r->status == CLI_EXIT_NO_DEVICE || r->status == 0);
  tc_cli(r, "reduce --offsets %s -o %s %s", tc_path("off.npy"), tc_path("x.csv"),
         tc_path("f32.npy"));
  assert_true(r->status == CLI_EXIT_NO_DEVICE || r->status == 0);
  tc_cli(r, "scan --segment-size 1 -o %s %s", tc_path("x.npy"), tc_path("f32.npy"));
  assert_true(r->status == CLI_EXIT_NO_DEVICE || r->status == 0);
  /* ladder segmented: its options refused with exit 2, a valid line 77 without a device. */
  fails(r, CLI_EXIT_USAGE, "ladder segmented takes no --bins", "ladder segmented --bins 8");
  fails(r, CLI_EXIT_USAGE, "ladder scan takes no --segment-size", "ladder scan --segment-size 8");
  fails(r, CLI_EXIT_USAGE, "--segment-size 0: too small", "ladder segmented --segment-size 0");
  fails(r, CLI_EXIT_USAGE, "takes no --segment-size",
        "ladder segmented --segments power_law --segment-size 8");
  assert_non_null(strstr(r->err, "'cuprim ladder --help' lists the options"));
  tc_cli(r, "ladder segmented --n 1000 --segment-size 7 --runs 1");
  if (r->status == CLI_EXIT_NO_DEVICE)
    assert_non_null(strstr(r->err, "no CUDA device"));
  else
    assert_int_equal(r->status, 0);
}

TU_MAIN(tc_setup, tc_teardown)
