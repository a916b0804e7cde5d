/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The approval backends' pure parts: escaping, the terminal's prompt, the
 * webhook's body, signature (a known HMAC) and answer parser; the checks
 * approvals_new makes; chains walked over terminals with no terminal (whose
 * default applies at once) in a child that has left its session.
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <pthread.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "approve.h"
#include "approve_message.h"
#include "approve_pool.h"
#include "approve_record.h"
#include "approve_text.h"
#include "approve_webhook.h"
#include "curl_dl.h"

#define DIGEST "abababababababababababababababababababababababababababababababab"
#define ID     "0123456789abcdef0123456789abcdef"

static const char *const test_argv[] = {"push", "--token=s3cret", NULL};
static const char *const test_redacted[] = {"push", "[redacted]", NULL};

static const char *const test_env[] = {"LANG=C", "GH_TOKEN=s3cret", NULL};
static const char *const test_env_redacted[] = {"LANG=C", "GH_TOKEN=[redacted]", NULL};

static const struct approval_request test_request = {
	.request_id = ID,
	.session = "s1",
	.caller = "session",
	.command = "git",
	.argv = test_argv,
	.argv_redacted = test_redacted,
	.env = test_env,
	.env_redacted = test_env_redacted,
	.cwd = "/work",
	.cwd_dev = 2049,
	.cwd_ino = 77,
	.policy = DIGEST,
	.digest = DIGEST,
};

/* --- escaping --- */

static const char *escaped(const char *s, size_t n, size_t size)
{
	static char out[1024];

	escape_printable(s, n, out, size);
	return out;
}

Test(escape, controls_and_non_ascii)
{
	cr_assert_str_eq(escaped("plain text", 10, 64), "plain text");
	cr_assert_str_eq(escaped("\x1b[2J\x1b[H", 7, 64), "\\e[2J\\e[H");
	cr_assert_str_eq(escaped("a\rb\nc\td", 7, 64), "a\\rb\\nc\\td");
	cr_assert_str_eq(escaped("\x9b"
				 "31m",
				 4, 64),
			 "\\x9b31m");
	cr_assert_str_eq(escaped("\xe2\x80\xae"
				 "x",
				 4, 64),
			 "\\xe2\\x80\\xaex");
	cr_assert_str_eq(escaped("\x7f\x01", 2, 64), "\\x7f\\x01");
	cr_assert_str_eq(escaped("a\0b", 3, 64), "a\\x00b");
	cr_assert_str_eq(escaped("say \"hi\" \\o/", 12, 64), "say \\\"hi\\\" \\\\o/");
}

Test(escape, cut_at_a_whole_escape)
{
	char out[16];
	size_t n;

	/* fits exactly: no "..." */
	n = escape_printable("abcdefghijklmno", 15, out, 16);
	cr_assert_eq(n, 15);
	cr_assert_str_eq(out, "abcdefghijklmno");
	n = escape_printable("abcdefghijklmnop", 16, out, 16);
	cr_assert_str_eq(out, "abcdefghijkl...");
	cr_assert_eq(n, strlen(out));
	/* never half an escape */
	escape_printable("abcdefghij\x1b\x1b\x1b\x1b", 14, out, 16);
	cr_assert_str_eq(out, "abcdefghij\\e...");
	escape_printable("abcdefghijk\x01\x01", 13, out, 16);
	cr_assert_str_eq(out, "abcdefghijk...");
	escape_printable("\x01\x02\x03\x04", 4, out, 12);
	cr_assert_str_eq(out, "\\x01\\x02...");
	cr_assert_eq(escape_printable("abc", 3, out, 0), 0);
	cr_assert_eq(escape_printable("abc", 3, out, 1), 0);
	cr_assert_str_eq(out, "");
}

/* --- the terminal --- */

Test(terminal, answers)
{
	cr_assert(terminal_answer_is_yes("yes\n", 4));
	cr_assert(terminal_answer_is_yes("YES\r\n", 5));
	cr_assert(terminal_answer_is_yes("  Yes \n", 7));
	cr_assert(terminal_answer_is_yes("yes", 3)); /* ended by ^D */
	cr_assert_not(terminal_answer_is_yes("y\n", 2));
	cr_assert_not(terminal_answer_is_yes("yess\n", 5));
	cr_assert_not(terminal_answer_is_yes("no\n", 3));
	cr_assert_not(terminal_answer_is_yes("\n", 1));
	cr_assert_not(terminal_answer_is_yes("", 0));
	cr_assert_not(terminal_answer_is_yes("yes\0\n", 5));
	cr_assert_not(terminal_answer_is_yes("yes no\n", 7));
}

static bool printable_lines(const char *s)
{
	for (; *s; s++)
		if (*s != '\n' && (*s < 0x20 || *s > 0x7e))
			return false;
	return true;
}

