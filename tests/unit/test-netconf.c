// SPDX-License-Identifier: Apache-2.0
/* Unit tests for netconf.c: common keys, prevResult, valid-attachments, typed getters. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "netconf.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static cJSON *parse(const char *s)
{
	char *doc = unit_dq(s);
	cJSON *json = cJSON_Parse(doc);

	free(doc);
	ck_assert_ptr_nonnull(json);
	return json;
}

static const struct {
	const char *in;
	int code;
	const char *msg;	/* substring, with ' for " */
} parses[] = {
	{ "{'cniVersion':'1.0.0','name':'net-a','type':'sriov-rdma'}", 0, NULL },
	{ "{'cniVersion':'0.3.1','name':'a.b_c-1','type':'x','prevResult':null}", 0, NULL },
	{ "[]", CNI_ERR_DECODE, "network config is not a JSON object" },
	{ "{'name':'n','type':'t'}", CNI_ERR_VERSION, "no cniVersion" },
	{ "{'cniVersion':null,'name':'n','type':'t'}", CNI_ERR_VERSION, "no cniVersion" },
	{ "{'cniVersion':'0.2.0','name':'n','type':'t'}", CNI_ERR_VERSION, "unsupported cniVersion '0.2.0'" },
	{ "{'cniVersion':1,'name':'n','type':'t'}", CNI_ERR_DECODE, "'cniVersion' must be a string, not 1" },
	{ "{'CNIVersion':'1.0.0','Name':'n','TYPE':'t'}", 0, NULL },
	{ "{'cniVersion':'1.0.0','type':'t'}", CNI_ERR_CONFIG, "no 'name'" },
	{ "{'cniVersion':'1.0.0','name':'','type':'t'}", CNI_ERR_CONFIG, "no 'name'" },
	/* no type: accepted, as skel does (an ipam-only config driven by hand) */
	{ "{'cniVersion':'1.0.0','name':'n','ipam':{}}", 0, NULL },
	{ "{'cniVersion':'1.0.0','name':'n','type':7}", CNI_ERR_DECODE, "'type' must be a string" },
	{ "{'cniVersion':'1.0.0','name':'../x','type':'t'}", CNI_ERR_CONFIG, "invalid network name '../x'" },
	{ "{'cniVersion':'1.0.0','name':'a b','type':'t'}", CNI_ERR_CONFIG, "invalid network name 'a b'" },
	{ "{'cniVersion':'1.0.0','name':['n'],'type':'t'}", CNI_ERR_DECODE, "'name' must be a string, not an array" },
	{ "{'cniVersion':'1.0.0','name':'n','type':'t','prevResult':{'ips':[{'address':'x'}]}}",
	  CNI_ERR_DECODE, "invalid prevResult: invalid result: ips[0].address 'x'" },
	{ "{'cniVersion':'1.1.0','name':'n','type':'t','cni.dev/valid-attachments':{}}",
	  CNI_ERR_DECODE, "'cni.dev/valid-attachments' must be an array, not an object" },
	{ "{'cniVersion':'1.1.0','name':'n','type':'t','cni.dev/valid-attachments':[{'containerID':'a'}]}",
	  CNI_ERR_DECODE, "cni.dev/valid-attachments[0] must be an object" },
	{ "{'cniVersion':'1.1.0','name':'n','type':'t','cni.dev/valid-attachments':"
	  "[{'containerID':'a','ifname':'net1'},{'containerID':'../a','ifname':'net1'}]}",
	  CNI_ERR_CONFIG, "cni.dev/valid-attachments[1]: invalid containerID '../a'" },
	{ "{'cniVersion':'1.1.0','name':'n','type':'t','cni.dev/valid-attachments':"
	  "[{'containerID':'a','ifname':'a/b'}]}",
	  CNI_ERR_CONFIG, "cni.dev/valid-attachments[0]: invalid ifname 'a/b'" },
};

START_TEST(test_parse)
{
	cJSON *json = parse(parses[_i].in);
	struct cni_netconf nc;
	struct cni_err err = { 0 };
	int ret = netconf_parse(json, &nc, &err);
	char *want;

	ck_assert_int_eq(err.code, parses[_i].code);
	if (!parses[_i].code) {
		ck_assert_int_eq(ret, 0);
		ck_assert_ptr_null(nc.prev_result);
		ck_assert(!nc.has_valid);
		netconf_release(&nc);
	} else {
		want = unit_dq(parses[_i].msg);
		ck_assert_int_ne(ret, 0);
		ck_assert_msg(strstr(err.msg, want), "message \"%s\" lacks \"%s\"", err.msg, want);
		ck_assert_ptr_null(nc.valid);
		free(want);
	}
	cJSON_Delete(json);
}
END_TEST

