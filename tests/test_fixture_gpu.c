#include "test_fixture_gpu.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

tf_state tf;

/* ---------------------------------------------------------------- CUDA errors */

int tf_cuda_failed(cudaError_t e, const char *call, const char *file, int line,
                   tf_cuda_error *into) {
  if (e == cudaSuccess)
    return 0;
  (void)cudaGetLastError(); /* a non-sticky error is reported once, here */
  if (into->error == cudaSuccess) {
    into->error = e;
    snprintf(into->what, sizeof into->what, "%s:%d: %s: %s (%s)", file, line, call,
             cudaGetErrorString(e), cudaGetErrorName(e));
  }
  return 1;
}

/* ---------------------------------------------------------------- the fixture */

#define SETUP_ALLOC(call)                                                                          \
  do {                                                                                             \
    if (TF_CUDA_NOTE(call, &tf.setup))                                                             \
      return 0;                                                                                    \
  } while (0)

/* Allocates `bytes` of device memory and `host_bytes` of pinned memory (either may be 0). */
static int alloc_pair(unsigned char **d, size_t bytes, unsigned char **h, size_t host_bytes) {
  if (bytes)
    SETUP_ALLOC(cudaMalloc((void **)d, bytes));
  if (host_bytes)
    SETUP_ALLOC(cudaMallocHost((void **)h, host_bytes));
  return 1;
}

/* tf.shard or tf.part from `read` (the variable `var`, of the form "K/N" or "J/M"), said on stdout
 * where it is set: malformed (every test then fails), or what runs. */
static void deal_read(tf_deal *d, int (*read)(unsigned *, unsigned *), const char *label,
                      const char *var, const char *form, const char *who) {
  d->ok = read(&d->k, &d->n);
  if (!d->ok)
    print_message("%s=\"%s\" is not %s (0 <= %c < %c <= 4096): every test fails\n", var,
                  getenv(var), form, form[0], form[2]);
  else if (d->n > 1)
    print_message("%s: %s=%u/%u: %s run those whose index is %u modulo %u\n", label, var, d->k,
                  d->n, who, d->k, d->n);
}

int tf_group_setup(void **state) {
  (void)state;
  const tf_config *c = tf.config;
  tf.seed = tu_seed();
  tf.quick = tu_quick();
  deal_read(&tf.shard, tu_shard, "shard", "CUPRIM_TEST_SHARD", "K/N",
            "the tests that count their cases");
  deal_read(&tf.part, tu_part, "part", "CUPRIM_TEST_PART", "J/M",
            "the cases that count their parts");
  tf.ctx_status = CUPRIM_ERROR_NO_DEVICE;
  print_message("mode: %s\n", tf.quick ? "quick (CUPRIM_TEST_QUICK)" : "full");
  char reason[256];
  if (!tu_device_available(reason, sizeof reason)) {
    print_message("%s: every test will be skipped\n", reason);
    return 0;
  }
  if (TF_CUDA_NOTE(cudaGetDeviceProperties(&tf.prop, 0), &tf.setup))
    return 0;
  print_message("device 0: %s, sm_%d%d, %d SMs, %zu bytes of shared memory per block (opt-in)\n",
                tf.prop.name, tf.prop.major, tf.prop.minor, tf.prop.multiProcessorCount,
                tf.prop.sharedMemPerBlockOptin);
  tf.ctx_status = cuprim_ctx_create(&tf.ctx, 0, NULL);
  if (TF_CUDA_NOTE(cudaStreamCreateWithFlags(&tf.stream, cudaStreamNonBlocking), &tf.setup))
    return 0;
  tf.out.cap = c->out_bytes;
  tf.out2.cap = c->out2_bytes;
  if (!alloc_pair(&tf.d_in, c->in_bytes, &tf.h_in, c->in_bytes) ||
      !alloc_pair(&tf.d_in2, c->in2_bytes, &tf.h_in2, c->h_in2_bytes) ||
      !alloc_pair(&tf.out.d, c->out_bytes, &tf.out.h, c->out_bytes) ||
      !alloc_pair(&tf.out2.d, c->out2_bytes, &tf.out2.h, c->out2_bytes))
    return 0;
  if (c->setup)
    c->setup();
  return 0;
}

int tf_group_teardown(void **state) {
  (void)state;
  if (tf.stream)
    (void)cudaStreamSynchronize(tf.stream);
  if (tf.config->teardown)
    tf.config->teardown();
  for (int i = 0; i < TF_MAX_SCAN_REFS && tf.config->scan_refs[i]; ++i)
    hr_scan_ref_free(tf.config->scan_refs[i]);
  if (tf.ctx)
    (void)cuprim_ctx_destroy(tf.ctx);
  unsigned char *device[] = {tf.d_in, tf.d_in2, tf.out.d, tf.out2.d};
  unsigned char *host[] = {tf.h_in, tf.h_in2, tf.out.h, tf.out2.h};
  for (size_t i = 0; i < sizeof device / sizeof device[0]; ++i) {
    if (device[i])
      (void)cudaFree(device[i]);
    if (host[i])
      (void)cudaFreeHost(host[i]);
  }
  if (tf.stream)
    (void)cudaStreamDestroy(tf.stream);
  return 0;
}

int tf_main(const tf_config *config) {
  /* Last, so that it sees what every other test may have left behind. */
  static const struct CMUnitTest last = {"test_no_cuda_error_left", tf_test_no_cuda_error_left,
                                         NULL, NULL, NULL};
  tf.config = config; /* read by the group setup, which a listing (CUPRIM_TEST_LIST) never runs */
  return tu_main(tf_group_setup, tf_group_teardown, &last, 1);
}

