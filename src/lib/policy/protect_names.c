/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Matching a path below a writable root against the rules by name (see
 * protect_names.h). Component by component: no pattern language, nothing
 * to escape.
 */
#include <stddef.h>
#include <string.h>

#include "protect_names.h"

/* What makes git run code, or read its config or hooks from elsewhere. */
static const char *const git_code[] = {
	"config", "config.worktree", "commondir", "gitdir", "hooks", "info", NULL,
};
/* What git writes in normal work: below these nothing is code. */
static const char *const git_data[] = { "objects", "refs", "logs", NULL };

static bool comp_is(const char *c, size_t n, const char *s)
{
	return strlen(s) == n && memcmp(c, s, n) == 0;
}

static bool comp_in(const char *c, size_t n, const char *const *set)
{
	for (size_t i = 0; set[i]; i++)
		if (comp_is(c, n, set[i]))
			return true;
	return false;
}

static bool name_matches(const char *pat, const char *c, size_t n)
{
	size_t pl = strlen(pat);

	if (pl && pat[pl - 1] == '*')
		return n >= pl - 1 && memcmp(c, pat, pl - 1) == 0;
	return comp_is(c, n, pat);
}

const char *protect_match_names(const char *const *names, const char *rel)
{
	for (const char *c = rel; names && *c;) {
		size_t n = strcspn(c, "/");

		for (size_t i = 0; names[i]; i++)
			if (!strchr(names[i], '/') && name_matches(names[i], c, n))
				return names[i];
		/* third-party trees a package manager lays down: their editor
		 * and tool files run nothing unless that folder is opened */
		if (comp_is(c, n, "node_modules"))
			return NULL;
		c += n;
		c += *c == '/';
	}
	return NULL;
}

const char *protect_match_git(const char *rel)
{
	for (const char *c = rel; *c;) {
		size_t n = strcspn(c, "/");
		const char *next = c + n + (c[n] == '/');

		if (comp_is(c, n, ".git")) {
			if (!*next)
				return "a .git entry (a directory, or a gitdir: file that could point git anywhere)";
			for (const char *d = next; *d;) {
				size_t m = strcspn(d, "/");

				if (comp_in(d, m, git_data))
					return NULL;
				if (comp_in(d, m, git_code))
					return "what makes git run code or read its config from elsewhere";
				d += m;
				d += *d == '/';
			}
			return NULL;
		}
		c = next;
	}
	return NULL;
}

const char *protect_match_git_keep(const char *rel)
{
	static const char *const keep[] = { "HEAD", "objects", "refs", NULL };

	for (const char *c = rel; *c;) {
		size_t n = strcspn(c, "/");
		const char *next = c + n + (c[n] == '/');

		if (comp_is(c, n, ".git") && *next) {
			size_t m = strcspn(next, "/");

			if (!next[m] && comp_in(next, m, keep))
				return "what keeps a .git a repository (HEAD, objects, refs)";
		}
		c = next;
	}
	return NULL;
}

bool protect_git_config_name(const char *rel)
{
	for (const char *c = rel; *c;) {
		size_t n = strcspn(c, "/");
		const char *next = c + n + (c[n] == '/');

		if (comp_is(c, n, ".git") && *next) {
			for (const char *d = next; *d;) {
				size_t m = strcspn(d, "/");

				if (!d[m])
					return comp_is(d, m, "config") || comp_is(d, m, "config.worktree");
				if (comp_in(d, m, git_data) || comp_in(d, m, git_code))
					return false;
				d += m + 1;
			}
			return false;
		}
		c = next;
	}
	return false;
}

bool protect_git_entry_name(const char *rel)
{
	const char *last = strrchr(rel, '/');

	return strcmp(last ? last + 1 : rel, ".git") == 0;
}

bool protect_git_code_name(const char *name, size_t len)
{
	return comp_in(name, len, git_code);
}
