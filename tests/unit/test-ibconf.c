// SPDX-License-Identifier: Apache-2.0
/* Unit tests of ibconf.c: ib-sriov-cni's keys, the GUID's three sources, their
 * order and spellings, refusals naming key and value, ibKubernetesEnabled. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "ibconf.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define RC_GUID "00:00:00:00:00:00:00:0a"
#define ARGS_GUID "00:00:00:00:00:00:00:0b"
#define TOP_GUID "00:00:00:00:00:00:00:0c"

static const struct {
	const char *json;
	uint64_t guid;		/* 0: none */
	const char *key;
} guid_cases[] = {
	{ "{}", 0, NULL },
	{ "{\"guid\":\"\"}", 0, NULL },
	{ "{\"guid\":null}", 0, NULL },
	{ "{\"guid\":\"" TOP_GUID "\"}", 0x0c, "guid" },
	{ "{\"guid\":\"" TOP_GUID "\",\"args\":{\"cni\":{\"guid\":\"" ARGS_GUID "\"}}}", 0x0b,
	  "args.cni.guid" },
	{ "{\"guid\":\"" TOP_GUID "\",\"args\":{\"cni\":{\"guid\":\"" ARGS_GUID "\"}},"
	  "\"runtimeConfig\":{\"infinibandGUID\":\"" RC_GUID "\"}}", 0x0a,
	  "runtimeConfig.infinibandGUID" },
	{ "{\"runtimeConfig\":{\"infinibandGUID\":\"" RC_GUID "\"}}", 0x0a,
	  "runtimeConfig.infinibandGUID" },
	{ "{\"runtimeConfig\":{\"infinibandGUID\":\"\"},\"args\":{\"cni\":{\"guid\":\"" ARGS_GUID "\"}}}",
	  0x0b, "args.cni.guid" },
	{ "{\"args\":{\"cni\":{\"guid\":\"AB:CD:EF:00:00:00:00:01\"}}}", 0xabcdef0000000001ULL,
	  "args.cni.guid" },
	{ "{\"args\":{}}", 0, NULL },
	{ "{\"args\":{\"cni\":null}}", 0, NULL },
};

static int parse(const char *json, struct ib_conf *out, struct cni_err *err)
{
	cJSON *root = cJSON_Parse(json);
	int ret;

	ck_assert_ptr_nonnull(root);
	ret = ibconf_parse(root, cJSON_GetObjectItemCaseSensitive(root, "runtimeConfig"), out, err);
	cJSON_Delete(root);
	return ret;
}

START_TEST(test_guid_sources)
{
	struct cni_err err = { 0 };
	struct ib_conf c;

	ck_assert_int_eq(parse(guid_cases[_i].json, &c, &err), 0);
	ck_assert_int_eq(c.has_guid, guid_cases[_i].guid != 0);
	ck_assert_uint_eq(c.guid, guid_cases[_i].guid);
	if (guid_cases[_i].key)
		ck_assert_str_eq(c.guid_key, guid_cases[_i].key);
}
END_TEST

/* Each source (a printf format of the config with its GUID), each spelling
 * ib-sriov-cni's net.ParseMAC takes: the same GUID, whatever the spelling. */
static const struct {
	const char *fmt;
	const char *key;
} sources[] = {
	{ "{\"runtimeConfig\":{\"infinibandGUID\":\"%s\"}}", "runtimeConfig.infinibandGUID" },
	{ "{\"args\":{\"cni\":{\"guid\":\"%s\"}}}", "args.cni.guid" },
	{ "{\"guid\":\"%s\"}", "guid" },
};

static const char *const spellings[] = {
	"02:00:c9:03:00:21:6e:70", "02:00:C9:03:00:21:6E:70",
	"02-00-c9-03-00-21-6e-70", "02-00-C9-03-00-21-6E-70",
	"0200.c903.0021.6e70", "0200.C903.0021.6E70",
};

/* Refused from each source with code 7, the message naming key and value. */
static const char *const misspellings[] = {
	"02:00-c9:03:00:21:6e:70", "0200.c903:0021.6e70", "02-00-c9-03-00-21-6e:70",
	"0200:c903:0021:6e70", "020.0c903.0021.6e70", "02:00:c9:03::00:21:6e:7",
	"02:00:5e:10:00:01", "0200.5e10.0001",
	"00:00:00:00:fe:80:00:00:00:00:00:00:02:00:5e:10:00:00:00:01",
	"0000.0000.fe80.0000.0000.0000.0200.5e10.0000.0001",
	"02:00:c9:03:00:21:6e:70 ", "0200.c903.0021.6e70.", "0200.c903.0021.6e7g",
	"0x0200c90300216e70",
};

static void source_conf(char *buf, size_t size, size_t source, const char *guid)
{
	ck_assert_int_lt(snprintf(buf, size, sources[source].fmt, guid), (int)size);
}

