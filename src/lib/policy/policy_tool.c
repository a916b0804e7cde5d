/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a tool's own sandbox is built from: restricted reads (only the
 * system's baseline and what is granted can be read), the execute-only
 * gate (only what is granted can be executed), deny-exec (never
 * executable, though readable), running the command from an fd the caller
 * opened, and the tool policy that starts with all of it on and nothing
 * writable. Canonicalised here, once; the native provider spells it out as
 * the runner's --read, --exec, --deny-exec and --exec-fd (bwrap and light
 * isolation refuse: provider.c's callers say why).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cordon/cordon.h"
#include "canon.h"
#include "cleanup.h"
#include "error.h"
#include "policy.h"
#include "strv.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_policy *, cordon_policy_free)

/*
 * The read baseline: what a dynamically linked program needs to start and
 * do ordinary work, and no user's data.
 *   /usr              programs, libraries, the loader, locales, terminfo,
 *                     zoneinfo, CA certificates (/usr/local too);
 *   /etc              ld.so.cache, passwd and group, nsswitch, hosts,
 *                     resolv.conf, TLS trust, the system gitconfig (the
 *                     read-deny catalogue still hides /etc/shadow and the
 *                     host keys from a root caller; the rest is root-only
 *                     by its modes);
 *   /bin /sbin /lib*  the same, where /usr is not merged (canonicalised:
 *                     below /usr they add nothing);
 *   /proc             the sandbox's own (a fresh one in full isolation);
 *   /sys/devices/system/cpu   the CPU count (glibc's get_nprocs);
 *   /tmp /run /var/run        private in full isolation;
 *   /dev              full isolation: the sandbox's own minimal /dev; light:
 *                     only null, zero, full, random, urandom and tty (the
 *                     host's /dev holds the user's other terminals), added
 *                     by the provider as the isolation says.
 * Not in it: HOME (every store of the user's; a tool gets its own files by
 * grant), /var (databases, mail, spools, backups of /etc/shadow), /opt,
 * /srv, /mnt, /media, /home, /root, /boot and the rest of /sys. A program
 * installed outside /usr is granted with its closure by whoever launches
 * it.
 */
static const char *const read_baseline[] = {
	"/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/proc", "/sys/devices/system/cpu", "/tmp", "/run", "/var/run", NULL,
};

const char *const policy_library_dirs[] = {
	"/usr/lib", "/usr/lib32", "/usr/lib64", "/usr/libx32", "/usr/local/lib",
	"/lib", "/lib32", "/lib64", "/libx32", NULL,
};

const char *const policy_read_dev_full[] = { "/dev", NULL };
const char *const policy_read_dev_light[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", NULL,
};

static bool under_any(const char *path, char *const *roots)
{
	STRV_FOREACH(r, roots)
		if (path_is_under(path, *r))
			return true;
	return false;
}

int policy_restrict_reads(struct cordon_policy *p, struct cordon_error *reterr)
{
	struct stat st;
	int r;

	if (p->read_restricted)
		return 0;
	for (size_t i = 0; read_baseline[i]; i++) {
		_cleanup_free_ char *canon = NULL;

		/* absent here (no /lib32), or outside our reach: nothing to grant */
		if (cordon_canonicalize(read_baseline[i], &canon, NULL) < 0 || lstat(canon, &st) < 0 ||
		    under_any(canon, p->read_roots))
			continue;
		r = strv_push_unique(&p->read_roots, canon);
		if (r < 0)
			return error_set(reterr, r, "out of memory");
	}
	p->read_restricted = true;
	return 0;
}

/* The mode the tool sandbox's features make sense in. */
static int check_confined(const struct cordon_policy *p, const char *what, struct cordon_error *reterr)
{
	if (p->mode == CORDON_MODE_DANGER_FULL_ACCESS)
		return error_set(reterr, -EINVAL,
				 "%s: danger-full-access runs the command unconfined, by name, with nothing to enforce it",
				 what);
	return 0;
}

