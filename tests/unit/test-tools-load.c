/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * command_policies, loaded: every refusal with its exact message and
 * position, the caps, what extends does to commands and backends, the git
 * tokens (global and system configuration only), the fail-closed refusal
 * after compiling, and the inspection handle.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
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
#include "profile_api.h"
#include "strv.h"
#include "tools.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_profile *, profile_free)
#define _cleanup_profile_ _cleanup_(profile_freep)

/* Fixed, non-existent places, as the invalid corpus has them. */
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

/* Where each case's text goes: the whole profile (IN_RAW), or the one
 * value that differs inside a profile shaped so. */
enum shape { IN_RAW, IN_B, IN_C, IN_P, IN_PB, IN_S };

static const char *const shapes[] = {
	[IN_RAW] = "%s",
	[IN_B] = "{\n  \"command_policies\": {\n    \"approval_backends\": {\n      %s\n    },\n"
		 "    \"commands\": { \"git\": {} }\n  }\n}\n",
	[IN_C] = "{\n  \"command_policies\": {\n    \"commands\": {\n      %s\n    }\n  }\n}\n",
	[IN_P] = "{\n  \"command_policies\": {\n    \"commands\": {\n      \"git\": {\n        \"invocation_policy\": %s\n"
		 "      }\n    }\n  }\n}\n",
	[IN_PB] = "{\n  \"command_policies\": {\n    \"approval_backends\": { \"me\": { \"type\": \"terminal\", "
		  "\"timeout_secs\": 5, \"default\": \"deny\" } },\n    \"commands\": {\n      \"git\": {\n"
		  "        \"invocation_policy\": %s\n      }\n    }\n  }\n}\n",
	[IN_S] = "{\n  \"command_policies\": {\n    \"commands\": {\n      \"git\": {\n        \"sandbox\": %s\n"
		 "      }\n    }\n  }\n}\n",
};

/* The shape with body where its %s is. */
static char *shaped(enum shape s, const char *body)
{
	const char *at = strstr(shapes[s], "%s");
	char *text = NULL;

	cr_assert_geq(asprintf(&text, "%.*s%s%s", (int)(at - shapes[s]), shapes[s], body, at + 2), 0);
	return text;
}

/* Load text as t.json: r, and the message. */
static void expect_refused(const char *name, const char *text, int error, const char *message)
{
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct cordon_error e = {};
	int r = profile_load_buffer(text, strlen(text), "t.json", &env, &p, &e);

	cr_expect_eq(r, error, "%s: %d (%s), not %d", name, r, e.message, error);
	cr_expect_null(p, "%s", name);
	cr_expect_str_eq(e.message, message, "%s: %s", name, e.message);
	cr_expect_str_eq(e.file, "t.json", "%s", name);
	cr_expect_gt(e.line, 0, "%s", name);
}

/* ---- every refusal ---------------------------------------------------------- */

