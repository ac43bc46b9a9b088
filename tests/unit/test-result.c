// SPDX-License-Identifier: Apache-2.0
/* Unit tests for result.c: every version in, every version out, each malformed field refused. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "result.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char full_040[] =
	"{'cniVersion':'0.4.0',"
	"'interfaces':[{'name':'net1','mac':'02:00:00:00:00:01','sandbox':'/run/netns/p'}],"
	"'ips':[{'version':'4','interface':0,'address':'192.0.2.5/24','gateway':'192.0.2.1'},"
	"{'version':'6','address':'2001:db8::5/64'}],"
	"'routes':[{'dst':'0.0.0.0/0','gw':'192.0.2.1'},{'dst':'198.51.100.0/24'}],"
	"'dns':{'nameservers':['192.0.2.53'],'domain':'example.org','search':['a.example.org'],'options':['ndots:2']}}";

static const char full_110[] =
	"{'cniVersion':'1.1.0',"
	"'interfaces':[{'name':'net1','mac':'02:00:00:00:00:01','mtu':9000,'sandbox':'/run/netns/p','pciID':'0000:3b:00.2'}],"
	"'ips':[{'interface':0,'address':'192.0.2.5/24','gateway':'192.0.2.1'}]}";

static const struct {
	const char *in;
	enum cni_version v;
	const char *want;
} prints[] = {
	{ full_040, CNI_V040, full_040 },
	{ full_040, CNI_V030,
	  "{'cniVersion':'0.3.0',"
	  "'interfaces':[{'name':'net1','mac':'02:00:00:00:00:01','sandbox':'/run/netns/p'}],"
	  "'ips':[{'version':'4','interface':0,'address':'192.0.2.5/24','gateway':'192.0.2.1'},"
	  "{'version':'6','address':'2001:db8::5/64'}],"
	  "'routes':[{'dst':'0.0.0.0/0','gw':'192.0.2.1'},{'dst':'198.51.100.0/24'}],"
	  "'dns':{'nameservers':['192.0.2.53'],'domain':'example.org','search':['a.example.org'],'options':['ndots:2']}}" },
	{ full_040, CNI_V100,
	  "{'cniVersion':'1.0.0',"
	  "'interfaces':[{'name':'net1','mac':'02:00:00:00:00:01','sandbox':'/run/netns/p'}],"
	  "'ips':[{'interface':0,'address':'192.0.2.5/24','gateway':'192.0.2.1'},"
	  "{'address':'2001:db8::5/64'}],"
	  "'routes':[{'dst':'0.0.0.0/0','gw':'192.0.2.1'},{'dst':'198.51.100.0/24'}],"
	  "'dns':{'nameservers':['192.0.2.53'],'domain':'example.org','search':['a.example.org'],'options':['ndots:2']}}" },
	{ full_110, CNI_V110, full_110 },
	{ full_110, CNI_V100,
	  "{'cniVersion':'1.0.0',"
	  "'interfaces':[{'name':'net1','mac':'02:00:00:00:00:01','sandbox':'/run/netns/p'}],"
	  "'ips':[{'interface':0,'address':'192.0.2.5/24','gateway':'192.0.2.1'}]}" },
	{ full_110, CNI_V031,
	  "{'cniVersion':'0.3.1',"
	  "'interfaces':[{'name':'net1','mac':'02:00:00:00:00:01','sandbox':'/run/netns/p'}],"
	  "'ips':[{'version':'4','interface':0,'address':'192.0.2.5/24','gateway':'192.0.2.1'}]}" },
	{ "{}", CNI_V100, "{'cniVersion':'1.0.0'}" },
	{ "{'cniVersion':'1.0.0','interfaces':null,'dns':{}}", CNI_V110, "{'cniVersion':'1.1.0'}" },
	/* 1.1.0 route extras are accepted and not kept */
	{ "{'routes':[{'dst':'::/0','gw':'2001:db8::1','mtu':1400,'table':5}]}", CNI_V110,
	  "{'cniVersion':'1.1.0','routes':[{'dst':'::/0','gw':'2001:db8::1'}]}" },
};

START_TEST(test_print)
{
	char *in = unit_dq(prints[_i].in), *want = unit_dq(prints[_i].want), *got;
	cJSON *json = cJSON_Parse(in), *outj;
	struct cni_result r;
	struct cni_err err = { 0 };

	ck_assert_ptr_nonnull(json);
	ck_assert_msg(result_parse(json, &r, &err) == 0, "parse: %s", err.msg);
	outj = result_to_json(&r, prints[_i].v);
	ck_assert_ptr_nonnull(outj);
	got = cJSON_PrintUnformatted(outj);
	ck_assert_str_eq(got, want);
	free(got);
	cJSON_Delete(outj);
	cJSON_Delete(json);
	free(in);
	free(want);
}
END_TEST

