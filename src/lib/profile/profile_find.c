/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Finding a profile: NAME is a pack's profile when it is OWNER/NAME/PROFILE
 * (its bytes from the pack resolver), a path when it contains '/' or ends in
 * ".json", else user_profile_dir/NAME.json, else data_profile_dir/NAME.json,
 * else the embedded profile NAME. Also the environment names and tokens
 * resolve in (struct profile_env, else secure_getenv, else defaults).
 * Everything here that reads a file reads it capped and non-blocking.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cordon/cordon.h"
#include "canon.h"
#include "cleanup.h"
#include "config.h"
#include "error.h"
#include "fileio.h"
#include "profile_find.h"
#include "profile_loader.h"
#include "profiles_embedded.h"
#include "spell.h"
#include "strv.h"

/* Packs (issue 24): OWNER/NAME/PROFILE, each part [a-z0-9][a-z0-9._-]*,
 * is a pack's profile, never a path (a relative path that looks like one
 * is written ./a/b/c). Its bytes come from the resolver cordon-supervisor
 * sets, which verifies the installed pack at every load; without one (the
 * lean binary) such a name is refused with -ENOPKG. */
static profile_pack_resolver_fn pack_resolver;

static int doc_new(const char *data, size_t len, const char *file, struct doc **ret);

void profile_set_pack_resolver(profile_pack_resolver_fn fn)
{
	pack_resolver = fn;
}

bool profile_pack_part_ok(const char *s, size_t n)
{
	if (n == 0 || n > 64 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= '0' && s[0] <= '9')))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '_' ||
		      s[i] == '-'))
			return false;
	return true;
}

bool profile_name_is_pack(const char *name)
{
	const char *a = strchr(name, '/'), *b = a ? strchr(a + 1, '/') : NULL;
	size_t n = strlen(name);

	if (!b || strchr(b + 1, '/') || (n >= 5 && strcmp(name + n - 5, ".json") == 0))
		return false;
	return profile_pack_part_ok(name, (size_t)(a - name)) && profile_pack_part_ok(a + 1, (size_t)(b - a - 1)) &&
	       profile_pack_part_ok(b + 1, strlen(b + 1));
}

static int pack_doc(struct loader *l, const char *name, const struct doc *from, const struct where *from_where,
		    struct doc **ret)
{
	_cleanup_free_ char *text = NULL, *ident = NULL;
	struct cordon_error reason = {};
	size_t len = 0;
	int r;

	if (!pack_resolver)
		r = error_set(&reason, -ENOPKG, "a pack's profile is verified by cordon-supervisor");
	else
		r = pack_resolver(name, &text, &len, &reason);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return from ? loader_fail(l, r, from_where, "the pack profile \"%.200s\" is refused: %s", name,
					  reason.message)
			    : loader_fail_file(l, r, name, 0, 0, "the pack profile is refused: %s", reason.message);
	if (asprintf(&ident, "pack:%s", name) < 0)
		return -ENOMEM;
	/* no dir: it extends by name only (built-in or pack), never a path */
	r = doc_new(text, len, ident, ret);
	if (r < 0)
		return r;
	(*ret)->identity = TAKE_PTR(ident);
	return 0;
}

static bool name_is_path(const char *name)
{
	size_t n = strlen(name);

	return strchr(name, '/') || (n >= 5 && strcmp(name + n - 5, ".json") == 0);
}

static const char *builtin_text(const char *name, size_t *ret_len)
{
	for (size_t i = 0; i < ELEMENTSOF(embedded_profiles); i++)
		if (strcmp(embedded_profiles[i].name, name) == 0) {
			*ret_len = embedded_profiles[i].len;
			return embedded_profiles[i].text;
		}
	return NULL;
}

const char *const *profile_builtin_names(void)
{
	static const char *names[ELEMENTSOF(embedded_profiles) + 1];

	if (!names[0])
		for (size_t i = 0; i < ELEMENTSOF(embedded_profiles); i++)
			names[i] = embedded_profiles[i].name;
	return names;
}

int profile_builtin_text(const char *name, const char **ret_text, size_t *ret_len)
{
	size_t len;
	const char *t = name ? builtin_text(name, &len) : NULL;

	if (!t)
		return -ENOENT;
	*ret_text = t;
	*ret_len = len;
	return 0;
}

/* Anchor d at path: its directory for relative extends, its canonical form
 * (else path as given) for cycle detection. */
