// SPDX-License-Identifier: Apache-2.0
/* Unit tests of the sriov-rdma config: sriov-cni's loading rules case by case, what each accepted config means. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/if_ether.h>

#include "conf.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Tables use ' for ". H opens a config, D is the deviceID Multus writes. */
#define H "{'cniVersion':'1.0.0','name':'rdma-net','type':'sriov-rdma',"
#define D "'deviceID':'0000:3b:00.2','pciBusID':'0000:3b:00.2'"
#define DEV "0000:3b:00.2"
#define ADD (CONF_DEVICE | CONF_VF | CONF_IB)
#define VLAN(v, q, p) .mask = VF_VLAN, .vf = { .vlan = v, .qos = q, .vlan_proto = p }

/* An accepted config and what it means: the VF settings ADD applies (only
 * those in mask are compared), the pod's MAC, the VF, the IPAM plugin. */
static const struct accept_case {
	const char *what;
	const char *json;
	const char *args_mac;	/* CNI_ARGS MAC= */
	unsigned int mask;
	struct vf_config vf;
	const char *mac;	/* NULL: the VF keeps its MAC */
	const char *device;	/* NULL: DEV */
	const char *ipam;	/* ipam.type, NULL: no IPAM */
} accepts[] = {
	/* sriov-cni's string keys are plain Go strings: "" and null are "not set" */
	{ .what = "spoofchk empty", .json = H D ",'spoofchk':''}" },
	{ .what = "spoofchk null", .json = H D ",'spoofchk':null}" },
	{ .what = "trust empty", .json = H D ",'trust':''}" },
	{ .what = "trust null", .json = H D ",'trust':null}" },
	{ .what = "link_state empty", .json = H D ",'link_state':''}" },
	{ .what = "link_state null", .json = H D ",'link_state':null}" },
	{ .what = "mac empty", .json = H D ",'mac':''}" },
	{ .what = "mac null", .json = H D ",'mac':null}" },
	{ .what = "logLevel and logFile empty", .json = H D ",'logLevel':'','logFile':''}" },
	{ .what = "logLevel and logFile null", .json = H D ",'logLevel':null,'logFile':null}" },
	/* its int and vlanProto keys are pointers: null is "not set" */
	{ .what = "vlan, vlanQoS, vlanProto null", .json = H D ",'vlan':null,'vlanQoS':null,'vlanProto':null}" },
	{ .what = "rates null", .json = H D ",'min_tx_rate':null,'max_tx_rate':null}" },
	/* IPAM runs when ipam.type is set */
	{ .what = "ipam null", .json = H D ",'ipam':null}" },
	{ .what = "ipam empty", .json = H D ",'ipam':{}}" },
	{ .what = "ipam type empty", .json = H D ",'ipam':{'type':''}}" },
	{ .what = "ipam type null", .json = H D ",'ipam':{'type':null}}" },
	{ .what = "ipam inline", .json = H D ",'ipam':{'type':'host-local','subnet':'10.56.217.0/24'}}",
	  .ipam = "host-local" },
	/* runtimeConfig: null is absent, keys other than mac are not sriov-cni's */
	{ .what = "runtimeConfig null", .json = H D ",'runtimeConfig':null}" },
	{ .what = "runtimeConfig empty", .json = H D ",'runtimeConfig':{}}" },
	{ .what = "runtimeConfig null members", .json = H D ",'runtimeConfig':{'mac':null,'deviceID':null}}" },
	{ .what = "runtimeConfig mac empty", .json = H D ",'mac':'02:00:00:00:00:01','runtimeConfig':{'mac':''}}",
	  .mask = VF_MAC, .mac = "02:00:00:00:00:01" },
	{ .what = "runtimeConfig unknown keys", .json = H D ",'runtimeConfig':{'ips':['192.0.2.5/24'],"
	  "'portMappings':[],'bandwidth':{'ingressRate':1},'infinibandGUID':'02:00:00:00:00:00:00:01',"
	  "'future':{'a':1}}}" },
	/* keys sriov-cni does not know are ignored */
	{ .what = "unknown keys", .json = H D ",'capabilities':{'mac':true,'ips':true},'dns':{},'args':{'cni':{}},"
	  "'mtu':9000,'master':'ens1','future':[1,2]}" },
	{ .what = "own keys empty or null", .json = H D ",'dataDir':'','rdma':null}" },
	/* a Helm template whose values are all unset */
	{ .what = "helm, all unset", .json = H D ",'vlan':null,'vlanQoS':null,'vlanProto':null,'mac':'',"
	  "'spoofchk':'','trust':'','link_state':'','min_tx_rate':null,'max_tx_rate':null,"
	  "'logLevel':'','logFile':'','runtimeConfig':null,'ipam':{'type':''}}" },

	/* a vlan given is set, 0 included: it clears the VF's VLAN */
	{ .what = "vlan", .json = H D ",'vlan':100}", VLAN(100, 0, ETH_P_8021Q) },
	{ .what = "vlan 0", .json = H D ",'vlan':0}", VLAN(0, 0, ETH_P_8021Q) },
	{ .what = "vlan 0, qos 0", .json = H D ",'vlan':0,'vlanQoS':0}", VLAN(0, 0, ETH_P_8021Q) },
	{ .what = "vlan 0, 802.1q", .json = H D ",'vlan':0,'vlanProto':'802.1q'}", VLAN(0, 0, ETH_P_8021Q) },
	{ .what = "vlan 4094, qos 7, 802.1ad", .json = H D ",'vlan':4094,'vlanQoS':7,'vlanProto':'802.1ad'}",
	  VLAN(4094, 7, ETH_P_8021AD) },
	{ .what = "vlanProto upper case", .json = H D ",'vlan':5,'vlanProto':'802.1Q'}", VLAN(5, 0, ETH_P_8021Q) },
	{ .what = "vlanProto 802.1AD", .json = H D ",'vlan':5,'vlanProto':'802.1AD'}", VLAN(5, 0, ETH_P_8021AD) },
	{ .what = "vlan 100.0 (libcni writes it 100)", .json = H D ",'vlan':100.0}", VLAN(100, 0, ETH_P_8021Q) },

	{ .what = "spoofchk on", .json = H D ",'spoofchk':'on'}", .mask = VF_SPOOFCHK, .vf = { .spoofchk = 1 } },
	{ .what = "spoofchk off", .json = H D ",'spoofchk':'off'}", .mask = VF_SPOOFCHK, .vf = { .spoofchk = 0 } },
	{ .what = "trust on", .json = H D ",'trust':'on'}", .mask = VF_TRUST, .vf = { .trust = 1 } },
	{ .what = "trust off", .json = H D ",'trust':'off'}", .mask = VF_TRUST, .vf = { .trust = 0 } },
	{ .what = "link_state auto", .json = H D ",'link_state':'auto'}", .mask = VF_LINK_STATE,
	  .vf = { .link_state = VF_LINK_AUTO } },
	{ .what = "link_state enable", .json = H D ",'link_state':'enable'}", .mask = VF_LINK_STATE,
	  .vf = { .link_state = VF_LINK_ENABLE } },
	{ .what = "link_state disable", .json = H D ",'link_state':'disable'}", .mask = VF_LINK_STATE,
	  .vf = { .link_state = VF_LINK_DISABLE } },

	/* either rate sets both, the other at 0 */
	{ .what = "min_tx_rate alone", .json = H D ",'min_tx_rate':10}", .mask = VF_RATE, .vf = { .min_tx_rate = 10 } },
	{ .what = "max_tx_rate alone", .json = H D ",'max_tx_rate':1000}", .mask = VF_RATE,
	  .vf = { .max_tx_rate = 1000 } },
	{ .what = "rates 0", .json = H D ",'min_tx_rate':0,'max_tx_rate':0}", .mask = VF_RATE },
	{ .what = "min above an unlimited max", .json = H D ",'min_tx_rate':100,'max_tx_rate':0}", .mask = VF_RATE,
	  .vf = { .min_tx_rate = 100 } },
	{ .what = "min equal to max", .json = H D ",'min_tx_rate':100,'max_tx_rate':100}", .mask = VF_RATE,
	  .vf = { .min_tx_rate = 100, .max_tx_rate = 100 } },
	{ .what = "rates at 32 bits", .json = H D ",'min_tx_rate':4294967295,'max_tx_rate':4294967295}",
	  .mask = VF_RATE, .vf = { .min_tx_rate = 4294967295u, .max_tx_rate = 4294967295u } },

	/* runtimeConfig.mac, else CNI_ARGS MAC=, else mac; only the MAC taken is parsed */
	{ .what = "mac", .json = H D ",'mac':'02:00:00:00:00:01'}", .mask = VF_MAC, .mac = "02:00:00:00:00:01" },
	{ .what = "mac upper case", .json = H D ",'mac':'CA:FE:C0:FF:EE:00'}", .mask = VF_MAC, .mac = "ca:fe:c0:ff:ee:00" },
	{ .what = "MAC= over mac", .json = H D ",'mac':'02:00:00:00:00:01'}", .args_mac = "02:00:00:00:00:02",
	  .mask = VF_MAC, .mac = "02:00:00:00:00:02" },
	{ .what = "runtimeConfig.mac over MAC= and mac", .json = H D ",'mac':'02:00:00:00:00:01',"
	  "'runtimeConfig':{'mac':'02:00:00:00:00:03'}}", .args_mac = "02:00:00:00:00:02",
	  .mask = VF_MAC, .mac = "02:00:00:00:00:03" },
	{ .what = "runtimeConfig.mac over a bad mac", .json = H D ",'mac':'not a mac',"
	  "'runtimeConfig':{'mac':'02:00:00:00:00:03'}}", .mask = VF_MAC, .mac = "02:00:00:00:00:03" },
	{ .what = "runtimeConfig.mac over a bad MAC=", .json = H D ",'runtimeConfig':{'mac':'02:00:00:00:00:03'}}",
	  .args_mac = "01:00:5e:00:00:01", .mask = VF_MAC, .mac = "02:00:00:00:00:03" },
	{ .what = "MAC= over a bad mac", .json = H D ",'mac':'00:00:00:00:00:00'}", .args_mac = "02:00:00:00:00:02",
	  .mask = VF_MAC, .mac = "02:00:00:00:00:02" },
	{ .what = "MAC= empty", .json = H D ",'mac':'02:00:00:00:00:01'}", .args_mac = "", .mask = VF_MAC, .mac = "02:00:00:00:00:01" },

	/* runtimeConfig.deviceID, else deviceID, else pciBusID; only the one taken is parsed */
	{ .what = "pciBusID alone", .json = H "'pciBusID':'0000:3b:00.4'}", .device = "0000:3b:00.4" },
	{ .what = "deviceID over a bad pciBusID", .json = H "'deviceID':'0000:3b:00.3','pciBusID':'bad'}",
	  .device = "0000:3b:00.3" },
	{ .what = "deviceID empty", .json = H "'deviceID':'','pciBusID':'0000:3b:00.4'}", .device = "0000:3b:00.4" },
	{ .what = "runtimeConfig.deviceID over a bad deviceID", .json = H "'deviceID':'bad',"
	  "'runtimeConfig':{'deviceID':'0000:3b:00.5'}}", .device = "0000:3b:00.5" },
	{ .what = "a sub-function", .json = H "'deviceID':'mlx5_core.sf.4'}", .device = "mlx5_core.sf.4" },

	/* keys match in any ASCII case, the last of repeated keys counts, null is no value */
	{ .what = "spoofChk (the SriovNetwork field name)", .json = H D ",'spoofChk':'off'}", .mask = VF_SPOOFCHK,
	  .vf = { .spoofchk = 0 } },
	{ .what = "VLAN", .json = H D ",'VLAN':7}", VLAN(7, 0, ETH_P_8021Q) },
	{ .what = "Mac, RuntimeConfig, MAC", .json = H D ",'Mac':'02:00:00:00:00:01','RuntimeConfig':{'MAC':"
	  "'02:00:00:00:00:03'}}", .mask = VF_MAC, .mac = "02:00:00:00:00:03" },
	{ .what = "deviceId", .json = H "'deviceId':'0000:3b:00.6'}", .device = "0000:3b:00.6" },
	{ .what = "repeated vlan", .json = H D ",'vlan':1,'vlan':2}", VLAN(2, 0, ETH_P_8021Q) },
	{ .what = "repeated vlan, other case", .json = H D ",'Vlan':2,'vlan':1}", VLAN(1, 0, ETH_P_8021Q) },
	{ .what = "repeated vlan, then null", .json = H D ",'vlan':3,'vlan':null}", VLAN(3, 0, ETH_P_8021Q) },
	{ .what = "IPAM with Type", .json = H D ",'IPAM':{'Type':'ippool','range':'192.0.2.0/24'}}", .ipam = "ippool" },

	/* the SR-IOV Network Operator's rendered SriovNetwork, Multus's deviceID added */
	{ .what = "operator, defaults", .json = H "'vlan':0,'vlanQoS':0,'logLevel':'info','ipam':{}," D "}",
	  VLAN(0, 0, ETH_P_8021Q) },
	{ .what = "operator, every field", .json = H "'vlan':100,'spoofchk':'off','trust':'on','vlanQoS':3,"
	  "'vlanProto':'802.1AD','min_tx_rate':100,'max_tx_rate':1000,"
	  "'capabilities':{'mac':true,'ips':true},'link_state':'enable','logLevel':'debug',"
	  "'logFile':'/var/log/sriov-rdma.log','ipam':{'type':'host-local','subnet':'10.56.217.0/24',"
	  "'routes':[{'dst':'0.0.0.0/0'}],'gateway':'10.56.217.1'}," D ",'runtimeConfig':{'mac':"
	  "'02:00:00:00:00:09','ips':['10.56.217.9/24']}}",
	  .mask = VF_VLAN | VF_SPOOFCHK | VF_TRUST | VF_LINK_STATE | VF_RATE | VF_MAC,
	  .vf = { .vlan = 100, .qos = 3, .vlan_proto = ETH_P_8021AD, .spoofchk = 0, .trust = 1,
		  .link_state = VF_LINK_ENABLE, .min_tx_rate = 100, .max_tx_rate = 1000 },
	  .mac = "02:00:00:00:00:09", .ipam = "host-local" },
	{ .what = "operator, log level by default", .json = H "'vlan':0,'vlanQoS':0,'logLevel':'info','ipam':"
	  "{'type':'ippool','range':'192.0.2.0/24'}," D "}", VLAN(0, 0, ETH_P_8021Q), .ipam = "ippool" },
	/* log levels are log_init's: any case, unknown ones log at "error" */
	{ .what = "logLevel in another case or unknown", .json = H D ",'logLevel':'INFO'}" },
	{ .what = "logLevel unknown", .json = H D ",'logLevel':'a level longer than any level name'}" },
};

