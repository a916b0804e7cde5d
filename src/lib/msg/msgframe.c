/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Frames over a unix stream socket: a 12-byte header, a capped body and at
 * most MSG_FDS_MAX fds by SCM_RIGHTS. A blocking reader that never reads
 * past its frame, and a feed-bytes reader for event loops.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "msgframe.h"

int msg_header_encode(uint8_t out[MSG_HEADER_SIZE], uint16_t type, size_t body_len,
		      size_t nfds)
{
	if (body_len > MSG_FRAME_MAX)
		return -EMSGSIZE;
	if (nfds > MSG_FDS_MAX)
		return -ETOOMANYREFS;
	memset(out, 0, MSG_HEADER_SIZE);
	out[0] = MSG_MAGIC;
	out[1] = MSG_VERSION;
	out[2] = type >> 8;
	out[3] = type & 0xff;
	out[4] = (uint8_t)nfds;
	out[8] = (uint8_t)(body_len >> 24);
	out[9] = (uint8_t)(body_len >> 16);
	out[10] = (uint8_t)(body_len >> 8);
	out[11] = (uint8_t)body_len;
	return 0;
}

int msg_header_decode(const uint8_t in[MSG_HEADER_SIZE], size_t max_body, uint16_t *ret_type,
		      size_t *ret_body_len, size_t *ret_nfds)
{
	uint32_t len;

	if (in[0] != MSG_MAGIC)
		return -EBADMSG;
	if (in[1] != MSG_VERSION)
		return -EPROTONOSUPPORT;
	/* reserved bytes are zero, so a later version can use them */
	if (in[5] || in[6] || in[7])
		return -EBADMSG;
	if (in[4] > MSG_FDS_MAX)
		return -ETOOMANYREFS;
	len = (uint32_t)in[8] << 24 | (uint32_t)in[9] << 16 | (uint32_t)in[10] << 8 | in[11];
	if (len > max_body || len > MSG_FRAME_MAX)
		return -EMSGSIZE;
	*ret_type = (uint16_t)(in[2] << 8 | in[3]);
	*ret_body_len = len;
	*ret_nfds = in[4];
	return 0;
}

static void close_fds(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0) {
			close(fds[i]);
			fds[i] = -1;
		}
}

void msg_frame_done(struct msg_frame *f)
{
	if (!f)
		return;
	msgbuf_free(f->body);
	f->body = NULL;
	close_fds(f->fds, f->nfds < MSG_FDS_MAX ? f->nfds : MSG_FDS_MAX);
	f->nfds = 0;
}

int msg_frame_write(int sock, uint16_t type, const struct msgbuf *body, const int *fds,
		    size_t nfds)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * MSG_FDS_MAX)];
	} u;
	size_t blen = body ? msgbuf_len(body) : 0, total, sent = 0;
	const uint8_t *bp = body ? msgbuf_ptr(body) : NULL;
	uint8_t hdr[MSG_HEADER_SIZE];
	int r;

	r = msg_header_encode(hdr, type, blen, nfds);
	if (r < 0)
		return r;
	for (size_t i = 0; i < nfds; i++)
		if (fds[i] < 0)
			return -EBADF;
	total = MSG_HEADER_SIZE + blen;
	while (sent < total) {
		struct iovec iov[2];
		struct msghdr mh = { .msg_iov = iov };
		ssize_t k;

		if (sent < MSG_HEADER_SIZE) {
			iov[0] = (struct iovec){ hdr + sent, MSG_HEADER_SIZE - sent };
			iov[1] = (struct iovec){ (void *)bp, blen };
			mh.msg_iovlen = blen ? 2 : 1;
		} else {
			iov[0] = (struct iovec){ (void *)(bp + sent - MSG_HEADER_SIZE), total - sent };
			mh.msg_iovlen = 1;
		}
		/* the fds ride on the first byte, i.e. with the header */
		if (sent == 0 && nfds > 0) {
			struct cmsghdr *c;

			memset(&u, 0, sizeof(u));
			mh.msg_control = u.buf;
			mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
			c = CMSG_FIRSTHDR(&mh);
			c->cmsg_level = SOL_SOCKET;
			c->cmsg_type = SCM_RIGHTS;
			c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
			memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
		}
		k = sendmsg(sock, &mh, MSG_NOSIGNAL);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				/* a non-blocking socket: a half-sent frame must still finish */
				struct pollfd p = { .fd = sock, .events = POLLOUT };

				if (poll(&p, 1, -1) < 0 && errno != EINTR)
					return -errno;
				continue;
			}
			return -errno;
		}
		sent += (size_t)k;
	}
	return 0;
}

