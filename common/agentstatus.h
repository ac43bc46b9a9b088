/* SPDX-License-Identifier: Apache-2.0 */
/* The node agent's last run as its status file records it (callrec_dir()/status.json), for the doctor. */
#pragma once

#include <stdint.h>

#define AGENTSTATUS_FILE "status.json"
#define AGENTSTATUS_ERROR_MAX 512

struct agentstatus {
	int64_t time;			/* unix seconds, end of the run */
	int64_t interval;		/* seconds between runs */
	int64_t undone, freed;		/* by this run: attachments undone, leases freed */
	int64_t failed;			/* what could not be, left for the next run */
	char error[AGENTSTATUS_ERROR_MAX];	/* "" when the run had none */
};

/* The document (malloc'd), or NULL (errno). */
char *agentstatus_encode(const struct agentstatus *s);
/* text into *s (zeroed first); -EBADMSG unless every field is there with
 * its type (times and counts 0 or more). */
int agentstatus_decode(const char *text, struct agentstatus *s);
