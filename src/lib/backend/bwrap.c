/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The bubblewrap provider: the system read-only, a private size-capped /tmp
 * and an empty /run in every mode, writable roots bound back in, the
 * persistence paths the policy protects kept read-only (their ancestors
 * pinned so they cannot be renamed away), credential stores hidden, no
 * network, a scrubbed environment (bwrap's own, c->envp: never in its argv).
 * Inside bwrap's namespaces cordon's own
 * runner runs in light isolation and applies what bwrap cannot: Landlock
 * (write fence, TCP), the seccomp filter (keyrings, ptrace, ... refused),
 * no capabilities, no_new_privs:
 *
 *   bwrap [mounts...] -- RUNNER exec --isolation light --net none|host
 *         [--write ROOT]... [--keep-env NAME]... [--require F]... -- argv
 *
 * Where the runner cannot nest (not installed, no Landlock) bwrap runs
 * alone and the backend info says so (CORDON_LACKS_RUNNER): a policy that
 * requires Landlock or seccomp is refused. bwrap's grade is always partial:
 * cordon_backend_gaps() names what it does not enforce. Its argv is exact
 * so it can be reviewed and tested.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "error.h"
#include "path.h"
#include "pathfd.h"
#include "probe.h"
#include "process.h"
#include "provider.h"
#include "runner_path.h"
#include "strv.h"

static const char *const bwrap_denials[] = {
	"read-only file system",
	"permission denied",
	"operation not permitted",
	/* rename or rmdir of a pinned or protected mount point */
	"device or resource busy",
	NULL,
};

static const char *const bwrap_fatals[] = {
	"bwrap: ",
	NULL,
};

/* With the runner nested, its own setup failures too. */
static const char *const bwrap_nested_fatals[] = {
	"bwrap: ",
	"cordon: ",
	NULL,
};

/* The private /tmp is memory: cap it (bwrap >= 0.5 has --size). /run only
 * needs to exist. */
#define BWRAP_TMP_SIZE "1073741824"
#define BWRAP_RUN_SIZE "1048576"

/* What the nested runner enforces for the policy; bwrap gives the
 * namespaces itself. */
#define RUNNER_FEATURES (REQUIRE_LANDLOCK | REQUIRE_LANDLOCK_NET | REQUIRE_LANDLOCK_SCOPE | REQUIRE_SECCOMP)

static bool bwrap_nests(const struct cordon_backend_info *b)
{
	return !(b->lacks & CORDON_LACKS_RUNNER);
}

/* The fixed part of the command line. Without namespaces (a host that
 * cannot give them) the fresh /dev, /proc and pid namespace go together. */
static void bwrap_base(struct strv_builder *sb, const char *path, bool namespaces, bool as_root)
{
	strvb_add_many(sb, path, "--ro-bind", "/", "/", NULL);
	if (namespaces)
		strvb_add_many(sb, "--dev", "/dev", "--proc", "/proc", "--unshare-pid", NULL);
	strvb_add_many(sb, "--die-with-parent", "--new-session", NULL);
	/* A root caller would otherwise keep CAP_SYS_ADMIN inside and could
	 * remount / read-write. */
	if (as_root)
		strvb_add_many(sb, "--unshare-user", "--cap-drop", "ALL", NULL);
	/* A private, discarded /tmp in every mode (read-only too: it is not
	 * the host's), and an empty /run: the host's sockets live there. */
	strvb_add_many(sb, "--size", BWRAP_TMP_SIZE, "--tmpfs", "/tmp", "--size", BWRAP_RUN_SIZE, "--tmpfs", "/run",
		       NULL);
}

/* cordon's runner, when bwrap's own /tmp, /run or /dev would hide it (a
 * build or install below them): bound back, read-only, onto its path, or
 * bwrap's execvp finds nothing there. */
static void bwrap_keep_runner(struct strv_builder *sb, const char *runner)
{
	static const char *const hidden[] = { "/tmp", "/run", "/dev", NULL };

	if (runner && runner[0] == '/' && path_under_any(runner, hidden))
		strvb_add_many(sb, "--ro-bind", runner, runner, NULL);
}

/* path[0..len) equals dir or lies below it; both absolute and normal. */
static bool under_n(const char *path, size_t len, const char *dir, size_t n)
{
	if (n == 1)
		return true;
	return len >= n && memcmp(path, dir, n) == 0 && (len == n || path[n] == '/');
}

/* Below (or, unless strictly, at) a writable root bwrap binds from the
 * host. The private /tmp is not one: what lies there is not the host's. */
static bool under_host_root(const struct cordon_policy *p, const char *path, size_t len, bool strictly)
{
	STRV_FOREACH(root, p->writable_roots) {
		size_t n = strlen(*root);

		if (strcmp(*root, "/tmp") != 0 && under_n(path, len, *root, n) && (!strictly || len > n))
			return true;
	}
	return false;
}

struct mark {
	const char *path;
	size_t len;
	bool protect; /* else a pin */
	bool emitted;
};

/* Below a read-only bind emitted before m[i] (sorted: ancestors first). */
static bool below_read_only(const struct mark *m, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (m[j].emitted && m[j].protect && m[i].len > m[j].len &&
		    under_n(m[i].path, m[i].len, m[j].path, m[j].len))
			return true;
	return false;
}

static int mark_cmp(const void *a, const void *b)
{
	const struct mark *x = a, *y = b;
	int c = memcmp(x->path, y->path, x->len < y->len ? x->len : y->len);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return (int)x->protect - (int)y->protect; /* pin first, then dropped */
}

/* A file on the way to a protected path (a worktree's .git, which names
 * the git directory) is kept read-only, not just pinned: its content
 * chooses which hooks and config git runs. */
static bool is_protect_file(const struct cordon_policy *p, const char *path, size_t len)
{
	STRV_FOREACH(f, p->protect_files)
		if (strlen(*f) == len && memcmp(*f, path, len) == 0)
			return true;
	return false;
}

/* Below a file (a worktree's or submodule's .git is one): bwrap would stop
 * on ENOTDIR, and nothing can be made there while the file is pinned. */
static bool below_a_file(const struct cordon_policy *p, const struct mark *m)
{
	STRV_FOREACH(f, p->protect_files) {
		size_t n = strlen(*f);

		if (m->len > n && under_n(m->path, m->len, *f, n))
			return true;
	}
	return false;
}

/* At or below a symlink the policy noted: a bind would keep its target
 * read-only, while the link itself could be replaced. */
static const char *at_a_link(const struct cordon_policy *p, const struct mark *m)
{
	STRV_FOREACH(l, p->protect_links)
		if (under_n(m->path, m->len, *l, strlen(*l)))
			return *l;
	return NULL;
}

/* The persistence paths the policy protects, read-only where they exist
 * (bwrap cannot stub a missing one without creating it on the host: a
 * named gap). Each ancestor below a writable root is pinned first, bound
 * onto itself, because a mount point cannot be renamed (EBUSY): `mv .git
 * .g; mkdir -p .git/hooks` fails. Sorted, so an ancestor comes before what
 * lies below it; nothing is bound below a read-only bind (it is read-only
 * already, and a pin there would be writable). A prefix pattern
 * (".cordon*") covers the entries the policy listed when it was built
 * (confine may not list a directory): one made later is the same gap. */
static int add_protections(struct strv_builder *sb, const struct cordon_policy *p, struct cordon_error *reterr)
{
	_cleanup_free_ struct mark *m = NULL;
	size_t n = 0, max = 1;

	char **const lists[] = { p->protect, p->protect_expanded };

	for (size_t l = 0; l < 2; l++)
		STRV_FOREACH(prot, lists[l])
			for (const char *c = *prot; *c; c++)
				max += *c == '/';
	m = calloc(max, sizeof(*m));
	if (!m)
		return -ENOMEM;

	for (size_t l = 0; l < 2; l++)
		STRV_FOREACH(prot, lists[l]) {
			const char *path = *prot;
			size_t len = strlen(path);

			/* a pattern: its entries come from protect_expanded */
			if (len == 0 || path[len - 1] == '*' || !under_host_root(p, path, len, false))
				continue;
			for (size_t k = 1; k < len; k++)
				if (path[k] == '/' && under_host_root(p, path, k, true))
					m[n++] = (struct mark){ .path = path, .len = k,
								.protect = is_protect_file(p, path, k) };
			m[n++] = (struct mark){ .path = path, .len = len, .protect = true };
		}
	qsort(m, n, sizeof(*m), mark_cmp);

	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *path = NULL;
		const char *link;

		if (i + 1 < n && m[i].len == m[i + 1].len && memcmp(m[i].path, m[i + 1].path, m[i].len) == 0)
			continue; /* a duplicate, or a pin the protection after it covers */
		if (below_read_only(m, i) || below_a_file(p, &m[i]))
			continue;
		link = at_a_link(p, &m[i]);
		if (link)
			return error_set(reterr, -EOPNOTSUPP,
					 "the bwrap backend cannot keep %s read-only: it is a symlink (a bind would "
					 "protect its target, not the link): use the native backend", link);
		path = strndup(m[i].path, m[i].len);
		if (!path)
			return -ENOMEM;
		strvb_add_many(sb, m[i].protect ? "--ro-bind-try" : "--bind-try", path, path, NULL);
		m[i].emitted = true;
	}
	return 0;
}

