// SPDX-License-Identifier: Apache-2.0
/* Unit tests for totals.c: records folded by label and into buckets, the series cap, the JSON form both ways. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "totals.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct totals *t;

static void setup(void)
{
	t = calloc(1, sizeof(*t));
	ck_assert_ptr_nonnull(t);
}

static void teardown(void)
{
	free(t);
}

static void fold(int plugin, int verb, int code, const char *network, uint32_t us)
{
	struct callrec r = { .plugin = (uint8_t)plugin, .verb = (uint8_t)verb, .code = (uint16_t)code,
			     .duration_us = us };

	snprintf(r.network, sizeof(r.network), "%s", network);
	totals_fold(t, &r);
}

/* A bucket holds what is at most its bound: 1000 us is in le=0.001. */
static const struct {
	uint32_t us;
	int bucket;
} buckets[] = {
	{ 0, 0 }, { 1000, 0 }, { 1001, 1 }, { 2500, 1 }, { 9999, 3 }, { 1000000, 9 },
	{ 10000000, 12 }, { 10000001, 13 }, { UINT32_MAX, 13 },
};

START_TEST(test_buckets)
{
	fold(CALLREC_SRIOV_RDMA, CNI_CMD_ADD, 0, "n", buckets[_i].us);
	for (int b = 0; b <= TOTALS_BOUNDS; b++)
		ck_assert_uint_eq(t->hist[TOTALS_SRIOV_RDMA][CNI_CMD_ADD].bucket[b], b == buckets[_i].bucket);
	ck_assert_uint_eq(t->hist[TOTALS_SRIOV_RDMA][CNI_CMD_ADD].sum_us, buckets[_i].us);
}
END_TEST

START_TEST(test_labels)
{
	fold(CALLREC_SRIOV_RDMA, CNI_CMD_ADD, 0, "a", 10);
	fold(CALLREC_SRIOV_RDMA, CNI_CMD_ADD, 0, "a", 10);
	fold(CALLREC_IPPOOL, CNI_CMD_ADD, 0, "a", 10);
	fold(CALLREC_SRIOV_RDMA, CNI_CMD_ADD, 11, "a", 10);
	fold(CALLREC_SRIOV_RDMA, 200, 0, "a", 10);		/* a verb past the known: unknown */
	fold(9, CNI_CMD_ADD, 0, "a", 10);			/* no such plugin: damaged */
	ck_assert_int_eq(t->n_calls, 4);
	ck_assert_uint_eq(t->calls[0].count, 2);
	ck_assert_int_eq(t->calls[3].verb, CNI_CMD_COUNT);
	ck_assert_uint_eq(t->damaged, 1);
	ck_assert_uint_eq(t->hist[TOTALS_IPPOOL][CNI_CMD_ADD].count, 1);
}
END_TEST

/* Networks past the cap share "_other"; past the other slots, overflow. */
START_TEST(test_cap)
{
	char name[16];

	for (int i = 0; i < TOTALS_MAX_CALLS - TOTALS_OTHER_SLOTS; i++) {
		snprintf(name, sizeof(name), "net-%d", i);
		fold(CALLREC_SRIOV_RDMA, CNI_CMD_ADD, 0, name, 10);
	}
	fold(CALLREC_SRIOV_RDMA, CNI_CMD_ADD, 0, "one-more", 10);
	fold(CALLREC_SRIOV_RDMA, CNI_CMD_ADD, 0, "and-another", 10);
	ck_assert_str_eq(t->calls[t->n_calls - 1].network, TOTALS_OTHER);
	ck_assert_uint_eq(t->calls[t->n_calls - 1].count, 2);
	for (int code = 1; code <= TOTALS_OTHER_SLOTS; code++)
		fold(CALLREC_SRIOV_RDMA, CNI_CMD_ADD, code, "x", 10);
	ck_assert_int_eq(t->n_calls, TOTALS_MAX_CALLS);
	ck_assert_uint_eq(t->overflow, 1);
	fold(CALLREC_SRIOV_RDMA, CNI_CMD_ADD, 0, "net-7", 10);	/* a known one still counts */
	ck_assert_uint_eq(t->calls[7].count, 2);
}
END_TEST

START_TEST(test_roundtrip)
{
	struct totals *back = calloc(1, sizeof(*back));
	char *text, *again;

	fold(CALLREC_SRIOV_RDMA, CNI_CMD_ADD, 0, "rail-0", 1234);
	fold(CALLREC_IPPOOL, CNI_CMD_DEL, 11, "rail-\"1", 5);
	t->runs = 3;
	t->undone = 2;
	t->dropped_full = 7;
	t->files[0] = (struct totals_pos){ UINT64_MAX, 256 };
	t->n_files = 1;
	t->dropped = (struct totals_pos){ 42, 7 };
	text = totals_encode(t);
	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(totals_decode(text, back), 0);
	again = totals_encode(back);
	ck_assert_str_eq(again, text);
	ck_assert_uint_eq(back->files[0].ino, UINT64_MAX);
	ck_assert_uint_eq(totals_offset(back, UINT64_MAX), 256);
	ck_assert_uint_eq(totals_offset(back, 5), 0);
	free(text);
	free(again);
	free(back);
}
END_TEST

static const char *const damaged[] = {
	"",
	"{}",
	"{'version':2}",
	"{'version':1,'runs':1,'undone':0,'freed':0,'sriovRdmaErrors':0,'ippoolErrors':0,"
	"'droppedFull':0,'damaged':0,'overflow':0,'calls':[[3,0,0,1,'n']],'hist':[],'files':[],'dropped':['0',0]}",
	"{'version':1,'runs':-1,'undone':0,'freed':0,'sriovRdmaErrors':0,'ippoolErrors':0,"
	"'droppedFull':0,'damaged':0,'overflow':0,'calls':[],'hist':[],'files':[],'dropped':['0',0]}",
	"{'version':1,'runs':1,'undone':0,'freed':0,'sriovRdmaErrors':0,'ippoolErrors':0,"
	"'droppedFull':0,'damaged':0,'overflow':0,'calls':[],'hist':[[0,0,1,1,[1]]],'files':[],'dropped':['0',0]}",
	"{'version':1,'runs':1,'undone':0,'freed':0,'sriovRdmaErrors':0,'ippoolErrors':0,"
	"'droppedFull':0,'damaged':0,'overflow':0,'calls':[],'hist':[],'files':[['-1',0]],'dropped':['0',0]}",
	"{'version':1,'runs':1,'undone':0,'freed':0,'sriovRdmaErrors':0,'ippoolErrors':0,"
	"'droppedFull':0,'damaged':0,'overflow':0,'calls':[],'hist':[],'files':[],'dropped':[0,0]}",
};

START_TEST(test_damaged)
{
	char *text = unit_dq(damaged[_i]);

	t->runs = 9;
	ck_assert_int_eq(totals_decode(text, t), -EBADMSG);
	ck_assert_uint_eq(t->runs, 0);
	free(text);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_buckets, 0, N(buckets));
	tcase_add_test(tc, test_labels);
	tcase_add_test(tc, test_cap);
	tcase_add_test(tc, test_roundtrip);
	tcase_add_loop_test(tc, test_damaged, 0, N(damaged));
}

int main(void)
{
	return unit_run("totals", add_tests);
}
