// SPDX-License-Identifier: Apache-2.0
/* Confines the paths a network config names to allowed roots: the lexical rules, the roots, the refusal. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "confpath.h"
#include "fileio.h"
#include "pathcomp.h"
#include "safeopen.h"

#define ADMIN_FILE_MAX (64 * 1024)

static const char *const write_roots[] = { "/var/lib/cni/", "/run/", "/var/log/" };
static const char *const read_roots[] = { "/etc/cni/", "/etc/kubernetes/" };

int confpath_lexical(const char *path)
{
	const char *p = path, *s;
	size_t n;

	if (path[0] != '/')
		return -EINVAL;
	if (strlen(path) >= PATH_MAX)
		return -ENAMETOOLONG;
	while ((n = pathcomp_next(&p, &s)))
		if (n == 2 && !memcmp(s, "..", 2))
			return -ELOOP;
	return 0;
}

bool confpath_under(const char *path, const char *root)
{
	const char *p = path, *r = root, *ps, *rs;
	size_t pn, rn;

	if (path[0] != '/' || root[0] != '/')
		return false;
	while ((rn = pathcomp_next(&r, &rs))) {
		pn = pathcomp_next(&p, &ps);
		if (pn != rn || memcmp(ps, rs, rn))
			return false;
	}
	return pathcomp_next(&p, &ps) > 0;
}

/* One line of the admin file into out; blank and comment lines add nothing. */
static int parse_line(char *line, struct confpath_roots *out)
{
	static const char *const spaces = " \t\r";
	char *word, *dir, *save;
	bool write;

	word = strtok_r(line, spaces, &save);
	if (!word || word[0] == '#')
		return 0;
	dir = strtok_r(NULL, spaces, &save);
	if (!dir || strtok_r(NULL, spaces, &save) || out->n == CONFPATH_MAX_ROOTS ||
	    confpath_lexical(dir) || strlen(dir) >= CONFPATH_ROOT_MAX)
		return -EINVAL;
	if (!strcmp(word, "write"))
		write = true;
	else if (!strcmp(word, "read"))
		write = false;
	else
		return -EINVAL;
	strcpy(out->root[out->n], dir);
	out->write[out->n++] = write;
	return 0;
}

int confpath_parse_roots(const char *text, struct confpath_roots *out, int *line)
{
	char *copy = strdup(text), *cur, *nl;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	*line = 0;
	if (!copy)
		return -ENOMEM;
	for (cur = copy; cur && !ret; cur = nl) {
		nl = strchr(cur, '\n');
		if (nl)
			*nl++ = '\0';
		(*line)++;
		ret = parse_line(cur, out);
	}
	if (!ret)
		*line = 0;
	free(copy);
	return ret;
}

/* path as /run/... in out when /var/run is the usual symlink (confpath_check);
 * -ENOENT when path does not start /var/run/, -EPERM when /var/run is
 * anything else, -ENAMETOOLONG when out is too small. */
