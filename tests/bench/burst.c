// SPDX-License-Identifier: Apache-2.0
/* Benchmark burst: starts K copies of a command at once and prints each one's wall, CPU and exit, and the makespan. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_K 256
#define MAX_ARGS 32

static long now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000L + t.tv_nsec / 1000;
}

/* Line i (from 0) of a file, without its newline; NULL when it has none. */
static char *line_of(const char *path, int i)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t size = 0;
	ssize_t len = -1;

	if (!f)
		return NULL;
	for (int n = 0; n <= i; n++)
		len = getline(&line, &size, f);
	fclose(f);
	if (len <= 0) {
		free(line);
		return NULL;
	}
	line[strcspn(line, "\n")] = '\0';
	return line;
}

/* "%d" in s replaced by i; "@FILE" by line i of FILE. */
static char *expand(const char *s, int i)
{
	const char *at = strstr(s, "%d");
	char *out;

	if (s[0] == '@')
		return line_of(s + 1, i);
	if (!at)
		return strdup(s);
	if (asprintf(&out, "%.*s%d%s", (int)(at - s), s, i, at + 2) < 0)
		return NULL;
	return out;
}

/* usage: burst K [NAME=VALUE...] [<FILE] PROGRAM [ARG...]
 * Every argument may hold %d, the copy's number (0..K-1); an argument
 * @FILE stands for line i of FILE in copy i. The copies start
 * back to back (posix_spawn, vfork-like) and are reaped as they end; prints
 * "<i> <wall_us> <cpu_us> <exit>" per copy, then "makespan <us>" from the
 * first start to the last end. Output of the copies goes to /dev/null. */
int main(int argc, char **argv)
{
	int k = argc > 2 ? atoi(argv[1]) : 0, prog = 2;
	long start[MAX_K], end[MAX_K], cpu[MAX_K], t0;
	int status[MAX_K];
	pid_t pids[MAX_K];

	if (k <= 0 || k > MAX_K) {
		fprintf(stderr, "usage: burst K [NAME=VALUE...] [<FILE] PROGRAM [ARG...]\n");
		return 2;
	}
	while (prog < argc && (strchr(argv[prog], '=') || argv[prog][0] == '<'))
		prog++;
	if (prog == argc || argc - prog >= MAX_ARGS)
		return 2;
	t0 = now_us();
	for (int i = 0; i < k; i++) {
		char *args[MAX_ARGS] = { 0 }, *env_add[MAX_ARGS] = { 0 };
		posix_spawn_file_actions_t fa;
		int n_env = 0;

		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		for (int a = 2; a < prog; a++) {
			char *v = expand(argv[a], i);

			if (v[0] == '<')
				posix_spawn_file_actions_addopen(&fa, 0, v + 1, O_RDONLY, 0);
			else
				env_add[n_env++] = v;
		}
		for (int a = prog; a < argc; a++) {
			args[a - prog] = expand(argv[a], i);
			if (!args[a - prog]) {
				fprintf(stderr, "burst: no line %d in %s\n", i, argv[a] + 1);
				return 1;
			}
		}
		for (int e = 0; e < n_env; e++)
			putenv(env_add[e]);
		start[i] = now_us();
		if (posix_spawn(&pids[i], args[0], &fa, NULL, args, environ)) {
			perror("burst: posix_spawn");
			return 1;
		}
		posix_spawn_file_actions_destroy(&fa);
	}
	for (int done = 0; done < k; done++) {
		struct rusage ru;
		int st;
		pid_t pid = wait4(-1, &st, 0, &ru);
		long t = now_us();

		for (int i = 0; i < k; i++) {
			if (pids[i] != pid)
				continue;
			end[i] = t;
			cpu[i] = ru.ru_utime.tv_sec * 1000000L + ru.ru_utime.tv_usec +
				 ru.ru_stime.tv_sec * 1000000L + ru.ru_stime.tv_usec;
			status[i] = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
		}
	}
	long last = t0;

	for (int i = 0; i < k; i++) {
		printf("%d %ld %ld %d\n", i, end[i] - start[i], cpu[i], status[i]);
		if (end[i] > last)
			last = end[i];
	}
	printf("makespan %ld\n", last - t0);
	return 0;
}
