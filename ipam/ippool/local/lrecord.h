/* SPDX-License-Identifier: Apache-2.0 */
/* The local store's text records (lease, hold, pool, state files): written and read back strictly. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "store.h"

/* "<network>:v4", "<network>:v6" or "<network>:<pool>". */
#define LREC_SCOPE_MAX (POOL_NAME_MAX + POOL_ID_MAX + 8)

/* A lease as stored: leases/<containerID>:<ifname>, the public lease plus
 * what names each address's scope. */
struct lrec_lease {
	struct pool_lease l;
	bool shared[POOL_MAX_RANGES];
};

/* A released address on hold: holds/<scope>@<hex address>. */
struct lrec_hold {
	char scope[LREC_SCOPE_MAX];
	int family;
	ipaddr_u128 addr;
	int64_t until;		/* unix seconds */
};

/* Each format returns the length written, or -ENOSPC when size is short.
 * Each parse takes what the format writes (buf[0..len), no NUL needed; a
 * hold or pool file exactly so, byte for byte) and returns 0, or -EBADMSG
 * for anything else: a cut, a byte more, a field too long for its buffer, a
 * number out of range. */
/* A lease's netns lines ("netns <path>", then "netns_dev <n>", "netns_ino
 * <n>", "boot_id <id>" when the identity was read) are written only when
 * recorded; its format is -EINVAL when pool_owner_netns_valid refuses them. */
int lrec_lease_format(const struct lrec_lease *s, char *buf, size_t size);
/* Also -EBADMSG: an attachment or CNI network the id rules of
 * docs/internals.md (Contracts) do not allow, no address or more than POOL_MAX_RANGES, a prefix length its family does not
 * have, netns lines pool_owner_netns_valid refuses (the identity without
 * the path, a part of it missing), a line twice or missing (containerid,
 * ifname, created; cni_network and the netns lines may be absent, as older
 * versions wrote leases). */
int lrec_lease_parse(const char *buf, size_t len, struct lrec_lease *s);

int lrec_hold_format(const struct lrec_hold *h, char *buf, size_t size);
int lrec_hold_parse(const char *buf, size_t len, struct lrec_hold *h);

/* pools/<network>:<pool>: the last configuration of a pool, for list. */
int lrec_pool_format(const struct pool_info *pi, char *buf, size_t size);
int lrec_pool_parse(const char *buf, size_t len, struct pool_info *pi);

/* state: "<boot id> clean|dirty". Clean only when it is exactly the clean
 * line of this boot: anything else makes the next op rebuild the indexes. */
int lrec_state_format(const char *boot_id, bool clean, char *buf, size_t size);
bool lrec_state_clean(const char *buf, size_t len, const char *boot_id);
