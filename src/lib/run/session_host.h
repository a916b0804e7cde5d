/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the host may change under a session's instance (session_host.c). */

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "cordon/cordon.h"

#define SESSION_IDS_MAX 64 /* host objects checked again per spawn */

/* A host object the instance's rules name by identity. */
struct session_id {
	char *path;
	bool dir;                 /* a directory split into rules by entry: its entries (mtime) */
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
};

struct session_host {
	struct session_id ids[SESSION_IDS_MAX];
	size_t n_ids;
	struct timespec home_mtime[3]; /* HOME, ~/.config, ~/.local/share */
};

/* Record, for the instance p's rules make: the files granted by inode (a
 * tool's executables), the directories deny_exec splits into a rule per
 * entry, HOME's directories. -E2BIG past SESSION_IDS_MAX. */
int session_host_snapshot(struct session_host *h, const struct cordon_policy *p, struct cordon_error *reterr);
/* -ESTALE (reterr naming it) when one of them was replaced since. */
int session_host_check(const struct session_host *h, struct cordon_error *reterr);
/* HOME's directories changed since: their new entries are unreadable. */
bool session_host_home_changed(const struct session_host *h);
void session_host_done(struct session_host *h);
