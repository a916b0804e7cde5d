/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One run of a credential capture (capture.h): the sandbox, the spawn, its
 * stdout read into secure memory under a cap and a deadline, the output
 * parsed in place, the value's lifetime.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/crypto.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "capture_output.h"
#include "cleanup.h"
#include "cordon/cordon.h"
#include "errbuf.h"
#include "capture_sandbox.h"
#include "strv.h"

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_launch *, cordon_launch_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_child *, cordon_child_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_result *, cordon_result_free)

/* Drive child until it ended and its stdout (rfd) is at its end, reading
 * into buf (cap bytes); kill it at deadline or past the cap. */
static int drive(struct cordon_child *child, int rfd, unsigned char *buf, size_t cap, size_t *ret_n,
		 uint64_t deadline, bool *ret_timed_out, bool *ret_over)
{
	bool ended = false;
	size_t n = 0;
	int r;

	while (!ended || rfd >= 0) {
		struct pollfd pfd[CORDON_CHILD_MAX_POLLFDS + 1];
		int timeout = -1, pr;
		size_t nc = ended ? 0 : cordon_child_pollfds(child, pfd, &timeout), np = nc;
		uint64_t now = now_usec();
		int left = now >= deadline ? 0 : (int)((deadline - now) / 1000 + 1);

		if (left == 0) {
			*ret_timed_out = true;
			cordon_child_kill(child);
			if (ended)
				break;
		}
		if (rfd >= 0)
			pfd[np++] = (struct pollfd){ .fd = rfd, .events = POLLIN };
		if (timeout < 0 || timeout > left)
			timeout = left;
		pr = poll(pfd, (nfds_t)np, timeout);
		if (pr < 0 && errno != EINTR)
			return -errno;
		if (pr > 0 && rfd >= 0 && pfd[nc].revents) {
			ssize_t k = n < cap ? read(rfd, buf + n, cap - n) : 0;

			if (n >= cap) {
				*ret_over = true;
				cordon_child_kill(child);
				close(rfd);
				rfd = -1;
			} else if (k > 0) {
				n += (size_t)k;
			} else if (k == 0 || (errno != EINTR && errno != EAGAIN)) {
				close(rfd);
				rfd = -1;
			}
		}
		if (!ended) {
			r = cordon_child_step(child, pfd, pr > 0 ? nc : 0);
			if (r < 0)
				return r;
			ended = r == 1;
		}
	}
	if (rfd >= 0)
		close(rfd);
	*ret_n = n;
	return 0;
}

int capture_run(const struct tool_capture *cap, const char *path_env, struct capture_result *ret, char *err,
		size_t errlen)
{
	_cleanup_(cordon_launch_freep) struct cordon_launch *l = NULL;
	_cleanup_(cordon_child_freep) struct cordon_child *child = NULL;
	_cleanup_(cordon_result_freep) struct cordon_result *res = NULL;
	_cleanup_free_ char *exe = NULL;
	_cleanup_strv_free_ char **argv = NULL;
	struct cordon_error e = {};
	struct capture_result out = {};
	struct capture_value v;
	unsigned char *buf = NULL;
	size_t n = 0;
	bool timed_out = false, over = false;
	uint64_t start = now_usec();
	int pipefd[2], r;

	*ret = out;
	r = capture_sandbox_new(cap, path_env, &exe, &l, &e);
	if (r < 0)
		return errbuf_set(err, errlen, r, "capture %s: %s", cap->name, e.message);
	if (!(argv = strv_copy((const char *const *)cap->command)))
		return -ENOMEM;
	free(argv[0]);
	if (!(argv[0] = strdup(exe)))
		return -ENOMEM;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return errbuf_set(err, errlen, -errno, "capture %s: pipe: %m", cap->name);
	{
		struct cordon_stdio stdio = { .in = -1, .out = pipefd[1], .err = -1 };

		r = cordon_spawn(l, (const char *const *)argv, &stdio, NULL, &child, &e);
		close(pipefd[1]);
		if (r < 0) {
			close(pipefd[0]);
			return errbuf_set(err, errlen, r, "capture %s: %s", cap->name, e.message);
		}
	}
	buf = OPENSSL_secure_zalloc(CAPTURE_OUTPUT_MAX + 1);
	if (!buf) {
		close(pipefd[0]);
		return errbuf_set(err, errlen, -ENOMEM, "capture %s: no secure memory", cap->name);
	}
	r = drive(child, pipefd[0], buf, CAPTURE_OUTPUT_MAX + 1, &n, start + cap->timeout_usec, &timed_out, &over);
	if (r >= 0)
		r = cordon_collect(child, &res);
	out.duration_ms = (now_usec() - start) / 1000;
	out.bytes = n;
	out.timed_out = timed_out;
	if (res) {
		out.exit_code = res->exit_code;
		out.signal = res->signal;
	}
	if (r < 0) {
		r = errbuf_set(err, errlen, r, "capture %s: %s", cap->name, strerror(-r));
		goto done;
	}
	if (timed_out) {
		r = errbuf_set(err, errlen, -ETIMEDOUT, "capture %s: timed out after %llu ms", cap->name,
			       (unsigned long long)(cap->timeout_usec / 1000));
		goto done;
	}
	if (over) {
		r = errbuf_set(err, errlen, -E2BIG, "capture %s: printed more than %d bytes", cap->name, CAPTURE_OUTPUT_MAX);
		goto done;
	}
	if (res->exit_code != 0 || res->signal) {
		r = errbuf_set(err, errlen, -EIO, "capture %s: exited %d%s%s", cap->name, res->exit_code,
			       res->signal ? " by signal " : "", res->signal ? sigabbrev_np(res->signal) ?: "?" : "");
		goto done;
	}
	{
		char why[200];

		r = capture_output_parse((char *)buf, n, &v, why, sizeof(why));
		if (r < 0) {
			r = errbuf_set(err, errlen, r, "capture %s: %s", cap->name, why);
			goto done;
		}
	}
	if (v.has_expiry) {
		int64_t left = v.expires_at - (int64_t)time(NULL);

		if (left <= 0) {
			r = errbuf_set(err, errlen, -ESTALE, "capture %s: the token it printed has expired", cap->name);
			goto done;
		}
		out.lifetime_usec = (uint64_t)left * 1000000;
	} else
		out.lifetime_usec = cap->ttl_usec;
	r = credtable_secret_set(&out.value, buf + v.off, v.len);
	if (r < 0) {
		r = errbuf_set(err, errlen, r, "capture %s: no secure memory", cap->name);
		goto done;
	}
	r = 0;
done:
	OPENSSL_secure_clear_free(buf, CAPTURE_OUTPUT_MAX + 1);
	*ret = out;
	return r;
}
