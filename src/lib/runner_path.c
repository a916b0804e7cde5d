/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where cordon's own runner (`cordon exec`) is: set by the caller, else
 * $CORDON_RUNNER, else the installed binary. One process-wide value under
 * its own lock; each thread reads a copy of its own.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "cleanup.h"
#include "cordon/cordon.h"

static char runner[PATH_MAX];
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
	return 0;
}

CORDON_API const char *cordon_runner_path(void)
{
	/* Each thread reads its own copy, so another thread's
	 * cordon_set_runner_path cannot change a string under it. */
	static _Thread_local char copy[PATH_MAX];
	RUNNER_LOCKED;

	if (!runner[0]) {
		const char *env = secure_getenv("CORDON_RUNNER");

		if (env && env[0] == '/' && strlen(env) < sizeof(runner))
			snprintf(runner, sizeof(runner), "%s", env);
		else
			snprintf(runner, sizeof(runner), "%s/cordon", CORDON_BINDIR);
	}
	memcpy(copy, runner, sizeof(copy));
	return copy;
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
