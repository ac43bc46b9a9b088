/* SPDX-License-Identifier: Apache-2.0 */
/* An attachment's state file <dataDir>/<containerID>:<ifname>.json, and the holder line its VF lock file carries. */
#pragma once

#include "err.h"
#include "record.h"

/* Writes s atomically in dir (created when absent) and, when the VF lock is
 * held (lock_fd, taken for lock_id), records it as the VF's holder in the
 * lock file: a holder line that cannot be written costs only the hint, and
 * is logged. */
int statefile_save(const char *dir, const struct record_state *s, int lock_fd,
		   const char *lock_id, struct cni_err *err);
/* The state of (containerid, ifname) in dir into *s, or -ENOENT when absent
 * (and, with a warning naming it, when it does not read or names another
 * attachment: DEL must still succeed from what the host and pod show). */
int statefile_load(const char *dir, const char *containerid, const char *ifname,
		   struct record_state *s, struct cni_err *err);
/* The same read without a word: -errno, -EBADMSG for a file that does not
 * read; *s zeroed first. For looks at other attachments' states. */
int statefile_read(const char *dir, const char *containerid, const char *ifname,
		   struct record_state *s);
/* Removes the state of s in dir (absent is success), and clears the lock
 * file's holder line when it names it. */
int statefile_remove(const char *dir, const struct record_state *s, int lock_fd,
		     const char *lock_id, struct cni_err *err);

/* The holder line of the VF lock held (lock_fd): h->dir "" when none.
 * -EBADMSG when the lock file holds anything its writer cannot have written. */
int statefile_holder(int lock_fd, struct record_holder *h);
/* The same read from any VF lock file (lock_name in NODELOCK_DIR), not held:
 * for the doctor and for looks at every attachment of the node. -ENOENT
 * when there is no such file, -EBADMSG when it is damaged. */
int statefile_lock_holder(const char *lock_name, struct record_holder *h);
