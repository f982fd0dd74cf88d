/* The cuprim program's files without a GPU (tools/npy.c, tools/cli_io.c): .npy files of every
 * dtype and format version built byte by byte here (header padded to 64 bytes as NumPy writes
 * it), odd but valid headers, every malformed case the reader must refuse, writer round trips,
 * raw input, bin edges (.npy and text), and outputs written through a temporary name. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, symlink, mkfifo */

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

#include "cli_io.h"
#include "npy.h"

/* ---------------------------------------------------------------- scratch directory */

static char scratch[64];

static int make_scratch(void **state) {
  (void)state;
  strcpy(scratch, "npy_test_XXXXXX");
  return mkdtemp(scratch) ? 0 : -1;
}

static int remove_scratch(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
  return system(cmd) == 0 ? 0 : -1;
}

static const char *path_of(const char *name) {
  static char buf[4][512]; /* long enough for a 250-byte name */
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", scratch, name);
  return buf[k];
}

static void write_file(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, len, f), len);
  assert_int_equal(fclose(f), 0);
}

static int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* ---------------------------------------------------------------- building .npy bytes */

/* preamble(major, minor, header length) + dict + padding (spaces and '\n' up to a multiple of
 * 64 when pad is set; else just '\n') + data. Returns the total length in out (cap bytes). */
static size_t build_npy(unsigned char *out, size_t cap, unsigned major, unsigned minor,
                        const char *dict, int pad, const void *data, size_t data_len) {
  const size_t pre = major == 1 ? 10 : 12;
  size_t hlen = strlen(dict) + 1; /* + '\n' */
  if (pad)
    hlen = (pre + hlen + 63) / 64 * 64 - pre;
  const size_t total = pre + hlen + data_len;
  assert_true(total <= cap);
  memcpy(out, "\x93NUMPY", 6);
  out[6] = (unsigned char)major;
  out[7] = (unsigned char)minor;
  out[8] = (unsigned char)(hlen & 0xFF);
  out[9] = (unsigned char)(hlen >> 8 & 0xFF);
  if (pre == 12) {
    out[10] = (unsigned char)(hlen >> 16 & 0xFF);
    out[11] = (unsigned char)(hlen >> 24 & 0xFF);
  }
  memcpy(out + pre, dict, strlen(dict));
  memset(out + pre + strlen(dict), ' ', hlen - strlen(dict) - 1);
  out[pre + hlen - 1] = '\n';
  if (data_len)
    memcpy(out + pre + hlen, data, data_len);
  return total;
}

/* Parses buf as a whole file through npy_read_header (from a real file, as the program does). */
static npy_status read_buf(const char *name, const void *buf, size_t len, npy_header *h,
                           char *detail, size_t detail_len) {
  const char *p = path_of(name);
  write_file(p, buf, len);
  FILE *f = fopen(p, "rb");
  assert_non_null(f);
  const npy_status s = npy_read_header(f, len, h, detail, detail_len);
  if (s == NPY_OK) {
    /* Positioned at the data. */
    assert_int_equal((uint64_t)ftell(f), h->data_offset);
  }
  fclose(f);
  return s;
}

/* The reader's verdict on a header dict with `data_len` bytes of data after it. */
static npy_status verdict(const char *dict, size_t data_len, npy_header *h) {
  unsigned char buf[4096];
  unsigned char data[256];
  memset(data, 0xAB, sizeof data);
  assert_true(data_len <= sizeof data);
  const size_t len = build_npy(buf, sizeof buf, 1, 0, dict, 1, data, data_len);
  char detail[256];
  npy_header tmp;
  const npy_status s = read_buf("v.npy", buf, len, h ? h : &tmp, detail, sizeof detail);
  if (s != NPY_OK) {
    assert_true(strlen(detail) > 0); /* every refusal says why */
    print_message("    %-70s -> %s: %s\n", dict, npy_status_string(s), detail);
  }
  return s;
}

/* ---------------------------------------------------------------- valid files */

static const struct {
  cuprim_dtype t;
  const char *descr;
  size_t size;
} kTypes[] = {
    {CUPRIM_I8, "|i1", 1},  {CUPRIM_U8, "|u1", 1},  {CUPRIM_I16, "<i2", 2}, {CUPRIM_U16, "<u2", 2},
    {CUPRIM_I32, "<i4", 4}, {CUPRIM_U32, "<u4", 4}, {CUPRIM_I64, "<i8", 8}, {CUPRIM_U64, "<u8", 8},
    {CUPRIM_F32, "<f4", 4}, {CUPRIM_F64, "<f8", 8}, {CUPRIM_F16, "<f2", 2},
};
enum { NUM_TYPES = sizeof kTypes / sizeof kTypes[0] };

