/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Flags -> plan: the order and content of what the runner will apply. Pure. */
#include <criterion/criterion.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "landlock.h"
#include "plan.h"
#include "policy.h"
#include "steps.h"

static char err[512];

#define COMPILE(p, f, ...)                                                       \
	({                                                                       \
		static char *const _v[] = { "exec", __VA_ARGS__, NULL };         \
		int _r = exec_parse((int)(sizeof(_v) / sizeof(_v[0])) - 1, _v, (f), err, sizeof(err)); \
		cr_assert_eq(_r, 0, "parse: %s", err);                           \
		plan_compile((f), (p), err, sizeof(err));                        \
	})

/* The plan as "kind path" lines, for exact comparison. */
static char *render(const struct plan *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	for (size_t i = 0; i < p->n_steps; i++) {
		const struct step *s = &p->steps[i];

		if (s->path)
			fprintf(f, "%s %.*s\n", step_name(s->kind), (int)s->len, s->path);
		else
			fprintf(f, "%s\n", step_name(s->kind));
	}
	fclose(f);
	return buf;
}

/* Every full-isolation plan's mounts, before the policy's own. */
#define MOUNTS "read-only root /\ndev /dev\ntmpfs /tmp\ntmpfs /dev/shm\ntmpfs /run\ntmpfs /var/run\n"
static const char command_steps[] = "setsid\npdeathsig\nrlimit\nclose fds\nenvironment\ncapabilities\n"
				    "no_new_privs\nlandlock\nseccomp\nexecve\n";

Test(plan, full_workspace_write_in_order)
{
	struct exec_flags f;
	struct plan p;
	char *got, *want;

	cr_assert_eq(COMPILE(&p, &f, "--net", "none", "--write", "/ws", "--write", "/tmp", "--private-tmp",
			     "--deny-read", "/h/.ssh", "--deny-read", "/h/.netrc", "--protect", "/ws/.git/hooks",
			     "--protect", "/ws/.git/config", "--protect", "/ws/.mcp.json", "--protect",
			     "/ws/.cordon*", "--", "true"),
		     0, "%s", err);
	got = render(&p);
	cr_assert(asprintf(&want,
			   "namespaces\nid map\n"
			   "%s"
			   "protect /ws/.cordon*\n"
			   "pin /ws/.git\n"
			   "protect /ws/.git/config\nprotect /ws/.git/hooks\n"
			   "protect /ws/.mcp.json\n"
			   "hide /h/.ssh\nhide /h/.netrc\n"
			   "proc /proc\nloopback\nchdir\ninit\n%s",
			   MOUNTS, command_steps) > 0);
	cr_assert_str_eq(got, want);
	cr_assert_eq(p.clone_flags, (unsigned long)(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET));
	free(got);
	free(want);
	plan_done(&p);
	exec_flags_done(&f);
}

Test(plan, landlock_and_seccomp_inputs)
{
	struct exec_flags f;
	struct plan p;
	const char *const want_writable[] = { "/ws", "/tmp", "/dev/null", "/dev/zero", "/dev/full", "/dev/tty",
					      "/dev/pts", "/dev/ptmx", "/dev/shm", NULL };

	cr_assert_eq(COMPILE(&p, &f, "--write", "/ws", "--write", "/tmp", "--private-tmp", "--deny-read", "/h/.ssh",
			     "--require", "landlock-scope", "--require", "pidns", "--", "true"),
		     0);
	for (size_t i = 0; want_writable[i]; i++)
		cr_assert_str_eq(p.landlock.writable[i], want_writable[i]);
	cr_assert_null(p.landlock.writable[9]);
	cr_assert_str_eq(p.landlock.readable[0], "/");
	/* full isolation hides by mount, and by Landlock omission too: a host
	 * rename or a store created during the run is beyond a mount's reach */
	cr_assert_str_eq(p.landlock.deny_read[0], "/h/.ssh");
	cr_assert(p.landlock.list_walked);
	/* a network namespace of its own: TCP on its own loopback is open */
	cr_assert_not(p.landlock.deny_tcp);
	cr_assert(p.landlock.scope);
	/* Landlock is always required: it is the runner's write fence. */
	cr_assert_eq(p.landlock.required, REQUIRE_LANDLOCK | REQUIRE_LANDLOCK_SCOPE);
	cr_assert_eq(p.required, REQUIRE_LANDLOCK_SCOPE | REQUIRE_PIDNS);
	cr_assert_not(p.seccomp.deny_inet, "the network namespace does that job");
	cr_assert_not(p.seccomp.allow_userns);
	plan_done(&p);
	exec_flags_done(&f);
}

