/* The NCCL component (cuprim/nccl.h) on GPUs.
 *
 * One GPU, real NCCL: a one-rank communicator on device 0 (ncclCommInitAll with one device) through
 * cuprim_nccl_reduce, _scan and _histogram_even with every dtype, op, kind and bin count they
 * take, sizes from 0 up, in place and not, against the host references and against the local
 * calls (one rank: the same bits as cuprim_reduce and cuprim_histogram_even, and as cuprim_scan
 * where its bits are fixed); the legacy and per-thread streams; CUDA graph capture and replay;
 * argument errors with a real context and communicator.
 *
 * One GPU, several ranks: NCCL puts at most one rank on a GPU, so the multi-rank logic runs for
 * "virtual ranks": the shards of one array on device 0, each rank's local steps and the
 * combination of their partials through the functions the real path runs
 * (src/nccl/nccl_internal.h: cuprim__nccl_partial, cuprim__nccl_combine,
 * cuprim__nccl_scan_shard); only the all-gather between them is left out (the partials are
 * already side by side). P from 1 to 16, shards uneven and empty (the first, the last, all but
 * one, all), every dtype and op, both kinds, in place.
 *
 * Two or more GPUs: all visible GPUs (at most 8) in one process, one communicator
 * (ncclCommInitAll), one thread per rank (a collective issued without a group needs its ranks on
 * threads of their own), shards uneven and empty: every rank's reduce must have the same bits,
 * and the bits the virtual ranks give for the same shards on device 0; each rank's scan is its
 * part of the scan of the whole; every rank's histogram counts all samples; capture into graphs;
 * a context on another device than the communicator's is refused. With one GPU these tests skip,
 * saying so.
 *
 * Environment and skipping as the other GPU tests (test_fixture_gpu.h). */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostref_histogram.h"
#include "hostref_reduce.h"
#include "hostref_scan.h"
#include "nccl/nccl_internal.h" /* the steps the virtual ranks run */
#include "test_fixture_gpu.h"

/* ---------------------------------------------------------------- buffers */

/* The largest host-filled input: 2^22 + 5 eight-byte elements, (2^23 + 3) four-byte ones. */
#define IN_CAP_BYTES ((size_t)40 << 20)
/* d_in2: the virtual ranks' partials and prefixes (and room to spare). */
#define IN2_CAP_BYTES ((size_t)1 << 20)
#define OUT_CAP_BYTES ((size_t)160 << 20)
#define MAX_CALLS 32
#define MAX_RANKS 16 /* virtual ranks */
#define MAX_GPUS 8   /* real ranks */

static hr_gpu_shape g_shape;
static ncclComm_t g_comm1; /* one rank on device 0 */
static ncclResult_t g_comm1_status = ncclSuccess;

static hr_reduce_ref g_rref;
static hr_scan_ref g_sref, g_sref_excl; /* a case's inclusive and exclusive references */
static uint64_t *g_want;                /* histogram reference counts */
#define MAX_BINS 5000

static void setup(void) {
  g_shape.sm_count = (unsigned)tf.prop.multiProcessorCount;
  g_shape.max_blocks_per_sm = (unsigned)tf.prop.maxBlocksPerMultiProcessor;
  g_want = (uint64_t *)malloc(MAX_BINS * sizeof(uint64_t));
  const int dev0 = 0;
  g_comm1_status = ncclCommInitAll(&g_comm1, 1, &dev0);
  if (g_comm1_status != ncclSuccess)
    g_comm1 = NULL;
  (void)cudaSetDevice(0);
}

static void multi_teardown(void);

static void teardown(void) {
  multi_teardown();
  if (g_comm1)
    (void)ncclCommDestroy(g_comm1);
  free(g_want);
}

static const tf_config config = {
    .in_bytes = IN_CAP_BYTES,
    .in2_bytes = IN2_CAP_BYTES,
    .out_bytes = OUT_CAP_BYTES,
    .scan_refs = {&g_sref, &g_sref_excl},
    .setup = setup,
    .teardown = teardown,
};

/* The first line of the tests that use the one-rank communicator. */
static void begin_one_rank(void) {
  tf_begin();
  if (!g_comm1 || !g_want)
    fail_msg("ncclCommInitAll(one rank on device 0) failed: %s (%s)",
             ncclGetErrorString(g_comm1_status), ncclGetLastError(NULL));
}
/* Reduce and scan run over hr_dtypes_32_64: cuprim_nccl_reduce takes no F16 or BF16 (nccl.h), and
 * the scans' data and choices here (is_float) are written for 32- and 64-bit dtypes only. The
 * histograms take every dtype (hr_all_dtypes). */

static const cuprim_scan_kind kinds[] = {CUPRIM_INCLUSIVE, CUPRIM_EXCLUSIVE};

/* Reduce and scan run over hr_dtypes_32_64: cuprim_nccl_reduce takes no F16 or BF16 (nccl.h), and
 * the scans' data and choices here (is_float) are written for 32- and 64-bit dtypes only. The
 * histograms take every dtype (hr_all_dtypes). */
static int is_float(cuprim_dtype t) { return t == CUPRIM_F32 || t == CUPRIM_F64; }

/* ---------------------------------------------------------------- calls */

enum prim { REDUCE, SCAN, HIST };
enum via { VIA_NCCL, VIA_LOCAL };

typedef struct nccl_call {
  int prim, via;
  ncclComm_t comm;
  const unsigned char *d_in; /* input or samples; in place: copied into the output first */
  int in_place;
  uint64_t n;
  cuprim_dtype dtype;
  cuprim_op op;
  cuprim_scan_kind kind;
  uint32_t num_bins;
  double lower, upper;
  const hr_reduce_ref *rref; /* REDUCE */
  const hr_scan_ref *sref;   /* SCAN */
  const uint64_t *want;      /* HIST */
} nccl_call;

static nccl_call reduce_call(int via, const void *d_in, uint64_t n, cuprim_dtype t, cuprim_op op,
                             const hr_reduce_ref *ref) {
  return (nccl_call){.prim = REDUCE,
                     .via = via,
                     .comm = g_comm1,
                     .d_in = (const unsigned char *)d_in,
                     .n = n,
                     .dtype = t,
                     .op = op,
                     .rref = ref};
}

static nccl_call scan_call(int via, const void *d_in, uint64_t n, cuprim_dtype t, cuprim_op op,
                           cuprim_scan_kind kind, int in_place, const hr_scan_ref *ref) {
  nccl_call c = reduce_call(via, d_in, n, t, op, NULL);
  c.prim = SCAN;
  c.kind = kind;
  c.in_place = in_place;
  c.sref = ref;
  return c;
}

static nccl_call hist_call(int via, const void *d_samples, uint64_t n, cuprim_dtype t,
                           const hr_hist_bins *b, const uint64_t *want) {
  nccl_call c = reduce_call(via, d_samples, n, t, CUPRIM_SUM, NULL);
  c.prim = HIST;
  c.num_bins = b->num_bins;
  c.lower = b->lower;
  c.upper = b->upper;
  c.want = want;
  return c;
}

static const char *prim_name(const nccl_call *c) {
  static const char *names[2][3] = {
      {"cuprim_nccl_reduce", "cuprim_nccl_scan", "cuprim_nccl_histogram_even"},
      {"cuprim_reduce", "cuprim_scan", "cuprim_histogram_even"}};
  return names[c->via][c->prim];
}

static void describe(char *buf, size_t len, const void *p, const char *data, uint64_t seed) {
  const nccl_call *c = (const nccl_call *)p;
  char extra[96] = "";
  if (c->prim == SCAN)
    snprintf(extra, sizeof extra, " %s %s", hr_scan_kind_name(c->kind),
             c->in_place ? "in-place" : "out-of-place");
  else if (c->prim == HIST)
    snprintf(extra, sizeof extra, " bins=%u [%.17g, %.17g)", c->num_bins, c->lower, c->upper);
  snprintf(buf, len, "%s %s %s%s n=%" PRIu64 " data=%s seed=0x%016" PRIx64, prim_name(c),
           hr_dtype_name(c->dtype), c->prim == HIST ? "" : hr_op_name(c->op), extra, c->n, data,
           seed);
}

