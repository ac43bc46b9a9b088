// SPDX-License-Identifier: Apache-2.0
/* `ippool reconcile`: releases this node's leases whose netns is gone (the DELs a runtime never ran). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "json.h"
#include "judge.h"
#include "setup.h"
#include "cmds.h"

#define RECONCILE_USAGE "usage: ippool reconcile [--conf FILE] [--data-dir DIR] [--grace SECONDS] " \
			"[--dry-run] [--json]\n"
#define DEFAULT_GRACE 60

enum action { KEPT, FREED, WOULD_FREE, FAILED };

static const char *const action_names[] = {
	[KEPT] = "kept", [FREED] = "freed", [WOULD_FREE] = "would-free", [FAILED] = "failed",
};

/* One of this node's leases as judged, and what became of it. */
struct item {
	struct pool_key key;
	char network[POOL_NAME_MAX];
	char addrs[POOL_MAX_RANGES][72];	/* "ip/len" */
	int n_addrs;
	char *netns;
	int64_t created;
	enum judge_verdict verdict;
	enum action action;
	bool vanished;			/* released by someone else meanwhile */
	char *error;			/* when FAILED */
};

struct run {
	char node[POOL_NODE_MAX];
	char boot[NSIDENT_BOOT_MAX];
	int64_t now;
	long grace;
	bool dry_run, json;
	bool listed;		/* every lease was read: the run went ahead */
	struct item *v;
	size_t n, cap;
	int freed, failed, slices;
};

/* The item of lease l (again, when it is reread before its release). */
static int judge(const struct run *r, const struct pool_lease *l, struct item *it)
{
	const struct pool_owner *o = &l->owner;

	free(it->netns);
	it->netns = strdup(o->netns);
	if (!it->netns)
		return -ENOMEM;
	it->key = o->key;
	memcpy(it->network, o->cni_network, sizeof(it->network));
	it->n_addrs = l->n_addrs;
	for (int i = 0; i < l->n_addrs; i++) {
		char text[64];

		ipaddr_format_u128(l->addrs[i].family, l->addrs[i].addr, text);
		snprintf(it->addrs[i], sizeof(it->addrs[i]), "%s/%d", text, l->addrs[i].prefix_len);
	}
	it->created = o->created;
	it->verdict = judge_lease(nsident_judge(o->netns, &o->ns, r->boot), o->created, r->now,
				  r->grace);
	return 0;
}

/* list's callback: this node's leases only; another node's are not ours to judge. */
static int collect(const struct pool_lease *l, void *arg)
{
	struct run *r = arg;
	void *q;

	if (!judge_ours(&l->owner, r->node))
		return 0;
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 64;
		q = realloc(r->v, r->cap * sizeof(*r->v));
		if (!q)
			return -ENOMEM;
		r->v = q;
	}
	memset(&r->v[r->n], 0, sizeof(r->v[r->n]));
	r->n++;
	return judge(r, l, &r->v[r->n - 1]);
}

static void fail(struct run *r, struct item *it, const struct cni_err *err)
{
	it->action = FAILED;
	it->error = strdup(err->code ? err->msg : "out of memory");
	r->failed++;
}

/* Releases one gone lease, judged once more from a fresh read: the list
 * may be seconds old, and the lease the key holds now may not be the one
 * judged then. */
static void free_one(struct pool_store *s, struct run *r, struct item *it)
{
	struct pool_lease now;
	struct cni_err err = { 0 };
	int ret;

	if (r->dry_run) {
		it->action = WOULD_FREE;
		return;
	}
	ret = s->ops->lookup(s, &it->key, &now, &err);
	if (ret == -ENOENT) {
		it->vanished = true;
		return;
	}
	if (!ret)
		ret = judge(r, &now, it);
	if (!ret && (it->verdict != JUDGE_GONE || !judge_ours(&now.owner, r->node)))
		return;
	if (!ret)
		ret = s->ops->release(s, &it->key, &err);
	if (ret) {
		fail(r, it, &err);
		return;
	}
	it->action = FREED;
	r->freed++;
}

