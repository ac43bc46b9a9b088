// SPDX-License-Identifier: Apache-2.0
/* Unit tests for record.c: state files and lock holder lines read back strictly, an earlier version's state taken, the VF alias. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "record.h"
#include "unit.h"

/* What ADD writes for a VF with a VLAN, as JSON with ' for ". */
#define STATE_TAIL "'containerID':'c1','ifname':'net1','netns':'/run/netns/p'," \
	"'deviceID':'0000:3b:00.2','hostIfname':'ens8f0v0','hostAlias':'','hostMac':'02:00:00:00:00:01'," \
	"'hostUp':true,'chained':false,'vfIndex':0,'vfChanged':2,'vfMac':'00:00:00:00:00:00'," \
	"'vfVlan':0,'vfQos':0,'vfVlanProto':33024,'vfSpoofchk':1,'vfTrust':0,'vfLinkState':0," \
	"'vfMinTxRate':0,'vfMaxTxRate':0,'hasRdma':true,'rdmaName':'mlx5_1'"
#define STATE_HEAD "{'network':'rail1'," STATE_TAIL
#define STATE STATE_HEAD ",'rdmaIndex':2}"
/* An InfiniBand VF's: the GUIDs it had (the node GUID's low byte is 0) and the one set. */
#define STATE_IB STATE_HEAD ",'rdmaIndex':2,'ib':true,'ibNodeGuid':'00:02:c9:03:00:21:6e:00'," \
	"'ibPortGuid':'00:02:c9:03:00:21:6e:71','ibGuid':'02:00:00:00:00:00:00:01','ibDriver':'mlx5_core'}"
/* With the request this version's ADD saves for reconcile. */
#define REQ_NS "'netnsDev':4,'netnsIno':4026532000,'bootId':'0f0e0d0c-0b0a-4908-8706-050403020100'," \
	"'created':1764892800"
#define REQ_CONF "'conf':'{\\'cniVersion\\':\\'1.1.0\\',\\'name\\':\\'rail1\\'}'"
#define REQ_ENV "'cniArgs':'IgnoreUnknown=true;K8S_POD_NAME=p','cniPath':'/opt/cni/bin'"
#define STATE_REQ STATE_HEAD ",'rdmaIndex':2," REQ_NS "," REQ_CONF "," REQ_ENV "}"
/* One whose GUIDs were all zeros before ADD: they are left out, and known. */
#define STATE_IB_ZERO STATE_HEAD ",'rdmaIndex':2,'ib':true,'ibGuid':'02:00:00:00:00:00:00:01'," \
	"'ibDriver':'mlx5_core'}"

struct state_case {
	const char *name;
	const char *text;	/* ' for " */
	int ret;
	const char *network;	/* when taken */
};

