/* SPDX-License-Identifier: Apache-2.0 */
/* The local store's dataDir: where each record lives, and reading and writing it there. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "err.h"
#include "lrecord.h"
#include "store.h"

/*
 * Layout under dataDir (directories 0700, files 0600):
 *   state                       flock held by every op that touches index/
 *                               (waited for at most timeout_ms);
 *                               "<boot id> clean" while index/ matches leases/
 *                               and holds/ exactly, "... dirty" during a change
 *   leases/<containerID>:<ifname>  one text file per attachment: who, when, its
 *                               CNI network (GC's scope), its netns and that
 *                               netns's identity (reconcile's; both absent in
 *                               leases of older versions), and each address
 *                               with its address space (network_name) and pool
 *   holds/<scope>@<hex address> an address released less than
 *                               release_hold_seconds ago: scope, address, until
 *   pools/<network>:<pool>      the last configuration seen of each pool (list)
 *   index/<scope>.idx           sorted u128 array of every address held in a
 *                               uniqueness scope (leases + holds); a cache
 *   <dir>/.<name>.tmp           a write not finished (fileio_write_at); a killed
 *                               writer's is removed under the lock
 * A scope is "<network>:v4", "<network>:v6" (shared) or "<network>:<pool>".
 * ":" and "@" never occur in network names, containerIDs or ifnames, so
 * names cannot collide. The formats of the files: lrecord.h, lindex.h.
 */

enum local_dir { LOCAL_LEASES, LOCAL_HOLDS, LOCAL_POOLS, LOCAL_INDEX, LOCAL_N_DIRS };

#define LOCAL_SCOPE_MAX LREC_SCOPE_MAX
/* A record file's size bound, written or read: a lease with every field at
 * its longest (a netns path of 4095 bytes, 8 addresses) fits. */
#define LOCAL_FILE_MAX 16384
/* A lease's name leaves room for the temp file's 5 bytes more. */
#define LOCAL_LEASE_NAME_MAX (NAME_MAX + 1 - 5)

/* An open dataDir. */
struct local_disk {
	char root[PATH_MAX];
	int dir[LOCAL_N_DIRS];
	int state;		/* dataDir/state: the lock, and whether index/ is clean */
	char boot_id[64];
	bool nosync;		/* no fsync (bulk tools) */
};

/* Opens (creating what is missing) root, its directories and its state
 * file, without following a symlink on the way; CNI_ERR_STORE, nothing left
 * open. */
int local_disk_open(struct local_disk *d, const char *root, bool nosync, struct cni_err *err);
/* The same in root already open (rootfd, which stays the caller's); root
 * names it in messages. */
int local_disk_open_at(struct local_disk *d, int rootfd, const char *root, bool nosync,
		       struct cni_err *err);
/* root/name, a directory made 0700 when missing, not through a symlink:
 * fd or -1 (errno). */
int local_subdir(int root, const char *name);
void local_disk_close(struct local_disk *d);
/* STATUS: writes and removes index/status, a file as the store writes them. */
int local_disk_probe(const struct local_disk *d, struct cni_err *err);
/* CNI_ERR_STORE "local store <root>: <what> <name>: <strerror>"; returns ret. */
int local_fail(struct cni_err *err, const struct local_disk *d, const char *what, const char *name,
	       int ret);

/* Names. */
void local_scope_name(const char *network, const char *pool, int family, bool shared,
		      char *buf, size_t size);
/* The attachment's lease file name: CNI_ERR_ENV when it cannot be one. */
int local_lease_name(const struct pool_key *k, char buf[LOCAL_LEASE_NAME_MAX], struct cni_err *err);
/* "<scope>.idx". */
void local_index_name(const char *scope, char *buf, size_t size);

/* Sorted names of a directory, dot files skipped; with reap (the lock
 * held) the temp files of killed writers go first. CNI_ERR_STORE. */
int local_dir_list(const struct local_disk *d, enum local_dir dir, bool reap, char ***names, size_t *n,
	       struct cni_err *err);
void local_names_free(char **names, size_t n);

/* The lease file name: 0, -ENOENT (err untouched), or CNI_ERR_STORE; it must
 * be about the attachment its name says. */
int local_lease_read(const struct local_disk *d, const char *name, struct lrec_lease *s,
		     struct cni_err *err);
int local_lease_write(const struct local_disk *d, const char *name, const struct lrec_lease *s,
		      struct cni_err *err);
/* Removes the lease file name (absent: 0) and syncs its directory: the commit point of a release. */
int local_lease_remove(const struct local_disk *d, const char *name, struct cni_err *err);

int local_hold_write(const struct local_disk *d, const struct lrec_hold *h, struct cni_err *err);
/* Calls fn for every hold file still there (the lock held: reaps), parsed. */
struct local_hold_file {
	const char *name;
	struct lrec_hold h;
};
typedef int (*local_hold_fn)(const struct local_disk *d, const struct local_hold_file *h, void *arg,
			     struct cni_err *err);
int local_each_hold(const struct local_disk *d, local_hold_fn fn, void *arg, struct cni_err *err);

/* pools/: the range's pool file, rewritten only when what it says changed
 * (a damaged one too); each pool file, parsed, to fn. */
int local_pool_write(const struct local_disk *d, const struct pool_range *r, struct cni_err *err);
int local_each_pool(const struct local_disk *d, pool_info_fn fn, void *arg, struct cni_err *err);

/* The state file's line: this boot's clean line or not (rewritten in place). */
int local_state_write(const struct local_disk *d, bool clean, struct cni_err *err);
bool local_state_clean(const struct local_disk *d);
