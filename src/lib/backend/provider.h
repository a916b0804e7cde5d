/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "cordon/cordon.h"
#include "policy.h"

/* One backend. confine is pure: it reads the policy and backend info and
 * fills c->argv, c->enforcement, c->grade and the runner-failure rules and
 * signatures; it must make no filesystem or process syscall. c->mode is set
 * by the caller. probe may spawn and must finish within timeout_ms. */
struct provider {
	enum cordon_backend backend;
	int (*confine)(const struct cordon_backend_info *b, const char *const *argv,
		       const struct cordon_policy *p, struct cordon_confined *c,
		       struct cordon_error *reterr);
	int (*probe)(int timeout_ms, struct cordon_probe_report *rep);
};

extern const struct provider provider_native;
extern const struct provider provider_bwrap;
extern const struct provider provider_seatbelt;

const struct provider *provider_for(enum cordon_backend b);

/* CORDON_LACKS_* for a bwrap that is pinned or cached, so never probed:
 * cheap checks only (is cordon's runner executable, is there Landlock). */
unsigned bwrap_lacks_unprobed(void);

/* Finish a provider's confine: copy the signature lists and informational
 * lines (NULL: none; no allowed exit codes), take ownership of *argv, set
 * enforcement and grade; no status channel, envp inherited. On failure
 * nothing is taken. */
int confined_fill(struct cordon_confined *c, char ***argv, const char *const *denials,
		  const char *const *fatals, const char *const *info, enum cordon_enforcement e,
		  enum cordon_grade g);

/* Free what a cordon_confined holds (not the struct itself). */
void confined_clear(struct cordon_confined *c);

/* After confined_fill: argv must start with envp (copied; NULL: an empty
 * environment) and, for format != NONE, the status pipe at status_fd. */
int confined_set_channel(struct cordon_confined *c, char *const *envp, int status_fd,
			 enum cordon_status_format format);

/* The fd number at which cordon's providers want their status pipe. */
/* The native runner's broker socket (--broker-fd): above both status fds. */
#define PROVIDER_BROKER_FD 5
#define PROVIDER_BROKER_FD_STR "5"
/* The native runner's credential table (--credentials-fd), above the broker. */
#define PROVIDER_CREDENTIALS_FD 6
#define PROVIDER_CREDENTIALS_FD_STR "6"
#define PROVIDER_STATUS_FD 3
#define PROVIDER_STATUS_FD_STR "3"
/* where cordon's runner nested in bwrap reports: the same pipe, one fd up */
#define PROVIDER_STATUS_FD2_STR "4"
/* where the native runner takes the file to run from (--exec-fd) */
#define PROVIDER_EXEC_FD 4
#define PROVIDER_EXEC_FD_STR "4"

/* The probe a wrapping backend (bwrap, sandbox-exec) runs in its sandbox:
 * stdout works, a write to the path the %s names (outside every grant)
 * fails, and it prints PROVIDER_PROBE_OK. Exit 3: no stdout; 4: it wrote. */
#define PROVIDER_PROBE_SCRIPT \
	"echo probe > /dev/null || exit 3; if (echo probe > '%s') 2>/dev/null; then exit 4; fi; echo cordon-probe-ok"
#define PROVIDER_PROBE_OK "cordon-probe-ok"

/* The tool sandbox's features this policy uses, in words ("" for none):
 * what a backend other than the native runner refuses (provider_fill.c). */
const char *policy_needs_native(const struct cordon_policy *p);

/* No backend can enforce p here (backend is unavailable): refused with
 * CORDON_SANDBOX_UNAVAILABLE and what to do about it (confine.c; a launch
 * refuses with the same words before it confines). */
int confine_refuse_unavailable(const struct cordon_policy *p, const struct cordon_backend_info *backend,
			       struct cordon_error *reterr);
