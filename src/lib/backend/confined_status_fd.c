/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The status channel of a confined value, moved to the fd number its
 * caller chooses (`cordon confine --status-fd N`, as bubblewrap's
 * --json-status-fd N): the runner's own flags in argv are rewritten, and
 * nothing else. A value whose argv does not have them where the providers
 * put them is refused, never half rewritten.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/cordon.h"

#define STATUS_FD_MAX 65535

static bool is_fd(const char *s, int fd)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d", fd);
	return s && strcmp(s, buf) == 0;
}

/* The index of the value of `flag OLD` among the runner's own words:
 * "RUNNER exec --status-fd OLD" at from, or bwrap's "--json-status-fd OLD"
 * before its "--". -ENOENT: not there. */
static int find_runner(char **argv, size_t from, int old)
{
	size_t n = 0;

	while (argv[n])
		n++;
	if (from + 3 < n && strcmp(argv[from + 1], "exec") == 0 && strcmp(argv[from + 2], "--status-fd") == 0 &&
	    is_fd(argv[from + 3], old))
		return (int)(from + 3);
	return -ENOENT;
}

static int find_bwrap(char **argv, int old, size_t *ret_dashdash)
{
	for (size_t i = 1; argv[i] && argv[i + 1]; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--json-status-fd") == 0 && is_fd(argv[i + 1], old) && argv[i + 2] &&
		    strcmp(argv[i + 2], "--") == 0) {
			*ret_dashdash = i + 2;
			return (int)(i + 1);
		}
	}
	return -ENOENT;
}

CORDON_API int cordon_confined_set_status_fd(struct cordon_confined *c, int fd)
{
	char *v1 = NULL, *v2 = NULL;
	bool nested;
	size_t dd = 0;
	int at, at2 = -1;

	if (!c || !c->argv || !c->argv[0])
		return -EINVAL;
	if (c->status_format == CORDON_STATUS_NONE)
		return -ENOTSUP; /* no channel to move */
	nested = c->status_format == CORDON_STATUS_BWRAP_NESTED;
	if (fd <= 2 || fd > STATUS_FD_MAX - (nested ? 1 : 0))
		return -EBADF;
	/* the other fds the caller starts argv with */
	for (int k = 0; k <= (nested ? 1 : 0); k++)
		if ((c->exec_fd > 2 && fd + k == c->exec_fd) || (c->broker_fd > 2 && fd + k == c->broker_fd))
			return -EBUSY;
	if (fd == c->status_fd)
		return 0;
	switch (c->status_format) {
	case CORDON_STATUS_CORDON:
		at = find_runner(c->argv, 0, c->status_fd);
		break;
	case CORDON_STATUS_BWRAP_JSON:
	case CORDON_STATUS_BWRAP_NESTED:
		at = find_bwrap(c->argv, c->status_fd, &dd);
		if (at >= 0 && nested)
			at2 = find_runner(c->argv, dd + 1, c->status_fd + 1);
		if (at >= 0 && nested && at2 < 0)
			at = at2;
		break;
	case CORDON_STATUS_NONE:
	default:
		return -ENOTSUP;
	}
	if (at < 0)
		return -EINVAL; /* not the argv a provider made: left as it is */
	/* both made before either is replaced: never half done */
	if (asprintf(&v1, "%d", fd) < 0)
		return -ENOMEM;
	if (at2 >= 0 && asprintf(&v2, "%d", fd + 1) < 0) {
		free(v1);
		return -ENOMEM;
	}
	free(c->argv[at]);
	c->argv[at] = v1;
	if (at2 >= 0) {
		free(c->argv[at2]);
		c->argv[at2] = v2;
	}
	c->status_fd = fd;
	return 0;
}
