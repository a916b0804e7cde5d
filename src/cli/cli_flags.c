/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The command line's one flag table (cli_parse.c reads it). Each row
 * says which commands take the flag, whether it has a value, what stores it
 * (a handler), and how --help shows it: the usage texts (cli_usage.c), the
 * shell completions (gen_completions.c) and the man pages' check all read
 * the same rows. Sizes and durations are parsed here, in one place.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "cli.h"
#include "spell.h"
#include "strv.h"


#define fail cli_fail

/* ---- sizes, durations, counts ---- */

/* The library's one table of limit ranges (cordon_limit_range): the flags
 * check against it and their messages print it. */
static const struct cordon_limit_range *range(enum cordon_limit l)
{
	return cordon_limit_range(l);
}

/* A size as the messages write it: "1M", "1G", "1T", else bytes. */
static const char *size_words(uint64_t v, char buf[static 32])
{
	static const char units[] = "kMGT";

	for (int i = 3; i >= 0; i--)
		if (v && v % (UINT64_C(1) << (10 * (i + 1))) == 0) {
			snprintf(buf, 32, "%" PRIu64 "%c", v >> (10 * (i + 1)), units[i]);
			return buf;
		}
	snprintf(buf, 32, "%" PRIu64, v);
	return buf;
}

int cli_parse_seconds(const char *s, int *ret_ms)
{
	uint64_t usec;

	/* the one grammar of cordon_parse_duration: "10", "1.5", "10m", "500ms" */
	if (cordon_parse_duration(s, &usec) < 0 || usec == 0 || usec > range(CORDON_LIMIT_TIMEOUT)->max * 1000)
		return -EINVAL;
	/* round up so a tiny positive timeout is never "none" */
	*ret_ms = (int)((usec + 999) / 1000);
	return 0;
}

int cli_parse_cpu_seconds(const char *s, uint64_t *ret)
{
	uint64_t usec;

	/* RLIMIT_CPU and the cgroup check count whole seconds */
	if (cordon_parse_duration(s, &usec) < 0 || usec % CORDON_USEC_PER_SEC ||
	    usec < range(CORDON_LIMIT_CPU)->min * CORDON_USEC_PER_SEC ||
	    usec > range(CORDON_LIMIT_CPU)->max * CORDON_USEC_PER_SEC)
		return -EINVAL;
	*ret = usec / CORDON_USEC_PER_SEC;
	return 0;
}

int cli_parse_size(const char *s, uint64_t *ret)
{
	uint64_t v;

	/* the one grammar of cordon_parse_size: "64k", "1M", "2GiB", "1T" */
	if (cordon_parse_size(s, &v) < 0 || v == 0 || v > (1ull << 40))
		return -EINVAL;
	*ret = v;
	return 0;
}

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

/* ---- handlers ---- */

#define FIELD(a, f, type) ((type *)((char *)(a) + (f)->field))

int cli_flag_bool(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen)
{
	(void)value, (void)err, (void)errlen;
	*FIELD(a, f, bool) = true;
	return 0;
}

int cli_flag_string(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen)
{
	if (!*value)
		return fail(err, errlen, "%s needs a value", f->name);
	*FIELD(a, f, const char *) = value;
	return 0;
}

int cli_flag_repeat(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen)
{
	char ***v = FIELD(a, f, char **);

	if (strv_length(*v) >= CLI_MAX_REPEATS)
		return fail(err, errlen, "%s given more than %d times", f->name, CLI_MAX_REPEATS);
	if (!*value)
		return fail(err, errlen, "%s needs a non-empty value", f->name);
	return strv_push(v, value);
}

static int flag_profile(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen)
{
	(void)f;
	if (!*value)
		return fail(err, errlen, "--profile needs a profile name or path");
	a->profile = value;
	return 0;
}

static int flag_path(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen)
{
	(void)f;
	if (!*value)
		return fail(err, errlen, "--path needs a path");
	a->why_path = value;
	return 0;
}

static int flag_workspace(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen)
{
	(void)f;
	if (!*value)
		return fail(err, errlen, "--workspace needs a directory");
	a->workspace = value;
	return 0;
}

