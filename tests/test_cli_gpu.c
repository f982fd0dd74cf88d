/* The cuprim program end to end on a GPU (label gpu; exits 77 without a device): every
 * subcommand run as a user runs it, on .npy and raw files written here, its output (stdout, or
 * the .npy/.csv it writes) checked against host results. The data is chosen so that every check
 * is exact: integers (wrapping), float sums of small integers (every partial sum below 2^24),
 * float products of +-1, float MIN/MAX. Chunked runs (--chunk much smaller than the file) must
 * give the same bits as the host, which exercises the pass joins: the host combine of reduce,
 * the added histogram counts, and the scan's carry. About 200 runs of the program, each creating a
 * CUDA context: a minute or two. */
#define _POSIX_C_SOURCE 200809L /* symlink */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

#include "cli_args.h"
#include "hostref_histogram.h"
#include "hostref_reduce.h"
#include "hostref_scan.h"
#include "test_cli_common.h"

enum {
  N = 100003,   /* a prime a little past 10^5: not a multiple of any tile or chunk */
  CHUNK = 1000, /* passes of --chunk: ~100 of them */
  MAX_ABS = 100 /* float sums: |x| <= 100, so every partial sum of N is below 2^24 (exact) */
};

/* The group's tc_run (tc_setup), for a test that needs a device: it skips where there is none. */
static tc_run *device_run(void **state) {
  TU_SKIP_WITHOUT_DEVICE();
  return *state;
}

static int is_float(cuprim_dtype t) { return t == CUPRIM_F32 || t == CUPRIM_F64; }

/* n elements of t for op, element i from (seed, i). */
static void *make_data(cuprim_dtype t, cuprim_op op, uint64_t n, uint64_t seed) {
  const size_t size = cuprim_dtype_size(t);
  unsigned char *h = malloc(n ? (size_t)n * size : 1);
  assert_non_null(h);
  uint64_t s = seed;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t r = hr_splitmix64(&s);
    if (is_float(t)) {
      double v;
      if (op == CUPRIM_SUM)
        v = (double)(int)(r % (2 * MAX_ABS + 1)) - MAX_ABS;
      else if (op == CUPRIM_PROD)
        v = (r & 1) ? 1.0 : -1.0;
      else
        v = (double)(r >> 40) * 0x1p-23 - 1.0; /* [-1, 1) */
      hr_store_float(t, h, i, v);
    } else {
      hr_store_bits(t, h, i, op == CUPRIM_PROD ? (r | 1) : r); /* odd: products stay nonzero */
    }
  }
  return h;
}

/* make_data's data, written to `path` as a vector .npy. */
static void *write_data(const char *path, cuprim_dtype t, cuprim_op op, uint64_t n, uint64_t seed) {
  void *h = make_data(t, op, n, seed);
  tc_write_vector(path, t, n, h);
  return h;
}

/* counts[0..bins) = the host's histogram of h[0..n): `bins` even bins over [lo, hi), or the bins
 * given by edges[0..bins] (edges not NULL). */
static void host_histogram(cuprim_dtype t, const void *h, uint64_t n, uint32_t bins, double lo,
                           double hi, const double *edges, uint64_t *counts) {
  const hr_hist_bins b = edges ? hr_hist_bins_edges(bins, edges) : hr_hist_bins_even(bins, lo, hi);
  hr_hist_reference(&b, t, h, n, counts);
}

static int op_applies(cuprim_dtype t, int op) { return !(is_float(t) && op >= CUPRIM_AND); }

/* For every dtype of hr_dtypes_32_64 (F16 and BF16 go through the program in test_half) and every
 * op it takes: N elements of write_data's data in the scratch file `name`, seeded from the test's
 * seed and k * 16 + op + seed_offset (k the dtype's index), checked by check_case. */
static void for_each_type_op(tc_run *r, const char *name, uint64_t seed_offset,
                             void (*check_case)(tc_run *r, const char *file, cuprim_dtype t,
                                                cuprim_op op, const void *h)) {
  for (int k = 0; k < HR_NUM_DTYPES_32_64; ++k) {
    const cuprim_dtype t = hr_dtypes_32_64[k];
    for (int op = 0; op <= CUPRIM_XOR; ++op) {
      if (!op_applies(t, op))
        continue;
      const char *file = tc_path(name);
      void *h = write_data(file, t, (cuprim_op)op, N,
                           hr_mix(tu_seed(), (uint64_t)(k * 16 + op) + seed_offset));
      check_case(r, file, t, (cuprim_op)op, h);
      free(h);
    }
  }
}

/* "--alg NAME" of algorithm `alg` of p, followed by `more`: static storage, valid until the next
 * call. */
static const char *alg_option(hr_primitive p, int alg, const char *more) {
  static char option[96];
  snprintf(option, sizeof option, "--alg %s%s", hr_alg_name(p, alg), more);
  return option;
}

/* Opens a CSV written by the program and checks its first line, `header`. */
static FILE *open_csv(const char *path, const char *header) {
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char line[256];
  assert_non_null(fgets(line, sizeof line, f));
  assert_string_equal(line, header);
  return f;
}

/* ---------------------------------------------------------------- reduce */

/* Runs `reduce [extra] FILE` and checks stdout against the host's value of data. */
static void check_reduce(tc_run *r, const char *file, cuprim_dtype t, cuprim_op op,
                         const void *data, uint64_t n, const char *extra) {
  unsigned char want[8];
  char text[80];
  hr_reduce_seq(t, op, data, n, want);
  hr_format_value(t, want, text, sizeof text);
  strcat(text, "\n");
  tc_cli(r, "reduce --op %s %s %s", hr_op_name(op), extra, file);
  if (r->status != 0 || strcmp(r->out, text) != 0)
    fail_msg("reduce %s %s %s n=%llu: status %d, printed \"%s\", expected \"%s\"", hr_op_name(op),
             hr_dtype_name(t), extra, (unsigned long long)n, r->status, r->out, text);
}

/* Passes of CHUNK elements, joined on the host with the same op: the same value. Every op goes
 * through the join; one pass (the library alone) for SUM and MAX. */
static void reduce_case(tc_run *r, const char *file, cuprim_dtype t, cuprim_op op, const void *h) {
  check_reduce(r, file, t, op, h, N, "--chunk 1000");
  if (op == CUPRIM_SUM || op == CUPRIM_MAX)
    check_reduce(r, file, t, op, h, N, "");
}

TU_TEST(test_reduce) { for_each_type_op(device_run(state), "reduce.npy", 0, reduce_case); }

TU_TEST(test_reduce_inputs_and_outputs) {
  tc_run *r = device_run(state);
  /* Every algorithm, on integers (exact), with and without passes. */
  int32_t *h = write_data(tc_path("i32.npy"), CUPRIM_I32, CUPRIM_SUM, N, 11);
  for (int alg = 0; alg < hr_alg_count(HR_REDUCE); ++alg) {
    check_reduce(r, tc_path("i32.npy"), CUPRIM_I32, CUPRIM_SUM, h, N,
                 alg_option(HR_REDUCE, alg, ""));
    check_reduce(r, tc_path("i32.npy"), CUPRIM_I32, CUPRIM_MAX, h, N,
                 alg_option(HR_REDUCE, alg, " --chunk 4096"));
  }
  /* The same data as raw binary, and as a 3-d array (flattened). */
  tc_write_file(tc_path("i32.bin"), h, N * sizeof(int32_t));
  check_reduce(r, tc_path("i32.bin"), CUPRIM_I32, CUPRIM_XOR, h, N, "--dtype i32");
  const uint64_t shape3[3] = {7, 11, 13};
  tc_write_npy(tc_path("i32_3d.npy"), CUPRIM_I32, 3, shape3, h, 1001 * sizeof(int32_t));
  check_reduce(r, tc_path("i32_3d.npy"), CUPRIM_I32, CUPRIM_SUM, h, 1001, "");
  /* 0-d (one element) and empty (the identity). */
  tc_write_npy(tc_path("zero_d.npy"), CUPRIM_I32, 0, NULL, h, sizeof(int32_t));
  check_reduce(r, tc_path("zero_d.npy"), CUPRIM_I32, CUPRIM_PROD, h, 1, "");
  tc_write_vector(tc_path("empty.npy"), CUPRIM_I32, 0, NULL);
  check_reduce(r, tc_path("empty.npy"), CUPRIM_I32, CUPRIM_MIN, h, 0, "");
  check_reduce(r, tc_path("empty.npy"), CUPRIM_I32, CUPRIM_AND, h, 0, "--chunk 3");
  /* -o: a 0-d .npy of the dtype, or a text line. */
  tc_cli(r, "reduce --op sum -o %s %s", tc_path("sum.npy"), tc_path("i32.npy"));
  assert_int_equal(r->status, 0);
  int32_t want;
  hr_reduce_seq(CUPRIM_I32, CUPRIM_SUM, h, N, &want);
  cuprim_dtype t;
  uint64_t count;
  int32_t *got = tc_read_npy(tc_path("sum.npy"), &t, &count);
  assert_int_equal(t, CUPRIM_I32);
  assert_int_equal(count, 1);
  assert_int_equal(*got, want);
  free(got);
  tc_cli(r, "reduce -o %s %s", tc_path("sum.txt"), tc_path("i32.npy"));
  assert_int_equal(r->status, 0);
  FILE *f = fopen(tc_path("sum.txt"), "r");
  assert_non_null(f);
  long long back = 0;
  assert_int_equal(fscanf(f, "%lld", &back), 1);
  fclose(f);
  assert_int_equal(back, want);
  assert_int_equal(tc_count_entries(".tmp-"), 0);
  /* Float MAX with a NaN: NaN, in one pass and in many. */
  float *hf = make_data(CUPRIM_F32, CUPRIM_MAX, N, 5);
  hf[N / 3] = NAN;
  tc_write_vector(tc_path("nan.npy"), CUPRIM_F32, N, hf);
  tc_cli(r, "reduce --op max %s", tc_path("nan.npy"));
  assert_string_equal(r->out, "nan\n");
  tc_cli(r, "reduce --op max --chunk 1000 %s", tc_path("nan.npy"));
  assert_string_equal(r->out, "nan\n");
  free(hf);
  free(h);
}

