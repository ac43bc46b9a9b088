// SPDX-License-Identifier: Apache-2.0
/* Reads a VF's (or SF's) PF, index, driver, netdev and RDMA devices from sysfs. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sysfs.h"

const char *sysfs_root(void)
{
	const char *root = getenv("SYSFS_PATH");

	return root && *root ? root : "/sys";
}

bool sysfs_valid_bdf(const char *bdf)
{
	/* dddd:bb:dd.f */
	static const char shape[] = "xxxx:xx:xx.x";
	size_t i;

	if (strlen(bdf) != sizeof(shape) - 1)
		return false;
	for (i = 0; shape[i]; i++) {
		bool hex = isdigit((unsigned char)bdf[i]) || (bdf[i] >= 'a' && bdf[i] <= 'f');

		if (shape[i] == 'x' ? !hex : bdf[i] != shape[i])
			return false;
	}
	return true;
}

bool sysfs_valid_aux_id(const char *id)
{
	/* [a-z0-9_]+(\.[a-z0-9_]+)*\.[0-9]+ : dot-separated words, the last a number */
	const char *p, *word = id;
	bool digits = true;
	int words = 1;

	if (strlen(id) >= SYSFS_BDF_MAX)
		return false;
	for (p = id; ; p++) {
		if (*p == '.' || !*p) {
			if (p == word)
				return false;
			if (!*p)
				break;
			words++;
			word = p + 1;
			digits = true;
		} else if (isdigit((unsigned char)*p)) {
			continue;
		} else if ((*p >= 'a' && *p <= 'z') || *p == '_') {
			digits = false;
		} else {
			return false;
		}
	}
	return words >= 2 && digits;
}

__attribute__((format(printf, 3, 4)))
static int mkpath(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return len < 0 || (size_t)len >= size ? -ENAMETOOLONG : 0;
}

/* Basename of a symlink's target, relative or absolute. */
static int link_base(const char *path, char *out, size_t size)
{
	char target[PATH_MAX];
	const char *base;
	ssize_t len;

	len = readlink(path, target, sizeof(target) - 1);
	if (len < 0)
		return -errno;
	target[len] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (snprintf(out, size, "%s", base) >= (int)size)
		return -ENAMETOOLONG;
	return 0;
}

static int visible(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Sorted entries of a directory like net/ or infiniband/; a missing one is empty. */
static int dir_entries(const char *dir, char names[][SYSFS_NAME_MAX], int max, int *n)
{
	struct dirent **list;
	int i, count, ret = 0;

	*n = 0;
	count = scandir(dir, &list, visible, alphasort);
	if (count < 0)
		return errno == ENOENT ? 0 : -errno;
	for (i = 0; i < count; i++) {
		if (i < max && snprintf(names[i], SYSFS_NAME_MAX, "%s", list[i]->d_name) >= SYSFS_NAME_MAX)
			ret = -ENAMETOOLONG;
		free(list[i]);
	}
	free(list);
	*n = count < max ? count : max;
	return ret;
}

/* The one entry of a net/-style directory, or "" when there is none. */
static int first_entry(const char *dir, char *out, size_t size)
{
	char names[1][SYSFS_NAME_MAX];
	int n, ret;

	ret = dir_entries(dir, names, 1, &n);
	if (ret < 0)
		return ret;
	if (snprintf(out, size, "%s", n ? names[0] : "") >= (int)size)
		return -ENAMETOOLONG;
	return 0;
}

/* Routing ID (bus, device, function) of a PCI address, -1 when malformed. */
static long pci_rid(const char *bdf, unsigned int *domain)
{
	unsigned int bus, dev, fn;
	int end = 0;

	if (sscanf(bdf, "%x:%x:%x.%x%n", domain, &bus, &dev, &fn, &end) != 4 || bdf[end] ||
	    bus > 0xff || dev > 0x1f || fn > 7)
		return -1;
	return (long)(bus << 8 | dev << 3 | fn);
}

/* pf_dir's link name points at the device bdf. */
static bool links_to(const char *pf_dir, const char *name, const char *bdf)
{
	char path[PATH_MAX], base[SYSFS_BDF_MAX];

	return mkpath(path, sizeof(path), "%s/%s", pf_dir, name) == 0 &&
	       link_base(path, base, sizeof(base)) == 0 && !strcmp(base, bdf);
}

/* The PCI SR-IOV capability places VF n at the PF's routing ID + First VF
 * Offset + n * VF Stride (sysfs sriov_offset, sriov_stride): one readlink
 * confirms it, where a walk of virtfnN reads up to one link per VF. */
static int vf_index_by_rid(const char *pf_dir, const char *pf_bdf, const char *bdf, int *index)
{
	char path[PATH_MAX], name[32];
	unsigned int pf_domain, domain;
	long pf_rid = pci_rid(pf_bdf, &pf_domain), rid = pci_rid(bdf, &domain), n;
	int offset, stride;

	if (pf_rid < 0 || rid < 0 || domain != pf_domain ||
	    mkpath(path, sizeof(path), "%s/sriov_offset", pf_dir) < 0 ||
	    sysfs_read_int(path, &offset) < 0 ||
	    mkpath(path, sizeof(path), "%s/sriov_stride", pf_dir) < 0 ||
	    sysfs_read_int(path, &stride) < 0)
		return -ENOENT;
	n = rid - pf_rid - offset;
	if (stride <= 0 || n < 0 || n % stride)
		return -ENOENT;
	snprintf(name, sizeof(name), "virtfn%ld", n / stride);
	if (!links_to(pf_dir, name, bdf))
		return -ENOENT;
	*index = (int)(n / stride);
	return 0;
}

/* N of the virtfnN link in pf_dir that points at bdf, or -ENOENT. */
static int vf_index(const char *pf_dir, const char *pf_bdf, const char *bdf, int *index)
{
	struct dirent *d;
	int ret = -ENOENT;
	DIR *dir;
	int n, end;

	if (vf_index_by_rid(pf_dir, pf_bdf, bdf, index) == 0)
		return 0;
	dir = opendir(pf_dir);
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		if (sscanf(d->d_name, "virtfn%d%n", &n, &end) != 1 || d->d_name[end] ||
		    !links_to(pf_dir, d->d_name, bdf))
			continue;
		*index = n;
		ret = 0;
		break;
	}
	closedir(dir);
	return ret;
}

