// SPDX-License-Identifier: Apache-2.0
/* rdmasim-ctl: create and change the simulator's world the way an operator
 * or the kernel would (add devices, set the netns mode, a netns dies). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <linux/if_ether.h>
#include "state.h"

static int parse_mode(const char *s, bool *shared)
{
	if (!strcmp(s, "shared"))
		*shared = true;
	else if (!strcmp(s, "exclusive"))
		*shared = false;
	else
		return -EINVAL;
	return 0;
}

static int cmd_init(struct rdmasim_state *st, int argc, char **argv)
{
	rdmasim_free(st);
	memset(st, 0, sizeof(*st));
	if (argc > 1)
		return -EINVAL;
	return argc ? parse_mode(argv[0], &st->shared) : 0;
}

static bool name_taken(const struct rdmasim_state *st, const char *name)
{
	int i;

	for (i = 0; i < st->n; i++)
		if (!strcmp(st->devs[i].name, name))
			return true;
	return false;
}

static int add_one(struct rdmasim_state *st, char **argv)
{
	struct rdmasim_dev *d;
	char *end;
	unsigned long index;

	if (name_taken(st, argv[0]))
		return -EINVAL;
	errno = 0;
	index = strtoul(argv[1], &end, 10);
	if (errno || *end || index > UINT32_MAX || rdmasim_find(st, index))
		return -EINVAL;
	if (strlen(argv[0]) >= sizeof(d->name) || strlen(argv[2]) >= sizeof(d->pci) ||
	    strlen(argv[3]) >= sizeof(d->ndev))
		return -EINVAL;
	d = rdmasim_add(st);
	if (!d)
		return -ENOMEM;
	d->ndev_index = if_nametoindex(argv[3]);
	if (!d->ndev_index) {
		fprintf(stderr, "rdmasim-ctl: no netdev %s in this netns\n", argv[3]);
		return -ENODEV;
	}
	strcpy(d->name, argv[0]);
	d->index = index;
	strcpy(d->pci, argv[2]);
	strcpy(d->ndev, argv[3]);
	d->netns = rdmasim_host_netns();
	return 0;
}

/* Device names and indexes are unique system-wide, indexes from 0, as in
 * the kernel. Several devices in one call (a node's thousand in one write of
 * the state). */
static int cmd_add(struct rdmasim_state *st, int argc, char **argv)
{
	int i, ret = 0;

	if (!argc || argc % 4)
		return -EINVAL;
	for (i = 0; i < argc && !ret; i += 4)
		ret = add_one(st, argv + i);
	return ret;
}

/* The mode a node has (ib_core loaded with netns_mode=), set by the test:
 * not SYS_SET, so no other netns is looked for; refused while a device is
 * out of the host (a reload would have brought them all back). */
static int cmd_set_mode(struct rdmasim_state *st, int argc, char **argv)
{
	bool shared;

	if (argc != 1 || parse_mode(argv[0], &shared))
		return -EINVAL;
	if (shared != st->shared && rdmasim_any_moved(st))
		return -EBUSY;
	st->shared = shared;
	return 0;
}

/* A dying netns hands its RDMA devices back to the host. */
static int cmd_netns_gone(struct rdmasim_state *st, int argc, char **argv)
{
	unsigned long ino;
	char *end;
	int i;

	if (argc != 1)
		return -EINVAL;
	errno = 0;
	ino = strtoul(argv[0], &end, 10);
	if (errno || *end || !ino)
		return -EINVAL;
	for (i = 0; i < st->n; i++)
		if (st->devs[i].netns == ino)
			st->devs[i].netns = rdmasim_host_netns();
	return 0;
}

/* Devices whose driver cannot change their netns (rxe, siw). */
static int cmd_soft(struct rdmasim_state *st, int argc, char **argv)
{
	int i, j;

	if (argc < 1)
		return -EINVAL;
	for (i = 0; i < argc; i++) {
		for (j = 0; j < st->n && strcmp(st->devs[j].name, argv[i]); j++)
			;
		if (j == st->n)
			return -ENODEV;
		st->devs[j].soft = true;
	}
	return 0;
}

/* The VF ops an IPoIB PF lacks: ipoib_netdev_ops_pf has link state and
 * GUIDs but no ndo_set_vf_mac/vlan/rate/spoofchk/trust. */
#define IPOIB_LACKS (VFOP_MAC | VFOP_VLAN | VFOP_RATE | VFOP_SPOOFCHK | VFOP_TRUST)

/* An SR-IOV PF with n VFs as a driver creates them: zero MAC, no VLAN,
 * spoof checking on, not trusted, link state auto, no rate limits; "ib":
 * an IPoIB PF whose VFs have no GUID set yet (mlx5_ib reports 0). */
