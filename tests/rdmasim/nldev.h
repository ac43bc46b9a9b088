/* SPDX-License-Identifier: Apache-2.0 */
/* The simulator's model of the kernel's RDMA netlink (nldev) side: one
 * application datagram in, reply datagrams out. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the kernel knows about a NETLINK_RDMA socket. */
struct rdmasim_sock {
	unsigned long netns;	/* netns it was created in */
	int inet_fd;		/* AF_INET socket in that netns, for ifindex lookups */
	uint32_t portid;
	bool ext_ack;
	bool cap_ack;
};

typedef void (*rdmasim_emit_t)(void *ctx, const void *buf, size_t len);

/* Handles every netlink message in buf as the kernel would, against the
 * state file named by path; each reply datagram goes to emit. */
void rdmasim_handle(const char *path, const struct rdmasim_sock *sock,
		    const void *buf, size_t len, rdmasim_emit_t emit, void *ctx);
