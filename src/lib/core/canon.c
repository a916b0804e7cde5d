/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Canonicalisation of the paths a policy names. Unlike realpath(3), a missing
 * tail is kept (a workspace may not exist yet), the symlink budget is explicit
 * and every failure says which path and why.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "canon.h"
#include "cleanup.h"
#include "error.h"
#include "statmemo.h"
#include "strv.h"

/* The unresolved remainder may grow with each symlink; bound it. */
#define CANON_MAX_PENDING (8 * PATH_MAX)

/* Drop the last component of an absolute canonical path, in place. */
static void pop_component(char *resolved, size_t *len)
{
	while (*len > 1 && resolved[*len - 1] != '/')
		(*len)--;
	if (*len > 1)
		(*len)--; /* the separator, unless we are back at "/" */
	resolved[*len] = '\0';
}

static int push_component(char *resolved, size_t *len, const char *comp, size_t n)
{
	size_t need = *len + (*len > 1) + n;

	if (need >= PATH_MAX)
		return -ENAMETOOLONG;
	if (*len > 1)
		resolved[(*len)++] = '/';
	memcpy(resolved + *len, comp, n);
	*len += n;
	resolved[*len] = '\0';
	return 0;
}

/* Walk pending (owned) from start, a canonical absolute path whose
 * components need no second look. path/len name the original for messages.
 * links: when set, where each symlink followed sits (the link itself, its
 * directory resolved), for a grant's check (canonicalize_grant). */
static int canon_walk(const char *start, char *pending_in, const char *path, size_t len, char ***links, char **ret,
		      struct cordon_error *reterr)
{
	char resolved[PATH_MAX];
	size_t rlen;
	_cleanup_free_ char *pending = pending_in;
	unsigned hops = 0;
	size_t pos = 0, plen;
	bool missing = false;

	if (!pending)
		return -ENOMEM;
	rlen = strlen(start);
	if (start[0] != '/' || rlen >= sizeof(resolved))
		return error_set(reterr, -EINVAL, "'%s' is not an absolute canonical path", start);
	memcpy(resolved, start, rlen + 1);
	plen = strlen(pending);

	while (pos < plen) {
		const char *comp;
		size_t n;
		struct stat st;
		int r;

		while (pos < plen && pending[pos] == '/')
			pos++;
		if (pos >= plen)
			break;
		comp = pending + pos;
		n = strcspn(comp, "/");
		pos += n;

		if (n == 1 && comp[0] == '.')
			continue;
		if (n == 2 && comp[0] == '.' && comp[1] == '.') {
			/* ".." applies to the already resolved prefix */
			pop_component(resolved, &rlen);
			missing = false; /* what comes next may exist again */
			continue;
		}

		r = push_component(resolved, &rlen, comp, n);
		if (r < 0)
			return error_set(reterr, r, "path '%.*s' is too long once resolved", (int)len, path);

		if (missing)
			continue; /* below a missing component: nothing to look at */
		r = statmemo_lstat(resolved, &st);
		if (r < 0) {
			if (r == -ENOENT || r == -ENOTDIR) {
				missing = true;
				continue; /* a missing tail is kept verbatim */
			}
			return error_set(reterr, r, "cannot inspect '%s': %s", resolved, strerror(-r));
		}
		if (!S_ISLNK(st.st_mode))
			continue;

		if (links && (r = strv_push(links, resolved)) < 0)
			return r;
		if (++hops > CANON_MAX_SYMLINKS)
			return error_set(reterr, -ELOOP,
					 "too many symbolic links (more than %d) while resolving '%.*s': is there a loop?",
					 CANON_MAX_SYMLINKS, (int)len, path);

		char target[PATH_MAX];
		ssize_t tl = statmemo_readlink(resolved, target, sizeof(target));
		if (tl == -ENAMETOOLONG)
			return error_set(reterr, -ENAMETOOLONG, "symlink '%s' has a target that is too long", resolved);
		if (tl < 0)
			return error_set(reterr, (int)tl, "cannot read symlink '%s': %s", resolved, strerror((int)-tl));

		/* Replace the link with its target, then walk the target's components. */
		pop_component(resolved, &rlen);
		if (target[0] == '/') {
			resolved[0] = '/';
			resolved[1] = '\0';
			rlen = 1;
		}
		size_t rest = plen - pos;
		if ((size_t)tl + 1 + rest > CANON_MAX_PENDING)
			return error_set(reterr, -ENAMETOOLONG, "path '%.*s' grows too long through symlinks", (int)len, path);
		char *np = malloc((size_t)tl + 1 + rest + 1);
		if (!np)
			return -ENOMEM;
		memcpy(np, target, (size_t)tl);
		np[tl] = '/';
		memcpy(np + tl + 1, pending + pos, rest);
		np[tl + 1 + rest] = '\0';
		free(pending);
		pending = np;
		plen = (size_t)tl + 1 + rest;
		pos = 0;
	}

