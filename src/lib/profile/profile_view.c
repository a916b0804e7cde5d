/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rest of the public profile API, read from a loaded handle: the
 * chain, the notes, where values came from, the policy it builds, and the
 * why view (a profile with a run's overrides on top, asked what it allows).
 * A front end needs nothing of struct cordon_profile beyond these; the
 * handle itself is profile_api.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/cordon.h"
#include "cleanup.h"
#include "error.h"
#include "opts_size.h"
#include "path.h"
#include "profile.h"
#include "profile_api.h"
#include "strv.h"

_Static_assert((int)CORDON_OP_READ == (int)PROFILE_OP_READ && (int)CORDON_OP_WRITE == (int)PROFILE_OP_WRITE &&
		       (int)CORDON_OP_EXEC == (int)PROFILE_OP_EXEC,
	       "enum cordon_op mirrors enum profile_op");
_Static_assert(sizeof(((struct cordon_why_opts *)0)->net_rules) / sizeof(char **) == PROFILE_NET_RULE_KINDS,
	       "one added list per kind of host rule");

CORDON_API int cordon_profile_builtin_text(const char *name, const char **ret_text, size_t *ret_len)
{
	if (!name || !ret_text || !ret_len)
		return -EINVAL;
	return profile_builtin_text(name, ret_text, ret_len);
}

CORDON_API const char *const *cordon_profile_builtin_names(void)
{
	return profile_builtin_names();
}

CORDON_API const char *const *cordon_profile_chain(const struct cordon_profile_handle *h)
{
	static const char *const none[] = { NULL };
	const struct cordon_profile *p = profile_handle_profile(h);

	return p->chain ? (const char *const *)p->chain : none;
}

CORDON_API bool cordon_profile_workspace_given(const struct cordon_profile_handle *h)
{
	return profile_handle_profile(h)->workspace_set;
}

CORDON_API const char *cordon_profile_home(const struct cordon_profile_handle *h)
{
	return profile_handle_profile(h)->home;
}

static void origin_out(const struct profile_origin *o, struct cordon_origin *ret)
{
	*ret = (struct cordon_origin){ .file = o->file, .pointer = o->pointer };
}

CORDON_API void cordon_profile_net_origin(const struct cordon_profile_handle *h, struct cordon_origin *ret)
{
	origin_out(&profile_handle_profile(h)->net_origin, ret);
}

CORDON_API int cordon_profile_limit_origin(const struct cordon_profile_handle *h, enum cordon_limit limit,
					   struct cordon_origin *ret)
{
	static const enum profile_limit_key keys[_CORDON_LIMIT_MAX] = {
		[CORDON_LIMIT_TIMEOUT] = PROFILE_LIMIT_TIMEOUT,
		[CORDON_LIMIT_CPU] = PROFILE_LIMIT_CPU,
		[CORDON_LIMIT_MEMORY] = PROFILE_LIMIT_MEMORY,
		[CORDON_LIMIT_PROCESSES] = PROFILE_LIMIT_MAX_PROCESSES,
		[CORDON_LIMIT_FILE_SIZE] = PROFILE_LIMIT_MAX_FILE_SIZE,
		[CORDON_LIMIT_OPEN_FILES] = PROFILE_LIMIT_MAX_OPEN_FILES,
		[CORDON_LIMIT_OUTPUT] = PROFILE_LIMIT_MAX_OUTPUT,
	};

	if (limit <= CORDON_LIMIT_NONE || limit >= _CORDON_LIMIT_MAX)
		return -EINVAL;
	origin_out(&profile_handle_profile(h)->limits.origin[keys[limit]], ret);
	return 0;
}

static const char *note_kind_name(enum profile_note_kind k)
{
	switch (k) {
	case PROFILE_NOTE_READ_NOOP:
		return "read_noop";
	case PROFILE_NOTE_MISSING_PATH:
		return "missing_path";
	case PROFILE_NOTE_EMPTY_TOKEN:
		return "empty_token";
	case PROFILE_NOTE_BYPASS:
		return "bypass";
	case PROFILE_NOTE_LIFT:
		return "lift";
	}
	return "note";
}

CORDON_API size_t cordon_profile_n_notes(const struct cordon_profile_handle *h)
{
	return profile_handle_profile(h)->n_notes;
}

CORDON_API int cordon_profile_note(const struct cordon_profile_handle *h, size_t i, struct cordon_profile_note *ret)
{
	const struct cordon_profile *p = profile_handle_profile(h);
	const struct profile_note *n;

	if (i >= p->n_notes)
		return -ERANGE;
	n = &p->notes[i];
	*ret = (struct cordon_profile_note){ .kind = note_kind_name(n->kind), .path = n->path, .text = n->text };
	origin_out(&n->origin, &ret->origin);
	return 0;
}

CORDON_API int cordon_profile_policy(const struct cordon_profile_handle *h, const enum cordon_mode *mode,
				     struct cordon_policy **ret, struct cordon_error *reterr)
{
	if (!h || !ret)
		return error_set(reterr, -EINVAL, "no profile, or no place for the policy");
	return profile_handle_policy(h, mode, ret, reterr);
}

CORDON_API int cordon_profile_policy_home(const struct cordon_profile_handle *h, const enum cordon_mode *mode,
					  const enum cordon_home *home, struct cordon_policy **ret,
					  struct cordon_error *reterr)
{
	if (!h || !ret)
		return error_set(reterr, -EINVAL, "no profile, or no place for the policy");
	return profile_handle_policy_home(h, mode, home, ret, reterr);
}

/* ---- why ----------------------------------------------------------------- */

CORDON_API const char *cordon_op_to_string(enum cordon_op op)
{
	return profile_op_to_string((enum profile_op)op);
}

CORDON_API int cordon_op_from_string(const char *s, enum cordon_op *ret)
{
	enum profile_op op;
	int r = profile_op_from_string(s, &op);

	if (r < 0)
		return r;
	*ret = (enum cordon_op)op;
	return 0;
}

static const char cmdline[] = "(command line)";

struct cordon_why {
	struct cordon_profile q;   /* a shallow copy of the profile with the overrides: read it, never free it */
	bool light;
	struct profile_rule *rules[3]; /* the deny-read, protect and --read rules with the added ones */
	char **owned;              /* the added rules' canonical paths */
	char **net_rules[PROFILE_NET_RULE_KINDS]; /* the profile's host rules plus the added ones */
	size_t own_net_rules[PROFILE_NET_RULE_KINDS]; /* how many of them are the profile's own */
};

CORDON_API struct cordon_why *cordon_why_free(struct cordon_why *w)
{
	if (!w)
		return NULL;
	free(w->rules[0]);
	free(w->rules[1]);
	free(w->rules[2]);
	strv_free(w->owned);
	for (size_t k = 0; k < PROFILE_NET_RULE_KINDS; k++)
		strv_free(w->net_rules[k]);
	free(w);
	return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_why *, cordon_why_free)

/* rs with paths added (relative: in the workspace ws), their origin the
 * option that gave them; the added rules share the view's strings. */
static int rules_plus(const struct profile_rules *rs, const char *const *paths, const char *option, const char *ws,
		      struct profile_rules *ret, struct cordon_why *w)
{
	size_t n = strv_length((char **)paths);
	struct profile_rule *out;

	*ret = *rs;
	if (n == 0)
		return 0;
	out = calloc(rs->n + n, sizeof(*out));
	if (!out)
		return -ENOMEM;
	if (rs->n)
		memcpy(out, rs->v, rs->n * sizeof(*out));
	ret->v = out;
	ret->n = rs->n;
	/* owned from here on, whatever happens below */
	w->rules[!w->rules[0] ? 0 : !w->rules[1] ? 1 : 2] = out;
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *joined = NULL;
		char *c = NULL;
		int r;

		if (paths[i][0] != '/' && ws && !(joined = path_join(ws, paths[i])))
			return -ENOMEM;
		r = cordon_canonicalize(joined ?: paths[i], &c, NULL);
		if (r < 0)
			return r;
		if (strv_consume(&w->owned, c) < 0)
			return -ENOMEM;
		out[ret->n++] = (struct profile_rule){ .path = c, .spelled = (char *)paths[i],
						       .origin = { .file = (char *)cmdline, .pointer = (char *)option } };
	}
	return 0;
}