/* ---------------------------------------------------------------- scan */

/* Runs `scan [extra] -o OUT FILE` and checks OUT against the host's scan of data. */
static void check_scan(tc_run *r, const char *file, cuprim_dtype t, cuprim_op op,
                       cuprim_scan_kind kind, const void *data, uint64_t n, const char *extra) {
  const size_t size = cuprim_dtype_size(t);
  void *want = malloc(n ? (size_t)n * size : 1);
  assert_non_null(want);
  hr_scan_seq(t, op, kind, data, want, n);
  const char *out = tc_path("scan_out.npy");
  remove(out);
  tc_cli(r, "scan --op %s %s %s -o %s %s", hr_op_name(op),
         kind == CUPRIM_EXCLUSIVE ? "--exclusive" : "--inclusive", extra, out, file);
  if (r->status != 0)
    fail_msg("scan %s %s %s: status %d: %s", hr_op_name(op), hr_dtype_name(t), extra, r->status,
             r->err);
  cuprim_dtype got_t;
  uint64_t got_n;
  unsigned char *got = tc_read_npy(out, &got_t, &got_n);
  assert_int_equal(got_t, t);
  assert_int_equal(got_n, n);
  for (uint64_t i = 0; i < n; ++i) {
    if (!hr_same_value(t, got + i * size, (const char *)want + i * size)) {
      char g[80], w[80];
      hr_format_value(t, got + i * size, g, sizeof g);
      hr_format_value(t, (const char *)want + i * size, w, sizeof w);
      fail_msg("scan %s %s %s %s n=%llu: element %llu is %s, expected %s", hr_op_name(op),
               hr_scan_kind_name(kind), hr_dtype_name(t), extra, (unsigned long long)n,
               (unsigned long long)i, g, w);
    }
  }
  free(got);
  free(want);
}

static void scan_case(tc_run *r, const char *file, cuprim_dtype t, cuprim_op op, const void *h) {
  for (int kind = 0; kind < 2; ++kind) {
    /* The carry between passes, for every op: ~100 passes. */
    check_scan(r, file, t, op, (cuprim_scan_kind)kind, h, N, "--chunk 1000");
    /* One pass (the library alone), and two passes with a short last one. */
    if (op == CUPRIM_SUM)
      check_scan(r, file, t, op, (cuprim_scan_kind)kind, h, N, "");
    if (op == CUPRIM_SUM && (t == CUPRIM_I32 || t == CUPRIM_F32))
      check_scan(r, file, t, op, (cuprim_scan_kind)kind, h, N, "--chunk 99999");
  }
}

TU_TEST(test_scan) { for_each_type_op(device_run(state), "scan.npy", 100, scan_case); }

TU_TEST(test_scan_algorithms_and_shapes) {
  tc_run *r = device_run(state);
  int64_t *h = write_data(tc_path("i64.npy"), CUPRIM_I64, CUPRIM_SUM, N, 21);
  for (int alg = 0; alg < hr_alg_count(HR_SCAN); ++alg) {
    check_scan(r, tc_path("i64.npy"), CUPRIM_I64, CUPRIM_SUM, CUPRIM_INCLUSIVE, h, N,
               alg_option(HR_SCAN, alg, ""));
    check_scan(r, tc_path("i64.npy"), CUPRIM_I64, CUPRIM_SUM, CUPRIM_EXCLUSIVE, h, N,
               alg_option(HR_SCAN, alg, " --chunk 3000"));
  }
  /* Tiny passes: one element each; a file of one element; an empty file; a 2-d array. */
  tc_write_vector(tc_path("five.npy"), CUPRIM_I64, 5, h);
  check_scan(r, tc_path("five.npy"), CUPRIM_I64, CUPRIM_SUM, CUPRIM_INCLUSIVE, h, 5, "--chunk 1");
  check_scan(r, tc_path("five.npy"), CUPRIM_I64, CUPRIM_MIN, CUPRIM_EXCLUSIVE, h, 5, "--chunk 1");
  check_scan(r, tc_path("five.npy"), CUPRIM_I64, CUPRIM_XOR, CUPRIM_EXCLUSIVE, h, 5, "--chunk 2");
  tc_write_npy(tc_path("one.npy"), CUPRIM_I64, 0, NULL, h, sizeof(int64_t));
  check_scan(r, tc_path("one.npy"), CUPRIM_I64, CUPRIM_SUM, CUPRIM_EXCLUSIVE, h, 1, "");
  tc_write_vector(tc_path("empty.npy"), CUPRIM_I64, 0, NULL);
  check_scan(r, tc_path("empty.npy"), CUPRIM_I64, CUPRIM_SUM, CUPRIM_INCLUSIVE, h, 0, "");
  const uint64_t shape2[2] = {100, 1000};
  tc_write_npy(tc_path("2d.npy"), CUPRIM_I64, 2, shape2, h, 100000 * sizeof(int64_t));
  check_scan(r, tc_path("2d.npy"), CUPRIM_I64, CUPRIM_SUM, CUPRIM_INCLUSIVE, h, 100000,
             "--chunk 777");
  /* Raw input; in place (the output replaces the input file). */
  tc_write_file(tc_path("u32.bin"), h, N * sizeof(uint32_t)); /* h's first 4N bytes as u32 */
  check_scan(r, tc_path("u32.bin"), CUPRIM_U32, CUPRIM_SUM, CUPRIM_INCLUSIVE, h, N,
             "--dtype u32 --chunk 5000");
  tc_write_vector(tc_path("inplace.npy"), CUPRIM_I64, N, h);
  tc_cli(r, "scan --chunk 10000 -o %s %s", tc_path("inplace.npy"), tc_path("inplace.npy"));
  assert_int_equal(r->status, 0);
  cuprim_dtype t;
  uint64_t count;
  int64_t *got = tc_read_npy(tc_path("inplace.npy"), &t, &count);
  int64_t *want = malloc(N * sizeof(int64_t));
  assert_non_null(want);
  hr_scan_seq(CUPRIM_I64, CUPRIM_SUM, CUPRIM_INCLUSIVE, h, want, N);
  assert_int_equal(count, N);
  assert_memory_equal(got, want, N * sizeof(int64_t));
  assert_int_equal(tc_count_entries(".tmp-"), 0);
  free(got);
  free(want);
  free(h);
}

/* ---------------------------------------------------------------- segments */

/* The host's reduce (reduce) or scan (otherwise, kind) of data[0..n) over segments [b[s], e[s])
 * (the offsets clamped to [0, n], e below b an empty segment): each segment by hr_scan_seq (the
 * reduce: its inclusive scan's last element, or the identity); the scan's elements no segment
 * covers keep data's values. */
