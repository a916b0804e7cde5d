/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * JSON for the command line: text that may not be UTF-8, one compact
 * object per line on stdout, and `cordon run --json`'s result object.
 */
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "cli.h"

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

void cli_print_unavailable_json(const char *message)
{
	_cleanup_(json_decrefp) json_t *o = json_pack("{s:n,s:n,s:s,s:n,s:s,s:b,s:i,s:s,s:n,s:s}",
		"exit_code", "signal", "verdict", "unavailable", "runner_line", "output", "",
		"truncated", 0, "duration_ms", 0, "enforcement", "none", "grade", "message", message);
	cli_print_json(o);
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

/* The object `cordon run --json` prints for a command that ran. */
json_t *cli_result_json(const struct cli_args *a, const struct cordon_result *res, const struct cordon_backend_info *info)
{
	_cleanup_(json_decrefp) json_t *obj = json_object();
	json_t *jo = cli_json_text(res->output, res->output_len);

	if (!obj || !jo) {
		json_decref(jo);
		return NULL;
	}
	/* the struct's exit_code, -1 as null */
	json_object_set_new(obj, "exit_code", res->exit_code < 0 ? json_null() : json_integer(res->exit_code));
	json_object_set_new(obj, "signal", res->signal ? json_integer(res->signal) : json_null());
	json_object_set_new(obj, "verdict", json_string(cordon_verdict_to_string(res->verdict)));
	json_object_set_new(obj, "runner_line",
			    res->runner_line ? cli_json_text(res->runner_line, strlen(res->runner_line)) : json_null());
	json_object_set_new(obj, "output", jo);
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
	return TAKE_PTR(obj);
}
