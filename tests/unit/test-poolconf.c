// SPDX-License-Identifier: Apache-2.0
/* Unit tests for ipam/ippool/poolconf.c: whereabouts keys, the file fallback, requests, the result. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "poolconf.h"
#include "ipaddr.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct pool_conf conf;

/* Tables use ' for " to stay readable. */
static cJSON *parse(const char *s)
{
	char buf[4096];
	size_t i;

	for (i = 0; s[i] && i + 1 < sizeof(buf); i++)
		buf[i] = s[i] == '\'' ? '"' : s[i];
	buf[i] = '\0';
	return cJSON_Parse(buf);
}

static const struct {
	const char *ipam, *file;
	int code;		/* 0 = parses */
	const char *check;	/* "pool|pool|..." of the ranges, or the error substring */
} parses[] = {
	{ "{'range':'192.0.2.0/24'}", NULL, 0, "192.0.2.0/24" },
	{ "{'range':'192.0.2.0/24','ipRanges':[{'range':'2001:db8::/64'}]}", NULL, 0, "192.0.2.0/24|2001:db8::/64" },
	{ "{'ipRanges':[{'range':'192.0.2.0/24'},{'range':'2001:db8::/64'}]}", NULL, 0, "192.0.2.0/24|2001:db8::/64" },
	{ "{}", "{'range':'198.51.100.0/24'}", 0, "198.51.100.0/24" },
	{ "{'range':'192.0.2.0/24'}", "{'range':'198.51.100.0/24'}", 0, "192.0.2.0/24" },
	{ "{'range':'192.0.2.0/24','kubernetes':{'kubeconfig':'/x'},'datastore':'kubernetes'}", NULL, 0,
	  "192.0.2.0/24" },
	{ "{}", NULL, CNI_ERR_CONFIG, "\"range\" is missing" },
	{ "{'ipRanges':[{'range_start':'192.0.2.5'}]}", NULL, CNI_ERR_CONFIG, "\"range\" is missing" },
	{ "{'range':5}", NULL, CNI_ERR_DECODE, "\"range\" must be a string" },
	{ "{'range':'192.0.2.0/24','exclude':'192.0.2.1'}", NULL, CNI_ERR_DECODE, "\"exclude\" must be an array" },
	{ "{'range':'192.0.2.0/24','exclude':[1]}", NULL, CNI_ERR_DECODE, "\"exclude\" must be a string" },
	{ "{'range':'192.0.2.0/24','ipRanges':{}}", NULL, CNI_ERR_DECODE, "\"ipRanges\" must be an array" },
	{ "{'range':'192.0.2.0/24','ipRanges':[5]}", NULL, CNI_ERR_DECODE, "\"ipRanges\" must hold objects" },
	{ "{'range':'192.0.2.0/24','network_name':'../x'}", NULL, CNI_ERR_CONFIG, "invalid network_name \"../x\"" },
	{ "{'range':'192.0.2.0/24','network_name':'n1234567890123456789012345678901234567890123456789012345678901234"
	  "5678901234567890123456789012345678901234567890123456789012345678'}", NULL, CNI_ERR_CONFIG, "at most 128 bytes" },
	{ "{'range':'192.0.2.0/24','enable_overlapping_ranges':'yes'}", NULL, CNI_ERR_DECODE,
	  "enable_overlapping_ranges" },
	{ "{'range':'192.0.2.0/24','release_hold_seconds':-1}", NULL, CNI_ERR_CONFIG, "release_hold_seconds" },
	{ "{'range':'192.0.2.0/24','release_hold_seconds':1.5}", NULL, CNI_ERR_CONFIG, "release_hold_seconds" },
	{ "{'range':'192.0.2.0/24','routes':[{'dst':'x'}]}", NULL, CNI_ERR_CONFIG, "invalid route dst \"x\"" },
	{ "{'range':'192.0.2.0/24','routes':[{'gw':'192.0.2.1'}]}", NULL, CNI_ERR_DECODE, "\"routes\" must be" },
	{ "{'range':'192.0.2.0/24','dns':[]}", NULL, CNI_ERR_DECODE, "\"dns\" must be an object" },
	{ "{'range':'192.0.2.0/24','store':5}", NULL, CNI_ERR_DECODE, "\"store\" must be a string" },
	{ "{'range':'192.0.2.0/33'}", NULL, CNI_ERR_CONFIG, "invalid range \"192.0.2.0/33\"" },
	{ "{'range':'192.0.2.0/24','exclude':['192.0.2.0/40']}", NULL, CNI_ERR_CONFIG, "invalid exclude \"192.0.2.0/40\"" },
	{ "{'range':'192.0.2.0/24','range_start':'192.0.2.9','range_end':'192.0.2.1'}", NULL, CNI_ERR_CONFIG,
	  "empty interval" },
	{ "{'range':'192.0.2.10-192.0.2.20/24'}", NULL, 0, "192.0.2.0/24" },
	{ "{'range':'192.0.2.10-192.0.3.20/24'}", NULL, CNI_ERR_CONFIG,
	  "invalid range \"192.0.2.10-192.0.3.20/24\": 192.0.2.10 and 192.0.3.20 are not in the same /24 network" },
	{ "{'ipRanges':[{'range':'192.0.2.0/24'},{'range':'2001:db8::1-2001:db8:1::1/64'}]}", NULL, CNI_ERR_CONFIG,
	  "2001:db8::1 and 2001:db8:1::1 are not in the same /64 network" },
	/* node_slice_size: whereabouts' spellings, its bounds, the etcd store only */
#define ETCD "'store':{'type':'etcd','endpoints':['http://127.0.0.1:2379']}"
	{ "{'range':'192.0.2.0/24','node_slice_size':'/26'," ETCD "}", NULL, 0, "192.0.2.0/24" },
	{ "{'range':'192.0.2.0/24','node_slice_size':'26'," ETCD "}", NULL, 0, "192.0.2.0/24" },
	{ "{'range':'192.0.2.0/24','node_slice_size':'/32'," ETCD "}", NULL, 0, "192.0.2.0/24" },
	{ "{'range':'192.0.2.0/24','node_slice_size':'/24'," ETCD "}", NULL, 0, "192.0.2.0/24" },
	{ "{'range':'192.0.2.0/24','node_slice_size':''," ETCD "}", NULL, 0, "192.0.2.0/24" },
	{ "{'range':'2001:db8::/64','node_slice_size':'/120'," ETCD "}", NULL, 0, "2001:db8::/64" },
	{ "{'range':'192.0.2.0/24','node_slice_size':'/26','fast_ipam':true," ETCD "}", NULL, 0, "192.0.2.0/24" },
	{ "{'range':'192.0.2.0/24','node_slice_size':'/26'}", NULL, CNI_ERR_CONFIG,
	  "ipam key \"node_slice_size\" \"/26\": node slices need the etcd store, not \"local\"" },
	{ "{'range':'192.0.2.0/24','node_slice_size':'/23'," ETCD "}", NULL, CNI_ERR_CONFIG,
	  "\"node_slice_size\" \"/23\" is shorter than range 192.0.2.0/24's prefix (/24)" },
	{ "{'range':'192.0.2.0/24','node_slice_size':'/33'," ETCD "}", NULL, CNI_ERR_CONFIG,
	  "\"node_slice_size\" \"/33\" is longer than range 192.0.2.0/24 allows (/32)" },
	{ "{'range':'2001:db8::/64','node_slice_size':'/129'," ETCD "}", NULL, CNI_ERR_CONFIG,
	  "\"/129\" is longer than range 2001:db8::/64 allows (/128)" },
	{ "{'range':'192.0.2.0/24','node_slice_size':'-26'," ETCD "}", NULL, CNI_ERR_CONFIG,
	  "\"-26\" is shorter" },
	{ "{'range':'192.0.2.0/24','node_slice_size':'//26'," ETCD "}", NULL, CNI_ERR_CONFIG,
	  "invalid ipam key \"node_slice_size\" \"//26\"" },
	{ "{'range':'192.0.2.0/24','node_slice_size':'/ 26'," ETCD "}", NULL, CNI_ERR_CONFIG,
	  "invalid ipam key \"node_slice_size\" \"/ 26\"" },
	{ "{'range':'192.0.2.0/24','node_slice_size':'/'," ETCD "}", NULL, CNI_ERR_CONFIG,
	  "invalid ipam key \"node_slice_size\" \"/\"" },
	{ "{'range':'192.0.2.0/24','node_slice_size':'/26x'," ETCD "}", NULL, CNI_ERR_CONFIG,
	  "invalid ipam key \"node_slice_size\" \"/26x\"" },
	{ "{'range':'192.0.2.0/24','node_slice_size':26," ETCD "}", NULL, CNI_ERR_DECODE,
	  "\"node_slice_size\" must be a string" },
#undef ETCD
};

