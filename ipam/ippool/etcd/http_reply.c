// SPDX-License-Identifier: Apache-2.0
/* One HTTP/1.x reply taken from the bytes a server sent: status, framing, body. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "http_reply.h"

/* A chunk-size line longer than this is not one a server writes. */
#define CHUNK_LINE_MAX 1024

/* What the header fields say about the body and the connection. */
struct framing {
	bool chunked;
	bool has_length;
	size_t length;
	bool close;
};

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* The CRLF-ended line at p[0..n): 0 with its length without CRLF, 1 when
 * no LF is there yet, -EPROTO for an LF without CR. */
static int line(const char *p, size_t n, size_t *len)
{
	const char *lf = memchr(p, '\n', n);

	if (!lf)
		return 1;
	if (lf == p || lf[-1] != '\r')
		return -EPROTO;
	*len = (size_t)(lf - p) - 1;
	return 0;
}

static unsigned int digit(char c)
{
	if (c >= '0' && c <= '9')
		return (unsigned int)(c - '0');
	if (c >= 'a' && c <= 'f')
		return (unsigned int)(c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (unsigned int)(c - 'A' + 10);
	return 16;
}

/* p[0..n), digits of base only (no sign, no blank), at most max: 0 with
 * *out, -EPROTO, or -EMSGSIZE. */
static int parse_size(const char *p, size_t n, unsigned int base, size_t max, size_t *out)
{
	size_t v = 0, i;
	unsigned int d;

	if (!n)
		return -EPROTO;
	for (i = 0; i < n; i++) {
		d = digit(p[i]);
		if (d >= base)
			return -EPROTO;
		if (d > max || v > (max - d) / base)
			return -EMSGSIZE;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

/* Case-insensitive: p[0..n) is word. */
static bool is(const char *p, size_t n, const char *word)
{
	return n == strlen(word) && !strncasecmp(p, word, n);
}

/* RFC 9110 tchar: what a field name is made of. */
static bool tchar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* "HTTP/1.x NNN[ reason]" of n bytes. */
static int parse_status(const char *p, size_t n, long *status, bool *http10)
{
	size_t code;

	if (n < 12 || memcmp(p, "HTTP/1.", 7) || (p[7] != '0' && p[7] != '1') || p[8] != ' ' ||
	    (n > 12 && p[12] != ' ') || parse_size(p + 9, 3, 10, 999, &code))
		return -EPROTO;
	/* 1xx would precede the real answer; we never ask for one. */
	if (code < 200)
		return -EPROTO;
	*status = (long)code;
	*http10 = p[7] == '0';
	return 0;
}

/* One "name: value" field of n bytes. */
static int parse_field(const char *p, size_t n, struct framing *f)
{
	size_t name = 0, vlen, cl;
	const char *v;
	int ret;

	while (name < n && tchar(p[name]))
		name++;
	if (!name || name == n || p[name] != ':')
		return -EPROTO;
	v = p + name + 1;
	vlen = n - name - 1;
	while (vlen && (*v == ' ' || *v == '\t')) {
		v++;
		vlen--;
	}
	while (vlen && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t'))
		vlen--;
	if (is(p, name, "content-length")) {
		ret = parse_size(v, vlen, 10, HTTP_REPLY_MAX, &cl);
		if (ret)
			return ret;
		/* Two lengths that differ: which body is meant cannot be told. */
		if (f->has_length && f->length != cl)
			return -EPROTO;
		f->has_length = true;
		f->length = cl;
	} else if (is(p, name, "transfer-encoding")) {
		/* We ask for no compression: chunked is the only coding expected. */
		if (!is(v, vlen, "chunked"))
			return -EPROTO;
		f->chunked = true;
	} else if (is(p, name, "connection")) {
		f->close |= is(v, vlen, "close");
	}
	return 0;
}

/* The status line and fields up to the empty line: 0 with *at just past it. */
static int parse_head(const char *buf, size_t len, struct http_reply *out, struct framing *f,
		      size_t *at)
{
	size_t n, room;
	bool first = true, http10 = false;
	int ret;

	*at = 0;
	for (;;) {
		room = HTTP_HEADER_MAX - *at;
		ret = line(buf + *at, min_size(len - *at, room), &n);
		if (ret == 1 && len - *at >= room)
			return -EMSGSIZE;
		if (ret)
			return ret;
		if (first)
			ret = parse_status(buf, n, &out->status, &http10);
		else if (n)
			ret = parse_field(buf + *at, n, f);
		if (ret)
			return ret;
		*at += n + 2;
		if (!n && !first)
			break;
		first = false;
	}
	out->keep_alive = !f->close && !http10;
	return 0;
}

/* Walks the chunked body p[0..n): 0 with the decoded length in *size and the
 * bytes taken in *raw, copying the data into dst when given; 1 when
 * incomplete. Trailer fields are skipped: etcd sends none we use. */
static int chunks(const char *p, size_t n, char *dst, size_t *size, size_t *raw)
{
	size_t at = 0, total = 0, len, hex, chunk;
	const char *ext;
	int ret;

	for (;;) {
		ret = line(p + at, min_size(n - at, CHUNK_LINE_MAX), &len);
		if (ret == 1 && n - at >= CHUNK_LINE_MAX)
			return -EPROTO;
		if (ret)
			return ret;
		/* Chunk extensions (";name=value") say nothing we use. */
		ext = memchr(p + at, ';', len);
		hex = ext ? (size_t)(ext - (p + at)) : len;
		ret = parse_size(p + at, hex, 16, HTTP_REPLY_MAX - total, &chunk);
		if (ret)
			return ret;
		at += len + 2;
		if (!chunk)
			break;
		if (n - at < chunk || n - at - chunk < 2)
			return 1;
		if (memcmp(p + at + chunk, "\r\n", 2))
			return -EPROTO;
		if (dst)
			memcpy(dst + total, p + at, chunk);
		total += chunk;
		at += chunk + 2;
	}
	for (;;) {
		ret = line(p + at, min_size(n - at, HTTP_HEADER_MAX), &len);
		if (ret == 1 && n - at >= HTTP_HEADER_MAX)
			return -EMSGSIZE;
		if (ret)
			return ret;
		at += len + 2;
		if (!len)
			break;
	}
	*size = total;
	*raw = at;
	return 0;
}

static int copy_body(const char *p, size_t n, struct http_reply *out)
{
	out->body = malloc(n + 1);
	if (!out->body)
		return -ENOMEM;
	memcpy(out->body, p, n);
	out->body[n] = '\0';
	out->len = n;
	return 0;
}

/* The body at p[0..n) as the framing says: 0 with *raw the bytes it took, 1
 * when incomplete. */
static int parse_body(const char *p, size_t n, bool eof, const struct framing *f,
		      struct http_reply *out, size_t *raw)
{
	size_t size;
	int ret;

	if (out->status == 204 || out->status == 304) {
		*raw = 0;
		return copy_body(p, 0, out);
	}
	if (f->chunked) {
		ret = chunks(p, n, NULL, &size, raw);
		if (ret)
			return ret;
		out->body = malloc(size + 1);
		if (!out->body)
			return -ENOMEM;
		chunks(p, n, out->body, &out->len, raw);
		out->body[out->len] = '\0';
		return 0;
	}
	if (f->has_length) {
		if (n < f->length)
			return 1;
		*raw = f->length;
		return copy_body(p, f->length, out);
	}
	/* No length: the body ends where the server closes. */
	if (!eof)
		return 1;
	out->keep_alive = false;
	*raw = n;
	return copy_body(p, n, out);
}

int http_parse_reply(const char *buf, size_t len, bool eof, struct http_reply *out,
		     size_t *used)
{
	struct framing f = { 0 };
	size_t head, raw;
	int ret;

	memset(out, 0, sizeof(*out));
	*used = 0;
	if (memcmp(buf, "HTTP/1.", min_size(len, 7)))
		return -EPROTO;
	ret = parse_head(buf, len, out, &f, &head);
	/* A server must not send both (RFC 9112 6.3): which one ends the body? */
	if (!ret && f.chunked && f.has_length)
		ret = -EPROTO;
	if (!ret)
		ret = parse_body(buf + head, len - head, eof, &f, out, &raw);
	if (ret == 1 && eof)
		ret = -EPROTO;
	if (ret) {
		free(out->body);
		memset(out, 0, sizeof(*out));
		return ret;
	}
	*used = head + raw;
	return 0;
}
