/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdlib.h>

/* A property the target checks on what the parser returned: a broken one
 * is a crash, which libFuzzer reports with the input. */
#define CHECK(x)                  \
	do {                      \
		if (!(x))         \
			abort();  \
	} while (0)
