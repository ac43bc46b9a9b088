// SPDX-License-Identifier: Apache-2.0
/* CNI_ARGS parsing with libcni's rules: "K=V" pairs, unknown keys refused unless IgnoreUnknown. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "cniargs.h"

static const struct {
	const char *key;
	size_t field;
} keys[] = {
	{ "K8S_POD_NAME", offsetof(struct cni_args, pod_name) },
	{ "K8S_POD_NAMESPACE", offsetof(struct cni_args, pod_namespace) },
	{ "K8S_POD_UID", offsetof(struct cni_args, pod_uid) },
	{ "K8S_POD_INFRA_CONTAINER_ID", offsetof(struct cni_args, infra_id) },
	{ "MAC", offsetof(struct cni_args, mac) },
	{ "IP", offsetof(struct cni_args, ip) },
};

struct pair {
	const char *key;
	size_t key_len;
	const char *val;
	size_t val_len;
};

static bool key_is(const struct pair *p, const char *key)
{
	return p->key_len == strlen(key) && !strncmp(p->key, key, p->key_len);
}

static bool val_is(const struct pair *p, const char *val)
{
	return p->val_len == strlen(val) && !strncasecmp(p->val, val, p->val_len);
}

/* Splits "k=v" of length len; exactly one '=' and a non-empty key, as libcni. */
static int split_pair(const char *s, size_t len, struct pair *p, struct cni_err *err)
{
	const char *eq = memchr(s, '=', len);

	if (!eq || eq == s || memchr(eq + 1, '=', len - (size_t)(eq - s) - 1)) {
		cni_err_set(err, CNI_ERR_DECODE, "invalid CNI_ARGS pair \"%.*s\": want KEY=VALUE",
			    (int)(len > 128 ? 128 : len), s);
		return -EINVAL;
	}
	p->key = s;
	p->key_len = (size_t)(eq - s);
	p->val = eq + 1;
	p->val_len = len - p->key_len - 1;
	return 0;
}

/* 1: known key stored, 0: unknown key, -EINVAL: value too long. */
static int store(const struct pair *p, struct cni_args *out, struct cni_err *err)
{
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char *field = (char *)out + keys[i].field;

		if (!key_is(p, keys[i].key))
			continue;
		if (p->val_len >= CNIARGS_VAL_MAX) {
			cni_err_set(err, CNI_ERR_DECODE, "CNI_ARGS %s is too long (%zu bytes, max %d)",
				    keys[i].key, p->val_len, CNIARGS_VAL_MAX - 1);
			return -EINVAL;
		}
		memcpy(field, p->val, p->val_len);
		field[p->val_len] = '\0';
		return 1;
	}
	return 0;
}

static int ignore_unknown(const struct pair *p, bool *ignore, struct cni_err *err)
{
	if (val_is(p, "1") || val_is(p, "true"))
		*ignore = true;
	else if (val_is(p, "0") || val_is(p, "false"))
		*ignore = false;
	else {
		cni_err_set(err, CNI_ERR_DECODE, "invalid CNI_ARGS IgnoreUnknown \"%.*s\": want 1, true, 0 or false",
			    (int)(p->val_len > 64 ? 64 : p->val_len), p->val);
		return -EINVAL;
	}
	return 0;
}

int cniargs_parse(const char *s, struct cni_args *out, struct cni_err *err)
{
	struct pair unknown = { 0 };
	bool ignore = false;
	const char *end;
	struct pair p;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!s || !*s)
		return 0;
	for (;; s = end + 1) {
		end = strchrnul(s, ';');
		if (split_pair(s, (size_t)(end - s), &p, err))
			return -EINVAL;
		if (key_is(&p, "IgnoreUnknown")) {
			if (ignore_unknown(&p, &ignore, err))
				return -EINVAL;
		} else {
			ret = store(&p, out, err);
			if (ret < 0)
				return ret;
			if (ret == 0 && !unknown.key)
				unknown = p;
		}
		if (!*end)
			break;
	}
	if (unknown.key && !ignore) {
		cni_err_set(err, CNI_ERR_UNSUPPORTED, "unknown CNI_ARGS key \"%.*s\" (set IgnoreUnknown=1 to allow it)",
			    (int)(unknown.key_len > 64 ? 64 : unknown.key_len), unknown.key);
		return -EINVAL;
	}
	return 0;
}