START_TEST(test_parsed_values)
{
	char *in = unit_dq(full_040);
	cJSON *json = cJSON_Parse(in);
	struct cni_result r;
	struct cni_err err = { 0 };
	char buf[IPADDR_STR_MAX];

	ck_assert_int_eq(result_parse(json, &r, &err), 0);
	ck_assert_int_eq(r.n_ifaces, 1);
	ck_assert_str_eq(r.ifaces[0].sandbox, "/run/netns/p");
	ck_assert_int_eq(r.n_ips, 2);
	ck_assert_int_eq(r.ips[0].iface, 0);
	ck_assert_int_eq(r.ips[1].iface, -1);
	ck_assert_int_eq(r.ips[1].gateway.family, 0);
	ipaddr_format(&r.ips[0].gateway, buf);
	ck_assert_str_eq(buf, "192.0.2.1");
	ck_assert_int_eq(r.n_routes, 2);
	ck_assert_int_eq(r.routes[1].gw.family, 0);
	ck_assert_int_eq(r.dns.n_nameservers, 1);
	ck_assert_str_eq(r.dns.domain, "example.org");
	cJSON_Delete(json);
	free(in);
}
END_TEST

static const struct {
	const char *in;
	const char *msg;	/* substring; every failure is CNI_ERR_DECODE */
} bad[] = {
	{ "[]", "result is not an object" },
	{ "{'interfaces':{}}", "interfaces is not an array" },
	{ "{'interfaces':[1]}", "interfaces[0] is not an object" },
	{ "{'interfaces':[{}]}", "interfaces[0].name is missing" },
	{ "{'interfaces':[{'name':5}]}", "interfaces[0].name is not a string" },
	{ "{'interfaces':[{'name':'a','mac':false}]}", "interfaces[0].mac is not a string" },
	{ "{'interfaces':[{'name':'a','mtu':-1}]}", "interfaces[0].mtu is not an integer" },
	{ "{'interfaces':[{'name':'a','mtu':1500.5}]}", "interfaces[0].mtu is not an integer" },
	{ "{'interfaces':[{'name':'a','mtu':'1500'}]}", "interfaces[0].mtu is not an integer" },
	{ "{'interfaces':[{'name':'a'},{'name':'b'},{'name':'c'},{'name':'d'},{'name':'e'},"
	  "{'name':'f'},{'name':'g'},{'name':'h'},{'name':'i'}]}", "too many interfaces" },
	{ "{'ips':[{}]}", "ips[0].address is missing" },
	{ "{'ips':[{'address':'192.0.2.5'}]}", "ips[0].address '192.0.2.5' is not an address/prefix" },
	{ "{'ips':[{'address':'192.0.2.5/33'}]}", "ips[0].address" },
	{ "{'ips':[{'address':'192.0.2.5/24','gateway':'x'}]}", "ips[0].gateway 'x' is not an IP address" },
	{ "{'ips':[{'address':'192.0.2.5/24','gateway':'2001:db8::1'}]}", "ips[0].gateway is not in the address family" },
	{ "{'ips':[{'version':'6','address':'192.0.2.5/24'}]}", "ips[0].version '6' does not match" },
	{ "{'ips':[{'version':4,'address':'192.0.2.5/24'}]}", "ips[0].version is not a string" },
	{ "{'ips':[{'address':'192.0.2.5/24','interface':0}]}", "ips[0].interface is not an integer in [0, -1]" },
	{ "{'interfaces':[{'name':'a'}],'ips':[{'address':'192.0.2.5/24','interface':1}]}", "ips[0].interface" },
	{ "{'interfaces':[{'name':'a'}],'ips':[{'address':'192.0.2.5/24','interface':-1}]}", "ips[0].interface" },
	{ "{'routes':[{'gw':'192.0.2.1'}]}", "routes[0].dst is missing" },
	{ "{'routes':[{'dst':'0.0.0.0/0','gw':'192.0.2.300'}]}", "routes[0].gw" },
	{ "{'routes':'x'}", "routes is not an array" },
	{ "{'dns':[]}", "dns is not an object" },
	{ "{'dns':{'nameservers':'192.0.2.53'}}", "dns.nameservers is not an array" },
	{ "{'dns':{'nameservers':[53]}}", "dns.nameservers[0] is not a string" },
	{ "{'dns':{'domain':1}}", "dns.domain is not a string" },
	{ "{'dns':{'search':['a','b','c','d','e','f','g','h','i']}}", "too many dns.search (max 8)" },
	{ "{'dns':{'options':[null]}}", "dns.options[0] is not a string" },
};

