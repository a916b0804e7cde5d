/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libcordon: what every part shares: CORDON_API, errors, exit codes, the enums
 * and their names.
 * Part of the public API; include "cordon/cordon.h" for all of it.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CORDON_API __attribute__((visibility("default")))

/* What cordon_confine returns when nothing on this host can enforce the policy. */
#define CORDON_SANDBOX_UNAVAILABLE (-ENOSYS)

/* Exit code a runner uses for its own setup failures (the command never ran);
 * also `cordon`'s own for every refusal (bad flag, profile error, --require,
 * no backend). */
#define CORDON_EXIT_RUNNER_FAILED 125
/* Exit code of `cordon run` on a wall-clock timeout (cordon_result.exit_code too). */
#define CORDON_EXIT_TIMEOUT 124
/* The native runner's, as a shell's: the command exists but cannot be
 * executed (EACCES, ENOEXEC, ...), or does not exist (ENOENT). The runner
 * reports it on its status channel: the verdict is RUNNER_FAILED. */
#define CORDON_EXIT_CANNOT_EXECUTE 126
#define CORDON_EXIT_NOT_FOUND 127
/* Exit code of a command a limit ended with SIGKILL (128 + 9). */
#define CORDON_EXIT_LIMIT_KILLED 137

struct cordon_error {
	char file[256];   /* "" when not about a file */
	int line;         /* 0 when unknown */
	int column;       /* 0 when unknown */
	char path[256];   /* JSON path, "" when not applicable */
	char message[512];
};

enum cordon_mode {
	CORDON_MODE_READ_ONLY,
	CORDON_MODE_WORKSPACE_WRITE,
	CORDON_MODE_DANGER_FULL_ACCESS,
};

enum cordon_net {
	CORDON_NET_NONE, /* loopback only */
	CORDON_NET_HOST, /* the host's network */
	CORDON_NET_PROXY, /* loopback, and cordon's proxy as the one way out (host rules) */
	/* as proxy, and any TCP client reaches an allowed host directly: init
	 * connects for it through the proxy and hands it the socket */
	CORDON_NET_ALLOW,
};

enum cordon_enforcement {
	CORDON_ENFORCEMENT_NONE,
	CORDON_ENFORCEMENT_NATIVE,
	CORDON_ENFORCEMENT_BWRAP,
	CORDON_ENFORCEMENT_SEATBELT,
};

enum cordon_backend {
	CORDON_BACKEND_NATIVE,
	CORDON_BACKEND_BWRAP,
	CORDON_BACKEND_SEATBELT,
	CORDON_BACKEND_UNAVAILABLE,
};

enum cordon_grade {
	CORDON_GRADE_FULL,    /* enforces everything the provider claims */
	CORDON_GRADE_PARTIAL, /* runs, with reduced fencing (reported) */
};

/* How much of the native runner's isolation to use. */
enum cordon_isolation {
	CORDON_ISOLATION_FULL,  /* namespaces + Landlock + seccomp */
	CORDON_ISOLATION_LIGHT, /* Landlock + seccomp only: no namespaces */
};

enum cordon_verdict {
	CORDON_VERDICT_OK,            /* no denial observed (not "none occurred") */
	CORDON_VERDICT_DENIED,        /* the command ran and the OS refused it something */
	CORDON_VERDICT_RUNNER_FAILED, /* the runner failed; the command may never have run */
	CORDON_VERDICT_TIMEOUT,       /* killed by cordon_run's wall-clock timeout */
	CORDON_VERDICT_UNAVAILABLE,   /* nothing could enforce the policy; nothing ran */
	CORDON_VERDICT_LIMIT_EXCEEDED, /* a resource or output limit ended or refused the command */
};

/* Names <-> enums. *_to_string never returns NULL for a valid value. */
CORDON_API const char *cordon_mode_to_string(enum cordon_mode m);
CORDON_API int cordon_mode_from_string(const char *s, enum cordon_mode *ret);
CORDON_API const char *cordon_net_to_string(enum cordon_net n);
CORDON_API int cordon_net_from_string(const char *s, enum cordon_net *ret);
CORDON_API const char *cordon_enforcement_to_string(enum cordon_enforcement e);
CORDON_API int cordon_enforcement_from_string(const char *s, enum cordon_enforcement *ret);
CORDON_API const char *cordon_backend_to_string(enum cordon_backend b);
CORDON_API int cordon_backend_from_string(const char *s, enum cordon_backend *ret);
CORDON_API const char *cordon_grade_to_string(enum cordon_grade g);
CORDON_API int cordon_grade_from_string(const char *s, enum cordon_grade *ret);
CORDON_API const char *cordon_verdict_to_string(enum cordon_verdict v);
CORDON_API const char *cordon_isolation_to_string(enum cordon_isolation i);
CORDON_API int cordon_isolation_from_string(const char *s, enum cordon_isolation *ret);

/* What hides the secrets below HOME (cordon_policy_set_home). */
enum cordon_home {
	CORDON_HOME_CATALOGUE, /* everything readable but the credential catalogue's entries */
	CORDON_HOME_ALLOWLIST, /* nothing readable but what is granted; the catalogue inside the grants */
};
CORDON_API const char *cordon_home_to_string(enum cordon_home h);
CORDON_API int cordon_home_from_string(const char *s, enum cordon_home *ret);

#ifdef __cplusplus
}
#endif
