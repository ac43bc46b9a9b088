/* SPDX-License-Identifier: Apache-2.0 */
/* An attachment's on-disk records without I/O: its state file and its VF lock file's holder line. */
#pragma once

#include <limits.h>
#include <stddef.h>
#include <net/if.h>
#include "netconf.h"

struct attach;

/* A state file is a few hundred bytes: past this it is damage, not a record. */
#define RECORD_STATE_MAX 16384

/* The state file name <containerID>:<ifname>.json, and its split (-EINVAL
 * for other names). */
void record_state_name(const char *containerid, const char *ifname, char *out, size_t size);
int record_state_split(const char *name, char *containerid, size_t size, char ifname[IFNAMSIZ]);

/* The state file's text (malloc'd; NULL when out of memory). */
char *record_state_encode(const struct attach *a);
/* Takes a state file's text (len bytes, NUL-terminated) into *a when it is
 * one record_state_encode writes, or one an earlier version wrote (no
 * "network": a->network ""): every field there with its type, numbers
 * integral and within their type, identities valid. Keys it does not know
 * are left alone (a later version's). -EBADMSG otherwise, *a untouched. */
int record_state_decode(const char *text, size_t len, struct attach *a);

/* The lock file of a VF names the state file of the attachment that holds
 * it: "<dataDir>/<containerID>:<ifname>.json", no newline. */
struct record_holder {
	char dir[PATH_MAX];		/* "" when the lock file names no holder */
	char containerid[NETCONF_NAME_MAX];
	char ifname[IFNAMSIZ];
};

#define RECORD_HOLDER_MAX (PATH_MAX + NETCONF_NAME_MAX + IFNAMSIZ + 8)

/* The line for (dir, containerid, ifname): -EINVAL when dir is not one
 * record_holder_parse takes (absolute, no "." or ".." or empty component,
 * visible ASCII), -ENAMETOOLONG past RECORD_HOLDER_MAX. */
int record_holder_format(const char *dir, const char *containerid, const char *ifname,
			 char out[RECORD_HOLDER_MAX]);
/* An empty text is no holder; anything record_holder_format cannot have
 * written is -EBADMSG. */
int record_holder_parse(const char *text, size_t len, struct record_holder *h);
