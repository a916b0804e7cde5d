/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The decisions on compiled command_policies, through the public API
 * (cordon.h): edges, each matcher, the order of the rule lists, per-caller
 * overrides, unknown names; the edge's sandbox; the approval backends; and
 * where an executable is taken from (never a directory the session can
 * write).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "canon.h"
#include "cleanup.h"
#include "profile.h"
#include "strv.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_profile *, profile_free)
#define _cleanup_profile_ _cleanup_(profile_freep)

static const struct profile_env env = {
	.workspace = "/nonexistent/cordon-ws",
	.home = "/nonexistent/cordon-home",
	.tmpdir = "/tmp",
	.xdg_config_home = "/nonexistent/cordon-home/.config",
	.user_profile_dir = "",
	.data_profile_dir = "",
	.system_gitconfig = "",
	.inspect = true,
};

static const char policies[] =
	"{ \"command_policies\": {\n"
	"  \"approval_backends\": {\n"
	"    \"me\": { \"type\": \"terminal\", \"timeout_secs\": 30, \"default\": \"deny\" },\n"
	"    \"bot\": { \"type\": \"webhook\", \"url\": \"https://127.0.0.1:8765/approve\",\n"
	"             \"secret_env\": \"CORDON_APPROVAL_KEY\", \"answer_secret_env\": \"CORDON_APPROVAL_ANSWER_KEY\", \"timeout_secs\": 5 },\n"
	"    \"both\": { \"type\": \"chain\", \"mode\": \"all\", \"backends\": [\"me\", \"bot\"] } },\n"
	"  \"commands\": {\n"
	"    \"git\": {\n"
	"      \"executable\": \"/usr/bin/git\",\n"
	"      \"sandbox\": { \"fs_read\": [\"$WORKSPACE\", \"~/.gitconfig\"], \"fs_write\": [\"$WORKSPACE\"],\n"
	"                   \"network\": { \"mode\": \"none\" },\n"
	"                   \"environment\": { \"allow_vars\": [\"LANG\", \"GIT_AUTHOR_NAME\"],\n"
	"                                    \"set_vars\": { \"GIT_TERMINAL_PROMPT\": \"0\" } },\n"
	"                   \"limits\": { \"timeout\": \"120s\", \"memory\": \"1G\" },\n"
	"                   \"stdio\": { \"stdout\": { \"max_bytes\": 1048576, \"on_limit\": \"truncate\" } } },\n"
	"      \"invocation_policy\": {\n"
	"        \"default\": \"allow\", \"backend\": \"both\",\n"
	"        \"allow\": [ { \"argv\": { \"exact\": [\"push\", \"--force\"] }, \"reason\": \"never reached\" } ],\n"
	"        \"deny\": [ { \"argv\": { \"prefix\": [\"push\", \"--force\"] }, \"reason\": \"no force pushes\" },\n"
	"                  { \"argv\": { \"contains\": [\"--no-verify\", \"commit\"] } } ],\n"
	"        \"approve\": [ { \"argv\": { \"prefix\": [\"push\"] }, \"backend\": \"me\" },\n"
	"                     { \"env\": { \"GIT_DIR\": { \"one_of\": [\"/a\", \"/b\"] } } } ] },\n"
	"      \"can_use\": [\"ssh\"] },\n"
	"    \"ssh\": { \"from\": { \"session\": \"deny\",\n"
	"                       \"git\": { \"fs_read\": [\"~/.ssh\"], \"stdio\": { \"stderr\": { \"max_bytes\": 4096,\n"
	"                                 \"on_limit\": \"terminate\" } } } } },\n"
	"    \"curl\": {\n"
	"      \"sandbox\": { \"network\": { \"mode\": \"proxy\", \"allow_domains\": [\"example.com\"],\n"
	"                   \"deny_domains\": [\"*.evil.example\"], \"allow_addresses\": [\"10.0.0.0/8\"] } },\n"
	"      \"invocation_policy\": { \"default\": \"deny\",\n"
	"        \"allow\": [ { \"argv\": { \"exact\": [] } },\n"
	"                   { \"argv\": { \"prefix\": [\"-s\"] },\n"
	"                     \"env\": { \"CI\": { \"equals\": \"true\" }, \"HOST\": { \"one_of\": [\"a\", \"b\"] } } } ] } },\n"
	"    \"make\": { \"can_use\": [\"cc\"] },\n"
	"    \"cc\": { \"invocation_policy\": { \"default\": \"allow\" },\n"
	"      \"from\": { \"make\": { \"invocation_policy\": { \"default\": \"deny\",\n"
	"                                                   \"allow\": [ { \"argv\": { \"prefix\": [\"-c\"] } } ] } } } }\n"
	"} } }\n";

