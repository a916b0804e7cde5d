/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* --net proxy, the runner's side (see netproxy.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "cordon/cordon.h"
#include "errbuf.h"
#include "net_allow.h"
#include "netproxy.h"
#include "netrule.h"
#include "policy.h"
#include "runner.h"

_Static_assert(NETPROXY_HTTP_PORT == POLICY_PROXY_HTTP_PORT && NETPROXY_SOCKS_PORT == POLICY_PROXY_SOCKS_PORT,
	       "the proxy variables name the listeners' ports");

size_t netproxy_env_add(char **envp, size_t k)
{
	for (size_t i = 0; policy_proxy_env[i]; i++)
		envp[k++] = (char *)policy_proxy_env[i];
	envp[k] = NULL;
	return k;
}

int netproxy_check_rule(const char *flag, const char *value, char *err, size_t errlen)
{
	struct cordon_netrules scratch = {};
	struct cordon_error why;
	int r;

	if (strcmp(flag, "--allow-address") == 0)
		r = netrules_add_address(&scratch, value, &why);
	else
		r = netrules_add_host(&scratch, false, value, &why);
	netrules_done(&scratch);
	if (r < 0)
		return errbuf_set(err, errlen, r, "%s: %s", flag, why.message);
	return 0;
}

static size_t count(const char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

static void push_rules(const char **argv, size_t *k, const char *flag, const char *const *v)
{
	for (size_t i = 0; v && v[i]; i++) {
		argv[(*k)++] = flag;
		argv[(*k)++] = v[i];
	}
}

/* The proxy process, between fork and exec: only async-signal-safe calls. */
_Noreturn static void exec_proxy(const char *exe, int ctl, int status, int creds, const char **argv, pid_t parent)
{
	sigset_t none;
	int null;

	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	/* nothing outlives the run */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
		_exit(EXEC_EXIT_FAILED);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0)
		_exit(EXEC_EXIT_FAILED);
	/* ctl, the status channel and the credential table are the fds it
	 * keeps besides stdio (audit lines: stderr; each refusal also as a
	 * denial record on the status channel) */
	(void)close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
	if (fcntl(ctl, F_SETFD, 0) < 0 || (status >= 0 && fcntl(status, F_SETFD, 0) < 0))
		_exit(EXEC_EXIT_FAILED);
	/* and the credential table's pipe, at its secret part */
	if (creds >= 0 && fcntl(creds, F_SETFD, 0) < 0)
		_exit(EXEC_EXIT_FAILED);
	/* nothing of the runner's environment: the proxy needs none of it */
	execve(exe, (char *const *)argv, (char *const[]){ NULL });
	_exit(EXEC_EXIT_FAILED);
}

/* The proxy comes from the runner's own binary. When this program is cordon
 * (exec'd as `cordon exec`), that is this very file; a runner entered
 * in-process runs in a caller's program, which is not cordon, so there it is
 * the runner binary the caller's argv named (run.c enters the runner
 * in-process only when argv[0] is cordon_runner_path()).
 *
 * With a credential table the proxy intercepts TLS: libssl, which only
 * cordon-supervisor loads, so the lean binary would exec it in turn
 * (cli_main). It is exec'd directly where the lean binary would find it
 * (beside itself, else the installed libexec directory; the proxy gets no
 * environment, so no CORDON_SUPERVISOR): one exec fewer at every session
 * start with a credential. Not found: the runner's binary, which says why. */
static void proxy_binary(struct exec_ctx *x, bool creds)
{
	const char *exe = x->self_is_cordon ? "/proc/self/exe" : cordon_runner_path();
	char self[PATH_MAX], sup[PATH_MAX];
	const char *slash;
	ssize_t l;
	size_t len;
	int n = -1;

	if (creds && x->self_is_cordon && (l = readlink(exe, self, sizeof(self) - 1)) > 0)
		self[l] = '\0';
	else
		snprintf(self, sizeof(self), "%s", creds ? exe : "");
	slash = strrchr(self, '/');
	if (slash)
		n = snprintf(sup, sizeof(sup), "%.*s/cordon-supervisor", (int)(slash - self), self);
	if (slash && n > 0 && (size_t)n < sizeof(sup) && access(sup, X_OK) == 0)
		exe = sup;
	else if (creds && snprintf(sup, sizeof(sup), "%s/cordon/cordon-supervisor", CORDON_LIBEXECDIR) < (int)sizeof(sup) &&
		 access(sup, X_OK) == 0)
		exe = sup;
	len = strlen(exe);
	if (len >= sizeof(x->proxy_exe))
		exec_die("proxy", "the runner's path is too long");
	memcpy(x->proxy_exe, exe, len + 1);
}

