/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The audit log: its writer (record format, chain, concurrency, refusals,
 * failing closed) and its reader (every kind of tampering). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "audit.h"
#include "audit_read.h"
#include "crypto.h"
#include "strv.h"

#define ID "20261202T014731Z-1a2b3c4d"

static const char *const secret_argv[] = {
	"push", "https://alice:hunter2@example.com/r.git", "--token", "tok-SECRET-1", "main", "--force", NULL};
static const char *const env_names[] = {"HOME", "MY_PRIVATE_VARNAME", NULL};

static char *make_tmpdir(void)
{
	char *d = test_tmpdir("/tmp", "cordon-test-audit");

	cr_assert_eq(chmod(d, 0700), 0);
	return d;
}

static void rm_tree(const char *d)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	cr_assert_eq(system(cmd), 0);
}

static char *read_file(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t n = 0;

	cr_assert_not_null(f, "open %s", path);
	cr_assert_eq(getdelim(&buf, &n, '\0', f) >= 0 || feof(f), true);
	if (!buf)
		buf = strdup("");
	*ret_len = strlen(buf);
	fclose(f);
	return buf;
}

/* Open a log in dir/logs with id, or fail the test. */
static struct audit_log *open_log(const char *dir, const char *id)
{
	struct audit_session s = {.session_id = id, .profile = "git", .workspace = "/w"};
	struct audit_log *l = NULL;
	char path[512];

	snprintf(path, sizeof(path), "%s/logs", dir);
	cr_assert_eq(audit_open(path, &s, &l), 0);
	return l;
}

static void write_call(struct audit_log *l, const char *call, int exit_code)
{
	struct audit_event e = {
		.event = "allowed",
		.call_id = call,
		.caller = "session",
		.command = "git",
		.decision = "allow",
		.rule = "/command_policies/commands/git/invocation_policy/default",
		.argv = secret_argv,
		.env_names = env_names,
		.cwd = "/home/alice/private-project",
	};

	cr_assert_eq(audit_write(l, &e), 0);
	e = (struct audit_event){.event = "exited",
				 .call_id = call,
				 .caller = "session",
				 .command = "git",
				 .has_exit = true,
				 .exit_code = exit_code,
				 .signal = 0,
				 .duration_ms = 7,
				 .has_io = true,
				 .stdin_bytes = 1,
				 .stdout_bytes = 2,
				 .stderr_bytes = 3};
	cr_assert_eq(audit_write(l, &e), 0);
}

/* A closed log of `calls` tool calls (2 records each, plus start and end). */
static char *make_log(const char *dir, int calls, size_t *ret_len)
{
	struct audit_log *l = open_log(dir, ID);
	char path[512];

	for (int i = 0; i < calls; i++) {
		char call[16];

		snprintf(call, sizeof(call), "c%d", i);
		write_call(l, call, i);
	}
	cr_assert_eq(audit_close(l), 0);
	snprintf(path, sizeof(path), "%s/logs/%s.jsonl", dir, ID);
	return read_file(path, ret_len);
}

static char **split_lines(const char *text)
{
	char **v = NULL;

	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		char *line = strndup(p, n);

		cr_assert_eq(strv_consume(&v, line), 0);
		p += n + (p[n] == '\n');
	}
	return v;
}

static char *join_lines(char **v)
{
	size_t len = 1;
	char *s;

	STRV_FOREACH(l, v)
	len += strlen(*l) + 1;
	s = calloc(1, len);
	cr_assert_not_null(s);
	STRV_FOREACH(l, v)
	{
		strcat(s, *l);
		strcat(s, "\n");
	}
	return s;
}

static struct audit_summary scan_text(const char *text, size_t len, const char *expect)
{
	struct audit_summary s;

	cr_assert_eq(audit_scan(text, len, expect, NULL, NULL, &s), 0);
	return s;
}

/* Verify the lines (joined) and expect state, the bad line and why to say what. */
static void expect_verdict(char **lines, enum audit_state state, uint64_t bad_line, const char *what)
{
	char *text = join_lines(lines);
	struct audit_summary s = scan_text(text, strlen(text), ID);

	cr_expect_eq(s.state, state, "state %s, want %s (%s)", audit_state_name(s.state), audit_state_name(state),
		     s.why);
	cr_expect_eq(s.bad_line, bad_line, "bad line %llu, want %llu (%s)", (unsigned long long)s.bad_line,
		     (unsigned long long)bad_line, s.why);
	if (what)
		cr_expect(strstr(s.why, what), "why '%s' does not say '%s'", s.why, what);
	free(text);
}

/* ---- the writer ---- */

