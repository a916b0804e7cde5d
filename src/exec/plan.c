/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Flags -> ordered plan. Pure: no syscalls, so `cordon explain` and the unit
 * tests see exactly the order the runner applies.
 *
 * The order, and why:
 *   namespaces in one clone (user first: it owns the others), id maps;
 *   mounts: private tmpfs, writable roots below it bound back, then pins and
 *   read-only protections sorted by path (an ancestor is pinned before a
 *   path below it is protected, else the pin would cover the protection),
 *   then read-deny overlays last so they win even inside a writable root;
 *   a fresh /proc once pid 1 exists; loopback; the working directory is
 *   re-entered so relative paths go through the new mounts;
 *   then, in the command's process: setsid, parent-death signal, no core
 *   dumps, no inherited fds, environment, capabilities, no_new_privs,
 *   Landlock, seccomp last (it would refuse the mount and prctl calls
 *   before it), execve.
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "broker_proto.h"
#include "canon.h"
#include "errbuf.h"
#include "plan.h"
#include "policy.h"

const char *const plan_writable_devices[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/pts", "/dev/ptmx", NULL,
};

const char *const plan_writable_devices_light[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", NULL,
};

/* /var/run is normally a symlink to /run; where it is a directory of its
 * own it gets a tmpfs too (init skips it when it is a symlink). */
const char *const plan_private_dirs[] = { "/tmp", "/dev/shm", "/run", "/var/run", NULL };

const char *const plan_readable_all[] = { "/", NULL };

/* /dev/tty, /dev/pts, /dev/ptmx */
static bool is_terminal_device(const char *dev)
{
	return strcmp(dev, "/dev/tty") == 0 || strncmp(dev, "/dev/pt", 7) == 0;
}

bool plan_in_private_dir(const char *path, size_t len, bool strictly_below)
{
	for (size_t i = 0; plan_private_dirs[i]; i++) {
		size_t n = strlen(plan_private_dirs[i]);

		if (!path_is_under_n(path, len, plan_private_dirs[i]))
			continue;
		if (!strictly_below || len > n)
			return true;
	}
	return false;
}

bool plan_noexec(const struct plan *p, const char *root)
{
	/* only a tool: the session runs what it builds in its own roots */
	if (!p->landlock.exec_gate)
		return false;
	for (size_t i = 0; p->landlock.exec && p->landlock.exec[i]; i++)
		if (path_is_under(p->landlock.exec[i], root))
			return false;
	return true;
}

static int add_step_n(struct plan *p, enum step_kind k, const char *path, size_t len)
{
	if (p->n_steps >= p->max_steps)
		return -E2BIG;
	p->steps[p->n_steps++] = (struct step){ .kind = k, .path = path, .len = len };
	return 0;
}

static int add_step(struct plan *p, enum step_kind k, const char *path)
{
	return add_step_n(p, k, path, path ? strlen(path) : 0);
}

static int step_cmp(const void *a, const void *b)
{
	const struct step *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->path, y->path, n);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	/* the same path pinned and protected: PIN sorts first, then is dropped */
	return (int)x->kind - (int)y->kind;
}

/* Mount points below a private tmpfs that are mount points already (the
 * tmpfs itself, and the roots bound back into it). */
static bool is_mounted_already(const struct plan *p, const char *path, size_t len)
{
	for (size_t i = 0; p->private_tmp && plan_private_dirs[i]; i++)
		if (len == strlen(plan_private_dirs[i]) && memcmp(path, plan_private_dirs[i], len) == 0)
			return true;
	for (size_t i = 0; i < p->n_steps; i++)
		if (p->steps[i].kind == STEP_BIND_BACK && p->steps[i].len == len &&
		    memcmp(p->steps[i].path, path, len) == 0)
			return true;
	/* a writable root bound back onto the read-only root, unless it lies
	 * below another one (then it comes along inside that one's mount) */
	for (size_t i = 0; p->write[i]; i++) {
		bool nested = false;

		if (strlen(p->write[i]) != len || memcmp(p->write[i], path, len) != 0 ||
		    plan_in_private_dir(path, len, false))
			continue;
		for (size_t j = 0; p->write[j]; j++)
			nested |= j != i && strlen(p->write[j]) < len && path_is_under_n(path, len, p->write[j]) &&
				  !plan_in_private_dir(p->write[j], strlen(p->write[j]), false);
		if (!nested)
			return true;
	}
	return false;
}

