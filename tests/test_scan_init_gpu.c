/* cuprim_scan_init on a GPU: the scan from an initial value held in device memory, against the
 * host reference of the scan of [init, x...] (test_scan_init_ref.h).
 *
 * Every dtype x op x kind x size x data kind, in place and out of place, with the initial value
 * in a buffer of its own (written on the call's stream just before the call: the scan must read
 * it after that write) or inside the input itself; both of AUTO's kernels (one block, decoupled
 * look-back, with half and full tiles, the status reset by a kernel or a memset) forced through
 * the internal entry point, so that the initial value's two ways in (the single block's carry,
 * tile 0's prefix) are each tested at every size; special initial values (the identity, NaN,
 * infinities, zero for PROD, the extremes of the integers); a scan in two parts whose second part
 * starts from the first part's total computed on the device (what the NCCL scan and the cuprim
 * program's passes do); n == 0; the legacy and per-thread streams; CUDA graph capture, whose
 * replays read the initial value of the moment; user allocators; and argument errors with a real
 * context.
 *
 * Environment and skipping as the other GPU tests (test_fixture_gpu.h): CUPRIM_TEST_SEED,
 * CUPRIM_TEST_QUICK=1 (sizes up to ~2^17, fewer calls), exit 77 without a device. */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostref_reduce.h"     /* hr_identity */
#include "scan/scan_internal.h" /* cuprim__scan_lookback_init: AUTO with a chosen kernel */
#include "test_fixture_gpu.h"
#include "test_scan_init_ref.h"

/* ---------------------------------------------------------------- buffers */

#define MAX_CALLS 64
#define SWEEP_MAX (1u << 21) /* sizes above this: random data only, fewer calls */
/* The largest host-filled input: 2^22 + 5 eight-byte elements (or 2^23 + 3 four-byte ones). */
#define IN_CAP_BYTES ((size_t)40 << 20)
#define OUT_CAP_BYTES ((size_t)200 << 20)
/* Initial values: device slots of 256 bytes in d_in2, staged from pinned h_in2. */
#define INIT_SLOTS 64
#define INIT_SLOT_BYTES 256

static hr_scan_init_ref g_ref[3];

static void teardown(void) {
  for (int i = 0; i < 3; ++i)
    hr_scan_init_ref_free(&g_ref[i]);
}

static void setup(void) {
  for (int i = 0; i < 3; ++i)
    hr_scan_init_ref_init(&g_ref[i]);
}

static const tf_config config = {
    .in_bytes = IN_CAP_BYTES,
    .in2_bytes = INIT_SLOTS * INIT_SLOT_BYTES,
    .h_in2_bytes = INIT_SLOTS * INIT_SLOT_BYTES,
    .out_bytes = OUT_CAP_BYTES,
    .setup = setup,
    .teardown = teardown,
};

static const cuprim_scan_kind kinds[] = {CUPRIM_INCLUSIVE, CUPRIM_EXCLUSIVE};

/* The dtypes are hr_dtypes_32_64: cuprim_scan_init takes F16 and BF16 too (scan.h), but this
 * test's data, special initial values and choices (is_float) are written for 32- and 64-bit
 * ones only. */
static int is_float(cuprim_dtype t) { return t == CUPRIM_F32 || t == CUPRIM_F64; }

/* The look-back kernel's full tile, in elements (scan_lookback.cu). */
static uint64_t lookback_tile(cuprim_dtype t) { return cuprim_dtype_size(t) == 4 ? 8192 : 3072; }

/* Initial-value slot k: its device address and its pinned staging copy. */
static void *init_device(int k) { return tf.d_in2 + (size_t)k * INIT_SLOT_BYTES; }
static unsigned char *init_host(int k) { return tf.h_in2 + (size_t)k * INIT_SLOT_BYTES; }

static void make_reference(hr_scan_init_ref *r, cuprim_dtype t, cuprim_op op, cuprim_scan_kind kind,
                           const void *init, const void *h, uint64_t n) {
  if (hr_scan_init_reference(r, t, op, kind, init, h, n) != 0)
    fail_msg("out of host memory for the reference of %" PRIu64 " elements", n);
}

/* ---------------------------------------------------------------- calls */

#define PUBLIC (-1) /* call.single_block_max_tiles: cuprim_scan_init itself */