Test(audit, record_format_and_chain)
{
	char *dir = make_tmpdir(), path[512], hex[SHA256_HEX], prev[SHA256_HEX];
	size_t len;
	char *text = make_log(dir, 2, &len);
	char **lines = split_lines(text);
	regex_t time_re;
	struct stat st;

	cr_assert_eq(regcomp(&time_re, "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$",
			     REG_EXTENDED | REG_NOSUB),
		     0);
	cr_assert_eq(strv_length(lines), 6);
	cr_expect_eq(text[len - 1], '\n');
	memset(prev, '0', 64);
	prev[64] = '\0';
	for (size_t i = 0; lines[i]; i++) {
		json_t *o = json_loads(lines[i], JSON_REJECT_DUPLICATES, NULL);
		char *canon;

		cr_assert_not_null(o, "line %zu is not JSON", i + 1);
		/* compact, sorted keys, ASCII: the line is its own canonical form */
		canon = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
		cr_expect_str_eq(canon, lines[i]);
		free(canon);
		cr_expect_eq(json_integer_value(json_object_get(o, "v")), AUDIT_FORMAT_VERSION);
		cr_expect_eq(json_integer_value(json_object_get(o, "seq")), (json_int_t)i);
		cr_expect_str_eq(json_string_value(json_object_get(o, "session")), ID);
		cr_expect_str_eq(json_string_value(json_object_get(o, "prev")), prev);
		cr_expect_eq(regexec(&time_re, json_string_value(json_object_get(o, "time")), 0, NULL, 0), 0);
		cr_assert_eq(sha256_hex(lines[i], strlen(lines[i]), prev), 0);
		json_decref(o);
	}
	regfree(&time_re);

	json_t *start = json_loads(lines[0], 0, NULL), *call = json_loads(lines[1], 0, NULL),
	       *exited = json_loads(lines[2], 0, NULL), *end = json_loads(lines[5], 0, NULL);
	cr_expect_str_eq(json_string_value(json_object_get(start, "event")), "session_start");
	cr_expect_str_eq(json_string_value(json_object_get(start, "profile")), "git");
	cr_expect_str_eq(json_string_value(json_object_get(start, "workspace")), "/w");
	cr_expect_eq(json_integer_value(json_object_get(start, "pid")), getpid());
	cr_expect_str_eq(json_string_value(json_object_get(call, "event")), "allowed");
	cr_expect_str_eq(json_string_value(json_object_get(call, "call")), "c0");
	cr_expect_str_eq(json_string_value(json_object_get(call, "caller")), "session");
	cr_expect_str_eq(json_string_value(json_object_get(call, "command")), "git");
	cr_expect_str_eq(json_string_value(json_object_get(call, "decision")), "allow");
	cr_expect_eq(json_integer_value(json_object_get(call, "argc")), 6);
	cr_assert_eq(sha256_strv_hex(secret_argv, hex), 0);
	cr_expect_str_eq(json_string_value(json_object_get(call, "argv_sha256")), hex);
	cr_assert_eq(sha256_strv_hex(env_names, hex), 0);
	cr_expect_str_eq(json_string_value(json_object_get(call, "env_names_sha256")), hex);
	cr_expect_eq(json_integer_value(json_object_get(call, "env_count")), 2);
	cr_assert_eq(sha256_hex("/home/alice/private-project", 27, hex), 0);
	cr_expect_str_eq(json_string_value(json_object_get(call, "cwd_sha256")), hex);
	char *argv_json = json_dumps(json_object_get(call, "argv_redacted"), JSON_COMPACT);
	cr_expect_str_eq(
		argv_json,
		"[\"push\",\"https://<redacted 13 bytes, sha256:037b9e9e>@example.com/r.git\",\"--token\",\"<redacted 12 bytes, sha256:76e21f7f>\",\"main\",\"--force\"]");
	free(argv_json);
	cr_expect_null(json_object_get(call, "exit_code"), "no exit fields without has_exit");
	cr_expect_eq(json_integer_value(json_object_get(exited, "exit_code")), 0);
	cr_expect_eq(json_integer_value(json_object_get(exited, "signal")), 0);
	cr_expect_eq(json_integer_value(json_object_get(exited, "duration_ms")), 7);
	cr_expect_eq(json_integer_value(json_object_get(exited, "stdin_bytes")), 1);
	cr_expect_eq(json_integer_value(json_object_get(exited, "stdout_bytes")), 2);
	cr_expect_eq(json_integer_value(json_object_get(exited, "stderr_bytes")), 3);
	cr_expect_null(json_object_get(exited, "argv_sha256"), "no argv fields without argv");
	cr_expect_str_eq(json_string_value(json_object_get(end, "event")), "session_end");
	cr_expect_eq(json_integer_value(json_object_get(end, "records")), 5);
	json_decref(start);
	json_decref(call);
	json_decref(exited);
	json_decref(end);

	/* the file 0600, the directory 0700 */
	snprintf(path, sizeof(path), "%s/logs/%s.jsonl", dir, ID);
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0600);
	snprintf(path, sizeof(path), "%s/logs", dir);
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0700);

	struct audit_summary s = scan_text(text, len, ID);
	cr_expect_eq(s.state, AUDIT_INTACT, "%s", s.why);
	cr_expect_eq(s.records, 6);
	cr_expect_str_eq(s.head, prev);
	cr_expect_str_eq(s.profile, "git");
	strv_free(lines);
	free(text);
	rm_tree(dir);
	free(dir);
}

