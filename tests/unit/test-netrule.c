/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <ifaddrs.h>
#include <string.h>

#include "netrule.h"

static struct cordon_netrules rules;

static void add(bool deny, const char *spec)
{
	struct cordon_error err = {};

	cr_assert_eq(netrules_add_host(&rules, deny, spec, &err), 0, "%s: %s", spec, err.message);
}

static void add_addr(const char *spec)
{
	struct cordon_error err = {};

	cr_assert_eq(netrules_add_address(&rules, spec, &err), 0, "%s: %s", spec, err.message);
}

static void teardown(void)
{
	netrules_done(&rules);
}

static struct cordon_netaddr addr(const char *s)
{
	struct cordon_netaddr a;

	cr_assert_eq(netaddr_parse(s, &a), 0, "%s", s);
	return a;
}

/* The name phase alone. */
static struct cordon_net_verdict name(const char *host, uint16_t port)
{
	struct cordon_net_verdict v;

	cr_assert_eq(cordon_net_decide(&rules, host, strlen(host), port, NULL, NULL, &v), 0);
	return v;
}

/* The name phase, then the answers (one address, or two). */
static struct cordon_net_verdict answered(const char *host, uint16_t port, const char *a1, const char *a2,
				       struct cordon_net_host *here)
{
	struct cordon_netaddr v[2] = { addr(a1) };
	struct cordon_netaddr_list l = { .v = v, .n = 1 };
	struct cordon_net_verdict out;

	if (a2) {
		v[1] = addr(a2);
		l.n = 2;
	}
	cr_assert_eq(cordon_net_decide(&rules, host, strlen(host), port, &l, here, &out), 0);
	return out;
}

#define assert_refused(v, why) \
	cr_assert((!(v).allowed && !(v).need_resolve && (v).reason && strcmp((v).reason, why) == 0), \
		  "expected %s, got %s (%s)", why, (v).reason ? (v).reason : "allowed", (v).detail)
#define assert_resolve(v) cr_assert((v).need_resolve && !(v).allowed, "expected resolve, got %s (%s)", \
				    (v).reason ? (v).reason : "allowed", (v).detail)
#define assert_allowed(v) cr_assert((v).allowed && !(v).reason, "expected allowed, got %s (%s)", \
				    (v).reason ? (v).reason : "?", (v).detail)

TestSuite(netrule, .fini = teardown);

Test(netrule, empty_allow_list_denies_everything)
{
	assert_refused(name("example.com", 443), "host-not-allowed");
	cr_assert(strstr(name("example.com", 443).detail, "empty"));
}

Test(netrule, exact_host_and_case_and_trailing_dot)
{
	add(false, "Example.COM");
	assert_resolve(name("example.com", 443));
	assert_resolve(name("EXAMPLE.com.", 80));
	assert_refused(name("www.example.com", 443), "host-not-allowed");
	assert_refused(name("example.co", 443), "host-not-allowed");
	assert_refused(name("xexample.com", 443), "host-not-allowed");
}

Test(netrule, wildcard_is_subdomains_only)
{
	add(false, "*.example.com");
	assert_resolve(name("a.example.com", 443));
	assert_resolve(name("a.b.example.com", 443));
	assert_refused(name("example.com", 443), "host-not-allowed");
	assert_refused(name("badexample.com", 443), "host-not-allowed");
	assert_refused(name(".example.com", 443), "host-malformed");
}

Test(netrule, port_rules)
{
	add(false, "api.example.com:443");
	assert_resolve(name("api.example.com", 443));
	assert_refused(name("api.example.com", 80), "host-not-allowed");
	add(false, "*.cdn.example:8443");
	assert_resolve(name("x.cdn.example", 8443));
	assert_refused(name("x.cdn.example", 443), "host-not-allowed");
}

/* host.cordon.internal:PORT is the host's 127.0.0.1:PORT, for a rule naming
 * exactly that name and port; never resolved, never reached otherwise. */
Test(netrule, host_service_name_is_the_hosts_loopback_for_its_port)
{
	struct cordon_error err;
	struct cordon_net_verdict v;

	assert_refused(name("host.cordon.internal", 5432), "host-not-allowed");
	add(false, "*.cordon.internal");
	add(false, "*.internal");
	assert_refused(name("host.cordon.internal", 5432), "host-not-allowed");
	cr_assert_eq(netrules_add_host(&rules, false, "host.cordon.internal", &err), -EINVAL);
	cr_assert(strstr(err.message, "host.cordon.internal:PORT"), "%s", err.message);
	add(false, "host.cordon.internal:5432");
	v = name("HOST.cordon.internal.", 5432);
	assert_allowed(v);
	cr_assert(v.is_literal && v.literal.family == AF_INET && memcmp(v.literal.a, "\x7f\0\0\1", 4) == 0);
	cr_assert(strstr(v.detail, "the host's 127.0.0.1:5432"), "%s", v.detail);
	assert_refused(name("host.cordon.internal", 5433), "host-not-allowed");
	add(true, "host.cordon.internal:5432");
	assert_refused(name("host.cordon.internal", 5432), "host-denied");
}

