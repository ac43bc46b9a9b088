// SPDX-License-Identifier: Apache-2.0
/* The kernel's cost of moving a netdev into a netns and back: N pairs of RTM_NEWLINK (netns + name in one). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

struct req {
	struct nlmsghdr nh;
	struct ifinfomsg ifi;
	char attrs[64];
};

static void put_attr(struct req *r, unsigned short type, const void *data, size_t len)
{
	struct rtattr *rta = (struct rtattr *)((char *)r + NLMSG_ALIGN(r->nh.nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

/* One RTM_NEWLINK: ifindex into the netns of ns_fd, named name; 0 or -errno. */
static int move(int sock, int ifindex, int ns_fd, const char *name)
{
	struct req r = { 0 };
	char buf[4096];
	uint32_t fd = ns_fd;
	struct nlmsgerr *e;
	ssize_t n;

	r.nh.nlmsg_len = NLMSG_LENGTH(sizeof(r.ifi));
	r.nh.nlmsg_type = RTM_NEWLINK;
	r.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	r.ifi.ifi_family = AF_UNSPEC;
	r.ifi.ifi_index = ifindex;
	put_attr(&r, IFLA_NET_NS_FD, &fd, sizeof(fd));
	put_attr(&r, IFLA_IFNAME, name, strlen(name) + 1);
	if (send(sock, &r, r.nh.nlmsg_len, 0) < 0)
		return -errno;
	n = recv(sock, buf, sizeof(buf), 0);
	if (n < 0)
		return -errno;
	e = NLMSG_DATA((struct nlmsghdr *)buf);
	return ((struct nlmsghdr *)buf)->nlmsg_type == NLMSG_ERROR ? e->error : -EPROTO;
}

/* A NETLINK_ROUTE socket created inside the netns of ns_fd. */
static int socket_in(int ns_fd, int home_fd)
{
	int s;

	if (setns(ns_fd, CLONE_NEWNET) < 0)
		return -1;
	s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (setns(home_fd, CLONE_NEWNET) < 0)
		return -1;
	return s;
}

static long us(struct timespec a, struct timespec b)
{
	return (b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000;
}

static long cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000L +
	       ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

/* ifindex of name in the netns of ns_fd, 0 when none. */
static int ifindex_in(int ns_fd, int home_fd, const char *name)
{
	int ifindex;

	if (setns(ns_fd, CLONE_NEWNET) < 0)
		return 0;
	ifindex = (int)if_nametoindex(name);
	if (setns(home_fd, CLONE_NEWNET) < 0)
		return 0;
	return ifindex;
}

/* usage: netns-move N IFNAME NETNS-PATH [in|out]
 * Prints "<wall_us> <cpu_us> <status>" per move, in then out, like runner.
 * "in": one move of IFNAME into the netns (named bench0 there); "out": one
 * move of bench0 back as IFNAME (a burst of concurrent moves, each way). */
int main(int argc, char **argv)
{
	const char *mode = argc == 5 ? argv[4] : "both";
	int n = argc == 4 || argc == 5 ? atoi(argv[1]) : 0;
	bool in = strcmp(mode, "out"), out = strcmp(mode, "in");
	int host_fd, pod_fd, host_s, pod_s, ifindex, i, ret = 0;

	if (n <= 0 || (!in && !out) || (in && out && strcmp(mode, "both"))) {
		fprintf(stderr, "usage: netns-move N IFNAME NETNS-PATH [in|out]\n");
		return 2;
	}
	host_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	pod_fd = open(argv[3], O_RDONLY | O_CLOEXEC);
	ifindex = host_fd < 0 || pod_fd < 0 ? 0 : in ? (int)if_nametoindex(argv[2]) :
		  ifindex_in(pod_fd, host_fd, "bench0");
	if (!ifindex) {
		perror("netns-move");
		return 1;
	}
	host_s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	pod_s = socket_in(pod_fd, host_fd);
	if (host_s < 0 || pod_s < 0) {
		perror("netns-move: socket");
		return 1;
	}
	for (i = 0; i < n; i++) {
		struct timespec t0, t1, t2;
		long c0, c1, c2;

		c0 = cpu_us();
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (in)
			ret = move(host_s, ifindex, pod_fd, "bench0");
		clock_gettime(CLOCK_MONOTONIC, &t1);
		c1 = cpu_us();
		if (!ret && out)
			ret = move(pod_s, ifindex, host_fd, argv[2]);
		clock_gettime(CLOCK_MONOTONIC, &t2);
		c2 = cpu_us();
		if (ret) {
			fprintf(stderr, "netns-move: %s\n", strerror(-ret));
			return 1;
		}
		if (in)
			printf("%ld %ld 0\n", us(t0, t1), c1 - c0);
		if (out)
			printf("%ld %ld 0\n", us(t1, t2), c2 - c1);
	}
	return 0;
}
