/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the sandbox's private /tmp hides, said after a run that failed: a
 * workspace (or working directory) below /tmp sees none of the host's
 * files beside it (`npm install ../dep`), and a command that reads one gets
 * a plain ENOENT that no denial line explains. The note names the hidden
 * paths (read on the host, not from the output) and how to bring one back
 * (--read PATH, read-only). The same for what the HOME allowlist hides.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "cli.h"
#include "path.h"

/* Names a note lists before "and N more". */
#define HIDDEN_MAX_NAMED 4

/* A host path below /tmp the run sees: below the workspace or the working
 * directory (the runner brings it back), or brought back by --read. */
static bool reachable(const char *path, const char *ws, const char *cwd, char *const *read_host)
{
	if ((ws && path_is_under(path, ws) > 0) || (cwd && path_is_under(path, cwd) > 0))
		return true;
	for (char *const *r = read_host; r && *r; r++) {
		_cleanup_free_ char *c = realpath(*r, NULL);

		if (c && (path_is_under(path, c) > 0 || path_is_under(c, path) > 0))
			return true;
	}
	return false;
}

/* "a, b, c": the first HIDDEN_MAX_NAMED names a note lists; *n counts
 * them all. A name already listed is not counted again. */
static int name_add(char **named, size_t *n, const char *name)
{
	char *s = NULL;

	if (*named && strstr(*named, name))
		return 0;
	if ((*n)++ >= HIDDEN_MAX_NAMED)
		return 0;
	if (asprintf(&s, "%s%s%s", *named ? *named : "", *named ? ", " : "", name) < 0)
		return -ENOMEM;
	free(*named);
	*named = s;
	return 0;
}

/* The next path in text[0..len) that starts with prefix (from *at on),
 * whole: a word of its own (after a blank, a quote, '(', '=' or ':'),
 * ended by a blank, a quote or punctuation. A copy in *ret; 0 when there
 * is none left. */
static int next_path(const char *text, size_t len, const char *prefix, const char **at, char **ret)
{
	size_t pl = strlen(prefix);

	*ret = NULL;
	for (const char *t = *at; t && (t = memmem(t, len - (size_t)(t - text), prefix, pl)); t += pl) {
		size_t k = strcspn(t, " \t\n\r'\"`:;,()[]{}<>\xe2");

		if ((t > text && !strchr(" \t\n'\"`(=:", t[-1])) || k >= PATH_MAX || k > len - (size_t)(t - text))
			continue;
		*at = t + pl;
		if (!(*ret = strndup(t, k)))
			return -ENOMEM;
		return 1;
	}
	return 0;
}

/* The entries beside anchor (a directory strictly below /tmp, not /tmp's
 * own entries: those are other programs') that the run could not see. */
static int note_siblings(json_t *hints, const char *anchor, const char *ws, const char *cwd, char *const *read_host)
{
	_cleanup_free_ char *parent = path_dirname(anchor);
	_cleanup_free_ char *named = NULL;
	size_t n = 0;
	struct dirent *de;
	DIR *d;

	if (!parent || strcmp(parent, "/tmp") == 0 || path_is_under(parent, "/tmp") <= 0)
		return 0;
	d = opendir(parent);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		_cleanup_free_ char *p = NULL;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		p = path_join(parent, de->d_name);
		if (!p || path_is_under(anchor, p) > 0 || reachable(p, ws, cwd, read_host))
			continue;
		if (name_add(&named, &n, p) < 0) {
			closedir(d);
			return -ENOMEM;
		}
	}
	closedir(d);
	if (!n)
		return 0;
	_cleanup_free_ char *msg = NULL;
	char more[48] = "";

	if (n > HIDDEN_MAX_NAMED)
		snprintf(more, sizeof(more), " and %zu more", n - HIDDEN_MAX_NAMED);
	if (asprintf(&msg,
		     "the sandbox's /tmp is its own: the host's files below /tmp are hidden, so %s%s (beside %s) "
		     "did not exist for the command; --read PATH brings one back, read-only",
		     named, more, anchor) < 0)
		return -ENOMEM;
	json_array_append_new(hints, json_string(msg));
	return 1;
}

