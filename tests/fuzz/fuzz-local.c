// SPDX-License-Identifier: Apache-2.0
/* Fuzz target: the local store's record files (lease, hold, pool, state) as
 * a crash, a full disk or a person may leave them. A record the parser takes
 * holds only what the format allows (a lease's netns lines too) and is
 * written back byte for byte. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "env.h"
#include "lrecord.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What the writer makes of a record must be the very bytes it was read from. */
static void same_bytes(const char *buf, size_t size, const char *again, int n)
{
	if (n < 0 || (size_t)n != size || memcmp(buf, again, size))
		abort();
}

static void lease(const char *buf, size_t size)
{
	struct lrec_lease s, back;
	char again[16384];
	int n;

	if (lrec_lease_parse(buf, size, &s)) {
		if (s.l.n_addrs || s.l.owner.key.containerid[0])
			abort();
		return;
	}
	if (s.l.n_addrs < 1 || s.l.n_addrs > POOL_MAX_RANGES ||
	    !env_valid_id(s.l.owner.key.containerid) || !env_valid_ifname(s.l.owner.key.ifname) ||
	    !pool_owner_netns_valid(&s.l.owner))
		abort();
	for (int i = 0; i < s.l.n_addrs; i++)
		if (s.l.addrs[i].prefix_len < 0 ||
		    s.l.addrs[i].prefix_len > (s.l.addrs[i].family == AF_INET ? 32 : 128))
			abort();
	/* Lines may come in any order and pod lines may be absent: compare
	 * what the writer makes of it, read back, with what was read. */
	n = lrec_lease_format(&s, again, sizeof(again));

	if (n < 0 || lrec_lease_parse(again, (size_t)n, &back) ||
	    strcmp(back.l.owner.key.containerid, s.l.owner.key.containerid) ||
	    strcmp(back.l.owner.key.ifname, s.l.owner.key.ifname) ||
	    strcmp(back.l.owner.pod_namespace, s.l.owner.pod_namespace) ||
	    strcmp(back.l.owner.pod_name, s.l.owner.pod_name) ||
	    strcmp(back.l.owner.pod_uid, s.l.owner.pod_uid) ||
	    back.l.owner.created != s.l.owner.created || back.l.n_addrs != s.l.n_addrs ||
	    strcmp(back.l.owner.netns, s.l.owner.netns) || back.l.owner.ns.dev != s.l.owner.ns.dev ||
	    back.l.owner.ns.ino != s.l.owner.ns.ino || strcmp(back.l.owner.ns.boot, s.l.owner.ns.boot))
		abort();
	for (int i = 0; i < s.l.n_addrs; i++)
		if (strcmp(back.l.addrs[i].network, s.l.addrs[i].network) ||
		    strcmp(back.l.addrs[i].pool, s.l.addrs[i].pool) ||
		    back.l.addrs[i].family != s.l.addrs[i].family ||
		    back.l.addrs[i].prefix_len != s.l.addrs[i].prefix_len ||
		    back.l.addrs[i].addr != s.l.addrs[i].addr || back.shared[i] != s.shared[i])
			abort();
}

static void hold(const char *buf, size_t size)
{
	struct lrec_hold h;
	char again[1024];

	if (lrec_hold_parse(buf, size, &h)) {
		if (h.scope[0] || h.family)
			abort();
		return;
	}
	same_bytes(buf, size, again, lrec_hold_format(&h, again, sizeof(again)));
}

static void pool(const char *buf, size_t size)
{
	struct pool_info pi;
	char again[1024];

	if (lrec_pool_parse(buf, size, &pi)) {
		if (pi.network[0] || pi.family)
			abort();
		return;
	}
	if (pi.span.first > pi.span.last)
		abort();
	same_bytes(buf, size, again, lrec_pool_format(&pi, again, sizeof(again)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly size bytes, no NUL after: a read past it is the sanitizer's */
	char *buf = malloc(size ? size : 1), again[128];
	int n;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	lease(buf, size);
	hold(buf, size);
	pool(buf, size);
	n = lrec_state_format("6c1d0e2f-0000-4000-8000-000000000001", true, again, sizeof(again));
	if (lrec_state_clean(buf, size, "6c1d0e2f-0000-4000-8000-000000000001") !=
	    (n > 0 && (size_t)n == size && !memcmp(buf, again, size)))
		abort();
	free(buf);
	return 0;
}
