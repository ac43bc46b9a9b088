// SPDX-License-Identifier: Apache-2.0
/* The one netlink exchange: a socket with extended acks, a request sent, its replies read through libnl's callbacks. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <netlink/attr.h>
#include <netlink/handlers.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include "nlreq.h"

/* What one request collects while its replies are read. */
struct reply {
	nlreq_parse_fn *parse;
	void *arg;
	uint32_t seq;
	int ret;		/* first non-zero return of parse */
	int error;		/* -errno from the kernel's NLMSG_ERROR */
	bool single;		/* a GET of one object: its reply is the end */
	bool done;
	char *text;
};

int nlreq_socket(int protocol, bool ack_opts_optional, struct nl_sock **out)
{
	struct nl_sock *sk;
	int one = 1, fd, ret;

	*out = NULL;
	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	ret = nl_connect(sk, protocol);
	if (ret == -NLE_PROTO_MISMATCH)
		ret = -EPROTONOSUPPORT;
	else if (ret < 0)
		ret = errno ? -errno : -EIO;
	if (ret < 0)
		goto out;
	/* replies fit libnl's buffer but for those a caller sizes by a peek */
	nl_socket_disable_msg_peek(sk);
	nl_socket_disable_auto_ack(sk);
	fd = nl_socket_get_fd(sk);
	if ((setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) < 0 ||
	     setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one)) < 0) &&
	    !ack_opts_optional) {
		ret = -errno;
		goto out;
	}
	*out = sk;
	sk = NULL;
	ret = 0;
out:
	nl_socket_free(sk);
	return ret;
}

/* libnl 3.7 does not read extack: the TLVs follow the request the kernel
 * copied back, or only its header when NETLINK_CAP_ACK capped it. e points
 * into a received NLMSG_ERROR (as libnl's error callback gets it). */
static void ack_text(const struct nlmsgerr *e, char *out, size_t size)
{
	const struct nlmsghdr *nlh = (const void *)((const char *)e - NLMSG_HDRLEN);
	struct nlattr *text;
	size_t off;

	out[0] = '\0';
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	off = NLMSG_ALIGN(NLMSG_HDRLEN + sizeof(*e));
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < NLMSG_HDRLEN || e->msg.nlmsg_len >= nlh->nlmsg_len)
			return;
		off += NLMSG_ALIGN(e->msg.nlmsg_len - NLMSG_HDRLEN);
	}
	if (off >= nlh->nlmsg_len)
		return;
	text = nla_find((const void *)((const char *)nlh + off), (int)(nlh->nlmsg_len - off),
			NLMSGERR_ATTR_MSG);
	if (text)
		snprintf(out, size, "%.*s", nla_len(text), (const char *)nla_data(text));
}

/* Replies to another request (none is expected on a socket read to the end
 * of each) are skipped. */
static int on_seq(struct nl_msg *msg, void *arg)
{
	return nlmsg_hdr(msg)->nlmsg_seq == ((struct reply *)arg)->seq ? NL_OK : NL_SKIP;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct reply *r = arg;

	/* keep reading after parse stopped, so no reply is left on the socket */
	if (r->parse && r->ret == 0)
		r->ret = r->parse(nlmsg_hdr(msg), r->arg);
	r->done = r->single;
	return NL_OK;
}

static int on_done(struct nl_msg *msg, void *arg)
{
	(void)msg;
	((struct reply *)arg)->done = true;
	return NL_STOP;
}

/* A dump's NLMSG_DONE carries its dumpit's result: one that failed sends
 * its -errno there, not in an NLMSG_ERROR (netlink_dump(); met on Debian's
 * 6.1 and 6.12 by the kernel lane). */
static int on_finish(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct reply *r = arg;
	int err;

	if (nlmsg_datalen(nlh) >= (int)sizeof(err)) {
		memcpy(&err, nlmsg_data(nlh), sizeof(err));
		if (err < 0)
			r->error = err;
	}
	return on_done(msg, arg);
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct reply *r = arg;

	(void)nla;
	r->error = e->error;
	r->done = true;
	ack_text(e, r->text, NLREQ_TEXT_MAX);
	return NL_STOP;
}

int nlreq_exchange(struct nl_sock *sk, struct nlmsghdr *req, nlreq_parse_fn *parse, void *arg,
		   char text[NLREQ_TEXT_MAX])
{
	struct reply r = { .parse = parse, .arg = arg, .seq = req->nlmsg_seq, .text = text };
	struct nl_cb *cb;
	int ret;

	if (!parse)
		req->nlmsg_flags |= NLM_F_ACK;
	r.single = !(req->nlmsg_flags & (NLM_F_ACK | NLM_F_DUMP));
	text[0] = '\0';
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		return -ENOMEM;
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, on_seq, &r);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &r);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &r);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_done, &r);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &r);
	ret = nl_sendto(sk, req, req->nlmsg_len);
	while (ret >= 0 && !r.done)
		ret = nl_recvmsgs(sk, cb);
	nl_cb_put(cb);
	if (r.error)
		return r.error;
	/* a dump that overlapped a change: every reply was read, and the
	 * caller may walk again for a consistent view */
	if (ret == -NLE_DUMP_INTR)
		return r.ret < 0 ? r.ret : -EINTR;
	if (ret < 0) {
		snprintf(text, NLREQ_TEXT_MAX, "libnl: %s", nl_geterror(ret));
		return -EIO;
	}
	return r.ret;
}