Test(netrule, deny_before_allow)
{
	add(false, "*.example.com");
	add(true, "evil.example.com");
	add(true, "*.bad.example.com:80");
	assert_refused(name("evil.example.com", 443), "host-denied");
	assert_resolve(name("good.example.com", 443));
	assert_refused(name("x.bad.example.com", 80), "host-denied");
	assert_resolve(name("x.bad.example.com", 443));
	cr_assert(strstr(name("evil.example.com", 443).detail, "evil.example.com"));
}

Test(netrule, malformed_names)
{
	static const char *const bad[] = {
		"", "a..b", "-", "a b", "a/b", "a@b", "a%00b", "é.com", "a.b:", "127.1", "0x7f.0.0.1", "2130706433",
		"1.2.3.4.5", "example.123", "[::1", "[]", "[1.2.3.4]", "a\\b", "a,b",
	};

	add(false, "*.example.com");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cordon_net_verdict v = name(bad[i], 443);

		assert_refused(v, "host-malformed");
	}
}

Test(netrule, nul_byte_in_name)
{
	struct cordon_net_verdict v;
	const char host[] = "ok.example.com\0.evil.com";

	add(false, "*.example.com");
	add(false, "*.evil.com");
	cr_assert_eq(cordon_net_decide(&rules, host, sizeof(host) - 1, 443, NULL, NULL, &v), 0);
	assert_refused(v, "host-malformed");
	cr_assert(strstr(v.detail, "NUL"));
}

Test(netrule, overlong_names)
{
	char host[300], label[70];

	add(false, "*.com");
	memset(host, 'a', sizeof(host));
	memcpy(host + 250, ".com", 5);
	assert_refused(name(host, 443), "host-malformed");
	memset(label, 'b', 64);
	memcpy(label + 64, ".com", 5);
	assert_refused(name(label, 443), "host-malformed");
	label[1] = '.';
	assert_resolve(name(label, 443));
}

Test(netrule, ip_literals_need_a_rule_naming_them)
{
	add(false, "*.example.com");
	add_addr("0.0.0.0/0");
	assert_refused(name("93.184.216.34", 443), "ip-literal");
	assert_refused(name("[2606:2800:220:1::1]", 443), "ip-literal");
	assert_refused(name("2606:2800:220:1::1", 443), "ip-literal");
	add(false, "93.184.216.34");
	add(false, "[2606:2800:220:1:0::1]:443");
	assert_allowed(name("93.184.216.34", 443));
	assert_allowed(name("[2606:2800:220:1::1]", 443));
	assert_refused(name("[2606:2800:220:1::1]", 80), "ip-literal");
	cr_assert(name("93.184.216.34", 1).is_literal);
}

Test(netrule, literal_named_still_meets_address_classes)
{
	add(false, "127.0.0.1");
	add(false, "10.1.2.3");
	assert_refused(name("127.0.0.1", 80), "address-loopback");
	assert_refused(name("10.1.2.3", 80), "address-private");
	add_addr("127.0.0.0/8");
	assert_allowed(name("127.0.0.1", 80));
}

Test(netrule, host_rule_never_admits_a_local_answer)
{
	add(false, "localhost");
	add(false, "rebind.example.com");
	assert_resolve(name("localhost", 80));
	assert_refused(answered("localhost", 80, "127.0.0.1", NULL, NULL), "address-loopback");
	assert_refused(answered("rebind.example.com", 80, "93.184.216.34", "192.168.1.1", NULL), "address-private");
	assert_allowed(answered("rebind.example.com", 80, "93.184.216.34", "2606:2800:220:1::1", NULL));
	add_addr("127.0.0.1");
	assert_allowed(answered("localhost", 80, "127.0.0.1", NULL, NULL));
	assert_refused(answered("localhost", 80, "127.0.0.1", "::1", NULL), "address-loopback");
	add_addr("::1/128");
	assert_allowed(answered("localhost", 80, "127.0.0.1", "::1", NULL));
}

Test(netrule, no_answers)
{
	struct cordon_netaddr_list none = {};
	struct cordon_net_verdict v;

	add(false, "x.example.com");
	cr_assert_eq(cordon_net_decide(&rules, "x.example.com", 13, 1, &none, NULL, &v), 0);
	assert_refused(v, "no-address");
}