static struct cordon_profile *prof;
static const struct cordon_tools *tools;

static void setup(void)
{
	struct cordon_error e = {};

	cr_assert_eq(profile_load_buffer(policies, strlen(policies), "t.json", &env, &prof, &e), 0, "%s", e.message);
	tools = prof->tools;
	cr_assert_not_null(tools);
}

static void teardown(void)
{
	prof = profile_free(prof);
	tools = NULL;
}

/* decide, and say what came out */
static struct cordon_tool_decision decide(const char *caller, const char *command, const char *const *argv,
					  const char *const *envp)
{
	struct cordon_tool_decision d;

	memset(&d, 0xaa, sizeof(d));
	cr_assert_eq(cordon_tools_decide(tools, caller, command, argv, envp, &d), 0);
	return d;
}

#define ARGV(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void expect(const struct cordon_tool_decision *d, enum cordon_tool_action action, const char *rule,
		   const char *reason, const char *backend)
{
	cr_expect_eq(d->action, action, "%s: %s, not %s", d->rule, cordon_tool_action_to_string(d->action),
		     cordon_tool_action_to_string(action));
	cr_expect_str_eq(d->rule, rule);
	if (reason)
		cr_expect_str_eq(d->reason, reason);
	cr_expect_str_eq(d->backend, backend);
}

/* ---- edges ------------------------------------------------------------------- */

Test(tools, edges, .init = setup, .fini = teardown)
{
	struct cordon_tool_decision d;

	/* the session reaches every command ... */
	d = decide(CORDON_TOOLS_SESSION, "git", ARGV("status"), NULL);
	expect(&d, CORDON_TOOL_ALLOW, "/command_policies/commands/git/invocation_policy/default",
	       "no rule matches: the invocation_policy's default is allow", "");
	/* ... unless from.session says deny */
	d = decide(CORDON_TOOLS_SESSION, "ssh", ARGV("host"), NULL);
	expect(&d, CORDON_TOOL_DENY, "/command_policies/commands/ssh/from/session",
	       "session may not call ssh: from.session is \"deny\"", "");
	cr_expect_str_eq(d.file, "t.json");
	cr_expect_eq(d.line, 24);
	/* a command reaches what its can_use names ... */
	d = decide("git", "ssh", ARGV("host"), NULL);
	expect(&d, CORDON_TOOL_ALLOW, "/command_policies/commands/ssh",
	       "ssh has no invocation_policy: every call is allowed", "");
	/* ... but not itself: it runs itself directly, in the sandbox its
	 * caller gave it; through the broker it would get its own, maybe wider */
	d = decide("git", "git", ARGV("status"), NULL);
	expect(&d, CORDON_TOOL_DENY, "/command_policies/commands/git",
	       "git calls itself directly, in the sandbox it runs in; never through the broker", "");
	/* a variable sent twice: a tool would read one value, a rule check
	 * another; the call is refused, before any rule */
	d = decide(CORDON_TOOLS_SESSION, "git", ARGV("status"), ARGV("A=1", "GIT_DIR=/a", "B=2", "GIT_DIR=/b"));
	expect(&d, CORDON_TOOL_DENY, "/command_policies/commands/git",
	       "GIT_DIR is set twice in the caller's environment: a call says each variable once", "");
	d = decide(CORDON_TOOLS_SESSION, "git", ARGV("status"), ARGV("GIT=1", "GIT_DIR=/a"));
	cr_expect_neq(d.action, CORDON_TOOL_DENY, "%s", d.reason);
	/* ... and nothing else */
	d = decide("ssh", "git", ARGV("status"), NULL);
	expect(&d, CORDON_TOOL_DENY, "/command_policies/commands/ssh/can_use",
	       "ssh may not call git: it is not in ssh's can_use", "");
	cr_expect_eq(d.line, 24);
	d = decide("git", "curl", NULL, NULL);
	expect(&d, CORDON_TOOL_DENY, "/command_policies/commands/git/can_use",
	       "git may not call curl: it is not in git's can_use", "");
	/* unknown names are a deny, with a reason, and no rule of the profile */
	d = decide(CORDON_TOOLS_SESSION, "rm", ARGV("-rf", "/"), NULL);
	expect(&d, CORDON_TOOL_DENY, "/command_policies/commands", "rm is not a command under command_policies", "");
	cr_expect_str_eq(d.file, "");
	cr_expect_eq(d.line, 0);
	d = decide("bash", "git", ARGV("status"), NULL);
	expect(&d, CORDON_TOOL_DENY, "/command_policies/commands",
	       "no caller bash: neither the session nor a command under command_policies", "");
	/* the caller's name is compared whole: "Session" is nobody */
	d = decide("Session", "git", NULL, NULL);
	cr_expect_eq(d.action, CORDON_TOOL_DENY);
}

