/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A profile's command_policies, compiled (struct cordon_tools, public and
 * opaque in cordon.h). Built once by the loader (profile_read_tools.c and
 * profile_read_sandbox.c read, profile_resolve_tools.c compiles), owned by
 * the profile, read-only after that:
 *
 *   tools.c          the data's lifetime and the public accessors
 *   tools_decide.c   cordon_tools_decide and cordon_tools_sandbox: edges,
 *                    invocation policies, the matchers
 *   tools_resolve.c  cordon_tools_resolve: an executable, once per session
 *   tools_json.c     the compiled data back to JSON (profile show)
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cordon/cordon.h"
#include "profile.h"
#include "tool_place.h"

/* Caps (a profile is untrusted input). */
#define TOOLS_MAX_COMMANDS 256
#define TOOLS_MAX_BACKENDS 64
#define TOOLS_MAX_CHAIN 16         /* members of one chain */
#define TOOLS_NAME_MAX 64          /* a command's or a backend's name */
#define TOOLS_MAX_WORDS 256        /* words of one argv list, one_of, can_use */
#define TOOLS_WORD_MAX 4096        /* bytes of one word or value */
#define TOOLS_REASON_MAX 255       /* fits cordon_tool_decision.reason */
#define TOOLS_URL_MAX 2048
#define TOOLS_TIMEOUT_MAX 3600     /* seconds, an approval's */
#define TOOLS_STDIO_MAX (1ull << 30)
#define OPEN_URLS_RATE_MAX 600     /* open_urls.rate_per_minute */

enum tool_path_list {
	TOOL_FS_READ,
	TOOL_FS_WRITE,
	TOOL_FS_READ_FILE,
	TOOL_FS_WRITE_FILE,
	TOOL_EXEC_PATHS,
	_TOOL_PATH_LISTS,
};

/* The sandbox keys' names, by enum tool_path_list. */
extern const char *const tool_path_list_names[_TOOL_PATH_LISTS];

enum tool_argv_match {
	TOOL_ARGV_EXACT,
	TOOL_ARGV_PREFIX,
	TOOL_ARGV_CONTAINS,
	_TOOL_ARGV_MATCHES,
};

extern const char *const tool_argv_match_names[_TOOL_ARGV_MATCHES];

enum tool_stream {
	TOOL_STDOUT,
	TOOL_STDERR,
	_TOOL_STREAMS,
};


struct tool_env_match {
	char *name;
	char **values;  /* equals: one value; one_of: at least one */
	bool one_of;
};

struct tool_rule {
	enum cordon_tool_action action;
	char **argv[_TOOL_ARGV_MATCHES]; /* NULL: not a condition of this rule */
	struct tool_env_match *env;
	size_t n_env;
	char *reason;   /* NULL: none written */
	char *backend;  /* approve: as written on the rule; NULL: the policy's */
	struct tool_place place;
};

struct tool_policy {
	enum cordon_tool_action default_action;
	char *backend;           /* NULL: none written */
	struct tool_rule *rules; /* deny, then approve, then allow: the order they are tried */
	size_t n_rules;
	struct tool_place place, default_place;
};

struct tool_stdio {
	bool set;
	uint64_t max_bytes;
	bool terminate;
};

/* open_urls: what a consumer may ask the host to open (the supervisor's
 * open_url.c decides; src/lib/url parses). */
struct tool_open_urls {
	char **origins;                          /* canonical "https://host[:port]"; never NULL */
	uint16_t ports[16];                      /* allow_localhost_ports: http://localhost:P, http://127.0.0.1:P */
	size_t n_ports;
	char **path_prefixes;                    /* never NULL; empty: any path */
	bool approve;                            /* ask backend before opening (default) */
	char *backend;                           /* approve: an approval backend's name */
	unsigned rate_per_minute;
	struct tool_place place;
};

