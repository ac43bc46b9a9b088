// SPDX-License-Identifier: Apache-2.0
/* Fuzz target: a sriov-rdma state file and a VF lock file's holder line, as damage leaves them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "env.h"
#include "record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A state taken is written back as a record that reads back the same, its
 * request (what reconcile judges and undoes by) whole or absent. */
static void state(const char *text, size_t size)
{
	struct record_state *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	char *out = NULL, *again = NULL;

	if (!a || !b || record_state_decode(text, size, a) != 0)
		goto out;
	if (!env_valid_id(a->containerid) || !env_valid_ifname(a->ifname) ||
	    (a->network[0] && !env_valid_id(a->network)) ||
	    (a->vf_index < 0 && !sysfs_valid_aux_id(a->device_id)))
		abort();
	/* a request is whole, or there is none (reconcile leaves that one) */
	if (record_state_has_request(a) ? !a->netns[0] || strlen(a->ns.boot) != 36 :
	    a->ns.ino || a->ns.boot[0] || a->created || a->conf[0])
		abort();
	out = record_state_encode(a);
	if (!out)
		goto out;
	if (record_state_decode(out, strlen(out), b) != 0)
		abort();
	again = record_state_encode(b);
	if (again && strcmp(out, again))
		abort();
out:
	free(again);
	free(out);
	free(b);
	free(a);
}

/* A holder taken names a state file in a directory with nothing that leaves
 * it, and is the very line its writer makes. */
static void holder(const char *text, size_t size)
{
	char line[RECORD_HOLDER_MAX];
	struct record_holder h;

	if (record_holder_parse(text, size, &h) != 0)
		return;
	if (!h.dir[0]) {
		if (size)
			abort();
		return;
	}
	if (h.dir[0] != '/' || strstr(h.dir, "/../") || strstr(h.dir, "//") ||
	    record_holder_format(h.dir, h.containerid, h.ifname, line) != 0 ||
	    strlen(line) != size || memcmp(line, text, size))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);

	if (!text)
		return 0;
	state(text, size);
	holder(text, size);
	free(text);
	return 0;
}
