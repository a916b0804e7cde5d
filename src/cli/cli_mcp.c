/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `cordon serve --mcp`: the Model Context Protocol's stdio transport
 * (JSON-RPC 2.0, one message per line) on top of cordon serve's session:
 * initialize, ping, tools/list, tools/call of the one tool `run_command`
 * (a shell command run by /bin/sh -c, confined as `cordon run` would
 * confine it; its result is whole: the text an agent reads and the
 * `run --json` object as structured content), and notifications/cancelled
 * (the command and everything it started are killed; no reply follows).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cleanup.h"
#include "cli.h"
#include "config.h"
#include "cli_serve.h"
#include "serve_request.h"

#define MCP_PROTOCOL_LATEST "2025-06-18"
#define JSONRPC_PARSE_ERROR -32700
#define JSONRPC_INVALID_REQUEST -32600
#define JSONRPC_METHOD_NOT_FOUND -32601
#define JSONRPC_INVALID_PARAMS -32602

static const char *const known_versions[] = { "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", NULL };

static void reply(json_t *id, json_t *result)
{
	_cleanup_(json_decrefp) json_t *o = json_pack("{s:s,s:O,s:o}", "jsonrpc", "2.0", "id", id, "result", result);

	(void)serve_emit(o);
}

static void reply_error(json_t *id, int code, const char *message)
{
	_cleanup_(json_decrefp) json_t *o = json_pack("{s:s,s:O,s:{s:i,s:o}}", "jsonrpc", "2.0", "id",
						       id ? id : json_null(), "error", "code", code, "message",
						       cli_json_text(message, strlen(message)));

	(void)serve_emit(o);
}

static json_t *tool_list(void)
{
	return json_pack(
		"{s:[{s:s,s:s,s:{s:s,s:{s:{s:s,s:s},s:{s:s,s:s},s:{s:s,s:s}},s:[s],s:b}}]}", "tools", "name",
		"run_command", "description",
		"Run a shell command (/bin/sh -c) in cordon's sandbox: the policy the server was started with decides "
		"what it may read, write and reach. The result carries the output, the exit code, the verdict and "
		"any denials.",
		"inputSchema", "type", "object", "properties", "command", "type", "string", "description",
		"the shell command", "cwd", "type", "string", "description",
		"an absolute working directory (default: the server's)", "timeout", "type", "number", "description",
		"seconds (no more than the server's own limit)", "required", "command", "additionalProperties", 0);
}

static void initialize(json_t *id, json_t *params)
{
	const char *want = json_string_value(json_object_get(params, "protocolVersion"));
	const char *ver = MCP_PROTOCOL_LATEST;

	for (size_t i = 0; want && known_versions[i]; i++)
		if (strcmp(want, known_versions[i]) == 0)
			ver = known_versions[i];
	reply(id, json_pack("{s:s,s:{s:{s:b}},s:{s:s,s:s}}", "protocolVersion", ver, "capabilities", "tools",
			    "listChanged", 0, "serverInfo", "name", "cordon", "version", CORDON_VERSION));
}