Test(tools, bad_arguments, .init = setup, .fini = teardown)
{
	struct cordon_tool_decision d;

	cr_expect_eq(cordon_tools_decide(NULL, "session", "git", NULL, NULL, &d), -EINVAL);
	cr_expect_eq(cordon_tools_decide(tools, NULL, "git", NULL, NULL, &d), -EINVAL);
	cr_expect_eq(cordon_tools_decide(tools, "session", NULL, NULL, NULL, &d), -EINVAL);
	cr_expect_eq(cordon_tools_decide(tools, "session", "git", NULL, NULL, NULL), -EINVAL);
}

/* ---- the matchers and their order ------------------------------------------------ */

Test(tools, deny_then_approve_then_allow_then_default, .init = setup, .fini = teardown)
{
	struct cordon_tool_decision d;

	/* the allow rule matches exactly too, but deny rules come first */
	d = decide(CORDON_TOOLS_SESSION, "git", ARGV("push", "--force"), NULL);
	expect(&d, CORDON_TOOL_DENY, "/command_policies/commands/git/invocation_policy/deny/0", "no force pushes", "");
	cr_expect_eq(d.line, 19);
	/* prefix: more words after it still match */
	d = decide(CORDON_TOOLS_SESSION, "git", ARGV("push", "--force", "origin", "main"), NULL);
	expect(&d, CORDON_TOOL_DENY, "/command_policies/commands/git/invocation_policy/deny/0", "no force pushes", "");
	/* approve before allow; the rule's own backend */
	d = decide(CORDON_TOOLS_SESSION, "git", ARGV("push", "origin"), NULL);
	expect(&d, CORDON_TOOL_APPROVE, "/command_policies/commands/git/invocation_policy/approve/0",
	       "the call matches this approve rule", "me");
	cr_expect_eq(d.line, 21);
	/* a prefix longer than argv does not match */
	d = decide(CORDON_TOOLS_SESSION, "git", ARGV("pus"), NULL);
	expect(&d, CORDON_TOOL_ALLOW, "/command_policies/commands/git/invocation_policy/default", NULL, "");
}