static void print_item(const struct item *it, int64_t now)
{
	char addrs[POOL_MAX_RANGES * 72] = "";

	for (int i = 0; i < it->n_addrs; i++)
		snprintf(addrs + strlen(addrs), sizeof(addrs) - strlen(addrs), "%s%s", i ? "," : "",
			 it->addrs[i]);
	printf("%-24s %-15s %-16s %-20s %8lld %-7s %-10s %s\n", it->key.containerid, it->key.ifname,
	       it->network[0] ? it->network : "(none)", addrs, (long long)(now - it->created),
	       judge_name(it->verdict), action_names[it->action], it->netns[0] ? it->netns : "(none)");
	if (it->error)
		printf("  error: %s\n", it->error);
}

static void print_table(const struct run *r)
{
	size_t n[FAILED + 1] = { 0 };

	printf("%-24s %-15s %-16s %-20s %8s %-7s %-10s %s\n", "CONTAINER", "IFNAME", "NETWORK",
	       "ADDRESSES", "AGE(S)", "VERDICT", "ACTION", "NETNS");
	for (size_t i = 0; i < r->n; i++) {
		if (r->v[i].vanished)
			continue;
		print_item(&r->v[i], r->now);
		n[r->v[i].action]++;
	}
	if (r->dry_run)
		printf("dry run: %zu would be freed, %zu kept (grace %ld s)\n", n[WOULD_FREE], n[KEPT],
		       r->grace);
	else
		printf("%zu freed, %zu failed, %zu kept (grace %ld s)\n", n[FREED], n[FAILED], n[KEPT],
		       r->grace);
}

static cJSON *item_json(const struct item *it, int64_t now)
{
	cJSON *o = cJSON_CreateObject(), *a;
	bool ok = o && cJSON_AddStringToObject(o, "containerID", it->key.containerid) &&
		  cJSON_AddStringToObject(o, "ifname", it->key.ifname) &&
		  cJSON_AddStringToObject(o, "network", it->network) &&
		  (a = cJSON_AddArrayToObject(o, "addresses"));

	for (int i = 0; ok && i < it->n_addrs; i++)
		ok = cJSON_AddItemToArray(a, cJSON_CreateString(it->addrs[i]));
	ok = ok && cJSON_AddStringToObject(o, "netns", it->netns) &&
	     cJSON_AddNumberToObject(o, "ageSeconds", (double)(now - it->created)) &&
	     cJSON_AddStringToObject(o, "verdict", judge_name(it->verdict)) &&
	     cJSON_AddStringToObject(o, "action", action_names[it->action]) &&
	     (!it->error || cJSON_AddStringToObject(o, "error", it->error));
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* The one JSON object of --json (docs/internals.md (Contracts)). */
static int print_json(const struct run *r)
{
	cJSON *o = cJSON_CreateObject(), *arr;
	char *text;
	bool ok = o && cJSON_AddBoolToObject(o, "dryRun", r->dry_run) &&
		  cJSON_AddNumberToObject(o, "grace", (double)r->grace) &&
		  cJSON_AddNumberToObject(o, "freed", r->freed) &&
		  cJSON_AddNumberToObject(o, "failed", r->failed) &&
		  cJSON_AddNumberToObject(o, "slicesReturned", r->slices) &&
		  (arr = cJSON_AddArrayToObject(o, "leases"));

	for (size_t i = 0; ok && i < r->n; i++)
		ok = r->v[i].vanished || cJSON_AddItemToArray(arr, item_json(&r->v[i], r->now));
	text = json_print_free(o, ok ? 0 : -ENOMEM);
	if (!text)
		return -ENOMEM;
	puts(text);
	free(text);
	return 0;
}

/* tidy's callback: a slice this node gave back (or, dry, would). */
static int returned(const struct pool_slice *sl, void *arg)
{
	struct run *r = arg;
	char first[64], last[64];

	r->slices += !r->dry_run;
	if (r->json)
		return 0;
	ipaddr_format_u128(sl->family, sl->span.first, first);
	ipaddr_format_u128(sl->family, sl->span.last, last);
	printf("slice %s..%s of %s %s: %s\n", first, last, sl->network, sl->pool,
	       r->dry_run ? "would be returned" : "returned");
	return 0;
}

/* --grace: whole seconds, 0 allowed. */
static bool parse_grace(const char *s, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > INT_MAX)
		return false;
	*out = v;
	return true;
}

