// SPDX-License-Identifier: Apache-2.0
/* `ippool release-node NODE [--conf FILE] [--force]`: frees the slices and leases of a node gone for good. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "setup.h"
#include "cmds.h"

#define USAGE "usage: ippool release-node NODE [--conf FILE] [--force]\n"

static int print_slice(const struct pool_slice *sl, void *arg)
{
	char first[64], last[64];

	(void)arg;
	ipaddr_format_u128(sl->family, sl->span.first, first);
	ipaddr_format_u128(sl->family, sl->span.last, last);
	printf("freed slice %s..%s network %s of node %s\n", first, last, sl->network, sl->node);
	return 0;
}

static int print_lease(const struct pool_lease *l, void *arg)
{
	char text[64];

	(void)arg;
	printf("freed lease %s %s:", l->owner.key.containerid, l->owner.key.ifname);
	for (int i = 0; i < l->n_addrs; i++) {
		ipaddr_format_u128(l->addrs[i].family, l->addrs[i].addr, text);
		printf(" %s", text);
	}
	printf("\n");
	return 0;
}

int tool_release_node(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "conf", required_argument, NULL, 'c' },
		{ "force", no_argument, NULL, 'f' },
		{ 0 },
	};
	const char *conf_path = NULL;
	struct pool_conf *c = calloc(1, sizeof(*c));
	struct pool_store *s = NULL;
	struct cni_err err = { 0 };
	bool force = false;
	int opt, ret = 2;

	if (!c)
		return 1;
	while ((opt = getopt_long(argc, argv, "c:f", opts, NULL)) != -1) {
		if (opt == 'c')
			conf_path = optarg;
		else if (opt == 'f')
			force = true;
		else
			goto usage;
	}
	if (optind != argc - 1)
		goto usage;
	ret = 1;
	if (setup_tool_store(conf_path, NULL, c, &s, &err))
		goto fail;
	if (!s->ops->release_node) {
		fprintf(stderr, "ippool release-node: the %s store has no nodes to release\n",
			s->ops->name);
		goto out;
	}
	if (s->ops->release_node(s, argv[optind], force, print_slice, print_lease, NULL, &err))
		goto fail;
	ret = 0;
	goto out;
usage:
	fprintf(stderr, USAGE);
	goto out;
fail:
	setup_tool_error("release-node", &err);
out:
	pool_store_close(s);
	poolconf_release(c);
	free(c);
	return ret;
}
