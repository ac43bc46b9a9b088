// SPDX-License-Identifier: Apache-2.0
/* `sriov-rdma-doctor node`: the host's RDMA mode, PFs and VFs, attachments, IPAM stores, the node agent. */
#include <stdio.h>
#include <string.h>
#include "conf.h"
#include "conffiles.h"
#include "node.h"

static void add_data_dir(struct node *n, const char *dir)
{
	for (int i = 0; i < n->n_data_dirs; i++)
		if (!strcmp(n->data_dirs[i], dir))
			return;
	if (n->n_data_dirs < DOCTOR_MAX_DIRS && dir[0] == '/')
		snprintf(n->data_dirs[n->n_data_dirs++], PATH_MAX, "%s", dir);
}

/* The default, those given on the command line, those the conf files name. */
static void find_data_dirs(struct node *n)
{
	const cJSON *c;

	add_data_dir(n, CONF_DEFAULT_DATA_DIR);
	for (int i = 0; i < n->o->n_data_dirs; i++)
		add_data_dir(n, n->o->data_dirs[i]);
	cJSON_ArrayForEach(c, n->confs) {
		const cJSON *type = cJSON_GetObjectItemCaseSensitive(c, "type");
		const cJSON *dir = cJSON_GetObjectItemCaseSensitive(c, "dataDir");

		if (cJSON_IsString(type) && !strcmp(type->valuestring, "sriov-rdma") &&
		    cJSON_IsString(dir))
			add_data_dir(n, dir->valuestring);
	}
}

static const struct {
	void (*run)(struct node *n, struct report *r);
} groups[] = {
	{ node_pf_checks },
	{ node_attach_checks },
	{ node_ippool_checks },
	{ node_agent_checks },
};

int node_run(const struct doctor_opts *o, struct report *r)
{
	struct cni_err err = { 0 };
	struct node n = { .o = o };
	int ret;

	mode_check(r, true);
	ret = conffiles_load(o->conf_dir, &n.confs);
	if (ret < 0)
		return ret;
	find_data_dirs(&n);
	ret = link_sock_open(-1, &n.nl, &err);
	if (ret == 0)
		ret = link_sock_open(-1, &n.vf_nl, &err);
	if (ret < 0) {
		report_add(r, REPORT_FAIL, "rtnetlink", "node", "run as root",
			   "cannot open rtnetlink: %s", err.msg);
		link_sock_close(n.nl);
		cJSON_Delete(n.confs);
		return 0;
	}
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
		groups[i].run(&n, r);
	link_sock_close(n.vf_nl);
	link_sock_close(n.nl);
	cJSON_Delete(n.confs);
	return 0;
}
