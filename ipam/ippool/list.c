// SPDX-License-Identifier: Apache-2.0
/* `ippool list [--conf FILE] [--data-dir DIR] [--json]`: each pool with its free count and its
 * reservations; with --json its counts only, and the node slices this node holds (the agent's metrics). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "json.h"
#include "poolconf.h"
#include "setup.h"
#include "cmds.h"

struct pools {
	struct pool_info *v;
	size_t n, cap;
};

/* One pass over the leases for one pool: count, or print. */
struct pass {
	const struct pool_info *pi;
	ipaddr_u128 used;
	bool print;
};

static int add_pool(const struct pool_info *pi, void *arg)
{
	struct pools *p = arg;
	void *q;

	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 16;
		q = realloc(p->v, p->cap * sizeof(*p->v));
		if (!q)
			return -ENOMEM;
		p->v = q;
	}
	p->v[p->n++] = *pi;
	return 0;
}

static void print_addr(const struct pool_lease *l, const struct pool_addr *a)
{
	char text[64], when[32];
	time_t t = (time_t)l->owner.created;
	struct tm tm;

	ipaddr_format_u128(a->family, a->addr, text);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	/* Then GC's scope and reconcile's evidence, the netns: "(none)" on a
	 * lease of an older ippool, and on one whose netns could not be
	 * identified at ADD; reconcile never frees those. */
	printf("  %-39s %s %s %s/%s %s %s %s %s\n", text, l->owner.key.containerid, l->owner.key.ifname,
	       l->owner.pod_namespace[0] ? l->owner.pod_namespace : "-",
	       l->owner.pod_name[0] ? l->owner.pod_name : "-",
	       l->owner.pod_uid[0] ? l->owner.pod_uid : "-", when,
	       l->owner.cni_network[0] ? l->owner.cni_network : "(none)",
	       l->owner.ns.ino ? l->owner.netns : "(none)");
}

static int visit(const struct pool_lease *l, void *arg)
{
	struct pass *p = arg;

	for (int i = 0; i < l->n_addrs; i++) {
		const struct pool_addr *a = &l->addrs[i];

		if (strcmp(a->network, p->pi->network) || strcmp(a->pool, p->pi->pool))
			continue;
		p->used++;
		if (p->print)
			print_addr(l, a);
	}
	return 0;
}

static int print_pool(struct pool_store *s, const struct pool_info *pi, struct cni_err *err)
{
	char first[64], last[64], usable[48], used[48], freec[48];
	struct pass p = { .pi = pi };
	int ret = s->ops->list(s, NULL, visit, &p, err);

	if (ret)
		return ret;
	ipaddr_format_u128(pi->family, pi->span.first, first);
	ipaddr_format_u128(pi->family, pi->span.last, last);
	range_u128_format(pi->usable, usable, sizeof(usable));
	range_u128_format(p.used, used, sizeof(used));
	range_u128_format(pi->usable > p.used ? pi->usable - p.used : 0, freec, sizeof(freec));
	printf("network %s pool %s (%s..%s): %s reserved, %s free of %s\n",
	       strcmp(pi->network, POOLCONF_DEFAULT_NETWORK) ? pi->network : "(default)", pi->pool,
	       first, last, used, freec, usable);
	p.print = true;
	return s->ops->list(s, NULL, visit, &p, err);
}

/* This node's slices of one pool. */
struct slice_count {
	const struct pool_info *pi;
	char node[POOL_NODE_MAX];
	long n;
};

static int count_slice(const struct pool_slice *sl, void *arg)
{
	struct slice_count *c = arg;

	c->n += !strcmp(sl->node, c->node) && !strcmp(sl->network, c->pi->network) &&
		!strcmp(sl->pool, c->pi->pool);
	return 0;
}

/* {"network","pool","usable","used","free","slices"}: counts as JSON numbers
 * (a /64's are past 2^53: a gauge needs no more than a double holds). */
