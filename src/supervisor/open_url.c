/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * open_urls: a sandbox's opener shim (xdg-open, open, sensible-browser)
 * asks the host to open one URL. The caller is the endpoint the request
 * came in on (the socket is the identity), and its open_urls the policy:
 * none, refused. The URL is parsed strictly (src/lib/url: at most 8 KiB,
 * no control characters, no userinfo, nothing a browser would rewrite);
 * its origin must be one of allow_origins exactly (scheme, host, port),
 * or http://localhost:P or http://127.0.0.1:P for P in
 * allow_localhost_ports; its path under one of path_prefixes when there
 * are some. Then the consumer's rate (rate_per_minute, a sliding minute),
 * then an approval through the named backend unless "approve": false.
 * Every decision is an audit record naming the origin and path, never the
 * query or fragment (they carry OAuth state and codes).
 *
 * The host's opener runs outside every sandbox, with the URL re-serialised
 * as its one argument and no shell (posix_spawn: the supervisor has
 * threads). Which one was found at session start (toolbox_opener.c:
 * CORDON_BROWSER from cordon's own environment, an absolute path or
 * "none", else xdg-open on the session's search path), and refused then if
 * any sandbox of the session can write it. Its
 * environment is an allow-list of cordon's own (what finds the person's
 * desktop: DISPLAY, WAYLAND_DISPLAY, XAUTHORITY, DBUS_SESSION_BUS_ADDRESS,
 * XDG_RUNTIME_DIR, ...), never the rest (a webhook's key, a credential's
 * env:// source). With no opener (SSH, headless, "none"), the URL is
 * printed on the supervisor's stderr for the person, and the shim is told.
 * The opener is cordon's child: at the session's end the supervisor waits
 * for those still running (OPEN_URLS_WAIT_MS in all), then cordon ends
 * what the session left, as it does for every run. xdg-open hands the URL
 * to the person's browser (over D-Bus, or to one already running) and
 * exits; a browser it started itself as its child ends with the session.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "call.h"
#include "call_run.h"
#include "cleanup.h"
#include "crypto.h"
#include "open_url.h"
#include "tools.h"
#include "url_check.h"

#define OPEN_URL_COMMAND "open_url"
/* openers not yet reaped at once, per session: more are refused */
#define OPEN_URL_CHILDREN_MAX 32

struct url_rate {
	char *caller;
	uint64_t times[OPEN_URLS_RATE_MAX]; /* a ring of the last opens' times (ms) */
	size_t n, head;
	struct url_rate *next;
};

struct url_child {
	pid_t pid;
	int pidfd;
	struct event *ev;
	struct open_urls_state *st;
	struct url_child *next;
};

struct open_urls_state {
	struct url_rate *rates;
	struct url_child *children;
	size_t n_children;
};

static const char *const opener_env[] = {
	"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES",
	"DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR",
	"XDG_CURRENT_DESKTOP", "XDG_SESSION_TYPE", "XDG_SESSION_DESKTOP", "DESKTOP_SESSION", "XDG_DATA_DIRS",
	"XDG_CONFIG_DIRS", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "BROWSER", "KDE_FULL_SESSION", "GNOME_DESKTOP_SESSION_ID",
	NULL,
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void child_free(struct url_child *ch)
{
	if (ch->ev)
		event_free(ch->ev);
	if (ch->pidfd >= 0)
		close(ch->pidfd);
	free(ch);
}

void open_urls_state_free(struct open_urls_state *st)
{
	if (!st)
		return;
	while (st->rates) {
		struct url_rate *r = st->rates;

		st->rates = r->next;
		free(r->caller);
		free(r);
	}
	while (st->children) {
		struct url_child *ch = st->children;

		st->children = ch->next;
		/* an opener still running is the person's now: not killed */
		(void)waitpid(ch->pid, NULL, WNOHANG);
		child_free(ch);
	}
	free(st);
}

void open_urls_wait(struct open_urls_state *st, int ms)
{
	uint64_t end = now_ms() + (uint64_t)(ms > 0 ? ms : 0);

	for (struct url_child *ch = st ? st->children : NULL; ch; ch = ch->next) {
		struct pollfd p = { .fd = ch->pidfd, .events = POLLIN };
		uint64_t now = now_ms();

		if (ch->pidfd < 0 || now >= end)
			continue;
		while (poll(&p, 1, (int)(end - now)) < 0 && errno == EINTR)
			now = now_ms();
	}
}

static struct open_urls_state *state_of(struct supervisor *s)
{
	if (!s->open_urls)
		s->open_urls = calloc(1, sizeof(*s->open_urls));
	return s->open_urls;
}

/* One more open for caller within the last minute: false when over. */
static bool rate_take(struct supervisor *s, const char *caller, unsigned per_minute)
{
	struct open_urls_state *st = state_of(s);
	struct url_rate *r;
	uint64_t now = now_ms();

	if (!st)
		return false;
	for (r = st->rates; r && strcmp(r->caller, caller) != 0; r = r->next)
		;
	if (!r) {
		r = calloc(1, sizeof(*r));
		if (!r || !(r->caller = strdup(caller))) {
			free(r);
			return false;
		}
		r->next = st->rates;
		st->rates = r;
	}
	if (per_minute > OPEN_URLS_RATE_MAX)
		per_minute = OPEN_URLS_RATE_MAX;
	/* forget what is older than a minute (the ring's oldest first) */
	while (r->n > 0) {
		size_t oldest = (r->head + OPEN_URLS_RATE_MAX - r->n) % OPEN_URLS_RATE_MAX;

		if (now - r->times[oldest] < 60000)
			break;
		r->n--;
	}
	if (r->n >= per_minute)
		return false;
	r->times[r->head] = now;
	r->head = (r->head + 1) % OPEN_URLS_RATE_MAX;
	r->n++;
	return true;
}

/* ---- the host's opener ---- */

static void on_child(evutil_socket_t fd, short what, void *arg)
{
	struct url_child *ch = arg, **p;
	struct open_urls_state *st = ch->st;

	if (waitpid(ch->pid, NULL, WNOHANG) == 0)
		return;
	for (p = &st->children; *p; p = &(*p)->next)
		if (*p == ch) {
			*p = ch->next;
			break;
		}
	st->n_children--;
	child_free(ch);
}

static char **opener_environ(void)
{
	size_t n = 0, k = 0;
	char **v;

	while (opener_env[n])
		n++;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *val = getenv(opener_env[i]);

		if (val && asprintf(&v[k], "%s=%s", opener_env[i], val) >= 0)
			k++;
	}
	return v;
}

static void environ_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* Run path with url as its one argument: stdin /dev/null, stdout and
 * stderr the supervisor's stderr; reaped from the loop. */
static int spawn_opener(struct supervisor *s, const char *path, const char *url)
{
	struct open_urls_state *st = state_of(s);
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	char *argv[] = { (char *)path, (char *)url, NULL };
	char **envp = opener_environ();
	struct url_child *ch = NULL;
	pid_t pid;
	int r;

	if (!st || !envp) {
		environ_free(envp);
		return -ENOMEM;
	}
	if (st->n_children >= OPEN_URL_CHILDREN_MAX) {
		environ_free(envp);
		return -EBUSY;
	}
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, 2, 1);
	/* a new session: the person's browser is not the supervisor's child
	 * in any way a terminal's signals reach */
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSID);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &all);
	r = -posix_spawn(&pid, path, &fa, &at, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	environ_free(envp);
	if (r < 0)
		return r;
	ch = calloc(1, sizeof(*ch));
	if (ch) {
		*ch = (struct url_child){ .pid = pid, .pidfd = (int)syscall(SYS_pidfd_open, pid, 0), .st = st };
		if (ch->pidfd >= 0)
			(void)fcntl(ch->pidfd, F_SETFD, FD_CLOEXEC);
		if (ch->pidfd >= 0)
			ch->ev = event_new(s->base, ch->pidfd, EV_READ | EV_PERSIST, on_child, ch);
		if (ch->ev && event_add(ch->ev, NULL) >= 0) {
			ch->next = st->children;
			st->children = ch;
			st->n_children++;
			return 0;
		}
		child_free(ch);
	}
	/* no way to watch it: reaped when it is, or by init after us */
	(void)waitpid(pid, NULL, WNOHANG);
	return 0;
}

