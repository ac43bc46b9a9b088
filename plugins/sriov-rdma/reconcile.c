// SPDX-License-Identifier: Apache-2.0
/* reconcile: the attachments of pods that died without a DEL, found on the node and undone as their DEL would. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cjson/cJSON.h>

#include "cmds.h"
#include "confpath.h"
#include "del.h"
#include "fileio.h"
#include "lockfile.h"
#include "log.h"
#include "nodelock.h"
#include "statefile.h"

#define GRACE_DEFAULT 60

enum verdict { V_LIVE, V_GONE, V_UNKNOWN, V_GRACE, V_BUSY };
enum action { A_UNDONE, A_WOULD_UNDO, A_FAILED, A_KEPT };

static const char *const verdicts[] = {
	[V_LIVE] = "live", [V_GONE] = "gone", [V_UNKNOWN] = "unknown", [V_GRACE] = "grace",
	[V_BUSY] = "busy",
};
static const char *const actions[] = {
	[A_UNDONE] = "undone", [A_WOULD_UNDO] = "would-undo", [A_FAILED] = "failed",
	[A_KEPT] = "kept",
};

struct run {
	long grace;
	bool dry_run, json;
	char boot[NSIDENT_BOOT_MAX];	/* "" when unreadable: nothing is gone then */
	uint64_t now;
	int undone, failed;
	cJSON *items;
};

/* A state file found: its directory and name. */
struct target {
	char *dir;
	char containerid[NETCONF_NAME_MAX];
	char ifname[IFNAMSIZ];
};

struct targets {
	struct target *v;
	size_t n, cap;
};

/* What one attachment came to. */
struct outcome {
	enum verdict verdict;
	enum action action;
	bool vanished;			/* its DEL finished meanwhile: nothing to report */
	struct cni_err err;
};

static int add_target(struct targets *t, const char *dir, const char *containerid,
		      const char *ifname)
{
	struct target *n;

	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].dir, dir) && !strcmp(t->v[i].containerid, containerid) &&
		    !strcmp(t->v[i].ifname, ifname))
			return 0;
	if (t->n == t->cap) {
		n = realloc(t->v, (t->cap ? 2 * t->cap : 16) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		t->v = n;
		t->cap = t->cap ? 2 * t->cap : 16;
	}
	n = &t->v[t->n];
	n->dir = strdup(dir);
	if (!n->dir)
		return -ENOMEM;
	snprintf(n->containerid, sizeof(n->containerid), "%s", containerid);
	snprintf(n->ifname, sizeof(n->ifname), "%s", ifname);
	t->n++;
	return 0;
}

static void free_targets(struct targets *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].dir);
	free(t->v);
}

/* The state files the VF lock files name, in whatever dataDir: a record
 * that does not parse, or names a directory no dataDir may be, is skipped
 * (named in the log). */
static int find_held(struct targets *t)
{
	char **names = NULL;
	size_t n = 0;
	int ret;

	ret = fileio_list(NODELOCK_DIR, ".lock", &names, &n);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		fprintf(stderr, "reconcile: failed to list %s: %s\n", NODELOCK_DIR, strerror(-ret));
	for (size_t i = 0; i < n; i++) {
		struct cni_err err = { 0 };
		struct record_holder h;
		int got = statefile_lock_holder(names[i], &h);

		if (got < 0)
			log_warn("reconcile: ignoring the damaged holder record in %s/%s: %s",
				 NODELOCK_DIR, names[i], strerror(-got));
		else if (h.dir[0] && confpath_check("dataDir", h.dir, sizeof(h.dir),
						    CONFPATH_WRITE_DIR, &err) < 0)
			log_warn("reconcile: ignoring the holder record in %s/%s: %s", NODELOCK_DIR,
				 names[i], err.msg);
		else if (h.dir[0] && ret == 0)
			ret = add_target(t, h.dir, h.containerid, h.ifname);
		free(names[i]);
	}
	free(names);
	return ret;
}

