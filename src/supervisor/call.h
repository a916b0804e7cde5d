/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A shim's connection: the protocol and the decision (call.c). */

#include "sup_internal.h"

/* A connection from a shim to an endpoint of caller's; fd is taken. What
 * the supervisor sets as s->accept. */
void call_accept(struct endpoint *e, int fd);
