/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a caller's stdio may be when it reaches a tool: a pipe, a socket,
 * a terminal, /dev/null and its kin, or a file on a local filesystem. The
 * tool gets stdin as it is and the supervisor writes the tool's output to
 * the caller's stdout and stderr: nothing that can block without end (an
 * eventfd, a named FIFO, a FUSE or network file), nothing the supervisor
 * would write with its own rights (procfs, sysfs), and never a broker's
 * own socket.
 */
#pragma once

#include <stddef.h>

/* 0, or -EPERM with why set ("stdout is an eventfd ..."). */
int stdio_check(const int io[3], char *why, size_t n);
