// SPDX-License-Identifier: Apache-2.0
/* The whereabouts-compatible ipam block, its file fallback and the requested addresses, read into struct pool_conf. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "cniargs.h"
#include "env.h"
#include "poolconf.h"

/* The block's key, else the file's. */
static const cJSON *get(const cJSON *ipam, const cJSON *file, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(ipam, key);

	if (!v || cJSON_IsNull(v))
		v = cJSON_GetObjectItemCaseSensitive(file, key);
	return cJSON_IsNull(v) ? NULL : v;
}

static int copy_str(const cJSON *v, const char *key, char *out, size_t size, struct cni_err *err)
{
	if (!v)
		return 0;
	if (!cJSON_IsString(v)) {
		cni_err_set(err, CNI_ERR_DECODE, "ipam key \"%s\" must be a string", key);
		return -EINVAL;
	}
	if (strlen(v->valuestring) >= size) {
		cni_err_set(err, CNI_ERR_CONFIG, "ipam key \"%s\" is too long: \"%.64s...\"", key,
			    v->valuestring);
		return -EINVAL;
	}
	strcpy(out, v->valuestring);
	return 0;
}

const char *poolconf_file_path(const cJSON *ipam, bool *explicit)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(ipam, "configuration_path");

	*explicit = cJSON_IsString(v);
	return *explicit ? v->valuestring : POOLCONF_DEFAULT_FILE;
}

/* One range block: range, range_start, range_end, exclude, gateway. */
static int read_range(const cJSON *obj, const cJSON *file, const char *gw_default,
		      struct range_conf *rc, struct cni_err *err)
{
	const cJSON *ex, *e;
	const char *gw;

	memset(rc, 0, sizeof(*rc));
	if (copy_str(get(obj, file, "range"), "range", rc->range, sizeof(rc->range), err) ||
	    copy_str(get(obj, file, "range_start"), "range_start", rc->start, sizeof(rc->start), err) ||
	    copy_str(get(obj, file, "range_end"), "range_end", rc->end, sizeof(rc->end), err) ||
	    copy_str(cJSON_GetObjectItemCaseSensitive(obj, "gateway"), "gateway", rc->gateway,
		     sizeof(rc->gateway), err))
		return -EINVAL;
	if (!rc->range[0]) {
		cni_err_set(err, CNI_ERR_CONFIG, "ipam key \"range\" is missing");
		return -EINVAL;
	}
	/* The block-wide gateway serves every range of its family. */
	gw = gw_default;
	if (!rc->gateway[0] && gw && !strchr(gw, ':') == !strchr(rc->range, ':'))
		snprintf(rc->gateway, sizeof(rc->gateway), "%s", gw);
	ex = get(obj, file, "exclude");
	if (ex && !cJSON_IsArray(ex)) {
		cni_err_set(err, CNI_ERR_DECODE, "ipam key \"exclude\" must be an array of strings");
		return -EINVAL;
	}
	cJSON_ArrayForEach(e, ex) {
		if (rc->n_exclude == RANGE_MAX_SKIP - 1) {
			cni_err_set(err, CNI_ERR_CONFIG, "too many exclude entries for range %s (max %d)",
				    rc->range, RANGE_MAX_SKIP - 1);
			return -EINVAL;
		}
		if (copy_str(e, "exclude", rc->exclude[rc->n_exclude], RANGE_TEXT_MAX, err))
			return -EINVAL;
		rc->n_exclude++;
	}
	return 0;
}

/* The spans are built on the stack and kept at their size: a fixed
 * RANGE_MAX_SKIP per range in the config would be 64 KiB to zero on every ADD. */