/* ---- the request ---- */

static void answer_ok(struct call *c, const char *message)
{
	_cleanup_msgbuf_ struct msgbuf *b = msgbuf_new(BROKER_REASON_MAX + 32);
	struct broker_exit e = { .how = BROKER_EXITED, .value = 0, .message = (char *)message };

	if (c->fd >= 0 && b && broker_exit_encode(b, &e) >= 0)
		(void)msg_frame_write(c->fd, BROKER_MSG_EXIT, b, NULL, 0);
	call_drop(c);
}

static void open_now(struct call *c)
{
	/* found and checked at session start (toolbox_opener.c) */
	const char *path = cordon_toolbox_url_opener(c->s->box);
	const char *url = c->req.argv[0];
	char msg[BROKER_REASON_MAX];
	int r;

	if (!path) {
		if (call_audit(c, "url_printed", "no opener on the host: printed for the person") < 0) {
			call_deny(c, "url_denied", "the audit log cannot be written: nothing opens unrecorded");
			return;
		}
		fprintf(stderr, "cordon: %s asks to open this URL (no browser opener on this host; open it yourself "
			"if you want to):\ncordon:   %s\n", c->caller, url);
		fflush(stderr);
		answer_ok(c, "cordon: no browser on the host: the URL was shown to the person running cordon");
		return;
	}
	/* the record first: nothing opens unrecorded */
	if (call_audit(c, "url_opened", NULL) < 0) {
		call_deny(c, "url_denied", "the audit log cannot be written: nothing opens unrecorded");
		return;
	}
	r = spawn_opener(c->s, path, url);
	if (r < 0) {
		snprintf(msg, sizeof(msg), "the host's opener %.300s could not be started: %s", path, strerror(-r));
		call_deny(c, "url_failed", msg);
		return;
	}
	answer_ok(c, NULL);
}