Test(terminal, prompt_shows_everything_escaped)
{
	const char *argv[] = {"push", "\x1b[2J\x1b[Hfake", "a\rType yes", NULL};
	struct approval_request req = test_request;
	char *info = NULL, *question = NULL;

	req.argv = argv;
	req.cwd = "/w/\x1b]0;title\x07";
	req.caller = "sess\nion";
	cr_assert_eq(terminal_prompt("me", &req, 30000, false, &info, &question), 0);
	cr_assert(printable_lines(info), "%s", info);
	cr_assert(printable_lines(question), "%s", question);
	cr_assert(strstr(info, "backend \"me\", request " ID));
	cr_assert(strstr(info, "caller:  \"sess\\nion\""), "%s", info);
	cr_assert(strstr(info, "command: \"git\""));
	cr_assert(strstr(info, "argv:    (3) \"push\" \"\\e[2J\\e[Hfake\" \"a\\rType yes\"\n"), "%s", info);
	cr_assert(strstr(info, "cwd:     \"/w/\\e]0;title\\x07\""), "%s", info);
	cr_assert(strstr(info, "digest:  " DIGEST));
	cr_assert_str_eq(question, "Type yes to allow, anything else to deny (no answer in 30 s: deny): ");
	free(info);
	free(question);
	cr_assert_eq(terminal_prompt("me", &req, 700, true, &info, &question), 0);
	cr_assert_str_eq(question, "Type yes to allow, anything else to deny (no answer in 700 ms: allow): ");
	free(info);
	free(question);
}

Test(terminal, prompt_argv_is_capped)
{
	static char big[64 * 1024];
	const char *argv[2000];
	struct approval_request req = test_request;
	char *info = NULL, *question = NULL;

	memset(big, '\x1b', sizeof(big) - 1);
	for (size_t i = 0; i < 1999; i++)
		argv[i] = i == 0 ? big : "arg";
	argv[1999] = NULL;
	req.argv = argv;
	cr_assert_eq(terminal_prompt("me", &req, 1000, false, &info, &question), 0);
	/* the whole prompt stays near the cap, however large argv is */
	cr_assert_lt(strlen(info), TERMINAL_ARGV_SHOWN + 1024);
	cr_assert(strstr(info, "argv:    (1999) \"\\e\\e"));
	cr_assert(strstr(info, "...\""));
	cr_assert(strstr(info, " more not shown]"), "%s", info + strlen(info) - 200);
	cr_assert(printable_lines(info));
	free(info);
	free(question);
}

/* --- the webhook's request --- */

#define KNOWN_BODY                                                                                                     \
	"{\"type\":\"cordon.approval_request\",\"version\":2,\"request_id\":\"" ID "\",\"session\":\"s1\","            \
	"\"caller\":\"session\",\"command\":\"git\",\"argv_redacted\":[\"push\",\"[redacted]\"],\"digest\":\"" DIGEST  \
	"\",\"created\":\"2023-11-14T22:13:20.123Z\",\"expires\":\"2023-11-14T22:13:25.123Z\",\"expires_ms\":1700000005123,\"argc\":2,"                    \
	"\"env_redacted\":[\"LANG=C\",\"GH_TOKEN=[redacted]\"],\"cwd\":\"/work\",\"cwd_dev\":2049,\"cwd_ino\":77," \
	"\"policy_sha256\":\"" DIGEST "\"}"

Test(webhook, body_is_exact)
{
	char *body = NULL;

	cr_assert_eq(webhook_body(&test_request, 1700000000123ull, 1700000005123ull, &body), 0);
	cr_assert_str_eq(body, KNOWN_BODY);
	/* the raw argv is never sent */
	cr_assert_null(strstr(body, "s3cret"));
	free(body);
}

Test(webhook, body_with_bytes_that_are_not_utf8)
{
	const char *redacted[] = {"ok", "bad\xff\xfe", "\xc3\xa9t\xc3\xa9", NULL};
	struct approval_request req = test_request;
	json_error_t e;
	json_t *o, *argv;
	char *body = NULL;

	req.argv_redacted = redacted;
	cr_assert_eq(webhook_body(&req, 0, 1000, &body), 0);
	o = json_loads(body, 0, &e);
	cr_assert_not_null(o, "%s", body);
	argv = json_object_get(o, "argv_redacted");
	cr_assert_str_eq(json_string_value(json_array_get(argv, 1)), "bad\\xff\\xfe");
	cr_assert_str_eq(json_string_value(json_array_get(argv, 2)), "\xc3\xa9t\xc3\xa9"); /* valid UTF-8 kept */
	cr_assert_str_eq(json_string_value(json_object_get(o, "created")), "1970-01-01T00:00:00.000Z");
	cr_assert_str_eq(json_string_value(json_object_get(o, "expires")), "1970-01-01T00:00:01.000Z");
	json_decref(o);
	free(body);
}

