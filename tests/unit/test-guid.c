// SPDX-License-Identifier: Apache-2.0
/* Unit tests for guid.c: the text forms ib-sriov-cni, iproute2 and sysfs
 * use, and the port GUID in an IPoIB hardware address. */
#include <errno.h>
#include <string.h>
#include "guid.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *in;
	int ret;
	uint64_t guid;
} parse_cases[] = {
	{ "00:02:c9:03:00:21:6e:70", 0, 0x0002c90300216e70ULL },
	{ "AB:CD:EF:01:23:45:67:89", 0, 0xabcdef0123456789ULL },
	{ "aB:cD:eF:01:23:45:67:89", 0, 0xabcdef0123456789ULL },
	{ "00:00:00:00:00:00:00:00", 0, 0 },
	{ "ff:ff:ff:ff:ff:ff:ff:ff", 0, UINT64_MAX },
	{ "", -EINVAL, 0 },
	{ "00:02:c9:03:00:21:6e", -EINVAL, 0 },
	{ "00:02:c9:03:00:21:6e:7", -EINVAL, 0 },
	{ "00:02:c9:03:00:21:6e:70:", -EINVAL, 0 },
	{ "00:02:c9:03:00:21:6e:70:11", -EINVAL, 0 },
	{ "00-02-c9-03-00-21-6e-70", -EINVAL, 0 },
	{ "0002:c903:0021:6e70", -EINVAL, 0 },
	{ "0x02c90300216e70", -EINVAL, 0 },
	{ "00:02:c9:03:00:21:6e:7g", -EINVAL, 0 },
	{ " 0:02:c9:03:00:21:6e:70", -EINVAL, 0 },
	{ "00:02:c9:03:00:21:6e:70 ", -EINVAL, 0 },
	{ "00:02:c9:03:00:21:6e:7\n", -EINVAL, 0 },
	{ "02:00:00:00:00:01", -EINVAL, 0 },
};

START_TEST(test_parse)
{
	uint64_t guid = 42;

	ck_assert_int_eq(guid_parse(parse_cases[_i].in, &guid), parse_cases[_i].ret);
	ck_assert_uint_eq(guid, parse_cases[_i].ret ? 42 : parse_cases[_i].guid);
}
END_TEST

/* net.ParseMAC's 8-byte spellings, normalised to the canonical text
 * (canon NULL: refused, as ParseMAC or a GUID's 8 bytes refuse it). */
static const struct {
	const char *in;
	const char *canon;
} any_cases[] = {
	{ "00:02:c9:03:00:21:6e:70", "00:02:c9:03:00:21:6e:70" },
	{ "AB:CD:EF:01:23:45:67:89", "ab:cd:ef:01:23:45:67:89" },
	{ "00-02-c9-03-00-21-6e-70", "00:02:c9:03:00:21:6e:70" },
	{ "AB-cd-EF-01-23-45-67-89", "ab:cd:ef:01:23:45:67:89" },
	{ "0002.c903.0021.6e70", "00:02:c9:03:00:21:6e:70" },
	{ "ABCD.ef01.2345.6789", "ab:cd:ef:01:23:45:67:89" },
	{ "0000.0000.0000.0000", "00:00:00:00:00:00:00:00" },
	{ "ff-ff-ff-ff-ff-ff-ff-ff", "ff:ff:ff:ff:ff:ff:ff:ff" },
	/* mixed separators */
	{ "00:02-c9:03:00:21:6e:70", NULL },
	{ "00-02-c9-03-00-21-6e:70", NULL },
	{ "00:02:c9:03:00:21:6e-70", NULL },
	{ "0002.c903:0021.6e70", NULL },
	{ "0002.c903.0021-6e70", NULL },
	/* the right separator with groups of another size */
	{ "0002:c903:0021:6e70", NULL },
	{ "0002-c903-0021-6e70", NULL },
	{ "00.02.c9.03.00.21.6e.70", NULL },
	{ "000:2c9:03:00:21:6e:70", NULL },
	{ "0:002:c9:03:00:21:6e:70", NULL },
	{ "002.c9030.0021.6e70", NULL },
	{ "0002.c9030.021.6e70", NULL },
	{ "00:02:c9:03:00:21:6e:7", NULL },
	{ "0002.c903.0021.6e7", NULL },
	{ "00:02:c9:03:00:21:6e:700", NULL },
	{ "0002.c903.0021.6e700", NULL },
	/* empty groups */
	{ "00:02:c9:03::00:21:6e:7", NULL },
	{ "0002..c903.0021.6e7", NULL },
	{ ":::::::::::::::::::::::", NULL },
	{ "...................", NULL },
	{ "", NULL },
	/* ParseMAC's 6- and 20-byte forms: not a GUID */
	{ "02:00:5e:10:00:01", NULL },
	{ "02-00-5e-10-00-01", NULL },
	{ "0200.5e10.0001", NULL },
	{ "00:00:00:00:fe:80:00:00:00:00:00:00:02:00:5e:10:00:00:00:01", NULL },
	{ "00-00-00-00-fe-80-00-00-00-00-00-00-02-00-5e-10-00-00-00-01", NULL },
	{ "0000.0000.fe80.0000.0000.0000.0200.5e10.0000.0001", NULL },
	/* garbage before, inside or after */
	{ "00:02:c9:03:00:21:6e:70:", NULL },
	{ "00:02:c9:03:00:21:6e:70 ", NULL },
	{ "00-02-c9-03-00-21-6e-70\n", NULL },
	{ "0002.c903.0021.6e70.", NULL },
	{ "0002.c903.0021.6e70x", NULL },
	{ " 0002.c903.0021.6e70", NULL },
	{ "0002.c903.0021.6e7g", NULL },
	{ "00-02-c9-03-00-21-6e-7g", NULL },
	{ "0x02.c903.0021.6e70", NULL },
	{ "+0-02-c9-03-00-21-6e-70", NULL },
	{ "0002 c903 0021 6e70", NULL },
	{ "0x0002c90300216e70", NULL },
	{ "0002c90300216e70", NULL },
};