START_TEST(test_spellings)
{
	size_t source = (size_t)_i % N(sources);
	struct cni_err err = { 0 };
	struct ib_conf c;
	char json[256];

	source_conf(json, sizeof(json), source, spellings[_i / N(sources)]);
	ck_assert_int_eq(parse(json, &c, &err), 0);
	ck_assert(c.has_guid);
	ck_assert_uint_eq(c.guid, 0x0200c90300216e70ULL);
	ck_assert_str_eq(c.guid_key, sources[source].key);
}
END_TEST

START_TEST(test_misspellings)
{
	size_t source = (size_t)_i % N(sources);
	const char *guid = misspellings[_i / N(sources)];
	struct cni_err err = { 0 };
	char json[256], needle[256];
	struct ib_conf c;

	source_conf(json, sizeof(json), source, guid);
	ck_assert_int_eq(parse(json, &c, &err), -EINVAL);
	ck_assert_int_eq(err.code, CNI_ERR_CONFIG);
	snprintf(needle, sizeof(needle), "invalid %s \"%s\": want a GUID like "
		 "00:02:c9:03:00:21:6e:70, 00-02-c9-03-00-21-6e-70 or 0002.c903.0021.6e70",
		 sources[source].key, guid);
	ck_assert_str_eq(err.msg, needle);
}
END_TEST

static const struct {
	const char *json;
	int code;
	const char *needle;
} bad_cases[] = {
	{ "{\"guid\":\"00:02:c9:03\"}", CNI_ERR_CONFIG, "invalid guid \"00:02:c9:03\": want a GUID like" },
	{ "{\"guid\":\"00:00:00:00:00:00:00:00\"}", CNI_ERR_CONFIG,
	  "invalid guid \"00:00:00:00:00:00:00:00\": all zeros names no port" },
	{ "{\"runtimeConfig\":{\"infinibandGUID\":\"FF:FF:FF:FF:FF:FF:FF:FF\"}}", CNI_ERR_CONFIG,
	  "invalid runtimeConfig.infinibandGUID \"FF:FF:FF:FF:FF:FF:FF:FF\": all ones names no port" },
	{ "{\"args\":{\"cni\":{\"guid\":\"02-00-00-00-00-00-01\"}}}", CNI_ERR_CONFIG,
	  "invalid args.cni.guid \"02-00-00-00-00-00-01\"" },
	/* the value as written, in any spelling */
	{ "{\"guid\":\"00-00-00-00-00-00-00-00\"}", CNI_ERR_CONFIG,
	  "invalid guid \"00-00-00-00-00-00-00-00\": all zeros names no port" },
	{ "{\"runtimeConfig\":{\"infinibandGUID\":\"FFFF.FFFF.ffff.ffff\"}}", CNI_ERR_CONFIG,
	  "invalid runtimeConfig.infinibandGUID \"FFFF.FFFF.ffff.ffff\": all ones names no port" },
	/* a lower source's spelling is checked too, even when a higher one wins */
	{ "{\"runtimeConfig\":{\"infinibandGUID\":\"0200.c903.0021.6e70\"},"
	  "\"args\":{\"cni\":{\"guid\":\"02:00:c9:03:00:21:6e-70\"}}}", CNI_ERR_CONFIG,
	  "invalid args.cni.guid \"02:00:c9:03:00:21:6e-70\"" },
	/* a lower source is checked too, even when a higher one wins */
	{ "{\"runtimeConfig\":{\"infinibandGUID\":\"" RC_GUID "\"},\"guid\":\"x\"}", CNI_ERR_CONFIG,
	  "invalid guid \"x\"" },
	{ "{\"guid\":7}", CNI_ERR_DECODE, "\"guid\" must be a string" },
	{ "{\"runtimeConfig\":{\"infinibandGUID\":7}}", CNI_ERR_DECODE,
	  "runtimeConfig: config key \"infinibandGUID\" must be a string" },
	{ "{\"args\":{\"cni\":{\"guid\":7}}}", CNI_ERR_DECODE, "args.cni \"guid\" must be a string" },
	{ "{\"args\":[]}", CNI_ERR_DECODE, "\"args\" must be an object" },
	{ "{\"args\":{\"cni\":\"guid\"}}", CNI_ERR_DECODE, "args: config key \"cni\" must be an object" },
	{ "{\"pkey\":32767}", CNI_ERR_DECODE, "pkey" },
	{ "{\"ibKubernetesEnabled\":1}", CNI_ERR_DECODE, "ibKubernetesEnabled" },
};

START_TEST(test_bad)
{
	struct cni_err err = { 0 };
	struct ib_conf c;

	ck_assert_int_eq(parse(bad_cases[_i].json, &c, &err), -EINVAL);
	ck_assert_int_eq(err.code, bad_cases[_i].code);
	ck_assert_msg(strstr(err.msg, bad_cases[_i].needle), "message \"%s\" lacks \"%s\"",
		      err.msg, bad_cases[_i].needle);
}
END_TEST

/* pkey is taken as ib-sriov-cni takes it (ib-kubernetes reads it); keys
 * are matched as Go's encoding/json matches them, but args.cni's exactly, it
 * being a map there. */
