/* SPDX-License-Identifier: Apache-2.0 */
/* Call records: one fixed-size binary record per CNI call, appended to a node-local file the agent folds into metrics. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The directory of the call records and of the agent's status and totals
 * (docs/metrics.md): $SRIOV_RDMA_AGENT_DIR, else CALLREC_DIR. Gone with
 * /run at boot, as the attachments the calls made. */
#define CALLREC_DIR "/run/sriov-rdma/agent"
#define CALLREC_FILE "calls"		/* the records, appended */
#define CALLREC_OLD "calls.old"		/* the agent's previous file, read once more */
#define CALLREC_DROPPED "calls.dropped"	/* one byte per record not written: file full */
/* Past this size a call appends no record, it counts a drop: 8192 records. */
#define CALLREC_FILE_MAX (1 << 20)

#define CALLREC_SIZE 128
#define CALLREC_NETWORK_MAX 64		/* bytes of the network name kept */

enum callrec_plugin { CALLREC_SRIOV_RDMA = 1, CALLREC_IPPOOL = 2 };

struct callrec {
	uint8_t plugin;			/* enum callrec_plugin */
	uint8_t verb;			/* enum cni_cmd */
	uint16_t code;			/* CNI error code, 0 on success */
	uint32_t duration_us;		/* saturates at UINT32_MAX */
	uint64_t time_ms;		/* unix time of the call's start */
	uint8_t trace[16];		/* TRACEPARENT's trace id, zeros: none */
	char network[CALLREC_NETWORK_MAX + 1];	/* "" when none; truncated */
};

/* $SRIOV_RDMA_AGENT_DIR or CALLREC_DIR. */
const char *callrec_dir(void);

/* The record as CALLREC_SIZE bytes: little-endian fields, zero padding, a
 * checksum of the rest at the end. The network name is cut at
 * CALLREC_NETWORK_MAX bytes. */
void callrec_encode(const struct callrec *r, uint8_t out[CALLREC_SIZE]);
/* 0, or -EBADMSG when in is no record callrec_encode writes. */
int callrec_decode(const uint8_t in[CALLREC_SIZE], struct callrec *r);

typedef void (*callrec_fn)(const struct callrec *r, void *arg);
/* fn for each record in buf[0..len) in order. Bytes that are no record are
 * skipped up to the next record that decodes, and counted in *damaged as
 * records (rounded up). A tail shorter than a record is left, not counted,
 * unless final (no writer can still complete it). Returns the bytes used. */
size_t callrec_scan(const uint8_t *buf, size_t len, bool final, callrec_fn fn, void *arg,
		    uint64_t *damaged);

/* Appends r to dir/CALLREC_FILE (dir created when absent) in one O_APPEND
 * write, no fsync; when the file holds CALLREC_FILE_MAX bytes, appends one
 * byte to dir/CALLREC_DROPPED instead (its size is the count, up to the
 * same cap) and returns -ENOSPC. -errno otherwise; the caller goes on. */
int callrec_append(const char *dir, const struct callrec *r);

/* Whether a plugin can append to dir/CALLREC_FILE now: opens it as
 * callrec_append does (creating it), closes it. 0 or -errno. */
int callrec_probe(const char *dir);
