// SPDX-License-Identifier: Apache-2.0
/* Call records: the fixed-size binary record of one CNI call, its file appended and scanned. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "callrec.h"
#include "fileio.h"
#include "safeopen.h"

/* The layout: magic "CR", version, plugin, verb, network length, code,
 * duration, time, trace id, network, zeros, checksum. */
#define OFF_VERSION 2
#define OFF_PLUGIN 3
#define OFF_VERB 4
#define OFF_NETLEN 5
#define OFF_CODE 6
#define OFF_DURATION 8
#define OFF_TIME 12
#define OFF_TRACE 20
#define OFF_NETWORK 36
#define OFF_SUM (CALLREC_SIZE - 4)
#define VERSION 1

const char *callrec_dir(void)
{
	const char *dir = getenv("SRIOV_RDMA_AGENT_DIR");

	return dir && *dir ? dir : CALLREC_DIR;
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* FNV-1a: a torn or overwritten record must not read as another call. */
static uint32_t checksum(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

void callrec_encode(const struct callrec *r, uint8_t out[CALLREC_SIZE])
{
	size_t netlen = strnlen(r->network, CALLREC_NETWORK_MAX);

	memset(out, 0, CALLREC_SIZE);
	out[0] = 'C';
	out[1] = 'R';
	out[OFF_VERSION] = VERSION;
	out[OFF_PLUGIN] = r->plugin;
	out[OFF_VERB] = r->verb;
	out[OFF_NETLEN] = (uint8_t)netlen;
	put_le(out + OFF_CODE, r->code, 2);
	put_le(out + OFF_DURATION, r->duration_us, 4);
	put_le(out + OFF_TIME, r->time_ms, 8);
	memcpy(out + OFF_TRACE, r->trace, 16);
	memcpy(out + OFF_NETWORK, r->network, netlen);
	put_le(out + OFF_SUM, checksum(out, OFF_SUM), 4);
}

int callrec_decode(const uint8_t in[CALLREC_SIZE], struct callrec *r)
{
	size_t netlen = in[OFF_NETLEN];

	memset(r, 0, sizeof(*r));
	if (in[0] != 'C' || in[1] != 'R' || in[OFF_VERSION] != VERSION ||
	    get_le(in + OFF_SUM, 4) != checksum(in, OFF_SUM) || netlen > CALLREC_NETWORK_MAX ||
	    memchr(in + OFF_NETWORK, '\0', netlen))
		return -EBADMSG;
	for (size_t i = OFF_NETWORK + netlen; i < OFF_SUM; i++)
		if (in[i])
			return -EBADMSG;
	r->plugin = in[OFF_PLUGIN];
	r->verb = in[OFF_VERB];
	r->code = (uint16_t)get_le(in + OFF_CODE, 2);
	r->duration_us = (uint32_t)get_le(in + OFF_DURATION, 4);
	r->time_ms = get_le(in + OFF_TIME, 8);
	memcpy(r->trace, in + OFF_TRACE, 16);
	memcpy(r->network, in + OFF_NETWORK, netlen);
	return 0;
}

size_t callrec_scan(const uint8_t *buf, size_t len, bool final, callrec_fn fn, void *arg,
		    uint64_t *damaged)
{
	size_t at = 0, skipped = 0;
	struct callrec r;

	while (len - at >= CALLREC_SIZE) {
		if (callrec_decode(buf + at, &r) == 0) {
			*damaged += (skipped + CALLREC_SIZE - 1) / CALLREC_SIZE;
			skipped = 0;
			fn(&r, arg);
			at += CALLREC_SIZE;
		} else {
			skipped++;
			at++;
		}
	}
	if (final) {
		skipped += len - at;
		at = len;
	}
	*damaged += (skipped + CALLREC_SIZE - 1) / CALLREC_SIZE;
	return at;
}

/* safeopen_file of dir/name for appending, dir created when absent. */
static int open_append(const char *dir, const char *name)
{
	char path[PATH_MAX];
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = safeopen_file(path, O_WRONLY | O_APPEND | O_CREAT, 0600);
	if (fd == -ENOENT && fileio_mkdir(dir) == 0)
		fd = safeopen_file(path, O_WRONLY | O_APPEND | O_CREAT, 0600);
	return fd;
}

/* One write of n bytes to dir/name unless it holds CALLREC_FILE_MAX bytes
 * already (-ENOSPC). */
static int append(const char *dir, const char *name, const void *data, size_t n)
{
	int fd = open_append(dir, name), ret;
	struct stat st;
	ssize_t w;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
	} else if (st.st_size >= CALLREC_FILE_MAX) {
		ret = -ENOSPC;
	} else {
		w = write(fd, data, n);
		ret = w == (ssize_t)n ? 0 : w < 0 ? -errno : -EIO;
	}
	close(fd);
	return ret;
}

int callrec_append(const char *dir, const struct callrec *r)
{
	uint8_t rec[CALLREC_SIZE];
	int ret;

	callrec_encode(r, rec);
	ret = append(dir, CALLREC_FILE, rec, sizeof(rec));
	if (ret == -ENOSPC)
		append(dir, CALLREC_DROPPED, "d", 1);
	return ret;
}

int callrec_probe(const char *dir)
{
	int fd = open_append(dir, CALLREC_FILE);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}