static void call_output(const void *p, size_t *bytes, size_t *misalign) {
  const nccl_call *c = (const nccl_call *)p;
  const size_t size = cuprim_dtype_size(c->dtype);
  *misalign = 0;
  if (c->prim == REDUCE) {
    *bytes = size;
    *misalign = size; /* element-aligned, not 16-byte aligned */
  } else if (c->prim == SCAN) {
    *bytes = (size_t)c->n * size;
  } else {
    *bytes = (size_t)c->num_bins * sizeof(uint64_t);
  }
}

static cuprim_status issue(cuprim_ctx *ctx, const void *p, void *d_out, cudaStream_t stream) {
  const nccl_call *c = (const nccl_call *)p;
  const int nccl = c->via == VIA_NCCL;
  switch (c->prim) {
  case REDUCE:
    return nccl ? cuprim_nccl_reduce(ctx, c->comm, c->d_in, d_out, c->n, c->dtype, c->op, stream)
                : cuprim_reduce(ctx, c->d_in, d_out, c->n, c->dtype, c->op, stream);
  case SCAN: {
    const size_t bytes = (size_t)c->n * cuprim_dtype_size(c->dtype);
    const void *in = tf_in_place_input(c->in_place, d_out, c->d_in, bytes, stream);
    return nccl ? cuprim_nccl_scan(ctx, c->comm, in, d_out, c->n, c->dtype, c->op, c->kind, stream)
                : cuprim_scan(ctx, in, d_out, c->n, c->dtype, c->op, c->kind, stream);
  }
  default:
    return nccl ? cuprim_nccl_histogram_even(ctx, c->comm, c->d_in, c->n, c->dtype,
                                             (uint64_t *)d_out, c->num_bins, c->lower, c->upper,
                                             stream)
                : cuprim_histogram_even(ctx, c->d_in, c->n, c->dtype, (uint64_t *)d_out,
                                        c->num_bins, c->lower, c->upper, stream);
  }
}

static int check(const tf_region *rg, const void *p, tf_result *r, const tf_case *cs,
                 const char *what) {
  const nccl_call *c = (const nccl_call *)p;
  char why[1024];
  const unsigned char *got = tf_slot_host(rg, &r->slot);
  if (c->prim == REDUCE) {
    const size_t size = cuprim_dtype_size(c->dtype);
    const int poison_expected =
        c->rref->exact && tu_pattern_mismatch(c->rref->bits, size, TF_POISON) == size;
    if (tu_pattern_mismatch(got, size, TF_POISON) == size && !poison_expected) {
      tf_failure("%s: d_out was not written (still the poison pattern)", what);
      return 0;
    }
    if (!hr_reduce_check(c->rref, CUPRIM_REDUCE_AUTO, &g_shape, got, why, sizeof why)) {
      tf_failure("%s: %s", what, why);
      return 0;
    }
  } else if (c->prim == SCAN) {
    uint64_t first = 0, last = 0;
    const uint64_t wrong = hr_scan_check(c->sref, got, TF_POISON, &first, &last, why, sizeof why);
    if (wrong) {
      tf_failure("%s: %" PRIu64 " wrong element(s) (%" PRIu64 "..%" PRIu64 "), the first %s", what,
                 wrong, first, last, why);
      return 0;
    }
  } else {
    uint64_t first = 0;
    const uint64_t wrong = hr_hist_check(c->want, (const uint64_t *)(const void *)got, c->num_bins,
                                         c->n, TF_POISON, &first, why, sizeof why);
    if (wrong) {
      tf_failure("%s: %s", what, why);
      return 0;
    }
  }
  return tf_passed(r, cs, got);
}

/* The output is d_out (reduce, scan) or d_counts (histogram). */
static const tf_call_ops ops = {sizeof(nccl_call), "the output", call_output, issue,
                                describe,          check,        NULL};

static int run_and_check(nccl_call *calls, int count, cudaStream_t stream, const char *data,
                         uint64_t seed, int want_hash, tf_result *res) {
  const tf_case cs = {data, seed, want_hash};
  return tf_run_and_check(&ops, tf.ctx, calls, count, stream, &cs, res);
}

/* Calls i and j (both passed) must have given the same bits. */
static void same_bits(const nccl_call *calls, const tf_result *res, int i, int j, const char *data,
                      uint64_t seed) {
  if (!res[i].ok || !res[j].ok || res[i].hash == res[j].hash)
    return;
  char a[512], b[512];
  describe(a, sizeof a, &calls[i], data, seed);
  describe(b, sizeof b, &calls[j], data, seed);
  tf_failure("%s and %s gave different bits", a, b);
}

/* ---------------------------------------------------------------- one rank: reduce */

static size_t one_rank_sizes(uint64_t *sizes, size_t cap, cuprim_dtype t) {
  static const uint64_t full[] = {0, 1, 2, 33, 4095, 4096, 4097, 65537, 262145, 1000003, 1048576};
  static const uint64_t quick[] = {0, 1, 33, 4097, 65537};
  const uint64_t large = cuprim_dtype_size(t) == 4 ? (1u << 23) + 3 : (1u << 22) + 5;
  return TF_SWEEP_SIZES(full, quick, 0x9CC1, 2, large, sizes, cap);
}

/* For every dtype of hr_dtypes_32_64, every op that `supported` takes with it and every size of
 * the dtype's one_rank_sizes, in that order: each(t, op, n), which runs the data kinds of that
 * size as cases (tf_shard_case). */
static void one_rank_ops(int (*supported)(cuprim_dtype t, cuprim_op op),
                         void (*each)(cuprim_dtype t, cuprim_op op, uint64_t n)) {
  for (size_t d = 0; d < HR_NUM_DTYPES_32_64; ++d) {
    const cuprim_dtype t = hr_dtypes_32_64[d];
    uint64_t sizes[32];
    const size_t nsizes = one_rank_sizes(sizes, 32, t);
    for (int op = 0; op <= CUPRIM_XOR; ++op) {
      if (!supported(t, (cuprim_op)op))
        continue;
      for (size_t k = 0; k < nsizes; ++k)
        each(t, (cuprim_op)op, sizes[k]);
    }
  }
}

static void one_rank_reduce_op(cuprim_dtype t, cuprim_op op, uint64_t n) {
  for (int kind = 0; kind < (tf.quick ? 1 : HR_DATA_KINDS); ++kind) {
    if (!tf_shard_case())
      continue;
    const uint64_t seed = tf_case_seed(0x9E1, t, (uint64_t)op * 4 + (uint64_t)kind, n);
    tf_reduce_input(t, op, (hr_data_kind)kind, seed, n, tf.stream);
    hr_reduce_reference(t, op, tf.h_in, n, &g_rref);
    nccl_call calls[2];
    tf_result res[2];
    calls[0] = reduce_call(VIA_NCCL, tf.d_in, n, t, op, &g_rref);
    calls[1] = reduce_call(VIA_LOCAL, tf.d_in, n, t, op, &g_rref);
    const char *data = hr_data_name((hr_data_kind)kind);
    run_and_check(calls, 2, tf.stream, data, seed, 1, res);
    same_bits(calls, res, 0, 1, data, seed);
  }
}

/* Every dtype and op reduce takes: the NCCL call on one rank against the reference, and the same
 * bits as cuprim_reduce (its partial, combined alone, is copied bit for bit). */
TF_TEST_FROM(test_one_rank_reduce, begin_one_rank) {
  one_rank_ops(hr_reduce_supported, one_rank_reduce_op);
}

/* ---------------------------------------------------------------- one rank: scan */

static void one_rank_scan_op(cuprim_dtype t, cuprim_op op, uint64_t n) {
  for (int dk = 0; dk < HR_SCAN_DATA_KINDS; ++dk) {
    if (!hr_scan_data_applies(t, op, (hr_scan_data)dk) || (tf.quick && dk == HR_SCAN_CONSTANT) ||
        !tf_shard_case())
      continue;
    const uint64_t seed = tf_case_seed(0x9E2, t, (uint64_t)op * 4 + (uint64_t)dk, n);
    tf_scan_input(t, op, (hr_scan_data)dk, seed, n, tf.stream);
    for (int ki = 0; ki < 2; ++ki) {
      tf_scan_reference(&g_sref, t, op, kinds[ki], tf.h_in, n);
      nccl_call calls[3];
      tf_result res[3];
      calls[0] = scan_call(VIA_NCCL, tf.d_in, n, t, op, kinds[ki], 0, &g_sref);
      calls[1] = scan_call(VIA_NCCL, tf.d_in, n, t, op, kinds[ki], 1, &g_sref);
      calls[2] = scan_call(VIA_LOCAL, tf.d_in, n, t, op, kinds[ki], 0, &g_sref);
      const char *data = hr_scan_data_name((hr_scan_data)dk);
      run_and_check(calls, 3, tf.stream, data, seed, 1, res);
      if (g_sref.exact) {
        same_bits(calls, res, 0, 2, data, seed);
        same_bits(calls, res, 1, 2, data, seed);
      }
    }
  }
}