START_TEST(test_bad)
{
	char *in = unit_dq(bad[_i].in), *want = unit_dq(bad[_i].msg);
	cJSON *json = cJSON_Parse(in);
	struct cni_result r;
	struct cni_err err = { 0 };

	ck_assert_ptr_nonnull(json);
	ck_assert_int_ne(result_parse(json, &r, &err), 0);
	ck_assert_int_eq(err.code, CNI_ERR_DECODE);
	ck_assert_msg(strstr(err.msg, want), "message \"%s\" lacks \"%s\"", err.msg, want);
	ck_assert_int_eq(r.n_ifaces + r.n_ips + r.n_routes, 0);
	cJSON_Delete(json);
	free(in);
	free(want);
}
END_TEST

START_TEST(test_too_long)
{
	char *in = malloc(PATH_MAX + 64);
	cJSON *json;
	struct cni_result r;
	struct cni_err err = { 0 };
	size_t n;

	strcpy(in, "{\"interfaces\":[{\"name\":\"a\",\"sandbox\":\"");
	n = strlen(in);
	memset(in + n, 'x', PATH_MAX);
	strcpy(in + n + PATH_MAX, "\"}]}");
	json = cJSON_Parse(in);
	ck_assert_ptr_nonnull(json);
	ck_assert_int_ne(result_parse(json, &r, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "interfaces[0].sandbox is too long"));
	cJSON_Delete(json);
	free(in);
}
END_TEST

/* Entries are zeroed as they are added, not the whole struct: a result
 * parsed over a fuller one keeps nothing of it, and a failed parse leaves
 * it empty. */
START_TEST(test_parse_over_used)
{
	char *full = unit_dq(full_040), *small = unit_dq("{'cniVersion':'0.4.0','interfaces':[{'name':'a'}],"
		"'ips':[{'version':'4','address':'198.51.100.9/24'}],'routes':[{'dst':'0.0.0.0/0'}]}");
	char *bad = unit_dq("{'cniVersion':'1.0.0','ips':[{'address':'198.51.100.9/24'},{'address':'x'}]}");
	cJSON *j_full = cJSON_Parse(full), *j_small = cJSON_Parse(small), *j_bad = cJSON_Parse(bad);
	struct cni_result r;
	struct cni_err err = { 0 };
	char buf[IPADDR_STR_MAX];

	ck_assert_int_eq(result_parse(j_full, &r, &err), 0);
	ck_assert_int_eq(result_parse(j_small, &r, &err), 0);
	ck_assert_int_eq(r.n_ifaces, 1);
	ck_assert_str_eq(r.ifaces[0].mac, "");
	ck_assert_str_eq(r.ifaces[0].sandbox, "");
	ck_assert_int_eq(r.n_ips, 1);
	ck_assert_int_eq(r.ips[0].iface, -1);
	ck_assert_int_eq(r.ips[0].gateway.family, 0);
	ipprefix_format(&r.ips[0].address, buf);
	ck_assert_str_eq(buf, "198.51.100.9/24");
	ck_assert_int_eq(r.n_routes, 1);
	ck_assert_int_eq(r.routes[0].gw.family, 0);
	ck_assert_int_eq(r.dns.n_nameservers + r.dns.n_search + r.dns.n_options, 0);
	ck_assert_str_eq(r.dns.domain, "");
	ck_assert_int_eq(result_parse(j_full, &r, &err), 0);
	ck_assert_int_eq(result_parse(j_bad, &r, &err), -EINVAL);
	ck_assert_int_eq(r.n_ifaces + r.n_ips + r.n_routes, 0);
	ck_assert_str_eq(r.dns.domain, "");
	cJSON_Delete(j_full);
	cJSON_Delete(j_small);
	cJSON_Delete(j_bad);
	free(full);
	free(small);
	free(bad);
}
END_TEST

START_TEST(test_add_iface)
{
	struct cni_result r = { 0 };
	char big[RESULT_STR_MAX + 1];
	int i;

	ck_assert_int_eq(result_add_iface(&r, "net1", "02:00:00:00:00:01", "/run/netns/p"), 0);
	ck_assert_int_eq(result_add_iface(&r, "eth0", NULL, NULL), 1);
	ck_assert_str_eq(r.ifaces[1].mac, "");
	memset(big, 'n', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ck_assert_int_eq(result_add_iface(&r, big, NULL, NULL), -EINVAL);
	for (i = 2; i < RESULT_MAX_IFACES; i++)
		ck_assert_int_eq(result_add_iface(&r, "x", NULL, NULL), i);
	ck_assert_int_eq(result_add_iface(&r, "x", NULL, NULL), -ENOSPC);
	ck_assert_int_eq(r.n_ifaces, RESULT_MAX_IFACES);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_print, 0, N(prints));
	tcase_add_test(tc, test_parsed_values);
	tcase_add_loop_test(tc, test_bad, 0, N(bad));
	tcase_add_test(tc, test_too_long);
	tcase_add_test(tc, test_parse_over_used);
	tcase_add_test(tc, test_add_iface);
}

int main(void)
{
	return unit_run("result", add_tests);
}