/* path canonical in *ret, and whether it exists; "/" refused. */
static int canonical_grant(const struct cordon_policy *p, const char *what, const char *path, char **ret,
			   bool *ret_exists, struct cordon_error *reterr)
{
	_cleanup_free_ char *canon = NULL;
	struct stat st;
	int r;

	if (!path || !*path)
		return error_set(reterr, -EINVAL, "%s: the path is empty", what);
	/* a grant never follows a link a sandbox could have made; a
	 * deny-exec through one only withholds more */
	r = p ? policy_canonicalize_grant(p, path, &canon, reterr) : cordon_canonicalize(path, &canon, reterr);
	if (r < 0)
		return r;
	if (strcmp(canon, "/") == 0)
		return error_set(reterr, -EINVAL, "%s: '/' is everything: that is the policy without it", what);
	if (stat(canon, &st) == 0)
		*ret_exists = true;
	else if (errno == ENOENT || errno == ENOTDIR)
		*ret_exists = false;
	else
		return error_set(reterr, -errno, "%s: cannot inspect '%s': %m", what, canon);
	*ret = TAKE_PTR(canon);
	return 0;
}

/* Strictly below the sandbox's private tmpfs dirs. */
static bool below_private_tmp(const char *canon)
{
	return (path_is_under(canon, "/tmp") > 0 && strcmp(canon, "/tmp") != 0) ||
	       (path_is_under(canon, "/dev/shm") > 0 && strcmp(canon, "/dev/shm") != 0);
}

CORDON_API int cordon_policy_read_host(struct cordon_policy *p, const char *path, struct cordon_error *reterr)
{
	_cleanup_free_ char *canon = NULL;
	bool exists;
	int r;

	if (!p)
		return error_set(reterr, -EINVAL, "no policy");
	if ((r = check_confined(p, "a host path below /tmp", reterr)) < 0 ||
	    (r = canonical_grant(p, "read", path, &canon, &exists, reterr)) < 0)
		return r;
	/* under the HOME allowlist a path there comes back the same way */
	if (!below_private_tmp(canon) && policy_home_hiding(p, canon))
		return cordon_policy_grant_home(p, canon, reterr);
	if (!below_private_tmp(canon))
		return error_set(reterr, -EINVAL,
				 "read: '%s' is not below /tmp or /dev/shm, where the sandbox's private tmpfs hides "
				 "the host's files (elsewhere the mode and the read-deny set decide what is readable)",
				 canon);
	for (size_t i = 0; i < p->n_deny; i++)
		if (path_is_under(canon, p->deny[i].path) > 0)
			return error_set(reterr, -EPERM, "'%s' is hidden by the read-deny entry '%s', and deny always wins",
					 canon, p->deny[i].path);
	if (strv_length(p->read_host) >= POLICY_MAX_ENTRIES)
		return error_set(reterr, -E2BIG, "too many host paths below /tmp (at most %d)", POLICY_MAX_ENTRIES);
	if (!p->read_host && !(p->read_host = calloc(1, sizeof(char *))))
		return -ENOMEM;
	return strv_push_unique(&p->read_host, canon);
}

CORDON_API int cordon_policy_restrict_read(struct cordon_policy *p, const char *path, struct cordon_error *reterr)
{
	_cleanup_free_ char *canon = NULL;
	bool exists;
	int r;

	if ((r = check_confined(p, "restricted reads", reterr)) < 0 ||
	    (r = canonical_grant(p, "read", path, &canon, &exists, reterr)) < 0)
		return r;
	if (strv_length(p->read_roots) + strv_length(p->read_missing) >= POLICY_MAX_ENTRIES)
		return error_set(reterr, -E2BIG, "too many readable paths (at most %d)", POLICY_MAX_ENTRIES);
	r = policy_restrict_reads(p, reterr);
	if (r < 0)
		return r;
	if (!exists)
		return strv_push_unique(&p->read_missing, canon);
	if ((r = policy_home_cover(p, canon, reterr)) < 0)
		return r;
	r = policy_lift_deny(p, canon, reterr);
	if (r < 0)
		return r;
	/* the host's file, not the private tmpfs's */
	if (below_private_tmp(canon) && (r = cordon_policy_read_host(p, canon, reterr)) < 0)
		return r;
	/* a grant inside the baseline adds nothing Landlock would not give */
	return under_any(canon, p->read_roots) ? 0 : strv_push_unique(&p->read_roots, canon);
}

