/* See test_scan_init_ref.h. */
#include "test_scan_init_ref.h"

#include <stdlib.h>
#include <string.h>

void hr_scan_init_ref_init(hr_scan_init_ref *r) {
  memset(r, 0, sizeof *r);
  hr_scan_ref_init(&r->full);
}

void hr_scan_init_ref_free(hr_scan_init_ref *r) {
  hr_scan_ref_free(&r->full);
  free(r->y);
  memset(r, 0, sizeof *r);
}

int hr_scan_init_reference(hr_scan_init_ref *r, cuprim_dtype t, cuprim_op op, cuprim_scan_kind kind,
                           const void *init, const void *h, uint64_t n) {
  const size_t size = cuprim_dtype_size(t), bytes = (size_t)(n + 1) * size;
  if (bytes > r->y_cap) {
    unsigned char *y = (unsigned char *)realloc(r->y, bytes);
    if (!y)
      return -1;
    r->y = y;
    r->y_cap = bytes;
  }
  memcpy(r->y, init, size);
  if (n)
    memcpy(r->y + size, h, (size_t)n * size);
  if (hr_scan_reference(&r->full, t, op, CUPRIM_INCLUSIVE, r->y, n + 1) != 0)
    return -1;
  /* A view into the full reference: never freed through (its capacities are 0). */
  hr_scan_ref *v = &r->view;
  *v = r->full;
  v->kind = kind;
  v->n = n;
  v->cap_bytes = 0;
  v->cap_elems = 0;
  if (kind == CUPRIM_INCLUSIVE) {
    /* out[i] = y's inclusive scan at i + 1 */
    v->bits = r->full.bits + size;
    if (!r->full.exact) {
      v->value = r->full.value + 1;
      v->tol = r->full.tol + 1;
    }
    v->nan_from = r->full.nan_from == 0 ? 0 : r->full.nan_from - 1;
  } else {
    /* out[i] = y's inclusive scan at i */
    v->nan_from = r->full.nan_from < n ? r->full.nan_from : n;
  }
  return 0;
}
