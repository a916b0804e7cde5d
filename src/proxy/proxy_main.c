/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `cordon proxy`: the proxy process. The runner starts it (--net proxy)
 * with the rules on its command line and a unix socket (--control-fd) on
 * which the sandbox's listening sockets arrive; it can also listen on
 * loopback itself (--listen-http/--listen-socks, for tests and benchmarks).
 *
 * It is a subcommand of the one cordon binary rather than an executable of
 * its own so that the runner always starts the proxy that was built with it
 * (the runner's own binary: /proc/self/exe, or the runner path an in-process
 * runner was entered for; no search path), and it is exec'd, not forked, so
 * that the process parsing untrusted bytes starts from a fresh image.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cleanup.h"
#include "netproxy.h"
#include "proxy.h"

static const char usage[] =
	"usage: cordon proxy [--control-fd N] [--audit-fd N] [--status-fd N] [--listen-http ADDR:PORT] [--listen-socks ADDR:PORT]\n"
	"                    [--allow-domain H]... [--deny-domain H]... [--allow-address A[/N]]...\n"
	"                    [--max-conns N] [--head-timeout S] [--connect-timeout S] [--idle-timeout S]\n"
	"                    [--total-timeout S] [--credentials-fd N] [--transparent]\n"
	"Internal: the runner starts it for --net proxy.\n";

static int parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *ret)
{
	char *end;
	unsigned long v;

	errno = 0;
	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -EINVAL;
	*ret = (unsigned)v;
	return 0;
}

/* A listening socket on ADDR:PORT (IPv4 loopback or any literal); prints
 * the bound port so a caller that asked for port 0 learns it. */
static int listen_on(const char *spec, int *ret)
{
	char host[64];
	const char *colon = strrchr(spec, ':');
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	unsigned port;
	int fd, one = 1;

	if (!colon || (size_t)(colon - spec) >= sizeof(host) || parse_uint(colon + 1, 0, 65535, &port) < 0)
		return -EINVAL;
	memcpy(host, spec, (size_t)(colon - spec));
	host[colon - spec] = '\0';
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		return -EINVAL;
	sa.sin_port = htons((uint16_t)port);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 1024) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	*ret = fd;
	return ntohs(sa.sin_port);
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct cordon_netrules *, cordon_netrules_free)

bool cordon_proxy_wants_credentials(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--credentials-fd") == 0)
			return true;
	return false;
}

