/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the kernel offers, asked once (the one copy: the probe and the
 * runner both ask here). */
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "probe.h"

static int abi;
static pthread_once_t abi_once = PTHREAD_ONCE_INIT;

static void query_abi(void)
{
#ifdef SYS_landlock_create_ruleset
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0, 1u /* LANDLOCK_CREATE_RULESET_VERSION */);

	abi = v < 0 ? 0 : (int)v; /* ENOSYS: not built in; EOPNOTSUPP: disabled at boot */
#endif
}

CORDON_API int cordon_landlock_abi(void)
{
	(void)pthread_once(&abi_once, query_abi);
	return abi;
}