Test(netrule, answers_are_checked_only_after_the_name)
{
	add(true, "x.example.com");
	assert_refused(answered("x.example.com", 80, "93.184.216.34", NULL, NULL), "host-denied");
	assert_refused(answered("y.example.com", 80, "93.184.216.34", NULL, NULL), "host-not-allowed");
}

/* A deny rule's address refuses every name that resolves to it, before
 * allow_addresses (deny first), on its port if it names one. */
Test(netrule, deny_rule_address_refuses_answers)
{
	add(false, "*.example.com");
	add(true, "93.184.216.34");
	add(true, "[2606:2800:220:1::1]:443");
	add_addr("93.184.216.0/24");
	assert_refused(answered("a.example.com", 80, "93.184.216.34", NULL, NULL), "address-denied");
	assert_refused(answered("a.example.com", 80, "1.1.1.1", "93.184.216.34", NULL), "address-denied");
	/* the same address spelt as IPv4-mapped IPv6, even where allow_addresses admits those */
	add_addr("::ffff:0:0/96");
	assert_refused(answered("a.example.com", 80, "::ffff:93.184.216.34", NULL, NULL), "address-denied");
	assert_allowed(answered("a.example.com", 80, "::ffff:93.184.216.35", NULL, NULL));
	assert_allowed(answered("a.example.com", 80, "93.184.216.35", NULL, NULL));
	assert_refused(answered("b.example.com", 443, "2606:2800:220:1::1", NULL, NULL), "address-denied");
	assert_allowed(answered("b.example.com", 80, "2606:2800:220:1::1", NULL, NULL));
	/* and as a literal, by the name rule itself */
	assert_refused(name("93.184.216.34", 80), "host-denied");
}

/* The name the proxy resolves is the one its rules decided. */
Test(netrule, the_decided_name_is_normalised)
{
	struct cordon_net_verdict v;

	add(false, "api.example.com");
	add(true, "denied.example.com");
	v = name("API.Example.COM.", 443);
	assert_resolve(v);
	cr_assert_str_eq(v.name, "api.example.com");
	assert_refused(name("Denied.Example.com.", 80), "host-denied");
	assert_refused(name("denied.example.com.", 80), "host-denied");
	assert_refused(name("DENIED.EXAMPLE.COM", 80), "host-denied");
	assert_refused(name("api.example.com..", 80), "host-malformed");
	assert_refused(name("api..example.com", 80), "host-malformed");
	assert_refused(name("api.exa mple.com", 80), "host-malformed");
}

/* The route lookup: what the kernel delivers here, asked now. */
Test(netrule, route_lookup_says_what_is_this_host)
{
	struct cordon_net_host *h = NULL;
	struct cordon_netaddr lo = addr("127.0.0.1"), lo_other = addr("127.45.6.7"), test_net = addr("192.0.2.1");
	struct ifaddrs *ifa = NULL;

	cr_assert_eq(cordon_net_host_open(&h), 0);
	cr_assert_eq(cordon_net_host_is_local(h, &lo), 1);
	/* any address of a prefix on lo, not only the one listed on it */
	cr_assert_eq(cordon_net_host_is_local(h, &lo_other), 1);
	/* TEST-NET-1: routed elsewhere (or nowhere), never here */
	cr_assert_eq(cordon_net_host_is_local(h, &test_net), 0);
	/* every IPv4 address of the host's interfaces is delivered here */
	cr_assert_eq(getifaddrs(&ifa), 0);
	for (struct ifaddrs *i = ifa; i; i = i->ifa_next) {
		struct cordon_netaddr a;
		char text[INET6_ADDRSTRLEN];

		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
			continue;
		cordon_netaddr_from_sockaddr(i->ifa_addr, &a);
		netaddr_format(&a, text, sizeof(text));
		cr_assert_eq(cordon_net_host_is_local(h, &a), 1, "%s (%s)", text, i->ifa_name);
	}
	freeifaddrs(ifa);
	cr_assert_null(cordon_net_host_free(h));
}

struct class_case {
	const char *addr, *reason;
};

