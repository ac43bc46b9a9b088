/* SPDX-License-Identifier: Apache-2.0 */
/* What the node check groups share: the host's rtnetlink socket, the
 * sriov-rdma dataDirs known on this node, the node's CNI configs. */
#pragma once

#include <limits.h>
#include <cjson/cJSON.h>
#include "doctor.h"
#include "link.h"
#include "record.h"

struct node {
	const struct doctor_opts *o;
	struct link_sock *nl;		/* host netns */
	/* the PFs' VF lists: a socket of their own, as a dump that follows such
	 * a reply on one socket came back truncated (libnl: MSG_TRUNC) in tests */
	struct link_sock *vf_nl;
	char data_dirs[DOCTOR_MAX_DIRS][PATH_MAX];
	int n_data_dirs;
	cJSON *confs;			/* conffiles_load of the conf dir */
};

