/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The read-deny set: the credential catalogue below HOME and the caller's
 * passwd home, the system's secrets for a root caller, the sockets and
 * services that lead out of any sandbox, and the caller's own entries.
 * What does not exist yet is recorded too (absent_at), so the native
 * runner can hide it by name.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "canon.h"
#include "cleanup.h"
#include "dirlist.h"
#include "error.h"
#include "passwd_home.h"
#include "statmemo.h"
#include "policy.h"
#include "strv.h"

/* ---- read-deny set ---- */

bool deny_entry_applies(const struct cordon_policy *p, const struct deny_entry *d)
{
	return d->exists && !(d->only_without_net && p->net == CORDON_NET_HOST);
}

const char *deny_entry_native_path(const struct cordon_policy *p, const struct deny_entry *d)
{
	if (d->only_without_net && p->net == CORDON_NET_HOST)
		return NULL;
	return d->exists ? d->path : d->absent_at;
}

/* The first component of an absent canonical path that does not exist:
 * /h/.config/gh with /h/.config missing gives /h/.config. NULL when even /
 * would be it, or on a lookup error (then nothing is hidden by omission). */
char *policy_first_absent(const char *path)
{
	_cleanup_free_ char *buf = strdup(path);
	char *slash;
	struct stat st;
	int r;

	if (!buf)
		return NULL;
	for (;;) {
		slash = strrchr(buf, '/');
		if (!slash || slash == buf)
			return NULL;
		*slash = '\0';
		r = statmemo_lstat(buf, &st);
		if (r == 0) {
			if (!S_ISDIR(st.st_mode))
				return NULL; /* below a file: nothing can be created there */
			*slash = '/';
			return TAKE_PTR(buf);
		}
		if (r != -ENOENT)
			return NULL;
	}
}

static int deny_insert(struct cordon_policy *p, const char *canon, enum deny_origin origin,
		       const struct policy_secret_state *known, struct cordon_error *reterr);

/* FNV-1a: a launch adds some 300 entries, each checked against all before
 * it; comparing a word first keeps that quadratic walk off strcmp. */
static uint32_t deny_path_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static struct deny_entry *deny_find(const struct cordon_policy *p, const char *path)
{
	uint32_t h = deny_path_hash(path);

	/* most paths are new: their bit is clear, and the walk is skipped */
	if (!(p->deny_seen[(h >> 6) % 64] & (1ull << (h % 64))))
		return NULL;

	for (size_t i = 0; i < p->n_deny; i++)
		if (p->deny[i].hash == h && strcmp(p->deny[i].path, path) == 0)
			return &p->deny[i];
	return NULL;
}
static int deny_add_resolved(struct cordon_policy *p, int r, const char *canon, enum deny_origin origin,
			     const struct policy_secret_state *known, struct cordon_error *reterr);

/* base: NULL, or a canonical directory that path (then relative) lies below. */
static int deny_add_at(struct cordon_policy *p, const char *base, const char *path, enum deny_origin origin,
		       struct cordon_error *reterr)
{
	_cleanup_free_ char *canon = NULL;
	int r;

	if (p->n_deny >= POLICY_MAX_ENTRIES)
		return error_set(reterr, -E2BIG, "too many read-deny paths (at most %d)", POLICY_MAX_ENTRIES);
	/* The same path named again (a profile restating the defaults) is
	 * found before it costs a walk. */
	if (!base && path[0] == '/') {
		struct deny_entry *d = deny_find(p, path);

		if (d) {
			/* asked for by name now: no grant lifts it */
			d->explicit_deny |= origin == DENY_EXPLICIT;
			return 0;
		}
	}
	r = base ? canonicalize_at(base, path, &canon, reterr) : cordon_canonicalize(path, &canon, reterr);
	return deny_add_resolved(p, r, canon, origin, NULL, reterr);
}

/* r and canon: how canonicalising an entry went; known: what exists of
 * it, when the catalogue's listings said (else it is looked at). The
 * strings are copied into p->deny_strs. */
