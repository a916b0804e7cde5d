/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A confined child (cordon_spawn) driven from the supervisor's libevent
 * loop: what cordon_child_pollfds asks for becomes events (and a timer for
 * its timeout), each firing is one cordon_child_step, and done() is called
 * once the child has ended (collect it there). The watch does not own the
 * child.
 */

#include <event2/event.h>

#include "cordon/cordon.h"

struct child_watch;
typedef void (*child_watch_done)(void *ctx);

int child_watch_new(struct event_base *base, struct cordon_child *c, child_watch_done done, void *ctx,
		    struct child_watch **ret);
struct child_watch *child_watch_free(struct child_watch *w);
/* Look at the child again soon (after cordon_child_kill). */
void child_watch_poke(struct child_watch *w);
