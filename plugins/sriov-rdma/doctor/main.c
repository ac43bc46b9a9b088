// SPDX-License-Identifier: Apache-2.0
/* sriov-rdma-doctor: why RDMA does not work on this node or in this pod,
 * one line per check with the fix. Read-only. Exit 0, 1 (a check failed), 2 (usage). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "doctor.h"

#define USAGE \
	"usage: sriov-rdma-doctor node [--json] [--conf-dir DIR] [--cni-bin-dir DIR] [--data-dir DIR]...\n" \
	"       sriov-rdma-doctor pod (--netns PATH | --pid PID) [--ifname NAME] [--json]\n"

static const struct command {
	const char *name;
	int (*run)(const struct doctor_opts *o, struct report *r);
	bool pod;
} commands[] = {
	{ "node", node_run, false },
	{ "pod", pod_run, true },
};

static int usage(const char *why)
{
	if (why)
		fprintf(stderr, "sriov-rdma-doctor: %s\n", why);
	fputs(USAGE, stderr);
	return 2;
}

static int parse_pid(const char *s, pid_t *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > 4194304)
		return -EINVAL;
	*pid = (pid_t)v;
	return 0;
}

/* Options, then which of them fit the command. Returns 0, or 2 after usage. */
static int parse(int argc, char **argv, const struct command *c, struct doctor_opts *o)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "conf-dir", required_argument, NULL, 'c' },
		{ "cni-bin-dir", required_argument, NULL, 'b' },
		{ "data-dir", required_argument, NULL, 'd' },
		{ "netns", required_argument, NULL, 'n' },
		{ "pid", required_argument, NULL, 'p' },
		{ "ifname", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt == 'j')
			o->json = true;
		else if (opt == 'c' && !c->pod)
			o->conf_dir = optarg;
		else if (opt == 'b' && !c->pod)
			o->cni_bin_dir = optarg;
		else if (opt == 'd' && !c->pod && o->n_data_dirs < DOCTOR_MAX_DIRS)
			o->data_dirs[o->n_data_dirs++] = optarg;
		else if (opt == 'n' && c->pod)
			o->netns = optarg;
		else if (opt == 'p' && c->pod && parse_pid(optarg, &o->pid) == 0)
			continue;
		else if (opt == 'i' && c->pod)
			o->ifname = optarg;
		else
			return usage(opt == 'p' ? "--pid needs a process id" : "option not for this command");
	}
	if (optind < argc)
		return usage("unexpected argument");
	if (c->pod && !o->netns == !o->pid)
		return usage("pod needs one of --netns and --pid");
	return 0;
}

int main(int argc, char **argv)
{
	struct doctor_opts o = { .conf_dir = "/etc/cni/net.d", .cni_bin_dir = CNI_BIN_DIR };
	const struct command *c = NULL;
	struct report r = { 0 };
	int ret;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(USAGE, stdout);
		return 0;
	}
	for (size_t i = 0; argc >= 2 && i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			c = &commands[i];
	if (!c)
		return usage(argc < 2 ? "no command" : "unknown command");
	ret = parse(argc - 1, argv + 1, c, &o);
	if (ret)
		return ret;
	ret = c->run(&o, &r);
	if (ret == 0)
		ret = o.json ? report_print_json(&r, c->name, stdout) : report_print_table(&r, stdout);
	if (ret < 0) {
		fprintf(stderr, "sriov-rdma-doctor: %s\n", strerror(-ret));
		report_release(&r);
		return 1;
	}
	ret = report_exit_code(&r);
	report_release(&r);
	return ret;
}
