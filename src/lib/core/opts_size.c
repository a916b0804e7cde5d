/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The size of a caller-filled options struct (opts_size.h). */
#include <errno.h>
#include <string.h>

#include "cordon/cordon.h"
#include "error.h"
#include "opts_size.h"

int opts_take(const void *in, size_t first, void *out, size_t known, const char *what,
	      struct cordon_error *reterr)
{
	const unsigned char *b = in;
	size_t n;

	memset(out, 0, known);
	if (!in) {
		memcpy(out, &known, sizeof(known));
		return 0;
	}
	memcpy(&n, in, sizeof(n));
	if (n == 0)
		n = first;
	if (n < first)
		return error_set(reterr, -EINVAL, "%s.size %zu is smaller than the first release's (%zu)", what, n,
				 first);
	for (size_t i = known; i < n; i++)
		if (b[i])
			return error_set(reterr, -E2BIG, "%s has fields this library does not know (size %zu, known %zu)",
					 what, n, known);
	memcpy(out, in, n < known ? n : known);
	memcpy(out, &known, sizeof(known));
	return 0;
}
