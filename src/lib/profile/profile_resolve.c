/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Resolving: the raw, merged state of the extends chain -> struct
 * cordon_profile. Path tokens expand here (they need the final workspace),
 * every path is canonicalised, and the rules are checked against each other
 * and the built-in groups: deny always wins, persistence and system_write
 * stay read-only unless bypassed, a bypass grants nothing by itself.
 * Missing paths are kept as notes, never silently dropped.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "canon.h"
#include "cleanup.h"
#include "policy.h"
#include "profile_loader.h"
#include "profile_read_values.h"
#include "profile_resolve.h"
#include "strv.h"

/* Never writable by a profile grant unless bypassed. */
static const char *const system_write_paths[] = {
	"/bin", "/boot", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/opt",
	"/sbin", "/usr", "/var/lib", "/var/spool", "/sys", "/proc", "/dev", NULL,
};

static int rules_push(struct profile_rules *rs, const char *path, const char *spelled, const struct where *w)
{
	struct profile_rule *nv;
	int r;

	for (size_t i = 0; i < rs->n; i++)
		if (strcmp(rs->v[i].path, path) == 0)
			return 0; /* the first rule that named it stays its origin */
	nv = realloc(rs->v, (rs->n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	rs->v = nv;
	nv = &nv[rs->n];
	*nv = (struct profile_rule){ .path = strdup(path), .spelled = strdup(spelled) };
	if (!nv->path || !nv->spelled)
		goto oom;
	r = where_origin(w, &nv->origin);
	if (r < 0)
		goto oom;
	rs->n++;
	return 0;
oom:
	free(nv->path);
	free(nv->spelled);
	return -ENOMEM;
}

int loader_canonical(struct loader *l, const struct where *w, const char *path, char **ret)
{
	struct cordon_error e = {};
	int r;

	if (strlen(path) >= PATH_MAX)
		return loader_fail(l, -ENAMETOOLONG, w, "the expanded path is longer than %d bytes", PATH_MAX - 1);
	r = cordon_canonicalize(path, ret, &e);
	if (r < 0)
		return loader_fail(l, r, w, "%s", e.message);
	return 0;
}

/* A grant's path: as loader_canonical, and no symlink inside the workspace,
 * a temp root or a write grant on the way (canonicalize_grant). */
int loader_canonical_grant(struct loader *l, const struct where *w, const char *path, char **ret)
{
	const char *const *roots[] = { (const char *const *)l->grant_roots, policy_temp_roots(), NULL };
	struct cordon_error e = {};
	int r;

	if (strlen(path) >= PATH_MAX)
		return loader_fail(l, -ENAMETOOLONG, w, "the expanded path is longer than %d bytes", PATH_MAX - 1);
	r = canonicalize_grant(path, roots, ret, &e);
	if (r < 0)
		return loader_fail(l, r, w, "%s", e.message);
	return 0;
}

static int git_ensure(struct loader *l)
{
	int r;

	if (l->git_read)
		return 0;
	r = git_paths_read(l->home, l->xdg, l->system_gitconfig, &l->git);
	if (r < 0)
		return r;
	l->git_read = true;
	return 0;
}

/* Expand one spelled entry to absolute (not yet canonical) paths. */
static int expand_entry(struct loader *l, const struct cordon_profile *p, const struct raw_entry *e,
			char ***ret, unsigned group_depth)
{
	_cleanup_strv_free_ char **out = NULL;
	const char *s = e->spelled, *base = NULL, *rest = NULL;
	char *joined;
	int r;

	if (s[0] == '@') {
		if (strcmp(s, "@git:config-files") == 0 || strcmp(s, "@git:hooks-path") == 0) {
			r = git_ensure(l);
			if (r < 0)
				return loader_fail(l, r, &e->where, "cannot read the git configuration: %s", errno_text(r));
			r = strv_extend_strv(&out, (const char *const *)(s[5] == 'c' ? l->git.config_files
										 : l->git.hooks_paths));
			if (r < 0)
				return r;
			if (!out) {
				out = calloc(1, sizeof(char *));
				if (!out)
					return -ENOMEM;
			}
			*ret = TAKE_PTR(out);
			return 0;
		}
		if (strncmp(s, "@git:", 5) == 0) {
			static const char *const tokens[] = { "@git:config-files", "@git:hooks-path", NULL };
			const char *best = loader_closest(s, tokens);

			if (best)
				return loader_fail(l, -EINVAL, &e->where,
						   "unknown token \"%.100s\", did you mean \"%s\"?", s, best);
			return loader_fail(l, -EINVAL, &e->where,
					   "unknown token \"%.100s\" (known: @git:config-files, @git:hooks-path)", s);
		}
		for (size_t g = 0; g < _GROUP_MAX; g++)
			if (strcmp(s + 1, builtin_group_names[g]) == 0)
				return loader_fail(
					l, -EINVAL, &e->where,
					"\"%s\" is a built-in group: it always applies; only its bypass can be set", s);
		for (size_t i = 0; i < l->n_groups; i++)
			if (strcmp(l->groups[i].name, s + 1) == 0) {
				out = calloc(1, sizeof(char *));
				if (!out)
					return -ENOMEM;
				for (size_t j = 0; j < l->groups[i].paths.n; j++) {
					_cleanup_strv_free_ char **sub = NULL;

					r = expand_entry(l, p, &l->groups[i].paths.v[j], &sub, group_depth + 1);
					if (r < 0)
						return r;
					r = strv_extend_strv(&out, (const char *const *)sub);
					if (r < 0)
						return r;
				}
				*ret = TAKE_PTR(out);
				return 0;
			}
		return loader_fail(l, -EINVAL, &e->where, "no group named \"%.100s\" (define it under groups)", s + 1);
	}

	if (s[0] == '~') {
		if (s[1] != '\0' && s[1] != '/')
			return loader_fail(l, -EINVAL, &e->where, "\"%.100s\": only ~ and ~/ are supported, not ~user", s);
		if (!l->home)
			return loader_fail(l, -EINVAL, &e->where, "\"%.100s\" needs HOME, which is not set", s);
		base = l->home;
		rest = s + 1;
	} else if (s[0] == '$') {
		static const char *const tokens[] = { "$WORKSPACE", "$HOME", "$TMPDIR", "$XDG_CONFIG_HOME", NULL };
		size_t n = strcspn(s, "/");
		size_t t;

		for (t = 0; tokens[t]; t++)
			if (strlen(tokens[t]) == n && strncmp(tokens[t], s, n) == 0)
				break;
		if (!tokens[t])
			return loader_fail(
				l, -EINVAL, &e->where,
				"unknown token \"%.*s\" (known: $WORKSPACE, $HOME, $TMPDIR, $XDG_CONFIG_HOME)",
				(int)(n > 100 ? 100 : n), s);
		base = t == 0 ? p->workspace : t == 1 ? l->home : t == 2 ? l->tmpdir : l->xdg;
		if (!base)
			return loader_fail(l, -EINVAL, &e->where, "\"%s\" is not set", tokens[t]);
		rest = s + n;
	} else if (s[0] == '/') {
		base = NULL;
	} else {
		if (!p->workspace)
			return loader_fail(l, -EINVAL, &e->where, "relative path \"%.100s\" needs a workspace", s);
		base = p->workspace;
		rest = s;
	}
	joined = base ? (rest[0] ? path_join(base, rest) : strdup(base)) : strdup(s);
	if (!joined)
		return -ENOMEM;
	r = strv_consume(&out, joined);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(out);
	return 0;
}

int loader_expand_entry(struct loader *l, const struct cordon_profile *p, const struct raw_entry *e, char ***ret)
{
	return expand_entry(l, p, e, ret, 0);
}

enum list_kind { LIST_READ, LIST_WRITE, LIST_DENY, LIST_PROTECT, LIST_BYPASS, LIST_SOCKET };

static int resolve_list(struct loader *l, struct cordon_profile *p, const struct raw_list *in,
			enum list_kind kind, struct profile_rules *out)
{
	int r;

	for (size_t i = 0; i < in->n; i++) {
		_cleanup_strv_free_ char **paths = NULL;

		r = expand_entry(l, p, &in->v[i], &paths, 0);
		if (r < 0)
			return r;
		if (!paths[0] && in->v[i].spelled[0] == '@') {
			r = profile_note_add(p, PROFILE_NOTE_EMPTY_TOKEN, NULL, &in->v[i].where,
					     "%s names no path here", in->v[i].spelled);
			if (r < 0)
				return r;
		}
		STRV_FOREACH(x, paths) {
			_cleanup_free_ char *c = NULL;
			struct stat st;

			/* a grant never follows a link a sandbox could have made */
			r = kind == LIST_READ || kind == LIST_WRITE || kind == LIST_SOCKET
				    ? loader_canonical_grant(l, &in->v[i].where, *x, &c)
				    : loader_canonical(l, &in->v[i].where, *x, &c);
			if (r < 0)
				return r;
			if (strcmp(c, "/") == 0 && kind != LIST_READ)
				return loader_fail(l, -EINVAL, &in->v[i].where, "\"%.100s\" is the whole filesystem",
						   in->v[i].spelled);
			/* Missing read, write and read-deny paths are checked
			 * like the others, then skipped and reported (prune). */
			if (kind != LIST_PROTECT && kind != LIST_BYPASS && kind != LIST_SOCKET && stat(c, &st) < 0 &&
			    errno != ENOENT && errno != ENOTDIR)
				return loader_fail(l, -errno, &in->v[i].where, "cannot inspect %s: %m", c);
			if (++l->n_rules > PROFILE_MAX_RULES)
				return loader_fail(l, -E2BIG, &in->v[i].where, "more than %d rules once expanded",
						   PROFILE_MAX_RULES);
			r = rules_push(out, c, in->v[i].spelled, &in->v[i].where);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* Each path of a write list, canonical, onto l->grant_roots. */
static int grant_roots_of(struct loader *l, const struct cordon_profile *p, const struct raw_list *w)
{
	int r;

	for (size_t i = 0; i < w->n; i++) {
		_cleanup_strv_free_ char **paths = NULL;

		if (expand_entry(l, p, &w->v[i], &paths, 0) < 0) {
			if (l->reterr)
				*l->reterr = (struct cordon_error){};
			continue;
		}
		STRV_FOREACH(x, paths) {
			_cleanup_free_ char *c = NULL;

			if (cordon_canonicalize(*x, &c, NULL) == 0 && strcmp(c, "/") != 0 &&
			    (r = strv_push(&l->grant_roots, c)) < 0)
				return r;
		}
	}
	return 0;
}

/* Where a sandbox of this profile could write, and so have left a link for
 * the next run: the workspace, every write grant, every tool's (each
 * canonicalised once more here, before any grant is checked against them;
 * a grant's own errors are reported where it is resolved). */
static int grant_roots(struct loader *l, const struct cordon_profile *p)
{
	int r;

	if (p->workspace && (r = strv_push(&l->grant_roots, p->workspace)) < 0)
		return r;
	if ((r = grant_roots_of(l, p, &l->write)) < 0)
		return r;
	for (size_t i = 0; i < l->tools.n_commands; i++) {
		const struct raw_sandbox *sb = l->tools.commands[i].sandbox;

		if (sb && ((r = grant_roots_of(l, p, &sb->paths[TOOL_FS_WRITE])) < 0 ||
			   (r = grant_roots_of(l, p, &sb->paths[TOOL_FS_WRITE_FILE])) < 0))
			return r;
	}
	return 0;
}

/* Drop rules whose path does not exist, each reported. */
/* A lifted group entry needs a grant: a read grant for credentials, a write
 * grant otherwise, and under workspace-write the workspace is one (a .vscode
 * there is writable once lifted, whether or not it exists yet). */
static bool bypass_granted(const struct cordon_profile *p, unsigned g, const struct profile_rules *grants,
			   const char *path)
{
	for (size_t j = 0; j < grants->n; j++)
		if (path_is_under(grants->v[j].path, path) || path_is_under(path, grants->v[j].path))
			return true;
	return g != GROUP_CREDENTIALS && p->mode == CORDON_MODE_WORKSPACE_WRITE && p->workspace &&
	       path_is_under(path, p->workspace);
}

/* The raw entry spelled so: the first, or the last (a bypass reports the
 * last file that named it). */
static const struct raw_entry *raw_find(const struct raw_list *raw, const char *spelled, bool last)
{
	const struct raw_entry *found = NULL;

	for (size_t j = 0; j < raw->n && (last || !found); j++)
		if (strcmp(raw->v[j].spelled, spelled) == 0)
			found = &raw->v[j];
	return found;
}

/* keep: a missing write grant stays (the policy creates it below HOME or
 * the workspace, or refuses it: policy_add_writable_dir_canonical), said
 * all the same. */
static int prune_missing(struct cordon_profile *p, struct profile_rules *rs, const struct raw_list *raw, bool keep)
{
	size_t o = 0;
	int r;

	for (size_t i = 0; i < rs->n; i++) {
		struct profile_rule *rule = &rs->v[i];
		const struct raw_entry *e;
		struct stat st;

		if (stat(rule->path, &st) == 0) {
			rs->v[o++] = *rule;
			continue;
		}
		e = raw_find(raw, rule->spelled, false);
		if (e) {
			r = profile_note_add(p, PROFILE_NOTE_MISSING_PATH, rule->path, &e->where,
					     keep ? "%s does not exist yet: a run creates it below HOME or the workspace, "
						    "and refuses it elsewhere"
						  : "%s does not exist: skipped",
					     rule->path);
			if (r < 0)
				return r;
		}
		if (keep) {
			rs->v[o++] = *rule;
			continue;
		}
		profile_rule_clear(rule);
	}
	rs->n = o;
	return 0;
}

const struct profile_rule *profile_rules_covering(const struct profile_rules *rs, const char *path)
{
	for (size_t i = 0; i < rs->n; i++)
		if (path_is_under(path, rs->v[i].path))
			return &rs->v[i];
	return NULL;
}

bool profile_rules_contain(const struct profile_rules *rs, const char *path)
{
	for (size_t i = 0; i < rs->n; i++)
		if (strcmp(rs->v[i].path, path) == 0)
			return true;
	return false;
}

/* base/rel for each rel, canonical, onto out; nothing when base is NULL,
 * and a rel that cannot be canonicalised is left out. */
static int push_canonical_below(char ***out, const char *base, const char *const *rels)
{
	for (size_t i = 0; base && rels[i]; i++) {
		_cleanup_free_ char *j = path_join(base, rels[i]), *c = NULL;
		int r;

		if (!j)
			return -ENOMEM;
		if (cordon_canonicalize(j, &c, NULL) < 0)
			continue;
		r = strv_push(out, c);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The members of a built-in group, canonical. */
int profile_group_members(const struct cordon_profile *p, const char *home, unsigned g, char ***ret)
{
	_cleanup_strv_free_ char **out = calloc(1, sizeof(char *));
	int r;

	if (!out)
		return -ENOMEM;
	switch ((enum builtin_group)g) {
	case GROUP_CREDENTIALS: {
		/* as the policy has them: below HOME and the passwd home, and a
		 * root caller's system secrets */
		_cleanup_free_ char *other = NULL;
		const char *homes[2] = { home, NULL };

		r = policy_other_home(home, &other);
		if (r < 0)
			return r;
		homes[1] = other;
		for (size_t h = 0; h < 2; h++)
			for (size_t i = 0; homes[h] && policy_default_deny_read[i].path; i++) {
				_cleanup_free_ char *c = NULL;

				if (policy_secret_canonical(homes[h], i, &c, NULL) < 0 || strv_contains(out, c))
					continue;
				r = strv_push(&out, c);
				if (r < 0)
					return r;
			}
		for (size_t i = 0; geteuid() == 0 && policy_root_deny_read[i]; i++) {
			r = strv_push(&out, policy_root_deny_read[i]);
			if (r < 0)
				return r;
		}
		break;
	}
	case GROUP_PERSISTENCE:
		if ((r = push_canonical_below(&out, p->workspace, policy_default_protect)) < 0 ||
		    (r = push_canonical_below(&out, home, policy_default_protect_home)) < 0)
			return r;
		break;
	case GROUP_SYSTEM_WRITE:
		r = strv_extend_strv(&out, system_write_paths);
		if (r < 0)
			return r;
		break;
	case _GROUP_MAX:
	default:
		return -EINVAL;
	}
	*ret = TAKE_PTR(out);
	return 0;
}

const char *profile_credentials_hiding(const struct cordon_profile *p, char *const *members, const char *path)
{
	STRV_FOREACH(m, members)
		if (path_is_under(path, *m) && !profile_rules_contain(&p->bypass_credentials, *m) &&
		    !profile_rules_contain(&p->lifted_credentials, *m))
			return *m;
	return NULL;
}

/* Deny always wins: a grant under a read-deny, the profile's or an entry of
 * the built-in group credentials, is a contradiction. hint ends the
 * message. */
static int check_not_denied(struct loader *l, const struct cordon_profile *p, char *const *creds,
			    const struct profile_rule *rule, const struct raw_entry *raw, const char *hint)
{
	const struct profile_rule *d = profile_rules_covering(&p->deny_read, rule->path);
	const char *c = profile_credentials_hiding(p, creds, rule->path);

	if (d)
		return loader_fail(l, -EPERM, raw ? &raw->where : NULL,
				   "%s is under the read-deny %s (%s at %s), and deny always wins", rule->path, d->path,
				   d->origin.file, d->origin.pointer);
	if (c)
		return loader_fail(l, -EPERM, raw ? &raw->where : NULL,
				   "%s is under %s of the built-in group credentials, and deny always wins%s",
				   rule->path, c, hint);
	return 0;
}

static void members_freep(char **(*m)[_GROUP_MAX])
{
	for (size_t g = 0; g < _GROUP_MAX; g++)
		strv_free((*m)[g]);
}

/* groups.credentials.lift: each named group once (the first naming keeps
 * its origin through extends), and every entry it uncovers, noted. */
static int resolve_lift(struct loader *l, struct cordon_profile *p)
{
	_cleanup_strv_free_ char **names = NULL, **paths = NULL, **groups = NULL;
	int r;

	for (size_t i = 0; i < l->lift.n; i++) {
		if (strv_contains(names, l->lift.v[i].spelled))
			continue;
		r = strv_push(&names, l->lift.v[i].spelled);
		if (r < 0)
			return r;
		r = rules_push(&p->lift_credentials, l->lift.v[i].spelled, l->lift.v[i].spelled, &l->lift.v[i].where);
		if (r < 0)
			return r;
	}
	if (!names)
		return 0;
	r = profile_credential_lift_paths(l->home, names, &paths, &groups);
	if (r < 0)
		return r;
	for (size_t i = 0; paths[i]; i++) {
		const struct raw_entry *raw = raw_find(&l->lift, groups[i], false);

		r = rules_push(&p->lifted_credentials, paths[i], groups[i], &raw->where);
		if (r < 0)
			return r;
		r = profile_note_add(p, PROFILE_NOTE_LIFT, paths[i], &raw->where,
				     "%s is readable: the credential group %s is lifted", paths[i], groups[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

int loader_resolve(struct loader *l, struct cordon_profile *p)
{
	static const struct where builtin = {};
	_cleanup_(members_freep) char **members[_GROUP_MAX] = {};
	struct profile_rules *bypass_out[_GROUP_MAX] = {
		&p->bypass_credentials, &p->bypass_persistence, &p->bypass_system_write,
	};
	int r;

	p->mode = l->mode_set ? l->mode : CORDON_MODE_WORKSPACE_WRITE;
	r = where_origin(l->mode_set ? &l->mode_where : &builtin, &p->mode_origin);
	if (r < 0)
		return r;
	p->home_policy = l->home_policy_set ? l->home_policy : CORDON_HOME_CATALOGUE;
	r = where_origin(l->home_policy_set ? &l->home_policy_where : &builtin, &p->home_policy_origin);
	if (r < 0)
		return r;
	p->net = l->net_set ? l->net : PROFILE_NET_NONE;
	if (l->net_rules_seen && (r = loader_check_net_rules_mode(l, &l->net_rules_where, p->net)) < 0)
		return r;
	for (size_t i = 0; i < PROFILE_NET_RULE_KINDS; i++)
		if (l->net_rules[i] && !(p->net_rules[i] = strv_copy((const char *const *)l->net_rules[i])))
			return -ENOMEM;
	r = where_origin(l->net_set ? &l->net_where : &builtin, &p->net_origin);
	if (r < 0)
		return r;
	for (size_t i = 0; i < 3; i++)
		if (l->meta[i]) {
			char **dst = i == 0 ? &p->meta_name : i == 1 ? &p->meta_description : &p->meta_version;

			*dst = strdup(l->meta[i]);
			if (!*dst)
				return -ENOMEM;
		}

	if (l->home && cordon_canonicalize(l->home, &p->home, NULL) < 0)
		p->home = NULL;

	/* The workspace first: $WORKSPACE and relative paths need it. */
	r = policy_warm(l->reterr);
	if (r < 0)
		return r;
	if (l->workspace_given) {
		const char *const *temps[] = { policy_temp_roots(), NULL };

		/* never through a link in /tmp or $TMPDIR a sandbox left */
		r = canonicalize_grant(l->workspace_given, temps, &p->workspace, l->reterr);
		if (r < 0)
			return r;
		r = where_origin(&builtin, &p->workspace_origin);
	} else if (l->ws_spelled) {
		struct raw_entry e = { .spelled = (char *)l->ws_spelled, .where = l->ws_where };
		_cleanup_strv_free_ char **paths = NULL;

		if (l->ws_spelled[0] != '/' && l->ws_spelled[0] != '~' && l->ws_spelled[0] != '$')
			return loader_fail(l, -EINVAL, &l->ws_where, "the workspace must be an absolute path");
		r = expand_entry(l, p, &e, &paths, 0);
		if (r < 0)
			return r;
		r = loader_canonical_grant(l, &l->ws_where, paths[0], &p->workspace);
		if (r < 0)
			return r;
		if (strcmp(p->workspace, "/") == 0)
			return loader_fail(l, -EINVAL, &l->ws_where, "the workspace cannot be '/'");
		p->workspace_set = true;
		r = where_origin(&l->ws_where, &p->workspace_origin);
	} else if (p->mode != CORDON_MODE_DANGER_FULL_ACCESS) {
		r = cordon_canonicalize(".", &p->workspace, l->reterr);
		if (r < 0)
			return r;
		r = where_origin(&builtin, &p->workspace_origin);
	} else
		r = where_origin(&builtin, &p->workspace_origin);
	if (r < 0)
		return r;

	r = grant_roots(l, p);
	if (r < 0)
		return r;
	if ((r = resolve_list(l, p, &l->deny_read, LIST_DENY, &p->deny_read)) < 0 ||
	    (r = resolve_list(l, p, &l->read, LIST_READ, &p->read)) < 0 ||
	    (r = resolve_list(l, p, &l->write, LIST_WRITE, &p->write)) < 0 ||
	    (r = resolve_list(l, p, &l->protect, LIST_PROTECT, &p->protect)) < 0 ||
	    (r = resolve_list(l, p, &l->allow_unix, LIST_SOCKET, &p->allow_unix_sockets)) < 0)
		return r;
	for (size_t g = 0; g < _GROUP_MAX; g++) {
		r = resolve_list(l, p, &l->bypass[g], LIST_BYPASS, bypass_out[g]);
		if (r < 0)
			return r;
		/* Only what a check below reads: every member canonicalised is
		 * hundreds of lookups, on every run of a profile without grants. */
		if (!bypass_out[g]->n && !p->write.n && !(g == GROUP_CREDENTIALS && p->read.n))
			continue;
		r = profile_group_members(p, l->home, (unsigned)g, &members[g]);
		if (r < 0)
			return r;
	}

	r = resolve_lift(l, p);
	if (r < 0)
		return r;

	/* Bypass: one member at a time, and it grants nothing by itself. */
	for (size_t g = 0; g < _GROUP_MAX; g++)
		for (size_t i = 0; i < bypass_out[g]->n; i++) {
			const struct profile_rule *b = &bypass_out[g]->v[i];
			const struct raw_entry *raw = raw_find(&l->bypass[g], b->spelled, true);
			const struct profile_rules *grants = g == GROUP_CREDENTIALS ? &p->read : &p->write;

			if (!strv_contains(members[g], b->path))
				return loader_fail(l, -EINVAL, raw ? &raw->where : NULL,
						   "%s is not an entry of the built-in group %s", b->path,
						   builtin_group_names[g]);
			if (!bypass_granted(p, g, grants, b->path))
				return loader_fail(
					l, -EINVAL, raw ? &raw->where : NULL,
					"bypassing %s grants nothing by itself: also list it under filesystem.%s",
					b->path, g == GROUP_CREDENTIALS ? "read" : "write");
			r = profile_note_add(p, PROFILE_NOTE_BYPASS, b->path, raw ? &raw->where : &builtin,
					     "%s is lifted from the built-in group %s", b->path,
					     builtin_group_names[g]);
			if (r < 0)
				return r;
		}

	/* Deny always wins: a grant under a read-deny is a contradiction. */
	for (size_t i = 0; i < p->read.n; i++) {
		const struct profile_rule *rule = &p->read.v[i];
		const struct raw_entry *raw = raw_find(&l->read, rule->spelled, false);

		r = check_not_denied(l, p, members[GROUP_CREDENTIALS], rule, raw,
				     " (lift its group or bypass it under groups.credentials)");
		if (r < 0)
			return r;
		r = profile_note_add(p, PROFILE_NOTE_READ_NOOP, rule->path, raw ? &raw->where : &builtin,
				     "%s is readable anyway: the whole system is, except what is denied", rule->path);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < p->write.n; i++) {
		const struct profile_rule *rule = &p->write.v[i];
		const struct raw_entry *raw = raw_find(&l->write, rule->spelled, false);
		const struct profile_rule *d;

		if (p->mode != CORDON_MODE_WORKSPACE_WRITE)
			return loader_fail(l, -EINVAL, raw ? &raw->where : NULL,
					   "filesystem.write needs mode workspace-write, not %s",
					   cordon_mode_to_string(p->mode));
		r = check_not_denied(l, p, members[GROUP_CREDENTIALS], rule, raw, "");
		if (r < 0)
			return r;
		STRV_FOREACH(m, members[GROUP_PERSISTENCE])
			if (path_is_under(rule->path, *m) && !profile_rules_contain(&p->bypass_persistence, *m))
				return loader_fail(l, -EPERM, raw ? &raw->where : NULL,
						   "%s is under %s of the built-in group persistence, which stays "
						   "read-only: bypass it under groups.persistence to allow this",
						   rule->path, *m);
		d = profile_rules_covering(&p->protect, rule->path);
		if (d)
			return loader_fail(l, -EPERM, raw ? &raw->where : NULL,
					   "%s is under the protected %s (%s at %s), which stays read-only", rule->path,
					   d->path, d->origin.file, d->origin.pointer);
		/* a HOME below a system directory is still the user's */
		if (p->home && path_is_under(rule->path, p->home))
			continue;
		STRV_FOREACH(m, members[GROUP_SYSTEM_WRITE])
			if (path_is_under(rule->path, *m) && !profile_rules_contain(&p->bypass_system_write, *m))
				return loader_fail(l, -EPERM, raw ? &raw->where : NULL,
						   "%s is under %s of the built-in group system_write: bypass it under "
						   "groups.system_write to allow this",
						   rule->path, *m);
	}
	if (p->mode == CORDON_MODE_DANGER_FULL_ACCESS) {
		if (l->deny_read.n || l->protect.n)
			return loader_fail(l, -EINVAL,
					   l->deny_read.n ? &l->deny_read.v[0].where : &l->protect.v[0].where,
					   "mode danger-full-access enforces nothing: this rule could not hold");
		if (p->net != PROFILE_NET_HOST && l->net_set)
			return loader_fail(l, -EINVAL, &l->net_where,
					   "mode danger-full-access enforces nothing: network.mode \"%s\" could not hold",
					   profile_net_to_string(p->net));
	}

	if ((r = prune_missing(p, &p->read, &l->read, false)) < 0 ||
	    (r = prune_missing(p, &p->write, &l->write, true)) < 0 ||
	    (r = prune_missing(p, &p->deny_read, &l->deny_read, false)) < 0)
		return r;
	/* A lifted entry whose every grant was skipped lifts nothing. */
	for (size_t g = 0; g < _GROUP_MAX; g++) {
		struct profile_rules *rs = bypass_out[g];
		const struct profile_rules *grants = g == GROUP_CREDENTIALS ? &p->read : &p->write;
		size_t o = 0;

		for (size_t i = 0; i < rs->n; i++) {
			if (bypass_granted(p, g, grants, rs->v[i].path)) {
				rs->v[o++] = rs->v[i];
				continue;
			}
			profile_rule_clear(&rs->v[i]);
		}
		rs->n = o;
	}

	/* environment */
	for (size_t i = 0; i < l->top.allow_vars.n; i++) {
		r = rules_push(&p->allow_vars, l->top.allow_vars.v[i].spelled, l->top.allow_vars.v[i].spelled,
			       &l->top.allow_vars.v[i].where);
		if (r < 0)
			return r;
	}
	if (l->top.n_vars) {
		p->set_vars = calloc(l->top.n_vars, sizeof(*p->set_vars));
		if (!p->set_vars)
			return -ENOMEM;
		for (size_t i = 0; i < l->top.n_vars; i++) {
			struct profile_env_var *v = &p->set_vars[p->n_set_vars];

			v->name = strdup(l->top.vars[i].name);
			v->value = strdup(l->top.vars[i].value);
			if (!v->name || !v->value || where_origin(&l->top.vars[i].where, &v->origin) < 0) {
				free(v->name);
				free(v->value);
				return -ENOMEM;
			}
			p->n_set_vars++;
		}
	}

	p->limits = l->top.limits;
	memset(p->limits.origin, 0, sizeof(p->limits.origin));
	for (size_t k = 0; k < _PROFILE_LIMIT_MAX; k++)
		if (l->top.limits.set & (1u << k)) {
			r = where_origin(&l->top.limit_where[k], &p->limits.origin[k]);
			if (r < 0)
				return r;
		}
	/* profile_apply protects these below a write grant: canonical once */
	p->persistence_members = TAKE_PTR(members[GROUP_PERSISTENCE]);
	return 0;
}
