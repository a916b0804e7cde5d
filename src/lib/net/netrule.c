/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Host rules and address classes: pure (see netrule.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "netrule.h"

enum host_kind {
	HOST_NAME,
	HOST_LITERAL,
};

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

static bool all_digits(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* host[0..len) -> a lower-case name without its trailing dot in norm, or a
 * literal (canonical text in norm, address in *lit). -EINVAL with why. */
static int classify_host(const char *host, size_t len, char norm[static CORDON_NET_HOST_MAX + 1], struct cordon_netaddr *lit,
			 const char **why)
{
	char buf[CORDON_NET_HOST_MAX + 3];
	size_t label = 0, last_label_start = 0;
	struct in_addr a4;

	*lit = (struct cordon_netaddr){};
	*why = "an empty name";
	if (len == 0)
		return -EINVAL;
	*why = "a NUL byte in the name";
	if (memchr(host, '\0', len))
		return -EINVAL;
	*why = "a name longer than 253 bytes";
	if (len > CORDON_NET_HOST_MAX + 2)
		return -EINVAL;
	memcpy(buf, host, len);
	buf[len] = '\0';

	/* [v6] or a bare v6 (SOCKS5 and `why` give the host alone) */
	if (buf[0] == '[' || strchr(buf, ':')) {
		char *s = buf;

		*why = "not an IPv6 address";
		if (buf[0] == '[') {
			if (len < 3 || buf[len - 1] != ']')
				return -EINVAL;
			buf[len - 1] = '\0';
			s = buf + 1;
		}
		if (inet_pton(AF_INET6, s, lit->a) != 1)
			return -EINVAL;
		lit->family = AF_INET6;
		netaddr_format(lit, norm, CORDON_NET_HOST_MAX + 1);
		return HOST_LITERAL;
	}
	if (len > 1 && buf[len - 1] == '.')
		buf[--len] = '\0';
	*why = "a name longer than 253 bytes";
	if (len > CORDON_NET_HOST_MAX)
		return -EINVAL;
	if (inet_pton(AF_INET, buf, lit->a) == 1) {
		lit->family = AF_INET;
		netaddr_format(lit, norm, CORDON_NET_HOST_MAX + 1);
		return HOST_LITERAL;
	}
	for (size_t i = 0; i <= len; i++) {
		char c = buf[i];

		if (c == '.' || c == '\0') {
			*why = "an empty label";
			if (label == 0)
				return -EINVAL;
			*why = "a label longer than 63 bytes";
			if (label > 63)
				return -EINVAL;
			*why = "a label that starts or ends with '-'";
			if (buf[i - label] == '-' || buf[i - 1] == '-')
				return -EINVAL;
			if (c == '.')
				last_label_start = i + 1;
			label = 0;
			norm[i] = c;
			continue;
		}
		*why = "a byte that is not a letter, digit, '-', '_' or '.'";
		if (!name_char(c))
			return -EINVAL;
		norm[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
		label++;
	}
	/* "127.1", "0x7f.1", "2130706433": the resolver would read an address */
	*why = "a numeric name that is not a dotted-quad address";
	if (inet_aton(buf, &a4) || all_digits(buf + last_label_start, len - last_label_start))
		return -EINVAL;
	return HOST_NAME;
}

static int parse_port(const char *s, uint16_t *ret)
{
	char *end;
	unsigned long v;

	if (!*s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v == 0 || v > 65535)
		return -EINVAL;
	*ret = (uint16_t)v;
	return 0;
}

int netrules_add_host(struct cordon_netrules *r, bool deny, const char *spec, struct cordon_error *reterr)
{
	char host[CORDON_NET_HOST_MAX + 3], norm[CORDON_NET_HOST_MAX + 1];
	const char *colon = NULL, *why;
	struct host_rule rule = {}, *v;
	struct cordon_netaddr lit;
	size_t n = strlen(spec), hl;
	int k;

	if (r->n_allow + r->n_deny >= NETRULE_MAX_RULES)
		return error_set(reterr, -E2BIG, "more than %d host rules", NETRULE_MAX_RULES);
	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');

		if (!close)
			return error_set(reterr, -EINVAL, "'%.100s': a '[' without its ']'", spec);
		if (close[1] == ':')
			colon = close + 1;
		else if (close[1])
			return error_set(reterr, -EINVAL, "'%.100s': only ':PORT' may follow ']'", spec);
	} else if (strchr(spec, ':') == strrchr(spec, ':'))
		colon = strchr(spec, ':'); /* at most one ':': host:port */
	hl = colon ? (size_t)(colon - spec) : n;
	if (colon && parse_port(colon + 1, &rule.port) < 0)
		return error_set(reterr, -EINVAL, "'%.100s': the port is not 1-65535", spec);
	if (strncmp(spec, "*.", 2) == 0) {
		rule.wildcard = true;
		spec += 2;
		hl -= 2;
	}
	if (hl > sizeof(host) - 1)
		return error_set(reterr, -EINVAL, "'%.100s...': a name longer than 253 bytes", spec);
	memcpy(host, spec, hl);
	host[hl] = '\0';
	k = classify_host(host, hl, norm, &lit, &why);
	if (k < 0)
		return error_set(reterr, -EINVAL, "'%.100s' is not a host name: %s", host, why);
	if (k == HOST_LITERAL && rule.wildcard)
		return error_set(reterr, -EINVAL, "'*.%.100s': a wildcard takes a name, not an address", host);
	if (strcmp(norm, CORDON_NET_HOST_SERVICE) == 0 && (rule.wildcard || !rule.port) && !deny)
		return error_set(reterr, -EINVAL,
				 "'%.100s': the host's services are reached one port at a time: name "
				 CORDON_NET_HOST_SERVICE ":PORT", spec);
	rule.literal = k == HOST_LITERAL;
	rule.addr = lit;
	rule.host = strdup(norm);
	if (!rule.host)
		return error_set(reterr, -ENOMEM, "out of memory");
	v = realloc(deny ? r->deny : r->allow, ((deny ? r->n_deny : r->n_allow) + 1) * sizeof(*v));
	if (!v) {
		free(rule.host);
		return error_set(reterr, -ENOMEM, "out of memory");
	}
	if (deny) {
		r->deny = v;
		r->deny[r->n_deny++] = rule;
	} else {
		r->allow = v;
		r->allow[r->n_allow++] = rule;
	}
	return 0;
}

int netaddr_parse(const char *s, struct cordon_netaddr *ret)
{
	struct cordon_netaddr a = {};

	if (inet_pton(AF_INET, s, a.a) == 1)
		a.family = AF_INET;
	else if (inet_pton(AF_INET6, s, a.a) == 1)
		a.family = AF_INET6;
	else
		return -EINVAL;
	*ret = a;
	return 0;
}

int netrules_add_address(struct cordon_netrules *r, const char *spec, struct cordon_error *reterr)
{
	char buf[INET6_ADDRSTRLEN + 8];
	struct addr_rule rule = {};
	struct addr_rule *v;
	char *slash;

	if (r->n_addresses >= NETRULE_MAX_RULES)
		return error_set(reterr, -E2BIG, "more than %d address rules", NETRULE_MAX_RULES);
	if (strlen(spec) >= sizeof(buf))
		return error_set(reterr, -EINVAL, "'%.60s...' is not an address or a CIDR range", spec);
	strcpy(buf, spec);
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	if (netaddr_parse(buf, &rule.addr) < 0)
		return error_set(reterr, -EINVAL, "'%.60s' is not an address or a CIDR range", spec);
	rule.prefix = rule.addr.family == AF_INET ? 32 : 128;
	if (slash) {
		char *end;
		unsigned long p;

		errno = 0;
		p = strtoul(slash + 1, &end, 10);
		if (errno || *end || slash[1] < '0' || slash[1] > '9' || p > rule.prefix)
			return error_set(reterr, -EINVAL, "'%.60s': the prefix is not 0-%u", spec, rule.prefix);
		rule.prefix = (unsigned)p;
	}
	v = realloc(r->addresses, (r->n_addresses + 1) * sizeof(*v));
	if (!v)
		return error_set(reterr, -ENOMEM, "out of memory");
	r->addresses = v;
	r->addresses[r->n_addresses++] = rule;
	return 0;
}

void netrules_done(struct cordon_netrules *r)
{
	for (size_t i = 0; i < r->n_allow; i++)
		free(r->allow[i].host);
	for (size_t i = 0; i < r->n_deny; i++)
		free(r->deny[i].host);
	free(r->allow);
	free(r->deny);
	free(r->addresses);
	*r = (struct cordon_netrules){};
}

CORDON_API int cordon_netrules_new(struct cordon_netrules **ret)
{
	*ret = calloc(1, sizeof(**ret));
	return *ret ? 0 : -ENOMEM;
}

CORDON_API struct cordon_netrules *cordon_netrules_free(struct cordon_netrules *r)
{
	if (r) {
		netrules_done(r);
		free(r);
	}
	return NULL;
}

CORDON_API int cordon_netrules_add_rule(struct cordon_netrules *r, enum cordon_net_rule kind, const char *spec,
					struct cordon_error *reterr)
{
	if (!r || !spec)
		return error_set(reterr, -EINVAL, "no rule");
	switch (kind) {
	case CORDON_NET_ALLOW_DOMAIN:
	case CORDON_NET_DENY_DOMAIN:
		return netrules_add_host(r, kind == CORDON_NET_DENY_DOMAIN, spec, reterr);
	case CORDON_NET_ALLOW_ADDRESS:
		return netrules_add_address(r, spec, reterr);
	}
	return error_set(reterr, -EINVAL, "unknown kind of network rule %d", (int)kind);
}

CORDON_API int cordon_netrules_add(struct cordon_netrules *r, enum cordon_net_rule kind, const char *spec,
				   char *err, size_t errlen)
{
	struct cordon_error e;
	int k;

	k = cordon_netrules_add_rule(r, kind, spec, err && errlen ? &e : NULL);
	if (k < 0 && err && errlen)
		snprintf(err, errlen, "%s", e.message);
	return k;
}

void netaddr_format(const struct cordon_netaddr *a, char *buf, size_t len)
{
	if (!inet_ntop(a->family, a->a, buf, (socklen_t)len) && len)
		snprintf(buf, len, "?");
}

CORDON_API void cordon_netaddr_from_sockaddr(const struct sockaddr *sa, struct cordon_netaddr *ret)
{
	*ret = (struct cordon_netaddr){ .family = sa->sa_family };
	if (sa->sa_family == AF_INET)
		memcpy(ret->a, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
	else if (sa->sa_family == AF_INET6)
		memcpy(ret->a, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
}

static bool prefix_match(const uint8_t *a, const uint8_t *net, unsigned bits)
{
	size_t whole = bits / 8;
	unsigned rest = bits % 8;

	if (memcmp(a, net, whole) != 0)
		return false;
	if (rest == 0)
		return true;
	return ((a[whole] ^ net[whole]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

struct addr_class {
	int family;
	uint8_t net[16];
	unsigned bits;
	const char *reason;
};

/* First match wins: the metadata addresses before the ranges they lie in. */
static const struct addr_class classes[] = {
	{ AF_INET, { 169, 254, 169, 254 }, 32, "address-metadata" },   /* AWS, GCP, Azure, OpenStack */
	{ AF_INET, { 100, 100, 100, 200 }, 32, "address-metadata" },   /* Alibaba */
	{ AF_INET, { 168, 63, 129, 16 }, 32, "address-metadata" },     /* Azure wire server */
	{ AF_INET, { 192, 0, 0, 192 }, 32, "address-metadata" },       /* Oracle */
	{ AF_INET, { 0 }, 8, "address-unspecified" },
	{ AF_INET, { 127 }, 8, "address-loopback" },
	{ AF_INET, { 10 }, 8, "address-private" },
	{ AF_INET, { 172, 16 }, 12, "address-private" },
	{ AF_INET, { 192, 168 }, 16, "address-private" },
	{ AF_INET, { 169, 254 }, 16, "address-link-local" },
	{ AF_INET, { 100, 64 }, 10, "address-cgnat" },
	{ AF_INET, { 224 }, 4, "address-multicast" },
	{ AF_INET, { 255, 255, 255, 255 }, 32, "address-broadcast" },
	{ AF_INET, { 240 }, 4, "address-reserved" },
	{ AF_INET, { 192, 0, 0 }, 24, "address-reserved" },
	{ AF_INET, { 192, 0, 2 }, 24, "address-reserved" },
	{ AF_INET, { 192, 88, 99 }, 24, "address-reserved" },
	{ AF_INET, { 198, 18 }, 15, "address-reserved" },
	{ AF_INET, { 198, 51, 100 }, 24, "address-reserved" },
	{ AF_INET, { 203, 0, 113 }, 24, "address-reserved" },
	{ AF_INET6, { 0xfd, 0x00, 0x0e, 0xc2, [15] = 0x54, [14] = 0x02 }, 128, "address-metadata" }, /* fd00:ec2::254 */
	{ AF_INET6, { 0 }, 128, "address-unspecified" },
	{ AF_INET6, { [15] = 1 }, 128, "address-loopback" },
	{ AF_INET6, { [10] = 0xff, [11] = 0xff }, 96, "address-ipv4-embedded" },            /* mapped */
	{ AF_INET6, { [8] = 0xff, [9] = 0xff }, 96, "address-ipv4-embedded" },              /* SIIT */
	{ AF_INET6, { 0 }, 96, "address-ipv4-embedded" },                                   /* compatible */
	{ AF_INET6, { 0x00, 0x64, 0xff, 0x9b }, 96, "address-ipv4-embedded" },              /* NAT64 */
	{ AF_INET6, { 0x00, 0x64, 0xff, 0x9b, 0x00, 0x01 }, 48, "address-ipv4-embedded" },  /* local NAT64 */
	{ AF_INET6, { 0x20, 0x02 }, 16, "address-ipv4-embedded" },                          /* 6to4 */
	{ AF_INET6, { 0x20, 0x01, 0x00, 0x00 }, 32, "address-ipv4-embedded" },              /* Teredo */
	{ AF_INET6, { 0 }, 8, "address-reserved" },
	{ AF_INET6, { 0x01, 0x00 }, 64, "address-reserved" },                               /* discard */
	{ AF_INET6, { 0x20, 0x01, 0x0d, 0xb8 }, 32, "address-reserved" },                   /* documentation */
	{ AF_INET6, { 0xfe, 0x80 }, 10, "address-link-local" },
	{ AF_INET6, { 0xfe, 0xc0 }, 10, "address-private" },                                /* site-local */
	{ AF_INET6, { 0xfc }, 7, "address-private" },                                       /* unique local */
	{ AF_INET6, { 0xff }, 8, "address-multicast" },
};

const char *netaddr_class(const struct cordon_netaddr *a)
{
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (classes[i].family == a->family && prefix_match(a->a, classes[i].net, classes[i].bits))
			return classes[i].reason;
	return NULL;
}

static bool netaddr_equal(const struct cordon_netaddr *x, const struct cordon_netaddr *y)
{
	return x->family == y->family && memcmp(x->a, y->a, x->family == AF_INET ? 4 : 16) == 0;
}

/* A deny rule that names this address (and the port, if it names one): the
 * address is refused whatever name led to it. */
static const struct host_rule *address_denied(const struct cordon_netrules *r, const struct cordon_netaddr *a,
					      uint16_t port)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	struct cordon_netaddr v4 = { .family = AF_INET };
	/* ::ffff:a.b.c.d is a.b.c.d to the kernel: a deny of the one is of both */
	bool is_mapped = a->family == AF_INET6 && memcmp(a->a, mapped, sizeof(mapped)) == 0;

	if (is_mapped)
		memcpy(v4.a, a->a + 12, 4);
	for (size_t i = 0; i < r->n_deny; i++) {
		const struct host_rule *h = &r->deny[i];

		if (!h->literal || (h->port && h->port != port))
			continue;
		if (netaddr_equal(&h->addr, a) || (is_mapped && netaddr_equal(&h->addr, &v4)))
			return h;
	}
	return NULL;
}

static bool address_allowed(const struct cordon_netrules *r, const struct cordon_netaddr *a)
{
	for (size_t i = 0; i < r->n_addresses; i++)
		if (r->addresses[i].addr.family == a->family &&
		    prefix_match(a->a, r->addresses[i].addr.a, r->addresses[i].prefix))
			return true;
	return false;
}

static bool rule_matches(const struct host_rule *h, const char *name, bool literal, uint16_t port)
{
	size_t n = strlen(name), hn = strlen(h->host);

	if (h->port && h->port != port)
		return false;
	if (h->literal != literal)
		return false;
	if (!h->wildcard)
		return strcmp(h->host, name) == 0;
	/* "*.x.y": strictly below x.y */
	return n > hn + 1 && name[n - hn - 1] == '.' && strcmp(name + n - hn, h->host) == 0;
}

static void rule_text(const struct host_rule *h, char *buf, size_t len)
{
	if (h->port)
		snprintf(buf, len, "%s%s%s%s:%u", h->wildcard ? "*." : "", h->literal && strchr(h->host, ':') ? "[" : "",
			 h->host, h->literal && strchr(h->host, ':') ? "]" : "", h->port);
	else
		snprintf(buf, len, "%s%s", h->wildcard ? "*." : "", h->host);
}

static int refuse(struct cordon_net_verdict *v, const char *reason, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int refuse(struct cordon_net_verdict *v, const char *reason, const char *fmt, ...)
{
	va_list ap;

	v->allowed = false;
	v->need_resolve = false;
	v->reason = reason;
	va_start(ap, fmt);
	vsnprintf(v->detail, sizeof(v->detail), fmt, ap);
	va_end(ap);
	return 0;
}

/* Every answer must pass: one refused answer refuses the name. */
static int check_answers(const struct cordon_netrules *r, const char *name, uint16_t port,
			 const struct cordon_netaddr_list *answers, struct cordon_net_host *here,
			 struct cordon_net_verdict *v)
{
	char text[INET6_ADDRSTRLEN], rule[CORDON_NET_HOST_MAX + 16];

	if (answers->n == 0)
		return refuse(v, "no-address", "%s has no address", name);
	for (size_t i = 0; i < answers->n; i++) {
		const struct cordon_netaddr *a = &answers->v[i];
		const struct host_rule *deny = address_denied(r, a, port);
		const char *cls;
		int local;

		netaddr_format(a, text, sizeof(text));
		if (deny) {
			rule_text(deny, rule, sizeof(rule));
			snprintf(v->rule, sizeof(v->rule), "--deny-domain %s", rule);
			return refuse(v, "address-denied", "%s resolves to %s, which the deny rule %s names", name, text,
				      rule);
		}
		if (address_allowed(r, a))
			continue;
		/* a refusal from here on: what is missing is an address rule */
		cls = netaddr_class(a);
		if (cls) {
			v->rule[0] = '\0';
			return refuse(v, cls, "%s resolves to %s (%s), which allow_addresses does not name", name, text,
				      cls + strlen("address-"));
		}
		if (!here)
			continue;
		local = cordon_net_host_is_local(here, a);
		if (local)
			v->rule[0] = '\0';
		if (local < 0)
			return refuse(v, "address-this-host",
				      "%s resolves to %s, and the kernel did not say whether it is this host's (%s)",
				      name, text, strerror(-local));
		if (local)
			return refuse(v, "address-this-host",
				      "%s resolves to %s, which this host delivers locally, and allow_addresses does not name it",
				      name, text);
	}
	v->allowed = true;
	v->need_resolve = false;
	v->reason = NULL;
	snprintf(v->detail, sizeof(v->detail), "%s: allowed", name);
	return 0;
}

/* host.cordon.internal:PORT: the host's loopback, for an allow rule that
 * names exactly this name and port; nothing else reaches it (a wildcard
 * or portless rule does not match, and it is never resolved). */
static int decide_host_service(const struct cordon_netrules *r, uint16_t port, struct cordon_net_verdict *ret)
{
	for (size_t i = 0; i < r->n_allow; i++) {
		const struct host_rule *h = &r->allow[i];

		if (h->wildcard || h->literal || h->port != port || strcmp(h->host, CORDON_NET_HOST_SERVICE) != 0)
			continue;
		*ret = (struct cordon_net_verdict){
			.allowed = true,
			.is_literal = true,
			.literal = { .family = AF_INET, .a = { 127, 0, 0, 1 } },
		};
		snprintf(ret->detail, sizeof(ret->detail),
			 CORDON_NET_HOST_SERVICE ":%u matches the allow rule " CORDON_NET_HOST_SERVICE
			 ":%u: the host's 127.0.0.1:%u",
			 port, port, port);
		return 0;
	}
	return refuse(ret, "host-not-allowed",
		      CORDON_NET_HOST_SERVICE ":%u: the host's loopback, reached only through an allow rule naming "
		      CORDON_NET_HOST_SERVICE ":%u",
		      port, port);
}

CORDON_API int cordon_net_decide(const struct cordon_netrules *r, const char *host, size_t len, uint16_t port,
				 const struct cordon_netaddr_list *answers, struct cordon_net_host *here,
				 struct cordon_net_verdict *ret)
{
	char norm[CORDON_NET_HOST_MAX + 1], rule[CORDON_NET_HOST_MAX + 16];
	struct cordon_net_verdict v = {};
	const char *why;
	int k;
	bool literal;

	*ret = v;
	k = classify_host(host, len, norm, &v.literal, &why);
	if (k < 0)
		return refuse(ret, "host-malformed", "the host is malformed: %s", why);
	literal = k == HOST_LITERAL;
	v.is_literal = literal;
	ret->literal = v.literal;
	ret->is_literal = literal;
	snprintf(ret->name, sizeof(ret->name), "%s", norm);
	for (size_t i = 0; i < r->n_deny; i++)
		if (rule_matches(&r->deny[i], norm, literal, port)) {
			rule_text(&r->deny[i], rule, sizeof(rule));
			snprintf(ret->rule, sizeof(ret->rule), "--deny-domain %s", rule);
			return refuse(ret, "host-denied", "%s:%u matches the deny rule %s", norm, port, rule);
		}
	if (!literal && strcmp(norm, CORDON_NET_HOST_SERVICE) == 0)
		return decide_host_service(r, port, ret);
	for (size_t i = 0; i < r->n_allow; i++) {
		if (!rule_matches(&r->allow[i], norm, literal, port))
			continue;
		rule_text(&r->allow[i], rule, sizeof(rule));
		snprintf(ret->rule, sizeof(ret->rule), "--allow-domain %s", rule);
		if (literal) {
			struct cordon_netaddr_list one = { .v = &v.literal, .n = 1 };

			return check_answers(r, norm, port, &one, here, ret);
		}
		if (!answers) {
			ret->allowed = false;
			ret->need_resolve = true;
			snprintf(ret->detail, sizeof(ret->detail), "%.90s:%u matches the allow rule %.90s", norm, port, rule);
			return 0;
		}
		return check_answers(r, norm, port, answers, here, ret);
	}
	if (literal)
		return refuse(ret, "ip-literal", "%s is an IP address that no allow rule names", norm);
	if (r->n_allow == 0)
		return refuse(ret, "host-not-allowed", "%s:%u: the allow list is empty", norm, port);
	return refuse(ret, "host-not-allowed", "%s:%u matches no allow rule", norm, port);
}
