/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The Seatbelt provider cannot run here; its output is checked as exact
 * strings instead. Policies are built by hand so nothing touches the
 * filesystem. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/cordon.h"
#include "cleanup.h"
#include "policy.h"
#include "provider.h"
#include "strv.h"

#define BASE                                                                          \
	"(version 1)\n"                                                               \
	"(allow default)\n"                                                           \
	"(deny file-write*)\n"                                                        \
	"(allow file-write* (literal \"/dev/null\") (literal \"/dev/stdout\") "       \
	"(literal \"/dev/stderr\") (literal \"/dev/tty\") (subpath \"/dev/fd\"))\n"

static char *no_roots[] = { NULL };

static struct cordon_policy policy(enum cordon_mode mode, enum cordon_net net, char **roots)
{
	return (struct cordon_policy){
		.mode = mode,
		.net = net,
		.isolation = CORDON_ISOLATION_FULL,
		.workspace = roots[0],
		.writable_roots = roots,
	};
}

static struct cordon_confined *confine(const struct cordon_backend_info *b, const struct cordon_policy *p,
				       struct cordon_error *err)
{
	const char *argv[] = { "/bin/echo", "hi there", NULL };
	struct cordon_confined *c = calloc(1, sizeof(*c));
	int r;

	cr_assert_not_null(c);
	c->mode = p->mode;
	r = provider_seatbelt.confine(b, argv, p, c, err);
	cr_assert_eq(r, 0, "confine: %d %s", r, err->message);
	return c;
}

static void assert_argv(struct cordon_confined *c, const char *path, const char *profile)
{
	cr_assert_eq(strv_length(c->argv), 6);
	cr_assert_str_eq(c->argv[0], path);
	cr_assert_str_eq(c->argv[1], "-p");
	cr_assert_str_eq(c->argv[2], profile);
	cr_assert_str_eq(c->argv[3], "--");
	cr_assert_str_eq(c->argv[4], "/bin/echo");
	cr_assert_str_eq(c->argv[5], "hi there");
	cr_assert_null(c->argv[6]);
}

Test(seatbelt, read_only_net_none)
{
	struct cordon_backend_info b = { .backend = CORDON_BACKEND_SEATBELT, .grade = CORDON_GRADE_FULL };
	struct cordon_policy p = policy(CORDON_MODE_READ_ONLY, CORDON_NET_NONE, no_roots);
	struct cordon_error err = { 0 };
	struct cordon_confined *c = confine(&b, &p, &err);

	assert_argv(c, "/usr/bin/sandbox-exec", BASE "(deny network*)\n");
	cr_assert_eq(c->enforcement, CORDON_ENFORCEMENT_SEATBELT);
	cr_assert_eq(c->grade, CORDON_GRADE_FULL);
	cordon_confined_free(c);
}

Test(seatbelt, read_only_net_host)
{
	struct cordon_backend_info b = { .backend = CORDON_BACKEND_SEATBELT, .grade = CORDON_GRADE_PARTIAL };
	struct cordon_policy p = policy(CORDON_MODE_READ_ONLY, CORDON_NET_HOST, no_roots);
	struct cordon_error err = { 0 };
	struct cordon_confined *c = confine(&b, &p, &err);

	assert_argv(c, "/usr/bin/sandbox-exec", BASE);
	cr_assert_eq(c->grade, CORDON_GRADE_PARTIAL);
	cordon_confined_free(c);
}

Test(seatbelt, workspace_write_quotes_and_backslashes)
{
	char *roots[] = { "/Users/ann/my \"q\" dir\\x", "/private/tmp", "/private/var/folders/ab/T", NULL };
	struct cordon_backend_info b = { .backend = CORDON_BACKEND_SEATBELT, .path = "/opt/sb/sandbox-exec" };
	struct cordon_policy p = policy(CORDON_MODE_WORKSPACE_WRITE, CORDON_NET_HOST, roots);
	struct cordon_error err = { 0 };
	struct cordon_confined *c = confine(&b, &p, &err);

	assert_argv(c, "/opt/sb/sandbox-exec",
		    BASE "(allow file-write* (subpath \"/Users/ann/my \\\"q\\\" dir\\\\x\") "
			 "(subpath \"/private/tmp\") (subpath \"/private/var/folders/ab/T\"))\n");
	cordon_confined_free(c);
}

