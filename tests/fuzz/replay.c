// SPDX-License-Identifier: Apache-2.0
/* main() for non-libFuzzer builds: feeds every file of the given dirs to the target once. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long size;
	int ret = -1;

	if (!f)
		goto out;
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		goto out;
	buf = malloc((size_t)size + 1);
	if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size)
		goto out;
	LLVMFuzzerTestOneInput(buf, (size_t)size);
	ret = 0;
out:
	if (ret)
		fprintf(stderr, "cannot read %s\n", path);
	free(buf);
	if (f)
		fclose(f);
	return ret;
}

int main(int argc, char **argv)
{
	char path[4096];
	struct dirent *de;
	struct stat st;
	int i, n = 0, failed = 0;
	DIR *d;

	for (i = 1; i < argc; i++) {
		d = opendir(argv[i]);
		if (!d) {
			failed |= replay_file(argv[i]);
			n++;
			continue;
		}
		while ((de = readdir(d))) {
			snprintf(path, sizeof(path), "%s/%s", argv[i], de->d_name);
			if (stat(path, &st) || !S_ISREG(st.st_mode))
				continue;
			failed |= replay_file(path);
			n++;
		}
		closedir(d);
	}
	printf("replayed %d inputs\n", n);
	return failed || !n ? EXIT_FAILURE : EXIT_SUCCESS;
}
