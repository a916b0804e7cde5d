/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The credential table's wire form and the endpoint matcher (issue 23). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <string.h>
#include <unistd.h>

#include "credtable.h"
#include "cred_endpoint.h"
#include "tls_ca.h"

static char *hosts[] = { "api.example.test", "uploads.example.test", NULL };
static char *phantoms[] = { "ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", NULL };
static char *others[] = { "ghp_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", NULL };
static struct credtable_rule rules[] = {
	{ CREDTABLE_ALLOW, "GET", "/repos/*/*/issues/**", "" },
	{ CREDTABLE_APPROVE, "POST", "/repos/*/*/issues", "" },
	{ CREDTABLE_DENY, "DELETE", "/**", "no deletes" },
};

static struct credtable *sample(void)
{
	struct credtable *t = calloc(1, sizeof(*t));
	struct credtable_cred *c = calloc(1, sizeof(*c));

	cr_assert(t && c);
	cr_assert_eq(credtable_secure_init(), 0);
	cr_assert_eq(tls_ca_make(hosts, 2, &t->ca_cert_pem, &t->ca_key_pem), 0);
	c->name = strdup("github");
	c->hosts = malloc(sizeof(hosts));
	for (size_t i = 0; i < 2; i++)
		c->hosts[i] = strdup(hosts[i]);
	c->n_hosts = 2;
	c->inject = CREDTABLE_INJECT_HEADER;
	c->inject_name = strdup("Authorization");
	c->format = strdup("Bearer {}");
	c->shape_prefix = strdup("ghp_");
	c->shape_len = 36;
	c->shape_alphabet = CREDTABLE_ALPHA_BASE62;
	c->phantoms = calloc(2, sizeof(char *));
	c->phantoms[0] = strdup(phantoms[0]);
	c->n_phantoms = 1;
	c->others = calloc(2, sizeof(char *));
	c->others[0] = strdup(others[0]);
	c->n_others = 1;
	c->policy.dflt = CREDTABLE_DENY;
	c->policy.rules = calloc(3, sizeof(*c->policy.rules));
	for (size_t i = 0; i < 3; i++)
		c->policy.rules[i] = (struct credtable_rule){ rules[i].action, strdup(rules[i].method),
							      strdup(rules[i].path), strdup(rules[i].reason) };
	c->policy.n_rules = 3;
	c->tls_ca_pem = strdup("");
	c->tls_cert_pem = strdup("");
	cr_assert_eq(credtable_secret_set(&c->value, "gho_REALREALREAL", 16), 0);
	t->creds = c;
	t->n_creds = 1;
	return t;
}

Test(credtable, round_trip_through_a_pipe)
{
	struct credtable *t = sample(), *u = NULL;
	char *pem = NULL;
	uint32_t hash = 0;
	unsigned char *store = NULL;
	size_t store_n = 0;
	int p[2];

	/* the JVM's store travels in the public part, for the runner */
	t->java_store = (unsigned char *)strdup("not really PKCS#12");
	t->java_store_n = 18;
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	cr_assert_eq(credtable_write(p[1], t), 0);
	close(p[1]);
	cr_assert_eq(credtable_read_public(p[0], &pem, &hash, &store, &store_n), 0);
	cr_assert_neq(hash, 0);
	cr_assert_str_eq(pem, t->ca_cert_pem);
	cr_assert_eq(store_n, 18);
	cr_assert_eq(memcmp(store, "not really PKCS#12", 18), 0);
	free(store);
	cr_assert_eq(credtable_read(p[0], &u), 0, "the proxy reads at the secret part, after the runner");
	cr_assert_str_eq(u->ca_cert_pem, pem);
	free(pem);
	close(p[0]);
	cr_assert_eq(u->n_creds, 1);
	cr_assert_str_eq(u->creds[0].name, "github");
	cr_assert_str_eq(u->creds[0].hosts[1], "uploads.example.test");
	cr_assert_str_eq(u->creds[0].phantoms[0], phantoms[0]);
	cr_assert_str_eq(u->creds[0].others[0], others[0]);
	cr_assert_eq(u->creds[0].policy.n_rules, 3);
	cr_assert_str_eq(u->creds[0].policy.rules[2].reason, "no deletes");
	cr_assert_eq(u->creds[0].value.n, 16);
	cr_assert(CRYPTO_secure_allocated(u->creds[0].value.p), "the value lives in secure memory");
	cr_assert(CRYPTO_secure_allocated(u->ca_key_pem.p));
	cr_assert_eq(memcmp(u->creds[0].value.p, "gho_REALREALREAL", 16), 0);
	credtable_free(t);
	credtable_free(u);
}

