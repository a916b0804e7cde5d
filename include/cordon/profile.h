/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libcordon: profiles: a JSON file saying what a session may do.
 * Part of the public API; include "cordon/cordon.h" for all of it.
 */
#pragma once

#include <stddef.h>

#include "cordon/limits.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Profiles ------------------------------------------------------------
 *
 * A profile is one JSON file saying what a session may do (a built-in name
 * such as "default", a path, or NAME looked up in the user's and the
 * installed profile directories). cordon_profile_load parses it, resolves
 * its extends chain, expands path tokens and checks everything it can
 * without building a policy; what cordon cannot enforce is refused here.
 * The handle is immutable after load: every accessor is a read, safe from
 * any thread. The caller owns it and frees it with cordon_profile_free;
 * strings and vectors an accessor returns are owned by the handle.
 */
struct cordon_profile_handle;

struct cordon_profile_opts {
	/* sizeof this struct as the caller knew it (..._INIT sets it); 0: the
	 * first release's fields. As cordon_run_opts.size: a field added later
	 * is read only from callers whose size covers it. */
	size_t size;
	/* The workspace ($WORKSPACE in the profile, and the policy's root);
	 * NULL: the profile's "workspace" key, else the current directory. */
	const char *workspace;
	/* $HOME and ~ for path tokens; NULL: the environment's HOME. */
	const char *home;
	/* Look NAME up among the embedded profiles only, never in a file:
	 * what runs is exactly what is compiled in. */
	bool builtin_only;
	/* new fields go here, at the end */
};
#define CORDON_PROFILE_OPTS_SIZE_1 \
	(offsetof(struct cordon_profile_opts, builtin_only) + sizeof(((struct cordon_profile_opts *)0)->builtin_only))
#define CORDON_PROFILE_OPTS_INIT { .size = sizeof(struct cordon_profile_opts) }

/* name_or_path: OWNER/NAME/PROFILE (each [a-z0-9][a-z0-9._-]*) is an
 * installed pack's profile, verified at each load where the pack resolver
 * is set (cordon-supervisor; -ENOPKG elsewhere); a path when it contains
 * '/' or ends in ".json", else
 * ~/.config/cordon/profiles/NAME.json, else the installed NAME.json, else
 * the embedded NAME. NULL: the embedded "default" (as with builtin_only).
 * opts may be NULL. Errors: see the error codes above, plus -ENOENT (no
 * such profile), -EOPNOTSUPP (a key cordon cannot enforce yet), -EPERM (a
 * rule against a deny or a protected path), -ERANGE (a limit out of range),
 * -ELOOP (an extends cycle); reterr gets "file:line:column: at /pointer: what". */
CORDON_API int cordon_profile_load(const char *name_or_path, const struct cordon_profile_opts *opts,
				   struct cordon_profile_handle **ret, struct cordon_error *reterr);
CORDON_API struct cordon_profile_handle *cordon_profile_free(struct cordon_profile_handle *p);
/* cordon_profile_load for inspection only (`cordon why --command`): a
 * profile with command_policies loads too, to be read and asked
 * (cordon_profile_tools, cordon_tools_decide), never run: nothing but the
 * tool sandbox's supervisor enforces command_policies, and
 * cordon_launch_new refuses such a handle (-EOPNOTSUPP). */
CORDON_API int cordon_profile_load_inspect(const char *name_or_path, const struct cordon_profile_opts *opts,
					   struct cordon_profile_handle **ret, struct cordon_error *reterr);

/* The most a profile file may hold (a larger one is refused: -EFBIG), and
 * the most rules it may have (-E2BIG). */
#define CORDON_PROFILE_MAX_BYTES ((size_t)1024 * 1024)
#define CORDON_PROFILE_MAX_RULES 4096
/* cordon_profile_load from bytes: a profile handed over rather than found
 * (`cordon profile validate FILE`). file names it in messages and anchors a
 * relative extends; data need not outlive the call. */
CORDON_API int cordon_profile_load_buffer(const char *data, size_t len, const char *file,
					  const struct cordon_profile_opts *opts, struct cordon_profile_handle **ret,
					  struct cordon_error *reterr);

/* Every error of the profile in data, in one pass: each goes to errs[i]
 * (file, line and column of data itself, the JSON path, the message), at
 * most max of them. After an error the member it points at is left out and
 * the rest read again, so errors that are independent of each other are
 * all reported (one that only follows from an earlier one can be too).
 * Returns how many (0: valid), or -errno when it could not look (out of
 * memory; max 0). The reading is cordon_profile_load_buffer's. */
CORDON_API int cordon_profile_validate_buffer(const char *data, size_t len, const char *file,
					      const struct cordon_profile_opts *opts, struct cordon_error *errs,
					      size_t max);

/* The embedded profiles' names (NULL-terminated), and one's JSON text as
 * compiled in (-ENOENT: no such name). Both static. */
CORDON_API const char *const *cordon_profile_builtin_names(void);
CORDON_API int cordon_profile_builtin_text(const char *name, const char **ret_text, size_t *ret_len);

/* What was asked for ("default" for NULL), and the file it came from
 * ("builtin:NAME" when embedded). Never NULL. */
