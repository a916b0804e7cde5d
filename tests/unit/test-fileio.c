/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cordon/cordon.h"
#include "dirlist.h"
#include "fileio.h"

static char dir[] = "/tmp/cordon-fileio-XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	(void)!system(cmd);
}

TestSuite(fileio, .init = setup, .fini = teardown);

static void write_file(const char *path, size_t n)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	for (size_t i = 0; i < n; i++)
		fputc('a' + (int)(i % 26), f);
	fclose(f);
}

Test(fileio, reads_whole_file_up_to_the_cap)
{
	char path[128], *buf = NULL;
	size_t len = 0;

	snprintf(path, sizeof(path), "%s/f", dir);
	write_file(path, 200000);
	cr_assert_eq(read_file_capped(path, 200000, true, &buf, &len), 0);
	cr_assert_eq(len, 200000);
	cr_assert_eq(buf[len], '\0');
	cr_assert_eq(buf[199999], 'a' + 199999 % 26);
	free(buf);
	buf = NULL;
	cr_assert_eq(read_file_capped(path, 199999, true, &buf, &len), -EFBIG);
	cr_assert_eq(read_file_capped(path, 199999, false, &buf, &len), -EFBIG);
	cr_assert_null(buf);
}

Test(fileio, regular_only_refuses_fifo_and_directory_without_hanging)
{
	char fifo[128], *buf = NULL;
	size_t len;

	snprintf(fifo, sizeof(fifo), "%s/p", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_assert_eq(read_file_capped(fifo, 1024, true, &buf, &len), -EINVAL);
	cr_assert_eq(read_file_capped(dir, 1024, true, &buf, &len), -EISDIR);
	cr_assert_null(buf);
}

Test(fileio, empty_file_is_an_empty_string)
{
	char path[128], *buf = NULL;
	size_t len = 1;

	snprintf(path, sizeof(path), "%s/e", dir);
	write_file(path, 0);
	cr_assert_eq(read_file_capped(path, 16, true, &buf, &len), 0);
	cr_assert_eq(len, 0);
	cr_assert_str_eq(buf, "");
	free(buf);
}

Test(fileio, read_small_truncates_to_the_buffer)
{
	char path[128], buf[8];

	snprintf(path, sizeof(path), "%s/s", dir);
	write_file(path, 100);
	cr_assert_eq(read_small(path, buf, sizeof(buf)), 7);
	cr_assert_str_eq(buf, "abcdefg");
	cr_assert_eq(read_small(path, buf, 0), -EINVAL);
}

/* The public reader: the same cap, "-" is standard input, no path refused. */
Test(fileio, cordon_read_file_caps_and_reads_standard_input)
{
	char path[256], *buf = NULL;
	size_t len = 0;
	int fds[2], saved;

	snprintf(path, sizeof(path), "%s/small", dir);
	write_file(path, 100);
	cr_assert_eq(cordon_read_file(path, 100, &buf, &len), 0);
	cr_expect_eq(len, 100);
	cr_expect_eq(buf[100], '\0');
	cr_expect_eq(buf[0], 'a');
	free(buf);
	buf = NULL;
	cr_expect_eq(cordon_read_file(path, 99, &buf, &len), -EFBIG);
	cr_expect_null(buf);
	cr_expect_eq(cordon_read_file(NULL, 99, &buf, &len), -EINVAL);
	snprintf(path, sizeof(path), "%s/missing", dir);
	cr_expect_eq(cordon_read_file(path, 99, &buf, &len), -ENOENT);

	cr_assert_eq(pipe(fds), 0);
	cr_assert_eq(write(fds[1], "from stdin", 10), 10);
	close(fds[1]);
	saved = dup(0);
	cr_assert_eq(dup2(fds[0], 0), 0);
	close(fds[0]);
	int r = cordon_read_file("-", 1024, &buf, &len);
	dup2(saved, 0);
	close(saved);
	cr_assert_eq(r, 0);
	cr_expect_eq(len, 10);
	cr_expect_str_eq(buf, "from stdin");
	free(buf);
}

struct seen {
	unsigned n, dots, regular;
	unsigned stop_after;
};

static int note_entry(const char *name, unsigned char type, void *data)
{
	struct seen *s = data;

	s->n++;
	s->dots += strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
	s->regular += type == DT_REG;
	return s->stop_after && s->n == s->stop_after ? 42 : 0;
}

/* dirlist: every entry but "." and "..", with its type; a nonzero return
 * stops it; a file or a missing path is refused as open(2) refuses it. */
Test(fileio, dirlist_entries)
{
	struct seen s = {};
	char p[256];

	for (int i = 0; i < 300; i++) {
		snprintf(p, sizeof(p), "%s/entry-with-a-longish-name-%03d", dir, i);
		write_file(p, 1);
	}
	cr_assert_eq(dirlist_path(dir, O_NOFOLLOW, note_entry, &s), 0);
	cr_assert_eq(s.n, 300, "%u entries", s.n);
	cr_assert_eq(s.dots, 0);
	cr_assert_eq(s.regular, 300);

	s = (struct seen){ .stop_after = 7 };
	cr_assert_eq(dirlist_path(dir, 0, note_entry, &s), 42);
	cr_assert_eq(s.n, 7);

	snprintf(p, sizeof(p), "%s/entry-with-a-longish-name-000", dir);
	cr_assert_eq(dirlist_path(p, 0, note_entry, &s), -ENOTDIR);
	snprintf(p, sizeof(p), "%s/none", dir);
	cr_assert_eq(dirlist_path(p, 0, note_entry, &s), -ENOENT);
}