START_TEST(test_parse)
{
	cJSON *ipam = parse(parses[_i].ipam), *file = parses[_i].file ? parse(parses[_i].file) : NULL;
	struct cni_err err = { 0 };
	char pools[512] = "";
	int ret = poolconf_parse(ipam, file, NULL, &conf, &err);

	if (parses[_i].code) {
		ck_assert_int_ne(ret, 0);
		ck_assert_int_eq(err.code, parses[_i].code);
		ck_assert_msg(strstr(err.msg, parses[_i].check), "got \"%s\"", err.msg);
	} else {
		ck_assert_msg(ret == 0, "%s", err.msg);
		for (int i = 0; i < conf.n_ranges; i++) {
			if (i)
				strcat(pools, "|");
			strcat(pools, conf.ranges[i].pool);
		}
		ck_assert_str_eq(pools, parses[_i].check);
		poolconf_release(&conf);
	}
	cJSON_Delete(ipam);
	cJSON_Delete(file);
}
END_TEST

START_TEST(test_defaults_and_keys)
{
	cJSON *ipam = parse("{'range':'192.0.2.0/24','network_name':'rdma-a','enable_overlapping_ranges':false,"
			    "'release_hold_seconds':30,'log_level':'debug','log_file':'/var/log/x.log',"
			    "'store':{'type':'etcd','endpoints':['http://127.0.0.1:2379']}}");
	cJSON *plain = parse("{'range':'192.0.2.0/24'}");
	struct cni_err err = { 0 };

	ck_assert_int_eq(poolconf_parse(ipam, NULL, NULL, &conf, &err), 0);
	ck_assert_str_eq(conf.network, "rdma-a");
	ck_assert(!conf.shared && !conf.ranges[0].shared);
	ck_assert_int_eq(conf.hold_seconds, 30);
	ck_assert_str_eq(conf.log_level, "debug");
	ck_assert_str_eq(conf.log_file, "/var/log/x.log");
	ck_assert_str_eq(conf.store, "etcd");
	ck_assert_ptr_nonnull(cJSON_GetObjectItem(conf.store_obj, "endpoints"));
	ck_assert_str_eq(conf.data_dir, POOLCONF_DEFAULT_DATA_DIR);
	poolconf_release(&conf);
	ck_assert_int_eq(poolconf_parse(plain, NULL, NULL, &conf, &err), 0);
	ck_assert_str_eq(conf.network, POOLCONF_DEFAULT_NETWORK);
	ck_assert(conf.shared);
	ck_assert_str_eq(conf.store, "");
	ck_assert_int_eq(conf.hold_seconds, 0);
	poolconf_release(&conf);
	cJSON_Delete(ipam);
	cJSON_Delete(plain);
}
END_TEST

