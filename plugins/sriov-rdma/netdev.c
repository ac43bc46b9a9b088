// SPDX-License-Identifier: Apache-2.0
/* The VF netdev: into the pod under CNI_IFNAME and back under its host name. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "linkip.h"
#include "log.h"
#include "netdev.h"

/* One move request; the message names the VF and where it was going, the
 * kernel's extack text stays in the details. */
static int move_link(struct link_sock *s, struct link_sock *target, int ifindex, const char *name,
		     const char *alias, const char *what, struct cni_err *err)
{
	struct cni_err kernel = { 0 };
	int ret = link_move(s, target, ifindex, name, alias, &kernel);

	if (ret < 0) {
		cni_err_set(err, ret == -EEXIST ? CNI_ERR_ENV : CNI_ERR_NETLINK, "%s: %s", what,
			    strerror(-ret));
		cni_err_details(err, "%s", kernel.details);
	}
	return ret;
}

/* Whether the alias says this attachment put the link where it is. */
static bool ours(const struct attach *a, const char *alias, char host_ifname[IFNAMSIZ])
{
	char owner[NETCONF_NAME_MAX];

	return record_alias_parse(alias, host_ifname, owner, sizeof(owner)) == 0 &&
	       strcmp(owner, a->state.containerid) == 0;
}

/* The VF netdev as sysfs shows it in the host. A VF that still carries an
 * alias of ours came back from a dead pod: its host name is in the alias. */
static int find_host(struct attach *a, struct cni_err *err)
{
	char owner[NETCONF_NAME_MAX];
	struct link_info link;
	int ret;

	ret = link_get_by_name(a->host_nl, a->vf.ifname, &link);
	/* sysfs named it a moment ago: it has just been moved into a pod */
	if (ret == -ENODEV)
		cni_err_set(err, CNI_ERR_DEVICE_BUSY, "VF %s netdev %s is no longer in the host "
			    "netns: another pod holds it", a->vf.bdf, a->vf.ifname);
	if (ret < 0) {
		cni_err_set(err, CNI_ERR_DEVICE, "VF %s netdev %s: %s", a->vf.bdf, a->vf.ifname,
			    strerror(-ret));
		return ret;
	}
	if (record_alias_parse(link.alias, a->state.host_ifname, owner, sizeof(owner)) == 0) {
		a->state.host_alias[0] = '\0';
	} else {
		snprintf(a->state.host_ifname, sizeof(a->state.host_ifname), "%s", link.name);
		snprintf(a->state.host_alias, sizeof(a->state.host_alias), "%s", link.alias);
	}
	memcpy(a->state.host_mac, link.mac, sizeof(a->state.host_mac));
	a->state.host_up = link.up;
	a->host_ifindex = link.ifindex;
	return 0;
}

/* An earlier plugin in the chain (sriov-cni) already moved the netdev: we
 * only move the RDMA device and pass its result on. */
static int detect_chained(struct attach *a, struct cni_err *err)
{
	struct link_info link;

	if (a->vf.ifname[0])
		return 0;
	if (a->conf.net.prev_result && link_get_by_name(a->pod_nl, a->state.ifname, &link) == 0) {
		a->state.chained = true;
		a->pod_ifindex = link.ifindex;
		a->result = *a->conf.net.prev_result;
		return 0;
	}
	cni_err_set(err, CNI_ERR_DEVICE_BUSY, "VF %s (driver %s) has no netdev in the host "
		    "netns: another pod holds it, or its driver created none", a->vf.bdf,
		    a->vf.driver);
	return -EBUSY;
}

static int check_ifname_free(struct attach *a, struct cni_err *err)
{
	struct link_info link;

	if (a->state.chained || link_get_by_name(a->pod_nl, a->state.ifname, &link) == -ENODEV)
		return 0;
	cni_err_set(err, CNI_ERR_ENV, "interface \"%s\" already exists in netns %s",
		    a->state.ifname, a->state.netns);
	return -EEXIST;
}

int netdev_prepare(struct attach *a, struct cni_err *err)
{
	int ret = detect_chained(a, err);

	if (ret == 0 && !a->state.chained)
		ret = find_host(a, err);
	if (ret == 0)
		ret = check_ifname_free(a, err);
	return ret;
}

/* DEL: the link CNI_IFNAME in the pod (its ifindex in *link_ifindex, 0 when
 * none). Ours: sets pod_ifindex and, without a state file, the host name
 * from the alias, and returns 0; -ENOENT otherwise. */
