// SPDX-License-Identifier: Apache-2.0
/* sriov-rdma-install: puts the plugins (and ippool's store settings) on a node, then says whether the node is ready. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fileio.h"
#include "install.h"
#include "ready.h"
#include "sysfs.h"


static const char usage[] =
	"usage: sriov-rdma-install [--from DIR] [--to DIR] [--conf-from DIR --conf-to DIR]\n"
	"                          [--dev DIR] [--sleep [--resync SECONDS]]\n"
	"Copies sriov-rdma and ippool from --from (default /opt/cni/bin) into --to\n"
	"(default /host/opt/cni/bin), atomically and only when they differ; the files\n"
	"of --conf-from (ippool.conf, etcd certificates) likewise into --conf-to, mode\n"
	"0600. Then reports the node's RDMA netns mode, DIR/infiniband (--dev, default\n"
	"/dev) and its VFs (under $SYSFS_PATH, default /sys). Without --sleep it exits\n"
	"(an init container); with it, it copies again every --resync seconds (60: a\n"
	"rotated certificate) until SIGTERM (the main container of a DaemonSet).\n";

struct opts {
	const char *from, *to, *conf_from, *conf_to, *dev;
	bool sleep;
	long resync;	/* seconds */
};

static const char *const plugins[] = { "sriov-rdma", "ippool" };

/* Copies names[] from from to to; says what it did (only changes when quiet). */
static int sync_dir(const char *from, const char *to, const char *const *names, size_t n,
		    mode_t mode, bool quiet)
{
	static const char *const said[] = {
		[INSTALL_NEW] = "installed",
		[INSTALL_REPLACED] = "replaced",
		[INSTALL_UNCHANGED] = "unchanged",
	};
	enum install_outcome outcome;
	size_t i;
	int lock, ret = 0;

	lock = install_lock(to);
	if (lock < 0) {
		if (lock == -ENOTDIR)
			fprintf(stderr, "sriov-rdma-install: destination %s is not a directory\n", to);
		else
			fprintf(stderr, "sriov-rdma-install: destination %s: %s\n", to, strerror(-lock));
		return lock;
	}
	for (i = 0; i < n && !ret; i++) {
		ret = install_file(from, to, names[i], mode, &outcome);
		if (ret)
			fprintf(stderr, "sriov-rdma-install: failed to install %s/%s into %s: %s\n",
				from, names[i], to, strerror(-ret));
		else if (!quiet || outcome != INSTALL_UNCHANGED)
			printf("sriov-rdma-install: %s %s in %s\n", names[i], said[outcome], to);
	}
	close(lock);
	return ret;
}

/* The files a Secret or ConfigMap volume holds (its ..data links skipped). */
static int sync_conf(const struct opts *o, bool quiet)
{
	char **names = NULL;
	size_t n = 0, i;
	int ret;

	ret = fileio_list(o->conf_from, "", &names, &n);
	if (ret)
		fprintf(stderr, "sriov-rdma-install: cannot list %s: %s\n", o->conf_from,
			strerror(-ret));
	else if (n)
		ret = sync_dir(o->conf_from, o->conf_to, (const char *const *)names, n, 0600, quiet);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ret;
}

static int sync_all(const struct opts *o, bool quiet)
{
	int ret;

	ret = sync_dir(o->from, o->to, plugins, sizeof(plugins) / sizeof(plugins[0]), 0755, quiet);
	if (!ret && o->conf_from)
		ret = sync_conf(o, quiet);
	fflush(stdout);
	return ret;
}

/* As PID 1 of a container, SIGTERM has no default action: wait for it. */
static void sleep_and_resync(const struct opts *o)
{
	struct timespec every = { .tv_sec = o->resync };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	while (sigtimedwait(&set, NULL, &every) < 0)
		sync_all(o, true);
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option opts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "conf-from", required_argument, NULL, 'c' },
		{ "conf-to", required_argument, NULL, 'C' },
		{ "dev", required_argument, NULL, 'd' },
		{ "sleep", no_argument, NULL, 's' },
		{ "resync", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	*o = (struct opts){ .from = "/opt/cni/bin", .to = "/host/opt/cni/bin", .dev = "/dev",
			    .resync = 60 };
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'f': o->from = optarg; break;
		case 't': o->to = optarg; break;
		case 'c': o->conf_from = optarg; break;
		case 'C': o->conf_to = optarg; break;
		case 'd': o->dev = optarg; break;
		case 's': o->sleep = true; break;
		case 'r':
			o->resync = strtol(optarg, &end, 10);
			if (*end || end == optarg || o->resync < 1 || o->resync > 86400)
				return -EINVAL;
			break;
		case 'h': fputs(usage, stdout); exit(0);
		default: return -EINVAL;
		}
	}
	if (optind != argc || !o->conf_from != !o->conf_to)
		return -EINVAL;
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct ready r;

	if (parse(argc, argv, &o)) {
		fputs(usage, stderr);
		return 2;
	}
	if (sync_all(&o, false))
		return 1;
	ready_read(sysfs_root(), o.dev, &r);
	ready_print(stdout, &r, o.dev);
	fflush(stdout);
	if (o.sleep)
		sleep_and_resync(&o);
	return 0;
}