Test(plan, net_host_has_no_network_namespace)
{
	struct exec_flags f;
	struct plan p;
	char *got;

	cr_assert_eq(COMPILE(&p, &f, "--net", "host", "--", "true"), 0);
	cr_assert_eq(p.clone_flags, (unsigned long)(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID));
	got = render(&p);
	cr_assert_null(strstr(got, "loopback"));
	cr_assert_not(p.landlock.deny_tcp);
	free(got);
	plan_done(&p);
	exec_flags_done(&f);
}

/* The abstract-socket scope is what explain claims keeps the host's
 * abstract sockets out where no network namespace does: required there
 * (on a kernel faked down to ABI 5, landlock_prepare refuses before it
 * makes anything), left to degrade where the sandbox's own namespace holds
 * them apart. */
Test(plan, scope_required_without_a_network_namespace)
{
	struct exec_flags f;
	struct plan p;

	struct landlock_report rep;
	char lerr[512] = "";
	int fd = -1;

	cr_assert_eq(COMPILE(&p, &f, "--net", "host", "--", "true"), 0, "%s", err);
	cr_assert(p.landlock.required & REQUIRE_LANDLOCK_SCOPE);
	p.landlock.test_abi_cap = 5;
	cr_assert_eq(landlock_prepare(&p.landlock, &rep, &fd, lerr, sizeof(lerr)), -EOPNOTSUPP);
	cr_assert_eq(fd, -1);
	if (landlock_get_abi() >= 5)
		cr_assert(strstr(lerr, "landlock-scope is required"), "%s", lerr);
	plan_done(&p);
	exec_flags_done(&f);
	cr_assert_eq(COMPILE(&p, &f, "--isolation", "light", "--", "true"), 0, "%s", err);
	cr_assert(p.landlock.required & REQUIRE_LANDLOCK_SCOPE);
	plan_done(&p);
	exec_flags_done(&f);
	cr_assert_eq(COMPILE(&p, &f, "--net", "none", "--", "true"), 0, "%s", err);
	cr_assert_not(p.landlock.required & REQUIRE_LANDLOCK_SCOPE);
	/* control: the same faked ABI runs where the namespace holds */
	p.landlock.test_abi_cap = 5;
	if (landlock_get_abi() >= 1) {
		cr_assert_eq(landlock_prepare(&p.landlock, &rep, &fd, lerr, sizeof(lerr)), 0, "%s", lerr);
		cr_assert_not(rep.scope);
		if (fd >= 0)
			close(fd);
	}
	plan_done(&p);
	exec_flags_done(&f);
}

/* The unix gate under --net host: on where the execute-only gate or
 * deny-exec relies on it (a host service would execute for the sandbox),
 * off otherwise (the host's network and its sockets are shared). */
Test(plan, unix_gate_under_net_host_with_exec_gate)
{
	struct exec_flags f;
	struct plan p;

	cr_assert_eq(COMPILE(&p, &f, "--net", "host", "--exec-gate", "--exec", "/usr", "--", "true"), 0, "%s", err);
	cr_assert(p.unix_gate);
	plan_done(&p);
	exec_flags_done(&f);
	cr_assert_eq(COMPILE(&p, &f, "--net", "host", "--deny-exec", "/usr/bin/git", "--", "true"), 0, "%s", err);
	cr_assert(p.unix_gate);
	plan_done(&p);
	exec_flags_done(&f);
	cr_assert_eq(COMPILE(&p, &f, "--net", "host", "--", "true"), 0, "%s", err);
	cr_assert_not(p.unix_gate);
	plan_done(&p);
	exec_flags_done(&f);
}

Test(plan, read_only_has_a_private_tmp_and_no_writable_root)
{
	struct exec_flags f;
	struct plan p;
	char *got;

	cr_assert_eq(COMPILE(&p, &f, "--", "true"), 0);
	got = render(&p);
	/* read-only still gets a private /tmp and /run: the host's hold
	 * other programs' sockets */
	cr_assert_str_eq(got, "namespaces\nid map\n" MOUNTS "proc /proc\nloopback\nchdir\ninit\n"
			      "setsid\npdeathsig\nrlimit\nclose fds\nenvironment\ncapabilities\n"
			      "no_new_privs\nlandlock\nseccomp\nexecve\n");
	cr_assert_str_eq(p.landlock.writable[0], "/dev/null");
	free(got);
	plan_done(&p);
	exec_flags_done(&f);
}

