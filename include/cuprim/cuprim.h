/**
 * @file cuprim.h
 * @brief Everything in cuprim: include this one header.
 */
#ifndef CUPRIM_CUPRIM_H
#define CUPRIM_CUPRIM_H

#include "core.h"
#include "reduce.h"
#include "scan.h"
#include "histogram.h"

#endif /* CUPRIM_CUPRIM_H */
