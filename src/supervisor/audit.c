/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The audit log's writer (audit.h describes the format). Each record is
 * one JSON line and one write(2) on an O_APPEND descriptor, under a lock
 * that also orders seq, time and the chain, so records from concurrent
 * tool calls never interleave and a killed supervisor leaves every line it
 * had written. A failed or short write poisons the log: every later write
 * fails too, and the supervisor refuses further tool calls.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "audit.h"
#include "cleanup.h"
#include "config.h"
#include "redact.h"
#include "strv.h"

/* Kept for session_end, so a log at its caps can still be closed. */
#define END_RESERVE_BYTES 1024
#define MAX_EVENT_NAME	  32

struct audit_log {
	pthread_mutex_t lock;
	int fd;
	int error;	/* the first failed write: every later one fails too */
	uint64_t seq;	/* the next record's */
	uint64_t bytes; /* written so far */
	char prev[SHA256_HEX];
	char session[AUDIT_MAX_ID + 1];
	char *path;
	/* the head's signing key: made here, in memory, never written */
	struct signing_key *key;
	char pubkey[ED25519_PUB_HEX];
	int heads_fd; /* the signed head goes there at the end */
};

bool audit_valid_id(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > AUDIT_MAX_ID || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
		      c == '-'))
			return false;
	}
	return true;
}

int audit_new_session_id(char *buf, size_t n)
{
	char rnd[9], stamp[32];
	struct tm tm;
	time_t now = time(NULL);
	int r;

	if (n < 26)
		return -ENOBUFS;
	if (!gmtime_r(&now, &tm) || strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm) == 0)
		return -EINVAL;
	r = random_hex(4, rnd);
	if (r < 0)
		return r;
	snprintf(buf, n, "%s-%s", stamp, rnd);
	return 0;
}

/* An absolute path from the environment, or NULL (XDG: a relative value is
 * to be ignored). */
static const char *absolute_env(const char *name)
{
	const char *v = secure_getenv(name);

	return v && v[0] == '/' ? v : NULL;
}

int audit_heads_dir_path(const char *dir, char **ret)
{
	_cleanup_free_ char *audit = NULL;
	char *p;
	int r = audit_dir_path(dir, &audit);

	if (r < 0)
		return r;
	if (asprintf(&p, "%s%s", audit, AUDIT_HEADS_SUFFIX) < 0)
		return -ENOMEM;
	*ret = p;
	return 0;
}

int audit_head_message(const char *session, const char *head, char **ret)
{
	char *m;

	if (asprintf(&m, "%s\n%s\n%s", AUDIT_HEAD_CONTEXT, session, head) < 0)
		return -ENOMEM;
	*ret = m;
	return 0;
}

int audit_dir_path(const char *dir, char **ret)
{
	const char *base;
	char *p;

	if (dir)
		p = strdup(dir);
	else if ((base = absolute_env("XDG_STATE_HOME")))
		p = asprintf(&p, "%s/cordon/audit", base) < 0 ? NULL : p;
	else if ((base = absolute_env("HOME")))
		p = asprintf(&p, "%s/.local/state/cordon/audit", base) < 0 ? NULL : p;
	else
		return -ENOENT;
	if (!p)
		return -ENOMEM;
	*ret = p;
	return 0;
}

/* The number of components of path. */
static size_t count_components(const char *path)
{
	size_t n = 0;

	for (const char *p = path; *p;) {
		p += strspn(p, "/");
		if (!*p)
			break;
		n++;
		p += strcspn(p, "/");
	}
	return n;
}

/*
 * Open the directory at path (absolute), making what is missing (0700).
 * Its last `owned` components are cordon's: each is opened without
 * following a symlink and must belong to this user and be writable by no
 * one else, or another user could swap the log under us.
 */
static int open_dir_tree(const char *path, size_t owned, int *ret_fd)
{
	_cleanup_close_ int fd = -1;
	size_t total = count_components(path), i = 0;
	char name[256];

	if (path[0] != '/')
		return -EINVAL;
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (const char *p = path; *p;) {
		size_t l;
		bool own;
		int nfd;

		p += strspn(p, "/");
		if (!*p)
			break;
		l = strcspn(p, "/");
		if (l >= sizeof(name))
			return -ENAMETOOLONG;
		memcpy(name, p, l);
		name[l] = '\0';
		p += l;
		own = i++ >= total - owned;
		if (own && (strcmp(name, ".") == 0 || strcmp(name, "..") == 0))
			return -EINVAL;
		if (mkdirat(fd, name, 0700) < 0 && errno != EEXIST)
			return -errno;
		nfd = openat(fd, name,
			     own ? O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC : O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (nfd < 0) {
			struct stat st;
			int r = -errno;

			/* O_DIRECTORY may say ENOTDIR for a symlink: say what it is */
			if (own && r == -ENOTDIR && fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode))
				r = -ELOOP;
			return r;
		}
		close(fd);
		fd = nfd;
		if (own) {
			struct stat st;

			if (fstat(fd, &st) < 0)
				return -errno;
			if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
				return -EPERM;
		}
	}
	*ret_fd = TAKE_FD(fd);
	return 0;
}

