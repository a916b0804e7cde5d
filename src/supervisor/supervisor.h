/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The tool sandbox's supervisor (DESIGN.md, "The tool sandbox"): it runs
 * inside `cordon run` (cordon-supervisor) when the profile has
 * command_policies. Before the session starts it resolves every
 * controlled command's binary and records its identity, opens the audit
 * log and checks the approval backends; the session's policy gets the
 * broker (shims for what the session may call) and may execute no
 * controlled binary directly. While the session runs, one libevent loop
 * drives the session, every broker endpoint, every call and every tool.
 *
 * Speaks only cordon.h and msgbuf*.h to the library.
 */

#include <stddef.h>

#include "cordon/cordon.h"

struct supervisor;

struct supervisor_config {
	const struct cordon_profile_handle *profile; /* with command_policies; kept, not owned */
	const char *profile_name;
	const char *path_env;      /* the original PATH: bare executables are resolved on it, once */
	const char *const *session_writable; /* the session's writable roots: no executable is taken from there */
	const char *audit_dir;     /* NULL: the default ($XDG_STATE_HOME/cordon/audit) */
};

/* Everything that can fail before the session starts fails here, with one
 * line in err: nothing runs. */
int supervisor_new(const struct supervisor_config *c, struct supervisor **ret, char *err, size_t errlen);
struct supervisor *supervisor_free(struct supervisor *s);

/* The session's policy: the broker with the commands the session may
 * call, and no controlled binary executable directly. */
int supervisor_session_policy(struct supervisor *s, struct cordon_policy *p, struct cordon_error *reterr);

/* Run the session (confined with a policy from supervisor_session_policy)
 * and serve its tool calls until it ends; then every tool still running is
 * killed. As cordon_run: o's fields, and *ret the session's result. */
int supervisor_run(struct supervisor *s, const struct cordon_confined *c, const struct cordon_run_opts *o,
		   struct cordon_result **ret);

/* The session's id (the audit log's name). */
const char *supervisor_session_id(const struct supervisor *s);

/* A tool call the broker refused during the session (as its audit log
 * says it), for the run's result: at most SUPERVISOR_DENIALS_MAX kept,
 * each (caller, command, event, rule) once. */
#define SUPERVISOR_DENIALS_MAX 32
struct supervisor_denial {
	char caller[64];
	char command[64];
	char event[32];     /* the audit event: denied, invocation_denied, approve_denied, approve_timeout */
	char rule[256];     /* the deciding rule's JSON pointer ("" when none decided) */
	char file[256];
	char reason[256];
};
/* The refusals so far, in order; *ret_omitted: how many more there were. */
size_t supervisor_denials(const struct supervisor *s, const struct supervisor_denial **ret, size_t *ret_omitted);

/* After supervisor_run: the audit log's end, signed (audit.h), or NULL
 * when it could not be written or signed. Valid until supervisor_free. */
struct audit_seal;
const struct audit_seal *supervisor_audit_seal(const struct supervisor *s);
