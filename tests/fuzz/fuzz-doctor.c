// SPDX-License-Identifier: Apache-2.0
/* Fuzz target: every parser sriov-rdma-doctor runs on bytes from outside
 * (/proc/PID/limits, status and environ, /proc/locks, sysfs GID files,
 * NCCL_* lists, CNI config files) on the same input: each answers within its
 * contract and reads nothing past the input. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "conffiles.h"
#include "gid.h"
#include "nccl.h"
#include "procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_nccl(const char *text)
{
	struct nccl_list l;

	nccl_list_parse(text, &l);
	if (l.n < 0 || l.n > NCCL_LIST_MAX)
		abort();
	for (int i = 0; i < l.n; i++)
		if (!l.entry[i].prefix[0] || strlen(l.entry[i].prefix) >= NCCL_PREFIX_MAX)
			abort();
	nccl_list_selects(&l, "mlx5_2", 1);
	nccl_list_selects(&l, "net1", -1);
}

static void check_text(const char *text, size_t len)
{
	uint64_t soft, hard, caps;
	enum gid_type type;
	uint8_t gid[16];
	pid_t pid;
	int ret;
	cJSON *confs = cJSON_CreateArray();

	ret = procfs_memlock(text, &soft, &hard);
	if (ret && ret != -ENOENT && ret != -EINVAL)
		abort();
	ret = procfs_cap_eff(text, &caps);
	if (ret && ret != -ENOENT && ret != -EINVAL)
		abort();
	ret = procfs_lock_holder(text, 0, 0x1a, 123, &pid);
	if (ret && ret != -ENOENT)
		abort();
	if (gid_parse(text, gid) == 0 && len < 39)
		abort();
	gid_type_parse(text, &type);
	check_nccl(text);
	if (confs)
		conffiles_flatten(text, confs);
	cJSON_Delete(confs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* environ is NUL-separated: the raw bytes, with the NUL the reader adds */
	char *buf = fuzz_text(data, size);

	if (!buf)
		return 0;
	procfs_environ_get(buf, size, "NCCL_IB_HCA");
	procfs_environ_get(buf, size, "NCCL_SOCKET_IFNAME");
	check_text(buf, strlen(buf));
	free(buf);
	return 0;
}
