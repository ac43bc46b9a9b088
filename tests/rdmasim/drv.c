// SPDX-License-Identifier: Apache-2.0
/* rdmasim-drv: the PCI driver core and the mlx5/ipoib driver model of
 * simulated InfiniBand VFs. The daemon holds each bound VF's IPoIB netdev
 * stand-in (a tun device of type ARPHRD_INFINIBAND: closing its fd destroys
 * it wherever it is), registers its RDMA device in the state file and keeps
 * the VF's fake sysfs entries as the kernel's netns-tagged sysfs shows them. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <linux/if_tun.h>
#include "drvproto.h"
#include "state.h"

/* 8 PFs x 128 VFs, a GPU node's */
#define MAX_VFS 1024
/* A path built from parts; -ENAMETOOLONG when it does not fit. */
#define PATHF(buf, ...) \
	do { \
		if (snprintf(buf, sizeof(buf), __VA_ARGS__) >= (int)sizeof(buf)) \
			return -ENAMETOOLONG; \
	} while (0)

struct vf {
	char bdf[32];
	char driver[64];
	int index;			/* on its PF */
	char pf[IFNAMSIZ];		/* its PF's netdev (physfn/net/), "" none */
	/* The GUIDs its firmware gives it while the PF never set any */
	uint64_t fw_node_guid, fw_port_guid;
	bool bound;
	int tun;			/* the IPoIB netdev stand-in while bound */
	/* Its RDMA device, when the probe brought one up: any index is one
	 * (ib_core numbers from 0), so "none" is said apart. */
	bool has_rdma;
	uint32_t rdma_index;
	uint64_t node_guid, port_guid;	/* what the bound VF uses */
	int fail_probe;			/* the next fail_probe probes fail (EIO) */
	bool hang_probe;		/* the next probe binds but brings nothing up, once */
	int fail_move;			/* errno of the next move out of the host, once */
};

static struct vf vfs[MAX_VFS];
static int nvfs;
static const char *state_path;
static char sysfs[PATH_MAX];
/* The run's netdev name prefix: "<prefix>ibp<VF index up to 999>" fits IFNAMSIZ. */
static char prefix[IFNAMSIZ - 6];
static int host_ns = -1;
static int listen_fd = -1;
static uint32_t next_index;
/* Linux 6.17+ ("RDMA/ipoib: Use parent rdma device net namespace"): an RDMA
 * move recreates the IPoIB netdev in the device's new netns; before, in the host. */
static bool ipoib_follows_dev;
static int rename_ms = -1;		/* udev's late rename; -1 none */
static struct rdmasim_state st;

static struct vf *find_vf(const char *bdf)
{
	for (int i = 0; i < nvfs; i++)
		if (!strcmp(vfs[i].bdf, bdf))
			return &vfs[i];
	return NULL;
}

/* ---- the IPoIB netdev stand-in ----------------------------------------- */

/* ipoib names its netdev "ib%d", the lowest number free in that netns;
 * here "<prefix>ib%d", so runs side by side (each with its own prefix)
 * hand out their own numbers and each VF gets back the name it had. */
static int tun_create(int ns)
{
	struct ifreq ifr = { .ifr_flags = IFF_TUN | IFF_NO_PI };
	int fd, ret = 0;

	if (ns >= 0 && setns(ns, CLONE_NEWNET) < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%sib%%d", prefix);
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr) < 0 || ioctl(fd, TUNSETLINK, ARPHRD_INFINIBAND) < 0)
		ret = -errno;
	if (ns >= 0 && setns(host_ns, CLONE_NEWNET) < 0)
		ret = -errno;
	if (ret < 0 && fd >= 0)
		close(fd);
	return ret < 0 ? ret : fd;
}

/* Where the netdev is now (the kernel's view through the tun fd): netns
 * inode, name, ifindex. */