static const struct loader_case {
	const char *name;
	int error;
	enum shape shape;
	const char *body;
	const char *message;
} loader_cases[] = {
	{ "top_unknown_key", -EINVAL, IN_RAW,
	  "{\n  \"command_policies\": { \"comands\": {} }\n}\n",
	  "t.json:2:25: at /command_policies/comands: unknown key \"comands\", did you mean \"commands\"?" },
	{ "top_not_object", -EINVAL, IN_RAW,
	  "{\n  \"command_policies\": []\n}\n",
	  "t.json:2:23: at /command_policies: expected an object, not an array" },
	{ "no_commands", -EINVAL, IN_RAW,
	  "{\n  \"command_policies\": { \"commands\": {} }\n}\n",
	  "t.json:2:23: at /command_policies: command_policies names no command: list the tools it governs under \"commands\"" },
	{ "danger_mode", -EINVAL, IN_RAW,
	  "{\n  \"mode\": \"danger-full-access\",\n  \"command_policies\": { \"commands\": { \"git\": {} } }\n}\n",
	  "t.json:3:23: at /command_policies: mode danger-full-access enforces nothing: command_policies could not hold" },
	{ "backend_name", -EINVAL, IN_B,
	  "\"a b\": { \"type\": \"terminal\", \"timeout_secs\": 5, \"default\": \"deny\" }",
	  "t.json:4:7: at /command_policies/approval_backends/a b: \"a b\" is not a backend name: 1 to 64 of A-Z a-z 0-9 _ -" },
	{ "backend_not_object", -EINVAL, IN_B,
	  "\"me\": \"terminal\"",
	  "t.json:4:13: at /command_policies/approval_backends/me: expected an object with a type: terminal, webhook or chain, not a string" },
	{ "backend_no_type", -EINVAL, IN_B,
	  "\"me\": { \"timeout_secs\": 5, \"default\": \"deny\" }",
	  "t.json:4:13: at /command_policies/approval_backends/me: an approval backend needs \"type\": terminal, webhook or chain" },
	{ "backend_type", -EINVAL, IN_B,
	  "\"me\": { \"type\": \"email\", \"timeout_secs\": 5 }",
	  "t.json:4:23: at /command_policies/approval_backends/me/type: \"email\" is not an approval backend type: use terminal, webhook or chain" },
	{ "backend_unknown_key", -EINVAL, IN_B,
	  "\"me\": { \"type\": \"terminal\", \"timeout\": 5, \"default\": \"deny\" }",
	  "t.json:4:35: at /command_policies/approval_backends/me/timeout: unknown key \"timeout\" (known: type, timeout_secs, default, url, secret_env, mode, backends, answer_secret_env)" },
	{ "terminal_no_default", -EINVAL, IN_B,
	  "\"me\": { \"type\": \"terminal\", \"timeout_secs\": 5 }",
	  "t.json:4:13: at /command_policies/approval_backends/me: a terminal backend needs \"default\": allow or deny, what an unanswered or unattended ask gets" },
	{ "terminal_no_timeout", -EINVAL, IN_B,
	  "\"me\": { \"type\": \"terminal\", \"default\": \"allow\" }",
	  "t.json:4:13: at /command_policies/approval_backends/me: a terminal backend needs \"timeout_secs\": 1 to 3600 seconds to wait for an answer" },
	{ "timeout_zero", -ERANGE, IN_B,
	  "\"me\": { \"type\": \"terminal\", \"timeout_secs\": 0, \"default\": \"deny\" }",
	  "t.json:4:51: at /command_policies/approval_backends/me/timeout_secs: must be from 1 to 3600 seconds, not 0" },
	{ "timeout_high", -ERANGE, IN_B,
	  "\"me\": { \"type\": \"terminal\", \"timeout_secs\": 3601, \"default\": \"deny\" }",
	  "t.json:4:51: at /command_policies/approval_backends/me/timeout_secs: must be from 1 to 3600 seconds, not 3601" },
	{ "timeout_string", -EINVAL, IN_B,
	  "\"me\": { \"type\": \"terminal\", \"timeout_secs\": \"30s\", \"default\": \"deny\" }",
	  "t.json:4:51: at /command_policies/approval_backends/me/timeout_secs: expected a whole number of seconds, not a string" },
	{ "default_word", -EINVAL, IN_B,
	  "\"me\": { \"type\": \"terminal\", \"timeout_secs\": 5, \"default\": \"ask\" }",
	  "t.json:4:65: at /command_policies/approval_backends/me/default: \"ask\" is not allow or deny" },
	{ "terminal_url", -EINVAL, IN_B,
	  "\"me\": { \"type\": \"terminal\", \"timeout_secs\": 5, \"default\": \"deny\", \"url\": \"https://h/\" }",
	  "t.json:4:73: at /command_policies/approval_backends/me/url: a terminal backend takes no \"url\"" },
	{ "webhook_default", -EINVAL, IN_B,
	  "\"bot\": { \"type\": \"webhook\", \"url\": \"https://h/\", \"secret_env\": \"K\", \"timeout_secs\": 5, \"default\": \"allow\" }",
	  "t.json:4:94: at /command_policies/approval_backends/bot/default: a webhook's default is always deny (no answer, a bad answer or a timeout): leave \"default\" out" },
	{ "webhook_no_secret", -EINVAL, IN_B,
	  "\"bot\": { \"type\": \"webhook\", \"url\": \"https://h/\", \"timeout_secs\": 5 }",
	  "t.json:4:14: at /command_policies/approval_backends/bot: a webhook backend needs \"secret_env\": the variable holding the key that signs each request" },
	{ "webhook_no_url", -EINVAL, IN_B,
	  "\"bot\": { \"type\": \"webhook\", \"secret_env\": \"K\", \"timeout_secs\": 5 }",
	  "t.json:4:14: at /command_policies/approval_backends/bot: a webhook backend needs \"url\": the https:// address to POST to, or unix:/PATH of a socket" },
	{ "url_scheme", -EINVAL, IN_B,
	  "\"bot\": { \"type\": \"webhook\", \"url\": \"ftp://h/\", \"secret_env\": \"K\", \"timeout_secs\": 5 }",
	  "t.json:4:42: at /command_policies/approval_backends/bot/url: \"ftp://h/\" is not an https:// or unix:/PATH URL" },
	{ "url_no_host", -EINVAL, IN_B,
	  "\"bot\": { \"type\": \"webhook\", \"url\": \"https:///approve\", \"secret_env\": \"K\", \"timeout_secs\": 5 }",
	  "t.json:4:42: at /command_policies/approval_backends/bot/url: \"https:///approve\" names no host" },
	{ "url_userinfo", -EINVAL, IN_B,
	  "\"bot\": { \"type\": \"webhook\", \"url\": \"https://u:p@h/\", \"secret_env\": \"K\", \"timeout_secs\": 5 }",
	  "t.json:4:42: at /command_policies/approval_backends/bot/url: a URL with a user name or password is refused: the key in secret_env signs requests" },
	{ "url_port", -EINVAL, IN_B,
	  "\"bot\": { \"type\": \"webhook\", \"url\": \"https://h:99999/\", \"secret_env\": \"K\", \"timeout_secs\": 5 }",
	  "t.json:4:42: at /command_policies/approval_backends/bot/url: \"https://h:99999/\": the port is not a number from 1 to 65535" },
	{ "url_empty_port", -EINVAL, IN_B,
	  "\"bot\": { \"type\": \"webhook\", \"url\": \"https://h:/\", \"secret_env\": \"K\", \"timeout_secs\": 5 }",
	  "t.json:4:42: at /command_policies/approval_backends/bot/url: \"https://h:/\": an empty port" },
	{ "url_space", -EINVAL, IN_B,
	  "\"bot\": { \"type\": \"webhook\", \"url\": \"https://h/a b\", \"secret_env\": \"K\", \"timeout_secs\": 5 }",
	  "t.json:4:42: at /command_policies/approval_backends/bot/url: a URL has no spaces or control characters" },
	{ "url_host_char", -EINVAL, IN_B,
	  "\"bot\": { \"type\": \"webhook\", \"url\": \"https://h%2f/\", \"secret_env\": \"K\", \"timeout_secs\": 5 }",
	  "t.json:4:42: at /command_policies/approval_backends/bot/url: \"https://h%2f/\": the host has a character a host name cannot" },
	{ "url_ipv6", -EINVAL, IN_B,
	  "\"bot\": { \"type\": \"webhook\", \"url\": \"https://[::1/\", \"secret_env\": \"K\", \"timeout_secs\": 5 }",
	  "t.json:4:42: at /command_policies/approval_backends/bot/url: \"https://[::1/\": an IPv6 host is written [address]" },
	{ "url_http", -EINVAL, IN_B,
	  "\"bot\": { \"type\": \"webhook\", \"url\": \"http://h/\", \"secret_env\": \"K\", \"answer_secret_env\": \"A\", \"timeout_secs\": 5 }",
	  "t.json:4:42: at /command_policies/approval_backends/bot/url: \"http://h/\": a webhook is https:// or unix:/PATH, never http:// (anyone on the path could read the request)" },
	{ "webhook_no_answer_key", -EINVAL, IN_B,
	  "\"bot\": { \"type\": \"webhook\", \"url\": \"unix:/run/a.sock\", \"secret_env\": \"K\", \"timeout_secs\": 5 }",
	  "t.json:4:14: at /command_policies/approval_backends/bot: a webhook backend needs \"answer_secret_env\": the variable holding the other key, that signs each answer" },
	{ "webhook_one_key", -EINVAL, IN_B,
	  "\"bot\": { \"type\": \"webhook\", \"url\": \"https://h/\", \"secret_env\": \"K\", \"answer_secret_env\": \"K\", \"timeout_secs\": 5 }",
	  "t.json:4:75: at /command_policies/approval_backends/bot/answer_secret_env: answer_secret_env must name another variable than secret_env: the key that signs answers is not the one that signs requests" },
	{ "secret_env_name", -EINVAL, IN_B,
	  "\"bot\": { \"type\": \"webhook\", \"url\": \"https://h/\", \"secret_env\": \"1KEY\", \"timeout_secs\": 5 }",
	  "t.json:4:70: at /command_policies/approval_backends/bot/secret_env: \"1KEY\" is not a variable name" },
	{ "chain_mode", -EINVAL, IN_B,
	  "\"c\": { \"type\": \"chain\", \"mode\": \"some\", \"backends\": [\"c\"] }",
	  "t.json:4:39: at /command_policies/approval_backends/c/mode: \"some\" is not a chain's mode: use all or any" },
	{ "chain_empty", -EINVAL, IN_B,
	  "\"c\": { \"type\": \"chain\", \"mode\": \"all\", \"backends\": [] }",
	  "t.json:4:58: at /command_policies/approval_backends/c/backends: an empty chain asks nobody: name at least one backend" },
	{ "chain_twice", -EINVAL, IN_B,
	  "\"me\": { \"type\": \"terminal\", \"timeout_secs\": 5, \"default\": \"deny\" },\n      \"c\": { \"type\": \"chain\", \"mode\": \"all\", \"backends\": [\"me\", \"me\"] }",
	  "t.json:5:65: at /command_policies/approval_backends/c/backends/1: \"me\" is in this chain twice" },
	{ "chain_long", -E2BIG, IN_B,
	  "\"c\": { \"type\": \"chain\", \"mode\": \"any\", \"backends\": [\"b0\", \"b1\", \"b2\", \"b3\", \"b4\", \"b5\", \"b6\", \"b7\", \"b8\", \"b9\", \"b10\", \"b11\", \"b12\", \"b13\", \"b14\", \"b15\", \"b16\"] }",
	  "t.json:4:58: at /command_policies/approval_backends/c/backends: more than 16 backends in one chain" },
	{ "chain_unknown", -EINVAL, IN_B,
	  "\"me\": { \"type\": \"terminal\", \"timeout_secs\": 5, \"default\": \"deny\" },\n      \"c\": { \"type\": \"chain\", \"mode\": \"all\", \"backends\": [\"me\", \"mee\"] }",
	  "t.json:5:65: at /command_policies/approval_backends/c/backends/1: no approval backend \"mee\", did you mean \"me\"?" },
	{ "chain_self", -ELOOP, IN_B,
	  "\"c\": { \"type\": \"chain\", \"mode\": \"all\", \"backends\": [\"c\"] }",
	  "t.json:4:59: at /command_policies/approval_backends/c/backends/0: approval chain cycle: c -> c" },
	{ "chain_cycle", -ELOOP, IN_B,
	  "\"a\": { \"type\": \"chain\", \"mode\": \"all\", \"backends\": [\"b\"] },\n      \"b\": { \"type\": \"chain\", \"mode\": \"any\", \"backends\": [\"a\"] }",
	  "t.json:5:59: at /command_policies/approval_backends/b/backends/0: approval chain cycle: a -> b -> a" },
	{ "chain_no_timeout", -EINVAL, IN_B,
	  "\"me\": { \"type\": \"terminal\", \"timeout_secs\": 5, \"default\": \"deny\" },\n      \"c\": { \"type\": \"chain\", \"mode\": \"all\", \"backends\": [\"me\"], \"timeout_secs\": 5 }",
	  "t.json:5:66: at /command_policies/approval_backends/c/timeout_secs: a chain backend takes no \"timeout_secs\"" },
	{ "secret_flag_no_dash", -EINVAL, IN_C,
	  "\"git\": { \"secret_flags\": [\"password\"] }",
	  "t.json:4:33: at /command_policies/commands/git/secret_flags/0: \"password\" is not a flag: write it as the tool does, -p or --db-pass" },
	{ "secret_flag_value", -EINVAL, IN_C,
	  "\"git\": { \"secret_flags\": [\"--pw=x\"] }",
	  "t.json:4:33: at /command_policies/commands/git/secret_flags/0: \"--pw=x\" is not a flag: write it as the tool does, -p or --db-pass" },
	{ "command_slash", -EINVAL, IN_C,
	  "\"bin/git\": {}",
	  "t.json:4:7: at /command_policies/commands/bin~1git: \"bin/git\" is not a command name: 1 to 64 of A-Z a-z 0-9 . _ + -, not starting with . or -" },
	{ "command_dot", -EINVAL, IN_C,
	  "\".git\": {}",
	  "t.json:4:7: at /command_policies/commands/.git: \".git\" is not a command name: 1 to 64 of A-Z a-z 0-9 . _ + -, not starting with . or -" },
	{ "command_dash", -EINVAL, IN_C,
	  "\"-git\": {}",
	  "t.json:4:7: at /command_policies/commands/-git: \"-git\" is not a command name: 1 to 64 of A-Z a-z 0-9 . _ + -, not starting with . or -" },
	{ "command_session", -EINVAL, IN_C,
	  "\"session\": {}",
	  "t.json:4:7: at /command_policies/commands/session: \"session\" is the agent's own sandbox, the caller of every command: no command may be named so" },
	{ "command_long", -EINVAL, IN_C,
	  "\"ggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggg\": {}",
	  "t.json:4:7: at /command_policies/commands/ggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggg: \"ggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggg\" is not a command name: 1 to 64 of A-Z a-z 0-9 . _ + -, not starting with . or -" },
	{ "command_not_object", -EINVAL, IN_C,
	  "\"git\": \"/usr/bin/git\"",
	  "t.json:4:14: at /command_policies/commands/git: expected an object, not a string" },
	{ "command_unknown_key", -EINVAL, IN_C,
	  "\"git\": { \"can-use\": [] }",
	  "t.json:4:16: at /command_policies/commands/git/can-use: unknown key \"can-use\", did you mean \"can_use\"?" },
	{ "executable_relative", -EINVAL, IN_C,
	  "\"git\": { \"executable\": \"bin/git\" }",
	  "t.json:4:30: at /command_policies/commands/git/executable: \"bin/git\" is neither an absolute path nor a bare command name (looked up on PATH)" },
	{ "executable_type", -EINVAL, IN_C,
	  "\"git\": { \"executable\": 1 }",
	  "t.json:4:30: at /command_policies/commands/git/executable: expected a string, not an integer" },
	{ "can_use_type", -EINVAL, IN_C,
	  "\"git\": { \"can_use\": \"ssh\" }",
	  "t.json:4:27: at /command_policies/commands/git/can_use: expected an array of command names, not a string" },
	{ "can_use_name", -EINVAL, IN_C,
	  "\"git\": { \"can_use\": [\"/usr/bin/ssh\"] }",
	  "t.json:4:28: at /command_policies/commands/git/can_use/0: \"/usr/bin/ssh\" is not a command name" },
	{ "can_use_unknown", -EINVAL, IN_C,
	  "\"git\": { \"can_use\": [\"shh\"] },\n      \"ssh\": {}",
	  "t.json:4:28: at /command_policies/commands/git/can_use/0: no command \"shh\", did you mean \"ssh\"?" },
	{ "from_caller_name", -EINVAL, IN_C,
	  "\"ssh\": { \"from\": { \"/bin/sh\": \"deny\" } }",
	  "t.json:4:26: at /command_policies/commands/ssh/from/~1bin~1sh: \"/bin/sh\" is not a caller: \"session\" or a command's name" },
	{ "from_caller_unknown", -EINVAL, IN_C,
	  "\"ssh\": { \"from\": { \"gti\": \"deny\" } },\n      \"git\": {}",
	  "t.json:4:26: at /command_policies/commands/ssh/from/gti: no command \"gti\", did you mean \"git\"?" },
	{ "from_no_edge", -EINVAL, IN_C,
	  "\"ssh\": { \"from\": { \"git\": \"deny\" } },\n      \"git\": {}",
	  "t.json:4:26: at /command_policies/commands/ssh/from/git: git cannot call ssh (ssh is not in git's can_use): this entry would never apply" },
	{ "from_word", -EINVAL, IN_C,
	  "\"ssh\": { \"from\": { \"session\": \"allow\" } }",
	  "t.json:4:37: at /command_policies/commands/ssh/from/session: \"allow\" is not \"deny\": a caller gets \"deny\", a sandbox or {\"sandbox\", \"invocation_policy\"}" },
	{ "from_number", -EINVAL, IN_C,
	  "\"ssh\": { \"from\": { \"session\": 0 } }",
	  "t.json:4:37: at /command_policies/commands/ssh/from/session: expected \"deny\", a sandbox or {\"sandbox\", \"invocation_policy\"}, not an integer" },
	{ "from_empty", -EINVAL, IN_C,
	  "\"ssh\": { \"from\": { \"session\": {} } }",
	  "t.json:4:37: at /command_policies/commands/ssh/from/session: says nothing: give \"deny\", a sandbox, or {\"sandbox\", \"invocation_policy\"}" },
	{ "from_mixed", -EINVAL, IN_C,
	  "\"ssh\": { \"from\": { \"session\": { \"sandbox\": {}, \"fs_read\": [] } } }",
	  "t.json:4:54: at /command_policies/commands/ssh/from/session/fs_read: \"fs_read\" is a sandbox key beside \"sandbox\"/\"invocation_policy\": put the sandbox's keys under \"sandbox\"" },
	{ "from_pair_typo", -EINVAL, IN_C,
	  "\"ssh\": { \"from\": { \"session\": { \"sandbox\": {}, \"invocation_polcy\": {} } } }",
	  "t.json:4:54: at /command_policies/commands/ssh/from/session/invocation_polcy: unknown key \"invocation_polcy\", did you mean \"invocation_policy\"?" },
	{ "from_sandbox_typo", -EINVAL, IN_C,
	  "\"ssh\": { \"from\": { \"session\": { \"fs_reed\": [] } } }",
	  "t.json:4:39: at /command_policies/commands/ssh/from/session/fs_reed: unknown key \"fs_reed\", did you mean \"fs_read\"?" },
	{ "policy_no_default", -EINVAL, IN_P,
	  "{ \"deny\": [] }",
	  "t.json:5:30: at /command_policies/commands/git/invocation_policy: an invocation_policy needs \"default\": allow, deny or approve" },
	{ "policy_default_word", -EINVAL, IN_P,
	  "{ \"default\": \"ask\" }",
	  "t.json:5:43: at /command_policies/commands/git/invocation_policy/default: \"ask\" is not allow, deny or approve" },
	{ "policy_not_object", -EINVAL, IN_P,
	  "\"deny\"",
	  "t.json:5:30: at /command_policies/commands/git/invocation_policy: expected an invocation_policy object, not a string" },
	{ "rules_not_array", -EINVAL, IN_P,
	  "{ \"default\": \"allow\", \"deny\": {} }",
	  "t.json:5:60: at /command_policies/commands/git/invocation_policy/deny: expected an array of rules, not an object" },
	{ "rule_not_object", -EINVAL, IN_P,
	  "{ \"default\": \"allow\", \"deny\": [\"push\"] }",
	  "t.json:5:61: at /command_policies/commands/git/invocation_policy/deny/0: expected an object, not a string" },
	{ "rule_no_condition", -EINVAL, IN_P,
	  "{ \"default\": \"allow\", \"deny\": [ { \"reason\": \"no\" } ] }",
	  "t.json:5:62: at /command_policies/commands/git/invocation_policy/deny/0: a rule needs a condition, argv or env: one without would match every call (say that with the policy's default)" },
	{ "rule_unknown_key", -EINVAL, IN_P,
	  "{ \"default\": \"allow\", \"deny\": [ { \"args\": { \"prefix\": [\"push\"] } } ] }",
	  "t.json:5:64: at /command_policies/commands/git/invocation_policy/deny/0/args: unknown key \"args\", did you mean \"argv\"?" },
	{ "argv_empty", -EINVAL, IN_P,
	  "{ \"default\": \"allow\", \"deny\": [ { \"argv\": {} } ] }",
	  "t.json:5:72: at /command_policies/commands/git/invocation_policy/deny/0/argv: argv needs exact, prefix or contains" },
	{ "argv_unknown", -EINVAL, IN_P,
	  "{ \"default\": \"allow\", \"deny\": [ { \"argv\": { \"suffix\": [\"x\"] } } ] }",
	  "t.json:5:74: at /command_policies/commands/git/invocation_policy/deny/0/argv/suffix: unknown key \"suffix\" (known: exact, prefix, contains)" },
	{ "prefix_empty", -EINVAL, IN_P,
	  "{ \"default\": \"allow\", \"deny\": [ { \"argv\": { \"prefix\": [] } } ] }",
	  "t.json:5:84: at /command_policies/commands/git/invocation_policy/deny/0/argv/prefix: an empty list matches every call: say that with the policy's default" },
	{ "contains_empty", -EINVAL, IN_P,
	  "{ \"default\": \"allow\", \"deny\": [ { \"argv\": { \"contains\": [] } } ] }",
	  "t.json:5:86: at /command_policies/commands/git/invocation_policy/deny/0/argv/contains: an empty list matches every call: say that with the policy's default" },
	{ "argv_word_type", -EINVAL, IN_P,
	  "{ \"default\": \"allow\", \"deny\": [ { \"argv\": { \"exact\": [\"push\", 1] } } ] }",
	  "t.json:5:92: at /command_policies/commands/git/invocation_policy/deny/0/argv/exact/1: expected a string, not an integer" },
	{ "env_empty", -EINVAL, IN_P,
	  "{ \"default\": \"allow\", \"deny\": [ { \"env\": {} } ] }",
	  "t.json:5:71: at /command_policies/commands/git/invocation_policy/deny/0/env: env needs at least one variable" },
	{ "env_name", -EINVAL, IN_P,
	  "{ \"default\": \"allow\", \"deny\": [ { \"env\": { \"GIT-DIR\": { \"equals\": \"x\" } } } ] }",
	  "t.json:5:73: at /command_policies/commands/git/invocation_policy/deny/0/env/GIT-DIR: \"GIT-DIR\" is not a variable name" },
	{ "env_both", -EINVAL, IN_P,
	  "{ \"default\": \"allow\", \"deny\": [ { \"env\": { \"CI\": { \"equals\": \"1\", \"one_of\": [\"1\"] } } } ] }",
	  "t.json:5:79: at /command_policies/commands/git/invocation_policy/deny/0/env/CI: give one of equals or one_of, not both" },
	{ "env_neither", -EINVAL, IN_P,
	  "{ \"default\": \"allow\", \"deny\": [ { \"env\": { \"CI\": {} } } ] }",
	  "t.json:5:79: at /command_policies/commands/git/invocation_policy/deny/0/env/CI: give equals or one_of" },
	{ "env_one_of_empty", -EINVAL, IN_P,
	  "{ \"default\": \"allow\", \"deny\": [ { \"env\": { \"CI\": { \"one_of\": [] } } } ] }",
	  "t.json:5:91: at /command_policies/commands/git/invocation_policy/deny/0/env/CI/one_of: one_of needs at least one value" },
	{ "env_equals_type", -EINVAL, IN_P,
	  "{ \"default\": \"allow\", \"deny\": [ { \"env\": { \"CI\": { \"equals\": true } } } ] }",
	  "t.json:5:91: at /command_policies/commands/git/invocation_policy/deny/0/env/CI/equals: expected a string, not true" },
	{ "env_match_typo", -EINVAL, IN_P,
	  "{ \"default\": \"allow\", \"deny\": [ { \"env\": { \"CI\": { \"equal\": \"1\" } } } ] }",
	  "t.json:5:81: at /command_policies/commands/git/invocation_policy/deny/0/env/CI/equal: unknown key \"equal\", did you mean \"equals\"?" },
	{ "reason_newline", -EINVAL, IN_P,
	  "{ \"default\": \"allow\", \"deny\": [ { \"argv\": { \"prefix\": [\"push\"] }, \"reason\": \"no\\ncordon: allowed\" } ] }",
	  "t.json:5:106: at /command_policies/commands/git/invocation_policy/deny/0/reason: a reason is one line of text, without control characters" },
	{ "deny_backend", -EINVAL, IN_PB,
	  "{ \"default\": \"allow\", \"deny\": [ { \"argv\": { \"prefix\": [\"push\"] }, \"backend\": \"me\" } ] }",
	  "t.json:6:96: at /command_policies/commands/git/invocation_policy/deny/0/backend: only an approve rule names a backend, not a deny rule" },
	{ "approve_no_backend", -EINVAL, IN_PB,
	  "{ \"default\": \"allow\", \"approve\": [ { \"argv\": { \"prefix\": [\"push\"] } } ] }",
	  "t.json:6:65: at /command_policies/commands/git/invocation_policy/approve/0: this approve rule has no backend to ask: name one on the rule, or in the invocation_policy's \"backend\"" },
	{ "default_approve_no_backend", -EINVAL, IN_PB,
	  "{ \"default\": \"approve\" }",
	  "t.json:6:43: at /command_policies/commands/git/invocation_policy/default: the default approve needs a backend to ask: name one in this invocation_policy's \"backend\"" },
	{ "rule_backend_unknown", -EINVAL, IN_PB,
	  "{ \"default\": \"allow\", \"approve\": [ { \"argv\": { \"prefix\": [\"push\"] }, \"backend\": \"mee\" } ] }",
	  "t.json:6:110: at /command_policies/commands/git/invocation_policy/approve/0/backend: no approval backend \"mee\", did you mean \"me\"?" },
	{ "policy_backend_unknown", -EINVAL, IN_PB,
	  "{ \"default\": \"approve\", \"backend\": \"you\" }",
	  "t.json:6:65: at /command_policies/commands/git/invocation_policy/backend: no approval backend \"you\" (backends: me)" },
	{ "backend_none_defined", -EINVAL, IN_P,
	  "{ \"default\": \"approve\", \"backend\": \"me\" }",
	  "t.json:5:65: at /command_policies/commands/git/invocation_policy/backend: no approval backend \"me\": command_policies.approval_backends defines none" },
	{ "sandbox_not_object", -EINVAL, IN_S,
	  "[]",
	  "t.json:5:20: at /command_policies/commands/git/sandbox: expected a sandbox object, not an array" },
	{ "sandbox_typo", -EINVAL, IN_S,
	  "{ \"fs_reed\": [\"/x\"] }",
	  "t.json:5:22: at /command_policies/commands/git/sandbox/fs_reed: unknown key \"fs_reed\", did you mean \"fs_read\"?" },
	{ "sandbox_write_root", -EINVAL, IN_S,
	  "{ \"fs_write\": [\"/\"] }",
	  "t.json:5:35: at /command_policies/commands/git/sandbox/fs_write/0: \"/\" is the whole filesystem" },
	{ "sandbox_write_file_root", -EINVAL, IN_S,
	  "{ \"fs_write_file\": [\"/tmp/..\"] }",
	  "t.json:5:40: at /command_policies/commands/git/sandbox/fs_write_file/0: \"/tmp/..\" is the whole filesystem" },
	{ "sandbox_token", -EINVAL, IN_S,
	  "{ \"fs_read\": [\"$REPO/x\"] }",
	  "t.json:5:34: at /command_policies/commands/git/sandbox/fs_read/0: unknown token \"$REPO\" (known: $WORKSPACE, $HOME, $TMPDIR, $XDG_CONFIG_HOME)" },
	{ "sandbox_tilde_user", -EINVAL, IN_S,
	  "{ \"exec_paths\": [\"~root/bin\"] }",
	  "t.json:5:37: at /command_policies/commands/git/sandbox/exec_paths/0: \"~root/bin\": only ~ and ~/ are supported, not ~user" },
	{ "sandbox_git_token", -EINVAL, IN_S,
	  "{ \"fs_read\": [\"@git:hooks\"] }",
	  "t.json:5:34: at /command_policies/commands/git/sandbox/fs_read/0: unknown token \"@git:hooks\" (known: @git:config-files, @git:hooks-path)" },
	{ "sandbox_group_unknown", -EINVAL, IN_S,
	  "{ \"fs_read\": [\"@tools\"] }",
	  "t.json:5:34: at /command_policies/commands/git/sandbox/fs_read/0: no group named \"tools\" (define it under groups)" },
	{ "sandbox_empty_path", -EINVAL, IN_S,
	  "{ \"fs_read\": [\"\"] }",
	  "t.json:5:34: at /command_policies/commands/git/sandbox/fs_read/0: a path must not be empty" },
	{ "network_mode", -EINVAL, IN_S,
	  "{ \"network\": { \"mode\": \"bridge\" } }",
	  "t.json:5:43: at /command_policies/commands/git/sandbox/network/mode: \"bridge\" is not a network mode: use none, host, proxy or allow" },
	{ "network_rules_mode", -EINVAL, IN_S,
	  "{ \"network\": { \"mode\": \"host\", \"allow_domains\": [\"example.com\"] } }",
	  "t.json:5:68: at /command_policies/commands/git/sandbox/network/allow_domains: host rules apply only through the proxy: they need network.mode \"proxy\" (the mode is \"host\")" },
	{ "network_rules_no_mode", -EINVAL, IN_S,
	  "{ \"network\": { \"deny_domains\": [\"example.com\"] } }",
	  "t.json:5:51: at /command_policies/commands/git/sandbox/network/deny_domains: host rules apply only through the proxy: they need network.mode \"proxy\" (the mode is \"none\")" },
	{ "network_domain", -EINVAL, IN_S,
	  "{ \"network\": { \"mode\": \"proxy\", \"allow_domains\": [\"exa mple.com\"] } }",
	  "t.json:5:70: at /command_policies/commands/git/sandbox/network/allow_domains/0: 'exa mple.com' is not a host name: a byte that is not a letter, digit, '-', '_' or '.'" },
	{ "network_address", -EINVAL, IN_S,
	  "{ \"network\": { \"mode\": \"proxy\", \"allow_addresses\": [\"10.0.0.0/99\"] } }",
	  "t.json:5:72: at /command_policies/commands/git/sandbox/network/allow_addresses/0: '10.0.0.0/99': the prefix is not 0-32" },
	{ "network_unix", -EINVAL, IN_S,
	  "{ \"network\": { \"mode\": \"none\", \"allow_unix_sockets\": [\"/run/x\"] } }",
	  "t.json:5:51: at /command_policies/commands/git/sandbox/network/allow_unix_sockets: unknown key \"allow_unix_sockets\" (known: mode, allow_domains, deny_domains, allow_addresses)" },
	{ "env_allow_injection", -EPERM, IN_S,
	  "{ \"environment\": { \"allow_vars\": [\"LANG\", \"LD_PRELOAD\"] } }",
	  "t.json:5:62: at /command_policies/commands/git/sandbox/environment/allow_vars/1: refusing to pass LD_PRELOAD into the sandbox: it makes a loader or interpreter run code chosen from outside" },
	{ "env_set_injection", -EPERM, IN_S,
	  "{ \"environment\": { \"set_vars\": { \"PYTHONPATH\": \"/tmp\" } } }",
	  "t.json:5:53: at /command_policies/commands/git/sandbox/environment/set_vars/PYTHONPATH: refusing to set PYTHONPATH: it makes a loader or interpreter run code chosen from outside" },
	{ "env_allow_name", -EINVAL, IN_S,
	  "{ \"environment\": { \"allow_vars\": [\"GIT-*\"] } }",
	  "t.json:5:54: at /command_policies/commands/git/sandbox/environment/allow_vars/0: \"GIT-*\" is not a variable name or pattern (NAME, PREFIX_* or *)" },
	{ "env_allow_star", -EINVAL, IN_S,
	  "{ \"environment\": { \"allow_vars\": [\"*\"] } }",
	  "t.json:5:54: at /command_policies/commands/git/sandbox/environment/allow_vars/0: \"*\" is a pattern: a tool's allow_vars names each variable its caller may pass (a pattern lets the caller choose what the tool reads)" },
	{ "env_allow_prefix", -EINVAL, IN_S,
	  "{ \"environment\": { \"allow_vars\": [\"LANG\", \"GIT_*\"] } }",
	  "t.json:5:62: at /command_policies/commands/git/sandbox/environment/allow_vars/1: \"GIT_*\" is a pattern: a tool's allow_vars names each variable its caller may pass (a pattern lets the caller choose what the tool reads)" },
	{ "env_allow_twice", -EINVAL, IN_S,
	  "{ \"environment\": { \"allow_vars\": [\"KUBECONFIG\", \"LANG\", \"KUBECONFIG\"] } }",
	  "t.json:5:76: at /command_policies/commands/git/sandbox/environment/allow_vars/2: KUBECONFIG is named twice" },
	{ "env_allow_home", -EPERM, IN_S,
	  "{ \"environment\": { \"allow_vars\": [\"HOME\"] } }",
	  "t.json:5:54: at /command_policies/commands/git/sandbox/environment/allow_vars/0: HOME is cordon's for a tool: HOME, TMPDIR and XDG_* are the tool's own private directories (name the files of HOME it needs in home_files)" },
	{ "env_allow_xdg", -EPERM, IN_S,
	  "{ \"environment\": { \"allow_vars\": [\"XDG_CONFIG_HOME\"] } }",
	  "t.json:5:54: at /command_policies/commands/git/sandbox/environment/allow_vars/0: XDG_CONFIG_HOME is cordon's for a tool: HOME, TMPDIR and XDG_* are the tool's own private directories (name the files of HOME it needs in home_files)" },
	{ "env_set_tmpdir", -EPERM, IN_S,
	  "{ \"environment\": { \"set_vars\": { \"TMPDIR\": \"/ws\" } } }",
	  "t.json:5:53: at /command_policies/commands/git/sandbox/environment/set_vars/TMPDIR: TMPDIR is cordon's for a tool: HOME, TMPDIR and XDG_* are the tool's own private directories" },
	{ "home_files_absolute", -EINVAL, IN_S,
	  "{ \"home_files\": [\"/etc/passwd\"] }",
	  "t.json:5:37: at /command_policies/commands/git/sandbox/home_files/0: \"/etc/passwd\" is not a path relative to HOME (\".gitconfig\")" },
	{ "home_files_climb", -EINVAL, IN_S,
	  "{ \"home_files\": [\".config/../../x\"] }",
	  "t.json:5:37: at /command_policies/commands/git/sandbox/home_files/0: \".config/../../x\": a path below HOME, without empty, \".\" or \"..\" components" },
	{ "home_files_twice", -EINVAL, IN_S,
	  "{ \"home_files\": [\".gitconfig\", \".gitconfig\"] }",
	  "t.json:5:51: at /command_policies/commands/git/sandbox/home_files/1: .gitconfig is named twice" },
	{ "limits_unknown", -EINVAL, IN_S,
	  "{ \"limits\": { \"wall\": \"1m\" } }",
	  "t.json:5:34: at /command_policies/commands/git/sandbox/limits/wall: unknown key \"wall\" (known: timeout, cpu, memory, max_processes, max_file_size, max_open_files, max_output, on_output_limit, limits_fallback)" },
	{ "limits_memory", -ERANGE, IN_S,
	  "{ \"limits\": { \"memory\": \"2T\" } }",
	  "t.json:5:44: at /command_policies/commands/git/sandbox/limits/memory: must be from 1M to 1T, not 2199023255552" },
	{ "limits_timeout_fraction", -EINVAL, IN_S,
	  "{ \"limits\": { \"timeout\": \"1500ms\" } }",
	  "t.json:5:45: at /command_policies/commands/git/sandbox/limits/timeout: \"1500ms\" is not a whole number of seconds" },
	{ "stdio_stream", -EINVAL, IN_S,
	  "{ \"stdio\": { \"stdin\": { \"max_bytes\": 1 } } }",
	  "t.json:5:33: at /command_policies/commands/git/sandbox/stdio/stdin: unknown key \"stdin\" (known: stdout, stderr)" },
	{ "stdio_no_max", -EINVAL, IN_S,
	  "{ \"stdio\": { \"stdout\": { \"on_limit\": \"terminate\" } } }",
	  "t.json:5:43: at /command_policies/commands/git/sandbox/stdio/stdout: needs \"max_bytes\": the most bytes the stream may carry" },
	{ "stdio_zero", -ERANGE, IN_S,
	  "{ \"stdio\": { \"stdout\": { \"max_bytes\": 0 } } }",
	  "t.json:5:58: at /command_policies/commands/git/sandbox/stdio/stdout/max_bytes: must be from 1 byte to 1G, not 0" },
	{ "stdio_big", -ERANGE, IN_S,
	  "{ \"stdio\": { \"stderr\": { \"max_bytes\": \"2G\" } } }",
	  "t.json:5:58: at /command_policies/commands/git/sandbox/stdio/stderr/max_bytes: must be from 1 byte to 1G, not 2147483648" },
	{ "stdio_size", -EINVAL, IN_S,
	  "{ \"stdio\": { \"stderr\": { \"max_bytes\": \"lots\" } } }",
	  "t.json:5:58: at /command_policies/commands/git/sandbox/stdio/stderr/max_bytes: \"lots\" is not a size (a number of bytes, or with a k, M, G or T suffix)" },
	{ "stdio_on_limit", -EINVAL, IN_S,
	  "{ \"stdio\": { \"stdout\": { \"max_bytes\": 10, \"on_limit\": \"kill\" } } }",
	  "t.json:5:74: at /command_policies/commands/git/sandbox/stdio/stdout/on_limit: \"kill\" is not truncate or terminate" },
};

