/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The runner's flag parser. Strict and bounded: it is the boundary between
 * whatever built the command line and the code that applies it, so anything
 * it does not understand is an error, never a guess.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broker_proto.h"
#include "cordon/runner.h"
#include "errbuf.h"
#include "fnv.h"
#include "netproxy.h"
#include "parse.h"
#include "policy.h"

const char cordon_exec_usage[] =
	"usage: cordon exec [FLAG...] -- COMMAND [ARG...]\n"
	"\n"
	"The native runner: applies the plan its flags spell out, then executes COMMAND.\n"
	"With no flags: read-only, no network, full isolation, scrubbed environment.\n"
	"\n"
	"  --isolation full|light  full: user, mount, pid (and, for --net none, network)\n"
	"                          namespaces + Landlock + seccomp; light: Landlock + seccomp only\n"
	"  --net none|host|proxy   none: the sandbox's own loopback only (light: no IP at all); proxy: loopback,\n"
	"                          and cordon's proxy (HTTP 127.0.0.1:3128, SOCKS5 :1080) the\n"
	"                          only way out, for the hosts the rules below admit\n"
	"  --allow-domain H        (--net proxy) the proxy connects to H, H:PORT, or *.H\n"
	"                          (subdomains of H only); an empty list admits nothing\n"
	"  --deny-domain H         (--net proxy) never H; checked before the allow list\n"
	"  --allow-address A[/N]   (--net proxy) an answer in A may be dialled although it is\n"
	"                          loopback, private, link-local, metadata... (never by name alone)\n"
	"  --write PATH            PATH (absolute; a directory or a file) is writable; repeatable\n"
	"  --read PATH             with any: only the --read paths (files or directories) and the\n"
	"                          writable roots are readable, nothing else; repeatable\n"
	"  --exec PATH             the execute-only gate: only the --exec paths (files or\n"
	"                          directories, readable too) can be executed; nothing the sandbox\n"
	"                          writes can (it is mounted noexec, and executable memfds are\n"
	"                          refused); a script run as `sh FILE` is read, not executed;\n"
	"                          repeatable (full isolation)\n"
	"  --exec-gate             the gate on even without --exec: only the --exec-fd file runs\n"
	"  --deny-exec PATH        PATH can never be executed, though it stays readable; so can\n"
	"                          nothing created or renamed in its directory later (full isolation)\n"
	"  --exec-fd N             run the command from the file open at fd N (execveat: exactly\n"
	"                          that file, whatever its path names now; argv as given); it may\n"
	"                          be read and executed whatever the gate says; a script runs by\n"
	"                          its absolute argv[0] while that names the same file ($0), else\n"
	"                          keeps N open (its interpreter reads /dev/fd/N)\n"
	"  --private-tmp           fresh tmpfs on /tmp and /dev/shm (full isolation); writable\n"
	"                          roots below /tmp are bound back in\n"
	"  --no-terminal           no write access to terminals (/dev/tty, /dev/pts, /dev/ptmx):\n"
	"                          cordon run caps the output and relays stdin itself\n"
	"  --pty                   the command's stdin, stdout, stderr and controlling terminal\n"
	"                          are a pseudo-terminal of its own (full isolation: of the\n"
	"                          sandbox's devpts; light: the host's /dev/ptmx); the runner\n"
	"                          relays its stdin to it and its output to the runner's stderr,\n"
	"                          with its own terminal in raw mode meanwhile\n"
	"  --plan-fd N             read the flags from the sealed memfd at fd N (the words, each\n"
	"                          ended by a NUL; sealed against write, grow, shrink and seal,\n"
	"                          or refused), as if they stood here; cordon's own launches\n"
	"                          pass their plan so\n"
	"  --deny-read PATH        hide PATH: an empty, inaccessible directory or /dev/null\n"
	"  --deny-read-absent PATH PATH did not exist when the policy was built: whatever is\n"
	"                          made there is unreadable (Landlock omission; no stand-in)\n"
	"  --read-host PATH        the host's PATH below /tmp or /dev/shm, which the private\n"
	"                          tmpfs would hide, bound back read-only; repeatable\n"
	"  --home-hide DIR         the HOME allowlist: DIR is an empty tmpfs (full) and\n"
	"                          unreadable (Landlock) but for the paths granted below\n"
	"  --home-grant PATH       below a --home-hide DIR: PATH is bound back as it is\n"
	"  --home-link PATH        below a --home-hide DIR: the symlink PATH is made again\n"
	"  --home-filtered PATH    below a --home-hide DIR: a copy of PATH without its\n"
	"                          credential-bearing keys (full isolation only)\n"
	"  --protect PATH          keep PATH read-only even below a writable root, also when it\n"
	"                          does not exist yet; PATH ending in '*' protects every existing\n"
	"                          entry with that prefix (full isolation)\n"
	"  --protect-name NAME     no entry called NAME (or starting with NAME*) can be made,\n"
	"                          replaced, renamed, linked or written, nor anything below it,\n"
	"                          at any depth below a writable root (full isolation)\n"
	"  --protect-git           the same for what makes git run code, in every .git below a\n"
	"                          writable root: the .git entry itself, and its config,\n"
	"                          config.worktree, commondir, gitdir, hooks and info (also in\n"
	"                          modules/ and worktrees/; not in objects, refs or logs)\n"
	"  --unprotect PATH        no --protect-name or --protect-git rule applies at or below PATH\n"
	"  --keep-env NAME         pass NAME (or every NAME with a PREFIX*) from the environment\n"
	"  --setenv NAME           pass NAME with its value from this runner's environment\n"
	"                          (whatever the allow-list says; never a value in this line)\n"
	"  --status-fd N           report a setup failure as one line 'STEP<TAB>ERRNO<TAB>MESSAGE'\n"
	"                          on fd N (nothing written: the runner did not fail); the\n"
	"                          command never inherits N\n"
	"  --end-fd N              under full isolation, once the command and everything it\n"
	"                          started have ended, write their wait status (4 bytes) on\n"
	"                          fd N, before the namespaces' teardown (not with --pty or\n"
	"                          a proxy); the command never inherits N\n"
	"  --require FEATURE       refuse to run without FEATURE: landlock, landlock-net,\n"
	"                          landlock-scope, seccomp, userns, pidns, netns\n"
	"  --allow-unix-socket PATH  under full isolation and --net none, connecting to a unix\n"
	"                          socket a host process bound is refused, except to PATH's\n"
	"                          socket (compared by inode at connect time); repeatable\n"
	"  --report                print one 'cordon-report:' line on stderr before execve\n"
	"  --broker-fd N           (full isolation) the tool sandbox's broker: a socket in the\n"
	"                          sandbox's private /run (/run/cordon/broker) whose listener\n"
	"                          goes to the supervisor over fd N; /run/cordon/bin, read-only,\n"
	"                          first on PATH, holds one bind of --shim-path per --shim NAME\n"
	"  --shim-path PATH        (with --broker-fd) the shim program\n"
	"  --credentials-fd N      (--net proxy) the credential table for the proxy (from cordon's\n"
	"                          supervisor); the sandbox trusts its session CA\n"
	"  --shim NAME             (with --broker-fd) a controlled command's name; repeatable\n"
	"  --serve-fd N            cordon serve: instead of running COMMAND, one confined server\n"
	"                          forks a command per request read from the socket at fd N\n"
	"                          (the same mounts, Landlock and seccomp for each; serve.h)\n"
	"\n"
	"A setup failure prints 'cordon: STEP: REASON' and exits 125 (and, with --status-fd,\n"
	"writes its record): the line is for people, the record is what callers trust.\n"
	"A command that cannot be executed exits 126, one that does not exist 127 (as in a\n"
	"shell), with the same line and record (step execve).\n";