/* A new PF, or one set up anew (by its netdev's name). */
static int cmd_pf(struct rdmasim_state *st, int argc, char **argv)
{
	struct rdmasim_pf *pf;
	char *end;
	long n;

	if ((argc != 2 && argc != 3) || strlen(argv[0]) >= sizeof(pf->name) ||
	    (argc == 3 && strcmp(argv[2], "ib")))
		return -EINVAL;
	errno = 0;
	n = strtol(argv[1], &end, 10);
	if (errno || *end || n < 1 || n > RDMASIM_MAX_VFS)
		return -EINVAL;
	pf = rdmasim_pf_by_name(st, argv[0]);
	if (!pf && st->n_pfs == RDMASIM_MAX_PFS)
		return -ENOSPC;
	if (!pf)
		pf = &st->pfs[st->n_pfs++];
	memset(pf, 0, sizeof(*pf));
	pf->ifindex = if_nametoindex(argv[0]);
	if (!pf->ifindex) {
		fprintf(stderr, "rdmasim-ctl: no netdev %s in this netns\n", argv[0]);
		return -ENODEV;
	}
	strcpy(pf->name, argv[0]);
	pf->n_vfs = (int)n;
	pf->ib = argc == 3;
	if (pf->ib) {
		pf->lacks = IPOIB_LACKS;
		pf->guid = 0x0002c90300a00000ULL + pf->ifindex;
	}
	for (int i = 0; i < pf->n_vfs; i++)
		pf->vfs[i] = (struct rdmasim_vf){ .vlan_proto = ETH_P_8021Q, .spoofchk = true };
	return 0;
}

/* The PFs' driver has no ndo_set_vf_* for these settings (none: all). */
static int cmd_lacks(struct rdmasim_state *st, int argc, char **argv)
{
	unsigned int lacks = 0;

	if (!st->n_pfs)
		return -ENODEV;
	for (int i = 0; i < argc; i++) {
		unsigned int op = rdmasim_vf_op(argv[i]);

		if (!op)
			return -EINVAL;
		lacks |= op;
	}
	for (int i = 0; i < st->n_pfs; i++)
		st->pfs[i].lacks = lacks;
	return 0;
}

/* GETLINK of the PF asking for its VF info fails with errno n (0: it does
 * not), as rtnl_getlink() does when the reply outgrows its size estimate. */
static int cmd_getlink_error(struct rdmasim_state *st, int argc, char **argv)
{
	char *end;
	long n;

	if (!st->n_pfs)
		return -ENODEV;
	if (argc != 1)
		return -EINVAL;
	errno = 0;
	n = strtol(argv[0], &end, 10);
	if (errno || *end || n < 0 || n > 4095)
		return -EINVAL;
	for (int i = 0; i < st->n_pfs; i++)
		st->pfs[i].getlink_error = (uint32_t)n;
	return 0;
}

struct cmd {
	const char *name;
	int (*fn)(struct rdmasim_state *st, int argc, char **argv);
	bool load;
	bool save;
};

static const struct cmd cmds[] = {
	{ "init", cmd_init, false, true },
	{ "add", cmd_add, true, true },
	{ "set-mode", cmd_set_mode, true, true },
	{ "netns-gone", cmd_netns_gone, true, true },
	{ "soft", cmd_soft, true, true },
	{ "pf", cmd_pf, true, true },
	{ "lacks", cmd_lacks, true, true },
	{ "getlink-error", cmd_getlink_error, true, true },
	{ "show", NULL, true, false },
};

static int show(const struct rdmasim_state *st)
{
	char *text = rdmasim_json(st, true);

	if (!text)
		return -ENOMEM;
	puts(text);
	free(text);
	return 0;
}

static int run(const struct cmd *c, const char *path, int argc, char **argv)
{
	struct rdmasim_state *st = calloc(1, sizeof(*st));
	int lock, ret = -ENOMEM;

	if (!st)
		return ret;
	lock = rdmasim_lock(path);
	if (lock < 0) {
		free(st);
		return lock;
	}
	ret = c->load ? rdmasim_load(path, st) : 0;
	if (!ret && c->fn)
		ret = c->fn(st, argc, argv);
	if (!ret && c->save)
		ret = rdmasim_save(path, st);
	if (!ret && !c->save)
		ret = show(st);
	rdmasim_unlock(lock);
	rdmasim_free(st);
	free(st);
	return ret;
}

static void usage(void)
{
	fputs("usage: rdmasim-ctl init <state> [exclusive|shared]\n"
	      "       rdmasim-ctl add <state> <name> <index> <pci> <ndev> [<name> <index> <pci> <ndev>]...\n"
	      "       rdmasim-ctl set-mode <state> exclusive|shared\n"
	      "       rdmasim-ctl netns-gone <state> <inode>\n"
	      "       rdmasim-ctl soft <state> <name>...\n"
	      "       rdmasim-ctl pf <state> <pf-netdev> <num-vfs> [ib]\n"
	      "       rdmasim-ctl lacks <state> [mac|vlan|rate|spoofchk|link_state|trust|guid]...\n"
	      "       rdmasim-ctl getlink-error <state> <errno>\n"
	      "       rdmasim-ctl show <state>\n", stderr);
}

int main(int argc, char **argv)
{
	size_t i;
	int ret;

	if (argc < 3) {
		usage();
		return 2;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(cmds[i].name, argv[1]))
			continue;
		ret = run(&cmds[i], argv[2], argc - 3, argv + 3);
		if (ret) {
			fprintf(stderr, "rdmasim-ctl %s %s: %s\n", argv[1], argv[2], strerror(-ret));
			return 1;
		}
		return 0;
	}
	usage();
	return 2;
}
