/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "cleanup.h"
#include "cordon/cordon.h"
#include "proxy_main.h"

/* cordon refused or failed before the command ran */
#define CLI_EXIT_REFUSED CORDON_EXIT_RUNNER_FAILED

enum cli_command {
	CLI_NONE,
	CLI_RUN,
	CLI_CONFINE,
	CLI_CLASSIFY,
	CLI_PROBE,
	CLI_EXPLAIN,
	CLI_PROFILE,
	CLI_WHY,
	CLI_AUDIT,
	CLI_PACK,
	CLI_SERVE,
	CLI_HELP,
	CLI_VERSION,
};

/* `cordon profile ACTION` */
enum cli_profile_action {
	CLI_PROFILE_NONE,
	CLI_PROFILE_LIST,
	CLI_PROFILE_SHOW,
	CLI_PROFILE_VALIDATE,
	CLI_PROFILE_SCHEMA,
	CLI_PROFILE_DIFF,
};

/* `cordon audit ACTION` (in cordon-supervisor: cli_audit.c) */
enum cli_audit_action {
	CLI_AUDIT_NONE,
	CLI_AUDIT_LIST,
	CLI_AUDIT_SHOW,
	CLI_AUDIT_VERIFY,
};

/* `cordon pack ACTION` (in cordon-supervisor: cli_pack.c) */
enum cli_pack_action {
	CLI_PACK_NONE,
	CLI_PACK_INSTALL,
	CLI_PACK_LIST,
	CLI_PACK_SHOW,
	CLI_PACK_VERIFY,
	CLI_PACK_REMOVE,
};

/* Everything the command line said, parsed and validated; strings point into
 * argv except the vectors, which are owned. */
struct cli_args {
	enum cli_command sub;
	bool help;                 /* `cordon SUB --help` */

	/* policy */
	const char *profile;       /* --profile: NULL is the embedded default */
	const char *insecure_local; /* run --insecure-local DIR: an unsigned pack for this run */
	bool mode_set;             /* --mode; else the profile's (workspace-write) */
	enum cordon_mode mode;
	const char *workspace;     /* NULL: current directory */
	bool net_set;
	enum cordon_net net;
	bool backend_set;
	enum cordon_backend backend;
	bool isolation_set;
	enum cordon_isolation isolation;
	bool home_set;                  /* --home catalogue|allowlist */
	enum cordon_home home;
	char **deny_read;
	char **read_host;          /* --read: host paths below /tmp brought back read-only */
	char **protect;
	char **allow_unix;         /* --allow-unix-socket */
	char **keep_env;
	char **setenv;             /* NAME=VALUE */
	char **require;
	char **net_rules[3];       /* --allow-domain, --deny-domain, --allow-address (cli_net.c) */

	/* run */
	int timeout_ms;            /* 0: none */
	uint64_t max_output;       /* 0: default */
	bool max_output_set;
	bool output_terminate;     /* --on-output-limit terminate */
	bool output_action_set;    /* --on-output-limit given */
	bool fallback_set;         /* --limits-fallback given */
	struct cordon_limits limits; /* --cpu, --memory, --max-processes, ... */
	bool limits_set;           /* any of them given */
	bool json;
	bool separate_stderr;      /* --separate-stderr */
	bool json_schema;          /* --json-schema */
	bool mcp;                  /* serve --mcp */

	/* probe */
	bool refresh;

	/* classify */
	const char *confined_file;
	const char *output_file;
	const char *status_records_file; /* --status-records: the status channel's records */
	int confine_status_fd;           /* confine --status-fd N (0: the provider's own) */
	bool status_set;
	int status;

	/* profile */
	enum cli_profile_action action;
	bool effective;            /* show --effective */

	/* why */
	const char *why_path;      /* --path */
	bool op_set;
	enum cordon_op op;         /* --op */
	const char *why_host;      /* --host (the host part of HOST:PORT) */
	char *why_host_own;        /* --host HOST:PORT: the host part, owned */
	unsigned host_port;        /* --host HOST:PORT: the port part (0: none) */
	bool port_set;
	unsigned port;             /* --port */
	const char *why_command;   /* --command: a command under command_policies */
	const char *why_caller;    /* --caller: who calls it (NULL: the session) */
	const char *why_method;    /* --method: with --host and --path, a request through a credential proxy */

