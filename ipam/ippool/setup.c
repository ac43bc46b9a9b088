// SPDX-License-Identifier: Apache-2.0
/* Shared start of every verb: stdin config + configuration file, log, store. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "confpath.h"
#include "safeopen.h"
#include "log.h"
#include "setup.h"

#define FILE_MAX (1 << 20)

/* A file the config names: reached without a symlink, a regular file. */
static FILE *open_explicit(const char *path)
{
	int fd = safeopen_file(path, O_RDONLY, 0);
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f)
		close(fd);
	return f;
}

/* The configuration file as JSON: NULL without error when absent and not
 * explicitly named. */
static int read_conf_file(const cJSON *ipam, cJSON **out, struct cni_err *err)
{
	bool explicit;
	const char *path = poolconf_file_path(ipam, &explicit);
	FILE *f = explicit ? open_explicit(path) : fopen(path, "re");
	char *buf = NULL;
	size_t n;
	int ret = 0;

	*out = NULL;
	if (!f) {
		if (errno == ENOENT && !explicit)
			return 0;
		cni_err_set(err, CNI_ERR_CONFIG, "cannot read configuration file %s: %s", path, strerror(errno));
		return -errno;
	}
	buf = malloc(FILE_MAX + 1);
	if (!buf) {
		ret = -ENOMEM;
		cni_err_set(err, CNI_ERR_IO, "out of memory");
		goto out;
	}
	n = fread(buf, 1, FILE_MAX, f);
	buf[n] = '\0';
	*out = cJSON_Parse(buf);
	if (ferror(f) || n == FILE_MAX || !cJSON_IsObject(*out)) {
		ret = -EINVAL;
		cni_err_set(err, CNI_ERR_DECODE, "configuration file %s is not a JSON object", path);
		cJSON_Delete(*out);
		*out = NULL;
	}
out:
	free(buf);
	fclose(f);
	return ret;
}

int setup_tool_conf(const char *conf_path, struct pool_conf *c, struct cni_err *err)
{
	cJSON *ipam = cJSON_CreateObject(), *file = NULL;
	int ret = -ENOMEM;

	if (!ipam || (conf_path && !cJSON_AddStringToObject(ipam, "configuration_path", conf_path))) {
		cni_err_set(err, CNI_ERR_IO, "out of memory");
		goto out;
	}
	ret = read_conf_file(ipam, &file, err);
	if (ret == 0)
		ret = poolconf_parse_store(ipam, file, c, err);
out:
	cJSON_Delete(file);
	cJSON_Delete(ipam);
	return ret;
}

int setup_store(const struct pool_conf *c, bool nosync, struct pool_store **out, struct cni_err *err)
{
	struct pool_store_cfg cfg = {
		.hold_seconds = c->hold_seconds,
		.slice_len = c->slice_len,
		.nosync = nosync,
		.store = c->store_obj,
	};

	snprintf(cfg.data_dir, sizeof(cfg.data_dir), "%s", c->data_dir);
	return pool_store_open(c->store, &cfg, out, err);
}

int setup_tool_store(const char *conf_path, const char *data_dir, struct pool_conf *c,
		     struct pool_store **out, struct cni_err *err)
{
	int ret = setup_tool_conf(conf_path, c, err);

	*out = NULL;
	if (ret)
		return ret;
	if (data_dir && snprintf(c->data_dir, sizeof(c->data_dir), "%s", data_dir) >=
			(int)sizeof(c->data_dir)) {
		cni_err_set(err, CNI_ERR_CONFIG, "--data-dir \"%.64s...\" is too long", data_dir);
		return -EINVAL;
	}
	return setup_store(c, false, out, err);
}

void setup_tool_error(const char *tool, const struct cni_err *err)
{
	fprintf(stderr, "ippool %s: %s (code %d)\n", tool, err->code ? err->msg : "out of memory",
		err->code ? err->code : CNI_ERR_IO);
}

