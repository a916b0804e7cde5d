/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libcordon: why a profile allows or denies something (`cordon why`, and
 * the denials `cordon run` explains after a run).
 * Part of the public API; include "cordon/cordon.h" for all of it.
 */
#pragma once

#include "cordon/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Why ------------------------------------------------------------------
 *
 * A view of a profile with a run's overrides on top, as a front end's flags
 * put them on the run's policy: a mode, a network, the light isolation,
 * added deny-read and protected paths, added host rules. Each decision
 * names the rule that made it (file and JSON pointer); an override's rule
 * is "(command line)" at the option that gave it ("--mode", "--net",
 * "--deny-read", "--protect"). Immutable once built: read it from any
 * thread. The profile must outlive it.
 */
struct cordon_why;

enum cordon_op {
	CORDON_OP_READ,
	CORDON_OP_WRITE,
	CORDON_OP_EXEC,
};
CORDON_API const char *cordon_op_to_string(enum cordon_op op);
CORDON_API int cordon_op_from_string(const char *s, enum cordon_op *ret);

struct cordon_why_opts {
	/* sizeof this struct as the caller knew it (..._INIT sets it); 0: the
	 * first release's fields. As cordon_run_opts.size: a field added later
	 * is read only from callers whose size covers it. */
	size_t size;
	bool mode_set;                     /* else the profile's mode */
	enum cordon_mode mode;
	bool net_set;
	enum cordon_net net;
	bool light;                        /* as CORDON_ISOLATION_LIGHT runs it: no mount namespace */
	const char *const *deny_read;      /* added; relative: in the profile's workspace */
	const char *const *protect;        /* added, as deny_read */
	const char *const *net_rules[3];   /* by enum cordon_net_rule: added to the profile's */
	const char *const *read_host;      /* as --read: host paths below /tmp brought back (read-only) */
	bool home_set;                     /* else the profile's "home" */
	enum cordon_home home;
	/* new fields go here, at the end */
};
#define CORDON_WHY_OPTS_SIZE_1 \
	(offsetof(struct cordon_why_opts, read_host) + sizeof(((struct cordon_why_opts *)0)->read_host))
#define CORDON_WHY_OPTS_INIT { .size = sizeof(struct cordon_why_opts) }

struct cordon_why_decision {
	bool allow;
	char file[256];     /* the deciding rule's file, "(built-in)" for cordon's defaults */
	char pointer[256];  /* its JSON pointer ("" when none) */
	char reason[512];   /* a sentence */
};

/* opts may be NULL (the profile as it is). -ENOMEM, or the -errno of
 * canonicalising an added path. */
CORDON_API int cordon_why_new(const struct cordon_profile_handle *p, const struct cordon_why_opts *opts,
			      struct cordon_why **ret);
CORDON_API struct cordon_why *cordon_why_free(struct cordon_why *w);
/* May a process do op on path (canonicalised here)? */
CORDON_API int cordon_why_path(const struct cordon_why *w, const char *path, enum cordon_op op,
			       struct cordon_why_decision *ret);
/* May it connect to host:port? */
CORDON_API int cordon_why_host(const struct cordon_why *w, const char *host, unsigned port,
			       struct cordon_why_decision *ret);
/* The mode and the network with the overrides, and the network's origin. */
CORDON_API enum cordon_mode cordon_why_mode(const struct cordon_why *w);
CORDON_API enum cordon_net cordon_why_net(const struct cordon_why *w);
CORDON_API void cordon_why_net_origin(const struct cordon_why *w, struct cordon_origin *ret);

#ifdef __cplusplus
}
#endif
