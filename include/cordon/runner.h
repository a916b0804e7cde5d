/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The runner's entry points (`cordon exec`, src/exec): for a program linked
 * with the runner (the cordon binary, the tests), which may run it
 * in-process (cordon_run_opts.runner_main). They live in the runner's own
 * static library, not in libcordon.so, so cordon.h does not include this
 * part and it is not installed; a program that links only libcordon execs
 * the runner binary (cordon_runner_path) instead.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* `cordon exec ...` (argv[0] is "exec"): parse, plan, apply, execve. Returns
 * only on failure, with the process exit code. This is the runner entered
 * in-process (cordon_run_opts.runner_main) in a program that may not be
 * cordon: what it starts of cordon's own (the proxy, --net proxy) comes from
 * cordon_runner_path(), the runner binary the caller's argv named. */
int cordon_exec_main(int argc, char **argv);
/* The same, for cordon_run_opts.runner_main only: always called in the child
 * of a fork, which has one thread whatever its parent had, so the check that
 * cordon_exec_main makes (a count of /proc/self/task) is not made. Never
 * call it in a process that may have other threads. */
int cordon_exec_forked_main(int argc, char **argv);
/* The same, from the cordon binary's own main: this program is cordon, and
 * the proxy is started from it (/proc/self/exe: the very build that runs). */
int cordon_exec_binary_main(int argc, char **argv);

/* Print, in words, the plan that exec_argv (["exec", flags..., "--", argv...])
 * would apply. 0 or -errno. */
int cordon_explain_plan(const char *const *exec_argv, FILE *out);

/* `cordon exec --help`: the runner's flags, one "  --FLAG" line each (the
 * shell completions are generated from it). */
extern const char cordon_exec_usage[];

#ifdef __cplusplus
}
#endif
