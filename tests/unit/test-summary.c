// SPDX-License-Identifier: Apache-2.0
/* Unit tests for summary.c: both reconciles' --json summaries (docs/internals.md (Contracts)) and `ippool list --json`. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "summary.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

START_TEST(test_sriov_rdma)
{
	char *text = unit_dq("{'dryRun':false,'grace':60,'undone':1,'failed':1,'attachments':["
			     "{'containerID':'c1','ifname':'net1','network':'rail-0','deviceID':'0000:3b:00.2',"
			     "'netns':'/var/run/netns/x','ageSeconds':120,'verdict':'gone','action':'undone'},"
			     "{'containerID':'c2','ifname':'net1','network':'rail-1','deviceID':'0000:3b:00.3',"
			     "'netns':'/var/run/netns/y','ageSeconds':90,'verdict':'gone','action':'failed',"
			     "'error':'failed to rename'}]}");
	struct summary s;

	ck_assert_int_eq(summary_reconcile(text, SUMMARY_SRIOV_RDMA, &s), 0);
	ck_assert(!s.dry_run);
	ck_assert_int_eq(s.done, 1);
	ck_assert_int_eq(s.failed, 1);
	ck_assert_int_eq(s.n_items, 2);
	ck_assert_str_eq(s.items[0].what, "0000:3b:00.2");
	ck_assert_str_eq(s.items[1].action, "failed");
	ck_assert_str_eq(s.items[1].error, "failed to rename");
	summary_release(&s);
	free(text);
}
END_TEST

START_TEST(test_ippool)
{
	char *text = unit_dq("{'dryRun':true,'grace':60,'freed':0,'failed':0,'slicesReturned':0,'leases':["
			     "{'containerID':'c1','ifname':'net1','network':'n','addresses':['192.0.2.1/24',"
			     "'2001:db8::1/64'],'netns':'/proc/1/ns/net','ageSeconds':61,'verdict':'gone',"
			     "'action':'would-free'}]}");
	struct summary s;

	ck_assert_int_eq(summary_reconcile(text, SUMMARY_IPPOOL, &s), 0);
	ck_assert(s.dry_run);
	ck_assert_str_eq(s.items[0].what, "192.0.2.1/24, 2001:db8::1/64");
	summary_release(&s);
	free(text);
}
END_TEST

static const struct {
	int kind;
	const char *text;
} refused[] = {
	{ SUMMARY_SRIOV_RDMA, "" },
	{ SUMMARY_SRIOV_RDMA, "{'dryRun':false,'freed':0,'failed':0,'leases':[]}" },	/* ippool's */
	{ SUMMARY_IPPOOL, "{'dryRun':false,'undone':0,'failed':0,'attachments':[]}" },
	{ SUMMARY_SRIOV_RDMA, "{'dryRun':false,'undone':-1,'failed':0,'attachments':[]}" },
	{ SUMMARY_SRIOV_RDMA, "{'dryRun':false,'undone':1.5,'failed':0,'attachments':[]}" },
	{ SUMMARY_SRIOV_RDMA, "{'dryRun':0,'undone':0,'failed':0,'attachments':[]}" },
	{ SUMMARY_SRIOV_RDMA, "{'dryRun':false,'undone':0,'failed':0,'attachments':[3]}" },
	{ SUMMARY_SRIOV_RDMA, "{'dryRun':false,'undone':0,'failed':0,'attachments':[{'ifname':7}]}" },
	{ SUMMARY_IPPOOL, "{'dryRun':false,'freed':0,'failed':0,'leases':[{'addresses':[1]}]}" },
};

START_TEST(test_refused)
{
	char *text = unit_dq(refused[_i].text);
	struct summary s;

	ck_assert_int_eq(summary_reconcile(text, (enum summary_kind)refused[_i].kind, &s), -EBADMSG);
	ck_assert_ptr_null(s.items);
	free(text);
}
END_TEST

START_TEST(test_pools)
{
	char *text = unit_dq("{'pools':[{'network':'','pool':'192.0.2.0/28','usable':14,'used':1,"
			     "'free':13,'slices':0},{'network':'n','pool':'2001:db8::/64','usable':1.8e19,"
			     "'used':2,'free':1.8e19,'slices':3}]}");
	struct metrics_pool *p;
	int n;

	ck_assert_int_eq(summary_pools(text, &p, &n), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_str_eq(p[0].pool, "192.0.2.0/28");
	ck_assert(p[0].used == 1 && p[0].free == 13 && p[1].slices == 3);
	free(p);
	free(text);
	text = unit_dq("{'pools':[{'pool':'x','used':-1,'free':0,'slices':0}]}");
	ck_assert_int_eq(summary_pools(text, &p, &n), -EBADMSG);
	ck_assert_ptr_null(p);
	free(text);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_test(tc, test_sriov_rdma);
	tcase_add_test(tc, test_ippool);
	tcase_add_loop_test(tc, test_refused, 0, N(refused));
	tcase_add_test(tc, test_pools);
}

int main(void)
{
	return unit_run("summary", add_tests);
}