Test(plan, workspace_below_tmp_is_bound_back_and_not_pinned)
{
	struct exec_flags f;
	struct plan p;
	char *got;

	cr_assert_eq(COMPILE(&p, &f, "--write", "/tmp/ws", "--write", "/tmp", "--write", "/tmp/ws/nested",
			     "--write", "/tmp/other", "--private-tmp", "--protect", "/tmp/ws/.git/hooks", "--",
			     "true"),
		     0);
	got = render(&p);
	cr_assert(strstr(got, "tmpfs /run\ntmpfs /var/run\nbind back /tmp/ws\nbind back /tmp/other\n"
			      "pin /tmp/ws/.git\nprotect /tmp/ws/.git/hooks\nproc"),
		  "%s", got);
	/* /tmp/ws is a mount point already: its rename fails with EBUSY anyway */
	cr_assert_null(strstr(got, "pin /tmp/ws\n"));
	cr_assert_null(strstr(got, "bind back /tmp/ws/nested"), "comes along with /tmp/ws");
	free(got);
	plan_done(&p);
	exec_flags_done(&f);
}

Test(plan, nested_roots_pin_the_inner_root)
{
	struct exec_flags f;
	struct plan p;
	char *got;

	cr_assert_eq(COMPILE(&p, &f, "--write", "/a", "--write", "/a/b", "--protect", "/a/b/.git/hooks",
			     "--protect", "/outside/.git/hooks", "--", "true"),
		     0);
	got = render(&p);
	/* /a/b's parent /a is writable: /a/b could be renamed away, so it is pinned */
	cr_assert(strstr(got, "tmpfs /var/run\npin /a/b\npin /a/b/.git\nprotect /a/b/.git/hooks\nproc"), "%s", got);
	/* outside every writable root: Landlock keeps it read-only already */
	cr_assert_null(strstr(got, "/outside"));
	free(got);
	plan_done(&p);
	exec_flags_done(&f);
}

Test(plan, protecting_a_path_and_a_path_below_it)
{
	struct exec_flags f;
	struct plan p;
	char *got;

	cr_assert_eq(COMPILE(&p, &f, "--write", "/ws", "--protect", "/ws/.git/hooks", "--protect", "/ws/.git",
			     "--protect", "/ws/.git/hooks", "--", "true"),
		     0);
	got = render(&p);
	/* the protection of .git replaces its pin, and comes first */
	cr_assert(strstr(got, "tmpfs /var/run\nprotect /ws/.git\nprotect /ws/.git/hooks\nproc"), "%s", got);
	free(got);
	plan_done(&p);
	exec_flags_done(&f);
}

Test(plan, light_isolation)
{
	struct exec_flags f;
	struct plan p;
	char *got;

	cr_assert_eq(COMPILE(&p, &f, "--isolation", "light", "--write", "/ws", "--deny-read", "/h/.ssh", "--",
			     "true"),
		     0, "%s", err);
	got = render(&p);
	cr_assert_str_eq(got, command_steps);
	cr_assert_eq(p.clone_flags, 0);
	cr_assert_str_eq(p.landlock.deny_read[0], "/h/.ssh");
	cr_assert(p.seccomp.deny_inet, "no network namespace: IP sockets are refused");
	cr_assert(p.landlock.deny_tcp);
	free(got);
	plan_done(&p);
	exec_flags_done(&f);

	cr_assert_eq(COMPILE(&p, &f, "--isolation", "light", "--net", "host", "--", "true"), 0);
	cr_assert_not(p.seccomp.deny_inet);
	plan_done(&p);
	exec_flags_done(&f);
}