/* Every dtype, op and kind scan takes, in place and not: rank 0 scans its shard as cuprim_scan
 * does, so where cuprim_scan's bits are fixed (integers, MIN/MAX, exact float data) they must be
 * the same. */
TF_TEST_FROM(test_one_rank_scan, begin_one_rank) {
  one_rank_ops(hr_scan_supported, one_rank_scan_op);
}

/* ---------------------------------------------------------------- one rank: histogram */

/* Every sample dtype histogram takes, bin counts from 1 to thousands, ranges of every kind and
 * every data kind: the counts of all samples (one rank: its own), the same as
 * cuprim_histogram_even's. */
TF_TEST_FROM(test_one_rank_histogram, begin_one_rank) {
  const uint32_t bins[] = {1, 16, 256, 4099};
  const uint64_t sizes[] = {0, 1, 1000, 100003};
  for (size_t d = 0; d < HR_NUM_DTYPES; ++d) {
    const cuprim_dtype t = hr_all_dtypes[d];
    if (!cuprim_histogram_supported(t))
      continue;
    for (size_t bi = 0; bi < sizeof bins / sizeof bins[0]; ++bi)
      for (int span = 0; span < HR_HIST_SPANS; ++span)
        for (int dk = 0; dk < HR_HIST_DATA_KINDS; ++dk) {
          if (!hr_hist_data_applies(t, (hr_hist_data)dk) ||
              (tf.quick && dk != HR_HIST_UNIFORM && (size_t)dk != 1 + (bi + (size_t)span) % 4))
            continue;
          double lo = 0.0, hi = 0.0;
          hr_hist_span_range(t, bins[bi], (hr_hist_span)span, &lo, &hi);
          const hr_hist_bins b = hr_hist_bins_even(bins[bi], lo, hi);
          for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
            const uint64_t n = sizes[k];
            const uint64_t seed =
                tf_case_seed(0x9E3, t, bi * 64 + (uint64_t)span * 8 + (uint64_t)dk, n);
            tf_hist_input(&b, t, (hr_hist_data)dk, seed, n, tf.stream);
            hr_hist_reference(&b, t, tf.h_in, n, g_want);
            nccl_call calls[2];
            tf_result res[2];
            calls[0] = hist_call(VIA_NCCL, tf.d_in, n, t, &b, g_want);
            calls[1] = hist_call(VIA_LOCAL, tf.d_in, n, t, &b, g_want);
            char data[64];
            snprintf(data, sizeof data, "%s, %s range", hr_hist_data_name((hr_hist_data)dk),
                     hr_hist_span_name((hr_hist_span)span));
            run_and_check(calls, 2, tf.stream, data, seed, 0, res);
          }
        }
  }
}

/* ---------------------------------------------------------------- one rank: streams, graphs */

/* The legacy default stream and the per-thread default stream: one call of each primitive. */
TF_TEST_FROM(test_one_rank_default_streams, begin_one_rank) {
  const uint64_t n = tf.quick ? 65537 : 1000003;
  const cuprim_dtype t = CUPRIM_U32;
  for (int si = 0; si < TF_DEFAULT_STREAMS; ++si) {
    const cudaStream_t stream = tf_default_stream[si];
    const uint64_t seed = tf_case_seed(0x57E, t, (uint64_t)si, n);
    tf_scan_input(t, CUPRIM_SUM, HR_SCAN_RANDOM, seed, n, stream);
    hr_reduce_reference(t, CUPRIM_SUM, tf.h_in, n, &g_rref);
    tf_scan_reference(&g_sref, t, CUPRIM_SUM, CUPRIM_EXCLUSIVE, tf.h_in, n);
    const hr_hist_bins b = hr_hist_bins_even(256, 0.0, 4294967296.0);
    hr_hist_reference(&b, t, tf.h_in, n, g_want);
    nccl_call calls[4];
    tf_result res[4];
    calls[0] = reduce_call(VIA_NCCL, tf.d_in, n, t, CUPRIM_SUM, &g_rref);
    calls[1] = scan_call(VIA_NCCL, tf.d_in, n, t, CUPRIM_SUM, CUPRIM_EXCLUSIVE, 0, &g_sref);
    calls[2] = scan_call(VIA_NCCL, tf.d_in, n, t, CUPRIM_SUM, CUPRIM_EXCLUSIVE, 1, &g_sref);
    calls[3] = hist_call(VIA_NCCL, tf.d_in, n, t, &b, g_want);
    run_and_check(calls, 4, stream, tf_default_stream_name[si], seed, 0, res);
  }
}

/* A graph round: new U32 data (SUM), every call's expectation. */
static hr_reduce_ref g_graph_rref0; /* of an empty shard */
static hr_scan_ref g_graph_sref[2];
static uint64_t g_graph_want[256];
static void graph_round(void *p, int count, int round, uint64_t seed, char *data, size_t len) {
  nccl_call *calls = (nccl_call *)p;
  const uint64_t n = calls[0].n;
  tf_scan_input(CUPRIM_U32, CUPRIM_SUM, HR_SCAN_RANDOM, seed, n, tf.stream);
  tf_finish(tf.stream);
  hr_reduce_reference(CUPRIM_U32, CUPRIM_SUM, tf.h_in, n, &g_rref);
  for (int k = 0; k < 2; ++k)
    tf_scan_reference(&g_graph_sref[k], CUPRIM_U32, CUPRIM_SUM, kinds[k], tf.h_in, n);
  const hr_hist_bins b = hr_hist_bins_even(256, 0.0, 4294967296.0);
  hr_hist_reference(&b, CUPRIM_U32, tf.h_in, n, g_graph_want);
  hr_reduce_reference(CUPRIM_U32, CUPRIM_SUM, tf.h_in, 0, &g_graph_rref0);
  for (int i = 0; i < count; ++i) {
    calls[i].rref = calls[i].n ? &g_rref : &g_graph_rref0;
    calls[i].sref = &g_graph_sref[calls[i].kind == CUPRIM_EXCLUSIVE];
    calls[i].want = g_graph_want;
  }
  snprintf(data, len, "random, graph replay %d", round);
}

/* The three NCCL calls captured into one graph on the one-rank communicator (after a warm-up
 * outside the capture, as NCCL advises: the first collective of a communicator may set up
 * connections, which a capture cannot hold), replayed: each replay reads the data of the moment. */
TF_TEST_FROM(test_one_rank_graph, begin_one_rank) {
  const uint64_t n = tf.quick ? 65537 : (1u << 20) + 1;
  const cuprim_dtype t = CUPRIM_U32;
  const hr_hist_bins b = hr_hist_bins_even(256, 0.0, 4294967296.0);
  nccl_call calls[5];
  calls[0] = reduce_call(VIA_NCCL, tf.d_in, n, t, CUPRIM_SUM, NULL);
  calls[1] = scan_call(VIA_NCCL, tf.d_in, n, t, CUPRIM_SUM, CUPRIM_INCLUSIVE, 0, NULL);
  calls[2] = scan_call(VIA_NCCL, tf.d_in, n, t, CUPRIM_SUM, CUPRIM_EXCLUSIVE, 1, NULL);
  calls[3] = hist_call(VIA_NCCL, tf.d_in, n, t, &b, NULL);
  calls[4] = reduce_call(VIA_NCCL, tf.d_in, 0, t, CUPRIM_SUM, NULL); /* an empty shard */
  char data[64];
  graph_round(calls, 5, -1, tf_case_seed(0x6A9, 7, 0, n), data, sizeof data);
  tf_result res[5];
  run_and_check(calls, 5, tf.stream, "warm-up before the capture", 0, 0, res);
  tf_graph_rounds(&ops, calls, 5, n, graph_round);
  for (int k = 0; k < 2; ++k)
    hr_scan_ref_free(&g_graph_sref[k]);
}

/* ---------------------------------------------------------------- one rank: errors */

/* With a real context and communicator, invalid and unsupported calls return before any CUDA or
 * NCCL work: nothing written, no CUDA error recorded, no NCCL error recorded. */
