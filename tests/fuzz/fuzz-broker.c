/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The broker's body decoders on arbitrary bytes: what a shim (any process
 * in a sandbox) sends the supervisor, and what the shim reads back. Nothing
 * may crash, leak or read out of bounds; a decoded call re-encodes and
 * decodes to the same call.
 *
 * Input: byte 0 picks the decoder, the rest is the body.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "broker_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define check(x)                 \
	do {                     \
		if (!(x))        \
			abort(); \
	} while (0)

static void call(struct msgbuf *b)
{
	struct broker_call c = {}, again = {};
	struct msgbuf *re;

	if (broker_call_decode(b, &c) < 0)
		return;
	check(broker_name_valid(c.command) && c.cwd[0] == '/');
	re = msgbuf_new(MSG_FRAME_MAX);
	check(re);
	check(broker_call_encode(re, &c) == 0);
	check(broker_call_decode(re, &again) == 0);
	check(strcmp(c.command, again.command) == 0 && strcmp(c.cwd, again.cwd) == 0 && c.tty == again.tty);
	for (size_t i = 0; c.argv[i] || again.argv[i]; i++)
		check(c.argv[i] && again.argv[i] && strcmp(c.argv[i], again.argv[i]) == 0);
	broker_call_done(&again);
	broker_call_done(&c);
	msgbuf_free(re);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct msgbuf *b;
	struct broker_exit e = {};
	char *reason = NULL;
	int sig;

	if (size < 1 || size > MSG_FRAME_MAX)
		return 0;
	b = msgbuf_new(MSG_FRAME_MAX);
	check(b);
	check(msgbuf_put(b, data + 1, size - 1) == 0);
	switch (data[0] % 5) {
	case 0:
		call(b);
		break;
	case 1:
		if (broker_signal_decode(b, &sig) == 0)
			check(broker_signal_allowed(sig));
		break;
	case 2:
		if (broker_denied_decode(b, &reason) == 0)
			free(reason);
		break;
	case 3:
		if (broker_exit_decode(b, &e) == 0) {
			check(e.how == BROKER_EXITED ? e.value <= 255 : e.value >= 1 && e.value <= 64);
			free(e.message);
		}
		break;
	case 4:
		if (broker_open_url_decode(b, &reason) == 0) {
			check(strlen(reason) <= BROKER_URL_MAX);
			free(reason);
		}
		break;
	}
	msgbuf_free(b);
	return 0;
}
