/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The profile loader's core: its types (documents, positions, the raw
 * state the readers fill) and the errors that point into a document.
 * Nothing outside src/lib/profile*.c includes this. From the bottom up:
 *
 *   profile_loader.c   documents, positions, JSON pointers, errors,
 *                      did-you-mean, notes
 *   profile_loader_get.c the typed getters, and read_object(): the one
 *                      loop over an object's keys
 *   profile_read_values.c values two sections read alike: path lists,
 *                      network mode, host rules
 *   profile_read_run.c the sections about what runs: environment, limits
 *   profile_read_sandbox.c, profile_read_invocation.c a command's sandbox
 *                      and invocation policies; profile_read_tools.c
 *                      command_policies: approval backends, commands, from
 *   profile_read.c     the document and its sections (pure: JSON -> raw
 *                      state in struct loader), top level to network
 *   profile_resolve.c  raw state -> struct cordon_profile: tokens,
 *                      canonicalisation, groups, deny always wins
 *   profile_resolve_tools.c raw command_policies -> struct cordon_tools:
 *                      names checked against each other, paths expanded
 *   profile_find.c     finding a profile: a path, the user and installed
 *                      directories, the built-in ones; the environment.
 *                      The readers reach it for extends through
 *                      loader.find, which loader_init sets
 *   profile_load.c     the facade: profile_load, profile_load_buffer
 */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "profile_internal.h"
#include "tools.h"

/* The deepest pointer: /command_policies/commands/C/from/C/invocation_policy/approve/N/env/V/one_of/N */
#define LOADER_MAX_STEPS 16

struct doc {
	char *file;      /* for messages */
	char *dir;       /* anchors relative extends; NULL for embedded profiles */
	char *identity;  /* canonical path or builtin:NAME: cycle detection */
	char *text;
	size_t len;
	json_t *root;
};

struct step {
	const char *key; /* NULL: an array element */
	size_t index;    /* member index in document order, or element index */
};

/* A value's place: its document and path, for messages and origins. */
struct where {
	const struct doc *doc;
	struct step steps[LOADER_MAX_STEPS];
	size_t n;
	bool at_key; /* point at the last member's key, not its value */
};

struct raw_entry {
	char *spelled;
	struct where where;
};

struct raw_list {
	struct raw_entry *v;
	size_t n;
};

struct raw_group {
	const char *name; /* owned by a document's JSON */
	struct raw_list paths;
};

struct raw_var {
	const char *name, *value; /* owned by a document's JSON */
	struct where where;
};

enum builtin_group {
	GROUP_CREDENTIALS,
	GROUP_PERSISTENCE,
	GROUP_SYSTEM_WRITE,
	_GROUP_MAX,
};

/* "credentials", "persistence", "system_write"; NULL-terminated. */
extern const char *const builtin_group_names[_GROUP_MAX + 1];

/* What the environment and limits readers fill: the profile's own sections
 * (loader.top), or a command's sandbox while it is read (loader.run). */
struct raw_run {
	struct raw_list allow_vars;
	struct raw_var *vars;
	size_t n_vars;
	struct profile_limits limits;
	struct where limit_where[_PROFILE_LIMIT_MAX];
};

/* ---- command_policies, as read (profile_read_tools.c and the two beside
 * it). Strings point into the documents' JSON, which lives as long as the
 * loader; names are checked against each other once every file is read. */

struct raw_rule {
	struct where where;
	json_t *argv[_TOOL_ARGV_MATCHES]; /* checked arrays of strings; NULL: absent */
	json_t *env;                      /* checked object of VAR: {equals|one_of}; NULL: absent */
	const char *reason;
	const char *backend;
	struct where backend_where;
};

struct raw_policy {
	struct where where;
	bool default_set;
	enum cordon_tool_action default_action;
	struct where default_where;
	const char *backend;
	struct where backend_where;
	struct raw_rule *rules[3];        /* by enum cordon_tool_action */
	size_t n_rules[3];
};

struct raw_open_urls;

