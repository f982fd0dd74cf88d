/* The fixture every primitive's GPU tests share (test_reduce_gpu.c, test_scan_gpu.c,
 * test_histogram_gpu.c, and the next ones): one context and one non-blocking stream for the whole
 * program, its input buffers and output regions, the skip without a device (inside the test body:
 * cmocka 1.1.5 counts a skip in a setup function as an error), failures counted and printed so
 * that one call's failure does not stop a test, CUDA errors reported through one helper, output
 * slots with poisoned guards, calls enqueued in batches and checked, counting and failing
 * allocators, and stream capture into a CUDA graph.
 *
 * A test program describes its calls by a tf_call_ops (how large a call's output is, how to issue
 * it, describe it and check it), and runs them through tf_run_and_check, or through the pieces it
 * is made of when a test needs them apart (two streams at once, a graph). Its tests are defined
 * with TF_TEST (or the sweep and allocator macros below), which register them (test_util.h), and
 * its main() is one line, TF_MAIN(&config): the tests in the order they are defined, then
 * test_no_cuda_error_left. Every test body opens with tf_begin() and closes with tf_end() (TF_TEST
 * writes both). Host code, plain C11. */
#ifndef CUPRIM_TEST_FIXTURE_GPU_H
#define CUPRIM_TEST_FIXTURE_GPU_H

#include "hostref_histogram.h"
#include "hostref_reduce.h"
#include "hostref_scan.h"
#include "test_util.h"

#define TF_POISON 0xA5     /* guard bytes, and what an output holds until it is written */
#define TF_GUARD_BYTES 256 /* guards on either side of an output; slots are 256-byte aligned */
#define TF_MAX_PRINTED 40  /* failures a test prints; later ones are only counted */

#if defined(__GNUC__)
#define TF_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TF_PRINTF(f, a)
#endif

/* ---------------------------------------------------------------- CUDA errors */

/* The one place a CUDA error met by a test is turned into words: the call, where it was made, the
 * error's description and name. */
typedef struct tf_cuda_error {
  cudaError_t error; /* cudaSuccess until a call fails */
  char what[320];    /* "file:line: call: description (name)" */
} tf_cuda_error;

/* 0 if e is cudaSuccess. Otherwise clears CUDA's (non-sticky) last error, records the failure in
 * *into unless it already holds one (the first failure is the one to read), and returns 1. */
int tf_cuda_failed(cudaError_t e, const char *call, const char *file, int line,
                   tf_cuda_error *into);