static int tun_where(int tun, unsigned long *ino, char name[IFNAMSIZ], uint32_t *ifindex)
{
	struct ifreq ifr = { 0 };
	struct stat sb;
	int ns, s = -1, ret = 0;

	if (ioctl(tun, TUNGETIFF, &ifr) < 0)
		return -errno;
	snprintf(name, IFNAMSIZ, "%s", ifr.ifr_name);
	ns = ioctl(tun, TUNGETDEVNETNS);
	if (ns < 0)
		return -errno;
	if (fstat(ns, &sb) < 0 || setns(ns, CLONE_NEWNET) < 0)
		ret = -errno;
	*ino = sb.st_ino;
	if (ret == 0) {
		s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (s < 0 || ioctl(s, SIOCGIFINDEX, &ifr) < 0)
			ret = -errno;
		*ifindex = (uint32_t)ifr.ifr_ifindex;
		if (setns(host_ns, CLONE_NEWNET) < 0)
			ret = -errno;
	}
	if (s >= 0)
		close(s);
	close(ns);
	return ret;
}

/* ---- the state file ------------------------------------------------------ */

static struct rdmasim_dev *dev_of(struct vf *v)
{
	return v->bound && v->has_rdma ? rdmasim_find(&st, v->rdma_index) : NULL;
}

/* fn runs on the loaded state; the state is saved when it returns > 0. */
static int with_state(int (*fn)(struct vf *v, void *arg), struct vf *v, void *arg)
{
	int lock = rdmasim_lock(state_path), ret;

	if (lock < 0)
		return lock;
	ret = rdmasim_load(state_path, &st);
	if (ret == 0)
		ret = fn(v, arg);
	if (ret > 0)
		ret = rdmasim_save(state_path, &st);
	rdmasim_free(&st);
	rdmasim_unlock(lock);
	return ret;
}

static bool name_used(const char *name)
{
	for (int i = 0; i < st.n; i++)
		if (!strcmp(st.devs[i].name, name))
			return true;
	return false;
}

/* ib_core: the lowest free mlx5_%d name, a new index (cyclic allocation). */
static int rdma_add(struct vf *v, void *arg)
{
	struct rdmasim_dev *d;
	char name[RDMASIM_NAME_MAX];
	int n = 0;

	(void)arg;
	do
		snprintf(name, sizeof(name), "mlx5_%d", n++);
	while (name_used(name));
	for (int i = 0; i < st.n; i++)
		if (st.devs[i].index >= next_index)
			next_index = st.devs[i].index + 1;
	d = rdmasim_add(&st);
	if (!d)
		return -ENOMEM;
	snprintf(d->name, sizeof(d->name), "%s", name);
	snprintf(d->pci, sizeof(d->pci), "%s", v->bdf);
	d->index = next_index++;
	d->netns = rdmasim_host_netns();
	v->rdma_index = d->index;
	v->has_rdma = true;
	return 1;
}

static int rdma_del(struct vf *v, void *arg)
{
	struct rdmasim_dev *d = dev_of(v);

	(void)arg;
	v->has_rdma = false;
	if (!d)
		return 0;
	*d = st.devs[--st.n];
	return 1;
}

/* The port's netdev as PORT_GET reports it: the new IPoIB netdev. */
static int rdma_set_ndev(struct vf *v, void *arg)
{
	struct rdmasim_dev *d = dev_of(v);
	unsigned long ino;
	char name[IFNAMSIZ];
	uint32_t ifindex;
	int ret;

	(void)arg;
	if (!d)
		return 0;
	ret = tun_where(v->tun, &ino, name, &ifindex);
	if (ret < 0)
		return ret;
	snprintf(d->ndev, sizeof(d->ndev), "%s", name);
	d->ndev_index = ifindex;
	return 1;
}

/* mlx5_ib takes the GUIDs its PF last set (its vfs_ctx) at probe. */
static int read_guids(struct vf *v, void *arg)
{
	const struct rdmasim_pf *pf = rdmasim_pf_by_name(&st, v->pf);
	const struct rdmasim_vf *set = pf && v->index < pf->n_vfs ? &pf->vfs[v->index] : NULL;

	(void)arg;
	v->node_guid = set && set->node_guid ? set->node_guid : v->fw_node_guid;
	v->port_guid = set && set->port_guid ? set->port_guid : v->fw_port_guid;
	return 0;
}

