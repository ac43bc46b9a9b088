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
	int32_t n, n_pfs;
	uint64_t dev, ino, size;
	int64_t mtime_sec, mtime_nsec;
	uint8_t shared, has_offs;
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
	size_t len, pfs_len, devs_len, offs_len;
	char bin[PATH_MAX];
	struct stat sb;
	void *map;
	int fd;

	memset(st, 0, sizeof(*st));
	if (snapshot_path(path, ".bin", bin))
		return -ENAMETOOLONG;
	fd = open(bin, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	map = fstat(fd, &sb) < 0 || (size_t)sb.st_size < sizeof(h) ? MAP_FAILED :
	      mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	syscall(SYS_close, fd);
	if (map == MAP_FAILED)
		return -ESTALE;
	len = (size_t)sb.st_size;
	memcpy(&h, map, sizeof(h));
	tag(&want, json);
	want.n = h.n;
	want.n_pfs = h.n_pfs;
	want.shared = h.shared;
	want.has_offs = h.has_offs;
	pfs_len = (size_t)h.n_pfs * sizeof(st->pfs[0]);
	devs_len = (size_t)h.n * sizeof(st->devs[0]);
	offs_len = h.has_offs ? (size_t)(h.n + 1) * sizeof(uint32_t) : 0;
	if (memcmp(&h, &want, sizeof(h)) || h.n < 0 || h.n_pfs < 0 || h.n_pfs > RDMASIM_MAX_PFS ||
	    h.shared > 1 || h.has_offs > 1 || len != sizeof(h) + pfs_len + devs_len + offs_len ||
	    (offs_len && !(st->offs = malloc(offs_len)))) {
		munmap(map, len);
		return -ESTALE;
	}
	if (offs_len)
		memcpy(st->offs, (char *)map + len - offs_len, offs_len);
	st->json = *json;
	memcpy(st->pfs, (char *)map + sizeof(h), pfs_len);
	st->n_pfs = h.n_pfs;
	st->shared = h.shared;
	st->n = st->cap = h.n;
	st->devs = (struct rdmasim_dev *)((char *)map + sizeof(h) + pfs_len);
	st->map = map;
	st->map_len = len;
	return 0;
}

/* Best effort: a snapshot that cannot be written is parsed again next time. */
void rdmasim_snapshot_write(const char *path, const struct stat *json,
			    const struct rdmasim_state *st, const uint32_t *offs)
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
	h.n_pfs = st->n_pfs;
	h.shared = st->shared;
	h.has_offs = offs != NULL;
	ret = write_full(fd, &h, sizeof(h));
	if (!ret)
		ret = write_full(fd, st->pfs, (size_t)st->n_pfs * sizeof(st->pfs[0]));
	if (!ret)
		ret = write_full(fd, st->devs, (size_t)st->n * sizeof(st->devs[0]));
	if (!ret && offs)
		ret = write_full(fd, offs, (size_t)(st->n + 1) * sizeof(offs[0]));
	syscall(SYS_close, fd);
	if (ret || rename(tmp, bin) < 0)
		unlink(tmp);
}

/* A move changed one device: its record, the offsets and the tag of the
 * new JSON file are written over the snapshot of the old one, the tag
 * last, so a writer killed half-way leaves a snapshot of another file
 * (parsed anew next time). Under the world's lock: no reader in between. */
int rdmasim_snapshot_update(const char *path, const struct stat *old_json,
			    const struct stat *json, const struct rdmasim_state *st,
			    const uint32_t *offs, int i)
{
	size_t devs_at = sizeof(struct header) + (size_t)st->n_pfs * sizeof(st->pfs[0]);
	size_t offs_at = devs_at + (size_t)st->n * sizeof(st->devs[0]);
	struct header h, want;
	char bin[PATH_MAX];
	int fd, ret = -ESTALE;

	if (snapshot_path(path, ".bin", bin))
		return -ENAMETOOLONG;
	fd = open(bin, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	tag(&want, old_json);
	want.n = st->n;
	want.n_pfs = st->n_pfs;
	want.shared = st->shared;
	want.has_offs = 1;
	if (pread(fd, &h, sizeof(h), 0) != sizeof(h) || memcmp(&h, &want, sizeof(h)))
		goto out;
	tag(&h, json);
	h.n = st->n;
	h.n_pfs = st->n_pfs;
	h.shared = st->shared;
	h.has_offs = 1;
	if (pwrite(fd, &st->devs[i], sizeof(st->devs[i]), (off_t)(devs_at + (size_t)i * sizeof(st->devs[0]))) ==
		    sizeof(st->devs[i]) &&
	    pwrite(fd, offs, (size_t)(st->n + 1) * sizeof(offs[0]), (off_t)offs_at) ==
		    (ssize_t)((size_t)(st->n + 1) * sizeof(offs[0])) &&
	    pwrite(fd, &h, sizeof(h), 0) == sizeof(h))
		ret = 0;
out:
	syscall(SYS_close, fd);
	return ret;
}