Test(plan, contradictions_are_refused)
{
	struct exec_flags f;
	struct plan p;

	cr_assert_eq(COMPILE(&p, &f, "--isolation", "light", "--protect", "/ws/.git/hooks", "--", "x"), -EINVAL);
	cr_assert(strstr(err, "--protect needs --isolation full"), "%s", err);
	exec_flags_done(&f);
	cr_assert_eq(COMPILE(&p, &f, "--isolation", "light", "--private-tmp", "--", "x"), -EINVAL);
	exec_flags_done(&f);
	cr_assert_eq(COMPILE(&p, &f, "--isolation", "light", "--require", "netns", "--", "x"), -EOPNOTSUPP);
	cr_assert(strstr(err, "netns"), "%s", err);
	exec_flags_done(&f);
	cr_assert_eq(COMPILE(&p, &f, "--net", "host", "--require", "netns", "--", "x"), -EINVAL);
	exec_flags_done(&f);
}

Test(plan, explicit_light_keeps_what_light_can_do)
{
	struct exec_flags f;
	struct plan p;

	cr_assert_eq(COMPILE(&p, &f, "--isolation", "light", "--write", "/ws", "--deny-read", "/h/.ssh", "--", "true"),
		     0, "%s", err);
	cr_assert_eq(p.isolation, CORDON_ISOLATION_LIGHT);
	cr_assert_not(p.private_tmp);
	cr_assert_str_eq(p.landlock.deny_read[0], "/h/.ssh");
	cr_assert(p.seccomp.deny_inet);
	/* the host's /dev: never all of /dev/pts (stdio's own terminal is added when applied) */
	for (size_t i = 0; p.landlock.writable[i]; i++)
		cr_assert(strcmp(p.landlock.writable[i], "/dev/pts") != 0 && strcmp(p.landlock.writable[i], "/dev/ptmx") != 0,
			  "%s", p.landlock.writable[i]);
	plan_done(&p);
	exec_flags_done(&f);

	/* ...and refuses when a namespace is required */
	cr_assert_eq(COMPILE(&p, &f, "--isolation", "light", "--require", "userns", "--", "true"), -EOPNOTSUPP);
	exec_flags_done(&f);
}

Test(plan, every_step_has_a_phase_and_a_name)
{
	for (enum step_kind k = 0; k < _STEP_MAX; k++)
		cr_assert_neq(strcmp(step_name(k), "?"), 0);
	cr_assert_eq(step_phase(STEP_NAMESPACES), PHASE_RUNNER);
	cr_assert_eq(step_phase(STEP_PROTECT), PHASE_INIT);
	cr_assert_eq(step_phase(STEP_SECCOMP), PHASE_COMMAND);
}

/* One entry per kind, in the table's own order, each with words and a
 * way to be applied (the runner's clone is exec.c's own). */
Test(plan, the_step_table_has_one_whole_entry_per_kind)
{
	for (enum step_kind k = 0; k < _STEP_MAX; k++) {
		const struct step_ops *o = step_ops(k);

		cr_assert_not_null(o);
		cr_assert_eq(o->kind, k, "entry %d holds kind %d", (int)k, (int)o->kind);
		cr_assert_not_null(o->name, "%d", (int)k);
		cr_assert_not_null(o->describe, "%s", o->name);
		if (o->stage == STAGE_RUNNER)
			cr_assert_null(o->apply, "%s: the runner does not walk its steps", o->name);
		else
			cr_assert_not_null(o->apply, "%s", o->name);
	}
	cr_assert_null(step_ops(_STEP_MAX));
	cr_assert_str_eq(step_name(_STEP_MAX), "?");
}

/* The mounts are applied in one go when the ids are mapped, so in every
 * plan they follow the id map directly, and each stage comes after the
 * one before it: the order applied is the order explained. */
static void assert_stages_in_order(const struct plan *p)
{
	enum step_stage last = STAGE_RUNNER;

	for (size_t i = 0; i < p->n_steps; i++) {
		enum step_stage st = step_ops(p->steps[i].kind)->stage;

		if (st == STAGE_MOUNT)
			cr_assert(i > 0 && (p->steps[i - 1].kind == STEP_MAP_IDS ||
					    step_ops(p->steps[i - 1].kind)->stage == STAGE_MOUNT),
				  "%s at %zu does not follow the id map", step_name(p->steps[i].kind), i);
		else if (last == STAGE_MOUNT)
			cr_assert_eq(st, STAGE_INIT, "%s after the mounts", step_name(p->steps[i].kind));
		if (st != STAGE_MOUNT && last != STAGE_MOUNT)
			cr_assert_geq(st, last, "%s at %zu comes before a step of an earlier stage",
				      step_name(p->steps[i].kind), i);
		last = st;
	}
	cr_assert_eq(last, STAGE_COMMAND);
	cr_assert_eq(p->steps[p->n_steps - 1].kind, STEP_EXEC);
}

