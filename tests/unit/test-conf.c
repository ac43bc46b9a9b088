// SPDX-License-Identifier: Apache-2.0
/* Unit tests of the sriov-rdma config: every key, its defaults, its refusals. */
#include <string.h>
#include <linux/if_ether.h>

#include "conf.h"
#include "unit.h"

#define HEAD "{\"cniVersion\":\"1.0.0\",\"name\":\"rdma-net\",\"type\":\"sriov-rdma\","

static const struct bad_case {
	const char *json;
	int code;
	const char *needle;	/* the message names the offending value */
} bad_cases[] = {
	{ "not json", CNI_ERR_DECODE, "not a JSON object" },
	{ HEAD "\"deviceID\":\"0000:3b:00.2\",\"vlan\":5000}", CNI_ERR_CONFIG, "vlan" },
	{ HEAD "\"deviceID\":\"0000:3b:00.2\",\"vlan\":-1}", CNI_ERR_CONFIG, "vlan" },
	{ HEAD "\"deviceID\":\"0000:3b:00.2\",\"vlan\":\"10\"}", CNI_ERR_DECODE, "vlan" },
	{ HEAD "\"deviceID\":\"0000:3b:00.2\",\"vlan\":10,\"vlanQoS\":9}", CNI_ERR_CONFIG, "vlanQoS" },
	{ HEAD "\"deviceID\":\"0000:3b:00.2\",\"vlanQoS\":3}", CNI_ERR_CONFIG, "vlanQoS 3" },
	{ HEAD "\"deviceID\":\"0000:3b:00.2\",\"vlanProto\":\"802.1ad\"}", CNI_ERR_CONFIG, "802.1ad" },
	{ HEAD "\"deviceID\":\"0000:3b:00.2\",\"vlan\":1,\"vlanProto\":\"qinq\"}", CNI_ERR_CONFIG, "\"qinq\"" },
	{ HEAD "\"deviceID\":\"0000:3b:00.2\",\"spoofchk\":\"yes\"}", CNI_ERR_CONFIG, "spoofchk \"yes\"" },
	{ HEAD "\"deviceID\":\"0000:3b:00.2\",\"trust\":true}", CNI_ERR_DECODE, "trust" },
	{ HEAD "\"deviceID\":\"0000:3b:00.2\",\"link_state\":\"up\"}", CNI_ERR_CONFIG, "link_state \"up\"" },
	{ HEAD "\"deviceID\":\"0000:3b:00.2\",\"min_tx_rate\":-5}", CNI_ERR_CONFIG, "min_tx_rate" },
	{ HEAD "\"deviceID\":\"0000:3b:00.2\",\"min_tx_rate\":200,\"max_tx_rate\":100}", CNI_ERR_CONFIG, "min_tx_rate 200" },
	{ HEAD "\"deviceID\":\"0000:3b:00.2\",\"mac\":\"zz:00:00:00:00:01\"}", CNI_ERR_CONFIG, "zz:00" },
	{ HEAD "\"deviceID\":\"0000:3b:00.2\",\"mac\":\"01:00:5e:00:00:01\"}", CNI_ERR_CONFIG, "unicast" },
	{ HEAD "\"deviceID\":\"0000:3b:00.2\",\"mac\":\"00:00:00:00:00:00\"}", CNI_ERR_CONFIG, "00:00:00:00:00:00" },
	{ HEAD "\"deviceID\":\"0000:3b:00.2\",\"runtimeConfig\":{\"mac\":\"02:00:00:00:00:0\"}}", CNI_ERR_CONFIG, "runtimeConfig.mac" },
	{ HEAD "\"deviceID\":\"0000:3b:00.2\",\"runtimeConfig\":[]}", CNI_ERR_DECODE, "runtimeConfig" },
	{ HEAD "\"vlan\":1}", CNI_ERR_CONFIG, "no deviceID" },
	{ HEAD "\"deviceID\":\"../../etc\"}", CNI_ERR_CONFIG, "\"../../etc\"" },
	{ HEAD "\"deviceID\":\"0000:3B:00.2\"}", CNI_ERR_CONFIG, "0000:3B:00.2" },
	{ HEAD "\"deviceID\":\"0000:3b:00.2\",\"rdma\":\"yes\"}", CNI_ERR_DECODE, "rdma" },
	{ HEAD "\"deviceID\":\"0000:3b:00.2\",\"dataDir\":\"relative/dir\"}", CNI_ERR_CONFIG, "relative/dir" },
	{ HEAD "\"deviceID\":\"0000:3b:00.2\",\"ipam\":\"host-local\"}", CNI_ERR_DECODE, "ipam" },
	{ HEAD "\"deviceID\":\"0000:3b:00.2\",\"ipam\":{\"subnet\":\"192.0.2.0/24\"}}", CNI_ERR_CONFIG, "ipam: no type" },
	{ "{\"name\":\"n\",\"type\":\"sriov-rdma\",\"deviceID\":\"0000:3b:00.2\"}", CNI_ERR_VERSION, "cniVersion" },
	{ "{\"cniVersion\":\"9.9.9\",\"name\":\"n\",\"deviceID\":\"0000:3b:00.2\"}", CNI_ERR_VERSION, "9.9.9" },
};

