/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Returns that used to go unchecked, or caps that let the rest through:
 * cordon_kill_descendants has no fixed number of pids nor a 4 KiB read of a
 * children list (a wide tree is killed whole), and probe_cache_path
 * reports an asprintf that failed instead of trusting its pointer.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "common.h"
#include "probe.h"
#include "process.h"

#define WIDE 1000

/* The children list of pid, read whole, as a malloc'd string. */
static char *children_of(pid_t pid)
{
	char path[64];
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	int fd;
	ssize_t l;

	cr_assert_not_null(buf);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	while ((l = read(fd, buf + len, cap - len - 1)) > 0)
		len += (size_t)l;
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* 'Z' (a zombie: killed, not reaped), 'X'/0 (gone), or its running state. */
static char state_of(pid_t pid)
{
	char path[64], buf[512], *p;
	int fd;
	ssize_t l;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	l = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (l <= 0)
		return 0;
	buf[l] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

Test(failclosed, kill_descendants_kills_a_wide_tree_whole, .timeout = 120)
{
	int ready[2];
	pid_t parent;
	char c;

	cr_assert_eq(pipe2(ready, O_CLOEXEC), 0);
	parent = fork();
	cr_assert_geq(parent, 0);
	if (parent == 0) {
		/* WIDE children that wait, and a parent that never reaps them:
		 * the killed stay listed (as zombies), so the list is long */
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(ready[0]);
		for (int i = 0; i < WIDE; i++) {
			pid_t k = fork();

			if (k < 0)
				_exit(1);
			if (k == 0) {
				prctl(PR_SET_PDEATHSIG, SIGKILL);
				for (;;)
					pause();
			}
		}
		(void)!write(ready[1], "x", 1);
		for (;;)
			pause();
	}
	close(ready[1]);
	cr_assert_eq(read(ready[0], &c, 1), 1, "the tree did not get up");
	close(ready[0]);

	char *before = children_of(parent);
	size_t n = 0;
	for (char *s = before, *end; *s; s = end) {
		if (strtol(s, &end, 10) <= 0 || end == s)
			break;
		n++;
	}
	cr_assert_eq(n, WIDE);
	/* more than one 4 KiB read's worth: what the old cap cut off */
	cr_assert_gt(strlen(before), 4096, "the list is only %zu bytes", strlen(before));

	int killed = cordon_kill_descendants(parent);
	cr_assert_geq(killed, WIDE, "signalled %d of %d", killed, WIDE);
	size_t alive = 0;
	for (char *s = before, *end; *s; s = end) {
		long k = strtol(s, &end, 10);

		if (end == s)
			break;
		for (int tries = 0; tries < 100 && state_of((pid_t)k) && state_of((pid_t)k) != 'Z'; tries++)
			usleep(10000);
		if (state_of((pid_t)k) && state_of((pid_t)k) != 'Z')
			alive++;
	}
	cr_assert_eq(alive, 0, "%zu of %d children survived cordon_kill_descendants", alive, WIDE);
	free(before);
	/* cordon_kill_descendants spares the root; it is still there */
	cr_assert_neq(state_of(parent), 'Z');
	kill(-parent, SIGKILL);
	kill(parent, SIGKILL);
	waitpid(parent, NULL, 0);
}

static size_t vm_size(void)
{
	long pages = 0;
	FILE *f = fopen("/proc/self/statm", "re");

	cr_assert_not_null(f);
	cr_assert_eq(fscanf(f, "%ld", &pages), 1);
	fclose(f);
	return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

Test(failclosed, probe_cache_path_reports_a_failed_asprintf)
{
#if defined(__SANITIZE_ADDRESS__)
	cr_skip_test("an address-space limit and ASan's allocator do not mix");
#endif
	const size_t big = 64u << 20;
	char *val = malloc(big + 1);
	char *path = NULL;

	cr_assert_not_null(val);
	memset(val, 'a', big);
	val[0] = '/';
	val[big] = '\0';
	cr_assert_eq(setenv("XDG_CACHE_HOME", val, 1), 0);
	free(val);

	/* control: with the memory, the path is the variable's, whole */
	cr_assert_eq(probe_cache_path(&path), 0);
	cr_assert_eq(strlen(path), big + strlen("/cordon/backend-") + 16);
	free(path);
	path = NULL;

	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		/* room for a little, not for another copy of the variable */
		struct rlimit rl = { vm_size() + (16u << 20), vm_size() + (16u << 20) };
		int r;

		if (setrlimit(RLIMIT_AS, &rl) < 0)
			_exit(2);
		r = probe_cache_path(&path);
		_exit(r == -ENOMEM ? 0 : r == 0 ? 3 : 4);
	}
	int ws;
	cr_assert_eq(waitpid(pid, &ws, 0), pid);
	unsetenv("XDG_CACHE_HOME");
	cr_assert(WIFEXITED(ws), "the child died: status %d", ws);
	cr_assert_eq(WEXITSTATUS(ws), 0, "probe_cache_path under a tight address space: %s",
		     WEXITSTATUS(ws) == 3 ? "claimed success" : "not -ENOMEM");
}