/* Where the VF's RDMA device is, copied out of the state. */
struct rdma_where {
	unsigned long netns;		/* 0: no device */
	bool shared;
	char name[RDMASIM_NAME_MAX];
};

static int rdma_netns(struct vf *v, void *arg)
{
	struct rdmasim_dev *d = dev_of(v);
	struct rdma_where *w = arg;

	*w = (struct rdma_where){ .netns = d ? d->netns : 0, .shared = st.shared };
	if (d)
		snprintf(w->name, sizeof(w->name), "%s", d->name);
	return 0;
}

static int rdma_to_host(struct vf *v, void *arg)
{
	struct rdmasim_dev *d = dev_of(v);

	(void)arg;
	if (!d)
		return 0;
	d->netns = rdmasim_host_netns();
	return 1;
}

/* ---- the fake sysfs -------------------------------------------------------- */

static int put(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	PATHF(path, "%s/%s", dir, file);
	f = fopen(path, "we");
	if (!f)
		return -errno;
	fputs(text, f);
	return fclose(f) ? -errno : 0;
}

static void rm_tree(const char *path)
{
	struct dirent *e;
	DIR *d = opendir(path);
	char sub[PATH_MAX];

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name) < (int)sizeof(sub))
			rm_tree(sub);
	}
	if (d)
		closedir(d);
	if (rmdir(path) < 0)
		unlink(path);
}

/* dir holds exactly the entry want ("" none)? */
static bool holds_only(const char *dir, const char *want)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int n = 0;
	bool found = false;

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		n++;
		found |= !strcmp(e->d_name, want);
	}
	if (d)
		closedir(d);
	return want[0] ? n == 1 && found : n == 0;
}

/* Rewritten only when it changes: readers never see it empty in between
 * unless the device really went. */
static int sync_dir(const char *dev, const char *kind, const char *want, const char *key)
{
	char dir[PATH_MAX], entry[PATH_MAX], have[64] = "";
	FILE *f;

	PATHF(dir, "%s/%s", dev, kind);
	PATHF(entry, "%s/%s/%s", dir, want, key);
	f = want[0] ? fopen(entry, "re") : NULL;
	if (f) {
		if (!fgets(have, sizeof(have), f))
			have[0] = '\0';
		fclose(f);
	}
	if (holds_only(dir, want) && (!want[0] || have[0]))
		return 0;
	rm_tree(dir);
	if (mkdir(dir, 0755) < 0)
		return -errno;
	if (!want[0])
		return 0;
	PATHF(entry, "%s/%s", dir, want);
	return mkdir(entry, 0755) < 0 ? -errno : 1;
}

static int sync_net(struct vf *v, const char *dev)
{
	unsigned long ino = 0;
	char name[IFNAMSIZ] = "", dir[PATH_MAX], text[32];
	uint32_t ifindex = 0;
	int ret;

	if (v->bound && tun_where(v->tun, &ino, name, &ifindex) == 0 &&
	    ino != rdmasim_host_netns())
		name[0] = '\0';
	ret = sync_dir(dev, "net", name, "ifindex");
	if (ret <= 0)
		return ret;
	PATHF(dir, "%s/net/%s", dev, name);
	snprintf(text, sizeof(text), "%u\n", ifindex);
	ret = put(dir, "ifindex", text);
	if (ret == 0)
		ret = put(dir, "type", "32\n");
	return ret;
}

/* A GUID as sysfs groups it: "0002:c903:00b1:0000". */
static void guid_groups(uint64_t g, char out[20])
{
	snprintf(out, 20, "%04x:%04x:%04x:%04x", (unsigned)(g >> 48) & 0xffff,
		 (unsigned)(g >> 32) & 0xffff, (unsigned)(g >> 16) & 0xffff, (unsigned)g & 0xffff);
}

