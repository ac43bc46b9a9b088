// SPDX-License-Identifier: Apache-2.0
/* Fuzz target: the sriov-rdma config parser on arbitrary stdin documents. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cni_args args = { .mac = "02:00:00:00:00:01" };
	struct cni_err err = { 0 };
	struct conf conf;
	char *s = malloc(size + 1);

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (conf_parse(s, &args, true, &conf, &err) == 0) {
		/* what parses is what the plugin may act on: it must be valid */
		if (!conf.device_id[0] || conf.data_dir[0] != '/' ||
		    (conf.vf.max_tx_rate && conf.vf.min_tx_rate > conf.vf.max_tx_rate) ||
		    (conf.has_mac && (conf.mac[0] & 1)))
			abort();
		conf_release(&conf);
	} else if (!err.code) {
		abort();	/* every failure must say why */
	}
	free(s);
	return 0;
}