START_TEST(test_parse_any)
{
	char text[GUID_STR_LEN + 1];
	uint64_t guid = 42;
	int ret = guid_parse_any(any_cases[_i].in, &guid);

	if (!any_cases[_i].canon) {
		ck_assert_int_eq(ret, -EINVAL);
		ck_assert_uint_eq(guid, 42);
		return;
	}
	ck_assert_int_eq(ret, 0);
	guid_format(guid, text);
	ck_assert_str_eq(text, any_cases[_i].canon);
}
END_TEST

static const struct {
	uint64_t guid;
	const char *text;
} format_cases[] = {
	{ 0x0002c90300216e70ULL, "00:02:c9:03:00:21:6e:70" },
	{ 0xabcdef0123456789ULL, "ab:cd:ef:01:23:45:67:89" },
	{ 0, "00:00:00:00:00:00:00:00" },
	{ UINT64_MAX, "ff:ff:ff:ff:ff:ff:ff:ff" },
};

/* Printing is lower case, and what is printed parses back to the same GUID. */
START_TEST(test_format)
{
	char text[GUID_STR_LEN + 1];
	uint64_t back;

	guid_format(format_cases[_i].guid, text);
	ck_assert_str_eq(text, format_cases[_i].text);
	ck_assert_int_eq(guid_parse(text, &back), 0);
	ck_assert_uint_eq(back, format_cases[_i].guid);
	back = 42;
	ck_assert_int_eq(guid_parse_any(text, &back), 0);
	ck_assert_uint_eq(back, format_cases[_i].guid);
}
END_TEST

static const struct {
	const char *in;
	int ret;
	uint64_t guid;
} sysfs_cases[] = {
	{ "0002:c903:0021:6e70", 0, 0x0002c90300216e70ULL },
	{ "0002:c903:0021:6e70\n", 0, 0x0002c90300216e70ULL },
	{ "ffff:ffff:ffff:ffff\n", 0, UINT64_MAX },
	{ "0002:c903:0021:6e70\n\n", -EINVAL, 0 },
	{ "0002:c903:0021:6e7", -EINVAL, 0 },
	{ "0002:c903:0021:6e700", -EINVAL, 0 },
	{ "0002-c903-0021-6e70", -EINVAL, 0 },
	{ "00:02:c9:03:00:21:6e:70", -EINVAL, 0 },
	{ "", -EINVAL, 0 },
};

START_TEST(test_parse_sysfs)
{
	uint64_t guid = 42;

	ck_assert_int_eq(guid_parse_sysfs(sysfs_cases[_i].in, &guid), sysfs_cases[_i].ret);
	ck_assert_uint_eq(guid, sysfs_cases[_i].ret ? 42 : sysfs_cases[_i].guid);
}
END_TEST

START_TEST(test_assigned)
{
	ck_assert(!guid_assigned(0));
	ck_assert(!guid_assigned(UINT64_MAX));
	ck_assert(guid_assigned(1));
	ck_assert(guid_assigned(0x0002c90300216e70ULL));
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_parse, 0, N(parse_cases));
	tcase_add_loop_test(tc, test_parse_any, 0, N(any_cases));
	tcase_add_loop_test(tc, test_format, 0, N(format_cases));
	tcase_add_loop_test(tc, test_parse_sysfs, 0, N(sysfs_cases));
	tcase_add_test(tc, test_assigned);
}

int main(void)
{
	return unit_run("guid", add_tests);
}
