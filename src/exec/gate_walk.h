/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The write gate's walk (gate_walk.c): a caller's (dirfd, path) resolved
 * exactly as the caller's kernel walk would, one component at a time, to
 * the parent directory (an O_PATH fd) and the last name. create_gate.c
 * decides and performs the call on what this returns.
 */

#include <stdbool.h>
#include <stdint.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/types.h>

struct create_set;

/* One call being answered. */
struct cop {
	int listener;
	uint64_t id;
	pid_t tid;
	int pidfd;
	const struct create_set *set;
};

/* The parent a name would be made in, and the name. */
struct resolved {
	int dir;                /* O_PATH */
	char name[NAME_MAX + 2]; /* with the caller's trailing slash, if any */
	bool magic;             /* a procfs magic link: the kernel follows it to an existing file */
	bool exists;
	struct stat st;         /* lstat of name, when it exists */
};

void gate_resolved_done(struct resolved *r);
/* A NUL-terminated string of at most size bytes out of the caller. */
int gate_peek_string(pid_t tid, uint64_t addr, char *buf, size_t size);
/* The caller's fd (pidfd_getfd; the pidfd is opened once per call). */
int gate_take_fd(const struct cop *c, int fd);
/* The directory (dirfd, path) starts from; -1 for an absolute path. */
int gate_start_dir(const struct cop *c, int dirfd, const char *path);
/* Walk path from dir (taken over; -1: absolute) to its last component;
 * follow_last: a trailing symlink is followed as well. */
int gate_walk(const struct cop *c, int dir, const char *path, bool follow_last, struct resolved *ret);
int gate_resolve_path(const struct cop *c, int dirfd, const char *path, bool follow_last, struct resolved *ret);
int gate_resolve_arg(const struct cop *c, int dirfd, uint64_t addr, bool follow_last, struct resolved *ret);