CORDON_API const char *cordon_profile_name(const struct cordon_profile_handle *p);
CORDON_API const char *cordon_profile_file(const struct cordon_profile_handle *p);
/* meta.description; NULL when unset. */
CORDON_API const char *cordon_profile_description(const struct cordon_profile_handle *p);
CORDON_API enum cordon_mode cordon_profile_mode(const struct cordon_profile_handle *p);
/* Canonical workspace; NULL only for danger-full-access without one. */
CORDON_API const char *cordon_profile_workspace(const struct cordon_profile_handle *p);
CORDON_API enum cordon_net cordon_profile_net(const struct cordon_profile_handle *p);

enum cordon_profile_list {
	CORDON_PROFILE_READ,        /* filesystem.read: canonical paths */
	CORDON_PROFILE_WRITE,       /* filesystem.write */
	CORDON_PROFILE_DENY_READ,   /* filesystem.deny_read */
	CORDON_PROFILE_PROTECT,     /* filesystem.protect */
	CORDON_PROFILE_UNIX_SOCKETS, /* network.allow_unix_sockets */
	CORDON_PROFILE_ENV_ALLOW,   /* environment.allow: names and PREFIX* patterns */
	CORDON_PROFILE_ENV_SET,     /* environment.set: NAME=VALUE */
	CORDON_PROFILE_ALLOW_DOMAINS,   /* network.allow_domains (mode proxy): H, H:PORT, *.H */
	CORDON_PROFILE_DENY_DOMAINS,    /* network.deny_domains */
	CORDON_PROFILE_ALLOW_ADDRESSES, /* network.allow_addresses: A[/N] */
	_CORDON_PROFILE_LIST_MAX,
};
/* One of the profile's lists, NULL-terminated and read-only (empty, never
 * NULL, for a valid which; NULL for an invalid one). */
CORDON_API const char *const *cordon_profile_list(const struct cordon_profile_handle *p,
						  enum cordon_profile_list which);

/* The profile's "limits" section. A zero field is one the profile leaves
 * unset; the _set flags say whether the two choices were made. */
struct cordon_profile_limits {
	uint64_t timeout_ms;
	uint64_t max_output;          /* bytes */
	bool output_terminate_set;
	bool output_terminate;        /* on_output_limit: "kill" */
	bool fallback_set;            /* limits_fallback given: limits.fallback_fail holds it */
	struct cordon_limits limits;
};
CORDON_API void cordon_profile_limits(const struct cordon_profile_handle *p, struct cordon_profile_limits *ret);

/* The resolved profile as JSON (extends merged, paths expanded, sorted
 * keys); it loads back to the same profile. *ret is malloc'd. */
CORDON_API int cordon_profile_to_json(const struct cordon_profile_handle *p, char **ret);

/* The files of the extends chain, this one first; NULL-terminated. */
CORDON_API const char *const *cordon_profile_chain(const struct cordon_profile_handle *p);
/* Whether the profile's "workspace" key chose the workspace (not the
 * caller's opts, not the current directory). */
CORDON_API bool cordon_profile_workspace_given(const struct cordon_profile_handle *p);
/* The canonical HOME the path tokens expanded with; NULL if unknown. */
CORDON_API const char *cordon_profile_home(const struct cordon_profile_handle *p);

/* Where a value came from: the file ("builtin:NAME" when embedded,
 * "(built-in)" for cordon's own default) and its JSON pointer there; each
 * NULL when nothing set it. Owned by the profile. */
struct cordon_origin {
	const char *file;
	const char *pointer;
};
/* network.mode's origin. */
CORDON_API void cordon_profile_net_origin(const struct cordon_profile_handle *p, struct cordon_origin *ret);
/* A limit's origin (CORDON_LIMIT_TIMEOUT .. CORDON_LIMIT_OUTPUT); -EINVAL
 * for another value. */
CORDON_API int cordon_profile_limit_origin(const struct cordon_profile_handle *p, enum cordon_limit limit,
					   struct cordon_origin *ret);

/* What the profile accepts but changes nothing, or lifts (`cordon profile
 * show` prints them). */
struct cordon_profile_note {
	const char *kind;   /* "read_noop", "missing_path", "empty_token", "bypass" or "lift" */
	const char *path;   /* the path concerned; NULL when none */
	const char *text;   /* a sentence */
	struct cordon_origin origin;
};
CORDON_API size_t cordon_profile_n_notes(const struct cordon_profile_handle *p);
/* The i-th note; -ERANGE past the end. Its strings are the profile's. */
CORDON_API int cordon_profile_note(const struct cordon_profile_handle *p, size_t i, struct cordon_profile_note *ret);

/* A new policy from the profile: cordon_policy_new with its mode and
 * workspace, then its rules. *mode (NULL: the profile's) replaces the
 * profile's; a mode other than workspace-write drops the write grants. The
 * limits are not in a policy: cordon_profile_limits. The caller owns *ret. */
CORDON_API int cordon_profile_policy(const struct cordon_profile_handle *p, const enum cordon_mode *mode,
				     struct cordon_policy **ret, struct cordon_error *reterr);
/* The same with the profile's "home" replaced by *home (NULL: the
 * profile's): built for the allowlist from the start, HOME's credential
 * catalogue is resolved only where something is granted. */
CORDON_API int cordon_profile_policy_home(const struct cordon_profile_handle *p, const enum cordon_mode *mode,
					  const enum cordon_home *home, struct cordon_policy **ret,
					  struct cordon_error *reterr);

#ifdef __cplusplus
}
#endif
