/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The broker's messages: what a shim in a sandbox asks the supervisor
 * outside, and what comes back. Frames are msgframe.h's (versioned,
 * length-prefixed, at most MSG_FRAME_MAX bytes and MSG_FDS_MAX fds); this
 * is the one codec of their bodies, for the shim, the supervisor and the
 * fuzz target. Every decode is bounded and refuses trailing bytes: a peer
 * whose frame does not decode is dropped.
 *
 *   shim -> supervisor
 *     BROKER_MSG_CALL    (once, first): the command the shim was invoked
 *                        as, its arguments, its cwd, its environment and
 *                        which of its stdio are terminals; with exactly
 *                        four fds: stdin, stdout, stderr and an O_PATH fd
 *                        of the cwd (proof the caller holds it).
 *     BROKER_MSG_SIGNAL  (after a call is running): a signal the shim got,
 *                        for the tool (SIGINT, SIGTERM, SIGHUP, SIGQUIT).
 *     BROKER_MSG_OPEN_URL (once, first, instead of a call): the shim run as
 *                        an opener (xdg-open, open, sensible-browser) asks
 *                        the host to open one URL; no fds. Answered DENIED,
 *                        or EXIT 0 once the host's opener ran (its message
 *                        says so when the URL was printed instead).
 *   supervisor -> shim
 *     BROKER_MSG_DENIED  a reason: the shim prints "cordon: denied: REASON"
 *                        and exits 126.
 *     BROKER_MSG_EXIT    how the tool ended: the shim exits the same way.
 *
 * Where a sandbox finds its broker: a socket in its own private /run,
 * which no other sandbox can reach (the socket is the identity).
 */

#include <stdbool.h>
#include <stdint.h>

#include "msgbuf.h"

#define BROKER_DIR "/run/cordon"
#define BROKER_SOCKET BROKER_DIR "/broker"
#define BROKER_SHIM_DIR BROKER_DIR "/bin"

enum broker_msg {
	BROKER_MSG_CALL = 1,
	BROKER_MSG_SIGNAL = 2,
	BROKER_MSG_OPEN_URL = 3,
	BROKER_MSG_DENIED = 0x81,
	BROKER_MSG_EXIT = 0x82,
};

#define BROKER_CALL_FDS 4          /* stdin, stdout, stderr, cwd */
#define BROKER_NAME_MAX 255        /* a command's name */
#define BROKER_PATH_MAX 4095       /* the cwd */
#define BROKER_ENV_MAX 4096        /* environment entries */
#define BROKER_REASON_MAX 1024
/* An open-url request's URL: twice the policy's cap (url_check.h), so an
 * over-long URL reaches the supervisor and is refused with its reason */
#define BROKER_URL_MAX 16384
/* The names a shim answers to as the sandbox's URL opener (with BROWSER
 * pointing at the first); a sandbox has them only with open_urls. */
#define BROKER_OPENER_NAMES "xdg-open", "open", "sensible-browser"
#define BROKER_OPENER_PATH BROKER_SHIM_DIR "/xdg-open"

/* BROKER_MSG_CALL's tty bits */
#define BROKER_TTY_IN (1u << 0)
#define BROKER_TTY_OUT (1u << 1)
#define BROKER_TTY_ERR (1u << 2)

struct broker_call {
	char *command;  /* a bare name: no '/', not "." or "..", no NUL */
	char **argv;    /* the arguments after the command's name */
	char *cwd;      /* absolute */
	char **env;     /* NAME=VALUE */
	uint8_t tty;    /* BROKER_TTY_* */
};

/* A command name the broker accepts (also a shim's file name). */
bool broker_name_valid(const char *name);

int broker_call_encode(struct msgbuf *b, const struct broker_call *c);
/* -EBADMSG / -E2BIG on anything malformed or over a cap; *ret untouched
 * on failure. Environment entries whose name is not a variable name (an
 * exported bash function, BASH_FUNC_f%%) are dropped, not refused. */
int broker_call_decode(struct msgbuf *b, struct broker_call *ret);
/* Free (and zero the environment's values: they may be secrets). */
void broker_call_done(struct broker_call *c);

/* The signals a shim may pass on. */
bool broker_signal_allowed(int sig);
int broker_signal_encode(struct msgbuf *b, int sig);
int broker_signal_decode(struct msgbuf *b, int *ret);

/* Is name one of BROKER_OPENER_NAMES? */
bool broker_name_is_opener(const char *name);
int broker_open_url_encode(struct msgbuf *b, const char *url);
/* *ret is malloc'd: at most BROKER_URL_MAX bytes, no NUL. */
int broker_open_url_decode(struct msgbuf *b, char **ret);

int broker_denied_encode(struct msgbuf *b, const char *reason);
/* *ret is malloc'd. */
int broker_denied_decode(struct msgbuf *b, char **ret);

enum broker_exit_how {
	BROKER_EXITED = 0,   /* value: the exit code, 0..255 */
	BROKER_SIGNALED = 1, /* value: the signal that killed the tool */
};
struct broker_exit {
	enum broker_exit_how how;
	uint32_t value;
	char *message; /* "" or one line for the caller (a runner failure) */
};
int broker_exit_encode(struct msgbuf *b, const struct broker_exit *e);
int broker_exit_decode(struct msgbuf *b, struct broker_exit *ret);
