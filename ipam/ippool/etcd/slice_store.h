/* SPDX-License-Identifier: Apache-2.0 */
/* Node slices of the etcd store: claims and give-backs in etcd, allocation inside them in a local store. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include "etcd_client.h"
#include "store.h"

/* What the etcd store lends the slice code for one command. */
struct slicer {
	struct etcd *e;
	const char *prefix;
	const char *node;		/* this node: its hostname */
	int len;			/* node_slice_size, 0 = none configured */
	int timeout_ms;
	long hold_seconds;
	bool nosync;
	unsigned int seed;
	char root[PATH_MAX];		/* <dataDir>/etcd-slices/<hash of the prefix> */
	struct pool_store *local;	/* opened on first use */
	int fd;				/* root/owned, -1 until then */
};

void slicer_init(struct slicer *sl, struct etcd *e, const char *prefix, const char *node,
		 int timeout_ms, const struct pool_store_cfg *cfg);
void slicer_fini(struct slicer *sl);

/* The store ops through slices (store.h). Without slices on this node
 * (nothing under root) lookup is -ENOENT, release, gc and list do nothing. */
int slice_reserve(struct slicer *sl, const struct pool_owner *owner, const struct pool_range *r,
		  int n, struct pool_lease *out, struct cni_err *err);
int slice_release(struct slicer *sl, const struct pool_key *key, struct cni_err *err);
int slice_lookup(struct slicer *sl, const struct pool_key *key, struct pool_lease *out,
		 struct cni_err *err);
int slice_gc(struct slicer *sl, const char *cni_network, const struct cni_attachment *valid,
	     int n_valid, struct cni_err *err);
int slice_list(struct slicer *sl, pool_info_fn info_fn, pool_lease_fn lease_fn, void *arg,
	       struct cni_err *err);
/* 0 while this node can still allocate from its slices (STATUS). */
int slice_room(struct slicer *sl, struct cni_err *err);

int slice_each(struct slicer *sl, pool_slice_fn fn, void *arg, struct cni_err *err);
int slice_heartbeat(struct slicer *sl, struct cni_err *err);
int slice_tidy(struct slicer *sl, bool dry_run, pool_slice_fn fn, void *arg, struct cni_err *err);
/* A heartbeat younger than this is a node alive (3 reconcile runs of the
 * DaemonSet's 60 s interval). */
#define SLICE_FRESH_SECONDS 180
/* release-node's half about slices: -EBUSY while node's heartbeat is fresh
 * (unless force), else every slice of node goes (fn each) and its heartbeat. */
int slice_release_node(struct slicer *sl, const char *node, bool force, pool_slice_fn fn,
		       void *arg, struct cni_err *err);