void tf_begin(void) {
  TU_SKIP_WITHOUT_DEVICE();
  tf.fails = 0;
  tf.shard.dealt = tf.shard.ran = tf.part.dealt = tf.part.ran = 0;
  tf.part_index = 0;
  tf.shard_at = 0;
  tf.deferred.error = cudaSuccess;
  if (!tf.shard.ok)
    fail_msg("CUPRIM_TEST_SHARD=\"%s\" is not K/N (0 <= K < N <= 4096)",
             getenv("CUPRIM_TEST_SHARD"));
  if (!tf.part.ok)
    fail_msg("CUPRIM_TEST_PART=\"%s\" is not J/M (0 <= J < M <= 4096)", getenv("CUPRIM_TEST_PART"));
  if (tf.setup.error != cudaSuccess)
    fail_msg("group setup failed: %s", tf.setup.what);
  if (tf.ctx_status != CUPRIM_SUCCESS)
    fail_msg("cuprim_ctx_create(device 0) failed: %s (%s); last CUDA error %s",
             tu_status_name(tf.ctx_status), cuprim_status_string(tf.ctx_status),
             cudaGetErrorName(cuprim_last_cuda_error()));
}

void tf_failure(const char *fmt, ...) {
  if (tf.fails < TF_MAX_PRINTED) {
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    print_error("FAILED: %s\n", buf);
  } else if (tf.fails == TF_MAX_PRINTED) {
    print_error("FAILED: ... (further failures of this test are counted, not printed)\n");
  }
  ++tf.fails;
}

/* With sharding: the case that has been running since tf.shard_at ends (the last one dealt:
 * index tf.shard.dealt - 1); named if it was slow. */
static void shard_case_done(void) {
  if (tf.shard.n > 1 && tf.shard_at > 0) {
    const double s = tf_now_s() - tf.shard_at;
    if (s > TF_SLOW_CASE_S) {
      print_message("shard %u/%u: case %lu took %.1f s\n", tf.shard.k, tf.shard.n,
                    tf.shard.dealt - 1, s);
      fflush(stdout);
    }
  }
  tf.shard_at = 0;
}

/* The one of d's items whose index is `index`: 1 if this process runs it (index K modulo N). */
static int deal_one(tf_deal *d, unsigned long index) {
  const int mine = d->n <= 1 || index % d->n == d->k;
  ++d->dealt;
  d->ran += (unsigned long)mine;
  return mine;
}

int tf_shard_case(void) {
  shard_case_done();
  const int mine = deal_one(&tf.shard, tf.shard.dealt);
  if (mine)
    tf.shard_at = tf_now_s();
  tf.part_index = 0;
  return mine;
}

int tf_shard_part(void) { return deal_one(&tf.part, tf.part_index++); }

/* With d's variable set (n > 1): how many of the test's cases or parts ran, or that it has none
 * (it ran whole). */
static void say_ran(const tf_deal *d, const char *label, const char *of, const char *noun,
                    const char *none) {
  if (d->n <= 1)
    return;
  if (d->dealt)
    print_message("%s %u/%u: ran %lu of %s%lu %s\n", label, d->k, d->n, d->ran, of, d->dealt, noun);
  else
    print_message("%s %u/%u: %s\n", label, d->k, d->n, none);
}

void tf_end(void) {
  shard_case_done();
  say_ran(&tf.shard, "shard", "the test's ", "cases",
          "the test does not count its cases; it ran whole");
  say_ran(&tf.part, "part", "the ", "parts of the cases run",
          "the test's cases have no parts; they ran whole");
  if (tf.fails)
    fail_msg("%d check(s) failed (base seed CUPRIM_TEST_SEED=0x%" PRIx64 ")", tf.fails, tf.seed);
}

uint64_t tf_case_seed(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  return hr_mix(hr_mix(hr_mix(hr_mix(tf.seed, a), b), c), d);
}

void tf_finish(cudaStream_t stream) {
  TF_CUDA(cudaStreamSynchronize(stream)); /* a fault in a kernel shows up here */
  TF_CUDA(cudaGetLastError());
}

/* 1 if [p, p + bytes) lies in the `cap` bytes at base. */
static int fits(const unsigned char *p, size_t bytes, const unsigned char *base, size_t cap) {
  return base && p >= base && p <= base + cap && bytes <= cap - (size_t)(p - base);
}

void tf_upload(void *d, const void *h, size_t bytes, cudaStream_t stream) {
  const unsigned char *p = (const unsigned char *)d;
  const size_t cap2 = tf.config->in2_bytes;
  if (!fits(p, bytes, tf.d_in, tf.config->in_bytes) && !fits(p, bytes, tf.d_in2, cap2))
    fail_msg("test bug: %zu bytes do not fit in the input buffers", bytes);
  if (bytes)
    TF_CUDA(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, stream));
}

int tf_next_dtype_op(tf_dtype_op *it, const cuprim_dtype *dtypes, size_t n,
                     int (*supported)(cuprim_dtype t, cuprim_op op)) {
  const size_t nops = (size_t)CUPRIM_XOR + 1;
  while (it->next < n * nops) {
    const size_t d = it->next / nops;
    const int op = (int)(it->next % nops);
    ++it->next;
    if (supported(dtypes[d], (cuprim_op)op)) {
      it->t = dtypes[d];
      it->op = (cuprim_op)op;
      return 1;
    }
  }
  return 0;
}

void tf_scan_input(cuprim_dtype t, cuprim_op op, hr_scan_data data, uint64_t seed, uint64_t n,
                   cudaStream_t stream) {
  hr_scan_fill(t, op, data, seed, tf.h_in, n);
  tf_upload(tf.d_in, tf.h_in, n * cuprim_dtype_size(t), stream);
}

void tf_reduce_input(cuprim_dtype t, cuprim_op op, hr_data_kind kind, uint64_t seed, uint64_t n,
                     cudaStream_t stream) {
  hr_reduce_fill(t, op, kind, seed, tf.h_in, n);
  tf_upload(tf.d_in, tf.h_in, n * cuprim_dtype_size(t), stream);
}

void tf_hist_input(const hr_hist_bins *b, cuprim_dtype t, hr_hist_data data, uint64_t seed,
                   uint64_t n, cudaStream_t stream) {
  hr_hist_fill(b, t, data, seed, tf.h_in, n);
  tf_upload(tf.d_in, tf.h_in, n * cuprim_dtype_size(t), stream);
}