static int deny_add_resolved(struct cordon_policy *p, int r, const char *canon, enum deny_origin origin,
			     const struct policy_secret_state *known, struct cordon_error *reterr)
{
	/* A built-in entry we cannot even look at (another user's passwd home
	 * inside a user namespace) is out of the sandbox's reach as well. */
	if (r == -EACCES && origin != DENY_EXPLICIT) {
		if (reterr)
			*reterr = (struct cordon_error){};
		return 0;
	}
	if (r < 0)
		return r;
	return deny_insert(p, canon, origin, known, reterr);
}

/* canon: a canonical path, into the read-deny set (a copy in p->deny_strs). */
static int deny_insert(struct cordon_policy *p, const char *canon, enum deny_origin origin,
		       const struct policy_secret_state *known, struct cordon_error *reterr)
{
	struct deny_entry *nd;
	struct stat st;
	uint32_t hash;
	int r;

	if (strcmp(canon, "/") == 0)
		return error_set(reterr, -EINVAL, "refusing to hide '/': nothing could run");
	nd = deny_find(p, canon);
	if (nd) {
		nd->explicit_deny |= origin == DENY_EXPLICIT;
		return 0;
	}
	/* A built-in entry never hides the workspace or a temp root the caller
	 * chose (TMPDIR under /run/user, a workspace inside ~/.docker, ...). */
	if (origin != DENY_EXPLICIT) {
		if (p->workspace && path_is_under(p->workspace, canon))
			return 0;
		for (const char *const *t = policy_temp_roots(); *t; t++)
			if (path_is_under(*t, canon))
				return 0;
		/* nor cordon itself: a sandbox must be able to run cordon (nested) */
		if (path_is_under(cordon_runner_path(), canon))
			return 0;
	}

	hash = deny_path_hash(canon);
	if (p->n_deny >= p->deny_cap) {
		size_t cap = p->deny_cap ? 2 * p->deny_cap : 64;

		nd = reallocarray(p->deny, cap, sizeof(*nd));
		if (!nd)
			return -ENOMEM;
		p->deny = nd;
		p->deny_cap = cap;
	}
	nd = &p->deny[p->n_deny];
	*nd = (struct deny_entry){
		.hash = hash,
		.path = strarena_dup(&p->deny_strs, canon),
		.only_without_net = origin == DENY_SERVICE,
		.explicit_deny = origin == DENY_EXPLICIT,
	};
	if (!nd->path)
		return -ENOMEM;
	if (known && known->known) {
		nd->exists = known->exists;
		nd->is_dir = known->is_dir;
		if (!known->exists && known->absent_at &&
		    !(nd->absent_at = strarena_dup(&p->deny_strs, known->absent_at)))
			return -ENOMEM;
	} else if ((r = statmemo_stat(nd->path, &st)) == 0) {
		nd->exists = true;
		nd->is_dir = S_ISDIR(st.st_mode);
	} else if ((errno = -r) == ENOENT) {
		/* the first missing component is what the runner hides */
		_cleanup_free_ char *at = policy_first_absent(nd->path);

		if (at && !(nd->absent_at = strarena_dup(&p->deny_strs, at)))
			return -ENOMEM;
	} else if (errno != ENOTDIR && errno != EACCES) {
		/* EACCES: out of our reach, so out of the sandbox's too */
		return error_set(reterr, -errno, "cannot inspect read-deny path '%s': %m", nd->path);
	}
	p->deny_seen[(hash >> 6) % 64] |= 1ull << (hash % 64);
	p->n_deny++;
	return 0;
}

int policy_deny_add(struct cordon_policy *p, const char *path, enum deny_origin origin,
		    struct cordon_error *reterr)
{
	return deny_add_at(p, NULL, path, origin, reterr);
}