/*
 * Move the SCM_RIGHTS fds of one recvmsg into fds[*n..cap). Anything else
 * (another cmsg, a truncated control buffer, fds past cap) is an error,
 * and every fd that arrived is then closed.
 */
static int collect_fds(struct msghdr *mh, int *fds, size_t *n, size_t cap)
{
	int r = 0;

	if (mh->msg_flags & MSG_CTRUNC)
		r = -ETOOMANYREFS; /* the kernel dropped what did not fit */
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		size_t k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
			r = r ?: -EBADMSG;
			continue;
		}
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*n < cap)
				fds[(*n)++] = fd;
			else {
				close(fd);
				r = r ?: -ETOOMANYREFS;
			}
		}
	}
	return r;
}

/* Read exactly len bytes. 1 when done; 0 on EOF before the first byte if
 * eof_ok; -EBADMSG on EOF anywhere else. */
static int recv_exact(int sock, uint8_t *buf, size_t len, bool eof_ok, int *fds, size_t *nfds)
{
	size_t got = 0;

	while (got < len) {
		union {
			struct cmsghdr align;
			char buf[CMSG_SPACE(sizeof(int) * MSG_FDS_MAX)];
		} u;
		struct iovec iov = { buf + got, len - got };
		struct msghdr mh = {
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = u.buf,
			.msg_controllen = sizeof(u.buf),
		};
		ssize_t k;
		int r;

		k = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		r = collect_fds(&mh, fds, nfds, MSG_FDS_MAX);
		if (r < 0)
			return r;
		if (k == 0)
			return got == 0 && eof_ok ? 0 : -EBADMSG;
		got += (size_t)k;
	}
	return 1;
}

int msg_frame_read(int sock, size_t max_body, struct msg_frame *ret)
{
	_cleanup_msgbuf_ struct msgbuf *body = NULL;
	uint8_t hdr[MSG_HEADER_SIZE], *p;
	int fds[MSG_FDS_MAX];
	size_t nfds = 0, blen, want;
	uint16_t type;
	int r;

	if (max_body > MSG_FRAME_MAX)
		return -EINVAL;
	r = recv_exact(sock, hdr, sizeof(hdr), true, fds, &nfds);
	if (r <= 0)
		goto fail;
	r = msg_header_decode(hdr, max_body, &type, &blen, &want);
	if (r < 0)
		goto fail;
	body = msgbuf_new(blen ? blen : 1);
	if (!body) {
		r = -ENOMEM;
		goto fail;
	}
	r = msgbuf_reserve(body, blen, &p);
	if (r < 0)
		goto fail;
	if (blen > 0) {
		r = recv_exact(sock, p, blen, false, fds, &nfds);
		if (r < 0)
			goto fail;
	}
	if (nfds != want) {
		r = nfds < want ? -EBADMSG : -ETOOMANYREFS;
		goto fail;
	}
	*ret = (struct msg_frame){ .type = type, .body = body, .nfds = nfds };
	body = NULL;
	memcpy(ret->fds, fds, sizeof(int) * nfds);
	for (size_t i = nfds; i < MSG_FDS_MAX; i++)
		ret->fds[i] = -1;
	return 1;
fail:
	close_fds(fds, nfds);
	return r;
}

/* ---- the feed-bytes reader -------------------------------------------- */

/* Fds of at most two frames can be queued: one recvmsg ends after the first
 * skb that carried fds, so it holds the tail of one frame and the start of
 * the next. */
#define READER_FDS_MAX (2 * MSG_FDS_MAX)

struct msg_reader {
	struct msgbuf *in;
	size_t max_body;
	int fds[READER_FDS_MAX];
	size_t nfds;
	int broken; /* the first error sticks: the caller drops the peer */
};

struct msg_reader *msg_reader_new(size_t max_body)
{
	struct msg_reader *r;

