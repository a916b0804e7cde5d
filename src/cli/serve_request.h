/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * One request line of `cordon serve` (JSON lines), read into a struct:
 *   {"id": STRING|INTEGER, "argv": [STRING...], "cwd": STRING?,
 *    "env": {NAME: VALUE...}?, "stdin": STRING|null?,
 *    "timeout": SECONDS (number)?, "max_output": BYTES (integer)?}
 * Pure (no file, no process): the policy's bounds are checked by the
 * caller (cli_serve.c) and the server (src/exec/serve.c). Hard caps below;
 * unknown keys are refused, so a misspelt bound never passes unseen.
 */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SERVE_LINE_MAX (1024u * 1024)   /* bytes of one request line */
#define SERVE_REQ_ARGC_MAX 4096
#define SERVE_REQ_ENV_MAX 256
#define SERVE_REQ_STRING_MAX (128u * 1024) /* one argument, name, value or cwd */
#define SERVE_REQ_STDIN_MAX (512u * 1024)
#define SERVE_REQ_ID_MAX 256             /* bytes of a string id */

struct serve_request {
	json_t *id;           /* the caller's id, echoed (a string or an integer) */
	char **argv;          /* NULL-terminated, at least one, argv[0] not empty */
	char *cwd;            /* NULL: the session's */
	char **env;           /* NAME=VALUE, NULL-terminated; NULL: none */
	char *stdin_data;     /* NULL: none (/dev/null) */
	size_t stdin_len;
	int timeout_ms;       /* 0: the session's */
	uint64_t max_output;  /* 0: the session's */
};

/* Read one line (len bytes, no newline). 0 and *ret filled, or -EINVAL
 * (-E2BIG over a cap) with what is wrong in err. On failure ret->id may
 * still be set (the id, if it could be read), for the error's reply. */
int serve_request_parse(const char *line, size_t len, struct serve_request *ret, char *err, size_t errlen);
void serve_request_done(struct serve_request *q);

/* Seconds (finite, > 0, at most a week, else -1) as milliseconds, rounded up. */
int serve_seconds_ms(double s);

/* A NULL-terminated argv of strings from a JSON array, under the caps
 * above: also what the MCP tool's arguments are read with. */
int serve_json_strv(json_t *a, size_t max_count, char ***ret, char *err, size_t errlen);