Test(audit, secrets_and_raw_argv_never_reach_the_file)
{
	char *dir = make_tmpdir();
	size_t len;
	char *text = make_log(dir, 3, &len);
	const char *never[] = {"hunter2", "tok-SECRET-1", "alice:", "private-project", "MY_PRIVATE_VARNAME"};

	for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++)
		cr_expect_null(strstr(text, never[i]), "'%s' is in the log", never[i]);
	/* while what a reader needs is there */
	cr_expect_not_null(strstr(text, "\"push\""));
	cr_expect_not_null(strstr(text, "\"--force\""));
	free(text);
	rm_tree(dir);
	free(dir);
}

Test(audit, argv_hash_is_unambiguous)
{
	const char *const ab_c[] = {"ab", "c", NULL}, *const a_bc[] = {"a", "bc", NULL}, *const abc[] = {"abc", NULL},
			  *const abc_empty[] = {"abc", "", NULL};
	const char *const *lists[] = {ab_c, a_bc, abc, abc_empty, NULL};
	char hex[5][SHA256_HEX], want[SHA256_HEX];
	/* count 1, length 3, "abc": all 64-bit big-endian */
	const char encoded[] = "\0\0\0\0\0\0\0\1\0\0\0\0\0\0\0\3abc";

	for (int i = 0; i < 5; i++)
		cr_assert_eq(sha256_strv_hex(lists[i], hex[i]), 0);
	for (int i = 0; i < 5; i++)
		for (int j = i + 1; j < 5; j++)
			cr_expect_str_neq(hex[i], hex[j], "lists %d and %d hash alike", i, j);
	cr_assert_eq(sha256_hex(encoded, sizeof(encoded) - 1, want), 0);
	cr_expect_str_eq(hex[2], want);
}

struct writer {
	struct audit_log *log;
	int id, n;
	int error;
};

static void *write_many(void *p)
{
	struct writer *w = p;

	for (int i = 0; i < w->n && !w->error; i++) {
		char call[32];
		struct audit_event e = {.event = "allowed",
					.call_id = call,
					.caller = "session",
					.command = "git",
					.argv = secret_argv};

		snprintf(call, sizeof(call), "t%d-%d", w->id, i);
		w->error = audit_write(w->log, &e);
	}
	return NULL;
}

static int count_calls(void *userdata, uint64_t line, json_t *record, bool verified)
{
	int *seen = userdata;
	const char *call = json_string_value(json_object_get(record, "call"));
	int t, i;

	(void)line;
	cr_assert(verified);
	if (call && sscanf(call, "t%d-%d", &t, &i) == 2 && t >= 0 && t < 8 && i >= 0 && i < 250)
		seen[t * 250 + i]++;
	return 0;
}

Test(audit, concurrent_writes_keep_the_chain)
{
	char *dir = make_tmpdir(), path[512];
	struct audit_log *l = open_log(dir, ID);
	struct writer w[8];
	pthread_t t[8];
	struct audit_summary s;
	int *seen = calloc(8 * 250, sizeof(int)), fd;

	for (int i = 0; i < 8; i++) {
		w[i] = (struct writer){.log = l, .id = i, .n = 250};
		cr_assert_eq(pthread_create(&t[i], NULL, write_many, &w[i]), 0);
	}
	for (int i = 0; i < 8; i++) {
		pthread_join(t[i], NULL);
		cr_expect_eq(w[i].error, 0);
	}
	cr_assert_eq(audit_close(l), 0);
	snprintf(path, sizeof(path), "%s/logs/%s.jsonl", dir, ID);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(audit_scan_fd(fd, ID, count_calls, seen, &s), 0);
	close(fd);
	cr_expect_eq(s.state, AUDIT_INTACT, "%s", s.why);
	cr_expect_eq(s.records, 8 * 250 + 2);
	/* every call exactly once: no line lost or torn */
	for (int i = 0; i < 8 * 250; i++)
		cr_expect_eq(seen[i], 1, "call t%d-%d seen %d times", i / 250, i % 250, seen[i]);
	free(seen);
	rm_tree(dir);
	free(dir);
}

