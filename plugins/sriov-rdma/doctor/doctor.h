/* SPDX-License-Identifier: Apache-2.0 */
/* sriov-rdma-doctor: what the commands share, and the check groups each runs. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>
#include "report.h"

#define DOCTOR_MAX_DIRS 16

struct doctor_opts {
	bool json;
	const char *conf_dir;		/* CNI conf files: dataDirs and ippool stores they name */
	const char *cni_bin_dir;	/* where ippool is, for its STATUS */
	const char *data_dirs[DOCTOR_MAX_DIRS];	/* sriov-rdma dataDirs besides the default */
	int n_data_dirs;
	const char *netns;		/* pod: its netns path ... */
	pid_t pid;			/* ... or a process of the container (0: none) */
	const char *ifname;		/* pod: the attachment's interface ("" : find them) */
};

/* The fixes named in more than one place. */
#define FIX_RDMA_MODE "run `rdma system set netns exclusive` while no pod runs, or load " \
	"ib_core with netns_mode=0 (or rdmaMode: exclusive in the SriovNetworkPoolConfig)"
#define FIX_IS_RDMA "set isRdma: true in the SriovNetworkNodePolicy of this VF's pool"

/* mode.c: the RDMA netns mode; on the node also whether it can change now. */
void mode_check(struct report *r, bool node);

/* node.c and its groups: node_pf.c (PFs and VFs), node_attach.c (state files,
 * parked VFs, locks, leaked VF settings), node_ippool.c (store STATUS),
 * node_agent.c (the node agent's last run). */
int node_run(const struct doctor_opts *o, struct report *r);
struct node;
void node_pf_checks(struct node *n, struct report *r);
void node_attach_checks(struct node *n, struct report *r);
void node_ippool_checks(struct node *n, struct report *r);
void node_agent_checks(struct node *n, struct report *r);

/* pod.c and its groups: pod_net.c (netdev, RDMA device, port, GIDs),
 * pod_proc.c (the container's /dev, memlock, NCCL environment), pod_verbs.c. */
int pod_run(const struct doctor_opts *o, struct report *r);
