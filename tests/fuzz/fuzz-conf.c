// SPDX-License-Identifier: Apache-2.0
/* Fuzz target: the sriov-rdma config parser on arbitrary stdin documents. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_ether.h>
#include "fuzz.h"
#include "conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What ADD may act on is what sriov-cni's rules allow. */
static bool vf_valid(const struct conf *c)
{
	const struct vf_config *vf = &c->vf;

	if ((c->vf_mask & VF_VLAN) &&
	    (vf->vlan < 0 || vf->vlan > 4094 || vf->qos < 0 || vf->qos > 7 ||
	     (vf->vlan == 0 && (vf->qos || vf->vlan_proto == ETH_P_8021AD)) ||
	     (vf->vlan_proto != ETH_P_8021Q && vf->vlan_proto != ETH_P_8021AD)))
		return false;
	if (((c->vf_mask & VF_SPOOFCHK) && (unsigned int)vf->spoofchk > 1) ||
	    ((c->vf_mask & VF_TRUST) && (unsigned int)vf->trust > 1) ||
	    ((c->vf_mask & VF_LINK_STATE) && (unsigned int)vf->link_state > VF_LINK_DISABLE))
		return false;
	if (vf->max_tx_rate && vf->min_tx_rate > vf->max_tx_rate)
		return false;
	return c->has_mac == !!(c->vf_mask & VF_MAC) &&
	       (!c->has_mac || (!(c->mac[0] & 1) && memcmp(c->mac, "\0\0\0\0\0\0", 6) &&
				!memcmp(c->mac, vf->mac, 6)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cni_args args = { .mac = "02:00:00:00:00:01" };
	struct cni_err err = { 0 };
	struct conf conf;
	char *s = fuzz_text(data, size);

	if (!s)
		return 0;
	if (conf_parse(s, &args, CONF_DEVICE | CONF_VF | CONF_IB, &conf, &err) == 0) {
		/* what parses is what the plugin may act on: it must be valid */
		if (!(conf.is_aux ? sysfs_valid_aux_id(conf.device_id) : sysfs_valid_bdf(conf.device_id)) ||
		    conf.data_dir[0] != '/' || !vf_valid(&conf) || conf.has_ipam != !!conf.ipam_type[0] ||
		    (conf.ib.has_guid && (!conf.ib.guid || conf.ib.guid == UINT64_MAX)))
			abort();
		conf_release(&conf);
	} else if (!err.code) {
		abort();	/* every failure must say why */
	}
	free(s);
	return 0;
}