/* Pins and protections, sorted so an ancestor comes before what lies below
 * it. An ancestor needs a pin when it could otherwise be renamed away, that
 * is when its parent is below a writable root. */
static int add_protections(struct plan *p, const struct exec_flags *f)
{
	size_t first = p->n_steps, out;
	int r;

	for (size_t i = 0; i < f->protect.n; i++) {
		const char *path = f->protect.v[i];
		size_t len = strlen(path);

		/* Outside every writable root Landlock keeps it read-only already. */
		if (!path_under_any_n(path, len, p->write))
			continue;
		for (size_t k = 1; k < len; k++) {
			size_t q = k;

			if (path[k] != '/')
				continue;
			/* the ancestor is path[0..k), its parent path[0..q) */
			while (q > 0 && path[q - 1] != '/')
				q--;
			q = q > 1 ? q - 1 : 1;
			if (!path_under_any_n(path, q, p->write) || is_mounted_already(p, path, k))
				continue;
			r = add_step_n(p, STEP_PIN, path, k);
			if (r < 0)
				return r;
		}
		r = add_step_n(p, STEP_PROTECT, path, len);
		if (r < 0)
			return r;
	}

	qsort(p->steps + first, p->n_steps - first, sizeof(struct step), step_cmp);
	out = first;
	for (size_t i = first; i < p->n_steps; i++) {
		const struct step *s = &p->steps[i], *next = i + 1 < p->n_steps ? s + 1 : NULL;

		if (next && next->len == s->len && memcmp(next->path, s->path, s->len) == 0)
			continue; /* a duplicate, or a PIN the PROTECT after it covers */
		p->steps[out++] = *s;
	}
	p->n_steps = out;
	return 0;
}

/* The writable roots strictly below a private directory, minus those below
 * another one (a recursive bind brings them along). */
static int add_bind_backs(struct plan *p)
{
	for (size_t i = 0; p->write[i]; i++) {
		const char *w = p->write[i];
		bool nested = false;
		int r;

		if (!plan_in_private_dir(w, strlen(w), true))
			continue;
		for (size_t j = 0; p->write[j]; j++)
			if (j != i && plan_in_private_dir(p->write[j], strlen(p->write[j]), true) &&
			    path_is_under(w, p->write[j]) && strcmp(w, p->write[j]) != 0)
				nested = true;
		if (nested)
			continue;
		r = add_step(p, STEP_BIND_BACK, w);
		if (r < 0)
			return r;
	}
	return 0;
}

void plan_done(struct plan *p)
{
	free(p->storage);
	*p = (struct plan){};
}

/* A path withheld at or below a and at or above g: a's rule does not
 * reach g. */
static bool withheld_between(const char *const *list, const char *a, const char *g)
{
	for (size_t i = 0; list && list[i]; i++)
		if (path_is_under(g, list[i]) > 0 && path_is_under(list[i], a) > 0)
			return true;
	return false;
}

/* The HOME grant g lies at or below a readable entry taken already or a
 * writable root (whose rights hold the readable ones), with nothing
 * withheld on the way: that rule reaches it, and a rule of its own would
 * cost an open, an fstat and a landlock_add_rule for nothing. (Dropping
 * one could only take a right away, never give one.) */
static bool home_grant_covered(const struct exec_flags *f, const char *const *readable, size_t n, const char *g)
{
	const char *const *withheld[] = { (const char *const *)f->deny_read.v, (const char *const *)f->home_hide.v,
					  (const char *const *)f->deny_exec.v, NULL };

	for (size_t i = 0; i < n + f->write.n; i++) {
		const char *a = i < n ? readable[i] : f->write.v[i - n];
		bool reached = path_is_under(g, a) > 0;

		for (size_t l = 0; reached && withheld[l]; l++)
			reached = !withheld_between(withheld[l], a, g);
		if (reached)
			return true;
	}
	return false;
}

