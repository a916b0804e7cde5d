/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Warm launches (cordon/session.h): one sandbox instance started from a
 * launch through the native runner with --serve-fd, whose server
 * (src/exec/serve.c) forks each command; here, the session's start and
 * end, each command's request (bounded by the launch, its working
 * directory checked, reused state checked again), its pipes, capture,
 * timeout and result, classified as cordon_run's. `cordon serve` drives
 * its commands through this file.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "cleanup.h"
#include "error.h"
#include "launch.h"
#include "opts_size.h"
#include "policy.h"
#include "runlimits.h"
#include "serve_wire.h"
#include "session_host.h"
#include "strv.h"

#define SESSION_DEFAULT_MAX_OUTPUT (1024u * 1024)
#define SESSION_CTL_MAX (64u * 1024) /* a command's status records */

extern char **environ;

struct cordon_session {
	const struct cordon_launch *l;
	struct cordon_confined *c;
	pid_t runner;
	int sock, status_r;
	int null;                        /* /dev/null, every command's stdin without one of its own */
	char cwd[PATH_MAX];
	size_t n_rl;
	int rl_res[SERVE_RLIMITS_MAX];
	uint64_t rl_val[SERVE_RLIMITS_MAX];
	struct cordon_limits cg_limits;  /* each command's cgroup: processes, memory; zero: none */
	bool cg;
	struct session_host host;        /* what the host may change under the instance */
	struct cordon_session_cmd *cmds; /* not freed yet */
};

struct cordon_session_cmd {
	struct cordon_session *s;
	struct cordon_session_cmd *next;
	int out, err, ctl;            /* ours; -1 once at their end */
	char *output;
	size_t output_len;
	uint64_t output_total, max_output;
	char *ctl_buf;                /* the status records, up to SESSION_CTL_MAX */
	size_t ctl_len, ctl_size;
	int timeout_ms;
	uint64_t start_us, deadline_us;
	bool timed_out, output_killed, killed, ended, collected;
	cordon_session_output_fn on_output;
	void *userdata;
	struct limits_cgroup cgroup;  /* the command's own, when the session's limits need one */
};

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* ---- the session ---- */

/* [runner, "exec", "--serve-fd", N, "--no-terminal", flags..., "--", ...]:
 * the commands get pipes, never a terminal; and the terminal the runner's
 * stderr may be is no path a command can open for writing either (light
 * isolation would grant it by name, as it does for `cordon run` on one). */
static int with_serve_fd(char *const *argv, int fd, char ***ret)
{
	_cleanup_strv_free_ char **v = NULL;
	char num[16];

	snprintf(num, sizeof(num), "%d", fd);
	for (size_t i = 0; argv[i]; i++)
		if (strv_push(&v, argv[i]) < 0 || (i == 1 && (strv_push(&v, "--serve-fd") < 0 || strv_push(&v, num) < 0 ||
					   strv_push(&v, "--no-terminal") < 0)))
			return -ENOMEM;
	*ret = TAKE_PTR(v);
	return 0;
}

/* The launch's limits for each command, by the mechanism the launch's
 * checked plan gave each, as cordon_run enforces them: the processes and
 * memory limits in a cgroup of the command's own (its reaper joins it
 * before the command starts, so the tree is counted whole; one process
 * more for the reaper), the rest as rlimits. */
static int session_limits(struct cordon_session *s, struct cordon_error *reterr)
{
	const struct cordon_limits *l = cordon_launch_limits(s->l);
	const struct cordon_limits_plan *plan = cordon_launch_limits_plan(s->l);

	if (!l)
		return 0;
	if (l->processes) {
		enum cordon_limit_mechanism m = plan->mechanism[CORDON_LIMIT_PROCESSES];

		if (m != CORDON_MECHANISM_CGROUP2 && m != CORDON_MECHANISM_CGROUP1)
			return error_set(reterr, -EOPNOTSUPP, "the processes limit needs a pids cgroup per command (%s here)",
					 cordon_limit_mechanism_to_string(m));
		s->cg_limits.processes = l->processes + 1;
		s->cg = true;
	}
	bool mem_cg = l->memory && (plan->mechanism[CORDON_LIMIT_MEMORY] == CORDON_MECHANISM_CGROUP2 ||
				    plan->mechanism[CORDON_LIMIT_MEMORY] == CORDON_MECHANISM_CGROUP1);

	if (mem_cg) {
		s->cg_limits.memory = l->memory;
		s->cg = true;
	}
#define RL(res, v)                                  \
	if (v) {                                    \
		s->rl_res[s->n_rl] = res;           \
		s->rl_val[s->n_rl++] = (uint64_t)v; \
	}
	RL(RLIMIT_CPU, l->cpu_seconds);
	if (!mem_cg)
		RL(RLIMIT_AS, l->memory);
	RL(RLIMIT_FSIZE, l->file_size);
	RL(RLIMIT_NOFILE, l->open_files);
#undef RL
	return 0;
}

