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

#include "common.h"
#include "crypto.h"
#include "identity.h"
#include "identity_hasher.h"

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

Test(identity, unchanged_touched_rewritten_replaced)
{
	char dir[] = "/tmp/cordon-identity-XXXXXX", path[256], other[256], why[256] = "";
	struct file_identity id;
	struct timespec later[2] = { { .tv_sec = 1000000, .tv_nsec = 0 }, { .tv_sec = 1000000, .tv_nsec = 0 } };
	int fd, fd2;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/tool", dir);
	snprintf(other, sizeof(other), "%s/tool.new", dir);
	test_write_file(path, "#!/bin/sh\necho one\n");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(identity_record(fd, &id), 0);
	cr_assert_eq(identity_check(fd, &id, why, sizeof(why)), 0);

	/* a touch moves the times, not the content: hashed again, still it */
	cr_assert_eq(utimensat(AT_FDCWD, path, later, 0), 0);
	cr_assert_eq(identity_check(fd, &id, why, sizeof(why)), 0);

	/* the same size, other bytes: refused */
	test_write_file(path, "#!/bin/sh\necho two\n");
	cr_assert_eq(identity_check(fd, &id, why, sizeof(why)), -ESTALE);
	cr_assert(strstr(why, "content changed"), "%s", why);

	/* replaced by rename, as a package upgrade does: another inode */
	test_write_file(path, "#!/bin/sh\necho one\n");
	cr_assert_eq(identity_record(fd, &id), 0);
	test_write_file(other, "#!/bin/sh\necho one\n");
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

Test(identity, stat_then_check_in_two_steps)
{
	char dir[] = "/tmp/cordon-identity-XXXXXX", path[256], why[256] = "";
	struct file_identity id, full;
	struct timespec later[2] = {{.tv_sec = 2000000, .tv_nsec = 0}, {.tv_sec = 2000000, .tv_nsec = 0}};
	static const uint8_t zero[SHA256_BYTES];
	int fd;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/tool", dir);
	test_write_file(path, "#!/bin/sh\necho one\n");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(identity_stat(fd, &id), 0);
	cr_assert_eq(memcmp(id.sha256, zero, sizeof(zero)), 0, "identity_stat hashes nothing");
	cr_assert_eq(identity_record(fd, &full), 0);
	cr_assert(id.dev == full.dev && id.ino == full.ino && id.size == full.size);
	/* unchanged: no hash needed */
	cr_assert_eq(identity_check_file(fd, &id, why, sizeof(why)), 0);
	/* touched: only the content can tell */
	cr_assert_eq(utimensat(AT_FDCWD, path, later, 0), 0);
	cr_assert_eq(identity_check_file(fd, &id, why, sizeof(why)), 1);
	cr_assert_eq(identity_check_content(fd, &full, why, sizeof(why)), 0);
	cr_assert_eq(identity_check_content(fd, &id, why, sizeof(why)), -ESTALE, "a zero hash matched");
	test_write_file(path, "#!/bin/sh\necho two\n");
	cr_assert_eq(identity_check_file(fd, &id, why, sizeof(why)), 1);
	cr_assert_eq(identity_check_content(fd, &full, why, sizeof(why)), -ESTALE);
	cr_assert(strstr(why, "content changed"), "%s", why);
	test_write_file(path, "#!/bin/sh\necho three, longer\n");
	cr_assert_eq(identity_check_file(fd, &id, why, sizeof(why)), -ESTALE);
	cr_assert(strstr(why, "size changed"), "%s", why);
	close(fd);
	unlink(path);
	rmdir(dir);
}

/* A job: path opened, its identity taken, handed to h. */
static size_t add_job(struct identity_hasher *h, const char *path, struct file_identity *id)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t job = SIZE_MAX;

	cr_assert_geq(fd, 0, "%s", path);
	cr_assert_eq(identity_stat(fd, id), 0);
	cr_assert_eq(identity_hasher_add(h, fd, id, &job), 0);
	return job;
}