Test(webhook, signature_known_answers)
{
	char sig[WEBHOOK_SIGNATURE_SIZE];
	const char *data = "what do ya want for nothing?";

	/* RFC 4231, test case 2 */
	cr_assert_eq(webhook_signature("Jefe", 4, data, strlen(data), sig), 0);
	cr_assert_str_eq(sig, "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	/* the exact body above under "test-key", as Python's hmac computes it */
	cr_assert_eq(webhook_signature("test-key", 8, KNOWN_BODY, strlen(KNOWN_BODY), sig), 0);
	cr_assert_str_eq(sig, "sha256=cfec33fd7eb7c78d0c328727db3e6cb5016a1980f1574fb662e8d6d51d047873");
}

/* --- the webhook's answer --- */

#define ANSWER_KEY "answer-key"
/* the request expires at 2000, it is now 1000 */
static const struct webhook_expect expect_answer = {
	.request_id = ID,
	.digest = DIGEST,
	.expires_ms = 2000,
	.now_ms = 1000,
	.key = ANSWER_KEY,
	.key_len = sizeof(ANSWER_KEY) - 1,
};

/* body with @A and @D replaced by the MACs (under the answer key, for
 * this request, expiring at 1500) of allow and deny */
static char *signed_body(const char *body)
{
	char a[SHA256_HEX], d[SHA256_HEX], *out = calloc(1, strlen(body) * 40 + 1), *o = out;

	cr_assert_eq(webhook_answer_mac(ANSWER_KEY, strlen(ANSWER_KEY), ID, DIGEST, true, 1500, a), 0);
	cr_assert_eq(webhook_answer_mac(ANSWER_KEY, strlen(ANSWER_KEY), ID, DIGEST, false, 1500, d), 0);
	for (const char *c = body; *c; c++) {
		if (c[0] == '@' && (c[1] == 'A' || c[1] == 'D')) {
			o = stpcpy(o, c[1] == 'A' ? a : d);
			c++;
		} else
			*o++ = *c;
	}
	return out;
}

static int parse(const char *body, bool *allow, char *reason)
{
	char *b = signed_body(body);
	int r = webhook_response_parse(b, strlen(b), &expect_answer, allow, reason, 256);

	free(b);
	return r;
}

#define ECHO "\"request_id\":\"" ID "\",\"digest\":\"" DIGEST "\""
#define SIGA ",\"expires_ms\":1500,\"mac\":\"@A\""
#define SIGD ",\"expires_ms\":1500,\"mac\":\"@D\""

Test(webhook, answer_mac_known_answer)
{
	char mac[SHA256_HEX];

	/* as Python's hmac computes it */
	cr_assert_eq(webhook_answer_mac(ANSWER_KEY, strlen(ANSWER_KEY), ID, DIGEST, true, 1500, mac), 0);
	cr_assert_str_eq(mac, "7e274a7e2fff15e604213b9df5fadf6fe352273ec3a21e8b3422082823dff8de");
}

Test(webhook, answers_that_decide)
{
	char reason[256];
	bool allow = false;

	cr_assert_eq(parse("{" ECHO ",\"decision\":\"allow\",\"reason\":\"ok\"" SIGA "}", &allow, reason), 0);
	cr_assert(allow);
	cr_assert_str_eq(reason, "ok");
	cr_assert_eq(parse("{\"decision\":\"deny\"," ECHO SIGD "}", &allow, reason), 0);
	cr_assert_not(allow);
	cr_assert_str_eq(reason, "");
	cr_assert_eq(parse("{" ECHO ",\"decision\":\"deny\",\"reason\":null,\"extra\":[1,2]" SIGD "}", &allow, reason), 0);
	cr_assert_not(allow);
	/* the reason's control bytes are escaped */
	cr_assert_eq(parse("{" ECHO ",\"decision\":\"deny\",\"reason\":\"a\\u001b[2Jb\\nc\"" SIGD "}", &allow, reason), 0);
	cr_assert_str_eq(reason, "a\\e[2Jb\\nc");
}

Test(webhook, answers_that_do_not)
{
	static const struct {
		const char *body, *why;
	} cases[] = {
		{"", "not JSON"},
		{"{" ECHO ",\"decision\":\"allow\"", "not JSON"},
		{"{" ECHO ",\"decision\":\"allow\"} trailing", "not JSON"},
		{"[\"allow\"]", "not a JSON object"},
		{"\"allow\"", "not JSON"}, /* jansson takes only an object or array */
		{"{\"digest\":\"" DIGEST "\",\"decision\":\"allow\"}", "no request_id"},
		{"{\"request_id\":\"" ID "\",\"decision\":\"allow\"}", "no digest"},
		{"{\"request_id\":\"" ID "x\",\"digest\":\"" DIGEST "\",\"decision\":\"allow\"}",
		 "request_id is not this request's"},
		{"{\"request_id\":\"" ID "\",\"digest\":\"" DIGEST "0\",\"decision\":\"allow\"}",
		 "digest is not this request's"},
		{"{\"request_id\":7,\"digest\":\"" DIGEST "\",\"decision\":\"allow\"}", "request_id is not"},
		{"{\"request_id\":\"" ID "\\u0000\",\"digest\":\"" DIGEST "\",\"decision\":\"allow\"}", "not JSON"},
		{"{" ECHO "}", "no decision"},
		{"{" ECHO ",\"decision\":true}", "no decision"},
		{"{" ECHO ",\"decision\":\"Allow\"}", "neither allow nor deny"},
		{"{" ECHO ",\"decision\":\"allow \"}", "neither allow nor deny"},
		{"{" ECHO ",\"decision\":\"allow\",\"reason\":5}", "reason is not a string"},
		{"{" ECHO ",\"decision\":\"deny\",\"decision\":\"allow\"}", "duplicate"},
		/* the signature: none, wrong, for another decision, expired */
		{"{" ECHO ",\"decision\":\"allow\"}", "no expires_ms"},
		{"{" ECHO ",\"decision\":\"allow\",\"expires_ms\":1500}", "not signed"},
		{"{" ECHO ",\"decision\":\"allow\",\"expires_ms\":1500,\"mac\":null}", "not signed"},
		{"{" ECHO ",\"decision\":\"allow\",\"expires_ms\":\"1500\",\"mac\":\"@A\"}", "no expires_ms"},
		{"{" ECHO ",\"decision\":\"allow\"" SIGD "}", "mac is wrong"},
		{"{" ECHO ",\"decision\":\"allow\",\"expires_ms\":1501,\"mac\":\"@A\"}", "mac is wrong"},
		{"{" ECHO ",\"decision\":\"allow\",\"expires_ms\":1500,\"mac\":\"@AA\"}", "not signed"},
		{"{" ECHO ",\"decision\":\"allow\",\"expires_ms\":1500,\"mac\":"
		 "\"0000000000000000000000000000000000000000000000000000000000000000\"}",
		 "mac is wrong"},
	};
	char reason[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool allow = false;
		int r = parse(cases[i].body, &allow, reason);

		cr_assert_eq(r, -EBADMSG, "case %zu: %d", i, r);
		cr_assert_not(allow, "case %zu", i);
		cr_assert(strstr(reason, cases[i].why), "case %zu: %s", i, reason);
	}
}

Test(webhook, answer_over_the_cap)
{
	size_t n = WEBHOOK_RESPONSE_MAX + 1;
	char *body = malloc(n), reason[256];
	char *head = signed_body("{" ECHO ",\"decision\":\"allow\"" SIGA "}");
	bool allow = false;

	memset(body, ' ', n);
	memcpy(body, head, strlen(head));
	free(head);
	cr_assert_eq(webhook_response_parse(body, n, &expect_answer, &allow, reason, sizeof(reason)), -EMSGSIZE);
	cr_assert_not(allow);
	/* the same, one byte shorter, is an allow */
	cr_assert_eq(webhook_response_parse(body, n - 1, &expect_answer, &allow, reason, sizeof(reason)), 0);
	cr_assert(allow);
	free(body);
}

/* --- approvals_new --- */

struct table {
	struct cordon_approval_backend v[24];
	size_t n;
};

static int table_lookup(void *ctx, const char *name, struct cordon_approval_backend *ret)
{
	struct table *t = ctx;

	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->v[i].name, name) == 0) {
			*ret = t->v[i];
			return 0;
		}
	return -ENOENT;
}