/* Start the runner with its server; 0 once it said it is serving. The
 * child only moves fds and execs (safe in a multi-threaded caller). */
static int session_start(struct cordon_session *s, struct cordon_error *reterr)
{
	const struct cordon_confined *c = s->c;
	_cleanup_strv_free_ char **argv = NULL;
	char **envp = c->envp ? c->envp : environ;
	int sp[2], st[2], serve_fd = 9, r;

	if (c->enforcement != CORDON_ENFORCEMENT_NATIVE || !c->argv[1] || strcmp(c->argv[1], "exec") != 0 ||
	    c->status_fd <= 2)
		return error_set(reterr, -EOPNOTSUPP, "a session needs the native runner (this policy runs under %s)",
				 cordon_enforcement_to_string(c->enforcement));
	if (c->broker_fd > 2 || c->exec_fd > 2 || c->credentials_fd > 2)
		return error_set(reterr, -EOPNOTSUPP,
				 "a session does not serve a launch with %s", c->broker_fd > 2 ? "a broker (command_policies)"
				 : c->exec_fd > 2 ? "a file to run from" : "a credential table");
	while (serve_fd == c->status_fd || serve_fd == c->status_fd + 1)
		serve_fd++;
	if (with_serve_fd(c->argv, serve_fd, &argv) < 0)
		return -ENOMEM;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0)
		return error_set(reterr, -errno, "socketpair: %m");
	if (pipe2(st, O_CLOEXEC) < 0) {
		r = -errno;
		close(sp[0]), close(sp[1]);
		return error_set(reterr, r, "pipe: %s", strerror(-r));
	}
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	s->runner = null < 0 ? -1 : fork();
	if (s->runner == 0) {
		int a = fcntl(sp[1], F_DUPFD_CLOEXEC, 100), b = fcntl(st[1], F_DUPFD_CLOEXEC, 100);

		/* nothing outlives the session */
		if (a < 0 || b < 0 || prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || dup2(a, serve_fd) < 0 ||
		    dup2(b, c->status_fd) < 0 || dup2(null, 0) < 0 || dup2(2, 1) < 0)
			_exit(CORDON_EXIT_RUNNER_FAILED);
		execve(argv[0], argv, envp);
		_exit(CORDON_EXIT_RUNNER_FAILED);
	}
	r = -errno;
	if (null >= 0)
		close(null);
	close(sp[1]);
	close(st[1]);
	s->sock = sp[0];
	s->status_r = st[0];
	if (s->runner < 0)
		return error_set(reterr, r, "cannot start the runner: %s", strerror(-r));
	r = serve_wire_wait_ready(s->sock);
	if (r < 0) {
		char rec[2048];
		ssize_t n = read(s->status_r, rec, sizeof(rec) - 1);
		char *line = n > 0 ? (rec[n] = '\0', strrchr(rec, '\t')) : NULL;

		if (line)
			line[strcspn(line, "\n")] = '\0';
		return error_set(reterr, r, "the sandbox did not start: %s", line ? line + 1 : strerror(-r));
	}
	return 0;
}

CORDON_API struct cordon_session *cordon_session_close(struct cordon_session *s)
{
	int st;

	if (!s)
		return NULL;
	for (struct cordon_session_cmd *c = s->cmds; c; c = c->next)
		cordon_session_cmd_kill(c);
	while (s->cmds)
		cordon_session_cmd_free(s->cmds);
	close_fd(&s->sock); /* the server ends, init and the namespace with it */
	if (s->runner > 0)
		while (waitpid(s->runner, &st, 0) < 0 && errno == EINTR)
			;
	close_fd(&s->status_r);
	close_fd(&s->null);
	session_host_done(&s->host);
	cordon_confined_free(s->c);
	free(s);
	return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_session *, cordon_session_close)