static const struct state_case state_cases[] = {
	{ "what ADD writes", STATE, 0, "rail1" },
	{ "an earlier version's: no network", "{'containerID':'c1','ifname':'net1','netns':'',"
	  "'deviceID':'0000:3b:00.2','hostIfname':'ens8f0v0','hostAlias':'','hostMac':'02:00:00:00:00:01',"
	  "'hostUp':true,'chained':false,'vfIndex':0,'vfChanged':2,'vfMac':'00:00:00:00:00:00',"
	  "'vfVlan':0,'vfQos':0,'vfVlanProto':33024,'vfSpoofchk':1,'vfTrust':0,'vfLinkState':0,"
	  "'vfMinTxRate':0,'vfMaxTxRate':0,'hasRdma':true,'rdmaName':'mlx5_1','rdmaIndex':2}", 0, "" },
	{ "an InfiniBand VF's", STATE_IB, 0, "rail1" },
	{ "an InfiniBand VF's whose GUIDs were all zeros", STATE_IB_ZERO, 0, "rail1" },
	{ "a GUID that is no GUID", STATE_HEAD ",'rdmaIndex':2,'ib':true,'ibGuid':'02:00'}", -EBADMSG,
	  NULL },
	{ "a GUID as a number", STATE_HEAD ",'rdmaIndex':2,'ib':true,'ibGuid':1}", -EBADMSG, NULL },
	{ "with the request for reconcile", STATE_REQ, 0, "rail1" },
	{ "the request without CNI_ARGS and CNI_PATH", STATE_HEAD ",'rdmaIndex':2," REQ_NS ","
	  REQ_CONF "}", 0, "rail1" },
	{ "the request without its config", STATE_HEAD ",'rdmaIndex':2," REQ_NS "}", -EBADMSG, NULL },
	{ "the request without its netns identity", STATE_HEAD ",'rdmaIndex':2," REQ_CONF "}",
	  -EBADMSG, NULL },
	{ "the request without a netns path", "{'containerID':'c1','ifname':'net1','netns':'',"
	  "'deviceID':'0000:3b:00.2','hostIfname':'ens8f0v0','hostAlias':'','hostMac':'02:00:00:00:00:01',"
	  "'hostUp':true,'chained':false,'vfIndex':0,'vfChanged':2,'vfMac':'00:00:00:00:00:00',"
	  "'vfVlan':0,'vfQos':0,'vfVlanProto':33024,'vfSpoofchk':1,'vfTrust':0,'vfLinkState':0,"
	  "'vfMinTxRate':0,'vfMaxTxRate':0,'hasRdma':true,'rdmaName':'mlx5_1','rdmaIndex':2,"
	  REQ_NS "," REQ_CONF "}", -EBADMSG, NULL },
	{ "a boot id that is none", STATE_HEAD ",'rdmaIndex':2,'netnsIno':5,'bootId':'../x',"
	  "'created':1," REQ_CONF "}", -EBADMSG, NULL },
	{ "an inode past 2^53", STATE_HEAD ",'rdmaIndex':2,'netnsIno':1e17,"
	  "'bootId':'0f0e0d0c-0b0a-4908-8706-050403020100','created':1," REQ_CONF "}", -EBADMSG, NULL },
	{ "a negative created time", STATE_HEAD ",'rdmaIndex':2,'netnsIno':5,"
	  "'bootId':'0f0e0d0c-0b0a-4908-8706-050403020100','created':-1," REQ_CONF "}", -EBADMSG, NULL },
	{ "a config that is no object", STATE_HEAD ",'rdmaIndex':2," REQ_NS ",'conf':'[1]'}",
	  -EBADMSG, NULL },
	{ "a config that is no JSON", STATE_HEAD ",'rdmaIndex':2," REQ_NS ",'conf':'{x'}",
	  -EBADMSG, NULL },
	{ "a control byte in the config", STATE_HEAD ",'rdmaIndex':2," REQ_NS
	  ",'conf':'{\\'a\\':\\'\\u0001\\'}'}", -EBADMSG, NULL },
	{ "a newline in CNI_ARGS", STATE_HEAD ",'rdmaIndex':2," REQ_NS "," REQ_CONF
	  ",'cniArgs':'a=b\\n'}", -EBADMSG, NULL },
	{ "CNI_PATH as a number", STATE_HEAD ",'rdmaIndex':2," REQ_NS "," REQ_CONF ",'cniPath':1}",
	  -EBADMSG, NULL },
	{ "a later version's key is left alone", STATE_HEAD ",'rdmaIndex':2,'newKey':[1]}", 0, "rail1" },
	{ "empty", "", -EBADMSG, NULL },
	{ "cut", STATE_HEAD, -EBADMSG, NULL },
	{ "not an object", "[1]", -EBADMSG, NULL },
	{ "a field missing", STATE_HEAD "}", -EBADMSG, NULL },
	{ "bytes after the object", STATE " x", -EBADMSG, NULL },
	{ "a number as a string", STATE_HEAD ",'rdmaIndex':'2'}", -EBADMSG, NULL },
	{ "a fraction", STATE_HEAD ",'rdmaIndex':2.5}", -EBADMSG, NULL },
	{ "past u32", STATE_HEAD ",'rdmaIndex':4294967296}", -EBADMSG, NULL },
	{ "negative u32", STATE_HEAD ",'rdmaIndex':-1}", -EBADMSG, NULL },
	{ "1e300", STATE_HEAD ",'rdmaIndex':1e300}", -EBADMSG, NULL },
	{ "an invalid network", "{'network':'../x'," STATE_TAIL ",'rdmaIndex':2}", -EBADMSG, NULL },
	{ "an empty network", "{'network':''," STATE_TAIL ",'rdmaIndex':2}", -EBADMSG, NULL },
	{ "an invalid containerID", "{'containerID':'../c','ifname':'net1','netns':'',"
	  "'deviceID':'0000:3b:00.2','hostIfname':'ens8f0v0','hostAlias':'','hostMac':'02:00:00:00:00:01',"
	  "'hostUp':true,'chained':false,'vfIndex':0,'vfChanged':2,'vfMac':'00:00:00:00:00:00',"
	  "'vfVlan':0,'vfQos':0,'vfVlanProto':33024,'vfSpoofchk':1,'vfTrust':0,'vfLinkState':0,"
	  "'vfMinTxRate':0,'vfMaxTxRate':0,'hasRdma':true,'rdmaName':'mlx5_1','rdmaIndex':2}",
	  -EBADMSG, NULL },
	{ "a deviceID that is no device", "{'containerID':'c1','ifname':'net1','netns':'',"
	  "'deviceID':'../../x','hostIfname':'ens8f0v0','hostAlias':'','hostMac':'02:00:00:00:00:01',"
	  "'hostUp':true,'chained':false,'vfIndex':0,'vfChanged':2,'vfMac':'00:00:00:00:00:00',"
	  "'vfVlan':0,'vfQos':0,'vfVlanProto':33024,'vfSpoofchk':1,'vfTrust':0,'vfLinkState':0,"
	  "'vfMinTxRate':0,'vfMaxTxRate':0,'hasRdma':true,'rdmaName':'mlx5_1','rdmaIndex':2}",
	  -EBADMSG, NULL },
	{ "a sub-function's: no VF index", "{'containerID':'c1','ifname':'net1','netns':'',"
	  "'deviceID':'mlx5_core.sf.4','hostIfname':'enp3s0f0s4','hostAlias':'','hostMac':'02:00:00:00:00:01',"
	  "'hostUp':true,'chained':false,'vfIndex':-1,'vfChanged':0,'vfMac':'00:00:00:00:00:00',"
	  "'vfVlan':0,'vfQos':0,'vfVlanProto':33024,'vfSpoofchk':1,'vfTrust':0,'vfLinkState':0,"
	  "'vfMinTxRate':0,'vfMaxTxRate':0,'hasRdma':true,'rdmaName':'mlx5_1','rdmaIndex':2}", 0, "" },
	{ "a sub-function's VF index below -1", "{'containerID':'c1','ifname':'net1','netns':'',"
	  "'deviceID':'mlx5_core.sf.4','hostIfname':'enp3s0f0s4','hostAlias':'','hostMac':'02:00:00:00:00:01',"
	  "'hostUp':true,'chained':false,'vfIndex':-2,'vfChanged':0,'vfMac':'00:00:00:00:00:00',"
	  "'vfVlan':0,'vfQos':0,'vfVlanProto':33024,'vfSpoofchk':1,'vfTrust':0,'vfLinkState':0,"
	  "'vfMinTxRate':0,'vfMaxTxRate':0,'hasRdma':true,'rdmaName':'mlx5_1','rdmaIndex':2}",
	  -EBADMSG, NULL },
	{ "a negative VF index", "{'containerID':'c1','ifname':'net1','netns':'',"
	  "'deviceID':'0000:3b:00.2','hostIfname':'ens8f0v0','hostAlias':'','hostMac':'02:00:00:00:00:01',"
	  "'hostUp':true,'chained':false,'vfIndex':-1,'vfChanged':2,'vfMac':'00:00:00:00:00:00',"
	  "'vfVlan':0,'vfQos':0,'vfVlanProto':33024,'vfSpoofchk':1,'vfTrust':0,'vfLinkState':0,"
	  "'vfMinTxRate':0,'vfMaxTxRate':0,'hasRdma':true,'rdmaName':'mlx5_1','rdmaIndex':2}",
	  -EBADMSG, NULL },
};

