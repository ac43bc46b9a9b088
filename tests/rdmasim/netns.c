// SPDX-License-Identifier: Apache-2.0
/* Whether a network namespace other than the host's exists now, the question
 * the kernel's rdma_compatdev_set() asks before it changes the netns mode. */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/sockios.h>
#include "netns.h"

struct scan {
	unsigned long host;
	unsigned long *mnt;		/* mount namespaces whose table was read */
	size_t n_mnt, cap_mnt;
};

static bool other(const struct scan *s, unsigned long ino)
{
	return ino && ino != s->host;
}

/* An nsfs file's name as readlink() and mountinfo print it: "net:[N]". */
static unsigned long nsfs_net(const char *name)
{
	unsigned long ino;
	char bracket;

	if (sscanf(name, "net:[%lu%c", &ino, &bracket) != 2 || bracket != ']')
		return 0;
	return ino;
}

static unsigned long ns_ino(int dir, const char *path)
{
	struct stat st;

	return fstatat(dir, path, &st, 0) < 0 ? 0 : st.st_ino;
}

/* fn on each entry of /proc/<pid>/<sub> (its directory's fd, the name), until
 * one says true. */
static bool any_entry(const char *pid, const char *sub,
		      bool (*fn)(int dir, const char *name, void *arg), void *arg)
{
	char path[PATH_MAX];
	struct dirent *de;
	bool found = false;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%s/%s", pid, sub);
	d = opendir(path);
	if (!d)
		return false;
	while (!found && (de = readdir(d)))
		found = de->d_name[0] != '.' && fn(dirfd(d), de->d_name, arg);
	closedir(d);
	return found;
}

/* Each thread has its own nsproxy: one setns() is enough to hold a netns. */
static bool task_holds(int dir, const char *tid, void *arg)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/ns/net", tid);
	return other(arg, ns_ino(dir, path));
}

static bool mnt_seen(struct scan *s, unsigned long mnt)
{
	unsigned long *grown;

	for (size_t i = 0; i < s->n_mnt; i++)
		if (s->mnt[i] == mnt)
			return true;
	if (s->n_mnt == s->cap_mnt) {
		s->cap_mnt = s->cap_mnt ? 2 * s->cap_mnt : 16;
		grown = realloc(s->mnt, s->cap_mnt * sizeof(*grown));
		if (!grown)
			return false;
		s->mnt = grown;
	}
	s->mnt[s->n_mnt++] = mnt;
	return false;
}

/* `ip netns add` binds the netns on a file: an nsfs mount whose root is
 * "net:[N]", in whichever mount namespace made it (each read once). */
static bool mounts_hold(struct scan *s, const char *pid)
{
	char path[PATH_MAX], root[256], fstype[32], *line = NULL;
	const char *dash;
	bool found = false;
	size_t size = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/ns/mnt", pid);
	if (mnt_seen(s, ns_ino(AT_FDCWD, path)))
		return false;
	snprintf(path, sizeof(path), "/proc/%s/mountinfo", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && getline(&line, &size, f) > 0) {
		dash = strstr(line, " - ");
		if (dash && sscanf(line, "%*s %*s %*s %255s", root) == 1 &&
		    sscanf(dash + 3, "%31s", fstype) == 1 && !strcmp(fstype, "nsfs"))
			found = other(s, nsfs_net(root));
	}
	free(line);
	fclose(f);
	return found;
}

/* A socket holds the netns it was made in (sk_alloc() takes a reference),
 * wherever its owner is now; SIOCGSKNS on a copy of the descriptor names it. */
static unsigned long socket_net(int pidfd, int fd)
{
	unsigned long ino = 0;
	struct stat st;
	int copy, ns;

	copy = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (copy < 0)
		return 0;
	ns = ioctl(copy, SIOCGSKNS);
	if (ns >= 0 && fstat(ns, &st) == 0)
		ino = st.st_ino;
	if (ns >= 0)
		syscall(SYS_close, ns);
	syscall(SYS_close, copy);
	return ino;
}

struct fd_walk {
	const struct scan *s;
	int pid, pidfd;			/* pidfd opened at the first socket */
};

/* An open netns file (a runtime's handle, /proc/PID/ns/net kept open) or a
 * socket made in the netns keeps it alive with no process in it. */
static bool fd_holds(int dir, const char *fd, void *arg)
{
	struct fd_walk *w = arg;
	char link[128];
	ssize_t n;

	n = readlinkat(dir, fd, link, sizeof(link) - 1);
	if (n <= 0)
		return false;
	link[n] = '\0';
	if (!strncmp(link, "net:[", 5))
		return other(w->s, nsfs_net(link));
	if (strncmp(link, "socket:[", 8))
		return false;
	if (w->pidfd < 0)
		w->pidfd = (int)syscall(SYS_pidfd_open, w->pid, 0);
	return w->pidfd >= 0 && other(w->s, socket_net(w->pidfd, atoi(fd)));
}

static bool fds_hold(const struct scan *s, const char *pid)
{
	struct fd_walk w = { .s = s, .pid = atoi(pid), .pidfd = -1 };
	bool found = any_entry(pid, "fd", fd_holds, &w);

	if (w.pidfd >= 0)
		syscall(SYS_close, w.pidfd);
	return found;
}

bool rdmasim_other_netns(unsigned long host)
{
	struct scan s = { .host = host };
	struct dirent *de;
	bool found = false;
	DIR *proc = opendir("/proc");

	if (!proc)
		return false;
	while (!found && (de = readdir(proc))) {
		if (strspn(de->d_name, "0123456789") != strlen(de->d_name))
			continue;
		found = any_entry(de->d_name, "task", task_holds, &s) ||
			mounts_hold(&s, de->d_name) || fds_hold(&s, de->d_name);
	}
	closedir(proc);
	free(s.mnt);
	return found;
}
