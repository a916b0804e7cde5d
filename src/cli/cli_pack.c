/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `cordon pack install [--yes] DIR | list | show OWNER/NAME | verify
 * [OWNER/NAME] | remove OWNER/NAME` (issue 24; cordon-supervisor only:
 * the signatures need libcrypto). The library verifies and installs; this
 * file prints and asks the person at the terminal.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "cli.h"
#include "cordon/pack.h"

#define USAGE                                                                                                      \
	"usage: cordon pack install [--yes] DIR\n"                                                                  \
	"       cordon pack list\n"                                                                                 \
	"       cordon pack show OWNER/NAME\n"                                                                      \
	"       cordon pack verify [OWNER/NAME]\n"                                                                  \
	"       cordon pack remove OWNER/NAME\n"

static bool confirm(void *ctx, const char *text, bool needs_terminal)
{
	bool yes = *(bool *)ctx, tty = isatty(STDIN_FILENO) && isatty(STDERR_FILENO);
	char line[16];

	fputs(text, stderr);
	if (needs_terminal && !tty) {
		cli_say("this change is accepted only by a person at a terminal (--yes does not accept it)");
		return false;
	}
	if (yes && !needs_terminal)
		return true;
	if (!tty) {
		cli_say("not a terminal: pass --yes to install");
		return false;
	}
	fputs("Install? [y/N] ", stderr);
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return false;
	return line[0] == 'y' || line[0] == 'Y';
}

int cli_pack_insecure_local(const char *dir, char *name, size_t size)
{
	char reason[1024] = "";
	int r = cordon_pack_insecure_local(dir, name, size, reason, sizeof(reason));

	if (r < 0)
		cli_say("--insecure-local %s: %s", dir, reason[0] ? reason : strerror(-r));
	return r;
}

int cli_pack(int argc, char **argv)
{
	_cleanup_free_ char *text = NULL;
	const char *action = argc > 2 ? argv[2] : "", *operand = NULL;
	char reason[1024] = "";
	bool yes = false;
	int r, n_operands = 0;

	for (int i = 3; i < argc; i++) {
		if (strcmp(argv[i], "--yes") == 0 && strcmp(action, "install") == 0)
			yes = true;
		else if (argv[i][0] == '-' || n_operands++) {
			fputs(USAGE, stderr);
			return CLI_EXIT_REFUSED;
		} else
			operand = argv[i];
	}
	if (strcmp(action, "install") == 0 && operand)
		r = cordon_pack_install(operand, confirm, &yes, reason, sizeof(reason));
	else if (strcmp(action, "list") == 0 && !operand)
		r = cordon_pack_list(&text, reason, sizeof(reason));
	else if (strcmp(action, "show") == 0 && operand)
		r = cordon_pack_show(operand, &text, reason, sizeof(reason));
	else if (strcmp(action, "verify") == 0)
		r = cordon_pack_verify(operand, &text, reason, sizeof(reason));
	else if (strcmp(action, "remove") == 0 && operand)
		r = cordon_pack_remove(operand, reason, sizeof(reason));
	else {
		fputs(USAGE, stderr);
		return CLI_EXIT_REFUSED;
	}
	if (text)
		fputs(text, stdout);
	if (r < 0) {
		cli_say("%s", reason[0] ? reason : strerror(-r));
		return CLI_EXIT_REFUSED;
	}
	if (strcmp(action, "install") == 0)
		printf("installed\n");
	return 0;
}