START_TEST(test_state)
{
	const struct state_case *c = &state_cases[_i];
	char *text = unit_dq(c->text);
	struct record_state *s = calloc(1, sizeof(*s));
	int ret;

	ck_assert_ptr_nonnull(s);
	snprintf(s->network, sizeof(s->network), "untouched");
	ret = record_state_decode(text, strlen(text), s);
	ck_assert_msg(ret == c->ret, "%s: got %d, want %d", c->name, ret, c->ret);
	if (ret == 0) {
		ck_assert_str_eq(s->network, c->network);
		ck_assert_str_eq(s->containerid, "c1");
		ck_assert_str_eq(s->device_id, strstr(c->text, "sf.4") ? "mlx5_core.sf.4" : "0000:3b:00.2");
		ck_assert_uint_eq(s->rdma_index, 2);
		ck_assert_int_eq(s->vf_orig.vlan_proto, 33024);
		ck_assert_uint_eq(s->ib_node_guid, strstr(c->text, "ibNodeGuid") ?
				  0x0002c90300216e00ULL : 0);
		ck_assert_uint_eq(s->ib_port_guid, strstr(c->text, "ibPortGuid") ?
				  0x0002c90300216e71ULL : 0);
		ck_assert_uint_eq(s->ib_guid, strstr(c->text, "ibGuid") ? 0x0200000000000001ULL : 0);
		ck_assert_int_eq(s->ib, strstr(c->text, "'ib'") != NULL);
		ck_assert_int_eq(record_state_has_request(s), strstr(c->text, "'conf'") != NULL);
		if (record_state_has_request(s)) {
			ck_assert_uint_eq(s->ns.ino, 4026532000ULL);
			ck_assert_uint_eq(s->ns.dev, 4);
			ck_assert_str_eq(s->ns.boot, "0f0e0d0c-0b0a-4908-8706-050403020100");
			ck_assert_uint_eq(s->created, 1764892800);
			ck_assert_str_eq(s->conf, "{\"cniVersion\":\"1.1.0\",\"name\":\"rail1\"}");
			ck_assert_str_eq(s->cni_path, strstr(c->text, "cniPath") ? "/opt/cni/bin" : "");
		}
	} else {
		ck_assert_str_eq(s->network, "untouched");
	}
	free(s);
	free(text);
}
END_TEST