static void *segments_reference(cuprim_dtype t, cuprim_op op, int reduce, cuprim_scan_kind kind,
                                const void *data, uint64_t n, const int64_t *off, uint64_t segs) {
  const size_t size = cuprim_dtype_size(t);
  unsigned char *want = malloc((reduce ? segs : n) * size + 1);
  unsigned char *tmp = malloc(n * size + 1);
  assert_true(want && tmp);
  if (!reduce)
    memcpy(want, data, n * size);
  for (uint64_t s = 0; s < segs; ++s) {
    const uint64_t b = off[s] < 0 ? 0 : (uint64_t)off[s] > n ? n : (uint64_t)off[s];
    uint64_t e = off[s + 1] < 0 ? 0 : (uint64_t)off[s + 1] > n ? n : (uint64_t)off[s + 1];
    e = e < b ? b : e;
    if (!reduce) {
      hr_scan_seq(t, op, kind, (const char *)data + b * size, want + b * size, e - b);
    } else if (e == b) {
      hr_identity(t, op, want + s * size);
    } else {
      hr_scan_seq(t, op, CUPRIM_INCLUSIVE, (const char *)data + b * size, tmp, e - b);
      memcpy(want + s * size, tmp + (e - b - 1) * size, size);
    }
  }
  free(tmp);
  return want;
}

/* Runs `cuprim <line> -o OUT.npy FILE` and checks OUT against want[0..count). */
static void check_segments(tc_run *r, const char *line, const char *file, cuprim_dtype t,
                           const void *want, uint64_t count) {
  const size_t size = cuprim_dtype_size(t);
  const char *out = tc_path("seg_out.npy");
  remove(out);
  tc_cli(r, "%s -o %s %s", line, out, file);
  if (r->status != 0)
    fail_msg("%s %s: status %d: %s", line, hr_dtype_name(t), r->status, r->err);
  cuprim_dtype got_t;
  uint64_t got_n;
  unsigned char *got = tc_read_npy(out, &got_t, &got_n);
  assert_int_equal(got_t, t);
  assert_int_equal(got_n, count);
  for (uint64_t i = 0; i < count; ++i)
    if (!hr_same_value(t, got + i * size, (const char *)want + i * size)) {
      char g[80], w[80];
      hr_format_value(t, got + i * size, g, sizeof g);
      hr_format_value(t, (const char *)want + i * size, w, sizeof w);
      fail_msg("%s %s: element %llu is %s, expected %s", line, hr_dtype_name(t),
               (unsigned long long)i, g, w);
    }
  free(got);
}

/* reduce and scan --offsets (I64 and U32 offsets: the first elements covered by no segment, empty
 * segments, the last offset past n) and --segment-size, inclusive and exclusive, I32 and F32
 * (integers: every order exact) against the host; the reduce without -o prints one result a
 * line. */
TU_TEST(test_segments) {
  tc_run *r = device_run(state);
  enum { SEGS = 7 };
  const int64_t off[SEGS + 1] = {5, 5, 8, 1000, 5000, 5000, 9990, 12000};
  const uint64_t shape[1] = {SEGS + 1};
  uint32_t off32[SEGS + 1];
  for (int k = 0; k <= SEGS; ++k)
    off32[k] = (uint32_t)off[k];
  tc_write_npy(tc_path("off64.npy"), CUPRIM_I64, 1, shape, off, sizeof off);
  tc_write_npy(tc_path("off32.npy"), CUPRIM_U32, 1, shape, off32, sizeof off32);
  int64_t rows[11]; /* rows of 1000, as offsets, for the printed results */
  for (int k = 0; k <= 10; ++k)
    rows[k] = (int64_t)k * 1000;
  const cuprim_dtype types[] = {CUPRIM_I32, CUPRIM_F32};
  const uint64_t n = 10000;
  char line[256];
  for (int ti = 0; ti < 2; ++ti) {
    const cuprim_dtype t = types[ti];
    const char *file = tc_path("seg_in.npy");
    void *h = write_data(file, t, CUPRIM_SUM, n, 0x5E6 + (uint64_t)ti);
    for (int reduce = 1; reduce >= 0; --reduce)
      for (int kind = 0; kind < (reduce ? 1 : 2); ++kind) {
        const cuprim_scan_kind k = (cuprim_scan_kind)kind;
        const char *cmd = reduce ? "reduce" : k == CUPRIM_EXCLUSIVE ? "scan --exclusive" : "scan";
        void *want = segments_reference(t, CUPRIM_SUM, reduce, k, h, n, off, SEGS);
        for (int w = 0; w < 2; ++w) {
          snprintf(line, sizeof line, "%s --offsets %s", cmd,
                   tc_path(w ? "off32.npy" : "off64.npy"));
          check_segments(r, line, file, t, want, reduce ? SEGS : n);
        }
        free(want);
        /* Rows of 100: the batched calls. */
        int64_t row_off[101];
        for (int k2 = 0; k2 <= 100; ++k2)
          row_off[k2] = (int64_t)k2 * 100;
        want = segments_reference(t, CUPRIM_SUM, reduce, k, h, n, row_off, 100);
        snprintf(line, sizeof line, "%s --segment-size 100", cmd);
        check_segments(r, line, file, t, want, reduce ? 100 : n);
        free(want);
      }
    /* Without -o: one result a line, as the single reduce prints its one. */
    void *want = segments_reference(t, CUPRIM_SUM, 1, CUPRIM_INCLUSIVE, h, n, rows, 10);
    tc_cli(r, "reduce --offsets %s %s", tc_path("off64.npy"), file);
    assert_int_equal(r->status, 0);
    tc_cli(r, "reduce --segment-size 1000 %s", file);
    assert_int_equal(r->status, 0);
    char expect[1024] = "";
    for (int s = 0; s < 10; ++s) {
      char v[80];
      hr_format_value(t, (const char *)want + s * cuprim_dtype_size(t), v, sizeof v);
      strncat(expect, v, sizeof expect - strlen(expect) - 2);
      strcat(expect, "\n");
    }
    assert_string_equal(r->out, expect);
    free(want);
    free(h);
  }
}

/* ---------------------------------------------------------------- histogram */

/* Samples of every dtype over [lo, hi) and a bit beyond (some not counted). */
static void *histogram_data(cuprim_dtype t, uint64_t n, uint64_t seed, double *lo, double *hi) {
  const size_t size = cuprim_dtype_size(t);
  unsigned char *h = malloc((size_t)n * size);
  assert_non_null(h);
  uint64_t s = seed;
  *lo = is_float(t) ? -1.0 : 10.0;
  *hi = is_float(t) ? 1.0 : 100.0;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t r = hr_splitmix64(&s);
    if (is_float(t)) {
      /* [-2, 2): half outside the range */
      hr_store_float(t, h, i, (double)(r >> 40) * 0x1p-22 - 2.0);
    } else {
      hr_store_bits(t, h, i, r % 120); /* [0, 120): some below 10, some at or above 100 */
    }
  }
  return h;
}

enum { BINS = 7 };

static void check_counts(const uint64_t *got, const uint64_t *want, uint32_t bins,
                         const char *what) {
  for (uint32_t b = 0; b < bins; ++b)
    if (got[b] != want[b])
      fail_msg("histogram %s: bin %u holds %llu, expected %llu", what, b,
               (unsigned long long)got[b], (unsigned long long)want[b]);
}

/* Counts from the printed table (its third column). */
static void table_counts(const char *out, uint64_t *counts, uint32_t bins) {
  const char *line = strchr(out, '\n'); /* past the header */
  for (uint32_t b = 0; b < bins; ++b) {
    assert_non_null(line);
    unsigned long long c = 0;
    assert_int_equal(sscanf(line + 1, "%*s %*s %llu", &c), 1);
    counts[b] = c;
    line = strchr(line + 1, '\n');
  }
}

TU_TEST(test_histogram) {
  tc_run *r = device_run(state);
  for (int d = 0; d < HR_NUM_DTYPES; ++d) {
    const cuprim_dtype t = hr_all_dtypes[d];
    if (hr_is_float(t) && cuprim_dtype_size(t) == 2)
      continue; /* F16 and BF16: test_half (histogram_data makes no data of theirs) */
    double lo, hi;
    void *h = histogram_data(t, N, hr_mix(tu_seed(), (uint64_t)t + 200), &lo, &hi);
    const char *file = tc_path("hist.npy");
    tc_write_vector(file, t, N, h);
    uint64_t want[BINS] = {0}, got[BINS];
    host_histogram(t, h, N, BINS, lo, hi, NULL, want);
    /* The table, in one pass and in many. */
    for (int chunked = 0; chunked < 2; ++chunked) {
      tc_cli(r, "histogram --bins %d --range %.17g %.17g %s %s", BINS, lo, hi,
             chunked ? "--chunk 1000" : "", file);
      assert_int_equal(r->status, 0);
      table_counts(r->out, got, BINS);
      check_counts(got, want, BINS, hr_dtype_name(t));
    }
    free(h);
  }
}