static int flag_op(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen)
{
	(void)f;
	if (cordon_op_from_string(value, &a->op) < 0)
		return fail(err, errlen, "--op: unknown operation '%s': valid operations are read, write, exec", value);
	a->op_set = true;
	return 0;
}

static int flag_host(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen)
{
	const char *colon = strrchr(value, ':'), *host = value;
	size_t hl = strlen(value);
	uint64_t port = 0;

	(void)f;
	/* HOST:PORT and [V6]:PORT say the port too; a bare IPv6 address has
	 * more than one colon and no brackets */
	if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1) &&
	    (value[0] == '[' ? colon > value && colon[-1] == ']' : strchr(value, ':') == colon)) {
		if (parse_count(colon + 1, 1, 65535, &port) < 0)
			return fail(err, errlen, "--host: '%.100s' has no port from 1 to 65535", value);
		hl = (size_t)(colon - value);
		if (value[0] == '[') {
			host = value + 1;
			hl -= 2;
		}
	}
	if (!hl || hl > 253)
		return fail(err, errlen, "--host: '%.100s' is not a host name or address", value);
	if (port && a->port_set && a->port != port)
		return fail(err, errlen, "--host %.100s and --port %u name two ports", value, a->port);
	free(a->why_host_own);
	a->why_host_own = strndup(host, hl);
	if (!a->why_host_own)
		return fail(err, errlen, "--host: out of memory");
	a->why_host = a->why_host_own;
	a->host_port = (unsigned)port;
	return 0;
}

