/* SPDX-License-Identifier: Apache-2.0 */
/* SR-IOV VF info of the simulated PF on real rtnetlink sockets of the host
 * netns: RTM_SETLINK with IFLA_VFINFO_LIST answered from the state file,
 * RTM_GETLINK with RTEXT_FILTER_VF answered by the kernel with the VFs added. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

typedef ssize_t (*vfinfo_recvmsg_t)(int fd, struct msghdr *msg, int flags);

/* A request the application sends on fd: true when the simulator answered
 * it (the reply waits for vfinfo_recv), false when it goes to the kernel. */
bool vfinfo_send(const char *path, int fd, const void *buf, size_t len);
/* recvmsg on fd: from the simulator when it has the next datagram, else
 * from the kernel (kernel is the real recvmsg). */
ssize_t vfinfo_recv(const char *path, int fd, struct msghdr *msg, int flags,
		    vfinfo_recvmsg_t kernel);
/* fd is closed: whatever waits for it goes. */
void vfinfo_close(int fd);