static bool matches_any(const char *const *patterns, const char *name)
{
	for (size_t i = 0; patterns && patterns[i]; i++)
		if (env_name_matches(patterns[i], name))
			return true;
	return false;
}

/* cordon's runner in light isolation, inside bwrap's namespaces. It
 * rebuilds the environment from the one bwrap gives it, keeping the
 * built-in allow-list and --keep-env names: every name the policy passes
 * is kept by name, so no value appears here. */
static int add_runner(struct strv_builder *sb, const struct cordon_backend_info *b, const struct cordon_policy *p)
{
	/* its own failures go on the next fd, into the status pipe: never
	 * read from what the command prints */
	strvb_add_many(sb, cordon_runner_path(), "exec", "--status-fd", PROVIDER_STATUS_FD2_STR, "--isolation", "light", "--net",
		       p->net == CORDON_NET_NONE ? "none" : "host", NULL);
	STRV_FOREACH(root, p->writable_roots)
		strvb_add_many(sb, "--write", *root, NULL);
	/* bwrap's /dev/shm is private (in its /dev tmpfs): writable where the
	 * native runner's private /dev/shm is */
	if (p->mode == CORDON_MODE_WORKSPACE_WRITE && !(b->lacks & CORDON_LACKS_NAMESPACES))
		strvb_add_many(sb, "--write", "/dev/shm", NULL);
	STRV_FOREACH(name, p->keep_env)
		strvb_add_many(sb, "--keep-env", *name, NULL);
	STRV_FOREACH(e, p->env) {
		size_t nl = strcspn(*e, "=");
		char name[257];

		if (nl == 0 || nl >= sizeof(name))
			return -EINVAL;
		memcpy(name, *e, nl);
		name[nl] = '\0';
		if (!matches_any(policy_default_env, name) && !matches_any((const char *const *)p->keep_env, name))
			strvb_add_many(sb, "--keep-env", name, NULL);
	}
	for (unsigned bit = 1; bit & REQUIRE_ALL; bit <<= 1)
		if (p->required & bit & RUNNER_FEATURES)
			strvb_add_many(sb, "--require", require_feature_to_string(bit), NULL);
	strvb_add(sb, "--");
	return 0;
}

