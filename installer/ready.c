// SPDX-License-Identifier: Apache-2.0
/* Whether a node can serve sriov-rdma: RDMA netns mode, /dev/infiniband, VFs. */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "ready.h"

/* ib_core's netns_mode parameter is the variable that `rdma system set
 * netns` changes, so it shows the mode in force: Y shared, N exclusive. */
static enum ready_mode read_mode(const char *sysfs)
{
	char path[PATH_MAX], c = 0;
	int fd;

	if (snprintf(path, sizeof(path), "%s/module/ib_core/parameters/netns_mode", sysfs) >=
	    (int)sizeof(path))
		return READY_MODE_UNKNOWN;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return READY_MODE_UNKNOWN;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == 'Y' || c == '1' ? READY_MODE_SHARED :
	       c == 'N' || c == '0' ? READY_MODE_EXCLUSIVE : READY_MODE_UNKNOWN;
}

static int count_uverbs(const char *dev)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int n = 0;

	if (snprintf(path, sizeof(path), "%s/infiniband", dev) >= (int)sizeof(path))
		return -1;
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, "uverbs", 6);
	closedir(d);
	return n;
}

/* A directory with at least one entry besides . and .. */
static bool has_entries(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *e;
	bool any = false;
	DIR *d;

	if (fd < 0)
		return false;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return false;
	}
	while (!any && (e = readdir(d)))
		any = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return any;
}

static int read_int(int dirfd, const char *name)
{
	char buf[32] = "";
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atoi(buf) : 0;
}

static void count_functions(const char *sysfs, struct ready *r)
{
	char path[PATH_MAX];
	struct dirent *e;
	struct stat st;
	DIR *d;

	if (snprintf(path, sizeof(path), "%s/bus/pci/devices", sysfs) >= (int)sizeof(path))
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		int fd;

		if (e->d_name[0] == '.')
			continue;
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstatat(fd, "physfn", &st, 0) == 0) {
			r->vfs++;
			r->vfs_rdma += has_entries(fd, "infiniband");
		} else if (read_int(fd, "sriov_numvfs") > 0) {
			r->pfs++;
		}
		close(fd);
	}
	closedir(d);
}

void ready_read(const char *sysfs, const char *dev, struct ready *out)
{
	memset(out, 0, sizeof(*out));
	out->mode = read_mode(sysfs);
	out->uverbs = count_uverbs(dev);
	count_functions(sysfs, out);
}

bool ready_ok(const struct ready *r)
{
	return r->mode == READY_MODE_EXCLUSIVE && r->uverbs >= 0 && r->vfs > 0;
}

void ready_print(FILE *f, const struct ready *r, const char *dev)
{
	static const char *const modes[] = {
		[READY_MODE_UNKNOWN] = "unknown (ib_core not loaded)",
		[READY_MODE_SHARED] = "shared",
		[READY_MODE_EXCLUSIVE] = "exclusive",
	};
	const char *why[4];
	int n = 0, i;

	fprintf(f, "node: RDMA netns mode: %s\n", modes[r->mode]);
	if (r->uverbs < 0)
		fprintf(f, "node: %s/infiniband: absent\n", dev);
	else
		fprintf(f, "node: %s/infiniband: %d uverbs devices\n", dev, r->uverbs);
	fprintf(f, "node: SR-IOV: %d PFs with VFs, %d VFs, %d with an RDMA device in this netns\n",
		r->pfs, r->vfs, r->vfs_rdma);
	if (ready_ok(r)) {
		fprintf(f, "node: ready for sriov-rdma\n");
		return;
	}
	if (r->mode == READY_MODE_SHARED)
		why[n++] = "RDMA is in shared netns mode (rdma system set netns exclusive, "
			   "ib_core netns_mode=0, or rdmaMode: exclusive in a SriovNetworkPoolConfig)";
	if (r->mode == READY_MODE_UNKNOWN)
		why[n++] = "no RDMA stack (ib_core and the NIC's RDMA driver are not loaded)";
	if (r->uverbs < 0)
		why[n++] = "no infiniband device directory (ib_uverbs not loaded?)";
	if (!r->vfs)
		why[n++] = "no VFs (a SriovNetworkNodePolicy with isRdma: true creates them)";
	fprintf(f, "node: not ready for sriov-rdma: ");
	for (i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? "; " : "", why[i]);
	fprintf(f, "\n");
}