static int make(struct table *t, const char *name, struct approvals **ret, char *err)
{
	const char *names[] = {name, NULL};

	err[0] = '\0';
	return approvals_new(table_lookup, t, names, ret, err, 256);
}

static const char *const all_members[] = {"me", "bot", NULL};

static struct table good_table(void)
{
	return (struct table){
		.v =
			{
				{.name = "me", .type = CORDON_APPROVAL_TERMINAL, .timeout_ms = 30000},
				{.name = "bot",
				 .type = CORDON_APPROVAL_WEBHOOK,
				 .timeout_ms = 5000,
				 .url = "https://127.0.0.1:9/approve",
				 .secret_env = "CORDON_TEST_APPROVE_KEY",
				 .answer_secret_env = "CORDON_TEST_APPROVE_ANSWER"},
				{.name = "both", .type = CORDON_APPROVAL_CHAIN, .chain_all = true, .members = all_members},
			},
		.n = 3,
	};
}

Test(approvals, new_reads_the_key_once)
{
	struct table t = good_table();
	struct approvals *a = NULL;
	char err[256];

	setenv("CORDON_TEST_APPROVE_KEY", "k3y", 1);
	setenv("CORDON_TEST_APPROVE_ANSWER", "answer", 1);
	cr_assert_eq(make(&t, "both", &a, err), 0, "%s", err);
	setenv("CORDON_TEST_APPROVE_KEY", "changed", 1);
	cr_assert_eq(a->n, 3);
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].type == CORDON_APPROVAL_WEBHOOK) {
			cr_assert_eq(a->v[i].key->len, 3);
			cr_assert_eq(memcmp(a->v[i].key->bytes, "k3y", 4), 0);
		}
	approvals_free(a);
	cr_assert_null(approvals_free(NULL));
}

