/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * msgbuf: the bounded message codec the supervisor, the broker and the shim
 * speak (OpenSSH's sshbuf is the model), plus frames over a unix stream
 * socket and a {type, flags, handler} dispatch table (OpenSSH monitor.c).
 *
 * Every size an attacker controls has a cap; every fallible call returns
 * -errno. The error a peer can provoke tells the caller to drop it:
 *   -EBADMSG        truncated or malformed data (a get past the end, bad
 *                   magic, NUL where forbidden, missing fds)
 *   -E2BIG          a count or length over the caller's cap
 *   -EMSGSIZE       a put or a frame over the buffer's / frame's cap
 *   -EPROTONOSUPPORT a frame of another version
 *   -ETOOMANYREFS   more fds than MSG_FDS_MAX, or fds no frame claims
 *   -EPROTO         a type the dispatch table does not know
 *   -EPERM          a type not permitted in the peer's current state
 *
 * Front ends may include this header besides cordon.h.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Hard caps of the broker's frames. */
#define MSG_FRAME_MAX (1u << 20)    /* body bytes of one frame */
#define MSG_FDS_MAX 4               /* SCM_RIGHTS fds on one frame */
#define MSG_ARGC_MAX 4096           /* strings in an argv */
#define MSG_ARG_MAX (128u * 1024)   /* bytes of one argument */
#define MSGBUF_SIZE_MAX (16u << 20) /* the largest msgbuf_new accepts */

/* msgbuf_put_string / msgbuf_get_string flag: refuse an embedded NUL. */
#define MSGBUF_NO_NUL (1u << 0)

struct msgbuf;

/*
 * A buffer that never holds more than @max unread bytes (1..MSGBUF_SIZE_MAX).
 * NULL with errno on failure. The caller owns it; msgbuf_free zeroes the
 * memory before releasing it (frames carry environment values).
 */
struct msgbuf *msgbuf_new(size_t max);
void msgbuf_free(struct msgbuf *b);
static inline void msgbuf_freep(struct msgbuf **b)
{
	msgbuf_free(*b);
}
#define _cleanup_msgbuf_ __attribute__((__cleanup__(msgbuf_freep)))

size_t msgbuf_len(const struct msgbuf *b);   /* unread bytes */
size_t msgbuf_max(const struct msgbuf *b);
const uint8_t *msgbuf_ptr(const struct msgbuf *b); /* the unread bytes */
void msgbuf_reset(struct msgbuf *b);          /* drop (and zero) everything */

/* Puts append; on failure the buffer is as before (-EMSGSIZE over max). */
int msgbuf_put(struct msgbuf *b, const void *data, size_t len);
/* Append len zeroed bytes and point *ret at them, for reading into. */
int msgbuf_reserve(struct msgbuf *b, size_t len, uint8_t **ret);
int msgbuf_put_u8(struct msgbuf *b, uint8_t v);
int msgbuf_put_u16(struct msgbuf *b, uint16_t v);
int msgbuf_put_u32(struct msgbuf *b, uint32_t v);
int msgbuf_put_u64(struct msgbuf *b, uint64_t v);
/* u32 length + bytes; MSGBUF_NO_NUL refuses a NUL inside with -EINVAL. */
int msgbuf_put_string(struct msgbuf *b, const void *s, size_t len, unsigned flags);
int msgbuf_put_cstring(struct msgbuf *b, const char *s);
/* u32 count + strings (no NUL inside); -E2BIG over max_count / max_len. */
int msgbuf_put_strv(struct msgbuf *b, char *const *v, size_t max_count, size_t max_len);

/*
 * Gets consume from the front; on failure nothing is consumed and the
 * out-parameters are untouched. Nothing is allocated before the bytes it
 * describes are known to be in the buffer.
 */
int msgbuf_get(struct msgbuf *b, void *data, size_t len);
int msgbuf_get_u8(struct msgbuf *b, uint8_t *ret);
int msgbuf_get_u16(struct msgbuf *b, uint16_t *ret);
int msgbuf_get_u32(struct msgbuf *b, uint32_t *ret);
int msgbuf_get_u64(struct msgbuf *b, uint64_t *ret);
/* Points into the buffer (valid until the next put or reset); no copy. */
int msgbuf_get_string_direct(struct msgbuf *b, size_t max_len, unsigned flags,
			     const uint8_t **ret, size_t *ret_len);
/* A malloc'd copy with a terminating NUL; ret_len may be NULL. */
int msgbuf_get_string(struct msgbuf *b, size_t max_len, unsigned flags, char **ret,
		      size_t *ret_len);
/* A NULL-terminated vector (free with msgbuf_strv_free); NUL inside is refused. */
int msgbuf_get_strv(struct msgbuf *b, size_t max_count, size_t max_len, char ***ret);
/* Zero (environment values are secrets) and free a vector; NULL is fine. */
void msgbuf_strv_free(char **v);

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

/* ---- dispatch --------------------------------------------------------- */

#define MSG_ONCE (1u << 0)   /* may arrive once per peer */
#define MSG_PERMIT (1u << 1) /* permitted when the peer connects */
#define MSG_HANDLERS_MAX 64

/* A handler owns nothing it does not take: to keep fds[i], set it to -1. */
struct msg_handler {
	uint16_t type;
	unsigned flags;
	int (*fn)(void *ctx, struct msgbuf *body, int *fds, size_t nfds);
};

/* Per-peer state: which table entries are permitted, which ONCE ones ran. */
struct msg_state {
	const struct msg_handler *table;
	size_t n;
	uint64_t permitted;
	uint64_t seen;
};

/* -EINVAL on a table with duplicate types, unknown flags, no fn, > 64. */
int msg_state_init(struct msg_state *s, const struct msg_handler *table, size_t n);
/* Handlers change what the peer may send next. -EPROTO for an unknown type. */
int msg_permit(struct msg_state *s, uint16_t type, bool permit);
bool msg_permitted(const struct msg_state *s, uint16_t type);

/*
 * Run the handler for type: -EPROTO unknown, -EPERM not permitted (or a
 * ONCE type again); otherwise what the handler returns. Any < 0: drop.
 */
int msg_dispatch(struct msg_state *s, void *ctx, uint16_t type, struct msgbuf *body, int *fds,
		 size_t nfds);
int msg_dispatch_frame(struct msg_state *s, void *ctx, struct msg_frame *f);
