/* The segmented and batched reduce and scan (segmented.h) on a GPU, against plain C references on
 * the host (harness/hostref_segmented.h, hostref_scan.h).
 *
 * Segment layouts: all empty, all of one element, uniform 4 / 32 / 64 / 65 / 1000 / 1300 (AUTO
 * takes tiles of parts up to 64 elements one thread a segment, tiles of at most 4 ends part by part
 * with the whole block, the others as a flag tile), random sizes
 * 0..2000, a power law with one giant segment among many tiny ones, one segment of everything,
 * offsets past n (clamped), decreasing offsets (the reduce is still defined per segment; the scan
 * must only stay inside d_out), negative signed offsets, and offsets that leave elements uncovered
 * at both ends (the scan must leave them alone), few segments placed around the scan's tiles
 * (its sparse starts). Every algorithm x dtype (F16 and BF16 too) x op,
 * offsets of all four dtypes, inclusive and exclusive, in place and out of place, the batched
 * forms; num_segments 0, n 0, rows of 0; misaligned pointers; the legacy, per-thread and
 * non-blocking streams; CUDA graph capture; determinism (AUTO's bits on every run and equal to a
 * misaligned copy's; the batched reduce's likewise, over row lengths around its kernels' limits);
 * more tiles than the joining block takes in one step; a stress of the scan's look-back; user
 * allocators; argument errors with a real context; and (full mode, enough memory) n and
 * num_segments past 2^32.
 *
 * Each output lies in a guarded slot (test_fixture_gpu.h); a failure names the call, the layout,
 * the dtypes, the op, the seed and the first wrong segment or element. Environment:
 * CUPRIM_TEST_SEED, CUPRIM_TEST_QUICK=1 (compute-sanitizer: sizes of a few tiles, fewer ops and
 * algorithms per case, no large case), CUPRIM_TEST_FILTER. Without a CUDA device every test skips
 * (exit 77). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostref_scan.h"
#include "hostref_segmented.h"
#include "test_device_fill.h"
#include "test_fixture_gpu.h"

/* ---------------------------------------------------------------- buffers */

#define NUM_ALGS 5     /* CUPRIM_SEGMENTED_AUTO .. CUPRIM_SEGMENTED_MERGE_PATH */
#define SHORTHAND (-1) /* cuprim_segmented_reduce instead of _ex */
#define MAX_CALLS 32
/* The input: the largest case is 2^24 + 5 eight-byte elements (test_many_tiles). */
#define IN_CAP_BYTES ((size_t)140 << 20)
/* Offsets (device d_in2, pinned h_in2), and a second copy of an input (misaligned tests). */
#define IN2_CAP_BYTES ((size_t)24 << 20)
#define OUT_CAP_BYTES ((size_t)300 << 20)
#define OFF_CAP ((uint64_t)1 << 20) /* offsets of a layout (host, uint64) */

static uint64_t *g_off; /* a layout's offsets, as uint64 */
static hr_seg_reduce_ref g_rref;

/* What a scan must leave: each segment's scan (hostref_scan.h's reference of the segment alone, and
 * its comparison, which knows the rules of every dtype); elsewhere, outside [lo, hi) (the covered
 * elements, for non-decreasing offsets), what was there before. `valid` 0: decreasing offsets,
 * where only the guards around d_out are checked. The reference of a segment is made when a call
 * is checked, from the case's host input and offsets (which stay put until the next case). */
typedef struct seg_scan_ref {
  cuprim_dtype dtype, odtype;
  cuprim_op op;
  cuprim_scan_kind kind;
  uint64_t n, lo, hi, segs, len;
  const void *h_in, *h_off; /* h_off NULL: rows of len */
  int valid;
} seg_scan_ref;

static seg_scan_ref g_sref[2]; /* inclusive, exclusive */
static hr_scan_ref g_tmp;      /* one segment's reference */

static void setup(void) {
  g_off = (uint64_t *)malloc((OFF_CAP + 1) * sizeof *g_off);
  hr_seg_reduce_ref_init(&g_rref);
}

static void teardown(void) {
  free(g_off);
  hr_seg_reduce_ref_free(&g_rref);
}

static const tf_config config = {.in_bytes = IN_CAP_BYTES,
                                 .in2_bytes = IN2_CAP_BYTES,
                                 .h_in2_bytes = IN2_CAP_BYTES,
                                 .out_bytes = OUT_CAP_BYTES,
                                 .out2_bytes = 8 << 20,
                                 .scan_refs = {&g_tmp},
                                 .setup = setup,
                                 .teardown = teardown};

static const cuprim_dtype offset_dtypes[] = {CUPRIM_I32, CUPRIM_U32, CUPRIM_I64, CUPRIM_U64};
static const cuprim_scan_kind kinds[] = {CUPRIM_INCLUSIVE, CUPRIM_EXCLUSIVE};

/* ---------------------------------------------------------------- the scan's reference */

/* Segment s of the offsets (h_off of ot, clamped to [0, n]) or of rows of `len` (h_off NULL). */
static void bounds(const seg_scan_ref *r, uint64_t s, uint64_t *b, uint64_t *e) {
  if (r->h_off) {
    *b = hr_seg_offset(r->odtype, r->h_off, s, r->n);
    *e = hr_seg_offset(r->odtype, r->h_off, s + 1, r->n);
  } else {
    *b = s * r->len;
    *e = *b + r->len;
  }
}

static void describe_scan(seg_scan_ref *r, cuprim_dtype t, cuprim_op op, cuprim_scan_kind kind,
                          const void *h_in, uint64_t n, cuprim_dtype ot, const void *h_off,
                          uint64_t segs, uint64_t len) {
  r->dtype = t;
  r->odtype = ot;
  r->op = op;
  r->kind = kind;
  r->n = n;
  r->segs = segs;
  r->len = len;
  r->h_in = h_in;
  r->h_off = h_off;
  r->valid = 1;
  for (uint64_t s = 0; s < segs && r->valid; ++s) {
    uint64_t b, e;
    bounds(r, s, &b, &e);
    r->valid = b <= e; /* every offset not below the one before it */
  }
  uint64_t b0, e0, bl, el;
  r->lo = r->hi = 0;
  if (!r->valid || segs == 0)
    return;
  bounds(r, 0, &b0, &e0);
  bounds(r, segs - 1, &bl, &el);
  r->lo = b0;
  r->hi = el;
}

/* The number of wrong elements of got[0..n), the first described in why: each segment against its
 * own reference; elements outside [lo, hi) must equal `untouched` (the input, in place) or hold
 * the poison (NULL). */
static uint64_t check_scan(const seg_scan_ref *r, const unsigned char *got,
                           const unsigned char *untouched, char *why, size_t len) {
  if (!r->valid)
    return 0; /* decreasing offsets: values unspecified */
  const size_t size = cuprim_dtype_size(r->dtype);
  uint64_t wrong = 0;
  for (uint64_t i = 0; i < r->n; i = i + 1 == r->lo ? r->hi : i + 1) {
    if (i >= r->lo && i < r->hi)
      continue; /* covered: checked below (reached only when lo == 0) */
    const unsigned char *g = got + i * size;
    const int ok = untouched ? memcmp(g, untouched + i * size, size) == 0
                             : tu_pattern_mismatch(g, size, TF_POISON) == size;
    if (!ok && wrong++ == 0)
      snprintf(why, len, "at index %" PRIu64 ": no segment covers it, yet it was %s", i,
               untouched ? "changed" : "written");
  }
  for (uint64_t s = 0; s < r->segs; ++s) {
    uint64_t b, e, first = 0, last = 0;
    bounds(r, s, &b, &e);
    if (e == b)
      continue;
    tf_scan_reference(&g_tmp, r->dtype, r->op, r->kind, (const unsigned char *)r->h_in + b * size,
                      e - b);
    char one[384];
    const uint64_t w =
        hr_scan_check(&g_tmp, got + b * size, TF_POISON, &first, &last, one, sizeof one);
    if (w && wrong == 0)
      snprintf(why, len, "in segment %" PRIu64 " [%" PRIu64 ", %" PRIu64 "), %s", s, b, e, one);
    wrong += w;
  }
  return wrong;
}

/* ---------------------------------------------------------------- calls */

typedef enum call_fn { FN_REDUCE, FN_BATCHED_REDUCE, FN_SCAN, FN_BATCHED_SCAN } call_fn;

typedef struct seg_call {
  call_fn fn;
  int alg;                   /* FN_REDUCE: a cuprim_segmented_alg or SHORTHAND */
  const unsigned char *d_in; /* in place (scans): copied into the output, which is scanned */
  uint64_t n;                /* FN_REDUCE, FN_SCAN: the elements */
  const void *d_off;
  cuprim_dtype odtype;
  uint64_t segs, len; /* len: the batched calls' row length */
  cuprim_dtype dtype;
  cuprim_op op;
  cuprim_scan_kind kind;
  int in_place;
  unsigned out_offset;       /* elements d_out lies past its slot's aligned start */
  const void *want;          /* hr_seg_reduce_ref or seg_scan_ref */
  const unsigned char *h_in; /* in place: the input, which uncovered elements must keep */
  const char *layout;        /* for messages */
} seg_call;

static int is_scan(const seg_call *c) { return c->fn == FN_SCAN || c->fn == FN_BATCHED_SCAN; }
static uint64_t elements(const seg_call *c) {
  return c->fn == FN_BATCHED_REDUCE || c->fn == FN_BATCHED_SCAN ? c->segs * c->len : c->n;
}

static const char *call_name(const seg_call *c) {
  static char buf[96];
  switch (c->fn) {
  case FN_REDUCE:
    if (c->alg == SHORTHAND)
      return "cuprim_segmented_reduce";
    snprintf(buf, sizeof buf, "cuprim_segmented_reduce_ex(%s)",
             hr_segmented_alg_name((cuprim_segmented_alg)c->alg));
    return buf;
  case FN_BATCHED_REDUCE:
    return "cuprim_batched_reduce";
  case FN_SCAN:
    return "cuprim_segmented_scan";
  default:
    return "cuprim_batched_scan";
  }
}

