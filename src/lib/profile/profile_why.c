/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Why a loaded profile allows or denies a path or a host: the decision and
 * the rule that made it (file and JSON pointer), as `cordon why` prints.
 * Decided in the order the policy enforces: read-denies and the built-in
 * groups first, then grants.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/cordon.h"
#include "canon.h"
#include "cleanup.h"
#include "policy.h"
#include "profile_internal.h"
#include "protect_names.h"
#include "strv.h"
#include "tools.h"

const char *profile_op_to_string(enum profile_op op)
{
	switch (op) {
	case PROFILE_OP_READ:
		return "read";
	case PROFILE_OP_WRITE:
		return "write";
	case PROFILE_OP_EXEC:
		return "exec";
	}
	return "invalid";
}

int profile_op_from_string(const char *s, enum profile_op *ret)
{
	for (int i = PROFILE_OP_READ; i <= PROFILE_OP_EXEC; i++)
		if (s && strcmp(s, profile_op_to_string((enum profile_op)i)) == 0) {
			*ret = (enum profile_op)i;
			return 0;
		}
	return -EINVAL;
}

static void decide(struct profile_decision *d, bool allow, const char *file, const char *pointer, const char *fmt,
		   ...) __attribute__((format(printf, 5, 6)));
static void decide(struct profile_decision *d, bool allow, const char *file, const char *pointer, const char *fmt,
		   ...)
{
	va_list ap;

	d->allow = allow;
	snprintf(d->file, sizeof(d->file), "%s", file ? file : "(built-in)");
	snprintf(d->pointer, sizeof(d->pointer), "%s", pointer ? pointer : "");
	va_start(ap, fmt);
	vsnprintf(d->reason, sizeof(d->reason), fmt, ap);
	va_end(ap);
}

/* The command under command_policies whose executable is c, resolved as
 * the session's start resolves it: on PATH, never from what the session
 * can write (the workspace under workspace-write, filesystem.write). */
static const struct tool_command *session_controlled(const struct cordon_profile *p, const char *c)
{
	_cleanup_strv_free_ char **writable = calloc(1, sizeof(char *));

	if (!writable)
		return NULL;
	if (p->mode == CORDON_MODE_WORKSPACE_WRITE && p->workspace && strv_push(&writable, p->workspace) < 0)
		return NULL;
	for (size_t i = 0; i < p->write.n; i++)
		if (strv_push(&writable, p->write.v[i].path) < 0)
			return NULL;
	return tools_controlling(p->tools, c, getenv("PATH"), (const char *const *)writable);
}

static bool member_covers(const char *member, const char *path)
{
	size_t n = strlen(member);

	if (n > 0 && member[n - 1] == '*')
		return strncmp(path, member, n - 1) == 0;
	return path_is_under(path, member);
}

static bool wildcard(const char *member)
{
	size_t n = strlen(member);

	return n > 0 && member[n - 1] == '*';
}

/* HOME's dot-entries (the persistence group's HOME/.* member) are kept
 * read-only only where a writable root reaches HOME, and even then not
 * inside a cache a write rule names below one (native.c): as the runner
 * does it. */
static bool dot_entries_read_only(const struct cordon_profile *p, const char *c)
{
	const struct profile_rule *rule;
	bool reaches = false;

	if (!p->home)
		return false;
	if (p->workspace && path_is_under(p->home, p->workspace))
		reaches = true;
	for (size_t i = 0; !reaches && i < p->write.n; i++)
		if (path_is_under(p->home, p->write.v[i].path))
			reaches = true;
	if (!reaches)
		return false;
	rule = profile_rules_covering(&p->write, c);
	return !(rule && !path_is_under(p->home, rule->path));
}

/* What the native runner's write gate refuses by name (protect_names.h),
 * relative to the longest writable root holding c, as native.c asks it:
 * no rule inside a cache below a HOME dot-entry, nor at or below a
 * bypassed persistence entry. */
