// SPDX-License-Identifier: Apache-2.0
/* The node agent's status file: its last run, written by the agent, read by the doctor. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "agentstatus.h"
#include "json.h"

static const struct {
	const char *key;
	size_t off;
} fields[] = {
	{ "time", offsetof(struct agentstatus, time) },
	{ "interval", offsetof(struct agentstatus, interval) },
	{ "undone", offsetof(struct agentstatus, undone) },
	{ "freed", offsetof(struct agentstatus, freed) },
	{ "failed", offsetof(struct agentstatus, failed) },
};

#define FIELD(s, i) ((int64_t *)((char *)(s) + fields[i].off))

char *agentstatus_encode(const struct agentstatus *s)
{
	cJSON *root = cJSON_CreateObject();

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		cJSON_AddNumberToObject(root, fields[i].key, (double)*FIELD(s, i));
	cJSON_AddStringToObject(root, "error", s->error);
	return json_print_free(root, root ? 0 : -ENOMEM);
}

int agentstatus_decode(const char *text, struct agentstatus *s)
{
	cJSON *root = cJSON_Parse(text);
	const cJSON *err = cJSON_GetObjectItemCaseSensitive(root, "error");
	int ret = -EBADMSG;

	memset(s, 0, sizeof(*s));
	if (!cJSON_IsString(err) || strlen(err->valuestring) >= sizeof(s->error))
		goto out;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!json_int64(cJSON_GetObjectItemCaseSensitive(root, fields[i].key), FIELD(s, i)) ||
		    *FIELD(s, i) < 0)
			goto out;
	strcpy(s->error, err->valuestring);
	ret = 0;
out:
	if (ret)
		memset(s, 0, sizeof(*s));
	cJSON_Delete(root);
	return ret;
}
