/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdio.h>

/* `cordon exec ...` (argv[0] is "exec"): parse, plan, apply, execve. Returns
 * only on failure, with the process exit code. */
int cordon_exec_main(int argc, char **argv);

/* Print, in words, the plan that exec_argv (["exec", flags..., "--", argv...])
 * would apply. 0 or -errno. */
int cordon_explain_plan(const char *const *exec_argv, FILE *out);
