/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * "#!" lines, read as the kernel reads them (fs/binfmt_script.c): at most
 * 256 bytes, zero-padded past the end of a shorter file; the line ends at
 * the first newline, or, without one, the interpreter must be followed by
 * a blank or NUL within the buffer (a cut-off interpreter path is refused,
 * a cut-off argument is not); the argument is the rest of the line with
 * blanks trimmed at both ends, one string however many words it holds.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/cordon.h"
#include "cleanup.h"
#include "error.h"
#include "shebang.h"

static bool spacetab(char c)
{
	return c == ' ' || c == '\t';
}

/* first..last inclusive, as the kernel's helpers */
static char *next_non_spacetab(char *first, const char *last)
{
	for (; first <= last; first++)
		if (!spacetab(*first))
			return first;
	return NULL;
}

static char *next_terminator(char *first, const char *last)
{
	for (; first <= last; first++)
		if (spacetab(*first) || !*first)
			return first;
	return NULL;
}

int shebang_parse(const char *in, size_t len, char **ret_interp, char **ret_arg, struct cordon_error *reterr)
{
	char buf[SHEBANG_MAX] = {};
	const char *buf_end = buf + sizeof(buf) - 1;
	char *i_end, *i_name, *i_sep, *i_arg = NULL;
	_cleanup_free_ char *interp = NULL, *arg = NULL;

	memcpy(buf, in, len < sizeof(buf) ? len : sizeof(buf));
	if (len < 2 || buf[0] != '#' || buf[1] != '!')
		return 0;

	i_end = memchr(buf, '\n', sizeof(buf));
	if (!i_end) {
		i_end = next_non_spacetab(buf + 2, buf_end);
		if (!i_end)
			return error_set(reterr, -ENOEXEC, "the #! line holds only blanks");
		if (!next_terminator(i_end, buf_end))
			return error_set(reterr, -ENOEXEC, "the #! line's interpreter is cut off at %d bytes",
					 SHEBANG_MAX);
		i_end = (char *)buf_end;
	}
	while (spacetab(i_end[-1]))
		i_end--;

	i_name = next_non_spacetab(buf + 2, i_end);
	if (!i_name || i_name == i_end)
		return error_set(reterr, -ENOEXEC, "no interpreter on the #! line");
	i_sep = next_terminator(i_name, i_end);
	if (i_sep && *i_sep != '\0')
		i_arg = next_non_spacetab(i_sep, i_end);

	/* The kernel cuts the strings where it writes NULs: at the end, and
	 * between interpreter and argument. */
	*i_end = '\0';
	if (i_arg)
		*i_sep = '\0';
	/* "#!" then NUL: the kernel goes on to open "" and fails */
	if (!*i_name)
		return error_set(reterr, -ENOEXEC, "no interpreter on the #! line");
	interp = strdup(i_name);
	if (!interp)
		return -ENOMEM;
	if (i_arg && *i_arg) {
		arg = strdup(i_arg);
		if (!arg)
			return -ENOMEM;
	}
	*ret_interp = TAKE_PTR(interp);
	*ret_arg = TAKE_PTR(arg);
	return 1;
}

/* The next blank-separated word of *p, or NULL at the end. */
static char *next_word(char **p)
{
	char *s = *p, *w;

	while (spacetab(*s))
		s++;
	if (!*s)
		return NULL;
	w = s;
	while (*s && !spacetab(*s))
		s++;
	if (*s)
		*s++ = '\0';
	*p = s;
	return w;
}

/* env -S: options, then NAME=VALUE assignments, then the program. */
static int split_string_program(char *s, const char *whole, char **ret_name, struct cordon_error *reterr)
{
	bool options = true;
	char *w;

	if (strpbrk(s, "'\"\\$"))
		return error_set(reterr, -ENOEXEC,
				 "cannot tell which program '#!env %s' runs (quotes, escapes or variables)", whole);
	while ((w = next_word(&s))) {
		if (options && w[0] == '-') {
			if (strcmp(w, "--") == 0) {
				options = false;
			} else if (strcmp(w, "-i") == 0 || strcmp(w, "-") == 0 ||
				   strcmp(w, "--ignore-environment") == 0 || strncmp(w, "--unset=", 8) == 0 ||
				   strncmp(w, "--chdir=", 8) == 0) {
				/* no program name in these */
			} else if (strcmp(w, "-u") == 0 || strcmp(w, "-C") == 0) {
				if (!next_word(&s))
					break;
			} else if (strncmp(w, "-u", 2) == 0 || strncmp(w, "-C", 2) == 0) {
				/* -uNAME, -CDIR */
			} else {
				return error_set(reterr, -ENOEXEC, "env option '%s' in '#!env %s' is not supported", w,
						 whole);
			}
			continue;
		}
		options = false;
		if (strchr(w, '=') && w[0] != '=')
			continue; /* NAME=VALUE */
		*ret_name = strdup(w);
		return *ret_name ? 0 : -ENOMEM;
	}
	return error_set(reterr, -ENOEXEC, "'#!env %s' names no program", whole);
}

int shebang_env_program(const char *arg, char **ret_name, struct cordon_error *reterr)
{
	_cleanup_free_ char *copy = NULL;
	char *name;

	if (!arg || !*arg)
		return error_set(reterr, -ENOEXEC, "#!env names no program");
	if (arg[0] != '-') {
		/* One argument, blanks and all: env looks for exactly that. */
		name = strdup(arg);
		if (!name)
			return -ENOMEM;
		*ret_name = name;
		return 0;
	}
	copy = strdup(arg);
	if (!copy)
		return -ENOMEM;
	if (strncmp(copy, "-S", 2) == 0)
		return split_string_program(copy + 2, arg, ret_name, reterr);
	if (strncmp(copy, "--split-string=", 15) == 0)
		return split_string_program(copy + 15, arg, ret_name, reterr);
	return error_set(reterr, -ENOEXEC, "env option in '#!env %s' is not supported (only -S)", arg);
}