CORDON_API int cordon_why_new(const struct cordon_profile_handle *h, const struct cordon_why_opts *opts,
			      struct cordon_why **ret)
{
	struct cordon_why_opts o;
	_cleanup_(cordon_why_freep) struct cordon_why *w = NULL;
	const struct cordon_profile *p;
	int r;

	if (!h || !ret)
		return -EINVAL;
	r = opts_take(opts, CORDON_WHY_OPTS_SIZE_1, &o, sizeof(o), "cordon_why_opts", NULL);
	if (r < 0)
		return r;
	p = profile_handle_profile(h);
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->q = *p;
	w->light = o.light;
	if (o.mode_set) {
		if (profile_override_mode(&w->q, o.mode) < 0)
			return -EINVAL;
		w->q.mode_origin = (struct profile_origin){ .file = (char *)cmdline, .pointer = (char *)"--mode" };
	}
	if (o.net_set) {
		w->q.net = o.net == CORDON_NET_HOST    ? PROFILE_NET_HOST
			   : o.net == CORDON_NET_PROXY ? PROFILE_NET_PROXY
			   : o.net == CORDON_NET_ALLOW ? PROFILE_NET_ALLOW
						       : PROFILE_NET_NONE;
		w->q.net_origin = (struct profile_origin){ .file = (char *)cmdline, .pointer = (char *)"--net" };
	}
	if (o.home_set) {
		w->q.home_policy = o.home;
		w->q.home_policy_origin = (struct profile_origin){ .file = (char *)cmdline, .pointer = (char *)"--home" };
	}
	/* added host rules go after the profile's */
	for (size_t k = 0; k < PROFILE_NET_RULE_KINDS; k++) {
		w->own_net_rules[k] = strv_length(p->net_rules[k]);
		if (o.net_rules[k]) {
			w->net_rules[k] = strv_copy((const char *const *)p->net_rules[k]);
			if ((p->net_rules[k] && !w->net_rules[k]) || strv_extend_strv(&w->net_rules[k], o.net_rules[k]) < 0)
				return -ENOMEM;
			w->q.net_rules[k] = w->net_rules[k];
		}
	}
	r = rules_plus(&p->deny_read, o.deny_read, "--deny-read", p->workspace, &w->q.deny_read, w);
	if (r < 0)
		return r;
	r = rules_plus(&p->protect, o.protect, "--protect", p->workspace, &w->q.protect, w);
	if (r < 0)
		return r;
	r = rules_plus(&p->read_host, o.read_host, "--read", p->workspace, &w->q.read_host, w);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(w);
	return 0;
}