CORDON_API int cordon_session_open(const struct cordon_launch *l, struct cordon_session **ret,
				   struct cordon_error *reterr)
{
	_cleanup_(cordon_session_closep) struct cordon_session *s = NULL;
	/* the instance's command is a stand-in: the server runs none of it */
	const char *const stand_in[] = { "true", NULL };
	int r;

	if (!l || !ret)
		return error_set(reterr, -EINVAL, "no launch or no place for the session");
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	*s = (struct cordon_session){ .l = l, .runner = -1, .sock = -1, .status_r = -1, .null = -1 };
	if (!getcwd(s->cwd, sizeof(s->cwd)))
		return error_set(reterr, -errno, "cannot read the working directory: %m");
	s->null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (s->null < 0)
		return error_set(reterr, -errno, "/dev/null: %m");
	if ((r = session_limits(s, reterr)) < 0 || (r = cordon_launch_confine(l, stand_in, &s->c, reterr)) < 0 ||
	    (r = session_host_snapshot(&s->host, cordon_launch_policy(l), reterr)) < 0)
		return r;
	r = session_start(s, reterr);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(s);
	return 0;
}

CORDON_API bool cordon_session_home_changed(const struct cordon_session *s)
{
	return s && session_host_home_changed(&s->host);
}

CORDON_API const struct cordon_confined *cordon_session_confined(const struct cordon_session *s)
{
	return s ? s->c : NULL;
}

/* ---- a command ---- */

/* The working directory, checked as the broker checks a tool's: an
 * absolute path to a directory that exists now, identified by device and
 * inode, which the command's own lookup inside the sandbox must find
 * again (src/exec/serve.c); what the sandbox cannot see is refused there. */
static int check_cwd(const char *cwd, struct stat *ret, struct cordon_error *reterr)
{
	struct stat st;

	if (cwd[0] != '/')
		return error_set(reterr, -EINVAL, "cwd: %s is not an absolute path", cwd);
	if (stat(cwd, &st) < 0)
		return error_set(reterr, -errno, "cwd: %s: %m", cwd);
	if (!S_ISDIR(st.st_mode))
		return error_set(reterr, -ENOTDIR, "cwd: %s: %s", cwd, strerror(ENOTDIR));
	*ret = st;
	return 0;
}

CORDON_API struct cordon_session_cmd *cordon_session_cmd_free(struct cordon_session_cmd *c)
{
	if (!c)
		return NULL;
	cordon_session_cmd_kill(c);
	for (struct cordon_session_cmd **p = &c->s->cmds; *p; p = &(*p)->next)
		if (*p == c) {
			*p = c->next;
			break;
		}
	close_fd(&c->out);
	close_fd(&c->err);
	close_fd(&c->ctl);
	/* whatever the command left in its cgroup goes now */
	limits_cgroup_destroy(&c->cgroup);
	free(c->output);
	free(c->ctl_buf);
	free(c);
	return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_session_cmd *, cordon_session_cmd_free)

CORDON_API int cordon_session_spawn(struct cordon_session *s, const char *const *argv,
				    const struct cordon_session_cmd_opts *opts, struct cordon_session_cmd **ret,
				    struct cordon_error *reterr)
{
	struct cordon_session_cmd_opts o = CORDON_SESSION_CMD_OPTS_INIT;
	int out[2] = { -1, -1 }, er[2] = { -1, -1 }, ctl[2] = { -1, -1 }, r;
	uint64_t cap = s && s->l->max_output ? s->l->max_output : SESSION_DEFAULT_MAX_OUTPUT;
	struct cordon_session_cmd *c;
	struct stat st = {};

