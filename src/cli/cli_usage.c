/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The --help texts: each command's synopsis and description here, its
 * option lines written from the flag table (cli_flags.c), so a flag the
 * parser takes is a flag --help shows, with the words its row carries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "cli.h"

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
	"  audit     list, show and verify the tool sandbox's audit logs\n"
	"  pack      install, list, show, verify, remove signed profile packs\n"
	"  exec      the native runner itself (used by confined command lines)\n"
	"\n"
	"cordon <command> --help shows a command's options.\n";

static const char head_serve[] =
	"usage: cordon serve [policy options] [limit options] [--mcp]\n"
	"\n"
	"One sandbox that stays up: the policy is built as `cordon run` builds it, the\n"
	"sandbox (mounts, Landlock, seccomp) is made once, and each request runs a command\n"
	"in it, confined exactly as `cordon run` with the same options would confine it;\n"
	"the commands share the sandbox's private /tmp, each has its own process group,\n"
	"limits and status. JSON lines on stdin, one request per line:\n"
	"  {\"id\": 1, \"argv\": [\"ls\"], \"cwd\": \"/abs\", \"env\": {\"NAME\": \"VALUE\"},\n"
	"   \"stdin\": \"text\" | null, \"timeout\": SECONDS, \"max_output\": BYTES}\n"
	"and on stdout, as the command writes, {\"id\", \"stream\": \"stdout\"|\"stderr\", \"data\"},\n"
	"then {\"id\", \"result\"}: `cordon run --json`'s object (verdict, exit_code,\n"
	"denials, ...). Several commands may be in flight. A request is bounded by the\n"
	"policy: env may not set cordon's variables (CORDON_*, the proxy's, loader\n"
	"injection, --setenv names) or names outside the allow-list (--keep-env), timeout\n"
	"and max_output may not exceed the session's, cwd must be the same directory\n"
	"inside as outside. A bad request gets {\"id\", \"error\": {\"kind\", \"message\"}}.\n"
	"The end of stdin ends the session: commands still running are killed.\n";

static const char head_run[] =
	"usage: cordon run [policy options] [limit options] [--json] -- COMMAND [ARG...]\n"
	"\n"
	"Runs COMMAND confined. Interactive by default: stdio passes through and cordon\n"
	"exits with the command's exit code. --json captures the merged output (stdin still\n"
	"passes through) and prints one object, with the same fields for every outcome,\n"
	"refusals included (the schema: --json-schema): exit_code, signal, verdict\n"
	"(ok|denied|runner_failed|timeout|limit_exceeded|unavailable|refused), runner_line,\n"
	"output (output_base64: the exact bytes when they are not UTF-8), output_bytes,\n"
	"stderr, stderr_base64, stderr_bytes (with --separate-stderr), truncated,\n"
	"duration_ms, mode, enforcement, grade, backend_from_cache, limit (which limit\n"
	"fired, also when the command exited 0, or null), limit_mechanism, limits (the\n"
	"mechanism per limit), limits_warning, error (why cordon refused, or null), hints\n"
	"(what to do about a failure the output shows), denials ({kind, path, op, rule,\n"
	"mechanism} for each refused path the output names, the network, the limit or\n"
	"signal that ended it; advisory, like the verdict).\n"
	"Exit codes: the command's own (also when it handled a limit's error itself); 124 on\n"
	"timeout; 126 when COMMAND cannot be executed, 127 when it does not exist (as in a\n"
	"shell); 137 when a limit's SIGKILL ended it; 125 when cordon refuses or fails\n"
	"before the command runs.\n";

static const char head_confine[] =
	"usage: cordon confine [policy options] [--json] -- COMMAND [ARG...]\n"
	"\n"
	"Prints the confined value as JSON: argv, mode, enforcement, grade, denial and\n"
	"fatal signatures, informational lines, allowed exit codes. Spawns nothing except\n"
	"a backend probe when no probe result is cached.\n";

static const char head_classify[] =
	"usage: cordon classify --confined FILE --status N [--output FILE]\n"
	"                       [--status-records FILE] [--json]\n"
	"\n"
	"Reads a confined value (as printed by `cordon confine`) and the finished command's\n"
	"exit status and merged output, and prints the verdict: ok, denied or runner_failed.\n"
	"N is the exit code, or 128+S for a command killed by signal S. A value with a\n"
	"status channel (status_fd) needs --status-records: what the runner wrote on that\n"
	"fd (an empty file if nothing); its output is never read for runner failures.\n";

