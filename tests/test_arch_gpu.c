/* Which device code a context's device runs (cuprim_ctx_code_arch, cuprim_build_architectures),
 * checked against the device and the build's architecture list: the architecture the kernels
 * run must be one the build holds, no newer than the device, and from machine code exactly when
 * the build holds machine code of the device's major version no newer than the device. With no
 * device every test skips (exit 77). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_fixture_gpu.h"

/* The entries of the build list "75-real,80-real,120" as (arch, has machine code, has PTX). */
typedef struct arch_entry {
  int arch, real, virt;
} arch_entry;

static int parse_archs(const char *list, arch_entry *out, int cap) {
  int n = 0;
  const char *p = list;
  while (*p && n < cap) {
    char *end;
    const long v = strtol(p, &end, 10);
    assert_true(end != p); /* every entry starts with a number */
    arch_entry e = {(int)v, 1, 1};
    if (strncmp(end, "-real", 5) == 0) {
      e.virt = 0;
      end += 5;
    } else if (strncmp(end, "-virtual", 8) == 0) {
      e.real = 0;
      end += 8;
    }
    out[n++] = e;
    assert_true(*end == ',' || *end == '\0');
    p = *end == ',' ? end + 1 : end;
  }
  return n;
}

TU_TEST(test_build_architectures) {
  (void)state;
  const char *list = cuprim_build_architectures();
  assert_non_null(list);
  print_message("build architectures: %s\n", list);
  arch_entry e[32];
  assert_true(parse_archs(list, e, 32) >= 1);
}

TU_TEST(test_code_arch_matches_device) {
  (void)state;
  TU_SKIP_WITHOUT_DEVICE();
  cuprim_ctx *ctx = NULL;
  assert_int_equal(cuprim_ctx_create(&ctx, 0, NULL), CUPRIM_SUCCESS);
  int arch = -1, from_ptx = -1;
  assert_int_equal(cuprim_ctx_code_arch(ctx, &arch, &from_ptx), CUPRIM_SUCCESS);
  assert_int_equal(cuprim_ctx_code_arch(ctx, NULL, NULL), CUPRIM_SUCCESS);
  assert_int_equal(cuprim_ctx_code_arch(NULL, &arch, NULL), CUPRIM_ERROR_INVALID_ARGUMENT);
  int major = 0, minor = 0;
  TF_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  TF_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
  const int cc = major * 10 + minor;
  print_message("device %d.%d runs %d code%s\n", major, minor, arch,
                from_ptx ? " compiled by the driver from PTX" : " (machine code)");

  arch_entry e[32];
  const int n = parse_archs(cuprim_build_architectures(), e, 32);
  /* The machine code the driver would pick: the newest of the device's major version that is no
   * newer than the device; else PTX, the newest no newer than the device. */
  int best_real = -1, best_virt = -1;
  for (int i = 0; i < n; ++i) {
    if (e[i].real && e[i].arch / 10 == major && e[i].arch <= cc && e[i].arch > best_real)
      best_real = e[i].arch;
    if (e[i].virt && e[i].arch <= cc && e[i].arch > best_virt)
      best_virt = e[i].arch;
  }
  if (best_real >= 0) {
    assert_int_equal(from_ptx, 0);
    assert_int_equal(arch, best_real);
  } else {
    assert_int_equal(from_ptx, 1);
    assert_int_equal(arch, best_virt);
  }
  assert_int_equal(cuprim_ctx_destroy(ctx), CUPRIM_SUCCESS);
}

TU_MAIN_GPU(NULL, NULL)