/* The state files in the default dataDir: after a reboot the lock files
 * are gone with /run, and these are all that is left. */
static int find_default(struct targets *t)
{
	char containerid[NETCONF_NAME_MAX], ifname[IFNAMSIZ];
	char **names = NULL;
	size_t n = 0;
	int ret;

	ret = fileio_list(CONF_DEFAULT_DATA_DIR, ".json", &names, &n);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		fprintf(stderr, "reconcile: failed to list %s: %s\n", CONF_DEFAULT_DATA_DIR,
			strerror(-ret));
	for (size_t i = 0; i < n; i++) {
		if (ret == 0 && record_state_split(names[i], containerid, sizeof(containerid),
						   ifname) == 0)
			ret = add_target(t, CONF_DEFAULT_DATA_DIR, containerid, ifname);
		free(names[i]);
	}
	free(names);
	return ret;
}

static uint64_t age(const struct run *r, const struct record_state *s)
{
	return r->now > s->created ? r->now - s->created : 0;
}

static enum verdict judge(const struct run *r, const struct record_state *s)
{
	if (!record_state_has_request(s))
		return V_UNKNOWN;
	switch (nsident_judge(s->netns, &s->ns, r->boot)) {
	case NSIDENT_LIVE:
		return V_LIVE;
	case NSIDENT_GONE:
		return age(r, s) < (uint64_t)r->grace ? V_GRACE : V_GONE;
	default:
		return V_UNKNOWN;
	}
}

/* The environment the IPAM plugin inherits (ipamexec.h): the runtime's at
 * ADD, as DEL would get it. */
static int set_env(const struct record_state *s)
{
	const char *vars[][2] = {
		{ "CNI_CONTAINERID", s->containerid }, { "CNI_IFNAME", s->ifname },
		{ "CNI_NETNS", s->netns }, { "CNI_ARGS", s->cni_args },
		{ "CNI_PATH", s->cni_path },
	};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (setenv(vars[i][0], vars[i][1], 1) < 0)
			return -errno;
	return 0;
}

/* The DEL the runtime did not run, from the state and its saved request,
 * with the VF lock (lock_fd, the caller's) held. */
static int del_saved(const char *dir, const struct record_state *s, int lock_fd,
		     struct cni_err *err)
{
	struct plugin_ctx ctx = {
		.env = { .cmd = CNI_CMD_DEL, .containerid = s->containerid,
			 .netns = s->netns, .ifname = s->ifname, .args = s->cni_args,
			 .path = s->cni_path },
		.conf = (char *)s->conf,
		.conf_len = strlen(s->conf),
	};
	struct attach *a = NULL;
	int ret;

	ret = set_env(s);
	if (ret < 0)
		cni_err_set(err, CNI_ERR_IO, "failed to set the IPAM environment: %s",
			    strerror(-ret));
	if (ret == 0)
		ret = attach_new_saved(&ctx, dir, s->containerid, s->ifname, &a, err);
	if (ret == 0) {
		a->lock_fd = lock_fd;
		a->netns_gone = true;
		ret = del_own(a, err);
		a->lock_fd = -1;
	}
	attach_free(a);
	/* attach_new_saved took the attachment's logFile and level */
	log_init("warning", NULL);
	return ret;
}

/* An attachment gone at first look, judged again under its VF lock (an
 * ADD in progress holds it: busy), then undone. */
static void undo(const struct run *r, const struct target *t, struct record_state *s,
		 struct outcome *o)
{
	int lock_fd, ret;