typedef struct init_call {
  long single_block_max_tiles; /* PUBLIC, or the forced tuning's value (cuprim__scan_lookback_init)
                                */
  uint64_t small_tiles_max_n;  /* forced tuning */
  int pdl_reset;               /* forced tuning */
  const unsigned char *d_in;   /* the input; in place: copied into the output, which is scanned */
  int in_place;
  const void *d_init; /* device: one element */
  int stage;          /* >= 0: d_init is slot `stage`, written from its pinned copy first */
  uint64_t n;
  cuprim_dtype dtype;
  cuprim_op op;
  cuprim_scan_kind kind;
  const hr_scan_ref *ref; /* what the output must be */
  const char *init_what;  /* where the initial value comes from, for messages */
} init_call;

/* A call of cuprim_scan_init on tf.d_in[0..n), where every call of this program finds its input,
 * from initial-value slot `stage` (-1: the caller points d_init elsewhere). */
static init_call make_call(uint64_t n, cuprim_dtype t, cuprim_op op, cuprim_scan_kind kind,
                           int stage, const hr_scan_ref *ref) {
  return (init_call){.single_block_max_tiles = PUBLIC,
                     .d_in = tf.d_in,
                     .n = n,
                     .dtype = t,
                     .op = op,
                     .kind = kind,
                     .stage = stage,
                     .d_init = stage >= 0 ? init_device(stage) : NULL,
                     .ref = ref,
                     .init_what = "its own slot"};
}

static init_call in_place(init_call c) {
  c.in_place = 1;
  return c;
}

/* The internal entry point with a chosen kernel: one block up to `single_block_max_tiles` tiles
 * (0: always the look-back kernel), half tiles up to small_tiles_max_n elements. */
static init_call forced(init_call c, long single_block_max_tiles, uint64_t small_tiles_max_n,
                        int pdl_reset) {
  c.single_block_max_tiles = single_block_max_tiles;
  c.small_tiles_max_n = small_tiles_max_n;
  c.pdl_reset = pdl_reset;
  return c;
}

static void describe(char *buf, size_t len, const void *p, const char *data, uint64_t seed) {
  const init_call *c = (const init_call *)p;
  char how[160];
  if (c->single_block_max_tiles == PUBLIC)
    snprintf(how, sizeof how, "cuprim_scan_init");
  else
    snprintf(how, sizeof how,
             "cuprim__scan_lookback_init(single_block_max_tiles=%ld small_tiles_max_n=%" PRIu64
             " pdl_reset=%d)",
             c->single_block_max_tiles, c->small_tiles_max_n, c->pdl_reset);
  snprintf(buf, len, "%s %s %s %s n=%" PRIu64 " %s, init from %s, data=%s seed=0x%016" PRIx64, how,
           hr_dtype_name(c->dtype), hr_op_name(c->op), hr_scan_kind_name(c->kind), c->n,
           c->in_place ? "in-place" : "out-of-place", c->init_what, data, seed);
}

static void call_output(const void *p, size_t *bytes, size_t *misalign) {
  const init_call *c = (const init_call *)p;
  *bytes = (size_t)c->n * cuprim_dtype_size(c->dtype);
  *misalign = 0;
}

static cuprim_status call_scan(cuprim_ctx *ctx, const init_call *c, const void *in, void *out,
                               cudaStream_t stream) {
  if (c->single_block_max_tiles == PUBLIC)
    return cuprim_scan_init(ctx, in, out, c->n, c->dtype, c->op, c->kind, c->d_init, stream);
  if (c->n == 0)
    fail_msg("test bug: cuprim__scan_lookback_init with n == 0");
  cuprim__scan_tuning tune = cuprim__scan_tuning_for(ctx->attrs.code_arch);
  tune.single_block_max_tiles = (unsigned)c->single_block_max_tiles;
  tune.small_tiles_max_n = c->small_tiles_max_n;
  tune.pdl_reset = c->pdl_reset;
  /* Internal: validated arguments, the context's device (0) current. */
  return cuprim__scan_lookback_init(ctx, in, out, c->n, c->dtype, c->op, c->kind, c->d_init, stream,
                                    &tune);
}

/* The staged initial value is written on the call's stream just before it: the scan must read it
 * after that write. In place: the input is copied into the output first. */
