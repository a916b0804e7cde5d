/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "dirlist.h"
#include "runlimits.h"
#include "process.h"
#include "strv.h"

extern char **environ;

#define KILL_TREE_MAX_ROUNDS 64

uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int count_entry(const char *name, unsigned char type, void *data)
{
	(void)name;
	(void)type;
	(*(int *)data)++;
	return 0;
}

int process_count_threads(void)
{
	struct stat st;
	int n = 0, r;

	/* procfs counts them in the directory's links: 2 + one per thread
	 * (one stat, not an open, two listings and a close); anything else
	 * is not that procfs, and the listing says */
	if (stat("/proc/self/task", &st) == 0 && st.st_nlink >= 3 && st.st_nlink < (nlink_t)INT_MAX)
		return (int)(st.st_nlink - 2);
	r = dirlist_path("/proc/self/task", 0, count_entry, &n);
	return r < 0 ? r : n;
}

int find_executable(const char *name, char **ret)
{
	const char *path;
	struct stat st;

	if (!name || !*name)
		return -EINVAL;
	if (strchr(name, '/')) {
		if (stat(name, &st) < 0)
			return -errno;
		if (!S_ISREG(st.st_mode) || access(name, X_OK) < 0)
			return -EACCES;
		*ret = strdup(name);
		return *ret ? 0 : -ENOMEM;
	}
	path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, ":");
		char *cand;

		if (n > 0 && p[0] == '/') {
			if (asprintf(&cand, "%.*s/%s", (int)n, p, name) < 0)
				return -ENOMEM;
			if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0) {
				*ret = cand;
				return 0;
			}
			free(cand);
		}
		p += n;
		if (*p == ':')
			p++;
	}
	return -ENOENT;
}

/* A growing list of pids: a tree has as many as it has, not a fixed cap
 * past which the rest would survive. */
struct pid_list {
	pid_t *v;
	size_t n, cap;
};

static int pid_list_push(struct pid_list *l, pid_t pid)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		pid_t *v = reallocarray(l->v, cap, sizeof(pid_t));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = pid;
	return 0;
}

/* The whole of a /proc file, however long: a cut-off read could end in
 * the middle of a pid ("12" of "1234") and name another process. */
static int read_whole(int fd, char **ret)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 0;

	for (;;) {
		if (cap - len < 4096 + 1) {
			char *b = realloc(buf, cap ? cap * 2 : 8192);

			if (!b)
				return -ENOMEM;
			buf = b;
			cap = cap ? cap * 2 : 8192;
		}
		ssize_t l = read(fd, buf + len, cap - len - 1);

		if (l < 0 && errno == EINTR)
			continue;
		if (l < 0)
			return -errno;
		if (l == 0)
			break;
		len += (size_t)l;
	}
	buf[len] = '\0';
	*ret = TAKE_PTR(buf);
	return 0;
}

struct task_walk {
	char dpath[64];
	struct pid_list *out;
	int err;
};

