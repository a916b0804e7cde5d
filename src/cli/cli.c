/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The cordon command line: parse into a struct (unit-tested), then one body
 * per subcommand. Messages go to stderr and start with "cordon: ".
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h> /* isfinite */
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "cli.h"

#define _fallthrough_ __attribute__((__fallthrough__))
#include "exec.h"
#include "fileio.h"
#include "policy.h"
#include "probe.h"
#include "process.h"
#include "strv.h"

/* Caps on what the command line may carry. */
#define CLI_MAX_REPEATS 4096
#define CLI_CLASSIFY_MAX_OUTPUT (256u * 1024 * 1024)
#define CLI_CONFINED_MAX (1024 * 1024)

static const char usage_overview[] =
	"usage: cordon <command> [options]\n"
	"\n"
	"commands:\n"
	"  run       run a command confined by a policy\n"
	"  confine   print the confined argv and rules as JSON (for agent frameworks)\n"
	"  classify  classify a finished confined command's exit status and output\n"
	"  probe     show which sandbox backends work on this host\n"
	"  explain   show, in words, what the native runner will enforce\n"
	"  profile   list, show, validate, diff profiles; print their JSON Schema\n"
	"  why       say whether a profile allows a path or a host, and which rule decided\n"
	"  exec      the native runner itself (used by confined command lines)\n"
	"\n"
	"cordon <command> --help shows a command's options.\n";

#define POLICY_FLAGS                                                                           \
	"policy options (flags apply on top of the profile: values replace, lists add):\n"    \
	"  --profile P          a built-in name, a path, or NAME looked up in\n"               \
	"                       ~/.config/cordon/profiles then the installed profiles\n"       \
	"                       (default: the built-in `default`; see `cordon profile`)\n"     \
	"  --mode MODE          read-only | workspace-write (default) | danger-full-access\n" \
	"  --workspace DIR      the writable workspace root (default: current directory)\n"   \
	"  --net none|host|proxy  network access (default: none); proxy: only through\n"    \
	"                       cordon's proxy, to the hosts of --allow-domain H[:PORT]\n"   \
	"                       (*.H: subdomains), never --deny-domain H; --allow-address\n" \
	"                       A[/N] admits local/private answers (repeatable)\n"          \
	"  --backend B          native | bwrap | seatbelt | unavailable (skips probing;\n"    \
	"                       CORDON_BACKEND does the same)\n"                              \
	"  --isolation full|light  native runner only; light = Landlock + seccomp, no namespaces\n" \
	"  --deny-read PATH     hide PATH from the sandbox (repeatable)\n"                   \
	"  --protect PATH       keep PATH read-only inside the workspace (repeatable)\n"     \
	"  --allow-unix-socket PATH  let the sandbox connect to this host unix socket\n"    \
	"                       (native, full isolation, --net none; repeatable)\n"          \
	"  --keep-env NAME      pass NAME (or PREFIX*) through the environment filter\n"     \
	"  --setenv NAME=VALUE  set a variable inside the sandbox\n"                         \
	"  --require FEATURE    refuse instead of degrading without FEATURE (landlock,\n"    \
	"                       landlock-net, landlock-scope, seccomp, userns, pidns, netns)\n"

#define LIMIT_FLAGS                                                                            \
	"limit options (sizes take k, M, G suffixes):\n"                                      \
	"  --timeout SECONDS    wall clock: kill the command and everything it started\n"     \
	"  --cpu SECONDS        CPU seconds of the whole run (a cgroup counts it; else RLIMIT_CPU per process)\n"  \
	"  --memory BYTES       memory of the whole run (cgroup), else RLIMIT_AS per process\n" \
	"  --max-processes N    processes and threads of the whole run (pids cgroup; the\n"     \
	"                       runner's own count); refused where no pids cgroup is writable\n" \
	"  --max-file-size BYTES  largest file the command may write (RLIMIT_FSIZE: EFBIG)\n"  \
	"  --max-open-files N   open file descriptors per process (RLIMIT_NOFILE)\n"          \
	"  --max-output BYTES   output kept with --json (default 1M); interactive: stdout and\n" \
	"                       stderr relayed each up to BYTES\n"                           \
	"  --on-output-limit truncate|terminate  past --max-output: count and drop the rest\n" \
	"                       (default), or kill the command and everything it started\n"  \
	"  --limits-fallback warn|fail  when only a weaker mechanism is available: run and\n" \
	"                       say so (default), or refuse (exit 125)\n"

static const char usage_run[] =
	"usage: cordon run [policy options] [limit options] [--json] -- COMMAND [ARG...]\n"
	"\n"
	"Runs COMMAND confined. Interactive by default: stdio passes through and cordon\n"
	"exits with the command's exit code. --json captures the merged output and prints\n"
	"one object: exit_code, signal, verdict (ok|denied|runner_failed|timeout|unavailable),\n"
	"runner_line, output, truncated, duration_ms, enforcement, grade, limit (which limit\n"
	"fired, or null), limit_mechanism, limits (the mechanism per limit), limits_warning.\n"
	"Exit codes: the command's own (also when it handled a limit's error itself); 124 on\n"
	"timeout; 137 when a limit's SIGKILL ended it; 125 when cordon refuses or fails\n"
	"before the command runs.\n"
	"\n"
	"  --json               capture and print one JSON object\n"
	"\n" LIMIT_FLAGS "\n" POLICY_FLAGS;

static const char usage_confine[] =
	"usage: cordon confine [policy options] [--json] -- COMMAND [ARG...]\n"
	"\n"
	"Prints the confined value as JSON: argv, mode, enforcement, grade, denial and\n"
	"fatal signatures, informational lines, allowed exit codes. Spawns nothing except\n"
	"a backend probe when no probe result is cached.\n"
	"\n" POLICY_FLAGS;

static const char usage_classify[] =
	"usage: cordon classify --confined FILE --status N [--output FILE]\n"
	"                       [--status-records FILE] [--json]\n"
	"\n"
	"Reads a confined value (as printed by `cordon confine`) and the finished command's\n"
	"exit status and merged output, and prints the verdict: ok, denied or runner_failed.\n"
	"N is the exit code, or 128+S for a command killed by signal S. A value with a\n"
	"status channel (status_fd) needs --status-records: what the runner wrote on that\n"
	"fd (an empty file if nothing); its output is never read for runner failures.\n";

static const char usage_probe[] =
	"usage: cordon probe [--json] [--refresh]\n"
	"\n"
	"Probes every backend for this platform, shows why each unusable one is unusable,\n"
	"the selected backend and grade, and kernel facts. --refresh replaces the\n"
	"per-user probe cache with the fresh result.\n";

static const char usage_explain[] =
	"usage: cordon explain [policy options] [limit options] -- COMMAND [ARG...]\n"
	"\n"
	"Prints, in words, the plan the native runner would apply to COMMAND, and how\n"
	"each limit would be enforced here. With --backend bwrap: bwrap's mounts, what\n"
	"it does not enforce, and the plan of the runner nested inside it.\n"
	"\n" LIMIT_FLAGS "\n" POLICY_FLAGS;

static const char usage_profile[] =
	"usage: cordon profile list [--json]\n"
	"       cordon profile show NAME [--workspace DIR] [--json]\n"
	"       cordon profile validate [--workspace DIR] FILE...\n"
	"       cordon profile schema\n"
	"       cordon profile diff [--workspace DIR] A B\n"
	"\n"
	"A profile is one JSON file saying what a session may do. NAME is a built-in\n"
	"name, a path (it contains '/' or ends in .json), or a name looked up as\n"
	"~/.config/cordon/profiles/NAME.json, then the installed profile directory,\n"
	"then the built-ins.\n"
	"\n"
	"  list      every profile cordon can find and where it comes from\n"
	"  show      the resolved profile (extends merged, paths expanded) as JSON; the\n"
	"            notes (skipped missing paths, reads that change nothing) on stderr,\n"
	"            or with --json one object {name, file, chain, profile, notes}\n"
	"  validate  load each FILE; print file:line:column: at /json/path: message for\n"
	"            each invalid one; exit 1 if any is invalid\n"
	"  schema    the profile JSON Schema (draft 2020-12)\n"
	"  diff      the differences of two resolved profiles, one line each:\n"
	"            \"- /path: value\" only in A, \"+ /path: value\" only in B;\n"
	"            exit 0 when they are the same, 1 when they differ, 2 on trouble\n"
	"\n"
	"  --workspace DIR      what $WORKSPACE and relative paths mean (default: the\n"
	"                       profile's, else the current directory)\n"
	"  --json               machine-readable output (list, show)\n";

