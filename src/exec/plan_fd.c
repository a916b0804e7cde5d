/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The runner's flags read from a sealed memfd (`--plan-fd N`, written by
 * src/lib/runner_plan.c): the seals checked (no write, grow, shrink or
 * further sealing possible: what is read is what the caller wrote, and
 * stays so), the size capped, the words split at their NULs and spliced
 * into the flag line in place of `--plan-fd N`, before the `--`. The
 * result is parsed as any flag line is (parse.c), so `cordon explain`
 * renders it the same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "errbuf.h"
#include "parse.h"
#include "runner_plan.h"

#define PLAN_SEALS (F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL)

static int parse_fd(const char *s, int *ret)
{
	char *end;
	long v;

	if (!s[0] || s[0] < '0' || s[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 3 || v > EXEC_MAX_STATUS_FD)
		return -EINVAL;
	*ret = (int)v;
	return 0;
}

/* The sealed contents of fd, NUL-terminated words, in a buffer of ours. */
static int read_plan(int fd, char **ret, size_t *ret_len, char *err, size_t errlen)
{
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t got = 0;
	int seals;

	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0)
		return errbuf_set(err, errlen, errno == EBADF ? -EBADF : -EPERM,
				  "--plan-fd: fd %d is not a sealed memfd (%s)", fd, strerror(errno));
	if ((seals & PLAN_SEALS) != PLAN_SEALS)
		return errbuf_set(err, errlen, -EPERM,
				  "--plan-fd: fd %d is not sealed against change (seals %#x; write, grow, shrink and "
				  "seal must all be set)", fd, (unsigned)seals);
	if (fstat(fd, &st) < 0)
		return errbuf_set(err, errlen, -errno, "--plan-fd: fd %d: %m", fd);
	if (!S_ISREG(st.st_mode) || st.st_size <= 0 || (unsigned long long)st.st_size > RUNNER_PLAN_MAX)
		return errbuf_set(err, errlen, -EINVAL, "--plan-fd: the plan is %lld bytes (1 to %u)",
				  (long long)st.st_size, RUNNER_PLAN_MAX);
	buf = malloc((size_t)st.st_size);
	if (!buf)
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, buf + got, (size_t)st.st_size - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return errbuf_set(err, errlen, n < 0 ? -errno : -EIO, "--plan-fd: cannot read the plan: %s",
					  n < 0 ? strerror(errno) : "short read");
		got += (size_t)n;
	}
	if (buf[got - 1] != '\0')
		return errbuf_set(err, errlen, -EINVAL, "--plan-fd: the plan's last word is not ended");
	*ret = TAKE_PTR(buf);
	*ret_len = got;
	return 0;
}

int plan_fd_splice(int argc, char *const *argv, int pos, struct plan_fd_line *ret, char *err, size_t errlen)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ char **nv = NULL;
	size_t len = 0, words = 0;
	int fd, r, k = 0;

	if (pos + 1 >= argc)
		return errbuf_set(err, errlen, -EINVAL, "--plan-fd needs a value");
	if (parse_fd(argv[pos + 1], &fd) < 0)
		return errbuf_set(err, errlen, -EINVAL, "--plan-fd: '%.40s' is not an fd number above 2",
				  argv[pos + 1]);
	r = read_plan(fd, &buf, &len, err, errlen);
	if (r < 0)
		return r;
	for (size_t i = 0; i < len; i++)
		words += buf[i] == '\0';
	if (words > (size_t)EXEC_MAX_LIST * 32)
		return errbuf_set(err, errlen, -E2BIG, "--plan-fd: too many words in the plan");
	nv = calloc((size_t)argc - 2 + words + 1, sizeof(char *));
	if (!nv)
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	for (int i = 0; i < pos; i++)
		nv[k++] = argv[i];
	for (size_t at = 0; at < len; at += strlen(buf + at) + 1) {
		const char *w = buf + at;

		/* the plan holds flags only: the command is the argv's */
		if (strcmp(w, "--") == 0 || strcmp(w, "--plan-fd") == 0)
			return errbuf_set(err, errlen, -EINVAL, "--plan-fd: the plan holds '%s'", w);
		nv[k++] = (char *)w;
	}
	for (int i = pos + 2; i < argc; i++)
		nv[k++] = argv[i];
	nv[k] = NULL;
	/* read: the runner holds no more of it (the command must not inherit it) */
	close(fd);
	*ret = (struct plan_fd_line){ .argc = k, .argv = TAKE_PTR(nv), .buf = TAKE_PTR(buf) };
	return 0;
}
