/* SPDX-License-Identifier: Apache-2.0 */
/* RoCE GID table entries as sysfs shows them (ports/N/gids/M,
 * gid_attrs/types/M, gid_attrs/ndevs/M), and the GID an IP address maps to. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>
#include "ipaddr.h"

enum gid_type { GID_NONE = 0, GID_ROCE_V1 = 1, GID_ROCE_V2 = 2 };

struct gid_entry {
	int index;
	uint8_t gid[16];
	enum gid_type type;	/* GID_NONE: an empty slot (its attributes do not read) */
	char ndev[IFNAMSIZ];	/* the netdev the GID belongs to, "" when none */
};

/* "fe80:0000:0000:0000:0202:c9ff:fe00:0001" (the kernel's %pI6: eight groups
 * of four hex digits), one optional trailing newline. -EINVAL otherwise. */
int gid_parse(const char *text, uint8_t out[16]);
/* "RoCE v2" / "IB/RoCE v1" (newline optional); -EINVAL for anything else. */
int gid_type_parse(const char *text, enum gid_type *out);
bool gid_is_zero(const uint8_t gid[16]);
/* The GID the kernel derives from an address: IPv4 as ::ffff:a.b.c.d. */
void gid_from_addr(const struct ipaddr *a, uint8_t out[16]);
/* The entry of table (n entries) holding gid with type on ndev; NULL if none. */
const struct gid_entry *gid_find(const struct gid_entry *table, int n, const uint8_t gid[16],
				 enum gid_type type, const char *ndev);
