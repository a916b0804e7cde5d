/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The audit log's reader: split into lines (capped), parse each as one JSON
 * object, and check it against the chain: format version, seq in order,
 * the session's id, prev = SHA-256 of the line before, session_start first
 * and nothing after session_end. The first line that fails is named with
 * what is wrong; the lines after it are still handed to the caller (shown,
 * marked unverified), never checked against a chain already broken.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit_read.h"
#include "cleanup.h"

static const char zero_hash[] = "0000000000000000000000000000000000000000000000000000000000000000";

const char *audit_state_name(enum audit_state s)
{
	switch (s) {
	case AUDIT_INTACT:
		return "intact";
	case AUDIT_INCOMPLETE:
		return "incomplete";
	case AUDIT_TAMPERED:
		return "tampered";
	}
	return "unknown";
}

void audit_chain_init(struct audit_chain *c, const char *expect_session)
{
	*c = (struct audit_chain){};
	memcpy(c->prev, zero_hash, SHA256_HEX);
	if (expect_session)
		snprintf(c->session, sizeof(c->session), "%s", expect_session);
}

#define bad(why, n, ...) (snprintf(why, n, __VA_ARGS__), -EBADMSG)

/* The string at key, or NULL when it is missing or not a string. */
static const char *string_at(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static int check_record(struct audit_chain *c, json_t *o, const char *hash, char *why, size_t n)
{
	json_t *v = json_object_get(o, "v"), *seq = json_object_get(o, "seq");
	const char *session = string_at(o, "session"), *prev = string_at(o, "prev"), *event = string_at(o, "event");
	json_int_t s;

	if (!json_is_integer(v) || json_integer_value(v) != AUDIT_FORMAT_VERSION)
		return bad(why, n, "not a version %d record (v is missing or another)", AUDIT_FORMAT_VERSION);
	if (!json_is_integer(seq))
		return bad(why, n, "no seq");
	s = json_integer_value(seq);
	if (s < 0 || (uint64_t)s != c->seq)
		return bad(why, n, "seq is %lld where %llu was expected: %s", (long long)s, (unsigned long long)c->seq,
			   (uint64_t)s > c->seq ? "a record before it was deleted, or lines were reordered"
						: "a record was inserted or repeated, or lines were reordered");
	if (!session || !audit_valid_id(session))
		return bad(why, n, "no valid session id");
	if (c->session[0] && strcmp(session, c->session) != 0)
		return bad(why, n, "the session id is %s, not %s: a record of another session", session, c->session);
	if (!prev || strcmp(prev, c->prev) != 0)
		return bad(why, n,
			   c->seq ? "prev is not the SHA-256 of the line before: that line was edited, or a line "
				    "was inserted or deleted here"
				  : "prev of the first record is not 64 zeros");
	if (!event || !event[0])
		return bad(why, n, "no event");
	if (!string_at(o, "time"))
		return bad(why, n, "no time");
	if (c->ended)
		return bad(why, n, "a record after session_end");
	if ((c->seq == 0) != (strcmp(event, "session_start") == 0))
		return bad(why, n, c->seq ? "a second session_start" : "the first record is %s, not session_start",
			   event);
	if (!c->session[0])
		snprintf(c->session, sizeof(c->session), "%s", session);
	c->ended = strcmp(event, "session_end") == 0;
	memcpy(c->prev, hash, SHA256_HEX);
	c->seq++;
	return 0;
}

int audit_chain_next(struct audit_chain *c, const char *line, size_t len, json_t **ret_record, char *why, size_t n)
{
	char hash[SHA256_HEX];
	json_error_t err;
	json_t *o;
	int r;

	if (len == 0)
		return bad(why, n, "an empty line");
	if (len + 1 > AUDIT_MAX_LINE_BYTES)
		return bad(why, n, "longer than %u bytes, which cordon never writes", AUDIT_MAX_LINE_BYTES);
	if (c->seq >= AUDIT_MAX_RECORDS)
		return bad(why, n, "more than %u records, which cordon never writes", AUDIT_MAX_RECORDS);
	/* the hash first: the next line's prev covers these bytes, exactly */
	r = sha256_hex(line, len, hash);
	if (r < 0)
		return r;
	o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &err);
	if (!o)
		return bad(why, n, "not JSON: %s", err.text);
	if (!json_is_object(o)) {
		json_decref(o);
		return bad(why, n, "not a JSON object");
	}
	r = check_record(c, o, hash, why, n);
	if (r < 0) {
		json_decref(o);
		return r;
	}
	if (ret_record)
		*ret_record = o;
	else
		json_decref(o);
	return 0;
}