size_t tf_sizes(const uint64_t *base, size_t nbase, uint64_t salt, int randoms, double top,
                uint64_t *sizes, size_t cap) {
  size_t k = 0;
  for (size_t i = 0; i < nbase && k < cap; ++i)
    sizes[k++] = base[i];
  uint64_t s = hr_mix(tf.seed, salt);
  for (int i = 0; i < randoms && k < cap; ++i)
    sizes[k++] = (uint64_t)exp2(1.0 + hr_unit(&s) * (top - 1.0));
  return k;
}

size_t tf_sweep_sizes(const uint64_t *full, size_t nfull, const uint64_t *quick, size_t nquick,
                      uint64_t salt, int full_randoms, uint64_t large, uint64_t *sizes,
                      size_t cap) {
  size_t k = tf.quick ? tf_sizes(quick, nquick, salt, 1, 17.0, sizes, cap)
                      : tf_sizes(full, nfull, salt, full_randoms, 21.0, sizes, cap);
  if (!tf.quick && large && k < cap)
    sizes[k++] = large;
  return k;
}

const cudaStream_t tf_default_stream[TF_DEFAULT_STREAMS] = {0, cudaStreamPerThread};
const char *const tf_default_stream_name[TF_DEFAULT_STREAMS] = {"legacy default stream",
                                                                "per-thread default stream"};

int tf_next_stream_case(tf_stream_case *c) {
  static const cuprim_dtype dtypes[2] = {CUPRIM_F32, CUPRIM_I64};
  if (c->next >= TF_DEFAULT_STREAMS * 2 * 2)
    return 0;
  c->si = c->next / 4;
  c->d = c->next / 2 % 2;
  c->stream = tf_default_stream[c->si];
  c->name = tf_default_stream_name[c->si];
  c->t = dtypes[c->d];
  c->n = c->next % 2 == 0 ? 1000 : tf.quick ? 65537u : (1u << 20) + 1;
  ++c->next;
  return 1;
}

size_t tf_begin_large(const char *what, size_t need) {
  tf_begin();
  if (tf.quick) {
    print_message("[  SKIP    ] %s: skipped in quick mode (CUPRIM_TEST_QUICK)\n", what);
    skip();
  }
  size_t free_bytes = 0, total_bytes = 0;
  TF_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < need) {
    print_message("[  SKIP    ] %s: %.1f GiB free on the device, %.1f GiB needed\n", what,
                  free_bytes / TF_GIB, need / TF_GIB);
    skip();
  }
  return free_bytes;
}

unsigned char *tf_alloc_guarded(size_t bytes) {
  unsigned char *d_slot = NULL;
  TF_CUDA(cudaMalloc((void **)&d_slot, bytes + 2 * TF_GUARD_BYTES));
  return d_slot;
}

void tf_check_large_guards(const unsigned char *d_slot, size_t bytes, const char *what) {
  unsigned char guards[2 * TF_GUARD_BYTES];
  TF_CUDA(cudaMemcpy(guards, d_slot, TF_GUARD_BYTES, cudaMemcpyDeviceToHost));
  TF_CUDA(cudaMemcpy(guards + TF_GUARD_BYTES, d_slot + TF_GUARD_BYTES + bytes, TF_GUARD_BYTES,
                     cudaMemcpyDeviceToHost));
  const size_t bad = tu_pattern_mismatch(guards, sizeof guards, TF_POISON);
  if (bad != sizeof guards)
    tf_failure("%s: wrote %s d_out (guard byte %zu)", what,
               bad < TF_GUARD_BYTES ? "before" : "past", bad);
}

tf_large_u32 tf_begin_large_u32(const char *what, size_t need, uint64_t n) {
  tf_begin_large(what, need);
  const size_t bytes = n * sizeof(uint32_t);
  tf_large_u32 L = {tf_context(NULL), NULL, NULL, NULL};
  TF_CUDA(cudaMalloc((void **)&L.d_in, bytes));
  L.d_slot = tf_alloc_guarded(bytes);
  L.d_out = (uint32_t *)(void *)(L.d_slot + TF_GUARD_BYTES);
  return L;
}

void tf_end_large_u32(const tf_large_u32 *L) {
  TF_CUDA(cudaFree(L->d_in));
  TF_CUDA(cudaFree(L->d_slot));
  assert_int_equal(cuprim_ctx_destroy(L->ctx), CUPRIM_SUCCESS);
  tf_end();
}

const uint64_t *tf_pick(const uint64_t *full, size_t nfull, const uint64_t *quick, size_t nquick,
                        size_t *n) {
  *n = tf.quick ? nquick : nfull;
  return tf.quick ? quick : full;
}

double tf_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---------------------------------------------------------------- special float data */

const char *tf_special_name(tf_special sp) {
  static const char *const names[TF_SPECIALS] = {"NaN first",  "NaN last",      "NaN middle",
                                                 "NaN random", "two NaNs",      "-NaN",
                                                 "all NaN",    "inf that wins", "inf that loses"};
  return (unsigned)sp < TF_SPECIALS ? names[sp] : "special(?)";
}

static void put_float(cuprim_dtype t, void *h, uint64_t i, double v) {
  hr_store_float(t, h, i, v); /* F32, F64, F16, BF16 */
}

void tf_put_special(cuprim_dtype t, void *h, uint64_t n, tf_special sp, cuprim_op op,
                    uint64_t *state) {
  const double qnan = (double)NAN, inf = (double)INFINITY;
  const double wins = op == CUPRIM_MIN ? -inf : inf;
  switch (sp) {
  case TF_NAN_FIRST:
    put_float(t, h, 0, qnan);
    break;
  case TF_NAN_LAST:
    put_float(t, h, n - 1, qnan);
    break;
  case TF_NAN_MIDDLE:
    put_float(t, h, n / 2, qnan);
    break;
  case TF_NAN_RANDOM:
    put_float(t, h, hr_below(state, n), qnan);
    break;
  case TF_NAN_TWO:
    put_float(t, h, hr_below(state, n), qnan);
    put_float(t, h, hr_below(state, n), qnan);
    break;
  case TF_NAN_NEGATIVE:
    put_float(t, h, hr_below(state, n), copysign(qnan, -1.0));
    break;
  case TF_NAN_ALL:
    for (uint64_t i = 0; i < n; ++i)
      put_float(t, h, i, qnan);
    break;
  case TF_INF_WINS:
    put_float(t, h, hr_below(state, n), wins);
    break;
  case TF_INF_LOSES:
    put_float(t, h, hr_below(state, n), -wins);
    break;
  default:
    break;
  }
}

