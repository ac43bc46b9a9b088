// SPDX-License-Identifier: Apache-2.0
/* Pod checks of the container's NCCL settings (--pid): NCCL_IB_HCA,
 * NCCL_IB_GID_INDEX and NCCL_SOCKET_IFNAME against what the pod has. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "linkip.h"
#include "nccl.h"
#include "pod.h"
#include "procfs.h"

static const char *env(const struct pod *p, const char *name)
{
	return p->environ ? procfs_environ_get(p->environ, p->environ_len, name) : NULL;
}

/* "a b c" of the pod's RDMA devices that list l selects (port 1: the one
 * port of a VF). */
static int selected(const struct pod *p, const struct nccl_list *l, char *out, size_t size)
{
	size_t len = 0;
	int n = 0;

	out[0] = '\0';
	for (int i = 0; i < p->n_devs; i++) {
		if (!nccl_list_selects(l, p->devs[i].name, 1) || len >= size)
			continue;
		len += (size_t)snprintf(out + len, size - len, "%s%s", n++ ? " " : "",
					p->devs[i].name);
	}
	return n;
}

static void all_devs(const struct pod *p, char *out, size_t size)
{
	struct nccl_list all;

	nccl_list_parse("", &all);
	if (!selected(p, &all, out, size))
		snprintf(out, size, "none");
}

static void check_hca(struct pod *p, struct report *r)
{
	const char *v = env(p, "NCCL_IB_HCA");
	char sel[256], visible[256], fix[REPORT_TEXT_MAX];
	struct nccl_list l;

	all_devs(p, visible, sizeof(visible));
	if (!v) {
		report_add(r, REPORT_OK, "nccl-ib-hca", "container", NULL, "unset: NCCL uses every "
			   "visible device (%s)", visible);
		return;
	}
	nccl_list_parse(v, &l);
	snprintf(fix, sizeof(fix), "set NCCL_IB_HCA to the pod's devices (=%s), or leave it unset",
		 visible);
	if (!selected(p, &l, sel, sizeof(sel)))
		report_add(r, REPORT_FAIL, "nccl-ib-hca", "container", fix, "NCCL_IB_HCA=%s selects "
			   "none of the visible devices (%s): NCCL falls back to NET/Socket", v, visible);
	else
		report_add(r, REPORT_OK, "nccl-ib-hca", "container", NULL, "NCCL_IB_HCA=%s selects %s",
			   v, sel);
}

/* The first RoCE v2 GID of the interface's addresses: what to suggest. */
static int suggested_index(const struct pod_target *t)
{
	for (int i = 0; i < t->n_addrs; i++) {
		const struct gid_entry *e;
		uint8_t gid[16];

		gid_from_addr(&t->addrs[i].addr, gid);
		e = gid_find(t->port.gids, t->port.n_gids, gid, GID_ROCE_V2, t->link.name);
		if (e)
			return e->index;
	}
	return -1;
}

static const struct gid_entry *gid_at(const struct pod_target *t, long index)
{
	for (int i = 0; i < t->port.n_gids; i++)
		if (t->port.gids[i].index == index)
			return &t->port.gids[i];
	return NULL;
}

static void check_gid_at(const struct pod_target *t, const char *v, long index, struct report *r)
{
	const struct gid_entry *e = gid_at(t, index);
	char fix[REPORT_TEXT_MAX];
	int want = suggested_index(t);

	if (want >= 0)
		snprintf(fix, sizeof(fix), "unset NCCL_IB_GID_INDEX (NCCL then finds the RoCE v2 GID) "
			 "or set it to %d (RoCE v2 GID of %s's address)", want, t->link.name);
	else
		snprintf(fix, sizeof(fix), "unset NCCL_IB_GID_INDEX, and see the pod-gid check");
	if (!e)
		report_add(r, REPORT_FAIL, "nccl-gid-index", t->dev->name, fix, "NCCL_IB_GID_INDEX=%s: "
			   "no GID at index %ld", v, index);
	else if (e->type != GID_ROCE_V2)
		report_add(r, REPORT_FAIL, "nccl-gid-index", t->dev->name, fix, "NCCL_IB_GID_INDEX=%s: "
			   "index %ld is a RoCE v1 GID", v, index);
	else
		report_add(r, REPORT_OK, "nccl-gid-index", t->dev->name, NULL, "NCCL_IB_GID_INDEX=%s: "
			   "RoCE v2 GID on %s", v, e->ndev);
}