static int var_run(const char *path, char *out, size_t size)
{
	char target[8];
	struct stat st;
	ssize_t n = -1;
	int var;

	if (strncmp(path, "/var/run/", 9))
		return -ENOENT;
	var = open("/var", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (var < 0)
		return -EPERM;
	if (safeopen_trusted(var) && !fstatat(var, "run", &st, AT_SYMLINK_NOFOLLOW) &&
	    S_ISLNK(st.st_mode) && st.st_uid == 0)
		n = readlinkat(var, "run", target, sizeof(target) - 1);
	close(var);
	if (n < 0)
		return -EPERM;
	target[n] = '\0';
	if (strcmp(target, "/run") && strcmp(target, "../run"))
		return -EPERM;
	if ((size_t)snprintf(out, size, "/run/%s", path + 9) >= size)
		return -ENAMETOOLONG;
	return 0;
}

/* ---- the refusal ---------------------------------------------------------- */

/* The admin file read into roots; why says what made it unusable ("" when
 * it is absent, as it is on most nodes). */
static void load_admin(struct confpath_roots *roots, char *why, size_t size)
{
	const char *file = getenv(CONFPATH_ADMIN_ENV);
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	int fd, line = 0, ret;

	memset(roots, 0, sizeof(*roots));
	why[0] = '\0';
	if (!file || !*file)
		file = CONFPATH_ADMIN_FILE;
	fd = safeopen_file_trusted(file, O_RDONLY, 0);
	if (fd == -ENOENT)
		return;
	ret = fd < 0 ? fd : fstat(fd, &st) ? -errno : 0;
	if (!ret && !safeopen_trusted(fd))
		ret = -EPERM;
	if (!ret && st.st_size > ADMIN_FILE_MAX)
		ret = -EFBIG;
	if (!ret)
		ret = fileio_read_fd(fd, SIZE_MAX, &text, &len);
	if (!ret)
		ret = confpath_parse_roots(text, roots, &line);
	if (ret == -EPERM)
		snprintf(why, size, "; %s is ignored: it, or a directory above it, is not root's alone",
			 file);
	else if (ret == -ELOOP || ret == -ENOTDIR)
		snprintf(why, size, "; %s is ignored: it is a symlink or lies past one", file);
	else if (ret && line)
		snprintf(why, size, "; %s is ignored: line %d is not \"write DIR\" or \"read DIR\"",
			 file, line);
	else if (ret)
		snprintf(why, size, "; %s is ignored: %s", file, strerror(-ret));
	if (ret)
		memset(roots, 0, sizeof(*roots));
	free(text);
	if (fd >= 0)
		close(fd);
}

static bool allowed(const char *path, enum confpath_use use, const struct confpath_roots *admin)
{
	size_t i;

	for (i = 0; i < sizeof(write_roots) / sizeof(write_roots[0]); i++)
		if (confpath_under(path, write_roots[i]))
			return true;
	for (i = 0; use == CONFPATH_READ_FILE && i < sizeof(read_roots) / sizeof(read_roots[0]); i++)
		if (confpath_under(path, read_roots[i]))
			return true;
	for (int k = 0; admin && k < admin->n; k++)
		if ((admin->write[k] || use == CONFPATH_READ_FILE) && confpath_under(path, admin->root[k]))
			return true;
	return false;
}

static void list_roots(enum confpath_use use, const struct confpath_roots *admin, char *out,
		       size_t size)
{
	size_t len = 0, i;

#define ADD(s) len += (size_t)snprintf(out + len, len < size ? size - len : 0, "%s%s", len ? ", " : "", s)
	for (i = 0; i < sizeof(write_roots) / sizeof(write_roots[0]); i++)
		ADD(write_roots[i]);
	for (i = 0; use == CONFPATH_READ_FILE && i < sizeof(read_roots) / sizeof(read_roots[0]); i++)
		ADD(read_roots[i]);
	for (int k = 0; k < admin->n; k++)
		if (admin->write[k] || use == CONFPATH_READ_FILE)
			ADD(admin->root[k]);
#undef ADD
}

static int refuse(const char *key, const char *path, enum confpath_use use, const char *reason,
		  struct cni_err *err)
{
	struct confpath_roots admin;
	char roots[256], why[200];

	load_admin(&admin, why, sizeof(why));
	list_roots(use, &admin, roots, sizeof(roots));
	cni_err_set(err, CNI_ERR_CONFIG, "%s \"%.160s\" %s; allowed roots: %s%s", key, path, reason,
		    roots, why);
	return -EINVAL;
}

int confpath_check(const char *key, char *path, size_t size, enum confpath_use use,
		   struct cni_err *err)
{
	static const char *const lexical[] = {
		[EINVAL] = "is not an absolute path",
		[ELOOP] = "has a \"..\" component",
		[ENAMETOOLONG] = "is too long",
	};
	char resolved[PATH_MAX], link[PATH_MAX];
	struct confpath_roots admin;
	char why[200];
	int ret;

	if (!path[0])
		return 0;
	ret = var_run(path, resolved, sizeof(resolved));
	if (ret == 0 && strlen(resolved) < size)
		strcpy(path, resolved);
	ret = confpath_lexical(path);
	if (ret)
		return refuse(key, path, use, lexical[-ret], err);
	if (!allowed(path, use, NULL)) {
		load_admin(&admin, why, sizeof(why));
		if (!allowed(path, use, &admin))
			return refuse(key, path, use, "lies outside the allowed roots", err);
	}
	safeopen_find_symlink(path, link);
	if (link[0]) {
		char reason[PATH_MAX + 32];

		snprintf(reason, sizeof(reason), "crosses the symlink %.160s", link);
		return refuse(key, path, use, reason, err);
	}
	return 0;
}
