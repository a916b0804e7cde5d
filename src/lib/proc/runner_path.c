/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where cordon's own runner (`cordon exec`) is: set by the caller, else
 * $CORDON_RUNNER (checked: see env_runner_refusal), else where this library
 * was installed: the bin directory beside the library's own directory (a
 * destdir or relocated install), then the compiled-in install prefix. One
 * process-wide value under its own lock; each thread reads a copy of its
 * own. What was looked at, and why a runner is refused, is kept with it so
 * the probe and a refusal can name them.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "cordon/cordon.h"
#include "cleanup.h"
#include "process.h"
#include "runner_path.h"

#define HANDSHAKE_TIMEOUT_MS 2000

static char runner[PATH_MAX];
static char runner_how[PATH_MAX + 64]; /* how it was found, in words */
static char runner_refusal[PATH_MAX + 512];      /* why CORDON_RUNNER must not run; "" when it may */
static char runner_looked[2 * PATH_MAX + 256];       /* where it was looked for, when it was not found */
static pthread_mutex_t runner_lock = PTHREAD_MUTEX_INITIALIZER;

static void unlockp(pthread_mutex_t **m)
{
	if (*m)
		pthread_mutex_unlock(*m);
}

#define RUNNER_LOCKED                                                              \
	_cleanup_(unlockp) pthread_mutex_t *_held = (pthread_mutex_lock(&runner_lock), &runner_lock)

CORDON_API int cordon_set_runner_path(const char *path)
{
	if (!path || path[0] != '/' || strlen(path) >= sizeof(runner))
		return -EINVAL;
	RUNNER_LOCKED;
	snprintf(runner, sizeof(runner), "%s", path);
	snprintf(runner_how, sizeof(runner_how), "set by the caller");
	runner_refusal[0] = runner_looked[0] = '\0';
	return 0;
}

/* A runner named by the environment runs everything the library confines,
 * unconfined: only a file that no one but root or the caller can change,
 * that answers as this library's own version. */
static void env_runner_refusal(const char *path, char *why, size_t n, char *looked, size_t looked_n)
{
	const char *const argv[] = { path, "--version", NULL };
	struct spawn_result res = {};
	char want[64];
	struct stat st;
	int r;

	/* one that is not there runs nothing: the native backend is
	 * unusable, a pinned bwrap runs without it */
	if (stat(path, &st) < 0) {
		snprintf(errno == ENOENT ? looked : why, errno == ENOENT ? looked_n : n,
			 "CORDON_RUNNER=%.900s: %s", path, strerror(errno));
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, n, "CORDON_RUNNER=%.900s is not a regular file", path);
		return;
	}
	if (st.st_uid != 0 && st.st_uid != getuid()) {
		snprintf(why, n, "CORDON_RUNNER=%.900s is refused: it is owned by uid %u, neither root nor the caller",
			 path, (unsigned)st.st_uid);
		return;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, n, "CORDON_RUNNER=%.900s is refused: it is writable by %s (mode %04o)", path,
			 st.st_mode & S_IWOTH ? "anyone" : "its group", (unsigned)(st.st_mode & 07777));
		return;
	}
	/* nor replaceable: its directory is ours or root's, and others may
	 * not rename in it (unless it is sticky: then only the file's owner) */
	{
		char dir[PATH_MAX];
		const char *slash = strrchr(path, '/');
		struct stat dst;

		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
		if (stat(dir, &dst) < 0 || (dst.st_uid != 0 && dst.st_uid != getuid()) ||
		    ((dst.st_mode & (S_IWGRP | S_IWOTH)) && !(dst.st_mode & S_ISVTX))) {
			snprintf(why, n, "CORDON_RUNNER=%.900s is refused: its directory %.900s is not the caller's "
				 "or root's, or others may replace the file in it", path, dir);
			return;
		}
	}
	/* the version handshake: the runner must be this library's */
	snprintf(want, sizeof(want), "cordon %s", CORDON_VERSION);
	r = spawn_capture(argv, NULL, HANDSHAKE_TIMEOUT_MS, 4096, &res);
	if (r < 0) {
		snprintf(why, n, "CORDON_RUNNER=%.900s is refused: cannot start it: %s", path, strerror(-r));
		return;
	}
	res.output[strcspn(res.output, "\n")] = '\0';
	if (res.exit_code != 0 || strcmp(res.output, want) != 0)
		snprintf(why, n, "CORDON_RUNNER=%.900s is refused: its --version said '%.200s' (exit %d), not '%s'",
			 path, res.output, res.exit_code, want);
	free(res.output);
	free(res.status);
}

/* The bin directory of the prefix this library sits in: CORDON_LIBDIR's
 * place relative to CORDON_BINDIR, applied to where the loader found us. */
