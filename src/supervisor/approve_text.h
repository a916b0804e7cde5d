/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the terminal backend shows, as printable text (approve_text.c):
 * pure, for the unit tests too. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "approve_record.h"

/* The terminal shows at most this much of an argv (the digest binds all of it). */
#define TERMINAL_ARGV_SHOWN (8 * 1024)

/*
 * s[0..n) into out[0..size) as printable ASCII: every byte outside 0x20..0x7e
 * becomes \xNN (\t \n \r \e as such), '\\' and '"' get a backslash. So no
 * argument can move the cursor, clear the screen or draw a line of its own.
 * Cut at a whole escape, with "..." after, when out is too small. The
 * return is the length written.
 */
size_t escape_printable(const char *s, size_t n, char *out, size_t size);

/*
 * The terminal's prompt: what is asked (backend, caller, command, argv,
 * cwd, digest) in *ret_info and the question in *ret_question, both
 * printable but for their line ends. The caller frees both.
 */
int terminal_prompt(const char *backend, const struct approval_request *req, uint64_t timeout_ms, bool default_allow,
		    char **ret_info, char **ret_question);
/* Is line (as read from the terminal, with its line end) an explicit "yes"? */
bool terminal_answer_is_yes(const char *line, size_t n);
