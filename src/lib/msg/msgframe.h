/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Frames of msgbuf bodies over a unix stream socket (see msgbuf.h for the
 * errors a peer can provoke). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "msgbuf.h"

/* ---- frames ----------------------------------------------------------- */

/*
 * Wire header, 12 bytes, network order:
 *   u8 magic (MSG_MAGIC), u8 version (MSG_VERSION), u16 type,
 *   u8 nfds (fds sent with this frame), u8[3] zero, u32 body length.
 * The fds travel by SCM_RIGHTS on the sendmsg that carries the header.
 */
#define MSG_MAGIC 0xc7
#define MSG_VERSION 1
#define MSG_HEADER_SIZE 12

struct msg_frame {
	uint16_t type;
	struct msgbuf *body;
	int fds[MSG_FDS_MAX]; /* received with MSG_CMSG_CLOEXEC */
	size_t nfds;
};

/* Free the body and close every fd still >= 0 (a handler keeps one by
 * setting its slot to -1). Safe on a zeroed or already-done frame. */
void msg_frame_done(struct msg_frame *f);

/* Send one frame (blocking; MSG_NOSIGNAL). body may be NULL (empty). */
int msg_frame_write(int sock, uint16_t type, const struct msgbuf *body, const int *fds,
		    size_t nfds);

/*
 * Read exactly one frame from a blocking stream socket, never past its
 * end. 1 with *ret filled, 0 on end-of-file at a frame boundary, -errno
 * otherwise (a truncated frame is -EBADMSG). max_body <= MSG_FRAME_MAX.
 */
int msg_frame_read(int sock, size_t max_body, struct msg_frame *ret);

/* The header codec, for the reader below and for tests. */
int msg_header_encode(uint8_t out[MSG_HEADER_SIZE], uint16_t type, size_t body_len,
		      size_t nfds);
int msg_header_decode(const uint8_t in[MSG_HEADER_SIZE], size_t max_body, uint16_t *ret_type,
		      size_t *ret_body_len, size_t *ret_nfds);

/*
 * The non-blocking side: feed bytes (and the fds that came with them) as
 * they arrive, take whole frames out. Fds queue in arrival order and each
 * frame claims as many as its header says.
 */
struct msg_reader;
struct msg_reader *msg_reader_new(size_t max_body);
void msg_reader_free(struct msg_reader *r);
static inline void msg_reader_freep(struct msg_reader **r)
{
	msg_reader_free(*r);
}
#define _cleanup_msg_reader_ __attribute__((__cleanup__(msg_reader_freep)))

/* Takes ownership of fds (closes them on failure), except on -ENOBUFS:
 * the bytes do not fit, nothing was taken; take frames out first. */
int msg_reader_feed(struct msg_reader *r, const void *data, size_t len, const int *fds,
		    size_t nfds);
/* One recvmsg(MSG_DONTWAIT | MSG_CMSG_CLOEXEC) into the reader: bytes read,
 * 0 on end-of-file, -EAGAIN when nothing is there. */
int msg_reader_recv(struct msg_reader *r, int sock);
/* 1 and *ret when a whole frame is buffered, -EAGAIN until then. */
int msg_reader_next(struct msg_reader *r, struct msg_frame *ret);
/* Bytes of an unfinished frame (at end-of-file: truncated if > 0). */
size_t msg_reader_pending(const struct msg_reader *r);