void tf_special_cases(void (*fill)(cuprim_dtype t, cuprim_op op, uint64_t seed, void *h,
                                   uint64_t n),
                      void (*run)(cuprim_dtype t, cuprim_op op, uint64_t n, tf_special sp,
                                  uint64_t seed)) {
  static const uint64_t full[] = {1, 2, 33, 256, 257, 4097, 65537, 1000003};
  static const uint64_t quick[] = {1, 2, 33, 257, 4097, 65537};
  size_t nsizes = 0;
  const uint64_t *sizes = TF_PICK(full, quick, &nsizes);
  for (int ti = 0; ti < HR_NUM_FLOAT_DTYPES; ++ti)
    for (int op = CUPRIM_MIN; op <= CUPRIM_MAX; ++op)
      for (size_t k = 0; k < nsizes; ++k)
        for (int sp = 0; sp < TF_SPECIALS; ++sp) {
          if (!tf_shard_case())
            continue;
          const cuprim_dtype t = hr_float_dtypes[ti];
          const uint64_t n = sizes[k];
          const uint64_t seed = tf_case_seed(0x4A4, t, (uint64_t)op * 16 + (uint64_t)sp, n);
          uint64_t s = seed;
          fill(t, (cuprim_op)op, seed, tf.h_in, n);
          tf_put_special(t, tf.h_in, n, (tf_special)sp, (cuprim_op)op, &s);
          tf_upload(tf.d_in, tf.h_in, n * cuprim_dtype_size(t), tf.stream);
          run(t, (cuprim_op)op, n, (tf_special)sp, seed);
        }
}

/* ---------------------------------------------------------------- output slots */

static size_t round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }

tf_slot tf_slot_at(size_t at, size_t out_bytes, size_t misalign) {
  tf_slot s;
  s.at = at;
  s.out_at = TF_GUARD_BYTES + misalign;
  s.out_bytes = out_bytes;
  s.span = round_up(s.out_at + out_bytes + TF_GUARD_BYTES, 256);
  return s;
}

void *tf_slot_device(const tf_region *rg, const tf_slot *s) { return rg->d + s->at + s->out_at; }

const unsigned char *tf_slot_host(const tf_region *rg, const tf_slot *s) {
  return rg->h + s->at + s->out_at;
}

int tf_check_guards(const tf_region *rg, const tf_slot *s, const char *what, const char *out) {
  const unsigned char *slot = rg->h + s->at;
  size_t bad = tu_pattern_mismatch(slot, s->out_at, TF_POISON);
  if (bad != s->out_at) {
    tf_failure("%s: wrote before %s (guard byte %s-%zu is 0x%02x)", what, out, out, s->out_at - bad,
               slot[bad]);
    return 0;
  }
  const unsigned char *tail = slot + s->out_at + s->out_bytes;
  const size_t tail_bytes = s->span - s->out_at - s->out_bytes;
  bad = tu_pattern_mismatch(tail, tail_bytes, TF_POISON);
  if (bad != tail_bytes) {
    tf_failure("%s: wrote past the end of %s (guard byte %s+%zu is 0x%02x)", what, out, out,
               s->out_bytes + bad, tail[bad]);
    return 0;
  }
  return 1;
}

int tf_check_untouched(const tf_region *rg, const tf_slot *s, const char *what) {
  const size_t bad = tu_pattern_mismatch(rg->h + s->at, s->span, TF_POISON);
  if (bad != s->span) {
    tf_failure("%s: returned an error but wrote its output slot (byte %zu)", what, bad);
    return 0;
  }
  return 1;
}

void tf_check_poisoned(const void *d, unsigned char *h, size_t bytes, cudaStream_t stream,
                       const char *what, const char *name) {
  TF_CUDA(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, stream));
  tf_finish(stream);
  const size_t bad = tu_pattern_mismatch(h, bytes, TF_POISON);
  if (bad != bytes)
    tf_failure("%s wrote %s (byte %zu)", what, name, bad);
}

/* ---------------------------------------------------------------- calls */

const void *tf_call_at(const tf_call_ops *ops, const void *calls, int i) {
  return (const unsigned char *)calls + (size_t)i * ops->size;
}

static tf_slot slot_of(const tf_call_ops *ops, const void *call, size_t at) {
  size_t bytes = 0, misalign = 0;
  ops->output(call, &bytes, &misalign);
  return tf_slot_at(at, bytes, misalign);
}

size_t tf_layout(const tf_call_ops *ops, const void *calls, int count, const tf_region *rg,
                 tf_result *res) {
  size_t used = 0;
  for (int i = 0; i < count; ++i) {
    res[i].slot = slot_of(ops, tf_call_at(ops, calls, i), used);
    res[i].ok = 0;
    res[i].hash = 0;
    used += res[i].slot.span;
  }
  if (used > rg->cap)
    fail_msg("test bug: %d calls need %zu bytes of output slots, the region has %zu", count, used,
             rg->cap);
  return used;
}

const void *tf_in_place_input(int in_place, void *d_out, const void *d_in, size_t bytes,
                              cudaStream_t stream) {
  if (!in_place)
    return d_in;
  if (bytes)
    TF_CUDA_NOTE(cudaMemcpyAsync(d_out, d_in, bytes, cudaMemcpyDeviceToDevice, stream),
                 &tf.deferred);
  return d_out;
}

void tf_fill_garbage(void *d_out, int garbage, size_t bytes, cudaStream_t stream) {
  if (garbage >= 0 && garbage != TF_POISON)
    TF_CUDA_NOTE(cudaMemsetAsync(d_out, garbage, bytes, stream), &tf.deferred);
}

int tf_garbage_byte(int garbage) { return garbage >= 0 ? garbage : TF_POISON; }