START_TEST(test_full)
{
	cJSON *json = parse("{'cniVersion':'1.1.0','name':'rdma-net','type':'sriov-rdma',"
			    "'prevResult':{'cniVersion':'1.1.0','interfaces':[{'name':'net1'}],"
			    "'ips':[{'address':'192.0.2.5/24','interface':0}]},"
			    "'cni.dev/valid-attachments':[{'containerID':'c1','ifname':'net1'},"
			    "{'containerID':'c2','ifname':'net2'}]}");
	struct cni_netconf nc;
	struct cni_err err = { 0 };

	ck_assert_int_eq(netconf_parse(json, &nc, &err), 0);
	ck_assert_int_eq(nc.version, CNI_V110);
	ck_assert_str_eq(nc.version_str, "1.1.0");
	ck_assert_str_eq(nc.name, "rdma-net");
	ck_assert_str_eq(nc.type, "sriov-rdma");
	ck_assert_ptr_nonnull(nc.prev_result);
	ck_assert_int_eq(nc.prev_result->n_ips, 1);
	ck_assert_str_eq(nc.prev_result->ifaces[0].name, "net1");
	ck_assert(nc.has_valid);
	ck_assert_int_eq(nc.n_valid, 2);
	ck_assert_str_eq(nc.valid[1].containerid, "c2");
	ck_assert_str_eq(nc.valid[1].ifname, "net2");
	netconf_release(&nc);
	ck_assert_ptr_null(nc.valid);
	netconf_release(&nc);
	netconf_release(NULL);
	cJSON_Delete(json);
}
END_TEST

START_TEST(test_empty_attachments)
{
	cJSON *json = parse("{'cniVersion':'1.1.0','name':'n','type':'t','cni.dev/valid-attachments':[]}");
	struct cni_netconf nc;
	struct cni_err err = { 0 };

	ck_assert_int_eq(netconf_parse(json, &nc, &err), 0);
	ck_assert(nc.has_valid);
	ck_assert_int_eq(nc.n_valid, 0);
	netconf_release(&nc);
	cJSON_Delete(json);
}
END_TEST

START_TEST(test_too_many_attachments)
{
	cJSON *json = parse("{'cniVersion':'1.1.0','name':'n','type':'t'}");
	cJSON *list = cJSON_AddArrayToObject(json, "cni.dev/valid-attachments");
	struct cni_netconf nc;
	struct cni_err err = { 0 };
	int i;

	for (i = 0; i <= NETCONF_MAX_ATTACHMENTS; i++) {
		cJSON *a = cJSON_CreateObject();

		cJSON_AddStringToObject(a, "containerID", "c");
		cJSON_AddStringToObject(a, "ifname", "net1");
		cJSON_AddItemToArray(list, a);
	}
	ck_assert_int_ne(netconf_parse(json, &nc, &err), 0);
	ck_assert_int_eq(err.code, CNI_ERR_CONFIG);
	ck_assert_ptr_nonnull(strstr(err.msg, "4097 entries"));
	cJSON_Delete(json);
}
END_TEST

static const struct {
	const char *doc;
	const char *want;
	const char *name;
} sniffs[] = {
	{ "{\"cniVersion\":\"0.4.0\",\"name\":", "1.1.0", "" },	/* unparsable */
	{ "{\"cniVersion\":\"0.4.0\",\"name\":3}", "0.4.0", "" },
	{ "{\"cniVersion\":\"9.9.9\"}", "1.1.0", "" },
	{ "{\"cniVersion\":4}", "1.1.0", "" },
	{ "[\"0.3.1\"]", "1.1.0", "" },
	{ "", "1.1.0", "" },
	{ NULL, "1.1.0", "" },
	{ "{\"cniVersion\":\"1.0.0\",\"NAME\":\"rail-1\"}", "1.0.0", "rail-1" },
	{ "{\"name\":\"0123456789abcdefX\"}", "1.1.0", "0123456789abcde" },	/* cut */
	{ "{\"name\":\"../etc\"}", "1.1.0", "" },
};

START_TEST(test_sniff)
{
	char buf[16], name[16];

	ck_assert_str_eq(netconf_sniff(sniffs[_i].doc, buf, name, sizeof(name)), sniffs[_i].want);
	ck_assert_str_eq(name, sniffs[_i].name);
}
END_TEST

