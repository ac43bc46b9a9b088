// SPDX-License-Identifier: Apache-2.0
/* The node's VFs by state: sysfs for the PFs, their VFs and where each netdev is; the VF lock files for who holds them. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "statefile.h"
#include "sysfs.h"
#include "vfstate.h"

#define MAX_PFS 64

struct walk {
	struct metrics_pf *pfs;
	int n;
};

static void count_vf(const char *bdf, struct metrics_pf *pf)
{
	char lock[SYSFS_BDF_MAX + 8];
	struct record_holder h;
	struct cni_err err = { 0 };
	struct sysfs_vf vf;

	snprintf(lock, sizeof(lock), "%s.lock", bdf);
	if (statefile_lock_holder(lock, &h) != 0 || !h.dir[0])
		pf->free++;
	else if (sysfs_vf_read(bdf, &vf, &err) == 0 && vf.ifname[0])
		pf->parked++;
	else
		pf->attached++;
}

static int visit(const struct sysfs_pf *p, void *arg)
{
	char path[PATH_MAX], vf[SYSFS_BDF_MAX];
	struct walk *w = arg;
	struct metrics_pf *pf;
	int numvfs = 0;

	if (w->n == MAX_PFS)
		return 0;
	pf = &w->pfs[w->n++];
	snprintf(pf->name, sizeof(pf->name), "%s", p->ifname[0] ? p->ifname : p->bdf);
	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/sriov_numvfs", sysfs_root(), p->bdf);
	sysfs_read_int(path, &numvfs);
	for (int i = 0; i < numvfs; i++)
		if (sysfs_virtfn(p->bdf, i, vf) == 0)
			count_vf(vf, pf);
	return 0;
}

int vfstate_read(struct metrics_pf **pfs, int *n)
{
	struct walk w = { .pfs = calloc(MAX_PFS, sizeof(*w.pfs)) };
	int ret;

	*pfs = NULL;
	*n = 0;
	if (!w.pfs)
		return -ENOMEM;
	ret = sysfs_pf_walk(visit, &w);
	if (ret < 0) {
		free(w.pfs);
		return ret;
	}
	*pfs = w.pfs;
	*n = w.n;
	return 0;
}
