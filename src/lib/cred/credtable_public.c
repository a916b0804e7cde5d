/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The credential table's public part (credtable.h): the session CA's
 * certificate and its subject hash, read by the runner, which loads no
 * libcrypto (this file uses none), before it hands the fd to the proxy.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "credtable.h"

int credtable_read_full(int fd, void *buf, size_t n)
{
	size_t off = 0;

	while (off < n) {
		ssize_t k = read(fd, (char *)buf + off, n - off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -EBADMSG;
		off += (size_t)k;
	}
	return 0;
}

int credtable_read_u32(int fd, uint32_t *ret)
{
	unsigned char b[4];
	int r = credtable_read_full(fd, b, 4);

	if (r < 0)
		return r;
	*ret = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	return 0;
}

int credtable_read_public(int fd, char **ret_ca_pem, uint32_t *ret_hash, unsigned char **ret_store,
			  size_t *ret_store_n)
{
	char magic[4];
	int r;

	r = credtable_read_full(fd, magic, 4);
	if (r < 0)
		return r;
	if (memcmp(magic, CREDTABLE_MAGIC, 4) != 0)
		return -EBADMSG;
	return credtable_read_public_after_magic(fd, ret_ca_pem, ret_hash, ret_store, ret_store_n);
}

int credtable_read_public_after_magic(int fd, char **ret_ca_pem, uint32_t *ret_hash, unsigned char **ret_store,
				      size_t *ret_store_n)
{
	uint32_t version, n, hash, sn;
	unsigned char *store = NULL;
	char *pem;
	int r;

	if ((r = credtable_read_u32(fd, &version)) < 0 || (r = credtable_read_u32(fd, &n)) < 0)
		return r;
	if (version != CREDTABLE_VERSION || n == 0 || n > CREDTABLE_PUBLIC_MAX)
		return -EBADMSG;
	pem = malloc(n + 1);
	if (!pem)
		return -ENOMEM;
	r = credtable_read_full(fd, pem, n);
	if (r < 0 || memchr(pem, '\0', n)) {
		free(pem);
		return r < 0 ? r : -EBADMSG;
	}
	pem[n] = '\0';
	r = credtable_read_u32(fd, &hash);
	if (r >= 0)
		r = credtable_read_u32(fd, &sn);
	if (r >= 0 && sn > CREDTABLE_STORE_MAX)
		r = -EBADMSG;
	if (r >= 0 && sn > 0 && !(store = malloc(sn)))
		r = -ENOMEM;
	if (r >= 0 && sn > 0)
		r = credtable_read_full(fd, store, sn);
	if (r < 0) {
		free(store);
		free(pem);
		return r;
	}
	*ret_ca_pem = pem;
	*ret_hash = hash;
	if (ret_store) {
		*ret_store = store;
		*ret_store_n = sn;
	} else
		free(store);
	return 0;
}

