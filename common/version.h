/* SPDX-License-Identifier: Apache-2.0 */
/* CNI spec versions: parsing, what each command needs, the VERSION answer. */
#pragma once

#include "err.h"

enum cni_version {
	CNI_V030,
	CNI_V031,
	CNI_V040,
	CNI_V100,
	CNI_V110,
	CNI_VERSION_COUNT,
};

int version_parse(const char *s, enum cni_version *out);	/* -EINVAL */
const char *version_str(enum cni_version v);
/* {"cniVersion": "<v>", "supportedVersions": [...]}, malloc'd. */
char *version_info_json(const char *cni_version);
