/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The bubblewrap provider: the system read-only, writable roots bound back
 * in, credential stores hidden, a private /tmp, no network, a scrubbed
 * environment (given as bwrap's own, never in its argv). Its argv is exact
 * by grade so it can be reviewed and tested.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "provider.h"
#include "process.h"
#include "strv.h"

static const char *const bwrap_denials[] = {
	"read-only file system",
	"permission denied",
	"operation not permitted",
	NULL,
};

static const char *const bwrap_fatals[] = {
	"bwrap: ",
	NULL,
};

/* The fixed part of the command line; `partial` drops the fresh /dev, /proc
 * and pid namespace together (what a host without them can still give). */
static void bwrap_base(struct strv_builder *sb, const char *path, enum cordon_grade grade, bool as_root)
{
	strvb_add_many(sb, path, "--ro-bind", "/", "/", NULL);
	if (grade == CORDON_GRADE_FULL)
		strvb_add_many(sb, "--dev", "/dev", "--proc", "/proc", "--unshare-pid", NULL);
	strvb_add_many(sb, "--die-with-parent", "--new-session", NULL);
	/* A root caller would otherwise keep CAP_SYS_ADMIN inside and could
	 * remount / read-write. */
	if (as_root)
		strvb_add_many(sb, "--unshare-user", "--cap-drop", "ALL", NULL);
}

static int bwrap_confine(const struct cordon_backend_info *b, const char *const *argv,
			 const struct cordon_policy *p, struct cordon_confined *c,
			 struct cordon_error *reterr)
{
	_cleanup_strv_free_ char **v = NULL;
	struct strv_builder sb = {};
	const char *path = b->path[0] ? b->path : "bwrap";
	int r;

	if (p->isolation == CORDON_ISOLATION_LIGHT)
		return error_set(reterr, -EINVAL, "isolation 'light' is a mode of the native runner; bwrap always uses namespaces");
	if (p->required & (REQUIRE_LANDLOCK | REQUIRE_LANDLOCK_NET | REQUIRE_LANDLOCK_SCOPE | REQUIRE_SECCOMP))
		return error_set(reterr, -EOPNOTSUPP,
				 "the bwrap backend does not apply Landlock or seccomp, which this policy requires: use the native backend");
	if ((p->required & REQUIRE_PIDNS) && b->grade != CORDON_GRADE_FULL)
		return error_set(reterr, -EOPNOTSUPP, "bwrap runs at partial grade here (no pid namespace), which this policy requires");
	if ((p->required & REQUIRE_NETNS) && p->net != CORDON_NET_NONE)
		return error_set(reterr, -EOPNOTSUPP, "a network namespace is required but the network is 'host'");

	bwrap_base(&sb, path, b->grade, p->caller_is_root);
	if (p->net == CORDON_NET_NONE)
		strvb_add(&sb, "--unshare-net");

	if (p->mode == CORDON_MODE_WORKSPACE_WRITE) {
		strvb_add_many(&sb, "--tmpfs", "/tmp", NULL);
		STRV_FOREACH(root, p->writable_roots)
			if (strcmp(*root, "/tmp") != 0) /* /tmp: the private tmpfs above */
				strvb_add_many(&sb, "--bind", *root, *root, NULL);
	}

	/* Hide credential stores after the binds, so they win even inside a
	 * writable root. An empty, read-only, mode-0000 directory: reads fail
	 * with EACCES (a classifiable denial), not a silent ENOENT. */
	for (size_t i = 0; i < p->n_deny; i++) {
		const struct deny_entry *d = &p->deny[i];

		if (!deny_entry_applies(p, d))
			continue;
		if (d->is_dir)
			strvb_add_many(&sb, "--perms", "0000", "--tmpfs", d->path, "--remount-ro", d->path, NULL);
		else
			strvb_add_many(&sb, "--ro-bind", "/dev/null", d->path, NULL);
	}

	/* No --setenv: bwrap passes on the environment it is started with,
	 * c->envp (exactly the policy's), so no value is in its command line.
	 * Its status records say whether it got as far as the command. */
	strvb_add_many(&sb, "--json-status-fd", PROVIDER_STATUS_FD_STR, "--", NULL);
	strvb_add_strv(&sb, argv);
	v = strvb_finish(&sb, &r);
	if (!v)
		return r;
	r = confined_fill(c, &v, bwrap_denials, bwrap_fatals, NULL, CORDON_ENFORCEMENT_BWRAP, b->grade);
	if (r < 0)
		return r;
	return confined_set_channel(c, p->env, PROVIDER_STATUS_FD, CORDON_STATUS_BWRAP_JSON);
}

/* The probe script: writing /dev/null must work and writing outside must be
 * refused. Exit 3 and 4 say which half failed. */
static int bwrap_try(const char *path, enum cordon_grade grade, int timeout_ms,
		     struct cordon_probe_report *rep)
{
	_cleanup_strv_free_ char **v = NULL;
	_cleanup_free_ char *outside = NULL, *script = NULL;
	struct strv_builder sb = {};
	struct spawn_result res = {};
	int r;

	if (asprintf(&outside, "/tmp/.cordon-probe-%d", (int)getpid()) < 0)
		return -ENOMEM;
	if (asprintf(&script,
		     "echo probe > /dev/null || exit 3; "
		     "if (echo probe > '%s') 2>/dev/null; then exit 4; fi; echo cordon-probe-ok",
		     outside) < 0)
		return -ENOMEM;
	bwrap_base(&sb, path, grade, geteuid() == 0);
	strvb_add_many(&sb, "--unshare-net", "--", "/bin/sh", "-c", script, NULL);
	v = strvb_finish(&sb, &r);
	if (!v)
		return r;

	r = spawn_capture((const char *const *)v, NULL, timeout_ms, 4096, &res);
	if (r < 0) {
		snprintf(rep->reason, sizeof(rep->reason), "cannot start %s: %s", path, strerror(-r));
		return 0;
	}
	unlink(outside);
	if (res.timed_out)
		snprintf(rep->reason, sizeof(rep->reason), "%s grade probe timed out after %d ms",
			 cordon_grade_to_string(grade), timeout_ms);
	else if (res.exit_code == 0 && strstr(res.output, "cordon-probe-ok"))
		rep->usable = true; /* positive evidence that the script ran inside */
	else if (res.exit_code == 4)
		snprintf(rep->reason, sizeof(rep->reason), "%s grade probe could write outside the sandbox",
			 cordon_grade_to_string(grade));
	else {
		char *nl = strchr(res.output, '\n');
		if (nl)
			*nl = '\0';
		snprintf(rep->reason, sizeof(rep->reason), "%s grade probe failed (exit %d): %s",
			 cordon_grade_to_string(grade), res.exit_code, res.output);
	}
	free(res.output);
	return 0;
}

static int bwrap_probe(int timeout_ms, struct cordon_probe_report *rep)
{
	_cleanup_free_ char *path = NULL;
	char full_reason[sizeof(rep->reason)];
	uint64_t start = now_usec();
	int r;

	r = find_executable("bwrap", &path);
	if (r < 0) {
		snprintf(rep->reason, sizeof(rep->reason),
			 "bwrap not found on PATH (install it: apt-get install bubblewrap)");
		return 0;
	}
	snprintf(rep->path, sizeof(rep->path), "%s", path);

	r = bwrap_try(path, CORDON_GRADE_FULL, timeout_ms, rep);
	if (r < 0)
		return r;
	if (rep->usable) {
		rep->grade = CORDON_GRADE_FULL;
		rep->reason[0] = '\0';
		goto done;
	}
	snprintf(full_reason, sizeof(full_reason), "%s", rep->reason);
	r = bwrap_try(path, CORDON_GRADE_PARTIAL, timeout_ms, rep);
	if (r < 0)
		return r;
	if (rep->usable) {
		rep->grade = CORDON_GRADE_PARTIAL;
		snprintf(rep->reason, sizeof(rep->reason), "no fresh /dev, /proc or pid namespace: %.400s", full_reason);
	}
done:
	rep->duration_us = now_usec() - start;
	return 0;
}

const struct provider provider_bwrap = {
	.backend = CORDON_BACKEND_BWRAP,
	.confine = bwrap_confine,
	.probe = bwrap_probe,
};
