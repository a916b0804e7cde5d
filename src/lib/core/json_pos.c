/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "json_pos.h"

void json_skip_ws(struct json_cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
		c->p++;
}

void json_skip_string(struct json_cursor *c)
{
	c->p++; /* the opening quote */
	while (c->p < c->end && *c->p != '"')
		c->p += *c->p == '\\' ? 2 : 1;
	if (c->p < c->end)
		c->p++;
}

void json_skip_value(struct json_cursor *c)
{
	size_t depth = 0;

	do {
		/* between tokens: a '{' after a space is still an object */
		json_skip_ws(c);
		if (c->p >= c->end)
			return;
		switch (*c->p) {
		case '"':
			json_skip_string(c);
			continue;
		case '{':
		case '[':
			depth++;
			break;
		case '}':
		case ']':
			depth--;
			break;
		default:
			/* a scalar: up to the next delimiter */
			while (c->p + 1 < c->end && !strchr(",:]} \t\n\r", c->p[1]))
				c->p++;
			break;
		}
		c->p++;
	} while (depth > 0);
}

void json_skip_comma(struct json_cursor *c)
{
	json_skip_ws(c);
	if (c->p < c->end && *c->p == ',')
		c->p++;
	json_skip_ws(c);
}

/* The member after the cursor's key: key, ':', value. */
static void skip_to_member_value(struct json_cursor *c)
{
	json_skip_string(c);
	json_skip_ws(c);
	c->p++; /* ':' */
	json_skip_ws(c);
}

const char *json_locate(const char *text, size_t len, const size_t *steps, size_t n, bool at_key)
{
	struct json_cursor c = { text, text + len };

	json_skip_ws(&c);
	for (size_t i = 0; i < n && c.p < c.end; i++) {
		if (*c.p == '{') {
			c.p++;
			json_skip_ws(&c);
			for (size_t k = 0; k < steps[i] && c.p < c.end; k++) {
				skip_to_member_value(&c);
				json_skip_value(&c);
				json_skip_comma(&c);
			}
			if (i == n - 1 && at_key)
				break;
			skip_to_member_value(&c);
		} else if (*c.p == '[') {
			c.p++;
			json_skip_ws(&c);
			for (size_t k = 0; k < steps[i] && c.p < c.end; k++) {
				json_skip_value(&c);
				json_skip_comma(&c);
			}
		} else
			break;
	}
	return c.p < c.end ? c.p : c.end;
}

void json_position_of(const char *text, const char *at, int *ret_line, int *ret_column)
{
	int line = 1, column = 1;

	for (const char *p = text; p < at; p++) {
		if (*p == '\n') {
			line++;
			column = 1;
		} else if (((unsigned char)*p & 0xc0) != 0x80) {
			column++;
		}
	}
	*ret_line = line;
	*ret_column = column;
}

const char *json_type_name(const json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a fractional number";
	case JSON_TRUE:
		return "true";
	case JSON_FALSE:
		return "false";
	case JSON_NULL:
		return "null";
	}
	return "an unknown value";
}