static cuprim_status issue(cuprim_ctx *ctx, const void *p, void *d_out, cudaStream_t stream) {
  const init_call *c = (const init_call *)p;
  const size_t size = cuprim_dtype_size(c->dtype);
  if (c->stage >= 0)
    TF_CUDA_NOTE(cudaMemcpyAsync(init_device(c->stage), init_host(c->stage), size,
                                 cudaMemcpyHostToDevice, stream),
                 &tf.deferred);
  return call_scan(ctx, c,
                   tf_in_place_input(c->in_place, d_out, c->d_in, (size_t)c->n * size, stream),
                   d_out, stream);
}

TF_SCAN_CHECK(check, init_call)

static const tf_call_ops ops = {sizeof(init_call), "d_out", call_output, issue,
                                describe,          check,   NULL};

static int run_and_check(init_call *calls, int count, cudaStream_t stream, const char *data,
                         uint64_t seed, tf_result *res) {
  const tf_case cs = {data, seed, 0};
  return tf_run_and_check(&ops, tf.ctx, calls, count, stream, &cs, res);
}

/* An initial value drawn like the data of (dtype, op, data kind): full-range integers for SUM
 * and XOR, odd ones for PROD, mostly set bits for AND, mostly clear for OR, floats of the data's
 * range (multiples of 1/8 for exact SUM data, +-1, +-2, +-1/2 for exact PROD data). */
static void draw_init(cuprim_dtype t, cuprim_op op, hr_scan_data d, uint64_t seed, void *init) {
  hr_scan_fill(t, op, d, seed, init, 1);
}

/* ---------------------------------------------------------------- sizes */

/* 1, warp +-1; the single block's limit (2 tiles) and the look-back tile +-1 of either element
 * size; the half-tile limit (2^17) +-1; 2^20 +- 1; primes; seeded random sizes; (full) one
 * size with a thousand look-back tiles. */
static size_t sweep_sizes(cuprim_dtype t, uint64_t *sizes, size_t cap) {
  static const uint64_t full[] = {1,     2,      31,     32,     33,     1023,    1536,
                                  1537,  3071,   3072,   3073,   6143,   6144,    6145,
                                  8191,  8192,   8193,   16383,  16384,  16385,   32769,
                                  65537, 131071, 131072, 131073, 262147, 1000003, 1048575};
  static const uint64_t quick[] = {1, 33, 3073, 6145, 8193, 16385, 65537, 131073};
  const uint64_t large = cuprim_dtype_size(t) == 4 ? (1u << 23) + 3 : (1u << 22) + 5;
  return TF_SWEEP_SIZES(full, quick, 0x1417, 3, large, sizes, cap);
}

/* ---------------------------------------------------------------- the sweep */

/* The calls of one sweep case. refs[0]: the initial value of slot 0; refs[1]: x[k], the input's
 * own element k, read through a pointer into the input. */
static int sweep_calls(init_call *calls, uint64_t n, cuprim_dtype t, cuprim_op op,
                       cuprim_scan_kind kind, uint64_t k, size_t size_index,
                       const hr_scan_ref *const refs[2]) {
  const uint64_t tiles = (n + lookback_tile(t) - 1) / lookback_tile(t);
  int count = 0;
  const init_call c = make_call(n, t, op, kind, 0, refs[0]);
  const int all = !tf.quick || op == CUPRIM_SUM || size_index % 2 == 0;
  calls[count++] = c;
  calls[count++] = in_place(c);
  init_call own = make_call(n, t, op, kind, -1, refs[1]);
  own.d_init = tf.d_in + (size_t)k * cuprim_dtype_size(t);
  own.init_what = "inside the input";
  calls[count++] = own;
  if (n > SWEEP_MAX)
    return count;
  /* The look-back kernel at every size: half tiles (table), full tiles, memset reset in place. */
  calls[count++] = forced(c, 0, 1u << 17, 1);
  if (all) {
    calls[count++] = forced(in_place(c), 0, 0, 0);
    calls[count++] = forced(own, 0, UINT64_MAX, 1);
  }
  /* One block at every size it takes in reasonable time (a thousand tiles). */
  if (tiles <= 1024) {
    calls[count++] = forced(c, 1024, 1u << 17, 1);
    if (all)
      calls[count++] = forced(in_place(own), 1024, 1u << 17, 1);
  }
  return count;
}

/* One sweep case (its input in tf.d_in): an initial value in slot 0 and one inside the input
 * (element k), both kinds. */