static void assert_meaning(const struct accept_case *c, const struct conf *conf)
{
	uint8_t mac[6];

	ck_assert_uint_eq(conf->vf_mask, c->mask);
	if (c->mask & VF_VLAN) {
		ck_assert_int_eq(conf->vf.vlan, c->vf.vlan);
		ck_assert_int_eq(conf->vf.qos, c->vf.qos);
		ck_assert_int_eq(conf->vf.vlan_proto, c->vf.vlan_proto);
	}
	if (c->mask & VF_SPOOFCHK)
		ck_assert_int_eq(conf->vf.spoofchk, c->vf.spoofchk);
	if (c->mask & VF_TRUST)
		ck_assert_int_eq(conf->vf.trust, c->vf.trust);
	if (c->mask & VF_LINK_STATE)
		ck_assert_int_eq(conf->vf.link_state, c->vf.link_state);
	if (c->mask & VF_RATE) {
		ck_assert_uint_eq(conf->vf.min_tx_rate, c->vf.min_tx_rate);
		ck_assert_uint_eq(conf->vf.max_tx_rate, c->vf.max_tx_rate);
	}
	ck_assert_int_eq(conf->has_mac, c->mac != NULL);
	if (c->mac) {
		ck_assert_int_eq(conf_parse_mac(c->mac, mac), 0);
		ck_assert_mem_eq(conf->mac, mac, 6);
		ck_assert_mem_eq(conf->vf.mac, mac, 6);
	}
	ck_assert_str_eq(conf->device_id, c->device ? c->device : DEV);
	ck_assert_int_eq(conf->is_aux, strchr(conf->device_id, ':') == NULL);
	ck_assert_int_eq(conf->has_ipam, c->ipam != NULL);
	ck_assert_str_eq(conf->ipam_type, c->ipam ? c->ipam : "");
}