static void refused(struct table *t, const char *name, int want, const char *why)
{
	struct approvals *a = NULL;
	char err[256];
	int r = make(t, name, &a, err);

	cr_assert_eq(r, want, "%s: %d (%s)", name, r, err);
	cr_assert_null(a);
	cr_assert(strstr(err, why), "%s", err);
}

Test(approvals, missing_or_empty_key_refuses)
{
	struct table t = good_table();

	unsetenv("CORDON_TEST_APPROVE_KEY");
	refused(&t, "bot", -ENOKEY, "its key variable CORDON_TEST_APPROVE_KEY is not set");
	refused(&t, "both", -ENOKEY, "is not set"); /* reached through a chain */
	setenv("CORDON_TEST_APPROVE_KEY", "", 1);
	refused(&t, "bot", -ENOKEY, "is empty");
	t.v[1].secret_env = NULL;
	refused(&t, "bot", -EINVAL, "needs a secret_env");
}

/* The answer key: its own variable, set, and another key than the
 * request's (whoever reads a request must not be able to answer it). */
Test(approvals, answer_key_is_required_and_distinct)
{
	struct table t = good_table();

	setenv("CORDON_TEST_APPROVE_KEY", "k", 1);
	unsetenv("CORDON_TEST_APPROVE_ANSWER");
	refused(&t, "bot", -ENOKEY, "CORDON_TEST_APPROVE_ANSWER is not set");
	setenv("CORDON_TEST_APPROVE_ANSWER", "k", 1);
	refused(&t, "bot", -EINVAL, "hold the same key");
	t.v[1].answer_secret_env = NULL;
	refused(&t, "bot", -EINVAL, "needs an answer_secret_env");
}

/* http:// is refused at load: whoever binds the port reads (and, without
 * the answer key, tries to answer) every request. */
Test(approvals, plain_http_is_refused)
{
	struct table t = good_table();

	setenv("CORDON_TEST_APPROVE_KEY", "k", 1);
	setenv("CORDON_TEST_APPROVE_ANSWER", "answer", 1);
	t.v[1].url = "http://127.0.0.1:9/approve";
	refused(&t, "bot", -EINVAL, "must be https:// or unix:/PATH");
	t.v[1].url = "unix:relative.sock";
	refused(&t, "bot", -EINVAL, "absolute socket path");
	t.v[1].url = "unix:/run/approver.sock";
	struct approvals *a = NULL;
	char err[256];

	cr_assert_eq(make(&t, "bot", &a, err), 0, "%s", err);
	approvals_free(a);
}

Test(approvals, bad_backends_refuse)
{
	static const char *const self[] = {"loop", NULL}, *const ab[] = {"b", NULL}, *const ba[] = {"a", NULL};
	static const char *const unknown[] = {"me", "nobody", NULL}, *const none[] = {NULL};
	static const char *many[APPROVAL_MEMBERS_MAX + 2];
	struct table t = good_table();

	setenv("CORDON_TEST_APPROVE_KEY", "k", 1);
	setenv("CORDON_TEST_APPROVE_ANSWER", "answer", 1);
	refused(&t, "nobody", -ENOENT, "no approval backend \"nobody\"");
	t.v[t.n++] = (struct cordon_approval_backend){.name = "loop", .type = CORDON_APPROVAL_CHAIN, .members = self};
	refused(&t, "loop", -ELOOP, "contains itself");
	t.v[t.n++] = (struct cordon_approval_backend){.name = "a", .type = CORDON_APPROVAL_CHAIN, .members = ab};
	t.v[t.n++] = (struct cordon_approval_backend){.name = "b", .type = CORDON_APPROVAL_CHAIN, .members = ba};
	refused(&t, "a", -ELOOP, "contains itself");
	t.v[t.n++] = (struct cordon_approval_backend){.name = "unk", .type = CORDON_APPROVAL_CHAIN, .members = unknown};
	refused(&t, "unk", -ENOENT, "no approval backend \"nobody\"");
	t.v[t.n++] = (struct cordon_approval_backend){.name = "empty", .type = CORDON_APPROVAL_CHAIN, .members = none};
	refused(&t, "empty", -EINVAL, "has no members");
	for (size_t i = 0; i <= APPROVAL_MEMBERS_MAX; i++)
		many[i] = "me";
	t.v[t.n++] = (struct cordon_approval_backend){.name = "many", .type = CORDON_APPROVAL_CHAIN, .members = many};
	refused(&t, "many", -E2BIG, "more than 16 members");
	t.v[t.n++] = (struct cordon_approval_backend){.name = "slowchain",
					       .type = CORDON_APPROVAL_CHAIN,
					       .members = all_members,
					       .timeout_ms = APPROVAL_TIMEOUT_MAX + 1};
	refused(&t, "slowchain", -EINVAL, "at most 24 h");

	t = good_table();
	t.v[0].timeout_ms = 0;
	refused(&t, "me", -EINVAL, "the timeout must be 1 ms to 24 h");
	t.v[0].timeout_ms = APPROVAL_TIMEOUT_MAX + 1;
	refused(&t, "me", -EINVAL, "the timeout must be 1 ms to 24 h");
	t.v[0].type = (enum cordon_approval_type)42;
	t.v[0].timeout_ms = 1000;
	refused(&t, "me", -EINVAL, "unknown type");
	t.v[0].name = "has space";
	refused(&t, "has space", -EINVAL, "printable characters");
	refused(&t, "", -EINVAL, "printable characters");

	t = good_table();
	for (size_t i = 0; i < 6; i++) {
		static const char *const urls[] = {
			"ftp://127.0.0.1/x",
			"file:///etc/passwd",
			"gopher://127.0.0.1/",
			"127.0.0.1:80/x",
			"http://",
			"",
		};

		t.v[1].url = urls[i];
		refused(&t, "bot", -EINVAL, "url");
	}
	t.v[1].url = NULL;
	refused(&t, "bot", -EINVAL, "needs a url");
}