static int compile(const struct exec_flags *f, bool light, struct plan *ret, char *err, size_t errlen)
{
	struct plan p = {
		.isolation = light ? CORDON_ISOLATION_LIGHT : CORDON_ISOLATION_FULL,
		.net = f->net,
		.private_tmp = !light,
		.report = f->report,
		.no_terminal = f->no_terminal,
		.pty = f->pty,
		.required = f->required,
		.command = f->command,
		.exec_fd = f->exec_fd,
		.serve_fd = f->serve_fd,
		.keep_env = f->keep_env.v,
		.setenv = f->setenv.v,
		/* Pathname unix sockets are files, outside any network
		 * namespace: only init, inside the new one, can tell the
		 * sandbox's own from the host's. Under --net host the host's
		 * sockets are shared with its network, except where the
		 * execute-only gate or deny-exec relies on the gate: a host
		 * service (a shell's, a build daemon's) would run for the
		 * sandbox what they forbid; init then tells the sandbox's own
		 * by the processes holding them. */
		.unix_gate = !light && (f->net != CORDON_NET_HOST || f->exec_gate || f->deny_exec.n > 0),
		.allow_unix = f->allow_unix.v,
		.allow_domains = f->allow_domain.v,
		.deny_domains = f->deny_domain.v,
		.allow_addresses = f->allow_address.v,
		.broker_fd = f->broker_fd,
		.credentials_fd = f->credentials_fd,
		.end_fd = f->end_fd,
		.shim_path = f->shim_path,
		.shims = f->shim.v,
	};
	size_t n_writable = f->write.n + 8, n_steps;
	const char **writable, **readable, **denied;
	size_t n_readable, n_denied;
	char *blob;
	int r;

	if (light) {
		if (f->required & (REQUIRE_USERNS | REQUIRE_PIDNS | REQUIRE_NETNS))
			return errbuf_set(err, errlen, -EOPNOTSUPP,
				    "light isolation uses no namespaces, but %s is required",
				    require_feature_to_string(f->required & REQUIRE_USERNS ? REQUIRE_USERNS
							   : f->required & REQUIRE_PIDNS ? REQUIRE_PIDNS
											 : REQUIRE_NETNS));
		if (f->isolation == CORDON_ISOLATION_LIGHT && f->private_tmp)
			return errbuf_set(err, errlen, -EINVAL, "--private-tmp needs --isolation full (a mount namespace)");
		if (f->isolation == CORDON_ISOLATION_LIGHT && (f->protect_name.n > 0 || f->protect_git))
			return errbuf_set(err, errlen, -EINVAL,
				    "--protect-name and --protect-git need --isolation full: Landlock cannot refuse a "
				    "name below a writable root");
		if (f->isolation == CORDON_ISOLATION_LIGHT && f->protect.n > 0)
			return errbuf_set(err, errlen, -EINVAL,
				    "--protect needs --isolation full: Landlock cannot keep a path read-only "
				    "below a writable root");
	}
	/* Without a unix-socket gate a host service reachable over a
	 * pathname socket (a shell's, a build daemon's) runs what it is
	 * asked to: an execute-only gate there would be a fence with a door. */
	if (light && (f->exec_gate || f->deny_exec.n > 0))
		return errbuf_set(err, errlen, -EOPNOTSUPP,
			    "--exec, --exec-gate and --deny-exec need --isolation full: without the unix-socket gate a "
			    "host service could execute for the sandbox what the gate forbids");
	/* The proxy is the only way out only where the sandbox has a network
	 * namespace of its own: never without one. */
	if (light && f->net == CORDON_NET_PROXY)
		return errbuf_set(err, errlen, -EOPNOTSUPP,
			    "--net proxy needs full isolation (a network namespace of the sandbox's own)");
	if (light && f->net == CORDON_NET_ALLOW)
		return errbuf_set(err, errlen, -EOPNOTSUPP,
			    "--net allow needs full isolation: the connections init hands over need a network namespace "
			    "of the sandbox's own and init's seccomp gate");
	/* The broker's socket is the sandbox's identity only in a /run no
	 * other sandbox shares. */
	if (light && f->broker_fd >= 0)
		return errbuf_set(err, errlen, -EOPNOTSUPP,
			    "--broker-fd needs full isolation (a private /run for the broker's socket)");
	/* The shim runs unconfined in nothing, but every sandbox that calls a
	 * tool runs it: one the sandbox can write it could rewrite for all of
	 * them. A private tmpfs (/tmp itself) is not the host's file. */
	for (size_t i = 0; f->shim_path && i < f->write.n; i++) {
		const char *w = f->write.v[i];
		size_t n = strlen(w);

		if (path_is_under(f->shim_path, w) > 0 &&
		    !(plan_in_private_dir(w, n, false) && !plan_in_private_dir(w, n, true)))
			return errbuf_set(err, errlen, -EPERM,
				    "the shim %s lies in %s, which the sandbox can write: install cordon outside "
				    "every writable root", f->shim_path, w);
	}
	if ((f->required & REQUIRE_NETNS) && f->net == CORDON_NET_HOST)
		return errbuf_set(err, errlen, -EINVAL, "--require netns contradicts --net host");

	/* Every protected path brings at most one pin per ancestor. */
	n_steps = 32 + f->write.n + f->deny_read.n + f->home_hide.n;
	for (size_t i = 0; i < f->protect.n; i++)
		for (const char *c = f->protect.v[i]; *c; c++)
			n_steps += *c == '/';
	if (n_steps > PLAN_MAX_STEPS)
		n_steps = PLAN_MAX_STEPS;

	if (f->home_hide.n == 0 && f->home_grant.n + f->home_link.n + f->home_filtered.n > 0)
		return errbuf_set(err, errlen, -EINVAL, "--home-grant, --home-link and --home-filtered need a --home-hide");
	/* under light isolation only Landlock hides HOME: a filtered copy
	 * has nowhere to go, so the file stays hidden */
	n_readable = (f->read.n ? f->read.n : 1) + f->home_grant.n + (light ? 0 : f->home_filtered.n) + 1;
	n_denied = f->deny_read.n + f->home_hide.n + 1;

	/* One allocation: the steps and the Landlock path arrays. */
	blob = calloc(1, n_steps * sizeof(struct step) + (2 * n_writable + n_readable + n_denied) * sizeof(char *));
	if (!blob)
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	p.storage = blob;
	p.steps = (struct step *)blob;
	p.max_steps = n_steps;
	writable = (const char **)(blob + n_steps * sizeof(struct step));
	readable = writable + 2 * n_writable;
	denied = readable + n_readable;
	p.home_grant = f->home_grant.v;
	p.home_link = f->home_link.v;
	p.home_filtered = f->home_filtered.v;
	{
		size_t k = 0;

		for (size_t i = 0; i < (f->read.n ? f->read.n : 1); i++)
			readable[k++] = f->read.n ? f->read.v[i] : plan_readable_all[0];
		for (size_t i = 0; i < f->home_grant.n; i++)
			if (!home_grant_covered(f, readable, k, f->home_grant.v[i]))
				readable[k++] = f->home_grant.v[i];
		for (size_t i = 0; !light && i < f->home_filtered.n; i++)
			readable[k++] = f->home_filtered.v[i];
		readable[k] = NULL;
		k = 0;
		for (size_t i = 0; i < f->deny_read.n; i++)
			denied[k++] = f->deny_read.v[i];
		/* HOME is hidden by omission: no rule but the grants below it */
		for (size_t i = 0; i < f->home_hide.n; i++)
			denied[k++] = f->home_hide.v[i];
		denied[k] = NULL;
	}
	p.protect_names = f->protect_name.v;
	p.unprotect = f->unprotect.v;
	p.protect_git = f->protect_git;
	p.write = writable + n_writable;
	p.read_host = f->read_host.v;

	for (size_t i = 0; i < f->write.n; i++)
		((const char **)p.write)[i] = f->write.v[i];

	/* Landlock: read and execute everything, write the roots and the
	 * terminal-ish devices; the private /dev/shm when there is one. */
	{
		size_t k = 0;

		for (size_t i = 0; i < f->write.n; i++)
			writable[k++] = f->write.v[i];
		for (size_t i = 0; (light ? plan_writable_devices_light : plan_writable_devices)[i]; i++) {
			const char *dev = (light ? plan_writable_devices_light : plan_writable_devices)[i];

			/* --no-terminal: output reaches a terminal only through
			 * cordon run's capped relay */
			if (!f->no_terminal || !is_terminal_device(dev))
				writable[k++] = dev;
		}
		if (p.private_tmp)
			writable[k++] = "/dev/shm";
		writable[k] = NULL;
	}
	p.landlock = (struct landlock_rules){
		/* --read: exactly those (the provider names the system's
		 * baseline among them); else everything */
		.readable = f->read.n || f->home_hide.n ? readable : plan_readable_all,
		.writable = writable,
		.exec_gate = f->exec_gate,
		.exec = f->exec.v,
		.shim_dir = f->broker_fd >= 0 && f->shim.n ? BROKER_SHIM_DIR : NULL,
		.deny_exec = f->deny_exec.v,
		.exec_fd = f->exec_fd,
		/* Hidden by omission in every mode: the mounts of full isolation
		 * give an empty view, but a host rename or a store created
		 * during the run is out of their reach; an inode without a rule
		 * is not (under light isolation Landlock is the only layer). */
		.deny_read = denied,
		.deny_absent = f->deny_absent.v,
		.list_walked = !light,
		/* With a network namespace of its own, --net none leaves the
		 * sandbox its own loopback and nothing else: a test suite's
		 * local server may bind and connect there. Without one (light
		 * isolation) 127.0.0.1 is the host's: TCP stays refused. */
		.deny_tcp = light && f->net == CORDON_NET_NONE,
		.scope = true,
		/* The runner's write fence is Landlock: never run without it.
		 * Without a network namespace of the sandbox's own (--net
		 * host, light isolation) the scope alone keeps the host's
		 * abstract unix sockets (and, light, its processes' signals)
		 * out, as explain says: required there, never dropped. */
		.required = REQUIRE_LANDLOCK | (f->required & (REQUIRE_LANDLOCK_NET | REQUIRE_LANDLOCK_SCOPE)) |
			    (light || f->net == CORDON_NET_HOST ? REQUIRE_LANDLOCK_SCOPE : 0),
	};
	/* No network namespace: refuse IP sockets outright (UDP, raw...). */
	p.seccomp = (struct seccomp_opts){
		.deny_inet = light && f->net == CORDON_NET_NONE,
		.deny_memfd = f->exec_gate || f->deny_exec.n > 0,
	};

	if (!light) {
		p.clone_flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID |
				(f->net != CORDON_NET_HOST ? CLONE_NEWNET : 0);
		if ((r = add_step(&p, STEP_NAMESPACES, NULL)) < 0 || (r = add_step(&p, STEP_MAP_IDS, NULL)) < 0)
			goto fail;
		if ((r = add_step(&p, STEP_RO_ROOT, "/")) < 0 || (r = add_step(&p, STEP_DEV, "/dev")) < 0)
			goto fail;
		for (size_t i = 0; plan_private_dirs[i]; i++)
			if ((r = add_step(&p, STEP_TMPFS, plan_private_dirs[i])) < 0)
				goto fail;
		if ((r = add_bind_backs(&p)) < 0)
			goto fail;
		/* HOME's tmpfs goes on once the writable roots below it are
		 * back (they come back from the tree as it is then), before
		 * what protects or hides inside the grants */
		for (size_t i = 0; i < f->home_hide.n; i++)
			if (!plan_in_private_dir(f->home_hide.v[i], strlen(f->home_hide.v[i]), false) &&
			    (r = add_step(&p, STEP_HOME, f->home_hide.v[i])) < 0)
				goto fail;
		r = add_protections(&p, f);
		if (r < 0)
			goto fail;
		for (size_t i = 0; i < f->deny_read.n; i++)
			if ((r = add_step(&p, STEP_HIDE, f->deny_read.v[i])) < 0)
				goto fail;
		if ((r = add_step(&p, STEP_PROC, "/proc")) < 0)
			goto fail;
		if (f->credentials_fd >= 0 && (r = add_step(&p, STEP_TRUST, "/etc/ssl/certs")) < 0)
			goto fail;
		if (f->net != CORDON_NET_HOST && (r = add_step(&p, STEP_LOOPBACK, NULL)) < 0)
			goto fail;
		if ((f->net == CORDON_NET_PROXY || f->net == CORDON_NET_ALLOW) && (r = add_step(&p, STEP_PROXY, NULL)) < 0)
			goto fail;
		if (f->broker_fd >= 0 && (r = add_step(&p, STEP_BROKER, BROKER_DIR)) < 0)
			goto fail;
		if ((r = add_step(&p, STEP_CHDIR, NULL)) < 0 || (r = add_step(&p, STEP_INIT, NULL)) < 0)
			goto fail;
	}
	for (enum step_kind k = STEP_SETSID; k <= STEP_EXEC; k++)
		if ((r = add_step(&p, k, NULL)) < 0)
			goto fail;

	*ret = p;
	return 0;
fail:
	free(blob);
	if (r == -E2BIG)
		return errbuf_set(err, errlen, r, "the plan has too many steps (at most %d)", PLAN_MAX_STEPS);
	return errbuf_set(err, errlen, r, "cannot build the plan: %s", strerror(-r));
}

int plan_compile(const struct exec_flags *f, struct plan *ret, char *err, size_t errlen)
{
	return compile(f, f->isolation == CORDON_ISOLATION_LIGHT, ret, err, errlen);
}
