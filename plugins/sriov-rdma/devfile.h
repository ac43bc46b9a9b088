/* SPDX-License-Identifier: Apache-2.0 */
/* The device-info file Multus names (runtimeConfig.CNIDeviceInfoFile): completed on ADD, removed on DEL. */
#pragma once

#include "attach.h"

/* prepare (before any change) refuses a path that crosses a symlink and a
 * device plugin's copy about another device, and makes the document from
 * it; write puts it in place atomically; remove (DEL) deletes it. */
int devfile_prepare(struct attach *a, struct cni_err *err);
int devfile_write(struct attach *a, struct cni_err *err);
int devfile_remove(struct attach *a, struct cni_err *err);
