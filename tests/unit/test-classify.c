/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "cleanup.h"

/* Signature sets shaped like the providers' own. */
static const char *const bwrap_denial[] = { "permission denied", "operation not permitted",
					    "read-only file system", NULL };
static const char *const bwrap_fatal[] = { "bwrap: ", NULL };
static const char *const bwrap_info[] = { "bwrap: warning: no /proc mounted", NULL };

static const char *const seatbelt_denial[] = { "operation not permitted", "permission denied", NULL };
static const char *const seatbelt_fatal[] = { "sandbox-exec: ", NULL };

static const char *const native_fatal[] = { "cordon: ", NULL };

static const char *const none[] = { NULL };
static const char *const empty_string[] = { "", NULL };
static const char *const denial_cr[] = { "denied\r", NULL };
static const char *const fatal_info_denial[] = { "bwrap: permission denied", NULL };
static const char *const fatal_blank_lead[] = { " bwrap", NULL };

static const int exit_71[] = { 71 };
static const int exit_1[] = { 1 };

enum preset {
	BWRAP,
	SEATBELT,
	NATIVE,
	CUSTOM,
};

struct classify_case {
	const char *name;
	enum preset preset;
	/* CUSTOM only; NULL means a NULL vector */
	const char *const *denial, *const *fatal, *const *info;
	const int *allowed;
	size_t n_allowed;
	int status;
	const char *output;
	size_t output_len; /* 0: strlen(output) */
	enum cordon_verdict want;
	const char *want_line;
};

/* Output with embedded NUL bytes: its length is the literal's. */
#define BYTES(s) .output = (s), .output_len = sizeof(s) - 1

