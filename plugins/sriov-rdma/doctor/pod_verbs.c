// SPDX-License-Identifier: Apache-2.0
/* Pod check of what NCCL does first: list the devices through libibverbs,
 * open each and query its ports, inside the pod's netns. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pod.h"
#include "verbs.h"

static void check_port(const struct verbs_dev *d, const struct verbs_port *pt, struct report *r)
{
	char subject[96];

	snprintf(subject, sizeof(subject), "%s port %d", d->name, pt->num);
	if (pt->err)
		report_add(r, REPORT_FAIL, "verbs", subject, "see pod-port; the driver refused the "
			   "query", "ibv_query_port: %s", strerror(pt->err));
	else if (pt->state != VERBS_PORT_ACTIVE)
		report_add(r, REPORT_FAIL, "verbs", subject, "the port has no link: check the PF link "
			   "and the network's link_state", "%s, %s: NCCL skips ports that are not ACTIVE",
			   verbs_port_state_name(pt->state), verbs_link_layer_name(pt->link_layer));
	else
		report_add(r, REPORT_OK, "verbs", subject, NULL, "ACTIVE, %s, active MTU %d, %d GIDs",
			   verbs_link_layer_name(pt->link_layer), pt->active_mtu, pt->gid_tbl_len);
}

void pod_verbs_checks(struct pod *p, struct report *r)
{
	struct verbs_dev *devs = NULL;
	char why[256] = "";
	int n = 0, ret;

	(void)p;
	ret = verbs_scan(&devs, &n, why, sizeof(why));
	if (ret == -ELIBACC) {
		report_add(r, REPORT_WARN, "verbs", "pod", "install libibverbs1 (rdma-core) on the node "
			   "to see what NCCL sees; every other check ran without it",
			   "libibverbs not loaded: %s", why);
		return;
	}
	if (ret < 0 || n == 0) {
		report_add(r, REPORT_FAIL, "verbs", "pod", "see the pod-rdma and pod-uverbs checks: "
			   "NCCL finds no device and falls back to NET/Socket",
			   "libibverbs lists no device in the pod netns%s%s", why[0] ? ": " : "", why);
		free(devs);
		return;
	}
	for (int i = 0; i < n; i++) {
		if (devs[i].err)
			report_add(r, REPORT_FAIL, "verbs", devs[i].name, "see pod-uverbs: the device must "
				   "be openable (ib_uverbs loaded, exclusive mode)",
				   "ibv_open_device: %s", strerror(devs[i].err));
		for (int j = 0; j < devs[i].n_ports; j++)
			check_port(&devs[i], &devs[i].ports[j], r);
	}
	free(devs);
}
