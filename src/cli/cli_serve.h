/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * `cordon serve`: one sandbox instance (the runner's --serve-fd server) and
 * the commands run in it, driven by one poll loop (cli_serve.c); the two
 * ways to speak to it, JSON lines (cli_serve.c) and the Model Context
 * Protocol (cli_mcp.c), sit on top.
 */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SERVE_RUNS_MAX 64 /* commands in flight in one session */

struct serve;

/* One command to run. Bounds are checked against the session's by
 * serve_submit; strings are copied. */
struct serve_spec {
	json_t *id;                 /* echoed in every event and the result (a reference is taken) */
	char *const *argv;
	const char *cwd;            /* NULL: the session's working directory */
	char *const *env;           /* NAME=VALUE added; NULL: none */
	const char *stdin_data;     /* NULL: /dev/null */
	size_t stdin_len;
	int timeout_ms;             /* 0: the session's */
	uint64_t max_output;        /* 0: the session's */
	bool stream;                /* output events as it arrives (JSON lines) */
};

/* How a command ended: result is `run --json`'s object, text
 * what an agent reads (the output, the exit line, cordon's markers); or,
 * refused before it ran, result NULL and text the reason. */
typedef void (*serve_done_fn)(struct serve *s, json_t *id, json_t *result, const char *text, void *userdata);

/* Start a command: 0, or -errno with why in err (nothing started). */
int serve_submit(struct serve *s, const struct serve_spec *sp, char *err, size_t errlen);
/* Kill the command with this id and everything it started (its result
 * still comes, unless drop: then nothing more is said of it). */
void serve_cancel(struct serve *s, json_t *id, bool drop);
/* Write one JSON object as a line on stdout (the session's only writer). */
int serve_emit(json_t *o);

/* A line read from stdin (no newline), handled by the front end. */
typedef void (*serve_line_fn)(struct serve *s, const char *line, size_t len, void *userdata);
/* A line over the cap: its length (the bytes were dropped). */
typedef void (*serve_overlong_fn)(struct serve *s, size_t len, void *userdata);

struct serve_frontend {
	serve_line_fn line;
	serve_overlong_fn overlong;
	serve_done_fn done;
	void *userdata;
};

struct cli_args;
/* The front ends' hooks: JSON lines (cli_serve_jsonl.c), and --mcp
 * (cli_mcp.c). */
void cli_serve_jsonl_frontend(struct serve_frontend *ret);
void cli_mcp_frontend(struct serve_frontend *ret);