Test(credtable, refuses_an_incoherent_table)
{
	struct credtable *t = sample();
	struct cordon_error err;
	int p[2];

	credtable_secret_clear(&t->creds[0].value);
	cr_assert_eq(credtable_secret_set(&t->creds[0].value, "a\r\nb", 4), 0);
	cr_assert_eq(credtable_check(t, &err), -EINVAL, "a value with CR LF is refused");
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	cr_assert_eq(credtable_write(p[1], t), -EINVAL);
	credtable_secret_clear(&t->creds[0].value);
	cr_assert_eq(credtable_secret_set(&t->creds[0].value, "v", 1), 0);
	cr_assert_eq(credtable_secret_set(&t->creds[0].tls_key_pem, "k", 1), 0);
	cr_assert_eq(credtable_check(t, &err), -EINVAL, "a key without its certificate is refused");
	credtable_secret_clear(&t->creds[0].tls_key_pem);
	credtable_secret_clear(&t->ca_key_pem);
	cr_assert_eq(credtable_check(t, &err), -EINVAL, "no CA: refused");
	close(p[0]);
	close(p[1]);
	credtable_free(t);
}

/* A credential not granted here: no value, no phantom of its own, every
 * phantom of the session as others; its hosts are intercepted all the
 * same. It round-trips; a value-less entry with a phantom or a client
 * certificate is refused. */
Test(credtable, an_entry_without_a_value)
{
	struct credtable *t = sample(), *u = NULL;
	struct credtable_cred *c = &t->creds[0];
	struct cordon_error err;
	int p[2];

	credtable_secret_clear(&c->value);
	/* a granted capture's entry: its phantom, its value asked for by the
	 * proxy on first use */
	cr_assert_eq(credtable_check(t, &err), 0, "no value, a phantom of its own (a capture's): %s", err.message);
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	cr_assert_eq(credtable_write(p[1], t), 0);
	close(p[1]);
	cr_assert_eq(credtable_read(p[0], &u), 0);
	close(p[0]);
	cr_assert_null(u->creds[0].value.p, "no value on the wire, none read");
	cr_assert_eq(u->creds[0].n_phantoms, 1);
	credtable_free(u);
	u = NULL;
	free(c->phantoms[0]);
	c->phantoms[0] = NULL;
	c->n_phantoms = 0;
	cr_assert_eq(credtable_check(t, &err), 0, "%s", err.message);
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	cr_assert_eq(credtable_write(p[1], t), 0);
	close(p[1]);
	cr_assert_eq(credtable_read(p[0], &u), 0);
	close(p[0]);
	cr_assert_eq(u->n_creds, 1);
	cr_assert_null(u->creds[0].value.p, "no value on the wire, none read");
	cr_assert_eq(u->creds[0].n_phantoms, 0);
	cr_assert_str_eq(u->creds[0].others[0], others[0]);
	cr_assert_str_eq(u->creds[0].hosts[0], hosts[0]);
	credtable_free(u);
	cr_assert_eq(credtable_secret_set(&c->tls_key_pem, "k", 1), 0);
	free(c->tls_cert_pem);
	c->tls_cert_pem = strdup("cert");
	cr_assert_eq(credtable_check(t, &err), -EINVAL, "no value, a client certificate: refused");
	credtable_secret_clear(&c->tls_key_pem);
	free(c->tls_cert_pem);
	c->tls_cert_pem = strdup("");
	cr_assert_eq(credtable_secret_set(&c->value, "", 0), 0);
	cr_assert_eq(credtable_check(t, &err), -EINVAL, "an empty value is not the absence of one");
	credtable_free(t);
}

Test(credtable, refuses_truncated_and_padded_bodies)
{
	struct credtable *t = sample(), *u = NULL;
	unsigned char buf[8192];
	ssize_t n;
	int p[2];
	size_t off;

	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
	cr_assert_eq(credtable_write(p[1], t), 0);
	close(p[1]);
	n = read(p[0], buf, sizeof(buf));
	close(p[0]);
	cr_assert_gt(n, 16);
	/* skip the public part (no JVM store: its length 0) and the body's length */
	off = 12 + strlen(t->ca_cert_pem) + 4 + 4 + 4;
	{
		int q[2];

		/* the whole stream, as a standalone proxy takes it */
		cr_assert_eq(pipe2(q, O_CLOEXEC), 0);
		cr_assert_eq(write(q[1], buf, (size_t)n), n);
		close(q[1]);
		cr_assert_eq(credtable_read(q[0], &u), 0);
		credtable_free(u);
		close(q[0]);
	}
	cr_assert_eq(credtable_decode(buf + off, (size_t)n - off, &u), 0);
	credtable_free(u);
	for (size_t cut = 0; cut < (size_t)n - off; cut += 7)
		cr_assert_eq(credtable_decode(buf + off, cut, &u), -EBADMSG, "cut at %zu", cut);
	cr_assert_eq(credtable_decode(buf + off, (size_t)n - off + 1, &u), -EBADMSG, "trailing byte");
	credtable_free(t);
}

