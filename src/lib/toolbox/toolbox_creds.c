/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A session's credentials applied to its sandboxes (toolbox_creds.h): the
 * phantoms made once per session, what is withheld and hidden from every
 * sandbox, and a consumer's phantoms and network.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "cleanup.h"
#include "credtable.h"
#include "error.h"
#include "policy.h"
#include "provider.h"
#include "strv.h"
#include "toolbox_creds.h"
#include "tools.h"

struct toolbox_creds {
	const struct tool_creds *creds;   /* the profile's; NULL: none */
	struct toolbox_phantom *phantoms;
	size_t n_phantoms;
	char **withheld;
	char **hidden;
};

struct toolbox_creds *toolbox_creds_free(struct toolbox_creds *c)
{
	if (!c)
		return NULL;
	for (size_t i = 0; i < c->n_phantoms; i++) {
		free(c->phantoms[i].consumer);
		free(c->phantoms[i].value);
	}
	free(c->phantoms);
	strv_free(c->withheld);
	strv_free(c->hidden);
	free(c);
	return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct toolbox_creds *, toolbox_creds_free)

/* prefix + len characters drawn uniformly from the alphabet (getrandom;
 * rejection sampling, so no character is likelier than another). */
static int phantom_make(const struct cred_shape *s, char **ret)
{
	const char *chars = cred_alphabet_chars(s->alphabet);
	size_t k = strlen(chars), pl = strlen(s->prefix), filled = 0;
	unsigned limit = 256 - 256 % (unsigned)k;
	_cleanup_free_ char *v = malloc(pl + s->len + 1);

	if (!v)
		return -ENOMEM;
	memcpy(v, s->prefix, pl);
	while (filled < s->len) {
		unsigned char buf[64];
		ssize_t n = getrandom(buf, sizeof(buf), 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (ssize_t i = 0; i < n && filled < s->len; i++)
			if (buf[i] < limit)
				v[pl + filled++] = chars[buf[i] % k];
	}
	v[pl + s->len] = '\0';
	*ret = TAKE_PTR(v);
	return 0;
}

static int push_hidden(struct toolbox_creds *c, const struct tool_cred *cred, const char *path,
		       struct cordon_error *reterr)
{
	_cleanup_free_ char *canon = NULL;
	struct cordon_error e = {};
	int r = cordon_canonicalize(path, &canon, &e);

	if (r < 0)
		return error_set(reterr, r, "credential %s: %s: %s", cred->name, path, e.message);
	return strv_push_unique(&c->hidden, canon);
}

static int add_phantom(struct toolbox_creds *c, const struct tool_cred *cred, const char *consumer)
{
	struct toolbox_phantom *v = realloc(c->phantoms, (c->n_phantoms + 1) * sizeof(*v));
	int r;

	if (!v)
		return -ENOMEM;
	c->phantoms = v;
	v[c->n_phantoms] = (struct toolbox_phantom){ .cred = cred, .consumer = strdup(consumer) };
	if (!v[c->n_phantoms].consumer)
		return -ENOMEM;
	r = phantom_make(&cred->shape, &v[c->n_phantoms].value);
	if (r < 0) {
		free(v[c->n_phantoms].consumer);
		return r;
	}
	c->n_phantoms++;
	return 0;
}

int toolbox_creds_new(const struct cordon_tools *t, struct toolbox_creds **ret, struct cordon_error *reterr)
{
	_cleanup_(toolbox_creds_freep) struct toolbox_creds *c = calloc(1, sizeof(*c));
	int r;

	if (!c || !(c->withheld = calloc(1, sizeof(char *))) || !(c->hidden = calloc(1, sizeof(char *))))
		return -ENOMEM;
	c->creds = t ? t->creds : NULL;
	for (size_t i = 0; c->creds && i < c->creds->n; i++) {
		const struct tool_cred *cred = &c->creds->v[i];

		/* the real value's variable: read by the supervisor, in no
		 * sandbox; the phantom's: only where it is set as a phantom
		 * (a host's GH_TOKEN is likely the real token) */
		if (cred->source == CRED_SOURCE_ENV && (r = strv_push_unique(&c->withheld, cred->source_ref)) < 0)
			return r;
		if ((r = strv_push_unique(&c->withheld, cred->phantom_env)) < 0)
			return r;
		if (cred->source == CRED_SOURCE_FILE && (r = push_hidden(c, cred, cred->source_ref, reterr)) < 0)
			return r;
		if (cred->tls_client_key && (r = push_hidden(c, cred, cred->tls_client_key, reterr)) < 0)
			return r;
		for (char **g = cred->grant_to; *g; g++) {
			const char *consumer = strcmp(*g, CORDON_TOOLS_SESSION) == 0 ? *g : *g + 4;

			if ((r = add_phantom(c, cred, consumer)) < 0)
				return r;
		}
	}
	*ret = TAKE_PTR(c);
	return 0;
}

char *const *toolbox_creds_withheld(const struct toolbox_creds *c)
{
	return c->withheld;
}

char *const *toolbox_creds_hidden(const struct toolbox_creds *c)
{
	return c->hidden;
}

const struct toolbox_phantom *toolbox_creds_phantoms(const struct toolbox_creds *c, size_t *ret_n)
{
	*ret_n = c ? c->n_phantoms : 0;
	return c ? c->phantoms : NULL;
}

const char *toolbox_creds_phantom(const struct toolbox_creds *c, const char *cred, const char *consumer)
{
	for (size_t i = 0; c && i < c->n_phantoms; i++)
		if (strcmp(c->phantoms[i].cred->name, cred) == 0 && strcmp(c->phantoms[i].consumer, consumer) == 0)
			return c->phantoms[i].value;
	return NULL;
}

bool toolbox_creds_consumer(const struct toolbox_creds *c, const char *consumer)
{
	for (size_t i = 0; c && i < c->n_phantoms; i++)
		if (strcmp(c->phantoms[i].consumer, consumer) == 0)
			return true;
	return false;
}

bool toolbox_creds_intercepted(const struct toolbox_creds *c, const char *consumer, const struct cordon_policy *p)
{
	if (toolbox_creds_consumer(c, consumer))
		return true;
	return c && c->creds && c->creds->n && cordon_policy_net(p) == CORDON_NET_PROXY;
}

/* s single-quoted for sh (a ' closed, escaped, reopened). */
static int put_quoted(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	return fputc('\'', f) == EOF ? -EIO : 0;
}

/* git's credential helper for the consumer's basic credentials, or NULL
 * when it has none: a `!` command git runs with sh in the sandbox, as the
 * consumer, that answers `get` for https to a credential's hosts (any port)
 * with the basic user and the phantom's variable, read from its
 * environment: the helper holds no value and can read nothing the consumer
 * cannot. The runner puts it after a reset of credential.helper, so no
 * helper of the user's or a repository's config is asked, or told (`store`)
 * the phantom. */
static int git_helper(const struct toolbox_creds *c, const char *consumer, char **ret)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, n = 0;
	FILE *f = open_memstream(&buf, &len);
	int r = 0;

	if (!f)
		return -ENOMEM;
	fputs("!f() { test \"$1\" = get || exit 0; p= h=; while read -r l && test -n \"$l\"; do case $l in "
	      "protocol=*) p=${l#*=};; host=*) h=${l#*=};; esac; done; test \"$p\" = https || exit 0; "
	      "case ${h%:*} in", f);
	for (size_t i = 0; r == 0 && i < c->n_phantoms; i++) {
		const struct toolbox_phantom *ph = &c->phantoms[i];

		if (strcmp(ph->consumer, consumer) != 0 || ph->cred->inject != CRED_INJECT_BASIC)
			continue;
		fputc(' ', f);
		for (char **h = ph->cred->hosts; r == 0 && *h; h++) {
			if (h != ph->cred->hosts)
				fputc('|', f);
			r = put_quoted(f, *h);
		}
		/* printf, not echo: dash's echo reads backslashes */
		fputs(") printf 'username=%s\\npassword=%s\\n' ", f);
		if (r == 0)
			r = put_quoted(f, ph->cred->inject_name);
		fprintf(f, " \"$%s\";;", ph->cred->phantom_env);
		n++;
	}
	fputs(" esac; }; f", f);
	if (fclose(f) != 0 && r == 0)
		r = -ENOMEM;
	if (r < 0)
		return r;
	*ret = n ? TAKE_PTR(buf) : NULL;
	return 0;
}