Test(audit, open_refuses)
{
	char *dir = make_tmpdir(), path[512], target[512];
	struct audit_session s = {.session_id = ID};
	struct audit_log *l = NULL;
	const char *bad_ids[] = {"",
				 "..",
				 "a/b",
				 "-x",
				 "a.b",
				 "x y",
				 "12345678901234567890123456789012345678901234567890123456789012345"};

	for (size_t i = 0; i < sizeof(bad_ids) / sizeof(bad_ids[0]); i++) {
		s.session_id = bad_ids[i];
		cr_expect_eq(audit_open(dir, &s, &l), -EINVAL, "id '%s'", bad_ids[i]);
	}
	s.session_id = ID;

	/* control: a private directory works, and a second log of the same id is refused */
	snprintf(path, sizeof(path), "%s/ok", dir);
	cr_assert_eq(audit_open(path, &s, &l), 0);
	cr_expect_eq(audit_close(l), 0);
	cr_expect_eq(audit_open(path, &s, &l), -EEXIST);

	/* a symlink where the log would be is not followed */
	snprintf(path, sizeof(path), "%s/ok/%s.jsonl", dir, "20261202T014731Z-00000000");
	snprintf(target, sizeof(target), "%s/elsewhere", dir);
	cr_assert_eq(symlink(target, path), 0);
	s.session_id = "20261202T014731Z-00000000";
	snprintf(path, sizeof(path), "%s/ok", dir);
	cr_expect_eq(audit_open(path, &s, &l), -EEXIST);
	cr_expect_eq(access(target, F_OK), -1, "the symlink's target was created");
	s.session_id = ID;

	/* a directory others may write */
	snprintf(path, sizeof(path), "%s/shared", dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	cr_assert_eq(chmod(path, 0770), 0);
	cr_expect_eq(audit_open(path, &s, &l), -EPERM);
	cr_assert_eq(chmod(path, 0703), 0);
	cr_expect_eq(audit_open(path, &s, &l), -EPERM);
	cr_expect_eq(audit_open("/tmp", &s, &l), -EPERM); /* world-writable (and maybe not ours) */

	/* the directory itself a symlink */
	snprintf(path, sizeof(path), "%s/link", dir);
	snprintf(target, sizeof(target), "%s/ok", dir);
	cr_assert_eq(symlink(target, path), 0);
	cr_expect_eq(audit_open(path, &s, &l), -ELOOP);

	/* another user's directory (only root can make one) */
	if (geteuid() == 0) {
		snprintf(path, sizeof(path), "%s/theirs", dir);
		cr_assert_eq(mkdir(path, 0700), 0);
		cr_assert_eq(chown(path, 65534, 65534), 0);
		cr_expect_eq(audit_open(path, &s, &l), -EPERM);
	}
	rm_tree(dir);
	free(dir);
}

Test(audit, default_directory)
{
	char *dir = make_tmpdir(), path[512], *p = NULL;
	struct audit_session s = {.session_id = ID};
	struct audit_log *l = NULL;
	struct stat st;

	snprintf(path, sizeof(path), "%s/state", dir);
	cr_assert_eq(setenv("XDG_STATE_HOME", path, 1), 0);
	cr_assert_eq(audit_open(NULL, &s, &l), 0);
	snprintf(path, sizeof(path), "%s/state/cordon/audit/%s.jsonl", dir, ID);
	cr_expect_str_eq(audit_path(l), path);
	cr_expect_eq(audit_close(l), 0);
	snprintf(path, sizeof(path), "%s/state/cordon/audit", dir);
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0700);

	/* a relative XDG_STATE_HOME is ignored (XDG): HOME's */
	cr_assert_eq(setenv("XDG_STATE_HOME", "relative", 1), 0);
	cr_assert_eq(setenv("HOME", dir, 1), 0);
	cr_assert_eq(audit_dir_path(NULL, &p), 0);
	snprintf(path, sizeof(path), "%s/.local/state/cordon/audit", dir);
	cr_expect_str_eq(p, path);
	free(p);
	cr_assert_eq(unsetenv("XDG_STATE_HOME"), 0);
	cr_assert_eq(setenv("HOME", "", 1), 0);
	cr_expect_eq(audit_dir_path(NULL, &p), -ENOENT);

	/* cordon/ above the log directory is cordon's too: others may not write it */
	snprintf(path, sizeof(path), "%s/state2", dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	cr_assert_eq(setenv("XDG_STATE_HOME", path, 1), 0);
	snprintf(path, sizeof(path), "%s/state2/cordon", dir);
	cr_assert_eq(mkdir(path, 0700), 0);
	cr_assert_eq(chmod(path, 0777), 0);
	cr_expect_eq(audit_open(NULL, &s, &l), -EPERM);
	cr_assert_eq(chmod(path, 0700), 0);
	cr_expect_eq(audit_open(NULL, &s, &l), 0, "control: the same, private");
	cr_expect_eq(audit_close(l), 0);
	rm_tree(dir);
	free(dir);
}

Test(audit, event_names)
{
	char *dir = make_tmpdir();
	struct audit_log *l = open_log(dir, ID);
	const char *bad[] = {NULL,	"",    "session_start", "session_end",
			     "Allowed", "a b", "x\n",		"an_event_name_longer_than_32_chars"};
	struct audit_event e = {};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		e.event = bad[i];
		cr_expect_eq(audit_write(l, &e), -EINVAL, "event '%s'", bad[i] ? bad[i] : "(null)");
	}
	e.event = "approve_timeout";
	cr_expect_eq(audit_write(l, &e), 0, "a refused event leaves the log usable");
	cr_expect_eq(audit_close(l), 0);
	cr_expect_eq(audit_close(NULL), 0);
	rm_tree(dir);
	free(dir);
}

Test(audit, session_ids)
{
	char a[32], b[32];
	regex_t re;

	cr_assert_eq(regcomp(&re, "^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$", REG_EXTENDED | REG_NOSUB), 0);
	cr_assert_eq(audit_new_session_id(a, sizeof(a)), 0);
	cr_assert_eq(audit_new_session_id(b, sizeof(b)), 0);
	cr_expect_eq(regexec(&re, a, 0, NULL, 0), 0, "'%s'", a);
	cr_expect(audit_valid_id(a));
	cr_expect_str_neq(a, b);
	cr_expect_eq(audit_new_session_id(a, 25), -ENOBUFS);
	regfree(&re);
}

