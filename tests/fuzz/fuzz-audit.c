/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The audit log's reader on arbitrary bytes: `cordon audit` reads files
 * anyone with the user's rights could have edited. Nothing may crash, read
 * out of bounds or leak; the verdict must be consistent with what was
 * read: intact only with a session_end and every line verified, a bad line
 * within the lines seen, the records counted no more than the lines, and
 * the records handed over in order with verified ones first.
 *
 * Input: byte 0 picks whether the records must carry a given session id
 * (as for a SESSION in the audit directory) or agree among themselves (a
 * FILE); the rest is the file.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "audit_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define check(x)                                                                                                       \
	do {                                                                                                           \
		if (!(x))                                                                                              \
			abort();                                                                                       \
	} while (0)

struct seen {
	uint64_t last_line, verified, unverified;
};

static int record(void *userdata, uint64_t line, json_t *o, bool verified)
{
	struct seen *s = userdata;

	check(json_is_object(o));
	check(line > s->last_line);
	/* once a line failed, nothing after it is vouched for */
	check(!verified || s->unverified == 0);
	s->last_line = line;
	if (verified) {
		s->verified++;
		check(json_integer_value(json_object_get(o, "seq")) == (json_int_t)(s->verified - 1));
	} else {
		s->unverified++;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct audit_summary sum;
	struct seen s = {};
	const char *expect = NULL;

	struct audit_signed_head h;

	if (size < 1)
		return 0;
	/* the same bytes as a stored signed head: parsed under its cap, and
	 * what parses is hex of the right lengths; a signature is checked
	 * without harm */
	if (audit_head_parse((const char *)data + 1, size - 1, "20261202T014731Z-1a2b3c4d", &h) == 0) {
		check(strlen(h.head) == 64 && strlen(h.key) == 64 && strlen(h.sig) == 128);
		int r = audit_head_verify(&h, "20261202T014731Z-1a2b3c4d");

		check(r == 0 || r == -EBADMSG || r == -ENOMEM);
	}
	if (data[0] & 1)
		expect = "20261202T014731Z-1a2b3c4d";
	if (audit_scan((const char *)data + 1, size - 1, expect, record, &s, &sum) < 0)
		abort(); /* only a callback error stops a scan */
	check(sum.records == s.verified);
	check(sum.records <= sum.lines);
	check(sum.bad_line <= sum.lines);
	check(strlen(sum.head) == 64);
	switch (sum.state) {
	case AUDIT_INTACT:
		check(sum.bad_line == 0 && sum.records == sum.lines && sum.records >= 2 && !sum.why[0]);
		check(!expect || strcmp(sum.session, expect) == 0);
		break;
	case AUDIT_INCOMPLETE:
		check(sum.why[0] && s.unverified == 0);
		break;
	case AUDIT_TAMPERED:
		check(sum.why[0] && sum.bad_line >= 1 && sum.records == sum.bad_line - 1);
		break;
	}
	return 0;
}