Test(tools_load, every_refusal_with_its_message_and_position)
{
	for (size_t i = 0; i < ELEMENTSOF(loader_cases); i++) {
		const struct loader_case *c = &loader_cases[i];
		_cleanup_free_ char *text = shaped(c->shape, c->body);

		expect_refused(c->name, text, c->error, c->message);
	}
}

/* ---- the caps ------------------------------------------------------------------ */

/* n items joined by sep, each prefix, its index (with_index), suffix. */
static char *items(size_t n, const char *prefix, bool with_index, const char *suffix, const char *sep)
{
	size_t size = n * (strlen(prefix) + 24 + strlen(suffix) + strlen(sep)) + 1, o = 0;
	char *out = malloc(size);

	cr_assert_not_null(out);
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (with_index)
			o += (size_t)snprintf(out + o, size - o, "%s%s%zu%s", i ? sep : "", prefix, i, suffix);
		else
			o += (size_t)snprintf(out + o, size - o, "%s%s%s", i ? sep : "", prefix, suffix);
	}
	return out;
}

static char *with_body(enum shape s, const char *before, const char *middle, const char *after)
{
	_cleanup_free_ char *body = NULL;

	cr_assert_geq(asprintf(&body, "%s%s%s", before, middle, after), 0);
	return shaped(s, body);
}