Test(tools, contains_is_every_word_anywhere, .init = setup, .fini = teardown)
{
	struct cordon_tool_decision d;

	d = decide(CORDON_TOOLS_SESSION, "git", ARGV("commit", "-m", "x", "--no-verify"), NULL);
	expect(&d, CORDON_TOOL_DENY, "/command_policies/commands/git/invocation_policy/deny/1",
	       "the call matches this deny rule", "");
	d = decide(CORDON_TOOLS_SESSION, "git", ARGV("--no-verify", "commit"), NULL);
	cr_expect_eq(d.action, CORDON_TOOL_DENY);
	/* one of the two words is not enough, and words are whole */
	d = decide(CORDON_TOOLS_SESSION, "git", ARGV("commit", "-m", "--no-verify=1"), NULL);
	cr_expect_eq(d.action, CORDON_TOOL_ALLOW);
	d = decide(CORDON_TOOLS_SESSION, "git", ARGV("merge", "--no-verify"), NULL);
	cr_expect_eq(d.action, CORDON_TOOL_ALLOW);
}

Test(tools, exact_is_the_whole_argv, .init = setup, .fini = teardown)
{
	struct cordon_tool_decision d;

	d = decide(CORDON_TOOLS_SESSION, "curl", NULL, NULL);
	expect(&d, CORDON_TOOL_ALLOW, "/command_policies/commands/curl/invocation_policy/allow/0", NULL, "");
	d = decide(CORDON_TOOLS_SESSION, "curl", ARGV("https://example.com"), NULL);
	expect(&d, CORDON_TOOL_DENY, "/command_policies/commands/curl/invocation_policy/default",
	       "no rule matches: the invocation_policy's default is deny", "");
}

Test(tools, env_equals_and_one_of, .init = setup, .fini = teardown)
{
	struct cordon_tool_decision d;

	/* one_of, and the policy's backend for an approve rule without one */
	d = decide(CORDON_TOOLS_SESSION, "git", ARGV("status"), ARGV("HOME=/h", "GIT_DIR=/b"));
	expect(&d, CORDON_TOOL_APPROVE, "/command_policies/commands/git/invocation_policy/approve/1", NULL, "both");
	d = decide(CORDON_TOOLS_SESSION, "git", ARGV("status"), ARGV("GIT_DIR=/c"));
	cr_expect_eq(d.action, CORDON_TOOL_ALLOW);
	/* every variable must hold; unset matches neither equals nor one_of */
	d = decide(CORDON_TOOLS_SESSION, "curl", ARGV("-s", "x"), ARGV("CI=true", "HOST=a"));
	expect(&d, CORDON_TOOL_ALLOW, "/command_policies/commands/curl/invocation_policy/allow/1", NULL, "");
	d = decide(CORDON_TOOLS_SESSION, "curl", ARGV("-s", "x"), ARGV("CI=true"));
	cr_expect_eq(d.action, CORDON_TOOL_DENY);
	d = decide(CORDON_TOOLS_SESSION, "curl", ARGV("-s", "x"), ARGV("CI=true", "HOST=c"));
	cr_expect_eq(d.action, CORDON_TOOL_DENY);
	d = decide(CORDON_TOOLS_SESSION, "curl", ARGV("-s", "x"), ARGV("CI=TRUE", "HOST=a"));
	cr_expect_eq(d.action, CORDON_TOOL_DENY);
	d = decide(CORDON_TOOLS_SESSION, "curl", ARGV("-s", "x"), ARGV("CI=", "HOST=a"));
	cr_expect_eq(d.action, CORDON_TOOL_DENY);
	/* CI twice is refused (whatever the values); a longer name or no '=' is not CI */
	d = decide(CORDON_TOOLS_SESSION, "curl", ARGV("-s"), ARGV("CI=false", "CI=true", "HOST=b"));
	cr_expect_eq(d.action, CORDON_TOOL_DENY);
	d = decide(CORDON_TOOLS_SESSION, "curl", ARGV("-s"), ARGV("CI", "CIX=true", "CI=true", "HOST=b"));
	cr_expect_eq(d.action, CORDON_TOOL_ALLOW);
	/* argv must hold too */
	d = decide(CORDON_TOOLS_SESSION, "curl", ARGV("-v"), ARGV("CI=true", "HOST=a"));
	cr_expect_eq(d.action, CORDON_TOOL_DENY);
}

