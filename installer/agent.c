// SPDX-License-Identifier: Apache-2.0
/* The node agent's run: the reconciles, the call records folded in, the totals, status and metrics written. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "agent.h"
#include "agentstatus.h"
#include "callrec.h"
#include "child.h"
#include "fileio.h"
#include "summary.h"
#include "sysfs.h"
#include "vfstate.h"

struct agent {
	const struct agent_opts *o;
	struct totals t;
	struct agentstatus status;	/* this run's */
	bool writable;			/* last run's view, to log changes only */
};

/* A line of this run's errors for the status file, kept while it fits. */
__attribute__((format(printf, 2, 3)))
static void run_error(struct agent *a, const char *fmt, ...)
{
	char *e = a->status.error;
	size_t len = strlen(e);
	va_list ap;

	if (len + 3 >= sizeof(a->status.error))
		return;
	if (len)
		len += (size_t)snprintf(e + len, sizeof(a->status.error) - len, "; ");
	va_start(ap, fmt);
	vsnprintf(e + len, sizeof(a->status.error) - len, fmt, ap);
	va_end(ap);
	fprintf(stderr, "agent: %s\n", e + len);
}

struct agent *agent_new(const struct agent_opts *o)
{
	struct agent *a = calloc(1, sizeof(*a));
	char *text = NULL;
	int ret;

	if (!a)
		return NULL;
	a->o = o;
	a->writable = true;
	ret = fileio_read_max(callrec_dir(), AGENT_TOTALS_FILE, 16 << 20, &text, NULL);
	if (ret == 0 && totals_decode(text, &a->t) < 0)
		fprintf(stderr, "agent: %s/%s does not read: counting starts over\n", callrec_dir(),
			AGENT_TOTALS_FILE);
	else if (ret < 0 && ret != -ENOENT)
		fprintf(stderr, "agent: cannot read %s/%s: %s: counting starts over\n", callrec_dir(),
			AGENT_TOTALS_FILE, strerror(-ret));
	free(text);
	return a;
}

void agent_free(struct agent *a)
{
	free(a);
}

/* ---- the reconciles */

static const char *const kinds[] = { [SUMMARY_SRIOV_RDMA] = "sriov-rdma", [SUMMARY_IPPOOL] = "ippool" };

/* ippool's stores in the order the agent takes them: its default (NULL), then each --ippool-conf. */
static int n_stores(const struct agent *a)
{
	return a->o->n_ippool_confs + 1;
}

static const char *store(const struct agent *a, int i)
{
	return i ? a->o->ippool_confs[i - 1] : NULL;
}

/* The command as the log names it: "ippool reconcile --conf F". */
static void command_name(enum summary_kind kind, const char *verb, const char *conf, char *out,
			 size_t size)
{
	snprintf(out, size, "%s %s%s%s", kinds[kind], verb, conf ? " --conf " : "", conf ? conf : "");
}

static void log_items(const struct summary *s, enum summary_kind kind, const char *cmd)
{
	for (int i = 0; i < s->n_items; i++) {
		const struct summary_item *it = &s->items[i];

		if (!strcmp(it->action, "kept"))
			continue;
		printf("agent: %s: %s %s:%s (network %s, %s %s, netns %s %s)%s%s\n", cmd, it->action,
		       it->containerid, it->ifname, it->network[0] ? it->network : "-",
		       kind == SUMMARY_SRIOV_RDMA ? "VF" : "addresses", it->what,
		       it->netns[0] ? it->netns : "-", it->verdict, it->error[0] ? ": " : "",
		       it->error);
	}
}

/* What a reconcile did, into the totals and this run's status. */
static void count(struct agent *a, enum summary_kind kind, const struct summary *s)
{
	if (kind == SUMMARY_SRIOV_RDMA) {
		a->status.undone += s->done;
		a->t.undone += (uint64_t)s->done;
	} else {
		a->status.freed += s->done;
		a->t.freed += (uint64_t)s->done;
	}
	a->status.failed += s->failed;
}

/* One reconcile, run and read. */
static void reconcile(struct agent *a, enum summary_kind kind, const char *conf)
{
	char path[PATH_MAX], cmd[PATH_MAX + 64], *out = NULL;
	char *argv[8] = { path, "reconcile", "--json" };
	struct summary s;
	int rc, n = 3;

	if (a->o->grace) {
		argv[n++] = "--grace";
		argv[n++] = (char *)a->o->grace;
	}
	if (conf) {
		argv[n++] = "--conf";
		argv[n++] = (char *)conf;
	}
	snprintf(path, sizeof(path), "%s/%s", a->o->bin_dir, kinds[kind]);
	command_name(kind, "reconcile", conf, cmd, sizeof(cmd));
	rc = child_run(argv, &out);
	if (rc < 0) {
		run_error(a, "cannot run %s: %s", path, strerror(-rc));
	} else if (summary_reconcile(out, kind, &s) < 0) {
		run_error(a, "%s: exit %d, no summary on stdout", cmd, rc);
	} else {
		log_items(&s, kind, cmd);
		count(a, kind, &s);
		if (rc)
			run_error(a, "%s: exit %d, %ld left for the next run", cmd, rc, s.failed);
		summary_release(&s);
	}
	if (rc)
		a->t.errors[kind == SUMMARY_IPPOOL]++;
	fflush(stdout);
	free(out);
}

