/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <jansson.h>

/*
 * Finding positions in JSON text that jansson has already accepted (jansson
 * keeps no positions for values), so error messages can say line:column for
 * a wrong type deep in a document. The grammar is known to hold; bounds are
 * still checked on every step.
 */
struct json_cursor {
	const char *p, *end;
};

void json_skip_ws(struct json_cursor *c);
void json_skip_string(struct json_cursor *c);
/* Step over one whole value (scalar, string, object or array). */
void json_skip_value(struct json_cursor *c);
/* Step over the separator after a member or element, if there is one. */
void json_skip_comma(struct json_cursor *c);
/* 1-based line and column (in characters, not bytes) of at within text. */
void json_position_of(const char *text, const char *at, int *ret_line, int *ret_column);
/* "an object", "a string", ... for messages. */
const char *json_type_name(const json_t *j);
