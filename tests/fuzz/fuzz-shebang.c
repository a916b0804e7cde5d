/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * "#!" lines (shebang.c) on arbitrary bytes: the execute-closure reads the
 * first line of every script a tool may run, and, for "#!/usr/bin/env",
 * which program env would start. Neither parser may crash or read past
 * the kernel's 256 bytes; what they accept must be non-empty and contain
 * no line break.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shebang.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *interp = NULL, *arg = NULL, *name = NULL;
	struct cordon_error err = {};
	int r = shebang_parse((const char *)data, size, &interp, &arg, &err);

	if (r < 0 && r != -ENOEXEC && r != -ENOMEM)
		abort();
	if (r == 1) {
		if (!interp[0] || strchr(interp, '\n') || strlen(interp) >= SHEBANG_MAX)
			abort();
		if (arg && (!arg[0] || strchr(arg, '\n') || strlen(arg) >= SHEBANG_MAX))
			abort();
		r = shebang_env_program(arg, &name, &err);
		if (r == 0 && (!name[0] || strchr(name, ' ')) && arg && arg[0] == '-')
			abort(); /* with -S, the program is one word */
		if (r < 0 && r != -ENOEXEC && r != -ENOMEM)
			abort();
	}
	free(interp);
	free(arg);
	free(name);
	return 0;
}