static void sweep_case(cuprim_dtype t, cuprim_op op, hr_scan_data d, size_t si, uint64_t n,
                       uint64_t seed, tf_sweep_counts *counts) {
  const size_t esize = cuprim_dtype_size(t);
  draw_init(t, op, d, hr_mix(seed, 1), init_host(0));
  uint64_t state = hr_mix(seed, 2);
  const uint64_t k = hr_below(&state, n);
  for (int ki = 0; ki < 2; ++ki) {
    make_reference(&g_ref[0], t, op, kinds[ki], init_host(0), tf.h_in, n);
    make_reference(&g_ref[1], t, op, kinds[ki], tf.h_in + k * esize, tf.h_in, n);
    const hr_scan_ref *const refs[2] = {&g_ref[0].view, &g_ref[1].view};
    init_call calls[MAX_CALLS];
    tf_result res[MAX_CALLS];
    const int count = sweep_calls(calls, n, t, op, kinds[ki], k, si, refs);
    run_and_check(calls, count, tf.stream, hr_scan_data_name(d), seed, res);
    counts->calls += (unsigned long)count;
    ++counts->cases;
  }
}

static void sweep(cuprim_dtype t) {
  uint64_t sizes[64];
  const size_t nsizes = sweep_sizes(t, sizes, 64);
  tf_scan_sweep(t, sizes, nsizes, SWEEP_MAX, sweep_case);
}

TF_SWEEP_TESTS_32_64(sweep)

/* ---------------------------------------------------------------- special initial values */

/* Writes `bits` to out as an integer of `size` bytes (4: its low 32 bits; two's complement, so a
 * negative value converted to uint64_t gives the bits of the narrower type too). Returns 1. */
static int put_int(void *out, size_t size, uint64_t bits) {
  if (size == 4) {
    const uint32_t v = (uint32_t)bits;
    memcpy(out, &v, 4);
  } else {
    memcpy(out, &bits, 8);
  }
  return 1;
}

/* The bits of a special initial value for (t, op), by number: 0 the identity, 1 zero, 2 the
 * dtype's largest, 3 its lowest, 4 (floats) NaN, 5 (floats) +inf, 6 (floats) -inf, 7 (floats)
 * -0.0. Returns 0 where the value does not apply. */
static int special_init(cuprim_dtype t, cuprim_op op, int which, void *out, const char **name) {
  unsigned char id[8];
  hr_identity(t, op, id);
  const size_t size = cuprim_dtype_size(t);
  memset(out, 0, 8);
  switch (which) {
  case 0:
    memcpy(out, id, size);
    *name = "the identity";
    return 1;
  case 1:
    *name = "zero";
    return 1; /* all-zero bits: 0 and +0.0 */
  case 2:
  case 3: {
    const int hi = which == 2;
    *name = hi ? "the largest value" : "the lowest value";
    switch (t) {
    case CUPRIM_I32:
      return put_int(out, 4, hi ? (uint64_t)INT32_MAX : (uint64_t)INT32_MIN);
    case CUPRIM_U32:
      return put_int(out, 4, hi ? UINT32_MAX : 0);
    case CUPRIM_I64:
      return put_int(out, 8, hi ? (uint64_t)INT64_MAX : (uint64_t)INT64_MIN);
    case CUPRIM_U64:
      return put_int(out, 8, hi ? UINT64_MAX : 0);
    case CUPRIM_F32: {
      const float v = hi ? 3.4028235e38f : -3.4028235e38f;
      memcpy(out, &v, 4);
      return 1;
    }
    default: {
      const double v = hi ? 1.7976931348623157e308 : -1.7976931348623157e308;
      memcpy(out, &v, 8);
      return 1;
    }
    }
  }
  default:
    break;
  }
  if (!is_float(t) || which > 7)
    return 0;
  const double v = which == 4 ? NAN : which == 5 ? INFINITY : which == 6 ? -INFINITY : -0.0;
  *name = which == 4 ? "NaN" : which == 5 ? "+inf" : which == 6 ? "-inf" : "-0.0";
  if (t == CUPRIM_F32) {
    const float f = (float)v;
    memcpy(out, &f, 4);
  } else {
    memcpy(out, &v, 8);
  }
  return 1;
}