static int collect_task_children(const char *name, unsigned char type, void *data)
{
	struct task_walk *w = data;
	_cleanup_free_ char *buf = NULL;
	char cpath[384];
	int fd, r;

	(void)type;
	snprintf(cpath, sizeof(cpath), "%s/%s/children", w->dpath, name);
	fd = open(cpath, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	r = read_whole(fd, &buf);
	close(fd);
	if (r == -ENOMEM)
		return (w->err = r);
	for (char *s = buf, *end; s && *s; s = end) {
		long c = strtol(s, &end, 10);

		if (end == s)
			break;
		if (c > 0 && (r = pid_list_push(w->out, (pid_t)c)) < 0)
			return (w->err = r);
	}
	return 0;
}

/* Append the children of every thread of pid to out. A process that is
 * gone has none; only running out of memory is an error. */
static int collect_children(pid_t pid, struct pid_list *out)
{
	struct task_walk w = { .out = out };

	snprintf(w.dpath, sizeof(w.dpath), "/proc/%d/task", (int)pid);
	(void)dirlist_path(w.dpath, 0, collect_task_children, &w);
	return w.err;
}

/* Stop and kill every descendant of pid, leaves first. Out of memory, it
 * still kills every one it found, then says so. */
CORDON_API int cordon_kill_descendants(pid_t pid)
{
	struct pid_list cur = {}, prev = {};
	int killed = 0, r = 0;

	if (pid <= 0)
		return 0;
	/* Our own tree with no child in it at all, alive, stopped or a
	 * zombie (any thread's: waitid sees the whole group's): nothing to
	 * walk (the common end of a run: one call, not a /proc walk) */
	if (pid == getpid()) {
		siginfo_t si;

		if (waitid(P_ALL, 0, &si, WEXITED | WSTOPPED | WCONTINUED | WNOHANG | WNOWAIT | __WALL) < 0 &&
		    errno == ECHILD)
			return 0;
	}
	for (int round = 0; round < KILL_TREE_MAX_ROUNDS; round++) {
		cur.n = 0;
		r = pid_list_push(&cur, pid);
		if (r < 0)
			break;
		/* Breadth-first walk; stop each process so it cannot fork away
		 * while we look at the rest. */
		for (size_t i = 0; i < cur.n && r >= 0; i++) {
			if (i > 0)
				kill(cur.v[i], SIGSTOP);
			r = collect_children(cur.v[i], &cur);
		}
		if (r >= 0 && cur.n == 1)
			break;
		/* Killed children stay listed until their parent reaps them:
		 * the same set twice means nothing new appeared. */
		if (r >= 0 && cur.n == prev.n && memcmp(cur.v, prev.v, cur.n * sizeof(pid_t)) == 0)
			break;
		for (size_t i = cur.n; i-- > 1;)
			if (kill(cur.v[i], SIGKILL) == 0)
				killed++;
		if (r < 0)
			break;
		struct pid_list t = prev;
		prev = cur;
		cur = t;
	}
	free(cur.v);
	free(prev.v);
	return r < 0 ? r : killed;
}

int kill_tree(pid_t pid)
{
	int killed;

	if (pid <= 1)
		return 0;
	killed = cordon_kill_descendants(pid);
	if (killed < 0)
		killed = 0; /* out of memory: it killed all it found; pid goes too */
	if (kill(pid, SIGKILL) == 0)
		killed++;
	return killed;
}

int fd_set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}


int pidfd_open_compat(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* What the vfork'ed child of start_exec needs; it shares our memory. */
struct exec_args {
	const struct spawn_opts *o;
	int pipe_w, out_w, err_w, in_r, null_fd, status_w;
	const int *pass_w;
	pid_t parent;
	int err;                  /* set by the child when it cannot exec */
};

/* The mask on the "\nName:\t<hex>\n" line of a /proc status text; false
 * when the line is missing or malformed. Async-signal-safe. */
static bool status_mask(const char *text, const char *line, uint64_t *ret)
{
	const char *p = strstr(text, line);
	uint64_t v = 0;
	int n = 0;

	if (!p)
		return false;
	for (p += strlen(line); n < 17; p++, n++) {
		char ch = *p;

		if (ch >= '0' && ch <= '9')
			v = v << 4 | (uint64_t)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			v = v << 4 | (uint64_t)(ch - 'a' + 10);
		else
			break;
	}
	if (n == 0 || n > 16 || *p != '\n')
		return false;
	*ret = v;
	return true;
}

/* SIG_DFL for sig through the kernel's own call: glibc's sigaction refuses
 * the two real-time signals it keeps for itself (32 and 33: thread
 * cancellation, set*id), yet a caller may have left them ignored, and an
 * ignored signal stays ignored across exec. The kernel's struct: handler,
 * flags, restorer, mask (x86-64 and arm64 alike); SIG_DFL needs no
 * restorer. */
static void signal_default_raw(int sig)
{
	struct {
		void *handler;
		unsigned long flags;
		void *restorer;
		uint64_t mask;
	} k = { NULL, 0, NULL, 0 };

	(void)syscall(SYS_rt_sigaction, sig, &k, NULL, sizeof(k.mask));
}

/* Every signal's disposition back to SIG_DFL (an ignored one too), as the
 * command expects. Only those not at SIG_DFL already, as /proc/self/status
 * lists them (3 system calls instead of 62 on every launch); every one when
 * it cannot be read. SIGCHLD always: a SA_NOCLDWAIT on it is in no mask.
 * glibc's own two through the kernel's call (signal_default_raw).
 * Async-signal-safe. */
static void reset_signal_dispositions(void)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	uint64_t ign, cgt, set = UINT64_MAX;
	char buf[4096];
	ssize_t l = -1;
	int fd;

	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		l = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (l > 0) {
		buf[l] = '\0';
		if (status_mask(buf, "\nSigIgn:\t", &ign) && status_mask(buf, "\nSigCgt:\t", &cgt))
			set = ign | cgt;
	}
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && (sig == SIGCHLD || ((set >> (sig - 1)) & 1)) &&
		    sigaction(sig, &dfl, NULL) < 0 && errno == EINVAL)
			signal_default_raw(sig);
}

