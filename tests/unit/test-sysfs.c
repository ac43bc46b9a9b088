// SPDX-License-Identifier: Apache-2.0
/* sysfs: VF and SF facts read from fake trees in the real /sys layout. */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sysfs.h"
#include "unit.h"

static char root[PATH_MAX];

static void make_dirs(char *path)
{
	char *p;

	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		ck_assert(mkdir(path, 0755) == 0 || errno == EEXIST);
		*p = '/';
	}
	ck_assert(mkdir(path, 0755) == 0 || errno == EEXIST);
}

/* A file holding text (and a newline, as sysfs attributes end). */
static void write_file(char *path, const char *text)
{
	char *slash = strrchr(path, '/');
	FILE *f;

	*slash = '\0';
	make_dirs(path);
	*slash = '/';
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%s\n", text);
	fclose(f);
}

/* Entries are "dir", "link -> target" or "file = text", relative to root. */
static void build_tree(const char *const *tree)
{
	char path[PATH_MAX], *arrow, *slash, *eq;

	for (; *tree; tree++) {
		ck_assert(snprintf(path, sizeof(path), "%s/%s", root, *tree) < (int)sizeof(path));
		arrow = strstr(path, " -> ");
		eq = strstr(path, " = ");
		if (eq) {
			*eq = '\0';
			write_file(path, eq + 3);
			continue;
		}
		if (!arrow) {
			make_dirs(path);
			continue;
		}
		*arrow = '\0';
		slash = strrchr(path, '/');
		*slash = '\0';
		make_dirs(path);
		*slash = '/';
		ck_assert_msg(symlink(arrow + 4, path) == 0, "symlink %s: %s", path, strerror(errno));
	}
}

static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/test-sysfs-%d-XXXXXX", getpid());
	ck_assert_ptr_nonnull(mkdtemp(root));
	setenv("SYSFS_PATH", root, 1);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void teardown(void)
{
	nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	unsetenv("SYSFS_PATH");
}

#define PCI "bus/pci/devices/"
#define PF PCI "0000:3b:00.0"
#define VF PCI "0000:3b:00.2"
#define MLX5 VF "/driver -> ../../../bus/pci/drivers/mlx5_core"
/* a PF with netdev ens8f0 and VFs 0 (00.1) and 2 (00.2) */
#define SRIOV PF "/net/ens8f0", PF "/virtfn0 -> ../0000:3b:00.1", \
	PF "/virtfn2 -> ../0000:3b:00.2", VF "/physfn -> ../0000:3b:00.0"

struct tree_case {
	const char *name;
	const char *id;
	bool aux;
	const char *tree[12];
	int ret;
	int code;
	const char *msg;	/* %s: the root */
	struct sysfs_vf want;
};

