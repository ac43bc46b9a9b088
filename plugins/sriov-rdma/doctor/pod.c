// SPDX-License-Identifier: Apache-2.0
/* `sriov-rdma-doctor pod`: enter the pod's netns and sysfs view, find its
 * attachments, run the pod check groups. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include "fileio.h"
#include "linkip.h"
#include "netns.h"
#include "pod.h"
#include "record.h"
#include "sysfs.h"

/* sysfs shows netdevs and (exclusive mode) RDMA devices of the netns that
 * mounted it: as `ip netns exec` does, a fresh sysfs is mounted on /sys in
 * a mount namespace of the doctor's own, so nothing on the node changes.
 * $SYSFS_PATH, when set, names the pod's view instead. */
static int pod_sysfs(struct pod *p, struct report *r)
{
	const char *env = getenv("SYSFS_PATH");

	if (env && *env) {
		snprintf(p->root, sizeof(p->root), "%s", env);
		return 0;
	}
	snprintf(p->root, sizeof(p->root), "/sys");
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_SLAVE | MS_REC, NULL) < 0 ||
	    (umount2("/sys", MNT_DETACH) < 0 && errno != EINVAL) ||
	    mount("sysfs", "/sys", "sysfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
		report_add(r, REPORT_FAIL, "pod-sysfs", "pod", "run the doctor as root on the host",
			   "cannot mount a sysfs of the pod's netns: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

static int enter(struct pod *p, const char *path, struct report *r)
{
	struct cni_err err = { 0 };
	int fd = -1, ret;

	ret = netns_open(path, &fd, &err);
	if (ret == -ENOENT)
		snprintf(err.msg, sizeof(err.msg), "netns %s does not exist", path);
	if (ret == 0 && netns_enter(fd) < 0) {
		ret = -errno;
		snprintf(err.msg, sizeof(err.msg), "cannot enter netns %s: %s", path, strerror(errno));
	}
	netns_close(fd);
	if (ret < 0) {
		report_add(r, REPORT_FAIL, "pod-netns", path, "name the pod's netns (ip netns, "
			   "crictl inspectp) or a live process of the container", "%s", err.msg);
		return ret;
	}
	ret = pod_sysfs(p, r);
	if (ret == 0)
		ret = link_sock_open(-1, &p->nl, &err);
	if (ret < 0 && p->root[0] && !p->nl)
		report_add(r, REPORT_FAIL, "pod-netns", path, "run as root", "%s", err.msg);
	return ret;
}

static bool ours(const struct link_info *li)
{
	return !strncmp(li->alias, RECORD_ALIAS_PREFIX, strlen(RECORD_ALIAS_PREFIX));
}

static const struct rdmanl_dev *dev_of(const struct pod *p, int ifindex)
{
	for (int i = 0; i < p->n_devs; i++)
		if (p->devs[i].ndev_index == ifindex)
			return &p->devs[i];
	return NULL;
}

/* --ifname, else our alias, else any port netdev of an RDMA device (chained
 * after sriov-cni, whose alias is not ours). */
static bool wanted(const struct pod *p, const struct link_info *li, int pass)
{
	if (p->o->ifname && p->o->ifname[0])
		return pass == 0 && !strcmp(li->name, p->o->ifname);
	return pass == 0 ? ours(li) : dev_of(p, li->ifindex) != NULL;
}

struct walk {
	struct pod *p;
	int pass;
};

static int add_target(const struct link_info *li, void *arg)
{
	struct walk *w = arg;
	struct pod *p = w->p;
	struct pod_target *t;

	if (!wanted(p, li, w->pass) || p->n_targets == POD_MAX_TARGETS)
		return 0;
	t = &p->targets[p->n_targets++];
	t->link = *li;
	t->dev = dev_of(p, li->ifindex);
	return 0;
}

/* After the walk: no second request on the socket while a dump is read. */
static void read_target(struct pod *p, struct pod_target *t)
{
	link_addr_list(p->nl, t->link.ifindex, t->addrs, POD_MAX_ADDRS, &t->n_addrs);
	if (t->dev)
		t->has_port = ibdev_port_read(p->root, t->dev->name, 1, &t->port) == 0;
}

static void find_targets(struct pod *p, struct report *r)
{
	struct cni_err err = { 0 };

	if (rdmanl_dev_list(-1, &p->devs, &p->n_devs, &err) < 0)
		p->n_devs = 0;
	for (int pass = 0; pass < 2 && !p->n_targets; pass++) {
		struct walk w = { .p = p, .pass = pass };

		link_for_each(p->nl, add_target, &w);
	}
	for (int i = 0; i < p->n_targets; i++)
		read_target(p, &p->targets[i]);
	if (!p->n_targets)
		report_add(r, REPORT_FAIL, "pod-netdev", p->o->ifname && p->o->ifname[0] ?
			   p->o->ifname : "pod", "check the pod's k8s.v1.cni.cncf.io/networks "
			   "annotation names the RDMA network (or pass --ifname)",
			   "no sriov-rdma interface and no RDMA port netdev in the pod");
}

static void read_environ(struct pod *p)
{
	char dir[32];

	if (!p->o->pid)
		return;
	snprintf(dir, sizeof(dir), "/proc/%d", (int)p->o->pid);
	if (fileio_read(dir, "environ", &p->environ, &p->environ_len) < 0)
		p->environ = NULL;
}

static void release(struct pod *p)
{
	for (int i = 0; i < p->n_targets; i++)
		ibdev_port_release(&p->targets[i].port);
	link_sock_close(p->nl);
	free(p->devs);
	free(p->environ);
}

static const struct {
	void (*run)(struct pod *p, struct report *r);
} groups[] = {
	{ pod_net_checks },
	{ pod_proc_checks },
	{ pod_nccl_checks },
	{ pod_verbs_checks },
};

int pod_run(const struct doctor_opts *o, struct report *r)
{
	struct pod *p = calloc(1, sizeof(*p));
	char path[64];

	if (!p)
		return -ENOMEM;
	p->o = o;
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)o->pid);
	if (enter(p, o->pid ? path : o->netns, r) == 0) {
		mode_check(r, false);
		find_targets(p, r);
		read_environ(p);
		for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
			groups[i].run(p, r);
	}
	release(p);
	free(p);
	return 0;
}