/* from.CALLER's invocation_policy replaces the command's for that caller only */
Test(tools, from_replaces_the_policy, .init = setup, .fini = teardown)
{
	struct cordon_tool_decision d;

	d = decide("make", "cc", ARGV("-o", "x"), NULL);
	expect(&d, CORDON_TOOL_DENY, "/command_policies/commands/cc/from/make/invocation_policy/default", NULL, "");
	d = decide("make", "cc", ARGV("-c", "x.c"), NULL);
	expect(&d, CORDON_TOOL_ALLOW, "/command_policies/commands/cc/from/make/invocation_policy/allow/0", NULL, "");
	d = decide(CORDON_TOOLS_SESSION, "cc", ARGV("-o", "x"), NULL);
	expect(&d, CORDON_TOOL_ALLOW, "/command_policies/commands/cc/invocation_policy/default", NULL, "");
}

/* ---- the edge's sandbox ----------------------------------------------------------- */

static size_t count(const char *const *v)
{
	cr_assert_not_null(v, "a list of the sandbox is NULL");
	return strv_length((char *const *)v);
}

Test(tools, sandbox, .init = setup, .fini = teardown)
{
	struct cordon_tool_sandbox sb;

	cr_assert_eq(cordon_tools_sandbox(tools, CORDON_TOOLS_SESSION, "git", &sb), 0);
	cr_expect_eq(count(sb.fs_read), 2);
	cr_expect_str_eq(sb.fs_read[0], "/nonexistent/cordon-ws");
	cr_expect_str_eq(sb.fs_read[1], "/nonexistent/cordon-home/.gitconfig");
	cr_expect_eq(count(sb.fs_write), 1);
	cr_expect_eq(count(sb.fs_read_file) + count(sb.fs_write_file) + count(sb.exec_paths), 0);
	cr_expect(sb.net_set);
	cr_expect_eq(sb.net, CORDON_NET_NONE);
	cr_expect_eq(count(sb.allow_domains) + count(sb.deny_domains) + count(sb.allow_addresses), 0);
	cr_expect_eq(count(sb.allow_vars), 2);
	cr_expect_str_eq(sb.allow_vars[1], "GIT_AUTHOR_NAME");
	cr_expect_eq(count(sb.set_vars), 1);
	cr_expect_str_eq(sb.set_vars[0], "GIT_TERMINAL_PROMPT=0");
	cr_expect_eq(sb.limits.timeout_ms, 120000);
	cr_expect_eq(sb.limits.limits.memory, 1ull << 30);
	cr_expect_eq(sb.stdout_max, 1048576);
	cr_expect(!sb.stdout_terminate);
	cr_expect_eq(sb.stderr_max, 0);

	/* from.git's sandbox replaces ssh's (none) for git */
	cr_assert_eq(cordon_tools_sandbox(tools, "git", "ssh", &sb), 0);
	cr_expect_eq(count(sb.fs_read), 1);
	cr_expect_str_eq(sb.fs_read[0], "/nonexistent/cordon-home/.ssh");
	cr_expect(!sb.net_set);
	cr_expect_eq(sb.stderr_max, 4096);
	cr_expect(sb.stderr_terminate);

	/* a command without a sandbox: an empty one, every list there */
	cr_assert_eq(cordon_tools_sandbox(tools, CORDON_TOOLS_SESSION, "cc", &sb), 0);
	cr_expect_eq(count(sb.fs_read) + count(sb.fs_write) + count(sb.exec_paths) + count(sb.allow_vars) +
			     count(sb.set_vars),
		     0);
	cr_expect_eq(sb.limits.timeout_ms, 0);

	cr_assert_eq(cordon_tools_sandbox(tools, CORDON_TOOLS_SESSION, "curl", &sb), 0);
	cr_expect_eq(sb.net, CORDON_NET_PROXY);
	cr_expect_str_eq(sb.allow_domains[0], "example.com");
	cr_expect_str_eq(sb.deny_domains[0], "*.evil.example");
	cr_expect_str_eq(sb.allow_addresses[0], "10.0.0.0/8");

	/* only for an edge that exists */
	cr_expect_eq(cordon_tools_sandbox(tools, CORDON_TOOLS_SESSION, "ssh", &sb), -EPERM);
	cr_expect_eq(cordon_tools_sandbox(tools, "ssh", "git", &sb), -EPERM);
	cr_expect_eq(cordon_tools_sandbox(tools, CORDON_TOOLS_SESSION, "rm", &sb), -ENOENT);
	cr_expect_eq(cordon_tools_sandbox(tools, "bash", "git", &sb), -ENOENT);
}