static const char getters_doc[] =
	"{'s':'hello','empty':'','long':'0123456789','n':null,'b':true,'i':4094,'neg':-5,'f':1.5,"
	"'big':1e30,'num':7}";

START_TEST(test_get_string)
{
	cJSON *json = parse(getters_doc);
	struct cni_err err = { 0 };
	char buf[8] = "keep";
	const char *val = "keep";
	bool present = true;

	ck_assert_int_eq(netconf_get_string(json, "absent", buf, sizeof(buf), &present, &err), 0);
	ck_assert_str_eq(buf, "keep");
	ck_assert(!present);
	ck_assert_int_eq(netconf_get_string(json, "n", buf, sizeof(buf), &present, &err), 0);
	ck_assert_str_eq(buf, "keep");
	ck_assert(!present);
	ck_assert_int_eq(netconf_get_string(json, "s", buf, sizeof(buf), &present, &err), 0);
	ck_assert_str_eq(buf, "hello");
	ck_assert(present);
	ck_assert_int_eq(netconf_get_string(json, "empty", buf, sizeof(buf), &present, &err), 0);
	ck_assert_str_eq(buf, "");
	ck_assert(present);
	ck_assert_int_eq(netconf_get_string(json, "long", buf, sizeof(buf), NULL, &err), -EINVAL);
	ck_assert_int_eq(err.code, CNI_ERR_CONFIG);
	ck_assert_str_eq(err.msg, "config key \"long\" value \"0123456789\" is too long (10 bytes, max 7)");
	err.code = 0;
	ck_assert_int_eq(netconf_get_string(json, "num", buf, sizeof(buf), NULL, &err), -EINVAL);
	ck_assert_int_eq(err.code, CNI_ERR_DECODE);
	ck_assert_str_eq(err.msg, "config key \"num\" must be a string, not 7");
	ck_assert_int_eq(netconf_get_str(json, "s", &val, &err), 0);
	ck_assert_ptr_eq(val, cJSON_GetObjectItem(json, "s")->valuestring);
	ck_assert_int_eq(netconf_get_str(json, "n", &val, &err), 0);
	ck_assert_ptr_null(val);
	err.code = 0;
	ck_assert_int_eq(netconf_get_str(json, "b", &val, &err), -EINVAL);
	ck_assert_str_eq(err.msg, "config key \"b\" must be a string, not true");
	cJSON_Delete(json);
}
END_TEST

START_TEST(test_get_object)
{
	cJSON *json = parse("{'o':{'k':1},'a':[1],'s':'x','n':null}");
	struct cni_err err = { 0 };
	const cJSON *obj = json;

	ck_assert_int_eq(netconf_get_object(json, "o", &obj, &err), 0);
	ck_assert_ptr_eq(obj, cJSON_GetObjectItem(json, "o"));
	ck_assert_int_eq(netconf_get_object(json, "n", &obj, &err), 0);
	ck_assert_ptr_null(obj);
	ck_assert_int_eq(netconf_get_object(json, "absent", &obj, &err), 0);
	ck_assert_ptr_null(obj);
	ck_assert_int_eq(netconf_get_object(json, "a", &obj, &err), -EINVAL);
	ck_assert_int_eq(err.code, CNI_ERR_DECODE);
	ck_assert_str_eq(err.msg, "config key \"a\" must be an object, not an array");
	err.code = 0;
	ck_assert_int_eq(netconf_get_object(json, "s", &obj, &err), -EINVAL);
	ck_assert_str_eq(err.msg, "config key \"s\" must be an object, not \"x\"");
	cJSON_Delete(json);
}
END_TEST

/* Keys are found as Go's encoding/json finds a struct field: ASCII case
 * ignored, the last of repeated keys wins, null is no value. */
static const struct {
	const char *doc;
	const char *key;
	const char *want;	/* the string found, NULL for none */
} lookups[] = {
	{ "{'vlanProto':'a'}", "vlanProto", "a" },
	{ "{'VLANPROTO':'a'}", "vlanProto", "a" },
	{ "{'vlanproto':'a'}", "vlanProto", "a" },
	{ "{'spoofChk':'a'}", "spoofchk", "a" },
	{ "{'vlanProto':'a','VlanProto':'b'}", "vlanProto", "b" },
	{ "{'VlanProto':'b','vlanProto':'a'}", "vlanProto", "a" },
	{ "{'vlanProto':'a','vlanProto':'b'}", "vlanProto", "b" },
	{ "{'vlanProto':'a','vlanProto':null}", "vlanProto", "a" },
	{ "{'vlanProto':null}", "vlanProto", NULL },
	{ "{'vlan_proto':'a'}", "vlanProto", NULL },
	{ "{'vlanProt':'a','vlanProtoX':'b'}", "vlanProto", NULL },
	/* Go also folds the Kelvin sign and the long s into k and s; not done */
	{ "{'\xe2\x84\xaa" "ey':'a'}", "key", NULL },
	{ "[{'vlanProto':'a'}]", "vlanProto", NULL },
};

