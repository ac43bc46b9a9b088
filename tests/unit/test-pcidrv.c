// SPDX-License-Identifier: Apache-2.0
/* pcidrv: the device's address written to the driver's unbind and bind
 * attributes of a fake sysfs tree, and every refusal before that. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "pcidrv.h"
#include "unit.h"

static char root[256];

static void at(char *out, const char *rel)
{
	snprintf(out, PATH_MAX, "%s/%s", root, rel);
}

static void setup(void)
{
	char path[PATH_MAX];

	snprintf(root, sizeof(root), "/tmp/test-pcidrv-%d-XXXXXX", getpid());
	ck_assert_ptr_nonnull(mkdtemp(root));
	setenv("SYSFS_PATH", root, 1);
	at(path, "bus");
	ck_assert_int_eq(mkdir(path, 0755), 0);
	at(path, "bus/pci");
	ck_assert_int_eq(mkdir(path, 0755), 0);
	at(path, "bus/pci/drivers");
	ck_assert_int_eq(mkdir(path, 0755), 0);
	at(path, "bus/pci/drivers/mlx5_core");
	ck_assert_int_eq(mkdir(path, 0755), 0);
	at(path, "bus/pci/drivers/mlx5_core/bind");
	close(open(path, O_CREAT | O_WRONLY, 0200));
	at(path, "bus/pci/drivers/mlx5_core/unbind");
	close(open(path, O_CREAT | O_WRONLY, 0200));
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	ck_assert_int_eq(system(cmd), 0);
	unsetenv("SYSFS_PATH");
}

static void assert_written(const char *attr, const char *want)
{
	char path[PATH_MAX], got[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/bus/pci/drivers/mlx5_core/%s", root, attr);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	if (!fgets(got, sizeof(got), f))
		got[0] = '\0';
	fclose(f);
	ck_assert_str_eq(got, want);
}

START_TEST(test_writes_address)
{
	ck_assert_int_eq(pcidrv_unbind("mlx5_core", "0000:3b:00.2"), 0);
	assert_written("unbind", "0000:3b:00.2");
	assert_written("bind", "");
	ck_assert_int_eq(pcidrv_bind("mlx5_core", "0000:3b:00.2"), 0);
	assert_written("bind", "0000:3b:00.2");
}
END_TEST

static const struct {
	const char *driver, *bdf;
	int ret;
} refusals[] = {
	{ "mlx5_core", "0000:3b:00.2\n", -EINVAL },
	{ "mlx5_core", "3b:00.2", -EINVAL },
	{ "mlx5_core", "../../x", -EINVAL },
	{ "../mlx5_core", "0000:3b:00.2", -EINVAL },
	{ "..", "0000:3b:00.2", -EINVAL },
	{ "", "0000:3b:00.2", -EINVAL },
	{ "ixgbe", "0000:3b:00.2", -ENOENT },
};

START_TEST(test_refusals)
{
	ck_assert_int_eq(pcidrv_bind(refusals[_i].driver, refusals[_i].bdf), refusals[_i].ret);
	ck_assert_int_eq(pcidrv_unbind(refusals[_i].driver, refusals[_i].bdf), refusals[_i].ret);
	assert_written("bind", "");
	assert_written("unbind", "");
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_writes_address);
	tcase_add_loop_test(tc, test_refusals, 0, sizeof(refusals) / sizeof(refusals[0]));
}

int main(void)
{
	return unit_run("pcidrv", add_tests);
}