/* configuration_path, and the file filling only what the block lacks. */
START_TEST(test_file_fallback)
{
	cJSON *ipam = parse("{'configuration_path':'/etc/x.conf','range':'192.0.2.0/24'}");
	cJSON *file = parse("{'range':'198.51.100.0/24','network_name':'fromfile','dataDir':'/d',"
			    "'exclude':['192.0.2.1']}");
	struct cni_err err = { 0 };
	bool explicit;

	ck_assert_str_eq(poolconf_file_path(ipam, &explicit), "/etc/x.conf");
	ck_assert(explicit);
	ck_assert_str_eq(poolconf_file_path(file, &explicit), POOLCONF_DEFAULT_FILE);
	ck_assert(!explicit);
	ck_assert_int_eq(poolconf_parse(ipam, file, NULL, &conf, &err), 0);
	ck_assert_str_eq(conf.ranges[0].pool, "192.0.2.0/24");
	ck_assert_str_eq(conf.network, "fromfile");
	ck_assert_str_eq(conf.data_dir, "/d");
	ck_assert_int_eq((int)conf.ranges[0].usable, 253);
	poolconf_release(&conf);
	cJSON_Delete(ipam);
	cJSON_Delete(file);
}
END_TEST

/* The block gateway serves ranges of its family; an entry's own wins. */
START_TEST(test_gateways)
{
	cJSON *ipam = parse("{'range':'192.0.2.0/24','gateway':'192.0.2.1','ipRanges':["
			    "{'range':'2001:db8::/64'},{'range':'198.51.100.0/24','gateway':'198.51.100.1'},"
			    "{'range':'2001:db8:1::/64','gateway':'2001:db8:1::1'}]}");
	struct cni_err err = { 0 };
	char buf[IPADDR_STR_MAX];

	ck_assert_int_eq(poolconf_parse(ipam, NULL, NULL, &conf, &err), 0);
	ck_assert_int_eq(conf.n_ranges, 4);
	ipaddr_format(&conf.gateway[0], buf);
	ck_assert_str_eq(buf, "192.0.2.1");
	ck_assert_int_eq(conf.gateway[1].family, 0);
	ipaddr_format(&conf.gateway[2], buf);
	ck_assert_str_eq(buf, "198.51.100.1");
	ipaddr_format(&conf.gateway[3], buf);
	ck_assert_str_eq(buf, "2001:db8:1::1");
	ck_assert_int_eq((int)conf.ranges[0].usable, 253);
	ck_assert_int_eq((int)conf.ranges[2].usable, 253);
	poolconf_release(&conf);
	cJSON_Delete(ipam);
}
END_TEST

