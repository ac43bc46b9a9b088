// SPDX-License-Identifier: Apache-2.0
/* The parsed state as raw structs in "<state>.bin", tagged with the JSON
 * file it was parsed from, so a request in a thousand-device world reads
 * 150 KiB instead of parsing JSON (about 2 ms a request, measured). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "snapshot.h"

#define SNAPSHOT_MAGIC 0x72736d31u	/* "rsm1" */

/* Which JSON file, byte for byte as far as stat can tell: every writer
 * replaces it by rename (a new inode), an editor in place changes its
 * size or mtime. */
struct header {
	uint32_t magic, dev_size, pf_size;
	int32_t n;
	uint64_t dev, ino, size;
	int64_t mtime_sec, mtime_nsec;
	uint8_t shared;
};

static void tag(struct header *h, const struct stat *json)
{
	memset(h, 0, sizeof(*h));
	h->magic = SNAPSHOT_MAGIC;
	h->dev_size = sizeof(struct rdmasim_dev);
	h->pf_size = sizeof(struct rdmasim_pf);
	h->dev = json->st_dev;
	h->ino = json->st_ino;
	h->size = (uint64_t)json->st_size;
	h->mtime_sec = json->st_mtim.tv_sec;
	h->mtime_nsec = json->st_mtim.tv_nsec;
}

static int snapshot_path(const char *path, const char *suffix, char *out)
{
	return snprintf(out, PATH_MAX, "%s%s", path, suffix) >= PATH_MAX ? -ENAMETOOLONG : 0;
}

static int write_full(int fd, const void *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0)
			return -errno;
		buf = (const char *)buf + n;
		len -= (size_t)n;
	}
	return 0;
}

/* Mapped, not read: a request touches only the pages it needs (a mode
 * request none of the devices), and page faults are most of the cost of
 * reading 150 KiB into a fresh process. */
int rdmasim_snapshot_read(const char *path, const struct stat *json, struct rdmasim_state *st)
{
	struct header h, want;
	char bin[PATH_MAX];
	struct stat sb;
	size_t len;
	void *map;
	int fd;

	memset(st, 0, sizeof(*st));
	if (snapshot_path(path, ".bin", bin))
		return -ENAMETOOLONG;
	fd = open(bin, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	map = fstat(fd, &sb) < 0 || (size_t)sb.st_size < sizeof(h) + sizeof(st->pf) ? MAP_FAILED :
	      mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	syscall(SYS_close, fd);
	if (map == MAP_FAILED)
		return -ESTALE;
	len = (size_t)sb.st_size;
	memcpy(&h, map, sizeof(h));
	tag(&want, json);
	want.n = h.n;
	want.shared = h.shared;
	if (memcmp(&h, &want, sizeof(h)) || h.n < 0 || h.shared > 1 ||
	    len != sizeof(h) + sizeof(st->pf) + (size_t)h.n * sizeof(st->devs[0])) {
		munmap(map, len);
		return -ESTALE;
	}
	memcpy(&st->pf, (char *)map + sizeof(h), sizeof(st->pf));
	st->shared = h.shared;
	st->n = st->cap = h.n;
	st->devs = (struct rdmasim_dev *)((char *)map + sizeof(h) + sizeof(st->pf));
	st->map = map;
	st->map_len = len;
	return 0;
}

/* Best effort: a snapshot that cannot be written is parsed again next time. */
void rdmasim_snapshot_write(const char *path, const struct stat *json,
			    const struct rdmasim_state *st)
{
	char bin[PATH_MAX], tmp[PATH_MAX];
	struct header h;
	int fd, ret;

	if (snapshot_path(path, ".bin", bin) || snapshot_path(path, ".bin.tmp", tmp))
		return;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	tag(&h, json);
	h.n = st->n;
	h.shared = st->shared;
	ret = write_full(fd, &h, sizeof(h));
	if (!ret)
		ret = write_full(fd, &st->pf, sizeof(st->pf));
	if (!ret)
		ret = write_full(fd, st->devs, (size_t)st->n * sizeof(st->devs[0]));
	syscall(SYS_close, fd);
	if (ret || rename(tmp, bin) < 0)
		unlink(tmp);
}
