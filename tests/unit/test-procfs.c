// SPDX-License-Identifier: Apache-2.0
/* Unit tests for the doctor's procfs.c and conffiles.c: /proc/PID/limits,
 * status and environ, /proc/locks, and CNI config files, as the kernel and
 * runtimes write them. */
#include <errno.h>
#include <string.h>
#include "conffiles.h"
#include "procfs.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define LIMITS_HEAD "Limit                     Soft Limit           Hard Limit           Units     \n" \
	"Max cpu time              unlimited            unlimited            seconds   \n"

static const struct {
	const char *text;
	int ret;
	uint64_t soft, hard;
} limits[] = {
	{ LIMITS_HEAD "Max locked memory         65536                65536                bytes     \n",
	  0, 65536, 65536 },
	{ LIMITS_HEAD "Max locked memory         unlimited            unlimited            bytes     \n",
	  0, PROCFS_UNLIMITED, PROCFS_UNLIMITED },
	{ "Max locked memory 8388608 unlimited bytes", 0, 8388608, PROCFS_UNLIMITED },
	{ LIMITS_HEAD, -ENOENT, 0, 0 },
	{ "Max locked memory         lots                 65536                bytes\n", -EINVAL, 0, 0 },
	{ "Max locked memory         65536\n", -EINVAL, 0, 0 },
	{ "Max locked memory 99999999999999999999999 1 bytes", -EINVAL, 0, 0 },
	{ "", -ENOENT, 0, 0 },
};

START_TEST(test_memlock)
{
	uint64_t soft = 0, hard = 0;

	ck_assert_int_eq(procfs_memlock(limits[_i].text, &soft, &hard), limits[_i].ret);
	if (!limits[_i].ret) {
		ck_assert_uint_eq(soft, limits[_i].soft);
		ck_assert_uint_eq(hard, limits[_i].hard);
	}
}
END_TEST

START_TEST(test_cap_eff)
{
	uint64_t caps = 0;

	ck_assert_int_eq(procfs_cap_eff("Name:\tsleep\nCapInh:\t0\nCapEff:\t000001ffffffffff\n"
					"CapBnd:\t0\n", &caps), 0);
	ck_assert_uint_eq(caps, 0x1ffffffffffULL);
	ck_assert(caps >> PROCFS_CAP_IPC_LOCK & 1);
	ck_assert_int_eq(procfs_cap_eff("CapEff:\t000001ffffffbfff\n", &caps), 0);
	ck_assert(!(caps >> PROCFS_CAP_IPC_LOCK & 1));
	ck_assert_int_eq(procfs_cap_eff("CapPrm:\t0\n", &caps), -ENOENT);
	ck_assert_int_eq(procfs_cap_eff("CapEff:\tzz\n", &caps), -EINVAL);
}
END_TEST

START_TEST(test_environ)
{
	static const char env[] = "PATH=/bin\0NCCL_IB_HCA=mlx5_2\0NCCL_IB=x\0EMPTY=\0LAST=1";
	size_t len = sizeof(env) - 1;

	ck_assert_str_eq(procfs_environ_get(env, len, "NCCL_IB_HCA"), "mlx5_2");
	ck_assert_str_eq(procfs_environ_get(env, len, "NCCL_IB"), "x");
	ck_assert_str_eq(procfs_environ_get(env, len, "EMPTY"), "");
	ck_assert_str_eq(procfs_environ_get(env, len, "LAST"), "1");
	ck_assert_ptr_null(procfs_environ_get(env, len, "NCCL"));
	ck_assert_ptr_null(procfs_environ_get(env, len, "MISSING"));
	ck_assert_ptr_null(procfs_environ_get(env, 0, "PATH"));
}
END_TEST

static const char locks[] =
	"1: FLOCK  ADVISORY  WRITE 4242 00:1a:123 0 EOF\n"
	"1: -> FLOCK  ADVISORY  WRITE 4343 00:1a:456 0 EOF\n"
	"2: POSIX  ADVISORY  WRITE 17 fd:01:456 0 EOF\n"
	"3: OFDLCK ADVISORY  READ -1 00:05:789 0 EOF\n"
	"garbage\n";

START_TEST(test_locks)
{
	pid_t pid = 0;

	ck_assert_int_eq(procfs_lock_holder(locks, 0, 0x1a, 123, &pid), 0);
	ck_assert_int_eq(pid, 4242);
	/* a waiter holds nothing */
	ck_assert_int_eq(procfs_lock_holder(locks, 0, 0x1a, 456, &pid), -ENOENT);
	ck_assert_int_eq(procfs_lock_holder(locks, 0xfd, 1, 456, &pid), 0);
	ck_assert_int_eq(pid, 17);
	ck_assert_int_eq(procfs_lock_holder(locks, 0, 0x1a, 999, &pid), -ENOENT);
	ck_assert_int_eq(procfs_lock_holder("", 0, 0x1a, 123, &pid), -ENOENT);
}
END_TEST

static const struct {
	const char *text;
	int ret, n;
	const char *name0, *version0;
} confs[] = {
	{ "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"type\":\"sriov-rdma\"}", 0, 1, "n", "1.0.0" },
	{ "{\"cniVersion\":\"1.0.0\",\"name\":\"l\",\"plugins\":[{\"type\":\"sriov-rdma\"},"
	  "{\"type\":\"tuning\",\"name\":\"own\"},{\"notype\":1},5]}", 0, 2, "l", "1.0.0" },
	{ "{\"name\":\"l\",\"plugins\":[]}", 0, 0, NULL, NULL },
	{ "{\"name\":\"x\"}", 0, 0, NULL, NULL },
	{ "[1,2]", -EINVAL, 0, NULL, NULL },
	{ "not json", -EINVAL, 0, NULL, NULL },
	{ "{\"plugins\":{\"type\":\"a\"},\"type\":\"b\"}", 0, 1, NULL, NULL },
};

START_TEST(test_conffiles)
{
	cJSON *out = cJSON_CreateArray();
	const cJSON *first;

	ck_assert_int_eq(conffiles_flatten(confs[_i].text, out), confs[_i].ret);
	ck_assert_int_eq(cJSON_GetArraySize(out), confs[_i].n);
	first = cJSON_GetArrayItem(out, 0);
	if (confs[_i].name0) {
		ck_assert_str_eq(cJSON_GetObjectItem(first, "name")->valuestring, confs[_i].name0);
		ck_assert_str_eq(cJSON_GetObjectItem(first, "cniVersion")->valuestring,
				 confs[_i].version0);
	}
	cJSON_Delete(out);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_memlock, 0, N(limits));
	tcase_add_test(tc, test_cap_eff);
	tcase_add_test(tc, test_environ);
	tcase_add_test(tc, test_locks);
	tcase_add_loop_test(tc, test_conffiles, 0, N(confs));
}

int main(void)
{
	return unit_run("procfs", add_tests);
}
