/* SPDX-License-Identifier: Apache-2.0 */
/* RDMA netlink (NETLINK_RDMA, nldev) through libnl's core: netns mode, devices, moves.
 * A NETLINK_RDMA socket only sees the netns it was created in, so every call
 * names the netns it talks to. Nothing outside this module sees libnl types. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>
#include "err.h"

#define RDMANL_NAME_MAX 64

enum rdmanl_mode { RDMANL_MODE_SHARED = 0, RDMANL_MODE_EXCLUSIVE = 1 };

struct rdmanl_dev {
	uint32_t index;
	char name[RDMANL_NAME_MAX];
	int ndev_index;			/* netdev of port 1, 0 when none */
	char ndev_name[IFNAMSIZ];	/* "" when none */
};

/* RDMA_NLDEV_CMD_SYS_GET in netns_fd (-1 = current). The kernel's extack
 * text goes to err details. No RDMA netlink at all (EPROTONOSUPPORT):
 * CNI_ERR_RDMA_NETLINK saying the kernel has no RDMA support (ib_core). */
int rdmanl_get_mode(int netns_fd, enum rdmanl_mode *mode, struct cni_err *err);
/* Every device visible from netns_fd, with its port 1 netdev: one
 * RDMA_NLDEV_CMD_GET dump, then one RDMA_NLDEV_CMD_PORT_GET per device (the
 * kernel has no port dump across devices). *out is malloc'd (NULL, 0 when
 * none). For a netns with few devices: a pod's, not the host's. */
int rdmanl_dev_list(int netns_fd, struct rdmanl_dev **out, int *n, struct cni_err *err);
/* The device named name, with its port 1 netdev: one GET dump (the kernel
 * looks devices up by index only) and one PORT_GET, whatever the number of
 * devices. -ENODEV when not visible from netns_fd (err untouched). */
int rdmanl_dev_by_name(int netns_fd, const char *name, struct rdmanl_dev *out, struct cni_err *err);
/* The device whose port 1 netdev has ifindex, by rdmanl_dev_list: for a
 * pod netns. -ENODEV when none (err untouched). */
int rdmanl_dev_by_netdev(int netns_fd, int ifindex, struct rdmanl_dev *out, struct cni_err *err);
/* RDMA_NLDEV_CMD_SET with RDMA_NLDEV_NET_NS_FD, sent from the netns the
 * device is in (from_fd), to to_fd. */
int rdmanl_dev_move(int from_fd, uint32_t index, int to_fd, struct cni_err *err);

/* For unit tests and fuzzing: message encoders (return length or -errno)
 * and the reply parsers (GET and PORT_GET replies; SYS_GET's). */
int rdmanl_encode_sys_get(void *buf, size_t size, uint32_t seq);
int rdmanl_encode_dev_get(void *buf, size_t size, uint32_t seq, bool dump, uint32_t index);
int rdmanl_encode_port_get(void *buf, size_t size, uint32_t seq, uint32_t index, uint32_t port);
int rdmanl_encode_dev_set_netns(void *buf, size_t size, uint32_t seq, uint32_t index, int netns_fd);
int rdmanl_parse_dev(const void *nlh, struct rdmanl_dev *out);
int rdmanl_parse_mode(const void *nlh, enum rdmanl_mode *mode);
