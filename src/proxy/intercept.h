/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * TLS interception of the tunnels to credential hosts (issue 23), linked
 * into cordon-supervisor only (libssl). `cordon proxy --credentials-fd N`
 * reads the table (credtable.h) before it confines itself, makes every
 * TLS context then (a leaf per credential host from the session CA; the
 * upstream's roots loaded into memory: after confinement the proxy opens
 * no file), and terminates each CONNECT tunnel to a credential host:
 *
 *   client --TLS (leaf from the session CA; SNI, if any, == CONNECT host;
 *   ALPN http/1.1)--> proxy: each request decided and rewritten (cred_subst.c)
 *   --TLS (verified: system roots or the credential's CA; SNI, hostname;
 *   the client certificate when given)--> upstream; each response
 *   scrubbed (cred_scrub.c) on its way back.
 */

#include "proxy.h"

/* Read the table from fd (closed), set up the interception. The secure
 * heap first: without it, no credentials. -errno with why in err. */
int intercept_load(int fd, const struct proxy_intercept **ret, char *err, size_t errlen);