/* ---- names, backends ---------------------------------------------------------------- */

Test(tools, commands_and_backends, .init = setup, .fini = teardown)
{
	const char *const *names = cordon_tools_commands(tools);
	struct cordon_approval_backend b;

	cr_assert_eq(count(names), 5);
	cr_expect_str_eq(names[0], "cc");
	cr_expect_str_eq(names[1], "curl");
	cr_expect_str_eq(names[2], "git");
	cr_expect_str_eq(names[3], "make");
	cr_expect_str_eq(names[4], "ssh");
	cr_expect_str_eq(cordon_tools_executable(tools, "git"), "/usr/bin/git");
	cr_expect_str_eq(cordon_tools_executable(tools, "ssh"), "ssh");
	cr_expect_null(cordon_tools_executable(tools, "rm"));
	cr_expect_str_eq(cordon_tools_can_use(tools, "git")[0], "ssh");
	cr_expect_eq(count(cordon_tools_can_use(tools, "ssh")), 0);
	cr_expect_null(cordon_tools_can_use(tools, "rm"));

	cr_assert_eq(cordon_tools_backend(tools, "me", &b), 0);
	cr_expect_str_eq(b.name, "me");
	cr_expect_eq(b.type, CORDON_APPROVAL_TERMINAL);
	cr_expect_eq(b.timeout_ms, 30000);
	cr_expect(!b.default_allow);
	cr_expect_null(b.url);
	cr_expect_null(b.members);
	cr_assert_eq(cordon_tools_backend(tools, "bot", &b), 0);
	cr_expect_eq(b.type, CORDON_APPROVAL_WEBHOOK);
	cr_expect_str_eq(b.url, "https://127.0.0.1:8765/approve");
	cr_expect_str_eq(b.secret_env, "CORDON_APPROVAL_KEY");
	cr_expect_str_eq(b.answer_secret_env, "CORDON_APPROVAL_ANSWER_KEY");
	cr_expect_eq(b.timeout_ms, 5000);
	cr_expect(!b.default_allow);
	cr_assert_eq(cordon_tools_backend(tools, "both", &b), 0);
	cr_expect_eq(b.type, CORDON_APPROVAL_CHAIN);
	cr_expect(b.chain_all);
	cr_expect_eq(b.timeout_ms, 0);
	cr_assert_eq(count(b.members), 2);
	cr_expect_str_eq(b.members[0], "me");
	cr_expect_str_eq(b.members[1], "bot");
	cr_expect_eq(cordon_tools_backend(tools, "you", &b), -ENOENT);
	cr_expect_str_eq(cordon_tool_action_to_string(CORDON_TOOL_APPROVE), "approve");
}

/* ---- resolving an executable --------------------------------------------------------- */

static char base[PATH_MAX];

static void make_file(const char *path, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, "#!/bin/sh\n", 10), 10);
	close(fd);
	cr_assert_eq(chmod(path, mode), 0);
}

static char *at(const char *rel)
{
	char *p = path_join(base, rel);

	cr_assert_not_null(p);
	return p;
}

/* base/ws the session's writable root, base/sys a directory it cannot
 * write; a tool of the same name in both. */