CORDON_API size_t cordon_backend_gaps(const struct cordon_backend_info *b, char *buf, size_t n)
{
	int r;

	if (!b || b->backend != CORDON_BACKEND_BWRAP) {
		if (n)
			buf[0] = '\0';
		return 0;
	}
	r = snprintf(buf, n, "%s%s%s",
		     b->lacks & CORDON_LACKS_RUNNER
		     ? "no Landlock and no seccomp (cordon's runner does not nest: keyrings, ptrace and the "
		       "other refused syscalls are open); " : "",
		     b->lacks & CORDON_LACKS_NAMESPACES ? "no fresh /dev, /proc or pid namespace; " : "",
		     "host unix sockets outside /run are reachable; persistence paths that do not exist yet "
		     "(for .cordon*: when the policy was built) are not protected, nor below the top of the "
		     "workspace (nested repositories, pkg/.vscode), nor after the host replaces one by rename "
		     "(no write gate)");
	return r < 0 ? 0 : (size_t)r;
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
	/* without the notes the protected paths' files, links and patterns
	 * would go unseen (a launch for the native runner skips them) */
	if (p->protect_notes_deferred)
		return error_set(reterr, -EINVAL,
				 "this policy was built for the native runner (its launch's backend): bwrap cannot run it");
	/* a runner the caller named and cordon refused: never run without it */
	{
		char why[1024];

		if (runner_refused(why, sizeof(why)) < 0)
			return error_set(reterr, CORDON_SANDBOX_UNAVAILABLE, "%s; nothing was run", why);
	}
	if (p->net == CORDON_NET_PROXY)
		return error_set(reterr, -EOPNOTSUPP, "network 'proxy' needs the native runner: the bwrap backend has no proxy");
	if (p->net == CORDON_NET_ALLOW)
		return error_set(reterr, -EOPNOTSUPP,
				 "network 'allow' needs the native runner: its init hands connections over through a "
				 "seccomp gate and a network namespace that bwrap does not give");
	/* bwrap has no Landlock of its own, and its nested runner is light
	 * (no unix-socket gate) and cannot take an fd through bwrap */
	if (*policy_needs_native(p))
		return error_set(reterr, -EOPNOTSUPP,
				 "%s needs the native runner: the bwrap backend cannot enforce it (use --backend native)",
				 policy_needs_native(p));
	if ((p->required & RUNNER_FEATURES) && !bwrap_nests(b))
		return error_set(reterr, -EOPNOTSUPP,
				 "the bwrap backend applies Landlock and seccomp only through cordon's runner, which "
				 "does not nest here (%s), and this policy requires them: install the runner or use "
				 "the native backend", cordon_runner_path());
	if ((p->required & REQUIRE_PIDNS) && (b->lacks & CORDON_LACKS_NAMESPACES))
		return error_set(reterr, -EOPNOTSUPP, "bwrap gives no pid namespace here, which this policy requires");
	if ((p->required & REQUIRE_NETNS) && p->net != CORDON_NET_NONE)
		return error_set(reterr, -EOPNOTSUPP, "a network namespace is required but the network is 'host'");

	bwrap_base(&sb, path, !(b->lacks & CORDON_LACKS_NAMESPACES), p->caller_is_root);
	/* host paths below the private /tmp the caller asked for, read-only,
	 * before the roots bound below them */
	STRV_FOREACH(h, p->read_host)
		strvb_add_many(&sb, "--ro-bind-try", *h, *h, NULL);
	if (p->net == CORDON_NET_NONE)
		strvb_add(&sb, "--unshare-net");

	/* read-only: a workspace below /tmp is bound back in, read-only, or
	 * the private /tmp would hide it */
	if (p->mode == CORDON_MODE_READ_ONLY && p->workspace &&
	    under_n(p->workspace, strlen(p->workspace), "/tmp", 4) && strcmp(p->workspace, "/tmp") != 0)
		strvb_add_many(&sb, "--ro-bind-try", p->workspace, p->workspace, NULL);
	if (p->mode == CORDON_MODE_WORKSPACE_WRITE) {
		STRV_FOREACH(root, p->writable_roots)
			if (strcmp(*root, "/tmp") != 0) /* /tmp: the private tmpfs */
				strvb_add_many(&sb, "--bind", *root, *root, NULL);
		r = add_protections(&sb, p, reterr);
		if (r < 0) {
			strvb_done(&sb);
			return r;
		}
	}

	/* Hide credential stores after the binds, so they win even inside a
	 * writable root. An empty, read-only, mode-0000 directory: reads fail
	 * with EACCES (a classifiable denial), not a silent ENOENT. */
	for (size_t i = 0; i < p->n_deny; i++) {
		const struct deny_entry *d = &p->deny[i];

		/* below /run: gone already, in the empty tmpfs */
		if (!deny_entry_applies(p, d) || under_n(d->path, strlen(d->path), "/run", 4))
			continue;
		if (d->is_dir)
			strvb_add_many(&sb, "--perms", "0000", "--tmpfs", d->path, "--remount-ro", d->path, NULL);
		else
			strvb_add_many(&sb, "--ro-bind", "/dev/null", d->path, NULL);
	}

	/* No --setenv: bwrap passes on the environment it is started with,
	 * c->envp (exactly the policy's), so no value is in its command line.
	 * Its status records say whether it got as far as the command. */
	if (bwrap_nests(b))
		bwrap_keep_runner(&sb, cordon_runner_path());
	strvb_add_many(&sb, "--json-status-fd", PROVIDER_STATUS_FD_STR, "--", NULL);
	if (bwrap_nests(b)) {
		r = add_runner(&sb, b, p);
		if (r < 0) {
			strvb_done(&sb);
			return error_set(reterr, r, "the environment cannot be passed to cordon's runner");
		}
	}
	strvb_add_strv(&sb, argv);
	v = strvb_finish(&sb, &r);
	if (!v)
		return r;
	/* partial whatever the info says: cordon_backend_gaps() names why */
	r = confined_fill(c, &v, bwrap_denials, bwrap_nests(b) ? bwrap_nested_fatals : bwrap_fatals, NULL,
			  CORDON_ENFORCEMENT_BWRAP, CORDON_GRADE_PARTIAL);
	if (r < 0)
		return r;
	return confined_set_channel(c, p->env, PROVIDER_STATUS_FD,
				    bwrap_nests(b) ? CORDON_STATUS_BWRAP_NESTED : CORDON_STATUS_BWRAP_JSON);
}