/* What ADD writes reads back the same, an earlier version's stays one. */
START_TEST(test_state_round_trip)
{
	const char *texts[] = { STATE, state_cases[1].text, STATE_IB, STATE_IB_ZERO, STATE_REQ };
	char *text = unit_dq(texts[_i]), *out;
	struct record_state *s = calloc(1, sizeof(*s));

	ck_assert_int_eq(record_state_decode(text, strlen(text), s), 0);
	out = record_state_encode(s);
	ck_assert_str_eq(out, text);
	free(out);
	free(s);
	free(text);
}
END_TEST

START_TEST(state_embedded_nul)
{
	char *text = unit_dq(STATE);
	struct record_state *s = calloc(1, sizeof(*s));

	ck_assert_int_eq(record_state_decode(text, strlen(text) + 1, s), -EBADMSG);
	free(s);
	free(text);
}
END_TEST

struct request_case {
	const char *name;
	const char *conf;
	size_t len;		/* 0: strlen(conf) */
	const char *args, *path, *netns, *boot;
	uint64_t ino;
	int ret;
};

#define BOOT "0f0e0d0c-0b0a-4908-8706-050403020100"

static const struct request_case request_cases[] = {
	{ "a request", "{\"name\":\"n\"}", 0, "K8S_POD_NAME=p", "/opt/cni/bin", "/run/netns/p",
	  BOOT, 9, 0 },
	{ "no CNI_ARGS", "{\"name\":\"n\"}", 0, NULL, "/opt/cni/bin", "/run/netns/p", BOOT, 9, 0 },
	{ "a config on lines", "{\n\t\"name\": \"n\"\r\n}", 0, NULL, NULL, "/run/netns/p", BOOT, 9,
	  0 },
	{ "UTF-8 in the config", "{\"name\":\"n\",\"note\":\"r\xc3\xa9seau\"}", 0, NULL, NULL,
	  "/run/netns/p", BOOT, 9, 0 },
	{ "a DEL byte in CNI_PATH", "{}", 0, NULL, "/opt\x7f", "/run/netns/p", BOOT, 9, -EINVAL },
	{ "a control byte in the config", "{\"name\":\"\x01\"}", 0, NULL, NULL, "/run/netns/p",
	  BOOT, 9, -EINVAL },
	{ "a NUL in the config", "{}\0x", 4, NULL, NULL, "/run/netns/p", BOOT, 9, -EINVAL },
	{ "a config that is no object", "[1]", 0, NULL, NULL, "/run/netns/p", BOOT, 9, -EINVAL },
	{ "a newline in CNI_ARGS", "{}", 0, "a=b\n", NULL, "/run/netns/p", BOOT, 9, -EINVAL },
	{ "no netns path", "{}", 0, NULL, NULL, "", BOOT, 9, -EINVAL },
	{ "no inode", "{}", 0, NULL, NULL, "/run/netns/p", BOOT, 0, -EINVAL },
	{ "no boot id", "{}", 0, NULL, NULL, "/run/netns/p", "", 9, -EINVAL },
	{ "an inode past 2^53", "{}", 0, NULL, NULL, "/run/netns/p", BOOT, 1ULL << 60, -EINVAL },
};

