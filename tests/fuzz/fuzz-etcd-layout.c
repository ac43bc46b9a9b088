// SPDX-License-Identifier: Apache-2.0
/* Fuzz target: the etcd store's values as a tenant or a broken writer may
 * have left them (leases, pool infos, address holders and holds). A lease or
 * pool info the parser takes holds only what the layout allows, and writing
 * it out again reads back the same. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "fuzz.h"
#include "etcd_layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PREFIX "/seed"

static void same_addr(const struct pool_addr *a, const struct pool_addr *b)
{
	if (strcmp(a->network, b->network) || strcmp(a->pool, b->pool) || a->family != b->family ||
	    a->prefix_len != b->prefix_len || a->addr != b->addr)
		abort();
}

static void lease(const char *value)
{
	char keys[POOL_MAX_RANGES][LAYOUT_KEY_MAX], keys2[POOL_MAX_RANGES][LAYOUT_KEY_MAX];
	char node[LAYOUT_NODE_MAX], node2[LAYOUT_NODE_MAX];
	struct pool_lease l, back;
	const struct pool_owner *o = &l.owner, *b = &back.owner;
	char *again;

	if (layout_parse_lease(PREFIX, value, &l, keys, node)) {
		if (l.n_addrs || l.owner.key.containerid[0] || node[0] || l.owner.netns[0] ||
		    l.owner.node[0])
			abort();
		return;
	}
	if (l.n_addrs < 1 || l.n_addrs > POOL_MAX_RANGES || !pool_owner_netns_valid(o) ||
	    strcmp(o->node, node))
		abort();
	for (int i = 0; i < l.n_addrs; i++)
		if ((l.addrs[i].family != AF_INET && l.addrs[i].family != AF_INET6) ||
		    l.addrs[i].prefix_len < 0 ||
		    l.addrs[i].prefix_len > (l.addrs[i].family == AF_INET ? 32 : 128) ||
		    strncmp(keys[i], PREFIX "/n/", strlen(PREFIX "/n/")))
			abort();
	again = layout_lease_value(&l, keys, node);
	if (!again)
		return;
	if (layout_parse_lease(PREFIX, again, &back, keys2, node2) || back.n_addrs != l.n_addrs ||
	    strcmp(node, node2) || strcmp(o->cni_network, b->cni_network) ||
	    strcmp(o->key.containerid, b->key.containerid) || strcmp(o->key.ifname, b->key.ifname) ||
	    strcmp(o->pod_namespace, b->pod_namespace) || strcmp(o->pod_name, b->pod_name) ||
	    strcmp(o->pod_uid, b->pod_uid) || o->created != b->created ||
	    strcmp(o->netns, b->netns) || o->ns.dev != b->ns.dev || o->ns.ino != b->ns.ino ||
	    strcmp(o->ns.boot, b->ns.boot))
		abort();
	for (int i = 0; i < l.n_addrs; i++) {
		same_addr(&l.addrs[i], &back.addrs[i]);
		if (strcmp(keys[i], keys2[i]))
			abort();
	}
	free(again);
}

static void info(const char *value)
{
	struct pool_info pi, back;
	ipaddr_u128 cursor, cursor2;
	char *again;

	if (layout_parse_info(value, &pi, &cursor)) {
		if (pi.family || cursor)
			abort();
		return;
	}
	if (pi.span.first > pi.span.last || cursor < pi.span.first ||
	    (cursor > pi.span.last && cursor - pi.span.last != 1))
		abort();
	again = layout_info_value(&pi, cursor);
	if (!again)
		return;
	if (layout_parse_info(again, &back, &cursor2) || cursor2 != cursor ||
	    strcmp(pi.network, back.network) || strcmp(pi.pool, back.pool) ||
	    pi.family != back.family || pi.shared != back.shared ||
	    pi.span.first != back.span.first || pi.span.last != back.span.last ||
	    pi.usable != back.usable)
		abort();
	free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct pool_key k = { "c1", "net1" };
	char *value = fuzz_text(data, size);

	if (!value)
		return 0;
	lease(value);
	info(value);
	/* A value held by someone has a holder; one on hold blocks only until then. */
	if (layout_value_held_by(value, &k) && !layout_value_has_holder(value))
		abort();
	layout_value_blocks(value, 0);
	free(value);
	return 0;
}