Test(tools_load, caps)
{
	_cleanup_free_ char *a = items(2048, "a", false, "", ""), *backends = NULL, *commands = NULL, *words = NULL,
			    *word = items(4097, "w", false, "", ""), *reason = items(256, "r", false, "", ""),
			    *t1 = NULL, *t2 = NULL, *t3 = NULL, *t4 = NULL, *t5 = NULL, *t6 = NULL;

	t1 = with_body(IN_B, "\"bot\": { \"type\": \"webhook\", \"url\": \"https://h/", a,
		       "\", \"secret_env\": \"K\", \"timeout_secs\": 5 }");
	expect_refused("url", t1, -EINVAL,
		       "t.json:4:42: at /command_policies/approval_backends/bot/url: longer than 2048 bytes");
	backends = items(65, "\"b", true, "\": { \"type\": \"terminal\", \"timeout_secs\": 5, \"default\": \"deny\" }",
			 ",\n      ");
	t2 = shaped(IN_B, backends);
	expect_refused("backends", t2, -E2BIG,
		       "t.json:68:7: at /command_policies/approval_backends/b64: more than 64 approval backends");
	commands = items(257, "\"c", true, "\": {}", ", ");
	t3 = shaped(IN_C, commands);
	expect_refused("commands", t3, -E2BIG, "t.json:4:2969: at /command_policies/commands/c256: more than 256 commands");
	words = items(257, "\"w\"", false, "", ", ");
	t4 = with_body(IN_P, "{ \"default\": \"allow\", \"deny\": [ { \"argv\": { \"contains\": [", words, "] } } ] }");
	expect_refused("words", t4, -E2BIG,
		       "t.json:5:86: at /command_policies/commands/git/invocation_policy/deny/0/argv/contains: more than 256 "
		       "words");
	t5 = with_body(IN_P, "{ \"default\": \"allow\", \"deny\": [ { \"argv\": { \"contains\": [\"", word, "\"] } } ] }");
	expect_refused("word", t5, -EINVAL,
		       "t.json:5:87: at /command_policies/commands/git/invocation_policy/deny/0/argv/contains/0: longer "
		       "than 4096 bytes");
	t6 = with_body(IN_P, "{ \"default\": \"allow\", \"deny\": [ { \"argv\": { \"prefix\": [\"push\"] }, \"reason\": \"",
		       reason, "\" } ] }");
	expect_refused("reason", t6, -EINVAL,
		       "t.json:5:106: at /command_policies/commands/git/invocation_policy/deny/0/reason: longer than 255 "
		       "bytes");
}