static int doc_anchor(struct doc *d, const char *path)
{
	char *slash;

	d->dir = strdup(path);
	if (!d->dir)
		return -ENOMEM;
	slash = strrchr(d->dir, '/');
	if (slash)
		slash[slash == d->dir ? 1 : 0] = '\0';
	else {
		/* a fresh ".": path may be shorter than it ("") */
		free(d->dir);
		d->dir = strdup(".");
		if (!d->dir)
			return -ENOMEM;
	}
	if (cordon_canonicalize(path, &d->identity, NULL) < 0 && !(d->identity = strdup(path)))
		return -ENOMEM;
	return 0;
}

/* A doc named file holding a copy of data[0..len). */
static int doc_new(const char *data, size_t len, const char *file, struct doc **ret)
{
	struct doc *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->file = strdup(file);
	d->text = malloc(len + 1);
	if (!d->file || !d->text) {
		doc_free(d);
		return -ENOMEM;
	}
	if (len)
		memcpy(d->text, data, len);
	d->text[len] = '\0';
	d->len = len;
	*ret = d;
	return 0;
}

int doc_from_buffer(const char *data, size_t len, const char *file, struct doc **ret)
{
	struct doc *d;
	int r = doc_new(data, len, file, &d);

	if (r < 0)
		return r;
	r = doc_anchor(d, file);
	if (r < 0) {
		doc_free(d);
		return r;
	}
	*ret = d;
	return 0;
}

/* Read path into a new doc; -errno without a message (the caller says). */
static int doc_read_file(const char *path, const char *shown, struct doc **ret)
{
	_cleanup_free_ char *text = NULL;
	struct doc *d;
	size_t len = 0;
	int r;

	/* regular files only, opened non-blocking: a FIFO named by extends
	 * must not hang the loader */
	r = read_file_capped(path, PROFILE_MAX_BYTES, true, &text, &len);
	if (r < 0)
		return r;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->file = strdup(shown);
	r = d->file ? doc_anchor(d, path) : -ENOMEM;
	if (r < 0) {
		doc_free(d);
		return r;
	}
	d->text = TAKE_PTR(text);
	d->len = len;
	*ret = d;
	return 0;
}
/* For a profile name that is none: the closest built-in or directory
 * profile's name (at most two edits away), into best; false if none is. */
static bool closest_profile(const struct loader *l, const char *name, char *best, size_t size)
{
	unsigned best_d = 3;

	best[0] = '\0';
	for (const char *const *b = profile_builtin_names(); *b; b++) {
		unsigned d = edit_distance(name, *b, 2);

		if (d < best_d) {
			best_d = d;
			snprintf(best, size, "%s", *b);
		}
	}
	for (size_t i = 0; i < 2; i++) {
		const char *dir = i == 0 ? l->user_dir : l->data_dir;
		struct dirent *de;
		DIR *d;
		size_t seen = 0;

		if (!dir || !dir[0] || !(d = opendir(dir)))
			continue;
		while ((de = readdir(d)) && seen++ < 4096) {
			size_t n = strlen(de->d_name);
			char stem[256];
			unsigned dist;

			if (n <= 5 || n - 5 >= sizeof(stem) || strcmp(de->d_name + n - 5, ".json") != 0)
				continue;
			memcpy(stem, de->d_name, n - 5);
			stem[n - 5] = '\0';
			dist = edit_distance(name, stem, 2);
			if (dist < best_d) {
				best_d = dist;
				snprintf(best, size, "%s", stem);
			}
		}
		closedir(d);
	}
	return best[0] != '\0';
}


int loader_find_doc(struct loader *l, const char *name, const struct doc *from, const struct where *from_where,
		    struct doc **ret)
{
	_cleanup_free_ char *joined = NULL, *ident = NULL;
	const char *text;
	size_t len;
	int r;

	if (profile_name_is_pack(name))
		return pack_doc(l, name, from, from_where, ret);
	if (name_is_path(name)) {
		const char *path = name;

		if (from && !from->dir)
			return loader_fail(l, -EINVAL, from_where, "a built-in profile can only extend built-in profiles");
		if (name[0] != '/' && from && strcmp(from->dir, ".") != 0) {
			joined = path_join(from->dir, name);
			if (!joined)
				return -ENOMEM;
			path = joined;
		}
		if (strlen(path) >= PATH_MAX)
			return from ? loader_fail(l, -ENAMETOOLONG, from_where, "profile path is longer than %d bytes",
						  PATH_MAX - 1)
				    : loader_fail_file(l, -ENAMETOOLONG, "(profile)", 0, 0,
						       "profile path is longer than %d bytes", PATH_MAX - 1);
		r = doc_read_file(path, path, ret);
		if (r == -EFBIG)
			return loader_fail_file(l, r, path, 0, 0, "profile is larger than the 1 MiB limit");
		if (r < 0)
			return from ? loader_fail(l, r, from_where, "cannot read \"%.200s\": %s", path, errno_text(r))
				    : loader_fail_file(l, r, path, 0, 0, "cannot read profile: %s", errno_text(r));
		return 0;
	}

