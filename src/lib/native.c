/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The native provider: cordon's own runner, `cordon exec`. Its command line
 * spells the plan out in words (see src/exec/parse.c for the flags, and
 * `cordon explain` for the plan they compile to):
 *
 *   RUNNER exec --isolation full|light --net none|host
 *          [--write ROOT]... [--private-tmp] [--deny-read PATH]...
 *          [--protect PATH]... [--keep-env NAME]... [--setenv NAME=VALUE]...
 *          [--allow-unix-socket PATH]... [--require FEATURE]... -- argv...
 *
 * Environment: the runner rebuilds the environment from its own, keeping
 * the built-in allow-list and the --keep-env names, so values travel by
 * name and never appear in a command line. --setenv carries only what the
 * runner could not rebuild: a variable set with cordon_policy_set_env, or a
 * kept one whose value differs from ours now. Those values ARE visible in
 * the runner's argv (/proc/PID/cmdline, readable by the same user): pass
 * secrets with cordon_policy_keep_env, never with cordon_policy_set_env.
 *
 * --protect is emitted under workspace-write and full isolation only:
 * under read-only nothing is writable, and light isolation has no mount
 * namespace (Landlock cannot keep a path read-only below a writable root;
 * `cordon explain` says so).
 *
 * confine is pure: it reads the policy, the backend info and our own
 * environment block (memory, no syscall).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "native.h"
#include "policy.h"
#include "probe.h"
#include "provider.h"
#include "process.h"
#include "strv.h"

static const char *const native_denials[] = {
	"permission denied",
	"operation not permitted",
	"read-only file system",
	/* rename or rmdir of a pinned or protected mount point */
	"device or resource busy",
	NULL,
};

/* The runner's warnings when it falls back to light isolation: said out
 * loud, and never read as the runner failing. */
static const char *const native_informational[] = {
	NATIVE_WARN_NO_USERNS,
	NATIVE_WARN_USERNS_NO_CAPS,
	NULL,
};

static const char *const native_fatals[] = {
	"cordon: ",
	NULL,
};

static bool matches_any(const char *const *patterns, const char *name)
{
	for (size_t i = 0; patterns && patterns[i]; i++)
		if (env_name_matches(patterns[i], name))
			return true;
	return false;
}

/* Can the runner rebuild NAME=VALUE from the environment it inherits? */
static bool env_travels_by_name(const struct cordon_policy *p, const char *entry)
{
	const char *eq = strchr(entry, '=');
	char name[257];
	const char *now;
	size_t nl;

	if (!eq || (nl = (size_t)(eq - entry)) == 0 || nl >= sizeof(name))
		return false;
	memcpy(name, entry, nl);
	name[nl] = '\0';
	if (env_name_is_injection(name))
		return false;
	if (!matches_any(policy_default_env, name) && !matches_any((const char *const *)p->keep_env, name))
		return false;
	now = getenv(name);
	return now && strcmp(now, eq + 1) == 0;
}

static int native_confine(const struct cordon_backend_info *b, const char *const *argv,
			  const struct cordon_policy *p, struct cordon_confined *c,
			  struct cordon_error *reterr)
{
	_cleanup_strv_free_ char **v = NULL;
	struct strv_builder sb = {};
	bool light = p->isolation == CORDON_ISOLATION_LIGHT;
	bool ws_write = p->mode == CORDON_MODE_WORKSPACE_WRITE;
	const char *path = b->path[0] ? b->path : cordon_runner_path();
	int r;

	if (p->mode == CORDON_MODE_DANGER_FULL_ACCESS)
		return error_set(reterr, -EINVAL, "danger-full-access is not confined by a runner");
	if (light && (p->required & (REQUIRE_USERNS | REQUIRE_PIDNS | REQUIRE_NETNS)))
		return error_set(reterr, -EOPNOTSUPP,
				 "light isolation uses no namespaces, but the policy requires userns, pidns or netns");
	if ((p->required & REQUIRE_NETNS) && p->net != CORDON_NET_NONE)
		return error_set(reterr, -EOPNOTSUPP, "a network namespace is required but the network is 'host'");

	strvb_add_many(&sb, path, "exec", "--isolation", light ? "light" : "full", "--net",
		       p->net == CORDON_NET_NONE ? "none" : "host", NULL);
	STRV_FOREACH(root, p->writable_roots)
		strvb_add_many(&sb, "--write", *root, NULL);
	if (!light && ws_write)
		strvb_add(&sb, "--private-tmp");
	for (size_t i = 0; i < p->n_deny; i++)
		if (deny_entry_applies(p, &p->deny[i]))
			strvb_add_many(&sb, "--deny-read", p->deny[i].path, NULL);
	if (!light && ws_write)
		STRV_FOREACH(prot, p->protect)
			strvb_add_many(&sb, "--protect", *prot, NULL);
	STRV_FOREACH(sock, p->allow_unix)
		strvb_add_many(&sb, "--allow-unix-socket", *sock, NULL);
	STRV_FOREACH(name, p->keep_env)
		strvb_add_many(&sb, "--keep-env", *name, NULL);
	STRV_FOREACH(e, p->env)
		if (!env_travels_by_name(p, *e))
			strvb_add_many(&sb, "--setenv", *e, NULL);
	for (unsigned bit = 1; bit & REQUIRE_ALL; bit <<= 1)
		if (p->required & bit)
			strvb_add_many(&sb, "--require", require_feature_to_string(bit), NULL);
	strvb_add(&sb, "--");
	strvb_add_strv(&sb, argv);
	v = strvb_finish(&sb, &r);
	if (!v)
		return r;

