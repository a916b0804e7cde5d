/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * msgbuf: the bounded message codec the supervisor, the broker and the shim
 * speak (OpenSSH's sshbuf is the model). Frames over a unix stream socket
 * are msgframe.h, the {type, flags, handler} dispatch table (OpenSSH
 * monitor.c) msgdispatch.h.
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
 * Front ends may include these headers besides cordon.h.
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