Test(netrule, address_classes)
{
	static const struct class_case cases[] = {
		{ "169.254.169.254", "address-metadata" },
		{ "100.100.100.200", "address-metadata" },
		{ "168.63.129.16", "address-metadata" },
		{ "fd00:ec2::254", "address-metadata" },
		{ "0.0.0.0", "address-unspecified" },
		{ "0.1.2.3", "address-unspecified" },
		{ "::", "address-unspecified" },
		{ "127.0.0.1", "address-loopback" },
		{ "127.255.255.254", "address-loopback" },
		{ "::1", "address-loopback" },
		{ "10.0.0.1", "address-private" },
		{ "172.16.0.1", "address-private" },
		{ "172.31.255.255", "address-private" },
		{ "192.168.0.1", "address-private" },
		{ "fc00::1", "address-private" },
		{ "fd12:3456::1", "address-private" },
		{ "fec0::1", "address-private" },
		{ "169.254.1.1", "address-link-local" },
		{ "fe80::1", "address-link-local" },
		{ "febf::1", "address-link-local" },
		{ "100.64.0.1", "address-cgnat" },
		{ "100.127.255.255", "address-cgnat" },
		{ "224.0.0.1", "address-multicast" },
		{ "239.255.255.250", "address-multicast" },
		{ "ff02::1", "address-multicast" },
		{ "255.255.255.255", "address-broadcast" },
		{ "240.0.0.1", "address-reserved" },
		{ "192.0.2.1", "address-reserved" },
		{ "198.18.0.1", "address-reserved" },
		{ "2001:db8::1", "address-reserved" },
		{ "::ffff:127.0.0.1", "address-ipv4-embedded" },
		{ "::ffff:8.8.8.8", "address-ipv4-embedded" },
		{ "::127.0.0.1", "address-ipv4-embedded" },
		{ "64:ff9b::7f00:1", "address-ipv4-embedded" },
		{ "64:ff9b:1::a00:1", "address-ipv4-embedded" },
		{ "2002:7f00:1::1", "address-ipv4-embedded" },
		{ "2001:0:4136:e378::1", "address-ipv4-embedded" },
		{ "8.8.8.8", NULL },
		{ "1.1.1.1", NULL },
		{ "172.32.0.1", NULL },
		{ "172.15.255.255", NULL },
		{ "100.63.255.255", NULL },
		{ "100.128.0.0", NULL },
		{ "169.253.0.1", NULL },
		{ "223.255.255.255", NULL },
		{ "2606:4700::1111", NULL },
		{ "2001:4860:4860::8888", NULL },
		{ "fe00::1", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cordon_netaddr a = addr(cases[i].addr);
		const char *got = netaddr_class(&a);

		if (!cases[i].reason)
			cr_expect_null(got, "%s: got %s", cases[i].addr, got);
		else
			cr_expect(got && strcmp(got, cases[i].reason) == 0, "%s: want %s, got %s", cases[i].addr,
				  cases[i].reason, got ? got : "public");
	}
}

Test(netrule, rule_syntax)
{
	static const char *const bad_hosts[] = {
		"", "*.", "*.1.2.3.4", "a:0", "a:65536", "a:x", "[::1", "[::1]x", "a..b", "*.*.a", "a b", "*",
	};
	static const char *const bad_addrs[] = { "", "1.2.3", "1.2.3.4/33", "::1/129", "1.2.3.4/", "1.2.3.4/x", "host" };
	struct cordon_error err;

	for (size_t i = 0; i < sizeof(bad_hosts) / sizeof(bad_hosts[0]); i++)
		cr_expect_eq(netrules_add_host(&rules, false, bad_hosts[i], &err), -EINVAL, "%s", bad_hosts[i]);
	for (size_t i = 0; i < sizeof(bad_addrs) / sizeof(bad_addrs[0]); i++)
		cr_expect_eq(netrules_add_address(&rules, bad_addrs[i], &err), -EINVAL, "%s", bad_addrs[i]);
	cr_assert_eq(rules.n_allow + rules.n_addresses, 0);
	add_addr("10.0.0.0/8");
	add_addr("fd00::/8");
	add_addr("0.0.0.0/0");
	cr_assert_eq(rules.n_addresses, 3);
}

Test(netrule, cidr_boundaries)
{
	add(false, "h.example");
	add_addr("10.1.0.0/17");
	assert_allowed(answered("h.example", 1, "10.1.127.255", NULL, NULL));
	assert_refused(answered("h.example", 1, "10.1.128.0", NULL, NULL), "address-private");
	add_addr("fd00:ec2::/32");
	assert_allowed(answered("h.example", 1, "fd00:ec2::254", NULL, NULL));
}

Test(netrule, resolve_localhost)
{
	struct cordon_netaddr_list l = {};
	bool loop = false;

	/* /etc/hosts: no network needed */
	cr_assert_eq(netrule_resolve("localhost", &l), 0);
	cr_assert_gt(l.n, 0);
	for (size_t i = 0; i < l.n; i++)
		loop |= netaddr_class(&l.v[i]) && strcmp(netaddr_class(&l.v[i]), "address-loopback") == 0;
	cr_assert(loop);
	cordon_netaddr_list_done(&l);
}

/* The public face (cordon/netrules.h), as the proxy uses it: an opaque set,
 * rules added by kind, the same decision. */
Test(netrule, public_api_by_kind)
{
	struct cordon_netrules *r = NULL;
	struct cordon_net_verdict v;
	struct cordon_netaddr pub = addr("93.184.216.34"), lo = addr("127.0.0.1");
	struct cordon_netaddr_list one_public = { &pub, 1 }, loopback = { &lo, 1 };
	char err[256] = "";

	cr_assert_eq(cordon_netrules_new(&r), 0);
	cr_assert_eq(cordon_netrules_add(r, CORDON_NET_ALLOW_DOMAIN, "*.example.com", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(cordon_netrules_add(r, CORDON_NET_DENY_DOMAIN, "bad.example.com", err, sizeof(err)), 0, "%s", err);
	/* bad input: a clear refusal, nothing added */
	cr_assert_eq(cordon_netrules_add(r, CORDON_NET_ALLOW_DOMAIN, "a b", err, sizeof(err)), -EINVAL);
	cr_assert_neq(err[0], '\0');
	cr_assert_eq(cordon_netrules_add(r, CORDON_NET_ALLOW_ADDRESS, "10.0.0.0/33", err, sizeof(err)), -EINVAL);
	cr_assert_eq(cordon_netrules_add(r, (enum cordon_net_rule)7, "x", err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "unknown kind"), "%s", err);
	cr_assert_eq(cordon_netrules_add(r, CORDON_NET_ALLOW_DOMAIN, NULL, err, sizeof(err)), -EINVAL);

	/* a name its rules allow: resolve it (not allowed yet), then every
	 * answer is checked */
	cordon_net_decide(r, "api.example.com", 15, 443, NULL, NULL, &v);
	cr_assert(!v.allowed && v.need_resolve);
	cordon_net_decide(r, "api.example.com", 15, 443, &one_public, NULL, &v);
	cr_assert(v.allowed, "%s", v.detail);
	cordon_net_decide(r, "api.example.com", 15, 443, &loopback, NULL, &v);
	cr_assert(!v.allowed);
	cr_assert_str_eq(v.reason, "address-loopback");
	/* the deny list first; the apex is not a subdomain */
	cordon_net_decide(r, "bad.example.com", 15, 443, NULL, NULL, &v);
	cr_assert(!v.allowed);
	cr_assert_str_eq(v.reason, "host-denied");
	cordon_net_decide(r, "example.com", 11, 443, NULL, NULL, &v);
	cr_assert(!v.allowed);
	cr_assert_str_eq(v.reason, "host-not-allowed");

	/* an address rule admits that loopback answer, and only through the kind */
	cr_assert_eq(cordon_netrules_add(r, CORDON_NET_ALLOW_ADDRESS, "127.0.0.1", err, sizeof(err)), 0, "%s", err);
	cordon_net_decide(r, "api.example.com", 15, 443, &loopback, NULL, &v);
	cr_assert(v.allowed, "%s", v.detail);
	cr_assert_null(cordon_netrules_free(r));
	cr_assert_null(cordon_netrules_free(NULL));
}

/* cordon_netrules_add_rule: the reason in the library's carrier, the same
 * text the char-buffer form gives; NULL for no reason. */
Test(netrule, public_api_reason_in_cordon_error)
{
	struct cordon_netrules *r = NULL;
	struct cordon_error e = {};
	char err[256] = "";

	cr_assert_eq(cordon_netrules_new(&r), 0);
	cr_assert_eq(cordon_netrules_add_rule(r, CORDON_NET_ALLOW_DOMAIN, "*.example.com", &e), 0, "%s", e.message);
	cr_assert_eq(cordon_netrules_add_rule(r, CORDON_NET_ALLOW_ADDRESS, "10.0.0.0/33", &e), -EINVAL);
	cr_assert(strstr(e.message, "the prefix is not 0-32"), "%s", e.message);
	cr_assert_eq(cordon_netrules_add(r, CORDON_NET_ALLOW_ADDRESS, "10.0.0.0/33", err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, e.message);
	cr_assert_eq(cordon_netrules_add_rule(r, CORDON_NET_ALLOW_DOMAIN, "a b", NULL), -EINVAL);
	cr_assert_eq(cordon_netrules_add(r, CORDON_NET_ALLOW_DOMAIN, "a b", NULL, 0), -EINVAL);
	cr_assert_null(cordon_netrules_free(r));
}
