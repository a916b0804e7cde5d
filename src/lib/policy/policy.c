/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The policy: built once, validated, and from then on read-only. Everything
 * that needs the filesystem (canonical paths, which credential stores exist,
 * the environment snapshot) happens here so that confine stays pure.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "canon.h"
#include "cleanup.h"
#include "dirat.h"
#include "error.h"
#include "statmemo.h"
#include "policy.h"
#include "strv.h"

static int protect_xdg_profiles(struct cordon_policy *p)
{
	const char *xdg = secure_getenv("XDG_CONFIG_HOME");
	_cleanup_free_ char *canon = NULL, *path = NULL;
	int r;

	if (p->mode != CORDON_MODE_WORKSPACE_WRITE || !xdg || xdg[0] != '/')
		return 0;
	if (cordon_canonicalize(xdg, &canon, NULL) < 0)
		return 0; /* nothing to protect that we could name */
	STRV_FOREACH(root, p->writable_roots)
		if (strcmp(*root, "/tmp") != 0 && path_is_under(canon, *root)) {
			path = path_join(canon, "cordon");
			if (!path)
				return -ENOMEM;
			if (strv_contains(p->protect, path))
				return 0;
			r = strv_push_unique(&p->protect, path);
			return r < 0 ? r : policy_note_protect(p, path);
		}
	return 0;
}

/* tool: the private /tmp alone (policy_temp_roots() starts with it); the
 * workspace and $TMPDIR are writable only when added. */
static int compute_writable_roots(struct cordon_policy *p, bool tool)
{
	char **roots = calloc(1, sizeof(char *));
	int r;

	if (!roots)
		return -ENOMEM;
	if (tool && policy_temp_roots()[0]) {
		r = strv_push_unique(&roots, policy_temp_roots()[0]);
		if (r < 0)
			goto fail;
	} else if (p->mode != CORDON_MODE_READ_ONLY) {
		if (p->workspace) {
			r = strv_push_unique(&roots, p->workspace);
			if (r < 0)
				goto fail;
		}
		for (const char *const *t = policy_temp_roots(); *t; t++) {
			r = strv_push_unique(&roots, *t);
			if (r < 0)
				goto fail;
		}
	}
	strv_free(p->writable_roots);
	p->writable_roots = roots;
	return 0;
fail:
	strv_free(roots);
	return r;
}

CORDON_API struct cordon_policy *cordon_policy_free(struct cordon_policy *p)
{
	if (!p)
		return NULL;
	free(p->workspace);
	free(p->home);
	strv_free(p->writable_roots);
	strarena_free(&p->deny_strs);
	free(p->deny);
	strv_free(p->protect);
	strv_free(p->protect_files);
	strv_free(p->protect_links);
	strv_free(p->protect_dirs_seen);
	strv_free(p->protect_expanded);
	strv_free(p->unprotect);
	strv_free(p->allow_unix);
	for (size_t i = 0; i < ELEMENTSOF(p->net_rules); i++)
		strv_free(p->net_rules[i]);
	strv_free(p->env);
	strv_free(p->keep_env);
	free(p->shim_path);
	strv_free(p->shims);
	strv_free(p->read_roots);
	strv_free(p->read_missing);
	strv_free(p->read_host);
	strv_free(p->home_hidden);
	strv_free(p->home_grants);
	strv_free(p->home_links);
	strv_free(p->home_filtered);
	free(p->home_other);
	strv_free(p->exec_roots);
	strv_free(p->exec_missing);
	strv_free(p->deny_exec);
	free(p);
	return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_policy *, cordon_policy_free)

CORDON_API int cordon_policy_new(enum cordon_mode mode, const char *workspace_root,
				 struct cordon_policy **ret, struct cordon_error *reterr)
{
	if (!ret)
		return error_set(reterr, -EINVAL, "no place to return the policy");
	if ((unsigned)mode > CORDON_MODE_DANGER_FULL_ACCESS)
		return error_set(reterr, -EINVAL,
				 "unknown mode %d: valid modes are CORDON_MODE_READ_ONLY, CORDON_MODE_WORKSPACE_WRITE, "
				 "CORDON_MODE_DANGER_FULL_ACCESS",
				 (int)mode);
	return policy_new_internal(mode, workspace_root, 0, ret, reterr);
}