static int beside_library(char *buf, size_t n)
{
	Dl_info dl;
	char self[PATH_MAX];
	const char *libdir = CORDON_LIBDIR, *bindir = CORDON_BINDIR;
	size_t common = 0, len;
	char *slash;

	if (!dladdr((void *)&beside_library, &dl) || !dl.dli_fname || dl.dli_fname[0] != '/' ||
	    !realpath(dl.dli_fname, self))
		return -ENOENT;
	slash = strrchr(self, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0'; /* the library's directory */
	/* the longest shared leading directory of libdir and bindir */
	for (size_t i = 0; libdir[i] && libdir[i] == bindir[i]; i++)
		if (libdir[i] == '/')
			common = i;
	/* self must end with libdir's tail below it */
	len = strlen(libdir + common);
	if (strlen(self) < len || strcmp(self + strlen(self) - len, libdir + common) != 0)
		return -ENOENT;
	self[strlen(self) - len] = '\0';
	if ((size_t)snprintf(buf, n, "%s%s/cordon", self, bindir + common) >= n)
		return -ENAMETOOLONG;
	return 0;
}

static void resolve_locked(void)
{
	const char *env = secure_getenv("CORDON_RUNNER");
	char beside[PATH_MAX];
	const char *installed = CORDON_BINDIR "/cordon";
	bool have_beside;

	runner_refusal[0] = runner_looked[0] = '\0';
	if (env && env[0]) {
		if (env[0] != '/' || strlen(env) >= sizeof(runner)) {
			snprintf(runner, sizeof(runner), "%s", installed);
			snprintf(runner_refusal, sizeof(runner_refusal),
				 "CORDON_RUNNER is refused: not an absolute path of at most %d bytes", PATH_MAX - 1);
		} else {
			char canon[PATH_MAX];

			/* canonical, so "inside a writable root" is decided on the real path */
			snprintf(runner, sizeof(runner), "%s", realpath(env, canon) ? canon : env);
			env_runner_refusal(runner, runner_refusal, sizeof(runner_refusal), runner_looked,
					   sizeof(runner_looked));
		}
		snprintf(runner_how, sizeof(runner_how), "from CORDON_RUNNER");
		return;
	}
	have_beside = beside_library(beside, sizeof(beside)) == 0 && strcmp(beside, installed) != 0;
	if (have_beside && access(beside, X_OK) == 0) {
		snprintf(runner, sizeof(runner), "%s", beside);
		snprintf(runner_how, sizeof(runner_how), "beside libcordon");
		return;
	}
	snprintf(runner, sizeof(runner), "%s", installed);
	if (access(installed, X_OK) == 0) {
		snprintf(runner_how, sizeof(runner_how), "the install prefix");
		return;
	}
	snprintf(runner_how, sizeof(runner_how), "not found");
	snprintf(runner_looked, sizeof(runner_looked),
		 "no runner found: looked for %s%s%s (the install prefix) and CORDON_RUNNER (unset)",
		 have_beside ? beside : "", have_beside ? " (beside libcordon), " : "", installed);
}

CORDON_API const char *cordon_runner_path(void)
{
	/* Each thread reads its own copy, so another thread's
	 * cordon_set_runner_path cannot change a string under it. */
	static _Thread_local char copy[PATH_MAX];
	RUNNER_LOCKED;

	if (!runner[0])
		resolve_locked();
	/* the string, not the whole buffer: this is asked once per deny entry */
	memcpy(copy, runner, strnlen(runner, sizeof(copy) - 1) + 1);
	return copy;
}

CORDON_API const char *cordon_runner_origin(void)
{
	static _Thread_local char copy[sizeof(runner_how)];

	(void)cordon_runner_path();
	RUNNER_LOCKED;
	memcpy(copy, runner_how, sizeof(copy));
	return copy;
}

int runner_refused(char *why, size_t n)
{
	(void)cordon_runner_path();
	RUNNER_LOCKED;
	if (!runner_refusal[0])
		return 0;
	snprintf(why, n, "%s", runner_refusal);
	return -EPERM;
}

bool runner_from_env(void)
{
	(void)cordon_runner_path();
	RUNNER_LOCKED;
	return strcmp(runner_how, "from CORDON_RUNNER") == 0;
}

int runner_check(char *why, size_t n)
{
	const char *path = cordon_runner_path();

	if (runner_refused(why, n) < 0)
		return -EPERM;
	if (access(path, X_OK) < 0) {
		int r = -errno;
		RUNNER_LOCKED;

		if (runner_looked[0])
			snprintf(why, n, "%s", runner_looked);
		else
			snprintf(why, n, "the runner %s (%s) is not executable: %s", path, runner_how, strerror(-r));
		return r;
	}
	return 0;
}

CORDON_API int cordon_shim_path(char **ret)
{
	const char *env = secure_getenv("CORDON_SHIM"), *run;
	const char *slash;
	char *p = NULL;

	if (!ret)
		return -EINVAL;
	if (env && env[0]) {
		if (env[0] != '/')
			return -EINVAL;
		p = strdup(env);
	} else {
		run = cordon_runner_path();
		slash = strrchr(run, '/');
		/* beside the runner (a build tree, or a prefix that keeps both in
		 * one directory), else the installed one */
		if (slash && asprintf(&p, "%.*s/cordon-shim", (int)(slash - run), run) > 0 && access(p, X_OK) < 0) {
			free(p);
			p = NULL;
		}
		if (!p && asprintf(&p, "%s/cordon/cordon-shim", CORDON_LIBEXECDIR) < 0)
			p = NULL;
	}
	if (!p)
		return -ENOMEM;
	if (access(p, X_OK) < 0) {
		int r = -errno;

		free(p);
		return r;
	}
	*ret = p;
	return 0;
}
