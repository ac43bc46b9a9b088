// SPDX-License-Identifier: Apache-2.0
/* Node checks of attachments: VFs a dead pod left in the host, state files
 * whose pod is gone, VF settings a dead attachment left, VF locks held. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "fileio.h"
#include "netns.h"
#include "node.h"
#include "nodelock.h"
#include "procfs.h"
#include "statefile.h"

#define MAX_PARKED 64
#define DUMP_TRIES 5

struct parked {
	struct link_info links[MAX_PARKED];
	int count;
};

static int collect_parked(const struct link_info *li, void *arg)
{
	char host[IFNAMSIZ], cid[NETCONF_NAME_MAX];
	struct parked *p = arg;

	if (p->count < MAX_PARKED && record_alias_parse(li->alias, host, cid, sizeof(cid)) == 0)
		p->links[p->count++] = *li;
	return 0;
}

/* Links of the host that carry our alias: VFs a dead pod gave back. The
 * dump is walked again while links come and go under it. */
static void check_parked(struct node *n, struct report *r)
{
	char host[IFNAMSIZ], cid[NETCONF_NAME_MAX], fix[REPORT_TEXT_MAX];
	struct parked *p = calloc(1, sizeof(*p));
	int ret = -EINTR;

	for (int i = 0; p && ret == -EINTR && i < DUMP_TRIES; i++) {
		p->count = 0;
		ret = link_for_each(n->nl, collect_parked, p);
	}
	if (!p || (ret < 0 && ret != -EINTR)) {
		report_add(r, REPORT_WARN, "vf-parked", "node", "run as root", "cannot list the "
			   "host's links: %s", strerror(p ? -ret : ENOMEM));
		free(p);
		return;
	}
	for (int i = 0; i < p->count; i++) {
		record_alias_parse(p->links[i].alias, host, cid, sizeof(cid));
		snprintf(fix, sizeof(fix), "the runtime's DEL of container %s (or CNI GC) puts it "
			 "back as %s; so does the next ADD on this VF", cid, host);
		report_add(r, REPORT_WARN, "vf-parked", p->links[i].name, fix, "VF in the host under "
			   "its pod name (alias %s): its pod is gone and no DEL has run",
			   p->links[i].alias);
	}
	if (!p->count)
		report_add(r, REPORT_OK, "vf-parked", "node", NULL, "no VF in the host under a pod name");
	free(p);
}

static struct record_state *load(const char *dir, const char *cid, const char *ifname)
{
	struct cni_err err = { 0 };
	struct record_state *s = calloc(1, sizeof(*s));

	if (s && statefile_load(dir, cid, ifname, s, &err) < 0) {
		free(s);
		return NULL;
	}
	return s;
}

/* What a VF setting reads as, for messages. */
static void show(unsigned int field, const struct vf_config *c, char *out, size_t size)
{
	static const char *const states[] = { "auto", "enable", "disable" };

	switch (field) {
	case VF_MAC:
		snprintf(out, size, "MAC %02x:%02x:%02x:%02x:%02x:%02x", c->mac[0], c->mac[1],
			 c->mac[2], c->mac[3], c->mac[4], c->mac[5]);
		break;
	case VF_VLAN:
		snprintf(out, size, "VLAN %d qos %d%s", c->vlan, c->qos,
			 c->vlan_proto == 0x88a8 ? " 802.1ad" : "");
		break;
	case VF_SPOOFCHK:
		snprintf(out, size, "spoofchk %s", c->spoofchk == 1 ? "on" : "off");
		break;
	case VF_TRUST:
		snprintf(out, size, "trust %s", c->trust == 1 ? "on" : "off");
		break;
	case VF_LINK_STATE:
		snprintf(out, size, "link_state %s",
			 c->link_state >= 0 && c->link_state <= 2 ? states[c->link_state] : "?");
		break;
	default:
		snprintf(out, size, "rates %u-%u Mbps", c->min_tx_rate, c->max_tx_rate);
	}
}

static const unsigned int fields[] = {
	VF_MAC, VF_VLAN, VF_SPOOFCHK, VF_TRUST, VF_LINK_STATE, VF_RATE,
};

/* The VF settings of an attachment whose VF is back in the host, against
 * what they were before its ADD: what its DEL has yet to put back. */
static void check_leaked(struct node *n, const struct record_state *s, const char *subject,
			 struct report *r)
{
	char seen[REPORT_TEXT_MAX] = "", now[64], was[64], fix[REPORT_TEXT_MAX];
	struct cni_err err = { 0 };
	struct sysfs_vf vf;
	struct link_info pf;
	struct vf_config cur;
	size_t len = 0;

	if (!s->vf_changed || sysfs_vf_read(s->device_id, &vf, &err) < 0 || !vf.pf_ifname[0] ||
	    link_get_by_name(n->nl, vf.pf_ifname, &pf) < 0 ||
	    link_vf_get(n->vf_nl, pf.ifindex, s->vf_index, &cur) < 0)
		return;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (!(s->vf_changed & fields[i]))
			continue;
		show(fields[i], &cur, now, sizeof(now));
		show(fields[i], &s->vf_orig, was, sizeof(was));
		if (strcmp(now, was) && len < sizeof(seen))
			len += (size_t)snprintf(seen + len, sizeof(seen) - len, "%s%s (was %s)",
						len ? ", " : "", now, was);
	}
	snprintf(fix, sizeof(fix), "DEL of %s:%s restores them (the next ADD on VF %s does too); by "
		 "hand: ip link set %s vf %d ...", s->containerid, s->ifname, s->device_id,
		 vf.pf_ifname, s->vf_index);
	if (seen[0])
		report_add(r, REPORT_WARN, "vf-settings", subject, fix, "VF %s back in the host still "
			   "has its pod's settings: %s", s->device_id, seen);
	else
		report_add(r, REPORT_OK, "vf-settings", subject, NULL, "VF %s has its settings from "
			   "before ADD", s->device_id);
}

