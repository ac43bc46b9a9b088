// SPDX-License-Identifier: Apache-2.0
/* libibverbs loaded with dlopen: device list, open, query device and ports. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>
#include "verbs.h"

/* The library's exported entry points; the header's inline wrappers
 * (ibv_query_port is one) would make the linker want the library itself. */
struct lib {
	void *handle;
	struct ibv_device **(*get_device_list)(int *num);
	void (*free_device_list)(struct ibv_device **list);
	const char *(*get_device_name)(struct ibv_device *dev);
	struct ibv_context *(*open_device)(struct ibv_device *dev);
	int (*close_device)(struct ibv_context *ctx);
	int (*query_device)(struct ibv_context *ctx, struct ibv_device_attr *attr);
	/* the exported symbol takes the older, shorter port attribute struct:
	 * a whole struct ibv_port_attr is passed, which it fits in */
	int (*query_port)(struct ibv_context *ctx, uint8_t port, void *attr);
};

static const struct {
	const char *name;
	size_t off;
} symbols[] = {
#define S(f) { "ibv_" #f, offsetof(struct lib, f) }
	S(get_device_list), S(free_device_list), S(get_device_name), S(open_device),
	S(close_device), S(query_device), S(query_port),
#undef S
};

static int load(struct lib *lib, char *why, size_t size)
{
	memset(lib, 0, sizeof(*lib));
	lib->handle = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib->handle) {
		snprintf(why, size, "%s", dlerror());
		return -ELIBACC;
	}
	for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
		void *sym = dlsym(lib->handle, symbols[i].name);

		if (!sym) {
			snprintf(why, size, "libibverbs.so.1 has no %s", symbols[i].name);
			dlclose(lib->handle);
			return -ELIBACC;
		}
		memcpy((char *)lib + symbols[i].off, &sym, sizeof(sym));
	}
	return 0;
}

static void query_ports(const struct lib *lib, struct ibv_context *ctx, int count,
			struct verbs_dev *d)
{
	d->n_ports = count < VERBS_PORTS_MAX ? count : VERBS_PORTS_MAX;
	for (int i = 0; i < d->n_ports; i++) {
		struct verbs_port *p = &d->ports[i];
		struct ibv_port_attr pa;

		memset(&pa, 0, sizeof(pa));
		p->num = i + 1;
		errno = 0;
		if (lib->query_port(ctx, (uint8_t)p->num, &pa)) {
			p->err = errno ? errno : EIO;
			continue;
		}
		p->state = pa.state;
		p->link_layer = pa.link_layer;
		p->active_mtu = 128 << pa.active_mtu;
		p->gid_tbl_len = pa.gid_tbl_len;
	}
}

static void scan_one(const struct lib *lib, struct ibv_device *dev, struct verbs_dev *d)
{
	struct ibv_device_attr attr;
	struct ibv_context *ctx;

	snprintf(d->name, sizeof(d->name), "%s", lib->get_device_name(dev));
	errno = 0;
	ctx = lib->open_device(dev);
	if (!ctx) {
		d->err = errno ? errno : EIO;
		return;
	}
	errno = 0;
	if (lib->query_device(ctx, &attr))
		d->err = errno ? errno : EIO;
	else
		query_ports(lib, ctx, attr.phys_port_cnt, d);
	lib->close_device(ctx);
}

int verbs_scan(struct verbs_dev **out, int *n, char *why, size_t size)
{
	struct ibv_device **list;
	struct lib lib;
	int count = 0, ret;

	*out = NULL;
	*n = 0;
	ret = load(&lib, why, size);
	if (ret < 0)
		return ret;
	list = lib.get_device_list(&count);
	if (!list) {
		ret = -(errno ? errno : EIO);
		snprintf(why, size, "ibv_get_device_list: %s", strerror(-ret));
		goto out;
	}
	if (count > 0) {
		*out = calloc((size_t)count, sizeof(**out));
		ret = *out ? 0 : -ENOMEM;
	}
	for (int i = 0; ret == 0 && i < count; i++)
		scan_one(&lib, list[i], &(*out)[i]);
	if (ret == 0)
		*n = count;
	lib.free_device_list(list);
out:
	dlclose(lib.handle);
	return ret;
}

static const char *const port_states[] = {
	"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER",
};

const char *verbs_port_state_name(int state)
{
	if (state >= 0 && state < (int)(sizeof(port_states) / sizeof(port_states[0])))
		return port_states[state];
	return "unknown";
}

const char *verbs_link_layer_name(int link_layer)
{
	if (link_layer == IBV_LINK_LAYER_INFINIBAND)
		return "InfiniBand";
	if (link_layer == IBV_LINK_LAYER_ETHERNET)
		return "Ethernet";
	return "unspecified";
}
