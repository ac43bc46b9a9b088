// SPDX-License-Identifier: Apache-2.0
/* The requests of the link*.c files: built with libnl, sent through the one netlink exchange, their errors named. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/rtnetlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include "linksock.h"

int linksock_request(struct link_sock *s, struct nl_msg *msg, nlreq_parse_fn *parse, void *arg)
{
	bool dump = nlmsg_hdr(msg)->nlmsg_flags & NLM_F_DUMP;
	int ret;

	/* the sequence number and port, as nl_send_auto() would give them */
	nl_complete_msg(s->sk, msg);
	/* A dump's datagrams are sized by the kernel to its largest message
	 * (rtnl_calcit) and more: read each whole, sized by a peek, or libnl
	 * reports it truncated (NLE_MSG_TRUNC) on a host with busy links. */
	if (dump)
		nl_socket_enable_msg_peek(s->sk);
	ret = nlreq_exchange(s->sk, nlmsg_hdr(msg), parse, arg, s->extack);
	if (dump)
		nl_socket_disable_msg_peek(s->sk);
	return ret;
}

int linksock_fail(struct link_sock *s, struct cni_err *err, int ret, const char *fmt, ...)
{
	char what[CNI_ERR_MSG_MAX];
	va_list ap;

	if (!err || cni_err_is_set(err))
		return ret;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	cni_err_set(err, CNI_ERR_NETLINK, "%s: %s", what, strerror(-ret));
	if (s->extack[0])
		cni_err_details(err, "%s", s->extack);
	return ret;
}

struct nl_msg *linksock_msg(int type, int flags, const void *hdr, size_t len)
{
	struct nl_msg *msg = nlmsg_alloc_simple(type, NLM_F_REQUEST | flags);

	if (msg && nlmsg_append(msg, (void *)hdr, len, NLMSG_ALIGNTO) < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

struct nl_msg *linksock_link_msg(int type, int flags, int ifindex)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex };

	return linksock_msg(type, flags, &ifi, sizeof(ifi));
}

int linksock_dump(struct link_sock *s, int type, const void *hdr, size_t len, nlreq_parse_fn *parse,
		  void *arg)
{
	struct nl_msg *msg = linksock_msg(type, NLM_F_DUMP, hdr, len);
	int ret = -ENOMEM;

	if (msg)
		ret = linksock_request(s, msg, parse, arg);
	nlmsg_free(msg);
	return ret;
}

int linksock_change(struct link_sock *s, struct nl_msg *msg, int put)
{
	int ret = -ENOMEM;

	if (msg)
		ret = put < 0 ? -EMSGSIZE : linksock_request(s, msg, NULL, NULL);
	nlmsg_free(msg);
	return ret;
}