/* In a child: the file may grow only a little (RLIMIT_FSIZE), so a write
 * fails; every later write must fail too, even once the limit is gone. */
static int child_write_fails(const char *dir)
{
	struct audit_session s = {.session_id = ID};
	struct audit_log *l = NULL;
	struct audit_event e = {.event = "allowed", .argv = secret_argv, .reason = "filler filler filler"};
	struct rlimit unlimited = {RLIM_INFINITY, RLIM_INFINITY}, small = {2000, RLIM_INFINITY};
	int r = 0, i;

	signal(SIGXFSZ, SIG_IGN);
	if (audit_open(dir, &s, &l) < 0 || setrlimit(RLIMIT_FSIZE, &small) < 0)
		return 10;
	for (i = 0; i < 100 && (r = audit_write(l, &e)) == 0; i++)
		;
	/* it must fail, and only past the limit: a short write (-EIO), or
	 * none at all (-EFBIG) */
	if ((r != -EIO && r != -EFBIG) || i == 0)
		return 11;
	if (setrlimit(RLIMIT_FSIZE, &unlimited) < 0)
		return 12;
	e.argv = NULL;
	e.reason = NULL;
	if (audit_write(l, &e) != r)
		return 13; /* not sticky: the supervisor would go on */
	if (audit_close(l) != r)
		return 14;
	return 0;
}

Test(audit, a_failed_write_fails_every_later_one)
{
	char *dir = make_tmpdir(), path[512];
	struct audit_summary s;
	size_t len;
	char *text;
	pid_t pid;
	int status;

	snprintf(path, sizeof(path), "%s/logs", dir);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0)
		_exit(child_write_fails(path));
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
	/* what was written before the failure verifies, and the log is not complete */
	snprintf(path, sizeof(path), "%s/logs/%s.jsonl", dir, ID);
	text = read_file(path, &len);
	cr_expect_leq(len, 2000);
	s = scan_text(text, len, ID);
	cr_expect_eq(s.state, AUDIT_INCOMPLETE, "%s: %s", audit_state_name(s.state), s.why);
	cr_expect_geq(s.records, 2);
	free(text);
	rm_tree(dir);
	free(dir);
}

/* ---- the reader: tampering ---- */

/* The log's lines (start, 3 calls of 2 records, end: 8 lines). */
static char **sample_lines(void)
{
	char *dir = make_tmpdir();
	size_t len;
	char *text = make_log(dir, 3, &len);
	char **lines = split_lines(text);

	cr_assert_eq(strv_length(lines), 8);
	free(text);
	rm_tree(dir);
	free(dir);
	return lines;
}

/* line i (0-based) with its JSON field key set to value, re-serialised as
 * the writer would: a careful edit */
static void edit_field(char **lines, size_t i, const char *key, json_t *value)
{
	json_t *o = json_loads(lines[i], 0, NULL);

	cr_assert_not_null(o);
	cr_assert_eq(json_object_set_new(o, key, value), 0);
	free(lines[i]);
	lines[i] = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
	json_decref(o);
}

/* Recompute prev from line `from` on: the rewriter who knows the format. */
static void rechain(char **lines, size_t from)
{
	char prev[SHA256_HEX];

	for (size_t i = from; lines[i]; i++) {
		cr_assert_eq(sha256_hex(lines[i - 1], strlen(lines[i - 1]), prev), 0);
		edit_field(lines, i, "prev", json_string(prev));
	}
}

Test(audit, an_intact_log)
{
	char **lines = sample_lines();

	expect_verdict(lines, AUDIT_INTACT, 0, NULL);
	strv_free(lines);
}

Test(audit, an_edited_line)
{
	char **lines = sample_lines();

	/* the exit code of call c1, edited carefully: the next line's prev tells */
	edit_field(lines, 4, "exit_code", json_integer(0));
	expect_verdict(lines, AUDIT_TAMPERED, 6, "prev is not the SHA-256 of the line before");
	strv_free(lines);

	/* one byte of the first record */
	lines = sample_lines();
	lines[0][strlen(lines[0]) - 3] ^= 1;
	expect_verdict(lines, AUDIT_TAMPERED, 2, "prev");
	strv_free(lines);

	/* the last tool-call record: session_end's prev tells */
	lines = sample_lines();
	edit_field(lines, 6, "stdout_bytes", json_integer(0));
	expect_verdict(lines, AUDIT_TAMPERED, 8, "prev");
	strv_free(lines);
}

Test(audit, reordered_lines)
{
	char **lines = sample_lines(), *t = lines[2];

	lines[2] = lines[3];
	lines[3] = t;
	expect_verdict(lines, AUDIT_TAMPERED, 3, "seq is 3 where 2 was expected");
	strv_free(lines);
}

Test(audit, a_deleted_line)
{
	char **lines = sample_lines();

	free(lines[3]);
	memmove(lines + 3, lines + 4, 5 * sizeof(char *));
	expect_verdict(lines, AUDIT_TAMPERED, 4, "deleted");
	strv_free(lines);
}