void tf_issue(const tf_call_ops *ops, cuprim_ctx *ctx, const void *calls, int i,
              const tf_region *rg, tf_result *res, cudaStream_t stream) {
  res[i].st = ops->issue(ctx, tf_call_at(ops, calls, i), tf_slot_device(rg, &res[i].slot), stream);
  if (tf.deferred.error != cudaSuccess)
    fail_msg("%s", tf.deferred.what);
}

void tf_poison(const tf_region *rg, size_t bytes, cudaStream_t stream) {
  TF_CUDA(cudaMemsetAsync(rg->d, TF_POISON, bytes, stream));
}

void tf_copy_back(const tf_region *rg, size_t bytes, cudaStream_t stream) {
  TF_CUDA(cudaMemcpyAsync(rg->h, rg->d, bytes, cudaMemcpyDeviceToHost, stream));
}

void tf_enqueue(const tf_call_ops *ops, cuprim_ctx *ctx, const void *calls, int count,
                const tf_region *rg, tf_result *res, cudaStream_t stream) {
  const size_t used = tf_layout(ops, calls, count, rg, res);
  tf_poison(rg, used, stream);
  for (int i = 0; i < count; ++i)
    tf_issue(ops, ctx, calls, i, rg, res, stream);
  tf_copy_back(rg, used, stream);
}

int tf_run_and_check(const tf_call_ops *ops, cuprim_ctx *ctx, const void *calls, int count,
                     cudaStream_t stream, const tf_case *cs, tf_result *res) {
  const tf_region *rg = &tf.out;
  int passed = 0;
  for (int i = 0; i < count;) {
    /* As many calls as the region holds (at least one: tf_layout fails a call that never fits). */
    size_t used = 0;
    int j = i;
    while (j < count) {
      const size_t span = slot_of(ops, tf_call_at(ops, calls, j), 0).span;
      if (j > i && used + span > rg->cap)
        break;
      used += span;
      ++j;
    }
    tf_enqueue(ops, ctx, tf_call_at(ops, calls, i), j - i, rg, res + i, stream);
    tf_finish(stream);
    for (int k = i; k < j; ++k)
      passed += tf_check(ops, rg, tf_call_at(ops, calls, k), &res[k], cs);
    i = j;
  }
  return passed;
}

cudaStream_t tf_new_stream(void) {
  cudaStream_t s = NULL;
  TF_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return s;
}

void tf_run_two_streams(const tf_call_ops *ops, cuprim_ctx *ctx, int count, const void *calls_a,
                        const tf_case *cs_a, cudaStream_t stream_a, const void *calls_b,
                        const tf_case *cs_b, cudaStream_t stream_b) {
  tf_result ra[TF_MAX_BATCH], rb[TF_MAX_BATCH];
  if (count > TF_MAX_BATCH)
    fail_msg("test bug: %d calls on each of two streams, at most %d", count, TF_MAX_BATCH);
  const size_t used_a = tf_layout(ops, calls_a, count, &tf.out, ra);
  const size_t used_b = tf_layout(ops, calls_b, count, &tf.out2, rb);
  tf_poison(&tf.out, used_a, stream_a);
  tf_poison(&tf.out2, used_b, stream_b);
  for (int i = 0; i < count; ++i) {
    tf_issue(ops, ctx, calls_a, i, &tf.out, ra, stream_a);
    tf_issue(ops, ctx, calls_b, i, &tf.out2, rb, stream_b);
  }
  tf_copy_back(&tf.out, used_a, stream_a);
  tf_copy_back(&tf.out2, used_b, stream_b);
  tf_finish(stream_a);
  tf_finish(stream_b);
  for (int i = 0; i < count; ++i) {
    tf_check(ops, &tf.out, tf_call_at(ops, calls_a, i), &ra[i], cs_a);
    tf_check(ops, &tf.out2, tf_call_at(ops, calls_b, i), &rb[i], cs_b);
  }
}

void tf_run_stream_pair(const tf_call_ops *ops, int count, const void *calls_a, const char *data_a,
                        uint64_t seed_a, const void *calls_b, const char *data_b, uint64_t seed_b,
                        cudaStream_t other) {
  char name_a[128], name_b[128];
  snprintf(name_a, sizeof name_a, "%s, stream A of two", data_a);
  snprintf(name_b, sizeof name_b, "%s, stream B of two", data_b);
  const tf_case cs_a = {name_a, seed_a, 0}, cs_b = {name_b, seed_b, 0};
  tf_run_two_streams(ops, tf.ctx, count, calls_a, &cs_a, tf.stream, calls_b, &cs_b, other);
}

void tf_concurrent_streams(const tf_call_ops *ops, cuprim_dtype t, uint64_t n, int rounds,
                           const char *data,
                           void (*fill)(cuprim_dtype t, uint64_t seed, void *h, uint64_t n),
                           int (*make)(int round, int side, cuprim_dtype t, const void *h,
                                       const unsigned char *d, uint64_t n, void *calls)) {
  const size_t bytes = n * cuprim_dtype_size(t);
  assert_true(2 * bytes <= tf.config->in_bytes);
  unsigned char *h_a = tf.h_in, *h_b = tf.h_in + bytes;
  unsigned char *calls_a = (unsigned char *)malloc(TF_MAX_BATCH * ops->size);
  unsigned char *calls_b = (unsigned char *)malloc(TF_MAX_BATCH * ops->size);
  assert_non_null(calls_a);
  assert_non_null(calls_b);
  cudaStream_t other = tf_new_stream();
  for (int round = 0; round < rounds; ++round) {
    const uint64_t seed_a = tf_case_seed(0xC0C, 1, (uint64_t)round, n);
    const uint64_t seed_b = tf_case_seed(0xC0C, 2, (uint64_t)round, n);
    fill(t, seed_a, h_a, n);
    fill(t, seed_b, h_b, n);
    tf_upload(tf.d_in, h_a, bytes, tf.stream);
    tf_upload(tf.d_in2, h_b, bytes, other);
    const int count = make(round, 0, t, h_a, tf.d_in, n, calls_a);
    if (make(round, 1, t, h_b, tf.d_in2, n, calls_b) != count)
      fail_msg("test bug: the two streams of a round make different numbers of calls");
    tf_run_stream_pair(ops, count, calls_a, data, seed_a, calls_b, data, seed_b, other);
  }
  TF_CUDA(cudaStreamDestroy(other));
  free(calls_a);
  free(calls_b);
}