static int sync_ib(struct vf *v, const char *dev)
{
	char name[RDMASIM_NAME_MAX] = "", base[PATH_MAX], ports[PATH_MAX], port[PATH_MAX];
	char gids[PATH_MAX], guid[20], text[48];
	struct rdma_where w;
	int ret;

	ret = with_state(rdma_netns, v, &w);
	if (ret == 0 && w.netns && (w.netns == rdmasim_host_netns() || w.shared))
		snprintf(name, sizeof(name), "%s", w.name);
	ret = sync_dir(dev, "infiniband", name, "node_guid");
	if (ret <= 0)
		return ret;
	PATHF(base, "%s/infiniband/%s", dev, name);
	PATHF(ports, "%s/ports", base);
	PATHF(port, "%s/1", ports);
	PATHF(gids, "%s/gids", port);
	if (mkdir(ports, 0755) < 0 || mkdir(port, 0755) < 0 || mkdir(gids, 0755) < 0)
		return -errno;
	ret = put(port, "link_layer", "InfiniBand\n");
	/* GID 0: the subnet prefix fe80::/64 and the port GUID */
	guid_groups(v->port_guid, guid);
	snprintf(text, sizeof(text), "fe80:0000:0000:0000:%s\n", guid);
	if (ret == 0)
		ret = put(gids, "0", text);
	guid_groups(v->node_guid, guid);
	snprintf(text, sizeof(text), "%s\n", guid);
	return ret ? ret : put(base, "node_guid", text);
}

/* devices/<dom>/<bdf>/driver -> bus/pci/drivers/<driver>, and back. */
static int sync_driver(struct vf *v, const char *dev)
{
	char link[PATH_MAX], back[PATH_MAX], target[PATH_MAX];
	const char *rel = dev + strlen(sysfs) + 1;

	PATHF(link, "%s/driver", dev);
	PATHF(back, "%s/bus/pci/drivers/%s/%s", sysfs, v->driver, v->bdf);
	unlink(link);
	unlink(back);
	if (!v->bound)
		return 0;
	/* rel is devices/pci<domain>/<bdf>: three levels below the root */
	PATHF(target, "../../../bus/pci/drivers/%s", v->driver);
	if (symlink(target, link) < 0)
		return -errno;
	PATHF(target, "../../../../%s", rel);
	return symlink(target, back) < 0 ? -errno : 0;
}

static int sync_vf(struct vf *v)
{
	char link[PATH_MAX], *dev;
	int ret;

	PATHF(link, "%s/bus/pci/devices/%s", sysfs, v->bdf);
	dev = realpath(link, NULL);
	if (!dev)
		return -errno;
	ret = sync_driver(v, dev);
	if (ret == 0)
		ret = sync_net(v, dev);
	if (ret >= 0)
		ret = sync_ib(v, dev);
	free(dev);
	return ret < 0 ? ret : 0;
}

/* ---- the driver model ------------------------------------------------------- */

/* udev renames a new netdev of the host a moment after it appears. */
static void rename_later(struct vf *v)
{
	char newname[IFNAMSIZ];
	struct ifreq ifr = { 0 };
	unsigned long ino;
	uint32_t ifindex;
	int s;

	if (rename_ms < 0 || tun_where(v->tun, &ino, ifr.ifr_name, &ifindex) < 0 ||
	    ino != rdmasim_host_netns() || fork() != 0)
		return;
	for (int i = 0; i < nvfs; i++)
		if (vfs[i].bound)
			close(vfs[i].tun);
	close(listen_fd);
	usleep((useconds_t)rename_ms * 1000);
	snprintf(newname, sizeof(newname), "%sibp%d", prefix, v->index);
	snprintf(ifr.ifr_newname, sizeof(ifr.ifr_newname), "%s", newname);
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s >= 0 && ioctl(s, SIOCSIFNAME, &ifr) == 0)
		rdmasim_drv_call(state_path, "sync", -1);
	_exit(0);
}

/* The IPoIB netdev (re)created in netns ns (-1: the host). */
static int ipoib_up(struct vf *v, int ns)
{
	int ret = tun_create(ns);

	if (ret < 0)
		return ret;
	v->tun = ret;
	ret = with_state(rdma_set_ndev, v, NULL);
	if (ret == 0)
		rename_later(v);
	return ret;
}

/* mlx5 probe: the GUIDs the PF last set, a new IPoIB netdev in the host, a
 * new RDMA device. */
