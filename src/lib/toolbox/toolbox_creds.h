/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * What a session's credentials do to its sandboxes (toolbox_creds.c), kept
 * by its toolbox: one phantom per credential and consumer (made at the
 * session's start, never shown), the variables no sandbox may have (every
 * env:// source, every phantom's name: a consumer gets its phantom set
 * after), the files no sandbox may read (every file:// source, every
 * client key), and a consumer's policy: its phantoms in its environment,
 * network proxy with the credentials' hosts allowed.
 */
#include "cordon/cordon.h"
#include "creds.h"

struct toolbox_creds;

struct toolbox_phantom {
	const struct tool_cred *cred;
	char *consumer;   /* "session" or a command's name */
	char *value;      /* shape.prefix + shape.len random characters */
};

/* t's credentials (none: an empty set). -ENOENT naming the file when a
 * file:// source or a client key is not there. */
int toolbox_creds_new(const struct cordon_tools *t, struct toolbox_creds **ret, struct cordon_error *reterr);
struct toolbox_creds *toolbox_creds_free(struct toolbox_creds *c);
/* NULL-terminated, never NULL. */
char *const *toolbox_creds_withheld(const struct toolbox_creds *c);
char *const *toolbox_creds_hidden(const struct toolbox_creds *c);
/* Every phantom of the session. */
const struct toolbox_phantom *toolbox_creds_phantoms(const struct toolbox_creds *c, size_t *ret_n);
/* consumer's phantom of credential cred; NULL when it was not granted. */
const char *toolbox_creds_phantom(const struct toolbox_creds *c, const char *cred, const char *consumer);
/* Does consumer hold any credential? */
bool toolbox_creds_consumer(const struct toolbox_creds *c, const char *consumer);
/* Does the sandbox of consumer whose policy is p get a credential table
 * (its proxy intercepting every credential host of the session)? A
 * consumer always; any other sandbox of a session with credentials whose
 * network is proxy (the session's phantoms, not granted there, are refused
 * at its proxy). Network host cannot be intercepted; none reaches nothing. */
bool toolbox_creds_intercepted(const struct toolbox_creds *c, const char *consumer, const struct cordon_policy *p);
/* consumer's policy (after everything withheld is gone from it): its
 * phantoms set, network proxy with every granted credential's hosts; a
 * credential table for every sandbox toolbox_creds_intercepted names. */
int toolbox_creds_apply(const struct toolbox_creds *c, const char *consumer, struct cordon_policy *p,
			struct cordon_error *reterr);
/* The toolbox's (NULL for a toolbox without credentials). */
const struct toolbox_creds *cordon_toolbox_creds(const struct cordon_toolbox *b);
