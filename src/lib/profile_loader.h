/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The profile loader's own types, shared by its files (nothing outside
 * src/lib/profile*.c includes this):
 *
 *   profile_loader.c   documents, positions, JSON pointers, errors,
 *                      did-you-mean, and read_object(): the one loop over an
 *                      object's keys
 *   profile_read.c     the document and its sections (pure: JSON -> raw
 *                      state in struct loader), top level to network
 *   profile_read_run.c the sections about what runs: environment, limits
 *   profile_read_tools.c command_policies: approval backends, commands,
 *                      from; profile_read_invocation.c their invocation
 *                      policies, profile_read_sandbox.c their sandboxes
 *   profile_find.c     finding a profile: a path, the user and installed
 *                      directories, the built-in ones; the environment
 *   profile_resolve.c  raw state -> struct cordon_profile: tokens,
 *                      canonicalisation, groups, deny always wins
 *   profile_resolve_tools.c raw command_policies -> struct cordon_tools:
 *                      names checked against each other, paths expanded
 *   profile.c          the facade: profile_load, profile_load_buffer,
 *                      profile_free
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
	const char *url, *secret_env;
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
};

struct loader {
	struct cordon_error *reterr;
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
	void *target;                           /* what a command_policies reader fills */
	bool inspect;                           /* profile_env.inspect */
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
void loader_clear(struct loader *l);

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
int loader_expect(struct loader *l, const struct where *w, const json_t *v, json_type type, const char *what);
/* A string without NUL bytes, at most max bytes (0: any). */
int loader_get_string(struct loader *l, const struct where *w, const json_t *v, size_t max, const char **ret);
/* A string that is one of words[0..n) (NULL entries skipped): its index
 * in *ret, else "\"s\" is not WHAT". */
int loader_get_word(struct loader *l, const struct where *w, const json_t *v, const char *const *words, size_t n,
		    const char *what, size_t *ret);
/* One more rule against PROFILE_MAX_RULES (-E2BIG). */
int loader_count_rule(struct loader *l, const struct where *w);

/* How each string of a list is checked: 0, or what loader_fail returns. */
typedef int loader_check_fn(struct loader *l, const struct where *w, const char *s, intptr_t arg);

/* An array (else "expected WHAT, not ...") of strings of at most max bytes
 * (0: any); each is checked with check(arg), counted as a rule and pushed
 * to out with its where. */
int loader_read_list(struct loader *l, const struct where *w, const json_t *v, const char *what, size_t max,
		     loader_check_fn *check, intptr_t arg, struct raw_list *out);

/* An object whose keys the profile chooses (group, variable and command
 * names), so there is no table of them: read is called for each member in
 * document order, wk pointing at its key, wv at its value, with ctx. */
typedef int loader_member_fn(struct loader *l, const struct where *wk, const struct where *wv, const char *key,
			     json_t *value, void *ctx);
int loader_read_members(struct loader *l, const struct where *w, json_t *v, loader_member_fn *read, void *ctx);

struct loader_object;

/* How read_object reads one key of an object. */
struct loader_key {
	int (*read)(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k);
	size_t offset;     /* shared handlers: the field of struct loader (or of its
			    * limits) that the value goes to */
	intptr_t arg;      /* a handler's own constant: a cap, a flag, a limit key */
	const struct loader_object *object; /* a nested object's table */
	json_type type;    /* with what: the value must be of this type ... */
	const char *what;  /* ... else "expected WHAT, not ..." */
	bool first;        /* ordered objects: read before the others */
};

/* An object's known keys: keys[i] (NULL-terminated; the same list
 * profile_known_keys gives, and did-you-mean searches) is read by
 * readers[i]. ordered: every key is checked before any is read, then they
 * are read in table order, first ones first (the top level: extends
 * before what it overrides); else each is checked and read in document
 * order. */
struct loader_object {
	const char *const *keys;
	const struct loader_key *readers;
	bool ordered;
};

/* v must be an object; each member's key must be one of o's ("unknown key
 * ..., did you mean ...?"), and its reader is called with where w/key. */
int loader_read_object(struct loader *l, const struct where *w, json_t *v, const struct loader_object *o);

/* A reader for a key whose value is an object of known keys: k->object. */
int loader_read_nested(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k);

/* The field at k->offset in l, as type T. */
#define LOADER_FIELD(l, k, T) ((T *)(void *)((char *)(l) + (k)->offset))

/* The origin (file, JSON pointer) of w; "(built-in)" when w has no doc. */
int where_origin(const struct where *w, struct profile_origin *ret);
/* The line and column w points at (0 when w has no doc). */
void where_position(const struct where *w, int *ret_line, int *ret_column);
int profile_note_add(struct cordon_profile *p, enum profile_note_kind kind, const char *path, const struct where *w,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* ---- profile_read.c ---- */

/* An array of path strings into out; allow_refs: "@name" references. */
int loader_read_paths(struct loader *l, const struct where *w, const json_t *v, bool allow_refs,
		      struct raw_list *out);
/* Read d (already kept by l) and, first, what it extends. */
int loader_read_doc(struct loader *l, struct doc *d);

/* network.mode's value. */
int loader_get_net_mode(struct loader *l, const struct where *w, const json_t *v, enum profile_net *ret);
/* An array of host rules of kind (checked as the proxy takes them), each
 * counted as a rule, added to *out once. */
int loader_read_net_rules(struct loader *l, const struct where *w, const json_t *v, enum cordon_net_rule kind,
			  char ***out);

/* ---- profile_read_run.c ---- */

extern const struct loader_object loader_environment_object, loader_limits_object;
extern const char *const loader_environment_keys[], *const loader_limit_keys[];
/* The raw_run the environment and limits readers fill now. */
static inline struct raw_run *loader_run(struct loader *l)
{
	return l->run ? l->run : &l->top;
}
void raw_run_clear(struct raw_run *run);

/* ---- profile_read_tools.c, profile_read_invocation.c, profile_read_sandbox.c ---- */

extern const char *const loader_tools_keys[], *const loader_command_keys[], *const loader_sandbox_keys[],
	*const loader_invocation_keys[], *const loader_rule_keys[];
int loader_read_command_policies(struct loader *l, const struct where *w, json_t *v, const struct loader_key *k);
/* A command's name: 1 to TOOLS_NAME_MAX of A-Z a-z 0-9 . _ + -, not
 * starting with '.' or '-', and not "session". */
bool tools_command_name_valid(const char *s);
/* Read v with o's table, its readers filling target (l->target meanwhile). */
int loader_read_into(struct loader *l, const struct where *w, json_t *v, const struct loader_object *o, void *target);
/* command_policies' sandbox and invocation_policy objects, into *ret. */
int loader_read_sandbox(struct loader *l, const struct where *w, json_t *v, struct raw_sandbox **ret);
int loader_read_invocation_policy(struct loader *l, const struct where *w, json_t *v, struct raw_policy **ret);
struct raw_sandbox *raw_sandbox_free(struct raw_sandbox *sb);
struct raw_policy *raw_policy_free(struct raw_policy *pol);
void raw_tools_clear(struct raw_tools *t);

/* ---- profile_find.c ---- */

int loader_init(struct loader *l, const struct profile_env *env, struct cordon_error *reterr);
/* Keep d in l (freed with it); on failure d is freed. */
int loader_keep(struct loader *l, struct doc *d);
/* A doc holding a copy of data, named file and anchored at it (relative
 * extends resolve next to it). */
int doc_from_buffer(const char *data, size_t len, const char *file, struct doc **ret);
/* Find NAME (see profile_load). from/from_where: the extends that asked,
 * or NULL at the top. */
int loader_find_doc(struct loader *l, const char *name, const struct doc *from, const struct where *from_where,
		    struct doc **ret);

/* ---- profile.c ---- */

void profile_rule_clear(struct profile_rule *rule);

/* ---- profile_resolve.c ---- */

/* Raw state -> p: expand, canonicalise, check the rules against each
 * other, carry origins over. */
int loader_resolve(struct loader *l, struct cordon_profile *p);
/* One spelled entry (tokens, groups, ~, relative) to absolute paths, not
 * yet canonical; *ret may be empty (an @git token that names nothing). */
int loader_expand_entry(struct loader *l, const struct cordon_profile *p, const struct raw_entry *e, char ***ret);
/* path canonical, or an error at w. */
int loader_canonical(struct loader *l, const struct where *w, const char *path, char **ret);
/* Host rules without network mode proxy: an error at w. */
int loader_check_net_rules_mode(struct loader *l, const struct where *w, enum profile_net net);

/* ---- profile_resolve_tools.c ---- */

/* l->tools -> p->tools (NULL when no command_policies was read). */
int loader_resolve_tools(struct loader *l, struct cordon_profile *p);
