/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The proxy's one entry point, for the cordon binary's main (its other
 * headers are the proxy's own). */

#include <stdbool.h>
#include <stddef.h>

struct proxy_intercept;

/* Reads a credential table from fd and sets up the TLS interception
 * (intercept_load, in cordon-supervisor only). */
typedef int (*proxy_intercept_load_fn)(int fd, const struct proxy_intercept **ret, char *err, size_t errlen);

/* `cordon proxy ...` (argv[0] is "proxy"): set up, confine, serve until the
 * run ends. load: NULL in the lean binary, which then refuses
 * --credentials-fd. Returns the process exit code. */
int cordon_proxy_main(int argc, char **argv, proxy_intercept_load_fn load);
/* The command line has --credentials-fd: the proxy needs cordon-supervisor. */
bool cordon_proxy_wants_credentials(int argc, char **argv);