TF_TEST_FROM(test_one_rank_errors, begin_one_rank) {
  unsigned char *out = tf_poison_inputs(4096, 8192);
  const unsigned char *in = tf.d_in;
  uint64_t *counts = (uint64_t *)(void *)out;
  ncclComm_t c = g_comm1;
  const cudaStream_t s = tf.stream;
  const cuprim_scan_kind I = CUPRIM_INCLUSIVE;
  const tf_status_case cases[] = {
      {"reduce, NULL comm",
       cuprim_nccl_reduce(tf.ctx, NULL, in, out, 10, CUPRIM_F32, CUPRIM_SUM, s),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"reduce, NULL ctx", cuprim_nccl_reduce(NULL, c, in, out, 10, CUPRIM_F32, CUPRIM_SUM, s),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"reduce, NULL d_out, n 0",
       cuprim_nccl_reduce(tf.ctx, c, NULL, NULL, 0, CUPRIM_F32, CUPRIM_SUM, s),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"reduce, d_out + 1 byte",
       cuprim_nccl_reduce(tf.ctx, c, in, out + 1, 10, CUPRIM_I32, CUPRIM_SUM, s),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"reduce, XOR on F32", cuprim_nccl_reduce(tf.ctx, c, in, out, 10, CUPRIM_F32, CUPRIM_XOR, s),
       CUPRIM_ERROR_UNSUPPORTED},
      {"reduce, U16", cuprim_nccl_reduce(tf.ctx, c, in, out, 10, CUPRIM_U16, CUPRIM_MAX, s),
       CUPRIM_ERROR_UNSUPPORTED},
      {"scan, NULL comm", cuprim_nccl_scan(tf.ctx, NULL, in, out, 10, CUPRIM_I64, CUPRIM_SUM, I, s),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"scan, overlap",
       cuprim_nccl_scan(tf.ctx, c, in, tf.d_in + 4, 10, CUPRIM_I32, CUPRIM_SUM, I, s),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"scan, kind 2",
       cuprim_nccl_scan(tf.ctx, c, in, out, 10, CUPRIM_I32, CUPRIM_SUM, (cuprim_scan_kind)2, s),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"scan, AND on F64", cuprim_nccl_scan(tf.ctx, c, in, out, 10, CUPRIM_F64, CUPRIM_AND, I, s),
       CUPRIM_ERROR_UNSUPPORTED},
      {"histogram, NULL comm",
       cuprim_nccl_histogram_even(tf.ctx, NULL, in, 10, CUPRIM_U8, counts, 4, 0.0, 256.0, s),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"histogram, 0 bins",
       cuprim_nccl_histogram_even(tf.ctx, c, in, 10, CUPRIM_U8, counts, 0, 0.0, 256.0, s),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"histogram, lower == upper",
       cuprim_nccl_histogram_even(tf.ctx, c, in, 10, CUPRIM_U8, counts, 4, 1.0, 1.0, s),
       CUPRIM_ERROR_INVALID_ARGUMENT},
  };
  TF_CHECK_ARGUMENT_ERRORS(cases);
  if (cuprim_nccl_last_error() != ncclSuccess)
    tf_failure("cuprim_nccl_last_error() is %s after argument errors",
               ncclGetErrorString(cuprim_nccl_last_error()));
}

/* ---------------------------------------------------------------- shard layouts */

/* Shards of an array of n elements over p ranks: offsets off[0..p], rank r holds
 * [off[r], off[r+1]). The layouts: even, seeded uneven, the first empty, the last empty, every
 * other empty, all but one empty (a middle one), all empty but the last. */
#define LAYOUTS 7
static const char *const layout_names[LAYOUTS] = {"even",
                                                  "uneven",
                                                  "first empty",
                                                  "last empty",
                                                  "every other empty",
                                                  "all but one empty",
                                                  "all but the last empty"};

static void layout(int which, int p, uint64_t n, uint64_t seed, uint64_t *off) {
  off[0] = 0;
  off[p] = n;
  uint64_t s = seed;
  switch (which) {
  case 0:
    for (int r = 1; r < p; ++r)
      off[r] = n * (uint64_t)r / (uint64_t)p;
    break;
  case 1: /* random cut points, sorted */
    for (int r = 1; r < p; ++r)
      off[r] = n ? hr_below(&s, n + 1) : 0;
    for (int i = 1; i < p; ++i)
      for (int j = i + 1; j < p; ++j)
        if (off[j] < off[i]) {
          const uint64_t x = off[i];
          off[i] = off[j];
          off[j] = x;
        }
    break;
  case 2: /* rank 0 empty, the rest even */
    for (int r = 1; r < p; ++r)
      off[r] = p > 1 ? n * (uint64_t)(r - 1) / (uint64_t)(p - 1) : n;
    break;
  case 3: /* the last rank empty */
    for (int r = 1; r < p; ++r)
      off[r] = p > 1 ? n * (uint64_t)r / (uint64_t)(p - 1) : n;
    if (p > 1)
      off[p - 1] = n;
    break;
  case 4: /* odd ranks empty */
    for (int r = 1; r < p; ++r)
      off[r] = r % 2 ? n * (uint64_t)(r + 1) / (uint64_t)(p + 1) : off[r - 1];
    for (int r = 1; r < p; ++r)
      if (off[r] < off[r - 1])
        off[r] = off[r - 1];
    break;
  case 5: /* only rank p/2 holds data */
    for (int r = 1; r < p; ++r)
      off[r] = r <= p / 2 ? 0 : n;
    break;
  default: /* only the last rank holds data */
    for (int r = 1; r < p; ++r)
      off[r] = 0;
    break;
  }
}

/* ---------------------------------------------------------------- the combination alone */

/* cuprim__nccl_combine of the `count` partials h[0..count) of (t, op): uploaded to tf.d_in2 (none
 * for 0), combined into tf.d_in2 + 8192, whose element comes back in *got once the stream is done.
 * Returns what the call returned. */
static cuprim_status combine(const void *h, int count, cuprim_dtype t, cuprim_op op, void *got) {
  unsigned char *d_part = tf.d_in2, *d_out = tf.d_in2 + 8192;
  const size_t size = cuprim_dtype_size(t);
  if (count)
    TF_CUDA(cudaMemcpyAsync(d_part, h, (size_t)count * size, cudaMemcpyHostToDevice, tf.stream));
  const cuprim_status st = cuprim__nccl_combine(tf.ctx, d_part, count, d_out, t, op, tf.stream);
  TF_CUDA(cudaMemcpyAsync(got, d_out, size, cudaMemcpyDeviceToHost, tf.stream));
  tf_finish(tf.stream);
  return st;
}

/* cuprim__nccl_combine alone, on partials written here: the identity for none, the partial
 * itself (bit for bit, -0.0 and NaN payloads included) for one, and left to right for more:
 * a float SUM whose order shows ((1e20 + -1e20) + 1 = 1, but 1e20 + (-1e20 + 1) = 0), and MIN over
 * a NaN (the first NaN wins). Also past one block of staged partials (129, 300 partials). */
