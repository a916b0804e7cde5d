/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `cordon profile list|show|validate|schema|diff` and `cordon why`: the
 * commands that explain profiles. The loading, merging and deciding is the
 * library's (cordon/profile.h, cordon/why.h); this file only asks and prints.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "cli.h"
#include "config.h"
#include "path.h"
#include "schema_embedded.h"
#include "strv.h"

#define say cli_say

static int print_json_to(json_t *o, FILE *f, size_t flags)
{
	if (!o || json_dumpf(o, f, flags) < 0)
		return -ENOMEM;
	fputc('\n', f);
	fflush(f);
	return 0;
}

/* ---- list ---------------------------------------------------------------- */

/* The user directory, as cordon_profile_load finds it. */
static char *user_profile_dir(void)
{
	const char *xdg = secure_getenv("XDG_CONFIG_HOME"), *home = secure_getenv("HOME");
	_cleanup_free_ char *config = NULL;

	if (xdg && xdg[0] == '/')
		return path_join(xdg, "cordon/profiles");
	if (!home || home[0] != '/')
		return NULL;
	config = path_join(home, ".config");
	return config ? path_join(config, "cordon/profiles") : NULL;
}

/* meta.description of a file or text, or NULL; never fails the listing. */
static char *description_of(json_t *j)
{
	const char *d = json_string_value(json_object_get(json_object_get(j, "meta"), "description"));

	return d ? strdup(d) : NULL;
}

