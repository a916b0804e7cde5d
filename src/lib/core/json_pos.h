/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

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
/* Where the value at a path stands in text: steps[i] is a member index (in
 * document order) where the path meets an object, an element index where it
 * meets an array. at_key: point at the last member's key instead of its
 * value. n == 0 is the root. Stops early (pointing where it got to) at
 * anything that is neither; never reads past text + len. */
const char *json_locate(const char *text, size_t len, const size_t *steps, size_t n, bool at_key);
/* 1-based line and column (in characters, not bytes) of at within text. */
void json_position_of(const char *text, const char *at, int *ret_line, int *ret_column);
/* "an object", "a string", ... for messages. */
const char *json_type_name(const json_t *j);
