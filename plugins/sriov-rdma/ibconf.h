/* SPDX-License-Identifier: Apache-2.0 */
/* The keys an ib-sriov-cni config has, with ib-sriov-cni's meaning: where the
 * pod's GUID comes from, ibKubernetesEnabled, pkey (rdmaIsolation is read
 * with rdma, in conf.c). No I/O. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include "err.h"

struct ib_conf {
	bool has_guid;
	uint64_t guid;
	const char *guid_key;	/* the key it came from, for messages */
	bool ib_kubernetes;	/* ibKubernetesEnabled */
	bool ib_configured;	/* args.cni["mellanox.infiniband.app"] is "configured" */
	/* The first Ethernet-only key the config has (vlan, vlanQoS, vlanProto,
	 * spoofchk, trust, mac, runtimeConfig.mac), NULL none: an error on an
	 * InfiniBand VF, judged once the link layer is known. */
	const char *eth_key;
};

/* The GUID from runtimeConfig.infinibandGUID (Multus's infinibandGUID
 * capability, passed on as the pod's network selection spells it), else
 * args.cni.guid, else guid; every one given must be a GUID in a spelling
 * ib-sriov-cni takes (guid_parse_any) that names a port (not all zeros, not
 * all ones): CNI_ERR_CONFIG naming the key and value otherwise. rc is
 * runtimeConfig (NULL when absent). */
int ibconf_parse(const cJSON *root, const cJSON *rc, struct ib_conf *out, struct cni_err *err);
/* ibKubernetesEnabled: ib-kubernetes has set the pod up (CNI_ERR_TRY_AGAIN
 * while it has not) and given it a GUID (CNI_ERR_CONFIG). */
int ibconf_check_ready(const struct ib_conf *c, struct cni_err *err);
