// SPDX-License-Identifier: Apache-2.0
/* Pod checks of a container process (--pid): the verbs char devices in its
 * /dev, its memlock limit, and what its NCCL_* variables select. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "fileio.h"
#include "nccl.h"
#include "pod.h"
#include "procfs.h"

/* Below this a NCCL job cannot register its buffers (ibv_reg_mr: ENOMEM). */
#define MEMLOCK_ENOUGH (1ULL << 30)
#define MISC_MAJOR 10

static void container_path(const struct pod *p, const char *rel, char *out, size_t size)
{
	snprintf(out, size, "/proc/%d/root%s", (int)p->o->pid, rel);
}

static void check_uverbs(struct pod *p, const struct pod_target *t, struct report *r)
{
	char dir[PATH_MAX], path[PATH_MAX], rel[64];
	struct ibdev_uverbs u;
	struct stat st;

	if (snprintf(dir, sizeof(dir), "%s/class/infiniband_verbs", p->root) >= (int)sizeof(dir) ||
	    ibdev_uverbs_find(dir, t->dev->name, &u) < 0) {
		report_add(r, REPORT_FAIL, "pod-uverbs", t->dev->name, "load ib_uverbs on the node "
			   "(modprobe ib_uverbs)", "no uverbs device for %s in %s", t->dev->name, dir);
		return;
	}
	snprintf(rel, sizeof(rel), "/dev/infiniband/%s", u.name);
	container_path(p, rel, path, sizeof(path));
	if (stat(path, &st) < 0 || !S_ISCHR(st.st_mode) ||
	    (u.has_devt && st.st_rdev != makedev(u.major, u.minor)))
		report_add(r, REPORT_FAIL, "pod-uverbs", t->dev->name, "request the VF through its "
			   "device plugin resource with isRdma: true (the device plugin then mounts "
			   "/dev/infiniband/uverbsN), or mount it into the container",
			   "the container has no char device %s: NCCL cannot open %s", rel,
			   t->dev->name);
	else
		report_add(r, REPORT_OK, "pod-uverbs", t->dev->name, NULL, "%s (%u:%u) in the container",
			   rel, major(st.st_rdev), minor(st.st_rdev));
}

static void check_rdma_cm(struct pod *p, struct report *r)
{
	char path[PATH_MAX];
	struct stat st;

	container_path(p, "/dev/infiniband/rdma_cm", path, sizeof(path));
	if (stat(path, &st) < 0 || !S_ISCHR(st.st_mode) || major(st.st_rdev) != MISC_MAJOR)
		report_add(r, REPORT_WARN, "pod-rdma-cm", "container", "isRdma: true makes the device "
			   "plugin mount it with uverbs (NCCL itself does not need it)",
			   "no /dev/infiniband/rdma_cm: librdmacm users (UCX, MPI, perftest -R) "
			   "cannot resolve peers");
	else
		report_add(r, REPORT_OK, "pod-rdma-cm", "container", NULL, "/dev/infiniband/rdma_cm "
			   "(%u:%u)", major(st.st_rdev), minor(st.st_rdev));
}

static void show_bytes(uint64_t v, char *out, size_t size)
{
	if (v == PROCFS_UNLIMITED)
		snprintf(out, size, "unlimited");
	else if (v >= (1ULL << 20))
		snprintf(out, size, "%llu MiB", (unsigned long long)(v >> 20));
	else
		snprintf(out, size, "%llu KiB", (unsigned long long)(v >> 10));
}

static void check_memlock(struct pod *p, struct report *r)
{
	char dir[32], *text = NULL, soft_s[32];
	uint64_t caps = 0, soft, hard;
	int ret;

	snprintf(dir, sizeof(dir), "/proc/%d", (int)p->o->pid);
	if (fileio_read(dir, "status", &text, NULL) == 0 && procfs_cap_eff(text, &caps) == 0 &&
	    (caps >> PROCFS_CAP_IPC_LOCK) & 1) {
		report_add(r, REPORT_OK, "pod-memlock", "container", NULL, "CAP_IPC_LOCK: no memlock "
			   "limit applies to memory registration");
		free(text);
		return;
	}
	free(text);
	text = NULL;
	ret = fileio_read(dir, "limits", &text, NULL);
	if (ret == 0)
		ret = procfs_memlock(text, &soft, &hard);
	free(text);
	if (ret < 0) {
		report_add(r, REPORT_WARN, "pod-memlock", "container", "run the doctor as root",
			   "cannot read %s/limits: %s", dir, strerror(-ret));
		return;
	}
	show_bytes(soft, soft_s, sizeof(soft_s));
	if (soft != PROCFS_UNLIMITED && soft < MEMLOCK_ENOUGH)
		report_add(r, REPORT_FAIL, "pod-memlock", "container", "add IPC_LOCK to the "
			   "container's securityContext.capabilities.add (or give the runtime an "
			   "unlimited memlock limit, e.g. LimitMEMLOCK=infinity)", "memlock limit %s "
			   "without CAP_IPC_LOCK: registering NCCL's buffers fails (ENOMEM)", soft_s);
	else
		report_add(r, REPORT_OK, "pod-memlock", "container", NULL, "memlock limit %s", soft_s);
}

void pod_proc_checks(struct pod *p, struct report *r)
{
	if (!p->o->pid) {
		report_add(r, REPORT_OK, "container", "pod", NULL, "not looked at: give --pid of a "
			   "container process to check its /dev, memlock limit and NCCL settings");
		return;
	}
	for (int i = 0; i < p->n_targets; i++)
		if (p->targets[i].dev)
			check_uverbs(p, &p->targets[i], r);
	check_rdma_cm(p, r);
	check_memlock(p, r);
}
