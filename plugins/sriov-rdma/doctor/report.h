/* SPDX-License-Identifier: Apache-2.0 */
/* The doctor's findings: one line per check with its status, what was seen
 * and, for WARN and FAIL, the fix; printed as a table or one JSON document. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

enum report_status { REPORT_OK, REPORT_WARN, REPORT_FAIL };

#define REPORT_TEXT_MAX 512

struct report_item {
	enum report_status status;
	char check[32];
	char subject[96];
	char seen[REPORT_TEXT_MAX];
	char fix[REPORT_TEXT_MAX];	/* "" for OK */
};

struct report {
	struct report_item *items;
	size_t n, cap;
	int count[3];			/* by status */
	bool oom;			/* a finding could not be kept */
};

/* fix may be NULL for OK; seen is printf-formatted. */
__attribute__((format(printf, 6, 7)))
void report_add(struct report *r, enum report_status status, const char *check,
		const char *subject, const char *fix, const char *fmt, ...);
/* -ENOMEM when a finding was lost or the document cannot be built. */
int report_print_table(const struct report *r, FILE *out);
int report_print_json(const struct report *r, const char *command, FILE *out);
/* 0 when nothing failed, 1 when something did. */
int report_exit_code(const struct report *r);
void report_release(struct report *r);