/* Counts bounded before anything is allocated for them. */
Test(tools_load, caps_before_allocating)
{
	_cleanup_free_ char *callers = items(258, "\"c", true, "\": \"deny\"", ", "),
			    *rules = items(4097, "{ \"argv\": { \"exact\": [] } }", false, "", ", "), *t1 = NULL,
			    *t2 = NULL;

	t1 = with_body(IN_C, "\"ssh\": { \"from\": { ", callers, " } }");
	expect_refused("callers", t1, -E2BIG, "t.json:4:24: at /command_policies/commands/ssh/from: more than 257 callers");
	t2 = with_body(IN_P, "{ \"default\": \"allow\", \"deny\": [", rules, "] }");
	expect_refused("rules", t2, -E2BIG,
		       "t.json:5:60: at /command_policies/commands/git/invocation_policy/deny: more than 4096 rules");
}

/* ---- loading for a run -------------------------------------------------------------- */

static const char minimal[] = "{\n  \"command_policies\": {\n    \"commands\": { \"git\": {} }\n  }\n}\n";

/* The supervisor runs it: a load for a run keeps command_policies, as an
 * inspection does, and an error inside is still an error. */
Test(tools_load, loads_for_a_run)
{
	struct profile_env strict = env;
	_cleanup_profile_ struct cordon_profile *p = NULL, *q = NULL;
	_cleanup_free_ char *bad = shaped(IN_S, "{ \"fs_write\": [\"/\"] }");
	struct cordon_error e = {};

	strict.inspect = false;
	cr_assert_eq(profile_load_buffer(minimal, strlen(minimal), "t.json", &strict, &p, &e), 0, "%s", e.message);
	cr_assert(profile_has_command_policies(p));
	p = profile_free(p);
	cr_assert_eq(profile_load_buffer(bad, strlen(bad), "t.json", &strict, &p, &e), -EINVAL);
	cr_expect_str_eq(e.message, "t.json:5:35: at /command_policies/commands/git/sandbox/fs_write/0: \"/\" is the "
				    "whole filesystem");
	/* the same bytes, loaded to be looked at */
	cr_assert_eq(profile_load_buffer(minimal, strlen(minimal), "t.json", &env, &q, &e), 0, "%s", e.message);
	cr_assert_not_null(q->tools);
	cr_expect_str_eq(cordon_tools_commands(q->tools)[0], "git");
	cr_expect_null(cordon_tools_commands(q->tools)[1]);
}

