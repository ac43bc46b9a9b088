/* SPDX-License-Identifier: Apache-2.0 */
/* The "store" block of type "etcd" read into a plain struct; pure. */
#pragma once

#include <cjson/cJSON.h>
#include "err.h"

#define ETCD_MAX_ENDPOINTS 8
#define ETCD_STR_MAX 512

struct etcd_conf {
	char endpoints[ETCD_MAX_ENDPOINTS][ETCD_STR_MAX];
	int n_endpoints;
	char prefix[ETCD_STR_MAX];	/* default "/ippool", no trailing slash */
	char cacert[ETCD_STR_MAX];
	char cert[ETCD_STR_MAX];
	char key[ETCD_STR_MAX];
	char username[ETCD_STR_MAX];
	char password[ETCD_STR_MAX];
	int timeout_ms;			/* budget of one whole command */
};

/* Reads {"type":"etcd","endpoints":[...],...}. Missing endpoints, a URL that
 * is not http(s)://, a cert without key, a username without password:
 * CNI_ERR_CONFIG naming the key and value. */
int etcd_conf_parse(const cJSON *store, struct etcd_conf *out, struct cni_err *err);