static char *file_description(const char *file, bool *ret_invalid)
{
	_cleanup_(json_decrefp) json_t *j = NULL;
	struct stat st;

	*ret_invalid = true;
	if (stat(file, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > CORDON_PROFILE_MAX_BYTES)
		return NULL;
	j = json_load_file(file, JSON_REJECT_DUPLICATES, NULL);
	if (!j)
		return NULL;
	*ret_invalid = false;
	return description_of(j);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* NAME.json files of dir, sorted; none when dir is missing. */
static int dir_profiles(const char *dir, char ***ret)
{
	_cleanup_strv_free_ char **names = NULL;
	DIR *d;
	struct dirent *de;
	int r = 0;

	*ret = NULL;
	if (!dir)
		return 0;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (n <= 5 || strcmp(de->d_name + n - 5, ".json") != 0 || de->d_name[0] == '.')
			continue;
		if (strv_length(names) >= CORDON_PROFILE_MAX_RULES)
			break;
		_cleanup_free_ char *name = strndup(de->d_name, n - 5);
		if (!name || (r = strv_push(&names, name)) < 0) {
			closedir(d);
			return r < 0 ? r : -ENOMEM;
		}
	}
	closedir(d);
	if (names)
		qsort(names, strv_length(names), sizeof(char *), cmp_str);
	*ret = TAKE_PTR(names);
	return 0;
}

static int profile_list(const struct cli_args *a)
{
	_cleanup_free_ char *user_dir = user_profile_dir();
	const char *data_dir = CORDON_DATADIR "/profiles";
	_cleanup_strv_free_ char **user = NULL, **installed = NULL, **seen = NULL;
	_cleanup_(json_decrefp) json_t *arr = json_array();
	const char *const *builtins = cordon_profile_builtin_names();
	int r;

	if (!arr)
		return CLI_EXIT_REFUSED;
	if ((r = dir_profiles(user_dir, &user)) < 0)
		say("cannot list %s: %s", user_dir, strerror(-r));
	if ((r = dir_profiles(data_dir, &installed)) < 0)
		say("cannot list %s: %s", data_dir, strerror(-r));
	if (!a->json)
		printf("%-18s %-10s %s\n", "NAME", "SOURCE", "FILE");

	/* In lookup order: the first of a name is the one --profile NAME gets. */
	for (int source = 0; source < 3; source++) {
		static const char *const source_names[] = { "user", "installed", "built-in" };
		char *const *names = source == 0 ? user : source == 1 ? installed : (char *const *)builtins;

		STRV_FOREACH(n, names) {
			_cleanup_free_ char *file = NULL, *desc = NULL;
			const char *shadowed = strv_contains(seen, *n) ? "shadowed by an earlier one of the same name" : NULL;
			bool invalid = false;

			if (source < 2) {
				char fname[300];

				snprintf(fname, sizeof(fname), "%s.json", *n);
				file = path_join(source == 0 ? user_dir : data_dir, fname);
				if (!file)
					return CLI_EXIT_REFUSED;
				desc = file_description(file, &invalid);
			} else {
				_cleanup_(json_decrefp) json_t *j = NULL;
				const char *text;
				size_t len;

				if (asprintf(&file, "builtin:%s", *n) < 0)
					return CLI_EXIT_REFUSED;
				if (cordon_profile_builtin_text(*n, &text, &len) == 0 && (j = json_loadb(text, len, 0, NULL)))
					desc = description_of(j);
			}
			if (strv_push(&seen, *n) < 0)
				return CLI_EXIT_REFUSED;
			if (a->json) {
				json_array_append_new(arr, json_pack("{s:s,s:s,s:s,s:s?,s:b,s:s?}", "name", *n, "source",
								     source_names[source], "file", file, "description", desc,
								     "shadowed", shadowed != NULL, "problem",
								     invalid ? "not valid JSON: see `cordon profile validate`" : NULL));
				continue;
			}
			printf("%-18s %-10s %s%s%s\n", *n, source_names[source], file, shadowed ? "  (" : "",
			       shadowed ? "shadowed by the one above)" : "");
			if (invalid)
				printf("%-18s   not valid JSON: see `cordon profile validate %s`\n", "", file);
			else if (desc)
				printf("%-18s   %s\n", "", desc);
		}
	}
	if (a->json) {
		_cleanup_(json_decrefp) json_t *o = json_pack("{s:O,s:s?,s:s}", "profiles", arr, "user_dir", user_dir,
							      "installed_dir", data_dir);
		return print_json_to(o, stdout, JSON_COMPACT | JSON_ENSURE_ASCII) < 0 ? CLI_EXIT_REFUSED : 0;
	}
	printf("\nuser profiles: %s%s\ninstalled profiles: %s%s\n", user_dir ? user_dir : "(no HOME)",
	       user_dir && access(user_dir, F_OK) < 0 ? " (does not exist)" : "", data_dir,
	       access(data_dir, F_OK) < 0 ? " (does not exist)" : "");
	return 0;
}

/* ---- show ---------------------------------------------------------------- */

static int profile_show(const struct cli_args *a)
{
	_cleanup_(cordon_profile_freep) struct cordon_profile_handle *p = NULL;
	_cleanup_free_ char *text = NULL;
	struct cordon_profile_note note;
	int r;

	/* show prints command_policies too; --effective is what a run would
	 * build, and a run refuses what nothing enforces yet */
	if (cli_load_named(a->operands[0], a->workspace, false, !a->effective, &p) < 0)
		return CLI_EXIT_REFUSED;
	if (a->effective)
		return cli_profile_effective(a, p);
	r = cordon_profile_to_json(p, &text);
	if (r < 0) {
		say("cannot encode profile %s: %s", cordon_profile_name(p), strerror(-r));
		return CLI_EXIT_REFUSED;
	}
	if (a->json) {
		_cleanup_(json_decrefp) json_t *o = NULL, *notes = json_array(), *chain = json_array(),
					       *prof = json_loads(text, 0, NULL);

		if (!notes || !chain || !prof)
			return CLI_EXIT_REFUSED;
		for (const char *const *c = cordon_profile_chain(p); *c; c++)
			json_array_append_new(chain, json_string(*c));
		for (size_t i = 0; cordon_profile_note(p, i, &note) == 0; i++)
			json_array_append_new(notes, json_pack("{s:s,s:s?,s:s,s:s?,s:s?}", "kind", note.kind, "path",
							       note.path, "text", note.text, "file", note.origin.file,
							       "pointer", note.origin.pointer));
		o = json_pack("{s:s,s:s,s:O,s:O,s:O}", "name", cordon_profile_name(p), "file", cordon_profile_file(p),
			      "chain", chain, "profile", prof, "notes", notes);
		return print_json_to(o, stdout, JSON_INDENT(2) | JSON_SORT_KEYS) < 0 ? CLI_EXIT_REFUSED : 0;
	}
	puts(text);
	fflush(stdout);
	for (size_t i = 0; cordon_profile_note(p, i, &note) == 0; i++) {
		const struct cordon_origin *o = &note.origin;

		if (o->file && o->pointer && o->pointer[0])
			say("note: %s (%s at %s)", note.text, o->file, o->pointer);
		else
			say("note: %s", note.text);
	}
	return 0;
}

/* ---- validate ------------------------------------------------------------ */

/* The most errors one file reports. */
#define VALIDATE_MAX_ERRORS 32

/* FILE as given, so messages name it the way the user wrote it. */
static int validate_one(const char *file, const char *workspace)
{
	_cleanup_(cordon_profile_freep) struct cordon_profile_handle *p = NULL;
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int fd = -1;
	struct stat st;
	size_t len = 0;
	int r;

	fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "%s: cannot read profile: %m\n", file);
		return 1;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "%s: cannot read profile: %s\n", file, strerror(S_ISDIR(st.st_mode) ? EISDIR : EINVAL));
		return 1;
	}
	text = malloc(CORDON_PROFILE_MAX_BYTES + 1);
	if (!text)
		return 1;
	for (;;) {
		ssize_t n = read(fd, text + len, CORDON_PROFILE_MAX_BYTES + 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "%s: cannot read profile: %m\n", file);
			return 1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > CORDON_PROFILE_MAX_BYTES)
			break; /* cordon_profile_load_buffer says "larger than the 1 MiB limit" */
	}
	const struct cordon_profile_opts o = { .workspace = workspace };
	/* every error in one pass, each where it stands in the file */
	struct cordon_error errs[VALIDATE_MAX_ERRORS];
	r = cordon_profile_validate_buffer(text, len, file, &o, errs, VALIDATE_MAX_ERRORS);
	if (r < 0) {
		fprintf(stderr, "%s: cannot validate: %s\n", file, strerror(-r));
		return 1;
	}
	for (int i = 0; i < r; i++)
		fprintf(stderr, "%s\n", errs[i].message[0] ? errs[i].message : "an error without a message");
	if (r > 0)
		return 1;
	printf("%s: valid\n", file);
	return 0;
}