/* A request taken is one the decoder takes back; one refused leaves none. */
START_TEST(test_request)
{
	const struct request_case *c = &request_cases[_i];
	struct record_state *s = calloc(1, sizeof(*s)), *back = calloc(1, sizeof(*back));
	struct nsident ns = { .dev = 4, .ino = c->ino };
	char *text = unit_dq(STATE), *out;
	int ret;

	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_nonnull(back);
	snprintf(ns.boot, sizeof(ns.boot), "%s", c->boot);
	ck_assert_int_eq(record_state_decode(text, strlen(text), s), 0);
	snprintf(s->netns, sizeof(s->netns), "%s", c->netns);
	ret = record_state_set_request(s, &ns, 1764892800, c->conf, c->len ? c->len : strlen(c->conf),
				       c->args, c->path);
	ck_assert_msg(ret == c->ret, "%s: got %d, want %d", c->name, ret, c->ret);
	ck_assert_int_eq(record_state_has_request(s), ret == 0);
	out = record_state_encode(s);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(record_state_decode(out, strlen(out), back), 0);
	ck_assert_int_eq(record_state_has_request(back), ret == 0);
	if (ret == 0) {
		ck_assert_str_eq(back->conf, c->conf);
		ck_assert_str_eq(back->cni_args, c->args ? c->args : "");
		ck_assert_uint_eq(back->ns.ino, c->ino);
	}
	free(out);
	free(text);
	free(back);
	free(s);
}
END_TEST

/* {"a":"\"\"...\""}: 8 + 2 * quotes bytes, each backslash and quote
 * escaped once more in the state file (malloc'd). */
static char *quoted_conf(size_t quotes)
{
	char *conf = malloc(8 + 2 * quotes + 1), *p = conf;

	ck_assert_ptr_nonnull(conf);
	p = stpcpy(p, "{\"a\":\"");
	for (size_t i = 0; i < quotes; i++)
		p = stpcpy(p, "\\\"");
	strcpy(p, "\"}");
	return conf;
}

/* A config of RECORD_CONF_MAX bytes is not saved; one just below is, and
 * its state file, every byte escaped, is within RECORD_STATE_MAX. */