Test(audit, an_inserted_line)
{
	char **lines = sample_lines();

	/* a copy of a real record */
	lines = realloc(lines, 10 * sizeof(char *));
	memmove(lines + 4, lines + 3, 6 * sizeof(char *));
	lines[3] = strdup(lines[4]);
	expect_verdict(lines, AUDIT_TAMPERED, 5, "inserted");
	strv_free(lines);

	/* a forged record with the right seq and prev: the line after it tells */
	lines = sample_lines();
	lines = realloc(lines, 10 * sizeof(char *));
	memmove(lines + 4, lines + 3, 6 * sizeof(char *));
	lines[3] = strdup(lines[2]);
	edit_field(lines, 3, "seq", json_integer(3));
	edit_field(lines, 3, "event", json_string("approve_granted"));
	rechain(lines, 3);
	/* the rest keeps its old seq: the first of them is caught */
	expect_verdict(lines, AUDIT_TAMPERED, 5, "seq is 3 where 4 was expected");
	strv_free(lines);
}

Test(audit, not_json_empty_and_oversized_lines)
{
	char **lines = sample_lines();

	free(lines[2]);
	lines[2] = strdup("{\"v\":1,\"seq\":2,");
	expect_verdict(lines, AUDIT_TAMPERED, 3, "not JSON");
	free(lines[2]);
	lines[2] = strdup("[1,2,3]");
	expect_verdict(lines, AUDIT_TAMPERED, 3, "not a JSON object");
	free(lines[2]);
	lines[2] = strdup("");
	expect_verdict(lines, AUDIT_TAMPERED, 3, "empty line");
	free(lines[2]);
	lines[2] = calloc(1, AUDIT_MAX_LINE_BYTES + 10);
	memset(lines[2], ' ', AUDIT_MAX_LINE_BYTES + 5);
	expect_verdict(lines, AUDIT_TAMPERED, 3, "longer than");
	strv_free(lines);

	/* a duplicate key: two readers could see two values */
	lines = sample_lines();
	char *dup = NULL;
	cr_assert(asprintf(&dup, "{\"exit_code\":0,%s", lines[4] + 1) > 0);
	free(lines[4]);
	lines[4] = dup;
	expect_verdict(lines, AUDIT_TAMPERED, 5, "duplicate");
	strv_free(lines);
}

Test(audit, broken_fields)
{
	char **lines = sample_lines();

	edit_field(lines, 7, "v", json_integer(2));
	expect_verdict(lines, AUDIT_TAMPERED, 8, "not a version 1 record");
	strv_free(lines);

	lines = sample_lines();
	edit_field(lines, 7, "seq", json_integer(9));
	expect_verdict(lines, AUDIT_TAMPERED, 8, "seq is 9 where 7");
	strv_free(lines);

	lines = sample_lines();
	edit_field(lines, 7, "seq", json_string("7"));
	expect_verdict(lines, AUDIT_TAMPERED, 8, "no seq");
	strv_free(lines);

	lines = sample_lines();
	edit_field(lines, 7, "event", json_string("session_start"));
	expect_verdict(lines, AUDIT_TAMPERED, 8, "a second session_start");
	strv_free(lines);

	lines = sample_lines();
	edit_field(lines, 0, "event", json_string("allowed"));
	expect_verdict(lines, AUDIT_TAMPERED, 1, "not session_start");
	strv_free(lines);

	lines = sample_lines();
	edit_field(lines, 0, "prev", json_string("1111111111111111111111111111111111111111111111111111111111111111"));
	expect_verdict(lines, AUDIT_TAMPERED, 1, "64 zeros");
	strv_free(lines);
}

Test(audit, another_session)
{
	char **lines = sample_lines();
	char *text = join_lines(lines);
	struct audit_summary s;

	/* the file named for another session */
	s = scan_text(text, strlen(text), "20261202T014731Z-ffffffff");
	cr_expect_eq(s.state, AUDIT_TAMPERED);
	cr_expect_eq(s.bad_line, 1);
	cr_expect(strstr(s.why, "another session"), "%s", s.why);
	/* no name to go by: the first record's, then every record must agree */
	s = scan_text(text, strlen(text), NULL);
	cr_expect_eq(s.state, AUDIT_INTACT, "%s", s.why);
	cr_expect_str_eq(s.session, ID);
	free(text);

	/* a record of another session spliced in, chain recomputed */
	edit_field(lines, 3, "session", json_string("20261202T014731Z-ffffffff"));
	rechain(lines, 4);
	text = join_lines(lines);
	s = scan_text(text, strlen(text), NULL);
	cr_expect_eq(s.state, AUDIT_TAMPERED);
	cr_expect_eq(s.bad_line, 4);
	cr_expect(strstr(s.why, "another session"), "%s", s.why);
	free(text);
	strv_free(lines);
}

Test(audit, records_after_the_end)
{
	char **lines = sample_lines();

	lines = realloc(lines, 10 * sizeof(char *));
	lines[8] = strdup(lines[6]);
	lines[9] = NULL;
	edit_field(lines, 8, "seq", json_integer(8));
	rechain(lines, 8);
	expect_verdict(lines, AUDIT_TAMPERED, 9, "after session_end");
	strv_free(lines);
}

