// SPDX-License-Identifier: Apache-2.0
/* The CNI_* environment: which variables each command needs, and their syntax. */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "env.h"

enum {
	VAR_CONTAINERID = 1 << 0,
	VAR_NETNS = 1 << 1,
	VAR_IFNAME = 1 << 2,
	VAR_PATH = 1 << 3,
	VAR_ALL = VAR_CONTAINERID | VAR_NETNS | VAR_IFNAME | VAR_PATH,
};

static const struct {
	const char *name;
	unsigned int need;		/* must be set and non-empty */
	unsigned int use;		/* read when set */
	enum cni_version min;
} cmds[CNI_CMD_COUNT] = {
	[CNI_CMD_ADD] = { "ADD", VAR_ALL, VAR_ALL, CNI_V030 },
	[CNI_CMD_DEL] = { "DEL", VAR_CONTAINERID | VAR_IFNAME | VAR_PATH, VAR_ALL, CNI_V030 },
	[CNI_CMD_CHECK] = { "CHECK", VAR_ALL, VAR_ALL, CNI_V040 },
	[CNI_CMD_GC] = { "GC", VAR_PATH, VAR_PATH, CNI_V110 },
	[CNI_CMD_STATUS] = { "STATUS", VAR_PATH, VAR_PATH, CNI_V110 },
	[CNI_CMD_VERSION] = { "VERSION", 0, 0, CNI_V030 },
};

static const struct {
	unsigned int bit;
	const char *var;
	size_t field;
} vars[] = {
	{ VAR_CONTAINERID, "CNI_CONTAINERID", offsetof(struct cni_env, containerid) },
	{ VAR_NETNS, "CNI_NETNS", offsetof(struct cni_env, netns) },
	{ VAR_IFNAME, "CNI_IFNAME", offsetof(struct cni_env, ifname) },
	{ VAR_PATH, "CNI_PATH", offsetof(struct cni_env, path) },
};

/* Not isalnum(): that follows the locale, the rule is ASCII. */
static bool id_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (!first && (c == '_' || c == '.' || c == '-'));
}

bool env_valid_id(const char *s)
{
	if (!s || !id_char(*s, true))
		return false;
	for (s++; *s; s++)
		if (!id_char(*s, false))
			return false;
	return true;
}

bool env_valid_ifname(const char *s)
{
	size_t len;

	if (!s)
		return false;
	len = strlen(s);
	if (len == 0 || len > 15 || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++) {
		if (*s == '/' || *s == ':' || isspace((unsigned char)*s))
			return false;
	}
	return true;
}

static int parse_cmd(const char *s, enum cni_cmd *out)
{
	int c;

	for (c = 0; c < CNI_CMD_COUNT; c++) {
		if (!strcmp(s, cmds[c].name)) {
			*out = c;
			return 0;
		}
	}
	return -EINVAL;
}

static int read_vars(struct cni_env *env, struct cni_err *err)
{
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char **field = (const char **)((char *)env + vars[i].field);
		const char *val = getenv(vars[i].var);

		if (!(cmds[env->cmd].use & vars[i].bit))
			continue;
		if (val && !*val)
			val = NULL;
		if (!val && (cmds[env->cmd].need & vars[i].bit)) {
			cni_err_set(err, CNI_ERR_ENV, "required environment variable %s is not set for %s",
				    vars[i].var, cmds[env->cmd].name);
			return -EINVAL;
		}
		*field = val;
	}
	return 0;
}

int env_read(struct cni_env *env, struct cni_err *err)
{
	const char *cmd = getenv("CNI_COMMAND");

	memset(env, 0, sizeof(*env));
	env->cmd = CNI_CMD_COUNT;	/* none until CNI_COMMAND names one */
	if (!cmd || !*cmd) {
		cni_err_set(err, CNI_ERR_ENV, "environment variable CNI_COMMAND is not set");
		return -EINVAL;
	}
	if (parse_cmd(cmd, &env->cmd)) {
		cni_err_set(err, CNI_ERR_ENV, "unknown CNI_COMMAND \"%s\"", cmd);
		return -EINVAL;
	}
	if (read_vars(env, err))
		return -EINVAL;
	if (env->containerid && !env_valid_id(env->containerid)) {
		cni_err_set(err, CNI_ERR_ENV,
			    "invalid CNI_CONTAINERID \"%s\": must match " ENV_ID_RULE,
			    env->containerid);
		return -EINVAL;
	}
	if (env->ifname && !env_valid_ifname(env->ifname)) {
		cni_err_set(err, CNI_ERR_ENV,
			    "invalid CNI_IFNAME \"%s\": must be 1-15 bytes without '/', ':' or whitespace, not \".\" or \"..\"",
			    env->ifname);
		return -EINVAL;
	}
	env->args = getenv("CNI_ARGS");
	return 0;
}

const char *env_cmd_name(enum cni_cmd cmd)
{
	if ((unsigned)cmd >= CNI_CMD_COUNT)
		return NULL;
	return cmds[cmd].name;
}

int env_check_version(enum cni_cmd cmd, enum cni_version v, struct cni_err *err)
{
	if ((unsigned)cmd >= CNI_CMD_COUNT || v >= cmds[cmd].min)
		return 0;
	cni_err_set(err, CNI_ERR_VERSION, "CNI_COMMAND %s needs cniVersion %s or later, config has %s",
		    cmds[cmd].name, version_str(cmds[cmd].min), version_str(v));
	return -EINVAL;
}
