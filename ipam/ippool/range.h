/* SPDX-License-Identifier: Apache-2.0 */
/* Pure range arithmetic: parsing ranges, usable bounds, exclusions, lowest free. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include "err.h"
#include "store.h"

#define RANGE_MAX_SKIP 257	/* exclude entries + the gateway */
#define RANGE_TEXT_MAX 128

/* A range as written in one config block (empty strings = unset). */
struct range_conf {
	char range[RANGE_TEXT_MAX];	/* "a.b.c.d/nn" or "first-last/nn" */
	char start[RANGE_TEXT_MAX];	/* range_start */
	char end[RANGE_TEXT_MAX];	/* range_end */
	char gateway[RANGE_TEXT_MAX];
	char exclude[RANGE_MAX_SKIP - 1][RANGE_TEXT_MAX];
	int n_exclude;
};

/* Resolves one config block into *out (skip points into skip_buf, which
 * must hold RANGE_MAX_SKIP spans). network and shared are copied. Config
 * errors (CNI_ERR_CONFIG) name the key and the value. */
int range_build(const struct range_conf *rc, const char *network, bool shared,
		struct pool_range *out, struct pool_span *skip_buf, struct cni_err *err);
/* Whether a is in r->span and not in r->skip. */
bool range_contains(const struct pool_range *r, ipaddr_u128 a);
/* Decimal text of v into buf (>= 40 bytes). */
void range_u128_format(ipaddr_u128 v, char *buf, size_t size);
/* Decimal digits only, as range_u128_format writes them: -EINVAL for
 * anything else or a value past 2^128 - 1. */
int range_u128_parse(const char *s, ipaddr_u128 *out);