Test(approvals, ask_checks_its_arguments)
{
	struct table t = good_table();
	struct approval_request req = test_request;
	struct approval_result r;
	struct approvals *a = NULL;
	char err[256];

	setenv("CORDON_TEST_APPROVE_KEY", "k", 1);
	setenv("CORDON_TEST_APPROVE_ANSWER", "answer", 1);
	cr_assert_eq(make(&t, "both", &a, err), 0, "%s", err);
	cr_assert_eq(approval_ask(a, "nobody", &req, &r), -ENOENT);
	req.request_id = "not-hex";
	cr_assert_eq(approval_ask(a, "bot", &req, &r), -EINVAL);
	req = test_request;
	req.digest = "ABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABAB";
	cr_assert_eq(approval_ask(a, "bot", &req, &r), -EINVAL);
	req = test_request;
	req.argv_redacted = NULL;
	cr_assert_eq(approval_ask(a, "bot", &req, &r), -EINVAL);
	cr_assert_eq(approval_ask(a, "bot", NULL, &r), -EINVAL);
	approvals_free(a);
}

/* --- libcurl, loaded on first use (curl_dl.h) --- */

static bool curl_is_loaded(void)
{
	void *h = dlopen(CURL_DL_SONAME, RTLD_NOW | RTLD_NOLOAD);

	if (h)
		dlclose(h);
	return h != NULL;
}

Test(curl_dl, loads_every_function_or_none)
{
	struct curl_dl t = {}, untouched = {};
	char err[512] = "";

	cr_assert_eq(curl_dl_load("libcordon-no-such-curl.so.4", &t, err, sizeof(err)), -ENOENT);
	cr_assert(strstr(err, "libcurl cannot be loaded (libcordon-no-such-curl.so.4)"), "%s", err);
	cr_assert_eq(memcmp(&t, &untouched, sizeof(t)), 0, "written on failure");
	/* a library that is there but is not libcurl */
	cr_assert_eq(curl_dl_load("libc.so.6", &t, err, sizeof(err)), -ENOSYS);
	cr_assert(strstr(err, "libcurl (libc.so.6) has no curl_global_init"), "%s", err);
	cr_assert_eq(memcmp(&t, &untouched, sizeof(t)), 0, "written on failure");

	cr_assert_eq(curl_dl_load(CURL_DL_SONAME, &t, err, sizeof(err)), 0, "%s", err);
	for (size_t i = 0; i < sizeof(t) / sizeof(void *); i++)
		cr_assert_not_null(((void **)&t)[i], "member %zu", i);
	cr_assert_str_eq(t.easy_strerror(CURLE_OK), "No error");
}

/* A terminal needs no libcurl; a webhook loads it when it is set up. */
Test(curl_dl, loaded_only_for_a_webhook)
{
	struct table t = good_table();
	struct approvals *a = NULL;
	char err[256];

	cr_assert_not(curl_is_loaded(), "the test program links libcurl: this test would prove nothing");
	cr_assert_eq(make(&t, "me", &a, err), 0, "%s", err);
	cr_assert_not(curl_is_loaded());
	approvals_free(a);
	setenv("CORDON_TEST_APPROVE_KEY", "k", 1);
	setenv("CORDON_TEST_APPROVE_ANSWER", "answer", 1);
	cr_assert_eq(make(&t, "bot", &a, err), 0, "%s", err);
	cr_assert(curl_is_loaded());
	cr_assert_not_null(curl_dl_get(NULL, 0));
	approvals_free(a);
}

/* Without libcurl a webhook refuses the session's start, and one asked
 * anyway denies, saying why; a terminal still works. */
