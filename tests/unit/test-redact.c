/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Redaction of an argv for the audit log and approvers (src/supervisor/redact.c). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "redact.h"
#include "strv.h"

/* s with every "<redacted N bytes, sha256:XXXXXXXX>" written "<redacted>",
 * in place: what the expectations below compare (the form itself is
 * checked on its own). */
static void shorten(char *s)
{
	char *p;

	while ((p = strstr(s, "<redacted ")) != NULL) {
		char *end = strchr(p, '>');

		cr_assert_not_null(end);
		memmove(p + 9, end, strlen(end) + 1);
		memcpy(p, "<redacted", 9);
	}
}

/* The argv redacted, joined with single spaces. */
static char *redacted(const char *const *argv)
{
	char **out = NULL;
	size_t len = 1;
	char *s;

	cr_assert_eq(redact_argv(argv, &out), 0);
	STRV_FOREACH(w, out)
	len += strlen(*w) + 1;
	s = calloc(1, len);
	cr_assert_not_null(s);
	STRV_FOREACH(w, out)
	{
		if (s[0])
			strcat(s, " ");
		strcat(s, *w);
	}
	strv_free(out);
	shorten(s);
	return s;
}

#define expect(want, ...)                                                                                              \
	do {                                                                                                           \
		const char *const argv_[] = {__VA_ARGS__, NULL};                                                       \
		char *got_ = redacted(argv_);                                                                          \
		cr_expect_str_eq(got_, want, "argv %s: got '%s'", #__VA_ARGS__, got_);                                 \
		free(got_);                                                                                            \
	} while (0)

/* One word on its own. */
static void expect_word(const char *word, const char *want)
{
	char *got = NULL;

	cr_assert_eq(redact_word(word, false, REDACT_MAX_WORD_BYTES, &got), 0);
	shorten(got);
	cr_expect_str_eq(got, want, "'%s' -> '%s', want '%s'", word, got, want);
	free(got);
}

Test(redact, ordinary_words_are_kept)
{
	expect("push origin main --force", "push", "origin", "main", "--force");
	expect("commit -m fix: the parser --author A U Thor", "commit", "-m", "fix: the parser", "--author",
	       "A U Thor");
	expect("log -n 5 --since=2026-12-02T01:47:31Z", "log", "-n", "5", "--since=2026-12-02T01:47:31Z");
	expect("clone https://github.com/owner/repo.git", "clone", "https://github.com/owner/repo.git");
	expect("checkout abc1234 -- README.md", "checkout", "abc1234", "--", "README.md");
	expect("ls -1 -", "ls", "-1", "-");
}

Test(redact, ordinary_long_words_are_kept)
{
	/* long, but not random: paths, dashed flags, CamelCase, branches */
	expect_word("--allow-unrelated-histories", "--allow-unrelated-histories");
	expect_word("/usr/lib/x86_64-linux-gnu/libcrypto.so.3", "/usr/lib/x86_64-linux-gnu/libcrypto.so.3");
	expect_word("/home/User/Projects2024/MyApp/src/main.c", "/home/User/Projects2024/MyApp/src/main.c");
	expect_word("MyVeryLongClassNameForTesting", "MyVeryLongClassNameForTesting");
	expect_word("feature/JIRA-1234-add-login-page-with-oauth", "feature/JIRA-1234-add-login-page-with-oauth");
	expect_word("--output=build/Release/x86_64/bin", "--output=build/Release/x86_64/bin");
	expect_word("user@example.com", "user@example.com");
	expect_word("v1.2.3-rc4", "v1.2.3-rc4");
	expect_word("0000000000000000000000000000000000000000", "0000000000000000000000000000000000000000");
}

Test(redact, the_value_after_a_secret_flag)
{
	expect("login --token <redacted> --verbose", "login", "--token", "hunter2", "--verbose");
	expect("x --password <redacted>", "x", "--password", "hunter2");
	expect("x --passwd <redacted>", "x", "--passwd", "hunter2");
	expect("x --api-key <redacted>", "x", "--api-key", "k");
	expect("x --client_secret <redacted>", "x", "--client_secret", "s");
	expect("x --auth <redacted>", "x", "--auth", "u:p");
	expect("x --Authorization <redacted>", "x", "--Authorization", "Basic abc");
	expect("x --credentials <redacted>", "x", "--credentials", "c");
	expect("x --cookie <redacted>", "x", "--cookie", "a=b");
	expect("x --bearer <redacted>", "x", "--bearer", "b");
	expect("x -token <redacted>", "x", "-token", "t");
	/* a flag naming a person is not one */
	expect("commit --author alice", "commit", "--author", "alice");
	/* a flag after a secret flag is a flag: shown, never hidden by the
	 * name before it */
	expect("push --password --force", "push", "--password", "--force");
	/* a secret flag at the end redacts nothing more */
	expect("x --token", "x", "--token");
}

Test(redact, flag_equals_value)
{
	expect_word("--token=hunter2", "--token=<redacted>");
	expect_word("--PASSWORD=hunter2", "--PASSWORD=<redacted>");
	expect_word("--oauth-token=x", "--oauth-token=<redacted>");
	expect_word("--format=oneline", "--format=oneline");
	expect_word("--remote=https://bob:pw@example.com/x", "--remote=https://<redacted>@example.com/x");
	expect_word("--data=ghp_16C7e42F292c6912E7710c838347Ae178B4a", "--data=<redacted>");
}

Test(redact, name_equals_value)
{
	expect_word("API_KEY=abc", "API_KEY=<redacted>");
	expect_word("GITHUB_TOKEN=abc", "GITHUB_TOKEN=<redacted>");
	/* shown: a value that may change what runs is for the approver to see */
	expect_word("FOO=bar", "FOO=bar");
	expect_word("user.email=alice@example.com", "user.email=alice@example.com");
	expect_word("core.sshCommand=sh -c evil", "core.sshCommand=sh -c evil");
	expect_word("FOO=", "FOO=");
	expect_word("a=b=c", "a=b=c");
	/* not a name: kept */
	expect_word("=x", "=x");
	expect_word("1=2", "1=2");
}

Test(redact, headers)
{
	expect("curl -H Authorization: <redacted>", "curl", "-H", "Authorization: Bearer abc.def");
	expect_word("Cookie: session=1", "Cookie: <redacted>");
	expect_word("X-Api-Key:abc", "X-Api-Key:<redacted>");
	expect_word("Accept: application/json", "Accept: application/json");
}

Test(redact, urls)
{
	expect_word("https://alice:hunter2@example.com/r.git", "https://<redacted>@example.com/r.git");
	expect_word("https://TOKEN@github.com/o/r", "https://<redacted>@github.com/o/r");
	expect_word("ssh://git@host:22/x", "ssh://<redacted>@host:22/x");
	expect_word("https://h/p?a=1&access_token=xyz&b=2", "https://h/p?a=1&access_token=<redacted>&b=2");
	expect_word("https://h/cb#state=s&token=xyz", "https://h/cb#state=s&token=<redacted>");
	expect_word("https://h/p?X-Amz-Signature=abc", "https://h/p?X-Amz-Signature=<redacted>");
	/* an @ in the path is not userinfo */
	expect_word("https://h/@scope/pkg", "https://h/@scope/pkg");
	/* a token in the path */
	expect_word("https://hooks.example.com/services/T0001/B0001/aB3dE5fG7hI9jK1lM3nO5pQ7",
		    "https://hooks.example.com/services/T0001/B0001/<redacted>");
}

Test(redact, random_looking_runs)
{
	/* a GitHub token, an AWS secret, a JWT, hex keys, base64 */
	expect_word("ghp_16C7e42F292c6912E7710c838347Ae178B4a", "<redacted>");
	expect_word("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "<redacted>");
	expect_word("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_"
		    "XgL0n3I9PlFUP0THsR8U",
		    "<redacted>.<redacted>.<redacted>");
	expect_word("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "<redacted>");
	expect_word("3f2a9c1e0b7d4e6f8a1b2c3d", "<redacted>");
	expect_word("SGVsbG8gV29ybGQhIFRoaXMgaXMgYSB0ZXN0", "<redacted>");
	expect_word("xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "<redacted>");
	/* only the run goes: what is around it stays */
	expect_word("Bearer:ghp_16C7e42F292c6912E7710c838347Ae178B4a", "Bearer:<redacted>");
	expect_word("id=9f86d081884c7d659a2feaa0c55ad015", "id=<redacted>");
	/* under the minimum run length: kept */
	expect_word("aB3dE5fG7hI9jK1lM3n", "aB3dE5fG7hI9jK1lM3n");
}

Test(redact, secret_names)
{
	cr_expect(redact_secret_name("token", 5));
	cr_expect(redact_secret_name("GITHUB_TOKEN", 12));
	cr_expect(redact_secret_name("passphrase", 10));
	cr_expect(redact_secret_name("authorization", 13));
	cr_expect(redact_secret_name("proxy-auth", 10));
	cr_expect(redact_secret_name("Set-Cookie", 10));
	cr_expect_not(redact_secret_name("author", 6));
	cr_expect_not(redact_secret_name("authors", 7));
	cr_expect_not(redact_secret_name("force", 5));
	cr_expect_not(redact_secret_name("format", 6));
	/* only the first len bytes count */
	cr_expect_not(redact_secret_name("xtoken", 1));
}

Test(redact, control_characters_are_escaped)
{
	expect_word("a\x1b[31mred", "a\\x1b[31mred");
	expect_word("line1\nline2\ttab\r", "line1\\x0aline2\\x09tab\\x0d");
	expect_word("back\\slash", "back\\\\slash");
	expect_word("del\x7f", "del\\x7f");
	/* not UTF-8: each bad byte */
	expect_word("bad\xff\xfe", "bad\\xff\\xfe");
	expect_word("over\xc0\xaflong", "over\\xc0\\xaflong");
	expect_word("surrogate\xed\xa0\x80", "surrogate\\xed\\xa0\\x80");
	/* UTF-8 is kept, but not what reorders or hides text on a terminal */
	expect_word("caf\xc3\xa9", "caf\xc3\xa9");
	expect_word("rm \xe2\x80\xae"
		    "fdp.exe",
		    "rm \\u202efdp.exe");
	expect_word("c1\xc2\x9b"
		    "x",
		    "c1\\u009bx");
}

Test(redact, terminal_safe_keeps_what_is_escaped_already)
{
	char *got = NULL;
	const char *in = "already \\x1b escaped, and raw \x1b[2J";

	cr_assert_eq(redact_terminal_safe(in, strlen(in), 256, &got), 0);
	cr_expect_str_eq(got, "already \\x1b escaped, and raw \\x1b[2J");
	free(got);
}

Test(redact, caps)
{
	char *long_word = malloc(4000), *got = NULL;
	const char **argv = calloc(REDACT_MAX_WORDS + 50, sizeof(char *));
	char **out = NULL;

	cr_assert(long_word && argv);
	memset(long_word, 'a', 3999);
	long_word[3999] = '\0';
	cr_assert_eq(redact_word(long_word, false, REDACT_MAX_WORD_BYTES, &got), 0);
	cr_expect_eq(strlen(got), REDACT_MAX_WORD_BYTES);
	cr_expect_str_eq(got + REDACT_MAX_WORD_BYTES - 3, "...");
	free(got);

	/* a cut never splits an escape or a character */
	cr_assert_eq(redact_escape("ab\x01\x02", 4, 7, &got), 0);
	cr_expect_str_eq(got, "ab...");
	free(got);
	cr_assert_eq(redact_escape("\xc3\xa9\xc3\xa9\xc3\xa9", 6, 6, &got), 0);
	cr_expect_str_eq(got, "\xc3\xa9\xc3\xa9\xc3\xa9");
	free(got);
	cr_assert_eq(redact_escape("\xc3\xa9\xc3\xa9\xc3\xa9x", 7, 6, &got), 0);
	cr_expect_str_eq(got, "\xc3\xa9...");
	free(got);
	cr_expect_eq(redact_escape("x", 1, 3, &got), -EINVAL);

	for (size_t i = 0; i < REDACT_MAX_WORDS + 49; i++)
		argv[i] = "w";
	cr_assert_eq(redact_argv(argv, &out), 0);
	cr_expect_eq(strv_length(out), REDACT_MAX_WORDS);
	strv_free(out);
	cr_assert_eq(redact_argv(NULL, &out), 0);
	cr_expect_eq(strv_length(out), 0);
	strv_free(out);
	free(long_word);
	free(argv);
}

/* A neighbouring word is never hidden because a flag's name contains
 * "pass" or "key": only the whole names declared secret hide the next
 * word, and the tool may declare its own. */
Test(redact, neighbours_hidden_only_by_declared_flags)
{
	expect("build --keyboard us --passes 3 --key-file k.pem", "build", "--keyboard", "us", "--passes", "3",
	       "--key-file", "k.pem");
	expect("push origin main --no-verify-key --force", "push", "origin", "main", "--no-verify-key", "--force");
	expect("x --password <redacted> -f", "x", "--password", "hunter2", "-f");

	const char *const argv[] = {"connect", "--db-pass", "hunter2", "--passes", "2", NULL};
	const char *const declared[] = {"db-pass", NULL};
	char **out = NULL;

	cr_assert_eq(redact_argv_full(argv, NULL, 0, &out), 0);
	cr_expect_str_eq(out[2], "hunter2", "not declared: shown");
	strv_free(out);
	cr_assert_eq(redact_argv_full(argv, declared, 0, &out), 0);
	cr_expect(strncmp(out[2], "<redacted 7 bytes, sha256:", 26) == 0, "%s", out[2]);
	cr_expect_str_eq(out[4], "2");
	strv_free(out);
}

/* The form of a hidden value: its length and the first 8 hex digits of
 * its SHA-256; `--password hunter2` never in clear. */
Test(redact, hidden_value_form)
{
	const char *const argv[] = {"login", "--password", "hunter2", "--token=hunter2", NULL};
	char **out = NULL;

	cr_assert_eq(redact_argv(argv, &out), 0);
	/* sha256("hunter2") = f52fbd32b2b3b86ff88ef6c490628285f482af15ddcb29541f94bcf526a3f6c7 */
	cr_expect_str_eq(out[2], "<redacted 7 bytes, sha256:f52fbd32>");
	cr_expect_str_eq(out[3], "--token=<redacted 7 bytes, sha256:f52fbd32>");
	STRV_FOREACH(w, out)
	cr_expect_null(strstr(*w, "hunter2"));
	strv_free(out);
}

/* Every word for an approver: no cap on the count (a --force in word 129
 * is shown). */
Test(redact, every_word_for_an_approver)
{
	const char *argv[200];
	char **out = NULL;
	size_t n = 0;

	for (int i = 0; i < 199; i++)
		argv[i] = "a";
	argv[150] = "--force";
	argv[199] = NULL;
	cr_assert_eq(redact_argv_full(argv, NULL, 0, &out), 0);
	while (out[n])
		n++;
	cr_expect_eq(n, 199);
	cr_expect_str_eq(out[150], "--force");
	strv_free(out);
	cr_assert_eq(redact_argv(argv, &out), 0);
	n = 0;
	while (out[n])
		n++;
	cr_expect_eq(n, REDACT_MAX_WORDS, "the audit keeps its cap (with argc and the argv's hash)");
	strv_free(out);
}
