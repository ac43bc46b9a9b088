// SPDX-License-Identifier: Apache-2.0
/* A VF's RDMA device as the host's sysfs shows it (<VF>/infiniband/<dev>/): its port's link layer and the GUIDs it uses. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "guid.h"
#include "ibsysfs.h"

/* <VF>/infiniband/<dev>/<attr> in the host's sysfs view. */
static int rdma_attr(const struct sysfs_vf *vf, const char *attr, char *buf, size_t size)
{
	char path[PATH_MAX];

	if (vf->n_rdma != 1 ||
	    snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/infiniband/%s/%s", sysfs_root(),
		     vf->bdf, vf->rdma[0], attr) >= (int)sizeof(path))
		return -ENOENT;
	return sysfs_read_attr(path, buf, size);
}

bool ibsysfs_is_ib(const struct sysfs_vf *vf)
{
	char layer[32];

	return rdma_attr(vf, "ports/1/link_layer", layer, sizeof(layer)) == 0 &&
	       !strcmp(layer, "InfiniBand");
}

int ibsysfs_guids(const struct sysfs_vf *vf, uint64_t *node, uint64_t *port)
{
	char text[64], gid[64];
	int ret;

	ret = rdma_attr(vf, "node_guid", text, sizeof(text));
	if (ret == 0)
		ret = guid_parse_sysfs(text, node);
	if (ret == 0)
		ret = rdma_attr(vf, "ports/1/gids/0", gid, sizeof(gid));
	if (ret == 0)
		ret = strlen(gid) == 39 ? guid_parse_sysfs(gid + 20, port) : -EINVAL;
	return ret;
}