static void describe(char *buf, size_t len, const void *p, const char *data, uint64_t seed) {
  const seg_call *c = (const seg_call *)p;
  char place[64] = "";
  if (is_scan(c))
    snprintf(place, sizeof place, " %s %s", hr_scan_kind_name(c->kind),
             c->in_place ? "in-place" : "out-of-place");
  if (c->out_offset)
    snprintf(place + strlen(place), sizeof place - strlen(place), " d_out+%u", c->out_offset);
  snprintf(buf, len,
           "%s %s %s%s layout=\"%s\" n=%" PRIu64 " segments=%" PRIu64 " %s%s data=%s "
           "seed=0x%016" PRIx64,
           call_name(c), hr_dtype_name(c->dtype), hr_op_name(c->op), place,
           c->layout ? c->layout : "-", elements(c), c->segs, c->d_off ? "offsets " : "rows of ",
           c->d_off ? hr_dtype_name(c->odtype) : "", data, seed);
  if (!c->d_off)
    snprintf(buf + strlen(buf), len - strlen(buf), " (segment_size %" PRIu64 ")", c->len);
}

static void call_output(const void *p, size_t *bytes, size_t *misalign) {
  const seg_call *c = (const seg_call *)p;
  const size_t size = cuprim_dtype_size(c->dtype);
  *bytes = (size_t)(is_scan(c) ? elements(c) : c->segs) * size;
  *misalign = (size_t)c->out_offset * size;
}

static cuprim_status call_segmented(cuprim_ctx *ctx, const seg_call *c, const void *in, void *out,
                                    cudaStream_t stream) {
  switch (c->fn) {
  case FN_REDUCE:
    if (c->alg == SHORTHAND)
      return cuprim_segmented_reduce(ctx, in, out, c->n, c->d_off, c->odtype, c->segs, c->dtype,
                                     c->op, stream);
    return cuprim_segmented_reduce_ex(ctx, (cuprim_segmented_alg)c->alg, in, out, c->n, c->d_off,
                                      c->odtype, c->segs, c->dtype, c->op, stream);
  case FN_BATCHED_REDUCE:
    return cuprim_batched_reduce(ctx, in, out, c->segs, c->len, c->dtype, c->op, stream);
  case FN_SCAN:
    return cuprim_segmented_scan(ctx, in, out, c->n, c->d_off, c->odtype, c->segs, c->dtype, c->op,
                                 c->kind, stream);
  default:
    return cuprim_batched_scan(ctx, in, out, c->segs, c->len, c->dtype, c->op, c->kind, stream);
  }
}

static cuprim_status issue(cuprim_ctx *ctx, const void *p, void *d_out, cudaStream_t stream) {
  const seg_call *c = (const seg_call *)p;
  const size_t bytes = (size_t)elements(c) * cuprim_dtype_size(c->dtype);
  return call_segmented(ctx, c, tf_in_place_input(c->in_place, d_out, c->d_in, bytes, stream),
                        d_out, stream);
}

static int check(const tf_region *rg, const void *p, tf_result *r, const tf_case *cs,
                 const char *what) {
  const seg_call *c = (const seg_call *)p;
  const unsigned char *out = tf_slot_host(rg, &r->slot);
  char why[640];
  if (is_scan(c)) {
    const seg_scan_ref *ref = (const seg_scan_ref *)c->want;
    if (ref->n != elements(c) || ref->kind != c->kind || ref->dtype != c->dtype)
      fail_msg("test bug: the scan reference does not match %s", what);
    const uint64_t wrong = check_scan(ref, out, c->in_place ? c->h_in : NULL, why, sizeof why);
    if (wrong) {
      tf_failure("%s: %" PRIu64 " wrong element(s), the first %s", what, wrong, why);
      return 0;
    }
  } else {
    const hr_seg_reduce_ref *ref = (const hr_seg_reduce_ref *)c->want;
    if (ref->num_segments != c->segs || ref->dtype != c->dtype || ref->op != c->op)
      fail_msg("test bug: the reduce reference does not match %s", what);
    uint64_t first = 0;
    const uint64_t wrong = hr_seg_reduce_check(ref, out, TF_POISON, &first, why, sizeof why);
    if (wrong) {
      tf_failure("%s: %" PRIu64 " wrong segment(s), the first %s", what, wrong, why);
      return 0;
    }
  }
  return tf_passed(r, cs, out);
}

static const tf_call_ops ops = {sizeof(seg_call), "d_out", call_output, issue,
                                describe,         check,   NULL};

static seg_call reduce_call(int alg, const void *d_in, uint64_t n, const void *d_off,
                            cuprim_dtype ot, uint64_t segs, cuprim_dtype t, cuprim_op op) {
  return (seg_call){.fn = FN_REDUCE,
                    .alg = alg,
                    .d_in = (const unsigned char *)d_in,
                    .n = n,
                    .d_off = d_off,
                    .odtype = ot,
                    .segs = segs,
                    .dtype = t,
                    .op = op,
                    .want = &g_rref};
}

static seg_call scan_call(const void *d_in, uint64_t n, const void *d_off, cuprim_dtype ot,
                          uint64_t segs, cuprim_dtype t, cuprim_op op, int ki, int in_place) {
  seg_call c = reduce_call(0, d_in, n, d_off, ot, segs, t, op);
  c.fn = FN_SCAN;
  c.kind = kinds[ki];
  c.in_place = in_place;
  c.want = &g_sref[ki];
  c.h_in = tf.h_in;
  return c;
}

/* The batched form of a call over rows of `len` (n = segs * len). */
static seg_call batched(seg_call c, uint64_t len) {
  c.fn = c.fn == FN_REDUCE ? FN_BATCHED_REDUCE : FN_BATCHED_SCAN;
  c.d_off = NULL;
  c.len = len;
  return c;
}

static int run_and_check(seg_call *calls, int count, cudaStream_t stream, const char *data,
                         uint64_t seed, int want_hash, tf_result *res) {
  const tf_case cs = {data, seed, want_hash};
  return tf_run_and_check(&ops, tf.ctx, calls, count, stream, &cs, res);
}

/* ---------------------------------------------------------------- layouts */

typedef enum mutation {
  M_NONE,
  M_PAST_N,     /* laid out over n + n/3 elements: the last offsets are past n */
  M_DECREASING, /* the offsets shuffled, a few past n */
  M_NEGATIVE,   /* signed offsets: the first three negative (clamped to 0) */
  M_GAPS,       /* the segments cover [n/10, n/10 + 8n/10): elements before and after none */
  M_SPIKES      /* not a mutation: segments of 1 to 3 elements, each one instead of 65 to 264
                   with probability 1 / size (spikes_layout) */
} mutation;

typedef struct layout {
  const char *name;
  hr_seg_dist dist;
  uint64_t size; /* the distribution's parameter; 0: n (one segment of everything) */
  uint64_t n, quick_n;
  mutation m;
} layout;

/* Uniform layouts have n a multiple of the size, so that the batched calls cover the same rows. */
static const layout layouts[] = {
    {"all empty", HR_SEG_EMPTY, 1000, 5000, 3000, M_NONE},
    {"all 1", HR_SEG_UNIFORM, 1, 30011, 6007, M_NONE},
    {"uniform 4", HR_SEG_UNIFORM, 4, 100004, 12004, M_NONE},
    {"uniform 32", HR_SEG_UNIFORM, 32, 100000, 20000, M_NONE},
    {"uniform 1000", HR_SEG_UNIFORM, 1000, 200000, 30000, M_NONE},
    {"random 0..2000", HR_SEG_RANDOM, 1000, 300007, 30011, M_NONE},
    {"power law, one giant", HR_SEG_POWER_LAW, 0, 150001, 30013, M_NONE},
    {"one segment", HR_SEG_UNIFORM, 0, 100003, 20003, M_NONE},
    {"offsets past n", HR_SEG_UNIFORM, 37, 50021, 10007, M_PAST_N},
    {"decreasing offsets", HR_SEG_RANDOM, 40, 40009, 8009, M_DECREASING},
    {"negative offsets", HR_SEG_RANDOM, 20, 20011, 6011, M_NEGATIVE},
    {"gaps at both ends", HR_SEG_RANDOM, 100, 60013, 12007, M_GAPS},
    /* AUTO's short path takes tiles whose parts are at most 64 elements: both sides of the line */
    {"uniform 64", HR_SEG_UNIFORM, 64, 64000, 12800, M_NONE},
    {"uniform 65", HR_SEG_UNIFORM, 65, 65000, 13000, M_NONE},
    /* AUTO's warp-parts path takes tiles of 3 to 48 ends with a part longer than 64: segments of
     * 1300 give 4-byte tiles of 5888 items 4 or 5 ends (8-byte tiles of 3840 items 2 or 3: both
     * sides of the few-ends path's line) */
    {"uniform 1300", HR_SEG_UNIFORM, 1300, 130000, 26000, M_NONE},
    /* AUTO's flag tiles as the power law makes them, at a size the sweep can check: more than 48
     * ends, a few parts longer than 64 among parts of 1 to 3 (one segment in 80 of 65 to 264
     * elements: a 4-byte tile about 1170 ends and 15 long parts, so that each thread's run of 5
     * ends in set_flags_of_ends touches one or two words) */
    {"tiny with long spikes", HR_SEG_UNIFORM, 80, 200000, 40000, M_SPIKES},
};
#define NUM_LAYOUTS (sizeof layouts / sizeof layouts[0])

static int signed_offsets(cuprim_dtype ot) { return ot == CUPRIM_I32 || ot == CUPRIM_I64; }

/* M_SPIKES's segments over n elements into g_off (the last one cut to fit): 1 to 3 elements, or
 * with probability 1 / every 65 to 264. Returns the number of segments. */