TU_TEST(test_every_dtype_and_version) {
  (void)state;
  for (unsigned major = 1; major <= 3; ++major) {
    for (int k = 0; k < NUM_TYPES; ++k) {
      char dict[128];
      snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (5,), }",
               kTypes[k].descr);
      unsigned char data[40];
      for (size_t i = 0; i < sizeof data; ++i)
        data[i] = (unsigned char)(i * 7 + k);
      unsigned char buf[256];
      const size_t len = build_npy(buf, sizeof buf, major, 0, dict, 1, data, 5 * kTypes[k].size);
      npy_header h;
      char detail[256];
      const char *p = path_of("all.npy");
      write_file(p, buf, len);
      FILE *f = fopen(p, "rb");
      assert_non_null(f);
      assert_int_equal(npy_read_header(f, len, &h, detail, sizeof detail), NPY_OK);
      assert_int_equal(h.major, major);
      assert_int_equal(h.minor, 0);
      assert_int_equal(h.dtype, kTypes[k].t);
      assert_int_equal(h.ndim, 1);
      assert_int_equal(h.shape[0], 5);
      assert_int_equal(h.count, 5);
      assert_int_equal(h.data_offset % 64, 0);
      assert_int_equal(npy_dtype_size(h.dtype), kTypes[k].size);
      unsigned char back[40];
      assert_int_equal(fread(back, 1, 5 * kTypes[k].size, f), 5 * kTypes[k].size);
      assert_memory_equal(back, data, 5 * kTypes[k].size);
      fclose(f);
      /* And through cli_input, which the program uses. */
      cli_input in;
      assert_int_equal(cli_input_open(&in, p, 0, CUPRIM_F32, detail, sizeof detail), CLI_EXIT_OK);
      assert_int_equal(in.is_npy, 1);
      assert_int_equal(in.dtype, kTypes[k].t);
      assert_int_equal(in.count, 5);
      assert_int_equal(cli_input_read(&in, back, 5 * kTypes[k].size, detail, sizeof detail),
                       CLI_EXIT_OK);
      assert_memory_equal(back, data, 5 * kTypes[k].size);
      /* A share from element 2 on, read again (a device's part of the input); the end, and past
       * it. */
      const size_t size = kTypes[k].size;
      assert_int_equal(cli_input_seek(&in, 2, detail, sizeof detail), CLI_EXIT_OK);
      assert_int_equal(cli_input_read(&in, back, 3 * size, detail, sizeof detail), CLI_EXIT_OK);
      assert_memory_equal(back, (const char *)data + 2 * size, 3 * size);
      assert_int_equal(cli_input_seek(&in, 5, detail, sizeof detail), CLI_EXIT_OK);
      assert_int_equal(cli_input_read(&in, back, size, detail, sizeof detail), CLI_EXIT_INPUT);
      assert_int_equal(cli_input_seek(&in, 6, detail, sizeof detail), CLI_EXIT_INPUT);
      cli_input_close(&in);
    }
  }
}

