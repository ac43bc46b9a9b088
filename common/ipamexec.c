// SPDX-License-Identifier: Apache-2.0
/* Runs the IPAM plugin from CNI_PATH: config on its stdin, result or error JSON from its stdout. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "ipamexec.h"

#define OUT_MAX (1 << 20)
#define EXCERPT 120

extern char **environ;

struct child {
	pid_t pid;
	int in;			/* its stdin, we write */
	int out;		/* its stdout, we read */
	char *buf;		/* what it printed, NUL-terminated */
	size_t len;
	bool overflow;
};

/* The first executable regular file named type in the colon list. */
static int find_plugin(const char *type, char path[PATH_MAX], struct cni_err *err)
{
	const char *dirs = getenv("CNI_PATH"), *dir, *end;
	struct stat st;

	for (dir = dirs ? dirs : ""; *dir; dir = *end ? end + 1 : end) {
		end = strchrnul(dir, ':');
		if (end == dir)
			continue;
		if (snprintf(path, PATH_MAX, "%.*s/%s", (int)(end - dir), dir, type) >= PATH_MAX)
			continue;
		if (!stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK))
			return 0;
	}
	cni_err_set(err, CNI_ERR_IPAM, "ipam plugin \"%s\" not found in CNI_PATH \"%s\"",
		    type, dirs ? dirs : "");
	return -ENOENT;
}

/* environ with CNI_COMMAND replaced (or added); the strings are borrowed. */
static char **child_env(const char *command)
{
	size_t n = 0, i, j = 0;
	char **envp;

	while (environ[n])
		n++;
	envp = calloc(n + 2, sizeof(*envp));
	if (!envp)
		return NULL;
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], "CNI_COMMAND=", 12))
			envp[j++] = environ[i];
	envp[j] = (char *)command;
	return envp;
}

static int spawn(struct child *c, const char *path, enum cni_cmd cmd, struct cni_err *err)
{
	posix_spawn_file_actions_t fa;
	char command[32];
	char *argv[] = { (char *)path, NULL };
	char **envp;
	int in[2] = { -1, -1 }, out[2] = { -1, -1 };
	pid_t pid;
	int ret;

	snprintf(command, sizeof(command), "CNI_COMMAND=%s", env_cmd_name(cmd));
	envp = child_env(command);
	/* our end of its stdin is non-blocking: a big config must never stall reading its stdout */
	if (!envp || pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) ||
	    fcntl(in[1], F_SETFL, O_NONBLOCK)) {
		ret = -errno;
		goto out;
	}
	ret = -posix_spawn_file_actions_init(&fa);
	if (ret)
		goto out;
	ret = -posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
	if (!ret)
		ret = -posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
	if (!ret)
		ret = -posix_spawn(&pid, path, &fa, NULL, argv, envp);
	if (!ret)
		c->pid = pid;
	posix_spawn_file_actions_destroy(&fa);
out:
	free(envp);
	if (in[0] >= 0)
		close(in[0]);
	if (out[1] >= 0)
		close(out[1]);
	c->in = in[1];
	c->out = out[0];
	if (ret)
		cni_err_set(err, CNI_ERR_IPAM, "failed to run ipam plugin %s: %s", path, strerror(-ret));
	return ret;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int feed(struct child *c, const char *conf, size_t *sent, size_t len)
{
	ssize_t n = write(c->in, conf + *sent, len - *sent);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	/* EPIPE: the plugin exited without reading everything; its status says why */
	if (n < 0 && errno != EPIPE)
		return -errno;
	if (n > 0)
		*sent += (size_t)n;
	if (n < 0 || *sent == len)
		close_fd(&c->in);
	return 0;
}

static int drain(struct child *c)
{
	char chunk[16384];
	ssize_t n = read(c->out, chunk, sizeof(chunk));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n < 0)
		return -errno;
	if (n == 0) {
		close_fd(&c->out);
		return 0;
	}
	if (c->len + (size_t)n > OUT_MAX) {
		c->overflow = true;	/* keep reading so the plugin can finish */
		return 0;
	}
	memcpy(c->buf + c->len, chunk, (size_t)n);
	c->len += (size_t)n;
	c->buf[c->len] = '\0';
	return 0;
}

