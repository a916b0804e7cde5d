/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Profiles: one JSON file that says what a session may do (issue 5).
 *
 * The shape: look a profile up by name or path (profile_load), which parses
 * it, resolves its `extends` chain, merges (lists append, scalars override,
 * deny always wins), expands path tokens and checks everything it can
 * without building a policy. The result is an immutable struct
 * cordon_profile. profile_apply turns it into a struct cordon_policy through
 * the public setters; profile_why_path / profile_why_host explain a decision
 * and name the rule (file and JSON pointer) that made it; profile_to_json
 * writes the resolved profile back (what `cordon profile show` prints; it
 * loads again to the same profile).
 *
 * Fail closed: what cordon cannot enforce (filesystem.exec) is refused at
 * load, never dropped; command_policies is read and compiled, and only the
 * tool sandbox's supervisor runs it; host rules without
 * network.mode "proxy" are refused too (only the proxy enforces them). What is accepted but changes nothing (a filesystem.read entry the
 * system already allows, a path that does not exist) is kept in notes[] so
 * `profile show` can say so.
 *
 * Errors: -EINVAL anything wrong with a profile; -EOPNOTSUPP a key cordon
 * cannot enforce yet; -EPERM a rule that contradicts a deny, a protected
 * path, system_write, or an injection variable; -ERANGE a limit out of
 * range; -ENOENT a named profile that is nowhere; -EFBIG over the size cap;
 * -E2BIG over the rule cap; -ELOOP an extends cycle or the depth cap;
 * -ENAMETOOLONG a path over PATH_MAX; other -errno from reading a file;
 * -ENOMEM. All but -ENOMEM fill struct cordon_error: file, line and column
 * (1-based; 0 when not about a position), path (a JSON pointer such as
 * /filesystem/write/2, "" when not about a value) and message, which holds
 * the whole formatted text:
 *
 *     file:line:column: at /json/pointer: what is wrong
 *
 * (the parts that are unknown are left out: "file: message"). Nothing here
 * prints.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cordon/cordon.h"

/* Caps (attacker-influenced input). */
#define PROFILE_MAX_BYTES CORDON_PROFILE_MAX_BYTES
#define PROFILE_MAX_RULES CORDON_PROFILE_MAX_RULES
#define PROFILE_MAX_EXTENDS_DEPTH 16

enum profile_op {
	PROFILE_OP_READ,
	PROFILE_OP_WRITE,
	PROFILE_OP_EXEC,
};

enum profile_net {
	PROFILE_NET_NONE,
	PROFILE_NET_HOST,
	PROFILE_NET_PROXY, /* only through cordon's proxy: net_rules (profile_net.c) */
	PROFILE_NET_ALLOW, /* the proxy's rules, and any TCP client handed its connections (--net allow) */
};

/* Where a value came from: the file it was read from ("builtin:NAME" for an
 * embedded profile, "(built-in)" for cordon's own defaults) and its JSON
 * pointer there. */
struct profile_origin {
	char *file;
	char *pointer;
};

/* One path rule after expansion: an absolute, lexically normalised path. */
struct profile_rule {
	char *path;
	char *spelled;  /* as written in the profile, tokens and all */
	struct profile_origin origin;
};

struct profile_rules {
	struct profile_rule *v;
	size_t n;
};

enum profile_note_kind {
	PROFILE_NOTE_READ_NOOP,    /* filesystem.read of something readable anyway */
	PROFILE_NOTE_MISSING_PATH, /* expanded to a path that does not exist: skipped */
	PROFILE_NOTE_EMPTY_TOKEN,  /* @git:... found nothing */
	PROFILE_NOTE_BYPASS,       /* a built-in group entry lifted (and granted) */
	PROFILE_NOTE_LIFT,         /* a credential entry lifted with its group by name */
};

struct profile_note {
	enum profile_note_kind kind;
	char *path;     /* the path concerned, or NULL */
	char *text;     /* a sentence for `profile show` */
	struct profile_origin origin;
};

enum profile_output_action {
	PROFILE_OUTPUT_TRUNCATE,
	PROFILE_OUTPUT_KILL,
};

/* The limits keys, validated; the caller applies them (cordon_run_opts and
 * struct cordon_limits). A field counts only when its bit in set is on. */
enum profile_limit_key {
	PROFILE_LIMIT_TIMEOUT,
	PROFILE_LIMIT_CPU,
	PROFILE_LIMIT_MEMORY,
	PROFILE_LIMIT_MAX_PROCESSES,
	PROFILE_LIMIT_MAX_FILE_SIZE,
	PROFILE_LIMIT_MAX_OPEN_FILES,
	PROFILE_LIMIT_MAX_OUTPUT,
	PROFILE_LIMIT_ON_OUTPUT_LIMIT,
	PROFILE_LIMIT_FALLBACK,
	_PROFILE_LIMIT_MAX,
};

