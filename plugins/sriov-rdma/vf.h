/* SPDX-License-Identifier: Apache-2.0 */
/* The VF: found through sysfs, judged usable, its admin settings set on the PF. */
#pragma once

#include "attach.h"

/* The VF of conf.device_id as sysfs shows it now, into a->vf. */
int vf_read(struct attach *a, struct cni_err *err);
/* vf_read, and a VF bound to a kernel driver (RDMA needs a netdev). */
int vf_resolve(struct attach *a, struct cni_err *err);
/* The VF's PF netdev in the host: sets pf_ifindex. */
int vf_find_pf(struct attach *a, struct cni_err *err);
/* ADD, before any change: the VF settings the config asks for as the PF
 * reports them now, kept in the state so DEL can put them back. */
int vf_prepare(struct attach *a, struct cni_err *err);
/* ADD's step and its undo, also DEL's (what was changed goes back). */
int vf_apply(struct attach *a, struct cni_err *err);
int vf_restore(struct attach *a, struct cni_err *err);
