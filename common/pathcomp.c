// SPDX-License-Identifier: Apache-2.0
/* A path's components as the kernel walks them, for the path policy and the walks that open paths. */
#include <string.h>
#include "pathcomp.h"

size_t pathcomp_next(const char **p, const char **start)
{
	size_t n;

	for (;;) {
		while (**p == '/')
			(*p)++;
		*start = *p;
		while (**p && **p != '/')
			(*p)++;
		n = (size_t)(*p - *start);
		if (n != 1 || **start != '.')
			return n;
	}
}

int pathcomp_count(const char *path)
{
	const char *s;
	int n = 0;

	while (pathcomp_next(&path, &s))
		n++;
	return n;
}

bool pathcomp_is_name(const char *name)
{
	return name && *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}