	if (!s || !argv || !argv[0] || !argv[0][0] || !ret)
		return error_set(reterr, -EINVAL, "no session, no command or no place for it");
	if (opts && (r = opts_take(opts, sizeof(o), &o, sizeof(o), "cordon_session_cmd_opts", reterr)) < 0)
		return r;
	if (!opts)
		o.stdin_fd = -1;
	/* the launch bounds every request: never above it */
	if (o.timeout_ms < 0 || (o.timeout_ms && s->l->timeout_ms && o.timeout_ms > s->l->timeout_ms))
		return error_set(reterr, -EPERM, "timeout: %d ms is over the session's %d ms", o.timeout_ms,
				 s->l->timeout_ms);
	if (o.max_output > cap)
		return error_set(reterr, -EPERM, "max_output: %llu bytes is over the session's %llu",
				 (unsigned long long)o.max_output, (unsigned long long)cap);
	if ((r = check_cwd(o.cwd ? o.cwd : s->cwd, &st, reterr)) < 0 || (r = session_host_check(&s->host, reterr)) < 0)
		return r;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	*c = (struct cordon_session_cmd){ .s = s, .out = -1, .err = -1, .ctl = -1,
					  .cgroup = { .procs_fd = { -1, -1, -1, -1 } } };
	int cg_procs = -1;

	if (s->cg) {
		struct limits_spawn ls;

		r = limits_prepare(&s->cg_limits, cordon_launch_limits_plan(s->l), &c->cgroup, &ls, reterr);
		if (r < 0)
			goto fail;
		for (size_t k = 0; k < ELEMENTSOF(ls.procs_fd) && cg_procs < 0; k++)
			cg_procs = ls.procs_fd[k];
		if (cg_procs < 0) {
			r = error_set(reterr, -EOPNOTSUPP, "no cgroup for the command's limits");
			goto fail;
		}
	}
	if (pipe2(out, O_CLOEXEC | O_NONBLOCK) < 0 || pipe2(er, O_CLOEXEC | O_NONBLOCK) < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, ctl) < 0) {
		r = error_set(reterr, -errno, "cannot make the command's pipes: %m");
		goto fail;
	}
	/* the server's end of ctl blocks: it writes the records once */
	(void)fcntl(ctl[1], F_SETFL, 0);
	struct serve_wire_run q = {
		.argv = argv,
		.env = o.env,
		.cwd = o.cwd ? o.cwd : s->cwd,
		.cwd_dev = st.st_dev,
		.cwd_ino = st.st_ino,
		.n_rlimits = s->n_rl,
		.stdio = { o.stdin_fd >= 0 ? o.stdin_fd : s->null, out[1], er[1] },
		.ctl = ctl[1],
		.cgroup_procs = cg_procs,
	};
	memcpy(q.rlimit_resource, s->rl_res, sizeof(q.rlimit_resource));
	memcpy(q.rlimit_value, s->rl_val, sizeof(q.rlimit_value));
	r = serve_wire_send(s->sock, &q);
	/* the reaper has its copy: ours is not needed any more */
	limits_cgroup_started(&c->cgroup);
	if (r < 0) {
		error_set(reterr, r, "cannot hand the command to the sandbox's server: %s", strerror(-r));
		goto fail;
	}
	close(out[1]), close(er[1]), close(ctl[1]);
	c->out = out[0], c->err = er[0], c->ctl = ctl[0];
	c->max_output = o.max_output ? o.max_output : cap;
	c->timeout_ms = o.timeout_ms ? o.timeout_ms : s->l->timeout_ms;
	c->start_us = now_us();
	if (c->timeout_ms)
		c->deadline_us = c->start_us + (uint64_t)c->timeout_ms * 1000u;
	c->on_output = o.on_output;
	c->userdata = o.userdata;
	c->next = s->cmds;
	s->cmds = c;
	*ret = c;
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		close_fd(&out[i]);
		close_fd(&er[i]);
		close_fd(&ctl[i]);
	}
	limits_cgroup_destroy(&c->cgroup);
	free(c);
	return r;
}

CORDON_API void cordon_session_cmd_kill(struct cordon_session_cmd *c)
{
	if (!c || c->killed || c->ctl < 0)
		return;
	c->killed = true;
	/* the reaper may have said its last word and gone already: no
	 * SIGPIPE for the program that holds the session */
	(void)!send(c->ctl, "K", 1, MSG_NOSIGNAL);
}

