/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `cordon audit list|show|verify`: the tool sandbox's audit logs, read and
 * checked by src/supervisor/audit_read.c. Linked only into
 * cordon-supervisor (the chain is SHA-256: libcrypto); the lean cordon
 * execs it for this command. Everything printed comes from a file that may
 * have been tampered with, so every string is escaped again before it
 * reaches the terminal.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "audit_read.h"
#include "cleanup.h"
#include "cli.h"
#include "redact.h"
#include "strv.h"

/* Exit codes of show and verify (the usage and cordon-audit(1) say them). */
#define EXIT_TAMPERED	1
#define EXIT_INCOMPLETE 2
/* The logs `list` reads from the directory. */
#define MAX_SESSIONS 10000

static int exit_code(enum audit_state s)
{
	switch (s) {
	case AUDIT_INTACT:
		return 0;
	case AUDIT_INCOMPLETE:
		return EXIT_INCOMPLETE;
	case AUDIT_TAMPERED:
		return EXIT_TAMPERED;
	}
	return EXIT_TAMPERED;
}

/* s, from the file, safe for a terminal (caller frees; NULL: ""): the
 * writer escaped it, an editor may have put anything in. */
static char *shown(const char *s, size_t max)
{
	char *out = NULL;

	if (redact_terminal_safe(s ? s : "", s ? strlen(s) : 0, max, &out) < 0)
		return NULL;
	return out;
}

/* ---- finding a log ---- */

struct log_ref {
	char *path;
	char session[AUDIT_MAX_ID + 1]; /* what the records must say; "" for a FILE */
	int fd;
};

static void log_ref_done(struct log_ref *l)
{
	free(l->path);
	if (l->fd >= 0)
		close(l->fd);
}

/* SESSION (an id in the audit directory) or FILE (it has a '/' or ends in
 * .jsonl). A SESSION's records must carry its id, so a log renamed to
 * another session's name does not verify; a FILE's need only agree. */