START_TEST(accepts_as_sriov_cni)
{
	const struct accept_case *c = &accepts[_i];
	struct cni_args args = { 0 };
	struct cni_err err = { 0 };
	char *json = unit_dq(c->json);
	struct conf conf;

	if (c->args_mac)
		strcpy(args.mac, c->args_mac);
	ck_assert_msg(conf_parse(json, &args, ADD, &conf, &err) == 0, "%s: refused: %s", c->what,
		      err.msg);
	assert_meaning(c, &conf);
	ck_assert(conf.rdma);
	ck_assert_str_eq(conf.data_dir, CONF_DEFAULT_DATA_DIR);
	conf_release(&conf);
	free(json);
}
END_TEST

/* A refused config: the CNI code and what the message names (' for "). */
static const struct refuse_case {
	const char *what;
	const char *json;
	const char *args_mac;
	int code;
	const char *needle;
} refuse_cases[] = {
	/* deliberate differences: sriov-cni accepts these, with another meaning than meant */
	{ "spoofchk ON", H D ",'spoofchk':'ON'}", NULL, CNI_ERR_CONFIG,
	  "invalid spoofchk 'ON': want 'on' or 'off' in lower case (sriov-cni reads any other value as 'off')" },
	{ "spoofchk On", H D ",'spoofchk':'On'}", NULL, CNI_ERR_CONFIG, "invalid spoofchk 'On'" },
	{ "spoofchk OFF", H D ",'spoofchk':'OFF'}", NULL, CNI_ERR_CONFIG, "invalid spoofchk 'OFF'" },
	{ "trust ON", H D ",'trust':'ON'}", NULL, CNI_ERR_CONFIG, "invalid trust 'ON'" },
	{ "trust Off", H D ",'trust':'Off'}", NULL, CNI_ERR_CONFIG, "invalid trust 'Off'" },
	{ "trust yes", H D ",'trust':'yes'}", NULL, CNI_ERR_CONFIG, "invalid trust 'yes'" },
	{ "trust true", H D ",'trust':'true'}", NULL, CNI_ERR_CONFIG, "invalid trust 'true'" },
	{ "spoofchk 1", H D ",'spoofchk':'1'}", NULL, CNI_ERR_CONFIG, "invalid spoofchk '1'" },
	{ "min above max", H D ",'min_tx_rate':200,'max_tx_rate':100}", NULL, CNI_ERR_CONFIG,
	  "min_tx_rate 200 is above max_tx_rate 100" },
	{ "negative rate", H D ",'min_tx_rate':-5}", NULL, CNI_ERR_CONFIG,
	  "'min_tx_rate' value -5 is out of range [0, 4294967295]" },
	{ "rate past 32 bits", H D ",'max_tx_rate':4294967296}", NULL, CNI_ERR_CONFIG,
	  "'max_tx_rate' value 4294967296 is out of range" },
	{ "ipam settings without type", H D ",'ipam':{'subnet':'192.0.2.0/24'}}", NULL,
	  CNI_ERR_CONFIG, "ipam has 'subnet' but no type" },
	{ "ipam settings, type empty", H D ",'ipam':{'type':'','range':'192.0.2.0/24'}}", NULL,
	  CNI_ERR_CONFIG, "ipam has 'range' but no type" },

	/* sriov-cni refuses these too (at loading, or its ADD fails on them) */
	{ "vlan 4095", H D ",'vlan':4095}", NULL, CNI_ERR_CONFIG, "'vlan' value 4095 is out of range [0, 4094]" },
	{ "vlan -1", H D ",'vlan':-1}", NULL, CNI_ERR_CONFIG, "'vlan' value -1" },
	{ "vlan as a string", H D ",'vlan':'100'}", NULL, CNI_ERR_DECODE,
	  "'vlan' must be an integer, not '100'" },
	{ "vlan as a bool", H D ",'vlan':true}", NULL, CNI_ERR_DECODE, "'vlan' must be an integer, not true" },
	{ "vlan 0.5", H D ",'vlan':0.5}", NULL, CNI_ERR_DECODE, "'vlan' must be an integer, not 0.5" },
	{ "vlanQoS 8", H D ",'vlan':10,'vlanQoS':8}", NULL, CNI_ERR_CONFIG, "'vlanQoS' value 8" },
	{ "vlanQoS without vlan", H D ",'vlanQoS':0}", NULL, CNI_ERR_CONFIG,
	  "vlanQoS 0 is given without vlan" },
	{ "vlanProto without vlan", H D ",'vlanProto':'802.1q'}", NULL, CNI_ERR_CONFIG,
	  "vlanProto '802.1q' is given without vlan" },
	{ "vlanProto empty without vlan", H D ",'vlanProto':''}", NULL, CNI_ERR_CONFIG,
	  "vlanProto '' is given without vlan" },
	{ "vlanProto empty", H D ",'vlan':100,'vlanProto':''}", NULL, CNI_ERR_CONFIG,
	  "invalid vlanProto '': want '802.1q' or '802.1ad'" },
	{ "vlanProto qinq", H D ",'vlan':1,'vlanProto':'qinq'}", NULL, CNI_ERR_CONFIG, "invalid vlanProto 'qinq'" },
	{ "QoS on vlan 0", H D ",'vlan':0,'vlanQoS':3}", NULL, CNI_ERR_CONFIG,
	  "vlanQoS 3 needs a non-zero vlan" },
	{ "802.1ad on vlan 0", H D ",'vlan':0,'vlanProto':'802.1AD'}", NULL, CNI_ERR_CONFIG,
	  "vlanProto '802.1AD' needs a non-zero vlan" },
	{ "link_state up", H D ",'link_state':'up'}", NULL, CNI_ERR_CONFIG,
	  "invalid link_state 'up': want 'auto', 'enable' or 'disable'" },
	{ "link_state Enable", H D ",'link_state':'Enable'}", NULL, CNI_ERR_CONFIG, "invalid link_state 'Enable'" },
	{ "spoofchk as a bool", H D ",'spoofchk':true}", NULL, CNI_ERR_DECODE,
	  "'spoofchk' must be a string, not true" },
	{ "runtimeConfig an array", H D ",'runtimeConfig':[]}", NULL, CNI_ERR_DECODE,
	  "'runtimeConfig' must be an object, not an array" },
	{ "runtimeConfig a string", H D ",'runtimeConfig':'x'}", NULL, CNI_ERR_DECODE,
	  "'runtimeConfig' must be an object, not 'x'" },
	{ "runtimeConfig.mac a number", H D ",'runtimeConfig':{'mac':5}}", NULL, CNI_ERR_DECODE,
	  "runtimeConfig: config key 'mac' must be a string, not 5" },
	{ "a losing mac of the wrong type", H D ",'mac':5,'runtimeConfig':{'mac':'02:00:00:00:00:01'}}",
	  NULL, CNI_ERR_DECODE, "'mac' must be a string, not 5" },
	{ "mac bad", H D ",'mac':'zz:00:00:00:00:01'}", NULL, CNI_ERR_CONFIG,
	  "invalid mac 'zz:00:00:00:00:01': want a unicast MAC like 02:00:00:00:00:01" },
	{ "mac with dashes", H D ",'mac':'02-00-00-00-00-01'}", NULL, CNI_ERR_CONFIG,
	  "invalid mac '02-00-00-00-00-01'" },
	{ "mac multicast", H D ",'mac':'01:00:5e:00:00:01'}", NULL, CNI_ERR_CONFIG, "invalid mac '01:00:5e" },
	{ "mac zero", H D ",'mac':'00:00:00:00:00:00'}", NULL, CNI_ERR_CONFIG, "invalid mac '00:00:00:00:00:00'" },
	{ "MAC= bad", H D "}", "02:00:00:00:00", CNI_ERR_CONFIG, "invalid CNI_ARGS MAC '02:00:00:00:00'" },
	{ "runtimeConfig.mac bad over a good mac", H D ",'mac':'02:00:00:00:00:01',"
	  "'runtimeConfig':{'mac':'02:00:00:00:00:0'}}", NULL, CNI_ERR_CONFIG,
	  "invalid runtimeConfig.mac '02:00:00:00:00:0'" },
	{ "no deviceID", H "'vlan':1}", NULL, CNI_ERR_CONFIG, "no deviceID" },
	{ "deviceID empty", H "'deviceID':''}", NULL, CNI_ERR_CONFIG, "no deviceID" },
	{ "deviceID null", H "'deviceID':null}", NULL, CNI_ERR_CONFIG, "no deviceID" },
	{ "deviceID upper case", H "'deviceID':'0000:3B:00.2'}", NULL, CNI_ERR_CONFIG,
	  "invalid deviceID '0000:3B:00.2'" },
	{ "deviceID a path", H "'deviceID':'../../etc'}", NULL, CNI_ERR_CONFIG, "invalid deviceID '../../etc'" },
	{ "pciBusID bad", H "'pciBusID':'3b:00.2'}", NULL, CNI_ERR_CONFIG, "invalid pciBusID '3b:00.2'" },
	{ "runtimeConfig.deviceID bad", H D ",'runtimeConfig':{'deviceID':'x'}}", NULL, CNI_ERR_CONFIG,
	  "invalid runtimeConfig.deviceID 'x'" },
	{ "ipam a string", H D ",'ipam':'host-local'}", NULL, CNI_ERR_DECODE,
	  "'ipam' must be an object, not 'host-local'" },
	{ "ipam type a number", H D ",'ipam':{'type':5}}", NULL, CNI_ERR_DECODE, "ipam: config key 'type' must be a string, not 5" },
	{ "not json", "not json", NULL, CNI_ERR_DECODE, "not a JSON object" },
	{ "no cniVersion", "{'name':'n','type':'sriov-rdma'," D "}", NULL, CNI_ERR_VERSION, "cniVersion" },
	{ "cniVersion 9.9.9", "{'cniVersion':'9.9.9','name':'n'," D "}", NULL, CNI_ERR_VERSION, "9.9.9" },

	/* own keys */
	{ "rdma not a bool", H D ",'rdma':'yes'}", NULL, CNI_ERR_DECODE, "'rdma' must be true or false, not 'yes'" },
	{ "rdma and rdmaIsolation disagree", H D ",'rdma':false,'rdmaIsolation':true}", NULL,
	  CNI_ERR_CONFIG, "rdma false and rdmaIsolation true disagree" },
	{ "rdmaIsolation not a bool", H D ",'rdmaIsolation':'yes'}", NULL, CNI_ERR_DECODE,
	  "'rdmaIsolation' must be true or false" },

	/* ib-sriov-cni's keys (ibconf.c has their cases) */
	{ "guid all zeros", H D ",'guid':'00:00:00:00:00:00:00:00'}", NULL, CNI_ERR_CONFIG,
	  "invalid guid '00:00:00:00:00:00:00:00'" },
};

