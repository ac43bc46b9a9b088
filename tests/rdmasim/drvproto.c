// SPDX-License-Identifier: Apache-2.0
/* The client side of rdmasim-drv's socket, for librdmasim.so and the CLI. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>
#include "drvproto.h"

int rdmasim_drv_sock_path(const char *state, char *out, unsigned long size)
{
	return snprintf(out, size, "%s.drv", state) < (int)size ? 0 : -ENAMETOOLONG;
}

static int send_req(int s, const char *req, int fd)
{
	char ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = (void *)req, .iov_len = strlen(req) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (fd >= 0) {
		msg.msg_control = ctl;
		msg.msg_controllen = sizeof(ctl);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	/* raw syscall: the preload library intercepts sendmsg */
	return syscall(SYS_sendmsg, s, &msg, 0) < 0 ? -errno : 0;
}

/* Sockets are closed with the raw syscall too (the library intercepts close). */
int rdmasim_drv_query(const char *state, const char *req, int fd, char *out, size_t size)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char reply[RDMASIM_DRV_REQ_MAX], *rest;
	ssize_t n;
	int s, ret;

	if (rdmasim_drv_sock_path(state, sun.sun_path, sizeof(sun.sun_path)) < 0)
		return -ENAMETOOLONG;
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	if (connect(s, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		ret = -ENOTCONN;
		goto out;
	}
	ret = send_req(s, req, fd);
	if (ret < 0)
		goto out;
	n = syscall(SYS_recvfrom, s, reply, sizeof(reply) - 1, 0, NULL, NULL);
	if (n <= 0) {
		ret = n < 0 ? -errno : -ECONNRESET;
		goto out;
	}
	reply[n] = '\0';
	ret = (int)strtol(reply, &rest, 10);
	if (out)
		snprintf(out, size, "%s", *rest == ' ' ? rest + 1 : "");
out:
	syscall(SYS_close, s);
	return ret;
}

int rdmasim_drv_call(const char *state, const char *req, int fd)
{
	return rdmasim_drv_query(state, req, fd, NULL, 0);
}