static const struct {
	const char *want;
	int code;		/* 0 = accepted */
	int range;		/* which range got it */
} wants[] = {
	{ "192.0.2.9", 0, 0 },
	{ "192.0.2.9/24", 0, 0 },
	{ "2001:db8::9", 0, 1 },
	{ "192.0.2.1", CNI_ERR_ADDR_TAKEN, -1 },	/* excluded */
	{ "192.0.2.254", CNI_ERR_ADDR_TAKEN, -1 },	/* gateway */
	{ "192.0.2.0", CNI_ERR_ADDR_TAKEN, -1 },	/* network */
	{ "198.51.100.9", CNI_ERR_ADDR_TAKEN, -1 },
	{ "nonsense", CNI_ERR_ADDR_TAKEN, -1 },
};

START_TEST(test_want)
{
	cJSON *ipam = parse("{'range':'192.0.2.0/24','exclude':['192.0.2.1'],'gateway':'192.0.2.254',"
			    "'ipRanges':[{'range':'2001:db8::/64'}]}");
	struct cni_err err = { 0 };
	int ret;

	ck_assert_int_eq(poolconf_parse(ipam, NULL, NULL, &conf, &err), 0);
	ret = poolconf_request(&conf, wants[_i].want, &err);
	if (wants[_i].code) {
		ck_assert_int_ne(ret, 0);
		ck_assert_int_eq(err.code, wants[_i].code);
		ck_assert(strstr(err.msg, wants[_i].want) || strstr(err.msg, "nonsense"));
	} else {
		ck_assert_int_eq(ret, 0);
		ck_assert(conf.ranges[wants[_i].range].has_want);
		ck_assert(!conf.ranges[!wants[_i].range].has_want);
		/* a second request for the same range is refused */
		ck_assert_int_ne(poolconf_request(&conf, wants[_i].want, &err), 0);
		ck_assert_int_eq(err.code, CNI_ERR_ADDR_TAKEN);
	}
	poolconf_release(&conf);
	cJSON_Delete(ipam);
}
END_TEST

/* runtimeConfig.ips are copied by the parse, judged only when ADD asks for
 * them, before CNI_ARGS IP=: the first error wins. */
static const struct {
	const char *runtime, *args_ip;
	int code;		/* 0 = accepted */
	const char *msg;	/* substring of the message, or "v4|v6" of the wants */
} requests[] = {
	{ "{'ips':['192.0.2.9/24','2001:db8::9']}", "", 0, "192.0.2.9|2001:db8::9" },
	{ "{'ips':['192.0.2.9']}", "2001:db8::9", 0, "192.0.2.9|2001:db8::9" },
	{ "{}", "192.0.2.9,2001:db8::9", 0, "192.0.2.9|2001:db8::9" },
	{ "{'ips':[]}", "", 0, "-|-" },
	{ "{'ips':['192.0.2.9',5]}", "", CNI_ERR_DECODE, "runtimeConfig.ips must hold strings" },
	{ "{'ips':[5,'nonsense']}", "", CNI_ERR_DECODE, "runtimeConfig.ips must hold strings" },
	{ "{'ips':['nonsense',5]}", "", CNI_ERR_ADDR_TAKEN, "invalid requested address \"nonsense\"" },
	{ "{'ips':['192.0.2.9']}", "192.0.2.10", CNI_ERR_ADDR_TAKEN, "range 192.0.2.0/24 already has one" },
	{ "{'ips':['192.0.2.1']}", "nonsense", CNI_ERR_ADDR_TAKEN, "requested address 192.0.2.1 is excluded" },
};

