/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The supervisor's hashes (known answers) and a binary's identity record. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crypto.h"
#include "identity.h"

Test(crypto, sha256_known_answers)
{
	char hex[SHA256_HEX];

	cr_assert_eq(sha256_hex("abc", 3, hex), 0);
	cr_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	cr_assert_eq(sha256_hex("", 0, hex), 0);
	cr_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

Test(crypto, hmac_rfc4231_case2)
{
	uint8_t mac[SHA256_BYTES];
	char hex[SHA256_HEX];
	const char *data = "what do ya want for nothing?";

	cr_assert_eq(hmac_sha256("Jefe", 4, data, strlen(data), mac), 0);
	hex_encode(mac, sizeof(mac), hex);
	cr_assert_str_eq(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

Test(crypto, hex_round_trip_and_refusals)
{
	uint8_t in[4] = { 0x00, 0xab, 0x7f, 0xff }, out[4];
	char hex[9];

	hex_encode(in, 4, hex);
	cr_assert_str_eq(hex, "00ab7fff");
	cr_assert_eq(hex_decode("00AB7FFF", out, 4), 0);
	cr_assert_eq(memcmp(in, out, 4), 0);
	cr_assert_eq(hex_decode("00ab7ff", out, 4), -EINVAL);
	cr_assert_eq(hex_decode("00ab7fzz", out, 4), -EINVAL);
	cr_assert(bytes_equal(in, in, 4));
	cr_assert_not(bytes_equal(in, "\x00\xab\x7f\xfe", 4));
}

Test(crypto, random_hex_differs)
{
	char a[33], b[33];

	cr_assert_eq(random_hex(16, a), 0);
	cr_assert_eq(random_hex(16, b), 0);
	cr_assert_eq(strlen(a), 32);
	cr_assert_str_neq(a, b);
	cr_assert_eq(random_hex(65, a), -EINVAL);
}

static void write_file(const char *path, const char *content)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(content, f);
	cr_assert_eq(fclose(f), 0);
}

Test(identity, unchanged_touched_rewritten_replaced)
{
	char dir[] = "/tmp/cordon-identity-XXXXXX", path[256], other[256], why[256] = "";
	struct file_identity id;
	struct timespec later[2] = { { .tv_sec = 1000000, .tv_nsec = 0 }, { .tv_sec = 1000000, .tv_nsec = 0 } };
	int fd, fd2;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/tool", dir);
	snprintf(other, sizeof(other), "%s/tool.new", dir);
	write_file(path, "#!/bin/sh\necho one\n");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(identity_record(fd, &id), 0);
	cr_assert_eq(identity_check(fd, &id, why, sizeof(why)), 0);

	/* a touch moves the times, not the content: hashed again, still it */
	cr_assert_eq(utimensat(AT_FDCWD, path, later, 0), 0);
	cr_assert_eq(identity_check(fd, &id, why, sizeof(why)), 0);

	/* the same size, other bytes: refused */
	write_file(path, "#!/bin/sh\necho two\n");
	cr_assert_eq(identity_check(fd, &id, why, sizeof(why)), -ESTALE);
	cr_assert(strstr(why, "content changed"), "%s", why);

	/* replaced by rename, as a package upgrade does: another inode */
	write_file(path, "#!/bin/sh\necho one\n");
	cr_assert_eq(identity_record(fd, &id), 0);
	write_file(other, "#!/bin/sh\necho one\n");
	cr_assert_eq(rename(other, path), 0);
	fd2 = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd2, 0);
	cr_assert_eq(identity_check(fd2, &id, why, sizeof(why)), -ESTALE);
	cr_assert(strstr(why, "replaced"), "%s", why);
	/* the fd opened before the swap is still the recorded file */
	cr_assert_eq(identity_check(fd, &id, why, sizeof(why)), 0);

	/* a directory is no binary */
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_eq(identity_record(dfd, &id), -EACCES);
	close(dfd);
	close(fd);
	close(fd2);
	unlink(path);
	rmdir(dir);
}