static void resolve_setup(void)
{
	char tmpl[] = "/tmp/cordon-tools-resolve-XXXXXX";
	_cleanup_free_ char *c = NULL;
	const char *dirs[] = { "ws", "ws/bin", "sys", "sys/bin", "sys/link", "sys/plain", "sys/dir", "sys/dir/tool" };

	cr_assert_not_null(mkdtemp(tmpl));
	cr_assert_eq(cordon_canonicalize(tmpl, &c, NULL), 0);
	snprintf(base, sizeof(base), "%s", c);
	for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
		_cleanup_free_ char *d = at(dirs[i]);

		cr_assert_eq(mkdir(d, 0755), 0);
	}
	{
		_cleanup_free_ char *a = at("ws/bin/tool"), *b = at("sys/bin/tool"), *l = at("sys/link/tool"),
				    *n = at("sys/plain/tool");

		make_file(a, 0755);
		make_file(b, 0755);
		make_file(n, 0644);
		/* a link the session cannot change, to a file it can */
		cr_assert_eq(symlink(a, l), 0);
	}
	setup();
}

static void resolve_teardown(void)
{
	const char *files[] = { "ws/bin/tool", "sys/bin/tool", "sys/link/tool", "sys/plain/tool" };
	const char *dirs[] = { "sys/dir/tool", "sys/dir", "sys/plain", "sys/link", "sys/bin", "sys", "ws/bin", "ws", "" };

	for (size_t i = 0; i < ELEMENTSOF(files); i++) {
		_cleanup_free_ char *f = at(files[i]);

		unlink(f);
	}
	for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
		_cleanup_free_ char *d = at(dirs[i]);

		rmdir(d);
	}
	teardown();
}

static struct cordon_profile *load_tools(const char *text)
{
	struct cordon_profile *p = NULL;
	struct cordon_error e = {};

	cr_assert_eq(profile_load_buffer(text, strlen(text), "r.json", &env, &p, &e), 0, "%s", e.message);
	return p;
}

Test(tools, resolve_skips_what_the_session_can_write, .init = resolve_setup, .fini = resolve_teardown)
{
	_cleanup_profile_ struct cordon_profile *p = load_tools("{ \"command_policies\": { \"commands\": { \"tool\": {} } } }");
	_cleanup_free_ char *ws = at("ws"), *wsbin = at("ws/bin"), *sysbin = at("sys/bin"), *link = at("sys/link"),
			    *plain = at("sys/plain"), *dir = at("sys/dir"), *want = at("sys/bin/tool"), *path = NULL,
			    *got = NULL;
	const char *const writable[] = { "/nonexistent/elsewhere", ws, NULL };
	struct cordon_error e = {};

	/* the control: with nothing writable, the first on PATH is taken */
	cr_assert_geq(asprintf(&path, "%s:%s", wsbin, sysbin), 0);
	cr_assert_eq(cordon_tools_resolve(p->tools, "tool", path, NULL, &got, &e), 0, "%s", e.message);
	{
		_cleanup_free_ char *first = at("ws/bin/tool");

		cr_expect_str_eq(got, first);
	}
	got = (free(got), NULL);
	/* the session's writable root is skipped, the next one taken */
	cr_assert_eq(cordon_tools_resolve(p->tools, "tool", path, writable, &got, &e), 0, "%s", e.message);
	cr_expect_str_eq(got, want);
	got = (free(got), NULL);
	path = (free(path), NULL);
	/* found only there: refused, and said so */
	cr_assert_eq(cordon_tools_resolve(p->tools, "tool", wsbin, writable, &got, &e), -ENOENT);
	cr_expect_null(got);
	cr_expect_not_null(strstr(e.message, wsbin), "%s", e.message);
	cr_expect_not_null(strstr(e.message, "never taken"), "%s", e.message);
	/* a link outside to a file inside is inside */
	cr_assert_eq(cordon_tools_resolve(p->tools, "tool", link, writable, &got, &e), -ENOENT);
	cr_expect_not_null(strstr(e.message, "ws/bin/tool"), "%s", e.message);
	/* a link inside to a file outside: the session could repoint it */
	{
		_cleanup_free_ char *l = at("ws/bin/tool");

		cr_assert_eq(unlink(l), 0);
		cr_assert_eq(symlink(want, l), 0);
		cr_assert_eq(cordon_tools_resolve(p->tools, "tool", wsbin, NULL, &got, &e), 0, "%s", e.message);
		cr_expect_str_eq(got, want); /* the control */
		got = (free(got), NULL);
		cr_expect_eq(cordon_tools_resolve(p->tools, "tool", wsbin, writable, &got, &e), -ENOENT);
		cr_expect_null(got);
	}
	/* not executable, a directory, relative and empty entries: passed over */
	cr_assert_geq(asprintf(&path, "%s:%s::bin:.:%s", plain, dir, sysbin), 0);
	cr_assert_eq(cordon_tools_resolve(p->tools, "tool", path, writable, &got, &e), 0, "%s", e.message);
	cr_expect_str_eq(got, want);
	got = (free(got), NULL);
	path = (free(path), NULL);
	cr_assert_geq(asprintf(&path, "%s:%s", plain, dir), 0);
	cr_expect_eq(cordon_tools_resolve(p->tools, "tool", path, writable, &got, &e), -ENOENT);
	cr_expect_str_eq(e.message, "tool: tool is not on PATH");
	path = (free(path), NULL);
	cr_expect_eq(cordon_tools_resolve(p->tools, "tool", "", writable, &got, &e), -ENOENT);
	cr_expect_eq(cordon_tools_resolve(p->tools, "nope", sysbin, writable, &got, &e), -ENOENT);
}