static void want_text(const struct pool_range *r, char *buf)
{
	if (r->has_want)
		ipaddr_format_u128(r->family, r->want, buf);
	else
		strcpy(buf, "-");
}

START_TEST(test_request)
{
	cJSON *ipam = parse("{'range':'192.0.2.0/24','exclude':['192.0.2.1'],"
			    "'ipRanges':[{'range':'2001:db8::/64'}]}");
	cJSON *runtime = parse(requests[_i].runtime);
	struct cni_err err = { 0 };
	char got[2 * IPADDR_STR_MAX + 2], v6[IPADDR_STR_MAX];
	int ret;

	/* a parse for any verb takes what it is given */
	ck_assert_int_eq(poolconf_parse(ipam, NULL, runtime, &conf, &err), 0);
	cJSON_Delete(runtime);
	ret = poolconf_request(&conf, requests[_i].args_ip, &err);
	if (requests[_i].code) {
		ck_assert_int_ne(ret, 0);
		ck_assert_int_eq(err.code, requests[_i].code);
		ck_assert_msg(strstr(err.msg, requests[_i].msg), "got \"%s\"", err.msg);
	} else {
		ck_assert_msg(ret == 0, "%s", err.msg);
		want_text(&conf.ranges[0], got);
		want_text(&conf.ranges[1], v6);
		strcat(got, "|");
		strcat(got, v6);
		ck_assert_str_eq(got, requests[_i].msg);
	}
	poolconf_release(&conf);
	ck_assert_int_eq(conf.n_requested, 0);
	cJSON_Delete(ipam);
}
END_TEST

START_TEST(test_result)
{
	cJSON *ipam = parse("{'range':'192.0.2.0/24','gateway':'192.0.2.1','routes':[{'dst':'0.0.0.0/0'},"
			    "{'dst':'198.51.100.0/24','gw':'192.0.2.1'}],'dns':{'nameservers':['192.0.2.53'],"
			    "'domain':'example.org','search':['a.example.org'],'options':['ndots:2']},"
			    "'ipRanges':[{'range':'2001:db8::/64'}]}");
	struct pool_lease lease = { .n_addrs = 2 };
	struct cni_result res;
	struct cni_err err = { 0 };
	char buf[IPADDR_STR_MAX];
	int fam;

	ck_assert_int_eq(poolconf_parse(ipam, NULL, NULL, &conf, &err), 0);
	lease.addrs[0].family = AF_INET;
	lease.addrs[0].prefix_len = 24;
	ck_assert_int_eq(ipaddr_parse_u128("192.0.2.7", &fam, &lease.addrs[0].addr), 0);
	lease.addrs[1].family = AF_INET6;
	lease.addrs[1].prefix_len = 64;
	ck_assert_int_eq(ipaddr_parse_u128("2001:db8::7", &fam, &lease.addrs[1].addr), 0);
	poolconf_result(&conf, &lease, &res);
	ck_assert_int_eq(res.n_ips, 2);
	ipprefix_format(&res.ips[0].address, buf);
	ck_assert_str_eq(buf, "192.0.2.7/24");
	ipaddr_format(&res.ips[0].gateway, buf);
	ck_assert_str_eq(buf, "192.0.2.1");
	ipprefix_format(&res.ips[1].address, buf);
	ck_assert_str_eq(buf, "2001:db8::7/64");
	ck_assert_int_eq(res.ips[1].gateway.family, 0);
	ck_assert_int_eq(res.n_routes, 2);
	ipaddr_format(&res.routes[1].gw, buf);
	ck_assert_str_eq(buf, "192.0.2.1");
	ck_assert_int_eq(res.dns.n_nameservers, 1);
	ck_assert_str_eq(res.dns.domain, "example.org");
	ck_assert_str_eq(res.dns.options[0], "ndots:2");
	poolconf_release(&conf);
	cJSON_Delete(ipam);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_parse, 0, N(parses));
	tcase_add_test(tc, test_defaults_and_keys);
	tcase_add_test(tc, test_file_fallback);
	tcase_add_test(tc, test_gateways);
	tcase_add_loop_test(tc, test_want, 0, N(wants));
	tcase_add_loop_test(tc, test_request, 0, N(requests));
	tcase_add_test(tc, test_result);
}

int main(void)
{
	return unit_run("poolconf", add_tests);
}
