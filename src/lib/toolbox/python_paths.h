/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

/*
 * Where a Python interpreter finds the code it imports, as far as the
 * files say it without running it (python_paths.c): the stdlib and site
 * directories below its prefix, and the directories the .pth files there
 * add. A session start checks them like the execute closure: code there
 * runs with a tool's grants though nothing is mapped executable.
 */

#define PTH_FILE_MAX (64 * 1024)   /* bytes of one .pth file read */
#define PTH_FILES_MAX 256          /* .pth files read per site directory */
#define PTH_LINES_MAX 1024         /* directories taken from one .pth file */

/* The name of a Python interpreter binary: "python" and a version of
 * digits and dots ("python3", "python3.11"); 0 when name is one, -ENOENT
 * when not. */
int python_interpreter_name(const char *name);

/* The directories (and zip files) of path-like lines in a .pth file's
 * bytes buf[0..len) (at most PTH_FILE_MAX): not empty, not a comment, not
 * an "import" line (which site.py runs, and which the site directory's
 * own check covers); a relative one joined to site_dir. Appended to *v (a
 * strv); 0 or -errno (-EFBIG over the caps). */
int python_pth_paths(const char *buf, size_t len, const char *site_dir, char ***v);

/* The places the interpreter at canonical path exe imports from: below
 * its prefix (the directory above its bin/), lib, lib64 and local/lib's
 * python* entries; then the paths every .pth file in their site-packages
 * and dist-packages adds. A strv in *ret; 0 or -errno. */
int python_module_places(const char *exe, char ***ret);
