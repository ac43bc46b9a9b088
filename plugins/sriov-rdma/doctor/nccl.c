// SPDX-License-Identifier: Apache-2.0
/* NCCL's list syntax, written from NCCL's behaviour (src/misc/utils.cc
 * parseStringList/matchIfList and their callers in net_ib.cc and socket.cc). */
#include <stdlib.h>
#include <string.h>
#include "nccl.h"

/* One "prefix[:port]" entry of len bytes; an entry without a prefix is dropped. */
static void add_entry(struct nccl_list *l, const char *s, size_t len)
{
	const char *colon = memchr(s, ':', len);
	size_t plen = colon ? (size_t)(colon - s) : len;

	if (plen == 0 || l->n == NCCL_LIST_MAX)
		return;
	if (plen >= NCCL_PREFIX_MAX)
		plen = NCCL_PREFIX_MAX - 1;
	memcpy(l->entry[l->n].prefix, s, plen);
	l->entry[l->n].prefix[plen] = '\0';
	l->entry[l->n].port = colon ? atoi(colon + 1) : -1;
	l->n++;
}

void nccl_list_parse(const char *s, struct nccl_list *out)
{
	memset(out, 0, sizeof(*out));
	out->exclude = s[0] == '^';
	s += out->exclude;
	out->exact = s[0] == '=';
	s += out->exact;
	/* NCCL's parser drops one more leading '^' or '=' of its own */
	s += s[0] == '^' || s[0] == '=';
	while (*s) {
		size_t len = strcspn(s, ",");

		add_entry(out, s, len);
		s += len + (s[len] == ',');
	}
}

static bool entry_matches(const struct nccl_list *l, int i, const char *name, int port)
{
	const char *prefix = l->entry[i].prefix;
	bool name_ok = l->exact ? strcmp(name, prefix) == 0
				: strncmp(name, prefix, strlen(prefix)) == 0;
	bool port_ok = port == -1 || l->entry[i].port == -1 || port == l->entry[i].port;

	return name_ok && port_ok;
}

bool nccl_list_selects(const struct nccl_list *l, const char *name, int port)
{
	bool listed = l->n == 0;

	for (int i = 0; i < l->n && !listed; i++)
		listed = entry_matches(l, i, name, port);
	return listed != l->exclude;
}
