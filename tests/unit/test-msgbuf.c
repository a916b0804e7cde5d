/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "msgdispatch.h"
#include "strv.h"

/* ---- typed put/get ----------------------------------------------------- */

Test(msgbuf, round_trip_every_type)
{
	_cleanup_msgbuf_ struct msgbuf *b = msgbuf_new(4096);
	_cleanup_free_ char *s = NULL;
	char *argv[] = { "git", "commit", "-m", "", NULL };
	char **v = NULL;
	const uint8_t *p;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	size_t len;

	cr_assert_not_null(b);
	cr_assert_eq(msgbuf_put_u8(b, 0xab), 0);
	cr_assert_eq(msgbuf_put_u16(b, 0x1234), 0);
	cr_assert_eq(msgbuf_put_u32(b, 0xdeadbeef), 0);
	cr_assert_eq(msgbuf_put_u64(b, 0x0102030405060708ull), 0);
	cr_assert_eq(msgbuf_put_string(b, "a\0b", 3, 0), 0);
	cr_assert_eq(msgbuf_put_cstring(b, "/work"), 0);
	cr_assert_eq(msgbuf_put_strv(b, argv, MSG_ARGC_MAX, MSG_ARG_MAX), 0);
	cr_assert_eq(msgbuf_len(b), 1 + 2 + 4 + 8 + (4 + 3) + (4 + 5) + 4 + (4 + 3) + (4 + 6) +
					    (4 + 2) + 4);
	/* network order on the wire */
	cr_assert_eq(memcmp(msgbuf_ptr(b), "\xab\x12\x34\xde\xad\xbe\xef\x01\x02", 9), 0);

	cr_assert_eq(msgbuf_get_u8(b, &u8), 0);
	cr_assert_eq(u8, 0xab);
	cr_assert_eq(msgbuf_get_u16(b, &u16), 0);
	cr_assert_eq(u16, 0x1234);
	cr_assert_eq(msgbuf_get_u32(b, &u32), 0);
	cr_assert_eq(u32, 0xdeadbeef);
	cr_assert_eq(msgbuf_get_u64(b, &u64), 0);
	cr_assert_eq(u64, 0x0102030405060708ull);
	cr_assert_eq(msgbuf_get_string_direct(b, 16, 0, &p, &len), 0);
	cr_assert_eq(len, 3);
	cr_assert_eq(memcmp(p, "a\0b", 3), 0);
	cr_assert_eq(msgbuf_get_string(b, 16, MSGBUF_NO_NUL, &s, &len), 0);
	cr_assert_str_eq(s, "/work");
	cr_assert_eq(len, 5);
	cr_assert_eq(msgbuf_get_strv(b, MSG_ARGC_MAX, MSG_ARG_MAX, &v), 0);
	cr_assert_eq(strv_length(v), 4);
	cr_assert_str_eq(v[1], "commit");
	cr_assert_str_eq(v[3], "");
	cr_assert_null(v[4]);
	msgbuf_strv_free(v);
	msgbuf_strv_free(NULL);
	cr_assert_eq(msgbuf_len(b), 0);
	cr_assert_eq(msgbuf_get_u8(b, &u8), -EBADMSG, "nothing left");
}

Test(msgbuf, new_refuses_bad_caps_and_free_null_is_safe)
{
	errno = 0;
	cr_assert_null(msgbuf_new(0));
	cr_assert_eq(errno, EINVAL);
	cr_assert_null(msgbuf_new(MSGBUF_SIZE_MAX + 1));
	msgbuf_free(NULL);
	msg_reader_free(NULL);
	msg_frame_done(NULL);
}

