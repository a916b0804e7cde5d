/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The dynamic loader's rules (exec_closure_ld.c), for the closure's walk. */

#include "exec_closure_memo.h"

/* Add to rec the dynamic loader's closure of exe (an ELF object reached at
 * canonical path exe_path): PT_INTERP, ld.so.cache, the DT_NEEDED closure. */
int closure_elf_image(struct exec_closure *c, struct record *rec, struct object *exe, const char *exe_path,
		      struct cordon_error *reterr);

/* The system directories glibc's loader searches for ELF objects of this
 * class and machine, NULL-terminated; NULL when cordon does not know them. */
const char *const *closure_system_dirs(unsigned char elf_class, unsigned machine);