START_TEST(refuses_bad_config)
{
	const struct bad_case *c = &bad_cases[_i];
	struct cni_err err = { 0 };
	struct conf conf;

	ck_assert_int_lt(conf_parse(c->json, NULL, true, &conf, &err), 0);
	ck_assert_int_eq(err.code, c->code);
	ck_assert_msg(strstr(err.msg, c->needle), "message \"%s\" lacks \"%s\"", err.msg,
		      c->needle);
}
END_TEST

START_TEST(defaults)
{
	struct cni_err err = { 0 };
	struct conf conf;

	ck_assert_int_eq(conf_parse(HEAD "\"deviceID\":\"0000:3b:00.2\"}", NULL, true, &conf, &err), 0);
	ck_assert_str_eq(conf.device_id, "0000:3b:00.2");
	ck_assert(!conf.is_aux);
	ck_assert(conf.rdma);
	ck_assert_uint_eq(conf.vf_mask, 0);
	ck_assert(!conf.has_mac);
	ck_assert(!conf.has_ipam);
	ck_assert_str_eq(conf.data_dir, CONF_DEFAULT_DATA_DIR);
	ck_assert_int_eq(conf.net.version, CNI_V100);
	conf_release(&conf);
}
END_TEST

START_TEST(every_sriov_cni_key)
{
	static const char json[] = HEAD "\"deviceID\":\"0000:3b:00.2\",\"vlan\":100,"
		"\"vlanQoS\":5,\"vlanProto\":\"802.1AD\",\"mac\":\"02:11:22:33:44:55\","
		"\"spoofchk\":\"off\",\"trust\":\"on\",\"link_state\":\"disable\","
		"\"min_tx_rate\":100,\"max_tx_rate\":2000,\"rdma\":false,\"dataDir\":\"/tmp/x\","
		"\"logLevel\":\"debug\",\"logFile\":\"/tmp/x.log\","
		"\"ipam\":{\"type\":\"ippool\",\"range\":\"192.0.2.0/24\"}}";
	struct cni_err err = { 0 };
	struct conf conf;

	ck_assert_int_eq(conf_parse(json, NULL, true, &conf, &err), 0);
	ck_assert_int_eq(conf.vf.vlan, 100);
	ck_assert_int_eq(conf.vf.qos, 5);
	ck_assert_int_eq(conf.vf.vlan_proto, ETH_P_8021AD);
	ck_assert_int_eq(conf.vf.spoofchk, 0);
	ck_assert_int_eq(conf.vf.trust, 1);
	ck_assert_int_eq(conf.vf.link_state, VF_LINK_DISABLE);
	ck_assert_uint_eq(conf.vf.min_tx_rate, 100);
	ck_assert_uint_eq(conf.vf.max_tx_rate, 2000);
	ck_assert_uint_eq(conf.vf_mask, VF_MAC | VF_VLAN | VF_SPOOFCHK | VF_TRUST |
			  VF_LINK_STATE | VF_RATE);
	ck_assert(conf.has_mac);
	ck_assert_mem_eq(conf.mac, "\x02\x11\x22\x33\x44\x55", 6);
	ck_assert_mem_eq(conf.vf.mac, conf.mac, 6);
	ck_assert(!conf.rdma);
	ck_assert_str_eq(conf.data_dir, "/tmp/x");
	ck_assert_str_eq(conf.log_level, "debug");
	ck_assert(conf.has_ipam);
	ck_assert_str_eq(conf.ipam_type, "ippool");
	conf_release(&conf);
}
END_TEST