int cordon_proxy_main(int argc, char **argv, proxy_intercept_load_fn load)
{
	struct proxy_config cfg = {
		.max_conns = 1024, .head_timeout = 30, .connect_timeout = 15, .idle_timeout = 600,
		.total_timeout = 0, .audit_fd = -1, .status_fd = -1,
	};
	_cleanup_(cordon_netrules_freep) struct cordon_netrules *rules = NULL;
	const char *listen_http = NULL, *listen_socks = NULL;
	int control_fd = -1, creds_fd = -1, r, fd = -1;
	struct proxy px;
	char err[512];
	unsigned u;

	signal(SIGPIPE, SIG_IGN);
	if (cordon_netrules_new(&rules) < 0) {
		fprintf(stderr, "cordon proxy: out of memory\n");
		return 1;
	}
	cfg.rules = rules;
	for (int i = 1; i < argc; i++) {
		const char *f = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(f, "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		}
		if (strcmp(f, "--transparent") == 0) {
			cfg.transparent = true;
			continue;
		}
		if (!v) {
			fprintf(stderr, "cordon proxy: %s needs a value\n%s", f, usage);
			return 2;
		}
		i++;
		r = 0;
		err[0] = '\0';
		if (strcmp(f, "--allow-domain") == 0 || strcmp(f, "--deny-domain") == 0)
			r = cordon_netrules_add(rules, f[2] == 'd' ? CORDON_NET_DENY_DOMAIN : CORDON_NET_ALLOW_DOMAIN, v,
						err, sizeof(err));
		else if (strcmp(f, "--allow-address") == 0)
			r = cordon_netrules_add(rules, CORDON_NET_ALLOW_ADDRESS, v, err, sizeof(err));
		else if (strcmp(f, "--control-fd") == 0 || strcmp(f, "--audit-fd") == 0 ||
			 strcmp(f, "--credentials-fd") == 0 || strcmp(f, "--status-fd") == 0) {
			r = parse_uint(v, 3, 65535, &u);
			if (r == 0 && fcntl((int)u, F_SETFD, FD_CLOEXEC) < 0)
				r = -EBADF;
			if (r == 0)
				*(strcmp(f, "--credentials-fd") == 0 ? &creds_fd :
				  strcmp(f, "--control-fd") == 0   ? &control_fd :
				  strcmp(f, "--audit-fd") == 0     ? &cfg.audit_fd :
								     &cfg.status_fd) = (int)u;
		} else if (strcmp(f, "--listen-http") == 0)
			listen_http = v;
		else if (strcmp(f, "--listen-socks") == 0)
			listen_socks = v;
		else if (strcmp(f, "--max-conns") == 0)
			r = parse_uint(v, 1, 65536, &cfg.max_conns);
		else if (strcmp(f, "--head-timeout") == 0)
			r = parse_uint(v, 1, 86400, &cfg.head_timeout);
		else if (strcmp(f, "--connect-timeout") == 0)
			r = parse_uint(v, 1, 86400, &cfg.connect_timeout);
		else if (strcmp(f, "--idle-timeout") == 0)
			r = parse_uint(v, 1, 86400 * 7, &cfg.idle_timeout);
		else if (strcmp(f, "--total-timeout") == 0)
			r = parse_uint(v, 0, 86400 * 7, &cfg.total_timeout);
		else {
			fprintf(stderr, "cordon proxy: unknown flag '%.64s'\n%s", f, usage);
			return 2;
		}
		if (r < 0) {
			fprintf(stderr, "cordon proxy: %s: %s\n", f, err[0] ? err : "a bad value");
			return 2;
		}
	}

	/* Each connection holds two fds (the client's socket, the
	 * upstream's): take the hard limit, and cap the connections to what
	 * it allows. */
	{
		struct rlimit rl;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
			rl.rlim_cur = rl.rlim_max;
			(void)setrlimit(RLIMIT_NOFILE, &rl);
			(void)getrlimit(RLIMIT_NOFILE, &rl);
			if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 64 + 2 * (rlim_t)cfg.max_conns)
				cfg.max_conns = rl.rlim_cur > 64 + 2 ? (unsigned)((rl.rlim_cur - 64) / 2) : 1;
		}
	}
	/* the credentials: read, and every TLS context made, before the
	 * proxy confines itself (it opens no file after) */
	if (creds_fd >= 0) {
		if (!load) {
			fprintf(stderr, "cordon proxy: --credentials-fd needs cordon-supervisor\n");
			return 1;
		}
		r = load(creds_fd, &cfg.intercept, err, sizeof(err));
		if (r < 0) {
			fprintf(stderr, "cordon proxy: %s\n", err);
			return 1;
		}
	}
	r = proxy_init(&px, &cfg, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "cordon proxy: %s\n", err);
		return 1;
	}
	if (control_fd >= 0 && (r = proxy_add_control(&px, control_fd)) < 0) {
		fprintf(stderr, "cordon proxy: the control socket: %s\n", strerror(-r));
		return 1;
	}
	for (int k = 0; k < 2; k++) {
		const char *spec = k ? listen_socks : listen_http;

		if (!spec)
			continue;
		r = listen_on(spec, &fd);
		if (r < 0 || proxy_add_listener(&px, fd, k ? PROXY_LISTEN_SOCKS : PROXY_LISTEN_HTTP) < 0) {
			fprintf(stderr, "cordon proxy: cannot listen on %s: %s\n", spec, strerror(r < 0 ? -r : EIO));
			return 1;
		}
		printf("cordon-proxy: listening %s %d\n", k ? "socks" : "http", r);
	}
	fflush(stdout);
	r = proxy_confine(err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "cordon proxy: cannot confine itself: %s\n", err);
		return 1;
	}
	/* ready, and confined: the runner hands over the listeners only
	 * after this, so nothing but cordon's proxy ever gets them */
	if (control_fd >= 0 && send(control_fd, NETPROXY_READY, sizeof(NETPROXY_READY) - 1, MSG_NOSIGNAL) < 0) {
		fprintf(stderr, "cordon proxy: the control socket: %s\n", strerror(errno));
		return 1;
	}
	r = proxy_run(&px);
	proxy_done(&px);
	return r < 0 ? 1 : 0;
}
