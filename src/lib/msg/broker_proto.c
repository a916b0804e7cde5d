/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The broker's message bodies (broker_proto.h): encode, and decode with a
 * cap on everything a peer controls. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "broker_proto.h"

bool broker_name_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > BROKER_NAME_MAX || name[0] == '.' || name[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		/* what a file name in PATH needs, and nothing a terminal or a
		 * log would read as more than a name */
		if (c <= ' ' || c >= 0x7f || c == '/')
			return false;
	}
	return true;
}

/* NAME=VALUE with a non-empty name. */
static bool env_entry_valid(const char *e)
{
	const char *eq = strchr(e, '=');

	return eq && eq != e;
}

/* Is NAME (up to '=') a variable name? A bash function exported with
 * `export -f` arrives as BASH_FUNC_f%%=() {...}: no policy can name it. */
static bool env_entry_named(const char *e)
{
	for (const char *p = e; *p != '='; p++)
		if (!(*p == '_' || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		      (p > e && *p >= '0' && *p <= '9')))
			return false;
	return true;
}

/* Drop the entries whose name is not a variable name (zeroed: a value may
 * be a secret), keeping the order of the rest. */
static void env_drop_unnamed(char **env)
{
	size_t k = 0;

	for (size_t i = 0; env[i]; i++) {
		if (env_entry_named(env[i])) {
			env[k++] = env[i];
			continue;
		}
		explicit_bzero(env[i], strlen(env[i]));
		free(env[i]);
	}
	env[k] = NULL;
}

int broker_call_encode(struct msgbuf *b, const struct broker_call *c)
{
	int r;

	if (!broker_name_valid(c->command) || !c->cwd || c->cwd[0] != '/')
		return -EINVAL;
	if ((r = msgbuf_put_string(b, c->command, strlen(c->command), MSGBUF_NO_NUL)) < 0 ||
	    (r = msgbuf_put_strv(b, c->argv, MSG_ARGC_MAX, MSG_ARG_MAX)) < 0 ||
	    (r = msgbuf_put_string(b, c->cwd, strlen(c->cwd), MSGBUF_NO_NUL)) < 0 ||
	    (r = msgbuf_put_strv(b, c->env, BROKER_ENV_MAX, MSG_ARG_MAX)) < 0 ||
	    (r = msgbuf_put_u8(b, c->tty)) < 0)
		return r;
	return 0;
}

void broker_call_done(struct broker_call *c)
{
	free(c->command);
	msgbuf_strv_free(c->argv);
	free(c->cwd);
	msgbuf_strv_free(c->env); /* zeroes the values */
	*c = (struct broker_call){};
}

int broker_call_decode(struct msgbuf *b, struct broker_call *ret)
{
	struct broker_call c = {};
	int r;

	if ((r = msgbuf_get_string(b, BROKER_NAME_MAX, MSGBUF_NO_NUL, &c.command, NULL)) < 0 ||
	    (r = msgbuf_get_strv(b, MSG_ARGC_MAX, MSG_ARG_MAX, &c.argv)) < 0 ||
	    (r = msgbuf_get_string(b, BROKER_PATH_MAX, MSGBUF_NO_NUL, &c.cwd, NULL)) < 0 ||
	    (r = msgbuf_get_strv(b, BROKER_ENV_MAX, MSG_ARG_MAX, &c.env)) < 0 ||
	    (r = msgbuf_get_u8(b, &c.tty)) < 0)
		goto fail;
	r = -EBADMSG;
	if (msgbuf_len(b) != 0 || !broker_name_valid(c.command) || c.cwd[0] != '/' ||
	    (c.tty & ~(BROKER_TTY_IN | BROKER_TTY_OUT | BROKER_TTY_ERR)))
		goto fail;
	for (size_t i = 0; c.env[i]; i++)
		if (!env_entry_valid(c.env[i]))
			goto fail;
	/* an exported bash function (or any entry no variable name can
	 * match) passes to no tool: dropped, so it fails no call either */
	env_drop_unnamed(c.env);
	*ret = c;
	return 0;
fail:
	broker_call_done(&c);
	return r;
}