/* Whether special value `which` is tested with (t, op): integers take the first four; float MIN
 * and MAX every one; float SUM and PROD only values that keep every result finite (the reference
 * of inexact float data takes finite results only): no NaN or infinity, and for PROD no extreme
 * (its product with data near 1 overflows). */
static int special_applies(cuprim_dtype t, cuprim_op op, int which) {
  if (!is_float(t))
    return which <= 3;
  if (op == CUPRIM_MIN || op == CUPRIM_MAX)
    return 1;
  if (which >= 4 && which <= 6)
    return 0;
  return !(op == CUPRIM_PROD && (which == 2 || which == 3));
}

/* Each special initial value with every dtype, op and kind, on a size for each kernel: the
 * reference says what it must give (a NaN makes every float MIN/MAX output NaN, an infinity is an
 * ordinary value, zero annihilates PROD, the identity gives cuprim_scan's result). */
TF_TEST(test_special_inits) {
  const uint64_t sizes[] = {1, 1000, 70001};
  for (size_t d = 0; d < HR_NUM_DTYPES_32_64; ++d) {
    const cuprim_dtype t = hr_dtypes_32_64[d];
    for (int op = 0; op <= CUPRIM_XOR; ++op) {
      if (!hr_scan_supported(t, (cuprim_op)op))
        continue;
      for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
        if (!tf_shard_case())
          continue;
        const uint64_t n = sizes[si];
        const uint64_t seed = tf_case_seed(0x5BEC, t, (uint64_t)op, n);
        tf_scan_input(t, (cuprim_op)op, HR_SCAN_RANDOM, seed, n, tf.stream);
        for (int which = 0; which < 8; ++which) {
          const char *name = NULL;
          if (!special_applies(t, (cuprim_op)op, which) ||
              !special_init(t, (cuprim_op)op, which, init_host(1), &name))
            continue;
          for (int ki = 0; ki < 2; ++ki) {
            make_reference(&g_ref[0], t, (cuprim_op)op, kinds[ki], init_host(1), tf.h_in, n);
            init_call calls[4];
            tf_result res[4];
            int count = 0;
            const init_call c = make_call(n, t, (cuprim_op)op, kinds[ki], 1, &g_ref[0].view);
            calls[count++] = c;
            calls[count++] = in_place(c);
            calls[count++] = forced(c, 0, 1u << 17, 1);
            calls[count++] = forced(c, 1024, 1u << 17, 1);
            char data[96];
            snprintf(data, sizeof data, "random, init %s", name);
            run_and_check(calls, count, tf.stream, data, seed, res);
          }
        }
      }
    }
  }
}

/* ---------------------------------------------------------------- a scan in two parts */

/* The use cuprim_scan_init exists for: x[0..m) scanned by cuprim_scan, its total reduced on the
 * device (cuprim_reduce into a device slot), and x[m..n) scanned by cuprim_scan_init from that
 * slot; together they must be the scan of x[0..n). Nothing goes through the host between the
 * parts. For every dtype, op and kind, with split points at 0, inside the first tile, at a tile
 * edge and in the middle. */