static int profile_validate(const struct cli_args *a)
{
	int bad = 0;

	STRV_FOREACH(f, a->operands)
		bad |= validate_one(*f, a->workspace);
	fflush(stdout);
	return bad ? 1 : 0;
}

/* ---- diff ---------------------------------------------------------------- */

static int flatten_push(char ***lines, const char *pointer, json_t *v)
{
	_cleanup_free_ char *value = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS);
	char *line;

	if (!value)
		return -ENOMEM;
	if (asprintf(&line, "%s: %s", pointer[0] ? pointer : "/", value) < 0)
		return -ENOMEM;
	return strv_consume(lines, line);
}

static int flatten(char ***lines, const char *pointer, json_t *v, unsigned depth)
{
	int r;

	if (depth > 32 || strv_length(*lines) > 4 * CORDON_PROFILE_MAX_RULES)
		return -E2BIG;
	if (json_is_object(v) && json_object_size(v) > 0) {
		const char *key;
		json_t *child;

		json_object_foreach(v, key, child) {
			_cleanup_free_ char *p = NULL, *escaped = malloc(strlen(key) * 2 + 1);
			char *o = escaped;

			if (!escaped)
				return -ENOMEM;
			/* RFC 6901: '~' is "~0", '/' is "~1" */
			for (const char *k = key; *k; k++)
				if (*k == '~' || *k == '/') {
					*o++ = '~';
					*o++ = *k == '~' ? '0' : '1';
				} else
					*o++ = *k;
			*o = '\0';
			if (asprintf(&p, "%s/%s", pointer, escaped) < 0)
				return -ENOMEM;
			r = flatten(lines, p, child, depth + 1);
			if (r < 0)
				return r;
		}
		return 0;
	}
	if (json_is_array(v) && json_array_size(v) > 0) {
		size_t i;
		json_t *child;

		/* a list is a set of rules: each element a line of its own */
		json_array_foreach(v, i, child) {
			if (json_is_object(child) || json_is_array(child)) {
				_cleanup_free_ char *p = NULL;

				if (asprintf(&p, "%s/%zu", pointer, i) < 0)
					return -ENOMEM;
				r = flatten(lines, p, child, depth + 1);
			} else
				r = flatten_push(lines, pointer, child);
			if (r < 0)
				return r;
		}
		return 0;
	}
	return flatten_push(lines, pointer, v);
}