struct profile_limits {
	unsigned set;                   /* 1u << PROFILE_LIMIT_* */
	uint64_t timeout_seconds;       /* 1 .. 604800 */
	uint64_t cpu_seconds;           /* 1 .. 604800 */
	uint64_t memory;                /* bytes, 1M .. 1T */
	uint64_t max_processes;         /* 1 .. 4194304 */
	uint64_t max_file_size;         /* bytes, 1 .. 1T */
	uint64_t max_open_files;        /* 3 .. 1048576 */
	uint64_t max_output;            /* bytes, 1 .. 1G */
	enum profile_output_action on_output_limit;
	bool fallback_fail;             /* limits_fallback: "fail" (else "warn") */
	struct profile_origin origin[_PROFILE_LIMIT_MAX];
};

struct profile_env_var {
	char *name;
	char *value;
	struct profile_origin origin;
};

/* The resolved profile. Immutable once loaded: read it, never write it. */
struct cordon_profile {
	char *name;                 /* what was asked for */
	char *file;                 /* the file it came from ("builtin:NAME" if embedded) */
	char **chain;               /* files of the extends chain, this one first; NULL-terminated */

	char *meta_name, *meta_description, *meta_version; /* NULL when unset */

	enum cordon_mode mode;      /* default workspace-write */
	struct profile_origin mode_origin;
	enum cordon_home home_policy; /* "home": default catalogue */
	struct profile_origin home_policy_origin;
	char *workspace;            /* canonical: the caller's, else the profile's, else the
				     * current directory; NULL only for danger-full-access */
	bool workspace_set;
	char *home;                 /* canonical HOME the tokens used; NULL if unknown */         /* the profile's "workspace" key decided it */
	struct profile_origin workspace_origin;

	struct profile_rules read, write, deny_read, protect;
	/* `cordon why --read`: host paths below /tmp a run brings back (never
	 * from a profile file: the command line's, in a why's view) */
	struct profile_rules read_host;
	struct profile_rules allow_unix_sockets;   /* network.allow_unix_sockets, canonical */

	/* Built-in group entries lifted by groups.NAME.bypass. */
	struct profile_rules bypass_credentials, bypass_persistence, bypass_system_write;
	/* groups.credentials.lift: the credential groups lifted by name (path
	 * and spelled hold the name), and what they uncover: each canonical
	 * catalogue entry (path), its group (spelled), the lift's origin.
	 * Naming the group is the grant: no filesystem.read is needed, and
	 * nothing outside the named groups is uncovered. */
	struct profile_rules lift_credentials, lifted_credentials;
	/* The built-in group persistence's members, canonical, as the loader
	 * checked the write grants against them (NULL without write grants):
	 * profile_apply keeps those below a write grant read-only. */
	char **persistence_members;

	enum profile_net net;
	struct profile_origin net_origin;
	/* network.allow_domains, .deny_domains, .allow_addresses, by enum
	 * cordon_net_rule; lists add across extends */
#define PROFILE_NET_RULE_KINDS 3
	char **net_rules[PROFILE_NET_RULE_KINDS];

	struct profile_rules allow_vars;   /* rule.path holds the name pattern */
	struct profile_env_var *set_vars;
	size_t n_set_vars;

	struct profile_limits limits;

	/* command_policies, compiled (tools.h); NULL when the profile has none */
	struct cordon_tools *tools;

	struct profile_note *notes;
	size_t n_notes;
};

/* Where names and tokens resolve. Every field may be NULL: then the
 * environment (secure_getenv) or the built-in default is used. */
struct profile_env {
	const char *workspace;        /* $WORKSPACE; NULL: the profile's, else the current directory */
	const char *home;             /* $HOME and ~ */
	const char *tmpdir;           /* $TMPDIR; default /tmp */
	const char *xdg_config_home;  /* default $HOME/.config */
	const char *user_profile_dir; /* default $XDG_CONFIG_HOME/cordon/profiles */
	const char *data_profile_dir; /* default CORDON_DATADIR "/profiles"; "" disables */
	const char *system_gitconfig; /* default /etc/gitconfig; "" disables */
	/* Load for inspection only (cordon why --command, profile show and
	 * diff, tests). command_policies is read, checked and compiled either
	 * way; only the tool sandbox's supervisor runs such a profile
	 * (cordon_launch_new refuses it), and an inspection handle is never
	 * run at all. */
	bool inspect;
};

