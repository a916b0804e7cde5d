/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Two binaries, one command line. `cordon` is lean: it is also the runner
 * (`cordon exec`) on every confined launch's path, so it loads neither
 * libcrypto nor libcurl (measured: about 2 ms and 10 ms more per process
 * start). What needs them — the tool sandbox's supervisor, the audit log's
 * hash chain — is in `cordon-supervisor`, the same CLI with its supervisor
 * ops filled in. The lean binary execs it, with the command line it was
 * given, for exactly those commands; the user sees one `cordon`.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "strv.h"

#define SUPERVISOR_NAME "cordon-supervisor"

static char **original_argv;
static const struct cli_supervisor_ops *supervisor_ops;

const struct cli_supervisor_ops *cli_supervisor(void)
{
	return supervisor_ops;
}

void cli_set_supervisor(const struct cli_supervisor_ops *ops)
{
	supervisor_ops = ops;
}

/* NAME in the directory of the executable at self, if it can be run. */
static bool beside(const char *self, const char *name, char *buf, size_t size)
{
	const char *slash = strrchr(self, '/');
	int n;

	if (!slash)
		return false;
	n = snprintf(buf, size, "%.*s/%s", (int)(slash - self), self, name);
	return n > 0 && (size_t)n < size && access(buf, X_OK) == 0;
}

void cli_runner_beside(char *self, size_t size)
{
	char buf[PATH_MAX];

	if (beside(self, "cordon", buf, sizeof(buf)) && strlen(buf) < size)
		memcpy(self, buf, strlen(buf) + 1);
	else
		self[0] = '\0'; /* the installed runner (cordon_runner_path's default) */
}

int cli_keep_argv(int argc, char **argv)
{
	/* a copy: scrub_values overwrites the values in argv itself */
	char **v = calloc((size_t)argc + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (int i = 0; i < argc; i++)
		if (!(v[i] = strdup(argv[i]))) {
			strv_free(v);
			return -ENOMEM;
		}
	strv_free(original_argv);
	original_argv = v;
	return 0;
}

static int supervisor_path(char *buf, size_t size)
{
	const char *env = secure_getenv("CORDON_SUPERVISOR");
	char self[PATH_MAX];
	ssize_t l;
	int n;

	if (env && env[0]) {
		if (env[0] != '/' || strlen(env) >= size)
			return -EINVAL;
		memcpy(buf, env, strlen(env) + 1);
		return 0;
	}
	l = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (l > 0) {
		self[l] = '\0';
		if (beside(self, SUPERVISOR_NAME, buf, size))
			return 0;
	}
	n = snprintf(buf, size, "%s/cordon/%s", CORDON_LIBEXECDIR, SUPERVISOR_NAME);
	return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

int cli_exec_supervisor(const char *why)
{
	char path[PATH_MAX];
	int r;

	if (!original_argv)
		return -EINVAL;
	r = supervisor_path(path, sizeof(path));
	if (r < 0) {
		cli_say("%s needs %s: CORDON_SUPERVISOR is not an absolute path", why, SUPERVISOR_NAME);
		return r;
	}
	fflush(stdout);
	fflush(stderr);
	execv(path, original_argv);
	r = -errno;
	cli_say("%s needs %s, which cannot be started (%s): %s", why, SUPERVISOR_NAME, path, strerror(-r));
	return r;
}