TF_TEST(test_two_parts) {
  const uint64_t n = tf.quick ? 50001 : 1000003;
  hr_scan_ref full;
  hr_scan_ref_init(&full);
  unsigned char *h_out = (unsigned char *)malloc((size_t)n * 8);
  assert_non_null(h_out);
  for (size_t d = 0; d < HR_NUM_DTYPES_32_64; ++d) {
    const cuprim_dtype t = hr_dtypes_32_64[d];
    const size_t esize = cuprim_dtype_size(t);
    const uint64_t splits[] = {0, 1, 777, lookback_tile(t), n / 2 + 3, n - 1, n};
    for (int op = 0; op <= CUPRIM_XOR; ++op) {
      if (!hr_scan_supported(t, (cuprim_op)op) || !tf_shard_case())
        continue;
      const hr_scan_data data =
          is_float(t) && (op == CUPRIM_SUM || op == CUPRIM_PROD) ? HR_SCAN_EXACT : HR_SCAN_RANDOM;
      const uint64_t seed = tf_case_seed(0x2BA, t, (uint64_t)op, n);
      tf_scan_input(t, (cuprim_op)op, data, seed, n, tf.stream);
      for (int ki = 0; ki < 2; ++ki) {
        if (hr_scan_reference(&full, t, (cuprim_op)op, kinds[ki], tf.h_in, n) != 0)
          fail_msg("out of host memory");
        for (size_t s = 0; s < sizeof splits / sizeof splits[0]; ++s) {
          const uint64_t m = splits[s];
          unsigned char *d_out = tf.out.d + TF_GUARD_BYTES;
          void *d_total = init_device(2);
          cuprim_status st[3];
          st[0] = cuprim_scan(tf.ctx, tf.d_in, d_out, m, t, (cuprim_op)op, kinds[ki], tf.stream);
          st[1] = cuprim_reduce(tf.ctx, tf.d_in, d_total, m, t, (cuprim_op)op, tf.stream);
          st[2] = cuprim_scan_init(tf.ctx, tf.d_in + m * esize, d_out + m * esize, n - m, t,
                                   (cuprim_op)op, kinds[ki], d_total, tf.stream);
          TF_CUDA(
              cudaMemcpyAsync(h_out, d_out, (size_t)n * esize, cudaMemcpyDeviceToHost, tf.stream));
          tf_finish(tf.stream);
          char what[160];
          snprintf(what, sizeof what,
                   "%s %s %s n=%" PRIu64 " split at %" PRIu64 " (%s data, seed 0x%016" PRIx64 ")",
                   hr_dtype_name(t), hr_op_name((cuprim_op)op), hr_scan_kind_name(kinds[ki]), n, m,
                   hr_scan_data_name(data), seed);
          if (st[0] != CUPRIM_SUCCESS || st[1] != CUPRIM_SUCCESS || st[2] != CUPRIM_SUCCESS) {
            tf_failure("%s: cuprim_scan %s, cuprim_reduce %s, cuprim_scan_init %s", what,
                       tu_status_name(st[0]), tu_status_name(st[1]), tu_status_name(st[2]));
            continue;
          }
          uint64_t first = 0, last = 0;
          char why[512];
          const uint64_t wrong = hr_scan_check(&full, h_out, -1, &first, &last, why, sizeof why);
          if (wrong)
            tf_failure("%s: %" PRIu64 " wrong element(s) (%" PRIu64 "..%" PRIu64 "), the first %s",
                       what, wrong, first, last, why);
        }
      }
    }
  }
  free(h_out);
  hr_scan_ref_free(&full);
}

/* ---------------------------------------------------------------- n == 0 */

/* n == 0 succeeds, writes nothing and does not read the initial value, whatever the pointers
 * (NULL, valid, d_init inside d_out). */
TF_TEST(test_empty_input) {
  unsigned char *out = tf_poison_empty();
  for (tf_dtype_op it = {0};
       tf_next_dtype_op(&it, hr_dtypes_32_64, HR_NUM_DTYPES_32_64, hr_scan_supported);)
    for (int ki = 0; ki < 2; ++ki)
      for (int ptrs = 0; ptrs < 4; ++ptrs) {
        const cuprim_dtype t = it.t;
        const cuprim_op op = it.op;
        const void *in = ptrs & 1 ? (const void *)tf.d_in : NULL;
        void *o = ptrs & 2 ? (void *)out : NULL;
        const void *init = ptrs == 0 ? NULL : ptrs == 3 ? (const void *)out : init_device(0);
        const cuprim_status st =
            cuprim_scan_init(tf.ctx, in, o, 0, t, (cuprim_op)op, kinds[ki], init, tf.stream);
        if (st != CUPRIM_SUCCESS)
          tf_failure("cuprim_scan_init %s %s %s n=0 (pointers %d): returned %s", hr_dtype_name(t),
                     hr_op_name((cuprim_op)op), hr_scan_kind_name(kinds[ki]), ptrs,
                     tu_status_name(st));
      }
  tf_check_empty("a call with n == 0");
  tf_check_no_recorded_error("after calls with n == 0");
}

/* ---------------------------------------------------------------- streams */