	struct cli_session *session; /* run: the tool sandbox's supervisor (cordon-supervisor only), or NULL */
	/* audit */
	enum cli_audit_action audit_action;
	const char *audit_head;    /* verify --head: the chain's head kept elsewhere */
	const char *audit_pubkey;  /* verify --pubkey: the key the session printed */
	const char *audit_sig;     /* verify --sig: its signature of the head */
	/* pack */
	enum cli_pack_action pack_action;
	bool yes;                  /* install --yes: confirmed for a script */

	char **command;            /* after "--" (or the first non-flag); why --command: its arguments */
	char **operands;           /* `cordon profile|audit|pack ACTION` operands: names and files */
};

/* Parse argv (argv[0] is the program). Returns 0, or -EINVAL with a message
 * naming the bad flag or value in err. */
int cli_parse(int argc, char *const *argv, struct cli_args *ret, char *err, size_t errlen);
void cli_args_done(struct cli_args *a);

/* Sizes and durations in the grammar of cordon_parse_size and
 * cordon_parse_duration (cordon.h), the same a profile's limits take. */
/* "10", "1.5", "10m", "500ms" -> milliseconds (rounded up); > 0, <= 1 week. */
int cli_parse_seconds(const char *s, int *ret_ms);
/* "30", "10m", "1h" -> whole CPU seconds, 1 .. 604800. */
int cli_parse_cpu_seconds(const char *s, uint64_t *ret);
/* "4096", "64k", "1M", "2GiB", "1T" (binary multiples) -> bytes; > 0, <= 1 TiB. */
int cli_parse_size(const char *s, uint64_t *ret);

/* The resolved profile's JSON flattened for `cordon profile diff`: one
 * "/json/pointer: value" line per scalar and per array element (arrays keep
 * the pointer of the array), sorted. NULL-terminated; caller frees. */
int cli_profile_flatten(const char *json, char ***ret);

/* Where a flag's line goes in its command's --help text. */
enum cli_flag_section {
	CLI_SECTION_HIDDEN,  /* not listed (--help itself) */
	CLI_SECTION_OWN,     /* the command's own options, under its description */
	CLI_SECTION_LIMIT,   /* "limit options" */
	CLI_SECTION_POLICY,  /* "policy options" */
};

struct cli_flag;

/* Store the flag's value in a (value is NULL for a flag without one);
 * -EINVAL with a message naming the flag and the value in err. */
typedef int (*cli_flag_handler)(struct cli_args *a, const struct cli_flag *f, const char *value, char *err,
				size_t errlen);

/* One row of the flag table: the parser, the --help texts, the completions
 * and the man pages' checks all read it. A name may have one row per
 * family of commands (each with its own help); the rows of one name never
 * share a command. Adding a flag is one row (and its field in cli_args). */
struct cli_flag {
	const char *name;
	unsigned commands;          /* bit (1 << CLI_*) per subcommand that accepts it */
	bool has_value;
	cli_flag_handler handler;
	size_t field;               /* offsetof(struct cli_args, X) for the generic handlers */
	enum cli_flag_section section;
	const char *meta;           /* the value in --help: "DIR", "none|host"; NULL without one */
	const char *help;           /* the description; each "\n" starts a continuation line */
};

#define CLI_CMD(x) (1u << (x))

/* Generic handlers for rows whose field is a bool (set), a const char *
 * (non-empty) or a char ** (repeatable, non-empty, capped). */
int cli_flag_bool(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen);
int cli_flag_string(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen);
int cli_flag_repeat(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen);

/* A message into err; returns -EINVAL. */
int cli_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

const struct cli_flag *cli_flag_table(size_t *ret_n);
/* The i-th subcommand name (with its enum in *ret), NULL past the end. */
const char *cli_command_name(size_t i, enum cli_command *ret);
/* Caps on what the command line may carry: a repeatable flag's values, a
 * command's operands. */
#define CLI_MAX_REPEATS 4096

/* cli_actions.c: the commands that take an action word (`cordon profile
 * ACTION`, `cordon audit ACTION`). */
bool cli_has_actions(enum cli_command c);
/* The i-th action of c, NULL past the end and for other commands. */
const char *cli_action_name(enum cli_command c, size_t i);
/* Set a->sub's action from its name; -EINVAL and a message in err for an
 * unknown one. */