static const struct classify_case cases[] = {
	/* Rule 1: exit 0 is always ok. */
	{ "exit 0 with denial text", BWRAP, .status = 0,
	  .output = "cat: /etc/shadow: Permission denied\n", .want = CORDON_VERDICT_OK },
	{ "exit 0 with fatal line", BWRAP, .status = 0,
	  .output = "bwrap: Creating new namespace failed\n", .want = CORDON_VERDICT_OK },
	{ "exit 0 with both", SEATBELT, .status = 0,
	  .output = "sandbox-exec: sandbox_apply: Operation not permitted\n", .want = CORDON_VERDICT_OK },

	/* Rule 2: runner failure before denial; allowed codes exempt from
	 * runner failure only. */
	{ "runner failure after a denial line", BWRAP, .status = 1,
	  .output = "touch: cannot touch 'x': Permission denied\nbwrap: execvp foo: No such file or directory\n",
	  .want = CORDON_VERDICT_RUNNER_FAILED, .want_line = "bwrap: execvp foo: No such file or directory" },
	{ "allowed exit code exempts a fatal line", CUSTOM,
	  .denial = bwrap_denial, .fatal = bwrap_fatal, .allowed = exit_1, .n_allowed = 1,
	  .status = 1, .output = "bwrap: execvp foo: No such file or directory\n", .want = CORDON_VERDICT_OK },
	{ "allowed exit code with denial text is still a denial", CUSTOM,
	  .denial = bwrap_denial, .fatal = bwrap_fatal, .allowed = exit_1, .n_allowed = 1,
	  .status = 1, .output = "bwrap: x\nmkdir: cannot create directory 'd': Read-only file system\n",
	  .want = CORDON_VERDICT_DENIED },
	{ "another exit code is not exempt", CUSTOM,
	  .denial = bwrap_denial, .fatal = bwrap_fatal, .allowed = exit_1, .n_allowed = 1,
	  .status = 2, .output = "bwrap: x\n", .want = CORDON_VERDICT_RUNNER_FAILED, .want_line = "bwrap: x" },

	/* Rule 3: informational lines dropped by trimmed, exact,
	 * case-insensitive equality; fatal only at the start of the
	 * trimmed line; fatal + denial is a denial. */
	{ "informational line dropped", BWRAP, .status = 1,
	  .output = "bwrap: warning: no /proc mounted\n", .want = CORDON_VERDICT_OK },
	{ "informational line, other case and padding", BWRAP, .status = 1,
	  .output = "  \tBWRAP: Warning: No /proc Mounted \r\n", .want = CORDON_VERDICT_OK },
	{ "informational line with more text is fatal", BWRAP, .status = 1,
	  .output = "bwrap: warning: no /proc mounted, giving up\n",
	  .want = CORDON_VERDICT_RUNNER_FAILED, .want_line = "bwrap: warning: no /proc mounted, giving up" },
	{ "informational dropped, a later fatal counts", BWRAP, .status = 1,
	  .output = "bwrap: warning: no /proc mounted\nbwrap: Can't mount tmpfs on /tmp\n",
	  .want = CORDON_VERDICT_RUNNER_FAILED, .want_line = "bwrap: Can't mount tmpfs on /tmp" },
	{ "informational exemption does not cover denial", CUSTOM,
	  .denial = bwrap_denial, .fatal = bwrap_fatal, .info = fatal_info_denial,
	  .status = 1, .output = "bwrap: permission denied\n", .want = CORDON_VERDICT_DENIED },
	{ "fatal mentioned mid-line", BWRAP, .status = 1,
	  .output = "grep: pattern 'bwrap: ' not found\n", .want = CORDON_VERDICT_OK },
	{ "leading blanks before the fatal prefix", BWRAP, .status = 1,
	  .output = "ok\n  \t bwrap: Can't bind mount /oldroot\n",
	  .want = CORDON_VERDICT_RUNNER_FAILED, .want_line = "  \t bwrap: Can't bind mount /oldroot" },
	{ "fatal prefix is case-insensitive, line keeps its case", BWRAP, .status = 1,
	  .output = "BWRAP:   Creating new namespace FAILED\n",
	  .want = CORDON_VERDICT_RUNNER_FAILED, .want_line = "BWRAP:   Creating new namespace FAILED" },
	/* Only Seatbelt's own refusal reads as the sandbox working: bwrap
	 * failing to map ids (AppArmor's userns restriction) is bwrap failing,
	 * and the command never ran. */
	{ "fatal and denial on one line (bwrap uid map) is a runner failure", BWRAP, .status = 1,
	  .output = "bwrap: setting up uid map: Permission denied\n", .want = CORDON_VERDICT_RUNNER_FAILED,
	  .want_line = "bwrap: setting up uid map: Permission denied" },
	{ "fatal and denial on one line (native, no channel) is a runner failure", NATIVE, .status = 125,
	  .output = "cordon: landlock: cannot open /: Permission denied\n", .want = CORDON_VERDICT_RUNNER_FAILED,
	  .want_line = "cordon: landlock: cannot open /: Permission denied" },
	{ "fatal and denial on one line (nested seatbelt, exit 71)", SEATBELT, .status = 71,
	  .output = "sandbox-exec: sandbox_apply: Operation not permitted\n", .want = CORDON_VERDICT_DENIED },
	{ "fatal+denial line under bwrap is the first runner failure", BWRAP, .status = 1,
	  .output = "bwrap: setting up uid map: Permission denied\nbwrap: execvp x: No such file\n",
	  .want = CORDON_VERDICT_RUNNER_FAILED, .want_line = "bwrap: setting up uid map: Permission denied" },
	{ "fatal+denial line under seatbelt does not hide a later fatal line", SEATBELT, .status = 71,
	  .output = "sandbox-exec: sandbox_apply: Operation not permitted\nsandbox-exec: bad profile\n",
	  .want = CORDON_VERDICT_RUNNER_FAILED, .want_line = "sandbox-exec: bad profile" },
	{ "fatal and denial on one line, exit code allowed", CUSTOM,
	  .denial = seatbelt_denial, .fatal = seatbelt_fatal, .allowed = exit_71, .n_allowed = 1,
	  .status = 71, .output = "sandbox-exec: sandbox_apply: Operation not permitted\n",
	  .want = CORDON_VERDICT_DENIED },
	{ "first of several fatal lines", NATIVE, .status = 125,
	  .output = "cordon: landlock: not supported\ncordon: seccomp: failed\n",
	  .want = CORDON_VERDICT_RUNNER_FAILED, .want_line = "cordon: landlock: not supported" },
	{ "fatal signature with a trailing space needs it", BWRAP, .status = 1,
	  .output = "bwrap:\n", .want = CORDON_VERDICT_OK },
	{ "fatal signature's trailing space is not trimmed away", BWRAP, .status = 1,
	  .output = "bwrap:  \n", .want = CORDON_VERDICT_OK },
	{ "fatal signature starting with a blank never matches", CUSTOM, .fatal = fatal_blank_lead,
	  .status = 1, .output = " bwrap\n", .want = CORDON_VERDICT_OK },

	/* Rule 4: denial anywhere in a line, case-insensitive. */
	{ "denial mid-line", BWRAP, .status = 1,
	  .output = "ok\ntouch: cannot touch '/usr/x': PERMISSION DENIED\nmore\n", .want = CORDON_VERDICT_DENIED },
	{ "denial at a signal exit", SEATBELT, .status = 137,
	  .output = "Operation not permitted", .want = CORDON_VERDICT_DENIED },
	{ "nonzero exit without signatures", BWRAP, .status = 2,
	  .output = "make: *** [all] Error 2\n", .want = CORDON_VERDICT_OK },
	{ "empty output", BWRAP, .status = 1, .output = "", .want = CORDON_VERDICT_OK },

	/* Rule 5: verbatim line; empty lists and empty strings match
	 * nothing. */
	{ "NULL signature lists", CUSTOM, .status = 1,
	  .output = "bwrap: x\npermission denied\n", .want = CORDON_VERDICT_OK },
	{ "empty signature lists", CUSTOM, .denial = none, .fatal = none, .info = none, .status = 1,
	  .output = "bwrap: x\npermission denied\n", .want = CORDON_VERDICT_OK },
	{ "empty-string signatures", CUSTOM, .denial = empty_string, .fatal = empty_string,
	  .info = empty_string, .status = 1, .output = "\n\nx\n", .want = CORDON_VERDICT_OK },

	/* Rule 6: one backend's signatures never classify another's. */
	{ "bwrap output under seatbelt", SEATBELT, .status = 1,
	  .output = "bwrap: Creating new namespace failed: Operation not supported\n", .want = CORDON_VERDICT_OK },
	{ "seatbelt output under bwrap", BWRAP, .status = 65,
	  .output = "sandbox-exec: invalid profile\n", .want = CORDON_VERDICT_OK },
	{ "bwrap output under native", NATIVE, .status = 1,
	  .output = "bwrap: No permissions to create new namespace\n", .want = CORDON_VERDICT_OK },
	{ "native output under bwrap", BWRAP, .status = 125,
	  .output = "cordon: landlock: kernel too old\n", .want = CORDON_VERDICT_OK },

	/* Line endings, NUL bytes. */
	{ "CRLF line", BWRAP, .status = 1, .output = "x\r\nbwrap: Can't find source path\r\ny\r\n",
	  .want = CORDON_VERDICT_RUNNER_FAILED, .want_line = "bwrap: Can't find source path" },
	{ "no trailing newline", BWRAP, .status = 1, .output = "x\nbwrap: oops",
	  .want = CORDON_VERDICT_RUNNER_FAILED, .want_line = "bwrap: oops" },
	{ "no trailing newline, trailing CR", BWRAP, .status = 1, .output = "bwrap: oops\r",
	  .want = CORDON_VERDICT_RUNNER_FAILED, .want_line = "bwrap: oops" },
	{ "only one trailing CR is dropped from the line", BWRAP, .status = 1, .output = "bwrap: oops\r\r\n",
	  .want = CORDON_VERDICT_RUNNER_FAILED, .want_line = "bwrap: oops\r" },
	{ "denial signature cannot swallow the line's CR", CUSTOM, .denial = denial_cr, .status = 1,
	  .output = "access denied\r\n", .want = CORDON_VERDICT_OK },
	{ "denial signature cannot swallow the final CR", CUSTOM, .denial = denial_cr, .status = 1,
	  .output = "access denied\r", .want = CORDON_VERDICT_OK },
	{ "an inner CR is part of the line", CUSTOM, .denial = denial_cr, .status = 1,
	  .output = "access denied\r.\n", .want = CORDON_VERDICT_DENIED },
	{ "NUL bytes before a denial", BWRAP, .status = 1,
	  BYTES("\0\0bin\0ary\n\0 permission denied\0\n"), .want = CORDON_VERDICT_DENIED },
	{ "NUL inside a signature's text breaks it", BWRAP, .status = 1,
	  BYTES("permission\0denied\nbwrap\0: x\n"), .want = CORDON_VERDICT_OK },
	{ "NUL is not a blank before a fatal prefix", BWRAP, .status = 1,
	  BYTES("\0bwrap: x\n"), .want = CORDON_VERDICT_OK },
	{ "fatal line after NUL-laden lines", BWRAP, .status = 1,
	  BYTES("\0\n\0\0\nbwrap: y\0z\n"), .want = CORDON_VERDICT_RUNNER_FAILED, .want_line = "bwrap: y" },
	{ "blank lines and a fatal at the very start", BWRAP, .status = 1, .output = "bwrap: first\n\n\n",
	  .want = CORDON_VERDICT_RUNNER_FAILED, .want_line = "bwrap: first" },
};

