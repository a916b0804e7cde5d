/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The controlled binaries' SHA-256, off the session's start. At start each
 * binary is opened and its identity taken without the hash
 * (identity_stat); the fd is handed over here, and one thread hashes the
 * files in turn (one a call waits for first), then fstat()s the same fd
 * again: a file that changed while it was read is marked changed, its hash
 * worth nothing. A call needs the hash only when the binary's times moved
 * since start (identity_check_file), and then waits for it.
 */

#include <stddef.h>
#include <stdint.h>

#include "identity.h"

struct identity_hasher;

/* Room for n files; nothing runs until identity_hasher_start. */
int identity_hasher_new(size_t n, struct identity_hasher **ret);
/* Hand over fd (open on the file whose identity_stat is id; closed by the
 * hasher, whatever happens) as the next job; its index in *ret_job.
 * -ENOSPC past n, -EBUSY once started: fd is closed then too. */
int identity_hasher_add(struct identity_hasher *h, int fd, const struct file_identity *id, size_t *ret_job);
/* The thread starts on the jobs added. */
int identity_hasher_start(struct identity_hasher *h);
/*
 * Wait (at most timeout_ms) for job's hash: 0 with it in out; -ESTALE when
 * the file changed while it was hashed, -ETIMEDOUT, or the hash's own
 * error (why says which, in words).
 */
int identity_hasher_wait(struct identity_hasher *h, size_t job, uint64_t timeout_ms, uint8_t out[SHA256_BYTES],
			 char *why, size_t n);
/* Stop the thread (a hash under way is given up within one read), join it,
 * close what is left. NULL is fine; returns NULL. */
struct identity_hasher *identity_hasher_free(struct identity_hasher *h);