Test(identity_hasher, hashes_each_file_as_it_was_at_start)
{
	char dir[] = "/tmp/cordon-hasher-XXXXXX", a[256], b[256], c[256], why[256] = "";
	struct identity_hasher *h = NULL;
	struct file_identity ida, idb, idc, want;
	uint8_t got[SHA256_BYTES];
	size_t ja, jb, jc;
	int fd;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	snprintf(c, sizeof(c), "%s/c", dir);
	test_write_file(a, "alpha\n");
	test_write_file(b, "bravo\n");
	test_write_file(c, "charlie\n");
	cr_assert_eq(identity_hasher_new(3, &h), 0);
	ja = add_job(h, a, &ida);
	jb = add_job(h, b, &idb);
	/* c changes after its identity was taken and before it is hashed:
	 * its hash is not the file as it was at start */
	jc = add_job(h, c, &idc);
	test_write_file(c, "CHARLIE\n");
	fd = open(a, O_RDONLY | O_CLOEXEC);
	cr_assert_eq(identity_hasher_add(h, fd, &ida, &(size_t){0}), -ENOSPC);
	cr_assert_eq(identity_hasher_start(h), 0);

	/* b first: a wanted job is hashed next */
	cr_assert_eq(identity_hasher_wait(h, jb, 10000, got, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(identity_record(fd = open(b, O_RDONLY | O_CLOEXEC), &want), 0);
	close(fd);
	cr_assert_eq(memcmp(got, want.sha256, SHA256_BYTES), 0);
	cr_assert_eq(identity_hasher_wait(h, ja, 10000, got, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(identity_record(fd = open(a, O_RDONLY | O_CLOEXEC), &want), 0);
	close(fd);
	cr_assert_eq(memcmp(got, want.sha256, SHA256_BYTES), 0);
	cr_assert_eq(identity_hasher_wait(h, jc, 10000, got, why, sizeof(why)), -ESTALE);
	cr_assert(strstr(why, "changed while it was hashed"), "%s", why);
	/* asked again: the same answer */
	cr_assert_eq(identity_hasher_wait(h, ja, 0, got, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(identity_hasher_wait(h, 3, 0, got, why, sizeof(why)), -ENOENT);
	cr_assert_null(identity_hasher_free(h));
	cr_assert_null(identity_hasher_free(NULL));
	unlink(a);
	unlink(b);
	unlink(c);
	rmdir(dir);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A file of n bytes of holes. */
static void sparse_file(const char *path, off_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, n), 0);
	close(fd);
}

/* A wait is bounded, and the end does not wait for a long hash. */
Test(identity_hasher, wait_bounded_and_free_stops_a_long_hash)
{
	char dir[] = "/tmp/cordon-hasher-XXXXXX", one[256], two[256], why[256] = "";
	struct identity_hasher *h = NULL;
	struct file_identity id1, id2;
	uint8_t got[SHA256_BYTES];
	size_t j2;
	uint64_t t0;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(one, sizeof(one), "%s/one", dir);
	snprintf(two, sizeof(two), "%s/two", dir);
	/* 1 GiB each: seconds of hashing, whichever comes first */
	sparse_file(one, (off_t)IDENTITY_MAX_BYTES);
	sparse_file(two, (off_t)IDENTITY_MAX_BYTES);
	cr_assert_eq(identity_hasher_new(2, &h), 0);
	add_job(h, one, &id1);
	j2 = add_job(h, two, &id2);
	cr_assert_eq(identity_hasher_start(h), 0);
	cr_assert_eq(identity_hasher_start(h), -EBUSY);
	cr_assert_eq(identity_hasher_wait(h, j2, 20, got, why, sizeof(why)), -ETIMEDOUT);
	cr_assert(strstr(why, "not ready after 20 ms"), "%s", why);
	t0 = now_ms();
	cr_assert_null(identity_hasher_free(h));
	cr_assert_lt(now_ms() - t0, 2000, "the end waited for the hash");
	unlink(one);
	unlink(two);
	rmdir(dir);
}