static const char head_probe[] =
	"usage: cordon probe [--json] [--refresh]\n"
	"\n"
	"Probes every backend for this platform, shows why each unusable one is unusable,\n"
	"the selected backend and grade, and kernel facts. --refresh replaces the\n"
	"per-user probe cache with the fresh result.\n";

static const char head_explain[] =
	"usage: cordon explain [policy options] [limit options] -- COMMAND [ARG...]\n"
	"\n"
	"Prints, in words, the plan the native runner would apply to COMMAND, and how\n"
	"each limit would be enforced here. With --backend bwrap: bwrap's mounts, what\n"
	"it does not enforce, and the plan of the runner nested inside it.\n";

static const char head_profile[] =
	"usage: cordon profile list [--json]\n"
	"       cordon profile show NAME [--workspace DIR] [--effective] [--json]\n"
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
	"            or with --json one object {name, file, chain, profile, notes};\n"
	"            --effective: the lists the policy a run would build applies\n"
	"  validate  load each FILE; print file:line:column: at /json/path: message for\n"
	"            each invalid one; exit 1 if any is invalid\n"
	"  schema    the profile JSON Schema (draft 2020-12)\n"
	"  diff      the differences of two resolved profiles, one line each:\n"
	"            \"- /path: value\" only in A, \"+ /path: value\" only in B;\n"
	"            exit 0 when they are the same, 1 when they differ, 125 on trouble\n";

static const char head_why[] =
	"usage: cordon why [policy options] --path PATH --op read|write|exec [--json]\n"
	"       cordon why [policy options] PATH (--op read unless --op says otherwise)\n"
	"       cordon why [policy options] --host HOST [--port N (443)] [--json]\n"
	"       cordon why --profile P --command NAME [--caller C (session)] [--json] -- ARGS...\n"
	"\n"
	"Says whether a command confined by profile P (default: the built-in `default`)\n"
	"may do OP on PATH, or connect to HOST:N, and names the rule that decided: the\n"
	"file it is in and its JSON path, or \"(built-in)\" for cordon's own defaults.\n"
	"It answers for the policy `cordon run` would build from the same flags (--mode,\n"
	"--net, --isolation, --deny-read, --protect; limit options are accepted and do not\n"
	"change the answer). A relative PATH is taken in the workspace, ~ is HOME.\n"
	"With --command it says what P's command_policies decide when C calls NAME with\n"
	"ARGS (the arguments after the command name), with your environment as the\n"
	"caller's: allow, deny or approve, the rule (file:line and JSON path), its reason\n"
	"and the approval backend.\n"
	"Exit 0 allowed, 1 denied, 2 approval needed (--command), 125 trouble.\n";

static const char head_audit[] =
	"usage: cordon audit list [--json]\n"
	"       cordon audit show SESSION|FILE [--json]\n"
	"       cordon audit verify SESSION|FILE [--head HEX [--pubkey HEX --sig HEX]] [--json]\n"
	"\n"
	"The tool sandbox writes one audit log per session as it happens, in\n"
	"$XDG_STATE_HOME/cordon/audit (else ~/.local/state/cordon/audit): SESSION.jsonl,\n"
	"one JSON record per line, each carrying the SHA-256 of the line before it. An\n"
	"argv is written only hashed and redacted, never as it was typed. SESSION is a\n"
	"session id in that directory; FILE a path (it contains '/' or ends in .jsonl).\n"
	"\n"
	"  list    the sessions in the audit directory: id, start time, profile, records,\n"
	"          and whether each log is intact, incomplete or tampered\n"
	"  show    the records, one line each: time, event, caller -> command, redacted\n"
	"          argv, decision, rule, reason, exit code, duration, bytes; then the\n"
	"          verdict of verify\n"
	"  verify  check the chain: names the first line that was edited, inserted,\n"
	"          deleted or moved, a broken seq, another session's record, a line that\n"
	"          is not JSON, a file over the size cap; a log without its session_end\n"
	"          record is incomplete (the supervisor was stopped, the end cut off, or\n"
	"          the session is still running); the log's end is signed with a key\n"
	"          made for the session (printed at its end, with the head and the\n"
	"          signature): verify checks the signed head kept in the audit\n"
	"          directory's -heads twin, or the one given (--head --pubkey --sig), so\n"
	"          a log cut and closed again is tampered\n"
	"Exit codes of show and verify: 0 intact, 1 tampered, 2 incomplete, 125 trouble\n"
	"(no such log, unreadable). list: 0, or 125 on trouble.\n";