Test(msgbuf, truncated_gets_fail_and_consume_nothing)
{
	_cleanup_msgbuf_ struct msgbuf *b = msgbuf_new(64);
	char *s = (char *)0x1;
	char **v = (char **)0x1;
	uint64_t u64 = 7;
	uint32_t u32 = 7;
	uint16_t u16 = 7;

	cr_assert_eq(msgbuf_put(b, "\x00\x00\x00\x09" "abc", 7), 0);
	cr_assert_eq(msgbuf_get_u64(b, &u64), -EBADMSG);
	cr_assert_eq(u64, 7, "out-param untouched on failure");
	cr_assert_eq(msgbuf_get_string(b, 64, 0, &s, NULL), -EBADMSG, "length 9, 3 bytes there");
	cr_assert_eq(s, (char *)0x1);
	cr_assert_eq(msgbuf_len(b), 7, "a failed get consumes nothing");
	/* a strv whose second string is cut short */
	msgbuf_reset(b);
	cr_assert_eq(msgbuf_put(b, "\x00\x00\x00\x02" "\x00\x00\x00\x01" "x" "\x00\x00\x00\x05" "ab",
				15), 0);
	cr_assert_eq(msgbuf_get_strv(b, 10, 10, &v), -EBADMSG);
	cr_assert_eq(v, (char **)0x1);
	cr_assert_eq(msgbuf_len(b), 15);
	/* a count the bytes cannot hold is refused before allocating */
	msgbuf_reset(b);
	cr_assert_eq(msgbuf_put(b, "\x00\x00\x10\x00" "\x00\x00\x00\x00", 8), 0);
	cr_assert_eq(msgbuf_get_strv(b, MSG_ARGC_MAX, 10, &v), -EBADMSG);
	msgbuf_reset(b);
	cr_assert_eq(msgbuf_get_u32(b, &u32), -EBADMSG);
	cr_assert_eq(msgbuf_get_u16(b, &u16), -EBADMSG);
	cr_assert_eq(msgbuf_get(b, NULL, 1), -EBADMSG);
}

Test(msgbuf, puts_over_the_cap_fail_and_change_nothing)
{
	_cleanup_msgbuf_ struct msgbuf *b = msgbuf_new(16);
	char *big[] = { "aaaa", "bbbb", "cccc", NULL };
	uint8_t u8;

	cr_assert_eq(msgbuf_put(b, "0123456789", 10), 0);
	cr_assert_eq(msgbuf_put_u64(b, 1), -EMSGSIZE);
	cr_assert_eq(msgbuf_put_string(b, "abc", 3, 0), -EMSGSIZE, "4+3 > 6 left");
	cr_assert_eq(msgbuf_put_strv(b, big, 10, 10), -EMSGSIZE);
	cr_assert_eq(msgbuf_len(b), 10, "a failed put leaves the buffer as it was");
	cr_assert_eq(msgbuf_put(b, "abcdef", 6), 0, "exactly the cap fits");
	cr_assert_eq(msgbuf_put_u8(b, 0), -EMSGSIZE);
	/* consumed bytes are reclaimed: the cap is on unread bytes */
	cr_assert_eq(msgbuf_get(b, NULL, 10), 0);
	cr_assert_eq(msgbuf_put_u64(b, 0x4142434445464748ull), 0);
	cr_assert_eq(msgbuf_len(b), 14);
	cr_assert_eq(memcmp(msgbuf_ptr(b), "abcdefABCDEFGH", 14), 0);
	cr_assert_eq(msgbuf_get_u8(b, &u8), 0);
	cr_assert_eq(u8, 'a');
}

Test(msgbuf, strv_put_failure_rolls_back_the_partial_vector)
{
	_cleanup_msgbuf_ struct msgbuf *b = msgbuf_new(32);
	char *v[] = { "one", "two", "three-is-too-long", NULL };

	cr_assert_eq(msgbuf_put_u8(b, 9), 0);
	cr_assert_eq(msgbuf_put_strv(b, v, 10, 100), -EMSGSIZE);
	cr_assert_eq(msgbuf_len(b), 1);
	cr_assert_eq(msgbuf_ptr(b)[0], 9);
}

Test(msgbuf, nul_refused_where_the_caller_says_so)
{
	_cleanup_msgbuf_ struct msgbuf *b = msgbuf_new(64);
	const uint8_t *p;
	size_t len;
	char *s = NULL;
	char **v = NULL;

	cr_assert_eq(msgbuf_put_string(b, "a\0b", 3, MSGBUF_NO_NUL), -EINVAL);
	cr_assert_eq(msgbuf_len(b), 0);
	cr_assert_eq(msgbuf_put_string(b, "a\0b", 3, 0), 0, "allowed without the flag");
	cr_assert_eq(msgbuf_get_string(b, 64, MSGBUF_NO_NUL, &s, NULL), -EBADMSG);
	cr_assert_null(s);
	cr_assert_eq(msgbuf_len(b), 7);
	cr_assert_eq(msgbuf_get_string_direct(b, 64, 0, &p, &len), 0, "control: accepted without");
	cr_assert_eq(len, 3);
	/* a strv element always refuses NUL: it becomes a C string */
	cr_assert_eq(msgbuf_put(b, "\x00\x00\x00\x01" "\x00\x00\x00\x02" "x\0", 10), 0);
	cr_assert_eq(msgbuf_get_strv(b, 4, 4, &v), -EBADMSG);
	cr_assert_null(v);
	cr_assert_eq(msgbuf_put_string(b, "x", 1, 0x80), -EINVAL, "unknown flag");
}