/* What a run needs before the store is touched: this node's name, the boot. */
static int run_init(struct run *r, struct cni_err *err)
{
	int ret;

	ret = gethostname(r->node, sizeof(r->node) - 1) < 0 ? -errno : 0;
	if (ret) {
		cni_err_set(err, CNI_ERR_IO, "cannot read the hostname: %s", strerror(-ret));
		return ret;
	}
	ret = nsident_boot(r->boot);
	if (ret)
		cni_err_set(err, CNI_ERR_IO, "cannot read the boot id: %s", strerror(-ret));
	r->now = (int64_t)time(NULL);
	return ret;
}

/* Judges every lease of this node, then frees the gone ones: nothing is
 * released unless the whole list was read. */
static int reconcile(struct pool_store *s, struct run *r, struct cni_err *err)
{
	int ret = 0;

	if (s->ops->heartbeat && !r->dry_run)
		ret = s->ops->heartbeat(s, err);
	if (!ret)
		ret = s->ops->list(s, NULL, collect, r, err);
	if (ret)
		return ret;
	r->listed = true;
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].verdict == JUDGE_GONE)
			free_one(s, r, &r->v[i]);
	if (!r->json)
		print_table(r);
	if (s->ops->tidy)
		ret = s->ops->tidy(s, r->dry_run, returned, r, err);
	return ret;
}

int tool_reconcile(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "conf", required_argument, NULL, 'c' },
		{ "data-dir", required_argument, NULL, 'd' },
		{ "grace", required_argument, NULL, 'g' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ 0 },
	};
	const char *conf_path = NULL, *data_dir = NULL;
	struct run r = { .grace = DEFAULT_GRACE };
	struct pool_conf *c = calloc(1, sizeof(*c));
	struct pool_store *s = NULL;
	struct cni_err err = { 0 };
	int opt, ret = 2;

	if (!c)
		return 1;
	while ((opt = getopt_long(argc, argv, "c:d:g:nj", opts, NULL)) != -1) {
		if (opt == 'c')
			conf_path = optarg;
		else if (opt == 'd')
			data_dir = optarg;
		else if (opt == 'g' && parse_grace(optarg, &r.grace))
			continue;
		else if (opt == 'n')
			r.dry_run = true;
		else if (opt == 'j')
			r.json = true;
		else
			goto usage;
	}
	if (optind != argc)
		goto usage;
	ret = run_init(&r, &err) || setup_tool_store(conf_path, data_dir, c, &s, &err) ||
	      reconcile(s, &r, &err);
	/* a run that could not read every lease did nothing and prints nothing */
	if (r.json && r.listed && print_json(&r)) {
		cni_err_set(&err, CNI_ERR_IO, "out of memory printing the result");
		ret = 1;
	}
	if (ret)
		setup_tool_error("reconcile", &err);
	ret = ret || r.failed ? 1 : 0;
	goto out;
usage:
	fprintf(stderr, RECONCILE_USAGE);
out:
	for (size_t i = 0; i < r.n; i++) {
		free(r.v[i].netns);
		free(r.v[i].error);
	}
	free(r.v);
	pool_store_close(s);
	poolconf_release(c);
	free(c);
	return ret;
}