static struct cordon_confined confined_for(const struct classify_case *tc)
{
	struct cordon_confined c = { .mode = CORDON_MODE_WORKSPACE_WRITE };

	switch (tc->preset) {
	case BWRAP:
		c.enforcement = CORDON_ENFORCEMENT_BWRAP;
		c.denial_signatures = (char **)bwrap_denial;
		c.fatal_signatures = (char **)bwrap_fatal;
		c.informational_lines = (char **)bwrap_info;
		break;
	case SEATBELT:
		c.enforcement = CORDON_ENFORCEMENT_SEATBELT;
		c.denial_signatures = (char **)seatbelt_denial;
		c.fatal_signatures = (char **)seatbelt_fatal;
		break;
	case NATIVE:
		c.enforcement = CORDON_ENFORCEMENT_NATIVE;
		c.denial_signatures = (char **)seatbelt_denial;
		c.fatal_signatures = (char **)native_fatal;
		break;
	case CUSTOM:
		c.enforcement = CORDON_ENFORCEMENT_NATIVE;
		c.denial_signatures = (char **)tc->denial;
		c.fatal_signatures = (char **)tc->fatal;
		c.informational_lines = (char **)tc->info;
		break;
	}
	c.allowed_exit_codes = (int *)tc->allowed;
	c.n_allowed_exit_codes = tc->n_allowed;
	return c;
}