/* N of --status-fd: decimal, 3 to EXEC_MAX_STATUS_FD (0-2 are stdio). */
static int parse_status_fd(const char *s, int *ret)
{
	long v = 0;

	if (!s[0] || strlen(s) > 5)
		return -EINVAL;
	for (const char *c = s; *c; c++) {
		if (*c < '0' || *c > '9')
			return -EINVAL;
		v = v * 10 + (*c - '0');
	}
	if (v <= 2 || v > EXEC_MAX_STATUS_FD)
		return -EINVAL;
	*ret = (int)v;
	return 0;
}

bool exec_path_is_normal(const char *p)
{
	if (p[0] != '/')
		return false;
	if (p[1] == '\0')
		return true;
	for (const char *c = p; *c; c++) {
		if (*c != '/')
			continue;
		/* c starts a component: it must be non-empty, not "." or ".." */
		if (c[1] == '/' || c[1] == '\0')
			return false;
		if (c[1] == '.' && (c[2] == '/' || c[2] == '\0'))
			return false;
		if (c[1] == '.' && c[2] == '.' && (c[3] == '/' || c[3] == '\0'))
			return false;
	}
	return true;
}

/* Show at most this much of an offending value in a message. */
#define SHOW 64

enum {
	SEEN_ISOLATION = 1u << 0,
	SEEN_NET = 1u << 1,
	SEEN_PRIVATE_TMP = 1u << 2,
	SEEN_REPORT = 1u << 3,
	SEEN_STATUS_FD = 1u << 4,
	SEEN_NO_TERMINAL = 1u << 5,
	SEEN_PROTECT_GIT = 1u << 6,
	SEEN_EXEC_GATE = 1u << 7,
	SEEN_EXEC_FD = 1u << 8,
	SEEN_BROKER_FD = 1u << 9,
	SEEN_CREDENTIALS_FD = 1u << 30,
	SEEN_PTY = 1u << 10,
	SEEN_END_FD = 1u << 11,
};

