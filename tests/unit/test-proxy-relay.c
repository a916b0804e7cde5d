/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The proxy's relay (src/proxy/relay.c) on socketpairs, in this process:
 * every byte read reaches the other side, however the stream ends. */
#include <criterion/criterion.h>
#include <event2/event.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxy.h"

static int finished;

static void touch(void *owner)
{
	(void)owner;
}

static void done(void *owner)
{
	(void)owner;
	finished++;
}

static const struct relay_hooks hooks = { .touch = touch, .finished = done };

/* n bytes written at once into the relay's source, read `cap` at a time;
 * the number of them that reached the sink with the loop run dry. */
static size_t relayed(size_t n, size_t cap)
{
	struct event_base *base = event_base_new();
	struct proxy px = { .base = base };
	struct relay_dir up = {}, down = {};
	struct timeval tick = { 0, 200 * 1000 };
	int src[2], sink[2];
	char *data = malloc(n), buf[65536];
	size_t got = 0;
	ssize_t k;

	cr_assert_not_null(base);
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, src), 0);
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sink), 0);
	for (size_t i = 0; i < n; i++)
		data[i] = (char)('a' + i % 26);
	cr_assert_eq(write(src[0], data, n), (ssize_t)n);
	/* src[0] stays open: the stream pauses, it does not end */
	up = (struct relay_dir){ .from = src[1], .to = sink[0], .read_max = cap };
	down = (struct relay_dir){ .from = sink[0], .to = src[1] };
	cr_assert_eq(relay_start(&px, NULL, &hooks, &up, &down), 0);
	event_base_loopexit(base, &tick);
	event_base_dispatch(base);
	while ((k = read(sink[1], buf, sizeof(buf))) > 0) {
		cr_assert_eq(memcmp(buf, data + got, (size_t)k), 0, "byte order at %zu", got);
		got += (size_t)k;
	}
	relay_dir_done(&up);
	relay_dir_done(&down);
	for (int i = 0; i < 2; i++) {
		close(src[i]);
		close(sink[i]);
	}
	event_base_free(base);
	free(data);
	return got;
}

/* The reads of one wake-up are capped (fairness between connections):
 * where the last of them took the stream's last bytes, they stayed in the
 * relay's buffer, with nothing more to read to wake it (a bulk echo lost
 * its last 53 bytes in CI). Each count ends a wake-up's reads there. */
Test(relay, the_last_read_of_a_wake_up_is_written_too)
{
	static const size_t cases[][2] = {
		{ 15 * 100 + 53, 100 }, /* the 16th read takes the last 53 bytes */
		{ 16 * 100, 100 },      /* ... a whole 100 */
		{ 32 * 100 + 7, 100 },  /* two wake-ups' worth and a little */
		{ 100000, 4096 },       /* control: many wake-ups */
		{ 53, 0 },              /* control: one read of the whole */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(relayed(cases[i][0], cases[i][1]), cases[i][0], "%zu bytes read %zu at a time",
			     cases[i][0], cases[i][1]);
	cr_expect_eq(finished, 0, "nothing ended the pair");
}
