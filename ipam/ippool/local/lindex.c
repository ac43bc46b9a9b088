// SPDX-License-Identifier: Apache-2.0
/* Sorted address arrays in mmap'd files: lookups touch O(log n) pages, inserts move the tail. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lindex.h"

#define MAGIC "ippoolx1"
#define HDR 16			/* magic + count; keeps entries 16-byte aligned */
#define MIN_CAP 256
/* 2^26 addresses (1 GiB) per scope: more than any cluster holds; a bigger
 * file is damage, and rebuilt. */
#define MAX_CAP ((size_t)1 << 26)

static int map(struct lidx *x, size_t len)
{
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, x->fd, 0);

	if (m == MAP_FAILED)
		return -errno;
	x->map = m;
	x->map_len = len;
	x->count = (uint64_t *)((char *)m + 8);
	x->a = (ipaddr_u128 *)((char *)m + HDR);
	x->cap = (len - HDR) / sizeof(ipaddr_u128);
	return 0;
}

/* The file's blocks are allocated, not only its size set: a store on a full
 * disk fails here with ENOSPC rather than with SIGBUS at a write to the map. */
static int allocate(int fd, size_t len)
{
	return -posix_fallocate(fd, 0, (off_t)len);
}

/* Every lookup is a binary search: entries out of order (a damaged file)
 * would make a taken address look free, so such an index is refused and
 * rebuilt from the leases. */
static bool ascending(const struct lidx *x)
{
	for (size_t i = 1; i < lidx_len(x); i++)
		if (x->a[i - 1] >= x->a[i])
			return false;
	return true;
}

int lidx_open(int dirfd, const char *name, struct lidx *x)
{
	struct stat st;
	int ret;

	memset(x, 0, sizeof(*x));
	/* O_NONBLOCK: a FIFO put in its place must not hang the open. */
	x->fd = openat(dirfd, name, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (x->fd < 0)
		return errno == ENOENT ? -ENOENT : errno == ELOOP ? -EBADMSG : -errno;
	ret = -errno;
	if (fstat(x->fd, &st) < 0)
		goto fail;
	/* Every index starts with its header: an empty file was cut, not made. */
	ret = -EBADMSG;
	if (!S_ISREG(st.st_mode) || st.st_size < HDR || (st.st_size - HDR) % sizeof(ipaddr_u128) ||
	    (size_t)(st.st_size - HDR) / sizeof(ipaddr_u128) > MAX_CAP)
		goto fail;
	ret = map(x, (size_t)st.st_size);
	if (ret)
		goto fail;
	ret = -EBADMSG;
	if (memcmp(x->map, MAGIC, 8) || *x->count > x->cap || !ascending(x))
		goto fail;
	return 0;
fail:
	lidx_close(x);
	return ret;
}

int lidx_create(int dirfd, const char *name, struct lidx *x)
{
	const char hdr[HDR] = MAGIC;
	int fd, ret;

	fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	ret = allocate(fd, HDR + MIN_CAP * sizeof(ipaddr_u128));
	if (!ret && pwrite(fd, hdr, HDR, 0) != HDR)
		ret = errno ? -errno : -EIO;
	close(fd);
	if (!ret)
		ret = lidx_open(dirfd, name, x);
	if (ret)
		unlinkat(dirfd, name, 0);
	return ret;
}

void lidx_close(struct lidx *x)
{
	if (x->map)
		munmap(x->map, x->map_len);
	if (x->fd >= 0)
		close(x->fd);
	memset(x, 0, sizeof(*x));
	x->fd = -1;
}

static size_t lower_bound(const struct lidx *x, ipaddr_u128 v)
{
	size_t lo = 0, hi = lidx_len(x);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->a[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool lidx_has(const struct lidx *x, ipaddr_u128 v)
{
	size_t i = lower_bound(x, v);

	return i < lidx_len(x) && x->a[i] == v;
}

size_t lidx_count(const struct lidx *x, const struct pool_span *span)
{
	size_t end = span->last == ~(ipaddr_u128)0 ? lidx_len(x) : lower_bound(x, span->last + 1);

	return end - lower_bound(x, span->first);
}

static int grow(struct lidx *x)
{
	size_t cap = x->cap < MIN_CAP ? MIN_CAP : 2 * x->cap;
	size_t len = HDR + cap * sizeof(ipaddr_u128);
	int ret;

	if (cap > MAX_CAP)
		return -EFBIG;
	ret = allocate(x->fd, len);
	if (ret)
		return ret;
	munmap(x->map, x->map_len);
	x->map = NULL;
	return map(x, len);
}

int lidx_insert(struct lidx *x, ipaddr_u128 v)
{
	size_t i = lower_bound(x, v), n = lidx_len(x);
	int ret;

	if (i < n && x->a[i] == v)
		return -EEXIST;
	if (n == x->cap) {
		ret = grow(x);
		if (ret)
			return ret;
	}
	memmove(&x->a[i + 1], &x->a[i], (n - i) * sizeof(ipaddr_u128));
	x->a[i] = v;
	*x->count = n + 1;
	return 0;
}

int lidx_remove(struct lidx *x, ipaddr_u128 v)
{
	size_t i = lower_bound(x, v), n = lidx_len(x);

	if (i == n || x->a[i] != v)
		return -ENOENT;
	memmove(&x->a[i], &x->a[i + 1], (n - i - 1) * sizeof(ipaddr_u128));
	*x->count = n - 1;
	return 0;
}

int lidx_write(int dirfd, const char *name, const ipaddr_u128 *a, size_t n)
{
	struct lidx x;
	int ret;

	if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
		return -errno;
	ret = lidx_create(dirfd, name, &x);
	if (ret)
		return ret;
	while (x.cap < n && !ret)
		ret = grow(&x);
	if (!ret) {
		memcpy(x.a, a, n * sizeof(ipaddr_u128));
		*x.count = n;
	}
	lidx_close(&x);
	return ret;
}