START_TEST(request_bounds)
{
	struct record_state *s = calloc(1, sizeof(*s)), *back = calloc(1, sizeof(*back));
	struct nsident ns = { .dev = 4, .ino = 9, .boot = BOOT };
	char *text = unit_dq(STATE), *big = quoted_conf((RECORD_CONF_MAX - 8) / 2);
	char *fits = quoted_conf((RECORD_CONF_MAX - 8) / 2 - 1), *out;

	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_nonnull(back);
	ck_assert_uint_eq(strlen(big), RECORD_CONF_MAX);
	ck_assert_int_eq(record_state_decode(text, strlen(text), s), 0);
	ck_assert_int_eq(record_state_set_request(s, &ns, 1, big, strlen(big), NULL, NULL), -E2BIG);
	ck_assert(!record_state_has_request(s));
	ck_assert_int_eq(record_state_set_request(s, &ns, 1, fits, strlen(fits), NULL, NULL), 0);
	out = record_state_encode(s);
	ck_assert_ptr_nonnull(out);
	ck_assert_uint_le(strlen(out), RECORD_STATE_MAX);
	ck_assert_int_eq(record_state_decode(out, strlen(out), back), 0);
	ck_assert_str_eq(back->conf, fits);
	free(out);
	free(fits);
	free(big);
	free(text);
	free(back);
	free(s);
}
END_TEST

struct holder_case {
	const char *text;
	int ret;
	const char *dir, *containerid, *ifname;
};

static const struct holder_case holder_cases[] = {
	{ "/var/lib/cni/sriov-rdma/c1:net1.json", 0, "/var/lib/cni/sriov-rdma", "c1", "net1" },
	{ "/s/ab-c.d_e:eth.json.json", 0, "/s", "ab-c.d_e", "eth.json" },
	{ "", 0, "", "", "" },
	{ "c1:net1.json", -EBADMSG, NULL, NULL, NULL },			/* an earlier version's */
	{ "/var/lib/c1:net1.json\n", -EBADMSG, NULL, NULL, NULL },
	{ "/var/../etc/c1:net1.json", -EBADMSG, NULL, NULL, NULL },
	{ "/var/./x/c1:net1.json", -EBADMSG, NULL, NULL, NULL },
	{ "/var//x/c1:net1.json", -EBADMSG, NULL, NULL, NULL },
	{ "/var/x/c1:net1.lock", -EBADMSG, NULL, NULL, NULL },
	{ "/var/x/../c1:net1.json", -EBADMSG, NULL, NULL, NULL },
	{ "/var/x/c1:net/1.json", -EBADMSG, NULL, NULL, NULL },
	{ "/var/x y/c1:net1.json", -EBADMSG, NULL, NULL, NULL },
	{ "/var/x/-c:net1.json", -EBADMSG, NULL, NULL, NULL },
	{ "/var/x/c1:abcdefghijklmnop.json", -EBADMSG, NULL, NULL, NULL },
	{ "/c1:net1.json", -EBADMSG, NULL, NULL, NULL },		/* "/" is no dataDir */
};

START_TEST(test_holder)
{
	const struct holder_case *c = &holder_cases[_i];
	char line[RECORD_HOLDER_MAX];
	struct record_holder h;
	int ret = record_holder_parse(c->text, strlen(c->text), &h);

	ck_assert_msg(ret == c->ret, "\"%s\": got %d, want %d", c->text, ret, c->ret);
	if (ret < 0) {
		ck_assert_str_eq(h.dir, "");
		return;
	}
	ck_assert_str_eq(h.dir, c->dir);
	ck_assert_str_eq(h.containerid, c->containerid);
	ck_assert_str_eq(h.ifname, c->ifname);
	if (!h.dir[0])
		return;
	ck_assert_int_eq(record_holder_format(h.dir, h.containerid, h.ifname, line), 0);
	ck_assert_str_eq(line, c->text);
}
END_TEST

