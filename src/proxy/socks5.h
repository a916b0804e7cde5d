/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * The proxy's SOCKS5 parser (RFC 1928), pure and bounded: the greeting
 * (only "no authentication" is offered) and one CONNECT request. A domain
 * name (ATYP 3, socks5h) is the expected form; an IPv4/IPv6 address comes
 * back as its literal text, for the host rules to refuse unless named.
 */

#include <stddef.h>
#include <stdint.h>

enum {
	SOCKS5_MORE = 0,
	SOCKS5_DONE = 1,
};

/* Reply codes (RFC 1928 section 6). */
enum {
	SOCKS5_OK = 0x00,
	SOCKS5_GENERAL_FAILURE = 0x01,
	SOCKS5_NOT_ALLOWED = 0x02,
	SOCKS5_NET_UNREACHABLE = 0x03,
	SOCKS5_HOST_UNREACHABLE = 0x04,
	SOCKS5_REFUSED = 0x05,
	SOCKS5_TTL_EXPIRED = 0x06,
	SOCKS5_CMD_UNSUPPORTED = 0x07,
	SOCKS5_ATYP_UNSUPPORTED = 0x08,
};

struct socks5_request {
	char host[256];         /* the name (may hold any byte, NUL included: see host_len) or an address's text */
	size_t host_len;
	uint16_t port;
	size_t length;          /* bytes of the request */
};

/* The greeting: SOCKS5_MORE, SOCKS5_DONE (*ret_length bytes; "no auth" is
 * among the methods), or -1: not SOCKS5, or no acceptable method
 * (*ret_reason). */
int socks5_greeting_parse(const uint8_t *buf, size_t len, size_t *ret_length, const char **ret_reason);
/* The request: SOCKS5_MORE, SOCKS5_DONE, or -1 with the reply code to
 * send in *ret_code and a reason token. */
int socks5_request_parse(const uint8_t *buf, size_t len, struct socks5_request *ret, int *ret_code,
			 const char **ret_reason);
/* A reply with code and a zero IPv4 bound address: 10 bytes into out. */
size_t socks5_reply(int code, uint8_t out[static 10]);
