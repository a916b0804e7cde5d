/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The range each limit takes in a run (cordon_limit_range, limits.h): the
 * one table the launch's checks, a profile's limits under a run and the
 * CLI's flag messages all read, so a minimum is written once.
 */
#include "cordon/cordon.h"

#define WEEK_SECONDS UINT64_C(604800)

static const struct cordon_limit_range ranges[_CORDON_LIMIT_MAX] = {
	[CORDON_LIMIT_TIMEOUT] = { "timeout", 1, WEEK_SECONDS * 1000, "" },
	[CORDON_LIMIT_CPU] = { "cpu", 1, WEEK_SECONDS, "" },
	[CORDON_LIMIT_MEMORY] = { "memory", UINT64_C(1) << 20, UINT64_C(1) << 40, "" },
	/* the runner and its init count too */
	[CORDON_LIMIT_PROCESSES] = { "max_processes", 4, 4194304, "the runner itself needs 4" },
	[CORDON_LIMIT_FILE_SIZE] = { "max_file_size", 1, UINT64_C(1) << 40, "" },
	/* below 16 the runner cannot set the sandbox up */
	[CORDON_LIMIT_OPEN_FILES] = { "max_open_files", 16, 1048576, "the runner needs 16 to set the sandbox up" },
	[CORDON_LIMIT_OUTPUT] = { "max_output", 1, UINT64_C(1) << 30, "" },
};

CORDON_API const struct cordon_limit_range *cordon_limit_range(enum cordon_limit l)
{
	if ((unsigned)l >= _CORDON_LIMIT_MAX || !ranges[l].key)
		return NULL;
	return &ranges[l];
}