/* configuration_path, before it is read: a NAD names it. */
static int confine_file(cJSON *ipam, struct cni_err *err)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(ipam, "configuration_path");
	char path[PATH_MAX];

	if (!cJSON_IsString(v))
		return 0;
	if (snprintf(path, sizeof(path), "%s", v->valuestring) >= (int)sizeof(path)) {
		cni_err_set(err, CNI_ERR_CONFIG, "configuration_path \"%.64s...\" is too long",
			    v->valuestring);
		return -EINVAL;
	}
	if (confpath_check("configuration_path", path, sizeof(path), CONFPATH_READ_FILE, err))
		return -EINVAL;
	return cJSON_SetValuestring(v, path) ? 0 : -ENOMEM;
}

/* Whether text holds one of the strings in node. */
static bool quotes(const cJSON *node, const char *text)
{
	const cJSON *c;

	if (cJSON_IsString(node) && *node->valuestring && strstr(text, node->valuestring))
		return true;
	cJSON_ArrayForEach(c, node)
		if (quotes(c, text))
			return true;
	return false;
}

/* A config error that quotes a configuration file the config named is not
 * shown: the file may be one whoever wrote the NAD cannot read, and what it
 * holds must not come back to them. */
static void hide_file(const cJSON *ipam, const cJSON *file, struct cni_err *err)
{
	bool explicit;
	const char *path = poolconf_file_path(ipam, &explicit);

	if (!explicit || !file || (err->code != CNI_ERR_CONFIG && err->code != CNI_ERR_DECODE) ||
	    (!quotes(file, err->msg) && !quotes(file, err->details)))
		return;
	snprintf(err->msg, sizeof(err->msg), "configuration file %s (configuration_path) holds a "
		 "value this config cannot use (what it holds is not shown)", path);
	err->details[0] = '\0';
}

int setup_open(struct plugin_ctx *ctx, struct ippool *p)
{
	cJSON *root, *file = NULL, *ipam = NULL;
	int ret = -EINVAL;

	memset(p, 0, sizeof(*p));
	root = cJSON_Parse(ctx->conf);
	if (!root) {
		cni_err_set(&ctx->err, CNI_ERR_DECODE, "network config on stdin is not valid JSON");
		goto out;
	}
	if (netconf_parse(root, &p->nc, &ctx->err))
		goto out;
	ipam = cJSON_GetObjectItemCaseSensitive(root, "ipam");
	p->conf = calloc(1, sizeof(*p->conf));
	if (!p->conf) {
		cni_err_set(&ctx->err, CNI_ERR_IO, "out of memory");
		goto out;
	}
	if (confine_file(ipam, &ctx->err) || read_conf_file(ipam, &file, &ctx->err))
		goto out;
	if (poolconf_parse(ipam, file, cJSON_GetObjectItemCaseSensitive(root, "runtimeConfig"),
			   p->conf, &ctx->err))
		goto out;
	/* before anything is created; the store's own paths are judged when it
	 * opens, and the log file is opened after it */
	if (confpath_check("dataDir", p->conf->data_dir, sizeof(p->conf->data_dir),
			   CONFPATH_WRITE_DIR, &ctx->err) ||
	    confpath_check("log_file", p->conf->log_file, sizeof(p->conf->log_file),
			   CONFPATH_WRITE_FILE, &ctx->err))
		goto out;
	ret = setup_store(p->conf, false, &p->store, &ctx->err);
	if (ret == 0)
		log_init(p->conf->log_level[0] ? p->conf->log_level : NULL, p->conf->log_file);
out:
	if (ret)
		hide_file(ipam, file, &ctx->err);
	cJSON_Delete(file);
	cJSON_Delete(root);
	if (ret)
		setup_close(p);
	return ret;
}

void setup_close(struct ippool *p)
{
	pool_store_close(p->store);
	if (p->conf)
		poolconf_release(p->conf);
	free(p->conf);
	netconf_release(&p->nc);
	log_close();
	memset(p, 0, sizeof(*p));
}