static const struct tree_case cases[] = {
	{ "normal VF", "0000:3b:00.2", false,
	  { SRIOV, MLX5, VF "/net/ens8f0v2", VF "/infiniband/mlx5_2" },
	  0, 0, NULL,
	  { "0000:3b:00.2", "0000:3b:00.0", "ens8f0", 2, "mlx5_core", "ens8f0v2", { "mlx5_2" }, 1 } },
	{ "real layout", "0000:3b:00.2", false,
	  { PCI "0000:3b:00.0 -> ../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0",
	    PCI "0000:3b:00.2 -> ../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.2",
	    "devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/net/ens8f0",
	    "devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/virtfn2 -> ../0000:3b:00.2",
	    "devices/pci0000:3a/0000:3a:00.0/0000:3b:00.2/physfn -> ../0000:3b:00.0",
	    "devices/pci0000:3a/0000:3a:00.0/0000:3b:00.2/driver -> ../../../../bus/pci/drivers/mlx5_core",
	    "devices/pci0000:3a/0000:3a:00.0/0000:3b:00.2/net/ens8f0v2",
	    "devices/pci0000:3a/0000:3a:00.0/0000:3b:00.2/infiniband/mlx5_2" },
	  0, 0, NULL,
	  { "0000:3b:00.2", "0000:3b:00.0", "ens8f0", 2, "mlx5_core", "ens8f0v2", { "mlx5_2" }, 1 } },
	{ "VF bound to vfio-pci", "0000:3b:00.2", false,
	  { SRIOV, VF "/driver -> ../../../bus/pci/drivers/vfio-pci" },
	  0, 0, NULL,
	  { "0000:3b:00.2", "0000:3b:00.0", "ens8f0", 2, "vfio-pci", "", { "" }, 0 } },
	{ "VF without netdev (in a pod)", "0000:3b:00.2", false,
	  { SRIOV, MLX5, VF "/net", VF "/infiniband" },
	  0, 0, NULL,
	  { "0000:3b:00.2", "0000:3b:00.0", "ens8f0", 2, "mlx5_core", "", { "" }, 0 } },
	{ "unbound VF, PF netdev elsewhere", "0000:3b:00.2", false,
	  { PF "/virtfn2 -> ../0000:3b:00.2", VF "/physfn -> ../0000:3b:00.0" },
	  0, 0, NULL,
	  { "0000:3b:00.2", "0000:3b:00.0", "", 2, "", "", { "" }, 0 } },
	{ "two RDMA devices", "0000:3b:00.2", false,
	  { SRIOV, MLX5, VF "/net/ens8f0v2", VF "/infiniband/mlx5_3", VF "/infiniband/mlx5_2" },
	  0, 0, NULL,
	  { "0000:3b:00.2", "0000:3b:00.0", "ens8f0", 2, "mlx5_core", "ens8f0v2",
	    { "mlx5_2", "mlx5_3" }, 2 } },
	{ "no RDMA device", "0000:3b:00.2", false,
	  { SRIOV, MLX5, VF "/net/ens8f0v2" },
	  0, 0, NULL,
	  { "0000:3b:00.2", "0000:3b:00.0", "ens8f0", 2, "mlx5_core", "ens8f0v2", { "" }, 0 } },
	{ "not a VF", "0000:3b:00.0", false,
	  { SRIOV, MLX5 },
	  -ENODEV, CNI_ERR_DEVICE, "PCI device 0000:3b:00.0 is not an SR-IOV VF (no physfn): deviceID must name a VF, not a PF", { .bdf = "" } },
	{ "missing device", "0000:3b:00.9", false,
	  { SRIOV },
	  -ENODEV, CNI_ERR_DEVICE, "no PCI device 0000:3b:00.9 under %s/bus/pci/devices: the VF does not exist; "
	  "check its PF's sriov_numvfs (VF creation fails when numVfs is above sriov_totalvfs) "
	  "and the device plugin's resource list", { .bdf = "" } },
	/* the VF's place from the PF's SR-IOV offset and stride, one link read */
	{ "VF by sriov_offset and sriov_stride", "0000:3b:00.4", false,
	  { PF "/sriov_offset = 2", PF "/sriov_stride = 2", PF "/virtfn1 -> ../0000:3b:00.4",
	    PCI "0000:3b:00.4/physfn -> ../0000:3b:00.0" },
	  0, 0, NULL,
	  { "0000:3b:00.4", "0000:3b:00.0", "", 1, "", "", { "" }, 0 } },
	{ "VF on the next bus by offset", "0000:3c:00.1", false,
	  { PF "/sriov_offset = 257", PF "/sriov_stride = 1", PF "/virtfn0 -> ../0000:3c:00.1",
	    PCI "0000:3c:00.1/physfn -> ../0000:3b:00.0" },
	  0, 0, NULL,
	  { "0000:3c:00.1", "0000:3b:00.0", "", 0, "", "", { "" }, 0 } },
	{ "offset that misses: virtfn links walked", "0000:3b:00.2", false,
	  { PF "/sriov_offset = 1", PF "/sriov_stride = 1", PF "/virtfn1 -> ../0000:3b:00.3",
	    PF "/virtfn7 -> ../0000:3b:00.2", VF "/physfn -> ../0000:3b:00.0" },
	  0, 0, NULL,
	  { "0000:3b:00.2", "0000:3b:00.0", "", 7, "", "", { "" }, 0 } },
	{ "VF not listed by PF", "0000:3b:00.2", false,
	  { PF "/virtfn0 -> ../0000:3b:00.1", PF "/virtfn20 -> ../0000:3b:00.3",
	    VF "/physfn -> ../0000:3b:00.0" },
	  -ENODEV, CNI_ERR_DEVICE, "PCI device 0000:3b:00.2 is not listed by its PF 0000:3b:00.0",
	  { .bdf = "" } },
	{ "invalid address", "../../x", false,
	  { SRIOV },
	  -EINVAL, CNI_ERR_CONFIG, "invalid PCI address \"../../x\"", { .bdf = "" } },
	{ "auxiliary SF", "mlx5_core.sf.4", true,
	  { "bus/auxiliary/devices/mlx5_core.sf.4/net/enp59s0f0s4",
	    "bus/auxiliary/devices/mlx5_core.sf.4/infiniband/mlx5_5",
	    "bus/auxiliary/devices/mlx5_core.sf.4/driver -> ../../../../bus/auxiliary/drivers/mlx5_core.sf_driver" },
	  0, 0, NULL,
	  { "mlx5_core.sf.4", "", "", -1, "mlx5_core.sf_driver", "enp59s0f0s4", { "mlx5_5" }, 1 } },
	{ "missing SF", "mlx5_core.sf.5", true,
	  { "bus/auxiliary/devices/mlx5_core.sf.4/net/enp59s0f0s4" },
	  -ENODEV, CNI_ERR_DEVICE, "no auxiliary device mlx5_core.sf.5 under %s/bus/auxiliary/devices",
	  { .bdf = "" } },
	{ "invalid SF id", "../mlx5_core.sf.4", true,
	  { "bus/auxiliary/devices/mlx5_core.sf.4/net/enp59s0f0s4" },
	  -EINVAL, CNI_ERR_CONFIG, "invalid auxiliary device id \"../mlx5_core.sf.4\"", { .bdf = "" } },
};

