/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The SOCKS5 parser (socks5.h): pure, bounded, no allocation. */
#include <arpa/inet.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>

#include "socks5.h"

int socks5_greeting_parse(const uint8_t *buf, size_t len, size_t *ret_length, const char **ret_reason)
{
	bool no_auth = false;
	size_t n;

	if (len < 1)
		return SOCKS5_MORE;
	if (buf[0] != 5) {
		*ret_reason = "not-socks5";
		return -1;
	}
	if (len < 2)
		return SOCKS5_MORE;
	n = buf[1];
	if (n == 0) {
		*ret_reason = "socks5-no-method";
		return -1;
	}
	if (len < 2 + n)
		return SOCKS5_MORE;
	for (size_t i = 0; i < n; i++)
		no_auth |= buf[2 + i] == 0x00;
	if (!no_auth) {
		*ret_reason = "socks5-no-acceptable-method";
		return -1;
	}
	*ret_length = 2 + n;
	return SOCKS5_DONE;
}

static int bad(int code, const char *reason, int *ret_code, const char **ret_reason)
{
	*ret_code = code;
	*ret_reason = reason;
	return -1;
}

int socks5_request_parse(const uint8_t *buf, size_t len, struct socks5_request *ret, int *ret_code,
			 const char **ret_reason)
{
	struct socks5_request r = {};
	size_t alen, off;

	if (len < 4)
		return SOCKS5_MORE;
	if (buf[0] != 5 || buf[2] != 0)
		return bad(SOCKS5_GENERAL_FAILURE, "socks5-malformed", ret_code, ret_reason);
	if (buf[1] != 1)
		return bad(SOCKS5_CMD_UNSUPPORTED, "socks5-command-unsupported", ret_code, ret_reason);
	switch (buf[3]) {
	case 1:
		alen = 4;
		off = 4;
		break;
	case 4:
		alen = 16;
		off = 4;
		break;
	case 3:
		if (len < 5)
			return SOCKS5_MORE;
		alen = buf[4];
		off = 5;
		if (alen == 0)
			return bad(SOCKS5_GENERAL_FAILURE, "host-malformed", ret_code, ret_reason);
		break;
	default:
		return bad(SOCKS5_ATYP_UNSUPPORTED, "socks5-address-type", ret_code, ret_reason);
	}
	if (len < off + alen + 2)
		return SOCKS5_MORE;
	if (buf[3] == 3) {
		memcpy(r.host, buf + off, alen);
		r.host_len = alen;
	} else {
		if (!inet_ntop(buf[3] == 1 ? AF_INET : AF_INET6, buf + off, r.host, sizeof(r.host)))
			return bad(SOCKS5_GENERAL_FAILURE, "socks5-malformed", ret_code, ret_reason);
		r.host_len = strlen(r.host);
	}
	r.port = (uint16_t)(buf[off + alen] << 8 | buf[off + alen + 1]);
	if (r.port == 0)
		return bad(SOCKS5_GENERAL_FAILURE, "socks5-port-zero", ret_code, ret_reason);
	r.length = off + alen + 2;
	*ret = r;
	return SOCKS5_DONE;
}

size_t socks5_reply(int code, uint8_t out[static 10])
{
	static const uint8_t tail[] = { 0, 1, 0, 0, 0, 0, 0, 0 };

	out[0] = 5;
	out[1] = (uint8_t)code;
	memcpy(out + 2, tail, sizeof(tail));
	return 10;
}