START_TEST(test_lookup)
{
	cJSON *json = parse(lookups[_i].doc);
	const cJSON *item = netconf_get(json, lookups[_i].key);

	if (lookups[_i].want)
		ck_assert_str_eq(cJSON_GetStringValue(item), lookups[_i].want);
	else
		ck_assert_ptr_null(item);
	cJSON_Delete(json);
}
END_TEST

START_TEST(test_get_bool)
{
	cJSON *json = parse(getters_doc);
	struct cni_err err = { 0 };
	bool val = false, present = true;

	ck_assert_int_eq(netconf_get_bool(json, "absent", &val, &present, &err), 0);
	ck_assert(!present);
	ck_assert_int_eq(netconf_get_bool(json, "b", &val, &present, &err), 0);
	ck_assert(present && val);
	ck_assert_int_eq(netconf_get_bool(json, "b", &val, NULL, &err), 0);
	ck_assert_int_eq(netconf_get_bool(json, "s", &val, &present, &err), -EINVAL);
	ck_assert_int_eq(err.code, CNI_ERR_DECODE);
	ck_assert_str_eq(err.msg, "config key \"s\" must be true or false, not \"hello\"");
	cJSON_Delete(json);
}
END_TEST

static const struct {
	const char *key;
	long min, max;
	int code;
	long want;
	const char *msg;
} ints[] = {
	{ "i", 0, 4095, 0, 4094, NULL },
	{ "neg", -10, 10, 0, -5, NULL },
	{ "absent", 0, 1, 0, 99, NULL },
	{ "n", 0, 1, 0, 99, NULL },
	{ "i", 0, 100, CNI_ERR_CONFIG, 99, "config key \"i\" value 4094 is out of range [0, 100]" },
	{ "neg", 0, 7, CNI_ERR_CONFIG, 99, "config key \"neg\" value -5 is out of range [0, 7]" },
	{ "big", 0, 7, CNI_ERR_CONFIG, 99, "config key \"big\" value 1000000000000000019884624838656 is out of range [0, 7]" },
	{ "f", 0, 7, CNI_ERR_DECODE, 99, "config key \"f\" must be an integer, not 1.5" },
	{ "s", 0, 7, CNI_ERR_DECODE, 99, "config key \"s\" must be an integer, not \"hello\"" },
	{ "b", 0, 7, CNI_ERR_DECODE, 99, "config key \"b\" must be an integer, not true" },
	{ "I", 0, 4095, 0, 4094, NULL },
};

START_TEST(test_get_int)
{
	cJSON *json = parse(getters_doc);
	struct cni_err err = { 0 };
	bool present;
	long val = 99;
	int ret = netconf_get_int(json, ints[_i].key, ints[_i].min, ints[_i].max, &val, &present, &err);

	ck_assert_int_eq(err.code, ints[_i].code);
	ck_assert_int_eq(val, ints[_i].want);
	if (ints[_i].code) {
		ck_assert_int_lt(ret, 0);
		ck_assert_str_eq(err.msg, ints[_i].msg);
	} else {
		ck_assert_int_eq(ret, 0);
		ck_assert_int_eq(present, ints[_i].want != 99);
	}
	cJSON_Delete(json);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_parse, 0, N(parses));
	tcase_add_test(tc, test_full);
	tcase_add_test(tc, test_empty_attachments);
	tcase_add_test(tc, test_too_many_attachments);
	tcase_add_loop_test(tc, test_sniff, 0, N(sniffs));
	tcase_add_loop_test(tc, test_lookup, 0, N(lookups));
	tcase_add_test(tc, test_get_string);
	tcase_add_test(tc, test_get_object);
	tcase_add_test(tc, test_get_bool);
	tcase_add_loop_test(tc, test_get_int, 0, N(ints));
}

int main(void)
{
	return unit_run("netconf", add_tests);
}