START_TEST(test_read)
{
	const struct tree_case *c = &cases[_i];
	struct cni_err err = { 0 };
	struct sysfs_vf vf;
	char msg[CNI_ERR_MSG_MAX];
	int i, ret;

	build_tree(c->tree);
	ret = c->aux ? sysfs_aux_read(c->id, &vf, &err) : sysfs_vf_read(c->id, &vf, &err);
	ck_assert_msg(ret == c->ret, "%s: ret %d, want %d (%s)", c->name, ret, c->ret, err.msg);
	ck_assert_int_eq(err.code, c->code);
	if (c->msg) {
		snprintf(msg, sizeof(msg), c->msg, root);
		ck_assert_str_eq(err.msg, msg);
		return;
	}
	ck_assert_str_eq(vf.bdf, c->want.bdf);
	ck_assert_str_eq(vf.pf_bdf, c->want.pf_bdf);
	ck_assert_str_eq(vf.pf_ifname, c->want.pf_ifname);
	ck_assert_int_eq(vf.vf_index, c->want.vf_index);
	ck_assert_str_eq(vf.driver, c->want.driver);
	ck_assert_str_eq(vf.ifname, c->want.ifname);
	ck_assert_int_eq(vf.n_rdma, c->want.n_rdma);
	for (i = 0; i < c->want.n_rdma; i++)
		ck_assert_str_eq(vf.rdma[i], c->want.rdma[i]);
}
END_TEST

static const struct {
	const char *s;
	bool bdf;
	bool aux;
} names[] = {
	{ "0000:3b:00.2", true, false },
	{ "0000:af:1f.7", true, false },
	{ "0000:3B:00.2", false, false },
	{ "0000:3b:00.2/", false, false },
	{ "0000:3b:00", false, false },
	{ "00000:3b:00.2", false, false },
	{ "0000:3b.00:2", false, false },
	{ "0000:3g:00.2", false, false },
	{ "../../x", false, false },
	{ "0000:3b:00.2/../../..", false, false },
	{ "", false, false },
	{ "mlx5_core.sf.4", false, true },
	{ "mlx5_core.sf.12", false, true },
	{ "a.1", false, true },
	{ "mlx5_core.sf", false, false },
	{ "mlx5_core..4", false, false },
	{ ".mlx5_core.sf.4", false, false },
	{ "mlx5_core.sf.4.", false, false },
	{ "mlx5_core/sf.4", false, false },
	{ "../sf.4", false, false },
	{ "Mlx5.4", false, false },
	{ "4", false, false },
	{ "mlx5_core.sf.4x", false, false },
	{ "a_very_long_device_name_beyond_limits.sf.4", false, false },
};