static int policy_build(enum cordon_mode m, const char *workspace_root, unsigned flags, struct cordon_policy **ret,
			struct cordon_error *reterr);

/* The build looks at each path once (statmemo.h), unless the caller
 * (cordon_launch_new) opened the memo for more than this. */
int policy_new_internal(enum cordon_mode m, const char *workspace_root, unsigned flags, struct cordon_policy **ret,
			struct cordon_error *reterr)
{
	bool opened = statmemo_open();
	int r = policy_build(m, workspace_root, flags, ret, reterr);

	statmemo_close(opened);
	return r;
}

static int policy_build(enum cordon_mode m, const char *workspace_root, unsigned flags, struct cordon_policy **ret,
			struct cordon_error *reterr)
{
	bool tool = flags & POLICY_NEW_TOOL;
	_cleanup_(cordon_policy_freep) struct cordon_policy *p = NULL;
	_cleanup_free_ char *pw_home = NULL;
	struct stat st;
	int r;

	r = policy_warm(reterr);
	if (r < 0)
		return r;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->mode = m;
	p->net = CORDON_NET_NONE;
	p->isolation = CORDON_ISOLATION_FULL;
	p->caller_is_root = geteuid() == 0;
	/* a launch for the native runner needs no bwrap notes (policy.h) */
	p->protect_notes_deferred = policy_protect_notes_deferring();

	if (workspace_root || m != CORDON_MODE_DANGER_FULL_ACCESS) {
		struct cordon_error e = {};
		const char *ws = workspace_root ? workspace_root : ".";

		if ((flags & POLICY_NEW_CANONICAL) && workspace_root) {
			p->workspace = strdup(workspace_root);
			if (!p->workspace)
				return -ENOMEM;
		} else if ((r = canonicalize_grant(ws, (const char *const *const[]){ policy_temp_roots(), NULL },
						   &p->workspace, &e)) < 0)
			return error_set(reterr, r, "workspace root: %s", e.message);
		if (strcmp(p->workspace, "/") == 0)
			return error_set(reterr, -EINVAL,
					 "workspace root '%s' canonicalises to '/': refusing to make the whole filesystem the workspace",
					 ws);
		/* The rules by name, the persistence paths and a process's
		 * working directory all live below a workspace: a file has no
		 * below. (A writable file is cordon_policy_add_writable's.) */
		if (statmemo_stat(p->workspace, &st) == 0 && !S_ISDIR(st.st_mode))
			return error_set(reterr, -ENOTDIR, "workspace root %s is not a directory", p->workspace);
	}

	r = policy_resolve_home(&p->home);
	if (r < 0)
		return error_set(reterr, r, "cannot resolve HOME");
	/* HOME may point elsewhere than the passwd home (HOME=/x cordon
	 * run): both hold the caller's secrets. Under the allowlist only
	 * what is granted there is looked at (policy_home_cover, below). */
	r = policy_other_home(p->home, &pw_home);
	if (r < 0)
		return r;
	if (flags & POLICY_NEW_HOME_ALLOWLIST) {
		p->home_catalogue_lazy = true;
		p->home_other = TAKE_PTR(pw_home);
	} else {
		r = policy_deny_home_secrets(p, p->home, reterr);
		if (r == 0 && pw_home)
			r = policy_deny_home_secrets(p, pw_home, reterr);
		if (r < 0)
			return r;
	}
	if (geteuid() == 0) {
		r = policy_deny_root_secrets(p, reterr);
		if (r < 0)
			return r;
	}

	r = policy_deny_defaults_outside_home(p, reterr);
	if (r < 0)
		return r;

	if (p->workspace)
		for (size_t i = 0; policy_default_protect[i]; i++) {
			r = strv_consume(&p->protect, path_join(p->workspace, policy_default_protect[i]));
			if (r < 0)
				return r;
		}

	p->env = calloc(1, sizeof(char *));
	if (!p->env)
		return -ENOMEM;
	r = policy_env_snapshot(&p->env, policy_default_env);
	if (r < 0)
		return error_set(reterr, r, "cannot snapshot the environment");
	if (m != CORDON_MODE_DANGER_FULL_ACCESS) {
		char *mode = NULL;

		r = strv_push(&p->env, "CORDON_SANDBOX=1");
		if (r < 0 || asprintf(&mode, "CORDON_SANDBOX_MODE=%s", cordon_mode_to_string(m)) < 0 ||
		    strv_consume(&p->env, mode) < 0)
			return -ENOMEM;
	}