CORDON_API size_t cordon_session_cmd_pollfds(struct cordon_session_cmd *c, struct pollfd *pfd, int *timeout_ms)
{
	size_t n = 0;

	if (!c || !pfd || !timeout_ms)
		return 0;
	if (c->ended) {
		*timeout_ms = 0;
		return 0;
	}
	if (c->out >= 0)
		pfd[n++] = (struct pollfd){ .fd = c->out, .events = POLLIN };
	if (c->err >= 0)
		pfd[n++] = (struct pollfd){ .fd = c->err, .events = POLLIN };
	if (c->ctl >= 0)
		pfd[n++] = (struct pollfd){ .fd = c->ctl, .events = POLLIN };
	if (c->deadline_us && !c->killed) {
		uint64_t now = now_us();
		int ms = c->deadline_us > now ? (int)((c->deadline_us - now) / 1000u) + 1 : 0;

		if (*timeout_ms < 0 || ms < *timeout_ms)
			*timeout_ms = ms;
	}
	return n;
}

/* Captured up to the cap (merged, in arrival order), counted past it;
 * handed to on_output while under it. */
static void cmd_output(struct cordon_session_cmd *c, int stream, const char *buf, size_t n)
{
	size_t room = c->output_len < c->max_output ? (size_t)(c->max_output - c->output_len) : 0, keep = n < room ? n : room;

	c->output_total += n;
	if (keep) {
		char *o = realloc(c->output, c->output_len + keep + 1);

		if (o) {
			memcpy(o + c->output_len, buf, keep);
			c->output_len += keep;
			o[c->output_len] = '\0';
			c->output = o;
		}
		if (c->on_output)
			c->on_output(c->userdata, stream, buf, keep);
	}
	if (keep < n && c->s->l->output_terminate && !c->killed) {
		c->output_killed = true;
		cordon_session_cmd_kill(c);
	}
}

static void cmd_read(struct cordon_session_cmd *c, int *fd, int stream)
{
	char buf[65536];
	ssize_t n = read(*fd, buf, sizeof(buf));

	if (n > 0)
		cmd_output(c, stream, buf, (size_t)n);
	else if (n == 0 || (errno != EAGAIN && errno != EINTR))
		close_fd(fd);
}

/* The records up to SESSION_CTL_MAX, the rest dropped; read until the
 * channel is empty (the reaper's last word and the channel's end come
 * together). */
static void cmd_read_ctl(struct cordon_session_cmd *c)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(c->ctl, buf, sizeof(buf))) > 0) {
		size_t room = SESSION_CTL_MAX - 1 - c->ctl_len, keep = (size_t)n < room ? (size_t)n : room;

		if (!keep)
			continue;
		if (c->ctl_len + keep + 1 > c->ctl_size) {
			size_t size = c->ctl_len + keep + 1 < 256 ? 256 : c->ctl_len + keep + 1;
			char *b = realloc(c->ctl_buf, size);

			if (!b)
				continue; /* short of memory: these records go */
			c->ctl_buf = b;
			c->ctl_size = size;
		}
		memcpy(c->ctl_buf + c->ctl_len, buf, keep);
		c->ctl_len += keep;
		c->ctl_buf[c->ctl_len] = '\0';
	}
	if (n == 0 || (errno != EAGAIN && errno != EINTR))
		close_fd(&c->ctl);
}

CORDON_API int cordon_session_cmd_step(struct cordon_session_cmd *c, const struct pollfd *pfd, size_t n)
{
	if (!c || (n && !pfd))
		return -EINVAL;
	for (size_t i = 0; i < n && !c->ended; i++) {
		if (!pfd[i].revents)
			continue;
		if (pfd[i].fd == c->out)
			cmd_read(c, &c->out, 1);
		else if (pfd[i].fd == c->err)
			cmd_read(c, &c->err, 2);
		else if (pfd[i].fd == c->ctl)
			cmd_read_ctl(c);
	}
	if (c->deadline_us && !c->killed && now_us() >= c->deadline_us) {
		c->timed_out = true;
		cordon_session_cmd_kill(c);
	}
	if (c->out < 0 && c->err < 0 && c->ctl < 0)
		c->ended = true;
	return c->ended ? 1 : 0;
}

