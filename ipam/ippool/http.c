// SPDX-License-Identifier: Apache-2.0
/* Plain HTTP/1.1 POST over one kept-alive TCP connection (http:// etcd endpoints). */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include "http.h"

#define REPLY_MAX (64 << 20)

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

static long ms_left(const struct timespec *end)
{
	struct timespec now;
	long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (end->tv_sec - now.tv_sec) * 1000 + (end->tv_nsec - now.tv_nsec) / 1000000;
	return ms > 0 ? ms : 0;
}

/* Waits for events on fd until end: 0, or -ETIMEDOUT. */
static int wait_fd(int fd, short events, const struct timespec *end)
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

static int connect_one(const struct addrinfo *ai, const struct timespec *end)
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
		     const struct timespec *end)
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

static int send_all(int fd, const char *p, size_t len, const struct timespec *end)
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

/* Case-insensitive header lookup within the header block: value or NULL. */
static const char *header(const char *hdrs, size_t hlen, const char *name, size_t *vlen)
{
	size_t nlen = strlen(name);
	const char *p = memchr(hdrs, '\n', hlen), *end = hdrs + hlen, *eol;

	for (; p && p + 1 < end; p = eol) {
		p++;
		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			break;
		if ((size_t)(eol - p) > nlen && !strncasecmp(p, name, nlen) && p[nlen] == ':') {
			p += nlen + 1;
			while (*p == ' ' || *p == '\t')
				p++;
			*vlen = (size_t)(eol - p) - (eol[-1] == '\r');
			return p;
		}
	}
	return NULL;
}

/* Undoes chunked encoding of body[0..len): 0 with out, 1 incomplete, -EPROTO. */
static int unchunk(const char *body, size_t len, struct http_reply *out)
{
	size_t at = 0, size;
	char *end, *data = malloc(len + 1);

	if (!data)
		return -ENOMEM;
	out->len = 0;
	for (;;) {
		const char *eol = memchr(body + at, '\n', len - at);

		if (!eol)
			break;
		size = strtoul(body + at, &end, 16);
		if (end == body + at) {
			free(data);
			return -EPROTO;
		}
		at = (size_t)(eol - body) + 1;
		if (!size) {
			/* No trailers from etcd: the last chunk ends with one empty line. */
			if (len - at < 2)
				break;
			data[out->len] = '\0';
			out->body = data;
			return 0;
		}
		if (len - at < size + 2)
			break;
		memcpy(data + out->len, body + at, size);
		out->len += size;
		at += size + 2;
	}
	free(data);
	return 1;
}

int http_parse_reply(const char *buf, size_t len, bool eof, struct http_reply *out)
{
	const char *hend = memmem(buf, len, "\r\n\r\n", 4), *v;
	size_t hlen, blen, vlen;
	char *end;

	memset(out, 0, sizeof(*out));
	if (len >= 5 && strncmp(buf, "HTTP/", 5))
		return -EPROTO;
	if (!hend)
		return eof ? -EPROTO : 1;
	hlen = (size_t)(hend - buf) + 2;
	v = memchr(buf, ' ', hlen);
	out->status = v ? strtol(v + 1, &end, 10) : 0;
	if (!v || (*end != ' ' && *end != '\r') || out->status < 100 || out->status > 999)
		return -EPROTO;
	blen = len - hlen - 2;
	v = header(buf, hlen, "transfer-encoding", &vlen);
	if (v && vlen == 7 && !strncasecmp(v, "chunked", 7))
		return unchunk(hend + 4, blen, out);
	v = header(buf, hlen, "content-length", &vlen);
	if (v) {
		size_t cl = strtoul(v, &end, 10);

		if (end == v)
			return -EPROTO;
		if (blen < cl)
			return eof ? -EPROTO : 1;
		blen = cl;
	} else if (!eof) {
		return 1;
	}
	out->body = malloc(blen + 1);
	if (!out->body)
		return -ENOMEM;
	memcpy(out->body, hend + 4, blen);
	out->body[blen] = '\0';
	out->len = blen;
	return 0;
}

static int read_reply(int fd, const struct timespec *end, struct http_reply *out)
{
	size_t len = 0, cap = 0;
	char *buf = NULL, *p;
	ssize_t n = 1;
	int ret = 1;

	while (ret == 1) {
		if (cap - len < 4096) {
			cap = cap ? 2 * cap : 16384;
			p = cap <= REPLY_MAX ? realloc(buf, cap) : NULL;
			if (!p) {
				ret = -ENOMEM;
				break;
			}
			buf = p;
		}
		n = recv(fd, buf + len, cap - len - 1, 0);
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
		len += (size_t)n;
		ret = http_parse_reply(buf, len, n == 0, out);
		if (ret == 1 && n == 0)
			ret = -ECONNRESET;
	}
	free(buf);
	return ret;
}

/* One exchange on c, connecting first when it is not connected. */
static int exchange(struct http_conn *c, const char *host, const char *port, const char *req,
		    size_t len, const struct timespec *end, struct http_reply *out,
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
			 ret == -EPROTO ? "not an HTTP answer" : strerror(-ret));
		http_close(c);
	}
	return ret;
}

int http_post(struct http_conn *c, const char *url, const char *auth, const char *body,
	      long timeout_ms, struct http_reply *out, char *why, size_t why_size)
{
	char host[HTTP_HOST_MAX], port[16], hp[HTTP_HOST_MAX + 16], *req = NULL;
	const char *path;
	struct timespec end;
	bool reused;
	int ret, n;

	memset(out, 0, sizeof(*out));
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += timeout_ms / 1000;
	end.tv_nsec += timeout_ms % 1000 * 1000000L;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	if (split_url(url, host, port, &path)) {
		snprintf(why, why_size, "cannot parse URL %s", url);
		return -EINVAL;
	}
	snprintf(hp, sizeof(hp), "%s:%s", host, port);
	if (c->fd >= 0 && strcmp(c->hostport, hp))
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
		ret = exchange(c, host, port, req, (size_t)n, &end, out, why, why_size);
	} while (reused && (ret == -EPIPE || ret == -ECONNRESET));
	free(req);
	return ret;
}
