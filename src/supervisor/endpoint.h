/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Broker endpoints (endpoint.c): each connection is handed to s->accept. */

#include "sup_internal.h"

/* A socketpair for a sandbox about to start: *ret_fd (the runner's end)
 * goes into its runner; the endpoint takes the listener when it comes. */
int endpoint_new(struct supervisor *s, const char *caller, struct endpoint **ret, int *ret_fd);
void endpoint_free(struct endpoint *e);
