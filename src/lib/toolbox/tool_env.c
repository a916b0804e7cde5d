/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The paths in a value a caller passes to a tool. A list of variables
 * whose value a program loads (KUBECONFIG, OPENSSL_CONF, PAGER,
 * GIT_CONFIG_GLOBAL ...) cannot be complete, so every value is read for
 * paths, and a path that leads where a sandbox of the session can write
 * (or to the caller's own fds and directory through /proc and /dev) keeps
 * the call from running.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canon.h"
#include "cleanup.h"
#include "cordon/cordon.h"
#include "path.h"
#include "tool_env.h"

#define PIECE_MAX 4096

static bool is_separator(char c)
{
	return c == ':' || c == ';' || c == ',' || c == '=' || c == '@' || c == ' ' || c == '\t' || c == '\n' ||
	       c == '\r' || c == '"' || c == '\'' || c == '(' || c == ')' || c == '<' || c == '>' || c == '|' ||
	       c == '&' || c == '{' || c == '}' || c == '[' || c == ']';
}

/* path[0..len) with empty and "." components dropped, into out (size
 * PIECE_MAX + 2); false when a ".." component is in it (a component the
 * kernel resolves after a link a sandbox may have made) or it is too long. */
static bool lexical(const char *path, size_t len, char *out)
{
	size_t k = 0;

	for (size_t i = 0; i < len;) {
		size_t n;

		while (i < len && path[i] == '/')
			i++;
		for (n = 0; i + n < len && path[i + n] != '/'; n++)
			;
		if (n == 0 || (n == 1 && path[i] == '.')) {
			i += n;
			continue;
		}
		if (n == 2 && path[i] == '.' && path[i + 1] == '.')
			return false;
		if (k + 1 + n > PIECE_MAX)
			return false;
		out[k++] = '/';
		memcpy(out + k, path + i, n);
		k += n;
		i += n;
	}
	if (k == 0)
		out[k++] = '/';
	out[k] = '\0';
	return true;
}

static bool reaches(const char *p, const char *const *roots)
{
	if (path_is_under(p, "/proc") || (path_is_under(p, "/dev") && strcmp(p, "/dev/null") != 0))
		return true;
	return path_under_any(p, roots);
}

/* The absolute piece value[at..at+len). */
static bool piece_reaches(const char *piece, size_t len, const char *const *roots)
{
	char lex[PIECE_MAX + 2];
	_cleanup_free_ char *canon = NULL;

	if (!lexical(piece, len, lex) || reaches(lex, roots))
		return true;
	if (canonicalize_n(lex, strlen(lex), &canon, NULL) < 0)
		return true;
	return reaches(canon, roots);
}

static void say(char *what, size_t size, const char *piece, size_t len)
{
	if (size)
		snprintf(what, size, "%.*s", (int)(len > 200 ? 200 : len), piece);
}

bool tool_env_value_reaches(const char *value, const char *const *roots, char *what, size_t size)
{
	size_t tok = 0; /* where the current piece between separators starts */
	unsigned pieces = 0;

	if (strnlen(value, TOOL_ENV_VALUE_MAX + 1) > TOOL_ENV_VALUE_MAX) {
		say(what, size, "(a value over 128 KiB)", 22);
		return true;
	}

	for (size_t i = 0; value[i]; i++) {
		size_t len;

		if (is_separator(value[i])) {
			tok = i + 1;
			continue;
		}
		if (i == tok && value[i] == '.' &&
		    (value[i + 1] == '/' || (value[i + 1] == '.' && value[i + 2] == '/'))) {
			for (len = 0; value[i + len] && !is_separator(value[i + len]); len++)
				;
			say(what, size, value + i, len);
			return true; /* relative to the caller's directory */
		}
		if (value[i] != '/')
			continue;
		/* a path starts here: at a piece's start, or after an option's
		 * letters ("-I/x"), never inside a path ("/var/tmp" is not "/tmp") */
		if (i != tok && !(value[tok] == '-' && !memchr(value + tok, '/', i - tok)))
			continue;
		/* each is canonicalised on the supervisor's loop: a bound */
		if (++pieces > TOOL_ENV_PATHS_MAX) {
			say(what, size, "(more paths than cordon checks in one value)", 44);
			return true;
		}
		for (len = 0; value[i + len] && !is_separator(value[i + len]); len++)
			;
		if (piece_reaches(value + i, len, roots)) {
			say(what, size, value + i, len);
			return true;
		}
		i += len - 1;
	}
	return false;
}