int policy_deny_add_canonical(struct cordon_policy *p, const char *canon, struct cordon_error *reterr)
{
	if (p->n_deny >= POLICY_MAX_ENTRIES)
		return error_set(reterr, -E2BIG, "too many read-deny paths (at most %d)", POLICY_MAX_ENTRIES);
	return deny_insert(p, canon, DENY_EXPLICIT, NULL, reterr);
}

/* Sockets that lead out: container engines, buses, the runtime directory
 * (gpg-agent, the session bus), the ssh agent, and local databases. */
/* A grant of canon lifts the built-in entries at or below it (a tool
 * granted its own store); an explicit deny there refuses the grant. */
int policy_lift_deny(struct cordon_policy *p, const char *canon, struct cordon_error *reterr)
{
	size_t out = 0;

	for (size_t i = 0; i < p->n_deny; i++)
		if (p->deny[i].explicit_deny && path_is_under(canon, p->deny[i].path))
			return error_set(reterr, -EPERM, "'%s' is hidden by the read-deny entry '%s', and deny always wins",
					 canon, p->deny[i].path);
	/* a lifted entry's strings stay in p->deny_strs until the policy's free */
	for (size_t i = 0; i < p->n_deny; i++)
		if (!path_is_under(canon, p->deny[i].path))
			p->deny[out++] = p->deny[i];
	p->n_deny = out;
	return 0;
}

/* The built-in lists of absolute paths (LISTS, each with its origin),
 * resolved together by listing the directories they live in (/run,
 * mostly) once, instead of a walk and a stat each. */
static int deny_add_lists(struct cordon_policy *p, const char *const *const *lists, const enum deny_origin *origins,
			  size_t n_lists, struct cordon_error *reterr)
{
	struct policy_secret_set set;
	_cleanup_free_ const char **all = NULL;
	_cleanup_free_ enum deny_origin *origin = NULL;
	size_t n = 0, k = 0;
	int r;

	for (size_t l = 0; l < n_lists; l++)
		for (size_t i = 0; lists[l][i]; i++)
			n++;
	all = calloc(n + 1, sizeof(*all));
	origin = calloc(n ? n : 1, sizeof(*origin));
	if (!all || !origin)
		return -ENOMEM;
	for (size_t l = 0; l < n_lists; l++)
		for (size_t i = 0; lists[l][i]; i++) {
			origin[k] = origins[l];
			all[k++] = lists[l][i];
		}
	r = policy_paths_resolve(all, &set);
	if (r < 0)
		return r;
	for (size_t i = 0; r >= 0 && i < n; i++) {
		const struct policy_secret_state *v = &set.v[i];

		if (p->n_deny >= POLICY_MAX_ENTRIES) {
			r = error_set(reterr, -E2BIG, "too many read-deny paths (at most %d)", POLICY_MAX_ENTRIES);
			break;
		}
		if (v->err < 0 || !v->canon)
			r = policy_deny_add(p, all[i], origin[i], reterr); /* the walk again, with its words */
		else
			r = deny_add_resolved(p, 0, v->canon, origin[i], v, reterr);
	}
	policy_secret_set_done(&set);
	return r < 0 ? r : 0;
}

int policy_deny_defaults_outside_home(struct cordon_policy *p, struct cordon_error *reterr)
{
	static const char *const *const lists[] = { policy_default_deny_sockets, policy_default_deny_services,
						    policy_default_deny_system };
	static const enum deny_origin origins[] = { DENY_DEFAULT, DENY_SERVICE, DENY_DEFAULT };
	const char *runtime = secure_getenv("XDG_RUNTIME_DIR");
	const char *agent = secure_getenv("SSH_AUTH_SOCK");
	int r;

	r = deny_add_lists(p, lists, origins, ELEMENTSOF(lists), reterr);
	if (r < 0)
		return r;
	if (runtime && runtime[0] == '/' && strcmp(runtime, "/") != 0) {
		r = policy_deny_add(p, runtime, DENY_DEFAULT, reterr);
		if (r < 0)
			return r;
	}
	if (agent && agent[0] == '/' && strcmp(agent, "/") != 0) {
		r = policy_deny_add(p, agent, DENY_DEFAULT, reterr);
		if (r < 0)
			return r;
	}
	return 0;
}

