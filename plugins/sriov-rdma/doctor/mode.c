// SPDX-License-Identifier: Apache-2.0
/* The RDMA netns mode, and whether `rdma system set netns` can change it now. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "doctor.h"
#include "rdmanl.h"

/* The kernel refuses a mode change (EBUSY) while any netns but init_net
 * exists (rdma_compatdev_set() counts rdma_nets, which init_net is not in).
 * Counted here: netns some process is in, and netns bound under /run/netns;
 * one held only by a file descriptor or a socket is not seen. */
struct ns_seen {
	ino_t self;
	ino_t *inos;
	size_t n, cap;
	char example[PATH_MAX];
};

static void note_ns(struct ns_seen *s, const char *path)
{
	struct stat st;
	ino_t *grown;

	if (stat(path, &st) < 0 || st.st_ino == s->self)
		return;
	for (size_t i = 0; i < s->n; i++)
		if (s->inos[i] == st.st_ino)
			return;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		grown = realloc(s->inos, s->cap * sizeof(*grown));
		if (!grown)
			return;
		s->inos = grown;
	}
	s->inos[s->n++] = st.st_ino;
	if (!s->example[0])
		snprintf(s->example, sizeof(s->example), "%s", path);
}

static void scan_dir(struct ns_seen *s, const char *dir, const char *fmt, bool digits_only)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    (digits_only && strspn(de->d_name, "0123456789") != strlen(de->d_name)))
			continue;
		snprintf(path, sizeof(path), fmt, de->d_name);
		note_ns(s, path);
	}
	closedir(d);
}

static size_t other_netns(char *example, size_t size)
{
	struct ns_seen s = { 0 };
	struct stat st;

	if (stat("/proc/self/ns/net", &st) == 0)
		s.self = st.st_ino;
	scan_dir(&s, "/run/netns", "/run/netns/%s", false);
	scan_dir(&s, "/proc", "/proc/%s/ns/net", true);
	snprintf(example, size, "%s", s.example);
	free(s.inos);
	return s.n;
}

#define SHARED_MEANS "RDMA devices stay in the host netns, visible from every pod; a " \
	"network without \"rdma\" attaches the netdev alone, one with \"rdma\": true " \
	"(or rdmaIsolation: true) is refused"

static void node_mode(struct report *r, enum rdmanl_mode mode)
{
	char example[PATH_MAX];
	size_t others = other_netns(example, sizeof(example));

	if (mode == RDMANL_MODE_EXCLUSIVE) {
		report_add(r, REPORT_OK, "rdma-mode", "node", NULL, "exclusive");
		return;
	}
	/* what a network gets in shared mode (rdma.c): a warning, not a failure */
	if (others == 0)
		report_add(r, REPORT_WARN, "rdma-mode", "node", FIX_RDMA_MODE,
			   "shared: " SHARED_MEANS "; a change to exclusive is possible now (no "
			   "network namespace but the host's)");
	else
		report_add(r, REPORT_WARN, "rdma-mode", "node", FIX_RDMA_MODE,
			   "shared: " SHARED_MEANS "; a change to exclusive is refused while "
			   "other network namespaces exist (%zu now, e.g. %s)", others, example);
}

void mode_check(struct report *r, bool node)
{
	struct cni_err err = { 0 };
	enum rdmanl_mode mode;

	if (rdmanl_get_mode(-1, &mode, &err) < 0) {
		report_add(r, REPORT_FAIL, "rdma-mode", node ? "node" : "pod",
			   "load the RDMA core (ib_core, ib_uverbs) and the NIC's RDMA driver "
			   "(mlx5_ib)", "cannot read the RDMA netns mode: %s", err.msg);
		return;
	}
	if (node)
		node_mode(r, mode);
	else if (mode == RDMANL_MODE_EXCLUSIVE)
		report_add(r, REPORT_OK, "rdma-mode", "pod", NULL, "exclusive");
	else
		report_add(r, REPORT_WARN, "rdma-mode", "pod", FIX_RDMA_MODE,
			   "shared: every RDMA device of the node is visible here, none is "
			   "this pod's own");
}