/* dev's infiniband/ entries into out->rdma; path receives the directory's. */
static int read_rdma(const char *dev, struct sysfs_vf *out, char path[PATH_MAX])
{
	int ret = mkpath(path, PATH_MAX, "%s/infiniband", dev);

	return ret < 0 ? ret : dir_entries(path, out->rdma, SYSFS_MAX_RDMA, &out->n_rdma);
}

/* driver, net/ and infiniband/ of a device directory. */
static int read_functions(const char *dev, struct sysfs_vf *out, struct cni_err *err)
{
	char path[PATH_MAX];
	int ret;

	ret = mkpath(path, sizeof(path), "%s/driver", dev);
	if (ret == 0) {
		ret = link_base(path, out->driver, sizeof(out->driver));
		if (ret == -ENOENT)
			ret = 0;
	}
	if (ret == 0)
		ret = mkpath(path, sizeof(path), "%s/net", dev);
	if (ret == 0)
		ret = first_entry(path, out->ifname, sizeof(out->ifname));
	if (ret == 0)
		ret = read_rdma(dev, out, path);
	if (ret < 0)
		cni_err_set(err, CNI_ERR_IO, "failed to read %s: %s", path, strerror(-ret));
	return ret;
}

int sysfs_vf_rdma(const char *bdf, struct sysfs_vf *out)
{
	char dev[PATH_MAX], path[PATH_MAX];

	memset(out, 0, sizeof(*out));
	if (!sysfs_valid_bdf(bdf))
		return -EINVAL;
	snprintf(out->bdf, sizeof(out->bdf), "%s", bdf);
	if (mkpath(dev, sizeof(dev), "%s/bus/pci/devices/%s", sysfs_root(), bdf) < 0)
		return -ENAMETOOLONG;
	return read_rdma(dev, out, path);
}

int sysfs_vf_read(const char *bdf, struct sysfs_vf *out, struct cni_err *err)
{
	char dev[PATH_MAX], physfn[PATH_MAX], pf_net[PATH_MAX];
	struct stat st;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!sysfs_valid_bdf(bdf)) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid PCI address \"%s\"", bdf);
		return -EINVAL;
	}
	snprintf(out->bdf, sizeof(out->bdf), "%s", bdf);
	ret = mkpath(dev, sizeof(dev), "%s/bus/pci/devices/%s", sysfs_root(), bdf);
	if (ret == 0)
		ret = mkpath(physfn, sizeof(physfn), "%s/physfn", dev);
	if (ret == 0)
		ret = mkpath(pf_net, sizeof(pf_net), "%s/physfn/net", dev);
	if (ret < 0) {
		cni_err_set(err, CNI_ERR_IO, "sysfs path for %s too long", bdf);
		return ret;
	}
	if (stat(dev, &st) < 0) {
		cni_err_set(err, CNI_ERR_DEVICE, "no PCI device %s under %s/bus/pci/devices: the "
			    "VF does not exist; check its PF's sriov_numvfs (VF creation fails "
			    "when numVfs is above sriov_totalvfs) and the device plugin's "
			    "resource list", bdf, sysfs_root());
		return -ENODEV;
	}
	ret = link_base(physfn, out->pf_bdf, sizeof(out->pf_bdf));
	if (ret < 0) {
		cni_err_set(err, CNI_ERR_DEVICE, "PCI device %s is not an SR-IOV VF (no physfn): "
			    "deviceID must name a VF, not a PF", bdf);
		return -ENODEV;
	}
	if (vf_index(physfn, out->pf_bdf, bdf, &out->vf_index) < 0) {
		cni_err_set(err, CNI_ERR_DEVICE, "PCI device %s is not listed by its PF %s",
			    bdf, out->pf_bdf);
		return -ENODEV;
	}
	ret = first_entry(pf_net, out->pf_ifname, sizeof(out->pf_ifname));
	if (ret < 0) {
		cni_err_set(err, CNI_ERR_IO, "failed to read %s: %s", pf_net, strerror(-ret));
		return ret;
	}
	return read_functions(dev, out, err);
}

