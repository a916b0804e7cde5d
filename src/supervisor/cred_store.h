/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A session's credential values, held by the supervisor (cred_store.c):
 * the secure heap set up (or the session refused: never the plain heap),
 * the process made undumpable, every env:// value read once from the
 * supervisor's own environment and every file:// read at start, a capture
 * run the first time its value is needed and again once its lifetime is
 * over (each run audited: the capture, its redacted argv, exit, duration,
 * byte count; never the value), the session CA made once for every
 * credential host. Each consumer's table (credtable.h) is built from it.
 * Not thread-safe: the supervisor's loop uses it.
 */
#include <event2/event.h>
#include <stddef.h>

#include "audit.h"
#include "credtable.h"
#include "creds.h"
#include "toolbox_creds.h"

struct cred_store;

/* creds may be NULL (no credentials: *ret NULL, nothing set up). audit may
 * be NULL (tests). -ENOMEM when the secure heap cannot be had. */
int cred_store_new(const struct tool_creds *creds, const char *path_env, struct audit_log *audit,
		   struct cred_store **ret, char *err, size_t errlen);
struct cred_store *cred_store_free(struct cred_store *s);

/* credential name's value, now (a capture run when it has none or it
 * expired). The pointer is the store's, valid until the next call. */
int cred_store_value(struct cred_store *s, const char *name, const struct credtable_secret **ret, char *err,
		     size_t errlen);
/* The supervisor's loop, where cred_store_want runs its captures. */
void cred_store_set_base(struct cred_store *s, struct event_base *base);
/* Credential name's index, or -ENOENT. */
int cred_store_index(const struct cred_store *s, const char *name);
const struct tool_creds *cred_store_creds(const struct cred_store *s);

/*
 * Credential i's value, for a proxy that asks: cb(ctx, 0, value, left_usec
 * (0: for ever), NULL) at once when it is held and fresh; else a capture
 * runs without blocking the loop (one for every asker meanwhile; audited)
 * and cb is called from the loop when it ends (cb(ctx, -errno, NULL, 0,
 * why) when it failed or timed out; the next want tries again). The value
 * is the store's, valid during cb. -errno (err set, cb not called) when
 * it cannot even start.
 */
typedef void (*cred_value_cb)(void *ctx, int r, const struct credtable_secret *v, uint64_t left_usec,
			      const char *err);
int cred_store_want(struct cred_store *s, size_t i, cred_value_cb cb, void *ctx, char *err, size_t errlen);
/* Drop every want of ctx (its proxy is gone). */
void cred_store_forget(struct cred_store *s, void *ctx);

/* How many times capture name has run (tests, why). */
unsigned cred_store_capture_runs(const struct cred_store *s, const char *name);

/* consumer's table when its sandbox wants one (toolbox_creds_intercepted):
 * the session CA, every credential it was granted (its value, its phantom,
 * the other consumers' phantoms refused there) and every other credential
 * of the session without a value (its hosts intercepted, all its phantoms
 * refused). *ret NULL when not wanted or the session has no credentials. */
int cred_store_table(struct cred_store *s, const struct toolbox_creds *tc, const char *consumer, bool wanted,
		     struct credtable **ret, char *err, size_t errlen);
/* consumer's table written to a socket: *ret_fd the proxy's end (for
 * cordon_run_opts.credentials_fd; the caller closes it), *ret_chan the
 * supervisor's (non-blocking: the channel, cred_chan_new), or both -1
 * when there is none. */
int cred_store_table_fd(struct cred_store *s, const struct toolbox_creds *tc, const char *consumer, bool wanted,
			int *ret_fd, int *ret_chan, char *err, size_t errlen);
