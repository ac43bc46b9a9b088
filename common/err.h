/* SPDX-License-Identifier: Apache-2.0 */
/* The CNI error that travels down the call chain and is printed once by main. */
#pragma once

#include <stdbool.h>

/* CNI spec codes, then our own (100+, documented in the README). */
enum cni_code {
	CNI_OK = 0,
	CNI_ERR_VERSION = 1,		/* incompatible CNI version */
	CNI_ERR_UNSUPPORTED = 2,	/* unsupported field in network config */
	CNI_ERR_UNKNOWN_CONTAINER = 3,	/* container unknown or does not exist */
	CNI_ERR_ENV = 4,		/* invalid necessary environment variables */
	CNI_ERR_IO = 5,			/* I/O failure */
	CNI_ERR_DECODE = 6,		/* failed to decode content */
	CNI_ERR_CONFIG = 7,		/* invalid network config */
	CNI_ERR_TRY_AGAIN = 11,		/* try again later */
	CNI_ERR_NOT_READY = 50,		/* plugin not available (STATUS) */
	CNI_ERR_LIMITED = 51,		/* plugin limited connectivity (STATUS) */
	CNI_ERR_DEVICE = 100,		/* VF unusable: no such device, not a VF, wrong driver, no netdev */
	CNI_ERR_DEVICE_BUSY = 101,	/* VF held by another attachment */
	CNI_ERR_RDMA_MODE = 102,	/* RDMA subsystem in shared netns mode */
	CNI_ERR_NO_RDMA = 103,		/* VF has no (or more than one) RDMA device */
	CNI_ERR_NETLINK = 104,		/* the kernel refused a link, VF, address or route change */
	CNI_ERR_RDMA_NETLINK = 105,	/* the kernel refused an RDMA netlink request */
	CNI_ERR_IPAM = 106,		/* the IPAM plugin could not be run or failed */
	CNI_ERR_CHECK = 107,		/* CHECK found the pod differs from prevResult */
	CNI_ERR_EXHAUSTED = 110,	/* no free address in the range */
	CNI_ERR_ADDR_TAKEN = 111,	/* requested address is not free or not in range */
	CNI_ERR_STORE = 112,		/* IPAM store unusable (permissions, corruption) */
};

#define CNI_ERR_MSG_MAX 512
#define CNI_ERR_DETAILS_MAX 1024

struct cni_err {
	int code;
	char msg[CNI_ERR_MSG_MAX];
	char details[CNI_ERR_DETAILS_MAX];
};

/* Sets code and message unless an error is already set: the first (lowest,
 * most precise) error wins, so cleanup failures cannot hide the cause.
 */
__attribute__((format(printf, 3, 4)))
void cni_err_set(struct cni_err *err, int code, const char *fmt, ...);

/* Appends to details (e.g. the kernel's extack text); no-op if err is NULL. */
__attribute__((format(printf, 2, 3)))
void cni_err_details(struct cni_err *err, const char *fmt, ...);

/* Prefixes the message with context: "failed to move VF x: " + old message. */
__attribute__((format(printf, 2, 3)))
void cni_err_wrap(struct cni_err *err, const char *fmt, ...);

static inline bool cni_err_is_set(const struct cni_err *err)
{
	return err && err->code != CNI_OK;
}

/* The error JSON document ({"cniVersion","code","msg","details"}), malloc'd. */
char *cni_err_json(const struct cni_err *err, const char *cni_version);
