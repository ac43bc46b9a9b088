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
#include "buf.h"
#include "ipamexec.h"

#define OUT_MAX (1 << 20)
#define EXCERPT 120

extern char **environ;

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

static int spawn(struct ipamexec_run *r, const char *path, int lock_fd, struct cni_err *err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t sigpipe;
	char command[32];
	char *argv[] = { (char *)path, NULL };
	char **envp;
	int in[2] = { -1, -1 }, out[2] = { -1, -1 };
	pid_t pid;
	int ret;

	snprintf(command, sizeof(command), "CNI_COMMAND=%s", env_cmd_name(r->cmd));
	envp = child_env(command);
	/* our end of its stdin is non-blocking: a big config must never stall reading its stdout */
	if (!envp || pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) ||
	    fcntl(in[1], F_SETFL, O_NONBLOCK)) {
		ret = -errno;
		goto out;
	}
	sigemptyset(&sigpipe);
	sigaddset(&sigpipe, SIGPIPE);
	ret = -posix_spawn_file_actions_init(&fa);
	if (ret)
		goto out;
	ret = -posix_spawnattr_init(&attr);
	if (!ret)
		ret = -posix_spawnattr_setsigdefault(&attr, &sigpipe);
	if (!ret)
		ret = -posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
	if (!ret)
		ret = -posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
	if (!ret)
		ret = -posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
	/* onto itself: clears close-on-exec in the child only */
	if (!ret && lock_fd >= 0)
		ret = -posix_spawn_file_actions_adddup2(&fa, lock_fd, lock_fd);
	if (!ret)
		ret = -posix_spawn(&pid, path, &fa, &attr, argv, envp);
	if (!ret)
		r->pid = pid;
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
out:
	free(envp);
	if (in[0] >= 0)
		close(in[0]);
	if (out[1] >= 0)
		close(out[1]);
	r->in = in[1];
	r->out = out[0];
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

static int feed(struct ipamexec_run *r)
{
	ssize_t n = write(r->in, r->conf + r->sent, r->conf_len - r->sent);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	/* EPIPE: the plugin exited without reading everything; its status says why */
	if (n < 0 && errno != EPIPE)
		return -errno;
	if (n > 0)
		r->sent += (size_t)n;
	if (n < 0 || r->sent == r->conf_len)
		close_fd(&r->in);
	return 0;
}

static int drain(struct ipamexec_run *r)
{
	char chunk[16384];
	ssize_t n = read(r->out, chunk, sizeof(chunk));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n < 0)
		return -errno;
	if (n == 0) {
		close_fd(&r->out);
		return 0;
	}
	if (r->len + (size_t)n > OUT_MAX) {
		r->overflow = true;	/* keep reading so the plugin can finish */
		return 0;
	}
	if (buf_reserve(&r->buf, &r->cap, r->len + (size_t)n + 1, OUT_MAX + 1))
		return -ENOMEM;
	memcpy(r->buf + r->len, chunk, (size_t)n);
	r->len += (size_t)n;
	r->buf[r->len] = '\0';
	return 0;
}

/* Writes the rest of the config and reads stdout together, so neither side can block the other. */
static int exchange(struct ipamexec_run *r, struct cni_err *err)
{
	int ret = 0;

	while (!ret && (r->in >= 0 || r->out >= 0)) {
		struct pollfd fds[2] = {
			{ .fd = r->in, .events = POLLOUT },
			{ .fd = r->out, .events = POLLIN },
		};

		if (poll(fds, 2, -1) < 0) {
			ret = errno == EINTR ? 0 : -errno;
			continue;
		}
		if (fds[0].revents)
			ret = feed(r);
		if (!ret && fds[1].revents)
			ret = drain(r);
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

static int copy_error(const struct ipamexec_run *r, int status, struct cni_err *err)
{
	const char *type = r->type;
	cJSON *root = cJSON_Parse(r->buf ? r->buf : "");
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
			    type, WEXITSTATUS(status), EXCERPT, r->buf ? r->buf : "");
	}
	cJSON_Delete(root);
	return -EIO;
}

static int parse_result(const struct ipamexec_run *r, struct cni_result *out, struct cni_err *err)
{
	const char *printed = r->buf ? r->buf : "";
	const char *type = r->type;
	cJSON *root = cJSON_Parse(printed);
	int ret = -EINVAL;

	if (!root) {
		cni_err_set(err, CNI_ERR_IPAM, "ipam plugin %s printed an unparsable result: \"%.*s\"",
			    type, EXCERPT, printed);
		goto out;
	}
	ret = result_parse(root, out, err);
	if (ret)
		cni_err_wrap(err, "ipam plugin %s printed an invalid result", type);
out:
	cJSON_Delete(root);
	return ret;
}

/* Closes our ends and waits for the plugin; *status is its wait status. */
static int release(struct ipamexec_run *r, int *status)
{
	int ret = 0;

	close_fd(&r->in);
	close_fd(&r->out);
	if (r->pid > 0)
		ret = reap(r->pid, status);
	r->pid = -1;
	return ret;
}

int ipamexec_start(struct ipamexec_run *r, enum cni_cmd cmd, const char *type, const char *conf,
		   size_t conf_len, int lock_fd, struct cni_err *err)
{
	char path[PATH_MAX];
	int status, ret;

	*r = (struct ipamexec_run)IPAMEXEC_RUN_INIT;
	if (!type || !env_valid_id(type) || strlen(type) >= NAME_MAX) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid ipam type \"%s\": must be a plain program name",
			    type ? type : "");
		return -EINVAL;
	}
	ret = find_plugin(type, path, err);
	if (ret)
		return ret;
	signal(SIGPIPE, SIG_IGN);
	r->cmd = cmd;
	r->type = type;
	r->conf = conf;
	r->conf_len = conf_len;
	ret = spawn(r, path, lock_fd, err);
	if (!ret)
		ret = feed(r);
	if (ret) {
		cni_err_set(err, CNI_ERR_IPAM, "failed to talk to the ipam plugin: %s", strerror(-ret));
		release(r, &status);
	}
	return ret;
}

int ipamexec_finish(struct ipamexec_run *r, struct cni_result *out, struct cni_err *err)
{
	int status = 0, waited, ret;

	ret = exchange(r, err);
	waited = release(r, &status);
	if (waited && !ret) {
		cni_err_set(err, CNI_ERR_IPAM, "failed to wait for ipam plugin %s: %s", r->type,
			    strerror(-waited));
		ret = waited;
	}
	if (ret)
		goto out;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		ret = copy_error(r, status, err);
	} else if (r->overflow) {
		cni_err_set(err, CNI_ERR_IPAM, "ipam plugin %s printed more than %d bytes", r->type,
			    OUT_MAX);
		ret = -EFBIG;
	} else if (r->cmd == CNI_CMD_ADD && out) {
		ret = parse_result(r, out, err);
	}
out:
	free(r->buf);
	r->buf = NULL;
	return ret;
}

int ipamexec_call(enum cni_cmd cmd, const char *type, const char *conf, size_t conf_len,
		  struct cni_result *out, struct cni_err *err)
{
	struct ipamexec_run r;
	int ret = ipamexec_start(&r, cmd, type, conf, conf_len, -1, err);

	return ret ? ret : ipamexec_finish(&r, out, err);
}