/* ---- building a record ---- */

static int set_new(json_t *o, const char *key, json_t *v)
{
	return json_object_set_new(o, key, v) < 0 ? -ENOMEM : 0;
}

/* A free-text field, escaped and capped; NULL is left out. */
static int set_text(json_t *o, const char *key, const char *value)
{
	_cleanup_free_ char *s = NULL;
	int r;

	if (!value)
		return 0;
	r = redact_escape(value, strlen(value), AUDIT_MAX_TEXT_BYTES, &s);
	if (r < 0)
		return r;
	return set_new(o, key, json_string(s));
}

static int set_uint(json_t *o, const char *key, uint64_t v)
{
	return set_new(o, key, json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v));
}

static int set_argv(json_t *o, const char *const *argv, const char *const *secret_flags)
{
	_cleanup_strv_free_ char **redacted = NULL;
	char hex[SHA256_HEX];
	json_t *words;
	size_t argc = 0;
	int r;

	while (argv[argc])
		argc++;
	r = sha256_strv_hex(argv, hex);
	if (r < 0)
		return r;
	r = redact_argv_full(argv, secret_flags, REDACT_MAX_WORDS, &redacted);
	if (r < 0)
		return r;
	words = json_array();
	if (!words)
		return -ENOMEM;
	r = set_new(o, "argv_redacted", words);
	if (r < 0)
		return r;
	STRV_FOREACH(w, redacted)
	if (json_array_append_new(words, json_string(*w)) < 0)
		return -ENOMEM;
	r = set_uint(o, "argc", argc);
	if (r < 0)
		return r;
	return set_new(o, "argv_sha256", json_string(hex));
}

static int set_env_names(json_t *o, const char *const *names)
{
	char hex[SHA256_HEX];
	size_t n = 0;
	int r;

	while (names[n])
		n++;
	r = sha256_strv_hex(names, hex);
	if (r < 0)
		return r;
	r = set_uint(o, "env_count", n);
	if (r < 0)
		return r;
	return set_new(o, "env_names_sha256", json_string(hex));
}

static bool valid_event_name(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n > MAX_EVENT_NAME)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

/* The event's fields; the chain's are added when it is written. */
static int event_object(const struct audit_event *e, json_t **ret)
{
	json_t *o = json_object();
	const struct {
		const char *key, *value;
	} texts[] = {
		{"call", e->call_id}, {"caller", e->caller}, {"command", e->command}, {"decision", e->decision},
		{"rule", e->rule},    {"reason", e->reason}, {"backend", e->backend},
	};
	char hex[SHA256_HEX];
	int r = 0;

	if (!o)
		return -ENOMEM;
	r = set_new(o, "event", json_string(e->event));
	for (size_t i = 0; r >= 0 && i < ELEMENTSOF(texts); i++)
		r = set_text(o, texts[i].key, texts[i].value);
	if (r >= 0 && e->argv)
		r = set_argv(o, e->argv, e->secret_flags);
	if (r >= 0 && e->env_names)
		r = set_env_names(o, e->env_names);
	if (r >= 0 && e->cwd && (r = sha256_hex(e->cwd, strlen(e->cwd), hex)) >= 0)
		r = set_new(o, "cwd_sha256", json_string(hex));
	if (r >= 0 && e->has_exit && (r = set_new(o, "exit_code", json_integer(e->exit_code))) >= 0 &&
	    (r = set_new(o, "signal", json_integer(e->signal))) >= 0)
		r = set_uint(o, "duration_ms", e->duration_ms);
	if (r >= 0 && e->has_io && (r = set_uint(o, "stdin_bytes", e->stdin_bytes)) >= 0 &&
	    (r = set_uint(o, "stdout_bytes", e->stdout_bytes)) >= 0)
		r = set_uint(o, "stderr_bytes", e->stderr_bytes);
	if (r < 0) {
		json_decref(o);
		return r;
	}
	*ret = o;
	return 0;
}

/* ---- writing ---- */

