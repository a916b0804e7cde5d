/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libcordon: a profile's command_policies (the tool sandbox's decisions).
 * Part of the public API; include "cordon/cordon.h" for all of it.
 */
#pragma once

#include "cordon/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Tools: a profile's command_policies -----------------------------------
 *
 * The data and the decisions of the tool sandbox (DESIGN.md, "The tool
 * sandbox"): which commands are under policy, who may call which, with what
 * arguments and environment, through which approval, and in what sandbox
 * each edge (caller -> command) runs. Compiled once, at load, and owned by
 * the profile: every function here only reads it, from any thread, and
 * everything it returns lives as long as the profile.
 *
 * Only the tool sandbox's supervisor (`cordon run`, which is
 * cordon-supervisor for such a profile) runs a session under them:
 * cordon_launch_new refuses a profile with command_policies
 * (-EOPNOTSUPP), since a session launched without the supervisor would
 * reach no tool through its policy. cordon_toolbox (below) is what the
 * supervisor builds from them.
 *
 * Edges. The session (CORDON_TOOLS_SESSION) reaches every command unless
 * the command's from.session is "deny". A command X reaches Y only when Y
 * is X or Y is in X's can_use, and Y's from.X is not "deny". An unknown
 * command or caller is a deny, with a reason.
 *
 * Invocation policy: the edge's (from.CALLER.invocation_policy, else the
 * command's own; a command without one allows every invocation). Its deny
 * rules are tried first, then approve, then allow, each list in the order
 * written; the first rule that matches decides, and when none does the
 * policy's default. A rule matches when every condition it has holds:
 *   argv.exact     argv equals the list (the same words, the same count);
 *   argv.prefix    argv starts with the list;
 *   argv.contains  every word of the list is one of argv's words
 *                  (anywhere, in any order; whole words, compared exactly);
 *   env.VAR        VAR is set in envp and its value equals "equals", or is
 *                  one of "one_of" (an unset VAR matches neither; the first
 *                  VAR= entry of envp counts, as getenv has it).
 * argv is the arguments after the command name; words are compared byte
 * for byte, no globbing, no option parsing ("--force" is not "-f").
 */
struct cordon_tools;

/* The profile's command_policies; NULL when it has none. */
CORDON_API const struct cordon_tools *cordon_profile_tools(const struct cordon_profile_handle *p);
/* The command names under policy, sorted (strcmp), NULL-terminated. */
CORDON_API const char *const *cordon_tools_commands(const struct cordon_tools *t);
/* The executable as the profile gives it: an absolute path, or a bare name
 * (the command's own name when none is given) for cordon_tools_resolve.
 * NULL for an unknown command. */
CORDON_API const char *cordon_tools_executable(const struct cordon_tools *t, const char *command);
/* What command may call besides itself (its can_use), NULL-terminated;
 * NULL for an unknown command. */
CORDON_API const char *const *cordon_tools_can_use(const struct cordon_tools *t, const char *command);
/* The command's secret_flags, as written (-p, --db-pass): the word after
 * one is a secret, hidden from approvers and the audit. NULL-terminated;
 * NULL for an unknown command. */
CORDON_API const char *const *cordon_tools_secret_flags(const struct cordon_tools *t, const char *command);

/* The caller name of the agent's own sandbox; no command may be named so. */
#define CORDON_TOOLS_SESSION "session"

enum cordon_tool_action {
	CORDON_TOOL_ALLOW,
	CORDON_TOOL_DENY,
	CORDON_TOOL_APPROVE, /* ask the approval backend named in backend */
};
CORDON_API const char *cordon_tool_action_to_string(enum cordon_tool_action a);

struct cordon_tool_decision {
	enum cordon_tool_action action;
	/* The JSON pointer of what decided, e.g.
	 * "/command_policies/commands/git/invocation_policy/deny/0",
	 * ".../invocation_policy/default", ".../commands/ssh/from/session",
	 * ".../commands/git/can_use", "/command_policies/commands" (unknown). */
	char rule[256];
	char reason[256];  /* the rule's reason, else a sentence saying what matched */
	char backend[128]; /* CORDON_TOOL_APPROVE: the backend to ask; else "" */
	char file[256];    /* the file the rule is in ("" when no rule of the profile decided) */
	int line;          /* its line there (1-based; 0 when unknown) */
};

/* Decide one invocation: caller is CORDON_TOOLS_SESSION or a command name;
 * argv the arguments after the command name (NULL: none); envp the
 * caller's NAME=VALUE environment (NULL: empty). Pure: no system calls.
 * -EINVAL for a NULL t, command, caller or ret; an unknown name is a
 * decision (deny), not an error. */
