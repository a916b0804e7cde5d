/* SPDX-License-Identifier: LGPL-2.1-or-later *
 * The API is split by topic; this header includes every part:
 *   cordon/common.h    CORDON_API, struct cordon_error, exit codes, enums
 *   cordon/policy.h    the policy and the tool sandbox's mechanisms
 *   cordon/confine.h   backends and the confined value
 *   cordon/classify.h  a run's outcome
 *   cordon/limits.h    resource limits, sizes and durations
 *   cordon/profile.h   profiles
 *   cordon/why.h       why a profile allows or denies a path or a host
 *   cordon/netrules.h  the --net proxy rules and the proxy's decision
 *   cordon/tools.h     a profile's command_policies
 *   cordon/run.h       cordon_run and its options and result
 *   cordon/launch.h    launches and a session's toolbox
 *   cordon/spawn.h     confined children from a caller's poll loop
 *   cordon/session.h   warm launches: one sandbox instance, many commands
 */
/*
 * libcordon — confine the subprocesses that AI-agent tools spawn.
 *
 * The shape: build a policy once (this is where the filesystem is read),
 * confine argv under it (pure: no syscalls that touch files or processes),
 * spawn the confined argv (cordon_run does it for you), then classify what
 * came back as ok, denied or runner-failed.
 *
 * A front end (the CLI, the supervisor) usually starts one level up: load a
 * profile (cordon_profile_load), build a launch from it and its own
 * overrides (cordon_launch_new: policy, backend, limits, run options, all
 * checked once), then cordon_spawn as many commands through it as it likes,
 * driving them from its own poll loop, or cordon_wait for one.
 *
 * Threads: any function may be called from any thread, as long as one
 * object is not changed by one thread while another uses it (a policy's
 * setters) and nobody calls setenv meanwhile (cordon_policy_new reads the
 * environment). The process-wide state (the pinned backend, the runner
 * path, the memoised probe and temp roots, the cgroup layout) is locked or
 * set once; profiles and launches are immutable once built, so many
 * threads may spawn through one. Only cordon_run_opts.runner_main needs a
 * single-threaded caller (cordon_run execs the runner otherwise).
 *
 * Errors: every fallible function returns int, >= 0 on success and -errno on
 * failure. Out-parameters come last and are written only on success. Where a
 * function takes a struct cordon_error *reterr, it may be NULL; when it is not,
 * it receives a human-readable message on failure.
 *
 * Error codes at this boundary:
 *   -EINVAL   bad argument or bad value (message in reterr)
 *   -ENOMEM   allocation failed
 *   -ELOOP    too many symlinks while canonicalising a path
 *   -ENAMETOOLONG a path or argument exceeds a cap
 *   -ENOSYS   no backend can enforce the policy (SANDBOX_UNAVAILABLE)
 *   -ETIMEDOUT  a probe or run exceeded its time
 *   other -errno values come straight from the failing system call.
 *
 * The API is split by topic; this header includes every part:
 *   cordon/common.h    CORDON_API, struct cordon_error, exit codes, enums
 *   cordon/policy.h    the policy and the tool sandbox's mechanisms
 *   cordon/confine.h   backends and the confined value
 *   cordon/classify.h  a run's outcome
 *   cordon/limits.h    resource limits, sizes and durations
 *   cordon/profile.h   profiles
 *   cordon/why.h       why a profile allows or denies a path or a host
 *   cordon/netrules.h  the --net proxy rules and the proxy's decision
 *   cordon/tools.h     a profile's command_policies
 *   cordon/run.h       cordon_run and its options and result
 *   cordon/launch.h    launches and a session's toolbox
 *   cordon/spawn.h     confined children from a caller's poll loop
 *   cordon/session.h   warm launches: one sandbox instance, many commands
 */
#pragma once

#include "cordon/common.h"
#include "cordon/policy.h"
#include "cordon/confine.h"
#include "cordon/classify.h"
#include "cordon/limits.h"
#include "cordon/profile.h"
#include "cordon/why.h"
#include "cordon/netrules.h"
#include "cordon/tools.h"
#include "cordon/run.h"
#include "cordon/launch.h"
#include "cordon/spawn.h"
#include "cordon/session.h"
