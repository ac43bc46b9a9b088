// SPDX-License-Identifier: Apache-2.0
/* The CNI error: first error wins, context prefixes, the error JSON document. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "err.h"
#include "json.h"

void cni_err_set(struct cni_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err || cni_err_is_set(err))
		return;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

void cni_err_details(struct cni_err *err, const char *fmt, ...)
{
	size_t used;
	va_list ap;

	if (!err)
		return;
	used = strnlen(err->details, sizeof(err->details));
	if (used && used < sizeof(err->details) - 2) {
		memcpy(err->details + used, "; ", 3);
		used += 2;
	}
	if (used >= sizeof(err->details) - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(err->details + used, sizeof(err->details) - used, fmt, ap);
	va_end(ap);
}

void cni_err_wrap(struct cni_err *err, const char *fmt, ...)
{
	char buf[2 * CNI_ERR_MSG_MAX + 2];
	size_t len, old;
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, CNI_ERR_MSG_MAX, fmt, ap);
	va_end(ap);
	len = strlen(buf);
	old = strnlen(err->msg, CNI_ERR_MSG_MAX - 1);
	if (old) {
		memcpy(buf + len, ": ", 2);
		memcpy(buf + len + 2, err->msg, old);
		len += 2 + old;
	}
	if (len > CNI_ERR_MSG_MAX - 1)
		len = CNI_ERR_MSG_MAX - 1;
	memcpy(err->msg, buf, len);
	err->msg[len] = '\0';
}

char *cni_err_json(const struct cni_err *err, const char *cni_version)
{
	cJSON *root = cJSON_CreateObject();
	bool built = root &&
		     cJSON_AddStringToObject(root, "cniVersion", cni_version ? cni_version : "1.1.0") &&
		     cJSON_AddNumberToObject(root, "code", err->code) &&
		     cJSON_AddStringToObject(root, "msg", err->msg) &&
		     (!err->details[0] || cJSON_AddStringToObject(root, "details", err->details));

	return json_print_free(root, built ? 0 : -ENOMEM);
}
