/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The credential catalogue below a home, canonical: one entry at a time,
 * resolved once per session start. A session's start reads it up to three
 * times (the profile's group checks, a credential lift, the policy's
 * read-deny set), some 140 entries below each home, each a walk of the
 * path; a memo carried from the profile's load to the first policy built
 * from it (profile_api.c) lets the later readers take the first one's
 * result. Only within that span: a catalogue entry resolved at start is
 * not trusted for a policy built later, after the home may have changed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "policy.h"

#define MEMO_HOMES 2 /* HOME and the passwd home */

struct policy_secret_memo {
	size_t n;                    /* entries in the catalogue */
	char *home[MEMO_HOMES];      /* NULL: slot free */
	char **canon[MEMO_HOMES];    /* n each; NULL: not resolved (yet, or it failed) */
};

/* The memo the current thread's session start uses, or NULL. */
static _Thread_local struct policy_secret_memo *active;

int policy_secret_memo_new(struct policy_secret_memo **ret)
{
	struct policy_secret_memo *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	while (policy_default_deny_read[m->n].path)
		m->n++;
	*ret = m;
	return 0;
}

struct policy_secret_memo *policy_secret_memo_free(struct policy_secret_memo *m)
{
	if (!m)
		return NULL;
	for (size_t h = 0; h < MEMO_HOMES; h++) {
		for (size_t i = 0; m->canon[h] && i < m->n; i++)
			free(m->canon[h][i]);
		free(m->canon[h]);
		free(m->home[h]);
	}
	free(m);
	return NULL;
}

struct policy_secret_memo *policy_secret_memo_use(struct policy_secret_memo *m)
{
	struct policy_secret_memo *prev = active;

	active = m;
	return prev;
}

/* The slot of home in m, taking a free one; NULL when none is left. */
static char **memo_slot(struct policy_secret_memo *m, const char *home)
{
	for (size_t h = 0; h < MEMO_HOMES; h++) {
		if (m->home[h] && strcmp(m->home[h], home) == 0)
			return m->canon[h];
		if (!m->home[h]) {
			m->home[h] = strdup(home);
			m->canon[h] = calloc(m->n, sizeof(char *));
			if (!m->home[h] || !m->canon[h]) {
				free(m->home[h]);
				free(m->canon[h]);
				m->home[h] = NULL;
				m->canon[h] = NULL;
				return NULL;
			}
			return m->canon[h];
		}
	}
	return NULL;
}

int policy_secret_canonical(const char *home, size_t i, char **ret, struct cordon_error *reterr)
{
	char **slot = active ? memo_slot(active, home) : NULL;
	char *c = NULL;
	int r;

	if (slot && slot[i]) {
		c = strdup(slot[i]);
		if (!c)
			return -ENOMEM;
		*ret = c;
		return 0;
	}
	r = canonicalize_at(home, policy_default_deny_read[i].path, &c, reterr);
	if (r < 0)
		return r; /* not kept: the next reader meets the failure afresh */
	if (slot)
		slot[i] = strdup(c); /* a failed copy only costs a walk later */
	*ret = c;
	return 0;
}