/* What the lists hold, by (list, value): a repeat is found in one probe or
 * two, not by comparing with every entry of its list (the default plan
 * has ~80 --deny-read-absent and ~60 --protect values: thousands of
 * strcmp a launch). Open addressing, at most half full: a slot per
 * argument, twice over. */
struct exec_seen {
	size_t mask;
	struct {
		const struct exec_list *l;
		const char *s;
	} slot[];
};

static size_t seen_capacity(size_t values)
{
	size_t cap = 64;

	while (cap < 2 * (values + 1))
		cap *= 2;
	return cap;
}

/* true when l holds s already; otherwise s is noted as l's */
static bool seen_add(struct exec_seen *t, const struct exec_list *l, const char *s)
{
	size_t i = (size_t)(fnv1a_str(s) ^ ((uintptr_t)l * 0x9e3779b97f4a7c15ull)) & t->mask;

	for (; t->slot[i].s; i = (i + 1) & t->mask)
		if (t->slot[i].l == l && strcmp(t->slot[i].s, s) == 0)
			return true;
	t->slot[i].l = l;
	t->slot[i].s = s;
	return false;
}

static int list_add(struct exec_list *l, const char *flag, const char *s, char *err, size_t errlen)
{
	if (l->n >= EXEC_MAX_LIST) {
		for (size_t i = 0; i < l->n; i++)
			if (strcmp(l->v[i], s) == 0)
				return 0; /* a repeat changes nothing */
		return errbuf_set(err, errlen, -E2BIG, "%s: too many (at most %d)", flag, EXEC_MAX_LIST);
	}
	if (seen_add(l->seen, l, s))
		return 0; /* a repeat changes nothing */
	/* room: parse_line counted the flag's values first (flag_list) */
	if (l->n + 1 >= l->cap)
		return errbuf_set(err, errlen, -E2BIG, "%s: more values than the line was counted to hold", flag);
	l->v[l->n++] = s;
	l->v[l->n] = NULL;
	return 0;
}

/* A '*' is literal everywhere but at the end of a --protect path, where it
 * makes the last component a prefix. */
static int check_path(const char *flag, const char *p, char *err, size_t errlen)
{
	size_t n = strnlen(p, EXEC_MAX_PATH + 1);

	if (n > EXEC_MAX_PATH)
		return errbuf_set(err, errlen, -ENAMETOOLONG, "%s: path longer than %d bytes", flag, EXEC_MAX_PATH);
	if (!exec_path_is_normal(p))
		return errbuf_set(err, errlen, -EINVAL,
			    "%s: '%.*s' is not an absolute, normalised path (no '//', '.', '..' or trailing '/')",
			    flag, SHOW, p);
	if (strcmp(p, "/") == 0)
		return errbuf_set(err, errlen, -EINVAL, "%s: '/' is not allowed here", flag);
	return 0;
}

/* The flags that take a value, each by an id: one lookup per argument, then
 * a comparison of ids (the default plan has ~200 flags, and a chain of
 * strcmp for each cost more than the rest of the parse). The most frequent
 * in a provider's line first. */
enum flag_id {
	F_DENY_READ_ABSENT,
	F_PROTECT,
	F_PROTECT_NAME,
	F_DENY_READ,
	F_WRITE,
	F_KEEP_ENV,
	F_SETENV,
	F_HOME_HIDE,
	F_HOME_GRANT,
	F_HOME_LINK,
	F_HOME_FILTERED,
	F_READ,
	F_EXEC,
	F_DENY_EXEC,
	F_READ_HOST,
	F_UNPROTECT,
	F_ALLOW_UNIX_SOCKET,
	F_ALLOW_DOMAIN,
	F_DENY_DOMAIN,
	F_ALLOW_ADDRESS,
	F_SHIM,
	F_SHIM_PATH,
	F_ISOLATION,
	F_NET,
	F_STATUS_FD,
	F_EXEC_FD,
	F_BROKER_FD,
	F_CREDENTIALS_FD,
	F_SERVE_FD,
	F_REQUIRE,
	F_PLAN_FD,
	F_END_FD,
};