	char *out = strdup(resolved);
	if (!out)
		return -ENOMEM;
	*ret = out;
	return 0;
}

static int canon_start(const char *path, size_t len, char ***links, char **ret, struct cordon_error *reterr)
{
	char cwd[PATH_MAX];

	if (!path)
		return error_set(reterr, -EINVAL, "path is missing");
	if (memchr(path, '\0', len))
		return error_set(reterr, -EINVAL, "path contains a NUL byte");
	if (len == 0)
		return error_set(reterr, -EINVAL, "path is empty");
	if (len >= PATH_MAX)
		return error_set(reterr, -ENAMETOOLONG, "path is longer than %d bytes", PATH_MAX - 1);
	if (path[0] == '/')
		return canon_walk("/", strndup(path, len), path, len, links, ret, reterr);
	/* getcwd is canonical already: walk only the relative part */
	if (!getcwd(cwd, sizeof(cwd)))
		return error_set(reterr, -errno, "cannot read the current directory: %m");
	return canon_walk(cwd, strndup(path, len), path, len, links, ret, reterr);
}

int canonicalize_n(const char *path, size_t len, char **ret, struct cordon_error *reterr)
{
	return canon_start(path, len, NULL, ret, reterr);
}

int canonicalize_grant(const char *path, const char *const *const *roots, char **ret, struct cordon_error *reterr)
{
	_cleanup_strv_free_ char **links = NULL;
	_cleanup_free_ char *canon = NULL;
	int r;

	if (!path)
		return error_set(reterr, -EINVAL, "path is missing");
	r = canon_start(path, strlen(path), &links, &canon, reterr);
	if (r < 0)
		return r;
	STRV_FOREACH(link, links)
		for (size_t s = 0; roots && roots[s]; s++)
			for (const char *const *root = roots[s]; *root; root++)
				if (path_is_under(*link, *root))
					return error_set(reterr, -EPERM,
							 "%s reaches %s through the symlink %s, inside the writable root %s, "
							 "where a sandbox could have made it: refusing to follow it "
							 "(name the target itself)",
							 path, canon, *link, *root);
	*ret = TAKE_PTR(canon);
	return 0;
}

int canonicalize_at(const char *base, const char *rel, char **ret, struct cordon_error *reterr)
{
	size_t len;

	if (!base || !rel)
		return error_set(reterr, -EINVAL, "path is missing");
	len = strlen(rel);
	if (len == 0 || rel[0] == '/')
		return error_set(reterr, -EINVAL, "'%s' is not a relative path", rel);
	if (len >= PATH_MAX)
		return error_set(reterr, -ENAMETOOLONG, "path is longer than %d bytes", PATH_MAX - 1);
	return canon_walk(base, strdup(rel), rel, len, NULL, ret, reterr);
}

CORDON_API int cordon_canonicalize(const char *path, char **ret, struct cordon_error *reterr)
{
	if (!path || !ret)
		return error_set(reterr, -EINVAL, "path is missing");
	return canonicalize_n(path, strlen(path), ret, reterr);
}
