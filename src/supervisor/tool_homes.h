/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tools' private HOMEs of one session (tool_homes.c): a directory of
 * the supervisor's state, made at start and removed at the end.
 */
#pragma once

#include <stddef.h>

/* $XDG_STATE_HOME/cordon/tools/SESSION_ID (else ~/.local/state/...),
 * made mode 0700 (its parents too, 0700 when made), never through a link:
 * *ret its path, *ret_held an fd holding its flock, to keep open for the
 * session's life (close it after tool_homes_remove). Directories of
 * sessions that died without removing theirs are removed first. */
int tool_homes_new(const char *session_id, char **ret, int *ret_held, char *err, size_t errlen);
/* The directory and everything the tools left in it, removed without
 * following a link a tool made there. */
void tool_homes_remove(const char *dir);