/* Parameters cross into Criterion's worker process by value, and pointers
 * into this image need not survive that: pass indices. */
ParameterizedTestParameters(classify, table)
{
	static size_t idx[ELEMENTSOF(cases)];

	for (size_t i = 0; i < ELEMENTSOF(cases); i++)
		idx[i] = i;
	return cr_make_param_array(size_t, idx, ELEMENTSOF(idx));
}

ParameterizedTest(size_t *i, classify, table)
{
	const struct classify_case *tc = &cases[*i];
	struct cordon_confined c = confined_for(tc);
	size_t len = tc->output_len ? tc->output_len : strlen(tc->output);
	struct cordon_classification cl = { .verdict = CORDON_VERDICT_TIMEOUT };

	cr_log_info("%s", tc->name);
	cr_assert_eq(cordon_classify(&c, tc->status, tc->output, len, &cl), 0, "%s", tc->name);
	cr_expect_eq(cl.verdict, tc->want, "%s: verdict %d, want %d", tc->name, cl.verdict, tc->want);
	if (tc->want_line) {
		cr_assert_not_null(cl.line, "%s: no line", tc->name);
		cr_expect_str_eq(cl.line, tc->want_line, "%s", tc->name);
	} else {
		cr_expect_null(cl.line, "%s: unexpected line", tc->name);
	}
	free(cl.line);
}

Test(classify, bad_arguments)
{
	struct cordon_confined c = { 0 };
	struct cordon_classification cl = { .verdict = CORDON_VERDICT_TIMEOUT };

	cr_assert_eq(cordon_classify(NULL, 1, "", 0, &cl), -EINVAL);
	cr_assert_eq(cordon_classify(&c, 1, "", 0, NULL), -EINVAL);
	cr_assert_eq(cordon_classify(&c, 1, NULL, 3, &cl), -EINVAL);
	/* out-param untouched on failure */
	cr_assert_eq(cl.verdict, CORDON_VERDICT_TIMEOUT);
	cr_assert_eq(cordon_classify(&c, 1, NULL, 0, &cl), 0);
	cr_assert_eq(cl.verdict, CORDON_VERDICT_OK);
}

static struct cordon_confined bwrap_confined(void)
{
	return confined_for(&(struct classify_case){ .preset = BWRAP });
}

/* Signatures straddling every offset around the internal block boundaries
 * (whatever their size, a power of two between 4 KiB and 1 MiB). */
Test(classify, block_boundaries)
{
	struct cordon_confined c = bwrap_confined();
	size_t len = 2 * 1024 * 1024 + 64;
	_cleanup_free_ char *buf = malloc(len);

	cr_assert_not_null(buf);
	for (size_t boundary = 4096; boundary <= 1024 * 1024; boundary *= 2) {
		for (size_t at = boundary - 24; at <= boundary + 1; at++) {
			struct cordon_classification cl;

			memset(buf, 'x', len);
			buf[at - 1] = '\n';
			memcpy(buf + at, "Permission Denied", 17);
			cr_assert_eq(cordon_classify(&c, 1, buf, len, &cl), 0);
			cr_assert_eq(cl.verdict, CORDON_VERDICT_DENIED, "denial at %zu", at);

			memcpy(buf + at, "bwrap: fails here", 17);
			buf[at + 17] = '\n';
			cr_assert_eq(cordon_classify(&c, 1, buf, len, &cl), 0);
			cr_assert_eq(cl.verdict, CORDON_VERDICT_RUNNER_FAILED, "fatal at %zu", at);
			cr_assert_str_eq(cl.line, "bwrap: fails here");
			free(cl.line);
		}
	}
}