TF_TEST(test_combine_order) {
  double h_part[300];
  double got = 0.0;
  /* one partial: -0.0 stays -0.0 under SUM */
  h_part[0] = -0.0;
  assert_int_equal(combine(h_part, 1, CUPRIM_F64, CUPRIM_SUM, &got), CUPRIM_SUCCESS);
  if (!(got == 0.0 && signbit(got)))
    tf_failure("combine of one partial -0.0 (SUM) gave %g, not -0.0", got);
  /* none: the identity */
  TF_CUDA(cudaMemsetAsync(tf.d_in2 + 8192, TF_POISON, 8, tf.stream));
  assert_int_equal(combine(h_part, 0, CUPRIM_F64, CUPRIM_MIN, &got), CUPRIM_SUCCESS);
  if (!(isinf(got) && got > 0))
    tf_failure("combine of no partials (MIN) gave %g, not +inf", got);
  /* the order: left to right */
  h_part[0] = 1e20;
  h_part[1] = -1e20;
  h_part[2] = 1.0;
  assert_int_equal(combine(h_part, 3, CUPRIM_F64, CUPRIM_SUM, &got), CUPRIM_SUCCESS);
  if (got != 1.0)
    tf_failure("combine (1e20, -1e20, 1) (SUM) gave %g, not 1 (left to right)", got);
  /* many partials, past the 128 staged at a time: an order-revealing sum and an integer XOR */
  for (int count = 127; count <= 300; count += 173) {
    for (int i = 0; i < count; ++i)
      h_part[i] = i % 2 ? -1e20 : 1e20;
    h_part[count - 1] = 3.0; /* left to right, 3 survives only where the sum before it is 0 */
    assert_int_equal(combine(h_part, count, CUPRIM_F64, CUPRIM_SUM, &got), CUPRIM_SUCCESS);
    double want = 0.0;
    for (int i = 0; i < count; ++i)
      want = i == 0 ? h_part[0] : want + h_part[i];
    if (got != want)
      tf_failure("combine of %d alternating +-1e20 then 3 (SUM) gave %.17g, left to right gives "
                 "%.17g",
                 count, got, want);
    uint64_t hx[300], gx = 0, wx = 0;
    for (int i = 0; i < count; ++i) {
      hx[i] = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
      wx ^= hx[i];
    }
    assert_int_equal(combine(hx, count, CUPRIM_U64, CUPRIM_XOR, &gx), CUPRIM_SUCCESS);
    if (gx != wx)
      tf_failure("combine of %d U64 partials (XOR) gave 0x%016" PRIx64 ", expected 0x%016" PRIx64,
                 count, gx, wx);
  }
  /* MIN with a NaN among the partials: NaN */
  float hf[4] = {3.0f, NAN, -1.0f, 2.0f}, gf = 0.0f;
  assert_int_equal(combine(hf, 4, CUPRIM_F32, CUPRIM_MIN, &gf), CUPRIM_SUCCESS);
  if (!isnan(gf))
    tf_failure("combine (3, NaN, -1, 2) (MIN) gave %g, not NaN", (double)gf);
}

/* ---------------------------------------------------------------- virtual ranks */

/* Float SUM over P shards: AUTO within each shard (at most 8 log2(m+2) roundings per element, see
 * test_reduce_ref.c) and then up to P - 1 more in the combination; the bound of
 * hr_reduce_sum_tolerance with those roundings. */
static int virtual_sum_ok(const hr_reduce_ref *ref, const void *got, uint64_t max_shard, int p,
                          char *why, size_t len) {
  const long double eps = ref->dtype == CUPRIM_F32 ? FLT_EPSILON : DBL_EPSILON;
  const long double tiny = ref->dtype == CUPRIM_F32 ? FLT_MIN : DBL_MIN;
  const long double tol =
      4.0L * ((long double)log2((double)max_shard + 2.0) + (long double)p) * eps * ref->abs_sum +
      tiny;
  const long double v =
      ref->dtype == CUPRIM_F32 ? (long double)*(const float *)got : *(const double *)got;
  if (isfinite((double)v) && fabsl(v - ref->value) <= tol)
    return 1;
  snprintf(why, len, "expected %.17Lg (within %.3Lg), got %.17Lg", ref->value, tol, v);
  return 0;
}

/* The steps the real path runs on every rank, for p virtual ranks on device 0: the partials of the
 * shards of tf.d_in[0..n) into d_partials (as the all-gather leaves them), then the reduce's
 * combination into d_red, and each shard scanned from its prefix into d_scan (d_scan == d_in: in
 * place, each shard's input being its output). */
static cuprim_status run_virtual(int p, const uint64_t *off, const unsigned char *d_in, uint64_t n,
                                 cuprim_dtype t, cuprim_op op, cuprim_scan_kind kind,
                                 unsigned char *d_partials, unsigned char *d_prefix,
                                 unsigned char *d_red, unsigned char *d_scan, int in_place) {
  const size_t size = cuprim_dtype_size(t);
  (void)n;
  if (in_place && off[p])
    TF_CUDA(
        cudaMemcpyAsync(d_scan, d_in, (size_t)off[p] * size, cudaMemcpyDeviceToDevice, tf.stream));
  const unsigned char *src = in_place ? d_scan : d_in;
  for (int r = 0; r < p; ++r) {
    const cuprim_status st = cuprim__nccl_partial(tf.ctx, src + off[r] * size, off[r + 1] - off[r],
                                                  t, op, d_partials + (size_t)r * size, tf.stream);
    if (st != CUPRIM_SUCCESS)
      return st;
  }
  if (d_red) {
    const cuprim_status st = cuprim__nccl_combine(tf.ctx, d_partials, p, d_red, t, op, tf.stream);
    if (st != CUPRIM_SUCCESS)
      return st;
  }
  for (int r = 0; d_scan && r < p; ++r) {
    const cuprim_status st = cuprim__nccl_scan_shard(
        tf.ctx, d_partials, r, src + off[r] * size, d_scan + off[r] * size, off[r + 1] - off[r], t,
        op, kind, d_prefix + (size_t)r * size, tf.stream);
    if (st != CUPRIM_SUCCESS)
      return st;
  }
  return CUPRIM_SUCCESS;
}

/* Float SUM and PROD: rounding makes their results depend on the order of combination; the shard
 * tests take them on exact data too. */
static int float_arith(cuprim_dtype t, int op) {
  return is_float(t) && (op == CUPRIM_SUM || op == CUPRIM_PROD);
}

/* A reduce-and-scan case of the shard tests: the input (scan data of kind `data`, seed from salt,
 * t, op, data and n) in tf.h_in and tf.d_in, and its references g_rref, g_sref (inclusive) and
 * g_sref_excl. Returns the seed. */
static uint64_t shard_case(uint64_t salt, cuprim_dtype t, cuprim_op op, hr_scan_data data,
                           uint64_t n) {
  const uint64_t seed =
      tf_case_seed(salt, t, (uint64_t)op * 2 + (uint64_t)(data == HR_SCAN_EXACT), n);
  tf_scan_input(t, op, data, seed, n, tf.stream);
  hr_reduce_reference(t, op, tf.h_in, n, &g_rref);
  tf_scan_reference(&g_sref, t, op, CUPRIM_INCLUSIVE, tf.h_in, n);
  tf_scan_reference(&g_sref_excl, t, op, CUPRIM_EXCLUSIVE, tf.h_in, n);
  return seed;
}

/* P virtual ranks x every layout x every dtype and op (and kind), on a few sizes: the combined
 * reduce against the reference (exact data: exactly; float SUM on random data within the bound of
 * the combination), the same bits whichever rank combines, and for P = 1 the bits of
 * cuprim_reduce; the shards' scans together against the scan of the whole, in place and not. */