START_TEST(refuses)
{
	const struct refuse_case *c = &refuse_cases[_i];
	struct cni_args args = { 0 };
	struct cni_err err = { 0 };
	char *json = unit_dq(c->json), *needle = unit_dq(c->needle);
	struct conf conf;

	if (c->args_mac)
		strcpy(args.mac, c->args_mac);
	ck_assert_msg(conf_parse(json, &args, ADD, &conf, &err) < 0, "%s: accepted", c->what);
	ck_assert_msg(err.code == c->code, "%s: code %d, not %d (%s)", c->what, err.code, c->code,
		      err.msg);
	ck_assert_msg(strstr(err.msg, needle), "%s: message \"%s\" lacks \"%s\"", c->what, err.msg,
		      needle);
	free(needle);
	free(json);
}
END_TEST

/* Only ADD applies VF settings and the MAC: the other verbs do not read
 * them, so a network ADD refuses still gets its DEL (the pod's teardown). */
static const struct verb_case {
	const char *json;
	unsigned int need;
	int code;
} verbs[] = {
	{ H D ",'trust':'ON','vlanQoS':3,'mac':'x','min_tx_rate':-1}", CONF_DEVICE, 0 },
	{ H D ",'trust':'ON'}", CONF_DEVICE | CONF_VF, CNI_ERR_CONFIG },
	{ H "'rdma':true}", 0, 0 },
	{ H "'rdma':true}", CONF_DEVICE, CNI_ERR_CONFIG },
	{ H D ",'ipam':{'range':'192.0.2.0/24'}}", CONF_DEVICE, CNI_ERR_CONFIG },
	/* a GUID is ADD's and CHECK's: DEL goes through */
	{ H D ",'guid':'x'}", CONF_DEVICE, 0 },
	{ H D ",'guid':'x'}", CONF_DEVICE | CONF_IB, CNI_ERR_CONFIG },
};

