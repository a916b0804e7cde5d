/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One run of a credential capture (capture.h): the sandbox, the spawn, its
 * stdout read into secure memory under a cap and a deadline, the output
 * parsed in place, the value's lifetime; blocking (capture_run) or driven
 * by the supervisor's event loop (capture_job_start), which never waits
 * for it.
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
#include "childwatch.h"
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

/* The capture's sandbox and its spawn, stdout into a pipe (*ret_rfd). */
static int spawn(const struct tool_capture *cap, const char *path_env, struct cordon_child **ret, int *ret_rfd,
		 char *err, size_t errlen)
{
	_cleanup_(cordon_launch_freep) struct cordon_launch *l = NULL;
	_cleanup_free_ char *exe = NULL;
	_cleanup_strv_free_ char **argv = NULL;
	struct cordon_error e = {};
	int pipefd[2], r;

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
	struct cordon_stdio stdio = { .in = -1, .out = pipefd[1], .err = -1 };

	r = cordon_spawn(l, (const char *const *)argv, &stdio, NULL, ret, &e);
	close(pipefd[1]);
	if (r < 0) {
		close(pipefd[0]);
		return errbuf_set(err, errlen, r, "capture %s: %s", cap->name, e.message);
	}
	*ret_rfd = pipefd[0];
	return 0;
}

/* What the run came to: buf[0..n) parsed into out's value and lifetime,
 * or why not. r: the run's own error (collecting it). */
static int conclude(const struct tool_capture *cap, int r, const struct cordon_result *res, unsigned char *buf,
		    size_t n, bool timed_out, bool over, struct capture_result *out, char *err, size_t errlen)
{
	struct capture_value v;
	struct cordon_error why;

	out->bytes = n;
	out->timed_out = timed_out;
	if (res) {
		out->exit_code = res->exit_code;
		out->signal = res->signal;
	}
	if (r < 0)
		return errbuf_set(err, errlen, r, "capture %s: %s", cap->name, strerror(-r));
	if (timed_out)
		return errbuf_set(err, errlen, -ETIMEDOUT, "capture %s: timed out after %llu ms", cap->name,
				  (unsigned long long)(cap->timeout_usec / 1000));
	if (over)
		return errbuf_set(err, errlen, -E2BIG, "capture %s: printed more than %d bytes", cap->name,
				  CAPTURE_OUTPUT_MAX);
	if (res->exit_code != 0 || res->signal)
		return errbuf_set(err, errlen, -EIO, "capture %s: exited %d%s%s", cap->name, res->exit_code,
				  res->signal ? " by signal " : "",
				  res->signal ? sigabbrev_np(res->signal) ?: "?" : "");
	r = capture_output_parse((char *)buf, n, &v, &why);
	if (r < 0)
		return errbuf_set(err, errlen, r, "capture %s: %s", cap->name, why.message);
	if (v.has_expiry) {
		int64_t left = v.expires_at - (int64_t)time(NULL);

		if (left <= 0)
			return errbuf_set(err, errlen, -ESTALE, "capture %s: the token it printed has expired", cap->name);
		out->lifetime_usec = (uint64_t)left * 1000000;
	} else
		out->lifetime_usec = cap->ttl_usec;
	r = credtable_secret_set(&out->value, buf + v.off, v.len);
	if (r < 0)
		return errbuf_set(err, errlen, r, "capture %s: no secure memory", cap->name);
	return 0;
}

int capture_run(const struct tool_capture *cap, const char *path_env, struct capture_result *ret, char *err,
		size_t errlen)
{
	_cleanup_(cordon_child_freep) struct cordon_child *child = NULL;
	_cleanup_(cordon_result_freep) struct cordon_result *res = NULL;
	struct capture_result out = {};
	unsigned char *buf = NULL;
	size_t n = 0;
	bool timed_out = false, over = false;
	uint64_t start = now_usec();
	int rfd = -1, r;

	*ret = out;
	r = spawn(cap, path_env, &child, &rfd, err, errlen);
	if (r < 0)
		return r;
	buf = OPENSSL_secure_zalloc(CAPTURE_OUTPUT_MAX + 1);
	if (!buf) {
		close(rfd);
		return errbuf_set(err, errlen, -ENOMEM, "capture %s: no secure memory", cap->name);
	}
	r = drive(child, rfd, buf, CAPTURE_OUTPUT_MAX + 1, &n, start + cap->timeout_usec, &timed_out, &over);
	if (r >= 0)
		r = cordon_collect(child, &res);
	out.duration_ms = (now_usec() - start) / 1000;
	r = conclude(cap, r, res, buf, n, timed_out, over, &out, err, errlen);
	OPENSSL_secure_clear_free(buf, CAPTURE_OUTPUT_MAX + 1);
	*ret = out;
	return r;
}

/* ---- the same, driven from the supervisor's loop ---- */

struct capture_job {
	const struct tool_capture *cap;
	capture_done done;
	void *ctx;
	struct cordon_child *child;
	struct child_watch *watch;
	struct event *ev_out, *ev_deadline, *ev_fin;
	int rfd;
	unsigned char *buf;
	size_t n;
	bool ended, timed_out, over, finished;
	uint64_t start;
};