TU_TEST(test_histogram_outputs_edges_algorithms) {
  tc_run *r = device_run(state);
  double lo, hi;
  float *h = histogram_data(CUPRIM_F32, N, 31, &lo, &hi);
  tc_write_vector(tc_path("f32.npy"), CUPRIM_F32, N, h);
  uint64_t want[BINS] = {0};
  host_histogram(CUPRIM_F32, h, N, BINS, lo, hi, NULL, want);
  /* Every algorithm, to a .npy of u64 counts. */
  for (int alg = 0; alg < hr_alg_count(HR_HISTOGRAM); ++alg) {
    tc_cli(r, "histogram --bins %d --range %g %g --alg %s --chunk 9999 -o %s %s", BINS, lo, hi,
           hr_alg_name(HR_HISTOGRAM, alg), tc_path("h.npy"), tc_path("f32.npy"));
    assert_int_equal(r->status, 0);
    assert_string_equal(r->out, ""); /* written to the file, not printed */
    cuprim_dtype t;
    uint64_t count;
    uint64_t *got = tc_read_npy(tc_path("h.npy"), &t, &count);
    assert_int_equal(t, CUPRIM_U64);
    assert_int_equal(count, BINS);
    check_counts(got, want, BINS, hr_alg_name(HR_HISTOGRAM, alg));
    free(got);
  }
  /* CSV: a header, then lower,upper,count per bin; the first lower and last upper are the range. */
  tc_cli(r, "histogram --bins %d --range %g %g -o %s %s", BINS, lo, hi, tc_path("h.csv"),
         tc_path("f32.npy"));
  assert_int_equal(r->status, 0);
  FILE *f = open_csv(tc_path("h.csv"), "lower,upper,count\n");
  char line[256];
  for (int b = 0; b < BINS; ++b) {
    double l, u;
    unsigned long long c;
    assert_non_null(fgets(line, sizeof line, f));
    assert_int_equal(sscanf(line, "%lf,%lf,%llu", &l, &u, &c), 3);
    assert_int_equal(c, want[b]);
    if (b == 0)
      assert_true(l == lo);
    if (b == BINS - 1)
      assert_true(u == hi);
  }
  assert_null(fgets(line, sizeof line, f));
  fclose(f);
  /* Edges from a text file and from a .npy file: uneven bins, some samples outside. */
  const double edges[5] = {-1.5, -0.25, 0.0, 0.125, 1.75};
  uint64_t want_e[4] = {0};
  host_histogram(CUPRIM_F32, h, N, 4, 0.0, 0.0, edges, want_e);
  const char *text = "# edges\n-1.5, -0.25\n0 0.125 1.75\n";
  tc_write_file(tc_path("edges.txt"), text, strlen(text));
  tc_write_vector(tc_path("edges.npy"), CUPRIM_F64, 5, edges);
  const char *const sources[] = {"edges.txt", "edges.npy"};
  for (int s = 0; s < 2; ++s) {
    for (int chunked = 0; chunked < 2; ++chunked) {
      tc_cli(r, "histogram --edges %s %s %s", tc_path(sources[s]), chunked ? "--chunk 1000" : "",
             tc_path("f32.npy"));
      assert_int_equal(r->status, 0);
      uint64_t got[4];
      table_counts(r->out, got, 4);
      check_counts(got, want_e, 4, sources[s]);
    }
  }
  /* u8 samples from a raw file, 256 bins: the classic. */
  unsigned char *bytes = malloc(N);
  assert_non_null(bytes);
  uint64_t st = 77;
  for (int i = 0; i < N; ++i)
    bytes[i] = (unsigned char)hr_splitmix64(&st);
  tc_write_file(tc_path("u8.bin"), bytes, N);
  uint64_t want8[256] = {0};
  host_histogram(CUPRIM_U8, bytes, N, 256, 0.0, 256.0, NULL, want8);
  tc_cli(r, "histogram --dtype u8 --bins 256 --range 0 256 --chunk 4096 -o %s %s",
         tc_path("u8.npy"), tc_path("u8.bin"));
  assert_int_equal(r->status, 0);
  cuprim_dtype t;
  uint64_t count;
  uint64_t *got8 = tc_read_npy(tc_path("u8.npy"), &t, &count);
  assert_int_equal(count, 256);
  check_counts(got8, want8, 256, "u8 raw");
  free(got8);
  /* An empty input: zeros. */
  tc_write_vector(tc_path("empty.npy"), CUPRIM_F32, 0, NULL);
  tc_cli(r, "histogram --bins 3 --range 0 1 -o %s %s", tc_path("e.npy"), tc_path("empty.npy"));
  assert_int_equal(r->status, 0);
  uint64_t *zeros = tc_read_npy(tc_path("e.npy"), &t, &count);
  assert_int_equal(count, 3);
  assert_true(zeros[0] == 0 && zeros[1] == 0 && zeros[2] == 0);
  free(zeros);
  assert_int_equal(tc_count_entries(".tmp-"), 0);
  free(bytes);
  free(h);
}

/* ---------------------------------------------------------------- --devices */

static int device_count(void) {
  int count = 0;
  assert_int_equal(cudaGetDeviceCount(&count), cudaSuccess);
  return count;
}

/* Histogram counts of `file` through `args` (the table on stdout) against the host's. */
static void check_histogram(tc_run *r, const char *args, const char *file, const uint64_t *want,
                            uint32_t bins) {
  uint64_t got[BINS];
  assert_true(bins <= BINS);
  tc_cli(r, "histogram %s %s", args, file);
  if (r->status != 0)
    fail_msg("histogram %s: status %d: %s", args, r->status, r->err);
  table_counts(r->out, got, bins);
  check_counts(got, want, bins, args);
}

/* One list of devices (`devices`: "--devices L") against the host, as one device is checked:
 * reduce, scan and histogram, in one pass per device and in many (--chunk), on data whose every
 * result is exact; and inputs smaller than the list (empty shares) and empty. */
static void check_devices(tc_run *r, const char *devices) {
  char extra[256];
  for (int chunked = 0; chunked < 2; ++chunked) {
    snprintf(extra, sizeof extra, "%s%s", devices, chunked ? " --chunk 1000" : "");
    /* i64 (wrapping sums and products), float sums of small integers: each program run starts
     * NCCL, so a few ops stand for all (the per-device steps are the one-device ones). */
    int64_t *h = write_data(tc_path("dev_i64.npy"), CUPRIM_I64, CUPRIM_SUM, N, 41);
    check_reduce(r, tc_path("dev_i64.npy"), CUPRIM_I64, CUPRIM_SUM, h, N, extra);
    check_reduce(r, tc_path("dev_i64.npy"), CUPRIM_I64, CUPRIM_PROD, h, N, extra);
    check_reduce(r, tc_path("dev_i64.npy"), CUPRIM_I64, CUPRIM_XOR, h, N, extra);
    check_scan(r, tc_path("dev_i64.npy"), CUPRIM_I64, CUPRIM_SUM, CUPRIM_INCLUSIVE, h, N, extra);
    check_scan(r, tc_path("dev_i64.npy"), CUPRIM_I64, CUPRIM_SUM, CUPRIM_EXCLUSIVE, h, N, extra);
    check_scan(r, tc_path("dev_i64.npy"), CUPRIM_I64, CUPRIM_MIN, CUPRIM_EXCLUSIVE, h, N, extra);
    free(h);
    float *hf = write_data(tc_path("dev_f32.npy"), CUPRIM_F32, CUPRIM_SUM, N, 43);
    check_reduce(r, tc_path("dev_f32.npy"), CUPRIM_F32, CUPRIM_SUM, hf, N, extra);
    for (int kind = 0; kind < 2; ++kind)
      check_scan(r, tc_path("dev_f32.npy"), CUPRIM_F32, CUPRIM_SUM, (cuprim_scan_kind)kind, hf, N,
                 extra);
    free(hf);
    /* Equal-width bins (each pass a collective, in lock step) and edges (local counts). */
    double lo, hi;
    float *hs = histogram_data(CUPRIM_F32, N, 47, &lo, &hi);
    tc_write_vector(tc_path("dev_hist.npy"), CUPRIM_F32, N, hs);
    uint64_t want[BINS] = {0};
    host_histogram(CUPRIM_F32, hs, N, BINS, lo, hi, NULL, want);
    char args[384];
    snprintf(args, sizeof args, "--bins %d --range %.17g %.17g %s", BINS, lo, hi, extra);
    check_histogram(r, args, tc_path("dev_hist.npy"), want, BINS);
    const double edges[4] = {-1.5, -0.25, 0.125, 1.75};
    const char *text = "-1.5 -0.25 0.125 1.75\n";
    tc_write_file(tc_path("dev_edges.txt"), text, strlen(text));
    host_histogram(CUPRIM_F32, hs, N, 3, 0.0, 0.0, edges, want);
    snprintf(args, sizeof args, "--edges %s %s", tc_path("dev_edges.txt"), extra);
    check_histogram(r, args, tc_path("dev_hist.npy"), want, 3);
    free(hs);
  }
  /* One element (every device but the first gets nothing), and none. */
  const int64_t one[1] = {-7};
  tc_write_npy(tc_path("dev_one.npy"), CUPRIM_I64, 0, NULL, one, sizeof one);
  check_reduce(r, tc_path("dev_one.npy"), CUPRIM_I64, CUPRIM_PROD, one, 1, devices);
  check_scan(r, tc_path("dev_one.npy"), CUPRIM_I64, CUPRIM_SUM, CUPRIM_EXCLUSIVE, one, 1, devices);
  check_scan(r, tc_path("dev_one.npy"), CUPRIM_I64, CUPRIM_MAX, CUPRIM_INCLUSIVE, one, 1, devices);
  tc_write_vector(tc_path("dev_empty.npy"), CUPRIM_I64, 0, NULL);
  check_reduce(r, tc_path("dev_empty.npy"), CUPRIM_I64, CUPRIM_MIN, one, 0, devices);
  check_scan(r, tc_path("dev_empty.npy"), CUPRIM_I64, CUPRIM_SUM, CUPRIM_INCLUSIVE, one, 0,
             devices);
  uint64_t zeros[BINS] = {0};
  char args[384];
  snprintf(args, sizeof args, "--bins %d --range 0 1 %s", BINS, devices);
  check_histogram(r, args, tc_path("dev_empty.npy"), zeros, BINS);
}