TU_TEST(test_shapes) {
  (void)state;
  npy_header h;
  /* Multi-dimensional: flattened in C order. */
  assert_int_equal(
      verdict("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3, 4), }", 96, &h), NPY_OK);
  assert_int_equal(h.ndim, 3);
  assert_int_equal(h.shape[0], 2);
  assert_int_equal(h.shape[1], 3);
  assert_int_equal(h.shape[2], 4);
  assert_int_equal(h.count, 24);
  /* 0-d: one element. */
  assert_int_equal(verdict("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 8, &h),
                   NPY_OK);
  assert_int_equal(h.ndim, 0);
  assert_int_equal(h.count, 1);
  /* Empty arrays. */
  assert_int_equal(verdict("{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", 0, &h),
                   NPY_OK);
  assert_int_equal(h.ndim, 1);
  assert_int_equal(h.count, 0);
  assert_int_equal(verdict("{'descr': '<u2', 'fortran_order': False, 'shape': (3, 0, 2), }", 0, &h),
                   NPY_OK);
  assert_int_equal(h.count, 0);
  /* A 1-d shape of one element, and a fortran_order True that does not matter is still refused
   * below; here the common spellings NumPy and other writers use. */
  assert_int_equal(verdict("{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }", 8, &h),
                   NPY_OK);
  assert_int_equal(h.count, 1);
}

TU_TEST(test_header_spellings) {
  (void)state;
  npy_header h;
  /* Keys in any order, double quotes, no trailing comma. */
  assert_int_equal(
      verdict("{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<u4\"}", 8, &h), NPY_OK);
  assert_int_equal(h.dtype, CUPRIM_U32);
  assert_int_equal(h.count, 2);
  /* One-byte types with any byte-order character; Python 2's long suffix in the shape. */
  assert_int_equal(verdict("{'descr': '<u1', 'fortran_order': False, 'shape': (3L,), }", 3, &h),
                   NPY_OK);
  assert_int_equal(h.dtype, CUPRIM_U8);
  assert_int_equal(verdict("{'descr': '>i1', 'fortran_order': False, 'shape': (3,), }", 3, &h),
                   NPY_OK);
  assert_int_equal(h.dtype, CUPRIM_I8);
  /* Native order '=' (this program runs on little-endian hosts). */
  assert_int_equal(verdict("{'descr': '=f8', 'fortran_order': False, 'shape': (1,), }", 8, &h),
                   NPY_OK);
  assert_int_equal(h.dtype, CUPRIM_F64);
  /* A header with no padding at all, in version 2.0 and 3.0. */
  unsigned char buf[256];
  char detail[256];
  for (unsigned major = 2; major <= 3; ++major) {
    const size_t len = build_npy(buf, sizeof buf, major, 0,
                                 "{'descr': '<i2', 'fortran_order': False, 'shape': (2,)}", 0,
                                 "\x01\x00\x02\x00", 4);
    assert_int_equal(read_buf("nopad.npy", buf, len, &h, detail, sizeof detail), NPY_OK);
    assert_int_equal(h.dtype, CUPRIM_I16);
    assert_int_equal(h.data_offset, len - 4);
  }
}

/* ---------------------------------------------------------------- malformed files */

TU_TEST(test_bad_preamble) {
  (void)state;
  unsigned char buf[256];
  char detail[256];
  npy_header h;
  const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }";
  size_t len = build_npy(buf, sizeof buf, 1, 0, dict, 1, "\0\0\0\0", 4);
  /* Bad magic. */
  buf[1] = 'X';
  assert_int_equal(read_buf("magic.npy", buf, len, &h, detail, sizeof detail), NPY_ERR_MAGIC);
  buf[1] = 'N';
  buf[0] = 0x92;
  assert_int_equal(read_buf("magic.npy", buf, len, &h, detail, sizeof detail), NPY_ERR_MAGIC);
  buf[0] = 0x93;
  /* Bad versions. */
  const unsigned char versions[][2] = {{0, 0}, {4, 0}, {1, 1}, {2, 5}, {255, 0}};
  for (size_t i = 0; i < sizeof versions / sizeof versions[0]; ++i) {
    buf[6] = versions[i][0];
    buf[7] = versions[i][1];
    assert_int_equal(read_buf("version.npy", buf, len, &h, detail, sizeof detail), NPY_ERR_VERSION);
  }
  buf[6] = 1;
  buf[7] = 0;
  assert_int_equal(read_buf("ok.npy", buf, len, &h, detail, sizeof detail), NPY_OK);
  /* Header length past the end of the file (version 1: 16-bit, version 2: 32-bit length). */
  buf[8] = 0xFF;
  buf[9] = 0x7F;
  assert_int_equal(read_buf("hlen.npy", buf, len, &h, detail, sizeof detail),
                   NPY_ERR_HEADER_TRUNCATED);
  len = build_npy(buf, sizeof buf, 2, 0, dict, 1, "\0\0\0\0", 4);
  buf[10] = 0x01;
  assert_int_equal(read_buf("hlen2.npy", buf, len, &h, detail, sizeof detail),
                   NPY_ERR_HEADER_TRUNCATED);
  /* A header length past the reader's limit. */
  buf[11] = 0x10;
  assert_int_equal(read_buf("hlen3.npy", buf, len, &h, detail, sizeof detail), NPY_ERR_HEADER);
  /* The file ends inside the preamble, or right after it; an empty file. */
  len = build_npy(buf, sizeof buf, 1, 0, dict, 1, NULL, 0);
  assert_int_equal(read_buf("short.npy", buf, 9, &h, detail, sizeof detail),
                   NPY_ERR_HEADER_TRUNCATED);
  assert_int_equal(read_buf("short.npy", buf, 10, &h, detail, sizeof detail),
                   NPY_ERR_HEADER_TRUNCATED);
  assert_int_equal(read_buf("short.npy", buf, 40, &h, detail, sizeof detail),
                   NPY_ERR_HEADER_TRUNCATED);
  assert_int_equal(read_buf("empty.npy", buf, 0, &h, detail, sizeof detail),
                   NPY_ERR_HEADER_TRUNCATED);
  assert_int_equal(read_buf("three.npy", "abc", 3, &h, detail, sizeof detail), NPY_ERR_MAGIC);
}

