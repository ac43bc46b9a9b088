// SPDX-License-Identifier: Apache-2.0
/* Pod checks of each attachment's interface: the netdev (up, addresses), its
 * RDMA device, the device's port (state, link layer, GUIDs on InfiniBand, MTU) and its RoCE v2
 * GIDs for the interface's addresses. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include "guid.h"
#include "pod.h"

/* Bytes RoCE puts around a payload (GRH, UDP, BTH, XRC, AtomicETH, ICRC):
 * the kernel's iboe_get_mtu() takes them off the netdev MTU and rounds the
 * rest down to an IB MTU. */
#define ROCE_HEADERS 96

static bool global(const struct ipprefix *a)
{
	return a->addr.family == AF_INET ||
	       !(a->addr.bytes[0] == 0xfe && (a->addr.bytes[1] & 0xc0) == 0x80);
}

static void check_netdev(struct pod *p, struct pod_target *t, struct report *r)
{
	char seen[REPORT_TEXT_MAX], a[IPADDR_STR_MAX], fix[REPORT_TEXT_MAX];
	size_t len;
	int n = 0;

	(void)p;
	len = (size_t)snprintf(seen, sizeof(seen), "%s, MTU %u", t->link.up ? "up" : "down",
			       t->link.mtu);
	for (int i = 0; i < t->n_addrs; i++) {
		if (!global(&t->addrs[i]) || len >= sizeof(seen))
			continue;
		ipprefix_format(&t->addrs[i], a);
		len += (size_t)snprintf(seen + len, sizeof(seen) - len, "%s%s", n++ ? " " : ", ", a);
	}
	snprintf(fix, sizeof(fix), "ip link set %s up in the pod; if it goes down again, check the "
		 "network's link_state and the PF link (sriov-rdma-doctor node)", t->link.name);
	if (!t->link.up)
		report_add(r, REPORT_FAIL, "pod-netdev", t->link.name, fix, "%s", seen);
	else if (!n)
		report_add(r, REPORT_WARN, "pod-netdev", t->link.name, "give the network an ipam "
			   "block: RoCE addresses peers by IP (GID) and NCCL bootstraps over IP",
			   "%s, no IP address", seen);
	else
		report_add(r, REPORT_OK, "pod-netdev", t->link.name, NULL, "%s", seen);
}

static void check_rdma(struct pod *p, struct pod_target *t, struct report *r)
{
	(void)p;
	if (!t->dev)
		report_add(r, REPORT_FAIL, "pod-rdma", t->link.name, "attach with \"rdma\": true (the "
			   "default) a VF that has an RDMA device (isRdma: true), on a node in "
			   "exclusive mode; else NCCL falls back to NET/Socket",
			   "no RDMA device whose port is %s", t->link.name);
	else
		report_add(r, REPORT_OK, "pod-rdma", t->link.name, NULL, "%s (port 1 netdev %s)",
			   t->dev->name, t->link.name);
}

static bool roce(const struct pod_target *t)
{
	return t->has_port && !strcmp(t->port.link_layer, "Ethernet");
}

/* On InfiniBand the fabric knows the port by its GUIDs (what ib-sriov-cni's
 * guid and Multus's infiniband-guid set): ", node GUID ..., port GUID ...",
 * the port GUID being the low half of GID 0; "" on Ethernet. */
static void ib_guids(const struct pod_target *t, char *out, size_t size)
{
	char node[GUID_STR_LEN + 1] = "unreadable", port[GUID_STR_LEN + 1] = "unreadable";
	uint64_t guid = 0;

	out[0] = '\0';
	if (strcmp(t->port.link_layer, "InfiniBand"))
		return;
	if (t->port.has_node_guid)
		guid_format(t->port.node_guid, node);
	if (t->port.n_gids && t->port.gids[0].index == 0) {
		for (int i = 8; i < 16; i++)
			guid = guid << 8 | t->port.gids[0].gid[i];
		guid_format(guid, port);
	}
	snprintf(out, size, ", node GUID %s, port GUID %s", node, port);
}