CORDON_API int cordon_policy_allow_exec(struct cordon_policy *p, const char *path, struct cordon_error *reterr)
{
	_cleanup_free_ char *canon = NULL;
	bool exists;
	int r;

	if ((r = check_confined(p, "the execute-only gate", reterr)) < 0 ||
	    (r = canonical_grant(p, "exec", path, &canon, &exists, reterr)) < 0)
		return r;
	/* what is executed is read: a grant cannot reach into a hidden store */
	if ((r = policy_home_cover(p, canon, reterr)) < 0)
		return r;
	for (size_t i = 0; i < p->n_deny; i++)
		if (path_is_under(canon, p->deny[i].path))
			return error_set(reterr, -EPERM, "'%s' is hidden by the read-deny entry '%s', and deny always wins",
					 canon, p->deny[i].path);
	if (strv_length(p->exec_roots) + strv_length(p->exec_missing) >= POLICY_MAX_ENTRIES)
		return error_set(reterr, -E2BIG, "too many executable paths (at most %d)", POLICY_MAX_ENTRIES);
	p->exec_gate = true;
	return strv_push_unique(exists ? &p->exec_roots : &p->exec_missing, canon);
}

CORDON_API int cordon_policy_deny_exec(struct cordon_policy *p, const char *path, struct cordon_error *reterr)
{
	_cleanup_free_ char *canon = NULL, *absent_at = NULL;
	bool exists;
	int r;

	if ((r = check_confined(p, "deny-exec", reterr)) < 0 ||
	    (r = canonical_grant(NULL, "deny-exec", path, &canon, &exists, reterr)) < 0)
		return r;
	if (strv_length(p->deny_exec) >= POLICY_MAX_ENTRIES)
		return error_set(reterr, -E2BIG, "too many deny-exec paths (at most %d)", POLICY_MAX_ENTRIES);
	if (exists)
		return strv_push_unique(&p->deny_exec, canon);
	/* Missing: its first missing component is walked past, so neither it
	 * nor anything made there later can be executed. Below a file, or
	 * with nothing of it there, nothing can appear: nothing to deny. */
	absent_at = policy_first_absent(canon);
	return absent_at ? strv_push_unique(&p->deny_exec, absent_at) : 0;
}

CORDON_API int cordon_policy_exec_from_fd(struct cordon_policy *p, bool on)
{
	if (on && p->mode == CORDON_MODE_DANGER_FULL_ACCESS)
		return -EINVAL;
	p->exec_from_fd = on;
	return 0;
}

CORDON_API int cordon_policy_new_tool(const char *workspace, struct cordon_policy **ret, struct cordon_error *reterr)
{
	_cleanup_(cordon_policy_freep) struct cordon_policy *p = NULL;
	const char *tmpdir = secure_getenv("TMPDIR");
	int r;

	if (!ret)
		return error_set(reterr, -EINVAL, "no place to return the policy");
	r = policy_new_internal(CORDON_MODE_WORKSPACE_WRITE, workspace, POLICY_NEW_TOOL, &p, reterr);
	if (r < 0)
		return r;
	r = policy_restrict_reads(p, reterr);
	if (r < 0)
		return r;
	p->exec_gate = true;
	/* $TMPDIR elsewhere is not writable here: the tool's temp dir is its
	 * private /tmp. */
	if (tmpdir && policy_temp_roots()[0] && policy_temp_roots()[1]) {
		r = cordon_policy_set_env(p, "TMPDIR", policy_temp_roots()[0], reterr);
		if (r < 0)
			return r;
	}
	*ret = TAKE_PTR(p);
	return 0;
}