static void check_state(struct node *n, const char *dir, const char *cid, const char *ifname,
			struct report *r)
{
	char subject[96], fix[REPORT_TEXT_MAX];
	struct cni_err err = { 0 };
	struct record_state *s = load(dir, cid, ifname);
	int fd = -1, ret;

	snprintf(subject, sizeof(subject), "%.60s:%s", cid, ifname);
	if (!s) {
		report_add(r, REPORT_WARN, "attach", subject, "remove the file if no pod uses it",
			   "state file in %s does not read", dir);
		return;
	}
	ret = s->netns[0] ? netns_open(s->netns, &fd, &err) : -ENOENT;
	netns_close(fd);
	snprintf(fix, sizeof(fix), "the runtime's DEL (or CNI GC) of container %s undoes it; the "
		 "next ADD on VF %s does too", cid, s->device_id);
	if (ret == -ENOENT) {
		report_add(r, REPORT_WARN, "attach", subject, fix, "pod netns %s is gone but its state "
			   "(VF %s) is still in %s: no DEL has run", s->netns[0] ? s->netns : "(none)",
			   s->device_id, dir);
		check_leaked(n, s, subject, r);
	} else if (ret < 0) {
		report_add(r, REPORT_WARN, "attach", subject, fix, "%s", err.msg);
	} else {
		report_add(r, REPORT_OK, "attach", subject, NULL, "VF %s in pod netns %s",
			   s->device_id, s->netns);
	}
	free(s);
}

static int check_states(struct node *n, const char *dir, struct report *r)
{
	char cid[NETCONF_NAME_MAX], ifname[IFNAMSIZ];
	char **names = NULL;
	size_t count = 0;
	int found = 0;

	fileio_list(dir, ".json", &names, &count);
	for (size_t i = 0; i < count; i++) {
		if (record_state_split(names[i], cid, sizeof(cid), ifname) == 0) {
			check_state(n, dir, cid, ifname, r);
			found++;
		}
		free(names[i]);
	}
	free(names);
	return found;
}

/* What a lock file says of its holder, for messages. */
static void show_holder(const char *name, char *out, size_t size)
{
	struct record_holder h;
	int ret = statefile_lock_holder(name, &h);

	if (ret == 0 && h.dir[0])
		snprintf(out, size, "%s:%s (state in %s)", h.containerid, h.ifname, h.dir);
	else
		snprintf(out, size, "%s", ret == 0 ? "(no record)" : "(damaged record)");
}

/* One lock file: WARN when a process holds it (/proc/locks, so the doctor
 * itself never takes a lock an ADD could wait for). */
static bool check_lock(const char *name, const char *locks, struct report *r)
{
	char path[PATH_MAX], comm[64] = "?", subject[64], holder[RECORD_HOLDER_MAX + 32];
	struct stat st;
	pid_t pid;

	if (snprintf(path, sizeof(path), "%s/%s", NODELOCK_DIR, name) >= (int)sizeof(path) ||
	    stat(path, &st) < 0 ||
	    procfs_lock_holder(locks, major(st.st_dev), minor(st.st_dev), st.st_ino, &pid) < 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	sysfs_read_attr(path, comm, sizeof(comm));
	show_holder(name, holder, sizeof(holder));
	snprintf(subject, sizeof(subject), "%.*s", (int)(strlen(name) - 5), name);
	report_add(r, REPORT_WARN, "vf-lock", subject, "an ADD, DEL or its IPAM plugin is at work; "
		   "if the lock stays held, that process is stuck: look at it",
		   "held by pid %d (%s) for %s", (int)pid, comm, holder);
	return true;
}

static void check_locks(struct report *r)
{
	char *locks = NULL, **names = NULL;
	size_t count = 0, held = 0;

	if (fileio_read("/proc", "locks", &locks, NULL) < 0) {
		report_add(r, REPORT_WARN, "vf-locks", "node", "mount /proc", "cannot read /proc/locks");
		return;
	}
	fileio_list(NODELOCK_DIR, ".lock", &names, &count);
	for (size_t i = 0; i < count; i++) {
		held += check_lock(names[i], locks, r);
		free(names[i]);
	}
	free(names);
	free(locks);
	report_add(r, REPORT_OK, "vf-locks", "node", NULL, "%zu VF lock files in %s, %zu held",
		   count, NODELOCK_DIR, held);
}

void node_attach_checks(struct node *n, struct report *r)
{
	int states = 0;

	check_parked(n, r);
	for (int i = 0; i < n->n_data_dirs; i++)
		states += check_states(n, n->data_dirs[i], r);
	if (!states)
		report_add(r, REPORT_OK, "attach", "node", NULL, "no attachment state in %d dataDirs",
			   n->n_data_dirs);
	check_locks(r);
}