	lock_fd = nodelock_vf(s->device_id, LOCKFILE_TRY, &o->err);
	if (lock_fd == -ETIMEDOUT) {
		o->verdict = V_BUSY;
		return;
	}
	ret = lock_fd < 0 ? lock_fd : statefile_read(t->dir, t->containerid, t->ifname, s);
	o->vanished = ret == -ENOENT;
	if (ret == 0)
		o->verdict = judge(r, s);
	if (ret == 0 && o->verdict == V_GONE && r->dry_run)
		o->action = A_WOULD_UNDO;
	if (ret == 0 && o->verdict == V_GONE && !r->dry_run) {
		ret = del_saved(t->dir, s, lock_fd, &o->err);
		if (ret < 0)
			cni_err_wrap(&o->err, "the undo of %s:%s (VF %s, state in %s) failed",
				     t->containerid, t->ifname, s->device_id, t->dir);
		o->action = ret == 0 ? A_UNDONE : A_FAILED;
	} else if (ret < 0 && !o->vanished) {
		o->action = A_FAILED;
	}
	if (o->action == A_FAILED && !cni_err_is_set(&o->err))
		cni_err_set(&o->err, CNI_ERR_IO, "the undo of state %s/%s:%s.json failed: %s",
			    t->dir, t->containerid, t->ifname, strerror(ret < 0 ? -ret : EIO));
	nodelock_release(lock_fd);
}

static int report(struct run *r, const struct target *t, const struct record_state *s,
		  const struct outcome *o)
{
	cJSON *item = cJSON_CreateObject();
	bool known = record_state_has_request(s);

	if (!item || !cJSON_AddItemToArray(r->items, item) ||
	    !cJSON_AddStringToObject(item, "containerID", t->containerid) ||
	    !cJSON_AddStringToObject(item, "ifname", t->ifname) ||
	    !cJSON_AddStringToObject(item, "network", s->network) ||
	    !cJSON_AddStringToObject(item, "deviceID", s->device_id) ||
	    !cJSON_AddStringToObject(item, "netns", s->netns) ||
	    !cJSON_AddNumberToObject(item, "ageSeconds", known ? (double)age(r, s) : -1) ||
	    !cJSON_AddStringToObject(item, "verdict", verdicts[o->verdict]) ||
	    !cJSON_AddStringToObject(item, "action", actions[o->action]) ||
	    (o->action == A_FAILED && !cJSON_AddStringToObject(item, "error", o->err.msg)))
		return -ENOMEM;
	r->undone += o->action == A_UNDONE;
	r->failed += o->action == A_FAILED;
	return 0;
}

/* One state file: a look without the lock (most are live), the undo of
 * one gone past the grace. A file that does not read is kept, unknown. */
static int visit(struct run *r, const struct target *t, struct record_state *s)
{
	struct outcome o = { .verdict = V_UNKNOWN, .action = A_KEPT };
	int ret = statefile_read(t->dir, t->containerid, t->ifname, s);

	if (ret == -ENOENT)
		return 0;
	if (ret < 0) {
		log_warn("reconcile: ignoring damaged state %s/%s:%s.json: %s", t->dir,
			 t->containerid, t->ifname, strerror(-ret));
		memset(s, 0, sizeof(*s));
	} else {
		o.verdict = judge(r, s);
	}
	if (o.verdict == V_GONE)
		undo(r, t, s, &o);
	if (o.action == A_FAILED)
		log_error("reconcile: %s", o.err.msg);
	return o.vanished ? 0 : report(r, t, s, &o);
}

/* A table cell: a string ("-" when empty) or a whole number. */
static const char *cell(const cJSON *v, char buf[32])
{
	if (!cJSON_IsNumber(v))
		return v->valuestring[0] ? v->valuestring : "-";
	snprintf(buf, 32, "%.0f", v->valuedouble);
	return buf;
}

