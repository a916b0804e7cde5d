/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cordon_landlock_abi (what the kernel reports, memoised). */
#include <criterion/criterion.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cordon/cordon.h"

Test(kernel, landlock_abi_is_the_kernels_answer)
{
	long v = -1;

#ifdef SYS_landlock_create_ruleset
	v = syscall(SYS_landlock_create_ruleset, NULL, 0, 1u /* LANDLOCK_CREATE_RULESET_VERSION */);
#endif
	cr_expect_eq(cordon_landlock_abi(), v < 0 ? 0 : (int)v);
	cr_expect_eq(cordon_landlock_abi(), cordon_landlock_abi(), "memoised: the same answer again");
}