Test(curl_dl, missing_library_fails_closed)
{
	struct table t = good_table();
	struct approval_entry e = {
		.name = "bot", .type = CORDON_APPROVAL_WEBHOOK, .timeout_ms = 5000, .url = "https://127.0.0.1:9/approve"};
	struct approval_result r = {.allow = true};
	struct approvals *a = NULL;
	char err[256];

	curl_dl_set_soname("libcordon-no-such-curl.so.4");
	setenv("CORDON_TEST_APPROVE_KEY", "k", 1);
	setenv("CORDON_TEST_APPROVE_ANSWER", "answer", 1);
	refused(&t, "bot", -ELIBACC, "approval backend \"bot\": a webhook needs libcurl: libcurl cannot be loaded");
	refused(&t, "both", -ELIBACC, "a webhook needs libcurl"); /* through a chain */
	cr_assert_eq(make(&t, "me", &a, err), 0, "%s", err);
	approvals_free(a);

	cr_assert_eq(secret_new("k", 1, &e.key), 0);
	cr_assert_eq(secret_new("a", 1, &e.answer_key), 0);
	webhook_ask(&e, &test_request, approve_now_ms() + 5000, &r);
	cr_assert_eq(r.outcome, APPROVAL_ERROR);
	cr_assert_not(r.allow);
	cr_assert_str_eq(r.backend, "bot");
	cr_assert(strstr(r.reason, "the webhook cannot be asked: libcurl cannot be loaded"), "%s", r.reason);
	secret_free(e.key);
	secret_free(e.answer_key);
	cr_assert_null(curl_dl_get(err, sizeof(err)));
	cr_assert(strstr(err, "libcordon-no-such-curl.so.4"), "%s", err);
}

/* --- chains, over terminals with no terminal --- */

static const char *const c_all_ad[] = {"tty-allow", "tty-deny", NULL};
static const char *const c_all_aa[] = {"tty-allow", "tty-allow2", NULL};
static const char *const c_any_da[] = {"tty-deny", "tty-allow", NULL};
static const char *const c_any_dd[] = {"tty-deny", "tty-deny2", NULL};
static const char *const c_nested[] = {"any-da", "tty-allow2", NULL};

static struct table chain_table(void)
{
	return (struct table){
		.v =
			{
				{.name = "tty-allow",
				 .type = CORDON_APPROVAL_TERMINAL,
				 .timeout_ms = 60000,
				 .default_allow = true},
				{.name = "tty-allow2",
				 .type = CORDON_APPROVAL_TERMINAL,
				 .timeout_ms = 60000,
				 .default_allow = true},
				{.name = "tty-deny", .type = CORDON_APPROVAL_TERMINAL, .timeout_ms = 60000},
				{.name = "tty-deny2", .type = CORDON_APPROVAL_TERMINAL, .timeout_ms = 60000},
				{.name = "all-ad", .type = CORDON_APPROVAL_CHAIN, .chain_all = true, .members = c_all_ad},
				{.name = "all-aa", .type = CORDON_APPROVAL_CHAIN, .chain_all = true, .members = c_all_aa},
				{.name = "any-da", .type = CORDON_APPROVAL_CHAIN, .members = c_any_da},
				{.name = "any-dd", .type = CORDON_APPROVAL_CHAIN, .members = c_any_dd},
				{.name = "nested", .type = CORDON_APPROVAL_CHAIN, .chain_all = true, .members = c_nested},
			},
		.n = 9,
	};
}

/* 0 if backend name decides allow, by member who, with outcome o. */
static int chain_case(struct approvals *a, const char *name, bool allow, const char *who, enum approval_outcome o)
{
	struct approval_result r;

	if (approval_ask(a, name, &test_request, &r) != 0)
		return 1;
	if (r.allow != allow || strcmp(r.backend, who) != 0 || r.outcome != o) {
		fprintf(stderr, "%s: allow=%d backend=%s outcome=%s reason=%s\n", name, r.allow, r.backend,
			approval_outcome_name(r.outcome), r.reason);
		return 1;
	}
	return 0;
}

Test(approvals, chains_all_and_any)
{
	static const char *const names[] = {"all-ad", "all-aa", "any-da", "any-dd", "nested", NULL};
	struct table t = chain_table();
	int status;
	pid_t pid;

	/* A child in a session of its own has no controlling terminal: each
	 * terminal member applies its default at once. */
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct approvals *a = NULL;
		char err[256];
		int bad = 0;

		if (setsid() < 0 || approvals_new(table_lookup, &t, names, &a, err, sizeof(err)) < 0)
			_exit(100);
		bad += chain_case(a, "all-ad", false, "tty-deny", APPROVAL_DENIED);
		bad += chain_case(a, "all-aa", true, "tty-allow2", APPROVAL_GRANTED);
		bad += chain_case(a, "any-da", true, "tty-allow", APPROVAL_GRANTED);
		bad += chain_case(a, "any-dd", false, "tty-deny2", APPROVAL_DENIED);
		bad += chain_case(a, "nested", true, "tty-allow2", APPROVAL_GRANTED);
		bad += chain_case(a, "tty-deny", false, "tty-deny", APPROVAL_DENIED);
		approvals_free(a);
		_exit(bad);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status));
	cr_assert_eq(WEXITSTATUS(status), 0, "%d chain case(s) decided wrongly (see stderr)", WEXITSTATUS(status));
}

/* --- the key's memory --- */