static const char *protected_by_name(const struct cordon_profile *p, const char *c)
{
	const char *root = NULL, *rel;

	for (size_t i = 0; i < p->write.n; i++)
		if (path_is_under(c, p->write.v[i].path) && (!root || strlen(p->write.v[i].path) > strlen(root)))
			root = p->write.v[i].path;
	if (p->workspace && path_is_under(c, p->workspace) && (!root || strlen(p->workspace) > strlen(root)))
		root = p->workspace;
	for (const char *const *t = policy_temp_roots(); t && *t; t++)
		if (strcmp(*t, "/tmp") != 0 && path_is_under(c, *t) && (!root || strlen(*t) > strlen(root)))
			root = *t;
	if (!root)
		return NULL;
	if (policy_home_cache_root(p->home, root))
		return NULL;
	for (size_t i = 0; i < p->bypass_persistence.n; i++)
		if (path_is_under(c, p->bypass_persistence.v[i].path))
			return NULL;
	rel = c + strlen(root);
	rel += *rel == '/';
	if (protect_match_names(policy_default_protect, rel))
		return "a protected name (editor, agent or tool configuration)";
	return protect_match_git(rel);
}

/* The sandbox's own directories in full isolation (the native runner's
 * mounts, bwrap's): a private tmpfs on /tmp, /dev/shm and /run, a /dev of
 * a few nodes. A host path there is not what the sandbox sees, unless a
 * writable root, the workspace or --read brings it back. NULL: c is the
 * host's file (or the private directory itself); else why it is hidden. */
static const char *const sandbox_dev[] = { "null", "zero", "full", "random", "urandom", "tty", "ptmx", "pts",
					   "shm", "fd", "stdin", "stdout", "stderr", NULL };

static const char *hidden_by_private_dir(const struct cordon_profile *p, const char *c, const char **ret_dir)
{
	static const char *const dirs[] = { "/tmp", "/dev/shm", "/run", "/var/run", NULL };

	for (size_t i = 0; dirs[i]; i++) {
		if (path_is_under(c, dirs[i]) <= 0 || strcmp(c, dirs[i]) == 0)
			continue;
		*ret_dir = dirs[i];
		if ((p->workspace && path_is_under(c, p->workspace) > 0) || profile_rules_covering(&p->write, c) ||
		    profile_rules_covering(&p->read_host, c))
			return NULL;
		for (const char *const *t = policy_temp_roots(); t && *t; t++)
			if (strcmp(*t, dirs[i]) != 0 && path_is_under(c, *t) > 0)
				return NULL; /* $TMPDIR below /tmp: bound back */
		return i < 2 ? "is a private tmpfs of the sandbox's own: the host's files below it are hidden (the "
			       "workspace, writable roots and the working directory below it come back; --read PATH "
			       "brings one back, read-only)"
			     : "is an empty tmpfs of the sandbox's own: the host's sockets and files below it are hidden";
	}
	if (path_is_under(c, "/dev") > 0 && strcmp(c, "/dev") != 0) {
		const char *name = c + 5;
		size_t n = strcspn(name, "/");

		*ret_dir = "/dev";
		for (size_t i = 0; sandbox_dev[i]; i++)
			if (strlen(sandbox_dev[i]) == n && memcmp(sandbox_dev[i], name, n) == 0)
				return NULL;
		return "is the sandbox's own: only null, zero, full, random, urandom, tty, a fresh pts and shm, and "
		       "the fd links are there; no other device of the host";
	}
	return NULL;
}

/* The home of the allowlist holding c, or NULL: the profile's HOME, or
 * another user's (/home/NAME, /root), when nothing writable holds it. */
static const char *allowlist_home(const struct cordon_profile *p, const char *c, char *buf, size_t size,
				  bool *ret_workspace_home)
{
	const char *h = NULL;

	*ret_workspace_home = false;
	if (p->home_policy != CORDON_HOME_ALLOWLIST)
		return NULL;
	if (p->home && path_is_under(c, p->home) && strcmp(c, p->home) != 0)
		h = p->home;
	else if (path_is_under(c, "/home") > 0 && strlen(c) > 6 && strlen(c) < size) {
		const char *user = c + strlen("/home/");
		size_t n = 0;

		/* the first name below /home (a loop: gcc's overread check
		 * misjudges strcspn here under the sanitizers) */
		while (user[n] && user[n] != '/')
			n++;
		snprintf(buf, size, "/home/%.*s", (int)n, user);
		h = strcmp(buf, c) != 0 ? buf : NULL;
	} else if (path_is_under(c, "/root") > 0 && strcmp(c, "/root") != 0)
		h = "/root";
	if (!h)
		return NULL;
	if ((p->workspace && path_is_under(h, p->workspace)) || profile_rules_covering(&p->write, h))
		*ret_workspace_home = true;
	return h;
}