int toolbox_creds_apply(const struct toolbox_creds *c, const char *consumer, struct cordon_policy *p,
			struct cordon_error *reterr)
{
	_cleanup_free_ char *helper = NULL;
	int r;

	if (!toolbox_creds_consumer(c, consumer)) {
		/* not a consumer, on the proxy: its proxy intercepts every
		 * credential host with a table that grants nothing, so a
		 * phantom learnt from a consumer is refused there, never
		 * tunnelled to the upstream (network host: no proxy to do it,
		 * see cordon why) */
		if (toolbox_creds_intercepted(c, consumer, p))
			return cordon_policy_set_credentials(p);
		return 0;
	}
	/* the way to the credential's hosts is the proxy, which holds the
	 * value: whatever the consumer's own network said (a tool whose
	 * network is written "none" was refused at load) */
	r = cordon_policy_set_net(p, CORDON_NET_PROXY);
	if (r < 0)
		return error_set(reterr, r, "cannot put %s on the proxy", consumer);
	/* its proxy gets the table of what it may spend (the supervisor
	 * writes it for each start: cordon_run_opts.credentials_fd) */
	r = cordon_policy_set_credentials(p);
	if (r < 0)
		return r;
	for (size_t i = 0; i < c->n_phantoms; i++) {
		const struct toolbox_phantom *ph = &c->phantoms[i];

		if (strcmp(ph->consumer, consumer) != 0)
			continue;
		for (char **h = ph->cred->hosts; *h; h++)
			if ((r = cordon_policy_add_net_rule(p, CORDON_NET_ALLOW_DOMAIN, *h, reterr)) < 0)
				return r;
		if ((r = cordon_policy_set_env(p, ph->cred->phantom_env, ph->value, reterr)) < 0)
			return r;
	}
	r = git_helper(c, consumer, &helper);
	if (r < 0)
		return r;
	if (helper && (r = cordon_policy_set_env(p, CREDTABLE_GIT_HELPER_ENV, helper, reterr)) < 0)
		return r;
	return 0;
}