/* What session_start says, into the summary. */
static void note_start(struct audit_summary *s, json_t *o)
{
	const char *t = string_at(o, "time"), *p = string_at(o, "profile"), *k = string_at(o, "head_key");

	snprintf(s->started, sizeof(s->started), "%s", t ? t : "");
	snprintf(s->profile, sizeof(s->profile), "%s", p ? p : "");
	snprintf(s->head_key, sizeof(s->head_key), "%s", k && strlen(k) == ED25519_PUB_HEX - 1 ? k : "");
}

/* After the first bad line: show what still parses, check nothing. */
static int pass_unverified(const char *line, size_t len, uint64_t no, audit_record_fn records, void *userdata)
{
	json_t *o;
	int r;

	if (!records || len + 1 > AUDIT_MAX_LINE_BYTES)
		return 0;
	o = json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL);
	if (!json_is_object(o)) {
		json_decref(o);
		return 0;
	}
	r = records(userdata, no, o, false);
	json_decref(o);
	return r;
}

int audit_scan(const char *buf, size_t len, const char *expect_session, audit_record_fn records, void *userdata,
	       struct audit_summary *ret)
{
	struct audit_summary s = {.state = AUDIT_INTACT};
	struct audit_chain c;
	char what[200]; /* room for "line N: " in why */
	size_t off = 0;
	bool broken = false;
	int r;

	audit_chain_init(&c, expect_session);
	memcpy(s.head, zero_hash, SHA256_HEX);
	if (len > AUDIT_MAX_FILE_BYTES) {
		s.state = AUDIT_TAMPERED;
		s.bad_line = 1;
		snprintf(s.why, sizeof(s.why), "the log is over %llu bytes, which cordon never writes",
			 (unsigned long long)AUDIT_MAX_FILE_BYTES);
		snprintf(s.session, sizeof(s.session), "%s", c.session);
		*ret = s;
		return 0;
	}
	while (off < len) {
		const char *line = buf + off, *nl = memchr(line, '\n', len - off);
		size_t l = nl ? (size_t)(nl - line) : len - off;
		json_t *o = NULL;

		s.lines++;
		off += l + (nl ? 1 : 0);
		if (broken) {
			/* a tail of tiny lines must not become millions of objects */
			if (s.lines - s.bad_line > AUDIT_MAX_UNVERIFIED)
				break;
			r = pass_unverified(line, l, s.lines, records, userdata);
			if (r < 0)
				return r;
			continue;
		}
		if (!nl) {
			/* one write per line: only a writer stopped mid-write leaves this */
			s.state = AUDIT_INCOMPLETE;
			s.bad_line = s.lines;
			snprintf(s.why, sizeof(s.why),
				 "line %llu is cut (no newline at its end): the writer was stopped "
				 "while writing it",
				 (unsigned long long)s.lines);
			break;
		}
		r = audit_chain_next(&c, line, l, &o, what, sizeof(what));
		if (r == -EBADMSG) {
			snprintf(s.why, sizeof(s.why), "line %llu: %s", (unsigned long long)s.lines, what);
			s.state = AUDIT_TAMPERED;
			s.bad_line = s.lines;
			broken = true;
			r = pass_unverified(line, l, s.lines, records, userdata);
			if (r < 0)
				return r;
			continue;
		}
		if (r < 0)
			return r;
		if (c.seq == 1)
			note_start(&s, o);
		s.records++;
		memcpy(s.head, c.prev, SHA256_HEX);
		r = records ? records(userdata, s.lines, o, true) : 0;
		json_decref(o);
		if (r < 0)
			return r;
	}
	snprintf(s.session, sizeof(s.session), "%s", c.session);
	if (s.state == AUDIT_INTACT && s.records == 0) {
		s.state = AUDIT_INCOMPLETE;
		snprintf(s.why, sizeof(s.why), "no records: the writer was stopped before its first");
	} else if (s.state == AUDIT_INTACT && !c.ended) {
		s.state = AUDIT_INCOMPLETE;
		snprintf(s.why, sizeof(s.why),
			 "no session_end record: the supervisor was stopped, or the end was cut off");
	}
	*ret = s;
	return 0;
}

