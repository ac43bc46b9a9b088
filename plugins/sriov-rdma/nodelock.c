// SPDX-License-Identifier: Apache-2.0
/* The node-wide locks under /run: one per VF, whatever the network or dataDir, and one per InfiniBand GUID. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fileio.h"
#include "guid.h"
#include "lockfile.h"
#include "nodelock.h"
#include "sysfs.h"

/* dir/name locked, waiting up to wait_ms: its fd, or -errno with err naming what. */
static int lock_in(const char *dir, const char *name, const char *what, int wait_ms,
		   struct cni_err *err)
{
	int ret = fileio_mkdir(dir);

	if (ret == 0)
		ret = lockfile_lock(dir, name, wait_ms);
	if (ret < 0)
		cni_err_set(err, ret == -ETIMEDOUT ? CNI_ERR_TRY_AGAIN : CNI_ERR_IO,
			    "failed to lock %s in %s: %s", what, dir, strerror(-ret));
	return ret;
}

int nodelock_vf(const char *device_id, int wait_ms, struct cni_err *err)
{
	char name[SYSFS_NAME_MAX + 8], what[SYSFS_NAME_MAX + 8];

	snprintf(name, sizeof(name), "%s.lock", device_id);
	snprintf(what, sizeof(what), "VF %s", device_id);
	return lock_in(NODELOCK_DIR, name, what, wait_ms, err);
}

int nodelock_guid(uint64_t guid, int wait_ms, struct cni_err *err)
{
	char name[32], text[GUID_STR_LEN + 1], what[GUID_STR_LEN + 8];

	snprintf(name, sizeof(name), "%016" PRIx64 ".lock", guid);
	guid_format(guid, text);
	snprintf(what, sizeof(what), "GUID %s", text);
	return lock_in(NODELOCK_GUID_DIR, name, what, wait_ms, err);
}

void nodelock_release(int fd)
{
	lockfile_unlock(fd);
}
