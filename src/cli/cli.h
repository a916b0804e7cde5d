/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cordon/cordon.h"
#include "profile.h"

enum cli_command {
	CLI_NONE,
	CLI_RUN,
	CLI_CONFINE,
	CLI_CLASSIFY,
	CLI_PROBE,
	CLI_EXPLAIN,
	CLI_PROFILE,
	CLI_WHY,
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

/* Everything the command line said, parsed and validated; strings point into
 * argv except the vectors, which are owned. */
struct cli_args {
	enum cli_command sub;
	bool help;                 /* `cordon SUB --help` */

	/* policy */
	const char *profile;       /* --profile: NULL is the embedded default */
	const char *mode;          /* NULL: workspace-write */
	const char *workspace;     /* NULL: current directory */
	bool net_set;
	enum cordon_net net;
	bool backend_set;
	enum cordon_backend backend;
	bool isolation_set;
	enum cordon_isolation isolation;
	char **deny_read;
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

	/* probe */
	bool refresh;

	/* classify */
	const char *confined_file;
	const char *output_file;
	const char *status_records_file; /* --status-records: the status channel's records */
	bool status_set;
	int status;

	/* profile */
	enum cli_profile_action action;

	/* why */
	const char *why_path;      /* --path */
	bool op_set;
	enum profile_op op;        /* --op */
	const char *why_host;      /* --host */
	bool port_set;
	unsigned port;             /* --port */

	char **command;            /* after "--" (or the first non-flag) */
	char **operands;           /* `cordon profile ACTION` operands: names and files */
};

/* Parse argv (argv[0] is the program). Returns 0, or -EINVAL with a message
 * naming the bad flag or value in err. */
int cli_parse(int argc, char *const *argv, struct cli_args *ret, char *err, size_t errlen);
void cli_args_done(struct cli_args *a);

/* "10", "1.5", "0.25" seconds -> milliseconds; must be > 0 and <= 1 week. */
int cli_parse_seconds(const char *s, int *ret_ms);
/* "4096", "64k", "1M", "2G" (binary multiples) -> bytes; > 0 and <= 1 TiB. */
int cli_parse_size(const char *s, uint64_t *ret);

/* Put a loaded profile's limits into a, under the limit flags a already has
 * (a flag wins over the profile). -EINVAL with a message naming the profile
 * key when a value is one `cordon run` cannot use. */
int cli_apply_profile_limits(struct cli_args *a, const struct cordon_profile *p, char *err, size_t errlen);

/* The resolved profile's JSON flattened for `cordon profile diff`: one
 * "/json/pointer: value" line per scalar and per array element (arrays keep
 * the pointer of the array), sorted. NULL-terminated; caller frees. */
int cli_profile_flatten(const char *json, char ***ret);

/* One row of the flag table: the parser, the completions and the man pages'
 * checks all read it. */
struct cli_flag {
	const char *name;
	unsigned commands; /* bit (1 << CLI_*) per subcommand that accepts it */
	bool has_value;
};

const struct cli_flag *cli_flag_table(size_t *ret_n);
/* The i-th subcommand name (with its enum in *ret), NULL past the end. */
const char *cli_command_name(size_t i, enum cli_command *ret);
/* The i-th `cordon profile` action, NULL past the end. */
const char *cli_profile_action_name(size_t i);

/* The usage text for a subcommand (or the overview for CLI_NONE). */
const char *cli_usage(enum cli_command c);

/* Subcommand bodies; each returns the process exit code. */
int cli_run(const struct cli_args *a);
int cli_confine(const struct cli_args *a);
int cli_classify(const struct cli_args *a);
int cli_probe(const struct cli_args *a);
int cli_explain(const struct cli_args *a);
int cli_profile(const struct cli_args *a);
int cli_why(const struct cli_args *a);

/* A message on stderr, prefixed "cordon: ". */
void cli_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* cli_net.c: the --net proxy rules. cli_net_flag: 1 if NAME is one of its
 * flags (taken), 0 if not, -errno with err. */
int cli_net_flag(struct cli_args *a, const char *name, const char *value, char *err, size_t errlen);
int cli_net_apply(const struct cli_args *a, struct cordon_policy *p);
void cli_net_done(struct cli_args *a);
/* The hosts the proxy refused, from its audit lines in the output: a JSON
 * array of {"request", "host", "port", "reason"} (new reference). */
struct json_t *cli_net_denials(const char *output, size_t len);

/* Replace invalid UTF-8 with U+FFFD so the text can go into JSON. Caller frees. */
char *utf8_sanitize(const char *s, size_t len, size_t *ret_len);
