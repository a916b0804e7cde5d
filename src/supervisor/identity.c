/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "identity.h"

static bool same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

int identity_stat(int fd, struct file_identity *ret)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EACCES;
	if ((uint64_t)st.st_size > IDENTITY_MAX_BYTES)
		return -EFBIG;
	*ret = (struct file_identity){
		.dev = st.st_dev,
		.ino = st.st_ino,
		.size = st.st_size,
		.mtime = st.st_mtim,
		.ctime = st.st_ctim,
	};
	return 0;
}

int identity_record(int fd, struct file_identity *ret)
{
	struct file_identity id;
	int r = identity_stat(fd, &id);

	if (r < 0)
		return r;
	r = sha256_fd(fd, IDENTITY_MAX_BYTES, id.sha256);
	if (r < 0)
		return r;
	*ret = id;
	return 0;
}

bool identity_times_match(const struct stat *st, const struct file_identity *id)
{
	return st->st_size == id->size && same_time(&st->st_mtim, &id->mtime) && same_time(&st->st_ctim, &id->ctime);
}

int identity_check_file(int fd, const struct file_identity *want, char *why, size_t n)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, n, "it is no longer a regular file");
		return -ESTALE;
	}
	if (st.st_dev != want->dev || st.st_ino != want->ino) {
		snprintf(why, n, "it is another file than at session start (replaced)");
		return -ESTALE;
	}
	if (st.st_size != want->size) {
		snprintf(why, n, "its size changed since session start (%lld -> %lld bytes)", (long long)want->size,
			 (long long)st.st_size);
		return -ESTALE;
	}
	return identity_times_match(&st, want) ? 0 : 1;
}

int identity_check_content(int fd, const struct file_identity *want, char *why, size_t n)
{
	uint8_t now[SHA256_BYTES];
	int r = sha256_fd(fd, IDENTITY_MAX_BYTES, now);

	if (r < 0)
		return r;
	if (!bytes_equal(now, want->sha256, sizeof(now))) {
		snprintf(why, n, "its content changed since session start (SHA-256 differs)");
		return -ESTALE;
	}
	return 0;
}

int identity_check(int fd, const struct file_identity *want, char *why, size_t n)
{
	int r = identity_check_file(fd, want, why, n);

	if (r <= 0)
		return r;
	return identity_check_content(fd, want, why, n);
}