int sysfs_aux_read(const char *id, struct sysfs_vf *out, struct cni_err *err)
{
	char dev[PATH_MAX];
	struct stat st;

	memset(out, 0, sizeof(*out));
	out->vf_index = -1;
	if (!sysfs_valid_aux_id(id)) {
		cni_err_set(err, CNI_ERR_CONFIG, "invalid auxiliary device id \"%s\"", id);
		return -EINVAL;
	}
	snprintf(out->bdf, sizeof(out->bdf), "%s", id);
	if (mkpath(dev, sizeof(dev), "%s/bus/auxiliary/devices/%s", sysfs_root(), id) < 0) {
		cni_err_set(err, CNI_ERR_IO, "sysfs path for %s too long", id);
		return -ENAMETOOLONG;
	}
	if (stat(dev, &st) < 0) {
		cni_err_set(err, CNI_ERR_DEVICE, "no auxiliary device %s under %s/bus/auxiliary/devices",
			    id, sysfs_root());
		return -ENODEV;
	}
	return read_functions(dev, out, err);
}

int sysfs_read_attr(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int sysfs_parse_int(const char *text, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || end == text || *end || v < INT_MIN || v > INT_MAX)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

int sysfs_read_int(const char *path, int *out)
{
	char text[32];
	int ret = sysfs_read_attr(path, text, sizeof(text));

	return ret < 0 ? ret : sysfs_parse_int(text, out);
}

/* A PF of interest: VFs created, a netdev in this netns; its type from net/<ifname>/type. */
static bool pf_read(const char *bdf, struct sysfs_pf *pf)
{
	char dev[PATH_MAX], path[PATH_MAX];
	int numvfs;

	memset(pf, 0, sizeof(*pf));
	if (!sysfs_valid_bdf(bdf) || mkpath(dev, sizeof(dev), "%s/bus/pci/devices/%s", sysfs_root(),
					     bdf) < 0 ||
	    mkpath(path, sizeof(path), "%s/sriov_numvfs", dev) < 0 ||
	    sysfs_read_int(path, &numvfs) < 0 || numvfs <= 0 ||
	    mkpath(path, sizeof(path), "%s/net", dev) < 0 ||
	    first_entry(path, pf->ifname, sizeof(pf->ifname)) < 0 || !pf->ifname[0] ||
	    mkpath(path, sizeof(path), "%s/net/%s/type", dev, pf->ifname) < 0)
		return false;
	memcpy(pf->bdf, bdf, strlen(bdf) + 1);
	if (sysfs_read_int(path, &pf->type) < 0)
		pf->type = -1;
	return true;
}

int sysfs_pf_walk(int (*fn)(const struct sysfs_pf *pf, void *arg), void *arg)
{
	char path[PATH_MAX];
	struct sysfs_pf pf;
	struct dirent *d;
	int ret = 0;
	DIR *dir;

	if (mkpath(path, sizeof(path), "%s/bus/pci/devices", sysfs_root()) < 0)
		return -ENAMETOOLONG;
	dir = opendir(path);
	if (!dir)
		return -errno;
	while (ret == 0 && (d = readdir(dir)))
		if (pf_read(d->d_name, &pf))
			ret = fn(&pf, arg);
	closedir(dir);
	return ret;
}

int sysfs_virtfn(const char *pf_bdf, int n, char out[SYSFS_BDF_MAX])
{
	char path[PATH_MAX];

	if (mkpath(path, sizeof(path), "%s/bus/pci/devices/%s/virtfn%d", sysfs_root(), pf_bdf, n) < 0)
		return -ENAMETOOLONG;
	return link_base(path, out, SYSFS_BDF_MAX);
}