START_TEST(verb_needs)
{
	const struct verb_case *c = &verbs[_i];
	struct cni_err err = { 0 };
	char *json = unit_dq(c->json);
	struct conf conf;
	int ret = conf_parse(json, NULL, c->need, &conf, &err);

	ck_assert_int_eq(err.code, c->code);
	if (ret == 0) {
		ck_assert_uint_eq(conf.vf_mask, 0);
		ck_assert(!conf.has_mac);
		conf_release(&conf);
	}
	free(json);
}
END_TEST

START_TEST(needs_per_verb)
{
	ck_assert_uint_eq(conf_needs(CNI_CMD_ADD), CONF_DEVICE | CONF_VF | CONF_IB);
	ck_assert_uint_eq(conf_needs(CNI_CMD_DEL), CONF_DEVICE);
	ck_assert_uint_eq(conf_needs(CNI_CMD_CHECK), CONF_DEVICE | CONF_IB);
	ck_assert_uint_eq(conf_needs(CNI_CMD_GC), 0);
	ck_assert_uint_eq(conf_needs(CNI_CMD_STATUS), 0);
}
END_TEST

START_TEST(own_keys)
{
	char *json = unit_dq(H D ",'rdma':false,'dataDir':'/var/lib/cni/x','logLevel':'debug',"
			     "'logFile':'/var/log/x.log'}");
	struct cni_err err = { 0 };
	struct conf conf;

	ck_assert_int_eq(conf_parse(json, NULL, ADD, &conf, &err), 0);
	ck_assert(!conf.rdma);
	ck_assert_str_eq(conf.data_dir, "/var/lib/cni/x");
	ck_assert_str_eq(conf.log_level, "debug");
	ck_assert_str_eq(conf.log_file, "/var/log/x.log");
	ck_assert_int_eq(conf.net.version, CNI_V100);
	conf_release(&conf);
	free(json);
}
END_TEST

