// SPDX-License-Identifier: Apache-2.0
/* The agent's folded counters and their JSON form, without I/O. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "totals.h"

const double totals_bounds[TOTALS_BOUNDS] = {
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
};

static struct totals_call *find(struct totals *t, const struct callrec *r, const char *network)
{
	for (int i = 0; i < t->n_calls; i++) {
		struct totals_call *c = &t->calls[i];

		if (c->plugin == r->plugin && c->verb == r->verb && c->code == r->code &&
		    !strcmp(c->network, network))
			return c;
	}
	return NULL;
}

static struct totals_call *add(struct totals *t, const struct callrec *r, const char *network)
{
	struct totals_call *c = &t->calls[t->n_calls++];

	*c = (struct totals_call){ .plugin = r->plugin, .verb = r->verb, .code = r->code };
	snprintf(c->network, sizeof(c->network), "%s", network);
	return c;
}

/* The series of r: its own, else "_other" once the named ones are full. */
static struct totals_call *series(struct totals *t, const struct callrec *r)
{
	struct totals_call *c = find(t, r, r->network);

	if (c)
		return c;
	if (t->n_calls < TOTALS_MAX_CALLS - TOTALS_OTHER_SLOTS)
		return add(t, r, r->network);
	c = find(t, r, TOTALS_OTHER);
	if (!c && t->n_calls < TOTALS_MAX_CALLS)
		c = add(t, r, TOTALS_OTHER);
	return c;
}

static int bucket_of(uint32_t us)
{
	int i = 0;

	while (i < TOTALS_BOUNDS && us > totals_bounds[i] * 1e6)
		i++;
	return i;
}

void totals_fold(struct totals *t, const struct callrec *r)
{
	struct callrec k = *r;
	struct totals_call *c;
	struct totals_hist *h;

	if (r->plugin != CALLREC_SRIOV_RDMA && r->plugin != CALLREC_IPPOOL) {
		t->damaged++;
		return;
	}
	if (k.verb > CNI_CMD_COUNT)
		k.verb = CNI_CMD_COUNT;
	c = series(t, &k);
	if (c)
		c->count++;
	else
		t->overflow++;
	h = &t->hist[r->plugin == CALLREC_IPPOOL][k.verb];
	h->bucket[bucket_of(r->duration_us)]++;
	h->count++;
	h->sum_us += r->duration_us;
}

uint64_t totals_offset(const struct totals *t, uint64_t ino)
{
	for (int i = 0; i < t->n_files; i++)
		if (t->files[i].ino == ino)
			return t->files[i].offset;
	return 0;
}

/* Inodes as strings: a 64-bit one does not fit a JSON number's double. */
static cJSON *pos_json(const struct totals_pos *p)
{
	char ino[24];
	cJSON *a = cJSON_CreateArray();

	snprintf(ino, sizeof(ino), "%" PRIu64, p->ino);
	cJSON_AddItemToArray(a, cJSON_CreateString(ino));
	cJSON_AddItemToArray(a, cJSON_CreateNumber((double)p->offset));
	return a;
}

static cJSON *u64s(const uint64_t *v, int n)
{
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; a && i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[i]));
	return a;
}

static const struct {
	const char *key;
	size_t off;
} scalars[] = {
	{ "runs", offsetof(struct totals, runs) },
	{ "undone", offsetof(struct totals, undone) },
	{ "freed", offsetof(struct totals, freed) },
	{ "sriovRdmaErrors", offsetof(struct totals, errors[TOTALS_SRIOV_RDMA]) },
	{ "ippoolErrors", offsetof(struct totals, errors[TOTALS_IPPOOL]) },
	{ "droppedFull", offsetof(struct totals, dropped_full) },
	{ "damaged", offsetof(struct totals, damaged) },
	{ "overflow", offsetof(struct totals, overflow) },
};

#define SCALAR(t, i) ((uint64_t *)((char *)(t) + scalars[i].off))

char *totals_encode(const struct totals *t)
{
	cJSON *root = cJSON_CreateObject(), *calls, *hist, *files, *item;

	cJSON_AddNumberToObject(root, "version", 1);
	for (size_t i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++)
		cJSON_AddNumberToObject(root, scalars[i].key, (double)*SCALAR(t, i));
	calls = cJSON_AddArrayToObject(root, "calls");
	for (int i = 0; calls && i < t->n_calls; i++) {
		const struct totals_call *c = &t->calls[i];
		uint64_t n[] = { c->plugin, c->verb, c->code, c->count };

		item = u64s(n, 4);
		cJSON_AddItemToArray(item, cJSON_CreateString(c->network));
		cJSON_AddItemToArray(calls, item);
	}
	hist = cJSON_AddArrayToObject(root, "hist");
	for (int p = 0; hist && p < TOTALS_PLUGINS; p++) {
		for (int v = 0; v < TOTALS_VERBS; v++) {
			const struct totals_hist *h = &t->hist[p][v];
			uint64_t n[] = { (uint64_t)p, (uint64_t)v, h->count, h->sum_us };

			if (!h->count)
				continue;
			item = u64s(n, 4);
			cJSON_AddItemToArray(item, u64s(h->bucket, TOTALS_BOUNDS + 1));
			cJSON_AddItemToArray(hist, item);
		}
	}
	files = cJSON_AddArrayToObject(root, "files");
	for (int i = 0; files && i < t->n_files; i++)
		cJSON_AddItemToArray(files, pos_json(&t->files[i]));
	cJSON_AddItemToObject(root, "dropped", pos_json(&t->dropped));
	/* cJSON's adders fail only for want of memory: then the print does */
	return json_print_free(root, root ? 0 : -ENOMEM);
}

