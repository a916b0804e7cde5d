/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test-only: writes a credential table (credtable.h) to stdout, as the
 * supervisor will, from a JSON description, with a session CA made here
 * (tls_ca.c); the CA's certificate also goes to CA_OUT for the test.
 *
 *   credtable-writer SPEC.json CA_OUT > table
 *
 * SPEC: {"creds": [{"name", "hosts": [...], "inject": "header"|"basic"|"query",
 *   "inject_name", "format", "shape_prefix", "shape_len", "phantoms": [...],
 *   "others": [...], "default": "deny"|"allow"|"approve",
 *   "rules": [[action, method, path, reason]...], "tls_ca_file",
 *   "tls_cert_file", "tls_key_file", "value_env": VAR}],
 *   "ca_key_mismatch": true (optional: the table's CA key is another CA's,
 *   which the proxy must refuse at its start)}
 * The real value comes from the environment variable value_env, never
 * from the command line.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "credtable.h"
#include "tls_ca.h"

static char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return strdup(s ? s : "");
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t n = 0;

	if (!f)
		return NULL;
	buf = calloc(1, 1 << 20);
	if (buf)
		n = fread(buf, 1, (1 << 20) - 1, f);
	fclose(f);
	if (buf)
		buf[n] = '\0';
	return buf;
}

static char **strv(json_t *a, size_t *ret_n)
{
	size_t n = json_array_size(a);
	char **v = calloc(n + 1, sizeof(*v));

	for (size_t i = 0; i < n; i++)
		v[i] = strdup(json_string_value(json_array_get(a, i)));
	*ret_n = n;
	return v;
}

static enum credtable_action action(const char *s)
{
	return !strcmp(s, "allow") ? CREDTABLE_ALLOW : !strcmp(s, "approve") ? CREDTABLE_APPROVE : CREDTABLE_DENY;
}

int main(int argc, char **argv)
{
	struct credtable t = {};
	json_error_t jerr;
	json_t *spec, *creds;
	char **all_hosts = NULL;
	struct cordon_error err;
	size_t n_all = 0;
	FILE *ca;
	int r;

	if (argc != 3 || !(spec = json_load_file(argv[1], 0, &jerr))) {
		fprintf(stderr, "usage: credtable-writer SPEC.json CA_OUT\n");
		return 2;
	}
	if (credtable_secure_init() < 0) {
		fprintf(stderr, "credtable-writer: no secure heap\n");
		return 1;
	}
	creds = json_object_get(spec, "creds");
	t.n_creds = json_array_size(creds);
	t.creds = calloc(t.n_creds + 1, sizeof(*t.creds));
	all_hosts = calloc(64 * (t.n_creds + 1), sizeof(char *));
	for (size_t i = 0; i < t.n_creds; i++) {
		json_t *o = json_array_get(creds, i), *rules = json_object_get(o, "rules");
		struct credtable_cred *c = &t.creds[i];
		const char *inj = json_string_value(json_object_get(o, "inject")), *venv;
		char *f;

		c->name = str(o, "name");
		c->hosts = strv(json_object_get(o, "hosts"), &c->n_hosts);
		for (size_t k = 0; k < c->n_hosts; k++)
			all_hosts[n_all++] = c->hosts[k];
		c->inject = !strcmp(inj, "basic") ? CREDTABLE_INJECT_BASIC
			    : !strcmp(inj, "query") ? CREDTABLE_INJECT_QUERY
						    : CREDTABLE_INJECT_HEADER;
		c->inject_name = str(o, "inject_name");
		c->format = str(o, "format");
		c->shape_prefix = str(o, "shape_prefix");
		c->shape_len = (uint32_t)json_integer_value(json_object_get(o, "shape_len"));
		c->shape_alphabet = CREDTABLE_ALPHA_BASE62;
		c->phantoms = strv(json_object_get(o, "phantoms"), &c->n_phantoms);
		c->others = strv(json_object_get(o, "others"), &c->n_others);
		f = str(o, "default");
		c->policy.dflt = action(f);
		free(f);
		c->policy.n_rules = json_array_size(rules);
		c->policy.rules = calloc(c->policy.n_rules + 1, sizeof(*c->policy.rules));
		for (size_t k = 0; k < c->policy.n_rules; k++) {
			json_t *rl = json_array_get(rules, k);

			c->policy.rules[k] = (struct credtable_rule){
				action(json_string_value(json_array_get(rl, 0))),
				strdup(json_string_value(json_array_get(rl, 1))),
				strdup(json_string_value(json_array_get(rl, 2))),
				strdup(json_string_value(json_array_get(rl, 3))),
			};
		}
		f = str(o, "tls_ca_file");
		c->tls_ca_pem = f[0] ? slurp(f) : strdup("");
		free(f);
		f = str(o, "tls_cert_file");
		c->tls_cert_pem = f[0] ? slurp(f) : strdup("");
		free(f);
		f = str(o, "tls_key_file");
		if (f[0]) {
			char *k = slurp(f);

			credtable_secret_set(&c->tls_key_pem, k, strlen(k));
			free(k);
		}
		free(f);
		venv = getenv(json_string_value(json_object_get(o, "value_env")));
		if (venv)
			credtable_secret_set(&c->value, venv, strlen(venv));
	}
	r = tls_ca_make(all_hosts, n_all, &t.ca_cert_pem, &t.ca_key_pem);
	if (r < 0) {
		fprintf(stderr, "credtable-writer: the CA: %d\n", r);
		return 1;
	}
	if (json_is_true(json_object_get(spec, "ca_key_mismatch"))) {
		char *other_pem = NULL;
		struct credtable_secret other = {};

		r = tls_ca_make(all_hosts, n_all, &other_pem, &other);
		if (r < 0 || credtable_secret_set(&t.ca_key_pem, other.p, other.n) < 0) {
			fprintf(stderr, "credtable-writer: the other CA: %d\n", r);
			return 1;
		}
		free(other_pem);
		credtable_secret_clear(&other);
	}
	if (credtable_check(&t, &err) < 0) {
		fprintf(stderr, "credtable-writer: %s\n", err.message);
		return 1;
	}
	ca = fopen(argv[2], "we");
	if (!ca || fputs(t.ca_cert_pem, ca) < 0 || fclose(ca) != 0)
		return 1;
	r = credtable_write(1, &t);
	if (r < 0) {
		fprintf(stderr, "credtable-writer: write: %s\n", strerror(-r));
		return 1;
	}
	return 0;
}