/* ib-sriov-cni's rdmaIsolation says whether the RDMA device moves, as rdma
 * does, in every verb; neither given leaves the choice to the link layer. */
static const struct rdma_case {
	const char *keys;
	bool rdma;
	const char *key;		/* the key that said it, NULL none */
} rdma_cases[] = {
	{ "", true, NULL },
	{ ",'rdma':false", false, "rdma" },
	{ ",'rdma':true", true, "rdma" },
	{ ",'rdmaIsolation':false", false, "rdmaIsolation" },
	{ ",'rdmaIsolation':true", true, "rdmaIsolation" },
	{ ",'RDMAISOLATION':false", false, "rdmaIsolation" },
	{ ",'rdma':true,'rdmaIsolation':true", true, "rdmaIsolation" },
	{ ",'rdmaIsolation':null", true, NULL },
};

START_TEST(rdma_isolation)
{
	char doc[256], *json;
	struct cni_err err = { 0 };
	struct conf conf;

	snprintf(doc, sizeof(doc), H D "%s}", rdma_cases[_i].keys);
	json = unit_dq(doc);
	ck_assert_int_eq(conf_parse(json, NULL, CONF_DEVICE, &conf, &err), 0);
	ck_assert_int_eq(conf.rdma, rdma_cases[_i].rdma);
	ck_assert_pstr_eq(conf.rdma_key, rdma_cases[_i].key);
	conf_release(&conf);
	free(json);
}
END_TEST

