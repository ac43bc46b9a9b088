// SPDX-License-Identifier: Apache-2.0
/* Unit tests for log.c: levels (unknown ones too), file output (mode, append), line format, fallback to stderr. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "log.h"
#include "unit.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static char dir[64];
static char path[128];

static void setup(void)
{
	strcpy(dir, "/tmp/test-log.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/plugin.log", dir);
}

static void teardown(void)
{
	char other[160];

	log_close();
	unlink(path);
	snprintf(other, sizeof(other), "%s/link", dir);
	unlink(other);
	snprintf(other, sizeof(other), "%s/stderr", dir);
	unlink(other);
	rmdir(dir);
}

/* The file's content, malloc'd. */
static char *slurp(const char *file)
{
	static char buf[8192];
	FILE *f = fopen(file, "r");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return strdup(buf);
}

static const struct {
	const char *level;
	int lines;		/* of the five levels logged below, how many show */
} levels[] = {
	{ NULL, 2 },
	{ "panic", 1 },
	{ "error", 2 },
	{ "warning", 3 },
	{ "info", 4 },
	{ "debug", 5 },
	{ "verbose", 5 },
	/* the case of a name does not matter, as in sriov-cni and whereabouts */
	{ "INFO", 4 },
	{ "Debug", 5 },
	{ "VERBOSE", 5 },
};

START_TEST(test_levels)
{
	char *text, *p;
	int lines = 0;

	log_init(levels[_i].level, path);
	log_msg(LOG_LVL_PANIC, "p");
	log_error("e %d", 1);
	log_warn("w");
	log_info("i");
	log_debug("d");
	log_close();
	text = slurp(path);
	for (p = text; (p = strchr(p, '\n')); p++)
		lines++;
	ck_assert_int_eq(lines, levels[_i].lines);
	free(text);
}
END_TEST

START_TEST(test_line_format)
{
	char want[64], *text;
	struct stat st;

	log_init("info", path);
	log_info("moved VF %s", "0000:3b:00.2");
	log_close();
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0600);
	text = slurp(path);
	snprintf(want, sizeof(want), "Z [info] pid %d: moved VF 0000:3b:00.2\n", (int)getpid());
	ck_assert_msg(strstr(text, want), "line \"%s\" lacks \"%s\"", text, want);
	ck_assert(text[4] == '-' && text[10] == 'T');
	free(text);
}
END_TEST

/* The call's trace id on every line while it is set, kept across log_init. */
START_TEST(test_trace)
{
	static const uint8_t id[16] = { 0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6,
					0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36 };
	char want[128], *text;

	log_set_trace(id);
	log_init("info", path);
	log_info("one");
	log_set_trace(NULL);
	log_info("two");
	log_close();
	text = slurp(path);
	snprintf(want, sizeof(want), "pid %d trace 4bf92f3577b34da6a3ce929d0e0e4736: one\n",
		 (int)getpid());
	ck_assert_msg(strstr(text, want), "line \"%s\" lacks \"%s\"", text, want);
	snprintf(want, sizeof(want), "pid %d: two\n", (int)getpid());
	ck_assert_msg(strstr(text, want), "line \"%s\" lacks \"%s\"", text, want);
	free(text);
}
END_TEST

START_TEST(test_append)
{
	char *text;

	log_init("error", path);
	log_error("first");
	log_init("error", path);
	log_error("second");
	log_close();
	text = slurp(path);
	ck_assert_ptr_nonnull(strstr(text, "first"));
	ck_assert_ptr_nonnull(strstr(text, "second"));
	free(text);
}
END_TEST

/* An unknown level fails nothing: it logs at "error" and says so, in the
 * log file asked for. */
START_TEST(test_unknown_level)
{
	char *text;

	log_init("loud", path);
	log_error("an error");
	log_warn("a warning");
	log_close();
	text = slurp(path);
	ck_assert_ptr_nonnull(strstr(text, "[warning] pid"));
	ck_assert_ptr_nonnull(strstr(text, "unknown log level \"loud\": logging at \"error\"\n"));
	ck_assert_ptr_nonnull(strstr(text, "an error\n"));
	ck_assert_ptr_null(strstr(text, "a warning"));
	free(text);
}
END_TEST

static const char *const fallbacks[] = { "/nonexistent-dir/x.log", "link" };

START_TEST(test_fallback_to_stderr)
{
	char errfile[160], target[160], *text;
	const char *file = fallbacks[_i];
	int fd;

	snprintf(errfile, sizeof(errfile), "%s/stderr", dir);
	if (!strcmp(file, "link")) {
		/* a symlink planted at the log path is not followed */
		snprintf(target, sizeof(target), "%s/link", dir);
		ck_assert_int_eq(symlink(path, target), 0);
		file = target;
	}
	fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_ge(dup2(fd, STDERR_FILENO), 0);
	close(fd);
	log_init("error", file);
	log_error("to stderr");
	log_close();
	text = slurp(errfile);
	ck_assert_ptr_nonnull(strstr(text, "[warning]"));
	ck_assert_ptr_nonnull(strstr(text, file));
	ck_assert_ptr_nonnull(strstr(text, "[error]"));
	ck_assert_ptr_nonnull(strstr(text, "to stderr"));
	ck_assert_int_eq(access(path, F_OK), -1);
	free(text);
}
END_TEST

START_TEST(test_long_line)
{
	char big[4096], *text;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	log_init("error", path);
	log_error("%s", big);
	log_error("next");
	log_close();
	text = slurp(path);
	ck_assert_ptr_nonnull(strstr(text, "xx\n"));
	ck_assert_ptr_nonnull(strstr(text, "next\n"));
	free(text);
}
END_TEST

static void add_tests(TCase *tc)
{
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_levels, 0, N(levels));
	tcase_add_test(tc, test_line_format);
	tcase_add_test(tc, test_append);
	tcase_add_test(tc, test_trace);
	tcase_add_test(tc, test_unknown_level);
	tcase_add_loop_test(tc, test_fallback_to_stderr, 0, N(fallbacks));
	tcase_add_test(tc, test_long_line);
}

int main(void)
{
	return unit_run("log", add_tests);
}