/* The child of start_exec: system calls only, then exec. */
/* In the child, after chdir(o->cwd): the directory the caller checked?
 * (async-signal-safe: a stat) */
static bool cwd_is_pinned(const struct spawn_opts *o)
{
	struct stat st;

	if (stat(".", &st) < 0)
		return false;
	if ((uint64_t)st.st_dev == o->cwd_dev && (uint64_t)st.st_ino == o->cwd_ino)
		return true;
	errno = ESTALE;
	return false;
}

static int exec_child(void *arg)
{
	struct exec_args *a = arg;
	const struct spawn_opts *o = a->o;
	sigset_t none;

	reset_signal_dispositions();
	/* Nothing outlives its caller: if we die, the command dies. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != a->parent)
		goto fail;
	if (o->own_group && setpgid(0, 0) < 0)
		goto fail;
	if (a->in_r >= 0 && dup2(a->in_r, 0) < 0)
		goto fail;
	if (a->null_fd >= 0 && dup2(a->null_fd, 0) < 0)
		goto fail;
	if (o->capture_stdout && dup2(a->pipe_w, 1) < 0)
		goto fail;
	else if (!o->capture_stdout && a->out_w >= 0 && dup2(a->out_w, 1) < 0)
		goto fail;
	if (o->capture_stderr && dup2(a->pipe_w, 2) < 0)
		goto fail;
	else if (!o->capture_stderr && a->err_w >= 0 && dup2(a->err_w, 2) < 0)
		goto fail;
	if (o->cwd && chdir(o->cwd) < 0)
		goto fail;
	if (o->cwd_pinned && !cwd_is_pinned(o))
		goto fail;
	/* dup2 clears close-on-exec on the copies only */
	if (a->status_w >= 0 && (dup2(a->status_w, o->status_fd) < 0 ||
				 (o->status_fd2 > 2 && dup2(a->status_w, o->status_fd2) < 0)))
		goto fail;
	for (size_t i = 0; i < o->n_pass; i++)
		if (dup2(a->pass_w[i], o->pass_at[i]) < 0)
			goto fail;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* A bare name is looked up on PATH, as a shell would. */
	if (strchr(o->argv[0], '/'))
		execve(o->argv[0], (char *const *)o->argv, o->envp ? o->envp : environ);
	else
		execvpe(o->argv[0], (char *const *)o->argv, o->envp ? o->envp : environ);
fail:
	a->err = errno ? errno : EINVAL;
	_exit(127);
}

