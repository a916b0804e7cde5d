/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The temp roots every writable mode grants: /tmp and $TMPDIR, canonical. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/cordon.h"
#include "canon.h"
#include "cleanup.h"
#include "error.h"
#include "policy.h"

/* The one memo this module keeps: written once, under the lock, then only
 * read. Only success is kept, so a failed first try (a bad TMPDIR) is tried
 * again, which pthread_once could not do. */
static char *temp_roots[3];
static bool temp_roots_ready;
static pthread_mutex_t temp_roots_lock = PTHREAD_MUTEX_INITIALIZER;

static int compute_temp_roots(char **out, struct cordon_error *reterr)
{
	const char *tmpdir = secure_getenv("TMPDIR");
	size_t n = 0;
	int r;

	r = cordon_canonicalize("/tmp", &out[n], reterr);
	if (r < 0)
		return r;
	n++;
	if (tmpdir && tmpdir[0] == '/') {
		char *t = NULL;

		r = cordon_canonicalize(tmpdir, &t, reterr);
		if (r < 0)
			goto fail;
		if (strcmp(t, "/") == 0) {
			free(t);
			r = error_set(reterr, -EINVAL,
				      "TMPDIR '%s' canonicalises to '/': refusing to make the whole filesystem writable",
				      tmpdir);
			goto fail;
		}
		if (strcmp(t, out[0]) == 0)
			free(t);
		else
			out[n++] = t;
	}
	out[n] = NULL;
	return 0;
fail:
	for (size_t i = 0; i < n; i++) {
		free(out[i]);
		out[i] = NULL;
	}
	return r;
}

const char *const *policy_temp_roots(void)
{
	static char *const none[] = { NULL };

	/* acquire: a reader that sees ready sees the roots written before it */
	if (!__atomic_load_n(&temp_roots_ready, __ATOMIC_ACQUIRE))
		return (const char *const *)none;
	return (const char *const *)temp_roots;
}

int policy_warm(struct cordon_error *reterr)
{
	int r = 0;

	if (__atomic_load_n(&temp_roots_ready, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&temp_roots_lock);
	if (!temp_roots_ready) {
		r = compute_temp_roots(temp_roots, reterr);
		if (r >= 0)
			__atomic_store_n(&temp_roots_ready, true, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&temp_roots_lock);
	return r < 0 ? r : 0;
}