/* runtimeConfig.deviceID over deviceID over pciBusID; runtimeConfig.mac over
 * CNI_ARGS MAC= over mac. */
static const struct precedence_case {
	const char *json;
	const char *args_mac;
	const char *device;
	const char *mac;
} precedence_cases[] = {
	{ HEAD "\"pciBusID\":\"0000:3b:00.4\"}", "", "0000:3b:00.4", NULL },
	{ HEAD "\"pciBusID\":\"0000:3b:00.4\",\"deviceID\":\"0000:3b:00.3\"}", "", "0000:3b:00.3", NULL },
	{ HEAD "\"deviceID\":\"0000:3b:00.3\",\"runtimeConfig\":{\"deviceID\":\"0000:3b:00.5\"}}", "", "0000:3b:00.5", NULL },
	{ HEAD "\"deviceID\":\"mlx5_core.sf.4\"}", "", "mlx5_core.sf.4", NULL },
	{ HEAD "\"deviceID\":\"0000:3b:00.3\",\"mac\":\"02:00:00:00:00:01\"}", "02:00:00:00:00:02", "0000:3b:00.3", "\x02\0\0\0\0\x02" },
	{ HEAD "\"deviceID\":\"0000:3b:00.3\",\"mac\":\"02:00:00:00:00:01\",\"runtimeConfig\":{\"mac\":\"02:00:00:00:00:03\"}}", "02:00:00:00:00:02", "0000:3b:00.3", "\x02\0\0\0\0\x03" },
	{ HEAD "\"deviceID\":\"0000:3b:00.3\",\"mac\":\"02:00:00:00:00:01\"}", "", "0000:3b:00.3", "\x02\0\0\0\0\x01" },
};

START_TEST(precedence)
{
	const struct precedence_case *c = &precedence_cases[_i];
	struct cni_args args = { 0 };
	struct cni_err err = { 0 };
	struct conf conf;

	strcpy(args.mac, c->args_mac);
	ck_assert_int_eq(conf_parse(c->json, &args, true, &conf, &err), 0);
	ck_assert_str_eq(conf.device_id, c->device);
	ck_assert_int_eq(conf.is_aux, strchr(c->device, ':') == NULL);
	ck_assert_int_eq(conf.has_mac, c->mac != NULL);
	if (c->mac)
		ck_assert_mem_eq(conf.mac, c->mac, 6);
	conf_release(&conf);
}
END_TEST

START_TEST(gc_needs_no_device)
{
	struct cni_err err = { 0 };
	struct conf conf;

	ck_assert_int_eq(conf_parse(HEAD "\"rdma\":true}", NULL, false, &conf, &err), 0);
	ck_assert_str_eq(conf.device_id, "");
	conf_release(&conf);
}
END_TEST

START_TEST(mac_parse)
{
	uint8_t mac[6];

	ck_assert_int_eq(conf_parse_mac("0a:1B:2c:3D:4e:5F", mac), 0);
	ck_assert_mem_eq(mac, "\x0a\x1b\x2c\x3d\x4e\x5f", 6);
	ck_assert_int_lt(conf_parse_mac("0a:1b:2c:3d:4e:5f:00", mac), 0);
	ck_assert_int_lt(conf_parse_mac("0a-1b-2c-3d-4e-5f", mac), 0);
	ck_assert_int_lt(conf_parse_mac("a:1b:2c:3d:4e:5f", mac), 0);
	ck_assert_int_lt(conf_parse_mac("", mac), 0);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, refuses_bad_config, 0, sizeof(bad_cases) / sizeof(bad_cases[0]));
	tcase_add_test(tc, defaults);
	tcase_add_test(tc, every_sriov_cni_key);
	tcase_add_loop_test(tc, precedence, 0, sizeof(precedence_cases) / sizeof(precedence_cases[0]));
	tcase_add_test(tc, gc_needs_no_device);
	tcase_add_test(tc, mac_parse);
}

int main(void)
{
	return unit_run("conf", add_tests);
}
