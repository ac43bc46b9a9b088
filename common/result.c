// SPDX-License-Identifier: Apache-2.0
/* CNI results: any supported version in, any supported version out. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include "result.h"

#define WHERE_MAX 64

/* Absent: 0 and buf untouched (-ENOENT if required). */
static int get_str(const cJSON *obj, const char *key, const char *where, char *buf, size_t size,
		   bool required, struct cni_err *err)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
	size_t len;

	if (!item) {
		if (!required)
			return 0;
		cni_err_set(err, CNI_ERR_DECODE, "invalid result: %s%s is missing", where, key);
		return -ENOENT;
	}
	if (!cJSON_IsString(item)) {
		cni_err_set(err, CNI_ERR_DECODE, "invalid result: %s%s is not a string", where, key);
		return -EINVAL;
	}
	len = strlen(item->valuestring);
	if (len >= size) {
		cni_err_set(err, CNI_ERR_DECODE, "invalid result: %s%s is too long (%zu bytes)", where, key, len);
		return -EINVAL;
	}
	memcpy(buf, item->valuestring, len + 1);
	return 0;
}

static int get_int(const cJSON *obj, const char *key, const char *where, int min, int max, int *out,
		   struct cni_err *err)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
	double d;

	if (!item)
		return 0;
	d = cJSON_IsNumber(item) ? item->valuedouble : NAN;
	if (!(d >= min && d <= max) || d != (double)(int)d) {
		cni_err_set(err, CNI_ERR_DECODE, "invalid result: %s%s is not an integer in [%d, %d]",
			    where, key, min, max);
		return -EINVAL;
	}
	*out = (int)d;
	return 0;
}

static int get_prefix(const cJSON *obj, const char *key, const char *where, struct ipprefix *out,
		      struct cni_err *err)
{
	char buf[IPADDR_STR_MAX];

	if (get_str(obj, key, where, buf, sizeof(buf), true, err))
		return -EINVAL;
	if (ipprefix_parse(buf, out)) {
		cni_err_set(err, CNI_ERR_DECODE, "invalid result: %s%s \"%s\" is not an address/prefix",
			    where, key, buf);
		return -EINVAL;
	}
	return 0;
}

/* Absent: family stays 0. */
static int get_addr(const cJSON *obj, const char *key, const char *where, struct ipaddr *out,
		    struct cni_err *err)
{
	char buf[IPADDR_STR_MAX] = "";

	if (get_str(obj, key, where, buf, sizeof(buf), false, err))
		return -EINVAL;
	if (buf[0] && ipaddr_parse(buf, out)) {
		cni_err_set(err, CNI_ERR_DECODE, "invalid result: %s%s \"%s\" is not an IP address",
			    where, key, buf);
		return -EINVAL;
	}
	return 0;
}

/* The array under key (absent: NULL, 0), at most max entries. */
static int get_array(const cJSON *obj, const char *key, const char *where, int max,
		     const cJSON **out, struct cni_err *err)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);

	*out = NULL;
	if (!item || cJSON_IsNull(item))
		return 0;
	if (!cJSON_IsArray(item)) {
		cni_err_set(err, CNI_ERR_DECODE, "invalid result: %s%s is not an array", where, key);
		return -EINVAL;
	}
	if (cJSON_GetArraySize(item) > max) {
		cni_err_set(err, CNI_ERR_DECODE, "invalid result: too many %s%s (max %d)", where, key, max);
		return -EINVAL;
	}
	*out = item;
	return 0;
}

static int check_object(const cJSON *item, const char *where, struct cni_err *err)
{
	if (cJSON_IsObject(item))
		return 0;
	cni_err_set(err, CNI_ERR_DECODE, "invalid result: %.*s is not an object",
		    (int)strcspn(where, "."), where);
	return -EINVAL;
}

static int parse_iface(const cJSON *j, const char *where, struct cni_iface *out, struct cni_err *err)
{
	memset(out, 0, sizeof(*out));
	if (check_object(j, where, err) ||
	    get_str(j, "name", where, out->name, sizeof(out->name), true, err) ||
	    get_str(j, "mac", where, out->mac, sizeof(out->mac), false, err) ||
	    get_str(j, "sandbox", where, out->sandbox, sizeof(out->sandbox), false, err) ||
	    get_str(j, "pciID", where, out->pci_id, sizeof(out->pci_id), false, err) ||
	    get_int(j, "mtu", where, 0, 65535, &out->mtu, err))
		return -EINVAL;
	return 0;
}

static int parse_ip(const cJSON *j, const char *where, int n_ifaces, struct cni_ip *out,
		    struct cni_err *err)
{
	char version[4] = "";

