// SPDX-License-Identifier: Apache-2.0
/* LD_PRELOAD library: NETLINK_RDMA sockets answered by the nldev model, so
 * RDMA netlink can be tested on a kernel without RDMA. Set RDMA_SIM_STATE to
 * the state file; without it every call goes to the real kernel. */
#include <dirent.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/netlink.h>
#include "drvfile.h"
#include "nldev.h"
#include "state.h"
#include "vfinfo.h"

#define EXPORT __attribute__((visibility("default")))
#define NEXT(fn) \
	static typeof(fn) *next_##fn; \
	if (!next_##fn) \
		next_##fn = next(#fn)

struct sim_sock {
	int fd;			/* the application's end */
	int peer;		/* where replies are queued */
	struct rdmasim_sock s;
};

/* Grows without a cap: iproute2's rdma tool keeps one socket per device. */
static struct sim_sock *socks;
static int nsocks, cap_socks;
static uint32_t rover = 4096;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *next(const char *name)
{
	void *fn = dlsym(RTLD_NEXT, name);

	if (!fn)
		abort();
	return fn;
}

/* Copies the socket out, so the model runs without the table lock. */
static bool lookup(int fd, struct sim_sock *out)
{
	bool found = false;
	int i;

	pthread_mutex_lock(&lock);
	for (i = 0; i < nsocks; i++) {
		if (socks[i].fd == fd) {
			if (out)
				*out = socks[i];
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&lock);
	return found;
}

static bool portid_used(uint32_t portid)
{
	int i;

	for (i = 0; i < nsocks; i++)
		if (socks[i].s.portid == portid)
			return true;
	return false;
}

/* Autobind like the kernel: the pid first, then negative ids. */
static void autobind(struct sim_sock *ss)
{
	uint32_t pid = (uint32_t)getpid();

	ss->s.portid = portid_used(pid) ? -(rover++) : pid;
}

static void update(int fd, void (*fn)(struct sim_sock *ss, const void *arg), const void *arg)
{
	int i;

	pthread_mutex_lock(&lock);
	for (i = 0; i < nsocks; i++)
		if (socks[i].fd == fd)
			fn(&socks[i], arg);
	pthread_mutex_unlock(&lock);
}

static int open_sim(int type)
{
	NEXT(socket);
	NEXT(close);
	int base = type & ~(SOCK_CLOEXEC | SOCK_NONBLOCK);
	int sv[2], inet;

	if (base != SOCK_RAW && base != SOCK_DGRAM) {
		errno = ESOCKTNOSUPPORT;
		return -1;
	}
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	inet = next_socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (inet < 0 || ((type & SOCK_NONBLOCK) && fcntl(sv[0], F_SETFL, O_NONBLOCK) < 0) ||
	    (!(type & SOCK_CLOEXEC) && fcntl(sv[0], F_SETFD, 0) < 0))
		goto fail;
	pthread_mutex_lock(&lock);
	if (nsocks == cap_socks) {
		int cap = cap_socks ? 2 * cap_socks : 16;
		struct sim_sock *grown = realloc(socks, (size_t)cap * sizeof(*grown));

		if (!grown) {
			pthread_mutex_unlock(&lock);
			errno = ENOMEM;
			goto fail;
		}
		socks = grown;
		cap_socks = cap;
	}
	socks[nsocks++] = (struct sim_sock){
		.fd = sv[0], .peer = sv[1],
		.s = { .netns = rdmasim_current_netns(), .inet_fd = inet },
	};
	pthread_mutex_unlock(&lock);
	return sv[0];
fail:
	if (inet >= 0)
		next_close(inet);
	next_close(sv[0]);
	next_close(sv[1]);
	return -1;
}

EXPORT int socket(int domain, int type, int protocol)
{
	NEXT(socket);

	if (domain != AF_NETLINK || protocol != NETLINK_RDMA || !getenv("RDMA_SIM_STATE"))
		return next_socket(domain, type, protocol);
	return open_sim(type);
}

static void do_bind(struct sim_sock *ss, const void *arg)
{
	uint32_t pid = *(const uint32_t *)arg;

	if (pid)
		ss->s.portid = pid;
	else if (!ss->s.portid)
		autobind(ss);
}

EXPORT int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	NEXT(bind);
	const struct sockaddr_nl *nl = (const struct sockaddr_nl *)addr;

	if (!lookup(fd, NULL))
		return next_bind(fd, addr, len);
	if (len < sizeof(*nl) || nl->nl_family != AF_NETLINK) {
		errno = EINVAL;
		return -1;
	}
	update(fd, do_bind, &nl->nl_pid);
	return 0;
}

EXPORT int getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
	NEXT(getsockname);
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	struct sim_sock ss;

	if (!lookup(fd, &ss))
		return next_getsockname(fd, addr, len);
	nl.nl_pid = ss.s.portid;
	memcpy(addr, &nl, *len < sizeof(nl) ? *len : sizeof(nl));
	*len = sizeof(nl);
	return 0;
}

