/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The credential channel's message bodies: round trips, and what the
 * proxy must never take as an answer refused (a malformed id, trailing
 * bytes, a request with spaces or no leading slash, a field over its cap). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cred_proto.h"

static struct msgbuf *new_buf(void)
{
	struct msgbuf *b = msgbuf_new(CRED_MSG_MAX);

	cr_assert_not_null(b);
	return b;
}

static const struct cred_req req = { .cred = "gh", .host = "api.github.com", .method = "POST",
				     .path = "/repos/o/r/issues" };

Test(cred_proto, decision_round_trip)
{
	_cleanup_msgbuf_ struct msgbuf *b = new_buf();
	struct cred_decision in = { .seq = 7, .allow = true, .id = "0123456789abcdef0123456789abcdef",
				    .outcome = "granted", .reason = "yes (approval: me)", .req = req },
			     out = {};

	cr_assert_eq(cred_decision_encode(b, &in), 0);
	cr_assert_eq(cred_decision_decode(b, &out), 0);
	cr_assert_eq(out.seq, 7);
	cr_assert(out.allow);
	cr_assert_str_eq(out.id, in.id);
	cr_assert(cred_req_equal(&out.req, &req));
	cred_decision_done(&out);
}

Test(cred_proto, decision_with_a_bad_id_is_refused)
{
	static const char *const ids[] = {"0123456789ABCDEF0123456789ABCDEF", "0123",
					  "0123456789abcdef0123456789abcdeg", ""};

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		_cleanup_msgbuf_ struct msgbuf *b = new_buf();
		struct cred_decision in = { .seq = 1, .allow = true, .id = (char *)ids[i], .outcome = "granted",
					    .reason = "", .req = req },
				     out = {};

		cr_assert_eq(cred_decision_encode(b, &in), 0);
		cr_assert_lt(cred_decision_decode(b, &out), 0, "id %s", ids[i]);
		cr_assert_null(out.id);
	}
}

Test(cred_proto, trailing_bytes_are_refused)
{
	_cleanup_msgbuf_ struct msgbuf *b = new_buf();
	uint32_t seq;
	char *name = NULL;

	cr_assert_eq(cred_value_ask_encode(b, 3, "gh"), 0);
	cr_assert_eq(msgbuf_put_u8(b, 0), 0);
	cr_assert_eq(cred_value_ask_decode(b, &seq, &name), -EBADMSG);
	cr_assert_null(name);
}

Test(cred_proto, a_request_must_be_words_and_a_path)
{
	static const struct cred_req bad[] = {
		{ .cred = "gh", .host = "api.github.com", .method = "POST", .path = "repos" },
		{ .cred = "gh", .host = "api github.com", .method = "POST", .path = "/x" },
		{ .cred = "", .host = "h", .method = "POST", .path = "/x" },
		{ .cred = "gh", .host = "h", .method = "PO\x1bST", .path = "/x" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		_cleanup_msgbuf_ struct msgbuf *b = new_buf();
		struct cred_req out = {};
		uint32_t seq;

		cr_assert_eq(cred_approve_ask_encode(b, 1, &bad[i]), 0);
		cr_assert_lt(cred_approve_ask_decode(b, &seq, &out), 0, "request %zu", i);
		cr_assert_null(out.cred);
	}
}

Test(cred_proto, a_field_over_its_cap_is_not_written)
{
	_cleanup_msgbuf_ struct msgbuf *b = new_buf();
	char path[CRED_PATH_MAX + 2];
	struct cred_req q = req;

	memset(path, 'a', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	q.path = path;
	cr_assert_eq(cred_approve_ask_encode(b, 1, &q), -E2BIG);
}

Test(cred_proto, requests_differ_in_any_field)
{
	struct cred_req other = req;

	cr_assert(cred_req_equal(&req, &other));
	other.path = "/repos/o/r/issues/1";
	cr_assert_not(cred_req_equal(&req, &other));
	other = req;
	other.method = "GET";
	cr_assert_not(cred_req_equal(&req, &other));
	other = req;
	other.cred = "gl";
	cr_assert_not(cred_req_equal(&req, &other));
}

Test(cred_proto, value_reply_round_trip)
{
	_cleanup_msgbuf_ struct msgbuf *b = new_buf();
	struct cred_value_reply in = {.seq = 9, .ok = false, .lifetime_ms = 0, .reason = "capture tok: exited 1"},
				out = {};

	cr_assert_eq(cred_value_reply_encode(b, &in), 0);
	cr_assert_eq(cred_value_reply_decode(b, &out), 0);
	cr_assert_eq(out.seq, 9);
	cr_assert_not(out.ok);
	cr_assert_str_eq(out.reason, in.reason);
	cred_value_reply_done(&out);
}