int netdev_find_pod(struct attach *a, int *link_ifindex)
{
	char host_ifname[IFNAMSIZ];
	struct link_info link;

	*link_ifindex = 0;
	if (!a->pod_nl || link_get_by_name(a->pod_nl, a->state.ifname, &link) < 0)
		return -ENOENT;
	*link_ifindex = link.ifindex;
	if (!ours(a, link.alias, host_ifname))
		return -ENOENT;
	a->pod_ifindex = link.ifindex;
	if (!a->state.host_ifname[0])
		snprintf(a->state.host_ifname, sizeof(a->state.host_ifname), "%s", host_ifname);
	return 0;
}

/* An IPoIB netdev dies with an RDMA move: it goes after the RDMA device
 * (ib_netdev_to_pod), and comes back with it. */
static bool moves_with_rdma(const struct attach *a)
{
	return a->state.ib && a->state.has_rdma;
}

int netdev_to_pod(struct attach *a, struct cni_err *err)
{
	if (a->state.chained || moves_with_rdma(a))
		return 0;
	return netdev_move_to_pod(a, err);
}

int netdev_move_to_pod(struct attach *a, struct cni_err *err)
{
	char alias[LINK_ALIAS_MAX], what[PATH_MAX + 128];
	struct link_info link;
	int ret;

	snprintf(what, sizeof(what), "failed to move VF %s (%s) into netns %s as %s", a->vf.bdf,
		 a->vf.ifname, a->state.netns, a->state.ifname);
	ret = record_alias(&a->state, alias);
	if (ret == 0)
		ret = move_link(a->host_nl, a->pod_nl, a->host_ifindex, a->state.ifname, alias,
				what, err);
	if (ret == 0)
		ret = link_get_by_name(a->pod_nl, a->state.ifname, &link);
	if (ret < 0) {
		cni_err_set(err, CNI_ERR_NETLINK, "%s: %s", what, strerror(-ret));
		return ret;
	}
	a->pod_ifindex = link.ifindex;
	return 0;
}

/* Puts the host-side facts back on a link that is in the host again. */
static int restore_host_link(struct attach *a, struct cni_err *err)
{
	static const uint8_t unknown_mac[6];
	struct link_info link;
	int ret;

	ret = link_get_by_name(a->host_nl, a->state.host_ifname, &link);
	if (ret == 0 && memcmp(a->state.host_mac, unknown_mac, 6) &&
	    memcmp(a->state.host_mac, link.mac, 6))
		ret = link_set_mac(a->host_nl, link.ifindex, a->state.host_mac, err);
	if (ret == 0 && a->state.host_up)
		ret = link_set_up(a->host_nl, link.ifindex, true, err);
	return ret;
}

/* The kernel drops the pod's addresses and downs the link as it leaves the
 * netns; the request is sent in the pod, where the ifindex is valid. */
static int move_back(struct attach *a, struct cni_err *err)
{
	char what[PATH_MAX + 128];

	snprintf(what, sizeof(what), "failed to return VF %s from netns %s to the host as %s",
		 a->vf.bdf, a->state.netns, a->state.host_ifname);
	return move_link(a->pod_nl, a->host_nl, a->pod_ifindex, a->state.host_ifname,
			 a->state.host_alias, what, err);
}

/* A VF the kernel returned from a dead pod keeps its pod name and our alias. */
static int rename_returned(struct attach *a, const struct link_info *link, struct cni_err *err)
{
	char host_ifname[IFNAMSIZ];
	int ret;

	if (!ours(a, link->alias, host_ifname))
		return -ENOENT;
	if (!a->state.host_ifname[0])
		snprintf(a->state.host_ifname, sizeof(a->state.host_ifname), "%s", host_ifname);
	ret = link_set_up(a->host_nl, link->ifindex, false, err);
	if (ret == 0 && strcmp(link->name, a->state.host_ifname))
		ret = link_set_name(a->host_nl, link->ifindex, a->state.host_ifname, err);
	if (ret == 0)
		ret = link_set_alias(a->host_nl, link->ifindex, a->state.host_alias, err);
	return ret;
}

/* DEL with our state file: a VF in the host under the host name and alias
 * the state recorded was left there by an ADD killed before its move, or by
 * a DEL killed after its move back. What ADD changed is ours to put back.
 * (A VF another pod holds is in that pod's netns, out of sight here.) */
static bool left_home(const struct attach *a, const struct link_info *link)
{
	return a->from_state && !strcmp(link->name, a->state.host_ifname) &&
	       !strcmp(link->alias, a->state.host_alias);
}

