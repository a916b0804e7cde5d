/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An approval's result and the clocks its deadlines run on
 * (approve_record.h): shared by approve.c and the channels above it. */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "approve_record.h"

static uint64_t clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

uint64_t approve_now_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

uint64_t approve_wall_ms(void)
{
	return clock_ms(CLOCK_REALTIME);
}

void approval_result_set(struct approval_result *r, enum approval_outcome o, bool allow, const char *backend,
			 const char *fmt, ...)
{
	va_list ap;

	r->outcome = o;
	r->allow = allow;
	snprintf(r->backend, sizeof(r->backend), "%s", backend);
	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
}

const char *approval_outcome_name(enum approval_outcome o)
{
	switch (o) {
	case APPROVAL_GRANTED:
		return "granted";
	case APPROVAL_DENIED:
		return "denied";
	case APPROVAL_TIMEOUT:
		return "timeout";
	case APPROVAL_ERROR:
		return "error";
	}
	return "error";
}