	if (max_body > MSG_FRAME_MAX) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->in = msgbuf_new(MSG_HEADER_SIZE + max_body);
	if (!r->in) {
		free(r);
		return NULL;
	}
	r->max_body = max_body;
	return r;
}

void msg_reader_free(struct msg_reader *r)
{
	if (!r)
		return;
	msgbuf_free(r->in);
	close_fds(r->fds, r->nfds);
	free(r);
}

size_t msg_reader_pending(const struct msg_reader *r)
{
	return msgbuf_len(r->in);
}

static int reader_fail(struct msg_reader *r, int err)
{
	if (!r->broken)
		r->broken = err;
	return err;
}

int msg_reader_feed(struct msg_reader *r, const void *data, size_t len, const int *fds,
		    size_t nfds)
{
	int err = 0;

	/* not sticky, and nothing taken: the caller takes frames out first */
	if (!r->broken && len > msgbuf_max(r->in) - msgbuf_len(r->in))
		return -ENOBUFS;
	for (size_t i = 0; i < nfds; i++) {
		if (r->broken || err || r->nfds >= READER_FDS_MAX) {
			if (fds[i] >= 0)
				close(fds[i]);
			err = err ?: -ETOOMANYREFS;
			continue;
		}
		r->fds[r->nfds++] = fds[i];
	}
	if (r->broken)
		return r->broken;
	if (err < 0)
		return reader_fail(r, err);
	return msgbuf_put(r->in, data, len);
}

int msg_reader_recv(struct msg_reader *r, int sock)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * MSG_FDS_MAX)];
	} u;
	uint8_t buf[16384];
	size_t room = msgbuf_max(r->in) - msgbuf_len(r->in), nfds = 0;
	int fds[MSG_FDS_MAX];
	struct iovec iov = { buf, room < sizeof(buf) ? room : sizeof(buf) };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf),
	};
	ssize_t k;
	int ret;

	if (r->broken)
		return r->broken;
	if (room == 0)
		return -ENOBUFS;
	do
		k = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	ret = collect_fds(&mh, fds, &nfds, MSG_FDS_MAX);
	if (ret < 0) {
		close_fds(fds, nfds);
		explicit_bzero(buf, (size_t)k);
		return reader_fail(r, ret);
	}
	ret = msg_reader_feed(r, buf, (size_t)k, fds, nfds);
	explicit_bzero(buf, (size_t)k);
	return ret < 0 ? ret : (int)k;
}

int msg_reader_next(struct msg_reader *r, struct msg_frame *ret)
{
	_cleanup_msgbuf_ struct msgbuf *body = NULL;
	size_t live = msgbuf_len(r->in), blen, want;
	const uint8_t *p = msgbuf_ptr(r->in);
	uint16_t type;
	int e;

	if (r->broken)
		return r->broken;
	/* a wrong magic is known from the first byte; no need to wait */
	if (live > 0 && p[0] != MSG_MAGIC)
		return reader_fail(r, -EBADMSG);
	if (live < MSG_HEADER_SIZE)
		return -EAGAIN;
	e = msg_header_decode(p, r->max_body, &type, &blen, &want);
	if (e < 0)
		return reader_fail(r, e);
	if (live - MSG_HEADER_SIZE < blen)
		return -EAGAIN;
	/* the fds came with the header's bytes, so they are here by now */
	if (want > r->nfds)
		return reader_fail(r, -EBADMSG);
	body = msgbuf_new(blen ? blen : 1);
	if (!body)
		return -ENOMEM;
	e = msgbuf_put(body, p + MSG_HEADER_SIZE, blen);
	if (e < 0)
		return e;
	(void)msgbuf_get(r->in, NULL, MSG_HEADER_SIZE + blen);
	if (r->nfds > want && msgbuf_len(r->in) == 0) {
		/* fds no frame declared: refuse them rather than guess */
		close_fds(r->fds, r->nfds);
		r->nfds = 0;
		return reader_fail(r, -ETOOMANYREFS);
	}
	*ret = (struct msg_frame){ .type = type, .body = body, .nfds = want };
	body = NULL;
	for (size_t i = 0; i < MSG_FDS_MAX; i++)
		ret->fds[i] = i < want ? r->fds[i] : -1;
	memmove(r->fds, r->fds + want, sizeof(int) * (r->nfds - want));
	r->nfds -= want;
	return 1;
}
