/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The JSON form of a confined value: what `cordon confine --json` prints and
 * `cordon classify --confined FILE` reads back.
 *
 *   {"argv":[...],"mode":"workspace-write","enforcement":"bwrap",
 *    "grade":"full","denial_signatures":[...],"fatal_signatures":[...],
 *    "informational_lines":[...],"allowed_exit_codes":[...],
 *    "envp":["NAME=VALUE",...]|null,"status_fd":3,"status_format":"cordon",
 *    "exec_fd":-1}
 *
 * envp is the environment argv must be started with (null: inherit);
 * status_fd/status_format the runner's status channel (-1/"none": none);
 * exec_fd where the file to run is wanted (-1: none).
 * Those four may be absent when read (a value written before they existed:
 * inherit, no channel, runner failures read from the text as before, no
 * fd); status_fd and status_format come together. "broker_fd":N is there
 * only for a value whose runner wants the tool sandbox's broker socket at N.
 *
 * Reading is strict, because a confined value read back decides what a
 * process's output means: every key is required (a missing signature list
 * would quietly turn every denial into "ok"), unknown keys, duplicate keys,
 * NUL bytes and invalid UTF-8 are refused, and every error names its line
 * and column. jansson keeps no positions for parsed values, so semantic
 * errors find theirs again by walking the (already validated) text.
 */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "error.h"
#include "json_pos.h"
#include "provider.h"
#include "strv.h"

#define CONFINED_JSON_MAX ((size_t)1024 * 1024)
/* Highest status fd number written or read back. */
#define CONFINED_STATUS_FD_MAX 65535

/* json_decrefp comes with jansson. */
#define _cleanup_json_ _cleanup_(json_decrefp)

/* ---- Writing ------------------------------------------------------------- */

/* RFC 3629, as jansson checks it: no overlong forms, no surrogates, nothing
 * above U+10FFFF. Lets a refusal say -EINVAL rather than guess at -ENOMEM. */
static bool utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		unsigned c = *p, n;
		uint32_t cp;

		if (c < 0x80) {
			p++;
			continue;
		} else if (c >= 0xc2 && c <= 0xdf) {
			n = 1;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			n = 2;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 3;
			cp = c & 0x07;
		} else
			return false;
		for (unsigned i = 1; i <= n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (p[i] & 0x3f);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		p += n + 1;
	}
	return true;
}

static int string_to_json(const char *s, json_t **ret)
{
	json_t *j;

	if (!utf8_valid(s))
		return -EINVAL;
	j = json_string(s);
	if (!j)
		return -ENOMEM;
	*ret = j;
	return 0;
}

static int strv_to_json(char *const *v, json_t **ret)
{
	_cleanup_json_ json_t *a = json_array();

	if (!a)
		return -ENOMEM;
	for (size_t i = 0; v && v[i]; i++) {
		json_t *s;
		int r = string_to_json(v[i], &s);

		if (r < 0)
			return r;
		if (json_array_append_new(a, s) < 0)
			return -ENOMEM;
	}
	*ret = TAKE_PTR(a);
	return 0;
}

static int set_new(json_t *o, const char *key, json_t *v)
{
	return json_object_set_new(o, key, v) < 0 ? -ENOMEM : 0;
}

static int set_strv(json_t *o, const char *key, char *const *v)
{
	json_t *a;
	int r = strv_to_json(v, &a);

	return r < 0 ? r : set_new(o, key, a);
}

/* A name that reads back as the same value, or NULL for an out-of-range
 * enum (its to_string would say "invalid", which must not be written). */
#define ENUM_NAME(kind, type, v)                                                          \
	({                                                                                \
		const char *_n = cordon_##kind##_to_string(v);                            \
		type _back;                                                               \
		cordon_##kind##_from_string(_n, &_back) == 0 && _back == (v) ? _n : NULL; \
	})

