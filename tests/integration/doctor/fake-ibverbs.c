// SPDX-License-Identifier: Apache-2.0
/* A libibverbs.so.1 stand-in for the doctor's tests (this kernel has no
 * RDMA): the exported calls NCCL makes first, answered from the sysfs tree
 * in $SYSFS_PATH as libibverbs reads its device list from sysfs: devices
 * from class/infiniband_verbs/<uverbsN>/ibdev, one port each, its state and
 * link layer from class/infiniband/<dev>/ports/1. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#undef ibv_query_port

struct fake_dev {
	char name[64];
};

struct fake_ctx {
	struct fake_dev *dev;
};

static const char *root(void)
{
	const char *r = getenv("SYSFS_PATH");

	return r && *r ? r : "/sys";
}

static int read_text(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	if (!fgets(buf, (int)size, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

struct ibv_device **ibv_get_device_list(int *num)
{
	char dir[PATH_MAX], path[PATH_MAX * 2];
	struct ibv_device **list = calloc(65, sizeof(*list));
	struct dirent *de;
	DIR *d;
	int n = 0;

	if (!list)
		return NULL;
	snprintf(dir, sizeof(dir), "%s/class/infiniband_verbs", root());
	d = opendir(dir);
	while (d && (de = readdir(d)) && n < 64) {
		struct fake_dev *dev;

		if (strncmp(de->d_name, "uverbs", 6))
			continue;
		dev = calloc(1, sizeof(*dev));
		snprintf(path, sizeof(path), "%s/%s/ibdev", dir, de->d_name);
		if (dev && read_text(path, dev->name, sizeof(dev->name)) == 0)
			list[n++] = (struct ibv_device *)dev;
		else
			free(dev);
	}
	if (d)
		closedir(d);
	if (num)
		*num = n;
	return list;
}

void ibv_free_device_list(struct ibv_device **list)
{
	for (int i = 0; list && list[i]; i++)
		free(list[i]);
	free(list);
}

const char *ibv_get_device_name(struct ibv_device *device)
{
	return ((struct fake_dev *)device)->name;
}

struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	struct fake_ctx *ctx = calloc(1, sizeof(*ctx));

	if (ctx)
		ctx->dev = (struct fake_dev *)device;
	return (struct ibv_context *)ctx;
}

int ibv_close_device(struct ibv_context *context)
{
	free(context);
	return 0;
}

int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *attr)
{
	(void)context;
	memset(attr, 0, sizeof(*attr));
	attr->phys_port_cnt = 1;
	return 0;
}

static int count_gids(const char port_dir[PATH_MAX])
{
	char dir[PATH_MAX + 8];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/gids", port_dir);
	d = opendir(dir);
	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* The exported symbol takes the older, shorter struct; the fields set here
 * are in both, and the doctor passes a whole struct ibv_port_attr. */
int ibv_query_port(struct ibv_context *context, uint8_t port, struct _compat_ibv_port_attr *compat)
{
	struct ibv_port_attr *attr = (struct ibv_port_attr *)compat;
	struct fake_ctx *ctx = (struct fake_ctx *)context;
	char dir[PATH_MAX], path[PATH_MAX * 2], text[64];
	int state = 0;

	if (port != 1) {
		errno = EINVAL;
		return EINVAL;
	}
	snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports/1", root(), ctx->dev->name);
	snprintf(path, sizeof(path), "%s/state", dir);
	if (read_text(path, text, sizeof(text)) < 0 || sscanf(text, "%d", &state) != 1) {
		errno = ENODEV;
		return ENODEV;
	}
	attr->state = (enum ibv_port_state)state;
	attr->active_mtu = IBV_MTU_4096;
	attr->max_mtu = IBV_MTU_4096;
	attr->gid_tbl_len = count_gids(dir);
	snprintf(path, sizeof(path), "%s/link_layer", dir);
	attr->link_layer = read_text(path, text, sizeof(text)) == 0 && !strcmp(text, "InfiniBand") ?
			   IBV_LINK_LAYER_INFINIBAND : IBV_LINK_LAYER_ETHERNET;
	return 0;
}
