/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cordon/cordon.h"

/*
 * The runner's command line: `cordon exec [FLAG...] -- COMMAND [ARG...]`.
 * Every flag is a word, so the line reads as the plan it asks for (like
 * bwrap's). Parsing is strict (unknown flag, missing value, a repeated
 * single-valued flag, a malformed path or name: an error naming the flag)
 * and bounded (counts and lengths are capped). Nothing is copied: the lists
 * point into argv, which must outlive the result.
 */

#define EXEC_MAX_LIST   1024            /* entries per repeatable flag */
#define EXEC_MAX_PATH   4095            /* bytes in one path */
#define EXEC_MAX_NAME   256             /* bytes in one variable name */
#define EXEC_MAX_STATUS_FD 65535        /* highest --status-fd and --exec-fd */

struct exec_seen;

struct exec_list {
	const char **v;                 /* NULL-terminated; points into argv */
	size_t n;
	size_t cap;                     /* slots in v, the NULL included */
	struct exec_seen *seen;         /* the parse's table of what every list holds (parse.c) */
};

struct exec_flags {
	enum cordon_isolation isolation;  /* --isolation full|light (default full) */
	enum cordon_net net;              /* --net none|host|proxy (default none) */
	bool private_tmp;                 /* --private-tmp: fresh tmpfs on /tmp and /dev/shm */
	bool report;                      /* --report: one "cordon-report:" line on stderr before execve */
	bool no_terminal;                 /* --no-terminal: terminals are not writable */
	bool pty;                         /* --pty: a pseudo-terminal of its own, relayed by the runner (terminal.h) */
	bool help;                        /* --help: nothing else is read */
	struct exec_list write;           /* --write PATH: writable root (a directory or a file) */
	struct exec_list read;            /* --read PATH: with any, only these (and the writable roots) are readable */
	struct exec_list exec;            /* --exec PATH: the execute-only gate: only these are executable */
	bool exec_gate;                   /* --exec-gate, or any --exec: the gate is on (with no --exec: nothing
					   * but the --exec-fd file is executable) */
	struct exec_list deny_exec;       /* --deny-exec PATH: never executable, though readable */
	int exec_fd;                      /* --exec-fd N: run the command from this open file (execveat); -1: none */
	struct exec_list deny_read;       /* --deny-read PATH: hidden */
	struct exec_list deny_absent;     /* --deny-read-absent PATH: did not exist when the policy was built:
					   * hidden by Landlock omission only (no stand-in to mount) */
	struct exec_list read_host;       /* --read-host PATH: the host's PATH below a private tmpfs, read-only */
	/* the HOME allowlist (mount_home.c): each --home-hide DIR is covered by
	 * an empty tmpfs (full isolation) and withheld by Landlock; below it
	 * only the --home-grant paths come back (bound, as the tree has them),
	 * each --home-link symlink is made again, each --home-filtered file is
	 * a filtered copy (home_filter.h) made by init before the tmpfs went on */
	struct exec_list home_hide;
	struct exec_list home_grant;
	struct exec_list home_link;
	struct exec_list home_filtered;
	struct exec_list protect;         /* --protect PATH: read-only even under a writable root; PATH may end in '*' */
	struct exec_list protect_name;    /* --protect-name NAME: that name, at any depth below a writable root; may end in '*' */
	struct exec_list unprotect;       /* --unprotect PATH: no name rule applies at or below PATH */
	bool protect_git;                 /* --protect-git: what runs code in every .git below a writable root */
	struct exec_list keep_env;        /* --keep-env NAME (or PREFIX*) */
	struct exec_list setenv;          /* --setenv NAME: passed with its value from the runner's environment */
	struct exec_list allow_unix;      /* --allow-unix-socket PATH: a host socket the unix gate admits */
	struct exec_list allow_domain;    /* --allow-domain H[:PORT] (--net proxy): netrule.h */
	struct exec_list deny_domain;     /* --deny-domain H[:PORT] */
	struct exec_list allow_address;   /* --allow-address A[/N]: answers the proxy may dial despite their class */
	int status_fd;                    /* --status-fd N: failure records go there; -1: none */
	int broker_fd;                    /* --broker-fd N: the supervisor's socket (broker.h); -1: none */
	int credentials_fd;               /* --credentials-fd N: the proxy's credential table (trust.h); -1: none */
	int end_fd;                       /* --end-fd N: init's word that the sandbox has ended (init_end); 0: none */
	int serve_fd;                     /* --serve-fd N: cordon serve's socket (serve.h); 0: none */
	const char *shim_path;            /* --shim-path PATH: the program every --shim name runs */
	struct exec_list shim;            /* --shim NAME: a controlled command, in /run/cordon/bin */
	unsigned required;                /* --require FEATURE: REQUIRE_* from policy.h */
	char *const *command;             /* after "--"; never empty on success */
	void *storage;                    /* one allocation behind the lists */
	char **plan_argv;                 /* --plan-fd: the line with the plan's words spliced in */
	char *plan_buf;                   /* --plan-fd: the plan's words, which the lists point into */
};

/* Parse argv (argv[0] is "exec"). 0, or -EINVAL / -E2BIG / -ENAMETOOLONG /
 * -ENOMEM with a one-line reason in err. On failure *ret holds nothing to
 * free, but ret->status_fd is set when the line names a valid one, so the
 * failure can still be reported there. `--plan-fd N` before the `--`: the
 * flags in the sealed memfd at N (plan_fd.c) are read in its place. */
int exec_parse(int argc, char *const *argv, struct exec_flags *ret, char *err, size_t errlen);
void exec_flags_done(struct exec_flags *f);

/* plan_fd.c: argv with the words of the sealed memfd named by argv[pos +
 * 1] (argv[pos] is "--plan-fd") in place of the two; the memfd is closed. */
struct plan_fd_line {
	int argc;
	char **argv;      /* points into argv and buf */
	char *buf;
};
int plan_fd_splice(int argc, char *const *argv, int pos, struct plan_fd_line *ret, char *err, size_t errlen);

/* Names <-> REQUIRE_* bits ("landlock-net" <-> REQUIRE_LANDLOCK_NET). */

/* Checks shared with the plan and the provider. */
bool exec_path_is_normal(const char *p);         /* absolute, no "//", ".", "..", trailing '/' */
