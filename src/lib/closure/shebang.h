/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

#include "cordon/cordon.h"

/* What the kernel reads of a script: BINPRM_BUF_SIZE bytes. */
#define SHEBANG_MAX 256

/* Parse the "#!" line at the start of buf (the file's first len bytes;
 * only SHEBANG_MAX are looked at) as the kernel's binfmt_script does: the
 * interpreter, then one optional argument (the rest of the line, trimmed).
 * 1 with *ret_interp and *ret_arg (NULL when there is none) set; 0 when
 * buf does not start with "#!"; -ENOEXEC with the reason when the kernel
 * would refuse the line (no interpreter, or one cut off by the limit). */
int shebang_parse(const char *buf, size_t len, char **ret_interp, char **ret_arg, struct cordon_error *reterr);

/* The program `env ARG` runs, for a "#!/usr/bin/env ARG" line: ARG itself
 * (the kernel passes the whole rest of the line as one argument), or with
 * -S / --split-string the first word after any NAME=VALUE assignments and
 * the options -i, -u NAME, -C DIR, --. Anything env would interpret beyond
 * that (quotes, escapes, variables, other options) is refused with
 * -ENOEXEC and the reason rather than guessed. */
int shebang_env_program(const char *arg, char **ret_name, struct cordon_error *reterr);