TU_TEST(test_bad_headers) {
  (void)state;
  static const struct {
    const char *dict;
    npy_status want;
  } cases[] = {
      /* Missing, extra and repeated keys. */
      {"{'fortran_order': False, 'shape': (1,), }", NPY_ERR_HEADER},
      {"{'descr': '<f4', 'shape': (1,), }", NPY_ERR_HEADER},
      {"{'descr': '<f4', 'fortran_order': False, }", NPY_ERR_HEADER},
      {"{}", NPY_ERR_HEADER},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}", NPY_ERR_HEADER},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", NPY_ERR_HEADER},
      /* Syntax. */
      {"", NPY_ERR_HEADER},
      {"'descr': '<f4', 'fortran_order': False, 'shape': (1,)", NPY_ERR_HEADER},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,)", NPY_ERR_HEADER},
      {"{'descr': '<f4' 'fortran_order': False, 'shape': (1,)}", NPY_ERR_HEADER},
      {"{'descr' '<f4', 'fortran_order': False, 'shape': (1,)}", NPY_ERR_HEADER},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': (1,)}", NPY_ERR_HEADER},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} trailing", NPY_ERR_HEADER},
      {"{descr: '<f4', 'fortran_order': False, 'shape': (1,)}", NPY_ERR_HEADER},
      /* fortran_order must be a bool. */
      {"{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}", NPY_ERR_HEADER},
      {"{'descr': '<f4', 'fortran_order': false, 'shape': (1,)}", NPY_ERR_HEADER},
      {"{'descr': '<f4', 'fortran_order': Falsey, 'shape': (1,)}", NPY_ERR_HEADER},
      /* shape must be a tuple of non-negative integers. */
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [1]}", NPY_ERR_HEADER},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1)}", NPY_ERR_HEADER},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}", NPY_ERR_HEADER},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1.5,)}", NPY_ERR_HEADER},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,,)}", NPY_ERR_HEADER},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': 1}", NPY_ERR_HEADER},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,)}",
       NPY_ERR_TOO_LARGE},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296)}",
       NPY_ERR_TOO_LARGE},
      /* Byte order and layout. */
      {"{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", NPY_ERR_BIG_ENDIAN},
      {"{'descr': '>i8', 'fortran_order': False, 'shape': (1,), }", NPY_ERR_BIG_ENDIAN},
      {"{'descr': '>u2', 'fortran_order': False, 'shape': (1,), }", NPY_ERR_BIG_ENDIAN},
      {"{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", NPY_ERR_FORTRAN},
      {"{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", NPY_ERR_FORTRAN},
      /* Unsupported dtypes. */
      {"{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", NPY_ERR_DTYPE},
      {"{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", NPY_ERR_DTYPE},
      {"{'descr': '<f16', 'fortran_order': False, 'shape': (1,), }", NPY_ERR_DTYPE},
      {"{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }", NPY_ERR_DTYPE},
      {"{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }", NPY_ERR_DTYPE},
      {"{'descr': '|S4', 'fortran_order': False, 'shape': (1,), }", NPY_ERR_DTYPE},
      {"{'descr': '<M8[s]', 'fortran_order': False, 'shape': (1,), }", NPY_ERR_DTYPE},
      {"{'descr': '<i3', 'fortran_order': False, 'shape': (1,), }", NPY_ERR_DTYPE},
      {"{'descr': '', 'fortran_order': False, 'shape': (1,), }", NPY_ERR_DTYPE},
      {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", NPY_ERR_DTYPE},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    const npy_status got = verdict(cases[i].dict, 8, NULL);
    if (got != cases[i].want)
      fail_msg("header %s: got %s, want %s", cases[i].dict, npy_status_string(got),
               npy_status_string(cases[i].want));
  }
}

TU_TEST(test_data_size) {
  (void)state;
  npy_header h;
  const char *dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }";
  assert_int_equal(verdict(dict, 24, &h), NPY_OK);
  /* Truncated data: one byte short, one element short, no data at all. */
  assert_int_equal(verdict(dict, 23, &h), NPY_ERR_TRUNCATED);
  assert_int_equal(verdict(dict, 20, &h), NPY_ERR_TRUNCATED);
  assert_int_equal(verdict(dict, 0, &h), NPY_ERR_TRUNCATED);
  /* More data than the shape says. */
  assert_int_equal(verdict(dict, 25, &h), NPY_ERR_SIZE_MISMATCH);
  assert_int_equal(verdict(dict, 48, &h), NPY_ERR_SIZE_MISMATCH);
  /* Empty arrays with stray data; a 0-d array with none. */
  assert_int_equal(verdict("{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", 4, &h),
                   NPY_ERR_SIZE_MISMATCH);
  assert_int_equal(verdict("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 0, &h),
                   NPY_ERR_TRUNCATED);
}

/* ---------------------------------------------------------------- writer */

TU_TEST(test_writer_round_trip) {
  (void)state;
  const uint64_t shapes[][3] = {{0, 0, 0}, {7, 0, 0}, {2, 3, 0}, {4, 1, 5}};
  const unsigned ndims[] = {0, 1, 2, 3};
  for (int k = 0; k < NUM_TYPES; ++k) {
    for (size_t s = 0; s < sizeof ndims / sizeof ndims[0]; ++s) {
      const char *p = path_of("w.npy");
      FILE *f = fopen(p, "wb");
      assert_non_null(f);
      assert_int_equal(npy_write_header(f, kTypes[k].t, ndims[s], shapes[s]), NPY_OK);
      uint64_t count = 1;
      for (unsigned d = 0; d < ndims[s]; ++d)
        count *= shapes[s][d];
      unsigned char data[256];
      for (size_t i = 0; i < sizeof data; ++i)
        data[i] = (unsigned char)(255 - i);
      const size_t bytes = (size_t)count * kTypes[k].size;
      assert_int_equal(fwrite(data, 1, bytes, f), bytes);
      const long header_end = ftell(f) - (long)bytes;
      assert_int_equal(fclose(f), 0);
      assert_int_equal(header_end % 64, 0);

      f = fopen(p, "rb");
      assert_non_null(f);
      npy_header h;
      char detail[256];
      assert_int_equal(npy_read_header(f, (uint64_t)header_end + bytes, &h, detail, sizeof detail),
                       NPY_OK);
      assert_int_equal(h.major, 1);
      assert_int_equal(h.dtype, kTypes[k].t);
      assert_int_equal(h.ndim, ndims[s]);
      for (unsigned d = 0; d < ndims[s]; ++d)
        assert_int_equal(h.shape[d], shapes[s][d]);
      assert_int_equal(h.count, count);
      assert_int_equal(h.data_offset, (uint64_t)header_end);
      unsigned char back[256];
      assert_int_equal(fread(back, 1, bytes, f), bytes);
      assert_memory_equal(back, data, bytes);
      fclose(f);
    }
  }
}

