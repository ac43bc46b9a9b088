// SPDX-License-Identifier: Apache-2.0
/* Netns identity: the nsfs inode a path names and the boot it belongs to, recorded at ADD and judged by reconcile. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include "nsident.h"

#define BOOT_ID_PATH "/proc/sys/kernel/random/boot_id"
#define BOOT_ID_LEN 36

int nsident_boot(char out[NSIDENT_BOOT_MAX])
{
	char buf[NSIDENT_BOOT_MAX + 1];
	ssize_t n;
	int fd, ret;

	out[0] = '\0';
	fd = open(BOOT_ID_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	ret = n < 0 ? -errno : 0;
	close(fd);
	if (ret)
		return ret;
	if (n != BOOT_ID_LEN + 1 || buf[BOOT_ID_LEN] != '\n' ||
	    strcspn(buf, "\n") != BOOT_ID_LEN)
		return -EINVAL;
	memcpy(out, buf, BOOT_ID_LEN);
	out[BOOT_ID_LEN] = '\0';
	return 0;
}

/* The boot is the caller's: nsident_of is called once per ADD, after
 * nsident_boot, and reconcile compares inodes within one boot only. */
int nsident_of(const char *path, struct nsident *out)
{
	struct statfs sfs;
	struct stat st;

	memset(out, 0, sizeof(*out));
	if (stat(path, &st) < 0)
		return -errno;
	if (statfs(path, &sfs) < 0)
		return -errno;
	if (sfs.f_type != NSFS_MAGIC)
		return -EINVAL;
	out->dev = st.st_dev;
	out->ino = st.st_ino;
	return 0;
}

static bool recorded(const char *path, const struct nsident *rec)
{
	return path && path[0] && rec->ino && rec->boot[0];
}

enum nsident_verdict nsident_judge(const char *path, const struct nsident *rec,
				   const char *boot_now)
{
	struct nsident now;
	int ret;

	if (!recorded(path, rec) || !boot_now[0])
		return NSIDENT_UNKNOWN;
	if (strcmp(rec->boot, boot_now))
		return NSIDENT_GONE;
	ret = nsident_of(path, &now);
	/* ip netns del unmounts and unlinks; a mount point left behind is a
	 * plain file of the tmpfs: no netns there (-EINVAL). */
	if (ret == -ENOENT || ret == -ENOTDIR || ret == -EINVAL)
		return NSIDENT_GONE;
	if (ret)
		return NSIDENT_UNKNOWN;
	return now.dev == rec->dev && now.ino == rec->ino ? NSIDENT_LIVE : NSIDENT_GONE;
}

const char *nsident_verdict_name(enum nsident_verdict v)
{
	static const char *const names[] = {
		[NSIDENT_LIVE] = "live",
		[NSIDENT_GONE] = "gone",
		[NSIDENT_UNKNOWN] = "unknown",
	};

	return names[v];
}