static void print_table(const struct run *r)
{
	static const char *const cols[] = { "containerID", "ifname", "network", "deviceID",
					    "netns", "ageSeconds", "verdict", "action" };
	static const char *const heads[] = { "CONTAINER", "IFNAME", "NETWORK", "DEVICE", "NETNS",
					     "AGE", "VERDICT", "ACTION" };
	int width[8];
	const cJSON *item;
	char buf[32];

	for (size_t c = 0; c < 8; c++)
		width[c] = (int)strlen(heads[c]);
	cJSON_ArrayForEach(item, r->items)
		for (size_t c = 0; c < 8; c++) {
			int len = (int)strlen(cell(cJSON_GetObjectItem(item, cols[c]), buf));

			width[c] = len > width[c] ? len : width[c];
		}
	for (size_t c = 0; c < 8; c++)
		printf("%-*s%s", c < 7 ? width[c] : 0, heads[c], c < 7 ? "  " : "\n");
	cJSON_ArrayForEach(item, r->items) {
		const cJSON *error = cJSON_GetObjectItem(item, "error");

		for (size_t c = 0; c < 8; c++)
			printf("%-*s%s", c < 7 ? width[c] : 0,
			       cell(cJSON_GetObjectItem(item, cols[c]), buf), c < 7 ? "  " : "\n");
		if (error)
			printf("  error: %s\n", error->valuestring);
	}
	printf("%d undone, %d failed%s\n", r->undone, r->failed,
	       r->dry_run ? " (dry run: nothing changed)" : "");
}

static int print_json(const struct run *r)
{
	cJSON *root = cJSON_CreateObject();
	char *text = NULL;
	int ret = -ENOMEM;

	if (root && cJSON_AddBoolToObject(root, "dryRun", r->dry_run) &&
	    cJSON_AddNumberToObject(root, "grace", (double)r->grace) &&
	    cJSON_AddNumberToObject(root, "undone", r->undone) &&
	    cJSON_AddNumberToObject(root, "failed", r->failed) &&
	    cJSON_AddItemReferenceToObject(root, "attachments", r->items))
		text = cJSON_PrintUnformatted(root);
	if (text && printf("%s\n", text) >= 0)
		ret = 0;
	free(text);
	cJSON_Delete(root);
	return ret;
}

static int usage(const char *why)
{
	fprintf(stderr, "sriov-rdma reconcile: %s\n" CMD_RECONCILE_USAGE, why);
	return 2;
}

static int parse_args(int argc, char **argv, struct run *r)
{
	for (int i = 1; i < argc; i++) {
		char *end;

		if (!strcmp(argv[i], "--dry-run")) {
			r->dry_run = true;
		} else if (!strcmp(argv[i], "--json")) {
			r->json = true;
		} else if (!strcmp(argv[i], "--grace") && i + 1 < argc) {
			errno = 0;
			r->grace = strtol(argv[++i], &end, 10);
			if (errno || end == argv[i] || *end || r->grace < 0 || r->grace > INT_MAX)
				return usage("--grace takes a number of seconds");
		} else {
			return usage(!strcmp(argv[i], "--grace") ? "--grace takes a number of seconds"
								 : "unknown argument");
		}
	}
	return 0;
}

int cmd_reconcile(int argc, char **argv)
{
	struct run r = { .grace = GRACE_DEFAULT };
	struct targets t = { 0 };
	struct record_state *s = NULL;
	int ret;

	ret = parse_args(argc, argv, &r);
	if (ret)
		return ret;
	log_init("warning", NULL);
	/* without it no boot can be told apart: nothing is judged gone */
	if (nsident_boot(r.boot) < 0)
		log_warn("reconcile: the boot id does not read: nothing is judged gone");
	r.now = (uint64_t)time(NULL);
	r.items = cJSON_CreateArray();
	s = malloc(sizeof(*s));
	ret = r.items && s ? 0 : -ENOMEM;
	if (ret == 0)
		ret = find_held(&t);
	if (ret == 0)
		ret = find_default(&t);
	for (size_t i = 0; ret == 0 && i < t.n; i++)
		ret = visit(&r, &t.v[i], s);
	if (ret == -ENOMEM)
		fprintf(stderr, "reconcile: out of memory\n");
	if (ret == 0 && r.json)
		ret = print_json(&r);
	else if (ret == 0)
		print_table(&r);
	free(s);
	free_targets(&t);
	cJSON_Delete(r.items);
	log_close();
	return ret < 0 || r.failed ? 1 : 0;
}
