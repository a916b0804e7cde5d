/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The broker's frame decoder and typed getters on arbitrary bytes: a peer
 * in a sandbox writes them. Nothing may crash, read out of bounds, leak
 * memory or fds; a failed get consumes nothing; what a get accepts puts
 * back to the same bytes.
 *
 * Input: byte 0 picks the feed chunk size, byte 1 which chunks carry fds
 * (and how many), the rest is the stream.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msgdispatch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define INPUT_MAX (256u * 1024)
#define BODY_MAX (64u * 1024) /* smaller than the broker's, to reach the cap */

static int devnull = -1;

#define check(x)                 \
	do {                     \
		if (!(x))        \
			abort(); \
	} while (0)

static int open_fd_count(void)
{
	int n = 0;

	for (int fd = 0; fd < 256; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

/* Run getters chosen by sel over b until one fails or b is empty. */
static void getters(struct msgbuf *b, uint16_t sel)
{
	for (unsigned i = 0; msgbuf_len(b) > 0 && i < 4096; i++) {
		size_t before = msgbuf_len(b), len;
		const uint8_t *start = msgbuf_ptr(b), *p;
		_cleanup_msgbuf_ struct msgbuf *again = NULL;
		char *s = NULL, **v = NULL;
		uint64_t u64;
		uint32_t u32;
		uint16_t u16;
		uint8_t u8;
		int r = 0;

		switch ((sel + i) % 7) {
		case 0: r = msgbuf_get_u8(b, &u8); break;
		case 1: r = msgbuf_get_u16(b, &u16); break;
		case 2: r = msgbuf_get_u32(b, &u32); break;
		case 3: r = msgbuf_get_u64(b, &u64); break;
		case 4:
			r = msgbuf_get_string_direct(b, sel & 1 ? 64 : BODY_MAX, MSGBUF_NO_NUL, &p, &len);
			if (r == 0)
				check(!memchr(p, 0, len) && len + 4 == before - msgbuf_len(b));
			break;
		case 5:
			r = msgbuf_get_string(b, MSG_ARG_MAX, 0, &s, &len);
			if (r == 0)
				check(s[len] == 0 && len + 4 == before - msgbuf_len(b));
			free(s);
			break;
		default:
			r = msgbuf_get_strv(b, sel & 2 ? 8 : MSG_ARGC_MAX, MSG_ARG_MAX, &v);
			if (r == 0) {
				/* what was accepted encodes back to the bytes consumed */
				again = msgbuf_new(before);
				check(again);
				check(msgbuf_put_strv(again, v, MSG_ARGC_MAX, MSG_ARG_MAX) == 0);
				check(msgbuf_len(again) == before - msgbuf_len(b));
				check(memcmp(msgbuf_ptr(again), start, msgbuf_len(again)) == 0);
			}
			msgbuf_strv_free(v);
			break;
		}
		if (r < 0) {
			check(msgbuf_len(b) == before && msgbuf_ptr(b) == start);
			return;
		}
		check(msgbuf_len(b) < before);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct msg_reader *r;
	size_t chunk, off = 2;
	unsigned fdbits, nchunk = 0;
	int base, e = 0;

	if (size < 2 || size > INPUT_MAX)
		return 0;
	if (devnull < 0)
		devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	check(devnull >= 0);
	base = open_fd_count();
	chunk = (size_t)data[0] * 97 + 1;
	fdbits = data[1];

	/* the whole stream as one buffer through the getters */
	{
		_cleanup_msgbuf_ struct msgbuf *b = msgbuf_new(size);

		check(b);
		check(msgbuf_put(b, data + 2, size - 2) == 0);
		getters(b, data[0]);
	}

	r = msg_reader_new(BODY_MAX);
	check(r);
	while (off < size && e >= 0) {
		size_t n = size - off < chunk ? size - off : chunk;
		int fds[MSG_FDS_MAX + 1];
		size_t nfds = 0;

		/* bit k of fdbits: chunk k carries (k % (MSG_FDS_MAX + 2)) fds */
		if (fdbits & (1u << (nchunk % 8)))
			nfds = nchunk % (MSG_FDS_MAX + 2);
		for (size_t i = 0; i < nfds; i++)
			check((fds[i] = fcntl(devnull, F_DUPFD_CLOEXEC, 3)) >= 0);
		e = msg_reader_feed(r, data + off, n, fds, nfds);
		if (e == -ENOBUFS) {
			for (size_t i = 0; i < nfds; i++)
				close(fds[i]);
			break; /* the caller should have drained: a stream this long drops */
		}
		off += n;
		nchunk++;
		for (;;) {
			struct msg_frame f = {};

			e = msg_reader_next(r, &f);
			if (e != 1)
				break;
			check(f.nfds <= MSG_FDS_MAX && msgbuf_len(f.body) <= BODY_MAX);
			for (size_t i = 0; i < f.nfds; i++)
				check(fcntl(f.fds[i], F_GETFD) >= 0);
			getters(f.body, f.type);
			msg_frame_done(&f);
		}
		if (e == -EAGAIN)
			e = 0;
	}
	msg_reader_free(r);
	/* every fd fed in was claimed and closed, or closed on refusal */
	check(open_fd_count() == base);
	return 0;
}
