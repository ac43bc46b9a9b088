// SPDX-License-Identifier: Apache-2.0
/* Reads an RDMA device's port attributes, GID table and uverbs entry from sysfs. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fileio.h"
#include "guid.h"
#include "ibdev.h"
#include "sysfs.h"

static int read_at(const char *dir, const char *name, char *buf, size_t size)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return sysfs_read_attr(path, buf, size);
}

/* Slot n of the table: its GID, and type and netdev when it holds one. */
static bool read_gid(const char *port_dir, const char *n, struct gid_entry *e)
{
	char name[64], text[64];

	memset(e, 0, sizeof(*e));
	e->index = atoi(n);
	snprintf(name, sizeof(name), "gids/%s", n);
	if (read_at(port_dir, name, text, sizeof(text)) < 0 || gid_parse(text, e->gid) < 0 ||
	    gid_is_zero(e->gid))
		return false;
	snprintf(name, sizeof(name), "gid_attrs/types/%s", n);
	if (read_at(port_dir, name, text, sizeof(text)) < 0 || gid_type_parse(text, &e->type) < 0)
		e->type = GID_NONE;
	snprintf(name, sizeof(name), "gid_attrs/ndevs/%s", n);
	if (read_at(port_dir, name, e->ndev, sizeof(e->ndev)) < 0)
		e->ndev[0] = '\0';
	return true;
}

static int by_index(const void *a, const void *b)
{
	return ((const struct gid_entry *)a)->index - ((const struct gid_entry *)b)->index;
}

static int read_gids(const char *port_dir, struct ibdev_port *out)
{
	char dir[PATH_MAX];
	char **names = NULL;
	size_t n = 0;
	int ret;

	if (snprintf(dir, sizeof(dir), "%s/gids", port_dir) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	ret = fileio_list(dir, "", &names, &n);
	if (ret == 0 && n) {
		out->gids = calloc(n, sizeof(*out->gids));
		ret = out->gids ? 0 : -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (ret == 0 && read_gid(port_dir, names[i], &out->gids[out->n_gids]))
			out->n_gids++;
		free(names[i]);
	}
	free(names);
	if (out->n_gids)
		qsort(out->gids, (size_t)out->n_gids, sizeof(*out->gids), by_index);
	return ret;
}

int ibdev_port_read(const char *root, const char *dev, int port, struct ibdev_port *out)
{
	char dir[PATH_MAX], text[64];
	int ret;

	memset(out, 0, sizeof(*out));
	out->state = -1;
	if (snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports/%d", root, dev, port) >=
	    (int)sizeof(dir))
		return -ENAMETOOLONG;
	ret = read_at(dir, "state", text, sizeof(text));
	if (ret == -ENOENT)
		return ret;
	/* "4: ACTIVE" */
	if (ret == 0 && sscanf(text, "%d: %31s", &out->state, out->state_text) != 2)
		out->state = -1;
	read_at(dir, "link_layer", out->link_layer, sizeof(out->link_layer));
	out->has_node_guid = read_at(dir, "../../node_guid", text, sizeof(text)) == 0 &&
			     guid_parse_sysfs(text, &out->node_guid) == 0;
	ret = read_gids(dir, out);
	if (ret < 0)
		ibdev_port_release(out);
	return ret;
}

void ibdev_port_release(struct ibdev_port *p)
{
	free(p->gids);
	p->gids = NULL;
	p->n_gids = 0;
}

static bool read_uverbs(const char *dir, const char *name, const char *dev,
			struct ibdev_uverbs *out)
{
	char path[PATH_MAX], text[32];

	memset(out, 0, sizeof(*out));
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return false;
	if (read_at(path, "ibdev", out->ibdev, sizeof(out->ibdev)) < 0 ||
	    (dev && strcmp(out->ibdev, dev)))
		return false;
	snprintf(out->name, sizeof(out->name), "%s", name);
	out->has_devt = read_at(path, "dev", text, sizeof(text)) == 0 &&
			sscanf(text, "%u:%u", &out->major, &out->minor) == 2;
	return true;
}

int ibdev_uverbs_find(const char *dir, const char *dev, struct ibdev_uverbs *out)
{
	char **names = NULL;
	size_t n = 0;
	int ret;

	ret = fileio_list(dir, "", &names, &n);
	if (ret == 0)
		ret = -ENOENT;
	for (size_t i = 0; i < n; i++) {
		if (ret == -ENOENT && !strncmp(names[i], "uverbs", 6) &&
		    read_uverbs(dir, names[i], dev, out))
			ret = 0;
		free(names[i]);
	}
	free(names);
	return ret;
}