int tf_passed(tf_result *r, const tf_case *cs, const void *out) {
  if (cs->want_hash)
    r->hash = hr_hash_bytes(out, r->slot.out_bytes);
  return 1;
}

void tf_scan_reference(hr_scan_ref *r, cuprim_dtype t, cuprim_op op, cuprim_scan_kind kind,
                       const void *h, uint64_t n) {
  if (hr_scan_reference(r, t, op, kind, h, n) != 0)
    fail_msg("out of host memory for the reference of %" PRIu64 " elements", n);
}

int tf_check_scan(const hr_scan_ref *ref, uint64_t n, cuprim_dtype t, cuprim_op op,
                  cuprim_scan_kind kind, const tf_region *rg, tf_result *r, const tf_case *cs,
                  const char *what) {
  char why[512];
  if (ref->n != n || ref->dtype != t || ref->op != op || ref->kind != kind)
    fail_msg("test bug: the reference does not match the call %s", what);
  const unsigned char *out = tf_slot_host(rg, &r->slot);
  uint64_t first = 0, last = 0;
  const uint64_t wrong = hr_scan_check(ref, out, TF_POISON, &first, &last, why, sizeof why);
  if (wrong) {
    tf_failure("%s: %" PRIu64 " wrong element(s) (indices %" PRIu64 "..%" PRIu64 "), the first %s",
               what, wrong, first, last, why);
    return 0;
  }
  return tf_passed(r, cs, out);
}

void tf_scan_sweep(cuprim_dtype t, const uint64_t *sizes, size_t nsizes, uint64_t random_only_above,
                   void (*run)(cuprim_dtype t, cuprim_op op, hr_scan_data data, size_t size_index,
                               uint64_t n, uint64_t seed, tf_sweep_counts *counts)) {
  tf_sweep_counts counts = {0, 0};
  for (tf_dtype_op it = {0}; tf_next_dtype_op(&it, &t, 1, hr_scan_supported);)
    for (int d = 0; d < HR_SCAN_DATA_KINDS; ++d)
      if (hr_scan_data_applies(t, it.op, (hr_scan_data)d) && !(tf.quick && d == HR_SCAN_CONSTANT))
        for (size_t k = 0; k < nsizes; ++k)
          if ((d == HR_SCAN_RANDOM || sizes[k] <= random_only_above) && tf_shard_case()) {
            const uint64_t seed = tf_case_seed(t, (uint64_t)it.op, (uint64_t)d, sizes[k]);
            tf_scan_input(t, it.op, (hr_scan_data)d, seed, sizes[k], tf.stream);
            run(t, it.op, (hr_scan_data)d, k, sizes[k], seed, &counts);
          }
  print_message("%s: %lu cases, %lu calls\n", hr_dtype_name(t), counts.cases, counts.calls);
}

int tf_check(const tf_call_ops *ops, const tf_region *rg, const void *call, tf_result *r,
             const tf_case *cs) {
  char what[512];
  ops->describe(what, sizeof what, call, cs->data, cs->seed);
  r->ok = 0;
  if (r->st != CUPRIM_SUCCESS)
    tf_failure("%s: returned %s (last CUDA error %s)", what, tu_status_name(r->st),
               cudaGetErrorName(cuprim_last_cuda_error()));
  else if (tf_check_guards(rg, &r->slot, what, ops->out_name))
    r->ok = ops->check(rg, call, r, cs, what);
  return r->ok;
}

/* What tf_poison_inputs poisoned, for tf_check_argument_errors. */
static size_t poisoned_in_bytes, poisoned_out_bytes;

unsigned char *tf_poison_inputs(size_t in_bytes, size_t out_bytes) {
  poisoned_in_bytes = in_bytes;
  poisoned_out_bytes = out_bytes;
  TF_CUDA(cudaMemsetAsync(tf.d_in, TF_POISON, in_bytes, tf.stream));
  tf_poison(&tf.out, out_bytes, tf.stream);
  tf_finish(tf.stream);
  return tf.out.d + TF_GUARD_BYTES;
}

static void check_error_status(const char *what, cuprim_status got, cuprim_status want) {
  if (got != want)
    tf_failure("%s: expected %s, got %s", what, tu_status_name(want), tu_status_name(got));
}

/* The end of an argument-error test, once every status is checked: the calls wrote nothing into
 * what tf_poison_inputs poisoned and left no CUDA error behind. */
static void check_nothing_done(void) {
  const size_t in_bytes = poisoned_in_bytes, out_bytes = poisoned_out_bytes;
  const char *what = "a call with invalid or unsupported arguments";
  tf_check_poisoned(tf.out.d, tf.out.h, out_bytes, tf.stream, what, "its output");
  tf_check_poisoned(tf.d_in, tf.h_in, in_bytes, tf.stream, what, "into d_in");
  tf_check_no_recorded_error("after argument errors");
}

void tf_check_argument_errors(const tf_status_case *cases, size_t count) {
  for (size_t i = 0; i < count; ++i)
    check_error_status(cases[i].what, cases[i].got, cases[i].want);
  check_nothing_done();
}

void tf_check_error_calls(const tf_call_ops *ops, const tf_error_call *cases, size_t count) {
  for (size_t i = 0; i < count; ++i)
    check_error_status(cases[i].what,
                       ops->issue(cases[i].ctx, cases[i].call, cases[i].out, tf.stream),
                       cases[i].want);
  check_nothing_done();
}

#define EMPTY_BYTES (4 * TF_GUARD_BYTES)

unsigned char *tf_poison_empty(void) {
  TF_CUDA(cudaMemsetAsync(tf.out.d, TF_POISON, EMPTY_BYTES, tf.stream));
  tf_finish(tf.stream);
  return tf.out.d + TF_GUARD_BYTES;
}

void tf_check_empty(const char *what) {
  tf_check_poisoned(tf.out.d, tf.out.h, EMPTY_BYTES, tf.stream, what,
                    "device memory (from d_out - 256)");
}

