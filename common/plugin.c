// SPDX-License-Identifier: Apache-2.0
/* plugin_main: env, stdin, VERSION, dispatch to a verb, one JSON document out. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "buf.h"
#include "clock.h"
#include "log.h"
#include "netconf.h"
#include "plugin.h"
#include "traceparent.h"

static int read_stdin(struct plugin_ctx *ctx)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t n = 0;
	int ret = -ENOMEM;

	/* reading one byte past the limit tells "too big" from "exactly the limit" */
	while (len <= PLUGIN_STDIN_MAX) {
		if (buf_reserve(&buf, &cap, len + 2, PLUGIN_STDIN_MAX + 2))
			goto fail;
		n = read(STDIN_FILENO, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (n < 0) {
		ret = -errno;
		goto fail;
	}
	if (len > PLUGIN_STDIN_MAX) {
		cni_err_set(&ctx->err, CNI_ERR_DECODE, "network config on stdin exceeds %d bytes",
			    PLUGIN_STDIN_MAX);
		free(buf);
		return -EFBIG;
	}
	buf[len] = '\0';
	ctx->conf = buf;
	ctx->conf_len = len;
	return 0;
fail:
	cni_err_set(&ctx->err, CNI_ERR_IO, "failed to read the network config from stdin: %s",
		    strerror(-ret));
	free(buf);
	return ret;
}

static const struct plugin_verb *find_verb(const struct plugin_verb *verbs, size_t n, enum cni_cmd cmd)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (verbs[i].cmd == cmd)
			return &verbs[i];
	return NULL;
}

static int run_verb(struct plugin_ctx *ctx, const struct plugin_verb *verbs, size_t n_verbs)
{
	const struct plugin_verb *verb;
	enum cni_version v = CNI_V110;
	int ret;

	version_parse(ctx->version, &v);
	if (env_check_version(ctx->env.cmd, v, &ctx->err))
		return -EINVAL;
	verb = find_verb(verbs, n_verbs, ctx->env.cmd);
	if (!verb) {
		cni_err_set(&ctx->err, CNI_ERR_ENV, "CNI_COMMAND %s is not supported by this plugin",
			    env_cmd_name(ctx->env.cmd));
		return -EOPNOTSUPP;
	}
	ret = verb->fn(ctx);
	if (!ret && !cni_err_is_set(&ctx->err))
		return 0;
	/* a verb that failed without saying why still gets an error document */
	cni_err_set(&ctx->err, CNI_ERR_IO, "%s failed: %s", env_cmd_name(ctx->env.cmd),
		    strerror(ret < 0 ? -ret : EIO));
	return ret ? ret : -EIO;
}

/* Runs the command; on success *doc is what to print (NULL: nothing). */
static int dispatch(struct plugin_ctx *ctx, const struct plugin_verb *verbs, size_t n_verbs, char **doc)
{
	int ret;

	if (env_read(&ctx->env, &ctx->err) || read_stdin(ctx))
		return -EINVAL;
	netconf_sniff(ctx->conf, ctx->version, ctx->network, sizeof(ctx->network));
	if (ctx->env.cmd == CNI_CMD_VERSION) {
		*doc = version_info_json(ctx->version);
	} else {
		ret = run_verb(ctx, verbs, n_verbs);
		if (ret || !ctx->out)
			return ret;
		*doc = cJSON_PrintUnformatted(ctx->out);
	}
	if (!*doc) {
		cni_err_set(&ctx->err, CNI_ERR_IO, "out of memory printing the %s answer",
			    env_cmd_name(ctx->env.cmd));
		return -ENOMEM;
	}
	return 0;
}

/* The call's record: what it was, how it ended, how long it took. */
static void record(const struct plugin_ctx *ctx, struct callrec *rec, long long start_us,
		   int status)
{
	long long took = clock_us() - start_us;
	int ret;

	rec->verb = (uint8_t)ctx->env.cmd;
	rec->code = !status ? 0 : ctx->err.code > 0 ? (uint16_t)ctx->err.code : CNI_ERR_IO;
	rec->duration_us = took > UINT32_MAX ? UINT32_MAX : (uint32_t)took;
	snprintf(rec->network, sizeof(rec->network), "%s", ctx->network);
	ret = callrec_append(callrec_dir(), rec);
	if (ret)
		log_debug("call record not written in %s: %s", callrec_dir(), strerror(-ret));
}

int plugin_main(enum callrec_plugin plugin, const struct plugin_verb *verbs, size_t n_verbs)
{
	struct plugin_ctx ctx = { .version = "1.1.0" };
	struct callrec rec = { .plugin = (uint8_t)plugin };
	long long start_us = clock_us();
	struct timespec now;
	char *doc = NULL;
	int status = 0;

	clock_gettime(CLOCK_REALTIME, &now);
	rec.time_ms = (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
	/* malformed or absent: no trace id, never an error */
	traceparent_parse(getenv("TRACEPARENT"), rec.trace);
	log_set_trace(rec.trace);
	if (dispatch(&ctx, verbs, n_verbs, &doc)) {
		status = 1;
		doc = cni_err_json(&ctx.err, ctx.version);
	}
	if (doc && (printf("%s\n", doc) < 0 || fflush(stdout)))
		status = 1;
	if (!doc && status)
		fprintf(stderr, "%s\n", ctx.err.msg);
	record(&ctx, &rec, start_us, status);
	free(doc);
	free(ctx.conf);
	cJSON_Delete(ctx.out);
	return status;
}