/* Writes the config and reads stdout together, so neither side can block the other. */
static int exchange(struct child *c, const char *conf, size_t len, struct cni_err *err)
{
	size_t sent = 0;
	int ret = 0;

	if (!len)
		close_fd(&c->in);
	while (!ret && (c->in >= 0 || c->out >= 0)) {
		struct pollfd fds[2] = {
			{ .fd = c->in, .events = POLLOUT },
			{ .fd = c->out, .events = POLLIN },
		};

		if (poll(fds, 2, -1) < 0) {
			ret = errno == EINTR ? 0 : -errno;
			continue;
		}
		if (fds[0].revents)
			ret = feed(c, conf, &sent, len);
		if (!ret && fds[1].revents)
			ret = drain(c);
	}
	if (ret)
		cni_err_set(err, CNI_ERR_IPAM, "failed to talk to the ipam plugin: %s", strerror(-ret));
	return ret;
}

static int reap(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}

static int copy_error(const struct child *c, const char *type, int status, struct cni_err *err)
{
	cJSON *root = cJSON_Parse(c->buf);
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(root, "code");
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(root, "msg");
	const cJSON *details = cJSON_GetObjectItemCaseSensitive(root, "details");

	if (cJSON_IsNumber(code) && code->valuedouble >= 1 && code->valuedouble <= INT_MAX &&
	    cJSON_IsString(msg)) {
		cni_err_set(err, (int)code->valuedouble, "ipam plugin %s: %s", type, msg->valuestring);
		if (cJSON_IsString(details) && details->valuestring[0])
			cni_err_details(err, "%s", details->valuestring);
	} else if (WIFSIGNALED(status)) {
		cni_err_set(err, CNI_ERR_IPAM, "ipam plugin %s killed by signal %d", type, WTERMSIG(status));
	} else {
		cni_err_set(err, CNI_ERR_IPAM, "ipam plugin %s failed (exit status %d) without a CNI error: \"%.*s\"",
			    type, WEXITSTATUS(status), EXCERPT, c->buf);
	}
	cJSON_Delete(root);
	return -EIO;
}

static int parse_result(const struct child *c, const char *type, struct cni_result *out,
			struct cni_err *err)
{
	cJSON *root = cJSON_Parse(c->buf);
	int ret = -EINVAL;

	if (!root) {
		cni_err_set(err, CNI_ERR_IPAM, "ipam plugin %s printed an unparsable result: \"%.*s\"",
			    type, EXCERPT, c->buf);
		goto out;
	}
	ret = result_parse(root, out, err);
	if (ret)
		cni_err_wrap(err, "ipam plugin %s printed an invalid result", type);
out:
	cJSON_Delete(root);
	return ret;
}

int ipam_exec(enum cni_cmd cmd, const char *type, const char *conf, size_t conf_len,
	      struct cni_result *out, struct cni_err *err)
{
	struct child c = { .pid = -1, .in = -1, .out = -1 };
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	char path[PATH_MAX];
	int status = 0, ret;

	if (!type || !env_valid_id(type) || strlen(type) >= NAME_MAX) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid ipam type \"%s\": must be a plain program name",
			    type ? type : "");
		return -EINVAL;
	}
	ret = find_plugin(type, path, err);
	if (ret)
		return ret;
	c.buf = malloc(OUT_MAX + 1);
	if (!c.buf) {
		cni_err_set(err, CNI_ERR_IPAM, "failed to run ipam plugin %s: out of memory", type);
		return -ENOMEM;
	}
	c.buf[0] = '\0';
	sigaction(SIGPIPE, &ign, &old);
	ret = spawn(&c, path, cmd, err);
	if (!ret)
		ret = exchange(&c, conf, conf_len, err);
	close_fd(&c.in);
	close_fd(&c.out);
	sigaction(SIGPIPE, &old, NULL);
	if (c.pid > 0) {
		int waited = reap(c.pid, &status);

		if (waited && !ret) {
			cni_err_set(err, CNI_ERR_IPAM, "failed to wait for ipam plugin %s: %s", type,
				    strerror(-waited));
			ret = waited;
		}
	}
	if (ret)
		goto out;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		ret = copy_error(&c, type, status, err);
	} else if (c.overflow) {
		cni_err_set(err, CNI_ERR_IPAM, "ipam plugin %s printed more than %d bytes", type, OUT_MAX);
		ret = -EFBIG;
	} else if (cmd == CNI_CMD_ADD && out) {
		ret = parse_result(&c, type, out, err);
	}
out:
	free(c.buf);
	return ret;
}