int cli_parse_action(struct cli_args *a, const char *name, char *err, size_t errlen);
/* Once everything is parsed: an action was given, with the operands and
 * only the options it takes; else -EINVAL and a message in err. */
int cli_check_action(const struct cli_args *a, char *err, size_t errlen);

/* The usage text for a subcommand (or the overview for CLI_NONE). */
const char *cli_usage(enum cli_command c);

/* Subcommand bodies; each returns the process exit code. */
int cli_run(const struct cli_args *a);

/* `cordon run` ends in exit(), which hands its memory back whole: freeing
 * the profile, launch, policy and result piece by piece first cost ~150k
 * instructions of a cold launch. A sanitizer build still frees, so
 * LeakSanitizer keeps seeing every real leak. */
#if defined(__SANITIZE_ADDRESS__)
#define CLI_FREE_BEFORE_EXIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define CLI_FREE_BEFORE_EXIT 1
#endif
#endif
#ifndef CLI_FREE_BEFORE_EXIT
#define CLI_FREE_BEFORE_EXIT 0
#endif
/* cli_serve.c: `cordon serve` (JSON lines, or --mcp: cli_mcp.c) */
struct serve_frontend;
/* cordon serve, speaking through the front end frontend fills (the JSON
 * lines' or MCP's: cli_serve.h), which the dispatcher chooses. */
int cli_serve(const struct cli_args *a, void (*frontend)(struct serve_frontend *ret));
int cli_confine(const struct cli_args *a);
int cli_classify(const struct cli_args *a);
int cli_probe(const struct cli_args *a);
int cli_explain(const struct cli_args *a);
int cli_profile(const struct cli_args *a);
int cli_why(const struct cli_args *a);

/* ---- the two binaries (cli_main.c, cli_supervisor.c) ---- */

/* What only cordon-supervisor does: it links libcrypto and loads libcurl
 * (for a webhook, src/supervisor/curl_dl.h), which the lean `cordon` (the
 * runner, on every launch's path) must not load.
 * The lean binary has none (NULL) and execs cordon-supervisor with its own
 * command line for what needs them. */
struct cli_session;
/* `cordon run` with command_policies (cli_session.c): the supervisor is
 * made when the session's policy is built (cli_launch's finish_policy, with
 * the session in a->session), and serves the session while it runs. */
struct cli_session_ops {
	int (*session_new)(const struct cli_args *a, struct cli_session **ret);
	int (*session_policy)(struct cli_session *s, struct cordon_policy *p);
	int (*session_run)(struct cli_session *s, const struct cordon_confined *c, const struct cordon_run_opts *o,
			   struct cordon_result **ret);
	void (*session_free)(struct cli_session *s);
	/* After session_run: the audit log's signed end (audit.h), as an
	 * object {session, records, head, head_key, signature, stored}; NULL
	 * when the log could not be closed and signed. The caller owns it. */
	json_t *(*session_audit)(struct cli_session *s);
	/* After session_run: the tool calls the broker refused, as the
	 * result's denials ({kind "tool", rule, mechanism "broker", source
	 * "broker", tool, caller, ...}); *ret_omitted: how many more. */
	json_t *(*session_denials)(struct cli_session *s, size_t *ret_omitted);
};
extern const struct cli_session_ops cli_session_ops;

struct cli_supervisor_ops {
	const char *name;
	const struct cli_session_ops *session;
	/* `cordon audit`: list, show and verify the audit logs (the exit code) */
	int (*audit)(const struct cli_args *a);
	/* `cordon why --host --path --method`: a request as a credential
	 * proxy decides it (the exit code) */
	int (*why_credential)(const struct cli_args *a);
	/* `cordon proxy --credentials-fd N`: the TLS interception (intercept.h) */
	proxy_intercept_load_fn proxy_intercept_load;
	/* `cordon pack ACTION` (issue 24: SSH signatures need libcrypto; the
	 * exit code) */
	int (*pack)(const struct cli_args *a);
	/* run --insecure-local DIR: the unsigned pack there answers for its
	 * OWNER/NAME in this process; its name into name (0, or -errno said) */
	int (*pack_insecure_local)(const char *dir, char *name, size_t size);
};
/* The whole CLI; ops NULL in the lean binary. The exit code. */
int cli_main(int argc, char **argv, const struct cli_supervisor_ops *ops);
/* NULL in the lean binary. */
const struct cli_supervisor_ops *cli_supervisor(void);
void cli_set_supervisor(const struct cli_supervisor_ops *ops);
/* `cordon audit` (cli_audit.c, linked into cordon-supervisor only). */
int cli_audit(const struct cli_args *a);
/* `cordon pack` (cli_pack.c, linked into cordon-supervisor only). */
int cli_pack(const struct cli_args *a);
int cli_pack_insecure_local(const char *dir, char *name, size_t size);
/* `cordon why --method` (cli_why_creds.c, linked into cordon-supervisor only). */
int cli_why_credential(const struct cli_args *a);
/* The command line as given, kept (before values are scrubbed from it) for
 * cli_exec_supervisor. */