static const char usage_why[] =
	"usage: cordon why [--profile P] [--workspace DIR] --path PATH --op read|write|exec [--json]\n"
	"       cordon why [--profile P] [--workspace DIR] --host HOST [--port N (443)] [--json]\n"
	"\n"
	"Says whether a command confined by profile P (default: the built-in `default`)\n"
	"may do OP on PATH, or connect to HOST:N, and names the rule that decided: the\n"
	"file it is in and its JSON path, or \"(built-in)\" for cordon's own defaults.\n"
	"A relative PATH is taken in the workspace. Exit 0 allowed, 1 denied, 2 trouble.\n"
	"\n"
	"  --json               one object: allow, decision, reason, file, pointer, and\n"
	"                       the question (path and op, or host and port)\n";

const char *cli_usage(enum cli_command c)
{
	switch (c) {
	case CLI_RUN:
		return usage_run;
	case CLI_CONFINE:
		return usage_confine;
	case CLI_CLASSIFY:
		return usage_classify;
	case CLI_PROBE:
		return usage_probe;
	case CLI_EXPLAIN:
		return usage_explain;
	case CLI_PROFILE:
		return usage_profile;
	case CLI_WHY:
		return usage_why;
	case CLI_NONE:
	case CLI_HELP:
	case CLI_VERSION:
		break;
	}
	return usage_overview;
}

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int cli_parse_seconds(const char *s, int *ret_ms)
{
	char *end;
	double v;

	if (!s || !*s || s[0] == '-' || s[0] == '+' || strchr(s, ' '))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v <= 0 || v > 7 * 24 * 3600.0)
		return -EINVAL;
	/* round up so a tiny positive timeout is never "none" */
	double ms = v * 1000.0;
	*ret_ms = (int)ms + ((double)(int)ms < ms);
	return 0;
}