/* 128 MiB: a denial early, the runner failure in the very last line. */
Test(classify, huge_output, .timeout = 60)
{
	struct cordon_confined c = bwrap_confined();
	const char line[] = "compiling src/some/module.c ... done, 1234 warnings\n";
	size_t n = 128u * 1024 * 1024, len = 0;
	_cleanup_free_ char *buf = malloc(n);
	struct cordon_classification cl;

	cr_assert_not_null(buf);
	while (len + sizeof(line) - 1 <= n - 64) {
		memcpy(buf + len, line, sizeof(line) - 1);
		len += sizeof(line) - 1;
	}
	memcpy(buf + 100, "permission denied\n", 18);
	memcpy(buf + len, "    bwrap: out of memory", 24);
	len += 24;

	cr_assert_eq(cordon_classify(&c, 1, buf, len, &cl), 0);
	cr_assert_eq(cl.verdict, CORDON_VERDICT_RUNNER_FAILED);
	cr_assert_str_eq(cl.line, "    bwrap: out of memory");
	free(cl.line);

	cr_assert_eq(cordon_classify(&c, 0, buf, len, &cl), 0);
	cr_assert_eq(cl.verdict, CORDON_VERDICT_OK);

	len -= 24;
	cr_assert_eq(cordon_classify(&c, 1, buf, len, &cl), 0);
	cr_assert_eq(cl.verdict, CORDON_VERDICT_DENIED);
}

/* Worst cases for the search: a fatal signature that matches at every byte
 * but never at a line start, and a line per byte. Both must stay linear. */
