/* SPDX-License-Identifier: Apache-2.0 */
/* One HTTP/1.x reply taken from the bytes a server sent: status, framing, body. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Bounds on what a server may send: etcd's headers are a few hundred bytes,
 * its answers to our requests well under a megabyte. */
#define HTTP_HEADER_MAX (64 << 10)
#define HTTP_REPLY_MAX (64 << 20)

struct http_reply {
	long status;
	char *body;			/* malloc'd, NUL-terminated */
	size_t len;
	bool keep_alive;		/* the connection may carry another request */
};

/* Parses the reply at the start of buf[0..len); eof: the peer has closed
 * after those bytes. Returns 0 with *out filled (body copied, chunked
 * encoding undone) and *used the bytes the reply took; 1 when more bytes are
 * needed; -EPROTO when it is not a well-formed HTTP/1.x reply (a truncated
 * one among them); -EMSGSIZE past HTTP_HEADER_MAX or HTTP_REPLY_MAX;
 * -ENOMEM. *out holds nothing to release unless 0 is returned. */
int http_parse_reply(const char *buf, size_t len, bool eof, struct http_reply *out,
		     size_t *used);
