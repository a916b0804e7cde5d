/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * JSON for the command line: text that may not be UTF-8, one compact
 * object per line on stdout, and `cordon run --json`'s object: the same
 * fields for every outcome (share/cordon/result.schema.json), a refusal's
 * as much as a finished command's.
 */
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "cli.h"
#include "result_schema_embedded.h"

char *utf8_sanitize(const char *s, size_t len, size_t *ret_len)
{
	/* worst case: every byte becomes the 3-byte U+FFFD */
	char *out = malloc(len * 3 + 1), *o = out;
	size_t i = 0;

	if (!out)
		return NULL;
	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		size_t n = 0;
		uint32_t cp = 0;

		if (c < 0x80)
			n = 1, cp = c;
		else if ((c & 0xe0) == 0xc0)
			n = 2, cp = c & 0x1f;
		else if ((c & 0xf0) == 0xe0)
			n = 3, cp = c & 0x0f;
		else if ((c & 0xf8) == 0xf0)
			n = 4, cp = c & 0x07;
		bool ok = n > 0 && i + n <= len;
		for (size_t k = 1; ok && k < n; k++) {
			unsigned char cc = (unsigned char)s[i + k];
			if ((cc & 0xc0) != 0x80)
				ok = false;
			cp = (cp << 6) | (cc & 0x3f);
		}
		/* no overlongs, surrogates or values past U+10FFFF */
		if (ok && ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
			   (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff))
			ok = false;
		if (ok) {
			memcpy(o, s + i, n);
			o += n;
			i += n;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	*o = '\0';
	if (ret_len)
		*ret_len = (size_t)(o - out);
	return out;
}

json_t *cli_json_text(const char *s, size_t len)
{
	_cleanup_free_ char *clean = NULL;
	size_t n;

	if (!s)
		return json_null();
	clean = utf8_sanitize(s, len, &n);
	return clean ? json_stringn(clean, n) : NULL;
}

int cli_print_json(json_t *o)
{
	if (!o || json_dumpf(o, stdout, JSON_COMPACT | JSON_ENSURE_ASCII) < 0)
		return -ENOMEM;
	fputc('\n', stdout);
	fflush(stdout);
	return 0;
}

/* The last thing cordon said, and where (a profile's file:line:column),
 * for the JSON of a refusal: messages are said once, as they happen. */
static char last_message[1024];
static struct cordon_error last_origin;

void cli_note_message(const char *message)
{
	snprintf(last_message, sizeof(last_message), "%s", message);
}

void cli_note_origin(const struct cordon_error *e)
{
	last_origin = *e;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *cli_base64(const unsigned char *s, size_t len)
{
	char *out = malloc((len + 2) / 3 * 4 + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)s[i] << 16 | (i + 1 < len ? (uint32_t)s[i + 1] << 8 : 0) |
			     (i + 2 < len ? s[i + 2] : 0);

		*o++ = b64[v >> 18 & 63];
		*o++ = b64[v >> 12 & 63];
		*o++ = i + 1 < len ? b64[v >> 6 & 63] : '=';
		*o++ = i + 2 < len ? b64[v & 63] : '=';
	}
	*o = '\0';
	return out;
}

/* KEY: the text, invalid UTF-8 as U+FFFD, for reading; KEY_base64: the
 * exact bytes, only when they are not UTF-8 (else null). */
static int set_text(json_t *o, const char *key, const char *key64, const char *s, size_t len)
{
	_cleanup_free_ char *clean = NULL, *raw = NULL;
	size_t n;

	clean = utf8_sanitize(s, len, &n);
	if (!clean)
		return -ENOMEM;
	if (n != len || memcmp(clean, s, len) != 0) {
		raw = cli_base64((const unsigned char *)s, len);
		if (!raw)
			return -ENOMEM;
	}
	if (json_object_set_new(o, key, json_stringn(clean, n)) < 0 ||
	    json_object_set_new(o, key64, raw ? json_string(raw) : json_null()) < 0)
		return -ENOMEM;
	return 0;
}

/* Every field, at what it is when nothing ran. */
static json_t *skeleton(void)
{
	return json_pack("{s:n,s:n,s:s,s:n,s:s,s:n,s:i,s:n,s:n,s:n,s:b,s:i,s:n,s:s,s:n,s:b,s:n,s:n,s:{},s:n,s:n,s:[],s:[],s:i}",
			 "exit_code", "signal", "verdict", "refused", "runner_line", "output", "", "output_base64",
			 "output_bytes", 0, "stderr", "stderr_base64", "stderr_bytes", "truncated", 0, "duration_ms", 0,
			 "mode", "enforcement", "none", "grade", "backend_from_cache", 0, "limit", "limit_mechanism",
			 "limits", "limits_warning", "error", "hints", "denials", "denials_omitted", 0);
}

static json_t *nullable_string(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

/* {kind, message, file, line, column, pointer}: what cordon said last. */
static json_t *error_object(const char *kind)
{
	const struct cordon_error *e = &last_origin;

	return json_pack("{s:s,s:o,s:o,s:o,s:o,s:o}", "kind", kind, "message", cli_json_text(last_message, strlen(last_message)),
			 "file", nullable_string(e->file), "line", e->line > 0 ? json_integer(e->line) : json_null(),
			 "column", e->column > 0 ? json_integer(e->column) : json_null(), "pointer",
			 nullable_string(e->path));
}

int cli_refuse(const struct cli_args *a, const char *kind, int code)
{
	_cleanup_(json_decrefp) json_t *o = NULL;

	if (!a->json)
		return code;
	o = skeleton();
	if (!o)
		return code;
	json_object_set_new(o, "exit_code", json_integer(code));
	if (strcmp(kind, "unavailable") == 0)
		json_object_set_new(o, "verdict", json_string("unavailable"));
	if (a->separate_stderr) {
		json_object_set_new(o, "stderr", json_string(""));
		json_object_set_new(o, "stderr_bytes", json_integer(0));
	}
	json_object_set_new(o, "error", error_object(kind));
	(void)cli_print_json(o);
	return code;
}

static bool limit_is_set(const struct cli_args *a, enum cordon_limit k)
{
	switch (k) {
	case CORDON_LIMIT_TIMEOUT:
		return a->timeout_ms > 0;
	case CORDON_LIMIT_CPU:
		return a->limits.cpu_seconds > 0;
	case CORDON_LIMIT_MEMORY:
		return a->limits.memory > 0;
	case CORDON_LIMIT_PROCESSES:
		return a->limits.processes > 0;
	case CORDON_LIMIT_FILE_SIZE:
		return a->limits.file_size > 0;
	case CORDON_LIMIT_OPEN_FILES:
		return a->limits.open_files > 0;
	case CORDON_LIMIT_OUTPUT:
		return a->max_output_set;
	case CORDON_LIMIT_NONE:
	case _CORDON_LIMIT_MAX:
		break;
	}
	return false;
}

/* The object `cordon run --json` prints for a command that ran; stopped:
 * the signal that stopped the run, or 0. */
json_t *cli_result_json(const struct cli_args *a, const struct cordon_result *res, const struct cordon_backend_info *info,
			int stopped)
{
	_cleanup_(json_decrefp) json_t *obj = skeleton();

	if (!obj || set_text(obj, "output", "output_base64", res->output, res->output_len) < 0)
		return NULL;
	if (res->stderr_output) {
		if (set_text(obj, "stderr", "stderr_base64", res->stderr_output, res->stderr_len) < 0)
			return NULL;
		json_object_set_new(obj, "stderr_bytes", json_integer((json_int_t)res->stderr_total));
	}
	/* the struct's exit_code, -1 as null */
	json_object_set_new(obj, "exit_code", res->exit_code < 0 ? json_null() : json_integer(res->exit_code));
	json_object_set_new(obj, "signal", res->signal ? json_integer(res->signal) : json_null());
	json_object_set_new(obj, "verdict", json_string(cordon_verdict_to_string(res->verdict)));
	json_object_set_new(obj, "runner_line",
			    res->runner_line ? cli_json_text(res->runner_line, strlen(res->runner_line)) : json_null());
	json_object_set_new(obj, "output_bytes", json_integer((json_int_t)res->output_total));
	json_object_set_new(obj, "truncated", json_boolean(res->truncated));
	json_object_set_new(obj, "duration_ms", json_integer((json_int_t)res->duration_ms));
	json_object_set_new(obj, "mode", json_string(cordon_mode_to_string(res->mode)));
	json_object_set_new(obj, "enforcement", json_string(cordon_enforcement_to_string(res->enforcement)));
	json_object_set_new(obj, "grade", res->enforcement == CORDON_ENFORCEMENT_NONE ? json_null()
			    : json_string(cordon_grade_to_string(res->grade)));
	json_object_set_new(obj, "backend_from_cache", json_boolean(info->from_cache));
	json_object_set_new(obj, "limit", res->limit == CORDON_LIMIT_NONE ? json_null()
			    : json_string(cordon_limit_to_string(res->limit)));
	json_object_set_new(obj, "limit_mechanism", res->limit == CORDON_LIMIT_NONE ? json_null()
			    : json_string(cordon_limit_mechanism_to_string(res->limit_mechanism)));
	json_t *mech = json_object();
	for (int k = CORDON_LIMIT_TIMEOUT; k < _CORDON_LIMIT_MAX; k++)
		if (limit_is_set(a, (enum cordon_limit)k))
			json_object_set_new(mech, cordon_limit_to_string((enum cordon_limit)k),
					    json_string(cordon_limit_mechanism_to_string(res->limits.mechanism[k])));
	json_object_set_new(obj, "limits", mech);
	json_object_set_new(obj, "limits_warning",
			    res->limits.warning[0] ? json_string(res->limits.warning) : json_null());
	if (stopped) {
		json_object_set_new(obj, "error", error_object("stopped"));
	}
	return TAKE_PTR(obj);
}

int cli_print_result_schema(void)
{
	for (size_t i = 0; i < ELEMENTSOF(embedded_result_schema); i++)
		fwrite(embedded_result_schema[i].text, 1, embedded_result_schema[i].len, stdout);
	return fflush(stdout) == 0 ? 0 : CLI_EXIT_REFUSED;
}
