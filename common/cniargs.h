/* SPDX-License-Identifier: Apache-2.0 */
/* CNI_ARGS ("K=V;K=V"): the keys Multus and the runtime send. */
#pragma once

#include "err.h"

#define CNIARGS_VAL_MAX 256

struct cni_args {
	char pod_name[CNIARGS_VAL_MAX];		/* K8S_POD_NAME */
	char pod_namespace[CNIARGS_VAL_MAX];	/* K8S_POD_NAMESPACE */
	char pod_uid[CNIARGS_VAL_MAX];		/* K8S_POD_UID */
	char infra_id[CNIARGS_VAL_MAX];		/* K8S_POD_INFRA_CONTAINER_ID */
	char mac[CNIARGS_VAL_MAX];		/* MAC */
	char ip[CNIARGS_VAL_MAX];		/* IP (comma-separated) */
};

/* NULL or "" is an empty set. Unknown keys are an error (CNI_ERR_UNSUPPORTED)
 * unless IgnoreUnknown=1|true is present. Malformed pairs: CNI_ERR_DECODE. */
int cniargs_parse(const char *s, struct cni_args *out, struct cni_err *err);