TU_TEST(test_writer_bytes) {
  (void)state;
  /* Exactly what NumPy 1.24 writes for np.save(f, np.zeros(3, np.float32)). */
  unsigned char buf[256];
  const uint64_t shape[1] = {3};
  const size_t len = npy_format_header(buf, sizeof buf, CUPRIM_F32, 1, shape);
  assert_int_equal(len, 128);
  const char dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }";
  assert_memory_equal(buf, "\x93NUMPY\x01\x00\x76\x00", 10);
  assert_memory_equal(buf + 10, dict, sizeof dict - 1);
  for (size_t i = 10 + sizeof dict - 1; i < 127; ++i)
    assert_int_equal(buf[i], ' ');
  assert_int_equal(buf[127], '\n');
  /* 0-d and 1-byte types. */
  assert_true(npy_format_header(buf, sizeof buf, CUPRIM_U8, 0, NULL) == 128);
  assert_memory_equal(buf + 10, "{'descr': '|u1', 'fortran_order': False, 'shape': (), }", 55);
  /* Invalid arguments and a buffer too small. */
  assert_int_equal(npy_format_header(buf, sizeof buf, (cuprim_dtype)99, 1, shape), 0);
  assert_int_equal(npy_format_header(buf, sizeof buf, CUPRIM_BF16, 1, shape), 0); /* no descr */
  assert_int_equal(npy_format_header(buf, 100, CUPRIM_F32, 1, shape), 0);
  assert_int_equal(npy_format_header(buf, sizeof buf, CUPRIM_F32, NPY_MAX_DIMS + 1, shape), 0);
  /* The most dimensions, each the largest value, still fit. */
  uint64_t big[NPY_MAX_DIMS];
  for (int i = 0; i < NPY_MAX_DIMS; ++i)
    big[i] = UINT64_MAX;
  unsigned char large[4096];
  const size_t n = npy_format_header(large, sizeof large, CUPRIM_F64, NPY_MAX_DIMS, big);
  assert_true(n > 0 && n % 64 == 0);
  npy_header h;
  char detail[256];
  /* The reader refuses its element count, which does not fit 64 bits. */
  assert_int_equal(npy_parse(large, n, &h, detail, sizeof detail), NPY_ERR_TOO_LARGE);
}

/* ---------------------------------------------------------------- cli_io: inputs */

TU_TEST(test_input_errors) {
  (void)state;
  char err[512];
  cli_input in;
  /* Missing file, a directory. */
  assert_int_equal(cli_input_open(&in, path_of("missing.npy"), 0, CUPRIM_F32, err, sizeof err),
                   CLI_EXIT_INPUT);
  assert_non_null(strstr(err, "missing.npy"));
  assert_int_equal(cli_input_open(&in, scratch, 0, CUPRIM_F32, err, sizeof err), CLI_EXIT_INPUT);
  /* A .npy name without the magic; a file that is neither .npy nor given a --dtype. */
  write_file(path_of("text.npy"), "hello world, not numpy", 22);
  assert_int_equal(cli_input_open(&in, path_of("text.npy"), 0, CUPRIM_F32, err, sizeof err),
                   CLI_EXIT_FORMAT);
  assert_non_null(strstr(err, "magic"));
  write_file(path_of("data.bin"), "\0\0\0\0\0\0", 6);
  assert_int_equal(cli_input_open(&in, path_of("data.bin"), 0, CUPRIM_F32, err, sizeof err),
                   CLI_EXIT_FORMAT);
  assert_non_null(strstr(err, "--dtype"));
  /* Raw data whose size is not a whole number of elements. */
  assert_int_equal(cli_input_open(&in, path_of("data.bin"), 1, CUPRIM_F32, err, sizeof err),
                   CLI_EXIT_FORMAT);
  /* Raw data that fits: 6 bytes of u16, or of i8. */
  assert_int_equal(cli_input_open(&in, path_of("data.bin"), 1, CUPRIM_U16, err, sizeof err),
                   CLI_EXIT_OK);
  assert_int_equal(in.is_npy, 0);
  assert_int_equal(in.count, 3);
  cli_input_close(&in);
  /* A .npy file with a --dtype that disagrees, and one that agrees. */
  unsigned char buf[256];
  const size_t len =
      build_npy(buf, sizeof buf, 1, 0, "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }",
                1, "\x05\x00\x00\x00", 4);
  write_file(path_of("i4.npy"), buf, len);
  assert_int_equal(cli_input_open(&in, path_of("i4.npy"), 1, CUPRIM_F32, err, sizeof err),
                   CLI_EXIT_FORMAT);
  assert_int_equal(cli_input_open(&in, path_of("i4.npy"), 1, CUPRIM_I32, err, sizeof err),
                   CLI_EXIT_OK);
  assert_int_equal(in.count, 1);
  cli_input_close(&in);
  /* A malformed .npy reports the reader's status and detail. */
  buf[6] = 9;
  write_file(path_of("v9.npy"), buf, len);
  assert_int_equal(cli_input_open(&in, path_of("v9.npy"), 0, CUPRIM_F32, err, sizeof err),
                   CLI_EXIT_FORMAT);
  assert_non_null(strstr(err, "version"));
}

