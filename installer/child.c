// SPDX-License-Identifier: Apache-2.0
/* The agent's children: fork, exec, stdout read to the end, waitpid. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "buf.h"
#include "child.h"

/* In the child: the mask the agent blocks SIGTERM with is not the command's. */
static void exec_child(char *const argv[], int out_fd)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	if (dup2(out_fd, STDOUT_FILENO) >= 0)
		execv(argv[0], argv);
	_exit(127);
}

static int read_all(int fd, char **out)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	ssize_t n;

	for (;;) {
		if (buf_reserve(&buf, &cap, len + 4096, CHILD_OUT_MAX + 1)) {
			/* past the cap: drain the rest so the child is not blocked */
			char sink[4096];

			while ((n = read(fd, sink, sizeof(sink))) > 0 || (n < 0 && errno == EINTR))
				;
			break;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (!buf)
		return -ENOMEM;
	buf[len] = '\0';
	*out = buf;
	return 0;
}

int child_run(char *const argv[], char **out)
{
	int pipefd[2], status, ret;
	pid_t pid;

	*out = NULL;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid == 0)
		exec_child(argv, pipefd[1]);
	close(pipefd[1]);
	if (pid < 0) {
		ret = -errno;
		close(pipefd[0]);
		return ret;
	}
	ret = read_all(pipefd[0], out);
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (ret)
		return ret;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
