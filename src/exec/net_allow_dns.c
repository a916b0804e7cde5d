/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * --net allow: the sandbox's resolver in init (see net_allow.h). It runs
 * in init rather than in the proxy because the name behind each synthetic
 * address must be known where the connect is decided, and init decides it:
 * one table, no second channel to keep in step. The queries are untrusted
 * bytes parsed by dns_msg.c (capped, fuzzed); init only ever answers with
 * addresses of its own table.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "canon.h"
#include "cleanup.h"
#include "dns_msg.h"
#include "mount_fd.h"
#include "net_allow_impl.h"
#include "netrule.h"
#include "process.h"
#include "runner.h"

#define DNS_TTL (NET_ALLOW_NAME_FRESH_MS / 1000)
#define RESOLV_MAX 4096
#define RESOLV_TMP "/tmp" /* a mount point for a moment, before the command exists */

static const uint8_t v6_prefix[8] = NET_ALLOW_V6_PREFIX;

size_t net_allow_synthetic(const struct sockaddr *sa, socklen_t len)
{
	uint32_t i = 0;

	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		uint32_t a = ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr);

		if ((a & 0xfffe0000u) != NET_ALLOW_V4_BASE)
			return 0;
		i = a - NET_ALLOW_V4_BASE;
	} else if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const uint8_t *a = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;

		if (memcmp(a, v6_prefix, 8) != 0 || memcmp(a + 8, "\0\0\0\0", 4) != 0)
			return 0;
		i = (uint32_t)a[12] << 24 | (uint32_t)a[13] << 16 | (uint32_t)a[14] << 8 | a[15];
	} else
		return 0;
	return i;
}

static void synthetic_address(size_t i, int family, struct cordon_netaddr *ret)
{
	*ret = (struct cordon_netaddr){ .family = family };
	if (family == AF_INET) {
		uint32_t a = htonl(NET_ALLOW_V4_BASE + (uint32_t)i);

		memcpy(ret->a, &a, 4);
	} else {
		memcpy(ret->a, v6_prefix, 8);
		ret->a[12] = (uint8_t)(i >> 24);
		ret->a[13] = (uint8_t)(i >> 16);
		ret->a[14] = (uint8_t)(i >> 8);
		ret->a[15] = (uint8_t)i;
	}
}

bool net_allow_name_allowed(const struct net_allow *na, const char *name)
{
	const struct cordon_netrules *r = na->rules;
	struct cordon_net_verdict v;
	size_t len = strlen(name);

	/* a name with any port: the rules without one, then each port one names */
	cordon_net_decide(r, name, len, 0, NULL, NULL, &v);
	if (v.allowed || v.need_resolve)
		return !v.is_literal;
	if (v.reason && strcmp(v.reason, "host-denied") == 0)
		return false;
	for (size_t i = 0; i < r->n_allow; i++) {
		if (!r->allow[i].port)
			continue;
		cordon_net_decide(r, name, len, r->allow[i].port, NULL, NULL, &v);
		if ((v.allowed || v.need_resolve) && !v.is_literal)
			return true;
		/* host.cordon.internal: a literal answer, but a name */
		if (v.allowed && strcasecmp(name, CORDON_NET_HOST_SERVICE) == 0)
			return true;
	}
	return false;
}

