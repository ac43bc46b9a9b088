// SPDX-License-Identifier: Apache-2.0
/* sriov-rdma-diag: the RDMA devices this netns sees through libibverbs, as NCCL
 * will, with each port's state and link layer. Run it in the pod's netns. */
#include <stdio.h>
#include <infiniband/verbs.h>

static const char *const link_layers[] = {
	[IBV_LINK_LAYER_UNSPECIFIED] = "unspecified",
	[IBV_LINK_LAYER_INFINIBAND] = "InfiniBand",
	[IBV_LINK_LAYER_ETHERNET] = "Ethernet (RoCE)",
};

static const char *link_layer_name(uint8_t layer)
{
	if (layer < sizeof(link_layers) / sizeof(link_layers[0]) && link_layers[layer])
		return link_layers[layer];
	return "unknown";
}

/* Prints every port of one device; returns how many are ACTIVE, or -1. */
static int show_device(struct ibv_device *dev)
{
	struct ibv_device_attr attr;
	struct ibv_context *ctx = ibv_open_device(dev);
	int active = 0;

	if (!ctx) {
		printf("%s: cannot open: %m\n", ibv_get_device_name(dev));
		return -1;
	}
	if (ibv_query_device(ctx, &attr)) {
		printf("%s: cannot query: %m\n", ibv_get_device_name(dev));
		ibv_close_device(ctx);
		return -1;
	}
	for (uint8_t port = 1; port <= attr.phys_port_cnt; port++) {
		struct ibv_port_attr pa;

		if (ibv_query_port(ctx, port, &pa)) {
			printf("%s port %u: cannot query: %m\n", ibv_get_device_name(dev), port);
			continue;
		}
		printf("%s port %u: %s, %s, active mtu %d\n", ibv_get_device_name(dev), port,
		       ibv_port_state_str(pa.state), link_layer_name(pa.link_layer),
		       128 << pa.active_mtu);
		active += pa.state == IBV_PORT_ACTIVE;
	}
	ibv_close_device(ctx);
	return active;
}

int main(void)
{
	struct ibv_device **devs;
	int n = 0, active = 0;

	devs = ibv_get_device_list(&n);
	for (int i = 0; i < n; i++) {
		int ret = show_device(devs[i]);

		active += ret > 0 ? ret : 0;
	}
	if (devs)
		ibv_free_device_list(devs);
	if (n == 0)
		fprintf(stderr, "no RDMA device visible in this network namespace: attach the VF "
			"with \"rdma\": true, and check the node is in exclusive mode (`rdma "
			"system show`); NCCL would fall back to TCP sockets\n");
	else if (active == 0)
		fprintf(stderr, "no ACTIVE RDMA port: check the VF's link and cabling\n");
	return active > 0 ? 0 : 1;
}
