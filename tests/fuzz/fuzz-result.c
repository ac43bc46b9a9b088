// SPDX-License-Identifier: Apache-2.0
/* Fuzz target: result_parse, then result_to_json in every version must parse back the same, field by field. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What survives every version: 1.1.0-only fields are dropped below it. */
static void strip(struct cni_result *r)
{
	int i;

	for (i = 0; i < r->n_ifaces; i++) {
		r->ifaces[i].mtu = 0;
		memset(r->ifaces[i].pci_id, 0, sizeof(r->ifaces[i].pci_id));
	}
}

/* What two results hold, field by field up to their counts: entries past
 * the counts are whatever memory held (result_clear zeroes only counts). */
static bool same_strs(const char (*a)[RESULT_STR_MAX], const char (*b)[RESULT_STR_MAX], int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(a[i], b[i]))
			return false;
	return true;
}

static bool same_ifaces(const struct cni_result *a, const struct cni_result *b)
{
	for (int i = 0; i < a->n_ifaces; i++) {
		const struct cni_iface *x = &a->ifaces[i], *y = &b->ifaces[i];

		if (strcmp(x->name, y->name) || strcmp(x->mac, y->mac) ||
		    strcmp(x->sandbox, y->sandbox) || strcmp(x->pci_id, y->pci_id) || x->mtu != y->mtu)
			return false;
	}
	return true;
}

static bool same_dns(const struct cni_dns *a, const struct cni_dns *b)
{
	return a->n_nameservers == b->n_nameservers && a->n_search == b->n_search &&
	       a->n_options == b->n_options && !strcmp(a->domain, b->domain) &&
	       same_strs(a->nameservers, b->nameservers, a->n_nameservers) &&
	       same_strs(a->search, b->search, a->n_search) &&
	       same_strs(a->options, b->options, a->n_options);
}

static bool same(const struct cni_result *a, const struct cni_result *b)
{
	if (a->n_ifaces != b->n_ifaces || a->n_ips != b->n_ips || a->n_routes != b->n_routes ||
	    !same_ifaces(a, b) || !same_dns(&a->dns, &b->dns))
		return false;
	for (int i = 0; i < a->n_ips; i++)
		if (!ipprefix_equal(&a->ips[i].address, &b->ips[i].address) ||
		    !ipaddr_equal(&a->ips[i].gateway, &b->ips[i].gateway) ||
		    a->ips[i].iface != b->ips[i].iface)
			return false;
	for (int i = 0; i < a->n_routes; i++)
		if (!ipprefix_equal(&a->routes[i].dst, &b->routes[i].dst) ||
		    !ipaddr_equal(&a->routes[i].gw, &b->routes[i].gw))
			return false;
	return true;
}

static void round_trip(const struct cni_result *r, enum cni_version v, struct cni_result *back)
{
	struct cni_err err = { 0 };
	cJSON *json = result_to_json(r, v), *again;
	char *text;

	if (!json)
		abort();
	text = cJSON_PrintUnformatted(json);
	again = text ? cJSON_Parse(text) : NULL;
	if (!again || result_parse(again, back, &err))
		abort();	/* we must read what we print */
	cJSON_Delete(again);
	free(text);
	cJSON_Delete(json);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *doc = fuzz_text(data, size);
	struct cni_result *r = malloc(sizeof(*r)), *back = malloc(sizeof(*back));
	struct cni_err err = { 0 };
	cJSON *root = NULL;
	int v;

	if (!doc || !r || !back)
		goto out;
	root = cJSON_Parse(doc);
	if (!root)
		goto out;
	if (result_parse(root, r, &err)) {
		if (err.code != CNI_ERR_DECODE)
			abort();
		goto out;
	}
	for (v = 0; v < CNI_VERSION_COUNT; v++) {
		round_trip(r, v, back);
		if (v == CNI_V110 && !same(r, back))
			abort();	/* 1.1.0 keeps everything */
	}
	strip(r);
	strip(back);
	round_trip(r, CNI_V040, back);
	if (!same(r, back))
		abort();
out:
	cJSON_Delete(root);
	free(back);
	free(r);
	free(doc);
	return 0;
}