static const struct flag_def {
	const char *name;
	unsigned char len;
	unsigned char id;
} flag_defs[] = {
#define FLAG(name, id) { name, sizeof(name) - 1, id }
	FLAG("--deny-read-absent", F_DENY_READ_ABSENT),
	FLAG("--protect", F_PROTECT),
	FLAG("--protect-name", F_PROTECT_NAME),
	FLAG("--deny-read", F_DENY_READ),
	FLAG("--write", F_WRITE),
	FLAG("--keep-env", F_KEEP_ENV),
	FLAG("--setenv", F_SETENV),
	FLAG("--home-hide", F_HOME_HIDE),
	FLAG("--home-grant", F_HOME_GRANT),
	FLAG("--home-link", F_HOME_LINK),
	FLAG("--home-filtered", F_HOME_FILTERED),
	FLAG("--read", F_READ),
	FLAG("--exec", F_EXEC),
	FLAG("--deny-exec", F_DENY_EXEC),
	FLAG("--read-host", F_READ_HOST),
	FLAG("--unprotect", F_UNPROTECT),
	FLAG("--allow-unix-socket", F_ALLOW_UNIX_SOCKET),
	FLAG("--allow-domain", F_ALLOW_DOMAIN),
	FLAG("--deny-domain", F_DENY_DOMAIN),
	FLAG("--allow-address", F_ALLOW_ADDRESS),
	FLAG("--shim", F_SHIM),
	FLAG("--shim-path", F_SHIM_PATH),
	FLAG("--isolation", F_ISOLATION),
	FLAG("--net", F_NET),
	FLAG("--status-fd", F_STATUS_FD),
	FLAG("--exec-fd", F_EXEC_FD),
	FLAG("--broker-fd", F_BROKER_FD),
	FLAG("--credentials-fd", F_CREDENTIALS_FD),
	FLAG("--serve-fd", F_SERVE_FD),
	FLAG("--require", F_REQUIRE),
	FLAG("--plan-fd", F_PLAN_FD),
	FLAG("--end-fd", F_END_FD),
#undef FLAG
};

/* a's id, or -1: not a flag that takes a value */
static int flag_lookup(const char *a)
{
	size_t n;

	if (a[0] != '-' || a[1] != '-')
		return -1;
	n = strnlen(a, 32);
	for (size_t i = 0; i < sizeof(flag_defs) / sizeof(flag_defs[0]); i++)
		if (flag_defs[i].len == n && memcmp(flag_defs[i].name + 2, a + 2, n - 2) == 0)
			return flag_defs[i].id;
	return -1;
}

/* The list a repeatable flag's values go to, or NULL (a flag taken once). */
static struct exec_list *flag_list(struct exec_flags *f, int id)
{
	switch (id) {
	case F_WRITE: return &f->write;
	case F_DENY_READ: return &f->deny_read;
	case F_PROTECT: return &f->protect;
	case F_DENY_READ_ABSENT: return &f->deny_absent;
	case F_READ_HOST: return &f->read_host;
	case F_HOME_HIDE: return &f->home_hide;
	case F_HOME_GRANT: return &f->home_grant;
	case F_HOME_LINK: return &f->home_link;
	case F_HOME_FILTERED: return &f->home_filtered;
	case F_READ: return &f->read;
	case F_EXEC: return &f->exec;
	case F_DENY_EXEC: return &f->deny_exec;
	case F_UNPROTECT: return &f->unprotect;
	case F_PROTECT_NAME: return &f->protect_name;
	case F_ALLOW_UNIX_SOCKET: return &f->allow_unix;
	case F_ALLOW_DOMAIN: return &f->allow_domain;
	case F_DENY_DOMAIN: return &f->deny_domain;
	case F_ALLOW_ADDRESS: return &f->allow_address;
	case F_KEEP_ENV: return &f->keep_env;
	case F_SETENV: return &f->setenv;
	case F_SHIM: return &f->shim;
	default: return NULL;
	}
}

/* An fd-number flag (--status-fd and its kind): once, 3 to EXEC_MAX_STATUS_FD. */
static int fd_flag(const char *flag, const char *value, unsigned *seen, unsigned bit, int *ret, char *err,
		   size_t errlen)
{
	if (*seen & bit)
		return errbuf_set(err, errlen, -EINVAL, "%s given twice", flag);
	*seen |= bit;
	if (parse_status_fd(value, ret) < 0)
		return errbuf_set(err, errlen, -EINVAL, "%s: '%.*s' is not an fd number from 3 to %d", flag, SHOW, value,
				  EXEC_MAX_STATUS_FD);
	return 0;
}

