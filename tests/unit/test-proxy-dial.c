/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The proxy's connection and dial code (src/proxy/conn.c, dial.c), in
 * process: the proxy's loop runs in a child of the test on a loopback
 * listener, with rules the test builds; the upstreams are loopback servers
 * the test makes (each counts the connections it accepted). What a request
 * reaches is read from the upstream's side, not only from the answer:
 *   - address rules on the answers: loopback (a literal, and a name that
 *     resolves to it: rebinding), private and metadata addresses refused
 *     unless an address rule names them, the upstream never dialled;
 *     control: the same dial with the address rule, relayed;
 *   - a stalled peer: a head that never ends, and a tunnel where nothing
 *     moves, are closed by their timeouts;
 *   - a second request on one connection is decided again: relayed when
 *     allowed (the upstream sees both), refused when not.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conn.h"
#include "proxy.h"

static pid_t proxy_pid = -1, up_pid = -1;
static int proxy_port, up_port, audit_r = -1;
static int *accepted; /* shared with the upstream: connections it accepted */
static int *requests; /* ... and request heads it read */

static int listen_lo(int *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	cr_assert_geq(fd, 0);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	cr_assert_eq(listen(fd, 16), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

/* The upstream: counts connections; a request head gets "ok N" (N: the
 * requests so far), then the close the proxy asks for (Connection:
 * close); a connection that starts with "ECHO" is echoed; "STALL" is
 * never answered. */
_Noreturn static void upstream(int ls)
{
	signal(SIGCHLD, SIG_IGN);
	for (;;) {
		int c = accept4(ls, NULL, NULL, SOCK_CLOEXEC);

		if (c < 0)
			_exit(1);
		__atomic_add_fetch(accepted, 1, __ATOMIC_SEQ_CST);
		if (fork() != 0) {
			close(c);
			continue;
		}
		char buf[8192];
		size_t len = 0;
		ssize_t n;

		while ((n = read(c, buf + len, sizeof(buf) - 1 - len)) > 0) {
			len += (size_t)n;
			buf[len] = '\0';
			if (strncmp(buf, "ECHO", 4) == 0) {
				(void)!write(c, buf, len);
				len = 0;
				continue;
			}
			if (strncmp(buf, "STALL", 5) == 0)
				continue;
			char *end;
			while ((end = strstr(buf, "\r\n\r\n"))) {
				char reply[128];
				int k = __atomic_add_fetch(requests, 1, __ATOMIC_SEQ_CST);
				int m = snprintf(reply, sizeof(reply), "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nok %d\n", k % 10);

				(void)!write(c, reply, (size_t)m);
				if (strcasestr(buf, "Connection: close"))
					_exit(0);
				size_t used = (size_t)(end + 4 - buf);
				memmove(buf, buf + used, len - used + 1);
				len -= used;
			}
		}
		_exit(0);
	}
}

/* The proxy's loop, with these rules (kind, spec pairs) and timeouts. */
static void start_proxy(const char *const *allow_domains, const char *const *allow_addresses, unsigned head_timeout,
			unsigned idle_timeout)
{
	int ls = listen_lo(&proxy_port), audit[2];

	cr_assert_eq(pipe2(audit, O_CLOEXEC), 0);
	proxy_pid = fork();
	cr_assert_geq(proxy_pid, 0);
	if (proxy_pid == 0) {
		struct cordon_netrules *rules = NULL;
		struct proxy px;
		char err[256];

		if (cordon_netrules_new(&rules) < 0)
			_exit(2);
		for (size_t i = 0; allow_domains && allow_domains[i]; i++)
			if (cordon_netrules_add(rules, CORDON_NET_ALLOW_DOMAIN, allow_domains[i], err, sizeof(err)) < 0)
				_exit(3);
		for (size_t i = 0; allow_addresses && allow_addresses[i]; i++)
			if (cordon_netrules_add(rules, CORDON_NET_ALLOW_ADDRESS, allow_addresses[i], err, sizeof(err)) < 0)
				_exit(4);
		struct proxy_config cfg = {
			.rules = rules, .max_conns = 16, .head_timeout = head_timeout, .connect_timeout = 5,
			.idle_timeout = idle_timeout, .audit_fd = audit[1], .status_fd = -1,
		};
		close(audit[0]);
		if (proxy_init(&px, &cfg, err, sizeof(err)) < 0 || proxy_add_listener(&px, ls, PROXY_LISTEN_HTTP) < 0)
			_exit(5);
		_exit(proxy_run(&px) < 0 ? 6 : 0);
	}
	close(ls);
	close(audit[1]);
	audit_r = audit[0];
}

static void setup(void)
{
	int ls;

	accepted = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(accepted, MAP_FAILED);
	requests = accepted + 1;
	ls = listen_lo(&up_port);
	up_pid = fork();
	cr_assert_geq(up_pid, 0);
	if (up_pid == 0)
		upstream(ls);
	close(ls);
}

static void teardown(void)
{
	if (proxy_pid > 0) {
		kill(proxy_pid, SIGKILL);
		waitpid(proxy_pid, NULL, 0);
	}
	if (up_pid > 0) {
		kill(-up_pid, SIGKILL);
		kill(up_pid, SIGKILL);
		waitpid(up_pid, NULL, 0);
	}
	if (audit_r >= 0)
		close(audit_r);
}

TestSuite(proxy_dial, .init = setup, .fini = teardown, .timeout = 30);

static int client(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)proxy_port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	cr_assert_geq(fd, 0);
	cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0, "%m");
	return fd;
}