static bool get_u64(const cJSON *v, uint64_t max, uint64_t *out)
{
	int64_t n;

	if (!json_int64(v, &n) || n < 0 || (uint64_t)n > max)
		return false;
	*out = (uint64_t)n;
	return true;
}

/* A JSON array of exactly n numbers into out. */
static bool get_u64s(const cJSON *a, int n, uint64_t *out)
{
	const cJSON *v;
	int i = 0;

	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n)
		return false;
	cJSON_ArrayForEach(v, a)
		if (!get_u64(v, INT64_MAX, &out[i++]))
			return false;
	return true;
}

static bool get_pos(const cJSON *a, struct totals_pos *p)
{
	const cJSON *ino = cJSON_GetArrayItem(a, 0);
	char *end;

	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 2 || !cJSON_IsString(ino) ||
	    !get_u64(cJSON_GetArrayItem(a, 1), INT64_MAX, &p->offset))
		return false;
	errno = 0;
	p->ino = strtoull(ino->valuestring, &end, 10);
	return !errno && end != ino->valuestring && !*end && ino->valuestring[0] != '-';
}

static bool get_call(const cJSON *a, struct totals_call *c)
{
	static const uint64_t max[4] = { UINT8_MAX, UINT8_MAX, UINT16_MAX, INT64_MAX };
	const cJSON *net = cJSON_GetArrayItem(a, 4);
	uint64_t n[4];

	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 5 || !cJSON_IsString(net) ||
	    strlen(net->valuestring) > CALLREC_NETWORK_MAX)
		return false;
	for (int i = 0; i < 4; i++)
		if (!get_u64(cJSON_GetArrayItem(a, i), max[i], &n[i]))
			return false;
	if ((n[0] != CALLREC_SRIOV_RDMA && n[0] != CALLREC_IPPOOL) || n[1] > CNI_CMD_COUNT)
		return false;
	*c = (struct totals_call){ .plugin = (uint8_t)n[0], .verb = (uint8_t)n[1],
				   .code = (uint16_t)n[2], .count = n[3] };
	strcpy(c->network, net->valuestring);
	return true;
}

static bool get_hist(const cJSON *a, struct totals *t)
{
	struct totals_hist *h;
	uint64_t n[4];

	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 5)
		return false;
	for (int i = 0; i < 4; i++)
		if (!get_u64(cJSON_GetArrayItem(a, i), INT64_MAX, &n[i]))
			return false;
	if (n[0] >= TOTALS_PLUGINS || n[1] >= TOTALS_VERBS)
		return false;
	h = &t->hist[n[0]][n[1]];
	h->count = n[2];
	h->sum_us = n[3];
	return get_u64s(cJSON_GetArrayItem(a, 4), TOTALS_BOUNDS + 1, h->bucket);
}

static bool decode(const cJSON *root, struct totals *t)
{
	const cJSON *v, *calls = cJSON_GetObjectItemCaseSensitive(root, "calls");
	const cJSON *hist = cJSON_GetObjectItemCaseSensitive(root, "hist");
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(root, "files");
	uint64_t version;

	if (!get_u64(cJSON_GetObjectItemCaseSensitive(root, "version"), 1, &version) || version != 1 ||
	    !cJSON_IsArray(calls) || cJSON_GetArraySize(calls) > TOTALS_MAX_CALLS ||
	    !cJSON_IsArray(hist) || !cJSON_IsArray(files) ||
	    cJSON_GetArraySize(files) > TOTALS_FILES ||
	    !get_pos(cJSON_GetObjectItemCaseSensitive(root, "dropped"), &t->dropped))
		return false;
	for (size_t i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++)
		if (!get_u64(cJSON_GetObjectItemCaseSensitive(root, scalars[i].key), INT64_MAX,
			     SCALAR(t, i)))
			return false;
	cJSON_ArrayForEach(v, calls)
		if (!get_call(v, &t->calls[t->n_calls++]))
			return false;
	cJSON_ArrayForEach(v, hist)
		if (!get_hist(v, t))
			return false;
	cJSON_ArrayForEach(v, files)
		if (!get_pos(v, &t->files[t->n_files++]))
			return false;
	return true;
}

int totals_decode(const char *text, struct totals *t)
{
	cJSON *root = cJSON_Parse(text);
	int ret = -EBADMSG;

	memset(t, 0, sizeof(*t));
	if (root && decode(root, t))
		ret = 0;
	else
		memset(t, 0, sizeof(*t));
	cJSON_Delete(root);
	return ret;
}