Test(msgbuf, string_over_callers_cap)
{
	_cleanup_msgbuf_ struct msgbuf *b = msgbuf_new(64);
	_cleanup_free_ char *s = NULL;

	cr_assert_eq(msgbuf_put_cstring(b, "0123456789"), 0);
	cr_assert_eq(msgbuf_get_string(b, 9, 0, &s, NULL), -E2BIG);
	cr_assert_eq(msgbuf_len(b), 14);
	cr_assert_eq(msgbuf_get_string(b, 10, 0, &s, NULL), 0, "exactly the cap is fine");
	cr_assert_str_eq(s, "0123456789");
}

/* argc <= 4096 and one argument <= 128 KiB, both ways */
Test(msgbuf, argv_caps)
{
	_cleanup_msgbuf_ struct msgbuf *b = msgbuf_new(MSG_FRAME_MAX);
	_cleanup_free_ char *arg = malloc(MSG_ARG_MAX + 2);
	_cleanup_free_ char **many = calloc(MSG_ARGC_MAX + 2, sizeof(char *));
	char *one[2] = { arg, NULL };
	char **v = NULL;

	cr_assert_not_null(arg);
	for (size_t i = 0; i <= MSG_ARGC_MAX; i++)
		many[i] = "x";
	/* 4097 arguments: refused on put, and on get when a peer sends them */
	cr_assert_eq(msgbuf_put_strv(b, many, MSG_ARGC_MAX, MSG_ARG_MAX), -E2BIG);
	cr_assert_eq(msgbuf_len(b), 0);
	cr_assert_eq(msgbuf_put_strv(b, many, MSG_ARGC_MAX + 1, MSG_ARG_MAX), 0);
	cr_assert_eq(msgbuf_get_strv(b, MSG_ARGC_MAX, MSG_ARG_MAX, &v), -E2BIG);
	cr_assert_null(v);
	msgbuf_reset(b);
	many[MSG_ARGC_MAX] = NULL;
	cr_assert_eq(msgbuf_put_strv(b, many, MSG_ARGC_MAX, MSG_ARG_MAX), 0);
	cr_assert_eq(msgbuf_get_strv(b, MSG_ARGC_MAX, MSG_ARG_MAX, &v), 0, "4096 is fine");
	cr_assert_eq(strv_length(v), MSG_ARGC_MAX);
	v = strv_free(v);

	/* one argument of 128 KiB + 1 */
	memset(arg, 'a', MSG_ARG_MAX + 1);
	arg[MSG_ARG_MAX + 1] = 0;
	msgbuf_reset(b);
	cr_assert_eq(msgbuf_put_strv(b, one, MSG_ARGC_MAX, MSG_ARG_MAX), -E2BIG);
	cr_assert_eq(msgbuf_put_strv(b, one, MSG_ARGC_MAX, MSG_ARG_MAX + 1), 0);
	cr_assert_eq(msgbuf_get_strv(b, MSG_ARGC_MAX, MSG_ARG_MAX, &v), -E2BIG);
	cr_assert_null(v);
	arg[MSG_ARG_MAX] = 0;
	msgbuf_reset(b);
	cr_assert_eq(msgbuf_put_strv(b, one, MSG_ARGC_MAX, MSG_ARG_MAX), 0);
	cr_assert_eq(msgbuf_get_strv(b, MSG_ARGC_MAX, MSG_ARG_MAX, &v), 0, "128 KiB is fine");
	cr_assert_eq(strlen(v[0]), MSG_ARG_MAX);
	strv_free(v);
}

/* ---- frames: the header, the feed reader ------------------------------- */

static void put_frame(struct msgbuf *out, uint16_t type, const char *body, size_t len,
		      size_t nfds)
{
	uint8_t hdr[MSG_HEADER_SIZE];

	cr_assert_eq(msg_header_encode(hdr, type, len, nfds), 0);
	cr_assert_eq(msgbuf_put(out, hdr, sizeof(hdr)), 0);
	cr_assert_eq(msgbuf_put(out, body, len), 0);
}