	memset(out, 0, sizeof(*out));
	out->iface = -1;
	if (check_object(j, where, err) ||
	    get_str(j, "version", where, version, sizeof(version), false, err) ||
	    get_prefix(j, "address", where, &out->address, err) ||
	    get_addr(j, "gateway", where, &out->gateway, err) ||
	    get_int(j, "interface", where, 0, n_ifaces - 1, &out->iface, err))
		return -EINVAL;
	if (version[0] && strcmp(version, out->address.addr.family == AF_INET ? "4" : "6")) {
		cni_err_set(err, CNI_ERR_DECODE, "invalid result: %sversion \"%s\" does not match the address",
			    where, version);
		return -EINVAL;
	}
	if (out->gateway.family && out->gateway.family != out->address.addr.family) {
		cni_err_set(err, CNI_ERR_DECODE, "invalid result: %sgateway is not in the address family",
			    where);
		return -EINVAL;
	}
	return 0;
}

static int parse_route(const cJSON *j, const char *where, struct cni_route *out, struct cni_err *err)
{
	memset(out, 0, sizeof(*out));
	if (check_object(j, where, err) ||
	    get_prefix(j, "dst", where, &out->dst, err) ||
	    get_addr(j, "gw", where, &out->gw, err))
		return -EINVAL;
	return 0;
}

static int parse_strings(const cJSON *dns, const char *key, char list[][RESULT_STR_MAX], int *n,
			 struct cni_err *err)
{
	const cJSON *arr, *item;
	char where[WHERE_MAX];

	if (get_array(dns, key, "dns.", RESULT_MAX_DNS, &arr, err))
		return -EINVAL;
	cJSON_ArrayForEach(item, arr) {
		if (!cJSON_IsString(item) || strlen(item->valuestring) >= RESULT_STR_MAX) {
			snprintf(where, sizeof(where), "dns.%s[%d]", key, *n);
			cni_err_set(err, CNI_ERR_DECODE, "invalid result: %s is not a string of at most %d bytes",
				    where, RESULT_STR_MAX - 1);
			return -EINVAL;
		}
		strcpy(list[(*n)++], item->valuestring);
	}
	return 0;
}

static int parse_dns(const cJSON *j, struct cni_dns *out, struct cni_err *err)
{
	if (!j || cJSON_IsNull(j))
		return 0;
	if (check_object(j, "dns", err) ||
	    parse_strings(j, "nameservers", out->nameservers, &out->n_nameservers, err) ||
	    get_str(j, "domain", "dns.", out->domain, sizeof(out->domain), false, err) ||
	    parse_strings(j, "search", out->search, &out->n_search, err) ||
	    parse_strings(j, "options", out->options, &out->n_options, err))
		return -EINVAL;
	return 0;
}

void result_clear(struct cni_result *r)
{
	r->n_ifaces = r->n_ips = r->n_routes = 0;
	r->dns.n_nameservers = r->dns.n_search = r->dns.n_options = 0;
	r->dns.domain[0] = '\0';
}

int result_parse(const cJSON *json, struct cni_result *out, struct cni_err *err)
{
	const cJSON *ifaces, *ips, *routes, *item;
	char where[WHERE_MAX];

	result_clear(out);
	if (check_object(json, "result", err) ||
	    get_array(json, "interfaces", "", RESULT_MAX_IFACES, &ifaces, err) ||
	    get_array(json, "ips", "", RESULT_MAX_IPS, &ips, err) ||
	    get_array(json, "routes", "", RESULT_MAX_ROUTES, &routes, err))
		goto fail;
	cJSON_ArrayForEach(item, ifaces) {
		snprintf(where, sizeof(where), "interfaces[%d].", out->n_ifaces);
		if (parse_iface(item, where, &out->ifaces[out->n_ifaces++], err))
			goto fail;
	}
	cJSON_ArrayForEach(item, ips) {
		snprintf(where, sizeof(where), "ips[%d].", out->n_ips);
		if (parse_ip(item, where, out->n_ifaces, &out->ips[out->n_ips++], err))
			goto fail;
	}
	cJSON_ArrayForEach(item, routes) {
		snprintf(where, sizeof(where), "routes[%d].", out->n_routes);
		if (parse_route(item, where, &out->routes[out->n_routes++], err))
			goto fail;
	}
	if (parse_dns(cJSON_GetObjectItemCaseSensitive(json, "dns"), &out->dns, err))
		goto fail;
	return 0;
fail:
	result_clear(out);
	return -EINVAL;
}

static bool add_str(cJSON *obj, const char *key, const char *val)
{
	return !val[0] || cJSON_AddStringToObject(obj, key, val);
}

static bool add_addr(cJSON *obj, const char *key, const struct ipaddr *a)
{
	char buf[IPADDR_STR_MAX];

	ipaddr_format(a, buf);
	return add_str(obj, key, buf);
}

static bool add_prefix(cJSON *obj, const char *key, const struct ipprefix *p)
{
	char buf[IPADDR_STR_MAX];

	ipprefix_format(p, buf);
	return add_str(obj, key, buf);
}

