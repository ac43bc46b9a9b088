// SPDX-License-Identifier: Apache-2.0
/* Unit tests for confpath.c: the lexical rules, roots, the admin file's lines, refusals. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "confpath.h"
#include "scratch.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *path;
	int ret;
} lexical[] = {
	{ "/var/lib/cni/x", 0 },
	{ "/var/lib/cni/x/", 0 },
	{ "/run//x/./y", 0 },
	{ "/run/x..y/...", 0 },
	{ "/", 0 },
	{ "relative/dir", -EINVAL },
	{ "./x", -EINVAL },
	{ "", -EINVAL },
	{ "/run/../etc", -ELOOP },
	{ "/run/x/..", -ELOOP },
	{ "/run/x/../", -ELOOP },
	{ "/../run/x", -ELOOP },
};

START_TEST(test_lexical)
{
	ck_assert_msg(confpath_lexical(lexical[_i].path) == lexical[_i].ret, "%s", lexical[_i].path);
}
END_TEST

START_TEST(test_lexical_long)
{
	char path[PATH_MAX + 2];

	memset(path, 'a', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	ck_assert_int_eq(confpath_lexical(path), -ENAMETOOLONG);
}
END_TEST

static const struct {
	const char *path, *root;
	bool under;
} under[] = {
	{ "/run/x", "/run/", true },
	{ "/run/x", "/run", true },
	{ "/run/x/y", "/run/", true },
	{ "//run/./x", "/run/", true },
	{ "/var/lib/cni/ippool", "/var/lib/cni/", true },
	{ "/run", "/run/", false },
	{ "/run/", "/run/", false },
	{ "/run/.", "/run/", false },
	{ "/running/x", "/run/", false },
	{ "/ru/x", "/run/", false },
	{ "/var/lib/cnix/a", "/var/lib/cni/", false },
	{ "/var/lib", "/var/lib/cni/", false },
	{ "/tmp/x", "/run/", false },
	{ "run/x", "/run/", false },
	{ "/x", "/", true },
};

START_TEST(test_under)
{
	ck_assert_msg(confpath_under(under[_i].path, under[_i].root) == under[_i].under, "%s in %s",
		      under[_i].path, under[_i].root);
}
END_TEST

static const struct {
	const char *text;
	int ret, line, n;
	const char *first;
	bool write;
} roots[] = {
	{ "", 0, 0, 0, NULL, false },
	{ "# nothing\n\n   \n", 0, 0, 0, NULL, false },
	{ "write /srv/cni/\n", 0, 0, 1, "/srv/cni/", true },
	{ "  read\t/opt/certs  \r\n# c\nwrite /srv/x", 0, 0, 2, "/opt/certs", false },
	{ "write /srv/cni\nread relative\n", -EINVAL, 2, 0, NULL, false },
	{ "write /srv/../etc\n", -EINVAL, 1, 0, NULL, false },
	{ "append /srv\n", -EINVAL, 1, 0, NULL, false },
	{ "write\n", -EINVAL, 1, 0, NULL, false },
	{ "write /a /b\n", -EINVAL, 1, 0, NULL, false },
	{ "/srv/cni\n", -EINVAL, 1, 0, NULL, false },
};

START_TEST(test_parse_roots)
{
	struct confpath_roots r;
	int line = -1;

	ck_assert_int_eq(confpath_parse_roots(roots[_i].text, &r, &line), roots[_i].ret);
	ck_assert_int_eq(line, roots[_i].line);
	if (roots[_i].ret)
		return;
	ck_assert_int_eq(r.n, roots[_i].n);
	if (roots[_i].first) {
		ck_assert_str_eq(r.root[0], roots[_i].first);
		ck_assert(r.write[0] == roots[_i].write);
	}
}
END_TEST

START_TEST(test_parse_roots_too_many)
{
	char text[CONFPATH_MAX_ROOTS * 16 + 32] = "";
	struct confpath_roots r;
	int line;

	for (int i = 0; i <= CONFPATH_MAX_ROOTS; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "write /r%d\n", i);
	ck_assert_int_eq(confpath_parse_roots(text, &r, &line), -EINVAL);
	ck_assert_int_eq(line, CONFPATH_MAX_ROOTS + 1);
}
END_TEST

/* ---- on disk ------------------------------------------------------------ */

static void setup(void)
{
	scratch_make("test-confpath", true);
	setenv(CONFPATH_ADMIN_ENV, "/nonexistent/allowed-roots", 1);
}

