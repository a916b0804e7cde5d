/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `cordon serve`'s default front end, JSON lines: a request per line
 * (serve_request.c reads it), output events as the command writes, then
 * {"id", "result"} with `run --json`'s object, or {"id", "error"} naming
 * what was wrong with a request.
 */
#include <stdio.h>
#include <string.h>

#include "cleanup.h"
#include "cli.h"
#include "cli_serve.h"
#include "serve_request.h"

static void jsonl_error(json_t *id, const char *kind, const char *message)
{
	_cleanup_(json_decrefp) json_t *o = json_pack("{s:O,s:{s:s,s:o}}", "id", id ? id : json_null(), "error", "kind",
						       kind, "message", cli_json_text(message, strlen(message)));

	(void)serve_emit(o);
}

static void jsonl_line(struct serve *s, const char *line, size_t len, void *userdata)
{
	struct serve_request q;
	char err[512] = "";
	int r = serve_request_parse(line, len, &q, err, sizeof(err));

	if (r == 0) {
		struct serve_spec sp = {
			.id = q.id, .argv = q.argv, .cwd = q.cwd, .env = q.env, .stdin_data = q.stdin_data,
			.stdin_len = q.stdin_len, .timeout_ms = q.timeout_ms, .max_output = q.max_output, .stream = true,
		};

		r = serve_submit(s, &sp, err, sizeof(err));
	}
	if (r < 0)
		jsonl_error(q.id, "request", err);
	serve_request_done(&q);
}

static void jsonl_overlong(struct serve *s, size_t len, void *userdata)
{
	char msg[128];

	snprintf(msg, sizeof(msg), "the line is over %u bytes (%zu): dropped", SERVE_LINE_MAX, len);
	jsonl_error(NULL, "request", msg);
}

static void jsonl_done(struct serve *s, json_t *id, json_t *result, const char *text, void *userdata)
{
	if (result) {
		/* the result is `run --json`'s object as it is (its schema has
		 * no room for more): the id goes beside it */
		_cleanup_(json_decrefp) json_t *o = json_pack("{s:O,s:O}", "id", id, "result", result);

		(void)serve_emit(o);
	} else
		jsonl_error(id, "refused", text);
}

void cli_serve_jsonl_frontend(struct serve_frontend *ret)
{
	*ret = (struct serve_frontend){ .line = jsonl_line, .overlong = jsonl_overlong, .done = jsonl_done };
}