bool broker_signal_allowed(int sig)
{
	return sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT;
}

int broker_signal_encode(struct msgbuf *b, int sig)
{
	if (!broker_signal_allowed(sig))
		return -EINVAL;
	return msgbuf_put_u32(b, (uint32_t)sig);
}

int broker_signal_decode(struct msgbuf *b, int *ret)
{
	uint32_t sig;
	int r = msgbuf_get_u32(b, &sig);

	if (r < 0)
		return r;
	if (msgbuf_len(b) != 0 || sig > 64 || !broker_signal_allowed((int)sig))
		return -EBADMSG;
	*ret = (int)sig;
	return 0;
}

bool broker_name_is_opener(const char *name)
{
	static const char *const names[] = { BROKER_OPENER_NAMES };

	for (size_t i = 0; name && i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

int broker_open_url_encode(struct msgbuf *b, const char *url)
{
	size_t n = strlen(url);

	if (n > BROKER_URL_MAX)
		return -E2BIG;
	return msgbuf_put_string(b, url, n, MSGBUF_NO_NUL);
}

int broker_open_url_decode(struct msgbuf *b, char **ret)
{
	char *s = NULL;
	int r = msgbuf_get_string(b, BROKER_URL_MAX, MSGBUF_NO_NUL, &s, NULL);

	if (r < 0)
		return r;
	if (msgbuf_len(b) != 0) {
		free(s);
		return -EBADMSG;
	}
	*ret = s;
	return 0;
}

int broker_denied_encode(struct msgbuf *b, const char *reason)
{
	size_t n = strnlen(reason, BROKER_REASON_MAX);

	return msgbuf_put_string(b, reason, n, MSGBUF_NO_NUL);
}

int broker_denied_decode(struct msgbuf *b, char **ret)
{
	char *s = NULL;
	int r = msgbuf_get_string(b, BROKER_REASON_MAX, MSGBUF_NO_NUL, &s, NULL);

	if (r < 0)
		return r;
	if (msgbuf_len(b) != 0) {
		free(s);
		return -EBADMSG;
	}
	*ret = s;
	return 0;
}

int broker_exit_encode(struct msgbuf *b, const struct broker_exit *e)
{
	const char *m = e->message ? e->message : "";
	int r;

	if ((e->how == BROKER_EXITED && e->value > 255) || (e->how == BROKER_SIGNALED && (e->value < 1 || e->value > 64)) ||
	    (e->how != BROKER_EXITED && e->how != BROKER_SIGNALED))
		return -EINVAL;
	if ((r = msgbuf_put_u8(b, (uint8_t)e->how)) < 0 || (r = msgbuf_put_u32(b, e->value)) < 0 ||
	    (r = msgbuf_put_string(b, m, strnlen(m, BROKER_REASON_MAX), MSGBUF_NO_NUL)) < 0)
		return r;
	return 0;
}

int broker_exit_decode(struct msgbuf *b, struct broker_exit *ret)
{
	struct broker_exit e = {};
	uint8_t how;
	int r;

	if ((r = msgbuf_get_u8(b, &how)) < 0 || (r = msgbuf_get_u32(b, &e.value)) < 0 ||
	    (r = msgbuf_get_string(b, BROKER_REASON_MAX, MSGBUF_NO_NUL, &e.message, NULL)) < 0)
		return r;
	e.how = how;
	if (msgbuf_len(b) != 0 || (how == BROKER_EXITED && e.value > 255) ||
	    (how == BROKER_SIGNALED && (e.value < 1 || e.value > 64)) || how > BROKER_SIGNALED) {
		free(e.message);
		return -EBADMSG;
	}
	*ret = e;
	return 0;
}
