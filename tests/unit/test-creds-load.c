/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * credentials and credential_capture, loaded (issue 23): each rule's
 * refusal with its position (file:line) and its reason, beside a control
 * that loads; the phantom shape's grammar and its 128 bits; what profile
 * show prints (never a value, never a phantom); a profile with credentials
 * and no command_policies still a session of the supervisor.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/cordon.h"
#include "cleanup.h"
#include "creds.h"
#include "policy.h"
#include "profile.h"
#include "tools.h"

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

/* A profile with two commands (gh on the proxy, quiet with no network), a
 * backend, one credential whose body is CRED and captures CAPS. */
#define PROFILE(CRED, CAPS)                                                                                   \
	"{\n"                                                                                                 \
	"  \"command_policies\": {\n"                                                                         \
	"    \"approval_backends\": { \"me\": { \"type\": \"terminal\", \"timeout_secs\": 5, \"default\": \"deny\" } },\n" \
	"    \"commands\": {\n"                                                                                \
	"      \"gh\": { \"executable\": \"/usr/bin/true\", \"sandbox\": { \"network\": { \"mode\": \"proxy\" } } },\n" \
	"      \"quiet\": { \"executable\": \"/usr/bin/true\", \"sandbox\": { \"network\": { \"mode\": \"none\" } } }\n" \
	"    }\n"                                                                                              \
	"  },\n"                                                                                               \
	"  \"credentials\": {\n"                                                                               \
	"    \"github\": " CRED "\n"                                                                           \
	"  }" CAPS "\n"                                                                                        \
	"}\n"

#define GOOD_CAPS ",\n  \"credential_capture\": { \"gh-token\": { \"command\": [\"gh\", \"auth\", \"token\"], \"timeout\": \"5s\", \"ttl\": \"15m\" } }"

#define SRC "\"source\": \"env://GH_REAL\""
#define HOSTS "\"hosts\": [\"api.github.com\"]"
#define INJ "\"inject\": { \"header\": \"Authorization\", \"format\": \"Bearer {}\" }"
#define PH "\"phantom\": { \"env\": \"GH_TOKEN\", \"shape\": \"ghp_{36}\" }"
#define GR "\"grant_to\": [\"cmd.gh\"]"

static int load(const char *text, struct cordon_profile **ret, struct cordon_error *e)
{
	return profile_load_buffer(text, strlen(text), "t.json", &env, ret, e);
}

/* Refused with error, at t.json:LINE:, the message holding what. */
static void expect_refused(const char *name, const char *text, int error, int line, const char *what)
{
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct cordon_error e = {};
	char at[32];
	int r = load(text, &p, &e);

	snprintf(at, sizeof(at), "t.json:%d:", line);
	cr_expect_eq(r, error, "%s: %d (%s), not %d", name, r, e.message, error);
	cr_expect_null(p, "%s", name);
	cr_expect(strncmp(e.message, at, strlen(at)) == 0, "%s: %s is not at %s", name, e.message, at);
	cr_expect(strstr(e.message, what) != NULL, "%s: \"%s\" does not say \"%s\"", name, e.message, what);
}

Test(creds_load, control_loads)
{
	_cleanup_profile_ struct cordon_profile *p = NULL;
	struct cordon_error e = {};
	const struct tool_cred *c;

	cr_assert_eq(load(PROFILE("{ " SRC ", " HOSTS ", " INJ ", " PH ", " GR " }", ""), &p, &e), 0, "%s", e.message);
	cr_assert_not_null(p->tools);
	cr_assert_not_null(p->tools->creds);
	c = tool_creds_find(p->tools->creds, "github");
	cr_assert_not_null(c);
	cr_expect_eq(c->source, CRED_SOURCE_ENV);
	cr_expect_str_eq(c->source_ref, "GH_REAL");
	cr_expect_str_eq(c->shape.prefix, "ghp_");
	cr_expect_eq(c->shape.len, 36);
	cr_expect_eq(c->shape.alphabet, CRED_ALPHA_BASE62);
	cr_expect(tool_cred_granted(c, "gh"));
	cr_expect_not(tool_cred_granted(c, "quiet"));
	cr_expect_not(tool_cred_granted(c, "session"));
	cr_expect_not(c->policy.set);
}