Test(seatbelt, backslash_before_quote)
{
	/* \" in a path must become \\\" — escaping the quote first would
	 * turn it into \\\\" and close the string early. */
	char *roots[] = { "/w/a\\\"b", NULL };
	struct cordon_backend_info b = { .backend = CORDON_BACKEND_SEATBELT };
	struct cordon_policy p = policy(CORDON_MODE_WORKSPACE_WRITE, CORDON_NET_NONE, roots);
	struct cordon_error err = { 0 };
	struct cordon_confined *c = confine(&b, &p, &err);

	assert_argv(c, "/usr/bin/sandbox-exec",
		    BASE "(allow file-write* (subpath \"/w/a\\\\\\\"b\"))\n(deny network*)\n");
	cordon_confined_free(c);
}

Test(seatbelt, read_deny_entries)
{
	char *roots[] = { "/Users/ann/ws", NULL };
	struct deny_entry deny[] = {
		{ .path = "/Users/ann/.ssh", .exists = true, .is_dir = true },
		{ .path = "/Users/ann/.aws", .exists = false, .is_dir = true },
		{ .path = "/Users/ann/.netrc", .exists = true, .is_dir = false },
		{ .path = "/Users/ann/odd \"name\"", .exists = true, .is_dir = false },
	};
	struct cordon_backend_info b = { .backend = CORDON_BACKEND_SEATBELT };
	struct cordon_policy p = policy(CORDON_MODE_WORKSPACE_WRITE, CORDON_NET_NONE, roots);
	struct cordon_error err = { 0 };
	struct cordon_confined *c;

	p.deny = deny;
	p.n_deny = ELEMENTSOF(deny);
	c = confine(&b, &p, &err);
	assert_argv(c, "/usr/bin/sandbox-exec",
		    BASE "(allow file-write* (subpath \"/Users/ann/ws\"))\n"
			 "(deny network*)\n"
			 "(deny file-read* file-write* (subpath \"/Users/ann/.ssh\"))\n"
			 "(deny file-read* file-write* (literal \"/Users/ann/.netrc\"))\n"
			 "(deny file-read* file-write* (literal \"/Users/ann/odd \\\"name\\\"\"))\n");
	cordon_confined_free(c);
}

Test(seatbelt, signatures)
{
	struct cordon_backend_info b = { .backend = CORDON_BACKEND_SEATBELT };
	struct cordon_policy p = policy(CORDON_MODE_READ_ONLY, CORDON_NET_NONE, no_roots);
	struct cordon_error err = { 0 };
	struct cordon_confined *c = confine(&b, &p, &err);

	cr_assert_eq(strv_length(c->denial_signatures), 2);
	cr_assert_str_eq(c->denial_signatures[0], "operation not permitted");
	cr_assert_str_eq(c->denial_signatures[1], "permission denied");
	cr_assert_eq(strv_length(c->fatal_signatures), 1);
	cr_assert_str_eq(c->fatal_signatures[0], "sandbox-exec: ");
	cr_assert_not_null(c->informational_lines);
	cr_assert_null(c->informational_lines[0]);
	cr_assert_eq(c->n_allowed_exit_codes, 0);
	cordon_confined_free(c);
}

/* What its own runner prints, classified with its own signatures. */
Test(seatbelt, classifies_its_own_output)
{
	struct cordon_backend_info b = { .backend = CORDON_BACKEND_SEATBELT };
	struct cordon_policy p = policy(CORDON_MODE_READ_ONLY, CORDON_NET_NONE, no_roots);
	struct cordon_error err = { 0 };
	struct cordon_confined *c = confine(&b, &p, &err);
	struct cordon_classification cl;
	const char *nested = "sandbox-exec: sandbox_apply: Operation not permitted\n";
	const char *bad = "sandbox-exec: unbound variable: foo\n";
	const char *touch = "touch: /etc/x: Operation not permitted\n";

	cr_assert_eq(cordon_classify(c, 71, nested, strlen(nested), &cl), 0);
	cr_assert_eq(cl.verdict, CORDON_VERDICT_DENIED);
	cr_assert_eq(cordon_classify(c, 65, bad, strlen(bad), &cl), 0);
	cr_assert_eq(cl.verdict, CORDON_VERDICT_RUNNER_FAILED);
	cr_assert_str_eq(cl.line, "sandbox-exec: unbound variable: foo");
	free(cl.line);
	cr_assert_eq(cordon_classify(c, 1, touch, strlen(touch), &cl), 0);
	cr_assert_eq(cl.verdict, CORDON_VERDICT_DENIED);
	cordon_confined_free(c);
}

