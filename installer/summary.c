// SPDX-License-Identifier: Apache-2.0
/* The reconcile summaries and pool counts the agent's children print, read strictly. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "summary.h"

/* key of obj into out: absent is "", anything but a string that fits refuses. */
static bool opt_str(const cJSON *obj, const char *key, char *out, size_t size)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	out[0] = '\0';
	if (!v)
		return true;
	if (!cJSON_IsString(v) || strlen(v->valuestring) >= size)
		return false;
	strcpy(out, v->valuestring);
	return true;
}

/* ippool's addresses, "a, b" */
static bool addresses(const cJSON *obj, char *out, size_t size)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, "addresses"), *v;
	size_t len = 0;

	out[0] = '\0';
	if (!a)
		return true;
	if (!cJSON_IsArray(a))
		return false;
	cJSON_ArrayForEach(v, a) {
		if (!cJSON_IsString(v))
			return false;
		len += (size_t)snprintf(out + len, size - len, "%s%s", len ? ", " : "", v->valuestring);
		if (len >= size)
			return false;
	}
	return true;
}

static bool item(const cJSON *obj, enum summary_kind kind, struct summary_item *it)
{
	return cJSON_IsObject(obj) &&
	       opt_str(obj, "containerID", it->containerid, sizeof(it->containerid)) &&
	       opt_str(obj, "ifname", it->ifname, sizeof(it->ifname)) &&
	       opt_str(obj, "network", it->network, sizeof(it->network)) &&
	       opt_str(obj, "netns", it->netns, sizeof(it->netns)) &&
	       opt_str(obj, "verdict", it->verdict, sizeof(it->verdict)) &&
	       opt_str(obj, "action", it->action, sizeof(it->action)) &&
	       opt_str(obj, "error", it->error, sizeof(it->error)) &&
	       (kind == SUMMARY_SRIOV_RDMA ? opt_str(obj, "deviceID", it->what, sizeof(it->what)) :
		addresses(obj, it->what, sizeof(it->what)));
}

static bool count(const cJSON *root, const char *key, long *out)
{
	int64_t v;

	if (!json_int64(cJSON_GetObjectItemCaseSensitive(root, key), &v) || v < 0 || v > INT32_MAX)
		return false;
	*out = (long)v;
	return true;
}

static bool reconcile(const cJSON *root, enum summary_kind kind, struct summary *s)
{
	static const char *const keys[][2] = {
		[SUMMARY_SRIOV_RDMA] = { "undone", "attachments" },
		[SUMMARY_IPPOOL] = { "freed", "leases" },
	};
	const cJSON *dry = cJSON_GetObjectItemCaseSensitive(root, "dryRun");
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, keys[kind][1]), *v;

	if (!cJSON_IsObject(root) || !cJSON_IsBool(dry) || !count(root, keys[kind][0], &s->done) ||
	    !count(root, "failed", &s->failed) || !cJSON_IsArray(list))
		return false;
	s->dry_run = cJSON_IsTrue(dry);
	s->items = calloc(SUMMARY_MAX_ITEMS, sizeof(*s->items));
	if (!s->items)
		return false;
	cJSON_ArrayForEach(v, list) {
		if (s->n_items == SUMMARY_MAX_ITEMS)
			break;		/* the counts say the rest */
		if (!item(v, kind, &s->items[s->n_items++]))
			return false;
	}
	return true;
}

int summary_reconcile(const char *text, enum summary_kind kind, struct summary *out)
{
	cJSON *root = cJSON_Parse(text);
	int ret = -EBADMSG;

	memset(out, 0, sizeof(*out));
	if (root && reconcile(root, kind, out))
		ret = 0;
	else
		summary_release(out);
	cJSON_Delete(root);
	return ret;
}

void summary_release(struct summary *s)
{
	free(s->items);
	memset(s, 0, sizeof(*s));
}

static bool number(const cJSON *obj, const char *key, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0)
		return false;
	*out = v->valuedouble;
	return true;
}

static bool pool(const cJSON *obj, struct metrics_pool *p)
{
	return cJSON_IsObject(obj) && opt_str(obj, "network", p->network, sizeof(p->network)) &&
	       opt_str(obj, "pool", p->pool, sizeof(p->pool)) && p->pool[0] &&
	       number(obj, "used", &p->used) && number(obj, "free", &p->free) &&
	       number(obj, "slices", &p->slices);
}

int summary_pools(const char *text, struct metrics_pool **pools, int *n)
{
	cJSON *root = cJSON_Parse(text);
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "pools"), *v;
	struct metrics_pool *p = NULL;
	int ret = -EBADMSG, i = 0;

	*pools = NULL;
	*n = 0;
	if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) > SUMMARY_MAX_POOLS)
		goto out;
	p = calloc((size_t)cJSON_GetArraySize(list) + 1, sizeof(*p));
	if (!p) {
		ret = -ENOMEM;
		goto out;
	}
	cJSON_ArrayForEach(v, list)
		if (!pool(v, &p[i++]))
			goto out;
	*pools = p;
	*n = i;
	p = NULL;
	ret = 0;
out:
	free(p);
	cJSON_Delete(root);
	return ret;
}
