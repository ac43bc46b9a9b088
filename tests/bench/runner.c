// SPDX-License-Identifier: Apache-2.0
/* Benchmark runner: runs a CNI plugin N times, one containerID each, and prints wall and CPU per run. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long usec(struct timeval tv)
{
	return tv.tv_sec * 1000000L + tv.tv_usec;
}

/* usage: runner N ID_PREFIX CONF_FILE PLUGIN
 * Runs PLUGIN with CNI_CONTAINERID=<ID_PREFIX><i> (i = 0..N-1) and the rest
 * of the environment as given; prints "<wall_us> <cpu_us> <exit>" per run. */
int main(int argc, char **argv)
{
	long n = argc == 5 ? strtol(argv[1], NULL, 10) : -1;
	char *args[] = { argv[4], NULL };
	posix_spawn_file_actions_t fa;

	if (n < 0) {
		fprintf(stderr, "usage: runner N ID_PREFIX CONF_FILE PLUGIN\n");
		return 2;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, argv[3], O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	for (long i = 0; i < n; i++) {
		struct timespec t0, t1;
		struct rusage ru;
		char id[256];
		int status;
		pid_t pid;

		snprintf(id, sizeof(id), "%s%ld", argv[2], i);
		setenv("CNI_CONTAINERID", id, 1);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		/* posix_spawn (vfork-like): the child's CPU is the plugin's, not a copy of ours. */
		if (posix_spawn(&pid, argv[4], &fa, NULL, args, environ)) {
			perror("runner: posix_spawn");
			return 1;
		}
		if (wait4(pid, &status, 0, &ru) < 0) {
			perror("runner");
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("%ld %ld %d\n", (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000,
		       usec(ru.ru_utime) + usec(ru.ru_stime), WIFEXITED(status) ? WEXITSTATUS(status) : 128);
	}
	posix_spawn_file_actions_destroy(&fa);
	return 0;
}
