/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel's extended ack text (NLMSGERR_ATTR_MSG) of a netlink error. */
#pragma once

#include <stddef.h>
#include <linux/netlink.h>

#define NLACK_TEXT_MAX 256

/* e points into a received NLMSG_ERROR (as libnl's error callback gets it);
 * out gets the kernel's text, or "" when it sent none. */
void nlack_text(const struct nlmsgerr *e, char *out, size_t size);