static void set_ext_ack(struct sim_sock *ss, const void *arg)
{
	ss->s.ext_ack = *(const int *)arg;
}

static void set_cap_ack(struct sim_sock *ss, const void *arg)
{
	ss->s.cap_ack = *(const int *)arg;
}

EXPORT int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	NEXT(setsockopt);

	if (level != SOL_NETLINK || !lookup(fd, NULL))
		return next_setsockopt(fd, level, name, val, len);
	if (len < sizeof(int)) {
		errno = EINVAL;
		return -1;
	}
	switch (name) {
	case NETLINK_EXT_ACK:
		update(fd, set_ext_ack, val);
		return 0;
	case NETLINK_CAP_ACK:
		update(fd, set_cap_ack, val);
		return 0;
	case NETLINK_GET_STRICT_CHK:
		return 0;
	}
	errno = ENOPROTOOPT;
	return -1;
}

static void emit(void *ctx, const void *buf, size_t len)
{
	const struct sim_sock *ss = ctx;

	if (write(ss->peer, buf, len) < 0)
		return;
}

static void bind_if_needed(struct sim_sock *ss, const void *arg)
{
	(void)arg;
	if (!ss->s.portid)
		autobind(ss);
}

/* Only the kernel (nl_pid 0) is a valid destination here. */
static ssize_t sim_send(int fd, const void *buf, size_t len, const struct sockaddr *to,
			socklen_t tolen)
{
	const struct sockaddr_nl *nl = (const struct sockaddr_nl *)to;
	const char *path = getenv("RDMA_SIM_STATE");
	struct sim_sock ss;

	if (to && (tolen < sizeof(*nl) || nl->nl_family != AF_NETLINK)) {
		errno = EINVAL;
		return -1;
	}
	if (to && nl->nl_pid) {
		errno = ECONNREFUSED;
		return -1;
	}
	update(fd, bind_if_needed, NULL);
	if (!lookup(fd, &ss) || !path) {
		errno = EBADF;
		return -1;
	}
	rdmasim_handle(path, &ss.s, buf, len, emit, &ss);
	return (ssize_t)len;
}

EXPORT ssize_t sendto(int fd, const void *buf, size_t len, int flags,
		      const struct sockaddr *to, socklen_t tolen)
{
	NEXT(sendto);

	if (lookup(fd, NULL))
		return sim_send(fd, buf, len, to, tolen);
	if (vfinfo_send(getenv("RDMA_SIM_STATE"), fd, buf, len))
		return (ssize_t)len;
	return next_sendto(fd, buf, len, flags, to, tolen);
}

EXPORT ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	NEXT(send);

	if (lookup(fd, NULL))
		return sim_send(fd, buf, len, NULL, 0);
	if (vfinfo_send(getenv("RDMA_SIM_STATE"), fd, buf, len))
		return (ssize_t)len;
	return next_send(fd, buf, len, flags);
}

EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	NEXT(sendmsg);
	size_t len = 0, off = 0, i;
	ssize_t ret;
	char *buf;

	for (i = 0; i < msg->msg_iovlen; i++)
		len += msg->msg_iov[i].iov_len;
	buf = malloc(len ? len : 1);
	if (!buf)
		return -1;
	for (i = 0; i < msg->msg_iovlen; i++) {
		memcpy(buf + off, msg->msg_iov[i].iov_base, msg->msg_iov[i].iov_len);
		off += msg->msg_iov[i].iov_len;
	}
	if (lookup(fd, NULL))
		ret = sim_send(fd, buf, len, msg->msg_name, msg->msg_namelen);
	else if (vfinfo_send(getenv("RDMA_SIM_STATE"), fd, buf, len))
		ret = (ssize_t)len;
	else
		ret = next_sendmsg(fd, msg, flags);
	free(buf);
	return ret;
}

/* Replies come from the kernel: nl_pid 0. */
static void kernel_addr(void *addr, socklen_t *len)
{
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };

	if (!addr || !len)
		return;
	memcpy(addr, &nl, *len < sizeof(nl) ? *len : sizeof(nl));
	*len = sizeof(nl);
}

EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	NEXT(recvmsg);
	socklen_t namelen = msg->msg_namelen;
	void *name = msg->msg_name;
	ssize_t ret;

	if (!lookup(fd, NULL))
		return vfinfo_recv(getenv("RDMA_SIM_STATE"), fd, msg, flags, next_recvmsg);
	msg->msg_name = NULL;
	msg->msg_namelen = 0;
	ret = next_recvmsg(fd, msg, flags);
	msg->msg_name = name;
	msg->msg_namelen = namelen;
	if (ret >= 0)
		kernel_addr(name, &msg->msg_namelen);
	return ret;
}

