/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

#include "cordon/common.h"

/*
 * A caller-filled options struct whose first member is `size_t size` (the
 * sizeof the caller was built with; 0: the first release's, first bytes),
 * into out (known bytes, this library's sizeof): the bytes the caller's size
 * covers, the rest zero, out's size set to known. A caller that knows more
 * than we do is refused (-E2BIG) unless the bytes we do not know are zero;
 * a size below first is -EINVAL. in NULL: all zero. what names the struct.
 */
int opts_take(const void *in, size_t first, void *out, size_t known, const char *what,
	      struct cordon_error *reterr);