void tf_check_no_recorded_error(const char *after) {
  if (cuprim_last_cuda_error() != cudaSuccess)
    tf_failure("cuprim_last_cuda_error() is %s %s", cudaGetErrorName(cuprim_last_cuda_error()),
               after);
}

/* ---------------------------------------------------------------- CUDA graphs */

cudaGraph_t tf_capture(const tf_call_ops *ops, cuprim_ctx *ctx, const void *calls, int count,
                       const tf_region *rg, tf_result *res, cudaStream_t stream, size_t *used) {
  *used = tf_layout(ops, calls, count, rg, res);
  tf_poison(rg, *used, stream);
  tf_finish(stream);
  const int fails_before = tf.fails;
  cudaGraph_t graph = NULL;
  tf.deferred.error = cudaSuccess;
  TF_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < count; ++i)
    res[i].st =
        ops->issue(ctx, tf_call_at(ops, calls, i), tf_slot_device(rg, &res[i].slot), stream);
  const cudaError_t end = cudaStreamEndCapture(stream, &graph); /* always end the capture */
  for (int i = 0; i < count; ++i)
    if (res[i].st != CUPRIM_SUCCESS) {
      char what[512];
      ops->describe(what, sizeof what, tf_call_at(ops, calls, i), "-", 0);
      tf_failure("%s: under stream capture: %s (last CUDA error %s)", what,
                 tu_status_name(res[i].st), cudaGetErrorName(cuprim_last_cuda_error()));
    }
  if (tf.deferred.error != cudaSuccess)
    tf_failure("under stream capture: %s", tf.deferred.what);
  tf.deferred.error = cudaSuccess;
  if (end != cudaSuccess)
    tf_failure("cudaStreamEndCapture: %s (%s)", cudaGetErrorString(end), cudaGetErrorName(end));
  if (tf.fails != fails_before) {
    (void)cudaGetLastError();
    if (graph)
      (void)cudaGraphDestroy(graph);
    return NULL;
  }
  /* Capturing ran nothing: the outputs still hold the poison. */
  tf_check_poisoned(rg->d, rg->h, *used, stream, "stream capture (before any replay)",
                    "output memory");
  return graph;
}

void tf_replay(cudaGraphExec_t exec, const tf_region *rg, size_t used, cudaStream_t stream) {
  tf_poison(rg, used, stream);
  TF_CUDA(cudaGraphLaunch(exec, stream));
  tf_copy_back(rg, used, stream);
  tf_finish(stream);
}

void tf_graph_rounds(const tf_call_ops *ops, void *calls, int count, uint64_t n,
                     void (*prepare)(void *calls, int count, int round, uint64_t seed, char *data,
                                     size_t len)) {
  tf_result res[TF_MAX_BATCH];
  if (count > TF_MAX_BATCH)
    fail_msg("test bug: %d calls in a graph, at most %d", count, TF_MAX_BATCH);
  size_t used = 0;
  cudaGraph_t graph = tf_capture(ops, tf.ctx, calls, count, &tf.out, res, tf.stream, &used);
  if (!graph)
    return;
  unsigned char *saved = (unsigned char *)malloc(used);
  assert_non_null(saved);
  cudaGraphExec_t exec = NULL;
  TF_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int round = 0; round < 3; ++round) {
    const uint64_t seed = tf_case_seed(0x6A9, (uint64_t)(round < 2 ? round : 1), 0, n);
    char data[64];
    prepare(calls, count, round, seed, data, sizeof data);
    tf_replay(exec, &tf.out, used, tf.stream);
    const tf_case cs = {data, seed, 0};
    for (int i = 0; i < count; ++i) {
      res[i].st = CUPRIM_SUCCESS;
      tf_check(ops, &tf.out, tf_call_at(ops, calls, i), &res[i], &cs);
    }
    if (round == 1)
      memcpy(saved, tf.out.h, used);
    for (int i = 0; round == 2 && i < count; ++i) {
      const void *c = tf_call_at(ops, calls, i);
      if ((!ops->same_bits || ops->same_bits(c)) &&
          memcmp(saved + res[i].slot.at, tf.out.h + res[i].slot.at, res[i].slot.span) != 0) {
        char what[256];
        ops->describe(what, sizeof what, c, data, seed);
        tf_failure("replaying the graph twice on the same input gave different output bytes: %s",
                   what);
      }
    }
  }
  free(saved);
  TF_CUDA(cudaGraphExecDestroy(exec));
  TF_CUDA(cudaGraphDestroy(graph));
}

/* ---------------------------------------------------------------- allocators */

cuprim_ctx *tf_context(const cuprim_allocator *a) {
  cuprim_ctx *ctx = NULL;
  const cuprim_status cs = cuprim_ctx_create(&ctx, 0, a);
  if (cs != CUPRIM_SUCCESS)
    fail_msg("cuprim_ctx_create%s: %s", a ? " with a user allocator" : "", tu_status_name(cs));
  return ctx;
}

static void *counting_alloc(void *user, size_t bytes, cudaStream_t stream) {
  tf_counting_allocator *c = (tf_counting_allocator *)user;
  void *p = NULL;
  ++c->allocs;
  if (c->nlive == TF_MAX_LIVE || cudaMallocAsync(&p, bytes, stream) != cudaSuccess) {
    (void)cudaGetLastError();
    ++c->failed_allocs;
    return NULL;
  }
  c->bytes_allocated += bytes;
  c->live[c->nlive].ptr = p;
  c->live[c->nlive].bytes = bytes;
  c->live[c->nlive].stream = stream;
  if (++c->nlive > c->max_live)
    c->max_live = c->nlive;
  return p;
}

static void counting_free(void *user, void *ptr, size_t bytes, cudaStream_t stream) {
  tf_counting_allocator *c = (tf_counting_allocator *)user;
  ++c->frees;
  c->bytes_freed += bytes;
  int found = -1;
  for (int i = 0; i < c->nlive; ++i)
    if (c->live[i].ptr == ptr)
      found = i;
  if (found < 0) {
    ++c->unmatched_frees; /* never allocated here, or freed twice: do not pass it on */
    return;
  }
  if (c->live[found].bytes != bytes || c->live[found].stream != stream)
    ++c->mismatched_frees;
  c->live[found] = c->live[--c->nlive];
  (void)cudaFreeAsync(ptr, stream);
}