static void check_gid_index(struct pod *p, struct report *r)
{
	const char *v = env(p, "NCCL_IB_GID_INDEX");
	const char *hca = env(p, "NCCL_IB_HCA");
	struct nccl_list l;
	char *end;
	long index;

	if (!v) {
		report_add(r, REPORT_OK, "nccl-gid-index", "container", NULL, "unset: NCCL picks the "
			   "RoCE v2 GID of the interface's address");
		return;
	}
	/* NCCL reads its integer parameters with strtoll, base 0; a value that
	 * does not read leaves the default (-1: NCCL picks). */
	errno = 0;
	index = strtol(v, &end, 0);
	if (errno || end == v || *end) {
		report_add(r, REPORT_WARN, "nccl-gid-index", "container", "unset it or give a number",
			   "NCCL_IB_GID_INDEX=%s is not a number: NCCL ignores it", v);
		return;
	}
	nccl_list_parse(hca ? hca : "", &l);
	for (int i = 0; i < p->n_targets; i++) {
		const struct pod_target *t = &p->targets[i];

		if (index >= 0 && t->dev && t->has_port && !strcmp(t->port.link_layer, "Ethernet") &&
		    nccl_list_selects(&l, t->dev->name, 1))
			check_gid_at(t, v, index, r);
	}
}

#define MAX_IFS 64

struct ifs {
	struct link_info links[MAX_IFS];
	int n;
};

static int collect_if(const struct link_info *li, void *arg)
{
	struct ifs *s = arg;

	if (s->n < MAX_IFS)
		s->links[s->n++] = *li;
	return 0;
}

/* NCCL considers interfaces with an IPv4 or IPv6 address (IPv6 loopback aside). */
static bool has_address(struct pod *p, int ifindex)
{
	static const uint8_t v6_lo[16] = { [15] = 1 };
	struct ipprefix a[POD_MAX_ADDRS];
	int n = 0;

	link_addr_list(p->nl, ifindex, a, POD_MAX_ADDRS, &n);
	for (int i = 0; i < n; i++)
		if (a[i].addr.family == AF_INET || memcmp(a[i].addr.bytes, v6_lo, 16))
			return true;
	return false;
}

static void append(char *buf, size_t size, const char *name)
{
	size_t len = strlen(buf);

	snprintf(buf + len, size - len, "%s%s", len ? " " : "", name);
}

static void check_socket_ifname(struct pod *p, struct report *r)
{
	const char *v = env(p, "NCCL_SOCKET_IFNAME");
	char fix[REPORT_TEXT_MAX], all[256] = "", sel[256] = "";
	struct nccl_list l;
	struct ifs *s;
	int n_sel = 0;

	if (!v) {
		report_add(r, REPORT_OK, "nccl-socket-ifname", "container", NULL, "unset: NCCL picks "
			   "ib*, else any interface but docker*, lo and virbr*");
		return;
	}
	if (strlen(v) <= 1) {
		report_add(r, REPORT_WARN, "nccl-socket-ifname", "container", "give at least two "
			   "characters, or unset it", "NCCL_SOCKET_IFNAME=%s: NCCL ignores a value "
			   "this short", v);
		return;
	}
	nccl_list_parse(v, &l);
	s = calloc(1, sizeof(*s));
	if (!s || link_for_each(p->nl, collect_if, s) < 0) {
		report_add(r, REPORT_WARN, "nccl-socket-ifname", "container", "run as root",
			   "cannot list the pod's interfaces");
		free(s);
		return;
	}
	for (int i = 0; i < s->n; i++) {
		if (!has_address(p, s->links[i].ifindex))
			continue;
		append(all, sizeof(all), s->links[i].name);
		if (nccl_list_selects(&l, s->links[i].name, -1) && ++n_sel)
			append(sel, sizeof(sel), s->links[i].name);
	}
	free(s);
	snprintf(fix, sizeof(fix), "set NCCL_SOCKET_IFNAME to interfaces the pod has with an address "
		 "(%s), or leave it unset", all);
	if (!n_sel)
		report_add(r, REPORT_FAIL, "nccl-socket-ifname", "container", fix,
			   "NCCL_SOCKET_IFNAME=%s selects no interface with an address (%s): NCCL "
			   "cannot bootstrap", v, all);
	else
		report_add(r, REPORT_OK, "nccl-socket-ifname", "container", NULL,
			   "NCCL_SOCKET_IFNAME=%s selects %s", v, sel);
}

void pod_nccl_checks(struct pod *p, struct report *r)
{
	if (!p->o->pid)
		return;
	if (!p->environ) {
		report_add(r, REPORT_WARN, "nccl-env", "container", "run the doctor as root",
			   "cannot read /proc/%d/environ", (int)p->o->pid);
		return;
	}
	check_hca(p, r);
	check_gid_index(p, r);
	check_socket_ifname(p, r);
}