static const char head_pack[] =
	"usage: cordon pack install [--yes] DIR|FILE.tar|https://URL\n"
	"       cordon pack list\n"
	"       cordon pack show OWNER/NAME\n"
	"       cordon pack verify [OWNER/NAME]\n"
	"       cordon pack remove OWNER/NAME\n"
	"\n"
	"A pack holds pack.json (name, version, profiles, every file's SHA-256) and its\n"
	"SSH signature pack.json.sig (ssh-keygen -Y sign -n cordon-pack), trusted through\n"
	"/etc/cordon/allowed_signers if it exists, else ~/.config/cordon/allowed_signers.\n"
	"Its profiles are OWNER/NAME/PROFILE; every use verifies the pack again.\n"
	"\n"
	"  install  verify, print what each profile grants, ask (--yes for scripts), install\n"
	"  list     the installed packs and their versions\n"
	"  show     what each profile of an installed pack grants\n"
	"  verify   check installed packs as a use would\n"
	"  remove   delete a pack from the store and the lock\n";

static const char *const section_titles[] = {
	[CLI_SECTION_HIDDEN] = NULL,
	[CLI_SECTION_OWN] = NULL,
	[CLI_SECTION_LIMIT] = "limit options (sizes take k, M, G, T; durations ms, s, m, h, bare = seconds):\n",
	[CLI_SECTION_POLICY] = "policy options (flags apply on top of the profile: values replace, lists add):\n",
};

/* Options and descriptions start in these columns. */
#define OPT_INDENT 2
#define DESC_COLUMN 23

/* "  --name META        help", continuation lines under the help. */
static void put_flag(FILE *f, const struct cli_flag *fl)
{
	char left[128];
	int n = snprintf(left, sizeof(left), "%*s%s%s%s", OPT_INDENT, "", fl->name, fl->meta ? " " : "",
			 fl->meta ?: "");

	/* a long option pushes its help two spaces on */
	fprintf(f, "%-*s%s", DESC_COLUMN, left, n > DESC_COLUMN - 2 ? "  " : "");
	for (const char *h = fl->help; *h;) {
		size_t l = strcspn(h, "\n");

		fprintf(f, "%.*s\n", (int)l, h);
		h += l;
		if (*h == '\n') {
			h++;
			fprintf(f, "%*s", DESC_COLUMN, "");
		}
	}
}

static void put_section(FILE *f, enum cli_command c, enum cli_flag_section s)
{
	const struct cli_flag *flags;
	size_t n;
	bool first = true;

	flags = cli_flag_table(&n);
	for (size_t i = 0; i < n; i++) {
		if (flags[i].section != s || !(flags[i].commands & CLI_CMD(c)))
			continue;
		if (first) {
			fputc('\n', f);
			if (section_titles[s])
				fputs(section_titles[s], f);
			first = false;
		}
		put_flag(f, &flags[i]);
	}
}

static const char *head_of(enum cli_command c)
{
	switch (c) {
	case CLI_RUN:
		return head_run;
	case CLI_CONFINE:
		return head_confine;
	case CLI_CLASSIFY:
		return head_classify;
	case CLI_PROBE:
		return head_probe;
	case CLI_EXPLAIN:
		return head_explain;
	case CLI_PROFILE:
		return head_profile;
	case CLI_WHY:
		return head_why;
	case CLI_AUDIT:
		return head_audit;
	case CLI_PACK:
		return head_pack;
	case CLI_SERVE:
		return head_serve;
	case CLI_NONE:
	case CLI_HELP:
	case CLI_VERSION:
		break;
	}
	return NULL;
}

/* Written once per command on first use; a cache, the CLI's only kind of
 * global state. */
static char *usage_cache[CLI_VERSION + 1];

const char *cli_usage(enum cli_command c)
{
	const char *head = head_of(c);
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (!head)
		return usage_overview;
	if (usage_cache[c])
		return usage_cache[c];
	f = open_memstream(&text, &len);
	if (!f)
		return head;
	fputs(head, f);
	put_section(f, c, CLI_SECTION_OWN);
	put_section(f, c, CLI_SECTION_LIMIT);
	put_section(f, c, CLI_SECTION_POLICY);
	if (fclose(f) != 0) {
		free(text);
		return head;
	}
	usage_cache[c] = text;
	return text;
}