/* Start argv the way posix_spawn does (a vfork-like clone on a stack of
 * its own, every signal blocked meanwhile, so it is safe in threaded
 * callers), but with the parent-death signal set, which posix_spawn
 * cannot do. An exec failure comes back as -errno, as from posix_spawn. */
int spawn_start_exec(const struct spawn_opts *o, const struct spawn_fds *f, pid_t *ret)
{
	_cleanup_close_ int null_fd = -1;
	struct exec_args a = {
		.o = o, .pipe_w = f->pipe_w, .out_w = f->out_w, .err_w = f->err_w, .in_r = f->in_r, .null_fd = -1,
		.status_w = f->status_w,
		.pass_w = f->pass_w,
		.parent = getpid(),
	};
	sigset_t all, old;
	size_t stack_size = 256 * 1024;
	void *stack;
	pid_t pid;

	if (!o->inherit_stdin) {
		null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (null_fd < 0)
			return -errno;
		a.null_fd = null_fd;
	}
	stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return -errno;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = clone(exec_child, (char *)stack + stack_size, CLONE_VM | CLONE_VFORK | SIGCHLD, &a);
	int err = pid < 0 ? errno : 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	munmap(stack, stack_size);
	if (pid < 0)
		return -err;
	if (a.err) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		return -a.err;
	}
	*ret = pid;
	return 0;
}

/* A failure of ours in the forked child, before the runner ran: the line
 * on stderr for people, and a record on the status channel (when there is
 * one) so it reads as the runner failing. Only write(2): async-signal-safe. */
static void child_fail(int status_w, const char *step, const char *line, size_t len)
{
	(void)!write(2, line, len);
	if (status_w >= 0) {
		(void)!write(status_w, step, strlen(step));
		(void)!write(status_w, "\t-\t", 3);
		(void)!write(status_w, line, len);
	}
}

/* Where the kernel put our command line (its arg_start and arg_end), as
 * the process started: glibc gives an ELF constructor main's argc, argv
 * and envp, and the kernel laid the argument strings out back to back,
 * the environment's strings right after them (with none, the executable's
 * name, AT_EXECFN). Noted only when argv reads exactly so (a library
 * loaded after the caller rearranged its argv notes nothing); then the
 * forked child needs no /proc/self/stat, which costs it some 25 us a
 * launch in a process the size of cordon's CLI. */
static unsigned long cmdline_start, cmdline_end;

__attribute__((constructor)) static void note_cmdline(int argc, char **argv, char **envp)
{
	const char *end, *next;

	if (argc < 1 || !argv || !argv[0])
		return;
	end = argv[0];
	for (int i = 0; i < argc; i++) {
		if (argv[i] != end)
			return;
		end += strlen(end) + 1;
	}
	next = envp && envp[0] ? envp[0] : (const char *)getauxval(AT_EXECFN);
	if (next != end)
		return;
	cmdline_start = (unsigned long)argv[0];
	cmdline_end = (unsigned long)end;
}

/* In a forked child that will not exec: blank our copy of the caller's
 * command line (all but argv[0]), which /proc/PID/cmdline shows to every
 * local user and which may carry values (`cordon run --setenv N=V`). The
 * memory is the child's own copy-on-write page; the caller's is untouched.
 * Where it is: as noted at start, else from /proc/self/stat, fields 48
 * and 49 (Linux 3.5). Best effort: nothing is blanked if they cannot be
 * read. */
static void child_blank_cmdline(void)
{
	char buf[2048], *p;
	unsigned long start = cmdline_start, end = cmdline_end;
	ssize_t l;
	int fd, field = 2;

	if (start)
		goto blank;
	fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	l = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (l <= 0)
		return;
	buf[l] = '\0';
	p = strrchr(buf, ')'); /* the command name may hold spaces and ')' */
	if (!p)
		return;
	for (char *tok = strtok(p + 1, " "); tok; tok = strtok(NULL, " ")) {
		field++;
		if (field == 48)
			start = strtoul(tok, NULL, 10);
		else if (field == 49) {
			end = strtoul(tok, NULL, 10);
			break;
		}
	}
blank:
	if (start == 0 || end <= start || end - start > (1ul << 24))
		return;
	char *area = (char *)start;
	size_t n = end - start, first = strnlen(area, n);

	if (first + 1 < n)
		memset(area + first + 1, 0, n - first - 1);
}