static int add_range(struct pool_conf *c, const struct range_conf *rc, struct cni_err *err)
{
	struct pool_span spans[RANGE_MAX_SKIP], *skip;
	struct pool_range *r = &c->ranges[c->n_ranges];

	if (c->n_ranges == POOL_MAX_RANGES) {
		cni_err_set(err, CNI_ERR_CONFIG, "too many ranges (max %d)", POOL_MAX_RANGES);
		return -EINVAL;
	}
	if (range_build(rc, c->network, c->shared, r, spans, err))
		return -EINVAL;
	skip = malloc((r->n_skip ? r->n_skip : 1) * sizeof(*skip));
	if (!skip) {
		cni_err_set(err, CNI_ERR_IO, "out of memory");
		return -ENOMEM;
	}
	r->skip = memcpy(skip, spans, r->n_skip * sizeof(*skip));
	/* range_build has checked it */
	if (rc->gateway[0])
		ipaddr_parse(rc->gateway, &c->gateway[c->n_ranges]);
	c->n_ranges++;
	return 0;
}

/* The top-level range first (whereabouts does the same), then ipRanges. */
static int read_ranges(const cJSON *ipam, const cJSON *file, struct pool_conf *c, struct cni_err *err)
{
	const cJSON *list = get(ipam, file, "ipRanges"), *e;
	char gw[RANGE_TEXT_MAX] = "";
	struct range_conf *rc = malloc(sizeof(*rc));
	int ret = -ENOMEM;

	if (!rc) {
		cni_err_set(err, CNI_ERR_IO, "out of memory");
		goto out;
	}
	ret = -EINVAL;
	if (copy_str(get(ipam, file, "gateway"), "gateway", gw, sizeof(gw), err))
		goto out;
	if (get(ipam, file, "range") && (read_range(ipam, file, gw[0] ? gw : NULL, rc, err) ||
					 add_range(c, rc, err)))
		goto out;
	if (list && !cJSON_IsArray(list)) {
		cni_err_set(err, CNI_ERR_DECODE, "ipam key \"ipRanges\" must be an array");
		goto out;
	}
	cJSON_ArrayForEach(e, list) {
		if (!cJSON_IsObject(e)) {
			cni_err_set(err, CNI_ERR_DECODE, "ipam key \"ipRanges\" must hold objects");
			goto out;
		}
		if (read_range(e, NULL, gw[0] ? gw : NULL, rc, err) || add_range(c, rc, err))
			goto out;
	}
	if (!c->n_ranges) {
		cni_err_set(err, CNI_ERR_CONFIG, "ipam key \"range\" is missing (nor any ipRanges)");
		goto out;
	}
	ret = 0;
out:
	free(rc);
	return ret;
}

static int read_routes(const cJSON *v, struct pool_conf *c, struct cni_err *err)
{
	const cJSON *e;

	if (v && !cJSON_IsArray(v))
		goto bad;
	cJSON_ArrayForEach(e, v) {
		const cJSON *dst = cJSON_GetObjectItemCaseSensitive(e, "dst");
		const cJSON *gw = cJSON_GetObjectItemCaseSensitive(e, "gw");
		struct cni_route *r = &c->routes[c->n_routes];

		if (c->n_routes == RESULT_MAX_ROUTES) {
			cni_err_set(err, CNI_ERR_CONFIG, "too many routes (max %d)", RESULT_MAX_ROUTES);
			return -EINVAL;
		}
		if (!cJSON_IsString(dst) || (gw && !cJSON_IsString(gw)))
			goto bad;
		if (ipprefix_parse(dst->valuestring, &r->dst)) {
			cni_err_set(err, CNI_ERR_CONFIG, "invalid route dst \"%s\"", dst->valuestring);
			return -EINVAL;
		}
		if (gw) {
			if (ipaddr_parse(gw->valuestring, &r->gw)) {
				cni_err_set(err, CNI_ERR_CONFIG, "invalid route gw \"%s\"", gw->valuestring);
				return -EINVAL;
			}
		}
		c->n_routes++;
	}
	return 0;
bad:
	cni_err_set(err, CNI_ERR_DECODE, "ipam key \"routes\" must be an array of {\"dst\", \"gw\"}");
	return -EINVAL;
}

static int read_strings(const cJSON *v, const char *key, char (*out)[RESULT_STR_MAX], int *n,
			struct cni_err *err)
{
	const cJSON *e;