TF_TEST(test_virtual_ranks) {
  const int ps[] = {1, 2, 3, 4, 7, 16};
  const uint64_t full_sizes[] = {0, 1, 5, 1000, 65537, 1000003};
  const uint64_t quick_sizes[] = {0, 1, 1000, 65537};
  const uint64_t *sizes = tf.quick ? quick_sizes : full_sizes;
  const size_t nsizes = tf.quick ? 4 : 6;
  unsigned char *d_partials = tf.d_in2, *d_prefix = tf.d_in2 + 4096;
  unsigned char *d_red = tf.d_in2 + 8192;
  unsigned char *d_scan = tf.out.d + TF_GUARD_BYTES;
  unsigned char *h_scan = tf.out.h + TF_GUARD_BYTES;
  unsigned char h_red[MAX_RANKS + 1][8];
  unsigned long cases = 0;
  for (tf_dtype_op it = {0};
       tf_next_dtype_op(&it, hr_dtypes_32_64, HR_NUM_DTYPES_32_64, hr_scan_supported);) {
    const cuprim_dtype t = it.t;
    const int op = (int)it.op;
    const size_t size = cuprim_dtype_size(t);
    for (int exact = 0; exact <= float_arith(t, op); ++exact)
      for (size_t si = 0; si < nsizes; ++si) {
        if (!tf_shard_case())
          continue;
        const uint64_t n = sizes[si];
        const hr_scan_data data = exact ? HR_SCAN_EXACT : HR_SCAN_RANDOM;
        const uint64_t seed = shard_case(0x7A1, t, (cuprim_op)op, data, n);
        /* cuprim_reduce of the whole, for P = 1 */
        TF_CUDA(cudaMemsetAsync(d_red, TF_POISON, 8, tf.stream));
        const cuprim_status rs =
            cuprim_reduce(tf.ctx, tf.d_in, d_red, n, t, (cuprim_op)op, tf.stream);
        TF_CUDA(cudaMemcpyAsync(h_red[MAX_RANKS], d_red, size, cudaMemcpyDeviceToHost, tf.stream));
        tf_finish(tf.stream);
        if (rs != CUPRIM_SUCCESS)
          tf_failure("cuprim_reduce: %s", tu_status_name(rs));
        for (size_t pi = 0; pi < sizeof ps / sizeof ps[0]; ++pi)
          for (int lay = 0; lay < LAYOUTS; ++lay) {
            const int p = ps[pi];
            /* Quick mode, and the largest size: a third of the (P, layout) pairs, uneven
             * shards always. */
            if ((tf.quick || n > 100000) && lay != 1 && (pi + (size_t)lay + si) % 3 != 0)
              continue;
            if (!tf_shard_part())
              continue;
            uint64_t off[MAX_RANKS + 1];
            layout(lay, p, n, hr_mix(seed, (uint64_t)(p * 16 + lay)), off);
            uint64_t max_shard = 0;
            for (int r = 0; r < p; ++r)
              max_shard = off[r + 1] - off[r] > max_shard ? off[r + 1] - off[r] : max_shard;
            for (int ki = 0; ki < 2; ++ki)
              for (int place = 0; place < 2; ++place) {
                const hr_scan_ref *sref = ki ? &g_sref_excl : &g_sref;
                char what[256];
                snprintf(what, sizeof what,
                         "virtual ranks: P=%d %s shards, %s %s %s %s n=%" PRIu64
                         " data=%s seed=0x%016" PRIx64,
                         p, layout_names[lay], hr_dtype_name(t), hr_op_name((cuprim_op)op),
                         hr_scan_kind_name(kinds[ki]), place ? "in-place" : "out-of-place", n,
                         hr_scan_data_name(data), seed);
                TF_CUDA(
                    cudaMemsetAsync(tf.out.d, TF_POISON, n * size + 2 * TF_GUARD_BYTES, tf.stream));
                /* The reduce: every rank combines the same partials; ranks 0 and p-1 here, and
                 * only once per layout (the scan's kind and placement do not change it). */
                const int with_reduce = ki == 0 && place == 0;
                cuprim_status st =
                    run_virtual(p, off, tf.d_in, n, t, (cuprim_op)op, kinds[ki], d_partials,
                                d_prefix, with_reduce ? d_red : NULL, d_scan, place);
                if (st == CUPRIM_SUCCESS && with_reduce)
                  st = cuprim__nccl_combine(tf.ctx, d_partials, p, d_red + 8, t, (cuprim_op)op,
                                            tf.stream);
                TF_CUDA(cudaMemcpyAsync(tf.out.h, tf.out.d, n * size + 2 * TF_GUARD_BYTES,
                                        cudaMemcpyDeviceToHost, tf.stream));
                if (with_reduce) {
                  TF_CUDA(
                      cudaMemcpyAsync(h_red[0], d_red, size, cudaMemcpyDeviceToHost, tf.stream));
                  TF_CUDA(cudaMemcpyAsync(h_red[1], d_red + 8, size, cudaMemcpyDeviceToHost,
                                          tf.stream));
                }
                tf_finish(tf.stream);
                ++cases;
                if (st != CUPRIM_SUCCESS) {
                  tf_failure("%s: returned %s", what, tu_status_name(st));
                  continue;
                }
                if (tu_pattern_mismatch(tf.out.h, TF_GUARD_BYTES, TF_POISON) != TF_GUARD_BYTES ||
                    tu_pattern_mismatch(h_scan + n * size, TF_GUARD_BYTES, TF_POISON) !=
                        TF_GUARD_BYTES)
                  tf_failure("%s: the scans wrote outside their output", what);
                uint64_t first = 0, last = 0;
                char why[512];
                const uint64_t wrong =
                    hr_scan_check(sref, h_scan, TF_POISON, &first, &last, why, sizeof why);
                if (wrong)
                  tf_failure("%s: scan: %" PRIu64 " wrong element(s) (%" PRIu64 "..%" PRIu64
                             "), the first %s",
                             what, wrong, first, last, why);
                if (!with_reduce)
                  continue;
                if (memcmp(h_red[0], h_red[1], size) != 0)
                  tf_failure("%s: reduce: two combinations of the same partials differ", what);
                const int ok =
                    float_arith(t, op) && !g_rref.exact && (cuprim_op)op == CUPRIM_SUM
                        ? virtual_sum_ok(&g_rref, h_red[0], max_shard, p, why, sizeof why)
                        : hr_reduce_check(&g_rref, CUPRIM_REDUCE_AUTO, &g_shape, h_red[0], why,
                                          sizeof why);
                if (!ok)
                  tf_failure("%s: reduce: %s", what, why);
                if (p == 1 && memcmp(h_red[0], h_red[MAX_RANKS], size) != 0)
                  tf_failure("%s: reduce: one rank's result differs from cuprim_reduce's", what);
              }
          }
      }
  }
  print_message("virtual ranks: %lu cases\n", cases);
}

/* ---------------------------------------------------------------- several GPUs */

typedef struct rank_state {
  int device;
  cuprim_ctx *ctx;
  cudaStream_t stream;
  ncclComm_t comm;
  unsigned char *d_in, *d_out; /* shard input; output: guards, the output, guards */
  unsigned char *h_out;        /* pinned copy of d_out's whole span */
} rank_state;

static struct {
  int p;         /* ranks (GPUs), 0 until set up */
  int tried;     /* set up once */
  char why[256]; /* why there are none */
  rank_state r[MAX_GPUS];
  size_t in_cap, out_cap;
} g_multi;

#define MULTI_GUARD 256

/* All visible GPUs (at most MAX_GPUS): a communicator over them, and on each a context, a stream
 * and buffers. Once; torn down by the program's end (the process exit frees them). */
static void multi_setup(void) {
  if (g_multi.tried)
    return;
  g_multi.tried = 1;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess)
    count = 0;
  if (count < 2) {
    snprintf(g_multi.why, sizeof g_multi.why, "%d GPU(s) visible: these tests need at least 2",
             count);
    return;
  }
  const int p = count < MAX_GPUS ? count : MAX_GPUS;
  ncclComm_t comms[MAX_GPUS];
  int devs[MAX_GPUS];
  for (int r = 0; r < p; ++r)
    devs[r] = r;
  const ncclResult_t nr = ncclCommInitAll(comms, p, devs);
  if (nr != ncclSuccess)
    fail_msg("ncclCommInitAll(%d GPUs): %s (%s)", p, ncclGetErrorString(nr),
             ncclGetLastError(NULL));
  g_multi.in_cap = (size_t)40 << 20;
  g_multi.out_cap = g_multi.in_cap + 2 * MULTI_GUARD;
  for (int r = 0; r < p; ++r) {
    rank_state *s = &g_multi.r[r];
    s->device = r;
    s->comm = comms[r];
    if (cuprim_ctx_create(&s->ctx, r, NULL) != CUPRIM_SUCCESS)
      fail_msg("cuprim_ctx_create(device %d) failed", r);
    TF_CUDA(cudaSetDevice(r));
    TF_CUDA(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
    TF_CUDA(cudaMalloc((void **)&s->d_in, g_multi.in_cap));
    TF_CUDA(cudaMalloc((void **)&s->d_out, g_multi.out_cap));
    TF_CUDA(cudaMallocHost((void **)&s->h_out, g_multi.out_cap));
  }
  TF_CUDA(cudaSetDevice(0));
  g_multi.p = p;
  print_message("several GPUs: %d ranks, one per GPU\n", p);
}

static void multi_teardown(void) {
  for (int r = 0; r < g_multi.p; ++r) {
    rank_state *s = &g_multi.r[r];
    (void)cudaSetDevice(s->device);
    (void)cudaStreamSynchronize(s->stream);
    (void)ncclCommDestroy(s->comm);
    (void)cuprim_ctx_destroy(s->ctx);
    (void)cudaFree(s->d_in);
    (void)cudaFree(s->d_out);
    (void)cudaFreeHost(s->h_out);
    (void)cudaStreamDestroy(s->stream);
  }
  g_multi.p = 0;
  (void)cudaSetDevice(0);
}

static void begin_multi(void) {
  tf_begin();
  multi_setup();
  if (g_multi.p < 2) {
    print_message("[  SKIP    ] %s\n", g_multi.why);
    skip();
  }
}

/* One rank's part of a case, run on a thread of its own. */
typedef struct rank_job {
  int rank;
  int prim;
  uint64_t off, n; /* its shard of tf.h_in */
  cuprim_dtype dtype;
  cuprim_op op;
  cuprim_scan_kind kind;
  int in_place;
  int graph; /* capture the call into a graph and launch it twice */
  uint32_t num_bins;
  double lower, upper;
  cuprim_status st;
  tf_cuda_error err;
} rank_job;

