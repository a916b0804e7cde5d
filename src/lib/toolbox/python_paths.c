/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where a Python interpreter imports from, read from the files (never by
 * running it: a .pth line starting with "import" is code, and the session
 * start must not run what a sandbox may have planted). What site.py does:
 * the prefix's lib/pythonX.Y (the stdlib, lib-dynload, site-packages;
 * Debian's lib/python3/dist-packages and local/lib/pythonX.Y/dist-packages),
 * then each *.pth in a site directory, whose lines name more directories.
 * The script's own directory and the working directory (`python -m`, `-c`)
 * are the tool's environment's business (PYTHONSAFEPATH).
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "fileio.h"
#include "path.h"
#include "python_paths.h"
#include "strv.h"

#define PYTHON_ENTRIES_MAX 64 /* python* entries of one lib directory */

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir)

int python_interpreter_name(const char *name)
{
	if (strncmp(name, "python", 6) != 0)
		return -ENOENT;
	for (const char *c = name + 6; *c; c++)
		if (!((*c >= '0' && *c <= '9') || *c == '.'))
			return -ENOENT;
	return 0;
}

int python_pth_paths(const char *buf, size_t len, const char *site_dir, char ***v)
{
	size_t n_lines = 0;
	const char *end = buf + len;
	int r;

	if (len > PTH_FILE_MAX)
		return -EFBIG;
	for (const char *l = buf; l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		size_t n = (size_t)((nl ? nl : end) - l);
		_cleanup_free_ char *line = NULL, *full = NULL;

		/* site.py strips trailing whitespace (and a \r) */
		while (n && (l[n - 1] == '\r' || l[n - 1] == ' ' || l[n - 1] == '\t'))
			n--;
		if (n && l[0] != '#' && !(n >= 6 && strncmp(l, "import", 6) == 0 && (n == 6 || l[6] == ' ' || l[6] == '\t')) &&
		    !memchr(l, '\0', n)) {
			if (++n_lines > PTH_LINES_MAX)
				return -EFBIG;
			line = strndup(l, n);
			if (!line)
				return -ENOMEM;
			full = line[0] == '/' ? TAKE_PTR(line) : path_join(site_dir, line);
			if (!full)
				return -ENOMEM;
			r = strv_push_unique(v, full);
			if (r < 0)
				return r;
		}
		l = nl ? nl + 1 : end;
	}
	return 0;
}

/* Each *.pth of site_dir, its paths appended to *v. */
static int read_site_dir(const char *site_dir, char ***v)
{
	_cleanup_(closedirp) DIR *d = opendir(site_dir);
	size_t n = 0;
	struct dirent *e;
	int r;

	if (!d)
		return 0; /* absent: nothing imported from it */
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		_cleanup_free_ char *path = NULL, *buf = NULL;
		size_t len;

		if (l < 5 || strcmp(e->d_name + l - 4, ".pth") != 0)
			continue;
		if (++n > PTH_FILES_MAX)
			return -EFBIG;
		path = path_join(site_dir, e->d_name);
		if (!path)
			return -ENOMEM;
		r = read_file_capped(path, PTH_FILE_MAX, true, &buf, &len);
		if (r == -ENOENT || r == -EISDIR || r == -EACCES)
			continue; /* gone, or not one site.py reads either */
		if (r < 0)
			return r;
		r = python_pth_paths(buf, len, site_dir, v);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The python* entries of libdir (pythonX.Y, python3, pythonXY.zip). */
static int python_entries(const char *libdir, char ***v, char ***sites)
{
	_cleanup_(closedirp) DIR *d = opendir(libdir);
	size_t n = 0;
	struct dirent *e;
	int r;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		_cleanup_free_ char *place = NULL;

		if (strncmp(e->d_name, "python", 6) != 0)
			continue;
		if (++n > PYTHON_ENTRIES_MAX)
			return -EFBIG;
		place = path_join(libdir, e->d_name);
		if (!place)
			return -ENOMEM;
		for (size_t i = 0; i < 2; i++) {
			_cleanup_free_ char *site = path_join(place, i ? "dist-packages" : "site-packages");

			if (!site || (r = strv_push_unique(sites, site)) < 0)
				return site ? r : -ENOMEM;
		}
		r = strv_push_unique(v, place);
		if (r < 0)
			return r;
	}
	return 0;
}

int python_module_places(const char *exe, char ***ret)
{
	static const char *const libs[] = { "lib", "lib64", "local/lib" };
	_cleanup_strv_free_ char **v = calloc(1, sizeof(char *)), **sites = calloc(1, sizeof(char *));
	_cleanup_free_ char *bin = path_dirname(exe), *prefix = bin ? path_dirname(bin) : NULL;
	int r;

	if (!v || !sites || !prefix)
		return -ENOMEM;
	for (size_t i = 0; i < ELEMENTSOF(libs); i++) {
		_cleanup_free_ char *libdir = path_join(prefix, libs[i]);

		if (!libdir)
			return -ENOMEM;
		r = python_entries(libdir, &v, &sites);
		if (r < 0)
			return r;
	}
	STRV_FOREACH(s, sites)
		if ((r = read_site_dir(*s, &v)) < 0)
			return r;
	*ret = TAKE_PTR(v);
	return 0;
}