Test(audit, incomplete_logs)
{
	char **lines = sample_lines();
	char *text = join_lines(lines);
	size_t len = strlen(text), last = strlen(lines[7]) + 1;
	struct audit_summary s;

	/* no session_end: killed, or the end cut off at a line */
	s = scan_text(text, len - last, ID);
	cr_expect_eq(s.state, AUDIT_INCOMPLETE);
	cr_expect_eq(s.records, 7);
	cr_expect_eq(s.bad_line, 0);
	cr_expect(strstr(s.why, "no session_end"), "%s", s.why);

	/* cut inside the last line */
	s = scan_text(text, len - last / 2, ID);
	cr_expect_eq(s.state, AUDIT_INCOMPLETE);
	cr_expect_eq(s.records, 7);
	cr_expect_eq(s.bad_line, 8);
	cr_expect(strstr(s.why, "cut"), "%s", s.why);

	/* nothing at all */
	s = scan_text("", 0, ID);
	cr_expect_eq(s.state, AUDIT_INCOMPLETE);
	cr_expect_eq(s.records, 0);

	/* a whole log, not cut: the control */
	s = scan_text(text, len, ID);
	cr_expect_eq(s.state, AUDIT_INTACT, "%s", s.why);
	free(text);
	strv_free(lines);
}

Test(audit, over_the_size_cap)
{
	struct audit_summary s;

	/* over the cap nothing is read: the buffer is never touched */
	cr_assert_eq(audit_scan(NULL, AUDIT_MAX_FILE_BYTES + 1, ID, NULL, NULL, &s), 0);
	cr_expect_eq(s.state, AUDIT_TAMPERED);
	cr_expect(strstr(s.why, "over"), "%s", s.why);
}

Test(audit, over_the_size_cap_on_disk)
{
	char *dir = make_tmpdir(), path[512];
	struct audit_summary s;
	int fd;

	snprintf(path, sizeof(path), "%s/big.jsonl", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, (off_t)AUDIT_MAX_FILE_BYTES + 1), 0); /* sparse */
	cr_assert_eq(audit_scan_fd(fd, NULL, NULL, NULL, &s), 0);
	cr_expect_eq(s.state, AUDIT_TAMPERED);
	cr_expect(strstr(s.why, "over"), "%s", s.why);
	close(fd);
	cr_expect_eq(audit_scan_fd(open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), NULL, NULL, NULL, &s), -EINVAL);
	rm_tree(dir);
	free(dir);
}

/* What a reader is shown after a bad line: the records, marked unverified. */
static int note_verified(void *userdata, uint64_t line, json_t *record, bool verified)
{
	char *marks = userdata;

	(void)record;
	if (line < 16)
		marks[line] = verified ? 'v' : 'u';
	return 0;
}

Test(audit, records_after_a_bad_line_are_unverified)
{
	char **lines = sample_lines(), marks[16] = "";
	char *text;
	struct audit_summary s;

	edit_field(lines, 3, "exit_code", json_integer(42));
	text = join_lines(lines);
	memset(marks, '-', 9);
	cr_assert_eq(audit_scan(text, strlen(text), ID, note_verified, marks, &s), 0);
	cr_expect_eq(s.state, AUDIT_TAMPERED);
	cr_expect_eq(s.bad_line, 5);
	cr_expect_eq(s.records, 4);
	cr_expect_eq(memcmp(marks + 1, "vvvvuuuu", 8), 0, "marks %.8s", marks + 1);
	free(text);
	strv_free(lines);
}

Test(audit, a_rewritten_chain_needs_the_head)
{
	char **lines = sample_lines();
	char *text = join_lines(lines);
	struct audit_summary before, after;

	before = scan_text(text, strlen(text), ID);
	free(text);
	/* a rewriter who recomputes every prev makes a chain that verifies... */
	edit_field(lines, 3, "decision", json_string("deny"));
	rechain(lines, 4);
	text = join_lines(lines);
	after = scan_text(text, strlen(text), ID);
	cr_expect_eq(after.state, AUDIT_INTACT, "%s", after.why);
	/* ...but not with the head the writer reported */
	cr_expect_str_neq(before.head, after.head);
	free(text);
	strv_free(lines);
}

Test(audit, session_of_a_file_name)
{
	char id[AUDIT_MAX_ID + 1];

	cr_expect(audit_session_of("/x/y/" ID ".jsonl", id));
	cr_expect_str_eq(id, ID);
	cr_expect(audit_session_of(ID ".jsonl", id));
	cr_expect_not(audit_session_of("/x/.jsonl", id));
	cr_expect_not(audit_session_of("/x/a.b.jsonl", id));
	cr_expect_not(audit_session_of("/x/" ID ".json", id));
	cr_expect_not(audit_session_of("/x/-a.jsonl", id));
}

/* The largest record the caps allow still fits a line: every word and text
 * at its cap in characters JSON escapes the longest (U+1F600 becomes a
 * 12-byte surrogate pair). */
