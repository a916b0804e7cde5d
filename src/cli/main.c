/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* `cordon`: the lean binary, and the runner (cli_supervisor.c says why). */
#include "cli.h"

int main(int argc, char **argv)
{
	return cli_main(argc, argv, NULL);
}
