/* SPDX-License-Identifier: Apache-2.0 */
/* The IPAM step: addresses from the plugin ipam.type names (ipamexec.h runs it); chained use has none. */
#pragma once

#include "attach.h"

/* A bookkeeping IPAM type runs while the VF moves: ADD starts it before the
 * moves (add_start, undone by add_abandon) and add collects it; DEL starts
 * it before the moves (del_start) and collects it after (del_finish). Any
 * other type runs whole while the link is in the pod. */
int ipamstep_add_start(struct attach *a, struct cni_err *err);
int ipamstep_add_abandon(struct attach *a, struct cni_err *err);
int ipamstep_add(struct attach *a, struct cni_err *err);
int ipamstep_del(struct attach *a, struct cni_err *err);
int ipamstep_del_start(struct attach *a, struct cni_err *err);
int ipamstep_del_finish(struct attach *a, struct cni_err *err);