/* Which of the session's rlimits ended the command, read as cordon_run
 * reads it where there is no cgroup counter: the signal the kernel sends,
 * or the command's own error text. */
static enum cordon_limit rlimit_fired(const struct cordon_limits *l, const struct cordon_result *res)
{
	bool failed = res->signal || res->exit_code != 0;
	const char *out = res->output;

	if (!l || !failed)
		return CORDON_LIMIT_NONE;
	if (l->cpu_seconds && (res->signal == SIGXCPU || res->signal == SIGKILL))
		return CORDON_LIMIT_CPU;
	if (l->memory && (strcasestr(out, "cannot allocate memory") || strcasestr(out, "memoryerror") ||
			  strcasestr(out, "out of memory")))
		return CORDON_LIMIT_MEMORY;
	if (l->file_size && (res->signal == SIGXFSZ || res->exit_code == 128 + SIGXFSZ || strcasestr(out, "file too large")))
		return CORDON_LIMIT_FILE_SIZE;
	if (l->open_files && strcasestr(out, "too many open files"))
		return CORDON_LIMIT_OPEN_FILES;
	return CORDON_LIMIT_NONE;
}

/* What the command's cgroup counted: forks refused at pids.max, memory
 * kills or refused charges. */
static enum cordon_limit cgroup_fired(const struct cordon_session_cmd *c, const struct cordon_result *res)
{
	struct limits_events ev = {};

	if (!c->s->cg)
		return CORDON_LIMIT_NONE;
	limits_cgroup_events(&c->cgroup, &ev);
	if (c->s->cg_limits.memory && (ev.oom_kills > 0 || (ev.mem_failcnt > 0 && (res->signal || res->exit_code))))
		return CORDON_LIMIT_MEMORY;
	if (c->s->cg_limits.processes && ev.pids_max > 0)
		return CORDON_LIMIT_PROCESSES;
	return CORDON_LIMIT_NONE;
}

/* The result from the reaper's "=STATUS" and the records before it. */
static int cmd_result(struct cordon_session_cmd *c, int status, struct cordon_result *res)
{
	const struct cordon_confined *confined = c->s->c;
	struct cordon_classification cls = {};
	int r;

	res->enforcement = confined->enforcement;
	res->grade = confined->grade;
	res->mode = confined->mode;
	res->output = c->output ? TAKE_PTR(c->output) : strdup("");
	if (!res->output)
		return -ENOMEM;
	res->output_len = c->output_len;
	res->output_total = c->output_total;
	res->truncated = c->output_total > c->output_len;
	res->duration_ms = (now_us() - c->start_us) / 1000u;
	res->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	res->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	res->status = strdup(c->ctl_buf);
	if (!res->status)
		return -ENOMEM;
	res->status_len = strlen(res->status);
	if (c->timed_out) {
		res->verdict = CORDON_VERDICT_TIMEOUT;
		res->exit_code = CORDON_EXIT_TIMEOUT;
		res->limit = CORDON_LIMIT_TIMEOUT;
	} else if ((r = cordon_classify_status(confined, res->signal ? 128 + res->signal : res->exit_code, res->status,
					       res->status_len, res->output, res->output_len, &cls)) == 0) {
		res->verdict = cls.verdict;
		res->runner_line = cls.line;
	} else
		return r;
	if (c->output_killed) {
		res->limit = CORDON_LIMIT_OUTPUT;
		if (res->verdict != CORDON_VERDICT_RUNNER_FAILED)
			res->verdict = CORDON_VERDICT_LIMIT_EXCEEDED;
	} else if (res->limit == CORDON_LIMIT_NONE &&
		   (res->limit = cgroup_fired(c, res)) != CORDON_LIMIT_NONE) {
		/* the kernel refused forks or killed for memory: the limit
		 * fired, whatever the exit; the verdict only on a failure */
		if (res->verdict != CORDON_VERDICT_RUNNER_FAILED && (res->signal || res->exit_code != 0))
			res->verdict = CORDON_VERDICT_LIMIT_EXCEEDED;
	} else if (res->limit == CORDON_LIMIT_NONE &&
		   (res->limit = rlimit_fired(cordon_launch_limits(c->s->l), res)) != CORDON_LIMIT_NONE) {
		if (res->verdict != CORDON_VERDICT_RUNNER_FAILED)
			res->verdict = CORDON_VERDICT_LIMIT_EXCEEDED;
	} else if (res->truncated && res->limit == CORDON_LIMIT_NONE)
		res->limit = CORDON_LIMIT_OUTPUT;
	for (int k = 0; k < _CORDON_LIMIT_MAX; k++)
		res->limits.mechanism[k] = k == CORDON_LIMIT_TIMEOUT || k == CORDON_LIMIT_OUTPUT ? CORDON_MECHANISM_SUPERVISOR
					   : k == CORDON_LIMIT_PROCESSES && c->s->cg_limits.processes
						   ? cordon_launch_limits_plan(c->s->l)->mechanism[k]
					   : k == CORDON_LIMIT_MEMORY && c->s->cg_limits.memory
						   ? cordon_launch_limits_plan(c->s->l)->mechanism[k]
						   : CORDON_MECHANISM_RLIMIT;
	res->limit_mechanism = res->limit == CORDON_LIMIT_NONE ? CORDON_MECHANISM_NONE : res->limits.mechanism[res->limit];
	return run_annotate(res, res->output, res->output_len, c->timeout_ms);
}

