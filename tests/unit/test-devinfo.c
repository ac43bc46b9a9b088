// SPDX-License-Identifier: Apache-2.0
/* Unit tests for devinfo.c: a new device-info document, a device plugin's copy completed, copies that are not ours refused. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "devinfo.h"
#include "unit.h"

static const struct devinfo vf = { .pci = "0000:3b:00.2", .pf_pci = "0000:3b:00.0",
				   .rdma = "mlx5_3" };

struct merge_case {
	const char *name;
	const char *old;	/* NULL: no file */
	const struct devinfo *d;
	int ret;
	int code;
	const char *want;	/* the document, or a text in the error */
};

static const struct devinfo sf = { .pci = "mlx5_core.sf.4", .pf_pci = "", .rdma = "mlx5_9" };
static const struct devinfo no_rdma = { .pci = "0000:3b:00.2", .pf_pci = "0000:3b:00.0",
					.rdma = "" };

static const struct merge_case cases[] = {
	{ "new", NULL, &vf, 0, 0,
	  "{\"type\":\"pci\",\"version\":\"1.1.0\",\"pci\":{\"pci-address\":\"0000:3b:00.2\","
	  "\"pf-pci-address\":\"0000:3b:00.0\",\"rdma-device\":\"mlx5_3\"}}" },
	{ "new, sub-function: no PF address", NULL, &sf, 0, 0,
	  "{\"type\":\"pci\",\"version\":\"1.1.0\",\"pci\":{\"pci-address\":\"mlx5_core.sf.4\","
	  "\"rdma-device\":\"mlx5_9\"}}" },
	{ "new, no RDMA device", NULL, &no_rdma, 0, 0,
	  "{\"type\":\"pci\",\"version\":\"1.1.0\",\"pci\":{\"pci-address\":\"0000:3b:00.2\","
	  "\"pf-pci-address\":\"0000:3b:00.0\"}}" },
	/* what the SR-IOV device plugin writes, copied by Multus */
	{ "device plugin's copy", "{\"type\":\"pci\",\"version\":\"1.0.0\",\"pci\":{\"pci-address\":"
	  "\"0000:3b:00.2\",\"rdma-device\":\"mlx5_3\"}}", &vf, 0, 0,
	  "{\"type\":\"pci\",\"version\":\"1.1.0\",\"pci\":{\"pci-address\":\"0000:3b:00.2\","
	  "\"rdma-device\":\"mlx5_3\",\"pf-pci-address\":\"0000:3b:00.0\"}}" },
	{ "other keys are kept", "{\"type\":\"pci\",\"version\":\"1.1.0\",\"pci\":{\"pci-address\":"
	  "\"0000:3b:00.2\",\"vhost-net\":\"/dev/vhost-net\",\"x-vendor\":1},\"extra\":[1,2]}", &vf, 0, 0,
	  "{\"type\":\"pci\",\"version\":\"1.1.0\",\"pci\":{\"pci-address\":\"0000:3b:00.2\","
	  "\"vhost-net\":\"/dev/vhost-net\",\"x-vendor\":1,\"pf-pci-address\":\"0000:3b:00.0\","
	  "\"rdma-device\":\"mlx5_3\"},\"extra\":[1,2]}" },
	{ "the RDMA name the pod sees wins", "{\"type\":\"pci\",\"version\":\"1.1.0\",\"pci\":{"
	  "\"pci-address\":\"0000:3b:00.2\",\"rdma-device\":\"mlx5_host\"}}", &vf, 0, 0,
	  "{\"type\":\"pci\",\"version\":\"1.1.0\",\"pci\":{\"pci-address\":\"0000:3b:00.2\","
	  "\"rdma-device\":\"mlx5_3\",\"pf-pci-address\":\"0000:3b:00.0\"}}" },
	{ "an empty object", "{}", &vf, 0, 0,
	  "{\"type\":\"pci\",\"version\":\"1.1.0\",\"pci\":{\"pci-address\":\"0000:3b:00.2\","
	  "\"pf-pci-address\":\"0000:3b:00.0\",\"rdma-device\":\"mlx5_3\"}}" },
	{ "keys are case-sensitive", "{\"pci\":{\"Pci-Address\":\"x\"}}", &vf, 0, 0,
	  "{\"pci\":{\"Pci-Address\":\"x\",\"pci-address\":\"0000:3b:00.2\","
	  "\"pf-pci-address\":\"0000:3b:00.0\",\"rdma-device\":\"mlx5_3\"},\"type\":\"pci\","
	  "\"version\":\"1.1.0\"}" },
	{ "another VF", "{\"type\":\"pci\",\"pci\":{\"pci-address\":\"0000:3b:00.3\"}}", &vf,
	  -EINVAL, CNI_ERR_CONFIG, "\"pci-address\" is not 0000:3b:00.2" },
	{ "another PF", "{\"type\":\"pci\",\"pci\":{\"pf-pci-address\":\"0000:5e:00.0\"}}", &vf,
	  -EINVAL, CNI_ERR_CONFIG, "\"pf-pci-address\" is not 0000:3b:00.0" },
	{ "a number for an address", "{\"pci\":{\"pci-address\":3}}", &vf, -EINVAL, CNI_ERR_CONFIG,
	  "describes another device" },
	{ "another type", "{\"type\":\"vdpa\",\"vdpa\":{}}", &vf, -EINVAL, CNI_ERR_CONFIG,
	  "\"type\" is not \"pci\"" },
	{ "not an object", "[1]", &vf, -EBADMSG, CNI_ERR_DECODE, "not a JSON object" },
	{ "not JSON", "{\"type\":", &vf, -EBADMSG, CNI_ERR_DECODE, "not a JSON object" },
	{ "pci not an object", "{\"pci\":\"x\"}", &vf, -EBADMSG, CNI_ERR_DECODE,
	  "\"pci\" is not an object" },
};

START_TEST(test_merge)
{
	const struct merge_case *c = &cases[_i];
	struct cni_err err = { 0 };
	char *out = (char *)"untouched";
	int ret;

	ret = devinfo_merge(c->old, c->old ? strlen(c->old) : 0, c->d, "/run/f", &out, &err);
	ck_assert_msg(ret == c->ret, "%s: ret %d, want %d (%s)", c->name, ret, c->ret, err.msg);
	if (ret == 0) {
		ck_assert_msg(!strcmp(out, c->want), "%s:\n got %s\nwant %s", c->name, out, c->want);
		free(out);
		return;
	}
	ck_assert_ptr_null(out);
	ck_assert_int_eq(err.code, c->code);
	ck_assert_msg(strstr(err.msg, c->want) && strstr(err.msg, "/run/f"), "%s: %s", c->name,
		      err.msg);
}
END_TEST

/* The file is not NUL-terminated: only len bytes count. */
START_TEST(test_length)
{
	static const char old[] = "{\"type\":\"pci\"}garbage";
	struct cni_err err = { 0 };
	char *out;

	ck_assert_int_eq(devinfo_merge(old, 14, &vf, "/run/f", &out, &err), 0);
	free(out);
	ck_assert_int_eq(devinfo_merge(old, sizeof(old) - 1, &vf, "/run/f", &out, &err), -EBADMSG);
	/* a final newline is fine, a NUL inside is not */
	ck_assert_int_eq(devinfo_merge("{}\n", 3, &vf, "/run/f", &out, &err), 0);
	free(out);
	ck_assert_int_eq(devinfo_merge("{}\0{}", 5, &vf, "/run/f", &out, &err), -EBADMSG);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_merge, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, test_length);
}

int main(void)
{
	return unit_run("devinfo", add_tests);
}