Test(seatbelt, refusals)
{
	struct cordon_backend_info b = { .backend = CORDON_BACKEND_SEATBELT };
	const char *argv[] = { "/bin/true", NULL };
	struct cordon_policy p = policy(CORDON_MODE_READ_ONLY, CORDON_NET_NONE, no_roots);
	struct cordon_confined c = { 0 };
	struct cordon_error err = { 0 };

	p.mode = CORDON_MODE_DANGER_FULL_ACCESS;
	cr_assert_eq(provider_seatbelt.confine(&b, argv, &p, &c, &err), -EINVAL);
	cr_assert_str_eq(err.message, "danger-full-access is not confined by a provider");

	p.mode = CORDON_MODE_READ_ONLY;
	p.required = REQUIRE_LANDLOCK;
	cr_assert_eq(provider_seatbelt.confine(&b, argv, &p, &c, &err), -EOPNOTSUPP);
	cr_assert_str_eq(err.message,
			 "the seatbelt backend has no Landlock, seccomp or namespaces, which this policy requires");

	p.required = 0;
	p.isolation = CORDON_ISOLATION_LIGHT;
	cr_assert_eq(provider_seatbelt.confine(&b, argv, &p, &c, &err), -EINVAL);
	cr_assert_str_eq(err.message,
			 "isolation 'light' is a mode of the native runner; seatbelt has no namespaces to drop");

	/* the tool sandbox's mechanisms are the native runner's */
	p.isolation = CORDON_ISOLATION_FULL;
	p.exec_gate = true;
	cr_assert_eq(provider_seatbelt.confine(&b, argv, &p, &c, &err), -EOPNOTSUPP);
	cr_assert_str_eq(err.message, "the execute-only gate needs the native runner: the seatbelt backend does not enforce it");

	/* nothing was written on failure */
	cr_assert_null(c.argv);
	cr_assert_null(c.denial_signatures);
}

/* Through the public API with the backend pinned by value. */
Test(seatbelt, confine_with)
{
	char *roots[] = { "/w", NULL };
	struct cordon_backend_info b = { .backend = CORDON_BACKEND_SEATBELT };
	struct cordon_policy p = policy(CORDON_MODE_WORKSPACE_WRITE, CORDON_NET_HOST, roots);
	const char *argv[] = { "/bin/echo", "hi there", NULL };
	struct cordon_confined *c = NULL;
	struct cordon_error err = { 0 };

	cr_assert_eq(cordon_confine_with(&b, argv, &p, &c, &err), 0, "%s", err.message);
	cr_assert_eq(c->mode, CORDON_MODE_WORKSPACE_WRITE);
	assert_argv(c, "/usr/bin/sandbox-exec", BASE "(allow file-write* (subpath \"/w\"))\n");
	cordon_confined_free(c);
}

#ifndef __APPLE__
Test(seatbelt, probe_is_macos_only)
{
	struct cordon_probe_report rep = { .backend = CORDON_BACKEND_SEATBELT, .usable = true };

	cr_assert_eq(provider_seatbelt.probe(2000, &rep), 0);
	cr_assert_not(rep.usable);
	cr_assert_str_eq(rep.reason, "sandbox-exec is macOS only");

	memset(&rep, 0, sizeof(rep));
	cr_assert_eq(cordon_probe_backend(CORDON_BACKEND_SEATBELT, 2000, &rep), 0);
	cr_assert_eq(rep.backend, CORDON_BACKEND_SEATBELT);
	cr_assert_not(rep.usable);
	cr_assert_str_eq(rep.reason, "sandbox-exec is macOS only");
}
#endif