static int parse_flag(struct exec_flags *f, unsigned *seen, int id, const char *flag, const char *value,
		      char *err, size_t errlen)
{
	struct exec_list *list = flag_list(f, id);
	unsigned bit;
	int r;

	if (id == F_ISOLATION) {
		if (*seen & SEEN_ISOLATION)
			return errbuf_set(err, errlen, -EINVAL, "--isolation given twice");
		*seen |= SEEN_ISOLATION;
		if (cordon_isolation_from_string(value, &f->isolation) < 0)
			return errbuf_set(err, errlen, -EINVAL, "--isolation: '%.*s' is not full or light", SHOW, value);
		return 0;
	}
	if (id == F_NET) {
		if (*seen & SEEN_NET)
			return errbuf_set(err, errlen, -EINVAL, "--net given twice");
		*seen |= SEEN_NET;
		if (cordon_net_from_string(value, &f->net) < 0)
			return errbuf_set(err, errlen, -EINVAL, "--net: '%.*s' is not none, host or proxy", SHOW, value);
		return 0;
	}
	if (id == F_WRITE || id == F_DENY_READ || id == F_PROTECT || id == F_DENY_READ_ABSENT) {
		r = check_path(flag, value, err, errlen);
		if (r < 0)
			return r;
		return list_add(list, flag, value, err, errlen);
	}
	if (id == F_READ_HOST) {
		r = check_path(flag, value, err, errlen);
		if (r < 0)
			return r;
		return list_add(list, flag, value, err, errlen);
	}
	if (id == F_HOME_HIDE || id == F_HOME_GRANT || id == F_HOME_LINK || id == F_HOME_FILTERED) {
		r = check_path(flag, value, err, errlen);
		if (r < 0)
			return r;
		return list_add(list, flag, value, err, errlen);
	}
	if (id == F_READ || id == F_EXEC || id == F_DENY_EXEC) {
		r = check_path(flag, value, err, errlen);
		if (r < 0)
			return r;
		if (id == F_EXEC)
			f->exec_gate = true;
		return list_add(list, flag, value, err, errlen);
	}
	if (id == F_EXEC_FD) {
		if (*seen & SEEN_EXEC_FD)
			return errbuf_set(err, errlen, -EINVAL, "--exec-fd given twice");
		*seen |= SEEN_EXEC_FD;
		if (parse_status_fd(value, &f->exec_fd) < 0)
			return errbuf_set(err, errlen, -EINVAL, "--exec-fd: '%.*s' is not an fd number from 3 to %d",
				    SHOW, value, EXEC_MAX_STATUS_FD);
		return 0;
	}
	if (id == F_UNPROTECT) {
		r = check_path(flag, value, err, errlen);
		if (r < 0)
			return r;
		return list_add(list, flag, value, err, errlen);
	}
	if (id == F_PROTECT_NAME) {
		size_t n = strnlen(value, NAME_MAX + 1);

		if (n == 0 || n > NAME_MAX || strchr(value, '/') || strcmp(value, ".") == 0 || strcmp(value, "..") == 0 ||
		    strcmp(value, "*") == 0 || (strchr(value, '*') && strchr(value, '*') != value + n - 1))
			return errbuf_set(err, errlen, -EINVAL,
				    "--protect-name: '%.*s' is not one file name (no '/', '.' or '..'; '*' only at the end "
				    "of a prefix)",
				    SHOW, value);
		return list_add(list, flag, value, err, errlen);
	}
	if (id == F_ALLOW_UNIX_SOCKET) {
		r = check_path(flag, value, err, errlen);
		if (r < 0)
			return r;
		return list_add(list, flag, value, err, errlen);
	}
	if (id == F_ALLOW_DOMAIN || id == F_DENY_DOMAIN ||
	    id == F_ALLOW_ADDRESS) {
		r = netproxy_check_rule(flag, value, err, errlen);
		if (r < 0)
			return r;
		return list_add(list, flag, value, err, errlen);
	}
	if (id == F_KEEP_ENV) {
		if (!env_name_valid(value, true))
			return errbuf_set(err, errlen, -EINVAL,
				    "--keep-env: '%.*s' is not a variable name (letters, digits, '_'; may end in '*')",
				    SHOW, value);
		if (env_name_is_injection(value))
			return errbuf_set(err, errlen, -EPERM,
				    "--keep-env: refusing %s: it makes a loader or interpreter run code chosen from outside",
				    value);
		return list_add(list, flag, value, err, errlen);
	}
	if (id == F_SETENV) {
		/* A value here would be readable by every local user in
		 * /proc/PID/cmdline: the value comes from our environment. */
		if (strchr(value, '='))
			return errbuf_set(err, errlen, -EINVAL,
				    "--setenv: give a NAME, not NAME=VALUE: the value is taken from the runner's "
				    "environment (a command line is readable by every local user)");
		if (strnlen(value, EXEC_MAX_NAME + 1) > EXEC_MAX_NAME || !env_name_valid(value, false))
			return errbuf_set(err, errlen, -EINVAL, "--setenv: '%.*s' is not a variable name", SHOW, value);
		if (env_name_is_injection(value))
			return errbuf_set(err, errlen, -EPERM,
				    "--setenv: refusing %s: it makes a loader or interpreter run code chosen from outside",
				    value);
		if (env_name_is_proxy(value))
			return errbuf_set(err, errlen, -EPERM, "--setenv: refusing %s: cordon sets %s itself: " POLICY_PROXY_ENV_WHY,
					  value, value);
		return list_add(list, flag, value, err, errlen);
	}
	if (id == F_STATUS_FD)
		return fd_flag(flag, value, seen, SEEN_STATUS_FD, &f->status_fd, err, errlen);
	if (id == F_BROKER_FD)
		return fd_flag(flag, value, seen, SEEN_BROKER_FD, &f->broker_fd, err, errlen);
	if (id == F_END_FD)
		return fd_flag(flag, value, seen, SEEN_END_FD, &f->end_fd, err, errlen);
	if (id == F_CREDENTIALS_FD)
		return fd_flag(flag, value, seen, SEEN_CREDENTIALS_FD, &f->credentials_fd, err, errlen);
	if (id == F_SERVE_FD) {
		if (f->serve_fd > 0)
			return errbuf_set(err, errlen, -EINVAL, "--serve-fd given twice");
		if (parse_status_fd(value, &f->serve_fd) < 0)
			return errbuf_set(err, errlen, -EINVAL, "--serve-fd: '%.*s' is not an fd number from 3 to %d",
				    SHOW, value, EXEC_MAX_STATUS_FD);
		return 0;
	}
	if (id == F_SHIM_PATH) {
		if (f->shim_path)
			return errbuf_set(err, errlen, -EINVAL, "--shim-path given twice");
		r = check_path(flag, value, err, errlen);
		if (r < 0)
			return r;
		f->shim_path = value;
		return 0;
	}
	if (id == F_SHIM) {
		if (!broker_name_valid(value))
			return errbuf_set(err, errlen, -EINVAL,
				    "--shim: '%.*s' is not a command name (no '/', spaces or control characters; not "
				    "starting with '.' or '-')",
				    SHOW, value);
		return list_add(list, flag, value, err, errlen);
	}
	if (id == F_REQUIRE) {
		if (require_feature_from_string(value, &bit) < 0)
			return errbuf_set(err, errlen, -EINVAL,
				    "--require: unknown feature '%.*s' (known: landlock, landlock-net, landlock-scope, "
				    "seccomp, userns, pidns, netns)",
				    SHOW, value);
		f->required |= bit;
		return 0;
	}
	if (id == F_PLAN_FD)
		return errbuf_set(err, errlen, -EINVAL, "--plan-fd given twice");
	return errbuf_set(err, errlen, -EINVAL, "unknown flag '%.*s' (see cordon exec --help)", SHOW, flag);
}