static const struct {
	const char *s;
	const char *want;	/* NULL: refused */
} macs[] = {
	{ "0a:1B:2c:3D:4e:5F", "\x0a\x1b\x2c\x3d\x4e\x5f" },
	{ "ff:ff:ff:ff:ff:ff", "\xff\xff\xff\xff\xff\xff" },
	{ "0a:1b:2c:3d:4e:5f:00", NULL },
	{ "0a:1b:2c:3d:4e", NULL },
	{ "0a:1b:2c:3d:4e:5", NULL },
	{ "0a-1b-2c-3d-4e-5f", NULL },
	{ "0a1b.2c3d.4e5f", NULL },
	{ "a:1b:2c:3d:4e:5f:", NULL },
	{ " a:1b:2c:3d:4e:5f", NULL },
	{ "-1:1b:2c:3d:4e:5f", NULL },
	{ "+a:1b:2c:3d:4e:5f", NULL },
	{ "0x:1b:2c:3d:4e:5f", NULL },
	{ "0g:1b:2c:3d:4e:5f", NULL },
	{ "", NULL },
};

START_TEST(mac_parse)
{
	uint8_t mac[6];
	int ret = conf_parse_mac(macs[_i].s, mac);

	if (macs[_i].want) {
		ck_assert_int_eq(ret, 0);
		ck_assert_mem_eq(mac, macs[_i].want, 6);
	} else {
		ck_assert_int_eq(ret, -EINVAL);
	}
}
END_TEST