static void approve_main(void *arg)
{
	struct call *c = arg;

	if (approval_ask(c->s->approvals, c->decision.backend, &c->areq, &c->ares) < 0 &&
	    c->ares.outcome == APPROVAL_GRANTED)
		c->ares.outcome = APPROVAL_ERROR; /* never a grant by accident */
	event_active(c->approved, EV_TIMEOUT, 0);
}

static void on_approved(evutil_socket_t fd, short what, void *arg)
{
	struct call *c = arg;
	char why[BROKER_REASON_MAX];

	c->s->approving--;
	c->in_thread = false;
	if (c->state == CALL_ENDED) {
		call_audit(c, "approve_cancelled", "the caller went away while the approval was asked");
		call_reap_later(c);
		return;
	}
	if (c->ares.outcome == APPROVAL_GRANTED && c->ares.allow) {
		if (call_audit(c, "approve_granted", c->ares.reason[0] ? c->ares.reason : NULL) < 0) {
			call_deny(c, "url_denied", "the audit log cannot be written: nothing opens unrecorded");
			return;
		}
		open_now(c);
		return;
	}
	snprintf(why, sizeof(why), "the URL was not approved: %s (approval: %s)",
		 c->ares.reason[0] ? c->ares.reason : "not approved",
		 c->ares.backend[0] ? c->ares.backend : c->decision.backend);
	call_deny(c, c->ares.outcome == APPROVAL_TIMEOUT ? "approve_timeout" : "approve_denied", why);
}

/* The action an approval binds: caller, the URL exactly, the policy. */
static int url_digest(struct call *c, const char *url)
{
	_cleanup_msgbuf_ struct msgbuf *b = msgbuf_new(2 * BROKER_URL_MAX);
	int r;

	if (!b)
		return -ENOMEM;
	if ((r = msgbuf_put_cstring(b, c->caller)) < 0 || (r = msgbuf_put_cstring(b, OPEN_URL_COMMAND)) < 0 ||
	    (r = msgbuf_put_cstring(b, url)) < 0 || (r = msgbuf_put_cstring(b, c->s->policy_digest)) < 0)
		return r;
	return sha256_hex(msgbuf_ptr(b), msgbuf_len(b), c->digest);
}

static void start_approval(struct call *c, const struct tool_open_urls *pol)
{
	static const char *const no_env[] = { NULL };
	bool whole = false;
	int r;

	snprintf(c->decision.backend, sizeof(c->decision.backend), "%s", pol->backend);
	c->decision.action = CORDON_TOOL_APPROVE;
	if (url_digest(c, c->req.argv[0]) < 0 || !(c->approved = event_new(c->s->base, -1, 0, on_approved, c))) {
		call_deny(c, "approve_denied", "the approval could not be asked (out of memory)");
		return;
	}
	/* the person sees the whole URL; a webhook its origin and path */
	c->areq = (struct approval_request){
		.request_id = c->id,
		.session = c->s->session_id,
		.caller = c->caller,
		.command = OPEN_URL_COMMAND,
		.argv = (const char *const *)c->req.argv,
		.argv_redacted = (const char *const *)c->argv_redacted,
		.env = no_env,
		.env_redacted = no_env,
		.cwd = "/",
		.policy = c->s->policy_digest,
		.digest = c->digest,
	};
	c->state = CALL_APPROVING;
	c->in_thread = true;
	r = approve_pool_submit(c->s->approve_pool, c->caller, approve_main, c, &whole);
	if (r < 0) {
		c->in_thread = false;
		call_deny(c, "approve_denied",
			  r == -EBUSY ? "too many approvals pending: try again once they are answered"
				      : "the approval could not be asked");
		return;
	}
	c->s->approving++;
}