Test(msgframe, header_refusals)
{
	uint8_t h[MSG_HEADER_SIZE], bad[MSG_HEADER_SIZE];
	size_t len, nfds;
	uint16_t type;

	cr_assert_eq(msg_header_encode(h, 0x0102, 5, 1), 0);
	cr_assert_eq(msg_header_decode(h, 16, &type, &len, &nfds), 0);
	cr_assert_eq(type, 0x0102);
	cr_assert_eq(len, 5);
	cr_assert_eq(nfds, 1);
	cr_assert_eq(msg_header_decode(h, 4, &type, &len, &nfds), -EMSGSIZE, "over the reader's cap");
	memcpy(bad, h, sizeof(h));
	bad[1] = MSG_VERSION + 1;
	cr_assert_eq(msg_header_decode(bad, 16, &type, &len, &nfds), -EPROTONOSUPPORT);
	memcpy(bad, h, sizeof(h));
	bad[0] ^= 0xff;
	cr_assert_eq(msg_header_decode(bad, 16, &type, &len, &nfds), -EBADMSG);
	memcpy(bad, h, sizeof(h));
	bad[6] = 1;
	cr_assert_eq(msg_header_decode(bad, 16, &type, &len, &nfds), -EBADMSG, "reserved byte");
	memcpy(bad, h, sizeof(h));
	bad[4] = MSG_FDS_MAX + 1;
	cr_assert_eq(msg_header_decode(bad, 16, &type, &len, &nfds), -ETOOMANYREFS);
	memcpy(bad, h, sizeof(h));
	bad[8] = 0x10; /* 256 MiB */
	cr_assert_eq(msg_header_decode(bad, MSG_FRAME_MAX, &type, &len, &nfds), -EMSGSIZE);
	cr_assert_eq(msg_header_encode(h, 1, MSG_FRAME_MAX + 1, 0), -EMSGSIZE);
	cr_assert_eq(msg_header_encode(h, 1, 0, MSG_FDS_MAX + 1), -ETOOMANYREFS);
}

Test(msgframe, reader_waits_for_a_whole_frame_byte_by_byte)
{
	_cleanup_msg_reader_ struct msg_reader *r = msg_reader_new(64);
	_cleanup_msgbuf_ struct msgbuf *wire = msgbuf_new(256);
	struct msg_frame f = {};
	const uint8_t *p;
	size_t n, got = 0;

	put_frame(wire, 7, "hello", 5, 0);
	put_frame(wire, 8, "", 0, 0);
	p = msgbuf_ptr(wire);
	n = msgbuf_len(wire);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(msg_reader_feed(r, p + i, 1, NULL, 0), 0);
		int k = msg_reader_next(r, &f);
		if (i == 16 || i == 28) {
			cr_assert_eq(k, 1, "frame complete at byte %zu", i);
			cr_assert_eq(f.type, got == 0 ? 7 : 8);
			cr_assert_eq(msgbuf_len(f.body), got == 0 ? 5 : 0);
			msg_frame_done(&f);
			got++;
		} else
			cr_assert_eq(k, -EAGAIN, "byte %zu", i);
	}
	cr_assert_eq(got, 2);
	cr_assert_eq(msg_reader_pending(r), 0);
}

Test(msgframe, reader_refuses_and_stays_refused)
{
	_cleanup_msg_reader_ struct msg_reader *r = msg_reader_new(8);
	_cleanup_msgbuf_ struct msgbuf *wire = msgbuf_new(256);
	struct msg_frame f = {};
	uint8_t hdr[MSG_HEADER_SIZE];

	/* oversize: known from the header, before any body arrives */
	cr_assert_eq(msg_header_encode(hdr, 1, 9, 0), 0);
	cr_assert_eq(msg_reader_feed(r, hdr, sizeof(hdr), NULL, 0), 0);
	cr_assert_eq(msg_reader_next(r, &f), -EMSGSIZE);
	cr_assert_eq(msg_reader_feed(r, "x", 1, NULL, 0), -EMSGSIZE, "sticky");
	cr_assert_eq(msg_reader_next(r, &f), -EMSGSIZE);
	msg_reader_free(r);

	r = msg_reader_new(8);
	cr_assert_eq(msg_header_encode(hdr, 1, 0, 0), 0);
	hdr[1] = 2;
	cr_assert_eq(msg_reader_feed(r, hdr, sizeof(hdr), NULL, 0), 0);
	cr_assert_eq(msg_reader_next(r, &f), -EPROTONOSUPPORT, "wrong version");
	msg_reader_free(r);

	r = msg_reader_new(8);
	cr_assert_eq(msg_reader_feed(r, "G", 1, NULL, 0), 0);
	cr_assert_eq(msg_reader_next(r, &f), -EBADMSG, "bad magic from the first byte");
	msg_reader_free(r);

	/* more bytes than the reader holds: -ENOBUFS, not sticky */
	r = msg_reader_new(8);
	put_frame(wire, 1, "12345678", 8, 0);
	put_frame(wire, 2, "", 0, 0);
	cr_assert_eq(msg_reader_feed(r, msgbuf_ptr(wire), msgbuf_len(wire), NULL, 0), -ENOBUFS);
	cr_assert_eq(msg_reader_feed(r, msgbuf_ptr(wire), 20, NULL, 0), 0);
	cr_assert_eq(msg_reader_next(r, &f), 1);
	cr_assert_eq(f.type, 1);
	msg_frame_done(&f);
	cr_assert_eq(msg_reader_feed(r, msgbuf_ptr(wire) + 20, 12, NULL, 0), 0);
	cr_assert_eq(msg_reader_next(r, &f), 1);
	cr_assert_eq(f.type, 2);
	msg_frame_done(&f);
}

