// SPDX-License-Identifier: Apache-2.0
/* Plain HTTP/1.1 POST over one kept-alive TCP connection (http:// etcd endpoints). */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include "clock.h"
#include "http.h"

void http_init(struct http_conn *c)
{
	c->fd = -1;
	c->hostport[0] = '\0';
}

void http_close(struct http_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	http_init(c);
}

/* Milliseconds from now to end (clock_ms), 0 once it has passed. */
static long ms_left(long end)
{
	long ms = end - clock_ms();

	return ms > 0 ? ms : 0;
}

/* Waits for events on fd until end: 0, or -ETIMEDOUT. */
static int wait_fd(int fd, short events, long end)
{
	struct pollfd p = { .fd = fd, .events = events };
	int n;

	do
		n = poll(&p, 1, (int)ms_left(end));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n ? 0 : -ETIMEDOUT;
}

static int connect_one(const struct addrinfo *ai, long end)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1, ret, soerr = 0;
	socklen_t len = sizeof(soerr);

	if (fd < 0)
		return -errno;
	ret = connect(fd, ai->ai_addr, ai->ai_addrlen) ? -errno : 0;
	if (ret == -EINPROGRESS) {
		ret = wait_fd(fd, POLLOUT, end);
		if (!ret && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len))
			ret = -errno;
		else if (!ret)
			ret = -soerr;
	}
	if (!ret)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/* "http://host:port/path" -> host, port, path ("[v6]" brackets dropped). */
static int split_url(const char *url, char *host, char *port, const char **path)
{
	const char *hp = url + 7, *end, *colon;
	size_t hlen;

	if (strncmp(url, "http://", 7))
		return -EINVAL;
	end = hp + strcspn(hp, "/");
	*path = *end ? end : "/";
	if (*hp == '[') {
		colon = memchr(hp, ']', (size_t)(end - hp));
		if (!colon)
			return -EINVAL;
		hlen = (size_t)(colon - hp - 1);
		hp++;
		colon = colon[1] == ':' ? colon + 1 : NULL;
	} else {
		colon = memchr(hp, ':', (size_t)(end - hp));
		hlen = (size_t)((colon ? colon : end) - hp);
	}
	if (!hlen || hlen >= HTTP_HOST_MAX || (colon && (size_t)(end - colon - 1) >= 16))
		return -EINVAL;
	memcpy(host, hp, hlen);
	host[hlen] = '\0';
	if (colon)
		snprintf(port, 16, "%.*s", (int)(end - colon - 1), colon + 1);
	else
		strcpy(port, "80");
	return 0;
}

static int open_conn(struct http_conn *c, const char *host, const char *port,
		     long end)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	int fd = -EHOSTUNREACH, gai;

	gai = getaddrinfo(host, port, &hints, &res);
	if (gai)
		return gai == EAI_SYSTEM ? -errno : -EHOSTUNREACH;
	for (ai = res; ai && ms_left(end) > 0; ai = ai->ai_next) {
		fd = connect_one(ai, end);
		if (fd >= 0)
			break;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return fd;
	c->fd = fd;
	snprintf(c->hostport, sizeof(c->hostport), "%s:%s", host, port);
	return 0;
}

static int send_all(int fd, const char *p, size_t len, long end)
{
	ssize_t n;
	int ret;

	while (len) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EAGAIN) {
			ret = wait_fd(fd, POLLOUT, end);
			if (ret)
				return ret;
			continue;
		}
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0) {
			p += n;
			len -= (size_t)n;
		}
	}
	return 0;
}

/* Reads one reply into out; its connection stays open only when the
 * reply says it may and nothing came after it. */
static int read_reply(int fd, long end, struct http_reply *out)
{
	size_t len = 0, cap = 0, used;
	char *buf = NULL, *p;
	ssize_t n = 1;
	int ret = 1;

	while (ret == 1) {
		if (!ms_left(end)) {
			ret = -ETIMEDOUT;
			break;
		}
		if (cap - len < 4096) {
			/* Room for one byte past the limit: a reply that reaches it is too big. */
			cap = cap ? 2 * cap : 16384;
			if (cap > HTTP_REPLY_MAX + 1)
				cap = HTTP_REPLY_MAX + 1;
			p = cap > len ? realloc(buf, cap) : NULL;
			if (!p) {
				ret = cap > len ? -ENOMEM : -EMSGSIZE;
				break;
			}
			buf = p;
		}
		n = recv(fd, buf + len, cap - len, 0);
		if (n < 0 && errno == EAGAIN) {
			ret = wait_fd(fd, POLLIN, end);
			ret = ret ? ret : 1;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		/* Closed before a byte came: a kept-alive connection the server dropped. */
		if (!n && !len) {
			ret = -ECONNRESET;
			break;
		}
		len += (size_t)n;
		ret = http_parse_reply(buf, len, n == 0, out, &used);
		/* Bytes after the reply answer no request of ours. */
		if (!ret && used < len)
			out->keep_alive = false;
	}
	free(buf);
	return ret;
}

/* Whether a kept-alive connection can carry a request: nothing may be
 * waiting on it (bytes no request asked for, or the server's close). */
static bool idle(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 0;
}

/* One exchange on c, connecting first when it is not connected. */
static int exchange(struct http_conn *c, const char *host, const char *port, const char *req,
		    size_t len, long end, struct http_reply *out,
		    char *why, size_t why_size)
{
	int ret = c->fd >= 0 ? 0 : open_conn(c, host, port, end);

	if (ret) {
		snprintf(why, why_size, "cannot connect: %s", strerror(-ret));
		return ret;
	}
	ret = send_all(c->fd, req, len, end);
	if (!ret)
		ret = read_reply(c->fd, end, out);
	if (ret) {
		snprintf(why, why_size, "%s", ret == -ETIMEDOUT ? "timed out" :
			 ret == -EPROTO ? "not a valid HTTP answer" :
			 ret == -EMSGSIZE ? "answer too large" : strerror(-ret));
		http_close(c);
	} else if (!out->keep_alive) {
		http_close(c);
	}
	return ret;
}

int http_post(struct http_conn *c, const char *url, const char *auth, const char *body,
	      long timeout_ms, struct http_reply *out, char *why, size_t why_size)
{
	char host[HTTP_HOST_MAX], port[16], hp[HTTP_HOST_MAX + 16], *req = NULL;
	const char *path;
	long end = clock_ms() + timeout_ms;
	bool reused;
	int ret, n;

	memset(out, 0, sizeof(*out));
	if (split_url(url, host, port, &path)) {
		snprintf(why, why_size, "cannot parse URL %s", url);
		return -EINVAL;
	}
	snprintf(hp, sizeof(hp), "%s:%s", host, port);
	if (c->fd >= 0 && (strcmp(c->hostport, hp) || !idle(c->fd)))
		http_close(c);
	n = asprintf(&req, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
		     "Content-Length: %zu\r\n%s%s%s\r\n%s", path, hp, strlen(body),
		     auth ? "Authorization: " : "", auth ? auth : "", auth ? "\r\n" : "", body);
	if (n < 0) {
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	/* A kept-alive connection the server dropped meanwhile: once more, fresh. */
	do {
		reused = c->fd >= 0;
		ret = exchange(c, host, port, req, (size_t)n, end, out, why, why_size);
	} while (reused && (ret == -EPIPE || ret == -ECONNRESET));
	free(req);
	return ret;
}
