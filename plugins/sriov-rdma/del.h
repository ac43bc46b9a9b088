/* SPDX-License-Identifier: Apache-2.0 */
/* DEL: undo what ADD did, in reverse, from the state file or from what the
 * host and pod show; whatever is already gone is success. */
#pragma once

#include "attach.h"

/* With the VF lock held, undo all an attachment did, from its state file or
 * what the host and pod show; IPAM DEL too when release_ip. ADD and GC run
 * it on others' behalf. */
int del_locked(struct attach *a, bool release_ip, struct cni_err *err);
/* The whole DEL of an attachment by its own config (the runtime's, or the
 * one reconcile saved), with the VF lock held: del_locked, IPAM included,
 * and its device-info file. */
int del_own(struct attach *a, struct cni_err *err);