/* The handle an inspection loads is never run; the public load refuses. */
Test(tools_load, inspection_handle)
{
	char dir[] = "/tmp/cordon-tools-load-XXXXXX";
	_cleanup_free_ char *file = NULL, *plain = NULL;
	struct cordon_profile_handle *h = NULL, *h2 = NULL;
	struct cordon_launch *l = NULL;
	struct cordon_profile_opts o = { .workspace = dir };
	struct cordon_launch_opts lo = { .backend_set = true, .backend = CORDON_BACKEND_NATIVE };
	struct cordon_error e = {};
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	file = path_join(dir, "p.json");
	plain = path_join(dir, "plain.json");
	f = fopen(file, "we");
	cr_assert_not_null(f);
	fputs(minimal, f);
	fclose(f);
	f = fopen(plain, "we");
	cr_assert_not_null(f);
	fputs("{ \"mode\": \"read-only\" }\n", f);
	fclose(f);

	/* a load for a run keeps command_policies; a launch of it is refused:
	 * only the supervisor runs such a session */
	cr_assert_eq(cordon_profile_load(file, &o, &h, &e), 0, "%s", e.message);
	cr_expect_not_null(cordon_profile_tools(h));
	cr_expect_eq(cordon_launch_new(h, &lo, &l, &e), -EOPNOTSUPP);
	cr_expect_null(l);
	cr_expect_not_null(strstr(e.message, "only the tool sandbox's supervisor runs it"), "%s", e.message);
	h = cordon_profile_free(h);
	cr_assert_eq(cordon_profile_load_inspect(file, &o, &h, &e), 0, "%s", e.message);
	cr_expect_not_null(cordon_profile_tools(h));
	cr_expect_eq(cordon_launch_new(h, &lo, &l, &e), -EOPNOTSUPP);
	cr_expect_null(l);
	cr_expect_not_null(strstr(e.message, "was loaded for inspection only: it cannot be run"), "%s", e.message);
	/* nothing to compile: no tools, and a run loads it as ever */
	cr_assert_eq(cordon_profile_load(plain, &o, &h2, &e), 0, "%s", e.message);
	cr_expect_null(cordon_profile_tools(h2));
	cr_expect_null(cordon_profile_tools(NULL));
	cordon_profile_free(h);
	cordon_profile_free(h2);
	unlink(file);
	unlink(plain);
	rmdir(dir);
}

