/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The bounded buffer: typed put/get in network order, a hard cap fixed at
 * creation, nothing read past the end, nothing allocated beyond the cap.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "msgbuf.h"

struct msgbuf {
	uint8_t *data;
	size_t alloc; /* bytes allocated, <= max */
	size_t off;   /* read offset */
	size_t len;   /* write offset; off <= len <= alloc */
	size_t max;   /* cap on unread bytes, fixed */
};

struct msgbuf *msgbuf_new(size_t max)
{
	struct msgbuf *b;

	if (max == 0 || max > MSGBUF_SIZE_MAX) {
		errno = EINVAL;
		return NULL;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->max = max;
	return b;
}

void msgbuf_free(struct msgbuf *b)
{
	if (!b)
		return;
	if (b->data) {
		/* bodies carry environment values: no secret outlives the buffer */
		explicit_bzero(b->data, b->alloc);
		free(b->data);
	}
	explicit_bzero(b, sizeof(*b));
	free(b);
}

size_t msgbuf_len(const struct msgbuf *b)
{
	return b->len - b->off;
}

size_t msgbuf_max(const struct msgbuf *b)
{
	return b->max;
}

const uint8_t *msgbuf_ptr(const struct msgbuf *b)
{
	static const uint8_t empty[1];

	return b->data ? b->data + b->off : empty;
}

void msgbuf_reset(struct msgbuf *b)
{
	if (b->data)
		explicit_bzero(b->data, b->alloc);
	b->off = b->len = 0;
}

/* Make room for n more bytes: compact first, then grow (never past max). */
static int reserve(struct msgbuf *b, size_t n)
{
	size_t live = b->len - b->off, want;
	uint8_t *p;

	if (n > b->max - live)
		return -EMSGSIZE;
	if (b->alloc - b->len >= n)
		return 0;
	if (b->off > 0) {
		memmove(b->data, b->data + b->off, live);
		explicit_bzero(b->data + live, b->alloc - live);
		b->off = 0;
		b->len = live;
		if (b->alloc - b->len >= n)
			return 0;
	}
	want = b->alloc ? b->alloc : 256;
	while (want < live + n)
		want = want > b->max / 2 ? b->max : want * 2;
	if (want > b->max)
		want = b->max;
	/* no realloc: the old block is zeroed before it goes back */
	p = calloc(1, want);
	if (!p)
		return -ENOMEM;
	if (b->data) {
		memcpy(p, b->data, b->len);
		explicit_bzero(b->data, b->alloc);
		free(b->data);
	}
	b->data = p;
	b->alloc = want;
	return 0;
}

int msgbuf_put(struct msgbuf *b, const void *data, size_t len)
{
	int r;

	if (len == 0)
		return 0;
	r = reserve(b, len);
	if (r < 0)
		return r;
	memcpy(b->data + b->len, data, len);
	b->len += len;
	return 0;
}

int msgbuf_reserve(struct msgbuf *b, size_t len, uint8_t **ret)
{
	int r = reserve(b, len);

	if (r < 0)
		return r;
	if (!b->data) {
		/* len == 0 on a buffer that never allocated */
		*ret = (uint8_t *)msgbuf_ptr(b);
		return 0;
	}
	memset(b->data + b->len, 0, len);
	*ret = b->data + b->len;
	b->len += len;
	return 0;
}

int msgbuf_put_u8(struct msgbuf *b, uint8_t v)
{
	return msgbuf_put(b, &v, 1);
}

int msgbuf_put_u16(struct msgbuf *b, uint16_t v)
{
	v = htobe16(v);
	return msgbuf_put(b, &v, sizeof(v));
}

int msgbuf_put_u32(struct msgbuf *b, uint32_t v)
{
	v = htobe32(v);
	return msgbuf_put(b, &v, sizeof(v));
}

int msgbuf_put_u64(struct msgbuf *b, uint64_t v)
{
	v = htobe64(v);
	return msgbuf_put(b, &v, sizeof(v));
}

int msgbuf_put_string(struct msgbuf *b, const void *s, size_t len, unsigned flags)
{
	size_t live = b->len - b->off;
	int r;

	if (flags & ~MSGBUF_NO_NUL)
		return -EINVAL;
	if (len > UINT32_MAX)
		return -EMSGSIZE;
	if (len > 0 && !s)
		return -EINVAL;
	if ((flags & MSGBUF_NO_NUL) && len > 0 && memchr(s, 0, len))
		return -EINVAL;
	/* all or nothing: check the room for prefix and bytes together */
	if (len > b->max - live || 4 > b->max - live - len)
		return -EMSGSIZE;
	r = msgbuf_put_u32(b, (uint32_t)len);
	if (r < 0)
		return r;
	r = msgbuf_put(b, s, len);
	if (r < 0) {
		b->len -= 4;
		return r;
	}
	return 0;
}

int msgbuf_put_cstring(struct msgbuf *b, const char *s)
{
	if (!s)
		return -EINVAL;
	return msgbuf_put_string(b, s, strlen(s), MSGBUF_NO_NUL);
}

int msgbuf_put_strv(struct msgbuf *b, char *const *v, size_t max_count, size_t max_len)
{
	size_t n = 0, saved;
	int r;

	for (; v && v[n]; n++) {
		if (n >= max_count || n >= UINT32_MAX)
			return -E2BIG;
		if (strlen(v[n]) > max_len)
			return -E2BIG;
	}
	/* a put may compact (moving off to 0); remember the live length */
	saved = b->len - b->off;
	r = msgbuf_put_u32(b, (uint32_t)n);
	for (size_t i = 0; r >= 0 && i < n; i++)
		r = msgbuf_put_cstring(b, v[i]);
	if (r < 0) {
		size_t now = b->len;

		b->len = b->off + saved;
		explicit_bzero(b->data + b->len, now - b->len);
		return r;
	}
	return 0;
}

int msgbuf_get(struct msgbuf *b, void *data, size_t len)
{
	if (len > b->len - b->off)
		return -EBADMSG;
	if (len == 0)
		return 0;
	if (data)
		memcpy(data, b->data + b->off, len);
	b->off += len;
	return 0;
}

int msgbuf_get_u8(struct msgbuf *b, uint8_t *ret)
{
	return msgbuf_get(b, ret, 1);
}

int msgbuf_get_u16(struct msgbuf *b, uint16_t *ret)
{
	uint16_t v;
	int r = msgbuf_get(b, &v, sizeof(v));

	if (r < 0)
		return r;
	*ret = be16toh(v);
	return 0;
}

int msgbuf_get_u32(struct msgbuf *b, uint32_t *ret)
{
	uint32_t v;
	int r = msgbuf_get(b, &v, sizeof(v));

	if (r < 0)
		return r;
	*ret = be32toh(v);
	return 0;
}

int msgbuf_get_u64(struct msgbuf *b, uint64_t *ret)
{
	uint64_t v;
	int r = msgbuf_get(b, &v, sizeof(v));

	if (r < 0)
		return r;
	*ret = be64toh(v);
	return 0;
}

int msgbuf_get_string_direct(struct msgbuf *b, size_t max_len, unsigned flags,
			     const uint8_t **ret, size_t *ret_len)
{
	size_t live = b->len - b->off;
	const uint8_t *p;
	uint32_t len;

	if (flags & ~MSGBUF_NO_NUL)
		return -EINVAL;
	if (live < 4)
		return -EBADMSG;
	p = b->data + b->off;
	len = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	if (len > max_len)
		return -E2BIG;
	if (len > live - 4)
		return -EBADMSG;
	if ((flags & MSGBUF_NO_NUL) && len > 0 && memchr(p + 4, 0, len))
		return -EBADMSG;
	b->off += 4 + (size_t)len;
	if (ret)
		*ret = p + 4;
	if (ret_len)
		*ret_len = len;
	return 0;
}

int msgbuf_get_string(struct msgbuf *b, size_t max_len, unsigned flags, char **ret,
		      size_t *ret_len)
{
	size_t saved = b->off, len;
	const uint8_t *p;
	char *s;
	int r;

	r = msgbuf_get_string_direct(b, max_len, flags, &p, &len);
	if (r < 0)
		return r;
	s = malloc(len + 1);
	if (!s) {
		b->off = saved;
		return -ENOMEM;
	}
	memcpy(s, p, len);
	s[len] = 0;
	*ret = s;
	if (ret_len)
		*ret_len = len;
	return 0;
}

static void strv_free_zero(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		explicit_bzero(v[i], strlen(v[i]));
		free(v[i]);
	}
	free(v);
}

void msgbuf_strv_free(char **v)
{
	size_t n = 0;

	if (!v)
		return;
	while (v[n])
		n++;
	strv_free_zero(v, n);
}

int msgbuf_get_strv(struct msgbuf *b, size_t max_count, size_t max_len, char ***ret)
{
	size_t saved = b->off, i;
	uint32_t count;
	char **v;
	int r;

	r = msgbuf_get_u32(b, &count);
	if (r < 0)
		return r;
	if (count > max_count) {
		b->off = saved;
		return -E2BIG;
	}
	/* each string costs at least its 4-byte length: a count the buffer
	 * cannot hold is malformed, and is refused before any allocation */
	if (count > (b->len - b->off) / 4) {
		b->off = saved;
		return -EBADMSG;
	}
	v = calloc((size_t)count + 1, sizeof(char *));
	if (!v) {
		b->off = saved;
		return -ENOMEM;
	}
	for (i = 0; i < count; i++) {
		r = msgbuf_get_string(b, max_len, MSGBUF_NO_NUL, &v[i], NULL);
		if (r < 0) {
			strv_free_zero(v, i);
			b->off = saved;
			return r;
		}
	}
	*ret = v;
	return 0;
}
