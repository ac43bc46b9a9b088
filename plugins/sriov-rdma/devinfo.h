/* SPDX-License-Identifier: Apache-2.0 */
/* The VF's device-info document (NPWG Device Information Specification 1.1.0), made or completed. */
#pragma once

#include <stddef.h>
#include "err.h"

#define DEVINFO_VERSION "1.1.0"
/* Larger device-info files are refused (the spec's documents are < 1 KiB). */
#define DEVINFO_MAX 65536

struct devinfo {
	const char *pci;	/* the VF's PCI address (or SF id) */
	const char *pf_pci;	/* "" for a sub-function */
	const char *rdma;	/* the RDMA device's name in the pod, "" when none */
};

/* The document to write: {"type": "pci", "version": "1.1.0", "pci":
 * {"pci-address", "pf-pci-address", "rdma-device"}}, or, when old (len
 * bytes, not NUL-terminated; NULL when there is no file) is the device
 * plugin's copy, old with those keys set, "version" raised to 1.1.0 and
 * every other key kept. Refused (code 6, -EBADMSG): old is not a JSON
 * object; (code 7, -EINVAL): its "type" is not "pci", or its "pci-address"
 * or "pf-pci-address" names another device. path names the file in errors.
 * *out is malloc'd, NUL-terminated. */
int devinfo_merge(const char *old, size_t len, const struct devinfo *d, const char *path,
		  char **out, struct cni_err *err);