/* The probe script: writing /dev/null must work and writing outside must be
 * refused (a file on the read-only root: /tmp is private inside). Exit 3
 * and 4 say which half failed. With the runner nested, its report must say
 * that Landlock and seccomp are on. */
static int bwrap_try(const char *path, bool namespaces, const char *runner, int timeout_ms, char *why, size_t n)
{
	_cleanup_strv_free_ char **v = NULL;
	_cleanup_free_ char *outside = NULL, *script = NULL;
	const char *what = runner ? "with cordon's runner" : "alone";
	const char *level = namespaces ? "namespaced" : "without namespaces";
	struct strv_builder sb = {};
	struct spawn_result res = {};
	bool usable = false, wrote;
	int r;

	if (asprintf(&outside, "/var/tmp/.cordon-probe-%d", (int)getpid()) < 0)
		return -ENOMEM;
	if (asprintf(&script, PROVIDER_PROBE_SCRIPT, outside) < 0)
		return -ENOMEM;
	bwrap_base(&sb, path, namespaces, geteuid() == 0);
	bwrap_keep_runner(&sb, runner);
	strvb_add_many(&sb, "--unshare-net", "--", NULL);
	if (runner)
		strvb_add_many(&sb, runner, "exec", "--report", "--isolation", "light", "--net", "none", "--", NULL);
	strvb_add_many(&sb, "/bin/sh", "-c", script, NULL);
	v = strvb_finish(&sb, &r);
	if (!v)
		return r;

	r = spawn_capture((const char *const *)v, NULL, timeout_ms, 8192, &res);
	if (r < 0) {
		snprintf(why, n, "cannot start %s: %s", path, strerror(-r));
		return 0;
	}
	wrote = access(outside, F_OK) == 0;
	(void)path_remove(outside, 0); /* by the parent's fd: never through a symlink */
	if (res.timed_out)
		snprintf(why, n, "%s probe %s timed out after %d ms", level, what, timeout_ms);
	else if (res.exit_code == 4 || wrote)
		snprintf(why, n, "%s probe %s could write outside the sandbox", level, what);
	else if (res.exit_code == 0 && strstr(res.output, PROVIDER_PROBE_OK) &&
		 (!runner || (strstr(res.output, "landlock-fs=yes") && strstr(res.output, " seccomp=yes"))))
		usable = true; /* positive evidence that the script ran inside */
	else {
		const char *first = strstr(res.output, "cordon: ") ?: strstr(res.output, "bwrap: ") ?: res.output;

		snprintf(why, n, "%s probe %s failed (exit %d): %.*s", level, what, res.exit_code,
			 (int)strcspn(first, "\n"), first);
	}
	free(res.output);
	return usable;
}