static bool takes_value(const char *flag)
{
	return flag_lookup(flag) >= 0;
}

/* The status fd the line names, for reporting a failure to parse it: the
 * first well-formed --status-fd among the flags (values skipped), or -1. */
static int status_fd_scan(int argc, char *const *argv)
{
	int fd;

	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (!takes_value(argv[i]))
			continue;
		if (i + 1 < argc && strcmp(argv[i], "--status-fd") == 0 && parse_status_fd(argv[i + 1], &fd) == 0)
			return fd;
		i++;
	}
	return -1;
}

void exec_flags_done(struct exec_flags *f)
{
	free(f->storage);
	free(f->plan_argv);
	free(f->plan_buf);
	*f = (struct exec_flags){};
}

static int parse_line(int argc, char *const *argv, struct exec_flags *ret, char *err, size_t errlen);

/* Where "--plan-fd" is among the flags (before "--"), or -1. */
static int plan_fd_position(int argc, char *const *argv)
{
	for (int i = 1; i < argc && argv[i] && strcmp(argv[i], "--") != 0; i++) {
		int id = flag_lookup(argv[i]);

		if (id == F_PLAN_FD)
			return i;
		if (id >= 0)
			i++;
	}
	return -1;
}

int exec_parse(int argc, char *const *argv, struct exec_flags *ret, char *err, size_t errlen)
{
	struct plan_fd_line line;
	int pos = argc >= 1 && argv ? plan_fd_position(argc, argv) : -1, r;

	if (pos < 0)
		return parse_line(argc, argv, ret, err, errlen);
	if (err && errlen)
		err[0] = '\0';
	r = plan_fd_splice(argc, argv, pos, &line, err, errlen);
	if (r < 0) {
		*ret = (struct exec_flags){ .status_fd = status_fd_scan(argc, argv), .exec_fd = -1, .broker_fd = -1,
					     .credentials_fd = -1 };
		return r;
	}
	r = parse_line(line.argc, line.argv, ret, err, errlen);
	if (r < 0 || ret->help) {
		/* the lists point into the line: nothing of it is kept */
		int status_fd = ret->status_fd;

		if (r >= 0)
			exec_flags_done(ret);
		free(line.argv);
		free(line.buf);
		*ret = (struct exec_flags){ .status_fd = status_fd, .exec_fd = -1, .broker_fd = -1, .credentials_fd = -1,
					     .help = r >= 0 };
		return r;
	}
	ret->plan_argv = line.argv;
	ret->plan_buf = line.buf;
	return 0;
}

