/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `cordon run` with a profile's command_policies, in cordon-supervisor:
 * the supervisor (src/supervisor) set up when the session's policy is
 * built, then serving the session's tool calls while it runs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "cli.h"
#include "audit.h"
#include "supervisor.h"

struct cli_session {
	struct cordon_profile_handle *profile;
	const char *profile_name;
	struct supervisor *sup;
};

static int session_new(const struct cli_args *a, struct cli_session **ret)
{
	struct cli_session *s = calloc(1, sizeof(*s));
	struct cordon_profile_opts po = { .workspace = a->workspace };
	struct cordon_error e = {};
	int r;

	if (!s)
		return -ENOMEM;
	s->profile_name = a->profile;
	r = cordon_profile_load(a->profile, &po, &s->profile, &e);
	if (r < 0) {
		cli_note_origin(&e);
		cli_say("%s", e.message);
		free(s);
		return r;
	}
	*ret = s;
	return 0;
}

static int session_policy(struct cli_session *s, struct cordon_policy *p)
{
	struct cordon_error e = {};
	char err[512] = "";
	int r;

	if (!s->sup) {
		struct supervisor_config cfg = {
			.profile = s->profile,
			.profile_name = s->profile_name,
			.path_env = getenv("PATH"),
			.session_writable = cordon_writable_roots(p),
		};

		r = supervisor_new(&cfg, &s->sup, err, sizeof(err));
		if (r < 0) {
			cli_say("the tool sandbox cannot start: %s", err[0] ? err : strerror(-r));
			return r;
		}
	}
	r = supervisor_session_policy(s->sup, p, &e);
	if (r < 0)
		cli_say("the tool sandbox cannot start: %s", e.message);
	return r;
}

static int session_run(struct cli_session *s, const struct cordon_confined *c, const struct cordon_run_opts *o,
		       struct cordon_result **ret)
{
	if (!s->sup)
		return -EINVAL;
	return supervisor_run(s->sup, c, o, ret);
}

static json_t *session_denials(struct cli_session *s, size_t *ret_omitted)
{
	const struct supervisor_denial *d;
	size_t n = s->sup ? supervisor_denials(s->sup, &d, ret_omitted) : (*ret_omitted = 0, 0);
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < n; i++) {
		_cleanup_free_ char *line = NULL;

		if (asprintf(&line, "cordon: broker: %s: %s called by %s: %s", d[i].event, d[i].command, d[i].caller,
			     d[i].reason) < 0)
			line = NULL;
		json_array_append_new(arr, json_pack("{s:s,s:n,s:s,s:s,s:s,s:s,s:s,s:s?,s:s,s:s,s:s}", "kind", "tool",
						     "path", "op", "exec", "rule",
						     d[i].rule[0] ? d[i].rule : "/command_policies", "mechanism", "broker",
						     "reason", d[i].reason, "file", d[i].file[0] ? d[i].file : "(built-in)",
						     "line", line, "tool", d[i].command, "caller", d[i].caller, "source",
						     "broker"));
	}
	return arr;
}

static json_t *session_audit(struct cli_session *s)
{
	const struct audit_seal *seal = s->sup ? supervisor_audit_seal(s->sup) : NULL;

	if (!seal)
		return NULL;
	return json_pack("{s:s,s:I,s:s,s:s,s:s,s:b}", "session", seal->session, "records", (json_int_t)seal->records,
			 "head", seal->head, "head_key", seal->pubkey, "signature", seal->sig, "stored",
			 seal->stored == 0);
}

static void session_free(struct cli_session *s)
{
	if (!s)
		return;
	supervisor_free(s->sup);
	cordon_profile_free(s->profile);
	free(s);
}

const struct cli_session_ops cli_session_ops = {
	.session_new = session_new,
	.session_policy = session_policy,
	.session_run = session_run,
	.session_free = session_free,
	.session_audit = session_audit,
	.session_denials = session_denials,
};