/* The legacy default stream and the per-thread default stream. */
TF_TEST(test_default_streams) {
  const uint64_t sizes[] = {1000, tf.quick ? 65537u : (1u << 20) + 1};
  for (int si = 0; si < TF_DEFAULT_STREAMS; ++si)
    for (int k = 0; k < 2; ++k) {
      const cudaStream_t stream = tf_default_stream[si];
      const cuprim_dtype t = k ? CUPRIM_I64 : CUPRIM_F32;
      const cuprim_op op = k ? CUPRIM_MIN : CUPRIM_SUM;
      const uint64_t n = sizes[k];
      const uint64_t seed = tf_case_seed(0x57E, t, (uint64_t)si, n);
      tf_scan_input(t, op, HR_SCAN_EXACT, seed, n, stream);
      draw_init(t, op, HR_SCAN_EXACT, hr_mix(seed, 1), init_host(3));
      for (int ki = 0; ki < 2; ++ki) {
        make_reference(&g_ref[0], t, op, kinds[ki], init_host(3), tf.h_in, n);
        init_call calls[3];
        tf_result res[3];
        calls[0] = make_call(n, t, op, kinds[ki], 3, &g_ref[0].view);
        calls[1] = in_place(calls[0]);
        calls[2] = forced(calls[0], 0, 1u << 17, 1);
        run_and_check(calls, 3, stream, tf_default_stream_name[si], seed, res);
      }
    }
}

/* ---------------------------------------------------------------- CUDA graphs */

/* Every call of the graph stages its initial value from pinned memory and reads its input, so a
 * replay scans the data and starts from the initial values of the moment: each round changes
 * both. U32 SUM and F64 MAX, inclusive and exclusive, both kernels, in place and not. */
#define GRAPH_CALLS 12
static hr_scan_init_ref g_graph_refs[GRAPH_CALLS];

static void graph_round(void *p, int count, int round, uint64_t seed, char *data, size_t len) {
  init_call *calls = (init_call *)p;
  const uint64_t n = calls[0].n; /* every call scans tf.d_in[0..n) or a prefix of it */
  const cuprim_dtype t = calls[0].dtype;
  const cuprim_op op = calls[0].op;
  tf_scan_input(t, op, HR_SCAN_RANDOM, seed, n, tf.stream);
  tf_finish(tf.stream);
  for (int i = 0; i < count; ++i) {
    draw_init(t, op, HR_SCAN_RANDOM, hr_mix(seed, (uint64_t)i), init_host(calls[i].stage));
    make_reference(&g_graph_refs[i], t, op, calls[i].kind, init_host(calls[i].stage), tf.h_in,
                   calls[i].n);
    calls[i].ref = &g_graph_refs[i].view;
  }
  snprintf(data, len, "random, graph replay %d", round);
}

static void graph_case(cuprim_dtype t, cuprim_op op) {
  const uint64_t n = tf.quick ? 65537 : (1u << 20) + 1, n_small = 1000;
  init_call calls[GRAPH_CALLS];
  int count = 0;
  for (int ki = 0; ki < 2; ++ki) {
    /* Each call its own initial value (slot `count`); calls[0] scans n elements, as graph_round
     * reads from it. */
    calls[count] = make_call(n, t, op, kinds[ki], count, NULL);
    ++count;
    calls[count] = in_place(make_call(n, t, op, kinds[ki], count, NULL));
    ++count;
    calls[count] = make_call(n_small, t, op, kinds[ki], count, NULL);
    ++count;
    calls[count] = forced(make_call(n_small, t, op, kinds[ki], count, NULL), 0, 1u << 17, 1);
    ++count;
    calls[count] = forced(make_call(20000, t, op, kinds[ki], count, NULL), 64, 1u << 17, 1);
    ++count;
  }
  tf_graph_rounds(&ops, calls, count, n, graph_round);
}

TF_TEST(test_graph_capture) {
  graph_case(CUPRIM_U32, CUPRIM_SUM);
  graph_case(CUPRIM_F64, CUPRIM_MAX);
  for (int i = 0; i < GRAPH_CALLS; ++i)
    hr_scan_init_ref_free(&g_graph_refs[i]);
}

/* ---------------------------------------------------------------- allocators */

/* An allocator test's case: n random elements of t (seed tf_case_seed(salt, t, op, n), into
 * *seed) and a random initial value in slot 0, with the reference of (op, kind) in g_ref[0].
 * Returns the call on them. */
static init_call random_case(cuprim_dtype t, cuprim_op op, cuprim_scan_kind kind, uint64_t salt,
                             uint64_t n, uint64_t *seed) {
  *seed = tf_case_seed(salt, t, op, n);
  tf_scan_input(t, op, HR_SCAN_RANDOM, *seed, n, tf.stream);
  draw_init(t, op, HR_SCAN_RANDOM, *seed, init_host(0));
  make_reference(&g_ref[0], t, op, kind, init_host(0), tf.h_in, n);
  return make_call(n, t, op, kind, 0, &g_ref[0].view);
}

