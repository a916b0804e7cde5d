/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Keeping the standard fds apart from the ones a program makes: with 0, 1
 * or 2 closed, the next pipe or socket lands there, and whatever later
 * reads, writes or dup2s the standard fds takes it for stdio.
 */

/* Open /dev/null (read-write) on each of 0, 1 and 2 that is closed, as
 * bubblewrap and OpenSSH do at their start; open ones are left alone.
 * 0 or -errno. */
int stdfd_sanitise(void);

/* FD itself when it is above 2; otherwise a close-on-exec copy above 2,
 * and FD is closed. -errno (FD closed) when no copy can be made. */
int stdfd_move_above(int fd);
