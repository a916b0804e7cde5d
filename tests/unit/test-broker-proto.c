/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The broker's message bodies: round trips, and every cap and malformed
 * body refused without consuming the caller's trust. */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "broker_proto.h"
#include "strv.h"

static struct msgbuf *new_buf(void)
{
	struct msgbuf *b = msgbuf_new(MSG_FRAME_MAX);

	cr_assert_not_null(b);
	return b;
}

Test(broker_proto, call_round_trip)
{
	_cleanup_msgbuf_ struct msgbuf *b = new_buf();
	char *argv[] = { "push", "--force", "", NULL }, *env[] = { "HOME=/home/a", "GIT_DIR=x=y", NULL };
	struct broker_call in = { .command = "git", .argv = argv, .cwd = "/work/p", .env = env,
				  .tty = BROKER_TTY_IN | BROKER_TTY_ERR },
			   out = {};

	cr_assert_eq(broker_call_encode(b, &in), 0);
	cr_assert_eq(broker_call_decode(b, &out), 0);
	cr_assert_str_eq(out.command, "git");
	cr_assert_eq(strv_length(out.argv), 3);
	cr_assert_str_eq(out.argv[1], "--force");
	cr_assert_str_eq(out.argv[2], "");
	cr_assert_str_eq(out.cwd, "/work/p");
	cr_assert_str_eq(out.env[1], "GIT_DIR=x=y");
	cr_assert_eq(out.tty, BROKER_TTY_IN | BROKER_TTY_ERR);
	broker_call_done(&out);
}

Test(broker_proto, names)
{
	cr_assert(broker_name_valid("git"));
	cr_assert(broker_name_valid("kubectl-1.29"));
	cr_assert_not(broker_name_valid(""));
	cr_assert_not(broker_name_valid("."));
	cr_assert_not(broker_name_valid(".."));
	cr_assert_not(broker_name_valid(".hidden"));
	cr_assert_not(broker_name_valid("-rf"));
	cr_assert_not(broker_name_valid("a/b"));
	cr_assert_not(broker_name_valid("a b"));
	cr_assert_not(broker_name_valid("a\x1b[2J"));
	char long_name[300];
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = 0;
	cr_assert_not(broker_name_valid(long_name));
}

/* Encode a call body by hand, so a malformed one can be built. */
static void put_call(struct msgbuf *b, const char *cmd, char **argv, const char *cwd, char **env, uint8_t tty)
{
	cr_assert_eq(msgbuf_put_string(b, cmd, strlen(cmd), 0), 0);
	cr_assert_eq(msgbuf_put_strv(b, argv, MSG_ARGC_MAX, MSG_ARG_MAX), 0);
	cr_assert_eq(msgbuf_put_string(b, cwd, strlen(cwd), 0), 0);
	cr_assert_eq(msgbuf_put_strv(b, env, 100000, MSG_ARG_MAX), 0);
	cr_assert_eq(msgbuf_put_u8(b, tty), 0);
}

Test(broker_proto, call_malformed_refused)
{
	char *argv[] = { "status", NULL }, *env[] = { "A=1", NULL }, *bad_env[] = { "=x", NULL },
	     *bad_env2[] = { "NOEQUALS", NULL };
	struct {
		const char *cmd, *cwd;
		char **env;
		uint8_t tty;
		bool trailing;
	} cases[] = {
		{ "../git", "/w", env, 0, false },    /* a path, not a name */
		{ "git", "relative", env, 0, false }, /* cwd not absolute */
		{ "git", "/w", bad_env, 0, false },   /* empty variable name */
		{ "git", "/w", bad_env2, 0, false },  /* no '=' */
		{ "git", "/w", env, 0x80, false },    /* unknown tty bits */
		{ "git", "/w", env, 0, true },        /* trailing bytes */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		_cleanup_msgbuf_ struct msgbuf *b = new_buf();
		struct broker_call out = {};

		put_call(b, cases[i].cmd, argv, cases[i].cwd, cases[i].env, cases[i].tty);
		if (cases[i].trailing)
			cr_assert_eq(msgbuf_put_u8(b, 0), 0);
		cr_assert_eq(broker_call_decode(b, &out), -EBADMSG, "case %zu", i);
		cr_assert_null(out.command);
	}
}

/* An exported bash function, or any entry no variable name matches, is
 * dropped (no policy can name it), not a malformed request: `export -f`
 * in the session must not fail every later call. */
Test(broker_proto, call_drops_unnamed_entries)
{
	_cleanup_msgbuf_ struct msgbuf *b = new_buf();
	char *argv[] = { "status", NULL };
	char *env[] = { "A=1", "BASH_FUNC_f%%=() {  echo hi\n}", "1A=x", "a-b=c", "B=2", NULL };
	struct broker_call out = {};

	put_call(b, "git", argv, "/w", env, 0);
	cr_assert_eq(broker_call_decode(b, &out), 0);
	cr_assert_str_eq(out.env[0], "A=1");
	cr_assert_str_eq(out.env[1], "B=2");
	cr_assert_null(out.env[2]);
	broker_call_done(&out);
}

