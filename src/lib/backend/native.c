/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The native provider: cordon's own runner, `cordon exec`. Its command line
 * spells the plan out in words (see src/exec/parse.c for the flags, and
 * `cordon explain` for the plan they compile to):
 *
 *   RUNNER exec --status-fd 3 --isolation full|light --net none|host
 *          [--write ROOT]... [--private-tmp] [--read PATH]...
 *          [--exec-gate [--exec PATH]...] [--deny-exec PATH]... [--exec-fd 4]
 *          [--deny-read PATH]... [--protect PATH]... [--keep-env NAME]...
 *          [--setenv NAME]... [--allow-unix-socket PATH]...
 *          [--require FEATURE]... -- argv...
 *
 * Restricted reads spell out the whole readable list, the system's baseline
 * included (so `cordon explain` shows every path), and pass only the
 * read-deny entries something readable reaches. The execute-only gate is
 * --exec-gate and one --exec per path (with none, nothing but the
 * --exec-fd file runs). Running from an fd asks for the caller's fd at 4
 * (c->exec_fd).
 *
 * Environment: the runner is started with exactly the policy's environment
 * (c->envp: the allow-list, the kept variables as snapshotted, the set
 * ones) and rebuilds the command's from it, keeping the built-in allow-list
 * and the --keep-env names; --setenv NAME passes a set variable the
 * patterns do not cover. Only names are in the command line: every local
 * user can read /proc/PID/cmdline, but not /proc/PID/environ.
 *
 * Runner failures come back on fd 3 (c->status_fd), never from the text:
 * a command printing "cordon: ..." is just a command printing.
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

#include "canon.h"
#include "cleanup.h"
#include "error.h"
#include "fnv.h"
#include "path.h"
#include "pathfd.h"
#include "policy.h"
#include "probe.h"
#include "process.h"
#include "provider.h"
#include "runner_path.h"
#include "strv.h"

/* The write gate's rules by name (src/exec/gate_rules.h): what runs code
 * at any depth below a writable root; none inside a tool's cache
 * (policy_home_cache_root). */
static void add_protect_rules(struct strv_builder *sb, const struct cordon_policy *p)
{
	strvb_add(sb, "--protect-git");
	for (size_t i = 0; policy_default_protect[i]; i++)
		if (policy_protect_is_name(policy_default_protect[i]))
			strvb_add_many(sb, "--protect-name", policy_default_protect[i], NULL);
	STRV_FOREACH(u, p->unprotect)
		strvb_add_many(sb, "--unprotect", *u, NULL);
	STRV_FOREACH(root, p->writable_roots)
		if (policy_home_cache_root(p->home, *root))
			strvb_add_many(sb, "--unprotect", *root, NULL);
}

static const char *const native_denials[] = {
	"permission denied",
	"operation not permitted",
	"read-only file system",
	/* rename or rmdir of a pinned or protected mount point */
	"device or resource busy",
	/* --net proxy: the proxy's audit line (src/proxy/proxy.c) */
	"cordon-proxy: refused ",
	NULL,
};

static const char *const native_fatals[] = {
	"cordon: ",
	NULL,
};

/* The name of a NAME=VALUE entry the runner would not pass on by its
 * allow-list or --keep-env patterns (so it needs --setenv NAME), in
 * name[]; false when it would. */
static bool env_needs_setenv(const struct cordon_policy *p, const char *entry, char *name, size_t size)
{
	size_t nl = strcspn(entry, "=");

	if (nl == 0 || nl >= size || entry[nl] != '=')
		return false;
	memcpy(name, entry, nl);
	name[nl] = '\0';
	return !env_name_matches_any(policy_default_env, name) &&
	       !env_name_matches_any((const char *const *)p->keep_env, name);
}

static bool at_or_above_any(const char *d, char *const *roots)
{
	STRV_FOREACH(r, roots)
		if (path_is_under(d, *r) || path_is_under(*r, d))
			return true;
	return false;
}

/* Under restricted reads, a read-deny entry that nothing readable reaches
 * (at, below or above no readable, writable or executable root) would only
 * cost a mount and a Landlock walk: Landlock refuses it anyway. */
static bool deny_in_reach(const struct cordon_policy *p, const char *d)
{
	return !p->read_restricted || at_or_above_any(d, p->read_roots) || at_or_above_any(d, p->writable_roots) ||
	       at_or_above_any(d, p->exec_roots) || path_is_under(d, "/dev");
}

/* --deny-read for each entry's path, without repeats: several absent
 * entries share a first missing component (~/.config for all of
 * ~/.config/...). A small open-addressing set keeps this linear: confine is
 * on every launch's path. Pure: memory only. */