static void lower(const char *name, char *norm)
{
	size_t n = strlen(name);

	for (size_t i = 0; i <= n; i++)
		norm[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
}

/* The name's index (1-based), or 0. */
static size_t name_find(const struct net_allow *na, const char *norm)
{
	for (size_t i = 0; i < na->n_names; i++)
		if (strcmp(na->names[i], norm) == 0)
			return i + 1;
	return 0;
}

/* The name's index, made on first use; 0 when the table is full. */
static size_t name_index(struct net_allow *na, const char *norm)
{
	size_t i = name_find(na, norm);
	uint64_t *t;
	char **v;

	if (i)
		return i;
	if (na->n_names >= NET_ALLOW_MAX_NAMES)
		return 0;
	t = realloc(na->looked, (na->n_names + 1) * sizeof(*t));
	if (!t)
		return 0;
	na->looked = t;
	t[na->n_names] = 0;
	v = realloc(na->names, (na->n_names + 1) * sizeof(*v));
	if (!v)
		return 0;
	na->names = v;
	v[na->n_names] = strdup(norm);
	if (!v[na->n_names])
		return 0;
	return ++na->n_names;
}

/* The answer to a query for a name known to exist (or not: NXDOMAIN). */
static int answer_name(struct net_allow *na, const struct dns_query *q, const uint8_t *req, bool exists, uint8_t *out,
		       size_t outlen)
{
	char norm[CORDON_NET_HOST_MAX + 1];
	struct cordon_netaddr addrs[1];
	size_t k = 0, i;

	if (!exists)
		return dns_reply_build(q, req, DNS_RCODE_NXDOMAIN, NULL, 0, 0, out, outlen);
	lower(q->name, norm);
	i = name_index(na, norm);
	if (i == 0) {
		status_denial("net-allow", "resolve", "synthetic addresses exhausted");
		return dns_reply_build(q, req, DNS_RCODE_SERVFAIL, NULL, 0, 0, out, outlen);
	}
	if (q->qtype == DNS_TYPE_A || q->qtype == DNS_TYPE_AAAA)
		synthetic_address(i, q->qtype == DNS_TYPE_A ? AF_INET : AF_INET6, &addrs[k++]);
	/* other types (HTTPS, SVCB, SRV, ...): the name is there, no such record */
	return dns_reply_build(q, req, DNS_RCODE_OK, addrs, k, DNS_TTL, out, outlen);
}

/* A name not known yet: the proxy looks it up (in the host's namespace)
 * before the sandbox learns whether it exists. 1: parked. */
static int ask(struct net_allow *na, int fd, const struct sockaddr_storage *from, socklen_t fl, const uint8_t *req,
	       size_t n, const char *norm)
{
	struct net_dns_wait *w;
	int reply;

	if (na->n_waits >= NET_ALLOW_DNS_WAIT_MAX || n > NET_ALLOW_DNS_QUERY_MAX ||
	    net_allow_ask(na, 'R', 0, AF_INET, 0, norm, &reply) < 0)
		return -EAGAIN;
	w = &na->waits[na->n_waits++];
	w->reply = reply;
	w->sock = fd;
	memcpy(&w->from, from, fl);
	w->fromlen = fl;
	memcpy(w->req, req, n);
	w->len = n;
	return 1;
}

void net_allow_dns_looked(struct net_allow *na, size_t i)
{
	struct net_dns_wait *w = &na->waits[i];
	uint8_t out[DNS_REPLY_MAX];
	struct dns_query q = {};
	char buf[8];
	ssize_t n = recv(w->reply, buf, sizeof(buf), MSG_DONTWAIT);
	int len = -1;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (dns_query_parse(w->req, w->len, &q) == 0) {
		if (n >= 1 && buf[0] == 'O') {
			char norm[CORDON_NET_HOST_MAX + 1];
			size_t k;

			len = answer_name(na, &q, w->req, true, out, sizeof(out));
			lower(q.name, norm);
			if ((k = name_find(na, norm)))
				na->looked[k - 1] = now_usec(); /* the proxy holds this answer now */
		}
		else if (n >= 5 && buf[0] == 'E') {
			int32_t e;

			memcpy(&e, buf + 1, sizeof(e));
			len = e == EHOSTUNREACH ? answer_name(na, &q, w->req, false, out, sizeof(out))
						: dns_reply_build(&q, w->req, DNS_RCODE_SERVFAIL, NULL, 0, 0, out, sizeof(out));
		} else
			len = dns_reply_build(&q, w->req, DNS_RCODE_SERVFAIL, NULL, 0, 0, out, sizeof(out));
	}
	if (len > 0)
		(void)sendto(w->sock, out, (size_t)len, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&w->from, w->fromlen);
	close(w->reply);
	na->waits[i] = na->waits[--na->n_waits];
}

/* 0: parked; >0 the answer's length; <0 nothing to say. */
static int answer(struct net_allow *na, int fd, const struct sockaddr_storage *from, socklen_t fl, const uint8_t *req,
		  size_t n, uint8_t *out, size_t outlen)
{
	char norm[CORDON_NET_HOST_MAX + 1];
	struct dns_query q = {};
	int r = dns_query_parse(req, n, &q);
	size_t k;

	if (r == -EBADMSG)
		return r;
	if (r < 0)
		return dns_reply_build(&q, req, r == -EINVAL ? DNS_RCODE_FORMERR : DNS_RCODE_NOTIMP, NULL, 0, 0, out,
				       outlen);
	if (q.qclass != DNS_CLASS_IN || !q.name[0])
		return dns_reply_build(&q, req, DNS_RCODE_REFUSED, NULL, 0, 0, out, outlen);
	if (!net_allow_name_allowed(na, q.name)) {
		status_denial("net-allow", "resolve", q.name);
		return dns_reply_build(&q, req, DNS_RCODE_NXDOMAIN, NULL, 0, 0, out, outlen);
	}
	lower(q.name, norm);
	/* the host's services (never looked up), or a name the proxy looked up
	 * moments ago: it dials a connect to it from that answer, at once */
	k = name_find(na, norm);
	if (strcmp(norm, CORDON_NET_HOST_SERVICE) == 0 || (k && now_usec() - na->looked[k - 1] < NET_ALLOW_NAME_FRESH_MS * 1000ull))
		return answer_name(na, &q, req, true, out, outlen);
	/* new, or looked up longer ago: the proxy looks it up (again), so the
	 * connect that follows the answer finds it fresh. A name that stops
	 * existing gets NXDOMAIN; its synthetic address stays its own. */
	r = ask(na, fd, from, fl, req, n, norm);
	if (r > 0)
		return 0;
	if (k) /* no room to ask: the known answer, the connect looks it up */
		return answer_name(na, &q, req, true, out, outlen);
	return dns_reply_build(&q, req, DNS_RCODE_SERVFAIL, NULL, 0, 0, out, outlen);
}

void net_allow_dns_serve(struct net_allow *na, int fd)
{
	/* a few per turn: a flood does not starve the gate */
	for (int turn = 0; turn < 16; turn++) {
		uint8_t req[DNS_MSG_MAX + 1], out[DNS_REPLY_MAX];
		struct sockaddr_storage from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(fd, req, sizeof(req), MSG_DONTWAIT | MSG_TRUNC, (struct sockaddr *)&from, &fl);
		int len;

		if (n < 0)
			return;
		if ((size_t)n > DNS_MSG_MAX)
			continue; /* larger than any query: dropped */
		len = answer(na, fd, &from, fl, req, (size_t)n, out, sizeof(out));
		if (len > 0)
			(void)sendto(fd, out, (size_t)len, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&from, fl);
	}
}

static int dns_socket(int family)
{
	struct sockaddr_storage ss = {};
	socklen_t sl;
	int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1;

	if (fd < 0)
		return -errno;
	if (family == AF_INET) {
		struct sockaddr_in *s = (struct sockaddr_in *)&ss;

		*s = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons(53),
					   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		sl = sizeof(*s);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)&ss;

		*s = (struct sockaddr_in6){ .sin6_family = AF_INET6, .sin6_port = htons(53), .sin6_addr = IN6ADDR_LOOPBACK_INIT };
		sl = sizeof(*s);
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	}
	if (bind(fd, (struct sockaddr *)&ss, sl) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

/* The sandbox's resolver answers over UDP only (its answers are one
 * record, never truncated): an options line loses "use-vc", which would
 * send every query over TCP, where nothing listens. */
static void drop_use_vc(char *line, size_t size)
{
	char out[512];
	size_t n = 0;

	for (char *save = NULL, *tok = strtok_r(line, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		size_t t = strlen(tok);

		if (strcmp(tok, "use-vc") == 0)
			continue;
		if (n + t + 3 > sizeof(out) || n + t + 3 > size)
			break;
		if (n)
			out[n++] = ' ';
		memcpy(out + n, tok, t);
		n += t;
	}
	out[n++] = '\n';
	out[n] = '\0';
	memcpy(line, out, n + 1);
}

/* Our one server, then the host's search list and options (ndots...):
 * read by the runner before the namespaces, where the host's file is
 * still in sight (a link into /run reaches a /run the sandbox has not). */
void net_allow_resolv_read(struct exec_ctx *x)
{
	_cleanup_fclose_ FILE *f = fopen("/etc/resolv.conf", "re");
	char line[512], *buf = malloc(RESOLV_MAX);
	size_t n = 0, size = RESOLV_MAX;
	int k;

	if (!buf)
		exec_die("net allow", "cannot read resolv.conf: %s", strerror(ENOMEM));
	k = snprintf(buf, size, "# cordon --net allow: the sandbox's resolver (init)\nnameserver 127.0.0.1\n");
	n = (size_t)k;
	while (f && fgets(line, sizeof(line), f)) {
		size_t l = strlen(line);

		if (strncmp(line, "search", 6) != 0 && strncmp(line, "domain", 6) != 0 && strncmp(line, "options", 7) != 0)
			continue;
		if (l == 0 || line[l - 1] != '\n' || n + l >= size)
			continue;
		if (strncmp(line, "options", 7) == 0)
			drop_use_vc(line, sizeof(line));
		l = strlen(line);
		memcpy(buf + n, line, l);
		n += l;
	}
	buf[n] = '\0';
	x->net_resolv = buf;
}

/* Where the file goes: /etc/resolv.conf itself, or where its links lead
 * (absolute or relative, as systemd-resolved's ../run/systemd/resolve/...;
 * made when the sandbox's /run has not got it). */
static void resolv_target(char *path, size_t size)
{
	struct cordon_error e = {};
	_cleanup_free_ char *canon = NULL;
	struct statvfs vfs;
	struct stat st;
	bool ro;
	int fd, r = canonicalize_n("/etc/resolv.conf", strlen("/etc/resolv.conf"), &canon, &e);

	if (r < 0)
		exec_die("net allow", "cannot resolve /etc/resolv.conf: %s", e.message[0] ? e.message : strerror(-r));
	if (strlen(canon) >= size)
		exec_die("net allow", "/etc/resolv.conf leads to a path too long: %s", canon);
	snprintf(path, size, "%s", canon);
	if (stat(path, &st) == 0 || strncmp(path, "/run/", 5) != 0)
		return;
	/* a target in /run the sandbox's /run lacks: made there, /run
	 * writable for that moment if it is sealed already */
	ro = statvfs("/run", &vfs) == 0 && (vfs.f_flag & ST_RDONLY);
	if (ro && (r = mount_set_attr(AT_FDCWD, "/run", 0, 0, MOUNT_ATTR_RDONLY)) < 0) {
		errno = -r;
		exec_die("net allow", "cannot make the sandbox's /run writable for %s: %m", path);
	}
	for (char *s = path + 5; (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			exec_die("net allow", "cannot make %s for the sandbox's resolver: %m", path);
		*s = '/';
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		exec_die("net allow", "cannot make %s for the sandbox's resolver: %m", path);
	close(fd);
	if (ro && (r = mount_set_attr(AT_FDCWD, "/run", 0, MOUNT_ATTR_RDONLY, 0)) < 0) {
		errno = -r;
		exec_die("net allow", "cannot seal the sandbox's /run again: %m");
	}
}

/* A read-only file with text bound onto target: written in a tmpfs put on
 * RESOLV_TMP for a moment (the command does not exist yet), bound, and
 * that tmpfs taken away again (the bind keeps its file). */
static void bind_resolv(const char *text, size_t len, const char *target)
{
	char file[] = RESOLV_TMP "/resolv.conf";
	int fd;

	if (mount("tmpfs", RESOLV_TMP, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=64k,mode=0755") < 0)
		exec_die("net allow", "cannot mount a tmpfs on %s for resolv.conf: %m", RESOLV_TMP);
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		exec_die("net allow", "cannot write resolv.conf: %m");
	close(fd);
	if (mount(file, target, NULL, MS_BIND, NULL) < 0)
		exec_die("net allow", "cannot bind the resolver's resolv.conf onto %s: %m", target);
	if (mount(NULL, target, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		exec_die("net allow", "cannot make %s read-only: %m", target);
	if (umount2(RESOLV_TMP, MNT_DETACH) < 0)
		exec_die("net allow", "cannot take the tmpfs off %s: %m", RESOLV_TMP);
}

void net_allow_setup(struct exec_ctx *x)
{
	char target[PATH_MAX];

	x->net_dns[0] = dns_socket(AF_INET);
	if (x->net_dns[0] < 0) {
		errno = -x->net_dns[0];
		exec_die("net allow", "cannot listen on the sandbox's 127.0.0.1:53: %m");
	}
	x->net_dns[1] = dns_socket(AF_INET6); /* no IPv6 on lo: the IPv4 one serves */
	if (!x->net_resolv)
		exec_die("net allow", "the host's resolv.conf was not read");
	resolv_target(target, sizeof(target));
	bind_resolv(x->net_resolv, strlen(x->net_resolv), target);
	free(x->net_resolv);
	x->net_resolv = NULL;
}