static int flag_method(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen)
{
	(void)f;
	if (!*value || strlen(value) > 32 || strspn(value, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != strlen(value))
		return fail(err, errlen, "--method: '%.100s' is not a method (GET, POST, ...: upper case)", value);
	a->why_method = value;
	return 0;
}

static int flag_port(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen)
{
	uint64_t port;

	(void)f;
	if (parse_count(value, 1, 65535, &port) < 0)
		return fail(err, errlen, "--port: '%s' is not a port number from 1 to 65535", value);
	if (a->host_port && a->host_port != port)
		return fail(err, errlen, "--port %s and --host ...:%u name two ports", value, a->host_port);
	a->port = (unsigned)port;
	a->port_set = true;
	return 0;
}

static int flag_head(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen)
{
	(void)f;
	if (strlen(value) != 64 || strspn(value, "0123456789abcdefABCDEF") != 64)
		return fail(err, errlen, "--head: '%.100s' is not a SHA-256 (64 hex digits)", value);
	a->audit_head = value;
	return 0;
}

static int flag_pubkey(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen)
{
	(void)f;
	if (strlen(value) != 64 || strspn(value, "0123456789abcdef") != 64)
		return fail(err, errlen, "--pubkey: '%.100s' is not an Ed25519 public key (64 hex digits)", value);
	a->audit_pubkey = value;
	return 0;
}

static int flag_sig(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen)
{
	(void)f;
	if (strlen(value) != 128 || strspn(value, "0123456789abcdef") != 128)
		return fail(err, errlen, "--sig: '%.100s' is not an Ed25519 signature (128 hex digits)", value);
	a->audit_sig = value;
	return 0;
}

static int flag_mode(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen)
{
	(void)f;
	if (cordon_mode_from_string(value, &a->mode) < 0)
		return fail(err, errlen,
			    "--mode: unknown mode '%s': valid modes are read-only, workspace-write, danger-full-access",
			    value);
	a->mode_set = true;
	return 0;
}

static int flag_net(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen)
{
	(void)f;
	if (cordon_net_from_string(value, &a->net) < 0)
		return fail(err, errlen, "--net: unknown network setting '%s': valid settings are none, host, proxy, allow",
			    value);
	a->net_set = true;
	return 0;
}

static int flag_backend(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen)
{
	(void)f;
	if (cordon_backend_from_string(value, &a->backend) < 0)
		return fail(err, errlen,
			    "--backend: unknown backend '%s': valid backends are native, bwrap, seatbelt, unavailable",
			    value);
	a->backend_set = true;
	return 0;
}

static int flag_isolation(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen)
{
	(void)f;
	if (cordon_isolation_from_string(value, &a->isolation) < 0)
		return fail(err, errlen, "--isolation: unknown isolation '%s': valid values are full, light", value);
	a->isolation_set = true;
	return 0;
}

static int flag_home(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen)
{
	(void)f;
	if (cordon_home_from_string(value, &a->home) < 0)
		return fail(err, errlen, "--home: unknown HOME policy '%s': valid values are catalogue, allowlist", value);
	a->home_set = true;
	return 0;
}

static int flag_setenv(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen)
{
	const char *eq = strchr(value, '=');

	if (!eq || eq == value)
		return fail(err, errlen, "--setenv: expected NAME=VALUE, got '%s'", value);
	return cli_flag_repeat(a, f, value, err, errlen);
}

static int flag_timeout(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen)
{
	(void)f;
	if (cli_parse_seconds(value, &a->timeout_ms) < 0)
		return fail(err, errlen, "--timeout: '%s' is not a number of seconds greater than 0 (at most one week)",
			    value);
	return 0;
}

static int flag_max_output(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen)
{
	const struct cordon_limit_range *r = range(CORDON_LIMIT_OUTPUT);
	char lo[32], hi[32];

	(void)f;
	if (cli_parse_size(value, &a->max_output) < 0 || a->max_output < r->min || a->max_output > r->max)
		return fail(err, errlen, "--max-output: '%s' is not a size between %s and %s (suffixes k, M, G)", value,
			    size_words(r->min, lo), size_words(r->max, hi));
	a->max_output_set = true;
	return 0;
}

static int flag_on_output_limit(struct cli_args *a, const struct cli_flag *f, const char *value, char *err,
				size_t errlen)
{
	(void)f;
	if (strcmp(value, "truncate") != 0 && strcmp(value, "terminate") != 0)
		return fail(err, errlen, "--on-output-limit: '%s' is not truncate or terminate", value);
	a->output_terminate = value[1] == 'e';
	a->output_action_set = true;
	return 0;
}

static int flag_limits_fallback(struct cli_args *a, const struct cli_flag *f, const char *value, char *err,
				size_t errlen)
{
	(void)f;
	if (strcmp(value, "warn") != 0 && strcmp(value, "fail") != 0)
		return fail(err, errlen, "--limits-fallback: '%s' is not warn or fail", value);
	a->limits.fallback_fail = value[0] == 'f';
	a->fallback_set = true;
	return 0;
}

static int flag_cpu(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen)
{
	(void)f;
	if (cli_parse_cpu_seconds(value, &a->limits.cpu_seconds) < 0)
		return fail(err, errlen, "--cpu: '%s' is not a whole number of CPU seconds from %" PRIu64 " to %" PRIu64,
			    value, range(CORDON_LIMIT_CPU)->min, range(CORDON_LIMIT_CPU)->max);
	a->limits_set = true;
	return 0;
}

static int flag_memory(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen)
{
	const struct cordon_limit_range *r = range(CORDON_LIMIT_MEMORY);
	char lo[32], hi[32];

	(void)f;
	if (cli_parse_size(value, &a->limits.memory) < 0 || a->limits.memory < r->min || a->limits.memory > r->max)
		return fail(err, errlen, "--memory: '%s' is not a size between %s and %s (suffixes k, M, G, T)", value,
			    size_words(r->min, lo), size_words(r->max, hi));
	a->limits_set = true;
	return 0;
}

static int flag_max_processes(struct cli_args *a, const struct cli_flag *f, const char *value, char *err,
			      size_t errlen)
{
	const struct cordon_limit_range *r = range(CORDON_LIMIT_PROCESSES);

	(void)f;
	if (parse_count(value, r->min, r->max, &a->limits.processes) < 0)
		return fail(err, errlen, "--max-processes: '%s' is not a whole number from %" PRIu64 " to %" PRIu64, value,
			    r->min, r->max);
	a->limits_set = true;
	return 0;
}

static int flag_max_file_size(struct cli_args *a, const struct cli_flag *f, const char *value, char *err,
			      size_t errlen)
{
	const struct cordon_limit_range *r = range(CORDON_LIMIT_FILE_SIZE);
	char lo[32], hi[32];

	(void)f;
	if (cli_parse_size(value, &a->limits.file_size) < 0 || a->limits.file_size < r->min ||
	    a->limits.file_size > r->max)
		return fail(err, errlen, "--max-file-size: '%s' is not a size between %s and %s (suffixes k, M, G, T)",
			    value, size_words(r->min, lo), size_words(r->max, hi));
	a->limits_set = true;
	return 0;
}

static int flag_max_open_files(struct cli_args *a, const struct cli_flag *f, const char *value, char *err,
			       size_t errlen)
{
	const struct cordon_limit_range *r = range(CORDON_LIMIT_OPEN_FILES);

	(void)f;
	if (parse_count(value, r->min, r->max, &a->limits.open_files) < 0)
		return fail(err, errlen, "--max-open-files: '%s' is not a whole number from %" PRIu64 " to %" PRIu64, value,
			    r->min, r->max);
	a->limits_set = true;
	return 0;
}

static int flag_confine_status_fd(struct cli_args *a, const struct cli_flag *f, const char *value, char *err,
				  size_t errlen)
{
	char *end;
	long v;

	(void)f;
	errno = 0;
	v = strtol(value, &end, 10);
	if (errno || !*value || *end || v < 3 || v > 65534)
		return fail(err, errlen, "--status-fd: '%s' is not an fd number from 3 to 65534", value);
	a->confine_status_fd = (int)v;
	return 0;
}

static int flag_status(struct cli_args *a, const struct cli_flag *f, const char *value, char *err, size_t errlen)
{
	char *end;
	long v;

	(void)f;
	errno = 0;
	v = strtol(value, &end, 10);
	if (errno || !*value || *end || v < 0 || v > 255 + 128)
		return fail(err, errlen, "--status: '%s' is not an exit status (0-383)", value);
	a->status = (int)v;
	a->status_set = true;
	return 0;
}

/* ---- the table ----
 *
 * A new flag is a field in struct cli_args (cli.h) and one row here: the
 * generic handlers store a bool, a non-empty string or a repeatable list by
 * the row's offset; a flag that needs checking gets its own handler (one in
 * another file, e.g. cli_net.c, is declared in cli.h). --help, the
 * completions and the man pages' check (install.t: every row's flag is in
 * docs/man/cordon-COMMAND.1.scd) follow from the row.
 */

#define C CLI_CMD
/* why takes run's rows, so a run's command line asks the same policy */
#define POLICY_CMDS (C(CLI_RUN) | C(CLI_CONFINE) | C(CLI_EXPLAIN) | C(CLI_WHY) | C(CLI_SERVE))
#define LIMIT_CMDS (C(CLI_RUN) | C(CLI_EXPLAIN) | C(CLI_WHY) | C(CLI_SERVE))
#define F(x) offsetof(struct cli_args, x)

static const struct cli_flag flags[] = {
	/* the commands' own options */
	{ "--insecure-local", C(CLI_RUN), true, cli_flag_string, F(insecure_local), CLI_SECTION_OWN, "DIR",
	  "use the UNSIGNED pack in DIR for this run only (said on every\n"
	  "run; refused when DIR is inside a writable root)" },
	{ "--json", C(CLI_RUN), false, cli_flag_bool, F(json), CLI_SECTION_OWN, NULL,
	  "capture and print one JSON object" },
	{ "--separate-stderr", C(CLI_RUN), false, cli_flag_bool, F(separate_stderr), CLI_SECTION_OWN, NULL,
	  "with --json: stdout in output, stderr in stderr (default: merged)" },
	{ "--json-schema", C(CLI_RUN), false, cli_flag_bool, F(json_schema), CLI_SECTION_OWN, NULL,
	  "print the JSON Schema of --json's object and exit" },
	{ "--mcp", C(CLI_SERVE), false, cli_flag_bool, F(mcp), CLI_SECTION_OWN, NULL,
	  "speak the Model Context Protocol (stdio) instead of JSON lines:\n"
	  "one tool, run_command" },
	{ "--json", C(CLI_CONFINE), false, cli_flag_bool, F(json), CLI_SECTION_OWN, NULL,
	  "accepted for scripts that always pass it: the output is JSON either way" },
	{ "--status-fd", C(CLI_CONFINE), true, flag_confine_status_fd, 0, CLI_SECTION_OWN, "N",
	  "the runner's status channel on fd N (default 3): the caller starts argv with a pipe there" },
	{ "--confined", C(CLI_CLASSIFY), true, cli_flag_string, F(confined_file), CLI_SECTION_OWN, "FILE",
	  "the confined value, as `cordon confine` printed it" },
	{ "--status", C(CLI_CLASSIFY), true, flag_status, 0, CLI_SECTION_OWN, "N",
	  "the exit code, or 128+S for a command killed by signal S" },
	{ "--output", C(CLI_CLASSIFY), true, cli_flag_string, F(output_file), CLI_SECTION_OWN, "FILE",
	  "the command's merged output (default: none)" },
	{ "--status-records", C(CLI_CLASSIFY), true, cli_flag_string, F(status_records_file), CLI_SECTION_OWN,
	  "FILE", "what the runner wrote on its status channel (an empty file if nothing)" },
	{ "--json", C(CLI_CLASSIFY), false, cli_flag_bool, F(json), CLI_SECTION_OWN, NULL,
	  "one object: verdict, runner_line, and run --json's hints, denials and denials_omitted" },
	{ "--json", C(CLI_PROBE), false, cli_flag_bool, F(json), CLI_SECTION_OWN, NULL,
	  "one object: backends, selected, grade, kernel and limits facts" },
	{ "--refresh", C(CLI_PROBE), false, cli_flag_bool, F(refresh), CLI_SECTION_OWN, NULL,
	  "replace the per-user probe cache with the fresh result" },
	{ "--workspace", C(CLI_PROFILE), true, flag_workspace, 0, CLI_SECTION_OWN, "DIR",
	  "what $WORKSPACE and relative paths mean (default: the\nprofile's, else the current directory)" },
	{ "--path", C(CLI_WHY), true, flag_path, 0, CLI_SECTION_OWN, "PATH",
	  "the path to ask about (relative: in the workspace)" },
	{ "--op", C(CLI_WHY), true, flag_op, 0, CLI_SECTION_OWN, "read|write|exec", "what is done to PATH" },
	{ "--host", C(CLI_WHY), true, flag_host, 0, CLI_SECTION_OWN, "HOST", "the host to ask about" },
	{ "--port", C(CLI_WHY), true, flag_port, 0, CLI_SECTION_OWN, "N", "the port on HOST (default: 443)" },
	{ "--command", C(CLI_WHY), true, cli_flag_string, F(why_command), CLI_SECTION_OWN, "NAME",
	  "the command of the profile's command_policies to ask about;\n"
	  "its arguments follow `--` (needs --profile)" },
	{ "--caller", C(CLI_WHY), true, cli_flag_string, F(why_caller), CLI_SECTION_OWN, "NAME",
	  "with --command: who calls it, `session` (default) or a command" },
	{ "--method", C(CLI_WHY), true, flag_method, 0, CLI_SECTION_OWN, "METHOD",
	  "with --host and --path: a request as the credential proxy decides it\n"
	  "(--path is the request's path; --command the consumer, default the session)" },
	{ "--json", C(CLI_PROFILE), false, cli_flag_bool, F(json), CLI_SECTION_OWN, NULL,
	  "machine-readable output (list, show)" },
	{ "--effective", C(CLI_PROFILE), false, cli_flag_bool, F(effective), CLI_SECTION_OWN, NULL,
	  "with show: the lists a run applies (read-deny, protected, the\n"
	  "write gate's names, environment), from the policy it would build" },
	{ "--json", C(CLI_WHY), false, cli_flag_bool, F(json), CLI_SECTION_OWN, NULL,
	  "one object: allow, decision, reason, file, pointer, and\nthe question (path and op, or host and port; "
	  "with\n--command: command, caller, argv, line, backend)" },
	{ "--yes", C(CLI_PACK), false, cli_flag_bool, F(yes), CLI_SECTION_OWN, NULL,
	  "with install: install without asking (a script's answer; a lower\n"
	  "version or a changed signer key is still asked on a terminal only)" },
	{ "--json", C(CLI_AUDIT), false, cli_flag_bool, F(json), CLI_SECTION_OWN, NULL,
	  "one JSON object (list, show, verify)" },
	{ "--head", C(CLI_AUDIT), true, flag_head, 0, CLI_SECTION_OWN, "HEX",
	  "with verify: the chain's head (the SHA-256 of the last\n"
	  "line) as kept elsewhere; a log whose head differs is tampered" },
	{ "--pubkey", C(CLI_AUDIT), true, flag_pubkey, 0, CLI_SECTION_OWN, "HEX",
	  "with verify --head --sig: the key the session printed at its end" },
	{ "--sig", C(CLI_AUDIT), true, flag_sig, 0, CLI_SECTION_OWN, "HEX",
	  "with verify --head --pubkey: the head's signature, as printed;\n"
	  "one that does not verify under the key is refused" },

	/* limits */
	{ "--timeout", LIMIT_CMDS, true, flag_timeout, 0, CLI_SECTION_LIMIT, "SECONDS",
	  "wall clock: kill the command and everything it started" },
	{ "--cpu", LIMIT_CMDS, true, flag_cpu, 0, CLI_SECTION_LIMIT, "SECONDS",
	  "CPU seconds of the whole run (a cgroup counts it; else RLIMIT_CPU per process)" },
	{ "--memory", LIMIT_CMDS, true, flag_memory, 0, CLI_SECTION_LIMIT, "BYTES",
	  "memory of the whole run (cgroup), else RLIMIT_AS per process" },
	{ "--max-processes", LIMIT_CMDS, true, flag_max_processes, 0, CLI_SECTION_LIMIT, "N",
	  "processes and threads of the whole run (pids cgroup; the\n"
	  "runner's own count); refused where no pids cgroup is writable" },
	{ "--max-file-size", LIMIT_CMDS, true, flag_max_file_size, 0, CLI_SECTION_LIMIT, "BYTES",
	  "largest file the command may write (RLIMIT_FSIZE: EFBIG)" },
	{ "--max-open-files", LIMIT_CMDS, true, flag_max_open_files, 0, CLI_SECTION_LIMIT, "N",
	  "open file descriptors per process (RLIMIT_NOFILE)" },
	{ "--max-output", LIMIT_CMDS, true, flag_max_output, 0, CLI_SECTION_LIMIT, "BYTES",
	  "output kept with --json (default 1M); interactive: stdout and\nstderr relayed each up to BYTES (on a terminal: the terminal's\noutput, one stream)" },
	{ "--on-output-limit", LIMIT_CMDS, true, flag_on_output_limit, 0, CLI_SECTION_LIMIT, "truncate|terminate",
	  "past --max-output: count and drop the rest\n(default), or kill the command and everything it started" },
	{ "--limits-fallback", LIMIT_CMDS, true, flag_limits_fallback, 0, CLI_SECTION_LIMIT, "warn|fail",
	  "when only a weaker mechanism is available: run and\nsay so (default), or refuse (exit 125)" },

	/* policy */
	{ "--profile", POLICY_CMDS, true, flag_profile, 0, CLI_SECTION_POLICY, "P",
	  "a built-in name, a path, a pack's OWNER/NAME/PROFILE, or NAME\nlooked up in ~/.config/cordon/profiles then the installed profiles\n"
	  "(default: the built-in `default`; see `cordon profile`)" },
	{ "--mode", POLICY_CMDS, true, flag_mode, 0, CLI_SECTION_POLICY, "MODE",
	  "read-only | workspace-write (default) | danger-full-access" },
	{ "--workspace", POLICY_CMDS, true, flag_workspace, 0, CLI_SECTION_POLICY, "DIR",
	  "the writable workspace root (default: current directory)" },
	{ "--net", POLICY_CMDS, true, flag_net, 0, CLI_SECTION_POLICY, "none|host|proxy|allow",
	  "network access (default: none); proxy: only through\ncordon's proxy, to the hosts --allow-domain admits;\n"
	  "allow: as proxy, and any TCP client reaches them\ndirectly (init connects through the proxy)" },
	{ "--backend", POLICY_CMDS, true, flag_backend, 0, CLI_SECTION_POLICY, "B",
	  "native | bwrap | seatbelt | unavailable (skips probing;\nCORDON_BACKEND does the same)" },
	{ "--isolation", POLICY_CMDS, true, flag_isolation, 0, CLI_SECTION_POLICY, "full|light",
	  "native runner only; light = Landlock + seccomp, no namespaces" },
	{ "--home", POLICY_CMDS, true, flag_home, 0, CLI_SECTION_POLICY, "catalogue|allowlist",
	  "below HOME: everything but the credential catalogue, or\nnothing but the grants (native runner only)" },
	{ "--deny-read", POLICY_CMDS, true, cli_flag_repeat, F(deny_read), CLI_SECTION_POLICY, "PATH",
	  "hide PATH from the sandbox (repeatable)" },
	{ "--read", POLICY_CMDS, true, cli_flag_repeat, F(read_host), CLI_SECTION_POLICY, "PATH",
	  "bring the host's PATH below /tmp (the sandbox's /tmp is\nits own), or below HOME under --home allowlist, back,\nread-only (repeatable)" },
	{ "--protect", POLICY_CMDS, true, cli_flag_repeat, F(protect), CLI_SECTION_POLICY, "PATH",
	  "keep PATH read-only inside the workspace (repeatable)" },
	{ "--allow-unix-socket", POLICY_CMDS, true, cli_flag_repeat, F(allow_unix), CLI_SECTION_POLICY, "PATH",
	  "let the sandbox connect to this host unix socket\n(native, full isolation, --net none; repeatable)" },
	{ "--allow-domain", POLICY_CMDS, true, cli_net_flag, 0, CLI_SECTION_POLICY, "H[:PORT]",
	  "(--net proxy) the proxy connects to H (*.H: subdomains\nof H only); repeatable" },
	{ "--deny-domain", POLICY_CMDS, true, cli_net_flag, 0, CLI_SECTION_POLICY, "H[:PORT]",
	  "(--net proxy) never H; checked before --allow-domain" },
	{ "--allow-address", POLICY_CMDS, true, cli_net_flag, 0, CLI_SECTION_POLICY, "A[/N]",
	  "(--net proxy) admit local/private answers in A[/N]\n(never by name alone; repeatable)" },
	{ "--keep-env", POLICY_CMDS, true, cli_flag_repeat, F(keep_env), CLI_SECTION_POLICY, "NAME",
	  "pass NAME (or PREFIX*) through the environment filter" },
	{ "--setenv", POLICY_CMDS, true, flag_setenv, F(setenv), CLI_SECTION_POLICY, "NAME=VALUE",
	  "set a variable inside the sandbox" },
	{ "--require", POLICY_CMDS, true, cli_flag_repeat, F(require), CLI_SECTION_POLICY, "FEATURE",
	  "refuse instead of degrading without FEATURE (landlock,\n"
	  "landlock-net, landlock-scope, seccomp, userns, pidns, netns)" },

	{ "--help", ~0u, false, cli_flag_bool, F(help), CLI_SECTION_HIDDEN, NULL, "show this command's options" },
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
	{ "audit", CLI_AUDIT },
	{ "pack", CLI_PACK },
	{ "serve", CLI_SERVE },
	{ "help", CLI_HELP },
	{ "--help", CLI_HELP },
	{ "-h", CLI_HELP },
	{ "--version", CLI_VERSION },
};

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
