/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `cordon-supervisor`: the same command line, with what needs libcrypto and
 * libcurl, the latter loaded for a webhook only (cli_supervisor.c says why
 * they are not in `cordon`). */
#include "cli.h"
#include "intercept.h"

static const struct cli_supervisor_ops ops = {
	.name = "cordon-supervisor",
	.session = &cli_session_ops,
	.audit = cli_audit,
	.proxy_intercept_load = intercept_load,
};

int main(int argc, char **argv)
{
	return cli_main(argc, argv, &ops);
}