CORDON_API int cordon_session_cmd_collect(struct cordon_session_cmd *c, struct cordon_result **ret,
					  struct cordon_error *reterr)
{
	struct cordon_result *res;
	char *eq = NULL, *bang;
	int r;

	if (!c || !ret)
		return -EINVAL;
	if (!c->ended)
		return -EBUSY;
	if (c->collected)
		return -EALREADY;
	c->collected = true;
	bang = c->ctl_len && c->ctl_buf[0] == '!' ? c->ctl_buf + 1 : NULL;
	/* the last line "=STATUS" is the reaper's; before it, the command's records */
	for (char *p = c->ctl_buf; p && *p;) {
		char *nl = strchr(p, '\n');

		if (*p == '=')
			eq = p;
		p = nl ? nl + 1 : NULL;
	}
	if (bang) {
		bang[strcspn(bang, "\n")] = '\0';
		return error_set(reterr, -EPERM, "%s", bang);
	}
	if (!eq)
		return error_set(reterr, -ECONNRESET, "the command's server ended before it did");
	int status = atoi(eq + 1);

	*eq = '\0';
	c->ctl_len = (size_t)(eq - c->ctl_buf);
	res = calloc(1, sizeof(*res));
	if (!res)
		return -ENOMEM;
	r = cmd_result(c, status, res);
	if (r < 0) {
		cordon_result_free(res);
		return error_set(reterr, r, "the command's result: %s", strerror(-r));
	}
	*ret = res;
	return 0;
}

CORDON_API int cordon_session_cmd_wait(struct cordon_session_cmd *c, struct cordon_result **ret,
				       struct cordon_error *reterr)
{
	int r;

	if (!c || !ret)
		return -EINVAL;
	while (!c->ended) {
		struct pollfd pfd[CORDON_SESSION_CMD_MAX_POLLFDS];
		int wait_ms = -1;
		size_t n = cordon_session_cmd_pollfds(c, pfd, &wait_ms);
		int pr = poll(pfd, (nfds_t)n, wait_ms);

		if (pr < 0 && errno != EINTR) {
			r = -errno;
			cordon_session_cmd_kill(c);
			return error_set(reterr, r, "poll: %s", strerror(-r));
		}
		r = cordon_session_cmd_step(c, pfd, pr > 0 ? n : 0);
		if (r < 0)
			return r;
	}
	return cordon_session_cmd_collect(c, ret, reterr);
}

CORDON_API int cordon_session_run(struct cordon_session *s, const char *const *argv,
				  const struct cordon_session_cmd_opts *opts, struct cordon_result **ret,
				  struct cordon_error *reterr)
{
	_cleanup_(cordon_session_cmd_freep) struct cordon_session_cmd *c = NULL;
	int r;

	if (!ret)
		return error_set(reterr, -EINVAL, "no place for the result");
	r = cordon_session_spawn(s, argv, opts, &c, reterr);
	if (r < 0)
		return r;
	return cordon_session_cmd_wait(c, ret, reterr);
}
