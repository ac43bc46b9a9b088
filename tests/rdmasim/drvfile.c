// SPDX-License-Identifier: Apache-2.0
/* Writes to the fake sysfs bind/unbind attributes, answered by rdmasim-drv. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "drvfile.h"
#include "drvproto.h"

#define MAX_FILES 16

static struct {
	int fd;
	char attr[8];
	char driver[64];
} files[MAX_FILES];
static int nfiles;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static bool daemon_runs(const char *state)
{
	char sock[4096];
	struct stat sb;

	return rdmasim_drv_sock_path(state, sock, sizeof(sock)) == 0 && stat(sock, &sb) == 0 &&
	       S_ISSOCK(sb.st_mode);
}

/* "<root>/bus/pci/drivers/<driver>/<attr>" -> driver, attr. */
static bool parse(const char *path, char *driver, size_t size, char attr[8])
{
	const char *root = getenv("SYSFS_PATH"), *p, *slash;
	static const char mid[] = "/bus/pci/drivers/";

	if (!root || strncmp(path, root, strlen(root)) != 0)
		return false;
	p = path + strlen(root);
	if (strncmp(p, mid, strlen(mid)) != 0)
		return false;
	p += strlen(mid);
	slash = strchr(p, '/');
	if (!slash || slash == p || (size_t)(slash - p) >= size ||
	    (strcmp(slash + 1, "bind") && strcmp(slash + 1, "unbind")))
		return false;
	snprintf(driver, size, "%.*s", (int)(slash - p), p);
	snprintf(attr, 8, "%s", slash + 1);
	return true;
}

bool drvfile_open(const char *path, int flags, drvfile_open_t real_open, int *fd)
{
	const char *state = getenv("RDMA_SIM_STATE");
	char driver[64], attr[8];

	if (!path || !state || !parse(path, driver, sizeof(driver), attr) || !daemon_runs(state))
		return false;
	*fd = real_open("/dev/null", O_WRONLY | (flags & O_CLOEXEC));
	if (*fd < 0)
		return true;
	pthread_mutex_lock(&lock);
	if (nfiles < MAX_FILES) {
		files[nfiles].fd = *fd;
		snprintf(files[nfiles].attr, sizeof(files[nfiles].attr), "%s", attr);
		snprintf(files[nfiles].driver, sizeof(files[nfiles].driver), "%s", driver);
		nfiles++;
	}
	pthread_mutex_unlock(&lock);
	return true;
}

void drvfile_before_list(const char *path)
{
	static const char mid[] = "/bus/pci/devices/";
	const char *state = getenv("RDMA_SIM_STATE"), *root = getenv("SYSFS_PATH"), *p, *slash;
	char req[RDMASIM_DRV_REQ_MAX];

	if (!path || !state || !root || strncmp(path, root, strlen(root)) ||
	    strncmp(path + strlen(root), mid, strlen(mid)))
		return;
	p = path + strlen(root) + strlen(mid);
	slash = strchr(p, '/');
	if (!slash || slash - p >= 64 || (strcmp(slash, "/net") && strcmp(slash, "/infiniband")) ||
	    !daemon_runs(state))
		return;
	snprintf(req, sizeof(req), "sync %.*s", (int)(slash - p), p);
	rdmasim_drv_call(state, req, -1);
}

/* The driver core finds the device by name (sysfs_streq: one trailing
 * newline allowed). */
bool drvfile_write(int fd, const void *buf, size_t len, ssize_t *ret)
{
	char req[RDMASIM_DRV_REQ_MAX], attr[8] = "", driver[64] = "", addr[64];
	size_t n = len;
	int i, err;

	pthread_mutex_lock(&lock);
	for (i = 0; i < nfiles && files[i].fd != fd; i++)
		;
	if (i < nfiles) {
		memcpy(attr, files[i].attr, sizeof(attr));
		memcpy(driver, files[i].driver, sizeof(driver));
	}
	pthread_mutex_unlock(&lock);
	if (!attr[0])
		return false;
	if (n && ((const char *)buf)[n - 1] == '\n')
		n--;
	err = -ENODEV;
	if (n > 0 && n < sizeof(addr)) {
		memcpy(addr, buf, n);
		addr[n] = '\0';
		if (!strpbrk(addr, " \n\t")) {
			snprintf(req, sizeof(req), "%s %s %s", attr, driver, addr);
			err = rdmasim_drv_call(getenv("RDMA_SIM_STATE"), req, -1);
		}
	}
	if (err < 0) {
		errno = -err;
		*ret = -1;
	} else {
		*ret = (ssize_t)len;
	}
	return true;
}

static void forget(int fd)
{
	for (int i = 0; i < nfiles; i++) {
		if (files[i].fd == fd) {
			files[i] = files[--nfiles];
			break;
		}
	}
}

void drvfile_close(int fd)
{
	pthread_mutex_lock(&lock);
	forget(fd);
	pthread_mutex_unlock(&lock);
}

void drvfile_dup(int oldfd, int newfd)
{
	pthread_mutex_lock(&lock);
	forget(newfd);
	for (int i = 0; i < nfiles; i++) {
		if (files[i].fd == oldfd && nfiles < MAX_FILES) {
			files[nfiles] = files[i];
			files[nfiles++].fd = newfd;
			break;
		}
	}
	pthread_mutex_unlock(&lock);
}