/* The same set-up, then the limits (cgroups joined, rlimits set), then
 * child_main in the forked child, or an exec of argv. Only for
 * single-threaded callers: the child runs ordinary code. */
int spawn_start_forked(const struct spawn_opts *o, const struct spawn_fds *f, pid_t *ret)
{
	int pipe_w = f->pipe_w, out_w = f->out_w, err_w = f->err_w, in_r = f->in_r, status_w = f->status_w;
	const int *pass_w = f->pass_w;
	pid_t parent = getpid(), pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		sigset_t none;
		int fd;

		reset_signal_dispositions();
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* Nothing outlives cordon: the runner's init and the light
		 * runner take the rest of the tree down with them. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
			_exit(127);
		if (o->own_group && setpgid(0, 0) < 0)
			_exit(127);
		if (in_r >= 0 && dup2(in_r, 0) < 0)
			_exit(127);
		if (!o->inherit_stdin) {
			fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
			if (fd < 0 || dup2(fd, 0) < 0)
				_exit(127);
		}
		if ((o->capture_stdout && dup2(pipe_w, 1) < 0) || (o->capture_stderr && dup2(pipe_w, 2) < 0))
			_exit(127);
		if (!o->capture_stdout && out_w >= 0 && dup2(out_w, 1) < 0)
			_exit(127);
		if (!o->capture_stderr && err_w >= 0 && dup2(err_w, 2) < 0)
			_exit(127);
		if (o->cwd && chdir(o->cwd) < 0)
			_exit(127);
		if (o->cwd_pinned && !cwd_is_pinned(o))
			_exit(127);
		if (o->limits && limits_child_apply(o->limits) < 0) {
			static const char msg[] = "cordon: limits: cannot join the run's cgroup or set its rlimits\n";

			child_fail(status_w, "limits", msg, sizeof(msg) - 1);
			_exit(125);
		}
		/* Last: the number may be one of our fds the steps above still
		 * needed (a cgroup.procs fd). dup2 clears close-on-exec on the
		 * copy only. */
		if (status_w >= 0) {
			if (dup2(status_w, o->status_fd) < 0 || (o->status_fd2 > 2 && dup2(status_w, o->status_fd2) < 0))
				_exit(127);
			status_w = o->status_fd;
		}
		/* the end pipe stays close-on-exec: it is for child_main's tree */
		if (f->end_w >= 0 && dup3(f->end_w, o->end_fd, O_CLOEXEC) < 0)
			_exit(127);
		for (size_t i = 0; i < o->n_pass; i++)
			if (dup2(pass_w[i], o->pass_at[i]) < 0)
				_exit(127);
		if (!o->child_main) {
			static const char msg[] = "cordon: spawn: cannot execute the runner\n";

			if (strchr(o->argv[0], '/'))
				execve(o->argv[0], (char *const *)o->argv, o->envp ? o->envp : environ);
			else
				execvpe(o->argv[0], (char *const *)o->argv, o->envp ? o->envp : environ);
			child_fail(status_w, "spawn", msg, sizeof(msg) - 1);
			_exit(127);
		}
		/* The in-process runner reads its environment from environ,
		 * and must not show the caller's command line as its own. */
		if (o->envp)
			environ = (char **)o->envp;
		child_blank_cmdline();
		int argc = 0;
		while (o->argv[argc])
			argc++;
		_exit(o->child_main(argc - o->child_argv_skip, (char **)o->argv + o->child_argv_skip));
	}
	*ret = pid;
	return 0;
}