Test(plan, every_plan_runs_its_stages_in_order)
{
	struct exec_flags f;
	struct plan p;

	cr_assert_eq(COMPILE(&p, &f, "--write", "/ws", "--write", "/tmp/x", "--private-tmp", "--protect",
			     "/ws/.git/hooks", "--deny-read", "/h/.ssh", "--net", "proxy", "--broker-fd", "3",
			     "--", "true"),
		     0, "%s", err);
	assert_stages_in_order(&p);
	plan_done(&p);
	exec_flags_done(&f);
	cr_assert_eq(COMPILE(&p, &f, "--isolation", "light", "--write", "/ws", "--", "true"), 0, "%s", err);
	assert_stages_in_order(&p);
	plan_done(&p);
	exec_flags_done(&f);
}

Test(plan, describe_in_words)
{
	struct exec_flags f;
	struct plan p;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	cr_assert_eq(COMPILE(&p, &f, "--write", "/ws", "--write", "/tmp", "--private-tmp", "--protect",
			     "/ws/.git/hooks", "--deny-read", "/h/.ssh", "--keep-env", "GH_TOKEN", "--setenv",
			     "SECRET", "--require", "landlock-net", "--", "git", "status"),
		     0);
	out = open_memstream(&buf, &len);
	plan_describe(&p, 1000, 1000, out);
	fclose(out);
	cr_assert(strstr(buf, "isolation full, network none"), "%s", buf);
	cr_assert(strstr(buf, "map uid 1000 and gid 1000"));
	cr_assert(strstr(buf, "pin /ws/.git"));
	cr_assert(strstr(buf, "read-only: /ws/.git/hooks"));
	cr_assert(strstr(buf, "hide /h/.ssh"));
	cr_assert(strstr(buf, "kept: GH_TOKEN"));
	cr_assert(strstr(buf, "set: SECRET"));
	cr_assert_null(strstr(buf, "do-not-print"), "values are not printed");
	cr_assert_null(strstr(buf, "TCP bind and connect refused"), "its own loopback is open");
	cr_assert(strstr(buf, "loopback up, no other interface"));
	cr_assert(strstr(buf, "execve git status"));
	cr_assert(strstr(buf, "required (refuse rather than degrade): landlock-net"));
	free(buf);
	plan_done(&p);
	exec_flags_done(&f);

	cr_assert_eq(COMPILE(&p, &f, "--isolation", "light", "--", "true"), 0);
	buf = NULL;
	out = open_memstream(&buf, &len);
	plan_describe(&p, 0, 0, out);
	fclose(out);
	cr_assert(strstr(buf, "light isolation gives up"), "%s", buf);
	free(buf);
	plan_done(&p);
	exec_flags_done(&f);
}

/* --pty changes no step (the command's own steps stay in their order) and
 * is said where it happens: init opens the pty (full), setsid takes it as
 * the controlling terminal. Without it, no controlling terminal. */
Test(plan, pty_in_words)
{
	static const char *const cases[][2] = {
		{ "full", "the sandbox's devpts" },
		{ "light", "from the host's /dev/ptmx; Landlock lets the command write that one terminal" },
	};
	struct exec_flags f;
	struct plan p;

	for (size_t i = 0; i < 2; i++) {
		char *buf = NULL, *steps;
		size_t len = 0;
		FILE *out;

		int r = i == 0 ? COMPILE(&p, &f, "--isolation", "full", "--pty", "--", "bash")
			       : COMPILE(&p, &f, "--isolation", "light", "--pty", "--", "bash");

		cr_assert_eq(r, 0, "%s: %s", cases[i][0], err);
		cr_assert(p.pty);
		steps = render(&p);
		cr_assert(strstr(steps, command_steps), "%s", steps);
		free(steps);
		out = open_memstream(&buf, &len);
		plan_describe(&p, 0, 0, out);
		fclose(out);
		cr_assert(strstr(buf, "controlling terminal: a pseudo-terminal of its own"), "%s", buf);
		cr_assert(strstr(buf, cases[i][1]), "%s", buf);
		cr_assert_eq(strstr(buf, "init opens a pseudo-terminal in the sandbox's devpts") != NULL, i == 0, "%s", buf);
		cr_assert_null(strstr(buf, "no controlling terminal"), "%s", buf);
		free(buf);
		plan_done(&p);
		exec_flags_done(&f);
	}

	cr_assert_eq(COMPILE(&p, &f, "--", "bash"), 0);
	cr_assert_not(p.pty);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	plan_describe(&p, 0, 0, out);
	fclose(out);
	cr_assert(strstr(buf, "setsid: new session, no controlling terminal"), "%s", buf);
	cr_assert_null(strstr(buf, "pseudo-terminal"), "%s", buf);
	free(buf);
	plan_done(&p);
	exec_flags_done(&f);
}

