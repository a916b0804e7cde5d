/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The native runner's flags carried in a sealed memfd instead of its argv
 * (runner_plan.c writes it, src/exec/plan_fd.c reads it). The memfd holds
 * the flag words, each ended by a NUL, and is sealed against every change
 * (F_SEAL_WRITE|F_SEAL_GROW|F_SEAL_SHRINK|F_SEAL_SEAL; non-executable where
 * the kernel has MFD_NOEXEC_SEAL).
 */

/* where the runner takes its plan: above the status, exec, broker and
 * credentials fds (provider.h) */
#define RUNNER_PLAN_FD 7
#define RUNNER_PLAN_FD_STR "7"
/* where the in-process runner's init says the sandbox has ended
 * (--end-fd; spawn_opts.end_fd): above the plan's */
#define RUNNER_END_FD 8
#define RUNNER_END_FD_STR "8"
/* the largest plan the runner reads */
#define RUNNER_PLAN_MAX (4u << 20)

/* From argv ([RUNNER, "exec", FLAG..., "--", COMMAND...], only read): a
 * new *ret_argv [RUNNER, "exec", "--status-fd", N, "--plan-fd",
 * RUNNER_PLAN_FD_STR, "--", COMMAND...] and *ret_fd the sealed memfd (close
 * on exec; the caller puts it at RUNNER_PLAN_FD in the child and closes
 * it after the start). -errno, nothing written: memfd_create refused (a
 * seccomp filter), no flags, or none of memory. */
int runner_plan_pack(const char *const *argv, char ***ret_argv, int *ret_fd);