static uint64_t spikes_layout(uint64_t every, uint64_t n, uint64_t seed) {
  uint64_t s = hr_mix(seed, 0x5B1), k = 0, at = 0;
  g_off[0] = 0;
  while (at < n && k < OFF_CAP) {
    const uint64_t len = hr_below(&s, every) == 0 ? 65 + hr_below(&s, 200) : 1 + hr_below(&s, 3);
    at = len < n - at ? at + len : n;
    g_off[++k] = at;
  }
  return at == n ? k : UINT64_MAX;
}

/* Lays out L over n elements into g_off, mutates it, and stores it as offsets of `ot` into
 * tf.h_in2 and tf.d_in2. Returns the number of segments. */
static uint64_t make_offsets(const layout *L, uint64_t n, cuprim_dtype ot, uint64_t seed) {
  const uint64_t size = L->size ? L->size : n;
  uint64_t segs;
  switch (L->m) {
  case M_PAST_N:
    segs = hr_seg_layout(L->dist, size, n + n / 3, seed, g_off, OFF_CAP);
    break;
  case M_GAPS:
    segs = hr_seg_layout(L->dist, size, n - n / 5, seed, g_off, OFF_CAP);
    break;
  case M_SPIKES:
    segs = spikes_layout(size, n, seed);
    break;
  default:
    segs = hr_seg_layout(L->dist, size, n, seed, g_off, OFF_CAP);
    break;
  }
  if (segs == UINT64_MAX)
    fail_msg("test bug: layout \"%s\" of %" PRIu64 " elements has too many segments", L->name, n);
  uint64_t s = seed;
  for (uint64_t k = 0; k <= segs; ++k) {
    int64_t v = (int64_t)g_off[k];
    if (L->m == M_GAPS)
      v += (int64_t)(n / 10);
    hr_seg_store_offset(ot, tf.h_in2, k, v);
  }
  if (L->m == M_DECREASING) { /* Fisher-Yates, then a few past n */
    for (uint64_t k = segs; k > 0; --k) {
      const uint64_t j = hr_below(&s, k + 1);
      const uint64_t a = g_off[k];
      g_off[k] = g_off[j];
      g_off[j] = a;
    }
    for (uint64_t k = 0; k <= segs; ++k)
      hr_seg_store_offset(ot, tf.h_in2, k, (int64_t)(hr_below(&s, 8) == 0 ? n + k : g_off[k]));
  }
  if (L->m == M_NEGATIVE && signed_offsets(ot) && segs >= 3) {
    hr_seg_store_offset(ot, tf.h_in2, 0, -1);
    hr_seg_store_offset(ot, tf.h_in2, 1, -100000);
    hr_seg_store_offset(ot, tf.h_in2, 2, ot == CUPRIM_I32 ? INT32_MIN : INT64_MIN);
  }
  tf_upload(tf.d_in2, tf.h_in2, (size_t)(segs + 1) * cuprim_dtype_size(ot), tf.stream);
  return segs;
}

/* The case's references: the reduce's and both scans'. */
static void make_references(cuprim_dtype t, cuprim_op op, uint64_t n, cuprim_dtype ot,
                            uint64_t segs, int scans) {
  if (hr_seg_reduce_reference(&g_rref, t, op, tf.h_in, n, ot, tf.h_in2, segs, 0) != 0)
    fail_msg("out of host memory for the reduce reference");
  for (int ki = 0; scans && ki < 2; ++ki)
    describe_scan(&g_sref[ki], t, op, kinds[ki], tf.h_in, n, ot, tf.h_in2, segs, 0);
}

/* ---------------------------------------------------------------- errors with a device */

