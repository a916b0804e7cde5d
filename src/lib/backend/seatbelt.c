/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The macOS Seatbelt provider: `sandbox-exec -p PROFILE -- argv...`.
 *
 * Confining is a pure generator (a profile string and an argv), so it is
 * built and tested on every platform; only the probe needs macOS. The
 * profile allows everything, then takes writes away except to a few devices
 * and the writable roots, takes the network away under `net none`, and hides
 * the policy's credential stores. In SBPL the last matching rule wins, so
 * each narrowing comes after what it narrows.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "error.h"
#include "pathfd.h"
#include "process.h"
#include "provider.h"
#include "strv.h"

#ifdef __APPLE__
#define SEATBELT_SUPPORTED 1
#else
#define SEATBELT_SUPPORTED 0
#endif

#define SEATBELT_DEFAULT_PATH "/usr/bin/sandbox-exec"

static const char *const seatbelt_denials[] = {
	"operation not permitted",
	"permission denied",
	NULL,
};

/* sandbox-exec prefixes its own errors with its name; a nested sandbox
 * refused ("sandbox-exec: sandbox_apply: Operation not permitted") is also a
 * denial, which classify handles. */
static const char *const seatbelt_fatals[] = {
	"sandbox-exec: ",
	NULL,
};

static const char profile_base[] =
	"(version 1)\n"
	"(allow default)\n"
	"(deny file-write*)\n"
	"(allow file-write*"
	" (literal \"/dev/null\")"
	" (literal \"/dev/stdout\")"
	" (literal \"/dev/stderr\")"
	" (literal \"/dev/tty\")"
	" (subpath \"/dev/fd\"))\n";

/* A growing string; on allocation failure it is freed and stays NULL, and
 * the builder's caller checks once at the end. */
struct strbuf {
	char *s;
	size_t len, cap;
};

