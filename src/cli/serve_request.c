/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `cordon serve`'s request parser (serve_request.h): untrusted bytes from
 * stdin, so every size is capped, every key known and every type checked
 * before anything runs. Its fuzz target is tests/fuzz/fuzz-serve-request.c.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "serve_request.h"
#include "strv.h"

static int fail(char *err, size_t errlen, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return code;
}

int serve_seconds_ms(double s)
{
	double ms = s * 1000;
	int r;

	if (!isfinite(s) || s <= 0 || s > 7 * 24 * 3600)
		return -1;
	r = (int)ms;
	return r < ms ? r + 1 : r;
}

static bool name_ok(const char *s, size_t n)
{
	if (n == 0 || n > 255 || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return false;
	return true;
}

int serve_json_strv(json_t *a, size_t max_count, char ***ret, char *err, size_t errlen)
{
	_cleanup_strv_free_ char **v = NULL;
	size_t n = json_array_size(a);

	if (!json_is_array(a))
		return fail(err, errlen, -EINVAL, "not an array of strings");
	if (n > max_count)
		return fail(err, errlen, -E2BIG, "more than %zu strings", max_count);
	v = calloc(n + 1, sizeof(char *));
	if (!v)
		return fail(err, errlen, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		json_t *s = json_array_get(a, i);
		size_t l = json_string_length(s);

		if (!json_is_string(s))
			return fail(err, errlen, -EINVAL, "element %zu is not a string", i);
		if (l > SERVE_REQ_STRING_MAX)
			return fail(err, errlen, -E2BIG, "element %zu is over %u bytes", i, SERVE_REQ_STRING_MAX);
		if (memchr(json_string_value(s), '\0', l))
			return fail(err, errlen, -EINVAL, "element %zu holds a NUL byte", i);
		if (!(v[i] = strndup(json_string_value(s), l)))
			return fail(err, errlen, -ENOMEM, "out of memory");
	}
	*ret = TAKE_PTR(v);
	return 0;
}

static int get_string(json_t *v, const char *key, size_t max, char **ret, size_t *ret_len, char *err, size_t errlen)
{
	size_t l = json_string_length(v);

	if (!json_is_string(v))
		return fail(err, errlen, -EINVAL, "%s: not a string", key);
	if (l > max)
		return fail(err, errlen, -E2BIG, "%s: over %zu bytes", key, max);
	if (!ret_len && memchr(json_string_value(v), '\0', l))
		return fail(err, errlen, -EINVAL, "%s: holds a NUL byte", key);
	*ret = malloc(l + 1);
	if (!*ret)
		return fail(err, errlen, -ENOMEM, "out of memory");
	memcpy(*ret, json_string_value(v), l);
	(*ret)[l] = '\0';
	if (ret_len)
		*ret_len = l;
	return 0;
}

static int read_env(json_t *o, char ***ret, char *err, size_t errlen)
{
	_cleanup_strv_free_ char **v = NULL;
	const char *name;
	json_t *val;
	size_t i = 0;

	if (!json_is_object(o))
		return fail(err, errlen, -EINVAL, "env: not an object of NAME: VALUE strings");
	if (json_object_size(o) > SERVE_REQ_ENV_MAX)
		return fail(err, errlen, -E2BIG, "env: more than %u variables", SERVE_REQ_ENV_MAX);
	v = calloc(json_object_size(o) + 1, sizeof(char *));
	if (!v)
		return fail(err, errlen, -ENOMEM, "out of memory");
	json_object_foreach(o, name, val) {
		size_t nl = strlen(name), vl = json_string_length(val);

		if (!name_ok(name, nl))
			return fail(err, errlen, -EINVAL, "env: '%.64s' is not a variable name", name);
		if (!json_is_string(val) || vl > SERVE_REQ_STRING_MAX || memchr(json_string_value(val), '\0', vl))
			return fail(err, errlen, -EINVAL, "env: %s: the value must be a string of at most %u bytes, no NUL",
				    name, SERVE_REQ_STRING_MAX);
		if (asprintf(&v[i], "%s=%s", name, json_string_value(val)) < 0) {
			v[i] = NULL;
			return fail(err, errlen, -ENOMEM, "out of memory");
		}
		i++;
	}
	*ret = TAKE_PTR(v);
	return 0;
}

static int read_id(json_t *id, struct serve_request *q, char *err, size_t errlen)
{
	if (!id)
		return fail(err, errlen, -EINVAL, "id: missing (a string or an integer names the request)");
	if (!(json_is_integer(id) || (json_is_string(id) && json_string_length(id) <= SERVE_REQ_ID_MAX &&
				      json_string_length(id) > 0)))
		return fail(err, errlen, -EINVAL, "id: must be an integer or a string of 1 to %u bytes",
			    SERVE_REQ_ID_MAX);
	q->id = json_incref(id);
	return 0;
}

int serve_request_parse(const char *line, size_t len, struct serve_request *ret, char *err, size_t errlen)
{
	_cleanup_(json_decrefp) json_t *o = NULL;
	struct serve_request q = {};
	json_error_t je;
	const char *key;
	json_t *v;
	int r = 0;

	*ret = (struct serve_request){};
	if (len > SERVE_LINE_MAX)
		return fail(err, errlen, -E2BIG, "the line is over %u bytes", SERVE_LINE_MAX);
	o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
	if (!o)
		return fail(err, errlen, -EINVAL, "not JSON: %s (column %d)", je.text, je.column);
	if (!json_is_object(o))
		return fail(err, errlen, -EINVAL, "a request is a JSON object");
	r = read_id(json_object_get(o, "id"), &q, err, errlen);
	if (r < 0)
		goto done;
	json_object_foreach(o, key, v) {
		char why[256] = "";

		if (strcmp(key, "id") == 0)
			continue;
		if (strcmp(key, "argv") == 0) {
			r = serve_json_strv(v, SERVE_REQ_ARGC_MAX, &q.argv, why, sizeof(why));
			if (r < 0)
				r = fail(err, errlen, r, "argv: %s", why);
		} else if (strcmp(key, "cwd") == 0) {
			r = get_string(v, key, SERVE_REQ_STRING_MAX, &q.cwd, NULL, err, errlen);
			if (r == 0 && q.cwd[0] != '/')
				r = fail(err, errlen, -EINVAL, "cwd: must be an absolute path");
		} else if (strcmp(key, "env") == 0)
			r = read_env(v, &q.env, err, errlen);
		else if (strcmp(key, "stdin") == 0) {
			if (!json_is_null(v))
				r = get_string(v, key, SERVE_REQ_STDIN_MAX, &q.stdin_data, &q.stdin_len, err, errlen);
		} else if (strcmp(key, "timeout") == 0) {
			int ms = json_is_number(v) ? serve_seconds_ms(json_number_value(v)) : -1;

			if (ms <= 0)
				r = fail(err, errlen, -EINVAL, "timeout: seconds, a number above 0 and at most a week");
			else
				q.timeout_ms = ms;
		} else if (strcmp(key, "max_output") == 0) {
			if (!json_is_integer(v) || json_integer_value(v) <= 0 || json_integer_value(v) > (1ll << 30))
				r = fail(err, errlen, -EINVAL, "max_output: bytes, an integer from 1 to 1G");
			else
				q.max_output = (uint64_t)json_integer_value(v);
		} else
			r = fail(err, errlen, -EINVAL, "unknown key '%.64s' (known: id, argv, cwd, env, stdin, timeout, "
				 "max_output)", key);
		if (r < 0)
			goto done;
	}
	if (!q.argv || !q.argv[0] || !q.argv[0][0])
		r = fail(err, errlen, -EINVAL, "argv: missing or empty (the command and its arguments)");
done:
	if (r < 0) {
		json_t *id = TAKE_PTR(q.id);

		serve_request_done(&q);
		ret->id = id;
		return r;
	}
	*ret = q;
	return 0;
}

void serve_request_done(struct serve_request *q)
{
	json_decref(q->id);
	strv_free(q->argv);
	free(q->cwd);
	strv_free(q->env);
	free(q->stdin_data);
	*q = (struct serve_request){};
}