static bool fd_is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

Test(msgframe, reader_fds_claimed_missing_and_unexpected)
{
	_cleanup_msg_reader_ struct msg_reader *r = msg_reader_new(64);
	_cleanup_msgbuf_ struct msgbuf *wire = msgbuf_new(256);
	struct msg_frame f = {};
	int fds[MSG_FDS_MAX + 1];

	for (size_t i = 0; i < ELEMENTSOF(fds); i++)
		fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	/* one frame declaring 2 fds, with 2 fds */
	put_frame(wire, 3, "ab", 2, 2);
	cr_assert_eq(msg_reader_feed(r, msgbuf_ptr(wire), msgbuf_len(wire), fds, 2), 0);
	cr_assert_eq(msg_reader_next(r, &f), 1);
	cr_assert_eq(f.nfds, 2);
	cr_assert_eq(f.fds[0], fds[0]);
	cr_assert_eq(f.fds[1], fds[1]);
	cr_assert_eq(f.fds[2], -1);
	f.fds[1] = -1; /* a handler keeps one */
	msg_frame_done(&f);
	cr_assert_not(fd_is_open(fds[0]), "done closes what no one took");
	cr_assert(fd_is_open(fds[1]));
	close(fds[1]);

	/* a frame declaring an fd that never came */
	msgbuf_reset(wire);
	put_frame(wire, 3, "", 0, 1);
	cr_assert_eq(msg_reader_feed(r, msgbuf_ptr(wire), msgbuf_len(wire), NULL, 0), 0);
	cr_assert_eq(msg_reader_next(r, &f), -EBADMSG);
	msg_reader_free(r);

	/* an fd that no frame declares is closed and refused */
	r = msg_reader_new(64);
	msgbuf_reset(wire);
	put_frame(wire, 3, "", 0, 0);
	cr_assert_eq(msg_reader_feed(r, msgbuf_ptr(wire), msgbuf_len(wire), &fds[2], 1), 0);
	cr_assert_eq(msg_reader_next(r, &f), -ETOOMANYREFS);
	cr_assert_not(fd_is_open(fds[2]));
	msg_reader_free(r);

	/* more fds than two frames can carry: closed on the way in */
	r = msg_reader_new(64);
	int many[2 * MSG_FDS_MAX + 1];
	for (size_t i = 0; i < ELEMENTSOF(many); i++)
		many[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	cr_assert_eq(msg_reader_feed(r, "", 0, many, ELEMENTSOF(many)), -ETOOMANYREFS);
	cr_assert_not(fd_is_open(many[2 * MSG_FDS_MAX]));
	msg_reader_free(r);
	r = NULL;
	for (size_t i = 0; i < ELEMENTSOF(many); i++)
		cr_assert_not(fd_is_open(many[i]), "reader_free closes its queue");
	for (size_t i = 3; i < ELEMENTSOF(fds); i++)
		close(fds[i]);
}

/* ---- frames over a real socketpair ------------------------------------- */

static void pair(int sv[2])
{
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
}

Test(msgframe, socketpair_round_trip_passes_an_fd_cloexec)
{
	_cleanup_msgbuf_ struct msgbuf *body = msgbuf_new(MSG_FRAME_MAX);
	_cleanup_close_ int a = -1, b = -1, pipe_r = -1, pipe_w = -1;
	struct msg_frame f = {};
	char *argv[] = { "gh", "pr", "list", NULL };
	char **v = NULL;
	int sv[2], pp[2];
	char c = 0;
	struct stat st1, st2;

	pair(sv);
	a = sv[0];
	b = sv[1];
	cr_assert_eq(pipe2(pp, O_CLOEXEC), 0);
	pipe_r = pp[0];
	pipe_w = pp[1];
	cr_assert_eq(msgbuf_put_strv(body, argv, MSG_ARGC_MAX, MSG_ARG_MAX), 0);
	/* the control: the fd we send has no CLOEXEC the receiver could inherit */
	cr_assert_eq(fcntl(pipe_w, F_SETFD, 0), 0);
	cr_assert_eq(msg_frame_write(a, 0x0101, body, &pipe_w, 1), 0);
	cr_assert_eq(msg_frame_read(b, MSG_FRAME_MAX, &f), 1);
	cr_assert_eq(f.type, 0x0101);
	cr_assert_eq(f.nfds, 1);
	cr_assert(fcntl(f.fds[0], F_GETFD) & FD_CLOEXEC, "received with MSG_CMSG_CLOEXEC");
	cr_assert_eq(fstat(f.fds[0], &st1), 0);
	cr_assert_eq(fstat(pipe_w, &st2), 0);
	cr_assert_eq(st1.st_ino, st2.st_ino, "the same pipe arrived");
	cr_assert_eq(write(f.fds[0], "z", 1), 1);
	cr_assert_eq(read(pipe_r, &c, 1), 1);
	cr_assert_eq(c, 'z');
	cr_assert_eq(msgbuf_get_strv(f.body, MSG_ARGC_MAX, MSG_ARG_MAX, &v), 0);
	cr_assert_str_eq(v[2], "list");
	msgbuf_strv_free(v);
	msg_frame_done(&f);

	/* a whole 1 MiB body, through the non-blocking reader */
	_cleanup_msg_reader_ struct msg_reader *r = msg_reader_new(MSG_FRAME_MAX);
	msgbuf_reset(body);
	uint8_t *p;
	cr_assert_eq(msgbuf_reserve(body, MSG_FRAME_MAX, &p), 0);
	memset(p, 'q', MSG_FRAME_MAX);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		_exit(msg_frame_write(a, 9, body, &pipe_w, 1) == 0 ? 0 : 1);
	}
	int k;
	size_t total = 0;
	while ((k = msg_reader_next(r, &f)) == -EAGAIN) {
		int n = msg_reader_recv(r, b);
		if (n == -EAGAIN) {
			usleep(1000);
			continue;
		}
		cr_assert_gt(n, 0, "recv: %d", n);
		total += (size_t)n;
	}
	cr_assert_eq(k, 1);
	cr_assert_eq(total, MSG_HEADER_SIZE + MSG_FRAME_MAX);
	cr_assert_eq(f.type, 9);
	cr_assert_eq(msgbuf_len(f.body), MSG_FRAME_MAX);
	cr_assert_eq(msgbuf_ptr(f.body)[MSG_FRAME_MAX - 1], 'q');
	cr_assert_eq(f.nfds, 1);
	cr_assert(fcntl(f.fds[0], F_GETFD) & FD_CLOEXEC);
	msg_frame_done(&f);
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cr_assert_eq(msg_reader_recv(r, b), -EAGAIN, "nothing more");
	close(TAKE_FD(a));
	cr_assert_eq(msg_reader_recv(r, b), 0, "end of file");
	cr_assert_eq(msg_frame_read(b, 16, &f), 0, "clean EOF at a boundary");
}

