/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `cordon-supervisor`: the same command line, with what needs libcrypto and
 * libcurl, the latter loaded for a webhook only (cli_supervisor.c says why
 * they are not in `cordon`). */
#include "cli.h"
#include "cordon/pack.h"
#include "intercept.h"

static const struct cli_supervisor_ops ops = {
	.name = "cordon-supervisor",
	.session = &cli_session_ops,
	.audit = cli_audit,
	.why_credential = cli_why_credential,
	.proxy_intercept_load = intercept_load,
	.pack = cli_pack,
	.pack_insecure_local = cli_pack_insecure_local,
};

int main(int argc, char **argv)
{
	/* OWNER/NAME/PROFILE names load, each verified (issue 24) */
	cordon_pack_enable();
	return cli_main(argc, argv, &ops);
}