static int probe(struct vf *v)
{
	int ret;

	ret = with_state(read_guids, v, NULL);
	if (ret == 0)
		ret = with_state(rdma_add, v, NULL);
	if (ret < 0)
		return ret;
	v->bound = true;
	ret = ipoib_up(v, -1);
	if (ret < 0) {
		with_state(rdma_del, v, NULL);
		v->bound = false;
	}
	return ret;
}

static int remove_vf(struct vf *v)
{
	int ret = with_state(rdma_del, v, NULL);

	close(v->tun);
	v->tun = -1;
	v->bound = false;
	return ret;
}

/* drivers/base/bus.c: unbind needs the device bound to that driver, bind an
 * unbound device the driver matches (ENODEV otherwise, EBUSY when bound). */
static int drv_unbind(const char *driver, const char *bdf)
{
	struct vf *v = find_vf(bdf);

	if (!v || !v->bound || strcmp(v->driver, driver))
		return -ENODEV;
	return remove_vf(v);
}

static int drv_bind(const char *driver, const char *bdf)
{
	struct vf *v = find_vf(bdf);

	if (!v || strcmp(v->driver, driver))
		return -ENODEV;
	if (v->bound)
		return -EBUSY;
	if (v->fail_probe) {
		/* really_probe(): the driver's error, the device left unbound */
		v->fail_probe--;
		return -EIO;
	}
	if (v->hang_probe) {
		/* bound, but its netdev and RDMA device never come (firmware stuck) */
		v->hang_probe = false;
		v->bound = true;
		v->has_rdma = false;
		return 0;
	}
	return probe(v);
}

/* ib_core removed and re-added its clients: ipoib destroyed the netdev
 * wherever it was and made a new one. */
/* A move of the VF's RDMA device to ns from the netns inode from. A failed
 * one is rdma_dev_change_netns() failing its device_rename() after
 * disable_device(): the device goes back to cur_net and is enabled again,
 * so ipoib recreates the netdev there, and the move's reply is the errno. */
static int rdma_moved(unsigned long from, const char *bdf, int ns, char *out, size_t size)
{
	struct vf *v = find_vf(bdf);
	int ret;

	if (!v || !v->bound)
		return -ENODEV;
	close(v->tun);
	if (!v->fail_move || from != rdmasim_host_netns())
		return ipoib_up(v, ipoib_follows_dev ? ns : -1);
	snprintf(out, size, "move-failed %d", v->fail_move);
	v->fail_move = 0;
	ret = with_state(rdma_to_host, v, NULL);
	return ret < 0 ? ret : ipoib_up(v, -1);
}

static int netns_gone(unsigned long ino)
{
	struct rdma_where w;
	int ret = 0;

	for (int i = 0; ret == 0 && i < nvfs; i++) {
		if (!vfs[i].bound || with_state(rdma_netns, &vfs[i], &w) < 0 || w.netns != ino)
			continue;
		ret = with_state(rdma_to_host, &vfs[i], NULL);
		if (ret == 0) {
			close(vfs[i].tun);
			ret = ipoib_up(&vfs[i], -1);
		}
	}
	return ret;
}

/* The address ipoib gives the netdev ifindex of netns ino: its QP number
 * and port GUID, as "<qpn> <guid>" (16 hex digits). */
static int ipoib_addr(unsigned long ino, uint32_t ifindex, char *out, size_t size)
{
	unsigned long at;
	char name[IFNAMSIZ];
	uint32_t idx;

	for (int i = 0; i < nvfs; i++) {
		if (!vfs[i].bound || tun_where(vfs[i].tun, &at, name, &idx) < 0 || at != ino ||
		    idx != ifindex)
			continue;
		snprintf(out, size, "%u %016llx", 0x100 + vfs[i].rdma_index,
			 (unsigned long long)vfs[i].port_guid);
		return 0;
	}
	return -ENODEV;
}

/* The netdev of the VF's PF, as the fake sysfs names it. */
static int pf_netdev(struct vf *v)
{
	char dir[PATH_MAX];
	struct dirent *e;
	DIR *d;

	PATHF(dir, "%s/bus/pci/devices/%s/physfn/net", sysfs, v->bdf);
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && strlen(e->d_name) < sizeof(v->pf))
			memcpy(v->pf, e->d_name, strlen(e->d_name) + 1);
	closedir(d);
	return v->pf[0] ? 0 : -ENOENT;
}