/* ---- extends ------------------------------------------------------------------------ */

/* A later file's command or backend replaces the earlier one's whole:
 * nothing of the parent's git survives beside the child's. */
Test(tools_load, extends_replaces_whole_commands_and_backends)
{
	char dir[] = "/tmp/cordon-tools-load-XXXXXX";
	_cleanup_free_ char *parent = NULL, *child = NULL;
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct cordon_approval_backend b;
	struct cordon_tool_decision d;
	struct cordon_error e = {};
	FILE *f;

	cr_assert_not_null(mkdtemp(dir));
	parent = path_join(dir, "parent.json");
	child = path_join(dir, "child.json");
	f = fopen(parent, "we");
	cr_assert_not_null(f);
	fputs("{ \"command_policies\": {\n"
	      "  \"approval_backends\": { \"me\": { \"type\": \"terminal\", \"timeout_secs\": 5, \"default\": \"deny\" } },\n"
	      "  \"commands\": { \"git\": { \"executable\": \"/usr/bin/git\", \"can_use\": [\"ssh\"] }, \"ssh\": {} } } }\n",
	      f);
	fclose(f);
	f = fopen(child, "we");
	cr_assert_not_null(f);
	fputs("{ \"extends\": \"parent.json\", \"command_policies\": {\n"
	      "  \"approval_backends\": { \"me\": { \"type\": \"terminal\", \"timeout_secs\": 9, \"default\": \"allow\" } },\n"
	      "  \"commands\": { \"git\": { \"invocation_policy\": { \"default\": \"approve\", \"backend\": \"me\" } },\n"
	      "                \"ssh\": { \"from\": { \"session\": \"deny\" } } } } }\n",
	      f);
	fclose(f);
	cr_assert_eq(profile_load(child, &env, &p, &e), 0, "%s", e.message);
	cr_expect_str_eq(cordon_tools_executable(p->tools, "git"), "git");
	cr_expect_null(cordon_tools_can_use(p->tools, "git")[0]);
	cr_assert_eq(cordon_tools_backend(p->tools, "me", &b), 0);
	cr_expect_eq(b.timeout_ms, 9000);
	cr_expect(b.default_allow);
	cr_assert_eq(cordon_tools_decide(p->tools, CORDON_TOOLS_SESSION, "git", NULL, NULL, &d), 0);
	cr_expect_eq(d.action, CORDON_TOOL_APPROVE);
	cr_expect_str_eq(d.file, child);
	cr_expect_eq(d.line, 3);
	/* git no longer reaches ssh: its can_use went with the parent's git */
	cr_assert_eq(cordon_tools_decide(p->tools, "git", "ssh", NULL, NULL, &d), 0);
	cr_expect_eq(d.action, CORDON_TOOL_DENY);
	cr_expect_str_eq(d.rule, "/command_policies/commands/git/can_use");
	unlink(parent);
	unlink(child);
	rmdir(dir);
}

