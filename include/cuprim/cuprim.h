/**
 * @file cuprim.h
 * @brief Everything in cuprim: include this one header.
 *
 * Everything but the optional multi-GPU component, whose header cuprim/nccl.h also needs NCCL's
 * nccl.h and whose calls are in libcuprim_nccl.a (cuprim::nccl): include it where you use it.
 */
#ifndef CUPRIM_CUPRIM_H
#define CUPRIM_CUPRIM_H

#include "core.h"
#include "histogram.h"
#include "reduce.h"
#include "scan.h"
#include "segmented.h"

#endif /* CUPRIM_CUPRIM_H */