Test(broker_proto, call_caps)
{
	_cleanup_msgbuf_ struct msgbuf *b = new_buf();
	struct broker_call out = {};
	char **argv = calloc(MSG_ARGC_MAX + 2, sizeof(char *));

	/* one argument too many */
	for (size_t i = 0; i <= MSG_ARGC_MAX; i++)
		argv[i] = "x";
	cr_assert_eq(msgbuf_put_string(b, "git", 3, 0), 0);
	cr_assert_eq(msgbuf_put_u32(b, MSG_ARGC_MAX + 1), 0);
	for (size_t i = 0; i <= MSG_ARGC_MAX; i++)
		cr_assert_eq(msgbuf_put_cstring(b, "x"), 0);
	cr_assert_eq(broker_call_decode(b, &out), -E2BIG);
	free(argv);

	/* an argument with a NUL inside */
	msgbuf_reset(b);
	cr_assert_eq(msgbuf_put_string(b, "git", 3, 0), 0);
	cr_assert_eq(msgbuf_put_u32(b, 1), 0);
	cr_assert_eq(msgbuf_put_string(b, "a\0b", 3, 0), 0);
	cr_assert_lt(broker_call_decode(b, &out), 0);

	/* a truncated body */
	msgbuf_reset(b);
	cr_assert_eq(msgbuf_put_string(b, "git", 3, 0), 0);
	cr_assert_eq(broker_call_decode(b, &out), -EBADMSG);
}

Test(broker_proto, signals_exit_denied)
{
	_cleanup_msgbuf_ struct msgbuf *b = new_buf();
	struct broker_exit e = { .how = BROKER_SIGNALED, .value = SIGINT, .message = "" }, got = {};
	char *reason = NULL;
	int sig = 0;

	cr_assert_eq(broker_signal_encode(b, SIGINT), 0);
	cr_assert_eq(broker_signal_decode(b, &sig), 0);
	cr_assert_eq(sig, SIGINT);
	cr_assert_eq(broker_signal_encode(b, SIGKILL), -EINVAL);
	cr_assert_eq(msgbuf_put_u32(b, SIGSTOP), 0);
	cr_assert_eq(broker_signal_decode(b, &sig), -EBADMSG);

	msgbuf_reset(b);
	cr_assert_eq(broker_exit_encode(b, &e), 0);
	cr_assert_eq(broker_exit_decode(b, &got), 0);
	cr_assert_eq(got.how, BROKER_SIGNALED);
	cr_assert_eq(got.value, SIGINT);
	free(got.message);
	e = (struct broker_exit){ .how = BROKER_EXITED, .value = 256 };
	cr_assert_eq(broker_exit_encode(b, &e), -EINVAL);
	cr_assert_eq(msgbuf_put_u8(b, BROKER_EXITED), 0);
	cr_assert_eq(msgbuf_put_u32(b, 300), 0);
	cr_assert_eq(msgbuf_put_cstring(b, ""), 0);
	cr_assert_eq(broker_exit_decode(b, &got), -EBADMSG);

	msgbuf_reset(b);
	cr_assert_eq(broker_denied_encode(b, "no force pushes"), 0);
	cr_assert_eq(broker_denied_decode(b, &reason), 0);
	cr_assert_str_eq(reason, "no force pushes");
	free(reason);
}

Test(broker_proto, open_url)
{
	_cleanup_msgbuf_ struct msgbuf *b = new_buf();
	char *url = NULL, *big = malloc(BROKER_URL_MAX + 2);

	cr_assert_eq(broker_open_url_encode(b, "https://github.com/login/device"), 0);
	cr_assert_eq(broker_open_url_decode(b, &url), 0);
	cr_assert_str_eq(url, "https://github.com/login/device");
	free(url);
	/* trailing bytes, a NUL inside: dropped */
	msgbuf_reset(b);
	cr_assert_eq(broker_open_url_encode(b, "https://a/"), 0);
	cr_assert_eq(msgbuf_put_u8(b, 0), 0);
	cr_assert_eq(broker_open_url_decode(b, &url), -EBADMSG);
	msgbuf_reset(b);
	cr_assert_eq(msgbuf_put_string(b, "https://a/\0b", 12, 0), 0);
	cr_assert_lt(broker_open_url_decode(b, &url), 0);
	/* over the cap: refused both ways */
	cr_assert(big);
	memset(big, 'a', BROKER_URL_MAX + 1);
	big[BROKER_URL_MAX + 1] = '\0';
	msgbuf_reset(b);
	cr_assert_eq(broker_open_url_encode(b, big), -E2BIG);
	cr_assert_eq(msgbuf_put_string(b, big, BROKER_URL_MAX + 1, 0), 0);
	cr_assert_lt(broker_open_url_decode(b, &url), 0);
	free(big);
	cr_assert(broker_name_is_opener("xdg-open") && broker_name_is_opener("open") &&
		  broker_name_is_opener("sensible-browser"));
	cr_assert(!broker_name_is_opener("git") && !broker_name_is_opener(NULL));
}