/* The unix gate belongs to full isolation with --net none only, and the
 * plan says so either way. */
Test(plan, unix_gate_only_under_full_and_net_none)
{
	struct exec_flags f;
	struct plan p;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	cr_assert_eq(COMPILE(&p, &f, "--allow-unix-socket", "/run/build.sock", "--", "true"), 0, "%s", err);
	cr_assert(p.unix_gate);
	cr_assert_str_eq(p.allow_unix[0], "/run/build.sock");
	cr_assert_null(p.allow_unix[1]);
	out = open_memstream(&buf, &len);
	plan_describe(&p, 0, 0, out);
	fclose(out);
	cr_assert(strstr(buf, "unix gate: init performs every connect"), "%s", buf);
	cr_assert(strstr(buf, "or one of /run/build.sock (EACCES otherwise)"), "%s", buf);
	free(buf);
	plan_done(&p);
	exec_flags_done(&f);

	cr_assert_eq(COMPILE(&p, &f, "--net", "host", "--", "true"), 0, "%s", err);
	cr_assert_not(p.unix_gate);
	buf = NULL;
	out = open_memstream(&buf, &len);
	plan_describe(&p, 0, 0, out);
	fclose(out);
	cr_assert_null(strstr(buf, "unix gate:"), "%s", buf);
	cr_assert(strstr(buf, "pathname unix sockets not gated (--net host)"), "%s", buf);
	free(buf);
	plan_done(&p);
	exec_flags_done(&f);

	/* light isolation has no init and no network namespace: no gate, and
	 * explain says so among what light gives up */
	cr_assert_eq(COMPILE(&p, &f, "--isolation", "light", "--", "true"), 0, "%s", err);
	cr_assert_not(p.unix_gate);
	buf = NULL;
	out = open_memstream(&buf, &len);
	plan_describe(&p, 0, 0, out);
	fclose(out);
	cr_assert(strstr(buf, "the unix-socket gate"), "%s", buf);
	free(buf);
	plan_done(&p);
	exec_flags_done(&f);
}

/* --net proxy: the sandbox's own netns, then the listeners handed to the
 * proxy; TCP inside is not fenced (loopback only), the unix gate stays. */
Test(plan, net_proxy)
{
	struct exec_flags f;
	struct plan p;
	char *got, *want;

	cr_assert_eq(COMPILE(&p, &f, "--net", "proxy", "--allow-domain", "*.example.com", "--deny-domain",
			     "bad.example.com", "--allow-address", "10.0.0.0/8", "--", "true"),
		     0, "%s", err);
	got = render(&p);
	cr_assert(asprintf(&want, "namespaces\nid map\n%sproc /proc\nloopback\nproxy\nchdir\ninit\n%s", MOUNTS,
			   command_steps) > 0);
	cr_assert_str_eq(got, want);
	cr_assert_eq(p.clone_flags, (unsigned long)(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET));
	cr_assert(p.unix_gate);
	cr_assert_not(p.landlock.deny_tcp);
	cr_assert_not(p.seccomp.deny_inet);
	cr_assert_str_eq(p.allow_domains[0], "*.example.com");
	cr_assert_null(p.allow_domains[1]);
	cr_assert_str_eq(p.deny_domains[0], "bad.example.com");
	cr_assert_str_eq(p.allow_addresses[0], "10.0.0.0/8");
	free(got);
	free(want);
	plan_done(&p);
	exec_flags_done(&f);

	/* no network namespace, no proxy: refused, never the host's network */
	cr_assert_eq(COMPILE(&p, &f, "--isolation", "light", "--net", "proxy", "--", "true"), -EOPNOTSUPP);
	cr_assert(strstr(err, "needs full isolation"), "%s", err);
	exec_flags_done(&f);
}

