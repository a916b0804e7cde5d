/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The JVM trust store's reading of a PEM bundle (trust_store.c: the
 * certificate blocks found, their base64 decoded, their DER carried into
 * bags). The input is the bundle, a memfd named by /proc/self/fd. Checks:
 * the store is made or refused over a cap, never anything else, and a
 * store made parses as PKCS#12.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <openssl/pkcs12.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "credtable.h"
#include "tls_ca.h"
#include "trust_store.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *ca_pem;
	static struct credtable_secret ca_key;
	char *hosts[] = { "example.com", NULL }, path[64];
	unsigned char *der = NULL;
	const unsigned char *q;
	size_t n = 0;
	PKCS12 *p12;
	int fd, r;

	if (!ca_pem) {
		CHECK(credtable_secure_init() == 0);
		CHECK(tls_ca_make(hosts, 1, &ca_pem, &ca_key) == 0);
	}
	if (size > 1024 * 1024)
		return 0;
	fd = memfd_create("bundle", MFD_CLOEXEC);
	CHECK(fd >= 0);
	CHECK(write(fd, data, size) == (ssize_t)size);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	r = trust_store_make(path, ca_pem, &der, &n);
	close(fd);
	CHECK(r == 0 || r == -E2BIG);
	if (r == 0) {
		q = der;
		p12 = d2i_PKCS12(NULL, &q, (long)n);
		CHECK(p12 && q == der + n);
		PKCS12_free(p12);
		free(der);
	}
	return 0;
}