#define JOB_CUDA(call)                                                                             \
  do {                                                                                             \
    if (TF_CUDA_NOTE(call, &j->err))                                                               \
      return NULL;                                                                                 \
  } while (0)

static cuprim_status rank_call(rank_job *j, rank_state *s, void *out) {
  const void *in = j->in_place ? out : (const void *)s->d_in;
  switch (j->prim) {
  case REDUCE:
    return cuprim_nccl_reduce(s->ctx, s->comm, s->d_in, out, j->n, j->dtype, j->op, s->stream);
  case SCAN:
    return cuprim_nccl_scan(s->ctx, s->comm, in, out, j->n, j->dtype, j->op, j->kind, s->stream);
  default:
    return cuprim_nccl_histogram_even(s->ctx, s->comm, s->d_in, j->n, j->dtype, (uint64_t *)out,
                                      j->num_bins, j->lower, j->upper, s->stream);
  }
}

static void *rank_main(void *arg) {
  rank_job *j = (rank_job *)arg;
  rank_state *s = &g_multi.r[j->rank];
  const size_t size = cuprim_dtype_size(j->dtype);
  JOB_CUDA(cudaSetDevice(s->device));
  unsigned char *out = s->d_out + MULTI_GUARD;
  JOB_CUDA(cudaMemsetAsync(s->d_out, TF_POISON, g_multi.out_cap, s->stream));
  if (j->n)
    JOB_CUDA(cudaMemcpyAsync(j->in_place ? out : s->d_in, tf.h_in + j->off * size,
                             (size_t)j->n * size, cudaMemcpyHostToDevice, s->stream));
  if (!j->graph) {
    j->st = rank_call(j, s, out);
  } else {
    /* A warm-up outside the capture (NCCL's connections), then the call captured and launched
     * twice: the second launch must give what the first did (the input is restored first when
     * the scan runs in place). */
    j->st = rank_call(j, s, out);
    if (j->st != CUPRIM_SUCCESS)
      return NULL;
    cudaGraph_t g = NULL;
    cudaGraphExec_t e = NULL;
    JOB_CUDA(cudaStreamBeginCapture(s->stream, cudaStreamCaptureModeThreadLocal));
    j->st = rank_call(j, s, out);
    const cudaError_t end = cudaStreamEndCapture(s->stream, &g);
    if (j->st != CUPRIM_SUCCESS)
      return NULL;
    JOB_CUDA(end);
    JOB_CUDA(cudaGraphInstantiate(&e, g, 0));
    for (int launch = 0; launch < 2; ++launch) {
      JOB_CUDA(cudaMemsetAsync(s->d_out, TF_POISON, g_multi.out_cap, s->stream));
      if (j->in_place && j->n)
        JOB_CUDA(cudaMemcpyAsync(out, tf.h_in + j->off * size, (size_t)j->n * size,
                                 cudaMemcpyHostToDevice, s->stream));
      JOB_CUDA(cudaGraphLaunch(e, s->stream));
    }
    JOB_CUDA(cudaStreamSynchronize(s->stream));
    JOB_CUDA(cudaGraphExecDestroy(e));
    JOB_CUDA(cudaGraphDestroy(g));
  }
  if (j->st != CUPRIM_SUCCESS)
    return NULL;
  JOB_CUDA(cudaMemcpyAsync(s->h_out, s->d_out, g_multi.out_cap, cudaMemcpyDeviceToHost, s->stream));
  JOB_CUDA(cudaStreamSynchronize(s->stream));
  return NULL;
}

/* Runs jobs[0..p) on p threads; fails the test if a CUDA call of a job failed. Returns 1 if every
 * call returned CUPRIM_SUCCESS (each that did not is reported). */
static int run_ranks(rank_job *jobs, const char *what) {
  const int p = g_multi.p;
  pthread_t th[MAX_GPUS];
  for (int r = 0; r < p; ++r) {
    jobs[r].rank = r;
    jobs[r].st = CUPRIM_ERROR_INTERNAL;
    jobs[r].err.error = cudaSuccess;
    if (pthread_create(&th[r], NULL, rank_main, &jobs[r]) != 0)
      fail_msg("pthread_create failed");
  }
  for (int r = 0; r < p; ++r)
    pthread_join(th[r], NULL);
  int ok = 1;
  for (int r = 0; r < p; ++r) {
    if (jobs[r].err.error != cudaSuccess)
      fail_msg("%s: rank %d: %s", what, r, jobs[r].err.what);
    if (jobs[r].st != CUPRIM_SUCCESS) {
      tf_failure("%s: rank %d returned %s (last CUDA error %s, last NCCL error %s)", what, r,
                 tu_status_name(jobs[r].st), cudaGetErrorName(cuprim_last_cuda_error()),
                 ncclGetErrorString(cuprim_nccl_last_error()));
      ok = 0;
    }
  }
  return ok;
}

/* The guards of rank r's output (out_bytes long) must hold the poison. */
static int rank_guards_ok(int r, size_t out_bytes, const char *what) {
  const unsigned char *h = g_multi.r[r].h_out;
  if (tu_pattern_mismatch(h, MULTI_GUARD, TF_POISON) != MULTI_GUARD ||
      tu_pattern_mismatch(h + MULTI_GUARD + out_bytes, MULTI_GUARD, TF_POISON) != MULTI_GUARD) {
    tf_failure("%s: rank %d wrote outside its output", what, r);
    return 0;
  }
  return 1;
}

/* The jobs of one primitive over the shards off[0..p]: rank r takes elements off[r]..off[r+1] of
 * tf.d_in; every other member zero (jobs holds MAX_GPUS). */
static void shard_jobs(rank_job *jobs, int p, int prim, const uint64_t *off, cuprim_dtype t) {
  memset(jobs, 0, MAX_GPUS * sizeof *jobs);
  for (int r = 0; r < p; ++r) {
    jobs[r].prim = prim;
    jobs[r].off = off[r];
    jobs[r].n = off[r + 1] - off[r];
    jobs[r].dtype = t;
  }
}

/* Reduce and scan over every GPU: every dtype and op, shards in every layout, both kinds, in
 * place and not (and one case of each captured into graphs). Each rank's reduce must have the
 * same bits as every other rank's and as the virtual ranks' on device 0 for the same shards; each
 * rank's scan is its part of the scan of the whole. */