/* runtimeConfig.CNIDeviceInfoFile: a file beneath the spec's directory
 * ("//" and "." count for nothing, as confpath has it), no ".."; anything
 * else is refused (code 7) in every verb. */
#define DI "/var/run/k8s.cni.cncf.io/devinfo/"
static const struct {
	const char *path;
	bool ok;
} devinfo_files[] = {
	{ DI "cni/rdma-net-3f2a-net1-device.json", true },
	{ DI "x.json", true },
	{ DI "cni/a/b/c.json", true },
	{ DI "..data.json", true },
	{ DI "cni/.x", true },
	{ "", true },		/* not given */
	{ DI "cni//x.json", true },
	{ DI "cni/./x.json", true },
	{ "/var/run//k8s.cni.cncf.io/devinfo/cni/x.json", true },
	{ DI, false },
	{ DI "cni/", false },
	{ DI "../x.json", false },
	{ DI "cni/../../x.json", false },
	{ DI "cni/../x.json", false },
	{ DI ".", false },
	{ DI "./", false },
	{ DI "cni/..", false },
	{ "/var/run/k8s.cni.cncf.io/devinfo", false },
	{ "/var/run/k8s.cni.cncf.io/devinfox/x.json", false },
	{ "/run/k8s.cni.cncf.io/devinfo/cni/x.json", false },
	{ "/etc/passwd", false },
	{ "/var/lib/cni/x.json", false },
	{ "var/run/k8s.cni.cncf.io/devinfo/cni/x.json", false },
	{ "cni/x.json", false },
};

START_TEST(devinfo_file)
{
	char doc[512], *json;
	struct cni_err err = { 0 };
	struct conf conf;
	int ret;

	snprintf(doc, sizeof(doc), H D ",'runtimeConfig':{'CNIDeviceInfoFile':'%s'}}",
		 devinfo_files[_i].path);
	json = unit_dq(doc);
	for (unsigned int need = 0; need <= ADD; need += ADD) {
		memset(&err, 0, sizeof(err));
		ret = conf_parse(json, NULL, need, &conf, &err);
		if (devinfo_files[_i].ok) {
			ck_assert_msg(ret == 0, "%s: refused: %s", devinfo_files[_i].path, err.msg);
			ck_assert_str_eq(conf.devinfo_file, devinfo_files[_i].path);
			conf_release(&conf);
			continue;
		}
		ck_assert_msg(ret < 0, "%s: accepted", devinfo_files[_i].path);
		ck_assert_int_eq(err.code, CNI_ERR_CONFIG);
		snprintf(doc, sizeof(doc), "runtimeConfig.CNIDeviceInfoFile \"%s\" is not a file "
			 "under " DI, devinfo_files[_i].path);
		ck_assert_str_eq(err.msg, doc);
	}
	free(json);
}
END_TEST

START_TEST(devinfo_file_types)
{
	char *json = unit_dq(H D ",'runtimeConfig':{'CNIDeviceInfoFile':7}}");
	struct cni_err err = { 0 };
	struct conf conf;

	ck_assert_int_lt(conf_parse(json, NULL, ADD, &conf, &err), 0);
	ck_assert_int_eq(err.code, CNI_ERR_DECODE);
	ck_assert_msg(strstr(err.msg, "runtimeConfig") && strstr(err.msg, "CNIDeviceInfoFile"),
		      "%s", err.msg);
	free(json);
	json = unit_dq(H D ",'runtimeConfig':{'cnideviceinfofile':'" DI "x.json'}}");
	ck_assert_int_eq(conf_parse(json, NULL, ADD, &conf, &err), 0);
	ck_assert_str_eq(conf.devinfo_file, DI "x.json");
	conf_release(&conf);
	free(json);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, accepts_as_sriov_cni, 0, N(accepts));
	tcase_add_loop_test(tc, refuses, 0, N(refuse_cases));
	tcase_add_loop_test(tc, verb_needs, 0, N(verbs));
	tcase_add_test(tc, needs_per_verb);
	tcase_add_test(tc, own_keys);
	tcase_add_loop_test(tc, rdma_isolation, 0, N(rdma_cases));
	tcase_add_loop_test(tc, mac_parse, 0, N(macs));
	tcase_add_loop_test(tc, devinfo_file, 0, N(devinfo_files));
	tcase_add_test(tc, devinfo_file_types);
}

int main(void)
{
	return unit_run("conf", add_tests);
}
