// SPDX-License-Identifier: Apache-2.0
/* Keeps the doctor's findings and prints them as a table or as JSON. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "json.h"
#include "report.h"

static const char *const status_names[] = {
	[REPORT_OK] = "OK",
	[REPORT_WARN] = "WARN",
	[REPORT_FAIL] = "FAIL",
};

static struct report_item *new_item(struct report *r)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 32;
		struct report_item *items = realloc(r->items, cap * sizeof(*items));

		if (!items)
			return NULL;
		r->items = items;
		r->cap = cap;
	}
	return &r->items[r->n++];
}

void report_add(struct report *r, enum report_status status, const char *check,
		const char *subject, const char *fix, const char *fmt, ...)
{
	struct report_item *it = new_item(r);
	va_list ap;

	if (!it) {
		r->oom = true;
		return;
	}
	it->status = status;
	snprintf(it->check, sizeof(it->check), "%s", check);
	snprintf(it->subject, sizeof(it->subject), "%s", subject);
	snprintf(it->fix, sizeof(it->fix), "%s", status != REPORT_OK && fix ? fix : "");
	va_start(ap, fmt);
	vsnprintf(it->seen, sizeof(it->seen), fmt, ap);
	va_end(ap);
	r->count[status]++;
}

static void print_summary(const struct report *r, FILE *out)
{
	fprintf(out, "%zu checks: %d OK, %d WARN, %d FAIL\n", r->n, r->count[REPORT_OK],
		r->count[REPORT_WARN], r->count[REPORT_FAIL]);
}

int report_print_table(const struct report *r, FILE *out)
{
	fprintf(out, "%-4s  %-18s %-24s %s\n", "", "CHECK", "SUBJECT", "SEEN");
	for (size_t i = 0; i < r->n; i++) {
		const struct report_item *it = &r->items[i];

		fprintf(out, "%-4s  %-18s %-24s %s", status_names[it->status], it->check,
			it->subject, it->seen);
		if (it->fix[0])
			fprintf(out, " -- fix: %s", it->fix);
		fputc('\n', out);
	}
	print_summary(r, out);
	return r->oom ? -ENOMEM : 0;
}

static cJSON *item_json(const struct report_item *it)
{
	cJSON *o = cJSON_CreateObject();

	if (!o || !cJSON_AddStringToObject(o, "status", status_names[it->status]) ||
	    !cJSON_AddStringToObject(o, "check", it->check) ||
	    !cJSON_AddStringToObject(o, "subject", it->subject) ||
	    !cJSON_AddStringToObject(o, "seen", it->seen) ||
	    !(it->fix[0] ? cJSON_AddStringToObject(o, "fix", it->fix)
			 : cJSON_AddNullToObject(o, "fix"))) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static int build(const struct report *r, const char *command, cJSON *root)
{
	cJSON *checks = cJSON_AddArrayToObject(root, "checks");

	if (!cJSON_AddStringToObject(root, "command", command) || !checks)
		return -ENOMEM;
	for (size_t i = 0; i < r->n; i++) {
		cJSON *it = item_json(&r->items[i]);

		if (!it || !cJSON_AddItemToArray(checks, it)) {
			cJSON_Delete(it);
			return -ENOMEM;
		}
	}
	for (int s = REPORT_OK; s <= REPORT_FAIL; s++) {
		char key[8];

		snprintf(key, sizeof(key), "%s", status_names[s]);
		for (char *k = key; *k; k++)
			*k = (char)(*k - 'A' + 'a');
		if (!cJSON_AddNumberToObject(root, key, r->count[s]))
			return -ENOMEM;
	}
	return r->oom ? -ENOMEM : 0;
}

int report_print_json(const struct report *r, const char *command, FILE *out)
{
	cJSON *root = cJSON_CreateObject();
	char *doc = json_print_free(root, root ? build(r, command, root) : -ENOMEM);

	if (!doc)
		return -errno;
	fprintf(out, "%s\n", doc);
	free(doc);
	return 0;
}

int report_exit_code(const struct report *r)
{
	return r->count[REPORT_FAIL] ? 1 : 0;
}

void report_release(struct report *r)
{
	free(r->items);
	memset(r, 0, sizeof(*r));
}
