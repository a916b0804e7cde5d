/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What both gates init serves (unix_gate.c, create_gate.c) do with a
 * notification and its caller: answer it, check it is still pending, reach
 * the caller's fds and memory. One copy.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Answer notification id: val, or -errno in error. A caller that is gone
 * (or that a fatal signal ended) is not an error. */
void gate_reply(int listener, uint64_t id, int64_t val, int error);
/* The kernel goes on with the call itself (only where re-reading its
 * arguments cannot matter: see the callers). */
void gate_reply_continue(int listener, uint64_t id);
/* Is notification id still pending (its caller still waiting)? */
bool gate_id_valid(int listener, uint64_t id);
/* Ask the kernel to hand the CPU over directly between the caller and init
 * (a speed hint; the kernels without it are served the same way). */
void gate_sync_wakeup(int listener);
/* A pidfd for the caller's thread tid (its thread group's before 6.9). */
int gate_pidfd_open(pid_t tid);
/* The caller's fd, as a new fd of ours. */
int gate_pidfd_getfd(int pidfd, int fd);
/* Copy len bytes at addr out of the caller: 0, -ESRCH (gone), -EFAULT. */
int gate_peek(pid_t tid, uint64_t addr, void *buf, size_t len);
