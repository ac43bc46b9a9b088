// SPDX-License-Identifier: Apache-2.0
/* Unit tests for callrec.c: records both ways, damaged bytes counted and skipped, the size cap. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "callrec.h"
#include "env.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct callrec samples[] = {
	{ CALLREC_SRIOV_RDMA, CNI_CMD_ADD, 0, 12345, 1796400000123ULL,
	  { 0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36 },
	  "rail-0" },
	{ CALLREC_IPPOOL, CNI_CMD_DEL, 11, UINT32_MAX, 0, { 0 }, "" },
	{ CALLREC_IPPOOL, CNI_CMD_COUNT, 65535, 0, UINT64_MAX, { 0 },
	  "a234567890123456789012345678901234567890123456789012345678901234" },
};

static void same(const struct callrec *a, const struct callrec *b)
{
	ck_assert_int_eq(a->plugin, b->plugin);
	ck_assert_int_eq(a->verb, b->verb);
	ck_assert_int_eq(a->code, b->code);
	ck_assert_uint_eq(a->duration_us, b->duration_us);
	ck_assert_uint_eq(a->time_ms, b->time_ms);
	ck_assert_mem_eq(a->trace, b->trace, 16);
	ck_assert_str_eq(a->network, b->network);
}

START_TEST(test_roundtrip)
{
	uint8_t buf[CALLREC_SIZE];
	struct callrec r;

	callrec_encode(&samples[_i], buf);
	ck_assert_int_eq(callrec_decode(buf, &r), 0);
	same(&r, &samples[_i]);
}
END_TEST

/* Any one byte changed: not a record. */
START_TEST(test_flip)
{
	uint8_t buf[CALLREC_SIZE];
	struct callrec r;

	for (size_t i = 0; i < CALLREC_SIZE; i++) {
		callrec_encode(&samples[0], buf);
		buf[i] ^= 0x10;
		ck_assert_int_eq(callrec_decode(buf, &r), -EBADMSG);
	}
}
END_TEST

START_TEST(test_truncated_name)
{
	struct callrec in = samples[0], r;
	uint8_t buf[CALLREC_SIZE];

	memset(in.network, 'n', CALLREC_NETWORK_MAX);
	in.network[CALLREC_NETWORK_MAX] = '\0';
	callrec_encode(&in, buf);
	ck_assert_int_eq(callrec_decode(buf, &r), 0);
	ck_assert_uint_eq(strlen(r.network), CALLREC_NETWORK_MAX);
}
END_TEST

struct seen {
	struct callrec r[8];
	int n;
};

static void collect(const struct callrec *r, void *arg)
{
	struct seen *s = arg;

	ck_assert_int_lt(s->n, 8);
	s->r[s->n++] = *r;
}

/* good, 5 bytes of junk, good, good, a torn half record */
START_TEST(test_scan)
{
	uint8_t buf[4 * CALLREC_SIZE + 5];
	size_t len = 0, used;
	struct seen s = { .n = 0 };
	uint64_t damaged = 0;

	callrec_encode(&samples[0], buf);
	len = CALLREC_SIZE;
	memset(buf + len, 'x', 5);
	len += 5;
	callrec_encode(&samples[1], buf + len);
	len += CALLREC_SIZE;
	callrec_encode(&samples[2], buf + len);
	len += CALLREC_SIZE;
	callrec_encode(&samples[0], buf + len);
	len += CALLREC_SIZE / 2;

	used = callrec_scan(buf, len, false, collect, &s, &damaged);
	ck_assert_int_eq(s.n, 3);
	same(&s.r[0], &samples[0]);
	same(&s.r[1], &samples[1]);
	same(&s.r[2], &samples[2]);
	ck_assert_uint_eq(damaged, 1);
	ck_assert_uint_eq(used, len - CALLREC_SIZE / 2);	/* the tail may still be written */
	used = callrec_scan(buf + used, len - used, true, collect, &s, &damaged);
	ck_assert_uint_eq(used, CALLREC_SIZE / 2);		/* unless nobody can */
	ck_assert_int_eq(s.n, 3);
	ck_assert_uint_eq(damaged, 2);
}
END_TEST

static char dir[64];

static void setup(void)
{
	strcpy(dir, "/tmp/test-callrec.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static off_t size_of(const char *sub, const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s%s/%s", dir, sub, name);
	return stat(path, &st) ? -1 : st.st_size;
}

/* Into a directory made on the way; at the cap a drop is counted instead. */
START_TEST(test_append_cap)
{
	char sub[96];
	int fd;

	snprintf(sub, sizeof(sub), "%s/a/b", dir);
	ck_assert_int_eq(callrec_append(sub, &samples[0]), 0);
	ck_assert_int_eq(callrec_append(sub, &samples[1]), 0);
	ck_assert_int_eq(size_of("/a/b", CALLREC_FILE), 2 * CALLREC_SIZE);
	snprintf(sub, sizeof(sub), "%s/a/b/" CALLREC_FILE, dir);
	fd = open(sub, O_WRONLY);
	ck_assert_int_eq(ftruncate(fd, CALLREC_FILE_MAX), 0);
	close(fd);
	snprintf(sub, sizeof(sub), "%s/a/b", dir);
	ck_assert_int_eq(callrec_append(sub, &samples[0]), -ENOSPC);
	ck_assert_int_eq(callrec_append(sub, &samples[0]), -ENOSPC);
	ck_assert_int_eq(size_of("/a/b", CALLREC_FILE), CALLREC_FILE_MAX);
	ck_assert_int_eq(size_of("/a/b", CALLREC_DROPPED), 2);
}
END_TEST

START_TEST(test_append_symlink)
{
	char link[96];

	snprintf(link, sizeof(link), "%s/" CALLREC_FILE, dir);
	ck_assert_int_eq(symlink("/tmp/elsewhere", link), 0);
	ck_assert_int_lt(callrec_append(dir, &samples[0]), 0);
	ck_assert_int_eq(access("/tmp/elsewhere", F_OK), -1);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_roundtrip, 0, N(samples));
	tcase_add_test(tc, test_flip);
	tcase_add_test(tc, test_truncated_name);
	tcase_add_test(tc, test_scan);
	tcase_add_test(tc, test_append_cap);
	tcase_add_test(tc, test_append_symlink);
}

int main(void)
{
	return unit_run("callrec", add_tests);
}