int audit_scan_fd(int fd, const char *expect_session, audit_record_fn records, void *userdata,
		  struct audit_summary *ret)
{
	const size_t over = AUDIT_MAX_FILE_BYTES + 1;
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap;
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	/* the size is a hint (a live session's log grows): what is read is
	 * capped whatever it says, one byte past the cap tells "too big" */
	cap = (uint64_t)st.st_size >= over ? over : (size_t)st.st_size + 1;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t l = pread(fd, buf + len, cap - len, (off_t)len);

		if (l < 0 && errno == EINTR)
			continue;
		if (l < 0)
			return -errno;
		if (l == 0)
			break;
		len += (size_t)l;
		if (len == cap) {
			char *more;

			if (cap == over)
				break;
			cap = cap > over / 2 ? over : cap * 2;
			more = realloc(buf, cap);
			if (!more)
				return -ENOMEM;
			buf = more;
		}
	}
	return audit_scan(buf, len, expect_session, records, userdata, ret);
}

static bool hex_of(const char *s, size_t n)
{
	return s && strlen(s) == n && strspn(s, "0123456789abcdef") == n;
}

int audit_head_parse(const char *buf, size_t len, const char *session, struct audit_signed_head *ret)
{
	json_t *o;
	const char *h, *k, *sg, *ss;
	int r = -EBADMSG;

	if (len > AUDIT_HEAD_FILE_MAX)
		return -EBADMSG;
	o = json_loadb(buf, len, JSON_REJECT_DUPLICATES, NULL);
	if (!json_is_object(o)) {
		json_decref(o);
		return -EBADMSG;
	}
	h = json_string_value(json_object_get(o, "head"));
	k = json_string_value(json_object_get(o, "head_key"));
	sg = json_string_value(json_object_get(o, "signature"));
	ss = json_string_value(json_object_get(o, "session"));
	if (ss && session && strcmp(ss, session) == 0 && hex_of(h, SHA256_HEX - 1) && hex_of(k, ED25519_PUB_HEX - 1) &&
	    hex_of(sg, ED25519_SIG_HEX - 1)) {
		memcpy(ret->head, h, SHA256_HEX);
		memcpy(ret->key, k, ED25519_PUB_HEX);
		memcpy(ret->sig, sg, ED25519_SIG_HEX);
		r = 0;
	}
	json_decref(o);
	return r;
}

int audit_head_verify(const struct audit_signed_head *h, const char *session)
{
	char *msg = NULL;
	int r = audit_head_message(session, h->head, &msg);

	if (r < 0)
		return r;
	r = ed25519_verify_hex(h->key, msg, strlen(msg), h->sig);
	free(msg);
	return r == -ENOMEM ? r : r < 0 ? -EBADMSG : 0;
}

bool audit_session_of(const char *path, char id[AUDIT_MAX_ID + 1])
{
	const char *base = strrchr(path, '/');
	size_t n, suffix = strlen(AUDIT_SUFFIX);
	char stem[AUDIT_MAX_ID + 1];

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n <= suffix || n - suffix > AUDIT_MAX_ID || strcmp(base + n - suffix, AUDIT_SUFFIX) != 0)
		return false;
	memcpy(stem, base, n - suffix);
	stem[n - suffix] = '\0';
	if (!audit_valid_id(stem))
		return false;
	memcpy(id, stem, n - suffix + 1);
	return true;
}