/* Can cordon's runner nest here at all? (Its write fence is Landlock: it
 * refuses to run without it.) */
static bool runner_may_nest(const char *runner, char *why, size_t n)
{
	if (strcmp(runner, cordon_runner_path()) == 0 ? runner_check(why, n) < 0 : access(runner, X_OK) < 0) {
		if (strcmp(runner, cordon_runner_path()) != 0)
			snprintf(why, n, "the runner %s is not executable: %s", runner, strerror(errno));
		return false;
	}
	if (cordon_landlock_abi() < 1) {
		snprintf(why, n, "the runner needs Landlock, which this kernel lacks");
		return false;
	}
	return true;
}

static void reason_add(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void reason_add(char *buf, size_t n, const char *fmt, ...)
{
	size_t len = strnlen(buf, n);
	va_list ap;

	if (len + 1 >= n)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(buf + len, n - len, fmt, ap);
	va_end(ap);
}

/* Namespaced first, then without; at each level with the runner nested,
 * then alone. The first that works wins, and the report names what it
 * lacks (the grade is always partial: see cordon_backend_gaps). */
static int bwrap_probe(int timeout_ms, struct cordon_probe_report *rep)
{
	_cleanup_free_ char *path = NULL;
	char runner_why[200] = "", ns_why[200] = "", why[200], gaps[sizeof(rep->reason)];
	const char *runner = cordon_runner_path();
	uint64_t start = now_usec();
	struct stat st;
	bool nest;
	int r;

	r = find_executable("bwrap", &path);
	if (r < 0) {
		snprintf(rep->reason, sizeof(rep->reason),
			 "bwrap not found on PATH (install it: apt-get install bubblewrap)");
		return 0;
	}
	snprintf(rep->path, sizeof(rep->path), "%s", path);
	nest = runner_may_nest(runner, runner_why, sizeof(runner_why));

	for (int level = 0; level < 2 && !rep->usable; level++) {
		bool namespaces = level == 0;

		for (int alone = !nest; alone < 2; alone++) {
			r = bwrap_try(path, namespaces, alone ? NULL : runner, timeout_ms, why, sizeof(why));
			if (r < 0)
				return r;
			if (r > 0) {
				rep->usable = true;
				rep->grade = CORDON_GRADE_PARTIAL;
				rep->lacks = (alone ? CORDON_LACKS_RUNNER : 0) | (namespaces ? 0 : CORDON_LACKS_NAMESPACES);
				break;
			}
			snprintf(alone ? ns_why : runner_why, sizeof(ns_why), "%s", why);
		}
	}
	if (!rep->usable) {
		snprintf(rep->reason, sizeof(rep->reason), "%s", ns_why);
		goto done;
	}

	{
		struct cordon_backend_info b = { .backend = CORDON_BACKEND_BWRAP, .lacks = rep->lacks };

		(void)cordon_backend_gaps(&b, gaps, sizeof(gaps));
	}
	snprintf(rep->reason, sizeof(rep->reason), "%s", gaps);
	if (rep->lacks & CORDON_LACKS_RUNNER)
		reason_add(rep->reason, sizeof(rep->reason), "; runner: %s", runner_why);
	if (rep->lacks & CORDON_LACKS_NAMESPACES)
		reason_add(rep->reason, sizeof(rep->reason), "; namespaces: %s", ns_why);
	/* bwrap resolves a /var/run symlink outside the new root, so only
	 * /run is emptied: fine where /var/run is the usual symlink to it. */
	if (lstat("/var/run", &st) == 0 && S_ISDIR(st.st_mode))
		reason_add(rep->reason, sizeof(rep->reason), "; /var/run is a directory here and stays visible");
done:
	rep->duration_us = now_usec() - start;
	return 0;
}

/* For a pinned or cached bwrap, which is not probed: the runner nests
 * when it could (if it then fails inside, the run fails closed). */
unsigned bwrap_lacks_unprobed(void)
{
	char why[200];

	return runner_may_nest(cordon_runner_path(), why, sizeof(why)) ? 0 : CORDON_LACKS_RUNNER;
}

const struct provider provider_bwrap = {
	.backend = CORDON_BACKEND_BWRAP,
	.confine = bwrap_confine,
	.probe = bwrap_probe,
};