	r = compute_writable_roots(p, tool);
	if (r < 0)
		return r;
	if (p->workspace && (r = policy_home_cover(p, p->workspace, reterr)) < 0)
		return r;
	STRV_FOREACH(root, p->writable_roots)
		if ((r = policy_home_cover(p, *root, reterr)) < 0)
			return r;
	/* Shell start-up files and HOME's dot-entries matter only where HOME
	 * is writable (under the workspace or $TMPDIR; a HOME under /tmp sits
	 * in the sandbox's private /tmp), PATH dirs where a root holds them. */
	STRV_FOREACH(root, p->writable_roots)
		if ((r = policy_protect_reach(p, *root)) < 0)
			return error_set(reterr, r, "cannot protect what %s reaches", *root);
	r = policy_protect_hooks_paths(p);
	if (r < 0)
		return error_set(reterr, r, "cannot read where git takes the workspace's hooks from");
	/* cordon's profiles where XDG_CONFIG_HOME moves them out of HOME */
	r = protect_xdg_profiles(p);
	if (r < 0)
		return r;
	STRV_FOREACH(prot, p->protect)
		if ((r = policy_note_protect(p, *prot)) < 0)
			return r;

	*ret = TAKE_PTR(p);
	return 0;
}

CORDON_API enum cordon_mode cordon_policy_mode(const struct cordon_policy *p)
{
	return p->mode;
}

CORDON_API const char *cordon_policy_workspace(const struct cordon_policy *p)
{
	return p->workspace;
}

CORDON_API int cordon_policy_set_net(struct cordon_policy *p, enum cordon_net net)
{
	switch (net) {
	case CORDON_NET_NONE:
	case CORDON_NET_HOST:
	case CORDON_NET_PROXY:
	case CORDON_NET_ALLOW:
		p->net = net;
		return 0;
	}
	return -EINVAL;
}

CORDON_API enum cordon_net cordon_policy_net(const struct cordon_policy *p)
{
	return p->net;
}

CORDON_API int cordon_policy_set_isolation(struct cordon_policy *p, enum cordon_isolation iso)
{
	switch (iso) {
	case CORDON_ISOLATION_FULL:
	case CORDON_ISOLATION_LIGHT:
		p->isolation = iso;
		return 0;
	}
	return -EINVAL;
}

CORDON_API int cordon_policy_keep_env(struct cordon_policy *p, const char *name,
				      struct cordon_error *reterr)
{
	int r;

	if (!name || !env_name_valid(name, true))
		return error_set(reterr, -EINVAL,
				 "'%s' is not a variable name (letters, digits and '_', optionally ending in '*')",
				 name ? name : "(null)");
	if (env_name_is_injection(name))
		return error_set(reterr, -EPERM,
				 "refusing to pass %s into the sandbox: it makes a loader or interpreter run code chosen from outside",
				 name);
	if (env_name_is_cordon_owned(name))
		return error_set(reterr, -EPERM, "refusing to pass %s into the sandbox: cordon sets it there", name);
	if (strv_length(p->keep_env) >= POLICY_MAX_ENTRIES)
		return error_set(reterr, -E2BIG, "too many kept variables (at most %d)", POLICY_MAX_ENTRIES);
	r = strv_push_unique(&p->keep_env, name);
	if (r < 0)
		return r;
	return policy_env_snapshot(&p->env, (const char *const[]){ name, NULL });
}

CORDON_API int cordon_policy_withhold_env(struct cordon_policy *p, const char *name, struct cordon_error *reterr)
{
	size_t nl, k = 0;

	if (!p || !name || !env_name_valid(name, false))
		return error_set(reterr, -EINVAL, "'%s' is not a variable name", name ? name : "(null)");
	nl = strlen(name);
	for (size_t i = 0; p->env && p->env[i]; i++) {
		if (strncmp(p->env[i], name, nl) == 0 && p->env[i][nl] == '=') {
			explicit_bzero(p->env[i], strlen(p->env[i]));
			free(p->env[i]);
			continue;
		}
		p->env[k++] = p->env[i];
	}
	if (p->env)
		p->env[k] = NULL;
	return 0;
}

