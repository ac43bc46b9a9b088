/* SPDX-License-Identifier: Apache-2.0 */
/* The CNI result as plain data, read from any version, printed in any version. */
#pragma once

#include <stdbool.h>
#include <limits.h>
#include <cjson/cJSON.h>
#include "err.h"
#include "ipaddr.h"
#include "version.h"

#define RESULT_MAX_IFACES 8
#define RESULT_MAX_IPS 16
#define RESULT_MAX_ROUTES 64
#define RESULT_MAX_DNS 8
#define RESULT_STR_MAX 256

struct cni_iface {
	char name[RESULT_STR_MAX];
	char mac[RESULT_STR_MAX];
	char sandbox[PATH_MAX];
	char pci_id[RESULT_STR_MAX];	/* 1.1.0 pciID */
	int mtu;			/* 1.1.0 mtu; 0 = unset */
};

struct cni_ip {
	struct ipprefix address;
	struct ipaddr gateway;		/* family 0 = none */
	int iface;			/* index into ifaces, -1 = none */
};

struct cni_route {
	struct ipprefix dst;
	struct ipaddr gw;		/* family 0 = none */
};

struct cni_dns {
	char nameservers[RESULT_MAX_DNS][RESULT_STR_MAX];
	int n_nameservers;
	char domain[RESULT_STR_MAX];
	char search[RESULT_MAX_DNS][RESULT_STR_MAX];
	int n_search;
	char options[RESULT_MAX_DNS][RESULT_STR_MAX];
	int n_options;
};

struct cni_result {
	struct cni_iface ifaces[RESULT_MAX_IFACES];
	int n_ifaces;
	struct cni_ip ips[RESULT_MAX_IPS];
	int n_ips;
	struct cni_route routes[RESULT_MAX_ROUTES];
	int n_routes;
	struct cni_dns dns;
};

/* Empties r. The counts (and the domain) say what r holds and entries are
 * zeroed as they are added: a result costs the pages it fills, not its 48 KiB. */
void result_clear(struct cni_result *r);
/* Reads a result of any supported version (0.3.x/0.4.0 "ips[].version",
 * 1.x without). Bad shape: CNI_ERR_DECODE naming the field. */
int result_parse(const cJSON *json, struct cni_result *out, struct cni_err *err);
/* The result in version v (0.3.x/0.4.0 carry ips[].version, 1.1.0 adds
 * interface mtu/pciID). The caller deletes the tree. NULL + errno on OOM. */
cJSON *result_to_json(const struct cni_result *r, enum cni_version v);
/* Adds an interface, returns its index, -ENOSPC when full or -EINVAL when a
 * string does not fit. */
int result_add_iface(struct cni_result *r, const char *name, const char *mac,
		     const char *sandbox);