CORDON_API int cordon_confined_to_json(const struct cordon_confined *c, char **ret)
{
	_cleanup_json_ json_t *o = NULL, *codes = NULL;
	const char *mode, *enforcement, *grade, *status_format;
	char *s;
	int r;

	if (!c || !ret || !c->argv || !c->argv[0] || (c->n_allowed_exit_codes > 0 && !c->allowed_exit_codes))
		return -EINVAL;
	mode = ENUM_NAME(mode, enum cordon_mode, c->mode);
	enforcement = ENUM_NAME(enforcement, enum cordon_enforcement, c->enforcement);
	grade = ENUM_NAME(grade, enum cordon_grade, c->grade);
	status_format = ENUM_NAME(status_format, enum cordon_status_format, c->status_format);
	if (!mode || !enforcement || !grade || !status_format)
		return -EINVAL;
	if (c->status_format != CORDON_STATUS_NONE && (c->status_fd <= 2 || c->status_fd > CONFINED_STATUS_FD_MAX))
		return -EINVAL;
	if (c->exec_fd > CONFINED_STATUS_FD_MAX || (c->exec_fd > 2 && c->exec_fd == c->status_fd))
		return -EINVAL;

	o = json_object();
	codes = json_array();
	if (!o || !codes)
		return -ENOMEM;
	for (size_t i = 0; i < c->n_allowed_exit_codes; i++)
		if (json_array_append_new(codes, json_integer(c->allowed_exit_codes[i])) < 0)
			return -ENOMEM;

	/* Insertion order is output order: keep it the documented one. */
	if ((r = set_strv(o, "argv", c->argv)) < 0 ||
	    (r = set_new(o, "mode", json_string(mode))) < 0 ||
	    (r = set_new(o, "enforcement", json_string(enforcement))) < 0 ||
	    (r = set_new(o, "grade", json_string(grade))) < 0 ||
	    (r = set_strv(o, "denial_signatures", c->denial_signatures)) < 0 ||
	    (r = set_strv(o, "fatal_signatures", c->fatal_signatures)) < 0 ||
	    (r = set_strv(o, "informational_lines", c->informational_lines)) < 0 ||
	    (r = set_new(o, "allowed_exit_codes", TAKE_PTR(codes))) < 0 ||
	    (r = c->envp ? set_strv(o, "envp", c->envp) : set_new(o, "envp", json_null())) < 0 ||
	    (r = set_new(o, "status_fd", json_integer(c->status_format == CORDON_STATUS_NONE ? -1 : c->status_fd))) < 0 ||
	    (r = set_new(o, "status_format", json_string(status_format))) < 0 ||
	    (r = set_new(o, "exec_fd", json_integer(c->exec_fd > 2 ? c->exec_fd : -1))) < 0)
		return r;
	if (c->broker_fd > 2 && (c->broker_fd > CONFINED_STATUS_FD_MAX ||
				 (r = set_new(o, "broker_fd", json_integer(c->broker_fd))) < 0))
		return c->broker_fd > CONFINED_STATUS_FD_MAX ? -EINVAL : r;

	s = json_dumps(o, JSON_COMPACT);
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

/* ---- Reading: positions ------------------------------------------------------
 *
 * Found by walking the text jansson has already accepted (json_locate). */

static const char *locate_root(const char *json, size_t len)
{
	return json_locate(json, len, NULL, 0, false);
}

/* The key of member k (document order) of the top-level object. */
static const char *locate_key(const char *json, size_t len, size_t k)
{
	return json_locate(json, len, &k, 1, true);
}

/* The value of member k, or element j of it when j != SIZE_MAX. */
static const char *locate_value(const char *json, size_t len, size_t k, size_t j)
{
	const size_t steps[2] = { k, j };

	return json_locate(json, len, steps, j == SIZE_MAX ? 1 : 2, false);
}

/* ---- Reading: errors --------------------------------------------------------- */

struct reader {
	const char *json;
	size_t len;
	struct cordon_error *reterr;
};

static int fail_at(const struct reader *rd, const char *at, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail_at(const struct reader *rd, const char *at, const char *path, const char *fmt, ...)
{
	char msg[sizeof(rd->reterr->message)];
	int line, column;
	va_list ap;

	if (!rd->reterr)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_position_of(rd->json, at, &line, &column);
	error_set(rd->reterr, -EINVAL, "line %d, column %d: %s", line, column, msg);
	rd->reterr->line = line;
	rd->reterr->column = column;
	snprintf(rd->reterr->path, sizeof(rd->reterr->path), "%s", path);
	return -EINVAL;
}

/* ---- Reading: fields ------------------------------------------------------ */

struct field {
	const char *key;
	size_t index; /* member index in the document */
	json_t *value;
};

static int fail_value(const struct reader *rd, const struct field *f, size_t elem, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* An error about f's value (elem == SIZE_MAX) or one of its elements. */
static int fail_value(const struct reader *rd, const struct field *f, size_t elem, const char *fmt, ...)
{
	const char *at = locate_value(rd->json, rd->len, f->index, elem);
	char what[64], path[96], msg[400];
	va_list ap;

	if (elem == SIZE_MAX) {
		snprintf(what, sizeof(what), "\"%s\"", f->key);
		snprintf(path, sizeof(path), "$.%s", f->key);
	} else {
		snprintf(what, sizeof(what), "\"%s\"[%zu]", f->key, elem);
		snprintf(path, sizeof(path), "$.%s[%zu]", f->key, elem);
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return fail_at(rd, at, path, "%s %s", what, msg);
}

static int read_strv(const struct reader *rd, const struct field *f, bool is_argv, char ***ret)
{
	_cleanup_strv_free_ char **v = NULL;
	size_t n;

	if (!json_is_array(f->value))
		return fail_value(rd, f, SIZE_MAX, "must be an array of strings, not %s",
				  json_type_name(f->value));
	n = json_array_size(f->value);
	if (is_argv && n == 0)
		return fail_value(rd, f, SIZE_MAX, "must not be empty");

	v = calloc(n + 1, sizeof(char *));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(f->value, i);
		const char *s = json_string_value(e);

		if (!json_is_string(e))
			return fail_value(rd, f, i, "must be a string, not %s", json_type_name(e));
		/* jansson refuses \u0000 already; this keeps that true. */
		if (strlen(s) != json_string_length(e))
			return fail_value(rd, f, i, "must not contain a NUL byte");
		if (is_argv && !s[0])
			return fail_value(rd, f, i, "must not be an empty string");
		v[i] = strdup(s);
		if (!v[i])
			return -ENOMEM;
	}
	*ret = TAKE_PTR(v);
	return 0;
}

static int read_codes(const struct reader *rd, const struct field *f, int **ret, size_t *ret_n)
{
	_cleanup_free_ int *codes = NULL;
	size_t n;

	if (!json_is_array(f->value))
		return fail_value(rd, f, SIZE_MAX, "must be an array of integers, not %s",
				  json_type_name(f->value));
	n = json_array_size(f->value);
	if (n > 0) {
		codes = calloc(n, sizeof(int));
		if (!codes)
			return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(f->value, i);
		json_int_t v;

		if (!json_is_integer(e))
			return fail_value(rd, f, i, "must be an integer, not %s", json_type_name(e));
		v = json_integer_value(e);
		if (v < 0 || v > 255)
			return fail_value(rd, f, i, "must be an exit status from 0 to 255, not %" JSON_INTEGER_FORMAT,
					  v);
		codes[i] = (int)v;
	}
	*ret = TAKE_PTR(codes);
	*ret_n = n;
	return 0;
}

/* "a, b or c", for refusals. */
static void choice_add(char *buf, size_t size, int i, int last, const char *name)
{
	size_t o = strlen(buf);

	snprintf(buf + o, size - o, "%s%s", i == 0 ? "" : i == last ? " or " : ", ", name);
}

/* A value as JSON text (quoted, escaped) for messages; NULL on ENOMEM. */
static char *json_show(const json_t *j)
{
	return json_dumps(j, JSON_ENCODE_ANY);
}

/* One reader per enum, with the valid names taken from names.c. */
#define DEFINE_READ_ENUM(kind, type, last)                                                             \
	static int read_##kind(const struct reader *rd, const struct field *f, type *ret)              \
	{                                                                                              \
		_cleanup_free_ char *shown = NULL;                                                     \
		char choices[256] = "";                                                                \
												       \
		if (!json_is_string(f->value))                                                         \
			return fail_value(rd, f, SIZE_MAX, "must be a string, not %s",                 \
					  json_type_name(f->value));                                   \
		if (cordon_##kind##_from_string(json_string_value(f->value), ret) == 0)                \
			return 0;                                                                      \
		for (int i = 0; i <= (int)(last); i++)                                                 \
			choice_add(choices, sizeof(choices), i, (int)(last),                           \
				   cordon_##kind##_to_string((type)i));                                \
		shown = json_show(f->value);                                                           \
		return fail_value(rd, f, SIZE_MAX, "must be %s, not %.100s", choices,                  \
				  shown ? shown : "that");                                             \
	}

DEFINE_READ_ENUM(mode, enum cordon_mode, CORDON_MODE_DANGER_FULL_ACCESS)
DEFINE_READ_ENUM(enforcement, enum cordon_enforcement, CORDON_ENFORCEMENT_SEATBELT)
DEFINE_READ_ENUM(grade, enum cordon_grade, CORDON_GRADE_PARTIAL)
DEFINE_READ_ENUM(status_format, enum cordon_status_format, CORDON_STATUS_BWRAP_NESTED)

/* null (inherit), or NAME=VALUE strings with a non-empty name. */
static int read_envp(const struct reader *rd, const struct field *f, char ***ret)
{
	_cleanup_strv_free_ char **v = NULL;
	int r;

	if (json_is_null(f->value)) {
		*ret = NULL;
		return 0;
	}
	r = read_strv(rd, f, false, &v);
	if (r < 0)
		return r;
	for (size_t i = 0; v[i]; i++)
		if (strcspn(v[i], "=") == 0 || !strchr(v[i], '='))
			return fail_value(rd, f, i, "must be NAME=VALUE");
	*ret = TAKE_PTR(v);
	return 0;
}

static int read_status_fd(const struct reader *rd, const struct field *f, enum cordon_status_format format,
			  int *ret)
{
	json_int_t v;

	if (!json_is_integer(f->value))
		return fail_value(rd, f, SIZE_MAX, "must be an integer, not %s", json_type_name(f->value));
	v = json_integer_value(f->value);
	if (format == CORDON_STATUS_NONE ? v != -1 : (v <= 2 || v > CONFINED_STATUS_FD_MAX))
		return fail_value(rd, f, SIZE_MAX, "must be %s, not %" JSON_INTEGER_FORMAT,
				  format == CORDON_STATUS_NONE ? "-1 without a status format"
							       : "an fd number from 3 to 65535",
				  v);
	*ret = (int)v;
	return 0;
}

static int read_exec_fd(const struct reader *rd, const struct field *f, int status_fd, int *ret)
{
	json_int_t v;

	if (!json_is_integer(f->value))
		return fail_value(rd, f, SIZE_MAX, "must be an integer, not %s", json_type_name(f->value));
	v = json_integer_value(f->value);
	if (v != -1 && (v <= 2 || v > CONFINED_STATUS_FD_MAX || v == status_fd))
		return fail_value(rd, f, SIZE_MAX,
				  "must be -1 or an fd number from 3 to 65535 other than status_fd, not %" JSON_INTEGER_FORMAT,
				  v);
	*ret = (int)v;
	return 0;
}

enum {
	KEY_ARGV,
	KEY_MODE,
	KEY_ENFORCEMENT,
	KEY_GRADE,
	KEY_DENIAL,
	KEY_FATAL,
	KEY_INFO,
	KEY_CODES,
	KEY_ENVP,          /* this one and the next three may be absent */
	KEY_STATUS_FD,
	KEY_STATUS_FORMAT,
	KEY_EXEC_FD,
	KEY_BROKER_FD,
	_KEY_MAX,
};

#define KEY_FIRST_OPTIONAL KEY_ENVP

static const char *const keys[_KEY_MAX] = {
	[KEY_ARGV] = "argv",
	[KEY_MODE] = "mode",
	[KEY_ENFORCEMENT] = "enforcement",
	[KEY_GRADE] = "grade",
	[KEY_DENIAL] = "denial_signatures",
	[KEY_FATAL] = "fatal_signatures",
	[KEY_INFO] = "informational_lines",
	[KEY_CODES] = "allowed_exit_codes",
	[KEY_ENVP] = "envp",
	[KEY_STATUS_FD] = "status_fd",
	[KEY_STATUS_FORMAT] = "status_format",
	[KEY_EXEC_FD] = "exec_fd",
	[KEY_BROKER_FD] = "broker_fd",
};

static int read_fields(const struct reader *rd, json_t *root, struct cordon_confined *c)
{
	struct field fields[_KEY_MAX] = { 0 };
	const char *key;
	json_t *value;
	size_t index = 0;
	int r;

	json_object_foreach(root, key, value) {
		size_t k = 0;

		while (k < _KEY_MAX && strcmp(keys[k], key) != 0)
			k++;
		if (k == _KEY_MAX) {
			_cleanup_json_ json_t *k_json = json_string(key);
			_cleanup_free_ char *shown = k_json ? json_show(k_json) : NULL;

			return fail_at(rd, locate_key(rd->json, rd->len, index), "$", "unknown key %.200s",
				       shown ? shown : "?");
		}
		fields[k] = (struct field){ .key = keys[k], .index = index, .value = value };
		index++;
	}

	for (size_t k = 0; k < KEY_FIRST_OPTIONAL; k++)
		if (!fields[k].value)
			return fail_at(rd, locate_root(rd->json, rd->len), "$", "missing key \"%s\"", keys[k]);

	if ((r = read_strv(rd, &fields[KEY_ARGV], true, &c->argv)) < 0 ||
	    (r = read_mode(rd, &fields[KEY_MODE], &c->mode)) < 0 ||
	    (r = read_enforcement(rd, &fields[KEY_ENFORCEMENT], &c->enforcement)) < 0 ||
	    (r = read_grade(rd, &fields[KEY_GRADE], &c->grade)) < 0 ||
	    (r = read_strv(rd, &fields[KEY_DENIAL], false, &c->denial_signatures)) < 0 ||
	    (r = read_strv(rd, &fields[KEY_FATAL], false, &c->fatal_signatures)) < 0 ||
	    (r = read_strv(rd, &fields[KEY_INFO], false, &c->informational_lines)) < 0 ||
	    (r = read_codes(rd, &fields[KEY_CODES], &c->allowed_exit_codes, &c->n_allowed_exit_codes)) < 0)
		return r;

	c->status_fd = -1;
	c->status_format = CORDON_STATUS_NONE;
	c->exec_fd = -1;
	if (fields[KEY_ENVP].value && (r = read_envp(rd, &fields[KEY_ENVP], &c->envp)) < 0)
		return r;
	if (!fields[KEY_STATUS_FD].value != !fields[KEY_STATUS_FORMAT].value) {
		size_t k = fields[KEY_STATUS_FD].value ? KEY_STATUS_FORMAT : KEY_STATUS_FD;

		return fail_at(rd, locate_root(rd->json, rd->len), "$",
			       "missing key \"%s\" (status_fd and status_format come together)", keys[k]);
	}
	if (fields[KEY_STATUS_FORMAT].value &&
	    ((r = read_status_format(rd, &fields[KEY_STATUS_FORMAT], &c->status_format)) < 0 ||
	     (r = read_status_fd(rd, &fields[KEY_STATUS_FD], c->status_format, &c->status_fd)) < 0))
		return r;
	if (fields[KEY_EXEC_FD].value && (r = read_exec_fd(rd, &fields[KEY_EXEC_FD], c->status_fd, &c->exec_fd)) < 0)
		return r;
	if (fields[KEY_BROKER_FD].value) {
		json_int_t v = json_integer_value(fields[KEY_BROKER_FD].value);

		if (!json_is_integer(fields[KEY_BROKER_FD].value) || v <= 2 || v > CONFINED_STATUS_FD_MAX ||
		    v == c->status_fd || v == c->exec_fd)
			return fail_value(rd, &fields[KEY_BROKER_FD], SIZE_MAX,
					  "must be an fd number from 3 to 65535 other than status_fd and exec_fd");
		c->broker_fd = (int)v;
	}
	return 0;
}

CORDON_API int cordon_confined_from_json(const char *json, size_t len, struct cordon_confined **ret,
					 struct cordon_error *reterr)
{
	const struct reader rd = { .json = json, .len = len, .reterr = reterr };
	struct cordon_confined c = { 0 }, *result;
	_cleanup_json_ json_t *root = NULL;
	json_error_t jerr;
	const char *nul;
	int r;

	if (!ret || (!json && len > 0))
		return error_set(reterr, -EINVAL, "no JSON input");
	if (len > CONFINED_JSON_MAX)
		return error_set(reterr, -EFBIG, "confined JSON is %zu bytes, more than the 1 MiB limit", len);

	/* jansson reads a raw NUL after a number as the end of the input and
	 * accepts what came before: refuse it here. */
	nul = len ? memchr(json, '\0', len) : NULL;
	if (nul)
		return fail_at(&rd, nul, "", "NUL byte in JSON input");

	root = json_loadb(json ? json : "", len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		r = error_set(reterr, -EINVAL, "line %d, column %d: invalid JSON: %s", jerr.line, jerr.column,
			      jerr.text);
		if (reterr) {
			reterr->line = jerr.line;
			reterr->column = jerr.column;
		}
		return r;
	}
	if (!json_is_object(root))
		return fail_at(&rd, locate_root(json, len), "$", "expected an object, not %s",
			       json_type_name(root));

	r = read_fields(&rd, root, &c);
	if (r < 0) {
		confined_clear(&c);
		return r;
	}

	result = malloc(sizeof(*result));
	if (!result) {
		confined_clear(&c);
		return -ENOMEM;
	}
	*result = c;
	*ret = result;
	return 0;
}