static void strbuf_add_n(struct strbuf *b, const char *s, size_t n)
{
	if (!b->s && b->cap)
		return; /* an earlier failure */
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *ns;

		while (cap < b->len + n + 1)
			cap *= 2;
		ns = realloc(b->s, cap);
		if (!ns) {
			free(b->s);
			b->s = NULL;
			b->cap = 1;
			return;
		}
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void strbuf_add(struct strbuf *b, const char *s)
{
	strbuf_add_n(b, s, strlen(s));
}

/* An SBPL string literal: backslash first, then the double quote. */
static void strbuf_add_quoted(struct strbuf *b, const char *s)
{
	strbuf_add(b, "\"");
	for (const char *p = s; *p; p++) {
		size_t run = strcspn(p, "\\\"");

		strbuf_add_n(b, p, run);
		p += run;
		if (!*p)
			break;
		strbuf_add(b, *p == '\\' ? "\\\\" : "\\\"");
	}
	strbuf_add(b, "\"");
}

static int seatbelt_profile(const struct cordon_policy *p, char **ret)
{
	struct strbuf b = { 0 };
	const char *const *roots = cordon_writable_roots(p);

	strbuf_add(&b, profile_base);

	if (roots && roots[0]) {
		strbuf_add(&b, "(allow file-write*");
		for (size_t i = 0; roots[i]; i++) {
			strbuf_add(&b, " (subpath ");
			strbuf_add_quoted(&b, roots[i]);
			strbuf_add(&b, ")");
		}
		strbuf_add(&b, ")\n");
	}

	if (p->net == CORDON_NET_NONE)
		strbuf_add(&b, "(deny network*)\n");

	/* Credential stores last, so they win inside a writable root too.
	 * Writes are denied with reads: the bwrap provider's read-only empty
	 * directory / null file means the same. */
	for (size_t i = 0; i < p->n_deny; i++) {
		const struct deny_entry *d = &p->deny[i];

		if (!deny_entry_applies(p, d))
			continue;
		strbuf_add(&b, d->is_dir ? "(deny file-read* file-write* (subpath "
					 : "(deny file-read* file-write* (literal ");
		strbuf_add_quoted(&b, d->path);
		strbuf_add(&b, "))\n");
	}

	if (!b.s)
		return -ENOMEM;
	*ret = b.s;
	return 0;
}

static int seatbelt_confine(const struct cordon_backend_info *b, const char *const *argv,
			    const struct cordon_policy *p, struct cordon_confined *c,
			    struct cordon_error *reterr)
{
	_cleanup_strv_free_ char **v = NULL;
	_cleanup_strv_free_ char **denials = NULL, **fatals = NULL, **info = NULL;
	_cleanup_free_ char *profile = NULL;
	const char *path = b->path[0] ? b->path : SEATBELT_DEFAULT_PATH;
	int r;

	switch (p->mode) {
	case CORDON_MODE_READ_ONLY:
	case CORDON_MODE_WORKSPACE_WRITE:
		break;
	case CORDON_MODE_DANGER_FULL_ACCESS:
		return error_set(reterr, -EINVAL, "danger-full-access is not confined by a provider");
	}
	if (p->isolation == CORDON_ISOLATION_LIGHT)
		return error_set(reterr, -EINVAL,
				 "isolation 'light' is a mode of the native runner; seatbelt has no namespaces to drop");
	if (p->net == CORDON_NET_PROXY || p->net == CORDON_NET_ALLOW)
		return error_set(reterr, -EOPNOTSUPP, "network 'proxy' needs the native runner (a network namespace)");
	if (*policy_needs_native(p))
		return error_set(reterr, -EOPNOTSUPP, "%s needs the native runner: the seatbelt backend does not enforce it",
				 policy_needs_native(p));
	/* Seatbelt has none of these; a requirement is never silently dropped. */
	if (p->required)
		return error_set(reterr, -EOPNOTSUPP,
				 "the seatbelt backend has no Landlock, seccomp or namespaces, which this policy requires");

	r = seatbelt_profile(p, &profile);
	if (r < 0)
		return r;

	r = strv_extend_many(&v, path, "-p", profile, "--", NULL);
	if (r < 0)
		return r;
	r = strv_extend_strv(&v, argv);
	if (r < 0)
		return r;

	denials = strv_copy(seatbelt_denials);
	fatals = strv_copy(seatbelt_fatals);
	info = calloc(1, sizeof(char *));
	if (!denials || !fatals || !info)
		return -ENOMEM;

	c->argv = TAKE_PTR(v);
	c->denial_signatures = TAKE_PTR(denials);
	c->fatal_signatures = TAKE_PTR(fatals);
	c->informational_lines = TAKE_PTR(info);
	c->enforcement = CORDON_ENFORCEMENT_SEATBELT;
	c->grade = b->grade;
	return 0;
}

/* Writing /dev/null must work and writing outside must be refused; exit 3
 * and 4 say which half failed. macOS only. */
static int seatbelt_try(const char *path, int timeout_ms, struct cordon_probe_report *rep)
{
	_cleanup_free_ char *outside = NULL, *script = NULL;
	struct spawn_result res = { 0 };
	int r;

	if (asprintf(&outside, "/tmp/.cordon-probe-%d", (int)getpid()) < 0)
		return -ENOMEM;
	if (asprintf(&script, PROVIDER_PROBE_SCRIPT, outside) < 0)
		return -ENOMEM;

	const char *const argv[] = { path, "-p", profile_base, "--", "/bin/sh", "-c", script, NULL };

	r = spawn_capture(argv, NULL, timeout_ms, 4096, &res);
	if (r < 0) {
		snprintf(rep->reason, sizeof(rep->reason), "cannot start %s: %s", path, strerror(-r));
		return 0;
	}
	(void)path_remove(outside, 0); /* by the parent's fd: never through a symlink */
	if (res.timed_out)
		snprintf(rep->reason, sizeof(rep->reason), "probe timed out after %d ms", timeout_ms);
	else if (res.exit_code == 0 && strstr(res.output, PROVIDER_PROBE_OK))
		rep->usable = true; /* positive evidence that the script ran inside */
	else if (res.exit_code == 4)
		snprintf(rep->reason, sizeof(rep->reason), "probe could write outside the sandbox");
	else {
		char *nl = strchr(res.output, '\n');

		if (nl)
			*nl = '\0';
		snprintf(rep->reason, sizeof(rep->reason), "probe failed (exit %d): %s", res.exit_code,
			 res.output);
	}
	free(res.output);
	return 0;
}

static int seatbelt_probe(int timeout_ms, struct cordon_probe_report *rep)
{
	uint64_t start;
	int r;

	if (!SEATBELT_SUPPORTED) {
		rep->usable = false;
		snprintf(rep->reason, sizeof(rep->reason), "sandbox-exec is macOS only");
		return 0;
	}

	start = now_usec();
	if (access(SEATBELT_DEFAULT_PATH, X_OK) < 0) {
		snprintf(rep->reason, sizeof(rep->reason), "%s: %s", SEATBELT_DEFAULT_PATH, strerror(errno));
		return 0;
	}
	snprintf(rep->path, sizeof(rep->path), "%s", SEATBELT_DEFAULT_PATH);
	r = seatbelt_try(SEATBELT_DEFAULT_PATH, timeout_ms, rep);
	if (r < 0)
		return r;
	if (rep->usable) {
		rep->grade = CORDON_GRADE_FULL;
		rep->reason[0] = '\0';
	}
	rep->duration_us = now_usec() - start;
	return 0;
}

const struct provider provider_seatbelt = {
	.backend = CORDON_BACKEND_SEATBELT,
	.confine = seatbelt_confine,
	.probe = seatbelt_probe,
};