static int parse_line(int argc, char *const *argv, struct exec_flags *ret, char *err, size_t errlen)
{
	struct exec_flags f = {
		.isolation = CORDON_ISOLATION_FULL, .net = CORDON_NET_NONE, .status_fd = -1, .exec_fd = -1,
		.broker_fd = -1, .credentials_fd = -1,
	};
	struct exec_list *lists[] = { &f.write,        &f.deny_read,   &f.protect,       &f.keep_env,
				      &f.setenv,       &f.allow_unix,  &f.protect_name,  &f.unprotect,
				      &f.allow_domain, &f.deny_domain, &f.allow_address, &f.read,
				      &f.exec,         &f.deny_exec,   &f.shim,          &f.read_host,
				      &f.deny_absent,  &f.home_hide,   &f.home_grant,    &f.home_link,
				      &f.home_filtered };
	size_t counted[sizeof(lists) / sizeof(lists[0])] = { 0 }, values = 0, n_slots = 0, cap;
	struct exec_seen *table;
	unsigned seen = 0;
	bool dashdash = false;
	const char **slots;
	int i, r;

	if (err && errlen)
		err[0] = '\0';
	if (argc < 1 || !argv || !argv[0])
		return errbuf_set(err, errlen, -EINVAL, "no arguments");

	/* Each list gets the slots its flag's values can fill, counted first
	 * (the walk below takes the line the same way: a flag and its value,
	 * up to "--"): one allocation of about what is used, where a slot per
	 * argument in each of the 21 lists (the default plan's ~430) spread
	 * their first entries over some 18 fresh pages, a page fault each in
	 * the runner's start. */
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		int id = flag_lookup(argv[i]);
		struct exec_list *l;

		if (id < 0)
			continue;
		l = flag_list(&f, id);
		for (size_t k = 0; l && k < sizeof(lists) / sizeof(lists[0]); k++)
			if (lists[k] == l && counted[k] < EXEC_MAX_LIST) {
				counted[k]++;
				values++;
			}
		i++;
	}
	for (size_t k = 0; k < sizeof(lists) / sizeof(lists[0]); k++)
		n_slots += counted[k] + 1;
	cap = seen_capacity(values);
	/* the table of what the lists hold after the slots, zeroed: the same
	 * allocation, freed with them */
	slots = malloc(n_slots * sizeof(char *) + sizeof(struct exec_seen) + cap * sizeof(table->slot[0]));
	if (!slots) {
		*ret = (struct exec_flags){ .status_fd = status_fd_scan(argc, argv), .exec_fd = -1, .broker_fd = -1,
					     .credentials_fd = -1 };
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	}
	table = (struct exec_seen *)(slots + n_slots);
	memset(table, 0, sizeof(*table) + cap * sizeof(table->slot[0]));
	table->mask = cap - 1;
	for (size_t l = 0, at = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
		lists[l]->v = slots + at;
		lists[l]->v[0] = NULL;
		lists[l]->cap = counted[l] + 1;
		lists[l]->seen = table;
		at += counted[l] + 1;
	}
	f.storage = slots;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		int id = flag_lookup(a);

		if (id >= 0) {
			if (i + 1 >= argc) {
				r = errbuf_set(err, errlen, -EINVAL, "%s needs a value", a);
				goto fail;
			}
			r = parse_flag(&f, &seen, id, a, argv[i + 1], err, errlen);
			if (r < 0)
				goto fail;
			i++;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			dashdash = true;
			i++;
			break;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			f.help = true;
			*ret = f;
			return 0;
		}
		if (strcmp(a, "--private-tmp") == 0 || strcmp(a, "--report") == 0 || strcmp(a, "--no-terminal") == 0 ||
		    strcmp(a, "--protect-git") == 0 || strcmp(a, "--exec-gate") == 0) {
			unsigned bit = a[2] == 'r' ? SEEN_REPORT
				     : a[2] == 'n' ? SEEN_NO_TERMINAL
				     : a[2] == 'e' ? SEEN_EXEC_GATE
				     : a[4] == 'o' ? SEEN_PROTECT_GIT
						   : SEEN_PRIVATE_TMP;

			if (seen & bit) {
				r = errbuf_set(err, errlen, -EINVAL, "%s given twice", a);
				goto fail;
			}
			seen |= bit;
			if (bit == SEEN_PRIVATE_TMP)
				f.private_tmp = true;
			else if (bit == SEEN_REPORT)
				f.report = true;
			else if (bit == SEEN_PROTECT_GIT)
				f.protect_git = true;
			else if (bit == SEEN_EXEC_GATE)
				f.exec_gate = true;
			else
				f.no_terminal = true;
			continue;
		}
		if (strcmp(a, "--pty") == 0) {
			if (seen & SEEN_PTY) {
				r = errbuf_set(err, errlen, -EINVAL, "%s given twice", a);
				goto fail;
			}
			seen |= SEEN_PTY;
			f.pty = true;
			continue;
		}
		r = errbuf_set(err, errlen, -EINVAL,
			       a[0] == '-' ? "unknown flag '%.*s' (see cordon exec --help)"
					   : "'%.*s': expected a flag or '--' before the command",
			       SHOW, a);
		goto fail;
	}
	if ((f.allow_domain.n || f.deny_domain.n || f.allow_address.n) && f.net != CORDON_NET_PROXY &&
	    f.net != CORDON_NET_ALLOW) {
		r = errbuf_set(err, errlen, -EINVAL, "--allow-domain, --deny-domain and --allow-address need --net proxy or allow");
		goto fail;
	}
	if ((f.shim.n || f.shim_path) && f.broker_fd < 0) {
		r = errbuf_set(err, errlen, -EINVAL, "--shim and --shim-path need --broker-fd");
		goto fail;
	}
	if (f.broker_fd >= 0 && f.shim.n && !f.shim_path) {
		r = errbuf_set(err, errlen, -EINVAL, "--shim needs --shim-path: the program the names run");
		goto fail;
	}
	if (f.broker_fd >= 0 && (f.broker_fd == f.status_fd || f.broker_fd == f.exec_fd)) {
		r = errbuf_set(err, errlen, -EINVAL, "--broker-fd must differ from --status-fd and --exec-fd");
		goto fail;
	}
	if (f.credentials_fd >= 0 && f.net != CORDON_NET_PROXY && f.net != CORDON_NET_ALLOW) {
		r = errbuf_set(err, errlen, -EINVAL, "--credentials-fd needs --net proxy: the proxy spends the credentials");
		goto fail;
	}
	if (f.credentials_fd >= 0 && (f.credentials_fd == f.status_fd || f.credentials_fd == f.exec_fd ||
				      f.credentials_fd == f.broker_fd)) {
		r = errbuf_set(err, errlen, -EINVAL, "--credentials-fd must differ from --status-fd, --exec-fd and --broker-fd");
		goto fail;
	}
	if (f.end_fd > 0 && (f.end_fd == f.status_fd || f.end_fd == f.exec_fd || f.end_fd == f.broker_fd ||
			     f.end_fd == f.credentials_fd || f.end_fd == f.serve_fd)) {
		r = errbuf_set(err, errlen, -EINVAL, "--end-fd must be an fd of its own");
		goto fail;
	}
	if (f.serve_fd > 0 && (f.serve_fd == f.status_fd || f.serve_fd == f.exec_fd || f.serve_fd == f.broker_fd ||
			       f.exec_fd >= 0 || f.broker_fd >= 0)) {
		r = errbuf_set(err, errlen, -EINVAL,
			       "--serve-fd goes without --exec-fd and --broker-fd, on an fd of its own");
		goto fail;
	}
	if (f.exec_fd >= 0 && f.exec_fd == f.status_fd) {
		r = errbuf_set(err, errlen, -EINVAL, "--exec-fd and --status-fd name the same fd %d", f.exec_fd);
		goto fail;
	}
	if (!dashdash || i >= argc) {
		r = errbuf_set(err, errlen, -EINVAL, "no command: expected '-- COMMAND [ARG...]'");
		goto fail;
	}
	if (!argv[i][0]) {
		r = errbuf_set(err, errlen, -EINVAL, "the command name is empty");
		goto fail;
	}
	f.command = argv + i;
	*ret = f;
	return 0;
fail:
	free(slots);
	*ret = (struct exec_flags){ .status_fd = status_fd_scan(argc, argv), .exec_fd = -1, .broker_fd = -1,
					     .credentials_fd = -1 };
	return r;
}
