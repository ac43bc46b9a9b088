/* SPDX-License-Identifier: Apache-2.0 */
/* One netlink exchange for every family the plugins speak (rtnetlink, RDMA netlink), through libnl's core. */
#pragma once

/* Only the netlink modules include this: nothing beyond them sees libnl types. */

#include <stdbool.h>
#include <linux/netlink.h>

#define NLREQ_TEXT_MAX 256

struct nl_sock;

/* Handles one reply of a request; a non-zero return is kept and ends the
 * parsing, not the reading (no reply is left on the socket). */
typedef int nlreq_parse_fn(const struct nlmsghdr *nlh, void *arg);

/* A connected libnl socket of protocol (NETLINK_ROUTE, NETLINK_RDMA) that
 * asks the kernel for its error text (NETLINK_EXT_ACK) and no copy of the
 * request in its acks (NETLINK_CAP_ACK); no peek, no automatic ack.
 * -EPROTONOSUPPORT when the kernel has no such family. With
 * ack_opts_optional a kernel without these options still gets its socket. */
int nlreq_socket(int protocol, bool ack_opts_optional, struct nl_sock **out);

/* Sends req (its nlmsg_seq set) on sk and reads its replies to their end:
 * the ack (asked for, NLM_F_ACK, when parse is NULL), a dump's DONE, else
 * the one reply of a GET of one object (the kernel sends an error without
 * being asked). parse sees every reply of req's seq. Returns parse's first
 * non-zero return, or the kernel's -errno (of an NLMSG_ERROR, or of the
 * DONE that ends a dump that failed) with its text in text ("" when
 * none); a failure of libnl itself is -EIO with libnl's text, a dump that
 * overlapped a change (NLM_F_DUMP_INTR) -EINTR once every reply was read. */
int nlreq_exchange(struct nl_sock *sk, struct nlmsghdr *req, nlreq_parse_fn *parse, void *arg,
		   char text[NLREQ_TEXT_MAX]);