Test(classify, no_quadratic_blowup, .timeout = 30)
{
	static const char *const fatal_aa[] = { "aa", NULL };
	static const char *const denial_ab[] = { "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", NULL };
	struct cordon_confined c = {
		/* Seatbelt: a fatal+denial line is a denial, so every line is looked at */
		.enforcement = CORDON_ENFORCEMENT_SEATBELT,
		.fatal_signatures = (char **)fatal_aa,
		.denial_signatures = (char **)denial_ab,
	};
	size_t len = 32u * 1024 * 1024;
	_cleanup_free_ char *buf = malloc(len);
	struct cordon_classification cl;

	cr_assert_not_null(buf);
	memset(buf, 'a', len);
	buf[0] = 'b';
	cr_assert_eq(cordon_classify(&c, 1, buf, len, &cl), 0);
	cr_assert_eq(cl.verdict, CORDON_VERDICT_OK);

	memset(buf, '\n', len);
	cr_assert_eq(cordon_classify(&c, 1, buf, len, &cl), 0);
	cr_assert_eq(cl.verdict, CORDON_VERDICT_OK);

	/* every line a fatal+denial line: each is looked at once */
	for (size_t i = 0; i + 32 <= len; i += 32) {
		memcpy(buf + i, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", 31);
		buf[i + 31] = '\n';
	}
	cr_assert_eq(cordon_classify(&c, 1, buf, len, &cl), 0);
	cr_assert_eq(cl.verdict, CORDON_VERDICT_DENIED);
}

/* Long signatures, longer than any internal block. */
Test(classify, long_signatures)
{
	size_t n = 200 * 1024;
	_cleanup_free_ char *sig = malloc(n + 1);
	_cleanup_free_ char *out = malloc(n + 10);
	struct cordon_classification cl;

	cr_assert_not_null(sig);
	cr_assert_not_null(out);
	memset(sig, 'Q', n);
	sig[n] = '\0';
	memcpy(out, "x\n  ", 4);
	memset(out + 4, 'q', n);
	memcpy(out + 4 + n, " tail", 5);

	const char *fatal[] = { sig, NULL };
	struct cordon_confined c = { .fatal_signatures = (char **)fatal };

	cr_assert_eq(cordon_classify(&c, 3, out, n + 9, &cl), 0);
	cr_assert_eq(cl.verdict, CORDON_VERDICT_RUNNER_FAILED);
	cr_assert_eq(strlen(cl.line), n + 7);
	free(cl.line);

	c = (struct cordon_confined){ .denial_signatures = (char **)fatal };
	cr_assert_eq(cordon_classify(&c, 3, out, n + 9, &cl), 0);
	cr_assert_eq(cl.verdict, CORDON_VERDICT_DENIED);
	cr_assert_eq(cordon_classify(&c, 3, out, n + 3, &cl), 0);
	cr_assert_eq(cl.verdict, CORDON_VERDICT_OK);
}

/* ---- Status channels ---------------------------------------------------- */

enum channel_preset { NATIVE_CH, BWRAP_CH };

static struct cordon_confined channel_confined(enum channel_preset which)
{
	struct cordon_confined c = confined_for(&(struct classify_case){ .preset = which == NATIVE_CH ? NATIVE : BWRAP });

	c.status_fd = 3;
	c.status_format = which == NATIVE_CH ? CORDON_STATUS_CORDON : CORDON_STATUS_BWRAP_JSON;
	return c;
}

static struct cordon_classification classify_status(const struct cordon_confined *c, int status,
						    const char *record, const char *output)
{
	struct cordon_classification cl = { .verdict = CORDON_VERDICT_TIMEOUT };

	cr_assert_eq(cordon_classify_status(c, status, record, record ? strlen(record) : 0, output, strlen(output),
					    &cl),
		     0);
	return cl;
}

/* With cordon's status channel, the text never says "runner failed": the
 * forgery this exists to stop is a command printing the runner's line. */
Test(classify, native_channel_text_is_only_output)
{
	struct cordon_confined c = channel_confined(NATIVE_CH);
	struct cordon_classification cl;

	cl = classify_status(&c, 1, NULL, "cordon: landlock: cannot open /: Permission denied\n");
	cr_expect_eq(cl.verdict, CORDON_VERDICT_DENIED);
	cr_expect_null(cl.line);
	cl = classify_status(&c, 1, NULL, "cordon: x\n");
	cr_expect_eq(cl.verdict, CORDON_VERDICT_OK);
	/* even the runner's own exit code: no record, no runner failure */
	cl = classify_status(&c, 125, "", "cordon: flags: unknown flag '--x'\n");
	cr_expect_eq(cl.verdict, CORDON_VERDICT_OK);
	/* the plain classifier agrees: with a channel it never reads the text for it */
	cr_assert_eq(cordon_classify(&c, 125, "cordon: flags: x\n", 17, &cl), 0);
	cr_expect_eq(cl.verdict, CORDON_VERDICT_OK);
}

/* Denial records (cordon/classify.h) are never a runner failure: a failed
 * command after one is DENIED, exit 0 stays OK, and a runner record among
 * them still decides. */
Test(classify, native_channel_denial_records)
{
	struct cordon_confined c = channel_confined(NATIVE_CH);
	static const char gate[] = "denial\tkernel\twrite-gate\twrite\t/w/.git/config\n";
	static const char proxy[] = "denial\tproxy\tcordon-proxy: refused GET bad.example:80: host-denied\n";
	struct cordon_classification cl;
	char both[256];

	cl = classify_status(&c, 1, gate, "done\n");
	cr_expect_eq(cl.verdict, CORDON_VERDICT_DENIED);
	cr_expect_null(cl.line);
	cl = classify_status(&c, 3, proxy, "");
	cr_expect_eq(cl.verdict, CORDON_VERDICT_DENIED);
	cl = classify_status(&c, 0, gate, "done\n");
	cr_expect_eq(cl.verdict, CORDON_VERDICT_OK);
	/* the control: the same failure with no record is ok */
	cl = classify_status(&c, 1, NULL, "done\n");
	cr_expect_eq(cl.verdict, CORDON_VERDICT_OK);
	snprintf(both, sizeof(both), "%s%s", gate, "mount\t-\tcordon: mount: failed\n");
	cl = classify_status(&c, 125, both, "");
	cr_assert_eq(cl.verdict, CORDON_VERDICT_RUNNER_FAILED);
	cr_assert_str_eq(cl.line, "cordon: mount: failed");
	free(cl.line);
	cr_expect(cordon_status_is_denial(gate, sizeof(gate) - 1));
	cr_expect(!cordon_status_is_denial("denials\t", 8));
	cr_expect(!cordon_status_is_denial("mount\t-\tx\n", 10));
}

Test(classify, native_channel_record_is_runner_failed)
{
	struct cordon_confined c = channel_confined(NATIVE_CH);
	struct cordon_classification cl;

	cl = classify_status(&c, 125, "landlock\tEACCES\tcordon: landlock: cannot open /: EACCES\n", "whatever\n");
	cr_assert_eq(cl.verdict, CORDON_VERDICT_RUNNER_FAILED);
	cr_assert_str_eq(cl.line, "cordon: landlock: cannot open /: EACCES");
	free(cl.line);
	/* the first record decides; a message may hold tabs after the second */
	cl = classify_status(&c, 125, "a\t-\tfirst\tpart\nb\t-\tsecond\n", "");
	cr_assert_str_eq(cl.line, "first\tpart");
	free(cl.line);
	/* a malformed record is still the runner saying it failed */
	cl = classify_status(&c, 125, "garbled", "");
	cr_assert_eq(cl.verdict, CORDON_VERDICT_RUNNER_FAILED);
	cr_assert_str_eq(cl.line, "garbled");
	free(cl.line);
	/* exit 0 is ok, whatever was written */
	cl = classify_status(&c, 0, "x\t-\ty\n", "");
	cr_expect_eq(cl.verdict, CORDON_VERDICT_OK);
	cr_expect_null(cl.line);
}

/* The runner could not execute a file this process can: the sandbox
 * refused it (the execute-only gate), a denial; a file that is no
 * executable (its mode says so first), or none at all, is the command's
 * own outcome (126/127 as in a shell): ok, never runner_failed. */
Test(classify, native_channel_exec_refused_is_denied)
{
	struct cordon_confined c = channel_confined(NATIVE_CH);
	struct cordon_classification cl;

	cr_assert_eq(access("/bin/true", X_OK), 0);
	cl = classify_status(&c, 126, "execve\tEACCES\tcordon: execve: /bin/true: EACCES\n", "");
	cr_expect_eq(cl.verdict, CORDON_VERDICT_DENIED);
	cr_expect_null(cl.line);
	cr_assert_neq(access("/etc/passwd", X_OK), 0);
	cl = classify_status(&c, 126, "execve\tEACCES\tcordon: execve: /etc/passwd: EACCES\n", "");
	cr_expect_eq(cl.verdict, CORDON_VERDICT_OK);
	cr_expect_null(cl.line);
	/* a directory passes access(X_OK) but is no executable file */
	cl = classify_status(&c, 126, "execve\tEACCES\tcordon: execve: /usr: EACCES\n", "");
	cr_expect_eq(cl.verdict, CORDON_VERDICT_OK);
	/* not found, or another errno: the command's own outcome too */
	cl = classify_status(&c, 127, "execve\tENOENT\tcordon: execve: /bin/true: ENOENT\n", "");
	cr_expect_eq(cl.verdict, CORDON_VERDICT_OK);
	cl = classify_status(&c, 126, "execve\tEACCES\tcordon: execve: /bin/true: EACCES and more\n", "");
	cr_expect_eq(cl.verdict, CORDON_VERDICT_OK);
	/* the same exit codes from another step are cordon's machinery failing */
	cl = classify_status(&c, 127, "landlock\tENOENT\tcordon: landlock: x\n", "");
	cr_expect_eq(cl.verdict, CORDON_VERDICT_RUNNER_FAILED);
	free(cl.line);
	cl = classify_status(&c, 125, "execve\t-\tcordon: execve: cannot restore the signal mask\n", "");
	cr_expect_eq(cl.verdict, CORDON_VERDICT_RUNNER_FAILED);
	free(cl.line);
}

Test(classify, runner_exec_refused)
{
	char buf[64];

	cr_expect_eq(cordon_runner_exec_refused("cordon: execve: /bin/true: EACCES", buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "/bin/true");
	/* the mode first: a missing file, a file without an execute bit, a
	 * directory, were never the sandbox's refusal */
	cr_expect_eq(cordon_runner_exec_refused("execve: /a b/c: EACCES", buf, sizeof(buf)), -ENOEXEC);
	cr_expect_eq(cordon_runner_exec_refused("execve: /etc/passwd: EACCES", buf, sizeof(buf)), -ENOEXEC);
	cr_expect_eq(cordon_runner_exec_refused("execve: /usr: EACCES", buf, sizeof(buf)), -ENOEXEC);
	/* not the runner's line: another errno, a relative name, more after it */
	cr_expect_eq(cordon_runner_exec_refused("cordon: execve: /bin/x: ENOENT", buf, sizeof(buf)), -ENOENT);
	cr_expect_eq(cordon_runner_exec_refused("cordon: execve: x: EACCES", buf, sizeof(buf)), -ENOENT);
	cr_expect_eq(cordon_runner_exec_refused("cordon: execve: /x: EACCES now", buf, sizeof(buf)), -ENOENT);
	cr_expect_eq(cordon_runner_exec_refused(NULL, buf, sizeof(buf)), -ENOENT);
	cr_expect_eq(cordon_runner_exec_refused("execve: /0123456789: EACCES", buf, 8), -ENAMETOOLONG);
}

Test(classify, bwrap_channel)
{
	static const char pid_only[] = "{ \"child-pid\": 12, \"mnt-namespace\": 4026532178 }\n";
	static const char ran[] = "{ \"child-pid\": 12 }\n{ \"exit-code\": 1 }\n";
	struct cordon_confined c = channel_confined(BWRAP_CH);
	struct cordon_classification cl;

	/* bwrap failed before the command: nothing, or only child-pid (its
	 * child's own setup failed), and its first line says why */
	cl = classify_status(&c, 1, NULL, "bwrap: setting up uid map: Permission denied\n");
	cr_assert_eq(cl.verdict, CORDON_VERDICT_RUNNER_FAILED);
	cr_assert_str_eq(cl.line, "bwrap: setting up uid map: Permission denied");
	free(cl.line);
	cl = classify_status(&c, 1, pid_only, "\n  \nbwrap: execvp nope: No such file or directory  \nmore\n");
	cr_assert_eq(cl.verdict, CORDON_VERDICT_RUNNER_FAILED);
	cr_assert_str_eq(cl.line, "bwrap: execvp nope: No such file or directory");
	free(cl.line);
	cl = classify_status(&c, 1, "", "");
	cr_assert_eq(cl.verdict, CORDON_VERDICT_RUNNER_FAILED);
	cr_assert_str_eq(cl.line, "bwrap exited with status 1 before starting the command");
	free(cl.line);

	/* the command ran: its "bwrap: " lines are its own output */
	cl = classify_status(&c, 1, ran, "bwrap: x\n");
	cr_expect_eq(cl.verdict, CORDON_VERDICT_OK);
	cl = classify_status(&c, 1, ran, "bwrap: setting up uid map: Permission denied\n");
	cr_expect_eq(cl.verdict, CORDON_VERDICT_DENIED);
	/* killed by a signal: bwrap could not report, it did not fail */
	cl = classify_status(&c, 137, pid_only, "");
	cr_expect_eq(cl.verdict, CORDON_VERDICT_OK);
	cl = classify_status(&c, 0, "", "bwrap: x\n");
	cr_expect_eq(cl.verdict, CORDON_VERDICT_OK);
}

Test(classify, status_without_channel_is_plain_classify)
{
	struct cordon_confined c = bwrap_confined();
	struct cordon_classification cl;

	/* no channel: a record means nothing, the text rules apply */
	cl = classify_status(&c, 1, "x\t-\tcordon: y\n", "fine\n");
	cr_expect_eq(cl.verdict, CORDON_VERDICT_OK);
	cl = classify_status(&c, 1, NULL, "bwrap: oops\n");
	cr_assert_eq(cl.verdict, CORDON_VERDICT_RUNNER_FAILED);
	free(cl.line);
	cr_assert_eq(cordon_classify_status(&c, 1, NULL, 3, "", 0, &cl), -EINVAL);
	cr_assert_eq(cordon_classify_status(NULL, 1, NULL, 0, "", 0, &cl), -EINVAL);
}

Test(classify, status_format_names)
{
	enum cordon_status_format f;

	for (int i = CORDON_STATUS_NONE; i <= CORDON_STATUS_BWRAP_JSON; i++) {
		cr_assert_eq(cordon_status_format_from_string(cordon_status_format_to_string(i), &f), 0);
		cr_assert_eq((int)f, i);
	}
	cr_assert_eq(cordon_status_format_from_string("json", &f), -EINVAL);
	cr_assert_eq(cordon_status_format_from_string(NULL, &f), -EINVAL);
}

/* A caller that spawned the confined argv itself and killed it at its own
 * deadline says so, and gets the verdict cordon_run would give; a runner
 * failure that came first still wins, and without the fact nothing
 * changes. */
Test(classify, caller_timeout)
{
	struct cordon_confined c = channel_confined(NATIVE_CH);
	const struct cordon_classify_facts late = { .timed_out = true };
	const char *rec = "namespaces\tEPERM\tcordon: namespaces: unshare: EPERM\n";
	struct cordon_classification cl;

	cr_assert_eq(cordon_classify_ex(&c, 128 + 9, NULL, 0, "", 0, &late, &cl), 0);
	cr_expect_eq(cl.verdict, CORDON_VERDICT_TIMEOUT);
	cr_assert_eq(cordon_classify_ex(&c, 128 + 9, NULL, 0, "", 0, NULL, &cl), 0);
	cr_expect_eq(cl.verdict, CORDON_VERDICT_OK, "a SIGKILL without the fact is no timeout");
	cr_assert_eq(cordon_classify_ex(&c, 125, rec, strlen(rec), "", 0, &late, &cl), 0);
	cr_expect_eq(cl.verdict, CORDON_VERDICT_RUNNER_FAILED);
	free(cl.line);
}