static void tools_call(struct serve *s, json_t *id, json_t *params)
{
	json_t *args = json_object_get(params, "arguments"), *cmd = json_object_get(args, "command");
	json_t *cwd = json_object_get(args, "cwd"), *timeout = json_object_get(args, "timeout");
	const char *name = json_string_value(json_object_get(params, "name"));
	char err[512] = "", *argv[] = { (char *)"/bin/sh", (char *)"-c", NULL, NULL };
	struct serve_spec sp = { .id = id };
	const char *key;
	json_t *v;

	if (!name || strcmp(name, "run_command") != 0)
		return reply_error(id, JSONRPC_INVALID_PARAMS, "unknown tool (the one tool is run_command)");
	if (!json_is_object(args) || !json_is_string(cmd) || json_string_length(cmd) == 0 ||
	    json_string_length(cmd) > SERVE_REQ_STRING_MAX || memchr(json_string_value(cmd), '\0', json_string_length(cmd)))
		return reply_error(id, JSONRPC_INVALID_PARAMS, "arguments.command: a non-empty string of at most 128 KiB");
	json_object_foreach(args, key, v)
		if (strcmp(key, "command") != 0 && strcmp(key, "cwd") != 0 && strcmp(key, "timeout") != 0)
			return reply_error(id, JSONRPC_INVALID_PARAMS, "arguments: unknown key (command, cwd, timeout)");
	if (cwd && (!json_is_string(cwd) || json_string_length(cwd) > SERVE_REQ_STRING_MAX ||
		    json_string_value(cwd)[0] != '/'))
		return reply_error(id, JSONRPC_INVALID_PARAMS, "arguments.cwd: an absolute path");
	if (timeout) {
		int ms = json_is_number(timeout) ? serve_seconds_ms(json_number_value(timeout)) : -1;

		if (ms <= 0)
			return reply_error(id, JSONRPC_INVALID_PARAMS, "arguments.timeout: seconds, above 0");
		sp.timeout_ms = ms;
	}
	argv[2] = (char *)json_string_value(cmd);
	sp.argv = argv;
	sp.cwd = json_string_value(cwd);
	if (serve_submit(s, &sp, err, sizeof(err)) < 0)
		/* a bound the policy sets is a tool error the model can read */
		reply(id, json_pack("{s:[{s:s,s:o}],s:b}", "content", "type", "text", "text",
				    cli_json_text(err, strlen(err)), "isError", 1));
}

static void mcp_line(struct serve *s, const char *line, size_t len, void *userdata)
{
	_cleanup_(json_decrefp) json_t *m = NULL;
	json_error_t je;
	json_t *id, *params;
	const char *method;

	m = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
	if (!m)
		return reply_error(NULL, JSONRPC_PARSE_ERROR, je.text);
	id = json_object_get(m, "id");
	method = json_string_value(json_object_get(m, "method"));
	params = json_object_get(m, "params");
	if (!json_is_object(m) || !json_equal(json_object_get(m, "jsonrpc"), json_string("2.0")) || !method ||
	    (id && !json_is_string(id) && !json_is_integer(id)) || (params && !json_is_object(params))) {
		/* a response from the client, or garbage: answered only when it has an id */
		if (!method && json_object_get(m, "jsonrpc") && (json_object_get(m, "result") || json_object_get(m, "error")))
			return;
		return reply_error(id, JSONRPC_INVALID_REQUEST, "not a JSON-RPC 2.0 request");
	}
	if (!id) {
		/* notifications: never answered */
		if (strcmp(method, "notifications/cancelled") == 0)
			serve_cancel(s, json_object_get(params, "requestId"), true);
		return;
	}
	if (strcmp(method, "initialize") == 0)
		initialize(id, params);
	else if (strcmp(method, "ping") == 0)
		reply(id, json_object());
	else if (strcmp(method, "tools/list") == 0)
		reply(id, tool_list());
	else if (strcmp(method, "tools/call") == 0)
		tools_call(s, id, params);
	else
		reply_error(id, JSONRPC_METHOD_NOT_FOUND, "unknown method");
}

static void mcp_overlong(struct serve *s, size_t len, void *userdata)
{
	reply_error(NULL, JSONRPC_INVALID_REQUEST, "the message is over the line cap: dropped");
}

static void mcp_done(struct serve *s, json_t *id, json_t *result, const char *text, void *userdata)
{
	if (!result)
		return reply(id, json_pack("{s:[{s:s,s:o}],s:b}", "content", "type", "text", "text",
					   cli_json_text(text, strlen(text)), "isError", 1));
	json_t *exit = json_object_get(result, "exit_code");
	bool bad = strcmp(json_string_value(json_object_get(result, "verdict")) ?: "", "ok") != 0 || !json_is_integer(exit) ||
		   json_integer_value(exit) != 0;

	reply(id, json_pack("{s:[{s:s,s:o}],s:O,s:b}", "content", "type", "text", "text",
			    cli_json_text(text, strlen(text)), "structuredContent", result, "isError", bad));
}

void cli_mcp_frontend(struct serve_frontend *ret)
{
	*ret = (struct serve_frontend){ .line = mcp_line, .overlong = mcp_overlong, .done = mcp_done };
}
