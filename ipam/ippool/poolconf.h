/* SPDX-License-Identifier: Apache-2.0 */
/* The ipam block, the configuration file under it and the addresses runtimeConfig asks for, read into a plain struct; pure. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <cjson/cJSON.h>
#include "err.h"
#include "range.h"
#include "result.h"
#include "store.h"

#define POOLCONF_DEFAULT_DATA_DIR "/var/lib/cni/ippool"
#define POOLCONF_DEFAULT_FILE "/etc/cni/net.d/ippool.d/ippool.conf"
/* network_name when none is set: every such config shares one address space,
 * as whereabouts does; "_" can never be a user's network_name. */
#define POOLCONF_DEFAULT_NETWORK "_"
/* Store file names embed it next to a range and an address (NAME_MAX 255). */
#define POOLCONF_NETWORK_MAX 128

struct pool_conf {
	char network[POOL_NAME_MAX];
	bool shared;
	char data_dir[PATH_MAX];
	char store[64];
	cJSON *store_obj;		/* owned copy of an object-form "store", or NULL */
	long hold_seconds;
	int slice_len;			/* node_slice_size (etcd store only); 0 = none */
	char slice_size[16];		/* as written, for messages */
	char log_file[PATH_MAX];
	char log_level[16];
	struct pool_range ranges[POOL_MAX_RANGES];	/* each skip owned (malloc) */
	int n_ranges;
	struct ipaddr gateway[POOL_MAX_RANGES];	/* family 0 = none */
	struct cni_route routes[RESULT_MAX_ROUTES];
	int n_routes;
	struct cni_dns dns;
	/* runtimeConfig.ips as the config gives them, in order; NULL for an
	 * entry that is not a string. Only ADD asks for them (poolconf_request),
	 * so other verbs never fail on them. */
	char **requested;
	int n_requested;
};

/* configuration_path of the ipam block, or the default; *explicit says
 * whether the block named it (a missing explicit file is an error). */
const char *poolconf_file_path(const cJSON *ipam, bool *explicit);

/* Reads the ipam block, keys it lacks taken from file (may be NULL), and the
 * addresses runtime (the config's runtimeConfig, may be NULL) asks for:
 * everything the verbs need is copied, no pointer into the trees is kept.
 * Missing range: CNI_ERR_CONFIG; wrong types: CNI_ERR_DECODE; both name the
 * key and the value. *out is filled in place (it is large: allocate it). */
int poolconf_parse(const cJSON *ipam, const cJSON *file, const cJSON *runtime,
		   struct pool_conf *out, struct cni_err *err);
/* Only dataDir and store, for the operator tools (no range needed). */
int poolconf_parse_store(const cJSON *ipam, const cJSON *file, struct pool_conf *out,
		     struct cni_err *err);
void poolconf_release(struct pool_conf *c);

/* ADD's requests for specific addresses: runtimeConfig.ips, then the
 * comma-separated list of CNI_ARGS IP= (args_ip, "" for none). Each
 * ("a.b.c.d", "2001:db8::5", with or without "/nn") sets want on the range
 * that holds it. A runtimeConfig.ips entry that is not a string:
 * CNI_ERR_DECODE; an address not in any range, excluded, or a second
 * request for one range: CNI_ERR_ADDR_TAKEN naming the address. */
int poolconf_request(struct pool_conf *c, const char *args_ip, struct cni_err *err);

/* The CNI result for a lease made from this config: ips[i] with the range's
 * prefix length and gateway, the routes and the dns. */
void poolconf_result(const struct pool_conf *c, const struct pool_lease *lease, struct cni_result *out);