static const struct {
	const char *key, *path;
	enum confpath_use use;
	const char *msg;
} refusals[] = {
	{ "dataDir", "relative/dir", CONFPATH_WRITE_DIR,
	  "dataDir \"relative/dir\" is not an absolute path; allowed roots: /var/lib/cni/, /run/, /var/log/" },
	{ "logFile", "/var/log/../../etc/x", CONFPATH_WRITE_FILE,
	  "logFile \"/var/log/../../etc/x\" has a \"..\" component; allowed roots: /var/lib/cni/, /run/, /var/log/" },
	{ "dataDir", "/tmp/x", CONFPATH_WRITE_DIR,
	  "dataDir \"/tmp/x\" lies outside the allowed roots; allowed roots: /var/lib/cni/, /run/, /var/log/" },
	{ "log_file", "/etc/cni/x.log", CONFPATH_WRITE_FILE,
	  "log_file \"/etc/cni/x.log\" lies outside the allowed roots; allowed roots: /var/lib/cni/, /run/, /var/log/" },
	{ "configuration_path", "/etc/shadow", CONFPATH_READ_FILE,
	  "configuration_path \"/etc/shadow\" lies outside the allowed roots; allowed roots: "
	  "/var/lib/cni/, /run/, /var/log/, /etc/cni/, /etc/kubernetes/" },
	{ "dataDir", "/run", CONFPATH_WRITE_DIR,
	  "dataDir \"/run\" lies outside the allowed roots; allowed roots: /var/lib/cni/, /run/, /var/log/" },
};

START_TEST(test_refusals)
{
	struct cni_err err = { 0 };
	char path[PATH_MAX];

	strcpy(path, refusals[_i].path);
	ck_assert_int_eq(confpath_check(refusals[_i].key, path, sizeof(path), refusals[_i].use, &err),
			 -EINVAL);
	ck_assert_int_eq(err.code, CNI_ERR_CONFIG);
	ck_assert_str_eq(err.msg, refusals[_i].msg);
}
END_TEST

static const struct {
	const char *path;
	enum confpath_use use;
} accepted[] = {
	{ "/var/lib/cni/sriov-rdma", CONFPATH_WRITE_DIR },
	{ "/run/not-there/x", CONFPATH_WRITE_DIR },
	{ "/var/log/not-there.log", CONFPATH_WRITE_FILE },
	{ "/etc/cni/net.d/ippool.d/ippool.conf", CONFPATH_READ_FILE },
	{ "/etc/kubernetes/pki/not-there.crt", CONFPATH_READ_FILE },
	{ "/run/x.conf", CONFPATH_READ_FILE },
};

START_TEST(test_accepted)
{
	struct cni_err err = { 0 };
	char path[PATH_MAX];

	strcpy(path, accepted[_i].path);
	ck_assert_int_eq(confpath_check("k", path, sizeof(path), accepted[_i].use, &err), 0);
	ck_assert_int_eq(err.code, 0);
}
END_TEST

/* /var/run/x is /run/x on a node where /var/run is the usual symlink; any
 * other path, or one whose buffer cannot take the rewrite, stays as it is. */
START_TEST(test_var_run)
{
	struct cni_err err = { 0 };
	char path[PATH_MAX] = "/var/run/k8s.cni.cncf.io/devinfo/x", other[PATH_MAX];
	struct stat st;

	strcpy(other, "/run/x");
	ck_assert_int_eq(confpath_check("dataDir", other, sizeof(other), CONFPATH_WRITE_DIR, &err), 0);
	ck_assert_str_eq(other, "/run/x");
	strcpy(other, "/var/running/x");
	ck_assert_int_eq(confpath_check("dataDir", other, sizeof(other), CONFPATH_WRITE_DIR, &err),
			 -EINVAL);
	ck_assert_str_eq(other, "/var/running/x");
	if (lstat("/var/run", &st) || !S_ISLNK(st.st_mode))
		return;
	memset(&err, 0, sizeof(err));
	strcpy(other, path);
	ck_assert_int_eq(confpath_check("dataDir", other, 8, CONFPATH_WRITE_DIR, &err), -EINVAL);
	ck_assert_str_eq(other, path);
	memset(&err, 0, sizeof(err));
	ck_assert_int_eq(confpath_check("dataDir", path, sizeof(path), CONFPATH_WRITE_DIR, &err), 0);
	ck_assert_str_eq(path, "/run/k8s.cni.cncf.io/devinfo/x");
}
END_TEST

/* An admin file allows more, but only root's (owned by uid 0, not writable
 * by others, no symlink on the way); as non-root, every file is ignored.
 * The roots it names need not exist to be judged. */