CORDON_API int cordon_policy_set_env(struct cordon_policy *p, const char *name, const char *value,
				     struct cordon_error *reterr)
{
	_cleanup_free_ char *entry = NULL;
	size_t nl;

	if (!name || !env_name_valid(name, false))
		return error_set(reterr, -EINVAL, "'%s' is not a variable name (letters, digits and '_')",
				 name ? name : "(null)");
	if (env_name_is_injection(name))
		return error_set(reterr, -EPERM,
				 "refusing to set %s: it makes a loader or interpreter run code chosen from outside",
				 name);
	if (env_name_is_cordon_owned(name))
		return error_set(reterr, -EPERM, "refusing to set %s: cordon sets it in the sandbox", name);
	if (env_name_is_proxy(name))
		return error_set(reterr, -EPERM, "refusing to set %s: cordon sets %s itself: " POLICY_PROXY_ENV_WHY, name,
				 name);
	if (!value || strlen(value) > POLICY_ENV_VALUE_MAX)
		return error_set(reterr, -EINVAL, "value for %s is missing or longer than %d bytes", name, POLICY_ENV_VALUE_MAX);
	if (asprintf(&entry, "%s=%s", name, value) < 0)
		return -ENOMEM;

	nl = strlen(name);
	for (char **x = p->env; x && *x; x++)
		if (strncmp(*x, name, nl) == 0 && (*x)[nl] == '=') {
			free(*x);
			*x = TAKE_PTR(entry);
			return 0;
		}
	if (strv_length(p->env) >= POLICY_MAX_ENTRIES)
		return error_set(reterr, -E2BIG, "too many environment variables (at most %d)", POLICY_MAX_ENTRIES);
	return strv_consume(&p->env, TAKE_PTR(entry));
}

CORDON_API int cordon_policy_deny_read(struct cordon_policy *p, const char *path,
				       struct cordon_error *reterr)
{
	if (!path || !*path)
		return error_set(reterr, -EINVAL, "read-deny path is empty");
	return policy_deny_add(p, path, DENY_EXPLICIT, reterr);
}

CORDON_API int cordon_policy_protect(struct cordon_policy *p, const char *path,
				     struct cordon_error *reterr)
{
	_cleanup_free_ char *joined = NULL, *canon = NULL;
	int r;

	if (!path || !*path)
		return error_set(reterr, -EINVAL, "protected path is empty");
	if (path[0] != '/') {
		if (!p->workspace)
			return error_set(reterr, -EINVAL, "relative protected path '%s' needs a workspace", path);
		joined = path_join(p->workspace, path);
		if (!joined)
			return -ENOMEM;
	}
	r = cordon_canonicalize(joined ? joined : path, &canon, reterr);
	if (r < 0)
		return r;
	return policy_protect_canonical(p, canon, reterr);
}

int policy_protect_canonical(struct cordon_policy *p, const char *canon, struct cordon_error *reterr)
{
	int r;

	if (strcmp(canon, "/") == 0)
		return error_set(reterr, -EINVAL, "protecting '/' is what read-only mode is for");
	if (strv_length(p->protect) >= POLICY_MAX_ENTRIES)
		return error_set(reterr, -E2BIG, "too many protected paths (at most %d)", POLICY_MAX_ENTRIES);
	r = strv_push_unique(&p->protect, canon);
	return r < 0 ? r : policy_note_protect(p, canon);
}

int policy_canonicalize_grant(const struct cordon_policy *p, const char *path, char **ret,
			      struct cordon_error *reterr)
{
	const char *const ws[] = { p->workspace, NULL };
	const char *const *const roots[] = { (const char *const *)p->writable_roots, policy_temp_roots(), ws, NULL };

	return canonicalize_grant(path, roots, ret, reterr);
}

CORDON_API int cordon_policy_allow_unix_socket(struct cordon_policy *p, const char *path,
					       struct cordon_error *reterr)
{
	_cleanup_free_ char *canon = NULL;
	int r;

	if (!path || path[0] != '/')
		return error_set(reterr, -EINVAL, "unix socket path '%s' is not absolute", path ? path : "");
	r = policy_canonicalize_grant(p, path, &canon, reterr);
	if (r < 0)
		return r;
	return policy_allow_unix_socket_canonical(p, canon, reterr);
}