	if (v && !cJSON_IsArray(v)) {
		cni_err_set(err, CNI_ERR_DECODE, "dns key \"%s\" must be an array of strings", key);
		return -EINVAL;
	}
	cJSON_ArrayForEach(e, v) {
		if (*n == RESULT_MAX_DNS) {
			cni_err_set(err, CNI_ERR_CONFIG, "too many dns %s (max %d)", key, RESULT_MAX_DNS);
			return -EINVAL;
		}
		if (copy_str(e, key, out[*n], RESULT_STR_MAX, err))
			return -EINVAL;
		(*n)++;
	}
	return 0;
}

static int read_dns(const cJSON *v, struct cni_dns *d, struct cni_err *err)
{
	if (!v)
		return 0;
	if (!cJSON_IsObject(v)) {
		cni_err_set(err, CNI_ERR_DECODE, "ipam key \"dns\" must be an object");
		return -EINVAL;
	}
	if (read_strings(cJSON_GetObjectItemCaseSensitive(v, "nameservers"), "nameservers",
			 d->nameservers, &d->n_nameservers, err) ||
	    read_strings(cJSON_GetObjectItemCaseSensitive(v, "search"), "search", d->search,
			 &d->n_search, err) ||
	    read_strings(cJSON_GetObjectItemCaseSensitive(v, "options"), "options", d->options,
			 &d->n_options, err) ||
	    copy_str(cJSON_GetObjectItemCaseSensitive(v, "domain"), "domain", d->domain,
		     sizeof(d->domain), err))
		return -EINVAL;
	return 0;
}

static int read_store(const cJSON *v, struct pool_conf *c, struct cni_err *err)
{
	if (!v)
		return 0;
	if (cJSON_IsObject(v)) {
		if (copy_str(cJSON_GetObjectItemCaseSensitive(v, "type"), "store.type", c->store,
			     sizeof(c->store), err))
			return -EINVAL;
		c->store_obj = cJSON_Duplicate(v, 1);
		if (!c->store_obj) {
			cni_err_set(err, CNI_ERR_IO, "out of memory");
			return -ENOMEM;
		}
		return 0;
	}
	return copy_str(v, "store", c->store, sizeof(c->store), err);
}

static int read_scalars(const cJSON *ipam, const cJSON *file, struct pool_conf *c, struct cni_err *err)
{
	const cJSON *v;

	if (copy_str(get(ipam, file, "network_name"), "network_name", c->network, sizeof(c->network), err) ||
	    copy_str(get(ipam, file, "dataDir"), "dataDir", c->data_dir, sizeof(c->data_dir), err) ||
	    copy_str(get(ipam, file, "log_file"), "log_file", c->log_file, sizeof(c->log_file), err) ||
	    copy_str(get(ipam, file, "log_level"), "log_level", c->log_level, sizeof(c->log_level), err))
		return -EINVAL;
	if (!c->network[0])
		strcpy(c->network, POOLCONF_DEFAULT_NETWORK);
	else if (!env_valid_id(c->network) || strlen(c->network) > POOLCONF_NETWORK_MAX) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid network_name \"%s\": want %s, at most %d bytes",
			    c->network, "[a-zA-Z0-9][a-zA-Z0-9_.-]*", POOLCONF_NETWORK_MAX);
		return -EINVAL;
	}
	v = get(ipam, file, "enable_overlapping_ranges");
	if (v && !cJSON_IsBool(v)) {
		cni_err_set(err, CNI_ERR_DECODE, "ipam key \"enable_overlapping_ranges\" must be a boolean");
		return -EINVAL;
	}
	c->shared = !v || cJSON_IsTrue(v);
	v = get(ipam, file, "release_hold_seconds");
	if (v && (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 86400 * 365 ||
		  v->valuedouble != (long)v->valuedouble)) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid release_hold_seconds: want an integer 0..31536000");
		return -EINVAL;
	}
	c->hold_seconds = v ? (long)v->valuedouble : 0;
	return 0;
}

