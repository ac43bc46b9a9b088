// SPDX-License-Identifier: Apache-2.0
/* Node check of the node agent: when it last ran, what it freed, whether it has stopped running. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "agentstatus.h"
#include "callrec.h"
#include "fileio.h"
#include "node.h"

/* Runs missed before a node counts as one the agent has left. */
#define MISSED_RUNS 3

#define FIX_AGENT "run the agent: the DaemonSet's agent container with " \
	"SRIOV_RDMA_RECONCILE_INTERVAL=60, or deploy/sriov-rdma-agent.timer; its log says why it stopped"

static void check_last_run(const struct agentstatus *s, struct report *r)
{
	long long age = (long long)time(NULL) - s->time;

	if (s->interval && age > MISSED_RUNS * s->interval)
		report_add(r, REPORT_WARN, "agent", "node", FIX_AGENT, "the agent last ran %llds ago, "
			   "more than %d intervals of %llds: dead pods' VFs and addresses stay held",
			   age, MISSED_RUNS, (long long)s->interval);
	else if (s->interval)
		report_add(r, REPORT_OK, "agent", "node", NULL, "the agent last ran %llds ago (every "
			   "%llds): %lld attachments undone, %lld leases freed, %lld left", age,
			   (long long)s->interval, (long long)s->undone, (long long)s->freed,
			   (long long)s->failed);
	else	/* --once without --reconcile-interval: no period to judge it by */
		report_add(r, REPORT_OK, "agent", "node", NULL, "the agent last ran %llds ago (once, "
			   "no interval): %lld attachments undone, %lld leases freed, %lld left", age,
			   (long long)s->undone, (long long)s->freed, (long long)s->failed);
	if (s->error[0])
		report_add(r, REPORT_WARN, "agent-run", "node", "see the agent's log; what failed is "
			   "tried again next run", "the agent's last run: %s", s->error);
}

void node_agent_checks(struct node *n, struct report *r)
{
	struct agentstatus s;
	char *text = NULL;
	int ret;

	(void)n;
	ret = fileio_read_max(callrec_dir(), AGENTSTATUS_FILE, 64 << 10, &text, NULL);
	/* off is a choice (interval 0, no DaemonSet): said, not warned of; an
	 * agent that runs writes its status at the end of its first run */
	if (ret == -ENOENT)
		report_add(r, REPORT_OK, "agent", "node", NULL, "no node agent has run since boot (no "
			   "%s/%s): what dead pods left waits for their DEL", callrec_dir(),
			   AGENTSTATUS_FILE);
	else if (ret < 0 || agentstatus_decode(text, &s) < 0)
		report_add(r, REPORT_WARN, "agent", "node", FIX_AGENT, "the agent's status %s/%s does "
			   "not read: %s", callrec_dir(), AGENTSTATUS_FILE,
			   ret < 0 ? strerror(-ret) : "damaged");
	else
		check_last_run(&s, r);
	free(text);
}