/* The look-back kernel's tile status comes from the context's allocator and goes back to it. */
static void counting_cases(cuprim_ctx *ctx) {
  const uint64_t sizes[] = {1000, tf.quick ? 65537 : (1u << 20) + 1};
  for (int k = 0; k < 2; ++k) {
    uint64_t seed;
    init_call calls[2];
    tf_result res[2];
    calls[0] = random_case(CUPRIM_U64, CUPRIM_SUM, CUPRIM_EXCLUSIVE, 0xA11C, sizes[k], &seed);
    calls[1] = in_place(calls[0]);
    const tf_case cs = {"random, counting allocator", seed, 0};
    tf_run_and_check(&ops, ctx, calls, 2, tf.stream, &cs, res);
  }
}

TF_COUNTING_ALLOCATOR_TEST(counting_cases, "the look-back tile status needs memory")

/* Past the single block, the call needs memory: OUT_OF_MEMORY, nothing written; below, it
 * succeeds without any. */
static void failing_cases(cuprim_ctx *ctx) {
  const uint64_t sizes[] = {1000, (1u << 17) + 1};
  for (int k = 0; k < 2; ++k) {
    uint64_t seed;
    init_call calls[1];
    tf_result res[1];
    const int must_fail[1] = {k == 1};
    calls[0] = random_case(CUPRIM_I32, CUPRIM_MAX, CUPRIM_INCLUSIVE, 0xFA11, sizes[k], &seed);
    const tf_case cs = {"random, failing allocator", seed, 0};
    tf_run_out_of_memory(&ops, ctx, calls, 1, res, must_fail, &cs);
  }
}

TF_FAILING_ALLOCATOR_TEST(failing_cases)

/* ---------------------------------------------------------------- errors with a device */

/* With a real context, invalid and unsupported calls return before any CUDA work. */
TF_TEST(test_errors_with_device) {
  unsigned char *out = tf_poison_inputs(4096, 8192);
  const unsigned char *in = tf.d_in;
  const void *init = init_device(0);
  const cuprim_scan_kind I = CUPRIM_INCLUSIVE, E = CUPRIM_EXCLUSIVE;
  const tf_status_case cases[] = {
      {"NULL ctx", cuprim_scan_init(NULL, in, out, 10, CUPRIM_F32, CUPRIM_SUM, I, init, tf.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"NULL d_init",
       cuprim_scan_init(tf.ctx, in, out, 10, CUPRIM_F32, CUPRIM_SUM, I, NULL, tf.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"d_init + 1 byte",
       cuprim_scan_init(tf.ctx, in, out, 10, CUPRIM_I32, CUPRIM_SUM, E,
                        (const unsigned char *)init + 1, tf.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"d_init = d_out",
       cuprim_scan_init(tf.ctx, in, out, 10, CUPRIM_I32, CUPRIM_SUM, E, out, tf.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"d_init = d_out + 9 elements",
       cuprim_scan_init(tf.ctx, in, out, 10, CUPRIM_U64, CUPRIM_MAX, I, out + 72, tf.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"d_init in the input scanned in place",
       cuprim_scan_init(tf.ctx, out, out, 10, CUPRIM_U32, CUPRIM_XOR, I, out + 4, tf.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"NULL d_in",
       cuprim_scan_init(tf.ctx, NULL, out, 10, CUPRIM_F32, CUPRIM_SUM, I, init, tf.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"kind 2",
       cuprim_scan_init(tf.ctx, in, out, 10, CUPRIM_F32, CUPRIM_SUM, (cuprim_scan_kind)2, init,
                        tf.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"I16", cuprim_scan_init(tf.ctx, in, out, 10, CUPRIM_I16, CUPRIM_SUM, I, init, tf.stream),
       CUPRIM_ERROR_UNSUPPORTED},
      {"XOR on F64",
       cuprim_scan_init(tf.ctx, in, out, 10, CUPRIM_F64, CUPRIM_XOR, E, init, tf.stream),
       CUPRIM_ERROR_UNSUPPORTED},
  };
  TF_CHECK_ARGUMENT_ERRORS(cases);
}

TF_MAIN(&config)