struct raw_sandbox {
	struct where where;
	struct raw_list paths[_TOOL_PATH_LISTS];
	bool net_set;
	enum profile_net net;
	struct where net_where;
	char **net_rules[PROFILE_NET_RULE_KINDS];
	bool net_rules_seen;
	struct where net_rules_where;     /* the first list of them */
	struct raw_run run;
	struct tool_stdio stdio[_TOOL_STREAMS];
	struct raw_list home_files;       /* relative to HOME */
	struct raw_open_urls *open_urls;  /* NULL: none (profile_open_urls.h) */
};

struct raw_from {
	const char *caller;
	struct where key_where, where;
	bool deny;
	struct raw_sandbox *sandbox;      /* NULL: the command's own */
	struct raw_policy *policy;        /* NULL: the command's own */
};

struct raw_command {
	const char *name;
	struct where key_where, where;
	const char *executable;
	struct where exe_where;
	struct raw_sandbox *sandbox;
	struct raw_policy *policy;
	struct raw_list can_use;
	struct raw_from *from;
	size_t n_from;
	struct raw_list secret_flags;
};

/* An approval backend's keys, in the order of the reader's table. */
enum raw_backend_key {
	BACKEND_KEY_TYPE,
	BACKEND_KEY_TIMEOUT,
	BACKEND_KEY_DEFAULT,
	BACKEND_KEY_URL,
	BACKEND_KEY_SECRET_ENV,
	BACKEND_KEY_MODE,
	BACKEND_KEY_BACKENDS,
	BACKEND_KEY_ANSWER_SECRET_ENV,
	_BACKEND_KEYS,
};

struct raw_backend {
	const char *name;
	struct where key_where, where;
	unsigned keys;                    /* 1u << BACKEND_KEY_*: written */
	struct where at[_BACKEND_KEYS];   /* where each was */
	enum cordon_approval_type type;
	uint64_t timeout_secs;
	bool default_allow;
	const char *url, *secret_env, *answer_secret_env;
	bool chain_all;
	struct raw_list members;
};

struct raw_tools {
	bool seen;
	struct where where;               /* the last command_policies read */
	struct raw_command *commands;     /* a later file's command replaces an earlier one's */
	size_t n_commands;
	struct raw_backend *backends;     /* likewise */
	size_t n_backends;
	struct raw_open_urls *session_open_urls; /* the top-level open_urls; NULL: none */
};

/* credentials and credential_capture, as read (profile_read_creds.c):
 * every shape checked with its position; names are checked against
 * command_policies and each other once every file is read
 * (profile_resolve_creds.c). A later file's credential or capture of the
 * same name replaces an earlier one's, whole. */
enum raw_cred_tls {
	RAW_TLS_CA,
	RAW_TLS_CERT,
	RAW_TLS_KEY,
	_RAW_TLS,
};

struct raw_cred_rule {
	int action;                       /* enum cred_action */
	const char *method, *path, *reason, *backend;
	struct where where, backend_where;
};

struct raw_cred {
	const char *name;
	struct where key_where, where;
	int source;                       /* enum cred_source; -1: not written */
	const char *source_ref;
	struct where source_where;
	struct raw_list hosts, grant_to;
	int inject;                       /* enum cred_inject; -1: not written */
	const char *inject_name, *format;
	const char *phantom_env, *phantom_shape;
	struct where phantom_where;
	bool policy_set;
	int policy_default;               /* enum cred_action */
	struct where policy_where;
	struct raw_cred_rule *rules;
	size_t n_rules;
	struct raw_entry tls[_RAW_TLS];   /* spelled NULL: not written */
};

struct raw_capture {
	const char *name;
	struct where key_where, where;
	struct raw_list command, read;
	uint64_t timeout_usec, ttl_usec;
	bool net_set;
	enum profile_net net;
	char **net_rules[PROFILE_NET_RULE_KINDS];
};

struct raw_creds {
	bool seen, captures_seen;
	struct where where, captures_where;
	struct raw_cred *v;
	size_t n;
	struct raw_capture *captures;
	size_t n_captures;
};

struct loader;

/* Find NAME (see profile_load) for an extends: from/from_where, the
 * extends that asked, or NULL at the top. */
typedef int loader_find_fn(struct loader *l, const char *name, const struct doc *from, const struct where *from_where,
			   struct doc **ret);