Test(secret, copy_and_refusals)
{
	struct secret *s = NULL;

	cr_assert_eq(secret_new("abc", 3, &s), 0);
	cr_assert_eq(s->len, 3);
	cr_assert_str_eq(s->bytes, "abc");
	cr_assert_geq(s->mapped, 4);
	cr_assert_null(secret_free(s));
	cr_assert_null(secret_free(NULL));
	s = NULL;
	cr_assert_eq(secret_new("", 0, &s), -EINVAL);
	cr_assert_null(s);
}

/* An answer signed right but read after its expiry, or holding longer than
 * the request, or signed with the request's key, or for another request:
 * none decides. */
Test(webhook, answers_bound_to_their_request_and_time)
{
	char *b = signed_body("{" ECHO ",\"decision\":\"allow\"" SIGA "}"), reason[256];
	struct webhook_expect w = expect_answer;
	bool allow = false;

	cr_assert_eq(webhook_response_parse(b, strlen(b), &w, &allow, reason, sizeof(reason)), 0);
	cr_assert(allow);
	allow = false;
	w.now_ms = 1500;
	cr_assert_eq(webhook_response_parse(b, strlen(b), &w, &allow, reason, sizeof(reason)), -EBADMSG);
	cr_assert(strstr(reason, "expired"), "%s", reason);
	w = expect_answer;
	w.expires_ms = 1499;
	cr_assert_eq(webhook_response_parse(b, strlen(b), &w, &allow, reason, sizeof(reason)), -EBADMSG);
	cr_assert(strstr(reason, "later than the request's"), "%s", reason);
	w = expect_answer;
	w.key = "request-key";
	w.key_len = 11;
	cr_assert_eq(webhook_response_parse(b, strlen(b), &w, &allow, reason, sizeof(reason)), -EBADMSG);
	cr_assert(strstr(reason, "mac is wrong"), "%s", reason);
	cr_assert_not(allow);
	free(b);
}

/* --- the pool that asks --- */

static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static bool gate_open;
static int jobs_done;

static void blocked_job(void *arg)
{
	pthread_mutex_lock(&gate_lock);
	while (!gate_open)
		pthread_cond_wait(&gate_cond, &gate_lock);
	jobs_done++;
	pthread_mutex_unlock(&gate_lock);
}

/* More jobs than threads: queued, never a thread each; over a sandbox's
 * cap, or the pool's, refused at once, saying which. */
Test(approve_pool, bounded_threads_and_caps)
{
	struct approve_pool *p = NULL;
	bool whole = true;

	cr_assert_eq(approve_pool_new(2, 3, 5, &p), 0);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(approve_pool_submit(p, "session", blocked_job, NULL, &whole), 0);
	cr_assert_eq(approve_pool_submit(p, "session", blocked_job, NULL, &whole), -EBUSY);
	cr_assert_not(whole, "the sandbox's cap, not the pool's");
	cr_assert_eq(approve_pool_submit(p, "git", blocked_job, NULL, &whole), 0);
	cr_assert_eq(approve_pool_submit(p, "gh", blocked_job, NULL, &whole), 0);
	cr_assert_eq(approve_pool_submit(p, "make", blocked_job, NULL, &whole), -EBUSY);
	cr_assert(whole, "the pool's cap");
	cr_assert_eq(approve_pool_pending(p, NULL), 5);
	cr_assert_eq(approve_pool_pending(p, "session"), 3);
	cr_assert_leq(approve_pool_threads(p), 2);
	pthread_mutex_lock(&gate_lock);
	gate_open = true;
	pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_lock);
	for (int i = 0; i < 500 && approve_pool_pending(p, NULL); i++)
		usleep(10000);
	cr_assert_eq(approve_pool_pending(p, NULL), 0);
	cr_assert_eq(jobs_done, 5);
	/* the caps are free again */
	cr_assert_eq(approve_pool_submit(p, "session", blocked_job, NULL, &whole), 0);
	approve_pool_free(p);
}

/* The person sees what runs: the environment with its values, the
 * working directory's identity, the policy's digest, and every flag even
 * past what the argv's cut shows. */
Test(terminal, prompt_shows_env_cwd_policy_and_late_flags)
{
	static const char *argv[2001];
	struct approval_request req = test_request;
	char *info = NULL, *question = NULL;

	for (int i = 0; i < 2000; i++)
		argv[i] = "some-long-ordinary-argument-word";
	argv[1500] = "--force";
	argv[2000] = NULL;
	req.argv = argv;
	cr_assert_eq(terminal_prompt("me", &req, 5000, false, &info, &question), 0);
	cr_assert(strstr(info, "more not shown] flags among them: \"--force\""), "%s", info + strlen(info) - 300);
	cr_assert(strstr(info, "env:     \"LANG=C\" \"GH_TOKEN=s3cret\""), "%s", info);
	cr_assert(strstr(info, "(device 2049, inode 77)"), "%s", info);
	cr_assert(strstr(info, "policy:  " DIGEST), "%s", info);
	free(info);
	free(question);
}