	return confined_fill(c, &v, native_denials, native_fatals, native_informational, CORDON_ENFORCEMENT_NATIVE,
			     b->grade);
}

/* Value of KEY=... in a "cordon-report:" line, up to the next space (or to
 * the end of the line for the last key, "missing"). */
static void report_value(const char *line, const char *key, bool rest, char *out, size_t n)
{
	const char *k = strstr(line, key), *end;

	out[0] = '\0';
	if (!k)
		return;
	k += strlen(key);
	end = rest ? k + strcspn(k, "\n") : k + strcspn(k, " \n");
	snprintf(out, n, "%.*s", (int)(end - k), k);
}

/* Run the runner once: writing /dev/null must work, writing a file outside
 * every writable root must be refused. Exit 3 and 4 say which half failed. */
static int native_probe(int timeout_ms, struct cordon_probe_report *rep)
{
	const char *runner = cordon_runner_path();
	char outside[] = "/tmp/.cordon-probe-XXXXXX";
	static const char script[] = "echo probe > /dev/null || exit 3; "
				     "if (: >> \"$1\") 2>/dev/null; then exit 4; fi; exit 0";
	struct spawn_result res = {};
	char missing[256], iso[32];
	const char *line;
	uint64_t start = now_usec();
	int fd, r;

	snprintf(rep->path, sizeof(rep->path), "%s", runner);
	if (access(runner, X_OK) < 0) {
		snprintf(rep->reason, sizeof(rep->reason), "the runner %s is not executable: %s", runner,
			 strerror(errno));
		return 0;
	}
	if (kernel_landlock_abi() < 1) {
		snprintf(rep->reason, sizeof(rep->reason),
			 "Landlock is unavailable (the native runner's write fence; needs Linux >= 5.13 with "
			 "landlock in the lsm= list)");
		return 0;
	}
	fd = mkostemp(outside, O_CLOEXEC);
	if (fd < 0) {
		snprintf(rep->reason, sizeof(rep->reason), "cannot create a probe file in /tmp: %s", strerror(errno));
		return 0;
	}
	close(fd);

	const char *const argv[] = {
		runner, "exec", "--report", "--isolation", "full", "--net", "none",
		"--", "/bin/sh", "-c", script, "sh", outside, NULL,
	};
	r = spawn_capture(argv, NULL, timeout_ms, 8192, &res);
	(void)unlink(outside);
	if (r < 0) {
		snprintf(rep->reason, sizeof(rep->reason), "cannot start %s: %s", runner, strerror(-r));
		return 0;
	}

	line = strstr(res.output, "cordon-report: ");
	if (res.timed_out)
		snprintf(rep->reason, sizeof(rep->reason), "the probe timed out after %d ms", timeout_ms);
	else if (res.exit_code == 4)
		snprintf(rep->reason, sizeof(rep->reason), "the probe could write outside the sandbox");
	else if (res.exit_code == 3)
		snprintf(rep->reason, sizeof(rep->reason), "the probe could not write /dev/null");
	else if (res.exit_code != 0 || !line) {
		const char *first = res.output;

		/* the runner's own line, if it gave one */
		if (strstr(first, "cordon: "))
			first = strstr(first, "cordon: ");
		snprintf(rep->reason, sizeof(rep->reason), "the probe failed (exit %d): %.*s", res.exit_code,
			 (int)strcspn(first, "\n"), first);
	} else {
		rep->usable = true;
		rep->grade = CORDON_GRADE_FULL;
		report_value(line, "isolation=", false, iso, sizeof(iso));
		report_value(line, "missing=", true, missing, sizeof(missing));
		if (missing[0] || strcmp(iso, "full") != 0) {
			rep->grade = CORDON_GRADE_PARTIAL;
			snprintf(rep->reason, sizeof(rep->reason), "runs with reduced fencing: %s",
				 missing[0] ? missing : "no namespaces (light isolation)");
		}
	}
	free(res.output);
	rep->duration_us = now_usec() - start;
	return 0;
}

const struct provider provider_native = {
	.backend = CORDON_BACKEND_NATIVE,
	.confine = native_confine,
	.probe = native_probe,
};