struct loader {
	struct cordon_error *reterr;
	loader_find_fn *find;                   /* profile_find.c's, for extends */
	/* resolved environment */
	char *home, *tmpdir, *xdg, *user_dir, *data_dir, *system_gitconfig, *workspace_given;
	bool git_read;
	struct git_paths git;

	struct doc **docs;
	size_t n_docs;
	const struct doc *stack[PROFILE_MAX_EXTENDS_DEPTH + 1];
	size_t depth;
	size_t n_rules;

	/* merged raw state */
	const char *meta[3];
	bool mode_set;
	enum cordon_mode mode;
	struct where mode_where;
	bool home_policy_set;                   /* "home": catalogue | allowlist */
	enum cordon_home home_policy;
	struct where home_policy_where;
	const char *ws_spelled;
	struct where ws_where;
	struct raw_list read, write, deny_read, protect;
	struct raw_list allow_unix;             /* network.allow_unix_sockets */
	char **net_rules[PROFILE_NET_RULE_KINDS]; /* network.allow_domains, ... (profile_net.c) */
	bool net_rules_seen;
	struct where net_rules_where;           /* the first list of them */
	struct raw_list bypass[_GROUP_MAX];
	struct raw_list lift;                   /* groups.credentials.lift: group names */
	struct raw_group *groups;
	size_t n_groups;
	bool net_set;
	enum profile_net net;
	struct where net_where;
	struct raw_run top;                     /* environment, limits */
	struct raw_run *run;                    /* what their readers fill; NULL: top */
	struct raw_tools tools;                 /* command_policies */
	struct raw_creds creds;                 /* credentials, credential_capture */
	void *target;                           /* what a command_policies reader fills */
	bool inspect;                           /* profile_env.inspect */
	/* where a sandbox could have planted a link: the workspace and the
	 * write grants (loader_canonical_grant; the temp roots are the policy's) */
	char **grant_roots;
};

/* ---- profile_loader.c ---- */

static inline struct where where_child(const struct where *w, const char *key, size_t index)
{
	struct where c = *w;

	c.at_key = false;
	if (c.n < LOADER_MAX_STEPS)
		c.steps[c.n++] = (struct step){ .key = key, .index = index };
	return c;
}

static inline struct where where_key(const struct where *w, const char *key, size_t index)
{
	struct where c = where_child(w, key, index);

	c.at_key = true;
	return c;
}

static inline const char *errno_text(int r)
{
	return strerror(-r);
}

void doc_free(struct doc *d);
void raw_list_clear(struct raw_list *l);
int raw_list_push(struct raw_list *list, const char *s, const struct where *w);
void raw_run_clear(struct raw_run *run);
/* Keep d in l (freed with it); on failure d is freed. */
int loader_keep(struct loader *l, struct doc *d);

/* Fill l->reterr (file:line:column: at /pointer: message) and return r. */
int loader_fail(struct loader *l, int r, const struct where *w, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* An error about a whole file, before there is JSON to point into. */
int loader_fail_file(struct loader *l, int r, const char *file, int line, int column, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* word is none of names[0..n): "WHAT "word", did you mean "NAME"?" for
 * the closest (edit distance at most 2), else "WHAT "word" (LABEL: all,
 * of, them)". Returns r. */
int loader_fail_unknown(struct loader *l, int r, const struct where *w, const char *what, const char *label,
			const char *word, const char *const *names, size_t n);
/* The closest of names (NULL-terminated; edit distance at most 2), or NULL:
 * for a value's "did you mean" where the message otherwise lists them. */
const char *loader_closest(const char *word, const char *const *names);
/* The origin (file, JSON pointer) of w; "(built-in)" when w has no doc. */
int where_origin(const struct where *w, struct profile_origin *ret);
/* The line and column w points at (0 when w has no doc). */
void where_position(const struct where *w, int *ret_line, int *ret_column);
int profile_note_add(struct cordon_profile *p, enum profile_note_kind kind, const char *path, const struct where *w,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* ---- profile.c ---- */

void profile_rule_clear(struct profile_rule *rule);