/* Under home "allowlist": what makes c (given: as asked, before links
 * were followed) visible below a HOME, or that it is hidden by omission.
 * false: the allowlist has nothing to say (c is not below a hidden home). */
static bool why_allowlist(const struct cordon_profile *p, const char *given, const char *c, bool light,
			  struct profile_decision *d)
{
	const char *file = p->home_policy_origin.file, *ptr = p->home_policy_origin.pointer;
	const struct profile_rule *rule;
	const char *h, *entry;
	bool ws_home, filtered = false;
	_cleanup_free_ char *back = NULL;
	char buf[PATH_MAX];

	h = allowlist_home(p, c, buf, sizeof(buf), &ws_home);
	if (!h || ws_home)
		return false; /* the caller notes the workspace-is-HOME case */
	if (p->workspace && path_is_under(c, p->workspace))
		decide(d, true, p->workspace_origin.file, p->workspace_origin.pointer,
		       "%s is in the workspace %s, bound back into the hidden HOME %s", c, p->workspace, h);
	else if ((rule = profile_rules_covering(&p->write, c)) || (rule = profile_rules_covering(&p->read, c)) ||
		 (rule = profile_rules_covering(&p->read_host, c)))
		decide(d, true, rule->origin.file, rule->origin.pointer,
		       "%s is granted below the hidden HOME %s by %s", c, h, rule->spelled);
	else if ((p->home && strcmp(h, p->home) == 0) && (entry = policy_home_default_grant(h, c, &filtered)))
		decide(d, true, "(built-in)", "/home",
		       filtered ? "%s is granted by the built-in HOME grant ~/%s as a filtered copy: the sandbox "
				  "reads it without its credential-bearing lines (tokens, extraHeader, userinfo in "
				  "URLs, include and credential sections)%s"
				: "%s is granted by the built-in HOME grant ~/%s%s",
		       c, entry, filtered && light ? " (under light isolation it stays hidden: no place for the copy)" : "");
	else if (strcmp(given, c) != 0 && p->home && (entry = policy_home_default_grant(p->home, given, NULL)) &&
		 policy_home_link_target(p->home, given, true, &back) == 0 && back && path_is_under(c, back))
		decide(d, true, "(built-in)", "/home",
		       "%s is the target of %s, a link the built-in HOME grant ~/%s holds: %s comes back with it", c,
		       given, entry, back);
	else if (strcmp(given, c) != 0 && p->home && (entry = policy_home_default_grant(p->home, given, NULL)))
		decide(d, false, file, ptr,
		       "%s is a link granted by ~/%s, but its target %s stays hidden: it lies %s", given, entry, c,
		       policy_home_catalogue(p->home, c) ? "in a credential catalogue entry"
							 : "outside the grants below HOME, and a link in a bin directory "
							   "brings back only a program (--read brings it back)");
	else
		decide(d, false, file, ptr,
		       "%s is hidden by omission: home is \"allowlist\" and no grant covers it below %s (a grant "
		       "is the workspace, filesystem.read or .write, --read PATH, or a built-in grant)",
		       c, h);
	return true;
}

int profile_why_path(const struct cordon_profile *p, const char *path, enum profile_op op,
		     struct profile_decision *ret)
{
	return profile_why_path_isolation(p, path, op, false, ret);
}

int profile_why_path_isolation(const struct cordon_profile *p, const char *path, enum profile_op op, bool light,
			       struct profile_decision *ret)
{
	_cleanup_strv_free_ char **creds = NULL, **persist = NULL;
	_cleanup_free_ char *c = NULL, *joined = NULL;
	struct profile_decision d = {};
	const struct profile_rule *rule;
	const char *why;
	const char *hiding;
	char buf[PATH_MAX];
	bool ws_home;
	int r;