static void check_port(struct pod *p, struct pod_target *t, struct report *r)
{
	char guids[2 * GUID_STR_LEN + 64];

	if (!t->dev)
		return;
	if (t->has_port)
		ib_guids(t, guids, sizeof(guids));
	if (!t->has_port)
		report_add(r, REPORT_FAIL, "pod-port", t->dev->name, "the device is not in this "
			   "netns's sysfs: the node must be in exclusive mode", "no %s/class/infiniband/"
			   "%s/ports/1", p->root, t->dev->name);
	else if (t->port.state != IBDEV_PORT_ACTIVE)
		report_add(r, REPORT_FAIL, "pod-port", t->dev->name, "the VF has no link: check the PF "
			   "link (sriov-rdma-doctor node), the network's link_state (not disable) "
			   "and the switch port", "port 1 %s (%d), %s%s",
			   t->port.state_text[0] ? t->port.state_text : "unreadable", t->port.state,
			   t->port.link_layer, guids);
	else
		report_add(r, REPORT_OK, "pod-port", t->dev->name, NULL, "port 1 ACTIVE, %s%s%s",
			   t->port.link_layer, roce(t) ? " (RoCE)" : "", guids);
}

static int roce_mtu(unsigned int netdev_mtu)
{
	int room = (int)netdev_mtu - ROCE_HEADERS;

	for (int mtu = 4096; mtu >= 256; mtu /= 2)
		if (room >= mtu)
			return mtu;
	return 0;
}

static void check_mtu(struct pod *p, struct pod_target *t, struct report *r)
{
	int mtu = roce_mtu(t->link.mtu);

	(void)p;
	if (!t->dev || !t->has_port)
		return;
	if (!roce(t))
		report_add(r, REPORT_OK, "pod-mtu", t->dev->name, NULL, "%s, netdev MTU %u",
			   t->port.link_layer, t->link.mtu);
	else if (mtu < 4096)
		report_add(r, REPORT_WARN, "pod-mtu", t->dev->name, "raise the MTU to 9000 on the PF "
			   "(mtu in the SriovNetworkNodePolicy) and the switch ports",
			   "RoCE active MTU %d (netdev MTU %u): RDMA messages go in smaller packets",
			   mtu, t->link.mtu);
	else
		report_add(r, REPORT_OK, "pod-mtu", t->dev->name, NULL, "RoCE active MTU 4096 "
			   "(netdev MTU %u)", t->link.mtu);
}

/* RoCE v2 addresses a peer by the GID of its IP address: each of the
 * interface's addresses needs a RoCE v2 entry on the interface. */
static void check_gids(struct pod *p, struct pod_target *t, struct report *r)
{
	char a[IPADDR_STR_MAX], subject[160];
	uint8_t gid[16];

	(void)p;
	if (!t->dev || !roce(t))
		return;
	for (int i = 0; i < t->n_addrs; i++) {
		const struct gid_entry *e;

		if (!global(&t->addrs[i]))
			continue;
		ipaddr_format(&t->addrs[i].addr, a);
		snprintf(subject, sizeof(subject), "%s %s", t->dev->name, a);
		gid_from_addr(&t->addrs[i].addr, gid);
		e = gid_find(t->port.gids, t->port.n_gids, gid, GID_ROCE_V2, t->link.name);
		if (e)
			report_add(r, REPORT_OK, "pod-gid", subject, NULL, "RoCE v2 GID index %d on %s",
				   e->index, t->link.name);
		else
			report_add(r, REPORT_FAIL, "pod-gid", subject, "enable RoCE v2 on the device "
				   "(the NIC's RoCE mode, devlink enable_roce) and keep the address "
				   "on the VF netdev itself, not on a VLAN or macvlan on top",
				   "no RoCE v2 GID for %s on %s (%d GIDs): RDMA cannot address this "
				   "peer", a, t->link.name, t->port.n_gids);
	}
}

static const struct {
	void (*run)(struct pod *p, struct pod_target *t, struct report *r);
} checks[] = {
	{ check_netdev },
	{ check_rdma },
	{ check_port },
	{ check_mtu },
	{ check_gids },
};

void pod_net_checks(struct pod *p, struct report *r)
{
	for (int i = 0; i < p->n_targets; i++)
		for (size_t c = 0; c < sizeof(checks) / sizeof(checks[0]); c++)
			checks[c].run(p, &p->targets[i], r);
}
