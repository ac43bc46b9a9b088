// SPDX-License-Identifier: Apache-2.0
/* The kernel's extended ack text of a netlink error, for every netlink module. */
#include <stdio.h>
#include <netlink/attr.h>
#include "nlack.h"

/* libnl 3.7 does not read extack: the TLVs follow the request the kernel
 * copied back, or only its header when NETLINK_CAP_ACK capped it. */
void nlack_text(const struct nlmsgerr *e, char *out, size_t size)
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
