/* SPDX-License-Identifier: Apache-2.0 */
/* Whether a network namespace other than the host's exists now. */
#pragma once

#include <stdbool.h>

/* Any netns but host (an inode) held by what user space can hold one with:
 * a thread in it, an nsfs bind mount of it (in the mount namespace of any
 * process), an open nsfs file of it, or a socket made in it. Seen through
 * /proc: the processes of the PID namespace /proc belongs to, those whose
 * files the caller may read (no ptrace access, nothing seen). Not seen: a
 * netns held only by a mount namespace no process is in, a descriptor in
 * flight (SCM_RIGHTS), or a kernel object (a tun file, an open
 * /proc/PID/net file). */
bool rdmasim_other_netns(unsigned long host);