static int add_vf(char **w, int n)
{
	struct vf *v;

	if (n != 6 || nvfs == MAX_VFS || find_vf(w[1]) || strlen(w[1]) >= sizeof(v->bdf) ||
	    strlen(w[3]) >= sizeof(v->driver))
		return -EINVAL;
	v = &vfs[nvfs];
	memset(v, 0, sizeof(*v));
	v->tun = -1;
	snprintf(v->bdf, sizeof(v->bdf), "%s", w[1]);
	v->index = atoi(w[2]);
	snprintf(v->driver, sizeof(v->driver), "%s", w[3]);
	v->fw_node_guid = strtoull(w[4], NULL, 16);
	v->fw_port_guid = strtoull(w[5], NULL, 16);
	if (pf_netdev(v) < 0)
		return -ENODEV;
	nvfs++;
	return probe(v);
}

static int sync_all(void)
{
	int ret = 0;

	for (int i = 0; i < nvfs; i++)
		if (sync_vf(&vfs[i]) < 0)
			ret = -EIO;
	return ret;
}

/* quit: every netdev stand-in goes before the caller hears back (it then
 * removes the sysfs tree). */
static int teardown(void)
{
	for (int i = 0; i < nvfs; i++)
		if (vfs[i].bound)
			remove_vf(&vfs[i]);
	return sync_all();
}

/* One request: words, the fd it carried (-1 none). */
static int handle(char *req, int fd, bool *quit, char *out, size_t size)
{
	char *w[8], *save = NULL;
	int n = 0, ret = -EINVAL;
	struct vf *v;

	for (char *t = strtok_r(req, " \n", &save); t && n < 8; t = strtok_r(NULL, " \n", &save))
		w[n++] = t;
	if (n == 0)
		return -EINVAL;
	if (!strcmp(w[0], "vf"))
		ret = add_vf(w, n);
	else if (!strcmp(w[0], "unbind") && n == 3)
		ret = drv_unbind(w[1], w[2]);
	else if (!strcmp(w[0], "bind") && n == 3)
		ret = drv_bind(w[1], w[2]);
	else if (!strcmp(w[0], "rdma-moved") && n == 3 && fd >= 0)
		ret = rdma_moved(strtoul(w[1], NULL, 10), w[2], fd, out, size);
	else if (!strcmp(w[0], "netns-gone") && n == 2)
		ret = netns_gone(strtoul(w[1], NULL, 10));
	else if (!strcmp(w[0], "ipoib-netns") && n == 2 && (!strcmp(w[1], "host") ||
							    !strcmp(w[1], "dev")))
		ipoib_follows_dev = !strcmp(w[1], "dev"), ret = 0;
	else if (!strcmp(w[0], "rename-late") && n == 2)
		rename_ms = atoi(w[1]), ret = 0;
	else if (!strcmp(w[0], "fail-probe") && (n == 2 || (n == 3 && atoi(w[2]) > 0)) &&
		 (v = find_vf(w[1])))
		v->fail_probe = n == 3 ? atoi(w[2]) : 1, ret = 0;
	else if (!strcmp(w[0], "hang-probe") && n == 2 && (v = find_vf(w[1])))
		v->hang_probe = true, ret = 0;
	else if (!strcmp(w[0], "fail-move") && n == 3 && (v = find_vf(w[1])) && atoi(w[2]) > 0)
		v->fail_move = atoi(w[2]), ret = 0;
	else if (!strcmp(w[0], "sync") && n <= 2)
		ret = 0;
	else if (!strcmp(w[0], "ipoib-addr") && n == 3)
		return ipoib_addr(strtoul(w[1], NULL, 10), (uint32_t)strtoul(w[2], NULL, 10), out,
				  size);
	else if (!strcmp(w[0], "quit") && n == 1)
		*quit = true, ret = teardown();
	/* the request's VF, wherever its words name it (vf BDF ..., bind DRIVER
	 * BDF): syncing only it keeps a node of 1,024 VFs from syncing all
	 * of them at each of its 1,024 "vf" requests */
	v = NULL;
	for (int i = 1; i < n && !v; i++)
		v = find_vf(w[i]);
	if (v && !*quit)
		sync_vf(v);
	else if (!*quit && sync_all() < 0 && ret == 0)
		ret = -EIO;
	return ret;
}