struct tool_sandbox {
	char **paths[_TOOL_PATH_LISTS];          /* canonical; never NULL */
	bool net_set;
	enum profile_net net;
	char **net_rules[PROFILE_NET_RULE_KINDS]; /* by enum cordon_net_rule; never NULL */
	char **allow_vars;                       /* never NULL */
	char **set_vars;                         /* NAME=VALUE; never NULL */
	char **home_files;                       /* relative to HOME; never NULL */
	struct profile_limits limits;            /* origins unused */
	struct tool_stdio stdio[_TOOL_STREAMS];
	struct tool_open_urls *open_urls;        /* NULL: none (the command's own sandbox only) */
	struct tool_place place;
};

struct tool_from {
	char *caller;                 /* CORDON_TOOLS_SESSION or a command */
	bool deny;
	struct tool_sandbox *sandbox; /* NULL: the command's own */
	struct tool_policy *policy;   /* NULL: the command's own */
	struct tool_place place;
};

struct tool_command {
	char *name;
	char *executable;             /* as written; NULL: the name, looked up on PATH */
	struct tool_sandbox *sandbox; /* NULL: none written (an empty one applies) */
	struct tool_policy *policy;   /* NULL: none written (every invocation allowed) */
	char **can_use;               /* never NULL */
	char **secret_flags;          /* as written (-p, --db-pass); never NULL */
	struct tool_from *from;
	size_t n_from;
	struct tool_place place;
};

struct tool_backend {
	char *name;
	enum cordon_approval_type type;
	uint64_t timeout_secs;        /* terminal, webhook */
	bool default_allow;           /* terminal */
	char *url, *secret_env;       /* webhook */
	char *answer_secret_env;      /* webhook: the answers' key */
	bool chain_all;               /* chain */
	char **members;               /* chain; never NULL */
	struct tool_place place;
};

struct cordon_tools {
	struct tool_command *commands; /* sorted by name */
	size_t n_commands;
	char **names;                  /* the same order; NULL-terminated */
	struct tool_backend *backends; /* sorted by name */
	size_t n_backends;
	char **backend_names;          /* the same order; NULL-terminated */
	struct tool_sandbox empty;     /* what a command without a sandbox gets */
	struct tool_creds *creds;      /* credentials (creds.h); NULL: none */
	struct tool_open_urls *session_open_urls; /* the profile's top-level open_urls; NULL: none */
};

struct tool_creds;

/* tools.c */
struct cordon_tools *tools_free(struct cordon_tools *t);
void tool_sandbox_clear(struct tool_sandbox *sb);
struct tool_sandbox *tool_sandbox_free(struct tool_sandbox *sb);
struct tool_policy *tool_policy_free(struct tool_policy *pol);
void tool_command_clear(struct tool_command *c);
void tool_backend_clear(struct tool_backend *b);
/* An empty sandbox: every list allocated and empty. */
int tool_sandbox_init(struct tool_sandbox *sb);
const struct tool_command *tools_command(const struct cordon_tools *t, const char *name);
const struct tool_backend *tools_backend(const struct cordon_tools *t, const char *name);
const struct tool_from *tool_command_from(const struct tool_command *c, const char *caller);
/* What caller (CORDON_TOOLS_SESSION or a command) may open: NULL, none. */
const struct tool_open_urls *tools_open_urls(const struct cordon_tools *t, const char *caller);
struct tool_open_urls *tool_open_urls_free(struct tool_open_urls *o);
/* tools_resolve.c: the command whose executable, resolved as session
 * start resolves it (path_env, writable: cordon_tools_resolve), is the
 * canonical path; NULL when none is. The session may not execute it. */
const struct tool_command *tools_controlling(const struct cordon_tools *t, const char *canonical,
					     const char *path_env, const char *const *writable);
/* The profile's limits in the public shape (profile_api.c). */
void profile_limits_to_public(const struct profile_limits *l, struct cordon_profile_limits *ret);

/* tools_json.c: command_policies as the loader reads it back. */
struct json_t;
int tools_to_json(const struct cordon_tools *t, struct json_t **ret);