/* Host paths below /tmp that the output names (an absolute path the
 * command was given, a tool's "no such file" line), checked on the host:
 * one that exists there and that the run could not see is named, with
 * why. A path the command made in its own /tmp does not exist outside. */
static int note_named(json_t *hints, const char *text, size_t len, const char *ws, const char *cwd,
		      char *const *read_host)
{
	_cleanup_free_ char *named = NULL, *msg = NULL;
	size_t n = 0;

	for (const char *at = text; at;) {
		_cleanup_free_ char *tok = NULL, *real = NULL;
		int r = next_path(text, len, "/tmp/", &at, &tok);

		if (r <= 0) {
			if (r < 0)
				return r;
			break;
		}
		real = realpath(tok, NULL);
		if (!real || path_is_under(real, "/tmp") <= 0 || reachable(real, ws, cwd, read_host))
			continue;
		if (name_add(&named, &n, real) < 0)
			return -ENOMEM;
		if (n > 64)
			break;
	}
	if (!n)
		return 0;
	if (asprintf(&msg,
		     "the sandbox's /tmp is its own: the host's %s%s below /tmp did not exist for the command; "
		     "--read PATH brings one back, read-only",
		     named, n > HIDDEN_MAX_NAMED ? " (and more)" : "") < 0)
		return -ENOMEM;
	json_array_append_new(hints, json_string(msg));
	return 1;
}

int cli_hidden_tmp_hints(const struct cli_args *a, const char *workspace, const struct cordon_confined *c,
			 const char *output, size_t output_len, json_t *hints)
{
	_cleanup_free_ char *ws = NULL, *cwd = NULL;
	int r;

	/* light isolation and danger-full-access see the host's /tmp */
	if (c->enforcement == CORDON_ENFORCEMENT_NONE || c->enforcement == CORDON_ENFORCEMENT_SEATBELT ||
	    (c->enforcement == CORDON_ENFORCEMENT_NATIVE && a->isolation_set &&
	     a->isolation == CORDON_ISOLATION_LIGHT))
		return 0;
	ws = workspace ? realpath(workspace, NULL) : NULL;
	cwd = getcwd(NULL, 0);
	if (ws && path_is_under(ws, "/tmp") > 0) {
		r = note_siblings(hints, ws, ws, cwd, a->read_host);
		if (r != 0)
			return r;
	}
	if (cwd && (!ws || path_is_under(cwd, ws) <= 0) && path_is_under(cwd, "/tmp") > 0) {
		r = note_siblings(hints, cwd, ws, cwd, a->read_host);
		if (r != 0)
			return r;
	}
	return note_named(hints, output, output_len, ws, cwd, a->read_host);
}

/* Under the HOME allowlist a hidden path reads as missing (full
 * isolation) or refused (light): paths below HOME that the output names,
 * that exist on the host and that `why` says the allowlist hides, are
 * named, with how to bring one back. */
int cli_hidden_home_hints(struct cordon_why *why, const char *home, const char *text, size_t len, json_t *hints)
{
	_cleanup_free_ char *named = NULL, *msg = NULL, *prefix = NULL;
	size_t n = 0;

	if (!why || !home || !text)
		return 0;
	if (!(prefix = path_join(home, "")))
		return -ENOMEM;
	for (const char *at = text; at;) {
		_cleanup_free_ char *tok = NULL;
		struct cordon_why_decision d;
		struct stat st;
		int r = next_path(text, len, prefix, &at, &tok);

		if (r <= 0) {
			if (r < 0)
				return r;
			break;
		}
		if (lstat(tok, &st) < 0)
			continue;
		if (cordon_why_path(why, tok, CORDON_OP_READ, &d) < 0 || d.allow ||
		    (!strstr(d.reason, "hidden by omission") && !strstr(d.reason, "stays hidden")))
			continue;
		if (name_add(&named, &n, tok) < 0)
			return -ENOMEM;
		if (n > 64)
			break;
	}
	if (!n)
		return 0;
	if (asprintf(&msg,
		     "the HOME allowlist hides %s%s, which exists on the host (cordon why --path says why); --read PATH "
		     "brings one back, read-only",
		     named, n > HIDDEN_MAX_NAMED ? " (and more)" : "") < 0)
		return -ENOMEM;
	json_array_append_new(hints, json_string(msg));
	return 1;
}