START_TEST(holder_nul_and_length)
{
	static const char with_nul[] = "/s/c1:net1.json\0x";
	char big[RECORD_HOLDER_MAX + 2];
	struct record_holder h;

	ck_assert_int_eq(record_holder_parse(with_nul, sizeof(with_nul) - 1, &h), -EBADMSG);
	memset(big, 'a', sizeof(big) - 1);
	big[0] = '/';
	big[sizeof(big) - 1] = '\0';
	ck_assert_int_eq(record_holder_parse(big, strlen(big), &h), -EBADMSG);
	ck_assert_int_eq(record_holder_format("rel/dir", "c1", "net1", big), -EINVAL);
}
END_TEST

START_TEST(holder_is)
{
	struct record_holder h;

	ck_assert_int_eq(record_holder_parse("/s/c1:net1.json", 15, &h), 0);
	ck_assert(record_holder_is(&h, "/s", "c1", "net1"));
	ck_assert(!record_holder_is(&h, "/t", "c1", "net1"));
	ck_assert(!record_holder_is(&h, "/s", "c2", "net1"));
	ck_assert(!record_holder_is(&h, "/s", "c1", "net2"));
}
END_TEST

struct alias_case {
	const char *alias;
	int ret;
	const char *host_ifname, *containerid;
};

static const struct alias_case alias_cases[] = {
	{ "sriov-rdma:ens8f0v2:c1", 0, "ens8f0v2", "c1" },
	{ "sriov-rdma:ib0:ab-c.d_e", 0, "ib0", "ab-c.d_e" },
	{ "sriov-rdma:ens8f0v2:", -EINVAL, NULL, NULL },		/* no containerID */
	{ "sriov-rdma::c1", -EINVAL, NULL, NULL },			/* no host name */
	{ "sriov-rdma:abcdefghijklmnop:c1", -EINVAL, NULL, NULL },	/* past IFNAMSIZ */
	{ "sriov-rdma:ens8f0v2:../c1", -EINVAL, NULL, NULL },
	{ "sriov-cni:ens8f0v2:c1", -EINVAL, NULL, NULL },		/* not ours */
	{ "", -EINVAL, NULL, NULL },
};

START_TEST(test_alias)
{
	const struct alias_case *c = &alias_cases[_i];
	char host_ifname[IFNAMSIZ], cid[NETCONF_NAME_MAX], out[LINK_ALIAS_MAX];
	struct record_state s = { 0 };
	int ret = record_alias_parse(c->alias, host_ifname, cid, sizeof(cid));

	ck_assert_msg(ret == c->ret, "\"%s\": got %d, want %d", c->alias, ret, c->ret);
	if (ret < 0)
		return;
	ck_assert_str_eq(host_ifname, c->host_ifname);
	ck_assert_str_eq(cid, c->containerid);
	snprintf(s.host_ifname, sizeof(s.host_ifname), "%s", host_ifname);
	snprintf(s.containerid, sizeof(s.containerid), "%s", cid);
	ck_assert_int_eq(record_alias(&s, out), 0);
	ck_assert_str_eq(out, c->alias);
}
END_TEST

/* A containerID too long for IFALIASZ makes no alias. */
START_TEST(alias_too_long)
{
	struct record_state s = { 0 };
	char out[LINK_ALIAS_MAX];

	snprintf(s.host_ifname, sizeof(s.host_ifname), "ens8f0v2");
	memset(s.containerid, 'c', 250);
	ck_assert_int_eq(record_alias(&s, out), -ENAMETOOLONG);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_state, 0, sizeof(state_cases) / sizeof(state_cases[0]));
	tcase_add_loop_test(tc, test_state_round_trip, 0, 5);
	tcase_add_loop_test(tc, test_request, 0, sizeof(request_cases) / sizeof(request_cases[0]));
	tcase_add_test(tc, state_embedded_nul);
	tcase_add_test(tc, request_bounds);
	tcase_add_loop_test(tc, test_holder, 0, sizeof(holder_cases) / sizeof(holder_cases[0]));
	tcase_add_test(tc, holder_nul_and_length);
	tcase_add_test(tc, holder_is);
	tcase_add_loop_test(tc, test_alias, 0, sizeof(alias_cases) / sizeof(alias_cases[0]));
	tcase_add_test(tc, alias_too_long);
}

int main(void)
{
	return unit_run("record", add_tests);
}
