// SPDX-License-Identifier: Apache-2.0
/* Unit tests for the doctor's gid.c: the kernel's GID table text and the GID
 * of an address. */
#include <errno.h>
#include <string.h>
#include "gid.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *text;
	int ret;
	uint8_t gid[16];
} gids[] = {
	{ "fe80:0000:0000:0000:0202:c9ff:fe00:0001\n", 0,
	  { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x02, 0xc9, 0xff, 0xfe, 0, 0, 0x01 } },
	{ "0000:0000:0000:0000:0000:ffff:c000:0205", 0,
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 5 } },
	{ "0000:0000:0000:0000:0000:0000:0000:0000\n", 0, { 0 } },
	{ "FE80:0000:0000:0000:0202:C9FF:FE00:0001", 0,
	  { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x02, 0xc9, 0xff, 0xfe, 0, 0, 0x01 } },
	{ "fe80::1", -EINVAL, { 0 } },
	{ "", -EINVAL, { 0 } },
	{ "fe80:0000:0000:0000:0202:c9ff:fe00:0001\n\n", -EINVAL, { 0 } },
	{ "fe80:0000:0000:0000:0202:c9ff:fe00:000g", -EINVAL, { 0 } },
	{ "fe80-0000:0000:0000:0202:c9ff:fe00:0001", -EINVAL, { 0 } },
	{ "fe80:0000:0000:0000:0202:c9ff:fe00:00011", -EINVAL, { 0 } },
};

START_TEST(test_parse)
{
	uint8_t gid[16];

	ck_assert_int_eq(gid_parse(gids[_i].text, gid), gids[_i].ret);
	if (!gids[_i].ret)
		ck_assert_mem_eq(gid, gids[_i].gid, 16);
}
END_TEST

static const struct {
	const char *text;
	int ret;
	enum gid_type type;
} types[] = {
	{ "RoCE v2\n", 0, GID_ROCE_V2 },
	{ "RoCE v2", 0, GID_ROCE_V2 },
	{ "IB/RoCE v1\n", 0, GID_ROCE_V1 },
	{ "RoCE v1", -EINVAL, GID_NONE },
	{ "RoCE v2x", -EINVAL, GID_NONE },
	{ "RoCE v", -EINVAL, GID_NONE },
	{ "", -EINVAL, GID_NONE },
	{ "RoCE v2\nx", -EINVAL, GID_NONE },
};

START_TEST(test_type)
{
	enum gid_type t = GID_NONE;

	ck_assert_int_eq(gid_type_parse(types[_i].text, &t), types[_i].ret);
	ck_assert_int_eq(t, types[_i].type);
}
END_TEST

START_TEST(test_from_addr_and_find)
{
	struct gid_entry table[3] = {
		{ .index = 0, .type = GID_ROCE_V1, .ndev = "net1" },
		{ .index = 1, .type = GID_ROCE_V2, .ndev = "net1" },
		{ .index = 3, .type = GID_ROCE_V2, .ndev = "net1" },
	};
	struct ipaddr v4, v6;
	uint8_t g4[16], g6[16];

	ck_assert_int_eq(ipaddr_parse("192.0.2.5", &v4), 0);
	ck_assert_int_eq(ipaddr_parse("2001:db8::5", &v6), 0);
	gid_from_addr(&v4, g4);
	gid_from_addr(&v6, g6);
	ck_assert_int_eq(gid_parse("0000:0000:0000:0000:0000:ffff:c000:0205", table[0].gid), 0);
	memcpy(table[1].gid, g6, 16);
	memcpy(table[2].gid, g4, 16);
	ck_assert_mem_eq(table[0].gid, g4, 16);
	ck_assert_ptr_eq(gid_find(table, 3, g4, GID_ROCE_V2, "net1"), &table[2]);
	ck_assert_ptr_eq(gid_find(table, 3, g4, GID_ROCE_V1, "net1"), &table[0]);
	ck_assert_ptr_null(gid_find(table, 3, g4, GID_ROCE_V2, "net2"));
	ck_assert_ptr_eq(gid_find(table, 3, g6, GID_ROCE_V2, "net1"), &table[1]);
	ck_assert(gid_is_zero((uint8_t[16]){ 0 }));
	ck_assert(!gid_is_zero(g4));
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_parse, 0, N(gids));
	tcase_add_loop_test(tc, test_type, 0, N(types));
	tcase_add_test(tc, test_from_addr_and_find);
}

int main(void)
{
	return unit_run("gid", add_tests);
}