static bool stopping(const sigset_t *stop)
{
	sigset_t pending;

	sigpending(&pending);
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(stop, sig) == 1 && sigismember(&pending, sig) == 1)
			return true;
	return false;
}

/* sriov-rdma's first (its IPAM DEL frees the leases of what it undoes),
 * then ippool's stores; none started once a stop signal is pending. */
static void reconcile_all(struct agent *a, const sigset_t *stop)
{
	for (int i = -1; i < n_stores(a); i++) {
		if (stopping(stop)) {
			printf("agent: stopping: the reconciles not started are left for the next run\n");
			return;
		}
		if (i < 0)
			reconcile(a, SUMMARY_SRIOV_RDMA, NULL);
		else
			reconcile(a, SUMMARY_IPPOOL, store(a, i));
	}
}

/* ---- the call records */

struct file {
	int fd;
	uint64_t ino, size;
};

static int open_file(const char *name, struct file *f)
{
	char path[PATH_MAX];
	struct stat st;

	f->fd = -1;
	snprintf(path, sizeof(path), "%s/%s", callrec_dir(), name);
	f->fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (f->fd < 0)
		return -errno;
	if (fstat(f->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(f->fd);
		f->fd = -1;
		return -EINVAL;
	}
	f->ino = st.st_ino;
	f->size = (uint64_t)st.st_size;
	return 0;
}

static void fold_one(const struct callrec *r, void *arg)
{
	totals_fold(arg, r);
}

/* The records of f past what was read, into the totals; the new position. */
static uint64_t fold_file(struct agent *a, const struct file *f, bool final)
{
	uint64_t from = totals_offset(&a->t, f->ino), damaged = 0;
	size_t len;
	char *buf;
	ssize_t n;

	if (from > f->size)
		from = 0;	/* another file at the same inode */
	len = (size_t)(f->size - from);
	buf = malloc(len + 1);
	if (!buf)
		return from;
	n = pread(f->fd, buf, len, (off_t)from);
	if (n > 0) {
		from += callrec_scan((const uint8_t *)buf, (size_t)n, final, fold_one, &a->t, &damaged);
		a->t.damaged += damaged;
		if (damaged)
			fprintf(stderr, "agent: %" PRIu64 " damaged call records skipped in %s/%s\n",
				damaged, callrec_dir(), final ? CALLREC_OLD : CALLREC_FILE);
	}
	free(buf);
	return from;
}

/* calls.dropped grows a byte per call a full file did not record. */
static void fold_dropped(struct agent *a)
{
	struct file f;
	uint64_t seen;

	if (open_file(CALLREC_DROPPED, &f) < 0)
		return;
	seen = f.ino == a->t.dropped.ino && f.size >= a->t.dropped.offset ? a->t.dropped.offset : 0;
	if (f.size > seen) {
		a->t.dropped_full += f.size - seen;
		fprintf(stderr, "agent: %" PRIu64 " CNI calls not recorded: %s/%s was full (%d bytes)\n",
			f.size - seen, callrec_dir(), CALLREC_FILE, CALLREC_FILE_MAX);
	}
	a->t.dropped = (struct totals_pos){ f.ino, f.size };
	close(f.fd);
}

/* Whether a plugin can append now, said when it changes. */
static bool probe(struct agent *a)
{
	int ret = callrec_probe(callrec_dir());

	if (ret < 0 && a->writable)
		fprintf(stderr, "agent: CNI calls go unrecorded: %s/%s: %s\n", callrec_dir(),
			CALLREC_FILE, strerror(-ret));
	else if (ret == 0 && !a->writable)
		printf("agent: CNI calls are recorded again in %s/%s\n", callrec_dir(), CALLREC_FILE);
	a->writable = ret == 0;
	return a->writable;
}

/* calls.old (renamed last run: whatever a plugin that had it open still
 * appended is read now) to its end, calls as far as it is whole. The
 * positions, by inode, are saved with the totals before either file moves,
 * so a crash anywhere counts nothing twice. Returns whether calls.old was
 * there. */
static bool fold_records(struct agent *a, struct file *cur)
{
	struct totals_pos pos[TOTALS_FILES];
	struct file old;
	bool had_old = open_file(CALLREC_OLD, &old) == 0;
	int n = 0;

	fold_dropped(a);
	if (had_old) {
		pos[n] = (struct totals_pos){ old.ino, fold_file(a, &old, true) };
		n++;
		close(old.fd);
	}
	if (open_file(CALLREC_FILE, cur) == 0) {
		pos[n] = (struct totals_pos){ cur->ino, fold_file(a, cur, false) };
		n++;
	}
	/* only now: fold_file looks the old positions up */
	memcpy(a->t.files, pos, sizeof(pos));
	a->t.n_files = n;
	return had_old;
}

/* After the totals are saved: calls.old goes, calls becomes calls.old
 * (a plugin that opened it before the rename appends there, read next
 * run). Returns whether calls.old, the first of the totals' files, went. */
static bool rotate(bool had_old, struct file *cur)
{
	int dfd = open(callrec_dir(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool gone = false;

	if (dfd >= 0) {
		if (had_old)
			gone = unlinkat(dfd, CALLREC_OLD, 0) == 0;
		if (cur->fd >= 0 && cur->size)
			renameat(dfd, CALLREC_FILE, dfd, CALLREC_OLD);
		close(dfd);
	}
	if (cur->fd >= 0)
		close(cur->fd);
	return gone;
}

/* ---- the files written */

static void write_file(const char *dir, const char *name, char *text, mode_t mode, bool durable)
{
	int ret = !text ? -errno : durable ? fileio_write_durable(dir, name, text, strlen(text), mode) :
		  fileio_write(dir, name, text, strlen(text));

	if (ret)
		fprintf(stderr, "agent: cannot write %s/%s: %s\n", dir, name, strerror(-ret));
	free(text);
}

static void node_gauges(struct agent *a, struct metrics_node *n, struct metrics_pf **pfs,
			struct metrics_pool **pools)
{
	int ret = vfstate_read(pfs, &n->n_pfs);

	if (ret < 0)
		run_error(a, "cannot list the PCI devices under %s: %s", sysfs_root(), strerror(-ret));
	n->pfs = *pfs;
	*pools = NULL;
	for (int i = 0; i < n_stores(a); i++) {
		const char *conf = store(a, i);
		char path[PATH_MAX], cmd[PATH_MAX + 64], *out = NULL;
		char *argv[] = { path, "list", "--json", conf ? "--conf" : NULL, (char *)conf, NULL };
		struct metrics_pool *more, *all;
		int n_more, rc;

		snprintf(path, sizeof(path), "%s/ippool", a->o->bin_dir);
		command_name(SUMMARY_IPPOOL, "list", conf, cmd, sizeof(cmd));
		rc = child_run(argv, &out);
		if (rc || summary_pools(out, &more, &n_more) < 0) {
			run_error(a, "%s: exit %d, no pool counts", cmd, rc);
		} else if ((all = realloc(*pools, (size_t)(n->n_pools + n_more + 1) * sizeof(*all)))) {
			memcpy(all + n->n_pools, more, (size_t)n_more * sizeof(*more));
			n->n_pools += n_more;
			*pools = all;
			free(more);
		} else {
			free(more);
		}
		free(out);
	}
	n->pools = *pools;
}

static void write_metrics(struct agent *a, bool writable)
{
	struct metrics_node n = { .records_writable = writable, .last_run = a->status.time };
	struct metrics_pf *pfs = NULL;
	struct metrics_pool *pools = NULL;
	char dir[PATH_MAX];
	char *name;

	node_gauges(a, &n, &pfs, &pools);
	snprintf(dir, sizeof(dir), "%s", a->o->metrics_file);
	name = strrchr(dir, '/');	/* main checks it is absolute */
	*name++ = '\0';
	/* 0644: node_exporter reads it as whatever user it runs as */
	write_file(dir[0] ? dir : "/", name, metrics_render(&a->t, &n), 0644, true);
	free(pfs);
	free(pools);
}

int agent_pass(struct agent *a, const sigset_t *stop)
{
	struct file cur = { .fd = -1 };
	bool had_old, writable;

	memset(&a->status, 0, sizeof(a->status));
	a->status.interval = a->o->interval;
	reconcile_all(a, stop);
	a->t.runs++;
	writable = probe(a);
	had_old = fold_records(a, &cur);
	write_file(callrec_dir(), AGENT_TOTALS_FILE, totals_encode(&a->t), 0600, false);
	if (rotate(had_old, &cur)) {
		/* calls.old's inode is free now: a new calls file may get it */
		a->t.files[0] = a->t.files[1];
		a->t.n_files--;
		write_file(callrec_dir(), AGENT_TOTALS_FILE, totals_encode(&a->t), 0600, false);
	}
	a->status.time = (int64_t)time(NULL);
	if (a->o->metrics_file)
		write_metrics(a, writable);
	write_file(callrec_dir(), AGENTSTATUS_FILE, agentstatus_encode(&a->status), 0600, false);
	/* a run that found nothing says nothing: the status file has its time */
	if (a->status.undone || a->status.freed || a->status.failed || a->status.error[0])
		printf("agent: run done: %ld attachments undone, %ld leases freed, %ld left%s%s\n",
		       (long)a->status.undone, (long)a->status.freed, (long)a->status.failed,
		       a->status.error[0] ? ", errors: " : "", a->status.error);
	fflush(stdout);
	return a->status.error[0] ? 1 : 0;
}