Test(plan, broker_after_the_network_and_before_the_command)
{
	struct exec_flags f;
	struct plan p;
	char *got, *want;

	cr_assert_eq(COMPILE(&p, &f, "--broker-fd", "5", "--shim-path", "/opt/cordon-shim", "--shim", "git", "--",
			     "true"),
		     0, "%s", err);
	got = render(&p);
	cr_assert(asprintf(&want, "namespaces\nid map\n%sproc /proc\nloopback\nbroker /run/cordon\nchdir\ninit\n%s",
			   MOUNTS, command_steps) > 0);
	cr_assert_str_eq(got, want);
	cr_assert_eq(p.broker_fd, 5);
	cr_assert_str_eq(p.shims[0], "git");
	free(got);
	free(want);
	plan_done(&p);
	exec_flags_done(&f);

	/* light isolation has no /run of its own: refused */
	cr_assert_eq(COMPILE(&p, &f, "--isolation", "light", "--broker-fd", "5", "--", "true"), -EOPNOTSUPP);
	cr_assert(strstr(err, "full isolation"), "%s", err);
	exec_flags_done(&f);
}

/* --read replaces "/" as Landlock's readable list; --exec turns the gate
 * on; --deny-exec and --exec-fd reach Landlock and the exec step. */
Test(plan, read_exec_gate_deny_exec_and_exec_fd)
{
	struct exec_flags f;
	struct plan p;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	cr_assert_eq(COMPILE(&p, &f, "--write", "/tmp", "--private-tmp", "--read", "/usr", "--read", "/etc",
			     "--exec", "/usr/bin/git", "--deny-exec", "/usr/bin/gh", "--exec-fd", "4", "--", "git",
			     "status"),
		     0, "%s", err);
	cr_assert_str_eq(p.landlock.readable[0], "/usr");
	cr_assert_str_eq(p.landlock.readable[1], "/etc");
	cr_assert_null(p.landlock.readable[2]);
	cr_assert(p.landlock.exec_gate);
	cr_assert_str_eq(p.landlock.exec[0], "/usr/bin/git");
	cr_assert_str_eq(p.landlock.deny_exec[0], "/usr/bin/gh");
	cr_assert_eq(p.landlock.exec_fd, 4);
	cr_assert_eq(p.exec_fd, 4);
	out = open_memstream(&buf, &len);
	plan_describe(&p, 0, 0, out);
	fclose(out);
	cr_assert(strstr(buf, "Landlock: read only /usr /etc; execute only"), "%s", buf);
	cr_assert(strstr(buf, "/usr/bin/git and the file at fd 4"), "%s", buf);
	cr_assert(strstr(buf, "never executable (still readable; nor what appears beside them later; mounted noexec, "
			       "the loader cannot map them either): /usr/bin/gh"),
		  "%s", buf);
	cr_assert(strstr(buf, "execveat the file open at fd 4"), "%s", buf);
	cr_assert(strstr(buf, "argv git status"), "%s", buf);
	free(buf);
	plan_done(&p);
	exec_flags_done(&f);

	/* without them: everything readable and executable, execve by name */
	cr_assert_eq(COMPILE(&p, &f, "--", "true"), 0);
	cr_assert_str_eq(p.landlock.readable[0], "/");
	cr_assert_not(p.landlock.exec_gate);
	cr_assert_eq(p.exec_fd, -1);
	cr_assert_eq(p.landlock.exec_fd, -1);
	buf = NULL;
	out = open_memstream(&buf, &len);
	plan_describe(&p, 0, 0, out);
	fclose(out);
	cr_assert(strstr(buf, "Landlock: read and execute /; write"), "%s", buf);
	cr_assert(strstr(buf, "execve true"), "%s", buf);
	free(buf);
	plan_done(&p);
	exec_flags_done(&f);
}

/* Light isolation has no unix-socket gate: a host service could execute
 * for the sandbox, so the gate and deny-exec are refused there; restricted
 * reads and running from an fd are Landlock's and the runner's alone. */