EXPORT ssize_t recvfrom(int fd, void *buf, size_t len, int flags,
			struct sockaddr *from, socklen_t *fromlen)
{
	NEXT(recvfrom);
	ssize_t ret;

	if (!lookup(fd, NULL))
		return next_recvfrom(fd, buf, len, flags, from, fromlen);
	ret = next_recvfrom(fd, buf, len, flags, NULL, NULL);
	if (ret >= 0)
		kernel_addr(from, fromlen);
	return ret;
}

EXPORT int close(int fd)
{
	NEXT(close);
	int i;

	pthread_mutex_lock(&lock);
	for (i = 0; i < nsocks; i++) {
		if (socks[i].fd != fd)
			continue;
		next_close(socks[i].peer);
		next_close(socks[i].s.inet_fd);
		socks[i] = socks[--nsocks];
		break;
	}
	pthread_mutex_unlock(&lock);
	vfinfo_close(fd);
	drvfile_close(fd);
	return next_close(fd);
}

/* The fake sysfs driver attributes (drvfile.c); every other file as usual. */
#define OPEN_WRAPPER(sym, ...) \
	{ \
		static int (*real)(); \
		mode_t mode = 0; \
		int fd; \
		if (!real) \
			real = (int (*)())next(sym); \
		if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) { \
			va_list ap; \
			va_start(ap, flags); \
			mode = va_arg(ap, mode_t); \
			va_end(ap); \
		} \
		if (drvfile_open(path, flags, next_open_real(), &fd)) \
			return fd; \
		return real(__VA_ARGS__, flags, mode); \
	}

static drvfile_open_t next_open_real(void)
{
	static drvfile_open_t real;

	if (!real)
		real = (drvfile_open_t)next("open");
	return real;
}

/* Under _FILE_OFFSET_BITS=64 the headers redirect open to open64: the
 * symbols are named explicitly so each is defined once. */
EXPORT int sim_open(const char *path, int flags, ...) __asm__("open");
EXPORT int sim_open64(const char *path, int flags, ...) __asm__("open64");
EXPORT int sim_openat(int dirfd, const char *path, int flags, ...) __asm__("openat");
EXPORT int sim_openat64(int dirfd, const char *path, int flags, ...) __asm__("openat64");
int sim_open(const char *path, int flags, ...) OPEN_WRAPPER("open", path)
int sim_open64(const char *path, int flags, ...) OPEN_WRAPPER("open64", path)
int sim_openat(int dirfd, const char *path, int flags, ...)
	OPEN_WRAPPER("openat", dirfd, path)
int sim_openat64(int dirfd, const char *path, int flags, ...)
	OPEN_WRAPPER("openat64", dirfd, path)

/* Listing a VF's sysfs net/ or infiniband/ (drvfile.c). Under
 * _FILE_OFFSET_BITS=64 scandir is scandir64: both symbols are defined. */
typedef int (*scandir_t)(const char *dir, void *list, void *sel, void *cmp);
EXPORT int sim_scandir(const char *dir, void *list, void *sel, void *cmp) __asm__("scandir");
EXPORT int sim_scandir64(const char *dir, void *list, void *sel, void *cmp) __asm__("scandir64");
EXPORT DIR *sim_opendir(const char *dir) __asm__("opendir");

/* The real sym (looked up once into *real), after the driver model's turn. */
static int list_via(const char *sym, scandir_t *real, const char *dir, void *list, void *sel,
		    void *cmp)
{
	if (!*real)
		*real = (scandir_t)next(sym);
	drvfile_before_list(dir);
	return (*real)(dir, list, sel, cmp);
}

int sim_scandir(const char *dir, void *list, void *sel, void *cmp)
{
	static scandir_t real;

	return list_via("scandir", &real, dir, list, sel, cmp);
}

int sim_scandir64(const char *dir, void *list, void *sel, void *cmp)
{
	static scandir_t real;

	return list_via("scandir64", &real, dir, list, sel, cmp);
}

DIR *sim_opendir(const char *dir)
{
	static DIR *(*real)(const char *);

	if (!real)
		real = (DIR *(*)(const char *))next("opendir");
	drvfile_before_list(dir);
	return real(dir);
}

EXPORT int dup2(int oldfd, int newfd)
{
	NEXT(dup2);
	int ret = next_dup2(oldfd, newfd);

	if (ret >= 0 && oldfd != newfd)
		drvfile_dup(oldfd, ret);
	return ret;
}

EXPORT int dup3(int oldfd, int newfd, int flags)
{
	NEXT(dup3);
	int ret = next_dup3(oldfd, newfd, flags);

	if (ret >= 0)
		drvfile_dup(oldfd, ret);
	return ret;
}

EXPORT ssize_t write(int fd, const void *buf, size_t len)
{
	NEXT(write);
	ssize_t ret;

	if (drvfile_write(fd, buf, len, &ret))
		return ret;
	return next_write(fd, buf, len);
}
