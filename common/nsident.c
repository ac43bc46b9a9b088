// SPDX-License-Identifier: Apache-2.0
/* Netns identity: the nsfs inode a path names and the boot it belongs to, recorded at ADD and judged by reconcile. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include "fileio.h"
#include "nsident.h"

#define BOOT_ID_PATH "/proc/sys/kernel/random/boot_id"
#define BOOT_ID_LEN 36

bool nsident_boot_valid(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (i >= BOOT_ID_LEN || (i == 8 || i == 13 || i == 18 || i == 23 ? s[i] != '-' :
					 !strchr("0123456789abcdef", s[i])))
			return false;
	return i == BOOT_ID_LEN;
}

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
	if (n != BOOT_ID_LEN + 1 || buf[BOOT_ID_LEN] != '\n')
		return -EINVAL;
	buf[BOOT_ID_LEN] = '\0';
	if (!nsident_boot_valid(buf))
		return -EINVAL;
	memcpy(out, buf, BOOT_ID_LEN + 1);
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
	return path && path[0] == '/' && rec->ino && rec->boot[0];
}

/* In the initial PID namespace, /proc/self/status names one pid in NSpid:
 * only there is every /proc/<pid> of the node visible. */
static bool sees_every_pid(void)
{
	char *status = NULL, *line, *end;
	int levels = 0;
	size_t len;

	if (fileio_read_max("/proc/self", "status", 1 << 16, &status, &len) < 0)
		return false;
	line = strstr(status, "\nNSpid:");
	if (line)
		for (end = strchrnul(line + 1, '\n'); line < end; line++)
			levels += *line == '\t';
	free(status);
	return levels == 1;
}

/* What an absent path says. Absent with its directory there: gone. Absent
 * because this process cannot see that place (a container without the
 * runtime's netns directory, or outside the node's PID namespace for a
 * /proc/<pid>/ns/net path): nothing can be said. */
static enum nsident_verdict absent(const char *path)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (!strncmp(path, "/proc/", 6))
		return sees_every_pid() ? NSIDENT_GONE : NSIDENT_UNKNOWN;
	if ((size_t)(slash - path) >= sizeof(dir))
		return NSIDENT_UNKNOWN;
	memcpy(dir, path, slash - path);
	dir[slash - path] = '\0';
	return !stat(dir[0] ? dir : "/", &st) && S_ISDIR(st.st_mode) ? NSIDENT_GONE
								      : NSIDENT_UNKNOWN;
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
	if (ret == -ENOENT)
		return absent(path);
	/* A plain file where the netns was mounted is what a container whose
	 * netns directory lacks mount propagation sees of a live pod's netns
	 * (the file without its mount): nothing can be said (-EINVAL). */
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
