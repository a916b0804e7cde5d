/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The proxy's one entry point, for the cordon binary's main (its other
 * headers are the proxy's own). */

/* `cordon proxy ...` (argv[0] is "proxy"): set up, confine, serve until the
 * run ends. Returns the process exit code. */
int cordon_proxy_main(int argc, char **argv);