/* The origin is one the policy names, exactly. */
static bool origin_allowed(const struct tool_open_urls *pol, const struct url_parsed *u)
{
	if (!u->https) {
		if (strcmp(u->host, "localhost") != 0 && strcmp(u->host, "127.0.0.1") != 0)
			return false;
		for (size_t i = 0; i < pol->n_ports; i++)
			if (u->port && u->port == pol->ports[i])
				return true;
		return false;
	}
	for (char **o = pol->origins; o && *o; o++)
		if (strcmp(*o, u->origin) == 0)
			return true;
	return false;
}

/* What the audit log and a webhook see: origin and path, the query and
 * fragment replaced by a mark that they were there. */
static int redacted_form(const struct url_parsed *u, char **ret)
{
	return asprintf(ret, "%.*s%s%s", (int)(u->path_off + u->path_len), u->url, u->query_len ? "?(redacted)" : "",
			u->fragment_len ? "#(redacted)" : "") < 0
		       ? -ENOMEM
		       : 0;
}

static void decide(struct call *c, const char *raw)
{
	struct supervisor *s = c->s;
	const struct tool_open_urls *pol = tools_open_urls(s->tools, c->caller);
	_cleanup_free_ struct url_parsed *u = malloc(sizeof(*u));
	char why[BROKER_REASON_MAX];
	struct cordon_error what = {};
	bool under = false;

	snprintf(c->decision.rule, sizeof(c->decision.rule), "open_urls");
	if (!u) {
		call_deny(c, "url_denied", "out of memory");
		return;
	}
	if (s->audit_broken) {
		call_deny(c, "url_denied", "the audit log cannot be written: nothing opens unrecorded");
		return;
	}
	if (!pol) {
		call_deny(c, "url_denied", "this sandbox may open no URL: its policy has no open_urls");
		return;
	}
	if (pol->place.file)
		snprintf(c->decision.file, sizeof(c->decision.file), "%s", pol->place.file);
	if (pol->place.pointer)
		snprintf(c->decision.rule, sizeof(c->decision.rule), "%s", pol->place.pointer);
	if (url_parse(raw, strlen(raw), u, &what) < 0) {
		snprintf(why, sizeof(why), "the URL is refused: %s", what.message);
		call_deny(c, "url_denied", why);
		return;
	}
	/* from here the audit names the origin and path, never the query */
	{
		char *red = NULL;

		if (redacted_form(u, &red) < 0) {
			call_deny(c, "url_denied", "out of memory");
			return;
		}
		free(c->argv_redacted[0]);
		c->argv_redacted[0] = red;
		free(c->req.argv[0]);
		c->req.argv[0] = strdup(u->url);
		if (!c->req.argv[0]) {
			c->req.argv[0] = strdup("");
			call_deny(c, "url_denied", "out of memory");
			return;
		}
	}
	if (!origin_allowed(pol, u)) {
		snprintf(why, sizeof(why), "the origin %.300s is not one open_urls allows", u->origin);
		call_deny(c, "url_denied", why);
		return;
	}
	for (char **p = pol->path_prefixes; *p && !under; p++)
		under = url_path_under(u, *p);
	if (pol->path_prefixes[0] && !under) {
		snprintf(why, sizeof(why), "the path is under none of open_urls' path_prefixes");
		call_deny(c, "url_denied", why);
		return;
	}
	if (!rate_take(s, c->caller, pol->rate_per_minute)) {
		snprintf(why, sizeof(why), "more than %u URLs in a minute (open_urls.rate_per_minute): try later",
			 pol->rate_per_minute);
		call_deny(c, "url_denied", why);
		return;
	}
	if (pol->approve) {
		start_approval(c, pol);
		return;
	}
	c->decision.action = CORDON_TOOL_ALLOW;
	open_now(c);
}

int open_url_on_request(void *ctx, struct msgbuf *body, int *fds, size_t nfds)
{
	struct call *c = ctx;
	char *url = NULL;
	int r;

	/* a call already made, or fds: not an open request */
	if (nfds || c->have_req || c->state != CALL_READING)
		return -EBADMSG;
	c->req_bytes = msgbuf_len(body);
	r = broker_open_url_decode(body, &url);
	if (r < 0)
		return r;
	/* what the audit and the approval read: the URL stands as the one
	 * argument, replaced by its origin and path in anything written */
	c->req.command = strdup(OPEN_URL_COMMAND);
	c->req.argv = calloc(2, sizeof(char *));
	c->argv_redacted = calloc(2, sizeof(char *));
	if (!c->req.command || !c->req.argv || !c->argv_redacted ||
	    !(c->argv_redacted[0] = strdup("(not a URL)"))) {
		free(url);
		return -ENOMEM;
	}
	c->req.argv[0] = url;
	c->have_req = true;
	(void)msg_permit(&c->st, BROKER_MSG_CALL, false);
	event_del(c->idle);
	c->url_request = true;
	decide(c, url);
	return 0;
}