int cli_parse_size(const char *s, uint64_t *ret)
{
	uint64_t v, mult = 1;
	char *end;

	if (!s || !*s || s[0] < '0' || s[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	if (*end) {
		switch (*end) {
		case 'k': case 'K': mult = 1ull << 10; break;
		case 'm': case 'M': mult = 1ull << 20; break;
		case 'g': case 'G': mult = 1ull << 30; break;
		default: return -EINVAL;
		}
		end++;
		if (*end == 'i' && end[1] == 'B')
			end += 2;
		else if (*end == 'B')
			end++;
		if (*end)
			return -EINVAL;
	}
	if (v == 0 || v > (1ull << 40) / mult)
		return -EINVAL;
	*ret = v * mult;
	return 0;
}

void cli_args_done(struct cli_args *a)
{
	strv_free(a->deny_read);
	strv_free(a->protect);
	strv_free(a->allow_unix);
	strv_free(a->keep_env);
	strv_free(a->setenv);
	strv_free(a->require);
	cli_net_done(a);
	strv_free(a->command);
	strv_free(a->operands);
	*a = (struct cli_args){};
}

#define C(x) (1u << (x))
#define POLICY_CMDS (C(CLI_RUN) | C(CLI_CONFINE) | C(CLI_EXPLAIN))
#define LIMIT_CMDS (C(CLI_RUN) | C(CLI_EXPLAIN))

/* A whole number in [min, max]; no sign, no spaces, no suffix. */
static int parse_count(const char *s, uint64_t min, uint64_t max, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (!s || s[0] < '0' || s[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}

static const struct cli_flag flags[] = {
	{ "--profile", POLICY_CMDS | C(CLI_WHY), true },
	{ "--mode", POLICY_CMDS, true },
	{ "--workspace", POLICY_CMDS | C(CLI_PROFILE) | C(CLI_WHY), true },
	{ "--net", POLICY_CMDS, true },
	{ "--backend", POLICY_CMDS, true },
	{ "--isolation", POLICY_CMDS, true },
	{ "--deny-read", POLICY_CMDS, true },
	{ "--protect", POLICY_CMDS, true },
	{ "--allow-unix-socket", POLICY_CMDS, true },
	{ "--allow-domain", POLICY_CMDS, true },
	{ "--deny-domain", POLICY_CMDS, true },
	{ "--allow-address", POLICY_CMDS, true },
	{ "--keep-env", POLICY_CMDS, true },
	{ "--setenv", POLICY_CMDS, true },
	{ "--require", POLICY_CMDS, true },
	{ "--timeout", LIMIT_CMDS, true },
	{ "--max-output", LIMIT_CMDS, true },
	{ "--on-output-limit", LIMIT_CMDS, true },
	{ "--cpu", LIMIT_CMDS, true },
	{ "--memory", LIMIT_CMDS, true },
	{ "--max-processes", LIMIT_CMDS, true },
	{ "--max-file-size", LIMIT_CMDS, true },
	{ "--max-open-files", LIMIT_CMDS, true },
	{ "--limits-fallback", LIMIT_CMDS, true },
	{ "--json", C(CLI_RUN) | C(CLI_CONFINE) | C(CLI_CLASSIFY) | C(CLI_PROBE) | C(CLI_PROFILE) | C(CLI_WHY), false },
	{ "--path", C(CLI_WHY), true },
	{ "--op", C(CLI_WHY), true },
	{ "--host", C(CLI_WHY), true },
	{ "--port", C(CLI_WHY), true },
	{ "--refresh", C(CLI_PROBE), false },
	{ "--confined", C(CLI_CLASSIFY), true },
	{ "--status", C(CLI_CLASSIFY), true },
	{ "--output", C(CLI_CLASSIFY), true },
	{ "--status-records", C(CLI_CLASSIFY), true },
	{ "--help", ~0u, false },
};

static const struct {
	const char *name;
	enum cli_command command;
} commands[] = {
	{ "run", CLI_RUN },
	{ "confine", CLI_CONFINE },
	{ "classify", CLI_CLASSIFY },
	{ "probe", CLI_PROBE },
	{ "explain", CLI_EXPLAIN },
	{ "profile", CLI_PROFILE },
	{ "why", CLI_WHY },
	{ "help", CLI_HELP },
	{ "--help", CLI_HELP },
	{ "-h", CLI_HELP },
	{ "--version", CLI_VERSION },
};

static const struct {
	const char *name;
	enum cli_profile_action action;
	size_t min, max; /* operands */
	const char *operands;
	bool json, workspace;
} profile_actions[] = {
	{ "list", CLI_PROFILE_LIST, 0, 0, "", true, false },
	{ "show", CLI_PROFILE_SHOW, 1, 1, "one profile NAME", true, true },
	{ "validate", CLI_PROFILE_VALIDATE, 1, CLI_MAX_REPEATS, "at least one FILE", false, true },
	{ "schema", CLI_PROFILE_SCHEMA, 0, 0, "", false, false },
	{ "diff", CLI_PROFILE_DIFF, 2, 2, "two profiles A B", false, true },
};

/* The tables, read by gen-completions: completions come from what the parser accepts. */
const struct cli_flag *cli_flag_table(size_t *ret_n)
{
	*ret_n = ELEMENTSOF(flags);
	return flags;
}

const char *cli_command_name(size_t i, enum cli_command *ret)
{
	if (i >= ELEMENTSOF(commands))
		return NULL;
	*ret = commands[i].command;
	return commands[i].name;
}

const char *cli_profile_action_name(size_t i)
{
	return i < ELEMENTSOF(profile_actions) ? profile_actions[i].name : NULL;
}

static int check_profile_args(const struct cli_args *a, char *err, size_t errlen)
{
	size_t n = strv_length(a->operands);

	if (a->action == CLI_PROFILE_NONE)
		return fail(err, errlen, "`cordon profile` needs an action: list, show, validate, schema or diff");
	for (size_t k = 0; k < ELEMENTSOF(profile_actions); k++) {
		if (profile_actions[k].action != a->action)
			continue;
		if (n < profile_actions[k].min || n > profile_actions[k].max) {
			if (profile_actions[k].max == 0)
				return fail(err, errlen, "unexpected argument '%s': `cordon profile %s` takes none",
					    a->operands[0], profile_actions[k].name);
			return fail(err, errlen, "`cordon profile %s` takes %s, got %zu argument%s",
				    profile_actions[k].name, profile_actions[k].operands, n, n == 1 ? "" : "s");
		}
		if (a->json && !profile_actions[k].json)
			return fail(err, errlen, "--json: not available for `cordon profile %s`", profile_actions[k].name);
		if (a->workspace && !profile_actions[k].workspace)
			return fail(err, errlen, "--workspace: not available for `cordon profile %s`",
				    profile_actions[k].name);
	}
	return 0;
}

static int check_why_args(const struct cli_args *a, char *err, size_t errlen)
{
	if (a->operands)
		return fail(err, errlen, "unexpected argument '%s': ask with --path PATH --op OP or --host HOST --port N",
			    a->operands[0]);
	if (!a->why_path == !a->why_host)
		return fail(err, errlen, "`cordon why` needs either --path PATH --op OP or --host HOST --port N");
	if (a->why_path && !a->op_set)
		return fail(err, errlen, "--path needs --op read, write or exec");
	if (a->why_path && a->port_set)
		return fail(err, errlen, "--port goes with --host, not --path");
	if (a->why_host && a->op_set)
		return fail(err, errlen, "--op goes with --path, not --host");
	return 0;
}

static int push_repeat(char ***v, const char *flag, const char *value, char *err, size_t errlen)
{
	if (strv_length(*v) >= CLI_MAX_REPEATS)
		return fail(err, errlen, "%s given more than %d times", flag, CLI_MAX_REPEATS);
	if (!*value)
		return fail(err, errlen, "%s needs a non-empty value", flag);
	return strv_push(v, value);
}

static int apply_flag(struct cli_args *a, const char *name, const char *value, char *err, size_t errlen)
{
	int k = cli_net_flag(a, name, value, err, errlen);

	if (k != 0)
		return k < 0 ? k : 0;
	if (strcmp(name, "--help") == 0) {
		a->help = true;
	} else if (strcmp(name, "--profile") == 0) {
		if (!*value)
			return fail(err, errlen, "--profile needs a profile name or path");
		a->profile = value;
	} else if (strcmp(name, "--path") == 0) {
		if (!*value)
			return fail(err, errlen, "--path needs a path");
		a->why_path = value;
	} else if (strcmp(name, "--op") == 0) {
		if (profile_op_from_string(value, &a->op) < 0)
			return fail(err, errlen, "--op: unknown operation '%s': valid operations are read, write, exec", value);
		a->op_set = true;
	} else if (strcmp(name, "--host") == 0) {
		if (!*value || strlen(value) > 253)
			return fail(err, errlen, "--host: '%.100s' is not a host name or address", value);
		a->why_host = value;
	} else if (strcmp(name, "--port") == 0) {
		uint64_t port;
		if (parse_count(value, 1, 65535, &port) < 0)
			return fail(err, errlen, "--port: '%s' is not a port number from 1 to 65535", value);
		a->port = (unsigned)port;
		a->port_set = true;
	} else if (strcmp(name, "--mode") == 0) {
		enum cordon_mode m;
		if (cordon_mode_from_string(value, &m) < 0)
			return fail(err, errlen,
				    "--mode: unknown mode '%s': valid modes are read-only, workspace-write, danger-full-access",
				    value);
		a->mode = value;
	} else if (strcmp(name, "--workspace") == 0) {
		if (!*value)
			return fail(err, errlen, "--workspace needs a directory");
		a->workspace = value;
	} else if (strcmp(name, "--net") == 0) {
		if (cordon_net_from_string(value, &a->net) < 0)
			return fail(err, errlen, "--net: unknown network setting '%s': valid settings are none, host, proxy", value);
		a->net_set = true;
	} else if (strcmp(name, "--backend") == 0) {
		if (cordon_backend_from_string(value, &a->backend) < 0)
			return fail(err, errlen,
				    "--backend: unknown backend '%s': valid backends are native, bwrap, seatbelt, unavailable",
				    value);
		a->backend_set = true;
	} else if (strcmp(name, "--isolation") == 0) {
		if (cordon_isolation_from_string(value, &a->isolation) < 0)
			return fail(err, errlen, "--isolation: unknown isolation '%s': valid values are full, light", value);
		a->isolation_set = true;
	} else if (strcmp(name, "--deny-read") == 0) {
		return push_repeat(&a->deny_read, name, value, err, errlen);
	} else if (strcmp(name, "--protect") == 0) {
		return push_repeat(&a->protect, name, value, err, errlen);
	} else if (strcmp(name, "--allow-unix-socket") == 0) {
		return push_repeat(&a->allow_unix, name, value, err, errlen);
	} else if (strcmp(name, "--keep-env") == 0) {
		return push_repeat(&a->keep_env, name, value, err, errlen);
	} else if (strcmp(name, "--setenv") == 0) {
		const char *eq = strchr(value, '=');
		if (!eq || eq == value)
			return fail(err, errlen, "--setenv: expected NAME=VALUE, got '%s'", value);
		return push_repeat(&a->setenv, name, value, err, errlen);
	} else if (strcmp(name, "--require") == 0) {
		return push_repeat(&a->require, name, value, err, errlen);
	} else if (strcmp(name, "--timeout") == 0) {
		if (cli_parse_seconds(value, &a->timeout_ms) < 0)
			return fail(err, errlen, "--timeout: '%s' is not a number of seconds greater than 0 (at most one week)", value);
	} else if (strcmp(name, "--max-output") == 0) {
		if (cli_parse_size(value, &a->max_output) < 0 || a->max_output > (1ull << 30))
			return fail(err, errlen, "--max-output: '%s' is not a size between 1 and 1G (suffixes k, M, G)", value);
		a->max_output_set = true;
	} else if (strcmp(name, "--on-output-limit") == 0) {
		if (strcmp(value, "truncate") != 0 && strcmp(value, "terminate") != 0)
			return fail(err, errlen, "--on-output-limit: '%s' is not truncate or terminate", value);
		a->output_terminate = value[1] == 'e';
		a->output_action_set = true;
	} else if (strcmp(name, "--limits-fallback") == 0) {
		if (strcmp(value, "warn") != 0 && strcmp(value, "fail") != 0)
			return fail(err, errlen, "--limits-fallback: '%s' is not warn or fail", value);
		a->limits.fallback_fail = value[0] == 'f';
		a->fallback_set = true;
	} else if (strcmp(name, "--cpu") == 0) {
		if (parse_count(value, 1, 7 * 24 * 3600, &a->limits.cpu_seconds) < 0)
			return fail(err, errlen, "--cpu: '%s' is not a whole number of CPU seconds from 1 to 604800", value);
		a->limits_set = true;
	} else if (strcmp(name, "--memory") == 0) {
		if (cli_parse_size(value, &a->limits.memory) < 0 || a->limits.memory < (1ull << 20))
			return fail(err, errlen, "--memory: '%s' is not a size between 1M and 1T (suffixes k, M, G)", value);
		a->limits_set = true;
	} else if (strcmp(name, "--max-processes") == 0) {
		/* the runner and its init count too */
		if (parse_count(value, 4, 4194304, &a->limits.processes) < 0)
			return fail(err, errlen, "--max-processes: '%s' is not a whole number from 4 to 4194304", value);
		a->limits_set = true;
	} else if (strcmp(name, "--max-file-size") == 0) {
		if (cli_parse_size(value, &a->limits.file_size) < 0)
			return fail(err, errlen, "--max-file-size: '%s' is not a size between 1 and 1T (suffixes k, M, G)", value);
		a->limits_set = true;
	} else if (strcmp(name, "--max-open-files") == 0) {
		/* below 16 the runner cannot set the sandbox up */
		if (parse_count(value, 16, 1048576, &a->limits.open_files) < 0)
			return fail(err, errlen, "--max-open-files: '%s' is not a whole number from 16 to 1048576", value);
		a->limits_set = true;
	} else if (strcmp(name, "--json") == 0) {
		a->json = true;
	} else if (strcmp(name, "--refresh") == 0) {
		a->refresh = true;
	} else if (strcmp(name, "--confined") == 0) {
		a->confined_file = value;
	} else if (strcmp(name, "--output") == 0) {
		a->output_file = value;
	} else if (strcmp(name, "--status-records") == 0) {
		a->status_records_file = value;
	} else if (strcmp(name, "--status") == 0) {
		char *end;
		long v;
		errno = 0;
		v = strtol(value, &end, 10);
		if (errno || !*value || *end || v < 0 || v > 255 + 128)
			return fail(err, errlen, "--status: '%s' is not an exit status (0-383)", value);
		a->status = (int)v;
		a->status_set = true;
	}
	return 0;
}

int cli_parse(int argc, char *const *argv, struct cli_args *ret, char *err, size_t errlen)
{
	struct cli_args a = {};
	int i = 2, r;

	if (argc < 2)
		return fail(err, errlen, "no command given; try `cordon --help`");
	for (size_t k = 0; k < ELEMENTSOF(commands); k++)
		if (strcmp(argv[1], commands[k].name) == 0)
			a.sub = commands[k].command;
	if (a.sub == CLI_NONE)
		return fail(err, errlen, "unknown command '%s'; try `cordon --help`", argv[1]);
	if (a.sub == CLI_HELP || a.sub == CLI_VERSION) {
		*ret = a;
		return 0;
	}
	if (a.sub == CLI_PROFILE && argc > 2 && argv[2][0] != '-') {
		for (size_t k = 0; k < ELEMENTSOF(profile_actions); k++)
			if (strcmp(argv[2], profile_actions[k].name) == 0)
				a.action = profile_actions[k].action;
		if (a.action == CLI_PROFILE_NONE)
			return fail(err, errlen,
				    "unknown profile action '%s': valid actions are list, show, validate, schema, diff", argv[2]);
		i = 3;
	}

	for (; i < argc; i++) {
		const char *arg = argv[i], *value = NULL;
		const struct cli_flag *f = NULL;
		_cleanup_free_ char *name = NULL;

		if (strcmp(arg, "--") == 0) {
			i++;
			break;
		}
		if (arg[0] != '-' && (a.sub == CLI_PROFILE || a.sub == CLI_WHY)) {
			/* operands may come before, between or after flags */
			if (strv_length(a.operands) >= CLI_MAX_REPEATS) {
				r = fail(err, errlen, "too many arguments");
				goto bad;
			}
			r = strv_push(&a.operands, arg);
			if (r < 0)
				goto bad;
			continue;
		}
		if (arg[0] != '-')
			break; /* the command starts here */

		const char *eq = strchr(arg, '=');
		name = eq ? strndup(arg, (size_t)(eq - arg)) : strdup(arg);
		if (!name) {
			cli_args_done(&a);
			return -ENOMEM;
		}
		for (size_t k = 0; k < ELEMENTSOF(flags); k++)
			if (strcmp(flags[k].name, name) == 0)
				f = &flags[k];
		if (!f || !(f->commands & C(a.sub))) {
			r = fail(err, errlen, "%s: unknown option for `cordon %s`; try `cordon %s --help`", name, argv[1], argv[1]);
			goto bad;
		}
		if (f->has_value) {
			if (eq)
				value = eq + 1;
			else if (i + 1 < argc)
				value = argv[++i];
			else {
				r = fail(err, errlen, "%s needs a value", name);
				goto bad;
			}
		} else if (eq) {
			r = fail(err, errlen, "%s takes no value", name);
			goto bad;
		}
		r = apply_flag(&a, name, value, err, errlen);
		if (r < 0)
			goto bad;
	}
	if (a.help) {
		*ret = a;
		return 0;
	}

	for (; i < argc; i++) {
		char ***v = a.sub == CLI_PROFILE || a.sub == CLI_WHY ? &a.operands : &a.command;

		if (strv_length(*v) >= 65536) {
			r = fail(err, errlen, "the command has too many arguments");
			goto bad;
		}
		r = strv_push(v, argv[i]);
		if (r < 0)
			goto bad;
	}

	switch (a.sub) {
	case CLI_RUN:
	case CLI_CONFINE:
	case CLI_EXPLAIN:
		if (!a.command || !a.command[0][0]) {
			r = fail(err, errlen, "no command to run: put it after `--`, e.g. `cordon %s -- ls`", argv[1]);
			goto bad;
		}
		break;
	case CLI_CLASSIFY:
		if (!a.confined_file) {
			r = fail(err, errlen, "--confined FILE is required");
			goto bad;
		}
		if (!a.status_set) {
			r = fail(err, errlen, "--status N is required");
			goto bad;
		}
		_fallthrough_;
	case CLI_PROBE:
		if (a.command) {
			r = fail(err, errlen, "unexpected argument '%s'", a.command[0]);
			goto bad;
		}
		break;
	case CLI_PROFILE:
		r = check_profile_args(&a, err, errlen);
		if (r < 0)
			goto bad;
		break;
	case CLI_WHY:
		r = check_why_args(&a, err, errlen);
		if (r < 0)
			goto bad;
		break;
	case CLI_NONE:
	case CLI_HELP:
	case CLI_VERSION:
		break;
	}
	*ret = a;
	return 0;
bad:
	cli_args_done(&a);
	return r;
}

/* ---- bodies ---- */

#define EXIT_REFUSED CORDON_EXIT_RUNNER_FAILED /* 125: cordon refused or failed before the command ran */

#define say cli_say

void cli_say(const char *fmt, ...)
{
	va_list ap;

	fputs("cordon: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_policy *, cordon_policy_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_confined *, cordon_confined_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_result *, cordon_result_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_profile *, profile_free)

#define HAS_LIMIT(l, k) (((l)->set & (1u << PROFILE_LIMIT_##k)) != 0)

int cli_apply_profile_limits(struct cli_args *a, const struct cordon_profile *p, char *err, size_t errlen)
{
	const struct profile_limits *l = &p->limits;

	if (HAS_LIMIT(l, TIMEOUT) && !a->timeout_ms)
		a->timeout_ms = (int)(l->timeout_seconds * 1000); /* at most a week: fits */
	if (HAS_LIMIT(l, CPU) && !a->limits.cpu_seconds) {
		a->limits.cpu_seconds = l->cpu_seconds;
		a->limits_set = true;
	}
	if (HAS_LIMIT(l, MEMORY) && !a->limits.memory) {
		a->limits.memory = l->memory;
		a->limits_set = true;
	}
	if (HAS_LIMIT(l, MAX_PROCESSES) && !a->limits.processes) {
		/* the runner and its init count too (as for --max-processes) */
		if (l->max_processes < 4)
			return fail(err, errlen, "%s: at %s: limits.max_processes %" PRIu64
				    " is too few: the runner itself needs 4; give at least 4",
				    l->origin[PROFILE_LIMIT_MAX_PROCESSES].file,
				    l->origin[PROFILE_LIMIT_MAX_PROCESSES].pointer, l->max_processes);
		a->limits.processes = l->max_processes;
		a->limits_set = true;
	}
	if (HAS_LIMIT(l, MAX_FILE_SIZE) && !a->limits.file_size) {
		a->limits.file_size = l->max_file_size;
		a->limits_set = true;
	}
	if (HAS_LIMIT(l, MAX_OPEN_FILES) && !a->limits.open_files) {
		/* below 16 the runner cannot set the sandbox up */
		if (l->max_open_files < 16)
			return fail(err, errlen, "%s: at %s: limits.max_open_files %" PRIu64
				    " is too few: the runner needs 16 to set the sandbox up; give at least 16",
				    l->origin[PROFILE_LIMIT_MAX_OPEN_FILES].file,
				    l->origin[PROFILE_LIMIT_MAX_OPEN_FILES].pointer, l->max_open_files);
		a->limits.open_files = l->max_open_files;
		a->limits_set = true;
	}
	if (HAS_LIMIT(l, MAX_OUTPUT) && !a->max_output_set) {
		a->max_output = l->max_output;
		a->max_output_set = true;
	}
	if (HAS_LIMIT(l, ON_OUTPUT_LIMIT) && !a->output_action_set)
		a->output_terminate = l->on_output_limit == PROFILE_OUTPUT_KILL;
	if (HAS_LIMIT(l, FALLBACK) && !a->fallback_set)
		a->limits.fallback_fail = l->fallback_fail;
	return 0;
}

/* --profile P, else the embedded default: never a file, so what runs without
 * --profile is exactly what is compiled in. */
static int load_profile(const struct cli_args *a, struct cordon_profile **ret)
{
	struct profile_env env = { .workspace = a->workspace };
	struct cordon_error e = {};
	int r;

	if (!a->profile) {
		env.user_profile_dir = "";
		env.data_profile_dir = "";
	}
	r = profile_load(a->profile ?: "default", &env, ret, &e);
	if (r < 0)
		say("%s", e.message[0] ? e.message : strerror(-r));
	return r;
}

/* The profile, then the flags on top: scalars replace, lists add. */
static int build_policy(const struct cli_args *a, const struct cordon_profile *prof, struct cordon_policy **ret)
{
	_cleanup_(cordon_policy_freep) struct cordon_policy *p = NULL;
	struct cordon_profile q = *prof; /* a shallow copy: prof itself stays untouched */
	struct cordon_error e = {};
	int r;

	if (a->mode) {
		(void)cordon_mode_from_string(a->mode, &q.mode);
		/* only workspace-write has write grants; read-only writes nothing */
		if (q.mode != CORDON_MODE_WORKSPACE_WRITE)
			q.write = (struct profile_rules){};
	}
	r = profile_apply(&q, &p, &e);
	if (r < 0) {
		say("%s", e.message);
		return r;
	}
	if (a->net_set)
		cordon_policy_set_net(p, a->net);
	if (a->isolation_set)
		cordon_policy_set_isolation(p, a->isolation);
	STRV_FOREACH(s, a->deny_read)
		if ((r = cordon_policy_deny_read(p, *s, &e)) < 0)
			goto bad;
	STRV_FOREACH(s, a->protect)
		if ((r = cordon_policy_protect(p, *s, &e)) < 0)
			goto bad;
	STRV_FOREACH(s, a->allow_unix)
		if ((r = cordon_policy_allow_unix_socket(p, *s, &e)) < 0)
			goto bad;
	STRV_FOREACH(s, a->keep_env)
		if ((r = cordon_policy_keep_env(p, *s, &e)) < 0)
			goto bad;
	STRV_FOREACH(s, a->setenv) {
		_cleanup_free_ char *name = strndup(*s, strcspn(*s, "="));
		if (!name)
			return -ENOMEM;
		if ((r = cordon_policy_set_env(p, name, *s + strlen(name) + 1, &e)) < 0)
			goto bad;
	}
	STRV_FOREACH(s, a->require)
		if ((r = cordon_policy_require(p, *s, &e)) < 0)
			goto bad;
	if ((r = cli_net_apply(a, p)) < 0)
		return r;
	*ret = TAKE_PTR(p);
	return 0;
bad:
	say("%s", e.message);
	return r;
}

static int select_backend(const struct cli_args *a, struct cordon_backend_info *ret)
{
	int r;

	if (a->backend_set)
		cordon_pin_backend(a->backend);
	r = cordon_backend_select(CORDON_SELECT_DISK_CACHE, ret);
	if (r == -EINVAL)
		say("CORDON_BACKEND='%s' is not a backend: valid backends are native, bwrap, seatbelt, unavailable",
		    getenv("CORDON_BACKEND") ?: "");
	else if (r < 0)
		say("cannot select a sandbox backend: %s", strerror(-r));
	return r;
}

/* Policy -> backend -> confined, or a message and a negative code. */
static int confine_from_args(const struct cli_args *a, const struct cordon_profile *prof,
			     struct cordon_backend_info *ret_info, struct cordon_confined **ret)
{
	_cleanup_(cordon_policy_freep) struct cordon_policy *p = NULL;
	struct cordon_backend_info info = { .backend = CORDON_BACKEND_UNAVAILABLE };
	struct cordon_error e = {};
	int r;

	r = build_policy(a, prof, &p);
	if (r < 0)
		return r;
	if (cordon_policy_mode(p) != CORDON_MODE_DANGER_FULL_ACCESS) {
		r = select_backend(a, &info);
		if (r < 0)
			return r;
	}
	r = cordon_confine_with(&info, (const char *const *)a->command, p, ret, &e);
	if (r < 0) {
		say("%s", e.message[0] ? e.message : strerror(-r));
		return r;
	}
	if (ret_info)
		*ret_info = info;
	return 0;
}

char *utf8_sanitize(const char *s, size_t len, size_t *ret_len)
{
	/* worst case: every byte becomes the 3-byte U+FFFD */
	char *out = malloc(len * 3 + 1), *o = out;
	size_t i = 0;

	if (!out)
		return NULL;
	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		size_t n = 0;
		uint32_t cp = 0;

		if (c < 0x80)
			n = 1, cp = c;
		else if ((c & 0xe0) == 0xc0)
			n = 2, cp = c & 0x1f;
		else if ((c & 0xf0) == 0xe0)
			n = 3, cp = c & 0x0f;
		else if ((c & 0xf8) == 0xf0)
			n = 4, cp = c & 0x07;
		bool ok = n > 0 && i + n <= len;
		for (size_t k = 1; ok && k < n; k++) {
			unsigned char cc = (unsigned char)s[i + k];
			if ((cc & 0xc0) != 0x80)
				ok = false;
			cp = (cp << 6) | (cc & 0x3f);
		}
		/* no overlongs, surrogates or values past U+10FFFF */
		if (ok && ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
			   (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff))
			ok = false;
		if (ok) {
			memcpy(o, s + i, n);
			o += n;
			i += n;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	*o = '\0';
	if (ret_len)
		*ret_len = (size_t)(o - out);
	return out;
}

static json_t *json_text(const char *s, size_t len)
{
	_cleanup_free_ char *clean = NULL;
	size_t n;

	if (!s)
		return json_null();
	clean = utf8_sanitize(s, len, &n);
	return clean ? json_stringn(clean, n) : NULL;
}

static int print_json(json_t *o)
{
	if (!o || json_dumpf(o, stdout, JSON_COMPACT | JSON_ENSURE_ASCII) < 0)
		return -ENOMEM;
	fputc('\n', stdout);
	fflush(stdout);
	return 0;
}

static int exit_status_of(const struct cordon_result *res)
{
	if (res->verdict == CORDON_VERDICT_TIMEOUT)
		return CORDON_EXIT_TIMEOUT;
	if (res->signal)
		return 128 + res->signal;
	return res->exit_code;
}

static void print_unavailable_json(const char *message)
{
	_cleanup_(json_decrefp) json_t *o = json_pack("{s:n,s:n,s:s,s:n,s:s,s:b,s:i,s:s,s:n,s:s}",
		"exit_code", "signal", "verdict", "unavailable", "runner_line", "output", "",
		"truncated", 0, "duration_ms", 0, "enforcement", "none", "grade", "message", message);
	print_json(o);
}

static bool limit_is_set(const struct cli_args *a, enum cordon_limit k)
{
	switch (k) {
	case CORDON_LIMIT_TIMEOUT:
		return a->timeout_ms > 0;
	case CORDON_LIMIT_CPU:
		return a->limits.cpu_seconds > 0;
	case CORDON_LIMIT_MEMORY:
		return a->limits.memory > 0;
	case CORDON_LIMIT_PROCESSES:
		return a->limits.processes > 0;
	case CORDON_LIMIT_FILE_SIZE:
		return a->limits.file_size > 0;
	case CORDON_LIMIT_OPEN_FILES:
		return a->limits.open_files > 0;
	case CORDON_LIMIT_OUTPUT:
		return a->max_output_set;
	case CORDON_LIMIT_NONE:
	case _CORDON_LIMIT_MAX:
		break;
	}
	return false;
}

/* The one interactive line saying which limit ended the command. */
static void say_limit(const struct cli_args *a, const struct cordon_result *res)
{
	const char *how = cordon_limit_mechanism_to_string(res->limit_mechanism);

	switch (res->limit) {
	case CORDON_LIMIT_CPU:
		say("CPU limit of %" PRIu64 " s reached (%s); the process was killed", a->limits.cpu_seconds, how);
		break;
	case CORDON_LIMIT_MEMORY:
		say("memory limit of %" PRIu64 " bytes reached (%s)%s", a->limits.memory, how,
		    res->signal == SIGKILL ? "; the command was killed" : "");
		break;
	case CORDON_LIMIT_PROCESSES:
		say("process limit of %" PRIu64 " reached (%s); forks beyond it were refused", a->limits.processes, how);
		break;
	case CORDON_LIMIT_FILE_SIZE:
		say("file size limit of %" PRIu64 " bytes reached (%s); writes beyond it failed with EFBIG",
		    a->limits.file_size, how);
		break;
	case CORDON_LIMIT_OPEN_FILES:
		say("open files limit of %" PRIu64 " reached (%s)", a->limits.open_files, how);
		break;
	case CORDON_LIMIT_OUTPUT:
		say("output limit of %" PRIu64 " bytes reached; the command and everything it started were killed",
		    a->max_output);
		break;
	case CORDON_LIMIT_TIMEOUT:
	case CORDON_LIMIT_NONE:
	case _CORDON_LIMIT_MAX:
		break;
	}
}

/* The signal that asked cordon run to stop; cordon_run polls it. */
static volatile sig_atomic_t run_stop_signal;

static void on_stop_signal(int sig)
{
	run_stop_signal = sig;
}

int cli_run(const struct cli_args *a)
{
	_cleanup_(cordon_confined_freep) struct cordon_confined *c = NULL;
	_cleanup_(cordon_result_freep) struct cordon_result *res = NULL;
	struct cordon_backend_info info;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit, old_term, old_hup;
	struct sigaction stop = { .sa_handler = on_stop_signal }; /* no SA_RESTART: poll wakes */
	_cleanup_(profile_freep) struct cordon_profile *prof = NULL;
	struct cli_args eff;
	char err[512];
	int r;

	r = load_profile(a, &prof);
	if (r < 0)
		return EXIT_REFUSED;
	/* the profile's limits under the flags: from here on, a is the merge */
	eff = *a;
	r = cli_apply_profile_limits(&eff, prof, err, sizeof(err));
	if (r < 0) {
		say("%s", err);
		return EXIT_REFUSED;
	}
	a = &eff;

	r = confine_from_args(a, prof, &info, &c);
	if (r < 0) {
		if (a->json && r == CORDON_SANDBOX_UNAVAILABLE)
			print_unavailable_json("no sandbox backend can enforce this policy here; nothing was run");
		return EXIT_REFUSED;
	}

	/* Limits that cannot be enforced are refused before anything runs;
	 * a weaker mechanism is used only with a word about it. */
	struct cordon_limits_plan plan;
	struct cordon_error e = {};
	r = cordon_limits_check(a->limits_set ? &a->limits : NULL, c, &plan, &e);
	if (r < 0) {
		say("%s", e.message);
		return EXIT_REFUSED;
	}
	if (plan.warning[0])
		say("warning: %s", plan.warning);

	/* Orphans the command leaves behind come back to us, and we end them. */
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	/* Like system(3): ^C belongs to the command; we report how it ended.
	 * In --json mode ^C, like SIGTERM and SIGHUP in both modes, stops
	 * the run: the whole tree is killed, then we exit 128+sig. (SIGKILL
	 * of cordon: the children's parent-death signals end the tree.) */
	sigfillset(&stop.sa_mask);
	if (!a->json) {
		sigaction(SIGINT, &ign, &old_int);
		sigaction(SIGQUIT, &ign, &old_quit);
	} else
		sigaction(SIGINT, &stop, &old_int);
	sigaction(SIGTERM, &stop, &old_term);
	sigaction(SIGHUP, &stop, &old_hup);
	fflush(stdout);
	fflush(stderr);

	struct cordon_run_opts o = {
		.timeout_ms = a->timeout_ms,
		.max_output = a->max_output,
		.passthrough = !a->json,
		/* we are single-threaded and link the runner: enter it in the
		 * child instead of exec'ing ourselves again */
		.runner_main = cordon_exec_main,
		.passthrough_max_output = !a->json && a->max_output_set ? a->max_output : 0,
		.output_terminate = a->output_terminate,
		.limits = a->limits_set ? &a->limits : NULL,
		.stop = &run_stop_signal,
	};
	r = cordon_run(c, &o, &res);
	kill_descendants(getpid());
	sigaction(SIGINT, &old_int, NULL);
	if (!a->json)
		sigaction(SIGQUIT, &old_quit, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	if (run_stop_signal) {
		int sig = run_stop_signal;

		say("stopped by SIG%s: the command and everything it started were killed", sigabbrev_np(sig) ?: "?");
		return 128 + sig;
	}
	if (r < 0) {
		say("cannot run %s: %s", c->argv[0], strerror(-r));
		return EXIT_REFUSED;
	}

	if (a->json) {
		_cleanup_(json_decrefp) json_t *obj = json_object();
		json_t *jo = json_text(res->output, res->output_len);

		if (!obj || !jo)
			return EXIT_REFUSED;
		json_object_set_new(obj, "exit_code",
				    res->verdict == CORDON_VERDICT_TIMEOUT ? json_integer(CORDON_EXIT_TIMEOUT)
				    : res->signal ? json_null() : json_integer(res->exit_code));
		json_object_set_new(obj, "signal", res->signal ? json_integer(res->signal) : json_null());
		json_object_set_new(obj, "verdict", json_string(cordon_verdict_to_string(res->verdict)));
		json_object_set_new(obj, "runner_line", res->runner_line ? json_text(res->runner_line, strlen(res->runner_line)) : json_null());
		json_object_set_new(obj, "output", jo);
		json_object_set_new(obj, "denials", cli_net_denials(res->output, res->output_len));
		json_object_set_new(obj, "output_bytes", json_integer((json_int_t)res->output_total));
		json_object_set_new(obj, "truncated", json_boolean(res->truncated));
		json_object_set_new(obj, "duration_ms", json_integer((json_int_t)res->duration_ms));
		json_object_set_new(obj, "mode", json_string(cordon_mode_to_string(res->mode)));
		json_object_set_new(obj, "enforcement", json_string(cordon_enforcement_to_string(res->enforcement)));
		json_object_set_new(obj, "grade", res->enforcement == CORDON_ENFORCEMENT_NONE ? json_null()
				    : json_string(cordon_grade_to_string(res->grade)));
		json_object_set_new(obj, "backend_from_cache", json_boolean(info.from_cache));
		json_object_set_new(obj, "limit", res->limit == CORDON_LIMIT_NONE ? json_null()
				    : json_string(cordon_limit_to_string(res->limit)));
		json_object_set_new(obj, "limit_mechanism", res->limit == CORDON_LIMIT_NONE ? json_null()
				    : json_string(cordon_limit_mechanism_to_string(res->limit_mechanism)));
		json_t *mech = json_object();
		for (int k = CORDON_LIMIT_TIMEOUT; k < _CORDON_LIMIT_MAX; k++)
			if (limit_is_set(a, (enum cordon_limit)k))
				json_object_set_new(mech, cordon_limit_to_string((enum cordon_limit)k),
						    json_string(cordon_limit_mechanism_to_string(res->limits.mechanism[k])));
		json_object_set_new(obj, "limits", mech);
		json_object_set_new(obj, "limits_warning", res->limits.warning[0] ? json_string(res->limits.warning) : json_null());
		if (print_json(obj) < 0)
			return EXIT_REFUSED;
	} else {
		switch (res->verdict) {
		case CORDON_VERDICT_DENIED:
			fprintf(stderr, "[cordon: access denied under %s mode]\n", cordon_mode_to_string(res->mode));
			break;
		case CORDON_VERDICT_RUNNER_FAILED:
			fprintf(stderr, "[cordon: the %s runner reported an error, so the command may never have run: %s]\n",
				cordon_enforcement_to_string(res->enforcement), res->runner_line);
			break;
		case CORDON_VERDICT_TIMEOUT:
			say("timed out after %d ms; the command and everything it started were killed", a->timeout_ms);
			break;
		case CORDON_VERDICT_LIMIT_EXCEEDED:
			say_limit(a, res);
			break;
		case CORDON_VERDICT_OK:
			if (res->limit == CORDON_LIMIT_OUTPUT)
				say("output limit reached: at most %" PRIu64 " bytes of stdout and of stderr were shown, the rest "
				    "was counted and dropped", a->max_output);
			break;
		case CORDON_VERDICT_UNAVAILABLE:
			break;
		}
	}
	return exit_status_of(res);
}

int cli_confine(const struct cli_args *a)
{
	_cleanup_(cordon_confined_freep) struct cordon_confined *c = NULL;
	_cleanup_free_ char *json = NULL;
	_cleanup_(profile_freep) struct cordon_profile *prof = NULL;
	struct cordon_backend_info info;
	int r;

	r = load_profile(a, &prof);
	if (r < 0)
		return 2;
	/* The confined argv cannot carry limits: cordon run applies them. */
	if (prof->limits.set & ~(1u << PROFILE_LIMIT_FALLBACK)) {
		say("profile %s sets limits, which only `cordon run` enforces (the confined argv cannot carry them): "
		    "use `cordon run --profile`, or a profile without limits", prof->name);
		return 2;
	}
	r = confine_from_args(a, prof, &info, &c);
	if (r < 0)
		return r == CORDON_SANDBOX_UNAVAILABLE ? EXIT_REFUSED : 2;
	r = cordon_confined_to_json(c, &json);
	if (r < 0) {
		say("cannot encode the confined value: %s", strerror(-r));
		return 1;
	}
	puts(json);
	return 0;
}

int cli_classify(const struct cli_args *a)
{
	_cleanup_(cordon_confined_freep) struct cordon_confined *c = NULL;
	_cleanup_free_ char *cj = NULL, *out = NULL, *rec = NULL;
	struct cordon_classification cls = {};
	struct cordon_error e = {};
	size_t cl = 0, ol = 0, rl = 0;
	int r;

	r = read_file_capped(a->confined_file, CLI_CONFINED_MAX, false, &cj, &cl);
	if (r < 0) {
		say("--confined %s: %s", a->confined_file, r == -EFBIG ? "larger than 1 MiB" : strerror(-r));
		return 2;
	}
	r = cordon_confined_from_json(cj, cl, &c, &e);
	if (r < 0) {
		if (e.line > 0)
			say("%s:%d:%d: %s", a->confined_file, e.line, e.column, e.message);
		else
			say("%s: %s", a->confined_file, e.message);
		return 2;
	}
	if (a->output_file) {
		r = read_file_capped(a->output_file, CLI_CLASSIFY_MAX_OUTPUT, false, &out, &ol);
		if (r < 0) {
			say("--output %s: %s", a->output_file, r == -EFBIG ? "larger than 256 MiB" : strerror(-r));
			return 2;
		}
	}
	/* With a status channel only its records say "runner failed": without
	 * them no verdict could tell, so none is given. */
	if (c->status_format != CORDON_STATUS_NONE && !a->status_records_file) {
		say("%s reports runner failures on fd %d: pass what was written there with --status-records FILE "
		    "(an empty file if nothing)", a->confined_file, c->status_fd);
		return 2;
	}
	if (a->status_records_file) {
		r = read_file_capped(a->status_records_file, CLI_CONFINED_MAX, false, &rec, &rl);
		if (r < 0) {
			say("--status-records %s: %s", a->status_records_file,
			    r == -EFBIG ? "larger than 1 MiB" : strerror(-r));
			return 2;
		}
	}
	r = cordon_classify_status(c, a->status, rec, rl, out ?: "", ol, &cls);
	if (r < 0) {
		say("cannot classify: %s", strerror(-r));
		return 1;
	}
	if (a->json) {
		_cleanup_(json_decrefp) json_t *o = json_pack("{s:s,s:o}", "verdict", cordon_verdict_to_string(cls.verdict),
							      "runner_line", cls.line ? json_text(cls.line, strlen(cls.line)) : json_null());
		print_json(o);
	} else if (cls.line)
		printf("%s: %s\n", cordon_verdict_to_string(cls.verdict), cls.line);
	else
		printf("%s\n", cordon_verdict_to_string(cls.verdict));
	free(cls.line);
	return 0;
}

/* Kernel facts, gathered without trusting any one probe. */
static int userns_works(void)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -errno;
	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) == 0 ? 0 : 1);
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static bool seccomp_available(void)
{
	return access("/proc/sys/kernel/seccomp/actions_avail", R_OK) == 0;
}

int cli_probe(const struct cli_args *a)
{
	_cleanup_(json_decrefp) json_t *arr = json_array();
	struct cordon_backend_info info;
	unsigned select_flags = CORDON_SELECT_DISK_CACHE | (a->refresh ? CORDON_SELECT_REFRESH : 0);
	int r, abi = kernel_landlock_abi(), userns = userns_works();
	bool sc = seccomp_available();

	struct cordon_limits_probe lp = {};
	(void)cordon_limits_probe(&lp);
	/* how --cpu would be counted: the check says */
	struct cordon_limits_plan cpu_plan = {};
	(void)cordon_limits_check(&(struct cordon_limits){ .cpu_seconds = 1 }, NULL, &cpu_plan, NULL);
	enum cordon_limit_mechanism cpu_m = cpu_plan.mechanism[CORDON_LIMIT_CPU];
	if (!a->json) {
		printf("kernel: landlock ABI %d, user namespaces %s, seccomp %s\n", abi,
		       userns > 0 ? "usable" : "unusable", sc ? "available" : "unavailable");
		printf("limits: memory by %s, processes by %s, cpu by %s; file size and open files by rlimits\n",
		       lp.cgroup2 ? "cgroup v2" : lp.cgroup1_memory ? "cgroup v1" : "RLIMIT_AS (weaker: per process)",
		       lp.cgroup2 ? "cgroup v2" : lp.cgroup1_pids ? "cgroup v1" : "nothing (--max-processes is refused)",
		       cpu_m == CORDON_MECHANISM_CGROUP2 ? "cgroup v2 (the whole run)"
		       : cpu_m == CORDON_MECHANISM_CGROUP1 ? "cgroup v1 cpuacct (the whole run)"
		       : "RLIMIT_CPU (weaker: per process)");
		if (!lp.cgroup2)
			printf("  cgroup v2 unused: %s\n", lp.cgroup2_reason);
		if (!lp.cgroup1_memory || !lp.cgroup1_pids)
			printf("  cgroup v1 %s: %s\n", lp.cgroup1_memory || lp.cgroup1_pids ? "partly usable" : "unused",
			       lp.cgroup1_reason);
	}

	for (const enum cordon_backend *b = cordon_backend_chain(); *b != CORDON_BACKEND_UNAVAILABLE; b++) {
		struct cordon_probe_report rep;

		r = cordon_probe_backend(*b, 2000, &rep);
		if (r < 0) {
			say("probing %s failed: %s", cordon_backend_to_string(*b), strerror(-r));
			return 1;
		}
		if (a->json)
			json_array_append_new(arr, json_pack("{s:s,s:b,s:s?,s:s,s:s,s:I}",
				"backend", cordon_backend_to_string(rep.backend), "usable", rep.usable,
				"grade", rep.usable ? cordon_grade_to_string(rep.grade) : NULL,
				"path", rep.path, "reason", rep.reason, "duration_us", (json_int_t)rep.duration_us));
		else if (rep.usable)
			printf("backend %-9s usable, grade %s (%s, %.1f ms)%s%s\n", cordon_backend_to_string(rep.backend),
			       cordon_grade_to_string(rep.grade), rep.path, rep.duration_us / 1000.0,
			       rep.reason[0] ? ": " : "", rep.reason);
		else
			printf("backend %-9s unusable: %s\n", cordon_backend_to_string(rep.backend), rep.reason);
	}

	if (a->backend_set)
		cordon_pin_backend(a->backend);
	r = cordon_backend_select(select_flags, &info);
	if (r < 0) {
		say("cannot select a backend: %s", strerror(-r));
		return 1;
	}
	if (a->json) {
		_cleanup_(json_decrefp) json_t *o = json_pack("{s:o,s:s,s:s?,s:b,s:b,s:{s:i,s:b,s:b},s:{s:s,s:s,s:s,s:s,s:s,s:b,s:b,s:b,s:s,s:s}}",
			"backends", json_incref(arr),
			"selected", cordon_backend_to_string(info.backend),
			"grade", info.backend == CORDON_BACKEND_UNAVAILABLE ? NULL : cordon_grade_to_string(info.grade),
			"pinned", info.pinned, "from_cache", info.from_cache,
			"kernel", "landlock_abi", abi, "user_namespaces", userns > 0, "seccomp", sc,
			"limits",
			"memory", lp.cgroup2 ? "cgroup2" : lp.cgroup1_memory ? "cgroup1" : "rlimit",
			"processes", lp.cgroup2 ? "cgroup2" : lp.cgroup1_pids ? "cgroup1" : "none",
			"cpu", cordon_limit_mechanism_to_string(cpu_m), "file_size", "rlimit", "open_files", "rlimit",
			"cgroup2", lp.cgroup2, "cgroup1_memory", lp.cgroup1_memory, "cgroup1_pids", lp.cgroup1_pids,
			"cgroup2_reason", lp.cgroup2_reason, "cgroup1_reason", lp.cgroup1_reason);
		print_json(o);
	} else if (info.backend == CORDON_BACKEND_UNAVAILABLE)
		printf("selected: unavailable — cordon will refuse to run anything except --mode danger-full-access\n");
	else
		printf("selected: %s, grade %s%s%s\n", cordon_backend_to_string(info.backend),
		       cordon_grade_to_string(info.grade), info.pinned ? " (pinned)" : "",
		       info.from_cache ? " (from the probe cache)" : "");
	return info.backend == CORDON_BACKEND_UNAVAILABLE ? 1 : 0;
}

/* The limits, in words, as cordon run would enforce them here. */
static int explain_limits(const struct cli_args *a, const struct cordon_confined *c)
{
	struct cordon_limits_plan plan;
	struct cordon_error e = {};
	int r;

	if (!a->limits_set && !a->timeout_ms && !a->max_output_set)
		return 0;
	r = cordon_limits_check(a->limits_set ? &a->limits : NULL, c, &plan, &e);
	if (r < 0) {
		printf("limits: cordon run would refuse: %s\n", e.message);
		return 0;
	}
	printf("limits (applied by cordon run before the runner starts, inherited by everything it starts):\n");
	if (a->timeout_ms)
		printf("  wall clock %d ms: then the command and everything it started are killed (exit 124)\n",
		       a->timeout_ms);
	if (a->limits.cpu_seconds && plan.mechanism[CORDON_LIMIT_CPU] == CORDON_MECHANISM_RLIMIT)
		printf("  %" PRIu64 " CPU seconds per process (RLIMIT_CPU; weaker: no cgroup here counts the run): "
		       "SIGKILL at the limit (exit 137)\n", a->limits.cpu_seconds);
	else if (a->limits.cpu_seconds)
		printf("  %" PRIu64 " CPU seconds for the whole run (%s CPU accounting, checked every 50 ms): then the "
		       "command and everything it started are killed (exit 137)\n", a->limits.cpu_seconds,
		       plan.mechanism[CORDON_LIMIT_CPU] == CORDON_MECHANISM_CGROUP2 ? "cgroup v2" : "cgroup v1");
	if (a->limits.memory)
		printf("  %" PRIu64 " bytes of memory %s\n", a->limits.memory,
		       plan.mechanism[CORDON_LIMIT_MEMORY] == CORDON_MECHANISM_RLIMIT
		       ? "of address space per process (RLIMIT_AS; weaker: no cgroup is writable here)"
		       : plan.mechanism[CORDON_LIMIT_MEMORY] == CORDON_MECHANISM_CGROUP2
		       ? "for the whole run, swap included (cgroup v2 memory.max): the kernel kills inside it (exit 137)"
		       : "for the whole run, swap included (cgroup v1 memory controller): the kernel kills inside it (exit 137)");
	if (a->limits.processes)
		printf("  %" PRIu64 " processes and threads for the whole run, the runner's included (%s pids.max): "
		       "forks beyond fail with EAGAIN\n", a->limits.processes,
		       plan.mechanism[CORDON_LIMIT_PROCESSES] == CORDON_MECHANISM_CGROUP2 ? "cgroup v2" : "cgroup v1");
	if (a->limits.file_size)
		printf("  files up to %" PRIu64 " bytes (RLIMIT_FSIZE, SIGXFSZ ignored): a longer write fails with EFBIG\n",
		       a->limits.file_size);
	if (a->limits.open_files)
		printf("  %" PRIu64 " open file descriptors per process (RLIMIT_NOFILE): EMFILE beyond\n",
		       a->limits.open_files);
	if (a->max_output_set)
		printf("  output: %" PRIu64 " bytes kept (--json) or relayed per stream (interactive); beyond it %s\n",
		       a->max_output, a->output_terminate ? "the command and everything it started are killed (exit 137)"
		       : "the rest is counted and dropped, the command runs on");
	if (plan.warning[0])
		printf("  warning: %s\n", plan.warning);
	return 0;
}

/* bwrap's options that take values, and how many. */
static int bwrap_arity(const char *opt)
{
	static const char *const two[] = { "--ro-bind", "--ro-bind-try", "--bind", "--bind-try", "--setenv", NULL };
	static const char *const one[] = { "--dev", "--proc", "--tmpfs", "--size", "--perms", "--remount-ro",
					   "--cap-drop", NULL };

	for (size_t i = 0; two[i]; i++)
		if (strcmp(opt, two[i]) == 0)
			return 2;
	for (size_t i = 0; one[i]; i++)
		if (strcmp(opt, one[i]) == 0)
			return 1;
	return 0;
}

/* --backend bwrap: bwrap's own options one to a line (environment values
 * left out), what it does not enforce, then the nested runner's plan. */
static int explain_bwrap(const struct cli_args *a, const struct cordon_policy *p)
{
	_cleanup_(cordon_confined_freep) struct cordon_confined *c = NULL;
	struct cordon_backend_info info;
	struct cordon_error e = {};
	char gaps[1024];
	size_t i = 1;
	int r;

	r = select_backend(a, &info);
	if (r < 0)
		return 2;
	r = cordon_confine_with(&info, (const char *const *)a->command, p, &c, &e);
	if (r < 0) {
		say("%s", e.message[0] ? e.message : strerror(-r));
		return 2;
	}
	printf("bwrap backend (%s), grade %s:\n", c->argv[0], cordon_grade_to_string(c->grade));
	while (c->argv[i] && strcmp(c->argv[i], "--") != 0) {
		int n = bwrap_arity(c->argv[i]);

		printf("  %s", c->argv[i]);
		for (int k = 1; k <= n && c->argv[i + k]; k++)
			printf(" %s", strcmp(c->argv[i], "--setenv") == 0 && k == 2 ? "(value)" : c->argv[i + k]);
		putchar('\n');
		i += 1 + (size_t)n;
	}
	(void)cordon_backend_gaps(&info, gaps, sizeof(gaps));
	printf("not enforced here: %s\n", gaps);
	if (info.lacks & CORDON_LACKS_RUNNER) {
		printf("then execve %s directly: cordon's runner does not nest (see cordon probe)\n",
		       c->argv[i] && c->argv[i + 1] ? c->argv[i + 1] : "?");
		return explain_limits(a, c);
	}
	printf("then, inside bwrap's namespaces (which give what light isolation lists as given up, "
	       "except as said above):\n");
	r = c->argv[i] ? cordon_explain_plan((const char *const *)c->argv + i + 1, stdout) : -EINVAL;
	if (r < 0) {
		say("cannot explain the plan: %s", strerror(-r));
		return 1;
	}
	return explain_limits(a, c);
}

int cli_explain(const struct cli_args *a)
{
	_cleanup_(cordon_policy_freep) struct cordon_policy *p = NULL;
	_cleanup_(cordon_confined_freep) struct cordon_confined *c = NULL;
	struct cordon_backend_info info = { .backend = CORDON_BACKEND_NATIVE, .grade = CORDON_GRADE_FULL };
	_cleanup_(profile_freep) struct cordon_profile *prof = NULL;
	struct cordon_error e = {};
	struct cli_args eff;
	char err[512];
	int r;

	r = load_profile(a, &prof);
	if (r < 0)
		return 2;
	eff = *a;
	r = cli_apply_profile_limits(&eff, prof, err, sizeof(err));
	if (r < 0) {
		say("%s", err);
		return 2;
	}
	a = &eff;
	r = build_policy(a, prof, &p);
	if (r < 0)
		return 2;
	if (cordon_policy_mode(p) == CORDON_MODE_DANGER_FULL_ACCESS) {
		printf("danger-full-access: the command runs unconfined, exactly as given.\n");
		return 0;
	}
	if (a->backend_set && a->backend == CORDON_BACKEND_BWRAP)
		return explain_bwrap(a, p);
	snprintf(info.path, sizeof(info.path), "%s", cordon_runner_path());
	r = cordon_confine_with(&info, (const char *const *)a->command, p, &c, &e);
	if (r < 0) {
		say("%s", e.message[0] ? e.message : strerror(-r));
		return 2;
	}
	/* c->argv is [RUNNER, "exec", flags..., "--", argv...] */
	r = cordon_explain_plan((const char *const *)c->argv + 1, stdout);
	if (r < 0) {
		say("cannot explain the plan: %s", strerror(-r));
		return 1;
	}
	return explain_limits(a, c);
}