/* Send raw bytes with n fds attached, as a misbehaving peer would. */
static void send_raw(int sock, const void *data, size_t len, const int *fds, size_t n)
{
	char buf[CMSG_SPACE(sizeof(int) * 16)] = {};
	struct iovec iov = { (void *)data, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (n) {
		mh.msg_control = buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * n);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * n);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
	}
	cr_assert_eq(sendmsg(sock, &mh, MSG_NOSIGNAL), (ssize_t)len);
}

static int count_open_fds(void)
{
	int n = 0;

	for (int fd = 0; fd < 1024; fd++)
		n += fd_is_open(fd);
	return n;
}

Test(msgframe, socket_refusals_close_every_fd)
{
	int sv[2], fds[MSG_FDS_MAX + 1], before;
	struct msg_frame f = {};
	uint8_t hdr[MSG_HEADER_SIZE];

	for (size_t i = 0; i < ELEMENTSOF(fds); i++)
		fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	/* fds beyond the cap: writer refuses; a raw peer's extra fds are closed */
	pair(sv);
	before = count_open_fds();
	cr_assert_eq(msg_frame_write(sv[0], 1, NULL, fds, MSG_FDS_MAX + 1), -ETOOMANYREFS);
	cr_assert_eq(msg_header_encode(hdr, 1, 0, MSG_FDS_MAX), 0);
	send_raw(sv[0], hdr, sizeof(hdr), fds, MSG_FDS_MAX + 1);
	cr_assert_eq(msg_frame_read(sv[1], 64, &f), -ETOOMANYREFS);
	cr_assert_eq(count_open_fds(), before, "nothing leaked");
	close(sv[0]);
	close(sv[1]);

	/* the same through the non-blocking reader */
	pair(sv);
	before = count_open_fds();
	struct msg_reader *r = msg_reader_new(64);
	send_raw(sv[0], hdr, sizeof(hdr), fds, MSG_FDS_MAX + 1);
	cr_assert_eq(msg_reader_recv(r, sv[1]), -ETOOMANYREFS);
	msg_reader_free(r);
	cr_assert_eq(count_open_fds(), before);
	close(sv[0]);
	close(sv[1]);

	/* fds a frame does not declare */
	pair(sv);
	before = count_open_fds();
	cr_assert_eq(msg_header_encode(hdr, 1, 0, 0), 0);
	send_raw(sv[0], hdr, sizeof(hdr), fds, 1);
	cr_assert_eq(msg_frame_read(sv[1], 64, &f), -ETOOMANYREFS);
	cr_assert_eq(count_open_fds(), before);

	/* declared but missing */
	cr_assert_eq(msg_header_encode(hdr, 1, 0, 1), 0);
	send_raw(sv[0], hdr, sizeof(hdr), NULL, 0);
	cr_assert_eq(msg_frame_read(sv[1], 64, &f), -EBADMSG);

	/* a truncated frame: header says 10, peer sends 3 and hangs up */
	cr_assert_eq(msg_header_encode(hdr, 1, 10, 0), 0);
	send_raw(sv[0], hdr, sizeof(hdr), NULL, 0);
	send_raw(sv[0], "abc", 3, NULL, 0);
	close(sv[0]);
	cr_assert_eq(msg_frame_read(sv[1], 64, &f), -EBADMSG);
	close(sv[1]);

	/* oversize and wrong version over the socket */
	pair(sv);
	cr_assert_eq(msg_header_encode(hdr, 1, 65, 0), 0);
	send_raw(sv[0], hdr, sizeof(hdr), NULL, 0);
	cr_assert_eq(msg_frame_read(sv[1], 64, &f), -EMSGSIZE);
	cr_assert_eq(msg_header_encode(hdr, 1, 0, 0), 0);
	hdr[1] = 0;
	send_raw(sv[0], hdr, sizeof(hdr), NULL, 0);
	cr_assert_eq(msg_frame_read(sv[1], 64, &f), -EPROTONOSUPPORT);
	close(sv[0]);
	close(sv[1]);
	for (size_t i = 0; i < ELEMENTSOF(fds); i++)
		close(fds[i]);
}

