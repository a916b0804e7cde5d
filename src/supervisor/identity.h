/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A controlled tool's binary, as it was when the session started: which
 * file (device, inode), how big, when last changed, and its SHA-256. A
 * launch opens the binary, checks the open fd against this record and runs
 * exactly that fd (execveat), so a binary swapped after start is refused
 * and nothing can swap it between the check and the exec.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "crypto.h"

/* The largest binary hashed (a cap on work a planted file can cause). */
#define IDENTITY_MAX_BYTES (1ull << 30)

struct file_identity {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
	uint8_t sha256[SHA256_BYTES];
};

/* The identity of the regular file open at fd, all but its hash (left
 * zero). -EACCES for anything but a regular file, -EFBIG over
 * IDENTITY_MAX_BYTES. */
int identity_stat(int fd, struct file_identity *ret);
/* identity_stat and the hash. */
int identity_record(int fd, struct file_identity *ret);
/* Are st's size, mtime and ctime still those recorded in id? */
bool identity_times_match(const struct stat *st, const struct file_identity *id);

/*
 * Is fd the recorded file? Device, inode and size must match (else
 * -ESTALE with the difference in words in why). 0 when mtime and ctime
 * match too: the content is what it was (the kernel moves ctime on every
 * change to the file, and nobody can set it back). 1 when they moved (a
 * touch, a chmod, or a write): only the content can tell,
 * identity_check_content.
 */
int identity_check_file(int fd, const struct file_identity *want, char *why, size_t n);
/* Hash fd again: 0 if it is want->sha256, else -ESTALE (why says so). */
int identity_check_content(int fd, const struct file_identity *want, char *why, size_t n);
/* Both: 0, or -ESTALE with the difference in words in why. */
int identity_check(int fd, const struct file_identity *want, char *why, size_t n);
