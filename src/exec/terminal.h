/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * --pty: the command gets a terminal of its own, a pseudo-terminal whose
 * slave is its stdin, stdout, stderr and controlling terminal, and whose
 * master only the runner holds, outside the sandbox. The runner relays its
 * stdin to the master and the master to its stderr (cordon run reads that
 * stream to explain denials), puts its own terminal in raw mode meanwhile
 * (the pty's line discipline does the cooking: ^C, ^Z, ^D, echo), and
 * passes its window size on at start and on every SIGWINCH.
 *
 *   full:  init opens /dev/ptmx of the sandbox's own devpts (so the slave is
 *          /dev/pts/N inside, ttyname and /dev/tty agree, and no terminal of
 *          the host is reachable), keeps the slave as its own stdio (the
 *          runner's terminal never enters the sandbox) and sends the master
 *          to the runner over a socket pair made before the clone.
 *   light: the runner opens the host's /dev/ptmx (there is no devpts of the
 *          sandbox's own): the command holds a fresh pty instead of the
 *          caller's terminal; Landlock lets it write that one node only.
 *
 * The pty starts with the runner's terminal's settings and size. The runner
 * restores its terminal on every exit it makes itself; cordon run restores
 * its saved settings too once the runner has ended (a SIGKILL of the
 * runner), and the runner takes a SIGTERM when cordon run dies (its
 * parent-death signal) to restore it then. Only a SIGKILL of both leaves the
 * terminal raw (`stty sane` or `reset` mends it).
 */

#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <termios.h>

struct exec_ctx;

struct exec_terminal {
	int master;             /* runner: the pty's master once it has it; -1 */
	int slave;              /* light: the slave (the runner's copy keeps the master from hanging up); -1 */
	int sock[2];            /* full: init sends the master on sock[1], the runner takes it from sock[0] */
	int outer;              /* the runner's terminal (0, 1 or 2) the settings come from; -1: none */
	bool have_mode, have_size, raw;
	struct termios mode;    /* the runner's terminal's settings before raw mode */
	struct winsize size;
	/* the relay: stdin -> master (in), master -> stderr (out) */
	char in[1024], out[4096];
	size_t in_len, in_off, out_len, out_off;
	bool in_done;           /* stdin ended: nothing more goes to the pty */
	bool out_gone;          /* stderr is gone: the pty's output is read and dropped */
};

#define EXEC_TERMINAL_INIT { .master = -1, .slave = -1, .sock = { -1, -1 }, .outer = -1 }

/* Runner, before the clone (full) or the fork (light): read the terminal's
 * settings, make the socket pair or open the pty. Dies on failure. */
void terminal_runner_prepare(struct exec_ctx *x);
/* Runner, after the clone: drop init's end of the socket pair. */
void terminal_runner_after_clone(struct exec_ctx *x);
/* Init (full), once the mounts are made: open the sandbox's pty, send the
 * master to the runner, make the slave init's stdio. Dies on failure. */
void terminal_init_open(struct exec_ctx *x);
/* The command, after setsid: the slave becomes its stdio (light) and its
 * controlling terminal. Dies on failure. */
void terminal_command_take(struct exec_ctx *x);
/* Runner: exec_supervise with the relay. Returns the child's wait status,
 * the terminal still raw and the master still open: terminal_finish. */
int terminal_supervise(struct exec_ctx *x, pid_t child);
/* Runner, once everything in the sandbox has ended: relay what the pty
 * still holds (briefly: nothing may keep the runner), restore the
 * terminal. Safe when there is no pty. */
void terminal_finish(struct exec_ctx *x);