	if (!p || !path || !ret || op > PROFILE_OP_EXEC)
		return -EINVAL;
	/* ~ and ~/x as a shell would expand them, from the profile's HOME */
	if (p->home && path[0] == '~' && (path[1] == '\0' || path[1] == '/')) {
		joined = path_join(p->home, path + 1 + (path[1] == '/'));
		if (!joined)
			return -ENOMEM;
	} else if (path[0] != '/' && p->workspace) {
		joined = path_join(p->workspace, path);
		if (!joined)
			return -ENOMEM;
	}
	r = cordon_canonicalize(joined ? joined : path, &c, NULL);
	if (r < 0)
		return r;
	/* the temp roots, as a run would have them */
	r = policy_warm(NULL);
	if (r < 0)
		return r;
	r = profile_group_members(p, p->home, 0, &creds);
	if (r < 0)
		return r;
	r = profile_group_members(p, p->home, 1, &persist);
	if (r < 0)
		return r;

	if (p->mode == CORDON_MODE_DANGER_FULL_ACCESS) {
		decide(&d, true, p->mode_origin.file, p->mode_origin.pointer,
		       "mode danger-full-access confines nothing: %s is allowed", c);
		goto done;
	}
	rule = profile_rules_covering(&p->deny_read, c);
	if (rule) {
		decide(&d, false, rule->origin.file, rule->origin.pointer, "%s is hidden by the read-deny %s", c,
		       rule->spelled);
		goto done;
	}
	hiding = profile_credentials_hiding(p, creds, c);
	if (hiding) {
		decide(&d, false, "(built-in)", "/groups/credentials",
		       "%s is hidden by %s, an entry of the built-in group credentials", c, hiding);
		goto done;
	}
	for (size_t i = 0; policy_default_deny_sockets[i]; i++)
		if (path_is_under(c, policy_default_deny_sockets[i])) {
			decide(&d, false, "(built-in)", "",
			       "%s is hidden: %s is a socket or directory that leads out of any sandbox", c,
			       policy_default_deny_sockets[i]);
			goto done;
		}
	for (size_t i = 0; policy_default_deny_system[i]; i++)
		if (path_is_under(c, policy_default_deny_system[i])) {
			decide(&d, false, "(built-in)", "", "%s is hidden: %s is cordon's own, hidden from every sandbox", c,
			       policy_default_deny_system[i]);
			goto done;
		}
	if (p->net != PROFILE_NET_HOST)
		for (size_t i = 0; policy_default_deny_services[i]; i++)
			if (path_is_under(c, policy_default_deny_services[i])) {
				decide(&d, false, p->net_origin.file, p->net_origin.pointer,
				       "%s is hidden: local service sockets are hidden while network.mode is %s", c,
				       profile_net_to_string(p->net));
				goto done;
			}

	if (op == PROFILE_OP_EXEC && p->tools) {
		const struct tool_command *tc = session_controlled(p, c);

		if (tc) {
			char pointer[sizeof(d.pointer)];

			snprintf(pointer, sizeof(pointer), "%s%s", tc->place.pointer ? tc->place.pointer : "",
				 tc->executable ? "/executable" : "");
			decide(&d, false, tc->place.file ? tc->place.file : p->file, pointer,
			       "%s runs the command %s under command_policies: the session may not execute it; "
			       "it calls %s by name (the shim /run/cordon/bin/%s), and the supervisor runs it in %s's own "
			       "sandbox",
			       c, tc->name, tc->name, tc->name, tc->name);
			goto done;
		}
	}
	if ((op == PROFILE_OP_READ || op == PROFILE_OP_EXEC) && why_allowlist(p, joined ? joined : path, c, light, &d))
		goto done;
	if (op == PROFILE_OP_READ || op == PROFILE_OP_EXEC) {
		const char *exec_note = op != PROFILE_OP_EXEC ? ""
					: p->tools ? " (the execute-only gate keeps only the executables of "
						     "command_policies from running directly)"
						   : " (no execute-only gate without command_policies: what is readable may run)";

		rule = profile_rules_covering(&p->read, c);
		if (rule)
			decide(&d, true, rule->origin.file, rule->origin.pointer, "%s is granted by %s%s", c,
			       rule->spelled, exec_note);
		else if (!light && (hiding = hidden_by_private_dir(p, c, &why)))
			decide(&d, false, "(built-in)", "", "%s is hidden: %s %s", c, why, hiding);
		else if ((rule = profile_rules_covering(&p->lifted_credentials, c)))
			decide(&d, true, rule->origin.file, rule->origin.pointer,
			       "%s is readable: the credential group %s is lifted (its entry %s)%s", c, rule->spelled,
			       rule->path, exec_note);
		else if (allowlist_home(p, c, buf, sizeof(buf), &ws_home) && ws_home)
			decide(&d, true, p->home_policy_origin.file, p->home_policy_origin.pointer,
			       "%s is readable: home is \"allowlist\", but the workspace (or a writable root) is at or "
			       "above the HOME %s, which cannot be hidden from itself: the allowlist does not apply "
			       "there, the credential catalogue does%s",
			       c, allowlist_home(p, c, buf, sizeof(buf), &ws_home), exec_note);
		else
			decide(&d, true, p->mode_origin.file, p->mode_origin.pointer,
			       "the whole system is readable under mode %s, except what is denied%s",
			       cordon_mode_to_string(p->mode), exec_note);
		goto done;
	}