/* ---- dispatch ----------------------------------------------------------- */

enum { T_HELLO = 1, T_EXEC = 2, T_STDIO = 3, T_BYE = 4, T_FAIL = 5 };

struct peer {
	struct msg_state st;
	int calls[8];
};

static int on_hello(void *ctx, struct msgbuf *body, int *fds, size_t nfds)
{
	struct peer *p = ctx;

	p->calls[T_HELLO]++;
	/* after hello the peer may exec; it tries to re-permit hello too */
	msg_permit(&p->st, T_EXEC, true);
	msg_permit(&p->st, T_HELLO, true);
	return 0;
}

static int on_exec(void *ctx, struct msgbuf *body, int *fds, size_t nfds)
{
	struct peer *p = ctx;

	p->calls[T_EXEC]++;
	msg_permit(&p->st, T_EXEC, false);
	msg_permit(&p->st, T_STDIO, true);
	return 0;
}

static int on_other(void *ctx, struct msgbuf *body, int *fds, size_t nfds)
{
	struct peer *p = ctx;
	uint8_t t = 0;

	(void)msgbuf_get_u8(body, &t);
	p->calls[t]++;
	return t == T_FAIL ? -EINVAL : 0;
}

static const struct msg_handler table[] = {
	{ T_HELLO, MSG_ONCE | MSG_PERMIT, on_hello },
	{ T_EXEC, 0, on_exec },
	{ T_STDIO, 0, on_other },
	{ T_BYE, MSG_PERMIT, on_other },
	{ T_FAIL, MSG_PERMIT, on_other },
};