/* Outputs beyond a plain new file: scan's CSV (one value a line, as reduce prints them), standard
 * output for each command ("-" and /dev/stdout; reduce's value printed once), and a symbolic
 * link (written through to its target, and still a link). */
TU_TEST(test_output_targets) {
  tc_run *r = device_run(state);
  enum { M = 1000 };
  int32_t *h = write_data(tc_path("m.npy"), CUPRIM_I32, CUPRIM_SUM, M, 5);
  int32_t want[M];
  hr_scan_seq(CUPRIM_I32, CUPRIM_SUM, CUPRIM_INCLUSIVE, h, want, M);
  /* CSV: line i is element i. */
  tc_cli(r, "scan -o %s %s", tc_path("m.csv"), tc_path("m.npy"));
  assert_int_equal(r->status, 0);
  FILE *f = fopen(tc_path("m.csv"), "r");
  assert_non_null(f);
  char line[64], text[64];
  for (int i = 0; i < M; ++i) {
    assert_non_null(fgets(line, sizeof line, f));
    hr_format_value(CUPRIM_I32, &want[i], text, sizeof text);
    strcat(text, "\n");
    assert_string_equal(line, text);
  }
  assert_null(fgets(line, sizeof line, f));
  fclose(f);
  /* .npy on standard output: the same bytes as the file of the same scan. */
  tc_cli(r, "scan -o %s %s", tc_path("m_out.npy"), tc_path("m.npy"));
  assert_int_equal(r->status, 0);
  char file_bytes[8192];
  f = fopen(tc_path("m_out.npy"), "rb");
  assert_non_null(f);
  const size_t file_len = fread(file_bytes, 1, sizeof file_bytes, f);
  fclose(f);
  for (int k = 0; k < 2; ++k) {
    tc_cli(r, "scan -o %s %s", k ? "/dev/stdout" : "-", tc_path("m.npy"));
    assert_int_equal(r->status, 0);
    assert_int_equal(r->out_len, file_len);
    assert_memory_equal(r->out, file_bytes, file_len);
  }
  /* reduce: the value once; histogram: the CSV. */
  int32_t total;
  hr_reduce_seq(CUPRIM_I32, CUPRIM_SUM, h, M, &total);
  hr_format_value(CUPRIM_I32, &total, text, sizeof text);
  strcat(text, "\n");
  tc_cli(r, "reduce -o - %s", tc_path("m.npy"));
  assert_int_equal(r->status, 0);
  assert_string_equal(r->out, text);
  tc_cli(r, "histogram --bins 1 --range -1e10 1e10 -o - %s", tc_path("m.npy"));
  assert_int_equal(r->status, 0);
  assert_string_equal(r->out, "lower,upper,count\n-10000000000,10000000000,1000\n");
  /* Through a link: the target is written, the link stays. */
  tc_write_file(tc_path("target.npy"), "old", 3);
  assert_int_equal(symlink("target.npy", tc_path("via.npy")), 0);
  tc_cli(r, "scan -o %s %s", tc_path("via.npy"), tc_path("m.npy"));
  assert_int_equal(r->status, 0);
  struct stat st;
  assert_int_equal(lstat(tc_path("via.npy"), &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  cuprim_dtype t;
  uint64_t count;
  int32_t *got = tc_read_npy(tc_path("target.npy"), &t, &count);
  assert_int_equal(count, M);
  assert_memory_equal(got, want, sizeof want);
  free(got);
  free(h);
}

/* --devices D with one device works as --device D; a device past the last is a usage error. */
TU_TEST(test_devices_one) {
  tc_run *r = device_run(state);
  const int count = device_count();
  char devices[64];
  snprintf(devices, sizeof devices, "--devices %d", count - 1);
  check_devices(r, devices);
  tc_write_npy(tc_path("dev_one.npy"), CUPRIM_I32, 0, NULL, &count, sizeof count);
  tc_cli(r, "reduce --devices %d %s", count, tc_path("dev_one.npy"));
  assert_int_equal(r->status, CLI_EXIT_USAGE);
  assert_non_null(strstr(r->err, "this machine has"));
  tc_cli(r, "reduce --devices 0,%d %s", count, tc_path("dev_one.npy"));
  assert_int_equal(r->status, CLI_EXIT_USAGE);
#if CUPRIM_CLI_HAS_NCCL
  char want[64];
  snprintf(want, sizeof want, "no device %d: this machine has %d", count, count);
  assert_non_null(strstr(r->err, want));
#else
  assert_non_null(strstr(r->err, "built without NCCL"));
#endif
}

/* Two or more GPUs, with the NCCL component: the first two in order and reversed, and all of
 * them, each against the host (and so against one device, which test_devices_one and the tests
 * above check the same way). */
TU_TEST(test_devices_several) {
  tc_run *r = device_run(state);
  const int count = device_count();
  if (!CUPRIM_CLI_HAS_NCCL || count < 2) {
    print_message("[  SKIP    ] --devices over several GPUs needs two GPUs and the NCCL "
                  "component (this machine: %d GPU(s); the program built %s NCCL)\n",
                  count, CUPRIM_CLI_HAS_NCCL ? "with" : "without");
    skip();
  }
  check_devices(r, "--devices 0,1");
  check_devices(r, "--devices 1,0");
  if (count > 2) {
    char devices[512] = "--devices 0";
    for (int d = 1; d < count && d < CLI_MAX_DEVICES; ++d)
      snprintf(devices + strlen(devices), sizeof devices - strlen(devices), ",%d", d);
    check_devices(r, devices);
  }
}

/* ---------------------------------------------------------------- ladder, info, demo */

/* The ladder checks each algorithm's result itself (exit 1 on a wrong one); here: it succeeds,
 * lists every algorithm, and every row says ok. */
static void check_ladder(tc_run *r, cli_primitive p, const char *args) {
  const char *const name = cli_primitive_name(p);
  tc_cli(r, "ladder %s %s", name, args);
  if (r->status != 0)
    fail_msg("ladder %s %s: status %d\n%s%s", name, args, r->status, r->out, r->err);
  print_message("%s", r->out);
  int rows = 0;
  for (int alg = 0; alg < hr_alg_count((hr_primitive)p); ++alg) {
    char want[64];
    snprintf(want, sizeof want, "  %s ",
             hr_alg_name((hr_primitive)p, alg)); /* the row's name column */
    const char *row = strstr(r->out, want);
    if (!row)
      fail_msg("ladder %s: no row for %s", name, hr_alg_name((hr_primitive)p, alg));
    const char *end = strchr(row, '\n');
    assert_non_null(end);
    const char *ok = strstr(row, " ok ");
    if (!ok || ok > end)
      fail_msg("ladder %s: the row of %s is not ok", name, hr_alg_name((hr_primitive)p, alg));
    ++rows;
  }
  assert_int_equal(rows, hr_alg_count((hr_primitive)p));
  assert_non_null(strstr(r->out, "GB/s"));
}

TU_TEST(test_ladder) {
  tc_run *r = device_run(state);
  check_ladder(r, CLI_PRIM_REDUCE, "--n 2^20 --runs 3");
  check_ladder(r, CLI_PRIM_REDUCE, "--n 100003 --runs 2 --dtype i64 --op xor");
  check_ladder(r, CLI_PRIM_SCAN, "--n 2^20 --runs 3");
  check_ladder(r, CLI_PRIM_SCAN, "--n 100003 --runs 2 --dtype u32 --op max --exclusive");
  check_ladder(r, CLI_PRIM_HISTOGRAM, "--n 2^20 --runs 3");
  check_ladder(r, CLI_PRIM_HISTOGRAM, "--n 100003 --runs 2 --dtype u8 --bins 256");
  /* The segmented reduce: uniform segments with a cut last one, power-law sizes (one segment of
   * n/4, which the per-segment rungs walk alone), random sizes with empty segments among them. */
  check_ladder(r, CLI_PRIM_SEGMENTED, "--n 2^16 --runs 2 --segment-size 7");
  assert_non_null(strstr(r->out, "n = 2^16 in 9363 uniform segments of 7, i32 offsets"));
  check_ladder(r, CLI_PRIM_SEGMENTED, "--n 2^16 --runs 2 --segments power_law");
  check_ladder(r, CLI_PRIM_SEGMENTED,
               "--n 100003 --runs 2 --segments power_law --dtype i32 --op xor");
  check_ladder(r, CLI_PRIM_SEGMENTED,
               "--n 100003 --runs 2 --segments random --segment-size 3 --dtype f64 --op max");
  check_ladder(r, CLI_PRIM_SEGMENTED, "--n 2^16 --runs 2 --segment-size 100 --dtype bf16");
}

/* The line `cuprim info` prints for the code a device runs, from a context of the test's own. */
static void code_line(int device, char *line, size_t len) {
  cuprim_ctx *ctx = NULL;
  assert_int_equal(cuprim_ctx_create(&ctx, device, NULL), CUPRIM_SUCCESS);
  int code_arch = 0, from_ptx = 0;
  assert_int_equal(cuprim_ctx_code_arch(ctx, &code_arch, &from_ptx), CUPRIM_SUCCESS);
  cuprim_ctx_destroy(ctx);
  if (from_ptx)
    snprintf(line, len, "  runs                compute_%d PTX, compiled by the driver\n",
             code_arch);
  else
    snprintf(line, len, "  runs                sm_%d machine code\n", code_arch);
}

/* Checks one `cuprim info` output: the build's lines, every device's block with the code it
 * runs, and the copy bandwidth in the block of `chosen` only. */
static void check_info(const char *out, int count, int chosen) {
  char want[256];
  snprintf(want, sizeof want, "cuprim %s\nbuilt for CUDA architectures %s\n",
           cuprim_version_string(), cuprim_build_architectures());
  assert_non_null(strstr(out, want));
#if CUPRIM_CLI_HAS_NCCL
  assert_non_null(strstr(out, "\nNCCL 2."));
#else
  assert_non_null(strstr(out, "\nNCCL: none (this cuprim program was built without"));
#endif
  snprintf(want, sizeof want, "; %d device(s)\n", count);
  assert_non_null(strstr(out, want));
  for (int d = 0; d < count; ++d) {
    snprintf(want, sizeof want, "device %d: ", d);
    const char *block = strstr(out, want);
    if (!block)
      fail_msg("info lists no %s", want);
    snprintf(want, sizeof want, "device %d: ", d + 1);
    const char *end = d + 1 < count ? strstr(block, want) : block + strlen(block);
    assert_non_null(end);
    const char *const fields[] = {"compute capability", "SMs", "memory", "L2 cache"};
    for (size_t k = 0; k < sizeof fields / sizeof fields[0]; ++k) {
      const char *f = strstr(block, fields[k]);
      assert_true(f && f < end);
    }
    code_line(d, want, sizeof want);
    const char *code = strstr(block, want);
    if (!code || code > end)
      fail_msg("device %d: info lacks \"%s\"", d, want);
    const char *bw = strstr(block, "copy bandwidth");
    if (d != chosen) {
      assert_true(!bw || bw > end);
      continue;
    }
    assert_true(bw && bw < end);
    double gbps = 0.0;
    assert_int_equal(sscanf(bw, "copy bandwidth %lf GB/s", &gbps), 1);
    assert_true(gbps > 10.0); /* any GPU of this century copies faster than 10 GB/s */
  }
}

TU_TEST(test_info) {
  tc_run *r = device_run(state);
  const int count = device_count();
  tc_cli(r, "info --runs 3");
  assert_int_equal(r->status, 0);
  print_message("%s", r->out);
  check_info(r->out, count, 0);
  /* The last device's bandwidth; a device past the last is a usage error. */
  tc_cli(r, "info --runs 2 --device %d", count - 1);
  assert_int_equal(r->status, 0);
  check_info(r->out, count, count - 1);
  tc_cli(r, "info --device %d", count);
  assert_int_equal(r->status, CLI_EXIT_USAGE);
}

TU_TEST(test_demo) {
  tc_run *r = device_run(state);
  tc_cli(r, "demo --n 100003 --runs 2");
  assert_int_equal(r->status, 0);
  print_message("%s", r->out);
  const char *p = r->out;
  int oks = 0;
  while ((p = strstr(p, "  ok")) != NULL) {
    ++oks;
    ++p;
  }
  assert_int_equal(oks, 3);
  assert_null(strstr(r->out, "WRONG"));
}

/* ---------------------------------------------------------------- argmin, argmax */

/* Writes h[0..n) of t: a .npy, or raw bytes for BF16 (NumPy has none); the options that read it. */
static const char *write_input(const char *name, cuprim_dtype t, const void *h, uint64_t n,
                               char *opts, size_t len) {
  const char *file = tc_path(name);
  if (t == CUPRIM_BF16) {
    tc_write_file(file, h, (size_t)n * 2);
    snprintf(opts, len, "--dtype bf16");
  } else {
    tc_write_vector(file, t, n, h);
    opts[0] = '\0';
  }
  return file;
}

/* Runs `reduce --op argmin|argmax [extra] FILE` and checks "INDEX VALUE" against the host. */
static void check_arg(tc_run *r, const char *file, const char *opts, cuprim_dtype t,
                      cuprim_arg_op op, const void *h, uint64_t n, const char *extra) {
  const uint64_t want = hr_reduce_arg_reference(t, op, h, n);
  unsigned char ident[8];
  hr_identity(t, op == CUPRIM_ARGMIN ? CUPRIM_MIN : CUPRIM_MAX, ident);
  char value[64], text[96];
  hr_format_value(t, n ? (const char *)h + want * cuprim_dtype_size(t) : (const char *)ident, value,
                  sizeof value);
  snprintf(text, sizeof text, "%llu %s\n", (unsigned long long)want, value);
  const char *name = op == CUPRIM_ARGMIN ? "argmin" : "argmax";
  tc_cli(r, "reduce --op %s %s %s %s", name, opts, extra, file);
  if (r->status != 0 || strcmp(r->out, text) != 0)
    fail_msg("reduce --op %s %s %s n=%llu: status %d, printed \"%s\", expected \"%s\"", name,
             hr_dtype_name(t), extra, (unsigned long long)n, r->status, r->out, text);
}

/* Every dtype, in one pass and in passes: values in a narrow band with the extremes at 1999,
 * 2000 (a tie across a pass boundary of --chunk 1000 and 2000: the first wins) and 77777;
 * floats also a NaN case (the first NaN, in a later pass than the extremes, wins both ways) and
 * signed zeros (all values >= 1 but -0.0 at 1100 and +0.0 at 1200: equal, so argmin is 1100). */
TU_TEST(test_arg_reduce) {
  tc_run *r = device_run(state);
  for (int ti = 0; ti < HR_NUM_DTYPES; ++ti) {
    const cuprim_dtype t = hr_all_dtypes[ti];
    const size_t size = cuprim_dtype_size(t);
    unsigned char *h = malloc((size_t)N * size);
    assert_non_null(h);
    const int cases = hr_is_float(t) ? 3 : 1;
    for (int c = 0; c < cases; ++c) {
      uint64_t s = hr_mix(tu_seed(), (uint64_t)(ti * 8 + c));
      for (uint64_t i = 0; i < N; ++i) {
        const int v = (int)(hr_splitmix64(&s) % 21) + (c == 2 ? 1 : -10); /* case 2: >= 1 */
        if (hr_is_float(t))
          hr_store_float(t, h, i, v);
        else
          hr_store_bits(t, h, i, (uint64_t)(int64_t)(hr_is_signed(t) ? v : v + 10));
      }
      const uint64_t at[3] = {1999, 2000, 77777};
      for (int k = 0; k < 3; ++k) {
        if (hr_is_float(t)) {
          hr_store_float(t, h, at[k] + 0, -50); /* the argmin ties */
          hr_store_float(t, h, at[k] + 5, 50);  /* the argmax ties */
        } else {
          hr_store_bits(t, h, at[k] + 0, hr_is_signed(t) ? (uint64_t)(int64_t)-50 : 0);
          hr_store_bits(t, h, at[k] + 5, hr_is_signed(t) ? 50 : 100);
        }
      }
      if (c == 1) { /* NaN at 3000 and 5000: 3000 wins both ways */
        hr_store_float(t, h, 3000, NAN);
        hr_store_float(t, h, 5000, NAN);
      }
      if (c == 2) { /* every value >= 1 but two zeros, -0.0 first: it is the argmin */
        for (int k = 0; k < 3; ++k)
          hr_store_float(t, h, at[k], 7);
        hr_store_float(t, h, 1100, -0.0);
        hr_store_float(t, h, 1200, 0.0);
      }
      char opts[32];
      const char *file = write_input("arg.in", t, h, N, opts, sizeof opts);
      for (int op = 0; op < 2; ++op) {
        check_arg(r, file, opts, t, (cuprim_arg_op)op, h, N, "");
        check_arg(r, file, opts, t, (cuprim_arg_op)op, h, N, "--chunk 1000");
        check_arg(r, file, opts, t, (cuprim_arg_op)op, h, N, "--chunk 2000"); /* 1999 | 2000 */
      }
    }
    /* Empty: UINT64_MAX and the identity. */
    char opts[32];
    const char *file = write_input("arg_empty.in", t, h, 0, opts, sizeof opts);
    check_arg(r, file, opts, t, CUPRIM_ARGMIN, h, 0, "");
    check_arg(r, file, opts, t, CUPRIM_ARGMAX, h, 0, "--chunk 3");
    free(h);
  }
  /* -o: the same line as text; a .npy holds the index as a 0-d u8. */
  float f[5] = {3, 1, 4, 1, 5};
  tc_write_vector(tc_path("five.npy"), CUPRIM_F32, 5, f);
  tc_cli(r, "reduce --op argmin -o %s %s", tc_path("idx.npy"), tc_path("five.npy"));
  assert_int_equal(r->status, 0);
  assert_string_equal(r->out, "1 1\n");
  cuprim_dtype t;
  uint64_t count;
  uint64_t *idx = tc_read_npy(tc_path("idx.npy"), &t, &count);
  assert_true(t == CUPRIM_U64 && count == 1 && *idx == 1);
  free(idx);
  tc_cli(r, "reduce --op argmax -o - %s", tc_path("five.npy"));
  assert_string_equal(r->out, "4 5\n");
}

/* ---------------------------------------------------------------- 16-bit floats */

/* Parses the printed 16-bit value back to its bits (the text reads back to the same value). */
static void half_bits(cuprim_dtype t, const char *text, uint16_t *bits) {
  *bits = hr_half_from_double(t, strtod(text, NULL));
}

/* F16 and BF16 through reduce (every float op, one pass and passes, the passes then in f32 and
 * rounded once), scan (SUM of data whose partial sums are exact, and MAX; .npy for f16, raw bits
 * for bf16, CSV for both) and histogram, against the host references (computed in float or
 * double, rounded once). */
TU_TEST(test_half) {
  tc_run *r = device_run(state);
  const hr_gpu_shape shape = {1, 1}; /* AUTO's bound does not depend on it */
  /* got16 holds one element more: the raw read below asks for N + 1 to see that none follows. */
  uint16_t *h = malloc((size_t)N * 2), *got16 = malloc(((size_t)N + 1) * 2);
  assert_true(h && got16);
  const cuprim_dtype halves[2] = {CUPRIM_F16, CUPRIM_BF16};
  for (int k = 0; k < 2; ++k) {
    const cuprim_dtype t = halves[k];
    char opts[32], why[256];
    for (int op = CUPRIM_SUM; op <= CUPRIM_MAX; ++op) {
      hr_reduce_fill(t, (cuprim_op)op, HR_DATA_RANDOM, hr_mix(tu_seed(), (uint64_t)(k * 8 + op)), h,
                     N);
      const char *file = write_input("half.in", t, h, N, opts, sizeof opts);
      hr_reduce_ref ref;
      hr_reduce_reference(t, (cuprim_op)op, h, N, &ref);
      for (int chunked = 0; chunked < 2; ++chunked) {
        tc_cli(r, "reduce --op %s %s %s %s", hr_op_name((cuprim_op)op), opts,
               chunked ? "--chunk 1000" : "", file);
        assert_int_equal(r->status, 0);
        uint16_t bits;
        half_bits(t, r->out, &bits);
        if (!hr_reduce_check(&ref, CUPRIM_REDUCE_AUTO, &shape, &bits, why, sizeof why))
          fail_msg("reduce %s %s%s: %s", hr_op_name((cuprim_op)op), hr_dtype_name(t),
                   chunked ? " --chunk 1000" : "", why);
      }
    }
    /* Scan: inclusive and exclusive SUM of exact data, MAX; one pass and passes. */
    hr_scan_ref sref;
    hr_scan_ref_init(&sref);
    for (int op = CUPRIM_SUM; op <= CUPRIM_MAX; op += CUPRIM_MAX - CUPRIM_SUM) {
      hr_scan_fill(t, (cuprim_op)op, HR_SCAN_EXACT, hr_mix(tu_seed(), (uint64_t)(k * 8 + op + 4)),
                   h, N);
      const char *file = write_input("half.in", t, h, N, opts, sizeof opts);
      for (int kind = 0; kind < 2; ++kind) {
        assert_int_equal(hr_scan_reference(&sref, t, (cuprim_op)op, (cuprim_scan_kind)kind, h, N),
                         0);
        for (int chunked = 0; chunked < 2; ++chunked) {
          const char *out = tc_path(t == CUPRIM_F16 ? "half_out.npy" : "half_out.bin");
          tc_cli(r, "scan --op %s %s %s %s -o %s %s", hr_op_name((cuprim_op)op), opts,
                 kind == CUPRIM_EXCLUSIVE ? "--exclusive" : "", chunked ? "--chunk 1000" : "", out,
                 file);
          assert_int_equal(r->status, 0);
          if (t == CUPRIM_F16) {
            cuprim_dtype ot;
            uint64_t count;
            void *got = tc_read_npy(out, &ot, &count);
            assert_true(ot == CUPRIM_F16 && count == N);
            memcpy(got16, got, (size_t)N * 2);
            free(got);
          } else {
            FILE *f = fopen(out, "rb");
            assert_non_null(f);
            assert_int_equal(fread(got16, 2, N + 1, f), N); /* no header, nothing more */
            fclose(f);
          }
          uint64_t first, last;
          if (hr_scan_check(&sref, got16, -1, &first, &last, why, sizeof why))
            fail_msg("scan %s %s %s%s: %s", hr_op_name((cuprim_op)op), hr_dtype_name(t),
                     hr_scan_kind_name((cuprim_scan_kind)kind), chunked ? " --chunk 1000" : "",
                     why);
        }
      }
    }
    hr_scan_ref_free(&sref);
    /* Histogram: the even bins of hr_hist_fill's data, one pass and passes. */
    const hr_hist_bins b = hr_hist_bins_even(BINS, -3.0, 5.0);
    hr_hist_fill(&b, t, HR_HIST_NAN, hr_mix(tu_seed(), (uint64_t)k + 90), h, N);
    const char *file = write_input("half.in", t, h, N, opts, sizeof opts);
    uint64_t want[BINS], got[BINS];
    hr_hist_reference(&b, t, h, N, want);
    for (int chunked = 0; chunked < 2; ++chunked) {
      tc_cli(r, "histogram --bins %d --range -3 5 %s %s %s", BINS, opts,
             chunked ? "--chunk 1000" : "", file);
      assert_int_equal(r->status, 0);
      table_counts(r->out, got, BINS);
      check_counts(got, want, BINS, hr_dtype_name(t));
    }
  }
  free(got16);
  free(h);
}

/* ---------------------------------------------------------------- channels and weights */

/* The counts of channel c of pixels of C channels in h[0..pixels * C). */
static void channel_reference(const hr_hist_bins *b, cuprim_dtype t, const void *h, uint64_t pixels,
                              int channels, int c, uint64_t *counts) {
  const size_t size = cuprim_dtype_size(t);
  unsigned char *plane = malloc(pixels ? (size_t)pixels * size : 1);
  assert_non_null(plane);
  for (uint64_t p = 0; p < pixels; ++p)
    memcpy(plane + p * size, (const char *)h + (p * (uint64_t)channels + (uint64_t)c) * size, size);
  hr_hist_reference(b, t, plane, pixels, counts);
  free(plane);
}

/* RGBA u8 pixels (and f32 ones): all four channels into a 2-d .npy (4 x bins), three of four
 * with bins and ranges of their own into a CSV, one pass and passes cut on whole pixels. */
TU_TEST(test_channels) {
  tc_run *r = device_run(state);
  enum { PIXELS = 25013 };
  const cuprim_dtype types[2] = {CUPRIM_U8, CUPRIM_F32};
  for (int k = 0; k < 2; ++k) {
    const cuprim_dtype t = types[k];
    const size_t size = cuprim_dtype_size(t);
    unsigned char *h = malloc((size_t)PIXELS * 4 * size);
    assert_non_null(h);
    uint64_t s = hr_mix(tu_seed(), (uint64_t)k + 300);
    for (uint64_t i = 0; i < (uint64_t)PIXELS * 4; ++i) {
      const uint64_t v = hr_below(&s, 256);
      if (t == CUPRIM_U8)
        h[i] = (unsigned char)v;
      else
        hr_store_float(t, h, i, (double)v / 64.0 - 1.0); /* [-1, 3) */
    }
    tc_write_vector(tc_path("px.npy"), t, (uint64_t)PIXELS * 4, h);
    const double lo = t == CUPRIM_U8 ? 0 : -1, hi = t == CUPRIM_U8 ? 256 : 3;
    /* 4 of 4, 16 bins each, over one range. */
    for (int chunked = 0; chunked < 2; ++chunked) {
      tc_cli(r, "histogram --channels 4 --bins 16 --range %g %g %s -o %s %s", lo, hi,
             chunked ? "--chunk 999" : "", tc_path("ch.npy"), tc_path("px.npy"));
      assert_int_equal(r->status, 0);
      cuprim_dtype ot;
      uint64_t count;
      uint64_t *got = tc_read_npy(tc_path("ch.npy"), &ot, &count);
      assert_true(ot == CUPRIM_U64 && count == 4 * 16);
      const hr_hist_bins b = hr_hist_bins_even(16, lo, hi);
      for (int c = 0; c < 4; ++c) {
        uint64_t want[16];
        channel_reference(&b, t, h, PIXELS, 4, c, want);
        check_counts(got + c * 16, want, 16, "--channels 4");
      }
      free(got);
    }
    /* 3 of 4: bins 8, 5, 3 over ranges of their own (parts of the values out of range). */
    const uint32_t bins[3] = {8, 5, 3};
    const double los[3] = {lo, lo + (hi - lo) / 4, lo}, his[3] = {hi, hi, lo + (hi - lo) / 2};
    for (int chunked = 0; chunked < 2; ++chunked) {
      tc_cli(r,
             "histogram --channels 4 --active 3 --bins 8,5,3 --range %g,%g,%g %g,%g,%g %s -o %s %s",
             los[0], los[1], los[2], his[0], his[1], his[2], chunked ? "--chunk 1001" : "",
             tc_path("ch.csv"), tc_path("px.npy"));
      assert_int_equal(r->status, 0);
      FILE *f = open_csv(tc_path("ch.csv"), "channel,lower,upper,count\n");
      char line[256];
      for (int c = 0; c < 3; ++c) {
        uint64_t want[8], got[8];
        const hr_hist_bins b = hr_hist_bins_even(bins[c], los[c], his[c]);
        channel_reference(&b, t, h, PIXELS, 4, c, want);
        for (uint32_t i = 0; i < bins[c]; ++i) {
          int ch = -1;
          unsigned long long v = 0;
          assert_non_null(fgets(line, sizeof line, f));
          assert_int_equal(sscanf(line, "%d,%*[^,],%*[^,],%llu", &ch, &v), 2);
          assert_int_equal(ch, c);
          got[i] = v;
        }
        check_counts(got, want, bins[c], "--channels 4 --active 3");
      }
      assert_null(fgets(line, sizeof line, f));
      fclose(f);
    }
    free(h);
  }
}

/* Weighted sums of f32 samples with f32 and f64 weights, AUTO and FIXED_ORDER, one pass and
 * passes, against a long double reference: each bin within (m + passes) * 2^-53 * sum|w| (the
 * API's bound for m weights, plus one rounding per pass added on the host). FIXED_ORDER twice
 * gives the same bits. */
TU_TEST(test_weights) {
  tc_run *r = device_run(state);
  const hr_hist_bins b = hr_hist_bins_even(BINS, -1.0, 1.0);
  float *x = malloc((size_t)N * sizeof *x);
  double *w = malloc((size_t)N * sizeof *w);
  assert_true(x && w);
  hr_hist_fill(&b, CUPRIM_F32, HR_HIST_OUT_OF_RANGE, hr_mix(tu_seed(), 400), x, N);
  tc_write_vector(tc_path("x.npy"), CUPRIM_F32, N, x);
  for (int wk = 0; wk < 2; ++wk) {
    const cuprim_dtype wt = wk ? CUPRIM_F64 : CUPRIM_F32;
    uint64_t s = hr_mix(tu_seed(), 401 + (uint64_t)wk);
    float *wf = malloc((size_t)N * sizeof *wf);
    assert_non_null(wf);
    for (uint64_t i = 0; i < N; ++i) {
      w[i] = (hr_unit(&s) - 0.25) * 1e3;
      wf[i] = (float)w[i];
      if (!wk)
        w[i] = wf[i]; /* the f32 weights' exact values */
    }
    tc_write_vector(tc_path("w.npy"), wt, N, wk ? (const void *)w : (const void *)wf);
    free(wf);
    long double want[BINS] = {0}, abs_sum[BINS] = {0};
    uint64_t m[BINS] = {0};
    for (uint64_t i = 0; i < N; ++i) {
      const uint32_t bin = hr_hist_bin(&b, x[i]);
      if (bin != HR_HIST_NO_BIN) {
        want[bin] += w[i];
        abs_sum[bin] += fabsl((long double)w[i]);
        ++m[bin];
      }
    }
    for (int alg = 0; alg < 2; ++alg)
      for (int chunked = 0; chunked < 2; ++chunked) {
        double first[BINS];
        for (int run = 0; run < (alg ? 2 : 1); ++run) {
          tc_cli(r, "histogram --bins %d --range -1 1 --weights %s --alg %s %s -o %s %s", BINS,
                 tc_path("w.npy"), alg ? "fixed_order" : "auto", chunked ? "--chunk 1000" : "",
                 tc_path("sums.npy"), tc_path("x.npy"));
          assert_int_equal(r->status, 0);
          cuprim_dtype ot;
          uint64_t count;
          double *got = tc_read_npy(tc_path("sums.npy"), &ot, &count);
          assert_true(ot == CUPRIM_F64 && count == BINS);
          const uint64_t passes = chunked ? (N + 999) / 1000 : 1;
          for (int i = 0; i < BINS; ++i) {
            const long double bound = (long double)(m[i] + passes) * 0x1p-53L * abs_sum[i];
            if (fabsl((long double)got[i] - want[i]) > bound)
              fail_msg("weights %s %s%s bin %d: %.17g, expected %.17Lg (bound %.3Lg)",
                       hr_dtype_name(wt), alg ? "fixed_order" : "auto",
                       chunked ? " --chunk 1000" : "", i, got[i], want[i], bound);
            if (run == 1 && memcmp(&got[i], &first[i], sizeof first[i]) != 0)
              fail_msg("fixed_order bin %d: %.17g, then %.17g", i, first[i], got[i]);
            first[i] = got[i];
          }
          free(got);
        }
      }
  }
  /* The table's last column is the sum. */
  tc_cli(r, "histogram --bins 2 --range -1 1 --weights %s %s", tc_path("w.npy"), tc_path("x.npy"));
  assert_int_equal(r->status, 0);
  assert_non_null(strstr(r->out, " sum\n"));
  free(w);
  free(x);
}

TU_MAIN_GPU(tc_setup, tc_teardown)