static void decision_out(const struct profile_decision *d, struct cordon_why_decision *ret)
{
	_Static_assert(sizeof(ret->file) == sizeof(d->file) && sizeof(ret->pointer) == sizeof(d->pointer) &&
			       sizeof(ret->reason) == sizeof(d->reason),
		       "the public decision holds the whole of the internal one");
	ret->allow = d->allow;
	memcpy(ret->file, d->file, sizeof(ret->file));
	memcpy(ret->pointer, d->pointer, sizeof(ret->pointer));
	memcpy(ret->reason, d->reason, sizeof(ret->reason));
}

CORDON_API int cordon_why_path(const struct cordon_why *w, const char *path, enum cordon_op op,
			       struct cordon_why_decision *ret)
{
	struct profile_decision d;
	int r;

	if (!w || !path || !ret)
		return -EINVAL;
	r = profile_why_path_isolation(&w->q, path, (enum profile_op)op, w->light, &d);
	if (r < 0)
		return r;
	decision_out(&d, ret);
	return 0;
}

CORDON_API int cordon_why_host(const struct cordon_why *w, const char *host, unsigned port,
			       struct cordon_why_decision *ret)
{
	struct profile_decision d;
	int r;

	if (!w || !host || !ret)
		return -EINVAL;
	r = profile_why_host(&w->q, host, port, &d);
	if (r < 0)
		return r;
	/* a rule added on the command line is named as its flag */
	for (size_t k = 0; k < PROFILE_NET_RULE_KINDS; k++) {
		static const char *const lists[PROFILE_NET_RULE_KINDS] = {
			[CORDON_NET_ALLOW_DOMAIN] = "/network/allow_domains/",
			[CORDON_NET_DENY_DOMAIN] = "/network/deny_domains/",
			[CORDON_NET_ALLOW_ADDRESS] = "/network/allow_addresses/",
		};
		static const char *const flags[PROFILE_NET_RULE_KINDS] = {
			[CORDON_NET_ALLOW_DOMAIN] = "--allow-domain",
			[CORDON_NET_DENY_DOMAIN] = "--deny-domain",
			[CORDON_NET_ALLOW_ADDRESS] = "--allow-address",
		};
		size_t n = strlen(lists[k]), i;

		if (strncmp(d.pointer, lists[k], n) != 0 || sscanf(d.pointer + n, "%zu", &i) != 1 ||
		    i < w->own_net_rules[k] || i >= strv_length(w->q.net_rules[k]))
			continue;
		snprintf(d.file, sizeof(d.file), "%s", cmdline);
		snprintf(d.pointer, sizeof(d.pointer), "%s %s", flags[k], w->q.net_rules[k][i]);
		break;
	}
	decision_out(&d, ret);
	return 0;
}

CORDON_API enum cordon_mode cordon_why_mode(const struct cordon_why *w)
{
	return w->q.mode;
}

CORDON_API enum cordon_net cordon_why_net(const struct cordon_why *w)
{
	return profile_net_to_public(w->q.net);
}

CORDON_API void cordon_why_net_origin(const struct cordon_why *w, struct cordon_origin *ret)
{
	origin_out(&w->q.net_origin, ret);
}
