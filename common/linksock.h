/* SPDX-License-Identifier: Apache-2.0 */
/* The inside of an rtnetlink socket, for the link*.c files alone: how they build and send requests. */
#pragma once

#include <stddef.h>
#include "err.h"
#include "nlreq.h"

struct nl_msg;

/* One rtnetlink socket, bound to one netns (link_sock_open, link.h). */
struct link_sock {
	struct nl_sock *sk;
	int netns;			/* where sk lives, to send links back here */
	char extack[NLREQ_TEXT_MAX];	/* the kernel's text for the last failed request */
};

/* A request of type with flags (NLM_F_REQUEST added) and its fixed header
 * hdr; NULL when out of memory. */
struct nl_msg *linksock_msg(int type, int flags, const void *hdr, size_t len);
/* The same with a struct ifinfomsg naming ifindex. */
struct nl_msg *linksock_link_msg(int type, int flags, int ifindex);
/* nlreq_exchange of msg on s, the kernel's text in s->extack; a dump is read
 * datagram by datagram, each sized by a peek. msg stays the caller's. */
int linksock_request(struct link_sock *s, struct nl_msg *msg, nlreq_parse_fn *parse, void *arg);
/* A dump of type (hdr, len: its fixed header, naming the family) through
 * parse, as linksock_request. */
int linksock_dump(struct link_sock *s, int type, const void *hdr, size_t len, nlreq_parse_fn *parse,
		  void *arg);
/* A change: sends msg (NULL: allocation failed) unless put, the return of
 * filling it, failed (-EMSGSIZE); frees msg. -errno. */
int linksock_change(struct link_sock *s, struct nl_msg *msg, int put);
/* Fills err (when not already set) with "<what>: <strerror>" and the
 * kernel's text in details; returns ret. */
__attribute__((format(printf, 4, 5)))
int linksock_fail(struct link_sock *s, struct cni_err *err, int ret, const char *fmt, ...);
