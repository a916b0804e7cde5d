/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The safe list for a repository configuration written from inside the
 * sandbox (git_config_safe.h). A key that is not listed is refused, so a
 * key git adds later is refused until someone reads what it does.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "git_config_safe.h"

enum value_kind { VALUE_ANY, VALUE_URL };

static const struct safe_key {
	const char *section;
	bool sub;               /* a subsection is required (else: none allowed) */
	const char *key;        /* "*": every key */
	enum value_kind kind;
} safe_keys[] = {
	{ "core", false, "repositoryformatversion", VALUE_ANY },
	{ "core", false, "filemode", VALUE_ANY },
	{ "core", false, "bare", VALUE_ANY },
	{ "core", false, "logallrefupdates", VALUE_ANY },
	{ "core", false, "ignorecase", VALUE_ANY },
	{ "core", false, "precomposeunicode", VALUE_ANY },
	{ "core", false, "sharedrepository", VALUE_ANY },
	{ "core", false, "symlinks", VALUE_ANY }, /* git init, on a file system without them */
	{ "init", false, "defaultbranch", VALUE_ANY },
	{ "user", false, "*", VALUE_ANY },
	{ "extensions", false, "objectformat", VALUE_ANY },
	{ "extensions", false, "refstorage", VALUE_ANY },
	{ "remote", true, "url", VALUE_URL },
	{ "remote", true, "pushurl", VALUE_URL },
	{ "remote", true, "fetch", VALUE_ANY },
	/* branch.X.remote may be a URL itself */
	{ "branch", true, "remote", VALUE_URL },
	{ "branch", true, "merge", VALUE_ANY },
	{ "push", false, "default", VALUE_ANY },
	{ "submodule", true, "url", VALUE_URL },
	{ "submodule", true, "active", VALUE_ANY },
};

static bool has_control(const char *s)
{
	for (; s && *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

bool git_url_plain(const char *url)
{
	const char *colon = strchr(url, ':'), *slash = strchr(url, '/'), *scheme_end = strstr(url, "://");

	if (!url[0] || url[0] == '-' || strstr(url, "::") || has_control(url))
		return false;
	if (scheme_end) {
		size_t n = (size_t)(scheme_end - url);

		if (!((n == 5 && strncmp(url, "https", 5) == 0) || (n == 3 && strncmp(url, "ssh", 3) == 0) ||
		      (n == 4 && strncmp(url, "file", 4) == 0)))
			return false;
		return scheme_end[3] != '-';
	}
	/* scp-like: a colon before any slash; its host must not be an option */
	if (colon && (!slash || colon < slash)) {
		const char *at = memchr(url, '@', (size_t)(colon - url));
		const char *host = at ? at + 1 : url;

		return host < colon && host[0] != '-';
	}
	return true; /* a path */
}

static const struct safe_key *find_safe(const struct git_config_entry *e)
{
	for (size_t i = 0; i < sizeof(safe_keys) / sizeof(safe_keys[0]); i++) {
		const struct safe_key *k = &safe_keys[i];

		if (strcmp(k->section, e->section) == 0 && k->sub == !!e->subsection &&
		    (strcmp(k->key, "*") == 0 || strcmp(k->key, e->key) == 0))
			return k;
	}
	return NULL;
}

static bool is_remote_url(const struct git_config_entry *e, const char *remote)
{
	return strcmp(e->section, "remote") == 0 && e->subsection && strcmp(e->subsection, remote) == 0 &&
	       (strcmp(e->key, "url") == 0 || strcmp(e->key, "pushurl") == 0);
}

/* remote's url and pushurl entries, in order, the same in both? */
static bool same_urls(const struct git_config *a, const struct git_config *b, const char *remote)
{
	size_t i = 0, j = 0;

	for (;;) {
		while (i < a->n && !is_remote_url(&a->v[i], remote))
			i++;
		while (j < b->n && !is_remote_url(&b->v[j], remote))
			j++;
		if (i == a->n || j == b->n)
			return i == a->n && j == b->n;
		if (strcmp(a->v[i].key, b->v[j].key) != 0 || !a->v[i].value != !b->v[j].value ||
		    (a->v[i].value && strcmp(a->v[i].value, b->v[j].value) != 0))
			return false;
		i++;
		j++;
	}
}

/* The same entry, byte for byte, in c? */
static bool kept(const struct git_config *c, const struct git_config_entry *e)
{
	for (size_t i = 0; c && i < c->n; i++) {
		const struct git_config_entry *x = &c->v[i];

		if (strcmp(x->section, e->section) == 0 && strcmp(x->key, e->key) == 0 &&
		    !x->subsection == !e->subsection && (!x->subsection || strcmp(x->subsection, e->subsection) == 0) &&
		    !x->value == !e->value && (!x->value || strcmp(x->value, e->value) == 0))
			return true;
	}
	return false;
}

int git_config_check(const struct git_config *cand, const struct git_config *current, char *key, size_t keylen,
		     const char **why)
{
	for (size_t i = 0; i < cand->n; i++) {
		const struct git_config_entry *e = &cand->v[i];
		const struct safe_key *k = find_safe(e);

		/* what the host's own config already says is no new code: a
		 * rewrite (git config user.email) carries it along */
		if (kept(current, e))
			continue;
		if (!k || has_control(e->subsection) || has_control(e->value)) {
			git_config_entry_name(e, key, keylen);
			*why = !k ? "not on the safe list (it could name a command, a helper or another file)"
				  : "a control character in its name or value";
			return -EPERM;
		}
		if (k->kind == VALUE_URL && (!e->value || !git_url_plain(e->value))) {
			git_config_entry_name(e, key, keylen);
			*why = "not a plain URL (https://, ssh://, file://, host:path or a path; never helper::address)";
			return -EPERM;
		}
	}
	/* a remote once set keeps its URLs: a credentialed push goes there */
	for (size_t i = 0; current && i < current->n; i++) {
		const struct git_config_entry *e = &current->v[i];

		if (is_remote_url(e, e->subsection ? e->subsection : "") && !same_urls(cand, current, e->subsection)) {
			git_config_entry_name(e, key, keylen);
			*why = "changes or removes an existing remote's URL";
			return -EPERM;
		}
	}
	return 0;
}