int policy_allow_unix_socket_canonical(struct cordon_policy *p, const char *canon, struct cordon_error *reterr)
{
	if (strcmp(canon, "/") == 0)
		return error_set(reterr, -EINVAL, "'/' is not a unix socket");
	if (strv_length(p->allow_unix) >= POLICY_MAX_ENTRIES)
		return error_set(reterr, -E2BIG, "too many unix sockets (at most %d)", POLICY_MAX_ENTRIES);
	return strv_push_unique(&p->allow_unix, canon);
}

int policy_protect_root(struct cordon_policy *p, const char *root, struct cordon_error *reterr)
{
	int r;

	r = policy_protect_reach(p, root);
	if (r < 0)
		return error_set(reterr, r, "cannot protect what %s reaches", root);
	r = policy_protect_hooks_paths(p);
	if (r < 0)
		return error_set(reterr, r, "cannot read where git takes the workspace's hooks from");
	r = protect_xdg_profiles(p);
	return r < 0 ? error_set(reterr, r, "cannot protect cordon's profiles") : 0;
}

CORDON_API int cordon_policy_add_writable(struct cordon_policy *p, const char *path,
					  struct cordon_error *reterr)
{
	_cleanup_free_ char *canon = NULL;
	int r;

	if (!path || !*path)
		return error_set(reterr, -EINVAL, "writable path is empty");
	if (p->mode != CORDON_MODE_WORKSPACE_WRITE)
		return error_set(reterr, -EINVAL, "'%s' cannot be writable under %s mode", path,
				 cordon_mode_to_string(p->mode));
	r = policy_canonicalize_grant(p, path, &canon, reterr);
	if (r < 0)
		return r;
	return policy_add_writable_canonical(p, canon, reterr);
}

/* A write grant for a directory that does not exist yet: made now, below
 * HOME or the workspace only, one component at a time from that root's fd
 * and never through a symlink (O_NOFOLLOW at each step); anywhere else it
 * is refused with the reason, never silently skipped (the runner would
 * have nothing to grant). */
static int writable_make_missing(const struct cordon_policy *p, const char *canon, struct cordon_error *reterr)
{
	const char *roots[] = { p->workspace, p->home }, *base = NULL;
	_cleanup_close_ int dfd = -1;
	int made;

	for (size_t i = 0; i < ELEMENTSOF(roots); i++)
		if (roots[i] && strcmp(roots[i], canon) != 0 && path_is_under(canon, roots[i]) &&
		    (!base || strlen(roots[i]) > strlen(base)))
			base = roots[i];
	if (!base)
		return error_set(reterr, -ENOENT,
				 "the write grant '%s' does not exist, and cordon creates a missing one only below "
				 "HOME or the workspace: create it first", canon);
	for (size_t i = 0; i < p->n_deny; i++)
		if (path_is_under(canon, p->deny[i].path))
			return error_set(reterr, -EPERM,
					 "the write grant '%s' does not exist and is below the read-deny entry '%s': "
					 "not created", canon, p->deny[i].path);
	dfd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (dfd < 0)
		return error_set(reterr, -errno, "cannot open '%s' to create the write grant '%s': %s", base, canon,
				 strerror(errno));
	made = dir_make_open_at(dfd, canon + strlen(base), strlen(canon + strlen(base)), 0755);
	if (made == -ENOTDIR || made == -ELOOP)
		return error_set(reterr, -ENOTDIR,
				 "cannot create the write grant '%s': a component below '%s' is a symlink or not a "
				 "directory", canon, base);
	if (made < 0)
		return error_set(reterr, made, "cannot create the write grant '%s': %s", canon, strerror(-made));
	close(made);
	return 0;
}

/* A profile's filesystem.write entry: a directory, made when missing. */
int policy_add_writable_dir_canonical(struct cordon_policy *p, const char *canon, struct cordon_error *reterr)
{
	struct stat st;
	int r;

	if (p->mode == CORDON_MODE_WORKSPACE_WRITE && lstat(canon, &st) < 0 && errno == ENOENT) {
		r = writable_make_missing(p, canon, reterr);
		if (r < 0)
			return r;
		/* what was missing above a read-deny entry may exist now: the
		 * runner hides the first component still missing */
		for (size_t i = 0; i < p->n_deny; i++)
			if (!p->deny[i].exists && p->deny[i].absent_at && path_is_under(canon, p->deny[i].absent_at)) {
				_cleanup_free_ char *at = policy_first_absent(p->deny[i].path);

				p->deny[i].absent_at = at ? strarena_dup(&p->deny_strs, at) : NULL;
				if (at && !p->deny[i].absent_at)
					return -ENOMEM;
			}
	}
	return policy_add_writable_canonical(p, canon, reterr);
}

