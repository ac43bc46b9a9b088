// SPDX-License-Identifier: Apache-2.0
/* sriov-rdma-install: puts the plugins (and ippool's store settings) on a node, says whether the node is ready, and runs the node agent. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "agent.h"
#include "clock.h"
#include "fileio.h"
#include "install.h"
#include "ready.h"
#include "sysfs.h"


static const char usage[] =
	"usage: sriov-rdma-install [--from DIR] [--to DIR] [--conf-from DIR --conf-to DIR]\n"
	"                          [--dev DIR] [--sleep [--resync SECONDS]]\n"
	"                          [--reconcile-interval SECONDS] [--metrics-file PATH]\n"
	"                          [--reconcile-grace SECONDS] [--ippool-conf FILE]... [--once]\n"
	"Copies sriov-rdma and ippool from --from (default /opt/cni/bin) into --to\n"
	"(default /host/opt/cni/bin), atomically and only when they differ; the files\n"
	"of --conf-from (ippool.conf, etcd certificates) likewise into --conf-to, mode\n"
	"0600. Then reports the node's RDMA netns mode, DIR/infiniband (--dev, default\n"
	"/dev) and its VFs (under $SYSFS_PATH, default /sys). Without --sleep it exits\n"
	"(an init container); with it, it copies again every --resync seconds (60: a\n"
	"rotated certificate) until SIGTERM (the main container of a DaemonSet).\n"
	"With --reconcile-interval (or $SRIOV_RDMA_RECONCILE_INTERVAL; 0, the default,\n"
	"is off) it also runs the node agent every SECONDS until SIGTERM: --to's\n"
	"sriov-rdma reconcile and ippool reconcile (ippool's default store, then each\n"
	"--ippool-conf; --reconcile-grace is their --grace), the call records folded\n"
	"in, --metrics-file written for node_exporter's textfile collector.\n"
	"--once runs the agent once, copying nothing (a systemd timer), and exits 1\n"
	"when a reconcile did not end well.\n";

struct opts {
	const char *from, *to, *conf_from, *conf_to, *dev;
	bool sleep, once;
	long resync;	/* seconds */
	struct agent_opts agent;	/* agent.interval 0: no agent */
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

/* Milliseconds until the sooner of two deadlines (-1: none), at least 0. */
static struct timespec until(long a, long b)
{
	long next = a < 0 ? b : b < 0 || a < b ? a : b, ms = next - clock_ms();

	if (ms < 0)
		ms = 0;
	return (struct timespec){ .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000 };
}

/* As PID 1 of a container, SIGTERM has no default action: wait for it,
 * copying again every resync and running the agent every interval. A
 * SIGTERM during a run ends it between its commands (agent_pass). */
static int serve(const struct opts *o)
{
	long next_sync = o->sleep ? clock_ms() + o->resync * 1000 : -1, next_run = -1;
	struct agent *a = NULL;
	struct timespec wait;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (o->agent.interval) {
		a = agent_new(&o->agent);
		if (!a)
			return 1;
		next_run = clock_ms();
	}
	for (;;) {
		if (a && clock_ms() >= next_run) {
			agent_pass(a, &set);
			next_run = clock_ms() + o->agent.interval * 1000;
		}
		if (o->sleep && clock_ms() >= next_sync) {
			sync_all(o, true);
			next_sync = clock_ms() + o->resync * 1000;
		}
		wait = until(next_run, next_sync);
		if (sigtimedwait(&set, NULL, &wait) >= 0)
			break;
	}
	if (a)
		printf("agent: stopped\n");
	agent_free(a);
	return 0;
}

/* --once: one run of the agent, nothing copied. */
static int once(const struct opts *o)
{
	struct agent *a = agent_new(&o->agent);
	sigset_t set;
	int ret;

	if (!a)
		return 1;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	ret = agent_pass(a, &set);
	agent_free(a);
	return ret;
}

static int parse_seconds(const char *s, long min, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	return errno || *end || end == s || *out < min || *out > 86400 ? -EINVAL : 0;
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
		{ "reconcile-interval", required_argument, NULL, 'i' },
		{ "metrics-file", required_argument, NULL, 'm' },
		{ "ippool-conf", required_argument, NULL, 'p' },
		{ "reconcile-grace", required_argument, NULL, 'g' },
		{ "once", no_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *env = getenv("SRIOV_RDMA_RECONCILE_INTERVAL");
	long grace;
	int c;

	*o = (struct opts){ .from = "/opt/cni/bin", .to = "/host/opt/cni/bin", .dev = "/dev",
			    .resync = 60 };
	if (env && *env && parse_seconds(env, 0, &o->agent.interval))
		return -EINVAL;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'f': o->from = optarg; break;
		case 't': o->to = optarg; break;
		case 'c': o->conf_from = optarg; break;
		case 'C': o->conf_to = optarg; break;
		case 'd': o->dev = optarg; break;
		case 's': o->sleep = true; break;
		case 'r':
			if (parse_seconds(optarg, 1, &o->resync))
				return -EINVAL;
			break;
		case 'i':
			if (parse_seconds(optarg, 0, &o->agent.interval))
				return -EINVAL;
			break;
		case 'm':
			if (optarg[0] != '/' || optarg[strlen(optarg) - 1] == '/')
				return -EINVAL;
			o->agent.metrics_file = optarg;
			break;
		case 'p':
			if (o->agent.n_ippool_confs == AGENT_MAX_CONFS)
				return -EINVAL;
			o->agent.ippool_confs[o->agent.n_ippool_confs++] = optarg;
			break;
		case 'g':
			if (parse_seconds(optarg, 0, &grace))
				return -EINVAL;
			o->agent.grace = optarg;
			break;
		case 'o': o->once = true; break;
		case 'h': fputs(usage, stdout); exit(0);
		default: return -EINVAL;
		}
	}
	if (optind != argc || !o->conf_from != !o->conf_to || (o->once && o->sleep))
		return -EINVAL;
	o->agent.bin_dir = o->to;
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
	if (o.once)
		return once(&o);
	if (sync_all(&o, false))
		return 1;
	ready_read(sysfs_root(), o.dev, &r);
	ready_print(stdout, &r, o.dev);
	fflush(stdout);
	if (o.sleep || o.agent.interval)
		return serve(&o);
	return 0;
}