/* How the CLI is meant to use this (issue 5):
 *   cordon run --profile P      profile_load(P) -> profile_apply -> confine/run,
 *                               with p->limits mapped onto cordon_run_opts
 *                               (timeout, max_output, output_terminate) and
 *                               struct cordon_limits (the rest).
 *   cordon profile list         profile_builtin_names() + the two directories
 *   cordon profile show P       profile_to_json(p) + p->notes (no-ops, skipped
 *                               paths, lifted entries); `show default` may
 *                               print profile_builtin_text("default") verbatim
 *   cordon profile validate F   profile_load(F): 0, or print reterr.message
 *   cordon profile schema       share/cordon/profile.schema.json (installed in
 *                               CORDON_DATADIR)
 *   cordon profile diff A B     diff of profile_to_json(A) and (B): sorted keys,
 *                               one value per line
 *   cordon why ...              profile_why_path / profile_why_host
 *
 * Load NAME: a path when it contains '/' or ends in ".json", else
 * user_profile_dir/NAME.json, else data_profile_dir/NAME.json, else the
 * embedded profile NAME. env may be NULL. */
int profile_load(const char *name, const struct profile_env *env, struct cordon_profile **ret,
		 struct cordon_error *reterr);
/* Load from bytes; file names it in messages and anchors relative extends. */
int profile_load_buffer(const char *data, size_t len, const char *file, const struct profile_env *env,
			struct cordon_profile **ret, struct cordon_error *reterr);
struct cordon_profile *profile_free(struct cordon_profile *p);

/* Names of the embedded profiles, NULL-terminated, and their JSON text. */
const char *const *profile_builtin_names(void);
int profile_builtin_text(const char *name, const char **ret_text, size_t *ret_len);

/* Build the policy: cordon_policy_new(mode, workspace) then the setters.
 * The limits are not in the policy: read p->limits. */
int profile_apply(const struct cordon_profile *p, struct cordon_policy **ret, struct cordon_error *reterr);
/* Put mode in place of q's own (q: a shallow copy of a profile): a mode
 * other than workspace-write drops the write grants. -EINVAL for an
 * unknown mode, q unchanged. The one override of a profile's mode. */
int profile_override_mode(struct cordon_profile *q, enum cordon_mode mode);
/* profile_apply with mode (NULL: the profile's) in place of the profile's
 * (profile_override_mode). What a launch and the CLI build a run's policy
 * from. */
int profile_apply_mode(const struct cordon_profile *p, const enum cordon_mode *mode, struct cordon_policy **ret,
		       struct cordon_error *reterr);
/* The same with "home" replaced by *home (NULL: the profile's). */
int profile_apply_home(const struct cordon_profile *p, const enum cordon_mode *mode, const enum cordon_home *home,
		       struct cordon_policy **ret, struct cordon_error *reterr);

struct profile_decision {
	bool allow;
	char file[256];     /* the deciding rule's file, "(built-in)" for cordon's defaults */
	char pointer[256];  /* its JSON pointer */
	char reason[512];   /* a sentence */
};

/* May a process under p do op on path? Canonicalises path. */
int profile_why_path(const struct cordon_profile *p, const char *path, enum profile_op op,
		     struct profile_decision *ret);
/* The same as `--isolation light` runs it (light: no mount namespace, so
 * the read-only binds of protected and persistence paths and the write
 * gate are not there; Landlock's grants and omissions still are). */
int profile_why_path_isolation(const struct cordon_profile *p, const char *path, enum profile_op op, bool light,
			       struct profile_decision *ret);
/* May it connect to host:port? (none: deny; host: allow) */
int profile_why_host(const struct cordon_profile *p, const char *host, unsigned port,
		     struct profile_decision *ret);

/* The resolved profile as JSON (no extends, paths expanded), pretty-printed
 * with sorted keys; it loads back to the same profile. Caller frees. */
int profile_to_json(const struct cordon_profile *p, char **ret);

const char *profile_op_to_string(enum profile_op op);
int profile_op_from_string(const char *s, enum profile_op *ret);
const char *profile_net_to_string(enum profile_net n);
/* The public enum of a profile's network mode. */
enum cordon_net profile_net_to_public(enum profile_net n);

/* Parse "64M"-style sizes for callers: cordon_parse_size (cordon.h), the one
 * grammar the CLI and a profile's limits share. */
int profile_parse_size(const char *s, uint64_t *ret);

/* profile_net.c: network.mode "proxy" */
struct json_t;
int profile_net_rule_check(enum cordon_net_rule kind, const char *rule, struct cordon_error *reterr);
int profile_net_apply(const struct cordon_profile *p, struct cordon_policy *pol, struct cordon_error *reterr);
int profile_net_json(const struct cordon_profile *p, struct json_t *net);
int profile_why_proxy(const struct cordon_profile *p, const char *host, unsigned port, struct profile_decision *ret);

/* command_policies: a session only the tool sandbox's supervisor runs
 * (cordon run, in cordon-supervisor). */
static inline bool profile_has_command_policies(const struct cordon_profile *p)
{
	return p && p->tools;
}