static int open_log(const char *arg, struct log_ref *ret)
{
	struct log_ref l = {.fd = -1};
	_cleanup_free_ char *dir = NULL;
	size_t n = strlen(arg);
	int r;

	if (strchr(arg, '/') ||
	    (n > strlen(AUDIT_SUFFIX) && strcmp(arg + n - strlen(AUDIT_SUFFIX), AUDIT_SUFFIX) == 0)) {
		l.path = strdup(arg);
		if (!l.path)
			return -ENOMEM;
		l.fd = open(arg, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	} else {
		if (!audit_valid_id(arg)) {
			cli_say("'%.100s' is neither a session id nor a file (a path with '/' or ending in %s)", arg,
				AUDIT_SUFFIX);
			return -EINVAL;
		}
		r = audit_dir_path(NULL, &dir);
		if (r < 0) {
			cli_say("no audit directory: neither XDG_STATE_HOME nor HOME is an absolute path");
			return r;
		}
		if (asprintf(&l.path, "%s/%s%s", dir, arg, AUDIT_SUFFIX) < 0)
			return -ENOMEM;
		snprintf(l.session, sizeof(l.session), "%s", arg);
		l.fd = open(l.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
	}
	if (l.fd < 0) {
		r = -errno;
		cli_say("cannot open the audit log %s: %s", l.path, strerror(-r));
		free(l.path);
		return r;
	}
	*ret = l;
	return 0;
}

static int scan(struct log_ref *l, audit_record_fn fn, void *userdata, struct audit_summary *ret)
{
	int r = audit_scan_fd(l->fd, l->session[0] ? l->session : NULL, fn, userdata, ret);

	if (r == -EINVAL)
		cli_say("%s is not a regular file", l->path);
	else if (r < 0)
		cli_say("cannot read the audit log %s: %s", l->path, strerror(-r));
	return r;
}

/* The verdict as JSON fields on o. */
static int summary_json(json_t *o, const char *path, const struct audit_summary *s)
{
	int r = 0;

	r |= json_object_set_new(o, "file", cli_json_text(path, strlen(path)));
	r |= json_object_set_new(o, "session", json_string(s->session));
	r |= json_object_set_new(o, "state", json_string(audit_state_name(s->state)));
	r |= json_object_set_new(o, "records", json_integer((json_int_t)s->records));
	r |= json_object_set_new(o, "lines", json_integer((json_int_t)s->lines));
	r |= json_object_set_new(o, "bad_line", s->bad_line ? json_integer((json_int_t)s->bad_line) : json_null());
	r |= json_object_set_new(o, "why", s->why[0] ? cli_json_text(s->why, strlen(s->why)) : json_null());
	r |= json_object_set_new(o, "started", s->started[0] ? json_string(s->started) : json_null());
	r |= json_object_set_new(o, "profile",
				 s->profile[0] ? cli_json_text(s->profile, strlen(s->profile)) : json_null());
	r |= json_object_set_new(o, "head", json_string(s->head));
	return r ? -ENOMEM : 0;
}

/* "intact: 12 records, head ..." and the like, one line. */
static void print_verdict(const char *path, const struct audit_summary *s)
{
	_cleanup_free_ char *p = shown(path, 1024), *why = shown(s->why, 512);

	switch (s->state) {
	case AUDIT_INTACT:
		printf("intact: %s: %llu records of session %s, head %s\n", p, (unsigned long long)s->records,
		       s->session, s->head);
		break;
	case AUDIT_INCOMPLETE:
		printf("incomplete: %s: %llu records verify; %s\n", p, (unsigned long long)s->records, why);
		break;
	case AUDIT_TAMPERED:
		printf("tampered: %s: %s\n", p, why);
		break;
	}
}

/* ---- verify ---- */

/* A signed head: given on the command line, or kept by the supervisor. */
struct signed_head {
	const char *source; /* "given", "stored", or NULL: none */
	char head[SHA256_HEX];
	char key[ED25519_PUB_HEX];
	char sig[ED25519_SIG_HEX];
};

/* The head the supervisor stored for the log at path (<dir>-heads/
 * <session>.head, audit.h): 0 and *ret, -ENOENT when there is none, or
 * -EBADMSG when it is not one (which verify calls tampered). */
static int stored_head(const char *path, const char *session, struct signed_head *ret)
{
	_cleanup_free_ char *file = NULL, *dir = strdup(path);
	_cleanup_close_ int fd = -1;
	char buf[AUDIT_HEAD_FILE_MAX + 1];
	struct audit_signed_head h;
	ssize_t n;
	char *slash;

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	if (asprintf(&file, "%s%s/%s%s", slash ? dir : ".", AUDIT_HEADS_SUFFIX, session, AUDIT_HEAD_SUFFIX) < 0) {
		file = NULL;
		return -ENOMEM;
	}
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : -EBADMSG;
	n = read(fd, buf, sizeof(buf));
	if (n <= 0 || audit_head_parse(buf, (size_t)n, session, &h) < 0)
		return -EBADMSG;
	*ret = (struct signed_head){.source = "stored"};
	memcpy(ret->head, h.head, SHA256_HEX);
	memcpy(ret->key, h.key, ED25519_PUB_HEX);
	memcpy(ret->sig, h.sig, ED25519_SIG_HEX);
	return 0;
}

static void tampered(struct audit_summary *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tampered(struct audit_summary *s, const char *fmt, ...)
{
	va_list ap;

	s->state = AUDIT_TAMPERED;
	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
}

/* The signed head against the log: signed by its key, the key the log
 * names, and the log's own head. */
static void check_signed_head(const struct signed_head *h, struct audit_summary *s)
{
	struct audit_signed_head sh;
	int r;

	memcpy(sh.head, h->head, SHA256_HEX);
	memcpy(sh.key, h->key, ED25519_PUB_HEX);
	memcpy(sh.sig, h->sig, ED25519_SIG_HEX);
	r = audit_head_verify(&sh, s->session);
	if (r == -ENOMEM) {
		tampered(s, "cannot check the signed head: out of memory");
		return;
	}
	if (r < 0) {
		tampered(s, "the %s head's signature does not verify under its key: forged", h->source);
		return;
	}
	if (strcmp(h->key, s->head_key) != 0) {
		tampered(s, "the log's session_start names key %s, not the %s key %s: the log was rewritten",
			 s->head_key[0] ? s->head_key : "(none)", h->source, h->key);
		return;
	}
	if (s->state != AUDIT_TAMPERED && strcasecmp(h->head, s->head) != 0)
		/* the end the writer signed is not this file's: cut and closed again, or rewritten */
		tampered(s, "its head is %s, not the signed %s: the log was cut or rewritten", s->head, h->head);
}

static int audit_verify(const struct cli_args *a)
{
	struct log_ref l;
	struct audit_summary s;
	struct signed_head sh = {};
	int r = open_log(a->operands[0], &l);

	if (r < 0)
		return CLI_EXIT_REFUSED;
	r = scan(&l, NULL, NULL, &s);
	if (r >= 0 && a->audit_sig) {
		sh.source = "given";
		snprintf(sh.head, sizeof(sh.head), "%s", a->audit_head);
		for (char *c = sh.head; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		snprintf(sh.key, sizeof(sh.key), "%s", a->audit_pubkey);
		snprintf(sh.sig, sizeof(sh.sig), "%s", a->audit_sig);
		check_signed_head(&sh, &s);
	} else if (r >= 0 && a->audit_head && s.state != AUDIT_TAMPERED && strcasecmp(a->audit_head, s.head) != 0) {
		/* the end the writer reported is not this file's: cut and closed again, or rewritten */
		tampered(&s, "its head is %s, not the %.64s given: the log was cut or rewritten", s.head, a->audit_head);
	}
	if (r >= 0 && !a->audit_sig && s.session[0]) {
		int sr = stored_head(l.path, s.session, &sh);

		if (sr == 0)
			check_signed_head(&sh, &s);
		else if (sr == -EBADMSG)
			tampered(&s, "the stored signed head of session %s is unreadable or malformed", s.session);
		else if (sr == -ENOMEM)
			r = sr;
	}
	if (r >= 0 && a->json) {
		json_t *o = json_object();

		r = o ? summary_json(o, l.path, &s) : -ENOMEM;
		if (r >= 0)
			r = json_object_set_new(o, "signed_head",
						sh.source ? json_pack("{s:s,s:s,s:s,s:s}", "source", sh.source, "head",
								      sh.head, "head_key", sh.key, "signature", sh.sig)
							  : json_null()) < 0
				    ? -ENOMEM
				    : 0;
		if (r >= 0)
			r = cli_print_json(o);
		json_decref(o);
	} else if (r >= 0) {
		print_verdict(l.path, &s);
		if (s.state == AUDIT_INTACT)
			printf(sh.source ? "  the head is signed by the session's key %s (%s)\n"
					 : "  no signed head%s%s: a cut end is caught only with --head\n",
			       sh.source ? sh.key : "", sh.source ? sh.source : "");
	}
	log_ref_done(&l);
	return r < 0 ? CLI_EXIT_REFUSED : exit_code(s.state);
}

/* ---- show ---- */

struct show {
	bool json;
	json_t *records; /* with --json */
	uint64_t unverified;
};

/* A word of an argv for a reader: quoted when it is empty or has a blank
 * or a quote, so the words stay apart (the log has them one by one). */
static void put_word(FILE *f, const char *w)
{
	_cleanup_free_ char *e = shown(w, REDACT_MAX_WORD_BYTES * 2);

	if (!e)
		return;
	if (e[0] && !e[strcspn(e, " '\"")]) {
		fputs(e, f);
		return;
	}
	fputc('\'', f);
	for (const char *c = e; *c; c++)
		if (*c == '\'')
			fputs("'\\''", f);
		else
			fputc(*c, f);
	fputc('\'', f);
}

/* " key=value" for a string field, quoted when it has a space. */
static void put_text(json_t *o, const char *key, const char *label)
{
	const char *v = json_string_value(json_object_get(o, key));
	_cleanup_free_ char *e = NULL;

	if (!v || !(e = shown(v, AUDIT_MAX_TEXT_BYTES)))
		return;
	printf(strchr(e, ' ') || !e[0] ? " %s=\"%s\"" : " %s=%s", label, e);
}

/* " key=N" for a number field. */
static void put_number(json_t *o, const char *key, const char *label, const char *unit)
{
	json_t *v = json_object_get(o, key);

	if (json_is_integer(v))
		printf(" %s=%lld%s", label, (long long)json_integer_value(v), unit);
}

static void print_record(uint64_t line, json_t *o, bool verified)
{
	_cleanup_free_ char *time = shown(json_string_value(json_object_get(o, "time")), 64),
			    *event = shown(json_string_value(json_object_get(o, "event")), 64),
			    *call = shown(json_string_value(json_object_get(o, "call")), 64),
			    *caller = shown(json_string_value(json_object_get(o, "caller")), 128),
			    *command = shown(json_string_value(json_object_get(o, "command")), 128);
	json_t *argv = json_object_get(o, "argv_redacted"), *argc = json_object_get(o, "argc");

	printf("%c%5llu  %s  %s", verified ? ' ' : '!', (unsigned long long)line, time ? time : "", event ? event : "");
	if (call && call[0])
		printf(" [%s]", call);
	if ((caller && caller[0]) || (command && command[0]))
		printf(" %s -> %s", caller && caller[0] ? caller : "?", command && command[0] ? command : "?");
	if (json_is_array(argv)) {
		size_t i;
		json_t *w;

		fputs(":", stdout);
		json_array_foreach(argv, i, w)
		{
			fputc(' ', stdout);
			put_word(stdout, json_string_value(w));
		}
		if (json_is_integer(argc) && json_integer_value(argc) > (json_int_t)json_array_size(argv))
			printf(" ... (%lld more)",
			       (long long)(json_integer_value(argc) - (json_int_t)json_array_size(argv)));
	}
	put_text(o, "decision", "decision");
	put_text(o, "rule", "rule");
	put_text(o, "reason", "reason");
	put_text(o, "backend", "backend");
	put_number(o, "exit_code", "exit", "");
	if (json_integer_value(json_object_get(o, "signal")))
		put_number(o, "signal", "signal", "");
	put_number(o, "duration_ms", "duration", "ms");
	put_number(o, "stdin_bytes", "stdin", "B");
	put_number(o, "stdout_bytes", "stdout", "B");
	put_number(o, "stderr_bytes", "stderr", "B");
	put_text(o, "profile", "profile");
	put_text(o, "workspace", "workspace");
	put_number(o, "records", "records", "");
	putchar('\n');
}

static int show_record(void *userdata, uint64_t line, json_t *record, bool verified)
{
	struct show *sh = userdata;
	json_t *entry;

	if (!verified)
		sh->unverified++;
	if (!sh->json) {
		print_record(line, record, verified);
		return 0;
	}
	entry = json_pack("{s:I, s:b, s:O}", "line", (json_int_t)line, "verified", verified, "record", record);
	if (!entry || json_array_append_new(sh->records, entry) < 0)
		return -ENOMEM;
	return 0;
}

static int audit_show(const struct cli_args *a)
{
	struct show sh = {.json = a->json};
	struct audit_summary s;
	struct log_ref l;
	int r = open_log(a->operands[0], &l);

	if (r < 0)
		return CLI_EXIT_REFUSED;
	if (sh.json && !(sh.records = json_array())) {
		log_ref_done(&l);
		return CLI_EXIT_REFUSED;
	}
	r = scan(&l, show_record, &sh, &s);
	if (r >= 0 && sh.json) {
		json_t *o = json_object();

		r = o ? summary_json(o, l.path, &s) : -ENOMEM;
		if (r >= 0 && json_object_set(o, "entries", sh.records) < 0)
			r = -ENOMEM;
		if (r >= 0)
			r = cli_print_json(o);
		json_decref(o);
	} else if (r >= 0) {
		if (sh.unverified)
			printf("(the %llu records marked ! come after the first bad line: nothing vouches for them)\n",
			       (unsigned long long)sh.unverified);
		print_verdict(l.path, &s);
	}
	json_decref(sh.records);
	log_ref_done(&l);
	if (r == -ENOMEM)
		cli_say("out of memory");
	return r < 0 ? CLI_EXIT_REFUSED : exit_code(s.state);
}

/* ---- list ---- */

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The log file names in the directory open at dfd (it is consumed),
 * sorted: the ids start with their UTC start time. */
static int list_names(int dfd, char ***ret, bool *ret_capped)
{
	_cleanup_strv_free_ char **names = NULL;
	struct strv_builder b = {};
	DIR *d = fdopendir(dfd);
	struct dirent *de;
	size_t n = 0;
	int r;

	if (!d) {
		r = -errno;
		close(dfd);
		return r;
	}
	*ret_capped = false;
	while ((de = readdir(d))) {
		char id[AUDIT_MAX_ID + 1];

		if (!audit_session_of(de->d_name, id))
			continue;
		if (n++ >= MAX_SESSIONS) {
			*ret_capped = true;
			break;
		}
		strvb_add(&b, de->d_name);
	}
	closedir(d);
	names = strvb_finish(&b, &r);
	if (!names)
		return r;
	qsort(names, strv_length(names), sizeof(char *), cmp_str);
	*ret = TAKE_PTR(names);
	return 0;
}

static int unreadable_json(json_t *e, const char *name, int err)
{
	int r = 0;

	r |= json_object_set_new(e, "file", cli_json_text(name, strlen(name)));
	r |= json_object_set_new(e, "state", json_string("unreadable"));
	r |= json_object_set_new(e, "why", json_string(strerror(err)));
	return r ? -ENOMEM : 0;
}

/* One log of the directory, summarised. */
static int list_one(int dfd, const char *name, struct audit_summary *ret, int *ret_errno)
{
	char id[AUDIT_MAX_ID + 1];
	int fd, r;

	if (!audit_session_of(name, id))
		return -EINVAL;
	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
	if (fd < 0) {
		*ret_errno = errno;
		return -errno;
	}
	r = audit_scan_fd(fd, id, NULL, NULL, ret);
	close(fd);
	*ret_errno = r < 0 ? -r : 0;
	return r;
}

static int audit_list(const struct cli_args *a)
{
	_cleanup_strv_free_ char **names = NULL;
	_cleanup_free_ char *dir = NULL, *dir_shown = NULL;
	_cleanup_close_ int dfd = -1;
	_cleanup_(json_decrefp) json_t *o = NULL, *sessions = NULL;
	bool capped = false;
	int r = audit_dir_path(NULL, &dir);

	if (r < 0) {
		cli_say("no audit directory: neither XDG_STATE_HOME nor HOME is an absolute path");
		return CLI_EXIT_REFUSED;
	}
	dir_shown = shown(dir, 1024);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 && errno != ENOENT) {
		cli_say("cannot open the audit directory %s: %s", dir_shown ? dir_shown : "", strerror(errno));
		return CLI_EXIT_REFUSED;
	}
	if (dfd >= 0) {
		r = list_names(fcntl(dfd, F_DUPFD_CLOEXEC, 3), &names, &capped);
		if (r < 0) {
			cli_say("cannot read the audit directory %s: %s", dir_shown ? dir_shown : "", strerror(-r));
			return CLI_EXIT_REFUSED;
		}
	}
	if (a->json) {
		o = json_object();
		sessions = json_array();
		if (!o || !sessions || json_object_set_new(o, "directory", cli_json_text(dir, strlen(dir))) < 0 ||
		    json_object_set(o, "sessions", sessions) < 0) {
			cli_say("out of memory");
			return CLI_EXIT_REFUSED;
		}
	} else if (!names || !names[0]) {
		printf("no audit logs in %s\n", dir_shown ? dir_shown : "");
	} else {
		printf("%-36s %-24s  %-16s %8s  %s\n", "SESSION", "STARTED", "PROFILE", "RECORDS", "STATE");
	}
	STRV_FOREACH(name, names)
	{
		struct audit_summary s;
		int err = 0;

		r = list_one(dfd, *name, &s, &err);
		if (a->json) {
			json_t *e = json_object();

			if (!e || json_array_append_new(sessions, e) < 0 ||
			    (r < 0 ? unreadable_json(e, *name, err) : summary_json(e, *name, &s)) < 0) {
				cli_say("out of memory");
				return CLI_EXIT_REFUSED;
			}
			continue;
		}
		if (r < 0) {
			_cleanup_free_ char *n = shown(*name, 256);

			printf("%-36s %-24s  %-16s %8s  unreadable: %s\n", n ? n : "", "-", "-", "-", strerror(err));
			continue;
		}
		_cleanup_free_ char *profile = shown(s.profile, 16), *started = shown(s.started, 32);
		printf("%-36s %-24s  %-16s %8llu  %s", s.session, started && started[0] ? started : "-",
		       profile && profile[0] ? profile : "-", (unsigned long long)s.records, audit_state_name(s.state));
		if (s.state == AUDIT_TAMPERED && s.bad_line)
			printf(" (line %llu)", (unsigned long long)s.bad_line);
		putchar('\n');
	}
	if (capped)
		cli_say("only the first %d logs of %s are listed", MAX_SESSIONS, dir_shown ? dir_shown : "");
	if (a->json && cli_print_json(o) < 0)
		return CLI_EXIT_REFUSED;
	return 0;
}

int cli_audit(const struct cli_args *a)
{
	switch (a->audit_action) {
	case CLI_AUDIT_LIST:
		return audit_list(a);
	case CLI_AUDIT_SHOW:
		return audit_show(a);
	case CLI_AUDIT_VERIFY:
		return audit_verify(a);
	case CLI_AUDIT_NONE:
		break;
	}
	return CLI_EXIT_REFUSED;
}