CORDON_API int cordon_tools_decide(const struct cordon_tools *t, const char *caller, const char *command,
				   const char *const *argv, const char *const *envp,
				   struct cordon_tool_decision *ret);

/* The deny rules of the edge caller -> command that a call passes by
 * saying the same another way: words at other places (`push REMOTE main
 * --force` for a prefix ["push", "--force"]) or a long flag spelled short
 * (`push -f`), each decided as cordon_tools_decide decides. One line per
 * rule and call, naming both (NULL-terminated, possibly empty; free with
 * cordon_strv_free). -EINVAL for a NULL argument. */
CORDON_API int cordon_tools_deny_warnings(const struct cordon_tools *t, const char *caller, const char *command,
					  char ***ret);

/* The sandbox an edge runs the command in: from.CALLER's sandbox, else the
 * command's own, else an empty one (nothing granted). Paths are canonical
 * (a missing tail kept as written: it may not exist yet); lists are
 * NULL-terminated and never NULL. allow_vars holds names only (no
 * pattern, no repeat, never HOME, TMPDIR or XDG_*: the load refuses them);
 * set_vars NAME=VALUE. A zero *_max is no cap. */
struct cordon_tool_sandbox {
	const char *const *fs_read, *const *fs_write, *const *fs_read_file, *const *fs_write_file;
	const char *const *exec_paths;
	bool net_set;          /* false: the sandbox says nothing (no network) */
	enum cordon_net net;
	const char *const *allow_domains, *const *deny_domains, *const *allow_addresses;
	const char *const *allow_vars, *const *set_vars;
	const char *const *home_files; /* relative to HOME: read-only in the tool's private HOME */
	struct cordon_profile_limits limits;
	uint64_t stdout_max, stderr_max;
	bool stdout_terminate, stderr_terminate; /* at the cap: kill (else drop the rest) */
};
/* -ENOENT for an unknown caller or command, -EPERM for an edge that does
 * not exist (can_use, from.CALLER "deny"). Pointers are owned by t. */
CORDON_API int cordon_tools_sandbox(const struct cordon_tools *t, const char *caller, const char *command,
				    struct cordon_tool_sandbox *ret);

enum cordon_approval_type {
	CORDON_APPROVAL_TERMINAL,
	CORDON_APPROVAL_WEBHOOK,
	CORDON_APPROVAL_CHAIN,
};

/* One of command_policies.approval_backends. terminal: timeout_ms and
 * default_allow (what an unanswered or unattended ask gets). webhook: url
 * (https://, or unix:/PATH), secret_env (the variable holding the key
 * that signs requests), answer_secret_env (the one holding the other key,
 * that signs answers), timeout_ms; default_allow is always false. chain: members (names of
 * other backends, in order; NULL-terminated) and chain_all (every member
 * must allow; else any one); timeout_ms is 0 (the members' own bound it),
 * default_allow false. Strings are owned by t; NULL where not used. */
struct cordon_approval_backend {
	const char *name;
	enum cordon_approval_type type;
	uint64_t timeout_ms;
	bool default_allow;
	const char *url;
	const char *secret_env;
	bool chain_all;
	const char *const *members;
	const char *answer_secret_env;
};
/* The approval backends' names, sorted, NULL-terminated (never NULL). */
CORDON_API const char *const *cordon_tools_backend_names(const struct cordon_tools *t);
/* -ENOENT when there is no backend named so. */
CORDON_API int cordon_tools_backend(const struct cordon_tools *t, const char *name,
				    struct cordon_approval_backend *ret);

/* Resolve a command's executable once, at session start. An absolute one
 * as given, canonical; it must exist and be a regular file with an execute
 * bit (-ENOENT, -EACCES). A bare name is looked up on path_env (a PATH
 * value; empty and relative entries are skipped), taking the first regular
 * executable file found, canonical; every directory at or below one of
 * writable (NULL-terminated, may be NULL: the session's writable roots),
 * and every candidate whose canonical path lies there, is skipped: a
 * binary the session could plant there is never taken. -ENOENT when
 * nothing is found, and reterr says so, naming what was skipped. *ret is
 * malloc'd; the caller frees it. */
CORDON_API int cordon_tools_resolve(const struct cordon_tools *t, const char *command, const char *path_env,
				    const char *const *writable, char **ret, struct cordon_error *reterr);

#ifdef __cplusplus
}
#endif
