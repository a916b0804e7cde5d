/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdint.h>
#include <openssl/crypto.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "secret.h"

int secret_new(const void *bytes, size_t len, struct secret **ret)
{
	long page = sysconf(_SC_PAGESIZE);
	struct secret *s;
	size_t mapped;
	void *p;

	if (len == 0)
		return -EINVAL;
	if (page <= 0)
		page = 4096;
	if (len > SIZE_MAX - (size_t)page)
		return -ENOMEM;
	mapped = (len + 1 + (size_t)page - 1) / (size_t)page * (size_t)page;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	p = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		free(s);
		return -ENOMEM;
	}
	/* Best effort, each: an unprivileged RLIMIT_MEMLOCK may be small, and an
	 * old kernel may lack MADV_WIPEONFORK; the key is still kept apart and
	 * zeroed. */
	(void)mlock(p, mapped);
	(void)madvise(p, mapped, MADV_DONTDUMP);
	(void)madvise(p, mapped, MADV_WIPEONFORK);
	memcpy(p, bytes, len);
	((char *)p)[len] = '\0';
	s->bytes = p;
	s->len = len;
	s->mapped = mapped;
	*ret = s;
	return 0;
}

struct secret *secret_free(struct secret *s)
{
	if (!s)
		return NULL;
	/* OPENSSL_cleanse: a zeroing the compiler may not drop as a dead store */
	OPENSSL_cleanse(s->bytes, s->mapped);
	(void)munlock(s->bytes, s->mapped);
	(void)munmap(s->bytes, s->mapped);
	free(s);
	return NULL;
}