/* ---------------------------------------------------------------- cli_io: edges */

TU_TEST(test_edges) {
  (void)state;
  char err[512];
  double *e = NULL;
  uint32_t bins = 0;
  /* Text: spaces, commas, newlines, comments, signs and exponents. */
  const char *text = "# edges\n-1.5, 0 ,1e0\n\n 2.5 # the last\n";
  write_file(path_of("edges.txt"), text, strlen(text));
  assert_int_equal(cli_read_edges(path_of("edges.txt"), &e, &bins, err, sizeof err), CLI_EXIT_OK);
  assert_int_equal(bins, 3);
  assert_true(e[0] == -1.5 && e[1] == 0.0 && e[2] == 1.0 && e[3] == 2.5);
  free(e);
  /* .npy of f64 and of i32 (converted to double). */
  unsigned char buf[256];
  const double f64[3] = {0.0, 0.25, 1.0};
  size_t len =
      build_npy(buf, sizeof buf, 1, 0, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }",
                1, f64, sizeof f64);
  write_file(path_of("edges.npy"), buf, len);
  assert_int_equal(cli_read_edges(path_of("edges.npy"), &e, &bins, err, sizeof err), CLI_EXIT_OK);
  assert_int_equal(bins, 2);
  assert_true(e[0] == 0.0 && e[1] == 0.25 && e[2] == 1.0);
  free(e);
  const int32_t i32[2] = {-3, 7};
  len = build_npy(buf, sizeof buf, 3, 0,
                  "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", 1, i32, sizeof i32);
  write_file(path_of("edges_i4.npy"), buf, len);
  assert_int_equal(cli_read_edges(path_of("edges_i4.npy"), &e, &bins, err, sizeof err),
                   CLI_EXIT_OK);
  assert_int_equal(bins, 1);
  assert_true(e[0] == -3.0 && e[1] == 7.0);
  free(e);

  /* Refused: missing file, not increasing, repeated, not finite, one edge, none, junk, bad .npy. */
  assert_int_equal(cli_read_edges(path_of("none.txt"), &e, &bins, err, sizeof err), CLI_EXIT_INPUT);
  static const char *const bad[] = {"0 2 1",   "0 1 1 2", "0 nan 1", "0 inf",
                                    "-inf 0",  "5",       "",        "# only a comment\n",
                                    "0 1 two", "0,,1;2"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    write_file(path_of("bad.txt"), bad[i], strlen(bad[i]));
    const int rc = cli_read_edges(path_of("bad.txt"), &e, &bins, err, sizeof err);
    if (rc != CLI_EXIT_FORMAT)
      fail_msg("edges \"%s\": got %d, want %d", bad[i], rc, CLI_EXIT_FORMAT);
    print_message("    edges \"%s\" -> %s\n", bad[i], err);
  }
  len = build_npy(buf, sizeof buf, 1, 0,
                  "{'descr': '>f8', 'fortran_order': False, 'shape': (3,), }", 1, f64, sizeof f64);
  write_file(path_of("edges_be.npy"), buf, len);
  assert_int_equal(cli_read_edges(path_of("edges_be.npy"), &e, &bins, err, sizeof err),
                   CLI_EXIT_FORMAT);
  assert_non_null(strstr(err, "big-endian"));
}

/* ---------------------------------------------------------------- cli_io: outputs */

/* The number of entries in the scratch directory whose name starts with `prefix`. */
static int count_entries(const char *prefix) {
  char cmd[256];
  snprintf(cmd, sizeof cmd, "ls -A '%s' | grep -c '^%s' > '%s/.count' 2>/dev/null", scratch, prefix,
           scratch);
  if (system(cmd) == -1)
    return -1;
  FILE *f = fopen(path_of(".count"), "r");
  int n = -1;
  if (f) {
    if (fscanf(f, "%d", &n) != 1)
      n = -1;
    fclose(f);
  }
  return n;
}