Test(creds_load, every_rule)
{
	static const struct {
		const char *name, *text;
		int error, line;
		const char *what;
	} cases[] = {
		{ "no_hosts", PROFILE("{ " SRC ", " INJ ", " PH ", " GR " }", ""), -EINVAL, 10, "needs \"hosts\"" },
		{ "empty_hosts", PROFILE("{ " SRC ", \"hosts\": [], " INJ ", " PH ", " GR " }", ""), -EINVAL, 10, "no host" },
		{ "wildcard_host", PROFILE("{ " SRC ", \"hosts\": [\"*.github.com\"], " INJ ", " PH ", " GR " }", ""), -EINVAL, 10,
		  "never a wildcard" },
		{ "no_grant", PROFILE("{ " SRC ", " HOSTS ", " INJ ", " PH " }", ""), -EINVAL, 10, "there is no default" },
		{ "empty_grant", PROFILE("{ " SRC ", " HOSTS ", " INJ ", " PH ", \"grant_to\": [] }", ""), -EINVAL, 10,
		  "nobody may use" },
		{ "grant_word", PROFILE("{ " SRC ", " HOSTS ", " INJ ", " PH ", \"grant_to\": [\"everyone\"] }", ""), -EINVAL, 10,
		  "is not a consumer" },
		{ "grant_undefined", PROFILE("{ " SRC ", " HOSTS ", " INJ ", " PH ", \"grant_to\": [\"cmd.hg\"] }", ""), -EINVAL,
		  10, "did you mean \"gh\"" },
		{ "grant_net_none", PROFILE("{ " SRC ", " HOSTS ", " INJ ", " PH ", \"grant_to\": [\"cmd.quiet\"] }", ""),
		  -EINVAL, 10, "network \"none\"" },
		{ "no_source", PROFILE("{ " HOSTS ", " INJ ", " PH ", " GR " }", ""), -EINVAL, 10, "needs a \"source\"" },
		{ "bad_scheme", PROFILE("{ \"source\": \"https://x\", " HOSTS ", " INJ ", " PH ", " GR " }", ""), -EINVAL, 10,
		  "is not a source" },
		{ "env_name", PROFILE("{ \"source\": \"env://A B\", " HOSTS ", " INJ ", " PH ", " GR " }", ""), -EINVAL, 10,
		  "is not a variable name" },
		{ "file_relative", PROFILE("{ \"source\": \"file://tok\", " HOSTS ", " INJ ", " PH ", " GR " }", ""), -EINVAL, 10,
		  "the path is absolute" },
		{ "cmd_undefined", PROFILE("{ \"source\": \"cmd://gh-tokn\", " HOSTS ", " INJ ", " PH ", " GR " }", GOOD_CAPS),
		  -EINVAL, 10, "did you mean \"gh-token\"" },
		{ "cmd_no_captures", PROFILE("{ \"source\": \"cmd://x\", " HOSTS ", " INJ ", " PH ", " GR " }", ""), -EINVAL, 10,
		  "defines no capture" },
		{ "no_inject", PROFILE("{ " SRC ", " HOSTS ", " PH ", " GR " }", ""), -EINVAL, 10, "needs \"inject\"" },
		{ "two_injects", PROFILE("{ " SRC ", " HOSTS ", \"inject\": { \"query\": \"t\", \"basic\": { \"user\": \"x\" } }, " PH ", " GR " }", ""),
		  -EINVAL, 10, "inject is one of" },
		{ "header_no_format", PROFILE("{ " SRC ", " HOSTS ", \"inject\": { \"header\": \"X-Key\" }, " PH ", " GR " }", ""),
		  -EINVAL, 10, "needs a \"format\"" },
		{ "format_no_braces", PROFILE("{ " SRC ", " HOSTS ", \"inject\": { \"header\": \"X-Key\", \"format\": \"Bearer\" }, " PH ", " GR " }", ""),
		  -EINVAL, 10, "holds \"{}\"" },
		{ "header_host", PROFILE("{ " SRC ", " HOSTS ", \"inject\": { \"header\": \"Host\", \"format\": \"{}\" }, " PH ", " GR " }", ""),
		  -EINVAL, 10, "not a header the proxy may set" },
		{ "basic_shape", PROFILE("{ " SRC ", " HOSTS ", \"inject\": { \"basic\": \"x\" }, " PH ", " GR " }", ""),
		  -EINVAL, 10, "basic is {\"user\": NAME}" },
		{ "no_phantom", PROFILE("{ " SRC ", " HOSTS ", " INJ ", " GR " }", ""), -EINVAL, 10, "needs a \"phantom\"" },
		{ "shape_short", PROFILE("{ " SRC ", " HOSTS ", " INJ ", \"phantom\": { \"env\": \"T\", \"shape\": \"ghp_{21}\" }, " GR " }", ""),
		  -EINVAL, 10, "125 bits of randomness" },
		{ "shape_hex_short", PROFILE("{ " SRC ", " HOSTS ", " INJ ", \"phantom\": { \"env\": \"T\", \"shape\": \"k{31:hex}\" }, " GR " }", ""),
		  -EINVAL, 10, "124 bits" },
		{ "shape_no_braces", PROFILE("{ " SRC ", " HOSTS ", " INJ ", \"phantom\": { \"env\": \"T\", \"shape\": \"ghp_36\" }, " GR " }", ""),
		  -EINVAL, 10, "has no {N}" },
		{ "shape_alphabet", PROFILE("{ " SRC ", " HOSTS ", " INJ ", \"phantom\": { \"env\": \"T\", \"shape\": \"x{40:base58}\" }, " GR " }", ""),
		  -EINVAL, 10, "the alphabet is base62" },
		{ "shape_suffix", PROFILE("{ " SRC ", " HOSTS ", " INJ ", \"phantom\": { \"env\": \"T\", \"shape\": \"x{40}y\" }, " GR " }", ""),
		  -EINVAL, 10, "nothing after the braces" },
		{ "phantom_env_owned", PROFILE("{ " SRC ", " HOSTS ", " INJ ", \"phantom\": { \"env\": \"HOME\", \"shape\": \"x{40}\" }, " GR " }", ""),
		  -EINVAL, 10, "a variable cordon or the loader owns" },
		{ "phantom_env_proxy", PROFILE("{ " SRC ", " HOSTS ", " INJ ", \"phantom\": { \"env\": \"Https_Proxy\", \"shape\": \"x{40}\" }, " GR " }", ""),
		  -EINVAL, 10, "a variable cordon or the loader owns" },
		{ "tls_half_pair", PROFILE("{ " SRC ", " HOSTS ", " INJ ", " PH ", " GR ", \"tls\": { \"client_cert\": \"/c.pem\" } }", ""),
		  -EINVAL, 10, "both client_cert and client_key, or neither" },
		{ "tls_key_alone", PROFILE("{ " SRC ", " HOSTS ", " INJ ", " PH ", " GR ", \"tls\": { \"client_key\": \"/k.pem\" } }", ""),
		  -EINVAL, 10, "both client_cert and client_key, or neither" },
		{ "policy_no_default", PROFILE("{ " SRC ", " HOSTS ", " INJ ", " PH ", " GR ", \"endpoint_policy\": { \"allow\": [] } }", ""),
		  -EINVAL, 10, "says its \"default\"" },
		{ "policy_method", PROFILE("{ " SRC ", " HOSTS ", " INJ ", " PH ", " GR ", \"endpoint_policy\": { \"default\": \"deny\", \"allow\": [{ \"method\": \"get\", \"path\": \"/\" }] } }", ""),
		  -EINVAL, 10, "is not a method" },
		{ "policy_path", PROFILE("{ " SRC ", " HOSTS ", " INJ ", " PH ", " GR ", \"endpoint_policy\": { \"default\": \"deny\", \"allow\": [{ \"method\": \"GET\", \"path\": \"/a/../b\" }] } }", ""),
		  -EINVAL, 10, "is canonical" },
		{ "policy_backend", PROFILE("{ " SRC ", " HOSTS ", " INJ ", " PH ", " GR ", \"endpoint_policy\": { \"default\": \"deny\", \"approve\": [{ \"method\": \"POST\", \"path\": \"/\", \"backend\": \"you\" }] } }", ""),
		  -EINVAL, 10, "defines no such backend" },
		{ "capture_unused", PROFILE("{ " SRC ", " HOSTS ", " INJ ", " PH ", " GR " }", GOOD_CAPS), -EINVAL, 12,
		  "is no credential's source" },
		{ "capture_no_ttl", PROFILE("{ \"source\": \"cmd://t\", " HOSTS ", " INJ ", " PH ", " GR " }",
					    ",\n  \"credential_capture\": { \"t\": { \"command\": [\"gh\"], \"timeout\": \"5s\" } }"),
		  -EINVAL, 12, "needs a \"ttl\"" },
		{ "capture_no_timeout", PROFILE("{ \"source\": \"cmd://t\", " HOSTS ", " INJ ", " PH ", " GR " }",
						",\n  \"credential_capture\": { \"t\": { \"command\": [\"gh\"], \"ttl\": \"5m\" } }"),
		  -EINVAL, 12, "needs a \"timeout\"" },
		{ "capture_empty_command", PROFILE("{ \"source\": \"cmd://t\", " HOSTS ", " INJ ", " PH ", " GR " }",
						   ",\n  \"credential_capture\": { \"t\": { \"command\": [], \"timeout\": \"5s\", \"ttl\": \"5m\" } }"),
		  -EINVAL, 12, "an empty command" },
		{ "capture_timeout_word", PROFILE("{ \"source\": \"cmd://t\", " HOSTS ", " INJ ", " PH ", " GR " }",
						  ",\n  \"credential_capture\": { \"t\": { \"command\": [\"gh\"], \"timeout\": \"soon\", \"ttl\": \"5m\" } }"),
		  -EINVAL, 12, "is not a duration" },
		{ "capture_unknown_key", PROFILE("{ \"source\": \"cmd://t\", " HOSTS ", " INJ ", " PH ", " GR " }",
						 ",\n  \"credential_capture\": { \"t\": { \"command\": [\"gh\"], \"timeout\": \"5s\", \"ttl\": \"5m\", \"write\": [] } }"),
		  -EINVAL, 12, "unknown key \"write\"" },
		{ "capture_rules_no_proxy", PROFILE("{ \"source\": \"cmd://t\", " HOSTS ", " INJ ", " PH ", " GR " }",
						    ",\n  \"credential_capture\": { \"t\": { \"command\": [\"gh\"], \"timeout\": \"5s\", \"ttl\": \"5m\", \"network\": { \"allow_domains\": [\"github.com\"] } } }"),
		  -EINVAL, 12, "proxy" },
		{ "unknown_key", PROFILE("{ " SRC ", " HOSTS ", " INJ ", " PH ", " GR ", \"grants\": [] }", ""), -EINVAL, 10,
		  "unknown key \"grants\"" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_refused(cases[i].name, cases[i].text, cases[i].error, cases[i].line, cases[i].what);
}

Test(creds_load, two_phantoms_one_variable)
{
	static const char text[] =
		"{\n  \"credentials\": {\n"
		"    \"a\": { " SRC ", " HOSTS ", " INJ ", \"phantom\": { \"env\": \"T\", \"shape\": \"a{40}\" }, \"grant_to\": [\"session\"] },\n"
		"    \"b\": { " SRC ", " HOSTS ", " INJ ", \"phantom\": { \"env\": \"T\", \"shape\": \"b{40}\" }, \"grant_to\": [\"session\"] }\n"
		"  }\n}\n";

	expect_refused("two_phantoms", text, -EINVAL, 4, "one variable, one phantom");
}

/* The shape's grammar and its randomness (pure). */
Test(creds_load, shape)
{
	struct cred_shape s = {};
	struct cordon_error why;

	cr_assert_eq(cred_shape_parse("ghp_{36}", &s, &why), 0, "%s", why.message);
	cr_expect_str_eq(s.prefix, "ghp_");
	cr_expect_eq(s.len, 36);
	cr_expect_eq(s.alphabet, CRED_ALPHA_BASE62);
	cr_expect_geq(cred_shape_bits(&s), 128);
	cred_shape_clear(&s);
	cr_assert_eq(cred_shape_parse("sk-ant-api03-{95}", &s, &why), 0, "%s", why.message);
	cr_expect_eq(s.len, 95);
	cred_shape_clear(&s);
	cr_assert_eq(cred_shape_parse("{32:hex}", &s, &why), 0, "%s", why.message);
	cr_expect_str_eq(s.prefix, "");
	cr_expect_eq(cred_shape_bits(&s), 128);
	cred_shape_clear(&s);
	cr_assert_eq(cred_shape_parse("x{22}", &s, &why), 0, "%s", why.message);
	cr_expect_eq(cred_shape_bits(&s), 130);
	cred_shape_clear(&s);
	cr_assert_eq(cred_shape_parse("x{21}", &s, &why), 0, "%s", why.message);
	cr_expect_lt(cred_shape_bits(&s), 128);
	cred_shape_clear(&s);
	cr_expect_eq(cred_shape_parse("x{0}", &s, &why), -EINVAL);
	cr_expect_eq(cred_shape_parse("x{99999}", &s, &why), -ERANGE);
	cr_expect_eq(cred_shape_parse("a b{40}", &s, &why), -EINVAL);
	cr_expect_eq(cred_shape_parse("x{40:}", &s, &why), -EINVAL);
	cr_expect_eq(cred_shape_parse("x{40", &s, &why), -EINVAL);
}

/* A profile with credentials and no command_policies is still the
 * supervisor's: its tools exist (no command), and show prints no empty
 * command_policies that would not load back. */
Test(creds_load, session_only_is_supervised)
{
	static const char text[] =
		"{\n  \"credentials\": {\n"
		"    \"a\": { \"source\": \"file:///run/secret-token\", " HOSTS ", \"inject\": { \"basic\": { \"user\": \"x-access-token\" } }, "
		"\"phantom\": { \"env\": \"T\", \"shape\": \"a{40}\" }, \"grant_to\": [\"session\"] }\n"
		"  }\n}\n";
	_cleanup_profile_ struct cordon_profile *p = NULL, *q = NULL;
	_cleanup_free_ char *json = NULL;
	struct cordon_error e = {};

	cr_assert_eq(load(text, &p, &e), 0, "%s", e.message);
	cr_assert(profile_has_command_policies(p));
	cr_expect_eq(p->tools->n_commands, 0);
	cr_assert_eq(profile_to_json(p, &json), 0);
	cr_expect_null(strstr(json, "command_policies"), "%s", json);
	cr_expect_not_null(strstr(json, "\"source\": \"file:///run/secret-token\""), "%s", json);
	cr_assert_eq(load(json, &q, &e), 0, "%s: %s", e.message, json);
	cr_expect_eq(q->tools->creds->n, 1);
}

/* show prints the whole credential back, and it loads back the same. */
Test(creds_load, show_round_trip)
{
	_cleanup_profile_ struct cordon_profile *p = NULL, *q = NULL;
	_cleanup_free_ char *a = NULL, *b = NULL;
	struct cordon_error e = {};

	cr_assert_eq(load(PROFILE("{ \"source\": \"cmd://gh-token\", " HOSTS ", " INJ ", " PH ", " GR
				  ", \"endpoint_policy\": { \"default\": \"deny\", \"allow\": [{ \"method\": \"GET\", \"path\": \"/repos/**\" }],"
				  " \"deny\": [{ \"method\": \"DELETE\", \"path\": \"/**\", \"reason\": \"no deletes\" }] } }",
				  GOOD_CAPS),
			  &p, &e),
		     0, "%s", e.message);
	cr_assert_eq(profile_to_json(p, &a), 0);
	cr_expect_not_null(strstr(a, "\"shape\": \"ghp_{36:base62}\""), "%s", a);
	cr_expect_not_null(strstr(a, "\"reason\": \"no deletes\""), "%s", a);
	cr_assert_eq(load(a, &q, &e), 0, "%s: %s", e.message, a);
	cr_assert_eq(profile_to_json(q, &b), 0);
	cr_expect_str_eq(a, b);
}

/* A consumer's set_vars naming a trust variable (cordon points each at the
 * session's bundle for it): refused where it is written, naming the
 * credential; the same name for a command that holds no credential, or
 * another case of it, loads. Every variable the issue names is in the one
 * list (policy_trust_env), compared exactly. */
Test(creds_load, trust_vars)
{
	static const char *const named[] = { "SSL_CERT_FILE",	   "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS",
					     "CURL_CA_BUNDLE",	   "GIT_SSL_CAINFO",	 "PIP_CERT",
					     "CARGO_HTTP_CAINFO", "AWS_CA_BUNDLE",	 "DENO_CERT",
					     "SSL_CERT_DIR",	   NULL };
	static const char session[] =
		"{\n  \"environment\": { \"set_vars\": { \"ssl_cert_file\": \"/a\",\n"
		"    \"SSL_CERT_FILE\": \"/etc/my-ca.pem\" } },\n  \"credentials\": {\n"
		"    \"a\": { " SRC ", " HOSTS ", " INJ ", \"phantom\": { \"env\": \"T\", \"shape\": \"a{40}\" }, \"grant_to\": [\"session\"] }\n"
		"  }\n}\n";
	static const char tool[] =
		"{\n  \"command_policies\": { \"commands\": {\n"
		"    \"gh\": { \"executable\": \"/usr/bin/true\", \"sandbox\": { \"network\": { \"mode\": \"proxy\" },\n"
		"      \"environment\": { \"set_vars\": { \"GIT_SSL_CAINFO\": \"/etc/my-ca.pem\" } } } },\n"
		"    \"quiet\": { \"executable\": \"/usr/bin/true\", \"sandbox\": {\n"
		"      \"environment\": { \"set_vars\": { \"GIT_SSL_CAINFO\": \"/etc/my-ca.pem\" } } } }\n"
		"  } },\n  \"credentials\": { \"github\": { " SRC ", " HOSTS ", " INJ ", " PH ", %s } }\n}\n";
	static const char quiet[] =
		"{\n  \"command_policies\": { \"commands\": {\n"
		"    \"quiet\": { \"executable\": \"/usr/bin/true\", \"sandbox\": {\n"
		"      \"environment\": { \"set_vars\": { \"GIT_SSL_CAINFO\": \"/etc/my-ca.pem\" } } } }\n"
		"  } },\n  \"credentials\": { \"github\": { " SRC ", " HOSTS ", " INJ ", " PH ", \"grant_to\": [\"session\"] } }\n}\n";
	_cleanup_profile_ struct cordon_profile *p = NULL;
	_cleanup_free_ char *granted = NULL, *other = NULL;
	struct cordon_error e = {};

	for (size_t i = 0; named[i]; i++) {
		_cleanup_free_ char *lower = strdup(named[i]);

		cr_assert_not_null(lower);
		for (char *c = lower; *c; c++)
			*c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
		cr_expect(env_name_is_trust(named[i]), "%s", named[i]);
		cr_expect(!env_name_is_trust(lower), "%s", lower);
	}
	cr_expect(!env_name_is_trust("SSL_CERT_FILES"));
	cr_expect(!env_name_is_trust("SSL_CERT"));
	expect_refused("session", session, -EPERM, 3,
		       "refusing to set SSL_CERT_FILE for session: cordon points SSL_CERT_FILE at the session's trust "
		       "bundle for consumers of credential a");
	cr_assert(asprintf(&granted, tool, GR) > 0);
	expect_refused("cmd.gh", granted, -EPERM, 4,
		       "refusing to set GIT_SSL_CAINFO for cmd.gh: cordon points GIT_SSL_CAINFO at the session's "
		       "trust bundle for consumers of credential github");
	/* the same profile granting the session: gh, a consumer of nothing
	 * but on the proxy, is intercepted all the same (refused, saying so) */
	cr_assert(asprintf(&other, tool, "\"grant_to\": [\"session\"]") > 0);
	expect_refused("cmd.gh on the proxy", other, -EPERM, 4,
		       "refusing to set GIT_SSL_CAINFO for cmd.gh: its network is cordon's proxy, which intercepts the "
		       "hosts of this session's credentials (github among them)");
	/* control: a tool with no network, consumer of nothing, keeps its own */
	cr_expect_eq(load(quiet, &p, &e), 0, "%s", e.message);
}