int cli_profile_flatten(const char *json, char ***ret)
{
	_cleanup_(json_decrefp) json_t *j = json_loads(json, JSON_REJECT_DUPLICATES, NULL);
	_cleanup_strv_free_ char **lines = NULL;
	int r;

	if (!j)
		return -EINVAL;
	r = flatten(&lines, "", j, 0);
	if (r < 0)
		return r;
	if (!lines && !(lines = calloc(1, sizeof(char *))))
		return -ENOMEM;
	qsort(lines, strv_length(lines), sizeof(char *), cmp_str);
	*ret = TAKE_PTR(lines);
	return 0;
}

/* "- /p: v" / "+ /p: v": by pointer, then removals first, then value. */
static int cmp_diff_line(const void *x, const void *y)
{
	const char *a = *(char *const *)x, *b = *(char *const *)y;
	size_t na = strcspn(a + 2, ":"), nb = strcspn(b + 2, ":");
	int c = strncmp(a + 2, b + 2, na < nb ? na : nb);

	if (c == 0 && na != nb)
		c = na < nb ? -1 : 1;
	if (c == 0 && a[0] != b[0])
		c = a[0] == '-' ? -1 : 1;
	return c ? c : strcmp(a, b);
}

static int profile_diff(const struct cli_args *a)
{
	_cleanup_(cordon_profile_freep) struct cordon_profile_handle *pa = NULL, *pb = NULL;
	_cleanup_free_ char *ja = NULL, *jb = NULL;
	_cleanup_strv_free_ char **la = NULL, **lb = NULL, **out = NULL;
	size_t i = 0, k = 0;
	int r = 0;

	if (cli_load_named(a->operands[0], a->workspace, false, true, &pa) < 0 ||
	    cli_load_named(a->operands[1], a->workspace, false, true, &pb) < 0)
		return CLI_EXIT_REFUSED;
	if ((r = cordon_profile_to_json(pa, &ja)) < 0 || (r = cordon_profile_to_json(pb, &jb)) < 0 ||
	    (r = cli_profile_flatten(ja, &la)) < 0 || (r = cli_profile_flatten(jb, &lb)) < 0) {
		say("cannot compare the profiles: %s", strerror(-r));
		return CLI_EXIT_REFUSED;
	}
	/* Both sorted: one merge pass finds what differs, deterministically. */
	while (r >= 0 && (la[i] || lb[k])) {
		int c = !la[i] ? 1 : !lb[k] ? -1 : strcmp(la[i], lb[k]);
		char *line;

		if (c == 0) {
			i++, k++;
			continue;
		}
		if (asprintf(&line, "%c %s", c < 0 ? '-' : '+', c < 0 ? la[i++] : lb[k++]) < 0)
			return CLI_EXIT_REFUSED;
		r = strv_consume(&out, line);
	}
	if (r < 0)
		return CLI_EXIT_REFUSED;
	if (!out)
		return 0;
	qsort(out, strv_length(out), sizeof(char *), cmp_diff_line);
	printf("--- %s (%s)\n+++ %s (%s)\n", a->operands[0], cordon_profile_file(pa), a->operands[1],
	       cordon_profile_file(pb));
	STRV_FOREACH(l, out)
		puts(*l);
	fflush(stdout);
	return 1;
}

/* ---- the command ----------------------------------------------------------- */

int cli_profile(const struct cli_args *a)
{
	switch (a->action) {
	case CLI_PROFILE_LIST:
		return profile_list(a);
	case CLI_PROFILE_SHOW:
		return profile_show(a);
	case CLI_PROFILE_VALIDATE:
		return profile_validate(a);
	case CLI_PROFILE_SCHEMA:
		for (size_t i = 0; i < ELEMENTSOF(embedded_schema); i++)
			fwrite(embedded_schema[i].text, 1, embedded_schema[i].len, stdout);
		return fflush(stdout) == 0 ? 0 : CLI_EXIT_REFUSED;
	case CLI_PROFILE_DIFF:
		return profile_diff(a);
	case CLI_PROFILE_NONE:
		break;
	}
	fputs(cli_usage(CLI_PROFILE), stderr);
	return CLI_EXIT_REFUSED;
}