/* The VF netdev already in the host: 0 when it is ours, renamed back if it
 * came from a dead pod; -ENOENT otherwise. */
static int back_in_host(struct attach *a, struct cni_err *err)
{
	struct link_info link;
	int ret;

	if (!a->vf.ifname[0] || link_get_by_name(a->host_nl, a->vf.ifname, &link) < 0)
		return -ENOENT;
	ret = rename_returned(a, &link, err);
	return ret == -ENOENT && left_home(a, &link) ? 0 : ret;
}

/* 0 when the VF netdev is back in the host (or is not ours to move):
 * -ENOENT when neither the pod nor the host holds our VF netdev. */
int netdev_to_host(struct attach *a, struct cni_err *err)
{
	int ret;

	if (a->state.chained || moves_with_rdma(a))
		return 0;
	if (a->pod_ifindex && a->pod_nl)
		ret = move_back(a, err);
	else
		ret = back_in_host(a, err);
	if (ret == -ENOENT)
		return ret;
	if (ret == 0)
		ret = restore_host_link(a, err);
	if (ret < 0) {
		cni_err_set(err, CNI_ERR_NETLINK, "%s", strerror(-ret));
		cni_err_wrap(err, "failed to return VF %s to the host as %s", a->vf.bdf,
			     a->state.host_ifname);
		return ret;
	}
	a->pod_ifindex = 0;
	log_info("VF %s is back in the host as %s", a->vf.bdf, a->state.host_ifname);
	return 0;
}

/* A route without its own gateway goes through the gateway of its family. */
static const struct ipaddr *family_gateway(const struct cni_result *r, int family)
{
	for (int i = 0; i < r->n_ips; i++) {
		if (r->ips[i].gateway.family == family)
			return &r->ips[i].gateway;
	}
	return NULL;
}

static int add_routes(struct attach *a, struct cni_err *err)
{
	const struct cni_result *r = &a->result;
	int ret = 0;

	for (int i = 0; ret == 0 && i < r->n_routes; i++) {
		const struct cni_route *rt = &r->routes[i];
		const struct ipaddr *gw = rt->gw.family ? &rt->gw :
					  family_gateway(r, rt->dst.addr.family);
		static const struct ipaddr onlink;

		ret = link_route_add(a->pod_nl, a->pod_ifindex, &rt->dst, gw ? gw : &onlink, err);
	}
	return ret;
}

/* Result interface 0 is the pod link, as the pod sees it now. */
static int describe(struct attach *a, struct cni_err *err)
{
	char mac[LINK_ADDR_STR_MAX];
	struct link_info link;
	int ret, idx;

	ret = link_get_by_index(a->pod_nl, a->pod_ifindex, &link);
	if (ret < 0) {
		cni_err_set(err, CNI_ERR_NETLINK, "link %s in netns %s: %s", a->state.ifname,
			    a->state.netns, strerror(-ret));
		return ret;
	}
	link_addr_format(&link, mac);
	a->result.n_ifaces = 0;
	idx = result_add_iface(&a->result, a->state.ifname, mac, a->state.netns);
	if (idx < 0) {
		cni_err_set(err, CNI_ERR_IPAM, "ipam result has too many interfaces");
		return idx;
	}
	a->result.ifaces[idx].mtu = (int)link.mtu;
	snprintf(a->result.ifaces[idx].pci_id, sizeof(a->result.ifaces[idx].pci_id), "%s",
		 a->vf.bdf);
	for (int i = 0; i < a->result.n_ips; i++)
		a->result.ips[i].iface = idx;
	return 0;
}

/* MAC while down (drivers refuse it on a running VF), then up, addresses, routes. */
int netdev_configure(struct attach *a, struct cni_err *err)
{
	int ret = 0;

	if (a->state.chained)
		return 0;
	if (a->conf.has_mac)
		ret = link_set_mac(a->pod_nl, a->pod_ifindex, a->conf.mac, err);
	if (ret == 0)
		ret = link_set_up(a->pod_nl, a->pod_ifindex, true, err);
	for (int i = 0; ret == 0 && i < a->result.n_ips; i++)
		ret = link_addr_add(a->pod_nl, a->pod_ifindex, &a->result.ips[i].address, err);
	if (ret == 0)
		ret = add_routes(a, err);
	if (ret == 0)
		ret = describe(a, err);
	if (ret < 0) {
		cni_err_set(err, CNI_ERR_NETLINK, "%s", strerror(-ret));
		cni_err_wrap(err, "failed to configure %s in netns %s", a->state.ifname,
			     a->state.netns);
	}
	return ret;
}