static int utc_now(char buf[48])
{
	struct timespec ts;
	struct tm tm;
	char stamp[24];

	if (clock_gettime(CLOCK_REALTIME, &ts) < 0)
		return -errno;
	if (!gmtime_r(&ts.tv_sec, &tm) || strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		return -EINVAL;
	snprintf(buf, 48, "%s.%03dZ", stamp, (int)(ts.tv_nsec / 1000000));
	return 0;
}

/* Add the chain's fields to o and write it as one line. Under l->lock. */
static int append_locked(struct audit_log *l, json_t *o, bool end)
{
	_cleanup_free_ char *line = NULL;
	char now[48], next[SHA256_HEX];
	size_t len;
	ssize_t w;
	int r;

	if (l->error)
		return l->error;
	/* the last record and its bytes are kept for session_end */
	if (l->seq + (end ? 1 : 2) > AUDIT_MAX_RECORDS)
		return -EFBIG;
	r = utc_now(now);
	if (r < 0 || (r = set_uint(o, "v", AUDIT_FORMAT_VERSION)) < 0 || (r = set_uint(o, "seq", l->seq)) < 0 ||
	    (r = set_new(o, "time", json_string(now))) < 0 ||
	    (r = set_new(o, "session", json_string(l->session))) < 0 ||
	    (r = set_new(o, "prev", json_string(l->prev))) < 0)
		return r;
	line = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
	if (!line)
		return -ENOMEM;
	len = strlen(line);
	if (len + 1 > AUDIT_MAX_LINE_BYTES)
		return -E2BIG;
	if (l->bytes + len + 1 + (end ? 0 : END_RESERVE_BYTES) > AUDIT_MAX_FILE_BYTES)
		return -EFBIG;
	r = sha256_hex(line, len, next); /* the next record's prev */
	if (r < 0)
		return r;
	line[len] = '\n'; /* json_dumps' NUL: the line goes out whole, in one write */
	do
		w = write(l->fd, line, len + 1);
	while (w < 0 && errno == EINTR);
	if (w != (ssize_t)(len + 1)) {
		/* a short write leaves a cut line: verify calls the log incomplete */
		l->error = w < 0 ? -errno : -EIO;
		return l->error;
	}
	memcpy(l->prev, next, sizeof(next));
	l->seq++;
	l->bytes += len + 1;
	return 0;
}

static int append(struct audit_log *l, json_t *o, bool end)
{
	int r;

	pthread_mutex_lock(&l->lock);
	r = append_locked(l, o, end);
	pthread_mutex_unlock(&l->lock);
	return r;
}

int audit_write(struct audit_log *l, const struct audit_event *e)
{
	json_t *o = NULL;
	int r;

	if (!l || !e || !valid_event_name(e->event) || strcmp(e->event, "session_start") == 0 ||
	    strcmp(e->event, "session_end") == 0)
		return -EINVAL;
	r = event_object(e, &o);
	if (r < 0)
		return r;
	r = append(l, o, false);
	json_decref(o);
	return r;
}

void audit_head(struct audit_log *l, char out[SHA256_HEX])
{
	pthread_mutex_lock(&l->lock);
	memcpy(out, l->prev, SHA256_HEX);
	pthread_mutex_unlock(&l->lock);
}

const char *audit_path(const struct audit_log *l)
{
	return l->path;
}

static void log_free(struct audit_log *l)
{
	if (l->fd >= 0)
		close(l->fd);
	if (l->heads_fd >= 0)
		close(l->heads_fd);
	signing_key_free(l->key);
	pthread_mutex_destroy(&l->lock);
	free(l->path);
	free(l);
}

static int start_record(struct audit_log *l, const struct audit_session *s)
{
	json_t *o = json_object();
	int r;

	if (!o)
		return -ENOMEM;
	if ((r = set_new(o, "event", json_string("session_start"))) >= 0 &&
	    (r = set_text(o, "profile", s->profile)) >= 0 && (r = set_text(o, "profile_file", s->profile_file)) >= 0 &&
	    (r = set_text(o, "workspace", s->workspace)) >= 0 && (r = set_uint(o, "pid", (uint64_t)getpid())) >= 0 &&
	    (r = set_uint(o, "uid", geteuid())) >= 0 && (r = set_new(o, "cordon", json_string(CORDON_VERSION))) >= 0 &&
	    (r = set_new(o, "head_key", json_string(l->pubkey))) >= 0)
		r = append(l, o, false);
	json_decref(o);
	return r;
}

int audit_open(const char *dir, const struct audit_session *s, struct audit_log **ret)
{
	_cleanup_free_ char *path = NULL, *name = NULL, *heads = NULL;
	_cleanup_close_ int dfd = -1, hfd = -1;
	struct audit_log *l;
	int r;

	if (!s || !s->session_id || !audit_valid_id(s->session_id))
		return -EINVAL;
	r = audit_dir_path(dir, &path);
	if (r < 0)
		return r;
	/* the default is ours from cordon/ down; a given directory itself */
	r = open_dir_tree(path, dir ? 1 : 2, &dfd);
	if (r < 0)
		return r;
	/* the signed heads: beside the logs, a directory of their own */
	r = audit_heads_dir_path(dir, &heads);
	if (r < 0)
		return r;
	r = open_dir_tree(heads, dir ? 1 : 2, &hfd);
	if (r < 0)
		return r;
	if (asprintf(&name, "%s%s", s->session_id, AUDIT_SUFFIX) < 0) {
		name = NULL;
		return -ENOMEM;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	pthread_mutex_init(&l->lock, NULL);
	l->fd = -1;
	l->heads_fd = TAKE_FD(hfd);
	r = signing_key_new(&l->key);
	if (r >= 0)
		r = signing_key_public_hex(l->key, l->pubkey);
	if (r < 0) {
		log_free(l);
		return r;
	}
	memset(l->prev, '0', SHA256_HEX - 1);
	l->prev[SHA256_HEX - 1] = '\0';
	snprintf(l->session, sizeof(l->session), "%s", s->session_id);
	l->fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC, 0600);
	if (l->fd < 0) {
		r = -errno;
		log_free(l);
		return r;
	}
	if (asprintf(&l->path, "%s/%s", path, name) < 0) {
		l->path = NULL;
		r = -ENOMEM;
	} else {
		r = start_record(l, s);
	}
	if (r < 0) {
		/* nothing of this session is in it: do not leave an empty log */
		if (l->bytes == 0)
			unlinkat(dfd, name, 0);
		log_free(l);
		return r;
	}
	*ret = l;
	return 0;
}

int audit_close(struct audit_log *l)
{
	return audit_close_sealed(l, NULL);
}

int audit_close_head(struct audit_log *l, char head[SHA256_HEX])
{
	struct audit_seal seal = {};
	int r = audit_close_sealed(l, &seal);

	if (head && seal.sealed)
		memcpy(head, seal.head, SHA256_HEX);
	return r;
}

/* The head, signed, as <session>.head in the heads directory: one JSON
 * object, written whole and synced, new (never over an older one). */
static int write_seal(struct audit_log *l, const struct audit_seal *s)
{
	_cleanup_free_ char *name = NULL, *text = NULL;
	_cleanup_close_ int fd = -1;
	json_t *o;
	size_t n;
	ssize_t w;

	if (asprintf(&name, "%s%s", s->session, AUDIT_HEAD_SUFFIX) < 0) {
		name = NULL;
		return -ENOMEM;
	}
	o = json_pack("{s:s,s:I,s:s,s:s,s:s}", "session", s->session, "records", (json_int_t)s->records, "head",
		      s->head, "head_key", s->pubkey, "signature", s->sig);
	text = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(o);
	if (!text)
		return -ENOMEM;
	n = strlen(text);
	fd = openat(l->heads_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	w = write(fd, text, n);
	if (w != (ssize_t)n)
		return w < 0 ? -errno : -EIO;
	return fsync(fd) < 0 ? -errno : 0;
}

int audit_close_sealed(struct audit_log *l, struct audit_seal *ret)
{
	struct audit_seal seal = {};
	json_t *o;
	int r;

	if (!l)
		return 0;
	o = json_object();
	r = o ? set_new(o, "event", json_string("session_end")) : -ENOMEM;
	if (r >= 0)
		r = set_uint(o, "records", l->seq);
	if (r >= 0)
		r = append(l, o, true);
	json_decref(o);
	/* the lines are the kernel's since each write; this survives a crash */
	if (fsync(l->fd) < 0 && r >= 0)
		r = -errno;
	if (close(l->fd) < 0 && r >= 0)
		r = -errno;
	l->fd = -1;
	if (r >= 0) {
		/* the end, signed: a log cut and closed again has another head,
		 * and nobody without the key (freed below, never written) can
		 * sign that one */
		_cleanup_free_ char *msg = NULL;

		snprintf(seal.session, sizeof(seal.session), "%s", l->session);
		seal.records = l->seq;
		memcpy(seal.head, l->prev, SHA256_HEX);
		memcpy(seal.pubkey, l->pubkey, ED25519_PUB_HEX);
		r = audit_head_message(seal.session, seal.head, &msg);
		if (r >= 0)
			r = signing_key_sign_hex(l->key, msg, strlen(msg), seal.sig);
		if (r >= 0) {
			seal.sealed = true;
			seal.stored = write_seal(l, &seal);
		}
	}
	log_free(l);
	if (ret)
		*ret = seal;
	return r;
}
