/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one table of the runner's steps: a kind, where it runs, its name,
 * its words and its apply function. plan.c decides the order; the
 * dispatchers (init_main, mount_apply, command_main) walk the plan and
 * call each step's entry here.
 */
#include "broker.h"
#include "netproxy.h"
#include "steps.h"
#include "trust.h"

#define STEP(k, st, n, d, a) [k] = { .kind = k, .stage = st, .name = n, .describe = d, .apply = a }

static const struct step_ops steps[_STEP_MAX] = {
	STEP(STEP_NAMESPACES, STAGE_RUNNER, "namespaces", describe_namespaces, NULL),
	STEP(STEP_MAP_IDS, STAGE_INIT, "id map", describe_map_ids, init_map_ids),
	STEP(STEP_RO_ROOT, STAGE_MOUNT, "read-only root", describe_ro_root, mount_ro_root),
	STEP(STEP_DEV, STAGE_MOUNT, "dev", describe_dev, mount_dev),
	STEP(STEP_TMPFS, STAGE_MOUNT, "tmpfs", describe_tmpfs, mount_tmpfs),
	STEP(STEP_BIND_BACK, STAGE_MOUNT, "bind back", describe_bind_back, mount_bind_back),
	STEP(STEP_PIN, STAGE_MOUNT, "pin", describe_pin, mount_pin),
	STEP(STEP_PROTECT, STAGE_MOUNT, "protect", describe_protect, mount_protect),
	STEP(STEP_HIDE, STAGE_MOUNT, "hide", describe_hide, mount_hide),
	STEP(STEP_PROC, STAGE_MOUNT, "proc", describe_proc, mount_proc),
	STEP(STEP_TRUST, STAGE_MOUNT, "trust", describe_trust, trust_mount),
	STEP(STEP_LOOPBACK, STAGE_INIT, "loopback", describe_loopback, init_loopback),
	STEP(STEP_PROXY, STAGE_INIT, "proxy", describe_proxy, netproxy_listen),
	STEP(STEP_BROKER, STAGE_INIT, "broker", describe_broker, broker_listen),
	STEP(STEP_CHDIR, STAGE_INIT, "chdir", describe_chdir, init_chdir),
	STEP(STEP_INIT, STAGE_INIT, "init", describe_init, init_fork_command),
	STEP(STEP_SETSID, STAGE_COMMAND, "setsid", describe_setsid, harden_setsid),
	STEP(STEP_PDEATHSIG, STAGE_COMMAND, "pdeathsig", describe_pdeathsig, harden_pdeathsig),
	STEP(STEP_RLIMIT_CORE, STAGE_COMMAND, "rlimit", describe_rlimit_core, harden_rlimit_core),
	STEP(STEP_CLOSE_FDS, STAGE_COMMAND, "close fds", describe_close_fds, harden_close_fds),
	STEP(STEP_ENV, STAGE_COMMAND, "environment", describe_env, harden_env),
	STEP(STEP_DROP_CAPS, STAGE_COMMAND, "capabilities", describe_drop_caps, harden_drop_caps),
	STEP(STEP_NO_NEW_PRIVS, STAGE_COMMAND, "no_new_privs", describe_no_new_privs, harden_no_new_privs),
	STEP(STEP_LANDLOCK, STAGE_COMMAND, "landlock", describe_landlock, harden_landlock),
	STEP(STEP_SECCOMP, STAGE_COMMAND, "seccomp", describe_seccomp, harden_seccomp),
	STEP(STEP_EXEC, STAGE_COMMAND, "execve", describe_exec, harden_exec),
};

const struct step_ops *step_ops(enum step_kind k)
{
	return (unsigned)k < _STEP_MAX ? &steps[k] : NULL;
}

const char *step_name(enum step_kind k)
{
	const struct step_ops *o = step_ops(k);

	return o && o->name ? o->name : "?";
}

/* Which process: the mounts are init's too. */
enum step_phase step_phase(enum step_kind k)
{
	const struct step_ops *o = step_ops(k);

	if (!o || o->stage == STAGE_COMMAND)
		return PHASE_COMMAND;
	return o->stage == STAGE_RUNNER ? PHASE_RUNNER : PHASE_INIT;
}