START_TEST(test_keys)
{
	struct cni_err err = { 0 };
	struct ib_conf c;

	ck_assert_int_eq(parse("{\"pkey\":\"0x7fff\",\"IBKUBERNETESENABLED\":true,"
			       "\"GUID\":\"" TOP_GUID "\"}", &c, &err), 0);
	ck_assert(c.ib_kubernetes);
	ck_assert_uint_eq(c.guid, 0x0c);
	ck_assert_int_eq(parse("{\"args\":{\"cni\":{\"GUID\":\"" ARGS_GUID "\"}}}", &c, &err), 0);
	ck_assert(!c.has_guid);
	ck_assert_int_eq(parse("{\"args\":{\"cni\":{\"guid\":\"x\",\"guid\":\"" ARGS_GUID "\"}}}",
			       &c, &err), 0);
	ck_assert_uint_eq(c.guid, 0x0b);
}
END_TEST

static const struct {
	const char *json;
	int ret;
	int code;
	const char *needle;
} ready_cases[] = {
	{ "{}", 0, 0, NULL },
	{ "{\"ibKubernetesEnabled\":false}", 0, 0, NULL },
	{ "{\"ibKubernetesEnabled\":true,\"args\":{\"cni\":{\"guid\":\"" ARGS_GUID "\","
	  "\"mellanox.infiniband.app\":\"configured\"}}}", 0, 0, NULL },
	{ "{\"ibKubernetesEnabled\":true,\"args\":{\"cni\":{\"guid\":\"" ARGS_GUID "\"}}}",
	  -EAGAIN, CNI_ERR_TRY_AGAIN, "has not set this pod up yet" },
	{ "{\"ibKubernetesEnabled\":true,\"args\":{\"cni\":{\"guid\":\"" ARGS_GUID "\","
	  "\"mellanox.infiniband.app\":\"pending\"}}}", -EAGAIN, CNI_ERR_TRY_AGAIN,
	  "\"mellanox.infiniband.app\" is not \"configured\"" },
	{ "{\"ibKubernetesEnabled\":true,\"args\":{\"cni\":{\"mellanox.infiniband.app\":\"configured\"}}}",
	  -EINVAL, CNI_ERR_CONFIG, "no GUID from ib-kubernetes" },
};

START_TEST(test_ready)
{
	struct cni_err err = { 0 };
	struct ib_conf c;

	ck_assert_int_eq(parse(ready_cases[_i].json, &c, &err), 0);
	ck_assert_int_eq(ibconf_check_ready(&c, &err), ready_cases[_i].ret);
	ck_assert_int_eq(err.code, ready_cases[_i].code);
	if (ready_cases[_i].needle)
		ck_assert_msg(strstr(err.msg, ready_cases[_i].needle), "message \"%s\" lacks \"%s\"",
			      err.msg, ready_cases[_i].needle);
}
END_TEST

/* The Ethernet-only keys are found (judged later, once the link layer is known). */
static const struct {
	const char *json;
	const char *key;	/* NULL: none */
} eth_cases[] = {
	{ "{\"guid\":\"" TOP_GUID "\",\"link_state\":\"enable\",\"pkey\":\"0x6\"}", NULL },
	{ "{\"vlan\":0}", "vlan" },
	{ "{\"VLAN\":100}", "vlan" },
	{ "{\"vlanQoS\":1}", "vlanQoS" },
	{ "{\"vlanProto\":\"802.1ad\"}", "vlanProto" },
	{ "{\"spoofchk\":\"on\"}", "spoofchk" },
	{ "{\"trust\":\"off\"}", "trust" },
	{ "{\"mac\":\"02:00:00:00:00:01\"}", "mac" },
	{ "{\"runtimeConfig\":{\"mac\":\"02:00:00:00:00:01\"}}", "runtimeConfig.mac" },
	{ "{\"runtimeConfig\":{\"infinibandGUID\":\"" RC_GUID "\"}}", NULL },
};

START_TEST(test_eth_keys)
{
	struct cni_err err = { 0 };
	struct ib_conf c;

	ck_assert_int_eq(parse(eth_cases[_i].json, &c, &err), 0);
	if (eth_cases[_i].key)
		ck_assert_str_eq(c.eth_key ? c.eth_key : "(none)", eth_cases[_i].key);
	else
		ck_assert_ptr_null(c.eth_key);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_guid_sources, 0, N(guid_cases));
	tcase_add_loop_test(tc, test_spellings, 0, N(sources) * N(spellings));
	tcase_add_loop_test(tc, test_misspellings, 0, N(sources) * N(misspellings));
	tcase_add_loop_test(tc, test_bad, 0, N(bad_cases));
	tcase_add_test(tc, test_keys);
	tcase_add_loop_test(tc, test_ready, 0, N(ready_cases));
	tcase_add_loop_test(tc, test_eth_keys, 0, N(eth_cases));
}

int main(void)
{
	return unit_run("ibconf", add_tests);
}