TU_TEST(test_output) {
  (void)state;
  char err[512];
  cli_output o;
  /* Committed: the file appears under its name, the temporary is gone. */
  assert_int_equal(cli_output_open(&o, path_of("out.npy"), err, sizeof err), CLI_EXIT_OK);
  assert_false(file_exists(path_of("out.npy")));
  assert_int_equal(count_entries(".out.npy.tmp-"), 1);
  assert_int_equal(cli_output_write(&o, "abc", 3, err, sizeof err), CLI_EXIT_OK);
  assert_int_equal(cli_output_commit(&o, err, sizeof err), CLI_EXIT_OK);
  assert_true(file_exists(path_of("out.npy")));
  assert_int_equal(count_entries(".out.npy.tmp-"), 0);
  struct stat st;
  assert_int_equal(stat(path_of("out.npy"), &st), 0);
  assert_int_equal(st.st_size, 3);
  /* Not 0600 as mkstemp makes it: a new file's permissions (0666 less the umask). */
  const mode_t mask = umask(0);
  umask(mask);
  assert_int_equal(st.st_mode & 0777, 0666 & ~mask);
  /* Aborted: nothing is left, and an existing file of that name is untouched. */
  assert_int_equal(cli_output_open(&o, path_of("out.npy"), err, sizeof err), CLI_EXIT_OK);
  assert_int_equal(cli_output_write(&o, "defgh", 5, err, sizeof err), CLI_EXIT_OK);
  cli_output_abort(&o);
  assert_int_equal(count_entries(".out.npy.tmp-"), 0);
  assert_int_equal(stat(path_of("out.npy"), &st), 0);
  assert_int_equal(st.st_size, 3);
  /* A directory that does not exist. */
  assert_int_equal(cli_output_open(&o, path_of("no/such/dir/out.npy"), err, sizeof err),
                   CLI_EXIT_OUTPUT);
  assert_int_equal(cli_output_open(&o, path_of("dir/"), err, sizeof err), CLI_EXIT_OUTPUT);
  /* A name in the current directory (no slash). */
  assert_int_equal(chdir(scratch), 0);
  assert_int_equal(cli_output_open(&o, "here.csv", err, sizeof err), CLI_EXIT_OK);
  assert_int_equal(cli_output_commit(&o, err, sizeof err), CLI_EXIT_OK);
  assert_int_equal(chdir(".."), 0);
  assert_true(file_exists(path_of("here.csv")));
}

static off_t size_of(const char *path) {
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  return st.st_size;
}