void netproxy_start(struct exec_ctx *x)
{
	const struct plan *p = x->plan;
	size_t n = 11 + 2 * (count(p->allow_domains) + count(p->deny_domains) + count(p->allow_addresses)), k = 0;
	const char **argv = calloc(n, sizeof(*argv));
	char fdnum[16], statusnum[16], credsnum[16];
	int status = status_channel_fd();
	int pair[2];
	pid_t pid, self = getpid();

	if (!argv)
		exec_die("proxy", "out of memory");
	proxy_binary(x, p->credentials_fd >= 0);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0)
		exec_die("proxy", "socketpair: %m");
	snprintf(fdnum, sizeof(fdnum), "%d", pair[0]);
	argv[k++] = "cordon";
	argv[k++] = "proxy";
	argv[k++] = "--control-fd";
	argv[k++] = fdnum;
	if (status >= 0) {
		snprintf(statusnum, sizeof(statusnum), "%d", status);
		argv[k++] = "--status-fd";
		argv[k++] = statusnum;
	}
	if (p->net == CORDON_NET_ALLOW)
		argv[k++] = "--transparent"; /* init asks it for connections on the control socket */
	push_rules(argv, &k, "--deny-domain", p->deny_domains);
	push_rules(argv, &k, "--allow-domain", p->allow_domains);
	push_rules(argv, &k, "--allow-address", p->allow_addresses);
	if (p->credentials_fd >= 0) {
		snprintf(credsnum, sizeof(credsnum), "%d", p->credentials_fd);
		argv[k++] = "--credentials-fd";
		argv[k++] = credsnum;
	}
	argv[k] = NULL;
	pid = fork();
	if (pid < 0)
		exec_die("proxy", "fork: %m");
	if (pid == 0)
		exec_proxy(x->proxy_exe, pair[0], status, p->credentials_fd, argv, self);
	free(argv);
	close(pair[0]);
	/* the table is the proxy's alone: nothing after this holds it */
	if (p->credentials_fd >= 0)
		close(p->credentials_fd);
	x->proxy_pid = pid;
	x->proxy_fd = pair[1];
}

void netproxy_after_clone(struct exec_ctx *x)
{
	if (x->proxy_fd >= 0)
		close(x->proxy_fd);
	x->proxy_fd = -1;
}

static int listen_loopback(uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -errno;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 1024) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

/* The proxy's word that it runs, set up and confined. What was exec'd may
 * not be cordon's proxy (a library caller may name any program as its
 * runner): then nothing is handed over, and the run fails. */
static void wait_ready(const struct exec_ctx *x, int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char buf[sizeof(NETPROXY_READY)];
	ssize_t n;
	int r;

	do
		r = poll(&pfd, 1, NETPROXY_READY_MS);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		exec_die("proxy", "the network proxy (%s proxy) did not say it was ready within %d s: nothing was handed to it",
			 x->proxy_exe, NETPROXY_READY_MS / 1000);
	n = r < 0 ? -1 : recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n != (ssize_t)sizeof(NETPROXY_READY) - 1 || memcmp(buf, NETPROXY_READY, (size_t)n) != 0)
		exec_die("proxy", "the network proxy (%s proxy) did not start (%s): the sandbox gets no way out",
			 x->proxy_exe, n == 0 ? "it ended" : n < 0 ? strerror(errno) : "it is not cordon's proxy");
	__atomic_store_n(&x->shared->proxy_ready, 1, __ATOMIC_RELEASE);
}

void netproxy_listen(struct exec_ctx *x, size_t step)
{
	int fds[2], r;
	char kinds[2] = { 'H', 'S' }, cbuf[CMSG_SPACE(sizeof(fds))] = {};
	struct iovec iov = { kinds, sizeof(kinds) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	wait_ready(x, x->proxy_fd);
	fds[0] = listen_loopback(NETPROXY_HTTP_PORT);
	if (fds[0] < 0) {
		errno = -fds[0];
		exec_die("proxy", "cannot listen on 127.0.0.1:%d in the sandbox: %m", NETPROXY_HTTP_PORT);
	}
	fds[1] = listen_loopback(NETPROXY_SOCKS_PORT);
	if (fds[1] < 0) {
		errno = -fds[1];
		exec_die("proxy", "cannot listen on 127.0.0.1:%d in the sandbox: %m", NETPROXY_SOCKS_PORT);
	}
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(cm), fds, sizeof(fds));
	r = (int)sendmsg(x->proxy_fd, &m, MSG_NOSIGNAL);
	if (r < 0)
		exec_die("proxy", "cannot hand the listeners to the proxy (it has ended?): %m");
	/* the proxy holds the only copies now: when it ends, so do they */
	close(fds[0]);
	close(fds[1]);
	if (x->plan->net == CORDON_NET_ALLOW) {
		/* init's gate asks the proxy for each connection on it */
		net_allow_setup(x);
		return;
	}
	close(x->proxy_fd);
	x->proxy_fd = -1;
}

_Noreturn void netproxy_died(struct exec_ctx *x, pid_t init_pid, int status)
{
	char how[64];

	(void)kill(init_pid, SIGKILL);
	(void)waitpid(init_pid, NULL, 0);
	if (WIFSIGNALED(status))
		snprintf(how, sizeof(how), "killed by signal %d (%s)", WTERMSIG(status),
			 sigabbrev_np(WTERMSIG(status)) ?: "?");
	else
		snprintf(how, sizeof(how), "exit status %d", WEXITSTATUS(status));
	x->proxy_pid = 0;
	if (!__atomic_load_n(&x->shared->proxy_ready, __ATOMIC_ACQUIRE))
		exec_die("proxy", "the network proxy (%s proxy) did not start (it ended, %s): the sandbox gets no way out",
			 x->proxy_exe, how);
	exec_die("proxy", "the network proxy ended (%s) while the command ran; the run was stopped: the proxy is the "
	    "sandbox's only way out, and no other is made", how);
}