START_TEST(test_names)
{
	ck_assert_msg(sysfs_valid_bdf(names[_i].s) == names[_i].bdf, "bdf \"%s\"", names[_i].s);
	ck_assert_msg(sysfs_valid_aux_id(names[_i].s) == names[_i].aux, "aux \"%s\"", names[_i].s);
}
END_TEST

/* What sriov_numvfs, sriov_offset, sriov_stride or net/<if>/type can hold
 * on disk: a value, or text that is none and must not read as 0. */
static const struct {
	const char *text;
	int ret, value;
} ints[] = {
	{ "4", 0, 4 },
	{ "32", 0, 32 },
	{ "-1", 0, -1 },
	{ "0", 0, 0 },
	{ "2147483647", 0, 2147483647 },
	{ "2147483648", -EINVAL, 0 },
	{ "-2147483649", -EINVAL, 0 },
	{ "99999999999999999999999", -EINVAL, 0 },
	{ "", -EINVAL, 0 },
	{ "12abc", -EINVAL, 0 },
	{ "4 ", -EINVAL, 0 },
	{ "0x10", -EINVAL, 0 },
	{ "-", -EINVAL, 0 },
};

START_TEST(test_parse_int)
{
	int v = 0;

	ck_assert_msg(sysfs_parse_int(ints[_i].text, &v) == ints[_i].ret, "\"%s\"", ints[_i].text);
	ck_assert_int_eq(v, ints[_i].value);
}
END_TEST

START_TEST(test_read_int)
{
	char path[PATH_MAX];
	int v = 7;

	ck_assert(snprintf(path, sizeof(path), "%s/sriov_numvfs", root) < (int)sizeof(path));
	ck_assert_int_eq(sysfs_read_int(path, &v), -ENOENT);
	write_file(path, "8");
	ck_assert_int_eq(sysfs_read_int(path, &v), 0);
	ck_assert_int_eq(v, 8);
	write_file(path, "eight");
	ck_assert_int_eq(sysfs_read_int(path, &v), -EINVAL);
	ck_assert_int_eq(v, 8);
}
END_TEST

/* The RDMA devices of VF after VF, as the duplicate-GUID check reads them. */
START_TEST(test_vf_rdma)
{
	static const char *const tree[] = {
		"bus/pci/devices/0000:3b:00.2/infiniband/mlx5_4",
		"bus/pci/devices/0000:3b:00.3/net/ib1",
		NULL,
	};
	struct sysfs_vf vf;

	build_tree(tree);
	ck_assert_int_eq(sysfs_vf_rdma("0000:3b:00.2", &vf), 0);
	ck_assert_str_eq(vf.bdf, "0000:3b:00.2");
	ck_assert_int_eq(vf.n_rdma, 1);
	ck_assert_str_eq(vf.rdma[0], "mlx5_4");
	ck_assert_int_eq(sysfs_vf_rdma("0000:3b:00.3", &vf), 0);
	ck_assert_int_eq(vf.n_rdma, 0);
	ck_assert_int_eq(sysfs_vf_rdma("0000:3b:00.9", &vf), 0);
	ck_assert_int_eq(vf.n_rdma, 0);
	ck_assert_int_eq(sysfs_vf_rdma("../../x", &vf), -EINVAL);
}
END_TEST

START_TEST(test_root)
{
	unsetenv("SYSFS_PATH");
	ck_assert_str_eq(sysfs_root(), "/sys");
	setenv("SYSFS_PATH", "/tmp/x", 1);
	ck_assert_str_eq(sysfs_root(), "/tmp/x");
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_read, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_loop_test(tc, test_names, 0, sizeof(names) / sizeof(names[0]));
	tcase_add_loop_test(tc, test_parse_int, 0, sizeof(ints) / sizeof(ints[0]));
	tcase_add_test(tc, test_read_int);
	tcase_add_test(tc, test_vf_rdma);
	tcase_add_test(tc, test_root);
}

int main(void)
{
	return unit_run("sysfs", add_tests);
}
