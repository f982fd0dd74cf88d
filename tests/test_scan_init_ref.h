/* The reference of cuprim_scan_init: the scan of x[0..n) from an initial value, built from
 * test_scan_ref.h's reference of the inclusive scan of [init, x[0], ..., x[n-1]] (n + 1 elements):
 * its elements 1..n are the inclusive scan from init, its elements 0..n-1 the exclusive one. So
 * the data kinds, tolerances, exactness and NaN rules of the scan tests carry over unchanged: an
 * element's tolerance counts init as one more input. Plain C on the host. */
#ifndef CUPRIM_TEST_SCAN_INIT_REF_H
#define CUPRIM_TEST_SCAN_INIT_REF_H

#include "hostref_scan.h"

typedef struct hr_scan_init_ref {
  hr_scan_ref full; /* the inclusive scan of [init, x...] (owns the memory) */
  hr_scan_ref view; /* the n elements a cuprim_scan_init call must give: pass to hr_scan_check */
  unsigned char *y; /* [init, x...], reused from call to call */
  size_t y_cap;
} hr_scan_init_ref;

void hr_scan_init_ref_init(hr_scan_init_ref *r);
void hr_scan_init_ref_free(hr_scan_init_ref *r);

/* r->view = the reference of cuprim_scan_init(kind) of h[0..n) (dtype t) from *init (one element
 * of t, host memory). Returns 0, or -1 if memory ran out. O(n). */
int hr_scan_init_reference(hr_scan_init_ref *r, cuprim_dtype t, cuprim_op op, cuprim_scan_kind kind,
                           const void *init, const void *h, uint64_t n);

#endif