int cli_keep_argv(int argc, char **argv);
/* Exec cordon-supervisor ($CORDON_SUPERVISOR, else beside this binary,
 * else the installed one) with the command line as given; returns only on
 * failure (-errno, said with why: "cordon audit"). */
int cli_exec_supervisor(const char *why);
/* self (this binary's path) becomes the lean runner beside it, or "" for
 * the installed one. */
void cli_runner_beside(char *self, size_t size);

/* A message on stderr, prefixed "cordon: ". */
void cli_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* cli_net.c: the --net proxy rules. The handler of the --allow-domain,
 * --deny-domain and --allow-address rows (stored in a->net_rules). */
int cli_net_flag(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen);
void cli_net_done(struct cli_args *a);
/* The connections the proxy refused, from its audit lines in text: one
 * denial each appended to denials ({kind "network", op "connect", rule,
 * mechanism "proxy", reason, line, host, port, request}). rule names where
 * the rule that refused came from: the flag ("--deny-domain H") or the
 * profile's list ("network.deny_domains: H in FILE"); for what no rule
 * admitted, the list that would ("--allow-domain / network.allow_domains");
 * otherwise fallback (the network mode's origin). */
void cli_net_denials(json_t *denials, const char *text, size_t len, const struct cli_args *a,
		     const struct cordon_profile_handle *prof, const char *fallback);

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_policy *, cordon_policy_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_confined *, cordon_confined_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_result *, cordon_result_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_profile_handle *, cordon_profile_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_why *, cordon_why_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_launch *, cordon_launch_free)

/* ---- cli_policy.c: from the flags to a confined value; each says why it failed ---- */

/* NAME as a built-in, a path or a looked-up name; embedded: the built-in
 * only, never a file; inspect: to be looked at, never run (command_policies
 * is kept, not refused: cordon_profile_load_inspect). */
int cli_load_named(const char *name, const char *workspace, bool embedded, bool inspect,
		   struct cordon_profile_handle **ret);
/* --profile P, else the embedded default. */
int cli_load_profile(const struct cli_args *a, struct cordon_profile_handle **ret);
/* The launch the flags ask for on prof (cordon_launch_new): the flag
 * table's values as cordon_launch_opts, nothing merged here; the CLI's own
 * checks (the workspace, danger-full-access with a network) and the tool
 * sandbox's session are the launch's finish_policy. inspect: to be shown,
 * never run (no backend selected, limits not checked). Said on failure;
 * *ret_kind names the step: profile, policy, unavailable or limits. */
int cli_launch(const struct cli_args *a, const struct cordon_profile_handle *prof, bool inspect,
	       struct cordon_launch **ret, const char **ret_kind);
/* The flag table's values as launch options, as given (nothing merged):
 * what cli_launch and `cordon why` start from. */
void cli_launch_opts(const struct cli_args *a, struct cordon_launch_opts *ret);
/* a with the launch's merged limits and run options in place of the flags'
 * (a copy: not to be cli_args_done'd), for what names them: the limit
 * lines, explain, the JSON result. */
void cli_args_from_launch(const struct cli_args *a, const struct cordon_launch *l, struct cli_args *ret);
/* The launch a command would run, to be shown (cli_launch, inspect). */
int cli_build_policy(const struct cli_args *a, const struct cordon_profile_handle *prof,
		     struct cordon_launch **ret);
/* The launch confined for a's command; said on failure, *ret_kind: policy,
 * unavailable or require. */
int cli_confine_launch(const struct cordon_launch *l, const struct cli_args *a, struct cordon_confined **ret,
		       const char **ret_kind);