START_TEST(test_admin_file)
{
	struct cni_err err = { 0 };
	char path[200] = "/confpath-test-w/state", want[1024];
	FILE *f = fopen(scratch_at("roots"), "w");

	ck_assert_ptr_nonnull(f);
	fprintf(f, "# extra\nwrite /confpath-test-w/\nread /confpath-test-r\n");
	fclose(f);
	ck_assert_int_eq(chmod(scratch_at("roots"), 0644), 0);
	setenv(CONFPATH_ADMIN_ENV, scratch_at("roots"), 1);
	if (geteuid() == 0) {
		ck_assert_int_eq(confpath_check("dataDir", path, sizeof(path), CONFPATH_WRITE_DIR, &err), 0);
		strcpy(path, "/confpath-test-r/ca.crt");
		ck_assert_int_eq(confpath_check("cacert", path, sizeof(path), CONFPATH_READ_FILE, &err), 0);
		ck_assert_int_eq(confpath_check("logFile", path, sizeof(path), CONFPATH_WRITE_FILE, &err),
				 -EINVAL);
		ck_assert_str_eq(err.msg, "logFile \"/confpath-test-r/ca.crt\" lies outside the allowed "
			      "roots; allowed roots: /var/lib/cni/, /run/, /var/log/, /confpath-test-w/");
		ck_assert_int_eq(chmod(scratch_at("roots"), 0664), 0);
		memset(&err, 0, sizeof(err));
		strcpy(path, "/confpath-test-w/state");
	}
	ck_assert_int_eq(confpath_check("dataDir", path, sizeof(path), CONFPATH_WRITE_DIR, &err), -EINVAL);
	snprintf(want, sizeof(want), "dataDir \"%s\" lies outside the allowed roots; allowed roots: "
		 "/var/lib/cni/, /run/, /var/log/; %s is ignored: it, or a directory above it, is not "
		 "root's alone", path, scratch_at("roots"));
	ck_assert_str_eq(err.msg, want);
}
END_TEST

/* No admin file is no admin file, even where one could not be trusted. */
START_TEST(test_admin_file_absent)
{
	struct cni_err err = { 0 };
	char path[200] = "/tmp/x";

	setenv(CONFPATH_ADMIN_ENV, "/tmp/confpath-test-no-such-dir/allowed-roots", 1);
	ck_assert_int_eq(confpath_check("dataDir", path, sizeof(path), CONFPATH_WRITE_DIR, &err), -EINVAL);
	ck_assert_str_eq(err.msg, "dataDir \"/tmp/x\" lies outside the allowed roots; allowed roots: "
			 "/var/lib/cni/, /run/, /var/log/");
}
END_TEST

START_TEST(test_admin_file_bad_line)
{
	struct cni_err err = { 0 };
	char path[200] = "/tmp/x", want[1024];
	FILE *f = fopen(scratch_at("roots"), "w");

	if (geteuid() != 0)
		return;	/* test_admin_file covers the non-root case */
	ck_assert_ptr_nonnull(f);
	fprintf(f, "write /tmp/\nwrite tmp\n");
	fclose(f);
	ck_assert_int_eq(chmod(scratch_at("roots"), 0600), 0);
	setenv(CONFPATH_ADMIN_ENV, scratch_at("roots"), 1);
	ck_assert_int_eq(confpath_check("dataDir", path, sizeof(path), CONFPATH_WRITE_DIR, &err), -EINVAL);
	snprintf(want, sizeof(want), "dataDir \"/tmp/x\" lies outside the allowed roots; allowed roots: "
		 "/var/lib/cni/, /run/, /var/log/; %s is ignored: line 2 is not \"write DIR\" or "
		 "\"read DIR\"", scratch_at("roots"));
	ck_assert_str_eq(err.msg, want);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_lexical, 0, N(lexical));
	tcase_add_test(tc, test_lexical_long);
	tcase_add_loop_test(tc, test_under, 0, N(under));
	tcase_add_loop_test(tc, test_parse_roots, 0, N(roots));
	tcase_add_test(tc, test_parse_roots_too_many);
	tcase_add_checked_fixture(tc, setup, scratch_remove);
	tcase_add_loop_test(tc, test_refusals, 0, N(refusals));
	tcase_add_loop_test(tc, test_accepted, 0, N(accepted));
	tcase_add_test(tc, test_var_run);
	tcase_add_test(tc, test_admin_file);
	tcase_add_test(tc, test_admin_file_absent);
	tcase_add_test(tc, test_admin_file_bad_line);
}

int main(void)
{
	return unit_run("confpath", add_tests);
}
