/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A plan in words (`cordon explain`): each step's describe function (the
 * step table, steps.c, names them), numbered in plan order, then what is
 * required and what light isolation gives up. Pure.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "broker_proto.h"
#include "cleanup.h"
#include "path.h"
#include "policy.h"
#include "steps.h"

/* a step's path, for "%.*s" */
#define P (int)s->len, s->path

static bool has_protect(const struct plan *p)
{
	for (size_t i = 0; i < p->n_steps; i++)
		if (p->steps[i].kind == STEP_PROTECT)
			return true;
	return false;
}

static void print_list(FILE *out, const char *const *v, const char *none)
{
	if (!v || !v[0]) {
		fprintf(out, " %s", none);
		return;
	}
	for (size_t i = 0; v[i]; i++)
		fprintf(out, " %s", v[i]);
}

/* "Landlock: read ...; execute ...; write ...": what the gate and --read change. */
static void describe_landlock_access(const struct plan *p, FILE *out)
{
	const struct landlock_rules *l = &p->landlock;
	bool all = l->readable == plan_readable_all;

	if (!l->exec_gate)
		fprintf(out, "Landlock: read and execute%s", all ? " /" : " only");
	else
		fprintf(out, "Landlock: read%s", all ? " /" : " only");
	if (!all)
		print_list(out, l->readable, "nothing");
	if (l->exec_gate) {
		fprintf(out, "; execute only (the execute-only gate: nothing readable or writable else, so "
			     "nothing the sandbox writes):");
		print_list(out, l->exec, p->exec_fd >= 0 ? "" : "nothing");
		if (p->exec_fd >= 0)
			fprintf(out, "%sthe file at fd %d", l->exec && l->exec[0] ? " and " : " ", p->exec_fd);
	} else if (p->exec_fd >= 0)
		fprintf(out, "; read and execute the file at fd %d", p->exec_fd);
	fprintf(out, "; write");
	print_list(out, l->writable, "nothing");
}
void describe_namespaces(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	fprintf(out, "new user, mount, pid%s namespaces in one clone\n",
		p->clone_flags & CLONE_NEWNET ? " and network" : "");
}

void describe_map_ids(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	fprintf(out, "map uid %u and gid %u to themselves (setgroups denied)\n", uid, gid);
}

void describe_ro_root(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	fprintf(out, "/ read-only%s, recursively (no file outside the writable roots can change, "
		     "modes, times and xattrs included)%s; writable roots bound back nosuid,nodev%s:",
		p->landlock.exec_gate ? " and noexec" : "",
		p->landlock.exec_gate ? "; the library directories and the --exec paths bound back executable" : "",
		p->landlock.exec_gate ? " (and noexec, but where an --exec path lies)" : "");
	print_list(out, p->write, "none");
	fputc('\n', out);
}

void describe_dev(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	fprintf(out, "a /dev of its own: null zero full random urandom tty, a fresh devpts "
		     "(no other terminal is visible), shm, fd links; read-only\n");
}

void describe_tmpfs(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	fprintf(out, "private, size-capped%s tmpfs on %.*s (nothing of the host's; gone when the "
		     "sandbox ends)\n", p->landlock.exec_gate ? ", noexec" : "", P);
	for (size_t i = 0; p->read_host && p->read_host[i]; i++)
		if (strncmp(p->read_host[i], s->path, s->len) == 0 && p->read_host[i][s->len] == '/')
			fprintf(out, "     the host's %s brought back into it, read-only (--read-host)\n",
				p->read_host[i]);
}

void describe_bind_back(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	fprintf(out, "bind the writable root %.*s back into the private tmpfs\n", P);
}

void describe_pin(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	fprintf(out, "pin %.*s (bound onto itself: it cannot be renamed or removed)\n", P);
}

void describe_protect(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	if (s->path[s->len - 1] == '*')
		fprintf(out, "read-only: every existing entry matching %.*s; no new one can be "
			     "made (creation gate)\n", P);
	else
		fprintf(out, "read-only: %.*s (if missing, init refuses to make its first missing "
			     "component: creation gate; nothing is made on the host)\n",
			P);
}

void describe_hide(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	fprintf(out, "hide %.*s (an empty, inaccessible, read-only directory or file stands in for it)\n", P);
}

/* The entries of v strictly below the step's home (each home's step brings
 * back only its own; the lists hold every home's). */
static void print_below(FILE *out, const char *const *v, const struct step *s, const char *none)
{
	_cleanup_free_ char *home = strndup(s->path, s->len);
	size_t n = 0;

	for (size_t i = 0; home && v && v[i]; i++)
		if (strcmp(v[i], home) != 0 && path_is_under(v[i], home) > 0) {
			fprintf(out, " %s", v[i]);
			n++;
		}
	if (!n && none)
		fprintf(out, " %s", none);
}

void describe_home(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	fprintf(out, "hide %.*s by an empty read-only tmpfs; bound back below it:", P);
	print_below(out, p->home_grant, s, "nothing");
	fprintf(out, "; symlinks made again:");
	print_below(out, p->home_link, s, "none");
	fprintf(out, "; filtered copies (no credential-bearing line):");
	print_below(out, p->home_filtered, s, "none");
	fprintf(out, "\n");
}