/* A new object appended to arr, NULL on OOM. */
static cJSON *add_object(cJSON *arr)
{
	cJSON *obj = cJSON_CreateObject();

	if (obj && !cJSON_AddItemToArray(arr, obj)) {
		cJSON_Delete(obj);
		return NULL;
	}
	return obj;
}

static bool add_iface(cJSON *arr, const struct cni_iface *i, enum cni_version v)
{
	cJSON *obj = add_object(arr);

	/* name is the one required key, so it is printed even when empty */
	if (!obj || !cJSON_AddStringToObject(obj, "name", i->name) || !add_str(obj, "mac", i->mac))
		return false;
	if (v >= CNI_V110 && i->mtu && !cJSON_AddNumberToObject(obj, "mtu", i->mtu))
		return false;
	if (!add_str(obj, "sandbox", i->sandbox))
		return false;
	return v < CNI_V110 || add_str(obj, "pciID", i->pci_id);
}

static bool add_ip(cJSON *arr, const struct cni_ip *ip, enum cni_version v)
{
	cJSON *obj = add_object(arr);

	if (!obj)
		return false;
	if (v < CNI_V100 &&
	    !cJSON_AddStringToObject(obj, "version", ip->address.addr.family == AF_INET ? "4" : "6"))
		return false;
	if (ip->iface >= 0 && !cJSON_AddNumberToObject(obj, "interface", ip->iface))
		return false;
	return add_prefix(obj, "address", &ip->address) && add_addr(obj, "gateway", &ip->gateway);
}

static bool add_route(cJSON *arr, const struct cni_route *r)
{
	cJSON *obj = add_object(arr);

	return obj && add_prefix(obj, "dst", &r->dst) && add_addr(obj, "gw", &r->gw);
}

static bool add_strings(cJSON *obj, const char *key, const char list[][RESULT_STR_MAX], int n)
{
	cJSON *arr;
	int i;

	if (!n)
		return true;
	arr = cJSON_AddArrayToObject(obj, key);
	if (!arr)
		return false;
	for (i = 0; i < n; i++) {
		cJSON *s = cJSON_CreateString(list[i]);

		if (!s || !cJSON_AddItemToArray(arr, s)) {
			cJSON_Delete(s);
			return false;
		}
	}
	return true;
}

static bool add_dns(cJSON *root, const struct cni_dns *d)
{
	cJSON *obj;

	if (!d->n_nameservers && !d->domain[0] && !d->n_search && !d->n_options)
		return true;
	obj = cJSON_AddObjectToObject(root, "dns");
	return obj && add_strings(obj, "nameservers", d->nameservers, d->n_nameservers) &&
	       add_str(obj, "domain", d->domain) &&
	       add_strings(obj, "search", d->search, d->n_search) &&
	       add_strings(obj, "options", d->options, d->n_options);
}

/* The array under key, only when there is something to put in it. */
static bool add_list(cJSON *root, const char *key, int n, cJSON **arr)
{
	*arr = NULL;
	return !n || (*arr = cJSON_AddArrayToObject(root, key));
}

cJSON *result_to_json(const struct cni_result *r, enum cni_version v)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *ifaces, *ips, *routes;
	int i;

	if (!root || !cJSON_AddStringToObject(root, "cniVersion", version_str(v)) ||
	    !add_list(root, "interfaces", r->n_ifaces, &ifaces) ||
	    !add_list(root, "ips", r->n_ips, &ips) ||
	    !add_list(root, "routes", r->n_routes, &routes))
		goto fail;
	for (i = 0; i < r->n_ifaces; i++)
		if (!add_iface(ifaces, &r->ifaces[i], v))
			goto fail;
	for (i = 0; i < r->n_ips; i++)
		if (!add_ip(ips, &r->ips[i], v))
			goto fail;
	for (i = 0; i < r->n_routes; i++)
		if (!add_route(routes, &r->routes[i]))
			goto fail;
	if (!add_dns(root, &r->dns))
		goto fail;
	return root;
fail:
	cJSON_Delete(root);
	errno = ENOMEM;
	return NULL;
}

int result_add_iface(struct cni_result *r, const char *name, const char *mac, const char *sandbox)
{
	struct cni_iface *i;

	if (r->n_ifaces >= RESULT_MAX_IFACES)
		return -ENOSPC;
	if (strlen(name) >= sizeof(i->name) || (mac && strlen(mac) >= sizeof(i->mac)) ||
	    (sandbox && strlen(sandbox) >= sizeof(i->sandbox)))
		return -EINVAL;
	i = &r->ifaces[r->n_ifaces];
	memset(i, 0, sizeof(*i));
	strcpy(i->name, name);
	strcpy(i->mac, mac ? mac : "");
	strcpy(i->sandbox, sandbox ? sandbox : "");
	return r->n_ifaces++;
}
