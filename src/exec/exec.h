/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdio.h>

/* `cordon exec ...` (argv[0] is "exec"): parse, plan, apply, execve. Returns
 * only on failure, with the process exit code. This is the runner entered
 * in-process (cordon_run_opts.runner_main) in a program that may not be
 * cordon: what it starts of cordon's own (the proxy, --net proxy) comes from
 * cordon_runner_path(), the runner binary the caller's argv named. */
int cordon_exec_main(int argc, char **argv);
/* The same, from the cordon binary's own main: this program is cordon, and
 * the proxy is started from it (/proc/self/exe: the very build that runs). */
int cordon_exec_binary_main(int argc, char **argv);

/* Print, in words, the plan that exec_argv (["exec", flags..., "--", argv...])
 * would apply. 0 or -errno. */
int cordon_explain_plan(const char *const *exec_argv, FILE *out);

/* `cordon exec --help`: the runner's flags, one "  --FLAG" line each (the
 * shell completions are generated from it). */
extern const char exec_usage[];
