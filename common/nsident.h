/* SPDX-License-Identifier: Apache-2.0 */
/* Which network namespace a path named at ADD, and whether that namespace is gone now: what both reconciles judge by. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* The kernel's boot id: 36 characters, changed by every boot. */
#define NSIDENT_BOOT_MAX 40

/* What an ADD records of its CNI_NETNS: the nsfs inode the path named then
 * and the boot it was in. An all-zero ino (or "" boot) means unknown: a
 * record written before reconcile existed, or an ADD without a netns. */
struct nsident {
	uint64_t dev;
	uint64_t ino;
	char boot[NSIDENT_BOOT_MAX];
};

/* /proc/sys/kernel/random/boot_id into out (NUL-terminated, newline
 * dropped); -errno, or -EINVAL when it is not one line holding a boot id. */
int nsident_boot(char out[NSIDENT_BOOT_MAX]);
/* s is a boot id as the kernel writes it: a UUID, 36 characters of
 * lower-case hex with '-' at 8, 13, 18 and 23 (what records that keep one
 * check it by). */
bool nsident_boot_valid(const char *s);

/* The identity of the netns at path now (stat follows /proc/PID/ns/net);
 * -ENOENT when path is absent, -EINVAL when it is not an nsfs inode. */
int nsident_of(const char *path, struct nsident *out);

enum nsident_verdict {
	NSIDENT_LIVE,		/* path names the recorded netns */
	NSIDENT_GONE,		/* another boot, path absent, or another netns (or none) there */
	NSIDENT_UNKNOWN,	/* nothing recorded, or path unreadable now: never freed */
};

/* Judges a recorded (path, identity) against boot_now (nsident_boot's). */
enum nsident_verdict nsident_judge(const char *path, const struct nsident *rec,
				   const char *boot_now);
/* "live", "gone", "unknown". */
const char *nsident_verdict_name(enum nsident_verdict v);
