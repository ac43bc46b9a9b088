// SPDX-License-Identifier: Apache-2.0
/* `ippool fill`: bulk reservations through the store's own reserve, for benchmarks. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "poolconf.h"
#include "env.h"
#include "setup.h"
#include "cmds.h"

static const char usage[] =
	"usage: ippool fill --data-dir DIR --range CIDR --count N [--network NAME] [--prefix ID]\n"
	"                   [--name CNI_NETWORK]\n";

/* Owners are "<prefix>-<i>" on ifname net1 in CNI network name, without
 * fsync (bench setup only). */
static int fill(struct pool_conf *c, const char *prefix, const char *name, long count)
{
	struct pool_store *s = NULL;
	struct cni_err err = { 0 };
	struct pool_owner o = { .key.ifname = "net1" };
	struct pool_lease lease;
	int ret = setup_store(c, true, &s, &err);

	snprintf(o.cni_network, sizeof(o.cni_network), "%s", name);
	o.created = (int64_t)time(NULL);
	for (long i = 0; i < count && !ret; i++) {
		snprintf(o.key.containerid, sizeof(o.key.containerid), "%s-%ld", prefix, i);
		ret = s->ops->reserve(s, &o, c->ranges, c->n_ranges, &lease, &err);
	}
	if (ret)
		fprintf(stderr, "ippool fill: %s\n", err.msg);
	pool_store_close(s);
	return ret ? 1 : 0;
}

int tool_fill(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "data-dir", required_argument, NULL, 'd' },
		{ "range", required_argument, NULL, 'r' },
		{ "count", required_argument, NULL, 'c' },
		{ "network", required_argument, NULL, 'n' },
		{ "prefix", required_argument, NULL, 'p' },
		{ "name", required_argument, NULL, 'N' },
		{ 0 },
	};
	struct pool_conf *c = calloc(1, sizeof(*c));
	cJSON *ipam = cJSON_CreateObject();
	struct cni_err err = { 0 };
	const char *prefix = "fill", *name = "fill";
	long count = -1;
	int opt, ret = 2;

	if (!c || !ipam)
		goto out;
	while ((opt = getopt_long(argc, argv, "d:r:c:n:p:N:", opts, NULL)) != -1) {
		static const char *const keys[] = { ['d'] = "dataDir", ['r'] = "range", ['n'] = "network_name" };

		if (opt == 'c')
			count = strtol(optarg, NULL, 10);
		else if (opt == 'p')
			prefix = optarg;
		else if (opt == 'N' && env_valid_id(optarg) && strlen(optarg) < POOL_NAME_MAX)
			name = optarg;
		else if (opt == 'd' || opt == 'r' || opt == 'n')
			cJSON_AddStringToObject(ipam, keys[opt], optarg);
		else
			goto usage;
	}
	if (count < 0 || !cJSON_GetObjectItem(ipam, "dataDir") || !cJSON_GetObjectItem(ipam, "range"))
		goto usage;
	if (poolconf_parse(ipam, NULL, NULL, c, &err)) {
		fprintf(stderr, "ippool fill: %s\n", err.msg);
		ret = 1;
		goto out;
	}
	ret = fill(c, prefix, name, count);
	poolconf_release(c);
	goto out;
usage:
	fputs(usage, stderr);
out:
	cJSON_Delete(ipam);
	free(c);
	return ret;
}
