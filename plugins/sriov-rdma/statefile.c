// SPDX-License-Identifier: Apache-2.0
/* An attachment's state file <dataDir>/<containerID>:<ifname>.json, and the holder line its VF lock file carries. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "log.h"
#include "nodelock.h"
#include "statefile.h"

#define NAME_MAX_LEN (NETCONF_NAME_MAX + IFNAMSIZ + 8)

/* The VF's lock file names the state file of the attachment that holds the
 * VF: written with its state, cleared with it (only by that attachment). A
 * write that fails costs only the hint: it is logged, not an error. */
static void holder_write(int lock_fd, const char *lock_id, const char *vf, const char *line)
{
	ssize_t len = (ssize_t)strlen(line);

	if (lock_fd >= 0 &&
	    (pwrite(lock_fd, line, (size_t)len, 0) != len || ftruncate(lock_fd, len) < 0))
		log_warn("VF %s: cannot record its holder in %s/%s.lock: %s", vf, NODELOCK_DIR,
			 lock_id, strerror(errno));
}

int statefile_save(const char *dir, const struct record_state *s, int lock_fd,
		   const char *lock_id, struct cni_err *err)
{
	char name[NAME_MAX_LEN], line[RECORD_HOLDER_MAX];
	char *text = record_state_encode(s);
	int ret = text ? 0 : -ENOMEM;

	record_state_name(s->containerid, s->ifname, name, sizeof(name));
	if (ret == 0)
		ret = fileio_mkdir(dir);
	if (ret == 0)
		ret = fileio_write(dir, name, text, strlen(text));
	if (ret == 0 && record_holder_format(dir, s->containerid, s->ifname, line) < 0)
		log_warn("VF %s: dataDir %s cannot be named in its lock file", s->device_id, dir);
	else if (ret == 0)
		holder_write(lock_fd, lock_id, s->device_id, line);
	if (ret < 0)
		cni_err_set(err, CNI_ERR_IO, "failed to save state %s/%s: %s", dir, name,
			    strerror(-ret));
	free(text);
	return ret;
}

int statefile_load(const char *dir, const char *containerid, const char *ifname,
		   struct record_state *s, struct cni_err *err)
{
	char name[NAME_MAX_LEN];
	struct record_state read = *s;
	char *text = NULL;
	size_t len = 0;
	int ret;

	record_state_name(containerid, ifname, name, sizeof(name));
	ret = fileio_read_max(dir, name, RECORD_STATE_MAX, &text, &len);
	if (ret == -ENOENT)
		return ret;
	if (ret < 0 && ret != -EFBIG && ret != -EINVAL) {
		cni_err_set(err, CNI_ERR_IO, "failed to read state %s/%s: %s", dir, name,
			    strerror(-ret));
		return ret;
	}
	if (ret == 0)
		ret = record_state_decode(text, len, &read);
	if (ret == 0 && !strcmp(read.containerid, containerid) && !strcmp(read.ifname, ifname)) {
		*s = read;
	} else {
		log_warn("ignoring damaged state %s/%s: %s", dir, name,
			 strerror(ret < 0 ? -ret : EBADMSG));
		ret = -ENOENT;
	}
	free(text);
	return ret;
}

int statefile_read(const char *dir, const char *containerid, const char *ifname,
		   struct record_state *s)
{
	char name[NAME_MAX_LEN];
	char *text = NULL;
	size_t len = 0;
	int ret;

	memset(s, 0, sizeof(*s));
	record_state_name(containerid, ifname, name, sizeof(name));
	ret = fileio_read_max(dir, name, RECORD_STATE_MAX, &text, &len);
	if (ret == 0)
		ret = record_state_decode(text, len, s);
	free(text);
	return ret;
}

int statefile_remove(const char *dir, const struct record_state *s, int lock_fd,
		     const char *lock_id, struct cni_err *err)
{
	char name[NAME_MAX_LEN];
	struct record_holder h;
	int ret;

	record_state_name(s->containerid, s->ifname, name, sizeof(name));
	ret = fileio_remove(dir, name);
	if (ret == 0 && statefile_holder(lock_fd, &h) == 0 &&
	    record_holder_is(&h, dir, s->containerid, s->ifname))
		holder_write(lock_fd, lock_id, s->device_id, "");
	if (ret < 0)
		cni_err_set(err, CNI_ERR_IO, "failed to remove state of %s:%s in %s: %s",
			    s->containerid, s->ifname, dir, strerror(-ret));
	return ret;
}

int statefile_holder(int lock_fd, struct record_holder *h)
{
	char line[RECORD_HOLDER_MAX + 1];
	ssize_t n;

	memset(h, 0, sizeof(*h));
	if (lock_fd < 0)
		return -EBADF;
	n = pread(lock_fd, line, sizeof(line), 0);
	if (n < 0)
		return -errno;
	if ((size_t)n == sizeof(line))
		return -EBADMSG;
	line[n] = '\0';
	return record_holder_parse(line, (size_t)n, h);
}

int statefile_lock_holder(const char *lock_name, struct record_holder *h)
{
	char *text = NULL;
	size_t len = 0;
	int ret;

	memset(h, 0, sizeof(*h));
	ret = fileio_read_max(NODELOCK_DIR, lock_name, RECORD_HOLDER_MAX, &text, &len);
	if (ret == 0)
		ret = record_holder_parse(text, len, h);
	else if (ret == -EFBIG || ret == -EINVAL)
		ret = -EBADMSG;
	free(text);
	return ret;
}