int policy_deny_home_secrets(struct cordon_policy *p, const char *home, struct cordon_error *reterr)
{
	const struct policy_secret_state *v = NULL;
	struct policy_secret_set owned;
	size_t n = policy_secret_count();
	int r;

	if (!home || strcmp(home, "/") == 0)
		return 0;
	/* home is canonical already: the catalogue is resolved below it by
	 * listing the directories it lives in (policy_secrets.c) */
	r = policy_secrets_resolve(home, &owned, &v);
	if (r < 0)
		return r;
	for (size_t i = 0; r >= 0 && i < n; i++) {
		if (p->n_deny >= POLICY_MAX_ENTRIES) {
			r = error_set(reterr, -E2BIG, "too many read-deny paths (at most %d)", POLICY_MAX_ENTRIES);
			break;
		}
		if (v[i].err < 0 || !v[i].canon) {
			/* the walk's failure, again with its words */
			_cleanup_free_ char *canon = NULL;

			r = policy_secret_canonical(home, i, &canon, reterr);
			r = deny_add_resolved(p, r, canon, DENY_DEFAULT, NULL, reterr);
			continue;
		}
		r = deny_add_resolved(p, 0, v[i].canon, DENY_DEFAULT, &v[i], reterr);
	}
	policy_secret_set_done(&owned);
	return r < 0 ? r : 0;
}

struct host_keys {
	struct cordon_policy *p;
	struct cordon_error *reterr;
	int err;
};

static int deny_host_key(const char *name, unsigned char type, void *data)
{
	struct host_keys *k = data;
	size_t n = strlen(name);
	char path[300];
	int r;

	(void)type;
	if (strncmp(name, "ssh_host_", 9) != 0 || n < 4 || strcmp(name + n - 4, "_key") != 0)
		return 0;
	snprintf(path, sizeof(path), "/etc/ssh/%s", name);
	r = policy_deny_add(k->p, path, DENY_DEFAULT, k->reterr);
	return r < 0 ? (k->err = r) : 0;
}

/* The host keys' private halves, whatever their algorithms are called. */
int policy_deny_root_secrets(struct cordon_policy *p, struct cordon_error *reterr)
{
	struct host_keys k = { .p = p, .reterr = reterr };
	int r;

	for (size_t i = 0; policy_root_deny_read[i]; i++) {
		r = policy_deny_add(p, policy_root_deny_read[i], DENY_DEFAULT, reterr);
		if (r < 0)
			return r;
	}
	(void)dirlist_path("/etc/ssh", 0, deny_host_key, &k);
	return k.err;
}

int policy_other_home(const char *home, char **ret)
{
	_cleanup_free_ char *pw_dir = NULL;
	char *canon = NULL;
	int r;

	*ret = NULL;
	r = passwd_home(&pw_dir, NULL);
	if (r < 0)
		return r;
	if (!pw_dir || cordon_canonicalize(pw_dir, &canon, NULL) < 0)
		return 0;
	if (home && strcmp(canon, home) == 0)
		free(canon);
	else
		*ret = canon;
	return 0;
}

/* HOME, or the passwd home when HOME is unset or relative; canonical, or
 * NULL when there is none. */
int policy_resolve_home(char **ret)
{
	const char *home = secure_getenv("HOME");
	_cleanup_free_ char *pw_dir = NULL;
	int r;

	if (!home || home[0] != '/') {
		r = passwd_home(&pw_dir, NULL);
		if (r < 0)
			return r;
		home = pw_dir;
	}
	if (!home || home[0] != '/') {
		*ret = NULL;
		return 0;
	}
	return cordon_canonicalize(home, ret, NULL);
}
