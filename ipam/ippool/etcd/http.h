/* SPDX-License-Identifier: Apache-2.0 */
/* Plain HTTP/1.1 POST over one kept-alive TCP connection, for http:// etcd
 * endpoints: a CNI ADD cannot afford the milliseconds libcurl's library tree
 * costs to map at every exec (https:// still goes through libcurl). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include "http_reply.h"

#define HTTP_HOST_MAX 512

struct http_conn {
	int fd;				/* -1 when not connected */
	char hostport[HTTP_HOST_MAX + 16];	/* what fd is connected to */
};

void http_init(struct http_conn *c);
void http_close(struct http_conn *c);

/* POSTs a JSON body to url ("http://host:port/path"), reusing the connection
 * when it goes to the same host:port, within timeout_ms for the whole
 * exchange. auth: the Authorization header value, or NULL. On failure
 * returns -errno with a reason in why and leaves the connection closed. */
int http_post(struct http_conn *c, const char *url, const char *auth, const char *body,
	      long timeout_ms, struct http_reply *out, char *why, size_t why_size);