cuprim_ctx *tf_counting_context(tf_counting_allocator *counts) {
  memset(counts, 0, sizeof *counts);
  const cuprim_allocator a = {counting_alloc, counting_free, counts};
  return tf_context(&a);
}

void tf_check_counting(cuprim_ctx *ctx, const tf_counting_allocator *c, const char *why) {
  assert_int_equal(cuprim_ctx_destroy(ctx), CUPRIM_SUCCESS);
  print_message("counting allocator: %lu allocs, %lu frees, %llu bytes, at most %d live\n",
                c->allocs, c->frees, c->bytes_allocated, c->max_live);
  if (c->allocs == 0)
    tf_failure("the context's allocator was never called (%s)", why);
  if (c->failed_allocs)
    tf_failure("%lu allocation(s) failed in cudaMallocAsync", c->failed_allocs);
  if (c->allocs - c->failed_allocs != c->frees)
    tf_failure("%lu successful allocs but %lu frees", c->allocs - c->failed_allocs, c->frees);
  if (c->nlive != 0)
    tf_failure("%d allocation(s) never freed", c->nlive);
  if (c->unmatched_frees)
    tf_failure("%lu free(s) of pointers the allocator did not hand out (or freed twice)",
               c->unmatched_frees);
  if (c->mismatched_frees)
    tf_failure("%lu free(s) with another size or stream than the allocation", c->mismatched_frees);
  if (c->bytes_allocated != c->bytes_freed)
    tf_failure("%llu bytes allocated but %llu freed", c->bytes_allocated, c->bytes_freed);
}

static void *failing_alloc(void *user, size_t bytes, cudaStream_t stream) {
  (void)bytes;
  (void)stream;
  ++((tf_failing_allocator *)user)->allocs;
  return NULL;
}

static void failing_free(void *user, void *ptr, size_t bytes, cudaStream_t stream) {
  (void)ptr;
  (void)bytes;
  (void)stream;
  ++((tf_failing_allocator *)user)->frees;
}

cuprim_ctx *tf_failing_context(tf_failing_allocator *counts) {
  memset(counts, 0, sizeof *counts);
  const cuprim_allocator a = {failing_alloc, failing_free, counts};
  return tf_context(&a);
}

void tf_check_failing(cuprim_ctx *ctx, const tf_failing_allocator *counts) {
  if (counts->allocs == 0)
    tf_failure("the failing allocator was never called");
  if (counts->frees != 0)
    tf_failure("free called %lu time(s) although every alloc returned NULL", counts->frees);
  TF_CUDA(cudaGetLastError());
  assert_int_equal(cuprim_ctx_destroy(ctx), CUPRIM_SUCCESS);
}

/* The body of both counting-allocator tests: run_cases(ctx) when there is no table, else every
 * case of cases[0..count) through run. */
static void counting_test(void (*run_cases)(cuprim_ctx *ctx), const tf_alloc_case *cases,
                          size_t count,
                          void (*run)(cuprim_ctx *ctx, const tf_alloc_case *c, uint64_t seed),
                          const char *why) {
  static tf_counting_allocator counts; /* static: large */
  tf_begin();
  cuprim_ctx *ctx = tf_counting_context(&counts);
  if (run_cases)
    run_cases(ctx);
  for (size_t k = 0; k < count; ++k) {
    tf_alloc_case c = cases[k];
    c.n = tf.quick ? c.quick_n : c.n;
    run(ctx, &c, tf_case_seed(0xA11C, c.t, c.op, c.n));
  }
  tf_check_counting(ctx, &counts, why);
  tf_end();
}

void tf_counting_test(void (*run_cases)(cuprim_ctx *ctx), const char *why) {
  counting_test(run_cases, NULL, 0, NULL, why);
}

void tf_counting_cases_test(const tf_alloc_case *cases, size_t count,
                            void (*run)(cuprim_ctx *ctx, const tf_alloc_case *c, uint64_t seed),
                            const char *why) {
  counting_test(NULL, cases, count, run, why);
}

void tf_failing_test(void (*run_cases)(cuprim_ctx *ctx)) {
  tf_failing_allocator counts;
  tf_begin();
  cuprim_ctx *ctx = tf_failing_context(&counts);
  run_cases(ctx);
  tf_check_failing(ctx, &counts);
  tf_end();
}

void tf_check_out_of_memory(const tf_call_ops *ops, const void *calls, int count,
                            const tf_region *rg, tf_result *res, const int *must_fail,
                            const tf_case *cs) {
  for (int i = 0; i < count; ++i) {
    const void *call = tf_call_at(ops, calls, i);
    char what[512];
    ops->describe(what, sizeof what, call, cs->data, cs->seed);
    if (res[i].st == CUPRIM_ERROR_OUT_OF_MEMORY)
      tf_check_untouched(rg, &res[i].slot, what);
    else if (must_fail[i])
      tf_failure("%s: expected CUPRIM_ERROR_OUT_OF_MEMORY, got %s", what,
                 tu_status_name(res[i].st));
    else
      tf_check(ops, rg, call, &res[i], cs);
  }
}

void tf_run_out_of_memory(const tf_call_ops *ops, cuprim_ctx *ctx, const void *calls, int count,
                          tf_result *res, const int *must_fail, const tf_case *cs) {
  tf_enqueue(ops, ctx, calls, count, &tf.out, res, tf.stream);
  tf_finish(tf.stream);
  tf_check_out_of_memory(ops, calls, count, &tf.out, res, must_fail, cs);
}

/* ---------------------------------------------------------------- the last test */

void tf_test_no_cuda_error_left(void **state) {
  (void)state;
  tf_begin();
  TF_CUDA(cudaDeviceSynchronize());
  TF_CUDA(cudaGetLastError());
  tf_check_no_recorded_error("on the main thread");
  tf_end();
}
