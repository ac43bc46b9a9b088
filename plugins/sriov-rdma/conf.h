/* SPDX-License-Identifier: Apache-2.0 */
/* The sriov-rdma network config: sriov-cni's keys plus rdma and dataDir. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include "cniargs.h"
#include "env.h"
#include "err.h"
#include "ibconf.h"
#include "link.h"
#include "linkvf.h"
#include "netconf.h"
#include "sysfs.h"

#define CONF_DEFAULT_DATA_DIR "/var/lib/cni/sriov-rdma"
/* The one directory a device-info file may be in (Device Information
 * Specification 1.1.0); /var/run is commonly a symlink to /run. */
#define CONF_DEVINFO_DIR "/var/run/k8s.cni.cncf.io/devinfo/"

struct conf {
	struct cni_netconf net;
	char device_id[SYSFS_NAME_MAX];	/* PCI address, or auxiliary id of an SF */
	bool is_aux;
	struct vf_config vf;		/* requested VF settings ... */
	unsigned int vf_mask;		/* ... and which of them (enum vf_field) */
	uint8_t mac[6];			/* pod-side MAC (mac, runtimeConfig.mac, MAC=) */
	bool has_mac;
	/* The RDMA device moves with the netdev (false: netdev only); when no
	 * key says so (rdma_key NULL), only in exclusive mode (rdma.c). */
	bool rdma;
	const char *rdma_key;		/* "rdma" or ib-sriov-cni's "rdmaIsolation" */
	struct ib_conf ib;		/* CONF_IB */
	char data_dir[PATH_MAX];
	bool has_ipam;
	char ipam_type[NETCONF_NAME_MAX];
	char log_level[16];
	char log_file[PATH_MAX];
	char devinfo_file[PATH_MAX];	/* runtimeConfig.CNIDeviceInfoFile, "" when not given */
};

/* What a verb reads from the config, beyond what every verb reads. */
enum conf_need {
	CONF_DEVICE = 1 << 0,	/* a deviceID is required */
	CONF_VF = 1 << 1,	/* the VF settings and the MAC (ADD alone applies them) */
	CONF_IB = 1 << 2,	/* the InfiniBand keys: the GUID ADD sets and CHECK verifies */
};

unsigned int conf_needs(enum cni_cmd cmd);

/* Parses and validates everything the verb needs (enum conf_need) before
 * anything is touched; args may carry MAC=. */
int conf_parse(const char *doc, const struct cni_args *args, unsigned int need,
	       struct conf *out, struct cni_err *err);
void conf_release(struct conf *c);
/* "aa:bb:cc:dd:ee:ff", hex digits in either case -> bytes; -EINVAL on anything else. */
int conf_parse_mac(const char *s, uint8_t mac[6]);
