/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Cleanup attributes instead of goto ladders. Every destructor accepts NULL. */

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}

static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

#define _cleanup_(x) __attribute__((__cleanup__(x)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)

/* Take ownership out of a cleanup variable. */
#define TAKE_PTR(p)                                  \
	({                                           \
		__typeof__(p) *_pp = &(p);           \
		__typeof__(p) _ptr = *_pp;           \
		*_pp = NULL;                         \
		_ptr;                                \
	})
#define TAKE_FD(fd)                                  \
	({                                           \
		int *_pfd = &(fd);                   \
		int _fd = *_pfd;                     \
		*_pfd = -1;                          \
		_fd;                                 \
	})

#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)      \
	static inline void func##p(type *p)          \
	{                                            \
		if (*p)                              \
			func(*p);                    \
	}

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))
