/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "cordon/cordon.h"

/*
 * What any sandbox of a session can write, and the refusal of a session
 * whose executable places lie in it (toolbox_writable.c): a file a sandbox
 * could write must never become what a tool maps executable.
 */

/* The session's writable roots and every tool sandbox's write grants
 * (fs_write, fs_write_file, on every edge), canonical where they exist (a
 * missing tail kept as written), de-duplicated. */
int toolbox_all_writable(const struct cordon_tools *t, const char *const *session_writable, char ***ret);

/* -EPERM, naming the path, when path (an executable place: a closure
 * file, an exec grant, the shim, a module directory) lies in one of
 * writable, or one of writable lies in it; what names it for the message
 * ("git's execute closure"). */
int toolbox_check_unwritable(char *const *writable, const char *what, const char *path, struct cordon_error *reterr);

/* -EPERM when a writable root lies in a library directory
 * (policy_library_dirs), which every tool maps executable. */
int toolbox_check_library_dirs(char *const *writable, struct cordon_error *reterr);

/* The places a tool's interpreters load code from without mapping it
 * executable, checked as above: for a Python interpreter in closure, its stdlib and site
 * directories and what their .pth files add (python_paths.h); for node
 * running the script exe, node_modules in every directory above it. */
int toolbox_check_module_places(char *const *writable, const char *what, const char *exe, char *const *closure,
				struct cordon_error *reterr);