static cJSON *pool_json(struct pool_store *s, const struct pool_info *pi, struct cni_err *err)
{
	struct slice_count sc = { .pi = pi };
	struct pass p = { .pi = pi };
	cJSON *o = cJSON_CreateObject();

	if (!o || s->ops->list(s, NULL, visit, &p, err) ||
	    (s->ops->slices && (gethostname(sc.node, sizeof(sc.node) - 1) ||
				s->ops->slices(s, count_slice, &sc, err)))) {
		cJSON_Delete(o);
		return NULL;
	}
	/* "" for whereabouts' default network_name, as the table's "(default)" */
	if (!cJSON_AddStringToObject(o, "network", strcmp(pi->network, POOLCONF_DEFAULT_NETWORK) ?
				     pi->network : "") ||
	    !cJSON_AddStringToObject(o, "pool", pi->pool) ||
	    !cJSON_AddNumberToObject(o, "usable", (double)pi->usable) ||
	    !cJSON_AddNumberToObject(o, "used", (double)p.used) ||
	    !cJSON_AddNumberToObject(o, "free", (double)(pi->usable > p.used ? pi->usable - p.used : 0)) ||
	    !cJSON_AddNumberToObject(o, "slices", (double)sc.n)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static int print_json(struct pool_store *s, const struct pools *pools, struct cni_err *err)
{
	cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "pools"), *o;
	char *text;

	for (size_t i = 0; arr && i < pools->n; i++) {
		o = pool_json(s, &pools->v[i], err);
		if (!o) {
			cJSON_Delete(root);
			return -EIO;
		}
		cJSON_AddItemToArray(arr, o);
	}
	text = json_print_free(root, arr ? 0 : -ENOMEM);
	if (!text)
		return -ENOMEM;
	printf("%s\n", text);
	free(text);
	return 0;
}


/* "slice 192.0.2.0/26 network (default) v4 node gpu-017". */
static int print_slice(const struct pool_slice *sl, void *arg)
{
	char first[64];
	ipaddr_u128 size = sl->span.last - sl->span.first;
	int len = sl->family == AF_INET ? 32 : 128;

	(void)arg;
	for (; size; size >>= 1)
		len--;
	ipaddr_format_u128(sl->family, sl->span.first, first);
	printf("slice %s/%d network %s v%d node %s\n", first, len,
	       strcmp(sl->network, POOLCONF_DEFAULT_NETWORK) ? sl->network : "(default)",
	       sl->family == AF_INET ? 4 : 6, sl->node);
	return 0;
}

#define LIST_USAGE "usage: ippool list [--conf FILE] [--data-dir DIR] [--json]\n"

int tool_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "data-dir", required_argument, NULL, 'd' },
		{ "conf", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ 0 },
	};
	const char *conf_path = NULL, *data_dir = NULL;
	struct pool_conf *c = calloc(1, sizeof(*c));
	struct pool_store *s = NULL;
	struct pools pools = { 0 };
	struct cni_err err = { 0 };
	bool json = false;
	int opt, ret = 2;

	if (!c)
		return 1;
	while ((opt = getopt_long(argc, argv, "d:c:", opts, NULL)) != -1) {
		if (opt == 'd')
			data_dir = optarg;
		else if (opt == 'c')
			conf_path = optarg;
		else if (opt == 'j')
			json = true;
		else
			goto usage;
	}
	ret = 1;
	if (setup_tool_store(conf_path, data_dir, c, &s, &err) ||
	    s->ops->list(s, add_pool, NULL, &pools, &err))
		goto fail;
	if (json && print_json(s, &pools, &err))
		goto fail;
	for (size_t i = 0; !json && i < pools.n; i++)
		if (print_pool(s, &pools.v[i], &err))
			goto fail;
	/* every node's slices, from the store; the addresses above are this
	 * node's (the ones in slices are held only on their node) */
	if (!json && s->ops->slices && s->ops->slices(s, print_slice, NULL, &err))
		goto fail;
	ret = 0;
	goto out;
usage:
	fprintf(stderr, LIST_USAGE);
	goto out;
fail:
	setup_tool_error("list", &err);
out:
	pool_store_close(s);
	free(pools.v);
	poolconf_release(c);
	free(c);
	return ret;
}