TF_TEST_FROM(test_multi_gpu_reduce_scan, begin_multi) {
  const int p = g_multi.p;
  const uint64_t sizes[] = {0, 1000, tf.quick ? 65537u : 1000003u};
  unsigned char *d_partials = tf.d_in2, *d_prefix = tf.d_in2 + 4096, *d_red = tf.d_in2 + 8192;
  int graphs_done = 0;
  for (tf_dtype_op it = {0};
       tf_next_dtype_op(&it, hr_dtypes_32_64, HR_NUM_DTYPES_32_64, hr_scan_supported);) {
    const cuprim_dtype t = it.t;
    const int op = (int)it.op;
    const size_t size = cuprim_dtype_size(t);
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
      for (int exact = 0; exact <= float_arith(t, op); ++exact) {
        const uint64_t n = sizes[si];
        const hr_scan_data data = exact ? HR_SCAN_EXACT : HR_SCAN_RANDOM;
        const uint64_t seed = shard_case(0x3A7, t, (cuprim_op)op, data, n);
        for (int lay = 0; lay < LAYOUTS; ++lay) {
          if (tf.quick && lay != 1 && lay != (int)(si % LAYOUTS))
            continue;
          uint64_t off[MAX_GPUS + 1];
          layout(lay, p, n, hr_mix(seed, (uint64_t)lay), off);
          char what[256];
          snprintf(what, sizeof what,
                   "%d GPUs, %s shards: %s %s n=%" PRIu64 " data=%s seed=0x%016" PRIx64, p,
                   layout_names[lay], hr_dtype_name(t), hr_op_name((cuprim_op)op), n,
                   hr_scan_data_name(data), seed);
          /* The virtual ranks' result for the same shards, on device 0. */
          unsigned char virt[8];
          TF_CUDA(cudaMemsetAsync(d_red, TF_POISON, 8, tf.stream));
          const cuprim_status vs =
              run_virtual(p, off, tf.d_in, n, t, (cuprim_op)op, CUPRIM_INCLUSIVE, d_partials,
                          d_prefix, d_red, NULL, 0);
          TF_CUDA(cudaMemcpyAsync(virt, d_red, size, cudaMemcpyDeviceToHost, tf.stream));
          tf_finish(tf.stream);
          if (vs != CUPRIM_SUCCESS)
            tf_failure("%s: the virtual ranks returned %s", what, tu_status_name(vs));
          /* reduce on every GPU */
          const int graph = !graphs_done && n > 0 && lay == 1;
          rank_job jobs[MAX_GPUS];
          shard_jobs(jobs, p, REDUCE, off, t);
          for (int r = 0; r < p; ++r) {
            jobs[r].op = (cuprim_op)op;
            jobs[r].graph = graph;
          }
          if (run_ranks(jobs, what)) {
            for (int r = 0; r < p; ++r) {
              if (!rank_guards_ok(r, size, what))
                continue;
              const unsigned char *got = g_multi.r[r].h_out + MULTI_GUARD;
              if (memcmp(got, g_multi.r[0].h_out + MULTI_GUARD, size) != 0)
                tf_failure("%s: reduce: rank %d's bits differ from rank 0's", what, r);
              if (vs == CUPRIM_SUCCESS && memcmp(got, virt, size) != 0)
                tf_failure("%s: reduce: rank %d's bits differ from the virtual ranks' on device 0",
                           what, r);
            }
            char why[512];
            const unsigned char *got = g_multi.r[0].h_out + MULTI_GUARD;
            uint64_t max_shard = 0;
            for (int r = 0; r < p; ++r)
              max_shard = off[r + 1] - off[r] > max_shard ? off[r + 1] - off[r] : max_shard;
            const int ok =
                float_arith(t, op) && !g_rref.exact && (cuprim_op)op == CUPRIM_SUM
                    ? virtual_sum_ok(&g_rref, got, max_shard, p, why, sizeof why)
                    : hr_reduce_check(&g_rref, CUPRIM_REDUCE_AUTO, &g_shape, got, why, sizeof why);
            if (!ok)
              tf_failure("%s: reduce: %s", what, why);
          }
          /* scan on every GPU */
          for (int ki = 0; ki < 2; ++ki)
            for (int place = 0; place < 2; ++place) {
              if (tf.quick && place != ki)
                continue;
              const hr_scan_ref *sref = ki ? &g_sref_excl : &g_sref;
              for (int r = 0; r < p; ++r) {
                jobs[r].prim = SCAN;
                jobs[r].kind = kinds[ki];
                jobs[r].in_place = place;
                jobs[r].graph = graph && place == 1;
              }
              char swhat[320];
              snprintf(swhat, sizeof swhat, "%s, scan %s %s", what, hr_scan_kind_name(kinds[ki]),
                       place ? "in-place" : "out-of-place");
              if (!run_ranks(jobs, swhat))
                continue;
              for (int r = 0; r < p; ++r) {
                const uint64_t m = off[r + 1] - off[r];
                if (!rank_guards_ok(r, (size_t)m * size, swhat))
                  continue;
                /* rank r's part of the whole scan: the reference from off[r] on */
                hr_scan_ref part = *sref;
                part.n = m;
                part.bits = sref->bits + off[r] * size;
                if (!sref->exact) {
                  part.value = sref->value + off[r];
                  part.tol = sref->tol + off[r];
                }
                part.nan_from = sref->nan_from > off[r] ? sref->nan_from - off[r] : 0;
                if (part.nan_from > m)
                  part.nan_from = m;
                uint64_t first = 0, last = 0;
                char why[512];
                const uint64_t wrong = hr_scan_check(&part, g_multi.r[r].h_out + MULTI_GUARD,
                                                     TF_POISON, &first, &last, why, sizeof why);
                if (wrong)
                  tf_failure("%s: rank %d (elements %" PRIu64 "..%" PRIu64 "): %" PRIu64
                             " wrong, the first %s",
                             swhat, r, off[r], off[r + 1], wrong, why);
              }
            }
          graphs_done |= graph;
        }
      }
  }
}

/* The histogram over every GPU: every sample dtype, bins and ranges; every rank's counts are those
 * of all samples. */
TF_TEST_FROM(test_multi_gpu_histogram, begin_multi) {
  const int p = g_multi.p;
  const uint32_t bins[] = {1, 256, 4099};
  const uint64_t n = tf.quick ? 65537 : 1000003;
  for (size_t d = 0; d < HR_NUM_DTYPES; ++d) {
    const cuprim_dtype t = hr_all_dtypes[d];
    if (!cuprim_histogram_supported(t))
      continue;
    for (size_t bi = 0; bi < sizeof bins / sizeof bins[0]; ++bi)
      for (int lay = 0; lay < LAYOUTS; lay += 2) {
        double lo = 0.0, hi = 0.0;
        hr_hist_span_range(t, bins[bi], HR_HIST_ODD, &lo, &hi);
        const hr_hist_bins b = hr_hist_bins_even(bins[bi], lo, hi);
        const uint64_t seed = tf_case_seed(0x3A8, t, bi, (uint64_t)lay);
        const hr_hist_data data = lay % 4 ? HR_HIST_OUT_OF_RANGE : HR_HIST_UNIFORM;
        hr_hist_fill(&b, t, data, seed, tf.h_in, n);
        hr_hist_reference(&b, t, tf.h_in, n, g_want);
        uint64_t off[MAX_GPUS + 1];
        layout(lay, p, n, seed, off);
        rank_job jobs[MAX_GPUS];
        shard_jobs(jobs, p, HIST, off, t);
        for (int r = 0; r < p; ++r) {
          jobs[r].num_bins = bins[bi];
          jobs[r].lower = lo;
          jobs[r].upper = hi;
          jobs[r].graph = d == 1 && bi == 1 && lay == 0;
        }
        char what[256];
        snprintf(
            what, sizeof what,
            "%d GPUs, %s shards: histogram %s bins=%u n=%" PRIu64 " data=%s seed=0x%016" PRIx64, p,
            layout_names[lay], hr_dtype_name(t), bins[bi], n, hr_hist_data_name(data), seed);
        if (!run_ranks(jobs, what))
          continue;
        for (int r = 0; r < p; ++r) {
          if (!rank_guards_ok(r, (size_t)bins[bi] * 8, what))
            continue;
          uint64_t first = 0;
          char why[1024];
          const uint64_t *got = (const uint64_t *)(const void *)(g_multi.r[r].h_out + MULTI_GUARD);
          if (hr_hist_check(g_want, got, bins[bi], n, TF_POISON, &first, why, sizeof why))
            tf_failure("%s: rank %d: %s", what, r, why);
        }
      }
  }
}

/* A context on another GPU than the communicator's is refused before anything is enqueued (no
 * rank enters the collective, so nothing waits). */
TF_TEST_FROM(test_multi_gpu_wrong_device, begin_multi) {
  rank_state *s0 = &g_multi.r[0], *s1 = &g_multi.r[1];
  TF_CUDA(cudaSetDevice(0));
  const cuprim_status a = cuprim_nccl_reduce(s0->ctx, s1->comm, s0->d_in, s0->d_out, 10, CUPRIM_F32,
                                             CUPRIM_SUM, s0->stream);
  const cuprim_status b = cuprim_nccl_scan(s1->ctx, s0->comm, s1->d_in, s1->d_out, 10, CUPRIM_I32,
                                           CUPRIM_SUM, CUPRIM_INCLUSIVE, s1->stream);
  const cuprim_status c =
      cuprim_nccl_histogram_even(s0->ctx, s1->comm, s0->d_in, 10, CUPRIM_U8,
                                 (uint64_t *)(void *)s0->d_out, 4, 0.0, 256.0, s0->stream);
  if (a != CUPRIM_ERROR_INVALID_ARGUMENT || b != CUPRIM_ERROR_INVALID_ARGUMENT ||
      c != CUPRIM_ERROR_INVALID_ARGUMENT)
    tf_failure("a context on another GPU than the communicator's: reduce %s, scan %s, histogram "
               "%s; expected CUPRIM_ERROR_INVALID_ARGUMENT",
               tu_status_name(a), tu_status_name(b), tu_status_name(c));
  int dev = -1;
  TF_CUDA(cudaGetDevice(&dev));
  if (dev != 0)
    tf_failure("the current device changed from 0 to %d", dev);
}

TF_MAIN(&config)