Test(plan, light_refuses_the_gate_and_deny_exec)
{
	struct exec_flags f;
	struct plan p;

	cr_assert_eq(COMPILE(&p, &f, "--isolation", "light", "--exec", "/usr", "--", "true"), -EOPNOTSUPP);
	cr_assert(strstr(err, "need --isolation full"), "%s", err);
	exec_flags_done(&f);
	cr_assert_eq(COMPILE(&p, &f, "--isolation", "light", "--exec-gate", "--exec-fd", "4", "--", "true"),
		     -EOPNOTSUPP);
	exec_flags_done(&f);
	cr_assert_eq(COMPILE(&p, &f, "--isolation", "light", "--deny-exec", "/usr/bin/git", "--", "true"),
		     -EOPNOTSUPP);
	exec_flags_done(&f);
	cr_assert_eq(COMPILE(&p, &f, "--isolation", "light", "--read", "/usr", "--exec-fd", "4", "--", "true"), 0,
		     "%s", err);
	cr_assert_str_eq(p.landlock.readable[0], "/usr");
	cr_assert_eq(p.exec_fd, 4);
	plan_done(&p);
	exec_flags_done(&f);
}

/* The HOME allowlist: the tmpfs after the roots are back and before what
 * protects or hides inside the grants; Landlock reads everything plus the
 * grants (and, full, the filtered copies) and withholds the hidden home. */
Test(plan, home_allowlist)
{
	struct exec_flags f;
	struct plan p;
	char *got, *want;

	cr_assert_eq(COMPILE(&p, &f, "--write", "/h/ws", "--write", "/tmp", "--private-tmp", "--home-hide", "/h",
			     "--home-hide", "/tmp/other", "--home-grant", "/h/ws", "--home-grant", "/h/.cargo/bin",
			     "--home-filtered", "/h/.gitconfig", "--home-link", "/h/.vimrc", "--deny-read",
			     "/h/.cargo/bin/.credentials", "--protect", "/h/ws/.git/hooks", "--", "true"),
		     0, "%s", err);
	got = render(&p);
	cr_assert(asprintf(&want,
			   "namespaces\nid map\n%s"
			   "home /h\n"
			   "pin /h/ws/.git\nprotect /h/ws/.git/hooks\n"
			   "hide /h/.cargo/bin/.credentials\n"
			   "proc /proc\nloopback\nchdir\ninit\n%s",
			   MOUNTS, command_steps) > 0);
	cr_assert_str_eq(got, want, "a home below a private dir has no tmpfs of its own");
	/* /h/ws reads by its writable root's rule: no second one; /h/.cargo/bin
	 * has /h withheld between it and "/": its own */
	cr_expect_str_eq(p.landlock.readable[0], "/");
	cr_expect_str_eq(p.landlock.readable[1], "/h/.cargo/bin");
	cr_expect_str_eq(p.landlock.readable[2], "/h/.gitconfig");
	cr_expect_null(p.landlock.readable[3]);
	cr_expect_str_eq(p.landlock.writable[0], "/h/ws");
	cr_expect_str_eq(p.landlock.deny_read[0], "/h/.cargo/bin/.credentials");
	cr_expect_str_eq(p.landlock.deny_read[1], "/h");
	cr_expect_str_eq(p.landlock.deny_read[2], "/tmp/other");
	free(got);
	free(want);
	plan_done(&p);
	exec_flags_done(&f);

	/* a grant below a writable root keeps its own rule when a read-deny
	 * entry lies between them (the root's rule stops there) */
	cr_assert_eq(COMPILE(&p, &f, "--write", "/h/ws", "--home-hide", "/h", "--home-grant", "/h/ws",
			     "--home-grant", "/h/ws/sub", "--home-grant", "/h/ws/d/x", "--deny-read", "/h/ws/d", "--",
			     "true"),
		     0, "%s", err);
	cr_expect_str_eq(p.landlock.readable[1], "/h/ws/d/x");
	cr_expect_null(p.landlock.readable[2]);
	plan_done(&p);
	exec_flags_done(&f);

	/* light: Landlock only, no copy to read */
	cr_assert_eq(COMPILE(&p, &f, "--isolation", "light", "--home-hide", "/h", "--home-filtered", "/h/.gitconfig",
			     "--home-grant", "/h/.rustup", "--", "true"),
		     0, "%s", err);
	cr_expect_str_eq(p.landlock.readable[1], "/h/.rustup");
	cr_expect_null(p.landlock.readable[2]);
	cr_expect_str_eq(p.landlock.deny_read[0], "/h");
	plan_done(&p);
	exec_flags_done(&f);

	cr_assert_neq(COMPILE(&p, &f, "--home-grant", "/h/x", "--", "true"), 0, "a grant needs a hidden home");
	exec_flags_done(&f);
}
