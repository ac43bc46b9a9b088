// SPDX-License-Identifier: Apache-2.0
/* Unit tests for cniargs.c: libcni's pair syntax, IgnoreUnknown, value limits. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cniargs.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *in;
	int code;
	const char *msg;		/* substring, when code != 0 */
	const char *pod_name, *ns, *mac, *ip;
} cases[] = {
	{ NULL, 0, NULL, "", "", "", "" },
	{ "", 0, NULL, "", "", "", "" },
	{ "K8S_POD_NAME=p1;K8S_POD_NAMESPACE=ns1", 0, NULL, "p1", "ns1", "", "" },
	{ "IgnoreUnknown=1;K8S_POD_NAME=p;FOO=bar", 0, NULL, "p", "", "", "" },
	{ "FOO=bar;IgnoreUnknown=true;MAC=02:00:00:00:00:01", 0, NULL, "", "", "02:00:00:00:00:01", "" },
	{ "IgnoreUnknown=TRUE;FOO=bar", 0, NULL, "", "", "", "" },
	{ "IP=192.0.2.5,2001:db8::5", 0, NULL, "", "", "", "192.0.2.5,2001:db8::5" },
	{ "K8S_POD_NAME=", 0, NULL, "", "", "", "" },
	{ "K8S_POD_UID=u;K8S_POD_INFRA_CONTAINER_ID=c", 0, NULL, "", "", "", "" },
	{ "FOO=bar", CNI_ERR_UNSUPPORTED, "unknown CNI_ARGS key \"FOO\"", NULL, NULL, NULL, NULL },
	{ "IgnoreUnknown=0;FOO=bar", CNI_ERR_UNSUPPORTED, "\"FOO\"", NULL, NULL, NULL, NULL },
	{ "IgnoreUnknown=false;FOO=bar", CNI_ERR_UNSUPPORTED, "\"FOO\"", NULL, NULL, NULL, NULL },
	{ "k8s_pod_name=x", CNI_ERR_UNSUPPORTED, "\"k8s_pod_name\"", NULL, NULL, NULL, NULL },
	{ "IgnoreUnknown=yes", CNI_ERR_DECODE, "IgnoreUnknown \"yes\"", NULL, NULL, NULL, NULL },
	{ "a", CNI_ERR_DECODE, "invalid CNI_ARGS pair \"a\"", NULL, NULL, NULL, NULL },
	{ "=b", CNI_ERR_DECODE, "invalid CNI_ARGS pair \"=b\"", NULL, NULL, NULL, NULL },
	{ "a=b=c", CNI_ERR_DECODE, "invalid CNI_ARGS pair \"a=b=c\"", NULL, NULL, NULL, NULL },
	{ "K8S_POD_NAME=p;", CNI_ERR_DECODE, "invalid CNI_ARGS pair \"\"", NULL, NULL, NULL, NULL },
	{ ";K8S_POD_NAME=p", CNI_ERR_DECODE, "invalid CNI_ARGS pair \"\"", NULL, NULL, NULL, NULL },
	{ "IgnoreUnknown=1;x", CNI_ERR_DECODE, "invalid CNI_ARGS pair \"x\"", NULL, NULL, NULL, NULL },
};

START_TEST(test_parse)
{
	struct cni_args args;
	struct cni_err err = { 0 };
	int ret = cniargs_parse(cases[_i].in, &args, &err);

	ck_assert_int_eq(err.code, cases[_i].code);
	if (cases[_i].code) {
		ck_assert_int_eq(ret, -EINVAL);
		ck_assert_msg(strstr(err.msg, cases[_i].msg), "message \"%s\" lacks \"%s\"",
			      err.msg, cases[_i].msg);
		return;
	}
	ck_assert_int_eq(ret, 0);
	ck_assert_str_eq(args.pod_name, cases[_i].pod_name);
	ck_assert_str_eq(args.pod_namespace, cases[_i].ns);
	ck_assert_str_eq(args.mac, cases[_i].mac);
	ck_assert_str_eq(args.ip, cases[_i].ip);
}
END_TEST

START_TEST(test_all_keys)
{
	struct cni_args args;
	struct cni_err err = { 0 };

	ck_assert_int_eq(cniargs_parse("K8S_POD_UID=u1;K8S_POD_INFRA_CONTAINER_ID=c1", &args, &err), 0);
	ck_assert_str_eq(args.pod_uid, "u1");
	ck_assert_str_eq(args.infra_id, "c1");
}
END_TEST

static const int lengths[] = { CNIARGS_VAL_MAX - 1, CNIARGS_VAL_MAX, 10 * CNIARGS_VAL_MAX };

START_TEST(test_value_length)
{
	char in[16 + 10 * CNIARGS_VAL_MAX];
	struct cni_args args;
	struct cni_err err = { 0 };
	int ret;

	strcpy(in, "K8S_POD_NAME=");
	memset(in + 13, 'v', (size_t)lengths[_i]);
	in[13 + lengths[_i]] = '\0';
	ret = cniargs_parse(in, &args, &err);
	if (lengths[_i] < CNIARGS_VAL_MAX) {
		ck_assert_int_eq(ret, 0);
		ck_assert_uint_eq(strlen(args.pod_name), (size_t)lengths[_i]);
		return;
	}
	ck_assert_int_eq(ret, -EINVAL);
	ck_assert_int_eq(err.code, CNI_ERR_DECODE);
	ck_assert_ptr_nonnull(strstr(err.msg, "K8S_POD_NAME is too long"));
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_parse, 0, N(cases));
	tcase_add_test(tc, test_all_keys);
	tcase_add_loop_test(tc, test_value_length, 0, N(lengths));
}

int main(void)
{
	return unit_run("cniargs", add_tests);
}