/* node_slice_size as whereabouts reads it: one leading "/" dropped, then an
 * integer as Go's strconv.Atoi takes it ("/26", "26", "+26"); "" = none. */
static int read_slice_size(const cJSON *v, struct pool_conf *c, struct cni_err *err)
{
	const char *s = c->slice_size;
	char *end;
	long n;

	if (copy_str(v, "node_slice_size", c->slice_size, sizeof(c->slice_size), err))
		return -EINVAL;
	if (!*s)
		return 0;
	s += *s == '/';
	n = strtol(s, &end, 10);
	if (!*s || *end || s[*s == '+' || *s == '-'] < '0' || s[*s == '+' || *s == '-'] > '9' ||
	    n < -1000 || n > 1000) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid ipam key \"node_slice_size\" \"%s\": want a "
			    "prefix length such as \"/26\"", c->slice_size);
		return -EINVAL;
	}
	c->slice_len = n > 0 ? (int)n : -1;
	return 0;
}

/* Each range divides into slices of that length, on the etcd store. */
static int check_slices(struct pool_conf *c, struct cni_err *err)
{
	const char *sz = c->slice_size;

	if (!sz[0])
		return 0;
	if (strcmp(c->store, "etcd")) {
		cni_err_set(err, CNI_ERR_CONFIG, "ipam key \"node_slice_size\" \"%s\": node slices "
			    "need the etcd store, not \"%s\"", sz, c->store[0] ? c->store : "local");
		return -EINVAL;
	}
	for (int i = 0; i < c->n_ranges; i++) {
		const struct pool_range *r = &c->ranges[i];
		int max = r->family == AF_INET ? 32 : 128;

		if (c->slice_len > max) {
			cni_err_set(err, CNI_ERR_CONFIG, "ipam key \"node_slice_size\" \"%s\" is longer "
				    "than range %s allows (/%d)", sz, r->pool, max);
			return -EINVAL;
		}
		if (c->slice_len < r->prefix_len) {
			cni_err_set(err, CNI_ERR_CONFIG, "ipam key \"node_slice_size\" \"%s\" is shorter "
				    "than range %s's prefix (/%d)", sz, r->pool, r->prefix_len);
			return -EINVAL;
		}
	}
	return 0;
}

/* Copied as they are: judged only by ADD (poolconf_request). */
static int read_requested(const cJSON *runtime, struct pool_conf *c, struct cni_err *err)
{
	const cJSON *ips = cJSON_GetObjectItemCaseSensitive(runtime, "ips"), *e;
	int n = 0;

	cJSON_ArrayForEach(e, ips)
		n++;
	if (!n)
		return 0;
	c->requested = calloc((size_t)n, sizeof(*c->requested));
	if (!c->requested)
		goto oom;
	cJSON_ArrayForEach(e, ips) {
		if (cJSON_IsString(e) && !(c->requested[c->n_requested] = strdup(e->valuestring)))
			goto oom;
		c->n_requested++;
	}
	return 0;
oom:
	cni_err_set(err, CNI_ERR_IO, "out of memory");
	return -ENOMEM;
}

int poolconf_parse(const cJSON *ipam, const cJSON *file, const cJSON *runtime,
		   struct pool_conf *c, struct cni_err *err)
{
	int ret = -EINVAL;

	memset(c, 0, sizeof(*c));
	strcpy(c->data_dir, POOLCONF_DEFAULT_DATA_DIR);
	if (!cJSON_IsObject(ipam)) {
		cni_err_set(err, CNI_ERR_CONFIG, "ipam block is missing");
		goto out;
	}
	if (read_scalars(ipam, file, c, err) ||
	    read_store(get(ipam, file, "store"), c, err) ||
	    read_routes(get(ipam, file, "routes"), c, err) ||
	    read_dns(get(ipam, file, "dns"), &c->dns, err) ||
	    read_ranges(ipam, file, c, err) ||
	    read_slice_size(get(ipam, file, "node_slice_size"), c, err) ||
	    check_slices(c, err) ||
	    read_requested(runtime, c, err))
		goto out;
	ret = 0;
out:
	if (ret)
		poolconf_release(c);
	return ret;
}