void describe_proc(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	fprintf(out, "fresh /proc: only the sandbox's processes\n");
}

void describe_loopback(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	fprintf(out, "network namespace: loopback up, no other interface\n");
}

void describe_trust(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	fprintf(out, "the certificate directories (/etc/ssl/certs, /etc/pki/tls) replaced, read-only and in this "
		"namespace only, by copies whose bundles add the session CA the proxy's credential hosts use\n");
}

void describe_proxy(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	fprintf(out, "the only way out: cordon's proxy, outside, accepting on 127.0.0.1:3128 (HTTP) and "
		"127.0.0.1:1080 (SOCKS5) inside; allow");
	print_list(out, p->allow_domains, "nothing");
	fprintf(out, "; deny");
	print_list(out, p->deny_domains, "nothing more");
	fprintf(out, "; local answers allowed");
	print_list(out, p->allow_addresses, "none");
	if (p->net == CORDON_NET_ALLOW)
		fprintf(out, "; and (--net allow) a resolver on 127.0.0.1:53 inside giving the allowed names synthetic "
			     "addresses (198.18.0.0/15, fd63:6f72:646f::/64): a TCP connect to one is decided by init and the "
			     "proxy, which dials it in the host's namespace and hands the socket to the caller (no relay; "
			     "connect, bind, listen and Fast Open on it refused after); UDP only on the sandbox's loopback");
	fprintf(out, "\n");
}

void describe_broker(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	fprintf(out, "the tool sandbox's broker: %s, a read-only tmpfs, holds the socket %s (its "
		     "listener handed to the supervisor outside: this sandbox's own, reachable from "
		     "no other) and %s, first on PATH, with the commands",
		BROKER_DIR, BROKER_SOCKET, BROKER_SHIM_DIR);
	print_list(out, p->shims, "(none)");
	fprintf(out, " (each runs %s)\n", p->shim_path ? p->shim_path : "-");
}

void describe_chdir(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	fprintf(out, "re-enter the working directory through the new mounts\n");
}

void describe_init(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	fprintf(out, "pid 1 init forks the command, reaps, forwards signals, relays its exit status\n");
	if (p->pty)
		fprintf(out, "     terminal: init opens a pseudo-terminal in the sandbox's devpts, sends its "
			     "master to the runner outside and makes the slave its own stdio (the "
			     "runner's terminal stays outside the sandbox)\n");
	if (p->unix_gate) {
		fprintf(out, "     unix gate: init performs every connect, sendto with an address, sendmsg "
			     "and sendmmsg (seccomp user notification); a pathname unix socket is "
			     "reachable only if bound inside the sandbox");
		if (p->allow_unix && p->allow_unix[0]) {
			fprintf(out, " or one of");
			print_list(out, p->allow_unix, "");
		}
		fprintf(out, " (EACCES otherwise)\n");
	}
	if (has_protect(p) || p->protect_git || (p->protect_names && p->protect_names[0])) {
		fprintf(out, "     write gate: init performs every mkdir, mknod, open/openat that "
			     "creates, writes or truncates, creat, truncate, symlink, link, rename, "
			     "bind, unlink and rmdir (seccomp user notification) on the parent it resolved as the "
			     "caller would, and refuses with EACCES, by name on the path at the time "
			     "of the call (a host rename detaching a mount changes nothing): the "
			     "protected paths above and what lies below them");
		if (p->protect_names && p->protect_names[0]) {
			fprintf(out, "; at any depth below a writable root (not below node_modules):");
			print_list(out, p->protect_names, "");
		}
		if (p->protect_git)
			fprintf(out, "; in every .git at any depth: the .git entry, config, "
				     "config.worktree, commondir, gitdir, hooks, info (not objects, "
				     "refs, logs)");
		if (p->unprotect && p->unprotect[0]) {
			fprintf(out, "; no rule by name at or below");
			print_list(out, p->unprotect, "");
		}
		fprintf(out, "; init holds the command's Landlock ruleset and no capability but "
			     "CAP_SYS_PTRACE\n");
	}
}

void describe_setsid(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	bool full = p->isolation == CORDON_ISOLATION_FULL;
	if (!p->pty)
		fprintf(out, "setsid: new session, no controlling terminal\n");
	else
		fprintf(out, "setsid: new session; stdin, stdout, stderr and controlling terminal: a "
			     "pseudo-terminal of its own (%s), whose master only the runner holds: it "
			     "relays its stdin in and the output to its stderr, its terminal raw "
			     "meanwhile, the window size passed on\n",
			full ? "the sandbox's devpts" : "from the host's /dev/ptmx; Landlock lets the "
							"command write that one terminal");
}

void describe_pdeathsig(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	fprintf(out, "killed (SIGKILL) if its parent dies\n");
}

void describe_rlimit_core(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	fprintf(out, "RLIMIT_CORE 0: no core dumps\n");
}

void describe_close_fds(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	fprintf(out, "close every file descriptor above 2\n");
}

