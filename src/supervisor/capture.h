/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A credential capture run once (capture.c): its command on the host side,
 * in a sandbox of its own (the command's executable closure executable and
 * nothing else, its `read` grants readable over the read baseline, nothing
 * writable, its own `network`, no proxy variable, no D-Bus or keyring socket
 * unless read names it), with its timeout; stdout read straight into secure
 * memory and parsed there (capture_output.h). The value never passes
 * through a plain heap string, argv, an environment or a message.
 */
#include <stdbool.h>
#include <stdint.h>

#include <event2/event.h>

#include "credtable.h"
#include "creds.h"

struct capture_result {
	struct credtable_secret value; /* secure memory; the caller clears it */
	uint64_t lifetime_usec;        /* from expires_at, else the capture's ttl */
	/* for the audit record */
	int exit_code, signal;
	bool timed_out;
	uint64_t duration_ms, bytes;
};

/* Run cap (path_env finds a bare command). 0 with *ret filled; else
 * -errno with err saying why (never the output), *ret's audit fields
 * filled as far as the run went and no value. */
int capture_run(const struct tool_capture *cap, const char *path_env, struct capture_result *ret, char *err,
		size_t errlen);

/* The same run driven by base's loop: the child, its stdout and its
 * deadline are events, so the loop goes on while it runs. done(ctx, r, res,
 * err) is called once from the loop, with capture_run's results (res's
 * value is the callee's to keep or clear); the job may be freed there.
 * Freeing a job before that kills its process tree. */
struct capture_job;
typedef void (*capture_done)(void *ctx, int r, struct capture_result *res, const char *err);
int capture_job_start(struct event_base *base, const struct tool_capture *cap, const char *path_env, capture_done done,
		      void *ctx, struct capture_job **ret, char *err, size_t errlen);
struct capture_job *capture_job_free(struct capture_job *j);