/* Read until want appears, EOF, or timeout_ms; what was read. */
static size_t read_until(int fd, char *buf, size_t size, const char *want, int timeout_ms)
{
	size_t len = 0;

	buf[0] = '\0';
	while (len < size - 1 && !(want && strstr(buf, want))) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, timeout_ms) <= 0)
			break;
		n = read(fd, buf + len, size - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
	}
	return len;
}

/* CONNECT target; the proxy's answer head. */
static int connect_via(const char *target, char *head, size_t size)
{
	int fd = client();
	char req[512];
	int n = snprintf(req, sizeof(req), "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target);

	cr_assert_eq(write(fd, req, (size_t)n), n);
	read_until(fd, head, size, "\r\n\r\n", 5000);
	return fd;
}

static void refused_undialled(const char *target, const char *reason)
{
	char head[2048], want[128];
	int before = *accepted;
	int fd = connect_via(target, head, sizeof(head));

	snprintf(want, sizeof(want), "X-Cordon-Error: %s", reason);
	cr_assert(strncmp(head, "HTTP/1.1 403", 12) == 0, "%s: %s", target, head);
	cr_assert_not_null(strstr(head, want), "%s: want %s: %s", target, reason, head);
	close(fd);
	usleep(100 * 1000);
	cr_assert_eq(*accepted, before, "%s: the upstream was dialled", target);
}

Test(proxy_dial, loopback_private_and_metadata_answers_are_refused_undialled)
{
	char lit[64], name[64], priv[64], meta[64], cgnat[64];
	const char *domains[6];

	snprintf(lit, sizeof(lit), "127.0.0.1:%d", up_port);
	snprintf(name, sizeof(name), "localhost:%d", up_port);
	snprintf(priv, sizeof(priv), "10.1.2.3:%d", up_port);
	snprintf(meta, sizeof(meta), "169.254.169.254:%d", up_port);
	snprintf(cgnat, sizeof(cgnat), "100.64.0.1:%d", up_port);
	domains[0] = lit, domains[1] = name, domains[2] = priv, domains[3] = meta, domains[4] = cgnat, domains[5] = NULL;
	/* every name allowed; no address rule: no answer is admitted */
	start_proxy(domains, NULL, 5, 10);
	refused_undialled(lit, "address-loopback");
	/* rebinding: a name its rule allows, whose answer is loopback */
	refused_undialled(name, "address-loopback");
	refused_undialled(priv, "address-private");
	refused_undialled(meta, "address-");
	refused_undialled(cgnat, "address-");
	/* a name no rule allows: refused on the name */
	char other[64];
	snprintf(other, sizeof(other), "127.0.0.2:%d", up_port);
	refused_undialled(other, "ip-literal");
	/* the audit line says it */
	char audit[4096];
	read_until(audit_r, audit, sizeof(audit), "address-private", 2000);
	cr_assert_not_null(strstr(audit, "refused"), "%s", audit);
}

Test(proxy_dial, control_an_address_rule_admits_the_dial)
{
	char lit[64], head[2048], echo[64];
	const char *domains[] = { lit, NULL }, *addresses[] = { "127.0.0.1", NULL };

	snprintf(lit, sizeof(lit), "127.0.0.1:%d", up_port);
	start_proxy(domains, addresses, 5, 10);
	int fd = connect_via(lit, head, sizeof(head));

	cr_assert(strncmp(head, "HTTP/1.1 200", 12) == 0, "%s", head);
	cr_assert_eq(write(fd, "ECHO hello", 10), 10);
	read_until(fd, echo, sizeof(echo), "hello", 5000);
	cr_assert_str_eq(echo, "ECHO hello");
	cr_assert_eq(*accepted, 1);
	close(fd);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

Test(proxy_dial, a_stalled_peer_is_closed_by_its_timeout)
{
	char lit[64], head[2048], buf[256];
	const char *domains[] = { lit, NULL }, *addresses[] = { "127.0.0.1", NULL };
	uint64_t t0;

	snprintf(lit, sizeof(lit), "127.0.0.1:%d", up_port);
	start_proxy(domains, addresses, 2, 2);
	/* a head that never ends: closed after the head timeout */
	int fd = client();
	cr_assert_eq(write(fd, "CONNECT 127.0.0.1", 17), 17);
	t0 = now_ms();
	read_until(fd, buf, sizeof(buf), NULL, 8000);
	uint64_t took = now_ms() - t0;
	cr_assert_geq(took, 1000, "closed after %llu ms, before the head timeout", (unsigned long long)took);
	cr_assert_lt(took, 7000, "the stalled head was not closed (%llu ms)", (unsigned long long)took);
	close(fd);
	cr_assert_eq(*accepted, 0);
	/* a tunnel where nothing moves (the upstream never answers): idle */
	fd = connect_via(lit, head, sizeof(head));
	cr_assert(strncmp(head, "HTTP/1.1 200", 12) == 0, "%s", head);
	cr_assert_eq(write(fd, "STALL", 5), 5);
	t0 = now_ms();
	read_until(fd, buf, sizeof(buf), NULL, 10000);
	took = now_ms() - t0;
	cr_assert_geq(took, 1000, "closed after %llu ms, before the idle timeout", (unsigned long long)took);
	cr_assert_lt(took, 8000, "the idle tunnel was not closed (%llu ms)", (unsigned long long)took);
	close(fd);
}

Test(proxy_dial, a_second_request_on_one_connection_is_decided_again)
{
	char dom[64], req[1024], buf[4096];
	const char *domains[] = { dom, NULL }, *addresses[] = { "127.0.0.1", NULL };
	int fd, n;

	snprintf(dom, sizeof(dom), "127.0.0.1:%d", up_port);
	start_proxy(domains, addresses, 5, 10);
	fd = client();
	/* two allowed requests, one connection: both relayed */
	for (int i = 1; i <= 2; i++) {
		n = snprintf(req, sizeof(req), "GET http://127.0.0.1:%d/r%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", up_port,
			     i, up_port);
		cr_assert_eq(write(fd, req, (size_t)n), n);
		char want[16];
		snprintf(want, sizeof(want), "ok %d\n", i);
		read_until(fd, buf, sizeof(buf), want, 5000);
		cr_assert_not_null(strstr(buf, want), "request %d: %s", i, buf);
	}
	cr_assert_eq(*requests, 2);
	/* a third on the same connection to a host no rule allows: refused */
	n = snprintf(req, sizeof(req), "GET http://127.0.0.1:%d/r3 HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", up_port + 1,
		     up_port + 1);
	cr_assert_eq(write(fd, req, (size_t)n), n);
	read_until(fd, buf, sizeof(buf), "\r\n\r\n", 5000);
	cr_assert(strncmp(buf, "HTTP/1.1 403", 12) == 0, "%s", buf);
	cr_assert_eq(*requests, 2, "the refused request reached an upstream");
	close(fd);
}