void describe_env(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	fprintf(out, "environment: only");
	print_list(out, policy_default_env, "");
	if (p->keep_env && p->keep_env[0]) {
		fprintf(out, ", kept:");
		print_list(out, p->keep_env, "");
	}
	if (p->setenv && p->setenv[0]) {
		fprintf(out, "; set:");
		for (size_t k = 0; p->setenv[k]; k++)
			fprintf(out, " %.*s", (int)strcspn(p->setenv[k], "="), p->setenv[k]);
	}
	fprintf(out, " (loader and interpreter injection variables never)\n");
}

void describe_drop_caps(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	fprintf(out, "drop every capability: bounding, ambient, inheritable, permitted, effective\n");
}

void describe_no_new_privs(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	fprintf(out, "no_new_privs: setuid and file capabilities grant nothing\n");
}

void describe_landlock(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	bool full = p->isolation == CORDON_ISOLATION_FULL;
	describe_landlock_access(p, out);
	if (p->landlock.deny_read && p->landlock.deny_read[0]) {
		fprintf(out, "; unreadable:");
		print_list(out, p->landlock.deny_read, "");
	}
	if (p->landlock.deny_absent && p->landlock.deny_absent[0]) {
		fprintf(out, "; unreadable when made (absent now):");
		print_list(out, p->landlock.deny_absent, "");
	}
	if (p->landlock.deny_exec && p->landlock.deny_exec[0]) {
		fprintf(out, "; never executable (still readable; nor what appears beside them later; "
			     "mounted noexec, the loader cannot map them either):");
		print_list(out, p->landlock.deny_exec, "");
	}
	if (p->landlock.deny_tcp)
		fprintf(out, "; TCP bind and connect refused");
	fprintf(out, "; abstract unix sockets and signals scoped to the sandbox");
	if (!p->unix_gate)
		fprintf(out, "; pathname unix sockets not gated (%s)",
			full ? "--net host" : "light isolation");
	fputc('\n', out);
}

void describe_seccomp(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	fprintf(out, "seccomp (EPERM): ptrace, process_vm_*, pidfd_getfd, process_madvise, process_mrelease, kcmp, "
		     "io_uring, bpf, perf_event_open, "
		     "userfaultfd, keyrings, kexec, modules, the mount API, setns, unshare and "
		     "namespace clones, personality, acct, swap, reboot, syslog, TIOCSTI/TIOCLINUX, "
		     "sockets other than unix/%snetlink%s; other syscall ABIs killed\n",
		p->seccomp.deny_inet ? "" : "IPv4/IPv6/",
		p->seccomp.deny_memfd ? ", memfd_create and memfd_secret (a sealed memfd is still mapped "
					"executable through /proc/self/fd), shmat with SHM_EXEC"
				      : "");
}

void describe_exec(const struct plan *p, const struct step *s, unsigned uid, unsigned gid, FILE *out)
{
	if (p->exec_fd >= 0)
		fprintf(out, "execveat the file open at fd %d (the one the caller checked, whatever "
			     "its path names now; a script keeps fd %d for its interpreter), argv",
			p->exec_fd, p->exec_fd);
	else
		fprintf(out, "execve");
	for (size_t k = 0; p->command && p->command[k]; k++)
		fprintf(out, " %s", p->command[k]);
	fputc('\n', out);
}

void plan_describe(const struct plan *p, unsigned uid, unsigned gid, FILE *out)
{
	bool full = p->isolation == CORDON_ISOLATION_FULL;
	unsigned n = 0;

	fprintf(out, "cordon exec plan: isolation %s, network %s\n", full ? "full" : "light",
		cordon_net_to_string(p->net));
	for (size_t i = 0; i < p->n_steps; i++) {
		const struct step *s = &p->steps[i];

		fprintf(out, "%3u. ", ++n);
		step_ops(s->kind)->describe(p, s, uid, gid, out);
	}
	if (p->required) {
		fprintf(out, "required (refuse rather than degrade):");
		for (unsigned bit = 1; bit <= REQUIRE_NETNS; bit <<= 1)
			if (p->required & bit)
				fprintf(out, " %s", require_feature_to_string(bit));
		fputc('\n', out);
	}
	if (!full)
		fprintf(out,
			"light isolation gives up: the read-only root (Landlock alone fences writes, and it "
			"does not cover modes, times or xattrs of files it lets be read), the private /tmp and "
			"/run (the host's, and host unix sockets in them are reachable), the sandbox's own /dev "
			"(the host's /dev is visible; only the null-ish nodes and stdio's own terminal are "
			"writable), a private /proc (host processes are visible, though ptrace is refused and "
			"signals are scoped), read-only protection of .git, shell rc and editor config inside "
			"writable roots, hiding by mount (Landlock hides instead, so a hidden path's parent "
			"cannot be listed), the pid namespace (no init: orphans are not reaped in a sandbox "
			"of their own), the network namespace (%s), the unix-socket gate (host "
			"pathname sockets are reachable where the path is) and with it the execute-only "
			"gate and deny-exec (refused: a host service could execute for the sandbox)\n",
			p->net == CORDON_NET_NONE ? "IP sockets are refused by seccomp instead, loopback included"
						  : "the host network is shared either way");
}
