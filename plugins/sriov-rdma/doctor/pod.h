/* SPDX-License-Identifier: Apache-2.0 */
/* What the pod check groups share: the pod's netns (the doctor runs inside
 * it), its sysfs view, its RDMA devices and the attachments' interfaces. */
#pragma once

#include <limits.h>
#include <stddef.h>
#include "doctor.h"
#include "ibdev.h"
#include "ipaddr.h"
#include "link.h"
#include "rdmanl.h"

#define POD_MAX_TARGETS 16
#define POD_MAX_ADDRS 16

/* One interface the doctor looks at, and the RDMA device whose port it is. */
struct pod_target {
	struct link_info link;
	struct ipprefix addrs[POD_MAX_ADDRS];
	int n_addrs;
	const struct rdmanl_dev *dev;	/* NULL: none */
	struct ibdev_port port;		/* port 1 of dev, from the pod's sysfs */
	bool has_port;
};

struct pod {
	const struct doctor_opts *o;
	char root[PATH_MAX];		/* the pod's sysfs view */
	struct link_sock *nl;		/* rtnetlink in the pod */
	struct rdmanl_dev *devs;	/* malloc'd */
	int n_devs;
	struct pod_target targets[POD_MAX_TARGETS];
	int n_targets;
	char *environ;			/* --pid: /proc/PID/environ, NUL after environ_len */
	size_t environ_len;
};

/* pod_net.c: per interface. */
void pod_net_checks(struct pod *p, struct report *r);
/* pod_proc.c: the container process (--pid) and its NCCL settings. */
void pod_proc_checks(struct pod *p, struct report *r);
void pod_nccl_checks(struct pod *p, struct report *r);
/* pod_verbs.c: what libibverbs opens. */
void pod_verbs_checks(struct pod *p, struct report *r);
