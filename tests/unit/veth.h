/* SPDX-License-Identifier: Apache-2.0 */
/* The root fixture of the rtnetlink unit tests: a fresh "host" netns with a veth pair vA/vB, and a fresh netns for a pod. */
#pragma once

#include <check.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "link.h"
#include "netns.h"

/* Each case runs in its own forked child (Check's fork mode), so the netns
 * it makes go with it. */
static int veth_host_ns = -1, veth_pod_ns = -1;

static inline void veth_sh(const char *cmd)
{
	ck_assert_msg(system(cmd) == 0, "failed: %s", cmd);
}

static inline void veth_setup(void)
{
	ck_assert_int_eq(unshare(CLONE_NEWNET), 0);
	veth_host_ns = netns_current();
	ck_assert_int_eq(unshare(CLONE_NEWNET), 0);
	veth_pod_ns = netns_current();
	ck_assert_int_ge(veth_pod_ns, 0);
	ck_assert_int_eq(netns_enter(veth_host_ns), 0);
	veth_sh("ip link add vA type veth peer name vB");
}

static inline void veth_teardown(void)
{
	netns_close(veth_pod_ns);
	netns_close(veth_host_ns);
}

/* An rtnetlink socket in ns (-1: the host netns of the case). */
static inline struct link_sock *veth_sock(int ns)
{
	struct cni_err err = { 0 };
	struct link_sock *s;

	ck_assert_msg(link_sock_open(ns, &s, &err) == 0, "%s", err.msg);
	return s;
}

static inline int veth_ifindex(struct link_sock *s, const char *name)
{
	struct link_info info;

	ck_assert_int_eq(link_get_by_name(s, name, &info), 0);
	return info.ifindex;
}

/* Runs module's cases: add_tests's without root (NULL: none), add_root_tests's
 * with root, each in the veth fixture. Exit status 0 when every test
 * passed, 77 (SKIP) when nothing could run. */
static inline int veth_run(const char *module, void (*add_tests)(TCase *tc),
			   void (*add_root_tests)(TCase *tc))
{
	Suite *s;
	TCase *tc;
	SRunner *sr;
	int failed;

	if (!add_tests && geteuid() != 0) {
		printf("note: not root, netns %s cases not registered\n", module);
		return 77;
	}
	s = suite_create(module);
	if (add_tests) {
		tc = tcase_create("encode");
		add_tests(tc);
		suite_add_tcase(s, tc);
	}
	if (geteuid() == 0) {
		tc = tcase_create("netns");
		tcase_add_checked_fixture(tc, veth_setup, veth_teardown);
		add_root_tests(tc);
		suite_add_tcase(s, tc);
	} else {
		printf("note: not root, netns %s cases not registered\n", module);
	}
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
