/* SPDX-License-Identifier: Apache-2.0 */
/* The 64-bit InfiniBand GUID in the text forms it comes in. No I/O. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* "00:02:c9:03:00:21:6e:70": what ib-sriov-cni, Multus's infinibandGUID and
 * iproute2's `vf N node_guid` take; the first byte is the most significant. */
#define GUID_STR_LEN 23
/* Four groups of four hex digits: net.ParseMAC's "0002.c903.0021.6e70" and
 * sysfs's node_guid "0002:c903:0021:6e70". */
#define GUID_QUAD_STR_LEN 19

/* Exactly GUID_STR_LEN characters, hex digits of either case; -EINVAL
 * otherwise. The form this project writes (state files). */
int guid_parse(const char *s, uint64_t *out);
/* Each spelling of 8 bytes Go's net.ParseMAC takes, as ib-sriov-cni reads a
 * GUID from a config: eight pairs of hex digits (either case) all separated
 * by ':' or all by '-' ("00-02-c9-03-00-21-6e-70"), or four groups of four
 * separated by '.' ("0002.c903.0021.6e70"); -EINVAL otherwise (mixed
 * separators, other group sizes, ParseMAC's 6- and 20-byte forms). */
int guid_parse_any(const char *s, uint64_t *out);
/* The RDMA device's sysfs node_guid: "0002:c903:0021:6e70", an optional
 * newline after it; -EINVAL otherwise. */
int guid_parse_sysfs(const char *s, uint64_t *out);
/* Lower-case text, as the kernel and iproute2 print it. */
void guid_format(uint64_t guid, char out[GUID_STR_LEN + 1]);
/* All zeros (never assigned) and all ones (the "let the device choose"
 * marker) name no port on the fabric. */
bool guid_assigned(uint64_t guid);