/* With a real context, invalid and unsupported calls return before any CUDA work. */
TF_TEST(test_errors_with_device) {
  unsigned char *out = tf_poison_inputs(4096, 8192);
  const unsigned char *in = tf.d_in, *off = tf.d_in + 2048;
  const cuprim_dtype F = CUPRIM_F32, I64 = CUPRIM_I64;
  const tf_status_case cases[] = {
      {"NULL ctx",
       cuprim_segmented_reduce(NULL, in, out, 10, off, I64, 3, F, CUPRIM_SUM, tf.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"alg 5",
       cuprim_segmented_reduce_ex(tf.ctx, (cuprim_segmented_alg)5, in, out, 10, off, I64, 3, F,
                                  CUPRIM_SUM, tf.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"NULL d_offsets",
       cuprim_segmented_reduce(tf.ctx, in, out, 10, NULL, I64, 3, F, CUPRIM_SUM, tf.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"num_segments UINT64_MAX",
       cuprim_segmented_reduce(tf.ctx, in, out, 10, off, I64, UINT64_MAX, F, CUPRIM_SUM, tf.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"d_out on the offsets",
       cuprim_segmented_reduce(tf.ctx, in, (void *)off, 10, off, I64, 3, F, CUPRIM_SUM, tf.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"offsets F32",
       cuprim_segmented_reduce(tf.ctx, in, out, 10, off, F, 3, F, CUPRIM_SUM, tf.stream),
       CUPRIM_ERROR_UNSUPPORTED},
      {"XOR on F32",
       cuprim_segmented_reduce(tf.ctx, in, out, 10, off, I64, 3, F, CUPRIM_XOR, tf.stream),
       CUPRIM_ERROR_UNSUPPORTED},
      {"batched, product overflows",
       cuprim_batched_reduce(tf.ctx, in, out, 1ull << 40, 1ull << 40, F, CUPRIM_SUM, tf.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"batched, I8",
       cuprim_batched_reduce(tf.ctx, in, out, 2, 3, CUPRIM_I8, CUPRIM_SUM, tf.stream),
       CUPRIM_ERROR_UNSUPPORTED},
      {"scan, d_out = d_in + 1 element",
       cuprim_segmented_scan(tf.ctx, in, (void *)(in + 4), 10, off, I64, 3, F, CUPRIM_SUM,
                             CUPRIM_INCLUSIVE, tf.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"scan, kind 2",
       cuprim_segmented_scan(tf.ctx, in, out, 10, off, I64, 3, F, CUPRIM_SUM, (cuprim_scan_kind)2,
                             tf.stream),
       CUPRIM_ERROR_INVALID_ARGUMENT},
      {"batched scan, U16",
       cuprim_batched_scan(tf.ctx, in, out, 2, 3, CUPRIM_U16, CUPRIM_SUM, CUPRIM_INCLUSIVE,
                           tf.stream),
       CUPRIM_ERROR_UNSUPPORTED},
  };
  TF_CHECK_ARGUMENT_ERRORS(cases);
}

/* ---------------------------------------------------------------- nothing to do */

/* num_segments == 0 writes nothing (with NULL pointers or not); n == 0 with segments writes the
 * identity into every d_out[s]; rows of 0 elements too; scans of n == 0 write nothing. */
TF_TEST(test_empty) {
  unsigned char *out = tf_poison_empty();
  for (size_t d = 0; d < HR_NUM_REDUCE_SCAN_DTYPES; ++d)
    for (int op = 0; op <= CUPRIM_XOR; ++op) {
      const cuprim_dtype t = hr_reduce_scan_dtypes[d];
      if (!hr_scan_supported(t, (cuprim_op)op))
        continue;
      for (int ptrs = 0; ptrs < 2; ++ptrs) {
        const void *in = ptrs ? tf.d_in : NULL, *off = ptrs ? tf.d_in2 : NULL;
        void *o = ptrs ? (void *)out : NULL;
        cuprim_status st[8];
        int k = 0;
        for (int a = 0; a < NUM_ALGS; ++a)
          st[k++] =
              cuprim_segmented_reduce_ex(tf.ctx, (cuprim_segmented_alg)a, in, o, ptrs ? 10 : 0, off,
                                         CUPRIM_I64, 0, t, (cuprim_op)op, tf.stream);
        st[k++] = cuprim_batched_reduce(tf.ctx, in, o, 0, 5, t, (cuprim_op)op, tf.stream);
        st[k++] = cuprim_segmented_scan(tf.ctx, in, o, 0, off, CUPRIM_U32, ptrs ? 3 : 0, t,
                                        (cuprim_op)op, CUPRIM_INCLUSIVE, tf.stream);
        st[k++] =
            cuprim_batched_scan(tf.ctx, in, o, 3, 0, t, (cuprim_op)op, CUPRIM_EXCLUSIVE, tf.stream);
        for (int i = 0; i < k; ++i)
          if (st[i] != CUPRIM_SUCCESS)
            tf_failure("%s %s, nothing to do (call %d, pointers %s): returned %s", hr_dtype_name(t),
                       hr_op_name((cuprim_op)op), i, ptrs ? "valid" : "NULL",
                       tu_status_name(st[i]));
      }
    }
  tf_check_empty("a call with nothing to do");

  /* The identities: n == 0 with offsets (d_in NULL), and rows of 0 elements. */
  const uint64_t zeros[6] = {0, 0, 0, 0, 0, 0};
  for (size_t d = 0; d < HR_NUM_REDUCE_SCAN_DTYPES; ++d)
    for (int op = 0; op <= CUPRIM_XOR; ++op) {
      const cuprim_dtype t = hr_reduce_scan_dtypes[d];
      if (!hr_scan_supported(t, (cuprim_op)op))
        continue;
      memcpy(tf.h_in2, zeros, sizeof zeros);
      tf_upload(tf.d_in2, tf.h_in2, sizeof zeros, tf.stream);
      const uint64_t segs = 5;
      if (hr_seg_reduce_reference(&g_rref, t, (cuprim_op)op, NULL, 0, CUPRIM_U64, tf.h_in2, segs,
                                  0) != 0)
        fail_msg("out of host memory");
      seg_call calls[MAX_CALLS];
      tf_result res[MAX_CALLS];
      int count = 0;
      for (int a = SHORTHAND; a < NUM_ALGS; ++a)
        calls[count++] = reduce_call(a, NULL, 0, tf.d_in2, CUPRIM_U64, segs, t, (cuprim_op)op);
      calls[count++] =
          batched(reduce_call(0, NULL, 0, NULL, CUPRIM_U64, segs, t, (cuprim_op)op), 0);
      for (int i = 0; i < count; ++i)
        calls[i].layout = "n 0 / rows of 0";
      run_and_check(calls, count, tf.stream, "none", 0, 0, res);
    }
  tf_check_no_recorded_error("after calls with nothing to do");
}

/* ---------------------------------------------------------------- the sweep */

/* Every call of one case (quick: fewer). Uniform layouts also go through the batched calls. */
static void run_case(cuprim_dtype t, cuprim_op op, hr_scan_data data, const layout *L,
                     cuprim_dtype ot, uint64_t salt) {
  const uint64_t n = tf.quick ? L->quick_n : L->n;
  const size_t size = cuprim_dtype_size(t);
  const uint64_t seed = tf_case_seed(t, op, (uint64_t)data * 1000 + (uint64_t)(L - layouts), salt);
  tf_scan_input(t, op, data, seed, n, tf.stream);
  const uint64_t segs = make_offsets(L, n, ot, seed);
  make_references(t, op, n, ot, segs, 1);
  const uint64_t len = L->size ? L->size : n;
  const int rows = L->dist == HR_SEG_UNIFORM && L->m == M_NONE && n % len == 0;

  seg_call calls[MAX_CALLS];
  tf_result res[MAX_CALLS];
  int count = 0;
  const int rotating = 1 + (int)((salt + (uint64_t)op) % 3); /* quick: one per-segment rung */
  for (int a = SHORTHAND; a < NUM_ALGS; ++a) {
    if (tf.quick && a != CUPRIM_SEGMENTED_AUTO && a != CUPRIM_SEGMENTED_MERGE_PATH && a != rotating)
      continue;
    calls[count++] = reduce_call(a, tf.d_in, n, tf.d_in2, ot, segs, t, op);
  }
  if (rows)
    calls[count++] = batched(reduce_call(0, tf.d_in, n, NULL, ot, n / len, t, op), len);
  for (int ki = 0; ki < 2; ++ki)
    for (int place = 0; place < 2; ++place) {
      if (tf.quick && place != ki)
        continue; /* inclusive out of place, exclusive in place */
      calls[count++] = scan_call(tf.d_in, n, tf.d_in2, ot, segs, t, op, ki, place);
      if (rows && place == ki)
        calls[count++] = batched(scan_call(tf.d_in, n, NULL, ot, n / len, t, op, ki, place), len);
    }
  for (int i = 0; i < count; ++i)
    calls[i].layout = L->name;
  run_and_check(calls, count, tf.stream, hr_scan_data_name(data), seed, 1, res);
  /* No call writes its input (in place, the scans work on a copy in their output slot). */
  TF_CUDA(cudaMemcpyAsync(tf.out.h, tf.d_in, n * size, cudaMemcpyDeviceToHost, tf.stream));
  tf_finish(tf.stream);
  if (memcmp(tf.out.h, tf.h_in, n * size) != 0)
    tf_failure("%s %s layout=\"%s\": a call changed its input", hr_dtype_name(t), hr_op_name(op),
               L->name);
}

/* Every op x layout x data kind for one dtype, offsets of a dtype that rotates with the case
 * (negative offsets: a signed one). Quick mode: each op takes three of the layouts, in turn. */
static void sweep(cuprim_dtype t) {
  unsigned long cases = 0;
  for (int op = 0; op <= CUPRIM_XOR; ++op) {
    if (!hr_scan_supported(t, (cuprim_op)op))
      continue;
    for (size_t li = 0; li < NUM_LAYOUTS; ++li) {
      if (tf.quick && (li + NUM_LAYOUTS - (size_t)op * 3 % NUM_LAYOUTS) % NUM_LAYOUTS >= 3)
        continue;
      for (int d = 0; d < HR_SCAN_DATA_KINDS; ++d) {
        if (!hr_scan_data_applies(t, (cuprim_op)op, (hr_scan_data)d) || d == HR_SCAN_CONSTANT)
          continue;
        const layout *L = &layouts[li];
        cuprim_dtype ot = offset_dtypes[(li + (size_t)op) % 4];
        if (L->m == M_NEGATIVE && !signed_offsets(ot))
          ot = ot == CUPRIM_U32 ? CUPRIM_I32 : CUPRIM_I64;
        run_case(t, (cuprim_op)op, (hr_scan_data)d, L, ot, 0x5EE);
        ++cases;
      }
    }
  }
  print_message("%s: %lu cases\n", hr_dtype_name(t), cases);
}

/* F16 and BF16 (0.2): combined in float, each output rounded once. */
TF_SWEEP_TESTS_REDUCE_SCAN(sweep)

/* Every offset dtype on the layouts where the offsets matter most, for an integer and a float. */
TF_TEST(test_offset_dtypes) {
  const size_t picks[] = {5, 6, 8, 9, 10, 11}; /* random, power law, past n, decreasing, ... */
  const struct {
    cuprim_dtype t;
    cuprim_op op;
  } pairs[] = {{CUPRIM_I32, CUPRIM_SUM}, {CUPRIM_F64, CUPRIM_MAX}};
  for (size_t p = 0; p < 2; ++p)
    for (size_t k = 0; k < sizeof picks / sizeof picks[0]; ++k)
      for (int o = 0; o < 4; ++o) {
        const layout *L = &layouts[picks[k]];
        if (L->m == M_NEGATIVE && !signed_offsets(offset_dtypes[o]))
          continue;
        if (tf.quick && (k + (size_t)o) % 2)
          continue;
        run_case(pairs[p].t, pairs[p].op, HR_SCAN_RANDOM, L, offset_dtypes[o], 0x0FF);
      }
}

/* ---------------------------------------------------------------- misaligned pointers */

/* Pointers need only element alignment: d_in + 1 element (a copy of the data there), d_out + 1
 * element, in place at + 1 and + 3 elements; the 16-byte loads of AUTO and the scan must give the
 * same values as aligned ones. */
TF_TEST(test_misaligned) {
  const size_t picks[] = {1, 3, 5, 6, 11};
  for (size_t d = 0; d < HR_NUM_REDUCE_SCAN_DTYPES; ++d)
    for (size_t k = 0; k < sizeof picks / sizeof picks[0]; ++k) {
      if (tf.quick && (d + k) % 2)
        continue;
      const cuprim_dtype t = hr_reduce_scan_dtypes[d];
      const cuprim_op op = hr_is_float(t) ? CUPRIM_SUM : CUPRIM_XOR;
      const hr_scan_data data = hr_is_float(t) ? HR_SCAN_EXACT : HR_SCAN_RANDOM;
      const layout *L = &layouts[picks[k]];
      const uint64_t n = tf.quick ? L->quick_n : L->n;
      const size_t size = cuprim_dtype_size(t);
      const uint64_t seed = tf_case_seed(0x3A1, t, op, picks[k]);
      tf_scan_input(t, op, data, seed, n, tf.stream);
      unsigned char *in1 = tf.d_in + (IN_CAP_BYTES / 2) + size; /* a copy, 1 element past */
      tf_upload(in1, tf.h_in, n * size, tf.stream);
      const cuprim_dtype ot = offset_dtypes[k % 4];
      const uint64_t segs = make_offsets(L, n, ot, seed);
      make_references(t, op, n, ot, segs, 1);
      seg_call calls[MAX_CALLS];
      tf_result res[MAX_CALLS];
      int count = 0;
      const int algs[] = {CUPRIM_SEGMENTED_AUTO, CUPRIM_SEGMENTED_MERGE_PATH, 1 + (int)(k % 3)};
      for (int a = 0; a < 3; ++a) {
        calls[count] = reduce_call(algs[a], in1, n, tf.d_in2, ot, segs, t, op);
        calls[count++].out_offset = 1;
      }
      calls[count++] = reduce_call(CUPRIM_SEGMENTED_AUTO, in1, n, tf.d_in2, ot, segs, t, op);
      calls[count] = reduce_call(CUPRIM_SEGMENTED_AUTO, tf.d_in, n, tf.d_in2, ot, segs, t, op);
      calls[count++].out_offset = 1;
      for (int ki = 0; ki < 2; ++ki) {
        calls[count++] = scan_call(in1, n, tf.d_in2, ot, segs, t, op, ki, 0); /* d_in + 1 */
        calls[count] = scan_call(tf.d_in, n, tf.d_in2, ot, segs, t, op, ki, 0);
        calls[count++].out_offset = 1;
        calls[count] = scan_call(tf.d_in, n, tf.d_in2, ot, segs, t, op, ki, 1);
        calls[count++].out_offset = 1 + 2 * (unsigned)ki;
      }
      for (int i = 0; i < count; ++i)
        calls[i].layout = L->name;
      run_and_check(calls, count, tf.stream, hr_scan_data_name(data), seed, 0, res);
    }
}

/* ---------------------------------------------------------------- streams */

/* The legacy default stream (0) and the per-thread default stream. */
TF_TEST(test_default_streams) {
  for (int si = 0; si < TF_DEFAULT_STREAMS; ++si) {
    const cudaStream_t stream = tf_default_stream[si];
    const layout *L = &layouts[6]; /* power law */
    const cuprim_dtype t = si ? CUPRIM_F32 : CUPRIM_I64, ot = si ? CUPRIM_I32 : CUPRIM_U64;
    const cuprim_op op = si ? CUPRIM_SUM : CUPRIM_MIN;
    const uint64_t n = tf.quick ? L->quick_n : L->n;
    const uint64_t seed = tf_case_seed(0x57E, t, (uint64_t)si, n);
    tf_scan_input(t, op, HR_SCAN_EXACT, seed, n, tf.stream);
    const uint64_t segs = make_offsets(L, n, ot, seed);
    tf_finish(tf.stream);
    make_references(t, op, n, ot, segs, 1);
    seg_call calls[MAX_CALLS];
    tf_result res[MAX_CALLS];
    int count = 0;
    for (int a = SHORTHAND; a < NUM_ALGS; ++a)
      calls[count++] = reduce_call(a, tf.d_in, n, tf.d_in2, ot, segs, t, op);
    calls[count++] = scan_call(tf.d_in, n, tf.d_in2, ot, segs, t, op, 0, 0);
    calls[count++] = scan_call(tf.d_in, n, tf.d_in2, ot, segs, t, op, 1, 1);
    for (int i = 0; i < count; ++i)
      calls[i].layout = L->name;
    run_and_check(calls, count, stream, tf_default_stream_name[si], seed, 0, res);
  }
}

/* ---------------------------------------------------------------- CUDA graphs */

/* The graph's calls over fixed offsets (random 0..2000) and U32 SUM data that every round
 * replaces: the references follow the data. */
static uint64_t g_graph_segs;

static void graph_round(void *p, int count, int round, uint64_t seed, char *data, size_t len) {
  seg_call *calls = (seg_call *)p;
  const uint64_t n = calls[0].n;
  tf_scan_input(CUPRIM_U32, CUPRIM_SUM, HR_SCAN_RANDOM, seed, n, tf.stream);
  tf_finish(tf.stream);
  make_references(CUPRIM_U32, CUPRIM_SUM, n, CUPRIM_I64, g_graph_segs, 1);
  (void)count;
  snprintf(data, len, "random, graph replay %d", round);
}

/* AUTO, MERGE_PATH, BLOCK_PER_SEGMENT, the batched reduce (over rows that divide n), and both
 * scans (the exclusive one in place), captured into one graph: capture runs nothing, each replay
 * reads what the input buffer holds then. The batched calls check against the same references
 * because the offsets are rows of one length. */
TF_TEST(test_graph_capture) {
  const uint64_t len = 1000, n = tf.quick ? 20 * len : 300 * len;
  const cuprim_dtype t = CUPRIM_U32, ot = CUPRIM_I64;
  const cuprim_op op = CUPRIM_SUM;
  g_graph_segs = n / len;
  for (uint64_t k = 0; k <= g_graph_segs; ++k)
    hr_seg_store_offset(ot, tf.h_in2, k, (int64_t)(k * len));
  tf_upload(tf.d_in2, tf.h_in2, (g_graph_segs + 1) * 8, tf.stream);
  tf_finish(tf.stream);
  seg_call calls[8];
  int count = 0;
  calls[count++] = reduce_call(SHORTHAND, tf.d_in, n, tf.d_in2, ot, g_graph_segs, t, op);
  calls[count++] =
      reduce_call(CUPRIM_SEGMENTED_MERGE_PATH, tf.d_in, n, tf.d_in2, ot, g_graph_segs, t, op);
  calls[count++] = reduce_call(CUPRIM_SEGMENTED_BLOCK_PER_SEGMENT, tf.d_in, n, tf.d_in2, ot,
                               g_graph_segs, t, op);
  calls[count++] = batched(reduce_call(0, tf.d_in, n, NULL, ot, g_graph_segs, t, op), len);
  calls[count++] = scan_call(tf.d_in, n, tf.d_in2, ot, g_graph_segs, t, op, 0, 0);
  calls[count++] = scan_call(tf.d_in, n, tf.d_in2, ot, g_graph_segs, t, op, 1, 1);
  calls[count++] = batched(scan_call(tf.d_in, n, NULL, ot, g_graph_segs, t, op, 0, 0), len);
  for (int i = 0; i < count; ++i)
    calls[i].layout = "uniform 1000 (graph)";
  tf_graph_rounds(&ops, calls, count, n, graph_round);
}

/* ---------------------------------------------------------------- determinism */

/* Float SUM on inexact data, where the order of combination shows in the bits: AUTO gives the
 * same bits on three runs and on a copy of the input 1 element further (other 16-byte alignment,
 * the same offsets relative to it); every other rung repeats its own bits. */
TF_TEST(test_determinism) {
  const size_t picks[] = {5, 6, 2, 14}; /* random, power law, uniform 4, uniform 1300 */
  for (size_t d = 0; d < 2; ++d)
    for (size_t k = 0; k < sizeof picks / sizeof picks[0]; ++k) {
      const cuprim_dtype t = d ? CUPRIM_F64 : CUPRIM_F32, ot = CUPRIM_I64;
      const cuprim_op op = CUPRIM_SUM;
      const layout *L = &layouts[picks[k]];
      const uint64_t n = tf.quick ? L->quick_n : L->n;
      const size_t size = cuprim_dtype_size(t);
      const uint64_t seed = tf_case_seed(0xDE7, t, op, picks[k]);
      tf_scan_input(t, op, HR_SCAN_RANDOM, seed, n, tf.stream);
      unsigned char *in1 = tf.d_in + (IN_CAP_BYTES / 2) + size;
      tf_upload(in1, tf.h_in, n * size, tf.stream);
      const uint64_t segs = make_offsets(L, n, ot, seed);
      make_references(t, op, n, ot, segs, 0);
      enum { RUNS = 3 };
      seg_call calls[MAX_CALLS];
      tf_result res[MAX_CALLS];
      int count = 0;
      for (int a = 0; a < NUM_ALGS; ++a)
        for (int r = 0; r < RUNS; ++r)
          calls[count++] = reduce_call(a, tf.d_in, n, tf.d_in2, ot, segs, t, op);
      const int misaligned_at = count;
      calls[count++] = reduce_call(CUPRIM_SEGMENTED_AUTO, in1, n, tf.d_in2, ot, segs, t, op);
      for (int i = 0; i < count; ++i)
        calls[i].layout = L->name;
      run_and_check(calls, count, tf.stream, "random", seed, 1, res);
      for (int i = 0; i < count; ++i)
        if (!res[i].ok)
          goto next; /* already reported */
      for (int a = 0; a < NUM_ALGS; ++a)
        for (int r = 1; r < RUNS; ++r)
          if (res[a * RUNS + r].hash != res[a * RUNS].hash)
            tf_failure("%s %s %s: run %d gave other bits than run 1", call_name(&calls[a * RUNS]),
                       hr_dtype_name(t), L->name, r + 1);
      if (res[misaligned_at].hash != res[0].hash)
        tf_failure("AUTO %s %s: a misaligned copy of the input gave other bits", hr_dtype_name(t),
                   L->name);
    next:;
    }
}

/* ---------------------------------------------------------------- many tiles */

/* More tiles than the block that joins them takes in one step (4096 tiles: about 2.4e7 merge
 * items of 4 bytes, 1.6e7 of 8), with segments across tile boundaries; the scan's look-back over
 * thousands of tiles. Full mode only. */
TF_TEST(test_many_tiles) {
  if (tf.quick) {
    print_message("[  SKIP    ] many tiles: skipped in quick mode\n");
    skip();
  }
  const struct {
    cuprim_dtype t;
    cuprim_op op;
    hr_scan_data data;
    size_t layout;
    uint64_t n;
  } cases[] = {{CUPRIM_F64, CUPRIM_SUM, HR_SCAN_EXACT, 3, (1u << 24) + 5},
               {CUPRIM_I64, CUPRIM_SUM, HR_SCAN_RANDOM, 5, (1u << 24) + 3},
               {CUPRIM_F32, CUPRIM_MAX, HR_SCAN_RANDOM, 4, (3u << 23) + 7},
               /* one segment over runs of the reduce's join (1024 tiles of 4-byte values, 512
                * of 8-byte ones): 9 runs, 5 runs */
               {CUPRIM_F64, CUPRIM_SUM, HR_SCAN_EXACT, 7, (1u << 24) + 5},
               {CUPRIM_F32, CUPRIM_SUM, HR_SCAN_EXACT, 7, (3u << 23) + 7}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    layout L = layouts[cases[k].layout];
    L.n = cases[k].n;
    const cuprim_dtype t = cases[k].t, ot = CUPRIM_U64;
    const uint64_t seed = tf_case_seed(0x7113, t, cases[k].op, L.n);
    tf_scan_input(t, cases[k].op, cases[k].data, seed, L.n, tf.stream);
    const uint64_t segs = make_offsets(&L, L.n, ot, seed);
    make_references(t, cases[k].op, L.n, ot, segs, 1);
    seg_call calls[8];
    tf_result res[8];
    int count = 0;
    calls[count++] =
        reduce_call(CUPRIM_SEGMENTED_AUTO, tf.d_in, L.n, tf.d_in2, ot, segs, t, cases[k].op);
    calls[count++] =
        reduce_call(CUPRIM_SEGMENTED_MERGE_PATH, tf.d_in, L.n, tf.d_in2, ot, segs, t, cases[k].op);
    calls[count++] = reduce_call(CUPRIM_SEGMENTED_WARP_PER_SEGMENT, tf.d_in, L.n, tf.d_in2, ot,
                                 segs, t, cases[k].op);
    calls[count++] = scan_call(tf.d_in, L.n, tf.d_in2, ot, segs, t, cases[k].op, 0, 0);
    calls[count++] = scan_call(tf.d_in, L.n, tf.d_in2, ot, segs, t, cases[k].op, 1, 1);
    for (int i = 0; i < count; ++i)
      calls[i].layout = L.name;
    run_and_check(calls, count, tf.stream, hr_scan_data_name(cases[k].data), seed, 0, res);
  }
}

/* ---------------------------------------------------------------- look-back stress */

/* The segmented scan run many times on one input of exact data with small and large segments,
 * inclusive and exclusive by turns, every element compared each time: a missing fence or a
 * misread tile status shows up as a rare wrong element. */
TF_TEST(test_scan_stress) {
  const int runs = tf.quick ? 3 : 20;
  const struct {
    cuprim_dtype t;
    size_t layout;
  } cases[] = {{CUPRIM_F32, 5}, {CUPRIM_U64, 2}, {CUPRIM_I32, 6}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    layout L = layouts[cases[k].layout];
    L.n = tf.quick ? L.quick_n * 2 : (uint64_t)2 << 20;
    const cuprim_dtype t = cases[k].t, ot = CUPRIM_I64;
    const uint64_t seed = tf_case_seed(0x57E55, t, cases[k].layout, L.n);
    tf_scan_input(t, CUPRIM_SUM, HR_SCAN_EXACT, seed, L.n, tf.stream);
    const uint64_t segs = make_offsets(&L, L.n, ot, seed);
    make_references(t, CUPRIM_SUM, L.n, ot, segs, 1);
    int bad = 0;
    for (int r = 0; r < runs; ++r) {
      seg_call c = scan_call(tf.d_in, L.n, tf.d_in2, ot, segs, t, CUPRIM_SUM, r % 2, 0);
      tf_result res[1];
      c.layout = L.name;
      bad += run_and_check(&c, 1, tf.stream, "exact, stress", seed, 0, res) != 1;
    }
    print_message("segmented scan stress: %s \"%s\" n=%" PRIu64 ": %d of %d runs wrong\n",
                  hr_dtype_name(t), L.name, L.n, bad, runs);
  }
  /* The batched scan's own look-back: rows over about 3.3 four-byte tiles (8 eight-byte ones),
   * and rows of 5, where a tile reads the head of its first row itself out of place and looks
   * one tile back in place (inclusive and exclusive, out of place and in place, by turns). */
  const struct {
    cuprim_dtype t;
    uint64_t len;
  } rows_cases[] = {{CUPRIM_F32, 20011}, {CUPRIM_U64, 20011}, {CUPRIM_I32, 5}};
  for (size_t k = 0; k < sizeof rows_cases / sizeof rows_cases[0]; ++k) {
    const cuprim_dtype t = rows_cases[k].t;
    const uint64_t len = rows_cases[k].len;
    const uint64_t rows = (tf.quick ? (uint64_t)1 << 18 : (uint64_t)2 << 20) / len;
    const uint64_t n = rows * len;
    const uint64_t seed = tf_case_seed(0x57E56, t, len, n);
    tf_scan_input(t, CUPRIM_SUM, HR_SCAN_EXACT, seed, n, tf.stream);
    for (int ki = 0; ki < 2; ++ki)
      describe_scan(&g_sref[ki], t, CUPRIM_SUM, kinds[ki], tf.h_in, n, CUPRIM_U64, NULL, rows, len);
    int bad = 0;
    for (int r = 0; r < runs; ++r) {
      seg_call c = batched(
          scan_call(tf.d_in, n, NULL, CUPRIM_U64, rows, t, CUPRIM_SUM, r % 2, r / 2 % 2), len);
      tf_result res[1];
      c.layout = "rows";
      bad += run_and_check(&c, 1, tf.stream, "exact, stress", seed, 0, res) != 1;
    }
    print_message("batched scan stress: %s rows of %" PRIu64 " n=%" PRIu64 ": %d of %d runs "
                  "wrong\n",
                  hr_dtype_name(t), len, n, bad, runs);
  }
}

/* ---------------------------------------------------------------- the batched scan's rows */

/* The types the element tiles' scans are tested with (tiles_scan_kernel: 4-, 2- and 8-byte
 * elements, integer and float, exact data where floats are summed). */
typedef struct tile_scan_type {
  cuprim_dtype t;
  cuprim_op op;
  hr_scan_data data;
} tile_scan_type;
static const tile_scan_type tile_scan_types[] = {
    {CUPRIM_F32, CUPRIM_SUM, HR_SCAN_EXACT},   {CUPRIM_I32, CUPRIM_MAX, HR_SCAN_RANDOM},
    {CUPRIM_U64, CUPRIM_SUM, HR_SCAN_RANDOM},  {CUPRIM_F16, CUPRIM_SUM, HR_SCAN_EXACT},
    {CUPRIM_BF16, CUPRIM_MIN, HR_SCAN_RANDOM}, {CUPRIM_F64, CUPRIM_SUM, HR_SCAN_EXACT}};
#define NUM_TILE_SCAN_TYPES (sizeof tile_scan_types / sizeof tile_scan_types[0])

/* n elements of ty's data (seed) scanned inclusive and exclusive, each four ways: out of place,
 * in place, the input one element past its alignment (a copy), the output one element off; over
 * rows of len (cuprim_batched_scan: segs rows, len > 0) or the offsets in tf.h_in2 and tf.d_in2
 * (cuprim_segmented_scan: segs segments, offsets of ot, len 0). */
static void scan_four_ways(const tile_scan_type *ty, uint64_t n, const void *h_off, cuprim_dtype ot,
                           uint64_t segs, uint64_t len, const char *layout, uint64_t seed) {
  const size_t size = cuprim_dtype_size(ty->t);
  tf_scan_input(ty->t, ty->op, ty->data, seed, n, tf.stream);
  unsigned char *in1 = tf.d_in + (IN_CAP_BYTES / 2) + size; /* a copy, 1 element past */
  tf_upload(in1, tf.h_in, n * size, tf.stream);
  for (int ki = 0; ki < 2; ++ki)
    describe_scan(&g_sref[ki], ty->t, ty->op, kinds[ki], tf.h_in, n, ot, h_off, segs, len);
  const void *d_off = h_off ? tf.d_in2 : NULL;
  seg_call calls[8];
  tf_result res[8];
  int count = 0;
  for (int ki = 0; ki < 2; ++ki)
    for (int way = 0; way < 4; ++way) {
      seg_call c =
          scan_call(way == 2 ? in1 : tf.d_in, n, d_off, ot, segs, ty->t, ty->op, ki, way == 1);
      c.out_offset = way == 3;
      c.layout = layout;
      calls[count++] = len ? batched(c, len) : c;
    }
  run_and_check(calls, count, tf.stream, hr_scan_data_name(ty->data), seed, 0, res);
}

/* cuprim_batched_scan finds each element's row start from its index (tiles_scan_kernel,
 * row_starts): row lengths on both sides of a vector (4 four-byte elements, 8 two-byte ones as
 * floats' vectors of 8, 2 eight-byte ones), of a warp's vectors (128, 256, 64; 1024 four-byte
 * elements in the wide tiles), of the rows whose tiles read their first row's head themselves
 * (1024) and of a tile (6144, 2560; the wide tiles of four-byte elements, which rows longer than
 * 1024 and scans in place take, 8192), rows over several tiles, a partial last tile; inclusive
 * and exclusive, in place (the look-back for every length), and the input or the output one
 * element off its alignment (scan_four_ways). Quick mode: every third length, in turn. */
TF_TEST(test_batched_scan_rows) {
  static const uint64_t lens[] = {1,    2,    3,    5,    7,    8,    9,    31,   33,
                                  127,  128,  129,  383,  385,  1023, 1024, 1025, 2559,
                                  2561, 6143, 6144, 6145, 8191, 8192, 8193, 20011};
  const size_t num_lens = sizeof lens / sizeof lens[0];
  for (size_t ti = 0; ti < NUM_TILE_SCAN_TYPES; ++ti)
    for (size_t li = 0; li < num_lens; ++li) {
      if (tf.quick && (li + ti) % 3)
        continue;
      const tile_scan_type *ty = &tile_scan_types[ti];
      const uint64_t len = lens[li], rows = (60000 + len - 1) / len;
      scan_four_ways(ty, rows * len, NULL, CUPRIM_U64, rows, len, "rows",
                     tf_case_seed(0xB5CA, ty->t, ty->op, len));
    }
}

/* ---------------------------------------------------------------- the batched reduce's rows */

/* cuprim_batched_reduce (segmented_rows.cu) takes rows of up to 4096 / 24 four-byte elements (85
 * eight-byte, 341 two-byte) as tiles of whole rows staged in shared memory (16 KiB a tile), longer
 * ones as pieces of up to 64 16-byte groups a lane (8192 four-byte elements, 16384 two-byte, 4096
 * eight-byte) reduced by teams of 8, 16 or 32 lanes (up to 64 groups a row, 128, more), each row
 * of several pieces with one more pass over the pieces' values per factor of a piece (1024
 * four-byte values, 512 eight-byte). Row lengths on both sides of those lines, of a 16-byte
 * vector, of a piece and of several pieces; each length twice on the input and once on a copy one
 * element past its alignment (scalar loads of the same groups): every result right, and the bits
 * of the three the same (float SUM on random data, where the order shows). Full mode: a row long
 * enough for three passes (eight-byte elements: 4097 pieces, whose values make nine pieces of the
 * second pass). Quick mode: every third length, in turn. */
TF_TEST(test_batched_reduce_rows) {
  static const tile_scan_type types[] = {
      {CUPRIM_F32, CUPRIM_SUM, HR_SCAN_RANDOM},  {CUPRIM_I32, CUPRIM_MAX, HR_SCAN_RANDOM},
      {CUPRIM_U64, CUPRIM_SUM, HR_SCAN_RANDOM},  {CUPRIM_F16, CUPRIM_SUM, HR_SCAN_EXACT},
      {CUPRIM_BF16, CUPRIM_MIN, HR_SCAN_RANDOM}, {CUPRIM_F64, CUPRIM_SUM, HR_SCAN_RANDOM}};
  static const uint64_t lens[] = {1,    2,    3,    5,     8,     17,   31,   32,   33,
                                  63,   64,   85,   86,    127,   128,  129,  170,  171,
                                  255,  256,  257,  341,   342,   513,  1000, 4095, 4097,
                                  8191, 8192, 8193, 16385, 24593, 40000};
  const size_t num_types = sizeof types / sizeof types[0], num_lens = sizeof lens / sizeof lens[0];
  for (size_t ti = 0; ti < num_types; ++ti)
    for (size_t li = 0; li <= num_lens; ++li) {
      const int three_passes = li == num_lens; /* rows of 2^24 + 5 eight-byte elements */
      if (three_passes ? tf.quick || ti != num_types - 1 : tf.quick && (li + ti) % 3)
        continue;
      const tile_scan_type *ty = &types[ti];
      const size_t size = cuprim_dtype_size(ty->t);
      const uint64_t len = three_passes ? (1u << 24) + 5 : lens[li];
      const uint64_t rows = three_passes ? 1 : (60000 + len - 1) / len, n = rows * len;
      const uint64_t seed = tf_case_seed(0xBA7C, ty->t, ty->op, len);
      tf_scan_input(ty->t, ty->op, ty->data, seed, n, tf.stream);
      unsigned char *in1 = tf.d_in + (IN_CAP_BYTES / 2) + size; /* a copy, 1 element past */
      if (!three_passes)
        tf_upload(in1, tf.h_in, n * size, tf.stream);
      if (hr_seg_reduce_reference(&g_rref, ty->t, ty->op, tf.h_in, n, CUPRIM_U64, NULL, rows,
                                  len) != 0)
        fail_msg("out of host memory for the reduce reference");
      seg_call calls[3];
      tf_result res[3];
      const int count = three_passes ? 1 : 3;
      for (int i = 0; i < count; ++i) {
        calls[i] = batched(
            reduce_call(0, i == 2 ? in1 : tf.d_in, n, NULL, CUPRIM_U64, rows, ty->t, ty->op), len);
        calls[i].layout = i == 2 ? "rows, input 1 element past its alignment" : "rows";
      }
      if (run_and_check(calls, count, tf.stream, hr_scan_data_name(ty->data), seed, 1, res) !=
          count)
        continue; /* already reported */
      for (int i = 1; i < count; ++i)
        if (res[i].hash != res[0].hash)
          tf_failure("cuprim_batched_reduce %s %s rows of %" PRIu64 ": %s gave other bits than "
                     "the first run",
                     hr_dtype_name(ty->t), hr_op_name(ty->op), len,
                     i == 1 ? "a second run" : "the input 1 element past its alignment");
    }
}

/* ---------------------------------------------------------------- the segmented scan's starts */

/* Offsets placed around the tiles of cuprim_segmented_scan (tiles_scan_kernel: 8192 elements of
 * 4 bytes (its wide tiles), 6144 of 2, 2560 of 8), over n elements: no segment covers the first
 * `lead` elements or the last `tail`; before each tile boundary B a segment starts at B - d, d
 * cycling through values on both sides of the head reads' limit (1024: the tile reads the head
 * itself; 1025: it looks back), at B itself and just past it, and farther back than a tile; between
 * those starts, short segments (1 to 7 elements, some empty) and every so often a run of 3000 empty
 * ones. Into g_off; returns the number of segments. */
static uint64_t starts_offsets(uint64_t tile, uint64_t n, uint64_t lead, uint64_t tail) {
  static const int64_t back[] = {1024, 1025, 1, 0, -1, 1023, 700, 3000, 9000};
  static const uint64_t shorts[] = {1, 3, 0, 7, 2, 0, 0, 5};
  uint64_t segs = 0, at = lead, k = 0;
  g_off[0] = lead;
  for (uint64_t B = tile; B + tile < n - tail; B += tile, ++k) {
    const int64_t want = (int64_t)B - back[k % (sizeof back / sizeof back[0])];
    if (want <= (int64_t)at + 16)
      continue;
    for (uint64_t j = 0; at + 16 < (uint64_t)want; ++j) { /* short segments first */
      at += shorts[j % (sizeof shorts / sizeof shorts[0])];
      g_off[++segs] = at;
      if (j == 40)
        at = (uint64_t)want - 16; /* then one long one */
    }
    if (k % 4 == 2) /* a run of empty segments */
      for (int e = 0; e < 3000; ++e)
        g_off[++segs] = at;
    at = (uint64_t)want;
    g_off[++segs] = at;
  }
  g_off[++segs] = n - tail;
  return segs;
}

/* cuprim_segmented_scan finds its starts in a bitmask that starts_kernel sets from the offsets,
 * and a tile reads the head of the segment open at its start where that began at most 1024
 * elements before it (starts_offsets): six dtypes, inclusive and exclusive, out of place (head
 * reads), in place (look-back only), the input or the output one element off its alignment, with
 * uncovered elements at both ends spanning tiles, or none. Quick mode: fewer. */
TF_TEST(test_segmented_scan_starts) {
  for (size_t ti = 0; ti < NUM_TILE_SCAN_TYPES; ++ti)
    for (int gaps = 0; gaps < 2; ++gaps) {
      if (tf.quick && (ti + (size_t)gaps) % 2)
        continue;
      const tile_scan_type *ty = &tile_scan_types[ti];
      const size_t size = cuprim_dtype_size(ty->t);
      const uint64_t tile = size == 8 ? 2560 : (size == 4 ? 8192 : 6144), n = 13 * tile + 555;
      const uint64_t lead = gaps ? 2 * tile + 17 : 0, tail = gaps ? tile + 300 : 0;
      const uint64_t segs = starts_offsets(tile, n, lead, tail);
      const cuprim_dtype ot = gaps ? CUPRIM_I32 : CUPRIM_U64;
      for (uint64_t k = 0; k <= segs; ++k)
        hr_seg_store_offset(ot, tf.h_in2, k, (int64_t)g_off[k]);
      tf_upload(tf.d_in2, tf.h_in2, (size_t)(segs + 1) * cuprim_dtype_size(ot), tf.stream);
      scan_four_ways(ty, n, tf.h_in2, ot, segs, 0,
                     gaps ? "tile boundaries, gaps" : "tile boundaries",
                     tf_case_seed(0x57A7, ty->t, ty->op, (uint64_t)gaps));
    }
}

/* Few segments over n elements, at most n / (4 * tile) of them, so that cuprim_segmented_scan
 * writes only the bitmask words of tiles that hold a start (sparse starts, segmented_scan.cu),
 * placed around the tiles (tile elements each; T below) as starts_offsets places them: starts
 * 1024 and 1025 elements before a tile (the line of the bitmask's head reads; with sparse starts
 * the tile after looks back), at a tile's first element and the one after, at its last; a run of
 * empty segments and a cluster of short ones in one tile; segments over many tiles; no segment
 * over the first `lead` elements or the last `tail`. Into g_off; returns the number of segments. */
static uint64_t sparse_offsets(uint64_t tile, uint64_t n, uint64_t lead, uint64_t tail) {
  const uint64_t T = tile;
  const uint64_t starts[] = {
      3 * T - 1024, 5 * T - 1025,  7 * T,       7 * T + 1,     9 * T + 100,   9 * T + 100,
      9 * T + 100,  9 * T + 100,   9 * T + 100, 9 * T + 101,   9 * T + 103,   9 * T + 106,
      9 * T + 110,  12 * T - 1,    12 * T,      20 * T + 5000, 30 * T - 3000, 31 * T + T / 2,
      45 * T,       45 * T + 1024, 60 * T - 1};
  uint64_t segs = 0;
  g_off[0] = lead;
  for (size_t k = 0; k < sizeof starts / sizeof starts[0]; ++k)
    if (starts[k] > lead && starts[k] < n - tail)
      g_off[++segs] = starts[k];
  g_off[++segs] = n - tail;
  if (segs > n / (4 * tile))
    fail_msg("test bug: %" PRIu64 " segments are not sparse over %" PRIu64 " elements", segs, n);
  return segs;
}

/* cuprim_segmented_scan over few segments (sparse_offsets: the bitmask written only for tiles
 * that hold a start, and read only there): six dtypes, inclusive and exclusive, out of place,
 * in place, the input or the output one element off its alignment, with uncovered elements at
 * both ends or none; and the same offsets shuffled, two of them past n (the guards around d_out
 * untouched). Quick mode: fewer. */
TF_TEST(test_segmented_scan_sparse_starts) {
  for (size_t ti = 0; ti < NUM_TILE_SCAN_TYPES; ++ti)
    for (int way = 0; way < 3; ++way) { /* sorted, sorted with gaps, shuffled */
      if (tf.quick && (ti + (size_t)way) % 2)
        continue;
      const tile_scan_type *ty = &tile_scan_types[ti];
      const size_t size = cuprim_dtype_size(ty->t);
      const uint64_t tile = size == 8 ? 2560 : (size == 4 ? 8192 : 6144), n = 100 * tile + 555;
      const uint64_t lead = way == 1 ? 2 * tile + 17 : 0, tail = way == 1 ? tile + 300 : 0;
      const uint64_t segs = sparse_offsets(tile, n, lead, tail);
      const uint64_t seed = tf_case_seed(0x5BA5, ty->t, ty->op, (uint64_t)way);
      if (way == 2) { /* Fisher-Yates, then two past n */
        uint64_t s = seed;
        for (uint64_t k = segs; k > 0; --k) {
          const uint64_t j = hr_below(&s, k + 1), x = g_off[k];
          g_off[k] = g_off[j];
          g_off[j] = x;
        }
        g_off[segs / 2] = n + 5;
        g_off[segs] = 2 * n;
      }
      const cuprim_dtype ot = way == 1 ? CUPRIM_I32 : CUPRIM_U64;
      for (uint64_t k = 0; k <= segs; ++k)
        hr_seg_store_offset(ot, tf.h_in2, k, (int64_t)g_off[k]);
      tf_upload(tf.d_in2, tf.h_in2, (size_t)(segs + 1) * cuprim_dtype_size(ot), tf.stream);
      static const char *const names[] = {"sparse starts", "sparse starts, gaps",
                                          "sparse starts, shuffled"};
      scan_four_ways(ty, n, tf.h_in2, ot, segs, 0, names[way], seed);
    }
}

/* ---------------------------------------------------------------- allocators */

static void allocator_calls(cuprim_ctx *ctx, int failing) {
  const layout *L = &layouts[5];
  const cuprim_dtype t = CUPRIM_U32, ot = CUPRIM_U32;
  const cuprim_op op = CUPRIM_SUM;
  const uint64_t n = L->quick_n;
  const uint64_t seed = tf_case_seed(0xA11C, t, op, n);
  tf_scan_input(t, op, HR_SCAN_RANDOM, seed, n, tf.stream);
  const uint64_t segs = make_offsets(L, n, ot, seed);
  make_references(t, op, n, ot, segs, 1);
  seg_call calls[MAX_CALLS];
  tf_result res[MAX_CALLS];
  int must_fail[MAX_CALLS];
  int count = 0;
  for (int a = SHORTHAND; a < NUM_ALGS; ++a) {
    /* The merge path (AUTO, MERGE_PATH) takes temporary memory; the per-segment rungs none. */
    must_fail[count] =
        a == SHORTHAND || a == CUPRIM_SEGMENTED_AUTO || a == CUPRIM_SEGMENTED_MERGE_PATH;
    calls[count++] = reduce_call(a, tf.d_in, n, tf.d_in2, ot, segs, t, op);
  }
  /* The batched reduce: rows of one piece take none (1000), rows of several pieces take room
   * for the pieces' values (10000: 2 pieces of 4-byte elements). */
  const int rows_at = count;
  must_fail[count] = 0;
  calls[count++] = batched(reduce_call(0, tf.d_in, n, NULL, ot, n / 1000, t, op), 1000);
  must_fail[count] = 1;
  calls[count++] = batched(reduce_call(0, tf.d_in, n, NULL, ot, n / 10000, t, op), 10000);
  /* In place only with the counting allocator: an in-place call's slot first receives a copy of
   * the input (the test's own setup), which the failing case would take for the call's writes. */
  for (int ki = 0; ki < 2; ++ki) {
    must_fail[count] = 1;
    calls[count++] = scan_call(tf.d_in, n, tf.d_in2, ot, segs, t, op, ki, failing ? 0 : ki);
  }
  for (int i = 0; i < count; ++i)
    calls[i].layout = L->name;
  /* the batched reduce's rows differ from the layout: their own references */
  static hr_seg_reduce_ref rows_ref[2];
  for (int k = 0; k < 2; ++k) {
    const uint64_t len = k ? 10000 : 1000;
    if (hr_seg_reduce_reference(&rows_ref[k], t, op, tf.h_in, n, ot, NULL, n / len, len) != 0)
      fail_msg("out of host memory");
    calls[rows_at + k].want = &rows_ref[k];
  }
  const tf_case cs = {failing ? "random, failing allocator" : "random, counting allocator", seed,
                      0};
  if (!failing) {
    tf_run_and_check(&ops, ctx, calls, count, tf.stream, &cs, res);
  } else {
    tf_run_out_of_memory(&ops, ctx, calls, count, res, must_fail, &cs);
  }
  hr_seg_reduce_ref_free(&rows_ref[0]);
  hr_seg_reduce_ref_free(&rows_ref[1]);
}

static void counting_cases(cuprim_ctx *ctx) { allocator_calls(ctx, 0); }
static void failing_cases(cuprim_ctx *ctx) { allocator_calls(ctx, 1); }

TF_COUNTING_ALLOCATOR_TEST(counting_cases,
                           "the merge path's partitions and tile records need memory")

TF_FAILING_ALLOCATOR_TEST(failing_cases)

/* ---------------------------------------------------------------- past 2^32 */

/* U32 SUM of formula data (test_device_fill.h) over N = 4097 * (2^20 + 3) elements (past 2^32):
 * the batched reduce over N rows of one element (num_segments past 2^32), the segmented reduce of
 * every algorithm over about 2^20 random segments (I64 offsets), the segmented scan (inclusive,
 * then exclusive in place) over them, and the batched scan over 4097 rows of 2^20 + 3 and the
 * segmented scan over the same rows as offsets (sparse starts). Checked on
 * the device against the formula, and the guards around each output. A context of its own. */
static void report(const char *what, cuprim_status st, cudaError_t ce, uint64_t wrong,
                   uint64_t first) {
  if (st != CUPRIM_SUCCESS)
    tf_failure("%s: returned %s (last CUDA error %s)", what, tu_status_name(st),
               cudaGetErrorName(cuprim_last_cuda_error()));
  else if (ce != cudaSuccess)
    tf_failure("%s: the device check failed: %s", what, cudaGetErrorName(ce));
  else if (wrong)
    tf_failure("%s: %" PRIu64 " wrong (the first at %" PRIu64 ")", what, wrong, first);
}

TU_TEST(test_large_input) {
  (void)state;
  const uint64_t rows = 4097, len = (1u << 20) + 3, N = rows * len;
  const size_t bytes = N * sizeof(uint32_t);
  const tf_large_u32 L = tf_begin_large_u32("past 2^32", 2 * bytes + ((size_t)1 << 30), N);
  TF_CUDA(tu_device_fill_u32(L.d_in, N, tf.stream));
  uint64_t wrong = 0, first = 0;
  char what[160];

  /* N rows of one element: num_segments past 2^32. */
  TF_CUDA(cudaMemsetAsync(L.d_slot, TF_POISON, N * 4 + 2 * TF_GUARD_BYTES, tf.stream));
  cuprim_status st =
      cuprim_batched_reduce(L.ctx, L.d_in, L.d_out, N, 1, CUPRIM_U32, CUPRIM_SUM, tf.stream);
  const tu_segments ones = {NULL, N, 1};
  cudaError_t ce = tu_device_check_segmented_sum_u32(L.d_out, ones, &wrong, &first, tf.stream);
  report("cuprim_batched_reduce U32 SUM, rows of 1, past 2^32 rows", st, ce, wrong, first);
  tf_check_large_guards(L.d_slot, N * 4, "cuprim_batched_reduce, past 2^32 rows");

  /* About 2^20 random segments over N elements, I64 offsets (as uint64 on the device too: the
   * values are non-negative). */
  uint64_t *h_off = (uint64_t *)malloc(((size_t)1 << 21) * sizeof *h_off);
  assert_non_null(h_off);
  const uint64_t segs = hr_seg_layout(HR_SEG_RANDOM, 4096, N, tf.seed, h_off, (1u << 21) - 1);
  assert_true(segs != UINT64_MAX);
  uint64_t *d_off = NULL;
  TF_CUDA(cudaMalloc((void **)&d_off, (segs + 1) * 8));
  TF_CUDA(cudaMemcpy(d_off, h_off, (segs + 1) * 8, cudaMemcpyHostToDevice));
  const tu_segments random_segs = {d_off, segs, 0};
  for (int a = 0; a < NUM_ALGS; ++a) {
    snprintf(what, sizeof what,
             "cuprim_segmented_reduce_ex(%s) U32 SUM, %" PRIu64 " segments over %" PRIu64
             " elements",
             hr_segmented_alg_name((cuprim_segmented_alg)a), segs, N);
    TF_CUDA(cudaMemsetAsync(L.d_slot, TF_POISON, segs * 4 + 2 * TF_GUARD_BYTES, tf.stream));
    st = cuprim_segmented_reduce_ex(L.ctx, (cuprim_segmented_alg)a, L.d_in, L.d_out, N, d_off,
                                    CUPRIM_I64, segs, CUPRIM_U32, CUPRIM_SUM, tf.stream);
    ce = tu_device_check_segmented_sum_u32(L.d_out, random_segs, &wrong, &first, tf.stream);
    report(what, st, ce, wrong, first);
    tf_check_large_guards(L.d_slot, segs * 4, what);
  }
  /* The rows again as I64 offsets: few segments (the segmented scan's sparse starts). */
  uint64_t *h_rows = (uint64_t *)malloc((rows + 1) * sizeof *h_rows);
  assert_non_null(h_rows);
  for (uint64_t k = 0; k <= rows; ++k)
    h_rows[k] = k * len;
  uint64_t *d_rows = NULL;
  TF_CUDA(cudaMalloc((void **)&d_rows, (rows + 1) * 8));
  TF_CUDA(cudaMemcpy(d_rows, h_rows, (rows + 1) * 8, cudaMemcpyHostToDevice));
  const tu_segments rows_segs = {d_rows, rows, 0};
  /* The scans: inclusive out of place over the random segments, the batched scan (in place on the
   * scanned data would need the input: out of place), inclusive out of place over the rows as
   * offsets, then exclusive in place over the random segments (last: it overwrites the input). */
  for (int k = 0; k < 4; ++k) {
    const int exclusive = k == 3, in_place = k == 3, rows_form = k == 1, sparse = k == 2;
    const uint64_t *offs = sparse ? d_rows : d_off;
    const tu_segments *layout = sparse ? &rows_segs : &random_segs;
    TF_CUDA(cudaMemsetAsync(L.d_slot, TF_POISON, bytes + 2 * TF_GUARD_BYTES, tf.stream));
    uint32_t *target = L.d_out;
    if (in_place) {
      TF_CUDA(cudaMemcpyAsync(L.d_out, L.d_in, bytes, cudaMemcpyDeviceToDevice, tf.stream));
    }
    const void *src = in_place ? (const void *)target : L.d_in;
    if (rows_form) {
      st = cuprim_batched_scan(L.ctx, src, target, rows, len, CUPRIM_U32, CUPRIM_SUM,
                               CUPRIM_INCLUSIVE, tf.stream);
      const tu_segments r = {NULL, rows, len};
      ce = tu_device_check_segmented_scan_sum_u32(target, r, 0, &wrong, &first, tf.stream);
      snprintf(what, sizeof what, "cuprim_batched_scan U32 SUM, %" PRIu64 " rows of %" PRIu64, rows,
               len);
    } else {
      st = cuprim_segmented_scan(L.ctx, src, target, N, offs, CUPRIM_I64, layout->rows, CUPRIM_U32,
                                 CUPRIM_SUM, exclusive ? CUPRIM_EXCLUSIVE : CUPRIM_INCLUSIVE,
                                 tf.stream);
      ce = tu_device_check_segmented_scan_sum_u32(target, *layout, exclusive, &wrong, &first,
                                                  tf.stream);
      snprintf(what, sizeof what,
               "cuprim_segmented_scan U32 SUM %s%s, %" PRIu64 " segments over %" PRIu64 " elements",
               exclusive ? "exclusive" : "inclusive", in_place ? " in place" : "", layout->rows, N);
    }
    report(what, st, ce, wrong, first);
    tf_check_large_guards(L.d_slot, bytes, what);
  }
  free(h_off);
  free(h_rows);
  TF_CUDA(cudaFree(d_off));
  TF_CUDA(cudaFree(d_rows));
  tf_end_large_u32(&L);
}

TF_MAIN(&config)