static int recv_req(int c, char *buf, size_t size, int *fd)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = buf, .iov_len = size - 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
			      .msg_controllen = sizeof(ctl) };
	struct cmsghdr *cm;
	ssize_t n = recvmsg(c, &msg, MSG_CMSG_CLOEXEC);

	*fd = -1;
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	cm = CMSG_FIRSTHDR(&msg);
	if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
		memcpy(fd, CMSG_DATA(cm), sizeof(int));
	return 0;
}

static void serve(void)
{
	char req[RDMASIM_DRV_REQ_MAX], reply[RDMASIM_DRV_REQ_MAX], out[64];
	bool quit = false;
	int c, fd, ret;

	while (!quit) {
		c = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		out[0] = '\0';
		ret = recv_req(c, req, sizeof(req), &fd);
		if (ret == 0)
			ret = handle(req, fd, &quit, out, sizeof(out));
		snprintf(reply, sizeof(reply), "%d%s%s", ret, out[0] ? " " : "", out);
		if (send(c, reply, strlen(reply), MSG_NOSIGNAL) < 0)
			perror("rdmasim-drv: reply");
		if (fd >= 0)
			close(fd);
		close(c);
	}
}

/* Listens, then forks: the parent exits once requests can be taken. */
static int start(const char *pfx)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	const char *root = getenv("SYSFS_PATH");
	int null;
	pid_t pid;

	if (!root || !realpath(root, sysfs) ||
	    rdmasim_drv_sock_path(state_path, sun.sun_path, sizeof(sun.sun_path)) < 0) {
		fprintf(stderr, "rdmasim-drv: needs SYSFS_PATH and a short state path\n");
		return 1;
	}
	if (strlen(pfx) >= sizeof(prefix)) {
		fprintf(stderr, "rdmasim-drv: prefix %s is over %zu characters\n", pfx,
			sizeof(prefix) - 1);
		return 1;
	}
	snprintf(prefix, sizeof(prefix), "%s", pfx);
	host_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	unlink(sun.sun_path);
	listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (host_ns < 0 || listen_fd < 0 || bind(listen_fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 ||
	    listen(listen_fd, 64) < 0) {
		perror("rdmasim-drv");
		return 1;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid > 0) {
		printf("%d\n", pid);
		return 0;
	}
	/* a caller's $(...) waits for its stdout to close */
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0)
		_exit(1);
	close(null);
	signal(SIGCHLD, SIG_IGN);
	setsid();
	serve();
	unlink(sun.sun_path);
	return 0;
}

static int call(int argc, char **argv)
{
	char req[RDMASIM_DRV_REQ_MAX] = "";
	int ret;

	for (int i = 0; i < argc; i++) {
		if (strlen(req) + strlen(argv[i]) + 2 > sizeof(req))
			return 2;
		strcat(req, i ? " " : "");
		strcat(req, argv[i]);
	}
	ret = rdmasim_drv_call(state_path, req, -1);
	if (ret < 0)
		fprintf(stderr, "rdmasim-drv: %s: %s\n", req, strerror(-ret));
	return ret < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: rdmasim-drv <state> serve <prefix>\n"
			"       rdmasim-drv <state> vf <bdf> <vf-index> <driver> <node-guid> <port-guid>\n"
			"       rdmasim-drv <state> unbind|bind <driver> <bdf>\n"
			"       rdmasim-drv <state> netns-gone <inode> | ipoib-netns host|dev |\n"
			"                           fail-probe <bdf> [count] | hang-probe <bdf> |\n"
			"                           fail-move <bdf> <errno> |\n"
			"                           rename-late <ms> | sync | quit\n");
		return 2;
	}
	state_path = argv[1];
	if (!strcmp(argv[2], "serve"))
		return argc == 4 ? start(argv[3]) : 2;
	return call(argc - 2, argv + 2);
}