	if (!name[0] || strlen(name) > 255)
		return from ? loader_fail(l, -EINVAL, from_where, "\"%.100s\" is not a profile name", name)
			    : loader_fail_file(l, -EINVAL, "(profile)", 0, 0, "\"%.100s\" is not a profile name", name);
	for (size_t i = 0; i < 2; i++) {
		const char *dir = i == 0 ? l->user_dir : l->data_dir;
		_cleanup_free_ char *file = NULL;
		char fname[300];

		if (!dir || !dir[0])
			continue;
		snprintf(fname, sizeof(fname), "%s.json", name);
		file = path_join(dir, fname);
		if (!file)
			return -ENOMEM;
		r = doc_read_file(file, file, ret);
		if (r == 0)
			return 0;
		if (r == -EFBIG)
			return loader_fail_file(l, r, file, 0, 0, "profile is larger than the 1 MiB limit");
		if (r != -ENOENT && r != -ENOTDIR)
			return from ? loader_fail(l, r, from_where, "cannot read \"%.200s\": %s", file, errno_text(r))
				    : loader_fail_file(l, r, file, 0, 0, "cannot read profile: %s", errno_text(r));
	}
	text = builtin_text(name, &len);
	if (!text) {
		char best[256];

		if (closest_profile(l, name, best, sizeof(best)))
			return from ? loader_fail(l, -ENOENT, from_where,
						  "no profile named \"%.100s\", did you mean \"%s\"?", name, best)
				    : loader_fail_file(l, -ENOENT, name, 0, 0,
						       "no profile by that name, did you mean \"%s\"?", best);
		return from ? loader_fail(l, -ENOENT, from_where,
					  "no profile named \"%.100s\" (not in the user or installed profile "
					  "directories, not built in)",
					  name)
			    : loader_fail_file(l, -ENOENT, name, 0, 0,
					       "no profile by that name (not in the user or installed profile "
					       "directories, not built in)");
	}
	if (asprintf(&ident, "builtin:%s", name) < 0)
		return -ENOMEM;
	/* no dir: a built-in profile extends built-in profiles only */
	r = doc_new(text, len, ident, ret);
	if (r < 0)
		return r;
	(*ret)->identity = TAKE_PTR(ident);
	return 0;
}

/* ---- the environment ------------------------------------------------------ */

static int dup_or_env(const char *given, const char *var, char **ret)
{
	const char *v = given ? given : var ? secure_getenv(var) : NULL;

	*ret = NULL;
	if (!v || !v[0])
		return 0;
	*ret = strdup(v);
	return *ret ? 0 : -ENOMEM;
}

int loader_init(struct loader *l, const struct profile_env *env, struct cordon_error *reterr)
{
	static const struct profile_env none = {};
	int r;

	if (!env)
		env = &none;
	*l = (struct loader){ .reterr = reterr, .find = loader_find_doc, .inspect = env->inspect };
	if ((r = dup_or_env(env->home, "HOME", &l->home)) < 0 ||
	    (r = dup_or_env(env->tmpdir, "TMPDIR", &l->tmpdir)) < 0 ||
	    (r = dup_or_env(env->xdg_config_home, "XDG_CONFIG_HOME", &l->xdg)) < 0 ||
	    (r = dup_or_env(env->workspace, NULL, &l->workspace_given)) < 0)
		return r;
	if (l->home && l->home[0] != '/')
		l->home = (free(l->home), NULL);
	if (!l->tmpdir || l->tmpdir[0] != '/') {
		free(l->tmpdir);
		l->tmpdir = strdup("/tmp");
		if (!l->tmpdir)
			return -ENOMEM;
	}
	if ((!l->xdg || l->xdg[0] != '/')) {
		free(l->xdg);
		l->xdg = l->home ? path_join(l->home, ".config") : NULL;
		if (l->home && !l->xdg)
			return -ENOMEM;
	}
	if (env->user_profile_dir)
		l->user_dir = strdup(env->user_profile_dir);
	else if (l->xdg)
		l->user_dir = path_join(l->xdg, "cordon/profiles");
	l->data_dir = strdup(env->data_profile_dir ? env->data_profile_dir : CORDON_DATADIR "/profiles");
	l->system_gitconfig = strdup(env->system_gitconfig ? env->system_gitconfig : "/etc/gitconfig");
	if ((!l->user_dir && (env->user_profile_dir || l->xdg)) || !l->data_dir || !l->system_gitconfig)
		return -ENOMEM;
	return 0;
}
