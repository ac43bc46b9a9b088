/* SPDX-License-Identifier: Apache-2.0 */
/* A PCI device's driver unbound and bound again through sysfs, as
 * `echo <bdf> > /sys/bus/pci/drivers/<driver>/unbind` (then bind) does. */
#pragma once

/* Under sysfs_root(). The kernel's answer is returned: 0, or -errno (ENODEV:
 * no such device, or not bound to that driver; EBUSY: already bound). */
int pcidrv_unbind(const char *driver, const char *bdf);
int pcidrv_bind(const char *driver, const char *bdf);
