/* SPDX-License-Identifier: Apache-2.0 */
/* The RDMA simulator's world: a JSON state file shared, under a lock, by every
 * process that uses librdmasim.so or rdmasim-ctl. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <net/if.h>

#define RDMASIM_MAX_DEVS 64
#define RDMASIM_NAME_MAX 64

struct rdmasim_dev {
	char name[RDMASIM_NAME_MAX];
	uint32_t index;
	char pci[32];
	char ndev[IFNAMSIZ];
	uint32_t ndev_index;
	unsigned long netns;		/* inode of the netns it is in */
};

struct rdmasim_state {
	bool shared;
	int n;
	struct rdmasim_dev devs[RDMASIM_MAX_DEVS];
};

/* Inode of the host netns (/proc/1/ns/net). */
unsigned long rdmasim_host_netns(void);
/* Inode of the calling thread's netns, 0 when unknown. */
unsigned long rdmasim_current_netns(void);
/* Takes the world's lock (flock on "<path>.lock"): returns the fd or -errno. */
int rdmasim_lock(const char *path);
void rdmasim_unlock(int fd);
int rdmasim_load(const char *path, struct rdmasim_state *st);
/* The state as JSON text, malloc'd; NULL on allocation failure. */
char *rdmasim_json(const struct rdmasim_state *st);
/* Atomic replace (temp file + rename), so unlocked readers see whole files. */
int rdmasim_save(const char *path, const struct rdmasim_state *st);
struct rdmasim_dev *rdmasim_find(struct rdmasim_state *st, uint32_t index);
/* A device outside the host netns blocks netns mode changes (EBUSY). */
bool rdmasim_any_moved(const struct rdmasim_state *st);
