// SPDX-License-Identifier: Apache-2.0
/* Fuzz target: http_parse_reply on whatever a server may send. A reply it
 * takes is the same reply when parsed alone (bytes after it change nothing),
 * every shorter prefix of it asks for more bytes, and its body comes back
 * whole when sent again with a Content-Length or in chunks. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "http_reply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same(const struct http_reply *a, const struct http_reply *b)
{
	if (a->status != b->status || a->len != b->len || memcmp(a->body, b->body, a->len) ||
	    b->body[b->len])
		abort();
}

/* The body of r sent again: with a length, or in chunks of 7 bytes. */
static void resend(const struct http_reply *r, int chunked)
{
	size_t cap = 64 + r->len * 2 + r->len / 7 * 8 + 16, n, at, used;
	char *buf = malloc(cap);
	struct http_reply back;

	if (!buf)
		return;
	if (chunked) {
		n = (size_t)sprintf(buf, "HTTP/1.1 %ld x\r\nTransfer-Encoding: chunked\r\n\r\n",
				    r->status);
		for (at = 0; at < r->len; at += 7) {
			size_t k = r->len - at < 7 ? r->len - at : 7;

			n += (size_t)sprintf(buf + n, "%zx\r\n", k);
			memcpy(buf + n, r->body + at, k);
			memcpy(buf + n + k, "\r\n", 2);
			n += k + 2;
		}
		n += (size_t)sprintf(buf + n, "0\r\n\r\n");
	} else {
		n = (size_t)sprintf(buf, "HTTP/1.1 %ld x\r\nContent-Length: %zu\r\n\r\n", r->status,
				    r->len);
		memcpy(buf + n, r->body, r->len);
		n += r->len;
	}
	/* 204 and 304 carry no body, whatever the framing says. */
	if (http_parse_reply(buf, n, false, &back, &used) ||
	    (r->status != 204 && r->status != 304 && used != n))
		abort();
	if (r->status != 204 && r->status != 304)
		same(r, &back);
	free(back.body);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly size bytes: a read past it is the sanitizer's */
	char *buf = malloc(size ? size : 1);
	struct http_reply r, again;
	size_t used, used2;
	int eof, ret;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	for (eof = 0; eof < 2; eof++) {
		ret = http_parse_reply(buf, size, eof, &r, &used);
		if (ret != 0 && ret != 1 && ret != -EPROTO && ret != -EMSGSIZE)
			abort();
		if (ret) {
			if ((ret == 1 && eof) || r.body || used)
				abort();
			continue;
		}
		if (!used || used > size || r.len > used || r.status < 200 || r.status > 999 ||
		    r.body[r.len])
			abort();
		if (http_parse_reply(buf, used, eof, &again, &used2) || used2 != used)
			abort();
		same(&r, &again);
		free(again.body);
		if (http_parse_reply(buf, used - 1, false, &again, &used2) != 1 ||
		    http_parse_reply(buf, used / 2, false, &again, &used2) != 1)
			abort();
		resend(&r, 0);
		resend(&r, 1);
		free(r.body);
	}
	free(buf);
	return 0;
}
