/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The native runner's plan moved out of its command line: the flags the
 * provider wrote (hundreds of paths: the credential catalogue, the
 * protected names) go into a sealed memfd, and the runner's argv keeps only
 * `--status-fd N --plan-fd M -- COMMAND...`. /proc/PID/cmdline is
 * world-readable and every byte of it is copied at each exec; a memfd is
 * the caller's and the runner's only, and cannot change once sealed (the
 * runner checks the seals: src/exec/plan_fd.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cleanup.h"
#include "provider.h"
#include "runner_plan.h"
#include "strv.h"

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif

#define RUNNER_PLAN_SEALS (F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL)

static int plan_memfd(void)
{
	int fd = memfd_create("cordon-plan", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_NOEXEC_SEAL);

	/* before Linux 6.3 there is no MFD_NOEXEC_SEAL; the seals below
	 * still make it immutable */
	if (fd < 0 && errno == EINVAL)
		fd = memfd_create("cordon-plan", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	return fd < 0 ? -errno : fd;
}

static int write_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

int runner_plan_pack(const char *const *v, char ***ret_argv, int *ret_fd)
{
	char **nv = NULL;
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	size_t n = strv_length((char *const *)v), dashdash = 0, size = 0, k = 0;
	int r;

	/* [RUNNER, "exec", FLAG..., "--", COMMAND...]: the provider's values
	 * are never "--" (paths are absolute, names checked), so the first
	 * one ends the flags */
	for (size_t i = 2; i < n && !dashdash; i++)
		if (strcmp(v[i], "--") == 0)
			dashdash = i;
	if (!dashdash)
		return -EINVAL;
	for (size_t i = 2; i < dashdash; i++) {
		if (strcmp(v[i], "--status-fd") == 0 && i + 1 < dashdash) {
			i++; /* stays in argv: a failure to read the plan is reported there */
			continue;
		}
		size += strlen(v[i]) + 1;
	}
	if (size == 0 || size > RUNNER_PLAN_MAX)
		return size ? -E2BIG : -ENODATA;
	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	for (size_t i = 2; i < dashdash; i++) {
		size_t l;

		if (strcmp(v[i], "--status-fd") == 0 && i + 1 < dashdash) {
			i++;
			continue;
		}
		l = strlen(v[i]) + 1;
		memcpy(buf + k, v[i], l);
		k += l;
	}
	fd = plan_memfd();
	if (fd < 0)
		return fd;
	r = write_all(fd, buf, size);
	if (r < 0)
		return r;
	if (fcntl(fd, F_ADD_SEALS, RUNNER_PLAN_SEALS) < 0)
		return -errno;

	/* RUNNER exec [--status-fd N] --plan-fd M -- COMMAND... */
	r = strv_push(&nv, v[0]);
	if (r >= 0)
		r = strv_push(&nv, v[1]);
	for (size_t i = 2; r >= 0 && i + 1 < dashdash; i++)
		if (strcmp(v[i], "--status-fd") == 0) {
			r = strv_push(&nv, v[i]);
			if (r >= 0)
				r = strv_push(&nv, v[i + 1]);
			break;
		}
	if (r >= 0)
		r = strv_push(&nv, "--plan-fd");
	if (r >= 0)
		r = strv_push(&nv, RUNNER_PLAN_FD_STR);
	for (size_t i = dashdash; r >= 0 && i < n; i++)
		r = strv_push(&nv, v[i]);
	if (r < 0) {
		strv_free(nv);
		return r;
	}
	*ret_argv = nv;
	*ret_fd = TAKE_FD(fd);
	return 0;
}