	if (p->mode == CORDON_MODE_READ_ONLY) {
		decide(&d, false, p->mode_origin.file, p->mode_origin.pointer, "mode read-only writes nothing");
		goto done;
	}
	if (light)
		goto grants; /* no mount namespace: nothing below is bound read-only */
	rule = profile_rules_covering(&p->protect, c);
	if (rule) {
		decide(&d, false, rule->origin.file, rule->origin.pointer, "%s is kept read-only by %s", c,
		       rule->spelled);
		goto done;
	}
	STRV_FOREACH(m, persist)
		if (member_covers(*m, c) && !profile_rules_contain(&p->bypass_persistence, *m) &&
		    !(wildcard(*m) && !dot_entries_read_only(p, c))) {
			decide(&d, false, "(built-in)", "/groups/persistence",
			       "%s is kept read-only by %s, an entry of the built-in group persistence", c, *m);
			goto done;
		}
	if ((why = protected_by_name(p, c))) {
		decide(&d, false, "(built-in)", "/groups/persistence",
		       "%s is refused by the write gate (native runner): %s, at any depth below a writable root", c,
		       why);
		goto done;
	}
grants:
	rule = profile_rules_covering(&p->write, c);
	if (rule) {
		decide(&d, true, rule->origin.file, rule->origin.pointer, "%s is granted by %s", c, rule->spelled);
		goto done;
	}
	if (p->workspace && path_is_under(c, p->workspace)) {
		decide(&d, true, p->workspace_origin.file, p->workspace_origin.pointer,
		       "%s is in the workspace %s", c, p->workspace);
		goto done;
	}
	for (const char *const *t = policy_temp_roots(); t && *t; t++)
		if (path_is_under(c, *t)) {
			decide(&d, true, "(built-in)", "", "%s is in the temp directory %s", c, *t);
			goto done;
		}
	decide(&d, false, p->mode_origin.file, p->mode_origin.pointer,
	       "no write grant covers %s: mode %s writes the workspace, temp and filesystem.write only", c,
	       cordon_mode_to_string(p->mode));
done:
	*ret = d;
	return 0;
}

int profile_why_host(const struct cordon_profile *p, const char *host, unsigned port, struct profile_decision *ret)
{
	struct profile_decision d = {};

	if (!p || !host || !ret || !host[0] || port > 65535)
		return -EINVAL;
	if (p->mode == CORDON_MODE_DANGER_FULL_ACCESS || p->net == PROFILE_NET_HOST)
		decide(&d, true, p->net_origin.file, p->net_origin.pointer, "network.mode is %s: %.200s port %u is allowed",
		       p->mode == CORDON_MODE_DANGER_FULL_ACCESS ? "unconfined" : "host", host, port);
	else if (p->net == PROFILE_NET_PROXY || p->net == PROFILE_NET_ALLOW)
		return profile_why_proxy(p, host, port, ret);
	else
		decide(&d, false, p->net_origin.file, p->net_origin.pointer,
		       "network.mode is none: only the sandbox's own loopback, so %.200s port %u is unreachable", host,
		       port);
	*ret = d;
	return 0;
}