Test(credtable, shapes)
{
	struct credtable *t = sample();
	const struct credtable_cred *c = &t->creds[0];

	cr_assert(credtable_shape_distinctive(c));
	cr_assert(credtable_shape_matches(c, phantoms[0], strlen(phantoms[0])));
	cr_assert(credtable_shape_matches(c, "ghp_Zz0123456789abcdefghijABCDEFGHIJKLMN", 40));
	cr_assert_not(credtable_shape_matches(c, "ghp_Zz0123456789abcdefghijABCDEFGHIJKLM-", 40));
	cr_assert_not(credtable_shape_matches(c, "gho_Zz0123456789abcdefghijABCDEFGHIJKLMN", 40));
	cr_assert_not(credtable_shape_matches(c, "ghp_Zz0123456789abcdefghijABCDEFGHIJKLM", 39));
	credtable_free(t);
}

static const char *canon(const char *t)
{
	static char out[256];
	const char *why = NULL;

	return endpoint_canon_path(t, strlen(t), out, sizeof(out), &why) == 0 ? out : why;
}

Test(endpoint, canonicalisation_refuses_ambiguous_paths)
{
	cr_assert_str_eq(canon("/repos/a/b/issues?x=1"), "/repos/a/b/issues");
	cr_assert_str_eq(canon("/"), "/");
	cr_assert_str_eq(canon("/a/b/"), "/a/b/");
	cr_assert_str_eq(canon("/a%20b"), "/a%20b");
	static const char *const bad[] = { "/a/../b", "/a/./b", "/a/..", "/a/.", "/a//b", "/a;x=1/b", "/a\\b",
					   "/a/%2e%2e/b", "/a/%2E/b", "/a%2fb", "/a%2Fb", "/a%5cb", "/a%3bb", "/a%00",
					   "/a%252e", "//a" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_str_eq(canon(bad[i]), "path-ambiguous", "%s", bad[i]);
	cr_assert_str_eq(canon("a/b"), "path-malformed");
	cr_assert_str_eq(canon("/a%zz"), "path-malformed");
	cr_assert_str_eq(canon("/a%2"), "path-malformed");
}

Test(endpoint, globs)
{
	cr_assert(endpoint_glob_match("/repos/*/*/issues/**", "/repos/o/r/issues/1/comments"));
	cr_assert(endpoint_glob_match("/repos/*/*/issues/**", "/repos/o/r/issues"));
	cr_assert(endpoint_glob_match("/repos/*/*/issues/**", "/repos/o/r/issues/"));
	cr_assert_not(endpoint_glob_match("/repos/*/*/issues/**", "/repos/o/issues/1"));
	cr_assert_not(endpoint_glob_match("/repos/*/*/issues/**", "/repos/o/r/pulls/1"));
	cr_assert(endpoint_glob_match("/repos/*/*/issues", "/repos/o/r/issues"));
	cr_assert_not(endpoint_glob_match("/repos/*/*/issues", "/repos/o/r/issues/1"));
	cr_assert_not(endpoint_glob_match("/repos/*", "/repos/"));
	cr_assert(endpoint_glob_match("/**", "/"));
	cr_assert(endpoint_glob_match("/**", "/x/y/z"));
	cr_assert(endpoint_glob_match("/a/**/z", "/a/z"));
	cr_assert(endpoint_glob_match("/a/**/z", "/a/b/c/z"));
	cr_assert_not(endpoint_glob_match("/a/**/z", "/a/b/c/y"));
	cr_assert(endpoint_glob_match("/v1/*.json", "/v1/x.json"));
	cr_assert_not(endpoint_glob_match("/v1/*.json", "/v1/x.yaml"));
}

Test(endpoint, deny_then_approve_then_allow_then_default)
{
	struct credtable_policy p = { .dflt = CREDTABLE_DENY, .rules = rules, .n_rules = 3 };
	const struct credtable_rule *r;

	cr_assert_eq(endpoint_decide(&p, "GET", "/repos/o/r/issues/1", &r), CREDTABLE_ALLOW);
	cr_assert_eq(r, &rules[0]);
	cr_assert_eq(endpoint_decide(&p, "POST", "/repos/o/r/issues", &r), CREDTABLE_APPROVE);
	cr_assert_eq(endpoint_decide(&p, "DELETE", "/repos/o/r/issues/1", &r), CREDTABLE_DENY);
	cr_assert_str_eq(r->reason, "no deletes");
	cr_assert_eq(endpoint_decide(&p, "GET", "/user", &r), CREDTABLE_DENY);
	cr_assert_null(r);
	cr_assert_eq(endpoint_decide(&p, "get", "/repos/o/r/issues/1", &r), CREDTABLE_DENY, "methods are exact");
}