Test(tools, resolve_absolute, .init = resolve_setup, .fini = resolve_teardown)
{
	_cleanup_free_ char *text = NULL, *got = NULL, *want = at("sys/bin/tool");
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct cordon_error e = {};

	cr_assert_geq(asprintf(&text,
			       "{ \"command_policies\": { \"commands\": {\n"
			       "  \"good\": { \"executable\": \"%s/sys/bin/../bin/tool\" },\n"
			       "  \"renamed\": { \"executable\": \"tool\" },\n"
			       "  \"missing\": { \"executable\": \"%s/sys/bin/none\" },\n"
			       "  \"plain\": { \"executable\": \"%s/sys/plain/tool\" },\n"
			       "  \"dir\": { \"executable\": \"%s/sys/dir/tool\" } } } }\n",
			       base, base, base, base),
		      0);
	p = load_tools(text);
	/* as given, canonical, PATH not asked */
	cr_assert_eq(cordon_tools_resolve(p->tools, "good", "", NULL, &got, &e), 0, "%s", e.message);
	cr_expect_str_eq(got, want);
	got = (free(got), NULL);
	/* a bare executable other than the command's name */
	{
		_cleanup_free_ char *sysbin = at("sys/bin");

		cr_assert_eq(cordon_tools_resolve(p->tools, "renamed", sysbin, NULL, &got, &e), 0, "%s", e.message);
		cr_expect_str_eq(got, want);
		got = (free(got), NULL);
	}
	/* it must exist, be a regular file, and be executable */
	cr_expect_eq(cordon_tools_resolve(p->tools, "missing", NULL, NULL, &got, &e), -ENOENT);
	cr_expect_not_null(strstr(e.message, "sys/bin/none"), "%s", e.message);
	cr_expect_eq(cordon_tools_resolve(p->tools, "plain", NULL, NULL, &got, &e), -EACCES);
	cr_expect_not_null(strstr(e.message, "is not executable"), "%s", e.message);
	cr_expect_eq(cordon_tools_resolve(p->tools, "dir", NULL, NULL, &got, &e), -EACCES);
	cr_expect_not_null(strstr(e.message, "is not a regular file"), "%s", e.message);
	cr_expect_null(got);
}