Test(audit, the_largest_record_fits_a_line)
{
	char *dir = make_tmpdir(), path[512], *word = malloc(4 * 300 + 1), *text = malloc(4 * 2000 + 1);
	const char **argv = calloc(4097, sizeof(char *));
	struct audit_log *l = open_log(dir, ID);
	struct audit_summary s;
	size_t len;
	char *log;

	cr_assert(word && text && argv);
	for (int i = 0; i < 300; i++)
		memcpy(word + 4 * i, "\xf0\x9f\x98\x80", 4);
	word[4 * 300] = '\0';
	for (int i = 0; i < 2000; i++)
		memcpy(text + 4 * i, "\xf0\x9f\x98\x80", 4);
	text[4 * 2000] = '\0';
	for (int i = 0; i < 4096; i++)
		argv[i] = word;
	struct audit_event e = {.event = "denied",
				.call_id = text,
				.caller = text,
				.command = text,
				.decision = text,
				.rule = text,
				.reason = text,
				.backend = text,
				.argv = argv,
				.env_names = argv,
				.cwd = text,
				.has_exit = true,
				.has_io = true};
	cr_expect_eq(audit_write(l, &e), 0);
	cr_expect_eq(audit_close(l), 0);
	snprintf(path, sizeof(path), "%s/logs/%s.jsonl", dir, ID);
	log = read_file(path, &len);
	s = scan_text(log, len, ID);
	cr_expect_eq(s.state, AUDIT_INTACT, "%s", s.why);
	cr_expect_eq(s.records, 3);
	free(log);
	free(word);
	free(text);
	free(argv);
	rm_tree(dir);
	free(dir);
}

static int count_unverified(void *userdata, uint64_t line, json_t *record, bool verified)
{
	uint64_t *n = userdata;

	(void)line;
	(void)record;
	*n += !verified;
	return 0;
}

Test(audit, a_long_tail_after_a_bad_line_is_not_read_whole)
{
	size_t tail = 3 * AUDIT_MAX_UNVERIFIED, len = tail * 3 + 16;
	char *text = malloc(len), *p = text;
	struct audit_summary s;
	uint64_t unverified = 0;

	cr_assert_not_null(text);
	p += sprintf(p, "garbage\n");
	for (size_t i = 0; i < tail; i++)
		p += sprintf(p, "{}\n");
	cr_assert_eq(audit_scan(text, (size_t)(p - text), NULL, count_unverified, &unverified, &s), 0);
	cr_expect_eq(s.state, AUDIT_TAMPERED);
	cr_expect_eq(s.bad_line, 1);
	cr_expect_eq(unverified, AUDIT_MAX_UNVERIFIED);
	cr_expect_leq(s.lines, AUDIT_MAX_UNVERIFIED + 2);
	free(text);
}

/* The end, signed: the seal's signature verifies under the key the log's
 * session_start names, over the session and the head; any other head, key
 * or a changed signature does not; the seal is stored beside the logs. */
Test(audit, the_end_is_signed)
{
	char *dir = make_tmpdir(), path[512], *msg = NULL, *other = NULL, bad[ED25519_SIG_HEX];
	struct audit_log *l = open_log(dir, ID);
	struct audit_seal seal = {};
	struct signing_key *k = NULL;
	char otherkey[ED25519_PUB_HEX], *text;
	size_t len;

	write_call(l, "c0", 0);
	cr_assert_eq(audit_close_sealed(l, &seal), 0);
	cr_assert(seal.sealed);
	cr_assert_eq(seal.stored, 0);
	cr_assert_eq(seal.records, 4);
	cr_assert_eq(audit_head_message(ID, seal.head, &msg), 0);
	cr_assert_eq(ed25519_verify_hex(seal.pubkey, msg, strlen(msg), seal.sig), 0);
	/* the key the log names */
	snprintf(path, sizeof(path), "%s/logs/%s.jsonl", dir, ID);
	text = read_file(path, &len);
	cr_assert(strstr(text, seal.pubkey), "%s", text);
	free(text);
	/* stored in logs-heads */
	snprintf(path, sizeof(path), "%s/logs-heads/%s.head", dir, ID);
	text = read_file(path, &len);
	cr_assert(strstr(text, seal.sig) && strstr(text, seal.head), "%s", text);
	free(text);
	/* another head, a changed signature, another key: no */
	cr_assert_eq(audit_head_message(ID, "0000000000000000000000000000000000000000000000000000000000000000", &other),
		     0);
	cr_assert_eq(ed25519_verify_hex(seal.pubkey, other, strlen(other), seal.sig), -EBADMSG);
	memcpy(bad, seal.sig, sizeof(bad));
	bad[10] = bad[10] == 'a' ? 'b' : 'a';
	cr_assert_eq(ed25519_verify_hex(seal.pubkey, msg, strlen(msg), bad), -EBADMSG);
	cr_assert_eq(signing_key_new(&k), 0);
	cr_assert_eq(signing_key_public_hex(k, otherkey), 0);
	cr_assert_eq(ed25519_verify_hex(otherkey, msg, strlen(msg), seal.sig), -EBADMSG);
	cr_assert_eq(ed25519_verify_hex("zz", msg, strlen(msg), seal.sig), -EINVAL);
	signing_key_free(k);
	free(msg);
	free(other);
	free(dir);
}