int poolconf_parse_store(const cJSON *ipam, const cJSON *file, struct pool_conf *c,
		     struct cni_err *err)
{
	memset(c, 0, sizeof(*c));
	strcpy(c->data_dir, POOLCONF_DEFAULT_DATA_DIR);
	if (copy_str(get(ipam, file, "dataDir"), "dataDir", c->data_dir, sizeof(c->data_dir), err) ||
	    read_store(get(ipam, file, "store"), c, err)) {
		poolconf_release(c);
		return -EINVAL;
	}
	return 0;
}

void poolconf_release(struct pool_conf *c)
{
	if (!c)
		return;
	cJSON_Delete(c->store_obj);
	c->store_obj = NULL;
	for (int i = 0; i < c->n_ranges; i++)
		free((void *)c->ranges[i].skip);
	c->n_ranges = 0;
	for (int i = 0; i < c->n_requested; i++)
		free(c->requested[i]);
	free(c->requested);
	c->requested = NULL;
	c->n_requested = 0;
}

/* One requested address onto the range that holds it. */
static int want(struct pool_conf *c, const char *text, struct cni_err *err)
{
	char buf[RANGE_TEXT_MAX];
	char *slash;
	ipaddr_u128 a;
	int fam;

	snprintf(buf, sizeof(buf), "%s", text);
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	if (ipaddr_parse_u128(buf, &fam, &a)) {
		cni_err_set(err, CNI_ERR_ADDR_TAKEN, "invalid requested address \"%s\"", text);
		return -EINVAL;
	}
	for (int i = 0; i < c->n_ranges; i++) {
		struct pool_range *r = &c->ranges[i];

		if (r->family != fam || a < r->span.first || a > r->span.last)
			continue;
		if (!range_contains(r, a)) {
			cni_err_set(err, CNI_ERR_ADDR_TAKEN, "requested address %s is excluded from %s",
				    buf, r->desc);
			return -EADDRNOTAVAIL;
		}
		if (r->has_want) {
			cni_err_set(err, CNI_ERR_ADDR_TAKEN, "requested address %s: range %s already has one",
				    buf, r->pool);
			return -EINVAL;
		}
		r->has_want = true;
		r->want = a;
		return 0;
	}
	cni_err_set(err, CNI_ERR_ADDR_TAKEN, "requested address %s is not in any range", buf);
	return -EADDRNOTAVAIL;
}

int poolconf_request(struct pool_conf *c, const char *args_ip, struct cni_err *err)
{
	char list[CNIARGS_VAL_MAX], *tok, *save = NULL;

	for (int i = 0; i < c->n_requested; i++) {
		if (!c->requested[i]) {
			cni_err_set(err, CNI_ERR_DECODE, "runtimeConfig.ips must hold strings");
			return -EINVAL;
		}
		if (want(c, c->requested[i], err))
			return -EINVAL;
	}
	snprintf(list, sizeof(list), "%s", args_ip);
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (want(c, tok, err))
			return -EINVAL;
	return 0;
}

void poolconf_result(const struct pool_conf *c, const struct pool_lease *lease, struct cni_result *out)
{
	result_clear(out);
	for (int i = 0; i < lease->n_addrs && i < RESULT_MAX_IPS; i++) {
		const struct pool_addr *a = &lease->addrs[i];
		struct cni_ip *ip = &out->ips[out->n_ips++];

		memset(ip, 0, sizeof(*ip));
		ipaddr_from_u128(a->family, a->addr, &ip->address.addr);
		ip->address.len = a->prefix_len;
		ip->iface = -1;
		if (i < c->n_ranges)
			ip->gateway = c->gateway[i];
	}
	memcpy(out->routes, c->routes, (size_t)c->n_routes * sizeof(c->routes[0]));
	out->n_routes = c->n_routes;
	out->dns = c->dns;
}