Test(msgdispatch, once_and_permit_rules)
{
	_cleanup_msgbuf_ struct msgbuf *body = msgbuf_new(16);
	struct peer p = {};

	cr_assert_eq(msg_state_init(&p.st, table, ELEMENTSOF(table)), 0);
	cr_assert_eq(msg_dispatch(&p.st, &p, 99, body, NULL, 0), -EPROTO, "unknown type");
	cr_assert_eq(msg_dispatch(&p.st, &p, T_EXEC, body, NULL, 0), -EPERM, "exec before hello");
	cr_assert_eq(p.calls[T_EXEC], 0, "the handler never ran");
	cr_assert_eq(msg_dispatch(&p.st, &p, T_HELLO, body, NULL, 0), 0);
	cr_assert_eq(p.calls[T_HELLO], 1);
	cr_assert_not(msg_permitted(&p.st, T_HELLO), "ONCE wins over a handler's re-permit");
	cr_assert_eq(msg_dispatch(&p.st, &p, T_HELLO, body, NULL, 0), -EPERM, "hello twice");
	cr_assert_eq(msg_permit(&p.st, T_HELLO, true), 0);
	cr_assert_eq(msg_dispatch(&p.st, &p, T_HELLO, body, NULL, 0), -EPERM, "still once");
	cr_assert_eq(p.calls[T_HELLO], 1);
	cr_assert_eq(msg_dispatch(&p.st, &p, T_STDIO, body, NULL, 0), -EPERM, "stdio before exec");
	cr_assert_eq(msg_dispatch(&p.st, &p, T_EXEC, body, NULL, 0), 0, "permitted by hello");
	cr_assert_eq(msg_dispatch(&p.st, &p, T_EXEC, body, NULL, 0), -EPERM, "exec withdrew itself");
	msgbuf_put_u8(body, T_STDIO);
	cr_assert_eq(msg_dispatch(&p.st, &p, T_STDIO, body, NULL, 0), 0);
	cr_assert_eq(p.calls[T_STDIO], 1);
	msgbuf_put_u8(body, T_FAIL);
	cr_assert_eq(msg_dispatch(&p.st, &p, T_FAIL, body, NULL, 0), -EINVAL, "handler's error");
	cr_assert_eq(msg_permit(&p.st, 99, true), -EPROTO);
	cr_assert_not(msg_permitted(&p.st, 99));

	/* a second peer starts from the table's own state */
	struct peer q = {};
	cr_assert_eq(msg_state_init(&q.st, table, ELEMENTSOF(table)), 0);
	cr_assert(msg_permitted(&q.st, T_HELLO));
	cr_assert_not(msg_permitted(&q.st, T_EXEC));
}

static int noop(void *ctx, struct msgbuf *body, int *fds, size_t nfds)
{
	return 0;
}

Test(msgdispatch, bad_tables_are_refused)
{
	struct msg_handler dup[] = { { 1, 0, noop }, { 1, MSG_PERMIT, noop } };
	struct msg_handler nofn[] = { { 1, 0, NULL } };
	struct msg_handler flags[] = { { 1, 0x80, noop } };
	struct msg_handler big[MSG_HANDLERS_MAX + 1];
	struct msg_state s;

	for (size_t i = 0; i < ELEMENTSOF(big); i++)
		big[i] = (struct msg_handler){ (uint16_t)i, 0, noop };
	cr_assert_eq(msg_state_init(&s, dup, 2), -EINVAL);
	cr_assert_eq(msg_state_init(&s, nofn, 1), -EINVAL);
	cr_assert_eq(msg_state_init(&s, flags, 1), -EINVAL);
	cr_assert_eq(msg_state_init(&s, big, ELEMENTSOF(big)), -EINVAL);
	cr_assert_eq(msg_state_init(&s, big, MSG_HANDLERS_MAX), 0, "64 entries fit");
	cr_assert_eq(msg_permit(&s, MSG_HANDLERS_MAX - 1, true), 0);
	cr_assert(msg_permitted(&s, MSG_HANDLERS_MAX - 1), "the 64th bit works");
}

static int take(void *ctx, struct msgbuf *body, int *fds, size_t nfds)
{
	*(int *)ctx = fds[0];
	fds[0] = -1;
	return nfds == 1 && msgbuf_len(body) == 0 ? 0 : -EINVAL;
}

Test(msgdispatch, frame_to_handler_with_fd)
{
	static int kept = -1;
	struct peer p = {};
	int sv[2], fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	struct msg_frame f = {};
	struct msg_handler t[] = { { 7, MSG_PERMIT, take } };

	pair(sv);
	cr_assert_eq(msg_state_init(&p.st, t, 1), 0);
	cr_assert_eq(msg_frame_write(sv[0], 7, NULL, &fd, 1), 0);
	cr_assert_eq(msg_frame_read(sv[1], 0, &f), 1);
	cr_assert_eq(msg_dispatch_frame(&p.st, &kept, &f), 0);
	msg_frame_done(&f);
	cr_assert(fd_is_open(kept), "the handler took the fd; done left it open");
	close(kept);
	close(fd);
	close(sv[0]);
	close(sv[1]);
}
