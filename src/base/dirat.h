/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Directories made below an open directory, one component at a time by fd,
 * never through a link: for the supervisor's own directories, which a
 * sandbox must not be able to redirect.
 */

#include <stddef.h>
#include <sys/types.h>

/* Each component of rel[0..len) made below dirfd (mode, an existing one
 * kept) and opened O_PATH|O_NOFOLLOW; the last one's fd (dirfd duplicated
 * when rel[0..len) names nothing). Empty components are skipped. -errno:
 * ELOOP or ENOTDIR where a component is a link or not a directory. */
int dir_make_open_at(int dirfd, const char *rel, size_t len, mode_t mode);