int policy_add_writable_canonical(struct cordon_policy *p, const char *canon, struct cordon_error *reterr)
{
	struct stat st;
	int r;

	if (p->mode != CORDON_MODE_WORKSPACE_WRITE)
		return error_set(reterr, -EINVAL, "'%s' cannot be writable under %s mode", canon,
				 cordon_mode_to_string(p->mode));
	if (strcmp(canon, "/") == 0)
		return error_set(reterr, -EINVAL, "refusing to make the whole filesystem writable");
	/* A file is bound back alone and gets a Landlock rule of its own: it
	 * is written in place (nothing can be made beside it); a device,
	 * socket or fifo is no file to write. */
	if (stat(canon, &st) == 0 && !S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
		return error_set(reterr, -EINVAL, "'%s' is neither a directory nor a regular file", canon);
	if ((r = policy_home_cover(p, canon, reterr)) < 0)
		return r;
	if (p->read_restricted) {
		r = policy_lift_deny(p, canon, reterr);
		if (r < 0)
			return r;
	} else
		for (size_t i = 0; i < p->n_deny; i++)
			if (p->deny[i].exists && path_is_under(canon, p->deny[i].path))
				return error_set(reterr, -EPERM,
						 "'%s' is hidden by the read-deny entry '%s', and deny always wins", canon,
						 p->deny[i].path);
	if (strv_length(p->writable_roots) >= POLICY_MAX_ENTRIES)
		return error_set(reterr, -E2BIG, "too many writable paths (at most %d)", POLICY_MAX_ENTRIES);
	r = strv_push_unique(&p->writable_roots, canon);
	if (r < 0)
		return r;
	return policy_protect_root(p, canon, reterr);
}

/* The one table of feature names: the policy, the native provider's argv
 * and the runner's parser all speak it. */
static const struct {
	const char *name;
	unsigned bit;
} features[] = {
	{ "landlock", REQUIRE_LANDLOCK },
	{ "landlock-net", REQUIRE_LANDLOCK_NET },
	{ "landlock-scope", REQUIRE_LANDLOCK_SCOPE },
	{ "seccomp", REQUIRE_SECCOMP },
	{ "userns", REQUIRE_USERNS },
	{ "pidns", REQUIRE_PIDNS },
	{ "netns", REQUIRE_NETNS },
};

int require_feature_from_string(const char *s, unsigned *ret)
{
	for (size_t i = 0; s && i < ELEMENTSOF(features); i++)
		if (strcmp(features[i].name, s) == 0) {
			*ret = features[i].bit;
			return 0;
		}
	return -EINVAL;
}

const char *require_feature_to_string(unsigned bit)
{
	for (size_t i = 0; i < ELEMENTSOF(features); i++)
		if (features[i].bit == bit)
			return features[i].name;
	return NULL;
}

CORDON_API int cordon_policy_require(struct cordon_policy *p, const char *feature,
				     struct cordon_error *reterr)
{
	unsigned bit;

	if (require_feature_from_string(feature, &bit) == 0) {
		p->required |= bit;
		return 0;
	}
	return error_set(reterr, -EINVAL,
			 "unknown feature '%s': known features are landlock, landlock-net, landlock-scope, seccomp, userns, pidns, netns",
			 feature ? feature : "(null)");
}

CORDON_API int cordon_policy_require_grade(struct cordon_policy *p, enum cordon_grade g)
{
	if (!p)
		return -EINVAL;
	switch (g) {
	case CORDON_GRADE_FULL:
	case CORDON_GRADE_PARTIAL:
		p->min_grade = g;
		return 0;
	}
	return -EINVAL;
}

CORDON_API const char *const *cordon_writable_roots(const struct cordon_policy *p)
{
	return (const char *const *)p->writable_roots;
}
