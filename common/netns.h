/* SPDX-License-Identifier: Apache-2.0 */
/* Network namespaces: open by path (checked to be one), enter, leave. */
#pragma once

#include "err.h"

/* Opens path O_RDONLY|O_CLOEXEC and checks it is a netns (nsfs, CLONE_NEWNET).
 * ENOENT: -ENOENT (callers decide: DEL treats it as gone). Not a netns:
 * CNI_ERR_ENV naming the path. */
int netns_open(const char *path, int *fd, struct cni_err *err);
/* The current netns, for coming back: returns fd or -errno. */
int netns_current(void);
/* setns(fd, CLONE_NEWNET). */
int netns_enter(int fd);
void netns_close(int fd);