/* ---- the git tokens: the global and system configuration, never the repository's ---- */

static void put(const char *dir, const char *name, const char *text)
{
	_cleanup_free_ char *path = path_join(dir, name);
	FILE *f;

	cr_assert_not_null(path);
	f = fopen(path, "we");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

static bool has(const char *const *v, const char *dir, const char *name)
{
	_cleanup_free_ char *path = name ? path_join(dir, name) : strdup(dir);

	return strv_contains((char *const *)v, path);
}

Test(tools_load, git_tokens_name_global_and_system_configuration_only)
{
	char tmpl[] = "/tmp/cordon-tools-git-XXXXXX";
	_cleanup_free_ char *base = NULL, *home = NULL, *ws = NULL, *git = NULL, *sys = NULL, *xdg = NULL;
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct profile_env genv = env;
	struct cordon_tool_sandbox sb;
	struct cordon_error e = {};
	const char *text = "{ \"command_policies\": { \"commands\": { \"git\": { \"sandbox\": {\n"
			   "  \"fs_read\": [\"@git:config-files\"], \"exec_paths\": [\"@git:hooks-path\"] } } } } }\n";

	cr_assert_not_null(mkdtemp(tmpl));
	cr_assert_eq(cordon_canonicalize(tmpl, &base, NULL), 0);
	home = path_join(base, "home");
	ws = path_join(base, "ws");
	git = path_join(ws, ".git");
	xdg = path_join(home, ".config");
	cr_assert_eq(mkdir(home, 0755), 0);
	cr_assert_eq(mkdir(ws, 0755), 0);
	cr_assert_eq(mkdir(git, 0755), 0);
	put(home, ".gitconfig", "[include]\n\tpath = ~/extra.cfg\n[core]\n\thooksPath = ~/global-hooks\n");
	put(home, "extra.cfg", "[user]\n\tname = x\n");
	put(base, "system.gitconfig", "[core]\n\thooksPath = /nonexistent/system-hooks\n");
	/* the repository's own: a hooks path and an include the session could
	 * write, and must never be granted by a token */
	put(git, "config", "[core]\n\thooksPath = /nonexistent/repo-hooks\n[include]\n\tpath = /nonexistent/repo.cfg\n");
	sys = path_join(base, "system.gitconfig");
	genv.home = home;
	genv.workspace = ws;
	genv.xdg_config_home = xdg;
	genv.system_gitconfig = sys;
	cr_assert_eq(chdir(ws), 0);

	cr_assert_eq(profile_load_buffer(text, strlen(text), "g.json", &genv, &p, &e), 0, "%s", e.message);
	cr_assert_eq(cordon_tools_sandbox(p->tools, CORDON_TOOLS_SESSION, "git", &sb), 0);
	cr_expect(has(sb.fs_read, sys, NULL));
	cr_expect(has(sb.fs_read, home, ".gitconfig"));
	cr_expect(has(sb.fs_read, home, ".config/git/config"));
	cr_expect(has(sb.fs_read, home, "extra.cfg"));
	cr_expect_eq(strv_length((char *const *)sb.fs_read), 4);
	cr_expect(has(sb.exec_paths, home, "global-hooks"));
	cr_expect(has(sb.exec_paths, "/nonexistent/system-hooks", NULL));
	cr_expect_eq(strv_length((char *const *)sb.exec_paths), 2);
	cr_expect(!has(sb.fs_read, git, "config"));
	cr_expect(!has(sb.fs_read, "/nonexistent/repo.cfg", NULL));
	cr_expect(!has(sb.exec_paths, "/nonexistent/repo-hooks", NULL));
	cr_expect(!has(sb.exec_paths, git, "hooks"));

	{
		_cleanup_free_ char *a = path_join(home, ".gitconfig"), *b2 = path_join(home, "extra.cfg"),
				    *c = path_join(git, "config");

		unlink(a), unlink(b2), unlink(c), unlink(sys);
	}
	rmdir(git), rmdir(ws), rmdir(home), rmdir(base);
}

/* ---- the round trip ----------------------------------------------------------------- */

/* What profile show prints loads back to the same: a from entry written as
 * a bare sandbox comes back as {"sandbox": ...}, an empty exact stays. */
Test(tools_load, round_trip_keeps_every_part)
{
	const char *text =
		"{ \"command_policies\": {\n"
		"  \"approval_backends\": { \"me\": { \"type\": \"terminal\", \"timeout_secs\": 5, \"default\": \"allow\" },\n"
		"    \"hook\": { \"type\": \"webhook\", \"url\": \"https://[::1]:8443/ok?x=1\", \"secret_env\": \"K\", \"answer_secret_env\": \"A\",\n"
		"              \"timeout_secs\": 3600 },\n"
		"    \"any\": { \"type\": \"chain\", \"mode\": \"any\", \"backends\": [\"hook\", \"me\"] } },\n"
		"  \"commands\": {\n"
		"    \"make\": { \"executable\": \"make\", \"can_use\": [\"cc\", \"cc\"], \"secret_flags\": [\"-p\", \"--db-pass\"],\n"
		"      \"invocation_policy\": { \"default\": \"deny\", \"backend\": \"any\",\n"
		"        \"allow\": [ { \"argv\": { \"exact\": [] } } ],\n"
		"        \"approve\": [ { \"env\": { \"CI\": { \"one_of\": [\"1\", \"true\"] } } } ],\n"
		"        \"deny\": [ { \"argv\": { \"prefix\": [\"-C\"], \"contains\": [\"install\"] }, \"reason\": \"no\" } ] } },\n"
		"    \"cc\": { \"sandbox\": { \"fs_write_file\": [\"$TMPDIR/cc.log\"], \"limits\": { \"cpu\": 60, \"limits_fallback\": \"fail\" },\n"
		"                           \"environment\": { \"set_vars\": { \"LANG\": \"C=x\" } } },\n"
		"      \"from\": { \"make\": { \"exec_paths\": [\"/usr/libexec\"] }, \"session\": { \"sandbox\": {} } } } } } }\n";
	_cleanup_profile_ struct cordon_profile *p = NULL, *p2 = NULL;
	_cleanup_free_ char *s = NULL, *s2 = NULL;
	struct cordon_error e = {};

	cr_assert_eq(profile_load_buffer(text, strlen(text), "r.json", &env, &p, &e), 0, "%s", e.message);
	cr_assert_eq(profile_to_json(p, &s), 0);
	cr_assert_eq(profile_load_buffer(s, strlen(s), "again.json", &env, &p2, &e), 0, "%s\n%s", e.message, s);
	cr_assert_eq(profile_to_json(p2, &s2), 0);
	cr_assert(strstr(s, "\"secret_flags\": [") && strstr(s, "\"--db-pass\""), "%s", s);
	cr_expect_str_eq(s, s2);
	cr_expect_not_null(strstr(s, "\"exact\": []"), "%s", s);
	cr_expect_not_null(strstr(s, "\"LANG\": \"C=x\""), "%s", s);
	{
		json_t *root = json_loads(s, 0, NULL);
		json_t *from = json_object_get(
			json_object_get(json_object_get(json_object_get(root, "command_policies"), "commands"), "cc"),
			"from");
		json_t *make = json_object_get(json_object_get(from, "make"), "sandbox");
		json_t *session = json_object_get(json_object_get(from, "session"), "sandbox");

		cr_expect(json_is_array(json_object_get(make, "exec_paths")), "%s", s);
		cr_expect(json_is_object(session) && json_object_size(session) == 0, "%s", s);
		json_decref(root);
	}
}