struct capture_job *capture_job_free(struct capture_job *j)
{
	if (!j)
		return NULL;
	if (j->ev_out)
		event_free(j->ev_out);
	if (j->ev_deadline)
		event_free(j->ev_deadline);
	if (j->ev_fin)
		event_free(j->ev_fin);
	child_watch_free(j->watch);
	if (j->child) {
		/* dropped before it ended (the session is going): the tree
		 * dies, collected here (it was killed: this is short) */
		struct cordon_result *res = NULL;

		if (!j->ended) {
			cordon_child_kill(j->child);
			(void)cordon_wait(j->child, &res);
			cordon_result_free(res);
		}
		cordon_child_free(j->child);
	}
	if (j->rfd >= 0)
		close(j->rfd);
	if (j->buf)
		OPENSSL_secure_clear_free(j->buf, CAPTURE_OUTPUT_MAX + 1);
	free(j);
	return NULL;
}

static void close_out(struct capture_job *j)
{
	if (j->ev_out) {
		event_free(j->ev_out);
		j->ev_out = NULL;
	}
	if (j->rfd >= 0)
		close(j->rfd);
	j->rfd = -1;
}

/* Both the child and its stdout are done: once, from the loop. */
static void maybe_finish(struct capture_job *j)
{
	if (j->ended && j->rfd < 0 && !j->finished) {
		j->finished = true;
		event_active(j->ev_fin, EV_TIMEOUT, 0);
	}
}

static void kill_job(struct capture_job *j)
{
	cordon_child_kill(j->child);
	child_watch_poke(j->watch);
}

static void on_out(evutil_socket_t fd, short what, void *arg)
{
	struct capture_job *j = arg;
	ssize_t k;

	if (j->n >= CAPTURE_OUTPUT_MAX + 1) {
		j->over = true;
		close_out(j);
		kill_job(j);
		maybe_finish(j);
		return;
	}
	k = read(j->rfd, j->buf + j->n, CAPTURE_OUTPUT_MAX + 1 - j->n);
	if (k > 0) {
		j->n += (size_t)k;
		return;
	}
	if (k < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	close_out(j);
	maybe_finish(j);
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
	struct capture_job *j = arg;

	j->timed_out = true;
	close_out(j);
	kill_job(j);
	maybe_finish(j);
}

static void on_ended(void *arg)
{
	struct capture_job *j = arg;

	j->ended = true;
	maybe_finish(j);
}

static void on_fin(evutil_socket_t fd, short what, void *arg)
{
	struct capture_job *j = arg;
	struct cordon_result *res = NULL;
	struct capture_result out = {};
	char err[300] = "";
	int r;

	event_del(j->ev_deadline);
	r = cordon_collect(j->child, &res);
	out.duration_ms = (now_usec() - j->start) / 1000;
	r = conclude(j->cap, r, res, j->buf, j->n, j->timed_out, j->over, &out, err, sizeof(err));
	cordon_result_free(res);
	OPENSSL_cleanse(j->buf, j->n);
	/* the callback may free the job */
	j->done(j->ctx, r, &out, err);
}

int capture_job_start(struct event_base *base, const struct tool_capture *cap, const char *path_env, capture_done done,
		      void *ctx, struct capture_job **ret, char *err, size_t errlen)
{
	struct capture_job *j = calloc(1, sizeof(*j));
	struct timeval tv;
	int r;

	if (!j)
		return -ENOMEM;
	*j = (struct capture_job){ .cap = cap, .done = done, .ctx = ctx, .rfd = -1, .start = now_usec() };
	if (!(j->buf = OPENSSL_secure_zalloc(CAPTURE_OUTPUT_MAX + 1))) {
		capture_job_free(j);
		return errbuf_set(err, errlen, -ENOMEM, "capture %s: no secure memory", cap->name);
	}
	r = spawn(cap, path_env, &j->child, &j->rfd, err, errlen);
	if (r < 0) {
		capture_job_free(j);
		return r;
	}
	(void)fcntl(j->rfd, F_SETFL, O_NONBLOCK);
	tv = (struct timeval){ .tv_sec = (time_t)(cap->timeout_usec / 1000000),
			       .tv_usec = (suseconds_t)(cap->timeout_usec % 1000000) };
	if (!(j->ev_out = event_new(base, j->rfd, EV_READ | EV_PERSIST, on_out, j)) ||
	    !(j->ev_deadline = evtimer_new(base, on_deadline, j)) || !(j->ev_fin = event_new(base, -1, 0, on_fin, j)) ||
	    event_add(j->ev_out, NULL) < 0 || event_add(j->ev_deadline, &tv) < 0 ||
	    (r = child_watch_new(base, j->child, on_ended, j, &j->watch)) < 0) {
		capture_job_free(j);
		return errbuf_set(err, errlen, -ENOMEM, "capture %s: out of memory", cap->name);
	}
	*ret = j;
	return 0;
}