static int add_deny_reads(struct strv_builder *sb, const struct cordon_policy *p)
{
	size_t cap = 16;
	_cleanup_free_ const char **set = NULL;

	while (cap < 2 * p->n_deny + 2)
		cap <<= 1;
	set = calloc(cap, sizeof(*set));
	if (!set)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_deny; i++) {
		const char *d = deny_entry_native_path(p, &p->deny[i]);
		size_t k;

		/* under the HOME allowlist, an entry no grant brings back is
		 * gone with HOME's tmpfs and its Landlock omission already */
		if (!d || !deny_in_reach(p, d) || (!p->deny[i].explicit_deny && policy_home_hides(p, d)))
			continue;
		for (k = fnv1a_str(d) & (cap - 1); set[k] && strcmp(set[k], d) != 0; k = (k + 1) & (cap - 1))
			;
		if (set[k])
			continue; /* a repeat */
		set[k] = d;
		/* what is absent has no stand-in to mount: the runner hides it by
		 * Landlock omission alone, without looking at it again */
		strvb_add_many(sb, p->deny[i].exists ? "--deny-read" : "--deny-read-absent", d, NULL);
	}
	return 0;
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
	if ((p->required & REQUIRE_NETNS) && p->net == CORDON_NET_HOST)
		return error_set(reterr, -EOPNOTSUPP, "a network namespace is required but the network is 'host'");
	if (light && p->shim_path)
		return error_set(reterr, -EOPNOTSUPP,
				 "the tool sandbox's broker needs full isolation: its socket is the sandbox's identity only "
				 "in a /run of the sandbox's own");
	if (light && p->net == CORDON_NET_PROXY)
		return error_set(reterr, -EOPNOTSUPP,
				 "network 'proxy' needs full isolation: the proxy is the only way out only from a network "
				 "namespace of the sandbox's own");
	if (light && p->net == CORDON_NET_ALLOW)
		return error_set(reterr, -EOPNOTSUPP,
				 "network 'allow' needs full isolation: its connections are handed over from the host's "
				 "network namespace into one of the sandbox's own, through init's seccomp gate");
	if (light && (p->exec_gate || p->deny_exec))
		return error_set(reterr, -EOPNOTSUPP,
				 "the execute-only gate and deny-exec need full isolation: light isolation has no "
				 "unix-socket gate, so a host service could execute for the sandbox what they forbid");

	/* The runner runs unconfined what it confines: one the environment
	 * named must have passed its checks, and none a sandbox of this
	 * policy could rewrite (the private /tmp is not the host's). */
	if (strcmp(path, cordon_runner_path()) == 0) {
		char why[1024];

		if (runner_refused(why, sizeof(why)) < 0)
			return error_set(reterr, CORDON_SANDBOX_UNAVAILABLE, "%s; nothing was run", why);
		if (runner_from_env())
			STRV_FOREACH(root, p->writable_roots)
				if ((light || strcmp(*root, "/tmp") != 0) && path_is_under(path, *root))
					return error_set(reterr, CORDON_SANDBOX_UNAVAILABLE,
							 "CORDON_RUNNER=%s is refused: it is inside the writable root %s, "
							 "so the sandbox could rewrite what the host runs later; nothing was run",
							 path, *root);
	}

	strvb_add_many(&sb, path, "exec", "--status-fd", PROVIDER_STATUS_FD_STR, "--isolation",
		       light ? "light" : "full", "--net", cordon_net_to_string(p->net), NULL);
	policy_net_add_flags(&sb, p);
	STRV_FOREACH(root, p->writable_roots)
		strvb_add_many(&sb, "--write", *root, NULL);
	/* a private /tmp in every mode: the host's holds other programs' sockets */
	if (!light) {
		strvb_add(&sb, "--private-tmp");
		STRV_FOREACH(h, p->read_host)
			strvb_add_many(&sb, "--read-host", *h, NULL);
	}
	policy_home_add_flags(&sb, p, light);
	if (p->read_restricted) {
		STRV_FOREACH(root, p->read_roots)
			strvb_add_many(&sb, "--read", *root, NULL);
		for (const char *const *d = light ? policy_read_dev_light : policy_read_dev_full; *d; d++)
			strvb_add_many(&sb, "--read", *d, NULL);
	}
	if (p->exec_gate) {
		strvb_add(&sb, "--exec-gate");
		STRV_FOREACH(root, p->exec_roots)
			strvb_add_many(&sb, "--exec", *root, NULL);
	}
	STRV_FOREACH(d, p->deny_exec)
		strvb_add_many(&sb, "--deny-exec", *d, NULL);
	if (p->exec_from_fd)
		strvb_add_many(&sb, "--exec-fd", PROVIDER_EXEC_FD_STR, NULL);
	/* What does not exist yet is hidden too (by Landlock omission: a
	 * store created during the run stays unreadable), once per name. */
	r = add_deny_reads(&sb, p);
	if (r < 0) {
		strvb_done(&sb);
		return r;
	}
	if (!light && ws_write) {
		STRV_FOREACH(prot, p->protect)
			strvb_add_many(&sb, "--protect", *prot, NULL);
		add_protect_rules(&sb, p);
	}
	STRV_FOREACH(sock, p->allow_unix)
		strvb_add_many(&sb, "--allow-unix-socket", *sock, NULL);
	STRV_FOREACH(name, p->keep_env)
		strvb_add_many(&sb, "--keep-env", *name, NULL);
	STRV_FOREACH(e, p->env) {
		char name[257]; /* names are at most 256 bytes */

		if (env_needs_setenv(p, *e, name, sizeof(name)))
			strvb_add_many(&sb, "--setenv", name, NULL);
	}
	if (p->shim_path) {
		strvb_add_many(&sb, "--broker-fd", PROVIDER_BROKER_FD_STR, "--shim-path", p->shim_path, NULL);
		STRV_FOREACH(name, p->shims)
			strvb_add_many(&sb, "--shim", *name, NULL);
	}
	if (p->credentials)
		strvb_add_many(&sb, "--credentials-fd", PROVIDER_CREDENTIALS_FD_STR, NULL);
	for (unsigned bit = 1; bit & REQUIRE_ALL; bit <<= 1)
		if (p->required & bit)
			strvb_add_many(&sb, "--require", require_feature_to_string(bit), NULL);
	strvb_add(&sb, "--");
	strvb_add_strv(&sb, argv);
	v = strvb_finish(&sb, &r);
	if (!v)
		return r;

	/* Light isolation gives up the namespaces and what they carry: never full. */
	r = confined_fill(c, &v, native_denials, native_fatals, NULL, CORDON_ENFORCEMENT_NATIVE,
			  light ? CORDON_GRADE_PARTIAL : b->grade);
	if (r < 0)
		return r;
	if (p->exec_from_fd)
		c->exec_fd = PROVIDER_EXEC_FD;
	r = confined_set_channel(c, p->env, PROVIDER_STATUS_FD, CORDON_STATUS_CORDON);
	if (r >= 0 && p->shim_path)
		c->broker_fd = PROVIDER_BROKER_FD;
	if (r >= 0 && p->credentials)
		c->credentials_fd = PROVIDER_CREDENTIALS_FD;
	return r;
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
	if (runner_check(rep->reason, sizeof(rep->reason)) < 0)
		return 0;
	if (cordon_landlock_abi() < 1) {
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
		runner, "exec", "--status-fd", PROVIDER_STATUS_FD_STR, "--report", "--isolation", "full",
		"--net", "none", "--", "/bin/sh", "-c", script, "sh", outside, NULL,
	};
	const struct spawn_opts so = {
		.argv = argv,
		/* from /, not the caller's directory: a probe judges the kernel and
		 * the runner, and a caller below the private /tmp would make the
		 * runner refuse its chdir and the probe call native unusable */
		.cwd = "/",
		.timeout_ms = timeout_ms,
		.cap = 8192,
		.capture_stdout = true,
		.capture_stderr = true,
		.own_group = true,
		.status_fd = PROVIDER_STATUS_FD,
	};
	r = spawn_run(&so, &res);
	(void)path_remove(outside, 0); /* by the parent's fd: never through a symlink */
	if (r < 0) {
		snprintf(rep->reason, sizeof(rep->reason), "cannot start %s: %s", runner, strerror(-r));
		return 0;
	}

	line = strstr(res.output, "cordon-report: ");
	if (res.timed_out)
		snprintf(rep->reason, sizeof(rep->reason), "the probe timed out after %d ms", timeout_ms);
	else if (res.status_len > 0) {
		/* the runner's own record: "STEP\tERRNO\tMESSAGE" */
		const char *msg = res.status;

		for (int field = 0; field < 2 && strchr(msg, '\t'); field++)
			msg = strchr(msg, '\t') + 1;
		snprintf(rep->reason, sizeof(rep->reason), "the runner failed (exit %d): %.*s", res.exit_code,
			 (int)strcspn(msg, "\n"), msg);
	} else if (res.exit_code == 4)
		snprintf(rep->reason, sizeof(rep->reason), "the probe could write outside the sandbox");
	else if (res.exit_code == 3)
		snprintf(rep->reason, sizeof(rep->reason), "the probe could not write /dev/null");
	else if (res.exit_code != 0 || !line) {
		const char *first = res.output;

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
	free(res.status);
	rep->duration_us = now_usec() - start;
	return 0;
}

const struct provider provider_native = {
	.backend = CORDON_BACKEND_NATIVE,
	.confine = native_confine,
	.probe = native_probe,
};