/* A CUDA call the test makes: on failure the test fails at once, naming the call and the error. */
#define TF_CUDA(call)                                                                              \
  do {                                                                                             \
    tf_cuda_error tf_e_ = {cudaSuccess, ""};                                                       \
    if (tf_cuda_failed((call), #call, __FILE__, __LINE__, &tf_e_))                                 \
      fail_msg("%s", tf_e_.what);                                                                  \
  } while (0)

/* A CUDA call whose failure must not end the test at once (under stream capture, in a thread of
 * its own, in the group setup): recorded in *note, evaluates to 1 on failure. */
#define TF_CUDA_NOTE(call, note) tf_cuda_failed((call), #call, __FILE__, __LINE__, (note))

/* ---------------------------------------------------------------- the fixture */

/* An output region: device memory and its pinned host copy, `cap` bytes each. */
typedef struct tf_region {
  unsigned char *d, *h;
  size_t cap;
} tf_region;

#define TF_MAX_SCAN_REFS 4

/* What a test program needs allocated for it (sizes in bytes; 0: not allocated). */
typedef struct tf_config {
  size_t in_bytes;    /* d_in (device), h_in (pinned) */
  size_t in2_bytes;   /* d_in2 (device) */
  size_t h_in2_bytes; /* h_in2 (pinned) */
  size_t out_bytes;   /* the region out */
  size_t out2_bytes;  /* the region out2 */
  /* Scan references the program keeps for all its tests (static, hence zeroed: empty, as
   * hr_scan_ref_init leaves them) and fills case after case (tf_scan_reference): the fixture frees
   * them after the last test. Unused entries NULL. */
  hr_scan_ref *scan_refs[TF_MAX_SCAN_REFS];
  /* The program's own setup, run after the fixture's with a usable device: it records a failure
   * with TF_SETUP_CUDA (or tf_cuda_failed(..., &tf.setup)), which each test then reports. */
  void (*setup)(void);
  /* The program's own teardown, always run, before the fixture's: frees what its setup took. */
  void (*teardown)(void);
} tf_config;

/* In the program's setup: record a failed CUDA call and return. */
#define TF_SETUP_CUDA(call)                                                                        \
  do {                                                                                             \
    if (TF_CUDA_NOTE(call, &tf.setup))                                                             \
      return;                                                                                      \
  } while (0)

/* A variable of the form K/N: its value (ok 0 if malformed: every test fails), and of what the
 * running test dealt by it, how many and how many of those this process ran. */
typedef struct tf_deal {
  int ok;
  unsigned k, n;
  unsigned long dealt, ran;
} tf_deal;

typedef struct tf_state {
  const tf_config *config;
  tf_cuda_error setup;      /* the first failure of the group setup, if any */
  tf_cuda_error deferred;   /* CUDA failures of a call's preparation (TF_CUDA_NOTE), see tf_issue */
  cuprim_status ctx_status; /* of cuprim_ctx_create(&ctx, 0, NULL) */
  cuprim_ctx *ctx;          /* one context for the whole program (default allocator) */
  cudaStream_t stream;      /* non-blocking: where most calls run */
  struct cudaDeviceProp prop; /* device 0 */
  unsigned char *d_in, *d_in2, *h_in, *h_in2;
  tf_region out, out2;
  uint64_t seed; /* CUPRIM_TEST_SEED */
  int quick;     /* CUPRIM_TEST_QUICK */
  int fails;     /* failed checks in the running test */
  /* CUPRIM_TEST_SHARD=K/N (tu_shard) and CUPRIM_TEST_PART=J/M (tu_part), with what the running
   * test dealt: its cases (tf_shard_case) and the parts of its cases (tf_shard_part). Also the
   * start time of the case running (shard_at 0: none; it is the last case dealt) and the index
   * of the next part in it (0 at each case). */
  tf_deal shard, part;
  unsigned long part_index;
  double shard_at;
} tf_state;

extern tf_state tf;

/* cmocka group setup and teardown. The setup never fails or skips: it records what failed, and
 * each test decides in its body (tf_begin) to skip (no device) or fail (the setup failed). */
int tf_group_setup(void **state);
int tf_group_teardown(void **state);
/* A GPU test program's main(), through tu_main (CUPRIM_TEST_FILTER, CUPRIM_TEST_LIST): its
 * registered tests, then test_no_cuda_error_left, as one group with the fixture's setup (which
 * allocates what config asks for) and teardown; 77 (CTest's SKIP_RETURN_CODE) when every test
 * skipped for want of a device, else cmocka's count of failed tests. */
int tf_main(const tf_config *config);
#define TF_MAIN(config)                                                                            \
  int main(void) { return tf_main(config); }

/* The first line of every GPU test: skip without a device, fail if the setup failed. */
void tf_begin(void);
/* One failed check: printed (the first TF_MAX_PRINTED of a test), counted; the test goes on. */
void tf_failure(const char *fmt, ...) TF_PRINTF(1, 2);
/* The last line of every GPU test: fails it if any check failed, naming the base seed. With
 * CUPRIM_TEST_SHARD, says how many of the test's cases this shard ran. */
void tf_end(void);

/* One case of a long test, called before the case does anything (draws its input, computes its
 * reference): 1 if this process runs it. Every case runs unless CUPRIM_TEST_SHARD=K/N is set;
 * then the cases are counted from the test's start (0, 1, ...) and those whose index is K modulo
 * N run, so that N processes with K = 0..N-1 run each case once between them (scripts/
 * gpu_suite.sh --sanitize-shards). A case must not depend on what an earlier case left behind.
 * A test that never calls this runs whole in every shard. The cases are dealt by index, so a
 * loop whose period shares a factor with N sends its costly cases to a few shards (four sizes and
 * N = 64: every case of the largest size to the shards K = 3 mod 4); an odd or prime N spreads
 * them. Shard K of N is shards K, K + N, ..., K + (m - 1)N of mN together: a shard that a time
 * limit cut can run again in m smaller pieces. With sharding, a case that took more than
 * TF_SLOW_CASE_S seconds is named on stdout (flushed: a job cut by a time limit still says which
 * cases were slow), for choosing N. */
#define TF_SLOW_CASE_S 20.0
int tf_shard_case(void);
/* One part of a case, called inside a case that tf_shard_case chose, before the part does
 * anything: 1 if this process runs it. Every part runs unless CUPRIM_TEST_PART=J/M is set; then
 * the parts of each case are counted from the case's start and those whose index is J modulo M
 * run: with CUPRIM_TEST_SHARD=K/N, M processes with J = 0..M-1 run each part of the shard's
 * cases once between them. For a case that is too long for one process even alone (racecheck of
 * test_virtual_ranks' largest size); the case's set-up runs in each of them, so a part must not
 * depend on what an earlier part left behind. */
int tf_shard_part(void);

/* A GPU test: TF_TEST(test_x) { body } defines and registers test_x(void **state), which opens
 * with tf_begin(), runs the body (a function of its own: `return` ends the body) and closes with
 * tf_end(). TF_TEST_FROM(test_x, begin) opens with begin() instead: a program's own first line,
 * which calls tf_begin(). */
#define TF_TEST_FROM(name, begin)                                                                  \
  static void name##_body(void);                                                                   \
  static void name(void **state) {                                                                 \
    (void)state;                                                                                   \
    begin();                                                                                       \
    name##_body();                                                                                 \
    tf_end();                                                                                      \
  }                                                                                                \
  TU_REGISTER_AS(name, name, 0)                                                                    \
  static void name##_body(void)
#define TF_TEST(name) TF_TEST_FROM(name, tf_begin)

/* A program's sweep tests, one per dtype of one of hostref.h's lists, in its order:
 * TF_SWEEP_TESTS_ALL(sweep) defines and registers test_sweep_i8(void **state), which calls
 * sweep(CUPRIM_I8) between tf_begin() and tf_end(), and likewise test_sweep_u8, _i16, ... _f64,
 * _f16 and _bf16: hr_all_dtypes. TF_SWEEP_TESTS_REDUCE_SCAN defines those of
 * hr_reduce_scan_dtypes (test_sweep_i32 ... _bf16), TF_SWEEP_TESTS_32_64 those of hr_dtypes_32_64
 * (test_sweep_i32 ... _f64). (A test's name is a word of the source, so the macros name the dtypes
 * again; test_hostref checks the lists' order.) TF_SWEEP_TEST_NTH is the order-th test of its
 * line (TU_REGISTER_AS). */
#define TF_SWEEP_TEST_NTH(fn, suffix, t, order)                                                    \
  static void test_sweep_##suffix(void **state) {                                                  \
    (void)state;                                                                                   \
    tf_begin();                                                                                    \
    fn(t);                                                                                         \
    tf_end();                                                                                      \
  }                                                                                                \
  TU_REGISTER_AS(test_sweep_##suffix, test_sweep_##suffix, order)
#define TF_SWEEP_TESTS_32_64_FROM(fn, order)                                                       \
  TF_SWEEP_TEST_NTH(fn, i32, CUPRIM_I32, (order))                                                  \
  TF_SWEEP_TEST_NTH(fn, u32, CUPRIM_U32, (order) + 1)                                              \
  TF_SWEEP_TEST_NTH(fn, i64, CUPRIM_I64, (order) + 2)                                              \
  TF_SWEEP_TEST_NTH(fn, u64, CUPRIM_U64, (order) + 3)                                              \
  TF_SWEEP_TEST_NTH(fn, f32, CUPRIM_F32, (order) + 4)                                              \
  TF_SWEEP_TEST_NTH(fn, f64, CUPRIM_F64, (order) + 5)
#define TF_SWEEP_TESTS_32_64(fn) TF_SWEEP_TESTS_32_64_FROM(fn, 0)
#define TF_SWEEP_TESTS_REDUCE_SCAN(fn)                                                             \
  TF_SWEEP_TESTS_32_64_FROM(fn, 0)                                                                 \
  TF_SWEEP_TEST_NTH(fn, f16, CUPRIM_F16, 6)                                                        \
  TF_SWEEP_TEST_NTH(fn, bf16, CUPRIM_BF16, 7)
#define TF_SWEEP_TESTS_ALL(fn)                                                                     \
  TF_SWEEP_TEST_NTH(fn, i8, CUPRIM_I8, 0)                                                          \
  TF_SWEEP_TEST_NTH(fn, u8, CUPRIM_U8, 1)                                                          \
  TF_SWEEP_TEST_NTH(fn, i16, CUPRIM_I16, 2)                                                        \
  TF_SWEEP_TEST_NTH(fn, u16, CUPRIM_U16, 3)                                                        \
  TF_SWEEP_TESTS_32_64_FROM(fn, 4)                                                                 \
  TF_SWEEP_TEST_NTH(fn, f16, CUPRIM_F16, 10)                                                       \
  TF_SWEEP_TEST_NTH(fn, bf16, CUPRIM_BF16, 11)

/* The seed of one case: a function of the base seed and the case's parameters, so that a failing
 * case is named by one number. */
uint64_t tf_case_seed(uint64_t a, uint64_t b, uint64_t c, uint64_t d);

/* Waits for `stream`; a fault in a kernel shows up here and fails the test. */
void tf_finish(cudaStream_t stream);
/* Copies h[0..bytes) to d, which must lie in d_in or d_in2 with room for it (else a test bug). */
void tf_upload(void *d, const void *h, size_t bytes, cudaStream_t stream);
/* The pairs (dtype, op) of dtypes[0..n) and the ops 0..CUPRIM_XOR that supported(t, op) takes,
 * dtype-major, as two nested loops would give them:
 *   for (tf_dtype_op it = {0}; tf_next_dtype_op(&it, dtypes, n, supported);)
 *     ... it.t, it.op ...
 * Returns 0 when none is left. */
typedef struct tf_dtype_op {
  size_t next; /* the pair the next call looks at first: dtype index * (CUPRIM_XOR + 1) + op */
  cuprim_dtype t;
  cuprim_op op;
} tf_dtype_op;
int tf_next_dtype_op(tf_dtype_op *it, const cuprim_dtype *dtypes, size_t n,
                     int (*supported)(cuprim_dtype t, cuprim_op op));

/* A case's input: n elements of dtype t drawn into tf.h_in (hr_scan_fill, hr_reduce_fill,
 * hr_hist_fill with the bins b) and uploaded to tf.d_in on `stream` (tf_upload). */
void tf_scan_input(cuprim_dtype t, cuprim_op op, hr_scan_data data, uint64_t seed, uint64_t n,
                   cudaStream_t stream);
void tf_reduce_input(cuprim_dtype t, cuprim_op op, hr_data_kind kind, uint64_t seed, uint64_t n,
                     cudaStream_t stream);
void tf_hist_input(const hr_hist_bins *b, cuprim_dtype t, hr_hist_data data, uint64_t seed,
                   uint64_t n, cudaStream_t stream);
/* Sizes for a sweep: base[0..nbase) and then `randoms` seeded sizes, log-uniform in [2, 2^top)
 * and the same for every dtype (drawn from the base seed and `salt`). Returns how many it wrote
 * (at most cap). */
size_t tf_sizes(const uint64_t *base, size_t nbase, uint64_t salt, int randoms, double top,
                uint64_t *sizes, size_t cap);

/* A sweep's sizes (tf_sizes): in quick mode quick[0..nquick) and one random size below 2^17; in
 * full mode full[0..nfull), full_randoms random sizes below 2^21 and then `large` unless it is 0
 * (the sweeps take it with random data only). Returns how many it wrote (at most cap).
 * TF_SWEEP_SIZES takes the two arrays whole. */
size_t tf_sweep_sizes(const uint64_t *full, size_t nfull, const uint64_t *quick, size_t nquick,
                      uint64_t salt, int full_randoms, uint64_t large, uint64_t *sizes, size_t cap);
#define TF_SWEEP_SIZES(full, quick, salt, full_randoms, large, sizes, cap)                         \
  tf_sweep_sizes((full), sizeof(full) / sizeof(full)[0], (quick),                                  \
                 sizeof(quick) / sizeof(quick)[0], (salt), (full_randoms), (large), (sizes),       \
                 (cap))

/* The streams a program's calls also run on, besides the non-blocking tf.stream: the legacy
 * default stream (0) and the per-thread default stream; their names for messages. */
#define TF_DEFAULT_STREAMS 2
extern const cudaStream_t tf_default_stream[TF_DEFAULT_STREAMS];
extern const char *const tf_default_stream_name[TF_DEFAULT_STREAMS];
/* The cases of reduce's and scan's default-streams tests, as three nested loops would give them:
 * each default stream (index si), the dtypes F32 and I64 (index d), and the sizes 1000 and
 * 2^20 + 1 (65537 in quick mode):
 *   for (tf_stream_case c = {0}; tf_next_stream_case(&c);)
 *     ... c.stream, c.name, c.t, c.n ...
 * Returns 0 when none is left. */
typedef struct tf_stream_case {
  int next; /* the case the next call gives: (si * 2 + d) * 2 + the size's index */
  int si, d;
  cudaStream_t stream; /* tf_default_stream[si] */
  const char *name;    /* tf_default_stream_name[si] */
  cuprim_dtype t;
  uint64_t n;
} tf_stream_case;
int tf_next_stream_case(tf_stream_case *c);

/* The first line of a large test instead of tf_begin: it also skips in quick mode
 * (compute-sanitizer) and without `need` bytes free on the device, printing why (`what` names
 * the test). Returns the bytes free. */
#define TF_GIB 1073741824.0
size_t tf_begin_large(const char *what, size_t need);

/* A large output of a test's own: `bytes` at d_slot + TF_GUARD_BYTES, with TF_GUARD_BYTES of
 * guards on either side. tf_alloc_guarded returns d_slot (cudaMalloc; the test poisons and frees
 * it); tf_check_large_guards copies the guards back and fails "`what`: wrote before (or past) d_out
 * (guard byte k)" unless they still hold the poison. */
unsigned char *tf_alloc_guarded(size_t bytes);
void tf_check_large_guards(const unsigned char *d_slot, size_t bytes, const char *what);

/* A large test's U32 buffers, in a context of its own (destroyed at the end, so that its pool gives
 * back what it took): n elements of input at d_in and a guarded output of n elements at
 * d_out = d_slot + TF_GUARD_BYTES (tf_alloc_guarded). tf_begin_large_u32 opens the test with
 * tf_begin_large(what, need) (and skips as it does), then makes the context and the buffers;
 * tf_end_large_u32 frees them, destroys the context and closes the test with tf_end. */
typedef struct tf_large_u32 {
  cuprim_ctx *ctx;
  uint32_t *d_in, *d_out;
  unsigned char *d_slot;
} tf_large_u32;
tf_large_u32 tf_begin_large_u32(const char *what, size_t need, uint64_t n);
void tf_end_large_u32(const tf_large_u32 *L);

/* The sizes of a test, full or quick: TF_PICK(full, quick, &n) gives the array (and its length
 * in n) that the mode asks for. */
const uint64_t *tf_pick(const uint64_t *full, size_t nfull, const uint64_t *quick, size_t nquick,
                        size_t *n);
#define TF_PICK(full, quick, n)                                                                    \
  tf_pick((full), sizeof(full) / sizeof(full)[0], (quick), sizeof(quick) / sizeof(quick)[0], (n))
/* Seconds on a monotonic clock, for the times a test prints. */
double tf_now_s(void);

/* ---------------------------------------------------------------- special float data */

/* NaN and infinities put into float data, for MIN and MAX: a NaN must win through every algorithm,
 * an infinity is an ordinary value. */
typedef enum tf_special {
  TF_NAN_FIRST,
  TF_NAN_LAST,
  TF_NAN_MIDDLE,
  TF_NAN_RANDOM,
  TF_NAN_TWO,
  TF_NAN_NEGATIVE,
  TF_NAN_ALL,
  TF_INF_WINS, /* the first that is no NaN */
  TF_INF_LOSES,
  TF_SPECIALS
} tf_special;

/* "NaN first", ..., for messages. */
const char *tf_special_name(tf_special sp);
/* Puts `sp` into h[0..n) (n > 0) of dtype t (F32, F64, F16 or BF16), at positions drawn from
 * *state where the kind says "random"; an infinity wins or loses under op (MIN or MAX). */
void tf_put_special(cuprim_dtype t, void *h, uint64_t n, tf_special sp, cuprim_op op,
                    uint64_t *state);

/* The cases of a NaN and infinity test, in the order every such test takes them: F32, F64, F16
 * and BF16, MIN and MAX, sizes 1 to 1000003 (quick: to 65537), every special. For each:
 * fill(t, op, seed, h, n) writes the program's random data for op into tf.h_in, the special is
 * put in (drawing from the case's seed), the data goes to tf.d_in, and run(t, op, n, sp, seed)
 * makes the calls. */
void tf_special_cases(void (*fill)(cuprim_dtype t, cuprim_op op, uint64_t seed, void *h,
                                   uint64_t n),
                      void (*run)(cuprim_dtype t, cuprim_op op, uint64_t n, tf_special sp,
                                  uint64_t seed));

/* ---------------------------------------------------------------- output slots */

/* An output's slot in a region: TF_GUARD_BYTES of guards, the output (`misalign` bytes past the
 * aligned address that follows them), guards up to the next multiple of 256 and at least
 * TF_GUARD_BYTES of them. Before a call the whole slot is poisoned; after it the guards must still
 * hold the poison. */
typedef struct tf_slot {
  size_t at;        /* the slot's offset in its region */
  size_t span;      /* its bytes */
  size_t out_at;    /* the output's offset in the slot */
  size_t out_bytes; /* the output's bytes */
} tf_slot;

tf_slot tf_slot_at(size_t at, size_t out_bytes, size_t misalign);
/* The output in the region's device memory, and in its host copy. */
void *tf_slot_device(const tf_region *rg, const tf_slot *s);
const unsigned char *tf_slot_host(const tf_region *rg, const tf_slot *s);
/* 1 if the host copy of the slot's guards holds the poison; else a failure named `what`, saying
 * which byte before or past `out` (the output's name: "d_out") changed. */
int tf_check_guards(const tf_region *rg, const tf_slot *s, const char *what, const char *out);
/* 1 if the whole slot still holds the poison (a call that failed writes nothing); else a
 * failure. */
int tf_check_untouched(const tf_region *rg, const tf_slot *s, const char *what);
/* Copies bytes of device memory at d to h (on `stream`, waiting for it: after whatever was
 * enqueued there) and checks that they all hold the poison; else a failure "`what` wrote `name`
 * (byte k)". */
void tf_check_poisoned(const void *d, unsigned char *h, size_t bytes, cudaStream_t stream,
                       const char *what, const char *name);

/* ---------------------------------------------------------------- calls */

/* What one call returned, where its output went, and how its checks went. */
typedef struct tf_result {
  cuprim_status st;
  tf_slot slot;
  int ok;        /* passed every check */
  uint64_t hash; /* of its output, when ok and the check was asked for one */
} tf_result;

/* What a batch of calls is checked as. */
typedef struct tf_case {
  const char *data; /* the data kind, for messages */
  uint64_t seed;    /* the case's seed, for messages */
  int want_hash;    /* 1: the check fills tf_result.hash */
} tf_case;

/* A test program's calls, to the fixture: an array of `size`-byte call descriptions and what to do
 * with one. */
typedef struct tf_call_ops {
  size_t size;
  const char *out_name; /* the output's parameter, for messages: "d_out" */
  /* The bytes of the call's output, and how many bytes past a 256-byte aligned address it
   * starts. */
  void (*output)(const void *call, size_t *bytes, size_t *misalign);
  /* Enqueues the call on `stream`, its output at d_out (inside its poisoned slot), and whatever
   * must come first (an in-place copy of the input, other garbage in the output). CUDA calls of
   * its own go through TF_CUDA_NOTE(..., &tf.deferred). */
  cuprim_status (*issue)(cuprim_ctx *ctx, const void *call, void *d_out, cudaStream_t stream);
  /* The call, its data kind and seed in words, for messages. */
  void (*describe)(char *buf, size_t len, const void *call, const char *data, uint64_t seed);
  /* The check of a call's output (tf_slot_host(rg, &r->slot)), once tf_check has found that the
   * call returned CUPRIM_SUCCESS and left its guards alone: a failure for each problem, with
   * `what` (the call described) in front; fills r->hash when cs->want_hash. Returns 1 if right. */
  int (*check)(const tf_region *rg, const void *call, tf_result *r, const tf_case *cs,
               const char *what);
  /* 1 if the call gives the same output bits each time it runs on the same input (the graph
   * test compares its replays' bytes for those only); NULL: every call does. */
  int (*same_bits)(const void *call);
} tf_call_ops;

/* The end of an ops->check that found the output `out` right: r->hash = the hash of its
 * r->slot.out_bytes bytes (hr_hash_bytes) when cs->want_hash; returns 1. */
int tf_passed(tf_result *r, const tf_case *cs, const void *out);

/* The check of a scan's output (an ops->check of test_scan_gpu.c and test_scan_init_gpu.c): ref
 * must be the reference of the call's n, dtype, op and kind (else a test bug); every element of
 * the output (tf_slot_host(rg, &r->slot)) must be right (hr_scan_check: an element still holding
 * the poison was never written), else one failure with `what`, the number of wrong elements,
 * their range and the first; then tf_passed. Returns 1 if right. */
int tf_check_scan(const hr_scan_ref *ref, uint64_t n, cuprim_dtype t, cuprim_op op,
                  cuprim_scan_kind kind, const tf_region *rg, tf_result *r, const tf_case *cs,
                  const char *what);
/* hr_scan_reference(r, t, op, kind, h, n): fails the test if host memory runs out. */
void tf_scan_reference(hr_scan_ref *r, cuprim_dtype t, cuprim_op op, cuprim_scan_kind kind,
                       const void *h, uint64_t n);
/* Defines `static int name(...)`, the ops->check of calls of type T (members ref, n, dtype, op,
 * kind): tf_check_scan of the call. */
#define TF_SCAN_CHECK(name, T)                                                                     \
  static int name(const tf_region *rg, const void *p, tf_result *r, const tf_case *cs,             \
                  const char *what) {                                                              \
    const T *c = (const T *)p;                                                                     \
    return tf_check_scan(c->ref, c->n, c->dtype, c->op, c->kind, rg, r, cs, what);                 \
  }

/* A scan sweep for dtype t (test_scan_gpu.c, test_scan_init_gpu.c), its cases in this order: every
 * op scan takes with t, every data kind that applies to (t, op) (not CONSTANT in quick mode), every
 * size of sizes[0..nsizes) (above random_only_above: random data only). For each the input is
 * drawn (tf_scan_input, seed tf_case_seed(t, op, data, n)), then run(t, op, data, size_index, n,
 * seed, counts) makes the calls, counting them and its cases into *counts; the totals are printed
 * at the end ("<dtype>: <cases> cases, <calls> calls"). */
typedef struct tf_sweep_counts {
  unsigned long cases, calls;
} tf_sweep_counts;
void tf_scan_sweep(cuprim_dtype t, const uint64_t *sizes, size_t nsizes, uint64_t random_only_above,
                   void (*run)(cuprim_dtype t, cuprim_op op, hr_scan_data data, size_t size_index,
                               uint64_t n, uint64_t seed, tf_sweep_counts *counts));

/* The full check of a call that ran: status, guards, then ops->check. Sets and returns r->ok. */
int tf_check(const tf_call_ops *ops, const tf_region *rg, const void *call, tf_result *r,
             const tf_case *cs);

/* The call at index i of an array of ops->size-byte calls. */
const void *tf_call_at(const tf_call_ops *ops, const void *calls, int i);

/* The input of a call made in place or not, from an issue (ops->issue): in place, the `bytes` at
 * d_in are copied into d_out first on `stream` (a failure noted in tf.deferred; nothing for 0
 * bytes) and d_out is returned; else d_in. */
const void *tf_in_place_input(int in_place, void *d_out, const void *d_in, size_t bytes,
                              cudaStream_t stream);
/* An output that holds garbage of the call's own before the call (the histograms: a call must
 * overwrite or keep whatever the output held). `garbage` is a byte, or -1 for the poison the slot
 * already holds. tf_fill_garbage, from an issue, fills the output's `bytes` at d_out with it on
 * `stream` (a failure noted in tf.deferred; nothing for -1 or TF_POISON); tf_garbage_byte is the
 * byte the output then holds, for the check. */
void tf_fill_garbage(void *d_out, int garbage, size_t bytes, cudaStream_t stream);
int tf_garbage_byte(int garbage);

/* Lays out the slots of calls[0..count) one after another in rg (a test bug if they do not fit);
 * returns the bytes they take. */
size_t tf_layout(const tf_call_ops *ops, const void *calls, int count, const tf_region *rg,
                 tf_result *res);
/* Enqueues call i into its slot on `stream`, into res[i].st. A failure recorded in tf.deferred
 * fails the test (outside stream capture: tf_capture reports it as a failure instead). */
void tf_issue(const tf_call_ops *ops, cuprim_ctx *ctx, const void *calls, int i,
              const tf_region *rg, tf_result *res, cudaStream_t stream);
/* Poisons rg's first `bytes`; copies them back to the host copy. Both enqueued on `stream`. */
void tf_poison(const tf_region *rg, size_t bytes, cudaStream_t stream);
void tf_copy_back(const tf_region *rg, size_t bytes, cudaStream_t stream);
/* Layout, poison, every call, copy back: all enqueued on `stream`, nothing waits. */
void tf_enqueue(const tf_call_ops *ops, cuprim_ctx *ctx, const void *calls, int count,
                const tf_region *rg, tf_result *res, cudaStream_t stream);
/* Runs calls[0..count) through ctx on `stream` in tf.out (as many per batch as it holds), waits,
 * and checks each (tf_check). Returns how many passed. */
int tf_run_and_check(const tf_call_ops *ops, cuprim_ctx *ctx, const void *calls, int count,
                     cudaStream_t stream, const tf_case *cs, tf_result *res);
/* A non-blocking stream of the test's own (the other of tf_run_two_streams); fails the test if it
 * cannot be made. The test destroys it (cudaStreamDestroy). */
cudaStream_t tf_new_stream(void);
/* Two non-blocking streams in flight at once on one context: calls_a[0..count) in tf.out on
 * stream_a and calls_b[0..count) in tf.out2 on stream_b, enqueued alternately before either is
 * waited for, then each checked (tf_check with cs_a or cs_b). count <= TF_MAX_BATCH. */
#define TF_MAX_BATCH 64
void tf_run_two_streams(const tf_call_ops *ops, cuprim_ctx *ctx, int count, const void *calls_a,
                        const tf_case *cs_a, cudaStream_t stream_a, const void *calls_b,
                        const tf_case *cs_b, cudaStream_t stream_b);
/* A program's concurrent-streams test: tf_run_two_streams on tf.ctx, calls_a on tf.stream and
 * calls_b on `other`, checked as the cases "<data_a>, stream A of two" (seed_a) and
 * "<data_b>, stream B of two" (seed_b). */
void tf_run_stream_pair(const tf_call_ops *ops, int count, const void *calls_a, const char *data_a,
                        uint64_t seed_a, const void *calls_b, const char *data_b, uint64_t seed_b,
                        cudaStream_t other);
/* The whole concurrent-streams test of a program whose two streams run the same calls on
 * inputs of one dtype t (test_reduce_gpu.c, test_scan_gpu.c): a non-blocking stream of its own
 * (`other`) and `rounds` rounds. Each round draws n elements by fill(t, seed, h, n) for stream A
 * into tf.h_in, seed tf_case_seed(0xC0C, 1, round, n), and for stream B right after them, seed
 * tf_case_seed(0xC0C, 2, round, n) (both must fit in the pinned input buffer: a test bug
 * otherwise); uploads A's to tf.d_in on tf.stream and B's to tf.d_in2 on `other`; has
 * make(round, side, t, h, d, n, calls) write the calls of side 0 (A, on d = tf.d_in) and side 1
 * (B, on tf.d_in2) with their expectations from the host copy h, returning how many (the same for
 * both, at most TF_MAX_BATCH); and runs them (tf_run_stream_pair, data `data`). */
void tf_concurrent_streams(const tf_call_ops *ops, cuprim_dtype t, uint64_t n, int rounds,
                           const char *data,
                           void (*fill)(cuprim_dtype t, uint64_t seed, void *h, uint64_t n),
                           int (*make)(int round, int side, cuprim_dtype t, const void *h,
                                       const unsigned char *d, uint64_t n, void *calls));

/* Argument errors with a real context: calls that must return before any CUDA work. The test
 * poisons the first in_bytes of d_in and out_bytes of the region out (tf_poison_inputs, which
 * returns the address TF_GUARD_BYTES into the region out where the calls put their outputs),
 * makes its calls into them (a table of what each returned and should have returned), and checks:
 * each status, nothing written into the bytes tf_poison_inputs poisoned, no CUDA error recorded
 * (tf_check_argument_errors; TF_CHECK_ARGUMENT_ERRORS(cases) for a whole array). */
typedef struct tf_status_case {
  const char *what;
  cuprim_status got, want;
} tf_status_case;
unsigned char *tf_poison_inputs(size_t in_bytes, size_t out_bytes);
void tf_check_argument_errors(const tf_status_case *cases, size_t count);
#define TF_CHECK_ARGUMENT_ERRORS(cases)                                                            \
  tf_check_argument_errors((cases), sizeof(cases) / sizeof(cases)[0])
/* The same checks for a table of calls that a program makes through its tf_call_ops: each case
 * names its context, its call (a struct of ops->size bytes, which holds the input), its output and
 * the status it must return. tf_check_error_calls makes the calls in table order (ops->issue on
 * tf.stream), so that the call is written once and each row holds only what varies
 * (TF_CHECK_ERROR_CALLS(ops, cases) for a whole array). */
typedef struct tf_error_call {
  const char *what;
  cuprim_ctx *ctx;
  const void *call;
  void *out;
  cuprim_status want;
} tf_error_call;
void tf_check_error_calls(const tf_call_ops *ops, const tf_error_call *cases, size_t count);
#define TF_CHECK_ERROR_CALLS(ops, cases)                                                           \
  tf_check_error_calls((ops), (cases), sizeof(cases) / sizeof(cases)[0])
/* Calls with nothing to do (n == 0) must write nothing: tf_poison_empty poisons the first
 * 4 * TF_GUARD_BYTES of the region out (waiting for it) and returns the address TF_GUARD_BYTES
 * into it, where the calls' outputs go; tf_check_empty then checks that those bytes still hold the
 * poison (else "`what` wrote device memory (from d_out - 256) (byte k)"). */
unsigned char *tf_poison_empty(void);
void tf_check_empty(const char *what);
/* cuprim_last_cuda_error() must be cudaSuccess on this thread: else a failure. */
void tf_check_no_recorded_error(const char *after);

/* ---------------------------------------------------------------- CUDA graphs */

/* Captures calls[0..count) into a graph on `stream` (laid out in rg, whose slots are poisoned
 * first): capture enqueues and runs nothing, so the slots must still hold the poison afterwards.
 * The capture is always ended (a capture left open would break every later test). Returns the
 * graph with the bytes the slots take in *used, or NULL when anything failed (calls that did not
 * return CUPRIM_SUCCESS, a preparation or cudaStreamEndCapture that failed: each reported; the
 * test then ends). */
cudaGraph_t tf_capture(const tf_call_ops *ops, cuprim_ctx *ctx, const void *calls, int count,
                       const tf_region *rg, tf_result *res, cudaStream_t stream, size_t *used);
/* One replay: poisons the slots, launches the graph, copies the slots back, waits. */
void tf_replay(cudaGraphExec_t exec, const tf_region *rg, size_t used, cudaStream_t stream);
/* The graph test: calls[0..count) captured (tf_capture, in tf.out on tf.stream), then replayed
 * three times. Before each replay prepare(calls, count, round, seed, data, len) puts the round's
 * data in the input buffer the calls read (the graph reads whatever it holds then), sets each
 * call's expectation and names the data; rounds 0 and 1 have new data, round 2 the data of round 1
 * (seeds from `n`). After each replay every call is checked, and the slot of each call that
 * repeats its bits (ops->same_bits) must hold in round 2 the bytes of round 1. */
void tf_graph_rounds(const tf_call_ops *ops, void *calls, int count, uint64_t n,
                     void (*prepare)(void *calls, int count, int round, uint64_t seed, char *data,
                                     size_t len));

/* ---------------------------------------------------------------- allocators */

/* A context on device 0 with allocator `a` (NULL: the default one); fails the test if it cannot
 * be made. */
cuprim_ctx *tf_context(const cuprim_allocator *a);

/* Wraps cudaMallocAsync/cudaFreeAsync; counts calls and bytes and checks that every free returns
 * a live allocation with the size and stream it was taken with. */
#define TF_MAX_LIVE 256
typedef struct tf_counting_allocator {
  unsigned long allocs, frees, failed_allocs, unmatched_frees, mismatched_frees;
  unsigned long long bytes_allocated, bytes_freed;
  struct {
    void *ptr;
    size_t bytes;
    cudaStream_t stream;
  } live[TF_MAX_LIVE];
  int nlive, max_live;
} tf_counting_allocator;

/* A context whose allocator keeps `counts` (zeroed here). */
cuprim_ctx *tf_counting_context(tf_counting_allocator *counts);
/* Destroys the context, prints the counts; a failure for an allocator never called (`why`: why
 * it should have been), a failed allocation, an allocation never freed, a free that matches no
 * allocation or another size or stream, bytes that do not balance. */
void tf_check_counting(cuprim_ctx *ctx, const tf_counting_allocator *counts, const char *why);

/* An allocator that always fails (returns NULL), counting its calls. */
typedef struct tf_failing_allocator {
  unsigned long allocs, frees;
} tf_failing_allocator;

/* A context whose allocator always fails, counting into `counts` (zeroed here). */
cuprim_ctx *tf_failing_context(tf_failing_allocator *counts);
/* Destroys the context; a failure unless the allocator was called, and unless free was never
 * called (nothing was allocated); no CUDA error may be left. */
void tf_check_failing(cuprim_ctx *ctx, const tf_failing_allocator *counts);

/* The bodies of the allocator tests: tf_begin, a context with the allocator, run_cases(ctx) (the
 * program's calls through it), then tf_check_counting (why: why the allocator must have been
 * called) or tf_check_failing, and tf_end. */
void tf_counting_test(void (*run_cases)(cuprim_ctx *ctx), const char *why);
void tf_failing_test(void (*run_cases)(cuprim_ctx *ctx));
/* The allocator tests themselves: test_counting_allocator(void **state) and
 * test_failing_allocator(void **state), defined and registered, with the bodies above. */
#define TF_COUNTING_ALLOCATOR_TEST(run_cases, why)                                                 \
  TU_TEST(test_counting_allocator) {                                                               \
    (void)state;                                                                                   \
    tf_counting_test(run_cases, why);                                                              \
  }
#define TF_FAILING_ALLOCATOR_TEST(run_cases)                                                       \
  TU_TEST(test_failing_allocator) {                                                                \
    (void)state;                                                                                   \
    tf_failing_test(run_cases);                                                                    \
  }

/* The counting-allocator cases of test_reduce_gpu.c and test_scan_gpu.c: a dtype, an op and a
 * size each, n in full mode and quick_n in quick mode, so that a program's table is a constant
 * and the loop over it is written once, here. tf_counting_cases_test is tf_counting_test whose
 * run_cases runs run(ctx, c, seed) for each case in table order, c->n being the size of the mode
 * and seed tf_case_seed(0xA11C, t, op, n) the one the case's data is drawn from.
 * TF_COUNTING_ALLOCATOR_CASES(cases, run, why) defines and registers test_counting_allocator with
 * a whole array. */
typedef struct tf_alloc_case {
  cuprim_dtype t;
  cuprim_op op;
  uint64_t n, quick_n;
} tf_alloc_case;
void tf_counting_cases_test(const tf_alloc_case *cases, size_t count,
                            void (*run)(cuprim_ctx *ctx, const tf_alloc_case *c, uint64_t seed),
                            const char *why);
#define TF_COUNTING_ALLOCATOR_CASES(cases, run, why)                                               \
  TU_TEST(test_counting_allocator) {                                                               \
    (void)state;                                                                                   \
    tf_counting_cases_test((cases), sizeof(cases) / sizeof(cases)[0], (run), (why));               \
  }

/* Calls made with a failing allocator: a call that returned CUPRIM_ERROR_OUT_OF_MEMORY must have
 * written nothing; one in must_fail[] must have returned it; any other must pass tf_check. */
void tf_check_out_of_memory(const tf_call_ops *ops, const void *calls, int count,
                            const tf_region *rg, tf_result *res, const int *must_fail,
                            const tf_case *cs);
/* calls[0..count) through ctx (a context with a failing allocator) in tf.out on tf.stream
 * (tf_enqueue), waited for, then checked by tf_check_out_of_memory. */
void tf_run_out_of_memory(const tf_call_ops *ops, cuprim_ctx *ctx, const void *calls, int count,
                          tf_result *res, const int *must_fail, const tf_case *cs);

/* ---------------------------------------------------------------- the last test */

/* The test test_no_cuda_error_left, which TF_MAIN runs after the program's own: no CUDA error is
 * left on the device or in cuprim_last_cuda_error(). */
void tf_test_no_cuda_error_left(void **state);

#endif
