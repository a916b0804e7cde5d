/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cordon/cordon.h"
#include "cleanup.h"

/* A name table per enum: index is the enum value. */
static int lookup(const char *const *names, size_t n, const char *s)
{
	if (!s)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (names[i] && strcmp(names[i], s) == 0)
			return (int)i;
	return -EINVAL;
}

static const char *const mode_names[] = {
	[CORDON_MODE_READ_ONLY] = "read-only",
	[CORDON_MODE_WORKSPACE_WRITE] = "workspace-write",
	[CORDON_MODE_DANGER_FULL_ACCESS] = "danger-full-access",
};

static const char *const net_names[] = {
	[CORDON_NET_NONE] = "none",
	[CORDON_NET_HOST] = "host",
	[CORDON_NET_PROXY] = "proxy",
	[CORDON_NET_ALLOW] = "allow",
};

static const char *const enforcement_names[] = {
	[CORDON_ENFORCEMENT_NONE] = "none",
	[CORDON_ENFORCEMENT_NATIVE] = "native",
	[CORDON_ENFORCEMENT_BWRAP] = "bwrap",
	[CORDON_ENFORCEMENT_SEATBELT] = "seatbelt",
};

static const char *const backend_names[] = {
	[CORDON_BACKEND_NATIVE] = "native",
	[CORDON_BACKEND_BWRAP] = "bwrap",
	[CORDON_BACKEND_SEATBELT] = "seatbelt",
	[CORDON_BACKEND_UNAVAILABLE] = "unavailable",
};

static const char *const grade_names[] = {
	[CORDON_GRADE_FULL] = "full",
	[CORDON_GRADE_PARTIAL] = "partial",
};

static const char *const verdict_names[] = {
	[CORDON_VERDICT_OK] = "ok",
	[CORDON_VERDICT_DENIED] = "denied",
	[CORDON_VERDICT_RUNNER_FAILED] = "runner_failed",
	[CORDON_VERDICT_TIMEOUT] = "timeout",
	[CORDON_VERDICT_UNAVAILABLE] = "unavailable",
	[CORDON_VERDICT_LIMIT_EXCEEDED] = "limit_exceeded",
};

static const char *const isolation_names[] = {
	[CORDON_ISOLATION_FULL] = "full",
	[CORDON_ISOLATION_LIGHT] = "light",
};

static const char *const home_names[] = {
	[CORDON_HOME_CATALOGUE] = "catalogue",
	[CORDON_HOME_ALLOWLIST] = "allowlist",
};

#define DEFINE_NAMES(kind, type, table)                                         \
	const char *cordon_##kind##_to_string(type v)                           \
	{                                                                       \
		if ((size_t)v >= ELEMENTSOF(table) || !table[v])                \
			return "invalid";                                       \
		return table[v];                                                \
	}

#define DEFINE_FROM_STRING(kind, type, table)                                   \
	int cordon_##kind##_from_string(const char *s, type *ret)               \
	{                                                                       \
		int i = lookup(table, ELEMENTSOF(table), s);                    \
		if (i < 0)                                                      \
			return i;                                               \
		*ret = (type)i;                                                 \
		return 0;                                                       \
	}

CORDON_API DEFINE_NAMES(mode, enum cordon_mode, mode_names)
CORDON_API DEFINE_FROM_STRING(mode, enum cordon_mode, mode_names)
CORDON_API DEFINE_NAMES(net, enum cordon_net, net_names)
CORDON_API DEFINE_FROM_STRING(net, enum cordon_net, net_names)
CORDON_API DEFINE_NAMES(enforcement, enum cordon_enforcement, enforcement_names)
CORDON_API DEFINE_FROM_STRING(enforcement, enum cordon_enforcement, enforcement_names)
CORDON_API DEFINE_NAMES(backend, enum cordon_backend, backend_names)
CORDON_API DEFINE_FROM_STRING(backend, enum cordon_backend, backend_names)
CORDON_API DEFINE_NAMES(grade, enum cordon_grade, grade_names)
CORDON_API DEFINE_FROM_STRING(grade, enum cordon_grade, grade_names)
CORDON_API DEFINE_NAMES(verdict, enum cordon_verdict, verdict_names)
CORDON_API DEFINE_NAMES(isolation, enum cordon_isolation, isolation_names)
CORDON_API DEFINE_FROM_STRING(isolation, enum cordon_isolation, isolation_names)
CORDON_API DEFINE_NAMES(home, enum cordon_home, home_names)
CORDON_API DEFINE_FROM_STRING(home, enum cordon_home, home_names)