/* The exit code for cordon_run's error r: 127/126 when c has no runner and
 * its command could not be started, else 125. */
int cli_exec_failure_code(const struct cordon_confined *c, int r);

/* ---- cli_hints.c: the workspace checks, why's view, hints and denials ---- */

/* One line and a negative code when the workspace ws (of a run in mode)
 * does not exist, is not a directory, or is a system directory that only
 * the current directory chose (no --workspace, no profile workspace). */
int cli_check_workspace(const struct cli_args *a, const struct cordon_profile_handle *prof, const char *ws,
			enum cordon_mode mode);

/* The profile with a run's flags on top (--mode, --net, --isolation,
 * --deny-read, --protect, the host rules), as `cordon why` and the
 * denials ask it. -errno. */
int cli_why_new(const struct cli_args *a, const struct cordon_profile_handle *p, struct cordon_why **ret);

/* The most denials a result lists (the rest: denials_omitted). */
#define CLI_MAX_DENIALS 32

/* After a run: the hints (arrays of strings) and the denials ({kind, path,
 * op, rule, mechanism, ...}) the output and the result explain. */
int cli_hints_collect(const struct cli_args *a, const struct cordon_profile_handle *prof,
		      const struct cordon_confined *c, const struct cordon_result *res, json_t **ret_hints,
		      json_t **ret_denials, size_t *ret_omitted);

/* ---- cli_observed.c: the denials cordon itself observed ---- */

/* Does the run's status channel hold a denial record? */
bool cli_observed_any(const struct cordon_result *res);
/* Each denial record of the run's status channel (cordon/classify.h), one
 * entry appended to denials: init's gates as {kind "path", source
 * "kernel", rule: why's where it denies the same, else the gate} (a TCP
 * connect as kind "network"), the proxy's as cli_net_denials with source
 * "proxy" (net_rule: its fallback). why may be NULL. */
void cli_observed_denials(json_t *denials, const struct cordon_result *res, const struct cordon_why *why,
			  const struct cli_args *a, const struct cordon_profile_handle *prof, const char *net_rule);

/* ---- cli_hidden.c ---- */

/* After a run that failed: a hint naming the host paths below the private
 * /tmp the run could not see, and --read: those beside a workspace or
 * working directory below /tmp, or else those the output names that exist
 * on the host. 1 when one was added, 0 none, -errno. */
/* The same for what the HOME allowlist hides (why: the run's; home: HOME). */
int cli_hidden_home_hints(struct cordon_why *why, const char *home, const char *text, size_t len, json_t *hints);
int cli_hidden_tmp_hints(const struct cli_args *a, const char *workspace, const struct cordon_confined *c,
			 const char *output, size_t output_len, json_t *hints);

/* ---- cli_effective.c ---- */

/* `cordon profile show --effective`: the lists the policy a run with prof
 * would build applies (--json: one object). The exit code. */
int cli_profile_effective(const struct cli_args *a, const struct cordon_profile_handle *prof);

/* ---- cli_json.c ---- */

/* Replace invalid UTF-8 with U+FFFD so the text can go into JSON. Caller frees. */
char *utf8_sanitize(const char *s, size_t len, size_t *ret_len);
/* A JSON string of text that may not be UTF-8 (json null for NULL). */
json_t *cli_json_text(const char *s, size_t len);
/* o, compact and ASCII-only, as one line on stdout. */
int cli_print_json(json_t *o);
/* Remembered for the JSON of a refusal: what cordon said last (cli_say
 * does it), and where the problem is (a profile's file:line:column). */
void cli_note_message(const char *message);
void cli_note_origin(const struct cordon_error *e);
/* A refusal (kind: usage, profile, policy, require, unavailable, limits,
 * spawn): with --json, the one object `cordon run --json` prints for it,
 * with what cordon said last. Returns code. */
int cli_refuse(const struct cli_args *a, const char *kind, int code);
/* `cordon run --json`'s object for a command that ran; stopped: the signal
 * that stopped the run, or 0. NULL on ENOMEM. */
json_t *cli_result_json(const struct cli_args *a, const struct cordon_result *res,
			const struct cordon_backend_info *info, int stopped);
/* share/cordon/result.schema.json, as built in; the exit code. */
int cli_print_result_schema(void);
/* Base64 (RFC 4648, padded) of len bytes. Caller frees. */
char *cli_base64(const unsigned char *s, size_t len);