/* What an output name can name besides a plain new file. */
TU_TEST(test_output_targets) {
  (void)state;
  char err[512];
  cli_output o;
  /* A directory: refused when opened, before any work (exit 6), nothing created. */
  assert_int_equal(mkdir(path_of("outdir"), 0777), 0);
  assert_int_equal(cli_output_open(&o, path_of("outdir"), err, sizeof err), CLI_EXIT_OUTPUT);
  assert_non_null(strstr(err, "is a directory"));
  assert_int_equal(count_entries("\\..*\\.tmp-"), 0);

  /* Through a symbolic link (relative, two hops): the final target is replaced, the links stay
   * links, and the temporary is made beside the target. */
  write_file(path_of("outdir/real.npy"), "old", 3);
  assert_int_equal(symlink("outdir/real.npy", path_of("hop.npy")), 0);
  assert_int_equal(symlink("hop.npy", path_of("link.npy")), 0);
  assert_int_equal(chmod(path_of("outdir/real.npy"), 0640), 0);
  assert_int_equal(cli_output_open(&o, path_of("link.npy"), err, sizeof err), CLI_EXIT_OK);
  assert_non_null(strstr(o.tmp_path, "outdir/.real.npy.tmp-"));
  assert_int_equal(cli_output_write(&o, "newer", 5, err, sizeof err), CLI_EXIT_OK);
  assert_int_equal(cli_output_commit(&o, err, sizeof err), CLI_EXIT_OK);
  struct stat st;
  assert_int_equal(lstat(path_of("link.npy"), &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  assert_int_equal(lstat(path_of("hop.npy"), &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  assert_int_equal(size_of(path_of("outdir/real.npy")), 5);
  assert_int_equal(stat(path_of("outdir/real.npy"), &st), 0);
  assert_int_equal(st.st_mode & 0777, 0640); /* a replaced file keeps its permissions */
  /* A dangling link: its target is created. */
  assert_int_equal(symlink("outdir/new.npy", path_of("dangling.npy")), 0);
  assert_int_equal(cli_output_open(&o, path_of("dangling.npy"), err, sizeof err), CLI_EXIT_OK);
  assert_int_equal(cli_output_commit(&o, err, sizeof err), CLI_EXIT_OK);
  assert_true(file_exists(path_of("outdir/new.npy")));
  assert_int_equal(lstat(path_of("dangling.npy"), &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  /* A loop of links. */
  assert_int_equal(symlink("loop_b", path_of("loop_a")), 0);
  assert_int_equal(symlink("loop_a", path_of("loop_b")), 0);
  assert_int_equal(cli_output_open(&o, path_of("loop_a"), err, sizeof err), CLI_EXIT_OUTPUT);

  /* "-" is standard output, written in place and left open. */
  assert_int_equal(cli_output_open(&o, "-", err, sizeof err), CLI_EXIT_OK);
  assert_true(o.is_stdout && o.direct && o.f == stdout);
  assert_int_equal(cli_output_commit(&o, err, sizeof err), CLI_EXIT_OK);
  assert_int_equal(fflush(stdout), 0);
  /* A device is written in place (no temporary beside /dev/null). */
  assert_int_equal(cli_output_open(&o, "/dev/null", err, sizeof err), CLI_EXIT_OK);
  assert_true(o.direct && !o.is_stdout && !o.tmp_path);
  assert_int_equal(cli_output_write(&o, "x", 1, err, sizeof err), CLI_EXIT_OK);
  assert_int_equal(cli_output_commit(&o, err, sizeof err), CLI_EXIT_OK);
  /* Standard output under another name: stdout redirected to a file, then /dev/stdout and the
   * file's own name are both standard output. */
  fflush(stdout);
  const int saved = dup(STDOUT_FILENO);
  const int fd = open(path_of("stdout.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0666);
  assert_true(saved >= 0 && fd >= 0);
  assert_int_equal(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
  int is_stdout_dev = 0, is_stdout_name = 0;
  if (cli_output_open(&o, "/dev/stdout", err, sizeof err) == CLI_EXIT_OK) {
    is_stdout_dev = o.is_stdout;
    cli_output_abort(&o);
  }
  if (cli_output_open(&o, path_of("stdout.txt"), err, sizeof err) == CLI_EXIT_OK) {
    is_stdout_name = o.is_stdout;
    cli_output_abort(&o);
  }
  fflush(stdout);
  assert_int_equal(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
  close(saved);
  close(fd);
  assert_true(is_stdout_dev);
  assert_true(is_stdout_name);

  /* A name of 250 bytes: the temporary's name is cut to fit NAME_MAX (255), not refused. */
  char name[251];
  memset(name, 'n', 246);
  memcpy(name + 246, ".npy", 5);
  assert_int_equal(cli_output_open(&o, path_of(name), err, sizeof err), CLI_EXIT_OK);
  assert_true(strlen(strrchr(o.tmp_path, '/') + 1) <= 255);
  assert_int_equal(cli_output_write(&o, "long", 4, err, sizeof err), CLI_EXIT_OK);
  assert_int_equal(cli_output_commit(&o, err, sizeof err), CLI_EXIT_OK);
  assert_int_equal(size_of(path_of(name)), 4);
  assert_int_equal(count_entries("\\..*\\.tmp-"), 0);

  /* CSV elements: one value a line, as `reduce` prints them. */
  assert_int_equal(cli_output_open(&o, path_of("s.csv"), err, sizeof err), CLI_EXIT_OK);
  o.csv = 1;
  o.csv_dtype = CUPRIM_F32;
  const float v[3] = {0.1f, -2.0f, 1e30f};
  assert_int_equal(cli_output_write_elements(&o, v, sizeof v, err, sizeof err), CLI_EXIT_OK);
  assert_int_equal(cli_output_commit(&o, err, sizeof err), CLI_EXIT_OK);
  FILE *f = fopen(path_of("s.csv"), "r");
  assert_non_null(f);
  char text[128] = "";
  assert_int_equal(fread(text, 1, sizeof text - 1, f), strlen("0.100000001\n-2\n1.00000002e+30\n"));
  fclose(f);
  assert_string_equal(text, "0.100000001\n-2\n1.00000002e+30\n");
}

/* Inputs that are not regular files are refused at once (a FIFO would block a read forever);
 * bytes of a file are escaped in messages; a text edges file may not hold a NUL byte. */
TU_TEST(test_escape_and_special_inputs) {
  (void)state;
  char err[512], out[64];
  assert_string_equal(npy_escape("a\x1b[31mb\\", 8, out, sizeof out), "a\\x1b[31mb\\x5c");
  assert_string_equal(npy_escape("\x93NUMPY\n", 7, out, sizeof out), "\\x93NUMPY\\x0a");
  assert_string_equal(npy_escape("0123456789", 10, out, 8), "0123...");
  cli_input in;
  assert_int_equal(mkfifo(path_of("fifo"), 0666), 0);
  assert_int_equal(cli_input_open(&in, path_of("fifo"), 1, CUPRIM_F32, err, sizeof err),
                   CLI_EXIT_INPUT);
  assert_non_null(strstr(err, "not a regular file (a FIFO)"));
  double *edges = NULL;
  uint32_t bins = 0;
  assert_int_equal(cli_read_edges(path_of("fifo"), &edges, &bins, err, sizeof err), CLI_EXIT_INPUT);
  assert_int_equal(cli_read_edges("/dev/null", &edges, &bins, err, sizeof err), CLI_EXIT_INPUT);
  assert_non_null(strstr(err, "a character device"));
  write_file(path_of("nul.txt"), "0 1\0 2 3\n", 9);
  assert_int_equal(cli_read_edges(path_of("nul.txt"), &edges, &bins, err, sizeof err),
                   CLI_EXIT_FORMAT);
  assert_non_null(strstr(err, "NUL byte at offset 3"));
  write_file(path_of("esc.txt"), "0 1 \x1b[2J 3\n", 11);
  assert_int_equal(cli_read_edges(path_of("esc.txt"), &edges, &bins, err, sizeof err),
                   CLI_EXIT_FORMAT);
  assert_non_null(strstr(err, "'\\x1b[2J' is not a finite number"));
  assert_null(strchr(err, '\x1b'));
  /* A key of a .npy header with a terminal escape in it. */
  static const char dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), "
                             "'\x1b]0;x\x07': 1}";
  unsigned char buf[256];
  const size_t len = build_npy(buf, sizeof buf, 1, 0, dict, 1, "\0\0\0\0", 4);
  npy_header h;
  char detail[256];
  assert_int_equal(read_buf("esc.npy", buf, len, &h, detail, sizeof detail), NPY_ERR_HEADER);
  assert_non_null(strstr(detail, "'\\x1b]0;x\\x07'"));
  assert_null(strchr(detail, '\x1b'));
}

TU_MAIN(make_scratch, remove_scratch)
