/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

#include "cordon/cordon.h"
#include "exec_closure_limits.h"

/*
 * The execute-closure of a binary: every file the kernel and the dynamic
 * loader open to run it, for an execute-only gate (Landlock EXECUTE on
 * exactly these files). For an absolute path P:
 *
 *   - P, canonical (symlinks resolved);
 *   - an ELF file: its PT_INTERP, and its DT_NEEDED closure resolved as
 *     glibc's ld.so does (DT_RPATH of the object and its loaders when it has
 *     no DT_RUNPATH, its DT_RUNPATH, /etc/ld.so.cache, the system
 *     directories; $ORIGIN, $LIB and $PLATFORM expanded; a name with a '/'
 *     is a path), plus /etc/ld.so.cache itself. LD_LIBRARY_PATH and
 *     LD_PRELOAD play no part: the sandbox removes them;
 *   - a script: its "#!" interpreter and that one's closure, as deep as the
 *     kernel follows interpreters (EXEC_CLOSURE_MAX_INTERP_DEPTH; deeper is
 *     -ELOOP); for "#!/usr/bin/env NAME" (and env -S) also NAME as env
 *     finds it on the search path the caller gives;
 *   - any other file: itself.
 *
 * A library or interpreter that cannot be found is listed as missing, not
 * an error (the tool then fails to start, and the caller can say why). A
 * malformed ELF file anywhere in the closure is -ENOEXEC with the reason.
 *
 * One closure object serves a whole session: canonical directories, path
 * resolutions, library lookups, ld.so.cache and parsed objects (by st_dev,
 * st_ino) are memoised, so each distinct file is opened and parsed once
 * however many binaries are added. Not thread-safe. Never prints.
 */

struct exec_closure;

int exec_closure_new(struct exec_closure **ret);
struct exec_closure *exec_closure_free(struct exec_closure *c);

/* Add path (absolute) and everything executing it needs. search_path is
 * where "#!/usr/bin/env NAME" finds NAME (NULL: EXEC_CLOSURE_DEFAULT_PATH).
 * -ENOENT when path does not exist, -EACCES when it is not a regular file,
 * -ENOEXEC for malformed ELF or "#!" lines, -ELOOP past the interpreter
 * depth, -E2BIG past EXEC_CLOSURE_MAX_FILES; the reason in reterr. */
int exec_closure_add(struct exec_closure *c, const char *path, const char *search_path,
		     struct cordon_error *reterr);
/* The files of everything added so far: canonical, no repeats, in the order
 * found, NULL-terminated, owned by c (valid until the next add or free). */
const char *const *exec_closure_files(const struct exec_closure *c);
/* What could not be found, one line each ("NAME (needed by PATH)"), over
 * all adds; owned by c as above. */
const char *const *exec_closure_missing(const struct exec_closure *c);
/* Add path as exec_closure_add does, and return the closure of path alone
 * (a copy: cordon_strv_free it). */
int exec_closure_of(struct exec_closure *c, const char *path, const char *search_path, char ***ret_files,
		    struct cordon_error *reterr);
void exec_closure_stats(const struct exec_closure *c, struct exec_closure_stats *ret);
