/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

/* Format a one-line reason into err[0..errlen) (either may be NULL/0) and
 * return r, a -errno: the runner's modules report failures this way. */
int errbuf_set(char *err, size_t errlen, int r, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
