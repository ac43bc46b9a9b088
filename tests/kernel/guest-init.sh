#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The guest's /init: mounts the kernel's filesystems, runs the lane's guest tests (TAP on ttyS1, the probe's transcript on ttyS2), powers off.
export PATH=/usr/bin:/usr/sbin:/opt/cni/bin:/busybox
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs -o mode=0755 tmpfs /run
mount -t tmpfs tmpfs /tmp
mkdir -p /run/netns /var/lib/cni /var/log
ip link set lo up
hostname kernel-lane
export SRIOV_RDMA=/opt/cni/bin/sriov-rdma IPPOOL=/opt/cni/bin/ippool

# The kernel's messages go to ttyS0 (the console); a guest that oopses
# says so there, and the host reports that as the infrastructure's failure.
bash /src/tests/kernel/guest-tests.sh >/dev/ttyS1 2>&1 3>/dev/ttyS2
echo "guest-tests exit $?" >/dev/ttyS0
sync
poweroff -f
