/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The runner's fds closed but for those kept: what init, the command
 * (harden.c) and cordon serve's server keep across their execs and forks.
 * On its own so that the server (serve.c) and the command's hardening
 * (harden.c, which hands over to the server) do not call each other.
 */
#include <errno.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "runner.h"

/* Close every fd above 2 but the status channel (close-on-exec, so execve
 * closes it too) and the n in keep (-1: none; the gate's handoff socket and
 * init's Landlock ruleset, both closed before execve; the --exec-fd file). */
int close_fds_keep(const int *keep_in, size_t n)
{
	int keep[8], lo = 3;
	size_t k = 0;
	struct rlimit rl;

	if (n >= ELEMENTSOF(keep))
		return -E2BIG;
	keep[k++] = status_channel_fd();
	for (size_t i = 0; i < n; i++)
		keep[k++] = keep_in[i];
	for (size_t i = 0; i < k; i++)
		for (size_t j = i + 1; j < k; j++)
			if (keep[j] < keep[i]) {
				int t = keep[i];

				keep[i] = keep[j];
				keep[j] = t;
			}
	for (size_t i = 0; i < k; i++) {
		if (keep[i] < lo)
			continue;
		if (keep[i] > lo && syscall(__NR_close_range, (unsigned)lo, (unsigned)keep[i] - 1, 0u) < 0)
			goto fallback;
		lo = keep[i] + 1;
	}
	if (syscall(__NR_close_range, (unsigned)lo, ~0u, 0u) == 0)
		return 0;
fallback:
	if (errno != ENOSYS)
		return -errno;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	for (rlim_t fd = 3; fd < rl.rlim_cur && fd < 1u << 20; fd++) {
		bool kept = false;

		for (size_t i = 0; i < k; i++)
			kept |= (int)fd == keep[i];
		if (!kept)
			(void)close((int)fd);
	}
	return 0;
}
