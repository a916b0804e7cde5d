/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The runner's steps, one table (steps.c): for each kind, where it runs,
 * its name (the one failures are reported under), how `cordon explain`
 * says it, and what applies it. Adding a step is one entry there, its
 * describe and its apply function (in the file that owns the job), and
 * where plan.c puts it in the order.
 */

#include <stddef.h>
#include <stdio.h>

#include "plan.h"

struct exec_ctx;

/* Where a step is applied, finer than step_phase(): the order of these is
 * the order of a run. The runner does not loop over its steps (its one
 * step is the clone, exec.c); each other phase has one dispatcher. */
enum step_stage {
	STAGE_RUNNER,   /* the `cordon exec` process: the clone (exec.c) */
	STAGE_INIT,     /* pid 1, in plan order (init_main) */
	STAGE_MOUNT,    /* pid 1, every mount in one go after the id map (mount_apply) */
	STAGE_COMMAND,  /* the process that execs the command (command_main) */
};

struct step_ops {
	enum step_kind kind;
	enum step_stage stage;
	const char *name;
	/* One or more lines of `cordon explain`, after its number; uid and
	 * gid are the ids the map would use. */
	void (*describe)(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
	/* Apply p->steps[i] (its kind is this entry's); dies on failure
	 * (exec_die). NULL for the runner's clone, which exec.c makes. */
	void (*apply)(struct exec_ctx *x, size_t i);
};

/* The entry of kind k; NULL for a kind out of range. */
const struct step_ops *step_ops(enum step_kind k);

/* plan_describe.c: each step in words */
void describe_namespaces(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
void describe_map_ids(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
void describe_ro_root(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
void describe_dev(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
void describe_tmpfs(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
void describe_bind_back(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
void describe_pin(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
void describe_protect(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
void describe_hide(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
void describe_proc(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
void describe_loopback(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
void describe_trust(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
void describe_proxy(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
void describe_broker(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
void describe_chdir(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
void describe_init(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
void describe_setsid(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
void describe_pdeathsig(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
void describe_rlimit_core(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
void describe_close_fds(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
void describe_env(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
void describe_drop_caps(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
void describe_no_new_privs(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
void describe_landlock(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
void describe_seccomp(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);
void describe_exec(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out);

/* init.c: pid 1's own steps */
void init_map_ids(struct exec_ctx *x, size_t i);
void init_loopback(struct exec_ctx *x, size_t i);
void init_chdir(struct exec_ctx *x, size_t i);
void init_fork_command(struct exec_ctx *x, size_t i);
/* and netproxy_listen (netproxy.h), broker_listen (broker.h) */

/* mount.c: the mount steps (mount_apply holds what they share) */
void mount_ro_root(struct exec_ctx *x, size_t i);
void mount_dev(struct exec_ctx *x, size_t i);
void mount_tmpfs(struct exec_ctx *x, size_t i);
void mount_bind_back(struct exec_ctx *x, size_t i);
void mount_pin(struct exec_ctx *x, size_t i);
void mount_protect(struct exec_ctx *x, size_t i);
void mount_hide(struct exec_ctx *x, size_t i);
void mount_proc(struct exec_ctx *x, size_t i);

/* harden.c: the command's own steps */
void harden_setsid(struct exec_ctx *x, size_t i);
void harden_pdeathsig(struct exec_ctx *x, size_t i);
void harden_rlimit_core(struct exec_ctx *x, size_t i);
void harden_close_fds(struct exec_ctx *x, size_t i);
void harden_env(struct exec_ctx *x, size_t i);
void harden_drop_caps(struct exec_ctx *x, size_t i);
void harden_no_new_privs(struct exec_ctx *x, size_t i);
void harden_landlock(struct exec_ctx *x, size_t i);
void harden_seccomp(struct exec_ctx *x, size_t i);
_Noreturn void harden_exec(struct exec_ctx *x, size_t i);
